/* tech_bots_effect.c: how Tech City's greedy bot weighs the effects it may use, from its reading
 * of the position (struct look, tech_bots_look.c). An effect that rearranges the city changes a
 * few of the counts the position comes from, and the position after it is worked out from those,
 * bit for bit what applying it to a copy of the game and scanning the copy gives; such an effect
 * is first bounded from the look's counts by owner and domain, and its choices are weighed one by
 * one only when the bound could win the decision. */
#include <math.h>
#include <string.h>

#include "tech_bots_int.h"
#include "tech_effects.h"

/* ---- greedy: effects ---------------------------------------------------------------------- */

/* Fills l->around (once per look). */
static void look_around(struct look *l)
{
    if (l->around_done)
        return;
    l->around_done = true;
    for (int p = 0; p < l->g->players; p++)
        memset(l->around[p], 0, (size_t)l->n);
    int seat = l->seat;
    for (int k = 0; k < l->counts[seat].own; k++) {
        int i = l->owned[seat][k];
        for (int j = 0; j < l->n; j++) {
            int dx = l->x[j] - l->x[i], dy = l->y[j] - l->y[i];
            if (j == i || dx < -2 || dx > 2 || dy < -2 || dy > 2)
                continue;
            l->around[seat][j]++;
            if (l->owner[j] != TECH_NONE)
                l->around[l->owner[j]][i]++;
        }
    }
}

/* The worths of seat's hand into hw once hand card `skip` (an index, or -1) has left it and a card
 * of value `out` has left play and one of value `in` (or -1) entered it; returns how many. */
static int hand_after(const struct look *l, int skip, int out, int in, double *hw)
{
    const struct tech_seat *s = &l->g->seats[l->seat];
    uint8_t m[TECH_VALUES + 1];
    memcpy(m, l->matches, sizeof m);
    m[out]--; /* a card of value `out` is in play: at least 1 */
    if (in >= 0)
        m[in]++;
    double u = card_unit(l->g, s->nhand - (skip >= 0));
    int n = 0;
    for (int i = 0; i < s->nhand; i++) {
        if (i == skip)
            continue;
        const struct tech_design *d = tech_design_of(l->g, s->hand[i]);
        hw[n++] = worth(u, d, m[d->value]);
    }
    return n;
}

/* Position change for seat if the city card at index i were expelled. */
static double expel_gain(const struct look *l, int i)
{
    double hw[TECH_MAX_CARDS], mine = l->standing[l->seat], others = l->others;
    int o = l->owner[i];
    if (o != TECH_NONE) {
        struct counts c = l->counts[o];
        c.own--;
        c.close -= l->near[i];
        c.dom[l->dom[i]]--;
        if (o == l->seat)
            mine = standing(l, &c);
        else
            others = others_with(l, o, standing(l, &c));
    }
    int nh = hand_after(l, -1, l->val[i], -1, hw);
    return position(l, mine, others, hw, nh) - l->position;
}

/* Position change for seat if hand card h (an index, not a wild card) replaced the city card at
 * index i: it takes the cell and the owner (none for a service). */
static double replace_gain(const struct look *l, int i, int h)
{
    double hw[TECH_MAX_CARDS], mine = l->standing[l->seat], others = l->others;
    const struct tech_design *d = tech_design_of(l->g, l->g->seats[l->seat].hand[h]);
    int o = l->owner[i];
    if (o != TECH_NONE) {
        struct counts c = l->counts[o];
        c.dom[l->dom[i]]--;
        if (d->domain == DOMAIN_SERVICE) {
            c.own--;
            c.close -= l->near[i];
        } else {
            c.dom[d->domain]++;
        }
        if (o == l->seat)
            mine = standing(l, &c);
        else
            others = others_with(l, o, standing(l, &c));
    }
    int nh = hand_after(l, h, l->val[i], d->value, hw);
    return position(l, mine, others, hw, nh) - l->position;
}

/* The choices of one rearranging effect weighed so far, by how they change the counts position()
 * reads. A choice that changes them as an earlier one did has the same worth, bit for bit, and
 * cannot beat the best so far (which is at least that worth): it need not be weighed. */
struct seen {
    int n;
    uint32_t round;      /* slots stamped otherwise are empty: seen_clear() empties them all */
    uint32_t stamp[128]; /* open addressing */
    uint64_t key[128];
};

