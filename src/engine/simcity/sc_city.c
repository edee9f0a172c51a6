/* sc_city.c: SimCity's shared city — the stacks of cards on the surface, the services that join
 * its blocks (road and rail by edges, power by neighbours), the card interpreter's queries
 * (selectors, conditions, coverage, protection), where a block may go (new, upgrade, rezone;
 * phases, sims, the specials' restrictions and limits, events that forbid), and the phases.
 * Every query reads a struct sc_view: the city with one cell changed, so that a play is judged
 * as if it were made, without making it. What a play scores is sc_score.c. */
#include <string.h>

#include "sc_internal.h"

/* ---- the surface ---------------------------------------------------------------------------- */

static const uint8_t edge_bit[4] = {SC_EDGE_N, SC_EDGE_E, SC_EDGE_S, SC_EDGE_W};

/* The cell beside `cell` in direction dir (0 N, 1 E, 2 S, 3 W), or -1 off the surface. */
static inline __attribute__((always_inline)) int step_to(const struct sc_game *g, int cell, int dir)
{
    unsigned u = (unsigned)cell; /* (a cell, never negative: unsigned division is cheaper) */
    int x = (int)(u % SC_STRIDE) + (dir == 1) - (dir == 3);
    int y = (int)(u / SC_STRIDE) + (dir == 2) - (dir == 0);
    return sc_cell(g, x, y);
}

int sc_neighbours(const struct sc_game *g, int cell, int *out)
{
    int x = (int)((unsigned)cell % SC_STRIDE), y = (int)((unsigned)cell / SC_STRIDE), n = 0;
    if (y > 0)
        out[n++] = (uint8_t)(cell - SC_STRIDE);
    if (x + 1 < g->side)
        out[n++] = (uint8_t)(cell + 1);
    if (y + 1 < g->side)
        out[n++] = (uint8_t)(cell + SC_STRIDE);
    if (x > 0)
        out[n++] = (uint8_t)(cell - 1);
    return n;
}

int sc_block_at(const struct sc_game *g, int x, int y)
{
    int c = sc_cell(g, x, y);
    return c < 0 ? SC_NONE : g->block[c];
}

static uint8_t edges(const struct sc_design *d, int svc)
{
    return svc == SC_SVC_ROAD ? d->road : d->rail;
}

/* True when a (at some cell) and b (beside it in direction dir) are joined by service svc. */
static inline __attribute__((always_inline)) bool
joined(const struct sc_design *a, const struct sc_design *b, int svc, int dir)
{
    if (!a || !b)
        return false;
    if (svc == SC_SVC_POWER)
        return a->power && b->power;
    return (edges(a, svc) & edge_bit[dir]) && (edges(b, svc) & edge_bit[(dir + 2) % 4]);
}

/* The cells joined to `start` by service svc in view v, start first (none when start holds no
 * block), into cells; returns how many. */
int sc_component(const struct sc_view *v, int svc, int start, uint8_t *cells)
{
    bool seen[SC_CELLS] = {false};
    if (!sc_view_at(v, start))
        return 0;
    int n = 0;
    cells[n++] = (uint8_t)start;
    seen[start] = true;
    for (int i = 0; i < n; i++) {
        int c = cells[i];
        const struct sc_design *a = sc_view_at(v, c);
        for (int dir = 0; dir < 4; dir++) {
            int nb = step_to(v->g, c, dir);
            if (nb < 0 || seen[nb] || !joined(a, sc_view_at(v, nb), svc, dir))
                continue;
            seen[nb] = true;
            cells[n++] = (uint8_t)nb;
        }
    }
    return n;
}

/* The sims provided by the blocks of cells[0..n-1], each counted once. */
static int provided(const struct sc_view *v, const uint8_t *cells, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++) {
        const struct sc_design *d = sc_view_at(v, cells[i]);
        sum += d && d->sims > 0 ? d->sims : 0;
    }
    return sum;
}

/* True when design d has service svc (road or rail edges, or a power line). */
static bool has_service(const struct sc_design *d, int svc)
{
    return svc == SC_SVC_POWER ? d->power : edges(d, svc) != 0;
}

/* Numbers the networks of service svc in the city: each block's, the cells of each, in the
 * order of their first cell, and the sims each network's providers give. */
static void scan_nets(const struct sc_game *g, struct sc_scan *s, int svc)
{
    int nets = 0, at = 0;
    uint8_t *cells = s->netcells[svc];
    for (int c = 0; c < SC_CELLS; c++) {
        int b = g->block[c];
        if (b == SC_NONE || s->net[svc][c] != SC_NONE || !has_service(sc_design_of(g, b), svc))
            continue;
        s->first[svc][nets] = (uint8_t)at;
        int start = at, sims = 0;
        cells[at++] = (uint8_t)c;
        s->net[svc][c] = (uint8_t)nets;
        for (int i = start; i < at; i++) {
            int q = cells[i];
            const struct sc_design *a = sc_design_of(g, g->block[q]);
            sims += a->sims > 0 ? a->sims : 0;
            for (int dir = 0; dir < 4; dir++) {
                int nb = step_to(g, q, dir);
                if (nb < 0 || s->net[svc][nb] != SC_NONE || g->block[nb] == SC_NONE ||
                    !joined(a, sc_design_of(g, g->block[nb]), svc, dir))
                    continue;
                s->net[svc][nb] = (uint8_t)nets;
                cells[at++] = (uint8_t)nb;
            }
        }
        s->sims[svc][nets++] = (int16_t)sims;
    }
    s->first[svc][nets] = (uint8_t)at;
}

