/* sc_test_cards.h: the small catalog SimCity's rule tests play with (test_simcity*.c), so
 * that tuning the real deck changes no rule test: blocks of every kind the rules speak of,
 * events of every primitive, council members plain and corrupt. Loaded by test_catalog() after
 * its fillers (sc_helpers.h). Copies are many so that a test can lay out a city. */
#ifndef SC_TEST_CARDS_H
#define SC_TEST_CARDS_H

#include <stddef.h>

#define BLOCK(id, rest) "{\"id\": \"" id "\", \"name\": \"" id "\", \"kind\": \"block\", " rest "}"
#define EVENT(id, hazard, effect)                                                                  \
    "{\"id\": \"" id "\", \"name\": \"" id "\", \"kind\": \"event\", \"phase\": 3, \"hazard\": "   \
    "\"" hazard "\", \"effects\": [" effect "], \"copies\": {\"base\": 2}}"
#define MEMBER(id, rest, n)                                                                        \
    "{\"id\": \"" id "\", \"name\": \"" id "\", \"kind\": \"council\", \"phase\": 3, " rest        \
    ", \"copies\": {\"base\": " #n "}}"

#define BLOCK(id, rest) "{\"id\": \"" id "\", \"name\": \"" id "\", \"kind\": \"block\", " rest "}"

