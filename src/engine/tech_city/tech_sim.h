/* tech_sim.h: Tech City's bot self-play in bulk, for `simulate`, the deck's tests and
 * cards/README.md: plays many games from consecutive seeds and gathers the figures that prove
 * the deck (rounds, the first seat's wins, how often each company is built and used, how often
 * it is in a winner's city, winning scores). */
#ifndef TECH_SIM_H
#define TECH_SIM_H

#include <stdint.h>

#include "tech.h"

struct tech_sim_result {
    long long games;
    int min_rounds, max_rounds;
    long long rounds_sum;
    double wins[TECH_MAX_PLAYERS];       /* games won per seat, ties split */
    double first_wins;                   /* games won by the seat that was first in round 1 */
    long long built[TECH_MAX_DESIGNS];   /* games in which each design was built from hand */
    long long used[TECH_MAX_DESIGNS];    /* games in which each design's effect was used */
    double winner_has[TECH_MAX_DESIGNS]; /* games whose winners' cities hold it, split */
    long long winning_score_sum;
    int max_winning_score;
    long long points_sum; /* all seats' final scores */
    long long decisions;  /* decision points resolved */
    long long illegal;    /* bot decisions the engine refused (must be 0) */
    uint64_t illegal_seed;
    long long broken; /* games where card conservation failed (must be 0) */
};

/* Plays `games` games of `players` seats, game n from seed `seed + n`, seat s played by a bot
 * of kind kinds[s]; fills *out. Stops at the first illegal bot decision. No I/O, no
 * allocation. */
void tech_sim_run(const struct tech_catalog *cat, int players, long long games, uint64_t seed,
                  const int *kinds, struct tech_sim_result *out);

#endif
