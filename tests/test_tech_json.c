/* test_tech_json.c: Tech City's JSON faces: order bodies of every step read and written back,
 * each malformed body refused with its problem code, the views' shapes, and stored states that
 * do not load refused with a sentence. */
#include <stdio.h>
#include <string.h>
#include "tech_helpers.h"

TestSuite(tech_json, .init = load_tech);

static const struct ruleset *rs = &ruleset_tech_city;

/* Reads `text` as an order; returns the problem code (NULL when it parses). */
/* The sentence of the last refusal code_of() met. */
static char last_err[256];

static const char *code_of(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    cr_assert_not_null(j, "bad test JSON: %s", text);
    struct rs_pos pos;
    struct tech_decision d;
    char err[256] = "";
    const char *code = rs->order_from_json(j, &pos, &d, err, sizeof err);
    if (code)
        cr_assert(strlen(err) > 10, "no sentence for %s", text);
    snprintf(last_err, sizeof last_err, "%s", err);
    json_decref(j);
    return code;
}

/* Parses text, writes it back and parses again: both decisions and bodies agree. */
static void round_trip(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    struct rs_pos pos, pos2;
    struct tech_decision d, d2;
    char err[256] = "";
    cr_assert_null(rs->order_from_json(j, &pos, &d, err, sizeof err), "%s: %s", text, err);
    json_t *back = rs->order_to_json(&pos, &d);
    cr_assert_not_null(back, "%s has no canonical body", text);
    cr_assert(json_equal(j, back), "%s came back as %s", text, json_dumps(back, JSON_SORT_KEYS));
    cr_assert_null(rs->order_from_json(back, &pos2, &d2, err, sizeof err));
    cr_assert_eq(memcmp(&d, &d2, sizeof d), 0);
    cr_assert(pos.round == pos2.round && pos.step == pos2.step && pos.turn == pos2.turn);
    json_decref(j);
    json_decref(back);
}

Test(tech_json, every_steps_order_round_trips)
{
    round_trip("{\"round\":1,\"step\":\"build\",\"turn\":1,\"pass\":true}");
    round_trip("{\"round\":2,\"step\":\"build\",\"turn\":9,\"card\":12,\"x\":-1,\"y\":0,"
               "\"pay\":[3,40]}");
    round_trip("{\"round\":2,\"step\":\"build\",\"turn\":9,\"card\":52,\"x\":0,\"y\":1,"
               "\"pay\":[],\"as\":{\"value\":3,\"domain\":\"service\"}}");
    round_trip("{\"round\":3,\"step\":\"help\",\"turn\":20,\"card\":7}");
    round_trip("{\"round\":3,\"step\":\"help\",\"turn\":20,\"pass\":true}");
    round_trip("{\"round\":3,\"step\":\"effect\",\"turn\":21,\"pass\":true}");
    round_trip("{\"round\":3,\"step\":\"effect\",\"turn\":21,\"use\":{\"x\":0,\"y\":0}}");
    round_trip("{\"round\":3,\"step\":\"effect\",\"turn\":21,\"use\":{\"x\":2,\"y\":-3},"
               "\"free\":true,\"card\":5,\"take\":6,\"target\":{\"x\":1,\"y\":1},"
               "\"to\":{\"x\":0,\"y\":1},\"victim\":2}");
    round_trip("{\"round\":4,\"step\":\"owner\",\"turn\":30,\"draw\":true}");
    round_trip("{\"round\":4,\"step\":\"owner\",\"turn\":30,\"draw\":false}");
    round_trip("{\"round\":4,\"step\":\"choose\",\"turn\":31,\"cards\":[4]}");
    round_trip("{\"round\":6,\"step\":\"discard\",\"turn\":80,\"cards\":[1,2,3]}");
}

