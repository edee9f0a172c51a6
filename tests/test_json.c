/* test_json.c: the engine's JSON faces (city_json.h) — stored state round trips, orders,
 * replays, and what the public and private views show and hide — checked on bot games. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "the_city/city_bots.h"
#include "the_city/city_json.h"

/* ---- fixtures ----------------------------------------------------------------------------- */

static struct city_catalog cat;

static void load_catalog(void)
{
    const char *root = getenv("CITY_ROOT");
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/cards/cards.json", root && *root ? root : ".");
    cr_assert(city_catalog_load_file(&cat, path, err, sizeof err), "cannot load the catalog: %s",
              err);
}

TestSuite(json, .init = load_catalog);
TestSuite(replay, .init = load_catalog);
TestSuite(views, .init = load_catalog);

/* ---- playing bot games -------------------------------------------------------------------- */

typedef void (*visit_fn)(const struct city_game *g, void *ctx);

struct play_opts {
    uint64_t seed;
    int players;
    int target;    /* 0: the default */
    unsigned mix;  /* bit s set: seat s is greedy, else random */
    bool defaults; /* sometimes leave a seat to city_fill_defaults() */
    bool replace;  /* sometimes submit twice, the second replacing the first */
};

/* The options of game number i of a series: every player count, both bots, targets low and
 * default, defaults and replaced decisions now and then. */
static struct play_opts opts_for(unsigned i)
{
    static const int targets[] = {0, 0, 0, 25, 80};
    return (struct play_opts){.seed = 0x9e3779b97f4a7c15ULL * (i + 1),
                              .players = CITY_MIN_PLAYERS + (int)(i % 4),
                              .target = targets[(i / 4) % 5],
                              .mix = (i * 7u) % 32u,
                              .defaults = i % 3 == 1,
                              .replace = i % 5 == 2};
}

/* Plays a game to its end with bots, calling `visit` (when not NULL) on the start, after
 * every submission, after defaults and after every resolution, and recording into `replay`
 * (when not NULL) each decision used at resolution. */
static void play(const struct play_opts *o, struct city_game *g, json_t *replay, visit_fn visit,
                 void *ctx)
{
    cr_assert_eq(city_new(g, &cat, o->players, o->seed, o->target), CITY_OK);
    struct bot bots[CITY_MAX_PLAYERS], alt[CITY_MAX_PLAYERS];
    for (int s = 0; s < o->players; s++) {
        int kind = (o->mix >> s) & 1 ? BOT_GREEDY : BOT_RANDOM;
        city_bot_init(&bots[s], kind, o->seed * 31 + (uint64_t)s);
        city_bot_init(&alt[s], kind == BOT_GREEDY ? BOT_RANDOM : BOT_GREEDY,
                      o->seed * 37 + (uint64_t)s);
    }
    struct city_rng r;
    rng_seed(&r, o->seed ^ 0x243f6a8885a308d3ULL);
    if (visit)
        visit(g, ctx);
    for (int steps = 0; g->step != CITY_STEP_OVER; steps++) {
        if (steps > 4 * CITY_MAX_ROUNDS)
            cr_assert_fail("game of seed %llu does not end", (unsigned long long)o->seed);
        for (int s = 0; s < o->players; s++) {
            if (!game_seat_pending(g, s))
                continue;
            if (o->defaults && rng_below(&r, 6) == 0)
                continue;
            struct city_decision d;
            if (o->replace && rng_below(&r, 4) == 0) {
                cr_assert(city_bot_decide(&alt[s], g, s, &d));
                cr_assert_eq(city_submit(g, s, &d), CITY_OK);
                if (visit)
                    visit(g, ctx);
            }
            cr_assert(city_bot_decide(&bots[s], g, s, &d));
            int e = city_submit(g, s, &d);
            if (e)
                cr_assert_fail("bot decision refused: %s", city_error_code(e));
            if (visit)
                visit(g, ctx);
        }
        if (!city_ready(g)) {
            cr_assert_gt(city_fill_defaults(g, NULL), 0);
            if (visit)
                visit(g, ctx);
        }
        if (replay)
            for (int s = 0; s < o->players; s++)
                if (game_seat_pending(g, s))
                    cr_assert((g->seats[s].defaulted ? city_replay_add_default : city_replay_add)(
                        replay, s, g->round, g->step, &g->seats[s].order));
        cr_assert(city_resolve(g, NULL));
        if (visit)
            visit(g, ctx);
    }
}

/* A state reached by play in the middle of a game: game `i` stopped after `resolutions`
 * resolved steps, with seat 0 already submitted when it is pending. */
static void midgame(unsigned i, int resolutions, struct city_game *g)
{
    struct play_opts o = opts_for(i);
    struct bot bot;
    city_bot_init(&bot, BOT_GREEDY, i);
    cr_assert_eq(city_new(g, &cat, o.players, o.seed, o.target), CITY_OK);
    for (int k = 0; k < resolutions && g->step != CITY_STEP_OVER; k++) {
        struct city_decision d;
        for (int s = 0; s < o.players; s++)
            if (city_bot_decide(&bot, g, s, &d))
                cr_assert_eq(city_submit(g, s, &d), CITY_OK);
        cr_assert(city_resolve(g, NULL));
    }
    struct city_decision d;
    if (city_bot_decide(&bot, g, 0, &d))
        cr_assert_eq(city_submit(g, 0, &d), CITY_OK);
}

/* ---- the stored state --------------------------------------------------------------------- */

/* `g` with every array slot past its count zeroed (and the order of a seat that has not
 * submitted): what city_from_json() builds, since the JSON holds only what counts. */
static void canonical(const struct city_game *g, struct city_game *c)
{
    memcpy(c, g, sizeof *c);
    memset(c->deck + c->ndeck, 0, CITY_DECK_SIZE - c->ndeck);
    memset(c->discard + c->ndiscard, 0, CITY_DECK_SIZE - c->ndiscard);
    memset(c->pool + c->npool, 0, CITY_CONTRACTORS - c->npool);
    memset(c->removed + c->nremoved, 0, CITY_CONTRACTORS - c->nremoved);
    for (int s = 0; s < CITY_MAX_PLAYERS; s++) {
        struct city_seat *seat = &c->seats[s];
        memset(seat->hand + seat->nhand, 0, CITY_DECK_SIZE - seat->nhand);
        memset(seat->tableau + seat->ntableau, 0, CITY_DECK_SIZE - seat->ntableau);
        memset(seat->reveal.built + seat->reveal.nbuilt, 0, 2 - seat->reveal.nbuilt);
        if (!seat->submitted)
            memset(&seat->order, 0, sizeof seat->order);
        for (int r = c->round + 1; r <= CITY_MAX_ROUNDS; r++)
            seat->vp_by_round[r] = 0;
    }
}

