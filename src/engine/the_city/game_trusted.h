/* game_trusted.h: the engine's one unchecked way to submit a decision, private to
 * src/engine/the_city/ and meant for sim.c's bulk self-play alone. Everything a person, the
 * service, a replay or the expert submits goes through game_submit(), which checks it. */
#ifndef CITY_GAME_TRUSTED_H
#define CITY_GAME_TRUSTED_H

#include "game.h"

/* Stores decision d as seat's order, as game_submit() does, without game_check(): only for a
 * decision bot_decide() has just built for this seat in this very state, which is legal by the
 * bots' contract (tests/test_props.c checks every bot decision of thousands of games against
 * game_check() and an independent oracle). The seat must be pending. */
void game_submit_trusted(struct city_game *g, int seat, const struct city_decision *d);

#endif
