/* sc.c: SimCity's rules engine — setup, the turn (removals, timed events, draw, council, plays,
 * the end of a turn and of a round), decision points (who is pending, checks, defaults,
 * resolution), the game's ends and its winners, money and its sources, and the invariants (see
 * sc.h). The city and the card interpreter are sc_city.c and sc_score.c; events and politics
 * sc_politics.c; the legal options sc_options.c; names and refusal codes sc_names.c. */
#include "sc.h"

#include <string.h>

#include "ruleset.h"
#include "sc_internal.h"

/* ---- events, money, cards ------------------------------------------------------------------ */

void sc_emit_at(const struct sc_game *g, const struct sc_events *ev, int type, int seat, int card,
                int x, int y, bool flag, int count, int total)
{
    if (!ev || !ev->emit)
        return;
    struct sc_event e = {.type = (uint8_t)type,
                         .seat = (int8_t)seat,
                         .round = g->round,
                         .step = g->step,
                         .turn = g->turn,
                         .card = (uint8_t)card,
                         .x = (int8_t)x,
                         .y = (int8_t)y,
                         .flag = flag,
                         .count = count,
                         .total = total};
    ev->emit(ev->ctx, &e);
}

void sc_emit(const struct sc_game *g, const struct sc_events *ev, int type, int seat, int card,
             int count, int total)
{
    sc_emit_at(g, ev, type, seat, card, -1, -1, false, count, total);
}

int sc_money(struct sc_game *g, int seat, int delta, int source, const struct sc_events *ev)
{
    struct sc_seat *s = &g->seats[seat];
    if (s->money + delta < 0)
        delta = -s->money;
    if (delta == 0)
        return 0;
    s->money += delta;
    s->earned[source] += delta;
    if (ev && ev->emit) {
        struct sc_event e = {.type = SC_EV_MONEY,
                             .seat = (int8_t)seat,
                             .round = g->round,
                             .step = g->step,
                             .turn = g->turn,
                             .card = SC_NONE,
                             .x = -1,
                             .y = -1,
                             .source = (uint8_t)source,
                             .count = delta,
                             .total = s->money};
        ev->emit(ev->ctx, &e);
    }
    if (g->target > 0 && s->money >= g->target && !g->target_hit) {
        g->target_hit = true;
        sc_emit(g, ev, SC_EV_TARGET, seat, SC_NONE, g->target, s->money);
    }
    return delta;
}

int sc_draw(struct sc_game *g, int seat, const struct sc_events *ev)
{
    if (g->ndeck == 0)
        return SC_NONE;
    int card = g->deck[--g->ndeck];
    struct sc_seat *s = &g->seats[seat];
    s->hand[s->nhand++] = (uint8_t)card;
    sc_emit(g, ev, SC_EV_DREW, seat, SC_NONE, 1, s->nhand);
    return card;
}

bool sc_in_hand(const struct sc_game *g, int seat, int card)
{
    return ruleset_cards_has(g->seats[seat].hand, g->seats[seat].nhand, card);
}

void sc_hand_remove(struct sc_game *g, int seat, int card)
{
    ruleset_cards_remove(g->seats[seat].hand, &g->seats[seat].nhand, card);
}

void sc_mark_played(struct sc_game *g, int seat, int card)
{
    int k = g->cat->card_design[card];
    g->seats[seat].played[k / 8] |= (uint8_t)(1u << (k % 8));
}

/* ---- decision points --------------------------------------------------------------------- */

static void open_point(struct sc_game *g, int step, unsigned mask, const struct sc_events *ev)
{
    g->step = (uint8_t)step;
    g->pending = (uint8_t)mask;
    g->submitted = g->defaulted = 0;
    for (int s = 0; s < SC_MAX_PLAYERS; s++)
        sc_decision_init(&g->dec[s]);
    g->turn++;
    sc_emit(g, ev, SC_EV_STEP, -1, SC_NONE, (int)mask, 0);
}

