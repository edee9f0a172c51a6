-- 0012_options.sql: every game's creation options, stored generically as {name: value} (the
-- ruleset declares them: src/engine/ruleset.h, struct rs_option), for the lobby and for a
-- game added later with options of its own. target_vp stays, for the lobby's older field.
-- Games from before: The City's target, and Tech City's decks as its state has them (or, from
-- before decks were an option, the default: two at 5-6 players).
ALTER TABLE games ADD COLUMN options jsonb NOT NULL DEFAULT '{}'::jsonb;
UPDATE games SET options = jsonb_build_object('target_vp', target_vp) WHERE game = 'the_city';
UPDATE games SET options = jsonb_build_object('decks', coalesce((state->>'decks')::int,
    CASE WHEN players >= 5 THEN 2 ELSE 1 END)) WHERE game = 'tech_city';
