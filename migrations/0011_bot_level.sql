-- 0011_bot_level.sql: the expert's difficulty level per game (easy, normal, expert: the table in
-- src/engine/expert_levels.c), chosen when the game is created and read by the bot pool for the
-- game's expert seats. Games from before levels keep the expert they had: the top level. The
-- column is not indexed and never changes, so saves of a game keep their HOT updates.
ALTER TABLE games ADD COLUMN bot_level text NOT NULL DEFAULT 'expert';
