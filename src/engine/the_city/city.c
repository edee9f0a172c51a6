/* city.c: the rules of The City (docs/rules.md) applied to struct city_game: setup and keep,
 * the simultaneous build step and its legality checks (what a seat may build is in
 * city_options.c), survey, scoring with every kind of variable points, income in VP order with
 * reshuffles, the end of the game, hand limit. The names of steps and errors are in
 * city_names.c. */
#include "city.h"

#include "city_rules.h"

#include <assert.h>
#include <string.h>

/* ---- small helpers ---------------------------------------------------------------------- */

static const struct city_design *design_of(const struct city_game *g, int card)
{
    return &g->cat->designs[g->cat->card_design[card]];
}

/* Marks for the cards a decision names while it is checked: in the hand, already named. A
 * byte per card, so marking is independent stores (a bitset is a chain of read-modify-writes
 * of the same word). */
enum { MARK_HAND = 1, MARK_USED = 2 };
struct marks {
    uint8_t m[128];
};

/* Clears k and marks seat s's hand in it. */
static void marks_of_hand(const struct city_seat *s, struct marks *k)
{
    _Static_assert(CITY_DECK_SIZE <= sizeof k->m, "struct marks");
    memset(k->m, 0, 64); /* two fixed pieces: vector stores, not rep stos */
    memset(k->m + 64, 0, 64);
    for (int i = 0; i < s->nhand; i++)
        k->m[s->hand[i]] = MARK_HAND;
}

/* Checks that card c (any byte) is in the hand and not yet named, and names it. */
static int mark_use(struct marks *k, int c)
{
    if (c >= CITY_DECK_SIZE || !(k->m[c] & MARK_HAND))
        return CITY_ERR_NOT_IN_HAND;
    if (k->m[c] & MARK_USED)
        return CITY_ERR_DUPLICATE_CARD;
    k->m[c] |= MARK_USED;
    return CITY_OK;
}
/* Clears seat order `o` to all zero bytes (fixed-size stores, cheaper than clearing only its
 * used bytes: a memset of variable length compiles to `rep stos`). */
static void order_clear(struct city_decision *o)
{
    city_decision_clear(o);
}

/* Removes the `n` cards of out[] from the hand in one pass, keeping the others in order. The
 * cards must be there. The cards going are marked in a byte table (independent stores), not a
 * bitset (each card a read-modify-write of the same word, one waiting on the other). */
static void hand_remove(struct city_seat *s, const uint8_t *out, int n)
{
    uint8_t gone[128];
    _Static_assert(CITY_DECK_SIZE <= sizeof gone, "hand_remove's table");
    memset(gone, 0, 64); /* two fixed pieces: vector stores, not rep stos */
    memset(gone + 64, 0, 64);
    for (int i = 0; i < n; i++)
        gone[out[i]] = 1;
    int kept = 0, had = s->nhand;
    for (int i = 0; i < had; i++) { /* without branches: which cards go is random */
        uint8_t c = s->hand[i];
        s->hand[kept] = c;
        kept += !gone[c];
    }
    assert(kept == had - n);
    /* Vacated slots become zero, so equal games are equal bytes; the slots past the hand are
     * zero already, so one fixed store of 16 covers the usual few. */
    if (n <= 16 && kept + 16 <= CITY_DECK_SIZE)
        memset(&s->hand[kept], 0, 16);
    else
        memset(&s->hand[kept], 0, (size_t)n);
    s->nhand = (uint8_t)kept;
}

/* ---- tableau summaries (struct city_tab) -------------------------------------------------- */

/* The summary of seat s's tableau, from scratch. */
static void tab_compute(const struct city_catalog *cat, const struct city_seat *s,
                        struct city_tab *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < s->ntableau; i++)
        tab_add(cat, t, cat->card_design[s->tableau[i]]);
}

void city_seat_refresh(struct city_game *g, int seat)
{
    tab_compute(g->cat, &g->seats[seat], &g->seats[seat].tab);
}

/* Variable value of one copy of design `design` owned by seat `seat`, whose tableau is
 * summarized by `t` (the seat's own summary, or one with cards it might build); the other
 * seats' are read from the game. */