static bool never_built(const struct sc_game *g);

void sc_scan_city(const struct sc_game *g, struct sc_scan *s)
{
    memset(s->net, SC_NONE, sizeof s->net);
    for (int svc = 0; svc < SC_SVC_COUNT; svc++)
        scan_nets(g, s, svc);
    memset(s->power_providers, 0, sizeof s->power_providers);
    memset(s->nproviders, 0, sizeof s->nproviders);
    s->nadders = s->nremotes = s->ncands = s->nblocks = 0;
    s->min_crime = 0;
    s->zone_done = 0;
    memset(s->pieces_done, 0, sizeof s->pieces_done);
    memset(s->walked, 0, sizeof s->walked);
    /* a block may go on a block, or on an empty cell beside one (in a city emptied by events:
     * anywhere; in one never built: the centre) */
    bool cand[SC_CELLS];
    memset(cand, g->nblocks == 0, sizeof cand);
    if (g->nblocks == 0 && never_built(g)) {
        memset(cand, 0, sizeof cand);
        cand[sc_cell(g, g->side / 2, g->side / 2)] = true;
    }
    SC_FOR_CELLS(g, c)
    {
        int b = g->block[c];
        if (b == SC_NONE)
            continue;
        const struct sc_design *d = sc_design_of(g, b);
        s->blocks[s->nblocks++] = (uint8_t)c;
        s->min_crime = d->crime < s->min_crime ? d->crime : s->min_crime;
        bool adds = false;
        for (int i = 0; i < d->nspecials; i++) {
            const struct sc_special *sp = &d->specials[i];
            adds = adds || sp->prim == SC_SP_ADD;
            if (sp->prim != SC_SP_COVERAGE || sc_coverage_of(d, sp->cover) != sp)
                continue; /* (a design's first special of each coverage counts) */
            s->providers[sp->cover][s->nproviders[sp->cover]++] = (uint8_t)c;
            if (sp->cover == SC_COVER_POWER && s->net[SC_SVC_POWER][c] != SC_NONE)
                s->power_providers[s->net[SC_SVC_POWER][c]]++;
        }
        if (adds)
            s->adders[s->nadders++] = (uint8_t)c;
        if (d->complex >= 0 && d->cwithin)
            s->remotes[s->nremotes++] = (uint8_t)c;
        cand[c] = true;
        int nb[4], m = sc_neighbours(g, c, nb);
        for (int k = 0; k < m; k++)
            cand[nb[k]] = true;
    }
    SC_FOR_CELLS(g, c)
    {
        if (cand[c])
            s->cands[s->ncands++] = (uint8_t)c;
    }
    for (int k = 0; k < SC_COVER_COUNT; k++)
        sc_covered_map_scan(g, k, s->covered[k], s);
}

int sc_scan_nets(const struct sc_game *g, const struct sc_scan *s, int c, const struct sc_design *d,
                 int svc, uint8_t *nets)
{
    const struct sc_design *old = g->block[c] == SC_NONE ? NULL : sc_design_of(g, g->block[c]);
    int n = 0;
    if (svc == SC_SVC_POWER) {
        if (!d->power)
            return 0;
        if (old && old->power) {
            nets[0] = s->net[svc][c]; /* every powered neighbour is in it already */
            return 1;
        }
    } else {
        uint8_t had = old ? edges(old, svc) : 0;
        if (!edges(d, svc))
            return 0;
        if (had && (edges(d, svc) & had) != had)
            return -1;
        if (had)
            nets[n++] = s->net[svc][c];
    }
    for (int dir = 0; dir < 4; dir++) {
        int nb = step_to(g, c, dir);
        if (nb < 0 || g->block[nb] == SC_NONE || s->net[svc][nb] == SC_NONE ||
            !joined(d, sc_design_of(g, g->block[nb]), svc, dir))
            continue;
        int net = s->net[svc][nb];
        bool dup = false;
        for (int k = 0; k < n; k++)
            dup = dup || nets[k] == net;
        if (!dup)
            nets[n++] = (uint8_t)net;
    }
    return n;
}

/* Walks each network of road or rail svc depth first (Tarjan's articulation points): a cell's
 * child whose subtree reaches no higher than the cell is cut off when the cell goes. */
