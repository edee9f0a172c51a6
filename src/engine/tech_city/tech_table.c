/* tech_table.c: the moves of cards between the places of a Tech City game (deck, discard pile,
 * hands, city, expelled), draws with reshuffles, points, and events (see tech_internal.h), and
 * what the game keeps read off its city as the city changes (the companies each seat controls,
 * the empty cells next to the city). */
#include <string.h>

#include "ruleset.h"
#include "tech_internal.h"

void tech_emit(const struct tech_game *g, const struct tech_events *ev, int type, int seat,
               int card, int count, int total)
{
    if (!ev || !ev->emit)
        return;
    struct tech_event e = {
        .type = (uint8_t)type,
        .seat = (int8_t)seat,
        .round = g->round,
        .step = g->step,
        .turn = g->turn,
        .card = (uint8_t)card,
        .count = count,
        .total = total,
    };
    if (card != TECH_NONE && card < g->ncards) {
        e.x = g->cx[card];
        e.y = g->cy[card];
    }
    ev->emit(ev->ctx, &e);
}

void tech_emit_at(const struct tech_game *g, const struct tech_events *ev, int type, int seat,
                  int card, int x, int y, bool flag, int count, int total)
{
    if (!ev || !ev->emit)
        return;
    struct tech_event e = {(uint8_t)type, (int8_t)seat, g->round, g->step, g->turn, (uint8_t)card,
                           (int8_t)x,     (int8_t)y,    flag,     count,   total};
    ev->emit(ev->ctx, &e);
}

int tech_card_at(const struct tech_game *g, int x, int y)
{
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        if (g->cx[c] == x && g->cy[c] == y)
            return c;
    }
    return TECH_NONE;
}

/* tech_cell_open() read off the city itself (open_scan() asks it while making the list). */
static bool cell_open_scan(const struct tech_game *g, int x, int y)
{
    if (x < -TECH_MAX_COORD || x > TECH_MAX_COORD || y < -TECH_MAX_COORD || y > TECH_MAX_COORD)
        return false;
    if (tech_card_at(g, x, y) != TECH_NONE)
        return false;
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        int dx = g->cx[c] - x, dy = g->cy[c] - y;
        if ((dx == 0 && (dy == 1 || dy == -1)) || (dy == 0 && (dx == 1 || dx == -1)))
            return true;
    }
    return false;
}

/* The cells next to the city in tech_open_cells()'s order (for each card in city order, its four
 * neighbours in the order of dx/dy that are on the board, empty and not listed yet), read off a
 * grid of the city's bounding box (one margin cell each side) that marks the cards and the cells
 * already listed. A city too spread out for the grid is asked cell by cell (cell_open_scan() and
 * the list so far). */
static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};

static int open_scan(const struct tech_game *g, int8_t *xs, int8_t *ys, int max)
{
    enum { GRID = 4096, TAKEN = 1, LISTED = 2 };
    if (g->ncity == 0)
        return 0;
    int x0 = g->cx[g->city[0]], x1 = x0, y0 = g->cy[g->city[0]], y1 = y0;
    for (int i = 1; i < g->ncity; i++) {
        int c = g->city[i];
        x0 = g->cx[c] < x0 ? g->cx[c] : x0;
        x1 = g->cx[c] > x1 ? g->cx[c] : x1;
        y0 = g->cy[c] < y0 ? g->cy[c] : y0;
        y1 = g->cy[c] > y1 ? g->cy[c] : y1;
    }
    int w = x1 - x0 + 3, h = y1 - y0 + 3;
    uint8_t grid[GRID];
    bool on_grid = w * h <= GRID;
    if (on_grid) {
        memset(grid, 0, (size_t)(w * h));
        for (int i = 0; i < g->ncity; i++) {
            int c = g->city[i];
            grid[(g->cy[c] - y0 + 1) * w + g->cx[c] - x0 + 1] = TAKEN;
        }
    }
    int n = 0;
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        for (int k = 0; k < 4; k++) {
            int x = g->cx[c] + dx[k], y = g->cy[c] + dy[k];
            uint8_t *cell = on_grid ? &grid[(y - y0 + 1) * w + x - x0 + 1] : NULL;
            bool skip;
            if (cell) {
                skip = *cell || x < -TECH_MAX_COORD || x > TECH_MAX_COORD || y < -TECH_MAX_COORD ||
                       y > TECH_MAX_COORD;
            } else {
                skip = !cell_open_scan(g, x, y);
                for (int j = 0; j < n && !skip; j++)
                    skip = xs[j] == x && ys[j] == y;
            }
            if (skip)
                continue;
            if (n == max)
                return n;
            if (cell)
                *cell = LISTED;
            xs[n] = (int8_t)x;
            ys[n] = (int8_t)y;
            n++;
        }
    }
    return n;
}