static int variable_value(const struct city_game *g, const struct city_tab *t, int seat, int design,
                          const struct city_variable *v)
{
    switch (v->kind) {
    case CITY_VAR_ICON:
        return v->amount * t->icons[v->icon];
    case CITY_VAR_ICON_WITH_OTHER: {
        int best = 0;
        for (int o = 0; o < g->players; o++)
            if (o != seat && g->seats[o].tab.icons[v->icon] > best)
                best = g->seats[o].tab.icons[v->icon];
        return v->amount * (t->icons[v->icon] + best);
    }
    case CITY_VAR_OTHER_COPY:
        return v->amount * (t->count[design] - 1);
    case CITY_VAR_CARD_OWN:
        return v->amount * t->count[v->card];
    case CITY_VAR_CARD_ALL: {
        int n = t->count[v->card];
        for (int o = 0; o < g->players; o++)
            if (o != seat)
                n += g->seats[o].tab.count[v->card];
        return v->amount * n;
    }
    default:
        return 0;
    }
}

static int design_vp(const struct city_game *g, const struct city_tab *t, int seat, int design)
{
    const struct city_design *d = &g->cat->designs[design];
    return d->vp + variable_value(g, t, seat, design, &d->vp_var);
}

static int design_income(const struct city_game *g, const struct city_tab *t, int seat, int design)
{
    const struct city_design *d = &g->cat->designs[design];
    return d->income + variable_value(g, t, seat, design, &d->income_var);
}

int city_card_vp(const struct city_game *g, int seat, int pos)
{
    return design_vp(g, tab_of(g, seat), seat, city_design_of(g, g->seats[seat].tableau[pos]));
}

int city_card_income(const struct city_game *g, int seat, int pos)
{
    return design_income(g, tab_of(g, seat), seat, city_design_of(g, g->seats[seat].tableau[pos]));
}

/* What every card of tableau `t` (seat `seat`'s) scores per round (vp) or pays (!vp): the
 * fixed parts summed, plus each copy's variable part. */
static int seat_sum(const struct city_game *g, const struct city_tab *t, int seat, bool vp)
{
    const struct city_catalog *cat = g->cat;
    int sum = vp ? t->vp : t->income;
    uint64_t m = t->owned & (vp ? cat->vp_var_designs : cat->income_var_designs);
    while (m) {
        int d = __builtin_ctzll(m);
        m &= m - 1;
        const struct city_variable *v = vp ? &cat->designs[d].vp_var : &cat->designs[d].income_var;
        sum += t->count[d] * variable_value(g, t, seat, d, v);
    }
    return sum;
}

int city_seat_round_vp(const struct city_game *g, int seat)
{
    return seat_sum(g, tab_of(g, seat), seat, true);
}

int city_seat_income(const struct city_game *g, int seat)
{
    return seat_sum(g, tab_of(g, seat), seat, false);
}

void city_totals_if_built(const struct city_game *g, int seat, const int *designs, int n, int *vp,
                          int *income)
{
    struct city_tab t = *tab_of(g, seat);
    for (int i = 0; i < n; i++)
        tab_add(g->cat, &t, designs[i]);
    *vp = seat_sum(g, &t, seat, true);
    *income = seat_sum(g, &t, seat, false);
}

void city_gain_if_built(const struct city_game *g, int seat, const int *designs, int n, int *dvp,
                        int *dincome)
{
    city_totals_if_built(g, seat, designs, n, dvp, dincome);
    *dvp -= city_seat_round_vp(g, seat);
    *dincome -= city_seat_income(g, seat);
}

int city_effective_cost(const struct city_game *g, int seat, int design)
{
    return tab_cost(g->cat, tab_of(g, seat), design);
}

/* ---- setup and steps -------------------------------------------------------------------- */

/* Draws the top card, reshuffling the discard pile into the deck when the deck is empty.
 * Returns -1 when both are empty. */
static void reshuffle(struct city_game *g, const struct city_events *ev)
{
    memcpy(g->deck, g->discard, g->ndiscard);
    g->ndeck = g->ndiscard;
    memset(g->discard, 0, g->ndiscard);
    g->ndiscard = 0;
    rng_shuffle(&g->rng, g->deck, g->ndeck);
    g->reshuffles++;
    city_emit(ev, g, CITY_EV_RESHUFFLED, -1, 0, g->ndeck, 0);
}

/* Draws n cards into seat s's hand, top card first, reshuffling as draw_card() does; the deck
 * and discard pile together must hold n. */
static void draw_into_hand(struct city_game *g, struct city_seat *s, int n,
                           const struct city_events *ev)
{
    while (n > 0) {
        if (g->ndeck == 0)
            reshuffle(g, ev);
        int k = n < g->ndeck ? n : g->ndeck;
        for (int i = 0; i < k; i++) {
            s->hand[s->nhand++] = g->deck[--g->ndeck];
            g->deck[g->ndeck] = 0;
        }
        n -= k;
    }
}

