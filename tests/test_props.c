/* test_props.c: property tests over thousands of bot games — card conservation, scores that
 * never fall, games that end, bit-identical replays, side-effect-free checks, and an engine
 * that accepts exactly the decisions the rules allow, mutated decisions included. */
#include "helpers.h"

static struct city_catalog cat;

static void load(void)
{
    load_catalog(&cat);
}

TestSuite(property, .init = load);

enum {
    RANDOM_GAMES = 3000,
    GREEDY_GAMES = 1000,
    MUTATIONS = 6, /* mutated decisions tried before each real one in the fuzzing test */
};

/* What a game driver checks besides what every run checks (bot decisions accepted, games
 * ending within CITY_MAX_ROUNDS). */
enum {
    CHK_CONSERVE = 1 << 0, /* card conservation after every submit and resolve */
    CHK_SCORES = 1 << 1,   /* scores never fall; a round adds exactly the tableau's points */
    CHK_CONST = 1 << 2,    /* city_check changes nothing */
    CHK_FUZZ = 1 << 3,     /* mutated decisions: valid answers, exactly the legal ones pass */
    CHK_DEFAULTS = 1 << 4, /* some seats miss decisions and get defaults */
    CHK_END = 1 << 5,      /* the winners are the ones the rules name */
    CHK_STEPS = 1 << 6,    /* each step waits on exactly the seats the rules name */
};

/* ---- the rules as an oracle ------------------------------------------------------------- */

static bool oracle_in_hand(const struct city_game *g, int seat, int card)
{
    return card < CITY_DECK_SIZE && in_hand(g, seat, card);
}

/* One build by the rules, with design `extra` (or -1) already built this round. */
static bool oracle_build(const struct city_game *g, int seat, const struct city_build *b, int extra,
                         bool *used)
{
    if (!oracle_in_hand(g, seat, b->card) || used[b->card])
        return false;
    used[b->card] = true;
    int d = cat.card_design[b->card];
    if (!rule_admits(g, seat, d, extra))
        return false;
    if (b->npay > CITY_MAX_COST || b->npay != rule_cost(g, seat, d, extra))
        return false;
    for (int i = 0; i < b->npay; i++) {
        if (!oracle_in_hand(g, seat, b->pay[i]) || used[b->pay[i]])
            return false;
        used[b->pay[i]] = true;
    }
    return true;
}

/* How many cards the rules make seat discard in the current discard step. */
static int oracle_discards(const struct city_game *g, int seat)
{
    switch (g->step) {
    case CITY_STEP_KEEP:
        return CITY_KEEP_DISCARD;
    case CITY_STEP_SURVEY:
        return g->seats[seat].drew - 1;
    case CITY_STEP_HAND_LIMIT:
        return g->seats[seat].nhand - CITY_HAND_LIMIT;
    default:
        return -1;
    }
}

/* Whether the rules allow decision `d` for `seat` now. */
static bool oracle_legal(const struct city_game *g, int seat, const struct city_decision *d)
{
    if (g->step == CITY_STEP_OVER || seat < 0 || seat >= g->players || !g->seats[seat].pending)
        return false;
    bool used[CITY_DECK_SIZE] = {false};
    if (g->step != CITY_STEP_BUILD) {
        if (d->kind != CITY_DEC_DISCARD || d->ndiscard != oracle_discards(g, seat))
            return false;
        for (int i = 0; i < d->ndiscard; i++) {
            if (!oracle_in_hand(g, seat, d->discard[i]) || used[d->discard[i]])
                return false;
            used[d->discard[i]] = true;
        }
        return true;
    }
    switch (d->kind) {
    case CITY_DEC_SURVEY:
        return true;
    case CITY_DEC_CONTRACTOR:
        return g->npool > 0 && !copies_of(g, seat, cat.contractor_design);
    case CITY_DEC_BUILD:
        return d->nbuilds == 1 && oracle_build(g, seat, &d->builds[0], -1, used);
    case CITY_DEC_BUILD_TWO: {
        if (d->nbuilds != 2)
            return false;
        for (int k = 0; k < 2; k++)
            if (!oracle_in_hand(g, seat, d->builds[k].card) ||
                cat.designs[cat.card_design[d->builds[k].card]].cost > CITY_DOUBLE_MAX_COST)
                return false;
        int first = cat.card_design[d->builds[0].card];
        if (!rule_has_gang(g, seat) && !cat.designs[first].construction_gang)
            return false;
        return oracle_build(g, seat, &d->builds[0], -1, used) &&
               oracle_build(g, seat, &d->builds[1], first, used);
    }
    default:
        return false;
    }
}

