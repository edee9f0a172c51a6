/* test_city_options.c: the legal options of The City's pending decision (the hand view's
 * pending.options, city_options_json.c) against the engine itself, over many mid-game states of
 * bot games: every option listed is an order city_check() accepts, every other hand card and
 * pair is refused with the reason given, and every number an option shows (round VP, income) is
 * what the engine makes of that very order, played on a copy of the game to the round's score. */
#include "helpers.h"

#include "the_city/city_json.h"

static struct city_catalog cat;

static void load(void)
{
    load_catalog(&cat);
}

TestSuite(city_options, .init = load);

/* ---- the states ---------------------------------------------------------------------------- */

/* Calls visit(g, seat, view options) for every seat pending in every build step of `games` bot
 * games (2 to 5 players, greedy and random bots), and, when `gang` is set, once more on a copy
 * where the seat has a Construction Gang in its tableau (so that double builds come up often). */
typedef void (*visit_fn)(const struct city_game *g, int seat, const json_t *opt, void *ctx);

static void with_options(const struct city_game *g, int seat, visit_fn visit, void *ctx)
{
    json_t *v = city_private_view(g, seat);
    cr_assert_not_null(v);
    json_t *opt = json_object_get(json_object_get(v, "pending"), "options");
    cr_assert(json_is_object(opt), "seat %d is pending without options", seat);
    visit(g, seat, opt, ctx);
    json_decref(v);
}

static void states(int games, bool gang, visit_fn visit, void *ctx)
{
    static struct city_game g, copy;
    int gang_design = design(&cat, "construction_gang");
    for (int i = 0; i < games; i++) {
        int players = CITY_MIN_PLAYERS + i % (CITY_MAX_PLAYERS - CITY_MIN_PLAYERS + 1);
        uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
        cr_assert_eq(city_new(&g, &cat, players, seed, 0), CITY_OK);
        struct bot bots[CITY_MAX_PLAYERS];
        for (int s = 0; s < players; s++)
            city_bot_init(&bots[s], (i + s) % 2 ? BOT_GREEDY : BOT_RANDOM, seed + (uint64_t)s);
        while (g.step != CITY_STEP_OVER) {
            for (int s = 0; s < players; s++) {
                if (!game_seat_pending(&g, s))
                    continue;
                if (g.step == CITY_STEP_BUILD) {
                    with_options(&g, s, visit, ctx);
                    if (gang && !(g.seats[s].tab.owned >> gang_design & 1)) {
                        copy = g;
                        int c = card_of(&cat, "construction_gang", (i + s) % 2);
                        int where, pos;
                        if (locate(&copy, c, &where, &pos) != AT_TABLEAU) {
                            to_tableau(&copy, s, c);
                            cr_assert(city_check_conservation(&copy));
                            with_options(&copy, s, visit, ctx);
                        }
                    }
                }
                struct city_decision d;
                cr_assert(city_bot_decide(&bots[s], &g, s, &d));
                cr_assert_eq(city_submit(&g, s, &d), CITY_OK);
            }
            cr_assert(city_resolve(&g, NULL));
        }
    }
}

/* ---- reading an option ------------------------------------------------------------------- */

static int integer(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "option field \"%s\" is not an integer", key);
    return (int)json_integer_value(v);
}

/* The build {"id", "pay"} of an option as a struct city_build. */
static struct city_build build_of(const json_t *b)
{
    struct city_build out = {.card = (uint8_t)integer(b, "id")};
    const json_t *pay = json_object_get(b, "pay");
    cr_assert(json_is_array(pay));
    cr_assert_eq((int)json_array_size(pay), integer(b, "cost"), "pay is not as many as cost");
    for (size_t i = 0; i < json_array_size(pay); i++)
        out.pay[out.npay++] = (uint8_t)json_integer_value(json_array_get(pay, i));
    return out;
}

static struct city_decision one(const json_t *b)
{
    struct city_decision d = {.kind = CITY_DEC_BUILD, .nbuilds = 1};
    d.builds[0] = build_of(b);
    return d;
}

static struct city_decision two(const json_t *pair)
{
    const json_t *builds = json_object_get(pair, "builds");
    cr_assert_eq(json_array_size(builds), 2);
    struct city_decision d = {.kind = CITY_DEC_BUILD_TWO, .nbuilds = 2};
    d.builds[0] = build_of(json_array_get(builds, 0));
    d.builds[1] = build_of(json_array_get(builds, 1));
    return d;
}

