/* city_bots.h: computer players of The City. A bot (a struct bot of bot.h: its kind and its own
 * randomness) reads a game as a player could (its own hand and the public table) and answers
 * with a struct city_decision, which goes through city_submit() exactly as a person's decision
 * does. */
#ifndef CITY_BOTS_H
#define CITY_BOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "bot.h"
#include "city.h"

/* bot_init() for a bot of The City: its generator is seeded from `seed` mixed with a constant
 * of The City's own, as it always was, so that its games and figures stay what they were. */
void city_bot_init(struct bot *b, int kind, uint64_t seed);

/* Fills `*d` with the bot's decision for seat `seat` in the current step. Returns false (and
 * leaves *d empty) when the seat has nothing to decide. The decision is always legal. */
bool city_bot_decide(struct bot *b, const struct city_game *g, int seat, struct city_decision *d);

/* The greedy bot's choice of `n` cards to discard from seat `seat`'s hand, written to out;
 * also the default for a missed discard step. Deterministic. */
void city_bot_greedy_discards(const struct city_game *g, int seat, int n, uint8_t *out);

/* Seat `seat`'s whole hand, least worth keeping first by the greedy bot's measure (of equal
 * worth, hand order), written to out (nhand cards): the greedy bot pays a build with the first
 * cards of this order that it does not build, and so does the hand view's suggested payment. */
void city_bot_pay_order(const struct city_game *g, int seat, uint8_t *out);

#endif
