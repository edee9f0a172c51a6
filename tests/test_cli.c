/* test_cli.c: the cityd command line as a user runs it: `cards` lists the 110 cards,
 * `simulate` prints its figures (the expert's at the level named), `replay` reproduces a recorded
 * game exactly, and bad usage gets a clear message and a non-zero status. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "the_city/city_bots.h"
#include "the_city/city.h"
#include "the_city/city_json.h"
#include "ruleset.h"

static struct city_catalog cat;
static char root[1024], cityd[1024];

static void setup(void)
{
    const char *r = getenv("CITY_ROOT"), *c = getenv("CITYD");
    snprintf(root, sizeof root, "%s", r ? r : ".");
    snprintf(cityd, sizeof cityd, "%s", c ? c : "build/cityd");
    char path[1200], err[512];
    snprintf(path, sizeof path, "%s/cards/cards.json", root);
    cr_assert(city_catalog_load_file(&cat, path, err, sizeof err), "%s", err);
}

/* Each test runs in a process of its own, whose cityd's stderr went to a file named by its pid
 * (run()): removed when the test ends, so that runs leave nothing in /tmp. */
static void cleanup(void)
{
    char errpath[64];
    snprintf(errpath, sizeof errpath, "/tmp/cityd-test-stderr-%d", (int)getpid());
    unlink(errpath);
}

TestSuite(cli, .init = setup, .fini = cleanup);

/* Runs `cityd ARGS` from the project root; returns its stdout (caller frees) and status. */
static char *run(const char *args, int *status)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>/tmp/cityd-test-stderr-%d", root, cityd, args,
             (int)getpid());
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 >= cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

static json_t *run_json(const char *args)
{
    int status;
    char *out = run(args, &status);
    cr_assert_eq(status, 0, "cityd %s exited %d", args, status);
    json_error_t e;
    json_t *j = json_loads(out, 0, &e);
    cr_assert_not_null(j, "cityd %s printed no JSON: %s", args, e.text);
    free(out);
    return j;
}

Test(cli, cards_lists_110_cards_with_their_fields)
{
    json_t *j = run_json("cards");
    json_t *cards = json_object_get(j, "cards");
    cr_assert(json_is_array(cards));
    int total = 0;
    size_t i;
    json_t *c;
    json_array_foreach(cards, i, c)
    {
        const char *keys[] = {"id", "name", "cost", "vp", "income", "icons", "text", "count"};
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            cr_assert_not_null(json_object_get(c, keys[k]), "card %zu lacks %s", i, keys[k]);
        total += (int)json_integer_value(json_object_get(c, "count"));
    }
    cr_expect_eq(total, CITY_DECK_SIZE);
    cr_expect_eq(json_integer_value(json_object_get(j, "total")), CITY_DECK_SIZE);
    json_decref(j);
}

