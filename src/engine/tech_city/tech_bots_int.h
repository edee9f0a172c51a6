/* tech_bots_int.h: what the files of Tech City's bots share and nothing else should use:
 * tech_bots.c (the random bot, the greedy bot's builds and small decisions, the entry points),
 * tech_bots_look.c (the greedy bot's reading of a position, struct look) and tech_bots_effect.c
 * (its weighing of effects from that reading). */
#ifndef TECH_BOTS_INT_H
#define TECH_BOTS_INT_H

#include "tech_bots.h"

/* A uniform number in [0, 1) from r. */
static inline double unit(struct city_rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* True when card is a wild card. */
static inline bool is_wild(const struct tech_game *g, int card)
{
    return tech_design_of(g, card)->domain == DOMAIN_WILD;
}

/* Index in hand of the lowest-worth card other than `skip1` and `skip2`, or -1. */
static inline int cheapest(const struct tech_game *g, int seat, const double *w, int skip1,
                           int skip2)
{
    int best = -1;
    for (int i = 0; i < g->seats[seat].nhand; i++)
        if (i != skip1 && i != skip2 && (best < 0 || w[i] < w[best]))
            best = i;
    return best;
}

/* The counts a seat's public standing comes from: its companies, those of each domain, and the
 * pairs of them within two cells of each other. */
struct counts {
    int own, close, dom[DOMAIN_WILD];
};

/* Cards in play of one owner and one domain, with the least and most of their owner's others
 * near one of them (struct look's groups). */
struct group {
    bool any;
    uint8_t minnear, maxnear;
};

/* What the greedy bot reads of a position, once per decision, for all of its options: the worth
 * of each hand card, the cards in play by value, and (with the city) the cards in play as a list
 * in the city's order, each seat's counts and standing, and the position itself. An option that
 * rearranges the city changes a few of these, and position() of the changed ones is what a scan
 * of the rearranged game would give, bit for bit (the same sums in the same order), without
 * copying the game. */
struct look {
    const struct tech_game *g;
    int seat, nhand;
    double u;                         /* card_unit() of the hand */
    double left;                      /* rounds_left() */
    const double *powers;             /* powers() by its four inputs as bits 0-3 (16) */
    double own_powers[16];            /* powers' table when the round has no shared one */
    double w[TECH_MAX_CARDS];         /* worth of each hand card, in hand order */
    uint8_t matches[TECH_VALUES + 1]; /* cards in play by value (the game's by_value) */
    int n;                            /* cards in play: */
    uint8_t owner[TECH_MAX_CARDS], dom[TECH_MAX_CARDS], val[TECH_MAX_CARDS];
    int8_t x[TECH_MAX_CARDS], y[TECH_MAX_CARDS];
    uint8_t near[TECH_MAX_CARDS]; /* an owned card: its owner's others within two cells */
    struct counts counts[TECH_MAX_PLAYERS];
    uint8_t owned[TECH_MAX_PLAYERS][TECH_MAX_CARDS]; /* each seat's cards: counts[].own indices */
    double standing[TECH_MAX_PLAYERS];
    double others;   /* what position() takes off for the others' standings */
    int leader;      /* the other seat whose score leads (the first of them), -1 solo */
    double position; /* position() */
    /* Filled on demand (look_around()): the cards of a seat within two cells of a card in play,
     * the card itself left out: around[seat][k] for every card k, around[p][k] for the other
     * seats p only where k is one of seat's cards (0 elsewhere). */
    bool around_done;
    uint8_t around[TECH_MAX_PLAYERS][TECH_MAX_CARDS];
    /* Filled on demand (look_groups()): the cards in play by owner (TECH_MAX_PLAYERS for none)
     * and domain, all of them and those an expel or a replace may target (not the seed card). */
    bool groups_done;
    struct group all[TECH_MAX_PLAYERS + 1][DOMAIN_WILD], targets[TECH_MAX_PLAYERS + 1][DOMAIN_WILD];
};

/* How much of a position tech_look_at() reads. */
enum look_depth {
    LOOK_HAND,   /* the hand's worths and the cards in play by value (l->n is 0) */
    LOOK_BUILD,  /* and the cards in play as a list, each seat's companies (own, dom, owned),
                  * rounds_left(): what weighing builds reads */
    LOOK_EFFECT, /* and all the rest (what weighing effects reads) */
};

/* ---- what things are worth (tech_bots_look.c and tech_bots_effect.c) ---------------------- */

/* A card in hand, in points, when seat holds nhand cards: less as the game nears its end (in the
 * last round's effects phase cards only break ties). */
static inline double card_unit(const struct tech_game *g, int nhand)
{
    int left = TECH_ROUNDS - g->round;
    double u;
    if (left == 0)
        u = g->step == TECH_STEP_BUILD || g->step == TECH_STEP_HELP ? 0.25 : 0.02;
    else
        u = 0.45 + 0.02 * left;
    /* a full hand is worth less a card: the end of the round discards down */
    int extra = nhand - TECH_DRAW_UP;
    if (extra > 0)
        u *= extra >= 4 ? 0.4 : 1.0 - 0.15 * extra;
    return u;
}

/* What a card of design d is worth in a hand whose card unit is u, when m cards in play have its
 * value: more the more they match. */
static inline double worth(double u, const struct tech_design *d, int m)
{
    if (d->domain == DOMAIN_WILD)
        return 2.5 * u;
    return u * (1.0 + 0.35 * (m < 3 ? m : 3) + (d->value <= TECH_CHEAP_VALUE ? 0.1 : 0.0));
}

/* The public standing of a seat apart from its score: companies, domain powers, companies close
 * together (future neighbour bonuses). */
static inline double standing(const struct look *l, const struct counts *c)
{
    double v = 0.15 * c->own + 0.15 * (c->close < 6 ? c->close : 6);
    v += l->powers[(c->dom[DOMAIN_TECHNOLOGY] >= 1) | (c->dom[DOMAIN_TECHNOLOGY] >= 2) << 1 |
                   (c->dom[DOMAIN_SCIENCE] >= 2) << 2 | (c->dom[DOMAIN_KNOWLEDGE] >= 2) << 3];
    return v;
}

/* others_part() of the look's standings with seat o's (another than the look's seat) st_o. */
static inline double others_with(const struct look *l, int o, double st_o)
{
    const struct tech_game *g = l->g;
    double others = 0;
    for (int s = 0; s < g->players; s++)
        if (s != l->seat)
            others += s == o ? st_o : l->standing[s];
    double lead = l->leader == o ? st_o : l->standing[l->leader];
    return 0.35 * others / (g->players - 1) + 0.5 * lead;
}

/* Seat's standing `mine` less the others' part `others` (others_part()), plus its hand's worth:
 * the hand cards' worths hw (nh of them), added in hand order. */
static inline double position(const struct look *l, double mine, double others, const double *hw,
                              int nh)
{
    double v = mine;
    if (l->g->players > 1)
        v -= others;
    for (int i = 0; i < nh; i++)
        v += hw[i];
    return v;
}

/* Fills l for seat as far as `depth` says; the fields it does not reach are left as they were.
 * l keeps a pointer to g, which must not change while l is used. */
void tech_look_at(struct look *l, const struct tech_game *g, int seat, enum look_depth depth);

/* The worth in points of `card` in l's seat's hand now (inline: every look asks it per hand
 * card). */
static inline double tech_look_worth(const struct look *l, int card)
{
    const struct tech_design *d = tech_design_of(l->g, card);
    return worth(l->u, d, l->matches[d->value]);
}

/* The greedy bot's decision at an effect point of l's seat (l filled with the city): the legal
 * use worth most (with the bot's noise, or now and then a cheap use at random), else a pass. */
void tech_greedy_effect(struct bot *b, struct look *l, struct tech_decision *out);

#endif
