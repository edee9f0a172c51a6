/* tech.c: Tech City's rules engine — setup, decision points, checks, defaults, resolution, the
 * effects phase's bookkeeping (tilting, owners, the Knowledge free use), the end of a round and
 * of the game (see tech.h). Building is tech_build.c; moving cards between places is
 * tech_table.c; the effects are tech_effects.c's one interpreter. */
#include "tech.h"

#include <string.h>

#include "ruleset.h"
#include "tech_effects.h"
#include "tech_internal.h"

/* ---- names ------------------------------------------------------------------------------ */

const char *const tech_step_names[TECH_STEP_COUNT + 1] = {"build",  "help",    "effect", "owner",
                                                          "choose", "discard", "over",   NULL};

const char *tech_step_name(int step)
{
    return rs_name_at(tech_step_names, step, "?");
}

int tech_step_from_name(const char *name)
{
    return rs_name_index(tech_step_names, name);
}

static const struct rs_error errors[TECH_ERR_COUNT] = {
    RS_COMMON_ERRORS(TECH_OK, TECH_ERR_GAME_OVER, TECH_ERR_BAD_SEAT, TECH_ERR_NOT_PENDING,
                     TECH_ERR_WRONG_KIND),
    [TECH_ERR_NOT_IN_HAND] = {"not_in_hand", "A card named is not in your hand."},
    [TECH_ERR_DUPLICATE_CARD] = {"duplicate_card", "A card is named twice."},
    [TECH_ERR_CELL_TAKEN] = {"cell_taken", "That cell already holds a card; choose an empty one."},
    [TECH_ERR_NOT_ADJACENT] = {"not_adjacent",
                               "A new card must touch a card of the city horizontally or "
                               "vertically."},
    [TECH_ERR_OFF_GRID] = {"off_grid", "Coordinates run from -120 to 120."},
    [TECH_ERR_PAYMENT] = {"bad_payment",
                          "Pay with one card of value 7 or less, or any two cards (or one card of "
                          "any value with a Technology company, nothing with two; a wild card "
                          "pays any build; a service takes 0 or 1 card of yours as help, 1 in "
                          "solo)."},
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
    return rs_error_code(errors, TECH_ERR_COUNT, err);
}

const char *tech_error_message(int err)
{
    return rs_error_message(errors, TECH_ERR_COUNT, err);
}

/* ---- decision points --------------------------------------------------------------------- */

static void open_point(struct tech_game *g, int step, unsigned mask, const struct tech_events *ev)
{
    g->step = (uint8_t)step;
    /* Only a seat pending at the last point may have a decision to empty: tech_submit(), the
     * defaults and a stored state's decisions fill only those (test_tech_props checks that the
     * others' are empty); emptying the one or two of them is emptying all six. */
    for (unsigned m = g->pending; m; m &= m - 1)
        memset(&g->dec[__builtin_ctz(m)], 0, sizeof g->dec[0]);
    g->pending = (uint8_t)mask;
    g->submitted = g->defaulted = 0;
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
    return tech_new_decks(g, cat, players, seed, 0);
}

