/* tech_build.c: Tech City's build step: where a card may go, what pays for it, what it scores,
 * services and their helpers, wild cards (see docs/tech_city.md, "Build"). */
#include "tech_internal.h"

int tech_match_points(const struct tech_game *g, int seat, int value, int domain)
{
    int matches = value >= 0 && value <= TECH_VALUES ? g->by_value[value] : 0;
    int base = matches < TECH_SCORE_CAP_MATCH ? matches : TECH_SCORE_CAP_MATCH;
    int science = tech_controls(g, seat, DOMAIN_SCIENCE) + (domain == DOMAIN_SCIENCE);
    return base + (base >= 2 && science >= 2);
}

int tech_neighbour_point(const struct tech_game *g, int seat, int x, int y)
{
    int near = 0;
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        int dx = g->cx[c] - x, dy = g->cy[c] - y;
        if (g->owner[c] == seat && dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 && (dx || dy))
            near++;
    }
    return near >= 2;
}

int tech_build_points(const struct tech_game *g, int seat, int card, int x, int y, int as_value,
                      int as_domain)
{
    const struct tech_design *d = tech_design_of(g, card);
    int value = d->domain == DOMAIN_WILD ? as_value : d->value;
    int domain = d->domain == DOMAIN_WILD ? as_domain : d->domain;
    return tech_match_points(g, seat, value, domain) + tech_neighbour_point(g, seat, x, y);
}

unsigned tech_pay_counts_with(const struct tech_game *g, int tech, int card)
{
    if (tech_design_of(g, card)->domain == DOMAIN_SERVICE) /* the builder's own help */
        return g->players == 1 ? 1u << 1 : 1u << 0 | 1u << 1;
    /* two cards of any value pay whatever one Technology company adds (the rule text's "can") */
    return tech >= 2 ? 1u << 0 : 1u << 1 | 1u << 2;
}

unsigned tech_pay_counts(const struct tech_game *g, int seat, int card)
{
    return tech_pay_counts_with(g, tech_controls(g, seat, DOMAIN_TECHNOLOGY), card);
}

bool tech_pays_alone_with(const struct tech_game *g, int tech, int card, int payer)
{
    if (tech_design_of(g, card)->domain == DOMAIN_SERVICE)
        return true; /* any one card helps */
    const struct tech_design *p = tech_design_of(g, payer);
    return tech < 2 && (tech == 1 || p->domain == DOMAIN_WILD || p->value <= TECH_CHEAP_VALUE);
}

bool tech_pays_alone(const struct tech_game *g, int seat, int card, int payer)
{
    return tech_pays_alone_with(g, tech_controls(g, seat, DOMAIN_TECHNOLOGY), card, payer);
}

/* True when some card in play has this value and domain (what a wild card may name). */
static bool in_play(const struct tech_game *g, int value, int domain)
{
    for (int i = 0; i < g->ncity; i++) {
        const struct tech_design *d = tech_design_of(g, g->city[i]);
        if (d->value == value && d->domain == domain)
            return true;
    }
    return false;
}

int tech_check_build(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    if (!tech_in_hand(g, seat, d->card))
        return TECH_ERR_NOT_IN_HAND;
    if (d->x < -TECH_MAX_COORD || d->x > TECH_MAX_COORD || d->y < -TECH_MAX_COORD ||
        d->y > TECH_MAX_COORD)
        return TECH_ERR_OFF_GRID;
    if (!tech_cell_open(g, d->x, d->y)) /* an open cell is empty */
        return tech_card_at(g, d->x, d->y) != TECH_NONE ? TECH_ERR_CELL_TAKEN
                                                        : TECH_ERR_NOT_ADJACENT;
    if (d->npay > 2)
        return TECH_ERR_PAYMENT;
    for (int i = 0; i < d->npay; i++) {
        if (!tech_in_hand(g, seat, d->pay[i]))
            return TECH_ERR_NOT_IN_HAND;
        if (d->pay[i] == d->card || (i == 1 && d->pay[0] == d->pay[1]))
            return TECH_ERR_DUPLICATE_CARD;
    }
    const struct tech_design *ds = tech_design_of(g, d->card);
    if (ds->domain == DOMAIN_WILD) {
        if (d->as_domain < 0 || d->as_domain >= DOMAIN_WILD ||
            !in_play(g, d->as_value, d->as_domain))
            return TECH_ERR_WILD_NAME;
    } else if (d->as_value != 0 || d->as_domain != -1) {
        return TECH_ERR_NEEDLESS_CHOICE;
    }
    if (!(tech_pay_counts(g, seat, d->card) & 1u << d->npay))
        return TECH_ERR_PAYMENT;
    if (d->npay == 1 && !tech_pays_alone(g, seat, d->card, d->pay[0]))
        return TECH_ERR_PAYMENT;
    return TECH_OK;
}