static void game_over(struct sc_game *g, int reason, const struct sc_events *ev)
{
    int best = -1;
    unsigned winners = 0;
    for (int s = 0; s < g->players; s++) {
        if (g->seats[s].money > best) {
            best = g->seats[s].money;
            winners = 1u << s;
        } else if (g->seats[s].money == best) {
            winners |= 1u << s;
        }
    }
    g->winners = (uint8_t)winners;
    g->end_reason = (uint8_t)reason;
    g->step = SC_STEP_OVER;
    g->pending = g->submitted = g->defaulted = 0;
    g->vote.active = g->elect.active = false;
    g->nbills = 0;
    g->turn++;
    sc_emit(g, ev, SC_EV_GAME_OVER, -1, SC_NONE, (int)winners, reason);
}

static bool can_buy(const struct sc_game *g, int seat)
{
    const struct sc_seat *s = &g->seats[seat];
    for (int i = 0; g->power_played && i < s->nhand; i++) {
        const struct sc_design *d = sc_design_of(g, s->hand[i]);
        if (d->kind == SC_KIND_COUNCIL && d->cost <= s->money)
            return true;
    }
    return false;
}

bool sc_has_legal_play(const struct sc_game *g, int seat)
{
    return sc_any_play(g, seat, false);
}

bool sc_discard_drawable(const struct sc_game *g)
{
    return g->ndiscard > 0 && sc_design_of(g, g->discard[g->ndiscard - 1])->kind != SC_KIND_EVENT;
}

/* The immediate ends, judged as seat's turn begins (or after a play): the deck is out and a
 * hand is empty; the surface is full or the deck is out and seat has no legal play. */
static int ends_now(const struct sc_game *g, int seat)
{
    if (g->ndeck == 0)
        for (int s = 0; s < g->players; s++)
            if (g->seats[s].nhand == 0)
                return SC_END_DECK_OUT;
    bool full = sc_surface_full(g);
    if ((full || g->ndeck == 0) && !sc_has_legal_play(g, seat))
        return full ? SC_END_SURFACE_FULL : SC_END_DECK_OUT;
    return SC_END_NONE;
}

/* Rounds in a row in which nobody played or drew from the deck that end a game whose deck is
 * not out (see end_turn). */
enum { SC_IDLE_ROUNDS = 5 };

/* The end of the actor's turn: its timed events that have run their course end, the next seat
 * plays; the round's end ends a game whose target was reached. */
static void end_turn(struct sc_game *g, const struct sc_events *ev)
{
    int a = g->actor;
    for (int i = 0; i < g->ntimed;)
        if (g->timed[i].player == a && g->seats[a].turns >= g->timed[i].until)
            sc_timed_end(g, i, ev);
        else
            i++;
    /* a turn with no play that took no card from the deck moves the game nowhere */
    bool moved = g->played || (g->drawn != SC_NONE && !g->drew_discard);
    g->idle = moved ? 0 : (uint8_t)(g->idle + 1);
    g->actor = (uint8_t)((a + 1) % g->players);
    g->stage = SC_ST_START;
    if (g->actor == g->first) {
        if (g->target_hit) {
            game_over(g, SC_END_TARGET, ev);
            return;
        }
        g->round++;
    }
    /* A round of passes ends the game once the deck is out (the rule). Solitaire's player may
     * take the discard pile's top and pass with the deck still full: five such turns in a row
     * move nothing at all, and end it too (decision: a game must end). */
    if (g->idle >= g->players && (g->ndeck == 0 || g->idle >= SC_IDLE_ROUNDS * g->players))
        game_over(g, SC_END_ALL_PASSED, ev);
}

