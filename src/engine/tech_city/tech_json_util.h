/* tech_json_util.h: small helpers shared by Tech City's JSON files (tech_json.c: orders, views,
 * catalog; tech_state.c: the stored state; tech_options_json.c: a pending decision's options):
 * sentences into error buffers, card and seat lists, uint64 as strings of digits. Internal to
 * those files. */
#ifndef TECH_JSON_UTIL_H
#define TECH_JSON_UTIL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "json_util.h"
#include "ruleset.h"
#include "tech.h"

static inline const char *slug(const struct tech_game *g, int card)
{
    return tech_design_of(g, card)->id;
}

static inline json_t *seat_or_null(int seat)
{
    return seat == TECH_NONE ? json_null() : json_integer(seat);
}

static inline json_t *mask_json(unsigned mask)
{
    json_t *a = json_array();
    for (int s = 0; s < TECH_MAX_PLAYERS; s++)
        if (mask & (1u << s))
            json_array_append_new(a, json_integer(s));
    return a;
}

static inline json_t *ids_json(const uint8_t *cards, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(cards[i]));
    return a;
}

static inline json_t *cards_json(const struct tech_game *g, const uint8_t *cards, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a,
                              json_pack("{s:i, s:s}", "id", cards[i], "card", slug(g, cards[i])));
    return a;
}

static inline json_t *cell_json(int x, int y)
{
    return json_pack("{s:i, s:i}", "x", x, "y", y);
}

/* The "options" of seat's pending decision at the current point (tech_json.h, the private
 * view): a new object. */
json_t *tech_options_json(const struct tech_game *g, int seat);

#endif
