/* tech_effects.c: the one interpreter of Tech City's effect primitives: each card's effect is
 * a line of data (tech_cards.h) that these two functions check and apply (see tech_effects.h). */
#include "tech_effects.h"

#include <string.h>

unsigned tech_effect_choices(int prim)
{
    switch (prim) {
    case PRIM_EXCHANGE_TOP:
        return CHOICE_CARD;
    case PRIM_EXCHANGE_PILE:
        return CHOICE_CARD | CHOICE_TAKE;
    case PRIM_REPLACE:
        return CHOICE_CARD | CHOICE_TARGET;
    case PRIM_EXPEL:
        return CHOICE_TARGET;
    case PRIM_SWAP:
    case PRIM_MOVE_MARKER:
        return CHOICE_TARGET | CHOICE_TO;
    case PRIM_STEAL:
        return CHOICE_VICTIM;
    default:
        return 0;
    }
}

bool tech_filter_ok(const struct tech_game *g, int seat, int target, int f)
{
    int owner = g->owner[target];
    switch (f) {
    case FILTER_OWN:
        return owner == seat;
    case FILTER_NEUTRAL:
        return owner == TECH_NONE;
    case FILTER_OTHER:
        return owner != TECH_NONE && owner != seat;
    default:
        return true;
    }
}

/* Does the score condition of e hold for seat? */
static bool condition(const struct tech_game *g, int seat, const struct tech_effect *e)
{
    switch (e->cond) {
    case COND_CONTROLS:
        return tech_controls(g, seat, e->domain) >= e->n;
    case COND_MOST: {
        int mine = tech_controls(g, seat, -1);
        for (int s = 0; s < g->players; s++)
            if (s != seat && tech_controls(g, s, -1) > mine)
                return false;
        return true; /* "no player controls more than you" holds when all control none */
    }
    case COND_HAND:
        return g->seats[seat].nhand >= e->n;
    case COND_NEUTRAL: {
        int n = 0;
        for (int i = 0; i < g->ncity; i++)
            n += g->owner[g->city[i]] == TECH_NONE;
        return n >= e->n;
    }
    default:
        return false;
    }
}

static bool holds(const struct tech_game *g, int seat, int card)
{
    for (int i = 0; i < g->seats[seat].nhand; i++)
        if (g->seats[seat].hand[i] == card)
            return true;
    return false;
}

bool tech_effect_ready(const struct tech_game *g, int card)
{
    return tech_design_of(g, card)->effect.prim != PRIM_EXCHANGE_TOP || g->ndeck + g->ndiscard > 0;
}

int tech_choice_check(const struct tech_game *g, int seat, int card, unsigned which, int value)
{
    const struct tech_effect *e = &tech_design_of(g, card)->effect;
    switch (which) {
    case CHOICE_CARD:
        return holds(g, seat, value) ? TECH_OK : TECH_ERR_NOT_IN_HAND;
    case CHOICE_TAKE:
        for (int i = 0; i < g->ndiscard; i++)
            if (g->discard[i] == value)
                return TECH_OK;
        return TECH_ERR_BAD_TARGET;
    case CHOICE_TARGET:
        if (e->prim == PRIM_REPLACE || e->prim == PRIM_EXPEL) {
            if (value == g->seed_card)
                return TECH_ERR_SEED_CARD;
            return tech_filter_ok(g, seat, value, e->filter) ? TECH_OK : TECH_ERR_BAD_TARGET;
        }
        return e->prim != PRIM_MOVE_MARKER || g->owner[value] == seat ? TECH_OK
                                                                      : TECH_ERR_BAD_TARGET;
    case CHOICE_TO:
        if (e->prim == PRIM_MOVE_MARKER &&
            (g->owner[value] == seat || tech_design_of(g, value)->domain == DOMAIN_SERVICE))
            return TECH_ERR_BAD_TARGET;
        return TECH_OK;
    case CHOICE_VICTIM:
        return value < g->players && value != seat && g->seats[value].nhand > 0
                   ? TECH_OK
                   : TECH_ERR_BAD_TARGET;
    default:
        return TECH_ERR_NEEDLESS_CHOICE;
    }
}

