/* sc_best.c: the best plays of a SimCity hand without judging every one. Each card of the hand
 * gets a cheap upper bound of what any of its plays could score, and each of its cells one of
 * what the play there could score, read from the position's scan; cards are opened and their
 * plays judged (checked, scored exactly, weighed) in order of their bounds, and the search stops
 * once nothing left can enter the best k. The bots and the expert ask for their plays here (see
 * sc_internal.h): every play that could matter is still judged, so the answer is the one
 * judging them all would give (sc_best_plays_all(), which the tests compare it with). */
#include <math.h>
#include <string.h>

#include "sc_internal.h"

/* ---- the bound of a play's score --------------------------------------------------------------
 */

/* Receives of the blocks beside a cell or within this distance are counted as the score counts
 * them (near_of(), for NEAR_SLOTS selectors and distances a position); further, every block in
 * the square around the cell counts (cheaper to read). */
enum { NEAR_EXACT = 2, NEAR_SLOTS = 8 };

enum { FREELY_WORDS = (SC_MAX_DESIGNS + 63) / 64 };

/* What the bounds read of the position, worked out once a call: blocks by square (for counts
 * within a distance) and the zone bonus by key and cell. */
struct bound_pos {
    const struct sc_game *g;
    struct sc_scan *scan;
    bool squares;                              /* pre[][] is filled */
    int16_t pre[SC_STRIDE + 1][SC_STRIDE + 1]; /* blocks in [0,x) x [0,y) */
    int8_t zone_most[SC_ZONE_KEYS];            /* sc_scan_zone_most(), or -1 */
    /* by complex (cx_done bit k: complex k worked out): its contiguous members' groups (each
     * member's group number, each group's members and bonus), and its remote members' */
    uint8_t cx_done;
    uint8_t cx_group[SC_MAX_COMPLEXES][SC_CELLS];
    int16_t cx_count[SC_MAX_COMPLEXES][SC_CELLS], cx_sum[SC_MAX_COMPLEXES][SC_CELLS];
    int16_t cx_remote_count[SC_MAX_COMPLEXES], cx_remote_sum[SC_MAX_COMPLEXES];
    /* by coverage (unc_done bit k: coverage k worked out), the blocks it covers nowhere yet
     * (New Coverage Only pays for no other): by square as pre[][], and for power by network */
    uint8_t unc_done;
    int16_t unc[SC_COVER_COUNT][SC_STRIDE + 1][SC_STRIDE + 1];
    int16_t power_unc[SC_CELLS];
    int scorched;      /* the scorched earth bonus of some candidate cell, or -1 not known yet */
    bool members_done; /* members[] is filled */
    int16_t members[SC_MAX_COMPLEXES]; /* by complex: its members' bonuses (those > 0) */
    bool free_only; /* no vote can be asked: a block goes on a block only as an upgrade or a
                     * free rezone, and other built cells are no plays (sc_card_check()) */
    /* when free_only, the candidate cells split (split_done): the empty ones in reading order,
     * and the built ones by the design of their block: the designs by bit (present), each
     * one's first cell head[k] and each cell's next of the same design next[c] (SC_NONE: no
     * more) */
    bool split_done;
    uint8_t nempty;
    uint64_t present[FREELY_WORDS];
    /* near_of(): for near_sel[i] and near_r[i], the counts near[i] */
    int nnear;
    const struct sc_sel *near_sel[NEAR_SLOTS];
    int8_t near_r[NEAR_SLOTS];
    uint8_t near[NEAR_SLOTS][SC_CELLS];
    uint8_t empty[SC_CELLS];
    uint8_t head[SC_MAX_DESIGNS], tail[SC_MAX_DESIGNS], next[SC_CELLS];
};

/* sc_covers_freely() by the designs of the covered block and of the block (it reads nothing
 * else of a game), worked out once a catalog: for design d (done[d]), the designs it covers
 * freely by bit, mask[d]. */
