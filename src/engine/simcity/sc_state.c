/* sc_state.c: a SimCity game's whole state as JSON for storage, secrets included, and back with
 * every field checked, the stacks rebuilt and the invariants proved before the state is used
 * (see sc_json.h). */
#include <string.h>

#include "json_util.h"
#include "ruleset.h"
#include "sc_internal.h"
#include "sc_json.h"

static json_t *ids(const uint8_t *cards, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(cards[i]));
    return a;
}

static json_t *ints16(const int16_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *cells_json(const struct sc_game *g)
{
    json_t *cells = json_array();
    for (int c = 0; c < SC_CELLS; c++) {
        if (g->top[c] == SC_NONE && !g->scorched[c])
            continue;
        uint8_t stack[SC_MAX_CARDS], flags[SC_MAX_CARDS];
        int n = 0;
        for (int k = g->top[c]; k != SC_NONE; k = g->below[k]) {
            stack[n] = (uint8_t)k;
            flags[n++] = g->flags[k];
        }
        json_t *cards = json_array(), *fl = json_array();
        for (int i = n - 1; i >= 0; i--) { /* from the bottom up */
            json_array_append_new(cards, json_integer(stack[i]));
            json_array_append_new(fl, json_integer(flags[i]));
        }
        json_array_append_new(cells,
                              json_pack("{s:i, s:i, s:o, s:o, s:b}", "x", sc_x(c), "y", sc_y(c),
                                        "stack", cards, "flags", fl, "scorched", g->scorched[c]));
    }
    return cells;
}

json_t *sc_state_to_json(const struct sc_game *g)
{
    json_t *rng = json_array();
    for (int i = 0; i < 4; i++)
        json_array_append_new(rng, ruleset_u64_json(g->rng.s[i]));
    json_t *seats = json_array(), *decisions = json_array();
    for (int s = 0; s < g->players; s++) {
        const struct sc_seat *st = &g->seats[s];
        json_t *earned = json_array(), *played = json_array();
        for (int k = 0; k < SC_SRC_COUNT; k++)
            json_array_append_new(earned, json_integer(st->earned[k]));
        for (int k = 0; k < SC_MAX_DESIGNS / 8; k++)
            json_array_append_new(played, json_integer(st->played[k]));
        json_array_append_new(seats, json_pack("{s:i, s:o, s:o, s:i, s:o, s:o}", "money", st->money,
                                               "hand", ids(st->hand, st->nhand), "council",
                                               ids(st->council, st->ncouncil), "turns", st->turns,
                                               "earned", earned, "played", played));
        json_array_append_new(decisions,
                              (g->submitted >> s) & 1
                                  ? sc_order_to_json(g->round, g->step, g->turn, &g->dec[s])
                                  : json_null());
    }
    json_t *timed = json_array();
    for (int i = 0; i < g->ntimed; i++) {
        const struct sc_timed *t = &g->timed[i];
        json_array_append_new(timed, json_pack("[i, i, i, i, i, i]", t->card, t->effect, t->player,
                                               t->until, t->x, t->y));
    }
    json_t *bills = json_array();
    for (int i = 0; i < g->nbills; i++)
        json_array_append_new(bills, json_pack("[i, i]", g->bills[i].card, g->bills[i].amount));
    const struct sc_vote *v = &g->vote;
    const struct sc_election *e = &g->elect;
    json_t *phase_turn = json_array();
    for (int p = 0; p <= SC_PHASES; p++)
        json_array_append_new(phase_turn, json_integer(g->phase_turn[p]));
    json_t *j = json_pack(
        "{s:i, s:o, s:o, s:i, s:i, s:i, s:i, s:b, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b, "
        "s:i, s:b, s:i, s:i, s:b}",
        "format", 1, "seed", ruleset_u64_json(g->seed), "rng", rng, "players", g->players, "target",
        g->target, "phase", g->phase, "mayor", g->mayor, "power_played", g->power_played, "round",
        g->round, "turn", g->turn, "first", g->first, "actor", g->actor, "stage", g->stage,
        "effect_i", g->effect_i, "plays_left", g->plays_left, "idle", g->idle, "played", g->played,
        "end_reason", g->end_reason, "target_hit", g->target_hit, "drawn", g->drawn, "winners",
        g->winners, "drew_discard", g->drew_discard);
    json_object_update_new(
        j, json_pack("{s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "step",
                     sc_step_name(g->step), "pending", g->pending, "submitted", g->submitted,
                     "defaulted", g->defaulted, "decisions", decisions, "deck",
                     ids(g->deck, g->ndeck), "discard", ids(g->discard, g->ndiscard), "cells",
                     cells_json(g), "seats", seats, "timed", timed, "bills", bills));
    json_object_update_new(
        j, json_pack("{s:[b, i, i, i, i, i, b, i, i], s:[b, i, i, i, o, o, i], s:[i, i, i, i, i, "
                     "i], s:o}",
                     "vote", v->active, v->proposer, v->card, v->x, v->y, v->next, v->mayor_asked,
                     v->yes, v->no, "election", e->active, e->outgoing, e->next, e->passes,
                     ints16(e->votes, SC_MAX_PLAYERS), ints16(e->reached, SC_MAX_PLAYERS), e->seq,
                     "figures", g->votes_held, g->votes_passed, g->vacancies, g->elections,
                     g->acted, g->acted_ev, "phase_turn", phase_turn));
    return j;
}

/* ---- reading --------------------------------------------------------------------------------- */

struct sr {
    char *err;
    int errlen;
    bool ok;
};

static bool bad(struct sr *r, const char *what, const char *why)
{
    if (r->ok)
        say(r->err, r->errlen, "state field \"%s\" %s.", what, why);
    r->ok = false;
    return false;
}

/* An integer lo..hi (a JSON integer v named `what`). */
static long long s_num(struct sr *r, const json_t *v, const char *what, long long lo, long long hi)
{
    if (!r->ok)
        return lo;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        char why[80];
        snprintf(why, sizeof why, "must be an integer from %lld to %lld", lo, hi);
        bad(r, what, why);
        return lo;
    }
    return json_integer_value(v);
}

