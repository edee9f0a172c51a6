/* city_options.c: what a seat may build in step build (rules.md): the single builds open to it,
 * why a hand card is not one of them, and the Construction Gang's double builds. */
#include "city.h"
#include "city_rules.h"

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

/* The hand cards of printed cost 4 or less (only they can be either of a double build), each
 * with its design, whether the tableau as it is admits it (0) or not, and its cost now. */
struct small_cards {
    int n;
    uint8_t card[CITY_DECK_SIZE], design[CITY_DECK_SIZE];
    int8_t err[CITY_DECK_SIZE], cost[CITY_DECK_SIZE];
};

/* Fills sc from seat's hand and tableau (city_build_options() fills it on its own way). */
static void small_cards_of(const struct city_game *g, int seat, struct small_cards *sc)
{
    const struct city_seat *s = &g->seats[seat];
    const struct city_catalog *cat = g->cat;
    sc->n = 0;
    for (int i = 0; i < s->nhand; i++) {
        int d = city_design_of(g, s->hand[i]);
        if (cat->hot[d].cost <= CITY_DOUBLE_MAX_COST) {
            sc->card[sc->n] = s->hand[i];
            sc->design[sc->n] = (uint8_t)d;
            sc->err[sc->n] = (int8_t)tab_admits(cat, &s->tab, d);
            sc->cost[sc->n++] = (int8_t)tab_cost(cat, &s->tab, d);
        }
    }
}

/* Lists up to max legal double builds into out and returns how many there are, or stops at
 * the first when `any` (then returns 0 or 1). The caller has checked that the seat is pending in
 * step build and that gang_possible() holds; `gang` says whether the gang is in the tableau;
 * sc holds the seat's small cards. */
static int double_pairs(const struct city_game *g, int seat, const struct small_cards *sc,
                        struct city_pair *out, int max, bool any, bool gang)
{
    const struct city_seat *s = &g->seats[seat];
    const struct city_catalog *cat = g->cat;
    const struct city_tab *t = tab_of(g, seat);
    /* Each card's admission and cost with the tableau as it is are in sc; the first build
     * changes them only for a card that requires, repeats or is discounted by the first: worked
     * out again for those alone. */
    int ns = sc->n;
    const uint8_t *small = sc->card, *design = sc->design;
    const int8_t *err = sc->err, *cost = sc->cost;
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

int city_double_pairs(const struct city_game *g, int seat, struct city_pair *out, int max)
{
    bool gang;
    if (g->step != CITY_STEP_BUILD || !game_seat_pending(g, seat) ||
        !gang_possible(g, &g->seats[seat], &gang)) /* most of the time: no pair to look for */
        return 0;
    struct small_cards sc;
    small_cards_of(g, seat, &sc);
    return double_pairs(g, seat, &sc, out, max, false, gang);
}

void city_build_options(const struct city_game *g, int seat, struct city_build_options *out)
{
    out->nbuilds = 0; /* card[] and cost[] past nbuilds are left as they were */
    out->contractor = out->two = false;
    if (g->step != CITY_STEP_BUILD || !game_seat_pending(g, seat))
        return;
    const struct city_seat *s = &g->seats[seat];
    const struct city_catalog *cat = g->cat;
    const struct city_tab *t = tab_of(g, seat);
    /* Without branches on the cards (which are random): tab_admits() and the cost test as one
     * flag, each card written and kept only when it passes. On the way, the small cards a
     * double build would look at (small_cards_of()'s work) and whether a Construction Gang is
     * in hand (gang_possible()'s). */
    struct small_cards sc;
    int n = 0, ns = 0;
    bool gang_in_hand = false;
    for (int i = 0; i < s->nhand; i++) {
        int design = cat->card_design[s->hand[i]];
        const struct city_hot *h = &cat->hot[design];
        int cost = tab_cost(cat, t, design);
        bool admits = !h->contractor & ((t->owned & h->requires) == h->requires) &
                      (!h->limit | (t->count[design] < h->limit));
        out->card[n] = s->hand[i];
        out->cost[n] = (uint8_t)cost;
        n += admits & (cost <= s->nhand - 1);
        sc.card[ns] = s->hand[i];
        sc.design[ns] = (uint8_t)design;
        sc.err[ns] = (int8_t)!admits;
        sc.cost[ns] = (int8_t)cost;
        ns += h->cost <= CITY_DOUBLE_MAX_COST;
        gang_in_hand |= h->construction_gang;
    }
    sc.n = ns;
    out->nbuilds = (uint8_t)n;
    out->contractor = g->npool > 0 && !tab_has_contractor(g->cat, t);
    bool gang_in_tableau = (t->owned & cat->gang_designs) != 0;
    out->two = (gang_in_tableau || gang_in_hand) &&
               double_pairs(g, seat, &sc, NULL, 0, true, gang_in_tableau) > 0;
}

int city_build_blocker(const struct city_game *g, int seat, int card, uint64_t *missing)
{
    const struct city_seat *s = &g->seats[seat];
    const struct city_catalog *cat = g->cat;
    int design = city_design_of(g, card);
    *missing = cat->hot[design].requires & ~s->tab.owned;
    int err = tab_admits(cat, &s->tab, design);
    if (err == CITY_OK && tab_cost(cat, &s->tab, design) > s->nhand - 1)
        err = CITY_ERR_PAYMENT_COUNT;
    return err;
}