struct trip_stats {
    long states, raw_equal;
};

static void check_round_trip(const struct city_game *g, void *ctx)
{
    struct trip_stats *st = ctx;
    json_t *j = city_to_json(g);
    if (!j)
        cr_assert_fail("city_to_json returned NULL");
    struct city_game back, want;
    char err[256];
    if (!city_from_json(&back, &cat, j, err, sizeof err))
        cr_assert_fail("city_from_json refused a state reached by play: %s", err);
    canonical(g, &want);
    if (memcmp(&want, &back, sizeof back) != 0) {
        size_t at = 0;
        while (((const unsigned char *)&want)[at] == ((const unsigned char *)&back)[at])
            at++;
        cr_assert_fail("round trip differs at byte %zu (round %d, step %s)", at, g->round,
                       city_step_name(g->step));
    }
    json_t *again = city_to_json(&back);
    if (!json_equal(j, again))
        cr_assert_fail("city_to_json(city_from_json(j)) is not j");
    st->states++;
    if (memcmp(g, &back, sizeof back) != 0)
        cr_assert_fail(
            "round trip is not byte-identical to the engine's struct (round %d, step %s)", g->round,
            city_step_name(g->step));
    st->raw_equal++;
    json_decref(again);
    json_decref(j);
}

Test(json, state_round_trip_is_identity_after_every_step_of_bot_games)
{
    struct trip_stats st = {0, 0};
    /* 700 games, every option mix of opts_for() many times over: about 18,000 states (2,000
     * games took 42 s of the suite under the sanitizers and found nothing more). */
    for (unsigned i = 0; i < 700; i++) {
        struct play_opts o = opts_for(i);
        struct city_game g;
        play(&o, &g, NULL, check_round_trip, &st);
    }
    cr_log_info("%ld states round-tripped byte for byte", st.raw_equal);
    cr_assert_gt(st.states, 15000);
}

Test(json, state_round_trip_survives_json_text)
{
    for (unsigned i = 0; i < 40; i++) {
        struct city_game g, back, want;
        midgame(i, (int)(i % 12), &g);
        json_t *j = city_to_json(&g);
        char *text = json_dumps(j, JSON_COMPACT);
        json_error_t jerr;
        json_t *parsed = json_loads(text, 0, &jerr);
        cr_assert_not_null(parsed, "%s", jerr.text);
        char err[256];
        cr_assert(city_from_json(&back, &cat, parsed, err, sizeof err), "%s", err);
        canonical(&g, &want);
        cr_assert_eq(memcmp(&want, &back, sizeof back), 0);
        free(text);
        json_decref(parsed);
        json_decref(j);
    }
}

Test(json, seed_and_rng_keep_all_64_bits)
{
    struct city_game g, back;
    cr_assert_eq(city_new(&g, &cat, 3, UINT64_MAX, 0), CITY_OK);
    json_t *j = city_to_json(&g);
    cr_assert_str_eq(json_string_value(json_object_get(j, "seed")), "18446744073709551615");
    char err[256];
    cr_assert(city_from_json(&back, &cat, j, err, sizeof err), "%s", err);
    cr_assert_eq(back.seed, UINT64_MAX);
    cr_assert_eq(memcmp(&back.rng, &g.rng, sizeof g.rng), 0);
    json_object_set_new(j, "seed", json_string("18446744073709551616"));
    cr_assert_not(city_from_json(&back, &cat, j, err, sizeof err));
    cr_assert_not_null(strstr(err, "\"seed\""), "%s", err);
    json_decref(j);
}

/* Runs city_from_json on `j`, expects a refusal whose sentence names `field`. */
static void expect_refusal(const json_t *j, const char *field)
{
    struct city_game g;
    char err[256] = "";
    cr_assert_not(city_from_json(&g, &cat, j, err, sizeof err), "accepted; expected %s", field);
    cr_assert_not_null(strstr(err, field), "error \"%s\" does not name %s", err, field);
}

Test(json, from_json_refuses_a_duplicated_card)
{
    struct city_game g;
    midgame(7, 3, &g);
    json_t *j = city_to_json(&g);
    json_t *hand = json_object_get(json_array_get(json_object_get(j, "seats"), 1), "hand");
    json_array_set(json_object_get(j, "deck"), 0, json_array_get(hand, 0));
    expect_refusal(j, "\"deck\"");
    expect_refusal(j, "\"seats[1].hand\"");
    json_decref(j);
}

Test(json, from_json_refuses_a_missing_card)
{
    struct city_game g;
    midgame(8, 3, &g);
    json_t *j = city_to_json(&g);
    json_array_remove(json_object_get(j, "deck"), 0);
    expect_refusal(j, "card ");
    json_decref(j);
}

Test(json, from_json_refuses_a_wrong_type)
{
    struct city_game g;
    midgame(9, 5, &g);
    json_t *j = city_to_json(&g);
    json_object_set_new(j, "round", json_string("3"));
    expect_refusal(j, "\"round\"");
    json_object_set_new(j, "round", json_integer(g.round));
    json_t *seat = json_array_get(json_object_get(j, "seats"), 1);
    json_object_set_new(seat, "pending", json_integer(1));
    expect_refusal(j, "\"seats[1].pending\"");
    json_object_set_new(seat, "pending", json_boolean(g.seats[1].pending));
    json_array_set_new(json_object_get(seat, "hand"), 0, json_real(3.0));
    expect_refusal(j, "\"seats[1].hand[0]\"");
    json_decref(j);
}

/* Found by tests/fuzz/fuzz_orders.c (corpus file regress-vp-past-int16): a stored game still
 * going with a seat at 32767 points was accepted, the next round's score overflowed the 16-bit
 * vp_by_round, and the saved state could not be read back. A game still going never has a seat
 * at its target: reaching it ends the game in the same round. */
