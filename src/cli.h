/* cli.h: the cityd subcommands. Each takes argv starting at the subcommand's name, prints its
 * result on stdout and errors on stderr, and returns the process exit status (0 ok, 1 failed,
 * 2 bad usage). */
#ifndef CITY_CLI_H
#define CITY_CLI_H

#include <stdbool.h>

int cmd_simulate(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_cards(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* `rate`: reads matches from stdin, one JSON object a line, {"ratings": [[mu, sigma], ...],
 * "ranks": [place, ...]}, and prints each match's ratings after it (rating.h) as {"ratings":
 * [[mu, sigma], ...]} on a line of its own, or {"error": "..."} for a line it cannot rate. */
int cmd_rate(int argc, char **argv);

/* `reports [--database URL] [--clear ID]`: prints each standing report of a chat message (the
 * operator's queue, cli_reports.c) as a JSON line, or deletes report ID. */
int cmd_reports(int argc, char **argv);

/* Loads every ruleset's catalog (ruleset.h): the default game's (rulesets[0]) from `path`, or
 * when path is NULL from $CITY_CARDS, or its rs->cards_file in ./cards or in cards/ beside the
 * executable's parent directory, the first that exists; each other game's file from the same
 * folder, or from the usual one when that folder lacks it. Prints the loader's error on stderr
 * and returns false on failure. */
bool cli_load_cards(const char *path);

#endif
