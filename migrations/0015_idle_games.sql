-- 0015_idle_games.sql: started games that nobody plays end. A playing game in which no order or
-- decision was made for CITY_IDLE_GAME_SECONDS is ended by the sweeper with a sixth status,
-- 'abandoned': it keeps its rows like a finished game (ended_at set, deleted after the
-- retention) and is counted for /metrics. Every existing game keeps its status.
ALTER TABLE games DROP CONSTRAINT IF EXISTS games_status_check;
ALTER TABLE games ADD CONSTRAINT games_status_check
    CHECK (status IN ('open', 'playing', 'finished', 'expired', 'cancelled', 'abandoned'));
INSERT INTO game_counts (status, slot, n)
SELECT 'abandoned', k, 0 FROM generate_series(0, 15) AS k ON CONFLICT DO NOTHING;

CREATE OR REPLACE FUNCTION games_ended_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IN ('finished', 'expired', 'cancelled', 'abandoned') THEN
        NEW.ended_at := coalesce(NEW.ended_at, now());
    ELSE
        NEW.ended_at := NULL;
    END IF;
    RETURN NEW;
END $$;

-- The sweeper's idle round reads the playing games created before the idle limit, oldest
-- first, and keeps those not updated since (a game idle for the limit was created before it).
-- created_at never changes, so, unlike an index on updated_at, this one costs an order no HOT
-- update.
CREATE INDEX games_playing_created ON games (created_at) WHERE status = 'playing';
