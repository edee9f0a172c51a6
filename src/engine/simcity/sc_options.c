/* sc_options.c: SimCity's legal options — every play of a hand (card, cell, mode and what it
 * would score), and the legal decisions of every step, for bots, tests and a client's pending
 * view (see sc.h). */
#include <stddef.h>
#include <string.h>

#include "sc_internal.h"

/* The options of one design, gathered once and given to each copy in the hand: every legal
 * cell with its mode (plays that need a vote among them), and, once asked for, their scores. */
struct design_options {
    unsigned gathered; /* the cache's position count when they were gathered */
    int n;
    struct sc_option o[SC_CELLS + 1];
    bool scored[SC_CELLS + 1];
};

static void gather(const struct sc_game *g, const struct sc_design *d, struct sc_scan *scan,
                   struct design_options *out)
{
    out->n = 0;
    int mode = 0;
    if (sc_design_check(g, d) != SC_OK)
        return;
    if (d->kind == SC_KIND_EVENT && !d->targeted) {
        if (sc_card_check(g, d, -1, -1, &mode, scan) == SC_OK)
            out->o[out->n++] = (struct sc_option){.x = -1, .y = -1, .mode = SC_MODE_EVENT};
        return;
    }
    bool restricted = d->kind != SC_KIND_EVENT && sc_restricted(d);
    for (int i = 0; i < scan->ncands; i++) {
        int c = scan->cands[i], x = sc_x(c), y = sc_y(c);
        if (d->kind == SC_KIND_EVENT && g->block[c] == SC_NONE)
            continue;
        if (d->sims < 0 && -d->sims > sc_scan_reach(g, scan, c))
            continue; /* (sc_card_check() would refuse it: SC_ERR_SIMS or before) */
        if (restricted && sc_restricted_at(g, d, c))
            continue; /* (SC_ERR_RESTRICTED or before) */
        if (sc_card_check(g, d, x, y, &mode, scan) != SC_OK)
            continue;
        out->scored[out->n] = false;
        struct sc_option *o = &out->o[out->n++];
        *o = (struct sc_option){.x = (int8_t)x, .y = (int8_t)y, .mode = (uint8_t)mode};
    }
}

/* Everything of a position that the legality and the score of a play read (not whose hand it
 * is): while it stays the same, the options and scores worked out for a design stand. */
struct position_key {
    const struct sc_catalog *cat;
    uint64_t stamp; /* the catalog's load */
    uint8_t side, phase, mayor_set, never_built, ntimed;
    bool power_played;
    struct sc_timed timed[SC_MAX_TIMED];
    uint8_t block[SC_CELLS];
    bool scorched[SC_CELLS];
};

/* The options worked out in the last position asked about (one per thread): a bot asks for
 * the same position's options at its council and at its play, and the rules at a turn's end. */
struct options_cache {
    bool valid, scanned;
    unsigned
        positions; /* positions held so far: a design's options stand when gathered in this one */
    struct position_key key;
    struct sc_scan scan;
    struct design_options designs[SC_MAX_DESIGNS];
};

static void position_key(const struct sc_game *g, struct position_key *k)
{
    memset(k, 0, sizeof *k);
    k->cat = g->cat;
    k->stamp = g->cat->stamp;
    k->side = g->side;
    k->phase = g->phase;
    k->mayor_set = g->mayor != SC_NONE;
    k->power_played = g->power_played;
    k->never_built = g->nblocks == 0 && sc_never_built(g); /* (a block: something was placed) */
    k->ntimed = g->ntimed;
    for (int i = 0; i < g->ntimed; i++)
        k->timed[i] = g->timed[i];
    memcpy(k->block, g->block, sizeof k->block);
    memcpy(k->scorched, g->scorched, sizeof k->scorched);
}

/* (the cells' blocks and scorched flags, side by side in both, are compared at once) */
_Static_assert(offsetof(struct position_key, scorched) ==
                       offsetof(struct position_key, block) + SC_CELLS &&
                   offsetof(struct sc_game, scorched) == offsetof(struct sc_game, block) + SC_CELLS,
               "block[] and scorched[] side by side");

/* True when k is g's position (position_key() of g), read without building g's key. */
static bool same_position(const struct position_key *k, const struct sc_game *g)
{
    if (k->cat != g->cat || k->stamp != g->cat->stamp || k->side != g->side ||
        k->phase != g->phase || k->mayor_set != (g->mayor != SC_NONE) ||
        k->power_played != g->power_played || k->ntimed != g->ntimed ||
        memcmp(k->block, g->block, sizeof k->block + sizeof k->scorched) != 0)
        return false;
    for (int i = 0; i < g->ntimed; i++) {
        const struct sc_timed *a = &k->timed[i], *b = &g->timed[i];
        if (a->card != b->card || a->effect != b->effect || a->player != b->player ||
            a->until != b->until || a->x != b->x || a->y != b->y)
            return false;
    }
    return k->never_built == (g->nblocks == 0 && sc_never_built(g));
}

static _Thread_local struct options_cache cache;

