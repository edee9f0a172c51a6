-- 0013_turn_column.sql: an order's and a decision's decision point is (round, step, turn), each
-- in its own column. Until now a ruleset whose step names repeat within a round (Tech City)
-- had its turn squeezed into the step name ("effect#17"); those rows are split here. The City's
-- turn is always 0.
ALTER TABLE orders ADD COLUMN turn integer NOT NULL DEFAULT 0;
UPDATE orders SET turn = split_part(step, '#', 2)::int, step = split_part(step, '#', 1)
    WHERE step LIKE '%#%';
ALTER TABLE orders DROP CONSTRAINT orders_pkey;
ALTER TABLE orders ADD PRIMARY KEY (game_id, round, step, turn, seat);
ALTER TABLE decisions ADD COLUMN turn integer NOT NULL DEFAULT 0;
UPDATE decisions SET turn = split_part(step, '#', 2)::int, step = split_part(step, '#', 1)
    WHERE step LIKE '%#%';
