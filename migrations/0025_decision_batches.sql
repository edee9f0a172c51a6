-- 0025_decision_batches.sql: the replay log keeps the decisions of one save in one row, as the
-- event log keeps its events (0023): a resolved step of four seats wrote four rows, each with its
-- index entry (issue 25). body is the batch in order, an array of {seat, round, step, turn, body,
-- is_default}: its k-th element (from 1) is decision first_n + k - 1. A game's batches are
-- disjoint, so last_n identifies one, and the key on it is what a reader of a seat's last
-- decision walks backwards.
CREATE TABLE decision_batches (
    game_id     text        NOT NULL,
    first_n     integer     NOT NULL,
    last_n      integer     NOT NULL CHECK (last_n >= first_n),
    body        jsonb       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, last_n)
);
INSERT INTO decision_batches (game_id, first_n, last_n, body, created_at)
    SELECT game_id, n, n, jsonb_build_array(jsonb_build_object('seat', seat, 'round', round,
           'step', step, 'turn', turn, 'body', body, 'is_default', is_default)), created_at
    FROM decisions;
DROP TABLE decisions;
-- The log one decision a row, as the decisions table had it; an instance of the release before
-- still running during an upgrade reads it, and each decision it inserts becomes a batch of one
-- (as with events, 0023).
CREATE VIEW decisions AS
    SELECT b.game_id, (b.first_n + x.n - 1)::integer AS n, (x.v->>'seat')::smallint AS seat,
           (x.v->>'round')::smallint AS round, x.v->>'step' AS step, x.v->'body' AS body,
           (x.v->>'is_default')::boolean AS is_default, b.created_at,
           (x.v->>'turn')::integer AS turn
    FROM decision_batches b, jsonb_array_elements(b.body) WITH ORDINALITY AS x(v, n);
CREATE FUNCTION decisions_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO decision_batches (game_id, first_n, last_n, body)
    VALUES (NEW.game_id, NEW.n, NEW.n, jsonb_build_array(jsonb_build_object('seat', NEW.seat,
            'round', NEW.round, 'step', NEW.step, 'turn', coalesce(NEW.turn, 0), 'body', NEW.body,
            'is_default', coalesce(NEW.is_default, false))));
    RETURN NEW;
END $$;
CREATE TRIGGER decisions_insert INSTEAD OF INSERT ON decisions
    FOR EACH ROW EXECUTE FUNCTION decisions_insert();
-- A game's rows go with it (0024).
CREATE OR REPLACE FUNCTION games_delete_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM event_batches WHERE game_id IN (SELECT id FROM gone);
    DELETE FROM decision_batches WHERE game_id IN (SELECT id FROM gone);
    DELETE FROM orders WHERE game_id IN (SELECT id FROM gone);
    RETURN NULL;
END $$;
