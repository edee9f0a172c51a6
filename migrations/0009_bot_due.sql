-- 0009_bot_due.sql: games whose bots think outside the request. A slow bot (the expert) decides
-- on a bounded pool of bot workers, outside the transaction that holds the game's row; bot_due
-- says a game waits for such a decision, so that any instance can pick up a game whose worker
-- was lost (a daemon killed while a bot was thinking). The index holds only those games, and
-- its column never changes, so saves of other games keep their HOT updates.
ALTER TABLE games ADD COLUMN bot_due boolean NOT NULL DEFAULT false;
CREATE INDEX games_bot_due ON games (id) WHERE bot_due;
