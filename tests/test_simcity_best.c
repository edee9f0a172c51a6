/* test_simcity_best.c: the search for a hand's best plays (sc_best.c) gives exactly what
 * weighing every legal play gives, for several ways of weighing, numbers of plays, bars and
 * with or without votes, at every play point of bot games at 2 to 6 players; and the bounds it
 * prunes by are never below what a legal play scores, and the plays it drops unchecked for a
 * restriction of where their card goes are plays the rules refuse. */
#include <math.h>

#include "sc_helpers.h"

#include "simcity/sc_bots.h"

TestSuite(simcity_best, .init = load_sc, .timeout = 240);

/* Weighings that keep sc_best_plays()'s contract: by score alone; the greedy bot's shape (a vote
 * at 0.8, a bonus by card, events by their block, and cents by card and cell to break ties),
 * also with a bound of its targeted events' worth; and a flat one where many plays tie. */
static double by_score(void *ctx, const struct sc_option *o)
{
    (void)ctx;
    return o->mode == SC_MODE_EVENT ? 0.5 : o->score;
}

static double greedy_shape(void *ctx, const struct sc_option *o)
{
    (void)ctx;
    if (o->mode == SC_MODE_EVENT)
        return (o->x + o->y) / 3.0;
    if (o->mode == SC_MODE_VOTE)
        return 0.8 * o->score;
    return o->score + (o->card % 7) * 0.25;
}

/* A bound of greedy_shape()'s worth of a targeted event's play: (x + y) / 3 on the largest
 * surface. */
static double shape_event_bound(void *ctx, int card)
{
    (void)ctx;
    (void)card;
    return 2.0 * (SC_STRIDE - 1) / 3.0;
}

static double cents(void *ctx, const struct sc_option *o)
{
    (void)ctx;
    return 0.01 *
           (double)((o->card * 31u + (unsigned)(o->x + 1) * 17u + (unsigned)(o->y + 1) * 7u) %
                    100u) /
           100.0;
}

static double flat(void *ctx, const struct sc_option *o)
{
    (void)ctx;
    return o->mode == SC_MODE_EVENT ? 1 : o->score / 4 - 1; /* (integer steps: ties) */
}

static int compared;

static void agrees(const struct sc_game *g, int seat)
{
    const struct sc_weigh ways[4] = {{by_score, NULL, NULL, 0, NULL},
                                     {greedy_shape, cents, NULL, 0.01, NULL},
                                     {flat, NULL, NULL, 0, NULL},
                                     {greedy_shape, cents, NULL, 0.01, shape_event_bound}};
    const int ks[3] = {1, 2, 4};
    const double bars[3] = {-HUGE_VAL, 0.25, 6};
    for (int w = 0; w < 4; w++)
        for (int ki = 0; ki < 3; ki++)
            for (int bi = 0; bi < 3; bi++)
                for (int votes = 0; votes < 2; votes++) {
                    struct sc_ranked a[4], b[4];
                    int k = ks[ki];
                    int na = sc_best_plays(g, seat, votes, bars[bi], &ways[w], a, k);
                    int nb = sc_best_plays_all(g, seat, votes, bars[bi], &ways[w], b, k);
                    cr_assert_eq(
                        na, nb, "seed %llu turn %d way %d k %d bar %g votes %d: %d plays, not %d",
                        (unsigned long long)g->seed, g->turn, w, k, bars[bi], votes, na, nb);
                    for (int i = 0; i < na; i++) {
                        cr_assert(a[i].o.card == b[i].o.card && a[i].o.x == b[i].o.x &&
                                      a[i].o.y == b[i].o.y && a[i].o.mode == b[i].o.mode &&
                                      a[i].o.score == b[i].o.score && a[i].worth == b[i].worth &&
                                      a[i].order == b[i].order,
                                  "seed %llu turn %d way %d k %d bar %g votes %d, play %d: card %d "
                                  "(%d,%d) worth %g, not card %d (%d,%d) worth %g",
                                  (unsigned long long)g->seed, g->turn, w, k, bars[bi], votes, i,
                                  a[i].o.card, a[i].o.x, a[i].o.y, a[i].worth, b[i].o.card,
                                  b[i].o.x, b[i].o.y, b[i].worth);
                    }
                    compared++;
                }
}

static int bounded;

