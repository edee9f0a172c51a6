/* sc_bots.h: computer players of SimCity. A bot reads a game as its seat could (its own hand,
 * the city, money, offices, council members, votes and bids as cast, timed events) and answers
 * with a struct sc_decision that goes through sc_submit() like a person's. Its kinds, names and
 * own random stream are every game's (bot.h), so a recorded game replays without it. */
#ifndef SC_BOTS_H
#define SC_BOTS_H

#include <stdbool.h>

#include "bot.h"
#include "sc.h"

/* Fills *d with the decision of bot b (prepared by bot_init()) for seat at the current point. False
 * (d emptied) when the seat has nothing to decide. The decision is always legal (sc_check() accepts
 * it).
 *
 * The random bot picks among sc_legal()'s decisions (it passes an election three times in
 * four, so elections stay short). The greedy bot plays the block that scores most now, with a
 * little weight on what grows the city (sims early, the first Power Plant); plays an event when
 * it moves money from a rival Mayor; proposes a rezoning when the votes it can count on carry
 * it; buys a member when it holds a play that needs votes, or when a member is cheap beside its
 * money; votes against a play that would put its proposer ahead of it; pays a small bill and
 * vacates the office over a large one; and in an election buys a vote or two to hand the office
 * (and its bills) to the richest rival rather than take it. It reads only what its seat may
 * see. */
bool sc_bot_decide(struct bot *b, const struct sc_game *g, int seat, struct sc_decision *d);

/* The expert's candidates (struct ruleset's expert_options), into out (struct sc_decision): at a
 * play point, the plays the greedy bot weighs highest, best first, with passing among them, at
 * most max (and SC_EXPERT_TOP); at every other point (members, votes, bills, elections, targets,
 * discards) the greedy bot's answer alone, which the expert then gives without a search.
 * Returns how many (0 when seat has nothing to decide). Reads only what seat may see. */
enum { SC_EXPERT_TOP = 4 };
int sc_expert_options(const void *g, int seat, void *out, int max);

#endif
