/* sc_scan_update.c: SimCity's scan of a city (sc_scan.c) brought forward one step at a time
 * instead of scanned anew: the cells whose block changed, each block taken out first (its
 * networks split where they fall apart, the coverage and crime it gave forgotten) and then each
 * put in (networks joined, what was worked out near it forgotten), so that judging plays in a
 * city one step from the last one scanned starts from that scan instead of tracing the whole
 * city again (sc_scan_update() in sc_internal.h). */
#include <string.h>

#include "sc_internal.h"

/* The zone keys (sc_zone_key() bits) whose zones a block of design d (NULL: none) is part of:
 * its own key, or every key for a gray block (wild in every zone). */
static unsigned zone_keys(const struct sc_design *d)
{
    if (!d)
        return 0;
    if (d->zone == SC_ZONE_SERVICES)
        return (1u << SC_ZONE_KEYS) - 1;
    int k = sc_zone_key(d);
    return k >= 0 ? 1u << k : 0;
}

/* Forgets (-1) what by-cell table t (SC_CELLS long) holds for cell q and its neighbours. A
 * cell off the surface, or across its edge in the numbering, may be forgotten too: what is
 * forgotten is only worked out again, the same. */
static void forget_near(int16_t *t, int q)
{
    t[q] = -1;
    if (q >= SC_STRIDE)
        t[q - SC_STRIDE] = -1;
    if (q + SC_STRIDE < SC_CELLS)
        t[q + SC_STRIDE] = -1;
    if (q > 0)
        t[q - 1] = -1;
    if (q + 1 < SC_CELLS)
        t[q + 1] = -1;
}

/* The zones of key `key` once the empty cell c gets a block of that key (or gray): the zones
 * beside c and c become one zone, under the lowest of their numbers (a new number when c
 * joins none). False when numbers run out (the zones must be worked out anew). */
static bool zone_join(const struct sc_game *g, struct sc_scan *s, int key, int c)
{
    uint8_t *label = s->zone[key], *size = s->zone_size[key];
    int nb[4], m = sc_neighbours(g, c, nb), ids[4], nids = 0, sum = 1;
    for (int j = 0; j < m; j++)
        if (label[nb[j]] != SC_NONE)
            sc_add_once(ids, &nids, label[nb[j]]);
    int target = nids ? ids[0] : s->nzones[key];
    if (!nids && target >= SC_CELLS)
        return false;
    for (int k = 0; k < nids; k++) {
        target = ids[k] < target ? ids[k] : target;
        sum += size[ids[k]];
    }
    for (int k = 0; k < nids; k++) {
        if (ids[k] == target)
            continue;
        for (int i = 0; i < s->nblocks; i++)
            if (label[s->blocks[i]] == ids[k])
                label[s->blocks[i]] = (uint8_t)target;
        size[ids[k]] = 0;
    }
    if (!nids)
        s->nzones[key]++;
    label[c] = (uint8_t)target;
    size[target] = (uint8_t)sum;
    s->zone_most[key] = -1;
    /* a cell's zone bonus reads its own zone, or its neighbours' zones: only the cells of the
     * joined zone and their neighbours read a zone that changed (forgotten as forget_near()
     * forgets a reach) */
    int16_t *bonus = s->zone_bonus[key];
    for (int i = 0; i < s->nblocks; i++)
        if (label[s->blocks[i]] == target)
            forget_near(bonus, s->blocks[i]);
    return true;
}

/* Forgets the reach of cell q and of its neighbours (sc_scan_reach() reads q's network). */
static void forget_reach_near(struct sc_scan *s, int q)
{
    forget_near(s->reach, q);
}

/* Puts cell c in (in) or out of the ascending list[0..*n-1]. */
static void list_set(uint8_t *list, uint8_t *n, int c, bool in)
{
    int at = 0, hi = *n; /* (the first place not below c, by halves) */
    while (at < hi) {
        int mid = (at + hi) / 2;
        if (list[mid] < c)
            at = mid + 1;
        else
            hi = mid;
    }
    bool there = at < *n && list[at] == c;
    if (in && !there) {
        memmove(list + at + 1, list + at, (size_t)(*n - at));
        list[at] = (uint8_t)c;
        (*n)++;
    } else if (!in && there) {
        memmove(list + at, list + at + 1, (size_t)(*n - at - 1));
        (*n)--;
    }
}

