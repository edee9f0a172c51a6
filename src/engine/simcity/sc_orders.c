/* sc_orders.c: SimCity's order bodies as JSON, both ways (see sc_json.h). One table says which
 * fields each step's order takes, so that every step refuses an unknown field, a field of
 * another step and a wrong type with the same words. */
#include <stdint.h>
#include <string.h>

#include "json_util.h"
#include "sc_json.h"

static const char *const order_codes[SC_ORDER_COUNT] = {
    "ok",        "not_an_object",      "missing_field",  "unknown_field", "wrong_type",
    "bad_value", "conflicting_fields", "too_many_cards", "wrong_kind"};

const char *sc_order_error_code(int err)
{
    return err >= 0 && err < SC_ORDER_COUNT ? order_codes[err] : "unknown_error";
}

/* The fields each step's order takes besides round, step and turn. */
static const char *const step_keys[SC_STEP_COUNT][5] = {
    [SC_STEP_DRAW] = {"from", NULL},
    [SC_STEP_COUNCIL] = {"pass", "card", NULL},
    [SC_STEP_TARGET] = {"x", "y", NULL},
    [SC_STEP_PLAY] = {"pass", "card", "x", "y", NULL},
    [SC_STEP_VOTE] = {"ballots", "mayor", "tie", NULL},
    [SC_STEP_MAYOR_PAY] = {"vacate", NULL},
    [SC_STEP_ELECTION] = {"pass", "votes", "candidate", NULL},
    [SC_STEP_DISCARD] = {"card", NULL},
};

static const char *const ballot_names[3] = {"withhold", "yes", "no"};
static const char *const tie_names[3] = {"none", "yes", "no"};

static bool takes(int step, const char *key)
{
    for (int i = 0; step_keys[step][i]; i++)
        if (strcmp(step_keys[step][i], key) == 0)
            return true;
    return false;
}

struct rd {
    const json_t *body;
    char *err;
    int errlen;
};

/* An integer field lo..hi; absent is fine unless required (*out left alone). */
static int get_int(struct rd *r, const char *key, int lo, int hi, bool required, int *out)
{
    const json_t *v = json_object_get(r->body, key);
    if (!v) {
        if (!required)
            return SC_ORDER_OK;
        say(r->err, r->errlen, "field \"%s\" is missing; send an integer from %d to %d.", key, lo,
            hi);
        return SC_ORDER_MISSING_FIELD;
    }
    if (!json_is_integer(v)) {
        say(r->err, r->errlen, "field \"%s\" must be an integer from %d to %d.", key, lo, hi);
        return SC_ORDER_WRONG_TYPE;
    }
    if (json_integer_value(v) < lo || json_integer_value(v) > hi) {
        say(r->err, r->errlen, "field \"%s\" must be from %d to %d.", key, lo, hi);
        return SC_ORDER_BAD_VALUE;
    }
    *out = (int)json_integer_value(v);
    return SC_ORDER_OK;
}

/* A string field naming one of names[0..n-1]. */
static int get_name(struct rd *r, const char *key, const char *const *names, int n, bool required,
                    int *out)
{
    const json_t *v = json_object_get(r->body, key);
    if (!v) {
        if (!required)
            return SC_ORDER_OK;
        say(r->err, r->errlen, "field \"%s\" is missing.", key);
        return SC_ORDER_MISSING_FIELD;
    }
    if (!json_is_string(v)) {
        say(r->err, r->errlen, "field \"%s\" must be a string.", key);
        return SC_ORDER_WRONG_TYPE;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(json_string_value(v), names[i]) == 0) {
            *out = i;
            return SC_ORDER_OK;
        }
    if (n == 2)
        say(r->err, r->errlen, "field \"%s\" must be %s or %s.", key, names[0], names[1]);
    else
        say(r->err, r->errlen, "field \"%s\" must be %s, %s or %s.", key, names[0], names[1],
            names[2]);
    return SC_ORDER_BAD_VALUE;
}

/* `pass` when present: true, and alone. */
static int get_pass(struct rd *r, bool *passed)
{
    const json_t *p = json_object_get(r->body, "pass");
    *passed = false;
    if (!p)
        return SC_ORDER_OK;
    if (!json_is_boolean(p)) {
        say(r->err, r->errlen, "field \"pass\" must be true.");
        return SC_ORDER_WRONG_TYPE;
    }
    if (!json_is_true(p)) {
        say(r->err, r->errlen, "field \"pass\" must be true (leave it out to act).");
        return SC_ORDER_BAD_VALUE;
    }
    if (json_object_size(r->body) != 4) {
        say(r->err, r->errlen, "a pass holds only round, step, turn and \"pass\": true.");
        return SC_ORDER_CONFLICTING_FIELDS;
    }
    *passed = true;
    return SC_ORDER_OK;
}

