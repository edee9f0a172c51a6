/* sc_score.c: what a block scores in SimCity — its value, its own receive/lose, the earlier
 * blocks' add/deduct, the zone bonus (grays wild), the complex bonus (remote and conditional
 * members), scorched earth, coverage (New Coverage Only) — and placing it: the money by source,
 * the removals it triggers, the extra play, the Mayor's share, the first Power Plant's Mayor.
 * Every figure is read on a struct sc_view of the city with the new block in place. */
#include <string.h>

#include "sc_internal.h"

/* ---- scoring ------------------------------------------------------------------------------- */

int sc_zone_key(const struct sc_design *d)
{
    if (d->zone <= SC_ZONE_INDUSTRIAL)
        return d->zone;
    if (d->zone == SC_ZONE_LAND && d->land != SC_LAND_PLAINS)
        return 3 + d->land;
    return -1;
}

/* A block of design e joins a zone of key `key`: of that key, or gray (wild). */
static bool in_zone(const struct sc_design *e, int key)
{
    return e->zone == SC_ZONE_SERVICES || sc_zone_key(e) == key;
}

/* Numbers the zones of key `key` in the city (blocks of that key or gray, joined by edges). */
static void scan_zones(const struct sc_game *g, struct sc_scan *s, int key)
{
    uint8_t *label = s->zone[key], q[SC_CELLS];
    memset(label, SC_NONE, SC_CELLS);
    int zones = 0;
    for (int i = 0; i < s->nblocks; i++) {
        int c = s->blocks[i];
        if (label[c] != SC_NONE || !in_zone(sc_design_of(g, g->block[c]), key))
            continue;
        int n = 0;
        q[n++] = (uint8_t)c;
        label[c] = (uint8_t)zones;
        for (int j = 0; j < n; j++) {
            int nb[4], m = sc_neighbours(g, q[j], nb);
            for (int k = 0; k < m; k++)
                if (label[nb[k]] == SC_NONE && g->block[nb[k]] != SC_NONE &&
                    in_zone(sc_design_of(g, g->block[nb[k]]), key)) {
                    label[nb[k]] = (uint8_t)zones;
                    q[n++] = (uint8_t)nb[k];
                }
        }
        s->zone_size[key][zones++] = (uint8_t)n;
    }
    s->nzones[key] = (uint8_t)zones;
    s->zone_most[key] = -1;
    memset(s->zone_bonus[key], 0xff, sizeof s->zone_bonus[key]);
    s->zone_done |= (uint16_t)(1u << key);
}

int sc_scan_zone(const struct sc_game *g, struct sc_scan *s, int key, int c)
{
    if (!(s->zone_done >> key & 1u))
        scan_zones(g, s, key);
    const uint8_t *label = s->zone[key];
    if (g->block[c] != SC_NONE && in_zone(sc_design_of(g, g->block[c]), key))
        return s->zone_size[key][label[c]] - 1; /* its zone's pieces all meet at c */
    int x = sc_x(c), y = sc_y(c);
    if (((y > 0 ? label[c - SC_STRIDE] : SC_NONE) & (x + 1 < g->side ? label[c + 1] : SC_NONE) &
         (y + 1 < g->side ? label[c + SC_STRIDE] : SC_NONE) & (x > 0 ? label[c - 1] : SC_NONE)) ==
        SC_NONE)
        return 0; /* (no zone beside it: the most common) */
    int nb[4], m = sc_neighbours(g, c, nb), seen[4], nseen = 0, n = 0;
    for (int k = 0; k < m; k++) {
        int z = label[nb[k]];
        bool dup = z == SC_NONE;
        for (int i = 0; i < nseen && !dup; i++)
            dup = seen[i] == z;
        if (!dup) {
            seen[nseen++] = z;
            n += s->zone_size[key][z];
        }
    }
    return n;
}

int sc_scan_zone_bonus(const struct sc_game *g, struct sc_scan *s, int key, int c)
{
    if ((s->zone_done >> key & 1u) && s->zone_bonus[key][c] >= 0)
        return s->zone_bonus[key][c];
    int n = sc_scan_zone(g, s, key, c); /* (works the zones out when they are not) */
    s->zone_bonus[key][c] = (int16_t)(n >= SC_GROUP_MIN ? n : 0);
    return s->zone_bonus[key][c];
}

