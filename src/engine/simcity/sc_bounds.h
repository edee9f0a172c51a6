/* sc_bounds.h: what SimCity's search (sc_best.c) and its bounds (sc_bounds.c) share and nothing
 * else should call: what the bounds read of a position, each design's bound of its plays, and the
 * inline bound of one play's score that the search asks cell by cell. */
#ifndef SC_BOUNDS_H
#define SC_BOUNDS_H

#include "sc_internal.h"

/* Receives of the blocks beside a cell or within this distance are counted as the score counts
 * them (near_of(), for NEAR_SLOTS selectors and distances a position); further, every block in
 * the square around the cell counts (cheaper to read). */
enum { NEAR_EXACT = 2, NEAR_SLOTS = 8 };

enum { FREELY_WORDS = (SC_MAX_DESIGNS + 63) / 64 };

/* What the bounds read of the position, worked out once a call: blocks by square (for counts
 * within a distance) and the zone bonus by key and cell. */
struct sc_bound_pos {
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
    int16_t cx_at[SC_MAX_COMPLEXES][SC_CELLS]; /* sc_complex_at() at each cell */
    /* for power (unc_done bit SC_COVER_POWER: worked out), the blocks no provider covers yet
     * (New Coverage Only pays for no other) by network */
    uint8_t unc_done;
    int16_t power_unc[SC_CELLS];
    /* by other coverage (cov_done bit k: coverage k worked out, for cov_range[k] and
     * cov_new[k]): at each cell the blocks a provider there would be paid for */
    uint8_t cov_done;
    int8_t cov_range[SC_COVER_COUNT];
    bool cov_new[SC_COVER_COUNT];
    uint8_t cov[SC_COVER_COUNT][SC_CELLS];
    int16_t cov_max[SC_COVER_COUNT]; /* the largest of cov[k] at a candidate cell, or -1 */
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
    int16_t near_max[NEAR_SLOTS]; /* the largest of near[i] at a candidate cell, or -1 */
    uint8_t empty[SC_CELLS];
    uint8_t head[SC_MAX_DESIGNS], tail[SC_MAX_DESIGNS], next[SC_CELLS];
};

/* What sc_no_play() reads of one design, hoisted out of a walk over the cells: the sims it
 * requires (0: none) and its allowed cells (NULL: not restricted). */
struct sc_play_filter {
    int need;
    const uint8_t *allowed;
    uint8_t edges[SC_SVC_RAIL + 1]; /* its road and rail edges (all 0: it has no service) */
};

static inline struct sc_play_filter sc_play_filter_of(const struct sc_design *d,
                                                      const uint8_t *allowed)
{
    return (struct sc_play_filter){d->sims < 0 ? -d->sims : 0, allowed, {d->road, d->rail}};
}

/* True when block d (f: sc_play_filter_of() of d) on empty cell c needs more sims than its own
 * road and rail edges join there, so that sc_card_check() would refuse it: the sims of each of its
 * services, each network beside it counted once where an edge of the block meets an edge of the
 * neighbour's, are short of its need (as sc_sims_met_scan() counts them on an empty cell). */
static inline __attribute__((always_inline)) bool
sc_own_short(const struct sc_bound_pos *p, const struct sc_play_filter *f, int c)
{
    if (!f->need || !(f->edges[SC_SVC_ROAD] | f->edges[SC_SVC_RAIL]) || p->g->block[c] != SC_NONE)
        return false;
    static const uint8_t edge_bit[4] = {SC_EDGE_N, SC_EDGE_E, SC_EDGE_S, SC_EDGE_W};
    const struct sc_game *g = p->g;
    const struct sc_scan *s = p->scan;
    for (int svc = SC_SVC_ROAD; svc <= SC_SVC_RAIL; svc++) {
        if (!f->edges[svc])
            continue;
        int seen[4], nseen = 0, sum = 0;
        for (int dir = 0; dir < 4; dir++) {
            int nb = f->edges[svc] & edge_bit[dir] ? sc_step_to(g, c, dir) : -1;
            if (nb < 0 || g->block[nb] == SC_NONE || s->net[svc][nb] == SC_NONE ||
                !(sc_edges(sc_design_of(g, g->block[nb]), svc) & edge_bit[(dir + 2) % 4]))
                continue;
            int net = s->net[svc][nb], k = 0;
            while (k < nseen && seen[k] != net)
                k++;
            if (k == nseen) {
                seen[nseen++] = net;
                sum += s->sims[svc][net];
            }
        }
        if (sum >= f->need)
            return false;
    }
    return true;
}

/* True when block d at cell c is certainly no play in p's position (sc_card_check() would
 * refuse it): d requires more sims than any block at c could get; or d is restricted
 * (sc_restricted()) and c is not one of the cells f's allowed marks. f is sc_play_filter_of() of
 * d. (A built cell whose block d does not cover freely when no vote can be asked is no play
 * either: sc_walk_cells() leaves those out.) */
