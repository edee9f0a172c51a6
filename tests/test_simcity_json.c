/* test_simcity_json.c: SimCity through the ruleset seam (sc_ruleset.c), before it is in the
 * server's registry: order bodies of every step read and written back, malformed ones refused
 * with their problem codes, stored states loading back and playing on the same, broken states
 * refused, views that show no hand but the seat's own and no deck order, every pending option
 * accepted, games through the table whose events are all declared and whose record replays to
 * the same state, determinize keeping what a seat knows, and simulate's report. */
#include <stdio.h>
#include <string.h>
#include "sc_helpers.h"

#include "ruleset.h"

extern const struct ruleset ruleset_simcity;
static const struct ruleset *rs = &ruleset_simcity;

static void load_both(void)
{
    load_sc();
    char path[4096], err[512] = "";
    const char *root = getenv("CITY_ROOT");
    snprintf(path, sizeof path, "%s/cards/simcity.json", root && *root ? root : ".");
    cr_assert(rs->load_cards(path, err, (int)sizeof err), "%s", err);
}

TestSuite(simcity_json, .init = load_both, .timeout = 240);

/* Reads `text` as an order; returns the problem code (NULL when it parses). */
/* The sentence of the last refusal code_of() met. */
static char last_err[256];

static const char *code_of(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    cr_assert_not_null(j, "bad test JSON: %s", text);
    struct rs_pos pos;
    struct sc_decision d;
    char err[256] = "";
    const char *code = rs->order_from_json(j, &pos, &d, err, sizeof err);
    if (code)
        cr_assert(strlen(err) > 10, "no sentence for %s", text);
    snprintf(last_err, sizeof last_err, "%s", err);
    json_decref(j);
    return code;
}

static void round_trip(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    struct rs_pos pos, pos2;
    struct sc_decision d, d2;
    char err[256] = "";
    cr_assert_null(rs->order_from_json(j, &pos, &d, err, sizeof err), "%s: %s", text, err);
    json_t *back = rs->order_to_json(&pos, &d);
    char *s = json_dumps(back, JSON_SORT_KEYS);
    cr_assert(json_equal(j, back), "%s came back as %s", text, s);
    free(s);
    cr_assert_null(rs->order_from_json(back, &pos2, &d2, err, sizeof err));
    cr_assert_eq(memcmp(&d, &d2, sizeof d), 0);
    json_decref(j);
    json_decref(back);
}

Test(simcity_json, every_steps_order_round_trips)
{
    round_trip("{\"round\":1,\"step\":\"play\",\"turn\":1,\"pass\":true}");
    round_trip("{\"round\":1,\"step\":\"play\",\"turn\":3,\"card\":12,\"x\":6,\"y\":5}");
    round_trip("{\"round\":4,\"step\":\"play\",\"turn\":30,\"card\":55}");
    round_trip("{\"round\":4,\"step\":\"council\",\"turn\":31,\"card\":57}");
    round_trip("{\"round\":4,\"step\":\"council\",\"turn\":31,\"pass\":true}");
    round_trip("{\"round\":5,\"step\":\"target\",\"turn\":40,\"x\":0,\"y\":11}");
    round_trip("{\"round\":5,\"step\":\"vote\",\"turn\":41,\"ballots\":[\"yes\",\"withhold\","
               "\"no\"]}");
    round_trip("{\"round\":5,\"step\":\"vote\",\"turn\":42,\"mayor\":\"no\",\"tie\":\"none\"}");
    round_trip("{\"round\":5,\"step\":\"mayor_pay\",\"turn\":43,\"vacate\":true}");
    round_trip("{\"round\":5,\"step\":\"election\",\"turn\":44,\"votes\":3,\"candidate\":2}");
    round_trip("{\"round\":5,\"step\":\"election\",\"turn\":44,\"pass\":true}");
    round_trip("{\"round\":9,\"step\":\"draw\",\"turn\":80,\"from\":\"discard\"}");
    round_trip("{\"round\":9,\"step\":\"discard\",\"turn\":81,\"card\":4}");
}