static long long s_int(struct sr *r, const json_t *o, const char *key, long long lo, long long hi)
{
    return s_num(r, json_object_get(o, key), key, lo, hi);
}

static bool s_bool(struct sr *r, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (r->ok && !json_is_boolean(v))
        bad(r, key, "must be true or false");
    return json_is_true(v);
}

/* An array of at most max numbers lo..hi into out (as bytes); returns how many. */
static int s_bytes(struct sr *r, const json_t *a, const char *what, uint8_t *out, int max, int lo,
                   int hi)
{
    if (!r->ok)
        return 0;
    if (!json_is_array(a) || (int)json_array_size(a) > max) {
        bad(r, what, "must be an array of the right length");
        return 0;
    }
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) out[i] = (uint8_t)s_num(r, v, what, lo, hi);
    return (int)json_array_size(a);
}

static bool read_cells(struct sr *r, struct sc_game *g, const json_t *cells)
{
    if (!json_is_array(cells))
        return bad(r, "cells", "must be an array");
    size_t i;
    const json_t *c;
    json_array_foreach(cells, i, c)
    {
        int x = (int)s_int(r, c, "x", 0, g->side - 1), y = (int)s_int(r, c, "y", 0, g->side - 1);
        int cell = sc_cell(g, x, y);
        uint8_t stack[SC_MAX_CARDS], flags[SC_MAX_CARDS];
        int n = s_bytes(r, json_object_get(c, "stack"), "cells[].stack", stack, g->ncards, 0,
                        g->ncards - 1);
        int m = s_bytes(r, json_object_get(c, "flags"), "cells[].flags", flags, g->ncards, 0,
                        SC_CF_OVERTURNED | SC_CF_DOOMED);
        if (!r->ok)
            return false;
        if (m != n || g->top[cell] != SC_NONE || g->scorched[cell])
            return bad(r, "cells", "holds a cell twice or a stack without its flags");
        g->scorched[cell] = s_bool(r, c, "scorched");
        for (int k = 0; k < n; k++) {
            if (g->cell_of[stack[k]] != SC_NONE)
                return bad(r, "cells", "holds a card twice");
            g->below[stack[k]] = k ? stack[k - 1] : SC_NONE;
            g->cell_of[stack[k]] = (uint8_t)cell;
            g->flags[stack[k]] = flags[k];
            g->top[cell] = stack[k];
        }
        int b = g->top[cell];
        while (b != SC_NONE && (g->flags[b] & SC_CF_OVERTURNED))
            b = g->below[b];
        g->block[cell] = (uint8_t)b;
        g->nblocks = (uint8_t)(g->nblocks + (b != SC_NONE));
    }
    return r->ok;
}

