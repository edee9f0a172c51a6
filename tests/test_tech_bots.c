/* test_tech_bots.c: Tech City's bots choose what they chose before they were made fast (issue 25):
 * every decision and every hand-view payment of whole bot games, hashed, against the digests the
 * slow greedy bot (a copy of the game per effect choice, commit 9fe69f0) and the random bot gave;
 * and tech_open_cells(), which the bots ask at every build, against the rule read off the city. */
#include "tech_helpers.h"

TestSuite(tech_bots, .init = load_tech);

/* FNV-1a over n bytes, continuing from *h. */
static void mix(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= c[i];
        *h *= 1099511628211ULL;
    }
}

/* The digest of `games` games of `players` bots of `kind` from seed `seed` on: each decision (all
 * its bytes), at build and effect points the greedy payment of each hand card
 * (tech_bot_payment()), and the final scores. */
static uint64_t digest(int kind, int players, int games, uint64_t seed)
{
    static struct tech_game g;
    uint64_t h = 1469598103934665603ULL;
    for (int n = 0; n < games; n++) {
        uint64_t gs = seed + (uint64_t)n;
        cr_assert_eq(tech_new(&g, &tcat, players, gs), TECH_OK);
        struct bot bot[TECH_MAX_PLAYERS];
        for (int s = 0; s < players; s++)
            bot_init(&bot[s], kind, gs * TECH_MAX_PLAYERS + (uint64_t)s);
        while (g.step != TECH_STEP_OVER) {
            for (int s = 0; s < players; s++) {
                struct tech_decision d;
                if (tech_bot_decide(&bot[s], &g, s, &d)) {
                    mix(&h, &d, sizeof d);
                    cr_assert_eq(tech_submit(&g, s, &d), TECH_OK);
                }
                if (g.step != TECH_STEP_BUILD && g.step != TECH_STEP_EFFECT)
                    continue;
                for (int i = 0; i < g.seats[s].nhand; i++) {
                    struct tech_decision p;
                    tech_decision_init(&p);
                    bool ok = tech_bot_payment(&g, s, g.seats[s].hand[i], &p);
                    mix(&h, &ok, 1);
                    mix(&h, &p.npay, 1);
                    mix(&h, p.pay, 2);
                }
            }
            cr_assert(tech_resolve(&g, NULL));
        }
        for (int s = 0; s < players; s++)
            mix(&h, &g.seats[s].score, sizeof g.seats[s].score);
    }
    return h;
}

Test(tech_bots, the_greedy_bot_chooses_as_before_it_was_made_fast)
{
    static const struct {
        int players;
        uint64_t digest;
    } want[] = {{1, 0xecf2ae1dc17af417ULL},
                {2, 0xdf2199b76a5cb890ULL},
                {4, 0x92ffe42f2f47d545ULL},
                {6, 0x7aa8a634c00cb8f7ULL}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect_eq(digest(BOT_GREEDY, want[i].players, 100, 11), want[i].digest,
                     "%d players: greedy decisions changed", want[i].players);
}

Test(tech_bots, the_random_bot_chooses_as_before)
{
    static const struct {
        int players;
        uint64_t digest;
    } want[] = {{1, 0x215464e9ed03fa06ULL}, {4, 0x61c23e21f7319a75ULL}, {6, 0xa7cd51b5b1ef7334ULL}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect_eq(digest(BOT_RANDOM, want[i].players, 100, 11), want[i].digest,
                     "%d players: random decisions changed", want[i].players);
}

/* The open cells the slow way: every cell next to a city card, on the board and empty
 * (tech_card_at()), in city order and direction order, each once; tech_cell_open() says yes to
 * each. */
static int cells_by_rule(const struct tech_game *g, int8_t *xs, int8_t *ys)
{
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    int n = 0;
    for (int i = 0; i < g->ncity; i++)
        for (int k = 0; k < 4; k++) {
            int x = g->cx[g->city[i]] + dx[k], y = g->cy[g->city[i]] + dy[k];
            bool dup = false;
            for (int j = 0; j < n; j++)
                dup |= xs[j] == x && ys[j] == y;
            bool on_board = x >= -TECH_MAX_COORD && x <= TECH_MAX_COORD && y >= -TECH_MAX_COORD &&
                            y <= TECH_MAX_COORD;
            if (!dup && on_board && tech_card_at(g, x, y) == TECH_NONE) {
                cr_assert(tech_cell_open(g, x, y), "(%d,%d) is open", x, y);
                xs[n] = (int8_t)x;
                ys[n] = (int8_t)y;
                n++;
            }
        }
    return n;
}

static void expect_same_cells(const struct tech_game *g)
{
    int8_t xs[TECH_MAX_CELLS], ys[TECH_MAX_CELLS], rx[TECH_MAX_CELLS], ry[TECH_MAX_CELLS];
    int n = tech_open_cells(g, xs, ys, TECH_MAX_CELLS), want = cells_by_rule(g, rx, ry);
    cr_assert_eq(n, want, "%d open cells, the rule gives %d", n, want);
    for (int k = 0; k < n; k++)
        cr_assert(xs[k] == rx[k] && ys[k] == ry[k], "cell %d: (%d,%d), the rule gives (%d,%d)", k,
                  xs[k], ys[k], rx[k], ry[k]);
}

Test(tech_bots, open_cells_are_the_empty_cells_next_to_the_city_in_city_order)
{
    static struct tech_game g;
    for (int n = 0; n < 60; n++) {
        int players = 1 + n % TECH_MAX_PLAYERS;
        cr_assert_eq(tech_new(&g, &tcat, players, 500 + (uint64_t)n), TECH_OK);
        struct bot bot[TECH_MAX_PLAYERS];
        for (int s = 0; s < players; s++)
            bot_init(&bot[s], n % 2 ? BOT_GREEDY : BOT_RANDOM, (uint64_t)(n * 7 + s));
        while (g.step != TECH_STEP_OVER) {
            expect_same_cells(&g);
            for (int s = 0; s < players; s++) {
                struct tech_decision d;
                if (tech_bot_decide(&bot[s], &g, s, &d))
                    cr_assert_eq(tech_submit(&g, s, &d), TECH_OK);
            }
            cr_assert(tech_resolve(&g, NULL));
        }
        expect_same_cells(&g);
    }
}

Test(tech_bots, open_cells_of_a_city_spread_past_the_grid_and_at_the_board_edge)
{
    static struct tech_game g;
    tk_new(&g, 2);
    /* a line from the seed card to the board's edge (x = 120) and a column down to y = -60:
     * a bounding box of 121 x 61 cells, past tech_open_cells()'s grid */
    int placed = 0;
    for (int c = 0; c < g.ncards && placed < 40; c++) {
        bool in_deck = false;
        for (int i = 0; i < g.ndeck; i++)
            in_deck |= g.deck[i] == c;
        if (!in_deck)
            continue;
        int x = placed < 20 ? TECH_MAX_COORD - placed : 0, y = placed < 20 ? 0 : -3 * (placed - 19);
        tk_city(&g, c, x, y, placed % 3 == 0 ? 0 : TECH_NONE);
        placed++;
    }
    cr_assert_eq(placed, 40);
    cr_assert(tech_check_conservation(&g));
    expect_same_cells(&g);
    /* a small box (the grid) touching the edge: x = 121 is off the board */
    tk_new(&g, 2);
    for (int k = 0; k < 3; k++)
        tk_city(&g, g.deck[0], TECH_MAX_COORD - k, k % 2, 1);
    expect_same_cells(&g);
}
