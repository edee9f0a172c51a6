/* sc_bots.c: SimCity's random and greedy players (see sc_bots.h). The greedy bot weighs every
 * legal play in dollars (what it scores, a little more for what grows the city, what an event
 * moves between the Mayor and the others) and answers the politics (members, votes, bills,
 * elections) with a plan that follows the money: help nobody past itself, keep the Mayor's bills
 * with a rival. */
#include "sc_bots.h"

#include <math.h>
#include <string.h>

#include "sc_internal.h"

/* ---- random --------------------------------------------------------------------------------- */

static bool random_decide(struct bot *b, const struct sc_game *g, int seat, struct sc_decision *d)
{
    int n = sc_legal(g, seat, NULL, 0);
    if (n == 0)
        return false;
    if (g->step == SC_STEP_ELECTION && rng_below(&b->rng, 4) != 0)
        return sc_legal_nth(g, seat, 0, d); /* the pass */
    return sc_legal_nth(g, seat, (int)rng_below(&b->rng, (uint32_t)n), d);
}

/* ---- greedy: reading the table ----------------------------------------------------------------
 */

/* The richest seat but `seat` (lowest number among equals), or -1 alone. */
static int richest_rival(const struct sc_game *g, int seat)
{
    int best = -1;
    for (int s = 0; s < g->players; s++)
        if (s != seat && (best < 0 || g->seats[s].money > g->seats[best].money))
            best = s;
    return best;
}

/* Votes seat controls in a council vote (its members, and the Mayor's when it holds the
 * office), counting corrupt members as they always vote. */
static void votes_of(const struct sc_game *g, int seat, int *yes, int *no, int *free)
{
    const struct sc_seat *s = &g->seats[seat];
    *yes = *no = *free = 0;
    for (int i = 0; i < s->ncouncil; i++) {
        const struct sc_design *m = sc_design_of(g, s->council[i]);
        if (!m->corrupt)
            *free += m->votes;
        else if (m->vote == SC_BALLOT_YES)
            *yes += m->votes;
        else
            *no += m->votes;
    }
    if (g->mayor == seat)
        *free += SC_MAYOR_VOTES;
}

/* Would a rezoning seat proposes pass if seat votes all yes and every other seat all no? */
static bool vote_carries(const struct sc_game *g, int seat)
{
    int yes = 0, no = 0;
    for (int s = 0; s < g->players; s++) {
        int y, n, f;
        votes_of(g, s, &y, &n, &f);
        yes += y;
        no += n;
        if (s == seat)
            yes += f;
        else
            no += f;
    }
    return yes > no || (yes == no && g->mayor == seat);
}

/* What the greedy bot weighs a play by: its worth and, to break ties at random, up to a cent
 * from a hash of the decision's draw and the play (each play its own, whatever order the plays
 * are judged in). What one decision weighs again and again is kept: the city-wide bill of the
 * last event design asked (bill_design, -1: none) and the seat's richest rival (-2: not yet). */
struct greedy_weigh {
    const struct sc_game *g;
    int seat;
    uint64_t salt;
    int bill_design, bill, rival;
};

/* The bill event design d's pollution and crime effects would send the Mayor: the value of
 * every block at or over their levels (its other bills depend on the block it strikes). */
static int city_bill(const struct sc_game *g, const struct sc_design *d)
{
    int bill = 0;
    for (int i = 0; i < d->neffects; i++) {
        const struct sc_effect *e = &d->effects[i];
        if ((e->kind == SC_EF_POLLUTION || e->kind == SC_EF_CRIME) && e->bill) {
            const struct sc_scan *s = sc_position_scan(g); /* (its blocks: the city's) */
            for (int j = 0; j < s->nblocks; j++) {
                const struct sc_design *t = sc_design_of(g, g->block[s->blocks[j]]);
                int level = e->kind == SC_EF_POLLUTION ? t->pollution : t->crime;
                bill += level >= e->amount ? t->value : 0;
            }
        }
    }
    return bill;
}

/* What an event would move, in dollars, toward w's seat and away from its richest rival: a
 * bill a rival Mayor pays counts for it, one seat pays itself against it; gains and payments
 * for all count only where they run into the $0 floor. */