static _Thread_local struct {
    const struct sc_catalog *cat;
    uint64_t stamp;
    bool done[SC_MAX_DESIGNS];
    uint64_t mask[SC_MAX_DESIGNS][FREELY_WORDS];
} freely;

/* The freely[] of g's catalog. */
static void freely_for(const struct sc_game *g)
{
    if (freely.cat != g->cat || freely.stamp != g->cat->stamp) {
        memset(freely.done, 0, sizeof freely.done);
        freely.cat = g->cat;
        freely.stamp = g->cat->stamp;
    }
}

/* The designs design d covers freely, by bit (freely_for() of g done). */
static const uint64_t *freely_mask(const struct sc_game *g, const struct sc_design *d)
{
    int k = (int)(d - g->cat->designs);
    if (!freely.done[k]) {
        memset(freely.mask[k], 0, sizeof freely.mask[k]);
        for (int e = 0; e < g->cat->ndesigns; e++)
            if (sc_covers_freely(g, &g->cat->designs[e], d))
                freely.mask[k][e / 64] |= 1ull << (e % 64);
        freely.done[k] = true;
    }
    return freely.mask[k];
}

/* What no_play() reads of one design, hoisted out of a walk over the cells: the sims it
 * requires (0: none) and its allowed cells (NULL: not restricted). */
struct play_filter {
    int need;
    const uint8_t *allowed;
};

static inline struct play_filter play_filter_of(const struct sc_design *d, const uint8_t *allowed)
{
    return (struct play_filter){d->sims < 0 ? -d->sims : 0, allowed};
}

/* True when block d at cell c is certainly no play in p's position (sc_card_check() would
 * refuse it): d requires more sims than any block at c could get; or d is restricted
 * (sc_restricted()) and c is not one of the cells f's allowed marks. f is play_filter_of() of
 * d. (A built cell whose block d does not cover freely when no vote can be asked is no play
 * either: walk_cells() leaves those out.) */
static inline __attribute__((always_inline)) bool no_play(const struct bound_pos *p,
                                                          const struct play_filter *f, int c)
{
    if (f->need) {
        int reach = p->scan->reach[c];
        if (f->need > (reach >= 0 ? reach : sc_scan_reach(p->g, p->scan, c)))
            return true;
    }
    return f->allowed && !f->allowed[c];
}

/* Splits p's candidate cells (split_done and what it marks). */
static void split_cells(struct bound_pos *p)
{
    const struct sc_game *g = p->g;
    const struct sc_scan *s = p->scan;
    int ne = 0;
    memset(p->present, 0, sizeof p->present);
    for (int j = 0; j < s->ncands; j++) {
        int c = s->cands[j], e = g->block[c];
        if (e == SC_NONE) {
            p->empty[ne++] = (uint8_t)c;
            continue;
        }
        int k = g->cat->card_design[e];
        if (!(p->present[k / 64] >> (k % 64) & 1u)) {
            p->present[k / 64] |= 1ull << (k % 64);
            p->head[k] = (uint8_t)c;
        } else {
            p->next[p->tail[k]] = (uint8_t)c;
        }
        p->tail[k] = (uint8_t)c;
        p->next[c] = SC_NONE;
    }
    p->nempty = (uint8_t)ne;
    p->split_done = true;
}

/* The cells a walk over design d's plays must visit: every candidate cell, but when no vote can
 * be asked only the empty ones and the built ones whose block d covers freely, into list[].
 * Returns how many, *cells pointing at them. The order of the cells changes no answer of the
 * search (the best k are the best k in whatever order plays are judged). */
static int walk_cells(struct bound_pos *p, const struct sc_design *d, uint8_t *list,
                      const uint8_t **cells)
{
    if (!p->free_only) {
        *cells = p->scan->cands;
        return p->scan->ncands;
    }
    if (!p->split_done)
        split_cells(p);
    memcpy(list, p->empty, p->nempty);
    int n = p->nempty;
    const uint64_t *mask = freely_mask(p->g, d);
    for (int w = 0; w < FREELY_WORDS; w++)
        for (uint64_t m = mask[w] & p->present[w]; m; m &= m - 1)
            for (int c = p->head[w * 64 + __builtin_ctzll(m)]; c != SC_NONE; c = p->next[c])
                list[n++] = (uint8_t)c;
    *cells = list;
    return n;
}

