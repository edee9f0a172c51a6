/* tech_state.c: a Tech City game's whole state as JSON for storage, secrets included, and back
 * with every field checked (see tech_json.h). */
#include "tech_json.h"

#include "tech_internal.h"
#include "tech_json_util.h"

/* ---- state --------------------------------------------------------------------------------- */

json_t *tech_state_to_json(const struct tech_game *g)
{
    json_t *rng = json_array();
    for (int i = 0; i < 4; i++)
        json_array_append_new(rng, ruleset_u64_json(g->rng.s[i]));
    json_t *city = json_array();
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        json_array_append_new(city, json_pack("{s:i, s:i, s:i, s:o, s:b}", "card", c, "x", g->cx[c],
                                              "y", g->cy[c], "owner", seat_or_null(g->owner[c]),
                                              "tilted", g->tilted[c]));
    }
    json_t *seats = json_array();
    json_t *decisions = json_array();
    for (int s = 0; s < g->players; s++) {
        const struct tech_seat *st = &g->seats[s];
        json_array_append_new(seats, json_pack("{s:o, s:i, s:b, s:b, s:b}", "hand",
                                               ids_json(st->hand, st->nhand), "score", st->score,
                                               "used_normal", st->used_normal, "used_free",
                                               st->used_free, "passed", st->passed));
        json_t *dj = NULL;
        if (g->submitted & (1u << s))
            dj = tech_order_to_json(g->round, g->step, g->turn, &g->dec[s]);
        json_array_append_new(decisions, dj ? dj : json_null());
    }
    json_t *build = NULL, *use = NULL;
    if (g->step == TECH_STEP_HELP)
        build = tech_order_to_json(g->round, TECH_STEP_BUILD, g->turn, &g->build);
    if (g->run.stage == RUN_BEFORE)
        use = tech_order_to_json(g->round, TECH_STEP_EFFECT, g->turn, &g->use);
    return json_pack(
        "{s:i, s:i, s:o, s:o, s:i, s:i, s:i, s:s, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, "
        "s:o, "
        "s:o, s:o, s:o, s:o, s:o, s:{s:i, s:i, s:i, s:i, s:i}, s:{s:i, s:i}, s:o, s:o, s:i, s:o, "
        "s:o}",
        "format", 1, "decks", tech_decks(g), "seed", ruleset_u64_json(g->seed), "rng", rng,
        "players", g->players, "round", g->round, "turn", g->turn, "step", tech_step_name(g->step),
        "first", g->first, "phase_i", g->phase_i, "actor", g->actor, "seed_card", g->seed_card,
        "deck", ids_json(g->deck, g->ndeck), "discard", ids_json(g->discard, g->ndiscard),
        "expelled", ids_json(g->expelled, g->nexpelled), "city", city, "seats", seats, "pending",
        mask_json(g->pending), "submitted", mask_json(g->submitted), "defaulted",
        mask_json(g->defaulted), "decisions", decisions, "build", build ? build : json_null(),
        "use", use ? use : json_null(), "run", "stage", g->run.stage, "user", g->run.user, "card",
        g->run.card, "owner", g->run.owner, "next_other", g->run.next_other, "choose", "kind",
        g->choose_kind, "n", g->choose_n, "revealed", ids_json(g->revealed, g->nrevealed),
        "winners", mask_json(g->winners), "reshuffles", g->reshuffles, "built_designs",
        ruleset_u64_json(g->built_designs), "used_designs", ruleset_u64_json(g->used_designs));
}

/* Reading a stored state: every field checked, errors name the field. */
struct sr {
    const json_t *j;
    char *err;
    int errlen;
    bool ok;
};

static int s_int(struct sr *r, const json_t *o, const char *key, int lo, int hi)
{
    const json_t *v = json_object_get(o, key);
    if (!r->ok)
        return lo;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        say(r->err, r->errlen, "state field \"%s\" must be an integer from %d to %d.", key, lo, hi);
        r->ok = false;
        return lo;
    }
    return (int)json_integer_value(v);
}

static bool s_bool(struct sr *r, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (r->ok && !json_is_boolean(v)) {
        say(r->err, r->errlen, "state field \"%s\" must be true or false.", key);
        r->ok = false;
    }
    return json_is_true(v);
}