/* A cell {x, y} of the order's own fields: both or (when `optional`) neither (-1, -1). */
static int get_cell(struct rd *r, bool optional, struct sc_decision *d)
{
    bool hx = json_object_get(r->body, "x"), hy = json_object_get(r->body, "y");
    if (optional && !hx && !hy)
        return SC_ORDER_OK;
    if (optional && hx != hy) {
        say(r->err, r->errlen,
            "send both \"x\" and \"y\", or neither (an event that chooses no "
            "block).");
        return SC_ORDER_CONFLICTING_FIELDS;
    }
    int x = -1, y = -1, e;
    if ((e = get_int(r, "x", 0, SC_STRIDE - 1, true, &x)) ||
        (e = get_int(r, "y", 0, SC_STRIDE - 1, true, &y)))
        return e;
    d->x = (int8_t)x;
    d->y = (int8_t)y;
    return SC_ORDER_OK;
}

static int get_card(struct rd *r, struct sc_decision *d)
{
    int card = 0, e = get_int(r, "card", 0, SC_MAX_CARDS - 1, true, &card);
    d->card = (uint8_t)card;
    return e;
}

static int get_ballots(struct rd *r, struct sc_decision *d)
{
    const json_t *b = json_object_get(r->body, "ballots");
    bool mayor = json_object_get(r->body, "mayor") || json_object_get(r->body, "tie");
    if (b && mayor) {
        say(r->err, r->errlen,
            "send \"ballots\" (your members') or \"mayor\" and \"tie\" (the "
            "Mayor's), not both.");
        return SC_ORDER_CONFLICTING_FIELDS;
    }
    if (mayor) {
        int m = 0, t = 0, e;
        if ((e = get_name(r, "mayor", ballot_names, 3, true, &m)) ||
            (e = get_name(r, "tie", tie_names, 3, false, &t)))
            return e;
        d->mayor = (uint8_t)m;
        d->tie = (uint8_t)t;
        return SC_ORDER_OK;
    }
    if (!b) {
        say(r->err, r->errlen,
            "field \"ballots\" is missing; send one of withhold, yes, no per "
            "member you hold, or the Mayor's \"mayor\" and \"tie\".");
        return SC_ORDER_MISSING_FIELD;
    }
    if (!json_is_array(b)) {
        say(r->err, r->errlen, "field \"ballots\" must be an array of withhold, yes or no.");
        return SC_ORDER_WRONG_TYPE;
    }
    if (json_array_size(b) > SC_MAX_MEMBERS) {
        say(r->err, r->errlen, "field \"ballots\" holds more than %d ballots.", SC_MAX_MEMBERS);
        return SC_ORDER_TOO_MANY_CARDS;
    }
    size_t i;
    const json_t *v;
    json_array_foreach(b, i, v)
    {
        int k = -1;
        for (int n = 0; json_is_string(v) && n < 3; n++)
            if (strcmp(json_string_value(v), ballot_names[n]) == 0)
                k = n;
        if (k < 0) {
            say(r->err, r->errlen, "field \"ballots[%zu]\" must be withhold, yes or no.", i);
            return json_is_string(v) ? SC_ORDER_BAD_VALUE : SC_ORDER_WRONG_TYPE;
        }
        d->ballots[i] = (uint8_t)k;
    }
    d->nballots = (uint8_t)json_array_size(b);
    return SC_ORDER_OK;
}

static int read_step(struct rd *r, int step, struct sc_decision *d)
{
    bool passed = false;
    int e, n = 0;
    if (takes(step, "pass") && ((e = get_pass(r, &passed)) || passed)) {
        d->kind = SC_DEC_PASS;
        return e;
    }
    switch (step) {
    case SC_STEP_DRAW: {
        static const char *const from[2] = {"deck", "discard"};
        d->kind = SC_DEC_DRAW;
        e = get_name(r, "from", from, 2, true, &n);
        d->from_discard = n == 1;
        return e;
    }
    case SC_STEP_COUNCIL:
        d->kind = SC_DEC_BUY;
        return get_card(r, d);
    case SC_STEP_TARGET:
        d->kind = SC_DEC_TARGET;
        return get_cell(r, false, d);
    case SC_STEP_PLAY:
        d->kind = SC_DEC_PLAY;
        return (e = get_card(r, d)) ? e : get_cell(r, true, d);
    case SC_STEP_VOTE:
        d->kind = SC_DEC_VOTE;
        return get_ballots(r, d);
    case SC_STEP_MAYOR_PAY: {
        const json_t *v = json_object_get(r->body, "vacate");
        d->kind = SC_DEC_PAY;
        if (!v) {
            say(r->err, r->errlen,
                "field \"vacate\" is missing; send false to pay in full, true "
                "to pay half and vacate.");
            return SC_ORDER_MISSING_FIELD;
        }
        if (!json_is_boolean(v)) {
            say(r->err, r->errlen, "field \"vacate\" must be true or false.");
            return SC_ORDER_WRONG_TYPE;
        }
        d->vacate = json_is_true(v);
        return SC_ORDER_OK;
    }
    case SC_STEP_ELECTION: {
        int votes = 0, candidate = 0;
        d->kind = SC_DEC_BID;
        if ((e = get_int(r, "votes", 1, SC_MAX_TARGET, true, &votes)) ||
            (e = get_int(r, "candidate", 0, SC_MAX_PLAYERS - 1, true, &candidate)))
            return e;
        d->votes = (int16_t)votes;
        d->candidate = (uint8_t)candidate;
        return SC_ORDER_OK;
    }
    default:
        d->kind = SC_DEC_DISCARD;
        return get_card(r, d);
    }
}