/* What pre[][] (sums over [0,x) x [0,y)) counts in the square of half-side r around c. */
static int square_count(const struct sc_game *g, int16_t pre[][SC_STRIDE + 1], int c, int r)
{
    int x0 = sc_x(c) - r, x1 = sc_x(c) + r + 1, y0 = sc_y(c) - r, y1 = sc_y(c) + r + 1;
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > g->side ? g->side : x1;
    y1 = y1 > g->side ? g->side : y1;
    return pre[y1][x1] - pre[y0][x1] - pre[y1][x0] + pre[y0][x0];
}

/* Works out p->unc[cover] (or p->power_unc) from the scan's covered map of `cover`. */
static void uncovered(struct bound_pos *p, int cover)
{
    const struct sc_game *g = p->g;
    struct sc_scan *s = p->scan;
    if (!(s->covered_done >> cover & 1u)) { /* (as sc_score.c's coverage reads it) */
        sc_covered_map_scan(g, cover, s->covered[cover], s);
        s->covered_done = (uint8_t)(s->covered_done | 1u << cover);
    }
    const bool *old = s->covered[cover];
    if (cover == SC_COVER_POWER) {
        memset(p->power_unc, 0, sizeof p->power_unc);
        for (int i = 0; i < s->nblocks; i++) {
            int b = s->blocks[i], k = s->net[SC_SVC_POWER][b];
            p->power_unc[k == SC_NONE ? 0 : k] += k != SC_NONE && !old[b];
        }
    } else {
        int16_t(*pre)[SC_STRIDE + 1] = p->unc[cover];
        memset(pre, 0, sizeof p->unc[cover]);
        for (int y = 0; y < g->side; y++)
            for (int x = 0; x < g->side; x++) {
                int b = y * SC_STRIDE + x;
                pre[y + 1][x + 1] = (int16_t)(pre[y][x + 1] + pre[y + 1][x] - pre[y][x] +
                                              (g->block[b] != SC_NONE && !old[b]));
            }
    }
    p->unc_done = (uint8_t)(p->unc_done | 1u << cover);
}

/* The blocks in the square of half-side r around c that no provider of `cover` covers yet. */
static int uncovered_near(struct bound_pos *p, int cover, int c, int r)
{
    if (!(p->unc_done >> cover & 1u))
        uncovered(p, cover);
    return square_count(p->g, p->unc[cover], c, r);
}

/* The blocks in the square of half-side r around c (c's own among them). */
static int blocks_near(struct bound_pos *p, int c, int r)
{
    const struct sc_game *g = p->g;
    if (!p->squares) {
        memset(p->pre, 0, sizeof p->pre);
        for (int y = 0; y < g->side; y++)
            for (int x = 0; x < g->side; x++)
                p->pre[y + 1][x + 1] =
                    (int16_t)(p->pre[y][x + 1] + p->pre[y + 1][x] - p->pre[y][x] +
                              (g->block[y * SC_STRIDE + x] != SC_NONE));
        p->squares = true;
    }
    return square_count(g, p->pre, c, r);
}

/* Numbers the groups of complex cx's contiguous members in p's city (as sc_score.c joins
 * them: beside each other) with each group's members and bonus, and counts its remote members. */