static void seen_clear(struct seen *s)
{
    s->n = 0;
    if (++s->round == 0) {
        memset(s->stamp, 0, sizeof s->stamp);
        s->round = 1;
    }
}

/* True when key is in s; else adds it (while s has room) and returns false. */
static bool seen_before(struct seen *s, uint64_t key)
{
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 57);
    while (s->stamp[h] == s->round) {
        if (s->key[h] == key)
            return true;
        h = (h + 1) & 127u;
    }
    if (s->n < 96) {
        s->stamp[h] = s->round;
        s->key[h] = key;
        s->n++;
    }
    return false;
}

/* Position change *v for seat if its company at index i and the card at index j changed places
 * (swap), or if its marker moved from the one to the other (move_marker). False (*v untouched)
 * when an earlier choice in `seen` changed the same counts the same way. Needs look_around(). */
static bool rearrange_gain(const struct look *l, struct seen *seen, int prim, int i, int j,
                           double *v)
{
    int seat = l->seat, o = l->owner[j];
    if (o == seat) {
        *v = 0; /* two of seat's companies change places: nothing it counts changes */
        return true;
    }
    int dx = l->x[j] - l->x[i], dy = l->y[j] - l->y[i];
    int between = dx >= -2 && dx <= 2 && dy >= -2 && dy <= 2; /* i near j, j near i */
    bool marker = prim == PRIM_MOVE_MARKER;
    /* the changes to the look's counts, which alone set both standings, are the key: seat's
     * close pairs (ds), the domains its marker leaves and takes, o's close pairs (dn) */
    int ds = l->around[seat][j] - between - l->near[i], dn = 0;
    uint64_t key = 1ull << 63 | (uint64_t)(ds + 128);
    if (marker)
        key |= (uint64_t)l->dom[i] << 8 | (uint64_t)l->dom[j] << 11;
    if (o != TECH_NONE) {
        dn = marker ? -l->near[j] : l->around[o][i] - between - l->near[j];
        key |= (uint64_t)(o + 1) << 16 | (uint64_t)(dn + 128) << 20;
    }
    if (seen_before(seen, key))
        return false;
    struct counts c = l->counts[seat];
    c.close += ds;
    if (marker) {
        c.dom[l->dom[i]]--;
        c.dom[l->dom[j]]++;
    }
    double mine = standing(l, &c), others = l->others;
    if (o != TECH_NONE) {
        c = l->counts[o];
        c.close += dn;
        if (marker) {
            c.own--;
            c.dom[l->dom[j]]--;
        }
        others = others_with(l, o, standing(l, &c));
    }
    *v = position(l, mine, others, l->w, l->nhand) - l->position;
    return true;
}

/* Whether the city card at index i may be the target of an expel or replace with effect e:
 * tech_choice_check()'s rule. */
static bool target_ok(const struct look *l, const struct tech_effect *e, int i)
{
    int a = l->g->city[i];
    return a != l->g->seed_card && tech_filter_ok(l->g, l->seat, a, e->filter);
}

/* The choices of a use order that an effect takes (those of struct tech_decision). */
struct effect_choice {
    uint8_t card, take, victim;
    bool has_target, has_to;
    int8_t tx, ty, ux, uy;
};

/* Finds the best choices for the effect of `card` used by seat; returns their worth in points
 * (or a very low number when no choice is legal). The choices it weighs are the legal ones
 * (tech_effect_check() accepts them), in the city's and the hand's order, the first best kept.
 * A rearranging effect's search stops at the first choice worth more than `enough`: then it
 * returns that choice's worth, and only that the best is worth more than `enough` is known. */
