/* sc_internal.h: what the files of SimCity's engine share and nothing else should call: the
 * city's stacks (sc_city.c), the card interpreter's queries over a city with one cell changed,
 * money with its source, events, politics (sc_politics.c). Tests use it to set up positions by
 * hand. */
#ifndef SC_INTERNAL_H
#define SC_INTERNAL_H

#include <stddef.h>

#include "sc.h"

struct sc_scan;

/* ---- events and money (sc.c) ---- */

/* Emits one event (when someone listens). */
void sc_emit(const struct sc_game *g, const struct sc_events *ev, int type, int seat, int card,
             int count, int total);
void sc_emit_at(const struct sc_game *g, const struct sc_events *ev, int type, int seat, int card,
                int x, int y, bool flag, int count, int total);

/* Moves seat's money by `delta` for `source`, never below $0; reports what moved and notes the
 * target. Returns the change made. */
int sc_money(struct sc_game *g, int seat, int delta, int source, const struct sc_events *ev);

/* Draws the deck's top card into seat's hand (nothing when the deck is out); returns the card
 * or SC_NONE. */
int sc_draw(struct sc_game *g, int seat, const struct sc_events *ev);

/* True when Solitaire's player may take the discard pile's top: there is one, and it is not an
 * event (decision: a played event goes to the pile, and taking it back to play it again every
 * turn would never end a game). */
bool sc_discard_drawable(const struct sc_game *g);

/* True when seat holds card; removes it (it must hold it). */
bool sc_in_hand(const struct sc_game *g, int seat, int card);
void sc_hand_remove(struct sc_game *g, int seat, int card);

/* Begins seat's turn now (for tests that lay out a position): removals, timed events, draw,
 * council, play, as at the end of the turn before. */
void sc_begin_turn(struct sc_game *g, int seat, const struct sc_events *ev);

/* Marks a design as played by seat (figures). */
void sc_mark_played(struct sc_game *g, int seat, int card);

/* ---- the city (sc_city.c) ---- */

/* A city seen with cell `cell` holding design `d` instead of its block (d NULL: empty), or the
 * city as it is (cell -1). Every query of the card interpreter reads a view. */
struct sc_view {
    const struct sc_game *g;
    int cell;
    const struct sc_design *d;
};

/* The design of cell's block in view v, or NULL. */
static inline const struct sc_design *sc_view_at(const struct sc_view *v, int cell)
{
    if (cell == v->cell)
        return v->d;
    int b = v->g->block[cell];
    return b == SC_NONE ? NULL : sc_design_of(v->g, b);
}

/* x, y of a cell (a cell number, never negative), and the distance in blocks between two cells
 * (diagonals are 2 apart; holes count as the blocks they would hold). */
