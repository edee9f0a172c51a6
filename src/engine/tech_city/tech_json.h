/* tech_json.h: Tech City's JSON faces — the whole state (secrets included) for storage and
 * back, order bodies to and from struct tech_decision with precise problem codes, the public
 * view and a seat's private view (docs/tech_city.md, "What you see"), and the catalog.
 * No I/O. Ownership, once for the whole header: nothing is consumed; a json_t * returned is a
 * new reference the caller json_decref()s; NULL means the input was out of range (or memory
 * ran out). `err` buffers receive one English sentence naming the bad field. */
#ifndef TECH_JSON_H
#define TECH_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "tech.h"

/* ---- orders --------------------------------------------------------------------------------
 * {"round": R, "step": S, "turn": T, ...} with, by step:
 *   build:   {"pass": true}
 *          | {"card": id, "x": X, "y": Y, "pay": [id, ...]}            (pay: 0-2 cards;
 *            for a service: the builder's own help, 0 or 1 card, exactly 1 in solo)
 *          | ... plus "as": {"value": V, "domain": D} when card is a wild card
 *   help:    {"pass": true} | {"card": id}
 *   effect:  {"pass": true}
 *          | {"use": {"x": X, "y": Y}, "free"?: true, "owner_first"?: true, "card"?: id,
 *             "take"?: id,
 *             "target"?: {"x", "y"}, "to"?: {"x", "y"}, "victim"?: S}
 *            (which of card/take/target/to/victim the effect takes: docs/tech_city.md)
 *   owner:   {"draw": true|false}
 *   choose:  {"cards": [id, ...]}
 *   discard: {"cards": [id, ...]}
 * Any order may add "divulge": [id, ...]: cards of the seat's hand shown to all (a public
 * "divulged" event each) when the point resolves, before the order acts. Card ids are instance ids
 * 0..107; coordinates -120..120. */

/* Why an order body could not be read; tech_order_error_code() gives the API code. */
enum tech_order_error {
    TORDER_OK = 0,
    TORDER_NOT_AN_OBJECT,
    TORDER_MISSING_FIELD,
    TORDER_UNKNOWN_FIELD,
    TORDER_WRONG_TYPE,
    TORDER_BAD_VALUE,
    TORDER_CONFLICTING_FIELDS,
    TORDER_TOO_MANY_CARDS,
    TORDER_WRONG_KIND, /* a field of another step's decision: the service answers 422 */
    TORDER_COUNT
};

/* "ok", "not_an_object", "missing_field", "unknown_field", "wrong_type", "bad_value",
 * "conflicting_fields", "too_many_cards", "wrong_kind" ("unknown_error" out of range). */
const char *tech_order_error_code(int err);

/* Reads an order body into its position (round, step, turn) and decision (tech_decision_init()
 * first, so equal bodies give equal structs). Only the form is checked; tech_check() judges
 * legality. Returns TORDER_OK or an error with one sentence in err. */
int tech_order_from_json(const json_t *body, int *round, int *step, int *turn,
                         struct tech_decision *d, char *err, int errlen);

/* The canonical body of decision d at (round, step, turn); NULL when d has no body for step. */
json_t *tech_order_to_json(int round, int step, int turn, const struct tech_decision *d);

/* ---- state ---------------------------------------------------------------------------------- */

/* The whole state, secrets included, for the database only. */
json_t *tech_state_to_json(const struct tech_game *g);

/* The inverse: fills *g (catalog `cat`, borrowed) from j, checking types, ranges, unknown keys,
 * card conservation and that stored decisions are legal. False with a sentence when it does not
 * load; *g is then unspecified. */
bool tech_state_from_json(struct tech_game *g, const struct tech_catalog *cat, const json_t *j,
                          char *err, int errlen);

/* ---- views ---------------------------------------------------------------------------------- */

/* What everyone may see:
 * {"round", "step", "turn", "players", "first", "active": seat|null,
 *  "pending": [seat...], "deck_count",
 *  "city": [{"x", "y", "id", "card", "domain", "value", "owner": seat|null, "tilted", "seed"}],
 *  "discard": [{"id", "card"}] (bottom first), "expelled": [{"id", "card"}],
 *  "revealed": [{"id", "card"}],
 *  "effect": null | {"seat", "card", "x", "y"} (the use being resolved),
 *  "service": null | {"seat", "card", "x", "y"} (a service waiting for help, step help),
 *  "seats": [{"seat", "score", "hand_count", "companies", "pending", "submitted"}],
 *  "over", "winners": [seat...], "decks": 1|2, "seed": "digits" only once over}. */
json_t *tech_public_view(const struct tech_game *g);

/* What seat alone may see: the public view plus
 * {"seat", "hand": [{"id", "card"}],
 *  "pending": null | {"round", "step", "turn", "options": {...}, "suggestion": order body},
 *  "order": the seat's submitted order body, when it has one at this point}.
 * options (every legal choice, docs/tech_city.md "Your options"):
 *   build {"cells": [{"x","y","near"}] (near: the cell touches two of the seat's companies, +1),
 *   "payment": "free"|"one_any"|"one_cheap_or_two" (one_any: any one card or any two;
 *   one_cheap_or_two: one of value <= 7 or any two), "wild_names": [{"value","domain"}],
 *   "builds": [{"id", "card", "pay_counts": [n...], "pays_alone": [id...], "pay": [id...],
 *               "scores": [n...], "as": {"value","domain"}, "names": [{"value","domain",
 *               "score"}] (as and names: a wild card only)}]
 *     (each hand card some payment can build: the legal numbers of payment cards, the cards
 *      that pay on their own, the greedy bot's payment, and scores[k], the points it scores
 *      built in cells[k]; a wild card's scores are named as "as", and naming names[j] scores
 *      names[j].score, +1 in a "near" cell),
 *   "unbuildable": [{"id", "card", "reason"}]};
 *   help {"builder", "card"};
 *   effect {"normal", "free", "cells": [{"x","y"}] (usable now), "free_cells": [{"x","y"}] (for
 *   the free use), "owner_cells": [{"x","y"}] (other seats' companies: "owner_first" may be
 *   sent), "uses": [{"x", "y", "id", "card", "normal", "free", "owner_first", "score",
 *   "choices": {"card"?: [id], "take"?: [id], "target"?: [{"x","y"}], "to"?: [{"x","y"}],
 *   "victim"?: [seat]}}] (every card some use order can name, with the legal values of each
 *   choice its effect takes; target and to differ)};
 * owner {"user", "card"}; choose {"kind": "discard"|"take_revealed", "count"};
 * discard {"count"}. NULL for a seat not in the game. `suggestion` is filled by the caller. */
json_t *tech_private_view(const struct tech_game *g, int seat);

/* The catalog for people and clients: {"game", "seed", "deck_size", "cards": [{"id", "name",
 * "domain", "value", "count", "text", "effect": {...}}]}. */
json_t *tech_catalog_json(const struct tech_catalog *cat);

#endif
