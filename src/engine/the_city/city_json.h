/* city_json.h: the engine's JSON faces — a game's whole state (secrets included) for storage
 * and back, the public view and a seat's private view (rules.md, Hidden information), the order
 * bodies of the API (design.md) and back, and replays (seed + decisions) recorded and run.
 * No I/O: text in and out is the caller's business (json_dumps / json_loads).
 *
 * Ownership, once for the whole header (jq's rule): these functions consume nothing and return
 * new references. A json_t * returned here belongs to the caller, who json_decref()s it; a
 * json_t * passed in stays the caller's. A NULL return means the input was out of range (or
 * memory ran out), never a partial object. `err` buffers (size `errlen`) may be NULL when
 * errlen is 0; they receive one English sentence naming the bad field and what to send. */
#ifndef CITY_GAME_JSON_H
#define CITY_GAME_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "city.h"

/* ---- orders -------------------------------------------------------------------------------- */

/* An order as the API receives it: the step it answers and the decision. */
struct city_order {
    int round;
    int step; /* enum city_step: keep, build, survey or hand_limit */
    struct city_decision d;
};

/* Why an order body could not be read. Stable: city_order_error_code() gives each its API code. */
enum city_order_error {
    CITY_ORDER_OK = 0,
    CITY_ORDER_ERR_NOT_AN_OBJECT, /* the body is not a JSON object */
    CITY_ORDER_ERR_MISSING_FIELD, /* round, step, build.card, build.pay ... missing */
    CITY_ORDER_ERR_UNKNOWN_FIELD, /* a key the order format does not have */
    CITY_ORDER_ERR_WRONG_TYPE,    /* e.g. a string, a fraction or a boolean where an integer goes */
    CITY_ORDER_ERR_BAD_VALUE,     /* unknown step, card id outside 0..109, contractor: false */
    CITY_ORDER_ERR_CONFLICTING_FIELDS, /* not exactly one of discard, build, builds, contractor,
                                        * survey
                                        */
    CITY_ORDER_ERR_TOO_MANY_CARDS, /* pay over 11 cards, discard over 110, builds not exactly 2 */
    CITY_ORDER_ERR_COUNT
};

/* The stable code of an order error ("not_an_object", "missing_field", "unknown_field",
 * "wrong_type", "bad_value", "conflicting_fields", "too_many_cards"; "ok" for CITY_ORDER_OK;
 * "unknown_error" out of range). The string is static. */
const char *city_order_error_code(int err);

/* Reads an order body (design.md, "Order bodies") into `*out`, which is zeroed first, so that
 * equal bodies give equal structs. The keys map to decision kinds: discard -> CITY_DEC_DISCARD,
 * build -> CITY_DEC_BUILD (nbuilds 1), builds -> CITY_DEC_BUILD_TWO (nbuilds 2), contractor ->
 * CITY_DEC_CONTRACTOR, survey -> CITY_DEC_SURVEY. Only the form is checked here; whether the
 * decision suits the step and the hand is city_check()'s job. Returns CITY_ORDER_OK, or an enum
 * city_order_error with one sentence in err naming the field. Never keeps a reference to `body`. */
int city_order_from_json(const json_t *body, struct city_order *out, char *err, int errlen);

/* The order body of decision `d` for (round, step): the inverse of city_order_from_json(). Returns
 * a new object, or NULL when `d` has no body (CITY_DEC_NONE, an unknown kind, counts out of range)
 * or `step` is not keep, build, survey or hand_limit. */
json_t *city_order_to_json(int round, int step, const struct city_decision *d);

/* ---- the whole state ------------------------------------------------------------------------ */

/* The whole state of `g`, secrets included (seed, rng, deck order, hands, discard pile, the
 * seats' orders): for the database only, never for a client. The seed and the rng words are
 * strings of decimal digits (a uint64 does not fit a JSON number safely); cards are instance
 * ids. Returns a new object. */
json_t *city_to_json(const struct city_game *g);

/* The exact inverse of city_to_json(): zeroes `*g`, then fills it from `j` with catalog `cat`
 * (borrowed, as by city_new()), so that city_from_json(city_to_json(g)) is memcmp-equal to a
 * game whose unused array slots are zero. Everything is checked — types, ranges, array
 * lengths, the step name, unknown keys, every card in exactly one place, that submitted
 * orders are legal — so the engine can go on from any state it accepts. Returns true on
 * success; on failure returns false with one sentence naming the field in err, and `*g` is
 * unspecified. Never crashes on any JSON value. */
