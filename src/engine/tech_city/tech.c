/* tech.c: Tech City's rules engine — setup, decision points, checks, resolution of builds,
 * services, wild cards, the effects phase's bookkeeping (tilting, owners, the Knowledge free
 * use), the end of a round, scoring and the end of the game (see tech.h; the effects
 * themselves are tech_effects.c's one interpreter). */
#include "tech.h"

#include <string.h>

#include "tech_effects.h"

/* ---- names ------------------------------------------------------------------------------ */

static const char *const step_names[TECH_STEP_COUNT] = {"build",  "help",    "effect", "owner",
                                                        "choose", "discard", "over"};

const char *tech_step_name(int step)
{
    return step >= 0 && step < TECH_STEP_COUNT ? step_names[step] : "?";
}

int tech_step_from_name(const char *name)
{
    for (int i = 0; name && i < TECH_STEP_COUNT; i++)
        if (strcmp(name, step_names[i]) == 0)
            return i;
    return -1;
}

static const struct {
    const char *code, *message;
} errors[TECH_ERR_COUNT] = {
    [TECH_OK] = {"ok", "The decision was accepted."},
    [TECH_ERR_GAME_OVER] = {"game_over", "The game has ended; no more decisions are taken."},
    [TECH_ERR_BAD_SEAT] = {"bad_seat", "There is no such seat in this game."},
    [TECH_ERR_NOT_PENDING] = {"not_pending",
                              "This seat has nothing to decide now; wait for its turn."},
    [TECH_ERR_WRONG_KIND] = {"wrong_kind",
                             "This decision does not answer the current step; see \"pending\" in "
                             "your view for what to send."},
    [TECH_ERR_NOT_IN_HAND] = {"not_in_hand", "A card named is not in your hand."},
    [TECH_ERR_DUPLICATE_CARD] = {"duplicate_card", "A card is named twice."},
    [TECH_ERR_CELL_TAKEN] = {"cell_taken", "That cell already holds a card; choose an empty one."},
    [TECH_ERR_NOT_ADJACENT] = {"not_adjacent",
                               "A new card must touch a card of the city horizontally or "
                               "vertically."},
    [TECH_ERR_OFF_GRID] = {"off_grid", "Coordinates run from -120 to 120."},
    [TECH_ERR_PAYMENT] = {"bad_payment",
                          "Pay with one card of value 7 or less, or two cards (one card of any "
                          "value with a Technology company, nothing with two; a wild card pays "
                          "any build; a service takes 0 or 1 card of yours as help, 1 in solo)."},
    [TECH_ERR_WILD_NAME] = {"bad_wild_name",
                            "A wild card must name the value and domain of a card in play."},
    [TECH_ERR_NO_CARD_THERE] = {"no_card_there", "No card is in that cell of the city."},
    [TECH_ERR_TILTED] = {"tilted", "That company's effect has already been used this round."},
    [TECH_ERR_FREE_USE] = {"no_free_use",
                           "The free use needs two Knowledge companies you control, once a "
                           "round, on one of your own Knowledge companies."},
    [TECH_ERR_ALREADY_USED] = {"already_used",
                               "You have already used an effect this round; only the Knowledge "
                               "free use or a pass remain."},
    [TECH_ERR_MISSING_CHOICE] = {"missing_choice",
                                 "This effect needs a choice the order lacks (card, take, "
                                 "target, to or victim)."},
    [TECH_ERR_NEEDLESS_CHOICE] = {"needless_choice",
                                  "The order names a choice this effect does not take."},
    [TECH_ERR_BAD_TARGET] = {"bad_target",
                             "The effect cannot apply to the card, cell or seat named."},
    [TECH_ERR_SEED_CARD] = {"seed_card", "The seed card never leaves the city."},
    [TECH_ERR_CARD_COUNT] = {"card_count", "Wrong number of cards; see \"pending\" for how many."},
    [TECH_ERR_NOT_OFFERED] = {"not_offered", "Choose among the cards offered."},
};

