/* test_tech_deck.c: Tech City's deck proves itself by greedy self-play, on a sample small
 * enough for CI (cards/README.md has the figures of thousands of games): every game ends after
 * round 6, the first player wins about its share, every company is built and its effect used,
 * no company is in most winners' cities, and random play is always legal.
 *
 * With TECH_FIGURES=N in the environment, tech_deck::figures prints the ruleset's `simulate`
 * JSON for N games at 1 to 6 players (the command behind cards/README.md's table). */
#include "tech_helpers.h"

#include "tech_city/tech_sim.h"

/* The timeout guards against a hang, not speed: under ASan+UBSan, with the other suites beside
 * it on two cores, 800 games a seat count took close to 60 s once (CI, 2026-11-25). */
TestSuite(tech_deck, .init = load_tech, .timeout = 240);

static void greedy(int players, long long games, struct tech_sim_result *r)
{
    int kinds[TECH_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        kinds[s] = BOT_GREEDY;
    tech_sim_run(&tcat, players, games, 1000 * (uint64_t)players, kinds, r);
    cr_assert_eq(r->illegal, 0, "greedy bot made an illegal decision, seed %llu",
                 (unsigned long long)r->illegal_seed);
    cr_assert_eq(r->broken, 0, "cards were not conserved");
    cr_assert_eq(r->games, games);
}

Test(tech_deck, every_game_ends_after_round_six_at_one_to_six_players)
{
    for (int p = TECH_MIN_PLAYERS; p <= TECH_MAX_PLAYERS; p++) {
        static struct tech_sim_result r;
        greedy(p, 200, &r);
        cr_expect(r.min_rounds == TECH_ROUNDS && r.max_rounds == TECH_ROUNDS,
                  "%d players: rounds %d..%d", p, r.min_rounds, r.max_rounds);
        cr_expect_gt(r.winning_score_sum, 0);
    }
}

Test(tech_deck, the_first_player_wins_about_its_share)
{
    for (int p = 2; p <= TECH_MAX_PLAYERS; p++) {
        static struct tech_sim_result r;
        greedy(p, 800, &r);
        double share = r.first_wins / (double)r.games;
        /* 800 games: one standard deviation is at most 0.018; the full figures (3,000 games)
         * hold within 0.05 */
        cr_expect(share > 1.0 / p - 0.075 && share < 1.0 / p + 0.075,
                  "%d players: the first player wins %.3f", p, share);
        for (int s = 0; s < p; s++) {
            double seat = r.wins[s] / (double)r.games;
            cr_expect(seat > 1.0 / p - 0.075 && seat < 1.0 / p + 0.075,
                      "%d players: seat %d wins %.3f", p, s, seat);
        }
    }
}

Test(tech_deck, every_company_is_built_and_used_and_none_is_in_most_winners_cities)
{
    for (int p = 2; p <= TECH_MAX_PLAYERS; p++) {
        static struct tech_sim_result r;
        greedy(p, 800, &r);
        for (int k = 0; k < tcat.ndesigns; k++) {
            const struct tech_design *d = &tcat.designs[k];
            if (d->domain == DOMAIN_WILD)
                continue;
            double built = (double)r.built[k] / (double)r.games;
            double used = (double)r.used[k] / (double)r.games;
            double win = r.winner_has[k] / (double)r.games;
            /* thresholds below the full figures' 5% by the sample's noise */
            if (k != tcat.seed_design || p >= TECH_TWO_DECKS_FROM)
                cr_expect_geq(built, 0.035, "%d players: %s built in %.3f of games", p, d->id,
                              built);
            cr_expect_geq(used, 0.035, "%d players: %s used in %.3f of games", p, d->id, used);
            cr_expect_leq(win, 0.6, "%d players: %s in %.3f of winners' cities", p, d->id, win);
        }
    }
}

Test(tech_deck, random_and_mixed_play_is_always_legal)
{
    int kinds[TECH_MAX_PLAYERS];
    for (int p = TECH_MIN_PLAYERS; p <= TECH_MAX_PLAYERS; p++) {
        for (int s = 0; s < p; s++)
            kinds[s] = s % 2 ? BOT_GREEDY : BOT_RANDOM;
        static struct tech_sim_result r;
        tech_sim_run(&tcat, p, 300, 77 + (uint64_t)p, kinds, &r);
        cr_assert_eq(r.illegal, 0, "%d players: illegal decision, seed %llu", p,
                     (unsigned long long)r.illegal_seed);
        cr_assert_eq(r.broken, 0);
        cr_assert_eq(r.min_rounds, TECH_ROUNDS);
    }
}

Test(tech_deck, the_greedy_bot_beats_random_players)
{
    int kinds[TECH_MAX_PLAYERS] = {BOT_GREEDY, BOT_RANDOM, BOT_RANDOM};
    static struct tech_sim_result r;
    tech_sim_run(&tcat, 3, 300, 4242, kinds, &r);
    cr_assert_eq(r.illegal, 0);
    /* 1,000 games: 0.97 */
    cr_expect_gt(r.wins[0] / (double)r.games, 0.85, "greedy won %.3f", r.wins[0] / r.games);
}

Test(tech_deck, figures)
{
    const char *n = getenv("TECH_FIGURES");
    long long games = n ? atoll(n) : 20;
    for (int p = TECH_MIN_PLAYERS; p <= TECH_MAX_PLAYERS; p++) {
        char err[256] = "";
        json_t *j =
            ruleset_tech_city.simulate(p, games, 1000 * (uint64_t)p, "greedy", err, sizeof err);
        cr_assert_not_null(j, "%s", err);
        cr_assert_eq(json_integer_value(json_object_get(j, "min_rounds")), TECH_ROUNDS);
        if (n) {
            char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(4));
            printf("%s\n", s);
            free(s);
        }
        json_decref(j);
    }
    char err[256];
    cr_assert_null(ruleset_tech_city.simulate(7, 1, 1, "greedy", err, sizeof err));
    cr_assert_null(ruleset_tech_city.simulate(2, 1, 1, "greedy,smart", err, sizeof err));
}
