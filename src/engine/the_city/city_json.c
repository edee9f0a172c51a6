/* city_json.c: a struct city_game to JSON and back (storage), its public and private views,
 * the API's order bodies to and from struct city_decision, and replays; see city_json.h. */
#include "city_json.h"

#include "ruleset.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------------------------ */

/* Room for a field's path in messages, e.g. "decisions[12].builds[1].pay[10]". */
enum { PATH_LEN = 80 };

/* Writes a sentence into err (when there is room for one). */
__attribute__((format(printf, 3, 4))) static void say(char *err, int errlen, const char *fmt, ...)
{
    if (!err || errlen <= 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
}

/* jansson's object iterator takes a non-const pointer although iterating changes nothing. */
static json_t *unconst(const json_t *j)
{
    return (json_t *)(uintptr_t)j;
}

/* "a string", "an integer", ... for messages; writes a short integer as itself. */
static const char *type_name(const json_t *v, char *buf, size_t n)
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
static bool push(json_t *a, json_t *v)
{
    return json_array_append_new(a, v) == 0;
}
static bool put(json_t *o, const char *key, json_t *v)
{
    return json_object_set_new(o, key, v) == 0;
}

/* Returns o when every step of building it succeeded, else frees it and returns NULL. */
static json_t *finish(json_t *o, bool ok)
{
    if (ok && o)
        return o;
    json_decref(o);
    return NULL;
}

static json_t *cards_json(const uint8_t *cards, int n)
{
    json_t *a = json_array();
    bool ok = a != NULL;
    for (int i = 0; ok && i < n; i++)
        ok = push(a, json_integer(cards[i]));
    return finish(a, ok);
}

/* Public names of what a build step's decision was (struct city_reveal.kind). */
static const char *action_name(int kind)
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

static const char *slug(const struct city_game *g, int card)
{
    return g->cat->designs[g->cat->card_design[card]].id;
}

/* The last round whose score is in (0 before the first): scoring happens at the end of a
 * round, before its hand_limit step and before the game ends. */
static int last_scored_round(const struct city_game *g)
{
    int r = g->step == CITY_STEP_HAND_LIMIT || g->step == CITY_STEP_OVER ? g->round : g->round - 1;
    return r < 0 ? 0 : r;
}

/* ---- orders ------------------------------------------------------------------------------ */

static const char *const order_codes[CITY_ORDER_ERR_COUNT] = {
    [CITY_ORDER_OK] = "ok",
    [CITY_ORDER_ERR_NOT_AN_OBJECT] = "not_an_object",
    [CITY_ORDER_ERR_MISSING_FIELD] = "missing_field",
    [CITY_ORDER_ERR_UNKNOWN_FIELD] = "unknown_field",
    [CITY_ORDER_ERR_WRONG_TYPE] = "wrong_type",
    [CITY_ORDER_ERR_BAD_VALUE] = "bad_value",
    [CITY_ORDER_ERR_CONFLICTING_FIELDS] = "conflicting_fields",
    [CITY_ORDER_ERR_TOO_MANY_CARDS] = "too_many_cards",
};

const char *city_order_error_code(int err)
{
    return err >= 0 && err < CITY_ORDER_ERR_COUNT ? order_codes[err] : "unknown_error";
}

#define ORDER_SHAPE "an order has round, step and one of discard, build, builds, contractor, survey"
#define CARD_ID     "a card id (an integer from 0 to 109, as in the hand view)"

/* The five keys that say what an order does; parse_order() switches on their index. */
static const char *const action_keys[] = {"discard", "build", "builds", "contractor", "survey"};
enum { NACTIONS = sizeof action_keys / sizeof action_keys[0] };

/* Where an order is being read: `pre` prefixes field names ("" for an API body,
 * "decisions[3]." in a replay, "seats[1].order." in a stored state). */
struct order_ctx {
    const char *pre;
    char *err;
    int errlen;
};

/* Reads an integer in [min, max] from v (which may be NULL: a missing field). */
static int order_int(const struct order_ctx *c, const json_t *v, const char *field, int min,
                     int max, const char *what, int *out)
{
    char buf[32];
    if (!v) {
        say(c->err, c->errlen, "field \"%s%s\" is missing; send %s.", c->pre, field, what);
        return CITY_ORDER_ERR_MISSING_FIELD;
    }
    if (!json_is_integer(v)) {
        say(c->err, c->errlen, "field \"%s%s\" must be %s, not %s.", c->pre, field, what,
            type_name(v, buf, sizeof buf));
        return CITY_ORDER_ERR_WRONG_TYPE;
    }
    json_int_t x = json_integer_value(v);
    if (x < min || x > max) {
        say(c->err, c->errlen, "field \"%s%s\" is %s; send %s.", c->pre, field,
            type_name(v, buf, sizeof buf), what);
        return CITY_ORDER_ERR_BAD_VALUE;
    }
    *out = (int)x;
    return CITY_ORDER_OK;
}

/* Reads an array of at most `max` card ids; `what` says what the list is for. */
static int order_cards(const struct order_ctx *c, const json_t *v, const char *field, int max,
                       const char *what, uint8_t *cards, uint8_t *n)
{
    char buf[32], item[PATH_LEN];
    if (!v) {
        say(c->err, c->errlen, "field \"%s%s\" is missing; send %s.", c->pre, field, what);
        return CITY_ORDER_ERR_MISSING_FIELD;
    }
    if (!json_is_array(v)) {
        say(c->err, c->errlen, "field \"%s%s\" must be an array of card ids (%s), not %s.", c->pre,
            field, what, type_name(v, buf, sizeof buf));
        return CITY_ORDER_ERR_WRONG_TYPE;
    }
    size_t size = json_array_size(v);
    if (size > (size_t)max) {
        say(c->err, c->errlen, "field \"%s%s\" lists %zu cards; send at most %d (%s).", c->pre,
            field, size, max, what);
        return CITY_ORDER_ERR_TOO_MANY_CARDS;
    }
    for (size_t i = 0; i < size; i++) {
        int card = 0;
        snprintf(item, sizeof item, "%s[%zu]", field, i);
        int e = order_int(c, json_array_get(v, i), item, 0, CITY_DECK_SIZE - 1, CARD_ID, &card);
        if (e)
            return e;
        cards[i] = (uint8_t)card;
    }
    *n = (uint8_t)size;
    return CITY_ORDER_OK;
}

/* Reports the first key of object v not in `keys` (n of them). */
static int order_keys(const struct order_ctx *c, const json_t *v, const char *field,
                      const char *const *keys, int n, const char *shape)
{
    const char *key;
    json_t *value;
    json_object_foreach(unconst(v), key, value)
    {
        bool known = false;
        for (int i = 0; i < n && !known; i++)
            known = strcmp(key, keys[i]) == 0;
        if (!known) {
            say(c->err, c->errlen, "unknown field \"%s%s%s%s\"; %s.", c->pre, field,
                *field ? "." : "", key, shape);
            return CITY_ORDER_ERR_UNKNOWN_FIELD;
        }
    }
    return CITY_ORDER_OK;
}

static int order_build(const struct order_ctx *c, const json_t *v, const char *field,
                       struct city_build *b)
{
    static const char *const keys[] = {"card", "pay"};
    static const char shape[] = "a build is {\"card\": id, \"pay\": [ids]}";
    char buf[32], sub[PATH_LEN];
    if (!json_is_object(v)) {
        say(c->err, c->errlen, "field \"%s%s\" must be an object (%s), not %s.", c->pre, field,
            shape, type_name(v, buf, sizeof buf));
        return CITY_ORDER_ERR_WRONG_TYPE;
    }
    int e = order_keys(c, v, field, keys, 2, shape);
    if (e)
        return e;
    int card = 0;
    snprintf(sub, sizeof sub, "%s.card", field);
    e = order_int(c, json_object_get(v, "card"), sub, 0, CITY_DECK_SIZE - 1,
                  CARD_ID " of the hand card to build", &card);
    if (e)
        return e;
    b->card = (uint8_t)card;
    snprintf(sub, sizeof sub, "%s.pay", field);
    return order_cards(c, json_object_get(v, "pay"), sub, CITY_MAX_COST,
                       "the other hand cards paid, as many as the effective cost", b->pay,
                       &b->npay);
}

/* Must be JSON true: contractor and survey say "this one" and nothing more. */
static int order_true(const struct order_ctx *c, const json_t *v, const char *field)
{
    char buf[32];
    if (json_is_true(v))
        return CITY_ORDER_OK;
    say(c->err, c->errlen,
        "field \"%s%s\" must be true, not %s; leave it out to do something else.", c->pre, field,
        type_name(v, buf, sizeof buf));
    return json_is_false(v) ? CITY_ORDER_ERR_BAD_VALUE : CITY_ORDER_ERR_WRONG_TYPE;
}

/* The parser behind city_order_from_json(); `extra` names `nextra` (at most 4) more keys that the
 * caller reads itself (a replay decision's seat and default). */
static int parse_order(const struct order_ctx *c, const json_t *body, const char *const *extra,
                       int nextra, struct city_order *out)
{
    char buf[32];
    memset(out, 0, sizeof *out);
    if (!json_is_object(body)) {
        int n = (int)strlen(c->pre);
        say(c->err, c->errlen, "%s%.*s%s must be a JSON object; %s, and this is %s.",
            n ? "field \"" : "the order", n ? n - 1 : 0, c->pre, n ? "\"" : "", ORDER_SHAPE,
            type_name(body, buf, sizeof buf));
        return CITY_ORDER_ERR_NOT_AN_OBJECT;
    }
    const char *keys[2 + NACTIONS + 4];
    int nkeys = 0;
    keys[nkeys++] = "round";
    keys[nkeys++] = "step";
    for (int i = 0; i < NACTIONS; i++)
        keys[nkeys++] = action_keys[i];
    for (int i = 0; i < nextra && i < 4; i++)
        keys[nkeys++] = extra[i];
    int e = order_keys(c, body, "", keys, nkeys,
                       nextra ? "a replay decision has seat, round, step, one of discard, build, "
                                "builds, contractor, survey, and may have default"
                              : ORDER_SHAPE);
    if (e)
        return e;

    e = order_int(c, json_object_get(body, "round"), "round", 0, CITY_MAX_ROUNDS,
                  "the round the order answers (0 in keep), as in the hand view's pending.round",
                  &out->round);
    if (e)
        return e;
    const json_t *step = json_object_get(body, "step");
    static const char step_what[] = "keep, build, survey or hand_limit, as in the hand view's "
                                    "pending.step";
    if (!step) {
        say(c->err, c->errlen, "field \"%sstep\" is missing; send %s.", c->pre, step_what);
        return CITY_ORDER_ERR_MISSING_FIELD;
    }
    if (!json_is_string(step)) {
        say(c->err, c->errlen, "field \"%sstep\" must be a string, one of %s, not %s.", c->pre,
            step_what, type_name(step, buf, sizeof buf));
        return CITY_ORDER_ERR_WRONG_TYPE;
    }
    out->step = city_step_from_name(json_string_value(step));
    if (out->step < 0 || out->step == CITY_STEP_OVER) {
        say(c->err, c->errlen,
            "field \"%sstep\" is \"%.32s\", which is no step to decide in; send %s.", c->pre,
            json_string_value(step), step_what);
        return CITY_ORDER_ERR_BAD_VALUE;
    }

    int first = -1, second = -1;
    for (int i = 0; i < NACTIONS; i++) {
        if (!json_object_get(body, action_keys[i]))
            continue;
        if (first < 0)
            first = i;
        else if (second < 0)
            second = i;
    }
    if (first < 0) {
        say(c->err, c->errlen,
            "the order has none of the fields \"%sdiscard\", \"%sbuild\", \"%sbuilds\", "
            "\"%scontractor\", \"%ssurvey\"; send exactly one.",
            c->pre, c->pre, c->pre, c->pre, c->pre);
        return CITY_ORDER_ERR_CONFLICTING_FIELDS;
    }
    if (second >= 0) {
        say(c->err, c->errlen,
            "fields \"%s%s\" and \"%s%s\" conflict; send exactly one of discard, build, builds, "
            "contractor, survey.",
            c->pre, action_keys[first], c->pre, action_keys[second]);
        return CITY_ORDER_ERR_CONFLICTING_FIELDS;
    }

    const json_t *v = json_object_get(body, action_keys[first]);
    struct city_decision *d = &out->d;
    switch (first) {
    case 0:
        d->kind = CITY_DEC_DISCARD;
        return order_cards(c, v, "discard", CITY_DECK_SIZE,
                           "the hand cards to discard, as many as pending.options.discard",
                           d->discard, &d->ndiscard);
    case 1:
        d->kind = CITY_DEC_BUILD;
        d->nbuilds = 1;
        return order_build(c, v, "build", &d->builds[0]);
    case 2: {
        d->kind = CITY_DEC_BUILD_TWO;
        d->nbuilds = 2;
        static const char two[] = "exactly two builds, [{\"card\": id, \"pay\": [ids]}, "
                                  "{\"card\": id, \"pay\": [ids]}], in the order to build them";
        if (!json_is_array(v)) {
            say(c->err, c->errlen, "field \"%sbuilds\" must be an array of %s, not %s.", c->pre,
                two, type_name(v, buf, sizeof buf));
            return CITY_ORDER_ERR_WRONG_TYPE;
        }
        if (json_array_size(v) != 2) {
            size_t n = json_array_size(v);
            say(c->err, c->errlen, "field \"%sbuilds\" has %zu %s; send %s.", c->pre, n,
                n == 1 ? "entry" : "entries", two);
            return CITY_ORDER_ERR_TOO_MANY_CARDS;
        }
        for (int k = 0; k < 2; k++) {
            char field[PATH_LEN];
            snprintf(field, sizeof field, "builds[%d]", k);
            e = order_build(c, json_array_get(v, (size_t)k), field, &d->builds[k]);
            if (e)
                return e;
        }
        return CITY_ORDER_OK;
    }
    case 3:
        d->kind = CITY_DEC_CONTRACTOR;
        return order_true(c, v, "contractor");
    default:
        d->kind = CITY_DEC_SURVEY;
        return order_true(c, v, "survey");
    }
}

int city_order_from_json(const json_t *body, struct city_order *out, char *err, int errlen)
{
    struct order_ctx c = {"", err, errlen};
    return parse_order(&c, body, NULL, 0, out);
}

static json_t *build_json(const struct city_build *b)
{
    if (b->npay > CITY_MAX_COST)
        return NULL;
    return json_pack("{s:i, s:o}", "card", (int)b->card, "pay", cards_json(b->pay, b->npay));
}

json_t *city_order_to_json(int round, int step, const struct city_decision *d)
{
    if (step < 0 || step >= CITY_STEP_OVER || !d)
        return NULL;
    json_t *o = json_pack("{s:i, s:s}", "round", round, "step", city_step_name(step));
    bool ok = o != NULL;
    switch (d->kind) {
    case CITY_DEC_DISCARD:
        ok = ok && d->ndiscard <= CITY_DECK_SIZE &&
             put(o, "discard", cards_json(d->discard, d->ndiscard));
        break;
    case CITY_DEC_BUILD:
        ok = ok && d->nbuilds == 1 && put(o, "build", build_json(&d->builds[0]));
        break;
    case CITY_DEC_BUILD_TWO:
        ok = ok && d->nbuilds == 2 &&
             put(o, "builds",
                 json_pack("[o, o]", build_json(&d->builds[0]), build_json(&d->builds[1])));
        break;
    case CITY_DEC_CONTRACTOR:
        ok = ok && put(o, "contractor", json_true());
        break;
    case CITY_DEC_SURVEY:
        ok = ok && put(o, "survey", json_true());
        break;
    default:
        ok = false;
    }
    return finish(o, ok);
}

/* ---- the whole state: writing ------------------------------------------------------------ */

static json_t *reveal_json(const struct city_reveal *r)
{
    const char *action = action_name(r->kind);
    return json_pack("{s:o, s:o, s:i, s:b}", "action", action ? json_string(action) : json_null(),
                     "built", cards_json(r->built, r->nbuilt < 2 ? r->nbuilt : 2), "paid",
                     (int)r->paid, "default", (int)r->defaulted);
}

static json_t *seat_json(const struct city_game *g, int i)
{
    const struct city_seat *s = &g->seats[i];
    json_t *o = json_object();
    bool ok = o != NULL;
    ok = ok && put(o, "hand", cards_json(s->hand, s->nhand));
    ok = ok && put(o, "tableau", cards_json(s->tableau, s->ntableau));
    ok = ok && put(o, "vp", json_integer(s->vp));
    ok = ok && put(o, "pending", json_boolean(s->pending));
    ok = ok && put(o, "submitted", json_boolean(s->submitted));
    ok = ok && put(o, "defaulted", json_boolean(s->defaulted));
    ok = ok && put(o, "drew", json_integer(s->drew));
    if (s->submitted)
        ok = ok && put(o, "order", city_order_to_json(g->round, g->step, &s->order));
    ok = ok && put(o, "reveal", reveal_json(&s->reveal));
    json_t *vbr = json_array();
    for (int r = 0; vbr && r <= g->round && r <= CITY_MAX_ROUNDS; r++)
        ok = ok && push(vbr, json_integer(s->vp_by_round[r]));
    ok = ok && put(o, "vp_by_round", vbr);
    ok = ok && put(o, "last_income", json_integer(s->last_income));
    return finish(o, ok);
}

static json_t *winners_json(const struct city_game *g)
{
    json_t *a = json_array();
    bool ok = a != NULL;
    for (int s = 0; ok && s < g->players && s < CITY_MAX_PLAYERS; s++)
        if (g->winners & (1u << s))
            ok = push(a, json_integer(s));
    return finish(a, ok);
}

json_t *city_to_json(const struct city_game *g)
{
    json_t *o = json_object();
    bool ok = o != NULL;
    json_t *rng = json_array();
    for (int i = 0; rng && i < 4; i++)
        ok = ok && push(rng, ruleset_u64_json(g->rng.s[i]));
    ok = ok && put(o, "seed", ruleset_u64_json(g->seed));
    ok = ok && put(o, "rng", rng);
    ok = ok && put(o, "players", json_integer(g->players));
    ok = ok && put(o, "target_vp", json_integer(g->target_vp));
    ok = ok && put(o, "round", json_integer(g->round));
    ok = ok && put(o, "step", json_string(city_step_name(g->step)));
    ok = ok && put(o, "deck", cards_json(g->deck, g->ndeck));
    ok = ok && put(o, "discard", cards_json(g->discard, g->ndiscard));
    ok = ok && put(o, "pool", cards_json(g->pool, g->npool));
    ok = ok && put(o, "removed", cards_json(g->removed, g->nremoved));
    ok = ok && put(o, "winners", winners_json(g));
    ok = ok && put(o, "ended_by_deck", json_boolean(g->ended_by_deck));
    ok = ok && put(o, "ended_by_rounds", json_boolean(g->ended_by_rounds));
    ok = ok && put(o, "reshuffles", json_integer(g->reshuffles));
    json_t *seats = json_array();
    for (int s = 0; seats && s < g->players && s < CITY_MAX_PLAYERS; s++)
        ok = ok && push(seats, seat_json(g, s));
    ok = ok && put(o, "seats", seats);
    return finish(o, ok);
}

/* ---- the whole state: reading ------------------------------------------------------------ */

/* Reading context: `pre` prefixes field names ("" at the top, "seats[1]." in a seat). */
struct rd {
    const char *pre;
    char *err;
    int errlen;
};

__attribute__((format(printf, 2, 3))) static bool rd_fail(const struct rd *r, const char *fmt, ...)
{
    if (r->err && r->errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, (size_t)r->errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool rd_keys(const struct rd *r, const json_t *o, const char *const *keys, int n)
{
    const char *key;
    json_t *value;
    json_object_foreach(unconst(o), key, value)
    {
        bool known = false;
        for (int i = 0; i < n && !known; i++)
            known = strcmp(key, keys[i]) == 0;
        if (!known)
            return rd_fail(r,
                           "unknown state field \"%s%.40s\"; a stored game has only the "
                           "fields city_to_json() writes.",
                           r->pre, key);
    }
    return true;
}

static bool rd_get(const struct rd *r, const json_t *o, const char *key, const json_t **out)
{
    *out = json_object_get(o, key);
    if (!*out)
        return rd_fail(r, "state field \"%s%s\" is missing.", r->pre, key);
    return true;
}

static bool rd_int_value(const struct rd *r, const json_t *v, const char *field, long long min,
                         long long max, long long *out)
{
    char buf[32];
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return rd_fail(r, "state field \"%s%s\" must be an integer from %lld to %lld, not %s.",
                       r->pre, field, min, max, type_name(v, buf, sizeof buf));
    *out = json_integer_value(v);
    return true;
}

static bool rd_int(const struct rd *r, const json_t *o, const char *key, long long min,
                   long long max, long long *out)
{
    const json_t *v;
    return rd_get(r, o, key, &v) && rd_int_value(r, v, key, min, max, out);
}

static bool rd_bool(const struct rd *r, const json_t *o, const char *key, bool *out)
{
    char buf[32];
    const json_t *v;
    if (!rd_get(r, o, key, &v))
        return false;
    if (!json_is_boolean(v))
        return rd_fail(r, "state field \"%s%s\" must be true or false, not %s.", r->pre, key,
                       type_name(v, buf, sizeof buf));
    *out = json_is_true(v);
    return true;
}

static bool rd_array(const struct rd *r, const json_t *v, const char *field, size_t max,
                     const char *what)
{
    char buf[32];
    if (!json_is_array(v))
        return rd_fail(r, "state field \"%s%s\" must be an array of %s, not %s.", r->pre, field,
                       what, type_name(v, buf, sizeof buf));
    if (json_array_size(v) > max)
        return rd_fail(r, "state field \"%s%s\" has %zu entries; it holds at most %zu.", r->pre,
                       field, json_array_size(v), max);
    return true;
}

static bool rd_cards(const struct rd *r, const json_t *o, const char *key, int max, uint8_t *cards,
                     uint8_t *n)
{
    const json_t *v;
    if (!rd_get(r, o, key, &v) || !rd_array(r, v, key, (size_t)max, "card ids"))
        return false;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char field[PATH_LEN];
        long long c = 0;
        snprintf(field, sizeof field, "%s[%zu]", key, i);
        if (!rd_int_value(r, json_array_get(v, i), field, 0, CITY_DECK_SIZE - 1, &c))
            return false;
        cards[i] = (uint8_t)c;
    }
    *n = (uint8_t)json_array_size(v);
    return true;
}

static bool rd_u64(const struct rd *r, const json_t *v, const char *field, uint64_t *out)
{
    char buf[32];
    if (!ruleset_u64_from_json(v, true, out))
        return rd_fail(r,
                       "state field \"%s%s\" must be a string of decimal digits holding a "
                       "64-bit unsigned number, not %s.",
                       r->pre, field, type_name(v, buf, sizeof buf));
    return true;
}

static bool rd_reveal(const struct rd *seat_rd, const json_t *o, struct city_reveal *rv)
{
    static const char *const keys[] = {"action", "built", "paid", "default"};
    char pre[2 * PATH_LEN], buf[32];
    snprintf(pre, sizeof pre, "%sreveal.", seat_rd->pre);
    struct rd r = {pre, seat_rd->err, seat_rd->errlen};
    if (!json_is_object(o))
        return rd_fail(seat_rd, "state field \"%sreveal\" must be an object, not %s.", seat_rd->pre,
                       type_name(o, buf, sizeof buf));
    if (!rd_keys(&r, o, keys, 4))
        return false;
    const json_t *action;
    if (!rd_get(&r, o, "action", &action))
        return false;
    int kind = CITY_DEC_NONE, nbuilt = 0;
    if (!json_is_null(action)) {
        static const int kinds[] = {CITY_DEC_BUILD, CITY_DEC_BUILD_TWO, CITY_DEC_CONTRACTOR,
                                    CITY_DEC_SURVEY};
        static const int built[] = {1, 2, 1, 0};
        kind = -1;
        for (int i = 0; i < 4; i++)
            if (json_is_string(action) &&
                strcmp(json_string_value(action), action_name(kinds[i])) == 0) {
                kind = kinds[i];
                nbuilt = built[i];
            }
        if (kind < 0)
            return rd_fail(
                &r,
                "state field \"%saction\" must be \"build\", \"build_two\", "
                "\"contractor\", \"survey\" or null, not %s.",
                pre, json_is_string(action) ? "that string" : type_name(action, buf, sizeof buf));
    }
    rv->kind = (uint8_t)kind;
    uint8_t cards[CITY_DECK_SIZE], n;
    if (!rd_cards(&r, o, "built", 2, cards, &n))
        return false;
    if (n != nbuilt)
        return rd_fail(&r, "state field \"%sbuilt\" has %d cards; action %s builds %d.", pre, n,
                       action_name(kind) ? action_name(kind) : "null", nbuilt);
    rv->nbuilt = n;
    memcpy(rv->built, cards, n);
    long long paid = 0;
    if (!rd_int(&r, o, "paid", 0, 2 * CITY_MAX_COST, &paid))
        return false;
    rv->paid = (uint8_t)paid;
    return rd_bool(&r, o, "default", &rv->defaulted);
}

/* Reads seat i, all but its order (read once the whole state is in). */
static bool rd_seat(const struct rd *top, struct city_game *g, int i, const json_t *o)
{
    static const char *const keys[] = {"hand",      "tableau",     "vp",         "pending",
                                       "submitted", "defaulted",   "drew",       "order",
                                       "reveal",    "vp_by_round", "last_income"};
    char pre[PATH_LEN], buf[32];
    snprintf(pre, sizeof pre, "seats[%d].", i);
    struct rd r = {pre, top->err, top->errlen};
    struct city_seat *s = &g->seats[i];
    if (!json_is_object(o))
        return rd_fail(top, "state field \"seats[%d]\" must be an object, not %s.", i,
                       type_name(o, buf, sizeof buf));
    if (!rd_keys(&r, o, keys, (int)(sizeof keys / sizeof keys[0])))
        return false;
    if (!rd_cards(&r, o, "hand", CITY_DECK_SIZE, s->hand, &s->nhand) ||
        !rd_cards(&r, o, "tableau", CITY_DECK_SIZE, s->tableau, &s->ntableau))
        return false;
    long long vp = 0, drew = 0, income = 0;
    if (!rd_int(&r, o, "vp", INT16_MIN, INT16_MAX, &vp) ||
        !rd_int(&r, o, "drew", 0, CITY_SURVEY_DRAW, &drew) ||
        !rd_int(&r, o, "last_income", INT16_MIN, INT16_MAX, &income))
        return false;
    s->vp = (int32_t)vp;
    s->drew = (uint8_t)drew;
    s->last_income = (int16_t)income;
    if (!rd_bool(&r, o, "pending", &s->pending) || !rd_bool(&r, o, "submitted", &s->submitted) ||
        !rd_bool(&r, o, "defaulted", &s->defaulted))
        return false;
    if (s->submitted && !s->pending)
        return rd_fail(&r,
                       "state field \"%ssubmitted\" is true but \"%spending\" is false; only "
                       "a seat that must decide has submitted.",
                       pre, pre);
    /* The game's end clears submitted but leaves the last step's defaulted flags. */
    if (s->defaulted && !s->submitted && g->step != CITY_STEP_OVER)
        return rd_fail(&r,
                       "state field \"%sdefaulted\" is true but \"%ssubmitted\" is false; a "
                       "default is a submitted decision.",
                       pre, pre);
    if (s->pending && g->step == CITY_STEP_OVER)
        return rd_fail(&r, "state field \"%spending\" is true but the game is over.", pre);
    if (s->submitted != (json_object_get(o, "order") != NULL))
        return rd_fail(&r,
                       "state field \"%sorder\" must be present exactly when \"%ssubmitted\" "
                       "is true.",
                       pre, pre);
    const json_t *v;
    if (!rd_get(&r, o, "reveal", &v) || !rd_reveal(&r, v, &s->reveal))
        return false;

    /* Points: vp_by_round[0..round]; the total is the entry of the last scored round, and
     * rounds not yet scored are 0. */
    if (!rd_get(&r, o, "vp_by_round", &v) ||
        !rd_array(&r, v, "vp_by_round", (size_t)g->round + 1, "point totals"))
        return false;
    if (json_array_size(v) != (size_t)g->round + 1)
        return rd_fail(&r,
                       "state field \"%svp_by_round\" has %zu entries; round %d needs %d "
                       "(rounds 0 to %d).",
                       pre, json_array_size(v), g->round, g->round + 1, g->round);
    int scored = last_scored_round(g);
    for (int k = 0; k <= g->round; k++) {
        char field[PATH_LEN];
        long long x = 0;
        snprintf(field, sizeof field, "vp_by_round[%d]", k);
        if (!rd_int_value(&r, json_array_get(v, (size_t)k), field, INT16_MIN, INT16_MAX, &x))
            return false;
        if ((k == 0 || k > scored) && x != 0)
            return rd_fail(&r, "state field \"%s%s\" must be 0: round %d is not scored yet.", pre,
                           field, k);
        s->vp_by_round[k] = (int16_t)x;
    }
    if (s->vp != s->vp_by_round[scored])
        return rd_fail(&r,
                       "state field \"%svp\" is %d but \"%svp_by_round[%d]\" (the last scored "
                       "round) is %d; they must agree.",
                       pre, (int)s->vp, pre, scored, (int)s->vp_by_round[scored]);
    /* Reaching the target ends the game in that round, so a game still going has no seat at
     * it; the 16-bit point totals of the rounds to come rely on that. */
    if (g->step != CITY_STEP_OVER && s->vp >= g->target_vp)
        return rd_fail(&r,
                       "state field \"%svp\" is %d, not below the target %d, but the game is "
                       "not over; a seat that reaches the target ends the game.",
                       pre, (int)s->vp, (int)g->target_vp);
    return true;
}

/* Every card in exactly one place; contractors only in the pool, removed, or a tableau. */
static bool rd_places(const struct rd *r, const struct city_game *g)
{
    struct place {
        char name[PATH_LEN];
        const uint8_t *cards;
        int n;
        bool developments_only, contractors_only;
    } places[4 + 2 * CITY_MAX_PLAYERS] = {
        {"deck", g->deck, g->ndeck, true, false},
        {"discard", g->discard, g->ndiscard, true, false},
        {"pool", g->pool, g->npool, false, true},
        {"removed", g->removed, g->nremoved, false, true},
    };
    int np = 4;
    for (int s = 0; s < g->players; s++) {
        struct place *h = &places[np++], *t = &places[np++];
        snprintf(h->name, sizeof h->name, "seats[%d].hand", s);
        h->cards = g->seats[s].hand;
        h->n = g->seats[s].nhand;
        h->developments_only = true;
        snprintf(t->name, sizeof t->name, "seats[%d].tableau", s);
        t->cards = g->seats[s].tableau;
        t->n = g->seats[s].ntableau;
    }
    int where[CITY_DECK_SIZE];
    for (int c = 0; c < CITY_DECK_SIZE; c++)
        where[c] = -1;
    for (int p = 0; p < np; p++) {
        for (int i = 0; i < places[p].n; i++) {
            int c = places[p].cards[i];
            if (where[c] >= 0)
                return rd_fail(r,
                               "card %d is in both \"%s\" and \"%s\" (state field \"%s[%d]\"); "
                               "every card must be in exactly one place.",
                               c, places[where[c]].name, places[p].name, places[p].name, i);
            where[c] = p;
            bool contractor = g->cat->card_design[c] == g->cat->contractor_design;
            if ((contractor && places[p].developments_only) ||
                (!contractor && places[p].contractors_only))
                return rd_fail(r, "state field \"%s[%d]\" holds card %d, %s; %s.", places[p].name,
                               i, c, contractor ? "a General Contractor" : "a development",
                               contractor ? "contractors are only in the pool, removed, or a "
                                            "tableau"
                                          : "the pool and removed hold General Contractors only");
        }
    }
    for (int c = 0; c < CITY_DECK_SIZE; c++)
        if (where[c] < 0)
            return rd_fail(r,
                           "card %d is nowhere (not in deck, discard, pool, removed, a hand or "
                           "a tableau); every card must be in exactly one place.",
                           c);
    return true;
}

bool city_from_json(struct city_game *g, const struct city_catalog *cat, const json_t *j, char *err,
                    int errlen)
{
    static const char *const keys[] = {
        "seed",    "rng",           "players",         "target_vp",  "round",
        "step",    "deck",          "discard",         "pool",       "removed",
        "winners", "ended_by_deck", "ended_by_rounds", "reshuffles", "seats"};
    struct rd r = {"", err, errlen};
    char buf[32];
    memset(g, 0, sizeof *g);
    g->cat = cat;
    if (!cat)
        return rd_fail(&r, "no card catalog was given to read the state with.");
    if (!json_is_object(j))
        return rd_fail(&r, "a stored game must be a JSON object, not %s.",
                       type_name(j, buf, sizeof buf));
    if (!rd_keys(&r, j, keys, (int)(sizeof keys / sizeof keys[0])))
        return false;

    const json_t *v;
    long long x = 0;
    if (!rd_int(&r, j, "players", CITY_MIN_PLAYERS, CITY_MAX_PLAYERS, &x))
        return false;
    g->players = (uint8_t)x;
    if (!rd_get(&r, j, "seed", &v) || !rd_u64(&r, v, "seed", &g->seed))
        return false;
    if (!rd_get(&r, j, "rng", &v) || !rd_array(&r, v, "rng", 4, "4 strings of decimal digits"))
        return false;
    if (json_array_size(v) != 4)
        return rd_fail(&r, "state field \"rng\" must hold exactly 4 numbers, not %zu.",
                       json_array_size(v));
    for (int i = 0; i < 4; i++) {
        char field[PATH_LEN];
        snprintf(field, sizeof field, "rng[%d]", i);
        if (!rd_u64(&r, json_array_get(v, (size_t)i), field, &g->rng.s[i]))
            return false;
    }
    if (!rd_int(&r, j, "target_vp", CITY_MIN_TARGET, CITY_MAX_TARGET, &x))
        return false;
    g->target_vp = (int16_t)x;
    if (!rd_int(&r, j, "round", 0, CITY_MAX_ROUNDS, &x))
        return false;
    g->round = (int16_t)x;
    if (!rd_get(&r, j, "step", &v))
        return false;
    int step = city_step_from_name(json_string_value(v));
    if (step < 0)
        return rd_fail(&r,
                       "state field \"step\" must be \"keep\", \"build\", \"survey\", "
                       "\"hand_limit\" or \"over\", not %s.",
                       json_is_string(v) ? "that string" : type_name(v, buf, sizeof buf));
    g->step = (uint8_t)step;
    if ((g->round == 0) != (step == CITY_STEP_KEEP))
        return rd_fail(&r,
                       "state fields \"round\" (%d) and \"step\" (%s) disagree: round 0 is "
                       "step keep and step keep is round 0.",
                       g->round, city_step_name(step));
    if (step == CITY_STEP_HAND_LIMIT && g->round >= CITY_MAX_ROUNDS)
        return rd_fail(&r,
                       "state fields \"round\" and \"step\" disagree: the game ends at round "
                       "%d, before its hand_limit step.",
                       CITY_MAX_ROUNDS);

    if (!rd_cards(&r, j, "deck", CITY_DECK_SIZE, g->deck, &g->ndeck) ||
        !rd_cards(&r, j, "discard", CITY_DECK_SIZE, g->discard, &g->ndiscard) ||
        !rd_cards(&r, j, "pool", CITY_CONTRACTORS, g->pool, &g->npool) ||
        !rd_cards(&r, j, "removed", CITY_CONTRACTORS, g->removed, &g->nremoved))
        return false;

    if (!rd_get(&r, j, "winners", &v) ||
        !rd_array(&r, v, "winners", (size_t)g->players, "seat numbers"))
        return false;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char field[PATH_LEN];
        snprintf(field, sizeof field, "winners[%zu]", i);
        if (!rd_int_value(&r, json_array_get(v, i), field, 0, g->players - 1, &x))
            return false;
        if (g->winners & (1u << x))
            return rd_fail(&r, "state field \"%s\" repeats seat %lld.", field, x);
        g->winners |= (uint8_t)(1u << x);
    }
    if ((g->winners != 0) != (step == CITY_STEP_OVER))
        return rd_fail(&r, "state field \"winners\" must list the winning seats once the game is "
                           "over, and be empty before.");
    if (!rd_bool(&r, j, "ended_by_deck", &g->ended_by_deck) ||
        !rd_bool(&r, j, "ended_by_rounds", &g->ended_by_rounds))
        return false;
    if ((g->ended_by_deck || g->ended_by_rounds) && step != CITY_STEP_OVER)
        return rd_fail(&r, "state fields \"ended_by_deck\" and \"ended_by_rounds\" must be false "
                           "while the game goes on.");
    if (g->ended_by_deck && g->ended_by_rounds)
        return rd_fail(&r, "state fields \"ended_by_deck\" and \"ended_by_rounds\" cannot both be "
                           "true.");
    if (!rd_int(&r, j, "reshuffles", 0, UINT16_MAX, &x))
        return false;
    g->reshuffles = (uint16_t)x;

    if (!rd_get(&r, j, "seats", &v) || !rd_array(&r, v, "seats", g->players, "seat objects"))
        return false;
    if (json_array_size(v) != g->players)
        return rd_fail(&r, "state field \"seats\" has %zu entries; \"players\" says %d.",
                       json_array_size(v), g->players);
    for (int s = 0; s < g->players; s++)
        if (!rd_seat(&r, g, s, json_array_get(v, (size_t)s)))
            return false;
    if (!rd_places(&r, g))
        return false;
    for (int s = 0; s < g->players; s++)
        city_seat_refresh(g, s);
    if (!city_check_conservation(g))
        return rd_fail(&r, "the state's cards are not each in exactly one place.");

    /* What the engine relies on without checking again: setup removed the contractors beyond
     * one per player; a seat takes at most one (so the pool holds one for every seat without);
     * a seat that must discard has the cards to. */
    if (g->nremoved != CITY_CONTRACTORS - g->players)
        return rd_fail(&r,
                       "state field \"removed\" holds %d General Contractors; with %d players "
                       "setup removes %d.",
                       g->nremoved, g->players, CITY_CONTRACTORS - g->players);
    for (int s = 0; s < g->players; s++) {
        const struct city_seat *seat = &g->seats[s];
        int taken = 0;
        for (int i = 0; i < seat->ntableau; i++)
            taken += cat->card_design[seat->tableau[i]] == cat->contractor_design;
        if (taken > 1)
            return rd_fail(&r,
                           "state field \"seats[%d].tableau\" holds %d General Contractors; "
                           "a player takes at most one.",
                           s, taken);
        int n = city_discard_count(g, s);
        if (seat->pending && g->step != CITY_STEP_BUILD && (n < 1 || n > seat->nhand))
            return rd_fail(&r,
                           "state field \"seats[%d].pending\" is true in step %s, but the "
                           "seat would have to discard %d of %d cards.",
                           s, city_step_name(g->step), n, seat->nhand);
    }

    /* The orders last: they are checked against the whole state, as city_submit() does, and
     * stored by it, so they take the same bytes as when they were first submitted. */
    for (int s = 0; s < g->players; s++) {
        struct city_seat *seat = &g->seats[s];
        if (!seat->submitted)
            continue;
        char pre[PATH_LEN];
        snprintf(pre, sizeof pre, "seats[%d].order.", s);
        struct order_ctx c = {pre, err, errlen};
        struct city_order order;
        if (parse_order(&c, json_object_get(json_array_get(v, (size_t)s), "order"), NULL, 0,
                        &order))
            return false;
        if (order.round != g->round || order.step != g->step)
            return rd_fail(&r,
                           "state field \"seats[%d].order\" answers round %d, step %s, not "
                           "the current round %d, step %s.",
                           s, order.round, city_step_name(order.step), g->round,
                           city_step_name(g->step));
        bool defaulted = seat->defaulted;
        int e = city_submit(g, s, &order.d);
        if (e)
            return rd_fail(&r, "state field \"seats[%d].order\" is not legal now: %s", s,
                           city_error_message(e));
        seat->defaulted = defaulted;
    }
    return true;
}

/* ---- views ------------------------------------------------------------------------------- */

static json_t *public_seat(const struct city_game *g, int i)
{
    const struct city_seat *s = &g->seats[i];
    json_t *o = json_object();
    bool ok = o != NULL;
    ok = ok && put(o, "seat", json_integer(i));
    ok = ok && put(o, "vp", json_integer(s->vp));
    ok = ok && put(o, "hand_count", json_integer(s->nhand));
    json_t *tab = json_array();
    for (int k = 0; tab && k < s->ntableau; k++)
        ok = ok && push(tab, json_pack("{s:s, s:i, s:i}", "card", slug(g, s->tableau[k]), "vp",
                                       city_card_vp(g, i, k), "income", city_card_income(g, i, k)));
    ok = ok && put(o, "tableau", tab);
    ok = ok && put(o, "round_vp", json_integer(city_seat_round_vp(g, i)));
    ok = ok && put(o, "income", json_integer(city_seat_income(g, i)));
    ok = ok && put(o, "submitted", json_boolean(s->submitted));
    ok = ok && put(o, "pending", json_boolean(game_seat_pending(g, i)));
    const char *action = action_name(s->reveal.kind);
    json_t *built = json_array();
    for (int k = 0; built && k < s->reveal.nbuilt && k < 2; k++)
        ok = ok && push(built, json_string(slug(g, s->reveal.built[k])));
    ok = ok && put(o, "last",
                   json_pack("{s:o, s:o, s:i, s:b}", "action",
                             action ? json_string(action) : json_null(), "built", built, "paid",
                             (int)s->reveal.paid, "default", (int)s->reveal.defaulted));
    json_t *vbr = json_array();
    int scored = last_scored_round(g);
    for (int r = 1; vbr && r <= scored && r <= CITY_MAX_ROUNDS; r++)
        ok = ok && push(vbr, json_integer(s->vp_by_round[r]));
    ok = ok && put(o, "vp_by_round", vbr);
    return finish(o, ok);
}

json_t *city_public_view(const struct city_game *g)
{
    json_t *o = json_object();
    bool ok = o != NULL;
    ok = ok && put(o, "round", json_integer(g->round));
    ok = ok && put(o, "step", json_string(city_step_name(g->step)));
    ok = ok && put(o, "target_vp", json_integer(g->target_vp));
    ok = ok && put(o, "deck_count", json_integer(g->ndeck));
    ok = ok && put(o, "discard_count", json_integer(g->ndiscard));
    ok = ok && put(o, "contractors_left", json_integer(g->npool));
    json_t *seats = json_array();
    for (int s = 0; seats && s < g->players && s < CITY_MAX_PLAYERS; s++)
        ok = ok && push(seats, public_seat(g, s));
    ok = ok && put(o, "seats", seats);
    ok = ok && put(o, "winners", winners_json(g));
    const char *ended = NULL;
    if (g->step == CITY_STEP_OVER)
        ended = g->ended_by_deck ? "deck" : g->ended_by_rounds ? "rounds" : "target";
    ok = ok && put(o, "ended_by", ended ? json_string(ended) : json_null());
    return finish(o, ok);
}

static json_t *options_json(const struct city_game *g, int seat)
{
    if (g->step != CITY_STEP_BUILD)
        return json_pack("{s:i}", "discard", city_discard_count(g, seat));
    struct city_build_options opt;
    city_build_options(g, seat, &opt);
    json_t *builds = json_array();
    bool ok = builds != NULL;
    for (int i = 0; ok && i < opt.nbuilds; i++)
        ok = push(builds, json_pack("{s:i, s:s, s:i}", "id", (int)opt.card[i], "card",
                                    slug(g, opt.card[i]), "cost", (int)opt.cost[i]));
    if (!ok) {
        json_decref(builds);
        return NULL;
    }
    return json_pack("{s:o, s:b, s:b}", "builds", builds, "contractor", (int)opt.contractor,
                     "double", (int)opt.two);
}

json_t *city_private_view(const struct city_game *g, int seat)
{
    if (seat < 0 || seat >= g->players || seat >= CITY_MAX_PLAYERS)
        return NULL;
    const struct city_seat *s = &g->seats[seat];
    json_t *o = json_object();
    bool ok = o != NULL;
    ok = ok && put(o, "seat", json_integer(seat));
    json_t *hand = json_array();
    for (int i = 0; hand && i < s->nhand; i++)
        ok = ok && push(hand, json_pack("{s:i, s:s}", "id", (int)s->hand[i], "card",
                                        slug(g, s->hand[i])));
    ok = ok && put(o, "hand", hand);
    if (game_seat_pending(g, seat))
        ok = ok && put(o, "pending",
                       json_pack("{s:i, s:s, s:o}", "round", (int)g->round, "step",
                                 city_step_name(g->step), "options", options_json(g, seat)));
    else
        ok = ok && put(o, "pending", json_null());
    if (s->submitted && game_seat_pending(g, seat))
        ok = ok && put(o, "order", city_order_to_json(g->round, g->step, &s->order));
    return finish(o, ok);
}

/* ---- replays ----------------------------------------------------------------------------- */

json_t *city_replay_new(uint64_t seed, int players, int target_vp)
{
    if (players < CITY_MIN_PLAYERS || players > CITY_MAX_PLAYERS)
        return NULL;
    if (target_vp == 0)
        target_vp = CITY_DEFAULT_TARGET;
    if (target_vp < CITY_MIN_TARGET || target_vp > CITY_MAX_TARGET)
        return NULL;
    return json_pack("{s:o, s:i, s:i, s:[]}", "seed", ruleset_u64_json(seed), "players", players,
                     "target_vp", target_vp, "decisions");
}

static bool replay_append(json_t *replay, int seat, int round, int step,
                          const struct city_decision *d, bool defaulted)
{
    json_t *decisions = json_object_get(replay, "decisions");
    if (!json_is_array(decisions))
        return false;
    json_t *body = city_order_to_json(round, step, d);
    if (!body)
        return false;
    json_t *o = json_pack("{s:i}", "seat", seat);
    bool ok = o != NULL;
    if (ok && defaulted)
        ok = put(o, "default", json_true());
    ok = ok && json_object_update(o, body) == 0;
    json_decref(body);
    o = finish(o, ok);
    return o && push(decisions, o);
}

bool city_replay_add(json_t *replay, int seat, int round, int step, const struct city_decision *d)
{
    return replay_append(replay, seat, round, step, d, false);
}

bool city_replay_add_default(json_t *replay, int seat, int round, int step,
                             const struct city_decision *d)
{
    return replay_append(replay, seat, round, step, d, true);
}

bool city_replay_run(const struct city_catalog *cat, const json_t *replay, struct city_game *g,
                     char *err, int errlen)
{
    static const char *const keys[] = {"seed", "players", "target_vp", "decisions"};
    struct rd r = {"", err, errlen};
    char buf[32];
    memset(g, 0, sizeof *g);
    if (!cat)
        return rd_fail(&r, "no card catalog was given to replay with.");
    if (!json_is_object(replay))
        return rd_fail(&r,
                       "a replay must be a JSON object {\"seed\", \"players\", "
                       "\"target_vp\"?, \"decisions\"}, not %s.",
                       type_name(replay, buf, sizeof buf));
    const char *key;
    json_t *value;
    json_object_foreach(unconst(replay), key, value)
    {
        bool known = false;
        for (int i = 0; i < 4 && !known; i++)
            known = strcmp(key, keys[i]) == 0;
        /* The service's replays name their game (docs/rulesets.md); older files do not. */
        if (strcmp(key, "game") == 0) {
            if (!json_is_string(value) || strcmp(json_string_value(value), "the_city") != 0)
                return rd_fail(&r, "replay field \"game\" must be \"the_city\" for a replay "
                                   "of The City.");
            known = true;
        }
        if (!known)
            return rd_fail(&r,
                           "unknown replay field \"%.40s\"; a replay has game, seed, players, "
                           "target_vp and decisions.",
                           key);
    }
    const json_t *v = json_object_get(replay, "seed");
    uint64_t seed;
    if (!v)
        return rd_fail(&r, "replay field \"seed\" is missing; send the game's seed.");
    if (!ruleset_u64_from_json(v, true, &seed))
        return rd_fail(&r,
                       "replay field \"seed\" must be a string of decimal digits or a "
                       "non-negative integer, not %s.",
                       type_name(v, buf, sizeof buf));
    v = json_object_get(replay, "players");
    if (!json_is_integer(v) || json_integer_value(v) < CITY_MIN_PLAYERS ||
        json_integer_value(v) > CITY_MAX_PLAYERS)
        return rd_fail(&r, "replay field \"players\" must be an integer from %d to %d, not %s.",
                       CITY_MIN_PLAYERS, CITY_MAX_PLAYERS, type_name(v, buf, sizeof buf));
    int players = (int)json_integer_value(v);
    int target = 0;
    v = json_object_get(replay, "target_vp");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > CITY_MAX_TARGET)
            return rd_fail(&r,
                           "replay field \"target_vp\" must be an integer from %d to %d (0 "
                           "or absent for %d), not %s.",
                           CITY_MIN_TARGET, CITY_MAX_TARGET, CITY_DEFAULT_TARGET,
                           type_name(v, buf, sizeof buf));
        target = (int)json_integer_value(v);
    }
    const json_t *decisions = json_object_get(replay, "decisions");
    if (!json_is_array(decisions))
        return rd_fail(&r,
                       "replay field \"decisions\" must be an array of {\"seat\", ...order "
                       "body...}, not %s.",
                       type_name(decisions, buf, sizeof buf));
    if (city_new(g, cat, players, seed, target) != CITY_OK)
        return rd_fail(&r, "the replay's players or target_vp cannot start a game.");

    static const char *const extra[] = {"seat", "default"};
    for (size_t i = 0; i < json_array_size(decisions); i++) {
        const json_t *dj = json_array_get(decisions, i);
        char pre[PATH_LEN];
        snprintf(pre, sizeof pre, "decisions[%zu].", i);
        struct order_ctx c = {pre, err, errlen};
        struct city_order order;
        if (parse_order(&c, dj, extra, 2, &order))
            return false;
        v = json_object_get(dj, "seat");
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= players)
            return rd_fail(&r, "field \"%sseat\" must be a seat number from 0 to %d, not %s.", pre,
                           players - 1, type_name(v, buf, sizeof buf));
        int seat = (int)json_integer_value(v);
        v = json_object_get(dj, "default");
        if (v && !json_is_boolean(v))
            return rd_fail(&r, "field \"%sdefault\" must be true or false, not %s.", pre,
                           type_name(v, buf, sizeof buf));
        if (g->step == CITY_STEP_OVER)
            return rd_fail(&r, "decisions[%zu] comes after the game ended (round %d).", i,
                           g->round);
        if (order.round != g->round || order.step != g->step)
            return rd_fail(&r,
                           "decisions[%zu] answers round %d, step %s, but the game is at "
                           "round %d, step %s.",
                           i, order.round, city_step_name(order.step), g->round,
                           city_step_name(g->step));
        int e = city_submit(g, seat, &order.d);
        if (e)
            return rd_fail(&r, "decisions[%zu] (seat %d, round %d, step %s) was refused: %s", i,
                           seat, g->round, city_step_name(g->step), city_error_message(e));
        if (json_is_true(v))
            g->seats[seat].defaulted = true;
        while (city_ready(g))
            if (!city_resolve(g, NULL))
                break;
    }
    return true;
}
