-- 0002_state_inline.sql: keep a game's state inline and uncompressed. A state is about 1-3 kB
-- of jsonb; with the default toast_tuple_target (~2 kB) every write of a game row compressed
-- it with pglz, which was the largest single cost of an order (perf, make bench). A row of up
-- to a page now stays as it is; a larger one is compressed with lz4, which is faster.
ALTER TABLE games SET (toast_tuple_target = 8160);
ALTER TABLE games ALTER COLUMN state SET COMPRESSION lz4;
-- Leave room in each page so that a game's update can stay on its page (a HOT update: no new
-- index entries); with the default of 100 about a quarter of the order writes were not HOT.
ALTER TABLE games SET (fillfactor = 50);