/* Whether design d counts in the scan's power providers of its network: a power line and a
 * power coverage. */
static bool power_provider(const struct sc_design *d)
{
    return d && d->power && sc_coverage_of(d, SC_COVER_POWER);
}

/* Lists each network of service svc's cells again (netcells, first), in reading order. */
static void sort_nets(struct sc_scan *s, int svc)
{
    const uint8_t *net = s->net[svc];
    int count[SC_CELLS + 1] = {0}, nn = s->nnets[svc];
    for (int i = 0; i < s->nblocks; i++)
        if (net[s->blocks[i]] != SC_NONE)
            count[net[s->blocks[i]] + 1]++;
    for (int k = 0; k < nn; k++)
        count[k + 1] += count[k];
    for (int k = 0; k <= nn; k++)
        s->first[svc][k] = (uint8_t)count[k];
    for (int i = 0; i < s->nblocks; i++) {
        int q = s->blocks[i];
        if (net[q] != SC_NONE)
            s->netcells[svc][count[net[q]]++] = (uint8_t)q;
    }
}

/* The networks of service svc once c holds d instead of e (d keeping e's service svc): the
 * networks d joins become one, with their sims and power providers, e's replaced by d's.
 * Returns true when a network changed beyond c's own cell (networks joined, or its sims). */
static bool update_nets(const struct sc_game *g, struct sc_scan *s, int svc, int c,
                        const struct sc_design *e, const struct sc_design *d, const uint8_t *blk)
{
    uint8_t *net = s->net[svc];
    bool had = e && sc_has_service(e, svc);
    int ids[5], nids = 0;
    if (had)
        ids[nids++] = net[c];
    for (int dir = 0; dir < 4; dir++) {
        int nb = sc_step_to(g, c, dir);
        if (nb >= 0 && blk[nb] != SC_NONE && net[nb] != SC_NONE &&
            sc_joined(d, sc_design_of(g, blk[nb]), svc, dir))
            sc_add_once(ids, &nids, net[nb]);
    }
    int target = nids ? ids[0] : s->nnets[svc]++, sims = 0, pp = 0;
    for (int k = 0; k < nids; k++) {
        target = ids[k] < target ? ids[k] : target;
        sims += s->sims[svc][ids[k]];
        pp += s->power_providers[ids[k]] * (svc == SC_SVC_POWER);
    }
    int delta = (d->sims > 0 ? d->sims : 0) - (had && e->sims > 0 ? e->sims : 0);
    sims += delta;
    if (svc == SC_SVC_POWER)
        pp += power_provider(d) - (had && power_provider(e));
    for (int k = 0; k < nids; k++) {
        if (ids[k] == target)
            continue;
        for (int j = s->first[svc][ids[k]]; j < s->first[svc][ids[k] + 1]; j++)
            net[s->netcells[svc][j]] = (uint8_t)target;
        s->sims[svc][ids[k]] = 0;
        if (svc == SC_SVC_POWER)
            s->power_providers[ids[k]] = 0;
    }
    net[c] = (uint8_t)target;
    s->sims[svc][target] = (int16_t)sims;
    if (svc == SC_SVC_POWER)
        s->power_providers[target] = (uint8_t)pp;
    /* each network's cells: c joins one network, or makes a new one, by a move of the lists
     * after it (the order of a network's cells does not matter); else all again, in reading
     * order */
    int nn = s->nnets[svc];
    uint8_t *first = s->first[svc], *cells = s->netcells[svc];
    if (nids == 1 && had)
        return delta != 0; /* (c was in it already) */
    if (nids == 0) {       /* (target is the new last number: its list goes at the end) */
        cells[first[target]] = (uint8_t)c;
        first[target + 1] = (uint8_t)(first[target] + 1);
        return false;
    }
    if (nids == 1) {
        int at = first[target + 1];
        memmove(cells + at + 1, cells + at, (size_t)(first[nn] - at));
        cells[at] = (uint8_t)c;
        for (int k = target + 1; k <= nn; k++)
            first[k]++;
        return delta != 0;
    }
    sort_nets(s, svc);
    return true;
}