Test(tech_json, malformed_orders_get_precise_problem_codes)
{
    cr_assert_str_eq(code_of("[1]"), "not_an_object");
    cr_assert_str_eq(code_of("{\"step\":\"build\",\"turn\":1,\"pass\":true}"), "missing_field");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"pass\":true}"), "missing_field");
    cr_assert_str_eq(code_of("{\"round\":1,\"turn\":1,\"pass\":true}"), "missing_field");
    cr_assert_str_eq(code_of("{\"round\":\"1\",\"step\":\"build\",\"turn\":1,\"pass\":true}"),
                     "wrong_type");
    cr_assert_str_eq(code_of("{\"round\":7,\"step\":\"build\",\"turn\":1,\"pass\":true}"),
                     "bad_value");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"keep\",\"turn\":1,\"pass\":true}"),
                     "bad_value");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"over\",\"turn\":1,\"pass\":true}"),
                     "bad_value");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"pass\":true,"
                             "\"card\":3}"),
                     "conflicting_fields");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"pass\":false}"),
                     "bad_value");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"colour\":1}"),
                     "unknown_field");
    cr_expect(strstr(last_err,
                     "which takes round, step, turn and pass, card, x, y, pay or as (and divulge"),
              "an unknown field's sentence lists the build's fields, divulge too: %s", last_err);
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"card\":3,\"x\":0,"
                             "\"y\":1}"),
                     "missing_field");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"card\":3,\"x\":0,"
                             "\"y\":1,\"pay\":[1,2,4]}"),
                     "too_many_cards");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"card\":300,\"x\":0,"
                             "\"y\":1,\"pay\":[]}"),
                     "bad_value");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"card\":3,\"x\":0.5,"
                             "\"y\":1,\"pay\":[]}"),
                     "wrong_type");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"card\":3,\"x\":500,"
                             "\"y\":1,\"pay\":[]}"),
                     "bad_value");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"card\":52,\"x\":0,"
                             "\"y\":1,\"pay\":[],\"as\":{\"value\":3,\"domain\":\"wild\"}}"),
                     "bad_value");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"build\",\"turn\":1,\"card\":52,\"x\":0,"
                             "\"y\":1,\"pay\":[],\"as\":{\"value\":3,\"color\":\"red\"}}"),
                     "unknown_field");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"effect\",\"turn\":1,\"free\":true}"),
                     "missing_field");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"effect\",\"turn\":1,\"use\":[0,0]}"),
                     "wrong_type");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"effect\",\"turn\":1,\"use\":{\"x\":0,"
                             "\"y\":0,\"z\":0}}"),
                     "unknown_field");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"effect\",\"turn\":1,\"use\":{\"x\":0,"
                             "\"y\":0},\"victim\":6}"),
                     "bad_value");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"owner\",\"turn\":1,\"draw\":1}"),
                     "wrong_type");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"owner\",\"turn\":1}"), "missing_field");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"choose\",\"turn\":1,\"cards\":4}"),
                     "wrong_type");
    cr_assert_str_eq(code_of("{\"round\":1,\"step\":\"discard\",\"turn\":1,\"cards\":[\"a\"]}"),
                     "wrong_type");
    cr_assert_null(code_of("{\"round\":1,\"step\":\"discard\",\"turn\":1,\"cards\":[]}"));
}

/* A field that answers another step (draw is the owner's) names the step the order is for:
 * 422 wrong_kind, as the contract says, not 400 unknown_field. */