static void scan_walk(const struct sc_game *g, struct sc_scan *s, int svc)
{
    uint8_t *order = s->order[svc], *low = s->low[svc], *parent = s->parent[svc];
    uint8_t *last = s->last[svc];
    int16_t *sub = s->subtree[svc];
    bool seen[SC_CELLS] = {false};
    uint8_t stack[SC_CELLS], next[SC_CELLS];
    int t = 0;
    for (int root = 0; root < SC_CELLS; root++) {
        if (s->net[svc][root] == SC_NONE || seen[root])
            continue;
        int top = 0;
        stack[top++] = (uint8_t)root;
        seen[root] = true;
        parent[root] = SC_NONE;
        order[root] = low[root] = (uint8_t)t++;
        next[root] = 0;
        const struct sc_design *r = sc_design_of(g, g->block[root]);
        sub[root] = (int16_t)(r->sims > 0 ? r->sims : 0);
        while (top > 0) {
            int q = stack[top - 1];
            if (next[q] < 4) {
                int dir = next[q]++, nb = step_to(g, q, dir);
                if (nb < 0 || g->block[nb] == SC_NONE ||
                    !joined(sc_design_of(g, g->block[q]), sc_design_of(g, g->block[nb]), svc, dir))
                    continue;
                if (!seen[nb]) {
                    seen[nb] = true;
                    parent[nb] = (uint8_t)q;
                    order[nb] = low[nb] = (uint8_t)t++;
                    next[nb] = 0;
                    const struct sc_design *e = sc_design_of(g, g->block[nb]);
                    sub[nb] = (int16_t)(e->sims > 0 ? e->sims : 0);
                    stack[top++] = (uint8_t)nb;
                } else if (nb != parent[q] && order[nb] < low[q]) {
                    low[q] = order[nb];
                }
                continue;
            }
            top--;
            last[q] = (uint8_t)(t - 1);
            int p = parent[q];
            if (p != SC_NONE) {
                low[p] = low[q] < low[p] ? low[q] : low[p];
                sub[p] = (int16_t)(sub[p] + sub[q]);
            }
        }
    }
    s->walked[svc] = true;
}

/* The pieces road or rail network svc falls into at c's neighbours when c's block is gone
 * (worked out once per cell and position, from the walk): each child of c that the walk cut
 * off is a piece of its own (its id: its direction), everything else of the network is one
 * (id 4), with what remains of the sims. */
static void scan_pieces(const struct sc_game *g, struct sc_scan *s, int svc, int c)
{
    if (!s->walked[svc])
        scan_walk(g, s, svc);
    const uint8_t *order = s->order[svc], *last = s->last[svc];
    int8_t *piece = s->piece[svc][c];
    int16_t *sims = s->piece_sims[svc][c];
    const struct sc_design *old = sc_design_of(g, g->block[c]);
    int cn = s->net[svc][c], cut[4], ncut = 0;
    int rest = s->sims[svc][cn] - (old->sims > 0 ? old->sims : 0);
    for (int dir = 0; dir < 4; dir++) {
        int nb = step_to(g, c, dir);
        if (nb >= 0 && s->net[svc][nb] == cn && s->parent[svc][nb] == c &&
            s->low[svc][nb] >= order[c]) {
            cut[ncut++] = dir;
            rest -= s->subtree[svc][nb];
        }
    }
    for (int dir = 0; dir < 4; dir++) {
        int nb = step_to(g, c, dir);
        piece[dir] = -1;
        sims[dir] = 0;
        if (nb < 0 || s->net[svc][nb] != cn)
            continue;
        piece[dir] = 4;
        sims[dir] = (int16_t)rest;
        for (int k = 0; k < ncut; k++) {
            int ch = step_to(g, c, cut[k]);
            if (order[nb] >= order[ch] && order[nb] <= last[ch]) {
                piece[dir] = (int8_t)cut[k];
                sims[dir] = s->subtree[svc][ch];
            }
        }
    }
    s->pieces_done[svc][c] = true;
}

/* Adds id to ids[0..*n-1] unless it is there; true when it was added. */
static bool add_once(int *ids, int *n, int id)
{
    for (int k = 0; k < *n; k++)
        if (ids[k] == id)
            return false;
    ids[(*n)++] = id;
    return true;
}

/* Whether design d at c gets `need` sims by service svc when it does not keep every route of
 * the block it covers (own: by its own edges, summed; else from one neighbour's network): the
 * networks beside c that do not pass through it count whole; the one that does falls into
 * pieces without c, and is one piece when c has one neighbour in it. */
