/* tech_internal.h: what the files of Tech City's engine share and nothing else should call:
 * moving cards between places (tech_table.c), building (tech_build.c), events. Tests use it to
 * set up positions by hand. */
#ifndef TECH_INTERNAL_H
#define TECH_INTERNAL_H

#include "tech.h"

/* Emits one event (when someone listens). */
void tech_emit(const struct tech_game *g, const struct tech_events *ev, int type, int seat,
               int card, int count, int total);

/* Draws up to n cards into seat's hand, reshuffling the discard pile into the deck when it runs
 * out; returns how many it drew. */
int tech_draw(struct tech_game *g, int seat, int n, const struct tech_events *ev);

/* Takes the top card of the deck (reshuffling when empty), or TECH_NONE when there is none. */
int tech_pop_deck(struct tech_game *g, const struct tech_events *ev);

/* Removes card from seat's hand (which must hold it). */
void tech_hand_remove(struct tech_game *g, int seat, int card);

/* Moves card from seat's hand to the discard pile, reported. */
void tech_hand_discard(struct tech_game *g, int seat, int card, const struct tech_events *ev);

/* Adds points to seat's score, reported. */
void tech_score(struct tech_game *g, int seat, int points, const struct tech_events *ev);

/* Removes a card from the city (its cell becomes empty). */
void tech_city_remove(struct tech_game *g, int card);

/* Redoes what the game keeps read off the city (tech_controls()' and tech_open_cells()' answers)
 * from the city itself: for a city set otherwise than by tech_city_put() and tech_city_remove(),
 * or whose cards moved. */
void tech_city_recount(struct tech_game *g);

/* Moves seat's marker from city card `from` to city card `to` (a company another seat or none
 * controls), keeping tech_controls()' counts. */
void tech_marker_move(struct tech_game *g, int from, int to, int seat);

/* Puts card into the city at (x, y) with owner (TECH_NONE neutral), untilted. */
void tech_city_put(struct tech_game *g, int card, int x, int y, int owner);

/* Shuffles the deck (after a search). */
void tech_shuffle_deck(struct tech_game *g);

/* Emits an event at an explicit cell with a flag. */
void tech_emit_at(const struct tech_game *g, const struct tech_events *ev, int type, int seat,
                  int card, int x, int y, bool flag, int count, int total);

/* True when seat holds card. */
bool tech_in_hand(const struct tech_game *g, int seat, int card);

/* Puts card (already out of its place) among the expelled, reported. */
void tech_expel(struct tech_game *g, int card, const struct tech_events *ev);

/* A card paid or given to help: a wild card is expelled, any other discarded. */
void tech_spend(struct tech_game *g, int seat, int card, const struct tech_events *ev);

/* Whether seat may use the effect of city card `card` now as its normal use (free false: it has
 * not made it this round and the card is not tilted) or as the Knowledge free use (free true: it
 * controls two Knowledge companies, has not made the free use this round, and controls `card`,
 * a Knowledge company): TECH_OK, TECH_ERR_ALREADY_USED, TECH_ERR_TILTED or TECH_ERR_FREE_USE.
 * The effect's own choices are tech_effect_check()'s. */
int tech_use_open(const struct tech_game *g, int seat, int card, bool free);

/* Checks a build decision of seat (step build): TECH_OK or why not. */
int tech_check_build(const struct tech_game *g, int seat, const struct tech_decision *d);

/* Builds d->card for seat (checked), scoring at least `minimum` (1 for a service). */
void tech_do_build(struct tech_game *g, int seat, const struct tech_decision *d, int minimum,
                   const struct tech_events *ev);

/* Resolves the help given to g->build by the builder g->actor and the helpers' decisions. */
void tech_resolve_service(struct tech_game *g, const struct tech_events *ev);

#endif