/* One step of the turn in progress; false when it opened a point or ended the game. */
static bool turn_step(struct sc_game *g, const struct sc_events *ev)
{
    int a = g->actor;
    struct sc_seat *s = &g->seats[a];
    switch (g->stage) {
    case SC_ST_START: {
        /* blocks doomed by an earlier play go now */
        uint8_t doomed = 0; /* (any card flagged at all: most turns none, and no walk) */
        for (int k = 0; k < SC_MAX_CARDS; k++)
            doomed |= g->flags[k];
        for (int c = 0; (doomed & SC_CF_DOOMED) && c < SC_CELLS; c++)
            for (int k = g->top[c]; k != SC_NONE;) {
                int below = g->below[k];
                if (g->flags[k] & SC_CF_DOOMED)
                    sc_city_remove(g, k, ev);
                k = below;
            }
        s->turns++;
        g->played = false;
        g->plays_left = 1;
        g->drawn = SC_NONE;
        g->drew_discard = false;
        g->effect_i = 0;
        int end = ends_now(g, a);
        if (end != SC_END_NONE) {
            game_over(g, end, ev);
            return false;
        }
        g->stage = SC_ST_EFFECTS;
        return true;
    }
    case SC_ST_EFFECTS:
        while (g->effect_i < g->ntimed) {
            int i = g->effect_i;
            int kind = sc_design_of(g, g->timed[i].card)->effects[g->timed[i].effect].kind;
            int cells[SC_CELLS];
            int n = kind == SC_EF_FORBID ? 0 : sc_timed_candidates(g, i, cells, SC_CELLS);
            if (kind == SC_EF_SPREAD && sc_timed_spares(g, i))
                g->acted |= 1u << SC_SP_PROTECT; /* (figures) a protection held the fire back */
            if (n == 0 && kind == SC_EF_SPREAD) {
                sc_timed_end(g, i, ev); /* the fire has nothing left to burn */
                continue;
            }
            if (n > 1) {
                open_point(g, SC_STEP_TARGET, 1u << a, ev);
                return false;
            }
            g->effect_i++;
            if (n == 1) {
                sc_timed_act(g, i, cells[0], ev);
                return true; /* its bill first */
            }
        }
        g->stage = SC_ST_DRAW;
        return true;
    case SC_ST_DRAW:
        g->stage = SC_ST_COUNCIL;
        if (g->players == 1 && sc_discard_drawable(g)) {
            open_point(g, SC_STEP_DRAW, 1u << a, ev);
            return false;
        }
        g->drawn = (uint8_t)sc_draw(g, a, ev);
        return true;
    case SC_ST_COUNCIL:
        g->stage = SC_ST_PLAY;
        if (can_buy(g, a)) {
            open_point(g, SC_STEP_COUNCIL, 1u << a, ev);
            return false;
        }
        return true;
    case SC_ST_PLAY:
        if (g->ndeck == 0)
            for (int k = 0; k < g->players; k++)
                if (g->seats[k].nhand == 0) {
                    game_over(g, SC_END_DECK_OUT, ev);
                    return false;
                }
        if (g->plays_left > 0 && sc_any_play(g, a, true)) {
            open_point(g, SC_STEP_PLAY, 1u << a, ev);
            return false;
        }
        if (!g->played && g->plays_left > 0)
            sc_emit(g, ev, SC_EV_PASSED, a, SC_NONE, 0, 0);
        g->stage = SC_ST_END;
        return true;
    default:
        if (g->players == 1 && s->nhand > SC_SOLO_HAND) {
            open_point(g, SC_STEP_DISCARD, 1u << a, ev);
            return false;
        }
        end_turn(g, ev);
        return g->step != SC_STEP_OVER;
    }
}

/* Goes on from a resolved point until the next point opens or the game ends: an election in
 * progress first, then the Mayor's bills, then a vote, then the turn. */
static void advance(struct sc_game *g, const struct sc_events *ev)
{
    for (;;) {
        if (g->step == SC_STEP_OVER)
            return;
        if (g->elect.active) {
            struct sc_election *e = &g->elect;
            if (e->passes >= g->players) {
                sc_election_finish(g, ev);
                continue;
            }
            int s = (e->outgoing + e->next) % g->players;
            if (g->seats[s].money <= 0) {
                sc_election_bid(g, s, NULL, ev);
                continue;
            }
            open_point(g, SC_STEP_ELECTION, 1u << s, ev);
            return;
        }
        if (g->nbills) {
            if (g->mayor == SC_NONE) {
                g->nbills = 0;
                continue;
            }
            if (g->players == 1) { /* Solitaire: bills are paid in full */
                sc_pay_bill(g, false, ev);
                continue;
            }
            open_point(g, SC_STEP_MAYOR_PAY, 1u << g->mayor, ev);
            return;
        }
        if (g->vote.active) {
            struct sc_vote *v = &g->vote;
            if (v->next < g->players) {
                int s = (v->proposer + v->next) % g->players;
                if (sc_free_members(g, s) == 0) {
                    sc_vote_cast(g, s, NULL, ev);
                    v->next++;
                    continue;
                }
                open_point(g, SC_STEP_VOTE, 1u << s, ev);
                return;
            }
            if (!v->mayor_asked && g->mayor != SC_NONE) {
                v->mayor_asked = true;
                open_point(g, SC_STEP_VOTE, 1u << g->mayor, ev);
                return;
            }
            sc_vote_finish(g, NULL, ev);
            continue;
        }
        if (!turn_step(g, ev))
            return;
    }
}

