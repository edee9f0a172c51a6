/* city_rules.h: what the rules' source files (city.c, city_options.c, city_defaults.c) share and
 * nothing else reads: the tableau summary's questions (what a design costs a seat, whether its
 * tableau admits it). Private to src/engine/the_city/. */
#ifndef CITY_GAME_RULES_H
#define CITY_GAME_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "city.h"

/* ---- tableau summaries (struct city_tab) ---------------------------------------------- */

/* Adds one copy of `design` to summary t. */
static inline void tab_add(const struct city_catalog *cat, struct city_tab *t, int design)
{
    const struct city_hot *d = &cat->hot[design];
    t->owned |= 1ULL << design;
    t->count[design]++;
    t->vp += d->vp;
    t->income += d->income;
    for (int i = 0; i < CITY_ICON_COUNT; i++)
        t->icons[i] = (uint16_t)(t->icons[i] + d->icons[i]);
}

static inline const struct city_tab *tab_of(const struct city_game *g, int seat)
{
    return &g->seats[seat].tab;
}

static inline int tab_cost(const struct city_catalog *cat, const struct city_tab *t, int design)
{
    const struct city_hot *h = &cat->hot[design];
    int cost = h->cost;
    for (uint64_t m = t->owned & h->discounted_by; m; m &= m - 1)
        cost -= cat->hot[__builtin_ctzll(m)].discount; /* each kind once, however many copies */
    return cost < 0 ? 0 : cost;
}

/* Why design `design` cannot enter tableau `t` (prerequisite, limit, not buildable), or
 * CITY_OK. Payment is checked elsewhere. */
static inline int tab_admits(const struct city_catalog *cat, const struct city_tab *t, int design)
{
    const struct city_hot *h = &cat->hot[design];
    if (h->contractor)
        return CITY_ERR_NOT_BUILDABLE;
    if ((t->owned & h->requires) != h->requires)
        return CITY_ERR_PREREQUISITE;
    if (h->limit && t->count[design] >= h->limit)
        return CITY_ERR_LIMIT;
    return CITY_OK;
}

static inline bool tab_has_gang(const struct city_catalog *cat, const struct city_tab *t)
{
    for (uint64_t m = t->owned; m; m &= m - 1)
        if (cat->hot[__builtin_ctzll(m)].construction_gang)
            return true;
    return false;
}

static inline bool tab_has_contractor(const struct city_catalog *cat, const struct city_tab *t)
{
    return t->count[cat->contractor_design] > 0;
}

/* ---- events ------------------------------------------------------------------------ */

/* Tells ev (when set) of one event of the game. */
static inline void city_emit(const struct city_events *ev, const struct city_game *g, int type,
                             int seat, int card, int count, int total)
{
    if (!ev || !ev->emit)
        return;
    struct city_event e = {.type = (uint8_t)type,
                           .seat = (int8_t)seat,
                           .round = g->round,
                           .step = g->step,
                           .card = (uint8_t)card,
                           .count = count,
                           .total = total};
    ev->emit(ev->ctx, &e);
}

#endif
