/* tech_sim.c: bulk bot self-play of Tech City (see tech_sim.h). */
#include "tech_sim.h"

#include <limits.h>
#include <string.h>

#include "tech_bots.h"

void tech_sim_run(const struct tech_catalog *cat, int players, long long games, uint64_t seed,
                  const int *kinds, struct tech_sim_result *out)
{
    memset(out, 0, sizeof *out);
    out->min_rounds = INT_MAX;
    static _Thread_local struct tech_game g;
    struct bot bot[TECH_MAX_PLAYERS];
    struct tech_decision d;
    for (long long n = 0; n < games; n++) {
        uint64_t gseed = seed + (uint64_t)n;
        if (tech_new(&g, cat, players, gseed) != TECH_OK)
            return;
        int first = g.first;
        for (int s = 0; s < players; s++)
            bot_init(&bot[s], kinds[s], gseed * TECH_MAX_PLAYERS + (uint64_t)s);
        while (g.step != TECH_STEP_OVER) {
            for (int s = 0; s < players; s++) {
                /* (a seat with nothing to decide is not asked: a bot's answer would be empty) */
                if (tech_pending(&g, s) && tech_bot_decide(&bot[s], &g, s, &d) &&
                    tech_submit(&g, s, &d) != TECH_OK) {
                    out->illegal++;
                    out->illegal_seed = gseed;
                    return;
                }
            }
            tech_resolve(&g, NULL);
            out->decisions++;
        }
        if (!tech_check_conservation(&g))
            out->broken++;
        out->games++;
        out->rounds_sum += g.round;
        if (g.round < out->min_rounds)
            out->min_rounds = g.round;
        if (g.round > out->max_rounds)
            out->max_rounds = g.round;
        int nwin = __builtin_popcount(g.winners);
        for (int k = 0; k < cat->ndesigns; k++) {
            out->built[k] += (g.built_designs >> k) & 1;
            out->used[k] += (g.used_designs >> k) & 1;
        }
        for (int s = 0; s < players; s++) {
            out->points_sum += g.seats[s].score;
            if (!(g.winners & (1u << s)))
                continue;
            out->wins[s] += 1.0 / nwin;
            if (s == first)
                out->first_wins += 1.0 / nwin;
            uint64_t owned = 0;
            for (int i = 0; i < g.ncity; i++)
                if (g.owner[g.city[i]] == s)
                    owned |= 1ULL << cat->card_design[g.city[i] % cat->deck_size];
            for (int k = 0; k < cat->ndesigns; k++)
                if (owned & (1ULL << k))
                    out->winner_has[k] += 1.0 / nwin;
        }
        int ws = g.seats[__builtin_ctz(g.winners)].score;
        out->winning_score_sum += ws;
        if (ws > out->max_winning_score)
            out->max_winning_score = ws;
    }
}