static inline __attribute__((always_inline)) bool sc_no_play(const struct sc_bound_pos *p,
                                                             const struct sc_play_filter *f, int c)
{
    if (f->need) {
        int reach = p->scan->reach[c];
        if (f->need > (reach >= 0 ? reach : sc_scan_reach(p->g, p->scan, c)))
            return true;
    }
    return f->allowed && !f->allowed[c];
}

/* An adder of the city whose special gives design d `amount` > 0 when its condition holds. */
struct sc_adder {
    uint8_t cell, kind, n;
    int8_t amount;
};

/* What the bounds of one design's plays share: the parts that do not depend on the cell, the
 * adders that pay it, and the bound of any of its plays. */
struct sc_design_bound {
    bool done;
    int key;         /* its zone key, or -1 when it earns no zone bonus */
    int fixed;       /* value, a complex's members, receives that do not depend on the cell */
    int cx;          /* its complex when it is a contiguous member (its members depend on the
                      * cell: sc_complex_at()), else -1 (counted in fixed) */
    int top;         /* the most any of its plays could score */
    bool by_cell;    /* it has receives or coverage that depend on the cell */
    bool restricted; /* sc_restricted() */
    uint8_t allowed[SC_CELLS];   /* when restricted: the cells it may go on as far as its
                                  * restrictions go (sc_restricted_at() false) */
    int16_t cell_part[SC_CELLS]; /* sc_by_cell() at each candidate cell (-1: not worked out) */
    const uint8_t *near[SC_MAX_SPECIALS]; /* by special: near_of() of its receive (NULL: none) */
    int nadders;
    struct sc_adder adders[SC_CELLS];
};

/* Begins p for g's position (scan: its kept scan) with nothing worked out yet. free_only: no
 * vote can be asked (see sc_bound_pos). */
void sc_bound_start(struct sc_bound_pos *p, const struct sc_game *g, struct sc_scan *scan,
                    bool free_only);

/* The cells a walk over design d's plays must visit: every candidate cell, but when no vote can
 * be asked only the empty ones and the built ones whose block d covers freely, into list[].
 * Returns how many, *cells pointing at them. The order of the cells changes no answer of the
 * search (the best k are the best k in whatever order plays are judged). */
int sc_walk_cells(struct sc_bound_pos *p, const struct sc_design *d, uint8_t *list,
                  const uint8_t **cells);

/* Works out complex cx's groups in p's position and sc_complex_at() of cx at every cell
 * (cx_done bit cx set). */
void sc_complex_cells(struct sc_bound_pos *p, int cx);

/* A bound of the complex bonus of a contiguous member of complex cx at c: the members of the
 * groups beside c (and of c's own) and every remote member, paid once they are at least 3. */
static inline __attribute__((always_inline)) int sc_complex_at(struct sc_bound_pos *p, int cx,
                                                               int c)
{
    if (!(p->cx_done >> cx & 1u))
        sc_complex_cells(p, cx);
    return p->cx_at[cx][c];
}

/* The part of d's bound at c from its receives and coverage that depend on the cell (b: its
 * bound's near[] filled). */
int sc_by_cell(struct sc_bound_pos *p, const struct sc_design *d, const struct sc_design_bound *b,
               int c);

/* Works out b, design d's bound in p's position: the parts that do not depend on the cell, the
 * adders that pay it, and top, the most any of its plays could score. When by_cell, the parts
 * that depend on the cell are bounded by the largest counts they read at a candidate cell; only
 * when one has no such count (power, a receive within more than NEAR_EXACT) are its candidate
 * cells walked and their parts kept in cell_part[] (else -1, worked out as they are asked). */
void sc_design_bound(struct sc_bound_pos *p, const struct sc_design *d, struct sc_design_bound *b);

/* An upper bound of what design d would score at cell c (legal or not) in p's position: its
 * value, scorched earth and zone as they are, every receive and add that could hold counted in
 * full, every member of its complex and every block its coverage could reach. */
static inline __attribute__((always_inline)) int
sc_score_bound(struct sc_bound_pos *p, const struct sc_design *d, struct sc_design_bound *b, int c)
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
        n += sc_complex_at(p, b->cx, c);
    for (int i = 0; i < b->nadders; i++) {
        const struct sc_adder *a = &b->adders[i];
        if (a->cell == c || (a->kind == SC_COND_ADJACENT && sc_distance(a->cell, c) != 1) ||
            (a->kind == SC_COND_WITHIN && sc_distance(a->cell, c) > a->n))
            continue;
        n += a->amount;
    }
    if (!b->by_cell)
        return n;
    return n + (b->cell_part[c] >= 0 ? b->cell_part[c] : sc_by_cell(p, d, b, c));
}

#endif
