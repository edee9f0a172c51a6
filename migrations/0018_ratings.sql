-- 0018_ratings.sql: rated games, players' ratings and every finished seat's place (issue 26).
-- A game may be created rated; when a rated game finishes, the transaction that finishes it
-- rates its players (OpenSkill, src/rating.c) and writes one rated_results row per seat, keyed
-- by (game, seat), so that no retry can rate a game twice. A player is an account or a bot kind
-- at a level ("bot:greedy", "bot:expert-easy"), with one rating per game kind. Existing games,
-- seats and accounts are untouched: every game is unrated, and seats finished before this
-- migration keep no place (NULL).
ALTER TABLE games ADD COLUMN rated boolean NOT NULL DEFAULT false;
-- A finished rated game's ratings as its public view shows them: [{seat, player, mu, sigma,
-- ordinal, change}]; NULL until then.
ALTER TABLE games ADD COLUMN ratings jsonb;

-- Where each seat of a finished game placed (1 = first; a shared place is shared) and its score
-- (the game's first ranking key), written by the transaction that finishes the game when any
-- seat is an account's or the game is rated; NULL otherwise.
ALTER TABLE seats ADD COLUMN place smallint;
ALTER TABLE seats ADD COLUMN score integer;
-- The best solo scores of a game: finished one-seat games played by accounts.
CREATE INDEX seats_solo_score ON seats (score DESC) WHERE account_id IS NOT NULL AND
    score IS NOT NULL;

CREATE TABLE ratings (
    game        text        NOT NULL,          -- the ruleset's id
    player      text        NOT NULL,          -- 'a:' || account id, or a bot's 'bot:greedy'
    account_id  bigint      REFERENCES accounts (id) ON DELETE CASCADE,
    mu          double precision NOT NULL,
    sigma       double precision NOT NULL,
    ordinal     double precision GENERATED ALWAYS AS (mu - 3 * sigma) STORED,
    games       integer     NOT NULL DEFAULT 0, -- rated games finished
    wins        integer     NOT NULL DEFAULT 0, -- ... in first place (shared or not)
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game, player),
    CHECK ((account_id IS NULL) = (player LIKE 'bot:%'))
);
-- The leaderboard's order, and its cursor's.
CREATE INDEX ratings_board ON ratings (game, ordinal DESC, player DESC);
CREATE INDEX ratings_account ON ratings (account_id) WHERE account_id IS NOT NULL;

CREATE TABLE rated_results (
    game_id      text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat         smallint    NOT NULL,
    game         text        NOT NULL,
    player       text        NOT NULL,
    account_id   bigint      REFERENCES accounts (id) ON DELETE SET NULL,
    place        smallint    NOT NULL,
    mu_before    double precision NOT NULL,
    sigma_before double precision NOT NULL,
    mu           double precision NOT NULL,
    sigma        double precision NOT NULL,
    finished_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seat)
);
-- A bot's profile lists its recent rated games.
CREATE INDEX rated_results_player ON rated_results (player, finished_at DESC);

-- The sweeper deletes expired sessions in batches (before, only the account's next sign-in did).
CREATE INDEX sessions_expiry ON sessions (expires_at);
