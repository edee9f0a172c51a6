/* test_deck.c: the deck proves itself by simulation: greedy self-play lasts 7 to 9 rounds for
 * every player count, no seat wins much more than its share, no development is in nearly
 * every winner's tableau, and random play is always legal and always ends. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "the_city/city_bots.h"
#include "the_city/city_cards.h"
#include "the_city/city_sim.h"

static struct city_catalog cat;

static void load(void)
{
    char path[1024], err[512];
    const char *root = getenv("CITY_ROOT");
    snprintf(path, sizeof path, "%s/cards/cards.json", root ? root : ".");
    cr_assert(city_catalog_load_file(&cat, path, err, sizeof err), "%s", err);
}

TestSuite(deck, .init = load);

static void greedy(int players, long long games, struct city_sim_result *r)
{
    int kinds[CITY_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        kinds[s] = BOT_GREEDY;
    city_sim_run(&cat, players, games, 1000 * (uint64_t)players, kinds, r);
    cr_assert_eq(r->illegal, 0, "greedy bot made an illegal decision, seed %llu",
                 (unsigned long long)r->illegal_seed);
}

Test(deck, greedy_games_last_7_to_9_rounds_for_2_to_5_players)
{
    for (int p = CITY_MIN_PLAYERS; p <= CITY_MAX_PLAYERS; p++) {
        static struct city_sim_result r;
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
        static struct city_sim_result r;
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
    static struct city_sim_result r;
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
        static struct city_sim_result r;
        city_sim_run(&cat, p, 1000, 77, kinds, &r);
        cr_assert_eq(r.illegal, 0, "illegal decision, seed %llu",
                     (unsigned long long)r.illegal_seed);
        cr_expect_eq(r.games, 1000);
        cr_expect(r.max_rounds <= CITY_MAX_ROUNDS);
    }
}