static inline int sc_x(int cell)
{
    return (int)((unsigned)cell % SC_STRIDE); /* (unsigned: cheaper than signed division) */
}
static inline int sc_y(int cell)
{
    return (int)((unsigned)cell / SC_STRIDE);
}
static inline int sc_distance(int a, int b)
{
    int dx = sc_x(a) - sc_x(b), dy = sc_y(a) - sc_y(b);
    return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

/* The cell beside `cell` in direction dir (0 N, 1 E, 2 S, 3 W), or -1 off the surface. */
static inline __attribute__((always_inline)) int sc_step_to(const struct sc_game *g, int cell,
                                                            int dir)
{
    unsigned u = (unsigned)cell; /* (a cell, never negative: unsigned division is cheaper) */
    int x = (int)(u % SC_STRIDE) + (dir == 1) - (dir == 3);
    int y = (int)(u / SC_STRIDE) + (dir == 2) - (dir == 0);
    return sc_cell(g, x, y);
}

/* Design d's edges of road or rail svc (SC_EDGE_* bits). */
static inline uint8_t sc_edges(const struct sc_design *d, int svc)
{
    return svc == SC_SVC_ROAD ? d->road : d->rail;
}

/* True when design d has service svc (road or rail edges, or a power line). */
static inline bool sc_has_service(const struct sc_design *d, int svc)
{
    return svc == SC_SVC_POWER ? d->power : sc_edges(d, svc) != 0;
}

/* The design of card b (SC_NONE: NULL). */
static inline const struct sc_design *sc_design_of_or_null(const struct sc_game *g, int b)
{
    return b == SC_NONE ? NULL : sc_design_of(g, b);
}

/* Adds id to ids[0..*n-1] unless it is there; true when it was added. */
static inline bool sc_add_once(int *ids, int *n, int id)
{
    for (int k = 0; k < *n; k++)
        if (ids[k] == id)
            return false;
    ids[(*n)++] = id;
    return true;
}

/* True when a (at some cell) and b (beside it in direction dir) are joined by service svc. */
static inline __attribute__((always_inline)) bool
sc_joined(const struct sc_design *a, const struct sc_design *b, int svc, int dir)
{
    static const uint8_t edge_bit[4] = {SC_EDGE_N, SC_EDGE_E, SC_EDGE_S, SC_EDGE_W};
    if (!a || !b)
        return false;
    if (svc == SC_SVC_POWER)
        return a->power && b->power;
    return (sc_edges(a, svc) & edge_bit[dir]) && (sc_edges(b, svc) & edge_bit[(dir + 2) % 4]);
}

/* Iterates the cells of the surface, in reading order (c: the cell number). */
#define SC_FOR_CELLS(g, c)                                                                         \
    for (int y_ = 0; y_ < (g)->side; y_++)                                                         \
        for (int x_ = 0, c = y_ * SC_STRIDE; x_ < (g)->side; x_++, c++)

/* The cells joined to `start` by service svc in view v, start first (none when start holds no
 * block), into cells; returns how many. */
int sc_component(const struct sc_view *v, int svc, int start, uint8_t *cells);

/* The coverage special of kind `cover` of design d (NULL: none, or d NULL). */
const struct sc_special *sc_coverage_of(const struct sc_design *d, int cover);

/* Provider at cell p with coverage s covers block t at cell b (by distance; police adds t's
 * crime). Power coverage goes by power lines instead (sc_component()). */
bool sc_covers_at(const struct sc_special *s, int p, const struct sc_design *t, int b);

/* How many blocks make condition k true at cell c in view v (1 or 0 for the conditions that
 * count nothing: always, city_lacks, covered). */
int sc_cond_count(const struct sc_view *v, const struct sc_cond *k, int c);

/* sc_cond_count() of the city seen with design v->d at cell c = v->cell, read from the
 * position's scan when given. */
int sc_cond_count_scan(const struct sc_view *v, const struct sc_cond *k, int c,
                       const struct sc_scan *scan);

/* True when block d may cover block e without a vote: an upgrade of e, or a free rezone. */
bool sc_covers_freely(const struct sc_game *g, const struct sc_design *e,
                      const struct sc_design *d);

/* True when design d has a special of primitive `prim`. */
bool sc_has_prim(const struct sc_design *d, int prim);

/* The up to 4 cells sharing an edge with cell on the surface (N, E, S, W), into out; returns
 * how many. (Inline: the scan, the bounds and the checks call it for most cells they read.) */
static inline __attribute__((always_inline)) int sc_neighbours(const struct sc_game *g, int cell,
                                                               int *out)
{
    int x = (int)((unsigned)cell % SC_STRIDE), y = (int)((unsigned)cell / SC_STRIDE), n = 0;
    if (y > 0)
        out[n++] = cell - SC_STRIDE;
    if (x + 1 < g->side)
        out[n++] = cell + 1;
    if (y + 1 < g->side)
        out[n++] = cell + SC_STRIDE;
    if (x > 0)
        out[n++] = cell - 1;
    return n;
}

/* True when design d matches selector s. */
bool sc_sel_match(const struct sc_game *g, const struct sc_sel *s, const struct sc_design *d);

/* True when design d has a restriction of where it goes that a cell's own neighbourhood
 * settles: a block it must cover (must_cover) or a neighbour it must have (only_if adjacent). */
static inline bool sc_restricted(const struct sc_design *d)
{
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *s = &d->specials[i];
        if (s->prim == SC_SP_MUST_COVER ||
            (s->prim == SC_SP_ONLY_IF && s->cond.kind == SC_COND_ADJACENT))
            return true;
    }
    return false;
}

