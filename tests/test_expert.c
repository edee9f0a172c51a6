/* test_expert.c: the expert bot (information-set Monte Carlo tree search, src/engine/expert.c)
 * on every hosted game, through the ruleset table: it never sees what its seat may not know
 * (the decision is the same however the hidden cards really lie), it is deterministic for a
 * number of iterations, its decisions are always legal, a game of experts replays exactly, and
 * the determinization it searches over keeps everything the seat knows; pauses in its yield hook
 * (the server's bot pool giving way to people) cost it no playouts. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expert.h"
#include "the_city/city.h"
#include "ruleset.h"
#include "tech_city/tech.h"

static void load(void)
{
    const char *root = getenv("CITY_ROOT");
    for (int i = 0; rulesets[i]; i++) {
        char path[4096], err[512] = "";
        snprintf(path, sizeof path, "%s/cards/%s", root && *root ? root : ".",
                 rulesets[i]->cards_file);
        cr_assert(rulesets[i]->load_cards(path, err, (int)sizeof err), "%s: %s", path, err);
    }
}

TestSuite(expert, .init = load, .timeout = 300);

/* Few iterations and no clock: the search is then a function of the state alone. */
static const struct expert_params quick = {
    .iterations = 40, .think_ms = 0, .rollout = "greedy", .candidates = 12};

static _Alignas(max_align_t) char state[2][RS_MAX_STATE];

/* The same game with everything `seat` may not see dealt anew (the deck's order, the other
 * hands, the face-down piles), but the game's own seed and random stream kept: what a test
 * would change to catch a bot that peeks. */
static void reshuffle_hidden(const struct ruleset *rs, const void *g, void *out, int seat,
                             uint64_t salt)
{
    memcpy(out, g, rs->state_size);
    struct city_rng r;
    rng_seed(&r, salt);
    rs->determinize(out, seat, &r);
    if (strcmp(rs->id, "the_city") == 0) {
        ((struct city_game *)out)->seed = ((const struct city_game *)g)->seed;
        ((struct city_game *)out)->rng = ((const struct city_game *)g)->rng;
    } else {
        ((struct tech_game *)out)->seed = ((const struct tech_game *)g)->seed;
        ((struct tech_game *)out)->rng = ((const struct tech_game *)g)->rng;
    }
}

/* Advances g by `points` decision points with greedy bots for every seat. */
static void advance(const struct ruleset *rs, void *g, int points)
{
    _Alignas(max_align_t) char d[4096];
    for (int k = 0; k < points && !rs->over(g); k++) {
        for (int s = 0; s < rs->players(g); s++)
            if (rs->pending(g, s) && !rs->submitted(g, s)) {
                memset(d, 0, rs->decision_size);
                cr_assert(rs->bot_decide(g, s, "greedy", d));
                cr_assert_eq(rs->submit(g, s, d), 0);
            }
        if (!rs->ready(g))
            rs->fill_defaults(g, NULL);
        cr_assert(rs->resolve(g, NULL));
    }
}

/* The first seat that must decide, or -1. */
static int deciding(const struct ruleset *rs, const void *g)
{
    for (int s = 0; s < rs->players(g); s++)
        if (rs->pending(g, s))
            return s;
    return -1;
}