static bool read_seats(struct sr *r, struct sc_game *g, const json_t *seats, const json_t *decs)
{
    if (!json_is_array(seats) || (int)json_array_size(seats) != g->players)
        return bad(r, "seats", "must hold one entry a player");
    if (!json_is_array(decs) || (int)json_array_size(decs) != g->players)
        return bad(r, "decisions", "must hold one entry a player");
    for (int s = 0; s < g->players && r->ok; s++) {
        const json_t *o = json_array_get(seats, (size_t)s);
        struct sc_seat *st = &g->seats[s];
        st->money = (int32_t)s_int(r, o, "money", 0, INT32_MAX);
        st->nhand = (uint8_t)s_bytes(r, json_object_get(o, "hand"), "seats[].hand", st->hand,
                                     g->ncards, 0, g->ncards - 1);
        st->ncouncil = (uint8_t)s_bytes(r, json_object_get(o, "council"), "seats[].council",
                                        st->council, SC_MAX_MEMBERS, 0, g->ncards - 1);
        st->turns = (int16_t)s_int(r, o, "turns", 0, INT16_MAX);
        s_bytes(r, json_object_get(o, "played"), "seats[].played", st->played, SC_MAX_DESIGNS / 8,
                0, 255);
        const json_t *earned = json_object_get(o, "earned");
        if (r->ok && (!json_is_array(earned) || json_array_size(earned) != SC_SRC_COUNT))
            return bad(r, "seats[].earned", "must hold one sum a source");
        for (int k = 0; k < SC_SRC_COUNT && r->ok; k++)
            st->earned[k] = (int32_t)s_num(r, json_array_get(earned, (size_t)k), "earned",
                                           INT32_MIN, INT32_MAX);
        const json_t *dj = json_array_get(decs, (size_t)s);
        if (!((g->submitted >> s) & 1)) {
            if (!json_is_null(dj))
                return bad(r, "decisions", "holds a decision of a seat that has none");
            continue;
        }
        int round, step, turn;
        char why[200];
        if (sc_order_from_json(dj, &round, &step, &turn, &g->dec[s], why, sizeof why) !=
                SC_ORDER_OK ||
            step != g->step)
            return bad(r, "decisions", "holds an order that does not read back");
    }
    return r->ok;
}