Test(json, from_json_refuses_a_running_game_with_a_seat_at_the_target)
{
    struct city_game g;
    midgame(13, 4, &g);
    cr_assert_neq(g.step, CITY_STEP_OVER);
    int scored = g.step == CITY_STEP_HAND_LIMIT ? g.round : g.round - 1;
    cr_assert_gt(scored, 0);
    json_t *j = city_to_json(&g);
    json_t *seat = json_array_get(json_object_get(j, "seats"), 1);
    for (int vp = g.target_vp; vp <= INT16_MAX; vp += INT16_MAX - g.target_vp) {
        json_object_set_new(seat, "vp", json_integer(vp));
        json_array_set_new(json_object_get(seat, "vp_by_round"), (size_t)scored, json_integer(vp));
        expect_refusal(j, "\"seats[1].vp\"");
    }
    json_decref(j);
}

Test(json, from_json_refuses_an_unknown_step)
{
    struct city_game g;
    midgame(10, 2, &g);
    json_t *j = city_to_json(&g);
    json_object_set_new(j, "step", json_string("bulid"));
    expect_refusal(j, "\"step\"");
    json_object_set_new(j, "step", json_integer(1));
    expect_refusal(j, "\"step\"");
    json_decref(j);
}

Test(json, from_json_refuses_an_unknown_field)
{
    struct city_game g;
    midgame(11, 2, &g);
    json_t *j = city_to_json(&g);
    json_object_set_new(json_array_get(json_object_get(j, "seats"), 0), "score", json_integer(1));
    expect_refusal(j, "\"seats[0].score\"");
    json_decref(j);
}

Test(json, from_json_refuses_an_illegal_stored_order)
{
    struct city_game g;
    midgame(12, 0, &g); /* keep, seat 0 submitted */
    cr_assert(g.seats[0].submitted);
    json_t *j = city_to_json(&g);
    json_t *order = json_object_get(json_array_get(json_object_get(j, "seats"), 0), "order");
    json_array_remove(json_object_get(order, "discard"), 0);
    expect_refusal(j, "\"seats[0].order\"");
    json_decref(j);
}

/* A small generator of random JSON damage for the fuzz test. */
static json_t *random_value(struct city_rng *r)
{
    switch (rng_below(r, 14)) {
    case 0:
        return json_null();
    case 1:
        return json_true();
    case 2:
        return json_false();
    case 3:
        return json_string("build");
    case 4:
        return json_integer(-1);
    case 5:
        return json_integer(0);
    case 6:
        return json_integer(rng_below(r, 120));
    case 7:
        return json_integer(1LL << 40);
    case 8:
        return json_real(2.5);
    case 9:
        return json_array();
    case 10:
        return json_object();
    case 11:
        return json_string("18446744073709551616");
    case 12:
        return json_integer(rng_below(r, 6));
    default:
        return json_pack("[i, i]", (int)rng_below(r, 110), (int)rng_below(r, 110));
    }
}

/* Collects every container in v (pre-order) into out; returns how many. */
static int containers(json_t *v, json_t **out, int n, int max)
{
    if (n >= max || !(json_is_object(v) || json_is_array(v)))
        return n;
    out[n++] = v;
    if (json_is_object(v)) {
        const char *key;
        json_t *child;
        json_object_foreach(v, key, child) n = containers(child, out, n, max);
    } else {
        size_t i;
        json_t *child;
        json_array_foreach(v, i, child) n = containers(child, out, n, max);
    }
    return n;
}

static void mutate(json_t *root, struct city_rng *r)
{
    json_t *all[4096];
    int n = containers(root, all, 0, 4096);
    json_t *c = all[rng_below(r, (uint32_t)n)];
    if (json_is_object(c)) {
        size_t size = json_object_size(c);
        if (size == 0) {
            json_object_set_new(c, "x", random_value(r));
            return;
        }
        size_t pick = rng_below(r, (uint32_t)size), k = 0;
        const char *key, *chosen = NULL;
        json_t *child;
        json_object_foreach(c, key, child) if (k++ == pick) chosen = key;
        char name[64];
        snprintf(name, sizeof name, "%s", chosen);
        switch (rng_below(r, 4)) {
        case 0:
            json_object_del(c, name);
            break;
        case 1:
            json_object_set_new(c, "extra", random_value(r));
            break;
        default:
            json_object_set_new(c, name, random_value(r));
        }
        return;
    }
    size_t size = json_array_size(c);
    if (size == 0) {
        json_array_append_new(c, random_value(r));
        return;
    }
    size_t i = rng_below(r, (uint32_t)size), k = rng_below(r, (uint32_t)size);
    switch (rng_below(r, 5)) {
    case 0:
        json_array_remove(c, i);
        break;
    case 1:
        json_array_append(c, json_array_get(c, i));
        break;
    case 2: {
        json_t *a = json_incref(json_array_get(c, i)), *b = json_incref(json_array_get(c, k));
        json_array_set_new(c, i, b);
        json_array_set_new(c, k, a);
        break;
    }
    default:
        json_array_set_new(c, i, random_value(r));
    }
}

/* Plays an accepted state on with greedy bots and defaults to its end. */
static void play_on(struct city_game *g)
{
    struct bot bot;
    city_bot_init(&bot, BOT_GREEDY, 1);
    for (int steps = 0; g->step != CITY_STEP_OVER && steps < 4 * CITY_MAX_ROUNDS; steps++) {
        for (int s = 0; s < g->players; s++) {
            struct city_decision d;
            if (city_bot_decide(&bot, g, s, &d))
                cr_assert_eq(city_submit(g, s, &d), CITY_OK);
        }
        city_fill_defaults(g, NULL);
        json_decref(city_public_view(g));
        for (int s = 0; s < g->players; s++)
            json_decref(city_private_view(g, s));
        if (!city_resolve(g, NULL))
            break;
        cr_assert(city_check_conservation(g));
    }
}