/* The cache, emptied first unless it holds g's position. */
static struct options_cache *cache_for(const struct sc_game *g)
{
    if (!cache.valid || !same_position(&cache.key, g)) {
        /* the kept scan, brought one step on when the city moved one step (a block placed) */
        bool kept = cache.valid && cache.scanned && cache.key.cat == g->cat &&
                    cache.key.stamp == g->cat->stamp && cache.key.side == g->side &&
                    sc_scan_update(g, &cache.scan, cache.key.block);
        position_key(g, &cache.key);
        cache.valid = true;
        cache.scanned = kept;
        if (++cache.positions == 0) { /* (the count wrapped: older marks could match it) */
            for (int k = 0; k < SC_MAX_DESIGNS; k++)
                cache.designs[k].gathered = 0;
            cache.positions = 1;
        }
    }
    return &cache;
}

struct sc_scan *sc_position_scan(const struct sc_game *g)
{
    struct options_cache *c = cache_for(g);
    if (!c->scanned) {
        sc_scan_city(g, &c->scan);
        c->scanned = true;
    }
    return &c->scan;
}

int sc_each_play(const struct sc_game *g, int seat, bool scored, bool votes, sc_option_fn fn,
                 void *ctx)
{
    const struct sc_seat *s = &g->seats[seat];
    cache_for(g);
    int n = 0;
    for (int i = 0; i < s->nhand; i++) {
        int card = s->hand[i], k = g->cat->card_design[card];
        struct design_options *opts = &cache.designs[k];
        if (opts->gathered != cache.positions) {
            if (!cache.scanned) {
                sc_scan_city(g, &cache.scan);
                cache.scanned = true;
            }
            gather(g, &g->cat->designs[k], &cache.scan, opts);
            opts->gathered = cache.positions;
        }
        for (int j = 0; j < opts->n; j++) {
            struct sc_option o = opts->o[j];
            if (!votes && o.mode == SC_MODE_VOTE)
                continue;
            o.card = (uint8_t)card;
            if (scored && o.mode != SC_MODE_EVENT && !opts->scored[j]) {
                o.score = (int16_t)sc_score_with(g, card, o.x, o.y, NULL, &cache.scan);
                opts->o[j].score = o.score;
                opts->scored[j] = true;
            }
            if (!scored)
                o.score = 0;
            n++;
            if (fn && !fn(ctx, &o))
                return n;
        }
    }
    return n;
}

bool sc_any_play(const struct sc_game *g, int seat, bool votes)
{
    const struct sc_seat *s = &g->seats[seat];
    struct sc_scan *scan = sc_position_scan(g);
    /* (the answer is the same in any order: the cards least likely to be refused everywhere,
     * blocks that need no sims and have no restriction, go first) */
    for (int t = 0; t < 2 * s->nhand; t++) {
        int i = t % s->nhand, k = g->cat->card_design[s->hand[i]], mode = 0;
        const struct sc_design *d = &g->cat->designs[k];
        bool easy = d->kind != SC_KIND_EVENT && d->sims >= 0 && !sc_restricted(d);
        if (easy != (t < s->nhand))
            continue;
        const struct design_options *opts = &cache.designs[k];
        if (opts->gathered == cache.positions) { /* its options are known */
            for (int j = 0; j < opts->n; j++)
                if (votes || opts->o[j].mode != SC_MODE_VOTE)
                    return true;
            continue;
        }
        if (sc_design_check(g, d) != SC_OK)
            continue;
        if (d->kind == SC_KIND_EVENT && !d->targeted) {
            if (sc_card_check(g, d, -1, -1, &mode, scan) == SC_OK)
                return true;
            continue;
        }
        bool restricted = d->kind != SC_KIND_EVENT && sc_restricted(d);
        for (int j = 0; j < scan->ncands; j++) {
            int c = scan->cands[j];
            if (d->kind == SC_KIND_EVENT && g->block[c] == SC_NONE)
                continue;
            if (d->sims < 0 && -d->sims > sc_scan_reach(g, scan, c))
                continue; /* (as in gather()) */
            if (restricted && sc_restricted_at(g, d, c))
                continue;
            if (sc_card_check(g, d, sc_x(c), sc_y(c), &mode, scan) == SC_OK &&
                (votes || mode != SC_MODE_VOTE))
                return true;
        }
    }
    return false;
}

struct collect {
    struct sc_option *out;
    int n, max;
};

static bool collect(void *ctx, const struct sc_option *o)
{
    struct collect *c = ctx;
    if (c->n < c->max)
        c->out[c->n] = *o;
    c->n++;
    return true;
}

int sc_play_options(const struct sc_game *g, int seat, struct sc_option *out, int max, bool scored)
{
    struct collect c = {out, 0, max};
    sc_each_play(g, seat, scored, true, collect, &c);
    return c.n;
}

/* ---- every step's legal decisions ------------------------------------------------------------ */

struct legal {
    struct sc_decision *out;
    int n, max;
    int only; /* >= 0: keep just the decision of this index, in out[0] */
};

static void push(struct legal *l, const struct sc_decision *d)
{
    if (l->only >= 0 ? l->n == l->only : l->n < l->max)
        l->out[l->only >= 0 ? 0 : l->n] = *d;
    l->n++;
}