/* The networks of service svc once c's block (which has that service) is gone from the city
 * blk (already without it): its network falls into the pieces its other cells make, the
 * first keeping its number, each other getting a new one. False when numbers run out. */
static bool split_net(const struct sc_game *g, struct sc_scan *s, int svc, int c,
                      const uint8_t *blk)
{
    uint8_t *net = s->net[svc], old[SC_CELLS], q[SC_CELLS];
    int k = net[c], n = 0, nn = s->nnets[svc]; /* (nn: the numbers before the split) */
    for (int j = s->first[svc][k]; j < s->first[svc][k + 1]; j++)
        if (s->netcells[svc][j] != c)
            old[n++] = s->netcells[svc][j];
    net[c] = SC_NONE;
    for (int i = 0; i < n; i++)
        net[old[i]] = SC_NONE;
    s->sims[svc][k] = 0;
    if (svc == SC_SVC_POWER)
        s->power_providers[k] = 0;
    bool fresh = false; /* (number k is taken by the first piece) */
    for (int i = 0; i < n; i++) {
        if (net[old[i]] != SC_NONE)
            continue;
        int id = k;
        if (fresh) {
            if (s->nnets[svc] >= SC_CELLS - 1)
                return false;
            id = s->nnets[svc]++;
        }
        fresh = true;
        int m = 0, sims = 0, pp = 0;
        q[m++] = old[i];
        net[old[i]] = (uint8_t)id;
        for (int j = 0; j < m; j++) {
            const struct sc_design *a = sc_design_of(g, blk[q[j]]);
            sims += a->sims > 0 ? a->sims : 0;
            pp += power_provider(a);
            for (int dir = 0; dir < 4; dir++) {
                int nb = sc_step_to(g, q[j], dir);
                if (nb < 0 || blk[nb] == SC_NONE || net[nb] != SC_NONE ||
                    !sc_joined(a, sc_design_of(g, blk[nb]), svc, dir))
                    continue;
                net[nb] = (uint8_t)id;
                q[m++] = (uint8_t)nb;
            }
        }
        s->sims[svc][id] = (int16_t)sims;
        if (svc == SC_SVC_POWER)
            s->power_providers[id] = (uint8_t)pp;
    }
    /* the lists of cells: the first piece's where the network's were, the lists after it moved
     * up, the new pieces' at the end */
    uint8_t *first = s->first[svc], *cells = s->netcells[svc];
    int w = first[k], end = first[k + 1], total = first[nn];
    for (int i = 0; i < n; i++)
        if (net[old[i]] == k)
            cells[w++] = old[i];
    int gap = end - w;
    memmove(cells + w, cells + end, (size_t)(total - end));
    for (int j = k + 1; j <= nn; j++)
        first[j] = (uint8_t)(first[j] - gap);
    w = first[nn];
    for (int id = nn; id < s->nnets[svc]; id++) {
        first[id] = (uint8_t)w;
        for (int i = 0; i < n; i++)
            if (net[old[i]] == id)
                cells[w++] = old[i];
    }
    first[s->nnets[svc]] = (uint8_t)w;
    /* a cell's reach reads its own and its neighbours' networks: those of e's network's cells */
    if (svc != SC_SVC_POWER)
        for (int i = 0; i < n; i++)
            forget_reach_near(s, old[i]);
    return true;
}

/* The lowest crime of the blocks of the city blk (0 at most). */
static int8_t lowest_crime(const struct sc_game *g, const struct sc_scan *s, const uint8_t *blk)
{
    int low = 0;
    for (int i = 0; i < s->nblocks; i++) {
        int crime = sc_design_of(g, blk[s->blocks[i]])->crime;
        low = crime < low ? crime : low;
    }
    return (int8_t)low;
}

