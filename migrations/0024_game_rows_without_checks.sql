-- 0024_game_rows_without_checks.sql: a game's log rows (event_batches, decisions, orders) no
-- longer carry a foreign key to games. Each inserted row fired a check of the game (a trigger, a
-- lookup and a row lock), about a seventh of PostgreSQL's work for a resolved step (issue 25),
-- though only the save statement writes them, under the game row's lock, in the statement that
-- updates that row, and the sweeps only for games they just updated. What the keys' ON DELETE
-- CASCADE did, deleting a game's rows with the game in the same transaction, a trigger on games
-- does now, whoever deletes (the sweeper's purge, an operator by hand).
ALTER TABLE event_batches DROP CONSTRAINT event_batches_game_id_fkey;
ALTER TABLE decisions DROP CONSTRAINT decisions_game_id_fkey;
ALTER TABLE orders DROP CONSTRAINT orders_game_id_fkey;

CREATE FUNCTION games_delete_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM event_batches WHERE game_id IN (SELECT id FROM gone);
    DELETE FROM decisions WHERE game_id IN (SELECT id FROM gone);
    DELETE FROM orders WHERE game_id IN (SELECT id FROM gone);
    RETURN NULL;
END $$;
CREATE TRIGGER games_delete_log AFTER DELETE ON games REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION games_delete_log();
