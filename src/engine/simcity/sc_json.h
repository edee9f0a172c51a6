/* sc_json.h: SimCity as JSON for the ruleset seam — order bodies (sc_orders.c), the public and
 * private views and the catalog (sc_views.c), and the whole stored state (sc_state.c). Every
 * function here returns a new reference (the caller owns it) or fills what it is given; none
 * keeps a pointer to its arguments. */
#ifndef SC_JSON_H
#define SC_JSON_H

#include <jansson.h>

#include "sc.h"

/* Why an order body was refused, as the ruleset's stable problem codes. */
enum sc_order_error {
    SC_ORDER_OK,
    SC_ORDER_NOT_AN_OBJECT,
    SC_ORDER_MISSING_FIELD,
    SC_ORDER_UNKNOWN_FIELD,
    SC_ORDER_WRONG_TYPE,
    SC_ORDER_BAD_VALUE,
    SC_ORDER_CONFLICTING_FIELDS,
    SC_ORDER_TOO_MANY_CARDS,
    SC_ORDER_WRONG_KIND,
    SC_ORDER_COUNT
};
const char *sc_order_error_code(int err);

/* Parses an order body {"round", "step", "turn", ...the step's fields} (docs/simcity.md,
 * "Decision points") into its position and *d. SC_ORDER_OK, or the error with a sentence in err
 * saying what to send. A field another step takes is SC_ORDER_WRONG_KIND. */
int sc_order_from_json(const json_t *body, int *round, int *step, int *turn, struct sc_decision *d,
                       char *err, int errlen);

/* The canonical order body of decision d at the position. */
json_t *sc_order_to_json(int round, int step, int turn, const struct sc_decision *d);

/* Sets decision d's own fields of an order body (all but round, step and turn) on object o:
 * a hand's options, which a view lists by the hundred, are built without the point's fields. */
void sc_decision_fields(json_t *o, const struct sc_decision *d);

/* What everyone may see: the city's stacks, money, hand and deck counts, the discard pile, the
 * phase, offices, council members, timed events, bills, the vote and the election in progress,
 * who must decide; the end (winners, reason, seed) once over. Never a hand or the deck's order. */
json_t *sc_public_view(const struct sc_game *g);

/* The public view plus seat's hand and "pending": null, or {round, step, turn, options}: the
 * seat's legal decisions as order bodies (a play's with its "mode" and the "score" a block would
 * make). NULL for a seat out of range. */
json_t *sc_private_view(const struct sc_game *g, int seat);

/* The seats of a bitmask as a JSON array of seat numbers. */
json_t *sc_seats_json(unsigned mask);

/* The catalog for people and clients: every design's fields and text. */
json_t *sc_catalog_json(const struct sc_catalog *cat);

/* The whole state, secrets included, for storage; and back, every field checked and the
 * result's invariants too (false with a sentence naming the field). */
json_t *sc_state_to_json(const struct sc_game *g);
bool sc_state_from_json(struct sc_game *g, const struct sc_catalog *cat, const json_t *j, char *err,
                        int errlen);

#endif
