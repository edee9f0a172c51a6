/* tech_bots.c: Tech City's random and greedy players (see tech_bots.h). The greedy bot weighs
 * every legal build and every effect in points, with a card in hand worth a fraction of a point
 * that falls as the game nears its end, and breaks near-ties with a little noise of its own. It
 * reads a position once per decision (struct look, tech_bots_look.c; tech_bots_effect.c weighs
 * the effects) and weighs every option from that reading, without copying the game; an effect that
 * rearranges the city is first bounded from the look's counts and weighed choice by choice only
 * when the bound could win (the same decision as weighing them all). Self-play speed is a figure
 * of the bench (issue 25). */
#include "tech_bots_int.h"

#include <string.h>

#include "tech_effects.h"

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

/* ---- greedy: building --------------------------------------------------------------------- */

/* What the rules say of paying for seat's builds at one point, each asked once: the card built
 * counts only as a service or not in tech_pay_counts() and tech_pays_alone() (tech.h). */
struct pay_rules {
    const struct tech_game *g;
    int seat;
    int tech;                        /* Technology companies seat controls */
    int counts[2];                   /* tech_pay_counts() for a company, a service; -1 unasked */
    int8_t alone[2][TECH_MAX_CARDS]; /* tech_pays_alone() by hand index; -1 unasked */
};

static void pay_rules_init(struct pay_rules *r, const struct tech_game *g, int seat)
{
    r->g = g;
    r->seat = seat;
    r->tech = tech_controls(g, seat, DOMAIN_TECHNOLOGY);
    r->counts[0] = r->counts[1] = -1;
    memset(r->alone, -1, sizeof r->alone);
}

static unsigned pay_counts(struct pay_rules *r, int card, bool service)
{
    if (r->counts[service] < 0)
        r->counts[service] = (int)tech_pay_counts_with(r->g, r->tech, card);
    return (unsigned)r->counts[service];
}

static bool pays_alone(struct pay_rules *r, int card, bool service, int payer)
{
    int8_t *a = &r->alone[service][payer];
    if (*a < 0)
        *a = tech_pays_alone_with(r->g, r->tech, card, r->g->seats[r->seat].hand[payer]);
    return *a;
}

/* A payment: the cards of the hand it gives. */
struct payment {
    uint8_t npay, pay[2];
};

/* The cheapest legal payment for seat building hand[ci], by the hand's worths w: for a company,
 * nothing when building is free, else one card that pays alone or two cards, whichever is worth
 * less; for a service (the builder's own help), the card worth least, none when there is no
 * other card (then false in a solo game, where the help is required). False when no payment is
 * legal. */