static double best_effect(struct look *l, int card, struct effect_choice *d, double enough)
{
    const struct tech_game *g = l->g;
    int seat = l->seat;
    const struct tech_effect *e = &tech_design_of(g, card)->effect;
    const struct tech_seat *s = &g->seats[seat];
    double u = l->u;
    const double *w = l->w;
    const double none = -1e9;
    switch (e->prim) {
    case PRIM_DRAW:
        return (e->n - e->m) * u * 1.1 + e->m * 0.12;
    case PRIM_DISCARD: {
        /* a card an opponent loses counts against the average opponent */
        double v = 0;
        for (int o = 0; o < g->players; o++)
            if (o != seat && g->seats[o].nhand > 0)
                v += 0.9 * (e->n < g->seats[o].nhand ? e->n : g->seats[o].nhand) * u;
        return v / (g->players - 1);
    }
    case PRIM_REVEAL:
        return u * 1.1 + 0.1 * e->n;
    case PRIM_SEARCH:
        return u * 1.15 + (e->value ? 0.3 * (l->matches[e->value] > 0) : 0.1);
    case PRIM_EXCHANGE_TOP: {
        int worst = cheapest(g, seat, w, -1, -1);
        if (worst < 0 || g->ndeck + g->ndiscard == 0)
            return none;
        d->card = s->hand[worst];
        return 1.2 * u - w[worst] + 0.1;
    }
    case PRIM_EXCHANGE_PILE: {
        int worst = cheapest(g, seat, w, -1, -1);
        if (worst < 0 || g->ndiscard == 0)
            return none;
        int take = 0;
        double tw = tech_look_worth(l, g->discard[0]);
        for (int i = 1; i < g->ndiscard; i++) {
            double v = tech_look_worth(l, g->discard[i]);
            if (v > tw) {
                take = i;
                tw = v;
            }
        }
        d->card = s->hand[worst];
        d->take = g->discard[take];
        return tw - w[worst] + 0.1;
    }
    case PRIM_STEAL: {
        int victim = -1;
        for (int o = 0; o < g->players; o++)
            if (o != seat && g->seats[o].nhand > 0 &&
                (victim < 0 || g->seats[o].score > g->seats[victim].score ||
                 (g->seats[o].score == g->seats[victim].score &&
                  g->seats[o].nhand > g->seats[victim].nhand)))
                victim = o;
        if (victim < 0)
            return none;
        d->victim = (uint8_t)victim;
        return u * (1.0 + 0.8 / (g->players - 1)); /* mine, and one less for them */
    }
    case PRIM_SCORE: {
        int points = tech_effect_points(g, seat, card); /* tech_score() adds no negative points */
        return points > 0 ? points : 0;
    }
    default:
        break;
    }
    /* Rearranging effects: what each legal choice would make of the position. */
    double best = none;
    struct effect_choice t = *d, keep = *d;
    unsigned want = tech_effect_choices(e->prim);
    t.has_target = true;
    t.has_to = (want & CHOICE_TO) != 0;
    static _Thread_local struct seen seen;
    if (e->prim == PRIM_SWAP || e->prim == PRIM_MOVE_MARKER) {
        look_around(l);
        seen_clear(&seen);
    }
    for (int i = 0; i < l->n && best <= enough; i++) {
        t.tx = l->x[i];
        t.ty = l->y[i];
        if (e->prim == PRIM_REPLACE) {
            if (!target_ok(l, e, i))
                continue;
            for (int h = 0; h < s->nhand && best <= enough; h++) {
                if (is_wild(g, s->hand[h]))
                    continue;
                double v = replace_gain(l, i, h);
                if (v > best) {
                    best = v;
                    keep = t;
                    keep.card = s->hand[h];
                }
            }
        } else if (e->prim == PRIM_EXPEL) {
            if (!target_ok(l, e, i))
                continue;
            double v = expel_gain(l, i);
            if (v > best) {
                best = v;
                keep = t;
            }
        } else {
            /* swap and move_marker: the first card is one of seat's companies, the second
             * another card (move_marker: a company seat does not control) */
            if (l->owner[i] != seat)
                continue;
            for (int j = 0; j < l->n && best <= enough; j++) {
                if (j == i || (e->prim == PRIM_MOVE_MARKER &&
                               (l->owner[j] == seat || l->dom[j] == DOMAIN_SERVICE)))
                    continue;
                double v;
                if (rearrange_gain(l, &seen, e->prim, i, j, &v) && v > best) {
                    best = v;
                    keep = t;
                    keep.ux = l->x[j];
                    keep.uy = l->y[j];
                }
            }
        }
    }
    *d = keep;
    return best;
}

/* ---- greedy: bounds on a rearranging effect's worth --------------------------------------- */

/* What seat o's standing becoming standing(c) adds to l's position: seat's own, or (another
 * seat) through the others' part. */
static double standing_gain(const struct look *l, int o, const struct counts *c)
{
    double st = standing(l, c);
    if (o == l->seat)
        return st - l->standing[o];
    return -(others_with(l, o, st) - l->others);
}

