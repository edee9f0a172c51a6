/* main.c: the cityd command line — dispatches to `simulate`, `replay`, `cards`, `rate`,
 * `hash-cost`, `reports` (and, with the service, `serve`), and finds the card file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pwhash.h"

/* `cityd hash-cost [RUNS]`: the median time of one account password hash with this server's
 * argon2id costs (pwhash.h), so that an operator can see what a sign-in costs on the machine. */
static int cmd_hash_cost(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    if (runs < 1 || runs > 64) {
        fprintf(stderr, "cityd hash-cost: RUNS must be 1 to 64\n");
        return 2;
    }
    printf("{\"opslimit\": %llu, \"memlimit_mib\": %llu, \"runs\": %d, \"median_ms\": %.1f}\n",
           (unsigned long long)PWHASH_OPSLIMIT, (unsigned long long)(PWHASH_MEMLIMIT >> 20), runs,
           pwhash_measure_ms(runs));
    return 0;
}

static int usage(FILE *out)
{
    fprintf(out, "usage: cityd COMMAND [options]\n"
                 "  simulate --players P --games N --seed S [--bots greedy|random|LIST]\n"
                 "           [--cards FILE]      play bot games, print figures as JSON\n"
                 "           [--game G] [--think-ms MS] [--iterations N] [--rollout KIND]\n"
                 "           [--level easy|normal|expert]   the expert's budget and level\n"
                 "           [--per-card]        each development's built and winners' shares\n"
                 "  replay FILE [--cards FILE]   replay {seed, players, decisions}, print the\n"
                 "                               final public state\n"
                 "  cards [--cards FILE]         print the card catalog as JSON\n"
                 "  rate                         rate matches read as JSON lines on stdin\n"
                 "                               (OpenSkill Plackett-Luce; see README)\n"
                 "  hash-cost [RUNS]             the median ms of one account password hash\n"
                 "  reports [--database URL] [--clear ID | --remove MSG]   reported chat\n"
                 "                               messages, one JSON line each; --clear deletes a\n"
                 "                               report dealt with, --remove takes a message down\n"
                 "  serve [--port N] [--database URL] ...   the HTTP service (see README)\n");
    return out == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    const char *cmd = argv[1];
    if (strcmp(cmd, "simulate") == 0)
        return cmd_simulate(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(cmd, "cards") == 0)
        return cmd_cards(argc - 1, argv + 1);
    if (strcmp(cmd, "rate") == 0)
        return cmd_rate(argc - 1, argv + 1);
    if (strcmp(cmd, "reports") == 0)
        return cmd_reports(argc - 1, argv + 1);
    if (strcmp(cmd, "hash-cost") == 0)
        return cmd_hash_cost(argc - 1, argv + 1);
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0)
        return usage(stdout);
    fprintf(stderr, "cityd: unknown command \"%s\"\n", cmd);
    return usage(stderr);
}
