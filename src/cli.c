/* cli.c: the offline subcommands of cityd: `simulate` (bot self-play with figures), `replay`
 * (re-run a recorded game), `cards` (print the catalog) and `rate` (rating updates, for the
 * rating's oracle test). */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "expert.h"
#include "expert_levels.h"
#include "match.h"
#include "rating.h"
#include "ruleset.h"

static bool file_exists(const char *path)
{
    return access(path, R_OK) == 0;
}

/* The cards folder: the folder of the default game's card file when one is named, else ./cards
 * when it holds that game's file, else cards/ beside the binary's folder; "" when none is
 * found. */
static void cards_dir(const char *default_path, char *out, size_t n)
{
    if (default_path) {
        const char *slash = strrchr(default_path, '/');
        if (slash)
            snprintf(out, n, "%.*s", (int)(slash - default_path), default_path);
        else
            snprintf(out, n, ".");
        return;
    }
    char here[PATH_MAX];
    snprintf(here, sizeof here, "cards/%s", rulesets[0]->cards_file);
    if (file_exists(here)) {
        snprintf(out, n, "cards");
        return;
    }
    char buf[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 32);
    out[0] = 0;
    if (len > 0) {
        buf[len] = 0;
        char *slash = strrchr(buf, '/');
        if (slash) {
            strcpy(slash, "/../cards");
            if (file_exists(buf))
                snprintf(out, n, "%s", buf);
        }
    }
}

bool cli_load_cards(const char *path)
{
    if (!path)
        path = getenv("CITY_CARDS");
    char dir[PATH_MAX], other[PATH_MAX];
    cards_dir(path, dir, sizeof dir);
    if (!path && !dir[0]) {
        fprintf(stderr, "cityd: no card file found; pass --cards FILE or set CITY_CARDS\n");
        return false;
    }
    for (int i = 0; rulesets[i]; i++) {
        const struct ruleset *rs = rulesets[i];
        char file[PATH_MAX + 64];
        if (i == 0 && path) {
            snprintf(file, sizeof file, "%s", path);
        } else {
            snprintf(file, sizeof file, "%s/%s", dir, rs->cards_file);
            /* The default game's card file elsewhere: the other games' files from the usual
             * place. */
            if (!file_exists(file)) {
                cards_dir(NULL, other, sizeof other);
                if (!other[0]) {
                    fprintf(stderr, "cityd: no card file for %s (%s) in %s or the usual places\n",
                            rs->title, rs->cards_file, dir);
                    return false;
                }
                snprintf(file, sizeof file, "%s/%s", other, rs->cards_file);
            }
        }
        char err[512];
        if (!rs->load_cards(file, err, sizeof err)) {
            fprintf(stderr, "cityd: %s\n", err);
            return false;
        }
    }
    return true;
}

/* The ruleset --game names (NULL: the default game); NULL with a message when unknown. */
static const struct ruleset *game_option(const char *cmd, const char *name)
{
    if (!name)
        return rulesets[0];
    const struct ruleset *rs = ruleset_find(name);
    if (!rs) {
        fprintf(stderr, "cityd %s: unknown --game \"%s\"; one of", cmd, name);
        for (int i = 0; rulesets[i]; i++)
            fprintf(stderr, " %s", rulesets[i]->id);
        fputc('\n', stderr);
    }
    return rs;
}

/* Parses a non-negative integer option value; exits with usage status on junk. */
static bool parse_u64(const char *s, unsigned long long *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || s[0] == '-')
        return false;
    *out = v;
    return true;
}

/* Seconds on `clock` (CLOCK_MONOTONIC: wall time; CLOCK_PROCESS_CPUTIME_ID: this process's
 * CPU time, which other work on a shared machine does not inflate). */
