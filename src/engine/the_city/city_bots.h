/* city_bots.h: computer players. A bot reads a game as a player could (its own hand and the public
 * table) and answers with a struct city_decision, which goes through city_submit() exactly
 * as a person's decision does. Bots draw randomness from their own generator, never from the
 * game's, so a recorded game replays without them. */
#ifndef CITY_BOTS_H
#define CITY_BOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "city.h"

enum city_bot_kind { CITY_BOT_RANDOM, CITY_BOT_GREEDY, CITY_BOT_KIND_COUNT };

struct city_bot {
    int kind;            /* enum city_bot_kind */
    struct city_rng rng; /* the bot's own randomness */
};

/* "random" / "greedy" and back; city_bot_kind_from_name returns -1 for an unknown name. */
const char *city_bot_kind_name(int kind);
int city_bot_kind_from_name(const char *name);

/* Prepares a bot of `kind` with its own generator seeded from `seed`. */
void city_bot_init(struct city_bot *b, int kind, uint64_t seed);

/* Fills `*d` with the bot's decision for seat `seat` in the current step. Returns false (and
 * leaves *d empty) when the seat has nothing to decide. The decision is always legal. */
bool city_bot_decide(struct city_bot *b, const struct city_game *g, int seat,
                     struct city_decision *d);

/* The greedy bot's choice of `n` cards to discard from seat `seat`'s hand, written to out;
 * also the default for a missed discard step. Deterministic. */
void city_bot_greedy_discards(const struct city_game *g, int seat, int n, uint8_t *out);

/* Seat `seat`'s whole hand, least worth keeping first by the greedy bot's measure (of equal
 * worth, hand order), written to out (nhand cards): the greedy bot pays a build with the first
 * cards of this order that it does not build, and so does the hand view's suggested payment. */
void city_bot_pay_order(const struct city_game *g, int seat, uint8_t *out);

#endif
