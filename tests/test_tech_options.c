/* test_tech_options.c: the legal options of Tech City's pending decision (the hand view's
 * pending.options, tech_options_json.c) against the engine itself, over many mid-game states of
 * bot games at 1 to 6 players: every build, cell, payment and use listed is an order
 * tech_check() accepts, every other one is refused, and every score an option shows is what the
 * engine scores when that very order is played on a copy of the game. */
#include "tech_helpers.h"

#include "tech_city/tech_effects.h"

TestSuite(tech_options, .init = load_tech);

/* ---- the states ---------------------------------------------------------------------------- */

typedef void (*visit_fn)(const struct tech_game *g, int seat, const json_t *opt, void *ctx);

/* Calls visit(g, seat, options) for the pending seat at every build point (step == build) or
 * effect point (step == effect) of `games` bot games, 1 to 6 players, greedy and random bots. */
static void states(int games, int step, visit_fn visit, void *ctx)
{
    static struct tech_game g;
    for (int i = 0; i < games; i++) {
        int players = 1 + i % TECH_MAX_PLAYERS;
        uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
        cr_assert_eq(tech_new(&g, &tcat, players, seed), TECH_OK);
        struct bot bots[TECH_MAX_PLAYERS];
        for (int s = 0; s < players; s++)
            bot_init(&bots[s], (i + s) % 3 ? BOT_GREEDY : BOT_RANDOM, seed + (uint64_t)s);
        while (g.step != TECH_STEP_OVER) {
            for (int s = 0; s < players; s++) {
                if (!tech_pending(&g, s))
                    continue;
                if (g.step == step) {
                    json_t *v = tech_private_view(&g, s);
                    json_t *opt = json_object_get(json_object_get(v, "pending"), "options");
                    cr_assert(json_is_object(opt));
                    visit(&g, s, opt, ctx);
                    json_decref(v);
                }
                struct tech_decision d;
                cr_assert(tech_bot_decide(&bots[s], &g, s, &d));
                cr_assert_eq(tech_submit(&g, s, &d), TECH_OK);
            }
            cr_assert(tech_resolve(&g, NULL));
        }
    }
}

struct tally {
    long checked, refused, skipped;
};

/* ---- reading options ----------------------------------------------------------------------- */

static int integer(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "option field \"%s\" is not an integer", key);
    return (int)json_integer_value(v);
}

static bool listed_int(const json_t *a, int x)
{
    for (size_t i = 0; i < json_array_size(a); i++)
        if (json_integer_value(json_array_get(a, i)) == x)
            return true;
    return false;
}

static bool listed_cell(const json_t *a, int x, int y)
{
    for (size_t i = 0; i < json_array_size(a); i++)
        if (integer(json_array_get(a, i), "x") == x && integer(json_array_get(a, i), "y") == y)
            return true;
    return false;
}

/* The build of option b into cell c paying b's suggested payment, named as `name` (a
 * {"value", "domain"} for a wild card, else NULL). */
static struct tech_decision build_of(const json_t *b, const json_t *c, const json_t *name)
{
    const json_t *pay = json_object_get(b, "pay");
    cr_assert(json_array_size(pay) <= 2);
    int p0 = (int)json_integer_value(json_array_get(pay, 0));
    int p1 = (int)json_integer_value(json_array_get(pay, 1));
    struct tech_decision d =
        tk_build(integer(b, "id"), integer(c, "x"), integer(c, "y"), (int)json_array_size(pay),
                 json_array_size(pay) > 0 ? p0 : 0, json_array_size(pay) > 1 ? p1 : 0);
    if (name) {
        d.as_value = (int8_t)integer(name, "value");
        d.as_domain =
            (int8_t)tech_domain_from_name(json_string_value(json_object_get(name, "domain")));
    }
    return d;
}

/* The points seat scores when it plays `d` on a copy of g, every other seat with a card helping
 * a service; -1 when the service was not built for want of help. */
static int play_out(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    static struct tech_game copy;
    copy = *g;
    int before = copy.seats[seat].score;
    int e = tech_submit(&copy, seat, d);
    cr_assert_eq(e, TECH_OK, "a listed option is refused: %s", tech_error_code(e));
    struct tk_log log = {0};
    struct tech_events ev = {tk_record, &log};
    cr_assert(tech_resolve(&copy, &ev));
    if (copy.step == TECH_STEP_HELP && g->step == TECH_STEP_BUILD) {
        for (int s = 0; s < copy.players; s++) {
            if (!tech_pending(&copy, s))
                continue;
            struct tech_decision h = tk_pass();
            h.kind = TDEC_HELP;
            h.card = copy.seats[s].hand[0];
            cr_assert_eq(tech_submit(&copy, s, &h), TECH_OK);
        }
        cr_assert(tech_resolve(&copy, &ev));
    }
    if (tk_count(&log, TEV_SERVICE_FAILED))
        return -1;
    return copy.seats[seat].score - before;
}

