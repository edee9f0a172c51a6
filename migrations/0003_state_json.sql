-- 0003_state_json.sql: store a game's state as json (its text, checked to be JSON) rather
-- than jsonb. The service only ever writes the whole state and reads it back whole, so jsonb's
-- binary form bought nothing and cost a conversion each way on every order (json_lex and
-- jsonb output in perf, make bench). Queries that look inside (->>) work on json alike.
ALTER TABLE games ALTER COLUMN state TYPE json USING state::json;