/* True when block d may not go on cell c for such a restriction: c holds no block it must
 * cover, or no neighbour it must have (sc_card_check() refuses the play: SC_ERR_RESTRICTED or
 * before). */
static inline bool sc_restricted_at(const struct sc_game *g, const struct sc_design *d, int c)
{
    for (int i = 0; i < d->nspecials; i++) {
        const struct sc_special *s = &d->specials[i];
        if (s->prim == SC_SP_MUST_COVER) {
            int e = g->block[c];
            if (e == SC_NONE || !sc_sel_match(g, &s->sel, sc_design_of(g, e)))
                return true;
        } else if (s->prim == SC_SP_ONLY_IF && s->cond.kind == SC_COND_ADJACENT) {
            int nb[4], m = sc_neighbours(g, c, nb), j = 0;
            while (j < m && (g->block[nb[j]] == SC_NONE ||
                             !sc_sel_match(g, &s->cond.sel, sc_design_of(g, g->block[nb[j]]))))
                j++;
            if (j == m)
                return true;
        }
    }
    return false;
}

/* True when cell is covered by a provider of coverage `cover` in view v (not by itself). */
bool sc_covered(const struct sc_view *v, int cover, int cell);

/* True when cell's block is spared by events of `hazard` (a protection within range). */
bool sc_protected(const struct sc_game *g, int hazard, int cell);

/* The card on top of cell's stack becomes card (from nowhere: the caller took it from a hand);
 * the cell is no longer scorched. */
void sc_city_put(struct sc_game *g, int card, int cell);

/* Takes card out of the city (its stack closes over it) and onto the discard pile, reported;
 * the phases are checked. */
void sc_city_remove(struct sc_game *g, int card, const struct sc_events *ev);

/* Destroys cell's block: every card of the stack but land turns over; the land beneath, if
 * any, becomes the block, else the cell is scorched. Returns the destroyed block's $ value (0
 * when there was nothing to destroy: an empty cell or land). */
int sc_city_destroy(struct sc_game *g, int cell, const struct sc_events *ev);

/* Checks the phases in order after a card or a removal; they never retreat. */
void sc_check_phases(struct sc_game *g, const struct sc_events *ev);

/* What judging many plays in one position reads again and again, worked out once: the road,
 * rail and power networks (each block's network, each network's cells and the sims its
 * providers give), the blocks, the providers of each coverage, the blocks whose specials add to
 * or deduct from later blocks, the remote complex members, and the cells a block may go on at
 * all. Some of it is worked out when first asked for (the zones of each kind, the networks a
 * cell's removal would split). Valid until the city changes. */