/* ---- builds -------------------------------------------------------------------------------- */

static void check_build_scores(const struct tech_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const json_t *builds = json_object_get(opt, "builds"), *cells = json_object_get(opt, "cells");
    for (size_t i = 0; i < json_array_size(builds); i++) {
        const json_t *b = json_array_get(builds, i), *scores = json_object_get(b, "scores");
        const json_t *as = json_object_get(b, "as"), *names = json_object_get(b, "names");
        bool wild = tech_design_of(g, integer(b, "id"))->domain == DOMAIN_WILD;
        cr_assert_eq(wild, as != NULL, "\"as\" is for a wild card alone");
        cr_assert_eq(json_array_size(scores), json_array_size(cells), "a score for each cell");
        for (size_t k = 0; k < json_array_size(cells); k++) {
            const json_t *c = json_array_get(cells, k);
            struct tech_decision d = build_of(b, c, wild ? as : NULL);
            int got = play_out(g, seat, &d),
                says = (int)json_integer_value(json_array_get(scores, k));
            if (got < 0) {
                t->skipped++;
                continue;
            }
            cr_assert_eq(says, got, "%s at (%d,%d) says %d; the engine scored %d",
                         tech_design_of(g, d.card)->id, d.x, d.y, says, got);
            cr_assert_eq(json_is_true(json_object_get(c, "near")),
                         tech_neighbour_point(g, seat, d.x, d.y) == 1);
            t->checked++;
            /* a wild card: each name it may take scores that name's score and the cell's
             * neighbour point */
            for (size_t n = 0; wild && n < json_array_size(names); n++) {
                const json_t *name = json_array_get(names, n);
                d = build_of(b, c, name);
                int want = integer(name, "score") + json_is_true(json_object_get(c, "near"));
                cr_assert_eq(play_out(g, seat, &d), want, "a wild card's name scores otherwise");
            }
        }
    }
}

Test(tech_options, each_build_option_says_the_score_it_would_make_in_each_cell)
{
    struct tally t = {0};
    states(36, TECH_STEP_BUILD, check_build_scores, &t);
    cr_assert_gt(t.checked, 5000, "only %ld builds were checked", t.checked);
}

/* Whether paying `n` cards pay[0..n) for b's card at cell c is legal. */
static int try_pay(const struct tech_game *g, int seat, const json_t *b, const json_t *c, int n,
                   int p0, int p1)
{
    struct tech_decision d = build_of(b, c, json_object_get(b, "as"));
    d.npay = (uint8_t)n;
    d.pay[0] = (uint8_t)p0;
    d.pay[1] = (uint8_t)p1;
    return tech_check(g, seat, &d);
}

