/* tech_bots.c: Tech City's random and greedy players (see tech_bots.h). The greedy bot weighs
 * every legal build and every effect in points, with a card in hand worth a fraction of a point
 * that falls as the game nears its end, and breaks near-ties with a little noise of its own. */
#include "tech_bots.h"

#include <string.h>

#include "tech_effects.h"

/* ---- shared helpers --------------------------------------------------------------------- */

static double unit(struct city_rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static bool is_wild(const struct tech_game *g, int card)
{
    return tech_design_of(g, card)->domain == DOMAIN_WILD;
}

/* Fills the choices an effect takes at random (legal or not: the caller checks). */
static void random_choices(struct bot *b, const struct tech_game *g, int seat, int prim,
                           struct tech_decision *d)
{
    unsigned want = tech_effect_choices(prim);
    const struct tech_seat *s = &g->seats[seat];
    if ((want & CHOICE_CARD) && s->nhand)
        d->card = s->hand[rng_below(&b->rng, s->nhand)];
    if ((want & CHOICE_TAKE) && g->ndiscard)
        d->take = g->discard[rng_below(&b->rng, g->ndiscard)];
    if (want & CHOICE_TARGET) {
        int c = g->city[rng_below(&b->rng, g->ncity)];
        d->has_target = true;
        d->tx = g->cx[c];
        d->ty = g->cy[c];
    }
    if (want & CHOICE_TO) {
        int c = g->city[rng_below(&b->rng, g->ncity)];
        d->has_to = true;
        d->ux = g->cx[c];
        d->uy = g->cy[c];
    }
    if (want & CHOICE_VICTIM)
        d->victim = (uint8_t)rng_below(&b->rng, g->players);
}

/* Picks n distinct cards of seat's hand into d->cards, the lowest `worth` first (when worth is
 * given) or at random. */
static void pick_cards(struct bot *b, const struct tech_game *g, int seat, int n,
                       const double *worth, struct tech_decision *d)
{
    const struct tech_seat *s = &g->seats[seat];
    bool taken[TECH_MAX_CARDS] = {false};
    d->kind = TDEC_CARDS;
    d->ncards = 0;
    for (int k = 0; k < n && k < s->nhand; k++) {
        int best = -1;
        if (worth) {
            for (int i = 0; i < s->nhand; i++)
                if (!taken[i] && (best < 0 || worth[i] < worth[best]))
                    best = i;
        } else {
            do
                best = (int)rng_below(&b->rng, s->nhand);
            while (taken[best]);
        }
        taken[best] = true;
        d->cards[d->ncards++] = s->hand[best];
    }
}

/* ---- random ------------------------------------------------------------------------------- */

static void random_decide(struct bot *b, const struct tech_game *g, int seat,
                          struct tech_decision *d)
{
    const struct tech_seat *s = &g->seats[seat];
    switch (g->step) {
    case TECH_STEP_BUILD: {
        int8_t xs[TECH_MAX_CELLS], ys[TECH_MAX_CELLS];
        int ncell = tech_open_cells(g, xs, ys, TECH_MAX_CELLS);
        for (int tries = 0; tries < 12 && ncell > 0 && rng_below(&b->rng, 8) != 0; tries++) {
            struct tech_decision t;
            tech_decision_init(&t);
            t.kind = TDEC_BUILD;
            t.card = s->hand[rng_below(&b->rng, s->nhand)];
            int k = (int)rng_below(&b->rng, (uint32_t)ncell);
            t.x = xs[k];
            t.y = ys[k];
            if (is_wild(g, t.card)) {
                int c = g->city[rng_below(&b->rng, g->ncity)];
                t.as_value = tech_design_of(g, c)->value;
                t.as_domain = tech_design_of(g, c)->domain;
            }
            t.npay = (uint8_t)rng_below(&b->rng, 3);
            for (int i = 0; i < t.npay; i++)
                t.pay[i] = s->hand[rng_below(&b->rng, s->nhand)];
            if (tech_check(g, seat, &t) == TECH_OK) {
                *d = t;
                return;
            }
        }
        d->kind = TDEC_PASS;
        return;
    }
    case TECH_STEP_HELP:
        if (rng_below(&b->rng, 2)) {
            d->kind = TDEC_HELP;
            d->card = s->hand[rng_below(&b->rng, s->nhand)];
        } else {
            d->kind = TDEC_PASS;
        }
        return;
    case TECH_STEP_EFFECT:
        for (int tries = 0; tries < 16 && rng_below(&b->rng, 6) != 0; tries++) {
            struct tech_decision t;
            tech_decision_init(&t);
            t.kind = TDEC_USE;
            int c = g->city[rng_below(&b->rng, g->ncity)];
            t.x = g->cx[c];
            t.y = g->cy[c];
            t.free = g->seats[seat].used_normal;
            t.owner_first =
                g->owner[c] != TECH_NONE && g->owner[c] != seat && !t.free && rng_below(&b->rng, 2);
            random_choices(b, g, seat, tech_design_of(g, c)->effect.prim, &t);
            if (tech_check(g, seat, &t) == TECH_OK) {
                *d = t;
                return;
            }
        }
        d->kind = TDEC_PASS;
        return;
    case TECH_STEP_OWNER:
        d->kind = TDEC_OWNER;
        d->draw = rng_below(&b->rng, 2);
        return;
    case TECH_STEP_CHOOSE:
        if (g->choose_kind == CHOOSE_REVEALED) {
            d->kind = TDEC_CARDS;
            d->ncards = 1;
            d->cards[0] = g->revealed[rng_below(&b->rng, g->nrevealed)];
            return;
        }
        pick_cards(b, g, seat, tech_cards_wanted(g, seat), NULL, d);
        return;
    case TECH_STEP_DISCARD:
        pick_cards(b, g, seat, tech_cards_wanted(g, seat), NULL, d);
        return;
    default:
        return;
    }
}

/* ---- greedy: what things are worth -------------------------------------------------------- */

/* A card in hand, in points: less as the game nears its end (in the last round's effects phase
 * cards only break ties). */
static double card_unit(const struct tech_game *g, int seat)
{
    int left = TECH_ROUNDS - g->round;
    double u;
    if (left == 0)
        u = g->step == TECH_STEP_BUILD || g->step == TECH_STEP_HELP ? 0.25 : 0.02;
    else
        u = 0.45 + 0.02 * left;
    /* a full hand is worth less a card: the end of the round discards down */
    int extra = g->seats[seat].nhand - TECH_DRAW_UP;
    if (extra > 0)
        u *= extra >= 4 ? 0.4 : 1.0 - 0.15 * extra;
    return u;
}

static int value_matches(const struct tech_game *g, int value)
{
    int n = 0;
    for (int i = 0; i < g->ncity; i++)
        n += tech_design_of(g, g->city[i])->value == value;
    return n;
}

/* What a card in seat's hand is worth now: more when its value already matches cards in play. */
static double card_worth(const struct tech_game *g, int seat, int card)
{
    const struct tech_design *d = tech_design_of(g, card);
    double u = card_unit(g, seat);
    if (d->domain == DOMAIN_WILD)
        return 2.5 * u;
    int m = value_matches(g, d->value);
    return u * (1.0 + 0.35 * (m < 3 ? m : 3) + (d->value <= TECH_CHEAP_VALUE ? 0.1 : 0.0));
}

/* The public standing of a seat apart from its score: companies, domain powers, companies close
 * together (future neighbour bonuses). */
static double standing(const struct tech_game *g, int seat)
{
    int own = 0, dom[4] = {0}, close = 0;
    int xs[TECH_MAX_CARDS], ys[TECH_MAX_CARDS];
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        if (g->owner[c] != seat)
            continue;
        dom[tech_design_of(g, c)->domain]++;
        for (int j = 0; j < own; j++) {
            int dx = xs[j] - g->cx[c], dy = ys[j] - g->cy[c];
            close += dx >= -2 && dx <= 2 && dy >= -2 && dy <= 2;
        }
        xs[own] = g->cx[c];
        ys[own] = g->cy[c];
        own++;
    }
    double left = (double)(TECH_ROUNDS - g->round) / TECH_ROUNDS;
    double v = 0.15 * own + 0.15 * (close < 6 ? close : 6);
    v += left * ((dom[DOMAIN_TECHNOLOGY] >= 1) * 0.5 + (dom[DOMAIN_TECHNOLOGY] >= 2) * 0.5 +
                 (dom[DOMAIN_SCIENCE] >= 2) * 0.6 + (dom[DOMAIN_KNOWLEDGE] >= 2) * 0.8);
    return v;
}