void sc_begin_turn(struct sc_game *g, int seat, const struct sc_events *ev)
{
    g->actor = (uint8_t)seat;
    g->stage = SC_ST_START;
    g->pending = g->submitted = g->defaulted = 0;
    advance(g, ev);
}

/* ---- setup ------------------------------------------------------------------------------- */

int sc_default_target(int players)
{
    if (players < 2 || players > SC_MAX_PLAYERS)
        return 0;
    return SC_TARGET_BASE + SC_TARGET_PER_PLAYER * players;
}

int sc_new(struct sc_game *g, const struct sc_catalog *cat, int players, uint64_t seed, int target)
{
    if (players < SC_MIN_PLAYERS || players > SC_MAX_PLAYERS || !cat || cat->base_size <= 0 ||
        target < 0 || target > SC_MAX_TARGET)
        return SC_ERR_BAD_SEAT;
    memset(g, 0, sizeof *g);
    g->cat = cat;
    g->seed = seed;
    rng_seed(&g->rng, seed);
    g->players = (uint8_t)players;
    g->side = players >= SC_BIG_FROM ? SC_SIDE_BIG : SC_SIDE_SMALL;
    g->ncards = (uint8_t)sc_deck_size(cat, players);
    g->target = players == 1 ? 0 : target ? target : sc_default_target(players);
    g->phase = 1;
    g->mayor = SC_NONE;
    g->round = 1;
    g->drawn = SC_NONE;
    memset(g->top, SC_NONE, sizeof g->top);
    memset(g->block, SC_NONE, sizeof g->block);
    memset(g->cell_of, SC_NONE, sizeof g->cell_of);
    memset(g->below, SC_NONE, sizeof g->below);
    for (int c = 0; c < g->ncards; c++)
        g->deck[g->ndeck++] = (uint8_t)c;
    rng_shuffle(&g->rng, g->deck, g->ndeck);
    for (int k = 0; k < SC_DEAL; k++)
        for (int s = 0; s < players; s++)
            sc_draw(g, s, NULL);
    g->first = (uint8_t)rng_below(&g->rng, (uint32_t)players);
    g->actor = g->first;
    g->stage = SC_ST_START;
    g->step = SC_STEP_PLAY; /* not over; the first point opens below */
    advance(g, NULL);
    return SC_OK;
}

/* ---- checks ------------------------------------------------------------------------------- */

bool sc_pending(const struct sc_game *g, int seat)
{
    return seat >= 0 && seat < g->players && g->step != SC_STEP_OVER && (g->pending & (1u << seat));
}

/* The Mayor's point of a vote (rather than a seat's ballots). */
static bool mayor_point(const struct sc_game *g)
{
    return g->step == SC_STEP_VOTE && g->vote.next >= g->players;
}

static int check_target(const struct sc_game *g, const struct sc_decision *d)
{
    int cells[SC_CELLS], n = sc_timed_candidates(g, g->effect_i, cells, SC_CELLS);
    int c = sc_cell(g, d->x, d->y);
    for (int i = 0; i < n && i < SC_CELLS; i++)
        if (cells[i] == c)
            return SC_OK;
    return SC_ERR_BAD_TARGET;
}

static int check_vote(const struct sc_game *g, int seat, const struct sc_decision *d)
{
    if (d->kind != SC_DEC_VOTE)
        return SC_ERR_WRONG_KIND;
    if (mayor_point(g))
        return d->mayor <= SC_BALLOT_NO && d->tie <= SC_BALLOT_NO && d->nballots == 0
                   ? SC_OK
                   : SC_ERR_BALLOTS;
    const struct sc_seat *s = &g->seats[seat];
    if (d->nballots != s->ncouncil || d->mayor || d->tie)
        return SC_ERR_BALLOTS;
    for (int i = 0; i < s->ncouncil; i++) {
        const struct sc_design *m = sc_design_of(g, s->council[i]);
        if (d->ballots[i] > SC_BALLOT_NO || (m->corrupt && d->ballots[i] != m->vote))
            return SC_ERR_BALLOTS;
    }
    return SC_OK;
}