bool tech_cell_open(const struct tech_game *g, int x, int y)
{
    for (int i = 0; i < g->nopen; i++)
        if (g->open_x[i] == x && g->open_y[i] == y)
            return true;
    return false;
}

int tech_open_cells(const struct tech_game *g, int8_t *xs, int8_t *ys, int max)
{
    int n = g->nopen < max ? g->nopen : max;
    memcpy(xs, g->open_x, (size_t)n);
    memcpy(ys, g->open_y, (size_t)n);
    return n;
}

void tech_city_recount(struct tech_game *g)
{
    memset(g->controls, 0, sizeof g->controls);
    memset(g->by_value, 0, sizeof g->by_value);
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        g->by_value[tech_design_of(g, c)->value]++;
        if (g->owner[c] != TECH_NONE) {
            g->controls[g->owner[c]][0]++;
            g->controls[g->owner[c]][tech_design_of(g, c)->domain + 1]++;
        }
    }
    memset(g->open_x, 0, sizeof g->open_x);
    memset(g->open_y, 0, sizeof g->open_y);
    g->nopen = (uint16_t)open_scan(g, g->open_x, g->open_y, TECH_MAX_CELLS);
}

/* Seat `owner` (TECH_NONE: none) gains (+1) or loses (-1) card, a card of the city. */
static void count_owner(struct tech_game *g, int card, int owner, int by)
{
    if (owner == TECH_NONE)
        return;
    g->controls[owner][0] = (uint8_t)(g->controls[owner][0] + by);
    uint8_t *d = &g->controls[owner][tech_design_of(g, card)->domain + 1];
    *d = (uint8_t)(*d + by);
}

void tech_marker_move(struct tech_game *g, int from, int to, int seat)
{
    count_owner(g, from, g->owner[from], -1);
    count_owner(g, to, g->owner[to], -1);
    g->owner[from] = TECH_NONE;
    g->owner[to] = (uint8_t)seat;
    count_owner(g, to, seat, 1);
}

/* The open cells once `card`, the last card of the city, came into it: its cell leaves them and
 * its neighbours on the board that are empty and next to no earlier card join them at the end,
 * which is open_scan()'s order (it takes the cards in city order, and this one comes last; a
 * neighbour next to an earlier card is listed already). */
static void open_after_put(struct tech_game *g, int card)
{
    int x = g->cx[card], y = g->cy[card], n = g->nopen;
    for (int i = 0; i < n; i++)
        if (g->open_x[i] == x && g->open_y[i] == y) {
            memmove(&g->open_x[i], &g->open_x[i + 1], (size_t)(n - i - 1));
            memmove(&g->open_y[i], &g->open_y[i + 1], (size_t)(n - i - 1));
            n--;
            g->open_x[n] = g->open_y[n] = 0;
            break;
        }
    /* near[ey + 2][ex + 2]: bit k when a card at (ex, ey) from the new one is at neighbour k
     * (dx[k], dy[k]) or next to it orthogonally */
    static const uint8_t near[5][5] = {
        {0, 0, 8, 0, 0}, {0, 10, 8, 9, 0}, {2, 2, 15, 1, 1}, {0, 6, 4, 5, 0}, {0, 0, 4, 0, 0},
    };
    unsigned skip = 0; /* bit k: neighbour k taken, or next to an earlier card */
    for (int i = 0; i < g->ncity - 1; i++) {
        int c = g->city[i];
        unsigned ex = (unsigned)(g->cx[c] - x + 2), ey = (unsigned)(g->cy[c] - y + 2);
        if (ex <= 4 && ey <= 4)
            skip |= near[ey][ex];
    }
    for (int k = 0; k < 4; k++) {
        int nx = x + dx[k], ny = y + dy[k];
        if ((skip >> k & 1) || nx < -TECH_MAX_COORD || nx > TECH_MAX_COORD ||
            ny < -TECH_MAX_COORD || ny > TECH_MAX_COORD)
            continue;
        g->open_x[n] = (int8_t)nx;
        g->open_y[n] = (int8_t)ny;
        n++;
    }
    g->nopen = (uint16_t)n;
}