int sc_order_from_json(const json_t *body, int *round, int *step, int *turn, struct sc_decision *d,
                       char *err, int errlen)
{
    struct rd r = {body, err, errlen};
    sc_decision_init(d);
    if (!json_is_object(body)) {
        say(err, errlen, "an order must be a JSON object {\"round\", \"step\", \"turn\", ...}.");
        return SC_ORDER_NOT_AN_OBJECT;
    }
    int e;
    if ((e = get_int(&r, "round", 1, INT32_MAX, true, round)) ||
        (e = get_int(&r, "turn", 0, INT32_MAX, true, turn)))
        return e;
    const json_t *s = json_object_get(body, "step");
    if (!s) {
        say(err, errlen, "field \"step\" is missing; send the step named in your view.");
        return SC_ORDER_MISSING_FIELD;
    }
    if (!json_is_string(s)) {
        say(err, errlen, "field \"step\" must be a string.");
        return SC_ORDER_WRONG_TYPE;
    }
    *step = sc_step_from_name(json_string_value(s));
    if (*step < 0 || *step == SC_STEP_OVER) {
        say(err, errlen,
            "field \"step\" must be draw, council, target, play, vote, mayor_pay, "
            "election or discard.");
        return SC_ORDER_BAD_VALUE;
    }
    const char *key;
    json_t *v;
    json_object_foreach(unconst(body), key, v)
    {
        if (!strcmp(key, "round") || !strcmp(key, "step") || !strcmp(key, "turn") ||
            takes(*step, key))
            continue;
        for (int other = 0; other < SC_STEP_OVER; other++)
            if (takes(other, key)) {
                say(err, errlen, "field \"%s\" belongs to a %s order, not a %s one.", key,
                    sc_step_name(other), sc_step_name(*step));
                return SC_ORDER_WRONG_KIND;
            }
        char list[80] = "";
        for (int i = 0; step_keys[*step][i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     i == 0                    ? ""
                     : step_keys[*step][i + 1] ? ", "
                                               : " or ",
                     step_keys[*step][i]);
        say(err, errlen,
            "field \"%.40s\" is unknown to a %s order, which takes round, step, turn and %s.", key,
            sc_step_name(*step), list);
        return SC_ORDER_UNKNOWN_FIELD;
    }
    return read_step(&r, *step, d);
}

json_t *sc_order_to_json(int round, int step, int turn, const struct sc_decision *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "round", json_integer(round));
    json_object_set_new(o, "step", json_string(sc_step_name(step)));
    json_object_set_new(o, "turn", json_integer(turn));
    sc_decision_fields(o, d);
    return o;
}

void sc_decision_fields(json_t *o, const struct sc_decision *d)
{
    switch (d->kind) {
    case SC_DEC_PASS:
        json_object_set_new(o, "pass", json_true());
        break;
    case SC_DEC_PLAY:
    case SC_DEC_BUY:
    case SC_DEC_DISCARD:
        json_object_set_new(o, "card", json_integer(d->card));
        if (d->kind == SC_DEC_PLAY && d->x >= 0) {
            json_object_set_new(o, "x", json_integer(d->x));
            json_object_set_new(o, "y", json_integer(d->y));
        }
        break;
    case SC_DEC_TARGET:
        json_object_set_new(o, "x", json_integer(d->x));
        json_object_set_new(o, "y", json_integer(d->y));
        break;
    case SC_DEC_VOTE:
        if (d->nballots) {
            json_t *b = json_array();
            for (int i = 0; i < d->nballots; i++)
                json_array_append_new(b, json_string(ballot_names[d->ballots[i] % 3]));
            json_object_set_new(o, "ballots", b);
        } else {
            json_object_set_new(o, "mayor", json_string(ballot_names[d->mayor % 3]));
            json_object_set_new(o, "tie", json_string(tie_names[d->tie % 3]));
        }
        break;
    case SC_DEC_PAY:
        json_object_set_new(o, "vacate", json_boolean(d->vacate));
        break;
    case SC_DEC_BID:
        json_object_set_new(o, "votes", json_integer(d->votes));
        json_object_set_new(o, "candidate", json_integer(d->candidate));
        break;
    case SC_DEC_DRAW:
        json_object_set_new(o, "from", json_string(d->from_discard ? "discard" : "deck"));
        break;
    default:
        break;
    }
}
