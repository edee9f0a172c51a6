/* sc_politics.c: SimCity's events and politics — an event's effects (destroying blocks,
 * bills, gains and payments for all, timed effects that forbid, spread or remove), the Mayor's
 * bills (pay in full, or half and vacate), rezoning votes in seat order from the proposer with
 * the Mayor last, and elections with $1 votes. The decision points themselves are opened by
 * sc.c's turn; this file applies what was decided. */
#include "sc_internal.h"

/* ---- events ----------------------------------------------------------------------------- */

/* Destroys cell's block unless protected from the hazard; returns its $ value. */
static int strike(struct sc_game *g, int hazard, int cell, const struct sc_events *ev)
{
    if (g->block[cell] == SC_NONE)
        return 0;
    if (hazard != SC_HAZ_NONE && sc_protected(g, hazard, cell)) {
        g->acted |= 1u << SC_SP_PROTECT;
        return 0;
    }
    return sc_city_destroy(g, cell, ev);
}

static void add_timed(struct sc_game *g, int seat, int card, int effect, int cell)
{
    if (g->ntimed >= SC_MAX_TIMED)
        return; /* more than the table can follow: the oldest go on, this one is lost */
    struct sc_timed *t = &g->timed[g->ntimed++];
    t->card = (uint8_t)card;
    t->effect = (uint8_t)effect;
    t->player = (uint8_t)seat;
    t->until = (int16_t)(g->seats[seat].turns + sc_design_of(g, card)->effects[effect].turns);
    t->x = (int8_t)(cell >= 0 ? sc_x(cell) : -1);
    t->y = (int8_t)(cell >= 0 ? sc_y(cell) : -1);
}

void sc_play_event(struct sc_game *g, int seat, int card, int cell, const struct sc_events *ev)
{
    const struct sc_design *d = sc_design_of(g, card);
    sc_hand_remove(g, seat, card);
    sc_mark_played(g, seat, card);
    sc_emit_at(g, ev, SC_EV_EVENT, seat, card, cell >= 0 ? sc_x(cell) : -1,
               cell >= 0 ? sc_y(cell) : -1, false, 0, 0);
    struct sc_view now = {g, -1, NULL};
    for (int i = 0; i < d->neffects; i++) {
        const struct sc_effect *e = &d->effects[i];
        int bill = 0;
        g->acted_ev |= 1u << e->kind;
        switch (e->kind) {
        case SC_EF_DESTROY:
            for (int c = 0; c < SC_CELLS; c++)
                if (sc_x(c) < g->side && sc_y(c) < g->side && sc_distance(c, cell) <= e->range)
                    bill += strike(g, d->hazard, c, ev);
            break;
        case SC_EF_POLLUTION:
        case SC_EF_CRIME: {
            /* judged on the city as the event strikes, before any block falls */
            bool hit[SC_CELLS] = {false};
            for (int c = 0; c < SC_CELLS; c++) {
                if (g->block[c] == SC_NONE || sc_x(c) >= g->side || sc_y(c) >= g->side)
                    continue;
                const struct sc_design *t = sc_design_of(g, g->block[c]);
                if (e->kind == SC_EF_POLLUTION)
                    hit[c] = t->pollution >= e->amount;
                else
                    hit[c] = t->crime >= e->amount && !sc_covered(&now, SC_COVER_POLICE, c);
            }
            for (int c = 0; c < SC_CELLS; c++)
                if (hit[c])
                    bill += strike(g, d->hazard, c, ev);
            break;
        }
        case SC_EF_MAYOR_PAYS:
            bill = e->amount;
            break;
        case SC_EF_ALL_GAIN:
            for (int s = 0; s < g->players; s++)
                sc_money(g, (g->actor + s) % g->players, e->amount, SC_SRC_EVENTS, ev);
            break;
        case SC_EF_FORBID:
        case SC_EF_REMOVE_EACH:
            add_timed(g, seat, card, i, -1);
            break;
        case SC_EF_SPREAD:
            bill = strike(g, d->hazard, cell, ev);
            add_timed(g, seat, card, i, cell);
            break;
        default:
            break;
        }
        if (e->kind == SC_EF_MAYOR_PAYS || e->bill)
            sc_bill(g, card, bill, ev);
        else
            (void)bill;
    }
    g->discard[g->ndiscard++] = (uint8_t)card;
}

/* ---- timed effects ------------------------------------------------------------------------ */

