/* sc_sim.h: SimCity's bot self-play in bulk, for `simulate`, the deck's tests and
 * cards/README.md: plays many games from consecutive seeds and gathers the figures that prove
 * the deck (how games end and how long they last, the phases reached, each seat's wins, how
 * often each design is played and how much playing it lifts its player's chance to win, votes,
 * vacancies and elections, the winners' money by source, the primitives that acted). */
#ifndef SC_SIM_H
#define SC_SIM_H

#include <stdint.h>

#include "sc.h"

enum { SC_SIM_MAX_TURNS = 128 };

struct sc_sim_result {
    int players;
    long long games;
    long long turns_sum; /* turns per player, summed over games */
    int min_turns, max_turns;
    long long turns_hist[SC_SIM_MAX_TURNS]; /* games by turns per player (the last: more) */
    long long rounds_sum;
    int min_rounds, max_rounds;
    long long end_reasons[SC_END_COUNT];
    long long phase_reached[SC_PHASES + 1]; /* games whose city reached each phase */
    double wins[SC_MAX_PLAYERS];            /* games won per seat, ties split */
    double first_wins;                      /* ... by the seat that played first */
    long long played[SC_MAX_DESIGNS];       /* games in which some seat played the design */
    long long played_seats[SC_MAX_DESIGNS]; /* seat-games in which the seat played it */
    double played_wins[SC_MAX_DESIGNS];     /* ... and won (ties split) */
    long long votes, votes_passed, vacancies, elections;
    double winner_money[SC_SRC_COUNT]; /* the winners' money by source, ties split */
    double winning_money_sum;
    long long money_sum;      /* every seat's final money */
    uint32_t acted, acted_ev; /* primitives that acted in some game */
    long long decisions;      /* decision points resolved */
    long long illegal;        /* bot decisions the engine refused (must be 0) */
    uint64_t illegal_seed;
    long long broken; /* games where an invariant failed (must be 0) */
};

/* Plays `games` games of `players` seats, game n from seed `seed + n` with money target
 * `target` (0: the default), seat s played by a bot of kind kinds[s]; fills *out. Stops at the
 * first illegal bot decision. No I/O. */
void sc_sim_run(const struct sc_catalog *cat, int players, long long games, uint64_t seed,
                int target, const int *kinds, struct sc_sim_result *out);

/* The median turns per player of a run (from its histogram). */
int sc_sim_median_turns(const struct sc_sim_result *r);

/* The share of games with lo..hi turns per player. */
double sc_sim_turns_share(const struct sc_sim_result *r, int lo, int hi);

/* The turns per player below which a share q (0..1) of the games ended. */
int sc_sim_turns_quantile(const struct sc_sim_result *r, double q);

#endif