Test(json, from_json_never_crashes_on_garbled_states)
{
    struct city_rng r;
    rng_seed(&r, 42);
    int accepted = 0, refused = 0, unparsable = 0;
    for (int t = 0; t < 600; t++) {
        struct city_game g, back;
        midgame((unsigned)t % 50, (int)rng_below(&r, 20), &g);
        json_t *j = city_to_json(&g);
        json_t *bad;
        if (t % 3 == 0) {
            /* Text damage: truncate, or overwrite a byte. */
            char *text = json_dumps(j, JSON_COMPACT);
            size_t len = strlen(text), at = rng_below(&r, (uint32_t)len);
            if (rng_below(&r, 2))
                text[at] = '\0';
            else
                text[at] = "0123456789[]{},:\"-tfn ."[rng_below(&r, 23)];
            json_error_t jerr;
            bad = json_loads(text, 0, &jerr);
            free(text);
        } else {
            bad = json_deep_copy(j);
            for (int m = 1 + (int)rng_below(&r, 3); m > 0; m--)
                mutate(bad, &r);
        }
        if (!bad) {
            unparsable++;
            json_decref(j);
            continue;
        }
        char err[256] = "";
        if (city_from_json(&back, &cat, bad, err, sizeof err)) {
            accepted++;
            cr_assert(city_check_conservation(&back));
            check_round_trip(&back, &(struct trip_stats){0, 0});
            play_on(&back);
        } else {
            refused++;
            cr_assert_gt(strlen(err), 10, "a refusal must say why");
        }
        json_decref(bad);
        json_decref(j);
    }
    cr_log_info("garbled states: %d accepted and played on, %d refused, %d not JSON", accepted,
                refused, unparsable);
    cr_assert_gt(refused, 100);
    cr_assert_gt(accepted, 10);
}

Test(json, from_json_refuses_what_is_not_an_object)
{
    struct city_game g;
    char err[256];
    json_t *a = json_array();
    cr_assert_not(city_from_json(&g, &cat, a, err, sizeof err));
    cr_assert_not(city_from_json(&g, &cat, NULL, err, sizeof err));
    cr_assert_not(city_from_json(&g, &cat, a, NULL, 0));
    json_decref(a);
}

/* ---- orders ------------------------------------------------------------------------------- */

/* Parses text as an order body. */
static int parse_text(const char *text, struct city_order *o, char *err, int errlen)
{
    json_error_t jerr;
    json_t *body = json_loads(text, JSON_DECODE_ANY, &jerr);
    cr_assert_not_null(body, "test body does not parse: %s: %s", text, jerr.text);
    int e = city_order_from_json(body, o, err, errlen);
    json_decref(body);
    return e;
}

Test(json, order_from_json_accepts_each_body_shape)
{
    struct city_order o;
    char err[256];
    cr_assert_eq(parse_text("{\"round\":0,\"step\":\"keep\",\"discard\":[4,9]}", &o, err, 256),
                 CITY_ORDER_OK, "%s", err);
    cr_assert(o.round == 0 && o.step == CITY_STEP_KEEP && o.d.kind == CITY_DEC_DISCARD);
    cr_assert(o.d.ndiscard == 2 && o.d.discard[0] == 4 && o.d.discard[1] == 9);

    cr_assert_eq(
        parse_text("{\"round\":3,\"step\":\"build\",\"build\":{\"card\":12,\"pay\":[1,2]}}", &o,
                   err, 256),
        CITY_ORDER_OK, "%s", err);
    cr_assert(o.round == 3 && o.step == CITY_STEP_BUILD && o.d.kind == CITY_DEC_BUILD &&
              o.d.nbuilds == 1);
    cr_assert(o.d.builds[0].card == 12 && o.d.builds[0].npay == 2 && o.d.builds[0].pay[1] == 2);

    cr_assert_eq(parse_text("{\"round\":3,\"step\":\"build\",\"contractor\":true}", &o, err, 256),
                 CITY_ORDER_OK, "%s", err);
    cr_assert(o.d.kind == CITY_DEC_CONTRACTOR && o.d.nbuilds == 0);

    cr_assert_eq(parse_text("{\"round\":4,\"step\":\"build\",\"builds\":[{\"card\":5,\"pay\":[]},"
                            "{\"card\":109,\"pay\":[0,7,8]}]}",
                            &o, err, 256),
                 CITY_ORDER_OK, "%s", err);
    cr_assert(o.d.kind == CITY_DEC_BUILD_TWO && o.d.nbuilds == 2);
    cr_assert(o.d.builds[0].card == 5 && o.d.builds[0].npay == 0);
    cr_assert(o.d.builds[1].card == 109 && o.d.builds[1].npay == 3 && o.d.builds[1].pay[2] == 8);

    cr_assert_eq(parse_text("{\"step\":\"build\",\"survey\":true,\"round\":60}", &o, err, 256),
                 CITY_ORDER_OK, "%s", err);
    cr_assert(o.round == 60 && o.d.kind == CITY_DEC_SURVEY);

    cr_assert_eq(
        parse_text("{\"round\":2,\"step\":\"survey\",\"discard\":[1,2,3,4]}", &o, err, 256),
        CITY_ORDER_OK, "%s", err);
    cr_assert(o.step == CITY_STEP_SURVEY && o.d.kind == CITY_DEC_DISCARD && o.d.ndiscard == 4);

    cr_assert_eq(parse_text("{\"round\":2,\"step\":\"hand_limit\",\"discard\":[50]}", &o, err, 256),
                 CITY_ORDER_OK, "%s", err);
    cr_assert(o.step == CITY_STEP_HAND_LIMIT && o.d.kind == CITY_DEC_DISCARD && o.d.ndiscard == 1);
}

/* Expects `text` to be refused with `code`, and the sentence to contain `names`. */
static void expect_order_error(const char *text, const char *code, const char *names)
{
    struct city_order o;
    char err[256] = "";
    int e = parse_text(text, &o, err, sizeof err);
    cr_assert_str_eq(city_order_error_code(e), code, "%s: got %s (%s)", text,
                     city_order_error_code(e), err);
    cr_assert_not_null(strstr(err, names), "%s: \"%s\" does not name %s", text, err, names);
    cr_assert(err[strlen(err) - 1] == '.', "\"%s\" is not a sentence", err);
}

Test(json, order_refuses_a_body_that_is_not_an_object)
{
    expect_order_error("[1,2]", "not_an_object", "round, step");
    expect_order_error("\"build\"", "not_an_object", "JSON object");
    expect_order_error("null", "not_an_object", "JSON object");
    struct city_order o;
    cr_assert_eq(city_order_from_json(NULL, &o, NULL, 0), CITY_ORDER_ERR_NOT_AN_OBJECT);
}

Test(json, order_refuses_a_missing_field)
{
    expect_order_error("{\"step\":\"build\",\"survey\":true}", "missing_field", "\"round\"");
    expect_order_error("{\"round\":1,\"survey\":true}", "missing_field", "\"step\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"build\":{\"pay\":[]}}", "missing_field",
                       "\"build.card\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"builds\":[{\"card\":1,\"pay\":[]},"
                       "{\"card\":2}]}",
                       "missing_field", "\"builds[1].pay\"");
}

