/* sc_helpers.h: shared helpers of SimCity's tests — load the real card file or a small catalog
 * of the test's own cards (with filler designs that meet the deck's minimums), find card
 * instances by slug, move instances between places so that card conservation still holds, lay
 * out a city by hand, and play a decision through the engine. */
#ifndef SC_TEST_HELPERS_H
#define SC_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simcity/sc.h"
#include "simcity/sc_cards.h"
#include "simcity/sc_internal.h"

static struct sc_catalog scat;

/* Loads cards/simcity.json under $CITY_ROOT into scat. */
static inline void load_sc(void)
{
    char path[4096], err[512] = "";
    const char *root = getenv("CITY_ROOT");
    snprintf(path, sizeof path, "%s/cards/simcity.json", root && *root ? root : ".");
    cr_assert(sc_catalog_load_file(&scat, path, err, (int)sizeof err), "cannot load %s: %s", path,
              err);
}

/* Builds scat from the test's own cards (card objects as JSON, NULL-terminated)
 * after filler designs that meet the deck's minimums at every player count: homes (white, 3
 * sims, road both ways), shops (white, requiring 1), power plants, and plains. */
static inline void test_catalog(const char *const *list)
{
    static char text[32768], cards[24576];
    cards[0] = '\0';
    for (int i = 0; list && list[i]; i++)
        snprintf(cards + strlen(cards), sizeof cards - strlen(cards), "%s%s", i ? "," : "",
                 list[i]);
    snprintf(text, sizeof text,
             "{\"format\": 1, \"cards\": ["
             "{\"id\": \"zz_home\", \"name\": \"Home\", \"kind\": \"block\", \"phase\": 1, "
             "\"zone\": \"residential\", \"value\": 1, \"sims\": 3, \"road\": \"NESW\", "
             "\"copies\": {\"base\": 12, \"pack\": 3}},"
             "{\"id\": \"zz_shop\", \"name\": \"Shop\", \"kind\": \"block\", \"phase\": 1, "
             "\"zone\": \"commercial\", \"value\": 1, \"sims\": -1, \"road\": \"NESW\", "
             "\"copies\": {\"base\": 16, \"pack\": 4}},"
             "{\"id\": \"zz_plant\", \"name\": \"Plant\", \"kind\": \"block\", \"phase\": 3, "
             "\"zone\": \"services\", \"value\": 5, \"power\": true, \"road\": \"NESW\", "
             "\"specials\": [{\"coverage\": \"power\", \"per_block\": 1, \"new_only\": true}], "
             "\"copies\": {\"base\": 2, \"pack\": 1}},"
             "{\"id\": \"zz_plains\", \"name\": \"Plains\", \"kind\": \"block\", \"phase\": 1, "
             "\"zone\": \"land\", \"land\": \"plains\", \"value\": 1, "
             "\"copies\": {\"base\": 5, \"pack\": 2}}%s%s]}",
             *cards ? "," : "", cards);
    char err[512] = "";
    cr_assert(sc_catalog_from_json(&scat, text, "test", err, (int)sizeof err), "%s", err);
}

static inline int sk_design(const char *slug)
{
    int d = sc_catalog_find(&scat, slug);
    cr_assert(d >= 0, "no design \"%s\"", slug);
    return d;
}

static inline bool sk_remove_from(uint8_t *arr, uint8_t *n, int card)
{
    for (int i = 0; i < *n; i++)
        if (arr[i] == card) {
            memmove(&arr[i], &arr[i + 1], (size_t)(*n - i - 1));
            (*n)--;
            return true;
        }
    return false;
}

/* Takes card out of wherever it is (nowhere afterwards: the caller puts it somewhere). */
static inline void sk_take(struct sc_game *g, int card)
{
    if (g->cell_of[card] != SC_NONE) {
        sc_city_remove(g, card, NULL); /* onto the discard pile, from which it is taken */
    }
    if (sk_remove_from(g->deck, &g->ndeck, card) || sk_remove_from(g->discard, &g->ndiscard, card))
        return;
    for (int s = 0; s < g->players; s++)
        if (sk_remove_from(g->seats[s].hand, &g->seats[s].nhand, card) ||
            sk_remove_from(g->seats[s].council, &g->seats[s].ncouncil, card))
            return;
    cr_assert_fail("card %d is nowhere", card);
}

