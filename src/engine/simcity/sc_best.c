/* sc_best.c: the best plays of a SimCity hand without judging every one. Each card of the hand
 * gets a cheap upper bound of what any of its plays could score, and each of its cells one of
 * what the play there could score (sc_bounds.c); cards are opened and their plays judged
 * (checked, scored exactly, weighed) in order of their bounds, and the search stops once nothing
 * left can enter the best k. The bots and the expert ask for their plays here (see
 * sc_internal.h): every play that could matter is still judged, so the answer is the one
 * judging them all would give (sc_best_plays_all(), which the tests compare it with). */
#include <math.h>
#include <string.h>

#include "sc_bounds.h"

/* ---- judging the plays in order of their bound ------------------------------------------------
 */

/* A play not judged yet: its cell (-1: an event that chooses no block), its place in
 * sc_each_play()'s order and the bound of its worth; for a block weighed with a tie-break, the
 * bound is the worth's bound (plain) plus the tie-break's slack until the tie-break is asked
 * for, just before the play would be judged (lazy: most plays never get that far). */
struct cand {
    double bound, plain;
    int order;
    int cell;
    int16_t score; /* (lazy) the bound of its score */
    bool lazy;
};

/* A card of the hand not opened yet: the bound of the worth of any of its plays. */
struct group {
    double bound;
    int order; /* its first play's place */
    int i;     /* its place in the hand */
};

enum { NBUCKETS = 64 };

/* a before b: the higher bound, then the earlier play */
static bool group_before(const struct group *a, const struct group *b)
{
    return a->bound > b->bound || (a->bound == b->bound && a->order < b->order);
}

/* The plays of a card are judged by buckets of a dollar of bound below the card's highest
 * (the last bucket takes everything lower): cheaper than a full order, and the search needs
 * only to know when no bucket left can reach the best k. */
static int bucket_of(double top, double bound)
{
    double b = top - bound;
    return b < NBUCKETS - 1 ? (int)b : NBUCKETS - 1; /* (b >= 0: the cast is the floor) */
}

/* Keeps r among the best k of out[0..*n-1] (worth, then order), best first. */
static void keep(struct sc_ranked *out, int *n, int k, const struct sc_ranked *r)
{
    int at = *n;
    while (at > 0 && (r->worth > out[at - 1].worth ||
                      (r->worth == out[at - 1].worth && r->order < out[at - 1].order)))
        at--;
    if (at >= k)
        return;
    if (*n < k)
        (*n)++;
    for (int i = *n - 1; i > at; i--)
        out[i] = out[i - 1];
    out[at] = *r;
}

/* Could a play of bound b and place `order` enter the best k (out[k-1] the last of them)? */
static bool may_enter(const struct sc_ranked *out, int n, int k, double b, int order)
{
    return n < k || b > out[k - 1].worth || (b == out[k - 1].worth && order < out[k - 1].order);
}

/* What one search shares. */
enum { SC_MEMO = 512 }; /* scores weighed once a card: -128..383 */

struct search {
    const struct sc_game *g;
    struct sc_scan *scan;
    int seat;
    bool votes, may_vote;
    double bar;
    const struct sc_weigh *w;
    struct sc_ranked *out;
    int n, k;
};

/* The tie-break of play o (0 when the weighing has none). */
static double tie_of(const struct sc_weigh *w, const struct sc_option *o)
{
    return w->tie ? w->tie(w->ctx, o) : 0;
}

/* The bound of the worth of card's play at cell c (-1: any) whose score is at most `score`
 * (blocks), before its tie-break. */
static double worth_bound(const struct search *s, int card, int c, int score)
{
    struct sc_option o = {.card = (uint8_t)card, .x = -1, .y = -1, .score = (int16_t)score};
    if (c >= 0) {
        o.x = (int8_t)sc_x(c);
        o.y = (int8_t)sc_y(c);
    }
    bool built = c >= 0 && s->g->block[c] != SC_NONE;
    /* new, upgrade and rezone are weighed alike; a vote may weigh otherwise */
    o.mode = built ? SC_MODE_UPGRADE : SC_MODE_NEW;
    double v = s->w->worth(s->w->ctx, &o);
    o.mode = SC_MODE_VOTE;
    if ((built || c < 0) && s->may_vote)
        v = fmax(v, s->w->worth(s->w->ctx, &o));
    return v;
}