static uint64_t s_u64(struct sr *r, const json_t *v, const char *key)
{
    uint64_t x = 0;
    if (r->ok && !ruleset_u64_from_json(v, false, &x)) {
        say(r->err, r->errlen, "state field \"%s\" must be a string of decimal digits.", key);
        r->ok = false;
    }
    return x;
}

static int s_cards(struct sr *r, const json_t *v, const char *key, uint8_t *out, int max,
                   int ncards)
{
    if (!r->ok)
        return 0;
    if (!json_is_array(v) || (int)json_array_size(v) > max) {
        say(r->err, r->errlen, "state field \"%s\" must be an array of at most %d card ids.", key,
            max);
        r->ok = false;
        return 0;
    }
    size_t i;
    const json_t *c;
    json_array_foreach(v, i, c)
    {
        if (!json_is_integer(c) || json_integer_value(c) < 0 || json_integer_value(c) >= ncards) {
            say(r->err, r->errlen, "state field \"%s[%zu]\" must be a card id below %d.", key, i,
                ncards);
            r->ok = false;
            return 0;
        }
        out[i] = (uint8_t)json_integer_value(c);
    }
    return (int)json_array_size(v);
}

static unsigned s_mask(struct sr *r, const json_t *v, const char *key, int players)
{
    unsigned m = 0;
    if (!r->ok)
        return 0;
    if (!json_is_array(v)) {
        say(r->err, r->errlen, "state field \"%s\" must be an array of seats.", key);
        r->ok = false;
        return 0;
    }
    size_t i;
    const json_t *c;
    json_array_foreach(v, i, c)
    {
        if (!json_is_integer(c) || json_integer_value(c) < 0 || json_integer_value(c) >= players) {
            say(r->err, r->errlen, "state field \"%s[%zu]\" must be a seat.", key, i);
            r->ok = false;
            return 0;
        }
        m |= 1u << json_integer_value(c);
    }
    return m;
}