enum { SC_ZONE_KEYS = 3 + SC_LAND_COUNT }; /* residential, commercial, industrial, land types */
struct sc_scan {
    uint8_t net[SC_SVC_COUNT][SC_CELLS];       /* network number, or SC_NONE */
    uint8_t nnets[SC_SVC_COUNT];               /* network numbers in use: 0..nnets-1 */
    int16_t sims[SC_SVC_COUNT][SC_CELLS];      /* sims provided, by network number */
    uint8_t first[SC_SVC_COUNT][SC_CELLS + 1]; /* network k's cells: netcells[first[k]..] */
    uint8_t netcells[SC_SVC_COUNT][SC_CELLS];
    uint8_t power_providers[SC_CELLS]; /* by power network: its blocks with power coverage */
    uint8_t nblocks;
    uint8_t blocks[SC_CELLS]; /* cells holding a block, in reading order */
    uint8_t nproviders[SC_COVER_COUNT];
    uint8_t providers[SC_COVER_COUNT][SC_CELLS]; /* cells of the blocks with each coverage */
    int8_t min_crime;                            /* the lowest crime of a block in the city */
    uint8_t nadders;
    uint8_t adders[SC_CELLS];
    uint8_t nremotes; /* blocks that are remote members of a complex */
    uint8_t remotes[SC_CELLS];
    uint8_t ncands; /* cells a block may go on, in reading order: blocks, and empty cells */
    uint8_t cands[SC_CELLS]; /* beside one (every empty cell when the city holds none) */
    /* On demand: by cell, the most sims a block there could be joined to (sc_scan_reach(); -1:
     * not worked out yet) ... */
    int16_t reach[SC_CELLS]; /* (kept by sc_scan_update() where the step changed nothing) */
    uint16_t reach_mark;     /* counts the reaches worked out; by network, the count at which */
    uint16_t reached_by[SC_SVC_RAIL + 1][SC_CELLS]; /* it was last counted (each network once) */
    /* ... sc_covered_map() of each coverage (covered_done bit k: coverage k) ... */
    uint8_t covered_done;
    bool covered[SC_COVER_COUNT][SC_CELLS];
    /* On demand: the zones of each key (zone_done bit k: key k): each cell's zone number (or
     * SC_NONE), each zone's size, and sc_scan_zone_most() (-1: not worked out yet); kept by
     * sc_scan_update() for the keys a step's block is no part of, and brought on by it for a
     * new block (the zones it joins become one) ... */
    uint16_t zone_done;
    uint8_t zone[SC_ZONE_KEYS][SC_CELLS];
    uint8_t zone_size[SC_ZONE_KEYS][SC_CELLS]; /* (0: a number no cell has any more) */
    uint8_t nzones[SC_ZONE_KEYS];              /* zone numbers in use: 0..nzones-1 */
    int16_t zone_most[SC_ZONE_KEYS];
    int16_t zone_bonus[SC_ZONE_KEYS][SC_CELLS]; /* sc_scan_zone_bonus(), or -1 */
    /* ... a depth-first walk of each road and rail network (order of each cell, the lowest
     * order its subtree reaches, its parent, its subtree's last order and sims) ... */
    bool walked[SC_SVC_RAIL + 1];
    uint8_t order[SC_SVC_RAIL + 1][SC_CELLS], low[SC_SVC_RAIL + 1][SC_CELLS];
    uint8_t parent[SC_SVC_RAIL + 1][SC_CELLS], last[SC_SVC_RAIL + 1][SC_CELLS];
    int16_t subtree[SC_SVC_RAIL + 1][SC_CELLS];
    /* ... and, by road or rail and cell, the pieces its network falls into without the cell:
     * the piece of the neighbour in each direction (-1: none) and the sims each gives. */
    bool pieces_done[SC_SVC_RAIL + 1][SC_CELLS];
    int8_t piece[SC_SVC_RAIL + 1][SC_CELLS][4];
    int16_t piece_sims[SC_SVC_RAIL + 1][SC_CELLS][4];
};
void sc_scan_city(const struct sc_game *g, struct sc_scan *s);

/* Brings s, the scan of a city whose blocks were old_block[] (same catalog and surface), to g's
 * city when that is one step: the same blocks, or one cell that gains a block or whose block is
 * covered by one keeping all its road and rail edges and its power line (a new block, an
 * upgrade). Returns true when s is now g's scan (as sc_scan_city() would give it, but for the
 * networks' numbers and the order of their cells), false (s unusable) when g's city is further
 * from it. */
bool sc_scan_update(const struct sc_game *g, struct sc_scan *s, const uint8_t *old_block);

/* True when no card has ever been placed (the first block goes in the centre). */
bool sc_never_built(const struct sc_game *g);

/* Whether block d at cell c gets the sims it requires (d->sims < 0), read from the scan's
 * networks (sc_scan.c; the comment above it says how). */
bool sc_sims_met_scan(const struct sc_game *g, struct sc_scan *s, int c, const struct sc_design *d);

/* An upper bound of the sims any block at c could get (sc_sims_met_scan()): over road and rail,
 * the most that the networks of c and of its neighbours give together, each network once. A
 * block that requires more is no play at c. */
int sc_scan_reach(const struct sc_game *g, struct sc_scan *s, int c);

