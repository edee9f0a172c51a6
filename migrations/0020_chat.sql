-- 0020_chat.sql: table talk (issue 27, item 10). Each message belongs to a game and one of two
-- channels: "players" (written by a seat: its seat token or its account's session; read by
-- everyone who may see the table) and "watchers" (written by signed-in accounts without a seat;
-- hidden from the seats until the game ends, so that nobody at the table gets help from the
-- rail). The text is stored exactly as typed (the page shows it as text, never as markup).
-- Messages go with their game (ON DELETE CASCADE: the retention that deletes a game deletes
-- its talk). A message's id is its cursor: GET .../chat?after=ID reads the ones after it.
CREATE TABLE chat_messages (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id     text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    channel     text        NOT NULL CHECK (channel IN ('players', 'watchers')),
    seat        int,                              -- players' channel: the writing seat
    account_id  bigint      REFERENCES accounts (id) ON DELETE SET NULL,
    name        text        NOT NULL,             -- the writer's name as shown then
    body        text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_messages_game ON chat_messages (game_id, id);

-- Reports of messages for the operator (`cityd reports` lists them): one per message and
-- reporter (a seat "seat:N", an account "account:ID" or an address "address:A"); a report
-- stays until the operator deletes it (`cityd reports --clear ID`) or its game goes.
CREATE TABLE chat_reports (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id  bigint      NOT NULL REFERENCES chat_messages (id) ON DELETE CASCADE,
    reporter    text        NOT NULL,
    reason      text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (message_id, reporter)
);
