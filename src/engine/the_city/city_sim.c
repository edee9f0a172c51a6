/* city_sim.c: bulk bot self-play (see city_sim.h). */
#include "city_sim.h"

#include <limits.h>
#include <string.h>

#include "city_bots.h"

void city_sim_run(const struct city_catalog *cat, int players, long long games, uint64_t seed,
                  const int *kinds, struct city_sim_result *out)
{
    memset(out, 0, sizeof *out);
    out->min_rounds = INT_MAX;
    struct city_game g;
    struct bot bot[CITY_MAX_PLAYERS];
    struct city_decision d;
    for (long long n = 0; n < games; n++) {
        uint64_t gseed = seed + (uint64_t)n;
        city_new(&g, cat, players, gseed, 0);
        for (int s = 0; s < players; s++)
            city_bot_init(&bot[s], kinds[s], gseed * CITY_MAX_PLAYERS + (uint64_t)s);
        while (g.step != CITY_STEP_OVER) {
            for (int s = 0; s < players; s++) {
                if (city_bot_decide(&bot[s], &g, s, &d) && city_submit(&g, s, &d) != CITY_OK) {
                    out->illegal++;
                    out->illegal_seed = gseed;
                    return;
                }
            }
            city_resolve(&g, NULL);
        }
        out->games++;
        out->rounds_sum += g.round;
        if (g.round < out->min_rounds)
            out->min_rounds = g.round;
        if (g.round > out->max_rounds)
            out->max_rounds = g.round;
        out->ended_by_deck += g.ended_by_deck;
        out->ended_by_rounds += g.ended_by_rounds;
        int nwin = __builtin_popcount(g.winners);
        uint64_t any = 0;
        for (int s = 0; s < players; s++) {
            uint64_t owned = 0;
            for (int t = 0; t < g.seats[s].ntableau; t++)
                owned |= 1ULL << city_design_of(&g, g.seats[s].tableau[t]);
            any |= owned;
            if (!(g.winners & (1u << s)))
                continue;
            out->wins[s] += 1.0 / nwin;
            for (int k = 0; k < cat->ndesigns; k++)
                if (owned & (1ULL << k))
                    out->winner_has[k] += 1.0 / nwin;
        }
        for (int k = 0; k < cat->ndesigns; k++)
            out->built[k] += (double)((any >> k) & 1);
    }
}