/* Judges one play: checked, scored and weighed, and kept when it enters the best k. */
static void judge(struct search *s, int card, int cell, int order)
{
    const struct sc_design *d = sc_design_of(s->g, card);
    int x = cell < 0 ? -1 : sc_x(cell), y = cell < 0 ? -1 : sc_y(cell), mode = 0;
    if (sc_card_check(s->g, d, x, y, &mode, s->scan) != SC_OK ||
        (mode == SC_MODE_VOTE && !s->votes))
        return;
    struct sc_ranked r = {.order = order};
    r.o = (struct sc_option){
        .card = (uint8_t)card, .x = (int8_t)x, .y = (int8_t)y, .mode = (uint8_t)mode};
    if (mode != SC_MODE_EVENT)
        r.o.score = (int16_t)sc_score_with(s->g, card, x, y, NULL, s->scan);
    r.worth = s->w->worth(s->w->ctx, &r.o) + tie_of(s->w, &r.o);
    if (r.worth > s->bar)
        keep(s->out, &s->n, s->k, &r);
}

/* Opens card (hand place i): bounds the worth of its plays cell by cell (a block's by the
 * bound of its score, weighed once for each score and for empty and built cells), then judges
 * them by bucket, the highest first, while they may still enter the best k. */
static void open_card(struct search *s, struct sc_bound_pos *p, struct sc_design_bound *b, int i)
{
    static _Thread_local struct cand cands[SC_CELLS], sorted[SC_CELLS];
    static _Thread_local int start[NBUCKETS + 1];
    static _Thread_local double memo[2][SC_MEMO];
    static _Thread_local unsigned memo_at[2][SC_MEMO], opened;
    const struct sc_game *g = s->g;
    const struct sc_scan *scan = s->scan;
    int card = g->seats[s->seat].hand[i], base = i * (SC_CELLS + 1), nc = 0;
    const struct sc_design *d = sc_design_of(g, card);
    if (d->kind == SC_KIND_EVENT && !d->targeted) {
        judge(s, card, -1, base);
        return;
    }
    opened++;
    double top = -HUGE_VAL;
    const struct sc_play_filter f = sc_play_filter_of(d, b->restricted ? b->allowed : NULL);
    for (int j = 0; d->kind == SC_KIND_EVENT && j < scan->ncands; j++) {
        int c = scan->cands[j];
        if (g->block[c] == SC_NONE)
            continue;
        struct sc_option o = {.card = (uint8_t)card,
                              .x = (int8_t)sc_x(c),
                              .y = (int8_t)sc_y(c),
                              .mode = SC_MODE_EVENT};
        double v = s->w->worth(s->w->ctx, &o) + tie_of(s->w, &o);
        if (v > s->bar && may_enter(s->out, s->n, s->k, v, base + c + 1)) {
            cands[nc++] = (struct cand){v, v, base + c + 1, c, 0, false};
            top = v > top ? v : top;
        }
    }
    static _Thread_local uint8_t list[SC_CELLS];
    const uint8_t *cells = NULL;
    int ncells = d->kind != SC_KIND_EVENT ? sc_walk_cells(p, d, list, &cells) : 0;
    for (int j = 0; j < ncells; j++) {
        int c = cells[j];
        if (sc_no_play(p, &f, c))
            continue; /* (judge() would refuse it) */
        int ub = sc_score_bound(p, d, b, c), built = g->block[c] != SC_NONE, m = ub + SC_MEMO / 4;
        double v;
        if (m < 0 || m >= SC_MEMO) {
            v = worth_bound(s, card, c, ub);
        } else if (memo_at[built][m] == opened) {
            v = memo[built][m];
        } else {
            v = memo[built][m] = worth_bound(s, card, c, ub);
            memo_at[built][m] = opened;
        }
        bool lazy = s->w->tie; /* (kept only if it could enter the best k found so far) */
        double bound = lazy ? v + s->w->slack : v;
        if (bound > s->bar && may_enter(s->out, s->n, s->k, bound, base + c + 1)) {
            cands[nc++] = (struct cand){bound, v, base + c + 1, c, (int16_t)(lazy ? ub : 0), lazy};
            top = bound > top ? bound : top;
        }
    }
    /* a counting sort into buckets, the highest bound first (buckets past the lowest one
     * used stay out of it) */
    static _Thread_local uint8_t bucket[SC_CELLS];
    int last = 0;
    memset(start, 0, sizeof start);
    for (int j = 0; j < nc; j++) {
        int k = bucket_of(top, cands[j].bound);
        bucket[j] = (uint8_t)k;
        start[k + 1]++;
        last = k > last ? k : last;
    }
    for (int j = 0; j < last; j++)
        start[j + 1] += start[j];
    for (int j = 0; j < nc; j++)
        sorted[start[bucket[j]]++] = cands[j];
    for (int j = 0; j < nc; j++) {
        const struct cand *c = &sorted[j];
        if (!may_enter(s->out, s->n, s->k, c->bound, c->order)) {
            /* the rest of its bucket may still enter; nothing after it once its top cannot */
            if (!may_enter(s->out, s->n, s->k, top - bucket_of(top, c->bound), -1))
                return;
            continue;
        }
        if (c->lazy) { /* its bound with its own tie-break */
            struct sc_option o = {.card = (uint8_t)card,
                                  .x = (int8_t)sc_x(c->cell),
                                  .y = (int8_t)sc_y(c->cell),
                                  .mode =
                                      g->block[c->cell] != SC_NONE ? SC_MODE_UPGRADE : SC_MODE_NEW,
                                  .score = c->score};
            double v = c->plain + s->w->tie(s->w->ctx, &o);
            if (!(v > s->bar) || !may_enter(s->out, s->n, s->k, v, c->order))
                continue;
        }
        if (!sc_own_short(p, &f, c->cell)) /* (what judge() refuses most often, sooner) */
            judge(s, card, c->cell, c->order);
    }
}