/* The most that seat o losing one company of group t (domain d) to an expel or a moved marker
 * adds to l's position: nothing for seat's own or no owner, else the others' part falling. */
static double loss_gain(const struct look *l, int o, int d, const struct group *t)
{
    if (o == TECH_MAX_PLAYERS || o == l->seat)
        return 0;
    struct counts c = l->counts[o];
    c.own--;
    c.close -= t->maxnear;
    c.dom[d]--;
    return standing_gain(l, o, &c);
}

static void group_add(struct group *t, int near)
{
    if (!t->any) {
        *t = (struct group){true, (uint8_t)near, (uint8_t)near};
    } else {
        t->minnear = near < t->minnear ? (uint8_t)near : t->minnear;
        t->maxnear = near > t->maxnear ? (uint8_t)near : t->maxnear;
    }
}

/* Fills l->all and l->targets (once per look). */
static void look_groups(struct look *l)
{
    if (l->groups_done)
        return;
    l->groups_done = true;
    memset(l->all, 0, sizeof l->all);
    memset(l->targets, 0, sizeof l->targets);
    for (int i = 0; i < l->n; i++) {
        int o = l->owner[i] == TECH_NONE ? TECH_MAX_PLAYERS : l->owner[i];
        group_add(&l->all[o][l->dom[i]], l->near[i]);
        if (l->g->city[i] != l->g->seed_card)
            group_add(&l->targets[o][l->dom[i]], l->near[i]);
    }
}

/* tech_filter_ok() for the cards of owner o (TECH_MAX_PLAYERS: none): it reads the owner alone. */
static bool filter_ok(const struct look *l, int o, int f)
{
    switch (f) {
    case FILTER_OWN:
        return o == l->seat;
    case FILTER_NEUTRAL:
        return o == TECH_MAX_PLAYERS;
    case FILTER_OTHER:
        return o != TECH_MAX_PLAYERS && o != l->seat;
    default:
        return true;
    }
}

/* Slack for the rounding of a bound's sums, which differ in order from the worth's own. */
static const double BOUND_SLACK = 1e-9;

/* An upper bound on what best_effect() returns for rearranging effect e, worked out from l's
 * counts by owner and domain (look_groups()) without weighing each choice; *legal says whether
 * e has a legal choice at all (if not, best_effect() returns its very low number). */
