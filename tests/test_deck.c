/* test_deck.c: the deck proves itself by simulation: greedy self-play lasts 7 to 9 rounds for
 * every player count, no seat wins much more than its share, no development is in nearly
 * every winner's tableau, random play is always legal and always ends, and self-play that
 * trusts the bots' decisions gives the figures of play that checks each one. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots.h"
#include "cards.h"
#include "sim.h"

static struct city_catalog cat;

static void load(void)
{
    char path[1024], err[512];
    const char *root = getenv("CITY_ROOT");
    snprintf(path, sizeof path, "%s/cards/cards.json", root ? root : ".");
    cr_assert(catalog_load_file(&cat, path, err, sizeof err), "%s", err);
}

TestSuite(deck, .init = load);

static void greedy(int players, long long games, struct sim_result *r)
{
    int kinds[CITY_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        kinds[s] = BOT_GREEDY;
    sim_run(&cat, players, games, 1000 * (uint64_t)players, kinds, r);
    cr_assert_eq(r->illegal, 0, "greedy bot made an illegal decision, seed %llu",
                 (unsigned long long)r->illegal_seed);
}

Test(deck, greedy_games_last_7_to_9_rounds_for_2_to_5_players)
{
    for (int p = CITY_MIN_PLAYERS; p <= CITY_MAX_PLAYERS; p++) {
        static struct sim_result r;
        greedy(p, 600, &r);
        double avg = (double)r.rounds_sum / (double)r.games;
        cr_expect(avg >= 7.0 && avg <= 9.0, "%d players: average %.2f rounds", p, avg);
        cr_expect(r.ended_by_deck * 50 < r.games, "%d players: %lld of %lld games ran out of cards",
                  p, r.ended_by_deck, r.games);
    }
}

Test(deck, no_seat_wins_much_more_than_its_share)
{
    for (int p = CITY_MIN_PLAYERS; p <= CITY_MAX_PLAYERS; p++) {
        static struct sim_result r;
        greedy(p, 1500, &r);
        for (int s = 0; s < p; s++) {
            double share = r.wins[s] / (double)r.games;
            /* 1500 games: one standard deviation is at most 0.013. */
            cr_expect(share > 1.0 / p - 0.05 && share < 1.0 / p + 0.05,
                      "%d players: seat %d wins %.3f", p, s, share);
        }
    }
}

Test(deck, no_development_is_in_nearly_every_winners_tableau)
{
    static struct sim_result r;
    greedy(4, 1000, &r);
    for (int k = 0; k < cat.ndesigns; k++)
        if (k != cat.contractor_design)
            cr_expect(r.winner_has[k] / (double)r.games < 0.85, "%s is in %.0f%% of winners",
                      cat.designs[k].id, 100 * r.winner_has[k] / (double)r.games);
}

Test(deck, random_play_is_legal_and_ends)
{
    for (int p = CITY_MIN_PLAYERS; p <= CITY_MAX_PLAYERS; p++) {
        int kinds[CITY_MAX_PLAYERS] = {BOT_RANDOM, BOT_GREEDY, BOT_RANDOM, BOT_RANDOM, BOT_GREEDY};
        static struct sim_result r;
        sim_run(&cat, p, 1000, 77, kinds, &r);
        cr_assert_eq(r.illegal, 0, "illegal decision, seed %llu",
                     (unsigned long long)r.illegal_seed);
        cr_expect_eq(r.games, 1000);
        cr_expect(r.max_rounds <= CITY_MAX_ROUNDS);
    }
}

/* sim_run() as it was before it trusted the bots: every decision through game_submit(), which
 * must accept it; the figures gathered the same way. */
static void sim_checked(int players, long long games, uint64_t seed, const int *kinds,
                        struct sim_result *out)
{
    memset(out, 0, sizeof *out);
    out->min_rounds = INT_MAX;
    for (long long n = 0; n < games; n++) {
        struct city_game g;
        struct city_bot bot[CITY_MAX_PLAYERS];
        struct city_decision d;
        uint64_t gseed = seed + (uint64_t)n;
        game_new(&g, &cat, players, gseed, 0);
        for (int s = 0; s < players; s++)
            bot_init(&bot[s], kinds[s], gseed * CITY_MAX_PLAYERS + (uint64_t)s);
        while (g.step != STEP_OVER) {
            for (int s = 0; s < players; s++)
                if (bot_decide(&bot[s], &g, s, &d))
                    cr_assert_eq(game_submit(&g, s, &d), CITY_OK, "seed %llu seat %d",
                                 (unsigned long long)gseed, s);
            cr_assert(game_resolve(&g, NULL));
        }
        out->games++;
        out->rounds_sum += g.round;
        out->min_rounds = g.round < out->min_rounds ? g.round : out->min_rounds;
        out->max_rounds = g.round > out->max_rounds ? g.round : out->max_rounds;
        out->ended_by_deck += g.ended_by_deck;
        out->ended_by_rounds += g.ended_by_rounds;
        int nwin = __builtin_popcount(g.winners);
        for (int s = 0; s < players; s++) {
            if (!(g.winners & (1u << s)))
                continue;
            out->wins[s] += 1.0 / nwin;
            uint64_t owned = 0;
            for (int t = 0; t < g.seats[s].ntableau; t++)
                owned |= 1ULL << game_design_of(&g, g.seats[s].tableau[t]);
            for (int k = 0; k < cat.ndesigns; k++)
                if (owned & (1ULL << k))
                    out->winner_has[k] += 1.0 / nwin;
        }
    }
}

/* sim_run() stores most bot decisions without game_check() (sim.c): its figures must be those
 * of the same games with every decision checked, for every bot and player count. */
Test(deck, self_play_that_trusts_the_bots_gives_the_figures_of_checked_play)
{
    const int mixes[3][CITY_MAX_PLAYERS] = {
        {BOT_RANDOM, BOT_RANDOM, BOT_RANDOM, BOT_RANDOM, BOT_RANDOM},
        {BOT_GREEDY, BOT_GREEDY, BOT_GREEDY, BOT_GREEDY, BOT_GREEDY},
        {BOT_RANDOM, BOT_GREEDY, BOT_RANDOM, BOT_GREEDY, BOT_RANDOM},
    };
    for (int m = 0; m < 3; m++)
        for (int p = CITY_MIN_PLAYERS; p <= CITY_MAX_PLAYERS; p++) {
            static struct sim_result fast, checked;
            long long games = m == 1 ? 150 : 400;
            sim_run(&cat, p, games, 9000 + (uint64_t)p, mixes[m], &fast);
            sim_checked(p, games, 9000 + (uint64_t)p, mixes[m], &checked);
            cr_assert_eq(fast.illegal, 0);
            cr_assert(memcmp(&fast, &checked, sizeof fast) == 0,
                      "mix %d, %d players: the figures differ", m, p);
        }
}
