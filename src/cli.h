/* cli.h: the cityd subcommands. Each takes argv starting at the subcommand's name, prints its
 * result on stdout and errors on stderr, and returns the process exit status (0 ok, 1 failed,
 * 2 bad usage). */
#ifndef CITY_CLI_H
#define CITY_CLI_H

#include "cards.h"

int cmd_simulate(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_cards(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* Loads the catalog from `path`, or when path is NULL from $CITY_CARDS, ./cards/cards.json,
 * or cards/cards.json beside the executable's parent directory, the first that exists.
 * Prints the loader's error on stderr and returns false on failure. */
bool cli_load_catalog(struct city_catalog *cat, const char *path);

#endif