/* Whether empty cell c of the city blk is a candidate: a block beside it. */
static bool beside_block(const struct sc_game *g, int c, const uint8_t *blk)
{
    int nb[4], m = sc_neighbours(g, c, nb);
    for (int j = 0; j < m; j++)
        if (blk[nb[j]] != SC_NONE)
            return true;
    return false;
}

/* Takes c's block e out of s, the scan of the city blk (whose c is already empty). False when
 * s cannot follow (s unusable). */
static bool scan_remove(const struct sc_game *g, struct sc_scan *s, int c,
                        const struct sc_design *e, const uint8_t *blk)
{
    list_set(s->blocks, &s->nblocks, c, false);
    if (s->nblocks == 0)
        return false; /* (every empty cell becomes a candidate: scanned anew) */
    for (int svc = 0; svc < SC_SVC_COUNT; svc++)
        if (sc_has_service(e, svc) && !split_net(g, s, svc, c, blk))
            return false;
    for (int k = 0; k < SC_COVER_COUNT; k++)
        if (sc_coverage_of(e, k))
            list_set(s->providers[k], &s->nproviders[k], c, false);
    if (e->crime <= s->min_crime)
        s->min_crime = lowest_crime(g, s, blk);
    if (sc_has_prim(e, SC_SP_ADD))
        list_set(s->adders, &s->nadders, c, false);
    if (e->complex >= 0 && e->cwithin)
        list_set(s->remotes, &s->nremotes, c, false);
    list_set(s->cands, &s->ncands, c, beside_block(g, c, blk));
    int nb[4], m = sc_neighbours(g, c, nb);
    for (int j = 0; j < m; j++)
        if (blk[nb[j]] == SC_NONE)
            list_set(s->cands, &s->ncands, nb[j], beside_block(g, nb[j], blk));
    /* e's zones may fall apart: worked out anew when asked for */
    s->zone_done &= (uint16_t)~zone_keys(e);
    forget_reach_near(s, c);
    return true;
}

/* Brings s from the city blk to the one where c holds d instead of e (NULL: c was empty), d
 * keeping e's road and rail edges and power line; blk[c] becomes g's block. */
static void scan_put(const struct sc_game *g, struct sc_scan *s, int c, const struct sc_design *e,
                     const struct sc_design *d, uint8_t *blk)
{
    blk[c] = g->block[c];
    if (!e)
        list_set(s->blocks, &s->nblocks, c, true);
    bool spread[SC_SVC_COUNT] = {false};
    for (int svc = 0; svc < SC_SVC_COUNT; svc++)
        if (sc_has_service(d, svc))
            spread[svc] = update_nets(g, s, svc, c, e, d, blk);
    for (int k = 0; k < SC_COVER_COUNT; k++)
        if ((sc_coverage_of(d, k) != NULL) != (sc_coverage_of(e, k) != NULL))
            list_set(s->providers[k], &s->nproviders[k], c, sc_coverage_of(d, k) != NULL);
    if (e && e->crime <= s->min_crime && d->crime > e->crime) /* (the lowest may have gone) */
        s->min_crime = lowest_crime(g, s, blk);
    else if (d->crime < s->min_crime)
        s->min_crime = (int8_t)d->crime;
    bool adds = sc_has_prim(d, SC_SP_ADD), remote = d->complex >= 0 && d->cwithin;
    if (adds != (e && sc_has_prim(e, SC_SP_ADD)))
        list_set(s->adders, &s->nadders, c, adds);
    if (remote != (e && e->complex >= 0 && e->cwithin))
        list_set(s->remotes, &s->nremotes, c, remote);
    if (!e) {
        list_set(s->cands, &s->ncands, c, true);
        int nb[4], m = sc_neighbours(g, c, nb);
        for (int j = 0; j < m; j++)
            if (blk[nb[j]] == SC_NONE) /* (a block's cell is one already) */
                list_set(s->cands, &s->ncands, nb[j], true);
    }
    /* a zone changes only when the block joins it or leaves it: a new block joins the zones
     * beside it; an upgrade stays in the zones its block was in */
    if (!e) {
        for (int key = 0; key < SC_ZONE_KEYS; key++)
            if ((s->zone_done >> key & 1u) && (zone_keys(d) >> key & 1u) &&
                !zone_join(g, s, key, c))
                s->zone_done &= (uint16_t) ~(1u << key);
    } else if (zone_keys(d) != zone_keys(e)) {
        s->zone_done &= (uint16_t) ~(zone_keys(d) | zone_keys(e));
    }
    /* a cell's reach reads its own and its neighbours' road and rail networks and their sims:
     * only c's changed, and the networks c is now in when they joined or their sims moved */
    forget_reach_near(s, c);
    for (int svc = SC_SVC_ROAD; svc <= SC_SVC_RAIL; svc++) {
        int k = spread[svc] ? s->net[svc][c] : SC_NONE;
        for (int j = k == SC_NONE ? 0 : s->first[svc][k]; k != SC_NONE && j < s->first[svc][k + 1];
             j++)
            forget_reach_near(s, s->netcells[svc][j]);
    }
}