/* What the engine makes of seat deciding `d` (the others surveying): the points the round's
 * score gives the seat and the cards it draws as income then (-1 when the game ends for want of
 * cards before anyone draws), played on a copy to the end of the round. */
struct outcome {
    int vp, income;
};

struct scored {
    int seat, vp;
    bool seen;
};

static void on_event(void *ctx, const struct city_event *e)
{
    struct scored *sc = ctx;
    if (e->type == CITY_EV_SCORED && e->seat == sc->seat) {
        sc->vp = e->count;
        sc->seen = true;
    }
}

static struct outcome play_out(const struct city_game *g, int seat, const struct city_decision *d)
{
    static struct city_game copy;
    copy = *g;
    int e = city_submit(&copy, seat, d);
    cr_assert_eq(e, CITY_OK, "a listed option is refused: %s", city_error_code(e));
    struct city_decision survey = dec_survey();
    for (int s = 0; s < copy.players; s++)
        if (s != seat && game_seat_pending(&copy, s))
            cr_assert_eq(city_submit(&copy, s, &survey), CITY_OK);
    struct scored sc = {.seat = seat};
    struct city_events ev = {on_event, &sc};
    int round = copy.round;
    while (!sc.seen) {
        cr_assert(copy.round == round && copy.step != CITY_STEP_OVER, "the round never scored");
        city_fill_defaults(&copy, NULL);
        cr_assert(city_resolve(&copy, &ev));
    }
    return (struct outcome){sc.vp, copy.ended_by_deck ? -1 : copy.seats[seat].last_income};
}

static void assert_scores(const json_t *o, struct outcome got, const char *what)
{
    cr_assert_eq(integer(o, "vp"), got.vp, "%s says %d VP; the engine scored %d", what,
                 integer(o, "vp"), got.vp);
    if (got.income >= 0)
        cr_assert_eq(integer(o, "income"), got.income, "%s says income %d; the engine drew %d",
                     what, integer(o, "income"), got.income);
}

static bool holds(const struct city_game *g, int seat, int card)
{
    return in_hand(g, seat, card);
}

/* ---- single builds ------------------------------------------------------------------------- */

struct tally {
    long options, pairs, refused, states;
};

static void check_build_scores(const struct city_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const json_t *builds = json_object_get(opt, "builds");
    for (size_t i = 0; i < json_array_size(builds); i++) {
        const json_t *b = json_array_get(builds, i);
        struct city_decision d = one(b);
        assert_scores(b, play_out(g, seat, &d), "a build option");
        t->options++;
    }
    struct city_decision survey = dec_survey();
    assert_scores(json_object_get(opt, "survey_score"), play_out(g, seat, &survey), "survey_score");
    if (json_is_true(json_object_get(opt, "contractor"))) {
        struct city_decision c = dec_contractor();
        assert_scores(json_object_get(opt, "contractor_score"), play_out(g, seat, &c),
                      "contractor_score");
    } else {
        cr_assert(json_is_null(json_object_get(opt, "contractor_score")));
    }
    t->states++;
}

Test(city_options, each_build_option_says_the_round_vp_and_income_it_would_score)
{
    struct tally t = {0};
    states(24, false, check_build_scores, &t);
    cr_assert_gt(t.options, 500, "only %ld build options were checked", t.options);
}