static int draw_card(struct city_game *g, const struct city_events *ev)
{
    if (g->ndeck == 0) {
        if (g->ndiscard == 0)
            return -1;
        reshuffle(g, ev);
    }
    int c = g->deck[--g->ndeck];
    g->deck[g->ndeck] = 0;
    return c;
}

static void open_step(struct city_game *g, int step, const struct city_events *ev)
{
    g->step = (uint8_t)step;
    for (int s = 0; s < g->players; s++) {
        struct city_seat *seat = &g->seats[s];
        if (seat->submitted) /* an order is all zero bytes unless submitted */
            order_clear(&seat->order);
        seat->submitted = false;
        seat->defaulted = false;
        switch (step) {
        case CITY_STEP_KEEP:
        case CITY_STEP_BUILD:
            seat->pending = true;
            break;
        case CITY_STEP_SURVEY:
            seat->pending = seat->drew >= 2;
            break;
        case CITY_STEP_HAND_LIMIT:
            seat->pending = seat->nhand > CITY_HAND_LIMIT;
            break;
        default:
            seat->pending = false;
        }
    }
    city_emit(ev, g, CITY_EV_STEP, -1, 0, 0, 0);
}

int city_new(struct city_game *g, const struct city_catalog *cat, int players, uint64_t seed,
             int target_vp)
{
    if (players < CITY_MIN_PLAYERS || players > CITY_MAX_PLAYERS)
        return CITY_ERR_BAD_SEAT;
    if (target_vp == 0)
        target_vp = CITY_DEFAULT_TARGET;
    if (target_vp < CITY_MIN_TARGET || target_vp > CITY_MAX_TARGET)
        return CITY_ERR_BAD_SEAT;
    memset(g, 0, sizeof *g);
    g->cat = cat;
    g->seed = seed;
    rng_seed(&g->rng, seed);
    g->players = (uint8_t)players;
    g->target_vp = (int16_t)target_vp;
    for (int c = 0; c < CITY_DECK_SIZE; c++) {
        if (cat->card_design[c] == cat->contractor_design) {
            if (g->npool < players)
                g->pool[g->npool++] = (uint8_t)c;
            else
                g->removed[g->nremoved++] = (uint8_t)c;
        } else {
            g->deck[g->ndeck++] = (uint8_t)c;
        }
    }
    rng_shuffle(&g->rng, g->deck, g->ndeck);
    for (int s = 0; s < players; s++)
        for (int i = 0; i < CITY_DEAL; i++)
            g->seats[s].hand[g->seats[s].nhand++] = (uint8_t)draw_card(g, NULL);
    g->round = 0;
    open_step(g, CITY_STEP_KEEP, NULL);
    return CITY_OK;
}

int city_discard_count(const struct city_game *g, int seat)
{
    if (!game_seat_pending(g, seat))
        return 0;
    const struct city_seat *s = &g->seats[seat];
    switch (g->step) {
    case CITY_STEP_KEEP:
        return CITY_KEEP_DISCARD;
    case CITY_STEP_SURVEY:
        return s->drew - 1;
    case CITY_STEP_HAND_LIMIT:
        return s->nhand - CITY_HAND_LIMIT;
    default:
        return 0;
    }
}

/* ---- legality ----------------------------------------------------------------------------- */

/* Checks one build against tableau `t` and the hand marked in `k`, and marks its cards used. */
static int check_build(const struct city_game *g, struct marks *k, const struct city_tab *t,
                       const struct city_build *b)
{
    if (b->card >= CITY_DECK_SIZE || !(k->m[b->card] & MARK_HAND))
        return CITY_ERR_NOT_IN_HAND;
    if (k->m[b->card] & MARK_USED)
        return CITY_ERR_DUPLICATE_CARD;
    int design = city_design_of(g, b->card);
    int err = tab_admits(g->cat, t, design);
    if (err)
        return err;
    k->m[b->card] |= MARK_USED;
    if (b->npay > CITY_MAX_COST)
        return CITY_ERR_TOO_MANY_CARDS;
    for (int i = 0; i < b->npay; i++)
        if ((err = mark_use(k, b->pay[i])) != CITY_OK)
            return err;
    if (b->npay != tab_cost(g->cat, t, design))
        return CITY_ERR_PAYMENT_COUNT;
    return CITY_OK;
}

