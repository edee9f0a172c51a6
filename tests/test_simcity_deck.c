/* test_simcity_deck.c: SimCity's deck, cards/simcity.json: it has the shape docs/simcity.md
 * gives it (a base of 60 for two players and a pack of 30 per further player, the seed's
 * minimums at every player count), a broken card file is refused with a sentence naming the
 * card, and greedy self-play on a sample small enough for CI ends every game legally and
 * reaches the city phase (cards/README.md has the figures of thousands of games).
 *
 * With SC_FIGURES=N in the environment, simcity_deck::figures prints sc_sim_report() for N
 * greedy games at 1 to 6 players (the command behind cards/README.md's table). */
#include "sc_helpers.h"

#include "simcity/sc_bots.h"
#include "simcity/sc_report.h"
#include "simcity/sc_sim.h"
#include "textfile.h"

#include <time.h>

TestSuite(simcity_deck, .init = load_sc, .timeout = 240);

/* Cards of the base (pack) of `kind`, of phase `phase` (0: any). */
static int count(bool pack, int kind, int phase, bool (*what)(const struct sc_design *))
{
    int n = 0;
    for (int k = 0; k < scat.ndesigns; k++) {
        const struct sc_design *d = &scat.designs[k];
        if (d->kind == kind && (!phase || d->phase == phase) && (!what || what(d)))
            n += pack ? d->copies_pack : d->copies_base;
    }
    return n;
}

static bool is_plant(const struct sc_design *d)
{
    return d->power_plant;
}
static bool is_corrupt(const struct sc_design *d)
{
    return d->corrupt;
}
static bool is_provider(const struct sc_design *d)
{
    return d->sims > 0;
}
static bool is_land(const struct sc_design *d)
{
    return d->zone == SC_ZONE_LAND;
}

Test(simcity_deck, the_base_holds_60_cards_and_the_pack_30_as_the_rule_book_lays_out)
{
    cr_expect_eq(scat.base_size, 60);
    cr_expect_eq(scat.pack_size, 30);
    /* base: 24 white (12+ providers, 8 land), 14 green, 10 tan (3 Power Plants), 4 pink,
     * 4 events, 4 council (1 corrupt) */
    cr_expect_eq(count(false, SC_KIND_BLOCK, 1, NULL), 24);
    cr_expect_geq(count(false, SC_KIND_BLOCK, 1, is_provider), 12);
    cr_expect_eq(count(false, SC_KIND_BLOCK, 1, is_land), 8);
    cr_expect_eq(count(false, SC_KIND_BLOCK, 2, NULL), 14);
    cr_expect_eq(count(false, SC_KIND_BLOCK, 3, NULL), 10);
    cr_expect_eq(count(false, SC_KIND_BLOCK, 3, is_plant), 3);
    cr_expect_eq(count(false, SC_KIND_BLOCK, 4, NULL), 4);
    cr_expect_eq(count(false, SC_KIND_EVENT, 0, NULL), 4);
    cr_expect_eq(count(false, SC_KIND_COUNCIL, 0, NULL), 4);
    cr_expect_eq(count(false, SC_KIND_COUNCIL, 0, is_corrupt), 1);
    /* pack: 12 white (3+ providers), 7 green, 5 tan (1 Power Plant), 2 pink, 2 events, 2
     * council */
    cr_expect_eq(count(true, SC_KIND_BLOCK, 1, NULL), 12);
    cr_expect_geq(count(true, SC_KIND_BLOCK, 1, is_provider), 3);
    cr_expect_eq(count(true, SC_KIND_BLOCK, 2, NULL), 7);
    cr_expect_eq(count(true, SC_KIND_BLOCK, 3, NULL), 5);
    cr_expect_eq(count(true, SC_KIND_BLOCK, 3, is_plant), 1);
    cr_expect_eq(count(true, SC_KIND_BLOCK, 4, NULL), 2);
    cr_expect_eq(count(true, SC_KIND_EVENT, 0, NULL), 2);
    cr_expect_eq(count(true, SC_KIND_COUNCIL, 0, NULL), 2);
    bool lands[SC_LAND_COUNT] = {false};
    for (int k = 0; k < scat.ndesigns; k++)
        if (scat.designs[k].copies_base && scat.designs[k].zone == SC_ZONE_LAND)
            lands[scat.designs[k].land] = true;
    for (int l = SC_LAND_FOREST; l < SC_LAND_COUNT; l++)
        cr_expect(lands[l], "the base has no %s", sc_land_name(l));
}