Test(json, order_refuses_an_unknown_field)
{
    expect_order_error("{\"round\":1,\"step\":\"build\",\"survey\":true,\"foo\":1}",
                       "unknown_field", "\"foo\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"build\":{\"card\":1,\"pay\":[],\"x\":0}}",
                       "unknown_field", "\"build.x\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"seat\":0,\"survey\":true}",
                       "unknown_field", "\"seat\"");
}

Test(json, order_refuses_a_wrong_type)
{
    expect_order_error("{\"round\":1.5,\"step\":\"build\",\"survey\":true}", "wrong_type",
                       "\"round\"");
    expect_order_error("{\"round\":\"1\",\"step\":\"build\",\"survey\":true}", "wrong_type",
                       "\"round\"");
    expect_order_error("{\"round\":true,\"step\":\"build\",\"survey\":true}", "wrong_type",
                       "\"round\"");
    expect_order_error("{\"round\":1,\"step\":3,\"survey\":true}", "wrong_type", "\"step\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"survey\":1}", "wrong_type", "\"survey\"");
    expect_order_error("{\"round\":1,\"step\":\"survey\",\"discard\":{}}", "wrong_type",
                       "\"discard\"");
    expect_order_error("{\"round\":1,\"step\":\"survey\",\"discard\":[1,\"2\"]}", "wrong_type",
                       "\"discard[1]\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"build\":{\"card\":1.0,\"pay\":[]}}",
                       "wrong_type", "\"build.card\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"build\":[1]}", "wrong_type", "\"build\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"builds\":{}}", "wrong_type",
                       "\"builds\"");
}

Test(json, order_refuses_a_bad_value)
{
    expect_order_error("{\"round\":1,\"step\":\"bulid\",\"survey\":true}", "bad_value", "\"step\"");
    expect_order_error("{\"round\":1,\"step\":\"over\",\"survey\":true}", "bad_value", "\"step\"");
    expect_order_error("{\"round\":-1,\"step\":\"build\",\"survey\":true}", "bad_value",
                       "\"round\"");
    expect_order_error("{\"round\":4294967297,\"step\":\"build\",\"survey\":true}", "bad_value",
                       "\"round\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"build\":{\"card\":-3,\"pay\":[]}}",
                       "bad_value", "\"build.card\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"build\":{\"card\":2,\"pay\":[110]}}",
                       "bad_value", "\"build.pay[0]\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"contractor\":false}", "bad_value",
                       "\"contractor\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"survey\":false}", "bad_value",
                       "\"survey\"");
}

Test(json, order_refuses_conflicting_fields)
{
    expect_order_error("{\"round\":1,\"step\":\"build\",\"survey\":true,\"contractor\":true}",
                       "conflicting_fields", "\"contractor\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"build\":{\"card\":1,\"pay\":[]},"
                       "\"discard\":[]}",
                       "conflicting_fields", "\"build\"");
    expect_order_error("{\"round\":1,\"step\":\"build\"}", "conflicting_fields", "\"survey\"");
}

Test(json, order_refuses_too_many_cards)
{
    expect_order_error("{\"round\":1,\"step\":\"build\",\"build\":{\"card\":1,"
                       "\"pay\":[0,2,3,4,5,6,7,8,9,10,11,12]}}",
                       "too_many_cards", "\"build.pay\"");
    char text[2048];
    int n = snprintf(text, sizeof text, "{\"round\":1,\"step\":\"survey\",\"discard\":[0");
    for (int i = 1; i <= CITY_DECK_SIZE; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, ",%d", i % CITY_DECK_SIZE);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    expect_order_error(text, "too_many_cards", "\"discard\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"builds\":[{\"card\":1,\"pay\":[]}]}",
                       "too_many_cards", "\"builds\"");
    expect_order_error("{\"round\":1,\"step\":\"build\",\"builds\":[{\"card\":1,\"pay\":[]},"
                       "{\"card\":2,\"pay\":[]},{\"card\":3,\"pay\":[]}]}",
                       "too_many_cards", "\"builds\"");
}

Test(json, order_error_codes_are_stable)
{
    static const char *const codes[] = {
        "ok",         "not_an_object", "missing_field",      "unknown_field",
        "wrong_type", "bad_value",     "conflicting_fields", "too_many_cards"};
    for (int e = 0; e < CITY_ORDER_ERR_COUNT; e++)
        cr_assert_str_eq(city_order_error_code(e), codes[e]);
    cr_assert_str_eq(city_order_error_code(-1), "unknown_error");
    cr_assert_str_eq(city_order_error_code(CITY_ORDER_ERR_COUNT), "unknown_error");
}

static void check_order_round_trip(const struct city_game *g, void *ctx)
{
    long *count = ctx;
    for (int s = 0; s < g->players; s++) {
        if (!g->seats[s].submitted)
            continue;
        json_t *body = city_order_to_json(g->round, g->step, &g->seats[s].order);
        if (!body)
            cr_assert_fail("city_order_to_json returned NULL for a submitted order");
        struct city_order o;
        char err[256];
        int e = city_order_from_json(body, &o, err, sizeof err);
        if (e)
            cr_assert_fail("city_order_from_json refused city_order_to_json's body: %s", err);
        if (o.round != g->round || o.step != g->step ||
            memcmp(&o.d, &g->seats[s].order, sizeof o.d) != 0)
            cr_assert_fail("order round trip differs");
        json_t *again = city_order_to_json(o.round, o.step, &o.d);
        if (!json_equal(body, again))
            cr_assert_fail("city_order_to_json(city_order_from_json(b)) is not b");
        json_decref(again);
        json_decref(body);
        ++*count;
    }
}

Test(json, order_round_trip_is_identity_for_every_bot_decision)
{
    long count = 0;
    for (unsigned i = 0; i < 300; i++) {
        struct play_opts o = opts_for(i);
        struct city_game g;
        play(&o, &g, NULL, check_order_round_trip, &count);
    }
    cr_assert_gt(count, 10000);
}

Test(json, order_to_json_refuses_what_has_no_body)
{
    struct city_decision d = {0};
    cr_assert_null(city_order_to_json(1, CITY_STEP_BUILD, &d));
    d.kind = CITY_DEC_SURVEY;
    cr_assert_null(city_order_to_json(1, CITY_STEP_OVER, &d));
    cr_assert_null(city_order_to_json(1, -1, &d));
    d.kind = CITY_DEC_BUILD;
    d.nbuilds = 2;
    cr_assert_null(city_order_to_json(1, CITY_STEP_BUILD, &d));
    d.kind = 99;
    cr_assert_null(city_order_to_json(1, CITY_STEP_BUILD, &d));
}

