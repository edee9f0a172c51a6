/* expert.h: the expert bot of every hosted game, written once against the ruleset table:
 * information-set Monte Carlo tree search at the seat's decision (SO-ISMCTS with its tree cut at
 * the root). Each iteration deals the cards the seat cannot see anew (rs->determinize: from what
 * the seat may know, never from the real deck or hands), tries one of the seat's candidate
 * decisions chosen by UCB1, and plays the game out with a fast bot for every seat; the candidate
 * tried most often is chosen. Deterministic for a given number of iterations: its random stream
 * is seeded from the game's seed, the position and the seat. Pure: no I/O. */
#ifndef CITY_EXPERT_H
#define CITY_EXPERT_H

#include <stdbool.h>

#include "ruleset.h"

/* How hard the expert thinks. */
struct expert_params {
    int iterations;      /* the most playouts; 0: no cap (then think_ms must be set) */
    double think_ms;     /* the most wall time per decision in ms; 0: none (deterministic) */
    const char *rollout; /* the bot kind that plays the playouts, e.g. "random" */
    int candidates;      /* the most candidate decisions considered (at most EXPERT_MAX_CAND);
                          * 0: the ruleset's expert_candidates, else 24 */
    /* Called between playouts when set: it may pause the search (the server's bot pool waits
     * there while people's requests are being served) and returns the ms it paused, which the
     * think_ms budget does not count, so a pause costs the decision no playouts. */
    double (*yield)(void *ctx);
    void *yield_ctx;
};

enum { EXPERT_MAX_CAND = 32 };

/* What one decision cost. */
struct expert_stats {
    int iterations;  /* playouts run */
    int candidates;  /* distinct legal decisions considered */
    double ms;       /* wall time spent thinking (pauses in yield not counted) */
    double yield_ms; /* wall time paused in p->yield */
};

/* The defaults: 100 ms, at most 1,000 playouts, greedy playouts, the ruleset's number of
 * candidates (24 where it names none). The bot kind
 * "expert" of every ruleset plays with expert_defaults, which a program may change at start
 * (cityd simulate --think-ms). */
extern struct expert_params expert_defaults;

/* What the search found for one candidate decision: how often it was tried, the share of those
 * playouts the seat won (a tie shared) and the seat's mean final score in them. */
struct expert_estimate {
    int playouts;
    double win;   /* 0..1 */
    double score; /* the game's score (rs->score) at the playouts' end, on average */
};

/* Why the expert chose: its choice's estimate and, when another candidate was tried, the
 * runner-up's (the best of the others by the measure that chose), whose decision is written
 * into `runner_up` (rs->decision_size bytes, set by the caller). */
struct expert_why {
    void *runner_up;
    bool has_runner_up;
    struct expert_estimate best, runner;
};

/* True for a bot kind that thinks apart, on the service's bot pool, rather than inside a request
 * ("expert"): its decisions take their time. */
bool expert_is_slow_bot(const char *kind);

/* Chooses seat's decision in game g (of ruleset rs) into d (rs->decision_size bytes), from what
 * the seat may know. False when the seat has nothing to decide. `stats` may be NULL. */
bool expert_decide(const struct ruleset *rs, const void *g, int seat, const struct expert_params *p,
                   void *d, struct expert_stats *stats);

/* expert_decide() that also says why in `why` (NULL: not asked; why->runner_up must point to
 * rs->decision_size bytes). The decision is the one expert_decide() makes. */
bool expert_decide_why(const struct ruleset *rs, const void *g, int seat,
                       const struct expert_params *p, void *d, struct expert_stats *stats,
                       struct expert_why *why);

#endif