static void complex_groups(struct bound_pos *p, int cx)
{
    const struct sc_game *g = p->g;
    const struct sc_scan *s = p->scan;
    uint8_t *group = p->cx_group[cx], q[SC_CELLS];
    memset(group, SC_NONE, SC_CELLS);
    int groups = 0;
    for (int i = 0; i < s->nblocks; i++) {
        int c = s->blocks[i];
        const struct sc_design *e = sc_design_of(g, g->block[c]);
        if (group[c] != SC_NONE || e->complex != cx || e->cwithin)
            continue;
        int n = 0, sum = 0;
        q[n++] = (uint8_t)c;
        group[c] = (uint8_t)groups;
        for (int j = 0; j < n; j++) {
            const struct sc_design *m = sc_design_of(g, g->block[q[j]]);
            sum += m->cbonus > 0 ? m->cbonus : 0;
            int nb[4], k = sc_neighbours(g, q[j], nb);
            for (int t = 0; t < k; t++) {
                if (group[nb[t]] != SC_NONE || g->block[nb[t]] == SC_NONE)
                    continue;
                const struct sc_design *f = sc_design_of(g, g->block[nb[t]]);
                if (f->complex == cx && !f->cwithin) {
                    group[nb[t]] = (uint8_t)groups;
                    q[n++] = (uint8_t)nb[t];
                }
            }
        }
        p->cx_count[cx][groups] = (int16_t)n;
        p->cx_sum[cx][groups++] = (int16_t)sum;
    }
    int n = 0, sum = 0;
    for (int i = 0; i < s->nremotes; i++) {
        const struct sc_design *e = sc_design_of(g, g->block[s->remotes[i]]);
        if (e->complex == cx) {
            n++;
            sum += e->cbonus > 0 ? e->cbonus : 0;
        }
    }
    p->cx_remote_count[cx] = (int16_t)n;
    p->cx_remote_sum[cx] = (int16_t)sum;
    p->cx_done = (uint8_t)(p->cx_done | 1u << cx);
}

/* A bound of the complex bonus of a contiguous member of complex cx at c: the members of the
 * groups beside c (and of c's own) and every remote member, paid once they are at least 3. */
static int complex_at(struct bound_pos *p, int cx, int c)
{
    if (!(p->cx_done >> cx & 1u))
        complex_groups(p, cx);
    const uint8_t *group = p->cx_group[cx];
    int count = p->cx_remote_count[cx], sum = p->cx_remote_sum[cx];
    int x = sc_x(c), y = sc_y(c), side = p->g->side;
    if ((group[c] & (y > 0 ? group[c - SC_STRIDE] : SC_NONE) &
         (x + 1 < side ? group[c + 1] : SC_NONE) & (y + 1 < side ? group[c + SC_STRIDE] : SC_NONE) &
         (x > 0 ? group[c - 1] : SC_NONE)) == SC_NONE) /* (no member here or beside: the most
                                                        * common) */
        return count >= SC_GROUP_MIN ? sum : 0;
    int q[5], m = 1 + sc_neighbours(p->g, c, q + 1), seen[5], nseen = 0;
    q[0] = c;
    for (int i = 0; i < m; i++) {
        int k = group[q[i]], j = 0;
        if (k == SC_NONE)
            continue;
        while (j < nseen && seen[j] != k)
            j++;
        if (j < nseen)
            continue;
        seen[nseen++] = k;
        count += p->cx_count[cx][k];
        sum += p->cx_sum[cx][k];
    }
    return count >= SC_GROUP_MIN ? sum : 0;
}

/* An adder of the city whose special gives design d `amount` > 0 when its condition holds. */
struct adder {
    uint8_t cell, kind, n;
    int8_t amount;
};

/* What the bounds of one design's plays share: the parts that do not depend on the cell, the
 * adders that pay it, and the bound of any of its plays. */
struct design_bound {
    bool done;
    int key;         /* its zone key, or -1 when it earns no zone bonus */
    int fixed;       /* value, a complex's members, receives that do not depend on the cell */
    int cx;          /* its complex when it is a contiguous member (its members depend on the
                      * cell: complex_at()), else -1 (counted in fixed) */
    int top;         /* the most any of its plays could score */
    bool by_cell;    /* it has receives or coverage that depend on the cell */
    bool restricted; /* sc_restricted() */
    uint8_t allowed[SC_CELLS];   /* when restricted: the cells it may go on as far as its
                                  * restrictions go (sc_restricted_at() false) */
    int16_t cell_part[SC_CELLS]; /* by_cell() at each candidate cell (-1: not worked out) */
    const uint8_t *near[SC_MAX_SPECIALS]; /* by special: near_of() of its receive (NULL: none) */
    int nadders;
    struct adder adders[SC_CELLS];
};