static double effect_bound(struct look *l, const struct tech_effect *e, bool *legal)
{
    const struct tech_game *g = l->g;
    int seat = l->seat;
    const struct tech_seat *s = &g->seats[seat];
    double ub = 0;
    *legal = false;
    look_groups(l);
    if (e->prim == PRIM_EXPEL || e->prim == PRIM_REPLACE) {
        bool tok[TECH_MAX_PLAYERS + 1];
        for (int o = 0; o <= TECH_MAX_PLAYERS; o++) {
            tok[o] = filter_ok(l, o, e->filter);
            for (int d = 0; d < DOMAIN_WILD; d++)
                *legal = *legal || (tok[o] && l->targets[o][d].any);
        }
        if (!*legal)
            return 0;
        if (e->prim == PRIM_EXPEL) { /* a hand's worth only falls when a card leaves play */
            for (int o = 0; o < TECH_MAX_PLAYERS; o++)
                for (int d = 0; d < DOMAIN_WILD; d++)
                    if (tok[o] && l->targets[o][d].any) {
                        double v = loss_gain(l, o, d, &l->targets[o][d]);
                        ub = v > ub ? v : ub;
                    }
            return ub + BOUND_SLACK;
        }
        /* replace: the hand without card h, every card of h's value matching one more */
        double hmax[DOMAIN_WILD], sum = 0, u = card_unit(g, s->nhand - 1);
        bool hany[DOMAIN_WILD] = {false};
        for (int k = 0; k < s->nhand; k++)
            sum += l->w[k];
        for (int h = 0; h < s->nhand; h++) {
            const struct tech_design *dh = tech_design_of(g, s->hand[h]);
            if (dh->domain == DOMAIN_WILD)
                continue;
            double v = 0;
            for (int k = 0; k < s->nhand; k++) {
                if (k == h)
                    continue;
                const struct tech_design *dk = tech_design_of(g, s->hand[k]);
                v += worth(u, dk, l->matches[dk->value] + (dk->value == dh->value));
            }
            v -= sum;
            if (!hany[dh->domain] || v > hmax[dh->domain])
                hmax[dh->domain] = v;
            hany[dh->domain] = true;
        }
        bool any_h = false;
        ub = -1e300;
        for (int o = 0; o <= TECH_MAX_PLAYERS; o++)
            for (int di = 0; di < DOMAIN_WILD; di++) {
                const struct group *t = &l->targets[o][di];
                if (!tok[o] || !t->any)
                    continue;
                for (int dh = 0; dh < DOMAIN_WILD; dh++) {
                    if (!hany[dh])
                        continue;
                    any_h = true;
                    double v = 0;
                    if (o != TECH_MAX_PLAYERS) {
                        struct counts c = l->counts[o];
                        c.dom[di]--;
                        if (dh == DOMAIN_SERVICE) {
                            c.own--;
                            c.close -= o == seat ? t->minnear : t->maxnear;
                        } else {
                            c.dom[dh]++;
                        }
                        v = standing_gain(l, o, &c);
                    }
                    v += hmax[dh];
                    ub = v > ub ? v : ub;
                }
            }
        *legal = any_h;
        return ub + BOUND_SLACK;
    }
    /* swap and move_marker: seat's close pairs grow by at most the most of its companies around
     * one card less the fewest near one of its own; another seat's fall by at most the most near
     * one of its cards (and a moved marker takes that card from it) */
    const struct counts *mc = &l->counts[seat];
    if (mc->own == 0 || l->n < 2)
        return 0;
    bool marker = e->prim == PRIM_MOVE_MARKER;
    bool din[DOMAIN_WILD] = {false};
    for (int o = 0; o <= TECH_MAX_PLAYERS; o++)
        for (int d = 0; d < DOMAIN_WILD; d++)
            if (l->all[o][d].any && (!marker || (o != seat && d != DOMAIN_SERVICE)))
                *legal = din[d] = true;
    if (!*legal)
        return 0;
    look_around(l);
    int minnear = 255, maxaround = 0;
    for (int k = 0; k < mc->own; k++) {
        int i = l->owned[seat][k];
        minnear = l->near[i] < minnear ? l->near[i] : minnear;
    }
    for (int j = 0; j < l->n; j++)
        if (l->around[seat][j] > maxaround &&
            (!marker || (l->owner[j] != seat && l->dom[j] != DOMAIN_SERVICE)))
            maxaround = l->around[seat][j];
    double mine = -1e300, og = 0;
    for (int d = 0; d < DOMAIN_WILD; d++) {
        if (marker ? !din[d] : d > 0)
            continue;
        struct counts c = *mc;
        c.close += maxaround - minnear;
        if (marker)
            c.dom[d]++;
        double v = standing(l, &c) - l->standing[seat];
        mine = v > mine ? v : mine;
    }
    for (int o = 0; o < TECH_MAX_PLAYERS; o++)
        for (int d = 0; d < DOMAIN_WILD; d++) {
            const struct group *t = &l->all[o][d];
            if (!t->any || o == seat || (marker && d == DOMAIN_SERVICE))
                continue;
            double v;
            if (marker) {
                v = loss_gain(l, o, d, t);
            } else {
                struct counts c = l->counts[o];
                c.close -= t->maxnear;
                v = standing_gain(l, o, &c);
            }
            og = v > og ? v : og;
        }
    ub = mine + og;
    if (!marker && ub < 0)
        ub = 0; /* two of seat's companies changing places */
    return ub + BOUND_SLACK;
}

enum { EXPLORE = 3 };
static const double EXPLORE_COST = 0.7;

/* What is known of one effect's best choices (best_effect()), kept for the other cards in the
 * city with the same effect (several designs share one; two decks repeat them) and for the free
 * use of the same card: best_effect() reads the card's effect and nothing else of it. A
 * rearranging effect is weighed choice by choice only when its bound could win the decision. */
enum memo_state {
    MEMO_EXACT,  /* v and d are best_effect()'s */
    MEMO_BOUND,  /* ub bounds v from above, and some choice is legal */
    MEMO_ENOUGH, /* v, a choice's worth, is more than ENOUGH */
    MEMO_NONE,   /* nothing known yet (an explore turn's rearranging effect) */
};