static double event_worth(struct greedy_weigh *w, int card, int cell)
{
    const struct sc_game *g = w->g;
    int seat = w->seat;
    const struct sc_design *d = sc_design_of(g, card);
    int k = g->cat->card_design[card];
    if (w->bill_design != k) {
        w->bill = city_bill(g, d);
        w->bill_design = k;
    }
    int bill = w->bill;
    for (int i = 0; i < d->neffects; i++) {
        const struct sc_effect *e = &d->effects[i];
        if (e->kind == SC_EF_MAYOR_PAYS) {
            bill += e->amount;
        } else if ((e->kind == SC_EF_DESTROY || e->kind == SC_EF_SPREAD) && e->bill && cell >= 0) {
            int r = e->kind == SC_EF_DESTROY ? e->range : 0, cx = sc_x(cell), cy = sc_y(cell);
            for (int y = cy - r < 0 ? 0 : cy - r; y <= cy + r && y < g->side; y++)
                for (int x = cx - r < 0 ? 0 : cx - r; x <= cx + r && x < g->side; x++) {
                    int c = y * SC_STRIDE + x;
                    if (g->block[c] != SC_NONE && sc_distance(c, cell) <= r &&
                        sc_design_of(g, g->block[c])->zone != SC_ZONE_LAND)
                        bill += sc_design_of(g, g->block[c])->value;
                }
        }
    }
    if (g->mayor == SC_NONE)
        return 0.5;
    int mayor = g->mayor;
    if (mayor == seat)
        return -bill;
    int due = bill < g->seats[mayor].money ? bill : g->seats[mayor].money;
    if (w->rival == -2)
        w->rival = richest_rival(g, seat);
    double weight = mayor == w->rival ? 1.0 : 0.5;
    return 0.5 + weight * due;
}

/* What a block play is worth to seat beyond its score: sims while the city grows, the first
 * Power Plant (it opens the city's cards). */
static double growth(const struct sc_game *g, int card)
{
    const struct sc_design *d = sc_design_of(g, card);
    double w = 0;
    if (g->phase <= 2 && d->sims > 0)
        w += 0.4 * d->sims;
    if (g->phase == 2 && d->sims < 0)
        w += 1.0;
    if (d->power_plant && !g->power_played)
        w += 3.0;
    return w;
}

/* ---- greedy: each step ------------------------------------------------------------------------
 */

/* The greedy bot's weight of play option o for w's seat (without its random tie-break). */
static double play_worth(struct greedy_weigh *w, const struct sc_option *o)
{
    const struct sc_game *g = w->g;
    if (o->mode == SC_MODE_EVENT)
        return event_worth(w, o->card, o->x >= 0 ? sc_cell(g, o->x, o->y) : -1);
    if (o->mode == SC_MODE_VOTE)
        return 0.8 * o->score;
    return o->score + growth(g, o->card);
}

enum { PASS_WORTH_X100 = 25 }; /* a play must beat passing: $0.25 */

static double greedy_worth(void *ctx, const struct sc_option *o)
{
    return play_worth(ctx, o);
}

/* A bound of the greedy bot's worth of any play of targeted event card (sc_weigh's
 * event_bound): with no Mayor, or with w's seat the Mayor, its worth without a block struck (a
 * block struck only adds to the bill); with a rival Mayor, all the Mayor's money paid. */
static double greedy_event_bound(void *ctx, int card)
{
    struct greedy_weigh *w = ctx;
    const struct sc_game *g = w->g;
    if (g->mayor == SC_NONE || g->mayor == w->seat)
        return event_worth(w, card, -1);
    if (w->rival == -2)
        w->rival = richest_rival(g, w->seat);
    return 0.5 + (g->mayor == w->rival ? 1.0 : 0.5) * g->seats[g->mayor].money;
}

