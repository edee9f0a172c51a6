/* sc_scan.c: SimCity's scan of a city, worked out once per position so that judging many plays
 * in it reads tables instead of tracing the city: the road, rail and power networks (each
 * block's, each network's cells and sims), the blocks, coverage providers, adders, remote complex
 * members and candidate cells; on demand, a depth-first walk of each road and rail network and
 * the pieces it falls into without a cell; and from those, whether a block gets its sims at a
 * cell (see sc_internal.h). */
#include <string.h>

#include "sc_internal.h"

/* Numbers the networks of service svc in the city: each block's, the cells of each, in the
 * order of their first cell, and the sims each network's providers give. at[c] is the design
 * of c's block (NULL: none); s->blocks lists the blocks in reading order. */
static void scan_nets(const struct sc_game *g, struct sc_scan *s, int svc,
                      const struct sc_design *const *at)
{
    int nets = 0, n = 0;
    uint8_t *cells = s->netcells[svc], *net = s->net[svc];
    for (int i = 0; i < s->nblocks; i++) {
        int c = s->blocks[i];
        if (net[c] != SC_NONE || !sc_has_service(at[c], svc))
            continue;
        s->first[svc][nets] = (uint8_t)n;
        int start = n, sims = 0;
        cells[n++] = (uint8_t)c;
        net[c] = (uint8_t)nets;
        for (int j = start; j < n; j++) {
            int q = cells[j];
            const struct sc_design *a = at[q];
            sims += a->sims > 0 ? a->sims : 0;
            for (int dir = 0; dir < 4; dir++) {
                int nb = sc_step_to(g, q, dir);
                if (nb < 0 || net[nb] != SC_NONE || !sc_joined(a, at[nb], svc, dir))
                    continue;
                net[nb] = (uint8_t)nets;
                cells[n++] = (uint8_t)nb;
            }
        }
        s->sims[svc][nets++] = (int16_t)sims;
    }
    s->first[svc][nets] = (uint8_t)n;
    s->nnets[svc] = (uint8_t)nets;
}

void sc_scan_city(const struct sc_game *g, struct sc_scan *s)
{
    const struct sc_design *at[SC_CELLS];
    s->nblocks = 0;
    for (int c = 0; c < SC_CELLS; c++) { /* (off the surface, block[] is SC_NONE) */
        int b = g->block[c];
        at[c] = b == SC_NONE ? NULL : sc_design_of(g, b);
        if (b != SC_NONE)
            s->blocks[s->nblocks++] = (uint8_t)c;
    }
    memset(s->net, SC_NONE, sizeof s->net);
    for (int svc = 0; svc < SC_SVC_COUNT; svc++)
        scan_nets(g, s, svc, at);
    memset(s->power_providers, 0, sizeof s->power_providers);
    memset(s->nproviders, 0, sizeof s->nproviders);
    s->nadders = s->nremotes = s->ncands = 0;
    s->min_crime = 0;
    s->zone_done = 0;
    memset(s->pieces_done, 0, sizeof s->pieces_done);
    memset(s->walked, 0, sizeof s->walked);
    /* a block may go on a block, or on an empty cell beside one (in a city emptied by events:
     * anywhere; in one never built: the centre) */
    bool cand[SC_CELLS];
    memset(cand, g->nblocks == 0, sizeof cand);
    if (g->nblocks == 0 && sc_never_built(g)) {
        memset(cand, 0, sizeof cand);
        cand[sc_cell(g, g->side / 2, g->side / 2)] = true;
    }
    for (int k = 0; k < s->nblocks; k++) {
        int c = s->blocks[k];
        const struct sc_design *d = at[c];
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
        for (int j = 0; j < m; j++)
            cand[nb[j]] = true;
    }
    SC_FOR_CELLS(g, c)
    {
        if (cand[c])
            s->cands[s->ncands++] = (uint8_t)c;
    }
    s->covered_done = 0;
    memset(s->reach, 0xff, sizeof s->reach);
    s->reach_mark = 0;
    memset(s->reached_by, 0, sizeof s->reached_by);
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
        uint8_t had = old ? sc_edges(old, svc) : 0;
        if (!sc_edges(d, svc))
            return 0;
        if (had && (sc_edges(d, svc) & had) != had)
            return -1;
        if (had)
            nets[n++] = s->net[svc][c];
    }
    for (int dir = 0; dir < 4; dir++) {
        int nb = sc_step_to(g, c, dir);
        if (nb < 0 || g->block[nb] == SC_NONE || s->net[svc][nb] == SC_NONE ||
            !sc_joined(d, sc_design_of(g, g->block[nb]), svc, dir))
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
                int dir = next[q]++, nb = sc_step_to(g, q, dir);
                if (nb < 0 || g->block[nb] == SC_NONE ||
                    !sc_joined(sc_design_of(g, g->block[q]), sc_design_of(g, g->block[nb]), svc,
                               dir))
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
        int nb = sc_step_to(g, c, dir);
        if (nb >= 0 && s->net[svc][nb] == cn && s->parent[svc][nb] == c &&
            s->low[svc][nb] >= order[c]) {
            cut[ncut++] = dir;
            rest -= s->subtree[svc][nb];
        }
    }
    for (int dir = 0; dir < 4; dir++) {
        int nb = sc_step_to(g, c, dir);
        piece[dir] = -1;
        sims[dir] = 0;
        if (nb < 0 || s->net[svc][nb] != cn)
            continue;
        piece[dir] = 4;
        sims[dir] = (int16_t)rest;
        for (int k = 0; k < ncut; k++) {
            int ch = sc_step_to(g, c, cut[k]);
            if (order[nb] >= order[ch] && order[nb] <= last[ch]) {
                piece[dir] = (int8_t)cut[k];
                sims[dir] = s->subtree[svc][ch];
            }
        }
    }
    s->pieces_done[svc][c] = true;
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
        int nb = sc_step_to(g, c, dir);
        inside += nb >= 0 && s->net[svc][nb] == cn;
    }
    /* (without its own edges, pieces of less than `need` need no tracing) */
    bool split = inside >= 2 && (own || rest >= need);
    if (split && !s->pieces_done[svc][c])
        scan_pieces(g, s, svc, c);
    int ids[4], nids = 0, sum = 0;
    for (int dir = 0; dir < 4; dir++) {
        int nb = sc_step_to(g, c, dir);
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
        if (sc_joined(d, sc_design_of(g, g->block[nb]), svc, dir) && sc_add_once(ids, &nids, id))
            sum += val;
    }
    return own && sum >= need;
}