static double seconds_on(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmd_simulate(int argc, char **argv)
{
    unsigned long long players = 4, games = 1000, seed = 1, think = 100, iterations = 1000;
    const char *bots = "greedy", *cards = NULL, *game = NULL, *rollout = "greedy";
    const char *level = EXPERT_LEVEL_DEFAULT;
    bool has_iterations = false, has_rollout = false, per_card = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (strcmp(a, "--per-card") == 0) {
            per_card = true;
            continue;
        }
        if (strcmp(a, "--players") == 0)
            ok = ok && parse_u64(v, &players);
        else if (strcmp(a, "--games") == 0)
            ok = ok && parse_u64(v, &games);
        else if (strcmp(a, "--seed") == 0)
            ok = ok && parse_u64(v, &seed);
        else if (strcmp(a, "--bots") == 0)
            bots = v;
        else if (strcmp(a, "--cards") == 0)
            cards = v;
        else if (strcmp(a, "--game") == 0)
            game = v;
        else if (strcmp(a, "--think-ms") == 0)
            ok = ok && parse_u64(v, &think) && think <= 60000;
        else if (strcmp(a, "--rollout") == 0) {
            rollout = v;
            has_rollout = true;
        } else if (strcmp(a, "--iterations") == 0) {
            ok = ok && parse_u64(v, &iterations) && iterations <= 100000000ULL;
            has_iterations = true;
        } else if (strcmp(a, "--level") == 0)
            level = v;
        else
            ok = false;
        if (!ok) {
            fprintf(stderr, "cityd simulate: bad option \"%s\"\n", a);
            return 2;
        }
        i++;
    }
    const struct ruleset *rs = game_option("simulate", game);
    if (!rs)
        return 2;
    if (players < (unsigned long long)rs->min_players ||
        players > (unsigned long long)rs->max_players || games < 1 || games > 100000000ULL) {
        fprintf(stderr, "cityd simulate: --players must be %d..%d and --games 1..100000000\n",
                rs->min_players, rs->max_players);
        return 2;
    }
    const struct expert_level *lv = expert_level_find(level);
    if (!lv) {
        fprintf(stderr, "cityd simulate: unknown --level \"%s\"; one of", level ? level : "");
        for (int i = 0; expert_levels[i].id; i++)
            fprintf(stderr, " %s", expert_levels[i].id);
        fputc('\n', stderr);
        return 2;
    }
    if (!cli_load_cards(cards))
        return 1;
    char err[256];
    double t0 = seconds_on(CLOCK_MONOTONIC), c0 = seconds_on(CLOCK_PROCESS_CPUTIME_ID);
    /* The level's budget with --think-ms as the top one (as --expert-ms is the daemon's), and
     * --iterations and --rollout, when given, in place of the level's. */
    expert_defaults = expert_level_params(lv, (double)think);
    if (has_iterations)
        expert_defaults.iterations = (int)iterations;
    if (has_rollout)
        expert_defaults.rollout = rollout;
    /* With the expert among the bots, or a card report asked for, a match (who wins, decision
     * times, which cards) through the ruleset table; otherwise the ruleset's own self-play with
     * the deck's figures. */
    json_t *out =
        strstr(bots, "expert") || per_card
            ? ruleset_match(rs, (int)players, (long long)games, seed, bots, err, sizeof err)
            : rs->simulate((int)players, (long long)games, seed, bots, err, sizeof err);
    double secs = seconds_on(CLOCK_MONOTONIC) - t0;
    double cpu = seconds_on(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (!out) {
        fprintf(stderr, "cityd simulate: %s\n", err);
        return strncmp(err, "--", 2) == 0 ? 2 : 1;
    }
    json_object_set_new(out, "game", json_string(rs->id));
    if (strstr(bots, "expert"))
        json_object_set_new(out, "expert",
                            json_pack("{s:s, s:f, s:i, s:i}", "level", lv->id, "think_ms",
                                      expert_defaults.think_ms, "iterations",
                                      expert_defaults.iterations, "candidates",
                                      expert_defaults.candidates));
    json_object_set_new(out, "games_per_sec", json_real(secs > 0 ? (double)games / secs : 0.0));
    json_object_set_new(out, "games_per_cpu_sec", json_real(cpu > 0 ? (double)games / cpu : 0.0));
    json_dumpf(out, stdout, JSON_COMPACT | JSON_REAL_PRECISION(6));
    putchar('\n');
    json_decref(out);
    return 0;
}

int cmd_replay(int argc, char **argv)
{
    const char *file = NULL, *cards = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cards") == 0 && i + 1 < argc)
            cards = argv[++i];
        else if (!file && argv[i][0] != '-')
            file = argv[i];
        else {
            fprintf(stderr, "cityd replay: bad argument \"%s\"\n", argv[i]);
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "usage: cityd replay FILE [--cards FILE]\n");
        return 2;
    }
    if (!cli_load_cards(cards))
        return 1;
    json_error_t jerr;
    json_t *rec = json_load_file(file, 0, &jerr);
    if (!rec) {
        fprintf(stderr, "cityd replay: %s:%d:%d: %s\n", file, jerr.line, jerr.column, jerr.text);
        return 1;
    }
    /* The record names its game; records from before there were several are the default
     * game's (rulesets[0]). */
    json_t *jgame = json_object_get(rec, "game");
    const struct ruleset *rs =
        jgame ? game_option("replay", json_is_string(jgame) ? json_string_value(jgame) : "?")
              : rulesets[0];
    void *g = rs ? calloc(1, rs->state_size) : NULL;
    char err[512];
    bool ok = g && rs->replay_run(rec, g, err, sizeof err);
    json_decref(rec);
    if (!ok) {
        if (g)
            fprintf(stderr, "cityd replay: %s: %s\n", file, err);
        free(g);
        return 1;
    }
    json_t *view = rs->public_view(g);
    free(g);
    json_dumpf(view, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(view);
    return 0;
}

int cmd_cards(int argc, char **argv)
{
    const char *cards = NULL, *game = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cards") == 0 && i + 1 < argc)
            cards = argv[++i];
        else if (strcmp(argv[i], "--game") == 0 && i + 1 < argc)
            game = argv[++i];
        else {
            fprintf(stderr, "cityd cards: bad argument \"%s\"\n", argv[i]);
            return 2;
        }
    }
    const struct ruleset *rs = game_option("cards", game);
    if (!rs)
        return 2;
    if (!cli_load_cards(cards))
        return 1;
    json_t *j = rs->cards_json();
    json_dumpf(j, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(j);
    return 0;
}

/* One match of `rate`: its ratings and ranks read from line j, its result printed. */
static void rate_line(const json_t *j)
{
    const json_t *rs = json_object_get(j, "ratings"), *rk = json_object_get(j, "ranks");
    size_t n = json_array_size(rs);
    struct rating in[RATING_MAX_PLAYERS], out[RATING_MAX_PLAYERS];
    int rank[RATING_MAX_PLAYERS];
    bool ok = n >= 2 && n <= RATING_MAX_PLAYERS && json_array_size(rk) == n;
    for (size_t i = 0; ok && i < n; i++) {
        const json_t *r = json_array_get(rs, i);
        ok = json_is_number(json_array_get(r, 0)) && json_is_number(json_array_get(r, 1)) &&
             json_is_integer(json_array_get(rk, i));
        in[i] = (struct rating){json_number_value(json_array_get(r, 0)),
                                json_number_value(json_array_get(r, 1))};
        rank[i] = (int)json_integer_value(json_array_get(rk, i));
    }
    if (!ok || rating_rate((int)n, in, rank, out) != 0) {
        printf("{\"error\": \"need ratings [[mu, sigma], ...] of 2..%d players and as many integer "
               "ranks\"}\n",
               RATING_MAX_PLAYERS);
        return;
    }
    printf("{\"ratings\": [");
    for (size_t i = 0; i < n; i++)
        printf("%s[%.17g, %.17g]", i ? ", " : "", out[i].mu, out[i].sigma);
    printf("]}\n");
}

int cmd_rate(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: cityd rate < matches (one JSON object a line)\n");
        return 2;
    }
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        json_error_t e;
        json_t *j = json_loads(line, 0, &e);
        if (!j) {
            printf("{\"error\": \"not JSON\"}\n");
            continue;
        }
        rate_line(j);
        json_decref(j);
    }
    return 0;
}