/* A partial search stops at a choice worth more than this: the explore test (-EXPLORE_COST
 * after the 0.25 a foreign card costs) then passes. */
static const double ENOUGH = -0.4;

struct effect_memo {
    const struct tech_effect *e;
    double v, ub;
    enum memo_state state;
    uint8_t card; /* a card with the effect */
    struct effect_choice d;
};

/* An effect as one integer: its bytes (eight of them, no padding); two effects are the same when
 * their bytes are. */
static uint64_t effect_bytes(const struct tech_effect *e)
{
    _Static_assert(sizeof *e == sizeof(uint64_t), "struct tech_effect is eight bytes");
    uint64_t x;
    memcpy(&x, e, sizeof x);
    return x;
}

/* The memos of one decision: by design, and by effect (open addressing on effect_bytes()). */
enum { MEMO_SLOTS = 128 };
struct memos {
    int n;
    struct effect_memo memo[TECH_MAX_DESIGNS];
    int8_t by_design[TECH_MAX_DESIGNS]; /* index in memo, -1 unknown */
    int8_t slot[MEMO_SLOTS];            /* index in memo, -1 empty */
    uint64_t key[MEMO_SLOTS];
};

/* Runs best_effect() on m's effect, stopping at a choice worth more than `enough`. */
static void memo_search(struct look *l, struct effect_memo *m, double enough)
{
    m->d = (struct effect_choice){.card = TECH_NONE, .take = TECH_NONE, .victim = TECH_NONE};
    m->v = best_effect(l, m->card, &m->d, enough);
    m->state = m->v > enough ? MEMO_ENOUGH : MEMO_EXACT;
}

/* The memo of card's effect in ms, made when missing: exact for an effect worked out at once, a
 * bound for a rearranging one (exact when it has no legal choice; nothing yet on an explore
 * turn). */
static struct effect_memo *effect_memo(struct memos *ms, struct look *l, int card, bool explore)
{
    const struct tech_design *d = tech_design_of(l->g, card);
    const struct tech_effect *e = &d->effect;
    int8_t *known = &ms->by_design[d - l->g->cat->designs];
    if (*known >= 0)
        return &ms->memo[*known];
    uint64_t key = effect_bytes(e);
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 57);
    while (ms->slot[h] >= 0) {
        if (ms->key[h] == key) {
            *known = ms->slot[h];
            return &ms->memo[*known];
        }
        h = (h + 1) & (MEMO_SLOTS - 1);
    }
    *known = ms->slot[h] = (int8_t)ms->n;
    ms->key[h] = key;
    struct effect_memo *m = &ms->memo[ms->n++];
    m->e = e;
    m->card = (uint8_t)card;
    if (e->prim != PRIM_REPLACE && e->prim != PRIM_EXPEL && e->prim != PRIM_SWAP &&
        e->prim != PRIM_MOVE_MARKER) {
        memo_search(l, m, HUGE_VAL);
        return m;
    }
    if (explore) { /* explore_ok() searches it as far as it needs */
        m->state = MEMO_NONE;
        return m;
    }
    bool legal;
    m->ub = effect_bound(l, e, &legal);
    m->state = legal ? MEMO_BOUND : MEMO_EXACT;
    m->v = legal ? 0 : -1e9;
    m->d = (struct effect_choice){.card = TECH_NONE, .take = TECH_NONE, .victim = TECH_NONE};
    return m;
}

/* A use worth making: its effect's memo, the city card, whether it is the free use and whether
 * another seat owns the card, and its noise (a unit() draw). */
struct use_candidate {
    struct effect_memo *m; /* NULL once out of the running */
    double r;
    uint8_t card;
    bool free, foreign;
};

/* The worth of effect worth v to use: less when another seat owns the card (its owner draws and
 * discards), more for a free use (it keeps the normal one). */
static double use_worth(double v, bool foreign, bool free)
{
    if (foreign)
        v -= 0.25;
    /* The order of the two (the rule text's chaining: the active player's choice). The effect
     * first, always: after an exchange with the deck the owner then draws the card this seat
     * gave up; for every other effect both orders are worth the same in expectation (unknown
     * cards either way), and this keeps the usual one. */
    if (free)
        v += 0.2;
    return v;
}