static bool read_politics(struct sr *r, struct sc_game *g, const json_t *j)
{
    const json_t *timed = json_object_get(j, "timed"), *bills = json_object_get(j, "bills");
    if (!json_is_array(timed) || json_array_size(timed) > SC_MAX_TIMED)
        return bad(r, "timed", "must be an array of at most 8 effects");
    if (!json_is_array(bills) || json_array_size(bills) > SC_MAX_BILLS)
        return bad(r, "bills", "must be an array of at most 8 bills");
    size_t i;
    const json_t *t;
    json_array_foreach(timed, i, t)
    {
        struct sc_timed *e = &g->timed[i];
        e->card = (uint8_t)s_num(r, json_array_get(t, 0), "timed", 0, g->ncards - 1);
        const struct sc_design *d = sc_design_of(g, e->card);
        if (r->ok && d->kind != SC_KIND_EVENT)
            return bad(r, "timed", "names a card that is no event");
        e->effect = (uint8_t)s_num(r, json_array_get(t, 1), "timed", 0, d->neffects - 1);
        e->player = (uint8_t)s_num(r, json_array_get(t, 2), "timed", 0, g->players - 1);
        e->until = (int16_t)s_num(r, json_array_get(t, 3), "timed", 0, INT16_MAX);
        e->x = (int8_t)s_num(r, json_array_get(t, 4), "timed", -1, g->side - 1);
        e->y = (int8_t)s_num(r, json_array_get(t, 5), "timed", -1, g->side - 1);
    }
    g->ntimed = (uint8_t)json_array_size(timed);
    json_array_foreach(bills, i, t)
    {
        g->bills[i].card = (uint8_t)s_num(r, json_array_get(t, 0), "bills", 0, SC_NONE);
        g->bills[i].amount = (int16_t)s_num(r, json_array_get(t, 1), "bills", 1, INT16_MAX);
    }
    g->nbills = (uint8_t)json_array_size(bills);
    const json_t *v = json_object_get(j, "vote"), *e = json_object_get(j, "election");
    if (!json_is_array(v) || json_array_size(v) != 9 || !json_is_array(e) ||
        json_array_size(e) != 7)
        return bad(r, "vote", "and \"election\" must be arrays of 9 and 7 fields");
    struct sc_vote *vt = &g->vote;
    vt->active = json_is_true(json_array_get(v, 0));
    vt->proposer = (uint8_t)s_num(r, json_array_get(v, 1), "vote", 0, SC_MAX_PLAYERS);
    vt->card = (uint8_t)s_num(r, json_array_get(v, 2), "vote", 0, SC_NONE);
    vt->x = (int8_t)s_num(r, json_array_get(v, 3), "vote", -1, SC_STRIDE - 1);
    vt->y = (int8_t)s_num(r, json_array_get(v, 4), "vote", -1, SC_STRIDE - 1);
    vt->next = (uint8_t)s_num(r, json_array_get(v, 5), "vote", 0, SC_MAX_PLAYERS);
    vt->mayor_asked = json_is_true(json_array_get(v, 6));
    vt->yes = (int16_t)s_num(r, json_array_get(v, 7), "vote", 0, INT16_MAX);
    vt->no = (int16_t)s_num(r, json_array_get(v, 8), "vote", 0, INT16_MAX);
    if (r->ok && vt->active && (vt->card >= g->ncards || vt->x < 0 || vt->y < 0))
        return bad(r, "vote", "names no card or cell");
    struct sc_election *el = &g->elect;
    el->active = json_is_true(json_array_get(e, 0));
    el->outgoing = (uint8_t)s_num(r, json_array_get(e, 1), "election", 0, SC_MAX_PLAYERS);
    el->next = (uint8_t)s_num(r, json_array_get(e, 2), "election", 0, SC_MAX_PLAYERS);
    el->passes = (uint8_t)s_num(r, json_array_get(e, 3), "election", 0, SC_MAX_PLAYERS);
    const json_t *votes = json_array_get(e, 4), *reached = json_array_get(e, 5);
    if (r->ok &&
        (!json_is_array(votes) || !json_is_array(reached) ||
         json_array_size(votes) != SC_MAX_PLAYERS || json_array_size(reached) != SC_MAX_PLAYERS))
        return bad(r, "election", "must tally 6 seats");
    for (int s = 0; s < SC_MAX_PLAYERS && r->ok; s++) {
        el->votes[s] =
            (int16_t)s_num(r, json_array_get(votes, (size_t)s), "election", 0, INT16_MAX);
        el->reached[s] =
            (int16_t)s_num(r, json_array_get(reached, (size_t)s), "election", 0, INT16_MAX);
    }
    el->seq = (int16_t)s_num(r, json_array_get(e, 6), "election", 0, INT16_MAX);
    return r->ok;
}

