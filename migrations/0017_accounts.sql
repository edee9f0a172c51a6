-- 0017_accounts.sql: optional accounts (issue 26). An account is a name and an argon2id password
-- hash (libsodium's crypto_pwhash_str string, which holds its own salt and costs); its sessions
-- are bearer tokens stored only as SHA-256 hashes, each with an expiry. A seat an account took
-- names it (seats.account_id): the account's session token acts for that seat on any device.
-- Existing games and seats are untouched: every seat of theirs keeps account_id NULL and is
-- played with its seat token as before.
CREATE TABLE accounts (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text        NOT NULL,          -- as shown: name_clean()'s NFC form
    name_key    text        NOT NULL,          -- name_key(): case-folded NFKC, for uniqueness
    pw_hash     text        NOT NULL,          -- crypto_pwhash_str(): "$argon2id$v=19$m=..."
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_name_key ON accounts (name_key);

CREATE TABLE sessions (
    token_hash  bytea       PRIMARY KEY,       -- SHA-256 of the session token
    account_id  bigint      NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);

-- The account that sits in a seat; NULL for anonymous players and bots, and once the account is
-- deleted (its seats keep their games under the name "deleted player").
ALTER TABLE seats ADD COLUMN account_id bigint REFERENCES accounts (id) ON DELETE SET NULL;
CREATE INDEX seats_account ON seats (account_id) WHERE account_id IS NOT NULL;