static void check_payments(const struct tech_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const struct tech_seat *s = &g->seats[seat];
    const json_t *builds = json_object_get(opt, "builds"), *cells = json_object_get(opt, "cells");
    const json_t *unbuildable = json_object_get(opt, "unbuildable");
    cr_assert_eq(json_array_size(builds) + json_array_size(unbuildable), s->nhand,
                 "every hand card is either buildable or unbuildable");
    const json_t *c = json_array_get(cells, 0);
    cr_assert_not_null(c, "a city always has an open cell");
    for (size_t i = 0; i < json_array_size(builds); i++) {
        const json_t *b = json_array_get(builds, i);
        const json_t *counts = json_object_get(b, "pay_counts"),
                     *alone = json_object_get(b, "pays_alone");
        int card = integer(b, "id");
        cr_assert_eq(try_pay(g, seat, b, c, 0, 0, 0) == TECH_OK, listed_int(counts, 0),
                     "paying nothing for %s", tech_design_of(g, card)->id);
        for (int x = 0; x < s->nhand; x++) {
            int p = s->hand[x];
            if (p == card)
                continue;
            bool ok = try_pay(g, seat, b, c, 1, p, 0) == TECH_OK;
            cr_assert_eq(ok, listed_int(counts, 1) && listed_int(alone, p),
                         "paying %s alone for %s", tech_design_of(g, p)->id,
                         tech_design_of(g, card)->id);
            cr_assert(!listed_int(alone, p) || listed_int(counts, 1));
            for (int y = x + 1; y < s->nhand; y++) {
                if (s->hand[y] == card)
                    continue;
                ok = try_pay(g, seat, b, c, 2, p, s->hand[y]) == TECH_OK;
                cr_assert_eq(ok, listed_int(counts, 2), "paying two cards for %s",
                             tech_design_of(g, card)->id);
                t->checked++;
            }
        }
    }
    /* a card listed as unbuildable is refused with its reason whatever it is paid with:
     * nothing, any other card, any two */
    for (size_t i = 0; i < json_array_size(unbuildable); i++) {
        const json_t *u = json_array_get(unbuildable, i);
        const char *reason = json_string_value(json_object_get(u, "reason"));
        int card = integer(u, "id"), x = integer(c, "x"), y = integer(c, "y");
        const json_t *name = json_array_get(json_object_get(opt, "wild_names"), 0);
        bool wild = tech_design_of(g, card)->domain == DOMAIN_WILD;
        struct tech_decision d = tk_build(card, x, y, 0, 0, 0);
        for (int a = -1; a < s->nhand; a++) /* a = -1: nothing; b = a: one card; else two */
            for (int b = a; b < (a < 0 ? 0 : s->nhand); b++) {
                if ((a >= 0 && s->hand[a] == card) || (b >= 0 && s->hand[b] == card))
                    continue;
                d = tk_build(card, x, y,
                             a < 0    ? 0
                             : a == b ? 1
                                      : 2,
                             a >= 0 ? s->hand[a] : 0, b >= 0 ? s->hand[b] : 0);
                if (wild) {
                    d.as_value = (int8_t)integer(name, "value");
                    d.as_domain = (int8_t)tech_domain_from_name(
                        json_string_value(json_object_get(name, "domain")));
                }
                cr_assert_str_eq(tech_error_code(tech_check(g, seat, &d)), reason);
                t->refused++;
            }
    }
}

Test(tech_options, every_payment_the_options_allow_is_accepted_and_every_other_refused)
{
    struct tally t = {0};
    states(60, TECH_STEP_BUILD, check_payments, &t);
    cr_assert_gt(t.checked, 2000, "only %ld payments were checked", t.checked);
}

static void check_cells(const struct tech_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const json_t *builds = json_object_get(opt, "builds"), *cells = json_object_get(opt, "cells");
    if (!json_array_size(builds))
        return;
    const json_t *b = json_array_get(builds, 0);
    int lo = 0, hi = 0;
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        lo = g->cx[c] < lo ? g->cx[c] : g->cy[c] < lo ? g->cy[c] : lo;
        hi = g->cx[c] > hi ? g->cx[c] : g->cy[c] > hi ? g->cy[c] : hi;
    }
    for (int x = lo - 2; x <= hi + 2; x++)
        for (int y = lo - 2; y <= hi + 2; y++) {
            json_t *cell = json_pack("{s:i, s:i}", "x", x, "y", y);
            struct tech_decision d = build_of(b, cell, json_object_get(b, "as"));
            bool ok = tech_check(g, seat, &d) == TECH_OK;
            cr_assert_eq(ok, listed_cell(cells, x, y), "cell (%d,%d) is %s but %s", x, y,
                         ok ? "legal" : "illegal", ok ? "not listed" : "listed");
            t->checked += ok;
            t->refused += !ok;
            json_decref(cell);
        }
}

Test(tech_options, every_open_cell_is_listed_and_every_other_cell_refused)
{
    struct tally t = {0};
    states(36, TECH_STEP_BUILD, check_cells, &t);
    cr_assert_gt(t.refused, 10000);
}

/* ---- effects ------------------------------------------------------------------------------- */

/* The use of city card `card` with the given choices (TECH_NONE / NULL: left out). */
static struct tech_decision use_of(const struct tech_game *g, int card, bool free, int hand,
                                   int take, int target, int to, int victim)
{
    struct tech_decision d = tk_use(g->cx[card], g->cy[card]);
    d.free = free;
    d.card = (uint8_t)hand;
    d.take = (uint8_t)take;
    d.victim = (uint8_t)victim;
    if (target != TECH_NONE) {
        d.has_target = true;
        d.tx = g->cx[target];
        d.ty = g->cy[target];
    }
    if (to != TECH_NONE) {
        d.has_to = true;
        d.ux = g->cx[to];
        d.uy = g->cy[to];
    }
    return d;
}

/* Card instance at a listed cell. */
static int at(const struct tech_game *g, const json_t *cell)
{
    int c = tech_card_at(g, integer(cell, "x"), integer(cell, "y"));
    cr_assert_neq(c, TECH_NONE, "a listed cell is empty");
    return c;
}