/* The networks of service svc that design d placed at c would be joined to (the city seen with
 * d at c), into nets (at most 5; c's own network first when d keeps it); returns how many, 0
 * when d has no such service (c alone), or -1 when the scan cannot tell (d drops some of the
 * road or rail edges of the block it covers). */
int sc_scan_nets(const struct sc_game *g, const struct sc_scan *s, int c, const struct sc_design *d,
                 int svc, uint8_t *nets);

/* The zone key of design d (0..SC_ZONE_KEYS-1), or -1 when it counts in no zone. */
int sc_zone_key(const struct sc_design *d);

/* The blocks of zone key `key` or gray joined to cell c (not counted) through such blocks, in
 * the city seen with a block of that key at c (sc_score.c's zone bonus, before its minimum). */
int sc_scan_zone(const struct sc_game *g, struct sc_scan *s, int key, int c);

/* sc_scan_zone() with the zone bonus's minimum (0 below SC_GROUP_MIN blocks), kept in the scan
 * while the key's zones are. */
int sc_scan_zone_bonus(const struct sc_game *g, struct sc_scan *s, int key, int c);

/* The most sc_scan_zone() can give any cell for key `key`: the four largest zones together. */
int sc_scan_zone_most(const struct sc_game *g, struct sc_scan *s, int key);

/* The checks of a play of design d that do not depend on where: not a council member, its
 * phase reached, the first Power Plant played before phase III cards and events. SC_OK or why
 * not. */
int sc_design_check(const struct sc_game *g, const struct sc_design *d);

/* The checks of a play of design d at (x, y) (for an event: its chosen block, or -1, -1), all
 * but whose hand it is in: SC_OK with *mode set, or why not. `scan`, when given, is
 * sc_scan_city() of this position (its on-demand parts filled as they are read). */
int sc_card_check(const struct sc_game *g, const struct sc_design *d, int x, int y, int *mode,
                  struct sc_scan *scan);

/* The mode sc_play_check() gives the play of card at (x, y), for a play it accepts in this
 * position (not checked again: a refused play gets a meaningless mode). The rules resolve a
 * play that was checked as it was submitted, so they need only this. */
int sc_play_mode(const struct sc_game *g, int card, int x, int y);

/* Marks in out[] (SC_CELLS long) every cell a provider of coverage `cover` covers in the city
 * as it is, the providers themselves included (New Coverage Only's baseline). */
void sc_covered_map(const struct sc_game *g, int cover, bool *out);

/* sc_covered_map() read from a scan whose networks, blocks and providers are done. */
void sc_covered_map_scan(const struct sc_game *g, int cover, bool *out, const struct sc_scan *s);

/* sc_play_score() with the position's scan (or NULL; its on-demand parts filled as read). */
int sc_score_with(const struct sc_game *g, int card, int x, int y, struct sc_score *out,
                  struct sc_scan *scan);

/* The scan of g's position, worked out once and kept (one per thread) until the position
 * changes; valid until the next call with another position. */
struct sc_scan *sc_position_scan(const struct sc_game *g);

/* Calls fn(ctx, option) for every legal play of seat's hand (see sc_play_options()), with
 * plays that need a vote when `votes`, until fn returns false; returns how many it found. */
typedef bool (*sc_option_fn)(void *ctx, const struct sc_option *o);
int sc_each_play(const struct sc_game *g, int seat, bool scored, bool votes, sc_option_fn fn,
                 void *ctx);

/* True when seat's hand holds a legal play (one that needs a vote only when `votes`): the
 * same as sc_each_play() finding one, stopping at the first. */
bool sc_any_play(const struct sc_game *g, int seat, bool votes);

/* A play of a hand as sc_best_plays() ranks it: the option (its score set), its worth to the
 * asker, and its place in sc_each_play()'s order (hand, then reading order). */
struct sc_ranked {
    struct sc_option o;
    double worth;
    int order;
};

/* How the asker weighs a legal play o (its mode and score set): worth(ctx, o), plus tie(ctx, o)
 * when tie is not NULL (a tie-break, in [0, slack)). A block's worth depends on its card, mode
 * and score alone, never decreases as the score grows (a play's bound is its worth at the bound
 * of its score), and is the same for the modes new, upgrade and rezone; the tie-break may
 * depend on anything of the play but its mode and score. An event's worth may depend on its
 * cell. */