/* ---- mutations -------------------------------------------------------------------------- */

/* A card id: mostly from the seat's hand, sometimes any id, sometimes out of range. */
static uint8_t some_card(struct city_rng *r, const struct city_game *g, int seat)
{
    const struct city_seat *s = &g->seats[seat < 0 || seat >= g->players ? 0 : seat];
    uint32_t x = rng_below(r, 10);
    if (x < 7 && s->nhand)
        return s->hand[rng_below(r, s->nhand)];
    if (x < 9)
        return (uint8_t)rng_below(r, CITY_DECK_SIZE);
    return (uint8_t)(CITY_DECK_SIZE + rng_below(r, 256 - CITY_DECK_SIZE));
}

/* Changes one to three fields of *d at random. */
static void mutate(struct city_rng *r, const struct city_game *g, int seat, struct city_decision *d)
{
    int n = 1 + (int)rng_below(r, 3);
    for (int i = 0; i < n; i++) {
        int k = (int)rng_below(r, 2);
        struct city_build *b = &d->builds[k];
        switch (rng_below(r, 12)) {
        case 0:
            d->kind = (uint8_t)rng_below(r, 7);
            break;
        case 1:
            d->nbuilds = (uint8_t)rng_below(r, 4);
            break;
        case 2:
            b->card = some_card(r, g, seat);
            break;
        case 3:
            b->npay = (uint8_t)(b->npay + (rng_below(r, 2) ? 1 : -1));
            break;
        case 4:
            b->npay = (uint8_t)rng_below(r, CITY_MAX_COST + 4);
            break;
        case 5:
            b->pay[rng_below(r, CITY_MAX_COST)] = some_card(r, g, seat);
            break;
        case 6: /* pay with a card named elsewhere in the decision */
            b->pay[rng_below(r, CITY_MAX_COST)] =
                rng_below(r, 2) ? d->builds[1 - k].card : d->builds[k].card;
            break;
        case 7: {
            struct city_build t = d->builds[0];
            d->builds[0] = d->builds[1];
            d->builds[1] = t;
            break;
        }
        case 8:
            d->ndiscard = (uint8_t)(d->ndiscard + (rng_below(r, 2) ? 1 : -1));
            break;
        case 9:
            d->ndiscard = (uint8_t)rng_below(r, 256);
            break;
        case 10:
            d->discard[rng_below(r, CITY_DECK_SIZE)] = some_card(r, g, seat);
            break;
        default:
            if (d->ndiscard > 1 && d->ndiscard <= CITY_DECK_SIZE)
                d->discard[rng_below(r, d->ndiscard)] = d->discard[0];
            break;
        }
    }
}

/* Tries mutated versions of `d` (for `seat` and sometimes for another seat) on g: each is
 * answered with a valid code, city_check and city_submit agree, the engine accepts exactly
 * what the oracle allows, and a refused submit changes nothing. */
static void fuzz(struct city_rng *r, struct city_game *g, int seat, const struct city_decision *d)
{
    for (int t = 0; t < MUTATIONS; t++) {
        struct city_decision m = *d;
        mutate(r, g, seat, &m);
        int who = seat;
        if (rng_below(r, 8) == 0)
            who = (int)rng_below(r, CITY_MAX_PLAYERS + 2) - 1;
        static struct city_game before;
        memcpy(&before, g, sizeof before);
        int e = city_check(g, who, &m);
        cr_assert(memcmp(&before, g, sizeof before) == 0, "city_check changed state");
        cr_assert(e >= 0 && e < CITY_ERR_COUNT, "error code %d out of range", e);
        cr_assert_eq(e == CITY_OK, oracle_legal(g, who, &m),
                     "step %s seat %d kind %d: engine says %s, the rules say otherwise",
                     city_step_name(g->step), who, m.kind, city_error_code(e));
        int e2 = city_submit(g, who, &m);
        cr_assert_eq(e2, e, "city_check and city_submit disagree");
        if (e2 != CITY_OK)
            cr_assert(memcmp(&before, g, sizeof before) == 0, "a refused submit changed state");
        cr_assert(city_check_conservation(g));
    }
}