/* Seat's standing less the others' (the leader's counts most), plus its hand's worth. */
static double position(const struct tech_game *g, int seat)
{
    double v = standing(g, seat), others = 0, lead = 0;
    int leader = -1;
    for (int s = 0; s < g->players; s++) {
        if (s == seat)
            continue;
        double st = standing(g, s);
        others += st;
        if (leader < 0 || g->seats[s].score > g->seats[leader].score) {
            leader = s;
            lead = st;
        }
    }
    if (g->players > 1)
        v -= 0.35 * others / (g->players - 1) + 0.5 * lead;
    for (int i = 0; i < g->seats[seat].nhand; i++)
        v += card_worth(g, seat, g->seats[seat].hand[i]);
    return v;
}

static void hand_worths(const struct tech_game *g, int seat, double *w)
{
    for (int i = 0; i < g->seats[seat].nhand; i++)
        w[i] = card_worth(g, seat, g->seats[seat].hand[i]);
}

/* Index in hand of the lowest-worth card other than `skip1` and `skip2`, or -1. */
static int cheapest(const struct tech_game *g, int seat, const double *w, int skip1, int skip2)
{
    int best = -1;
    for (int i = 0; i < g->seats[seat].nhand; i++)
        if (i != skip1 && i != skip2 && (best < 0 || w[i] < w[best]))
            best = i;
    return best;
}