/* ---- replays ------------------------------------------------------------------------------ */

Test(replay, replay_of_a_recorded_game_reproduces_the_final_state)
{
    int with_defaults = 0;
    for (unsigned i = 0; i < 400; i++) {
        struct play_opts o = opts_for(i);
        struct city_game g, again;
        json_t *rep = city_replay_new(o.seed, o.players, o.target);
        cr_assert_not_null(rep);
        play(&o, &g, rep, NULL, NULL);
        char *text = json_dumps(rep, JSON_COMPACT);
        with_defaults += strstr(text, "\"default\"") != NULL;
        json_error_t jerr;
        json_t *parsed = json_loads(text, 0, &jerr);
        cr_assert_not_null(parsed, "%s", jerr.text);
        char err[256];
        cr_assert(city_replay_run(&cat, parsed, &again, err, sizeof err), "game %u: %s", i, err);
        cr_assert_eq(again.step, CITY_STEP_OVER);
        cr_assert_eq(memcmp(&g, &again, sizeof g), 0, "game %u replays differently", i);
        free(text);
        json_decref(parsed);
        json_decref(rep);
    }
    cr_assert_gt(with_defaults, 50);
}

Test(replay, replay_accepts_the_seed_as_a_string_or_an_integer)
{
    struct play_opts o = opts_for(3);
    o.seed = 123456789;
    struct city_game g, a, b;
    json_t *rep = city_replay_new(o.seed, o.players, o.target);
    play(&o, &g, rep, NULL, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(rep, "seed")), "123456789");
    char err[256];
    cr_assert(city_replay_run(&cat, rep, &a, err, sizeof err), "%s", err);
    json_object_set_new(rep, "seed", json_integer(123456789));
    cr_assert(city_replay_run(&cat, rep, &b, err, sizeof err), "%s", err);
    cr_assert_eq(memcmp(&a, &g, sizeof g), 0);
    cr_assert_eq(memcmp(&b, &g, sizeof g), 0);
    json_object_set_new(rep, "seed", json_integer(-1));
    cr_assert_not(city_replay_run(&cat, rep, &b, err, sizeof err));
    cr_assert_not_null(strstr(err, "\"seed\""), "%s", err);
    json_decref(rep);
}

Test(replay, replay_of_no_decisions_is_the_new_game)
{
    struct city_game g, r;
    json_t *rep = city_replay_new(77, 4, 0);
    cr_assert_eq(json_integer_value(json_object_get(rep, "target_vp")), CITY_DEFAULT_TARGET);
    char err[256];
    cr_assert(city_replay_run(&cat, rep, &r, err, sizeof err), "%s", err);
    cr_assert_eq(city_new(&g, &cat, 4, 77, 0), CITY_OK);
    cr_assert_eq(memcmp(&g, &r, sizeof g), 0);
    json_object_del(rep, "target_vp");
    cr_assert(city_replay_run(&cat, rep, &r, err, sizeof err), "%s", err);
    cr_assert_eq(memcmp(&g, &r, sizeof g), 0);
    cr_assert_null(city_replay_new(77, 6, 0));
    cr_assert_null(city_replay_new(77, 2, CITY_MAX_TARGET + 1));
    json_decref(rep);
}

/* A recorded replay of game `i`, for damaging. */
static json_t *recorded(unsigned i)
{
    struct play_opts o = opts_for(i);
    o.defaults = o.replace = false;
    struct city_game g;
    json_t *rep = city_replay_new(o.seed, o.players, o.target);
    play(&o, &g, rep, NULL, NULL);
    return rep;
}

Test(replay, replay_refuses_a_decision_for_another_step)
{
    json_t *rep = recorded(5);
    json_t *d = json_array_get(json_object_get(rep, "decisions"), 7);
    json_object_set_new(d, "round",
                        json_integer(json_integer_value(json_object_get(d, "round")) + 1));
    struct city_game g;
    char err[256];
    cr_assert_not(city_replay_run(&cat, rep, &g, err, sizeof err));
    cr_assert_not_null(strstr(err, "decisions[7]"), "%s", err);
    json_decref(rep);
}

Test(replay, replay_refuses_an_illegal_decision_with_the_engine_reason)
{
    json_t *rep = recorded(6);
    json_t *d = json_array_get(json_object_get(rep, "decisions"), 1); /* a keep discard */
    json_array_remove(json_object_get(d, "discard"), 0);
    struct city_game g;
    char err[512];
    cr_assert_not(city_replay_run(&cat, rep, &g, err, sizeof err));
    cr_assert_not_null(strstr(err, "decisions[1]"), "%s", err);
    cr_assert_not_null(strstr(err, city_error_message(CITY_ERR_DISCARD_COUNT)), "%s", err);
    json_decref(rep);
}

Test(replay, replay_refuses_a_malformed_decision_naming_it)
{
    json_t *rep = recorded(7);
    json_t *d = json_array_get(json_object_get(rep, "decisions"), 2);
    json_object_set_new(d, "seat", json_string("0"));
    struct city_game g;
    char err[256];
    cr_assert_not(city_replay_run(&cat, rep, &g, err, sizeof err));
    cr_assert_not_null(strstr(err, "\"decisions[2].seat\""), "%s", err);
    json_object_set_new(d, "seat", json_integer(0));
    json_object_set_new(d, "colour", json_string("red"));
    cr_assert_not(city_replay_run(&cat, rep, &g, err, sizeof err));
    cr_assert_not_null(strstr(err, "\"decisions[2].colour\""), "%s", err);
    json_decref(rep);
}

Test(replay, replay_refuses_decisions_after_the_game_ended)
{
    json_t *rep = recorded(8);
    json_t *decisions = json_object_get(rep, "decisions");
    size_t n = json_array_size(decisions);
    json_array_append(decisions, json_array_get(decisions, n - 1));
    struct city_game g;
    char err[256];
    cr_assert_not(city_replay_run(&cat, rep, &g, err, sizeof err));
    cr_assert_not_null(strstr(err, "ended"), "%s", err);
    json_decref(rep);
}

/* ---- views -------------------------------------------------------------------------------- */

