/* helpers.h: shared test helpers — load the real card catalog, find card instances by design
 * slug, and build game positions by hand by moving instances between places (deck, discard,
 * hands, tableaux, pool, removed) so that card conservation still holds. */
#ifndef CITY_TEST_HELPERS_H
#define CITY_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "the_city/city_bots.h"
#include "the_city/city_cards.h"
#include "the_city/city.h"

/* Where a card instance can be. */
enum place { AT_NOWHERE, AT_DECK, AT_DISCARD, AT_HAND, AT_TABLEAU, AT_POOL, AT_REMOVED };

/* Loads cards/cards.json under $CITY_ROOT (or the working directory) into *cat; fails the
 * test with the loader's sentence when it cannot. */
static inline void load_catalog(struct city_catalog *cat)
{
    const char *root = getenv("CITY_ROOT");
    char path[4096], err[512] = "";
    snprintf(path, sizeof path, "%s/cards/cards.json", root && *root ? root : ".");
    bool ok = city_catalog_load_file(cat, path, err, (int)sizeof err);
    cr_assert(ok, "cannot load %s: %s", path, err);
}

/* Design index of slug `slug`; fails the test when the catalog has no such design. */
static inline int design(const struct city_catalog *cat, const char *slug)
{
    int d = city_catalog_find(cat, slug);
    cr_assert(d >= 0, "the catalog has no design \"%s\"", slug);
    return d;
}

static inline const struct city_design *dsg(const struct city_catalog *cat, const char *slug)
{
    return &cat->designs[design(cat, slug)];
}

/* Instance id of the k-th (from 0) copy of design `slug`; fails the test when there is none. */
static inline int card_of(const struct city_catalog *cat, const char *slug, int k)
{
    int d = design(cat, slug);
    for (int c = 0; c < CITY_DECK_SIZE; c++)
        if (cat->card_design[c] == d && k-- == 0)
            return c;
    cr_assert_fail("the catalog has too few copies of \"%s\"", slug);
    return -1;
}

/* Finds where card `card` is: returns the place and sets *seat (for hands and tableaux) and
 * *pos (its index in that array). */
static inline enum place locate(const struct city_game *g, int card, int *seat, int *pos)
{
#define LOOK(arr, n, where, s)                                                                     \
    for (int i_ = 0; i_ < (n); i_++)                                                               \
        if ((arr)[i_] == card) {                                                                   \
            *seat = (s);                                                                           \
            *pos = i_;                                                                             \
            return (where);                                                                        \
        }
    LOOK(g->deck, g->ndeck, AT_DECK, -1)
    LOOK(g->discard, g->ndiscard, AT_DISCARD, -1)
    LOOK(g->pool, g->npool, AT_POOL, -1)
    LOOK(g->removed, g->nremoved, AT_REMOVED, -1)
    for (int s = 0; s < g->players; s++) {
        LOOK(g->seats[s].hand, g->seats[s].nhand, AT_HAND, s)
        LOOK(g->seats[s].tableau, g->seats[s].ntableau, AT_TABLEAU, s)
    }
#undef LOOK
    *seat = *pos = -1;
    return AT_NOWHERE;
}

/* Removes element `pos` from an array of `*n` bytes, keeping the order of the rest. */
static inline void cut(uint8_t *arr, uint8_t *n, int pos)
{
    memmove(&arr[pos], &arr[pos + 1], (size_t)(*n - pos - 1));
    (*n)--;
}

/* Takes card `card` out of wherever it is (the caller must put it somewhere at once). */
static inline void take_out(struct city_game *g, int card)
{
    int seat, pos;
    switch (locate(g, card, &seat, &pos)) {
    case AT_DECK:
        cut(g->deck, &g->ndeck, pos);
        break;
    case AT_DISCARD:
        cut(g->discard, &g->ndiscard, pos);
        break;
    case AT_POOL:
        cut(g->pool, &g->npool, pos);
        break;
    case AT_REMOVED:
        cut(g->removed, &g->nremoved, pos);
        break;
    case AT_HAND:
        cut(g->seats[seat].hand, &g->seats[seat].nhand, pos);
        break;
    case AT_TABLEAU:
        cut(g->seats[seat].tableau, &g->seats[seat].ntableau, pos);
        city_seat_refresh(g, seat);
        break;
    default:
        cr_assert_fail("card %d is nowhere", card);
    }
}

/* Moves card `card` to the end of seat `seat`'s hand. */
static inline void to_hand(struct city_game *g, int seat, int card)
{
    take_out(g, card);
    struct city_seat *s = &g->seats[seat];
    s->hand[s->nhand++] = (uint8_t)card;
}

