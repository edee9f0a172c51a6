-- 0004_quotas_lifecycle.sql: open games that never fill expire, finished and expired games are
-- deleted after a retention, an order's amendments within one step are counted, and the lobby,
-- /metrics and the sweeper read indexes or maintained counters instead of scanning games.

-- A fourth status: an open game whose seats never filled within CITY_OPEN_TTL.
ALTER TABLE games DROP CONSTRAINT IF EXISTS games_status_check;
ALTER TABLE games ADD CONSTRAINT games_status_check
    CHECK (status IN ('open', 'playing', 'finished', 'expired'));

-- When a game finished or expired: the retention counts from here. Set once (by the trigger
-- below), so that, unlike updated_at, indexing it does not cost every order its HOT update.
ALTER TABLE games ADD COLUMN ended_at timestamptz;
UPDATE games SET ended_at = updated_at WHERE status IN ('finished', 'expired');

-- The amendments of the current step's orders: amend_step names the step ("round/step") the
-- counts are for; amend_counts[seat + 1] how many times that seat replaced its order in it.
ALTER TABLE games ADD COLUMN amend_step text NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN amend_counts smallint[] NOT NULL DEFAULT '{}';

-- The lobby: open games newest first, then started or finished ones newest first; expiry reads
-- the oldest open games. Retention reads the oldest ended games.
CREATE INDEX games_open_created ON games (created_at) WHERE status = 'open';
CREATE INDEX games_listed_created ON games (created_at) WHERE status IN ('playing', 'finished');
CREATE INDEX games_ended ON games (ended_at) WHERE ended_at IS NOT NULL;
-- Replaced by the partial indexes above (and games_deadline for the sweeper).
DROP INDEX IF EXISTS games_status_created;

-- Games by status for /metrics, maintained by a trigger in the same transaction as every
-- insert, status change and delete. Spread over 16 slots per status so that concurrent
-- creations rarely wait for one another's counter row; /metrics sums at most 64 rows.
CREATE TABLE game_counts (
    status  text     NOT NULL,
    slot    smallint NOT NULL,
    n       bigint   NOT NULL DEFAULT 0,
    PRIMARY KEY (status, slot)
);
INSERT INTO game_counts (status, slot, n)
SELECT s, k, 0 FROM unnest(ARRAY['open', 'playing', 'finished', 'expired']) AS s,
                    generate_series(0, 15) AS k;
UPDATE game_counts c SET n = g.n
FROM (SELECT status, count(*) AS n FROM games GROUP BY status) g
WHERE c.status = g.status AND c.slot = 0;

CREATE FUNCTION games_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    k smallint := floor(random() * 16)::smallint;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE game_counts SET n = n - 1 WHERE status = OLD.status AND slot = k;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE game_counts SET n = n + 1 WHERE status = NEW.status AND slot = k;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER games_count_insert AFTER INSERT ON games
    FOR EACH ROW EXECUTE FUNCTION games_count();
CREATE TRIGGER games_count_update AFTER UPDATE OF status ON games
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION games_count();
CREATE TRIGGER games_count_delete AFTER DELETE ON games
    FOR EACH ROW EXECUTE FUNCTION games_count();

-- ended_at follows status, whichever statement changes it.
CREATE FUNCTION games_ended_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IN ('finished', 'expired') THEN
        NEW.ended_at := coalesce(NEW.ended_at, now());
    ELSE
        NEW.ended_at := NULL;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER games_ended_at_insert BEFORE INSERT ON games
    FOR EACH ROW EXECUTE FUNCTION games_ended_at();
CREATE TRIGGER games_ended_at_update BEFORE UPDATE OF status ON games
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION games_ended_at();