static const char *const test_cards[] = {
    BLOCK("t_res", "\"phase\": 1, \"zone\": \"residential\", \"value\": 2, \"sims\": 2, "
                   "\"road\": \"NESW\", \"copies\": {\"base\": 9}"),
    BLOCK("t_ns", "\"phase\": 1, \"zone\": \"residential\", \"value\": 1, \"sims\": 2, "
                  "\"road\": \"NS\", \"copies\": {\"base\": 4}"),
    BLOCK("t_ew", "\"phase\": 1, \"zone\": \"residential\", \"value\": 1, \"sims\": 2, "
                  "\"road\": \"EW\", \"copies\": {\"base\": 4}"),
    BLOCK("t_rail", "\"phase\": 1, \"zone\": \"residential\", \"value\": 1, \"sims\": 3, "
                    "\"rail\": \"NESW\", \"copies\": {\"base\": 4}"),
    BLOCK("t_need2", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 3, \"sims\": -2, "
                     "\"road\": \"NESW\", \"copies\": {\"base\": 4}"),
    BLOCK("t_need4", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 3, \"sims\": -4, "
                     "\"road\": \"NESW\", \"rail\": \"NESW\", \"copies\": {\"base\": 4}"),
    BLOCK("t_bare", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 2, \"sims\": -2, "
                    "\"copies\": {\"base\": 2}"),
    BLOCK("t_gray", "\"phase\": 1, \"zone\": \"services\", \"value\": 1, \"copies\": {\"base\": "
                    "6}"),
    BLOCK("t_res_big", "\"phase\": 1, \"zone\": \"residential\", \"value\": 3, \"sims\": 2, "
                       "\"road\": \"NESW\", \"copies\": {\"base\": 2}"),
    BLOCK("t_res_power", "\"phase\": 1, \"zone\": \"residential\", \"value\": 2, \"sims\": 2, "
                         "\"road\": \"NESW\", \"power\": true, \"copies\": {\"base\": 2}"),
    BLOCK("t_com", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 2, \"road\": \"NESW\", "
                   "\"copies\": {\"base\": 16}"),
    BLOCK("t_ind", "\"phase\": 1, \"zone\": \"industrial\", \"value\": 2, \"pollution\": 3, "
                   "\"copies\": {\"base\": 3}"),
    BLOCK("t_forest", "\"phase\": 1, \"zone\": \"land\", \"land\": \"forest\", \"value\": 1, "
                      "\"copies\": {\"base\": 4}"),
    BLOCK("t_forest2", "\"phase\": 1, \"zone\": \"land\", \"land\": \"forest\", \"value\": 2, "
                       "\"copies\": {\"base\": 2}"),
    BLOCK("t_mountain", "\"phase\": 1, \"zone\": \"land\", \"land\": \"mountain\", \"value\": 2, "
                        "\"copies\": {\"base\": 2}"),
    BLOCK("t_lake", "\"phase\": 1, \"zone\": \"land\", \"land\": \"water\", \"value\": 1, "
                    "\"copies\": {\"base\": 4}"),
    BLOCK("t_plains", "\"phase\": 1, \"zone\": \"land\", \"land\": \"plains\", \"value\": 1, "
                      "\"specials\": [{\"rezonable\": true}], \"copies\": {\"base\": 4}"),
    BLOCK("t_gold", "\"phase\": 1, \"zone\": \"special\", \"value\": 2, \"copies\": {\"base\": "
                    "1}"),
    BLOCK("t_gold2", "\"phase\": 1, \"zone\": \"special\", \"value\": 3, \"copies\": {\"base\": "
                     "1}"),
    BLOCK("t_bnb", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 1, \"specials\": "
                   "[{\"rezones\": {\"zone\": \"residential\"}}], \"copies\": {\"base\": 1}"),
    BLOCK("t_farm", "\"phase\": 1, \"zone\": \"agricultural\", \"value\": 1, \"sims\": 1, "
                    "\"complex\": {\"name\": \"farm\", \"bonus\": 2}, \"copies\": {\"base\": 3}"),
    BLOCK("t_field", "\"phase\": 1, \"zone\": \"agricultural\", \"value\": 1, \"complex\": "
                     "{\"name\": \"farm\", \"bonus\": 1, \"if\": \"sims\"}, \"copies\": {\"base\": "
                     "5}"),
    BLOCK("t_elevator", "\"phase\": 1, \"zone\": \"agricultural\", \"value\": 1, \"complex\": "
                        "{\"name\": \"farm\", \"bonus\": 4, \"within\": 3}, \"copies\": "
                        "{\"base\": 2}"),
    BLOCK("t_pole", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 1, \"power\": true, "
                    "\"copies\": {\"base\": 6}"),
    BLOCK("t_plant", "\"phase\": 3, \"zone\": \"services\", \"value\": 2, \"power\": true, "
                     "\"specials\": [{\"coverage\": \"power\", \"per_block\": 1, \"new_only\": "
                     "true}], \"copies\": {\"base\": 2}"),
    BLOCK("t_police", "\"phase\": 1, \"zone\": \"governmental\", \"value\": 1, \"specials\": "
                      "[{\"coverage\": \"police\", \"range\": 2, \"per_block\": 1, \"new_only\": "
                      "true}], \"copies\": {\"base\": 2}"),
    BLOCK("t_precinct", "\"phase\": 1, \"zone\": \"governmental\", \"value\": 1, \"specials\": "
                        "[{\"coverage\": \"police\", \"range\": 4}], \"copies\": {\"base\": 1}"),
    BLOCK("t_crimy", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 1, \"crime\": 2, "
                     "\"copies\": {\"base\": 3}"),
    BLOCK("t_adder", "\"phase\": 1, \"zone\": \"governmental\", \"value\": 1, \"specials\": "
                     "[{\"add\": 2, \"to\": {\"zone\": \"residential\"}, \"within\": 2}], "
                     "\"copies\": {\"base\": 2}"),
    BLOCK("t_deduct", "\"phase\": 1, \"zone\": \"industrial\", \"value\": 1, \"specials\": "
                      "[{\"deduct\": 1, \"to\": {\"zone\": \"residential\"}, \"within\": 1}], "
                      "\"copies\": {\"base\": 2}"),
    BLOCK("t_each", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 1, \"specials\": "
                    "[{\"receive\": 1, \"each\": true, \"if\": {\"adjacent\": {\"zone\": "
                    "\"residential\"}}}], \"copies\": {\"base\": 2}"),
    BLOCK("t_lose", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 2, \"specials\": "
                    "[{\"lose\": 5, \"if\": {\"city_lacks\": {\"name\": \"t_police\"}}}], "
                    "\"copies\": {\"base\": 2}"),
    BLOCK("t_limit", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 1, \"specials\": "
                     "[{\"limit\": 1, \"within\": 3}], \"copies\": {\"base\": 3}"),
    BLOCK("t_must", "\"phase\": 1, \"zone\": \"residential\", \"value\": 4, \"road\": \"NESW\", "
                    "\"specials\": [{\"must_cover\": {\"name\": \"t_res\"}}], \"copies\": "
                    "{\"base\": 2}"),
    BLOCK("t_onlyif", "\"phase\": 1, \"zone\": \"industrial\", \"value\": 2, \"specials\": "
                      "[{\"only_if\": {\"adjacent\": {\"land\": \"water\"}}}], \"copies\": "
                      "{\"base\": 2}"),
    BLOCK("t_doomed", "\"phase\": 1, \"zone\": \"governmental\", \"value\": 1, \"specials\": "
                      "[{\"remove_when\": {\"name\": \"t_trigger\"}}], \"copies\": {\"base\": "
                      "2}"),
    BLOCK("t_trigger", "\"phase\": 1, \"zone\": \"governmental\", \"value\": 1, \"copies\": "
                       "{\"base\": 3}"),
    BLOCK("t_extra", "\"phase\": 1, \"zone\": \"commercial\", \"value\": 1, \"specials\": "
                     "[{\"extra_play\": 1}], \"copies\": {\"base\": 2}"),
    BLOCK("t_gain", "\"phase\": 3, \"zone\": \"special\", \"value\": 1, \"specials\": "
                    "[{\"mayor_gains\": 4}], \"copies\": {\"base\": 1}"),
    BLOCK("t_tan", "\"phase\": 3, \"zone\": \"commercial\", \"value\": 6, \"copies\": {\"base\": "
                   "2}"),
    BLOCK("t_green", "\"phase\": 2, \"zone\": \"commercial\", \"value\": 1, \"copies\": "
                     "{\"base\": 2}"),
    BLOCK("t_shelter", "\"phase\": 1, \"zone\": \"services\", \"value\": 1, \"specials\": "
                       "[{\"protect\": \"storm\", \"within\": 1}], \"copies\": {\"base\": 1}"),
    BLOCK("t_firehouse", "\"phase\": 1, \"zone\": \"governmental\", \"value\": 1, "
                         "\"specials\": [{\"coverage\": \"fire\", \"range\": 1}], \"copies\": "
                         "{\"base\": 1}"),
    EVENT("t_tornado", "storm", "{\"destroy\": \"chosen\", \"within\": 1, \"bill\": true}"),
    EVENT("t_spill", "toxic", "{\"destroy\": \"pollution\", \"at_least\": 3, \"bill\": true}"),
    EVENT("t_riot", "riot", "{\"destroy\": \"crime\", \"at_least\": 2, \"bill\": true}"),
    EVENT("t_tax", "fiscal", "{\"mayor_pays\": 10}"),
    EVENT("t_boom", "fiscal", "{\"all_gain\": 3}"),
    EVENT("t_slump", "fiscal", "{\"all_pay\": 4}"),
    EVENT("t_flood", "flood", "{\"forbid_adjacent\": {\"land\": \"water\"}, \"turns\": 1}"),
    EVENT("t_fire", "fire", "{\"spread\": \"fire\", \"turns\": 2, \"bill\": true}"),
    EVENT("t_blight", "blight", "{\"remove_each_turn\": {\"complex\": \"farm\"}, \"turns\": 1}"),
    MEMBER("t_member", "\"cost\": 2, \"votes\": 1", 9),
    MEMBER("t_big", "\"cost\": 5, \"votes\": 3", 1),
    MEMBER("t_crook", "\"cost\": 1, \"votes\": 1, \"corrupt\": true, \"vote\": \"no\"", 1),
    MEMBER("t_yesman", "\"cost\": 1, \"votes\": 1, \"corrupt\": true, \"vote\": \"yes\"", 1),
    NULL};

#endif
