/* tech_json.c: Tech City's order bodies, views and catalog as JSON (see tech_json.h; the stored
 * state is tech_state.c). Order bodies are read through one table of the keys each step takes,
 * so every step refuses unknown keys and wrong types with the same words. */
#include "tech_json.h"

#include "tech_json_util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- orders ------------------------------------------------------------------------------ */

static const char *const order_codes[TORDER_COUNT] = {
    "ok",        "not_an_object",      "missing_field",  "unknown_field", "wrong_type",
    "bad_value", "conflicting_fields", "too_many_cards", "wrong_kind"};

const char *tech_order_error_code(int err)
{
    return err >= 0 && err < TORDER_COUNT ? order_codes[err] : "unknown_error";
}

/* The keys each step's order may hold (besides round, step and turn). */
static const char *const step_keys[TECH_STEP_COUNT][10] = {
    [TECH_STEP_BUILD] = {"pass", "card", "x", "y", "pay", "as", NULL},
    [TECH_STEP_HELP] = {"pass", "card", NULL},
    [TECH_STEP_EFFECT] = {"pass", "use", "free", "owner_first", "card", "take", "target", "to",
                          "victim", NULL},
    [TECH_STEP_OWNER] = {"draw", NULL},
    [TECH_STEP_CHOOSE] = {"cards", NULL},
    [TECH_STEP_DISCARD] = {"cards", NULL},
};

struct rd {
    char *err;
    int errlen;
};

static int need_int(struct rd *r, const json_t *obj, const char *key, const char *in, int lo,
                    int hi, bool required, int *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        if (!required)
            return TORDER_OK;
        say(r->err, r->errlen, "field \"%s%s\" is missing; send an integer from %d to %d.", in, key,
            lo, hi);
        return TORDER_MISSING_FIELD;
    }
    if (!json_is_integer(v)) {
        say(r->err, r->errlen, "field \"%s%s\" must be an integer from %d to %d.", in, key, lo, hi);
        return TORDER_WRONG_TYPE;
    }
    if (json_integer_value(v) < lo || json_integer_value(v) > hi) {
        say(r->err, r->errlen, "field \"%s%s\" must be from %d to %d.", in, key, lo, hi);
        return TORDER_BAD_VALUE;
    }
    *out = (int)json_integer_value(v);
    return TORDER_OK;
}

static int need_card(struct rd *r, const json_t *obj, const char *key, bool required, uint8_t *out)
{
    int c = TECH_NONE;
    int e = need_int(r, obj, key, "", 0, TECH_MAX_CARDS - 1, required, &c);
    if (e == TORDER_OK && json_object_get(obj, key))
        *out = (uint8_t)c;
    return e;
}

/* {"x", "y"} at obj[key]: exactly those two keys. */
static int need_cell(struct rd *r, const json_t *obj, const char *key, bool *has, int8_t *x,
                     int8_t *y)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return TORDER_OK;
    if (!json_is_object(v)) {
        say(r->err, r->errlen, "field \"%s\" must be an object {\"x\", \"y\"}.", key);
        return TORDER_WRONG_TYPE;
    }
    const char *k;
    json_t *val;
    json_object_foreach(unconst(v), k, val)
    {
        if (strcmp(k, "x") != 0 && strcmp(k, "y") != 0) {
            say(r->err, r->errlen, "field \"%s.%s\" is unknown; a cell has x and y.", key, k);
            return TORDER_UNKNOWN_FIELD;
        }
    }
    char in[16];
    snprintf(in, sizeof in, "%s.", key);
    int xi = 0, yi = 0, e;
    if ((e = need_int(r, v, "x", in, -TECH_MAX_COORD, TECH_MAX_COORD, true, &xi)) ||
        (e = need_int(r, v, "y", in, -TECH_MAX_COORD, TECH_MAX_COORD, true, &yi)))
        return e;
    *has = true;
    *x = (int8_t)xi;
    *y = (int8_t)yi;
    return TORDER_OK;
}

