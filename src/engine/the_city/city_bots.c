/* city_bots.c: the random bot (uniform over the kinds of legal decision, then random cards) and
 * the greedy bot (values points and income over the rounds it expects to remain against the
 * cards it spends, and pays with the cards least worth keeping). */
#include "city_bots.h"

#include <math.h>
#include <string.h>

void city_bot_init(struct bot *b, int kind, uint64_t seed)
{
    bot_init(b, kind, seed ^ 0x5bd1e9955bd1e995ULL);
}

/* ---- random ------------------------------------------------------------------------------ */

/* Picks k distinct cards at random from the hand less the (at most two) cards a and b (-1 for
 * none). */
static void random_cards(struct city_rng *r, const struct city_seat *s, int a, int b, int k,
                         uint8_t *out)
{
    uint8_t pool[CITY_DECK_SIZE];
    int n = s->nhand;
    if (a < 0 && b < 0) { /* the whole hand: copied in fixed pieces, no loop */
        memcpy(pool, s->hand, 64);
        memcpy(pool + 64, s->hand + 64, CITY_DECK_SIZE - 64);
    } else {
        n = 0;
        for (int i = 0; i < s->nhand; i++) { /* without branches */
            pool[n] = s->hand[i];
            n += s->hand[i] != a && s->hand[i] != b;
        }
    }
    struct city_rng local = *r; /* out[] is bytes, which may alias *r: see rng_shuffle() */
    for (int i = 0; i < k; i++) {
        int j = i + (int)rng_below(&local, (uint32_t)(n - i));
        uint8_t t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
        out[i] = pool[i];
    }
    *r = local;
}

static void random_build(struct bot *b, const struct city_game *g, int seat,
                         struct city_decision *d)
{
    const struct city_seat *s = &g->seats[seat];
    struct city_build_options o;
    city_build_options(g, seat, &o);
    int n = o.nbuilds + o.contractor + o.two + 1;
    int pick = (int)rng_below(&b->rng, (uint32_t)n);
    if (pick < o.nbuilds) {
        d->kind = CITY_DEC_BUILD;
        d->nbuilds = 1;
        d->builds[0].card = o.card[pick];
        d->builds[0].npay = o.cost[pick];
        random_cards(&b->rng, s, o.card[pick], -1, o.cost[pick], d->builds[0].pay);
        return;
    }
    pick -= o.nbuilds;
    if (o.contractor && pick-- == 0) {
        d->kind = CITY_DEC_CONTRACTOR;
        return;
    }
    if (o.two && pick-- == 0) {
        struct city_pair pairs[256];
        int np = city_double_pairs(g, seat, pairs, 256);
        if (np > 256)
            np = 256;
        const struct city_pair *p = &pairs[rng_below(&b->rng, (uint32_t)np)];
        d->kind = CITY_DEC_BUILD_TWO;
        d->nbuilds = 2;
        d->builds[0].card = p->a;
        d->builds[1].card = p->b;
        d->builds[0].npay = p->cost_a;
        d->builds[1].npay = p->cost_b;
        uint8_t pay[2 * CITY_MAX_COST];
        random_cards(&b->rng, s, p->a, p->b, p->cost_a + p->cost_b, pay);
        memcpy(d->builds[0].pay, pay, p->cost_a);
        memcpy(d->builds[1].pay, pay + p->cost_a, p->cost_b);
        return;
    }
    d->kind = CITY_DEC_SURVEY;
}

/* ---- greedy ------------------------------------------------------------------------------ */

/* Rounds the bot expects to remain, this one included: the leader's score grows by its
 * current rate, which itself grows a little each round. */
static int rounds_left(const struct city_game *g)
{
    int vp = 0, rate = 0;
    for (int s = 0; s < g->players; s++) {
        int r = city_seat_round_vp(g, s);
        if (g->seats[s].vp + r > vp + rate) {
            vp = g->seats[s].vp;
            rate = r;
        }
    }
    int k = 0;
    while (vp < g->target_vp && k < 10) {
        rate += 2;
        vp += rate;
        k++;
    }
    return k < 1 ? 1 : k;
}

/* What one card in hand is worth, in victory points, with `rounds` rounds to go (this one
 * included): it pays toward a build that scores in the rounds after it, so a card is worth
 * nearly nothing in the last round. */
static double card_worth(int rounds)
{
    return 0.08 + 0.55 * (rounds - 1);
}

struct valuation {
    int rounds;
    double worth;  /* of a card in hand now */
    double income; /* of one more card of income every round from now on */
    /* The seat's own, worked out once per decision: its points per round and income now, and
     * the designs in its hand with how many copies of each. */
    int base_vp, base_income;
    uint64_t hand_designs;
    uint8_t in_hand[CITY_MAX_DESIGNS];
};