struct sc_weigh {
    double (*worth)(void *ctx, const struct sc_option *o);
    double (*tie)(void *ctx, const struct sc_option *o);
    void *ctx;
    double slack;
    /* when not NULL: a bound of the worth (tie-break apart) of any play of the event card
     * `card` that targets a block, so that the search need not weigh each of its cells first */
    double (*event_bound)(void *ctx, int card);
};

/* The k legal plays of seat's hand worth more than `bar` and most (ties: the earlier in
 * sc_each_play()'s order), best first, into out[0..k-1] (their scores set, worth with the
 * tie-break; plays that need a vote only when `votes`); returns how many. The same as weighing
 * every play sc_each_play() lists, but it checks and scores only the plays whose bound could still
 * enter the best k. */
int sc_best_plays(const struct sc_game *g, int seat, bool votes, double bar,
                  const struct sc_weigh *w, struct sc_ranked *out, int k);

/* The bound sc_best_plays() puts on the score of block `card` at cell (legal or not), and in
 * *top (when not NULL) the one it puts on any of the card's plays (for tests). */
int sc_play_bound(const struct sc_game *g, int card, int cell, int *top);

/* sc_best_plays() by weighing every play (the reference it must agree with). */
int sc_best_plays_all(const struct sc_game *g, int seat, bool votes, double bar,
                      const struct sc_weigh *w, struct sc_ranked *out, int k);

/* Places block `card` from seat's hand at cell in `mode` (checked), scores it and runs its
 * specials (extra play, the Mayor's share, removals it triggers, the first Power Plant's
 * Mayor). */
void sc_place(struct sc_game *g, int seat, int card, int cell, int mode,
              const struct sc_events *ev);

/* ---- politics (sc_politics.c) ---- */

/* Plays event `card` from seat's hand (checked), with its chosen block at cell (or -1). */
void sc_play_event(struct sc_game *g, int seat, int card, int cell, const struct sc_events *ev);

/* The cells timed effect i may act on this turn, in reading order, at most max; returns how
 * many there are. */
int sc_timed_candidates(const struct sc_game *g, int i, int *cells, int max);

/* True when a protection keeps spreading timed effect i from a block it would reach. */
bool sc_timed_spares(const struct sc_game *g, int i);

/* Timed effect i acts on cell. */
void sc_timed_act(struct sc_game *g, int i, int cell, const struct sc_events *ev);

/* Removes timed effect i (reported as ended). */
void sc_timed_end(struct sc_game *g, int i, const struct sc_events *ev);

/* Adds a bill for the Mayor (dropped when there is no Mayor). */
void sc_bill(struct sc_game *g, int card, int amount, const struct sc_events *ev);

/* The Mayor pays the first bill in full, or half (rounded up) and vacates; a Mayor who cannot
 * pay goes to $0 and vacates. A vacancy opens an election. */
void sc_pay_bill(struct sc_game *g, bool vacate, const struct sc_events *ev);

/* Opens a rezoning vote on seat's play of card at cell. */
void sc_vote_start(struct sc_game *g, int seat, int card, int cell, const struct sc_events *ev);

/* The council members of seat that vote freely (not corrupt). */
int sc_free_members(const struct sc_game *g, int seat);

/* Casts seat's ballots (its corrupt members' fixed ones among them) in the vote. */
void sc_vote_cast(struct sc_game *g, int seat, const struct sc_decision *d,
                  const struct sc_events *ev);

/* The Mayor's vote and tie-break; then the vote's result: the play is made, or the card stays
 * in hand. */
void sc_vote_finish(struct sc_game *g, const struct sc_decision *mayor, const struct sc_events *ev);

/* A bid (or a pass, d NULL) of seat in the election; the election ends when every seat has
 * passed in a row. */
void sc_election_bid(struct sc_game *g, int seat, const struct sc_decision *d,
                     const struct sc_events *ev);
void sc_election_finish(struct sc_game *g, const struct sc_events *ev);

#endif
