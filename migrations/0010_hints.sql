-- 0010_hints.sql: hints. A seat may ask for the expert's suggestion for its pending decision
-- (POST /games/{id}/hint) a limited number of times per game (CITY_HINTS_PER_GAME), so that the
-- expert is a coach now and then and not a free opponent for every move.
ALTER TABLE seats ADD COLUMN hints_used smallint NOT NULL DEFAULT 0;