static int need_cards(struct rd *r, const json_t *obj, const char *key, int max, uint8_t *out,
                      uint8_t *n)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        say(r->err, r->errlen, "field \"%s\" is missing; send an array of card ids.", key);
        return TORDER_MISSING_FIELD;
    }
    if (!json_is_array(v)) {
        say(r->err, r->errlen, "field \"%s\" must be an array of card ids.", key);
        return TORDER_WRONG_TYPE;
    }
    if ((int)json_array_size(v) > max) {
        say(r->err, r->errlen, "field \"%s\" holds more than %d cards.", key, max);
        return TORDER_TOO_MANY_CARDS;
    }
    size_t i;
    const json_t *c;
    json_array_foreach(v, i, c)
    {
        if (!json_is_integer(c)) {
            say(r->err, r->errlen, "field \"%s[%zu]\" must be a card id (an integer).", key, i);
            return TORDER_WRONG_TYPE;
        }
        if (json_integer_value(c) < 0 || json_integer_value(c) >= TECH_MAX_CARDS) {
            say(r->err, r->errlen, "field \"%s[%zu]\" must be a card id from 0 to %d.", key, i,
                TECH_MAX_CARDS - 1);
            return TORDER_BAD_VALUE;
        }
        out[i] = (uint8_t)json_integer_value(c);
    }
    *n = (uint8_t)json_array_size(v);
    return TORDER_OK;
}

/* Reads `pass` when present: it must be true and alone. Sets *passed. */
static int read_pass(struct rd *r, const json_t *body, bool *passed)
{
    const json_t *p = json_object_get(body, "pass");
    *passed = false;
    if (!p)
        return TORDER_OK;
    if (!json_is_boolean(p)) {
        say(r->err, r->errlen, "field \"pass\" must be true.");
        return TORDER_WRONG_TYPE;
    }
    if (!json_is_true(p)) {
        say(r->err, r->errlen, "field \"pass\" must be true (leave it out to act).");
        return TORDER_BAD_VALUE;
    }
    if (json_object_size(body) != 4u + (json_object_get(body, "divulge") != NULL)) {
        say(r->err, r->errlen,
            "a pass holds only round, step, turn, \"pass\": true and maybe \"divulge\".");
        return TORDER_CONFLICTING_FIELDS;
    }
    *passed = true;
    return TORDER_OK;
}

