-- 0006_rulesets.sql: games of several rulesets. Each game names its ruleset (the API's
-- "game"); every game stored before this was The City. Tech City seats 1 to 6 players.
ALTER TABLE games ADD COLUMN game text NOT NULL DEFAULT 'the_city';
ALTER TABLE games DROP CONSTRAINT games_players_check;
ALTER TABLE games ADD CONSTRAINT games_players_check CHECK (players BETWEEN 1 AND 6);
