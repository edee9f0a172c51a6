-- 0007_private_games.sql: private tables. An unlisted game is left out of the lobby and is
-- joined only through its invite link (its id). The lobby reads two partial indexes that leave
-- unlisted games out, so listing costs no more with many private games.
ALTER TABLE games ADD COLUMN unlisted boolean NOT NULL DEFAULT false;
CREATE INDEX games_lobby_open ON games (created_at) WHERE status = 'open' AND NOT unlisted;
CREATE INDEX games_lobby_listed ON games (created_at)
    WHERE status IN ('playing', 'finished') AND NOT unlisted;
