-- 0022_chat_keys.sql: a chat message may carry the key its writer chose (POST .../chat's
-- "key"), so that a message sent again after an answer that never came (a lost connection, a
-- 503 outcome_unknown during a failover) is stored once: the key is unique per writer in a
-- game. The writer is named in its own column ("account:ID" for an account's session, else
-- "seat:N"), not read from seat and account_id: deleting an account sets its messages'
-- account_id to NULL, which must not make two writers' keys collide.
ALTER TABLE chat_messages ADD COLUMN client_key text, ADD COLUMN writer text;
CREATE UNIQUE INDEX chat_messages_key ON chat_messages (game_id, writer, client_key)
    WHERE client_key IS NOT NULL;