Test(cli, simulate_prints_the_promised_figures)
{
    json_t *j = run_json("simulate --players 3 --games 200 --seed 5 --bots greedy,random,greedy");
    const char *keys[] = {"players",      "games",         "seed",
                          "avg_rounds",   "min_rounds",    "max_rounds",
                          "wins_by_seat", "games_per_sec", "ended_by_deck"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        cr_assert_not_null(json_object_get(j, keys[k]), "no %s", keys[k]);
    cr_expect_eq(json_integer_value(json_object_get(j, "players")), 3);
    cr_expect_eq(json_integer_value(json_object_get(j, "games")), 200);
    json_t *w = json_object_get(j, "wins_by_seat");
    cr_assert_eq(json_array_size(w), 3);
    double sum = 0;
    for (size_t i = 0; i < 3; i++)
        sum += json_real_value(json_array_get(w, i));
    cr_expect(sum > 0.999 && sum < 1.001, "win shares sum to %f", sum);
    double lo = (double)json_integer_value(json_object_get(j, "min_rounds"));
    double avg = json_real_value(json_object_get(j, "avg_rounds"));
    double hi = (double)json_integer_value(json_object_get(j, "max_rounds"));
    cr_expect(lo <= avg && avg <= hi);
    json_decref(j);
}

Test(cli, simulate_is_deterministic_from_its_seed)
{
    json_t *a = run_json("simulate --players 4 --games 100 --seed 9 --bots random");
    json_t *b = run_json("simulate --players 4 --games 100 --seed 9 --bots random");
    const char *timings[] = {"games_per_sec", "games_per_cpu_sec"};
    for (size_t k = 0; k < sizeof timings / sizeof *timings; k++) {
        cr_assert_not_null(json_object_get(a, timings[k]), "no %s", timings[k]);
        json_object_del(a, timings[k]);
        json_object_del(b, timings[k]);
    }
    cr_expect(json_equal(a, b));
    json_decref(a);
    json_decref(b);
}

/* Plays a game of `players` bots (greedy and random alternating, bot seeds from `bot_seed`) from
 * `seed` to its end into *g, and returns its replay record. */
static json_t *record_bot_game(struct city_game *g, int players, uint64_t seed, uint64_t bot_seed)
{
    cr_assert_eq(city_new(g, &cat, players, seed, 0), CITY_OK);
    json_t *rec = city_replay_new(g->seed, players, g->target_vp);
    struct bot bots[CITY_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        city_bot_init(&bots[s], s % 2 ? BOT_RANDOM : BOT_GREEDY, bot_seed + (uint64_t)s);
    while (g->step != CITY_STEP_OVER) {
        for (int s = 0; s < players; s++) {
            struct city_decision d;
            if (!city_bot_decide(&bots[s], g, s, &d))
                continue;
            cr_assert_eq(city_submit(g, s, &d), CITY_OK);
            cr_assert(city_replay_add(rec, s, g->round, g->step, &d));
        }
        cr_assert(city_resolve(g, NULL));
    }
    return rec;
}

Test(cli, replay_reproduces_a_recorded_game)
{
    for (int n = 0; n < 5; n++) {
        int players = 2 + n % 4;
        struct city_game g;
        json_t *rec = record_bot_game(&g, players, 4242 + (uint64_t)n, (uint64_t)(n * 10));
        char path[] = "/tmp/cityd-replay-XXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        close(fd);
        cr_assert_eq(json_dump_file(rec, path, 0), 0);
        char args[256];
        snprintf(args, sizeof args, "replay %s", path);
        json_t *out = run_json(args);
        json_t *want = city_public_view(&g);
        cr_expect(json_equal(out, want), "replayed game %d differs from the original", n);
        cr_expect_str_eq(json_string_value(json_object_get(out, "step")), "over");
        unlink(path);
        json_decref(out);
        json_decref(want);
        json_decref(rec);
    }
}

Test(cli, bad_usage_is_refused_with_a_message)
{
    int status;
    free(run("simulate --players 9", &status));
    cr_expect_eq(status, 2);
    free(run("simulate --games", &status));
    cr_expect_eq(status, 2);
    free(run("frobnicate", &status));
    cr_expect_eq(status, 2);
    free(run("cards --cards /nonexistent/cards.json", &status));
    cr_expect_eq(status, 1);
    char errpath[64];
    snprintf(errpath, sizeof errpath, "/tmp/cityd-test-stderr-%d", (int)getpid());
    FILE *f = fopen(errpath, "r");
    char line[512] = "";
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(errpath);
    cr_expect(strstr(line, "/nonexistent/cards.json") != NULL, "stderr: %s", line);
}

Test(cli, serve_help_prints_the_usage_and_exits_0)
{
    int status;
    char *out = run("serve --help", &status);
    cr_expect_eq(status, 0, "cityd serve --help exits %d", status);
    cr_expect(strstr(out, "usage: cityd serve") && strstr(out, "CITY_MAX_CONNECTIONS"),
              "the usage on standard output: %.300s", out);
    cr_expect(!strstr(out, "unknown option"), "%.300s", out);
    free(out);
    out = run("serve --frobnicate", &status);
    cr_expect_eq(status, 2, "an unknown flag is still a usage error");
    free(out);
}

Test(cli, simulate_plays_the_expert_at_the_level_it_is_given)
{
    json_t *j =
        run_json("simulate --players 2 --games 2 --seed 3 --bots expert,greedy --think-ms 0 "
                 "--level easy");
    json_t *e = json_object_get(j, "expert");
    cr_expect_str_eq(json_string_value(json_object_get(e, "level")), "easy");
    cr_expect_eq(json_integer_value(json_object_get(e, "iterations")), 16, "the level's playouts");
    cr_expect_eq(json_integer_value(json_object_get(e, "candidates")), 4);
    json_decref(j);
    /* --iterations replaces the level's playouts; the top level is the default. */
    j = run_json("simulate --players 2 --games 1 --seed 3 --bots expert,greedy --think-ms 0 "
                 "--iterations 20");
    e = json_object_get(j, "expert");
    cr_expect_str_eq(json_string_value(json_object_get(e, "level")), "expert");
    cr_expect_eq(json_integer_value(json_object_get(e, "iterations")), 20);
    json_decref(j);
    int status;
    free(run("simulate --bots expert,greedy --players 2 --games 1 --level grandmaster", &status));
    cr_expect_eq(status, 2, "an unknown level is bad usage");
}

Test(cli, replay_of_a_broken_file_names_the_problem)
{
    char path[] = "/tmp/cityd-bad-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *text = "{\"seed\": 1, \"players\": 2, \"decisions\": [{\"seat\": 0, \"round\": 0, "
                       "\"step\": \"keep\", \"discard\": [200, 201]}]}";
    cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    char args[256];
    snprintf(args, sizeof args, "replay %s", path);
    int status;
    free(run(args, &status));
    cr_expect_eq(status, 1);
    unlink(path);
}

Test(cli, replay_reads_its_game_from_the_file_and_refuses_an_unknown_one)
{
    struct city_game g;
    json_t *rec = record_bot_game(&g, 2, 77, 0);
    char path[] = "/tmp/cityd-replay-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    char args[256];
    snprintf(args, sizeof args, "replay %s", path);
    /* As the service publishes it now: with "game". */
    json_object_set_new(rec, "game", json_string("the_city"));
    cr_assert_eq(json_dump_file(rec, path, 0), 0);
    json_t *out = run_json(args), *want = city_public_view(&g);
    cr_expect(json_equal(out, want), "a replay naming the_city reproduces the game");
    json_decref(out);
    json_decref(want);
    /* A game this build does not host: refused with a message, exit status 1. */
    json_object_set_new(rec, "game", json_string("chess"));
    cr_assert_eq(json_dump_file(rec, path, 0), 0);
    int status;
    free(run(args, &status));
    cr_expect_eq(status, 1);
    unlink(path);
    json_decref(rec);
}

Test(cli, cards_and_simulate_take_a_game_and_refuse_an_unknown_one)
{
    json_t *c = run_json("cards --game the_city");
    cr_expect_eq(json_integer_value(json_object_get(c, "total")), 110);
    json_decref(c);
    json_t *s = run_json("simulate --game the_city --players 3 --games 20 --seed 4");
    cr_expect_str_eq(json_string_value(json_object_get(s, "game")), "the_city");
    json_decref(s);
    int status;
    free(run("cards --game chess", &status));
    cr_expect_eq(status, 2);
    free(run("simulate --game chess", &status));
    cr_expect_eq(status, 2);
}

Test(cli, every_ruleset_fits_the_seam_limits)
{
    for (int i = 0; rulesets[i]; i++) {
        cr_expect(rulesets[i]->state_size <= RS_MAX_STATE, "%s: state too large", rulesets[i]->id);
        cr_expect(rulesets[i]->decision_size <= 4096, "%s: decision too large", rulesets[i]->id);
        cr_expect(rulesets[i]->bots[0] && rulesets[i]->steps[0], "%s: bots and steps",
                  rulesets[i]->id);
        cr_expect_eq(ruleset_find(rulesets[i]->id), rulesets[i]);
    }
}

/* The card report comes from the generic match loop (match.c); The City's own self-play
 * (city_sim.c) counts winners' cards on its own. The same games must give the same figures. */
/* One report for every game and either way it is played (the ruleset's own self-play, or the
 * generic match that --per-card and the expert use): the keys of docs/rulesets.md. */
Test(cli, simulate_reports_the_same_keys_for_every_game)
{
    const char *keys[] = {"game",
                          "players",
                          "games",
                          "finished",
                          "seed",
                          "bots",
                          "avg_rounds",
                          "min_rounds",
                          "max_rounds",
                          "wins_by_seat",
                          "wins_by_kind",
                          "cards",
                          "most_in_winners",
                          "least_built",
                          "games_per_sec",
                          "games_per_cpu_sec"};
    const char *runs[] = {
        "simulate --game the_city --players 3 --games 40 --seed 2 --bots greedy,random,greedy",
        "simulate --game the_city --players 3 --games 40 --seed 2 --bots greedy,random,greedy "
        "--per-card",
        "simulate --game tech_city --players 3 --games 40 --seed 2 --bots greedy,random,greedy",
        "simulate --game tech_city --players 3 --games 40 --seed 2 --bots greedy,random,greedy "
        "--per-card",
        "simulate --game simcity --players 3 --games 40 --seed 2 --bots greedy,random,greedy",
        "simulate --game simcity --players 3 --games 40 --seed 2 --bots greedy,random,greedy "
        "--per-card",
    };
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        json_t *j = run_json(runs[r]);
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            cr_expect_not_null(json_object_get(j, keys[k]), "%s: no %s", runs[r], keys[k]);
        cr_expect_eq(json_integer_value(json_object_get(j, "finished")), 40, "%s", runs[r]);
        json_t *byk = json_object_get(j, "wins_by_kind");
        double share = 0;
        long long seats = 0;
        const char *kind;
        json_t *v;
        json_object_foreach(byk, kind, v)
        {
            share += json_real_value(json_object_get(v, "share"));
            seats += json_integer_value(json_object_get(v, "seat_games"));
        }
        cr_expect_eq(json_object_size(byk), 2, "%s: greedy and random", runs[r]);
        cr_expect(share > 0.999 && share < 1.001, "%s: kinds' shares sum to %f", runs[r], share);
        cr_expect_eq(seats, 3 * 40, "%s", runs[r]);
        json_t *c = json_array_get(json_object_get(j, "cards"), 0);
        cr_expect(json_is_string(json_object_get(c, "card")) &&
                      json_is_real(json_object_get(c, "built")) &&
                      json_is_real(json_object_get(c, "in_winners")),
                  "%s: cards are {card, built, in_winners}", runs[r]);
        json_decref(j);
    }
}

/* `make run` installs what running needs (scripts/deps.sh run), and no tool only the tests use;
 * `make test` installs both. */
Test(cli, make_run_installs_no_test_only_packages)
{
    char cmd[1200], run[1024] = "", all[1024] = "";
    snprintf(cmd, sizeof cmd, "'%s/scripts/deps.sh' list run", root);
    FILE *p = popen(cmd, "r");
    cr_assert(p && fgets(run, sizeof run, p));
    pclose(p);
    snprintf(cmd, sizeof cmd, "'%s/scripts/deps.sh' list", root);
    p = popen(cmd, "r");
    cr_assert(p && fgets(all, sizeof all, p));
    pclose(p);
    const char *needed[] = {"gcc ", "libmicrohttpd-dev", "libpq-dev", "libjansson-dev",
                            "postgresql"};
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++)
        cr_expect(strstr(run, needed[i]) && strstr(all, needed[i]), "%s: %s", needed[i], run);
    const char *test_only[] = {"nginx",        "chromium",    "clang ", "clang-format",
                               "libcriterion", "libclang-rt", "libcurl"};
    for (size_t i = 0; i < sizeof test_only / sizeof *test_only; i++) {
        cr_expect(strstr(run, test_only[i]) == NULL, "make run installs %s: %s", test_only[i], run);
        cr_expect(strstr(all, test_only[i]) != NULL, "make test installs %s", test_only[i]);
    }
}

Test(cli, the_card_report_agrees_with_the_self_play_figures)
{
    json_t *self = run_json("simulate --players 4 --games 300 --seed 9 --bots greedy");
    json_t *rep = run_json("simulate --players 4 --games 300 --seed 9 --bots greedy --per-card");
    json_t *top = json_object_get(self, "top_winner_card");
    json_t *most = json_object_get(rep, "most_in_winners");
    cr_assert_str_eq(json_string_value(json_object_get(most, "card")),
                     json_string_value(json_object_get(top, "card")));
    cr_expect_float_eq(json_real_value(json_object_get(most, "share")),
                       json_real_value(json_object_get(top, "share")), 1e-9);
    cr_expect_float_eq(json_real_value(json_object_get(rep, "avg_rounds")),
                       json_real_value(json_object_get(self, "avg_rounds")), 1e-9);
    json_t *cards = json_object_get(rep, "cards"), *deck = run_json("cards");
    cr_assert_eq(json_array_size(cards), json_array_size(json_object_get(deck, "cards")) - 1,
                 "every development, no General Contractor");
    json_decref(deck);
    size_t i;
    json_t *c;
    json_array_foreach(cards, i, c)
    {
        double b = json_real_value(json_object_get(c, "built"));
        double w = json_real_value(json_object_get(c, "in_winners"));
        cr_expect(b >= 0 && b <= 1 && w >= 0 && w <= b + 1e-9, "%s: built %f, in winners %f",
                  json_string_value(json_object_get(c, "card")), b, w);
    }
    json_decref(self);
    json_decref(rep);
}