/* ---- greedy: building --------------------------------------------------------------------- */

/* The cheapest legal payment for seat building hand[ci], by the hand's worths w: for a company,
 * nothing when building is free, else one card that pays alone or two cards, whichever is worth
 * less; for a service (the builder's own help), the card worth least, none when there is no
 * other card (then false in a solo game, where the help is required). False when no payment is
 * legal. */
static bool best_payment(const struct tech_game *g, int seat, int ci, const double *w,
                         struct tech_decision *d, double *cost)
{
    const struct tech_seat *s = &g->seats[seat];
    int card = s->hand[ci];
    unsigned counts = tech_pay_counts(g, seat, card);
    d->npay = 0;
    *cost = 0;
    if (tech_design_of(g, card)->domain == DOMAIN_SERVICE) {
        int h = cheapest(g, seat, w, ci, -1);
        if (h >= 0) {
            d->npay = 1;
            d->pay[0] = s->hand[h];
            *cost = w[h];
        }
        return h >= 0 || (counts & 1u);
    }
    if (counts & 1u)
        return true;
    int one = -1;
    for (int i = 0; i < s->nhand; i++)
        if (i != ci && tech_pays_alone(g, seat, card, s->hand[i]) && (one < 0 || w[i] < w[one]))
            one = i;
    int a = cheapest(g, seat, w, ci, -1);
    int b2 = a < 0 ? -1 : cheapest(g, seat, w, ci, a);
    double two = b2 >= 0 ? w[a] + w[b2] : 1e9;
    if (one >= 0 && w[one] <= two) {
        d->npay = 1;
        d->pay[0] = s->hand[one];
        *cost = w[one];
        return true;
    }
    if (two < 1e8) {
        d->npay = 2;
        d->pay[0] = s->hand[a];
        d->pay[1] = s->hand[b2];
        *cost = two;
        return true;
    }
    return false;
}

bool tech_bot_payment(const struct tech_game *g, int seat, int card, struct tech_decision *d)
{
    const struct tech_seat *s = &g->seats[seat];
    int ci = -1;
    for (int i = 0; i < s->nhand && ci < 0; i++)
        if (s->hand[i] == card)
            ci = i;
    d->npay = 0;
    if (ci < 0)
        return false;
    double w[TECH_MAX_CARDS], cost;
    hand_worths(g, seat, w);
    return best_payment(g, seat, ci, w, d, &cost);
}