static int read_body(struct rd *r, const json_t *body, int step, struct tech_decision *d)
{
    bool passed;
    int e;
    switch (step) {
    case TECH_STEP_BUILD: {
        if ((e = read_pass(r, body, &passed)) || passed) {
            d->kind = TDEC_PASS;
            return e;
        }
        d->kind = TDEC_BUILD;
        int x = 0, y = 0;
        if ((e = need_card(r, body, "card", true, &d->card)) ||
            (e = need_int(r, body, "x", "", -TECH_MAX_COORD, TECH_MAX_COORD, true, &x)) ||
            (e = need_int(r, body, "y", "", -TECH_MAX_COORD, TECH_MAX_COORD, true, &y)) ||
            (e = need_cards(r, body, "pay", 2, d->pay, &d->npay)))
            return e;
        d->x = (int8_t)x;
        d->y = (int8_t)y;
        const json_t *as = json_object_get(body, "as");
        if (as) {
            if (!json_is_object(as)) {
                say(r->err, r->errlen, "field \"as\" must be {\"value\", \"domain\"}.");
                return TORDER_WRONG_TYPE;
            }
            const char *k;
            json_t *val;
            json_object_foreach(unconst(as), k, val)
            {
                if (strcmp(k, "value") != 0 && strcmp(k, "domain") != 0) {
                    say(r->err, r->errlen, "field \"as.%s\" is unknown; send value and domain.", k);
                    return TORDER_UNKNOWN_FIELD;
                }
            }
            int v = 0;
            if ((e = need_int(r, as, "value", "as.", 1, TECH_VALUES, true, &v)))
                return e;
            const json_t *dm = json_object_get(as, "domain");
            if (!dm) {
                say(r->err, r->errlen, "field \"as.domain\" is missing.");
                return TORDER_MISSING_FIELD;
            }
            if (!json_is_string(dm)) {
                say(r->err, r->errlen, "field \"as.domain\" must be a domain's name.");
                return TORDER_WRONG_TYPE;
            }
            int dom = tech_domain_from_name(json_string_value(dm));
            if (dom < 0 || dom == DOMAIN_WILD) {
                say(r->err, r->errlen,
                    "field \"as.domain\" must be service, technology, science or knowledge.");
                return TORDER_BAD_VALUE;
            }
            d->as_value = (int8_t)v;
            d->as_domain = (int8_t)dom;
        }
        return TORDER_OK;
    }
    case TECH_STEP_HELP:
        if ((e = read_pass(r, body, &passed)) || passed) {
            d->kind = TDEC_PASS;
            return e;
        }
        d->kind = TDEC_HELP;
        return need_card(r, body, "card", true, &d->card);
    case TECH_STEP_EFFECT: {
        if ((e = read_pass(r, body, &passed)) || passed) {
            d->kind = TDEC_PASS;
            return e;
        }
        d->kind = TDEC_USE;
        bool has = false;
        if ((e = need_cell(r, body, "use", &has, &d->x, &d->y)))
            return e;
        if (!has) {
            say(r->err, r->errlen,
                "field \"use\" is missing; send {\"use\": {\"x\", \"y\"}} or {\"pass\": true}.");
            return TORDER_MISSING_FIELD;
        }
        const json_t *f = json_object_get(body, "free");
        if (f && !json_is_boolean(f)) {
            say(r->err, r->errlen, "field \"free\" must be true or false.");
            return TORDER_WRONG_TYPE;
        }
        d->free = json_is_true(f);
        const json_t *of = json_object_get(body, "owner_first");
        if (of && !json_is_boolean(of)) {
            say(r->err, r->errlen, "field \"owner_first\" must be true or false.");
            return TORDER_WRONG_TYPE;
        }
        d->owner_first = json_is_true(of);
        int victim = TECH_NONE;
        if ((e = need_card(r, body, "card", false, &d->card)) ||
            (e = need_card(r, body, "take", false, &d->take)) ||
            (e = need_cell(r, body, "target", &d->has_target, &d->tx, &d->ty)) ||
            (e = need_cell(r, body, "to", &d->has_to, &d->ux, &d->uy)) ||
            (e = need_int(r, body, "victim", "", 0, TECH_MAX_PLAYERS - 1, false, &victim)))
            return e;
        d->victim = (uint8_t)victim;
        return TORDER_OK;
    }
    case TECH_STEP_OWNER: {
        const json_t *v = json_object_get(body, "draw");
        if (!v) {
            say(r->err, r->errlen, "field \"draw\" is missing; send true or false.");
            return TORDER_MISSING_FIELD;
        }
        if (!json_is_boolean(v)) {
            say(r->err, r->errlen, "field \"draw\" must be true or false.");
            return TORDER_WRONG_TYPE;
        }
        d->kind = TDEC_OWNER;
        d->draw = json_is_true(v);
        return TORDER_OK;
    }
    default:
        d->kind = TDEC_CARDS;
        return need_cards(r, body, "cards", TECH_MAX_CARDS, d->cards, &d->ncards);
    }
}

/* Whether an order of `step` may hold `key` (besides round, step and turn). */
static bool step_takes(int step, const char *key)
{
    for (int i = 0; step_keys[step][i]; i++)
        if (strcmp(step_keys[step][i], key) == 0)
            return true;
    return false;
}

/* The keys `step` takes, "a, b or c", into buf. */
static void keys_of(int step, char *buf, int len)
{
    int used = 0;
    buf[0] = 0;
    for (int i = 0; step_keys[step][i] && used < len; i++)
        used += snprintf(buf + used, (size_t)(len - used), "%s%s",
                         i == 0                   ? ""
                         : step_keys[step][i + 1] ? ", "
                                                  : " or ",
                         step_keys[step][i]);
}