int tech_hand_limit(const struct tech_game *g)
{
    return g->players >= TECH_TWO_DECKS_FROM ? TECH_HAND_LIMIT_BIG : TECH_HAND_LIMIT;
}

bool tech_in_hand(const struct tech_game *g, int seat, int card)
{
    return ruleset_cards_has(g->seats[seat].hand, g->seats[seat].nhand, card);
}

void tech_hand_remove(struct tech_game *g, int seat, int card)
{
    ruleset_cards_remove(g->seats[seat].hand, &g->seats[seat].nhand, card);
}

void tech_expel(struct tech_game *g, int card, const struct tech_events *ev)
{
    g->expelled[g->nexpelled++] = (uint8_t)card;
    tech_emit_at(g, ev, TEV_EXPELLED, -1, card, 0, 0, false, 0, 0);
}

void tech_hand_discard(struct tech_game *g, int seat, int card, const struct tech_events *ev)
{
    tech_hand_remove(g, seat, card);
    g->discard[g->ndiscard++] = (uint8_t)card;
    tech_emit(g, ev, TEV_DISCARDED, seat, card, 1, g->seats[seat].nhand);
}

/* A card paid or given to help: a wild card is expelled, any other card discarded. */
void tech_spend(struct tech_game *g, int seat, int card, const struct tech_events *ev)
{
    if (tech_design_of(g, card)->domain == DOMAIN_WILD) {
        tech_hand_remove(g, seat, card);
        tech_expel(g, card, ev);
    } else {
        tech_hand_discard(g, seat, card, ev);
    }
}

void tech_shuffle_deck(struct tech_game *g)
{
    rng_shuffle(&g->rng, g->deck, g->ndeck);
}

int tech_pop_deck(struct tech_game *g, const struct tech_events *ev)
{
    if (g->ndeck == 0 && g->ndiscard > 0) {
        memcpy(g->deck, g->discard, g->ndiscard);
        g->ndeck = g->ndiscard;
        g->ndiscard = 0;
        tech_shuffle_deck(g);
        g->reshuffles++;
        tech_emit(g, ev, TEV_RESHUFFLED, -1, TECH_NONE, g->ndeck, 0);
    }
    if (g->ndeck == 0)
        return TECH_NONE;
    return g->deck[--g->ndeck];
}

int tech_draw(struct tech_game *g, int seat, int n, const struct tech_events *ev)
{
    int got = 0;
    for (; got < n; got++) {
        int c = tech_pop_deck(g, ev);
        if (c == TECH_NONE)
            break;
        struct tech_seat *s = &g->seats[seat];
        s->hand[s->nhand++] = (uint8_t)c;
    }
    if (got > 0)
        tech_emit(g, ev, TEV_DREW, seat, TECH_NONE, got, g->seats[seat].nhand);
    return got;
}

void tech_score(struct tech_game *g, int seat, int points, const struct tech_events *ev)
{
    if (points <= 0)
        return;
    g->seats[seat].score = (int16_t)(g->seats[seat].score + points);
    tech_emit(g, ev, TEV_SCORED, seat, TECH_NONE, points, g->seats[seat].score);
}

void tech_city_remove(struct tech_game *g, int card)
{
    for (int i = 0; i < g->ncity; i++)
        if (g->city[i] == card) {
            memmove(&g->city[i], &g->city[i + 1], (size_t)(g->ncity - i - 1));
            g->ncity--;
            break;
        }
    g->owner[card] = TECH_NONE;
    g->tilted[card] = false;
    g->cx[card] = g->cy[card] = 0;
    tech_city_recount(g); /* the city's order changed: the open cells are listed again */
}

void tech_city_put(struct tech_game *g, int card, int x, int y, int owner)
{
    g->city[g->ncity++] = (uint8_t)card;
    g->cx[card] = (int8_t)x;
    g->cy[card] = (int8_t)y;
    g->owner[card] = tech_design_of(g, card)->domain == DOMAIN_SERVICE ? TECH_NONE : (uint8_t)owner;
    g->tilted[card] = false;
    count_owner(g, card, g->owner[card], 1);
    g->by_value[tech_design_of(g, card)->value]++;
    open_after_put(g, card);
}