Test(simcity_json, malformed_orders_are_refused_with_their_codes)
{
    cr_expect_str_eq(code_of("[1]"), "not_an_object");
    cr_expect_str_eq(code_of("{\"step\":\"play\",\"turn\":1,\"pass\":true}"), "missing_field");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"dance\",\"turn\":1}"), "bad_value");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"over\",\"turn\":1}"), "bad_value");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"play\",\"turn\":1,\"card\":\"x\","
                             "\"x\":1,\"y\":1}"),
                     "wrong_type");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"play\",\"turn\":1,\"card\":3,\"x\":1}"),
                     "conflicting_fields");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"play\",\"turn\":1,\"card\":3,\"x\":14,"
                             "\"y\":1}"),
                     "bad_value");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"play\",\"turn\":1,\"pass\":true,"
                             "\"card\":3}"),
                     "conflicting_fields");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"play\",\"turn\":1,\"vacate\":true}"),
                     "wrong_kind");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"play\",\"turn\":1,\"colour\":1}"),
                     "unknown_field");
    cr_expect(strstr(last_err, "which takes round, step, turn and pass, card, x or y"),
              "an unknown field's sentence lists the play's fields: %s", last_err);
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"vote\",\"turn\":1,\"ballots\":[\"maybe\"]}"),
                     "bad_value");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"vote\",\"turn\":1,\"ballots\":[],"
                             "\"mayor\":\"yes\"}"),
                     "conflicting_fields");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"election\",\"turn\":1,\"votes\":0,"
                             "\"candidate\":1}"),
                     "bad_value");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"mayor_pay\",\"turn\":1}"), "missing_field");
    cr_expect_str_eq(code_of("{\"round\":1,\"step\":\"draw\",\"turn\":1,\"from\":\"hat\"}"),
                     "bad_value");
}

/* Plays a game through the table with `bot` at every seat; after each point calls check(g). */
static void play(void *g, int players, uint64_t seed, const char *bot,
                 void (*check)(const void *g, uint64_t seed), const struct rs_sink *sink,
                 json_t *replay)
{
    cr_assert(rs->new_game(g, players, seed, NULL));
    json_t *decisions = replay ? json_object_get(replay, "decisions") : NULL;
    for (int points = 0; !rs->over(g); points++) {
        cr_assert_lt(points, 20000);
        for (int s = 0; s < players; s++) {
            if (!rs->pending(g, s))
                continue;
            struct sc_decision d;
            cr_assert(rs->bot_decide(g, s, bot, &d));
            cr_assert_eq(rs->submit(g, s, &d), 0);
        }
        if (decisions) {
            struct rs_pos pos;
            rs->where(g, &pos);
            for (int s = 0; s < players; s++)
                if (rs->pending(g, s)) {
                    json_t *o = rs->order_to_json(&pos, rs->decision(g, s));
                    json_object_set_new(o, "seat", json_integer(s));
                    json_array_append_new(decisions, o);
                }
        }
        cr_assert(rs->resolve(g, sink));
        if (check)
            check(g, seed);
    }
}

static void state_round_trips(const void *g, uint64_t seed)
{
    static struct sc_game h;
    json_t *j = rs->to_json(g);
    char err[256] = "";
    cr_assert(rs->from_json(&h, j, err, sizeof err), "seed %llu: %s", (unsigned long long)seed,
              err);
    json_t *again = rs->to_json(&h);
    cr_assert(json_equal(j, again), "seed %llu: the state came back different",
              (unsigned long long)seed);
    json_decref(again);
    json_decref(j);
}

Test(simcity_json, a_stored_state_loads_back_the_same_at_every_point)
{
    static struct sc_game g;
    for (int p = 1; p <= SC_MAX_PLAYERS; p++)
        play(&g, p, 100 + (uint64_t)p, p % 2 ? "random" : "greedy", state_round_trips, NULL, NULL);
}

Test(simcity_json, a_loaded_state_plays_on_exactly_as_the_game_does)
{
    static struct sc_game g, h;
    for (int p = 2; p <= SC_MAX_PLAYERS; p++) {
        cr_assert(rs->new_game(&g, p, 7 + (uint64_t)p, NULL));
        for (int k = 0; k < 60 && !rs->over(&g); k++) {
            for (int s = 0; s < p; s++) {
                struct sc_decision d;
                if (rs->pending(&g, s) && rs->bot_decide(&g, s, "greedy", &d))
                    rs->submit(&g, s, &d);
            }
            rs->resolve(&g, NULL);
        }
        json_t *j = rs->to_json(&g);
        char err[256];
        cr_assert(rs->from_json(&h, j, err, sizeof err), "%s", err);
        json_decref(j);
        for (struct sc_game *x = &g; x; x = x == &g ? &h : NULL)
            while (!rs->over(x)) {
                for (int s = 0; s < p; s++) {
                    struct sc_decision d;
                    if (rs->pending(x, s) && rs->bot_decide(x, s, "greedy", &d))
                        cr_assert_eq(rs->submit(x, s, &d), 0);
                }
                cr_assert(rs->resolve(x, NULL));
            }
        json_t *a = rs->to_json(&g), *b = rs->to_json(&h);
        cr_assert(json_equal(a, b), "%d players: the loaded copy ended differently", p);
        json_decref(a);
        json_decref(b);
    }
}

