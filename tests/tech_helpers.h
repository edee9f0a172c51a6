/* tech_helpers.h: shared helpers of Tech City's tests — load the real card file, find card
 * instances by slug, move instances between places (deck, discard pile, hands, city, expelled)
 * so that card conservation still holds, open a chosen decision point, and record events. */
#ifndef TECH_TEST_HELPERS_H
#define TECH_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset.h"
#include "tech_city/tech.h"
#include "tech_city/tech_bots.h"
#include "tech_city/tech_cards.h"
#include "tech_city/tech_internal.h"
#include "tech_city/tech_json.h"

extern const struct ruleset ruleset_tech_city;

static struct tech_catalog tcat;

static inline void tech_card_path(char *path, size_t n)
{
    const char *root = getenv("CITY_ROOT");
    snprintf(path, n, "%s/cards/tech_city.json", root && *root ? root : ".");
}

/* Loads cards/tech_city.json under $CITY_ROOT into tcat and into the ruleset's own catalog. */
static inline void load_tech(void)
{
    char path[4096], err[512] = "";
    tech_card_path(path, sizeof path);
    cr_assert(tech_catalog_load_file(&tcat, path, err, (int)sizeof err), "cannot load %s: %s", path,
              err);
    cr_assert(ruleset_tech_city.load_cards(path, err, (int)sizeof err), "%s", err);
}

/* Instance id of the k-th copy (from 0) of design `slug` in a game of g->ncards cards. */
static inline int tcard(const struct tech_game *g, const char *slug, int k)
{
    int d = tech_catalog_find(&tcat, slug);
    cr_assert(d >= 0, "no design \"%s\"", slug);
    for (int c = 0; c < g->ncards; c++)
        if (tcat.card_design[c % tcat.deck_size] == d && k-- == 0)
            return c;
    cr_assert_fail("too few copies of \"%s\"", slug);
    return -1;
}

static inline bool tk_remove_from(uint8_t *arr, uint8_t *n, int card)
{
    for (int i = 0; i < *n; i++)
        if (arr[i] == card) {
            memmove(&arr[i], &arr[i + 1], (size_t)(*n - i - 1));
            (*n)--;
            return true;
        }
    return false;
}

/* Takes card out of wherever it is. */
static inline void tk_take(struct tech_game *g, int card)
{
    if (tk_remove_from(g->deck, &g->ndeck, card) ||
        tk_remove_from(g->discard, &g->ndiscard, card) ||
        tk_remove_from(g->expelled, &g->nexpelled, card))
        return;
    for (int s = 0; s < g->players; s++)
        if (tk_remove_from(g->seats[s].hand, &g->seats[s].nhand, card))
            return;
    for (int i = 0; i < g->ncity; i++)
        if (g->city[i] == card) {
            tech_city_remove(g, card);
            return;
        }
    cr_assert_fail("card %d is nowhere", card);
}

static inline void tk_hand(struct tech_game *g, int seat, int card)
{
    tk_take(g, card);
    g->seats[seat].hand[g->seats[seat].nhand++] = (uint8_t)card;
}

static inline void tk_city(struct tech_game *g, int card, int x, int y, int owner)
{
    tk_take(g, card);
    tech_city_put(g, card, x, y, owner);
}

static inline void tk_deck_top(struct tech_game *g, int card)
{
    tk_take(g, card);
    g->deck[g->ndeck++] = (uint8_t)card;
}

static inline void tk_discard(struct tech_game *g, int card)
{
    tk_take(g, card);
    g->discard[g->ndiscard++] = (uint8_t)card;
}

/* Empties every hand onto the bottom of the deck. */
static inline void tk_clear_hands(struct tech_game *g)
{
    for (int s = 0; s < g->players; s++)
        while (g->seats[s].nhand) {
            int c = g->seats[s].hand[0];
            tk_take(g, c);
            memmove(&g->deck[1], &g->deck[0], g->ndeck);
            g->deck[0] = (uint8_t)c;
            g->ndeck++;
        }
}

/* A new game of `players` seats from seed 1 with empty hands, and seat 0 first. */
static inline void tk_new(struct tech_game *g, int players)
{
    cr_assert_eq(tech_new(g, &tcat, players, 1), TECH_OK);
    tk_clear_hands(g);
    g->first = 0;
}

/* Instance of the company of `domain` and `value` (first copy). */
static inline int tk_vd(const struct tech_game *g, int domain, int value)
{
    (void)g;
    for (int c = 0; c < tcat.deck_size; c++) {
        const struct tech_design *d = &tcat.designs[tcat.card_design[c]];
        if (d->domain == domain && d->value == value)
            return c;
    }
    cr_assert_fail("no %d of domain %d", value, domain);
    return -1;
}