const char *tech_error_code(int err)
{
    return err >= 0 && err < TECH_ERR_COUNT ? errors[err].code : "unknown_error";
}

const char *tech_error_message(int err)
{
    return err >= 0 && err < TECH_ERR_COUNT ? errors[err].message : "Unknown error.";
}

/* ---- small helpers ---------------------------------------------------------------------- */

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

static void emit_at(const struct tech_game *g, const struct tech_events *ev, int type, int seat,
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

bool tech_cell_open(const struct tech_game *g, int x, int y)
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

int tech_controls(const struct tech_game *g, int seat, int domain)
{
    int n = 0;
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        if (g->owner[c] == seat && (domain < 0 || tech_design_of(g, c)->domain == domain))
            n++;
    }
    return n;
}

int tech_hand_limit(const struct tech_game *g)
{
    return g->players >= TECH_TWO_DECKS_FROM ? TECH_HAND_LIMIT_BIG : TECH_HAND_LIMIT;
}

static bool in_hand(const struct tech_game *g, int seat, int card)
{
    const struct tech_seat *s = &g->seats[seat];
    for (int i = 0; i < s->nhand; i++)
        if (s->hand[i] == card)
            return true;
    return false;
}

void tech_hand_remove(struct tech_game *g, int seat, int card)
{
    struct tech_seat *s = &g->seats[seat];
    for (int i = 0; i < s->nhand; i++)
        if (s->hand[i] == card) {
            memmove(&s->hand[i], &s->hand[i + 1], (size_t)(s->nhand - i - 1));
            s->nhand--;
            return;
        }
}

static void expel(struct tech_game *g, int card, const struct tech_events *ev)
{
    g->expelled[g->nexpelled++] = (uint8_t)card;
    emit_at(g, ev, TEV_EXPELLED, -1, card, 0, 0, false, 0, 0);
}

void tech_hand_discard(struct tech_game *g, int seat, int card, const struct tech_events *ev)
{
    tech_hand_remove(g, seat, card);
    g->discard[g->ndiscard++] = (uint8_t)card;
    tech_emit(g, ev, TEV_DISCARDED, seat, card, 1, g->seats[seat].nhand);
}

/* A card paid or given to help: a wild card is expelled, any other card discarded. */
static void spend(struct tech_game *g, int seat, int card, const struct tech_events *ev)
{
    if (tech_design_of(g, card)->domain == DOMAIN_WILD) {
        tech_hand_remove(g, seat, card);
        expel(g, card, ev);
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
}

void tech_city_put(struct tech_game *g, int card, int x, int y, int owner)
{
    g->city[g->ncity++] = (uint8_t)card;
    g->cx[card] = (int8_t)x;
    g->cy[card] = (int8_t)y;
    g->owner[card] = tech_design_of(g, card)->domain == DOMAIN_SERVICE ? TECH_NONE : (uint8_t)owner;
    g->tilted[card] = false;
}

/* ---- decision points --------------------------------------------------------------------- */

static void open_point(struct tech_game *g, int step, unsigned mask, const struct tech_events *ev)
{
    g->step = (uint8_t)step;
    g->pending = (uint8_t)mask;
    g->submitted = g->defaulted = 0;
    memset(g->dec, 0, sizeof g->dec);
    g->turn++;
    tech_emit(g, ev, TEV_STEP, -1, TECH_NONE, (int)mask, 0);
}

static void next_build(struct tech_game *g, const struct tech_events *ev);
static void next_effect(struct tech_game *g, const struct tech_events *ev);

static void game_over(struct tech_game *g, const struct tech_events *ev)
{
    int best = -1;
    unsigned winners = 0;
    for (int s = 0; s < g->players; s++) {
        /* score, then companies controlled, then cards in hand */
        int key = g->seats[s].score * 65536 + tech_controls(g, s, -1) * 256 + g->seats[s].nhand;
        if (key > best) {
            best = key;
            winners = 1u << s;
        } else if (key == best) {
            winners |= 1u << s;
        }
    }
    g->winners = (uint8_t)winners;
    g->step = TECH_STEP_OVER;
    g->pending = g->submitted = g->defaulted = 0;
    g->turn++;
    tech_emit(g, ev, TEV_GAME_OVER, -1, TECH_NONE, (int)winners, 0);
}

/* The end of a round after the discard-down: draw up, untilt, pass the first player. */
static void finish_round(struct tech_game *g, const struct tech_events *ev)
{
    for (int i = 0; i < g->players; i++) {
        int s = (g->first + i) % g->players;
        if (g->seats[s].nhand < TECH_DRAW_UP)
            tech_draw(g, s, TECH_DRAW_UP - g->seats[s].nhand, ev);
    }
    memset(g->tilted, 0, sizeof g->tilted);
    g->first = (uint8_t)((g->first + 1) % g->players);
    if (g->round >= TECH_ROUNDS) {
        game_over(g, ev);
        return;
    }
    g->round++;
    g->phase_i = 0;
    next_build(g, ev);
}

static void end_of_round(struct tech_game *g, const struct tech_events *ev)
{
    unsigned mask = 0;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].nhand > tech_hand_limit(g))
            mask |= 1u << s;
    if (mask) {
        g->choose_kind = CHOOSE_NONE;
        open_point(g, TECH_STEP_DISCARD, mask, ev);
        return;
    }
    finish_round(g, ev);
}