/* A copy of design `slug` in the deck or the discard pile. */
static inline int sk_free_copy(const struct sc_game *g, const char *slug)
{
    int d = sk_design(slug);
    for (int i = 0; i < g->ndeck; i++)
        if (g->cat->card_design[g->deck[i]] == d)
            return g->deck[i];
    for (int i = 0; i < g->ndiscard; i++)
        if (g->cat->card_design[g->discard[i]] == d)
            return g->discard[i];
    cr_assert_fail("no free copy of \"%s\"", slug);
    return -1;
}

/* Puts a free copy of `slug` on top of cell (x, y); returns it. */
static inline int sk_put(struct sc_game *g, const char *slug, int x, int y)
{
    int card = sk_free_copy(g, slug);
    sk_take(g, card);
    sc_city_put(g, card, sc_cell(g, x, y));
    return card;
}

/* Gives seat a free copy of `slug`; returns it. */
static inline int sk_give(struct sc_game *g, int seat, const char *slug)
{
    int card = sk_free_copy(g, slug);
    sk_take(g, card);
    g->seats[seat].hand[g->seats[seat].nhand++] = (uint8_t)card;
    return card;
}

/* Puts a free copy of `slug` on top of the deck (the next card drawn); returns it. */
static inline int sk_top(struct sc_game *g, const char *slug)
{
    int card = sk_free_copy(g, slug);
    sk_take(g, card);
    g->deck[g->ndeck++] = (uint8_t)card;
    return card;
}

/* Seat holds member `slug` before it (as if bought). */
static inline int sk_member(struct sc_game *g, int seat, const char *slug)
{
    int card = sk_free_copy(g, slug);
    sk_take(g, card);
    g->seats[seat].council[g->seats[seat].ncouncil++] = (uint8_t)card;
    return card;
}

/* Sends every card back to the deck (hands, councils, city, discard pile) and empties the
 * surface; the game stays at its current point. */
static inline void sk_clear(struct sc_game *g)
{
    for (int c = 0; c < SC_CELLS; c++)
        while (g->top[c] != SC_NONE) {
            int k = g->top[c];
            sk_take(g, k);
            g->deck[g->ndeck++] = (uint8_t)k;
        }
    for (int s = 0; s < g->players; s++) {
        while (g->seats[s].nhand)
            g->deck[g->ndeck++] = g->seats[s].hand[--g->seats[s].nhand];
        while (g->seats[s].ncouncil)
            g->deck[g->ndeck++] = g->seats[s].council[--g->seats[s].ncouncil];
    }
    while (g->ndiscard)
        g->deck[g->ndeck++] = g->discard[--g->ndiscard];
    memset(g->scorched, 0, sizeof g->scorched);
    cr_assert(sc_check_conservation(g));
}

/* A game of `players` at its first play point with an empty city, empty hands, $0 each; seat
 * 0 plays first. */
static inline void sk_setup(struct sc_game *g, int players)
{
    cr_assert_eq(sc_new(g, &scat, players, 42, 0), SC_OK);
    cr_assert_eq(g->step, SC_STEP_PLAY);
    sk_clear(g);
    g->first = g->actor = 0;
    g->pending = 1;
}

/* The mode of seat's play of `card` at (x, y), or -1 with the error in *err. */
static inline int sk_mode(const struct sc_game *g, int seat, int card, int x, int y, int *err)
{
    int mode = -1;
    int e = sc_play_check(g, seat, card, x, y, &mode);
    if (err)
        *err = e;
    return e == SC_OK ? mode : -1;
}

/* Submits a decision for seat (it must be legal) and resolves the point. */
static inline void sk_decide(struct sc_game *g, int seat, const struct sc_decision *d)
{
    int e = sc_submit(g, seat, d);
    cr_assert_eq(e, SC_OK, "refused: %s (step %s)", sc_error_code(e), sc_step_name(g->step));
    cr_assert(sc_resolve(g, NULL));
}

/* Seat plays card at (x, y). */
static inline void sk_play(struct sc_game *g, int seat, int card, int x, int y)
{
    struct sc_decision d;
    sc_decision_init(&d);
    d.kind = SC_DEC_PLAY;
    d.card = (uint8_t)card;
    d.x = (int8_t)x;
    d.y = (int8_t)y;
    sk_decide(g, seat, &d);
}

/* Seat passes (the current step's pass or default). */
static inline void sk_pass(struct sc_game *g, int seat)
{
    struct sc_decision d;
    sc_default_decision(g, seat, &d);
    sk_decide(g, seat, &d);
}

/* The seat pending now (the lowest when several). */
static inline int sk_pending(const struct sc_game *g)
{
    cr_assert_neq(g->pending, 0, "nobody is pending (step %s)", sc_step_name(g->step));
    return __builtin_ctz(g->pending);
}

#endif