int sc_check(const struct sc_game *g, int seat, const struct sc_decision *d)
{
    if (g->step == SC_STEP_OVER)
        return SC_ERR_GAME_OVER;
    if (seat < 0 || seat >= g->players)
        return SC_ERR_BAD_SEAT;
    if (!sc_pending(g, seat))
        return SC_ERR_NOT_PENDING;
    const struct sc_seat *s = &g->seats[seat];
    switch (g->step) {
    case SC_STEP_DRAW:
        if (d->kind != SC_DEC_DRAW)
            return SC_ERR_WRONG_KIND;
        return (d->from_discard ? sc_discard_drawable(g) : g->ndeck > 0) ? SC_OK
                                                                         : SC_ERR_EMPTY_PILE;
    case SC_STEP_COUNCIL:
        if (d->kind == SC_DEC_PASS)
            return SC_OK;
        if (d->kind != SC_DEC_BUY)
            return SC_ERR_WRONG_KIND;
        if (d->card >= g->ncards || !sc_in_hand(g, seat, d->card))
            return SC_ERR_NOT_IN_HAND;
        if (sc_design_of(g, d->card)->kind != SC_KIND_COUNCIL)
            return SC_ERR_WRONG_CARD;
        return sc_design_of(g, d->card)->cost <= s->money ? SC_OK : SC_ERR_CANNOT_AFFORD;
    case SC_STEP_TARGET:
        return d->kind == SC_DEC_TARGET ? check_target(g, d) : SC_ERR_WRONG_KIND;
    case SC_STEP_PLAY:
        if (d->kind == SC_DEC_PASS)
            return SC_OK;
        if (d->kind != SC_DEC_PLAY)
            return SC_ERR_WRONG_KIND;
        return sc_play_check(g, seat, d->card, d->x, d->y, NULL);
    case SC_STEP_VOTE:
        return check_vote(g, seat, d);
    case SC_STEP_MAYOR_PAY:
        return d->kind == SC_DEC_PAY ? SC_OK : SC_ERR_WRONG_KIND;
    case SC_STEP_ELECTION:
        if (d->kind == SC_DEC_PASS)
            return SC_OK;
        if (d->kind != SC_DEC_BID)
            return SC_ERR_WRONG_KIND;
        if (d->candidate >= g->players)
            return SC_ERR_BAD_CANDIDATE;
        return d->votes >= 1 && d->votes <= s->money ? SC_OK : SC_ERR_CANNOT_AFFORD;
    case SC_STEP_DISCARD:
        if (d->kind != SC_DEC_DISCARD)
            return SC_ERR_WRONG_KIND;
        return d->card < g->ncards && sc_in_hand(g, seat, d->card) ? SC_OK : SC_ERR_NOT_IN_HAND;
    default:
        return SC_ERR_GAME_OVER;
    }
}

int sc_submit(struct sc_game *g, int seat, const struct sc_decision *d)
{
    int e = sc_check(g, seat, d);
    if (e == SC_OK) {
        g->dec[seat] = *d;
        ruleset_mark_sent(&g->submitted, &g->defaulted, seat);
    }
    return e;
}

bool sc_ready(const struct sc_game *g)
{
    return g->step != SC_STEP_OVER && (g->pending & ~g->submitted) == 0;
}

