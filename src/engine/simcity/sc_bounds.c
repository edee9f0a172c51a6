/* sc_bounds.c: the bounds of SimCity's search (sc_best.c): a cheap upper bound of what any
 * play of a card could score, and of what its play at each cell could score, read from the
 * position's scan (blocks by square, near counts, complexes' groups, zones, the coverage not
 * given yet). The search judges every play whose bound could enter the best k, so a bound must
 * never fall below the score it bounds (tests/test_simcity_props.c checks it). */
#include <string.h>

#include "sc_bounds.h"

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

/* Splits p's candidate cells (split_done and what it marks). */
static void split_cells(struct sc_bound_pos *p)
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
int sc_walk_cells(struct sc_bound_pos *p, const struct sc_design *d, uint8_t *list,
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

/* The scan's covered map of `cover` (as sc_score.c's coverage reads it). */
static const bool *covered_map(struct sc_bound_pos *p, int cover)
{
    struct sc_scan *s = p->scan;
    if (!(s->covered_done >> cover & 1u)) {
        sc_covered_map_scan(p->g, cover, s->covered[cover], s);
        s->covered_done = (uint8_t)(s->covered_done | 1u << cover);
    }
    return s->covered[cover];
}

/* Works out p->power_unc from the scan's covered map of power. */
static void uncovered_power(struct sc_bound_pos *p)
{
    struct sc_scan *s = p->scan;
    const bool *old = covered_map(p, SC_COVER_POWER);
    memset(p->power_unc, 0, sizeof p->power_unc);
    for (int i = 0; i < s->nblocks; i++) {
        int b = s->blocks[i], k = s->net[SC_SVC_POWER][b];
        p->power_unc[k == SC_NONE ? 0 : k] += k != SC_NONE && !old[b];
    }
    p->unc_done = (uint8_t)(p->unc_done | 1u << SC_COVER_POWER);
}

/* Adds 1 at each cell of g's surface within distance r of cell q (a diamond), q itself not. */
static void count_around(const struct sc_game *g, uint8_t *n, int q, int r)
{
    int qx = sc_x(q), qy = sc_y(q);
    for (int dy = -r; dy <= r; dy++) {
        int y = qy + dy, w = r - (dy < 0 ? -dy : dy);
        if (y < 0 || y >= g->side)
            continue;
        for (int x = qx - w < 0 ? 0 : qx - w; x <= qx + w && x < g->side; x++)
            n[y * SC_STRIDE + x]++;
    }
    n[q]--;
}

/* For coverage sp (not power): at each cell, the blocks a provider there would be paid for, as
 * the score counts them (sc_covers_at(): within its range, less a block's crime for police; New
 * Coverage Only: those no provider covers yet; the cell's own block not counted), worked out
 * once a position for each kind of coverage. */
static const uint8_t *covered_near(struct sc_bound_pos *p, const struct sc_special *sp)
{
    int k = sp->cover;
    uint8_t *n = p->cov[k];
    if ((p->cov_done >> k & 1u) && p->cov_range[k] == sp->range && p->cov_new[k] == sp->new_only)
        return n;
    const struct sc_game *g = p->g;
    const struct sc_scan *s = p->scan;
    const bool *old = sp->new_only ? covered_map(p, k) : NULL;
    memset(n, 0, SC_CELLS);
    for (int i = 0; i < s->nblocks; i++) { /* each block counts at the cells that cover it */
        int q = s->blocks[i];
        int r = sp->range - (k == SC_COVER_POLICE ? sc_design_of(g, g->block[q])->crime : 0);
        if ((old && old[q]) || r < 0)
            continue;
        count_around(g, n, q, r);
    }
    p->cov_max[k] = -1;
    p->cov_range[k] = (int8_t)sp->range;
    p->cov_new[k] = sp->new_only;
    p->cov_done = (uint8_t)(p->cov_done | 1u << k);
    return n;
}

/* The blocks in the square of half-side r around c (c's own among them). */
static int blocks_near(struct sc_bound_pos *p, int c, int r)
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
static void complex_groups(struct sc_bound_pos *p, int cx)
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
/* sc_complex_at() of complex cx at c read from its groups (complex_groups() of cx done). */
static int complex_near(const struct sc_bound_pos *p, int cx, int c)
{
    const uint8_t *group = p->cx_group[cx];
    int count = p->cx_remote_count[cx], sum = p->cx_remote_sum[cx];
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

void sc_complex_cells(struct sc_bound_pos *p, int cx)
{
    complex_groups(p, cx);
    const struct sc_scan *s = p->scan;
    int16_t *at = p->cx_at[cx];
    int16_t far = (int16_t)(p->cx_remote_count[cx] >= SC_GROUP_MIN ? p->cx_remote_sum[cx] : 0);
    bool done[SC_CELLS];
    memset(done, 0, sizeof done);
    for (int c = 0; c < SC_CELLS; c++) /* (no member at a cell or beside it: the remote ones) */
        at[c] = far;
    for (int i = 0; i < s->nblocks; i++) {
        int c = s->blocks[i];
        if (p->cx_group[cx][c] == SC_NONE)
            continue;
        int q[5], m = 1 + sc_neighbours(p->g, c, q + 1);
        q[0] = c;
        for (int j = 0; j < m; j++)
            if (!done[q[j]]) {
                done[q[j]] = true;
                at[q[j]] = (int16_t)complex_near(p, cx, q[j]);
            }
    }
}

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
static int powered_near(struct sc_bound_pos *p, int c, bool new_only)
{
    const struct sc_scan *s = p->scan;
    if (new_only && !(p->unc_done >> SC_COVER_POWER & 1u))
        uncovered_power(p);
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
static const uint8_t *near_of(struct sc_bound_pos *p, const struct sc_sel *sel, int r)
{
    for (int i = 0; i < p->nnear; i++)
        if (p->near_sel[i] == sel && p->near_r[i] == r)
            return p->near[i];
    if (p->nnear == NEAR_SLOTS)
        return NULL;
    const struct sc_game *g = p->g;
    const struct sc_scan *s = p->scan;
    uint8_t *n = p->near[p->nnear];
    p->near_max[p->nnear] = -1;
    p->near_sel[p->nnear] = sel;
    p->near_r[p->nnear++] = (int8_t)r;
    memset(n, 0, SC_CELLS);
    for (int i = 0; i < s->nblocks; i++) { /* each matching block counts at the cells near it */
        int q = s->blocks[i];
        if (!sc_sel_match(g, sel, sc_design_of(g, g->block[q])))
            continue;
        count_around(g, n, q, r);
    }
    return n;
}
int sc_by_cell(struct sc_bound_pos *p, const struct sc_design *d, const struct sc_design_bound *b,
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
            n += sp->amount * covered_near(p, sp)[c];
        }
    }
    return n;
}

/* The largest of counts n[] at a candidate cell of p's scan. */
static int cands_max(const struct sc_bound_pos *p, const uint8_t *n)
{
    const struct sc_scan *s = p->scan;
    int most = 0;
    for (int j = 0; j < s->ncands; j++)
        most = n[s->cands[j]] > most ? n[s->cands[j]] : most;
    return most;
}

/* A bound of sc_by_cell() of design d (b: its bound's near[] filled) at every candidate cell,
 * read from the largest of the counts it reads (each worked out once a position), or -1 when
 * one of its parts has no such count (power, a receive within more than NEAR_EXACT): then its
 * cells must be walked. */
static int part_most(struct sc_bound_pos *p, const struct sc_design *d,
                     const struct sc_design_bound *b)
{
    int n = 0;
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *sp = &d->specials[i];
        if (sp->amount <= 0)
            continue;
        if (b->near[i]) { /* (as sc_by_cell() reads them) */
            int k = (int)((b->near[i] - p->near[0]) / SC_CELLS);
            if (p->near_max[k] < 0)
                p->near_max[k] = (int16_t)cands_max(p, b->near[i]);
            int m = p->near_max[k];
            bool each = sp->each || sp->cond.kind != SC_COND_ADJACENT;
            n += each ? sp->amount * m : m > 0 ? sp->amount : 0;
        } else if (sp->prim == SC_SP_RECEIVE && sp->cond.kind == SC_COND_ADJACENT) {
            return -1;
        } else if (sp->prim == SC_SP_RECEIVE && sp->each && sp->cond.kind == SC_COND_WITHIN) {
            return -1;
        } else if (sp->prim == SC_SP_COVERAGE && sp->cover == SC_COVER_POWER) {
            if (d->power)
                return -1;
        } else if (sp->prim == SC_SP_COVERAGE) {
            const uint8_t *cov = covered_near(p, sp);
            if (p->cov_max[sp->cover] < 0)
                p->cov_max[sp->cover] = (int16_t)cands_max(p, cov);
            n += sp->amount * p->cov_max[sp->cover];
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
void sc_design_bound(struct sc_bound_pos *p, const struct sc_design *d, struct sc_design_bound *b)
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
        if (sp->prim == SC_SP_RECEIVE && !sp->each && sp->amount != 0 &&
            (sp->cond.kind == SC_COND_CITY_HAS || sp->cond.kind == SC_COND_CITY_LACKS)) {
            /* (the score counts the city's blocks but the cell's own: a receive is counted when
             * it could hold at some cell, a loss when it holds at every cell) */
            int n = city_count(g, s, &sp->cond.sel);
            bool has = sp->cond.kind == SC_COND_CITY_HAS;
            if (sp->amount > 0 ? (has ? n > 0 : n <= 1) : (has ? n >= 2 : n == 0))
                b->fixed += sp->amount;
            continue;
        }
        if (sp->prim != SC_SP_RECEIVE || sp->amount <= 0)
            continue;
        if (sp->cond.kind == SC_COND_ADJACENT) { /* (each or not: sc_by_cell()) */
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
                    (struct sc_adder){(uint8_t)q, sp->cond.kind, sp->cond.n, sp->amount};
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
    const struct sc_play_filter f = sc_play_filter_of(d, b->restricted ? b->allowed : NULL);
    uint8_t list[SC_CELLS];
    const uint8_t *cells = NULL;
    if (b->by_cell) { /* (kept for sc_score_bound(), which asks again cell by cell) */
        memset(b->cell_part, 0xff, sizeof b->cell_part);
        int part = part_most(p, d, b);
        if (part >= 0) { /* (read from the counts' largest: no walk over the cells) */
            b->top += most + part;
            return;
        }
        ncells = sc_walk_cells(p, d, list, &cells);
    }
    for (int j = 0; j < ncells; j++) {
        int c = cells[j];
        if (sc_no_play(p, &f, c))
            continue; /* (no play: its bound is no bound of a play) */
        int part = sc_by_cell(p, d, b, c);
        b->cell_part[c] = (int16_t)part;
        int v = (g->block[c] == SC_NONE && g->scorched[c] ? SC_SCORCHED_BONUS : 0) + part;
        most = v > most ? v : most;
    }
    b->top += most;
}

void sc_bound_start(struct sc_bound_pos *p, const struct sc_game *g, struct sc_scan *scan,
                    bool free_only)
{
    p->g = g;
    p->scan = scan;
    p->squares = false;
    memset(p->zone_most, 0xff, sizeof p->zone_most);
    p->scorched = -1;
    p->cx_done = p->unc_done = p->cov_done = 0;
    p->members_done = false;
    p->free_only = free_only;
    p->split_done = false;
    p->nnear = 0;
    freely_for(g);
}

int sc_play_bound(const struct sc_game *g, int card, int cell, int *top)
{
    static _Thread_local struct sc_bound_pos p;
    struct sc_design_bound b;
    sc_bound_start(&p, g, sc_position_scan(g), false);
    sc_design_bound(&p, sc_design_of(g, card), &b);
    if (top)
        *top = b.top;
    return sc_score_bound(&p, sc_design_of(g, card), &b, cell);
}