static void bounds_hold(const struct sc_game *g, int seat)
{
    static struct sc_option opts[SC_CELLS * SC_MAX_CARDS];
    int n = sc_play_options(g, seat, opts, SC_CELLS * SC_MAX_CARDS, true);
    for (int i = 0; i < n; i++) {
        if (opts[i].mode == SC_MODE_EVENT)
            continue;
        int top, cell = sc_cell(g, opts[i].x, opts[i].y);
        int bound = sc_play_bound(g, opts[i].card, cell, &top);
        cr_assert_geq(bound, opts[i].score,
                      "seed %llu turn %d: %s at (%d,%d) scores %d over its bound %d",
                      (unsigned long long)g->seed, g->turn, sc_design_of(g, opts[i].card)->id,
                      opts[i].x, opts[i].y, opts[i].score, bound);
        cr_assert_geq(top, bound, "%s: the card's bound %d is below a cell's %d",
                      sc_design_of(g, opts[i].card)->id, top, bound);
        bounded++;
    }
}

/* Plays bot games (greedy, or greedy and random by turns), calling check at every play point
 * with the seat to play. */
static void play_checking(int players, uint64_t seed, bool mixed,
                          void (*check)(const struct sc_game *, int))
{
    static struct sc_game g;
    cr_assert_eq(sc_new(&g, &scat, players, seed, 0), SC_OK);
    struct bot bots[SC_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        bot_init(&bots[s], mixed && s % 2 ? BOT_RANDOM : BOT_GREEDY, seed * 7 + (uint64_t)s);
    for (int points = 0; !sc_over(&g); points++) {
        cr_assert_lt(points, 20000);
        for (int s = 0; s < players; s++) {
            if (g.step == SC_STEP_PLAY && sc_pending(&g, s))
                check(&g, s);
            struct sc_decision d;
            if (sc_bot_decide(&bots[s], &g, s, &d))
                cr_assert_eq(sc_submit(&g, s, &d), SC_OK);
        }
        if (!sc_ready(&g))
            sc_fill_defaults(&g, NULL);
        cr_assert(sc_resolve(&g, NULL));
    }
}

Test(simcity_best, the_best_plays_are_those_weighing_every_play_gives)
{
    for (int p = 1; p <= SC_MAX_PLAYERS; p++)
        for (uint64_t seed = 1; seed <= 2; seed++)
            play_checking(p, seed * 7919 + (uint64_t)p, seed == 2, agrees);
    cr_expect_gt(compared, 10000, "only %d comparisons", compared);
}

Test(simcity_best, no_legal_play_scores_more_than_its_bound)
{
    for (int p = 2; p <= SC_MAX_PLAYERS; p += 2)
        for (uint64_t seed = 1; seed <= 3; seed++)
            play_checking(p, seed * 104729 + (uint64_t)p, seed == 3, bounds_hold);
    cr_expect_gt(bounded, 20000, "only %d plays bounded", bounded);
}

static int refused;

/* Every block of the catalog at every cell: where sc_restricted_at() drops a play before it is
 * checked (it must cover a block it does not find, or have a neighbour it lacks), the rules
 * refuse it too. */
static void restrictions_hold(const struct sc_game *g, int seat)
{
    (void)seat;
    for (int k = 0; k < g->cat->ndesigns; k++) {
        const struct sc_design *d = &g->cat->designs[k];
        if (d->kind == SC_KIND_EVENT || !sc_restricted(d))
            continue;
        SC_FOR_CELLS(g, c)
        {
            int mode = 0;
            if (!sc_restricted_at(g, d, c))
                continue;
            cr_assert_neq(sc_card_check(g, d, sc_x(c), sc_y(c), &mode, sc_position_scan(g)), SC_OK,
                          "seed %llu turn %d: %s at (%d,%d) was dropped but is legal",
                          (unsigned long long)g->seed, g->turn, d->id, sc_x(c), sc_y(c));
            refused++;
        }
    }
}

Test(simcity_best, a_play_dropped_for_its_restriction_is_one_the_rules_refuse)
{
    for (int p = 2; p <= SC_MAX_PLAYERS; p += 2)
        for (uint64_t seed = 1; seed <= 3; seed++)
            play_checking(p, seed * 15485863 + (uint64_t)p, seed == 3, restrictions_hold);
    cr_expect_gt(refused, 10000, "only %d plays dropped", refused);
}