/* The first listed value of choice `key` of use u other than `target` (TECH_NONE when the
 * effect takes none, or none is left: "to" must differ from the target). */
static int first(const struct tech_game *g, const json_t *u, const char *key, int target)
{
    const json_t *a = json_object_get(json_object_get(u, "choices"), key);
    if (!a)
        return TECH_NONE;
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *v = json_array_get(a, i);
        int x = json_is_integer(v) ? (int)json_integer_value(v) : at(g, v);
        if (x != target)
            return x;
    }
    return TECH_NONE;
}

/* The use that option u describes, with the first legal value of each choice. */
static struct tech_decision use_option(const struct tech_game *g, const json_t *u, bool free)
{
    int card = integer(u, "id");
    int target = first(g, u, "target", TECH_NONE);
    return use_of(g, card, free, first(g, u, "card", TECH_NONE), first(g, u, "take", TECH_NONE),
                  target, first(g, u, "to", target), first(g, u, "victim", TECH_NONE));
}

static const json_t *use_entry(const json_t *uses, int card)
{
    for (size_t i = 0; i < json_array_size(uses); i++)
        if (integer(json_array_get(uses, i), "id") == card)
            return json_array_get(uses, i);
    return NULL;
}

/* Each value of each choice of listed use u is accepted exactly when it is listed. */
static void check_choices(const struct tech_game *g, int seat, const json_t *u, struct tally *t)
{
    int card = integer(u, "id");
    bool free = !json_is_true(json_object_get(u, "normal"));
    unsigned want = tech_effect_choices(tech_design_of(g, card)->effect.prim);
    const json_t *choices = json_object_get(u, "choices");
    static const char *const keys[] = {"card", "take", "target", "to", "victim"};
    for (int k = 0; k < 5; k++)
        cr_assert_eq(json_object_get(choices, keys[k]) != NULL, (want >> k & 1) != 0,
                     "choice \"%s\" is listed exactly when the effect takes it", keys[k]);
    const struct tech_seat *s = &g->seats[seat];
    struct tech_decision base = use_option(g, u, free);
    for (int i = 0; (want & CHOICE_CARD) && i < s->nhand; i++) {
        struct tech_decision d = base;
        d.card = s->hand[i];
        cr_assert_eq(tech_check(g, seat, &d) == TECH_OK,
                     listed_int(json_object_get(choices, "card"), d.card));
        t->checked++;
    }
    for (int i = 0; (want & CHOICE_TAKE) && i < g->ndiscard; i++) {
        struct tech_decision d = base;
        d.take = g->discard[i];
        cr_assert_eq(tech_check(g, seat, &d) == TECH_OK,
                     listed_int(json_object_get(choices, "take"), d.take));
        t->checked++;
    }
    for (int v = 0; (want & CHOICE_VICTIM) && v < g->players; v++) {
        struct tech_decision d = base;
        d.victim = (uint8_t)v;
        cr_assert_eq(tech_check(g, seat, &d) == TECH_OK,
                     listed_int(json_object_get(choices, "victim"), v));
        t->checked++;
    }
    /* cells: a target with the first listed "to" that differs from it, and the reverse */
    for (int i = 0; (want & CHOICE_TARGET) && i < g->ncity; i++) {
        int c = g->city[i];
        struct tech_decision d = base;
        int to = (want & CHOICE_TO) ? first(g, u, "to", c) : TECH_NONE;
        d = use_of(g, card, free, base.card, base.take, c, to, base.victim);
        cr_assert_eq(tech_check(g, seat, &d) == TECH_OK,
                     listed_cell(json_object_get(choices, "target"), g->cx[c], g->cy[c]),
                     "target (%d,%d) of %s", g->cx[c], g->cy[c], tech_design_of(g, card)->id);
        if (want & CHOICE_TO) {
            int target = first(g, u, "target", c);
            d = use_of(g, card, free, base.card, base.take, target, c, base.victim);
            cr_assert_eq(tech_check(g, seat, &d) == TECH_OK,
                         listed_cell(json_object_get(choices, "to"), g->cx[c], g->cy[c]),
                         "\"to\" (%d,%d) of %s", g->cx[c], g->cy[c], tech_design_of(g, card)->id);
        }
        t->checked++;
    }
}

/* No order using city card `card` (normally or freely, with any values of its choices) is
 * accepted. */