bool city_from_json(struct city_game *g, const struct city_catalog *cat, const json_t *j, char *err,
                    int errlen);

/* ---- views ---------------------------------------------------------------------------------- */

/* What everyone may see (rules.md, Hidden information):
 *   {"round", "step", "target_vp", "deck_count", "discard_count", "contractors_left",
 *    "seats": [{"seat", "vp", "hand_count", "tableau": [{"card", "vp", "income"}], "round_vp",
 *               "income", "submitted", "pending",
 *               "last": {"action": "build"|"build_two"|"contractor"|"survey"|null,
 *                        "built": [slug...], "paid", "default"},
 *               "vp_by_round": [total after round 1, 2, ... up to the last scored round]}],
 *    "winners": [seat...] (empty until the game is over),
 *    "ended_by": "target"|"deck"|"rounds"|null}
 * Cards are design slugs. Never holds a hand, the deck, the discard pile, the seed or rng, a
 * payment's cards, or what a seat chose before the reveal. Returns a new object. */
json_t *city_public_view(const struct city_game *g);

/* What seat `seat` alone may see:
 *   {"seat", "hand": [{"id", "card"}],
 *    "pending": {"round", "step", "options"} or null when the seat has nothing to decide,
 *    "order": the order body, present only once the seat has submitted for this step}
 * options in build (every legal choice, docs/rules.md "Your options"):
 *   {"builds": [{"id", "card", "cost", "pay", "vp", "income"}] from city_build_options() (cost
 *               is the effective cost, pay the greedy bot's payment of it, vp and income what
 *               the seat would score this round and draw with that card built),
 *    "unbuildable": [{"id", "card", "reason", "needs"?}] (every other hand card, reason the
 *                   code city_check() refuses it with, needs the missing prerequisites),
 *    "contractor", "double",
 *    "doubles": [{"builds": [{"id", "card", "cost", "pay"} x2], "vp", "income"}] from
 *               city_double_pairs(),
 *    "survey_score": {"vp", "income"}, "contractor_score": {"vp", "income"} or null};
 * in keep, survey and hand_limit: {"discard": n} from city_discard_count(). Returns a new
 * object, or NULL for a seat that is not in the game. */
json_t *city_private_view(const struct city_game *g, int seat);

/* ---- replays -------------------------------------------------------------------------------- */

/* A replay is {"seed": "123" (or 123), "players": P, "target_vp"?: T,
 *              "decisions": [{"seat": s, "default"?: true, ...order body...}, ...]}.
 * Callers record a decision when it is the one used at resolution (the last one the seat
 * submitted for the step), in submission order; a default (city_fill_defaults()) is recorded
 * with city_replay_add_default(), so that the replay restores the public "default" flag too. */

/* A new, empty replay for city_new(g, cat, players, seed, target_vp); target_vp 0 is recorded
 * as CITY_DEFAULT_TARGET. Returns a new object, or NULL when city_new() would refuse the
 * player count or the target. */
json_t *city_replay_new(uint64_t seed, int players, int target_vp);

/* Appends seat `seat`'s decision `d` for (round, step) to `replay`'s decisions (the caller
 * keeps its reference to `replay`). Returns false, changing nothing, when `replay` has no
 * decisions array or `d` has no order body. */
bool city_replay_add(json_t *replay, int seat, int round, int step, const struct city_decision *d);

/* The same for a decision the engine gave as a default for a missed step. */
bool city_replay_add_default(json_t *replay, int seat, int round, int step,
                             const struct city_decision *d);

/* Plays `replay` ({"game"?: "the_city", "seed", "players", "target_vp"?, "decisions"}) with
 * catalog `cat` into `*g`: city_new(), then each decision in turn, which
 * must name the current round and step and which city_submit() must accept; the step is
 * resolved (city_resolve(g, NULL)) whenever city_ready(). Returns true with the final state in
 * `*g`; on failure returns false with a sentence naming the field or the decision's index (and
 * the engine's reason) in err, and `*g` holds the game as far as it went. */
bool city_replay_run(const struct city_catalog *cat, const json_t *replay, struct city_game *g,
                     char *err, int errlen);

#endif
