/* cli.c: the offline subcommands of cityd: `simulate` (bot self-play with figures), `replay`
 * (re-run a recorded game) and `cards` (print the catalog). */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bots.h"
#include "catalog_json.h"
#include "game.h"
#include "game_json.h"
#include "sim.h"

static bool file_exists(const char *path)
{
    return access(path, R_OK) == 0;
}

bool cli_load_catalog(struct city_catalog *cat, const char *path)
{
    char buf[PATH_MAX];
    if (!path)
        path = getenv("CITY_CARDS");
    if (!path && file_exists("cards/cards.json"))
        path = "cards/cards.json";
    if (!path) {
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 32);
        if (n > 0) {
            buf[n] = 0;
            char *slash = strrchr(buf, '/');
            if (slash) {
                strcpy(slash, "/../cards/cards.json");
                if (file_exists(buf))
                    path = buf;
            }
        }
    }
    if (!path) {
        fprintf(stderr, "cityd: no card file found; pass --cards FILE or set CITY_CARDS\n");
        return false;
    }
    char err[512];
    if (!catalog_load_file(cat, path, err, sizeof err)) {
        fprintf(stderr, "cityd: %s\n", err);
        return false;
    }
    return true;
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

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses "greedy", "random" or a comma list of one of those per seat. */
static bool parse_bots(const char *spec, int players, int *kinds)
{
    char copy[256];
    if (strlen(spec) >= sizeof copy)
        return false;
    strcpy(copy, spec);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int k = bot_kind_from_name(tok);
        if (k < 0 || n >= CITY_MAX_PLAYERS)
            return false;
        kinds[n++] = k;
    }
    if (n == 1)
        for (int s = 1; s < players; s++)
            kinds[s] = kinds[0];
    else if (n != players)
        return false;
    return true;
}

int cmd_simulate(int argc, char **argv)
{
    unsigned long long players = 4, games = 1000, seed = 1;
    const char *bots = "greedy", *cards = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
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
        else
            ok = false;
        if (!ok) {
            fprintf(stderr, "cityd simulate: bad option \"%s\"\n", a);
            return 2;
        }
        i++;
    }
    if (players < CITY_MIN_PLAYERS || players > CITY_MAX_PLAYERS || games < 1 ||
        games > 100000000ULL) {
        fprintf(stderr, "cityd simulate: --players must be 2..5 and --games 1..100000000\n");
        return 2;
    }
    int kinds[CITY_MAX_PLAYERS];
    if (!parse_bots(bots, (int)players, kinds)) {
        fprintf(stderr, "cityd simulate: --bots must be greedy, random or a comma list of one "
                        "per seat\n");
        return 2;
    }
    static struct city_catalog cat;
    if (!cli_load_catalog(&cat, cards))
        return 1;

    int P = (int)players;
    static struct sim_result r;
    double t0 = now_seconds();
    sim_run(&cat, P, (long long)games, seed, kinds, &r);
    double secs = now_seconds() - t0;
    if (r.illegal) {
        fprintf(stderr, "cityd simulate: a bot made an illegal decision (seed %llu)\n",
                (unsigned long long)r.illegal_seed);
        return 1;
    }
    double *wins = r.wins, *winner_has = r.winner_has;

    json_t *ws = json_array();
    for (int s = 0; s < P; s++)
        json_array_append_new(ws, json_real(wins[s] / (double)games));
    /* The most common development among winners; General Contractors are reported apart,
     * since every player may take one from the pool. */
    int top = -1;
    for (int k = 0; k < cat.ndesigns; k++)
        if (k != cat.contractor_design && (top < 0 || winner_has[k] > winner_has[top]))
            top = k;
    json_t *out = json_pack(
        "{s:i, s:I, s:I, s:s, s:f, s:i, s:i, s:o, s:f, s:I, s:I, s:{s:s, s:f}, s:f}", "players", P,
        "games", (json_int_t)games, "seed", (json_int_t)seed, "bots", bots, "avg_rounds",
        (double)r.rounds_sum / (double)games, "min_rounds", r.min_rounds, "max_rounds",
        r.max_rounds, "wins_by_seat", ws, "games_per_sec", secs > 0 ? (double)games / secs : 0.0,
        "ended_by_deck", (json_int_t)r.ended_by_deck, "ended_by_rounds",
        (json_int_t)r.ended_by_rounds, "top_winner_card", "card", cat.designs[top].id, "share",
        winner_has[top] / (double)games, "contractor_in_winners",
        winner_has[cat.contractor_design] / (double)games);
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
    static struct city_catalog cat;
    if (!cli_load_catalog(&cat, cards))
        return 1;
    json_error_t jerr;
    json_t *rec = json_load_file(file, 0, &jerr);
    if (!rec) {
        fprintf(stderr, "cityd replay: %s:%d:%d: %s\n", file, jerr.line, jerr.column, jerr.text);
        return 1;
    }
    static struct city_game g;
    char err[512];
    bool ok = replay_run(&cat, rec, &g, err, sizeof err);
    json_decref(rec);
    if (!ok) {
        fprintf(stderr, "cityd replay: %s: %s\n", file, err);
        return 1;
    }
    json_t *view = game_public_view(&g);
    json_dumpf(view, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(view);
    return 0;
}

int cmd_cards(int argc, char **argv)
{
    const char *cards = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cards") == 0 && i + 1 < argc)
            cards = argv[++i];
        else {
            fprintf(stderr, "cityd cards: bad argument \"%s\"\n", argv[i]);
            return 2;
        }
    }
    static struct city_catalog cat;
    if (!cli_load_catalog(&cat, cards))
        return 1;
    json_t *j = catalog_to_json(&cat);
    json_dumpf(j, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(j);
    return 0;
}