int sc_scan_zone_most(const struct sc_game *g, struct sc_scan *s, int key)
{
    if (!(s->zone_done >> key & 1u))
        scan_zones(g, s, key);
    if (s->zone_most[key] >= 0)
        return s->zone_most[key];
    int nz = s->nzones[key], top[4] = {0, 0, 0, 0}; /* (a number no cell has: size 0) */
    for (int z = 0; z < nz; z++) {
        int v = s->zone_size[key][z];
        for (int k = 0; k < 4; k++)
            if (v > top[k]) {
                int t = top[k];
                top[k] = v;
                v = t;
            }
    }
    s->zone_most[key] = (int16_t)(top[0] + top[1] + top[2] + top[3]);
    return s->zone_most[key];
}

/* The blocks of key K (or gray, wild) joined to cell c through such blocks, c not counted;
 * $1 each once there are at least 3. A gray block earns no zone bonus of its own. */
static int zone_bonus(const struct sc_view *v, const struct sc_design *d, int c,
                      struct sc_scan *scan)
{
    int key = sc_zone_key(d);
    if (key < 0)
        return 0;
    if (scan)
        return sc_scan_zone_bonus(v->g, scan, key, c);
    bool seen[SC_CELLS] = {false};
    uint8_t q[SC_CELLS];
    int n = 0;
    q[n++] = (uint8_t)c;
    seen[c] = true;
    for (int i = 0; i < n; i++) {
        int nb[4], m = sc_neighbours(v->g, q[i], nb);
        for (int k = 0; k < m; k++) {
            const struct sc_design *e = sc_view_at(v, nb[k]);
            if (seen[nb[k]] || !e || !in_zone(e, key))
                continue;
            seen[nb[k]] = true;
            q[n++] = (uint8_t)nb[k];
        }
    }
    return n - 1 >= SC_GROUP_MIN ? n - 1 : 0;
}

/* The contiguous members of complex cx joined to `start` (a member), into cells. */
static int complex_group(const struct sc_view *v, int cx, int start, uint8_t *cells, bool *seen)
{
    int n = 0;
    cells[n++] = (uint8_t)start;
    seen[start] = true;
    for (int i = 0; i < n; i++) {
        int nb[4], m = sc_neighbours(v->g, cells[i], nb);
        for (int k = 0; k < m; k++) {
            const struct sc_design *e = sc_view_at(v, nb[k]);
            if (seen[nb[k]] || !e || e->complex != cx || e->cwithin)
                continue;
            seen[nb[k]] = true;
            cells[n++] = (uint8_t)nb[k];
        }
    }
    return n;
}

/* What the new member d at c is paid by the complex of group[0..n-1] (c among them when d is a
 * contiguous member): the sum of the complex numbers of its members (c's excluded), remote
 * members in range of the group among them, once they count at least 3; a conditional member
 * counts only when the complex provides sims. */
static int complex_pay(const struct sc_view *v, const struct sc_design *d, int c,
                       const uint8_t *group, int n, const struct sc_scan *scan)
{
    int cx = d->complex;
    uint8_t members[SC_CELLS];
    int m = 0;
    bool has_sims = d->sims > 0;
    for (int i = 0; i < n; i++) {
        const struct sc_design *e = sc_view_at(v, group[i]);
        has_sims = has_sims || e->sims > 0;
        if (group[i] != c)
            members[m++] = group[i];
    }
    int ncells = scan ? scan->nremotes : SC_CELLS;
    for (int k = 0; k < ncells; k++) {
        int q = scan ? scan->remotes[k] : k;
        const struct sc_design *e =
            sc_x(q) < v->g->side && sc_y(q) < v->g->side ? sc_view_at(v, q) : NULL;
        if (q == c || !e || e->complex != cx || !e->cwithin)
            continue;
        bool near = false;
        for (int i = 0; i < n && !near; i++)
            near = sc_distance(q, group[i]) <= e->cwithin;
        if (near) {
            members[m++] = (uint8_t)q;
            has_sims = has_sims || e->sims > 0;
        }
    }
    if (d->cif_sims && !has_sims)
        return 0;
    int count = 0, sum = 0;
    for (int i = 0; i < m; i++) {
        const struct sc_design *e = sc_view_at(v, members[i]);
        if (e->cif_sims && !has_sims)
            continue;
        count++;
        sum += e->cbonus;
    }
    return count >= SC_GROUP_MIN ? sum : 0;
}