static bool routes_without(const struct sc_game *g, struct sc_scan *s, int c,
                           const struct sc_design *d, int svc, int need, bool own)
{
    const struct sc_design *old = sc_design_of(g, g->block[c]);
    int cn = s->net[svc][c], inside = 0;
    int rest = s->sims[svc][cn] - (old->sims > 0 ? old->sims : 0);
    for (int dir = 0; dir < 4; dir++) {
        int nb = step_to(g, c, dir);
        inside += nb >= 0 && s->net[svc][nb] == cn;
    }
    /* (without its own edges, pieces of less than `need` need no tracing) */
    bool split = inside >= 2 && (own || rest >= need);
    if (split && !s->pieces_done[svc][c])
        scan_pieces(g, s, svc, c);
    int ids[4], nids = 0, sum = 0;
    for (int dir = 0; dir < 4; dir++) {
        int nb = step_to(g, c, dir);
        if (nb < 0 || g->block[nb] == SC_NONE || s->net[svc][nb] == SC_NONE)
            continue;
        int net = s->net[svc][nb], val, id;
        if (net != cn) {
            val = s->sims[svc][net];
            id = 8 + net;
        } else if (!split) {
            val = inside >= 2 ? 0 : rest; /* too little alone, or c's only neighbour in it */
            id = inside >= 2 ? 8 + SC_CELLS + dir : 0;
        } else {
            val = s->piece_sims[svc][c][dir];
            id = s->piece[svc][c][dir];
        }
        if (!own) {
            if (val >= need)
                return true;
            continue;
        }
        if (joined(d, sc_design_of(g, g->block[nb]), svc, dir) && add_once(ids, &nids, id))
            sum += val;
    }
    return own && sum >= need;
}

/* sims_met() of block d at cell c from the scan's networks. On an empty cell nothing passes through
 * c, so d's road (or rail) joins the networks of the neighbours it meets, each counted once. On a
 * block, the same holds for a service the old block lacked; for one it had, d keeping all its edges
 * keeps every route through c, and joins more; the old block's own sims are gone. Else the routes
 * are read from the pieces the old block's network falls into without it. */
static bool sims_met_scan(const struct sc_game *g, struct sc_scan *s, int c,
                          const struct sc_design *d)
{
    int need = -d->sims;
    const struct sc_design *old = g->block[c] == SC_NONE ? NULL : sc_design_of(g, g->block[c]);
    bool own = d->road || d->rail;
    for (int svc = SC_SVC_ROAD; svc <= SC_SVC_RAIL; svc++) {
        uint8_t had = old ? edges(old, svc) : 0;
        if (had && (!own || (edges(d, svc) & had) != had)) {
            if (own && !edges(d, svc))
                continue;
            if (routes_without(g, s, c, d, svc, need, own))
                return 1;
            continue;
        }
        if (own && !edges(d, svc))
            continue;
        int seen[5], nseen = 0, sum = 0;
        if (had) {
            seen[nseen++] = s->net[svc][c];
            sum = s->sims[svc][s->net[svc][c]] - (old->sims > 0 ? old->sims : 0);
        }
        for (int dir = 0; dir < 4; dir++) {
            int nb = step_to(g, c, dir);
            if (nb < 0 || g->block[nb] == SC_NONE || s->net[svc][nb] == SC_NONE)
                continue;
            int net = s->net[svc][nb];
            if (!own) {
                if (s->sims[svc][net] >= need)
                    return 1; /* no service of its own: a road or rail block beside it */
                continue;
            }
            if (joined(d, sc_design_of(g, g->block[nb]), svc, dir) && add_once(seen, &nseen, net))
                sum += s->sims[svc][net];
        }
        if (own && sum >= need)
            return 1;
    }
    return 0;
}

/* A block requiring sims at c in view v gets them: by its own road, or all by its own rail,
 * from the providers joined to it; one with neither touches a road or rail block whose joined
 * providers (itself included) give them. */
static bool sims_met(const struct sc_view *v, int c, const struct sc_design *d,
                     struct sc_scan *scan)
{
    if (d->sims >= 0)
        return true;
    if (scan)
        return sims_met_scan(v->g, scan, c, d);
    int need = -d->sims;
    uint8_t cells[SC_CELLS];
    if (d->road || d->rail) {
        for (int svc = SC_SVC_ROAD; svc <= SC_SVC_RAIL; svc++)
            if (edges(d, svc) && provided(v, cells, sc_component(v, svc, c, cells)) >= need)
                return true;
        return false;
    }
    int nb[4], k = sc_neighbours(v->g, c, nb);
    for (int i = 0; i < k; i++) {
        const struct sc_design *e = sc_view_at(v, nb[i]);
        for (int svc = SC_SVC_ROAD; e && svc <= SC_SVC_RAIL; svc++)
            if (edges(e, svc) && provided(v, cells, sc_component(v, svc, nb[i], cells)) >= need)
                return true;
    }
    return false;
}

/* ---- selectors, conditions, coverage --------------------------------------------------------- */