int tech_order_from_json(const json_t *body, int *round, int *step, int *turn,
                         struct tech_decision *d, char *err, int errlen)
{
    struct rd r = {err, errlen};
    tech_decision_init(d);
    if (!json_is_object(body)) {
        say(err, errlen, "an order must be a JSON object {\"round\", \"step\", \"turn\", ...}.");
        return TORDER_NOT_AN_OBJECT;
    }
    int e;
    if ((e = need_int(&r, body, "round", "", 1, TECH_ROUNDS, true, round)) ||
        (e = need_int(&r, body, "turn", "", 0, INT32_MAX, true, turn)))
        return e;
    const json_t *s = json_object_get(body, "step");
    if (!s) {
        say(err, errlen, "field \"step\" is missing; send the step named in your view.");
        return TORDER_MISSING_FIELD;
    }
    if (!json_is_string(s)) {
        say(err, errlen, "field \"step\" must be a string.");
        return TORDER_WRONG_TYPE;
    }
    *step = tech_step_from_name(json_string_value(s));
    if (*step < 0 || *step == TECH_STEP_OVER) {
        say(err, errlen, "field \"step\" must be build, help, effect, owner, choose or discard.");
        return TORDER_BAD_VALUE;
    }
    const char *key;
    json_t *v;
    json_object_foreach(unconst(body), key, v)
    {
        if (!strcmp(key, "round") || !strcmp(key, "step") || !strcmp(key, "turn") ||
            !strcmp(key, "divulge"))
            continue;
        if (step_takes(*step, key))
            continue;
        char takes[80];
        keys_of(*step, takes, sizeof takes);
        for (int other = 0; other < TECH_STEP_COUNT; other++) {
            if (step_takes(other, key)) {
                say(err, errlen,
                    "field \"%s\" answers a decision of step %s, but this order is for step %s, "
                    "which takes %s; send what your hand view's pending asks for.",
                    key, tech_step_name(other), tech_step_name(*step), takes);
                return TORDER_WRONG_KIND;
            }
        }
        say(err, errlen,
            "field \"%.40s\" is unknown in an order of step %s, which takes round, step, turn "
            "and %s (and divulge, as every order may).",
            key, tech_step_name(*step), takes);
        return TORDER_UNKNOWN_FIELD;
    }
    if ((e = read_body(&r, body, *step, d)))
        return e;
    if (json_object_get(body, "divulge"))
        return need_cards(&r, body, "divulge", TECH_MAX_CARDS, d->divulge, &d->ndivulge);
    return TORDER_OK;
}

static json_t *order_body(int round, int step, int turn, const struct tech_decision *d);

json_t *tech_order_to_json(int round, int step, int turn, const struct tech_decision *d)
{
    json_t *o = order_body(round, step, turn, d);
    if (o && d->ndivulge > 0)
        json_object_set_new(o, "divulge", ids_json(d->divulge, d->ndivulge));
    return o;
}

