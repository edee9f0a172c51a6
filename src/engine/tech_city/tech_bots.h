/* tech_bots.h: computer players of Tech City. A bot (a struct bot of bot.h: its kind and its own
 * randomness) reads a game as its seat could (its own hand, the city, scores, hand counts, the
 * discard pile, revealed cards) and answers with a struct tech_decision that goes through
 * tech_submit() like a person's. */
#ifndef TECH_BOTS_H
#define TECH_BOTS_H

#include <stdbool.h>

#include "bot.h"
#include "tech.h"

/* Fills *d with the bot's decision for seat at the current point. False (d emptied) when the
 * seat has nothing to decide. The decision is always legal (tech_check() accepts it).
 *
 * What the greedy bot reads: its own hand, and the public state (city, owners, tilts, scores,
 * hand counts, the discard pile, revealed cards). To weigh an effect that only rearranges the
 * city (replace, swap, expel, move a marker) it compares the public position the effect would
 * leave with today's, worked out from the counts the effect changes (bit for bit what applying
 * it to a copy of the game and scanning the copy gives), and weighs such an effect's choices
 * only when an upper bound on them could win the decision; those effects read no hidden card. It
 * never reads the deck or another hand. The decisions depend only on the game and the bot's
 * own randomness: test_tech_bots pins them. */
bool tech_bot_decide(struct bot *b, const struct tech_game *g, int seat, struct tech_decision *d);

/* The greedy bot's payment for seat building hand card `card` into d->npay and d->pay (d's
 * other fields untouched): the cards of the hand it would miss least, nothing when the build is
 * free; for a service, the builder's own help (one card, none when the hand holds no other).
 * False (npay 0) when `card` is not in the hand or no payment is legal. */
bool tech_bot_payment(const struct tech_game *g, int seat, int card, struct tech_decision *d);

#endif