bool sc_sel_match(const struct sc_game *g, const struct sc_sel *s, const struct sc_design *d)
{
    if (!d)
        return false;
    if ((s->has & SC_SEL_NAME) && d != &g->cat->designs[s->design])
        return false;
    if ((s->has & SC_SEL_ZONE) && d->zone != s->zone)
        return false;
    if ((s->has & SC_SEL_LAND) && d->land != s->land)
        return false;
    if ((s->has & SC_SEL_COMPLEX) && d->complex != s->complex)
        return false;
    if (s->has & SC_SEL_SERVICE) {
        bool has = s->service == SC_SVC_ROAD   ? d->road
                   : s->service == SC_SVC_RAIL ? d->rail
                                               : d->power;
        if (!has)
            return false;
    }
    if ((s->has & SC_SEL_PROVIDER) && d->sims <= 0)
        return false;
    if ((s->has & SC_SEL_REQUIRER) && d->sims >= 0)
        return false;
    return true;
}

/* The coverage special of kind `cover` of design d, or NULL. */
const struct sc_special *sc_coverage_of(const struct sc_design *d, int cover)
{
    for (int i = 0; d && i < d->nspecials; i++)
        if (d->specials[i].prim == SC_SP_COVERAGE && d->specials[i].cover == cover)
            return &d->specials[i];
    return NULL;
}

/* Provider at p (special s) covers target t at cell b, for the coverages judged by distance:
 * police counts the target's crime (black adds, blue subtracts), fire and phone distance
 * alone. */
bool sc_covers_at(const struct sc_special *s, int p, const struct sc_design *t, int b)
{
    int dist = sc_distance(p, b);
    if (s->cover == SC_COVER_POLICE)
        dist += t->crime;
    return dist <= s->range;
}

bool sc_covered(const struct sc_view *v, int cover, int cell)
{
    const struct sc_design *t = sc_view_at(v, cell);
    if (!t)
        return false;
    if (cover == SC_COVER_POWER) {
        if (!t->power)
            return false;
        uint8_t cells[SC_CELLS];
        int n = sc_component(v, SC_SVC_POWER, cell, cells);
        for (int i = 1; i < n; i++)
            if (sc_coverage_of(sc_view_at(v, cells[i]), SC_COVER_POWER))
                return true;
        return false;
    }
    SC_FOR_CELLS(v->g, p)
    {
        /* a station covers its own block too (distance 0), as the scoring's map counts it */
        const struct sc_special *s = sc_coverage_of(sc_view_at(v, p), cover);
        if (s && sc_covers_at(s, p, t, cell))
            return true;
    }
    return false;
}

bool sc_protected(const struct sc_game *g, int hazard, int cell)
{
    SC_FOR_CELLS(g, p)
    {
        if (g->block[p] == SC_NONE)
            continue;
        const struct sc_design *d = sc_design_of(g, g->block[p]);
        for (int i = 0; i < d->nspecials; i++)
            if (d->specials[i].prim == SC_SP_PROTECT && d->specials[i].cover == hazard &&
                sc_distance(p, cell) <= d->specials[i].range)
                return true;
    }
    return false;
}

/* How many blocks make condition k true at cell c in view v (1 or 0 for the conditions that
 * count nothing: always, city_lacks, covered). */
int sc_cond_count(const struct sc_view *v, const struct sc_cond *k, int c)
{
    return sc_cond_count_scan(v, k, c, NULL);
}

/* The blocks of selector sel joined by service svc to c in view v (c holding v->d, not
 * counted), read from the scan's networks; -1 when they cannot tell. */
static int connected_count(const struct sc_view *v, const struct sc_sel *sel, int svc, int c,
                           const struct sc_scan *s)
{
    uint8_t nets[5];
    int k = sc_scan_nets(v->g, s, c, v->d, svc, nets), n = 0;
    for (int i = 0; i < k; i++)
        for (int j = s->first[svc][nets[i]]; j < s->first[svc][nets[i] + 1]; j++) {
            int q = s->netcells[svc][j];
            if (q != c)
                n += sc_sel_match(v->g, sel, sc_design_of(v->g, v->g->block[q]));
        }
    return k < 0 ? -1 : n;
}

/* sc_covered() of cell c in view v (c holding v->d), read from the scan. */
static bool covered_scan(const struct sc_view *v, int cover, int c, const struct sc_scan *s)
{
    const struct sc_game *g = v->g;
    const struct sc_design *t = v->d;
    if (cover == SC_COVER_POWER) {
        uint8_t nets[5];
        int k = sc_scan_nets(g, s, c, t, SC_SVC_POWER, nets);
        const struct sc_design *old = g->block[c] == SC_NONE ? NULL : sc_design_of(g, g->block[c]);
        for (int i = 0; i < k; i++) {
            int n = s->power_providers[nets[i]];
            if (nets[i] == s->net[SC_SVC_POWER][c] && sc_coverage_of(old, SC_COVER_POWER))
                n--; /* the block covered over */
            if (n > 0)
                return true;
        }
        return false;
    }
    for (int i = 0; i < s->nproviders[cover]; i++) {
        int p = s->providers[cover][i];
        if (p != c && sc_covers_at(sc_coverage_of(sc_design_of(g, g->block[p]), cover), p, t, c))
            return true;
    }
    return false;
}