static void check_build_legality(const struct city_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const struct city_seat *s = &g->seats[seat];
    const json_t *builds = json_object_get(opt, "builds"),
                 *unbuildable = json_object_get(opt, "unbuildable");
    cr_assert_eq(json_array_size(builds) + json_array_size(unbuildable), s->nhand,
                 "every hand card is either buildable or unbuildable");
    for (size_t i = 0; i < json_array_size(builds); i++) {
        const json_t *b = json_array_get(builds, i);
        struct city_decision d = one(b);
        cr_assert(holds(g, seat, d.builds[0].card));
        cr_assert_eq(city_check(g, seat, &d), CITY_OK);
        cr_assert_eq(integer(b, "cost"),
                     city_effective_cost(g, seat, city_design_of(g, d.builds[0].card)));
    }
    for (size_t i = 0; i < json_array_size(unbuildable); i++) {
        const json_t *u = json_array_get(unbuildable, i);
        int card = integer(u, "id"), kind = city_design_of(g, card);
        cr_assert(holds(g, seat, card));
        /* paid with as many other cards as its cost asks, or all of them when that is fewer */
        int cost = city_effective_cost(g, seat, kind);
        int n = cost < s->nhand - 1 ? cost : s->nhand - 1, pay[CITY_MAX_COST];
        hand_cards(g, seat, card, -1, 0, n, pay);
        struct city_decision d = dec_build(card, n, pay);
        const char *reason = json_string_value(json_object_get(u, "reason"));
        cr_assert_str_eq(city_error_code(city_check(g, seat, &d)), reason,
                         "%s is refused for another reason than the %s it is listed with",
                         cat.designs[kind].id, reason);
        const json_t *needs = json_object_get(u, "needs");
        if (strcmp(reason, "prerequisite_missing") != 0) {
            cr_assert_null(needs);
            continue;
        }
        uint64_t missing = cat.hot[kind].requires & ~s->tab.owned;
        cr_assert_eq(json_array_size(needs), (size_t)__builtin_popcountll(missing));
        for (size_t k = 0; k < json_array_size(needs); k++) {
            int r = design(&cat, json_string_value(json_array_get(needs, k)));
            cr_assert(missing >> r & 1, "needs names a card the seat has or that is not required");
        }
        t->refused++;
    }
    struct city_decision c = dec_contractor();
    cr_assert_eq(json_is_true(json_object_get(opt, "contractor")), city_check(g, seat, &c) == 0);
}

Test(city_options, every_listed_build_is_accepted_and_every_other_hand_card_refused_for_its_reason)
{
    struct tally t = {0};
    states(60, false, check_build_legality, &t);
    cr_assert_gt(t.refused, 200, "only %ld unbuildable cards were checked", t.refused);
}

/* ---- Construction Gang pairs --------------------------------------------------------------- */

static void check_pair_scores(const struct city_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const json_t *doubles = json_object_get(opt, "doubles");
    cr_assert_eq(json_is_true(json_object_get(opt, "double")), json_array_size(doubles) > 0);
    for (size_t i = 0; i < json_array_size(doubles); i++) {
        const json_t *p = json_array_get(doubles, i);
        struct city_decision d = two(p);
        assert_scores(p, play_out(g, seat, &d), "a double build");
        t->pairs++;
    }
}

Test(city_options, each_construction_gang_pair_says_the_round_vp_and_income_it_would_score)
{
    struct tally t = {0};
    states(16, true, check_pair_scores, &t);
    cr_assert_gt(t.pairs, 300, "only %ld pairs were checked", t.pairs);
}

/* The payment an unlisted pair would need if it were legal: each card's effective cost, the
 * second's with the first built. */
static struct city_decision pair_of(const struct city_game *g, int seat, int a, int b)
{
    int ca = city_effective_cost(g, seat, city_design_of(g, a));
    static struct city_game after;
    after = *g;
    after.seats[seat].tableau[after.seats[seat].ntableau++] = (uint8_t)a;
    city_seat_refresh(&after, seat);
    int cb = city_effective_cost(&after, seat, city_design_of(g, b));
    const struct city_seat *s = &g->seats[seat];
    int pay[2 * CITY_MAX_COST], n = 0;
    for (int i = 0; i < s->nhand && n < ca + cb; i++)
        if (s->hand[i] != a && s->hand[i] != b)
            pay[n++] = s->hand[i];
    int na = n < ca ? n : ca;
    return dec_two(a, na, pay, b, n - na, pay + na);
}

static void check_pair_legality(const struct city_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const struct city_seat *s = &g->seats[seat];
    const json_t *doubles = json_object_get(opt, "doubles");
    bool listed[CITY_DECK_SIZE][CITY_DECK_SIZE];
    memset(listed, 0, sizeof listed);
    for (size_t i = 0; i < json_array_size(doubles); i++) {
        const json_t *p = json_array_get(doubles, i);
        struct city_decision d = two(p);
        cr_assert_eq(city_check(g, seat, &d), CITY_OK);
        cr_assert(!listed[d.builds[0].card][d.builds[1].card], "a pair is listed twice");
        listed[d.builds[0].card][d.builds[1].card] = true;
    }
    for (int i = 0; i < s->nhand; i++)
        for (int j = 0; j < s->nhand; j++) {
            int a = s->hand[i], b = s->hand[j];
            if (i == j || listed[a][b])
                continue;
            struct city_decision d = pair_of(g, seat, a, b);
            cr_assert_neq(city_check(g, seat, &d), CITY_OK, "an unlisted pair %s, %s is legal",
                          cat.designs[city_design_of(g, a)].id,
                          cat.designs[city_design_of(g, b)].id);
            t->refused++;
        }
}