/* Loads a mutated copy of a stored state, expecting a refusal that mentions `says`. */
static void refused(json_t *state, const char *says)
{
    static struct sc_game h;
    char err[256] = "";
    cr_expect(!rs->from_json(&h, state, err, sizeof err), "accepted a broken state (%s)", says);
    cr_expect(strstr(err, says) != NULL, "\"%s\" does not mention \"%s\"", err, says);
    json_decref(state);
}

Test(simcity_json, a_broken_state_is_refused_with_a_sentence)
{
    static struct sc_game g;
    cr_assert(rs->new_game(&g, 3, 5, NULL));
    for (int k = 0; k < 80 && !rs->over(&g); k++) {
        for (int s = 0; s < 3; s++) {
            struct sc_decision d;
            if (rs->pending(&g, s) && rs->bot_decide(&g, s, "greedy", &d))
                rs->submit(&g, s, &d);
        }
        rs->resolve(&g, NULL);
    }
    json_t *good = rs->to_json(&g);
    json_t *j = json_deep_copy(good);
    json_object_set_new(j, "format", json_integer(2));
    refused(j, "format");
    j = json_deep_copy(good);
    json_t *seat = json_array_get(json_object_get(j, "seats"), 0);
    json_object_set_new(seat, "money", json_integer(-1));
    refused(j, "money");
    j = json_deep_copy(good);
    json_array_append_new(json_object_get(j, "deck"), json_integer(g.deck[0]));
    refused(j, "cards");
    j = json_deep_copy(good);
    json_object_set_new(j, "pending", json_integer(7));
    refused(j, "step");
    j = json_deep_copy(good);
    json_object_set_new(j, "step", json_string("nap"));
    refused(j, "step");
    j = json_deep_copy(good);
    json_object_set_new(j, "players", json_integer(9));
    refused(j, "players");
    json_decref(good);
}

static void views_hold(const void *vg, uint64_t seed)
{
    const struct sc_game *g = vg;
    (void)seed;
    json_t *pub = rs->public_view(g);
    cr_assert_null(json_object_get(pub, "hand"));
    cr_assert_null(json_object_get(pub, "deck"));
    cr_assert(sc_over(g) == (json_object_get(pub, "seed") != NULL),
              "the seed shows only at the end");
    json_decref(pub);
    for (int s = 0; s < g->players; s++) {
        json_t *v = rs->private_view(g, s);
        json_t *hand = json_object_get(v, "hand");
        cr_assert_eq((int)json_array_size(hand), g->seats[s].nhand);
        for (size_t i = 0; i < json_array_size(hand); i++)
            cr_assert(sc_in_hand(
                g, s, (int)json_integer_value(json_object_get(json_array_get(hand, i), "id"))));
        json_t *pending = json_object_get(v, "pending");
        cr_assert_eq(!json_is_null(pending), sc_pending(g, s));
        json_t *options = json_object_get(pending, "options");
        for (size_t i = 0; pending && !json_is_null(pending) && i < json_array_size(options); i++) {
            json_t *o = json_deep_copy(json_array_get(options, i));
            json_object_del(o, "mode");
            json_object_del(o, "score");
            json_object_update_new(o, json_pack("{s:i, s:s, s:i}", "round", g->round, "step",
                                                sc_step_name(g->step), "turn", g->turn));
            struct rs_pos pos;
            struct sc_decision d;
            char err[200];
            cr_assert_null(rs->order_from_json(o, &pos, &d, err, sizeof err), "%s", err);
            cr_assert_eq(sc_check(g, s, &d), SC_OK, "option %zu refused at %s", i,
                         sc_step_name(g->step));
            json_decref(o);
        }
        json_decref(v);
    }
    cr_assert_null(rs->private_view(g, g->players));
}

Test(simcity_json, views_show_only_the_seats_own_hand_and_every_option_is_accepted)
{
    static struct sc_game g;
    for (int p = 1; p <= 4; p++)
        play(&g, p, 300 + (uint64_t)p, "greedy", views_hold, NULL, NULL);
}

struct seen {
    int n;
    const struct ruleset *rs;
};

static void count_event(void *ctx, const char *type, json_t *data)
{
    struct seen *s = ctx;
    bool declared = false;
    for (int i = 0; s->rs->events[i]; i++)
        declared = declared || strcmp(s->rs->events[i], type) == 0;
    cr_assert(declared, "event \"%s\" is not declared", type);
    cr_assert_not_null(json_object_get(data, "round"));
    cr_assert_not_null(json_object_get(data, "step"));
    s->n++;
    json_decref(data);
}