int sc_cond_count_scan(const struct sc_view *v, const struct sc_cond *k, int c,
                       const struct sc_scan *scan)
{
    const struct sc_game *g = v->g;
    int n = 0;
    if (scan && (v->cell != c || !v->d))
        scan = NULL;
    switch (k->kind) {
    case SC_COND_ALWAYS:
        return 1;
    case SC_COND_ADJACENT: {
        int nb[4], m = sc_neighbours(g, c, nb);
        for (int i = 0; i < m; i++)
            n += sc_sel_match(g, &k->sel, sc_view_at(v, nb[i]));
        return n;
    }
    case SC_COND_CONNECTED: {
        n = scan ? connected_count(v, &k->sel, k->n, c, scan) : -1;
        if (n >= 0)
            return n;
        n = 0;
        uint8_t cells[SC_CELLS];
        int m = sc_component(v, k->n, c, cells);
        for (int i = 1; i < m; i++)
            n += sc_sel_match(g, &k->sel, sc_view_at(v, cells[i]));
        return n;
    }
    case SC_COND_COVERED:
        return scan ? covered_scan(v, k->n, c, scan) : sc_covered(v, k->n, c);
    case SC_COND_WITHIN:
        if (scan) {
            int r = k->n, x0 = sc_x(c) - r, x1 = sc_x(c) + r, y0 = sc_y(c) - r, y1 = sc_y(c) + r;
            for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < g->side; y++)
                for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < g->side; x++) {
                    int p = y * SC_STRIDE + x;
                    if (p != c && sc_distance(p, c) <= r && g->block[p] != SC_NONE)
                        n += sc_sel_match(g, &k->sel, sc_design_of(g, g->block[p]));
                }
            return n;
        }
        break;
    default:
        if (scan) {
            for (int i = 0; i < scan->nblocks; i++) {
                int p = scan->blocks[i];
                if (p != c)
                    n += sc_sel_match(g, &k->sel, sc_design_of(g, g->block[p]));
            }
            return k->kind == SC_COND_CITY_LACKS ? n == 0 : n;
        }
        break;
    }
    SC_FOR_CELLS(g, p)
    {
        if (p != c && (k->kind != SC_COND_WITHIN || sc_distance(p, c) <= k->n))
            n += sc_sel_match(g, &k->sel, sc_view_at(v, p));
    }
    return k->kind == SC_COND_CITY_LACKS ? n == 0 : n;
}

/* ---- placement ------------------------------------------------------------------------------- */

/* d may be placed on e as an upgrade: same zone (never gold; land of the same type), keeping
 * e's roads, rails and power line and its value, and adding a service or a higher value. */
static bool is_upgrade(const struct sc_design *e, const struct sc_design *d)
{
    if (d->zone != e->zone || e->zone == SC_ZONE_SPECIAL)
        return false;
    if (e->zone == SC_ZONE_LAND && d->land != e->land)
        return false;
    if ((d->road & e->road) != e->road || (d->rail & e->rail) != e->rail ||
        (e->power && !d->power) || d->value < e->value)
        return false;
    return (d->road & ~e->road) || (d->rail & ~e->rail) || (d->power && !e->power) ||
           d->value > e->value;
}

bool sc_has_prim(const struct sc_design *d, int prim)
{
    for (int i = 0; i < d->nspecials; i++)
        if (d->specials[i].prim == prim)
            return true;
    return false;
}

/* d may cover e without a vote: e says it is rezonable, or d that it rezones such blocks. */
static bool free_rezone(const struct sc_game *g, const struct sc_design *e,
                        const struct sc_design *d)
{
    if (sc_has_prim(e, SC_SP_REZONABLE))
        return true;
    for (int i = 0; i < d->nspecials; i++)
        if (d->specials[i].prim == SC_SP_REZONES && sc_sel_match(g, &d->specials[i].sel, e))
            return true;
    return false;
}

/* True when no card has ever been placed (the first block goes in the centre). */
static bool never_built(const struct sc_game *g)
{
    SC_FOR_CELLS(g, c)
    {
        if (g->top[c] != SC_NONE)
            return false;
    }
    return true;
}

/* The chosen block of a targeted event: a block that is not land and that the event's hazard
 * may strike (for a spread, not covered by the coverage that stops it). */
static int event_target_check(const struct sc_game *g, const struct sc_design *d, int x, int y)
{
    if (!d->targeted)
        return x == -1 && y == -1 ? SC_OK : SC_ERR_BAD_TARGET;
    int c = sc_cell(g, x, y);
    if (c < 0)
        return SC_ERR_OFF_GRID;
    if (g->block[c] == SC_NONE)
        return SC_ERR_BAD_TARGET;
    const struct sc_design *t = sc_design_of(g, g->block[c]);
    if (t->zone == SC_ZONE_LAND || sc_protected(g, d->hazard, c))
        return SC_ERR_BAD_TARGET;
    struct sc_view now = {g, -1, NULL};
    for (int i = 0; i < d->neffects; i++)
        if (d->effects[i].kind == SC_EF_SPREAD && sc_covered(&now, d->effects[i].cover, c))
            return SC_ERR_BAD_TARGET;
    return SC_OK;
}