static bool best_payment(struct pay_rules *r, int ci, const double *w, struct payment *d,
                         double *cost)
{
    const struct tech_game *g = r->g;
    int seat = r->seat;
    const struct tech_seat *s = &g->seats[seat];
    int card = s->hand[ci];
    bool service = tech_design_of(g, card)->domain == DOMAIN_SERVICE;
    unsigned counts = pay_counts(r, card, service);
    d->npay = 0;
    *cost = 0;
    if (service) {
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
        if (i != ci && pays_alone(r, card, service, i) && (one < 0 || w[i] < w[one]))
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
    struct look l;
    tech_look_at(&l, g, seat, LOOK_HAND);
    struct pay_rules r;
    pay_rules_init(&r, g, seat);
    struct payment p;
    double cost;
    bool ok = best_payment(&r, ci, l.w, &p, &cost);
    d->npay = p.npay;
    for (int i = 0; i < p.npay; i++)
        d->pay[i] = p.pay[i];
    return ok;
}

/* What having built a company of `domain` adds to seat's powers (rounds left matter). */
static double power_gain(const struct look *l, int domain)
{
    if (domain == DOMAIN_SERVICE || domain == DOMAIN_WILD)
        return 0;
    double left = l->left;
    int have = l->counts[l->seat].dom[domain];
    double v = 0.15;
    if (domain == DOMAIN_TECHNOLOGY && have < 2)
        v += left * 0.6;
    if (domain == DOMAIN_SCIENCE && have == 1)
        v += left * 0.6;
    if (domain == DOMAIN_KNOWLEDGE && have == 1)
        v += left * 0.8;
    return v;
}

/* tech_match_points() for seat, from the look. */
static int match_points(const struct look *l, int value, int domain)
{
    int m = l->matches[value];
    int base = m < TECH_SCORE_CAP_MATCH ? m : TECH_SCORE_CAP_MATCH;
    int science = l->counts[l->seat].dom[DOMAIN_SCIENCE] + (domain == DOMAIN_SCIENCE);
    return base + (base >= 2 && science >= 2);
}

/* tech_neighbour_point() for seat at (x, y), from the look. */
static int neighbour_point(const struct look *l, int x, int y)
{
    int near = 0;
    for (int k = 0; k < l->counts[l->seat].own && near < 2; k++) {
        int i = l->owned[l->seat][k];
        int dx = l->x[i] - x, dy = l->y[i] - y;
        near += dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 && (dx || dy);
    }
    return near >= 2;
}

static void greedy_build(struct bot *b, const struct look *l, struct tech_decision *out)
{
    const struct tech_game *g = l->g;
    int seat = l->seat;
    const struct tech_seat *s = &g->seats[seat];
    const double *w = l->w;
    const int8_t *xs = g->open_x, *ys = g->open_y; /* tech_open_cells(), read in place */
    int ncell = g->nopen;
    /* tech_build_points() is match_points() of the card plus the cell's neighbour point */
    int8_t nb[TECH_MAX_CELLS];
    for (int k = 0; k < ncell; k++)
        nb[k] = (int8_t)neighbour_point(l, xs[k], ys[k]);
    struct pay_rules rules;
    pay_rules_init(&rules, g, seat);
    double best = -0.6;
    /* the best build so far: hand index (-1: none, pass), payment, wild name, cell */
    int best_ci = -1, best_k = 0;
    struct payment best_pay = {0};
    int8_t best_value = 0, best_domain = -1;
    for (int ci = 0; ci < s->nhand; ci++) {
        int card = s->hand[ci];
        const struct tech_design *ds = tech_design_of(g, card);
        struct payment pay;
        double cost = 0;
        if (!best_payment(&rules, ci, w, &pay, &cost))
            continue;
        int dom = ds->domain == DOMAIN_WILD ? DOMAIN_WILD : ds->domain;
        double gain = power_gain(l, dom);
        /* a wild card names the in-play card with the most matches */
        int names = ds->domain == DOMAIN_WILD ? g->ncity : 1;
        for (int ni = 0; ni < names; ni++) {
            int8_t as_value = 0, as_domain = -1;
            int mp = match_points(l, ds->value, ds->domain);
            if (ds->domain == DOMAIN_WILD) {
                as_value = (int8_t)l->val[ni];
                as_domain = (int8_t)l->dom[ni];
                mp = match_points(l, as_value, as_domain);
            }
            /* the worth on a cell without and with the neighbour point (nb[k] is 0 or 1),
             * worked out once for all the cells */
            double by_nb[2];
            for (int n = 0; n < 2; n++) {
                int pts = mp + n;
                double v = pts - cost - w[ci] + gain;
                if (ds->domain == DOMAIN_SERVICE) {
                    /* it may fail for want of help, and every helper scores too */
                    v = (pts < 1 ? 1 : pts) - cost - w[ci];
                    if (g->players > 1)
                        v = 0.75 * v - 0.25 * w[ci] - 0.2 / (g->players - 1);
                } else if (ds->domain == DOMAIN_WILD) {
                    v += 0.4; /* the replacing card also counts as a company */
                }
                by_nb[n] = v;
            }
            if (!((by_nb[0] > by_nb[1] ? by_nb[0] : by_nb[1]) + 0.05 > best)) {
                /* no cell can beat the best (the noise is under 0.05): the draws alone */
                for (int k = 0; k < ncell; k++)
                    rng_next(&b->rng);
                continue;
            }
            for (int k = 0; k < ncell; k++) {
                double v = by_nb[nb[k]] + 0.05 * unit(&b->rng);
                if (v > best) {
                    best = v;
                    best_ci = ci;
                    best_k = k;
                    best_pay = pay;
                    best_value = as_value;
                    best_domain = as_domain;
                }
            }
        }
    }
    tech_decision_init(out);
    out->kind = TDEC_PASS;
    if (best_ci < 0)
        return;
    out->kind = TDEC_BUILD;
    out->card = s->hand[best_ci];
    out->npay = best_pay.npay;
    for (int i = 0; i < best_pay.npay; i++)
        out->pay[i] = best_pay.pay[i];
    out->as_value = best_value;
    out->as_domain = best_domain;
    out->x = xs[best_k];
    out->y = ys[best_k];
}

/* ---- greedy: the decision ------------------------------------------------------------------ */

static void greedy_decide(struct bot *b, const struct tech_game *g, int seat,
                          struct tech_decision *d)
{
    static _Thread_local struct look l;
    if (g->step != TECH_STEP_OWNER)
        tech_look_at(&l, g, seat,
                     g->step == TECH_STEP_BUILD    ? LOOK_BUILD
                     : g->step == TECH_STEP_EFFECT ? LOOK_EFFECT
                                                   : LOOK_HAND);
    switch (g->step) {
    case TECH_STEP_BUILD:
        greedy_build(b, &l, d);
        return;
    case TECH_STEP_HELP: {
        int h = cheapest(g, seat, l.w, -1, -1);
        if (h >= 0 && l.w[h] < 0.95) {
            d->kind = TDEC_HELP;
            d->card = g->seats[seat].hand[h];
        } else {
            d->kind = TDEC_PASS;
        }
        return;
    }
    case TECH_STEP_EFFECT:
        tech_greedy_effect(b, &l, d);
        return;
    case TECH_STEP_OWNER:
        d->kind = TDEC_OWNER;
        d->draw = true;
        return;
    case TECH_STEP_CHOOSE:
        if (g->choose_kind == CHOOSE_REVEALED) {
            int best = 0;
            for (int i = 1; i < g->nrevealed; i++)
                if (tech_look_worth(&l, g->revealed[i]) > tech_look_worth(&l, g->revealed[best]))
                    best = i;
            d->kind = TDEC_CARDS;
            d->ncards = 1;
            d->cards[0] = g->revealed[best];
            return;
        }
        pick_cards(b, g, seat, tech_cards_wanted(g, seat), l.w, d);
        return;
    case TECH_STEP_DISCARD:
        pick_cards(b, g, seat, tech_cards_wanted(g, seat), l.w, d);
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