/* Whether a use of m's effect passes the explore test (worth at least -EXPLORE_COST), searching
 * m's choices only as far as the answer needs. */
static bool explore_ok(struct look *l, struct effect_memo *m, bool foreign, bool free)
{
    if (m->state == MEMO_NONE)
        memo_search(l, m, ENOUGH);
    if (m->state == MEMO_ENOUGH)
        return true;
    return use_worth(m->v, foreign, free) >= -EXPLORE_COST;
}

void tech_greedy_effect(struct bot *b, struct look *l, struct tech_decision *out)
{
    const struct tech_game *g = l->g;
    int seat = l->seat;
    tech_decision_init(out);
    out->kind = TDEC_PASS;
    const double floor = 0.05; /* a use worth no more is not made */
    struct use_candidate cand[2 * TECH_MAX_CARDS];
    int ncand = 0;
    const struct tech_seat *s = &g->seats[seat];
    struct memos ms;
    ms.n = 0;
    memset(ms.by_design, -1, sizeof ms.by_design);
    memset(ms.slot, -1, sizeof ms.slot);
    /* Now and then (1 turn in EXPLORE) the bot tries any use that costs it little, at random:
     * a player who always takes the same sure gain never learns the city's other effects. */
    bool explore = rng_below(&b->rng, EXPLORE) == 0;
    bool free_ok = !s->used_free && l->counts[seat].dom[DOMAIN_KNOWLEDGE] >= 2;
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        const struct tech_design *ds = tech_design_of(g, c);
        for (int f = 0; f < 2; f++) {
            bool free = f == 1;
            if (free ? !(free_ok && g->owner[c] == seat && ds->domain == DOMAIN_KNOWLEDGE)
                     : (s->used_normal || g->tilted[c]))
                continue;
            struct effect_memo *m = effect_memo(&ms, l, c, explore);
            bool foreign = g->owner[c] != TECH_NONE && g->owner[c] != seat;
            /* explore: a use worth 1 + noise when it costs little, else none (no draw; nor
             * when no choice is legal, worth -1e9) */
            if (explore ? !explore_ok(l, m, foreign, free) : m->state == MEMO_EXACT && m->v < -1e8)
                continue;
            double r = unit(&b->rng);
            if (!explore && m->state == MEMO_EXACT &&
                !(use_worth(m->v, foreign, free) + 0.35 * r > floor))
                continue; /* not v <= floor: solo, a discard effect is worth NaN */
            cand[ncand++] = (struct use_candidate){m, r, (uint8_t)c, free, foreign};
        }
    }
    /* The legal use worth most, the first of equals: the uses in order of worth until one passes
     * tech_check() (almost always the first), which is what keeping the best legal use so far
     * in city order gives. A use whose effect is only bounded goes by its bound, at least its
     * worth: when it comes first its effect is weighed and the order looked at again. */
    for (;;) {
        int top = -1;
        double tv = 0;
        for (int k = 0; k < ncand; k++) {
            struct use_candidate *u = &cand[k];
            if (!u->m)
                continue;
            double v = explore ? 1.0 + u->r
                               : use_worth(u->m->state == MEMO_EXACT ? u->m->v : u->m->ub,
                                           u->foreign, u->free) +
                                     0.35 * u->r;
            if (!(v > floor)) {
                u->m = NULL;
                continue;
            }
            if (top < 0 || v > tv) {
                top = k;
                tv = v;
            }
        }
        if (top < 0)
            return;
        const struct use_candidate *u = &cand[top];
        if (u->m->state != MEMO_EXACT) {
            memo_search(l, u->m, HUGE_VAL);
            continue;
        }
        struct tech_decision t;
        tech_decision_init(&t);
        t.kind = TDEC_USE;
        t.x = g->cx[u->card];
        t.y = g->cy[u->card];
        t.free = u->free;
        t.owner_first = false;
        t.card = u->m->d.card;
        t.take = u->m->d.take;
        t.victim = u->m->d.victim;
        t.has_target = u->m->d.has_target;
        t.has_to = u->m->d.has_to;
        t.tx = u->m->d.tx;
        t.ty = u->m->d.ty;
        t.ux = u->m->d.ux;
        t.uy = u->m->d.uy;
        if (tech_check(g, seat, &t) == TECH_OK) {
            *out = t;
            return;
        }
        cand[top].m = NULL;
    }
}
