/* game_options.c: what a seat may build in step build (rules.md): the single builds open to it
 * and the Construction Gang's double builds. */
#include "game.h"
#include "game_rules.h"

#include <stddef.h>

/* True when seat may build two this step at all: a Construction Gang in its tableau, or one in
 * its hand (built as one of the two): bit tests, before any pair is looked for. */
static bool gang_possible(const struct city_game *g, const struct city_seat *s, bool *in_tableau)
{
    const struct city_catalog *cat = g->cat;
    *in_tableau = (s->tab.owned & cat->gang_designs) != 0;
    if (*in_tableau)
        return true;
    uint64_t any = 0;
    for (int i = 0; i < s->nhand; i++) /* without branches: a bit test per card */
        any |= cat->gang_cards[s->hand[i] >> 6] >> (s->hand[i] & 63);
    return any & 1u;
}

/* Lists up to max legal double builds into out and returns how many there are, or stops at
 * the first when `any` (then returns 0 or 1). The caller has checked that the seat is pending in
 * step build and that gang_possible() holds; `gang` says whether the gang is in the tableau. */
static int double_pairs(const struct city_game *g, int seat, struct city_pair *out, int max,
                        bool any, bool gang)
{
    const struct city_seat *s = &g->seats[seat];
    const struct city_catalog *cat = g->cat;
    const struct city_tab *t = tab_of(g, seat);
    /* Only cards of printed cost 4 or less can be either of the two: list them once. */
    uint8_t small[CITY_DECK_SIZE], design[CITY_DECK_SIZE];
    int ns = 0;
    for (int i = 0; i < s->nhand; i++) {
        int d = game_design_of(g, s->hand[i]);
        if (cat->hot[d].cost <= CITY_DOUBLE_MAX_COST) {
            small[ns] = s->hand[i];
            design[ns++] = (uint8_t)d;
        }
    }
    /* Each card's admission and cost with the tableau as it is; the first build changes them
     * only for a card that requires, repeats or is discounted by the first: worked out again
     * for those alone. */
    int8_t err[CITY_DECK_SIZE], cost[CITY_DECK_SIZE];
    for (int j = 0; j < ns; j++) {
        err[j] = (int8_t)tab_admits(cat, t, design[j]);
        cost[j] = (int8_t)tab_cost(cat, t, design[j]);
    }
    int n = 0;
    for (int i = 0; i < ns; i++) {
        int da = design[i];
        if ((!gang && !cat->hot[da].construction_gang) || err[i])
            continue;
        int ca = cost[i];
        if (ca > s->nhand - 2)
            continue;
        struct city_tab t2;
        bool have_t2 = false;
        uint64_t bit = 1ULL << da;
        for (int j = 0; j < ns; j++) {
            if (j == i)
                continue;
            int db = design[j], eb = err[j], cb = cost[j];
            const struct city_hot *hb = &cat->hot[db];
            if (db == da || (hb->requires & bit) || (hb->discounted_by & bit)) {
                if (!have_t2) {
                    t2 = *t;
                    tab_add(cat, &t2, da);
                    have_t2 = true;
                }
                eb = tab_admits(cat, &t2, db);
                cb = tab_cost(cat, &t2, db);
            }
            if (eb || ca + cb > s->nhand - 2)
                continue;
            if (n < max)
                out[n] = (struct city_pair){small[i], small[j], (uint8_t)ca, (uint8_t)cb};
            n++;
            if (any)
                return n;
        }
    }
    return n;
}

int game_double_pairs(const struct city_game *g, int seat, struct city_pair *out, int max)
{
    bool gang;
    if (g->step != STEP_BUILD || !game_seat_pending(g, seat) ||
        !gang_possible(g, &g->seats[seat], &gang)) /* most of the time: no pair to look for */
        return 0;
    return double_pairs(g, seat, out, max, false, gang);
}

void game_build_options(const struct city_game *g, int seat, struct city_build_options *out)
{
    out->nbuilds = 0; /* card[] and cost[] past nbuilds are left as they were */
    out->contractor = out->two = false;
    if (g->step != STEP_BUILD || !game_seat_pending(g, seat))
        return;
    const struct city_seat *s = &g->seats[seat];
    const struct city_catalog *cat = g->cat;
    const struct city_tab *t = tab_of(g, seat);
    /* Without branches on the cards (which are random): tab_admits() and the cost test as one
     * flag, each card written and kept only when it passes. */
    int n = 0;
    bool gang_in_hand = false; /* what gang_possible() asks of the hand, read on the way */
    for (int i = 0; i < s->nhand; i++) {
        int design = cat->card_design[s->hand[i]];
        const struct city_hot *h = &cat->hot[design];
        int cost = tab_cost(cat, t, design);
        bool ok = !h->contractor & ((t->owned & h->requires) == h->requires) &
                  (!h->limit | (t->count[design] < h->limit)) & (cost <= s->nhand - 1);
        out->card[n] = s->hand[i];
        out->cost[n] = (uint8_t)cost;
        n += ok;
        gang_in_hand |= h->construction_gang;
    }
    out->nbuilds = (uint8_t)n;
    out->contractor = g->npool > 0 && !tab_has_contractor(g->cat, t);
    bool gang_in_tableau = (t->owned & cat->gang_designs) != 0;
    out->two = (gang_in_tableau || gang_in_hand) &&
               double_pairs(g, seat, NULL, 0, true, gang_in_tableau) > 0;
}