/* What having built a company of `domain` adds to seat's powers (rounds left matter). */
static double power_gain(const struct tech_game *g, int seat, int domain)
{
    if (domain == DOMAIN_SERVICE || domain == DOMAIN_WILD)
        return 0;
    double left = (double)(TECH_ROUNDS - g->round) / TECH_ROUNDS;
    int have = tech_controls(g, seat, domain);
    double v = 0.15;
    if (domain == DOMAIN_TECHNOLOGY && have < 2)
        v += left * 0.6;
    if (domain == DOMAIN_SCIENCE && have == 1)
        v += left * 0.6;
    if (domain == DOMAIN_KNOWLEDGE && have == 1)
        v += left * 0.8;
    return v;
}

static void greedy_build(struct bot *b, const struct tech_game *g, int seat,
                         struct tech_decision *out)
{
    const struct tech_seat *s = &g->seats[seat];
    double w[TECH_MAX_CARDS];
    hand_worths(g, seat, w);
    int8_t xs[TECH_MAX_CELLS], ys[TECH_MAX_CELLS];
    int ncell = tech_open_cells(g, xs, ys, TECH_MAX_CELLS);
    double best = -0.6;
    tech_decision_init(out);
    out->kind = TDEC_PASS;
    for (int ci = 0; ci < s->nhand; ci++) {
        int card = s->hand[ci];
        const struct tech_design *ds = tech_design_of(g, card);
        struct tech_decision t;
        tech_decision_init(&t);
        t.kind = TDEC_BUILD;
        t.card = (uint8_t)card;
        double cost = 0;
        if (!best_payment(g, seat, ci, w, &t, &cost))
            continue;
        /* a wild card names the in-play card with the most matches */
        int names = ds->domain == DOMAIN_WILD ? g->ncity : 1;
        for (int ni = 0; ni < names; ni++) {
            if (ds->domain == DOMAIN_WILD) {
                const struct tech_design *nd = tech_design_of(g, g->city[ni]);
                t.as_value = nd->value;
                t.as_domain = nd->domain;
            }
            int dom = ds->domain == DOMAIN_WILD ? DOMAIN_WILD : ds->domain;
            for (int k = 0; k < ncell; k++) {
                int pts = tech_build_points(g, seat, card, xs[k], ys[k], t.as_value, t.as_domain);
                double v = pts - cost - w[ci] + power_gain(g, seat, dom);
                if (ds->domain == DOMAIN_SERVICE) {
                    /* it may fail for want of help, and every helper scores too */
                    v = (pts < 1 ? 1 : pts) - cost - w[ci];
                    if (g->players > 1)
                        v = 0.75 * v - 0.25 * w[ci] - 0.2 / (g->players - 1);
                } else if (ds->domain == DOMAIN_WILD) {
                    v += 0.4; /* the replacing card also counts as a company */
                }
                v += 0.05 * unit(&b->rng);
                if (v > best) {
                    best = v;
                    t.x = xs[k];
                    t.y = ys[k];
                    *out = t;
                }
            }
        }
    }
}

/* ---- greedy: effects ---------------------------------------------------------------------- */

/* Position change for seat if the rearranging effect of `card` ran with d's choices. */
static double try_effect(const struct tech_game *g, int seat, int card,
                         const struct tech_decision *d, double before)
{
    static _Thread_local struct tech_game copy;
    copy = *g;
    tech_effect_apply(&copy, seat, card, d, NULL);
    return position(&copy, seat) - before;
}

/* Finds the best choices for the effect of `card` used by seat; returns their worth in points
 * (or a very low number when no choice is legal). */