/* Builds d->card for seat (payment already checked) and scores it; `minimum` is the least it
 * scores (1 for a service). */
void tech_do_build(struct tech_game *g, int seat, const struct tech_decision *d, int minimum,
                   const struct tech_events *ev)
{
    const struct tech_design *ds = tech_design_of(g, d->card);
    int points = tech_build_points(g, seat, d->card, d->x, d->y, d->as_value, d->as_domain);
    if (points < minimum)
        points = minimum;
    tech_hand_remove(g, seat, d->card);
    for (int i = 0; i < d->npay; i++)
        tech_spend(g, seat, d->pay[i], ev);
    g->built_designs |= 1ULL << g->cat->card_design[d->card % g->cat->deck_size];
    if (ds->domain != DOMAIN_WILD) {
        tech_city_put(g, d->card, d->x, d->y, seat);
        tech_emit_at(g, ev, TEV_BUILT, seat, d->card, d->x, d->y, false, d->npay, points);
        tech_score(g, seat, points, ev);
        return;
    }
    /* A wild card scores as the card it names, then the top card of the deck takes its place
     * (a wild card drawn for it is expelled too) and it is expelled. */
    tech_emit_at(g, ev, TEV_BUILT, seat, d->card, d->x, d->y, true, d->npay, points);
    tech_score(g, seat, points, ev);
    tech_expel(g, d->card, ev);
    for (;;) {
        int c = tech_pop_deck(g, ev);
        if (c == TECH_NONE)
            return;
        if (tech_design_of(g, c)->domain == DOMAIN_WILD) {
            tech_expel(g, c, ev);
            continue;
        }
        tech_city_put(g, c, d->x, d->y, seat);
        tech_emit_at(g, ev, TEV_PLACED, seat, c, d->x, d->y, false, 0, 0);
        return;
    }
}

/* A service's help is in: built when at least two cards were given, one of them by another
 * seat; else it goes back (nothing left the hands). */
void tech_resolve_service(struct tech_game *g, const struct tech_events *ev)
{
    int builder = g->actor;
    const struct tech_decision *b = &g->build;
    int given = b->npay, others = 0;
    for (int s = 0; s < g->players; s++)
        if (s != builder && (g->submitted & (1u << s)) && g->dec[s].kind == TDEC_HELP)
            others++;
    given += others;
    if (given < 2 || others < 1) {
        tech_emit(g, ev, TEV_SERVICE_FAILED, builder, b->card, given, 0);
        return;
    }
    struct tech_decision own = *b;
    own.npay = 0;
    for (int i = 0; i < b->npay; i++)
        tech_emit_at(g, ev, TEV_HELPED, builder, b->pay[i], 0, 0, false, 0, 0);
    for (int i = 0; i < b->npay; i++)
        tech_spend(g, builder, b->pay[i], ev);
    for (int k = 1; k < g->players; k++) {
        int s = (builder + k) % g->players;
        if ((g->submitted & (1u << s)) && g->dec[s].kind == TDEC_HELP) {
            tech_emit_at(g, ev, TEV_HELPED, s, g->dec[s].card, 0, 0, false, 0, 0);
            tech_spend(g, s, g->dec[s].card, ev);
        }
    }
    tech_do_build(g, builder, &own, 1, ev);
    for (int k = 1; k < g->players; k++) {
        int s = (builder + k) % g->players;
        if ((g->submitted & (1u << s)) && g->dec[s].kind == TDEC_HELP)
            tech_score(g, s, 1, ev);
    }
}
