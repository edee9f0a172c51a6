-- 0022_chat_keys.sql: a chat message may carry the key its writer chose (POST .../chat's
-- "key"), so that a message sent again after an answer that never came (a lost connection, a
-- 503 outcome_unknown during a failover) is stored once: the key is unique per writer (the
-- seat, or the account) in a game.
ALTER TABLE chat_messages ADD COLUMN client_key text;
CREATE UNIQUE INDEX chat_messages_key ON chat_messages
    (game_id, (coalesce(seat, -1)), (coalesce(account_id, 0)), client_key)
    WHERE client_key IS NOT NULL;