/* The blocks of the city matching sel (a bound of what a condition counts anywhere). */
static int city_count(const struct sc_game *g, const struct sc_scan *s, const struct sc_sel *sel)
{
    int n = 0;
    for (int i = 0; i < s->nblocks; i++)
        n += sc_sel_match(g, sel, sc_design_of(g, g->block[s->blocks[i]]));
    return n;
}

/* The blocks of the power networks at c or beside it, each network once: all a power line at c
 * could join (new_only: those no power provider covers yet). */
static int powered_near(struct bound_pos *p, int c, bool new_only)
{
    const struct sc_scan *s = p->scan;
    if (new_only && !(p->unc_done >> SC_COVER_POWER & 1u))
        uncovered(p, SC_COVER_POWER);
    int nets[5], n = 0, sum = 0;
    for (int dir = -1; dir < 4; dir++) {
        int q = dir < 0 ? c : sc_step_to(p->g, c, dir);
        if (q < 0 || p->g->block[q] == SC_NONE || s->net[SC_SVC_POWER][q] == SC_NONE)
            continue;
        int net = s->net[SC_SVC_POWER][q], k = 0;
        while (k < n && nets[k] != net)
            k++;
        if (k == n) {
            nets[n++] = net;
            sum += new_only ? p->power_unc[net]
                            : s->first[SC_SVC_POWER][net + 1] - s->first[SC_SVC_POWER][net];
        }
    }
    return sum;
}

/* The blocks matching sel within distance r of each cell (the cell's own not counted: as a
 * receive's condition counts them), worked out once a position for a few (sel, r); NULL when
 * no room is left for another. */
static const uint8_t *near_of(struct bound_pos *p, const struct sc_sel *sel, int r)
{
    for (int i = 0; i < p->nnear; i++)
        if (p->near_sel[i] == sel && p->near_r[i] == r)
            return p->near[i];
    if (p->nnear == NEAR_SLOTS)
        return NULL;
    const struct sc_game *g = p->g;
    const struct sc_scan *s = p->scan;
    uint8_t *n = p->near[p->nnear];
    p->near_sel[p->nnear] = sel;
    p->near_r[p->nnear++] = (int8_t)r;
    memset(n, 0, SC_CELLS);
    for (int i = 0; i < s->nblocks; i++) { /* each matching block counts at the cells near it */
        int q = s->blocks[i], qx = sc_x(q), qy = sc_y(q);
        if (!sc_sel_match(g, sel, sc_design_of(g, g->block[q])))
            continue;
        for (int dy = -r; dy <= r; dy++) {
            int y = qy + dy, w = r - (dy < 0 ? -dy : dy);
            if (y < 0 || y >= g->side)
                continue;
            for (int x = qx - w < 0 ? 0 : qx - w; x <= qx + w && x < g->side; x++)
                n[y * SC_STRIDE + x]++;
        }
        n[q]--; /* (not its own cell) */
    }
    return n;
}

/* The part of d's bound at c from its receives and coverage that depend on the cell (b: its
 * bound's near[] filled). */
