/* city_names.c: the names the API gives the engine's steps and refusals: each step's name and
 * back, and each error's stable code and English sentence (moved out of city.c, which keeps
 * the rules). */
#include "city.h"

#include "ruleset.h"

const char *const city_step_names[CITY_STEP_COUNT + 1] = {"keep",       "build", "survey",
                                                          "hand_limit", "over",  NULL};

const char *city_step_name(int step)
{
    return rs_name_at(city_step_names, step, "unknown");
}

int city_step_from_name(const char *name)
{
    return rs_name_index(city_step_names, name);
}

static const struct {
    const char *code;
    const char *message;
} errors[CITY_ERR_COUNT] = {
    [CITY_OK] = {"ok", "The decision is legal."},
    [CITY_ERR_GAME_OVER] = {"game_over", "The game has ended; no more decisions are taken."},
    [CITY_ERR_BAD_SEAT] = {"bad_seat", "There is no such seat in this game."},
    [CITY_ERR_NOT_PENDING] = {"nothing_to_decide",
                              "This seat has nothing to decide in the current step; wait for "
                              "the next one."},
    [CITY_ERR_WRONG_KIND] = {"wrong_decision",
                             "That kind of decision does not belong to the current step: send "
                             "build, contractor, builds or survey in step build, and discard in "
                             "keep, survey and hand_limit."},
    [CITY_ERR_NOT_IN_HAND] = {"not_in_hand",
                              "A card named in the decision is not in this seat's hand; use "
                              "the ids from the hand view."},
    [CITY_ERR_DUPLICATE_CARD] = {"duplicate_card",
                                 "A card is named twice: a payment repeats a card or includes "
                                 "a card being built."},
    [CITY_ERR_DISCARD_COUNT] = {"discard_count",
                                "Wrong number of cards to discard; the hand view's "
                                "pending.options.discard says how many."},
    [CITY_ERR_PAYMENT_COUNT] = {"payment_count",
                                "The payment must be exactly as many cards as the effective "
                                "cost shown in the hand view."},
    [CITY_ERR_NOT_BUILDABLE] = {"not_buildable", "That card cannot be built."},
    [CITY_ERR_PREREQUISITE] = {"prerequisite_missing",
                               "The card requires another development in your tableau first."},
    [CITY_ERR_LIMIT] = {"limit_reached",
                        "You already own as many copies of that card as its limit allows."},
    [CITY_ERR_NO_DOUBLE] = {"no_construction_gang",
                            "Building two developments needs a Construction Gang in your "
                            "tableau or as the first of the two."},
    [CITY_ERR_DOUBLE_COST] = {"double_cost_over_4",
                              "Each of two developments built with a Construction Gang must "
                              "have a printed cost of 4 or less."},
    [CITY_ERR_CONTRACTOR_TAKEN] = {"contractor_taken",
                                   "You already took a General Contractor; each player may "
                                   "take one per game."},
    [CITY_ERR_POOL_EMPTY] = {"contractor_pool_empty", "No General Contractor is left."},
    [CITY_ERR_TOO_MANY_CARDS] = {"too_many_cards", "The decision names too many cards."},
};

const char *city_error_code(int err)
{
    return err >= 0 && err < CITY_ERR_COUNT ? errors[err].code : "unknown_error";
}

const char *city_error_message(int err)
{
    return err >= 0 && err < CITY_ERR_COUNT ? errors[err].message : "Unknown error.";
}