Test(expert, the_decision_does_not_depend_on_where_the_hidden_cards_are)
{
    for (int i = 0; rulesets[i]; i++) {
        const struct ruleset *rs = rulesets[i];
        int checked = 0;
        for (uint64_t seed = 1; seed <= 6; seed++) {
            int players = 2 + (int)(seed % 3);
            cr_assert(rs->new_game(state[0], players, seed, NULL));
            advance(rs, state[0], (int)(seed * 2)); /* points well inside a game */
            int seat = deciding(rs, state[0]);
            if (seat < 0)
                continue;
            _Alignas(max_align_t) char a[4096], b[4096];
            memset(a, 0, sizeof a);
            cr_assert(expert_decide(rs, state[0], seat, &quick, a, NULL));
            for (uint64_t salt = 1; salt <= 3; salt++) {
                reshuffle_hidden(rs, state[0], state[1], seat, salt * 7777 + seed);
                json_t *mine0 = rs->private_view(state[0], seat);
                json_t *mine1 = rs->private_view(state[1], seat);
                cr_assert(json_equal(mine0, mine1),
                          "%s: the reshuffle must keep what seat %d knows", rs->id, seat);
                json_decref(mine0);
                json_decref(mine1);
                memset(b, 0, sizeof b);
                cr_assert(expert_decide(rs, state[1], seat, &quick, b, NULL));
                cr_assert_eq(memcmp(a, b, rs->decision_size), 0,
                             "%s seed %llu: the expert's decision changed with the hidden cards",
                             rs->id, (unsigned long long)seed);
            }
            checked++;
        }
        cr_assert_geq(checked, 4, "%s: positions checked", rs->id);
    }
}

/* Sets state[0] to a 3-player game of rs (seed 99) four points in, and returns a seat that must
 * decide there. */
static int three_player_position(const struct ruleset *rs)
{
    cr_assert(rs->new_game(state[0], 3, 99, NULL));
    advance(rs, state[0], 4);
    int seat = deciding(rs, state[0]);
    cr_assert_geq(seat, 0);
    return seat;
}

Test(expert, the_search_is_deterministic_for_a_number_of_iterations)
{
    for (int i = 0; rulesets[i]; i++) {
        const struct ruleset *rs = rulesets[i];
        int seat = three_player_position(rs);
        _Alignas(max_align_t) char a[4096] = {0}, b[4096] = {0};
        struct expert_stats st;
        cr_assert(expert_decide(rs, state[0], seat, &quick, a, &st));
        cr_assert(expert_decide(rs, state[0], seat, &quick, b, NULL));
        cr_assert_eq(memcmp(a, b, rs->decision_size), 0, "%s", rs->id);
        cr_assert(st.candidates == 1 || st.iterations == quick.iterations,
                  "%s: %d iterations over %d candidates", rs->id, st.iterations, st.candidates);
    }
}

Test(expert, says_why_with_the_same_decision_and_a_different_runner_up)
{
    for (int i = 0; rulesets[i]; i++) {
        const struct ruleset *rs = rulesets[i];
        int seat = three_player_position(rs);
        _Alignas(max_align_t) char a[4096] = {0}, b[4096] = {0}, r[4096] = {0};
        struct expert_why why = {.runner_up = r};
        struct expert_stats st;
        cr_assert(expert_decide(rs, state[0], seat, &quick, a, NULL));
        cr_assert(expert_decide_why(rs, state[0], seat, &quick, b, &st, &why));
        cr_assert_eq(memcmp(a, b, rs->decision_size), 0, "%s: the same decision", rs->id);
        if (st.candidates < 2)
            continue;
        cr_assert_gt(why.best.playouts, 0, "%s", rs->id);
        cr_assert(why.best.win >= 0 && why.best.win <= 1, "%s: %g", rs->id, why.best.win);
        cr_assert(why.has_runner_up, "%s", rs->id);
        cr_assert_gt(why.runner.playouts, 0, "%s", rs->id);
        cr_assert(why.runner.win >= 0 && why.runner.win <= 1, "%s", rs->id);
        cr_assert_neq(memcmp(b, r, rs->decision_size), 0, "%s: the runner-up differs", rs->id);
        cr_assert_eq(rs->submit(memcpy(state[1], state[0], rs->state_size), seat, r), 0,
                     "%s: the runner-up is legal", rs->id);
    }
}

/* A yield hook that claims a long pause on each call without taking one, and counts calls. */
static double claim_pause(void *ctx)
{
    ++*(int *)ctx;
    return 1000.0;
}

