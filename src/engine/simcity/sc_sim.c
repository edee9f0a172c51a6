/* sc_sim.c: bulk bot self-play of SimCity (see sc_sim.h). */
#include "sc_sim.h"

#include <limits.h>
#include <string.h>

#include "sc_bots.h"

/* Adds one finished game to the figures. */
static void tally(const struct sc_game *g, int first, struct sc_sim_result *out)
{
    const struct sc_catalog *cat = g->cat;
    int p = g->players, turns = 0;
    for (int s = 0; s < p; s++)
        turns += g->seats[s].turns;
    turns = (turns + p / 2) / p;
    out->games++;
    out->turns_sum += turns;
    out->turns_hist[turns < SC_SIM_MAX_TURNS ? turns : SC_SIM_MAX_TURNS - 1]++;
    if (turns < out->min_turns)
        out->min_turns = turns;
    if (turns > out->max_turns)
        out->max_turns = turns;
    out->rounds_sum += g->round;
    if (g->round < out->min_rounds)
        out->min_rounds = g->round;
    if (g->round > out->max_rounds)
        out->max_rounds = g->round;
    out->end_reasons[g->end_reason]++;
    for (int ph = 1; ph <= g->phase; ph++)
        out->phase_reached[ph]++;
    out->votes += g->votes_held;
    out->votes_passed += g->votes_passed;
    out->vacancies += g->vacancies;
    out->elections += g->elections;
    out->acted |= g->acted;
    out->acted_ev |= g->acted_ev;
    int nwin = __builtin_popcount(g->winners);
    uint8_t any[SC_MAX_DESIGNS / 8] = {0};
    for (int s = 0; s < p; s++) {
        const struct sc_seat *st = &g->seats[s];
        bool won = g->winners & (1u << s);
        double share = won ? 1.0 / nwin : 0;
        out->money_sum += st->money;
        out->wins[s] += share;
        if (s == first)
            out->first_wins += share;
        if (won) {
            out->winning_money_sum += share * st->money;
            for (int k = 0; k < SC_SRC_COUNT; k++)
                out->winner_money[k] += share * st->earned[k];
        }
        for (int k = 0; k < cat->ndesigns; k++)
            if (st->played[k / 8] & (1u << (k % 8))) {
                out->played_seats[k]++;
                out->played_wins[k] += share;
                any[k / 8] |= (uint8_t)(1u << (k % 8));
            }
    }
    for (int k = 0; k < cat->ndesigns; k++)
        out->played[k] += (any[k / 8] >> (k % 8)) & 1;
}

void sc_sim_run(const struct sc_catalog *cat, int players, long long games, uint64_t seed,
                int target, const int *kinds, struct sc_sim_result *out)
{
    memset(out, 0, sizeof *out);
    out->players = players;
    out->min_turns = out->min_rounds = INT_MAX;
    static _Thread_local struct sc_game g;
    struct bot bot[SC_MAX_PLAYERS];
    struct sc_decision d;
    for (long long n = 0; n < games; n++) {
        uint64_t gseed = seed + (uint64_t)n;
        if (sc_new(&g, cat, players, gseed, target) != SC_OK)
            return;
        int first = g.first;
        for (int s = 0; s < players; s++)
            bot_init(&bot[s], kinds[s], gseed * SC_MAX_PLAYERS + (uint64_t)s);
        while (!sc_over(&g)) {
            for (int s = 0; s < players; s++) {
                if (sc_bot_decide(&bot[s], &g, s, &d) && sc_submit(&g, s, &d) != SC_OK) {
                    out->illegal++;
                    out->illegal_seed = gseed;
                    return;
                }
            }
            sc_resolve(&g, NULL);
            out->decisions++;
        }
        if (!sc_check_conservation(&g) || !sc_check_point(&g))
            out->broken++;
        tally(&g, first, out);
    }
}

int sc_sim_turns_quantile(const struct sc_sim_result *r, double q)
{
    long long seen = 0;
    for (int t = 0; t < SC_SIM_MAX_TURNS; t++) {
        seen += r->turns_hist[t];
        if ((double)seen >= q * (double)r->games && seen > 0)
            return t;
    }
    return SC_SIM_MAX_TURNS - 1;
}

int sc_sim_median_turns(const struct sc_sim_result *r)
{
    return sc_sim_turns_quantile(r, 0.5);
}

double sc_sim_turns_share(const struct sc_sim_result *r, int lo, int hi)
{
    long long n = 0;
    for (int t = lo < 0 ? 0 : lo; t <= hi && t < SC_SIM_MAX_TURNS; t++)
        n += r->turns_hist[t];
    return r->games ? (double)n / (double)r->games : 0;
}