static int by_cell(struct bound_pos *p, const struct sc_design *d, const struct design_bound *b,
                   int c)
{
    const struct sc_game *g = p->g;
    int n = 0;
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *sp = &d->specials[i];
        if (sp->amount <= 0)
            continue;
        if (sp->prim == SC_SP_RECEIVE && sp->cond.kind == SC_COND_ADJACENT) {
            int k = 0; /* (as the score counts them) */
            if (b->near[i]) {
                k = b->near[i][c];
            } else {
                int nb[4], m = sc_neighbours(g, c, nb);
                for (int j = 0; j < m; j++)
                    k += g->block[nb[j]] != SC_NONE &&
                         sc_sel_match(g, &sp->cond.sel, sc_design_of(g, g->block[nb[j]]));
            }
            n += sp->each ? sp->amount * k : k > 0 ? sp->amount : 0;
        } else if (b->near[i]) { /* (a receive for each block within NEAR_EXACT) */
            n += sp->amount * b->near[i][c];
        } else if (sp->prim == SC_SP_RECEIVE && sp->each && sp->cond.kind == SC_COND_WITHIN) {
            n += sp->amount * blocks_near(p, c, sp->cond.n);
        } else if (sp->prim == SC_SP_COVERAGE && sp->cover == SC_COVER_POWER) {
            n += d->power ? sp->amount * powered_near(p, c, sp->new_only) : 0;
        } else if (sp->prim == SC_SP_COVERAGE) {
            int r = sp->range - (sp->cover == SC_COVER_POLICE ? p->scan->min_crime : 0);
            n += sp->amount *
                 (sp->new_only ? uncovered_near(p, sp->cover, c, r) : blocks_near(p, c, r));
        }
    }
    return n;
}

/* Marks in allowed[] the cells where restricted design d's restrictions let it go (the cells
 * sc_restricted_at() passes), from the blocks they name rather than cell by cell. */
static void allowed_cells(const struct sc_game *g, const struct sc_scan *s,
                          const struct sc_design *d, uint8_t *allowed)
{
    memset(allowed, 1, SC_CELLS);
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *sp = &d->specials[i];
        bool cover = sp->prim == SC_SP_MUST_COVER;
        if (!cover && !(sp->prim == SC_SP_ONLY_IF && sp->cond.kind == SC_COND_ADJACENT))
            continue;
        const struct sc_sel *sel = cover ? &sp->sel : &sp->cond.sel;
        uint8_t here[SC_CELLS] = {0};
        for (int k = 0; k < s->nblocks; k++) {
            int b = s->blocks[k];
            if (!sc_sel_match(g, sel, sc_design_of(g, g->block[b])))
                continue;
            if (cover) {
                here[b] = 1;
                continue;
            }
            int nb[4], m = sc_neighbours(g, b, nb);
            for (int j = 0; j < m; j++)
                here[nb[j]] = 1;
        }
        for (int c = 0; c < SC_CELLS; c++)
            allowed[c] &= here[c];
    }
}

