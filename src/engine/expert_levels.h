/* expert_levels.h: the expert's difficulty levels, one table read by everything that names a
 * level: the daemon (each game's bot_level, for its expert seats), the API (GET /api/v1/rulesets
 * lists them), the page (its level select) and `cityd simulate --level`. A level is a budget per
 * decision: at most `think_ms` of wall time and at most `iterations` playouts, spread over at most
 * `candidates` decisions, judged by playouts of the `rollout` bot. The top level thinks for the
 * budget the daemon is given (--expert-ms); a lower level for its own budget, never more than the
 * top one. A weaker level is weaker because it considers fewer decisions and judges them from fewer
 * and cruder playouts (the random bot's), so its choice among them is noisier. Pure data and
 * arithmetic: no I/O. */
#ifndef CITY_EXPERT_LEVELS_H
#define CITY_EXPERT_LEVELS_H

#include "expert.h"

struct expert_level {
    const char *id;      /* the API's name: "easy", "normal", "expert" */
    const char *title;   /* for people: "Easy" */
    double think_ms;     /* the most wall time per decision; 0: the top budget (--expert-ms) */
    int iterations;      /* the most playouts per decision; 0: expert_defaults.iterations */
    int candidates;      /* the most decisions considered; 0: the ruleset's own number */
    const char *rollout; /* the bot that plays its playouts; NULL: expert_defaults.rollout */
};

/* The levels, weakest first; the last has think_ms 0 (the top level). Ends with {NULL}; at most
 * EXPERT_LEVELS_MAX of them. */
extern const struct expert_level expert_levels[];
enum { EXPERT_LEVELS_MAX = 8 };

/* The level a game's experts play at when its creator names none: the top one, so that a client
 * that asks for an "expert" bot gets the expert it got before levels existed. */
#define EXPERT_LEVEL_DEFAULT "expert"

/* The level named `id`, or NULL when there is none (or id is NULL). */
const struct expert_level *expert_level_find(const char *id);

/* The level's wall-time budget per decision in ms when the top level's is `top_ms`: its own,
 * capped at top_ms, or top_ms for the top level. top_ms 0 means no wall-time budget at all (then
 * every level is bounded by its playouts alone, and decides deterministically): 0. */
double expert_level_ms(const struct expert_level *l, double top_ms);

/* The search parameters of level `l` (non-NULL) when the top budget is `top_ms`: expert_defaults
 * with the level's time, playouts, candidates and rollout bot where it sets them. */
struct expert_params expert_level_params(const struct expert_level *l, double top_ms);

#endif