int tech_new_decks(struct tech_game *g, const struct tech_catalog *cat, int players, uint64_t seed,
                   int decks)
{
    if (players < TECH_MIN_PLAYERS || players > TECH_MAX_PLAYERS || !cat || cat->deck_size <= 0)
        return TECH_ERR_BAD_SEAT;
    if (decks == 0)
        decks = players >= TECH_TWO_DECKS_FROM ? 2 : 1;
    if (decks < 1 || decks > 2 || (decks == 2 && players < TECH_TWO_DECKS_FROM))
        return TECH_ERR_BAD_SEAT;
    memset(g, 0, sizeof *g);
    g->cat = cat;
    g->seed = seed;
    rng_seed(&g->rng, seed);
    g->players = (uint8_t)players;
    g->ncards = (uint8_t)(decks * cat->deck_size);
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

/* ---- checks ------------------------------------------------------------------------------- */

bool tech_pending(const struct tech_game *g, int seat)
{
    return seat >= 0 && seat < g->players && g->step != TECH_STEP_OVER &&
           (g->pending & (1u << seat));
}

int tech_cards_wanted(const struct tech_game *g, int seat)
{
    if (g->step == TECH_STEP_DISCARD)
        return g->seats[seat].nhand - tech_hand_limit(g);
    if (g->choose_kind == CHOOSE_REVEALED)
        return 1;
    return g->choose_n < g->seats[seat].nhand ? g->choose_n : g->seats[seat].nhand;
}

static int check_cards(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    if (d->ncards != tech_cards_wanted(g, seat))
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
        } else if (!tech_in_hand(g, seat, d->cards[i])) {
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
    /* the order of the owner's draw-and-discard is a choice only when there is an owner */
    if (d->owner_first && (g->owner[card] == TECH_NONE || g->owner[card] == seat))
        return TECH_ERR_NEEDLESS_CHOICE;
    int e = tech_use_open(g, seat, card, d->free);
    return e != TECH_OK ? e : tech_effect_check(g, seat, card, d);
}

int tech_use_open(const struct tech_game *g, int seat, int card, bool free)
{
    if (free)
        return can_free(g, seat) && g->owner[card] == seat &&
                       tech_design_of(g, card)->domain == DOMAIN_KNOWLEDGE
                   ? TECH_OK
                   : TECH_ERR_FREE_USE;
    if (g->seats[seat].used_normal)
        return TECH_ERR_ALREADY_USED;
    return g->tilted[card] ? TECH_ERR_TILTED : TECH_OK;
}

/* The cards an order divulges: distinct cards of the seat's hand. */
static int check_divulge(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    for (int i = 0; i < d->ndivulge; i++) {
        for (int j = 0; j < i; j++)
            if (d->divulge[j] == d->divulge[i])
                return TECH_ERR_DUPLICATE_CARD;
        if (!tech_in_hand(g, seat, d->divulge[i]))
            return TECH_ERR_NOT_IN_HAND;
    }
    return TECH_OK;
}

static int check_step(const struct tech_game *g, int seat, const struct tech_decision *d);

int tech_check(const struct tech_game *g, int seat, const struct tech_decision *d)
{
    int e = check_step(g, seat, d);
    return e != TECH_OK ? e : check_divulge(g, seat, d);
}

static int check_step(const struct tech_game *g, int seat, const struct tech_decision *d)
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
        return d->kind == TDEC_BUILD ? tech_check_build(g, seat, d) : TECH_ERR_WRONG_KIND;
    case TECH_STEP_HELP:
        if (d->kind == TDEC_PASS)
            return TECH_OK;
        if (d->kind != TDEC_HELP)
            return TECH_ERR_WRONG_KIND;
        return tech_in_hand(g, seat, d->card) ? TECH_OK : TECH_ERR_NOT_IN_HAND;
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
    ruleset_mark_sent(&g->submitted, &g->defaulted, seat);
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
            int n = tech_cards_wanted(g, seat);
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
    unsigned due = ruleset_defaults_due(g->pending, &g->submitted, &g->defaulted);
    int n = 0;
    for (int s = 0; s < g->players; s++)
        if (due & (1u << s)) {
            tech_default_decision(g, s, &g->dec[s]);
            tech_emit(g, ev, TEV_DEFAULT, s, TECH_NONE, g->dec[s].kind, 0);
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

static void effect_after_owner(struct tech_game *g, const struct tech_events *ev);

/* Goes on with the effect in progress: the other seats' choices, then the owner (or, when the
 * owner went first, the effect). */
static void run_continue(struct tech_game *g, const struct tech_events *ev)
{
    if (g->run.stage == RUN_BEFORE) {
        effect_after_owner(g, ev);
        return;
    }
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

/* Applies the effect of the use in progress (g->run) with d's choices, then asks for the
 * choices it waits for. */
static void apply_use(struct tech_game *g, const struct tech_decision *d,
                      const struct tech_events *ev)
{
    int seat = g->run.user;
    g->run.stage = RUN_OTHERS;
    g->run.next_other = 1;
    g->choose_kind = CHOOSE_NONE;
    tech_effect_apply(g, seat, g->run.card, d, ev);
    if (g->choose_kind != CHOOSE_NONE) {
        open_point(g, TECH_STEP_CHOOSE, 1u << seat, ev);
        return;
    }
    run_continue(g, ev);
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
    g->run.user = (uint8_t)seat;
    g->run.card = (uint8_t)card;
    g->run.owner = g->owner[card] != seat ? g->owner[card] : TECH_NONE;
    bool owner_first = d->owner_first && g->run.owner != TECH_NONE;
    tech_emit_at(g, ev, TEV_EFFECT, seat, card, d->x, d->y, d->free, ds->effect.prim, owner_first);
    if (owner_first) { /* the active player's order: the owner's draw-and-discard first */
        g->use = *d;
        g->run.stage = RUN_BEFORE;
        g->choose_kind = CHOOSE_NONE;
        open_point(g, TECH_STEP_OWNER, 1u << g->run.owner, ev);
        return;
    }
    apply_use(g, d, ev);
}

/* The owner has drawn and discarded (or declined): the waiting effect resolves now. Only a
 * reshuffle by the owner's draw can have taken a choice away (the discard-pile card of an
 * exchange); the effect then has nothing left to act on and does nothing. */
static void effect_after_owner(struct tech_game *g, const struct tech_events *ev)
{
    struct tech_decision d = g->use;
    memset(&g->use, 0, sizeof g->use);
    g->run.owner = TECH_NONE; /* its draw-and-discard is done */
    if (tech_effect_check(g, g->run.user, g->run.card, &d) != TECH_OK) {
        after_use(g, ev);
        return;
    }
    apply_use(g, &d, ev);
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
    /* cards shown to all come first, while they are still where their seat saw them */
    for (int s = 0; s < g->players; s++)
        for (int i = 0; (g->pending & (1u << s)) && i < g->dec[s].ndivulge; i++)
            tech_emit(g, ev, TEV_DIVULGED, s, g->dec[s].divulge[i], 0, 0);
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
            tech_resolve_service(g, ev);
        } else {
            tech_do_build(g, actor, d, tech_design_of(g, d->card)->domain == DOMAIN_SERVICE, ev);
        }
        g->phase_i++;
        next_build(g, ev);
        return true;
    }
    case TECH_STEP_HELP:
        tech_resolve_service(g, ev);
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
        bool before = g->run.stage == RUN_BEFORE;
        if (g->dec[owner].draw && tech_draw(g, owner, 1, ev) > 0) {
            g->choose_kind = CHOOSE_DISCARD;
            g->choose_n = 1;
            if (!before)
                g->run.stage = RUN_DONE;
            open_point(g, TECH_STEP_CHOOSE, 1u << owner, ev);
            return true;
        }
        if (before)
            effect_after_owner(g, ev);
        else
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
    uint8_t seen[RS_MAX_CARDS] = {0};
    int total = 0;
#define COUNT(arr, n)                                                                              \
    if (!ruleset_cards_tally(seen, g->ncards, (arr), (n), &total))                                 \
        return false;
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

bool tech_check_point(const struct tech_game *g)
{
    unsigned all = (1u << g->players) - 1, p = g->pending;
    if ((p & ~all) || (g->submitted & ~p) || (g->defaulted & ~g->submitted) ||
        g->actor >= g->players || g->phase_i > g->players || g->first >= g->players ||
        g->round < 1 || g->round > TECH_ROUNDS || g->step >= TECH_STEP_COUNT)
        return false;
    bool running = g->run.stage != RUN_NONE;
    /* a use waits for its owner exactly when the owner goes first */
    if ((g->run.stage == RUN_BEFORE) != (g->use.kind == TDEC_USE) ||
        (g->run.stage == RUN_BEFORE && g->step != TECH_STEP_OWNER &&
         !(g->step == TECH_STEP_CHOOSE && g->choose_kind == CHOOSE_DISCARD)))
        return false;
    if (running && (g->run.stage > RUN_BEFORE || g->run.card >= g->ncards ||
                    g->run.user >= g->players || g->run.next_other > g->players ||
                    (g->run.owner != TECH_NONE && g->run.owner >= g->players)))
        return false;
    if (g->nrevealed && !(g->step == TECH_STEP_CHOOSE && g->choose_kind == CHOOSE_REVEALED))
        return false;
    switch (g->step) {
    case TECH_STEP_BUILD:
    case TECH_STEP_EFFECT:
        return p == 1u << g->actor && !running &&
               g->phase_i == (g->actor - g->first + g->players) % g->players;
    case TECH_STEP_HELP: {
        const struct tech_decision *b = &g->build;
        if (!p || (p & (1u << g->actor)) || running || b->kind != TDEC_BUILD ||
            b->card >= g->ncards || tech_design_of(g, b->card)->domain != DOMAIN_SERVICE ||
            !tech_in_hand(g, g->actor, b->card) || b->npay > 1 || !tech_cell_open(g, b->x, b->y))
            return false;
        return b->npay == 0 || (b->pay[0] != b->card && tech_in_hand(g, g->actor, b->pay[0]));
    }
    case TECH_STEP_OWNER:
        return running && g->run.owner != TECH_NONE && p == 1u << g->run.owner;
    case TECH_STEP_CHOOSE:
        if (!running || __builtin_popcount(p) != 1 || g->choose_kind == CHOOSE_NONE ||
            g->choose_kind > CHOOSE_REVEALED)
            return false;
        return g->choose_kind == CHOOSE_DISCARD ? g->choose_n > 0 : g->nrevealed > 0;
    case TECH_STEP_DISCARD:
        for (int s = 0; s < g->players; s++)
            if (((p >> s) & 1) != (g->seats[s].nhand > tech_hand_limit(g)))
                return false;
        return p != 0 && !running;
    default:
        return p == 0;
    }
}