int sc_timed_candidates(const struct sc_game *g, int i, int *cells, int max)
{
    const struct sc_timed *t = &g->timed[i];
    const struct sc_design *d = sc_design_of(g, t->card);
    const struct sc_effect *e = &d->effects[t->effect];
    struct sc_view now = {g, -1, NULL};
    int n = 0;
    if (e->kind == SC_EF_SPREAD) {
        int from = sc_cell(g, t->x, t->y), nb[4], m = from < 0 ? 0 : sc_neighbours(g, from, nb);
        /* in reading order: N, W, E, S */
        static const int order[4] = {0, 3, 1, 2};
        int by_dir[4] = {-1, -1, -1, -1};
        for (int k = 0; k < m; k++) {
            int dx = sc_x(nb[k]) - sc_x(from), dy = sc_y(nb[k]) - sc_y(from);
            by_dir[dy < 0 ? 0 : dx > 0 ? 1 : dy > 0 ? 2 : 3] = nb[k];
        }
        for (int k = 0; k < 4; k++) {
            int c = by_dir[order[k]];
            if (c < 0 || g->block[c] == SC_NONE)
                continue;
            if (sc_design_of(g, g->block[c])->zone == SC_ZONE_LAND ||
                sc_covered(&now, e->cover, c) || sc_protected(g, d->hazard, c))
                continue;
            if (n < max)
                cells[n] = c;
            n++;
        }
        return n;
    }
    if (e->kind != SC_EF_REMOVE_EACH)
        return 0;
    for (int c = 0; c < SC_CELLS; c++) {
        if (sc_x(c) >= g->side || sc_y(c) >= g->side || g->block[c] == SC_NONE)
            continue;
        if (!sc_sel_match(g, &e->sel, sc_design_of(g, g->block[c])) ||
            sc_protected(g, d->hazard, c))
            continue;
        if (n < max)
            cells[n] = c;
        n++;
    }
    return n;
}

bool sc_timed_spares(const struct sc_game *g, int i)
{
    const struct sc_timed *t = &g->timed[i];
    const struct sc_design *d = sc_design_of(g, t->card);
    int from = sc_cell(g, t->x, t->y), nb[4], m = from < 0 ? 0 : sc_neighbours(g, from, nb);
    for (int k = 0; k < m; k++)
        if (g->block[nb[k]] != SC_NONE && sc_design_of(g, g->block[nb[k]])->zone != SC_ZONE_LAND &&
            sc_protected(g, d->hazard, nb[k]))
            return true;
    return false;
}

void sc_timed_act(struct sc_game *g, int i, int cell, const struct sc_events *ev)
{
    struct sc_timed *t = &g->timed[i];
    const struct sc_design *d = sc_design_of(g, t->card);
    const struct sc_effect *e = &d->effects[t->effect];
    sc_emit_at(g, ev, SC_EV_TIMED, g->actor, t->card, sc_x(cell), sc_y(cell), false, 0, 0);
    if (e->kind == SC_EF_SPREAD) {
        int bill = sc_city_destroy(g, cell, ev);
        t->x = (int8_t)sc_x(cell);
        t->y = (int8_t)sc_y(cell);
        if (e->bill)
            sc_bill(g, t->card, bill, ev);
    } else {
        sc_city_remove(g, g->block[cell], ev);
    }
}

void sc_timed_end(struct sc_game *g, int i, const struct sc_events *ev)
{
    sc_emit(g, ev, SC_EV_TIMED, -1, g->timed[i].card, 0, 0);
    for (int k = i; k + 1 < g->ntimed; k++)
        g->timed[k] = g->timed[k + 1];
    g->ntimed--;
}

/* ---- the Mayor's bills ---------------------------------------------------------------------- */

void sc_bill(struct sc_game *g, int card, int amount, const struct sc_events *ev)
{
    if (amount <= 0 || g->mayor == SC_NONE || g->nbills >= SC_MAX_BILLS)
        return;
    g->bills[g->nbills].card = (uint8_t)card;
    g->bills[g->nbills].amount = (int16_t)amount;
    g->nbills++;
    sc_emit(g, ev, SC_EV_BILL, g->mayor, card, amount, 0);
}

/* Opens an election for the office `outgoing` left. */
static void vacate(struct sc_game *g, const struct sc_events *ev)
{
    int outgoing = g->mayor;
    sc_emit(g, ev, SC_EV_VACATED, outgoing, SC_NONE, 0, 0);
    g->mayor = SC_NONE;
    g->vacancies++;
    g->elections++;
    struct sc_election *e = &g->elect;
    __builtin_memset(e, 0, sizeof *e);
    e->active = true;
    e->outgoing = (uint8_t)outgoing;
    e->next = 1;
}

void sc_pay_bill(struct sc_game *g, bool leave, const struct sc_events *ev)
{
    int amount = g->bills[0].amount;
    for (int k = 0; k + 1 < g->nbills; k++)
        g->bills[k] = g->bills[k + 1];
    g->nbills--;
    int mayor = g->mayor;
    if (mayor == SC_NONE)
        return;
    int due = leave ? (amount + 1) / 2 : amount;
    if (g->seats[mayor].money < due)
        leave = g->players > 1; /* Solitaire's Mayor keeps the office */
    sc_money(g, mayor, -due, SC_SRC_BILLS, ev);
    if (leave) {
        vacate(g, ev);
        /* the bills still waiting go to the next Mayor */
    }
}