bool sc_state_from_json(struct sc_game *g, const struct sc_catalog *cat, const json_t *j, char *err,
                        int errlen)
{
    struct sr r = {err, errlen, true};
    if (!json_is_object(j) || !json_is_integer(json_object_get(j, "format")) ||
        json_integer_value(json_object_get(j, "format")) != 1)
        return bad(&r, "format", "must be 1 (the state is not a SimCity state)");
    uint64_t seed;
    if (!ruleset_u64_from_json(json_object_get(j, "seed"), false, &seed))
        return bad(&r, "seed", "must be a string of decimal digits");
    int players = (int)s_int(&r, j, "players", SC_MIN_PLAYERS, SC_MAX_PLAYERS);
    int target = (int)s_int(&r, j, "target", 0, SC_MAX_TARGET);
    if (!r.ok || sc_new(g, cat, players, seed, players == 1 ? 0 : target) != SC_OK ||
        (players > 1 && target == 0))
        return bad(&r, "target", "is out of range for the players");
    /* the dealt game is only scaffolding: every field below replaces it */
    memset(g->top, SC_NONE, sizeof g->top);
    memset(g->block, SC_NONE, sizeof g->block);
    memset(g->cell_of, SC_NONE, sizeof g->cell_of);
    memset(g->below, SC_NONE, sizeof g->below);
    memset(g->flags, 0, sizeof g->flags);
    memset(g->scorched, 0, sizeof g->scorched);
    memset(g->seats, 0, sizeof g->seats);
    g->nblocks = 0;
    const json_t *rng = json_object_get(j, "rng");
    for (int i = 0; i < 4; i++)
        if (!ruleset_u64_from_json(json_array_get(rng, (size_t)i), false, &g->rng.s[i]))
            return bad(&r, "rng", "must be 4 strings of decimal digits");
    g->phase = (uint8_t)s_int(&r, j, "phase", 1, SC_PHASES);
    g->mayor = (uint8_t)s_int(&r, j, "mayor", 0, SC_NONE);
    g->power_played = s_bool(&r, j, "power_played");
    g->round = (int32_t)s_int(&r, j, "round", 1, INT32_MAX);
    g->turn = (int32_t)s_int(&r, j, "turn", 0, INT32_MAX);
    g->first = (uint8_t)s_int(&r, j, "first", 0, players - 1);
    g->actor = (uint8_t)s_int(&r, j, "actor", 0, players - 1);
    g->stage = (uint8_t)s_int(&r, j, "stage", SC_ST_START, SC_ST_END);
    g->effect_i = (uint8_t)s_int(&r, j, "effect_i", 0, SC_MAX_TIMED);
    g->plays_left = (uint8_t)s_int(&r, j, "plays_left", 0, 255);
    g->idle = (uint8_t)s_int(&r, j, "idle", 0, 255);
    g->played = s_bool(&r, j, "played");
    g->end_reason = (uint8_t)s_int(&r, j, "end_reason", 0, SC_END_COUNT - 1);
    g->target_hit = s_bool(&r, j, "target_hit");
    g->drawn = (uint8_t)s_int(&r, j, "drawn", 0, SC_NONE);
    g->drew_discard = s_bool(&r, j, "drew_discard");
    g->winners = (uint8_t)s_int(&r, j, "winners", 0, (1 << players) - 1);
    const json_t *step = json_object_get(j, "step");
    g->step = (uint8_t)sc_step_from_name(json_is_string(step) ? json_string_value(step) : "");
    if (r.ok && g->step == (uint8_t)-1)
        return bad(&r, "step", "names no step");
    g->pending = (uint8_t)s_int(&r, j, "pending", 0, (1 << players) - 1);
    g->submitted = (uint8_t)s_int(&r, j, "submitted", 0, (1 << players) - 1);
    g->defaulted = (uint8_t)s_int(&r, j, "defaulted", 0, (1 << players) - 1);
    g->ndeck = (uint8_t)s_bytes(&r, json_object_get(j, "deck"), "deck", g->deck, g->ncards, 0,
                                g->ncards - 1);
    g->ndiscard = (uint8_t)s_bytes(&r, json_object_get(j, "discard"), "discard", g->discard,
                                   g->ncards, 0, g->ncards - 1);
    const json_t *fig = json_object_get(j, "figures");
    if (r.ok && (!json_is_array(fig) || json_array_size(fig) != 6))
        return bad(&r, "figures", "must be an array of 6 counts");
    g->votes_held = (uint16_t)s_num(&r, json_array_get(fig, 0), "figures", 0, UINT16_MAX);
    g->votes_passed = (uint16_t)s_num(&r, json_array_get(fig, 1), "figures", 0, UINT16_MAX);
    g->vacancies = (uint16_t)s_num(&r, json_array_get(fig, 2), "figures", 0, UINT16_MAX);
    g->elections = (uint16_t)s_num(&r, json_array_get(fig, 3), "figures", 0, UINT16_MAX);
    g->acted = (uint32_t)s_num(&r, json_array_get(fig, 4), "figures", 0, UINT32_MAX);
    g->acted_ev = (uint32_t)s_num(&r, json_array_get(fig, 5), "figures", 0, UINT32_MAX);
    s_bytes(&r, json_object_get(j, "phase_turn"), "phase_turn", g->phase_turn, SC_PHASES + 1, 0,
            255);
    if (!r.ok || !read_cells(&r, g, json_object_get(j, "cells")) ||
        !read_seats(&r, g, json_object_get(j, "seats"), json_object_get(j, "decisions")) ||
        !read_politics(&r, g, j))
        return false;
    if (!sc_check_conservation(g))
        return bad(&r, "cards", "do not account for every card exactly once");
    if (!sc_check_point(g))
        return bad(&r, "step", "does not fit who must decide, or the cells and offices");
    for (int s = 0; s < players; s++)
        if ((g->submitted >> s) & 1 && sc_check(g, s, &g->dec[s]) != SC_OK)
            return bad(&r, "decisions", "holds a decision the game refuses");
    return true;
}