/* Moves card `card` to the end of seat `seat`'s tableau (as if built last). */
static inline void to_tableau(struct city_game *g, int seat, int card)
{
    take_out(g, card);
    struct city_seat *s = &g->seats[seat];
    s->tableau[s->ntableau++] = (uint8_t)card;
    city_seat_refresh(g, seat);
}

/* Moves card `card` to the top of the deck (drawn next). */
static inline void to_deck_top(struct city_game *g, int card)
{
    take_out(g, card);
    g->deck[g->ndeck++] = (uint8_t)card;
}

/* Moves card `card` to the top of the discard pile. */
static inline void to_discard(struct city_game *g, int card)
{
    take_out(g, card);
    g->discard[g->ndiscard++] = (uint8_t)card;
}

/* Moves card `card` to the contractor pool or to the removed contractors. */
static inline void to_pool(struct city_game *g, int card)
{
    take_out(g, card);
    g->pool[g->npool++] = (uint8_t)card;
}

static inline void to_removed(struct city_game *g, int card)
{
    take_out(g, card);
    g->removed[g->nremoved++] = (uint8_t)card;
}

/* Moves the k-th copy of `slug` into seat's hand / tableau and returns its instance id. */
static inline int give_hand(struct city_game *g, int seat, const char *slug, int k)
{
    int c = card_of(g->cat, slug, k);
    to_hand(g, seat, c);
    return c;
}

static inline int give_tableau(struct city_game *g, int seat, const char *slug, int k)
{
    int c = card_of(g->cat, slug, k);
    to_tableau(g, seat, c);
    return c;
}

/* Empties seat's hand and tableau: developments go to the discard pile, General Contractors
 * back to the pool. */
static inline void clear_seat(struct city_game *g, int seat)
{
    struct city_seat *s = &g->seats[seat];
    while (s->nhand)
        to_discard(g, s->hand[0]);
    while (s->ntableau) {
        int c = s->tableau[0];
        if (g->cat->designs[g->cat->card_design[c]].contractor)
            to_pool(g, c);
        else
            to_discard(g, c);
    }
}

/* Gives seat `n` filler cards from the top of the deck down, skipping designs with variable
 * points or income, a discount, a prerequisite, a limit or a Construction Gang, so they are
 * neutral payment. Give the cards a test is about first: filler only comes from the deck. */
static inline int give_filler(struct city_game *g, int seat, int n)
{
    const struct city_catalog *cat = g->cat;
    int given = 0;
    for (int i = g->ndeck - 1; i >= 0 && given < n; i--) {
        int c = g->deck[i];
        const struct city_design *d = &cat->designs[cat->card_design[c]];
        if (d->contractor || d->construction_gang || d->discount || d->vp_var.kind ||
            d->income_var.kind || d->nrequires || d->limit)
            continue;
        to_hand(g, seat, c);
        given++;
    }
    cr_assert_eq(given, n, "not enough filler cards in the deck");
    return given;
}

/* Starts a game and plays step keep (each seat discards its first two cards), leaving round 1
 * step build. */
static inline void start_round1_target(struct city_game *g, const struct city_catalog *cat,
                                       int players, uint64_t seed, int target)
{
    cr_assert_eq(city_new(g, cat, players, seed, target), CITY_OK);
    for (int s = 0; s < players; s++) {
        struct city_decision d = {.kind = CITY_DEC_DISCARD, .ndiscard = 2};
        d.discard[0] = g->seats[s].hand[0];
        d.discard[1] = g->seats[s].hand[1];
        cr_assert_eq(city_submit(g, s, &d), CITY_OK);
    }
    cr_assert(city_resolve(g, NULL));
    cr_assert_eq(g->step, CITY_STEP_BUILD);
    cr_assert_eq(g->round, 1);
}

static inline void start_round1(struct city_game *g, const struct city_catalog *cat, int players,
                                uint64_t seed)
{
    start_round1_target(g, cat, players, seed, 0);
}

/* A round-1 build step where every seat's hand and tableau are empty (all cards in deck,
 * discard and pool): the blank board that tests fill by hand. */
static inline void blank_board_target(struct city_game *g, const struct city_catalog *cat,
                                      int players, uint64_t seed, int target)
{
    start_round1_target(g, cat, players, seed, target);
    for (int s = 0; s < players; s++)
        clear_seat(g, s);
    /* Put the discard pile back into the deck so that draws are plentiful and known. */
    while (g->ndiscard)
        to_deck_top(g, g->discard[0]);
    cr_assert(city_check_conservation(g));
}

static inline void blank_board(struct city_game *g, const struct city_catalog *cat, int players,
                               uint64_t seed)
{
    blank_board_target(g, cat, players, seed, 0);
}

