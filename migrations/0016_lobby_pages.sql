-- 0016_lobby_pages.sql: the lobby pages and does not let a burst of creations push others out.
-- A game keeps the address key of the client that created it (netaddr_key(): IPv4 by address,
-- IPv6 by /64). When an address creates an open game while it has CITY_LOBBY_PER_ADDRESS listed
-- open games already, its oldest beyond that are marked lobby_hidden: left out of the lobby for
-- good, still joined by their id. The lobby reads only listed games, so a page costs the same
-- however many open games a few addresses hold. creator_key is nullable: games created before,
-- or by a daemon of the release before during a rolling upgrade, have none and are listed.
ALTER TABLE games ADD COLUMN creator_key bytea;
ALTER TABLE games ADD COLUMN lobby_hidden boolean NOT NULL DEFAULT false;

-- The lobby's pages are keyset pages in (created_at, id) order. Its open games are read from an
-- index of the listed ones alone (taking the id as a tie-break and holding the filters'
-- columns), never from every open game; the create reads an address's listed open games.
-- Started and finished games are still read from games_lobby_listed (0007).
CREATE INDEX games_lobby_open_page ON games (created_at, id) INCLUDE (game, players)
    WHERE status = 'open' AND NOT unlisted AND NOT lobby_hidden;
CREATE INDEX games_lobby_open_creator ON games (creator_key, created_at)
    WHERE status = 'open' AND NOT unlisted AND NOT lobby_hidden AND creator_key IS NOT NULL;
-- Replaced by games_lobby_open_page.
DROP INDEX IF EXISTS games_lobby_open;

-- The planner learns how status and lobby_hidden go together (hidden games are all open, a
-- small part of all games), so that it reads the lobby's own index instead of every open game.
CREATE STATISTICS games_status_lobby (mcv) ON status, unlisted, lobby_hidden FROM games;
