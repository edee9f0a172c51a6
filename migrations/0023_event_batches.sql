-- 0023_event_batches.sql: the public log keeps the events of one save in one row, a batch of
-- consecutive sequence numbers, rather than a row per event: a resolved step logs about a dozen
-- events, and a row each (with its index entry and its foreign-key check of the game) was most
-- of what a step wrote (issue 25). body is the batch as the save sent it, an array of
-- {"type", "data"} in order: its k-th element (from 1) is event first_seq + k - 1. Batches of a
-- game are disjoint, so last_seq identifies one, and the key on it is what a reader of the
-- events after seq N walks: the batches whose last_seq > N, in order.
CREATE TABLE event_batches (
    game_id     text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    first_seq   bigint      NOT NULL,
    last_seq    bigint      NOT NULL CHECK (last_seq >= first_seq),
    body        jsonb       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, last_seq)
);
INSERT INTO event_batches (game_id, first_seq, last_seq, body, created_at)
    SELECT game_id, seq, seq, jsonb_build_array(jsonb_build_object('type', type, 'data', data)),
           created_at
    FROM events;
DROP TABLE events;
-- The log one event a row, as the events table had it, for reading by hand and by the tests
-- (the service reads event_batches, whose key bounds what it reads). An instance of the release
-- before, still running while the instances are replaced one at a time (README, "Upgrading"),
-- reads it as its table, and writes it (a save's or a sweep's events, a deleted account's
-- name): the triggers below make each event it inserts a batch of one and put its changes into
-- the batch that holds the event.
CREATE VIEW events AS
    SELECT b.game_id, b.first_seq + e.n - 1 AS seq, e.v->>'type' AS type,
           coalesce(e.v->'data', '{}'::jsonb) AS data, b.created_at
    FROM event_batches b, jsonb_array_elements(b.body) WITH ORDINALITY AS e(v, n);
CREATE FUNCTION events_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_batches (game_id, first_seq, last_seq, body)
    VALUES (NEW.game_id, NEW.seq, NEW.seq, jsonb_build_array(jsonb_build_object('type', NEW.type,
            'data', coalesce(NEW.data, '{}'::jsonb))));
    RETURN NEW;
END $$;
CREATE TRIGGER events_insert INSTEAD OF INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION events_insert();
CREATE FUNCTION events_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE event_batches SET body = jsonb_set(body, ARRAY[(OLD.seq - first_seq)::text],
        jsonb_build_object('type', NEW.type, 'data', NEW.data))
    WHERE game_id = OLD.game_id AND last_seq >= OLD.seq AND first_seq <= OLD.seq;
    RETURN NEW;
END $$;
CREATE TRIGGER events_update INSTEAD OF UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION events_update();