/* Decisions, built in one line. */
static inline struct city_decision dec_survey(void)
{
    return (struct city_decision){.kind = CITY_DEC_SURVEY};
}

static inline struct city_decision dec_contractor(void)
{
    return (struct city_decision){.kind = CITY_DEC_CONTRACTOR};
}

/* Build `card` paying the `npay` cards in `pay`. */
static inline struct city_decision dec_build(int card, int npay, const int *pay)
{
    struct city_decision d = {.kind = CITY_DEC_BUILD, .nbuilds = 1};
    d.builds[0].card = (uint8_t)card;
    d.builds[0].npay = (uint8_t)npay;
    for (int i = 0; i < npay; i++)
        d.builds[0].pay[i] = (uint8_t)pay[i];
    return d;
}

/* Build `a` paying pa[0..na), then `b` paying pb[0..nb). */
static inline struct city_decision dec_two(int a, int na, const int *pa, int b, int nb,
                                           const int *pb)
{
    struct city_decision d = {.kind = CITY_DEC_BUILD_TWO, .nbuilds = 2};
    d.builds[0].card = (uint8_t)a;
    d.builds[0].npay = (uint8_t)na;
    for (int i = 0; i < na; i++)
        d.builds[0].pay[i] = (uint8_t)pa[i];
    d.builds[1].card = (uint8_t)b;
    d.builds[1].npay = (uint8_t)nb;
    for (int i = 0; i < nb; i++)
        d.builds[1].pay[i] = (uint8_t)pb[i];
    return d;
}

static inline struct city_decision dec_discard(int n, const int *cards)
{
    struct city_decision d = {.kind = CITY_DEC_DISCARD, .ndiscard = (uint8_t)n};
    for (int i = 0; i < n; i++)
        d.discard[i] = (uint8_t)cards[i];
    return d;
}

/* The first `n` cards of seat's hand, skipping cards `ex1` and `ex2` (-1 for none) and the
 * first `skip` eligible cards, written to out. */
static inline void hand_cards(const struct city_game *g, int seat, int ex1, int ex2, int skip,
                              int n, int *out)
{
    const struct city_seat *s = &g->seats[seat];
    int k = 0;
    for (int i = 0; i < s->nhand && k < n; i++) {
        if (s->hand[i] == ex1 || s->hand[i] == ex2)
            continue;
        if (skip > 0) {
            skip--;
            continue;
        }
        out[k++] = s->hand[i];
    }
    cr_assert_eq(k, n, "seat %d has too few cards to pay %d", seat, n);
}

/* Has seat's hand / tableau this card? */
static inline bool in_hand(const struct city_game *g, int seat, int card)
{
    for (int i = 0; i < g->seats[seat].nhand; i++)
        if (g->seats[seat].hand[i] == card)
            return true;
    return false;
}

static inline bool in_tableau(const struct city_game *g, int seat, int card)
{
    for (int i = 0; i < g->seats[seat].ntableau; i++)
        if (g->seats[seat].tableau[i] == card)
            return true;
    return false;
}

/* Icons of kind `icon` printed over seat's tableau, repeats counted (the test's own count). */
static inline int icons_of(const struct city_game *g, int seat, int icon)
{
    int n = 0;
    for (int i = 0; i < g->seats[seat].ntableau; i++)
        n += g->cat->designs[city_design_of(g, g->seats[seat].tableau[i])].icons[icon];
    return n;
}

/* Copies of design `d` in seat's tableau. */
static inline int copies_of(const struct city_game *g, int seat, int d)
{
    int n = 0;
    for (int i = 0; i < g->seats[seat].ntableau; i++)
        n += city_design_of(g, g->seats[seat].tableau[i]) == d;
    return n;
}

/* Tableau position of `card` in seat's tableau, or -1. */
static inline int tableau_pos(const struct city_game *g, int seat, int card)
{
    for (int i = 0; i < g->seats[seat].ntableau; i++)
        if (g->seats[seat].tableau[i] == card)
            return i;
    return -1;
}

/* Variable value of a struct city_variable as the rules define it, counted by the test. */
static inline int rule_variable(const struct city_game *g, int seat, int d,
                                const struct city_variable *v)
{
    switch (v->kind) {
    case CITY_VAR_ICON:
        return v->amount * icons_of(g, seat, v->icon);
    case CITY_VAR_ICON_WITH_OTHER: {
        int best = 0;
        for (int o = 0; o < g->players; o++)
            if (o != seat && icons_of(g, o, v->icon) > best)
                best = icons_of(g, o, v->icon);
        return v->amount * (icons_of(g, seat, v->icon) + best);
    }
    case CITY_VAR_OTHER_COPY:
        return v->amount * (copies_of(g, seat, d) - 1);
    case CITY_VAR_CARD_OWN:
        return v->amount * copies_of(g, seat, v->card);
    case CITY_VAR_CARD_ALL: {
        int n = 0;
        for (int o = 0; o < g->players; o++)
            n += copies_of(g, o, v->card);
        return v->amount * n;
    }
    default:
        return 0;
    }
}