static int complex_bonus(const struct sc_view *v, const struct sc_design *d, int c,
                         const struct sc_scan *scan)
{
    if (d->complex < 0)
        return 0;
    uint8_t group[SC_CELLS];
    bool seen[SC_CELLS] = {false};
    if (!d->cwithin)
        return complex_pay(v, d, c, group, complex_group(v, d->complex, c, group, seen), scan);
    /* a remote member: the best complex within its range */
    int best = 0;
    seen[c] = true;
    SC_FOR_CELLS(v->g, p)
    {
        const struct sc_design *e = sc_view_at(v, p);
        if (seen[p] || !e || e->complex != d->complex || e->cwithin)
            continue;
        int n = complex_group(v, d->complex, p, group, seen);
        bool near = false;
        for (int i = 0; i < n && !near; i++)
            near = sc_distance(c, group[i]) <= d->cwithin;
        int pay = near ? complex_pay(v, d, c, group, n, scan) : 0;
        best = pay > best ? pay : best;
    }
    return best;
}

/* Marks the cells provider d at c covers with coverage s in view v (not c itself). */
static void mark_cover(const struct sc_view *v, const struct sc_special *s, int c, bool *out)
{
    if (s->cover == SC_COVER_POWER) {
        uint8_t cells[SC_CELLS];
        int n = sc_component(v, SC_SVC_POWER, c, cells);
        for (int i = 1; i < n; i++)
            out[cells[i]] = true;
        return;
    }
    SC_FOR_CELLS(v->g, b)
    {
        const struct sc_design *t = sc_view_at(v, b);
        if (b != c && t && sc_covers_at(s, c, t, b))
            out[b] = true;
    }
}

/* Marks in out[] every cell a provider of coverage `cover` covers in the city as it is, the
 * providers themselves included. */
void sc_covered_map(const struct sc_game *g, int cover, bool *out)
{
    struct sc_view now = {g, -1, NULL};
    memset(out, 0, SC_CELLS * sizeof *out);
    SC_FOR_CELLS(g, p)
    {
        const struct sc_special *t = sc_coverage_of(sc_view_at(&now, p), cover);
        if (t) {
            out[p] = true; /* a provider counts as covered */
            mark_cover(&now, t, p, out);
        }
    }
}

/* How far from a provider of special s a block may be covered: its range, and for police the
 * lowest crime in the city (blue crime reaches further). */
static int cover_reach(const struct sc_special *s, const struct sc_scan *scan)
{
    return s->range - (s->cover == SC_COVER_POLICE ? scan->min_crime : 0);
}

void sc_covered_map_scan(const struct sc_game *g, int cover, bool *out, const struct sc_scan *s)
{
    memset(out, 0, SC_CELLS * sizeof *out);
    for (int i = 0; i < s->nproviders[cover]; i++) {
        int p = s->providers[cover][i];
        const struct sc_design *d = sc_design_of(g, g->block[p]);
        const struct sc_special *t = sc_coverage_of(d, cover);
        out[p] = true; /* a provider counts as covered */
        if (cover == SC_COVER_POWER) {
            int net = s->net[SC_SVC_POWER][p];
            for (int j = d->power ? s->first[SC_SVC_POWER][net] : 0;
                 d->power && j < s->first[SC_SVC_POWER][net + 1]; j++)
                out[s->netcells[SC_SVC_POWER][j]] = true;
            continue;
        }
        int r = cover_reach(t, s), x0 = sc_x(p) - r, y0 = sc_y(p) - r;
        for (int y = y0 < 0 ? 0 : y0; y <= sc_y(p) + r && y < g->side; y++)
            for (int x = x0 < 0 ? 0 : x0; x <= sc_x(p) + r && x < g->side; x++) {
                int b = y * SC_STRIDE + x;
                if (b != p && g->block[b] != SC_NONE &&
                    sc_covers_at(t, p, sc_design_of(g, g->block[b]), b))
                    out[b] = true;
            }
    }
}