/* e's block gives way to d only by being taken out first: d drops some of its road or rail
 * edges or its power line (a network might fall apart), or there is no d. */
static bool taken_out(const struct sc_design *e, const struct sc_design *d)
{
    return e && (!d || (d->road & e->road) != e->road || (d->rail & e->rail) != e->rail ||
                 (e->power && !d->power));
}

enum { SC_SCAN_STEPS = 8 }; /* changed cells followed at most; more: scanned anew */

bool sc_scan_update(const struct sc_game *g, struct sc_scan *s, const uint8_t *old_block)
{
    _Static_assert(SC_CELLS % 4 == 0, "cells compared eight, then four, at a time");
    int ch[SC_SCAN_STEPS], nch = 0;
    for (int at = 0; at < SC_CELLS; at += 8) {
        uint64_t a = 0, b = 0;
        bool eight = at + 8 <= SC_CELLS;
        if (eight) {
            memcpy(&a, old_block + at, 8);
            memcpy(&b, g->block + at, 8);
        } else {
            memcpy(&a, old_block + at, 4);
            memcpy(&b, g->block + at, 4);
        }
        for (int q = at; a != b && q < at + (eight ? 8 : 4); q++) {
            if (old_block[q] == g->block[q])
                continue;
            if (nch == SC_SCAN_STEPS)
                return false;
            ch[nch++] = q;
        }
    }
    if (nch == 0)
        return true;
    if (g->nblocks == 0 || s->nblocks == 0)
        return false; /* (an empty city's candidates are every cell, or its centre) */
    for (int svc = 0; svc < SC_SVC_COUNT; svc++)
        if (s->nnets[svc] >= SC_CELLS - 1 - nch)
            return false; /* (network numbers are not reused: new ones might not fit) */
    /* one cell at a time in the city blk, from old_block's to g's: the blocks taken out first,
     * then those put in */
    uint8_t blk[SC_CELLS];
    memcpy(blk, old_block, sizeof blk);
    for (int i = 0; i < nch; i++) {
        int c = ch[i];
        const struct sc_design *e = sc_design_of_or_null(g, blk[c]);
        const struct sc_design *d = sc_design_of_or_null(g, g->block[c]);
        if (taken_out(e, d)) {
            blk[c] = SC_NONE;
            if (!scan_remove(g, s, c, e, blk))
                return false;
        }
    }
    for (int i = 0; i < nch; i++) {
        int c = ch[i];
        if (g->block[c] != SC_NONE)
            scan_put(g, s, c, sc_design_of_or_null(g, blk[c]), sc_design_of(g, g->block[c]), blk);
    }
    memset(s->pieces_done, 0, sizeof s->pieces_done);
    memset(s->walked, 0, sizeof s->walked);
    s->covered_done = 0;
    return true;
}