static void valuation_of(const struct city_game *g, struct valuation *v)
{
    v->rounds = rounds_left(g);
    v->worth = card_worth(v->rounds);
    v->income = 0;
    for (int k = 1; k < v->rounds; k++)
        v->income += card_worth(v->rounds - k);
}

/* valuation_of() and the seat's own part of *v. */
static void valuation_for(const struct city_game *g, int seat, struct valuation *v)
{
    valuation_of(g, v);
    v->base_vp = city_seat_round_vp(g, seat);
    v->base_income = city_seat_income(g, seat);
    const struct city_seat *s = &g->seats[seat];
    memset(v->in_hand, 0, sizeof v->in_hand);
    v->hand_designs = 0;
    for (int i = 0; i < s->nhand; i++) {
        int h = city_design_of(g, s->hand[i]);
        v->in_hand[h]++;
        v->hand_designs |= 1ULL << h;
    }
}

/* True when seat `seat` owns a copy of design `design` (read from its tableau summary). */
static bool owns(const struct city_game *g, int seat, int design)
{
    return (g->seats[seat].tab.owned >> design) & 1u;
}

/* What a design is worth beyond its points and income: a discount on cards in hand, a
 * Construction Gang's second build, or a prerequisite for cards in hand. */
static double potential(const struct city_game *g, int seat, const struct valuation *v, int design)
{
    const struct city_catalog *cat = g->cat;
    const struct city_design *d = &cat->designs[design];
    if (v->rounds <= 1 || owns(g, seat, design))
        return 0;
    double bonus = 0;
    /* Hand cards of other designs that it discounts, and that require it (as often as their
     * lists name it), counted per design in hand. */
    int helped = 0, enabled = 0;
    for (uint64_t m = v->hand_designs & ~(1ULL << design); m; m &= m - 1) {
        int h = __builtin_ctzll(m);
        if (d->discount && (d->discount_to & (1ULL << h)))
            helped += v->in_hand[h];
        if (!((cat->hot[h].requires >> design) & 1u)) /* the list below cannot name it */
            continue;
        for (int r = 0; r < cat->designs[h].nrequires; r++)
            if (cat->designs[h].requires[r] == design)
                enabled += v->in_hand[h];
    }
    if (d->discount)
        bonus += d->discount * v->worth * (0.4 + (helped > 2 ? 2 : helped) * 0.8);
    if (enabled)
        bonus += v->worth * (enabled > 2 ? 2 : enabled) * 0.6;
    if (d->construction_gang)
        bonus += v->worth * 0.25 * (v->rounds - 1);
    return bonus;
}

/* Net value of building `n` designs at `cost` cards in all (the built cards included). */
static double build_value(const struct city_game *g, int seat, const struct valuation *v,
                          const int *designs, int n, int cost)
{
    int dvp, dinc;
    city_totals_if_built(g, seat, designs, n, &dvp, &dinc);
    dvp -= v->base_vp;
    dinc -= v->base_income;
    double val = dvp * v->rounds + dinc * v->income - (cost + n) * v->worth;
    for (int i = 0; i < n; i++)
        val += potential(g, seat, v, designs[i]);
    return val;
}

/* How much seat `seat` would like to keep each hand card, higher is better. */
static void keep_values(const struct city_game *g, int seat, const struct valuation *v, double *out)
{
    const struct city_seat *s = &g->seats[seat];
    for (int i = 0; i < s->nhand; i++) {
        int design = city_design_of(g, s->hand[i]);
        const struct city_design *d = &g->cat->designs[design];
        /* Copies owned, and requirements met, from the tableau summary. */
        int owned = s->tab.count[design], reqs = 0;
        for (int r = 0; r < d->nrequires; r++)
            reqs += (int)((s->tab.owned >> d->requires[r]) & 1u);
        if (d->contractor || (d->limit && owned >= d->limit)) {
            out[i] = -1000;
            continue;
        }
        int cost = city_effective_cost(g, seat, design);
        double val = build_value(g, seat, v, &design, 1, cost);
        if (cost > s->nhand - 1)
            val -= (cost - (s->nhand - 1)) * v->worth * 0.5; /* far off */
        if (reqs < d->nrequires)
            val -= 3 * v->worth;
        out[i] = val;
    }
}

/* Writes the n hand cards with the lowest keep value, skipping cards marked in `skip` (of
 * equal values, the first in the hand; fewer when fewer are left). */