static void next_build(struct tech_game *g, const struct tech_events *ev)
{
    for (; g->phase_i < g->players; g->phase_i++) {
        int s = (g->first + g->phase_i) % g->players;
        if (g->seats[s].nhand > 0) {
            g->actor = (uint8_t)s;
            open_point(g, TECH_STEP_BUILD, 1u << s, ev);
            return;
        }
    }
    g->phase_i = 0;
    for (int s = 0; s < g->players; s++) {
        g->seats[s].used_normal = g->seats[s].used_free = g->seats[s].passed = false;
    }
    next_effect(g, ev);
}

/* May seat still make the Knowledge free use this round? */
static bool can_free(const struct tech_game *g, int seat)
{
    return !g->seats[seat].used_free && tech_controls(g, seat, DOMAIN_KNOWLEDGE) >= 2;
}

static void next_effect(struct tech_game *g, const struct tech_events *ev)
{
    for (; g->phase_i < g->players; g->phase_i++) {
        int s = (g->first + g->phase_i) % g->players;
        const struct tech_seat *st = &g->seats[s];
        if (!st->passed && (!st->used_normal || can_free(g, s))) {
            g->actor = (uint8_t)s;
            open_point(g, TECH_STEP_EFFECT, 1u << s, ev);
            return;
        }
    }
    end_of_round(g, ev);
}

/* ---- setup ------------------------------------------------------------------------------- */

int tech_new(struct tech_game *g, const struct tech_catalog *cat, int players, uint64_t seed)
{
    if (players < TECH_MIN_PLAYERS || players > TECH_MAX_PLAYERS || !cat || cat->deck_size <= 0)
        return TECH_ERR_BAD_SEAT;
    memset(g, 0, sizeof *g);
    g->cat = cat;
    g->seed = seed;
    rng_seed(&g->rng, seed);
    g->players = (uint8_t)players;
    g->ncards = (uint8_t)(players >= TECH_TWO_DECKS_FROM ? 2 * cat->deck_size : cat->deck_size);
    g->round = 1;
    memset(g->owner, TECH_NONE, sizeof g->owner);
    g->seed_card = TECH_NONE;
    for (int c = 0; c < g->ncards; c++) {
        if (g->seed_card == TECH_NONE && cat->card_design[c % cat->deck_size] == cat->seed_design)
            g->seed_card = (uint8_t)c;
        else
            g->deck[g->ndeck++] = (uint8_t)c;
    }
    tech_city_put(g, g->seed_card, 0, 0, TECH_NONE);
    tech_shuffle_deck(g);
    for (int k = 0; k < TECH_DEAL; k++)
        for (int s = 0; s < players; s++)
            tech_draw(g, s, 1, NULL);
    g->first = (uint8_t)rng_below(&g->rng, (uint32_t)players);
    g->turn = 0;
    next_build(g, NULL);
    return TECH_OK;
}