static json_t *order_body(int round, int step, int turn, const struct tech_decision *d)
{
    json_t *o =
        json_pack("{s:i, s:s, s:i}", "round", round, "step", tech_step_name(step), "turn", turn);
    switch (d->kind) {
    case TDEC_PASS:
        if (step != TECH_STEP_BUILD && step != TECH_STEP_HELP && step != TECH_STEP_EFFECT)
            goto bad;
        json_object_set_new(o, "pass", json_true());
        return o;
    case TDEC_BUILD:
        if (step != TECH_STEP_BUILD || d->npay > 2)
            goto bad;
        json_object_set_new(o, "card", json_integer(d->card));
        json_object_set_new(o, "x", json_integer(d->x));
        json_object_set_new(o, "y", json_integer(d->y));
        json_object_set_new(o, "pay", ids_json(d->pay, d->npay));
        if (d->as_domain >= 0 && d->as_domain < DOMAIN_WILD)
            json_object_set_new(o, "as",
                                json_pack("{s:i, s:s}", "value", d->as_value, "domain",
                                          tech_domain_name(d->as_domain)));
        return o;
    case TDEC_HELP:
        if (step != TECH_STEP_HELP)
            goto bad;
        json_object_set_new(o, "card", json_integer(d->card));
        return o;
    case TDEC_USE:
        if (step != TECH_STEP_EFFECT)
            goto bad;
        json_object_set_new(o, "use", cell_json(d->x, d->y));
        if (d->free)
            json_object_set_new(o, "free", json_true());
        if (d->owner_first)
            json_object_set_new(o, "owner_first", json_true());
        if (d->card != TECH_NONE)
            json_object_set_new(o, "card", json_integer(d->card));
        if (d->take != TECH_NONE)
            json_object_set_new(o, "take", json_integer(d->take));
        if (d->has_target)
            json_object_set_new(o, "target", cell_json(d->tx, d->ty));
        if (d->has_to)
            json_object_set_new(o, "to", cell_json(d->ux, d->uy));
        if (d->victim != TECH_NONE)
            json_object_set_new(o, "victim", json_integer(d->victim));
        return o;
    case TDEC_OWNER:
        if (step != TECH_STEP_OWNER)
            goto bad;
        json_object_set_new(o, "draw", json_boolean(d->draw));
        return o;
    case TDEC_CARDS:
        if (step != TECH_STEP_CHOOSE && step != TECH_STEP_DISCARD)
            goto bad;
        json_object_set_new(o, "cards", ids_json(d->cards, d->ncards));
        return o;
    default:
        break;
    }
bad:
    json_decref(o);
    return NULL;
}

/* ---- views ---------------------------------------------------------------------------------- */

json_t *tech_public_view(const struct tech_game *g)
{
    bool over = g->step == TECH_STEP_OVER;
    json_t *city = json_array();
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        const struct tech_design *d = tech_design_of(g, c);
        json_array_append_new(city, json_pack("{s:i, s:i, s:i, s:s, s:s, s:i, s:o, s:b, s:b}", "x",
                                              g->cx[c], "y", g->cy[c], "id", c, "card", d->id,
                                              "domain", tech_domain_name(d->domain), "value",
                                              d->value, "owner", seat_or_null(g->owner[c]),
                                              "tilted", g->tilted[c], "seed", c == g->seed_card));
    }
    json_t *seats = json_array();
    for (int s = 0; s < g->players; s++)
        json_array_append_new(seats, json_pack("{s:i, s:i, s:i, s:i, s:b, s:b}", "seat", s, "score",
                                               g->seats[s].score, "hand_count", g->seats[s].nhand,
                                               "companies", tech_controls(g, s, -1), "pending",
                                               tech_pending(g, s), "submitted",
                                               !over && (g->submitted & (1u << s)) != 0));
    json_t *effect = json_null();
    if (!over && g->run.stage != RUN_NONE && g->step != TECH_STEP_EFFECT &&
        g->run.card < g->ncards) {
        json_decref(effect);
        effect = json_pack("{s:i, s:s, s:i, s:i}", "seat", g->run.user, "card",
                           slug(g, g->run.card), "x", g->cx[g->run.card], "y", g->cy[g->run.card]);
    }
    bool sequential = !over && (g->step == TECH_STEP_BUILD || g->step == TECH_STEP_EFFECT ||
                                g->step == TECH_STEP_HELP);
    json_t *v = json_pack(
        "{s:i, s:s, s:i, s:i, s:i, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "round",
        g->round, "step", tech_step_name(g->step), "turn", g->turn, "players", g->players, "first",
        g->first, "active", sequential ? json_integer(g->actor) : json_null(), "pending",
        mask_json(over ? 0 : g->pending), "deck_count", g->ndeck, "city", city, "discard",
        cards_json(g, g->discard, g->ndiscard), "expelled",
        cards_json(g, g->expelled, g->nexpelled), "revealed",
        cards_json(g, g->revealed, g->nrevealed), "effect", effect, "seats", seats, "over", over,
        "winners", mask_json(over ? g->winners : 0));
    /* a service waiting for help: announced to all when it was played */
    json_object_set_new(v, "service",
                        g->step == TECH_STEP_HELP
                            ? json_pack("{s:i, s:s, s:i, s:i}", "seat", g->actor, "card",
                                        slug(g, g->build.card), "x", g->build.x, "y", g->build.y)
                            : json_null());
    json_object_set_new(v, "decks", json_integer(tech_decks(g)));
    if (over)
        json_object_set_new(v, "seed", ruleset_u64_json(g->seed));
    return v;
}