static void cheapest_cards(const struct city_game *g, int seat, const double *keep,
                           const uint8_t *skip, int n, uint8_t *out)
{
    const struct city_seat *s = &g->seats[seat];
    /* The cards out of the running get an infinite value, so each pick is one pass of
     * comparisons with no other test; a finite value always wins over them. */
    double val[CITY_DECK_SIZE];
    int left = 0, nhand = s->nhand;
    for (int i = 0; i < nhand; i++) {
        bool out_of_it = skip[s->hand[i]];
        val[i] = out_of_it ? HUGE_VAL : keep[i];
        left += !out_of_it;
    }
    for (int k = 0; k < n && k < left; k++) {
        int best = 0;
        for (int i = 1; i < nhand; i++)
            best = val[i] < val[best] ? i : best;
        out[k] = s->hand[best];
        val[best] = HUGE_VAL;
    }
}

void city_bot_greedy_discards(const struct city_game *g, int seat, int n, uint8_t *out)
{
    struct valuation v;
    valuation_for(g, seat, &v);
    double keep[CITY_DECK_SIZE];
    keep_values(g, seat, &v, keep);
    uint8_t skip[CITY_DECK_SIZE] = {0};
    cheapest_cards(g, seat, keep, skip, n, out);
}

void city_bot_pay_order(const struct city_game *g, int seat, uint8_t *out)
{
    city_bot_greedy_discards(g, seat, g->seats[seat].nhand, out);
}

static void greedy_build(const struct city_game *g, int seat, struct city_decision *d)
{
    struct valuation v;
    valuation_for(g, seat, &v);
    double keep[CITY_DECK_SIZE];
    keep_values(g, seat, &v, keep);
    struct city_build_options o;
    city_build_options(g, seat, &o);

    /* Survey: one card net, chosen from five; nothing when the hand limit would take it. */
    const struct city_seat *me = &g->seats[seat];
    double best =
        me->nhand + 1 + city_seat_income(g, seat) > CITY_HAND_LIMIT ? 0.1 * v.worth : 1.3 * v.worth;
    d->kind = CITY_DEC_SURVEY;
    for (int i = 0; i < o.nbuilds; i++) {
        int design = city_design_of(g, o.card[i]);
        double val = build_value(g, seat, &v, &design, 1, o.cost[i]);
        if (val > best) {
            best = val;
            d->kind = CITY_DEC_BUILD;
            d->nbuilds = 1;
            d->builds[0].card = o.card[i];
            d->builds[0].npay = o.cost[i];
        }
    }
    if (o.contractor) {
        int design = g->cat->contractor_design;
        double val = build_value(g, seat, &v, &design, 1, 0) + v.worth; /* not from hand */
        if (val > best) {
            best = val;
            d->kind = CITY_DEC_CONTRACTOR;
            d->nbuilds = 0;
        }
    }
    if (o.two) {
        struct city_pair pairs[128];
        int np = city_double_pairs(g, seat, pairs, 128);
        if (np > 128)
            np = 128;
        for (int i = 0; i < np; i++) {
            int designs[2] = {city_design_of(g, pairs[i].a), city_design_of(g, pairs[i].b)};
            double val = build_value(g, seat, &v, designs, 2, pairs[i].cost_a + pairs[i].cost_b);
            if (val > best) {
                best = val;
                d->kind = CITY_DEC_BUILD_TWO;
                d->nbuilds = 2;
                d->builds[0].card = pairs[i].a;
                d->builds[0].npay = pairs[i].cost_a;
                d->builds[1].card = pairs[i].b;
                d->builds[1].npay = pairs[i].cost_b;
            }
        }
    }
    /* Pay with the cards least worth keeping. */
    uint8_t skip[CITY_DECK_SIZE] = {0};
    for (int k = 0; k < d->nbuilds; k++)
        skip[d->builds[k].card] = 1;
    for (int k = 0; k < d->nbuilds; k++) {
        struct city_build *b = &d->builds[k];
        cheapest_cards(g, seat, keep, skip, b->npay, b->pay);
        for (int i = 0; i < b->npay; i++)
            skip[b->pay[i]] = 1;
    }
}

bool city_bot_decide(struct bot *b, const struct city_game *g, int seat, struct city_decision *d)
{
    city_decision_clear(d);
    if (!game_seat_pending(g, seat))
        return false;
    if (g->step == CITY_STEP_BUILD) {
        if (b->kind == BOT_RANDOM)
            random_build(b, g, seat, d);
        else
            greedy_build(g, seat, d);
        return true;
    }
    d->kind = CITY_DEC_DISCARD;
    d->ndiscard = (uint8_t)city_discard_count(g, seat);
    if (b->kind == BOT_RANDOM) {
        random_cards(&b->rng, &g->seats[seat], -1, -1, d->ndiscard, d->discard);
    } else {
        city_bot_greedy_discards(g, seat, d->ndiscard, d->discard);
    }
    return true;
}
