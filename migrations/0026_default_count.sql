-- 0026_default_count.sql: games.ndefaults counts the decisions in a game's log that the rules
-- chose for a seat (defaults), so that a hand view looks for the seat's last default (its
-- "defaulted" notice) only in a game that has had one: most games never do, and the look-up was
-- a statement of its own on every hand view, the read before each order (issue 25). The save
-- writes it with the decisions; a decision that an instance of the release before inserts
-- during an upgrade (0025's trigger) counts as well.
ALTER TABLE games ADD COLUMN ndefaults integer NOT NULL DEFAULT 0;
UPDATE games g SET ndefaults = d.n
    FROM (SELECT game_id, count(*) AS n FROM decisions WHERE is_default GROUP BY game_id) d
    WHERE g.id = d.game_id;
CREATE OR REPLACE FUNCTION decisions_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO decision_batches (game_id, first_n, last_n, body)
    VALUES (NEW.game_id, NEW.n, NEW.n, jsonb_build_array(jsonb_build_object('seat', NEW.seat,
            'round', NEW.round, 'step', NEW.step, 'turn', coalesce(NEW.turn, 0), 'body', NEW.body,
            'is_default', coalesce(NEW.is_default, false))));
    IF NEW.is_default THEN
        UPDATE games SET ndefaults = ndefaults + 1 WHERE id = NEW.game_id;
    END IF;
    RETURN NEW;
END $$;