static bool has_exactly(const json_t *o, const char *const *keys, size_t n)
{
    if (!json_is_object(o) || json_object_size(o) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!json_object_get(o, keys[i]))
            return false;
    return true;
}

/* True when a key named `key` appears anywhere in v. */
static bool has_key_anywhere(json_t *v, const char *key)
{
    const char *k;
    json_t *child;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, k, child) if (strcmp(k, key) == 0 ||
                                             has_key_anywhere(child, key)) return true;
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, child) if (has_key_anywhere(child, key)) return true;
    }
    return false;
}

static void check_public_fields(const struct city_game *g, void *ctx)
{
    static const char *const top[] = {"round",      "step",          "target_vp",
                                      "deck_count", "discard_count", "contractors_left",
                                      "seats",      "winners",       "ended_by"};
    static const char *const seat[] = {"seat",     "vp",         "hand_count", "tableau",
                                       "round_vp", "income",     "submitted",  "pending",
                                       "last",     "vp_by_round"};
    static const char *const last[] = {"action", "built", "paid", "default"};
    static const char *const card[] = {"card", "vp", "income"};
    static const char *const secret[] = {"hand",  "deck", "discard", "seed", "rng",
                                         "order", "pay",  "id",      "drew"};
    (void)ctx;
    json_t *v = city_public_view(g);
    if (!has_exactly(v, top, sizeof top / sizeof top[0]))
        cr_assert_fail("public view's top-level fields are not exactly the listed ones");
    for (size_t k = 0; k < sizeof secret / sizeof secret[0]; k++)
        if (has_key_anywhere(v, secret[k]))
            cr_assert_fail("public view has a \"%s\" key", secret[k]);
    char *text = json_dumps(v, JSON_COMPACT);
    if (strstr(text, "\"hand\""))
        cr_assert_fail("public view text holds \"hand\"");
    free(text);
    json_t *seats = json_object_get(v, "seats");
    if (json_array_size(seats) != g->players)
        cr_assert_fail("public view has %zu seats", json_array_size(seats));
    for (int s = 0; s < g->players; s++) {
        json_t *o = json_array_get(seats, (size_t)s);
        const struct city_seat *st = &g->seats[s];
        if (!has_exactly(o, seat, sizeof seat / sizeof seat[0]))
            cr_assert_fail("public seat %d's fields are not exactly the listed ones", s);
        if (!has_exactly(json_object_get(o, "last"), last, 4))
            cr_assert_fail("public seat %d's last is not {action, built, paid, default}", s);
        json_t *tab = json_object_get(o, "tableau");
        if (json_array_size(tab) != st->ntableau)
            cr_assert_fail("public tableau of seat %d has the wrong size", s);
        int sum_vp = 0, sum_income = 0;
        for (int k = 0; k < st->ntableau; k++) {
            json_t *c = json_array_get(tab, (size_t)k);
            if (!has_exactly(c, card, 3) ||
                strcmp(json_string_value(json_object_get(c, "card")),
                       cat.designs[cat.card_design[st->tableau[k]]].id) != 0)
                cr_assert_fail("public tableau card %d of seat %d is wrong", k, s);
            sum_vp += (int)json_integer_value(json_object_get(c, "vp"));
            sum_income += (int)json_integer_value(json_object_get(c, "income"));
        }
        if (sum_vp != json_integer_value(json_object_get(o, "round_vp")) ||
            sum_income != json_integer_value(json_object_get(o, "income")))
            cr_assert_fail("round_vp or income of seat %d is not its tableau's sum", s);
        if (json_integer_value(json_object_get(o, "hand_count")) != st->nhand ||
            json_integer_value(json_object_get(o, "vp")) != st->vp)
            cr_assert_fail("hand_count or vp of seat %d is wrong", s);
        json_t *vbr = json_object_get(o, "vp_by_round");
        int scored =
            g->step == CITY_STEP_HAND_LIMIT || g->step == CITY_STEP_OVER ? g->round : g->round - 1;
        if ((int)json_array_size(vbr) != (scored > 0 ? scored : 0))
            cr_assert_fail("vp_by_round of seat %d has %zu entries in round %d, step %s", s,
                           json_array_size(vbr), g->round, city_step_name(g->step));
        if (scored > 0 && json_integer_value(json_array_get(vbr, (size_t)scored - 1)) != st->vp)
            cr_assert_fail("the last vp_by_round entry of seat %d is not its vp", s);
    }
    const char *ended = json_string_value(json_object_get(v, "ended_by"));
    if ((g->step == CITY_STEP_OVER) != (ended != NULL) ||
        (g->step == CITY_STEP_OVER) != (json_array_size(json_object_get(v, "winners")) > 0))
        cr_assert_fail("ended_by or winners do not match the end of the game");
    json_decref(v);
}

Test(views, public_view_has_exactly_the_listed_fields_and_no_secret)
{
    for (unsigned i = 0; i < 150; i++) {
        struct play_opts o = opts_for(i);
        struct city_game g;
        play(&o, &g, NULL, check_public_fields, NULL);
    }
}

/* `g` with every secret changed: hidden cards dealt anew among the hands, deck and discard
 * pile (same counts), a new seed and rng, and every submitted order replaced. */
static void scramble_secrets(const struct city_game *g, struct city_game *h, struct city_rng *r)
{
    memcpy(h, g, sizeof *h);
    uint8_t hidden[CITY_DECK_SIZE];
    int n = 0;
    memcpy(hidden + n, h->deck, h->ndeck);
    n += h->ndeck;
    memcpy(hidden + n, h->discard, h->ndiscard);
    n += h->ndiscard;
    for (int s = 0; s < h->players; s++) {
        memcpy(hidden + n, h->seats[s].hand, h->seats[s].nhand);
        n += h->seats[s].nhand;
    }
    rng_shuffle(r, hidden, n);
    n = 0;
    memcpy(h->deck, hidden + n, h->ndeck);
    n += h->ndeck;
    memcpy(h->discard, hidden + n, h->ndiscard);
    n += h->ndiscard;
    for (int s = 0; s < h->players; s++) {
        memcpy(h->seats[s].hand, hidden + n, h->seats[s].nhand);
        n += h->seats[s].nhand;
        if (h->seats[s].submitted) {
            memset(&h->seats[s].order, 0, sizeof h->seats[s].order);
            h->seats[s].order.kind =
                h->step == CITY_STEP_BUILD ? CITY_DEC_SURVEY : CITY_DEC_DISCARD;
        }
    }
    h->seed = rng_next(r);
    rng_seed(&h->rng, rng_next(r));
}

