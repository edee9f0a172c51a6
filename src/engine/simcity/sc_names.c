/* sc_names.c: the names SimCity's engine gives its steps, play modes, money sources and ends in
 * the API and figures, and the stable code and sentence of each refusal (see sc.h). */
#include "ruleset.h"
#include "sc.h"

/* ---- names ------------------------------------------------------------------------------ */

const char *const sc_step_names[SC_STEP_COUNT + 1] = {
    "draw", "council", "target", "play", "vote", "mayor_pay", "election", "discard", "over", NULL};
static const char *const mode_names[SC_MODE_COUNT] = {"new", "upgrade", "rezone", "vote", "event"};
static const char *const source_names[SC_SRC_COUNT] = {
    "value", "bonus",  "zone",    "complex", "scorched", "coverage",
    "mayor", "events", "council", "bills",   "elections"};
static const char *const end_names[SC_END_COUNT] = {"none", "target", "surface_full", "deck_out",
                                                    "all_passed"};

const char *sc_step_name(int step)
{
    return rs_name_at(sc_step_names, step, "?");
}

int sc_step_from_name(const char *name)
{
    return rs_name_index(sc_step_names, name);
}

const char *sc_mode_name(int mode)
{
    return mode >= 0 && mode < SC_MODE_COUNT ? mode_names[mode] : "?";
}

const char *sc_source_name(int source)
{
    return source >= 0 && source < SC_SRC_COUNT ? source_names[source] : "?";
}

const char *sc_end_name(int reason)
{
    return reason >= 0 && reason < SC_END_COUNT ? end_names[reason] : "?";
}

static const struct rs_error errors[SC_ERR_COUNT] = {
    RS_COMMON_ERRORS(SC_OK, SC_ERR_GAME_OVER, SC_ERR_BAD_SEAT, SC_ERR_NOT_PENDING,
                     SC_ERR_WRONG_KIND),
    [SC_ERR_NOT_IN_HAND] = {"not_in_hand", "That card is not in your hand."},
    [SC_ERR_OFF_GRID] = {"off_grid", "That cell is not on the surface."},
    [SC_ERR_WRONG_CARD] = {"wrong_card",
                           "That card cannot do this: blocks and events are played, council "
                           "members bought."},
    [SC_ERR_PHASE] = {"phase", "The city has not reached that card's phase yet."},
    [SC_ERR_POWER_PLANT] = {"power_plant",
                            "Until a Power Plant is played, no city or metropolis card, event or "
                            "council member; the first city card must be a Power Plant."},
    [SC_ERR_FIRST_CELL] = {"first_cell", "The first block goes in the centre cell."},
    [SC_ERR_NOT_ADJACENT] = {"not_adjacent",
                             "A new block must share an edge with a block of the city."},
    [SC_ERR_NO_REZONE] = {"no_rezone",
                          "That block is no upgrade (same zone, its services kept, its value "
                          "met, something added) and no free rezone; a rezone by vote needs a "
                          "Mayor."},
    [SC_ERR_SIMS] = {"sims",
                     "Not enough sims reach that cell: the providers joined to its road, or all "
                     "to its rail, must give what the card requires."},
    [SC_ERR_RESTRICTED] = {"restricted", "The card's specials do not allow it there."},
    [SC_ERR_LIMIT] = {"limit", "The card's limit is reached there."},
    [SC_ERR_FORBIDDEN] = {"forbidden", "An event forbids placing a block next to such blocks "
                                       "now."},
    [SC_ERR_BAD_TARGET] = {"bad_target", "That is not a block the effect may choose."},
    [SC_ERR_CANNOT_AFFORD] = {"cannot_afford",
                              "That costs more money than you have (and at least $1)."},
    [SC_ERR_BALLOTS] = {"bad_ballots",
                        "Send one ballot (withhold, yes, no) per member you hold, in order; a "
                        "corrupt member's is the one on its card."},
    [SC_ERR_BAD_CANDIDATE] = {"bad_candidate", "Votes are cast for a seat of the game."},
    [SC_ERR_EMPTY_PILE] = {"empty_pile", "There is no card to draw there."},
};

const char *sc_error_code(int err)
{
    return rs_error_code(errors, SC_ERR_COUNT, err);
}

const char *sc_error_message(int err)
{
    return rs_error_message(errors, SC_ERR_COUNT, err);
}