/* An event forbids placing at c now (a block of its selector beside c). */
static bool forbidden(const struct sc_game *g, int c)
{
    int nb[4], m = sc_neighbours(g, c, nb);
    for (int i = 0; i < g->ntimed; i++) {
        const struct sc_effect *e = &sc_design_of(g, g->timed[i].card)->effects[g->timed[i].effect];
        if (e->kind != SC_EF_FORBID)
            continue;
        for (int k = 0; k < m; k++)
            if (g->block[nb[k]] != SC_NONE &&
                sc_sel_match(g, &e->sel, sc_design_of(g, g->block[nb[k]])))
                return true;
    }
    return false;
}

/* The checks of a block d at cell c, not of the hand or the phase. */
static int block_check(const struct sc_game *g, const struct sc_design *d, int c, int *mode,
                       struct sc_scan *scan)
{
    const struct sc_design *e = g->block[c] == SC_NONE ? NULL : sc_design_of(g, g->block[c]);
    if (!e) {
        if (g->nblocks == 0) {
            if (never_built(g) && c != sc_cell(g, g->side / 2, g->side / 2))
                return SC_ERR_FIRST_CELL;
        } else {
            int nb[4], m = sc_neighbours(g, c, nb);
            bool touches = false;
            for (int i = 0; i < m && !touches; i++)
                touches = g->block[nb[i]] != SC_NONE;
            if (!touches)
                return SC_ERR_NOT_ADJACENT;
        }
        *mode = SC_MODE_NEW;
    } else if (is_upgrade(e, d)) {
        *mode = SC_MODE_UPGRADE;
    } else if (free_rezone(g, e, d)) {
        *mode = SC_MODE_REZONE;
    } else if (g->mayor != SC_NONE) {
        *mode = SC_MODE_VOTE;
    } else {
        return SC_ERR_NO_REZONE;
    }
    if (g->ntimed && forbidden(g, c))
        return SC_ERR_FORBIDDEN;
    struct sc_view v = {g, c, d};
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *s = &d->specials[i];
        if (s->prim == SC_SP_MUST_COVER && !(e && sc_sel_match(g, &s->sel, e)))
            return SC_ERR_RESTRICTED;
        if (s->prim == SC_SP_ONLY_IF && sc_cond_count_scan(&v, &s->cond, c, scan) == 0)
            return SC_ERR_RESTRICTED;
        if (s->prim == SC_SP_LIMIT && scan) {
            int n = 0;
            for (int j = 0; j < scan->nblocks; j++) {
                int p = scan->blocks[j];
                n += p != c && sc_design_of(g, g->block[p]) == d &&
                     (!s->range || sc_distance(p, c) <= s->range);
            }
            if (n >= s->amount)
                return SC_ERR_LIMIT;
        } else if (s->prim == SC_SP_LIMIT) {
            int n = 0;
            SC_FOR_CELLS(g, p)
            {
                if (p != c && sc_view_at(&v, p) == d &&
                    (!s->range || sc_distance(p, c) <= s->range))
                    n++;
            }
            if (n >= s->amount)
                return SC_ERR_LIMIT;
        }
    }
    return sims_met(&v, c, d, scan) ? SC_OK : SC_ERR_SIMS;
}

int sc_design_check(const struct sc_game *g, const struct sc_design *d)
{
    if (d->kind == SC_KIND_COUNCIL)
        return SC_ERR_WRONG_CARD;
    if (d->phase > g->phase)
        return SC_ERR_PHASE;
    if ((d->phase >= 3 || d->kind == SC_KIND_EVENT) && !g->power_played && !d->power_plant)
        return SC_ERR_POWER_PLANT;
    return SC_OK;
}

int sc_card_check(const struct sc_game *g, const struct sc_design *d, int x, int y, int *mode,
                  struct sc_scan *scan)
{
    int e = sc_design_check(g, d);
    if (e != SC_OK)
        return e;
    if (d->kind == SC_KIND_EVENT) {
        *mode = SC_MODE_EVENT;
        return event_target_check(g, d, x, y);
    }
    int c = sc_cell(g, x, y);
    if (c < 0)
        return SC_ERR_OFF_GRID;
    return block_check(g, d, c, mode, scan);
}

int sc_play_check(const struct sc_game *g, int seat, int card, int x, int y, int *mode)
{
    int m = 0;
    if (card < 0 || card >= g->ncards || !sc_in_hand(g, seat, card))
        return SC_ERR_NOT_IN_HAND;
    int e = sc_card_check(g, sc_design_of(g, card), x, y, &m, sc_position_scan(g));
    if (mode)
        *mode = m;
    return e;
}

/* ---- stacks --------------------------------------------------------------------------------- */