/* ---- building ---------------------------------------------------------------------------- */

int tech_build_points(const struct tech_game *g, int seat, int card, int x, int y, int as_value,
                      int as_domain)
{
    const struct tech_design *d = tech_design_of(g, card);
    int value = d->domain == DOMAIN_WILD ? as_value : d->value;
    int domain = d->domain == DOMAIN_WILD ? as_domain : d->domain;
    int matches = 0, near = 0;
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        if (tech_design_of(g, c)->value == value)
            matches++;
        int dx = g->cx[c] - x, dy = g->cy[c] - y;
        if (g->owner[c] == seat && dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 && (dx || dy))
            near++;
    }
    int base = matches < TECH_SCORE_CAP_MATCH ? matches : TECH_SCORE_CAP_MATCH;
    int science = tech_controls(g, seat, DOMAIN_SCIENCE) + (domain == DOMAIN_SCIENCE);
    return base + (base >= 2 && science >= 2) + (near >= 2);
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

static int check_build(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    if (!in_hand(g, seat, d->card))
        return TECH_ERR_NOT_IN_HAND;
    if (d->x < -TECH_MAX_COORD || d->x > TECH_MAX_COORD || d->y < -TECH_MAX_COORD ||
        d->y > TECH_MAX_COORD)
        return TECH_ERR_OFF_GRID;
    if (tech_card_at(g, d->x, d->y) != TECH_NONE)
        return TECH_ERR_CELL_TAKEN;
    if (!tech_cell_open(g, d->x, d->y))
        return TECH_ERR_NOT_ADJACENT;
    if (d->npay > 2)
        return TECH_ERR_PAYMENT;
    for (int i = 0; i < d->npay; i++) {
        if (!in_hand(g, seat, d->pay[i]))
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
    if (ds->domain == DOMAIN_SERVICE) {
        /* The builder's own help: 0 or 1 card; solo: exactly 1. */
        if (g->players == 1 ? d->npay != 1 : d->npay > 1)
            return TECH_ERR_PAYMENT;
        return TECH_OK;
    }
    int tech = tech_controls(g, seat, DOMAIN_TECHNOLOGY);
    if (tech >= 2)
        return d->npay == 0 ? TECH_OK : TECH_ERR_PAYMENT;
    if (d->npay == 1) {
        const struct tech_design *p = tech_design_of(g, d->pay[0]);
        if (tech == 1 || p->domain == DOMAIN_WILD || p->value <= TECH_CHEAP_VALUE)
            return TECH_OK;
        return TECH_ERR_PAYMENT;
    }
    return d->npay == 2 && tech == 0 ? TECH_OK : TECH_ERR_PAYMENT;
}

/* Builds d->card for seat (payment already checked) and scores it; `minimum` is the least it
 * scores (1 for a service). */
static void do_build(struct tech_game *g, int seat, const struct tech_decision *d, int minimum,
                     const struct tech_events *ev)
{
    const struct tech_design *ds = tech_design_of(g, d->card);
    int points = tech_build_points(g, seat, d->card, d->x, d->y, d->as_value, d->as_domain);
    if (points < minimum)
        points = minimum;
    tech_hand_remove(g, seat, d->card);
    for (int i = 0; i < d->npay; i++)
        spend(g, seat, d->pay[i], ev);
    g->built_designs |= 1ULL << g->cat->card_design[d->card % g->cat->deck_size];
    if (ds->domain != DOMAIN_WILD) {
        tech_city_put(g, d->card, d->x, d->y, seat);
        emit_at(g, ev, TEV_BUILT, seat, d->card, d->x, d->y, false, d->npay, points);
        tech_score(g, seat, points, ev);
        return;
    }
    /* A wild card scores as the card it names, then the top card of the deck takes its place
     * (a wild card drawn for it is expelled too) and it is expelled. */
    emit_at(g, ev, TEV_BUILT, seat, d->card, d->x, d->y, true, d->npay, points);
    tech_score(g, seat, points, ev);
    expel(g, d->card, ev);
    for (;;) {
        int c = tech_pop_deck(g, ev);
        if (c == TECH_NONE)
            return;
        if (tech_design_of(g, c)->domain == DOMAIN_WILD) {
            expel(g, c, ev);
            continue;
        }
        tech_city_put(g, c, d->x, d->y, seat);
        emit_at(g, ev, TEV_PLACED, seat, c, d->x, d->y, false, 0, 0);
        return;
    }
}

/* A service's help is in: built when at least two cards were given, one of them by another
 * seat; else it goes back (nothing left the hands). */
static void resolve_service(struct tech_game *g, const struct tech_events *ev)
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
        emit_at(g, ev, TEV_HELPED, builder, b->pay[i], 0, 0, false, 0, 0);
    for (int i = 0; i < b->npay; i++)
        spend(g, builder, b->pay[i], ev);
    for (int k = 1; k < g->players; k++) {
        int s = (builder + k) % g->players;
        if ((g->submitted & (1u << s)) && g->dec[s].kind == TDEC_HELP) {
            emit_at(g, ev, TEV_HELPED, s, g->dec[s].card, 0, 0, false, 0, 0);
            spend(g, s, g->dec[s].card, ev);
        }
    }
    do_build(g, builder, &own, 1, ev);
    for (int k = 1; k < g->players; k++) {
        int s = (builder + k) % g->players;
        if ((g->submitted & (1u << s)) && g->dec[s].kind == TDEC_HELP)
            tech_score(g, s, 1, ev);
    }
}

