/* city_json_util.h: the small helpers The City's JSON files share (city_json.c: orders, views,
 * replays; city_state.c: the stored state; city_options_json.c: a pending decision's options):
 * sentences for refusals, type names, building objects that free themselves on failure, card
 * and action names. Private to src/engine/the_city/. */
#ifndef CITY_JSON_UTIL_H
#define CITY_JSON_UTIL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "json_util.h"
#include "city.h"
#include "city_json.h"

/* Room for a field's path in messages, e.g. "decisions[12].builds[1].pay[10]". */
enum { PATH_LEN = 80 };

/* "a string", "an integer", ... for messages; writes a short integer as itself. */
static inline const char *type_name(const json_t *v, char *buf, size_t n)
{
    if (!v)
        return "nothing";
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return buf;
    case JSON_REAL:
        return "a number with a fraction or exponent";
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    case JSON_NULL:
        return "null";
    }
    return "something else";
}

/* Appends v to array a / sets o[key] = v, consuming v; false when either failed. */
static inline bool push(json_t *a, json_t *v)
{
    return json_array_append_new(a, v) == 0;
}
static inline bool put(json_t *o, const char *key, json_t *v)
{
    return json_object_set_new(o, key, v) == 0;
}

/* Returns o when every step of building it succeeded, else frees it and returns NULL. */
static inline json_t *finish(json_t *o, bool ok)
{
    if (ok && o)
        return o;
    json_decref(o);
    return NULL;
}

static inline json_t *cards_json(const uint8_t *cards, int n)
{
    json_t *a = json_array();
    bool ok = a != NULL;
    for (int i = 0; ok && i < n; i++)
        ok = push(a, json_integer(cards[i]));
    return finish(a, ok);
}

/* Public names of what a build step's decision was (struct city_reveal.kind). */
static inline const char *action_name(int kind)
{
    switch (kind) {
    case CITY_DEC_BUILD:
        return "build";
    case CITY_DEC_BUILD_TWO:
        return "build_two";
    case CITY_DEC_CONTRACTOR:
        return "contractor";
    case CITY_DEC_SURVEY:
        return "survey";
    default:
        return NULL;
    }
}

static inline const char *slug(const struct city_game *g, int card)
{
    return g->cat->designs[g->cat->card_design[card]].id;
}

/* The last round whose score is in (0 before the first): scoring happens at the end of a
 * round, before its hand_limit step and before the game ends. */
static inline int last_scored_round(const struct city_game *g)
{
    int r = g->step == CITY_STEP_HAND_LIMIT || g->step == CITY_STEP_OVER ? g->round : g->round - 1;
    return r < 0 ? 0 : r;
}

/* The winners' seats as a JSON array. */
static inline json_t *winners_json(const struct city_game *g)
{
    json_t *a = json_array();
    bool ok = a != NULL;
    for (int s = 0; ok && s < g->players && s < CITY_MAX_PLAYERS; s++)
        if (g->winners & (1u << s))
            ok = push(a, json_integer(s));
    return finish(a, ok);
}

/* Where a reader of a stored state or a replay is (its path prefix, e.g. "decisions[3].") and
 * where to say what is wrong. */
struct rd {
    const char *pre;
    char *err;
    int errlen;
};

__attribute__((format(printf, 2, 3))) static inline bool rd_fail(const struct rd *r,
                                                                 const char *fmt, ...)
{
    if (r->err && r->errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, (size_t)r->errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Where an order body is read from (its path prefix for messages) and where to say what is
 * wrong. */
struct order_ctx {
    const char *pre;
    char *err;
    int errlen;
};

/* Reads an order body (or a replay decision, whose `extra` keys, at most 4, the caller reads
 * itself) into *out; CITY_ORDER_OK or an error with its sentence in c->err (city_json.c). */
int city_parse_order(const struct order_ctx *c, const json_t *body, const char *const *extra,
                     int nextra, struct city_order *out);

/* The "options" of seat's pending decision in the current step (city_json.h, the private view):
 * a new object, or NULL when memory ran out (city_options_json.c). */
json_t *city_options_json(const struct city_game *g, int seat);

#endif