/* What seat's tableau scores / earns per round by the rules, counted by the test. */
static inline int rule_round_vp(const struct city_game *g, int seat)
{
    int sum = 0;
    for (int i = 0; i < g->seats[seat].ntableau; i++) {
        int d = city_design_of(g, g->seats[seat].tableau[i]);
        sum += g->cat->designs[d].vp + rule_variable(g, seat, d, &g->cat->designs[d].vp_var);
    }
    return sum;
}

static inline int rule_income(const struct city_game *g, int seat)
{
    int sum = 0;
    for (int i = 0; i < g->seats[seat].ntableau; i++) {
        int d = city_design_of(g, g->seats[seat].tableau[i]);
        sum +=
            g->cat->designs[d].income + rule_variable(g, seat, d, &g->cat->designs[d].income_var);
    }
    return sum;
}

/* Effective cost of design `d` for seat by the rules, counted by the test: printed cost less
 * the discount of each kind of discount card in the tableau (plus design `extra` when it is
 * not -1, as the first of two builds), never below 0. */
static inline int rule_cost(const struct city_game *g, int seat, int d, int extra)
{
    const struct city_catalog *cat = g->cat;
    bool kind[CITY_MAX_DESIGNS] = {false};
    for (int i = 0; i < g->seats[seat].ntableau; i++)
        kind[city_design_of(g, g->seats[seat].tableau[i])] = true;
    if (extra >= 0)
        kind[extra] = true;
    int cost = cat->designs[d].cost;
    for (int k = 0; k < cat->ndesigns; k++)
        if (kind[k] && cat->designs[k].discount && (cat->designs[k].discount_to >> d & 1))
            cost -= cat->designs[k].discount;
    return cost < 0 ? 0 : cost;
}

/* Whether design `d` may enter seat's tableau by the rules (prerequisites and limit; not a
 * General Contractor), with design `extra` (or -1) counted as already built. */
static inline bool rule_admits(const struct city_game *g, int seat, int d, int extra)
{
    const struct city_design *x = &g->cat->designs[d];
    if (x->contractor)
        return false;
    for (int r = 0; r < x->nrequires; r++)
        if (!copies_of(g, seat, x->requires[r]) && extra != x->requires[r])
            return false;
    return !x->limit || copies_of(g, seat, d) + (extra == d) < x->limit;
}

/* Whether seat owns a Construction Gang. */
static inline bool rule_has_gang(const struct city_game *g, int seat)
{
    for (int i = 0; i < g->seats[seat].ntableau; i++)
        if (g->cat->designs[city_design_of(g, g->seats[seat].tableau[i])].construction_gang)
            return true;
    return false;
}

/* Records the events a resolution emits. */
struct recorder {
    int n;
    struct city_event ev[1024];
};

static inline void record_event(void *ctx, const struct city_event *e)
{
    struct recorder *r = ctx;
    if (r->n < (int)(sizeof r->ev / sizeof r->ev[0]))
        r->ev[r->n++] = *e;
}

/* How many recorded events are of `type` (for seat `seat`, or any seat when seat is -2). */
static inline int count_events(const struct recorder *r, int type, int seat)
{
    int n = 0;
    for (int i = 0; i < r->n; i++)
        n += r->ev[i].type == type && (seat == -2 || r->ev[i].seat == seat);
    return n;
}

/* Submits `d` for seat and asserts it is accepted. */
#define SUBMIT_OK(g, seat, d)                                                                      \
    do {                                                                                           \
        struct city_decision d_ = (d);                                                             \
        int e_ = city_submit((g), (seat), &d_);                                                    \
        cr_assert_eq(e_, CITY_OK, "seat %d refused: %s", (seat), city_error_code(e_));             \
    } while (0)

/* Submits `d` for seat and asserts it is refused with `err`, changing nothing. */
#define SUBMIT_ERR(g, seat, d, err)                                                                \
    do {                                                                                           \
        struct city_decision d_ = (d);                                                             \
        struct city_game before_;                                                                  \
        memcpy(&before_, (g), sizeof before_);                                                     \
        int e_ = city_submit((g), (seat), &d_);                                                    \
        cr_assert_eq(e_, (err), "seat %d: expected %s, got %s", (seat), city_error_code(err),      \
                     city_error_code(e_));                                                         \
        cr_assert(memcmp(&before_, (g), sizeof before_) == 0, "a refused submit changed the "      \
                                                              "game");                             \
    } while (0)

#endif