/* ---- checks ------------------------------------------------------------------------------- */

bool tech_pending(const struct tech_game *g, int seat)
{
    return seat >= 0 && seat < g->players && g->step != TECH_STEP_OVER &&
           (g->pending & (1u << seat));
}

/* How many cards seat must give at a choose or discard point. */
static int cards_wanted(const struct tech_game *g, int seat)
{
    if (g->step == TECH_STEP_DISCARD)
        return g->seats[seat].nhand - tech_hand_limit(g);
    if (g->choose_kind == CHOOSE_REVEALED)
        return 1;
    return g->choose_n < g->seats[seat].nhand ? g->choose_n : g->seats[seat].nhand;
}

static int check_cards(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    if (d->ncards != cards_wanted(g, seat))
        return TECH_ERR_CARD_COUNT;
    for (int i = 0; i < d->ncards; i++) {
        for (int j = 0; j < i; j++)
            if (d->cards[j] == d->cards[i])
                return TECH_ERR_DUPLICATE_CARD;
        if (g->step == TECH_STEP_CHOOSE && g->choose_kind == CHOOSE_REVEALED) {
            bool found = false;
            for (int k = 0; k < g->nrevealed; k++)
                found = found || g->revealed[k] == d->cards[i];
            if (!found)
                return TECH_ERR_NOT_OFFERED;
        } else if (!in_hand(g, seat, d->cards[i])) {
            return TECH_ERR_NOT_IN_HAND;
        }
    }
    return TECH_OK;
}