static void design_bound(struct bound_pos *p, const struct sc_design *d, struct design_bound *b)
{
    const struct sc_game *g = p->g;
    struct sc_scan *s = p->scan;
    b->done = true;
    b->restricted = sc_restricted(d);
    if (b->restricted)
        allowed_cells(g, s, d, b->allowed);
    b->fixed = d->value;
    b->by_cell = false;
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *sp = &d->specials[i];
        b->near[i] = NULL;
        if (sp->prim == SC_SP_RECEIVE && sp->amount > 0 && sp->cond.kind == SC_COND_ADJACENT)
            b->near[i] = near_of(p, &sp->cond.sel, 1);
        else if (sp->prim == SC_SP_RECEIVE && sp->amount > 0 && sp->each &&
                 sp->cond.kind == SC_COND_WITHIN && sp->cond.n <= NEAR_EXACT)
            b->near[i] = near_of(p, &sp->cond.sel, sp->cond.n);
        if (sp->prim == SC_SP_COVERAGE && sp->amount > 0)
            b->by_cell = true;
        if (sp->prim != SC_SP_RECEIVE || sp->amount <= 0)
            continue;
        if (sp->cond.kind == SC_COND_ADJACENT) { /* (each or not: by_cell()) */
            b->by_cell = true;
            continue;
        }
        if (!sp->each) {
            b->fixed += sp->amount;
            continue;
        }
        switch (sp->cond.kind) {
        case SC_COND_WITHIN:
            b->by_cell = true;
            break;
        case SC_COND_CONNECTED:
        case SC_COND_CITY_HAS:
            b->fixed += sp->amount * city_count(g, s, &sp->cond.sel);
            break;
        default: /* always, city_lacks, covered: 1 at most */
            b->fixed += sp->amount;
            break;
        }
    }
    if (d->complex >= 0 && !p->members_done) { /* every complex's at once */
        memset(p->members, 0, sizeof p->members);
        for (int i = 0; i < s->nblocks; i++) {
            const struct sc_design *e = sc_design_of(g, g->block[s->blocks[i]]);
            if (e->complex >= 0 && e->cbonus > 0)
                p->members[e->complex] = (int16_t)(p->members[e->complex] + e->cbonus);
        }
        p->members_done = true;
    }
    /* (every member's bonus: the most any of its plays could get) */
    int members = d->complex >= 0 ? p->members[d->complex] : 0;
    b->cx = d->complex >= 0 && !d->cwithin ? d->complex : -1;
    b->fixed += b->cx >= 0 ? 0 : members;
    int adds = 0;
    b->nadders = 0;
    for (int k = 0; k < s->nadders; k++) {
        int q = s->adders[k];
        const struct sc_design *e = sc_design_of(g, g->block[q]);
        for (int i = 0; i < e->nspecials; i++) {
            const struct sc_special *sp = &e->specials[i];
            if (sp->prim == SC_SP_ADD && sp->amount > 0 && sc_sel_match(g, &sp->sel, d)) {
                b->adders[b->nadders++] =
                    (struct adder){(uint8_t)q, sp->cond.kind, sp->cond.n, sp->amount};
                adds += sp->amount;
            }
        }
    }
    b->key = d->zone == SC_ZONE_SERVICES ? -1 : sc_zone_key(d);
    b->top = b->fixed + adds + (b->cx >= 0 ? members : 0);
    if (b->key >= 0) {
        if (p->zone_most[b->key] < 0) {
            int z = sc_scan_zone_most(g, s, b->key);
            p->zone_most[b->key] = (int8_t)(z >= SC_GROUP_MIN ? (z > 127 ? 127 : z) : 0);
        }
        b->top += p->zone_most[b->key] == 127 ? SC_CELLS : p->zone_most[b->key];
    }
    if (p->scorched < 0) { /* is any candidate cell scorched earth? */
        p->scorched = 0;
        bool any = memchr(g->scorched, true, sizeof g->scorched) != NULL; /* (seldom) */
        for (int j = 0; any && j < s->ncands; j++)
            if (g->block[s->cands[j]] == SC_NONE && g->scorched[s->cands[j]])
                p->scorched = SC_SCORCHED_BONUS;
    }
    int most = p->scorched, ncells = 0;
    const struct play_filter f = play_filter_of(d, b->restricted ? b->allowed : NULL);
    uint8_t list[SC_CELLS];
    const uint8_t *cells = NULL;
    if (b->by_cell) { /* (kept for score_bound(), which asks again cell by cell) */
        memset(b->cell_part, 0xff, sizeof b->cell_part);
        ncells = walk_cells(p, d, list, &cells);
    }
    for (int j = 0; j < ncells; j++) {
        int c = cells[j];
        if (no_play(p, &f, c))
            continue; /* (no play: its bound is no bound of a play) */
        int part = by_cell(p, d, b, c);
        b->cell_part[c] = (int16_t)part;
        int v = (g->block[c] == SC_NONE && g->scorched[c] ? SC_SCORCHED_BONUS : 0) + part;
        most = v > most ? v : most;
    }
    b->top += most;
}

/* An upper bound of what design d would score at cell c (legal or not) in p's position: its
 * value, scorched earth and zone as they are, every receive and add that could hold counted in
 * full, every member of its complex and every block its coverage could reach. */