int tech_effect_check(const struct tech_game *g, int seat, int card, const struct tech_decision *d)
{
    const struct tech_effect *e = &tech_design_of(g, card)->effect;
    unsigned want = tech_effect_choices(e->prim);
    unsigned have = (d->card != TECH_NONE ? CHOICE_CARD : 0) |
                    (d->take != TECH_NONE ? CHOICE_TAKE : 0) | (d->has_target ? CHOICE_TARGET : 0) |
                    (d->has_to ? CHOICE_TO : 0) | (d->victim != TECH_NONE ? CHOICE_VICTIM : 0);
    if (want & ~have)
        return TECH_ERR_MISSING_CHOICE;
    if (have & ~want)
        return TECH_ERR_NEEDLESS_CHOICE;
    if ((want & CHOICE_CARD) && !holds(g, seat, d->card))
        return TECH_ERR_NOT_IN_HAND;
    int target = TECH_NONE, to = TECH_NONE;
    if (want & CHOICE_TARGET) {
        target = tech_card_at(g, d->tx, d->ty);
        if (target == TECH_NONE)
            return TECH_ERR_NO_CARD_THERE;
    }
    if (want & CHOICE_TO) {
        to = tech_card_at(g, d->ux, d->uy);
        if (to == TECH_NONE)
            return TECH_ERR_NO_CARD_THERE;
    }
    if (!tech_effect_ready(g, card))
        return TECH_ERR_BAD_TARGET;
    /* each choice on its own, then the one rule that ties two: two different cells */
    const struct {
        unsigned which;
        int value;
    } choices[] = {{CHOICE_TAKE, d->take},
                   {CHOICE_TARGET, target},
                   {CHOICE_TO, to},
                   {CHOICE_VICTIM, d->victim}};
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++) {
        if (!(want & choices[i].which))
            continue;
        int err = tech_choice_check(g, seat, card, choices[i].which, choices[i].value);
        if (err != TECH_OK)
            return err;
    }
    return (want & CHOICE_TO) && target == to ? TECH_ERR_BAD_TARGET : TECH_OK;
}

int tech_effect_points(const struct tech_game *g, int seat, int card)
{
    const struct tech_effect *e = &tech_design_of(g, card)->effect;
    return e->prim == PRIM_SCORE && condition(g, seat, e) ? e->points : 0;
}

static void to_hand(struct tech_game *g, int seat, int card)
{
    struct tech_seat *s = &g->seats[seat];
    s->hand[s->nhand++] = (uint8_t)card;
}

static void search(struct tech_game *g, int seat, const struct tech_effect *e,
                   const struct tech_events *ev)
{
    for (int i = g->ndeck - 1; i >= 0; i--) {
        const struct tech_design *d = tech_design_of(g, g->deck[i]);
        if (d->domain == DOMAIN_WILD || (e->value ? d->value != e->value : d->domain != e->domain))
            continue;
        int c = g->deck[i];
        memmove(&g->deck[i], &g->deck[i + 1], (size_t)(g->ndeck - i - 1));
        g->ndeck--;
        to_hand(g, seat, c);
        tech_emit(g, ev, TEV_DREW, seat, TECH_NONE, 1, g->seats[seat].nhand);
        tech_shuffle_deck(g); /* a search shuffles afterwards ... */
        return;
    }
    /* ... but one that finds nothing "has no effect" (the rule text): the deck keeps its order */
}