static int check_use(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    int card = tech_card_at(g, d->x, d->y);
    if (card == TECH_NONE)
        return TECH_ERR_NO_CARD_THERE;
    const struct tech_design *ds = tech_design_of(g, card);
    const struct tech_seat *s = &g->seats[seat];
    if (d->free) {
        if (!can_free(g, seat) || g->owner[card] != seat || ds->domain != DOMAIN_KNOWLEDGE)
            return TECH_ERR_FREE_USE;
    } else {
        if (s->used_normal)
            return TECH_ERR_ALREADY_USED;
        if (g->tilted[card])
            return TECH_ERR_TILTED;
    }
    return tech_effect_check(g, seat, card, d);
}

int tech_check(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    if (g->step == TECH_STEP_OVER)
        return TECH_ERR_GAME_OVER;
    if (seat < 0 || seat >= g->players)
        return TECH_ERR_BAD_SEAT;
    if (!tech_pending(g, seat))
        return TECH_ERR_NOT_PENDING;
    switch (g->step) {
    case TECH_STEP_BUILD:
        if (d->kind == TDEC_PASS)
            return TECH_OK;
        return d->kind == TDEC_BUILD ? check_build(g, seat, d) : TECH_ERR_WRONG_KIND;
    case TECH_STEP_HELP:
        if (d->kind == TDEC_PASS)
            return TECH_OK;
        if (d->kind != TDEC_HELP)
            return TECH_ERR_WRONG_KIND;
        return in_hand(g, seat, d->card) ? TECH_OK : TECH_ERR_NOT_IN_HAND;
    case TECH_STEP_EFFECT:
        if (d->kind == TDEC_PASS)
            return TECH_OK;
        return d->kind == TDEC_USE ? check_use(g, seat, d) : TECH_ERR_WRONG_KIND;
    case TECH_STEP_OWNER:
        return d->kind == TDEC_OWNER ? TECH_OK : TECH_ERR_WRONG_KIND;
    case TECH_STEP_CHOOSE:
    case TECH_STEP_DISCARD:
        return d->kind == TDEC_CARDS ? check_cards(g, seat, d) : TECH_ERR_WRONG_KIND;
    default:
        return TECH_ERR_GAME_OVER;
    }
}

int tech_submit(struct tech_game *g, int seat, const struct tech_decision *d)
{
    int e = tech_check(g, seat, d);
    if (e != TECH_OK)
        return e;
    g->dec[seat] = *d;
    g->submitted |= (uint8_t)(1u << seat);
    g->defaulted &= (uint8_t) ~(1u << seat);
    return TECH_OK;
}

bool tech_ready(const struct tech_game *g)
{
    return g->step != TECH_STEP_OVER && (g->pending & ~g->submitted) == 0;
}

/* The default's ordering of hand cards: lowest value first (a wild card last), then id. */
static int worth(const struct tech_game *g, int card)
{
    const struct tech_design *d = tech_design_of(g, card);
    return (d->domain == DOMAIN_WILD ? 14 : d->value) * 256 + card;
}

void tech_default_decision(const struct tech_game *g, int seat, struct tech_decision *d)
{
    tech_decision_init(d);
    switch (g->step) {
    case TECH_STEP_OWNER:
        d->kind = TDEC_OWNER;
        break;
    case TECH_STEP_CHOOSE:
    case TECH_STEP_DISCARD:
        d->kind = TDEC_CARDS;
        if (g->step == TECH_STEP_CHOOSE && g->choose_kind == CHOOSE_REVEALED) {
            d->ncards = 1;
            d->cards[0] = g->revealed[0];
            break;
        }
        {
            int n = cards_wanted(g, seat);
            const struct tech_seat *s = &g->seats[seat];
            uint8_t taken[TECH_MAX_CARDS] = {0};
            for (int k = 0; k < n; k++) {
                int best = -1;
                for (int i = 0; i < s->nhand; i++)
                    if (!taken[i] && (best < 0 || worth(g, s->hand[i]) < worth(g, s->hand[best])))
                        best = i;
                taken[best] = 1;
                d->cards[d->ncards++] = s->hand[best];
            }
        }
        break;
    default:
        d->kind = TDEC_PASS;
        break;
    }
}

