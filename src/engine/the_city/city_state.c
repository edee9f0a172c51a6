/* city_state.c: a game of The City as the JSON the database stores, secrets included, and
 * back (city_json.h, "state"): every field written, and every field read with its range, the
 * conservation of the 110 cards and the invariants the engine needs checked, so that a stored
 * state that breaks the rules never loads. */
#include "city_json.h"
#include "city_json_util.h"

#include "ruleset.h"

#include <string.h>

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
        if (city_parse_order(&c, json_object_get(json_array_get(v, (size_t)s), "order"), NULL, 0,
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