bool tech_state_from_json(struct tech_game *g, const struct tech_catalog *cat, const json_t *j,
                          char *err, int errlen)
{
    static const char *const keys[] = {
        "format",    "decks",     "seed",      "rng",        "players",       "round",
        "turn",      "step",      "first",     "phase_i",    "actor",         "seed_card",
        "deck",      "discard",   "expelled",  "city",       "seats",         "pending",
        "submitted", "defaulted", "decisions", "build",      "use",           "run",
        "choose",    "revealed",  "winners",   "reshuffles", "built_designs", "used_designs",
        NULL};
    struct sr r = {j, err, errlen, true};
    if (!json_is_object(j)) {
        say(err, errlen, "a stored state must be a JSON object.");
        return false;
    }
    const char *key;
    json_t *v;
    json_object_foreach(unconst(j), key, v)
    {
        bool known = false;
        for (int i = 0; keys[i] && !known; i++)
            known = strcmp(keys[i], key) == 0;
        if (!known) {
            say(err, errlen, "unknown state field \"%.40s\".", key);
            return false;
        }
    }
    s_int(&r, j, "format", 1, 1);
    int players = s_int(&r, j, "players", TECH_MIN_PLAYERS, TECH_MAX_PLAYERS);
    /* "decks" came later: a state without it has the default for its players */
    int decks = json_object_get(j, "decks") ? s_int(&r, j, "decks", 1, 2) : 0;
    if (!r.ok || tech_new_decks(g, cat, players, 0, decks) != TECH_OK)
        return r.ok
                   ? (say(err, errlen, "the state's players and decks cannot start a game."), false)
                   : false;
    g->seed = s_u64(&r, json_object_get(j, "seed"), "seed");
    const json_t *rng = json_object_get(j, "rng");
    if (r.ok && (!json_is_array(rng) || json_array_size(rng) != 4)) {
        say(err, errlen, "state field \"rng\" must be an array of 4 strings of digits.");
        return false;
    }
    for (int i = 0; r.ok && i < 4; i++)
        g->rng.s[i] = s_u64(&r, json_array_get(rng, (size_t)i), "rng");
    g->round = (int8_t)s_int(&r, j, "round", 1, TECH_ROUNDS);
    g->turn = s_int(&r, j, "turn", 0, INT32_MAX);
    const json_t *st = json_object_get(j, "step");
    g->step = (uint8_t)tech_step_from_name(json_string_value(st));
    if (r.ok && (!json_is_string(st) || tech_step_from_name(json_string_value(st)) < 0)) {
        say(err, errlen, "state field \"step\" must name a step.");
        return false;
    }
    g->first = (uint8_t)s_int(&r, j, "first", 0, players - 1);
    g->phase_i = (uint8_t)s_int(&r, j, "phase_i", 0, players);
    g->actor = (uint8_t)s_int(&r, j, "actor", 0, players - 1);
    g->seed_card = (uint8_t)s_int(&r, j, "seed_card", 0, g->ncards - 1);
    g->ndeck =
        (uint8_t)s_cards(&r, json_object_get(j, "deck"), "deck", g->deck, g->ncards, g->ncards);
    g->ndiscard = (uint8_t)s_cards(&r, json_object_get(j, "discard"), "discard", g->discard,
                                   g->ncards, g->ncards);
    g->nexpelled = (uint8_t)s_cards(&r, json_object_get(j, "expelled"), "expelled", g->expelled,
                                    g->ncards, g->ncards);
    g->nrevealed = (uint8_t)s_cards(&r, json_object_get(j, "revealed"), "revealed", g->revealed,
                                    TECH_MAX_REVEAL, g->ncards);
    memset(g->owner, TECH_NONE, sizeof g->owner);
    memset(g->tilted, 0, sizeof g->tilted);
    memset(g->cx, 0, sizeof g->cx);
    memset(g->cy, 0, sizeof g->cy);
    g->ncity = 0;
    const json_t *city = json_object_get(j, "city");
    if (r.ok && (!json_is_array(city) || (int)json_array_size(city) > g->ncards)) {
        say(err, errlen, "state field \"city\" must be an array of cells.");
        return false;
    }
    size_t i;
    const json_t *cell;
    json_array_foreach(city, i, cell)
    {
        if (!r.ok)
            break;
        if (!json_is_object(cell) || json_object_size(cell) != 5) {
            say(err, errlen, "state field \"city[%zu]\" must be {card, x, y, owner, tilted}.", i);
            return false;
        }
        int c = s_int(&r, cell, "card", 0, g->ncards - 1);
        int x = s_int(&r, cell, "x", -TECH_MAX_COORD, TECH_MAX_COORD);
        int y = s_int(&r, cell, "y", -TECH_MAX_COORD, TECH_MAX_COORD);
        const json_t *o = json_object_get(cell, "owner");
        int owner = TECH_NONE;
        if (r.ok && !json_is_null(o))
            owner = s_int(&r, cell, "owner", 0, players - 1);
        bool tilted = s_bool(&r, cell, "tilted");
        if (!r.ok)
            break;
        if (tech_card_at(g, x, y) != TECH_NONE) {
            say(err, errlen, "state field \"city[%zu]\" is a cell already taken.", i);
            return false;
        }
        g->city[g->ncity++] = (uint8_t)c;
        g->cx[c] = (int8_t)x;
        g->cy[c] = (int8_t)y;
        g->owner[c] = (uint8_t)owner;
        g->tilted[c] = tilted;
    }
    tech_city_recount(g);
    const json_t *seats = json_object_get(j, "seats");
    if (r.ok && (!json_is_array(seats) || (int)json_array_size(seats) != players)) {
        say(err, errlen, "state field \"seats\" must hold one object per seat.");
        return false;
    }
    for (int s = 0; r.ok && s < players; s++) {
        const json_t *so = json_array_get(seats, (size_t)s);
        struct tech_seat *ts = &g->seats[s];
        if (!json_is_object(so)) {
            say(err, errlen, "state field \"seats[%d]\" must be an object.", s);
            return false;
        }
        ts->nhand = (uint8_t)s_cards(&r, json_object_get(so, "hand"), "hand", ts->hand, g->ncards,
                                     g->ncards);
        ts->score = (int16_t)s_int(&r, so, "score", 0, 30000);
        ts->used_normal = s_bool(&r, so, "used_normal");
        ts->used_free = s_bool(&r, so, "used_free");
        ts->passed = s_bool(&r, so, "passed");
    }
    g->pending = (uint8_t)s_mask(&r, json_object_get(j, "pending"), "pending", players);
    g->submitted = (uint8_t)s_mask(&r, json_object_get(j, "submitted"), "submitted", players);
    g->defaulted = (uint8_t)s_mask(&r, json_object_get(j, "defaulted"), "defaulted", players);
    g->winners = (uint8_t)s_mask(&r, json_object_get(j, "winners"), "winners", players);
    const json_t *run = json_object_get(j, "run");
    const json_t *ch = json_object_get(j, "choose");
    if (r.ok && (!json_is_object(run) || !json_is_object(ch))) {
        say(err, errlen, "state fields \"run\" and \"choose\" must be objects.");
        return false;
    }
    g->run.stage = (uint8_t)s_int(&r, run, "stage", RUN_NONE, RUN_BEFORE);
    g->run.user = (uint8_t)s_int(&r, run, "user", 0, TECH_NONE);
    g->run.card = (uint8_t)s_int(&r, run, "card", 0, TECH_NONE);
    g->run.owner = (uint8_t)s_int(&r, run, "owner", 0, TECH_NONE);
    g->run.next_other = (uint8_t)s_int(&r, run, "next_other", 0, TECH_MAX_PLAYERS);
    g->choose_kind = (uint8_t)s_int(&r, ch, "kind", CHOOSE_NONE, CHOOSE_REVEALED);
    g->choose_n = (uint8_t)s_int(&r, ch, "n", 0, TECH_MAX_CARDS);
    g->reshuffles = (uint16_t)s_int(&r, j, "reshuffles", 0, 65535);
    g->built_designs = s_u64(&r, json_object_get(j, "built_designs"), "built_designs");
    g->used_designs = s_u64(&r, json_object_get(j, "used_designs"), "used_designs");
    if (!r.ok)
        return false;
    if ((g->run.stage != RUN_NONE && (g->run.card >= g->ncards || g->run.user >= players)) ||
        (g->run.owner != TECH_NONE && g->run.owner >= players)) {
        say(err, errlen, "state field \"run\" names no card or seat of the game.");
        return false;
    }
    if (!tech_check_conservation(g)) {
        say(err, errlen,
            "the state's cards are not each in exactly one place, with the seed card "
            "in the city.");
        return false;
    }
    if ((g->submitted & ~g->pending) || (g->defaulted & ~g->submitted)) {
        say(err, errlen, "state fields \"submitted\" and \"defaulted\" must be pending seats.");
        return false;
    }
    const json_t *build = json_object_get(j, "build");
    if (g->step == TECH_STEP_HELP) {
        int br, bs, bt;
        char why[160] = "not a build order";
        if (tech_order_from_json(build, &br, &bs, &bt, &g->build, why, sizeof why) != TORDER_OK ||
            bs != TECH_STEP_BUILD || g->build.kind != TDEC_BUILD) {
            say(err, errlen, "state field \"build\" must be the service build: %s", why);
            return false;
        }
    } else if (!json_is_null(build)) {
        say(err, errlen, "state field \"build\" must be null outside step help.");
        return false;
    }
    /* "use" (a use waiting for its owner's draw-and-discard) came later: missing means null */
    const json_t *use = json_object_get(j, "use");
    if (use && !json_is_null(use)) {
        int ur, us, ut;
        char why[160] = "not an effect order";
        if (tech_order_from_json(use, &ur, &us, &ut, &g->use, why, sizeof why) != TORDER_OK ||
            us != TECH_STEP_EFFECT || g->use.kind != TDEC_USE) {
            say(err, errlen, "state field \"use\" must be the waiting use: %s", why);
            return false;
        }
    }
    if (!tech_check_point(g)) {
        say(err, errlen,
            "the state's decision point is not consistent (pending seats, step, "
            "run, choose and build must agree).");
        return false;
    }
    const json_t *decs = json_object_get(j, "decisions");
    if (!json_is_array(decs) || (int)json_array_size(decs) != players) {
        say(err, errlen, "state field \"decisions\" must hold one entry per seat.");
        return false;
    }
    uint8_t submitted = g->submitted;
    g->submitted = 0;
    for (int s = 0; s < players; s++) {
        const json_t *dj = json_array_get(decs, (size_t)s);
        if (!(submitted & (1u << s))) {
            if (!json_is_null(dj)) {
                say(err, errlen, "state field \"decisions[%d]\" must be null.", s);
                return false;
            }
            continue;
        }
        int dr, ds, dt;
        char why[160] = "";
        struct tech_decision d;
        if (tech_order_from_json(dj, &dr, &ds, &dt, &d, why, sizeof why) != TORDER_OK ||
            ds != g->step || tech_check(g, s, &d) != TECH_OK) {
            say(err, errlen, "state field \"decisions[%d]\" is not a legal decision.", s);
            return false;
        }
        g->dec[s] = d;
        g->submitted |= (uint8_t)(1u << s);
    }
    return true;
}