Test(tech_json, a_field_of_another_steps_decision_is_wrong_kind_and_names_the_step)
{
    const char *cases[][2] = {
        {"{\"round\":1,\"step\":\"build\",\"turn\":1,\"draw\":true}", "owner"},
        {"{\"round\":1,\"step\":\"owner\",\"turn\":1,\"cards\":[1]}", "choose"},
        {"{\"round\":1,\"step\":\"discard\",\"turn\":1,\"pass\":true}", "build"},
        {"{\"round\":1,\"step\":\"help\",\"turn\":1,\"use\":{\"x\":0,\"y\":0}}", "effect"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *j = json_loads(cases[i][0], 0, NULL);
        struct rs_pos pos;
        struct tech_decision d;
        char err[300] = "";
        const char *code = rs->order_from_json(j, &pos, &d, err, sizeof err);
        json_decref(j);
        cr_assert_str_eq(code ? code : "(parsed)", "wrong_kind", "%s", cases[i][0]);
        cr_expect(strstr(err, cases[i][1]) != NULL, "\"%s\" names the step it belongs to", err);
        cr_expect(strstr(err, "pending") != NULL, "\"%s\" points at pending", err);
    }
}

Test(tech_json, the_public_view_carries_the_table_and_no_hand)
{
    static struct tech_game g;
    cr_assert(rs->new_game(&g, 3, 11, NULL));
    json_t *v = rs->public_view(&g);
    static const char *const keys[] = {"round",    "step",     "turn",       "players", "first",
                                       "active",   "pending",  "deck_count", "city",    "discard",
                                       "expelled", "revealed", "effect",     "seats",   "over",
                                       "winners",  NULL};
    for (int i = 0; keys[i]; i++)
        cr_assert_not_null(json_object_get(v, keys[i]), "no \"%s\"", keys[i]);
    cr_assert_null(json_object_get(v, "seed"));
    cr_assert_null(json_object_get(v, "hand"));
    json_t *cell = json_array_get(json_object_get(v, "city"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(cell, "card")), "delivery_services");
    cr_assert(json_is_null(json_object_get(cell, "owner")));
    cr_assert(json_is_true(json_object_get(cell, "seed")));
    cr_assert_eq(json_integer_value(json_object_get(v, "deck_count")), 54 - 1 - 18);
    json_t *seat = json_array_get(json_object_get(v, "seats"), 0);
    cr_assert_eq(json_integer_value(json_object_get(seat, "hand_count")), 6);
    json_decref(v);
}

Test(tech_json, the_private_view_shows_the_hand_options_and_a_suggestion)
{
    static struct tech_game g;
    cr_assert(rs->new_game(&g, 3, 11, NULL));
    int s = g.first;
    json_t *v = ruleset_private_view(rs, &g, s);
    cr_assert_eq(json_array_size(json_object_get(v, "hand")), 6);
    json_t *p = json_object_get(v, "pending");
    cr_assert(json_is_object(p));
    cr_assert_str_eq(json_string_value(json_object_get(p, "step")), "build");
    json_t *opts = json_object_get(p, "options");
    cr_assert_eq(json_array_size(json_object_get(opts, "cells")), 4);
    cr_assert_str_eq(json_string_value(json_object_get(opts, "payment")), "one_cheap_or_two");
    cr_assert_not_null(json_object_get(p, "suggestion"));
    json_decref(v);
    v = ruleset_private_view(rs, &g, (s + 1) % 3);
    cr_assert(json_is_null(json_object_get(v, "pending")));
    json_decref(v);
    cr_assert_null(ruleset_private_view(rs, &g, 3));
}

Test(tech_json, a_stored_state_that_breaks_the_rules_does_not_load)
{
    static struct tech_game g, back;
    cr_assert(rs->new_game(&g, 2, 5, NULL));
    char err[256];
    json_t *j = rs->to_json(&g);
    cr_assert(rs->from_json(&back, j, err, sizeof err), "%s", err);
    /* a card twice */
    json_t *bad = json_deep_copy(j);
    json_array_append_new(json_object_get(bad, "discard"), json_integer(g.deck[0]));
    cr_assert(!rs->from_json(&back, bad, err, sizeof err));
    cr_assert(strstr(err, "exactly one place"), "%s", err);
    json_decref(bad);
    /* an unknown field */
    bad = json_deep_copy(j);
    json_object_set_new(bad, "cheat", json_true());
    cr_assert(!rs->from_json(&back, bad, err, sizeof err));
    json_decref(bad);
    /* a wrong type */
    bad = json_deep_copy(j);
    json_object_set_new(bad, "round", json_string("one"));
    cr_assert(!rs->from_json(&back, bad, err, sizeof err));
    json_decref(bad);
    json_decref(j);
    cr_assert(!rs->from_json(&back, json_null(), err, sizeof err));
}

Test(tech_json, the_catalog_lists_every_card_with_its_effect)
{
    json_t *c = rs->cards_json();
    cr_assert_str_eq(json_string_value(json_object_get(c, "seed")), "delivery_services");
    json_t *cards = json_object_get(c, "cards");
    size_t i;
    json_t *card;
    int wild = 0;
    json_array_foreach(cards, i, card)
    {
        const char *dom = json_string_value(json_object_get(card, "domain"));
        if (strcmp(dom, "wild") == 0) {
            wild += (int)json_integer_value(json_object_get(card, "count"));
            continue;
        }
        cr_assert_not_null(json_object_get(json_object_get(card, "effect"), "primitive"));
    }
    cr_assert_eq(wild, 2);
    json_decref(c);
}

Test(tech_json, the_card_file_refuses_mistakes_with_a_sentence)
{
    static struct tech_catalog cat;
    char err[512];
    cr_assert(!tech_catalog_from_json(&cat, "{", "x.json", err, sizeof err));
    cr_assert(!tech_catalog_from_json(&cat, "{\"format\":1,\"seed\":\"a\",\"cards\":[]}", "x.json",
                                      err, sizeof err));
    cr_assert(!tech_catalog_from_json(
        &cat,
        "{\"format\":1,\"seed\":\"a\",\"cards\":[{\"id\":\"a\",\"name\":\"A\",\"text\":\"t\","
        "\"domain\":\"service\",\"value\":3,\"effect\":{\"draw\":1,\"fly\":2}}]}",
        "x.json", err, sizeof err));
    cr_assert(strstr(err, "card \"a\"") && strstr(err, "fly"), "%s", err);
    cr_assert(!tech_catalog_from_json(
        &cat,
        "{\"format\":1,\"seed\":\"a\",\"cards\":[{\"id\":\"a\",\"name\":\"A\",\"text\":\"t\","
        "\"domain\":\"service\",\"value\":3,\"effect\":{\"draw\":1,\"swap\":true}}]}",
        "x.json", err, sizeof err));
    cr_assert(strstr(err, "exactly one primitive"), "%s", err);
    cr_assert(!tech_catalog_from_json(
        &cat,
        "{\"format\":1,\"seed\":\"a\",\"cards\":[{\"id\":\"a\",\"name\":\"A\",\"text\":\"t\","
        "\"domain\":\"service\",\"value\":3,\"effect\":{\"draw\":1}}]}",
        "x.json", err, sizeof err));
    cr_assert(strstr(err, "no card is the 1 of service"), "%s", err);
    char path[4096];
    tech_card_path(path, sizeof path);
    cr_assert(tech_catalog_load_file(&cat, path, err, sizeof err), "%s", err);
    cr_assert_eq(cat.deck_size, 54);
    cr_assert(!tech_catalog_load_file(&cat, "/nonexistent/tech.json", err, sizeof err));
}

/* ---- stored states that were tampered with ------------------------------------------------ */

/* Collects pointers to every integer, boolean and array in j (depth first). */
static int leaves(json_t *j, json_t **out, int n, int max)
{
    if (n >= max)
        return n;
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) n = leaves(v, out, n, max);
    } else if (json_is_array(j)) {
        out[n++] = j;
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) n = leaves(v, out, n, max);
    } else if (json_is_integer(j)) {
        out[n++] = j;
    }
    return n;
}

