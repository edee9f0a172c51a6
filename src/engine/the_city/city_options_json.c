/* city_options_json.c: the "options" of a The City seat's pending decision in its hand view:
 * every legal choice of the step, with what each would score, so that a client presents them
 * with no rule of its own (docs/rules.md, "Your options"). The rules are asked, never repeated:
 * what a seat may build and why not (city_build_options(), city_build_blocker()), the
 * Construction Gang's pairs (city_double_pairs()), what a tableau scores (city_totals_if_built()),
 * and the greedy bot's order of the hand for paying (city_bot_pay_order()). */
#include "city_json.h"
#include "city_json_util.h"

#include "city_bots.h"

#include <stdlib.h>

/* {"vp", "income"}: what seat would score this round, and draw as income, with the n designs
 * built (none: as its tableau stands). */
static json_t *score_json(const struct city_game *g, int seat, const int *designs, int n)
{
    int vp, income;
    city_totals_if_built(g, seat, designs, n, &vp, &income);
    return json_pack("{s:i, s:i}", "vp", vp, "income", income);
}

/* The suggested payment of `cost` cards: the first cards of the pay order `order` (the whole
 * hand) not marked in `used`, which it marks. */
static json_t *pay_json(const struct city_seat *s, const uint8_t *order, uint8_t *used, int cost)
{
    json_t *a = json_array();
    bool ok = a != NULL;
    for (int i = 0; ok && i < s->nhand && cost > 0; i++)
        if (!used[order[i]]) {
            used[order[i]] = 1;
            ok = push(a, json_integer(order[i]));
            cost--;
        }
    return finish(a, ok);
}

/* {"id", "card", "cost", "pay"} of one build of hand card `card` at effective cost `cost`,
 * paid from `order` past the cards marked in `used`. */
static json_t *build_json(const struct city_game *g, int seat, const uint8_t *order, uint8_t *used,
                          int card, int cost)
{
    return json_pack("{s:i, s:s, s:i, s:o}", "id", card, "card", slug(g, card), "cost", cost, "pay",
                     pay_json(&g->seats[seat], order, used, cost));
}

/* Adds "vp" and "income" with the cards of `cards` (n, at most 2) built to option o, and pushes
 * it onto array a (consuming o either way). */
static bool push_scored(json_t *a, json_t *o, const struct city_game *g, int seat,
                        const uint8_t *cards, int n)
{
    int designs[2], vp, income;
    for (int i = 0; i < n; i++)
        designs[i] = city_design_of(g, cards[i]);
    city_totals_if_built(g, seat, designs, n, &vp, &income);
    bool ok = o && put(o, "vp", json_integer(vp)) && put(o, "income", json_integer(income));
    if (!ok) {
        json_decref(o);
        return false;
    }
    return push(a, o);
}

static json_t *unbuildable_json(const struct city_game *g, int seat, int card)
{
    uint64_t missing;
    int err = city_build_blocker(g, seat, card, &missing);
    json_t *o = json_pack("{s:i, s:s, s:s}", "id", card, "card", slug(g, card), "reason",
                          city_error_code(err));
    bool ok = o != NULL;
    if (ok && err == CITY_ERR_PREREQUISITE) {
        json_t *needs = json_array();
        for (uint64_t m = missing; needs && m; m &= m - 1)
            ok = ok && push(needs, json_string(g->cat->designs[__builtin_ctzll(m)].id));
        ok = ok && put(o, "needs", needs);
    }
    return finish(o, ok);
}

/* Every legal Construction Gang pair, in city_double_pairs()'s order. */
static json_t *doubles_json(const struct city_game *g, int seat, const uint8_t *order)
{
    int n = city_double_pairs(g, seat, NULL, 0);
    struct city_pair *pairs = n ? malloc((size_t)n * sizeof *pairs) : NULL;
    json_t *a = json_array();
    bool ok = a != NULL && (n == 0 || pairs != NULL);
    if (ok)
        city_double_pairs(g, seat, pairs, n);
    for (int i = 0; ok && i < n; i++) {
        const struct city_pair *p = &pairs[i];
        uint8_t used[CITY_DECK_SIZE] = {0};
        used[p->a] = used[p->b] = 1;
        json_t *first = build_json(g, seat, order, used, p->a, p->cost_a);
        json_t *second = build_json(g, seat, order, used, p->b, p->cost_b);
        json_t *o = json_pack("{s:[o, o]}", "builds", first, second);
        ok = push_scored(a, o, g, seat, (const uint8_t[]){p->a, p->b}, 2);
    }
    free(pairs);
    return finish(a, ok);
}

static json_t *build_options(const struct city_game *g, int seat)
{
    const struct city_seat *s = &g->seats[seat];
    struct city_build_options opt;
    city_build_options(g, seat, &opt);
    uint8_t order[CITY_DECK_SIZE];
    city_bot_pay_order(g, seat, order);
    json_t *o = json_object(), *builds = json_array(), *unbuildable = json_array();
    bool ok = o && builds && unbuildable;
    uint8_t listed[CITY_DECK_SIZE] = {0};
    for (int i = 0; ok && i < opt.nbuilds; i++) {
        uint8_t used[CITY_DECK_SIZE] = {0};
        used[opt.card[i]] = listed[opt.card[i]] = 1;
        json_t *b = build_json(g, seat, order, used, opt.card[i], opt.cost[i]);
        ok = push_scored(builds, b, g, seat, &opt.card[i], 1);
    }
    for (int i = 0; ok && i < s->nhand; i++)
        if (!listed[s->hand[i]])
            ok = push(unbuildable, unbuildable_json(g, seat, s->hand[i]));
    int contractor = g->cat->contractor_design;
    if (!o) {
        json_decref(builds);
        json_decref(unbuildable);
        return NULL;
    }
    ok = put(o, "builds", builds) && ok; /* put() takes its value in any case */
    ok = put(o, "unbuildable", unbuildable) && ok;
    ok = ok && put(o, "contractor", json_boolean(opt.contractor)) &&
         put(o, "double", json_boolean(opt.two)) &&
         put(o, "doubles", opt.two ? doubles_json(g, seat, order) : json_array()) &&
         put(o, "survey_score", score_json(g, seat, NULL, 0)) &&
         put(o, "contractor_score",
             opt.contractor ? score_json(g, seat, &contractor, 1) : json_null());
    return finish(o, ok);
}

json_t *city_options_json(const struct city_game *g, int seat)
{
    if (g->step != CITY_STEP_BUILD)
        return json_pack("{s:i}", "discard", city_discard_count(g, seat));
    return build_options(g, seat);
}