Test(city_options, every_listed_pair_is_accepted_and_every_other_pair_of_hand_cards_refused)
{
    struct tally t = {0};
    states(16, true, check_pair_legality, &t);
    cr_assert_gt(t.refused, 1000);
}

/* ---- payments ------------------------------------------------------------------------------ */

/* A suggested payment is the greedy bot's: when the suggestion is a build, its pay is the
 * option's. */
static void check_pay_is_greedy(const struct city_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    struct bot bot;
    city_bot_init(&bot, BOT_GREEDY, 1);
    struct city_decision d;
    cr_assert(city_bot_decide(&bot, g, seat, &d));
    const json_t *list = json_object_get(opt, d.kind == CITY_DEC_BUILD ? "builds" : "doubles");
    if (d.kind != CITY_DEC_BUILD && d.kind != CITY_DEC_BUILD_TWO)
        return;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *o = json_array_get(list, i);
        struct city_decision mine = d.kind == CITY_DEC_BUILD ? one(o) : two(o);
        bool same = true;
        for (int k = 0; k < d.nbuilds; k++)
            same = same && mine.builds[k].card == d.builds[k].card;
        if (!same)
            continue;
        for (int k = 0; k < d.nbuilds; k++)
            cr_assert_arr_eq(mine.builds[k].pay, d.builds[k].pay, d.builds[k].npay,
                             "the option's pay is not the greedy bot's");
        t->options++;
        return;
    }
    cr_assert_fail("the greedy bot's build is not among the options");
}

Test(city_options, the_payment_each_option_suggests_is_the_one_the_greedy_bot_makes)
{
    struct tally t = {0};
    states(24, true, check_pay_is_greedy, &t);
    cr_assert_gt(t.options, 200);
}

/* ---- one position by hand ----------------------------------------------------------------- */

Test(city_options, a_card_missing_its_prerequisite_names_it_and_a_gang_lists_its_pairs_in_order)
{
    static struct city_game g;
    blank_board(&g, &cat, 2, 7);
    give_tableau(&g, 0, "construction_gang", 0);
    int schools = give_hand(&g, 0, "schools", 0);
    give_filler(&g, 0, 6);
    json_t *v = city_private_view(&g, 0);
    json_t *opt = json_object_get(json_object_get(v, "pending"), "options");
    json_t *list = json_object_get(opt, "unbuildable"), *u = NULL;
    for (size_t i = 0; i < json_array_size(list); i++)
        if (integer(json_array_get(list, i), "id") == schools)
            u = json_array_get(list, i);
    cr_assert_not_null(u, "Schools is not listed as unbuildable");
    cr_assert_str_eq(json_string_value(json_object_get(u, "reason")), "prerequisite_missing");
    json_t *needs = json_object_get(u, "needs");
    cr_assert_eq(json_array_size(needs), 1);
    cr_assert_str_eq(json_string_value(json_array_get(needs, 0)), "housing_tract");
    cr_assert(json_is_true(json_object_get(opt, "double")));
    json_t *pairs = json_object_get(opt, "doubles");
    struct city_pair want[256];
    int n = city_double_pairs(&g, 0, want, 256);
    cr_assert_eq(json_array_size(pairs), (size_t)n);
    for (int i = 0; i < n; i++) {
        const json_t *b = json_object_get(json_array_get(pairs, (size_t)i), "builds");
        cr_assert_eq(integer(json_array_get(b, 0), "id"), want[i].a);
        cr_assert_eq(integer(json_array_get(b, 1), "id"), want[i].b);
        cr_assert_eq(integer(json_array_get(b, 0), "cost"), want[i].cost_a);
        cr_assert_eq(integer(json_array_get(b, 1), "cost"), want[i].cost_b);
    }
    json_decref(v);
}
