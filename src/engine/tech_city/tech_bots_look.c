/* tech_bots_look.c: how Tech City's greedy bot reads a position (struct look, tech_bots_int.h),
 * as far as a decision needs (enum look_depth). A card in hand is worth a fraction of a point that
 * falls as the game nears its end, more when its value matches cards in play; a seat's standing
 * counts its companies, its domain powers and its companies close together; the position is
 * seat's standing less the others' plus its hand's worth. tech_bots_effect.c weighs the effects
 * a seat may use from this reading. */
#include <string.h>

#include "tech_bots_int.h"

/* ---- reading a position ------------------------------------------------------------------- */

/* The share of the game's rounds left (rounds_left()), which standings and powers weigh. */
static double rounds_left(const struct tech_game *g)
{
    return (double)(TECH_ROUNDS - g->round) / TECH_ROUNDS;
}

/* What the domain powers add to a standing, `left` being rounds_left(): one Technology company,
 * two, two Science, two Knowledge (each 0 or 1). */
static double powers(double left, int tech1, int tech2, int science2, int knowledge2)
{
    return left * (tech1 * 0.5 + tech2 * 0.5 + science2 * 0.6 + knowledge2 * 0.8);
}

/* What position() takes off seat's standing for the others', by the seats' standings st: the
 * average other's and (more) the score leader's. */
static double others_part(const struct look *l, const double *st)
{
    const struct tech_game *g = l->g;
    double others = 0, lead = 0;
    int leader = -1;
    for (int s = 0; s < g->players; s++) {
        if (s == l->seat)
            continue;
        others += st[s];
        if (leader < 0 || g->seats[s].score > g->seats[leader].score) {
            leader = s;
            lead = st[s];
        }
    }
    return 0.35 * others / (g->players - 1) + 0.5 * lead;
}

void tech_look_at(struct look *l, const struct tech_game *g, int seat, enum look_depth depth)
{
    bool city = depth != LOOK_HAND;
    const struct tech_seat *s = &g->seats[seat];
    l->g = g;
    l->seat = seat;
    l->nhand = s->nhand;
    l->u = card_unit(g, s->nhand);
    _Static_assert(sizeof l->matches == sizeof g->by_value, "a look's matches are by_value");
    memcpy(l->matches, g->by_value, sizeof l->matches);
    l->n = city ? g->ncity : 0;
    for (int i = 0; i < l->n; i++) {
        int c = g->city[i];
        const struct tech_design *d = tech_design_of(g, c);
        l->owner[i] = g->owner[c];
        l->dom[i] = (uint8_t)d->domain;
        l->val[i] = (uint8_t)d->value;
        l->x[i] = g->cx[c];
        l->y[i] = g->cy[c];
    }
    for (int i = 0; i < s->nhand; i++)
        l->w[i] = tech_look_worth(l, s->hand[i]);
    if (!city)
        return;
    l->left = rounds_left(g);
    if (depth == LOOK_BUILD) {
        memset(l->counts, 0, sizeof l->counts);
        for (int i = 0; i < l->n; i++) {
            int o = l->owner[i];
            if (o == TECH_NONE)
                continue;
            struct counts *c = &l->counts[o];
            l->owned[o][c->own++] = (uint8_t)i;
            c->dom[l->dom[i]]++;
        }
        return;
    }
    /* the table depends on the round alone: one per round, made at its first look */
    static _Thread_local double tables[TECH_ROUNDS + 1][16];
    static _Thread_local bool made[TECH_ROUNDS + 1];
    bool shared = g->round >= 0 && g->round <= TECH_ROUNDS;
    double *table = shared ? tables[g->round] : l->own_powers;
    if (!shared || !made[g->round]) {
        for (int f = 0; f < 16; f++)
            table[f] = powers(l->left, f & 1, f >> 1 & 1, f >> 2 & 1, f >> 3 & 1);
        if (shared)
            made[g->round] = true;
    }
    l->powers = table;
    memset(l->counts, 0, sizeof l->counts);
    for (int i = 0; i < l->n; i++) {
        int o = l->owner[i];
        l->near[i] = 0;
        if (o == TECH_NONE)
            continue;
        struct counts *c = &l->counts[o];
        for (int k = 0; k < c->own; k++) {
            int j = l->owned[o][k];
            int dx = l->x[j] - l->x[i], dy = l->y[j] - l->y[i];
            if (dx >= -2 && dx <= 2 && dy >= -2 && dy <= 2) {
                l->near[i]++;
                l->near[j]++;
                c->close++;
            }
        }
        l->owned[o][c->own++] = (uint8_t)i;
        c->dom[l->dom[i]]++;
    }
    for (int p = 0; p < g->players; p++)
        l->standing[p] = standing(l, &l->counts[p]);
    l->others = g->players > 1 ? others_part(l, l->standing) : 0;
    l->leader = -1;
    for (int p = 0; p < g->players; p++)
        if (p != seat && (l->leader < 0 || g->seats[p].score > g->seats[l->leader].score))
            l->leader = p;
    l->position = position(l, l->standing[seat], l->others, l->w, l->nhand);
    l->around_done = false;
    l->groups_done = false;
}