Test(simcity_json, a_game_through_the_table_emits_declared_events_and_replays_the_same)
{
    static struct sc_game g, r;
    for (int p = 2; p <= SC_MAX_PLAYERS; p += 2) {
        struct seen seen = {0, rs};
        struct rs_sink sink = {count_event, &seen};
        json_t *replay = json_pack("{s:o, s:i, s:[]}", "seed", ruleset_u64_json(900 + (uint64_t)p),
                                   "players", p, "decisions");
        play(&g, p, 900 + (uint64_t)p, "greedy", NULL, &sink, replay);
        cr_expect_gt(seen.n, 200);
        char err[256] = "";
        cr_assert(rs->replay_run(replay, &r, err, sizeof err), "%s", err);
        json_t *a = rs->to_json(&g), *b = rs->to_json(&r);
        cr_assert(json_equal(a, b), "%d players: the replay ended differently", p);
        json_decref(a);
        json_decref(b);
        json_decref(replay);
    }
}

Test(simcity_json, determinize_keeps_what_the_seat_knows)
{
    static struct sc_game g, h;
    cr_assert(rs->new_game(&g, 4, 11, NULL));
    for (int k = 0; k < 100 && !rs->over(&g); k++) {
        for (int s = 0; s < 4; s++) {
            struct sc_decision d;
            if (rs->pending(&g, s) && rs->bot_decide(&g, s, "greedy", &d))
                rs->submit(&g, s, &d);
        }
        rs->resolve(&g, NULL);
    }
    for (int seat = 0; seat < 4; seat++) {
        h = g;
        struct city_rng rng;
        rng_seed(&rng, (uint64_t)seat);
        rs->determinize(&h, seat, &rng);
        json_t *a = rs->private_view(&g, seat), *b = rs->private_view(&h, seat);
        cr_assert(json_equal(a, b), "seat %d's view changed", seat);
        json_decref(a);
        json_decref(b);
        cr_assert(sc_check_conservation(&h));
        bool moved = false;
        for (int s = 0; s < 4 && !moved; s++)
            moved = s != seat && memcmp(h.seats[s].hand, g.seats[s].hand, g.seats[s].nhand) != 0;
        cr_expect(moved, "the other hands were not dealt anew");
    }
}

Test(simcity_json, the_descriptor_fits_the_seam_and_simulate_reports)
{
    cr_expect_leq(rs->state_size, RS_MAX_STATE);
    cr_expect_leq(rs->decision_size, 4096);
    static struct sc_game g;
    for (int p = 1; p <= SC_MAX_PLAYERS; p++) {
        cr_assert(rs->new_game(&g, p, 1, NULL));
        cr_expect_eq(rs->option(&g, 0), ruleset_option_range(rs, 0, p)->def);
        cr_expect_eq(rs->option(&g, 0), sc_default_target(p));
    }
    char err[256] = "";
    json_t *r = rs->simulate(3, 10, 1, "greedy", err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    static const char *const keys[] = {"games",       "wins_by_seat",     "avg_rounds",
                                       "end_reasons", "turns_per_player", "phase_reached",
                                       "per_design",  "politics",         NULL};
    for (int i = 0; keys[i]; i++)
        cr_expect_not_null(json_object_get(r, keys[i]), "no \"%s\"", keys[i]);
    cr_expect_eq(json_integer_value(json_object_get(r, "games")), 10);
    json_decref(r);
    cr_expect_null(rs->simulate(3, 10, 1, "expert,greedy", err, sizeof err));
}

Test(simcity_json, the_expert_decides_legally_through_the_table)
{
    static struct sc_game g;
    cr_assert(rs->new_game(&g, 2, 21, NULL));
    int asked = 0;
    for (int k = 0; k < 200 && !rs->over(&g); k++) {
        for (int s = 0; s < 2; s++) {
            struct sc_decision d;
            if (!rs->pending(&g, s))
                continue;
            bool expert = s == 0 && k % 20 == 0 && asked < 6;
            asked += expert;
            cr_assert(rs->bot_decide(&g, s, expert ? "expert" : "greedy", &d));
            cr_assert_eq(rs->submit(&g, s, &d), 0, "the %s decision was refused",
                         expert ? "expert's" : "greedy");
        }
        cr_assert(rs->resolve(&g, NULL));
    }
    cr_expect_gt(asked, 0);
}
