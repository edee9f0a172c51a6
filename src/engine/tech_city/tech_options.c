/* tech_options.c: what a seat of Tech City may do at its point, asked of the same rules that
 * judge its order (tech_check()): whether a hand card can be paid for, and how a city card's
 * effect can be used with which choices. The hand view (tech_json.c) lists them as legal
 * options, so that no client re-derives a rule. */
#include "tech_effects.h"
#include "tech_internal.h"

bool tech_build_payable(const struct tech_game *g, int seat, int card)
{
    unsigned counts = tech_pay_counts(g, seat, card);
    const struct tech_seat *s = &g->seats[seat];
    int others = s->nhand - 1;
    if ((counts & 1u) || ((counts & 1u << 2) && others >= 2))
        return true;
    for (int i = 0; (counts & 1u << 1) && i < s->nhand; i++)
        if (s->hand[i] != card && tech_pays_alone(g, seat, card, s->hand[i]))
            return true;
    return false;
}

/* True when choice `which` of the use of `card` has a legal value: a hand card, a card of the
 * discard pile, a city card or a seat. */
static bool choice_possible(const struct tech_game *g, int seat, int card, unsigned which)
{
    switch (which) {
    case CHOICE_CARD:
        return g->seats[seat].nhand > 0;
    case CHOICE_TAKE:
        return g->ndiscard > 0;
    case CHOICE_VICTIM:
        for (int v = 0; v < g->players; v++)
            if (tech_choice_check(g, seat, card, CHOICE_VICTIM, v) == TECH_OK)
                return true;
        return false;
    default:
        return false;
    }
}

/* True when the target (and, when the effect takes one, a different "to") of the use of `card`
 * can be chosen among the city's cards. */
static bool cells_possible(const struct tech_game *g, int seat, int card, unsigned want)
{
    for (int i = 0; i < g->ncity; i++) {
        int t = g->city[i];
        if (tech_choice_check(g, seat, card, CHOICE_TARGET, t) != TECH_OK)
            continue;
        if (!(want & CHOICE_TO))
            return true;
        for (int j = 0; j < g->ncity; j++)
            if (j != i && tech_choice_check(g, seat, card, CHOICE_TO, g->city[j]) == TECH_OK)
                return true;
    }
    return false;
}

bool tech_use_option(const struct tech_game *g, int seat, int card, struct tech_use_option *out)
{
    *out = (struct tech_use_option){0};
    if (g->step != TECH_STEP_EFFECT || !tech_pending(g, seat) || !tech_effect_ready(g, card))
        return false;
    out->normal = tech_use_open(g, seat, card, false) == TECH_OK;
    out->free = tech_use_open(g, seat, card, true) == TECH_OK;
    if (!out->normal && !out->free)
        return false;
    unsigned want = tech_effect_choices(tech_design_of(g, card)->effect.prim);
    for (unsigned which = CHOICE_CARD; which <= CHOICE_VICTIM; which <<= 1)
        if ((want & which) && which != CHOICE_TARGET && which != CHOICE_TO &&
            !choice_possible(g, seat, card, which))
            return false;
    if ((want & CHOICE_TARGET) && !cells_possible(g, seat, card, want))
        return false;
    out->choices = want;
    out->owner_first = out->normal && g->owner[card] != TECH_NONE && g->owner[card] != seat;
    out->points = tech_effect_points(g, seat, card);
    return true;
}