static bool push_play(void *ctx, const struct sc_option *o)
{
    struct sc_decision d;
    sc_decision_init(&d);
    d.kind = SC_DEC_PLAY;
    d.card = o->card;
    d.x = o->x;
    d.y = o->y;
    push(ctx, &d);
    return true;
}

/* A seat's ballots: all free members the same way, or (at most three free members) every
 * combination. */
static void seat_ballots(const struct sc_game *g, int seat, struct legal *l)
{
    const struct sc_seat *s = &g->seats[seat];
    int free = sc_free_members(g, seat), combos = 1;
    for (int i = 0; i < free && free <= 3; i++)
        combos *= 3;
    struct sc_decision d;
    sc_decision_init(&d);
    d.kind = SC_DEC_VOTE;
    d.nballots = s->ncouncil;
    if (free > 3) {
        for (int b = SC_BALLOT_WITHHOLD; b <= SC_BALLOT_NO; b++) {
            for (int i = 0; i < s->ncouncil; i++) {
                const struct sc_design *m = sc_design_of(g, s->council[i]);
                d.ballots[i] = m->corrupt ? m->vote : (uint8_t)b;
            }
            push(l, &d);
        }
        return;
    }
    for (int k = 0; k < combos; k++) {
        int code = k;
        for (int i = 0; i < s->ncouncil; i++) {
            const struct sc_design *m = sc_design_of(g, s->council[i]);
            if (m->corrupt) {
                d.ballots[i] = m->vote;
            } else {
                d.ballots[i] = (uint8_t)(code % 3);
                code /= 3;
            }
        }
        push(l, &d);
    }
}

static int legal(const struct sc_game *g, int seat, struct legal l);

int sc_legal(const struct sc_game *g, int seat, struct sc_decision *out, int max)
{
    return legal(g, seat, (struct legal){out, 0, max, -1});
}

bool sc_legal_nth(const struct sc_game *g, int seat, int n, struct sc_decision *out)
{
    return n >= 0 && legal(g, seat, (struct legal){out, 0, 1, n}) > n;
}

static int legal(const struct sc_game *g, int seat, struct legal l)
{
    if (!sc_pending(g, seat))
        return 0;
    const struct sc_seat *s = &g->seats[seat];
    struct sc_decision d;
    sc_decision_init(&d);
    switch (g->step) {
    case SC_STEP_DRAW:
        d.kind = SC_DEC_DRAW;
        if (g->ndeck)
            push(&l, &d);
        d.from_discard = true;
        if (sc_discard_drawable(g))
            push(&l, &d);
        break;
    case SC_STEP_COUNCIL:
        d.kind = SC_DEC_PASS;
        push(&l, &d);
        d.kind = SC_DEC_BUY;
        for (int i = 0; i < s->nhand; i++) {
            const struct sc_design *m = sc_design_of(g, s->hand[i]);
            if (m->kind == SC_KIND_COUNCIL && m->cost <= s->money) {
                d.card = s->hand[i];
                push(&l, &d);
            }
        }
        break;
    case SC_STEP_TARGET: {
        int cells[SC_CELLS], n = sc_timed_candidates(g, g->effect_i, cells, SC_CELLS);
        d.kind = SC_DEC_TARGET;
        for (int i = 0; i < n; i++) {
            d.x = (int8_t)sc_x(cells[i]);
            d.y = (int8_t)sc_y(cells[i]);
            push(&l, &d);
        }
        break;
    }
    case SC_STEP_PLAY:
        d.kind = SC_DEC_PASS;
        push(&l, &d);
        sc_each_play(g, seat, false, true, push_play, &l);
        break;
    case SC_STEP_VOTE:
        if (g->vote.next >= g->players) {
            d.kind = SC_DEC_VOTE;
            for (int m = SC_BALLOT_WITHHOLD; m <= SC_BALLOT_NO; m++)
                for (int t = SC_BALLOT_WITHHOLD; t <= SC_BALLOT_NO; t++) {
                    d.mayor = (uint8_t)m;
                    d.tie = (uint8_t)t;
                    push(&l, &d);
                }
        } else {
            seat_ballots(g, seat, &l);
        }
        break;
    case SC_STEP_MAYOR_PAY:
        d.kind = SC_DEC_PAY;
        push(&l, &d);
        d.vacate = true;
        push(&l, &d);
        break;
    case SC_STEP_ELECTION: {
        static const int amounts[] = {1, 2, 3, 5, 10};
        d.kind = SC_DEC_PASS;
        push(&l, &d);
        d.kind = SC_DEC_BID;
        for (int c = 0; c < g->players; c++)
            for (int k = 0; k < 5 && amounts[k] <= s->money; k++) {
                d.candidate = (uint8_t)c;
                d.votes = (int16_t)amounts[k];
                push(&l, &d);
            }
        break;
    }
    case SC_STEP_DISCARD:
        d.kind = SC_DEC_DISCARD;
        for (int i = 0; i < s->nhand; i++) {
            d.card = s->hand[i];
            push(&l, &d);
        }
        break;
    default:
        break;
    }
    return l.n;
}