/* Instance of the k-th company (from 0, in file order) whose effect is primitive `prim`, not a
 * service when `company` is set. */
static inline int tk_prim(const struct tech_game *g, int prim, bool company, int k)
{
    (void)g;
    for (int c = 0; c < tcat.deck_size; c++) {
        const struct tech_design *d = &tcat.designs[tcat.card_design[c]];
        if (d->domain != DOMAIN_WILD && d->effect.prim == prim &&
            (!company || d->domain != DOMAIN_SERVICE) && k-- == 0)
            return c;
    }
    cr_assert_fail("no card with primitive %s", tech_prim_name(prim));
    return -1;
}

/* A wild card's instance. */
static inline int tk_wild(const struct tech_game *g, int k)
{
    (void)g;
    for (int c = 0; c < tcat.deck_size; c++)
        if (tcat.designs[tcat.card_design[c]].domain == DOMAIN_WILD && k-- == 0)
            return c;
    cr_assert_fail("no wild card");
    return -1;
}

/* Opens a point of `step` for the seats in mask, `actor` acting (build/effect turns). */
static inline void tk_point(struct tech_game *g, int step, int actor, unsigned mask)
{
    g->step = (uint8_t)step;
    g->actor = (uint8_t)actor;
    g->phase_i = (uint8_t)((actor - g->first + g->players) % g->players);
    g->pending = (uint8_t)mask;
    g->submitted = g->defaulted = 0;
    g->run.stage = RUN_NONE;
    g->choose_kind = CHOOSE_NONE;
}

static inline void tk_build_turn(struct tech_game *g, int seat)
{
    tk_point(g, TECH_STEP_BUILD, seat, 1u << seat);
}

static inline void tk_effect_turn(struct tech_game *g, int seat)
{
    for (int s = 0; s < g->players; s++)
        g->seats[s].used_normal = g->seats[s].used_free = g->seats[s].passed = false;
    tk_point(g, TECH_STEP_EFFECT, seat, 1u << seat);
}

/* Decisions by hand. */
static inline struct tech_decision tk_pass(void)
{
    struct tech_decision d;
    tech_decision_init(&d);
    d.kind = TDEC_PASS;
    return d;
}

static inline struct tech_decision tk_build(int card, int x, int y, int npay, int p0, int p1)
{
    struct tech_decision d;
    tech_decision_init(&d);
    d.kind = TDEC_BUILD;
    d.card = (uint8_t)card;
    d.x = (int8_t)x;
    d.y = (int8_t)y;
    d.npay = (uint8_t)npay;
    d.pay[0] = (uint8_t)p0;
    d.pay[1] = (uint8_t)p1;
    return d;
}

static inline struct tech_decision tk_use(int x, int y)
{
    struct tech_decision d;
    tech_decision_init(&d);
    d.kind = TDEC_USE;
    d.x = (int8_t)x;
    d.y = (int8_t)y;
    return d;
}

static inline struct tech_decision tk_cards(int n, const int *cards)
{
    struct tech_decision d;
    tech_decision_init(&d);
    d.kind = TDEC_CARDS;
    d.ncards = (uint8_t)n;
    for (int i = 0; i < n; i++)
        d.cards[i] = (uint8_t)cards[i];
    return d;
}

/* Submits (expecting success) and resolves when ready. */
static inline void tk_do(struct tech_game *g, int seat, struct tech_decision d)
{
    int e = tech_submit(g, seat, &d);
    cr_assert_eq(e, TECH_OK, "seat %d refused: %s", seat, tech_error_code(e));
    if (tech_ready(g))
        cr_assert(tech_resolve(g, NULL));
}

static inline bool tk_in_hand(const struct tech_game *g, int seat, int card)
{
    for (int i = 0; i < g->seats[seat].nhand; i++)
        if (g->seats[seat].hand[i] == card)
            return true;
    return false;
}

static inline bool tk_in(const uint8_t *arr, int n, int card)
{
    for (int i = 0; i < n; i++)
        if (arr[i] == card)
            return true;
    return false;
}

/* Records the type names of events. */
struct tk_log {
    int n;
    struct tech_event ev[512];
};

static inline void tk_record(void *ctx, const struct tech_event *e)
{
    struct tk_log *l = ctx;
    if (l->n < 512)
        l->ev[l->n++] = *e;
}

static inline int tk_count(const struct tk_log *l, int type)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += l->ev[i].type == type;
    return n;
}

#endif