struct secret_ctx {
    struct city_rng r;
    long checked;
};

static void check_secrets_do_not_show(const struct city_game *g, void *ctx)
{
    struct secret_ctx *c = ctx;
    struct city_game h;
    scramble_secrets(g, &h, &c->r);
    json_t *a = city_public_view(g), *b = city_public_view(&h);
    if (!json_equal(a, b))
        cr_assert_fail("the public view changed with the secrets (round %d, step %s)", g->round,
                       city_step_name(g->step));
    json_decref(a);
    json_decref(b);
    c->checked++;
}

Test(views, public_view_depends_on_no_secret)
{
    struct secret_ctx c = {.checked = 0};
    rng_seed(&c.r, 5);
    for (unsigned i = 0; i < 150; i++) {
        struct play_opts o = opts_for(i);
        struct city_game g;
        play(&o, &g, NULL, check_secrets_do_not_show, &c);
    }
    cr_assert_gt(c.checked, 3000);
}

Test(views, public_view_shows_only_that_a_seat_submitted_before_the_reveal)
{
    struct city_game g;
    int k = 4;
    do
        midgame(20, k++, &g);
    while (g.step != CITY_STEP_BUILD);
    struct bot bot;
    city_bot_init(&bot, BOT_GREEDY, 3);
    json_t *before = city_public_view(&g);
    struct city_decision d;
    cr_assert(city_bot_decide(&bot, &g, 1, &d));
    cr_assert_eq(city_submit(&g, 1, &d), CITY_OK);
    json_t *after = city_public_view(&g);
    json_object_set_new(json_array_get(json_object_get(before, "seats"), 1), "submitted",
                        json_true());
    cr_assert(json_equal(before, after));
    json_decref(before);
    json_decref(after);
}

static void check_private(const struct city_game *g, void *ctx)
{
    static const char *const keys[] = {"seat", "hand", "pending", "order"};
    static const char *const build_keys[] = {"builds",  "unbuildable",  "contractor",      "double",
                                             "doubles", "survey_score", "contractor_score"};
    long *count = ctx;
    for (int s = 0; s < g->players; s++) {
        const struct city_seat *st = &g->seats[s];
        json_t *v = city_private_view(g, s);
        bool shows_order = st->submitted && game_seat_pending(g, s);
        if (!has_exactly(v, keys, shows_order ? 4 : 3))
            cr_assert_fail("private view of seat %d has the wrong fields", s);
        if (json_integer_value(json_object_get(v, "seat")) != s)
            cr_assert_fail("private view of seat %d names another seat", s);
        json_t *hand = json_object_get(v, "hand");
        if (json_array_size(hand) != st->nhand)
            cr_assert_fail("private view of seat %d shows %zu cards, not %d", s,
                           json_array_size(hand), st->nhand);
        for (int k = 0; k < st->nhand; k++) {
            json_t *c = json_array_get(hand, (size_t)k);
            if (json_object_size(c) != 2 ||
                json_integer_value(json_object_get(c, "id")) != st->hand[k] ||
                strcmp(json_string_value(json_object_get(c, "card")),
                       cat.designs[cat.card_design[st->hand[k]]].id) != 0)
                cr_assert_fail("card %d of seat %d's private hand is wrong", k, s);
        }
        json_t *pending = json_object_get(v, "pending");
        if (!game_seat_pending(g, s)) {
            if (!json_is_null(pending))
                cr_assert_fail("pending of seat %d is not null with nothing to decide", s);
        } else {
            if (json_integer_value(json_object_get(pending, "round")) != g->round ||
                strcmp(json_string_value(json_object_get(pending, "step")),
                       city_step_name(g->step)) != 0)
                cr_assert_fail("pending of seat %d names the wrong round or step", s);
            json_t *opt = json_object_get(pending, "options");
            if (g->step == CITY_STEP_BUILD) {
                struct city_build_options bo;
                city_build_options(g, s, &bo);
                json_t *builds = json_object_get(opt, "builds");
                if (!has_exactly(opt, build_keys, 7) || json_array_size(builds) != bo.nbuilds ||
                    json_is_true(json_object_get(opt, "contractor")) != bo.contractor ||
                    json_is_true(json_object_get(opt, "double")) != bo.two)
                    cr_assert_fail("build options of seat %d do not match", s);
                for (int k = 0; k < bo.nbuilds; k++) {
                    json_t *b = json_array_get(builds, (size_t)k);
                    /* id, card, cost, and what test_city_options.c checks: pay, vp, income */
                    if (json_object_size(b) != 6 ||
                        json_integer_value(json_object_get(b, "id")) != bo.card[k] ||
                        json_integer_value(json_object_get(b, "cost")) != bo.cost[k] ||
                        strcmp(json_string_value(json_object_get(b, "card")),
                               cat.designs[cat.card_design[bo.card[k]]].id) != 0)
                        cr_assert_fail("build option %d of seat %d does not match", k, s);
                }
            } else if (json_object_size(opt) != 1 ||
                       json_integer_value(json_object_get(opt, "discard")) !=
                           city_discard_count(g, s)) {
                cr_assert_fail("discard option of seat %d does not match", s);
            }
        }
        if (shows_order) {
            json_t *want = city_order_to_json(g->round, g->step, &st->order);
            if (!json_equal(want, json_object_get(v, "order")))
                cr_assert_fail("the order in seat %d's private view is not its own", s);
            json_decref(want);
        }
        json_decref(v);
        ++*count;
    }
}

Test(views, private_view_shows_exactly_the_seats_hand_options_and_order)
{
    long count = 0;
    for (unsigned i = 0; i < 150; i++) {
        struct play_opts o = opts_for(i);
        struct city_game g;
        play(&o, &g, NULL, check_private, &count);
    }
    cr_assert_gt(count, 10000);
}

Test(views, private_view_of_a_seat_outside_the_game_is_null)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, 2, 1, 0), CITY_OK);
    cr_assert_null(city_private_view(&g, 2));
    cr_assert_null(city_private_view(&g, -1));
    json_t *v = city_private_view(&g, 1);
    json_t *opt = json_object_get(json_object_get(v, "pending"), "options");
    cr_assert_eq(json_integer_value(json_object_get(opt, "discard")), CITY_KEEP_DISCARD);
    json_decref(v);
}
