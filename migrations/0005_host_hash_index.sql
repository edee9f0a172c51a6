-- 0005_host_hash_index.sql: find a game by its host token's hash. A request that brings the
-- host token of another game is told so (403 wrong_game, as for another game's seat token)
-- rather than that the token is unknown (401); that lookup must not scan every game.
CREATE INDEX games_host_hash ON games (host_hash);