/* What coverage special s of d at c pays, read from the scan: `amount` a block it covers (not
 * c), or, New Coverage Only, a block no provider of its kind covered before the play. */
static int coverage_pay_scan(const struct sc_view *v, const struct sc_special *s, int c,
                             struct sc_scan *scan)
{
    const struct sc_game *g = v->g;
    if (s->new_only && !(scan->covered_done >> s->cover & 1u)) {
        sc_covered_map_scan(g, s->cover, scan->covered[s->cover], scan);
        scan->covered_done = (uint8_t)(scan->covered_done | 1u << s->cover);
    }
    const bool *old = s->new_only ? scan->covered[s->cover] : NULL;
    int n = 0;
    if (s->cover == SC_COVER_POWER) {
        uint8_t nets[5];
        int k = sc_scan_nets(g, scan, c, v->d, SC_SVC_POWER, nets);
        for (int i = 0; i < k; i++)
            for (int j = scan->first[SC_SVC_POWER][nets[i]];
                 j < scan->first[SC_SVC_POWER][nets[i] + 1]; j++) {
                int b = scan->netcells[SC_SVC_POWER][j];
                n += b != c && !(old && old[b]);
            }
        return n * s->amount;
    }
    int r = cover_reach(s, scan), x0 = sc_x(c) - r, y0 = sc_y(c) - r;
    for (int y = y0 < 0 ? 0 : y0; y <= sc_y(c) + r && y < g->side; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= sc_x(c) + r && x < g->side; x++) {
            int b = y * SC_STRIDE + x;
            n += b != c && g->block[b] != SC_NONE && !(old && old[b]) &&
                 sc_covers_at(s, c, sc_design_of(g, g->block[b]), b);
        }
    return n * s->amount;
}

/* What d's coverage pays at c: `amount` a block it covers, or, New Coverage Only, a block no
 * provider of its kind covered before the play (the block being covered among them). */
static int coverage_pay(const struct sc_view *v, const struct sc_design *d, int c,
                        struct sc_scan *scan)
{
    int pay = 0;
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *s = &d->specials[i];
        if (s->prim != SC_SP_COVERAGE || s->amount == 0)
            continue;
        if (scan) {
            pay += coverage_pay_scan(v, s, c, scan);
            continue;
        }
        bool now[SC_CELLS] = {false}, none[SC_CELLS] = {false}, map[SC_CELLS];
        const bool *old = none;
        mark_cover(v, s, c, now);
        if (s->new_only) {
            sc_covered_map(v->g, s->cover, map);
            old = map;
        }
        int n = 0;
        SC_FOR_CELLS(v->g, b)
        {
            n += now[b] && !old[b] && b != c;
        }
        pay += n * s->amount;
    }
    return pay;
}

/* True when the block at p is joined to c by service svc in view v (c holding v->d): from the
 * scan's networks when they tell (nets, nnets[svc]: -2 not asked yet, -1 they cannot), else
 * by tracing c's component once (comp, ncomp[svc]: -1 not traced yet). */
static bool joined_to(const struct sc_view *v, int c, int p, int svc, const struct sc_scan *scan,
                      uint8_t nets[][5], int *nnets, uint8_t comp[][SC_CELLS], int *ncomp)
{
    if (scan && nnets[svc] == -2)
        nnets[svc] = sc_scan_nets(v->g, scan, c, v->d, svc, nets[svc]);
    if (scan && nnets[svc] >= 0) {
        for (int j = 0; j < nnets[svc]; j++)
            if (scan->net[svc][p] == nets[svc][j])
                return true;
        return false;
    }
    if (ncomp[svc] < 0)
        ncomp[svc] = sc_component(v, svc, c, comp[svc]);
    for (int j = 1; j < ncomp[svc]; j++)
        if (comp[svc][j] == p)
            return true;
    return false;
}