void sc_default_decision(const struct sc_game *g, int seat, struct sc_decision *d)
{
    sc_decision_init(d);
    const struct sc_seat *s = &g->seats[seat];
    switch (g->step) {
    case SC_STEP_DRAW:
        d->kind = SC_DEC_DRAW;
        d->from_discard = g->ndeck == 0;
        break;
    case SC_STEP_TARGET: {
        int cells[SC_CELLS];
        d->kind = SC_DEC_TARGET;
        if (sc_timed_candidates(g, g->effect_i, cells, SC_CELLS) > 0) {
            d->x = (int8_t)sc_x(cells[0]);
            d->y = (int8_t)sc_y(cells[0]);
        }
        break;
    }
    case SC_STEP_VOTE:
        d->kind = SC_DEC_VOTE;
        if (!mayor_point(g)) {
            d->nballots = s->ncouncil;
            for (int i = 0; i < s->ncouncil; i++) {
                const struct sc_design *m = sc_design_of(g, s->council[i]);
                d->ballots[i] = m->corrupt ? m->vote : SC_BALLOT_WITHHOLD;
            }
        }
        break;
    case SC_STEP_MAYOR_PAY:
        d->kind = SC_DEC_PAY;
        break;
    case SC_STEP_DISCARD:
        d->kind = SC_DEC_DISCARD;
        d->card =
            g->drawn != SC_NONE && sc_in_hand(g, seat, g->drawn) ? g->drawn : s->hand[s->nhand - 1];
        break;
    default: /* council, play, election */
        d->kind = SC_DEC_PASS;
        break;
    }
}

int sc_fill_defaults(struct sc_game *g, const struct sc_events *ev)
{
    unsigned due = g->step == SC_STEP_OVER
                       ? 0
                       : ruleset_defaults_due(g->pending, &g->submitted, &g->defaulted);
    for (int s = 0; s < g->players; s++)
        if (due & (1u << s)) {
            sc_default_decision(g, s, &g->dec[s]);
            sc_emit(g, ev, SC_EV_DEFAULT, s, SC_NONE, g->dec[s].kind, 0);
        }
    return __builtin_popcount(due);
}

/* ---- resolution --------------------------------------------------------------------------- */

static void resolve_play(struct sc_game *g, int a, const struct sc_decision *d,
                         const struct sc_events *ev)
{
    if (d->kind == SC_DEC_PASS) {
        g->plays_left = 0;
        sc_emit(g, ev, SC_EV_PASSED, a, SC_NONE, 0, 0);
        return;
    }
    int mode = sc_play_mode(g, d->card, d->x, d->y); /* (checked as it was submitted) */
    g->plays_left--;
    int cell = sc_cell(g, d->x, d->y);
    if (mode == SC_MODE_EVENT) {
        g->played = true;
        sc_play_event(g, a, d->card, cell, ev);
    } else if (mode == SC_MODE_VOTE) {
        sc_vote_start(g, a, d->card, cell, ev);
    } else {
        g->played = true;
        sc_place(g, a, d->card, cell, mode, ev);
    }
}

bool sc_resolve(struct sc_game *g, const struct sc_events *ev)
{
    if (!sc_ready(g))
        return false;
    int a = g->actor, p = __builtin_ctz(g->pending);
    struct sc_decision d = g->dec[p];
    struct sc_seat *s = &g->seats[p];
    switch (g->step) {
    case SC_STEP_DRAW:
        if (d.from_discard) {
            int card = g->discard[--g->ndiscard];
            s->hand[s->nhand++] = (uint8_t)card;
            g->drawn = (uint8_t)card;
            g->drew_discard = true;
            sc_emit_at(g, ev, SC_EV_DREW, p, card, -1, -1, true, 1, s->nhand);
        } else {
            g->drawn = (uint8_t)sc_draw(g, p, ev);
        }
        break;
    case SC_STEP_COUNCIL:
        if (d.kind == SC_DEC_BUY) {
            int cost = sc_design_of(g, d.card)->cost;
            sc_hand_remove(g, p, d.card);
            s->council[s->ncouncil++] = d.card;
            sc_mark_played(g, p, d.card);
            sc_emit(g, ev, SC_EV_BOUGHT, p, d.card, cost, 0);
            sc_money(g, p, -cost, SC_SRC_COUNCIL, ev);
            sc_draw(g, p, ev);
        }
        break;
    case SC_STEP_TARGET: {
        int i = g->effect_i++;
        sc_timed_act(g, i, sc_cell(g, d.x, d.y), ev);
        break;
    }
    case SC_STEP_PLAY:
        resolve_play(g, a, &d, ev);
        break;
    case SC_STEP_VOTE:
        if (mayor_point(g)) {
            sc_vote_finish(g, &d, ev);
        } else {
            sc_vote_cast(g, p, &d, ev);
            g->vote.next++;
        }
        break;
    case SC_STEP_MAYOR_PAY:
        sc_pay_bill(g, d.vacate, ev);
        break;
    case SC_STEP_ELECTION:
        sc_election_bid(g, p, &d, ev);
        break;
    case SC_STEP_DISCARD:
        sc_hand_remove(g, p, d.card);
        g->discard[g->ndiscard++] = d.card;
        sc_emit(g, ev, SC_EV_DISCARDED, p, d.card, 0, 0);
        break;
    default:
        return false;
    }
    advance(g, ev);
    return true;
}

