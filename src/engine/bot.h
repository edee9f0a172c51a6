/* bot.h: what the computer players of every game share: the kinds a game's own bots come in
 * (random and greedy), their names, and a bot's own random stream. Each game keeps its own
 * decide function taking a struct bot (PREFIX_bot_decide() in its folder); the expert, which
 * any game can play through its ruleset, is not one of these kinds (expert.h). Bots draw from
 * their own generator, never the game's, so a recorded game replays without them. */
#ifndef CITY_BOT_H
#define CITY_BOT_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

enum bot_kind { BOT_RANDOM, BOT_GREEDY, BOT_KIND_COUNT };

struct bot {
    int kind;            /* enum bot_kind */
    struct city_rng rng; /* the bot's own randomness */
};

/* The bots a game offers when its own come in the kinds above, for its ruleset's `bots`:
 * "greedy" (the default), "random" and "expert" (expert.h), NULL-terminated. */
extern const char *const bot_names[];

/* "random" / "greedy" for a kind ("unknown" for another number). */
const char *bot_kind_name(int kind);

/* The kind named `name`; -1 for NULL or an unknown name. */
int bot_kind_from_name(const char *name);

/* Prepares a bot of `kind` with its own generator seeded from `seed`. */
void bot_init(struct bot *b, int kind, uint64_t seed);

/* For a ruleset's bot_decide(): prepares *b as the bot named `kind` (an unknown name plays as
 * greedy) at a decision point, its stream seeded from the game's `seed`, the point's `turn` and
 * the seat, as the games that count turns seed it. False, leaving *b alone, when `kind` is
 * "expert": the caller asks expert_decide() instead. */
bool bot_at_point(struct bot *b, const char *kind, uint64_t seed, int turn, int seat);

#endif
