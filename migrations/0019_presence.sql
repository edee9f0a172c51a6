-- 0019_presence.sql: whether a person is at the table. seats.last_seen is when the seat last
-- showed a live connection (its event stream, a hand view or an order), written at most every
-- few seconds per seat while it is connected, by whichever instance serves it; the public view
-- calls a seat "online" while last_seen is recent, "away" otherwise. NULL: never seen.
ALTER TABLE seats ADD COLUMN last_seen timestamptz;

-- A seat handed to a bot while its person was away can be taken back by that person: the
-- takeover keeps the seat's token hash and account here (the token no longer plays), and
-- POST /games/{id}/reclaim with that token (or the account's session) restores them.
ALTER TABLE seats ADD COLUMN reclaim_hash bytea, ADD COLUMN reclaim_account bigint;
