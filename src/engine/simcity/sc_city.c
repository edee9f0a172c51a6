/* sc_city.c: SimCity's shared city — the stacks of cards on the surface, the services that join
 * its blocks (road and rail by edges, power by neighbours), the card interpreter's queries
 * (selectors, conditions, coverage, protection), where a block may go (new, upgrade, rezone;
 * phases, sims, the specials' restrictions and limits, events that forbid), and the phases.
 * Every query reads a struct sc_view: the city with one cell changed, so that a play is judged
 * as if it were made, without making it. What a play scores is sc_score.c; the scan of a
 * position that judging many plays reads is sc_scan.c. */
#include <string.h>

#include "sc_internal.h"

/* ---- the surface ---------------------------------------------------------------------------- */

int sc_block_at(const struct sc_game *g, int x, int y)
{
    int c = sc_cell(g, x, y);
    return c < 0 ? SC_NONE : g->block[c];
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
            int nb = sc_step_to(v->g, c, dir);
            if (nb < 0 || seen[nb] || !sc_joined(a, sc_view_at(v, nb), svc, dir))
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

/* A block requiring sims at c in view v gets them: by its own road, or all by its own rail,
 * from the providers joined to it; one with neither touches a road or rail block whose joined
 * providers (itself included) give them. */
static bool sims_met(const struct sc_view *v, int c, const struct sc_design *d,
                     struct sc_scan *scan)
{
    if (d->sims >= 0)
        return true;
    if (scan)
        return sc_sims_met_scan(v->g, scan, c, d);
    int need = -d->sims;
    uint8_t cells[SC_CELLS];
    if (d->road || d->rail) {
        for (int svc = SC_SVC_ROAD; svc <= SC_SVC_RAIL; svc++)
            if (sc_edges(d, svc) && provided(v, cells, sc_component(v, svc, c, cells)) >= need)
                return true;
        return false;
    }
    int nb[4], k = sc_neighbours(v->g, c, nb);
    for (int i = 0; i < k; i++) {
        const struct sc_design *e = sc_view_at(v, nb[i]);
        for (int svc = SC_SVC_ROAD; e && svc <= SC_SVC_RAIL; svc++)
            if (sc_edges(e, svc) && provided(v, cells, sc_component(v, svc, nb[i], cells)) >= need)
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

/* By coverage, the longest range of a special of it in a catalog (-1: none has it), worked out
 * once a catalog (one per thread). */
static int longest_cover(const struct sc_catalog *cat, int cover)
{
    static _Thread_local const struct sc_catalog *of;
    static _Thread_local uint64_t stamp;
    static _Thread_local int range[SC_COVER_COUNT];
    if (of != cat || stamp != cat->stamp) {
        for (int k = 0; k < SC_COVER_COUNT; k++)
            range[k] = -1;
        for (int k = 0; k < cat->ndesigns; k++)
            for (int i = 0; i < cat->designs[k].nspecials; i++) {
                const struct sc_special *sp = &cat->designs[k].specials[i];
                if (sp->prim == SC_SP_COVERAGE && sp->cover < SC_COVER_COUNT &&
                    sp->range > range[sp->cover])
                    range[sp->cover] = sp->range;
            }
        of = cat;
        stamp = cat->stamp;
    }
    return range[cover];
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
    /* a provider covers the cell within its range (less the cell's crime, for police), so
     * within the catalog's longest: in that square */
    int r = longest_cover(v->g->cat, cover) - (cover == SC_COVER_POLICE ? t->crime : 0);
    int x0 = sc_x(cell) - r, x1 = sc_x(cell) + r, y0 = sc_y(cell) - r, y1 = sc_y(cell) + r;
    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < v->g->side; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < v->g->side; x++) {
            /* a station covers its own block too (distance 0), as the scoring's map counts it */
            int p = y * SC_STRIDE + x;
            const struct sc_special *s = sc_coverage_of(sc_view_at(v, p), cover);
            if (s && sc_covers_at(s, p, t, cell))
                return true;
        }
    return false;
}

/* By hazard, the longest range of a protection from it in a catalog (-1: none protects from
 * it), worked out once a catalog (it reads nothing else). */
static _Thread_local struct {
    const struct sc_catalog *cat;
    uint64_t stamp;
    int range[SC_HAZ_COUNT];
} protect_reach;

bool sc_protected(const struct sc_game *g, int hazard, int cell)
{
    if (protect_reach.cat != g->cat || protect_reach.stamp != g->cat->stamp) {
        for (int h = 0; h < SC_HAZ_COUNT; h++)
            protect_reach.range[h] = -1;
        for (int k = 0; k < g->cat->ndesigns; k++) {
            const struct sc_design *d = &g->cat->designs[k];
            for (int i = 0; i < d->nspecials; i++) {
                const struct sc_special *sp = &d->specials[i];
                if (sp->prim == SC_SP_PROTECT && sp->cover < SC_HAZ_COUNT &&
                    sp->range > protect_reach.range[sp->cover])
                    protect_reach.range[sp->cover] = sp->range;
            }
        }
        protect_reach.cat = g->cat;
        protect_reach.stamp = g->cat->stamp;
    }
    int r = hazard >= 0 && hazard < SC_HAZ_COUNT ? protect_reach.range[hazard] : -1;
    /* (a protector is within its range of the cell, so within the longest: in that square) */
    int x0 = sc_x(cell) - r, x1 = sc_x(cell) + r, y0 = sc_y(cell) - r, y1 = sc_y(cell) + r;
    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < g->side; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < g->side; x++) {
            int p = y * SC_STRIDE + x;
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

bool sc_covers_freely(const struct sc_game *g, const struct sc_design *e, const struct sc_design *d)
{
    return is_upgrade(e, d) || free_rezone(g, e, d);
}

bool sc_never_built(const struct sc_game *g)
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
            if (sc_never_built(g) && c != sc_cell(g, g->side / 2, g->side / 2))
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

int sc_play_mode(const struct sc_game *g, int card, int x, int y)
{
    const struct sc_design *d = sc_design_of(g, card);
    if (d->kind == SC_KIND_EVENT)
        return SC_MODE_EVENT;
    int c = sc_cell(g, x, y);
    const struct sc_design *e = g->block[c] == SC_NONE ? NULL : sc_design_of(g, g->block[c]);
    if (!e)
        return SC_MODE_NEW;
    if (is_upgrade(e, d))
        return SC_MODE_UPGRADE;
    return free_rezone(g, e, d) ? SC_MODE_REZONE : SC_MODE_VOTE; /* (block_check()'s order) */
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
    if (g->phase >= SC_PHASES) /* (the last phase: nothing left to reach) */
        return;
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