Test(tech_json, a_tampered_state_loads_only_when_the_engine_can_go_on_from_it)
{
    static struct tech_game g, back;
    struct city_rng r;
    rng_seed(&r, 4242);
    int accepted = 0, refused = 0;
    for (int game = 0; game < 40; game++) {
        cr_assert(rs->new_game(&g, 1 + game % 6, (uint64_t)game, NULL));
        int stop = (int)rng_below(&r, 60);
        for (int k = 0; k < stop && !rs->over(&g); k++) {
            for (int s = 0; s < g.players; s++) {
                struct tech_decision d;
                if (rs->bot_decide(&g, s, "random", &d))
                    rs->submit(&g, s, &d);
            }
            rs->resolve(&g, NULL);
        }
        json_t *base = rs->to_json(&g);
        for (int m = 0; m < 60; m++) {
            json_t *j = json_deep_copy(base);
            json_t *spots[2048];
            int n = leaves(j, spots, 0, 2048);
            json_t *v = spots[rng_below(&r, (uint32_t)n)];
            if (json_is_integer(v))
                json_integer_set(v, (json_int_t)rng_below(&r, 12) - 2);
            else if (json_array_size(v) && rng_below(&r, 2))
                json_array_remove(v, rng_below(&r, (uint32_t)json_array_size(v)));
            else
                json_array_append_new(v, json_integer(rng_below(&r, 110)));
            char err[256];
            if (!rs->from_json(&back, j, err, sizeof err)) {
                refused++;
                json_decref(j);
                continue;
            }
            accepted++;
            cr_assert(tech_check_conservation(&back) && tech_check_point(&back));
            for (int steps = 0; !rs->over(&back) && steps < 2000; steps++) {
                rs->fill_defaults(&back, NULL);
                cr_assert(rs->resolve(&back, NULL));
                cr_assert(tech_check_conservation(&back) && tech_check_point(&back));
            }
            cr_assert(rs->over(&back));
            json_decref(j);
        }
        json_decref(base);
    }
    cr_assert_gt(refused, 0);
    cr_assert_gt(accepted, 0);
}

