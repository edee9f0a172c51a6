-- 0001_init.sql: the games, their seats (token hashes only), the pending and applied
-- decisions, and the append-only public event log.

CREATE TABLE games (
    id            text        PRIMARY KEY,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    status        text        NOT NULL CHECK (status IN ('open', 'playing', 'finished')),
    players       smallint    NOT NULL CHECK (players BETWEEN 2 AND 5),
    target_vp     smallint    NOT NULL,
    turn_seconds  integer     CHECK (turn_seconds IS NULL OR turn_seconds > 0),
    deadline      timestamptz,              -- when the current step is overdue (turn_seconds)
    host_hash     bytea       NOT NULL,     -- SHA-256 of the host token
    version       bigint      NOT NULL DEFAULT 0,
    steps_resolved integer    NOT NULL DEFAULT 0,
    ndecisions    integer     NOT NULL DEFAULT 0,     -- rows in decisions for this game
    last_seq      bigint      NOT NULL DEFAULT 0, -- sequence of the newest event
    state         jsonb       NOT NULL      -- the engine's whole state, secrets included
);
CREATE INDEX games_status_created ON games (status, created_at DESC);
CREATE INDEX games_deadline ON games (deadline) WHERE status = 'playing' AND deadline IS NOT NULL;

CREATE TABLE seats (
    game_id     text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat        smallint    NOT NULL,
    name        text,                       -- NULL while the seat is free
    bot         text,                       -- 'greedy' or 'random' for a bot seat
    token_hash  bytea,                      -- SHA-256 of the seat token; NULL for bots
    joined_at   timestamptz,
    PRIMARY KEY (game_id, seat)
);
CREATE UNIQUE INDEX seats_token_hash ON seats (token_hash) WHERE token_hash IS NOT NULL;

-- Every decision that took effect, in order: the replay log (secret until the game ends).
CREATE TABLE decisions (
    game_id     text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    n           integer     NOT NULL,
    seat        smallint    NOT NULL,
    round       smallint    NOT NULL,
    step        text        NOT NULL,
    body        jsonb       NOT NULL,       -- the order body, as a client sends it
    is_default  boolean     NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, n)
);

-- Orders as acknowledged (202), one row per seat and step, replaced by a later order.
CREATE TABLE orders (
    game_id     text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    round       smallint    NOT NULL,
    step        text        NOT NULL,
    seat        smallint    NOT NULL,
    body        jsonb       NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, round, step, seat)
);

-- The public log. seq is gapless per game: each write takes it from games.last_seq under
-- the game row's lock.
CREATE TABLE events (
    game_id     text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq         bigint      NOT NULL,
    type        text        NOT NULL,
    data        jsonb       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seq)
);