/* sims_met() of block d at cell c from the scan's networks. On an empty cell nothing passes through
 * c, so d's road (or rail) joins the networks of the neighbours it meets, each counted once. On a
 * block, the same holds for a service the old block lacked; for one it had, d keeping all its edges
 * keeps every route through c, and joins more; the old block's own sims are gone. Else the routes
 * are read from the pieces the old block's network falls into without it. */
bool sc_sims_met_scan(const struct sc_game *g, struct sc_scan *s, int c, const struct sc_design *d)
{
    int need = -d->sims;
    const struct sc_design *old = g->block[c] == SC_NONE ? NULL : sc_design_of(g, g->block[c]);
    bool own = d->road || d->rail;
    for (int svc = SC_SVC_ROAD; svc <= SC_SVC_RAIL; svc++) {
        uint8_t had = old ? sc_edges(old, svc) : 0;
        if (had && (!own || (sc_edges(d, svc) & had) != had)) {
            if (own && !sc_edges(d, svc))
                continue;
            if (routes_without(g, s, c, d, svc, need, own))
                return 1;
            continue;
        }
        if (own && !sc_edges(d, svc))
            continue;
        int seen[5], nseen = 0, sum = 0;
        if (had) {
            seen[nseen++] = s->net[svc][c];
            sum = s->sims[svc][s->net[svc][c]] - (old->sims > 0 ? old->sims : 0);
        }
        for (int dir = 0; dir < 4; dir++) {
            int nb = sc_step_to(g, c, dir);
            if (nb < 0 || g->block[nb] == SC_NONE || s->net[svc][nb] == SC_NONE)
                continue;
            int net = s->net[svc][nb];
            if (!own) {
                if (s->sims[svc][net] >= need)
                    return 1; /* no service of its own: a road or rail block beside it */
                continue;
            }
            if (sc_joined(d, sc_design_of(g, g->block[nb]), svc, dir) &&
                sc_add_once(seen, &nseen, net))
                sum += s->sims[svc][net];
        }
        if (own && sum >= need)
            return 1;
    }
    return 0;
}

int sc_scan_reach(const struct sc_game *g, struct sc_scan *s, int c)
{
    if (s->reach[c] >= 0)
        return s->reach[c];
    int q[5], n = 1 + sc_neighbours(g, c, q + 1), most = 0;
    q[0] = c;
    if (++s->reach_mark == 0) { /* (the count wrapped: older marks could match it) */
        memset(s->reached_by, 0, sizeof s->reached_by);
        s->reach_mark = 1;
    }
    for (int svc = SC_SVC_ROAD; svc <= SC_SVC_RAIL; svc++) {
        const uint8_t *net = s->net[svc];
        uint16_t *by = s->reached_by[svc];
        int sum = 0;
        for (int i = 0; i < n; i++) {
            int k = net[q[i]];
            if (k != SC_NONE && by[k] != s->reach_mark) { /* (each network once) */
                by[k] = s->reach_mark;
                sum += s->sims[svc][k];
            }
        }
        most = sum > most ? sum : most;
    }
    s->reach[c] = (int16_t)most;
    return most;
}