static double best_effect(const struct tech_game *g, int seat, int card, struct tech_decision *d)
{
    const struct tech_effect *e = &tech_design_of(g, card)->effect;
    const struct tech_seat *s = &g->seats[seat];
    double u = card_unit(g, seat), w[TECH_MAX_CARDS];
    hand_worths(g, seat, w);
    const double none = -1e9;
    switch (e->prim) {
    case PRIM_DRAW:
        return (e->n - e->m) * u * 1.1 + e->m * 0.12;
    case PRIM_DISCARD: {
        /* a card an opponent loses counts against the average opponent */
        double v = 0;
        for (int o = 0; o < g->players; o++)
            if (o != seat && g->seats[o].nhand > 0)
                v += 0.9 * (e->n < g->seats[o].nhand ? e->n : g->seats[o].nhand) * u;
        return v / (g->players - 1);
    }
    case PRIM_REVEAL:
        return u * 1.1 + 0.1 * e->n;
    case PRIM_SEARCH:
        return u * 1.15 + (e->value ? 0.3 * (value_matches(g, e->value) > 0) : 0.1);
    case PRIM_EXCHANGE_TOP: {
        int worst = cheapest(g, seat, w, -1, -1);
        if (worst < 0 || g->ndeck + g->ndiscard == 0)
            return none;
        d->card = s->hand[worst];
        return 1.2 * u - w[worst] + 0.1;
    }
    case PRIM_EXCHANGE_PILE: {
        int worst = cheapest(g, seat, w, -1, -1);
        if (worst < 0 || g->ndiscard == 0)
            return none;
        int take = 0;
        for (int i = 1; i < g->ndiscard; i++)
            if (card_worth(g, seat, g->discard[i]) > card_worth(g, seat, g->discard[take]))
                take = i;
        d->card = s->hand[worst];
        d->take = g->discard[take];
        return card_worth(g, seat, d->take) - w[worst] + 0.1;
    }
    case PRIM_STEAL: {
        int victim = -1;
        for (int o = 0; o < g->players; o++)
            if (o != seat && g->seats[o].nhand > 0 &&
                (victim < 0 || g->seats[o].score > g->seats[victim].score ||
                 (g->seats[o].score == g->seats[victim].score &&
                  g->seats[o].nhand > g->seats[victim].nhand)))
                victim = o;
        if (victim < 0)
            return none;
        d->victim = (uint8_t)victim;
        return u * (1.0 + 0.8 / (g->players - 1)); /* mine, and one less for them */
    }
    case PRIM_SCORE: {
        static _Thread_local struct tech_game copy;
        copy = *g;
        int before = copy.seats[seat].score;
        tech_effect_apply(&copy, seat, card, d, NULL);
        return copy.seats[seat].score - before;
    }
    default:
        break;
    }
    /* Rearranging effects: try the choices on a copy. */
    double before = position(g, seat), best = none;
    struct tech_decision t = *d, keep = *d;
    unsigned want = tech_effect_choices(e->prim);
    t.has_target = true;
    t.has_to = (want & CHOICE_TO) != 0;
    for (int i = 0; i < g->ncity; i++) {
        int a = g->city[i];
        t.tx = g->cx[a];
        t.ty = g->cy[a];
        if (e->prim == PRIM_REPLACE) {
            for (int h = 0; h < s->nhand; h++) {
                if (is_wild(g, s->hand[h]))
                    continue;
                t.card = s->hand[h];
                if (tech_effect_check(g, seat, card, &t) != TECH_OK)
                    continue;
                double v = try_effect(g, seat, card, &t, before);
                if (v > best) {
                    best = v;
                    keep = t;
                }
            }
        } else if (e->prim == PRIM_EXPEL) {
            if (tech_effect_check(g, seat, card, &t) != TECH_OK)
                continue;
            double v = try_effect(g, seat, card, &t, before);
            if (v > best) {
                best = v;
                keep = t;
            }
        } else {
            /* swap and move_marker: the first card is one of seat's companies */
            if (g->owner[a] != seat)
                continue;
            for (int j = 0; j < g->ncity; j++) {
                int c = g->city[j];
                t.ux = g->cx[c];
                t.uy = g->cy[c];
                if (tech_effect_check(g, seat, card, &t) != TECH_OK)
                    continue;
                double v = try_effect(g, seat, card, &t, before);
                if (v > best) {
                    best = v;
                    keep = t;
                }
            }
        }
    }
    *d = keep;
    return best;
}