/* ---- the game driver -------------------------------------------------------------------- */

struct run_stats {
    int games, rounds, decisions, defaults, ended_by_deck, ended_by_rounds, doubles;
};

/* Checks the end of a finished game: winners are the top scorers with the most cards. */
static void check_end(const struct city_game *g)
{
    int best = -1000000, most = -1;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].vp > best)
            best = g->seats[s].vp;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].vp == best && g->seats[s].nhand > most)
            most = g->seats[s].nhand;
    unsigned want = 0;
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].vp == best && g->seats[s].nhand == most)
            want |= 1u << s;
    cr_assert_eq(g->winners, want);
    bool target = false;
    for (int s = 0; s < g->players; s++)
        target |= g->seats[s].vp >= g->target_vp;
    cr_assert(target || g->ended_by_deck || g->ended_by_rounds, "ended for no reason");
}

/* Checks that the step now open waits on exactly the seats the rules name, for the number of
 * cards they name. */
static void check_step(const struct city_game *g)
{
    for (int s = 0; s < g->players; s++) {
        const struct city_seat *x = &g->seats[s];
        bool want;
        switch (g->step) {
        case CITY_STEP_KEEP:
            cr_assert_eq(g->round, 0);
            want = true;
            break;
        case CITY_STEP_BUILD:
            cr_assert_geq(g->round, 1);
            want = true;
            break;
        case CITY_STEP_SURVEY:
            cr_assert_leq(x->drew, CITY_SURVEY_DRAW);
            cr_assert(x->drew == 0 || x->reveal.kind == CITY_DEC_SURVEY);
            want = x->reveal.kind == CITY_DEC_SURVEY && x->drew >= 2;
            break;
        case CITY_STEP_HAND_LIMIT:
            want = x->nhand > CITY_HAND_LIMIT;
            break;
        default:
            want = false;
            break;
        }
        cr_assert_eq(game_seat_pending(g, s), want, "step %s seat %d", city_step_name(g->step), s);
        cr_assert(!x->submitted, "a new step starts with no decisions");
        if (want && g->step != CITY_STEP_BUILD)
            cr_assert_eq(city_discard_count(g, s), oracle_discards(g, s));
        if (g->step == CITY_STEP_BUILD)
            cr_assert_leq(x->nhand, CITY_HAND_LIMIT, "a round starts with at most 12 cards");
    }
}

/* Plays one game of `players` seats from `seed`, seat s played by bot kinds[s], checking
 * `checks` along the way. */