static int check_discard(const struct city_game *g, int seat, const struct city_decision *d)
{
    if (d->ndiscard != city_discard_count(g, seat))
        return CITY_ERR_DISCARD_COUNT;
    struct marks k;
    marks_of_hand(&g->seats[seat], &k);
    for (int i = 0; i < d->ndiscard; i++) {
        int err = mark_use(&k, d->discard[i]);
        if (err)
            return err;
    }
    return CITY_OK;
}

static int check_build_step(const struct city_game *g, int seat, const struct city_decision *d)
{
    const struct city_tab *t = tab_of(g, seat);
    struct marks k;
    switch (d->kind) {
    case CITY_DEC_SURVEY:
        return CITY_OK;
    case CITY_DEC_CONTRACTOR:
        if (tab_has_contractor(g->cat, t))
            return CITY_ERR_CONTRACTOR_TAKEN;
        return g->npool > 0 ? CITY_OK : CITY_ERR_POOL_EMPTY;
    case CITY_DEC_BUILD:
        if (d->nbuilds != 1)
            return CITY_ERR_WRONG_KIND;
        marks_of_hand(&g->seats[seat], &k);
        return check_build(g, &k, t, &d->builds[0]);
    case CITY_DEC_BUILD_TWO: {
        if (d->nbuilds != 2)
            return CITY_ERR_WRONG_KIND;
        marks_of_hand(&g->seats[seat], &k);
        for (int i = 0; i < 2; i++) {
            int c = d->builds[i].card;
            if (c >= CITY_DECK_SIZE || !(k.m[c] & MARK_HAND))
                return CITY_ERR_NOT_IN_HAND;
        }
        const struct city_design *first = design_of(g, d->builds[0].card);
        if (!tab_has_gang(g->cat, t) && !first->construction_gang)
            return CITY_ERR_NO_DOUBLE;
        for (int i = 0; i < 2; i++)
            if (design_of(g, d->builds[i].card)->cost > CITY_DOUBLE_MAX_COST)
                return CITY_ERR_DOUBLE_COST;
        int err = check_build(g, &k, t, &d->builds[0]);
        if (err)
            return err;
        struct city_tab t2 = *t;
        tab_add(g->cat, &t2, city_design_of(g, d->builds[0].card));
        return check_build(g, &k, &t2, &d->builds[1]);
    }
    default:
        return CITY_ERR_WRONG_KIND;
    }
}

int city_check(const struct city_game *g, int seat, const struct city_decision *d)
{
    if (g->step == CITY_STEP_OVER)
        return CITY_ERR_GAME_OVER;
    if (seat < 0 || seat >= g->players)
        return CITY_ERR_BAD_SEAT;
    if (!g->seats[seat].pending)
        return CITY_ERR_NOT_PENDING;
    if (g->step == CITY_STEP_BUILD)
        return check_build_step(g, seat, d);
    if (d->kind != CITY_DEC_DISCARD)
        return CITY_ERR_WRONG_KIND;
    return check_discard(g, seat, d);
}

int city_submit(struct city_game *g, int seat, const struct city_decision *d)
{
    int err = city_check(g, seat, d);
    if (err)
        return err;
    struct city_seat *s = &g->seats[seat];
    /* Keep only the meaningful bytes, so that equal decisions are equal structs. */
    order_clear(&s->order);
    s->order.kind = d->kind;
    if (d->kind == CITY_DEC_BUILD || d->kind == CITY_DEC_BUILD_TWO) {
        s->order.nbuilds = d->nbuilds;
        for (int k = 0; k < d->nbuilds; k++) {
            s->order.builds[k].card = d->builds[k].card;
            s->order.builds[k].npay = d->builds[k].npay;
            memcpy(s->order.builds[k].pay, d->builds[k].pay, d->builds[k].npay);
        }
    } else if (d->kind == CITY_DEC_DISCARD) {
        s->order.ndiscard = d->ndiscard;
        memcpy(s->order.discard, d->discard, d->ndiscard);
    }
    s->submitted = true;
    s->defaulted = false;
    return CITY_OK;
}

bool city_ready(const struct city_game *g)
{
    if (g->step == CITY_STEP_OVER)
        return false;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].pending && !g->seats[s].submitted)
            return false;
    return true;
}

/* ---- resolution ------------------------------------------------------------------------- */