enum { EXPLORE = 3 };
static const double EXPLORE_COST = 0.7;

static void greedy_effect(struct bot *b, const struct tech_game *g, int seat,
                          struct tech_decision *out)
{
    tech_decision_init(out);
    out->kind = TDEC_PASS;
    double best = 0.05;
    const struct tech_seat *s = &g->seats[seat];
    /* Now and then (1 turn in EXPLORE) the bot tries any use that costs it little, at random:
     * a player who always takes the same sure gain never learns the city's other effects. */
    bool explore = rng_below(&b->rng, EXPLORE) == 0;
    bool free_ok = !s->used_free && tech_controls(g, seat, DOMAIN_KNOWLEDGE) >= 2;
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        const struct tech_design *ds = tech_design_of(g, c);
        for (int f = 0; f < 2; f++) {
            bool free = f == 1;
            if (free ? !(free_ok && g->owner[c] == seat && ds->domain == DOMAIN_KNOWLEDGE)
                     : (s->used_normal || g->tilted[c]))
                continue;
            struct tech_decision t;
            tech_decision_init(&t);
            t.kind = TDEC_USE;
            t.x = g->cx[c];
            t.y = g->cy[c];
            t.free = free;
            double v = best_effect(g, seat, c, &t);
            if (v < -1e8)
                continue;
            if (g->owner[c] != TECH_NONE && g->owner[c] != seat)
                v -= 0.25; /* its owner draws and discards */
            /* The order of the two (the rule text's chaining: the active player's choice).
             * The effect first, always: after an exchange with the deck the owner then draws
             * the card this seat gave up; for every other effect both orders are worth the
             * same in expectation (unknown cards either way), and this keeps the usual one. */
            t.owner_first = false;
            if (free)
                v += 0.2; /* a free use keeps the normal one */
            if (explore)
                v = v >= -EXPLORE_COST ? 1.0 + unit(&b->rng) : -1.0;
            else
                v += 0.35 * unit(&b->rng);
            if (v > best && tech_check(g, seat, &t) == TECH_OK) {
                best = v;
                *out = t;
            }
        }
    }
}

static void greedy_decide(struct bot *b, const struct tech_game *g, int seat,
                          struct tech_decision *d)
{
    double w[TECH_MAX_CARDS];
    hand_worths(g, seat, w);
    switch (g->step) {
    case TECH_STEP_BUILD:
        greedy_build(b, g, seat, d);
        return;
    case TECH_STEP_HELP: {
        int h = cheapest(g, seat, w, -1, -1);
        if (h >= 0 && w[h] < 0.95) {
            d->kind = TDEC_HELP;
            d->card = g->seats[seat].hand[h];
        } else {
            d->kind = TDEC_PASS;
        }
        return;
    }
    case TECH_STEP_EFFECT:
        greedy_effect(b, g, seat, d);
        return;
    case TECH_STEP_OWNER:
        d->kind = TDEC_OWNER;
        d->draw = true;
        return;
    case TECH_STEP_CHOOSE:
        if (g->choose_kind == CHOOSE_REVEALED) {
            int best = 0;
            for (int i = 1; i < g->nrevealed; i++)
                if (card_worth(g, seat, g->revealed[i]) > card_worth(g, seat, g->revealed[best]))
                    best = i;
            d->kind = TDEC_CARDS;
            d->ncards = 1;
            d->cards[0] = g->revealed[best];
            return;
        }
        pick_cards(b, g, seat, tech_cards_wanted(g, seat), w, d);
        return;
    case TECH_STEP_DISCARD:
        pick_cards(b, g, seat, tech_cards_wanted(g, seat), w, d);
        return;
    default:
        return;
    }
}

bool tech_bot_decide(struct bot *b, const struct tech_game *g, int seat, struct tech_decision *d)
{
    tech_decision_init(d);
    if (!tech_pending(g, seat))
        return false;
    if (b->kind == BOT_RANDOM)
        random_decide(b, g, seat, d);
    else
        greedy_decide(b, g, seat, d);
    return true;
}
