/* city_json.c: The City's JSON faces for clients: the API's order bodies to and from struct
 * city_decision, the public and private views, and replays; see city_json.h. The stored state
 * is city_state.c's. */
#include "city_json.h"
#include "city_json_util.h"

#include "ruleset.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* The five keys that say what an order does; city_parse_order() switches on their index. */
static const char *const action_keys[] = {"discard", "build", "builds", "contractor", "survey"};
enum { NACTIONS = sizeof action_keys / sizeof action_keys[0] };

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
int city_parse_order(const struct order_ctx *c, const json_t *body, const char *const *extra,
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
    return city_parse_order(&c, body, NULL, 0, out);
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
                                 city_step_name(g->step), "options", city_options_json(g, seat)));
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
        if (city_parse_order(&c, dj, extra, 2, &order))
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