json_t *tech_private_view(const struct tech_game *g, int seat)
{
    if (seat < 0 || seat >= g->players)
        return NULL;
    json_t *v = tech_public_view(g);
    json_object_set_new(v, "seat", json_integer(seat));
    json_object_set_new(v, "hand", cards_json(g, g->seats[seat].hand, g->seats[seat].nhand));
    if (!tech_pending(g, seat)) {
        json_object_set_new(v, "pending", json_null());
        return v;
    }
    json_object_set_new(v, "pending",
                        json_pack("{s:i, s:s, s:i, s:o}", "round", g->round, "step",
                                  tech_step_name(g->step), "turn", g->turn, "options",
                                  tech_options_json(g, seat)));
    if (g->submitted & (1u << seat)) {
        json_t *o = tech_order_to_json(g->round, g->step, g->turn, &g->dec[seat]);
        if (o)
            json_object_set_new(v, "order", o);
    }
    return v;
}

json_t *tech_catalog_json(const struct tech_catalog *cat)
{
    json_t *cards = json_array();
    for (int k = 0; k < cat->ndesigns; k++) {
        const struct tech_design *d = &cat->designs[k];
        json_t *c = json_pack("{s:s, s:s, s:s, s:i, s:i, s:s}", "id", d->id, "name", d->name,
                              "domain", tech_domain_name(d->domain), "value", d->value, "count",
                              d->count, "text", d->text);
        if (d->domain != DOMAIN_WILD) {
            const struct tech_effect *e = &d->effect;
            json_t *ej = json_pack("{s:s}", "primitive", tech_prim_name(e->prim));
            if (e->prim == PRIM_DRAW || e->prim == PRIM_DISCARD || e->prim == PRIM_REVEAL ||
                e->prim == PRIM_STEAL)
                json_object_set_new(ej, "n", json_integer(e->n));
            if (e->prim == PRIM_DRAW)
                json_object_set_new(ej, "then_discard", json_integer(e->m));
            if (e->prim == PRIM_SEARCH && e->value)
                json_object_set_new(ej, "value", json_integer(e->value));
            if ((e->prim == PRIM_SEARCH || e->prim == PRIM_SCORE) && e->domain >= 0)
                json_object_set_new(ej, "domain", json_string(tech_domain_name(e->domain)));
            if (e->prim == PRIM_REPLACE || e->prim == PRIM_EXPEL)
                json_object_set_new(ej, "filter", json_string(tech_filter_name(e->filter)));
            if (e->prim == PRIM_SCORE) {
                json_object_set_new(ej, "points", json_integer(e->points));
                json_object_set_new(ej, "if", json_string(tech_cond_name(e->cond)));
                if (e->cond != COND_MOST)
                    json_object_set_new(ej, "at_least", json_integer(e->n));
            }
            json_object_set_new(c, "effect", ej);
        }
        json_array_append_new(cards, c);
    }
    return json_pack("{s:s, s:s, s:i, s:o}", "game", "tech_city", "seed",
                     cat->designs[cat->seed_design].id, "deck_size", cat->deck_size, "cards",
                     cards);
}
