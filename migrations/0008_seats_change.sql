-- 0008_seats_change.sql: seats that change hands after the start, and cancelled games.
-- A player may leave a running game and the host may hand an absent seat to a bot; each such
-- change bumps games.seats_version, which instances compare with the version of the seats they
-- keep in memory (a started game's seats used to be cached as if they never changed).
ALTER TABLE games ADD COLUMN seats_version integer NOT NULL DEFAULT 0;

-- A fifth status: an open game its host cancelled. It ends like an expired game (ended_at set,
-- deleted after the retention) and is counted for /metrics.
ALTER TABLE games DROP CONSTRAINT IF EXISTS games_status_check;
ALTER TABLE games ADD CONSTRAINT games_status_check
    CHECK (status IN ('open', 'playing', 'finished', 'expired', 'cancelled'));
INSERT INTO game_counts (status, slot, n)
SELECT 'cancelled', k, 0 FROM generate_series(0, 15) AS k ON CONFLICT DO NOTHING;

CREATE OR REPLACE FUNCTION games_ended_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IN ('finished', 'expired', 'cancelled') THEN
        NEW.ended_at := coalesce(NEW.ended_at, now());
    ELSE
        NEW.ended_at := NULL;
    END IF;
    RETURN NEW;
END $$;