static void check_unusable(const struct tech_game *g, int seat, int card, struct tally *t)
{
    unsigned want = tech_effect_choices(tech_design_of(g, card)->effect.prim);
    const struct tech_seat *s = &g->seats[seat];
    /* the values each choice may take, TECH_NONE alone when it takes none or has none */
    int hands[TECH_MAX_CARDS + 1], takes[TECH_MAX_CARDS + 1], cells[TECH_MAX_CARDS + 1],
        victims[TECH_MAX_PLAYERS + 1];
    int nh = 0, nt = 0, nc = 0, nv = 0;
    for (int i = 0; (want & CHOICE_CARD) && i < s->nhand; i++)
        hands[nh++] = s->hand[i];
    for (int i = 0; (want & CHOICE_TAKE) && i < g->ndiscard; i++)
        takes[nt++] = g->discard[i];
    for (int i = 0; (want & CHOICE_TARGET) && i < g->ncity; i++)
        cells[nc++] = g->city[i];
    for (int v = 0; (want & CHOICE_VICTIM) && v < g->players; v++)
        victims[nv++] = v;
    if (!nh)
        hands[nh++] = TECH_NONE;
    if (!nt)
        takes[nt++] = TECH_NONE;
    if (!nc)
        cells[nc++] = TECH_NONE;
    if (!nv)
        victims[nv++] = TECH_NONE;
    int ntos = (want & CHOICE_TO) ? nc : 1;
    for (int free = 0; free < 2; free++)
        for (int h = 0; h < nh; h++)
            for (int k = 0; k < nt; k++)
                for (int a = 0; a < nc; a++)
                    for (int b = 0; b < ntos; b++)
                        for (int v = 0; v < nv; v++) {
                            struct tech_decision d =
                                use_of(g, card, free, hands[h], takes[k], cells[a],
                                       (want & CHOICE_TO) ? cells[b] : TECH_NONE, victims[v]);
                            cr_assert_neq(tech_check(g, seat, &d), TECH_OK,
                                          "%s can be used but is not listed",
                                          tech_design_of(g, card)->id);
                            t->refused++;
                        }
}

static void check_uses(const struct tech_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const json_t *uses = json_object_get(opt, "uses");
    for (int i = 0; i < g->ncity; i++) {
        int card = g->city[i];
        const json_t *u = use_entry(uses, card);
        if (!u) {
            check_unusable(g, seat, card, t);
            continue;
        }
        cr_assert_eq(integer(u, "x"), g->cx[card]);
        cr_assert_eq(integer(u, "y"), g->cy[card]);
        bool normal = json_is_true(json_object_get(u, "normal"));
        bool free = json_is_true(json_object_get(u, "free"));
        cr_assert(normal || free);
        struct tech_decision d = use_option(g, u, false);
        cr_assert_eq(tech_check(g, seat, &d) == TECH_OK, normal, "normal use of %s",
                     tech_design_of(g, card)->id);
        d.free = true;
        cr_assert_eq(tech_check(g, seat, &d) == TECH_OK, free, "free use of %s",
                     tech_design_of(g, card)->id);
        d.free = !normal;
        d.owner_first = true;
        cr_assert_eq(tech_check(g, seat, &d) == TECH_OK,
                     json_is_true(json_object_get(u, "owner_first")), "owner_first on %s",
                     tech_design_of(g, card)->id);
        check_choices(g, seat, u, t);
    }
}

Test(tech_options,
     each_use_lists_exactly_the_choices_the_engine_accepts_and_no_other_card_is_usable)
{
    struct tally t = {0};
    states(36, TECH_STEP_EFFECT, check_uses, &t);
    cr_assert_gt(t.checked, 5000, "only %ld choices were checked", t.checked);
    cr_assert_gt(t.refused, 1000, "only %ld unlisted uses were checked", t.refused);
}

static void check_use_scores(const struct tech_game *g, int seat, const json_t *opt, void *ctx)
{
    struct tally *t = ctx;
    const json_t *uses = json_object_get(opt, "uses");
    for (size_t i = 0; i < json_array_size(uses); i++) {
        const json_t *u = json_array_get(uses, i);
        struct tech_decision d = use_option(g, u, !json_is_true(json_object_get(u, "normal")));
        int got = play_out(g, seat, &d);
        cr_assert_eq(integer(u, "score"), got, "using %s says %d; the engine scored %d",
                     tech_design_of(g, integer(u, "id"))->id, integer(u, "score"), got);
        t->checked += got > 0;
    }
}

Test(tech_options, each_use_says_the_score_it_would_make)
{
    struct tally t = {0};
    states(60, TECH_STEP_EFFECT, check_use_scores, &t);
    cr_assert_gt(t.checked, 20, "only %ld scoring uses were seen", t.checked);
}