/* ---- random order bodies against real positions ------------------------------------------- */

static json_t *random_value(struct city_rng *r, int depth)
{
    switch (rng_below(r, depth > 1 ? 6 : 8)) {
    case 0:
        return json_integer((json_int_t)rng_below(r, 14) - 3);
    case 1:
        return json_integer((json_int_t)rng_below(r, 120));
    case 2:
        return json_boolean(rng_below(r, 2));
    case 3:
        return json_string(rng_below(r, 2) ? "service" : "build");
    case 4:
        return json_null();
    case 5:
        return json_real(0.5);
    case 6: {
        json_t *a = json_array();
        for (int i = (int)rng_below(r, 4); i > 0; i--)
            json_array_append_new(a, random_value(r, depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        static const char *const k[] = {"x", "y", "value", "domain", "z"};
        for (int i = (int)rng_below(r, 4); i > 0; i--)
            json_object_set_new(o, k[rng_below(r, 5)], random_value(r, depth + 1));
        return o;
    }
    }
}

Test(tech_json, random_orders_never_crash_and_a_refused_one_changes_nothing)
{
    static const char *const keys[] = {"pass", "card",  "x",    "y",      "pay",  "as",
                                       "use",  "free",  "take", "target", "to",   "victim",
                                       "draw", "cards", "seat", "turn",   "round"};
    static struct tech_game g, before;
    struct city_rng r;
    rng_seed(&r, 777);
    int parsed = 0, accepted = 0;
    for (int game = 0; game < 30; game++) {
        cr_assert(rs->new_game(&g, 1 + game % 6, (uint64_t)game * 31, NULL));
        while (!rs->over(&g)) {
            struct rs_pos now;
            rs->where(&g, &now);
            for (int t = 0; t < 40; t++) {
                /* a random bot's order for a random pending seat, then up to two changes */
                json_t *body = NULL;
                for (int s = 0; s < g.players && !body; s++) {
                    struct tech_decision b;
                    struct bot bot;
                    bot_init(&bot, BOT_RANDOM, rng_next(&r));
                    if (tech_bot_decide(&bot, &g, (s + t) % g.players, &b))
                        body = rs->order_to_json(&now, &b);
                }
                cr_assert_not_null(body);
                for (int i = (int)rng_below(&r, 3); i > 0; i--) {
                    const char *k = keys[rng_below(&r, 17)];
                    if (rng_below(&r, 3) == 0)
                        json_object_del(body, k);
                    else
                        json_object_set_new(body, k, random_value(&r, 0));
                }
                struct rs_pos pos;
                struct tech_decision d;
                char err[256];
                if (!rs->order_from_json(body, &pos, &d, err, sizeof err)) {
                    parsed++;
                    json_t *back = rs->order_to_json(&pos, &d);
                    cr_assert_not_null(back);
                    struct tech_decision d2;
                    cr_assert_null(rs->order_from_json(back, &pos, &d2, err, sizeof err));
                    cr_assert_eq(memcmp(&d, &d2, sizeof d), 0);
                    json_decref(back);
                    for (int s = 0; s < g.players; s++) {
                        before = g;
                        if (rs->submit(&g, s, &d) == 0)
                            accepted++;
                        else
                            cr_assert_eq(memcmp(&before, &g, sizeof g), 0,
                                         "a refused decision changed the game");
                        g = before;
                    }
                }
                json_decref(body);
            }
            for (int s = 0; s < g.players; s++) {
                struct tech_decision d;
                if (rs->bot_decide(&g, s, "random", &d))
                    rs->submit(&g, s, &d);
            }
            cr_assert(rs->resolve(&g, NULL));
        }
    }
    cr_assert_gt(parsed, 100);
    cr_assert_gt(accepted, 10);
}

/* Collects the log's events as JSON {type, data}. */
static void collect(void *ctx, const char *type, json_t *data)
{
    json_array_append_new(ctx, json_pack("{s:s, s:o}", "type", type, "data", data));
}

/* The first event of `type` in log, or NULL. */
static json_t *first_event(json_t *log, const char *type)
{
    size_t i;
    json_t *e;
    json_array_foreach(log, i, e) if (strcmp(json_string_value(json_object_get(e, "type")), type) ==
                                      0) return json_object_get(e, "data");
    return NULL;
}

Test(tech_json, placed_and_moved_events_name_the_cards_owner)
{
    static struct tech_game g;
    tk_new(&g, 2);
    int rep = -1;
    for (int k = 0; rep < 0; k++) {
        int c = tk_prim(&g, PRIM_REPLACE, true, k);
        if (tech_design_of(&g, c)->effect.filter == FILTER_ANY)
            rep = c;
    }
    tk_city(&g, rep, 1, 0, 0);
    int theirs = tk_vd(&g, DOMAIN_SCIENCE, 12), in = tk_vd(&g, DOMAIN_SCIENCE, 4);
    tk_city(&g, theirs, 0, 1, 1);
    tk_hand(&g, 0, in);
    tk_effect_turn(&g, 0);
    struct tech_decision d = tk_use(1, 0);
    d.card = (uint8_t)in;
    d.has_target = true;
    d.tx = 0;
    d.ty = 1;
    json_t *log = json_array();
    struct rs_sink sink = {collect, log};
    cr_assert_eq(rs->submit(&g, 0, &d), TECH_OK);
    cr_assert(rs->resolve(&g, &sink));
    json_t *placed = first_event(log, "placed");
    cr_assert_not_null(placed);
    cr_assert_eq(json_integer_value(json_object_get(placed, "owner")), 1,
                 "the replacement keeps seat 1's marker: %s", json_dumps(placed, 0));
    json_decref(log);

    tk_new(&g, 2);
    int sw = tk_prim(&g, PRIM_SWAP, true, 0);
    tk_city(&g, sw, 1, 0, 0);
    tk_city(&g, theirs, 0, 1, 1);
    tk_effect_turn(&g, 0);
    d = tk_use(1, 0);
    d.has_target = d.has_to = true;
    d.tx = 0;
    d.ty = 1;
    d.ux = 0;
    d.uy = 0;
    log = json_array();
    sink.ctx = log;
    cr_assert_eq(rs->submit(&g, 0, &d), TECH_OK);
    cr_assert(rs->resolve(&g, &sink));
    json_t *moved = first_event(log, "moved");
    cr_assert_not_null(moved);
    cr_assert_eq(json_integer_value(json_object_get(moved, "owner")), 1);
    size_t i;
    json_t *e;
    int neutral = 0;
    json_array_foreach(log, i, e)
    {
        json_t *o = json_object_get(json_object_get(e, "data"), "owner");
        neutral +=
            strcmp(json_string_value(json_object_get(e, "type")), "moved") == 0 && json_is_null(o);
    }
    cr_assert_eq(neutral, 1, "the seed card moved, neutral: \"owner\": null");
    json_decref(log);
}

Test(tech_json, any_order_may_divulge_cards_and_the_log_shows_them_to_all)
{
    round_trip("{\"round\": 1, \"step\": \"effect\", \"turn\": 3, \"pass\": true, "
               "\"divulge\": [4, 7]}");
    round_trip(
        "{\"round\": 2, \"step\": \"owner\", \"turn\": 9, \"draw\": true, \"divulge\": [4]}");
    round_trip(
        "{\"round\": 2, \"step\": \"discard\", \"turn\": 9, \"cards\": [1], \"divulge\": [2]}");
    cr_assert_str_eq(code_of("{\"round\": 1, \"step\": \"effect\", \"turn\": 3, \"pass\": true, "
                             "\"divulge\": 4}"),
                     "wrong_type");
    static struct tech_game g;
    tk_new(&g, 2);
    int c = tk_vd(&g, DOMAIN_SCIENCE, 4);
    tk_hand(&g, 1, c);
    tk_effect_turn(&g, 1);
    struct tech_decision d = tk_pass();
    d.ndivulge = 1;
    d.divulge[0] = (uint8_t)c;
    json_t *log = json_array();
    struct rs_sink sink = {collect, log};
    cr_assert_eq(rs->submit(&g, 1, &d), TECH_OK);
    cr_assert(rs->resolve(&g, &sink));
    json_t *e = first_event(log, "divulged");
    cr_assert_not_null(e);
    cr_assert_eq(json_integer_value(json_object_get(e, "seat")), 1);
    cr_assert_eq(json_integer_value(json_object_get(e, "id")), c);
    cr_assert_str_eq(json_string_value(json_object_get(e, "card")), tech_design_of(&g, c)->id);
    json_decref(log);
}

Test(tech_json, a_use_waiting_for_its_owner_is_stored_and_older_states_still_load)
{
    static struct tech_game g, back;
    tk_new(&g, 2);
    int card = tk_prim(&g, PRIM_SCORE, true, 0);
    tk_city(&g, card, 1, 0, 1);
    tk_effect_turn(&g, 0);
    struct tech_decision d = tk_use(1, 0);
    d.owner_first = true;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_OK);
    cr_assert(tech_resolve(&g, NULL));
    cr_assert_eq(g.step, TECH_STEP_OWNER);
    json_t *j = rs->to_json(&g);
    cr_assert(json_is_object(json_object_get(j, "use")));
    char err[256] = "";
    cr_assert(rs->from_json(&back, j, err, sizeof err), "%s", err);
    cr_assert_eq(back.run.stage, RUN_BEFORE);
    cr_assert(back.use.owner_first && back.use.x == 1 && back.use.y == 0);
    json_decref(j);
    /* a state written before "use" existed: no such key, and it loads as none */
    tk_effect_turn(&g, 0);
    j = rs->to_json(&g);
    json_object_del(j, "use");
    cr_assert(rs->from_json(&back, j, err, sizeof err), "%s", err);
    cr_assert_eq(back.use.kind, TDEC_NONE);
    json_decref(j);
    round_trip("{\"round\": 1, \"step\": \"effect\", \"turn\": 3, \"use\": {\"x\": 1, \"y\": 0}, "
               "\"owner_first\": true}");
}

Test(tech_json, the_decks_option_reaches_the_game_its_state_and_its_replay)
{
    static struct tech_game g, back;
    char err[256] = "";
    json_t *body = json_pack("{s:i}", "decks", 1);
    int decks[RS_MAX_OPTIONS];
    cr_assert_null(ruleset_read_options(rs, 5, body, decks, err, sizeof err), "%s", err);
    cr_assert(rs->new_game(&g, 5, 11, decks));
    cr_assert_eq(g.ncards, 54);
    json_t *opts = ruleset_options_json(rs, &g);
    cr_assert(json_equal(opts, body));
    json_decref(opts);
    json_t *j = rs->to_json(&g);
    cr_assert(rs->from_json(&back, j, err, sizeof err), "%s", err);
    cr_assert_eq(back.ncards, 54);
    json_object_del(j, "decks"); /* a state written before the option: two decks at 5 */
    cr_assert(!rs->from_json(&back, j, err, sizeof err), "54 cards cannot be two decks' state");
    json_decref(j);
    json_decref(body);
    /* the declared range: two decks only at 5-6 seats, and only integers */
    body = json_pack("{s:i}", "decks", 2);
    cr_assert_str_eq(ruleset_read_options(rs, 3, body, decks, err, sizeof err), "bad_value");
    cr_assert(strstr(err, "must be 1 at 3 seats") != NULL, "%s", err);
    cr_assert_null(ruleset_read_options(rs, 6, body, decks, err, sizeof err));
    json_decref(body);
    body = json_pack("{s:s}", "decks", "one");
    cr_assert_str_eq(ruleset_read_options(rs, 5, body, decks, err, sizeof err), "wrong_type");
    json_decref(body);
    /* left out: the default at that seat count */
    body = json_object();
    cr_assert_null(ruleset_read_options(rs, 5, body, decks, err, sizeof err));
    cr_assert_eq(decks[0], 2);
    cr_assert_null(ruleset_read_options(rs, 4, body, decks, err, sizeof err));
    cr_assert_eq(decks[0], 1);
    json_decref(body);
    /* a replay record carries the option and replays with it */
    json_t *rec = json_pack("{s:s, s:s, s:i, s:i, s:[]}", "game", "tech_city", "seed", "11",
                            "players", 5, "decks", 1, "decisions");
    cr_assert(rs->replay_run(rec, &back, err, sizeof err), "%s", err);
    cr_assert_eq(back.ncards, 54);
    json_decref(rec);
}