/* Receive/lose of d's own specials at c, and add/deduct of the earlier blocks. */
static void bonuses(const struct sc_view *v, const struct sc_design *d, int c, int *receive,
                    int *add, const struct sc_scan *scan)
{
    *receive = *add = 0;
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *s = &d->specials[i];
        if (s->prim != SC_SP_RECEIVE)
            continue;
        int n = sc_cond_count_scan(v, &s->cond, c, scan);
        *receive += s->each ? n * s->amount : n > 0 ? s->amount : 0;
    }
    uint8_t comp[SC_SVC_COUNT][SC_CELLS];
    int ncomp[SC_SVC_COUNT] = {-1, -1, -1};
    uint8_t nets[SC_SVC_COUNT][5];
    int nnets[SC_SVC_COUNT] = {-2, -2, -2}; /* -2: not asked yet; -1: the scan cannot tell */
    int ncells = scan ? scan->nadders : SC_CELLS;
    for (int k = 0; k < ncells; k++) {
        int p = scan ? scan->adders[k] : k;
        if (sc_x(p) >= v->g->side || sc_y(p) >= v->g->side)
            continue;
        const struct sc_design *e = p == c ? NULL : sc_view_at(v, p);
        for (int i = 0; e && i < e->nspecials; i++) {
            const struct sc_special *s = &e->specials[i];
            if (s->prim != SC_SP_ADD || !sc_sel_match(v->g, &s->sel, d))
                continue;
            bool ok = true;
            if (s->cond.kind == SC_COND_ADJACENT)
                ok = sc_distance(p, c) == 1;
            else if (s->cond.kind == SC_COND_WITHIN)
                ok = sc_distance(p, c) <= s->cond.n;
            else if (s->cond.kind == SC_COND_CONNECTED)
                ok = joined_to(v, c, p, s->cond.n, scan, nets, nnets, comp, ncomp);
            *add += ok ? s->amount : 0;
        }
    }
}

int sc_play_score(const struct sc_game *g, int seat, int card, int x, int y, struct sc_score *out)
{
    (void)seat;
    return sc_score_with(g, card, x, y, out, NULL);
}

/* sc_score_with(), and what bonuses() gave the play (*receive, *add: 0 when it is no block). */
static int score_parts(const struct sc_game *g, int card, int x, int y, struct sc_score *out,
                       struct sc_scan *scan, int *receive, int *add)
{
    struct sc_score s = {0};
    const struct sc_design *d = sc_design_of(g, card);
    int c = sc_cell(g, x, y);
    *receive = *add = 0;
    if (d->kind == SC_KIND_BLOCK && c >= 0) {
        struct sc_view v = {g, c, d};
        bonuses(&v, d, c, receive, add, scan);
        s.value = d->value;
        s.bonus = *receive + *add;
        s.zone = d->zone == SC_ZONE_SERVICES ? 0 : zone_bonus(&v, d, c, scan);
        s.complex = complex_bonus(&v, d, c, scan);
        s.scorched = g->block[c] == SC_NONE && g->scorched[c] ? SC_SCORCHED_BONUS : 0;
        s.coverage = coverage_pay(&v, d, c, scan);
        s.total = s.value + s.bonus + s.zone + s.complex + s.scorched + s.coverage;
    }
    if (out)
        *out = s;
    return s.total;
}

int sc_score_with(const struct sc_game *g, int card, int x, int y, struct sc_score *out,
                  struct sc_scan *scan)
{
    int receive, add;
    return score_parts(g, card, x, y, out, scan, &receive, &add);
}

/* ---- placing a block ------------------------------------------------------------------------ */

/* By design of cat, whether it has a special that dooms its block when a block it selects is
 * played (SC_SP_REMOVE_WHEN): worked out once a catalog load (one per thread). */