/* ---- rezoning votes ------------------------------------------------------------------------- */

void sc_vote_start(struct sc_game *g, int seat, int card, int cell, const struct sc_events *ev)
{
    struct sc_vote *v = &g->vote;
    __builtin_memset(v, 0, sizeof *v);
    v->active = true;
    v->proposer = (uint8_t)seat;
    v->card = (uint8_t)card;
    v->x = (int8_t)sc_x(cell);
    v->y = (int8_t)sc_y(cell);
    g->votes_held++;
    sc_emit_at(g, ev, SC_EV_PROPOSED, seat, card, v->x, v->y, false, 0, 0);
}

int sc_free_members(const struct sc_game *g, int seat)
{
    int n = 0;
    for (int i = 0; i < g->seats[seat].ncouncil; i++)
        n += !sc_design_of(g, g->seats[seat].council[i])->corrupt;
    return n;
}

void sc_vote_cast(struct sc_game *g, int seat, const struct sc_decision *d,
                  const struct sc_events *ev)
{
    const struct sc_seat *s = &g->seats[seat];
    for (int i = 0; i < s->ncouncil; i++) {
        const struct sc_design *m = sc_design_of(g, s->council[i]);
        int ballot = m->corrupt             ? m->vote
                     : d && i < d->nballots ? d->ballots[i]
                                            : SC_BALLOT_WITHHOLD;
        if (ballot == SC_BALLOT_YES)
            g->vote.yes = (int16_t)(g->vote.yes + m->votes);
        else if (ballot == SC_BALLOT_NO)
            g->vote.no = (int16_t)(g->vote.no + m->votes);
        sc_emit(g, ev, SC_EV_BALLOT, seat, s->council[i], ballot, m->votes);
    }
}

void sc_vote_finish(struct sc_game *g, const struct sc_decision *mayor, const struct sc_events *ev)
{
    struct sc_vote *v = &g->vote;
    int tie = SC_BALLOT_WITHHOLD;
    if (mayor && g->mayor != SC_NONE) {
        if (mayor->mayor == SC_BALLOT_YES)
            v->yes = (int16_t)(v->yes + SC_MAYOR_VOTES);
        else if (mayor->mayor == SC_BALLOT_NO)
            v->no = (int16_t)(v->no + SC_MAYOR_VOTES);
        tie = v->yes == v->no ? mayor->tie : SC_BALLOT_WITHHOLD;
        sc_emit(g, ev, SC_EV_MAYOR_VOTE, g->mayor, SC_NONE, mayor->mayor, tie);
    }
    bool passed = v->yes > v->no || (v->yes == v->no && tie == SC_BALLOT_YES);
    v->active = false;
    sc_emit_at(g, ev, SC_EV_VOTE_RESULT, v->proposer, v->card, v->x, v->y, passed, v->yes, v->no);
    if (!passed)
        return; /* the card stays in its player's hand */
    g->votes_passed++;
    int cell = sc_cell(g, v->x, v->y);
    g->played = true;
    sc_place(g, v->proposer, v->card, cell, SC_MODE_VOTE, ev);
}

/* ---- elections ------------------------------------------------------------------------------ */

void sc_election_bid(struct sc_game *g, int seat, const struct sc_decision *d,
                     const struct sc_events *ev)
{
    struct sc_election *e = &g->elect;
    e->next = (uint8_t)(e->next % g->players + 1);
    if (!d || d->kind != SC_DEC_BID) {
        e->passes++;
        if (d) /* a seat's pass is public as it is cast; a seat with no money is not asked */
            sc_emit(g, ev, SC_EV_PASSED, seat, SC_NONE, 0, 0);
        return;
    }
    e->passes = 0;
    sc_money(g, seat, -d->votes, SC_SRC_ELECTIONS, ev);
    e->votes[d->candidate] = (int16_t)(e->votes[d->candidate] + d->votes);
    e->reached[d->candidate] = ++e->seq;
    sc_emit(g, ev, SC_EV_BID, seat, SC_NONE, d->votes, d->candidate);
}

void sc_election_finish(struct sc_game *g, const struct sc_events *ev)
{
    struct sc_election *e = &g->elect;
    int best = -1;
    for (int s = 0; s < g->players; s++) {
        if (e->votes[s] == 0)
            continue;
        if (best < 0 || e->votes[s] > e->votes[best] ||
            (e->votes[s] == e->votes[best] && e->reached[s] < e->reached[best]))
            best = s;
    }
    if (best < 0)
        best = (e->outgoing + 1) % g->players;
    e->active = false;
    g->mayor = (uint8_t)best;
    sc_emit(g, ev, SC_EV_ELECTED, best, SC_NONE, e->votes[best], 0);
}