/* "The first city phase card that can be played in the City must be a Power Plant; no other
 * city or metropolis phase card may be played before a Power Plant" (the seed): the Nuclear Power
 * Plant, a metropolis card with power coverage, is one of those other cards, so it does not
 * count as a Power Plant (the audit in tests/audit saw it played first, making a Mayor). */
Test(simcity_deck, the_nuclear_power_plant_is_no_power_plant_that_opens_the_city)
{
    int plant = sc_catalog_find(&scat, "power_plant"),
        nuke = sc_catalog_find(&scat, "nuclear_plant");
    cr_assert(plant >= 0 && nuke >= 0);
    cr_expect(scat.designs[plant].power_plant);
    cr_expect(!scat.designs[nuke].power_plant, "the Nuclear Power Plant opens the city phase");
    cr_expect_eq(scat.designs[nuke].phase, 4);
}

Test(simcity_deck, a_game_takes_the_base_and_one_pack_per_player_past_two)
{
    static struct sc_game g;
    const int sizes[SC_MAX_PLAYERS + 1] = {0, 60, 60, 90, 120, 150, 180};
    for (int p = 1; p <= SC_MAX_PLAYERS; p++) {
        cr_assert_eq(sc_new(&g, &scat, p, 1, 0), SC_OK);
        cr_expect_eq(g.ncards, sizes[p]);
        cr_expect(sc_check_conservation(&g));
        for (int s = 0; s < p; s++)
            cr_expect_geq(g.seats[s].nhand, SC_DEAL);
    }
}

/* Loads the real file with `from` replaced by `to` (once), expecting an error containing
 * `says`. */
