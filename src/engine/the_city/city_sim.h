/* city_sim.h: bot self-play in bulk, for `cityd simulate`, the benchmarks and the deck's tests:
 * plays many games from consecutive seeds and gathers the figures that prove the deck. */
#ifndef CITY_SIM_H
#define CITY_SIM_H

#include <stdint.h>

#include "city_cards.h"
#include "city.h"

struct city_sim_result {
    long long games;
    long long rounds_sum;
    int min_rounds, max_rounds;
    long long ended_by_deck, ended_by_rounds;
    double wins[CITY_MAX_PLAYERS];       /* games won per seat, ties split */
    double winner_has[CITY_MAX_DESIGNS]; /* games whose winners own each design, split */
    double built[CITY_MAX_DESIGNS];      /* games in which some seat owns each design */
    long long illegal;                   /* bot decisions the engine refused (must be 0) */
    uint64_t illegal_seed;               /* the seed of the first game with one */
};

/* Plays `games` games of `players` seats, game n from seed `seed + n`, seat s played by a bot
 * of kind kinds[s], and fills *out. Stops at the first illegal bot decision (counted in
 * out->illegal). No I/O, no allocation. */
void city_sim_run(const struct city_catalog *cat, int players, long long games, uint64_t seed,
                  const int *kinds, struct city_sim_result *out);

#endif
