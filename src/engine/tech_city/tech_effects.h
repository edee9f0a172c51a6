/* tech_effects.h: the one interpreter of Tech City's effect primitives (tech_cards.h): checks
 * an effect's choices in a use order and applies the effect to a game. Internal to the engine:
 * tech.c calls it when a use resolves, and the hand view's options (tech_options.c) ask it which
 * choices are legal; nothing else should. */
#ifndef TECH_EFFECTS_H
#define TECH_EFFECTS_H

#include "tech_internal.h"

/* Checks the choices of decision d (card, take, target, to, victim) for seat using the effect
 * of city card `card`: TECH_OK, TECH_ERR_MISSING_CHOICE, TECH_ERR_NEEDLESS_CHOICE,
 * TECH_ERR_NOT_IN_HAND, TECH_ERR_BAD_TARGET, TECH_ERR_SEED_CARD, TECH_ERR_NO_CARD_THERE. */
int tech_effect_check(const struct tech_game *g, int seat, int card, const struct tech_decision *d);

/* Applies the effect of `card` for seat with d's choices (checked). When the user must choose
 * next (cards to discard after a draw, one of the revealed cards), sets g->choose_kind and
 * g->choose_n; the other seats' discards and the owner are tech.c's to ask. */
void tech_effect_apply(struct tech_game *g, int seat, int card, const struct tech_decision *d,
                       const struct tech_events *ev);

/* Seat takes revealed card `card` into its hand; the other revealed cards go back on top of
 * the deck in the order they had. */
void tech_effect_take_revealed(struct tech_game *g, int seat, int card,
                               const struct tech_events *ev);

/* Which choices a primitive takes (bits of enum tech_choice). */
enum tech_choice {
    CHOICE_CARD = 1,   /* a card of the user's hand */
    CHOICE_TAKE = 2,   /* a card of the discard pile */
    CHOICE_TARGET = 4, /* a city cell */
    CHOICE_TO = 8,     /* a second city cell */
    CHOICE_VICTIM = 16 /* another seat */
};
unsigned tech_effect_choices(int prim);

/* True when city card `target` passes filter f for seat (enum tech_filter). */
bool tech_filter_ok(const struct tech_game *g, int seat, int target, int f);

/* Whether `value` may be choice `which` (one enum tech_choice bit) of seat's use of the effect of
 * city card `card`, on its own: a hand card (CHOICE_CARD), a card of the discard pile (TAKE), a
 * city card instance (TARGET, TO), a seat (VICTIM). TECH_OK or the error tech_effect_check()
 * gives for it; the only rule that ties two choices is that target and to differ. */
int tech_choice_check(const struct tech_game *g, int seat, int card, unsigned which, int value);

/* False when the effect of `card` cannot run whatever the choices: an exchange with the top of
 * the deck when the deck and the discard pile are empty. */
bool tech_effect_ready(const struct tech_game *g, int card);

/* The points seat would score by using the effect of `card` now: a score effect's points when
 * its condition holds, else 0 (no other effect scores). */
int tech_effect_points(const struct tech_game *g, int seat, int card);

#endif