static void refused(const char *from, const char *to, const char *says)
{
    char err[512] = "", path[4096];
    const char *root = getenv("CITY_ROOT");
    snprintf(path, sizeof path, "%s/cards/simcity.json", root && *root ? root : ".");
    char *text = text_file_read(path, 1 << 20, err, (int)sizeof err);
    cr_assert_not_null(text, "%s", err);
    char *at = strstr(text, from);
    cr_assert_not_null(at, "\"%s\" is not in the card file", from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *mutated = malloc(n);
    snprintf(mutated, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    static struct sc_catalog cat;
    cr_expect(!sc_catalog_from_json(&cat, mutated, "cards/simcity.json", err, (int)sizeof err),
              "accepted %s -> %s", from, to);
    cr_expect(strstr(err, says) != NULL, "\"%s\" does not say \"%s\"", err, says);
    free(mutated);
    free(text);
}

Test(simcity_deck, a_broken_card_file_is_refused_with_a_sentence_naming_the_card)
{
    refused("\"zone\": \"residential\", \"value\": 1, \"sims\": 2",
            "\"zone\": \"suburban\", \"value\": 1, \"sims\": 2",
            "card \"log_cabin\": \"zone\" must be one of residential");
    refused("\"road\": \"NS\", \"rail\": \"EW\", \"copies\": {\"base\": 3",
            "\"road\": \"N\", \"rail\": \"EW\", \"copies\": {\"base\": 3",
            "card \"log_cabin\": \"road\" must be");
    refused("{\"remove_when\": {\"name\": \"grade_school\"}}",
            "{\"remove_when\": {\"name\": \"grammar_school\"}}",
            "names \"grammar_school\", which is no card of the file");
    refused("\"corrupt\": true, \"vote\": \"no\"", "\"corrupt\": true",
            "card \"ward_boss\": \"vote\" is missing");
    refused("\"hazard\": \"storm\"", "\"hazard\": \"storm\", \"value\": 3",
            "card \"tornado\": a event card takes no \"value\"");
    refused("\"specials\": [{\"limit\": 1}, {\"mayor_gains\": 5}]",
            "\"specials\": [{\"limit\": 1, \"mayor_gains\": 5}]",
            "card \"stadium\": a special names exactly one of");
    refused("\"complex\": {\"name\": \"farm\", \"bonus\": 1, \"if\": \"sims\"}, \"copies\": "
            "{\"base\": 1, \"pack\": 1}",
            "\"complex\": {\"name\": \"farm\", \"bonus\": 1, \"if\": \"water\"}, \"copies\": "
            "{\"base\": 1, \"pack\": 1}",
            "card \"field\": a complex's \"if\" can only be \"sims\"");
    refused(
        "\"id\": \"power_plant\", \"name\": \"Power Plant\", \"kind\": \"block\", \"phase\": 3, "
        "\"zone\": \"services\", \"value\": 5, \"sims\": -3, \"pollution\": 3, \"road\": "
        "\"NESW\", \"power\": true",
        "\"id\": \"power_plant\", \"name\": \"Power Plant\", \"kind\": \"block\", \"phase\": 3, "
        "\"zone\": \"services\", \"value\": 5, \"sims\": -3, \"pollution\": 3, \"road\": "
        "\"NESW\", \"power\": false",
        "card \"power_plant\": power coverage needs the card's own power line");
    refused("\"copies\": {\"base\": 3, \"pack\": 1}, \"text\": \"Receive 1 per block",
            "\"copies\": {\"base\": 0, \"pack\": 1}, \"text\": \"Receive 1 per block",
            "Power Plants, fewer than");
    refused("\"format\": 1", "\"format\": 2", "\"format\" must be 1");
}

static double share_of(long long n, long long games)
{
    return games ? (double)n / (double)games : 0;
}

static void greedy_run(int players, long long games, struct sc_sim_result *r)
{
    int kinds[SC_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        kinds[s] = BOT_GREEDY;
    sc_sim_run(&scat, players, games, 1000 * (uint64_t)players, 0, kinds, r);
    cr_assert_eq(r->illegal, 0, "greedy bot made an illegal decision, seed %llu",
                 (unsigned long long)r->illegal_seed);
    cr_assert_eq(r->broken, 0, "a game broke an invariant");
    cr_assert_eq(r->games, games);
}

Test(simcity_deck, greedy_games_end_legally_and_reach_the_city_at_every_player_count)
{
    for (int p = 1; p <= SC_MAX_PLAYERS; p++) {
        static struct sc_sim_result r;
        greedy_run(p, 60, &r);
        cr_expect_geq(share_of(r.phase_reached[3], r.games), 0.9, "%d players: phase III in %.2f",
                      p, (double)r.phase_reached[3] / (double)r.games);
        cr_expect_eq(r.end_reasons[SC_END_NONE], 0);
    }
}

Test(simcity_deck, each_seat_wins_about_its_share)
{
    for (int p = 2; p <= 4; p++) {
        static struct sc_sim_result r;
        greedy_run(p, 500, &r);
        /* 500 games: one standard deviation is at most 0.022 */
        for (int s = 0; s < p; s++) {
            double seat = r.wins[s] / (double)r.games;
            cr_expect(seat > 1.0 / p - 0.08 && seat < 1.0 / p + 0.08,
                      "%d players: seat %d wins %.3f", p, s, seat);
        }
    }
}

Test(simcity_deck, figures, .timeout = 3600)
{
    const char *n = getenv("SC_FIGURES");
    if (!n || atoll(n) <= 0)
        return;
    for (int p = 1; p <= SC_MAX_PLAYERS; p++) {
        static struct sc_sim_result r;
        clock_t t0 = clock();
        greedy_run(p, atoll(n), &r);
        double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
        json_t *j = sc_sim_report(&scat, &r);
        json_object_set_new(j, "games_per_cpu_sec", json_integer((json_int_t)(r.games / cpu)));
        char *s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(4));
        printf("%s\n", s);
        free(s);
        json_decref(j);
    }
}