static inline __attribute__((always_inline)) int
score_bound(struct bound_pos *p, const struct sc_design *d, struct design_bound *b, int c)
{
    const struct sc_game *g = p->g;
    int n = b->fixed;
    if (g->block[c] == SC_NONE && g->scorched[c])
        n += SC_SCORCHED_BONUS;
    if (b->key >= 0) { /* (the kept bonus read here: most cells have one) */
        const struct sc_scan *s = p->scan;
        int z = (s->zone_done >> b->key & 1u) ? s->zone_bonus[b->key][c] : -1;
        n += z >= 0 ? z : sc_scan_zone_bonus(g, p->scan, b->key, c);
    }
    if (b->cx >= 0)
        n += complex_at(p, b->cx, c);
    for (int i = 0; i < b->nadders; i++) {
        const struct adder *a = &b->adders[i];
        if (a->cell == c || (a->kind == SC_COND_ADJACENT && sc_distance(a->cell, c) != 1) ||
            (a->kind == SC_COND_WITHIN && sc_distance(a->cell, c) > a->n))
            continue;
        n += a->amount;
    }
    if (!b->by_cell)
        return n;
    return n + (b->cell_part[c] >= 0 ? b->cell_part[c] : by_cell(p, d, b, c));
}

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
static void open_card(struct search *s, struct bound_pos *p, struct design_bound *b, int i)
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
    const struct play_filter f = play_filter_of(d, b->restricted ? b->allowed : NULL);
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
    int ncells = d->kind != SC_KIND_EVENT ? walk_cells(p, d, list, &cells) : 0;
    for (int j = 0; j < ncells; j++) {
        int c = cells[j];
        if (no_play(p, &f, c))
            continue; /* (judge() would refuse it) */
        int ub = score_bound(p, d, b, c), built = g->block[c] != SC_NONE, m = ub + SC_MEMO / 4;
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
    static _Thread_local struct design_bound bounds[SC_MAX_DESIGNS];
    static _Thread_local struct bound_pos pos;
    static _Thread_local struct group groups[SC_MAX_CARDS];
    const struct sc_seat *hand = &g->seats[seat];
    if (k <= 0)
        return 0;
    struct search s = {
        g, sc_position_scan(g), seat, votes, votes && g->mayor != SC_NONE, bar, w, out, 0, k};
    pos.g = g;
    pos.scan = s.scan;
    pos.squares = false;
    memset(pos.zone_most, 0xff, sizeof pos.zone_most);
    pos.scorched = -1;
    pos.cx_done = pos.unc_done = 0;
    pos.members_done = false;
    pos.free_only = !s.may_vote;
    pos.split_done = false;
    pos.nnear = 0;
    freely_for(g);
    for (int i = 0; i < hand->nhand; i++)
        bounds[g->cat->card_design[hand->hand[i]]].done = false;
    /* every card's bound: an event's worth (a targeted one is opened whatever it is), a
     * block's at the most any of its plays could score */
    int ng = 0;
    for (int i = 0; i < hand->nhand; i++) {
        int card = hand->hand[i];
        const struct sc_design *d = sc_design_of(g, card);
        struct design_bound *b = &bounds[g->cat->card_design[card]];
        double v;
        if (sc_design_check(g, d) != SC_OK)
            continue;
        if (d->kind == SC_KIND_EVENT && d->targeted) {
            v = HUGE_VAL;
        } else if (d->kind == SC_KIND_EVENT) {
            struct sc_option o = {.card = (uint8_t)card, .x = -1, .y = -1, .mode = SC_MODE_EVENT};
            v = w->worth(w->ctx, &o) + tie_of(w, &o);
        } else {
            if (!b->done)
                design_bound(&pos, d, b);
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

int sc_play_bound(const struct sc_game *g, int card, int cell, int *top)
{
    static _Thread_local struct bound_pos p;
    struct design_bound b;
    p.g = g;
    p.scan = sc_position_scan(g);
    p.squares = false;
    memset(p.zone_most, 0xff, sizeof p.zone_most);
    p.scorched = -1;
    p.cx_done = p.unc_done = 0;
    p.members_done = false;
    p.free_only = false;
    p.split_done = false;
    p.nnear = 0;
    freely_for(g);
    design_bound(&p, sc_design_of(g, card), &b);
    if (top)
        *top = b.top;
    return score_bound(&p, sc_design_of(g, card), &b, cell);
}