int tech_fill_defaults(struct tech_game *g, const struct tech_events *ev)
{
    if (g->step == TECH_STEP_OVER)
        return 0;
    int n = 0;
    for (int s = 0; s < g->players; s++) {
        if (!(g->pending & (1u << s)) || (g->submitted & (1u << s)))
            continue;
        struct tech_decision d;
        tech_default_decision(g, s, &d);
        g->dec[s] = d;
        g->submitted |= (uint8_t)(1u << s);
        g->defaulted |= (uint8_t)(1u << s);
        tech_emit(g, ev, TEV_DEFAULT, s, TECH_NONE, d.kind, 0);
        n++;
    }
    return n;
}

/* ---- resolution --------------------------------------------------------------------------- */

static void after_use(struct tech_game *g, const struct tech_events *ev)
{
    g->run.stage = RUN_NONE;
    g->choose_kind = CHOOSE_NONE;
    next_effect(g, ev);
}

/* Goes on with the effect in progress: the other seats' choices, then the owner. */
static void run_continue(struct tech_game *g, const struct tech_events *ev)
{
    const struct tech_effect *e = &tech_design_of(g, g->run.card)->effect;
    if (g->run.stage == RUN_OTHERS) {
        while (e->prim == PRIM_DISCARD && g->run.next_other < g->players) {
            int s = (g->run.user + g->run.next_other) % g->players;
            g->run.next_other++;
            if (g->seats[s].nhand == 0)
                continue;
            g->choose_kind = CHOOSE_DISCARD;
            g->choose_n = (uint8_t)e->n;
            open_point(g, TECH_STEP_CHOOSE, 1u << s, ev);
            return;
        }
        g->run.stage = RUN_OWNER;
    }
    if (g->run.stage == RUN_OWNER) {
        g->run.stage = RUN_DONE;
        if (g->run.owner != TECH_NONE) {
            g->choose_kind = CHOOSE_NONE;
            open_point(g, TECH_STEP_OWNER, 1u << g->run.owner, ev);
            return;
        }
    }
    after_use(g, ev);
}

static void resolve_use(struct tech_game *g, int seat, const struct tech_decision *d,
                        const struct tech_events *ev)
{
    int card = tech_card_at(g, d->x, d->y);
    const struct tech_design *ds = tech_design_of(g, card);
    struct tech_seat *s = &g->seats[seat];
    if (d->free)
        s->used_free = true;
    else
        s->used_normal = true;
    if (ds->domain != DOMAIN_SERVICE)
        g->tilted[card] = true;
    g->used_designs |= 1ULL << g->cat->card_design[card % g->cat->deck_size];
    emit_at(g, ev, TEV_EFFECT, seat, card, d->x, d->y, d->free, ds->effect.prim, 0);
    g->run.stage = RUN_OTHERS;
    g->run.user = (uint8_t)seat;
    g->run.card = (uint8_t)card;
    g->run.owner = g->owner[card] != seat ? g->owner[card] : TECH_NONE;
    g->run.next_other = 1;
    g->choose_kind = CHOOSE_NONE;
    tech_effect_apply(g, seat, card, d, ev);
    if (g->choose_kind != CHOOSE_NONE) {
        open_point(g, TECH_STEP_CHOOSE, 1u << seat, ev);
        return;
    }
    run_continue(g, ev);
}

static void resolve_choose(struct tech_game *g, int seat, const struct tech_decision *d,
                           const struct tech_events *ev)
{
    if (g->choose_kind == CHOOSE_REVEALED) {
        tech_effect_take_revealed(g, seat, d->cards[0], ev);
    } else {
        for (int i = 0; i < d->ncards; i++)
            tech_hand_discard(g, seat, d->cards[i], ev);
    }
    g->choose_kind = CHOOSE_NONE;
    run_continue(g, ev);
}