static const bool *removed_when(const struct sc_catalog *cat)
{
    static _Thread_local const struct sc_catalog *of;
    static _Thread_local uint64_t stamp;
    static _Thread_local bool has[SC_MAX_DESIGNS];
    if (of != cat || stamp != cat->stamp) {
        for (int k = 0; k < cat->ndesigns; k++)
            has[k] = sc_has_prim(&cat->designs[k], SC_SP_REMOVE_WHEN);
        of = cat;
        stamp = cat->stamp;
    }
    return has;
}

void sc_place(struct sc_game *g, int seat, int card, int cell, int mode, const struct sc_events *ev)
{
    const struct sc_design *d = sc_design_of(g, card);
    struct sc_score s;
    int receive, add;
    struct sc_scan *scan = sc_position_scan(g);
    score_parts(g, card, sc_x(cell), sc_y(cell), &s, scan, &receive, &add);
    const struct sc_design *e = g->block[cell] == SC_NONE ? NULL : sc_design_of(g, g->block[cell]);
    if (mode == SC_MODE_REZONE)
        g->acted |= 1u << (e && sc_has_prim(e, SC_SP_REZONABLE) ? SC_SP_REZONABLE : SC_SP_REZONES);
    sc_hand_remove(g, seat, card);
    /* blocks that go when such a block is played (the scan's blocks: every cell holding one,
     * in reading order) */
    const bool *removed = removed_when(g->cat);
    for (int k = 0; k < scan->nblocks; k++) {
        int p = scan->blocks[k], b = g->block[p];
        if (p == cell || !removed[g->cat->card_design[b]] || (g->flags[b] & SC_CF_DOOMED))
            continue;
        const struct sc_design *o = sc_design_of(g, b);
        for (int i = 0; i < o->nspecials; i++)
            if (o->specials[i].prim == SC_SP_REMOVE_WHEN &&
                sc_sel_match(g, &o->specials[i].sel, d)) {
                g->flags[b] |= SC_CF_DOOMED;
                g->acted |= 1u << SC_SP_REMOVE_WHEN;
                sc_emit_at(g, ev, SC_EV_DOOMED, -1, b, sc_x(p), sc_y(p), false, 0, 0);
                break;
            }
    }
    sc_city_put(g, card, cell);
    sc_mark_played(g, seat, card);
    sc_emit_at(g, ev, SC_EV_PLAYED, seat, card, sc_x(cell), sc_y(cell), false, mode, s.total);
    /* gains first, then losses: the $0 floor applies to the play's total */
    const int parts[6] = {s.value, s.bonus, s.zone, s.complex, s.scorched, s.coverage};
    const int sources[6] = {SC_SRC_VALUE,   SC_SRC_BONUS,    SC_SRC_ZONE,
                            SC_SRC_COMPLEX, SC_SRC_SCORCHED, SC_SRC_COVERAGE};
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 6; i++)
            if (pass == 0 ? parts[i] > 0 : parts[i] < 0)
                sc_money(g, seat, parts[i], sources[i], ev);
    if (receive)
        g->acted |= 1u << SC_SP_RECEIVE;
    if (add)
        g->acted |= 1u << SC_SP_ADD;
    if (s.coverage)
        g->acted |= 1u << SC_SP_COVERAGE;
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *sp = &d->specials[i];
        if (sp->prim == SC_SP_MUST_COVER || sp->prim == SC_SP_ONLY_IF || sp->prim == SC_SP_LIMIT)
            g->acted |= 1u << sp->prim;
        if (sp->prim == SC_SP_EXTRA_PLAY) {
            g->plays_left = (uint8_t)(g->plays_left + sp->amount);
            g->acted |= 1u << SC_SP_EXTRA_PLAY;
        }
        if (sp->prim == SC_SP_MAYOR && g->mayor != SC_NONE) {
            sc_money(g, g->mayor, sp->amount, SC_SRC_MAYOR, ev);
            g->acted |= 1u << SC_SP_MAYOR;
        }
    }
    if (d->power_plant && !g->power_played) {
        g->power_played = true;
        g->mayor = (uint8_t)seat;
        sc_emit(g, ev, SC_EV_MAYOR, seat, SC_NONE, 0, 0);
    }
    sc_check_phases(g, ev);
}
