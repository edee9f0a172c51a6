-- 0027_game_count_changes.sql: the counts of games by status (/metrics' city_games) take each
-- change of status as a row of its own in game_count_changes (+1 for the new status, -1 for the
-- old), which the sweeper folds into game_counts about once a second, instead of an UPDATE of
-- one of 16 shared rows a status in the writer's own transaction. A batch of orders that ended
-- several games held several of those rows, taken in random order, so two batches could wait on
-- each other until deadlock_timeout (1 s) aborted one (issue 25: 22 requests of about a second in
-- 5 s of play, "deadlock detected ... in relation game_counts"). An insert into a table with no
-- index waits for nobody. The release before reads game_counts alone: during a rolling upgrade
-- its /metrics lags by the changes not folded yet.
CREATE TABLE game_count_changes (
    status text    NOT NULL,
    n      integer NOT NULL
);

CREATE OR REPLACE FUNCTION games_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO game_count_changes (status, n) VALUES (OLD.status, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO game_count_changes (status, n) VALUES (NEW.status, 1);
    END IF;
    RETURN NULL;
END $$;

-- What /metrics reads: the folded counts and the changes not folded yet.
CREATE VIEW game_counts_now AS
    SELECT status, sum(n)::bigint AS n
    FROM (SELECT status, n FROM game_counts
          UNION ALL SELECT status, n FROM game_count_changes) x
    GROUP BY status;