bool tech_resolve(struct tech_game *g, const struct tech_events *ev)
{
    if (!tech_ready(g))
        return false;
    int actor = g->actor;
    switch (g->step) {
    case TECH_STEP_BUILD: {
        const struct tech_decision *d = &g->dec[actor];
        if (d->kind == TDEC_PASS) {
            tech_emit(g, ev, TEV_PASSED, actor, TECH_NONE, 0, 0);
        } else if (tech_design_of(g, d->card)->domain == DOMAIN_SERVICE && g->players > 1) {
            g->build = *d;
            unsigned mask = 0;
            for (int s = 0; s < g->players; s++)
                if (s != actor && g->seats[s].nhand > 0)
                    mask |= 1u << s;
            if (mask) {
                open_point(g, TECH_STEP_HELP, mask, ev);
                return true;
            }
            g->submitted = 0;
            resolve_service(g, ev);
        } else {
            do_build(g, actor, d, tech_design_of(g, d->card)->domain == DOMAIN_SERVICE, ev);
        }
        g->phase_i++;
        next_build(g, ev);
        return true;
    }
    case TECH_STEP_HELP:
        resolve_service(g, ev);
        g->phase_i++;
        next_build(g, ev);
        return true;
    case TECH_STEP_EFFECT: {
        const struct tech_decision *d = &g->dec[actor];
        if (d->kind == TDEC_PASS) {
            g->seats[actor].passed = true;
            tech_emit(g, ev, TEV_PASSED, actor, TECH_NONE, 0, 0);
            g->phase_i++;
            next_effect(g, ev);
            return true;
        }
        struct tech_decision copy = *d;
        resolve_use(g, actor, &copy, ev);
        return true;
    }
    case TECH_STEP_OWNER: {
        int owner = g->run.owner;
        if (g->dec[owner].draw && tech_draw(g, owner, 1, ev) > 0) {
            g->choose_kind = CHOOSE_DISCARD;
            g->choose_n = 1;
            g->run.stage = RUN_DONE;
            open_point(g, TECH_STEP_CHOOSE, 1u << owner, ev);
            return true;
        }
        after_use(g, ev);
        return true;
    }
    case TECH_STEP_CHOOSE: {
        int s = __builtin_ctz(g->pending);
        struct tech_decision copy = g->dec[s];
        resolve_choose(g, s, &copy, ev);
        return true;
    }
    case TECH_STEP_DISCARD:
        for (int s = 0; s < g->players; s++)
            if (g->pending & (1u << s))
                for (int i = 0; i < g->dec[s].ncards; i++)
                    tech_hand_discard(g, s, g->dec[s].cards[i], ev);
        finish_round(g, ev);
        return true;
    default:
        return false;
    }
}

/* ---- invariants --------------------------------------------------------------------------- */

bool tech_check_conservation(const struct tech_game *g)
{
    uint8_t seen[TECH_MAX_CARDS] = {0};
    int total = 0;
#define COUNT(arr, n)                                                                              \
    for (int i_ = 0; i_ < (n); i_++) {                                                             \
        if ((arr)[i_] >= g->ncards || seen[(arr)[i_]]++)                                           \
            return false;                                                                          \
        total++;                                                                                   \
    }
    COUNT(g->deck, g->ndeck);
    COUNT(g->discard, g->ndiscard);
    COUNT(g->expelled, g->nexpelled);
    COUNT(g->city, g->ncity);
    COUNT(g->revealed, g->nrevealed);
    for (int s = 0; s < g->players; s++)
        COUNT(g->seats[s].hand, g->seats[s].nhand);
#undef COUNT
    if (total != g->ncards || g->seed_card >= g->ncards)
        return false;
    for (int i = 0; i < g->ncity; i++) {
        if (tech_design_of(g, g->city[i])->domain == DOMAIN_WILD)
            return false;
        if (g->city[i] == g->seed_card)
            return true;
    }
    return false;
}