/* ---- the search -------------------------------------------------------------------------------
 */

struct all_ctx {
    const struct sc_game *g;
    int seat;
    const struct sc_weigh *w;
    double bar;
    struct sc_ranked *out;
    int n, k;
};

static bool judge_one(void *vctx, const struct sc_option *o)
{
    struct all_ctx *a = vctx;
    const struct sc_seat *s = &a->g->seats[a->seat];
    struct sc_ranked r = {.o = *o, .worth = a->w->worth(a->w->ctx, o) + tie_of(a->w, o)};
    int i = 0;
    while (i < s->nhand && s->hand[i] != o->card)
        i++;
    r.order = i * (SC_CELLS + 1) + (o->x < 0 ? 0 : o->y * SC_STRIDE + o->x + 1);
    if (r.worth > a->bar)
        keep(a->out, &a->n, a->k, &r);
    return true;
}

int sc_best_plays_all(const struct sc_game *g, int seat, bool votes, double bar,
                      const struct sc_weigh *w, struct sc_ranked *out, int k)
{
    struct all_ctx a = {g, seat, w, bar, out, 0, k};
    if (k > 0)
        sc_each_play(g, seat, true, votes, judge_one, &a);
    return a.n;
}

int sc_best_plays(const struct sc_game *g, int seat, bool votes, double bar,
                  const struct sc_weigh *w, struct sc_ranked *out, int k)
{
    static _Thread_local struct sc_design_bound bounds[SC_MAX_DESIGNS];
    static _Thread_local struct sc_bound_pos pos;
    static _Thread_local struct group groups[SC_MAX_CARDS];
    const struct sc_seat *hand = &g->seats[seat];
    if (k <= 0)
        return 0;
    struct search s = {
        g, sc_position_scan(g), seat, votes, votes && g->mayor != SC_NONE, bar, w, out, 0, k};
    sc_bound_start(&pos, g, s.scan, !s.may_vote);
    for (int i = 0; i < hand->nhand; i++)
        bounds[g->cat->card_design[hand->hand[i]]].done = false;
    /* every card's bound: an event's worth (a targeted one is opened whatever it is), a
     * block's at the most any of its plays could score */
    int ng = 0;
    for (int i = 0; i < hand->nhand; i++) {
        int card = hand->hand[i];
        const struct sc_design *d = sc_design_of(g, card);
        struct sc_design_bound *b = &bounds[g->cat->card_design[card]];
        double v;
        if (sc_design_check(g, d) != SC_OK)
            continue;
        if (d->kind == SC_KIND_EVENT && d->targeted) {
            v = w->event_bound ? w->event_bound(w->ctx, card) + (w->tie ? w->slack : 0) : HUGE_VAL;
        } else if (d->kind == SC_KIND_EVENT) {
            struct sc_option o = {.card = (uint8_t)card, .x = -1, .y = -1, .mode = SC_MODE_EVENT};
            v = w->worth(w->ctx, &o) + tie_of(w, &o);
        } else {
            if (!b->done)
                sc_design_bound(&pos, d, b);
            v = worth_bound(&s, card, -1, b->top) + (w->tie ? w->slack : 0);
        }
        if (!(v > bar))
            continue;
        struct group grp = {v, i * (SC_CELLS + 1), i};
        int at = ng++;
        while (at > 0 && group_before(&grp, &groups[at - 1])) {
            groups[at] = groups[at - 1];
            at--;
        }
        groups[at] = grp;
    }
    for (int j = 0; j < ng && may_enter(out, s.n, k, groups[j].bound, groups[j].order); j++) {
        int i = groups[j].i;
        open_card(&s, &pos, &bounds[g->cat->card_design[hand->hand[i]]], i);
    }
    return s.n;
}
