-- 0014_games_generic.sql: the games table names no game and no game's option. Every game the
-- service stores names its game, so `game` loses the default it took in 0006, where it named the
-- game of the rows from before there were several (those rows keep it). The City's target
-- has been stored with every game's options since 0012, which copied the column into `options`;
-- the API's older field target_vp is read from there. The column is no longer written and may be
-- null; it stays for one release so that daemons of the release before, still running during a
-- rolling upgrade, can go on inserting games (expand, then contract: a later migration drops it).
ALTER TABLE games ALTER COLUMN game DROP DEFAULT;
ALTER TABLE games ALTER COLUMN target_vp DROP NOT NULL;