static void apply_discards(struct city_game *g, const struct city_events *ev)
{
    for (int i = 0; i < g->players; i++) {
        struct city_seat *s = &g->seats[i];
        if (!s->pending)
            continue;
        memcpy(&g->discard[g->ndiscard], s->order.discard, s->order.ndiscard);
        g->ndiscard = (uint8_t)(g->ndiscard + s->order.ndiscard);
        hand_remove(s, s->order.discard, s->order.ndiscard);
        city_emit(ev, g, CITY_EV_DISCARDED, i, 0, s->order.ndiscard, s->nhand);
    }
}

static void apply_build(struct city_game *g, int seat, const struct city_build *b,
                        const struct city_events *ev)
{
    struct city_seat *s = &g->seats[seat];
    uint8_t out[CITY_MAX_COST + 1];
    memcpy(out, b->pay, CITY_MAX_COST); /* fixed size: moves, not rep movs; npay of them count */
    out[b->npay] = b->card;
    memcpy(&g->discard[g->ndiscard], b->pay, b->npay);
    g->ndiscard = (uint8_t)(g->ndiscard + b->npay);
    hand_remove(s, out, b->npay + 1);
    s->tableau[s->ntableau++] = b->card;
    tab_add(g->cat, &s->tab, city_design_of(g, b->card));
    s->reveal.built[s->reveal.nbuilt++] = b->card;
    s->reveal.paid = (uint8_t)(s->reveal.paid + b->npay);
    city_emit(ev, g, CITY_EV_BUILT, seat, b->card, b->npay, 0);
}

static void finish(struct city_game *g, const struct city_events *ev)
{
    int best = -1, most = -1;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].vp > best)
            best = g->seats[s].vp;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].vp == best && g->seats[s].nhand > most)
            most = g->seats[s].nhand;
    g->winners = 0;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].vp == best && g->seats[s].nhand == most)
            g->winners |= (uint8_t)(1u << s);
    g->step = CITY_STEP_OVER;
    for (int s = 0; s < g->players; s++) {
        struct city_seat *seat = &g->seats[s];
        seat->pending = seat->submitted = seat->defaulted = false;
        order_clear(&seat->order);
    }
    city_emit(ev, g, CITY_EV_GAME_OVER, -1, 0, best, g->winners);
}

/* Score, income, end check and hand limit: the rest of a round after its builds and
 * surveys. */
static void end_round(struct city_game *g, const struct city_events *ev)
{
    int income[CITY_MAX_PLAYERS], need = 0;
    for (int s = 0; s < g->players; s++) {
        int gain = seat_sum(g, tab_of(g, s), s, true);
        g->seats[s].vp += gain;
        g->seats[s].vp_by_round[g->round] = (int16_t)g->seats[s].vp;
        city_emit(ev, g, CITY_EV_SCORED, s, 0, gain, g->seats[s].vp);
        income[s] = seat_sum(g, tab_of(g, s), s, false);
        need += income[s];
        g->seats[s].last_income = 0;
    }
    if (need > g->ndeck + g->ndiscard) {
        g->ended_by_deck = true;
        city_emit(ev, g, CITY_EV_NO_INCOME, -1, 0, need, g->ndeck + g->ndiscard);
        finish(g, ev);
        return;
    }
    /* Income in order of victory points, highest first; ties in seat order. A seat's place
     * is how many seats are ahead of it, counted once per pair without branches (an insertion
     * sort's branches on random scores mispredict). */
    int order[CITY_MAX_PLAYERS], ahead[CITY_MAX_PLAYERS] = {0};
    for (int a = 0; a < g->players; a++)
        for (int b = a + 1; b < g->players; b++) {
            int b_first = g->seats[b].vp > g->seats[a].vp;
            ahead[a] += b_first;
            ahead[b] += !b_first;
        }
    for (int s = 0; s < g->players; s++)
        order[ahead[s]] = s;
    for (int k = 0; k < g->players; k++) {
        int s = order[k];
        struct city_seat *seat = &g->seats[s];
        draw_into_hand(g, seat, income[s], ev); /* need <= deck + discard, checked above */
        seat->last_income = (int16_t)income[s];
        if (income[s])
            city_emit(ev, g, CITY_EV_INCOME, s, 0, income[s], seat->nhand);
    }
    bool over = g->round >= CITY_MAX_ROUNDS;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].vp >= g->target_vp)
            over = true;
    if (over) {
        g->ended_by_rounds = g->round >= CITY_MAX_ROUNDS;
        for (int s = 0; s < g->players; s++)
            if (g->seats[s].vp >= g->target_vp)
                g->ended_by_rounds = false;
        finish(g, ev);
        return;
    }
    for (int s = 0; s < g->players; s++) {
        if (g->seats[s].nhand > CITY_HAND_LIMIT) {
            open_step(g, CITY_STEP_HAND_LIMIT, ev);
            return;
        }
    }
    g->round++;
    open_step(g, CITY_STEP_BUILD, ev);
}