static void play_game(uint64_t seed, int players, const int *kinds, int checks,
                      struct run_stats *st)
{
    static struct city_game g;
    struct city_rng r;
    rng_seed(&r, seed * 0x9e3779b97f4a7c15ULL + 1);
    cr_assert_eq(city_new(&g, &cat, players, seed, 0), CITY_OK);
    struct bot bots[CITY_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        city_bot_init(&bots[s], kinds[s], seed + (uint64_t)s * 7919);
    int32_t prev[CITY_MAX_PLAYERS] = {0};
    int resolves = 0;
    while (g.step != CITY_STEP_OVER) {
        cr_assert_lt(++resolves, 4 * (CITY_MAX_ROUNDS + 2), "the game does not end");
        for (int s = 0; s < players; s++) {
            struct city_decision d;
            bool pending = game_seat_pending(&g, s);
            cr_assert_eq(city_bot_decide(&bots[s], &g, s, &d), pending);
            if (!pending) {
                if (checks & CHK_FUZZ) {
                    struct city_decision none = dec_survey();
                    fuzz(&r, &g, s, &none);
                }
                continue;
            }
            if (checks & CHK_FUZZ)
                fuzz(&r, &g, s, &d);
            if ((checks & CHK_DEFAULTS) && rng_below(&r, 4) == 0)
                continue; /* missed: a default follows */
            if (checks & CHK_CONST) {
                static struct city_game before;
                memcpy(&before, &g, sizeof before);
                int e = city_check(&g, s, &d);
                cr_assert_eq(e, CITY_OK);
                cr_assert(memcmp(&before, &g, sizeof before) == 0, "city_check changed state");
            }
            int e = city_submit(&g, s, &d);
            cr_assert_eq(e, CITY_OK, "a %s bot's decision was refused in step %s: %s",
                         bot_kind_name(kinds[s]), city_step_name(g.step), city_error_code(e));
            st->decisions++;
            st->doubles += d.kind == CITY_DEC_BUILD_TWO;
            if (checks & CHK_CONSERVE)
                cr_assert(city_check_conservation(&g));
        }
        if (checks & CHK_DEFAULTS) {
            int n = city_fill_defaults(&g, NULL);
            st->defaults += n;
            if (checks & CHK_CONSERVE)
                cr_assert(city_check_conservation(&g));
            for (int s = 0; s < players; s++)
                if (g.seats[s].defaulted)
                    cr_assert(oracle_legal(&g, s, &g.seats[s].order), "an illegal default");
        }
        cr_assert(city_ready(&g));
        int step = g.step, round = g.round;
        cr_assert(city_resolve(&g, NULL));
        if (checks & CHK_CONSERVE)
            cr_assert(city_check_conservation(&g));
        if (checks & CHK_STEPS) {
            check_step(&g);
            if (step == CITY_STEP_HAND_LIMIT)
                for (int s = 0; s < players; s++)
                    cr_assert_leq(g.seats[s].nhand, CITY_HAND_LIMIT);
            if (step == CITY_STEP_KEEP)
                cr_assert_eq(g.ndiscard, CITY_KEEP_DISCARD * players);
        }
        if (checks & CHK_SCORES) {
            bool scored =
                (step == CITY_STEP_BUILD || step == CITY_STEP_SURVEY) && g.step != CITY_STEP_SURVEY;
            for (int s = 0; s < players; s++) {
                cr_assert_geq(g.seats[s].vp, prev[s], "a score fell");
                int want = scored ? rule_round_vp(&g, s) : 0;
                cr_assert_eq(g.seats[s].vp - prev[s], want, "seat %d gained %d, not %d", s,
                             g.seats[s].vp - prev[s], want);
                if (scored) {
                    cr_assert_eq(g.seats[s].vp_by_round[round], g.seats[s].vp);
                    if (!g.ended_by_deck)
                        cr_assert_eq(g.seats[s].last_income, rule_income(&g, s));
                }
                prev[s] = g.seats[s].vp;
            }
        }
    }
    cr_assert_leq(g.round, CITY_MAX_ROUNDS);
    cr_assert_geq(g.round, 1);
    if (checks & CHK_FUZZ) {
        for (int t = 0; t < MUTATIONS; t++) {
            struct city_decision m = dec_survey();
            mutate(&r, &g, 0, &m);
            static struct city_game before;
            memcpy(&before, &g, sizeof before);
            int who = (int)rng_below(&r, CITY_MAX_PLAYERS + 2) - 1;
            cr_assert_eq(city_submit(&g, who, &m), CITY_ERR_GAME_OVER);
            cr_assert(memcmp(&before, &g, sizeof before) == 0);
        }
        cr_assert_eq(city_fill_defaults(&g, NULL), 0);
        cr_assert(!city_resolve(&g, NULL));
    }
    if (checks & CHK_END)
        check_end(&g);
    st->games++;
    st->rounds += g.round;
    st->ended_by_deck += g.ended_by_deck;
    st->ended_by_rounds += g.ended_by_rounds;
}

/* Plays `n` games of one bot kind (or mixed when kind < 0) over 2..5 players. */
static void play_many(int n, int kind, uint64_t base, int checks, struct run_stats *st)
{
    for (int i = 0; i < n; i++) {
        int players = CITY_MIN_PLAYERS + i % (CITY_MAX_PLAYERS - CITY_MIN_PLAYERS + 1);
        int kinds[CITY_MAX_PLAYERS];
        for (int s = 0; s < players; s++)
            kinds[s] = kind >= 0 ? kind : (i + s) % BOT_KIND_COUNT;
        play_game(base + (uint64_t)i, players, kinds, checks, st);
    }
}

/* ---- properties ------------------------------------------------------------------------- */

Test(property, every_card_is_in_exactly_one_place_after_every_submit_and_resolve)
{
    struct run_stats st = {0};
    play_many(RANDOM_GAMES, BOT_RANDOM, 1, CHK_CONSERVE, &st);
    play_many(GREEDY_GAMES, BOT_GREEDY, 100001, CHK_CONSERVE, &st);
    cr_assert_eq(st.games, RANDOM_GAMES + GREEDY_GAMES);
    cr_assert_gt(st.doubles, 0, "some games should build two with a Construction Gang");
}

Test(property, scores_never_fall_and_each_round_adds_exactly_the_tableau_points)
{
    struct run_stats st = {0};
    play_many(RANDOM_GAMES, BOT_RANDOM, 200001, CHK_SCORES, &st);
    play_many(GREEDY_GAMES, BOT_GREEDY, 300001, CHK_SCORES, &st);
}

Test(property, every_game_ends_within_the_round_limit_with_the_rules_winners)
{
    struct run_stats st = {0};
    play_many(RANDOM_GAMES, BOT_RANDOM, 400001, CHK_END, &st);
    play_many(GREEDY_GAMES, BOT_GREEDY, 500001, CHK_END, &st);
    cr_assert_eq(st.games, RANDOM_GAMES + GREEDY_GAMES);
    cr_log_info("%d games, %.2f rounds on average, %d ended by the deck, %d by the round limit",
                st.games, (double)st.rounds / st.games, st.ended_by_deck, st.ended_by_rounds);
}

Test(property, each_step_waits_on_exactly_the_seats_the_rules_name)
{
    struct run_stats st = {0};
    play_many(RANDOM_GAMES, -1, 450001, CHK_STEPS, &st);
}

Test(property, every_bot_decision_is_accepted_and_game_check_changes_nothing)
{
    struct run_stats st = {0};
    play_many(RANDOM_GAMES, -1, 600001, CHK_CONST, &st);
    cr_assert_gt(st.decisions, 0);
}

Test(property, defaults_for_missed_decisions_are_legal_and_keep_every_invariant)
{
    struct run_stats st = {0};
    play_many(RANDOM_GAMES, -1, 700001, CHK_DEFAULTS | CHK_CONSERVE | CHK_SCORES | CHK_END, &st);
    cr_assert_gt(st.defaults, 0);
}

Test(property, mutated_decisions_get_a_valid_answer_and_only_legal_ones_pass)
{
    struct run_stats st = {0};
    play_many(RANDOM_GAMES / 2, -1, 800001, CHK_FUZZ | CHK_CONSERVE, &st);
}

/* Whether two events say the same (field by field: padding is no part of an event). */
static bool same_event(const struct city_event *x, const struct city_event *y)
{
    return x->type == y->type && x->seat == y->seat && x->round == y->round && x->step == y->step &&
           x->card == y->card && x->count == y->count && x->total == y->total;
}

/* Plays one game twice in lockstep, the same decisions to both, comparing bytes throughout. */
static void lockstep(uint64_t seed, int players, int kind)
{
    static struct city_game a, b;
    cr_assert_eq(city_new(&a, &cat, players, seed, 0), CITY_OK);
    cr_assert_eq(city_new(&b, &cat, players, seed, 0), CITY_OK);
    cr_assert(memcmp(&a, &b, sizeof a) == 0);
    struct bot bots[CITY_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        city_bot_init(&bots[s], kind, seed ^ (uint64_t)s);
    struct recorder ra = {0}, rb = {0};
    struct city_events ea = {record_event, &ra}, eb = {record_event, &rb};
    while (a.step != CITY_STEP_OVER) {
        for (int s = 0; s < players; s++) {
            struct city_decision d;
            if (!city_bot_decide(&bots[s], &a, s, &d))
                continue;
            cr_assert_eq(city_submit(&a, s, &d), CITY_OK);
            cr_assert_eq(city_submit(&b, s, &d), CITY_OK);
            cr_assert(memcmp(&a, &b, sizeof a) == 0);
        }
        ra.n = rb.n = 0;
        cr_assert(city_resolve(&a, &ea));
        cr_assert(city_resolve(&b, &eb));
        cr_assert(memcmp(&a, &b, sizeof a) == 0, "seed %llu round %d differs",
                  (unsigned long long)seed, a.round);
        cr_assert_eq(ra.n, rb.n);
        for (int k = 0; k < ra.n; k++)
            cr_assert(same_event(&ra.ev[k], &rb.ev[k]));
    }
}

Test(property, the_same_seed_and_decisions_give_a_bit_identical_game)
{
    for (int i = 0; i < 1000; i++)
        lockstep(900001u + (unsigned)i, CITY_MIN_PLAYERS + i % 4, i % 2 ? BOT_GREEDY : BOT_RANDOM);
}

/* A decision log: who decided what, in order, between resolves. */
struct logged {
    int8_t seat; /* -1: resolve */
    struct city_decision d;
};

Test(property, a_game_replayed_from_its_seed_and_decisions_ends_bit_identical)
{
    static struct logged log[4096];
    static struct city_game a, b;
    for (int i = 0; i < 500; i++) {
        int players = CITY_MIN_PLAYERS + i % 4, n = 0;
        uint64_t seed = 990001u + (unsigned)i;
        cr_assert_eq(city_new(&a, &cat, players, seed, 0), CITY_OK);
        struct bot bots[CITY_MAX_PLAYERS];
        for (int s = 0; s < players; s++)
            city_bot_init(&bots[s], (i + s) % 2, seed + (uint64_t)s);
        while (a.step != CITY_STEP_OVER) {
            for (int s = players - 1; s >= 0; s--) { /* any submission order */
                struct city_decision d;
                if (!city_bot_decide(&bots[s], &a, s, &d))
                    continue;
                cr_assert_eq(city_submit(&a, s, &d), CITY_OK);
                cr_assert_lt(n, 4096);
                log[n++] = (struct logged){.seat = (int8_t)s, .d = d};
            }
            cr_assert(city_resolve(&a, NULL));
            log[n++] = (struct logged){.seat = -1};
        }
        cr_assert_eq(city_new(&b, &cat, players, seed, 0), CITY_OK);
        for (int k = 0; k < n; k++) {
            if (log[k].seat < 0)
                cr_assert(city_resolve(&b, NULL));
            else
                cr_assert_eq(city_submit(&b, log[k].seat, &log[k].d), CITY_OK);
        }
        cr_assert(memcmp(&a, &b, sizeof a) == 0, "replay of seed %llu differs",
                  (unsigned long long)seed);
    }
}

Test(property, a_copied_game_plays_on_exactly_like_the_original)
{
    static struct city_game a, b;
    for (int i = 0; i < 100; i++) {
        int players = CITY_MIN_PLAYERS + i % 4;
        cr_assert_eq(city_new(&a, &cat, players, 1234567u + (unsigned)i, 0), CITY_OK);
        struct bot bots[CITY_MAX_PLAYERS];
        for (int s = 0; s < players; s++)
            city_bot_init(&bots[s], BOT_GREEDY, (uint64_t)s);
        bool copied = false;
        while (a.step != CITY_STEP_OVER) {
            if (!copied && a.round == 3) {
                memcpy(&b, &a, sizeof a);
                copied = true;
            }
            for (int s = 0; s < players; s++) {
                struct city_decision d;
                if (!city_bot_decide(&bots[s], &a, s, &d))
                    continue;
                cr_assert_eq(city_submit(&a, s, &d), CITY_OK);
                if (copied)
                    cr_assert_eq(city_submit(&b, s, &d), CITY_OK);
            }
            cr_assert(city_resolve(&a, NULL));
            if (copied) {
                cr_assert(city_resolve(&b, NULL));
                cr_assert(memcmp(&a, &b, sizeof a) == 0);
            }
        }
    }
}
