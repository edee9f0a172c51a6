-- 0016_lobby_pages.sql: the lobby pages and does not let a burst of creations push others out.
-- A game keeps the address key of the client that created it (netaddr_key(): IPv4 by address,
-- IPv6 by /64), so that the lobby lists only the newest few open games of each address. The
-- column is nullable: games created before, or by a daemon of the release before during a
-- rolling upgrade, have none and are listed as before.
ALTER TABLE games ADD COLUMN creator_key bytea;

-- The lobby's pages are keyset pages in (created_at, id) order: the two lobby indexes take the
-- id as a tie-break, and an open game's newer siblings of the same address are counted from
-- one more.
CREATE INDEX games_lobby_open_page ON games (created_at, id) WHERE status = 'open' AND NOT unlisted;
CREATE INDEX games_lobby_listed_page ON games (created_at, id)
    WHERE status IN ('playing', 'finished') AND NOT unlisted;
CREATE INDEX games_lobby_open_creator ON games (creator_key, created_at)
    WHERE status = 'open' AND NOT unlisted AND creator_key IS NOT NULL;
-- Replaced by the two above (same rows, the id added).
DROP INDEX IF EXISTS games_lobby_open;
DROP INDEX IF EXISTS games_lobby_listed;