static void resolve_build(struct city_game *g, const struct city_events *ev)
{
    /* Reveal: every build enters its builder's tableau at once. */
    bool any_survey = false;
    for (int i = 0; i < g->players; i++) {
        struct city_seat *s = &g->seats[i];
        const struct city_decision *d = &s->order;
        s->reveal = (struct city_reveal){.kind = d->kind, .defaulted = s->defaulted};
        s->drew = 0;
        switch (d->kind) {
        case CITY_DEC_BUILD:
        case CITY_DEC_BUILD_TWO:
            for (int k = 0; k < d->nbuilds; k++)
                apply_build(g, i, &d->builds[k], ev);
            break;
        case CITY_DEC_CONTRACTOR: {
            assert(g->npool > 0); /* one per player, and the pool holds one per player */
            int c = g->pool[--g->npool];
            g->pool[g->npool] = 0;
            s->tableau[s->ntableau++] = (uint8_t)c;
            tab_add(g->cat, &s->tab, city_design_of(g, c));
            s->reveal.built[s->reveal.nbuilt++] = (uint8_t)c;
            city_emit(ev, g, CITY_EV_CONTRACTOR, i, c, 0, 0);
            break;
        }
        default:
            any_survey = true;
            break;
        }
    }
    /* Survey: in seat order, draw five (fewer when deck and discard run short). */
    bool survey_step = false;
    if (any_survey) {
        for (int i = 0; i < g->players; i++) {
            struct city_seat *s = &g->seats[i];
            if (s->order.kind != CITY_DEC_SURVEY)
                continue;
            while (s->drew < CITY_SURVEY_DRAW) {
                int c = draw_card(g, ev);
                if (c < 0)
                    break;
                s->hand[s->nhand++] = (uint8_t)c;
                s->drew++;
            }
            city_emit(ev, g, CITY_EV_SURVEYED, i, 0, s->drew, s->nhand);
            if (s->drew >= 2)
                survey_step = true;
        }
    }
    if (survey_step)
        open_step(g, CITY_STEP_SURVEY, ev);
    else
        end_round(g, ev);
}

bool city_resolve(struct city_game *g, const struct city_events *ev)
{
    if (!city_ready(g))
        return false;
    switch (g->step) {
    case CITY_STEP_KEEP:
        apply_discards(g, ev);
        g->round = 1;
        open_step(g, CITY_STEP_BUILD, ev);
        break;
    case CITY_STEP_BUILD:
        resolve_build(g, ev);
        break;
    case CITY_STEP_SURVEY:
        apply_discards(g, ev);
        end_round(g, ev);
        break;
    case CITY_STEP_HAND_LIMIT:
        apply_discards(g, ev);
        g->round++;
        open_step(g, CITY_STEP_BUILD, ev);
        break;
    default:
        return false;
    }
    return true;
}

/* ---- invariants ------------------------------------------------------------------------- */

bool city_check_conservation(const struct city_game *g)
{
    uint8_t seen[CITY_DECK_SIZE] = {0};
    int total = 0;
#define COUNT(arr, n)                                                                              \
    for (int i_ = 0; i_ < (n); i_++) {                                                             \
        if ((arr)[i_] >= CITY_DECK_SIZE || seen[(arr)[i_]]++)                                      \
            return false;                                                                          \
        total++;                                                                                   \
    }
    COUNT(g->deck, g->ndeck)
    COUNT(g->discard, g->ndiscard)
    COUNT(g->pool, g->npool)
    COUNT(g->removed, g->nremoved)
    for (int s = 0; s < g->players; s++) {
        COUNT(g->seats[s].hand, g->seats[s].nhand)
        COUNT(g->seats[s].tableau, g->seats[s].ntableau)
    }
#undef COUNT
    if (total != CITY_DECK_SIZE)
        return false;
    for (int s = 0; s < g->players; s++) {
        struct city_tab t;
        tab_compute(g->cat, &g->seats[s], &t);
        if (memcmp(&t, &g->seats[s].tab, sizeof t) != 0)
            return false;
    }
    return true;
}