Test(expert, pauses_in_the_yield_hook_do_not_count_against_the_thinking_time)
{
    for (int i = 0; rulesets[i]; i++) {
        const struct ruleset *rs = rulesets[i];
        int seat = three_player_position(rs);
        _Alignas(max_align_t) char a[4096] = {0}, b[4096] = {0};
        cr_assert(expert_decide(rs, state[0], seat, &quick, a, NULL));
        /* 10 s of thinking, each playout "paused" for 1 s: were the pauses counted, the search
         * would stop after ten playouts instead of running its 40. */
        int calls = 0;
        struct expert_params p = quick;
        p.think_ms = 10000;
        p.yield = claim_pause;
        p.yield_ctx = &calls;
        struct expert_stats st;
        cr_assert(expert_decide(rs, state[0], seat, &p, b, &st));
        cr_assert(st.candidates == 1 || st.iterations == quick.iterations, "%s: %d iterations",
                  rs->id, st.iterations);
        cr_assert(st.candidates == 1 || calls >= quick.iterations, "%s: %d calls", rs->id, calls);
        cr_assert_geq(st.yield_ms, 1000.0 * st.iterations, "%s", rs->id);
        cr_assert_lt(st.ms, 10000, "%s: the pauses are not thinking time", rs->id);
        cr_assert_eq(memcmp(a, b, rs->decision_size), 0, "%s: the same decision", rs->id);
    }
}

/* Plays a game with the expert at every seat, checking each decision is legal, and records it
 * as a replay. */
static json_t *expert_game(const struct ruleset *rs, int players, uint64_t seed)
{
    cr_assert(rs->new_game(state[0], players, seed, NULL));
    json_t *replay = json_pack("{s:s, s:s, s:i, s:[]}", "game", rs->id, "seed", "0", "players",
                               players, "decisions");
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
    json_object_set_new(replay, "seed", json_string(buf));
    json_object_update_new(replay, ruleset_options_json(rs, state[0]));
    _Alignas(max_align_t) char d[4096];
    for (int guard = 0; guard < 5000 && !rs->over(state[0]); guard++) {
        for (int s = 0; s < players; s++) {
            if (!rs->pending(state[0], s))
                continue;
            memset(d, 0, sizeof d);
            cr_assert(expert_decide(rs, state[0], s, &quick, d, NULL));
            int e = rs->submit(state[0], s, d);
            cr_assert_eq(e, 0, "%s seed %llu seat %d: the expert's decision was refused: %s",
                         rs->id, (unsigned long long)seed, s, rs->error_code(e));
        }
        cr_assert(rs->ready(state[0]));
        struct rs_pos pos;
        rs->where(state[0], &pos);
        for (int s = 0; s < players; s++)
            if (rs->pending(state[0], s)) {
                json_t *o = rs->order_to_json(&pos, rs->decision(state[0], s));
                json_object_set_new(o, "seat", json_integer(s));
                json_array_append_new(json_object_get(replay, "decisions"), o);
            }
        cr_assert(rs->resolve(state[0], NULL));
    }
    cr_assert(rs->over(state[0]), "%s: the game ends", rs->id);
    return replay;
}

Test(expert, its_decisions_are_legal_and_a_game_of_experts_replays_exactly)
{
    for (int i = 0; rulesets[i]; i++) {
        const struct ruleset *rs = rulesets[i];
        json_t *replay = expert_game(rs, 4, 2024 + (uint64_t)i);
        char err[256] = "";
        cr_assert(rs->replay_run(replay, state[1], err, sizeof err), "%s: %s", rs->id, err);
        json_t *a = rs->to_json(state[0]), *b = rs->to_json(state[1]);
        cr_assert(json_equal(a, b), "%s: the replay of four experts ends elsewhere", rs->id);
        json_decref(a);
        json_decref(b);
        json_decref(replay);
    }
}

Test(expert, a_seat_with_nothing_to_decide_gets_no_decision)
{
    for (int i = 0; rulesets[i]; i++) {
        const struct ruleset *rs = rulesets[i];
        cr_assert(rs->new_game(state[0], 2, 5, NULL));
        for (int s = 0; s < 2; s++) {
            _Alignas(max_align_t) char d[4096];
            bool pending = rs->pending(state[0], s);
            cr_assert_eq(expert_decide(rs, state[0], s, &quick, d, NULL), pending, "%s seat %d",
                         rs->id, s);
        }
    }
}