/* Sets cell's block anew from its stack: the uppermost card not overturned. */
static void restack(struct sc_game *g, int cell)
{
    int b = g->top[cell];
    while (b != SC_NONE && (g->flags[b] & SC_CF_OVERTURNED))
        b = g->below[b];
    if ((g->block[cell] == SC_NONE) != (b == SC_NONE))
        g->nblocks = (uint8_t)(g->nblocks + (b == SC_NONE ? -1 : 1));
    g->block[cell] = (uint8_t)b;
}

void sc_city_put(struct sc_game *g, int card, int cell)
{
    g->below[card] = g->top[cell];
    g->top[cell] = (uint8_t)card;
    g->cell_of[card] = (uint8_t)cell;
    g->flags[card] = 0;
    g->scorched[cell] = false;
    restack(g, cell);
}

void sc_city_remove(struct sc_game *g, int card, const struct sc_events *ev)
{
    int cell = g->cell_of[card];
    if (g->top[cell] == card) {
        g->top[cell] = g->below[card];
    } else {
        int k = g->top[cell];
        while (g->below[k] != card)
            k = g->below[k];
        g->below[k] = g->below[card];
    }
    g->cell_of[card] = g->below[card] = SC_NONE;
    g->flags[card] = 0;
    restack(g, cell);
    g->discard[g->ndiscard++] = (uint8_t)card;
    sc_emit_at(g, ev, SC_EV_REMOVED, -1, card, sc_x(cell), sc_y(cell), false, 0, 0);
    sc_check_phases(g, ev);
}

int sc_city_destroy(struct sc_game *g, int cell, const struct sc_events *ev)
{
    int b = g->block[cell];
    if (b == SC_NONE || sc_design_of(g, b)->zone == SC_ZONE_LAND)
        return 0;
    int value = sc_design_of(g, b)->value;
    for (int k = g->top[cell]; k != SC_NONE; k = g->below[k])
        if (sc_design_of(g, k)->zone != SC_ZONE_LAND)
            g->flags[k] |= SC_CF_OVERTURNED;
    restack(g, cell);
    if (g->block[cell] == SC_NONE)
        g->scorched[cell] = true;
    sc_emit_at(g, ev, SC_EV_DESTROYED, -1, b, sc_x(cell), sc_y(cell), g->scorched[cell], value, 0);
    return value;
}

/* ---- phases --------------------------------------------------------------------------------- */

/* The zone bonus of the largest residential zone (grays wild) of at least 3 blocks, else 0. */
static int residential_bonus(const struct sc_game *g)
{
    bool done[SC_CELLS] = {false};
    int best = 0;
    SC_FOR_CELLS(g, c)
    {
        const struct sc_design *d = (g->block[c] == SC_NONE ? NULL : sc_design_of(g, g->block[c]));
        if (done[c] || !d || d->zone != SC_ZONE_RESIDENTIAL)
            continue;
        bool seen[SC_CELLS] = {false};
        uint8_t q[SC_CELLS];
        int n = 0;
        q[n++] = (uint8_t)c;
        seen[c] = done[c] = true;
        for (int i = 0; i < n; i++) {
            int nb[4], m = sc_neighbours(g, q[i], nb);
            for (int k = 0; k < m; k++) {
                const struct sc_design *e =
                    (g->block[nb[k]] == SC_NONE ? NULL : sc_design_of(g, g->block[nb[k]]));
                if (seen[nb[k]] || !e ||
                    (e->zone != SC_ZONE_RESIDENTIAL && e->zone != SC_ZONE_SERVICES))
                    continue;
                seen[nb[k]] = true;
                done[nb[k]] = done[nb[k]] || e->zone == SC_ZONE_RESIDENTIAL;
                q[n++] = (uint8_t)nb[k];
            }
        }
        best = n > best ? n : best;
    }
    return best >= SC_GROUP_MIN ? best : 0;
}

void sc_check_phases(struct sc_game *g, const struct sc_events *ev)
{
    int providers = 0, requirers = 0, sims = 0, p = g->players;
    SC_FOR_CELLS(g, c)
    {
        if (g->block[c] == SC_NONE)
            continue;
        int s = sc_design_of(g, g->block[c])->sims;
        providers += s > 0;
        requirers += s < 0;
        sims += s > 0 ? s : 0;
    }
    for (;;) {
        if (g->phase == 1 && providers >= (p > SC_VILLAGE_MIN ? p : SC_VILLAGE_MIN))
            g->phase = 2;
        else if (g->phase == 2 &&
                 requirers >= (SC_CITY_PER * p > SC_CITY_MIN ? SC_CITY_PER * p : SC_CITY_MIN))
            g->phase = 3;
        else if (g->phase == 3 &&
                 sims > (SC_METRO_PER * p > SC_METRO_MIN ? SC_METRO_PER * p : SC_METRO_MIN) -
                            residential_bonus(g))
            g->phase = 4;
        else
            break;
        g->phase_turn[g->phase] = (uint8_t)(g->round > 255 ? 255 : g->round);
        sc_emit(g, ev, SC_EV_PHASE, -1, SC_NONE, g->phase, 0);
    }
}