void tech_effect_apply(struct tech_game *g, int seat, int card, const struct tech_decision *d,
                       const struct tech_events *ev)
{
    const struct tech_effect *e = &tech_design_of(g, card)->effect;
    struct tech_seat *s = &g->seats[seat];
    switch (e->prim) {
    case PRIM_DRAW:
        tech_draw(g, seat, e->n, ev);
        if (e->m > 0 && s->nhand > 0) {
            g->choose_kind = CHOOSE_DISCARD;
            g->choose_n = (uint8_t)(e->m < s->nhand ? e->m : s->nhand);
        }
        break;
    case PRIM_DISCARD: /* the others' choices: tech.c asks them in seat order */
        break;
    case PRIM_REVEAL:
        g->nrevealed = 0;
        for (int i = 0; i < e->n; i++) {
            int c = tech_pop_deck(g, ev);
            if (c == TECH_NONE)
                break;
            g->revealed[g->nrevealed++] = (uint8_t)c;
            tech_emit(g, ev, TEV_REVEALED, seat, c, i, 0);
        }
        if (g->nrevealed > 0)
            g->choose_kind = CHOOSE_REVEALED;
        break;
    case PRIM_SEARCH:
        search(g, seat, e, ev);
        break;
    case PRIM_EXCHANGE_TOP: {
        int top = tech_pop_deck(g, ev);
        tech_hand_remove(g, seat, d->card);
        g->deck[g->ndeck++] = d->card;
        if (top != TECH_NONE)
            to_hand(g, seat, top);
        tech_emit(g, ev, TEV_TOOK, seat, TECH_NONE, -1, s->nhand);
        break;
    }
    case PRIM_EXCHANGE_PILE:
        for (int i = 0; i < g->ndiscard; i++)
            if (g->discard[i] == d->take) {
                g->discard[i] = d->card; /* the given card takes the taken one's place */
                break;
            }
        tech_hand_remove(g, seat, d->card);
        to_hand(g, seat, d->take);
        tech_emit(g, ev, TEV_TOOK, seat, d->take, -1, s->nhand);
        tech_emit(g, ev, TEV_DISCARDED, seat, d->card, 1, s->nhand);
        break;
    case PRIM_REPLACE: {
        if (tech_design_of(g, d->card)->domain == DOMAIN_WILD) {
            /* A wild card cannot replace: it is expelled, and its player draws instead. */
            tech_hand_remove(g, seat, d->card);
            g->expelled[g->nexpelled++] = d->card;
            tech_emit(g, ev, TEV_EXPELLED, seat, d->card, 0, 0);
            tech_draw(g, seat, 1, ev);
            break;
        }
        int target = tech_card_at(g, d->tx, d->ty);
        int owner = g->owner[target];
        tech_city_remove(g, target);
        g->discard[g->ndiscard++] = (uint8_t)target;
        tech_emit(g, ev, TEV_DISCARDED, -1, target, 1, 0);
        tech_hand_remove(g, seat, d->card);
        tech_city_put(g, d->card, d->tx, d->ty, owner);
        tech_emit(g, ev, TEV_PLACED, seat, d->card, 0, 0);
        break;
    }
    case PRIM_SWAP: {
        int a = tech_card_at(g, d->tx, d->ty), b = tech_card_at(g, d->ux, d->uy);
        g->cx[a] = d->ux;
        g->cy[a] = d->uy;
        g->cx[b] = d->tx;
        g->cy[b] = d->ty;
        tech_city_recount(g);
        tech_emit(g, ev, TEV_MOVED, seat, a, 0, 0);
        tech_emit(g, ev, TEV_MOVED, seat, b, 0, 0);
        break;
    }
    case PRIM_EXPEL: {
        int target = tech_card_at(g, d->tx, d->ty);
        tech_emit(g, ev, TEV_EXPELLED, seat, target, 1, 0);
        tech_city_remove(g, target);
        g->expelled[g->nexpelled++] = (uint8_t)target;
        break;
    }
    case PRIM_MOVE_MARKER: {
        int from = tech_card_at(g, d->tx, d->ty), to = tech_card_at(g, d->ux, d->uy);
        tech_marker_move(g, from, to, seat);
        tech_emit(g, ev, TEV_MARKER, seat, from, -1, 0);
        tech_emit(g, ev, TEV_MARKER, seat, to, seat, 0);
        break;
    }
    case PRIM_STEAL: {
        struct tech_seat *v = &g->seats[d->victim];
        int c = v->hand[rng_below(&g->rng, v->nhand)];
        tech_hand_remove(g, d->victim, c);
        to_hand(g, seat, c);
        tech_emit(g, ev, TEV_TOOK, seat, TECH_NONE, d->victim, s->nhand);
        break;
    }
    case PRIM_SCORE:
        if (condition(g, seat, e))
            tech_score(g, seat, e->points, ev);
        break;
    default:
        break;
    }
}

void tech_effect_take_revealed(struct tech_game *g, int seat, int card,
                               const struct tech_events *ev)
{
    to_hand(g, seat, card);
    tech_emit(g, ev, TEV_TOOK, seat, card, -2, g->seats[seat].nhand);
    /* revealed[0] came off the top: push the rest back bottom-up so it is on top again */
    for (int i = g->nrevealed - 1; i >= 0; i--)
        if (g->revealed[i] != card)
            g->deck[g->ndeck++] = g->revealed[i];
    g->nrevealed = 0;
}