static double tie_cents(void *ctx, const struct sc_option *o)
{
    const struct greedy_weigh *w = ctx;
    uint64_t z = w->salt ^ ((uint64_t)o->card << 16 | (uint64_t)(uint8_t)o->x << 8 | (uint8_t)o->y);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL; /* splitmix64's finish */
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return 0.01 * (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static void greedy_play(struct bot *b, const struct sc_game *g, int seat, struct sc_decision *d)
{
    bool carries = vote_carries(g, seat); /* a vote it would lose: not tried */
    struct greedy_weigh gw = {g, seat, rng_next(&b->rng), -1, 0, -2};
    struct sc_weigh w = {greedy_worth, tie_cents, &gw, 0.01, greedy_event_bound};
    struct sc_ranked best;
    int n = sc_best_plays(g, seat, carries, PASS_WORTH_X100 / 100.0, &w, &best, 1);
    sc_decision_init(d);
    if (n == 0) {
        d->kind = SC_DEC_PASS;
        return;
    }
    d->kind = SC_DEC_PLAY;
    d->card = best.o.card;
    d->x = best.o.x;
    d->y = best.o.y;
}

int sc_expert_options(const void *vg, int seat, void *out, int max)
{
    const struct sc_game *g = vg;
    struct sc_decision *dec = out;
    if (!sc_pending(g, seat) || max < 1)
        return 0;
    if (g->step != SC_STEP_PLAY || max < 2) { /* the politics: the greedy bot's answer alone */
        struct bot b;
        bot_at_point(&b, "greedy", g->seed, g->turn, seat);
        return sc_bot_decide(&b, g, seat, &dec[0]) ? 1 : 0;
    }
    if (max > SC_EXPERT_TOP)
        max = SC_EXPERT_TOP;
    /* the best max - 1 plays by weight (ties: the first listed), then passing in its place */
    struct greedy_weigh gw = {g, seat, 0, -1, 0, -2};
    struct sc_weigh w = {greedy_worth, NULL, &gw, 0, greedy_event_bound};
    struct sc_ranked top[SC_EXPERT_TOP];
    int ntop = sc_best_plays(g, seat, vote_carries(g, seat), -HUGE_VAL, &w, top, max - 1);
    int n = 0;
    bool passed = false;
    for (int k = 0; k <= ntop; k++) {
        if (!passed && (k == ntop || top[k].worth <= PASS_WORTH_X100 / 100.0)) {
            sc_decision_init(&dec[n]);
            dec[n++].kind = SC_DEC_PASS;
            passed = true;
        }
        if (k == ntop)
            break;
        sc_decision_init(&dec[n]);
        dec[n].kind = SC_DEC_PLAY;
        dec[n].card = top[k].o.card;
        dec[n].x = top[k].o.x;
        dec[n].y = top[k].o.y;
        n++;
    }
    return n;
}

/* A play's worth to greedy_council(): its score when it needs a vote (else none). */
static double vote_score(void *ctx, const struct sc_option *o)
{
    (void)ctx;
    return o->mode == SC_MODE_VOTE ? o->score : -HUGE_VAL;
}

/* Buys the cheapest affordable member when seat holds a play that needs votes, or when the
 * member costs at most a sixth of its money. */
static void greedy_council(const struct sc_game *g, int seat, struct sc_decision *d)
{
    const struct sc_seat *s = &g->seats[seat];
    int pick = -1;
    for (int i = 0; i < s->nhand; i++) {
        const struct sc_design *m = sc_design_of(g, s->hand[i]);
        if (m->kind == SC_KIND_COUNCIL && m->cost <= s->money &&
            (pick < 0 || m->cost < sc_design_of(g, s->hand[pick])->cost))
            pick = i;
    }
    sc_decision_init(d);
    d->kind = SC_DEC_PASS;
    if (pick < 0)
        return;
    int cost = sc_design_of(g, s->hand[pick])->cost;
    bool wants = 6 * cost <= s->money;
    struct sc_weigh w = {vote_score, NULL, NULL, 0, NULL};
    struct sc_ranked r;
    if (!wants) /* a play that needs votes and would score more than the member costs */
        wants = sc_best_plays(g, seat, true, cost, &w, &r, 1) > 0;
    if (wants) {
        d->kind = SC_DEC_BUY;
        d->card = s->hand[pick];
    }
}

/* Yes when the play leaves its proposer no richer than seat (or is seat's own). */
static int greedy_ballot(const struct sc_game *g, int seat)
{
    const struct sc_vote *v = &g->vote;
    if (v->proposer == seat)
        return SC_BALLOT_YES;
    int gain = sc_play_score(g, v->proposer, v->card, v->x, v->y, NULL);
    return g->seats[v->proposer].money + gain > g->seats[seat].money ? SC_BALLOT_NO : SC_BALLOT_YES;
}

static void greedy_vote(const struct sc_game *g, int seat, struct sc_decision *d)
{
    sc_default_decision(g, seat, d);
    int ballot = greedy_ballot(g, seat);
    if (g->vote.next >= g->players) { /* the Mayor */
        d->mayor = (uint8_t)ballot;
        d->tie = (uint8_t)ballot;
        return;
    }
    const struct sc_seat *s = &g->seats[seat];
    for (int i = 0; i < s->ncouncil; i++)
        if (!sc_design_of(g, s->council[i])->corrupt)
            d->ballots[i] = (uint8_t)ballot;
}

/* The Mayor who cannot pay, or would save $3 or more, vacates. */
static void greedy_pay(const struct sc_game *g, int seat, struct sc_decision *d)
{
    sc_decision_init(d);
    d->kind = SC_DEC_PAY;
    int amount = g->bills[0].amount;
    d->vacate = g->seats[seat].money < amount || amount - (amount + 1) / 2 >= 3;
}

/* The office goes to whoever leads the tally (the seat after the outgoing Mayor when nobody
 * has votes); when that is seat, it buys enough votes, up to $3 and a tenth of its money, for
 * its richest rival, unless that rival has had votes already (no bidding war). */
static void greedy_bid(const struct sc_game *g, int seat, struct sc_decision *d)
{
    const struct sc_election *e = &g->elect;
    sc_decision_init(d);
    d->kind = SC_DEC_PASS;
    int lead = -1;
    for (int s = 0; s < g->players; s++)
        if (e->votes[s] > 0 &&
            (lead < 0 || e->votes[s] > e->votes[lead] ||
             (e->votes[s] == e->votes[lead] && e->reached[s] < e->reached[lead])))
            lead = s;
    if (lead < 0)
        lead = (e->outgoing + 1) % g->players;
    int rival = richest_rival(g, seat);
    if (lead != seat || rival < 0 || e->votes[rival] > 0)
        return; /* one try: a rival who already got votes handed them back */
    int need = e->votes[seat] - e->votes[rival] + 1;
    int cap = g->seats[seat].money / 10;
    if (cap > 3)
        cap = 3;
    if (need < 1 || need > cap)
        return;
    d->kind = SC_DEC_BID;
    d->candidate = (uint8_t)rival;
    d->votes = (int16_t)need;
}

/* The target that bills a rival Mayor most, or costs seat least when it is the Mayor. */
static void greedy_target(const struct sc_game *g, int seat, struct sc_decision *d)
{
    int cells[SC_CELLS], n = sc_timed_candidates(g, g->effect_i, cells, SC_CELLS), best = 0;
    for (int i = 1; i < n; i++) {
        int v = sc_design_of(g, g->block[cells[i]])->value;
        int w = sc_design_of(g, g->block[cells[best]])->value;
        if (g->mayor == seat ? v < w : v > w)
            best = i;
    }
    sc_decision_init(d);
    d->kind = SC_DEC_TARGET;
    d->x = (int8_t)sc_x(cells[best]);
    d->y = (int8_t)sc_y(cells[best]);
}

/* Solitaire: discards the card of lowest value. */
static void greedy_discard(const struct sc_game *g, int seat, struct sc_decision *d)
{
    const struct sc_seat *s = &g->seats[seat];
    int pick = 0;
    for (int i = 1; i < s->nhand; i++)
        if (sc_design_of(g, s->hand[i])->value < sc_design_of(g, s->hand[pick])->value)
            pick = i;
    sc_decision_init(d);
    d->kind = SC_DEC_DISCARD;
    d->card = s->hand[pick];
}

bool sc_bot_decide(struct bot *b, const struct sc_game *g, int seat, struct sc_decision *d)
{
    sc_decision_init(d);
    if (!sc_pending(g, seat))
        return false;
    if (b->kind != BOT_GREEDY)
        return random_decide(b, g, seat, d);
    switch (g->step) {
    case SC_STEP_PLAY:
        greedy_play(b, g, seat, d);
        break;
    case SC_STEP_COUNCIL:
        greedy_council(g, seat, d);
        break;
    case SC_STEP_VOTE:
        greedy_vote(g, seat, d);
        break;
    case SC_STEP_MAYOR_PAY:
        greedy_pay(g, seat, d);
        break;
    case SC_STEP_ELECTION:
        greedy_bid(g, seat, d);
        break;
    case SC_STEP_TARGET:
        greedy_target(g, seat, d);
        break;
    case SC_STEP_DISCARD:
        greedy_discard(g, seat, d);
        break;
    default: /* draw: from the deck */
        sc_default_decision(g, seat, d);
        break;
    }
    return true;
}