/* ---- invariants --------------------------------------------------------------------------- */

bool sc_check_conservation(const struct sc_game *g)
{
    uint8_t seen[RS_MAX_CARDS] = {0};
    int total = 0;
#define COUNT(arr, n)                                                                              \
    if (!ruleset_cards_tally(seen, g->ncards, (arr), (n), &total))                                 \
        return false;
    COUNT(g->deck, g->ndeck);
    COUNT(g->discard, g->ndiscard);
    for (int s = 0; s < g->players; s++) {
        COUNT(g->seats[s].hand, g->seats[s].nhand);
        COUNT(g->seats[s].council, g->seats[s].ncouncil);
    }
#undef COUNT
    for (int c = 0; c < SC_CELLS; c++)
        for (int k = g->top[c], depth = 0; k != SC_NONE; k = g->below[k], depth++) {
            if (k >= g->ncards || seen[k]++ || g->cell_of[k] != c || depth > g->ncards)
                return false;
            total++;
        }
    return total == g->ncards;
}

static bool step_fits(const struct sc_game *g)
{
    unsigned p = g->pending;
    switch (g->step) {
    case SC_STEP_DRAW:
    case SC_STEP_COUNCIL:
    case SC_STEP_TARGET:
    case SC_STEP_PLAY:
    case SC_STEP_DISCARD:
        return p == 1u << g->actor && !g->vote.active && !g->elect.active && !g->nbills;
    case SC_STEP_VOTE:
        return g->vote.active && !g->elect.active && __builtin_popcount(p) == 1 &&
               (mayor_point(g) ? p == 1u << g->mayor
                               : p == 1u << ((g->vote.proposer + g->vote.next) % g->players));
    case SC_STEP_MAYOR_PAY:
        return g->nbills > 0 && g->mayor != SC_NONE && p == 1u << g->mayor && !g->elect.active;
    case SC_STEP_ELECTION:
        return g->elect.active && p == 1u << ((g->elect.outgoing + g->elect.next) % g->players);
    case SC_STEP_OVER:
        return p == 0 && g->winners != 0;
    default:
        return false;
    }
}

bool sc_check_point(const struct sc_game *g)
{
    unsigned all = (1u << g->players) - 1;
    if ((g->pending & ~all) || (g->submitted & ~g->pending) || (g->defaulted & ~g->submitted) ||
        g->actor >= g->players || g->first >= g->players || g->phase < 1 || g->phase > SC_PHASES ||
        g->stage > SC_ST_END || g->step >= SC_STEP_COUNT ||
        (g->mayor != SC_NONE && g->mayor >= g->players) || g->ntimed > SC_MAX_TIMED ||
        g->nbills > SC_MAX_BILLS || (g->mayor != SC_NONE && !g->power_played))
        return false;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].money < 0)
            return false;
    int nblocks = 0;
    for (int c = 0; c < SC_CELLS; c++) {
        int b = g->top[c];
        while (b != SC_NONE && (g->flags[b] & SC_CF_OVERTURNED))
            b = g->below[b];
        bool on = sc_x(c) < g->side && sc_y(c) < g->side;
        if (g->block[c] != b || (!on && g->top[c] != SC_NONE) || (b != SC_NONE && g->scorched[c]))
            return false;
        nblocks += b != SC_NONE;
    }
    if (nblocks != g->nblocks)
        return false;
    if (g->vote.active && (g->vote.proposer >= g->players || g->vote.next > g->players))
        return false;
    if (g->elect.active && (g->elect.outgoing >= g->players || g->elect.next > g->players))
        return false;
    return step_fits(g);
}
