-- 0021_time_bank.sql: a time bank per seat (BGA's "real-time"), docs/rules.md "Timers and
-- defaults". time_bank_seconds is the bank each seat starts with (NULL or 0: none); banks[s]
-- is what seat s has left, charged when it decides after its step's own time; step_ends is
-- when the current step's own time ends. deadline stays the moment the step is forced: its
-- own time plus the largest bank among the seats still deciding (the sweeper reads only it).
ALTER TABLE games ADD COLUMN time_bank_seconds integer, ADD COLUMN banks integer[],
    ADD COLUMN step_ends timestamptz;
-- Games already on a clock have no bank: their step's own time is their deadline.
UPDATE games SET step_ends = deadline WHERE deadline IS NOT NULL;
