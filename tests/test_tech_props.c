/* test_tech_props.c: properties of Tech City over thousands of bot games at 1 to 6 players,
 * through the ruleset seam the server uses: cards are conserved, scores never fall, the seed
 * card never leaves, every bot decision is legal, no view shows a secret, stored states load
 * back, a recorded game replays to the same final state, and what the game keeps read off its
 * city (tech_controls(), tech_open_cells()) is what reading the city again gives. */
#include "tech_helpers.h"

TestSuite(tech_props, .init = load_tech);

static const struct ruleset *rs = &ruleset_tech_city;

/* Plays one game with bots of `kinds` (NULL: greedy) on the ruleset table; seats listed in
 * `absent` never decide and get defaults. Calls check(g) after every point; records the
 * decisions as a replay when `replay` is given. */
static void play(struct tech_game *g, int players, uint64_t seed, const char *const *kinds,
                 unsigned absent, void (*check)(const struct tech_game *, const struct tech_game *),
                 json_t *replay)
{
    cr_assert(rs->new_game(g, players, seed, NULL));
    static struct tech_game before;
    json_t *decisions = replay ? json_object_get(replay, "decisions") : NULL;
    while (!rs->over(g)) {
        for (int s = 0; s < players; s++) {
            if (!rs->pending(g, s) || (absent & (1u << s)))
                continue;
            struct tech_decision d;
            cr_assert(rs->bot_decide(g, s, kinds ? kinds[s] : "greedy", &d));
            int e = rs->submit(g, s, &d);
            cr_assert_eq(e, 0, "seed %llu seat %d: bot decision refused: %s",
                         (unsigned long long)seed, s, rs->error_code(e));
        }
        if (!rs->ready(g))
            rs->fill_defaults(g, NULL);
        if (decisions) {
            struct rs_pos pos;
            rs->where(g, &pos);
            for (int s = 0; s < players; s++)
                if (rs->pending(g, s)) {
                    json_t *o = rs->order_to_json(&pos, rs->decision(g, s));
                    cr_assert_not_null(o);
                    json_object_set_new(o, "seat", json_integer(s));
                    json_array_append_new(decisions, o);
                }
        }
        before = *g;
        cr_assert(rs->resolve(g, NULL));
        if (check)
            check(&before, g);
    }
}

static void invariants(const struct tech_game *before, const struct tech_game *g)
{
    cr_assert(tech_check_conservation(g), "cards not conserved (seed %llu, turn %d)",
              (unsigned long long)g->seed, g->turn);
    cr_assert(tk_in(g->city, g->ncity, g->seed_card), "the seed card left the city");
    cr_assert(tech_check_point(g), "inconsistent point (seed %llu, turn %d, step %s)",
              (unsigned long long)g->seed, g->turn, tech_step_name(g->step));
    for (int s = 0; s < g->players; s++)
        cr_assert_geq(g->seats[s].score, before->seats[s].score, "a score fell");
    cr_assert(g->round >= before->round && g->round <= TECH_ROUNDS);
    cr_assert_gt(g->turn, before->turn);
    /* a seat not pending has an empty decision (what lets a point empty only the last one's) */
    static const struct tech_decision empty;
    for (int s = 0; s < TECH_MAX_PLAYERS && g->step != TECH_STEP_OVER; s++)
        cr_assert((g->pending & (1u << s)) || memcmp(&g->dec[s], &empty, sizeof empty) == 0,
                  "seat %d, not pending, has a decision (seed %llu, turn %d)", s,
                  (unsigned long long)g->seed, g->turn);
    /* what the game keeps read off its city is what reading the city again gives, bytes and all */
    static struct tech_game again;
    again = *g;
    tech_city_recount(&again);
    cr_assert(memcmp(&again, g, sizeof again) == 0,
              "the kept open cells or companies differ from the city's (seed %llu, turn %d)",
              (unsigned long long)g->seed, g->turn);
}

Test(tech_props, cards_are_conserved_and_scores_never_fall_in_thousands_of_games)
{
    static const char *const greedy[] = {"greedy", "greedy", "greedy",
                                         "greedy", "greedy", "greedy"};
    static const char *const random[] = {"random", "random", "random",
                                         "random", "random", "random"};
    static const char *const mixed[] = {"random", "greedy", "random", "greedy", "random", "greedy"};
    const char *const *kinds[] = {greedy, random, mixed};
    static struct tech_game g;
    int games = 0;
    for (int p = 1; p <= 6; p++)
        for (uint64_t seed = 0; seed < 200; seed++, games++) {
            play(&g, p, seed * 7919 + (uint64_t)p, kinds[seed % 3], seed % 5 == 4 ? 1u : 0,
                 invariants, NULL);
            cr_assert_eq(g.round, TECH_ROUNDS);
            cr_assert_neq(g.winners, 0);
        }
    cr_assert_eq(games, 1200);
}

/* ---- secrecy ------------------------------------------------------------------------------ */

/* Cards anyone may see: in the city, the discard pile, expelled, revealed. */
static bool public_card(const struct tech_game *g, int c)
{
    return tk_in(g->city, g->ncity, c) || tk_in(g->discard, g->ndiscard, c) ||
           tk_in(g->expelled, g->nexpelled, c) || tk_in(g->revealed, g->nrevealed, c);
}

/* Walks a view: every card id it names (keys id, card, take; arrays pay, cards) must be public
 * or in seat's hand (seat -1: public only). */
static void walk(const struct tech_game *g, int seat, const json_t *v, const char *key)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)(uintptr_t)v, k, x)
        {
            cr_assert(strcmp(k, "deck") != 0, "a view holds the deck");
            cr_assert(seat >= 0 || strcmp(k, "hand") != 0, "the public view holds a hand");
            walk(g, seat, x, k);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) walk(g, seat, x, key);
    } else if (json_is_integer(v) && key &&
               (!strcmp(key, "id") || !strcmp(key, "card") || !strcmp(key, "take") ||
                !strcmp(key, "pay") || !strcmp(key, "cards"))) {
        int c = (int)json_integer_value(v);
        cr_assert(public_card(g, c) || (seat >= 0 && tk_in_hand(g, seat, c)),
                  "seat %d's view names secret card %d under \"%s\"", seat, c, key);
    }
}

static void secrecy(const struct tech_game *before, const struct tech_game *g)
{
    (void)before;
    json_t *pv = rs->public_view(g);
    walk(g, -1, pv, NULL);
    cr_assert_eq(json_object_get(pv, "seed") != NULL, rs->over(g), "the seed shows before the end");
    json_decref(pv);
    for (int s = 0; s < g->players; s++) {
        json_t *v = ruleset_private_view(rs, g, s);
        walk(g, s, v, NULL);
        json_t *hand = json_object_get(v, "hand");
        cr_assert_eq((int)json_array_size(hand), g->seats[s].nhand);
        json_t *pending = json_object_get(v, "pending");
        cr_assert_eq(json_is_object(pending), rs->pending(g, s));
        if (json_is_object(pending)) {
            /* the suggestion is a complete legal order body */
            json_t *sug = json_object_get(pending, "suggestion");
            cr_assert_not_null(sug);
            struct rs_pos pos, now;
            struct tech_decision d;
            char err[200];
            cr_assert_null(rs->order_from_json(sug, &pos, &d, err, sizeof err), "%s", err);
            rs->where(g, &now);
            cr_assert(pos.round == now.round && pos.step == now.step && pos.turn == now.turn);
            static struct tech_game copy;
            copy = *g;
            cr_assert_eq(rs->submit(&copy, s, &d), 0);
        }
        json_decref(v);
    }
}

Test(tech_props, no_view_shows_a_secret_and_every_suggestion_is_legal)
{
    static struct tech_game g;
    static const char *const mixed[] = {"random", "greedy", "random", "greedy", "random", "greedy"};
    for (int p = 1; p <= 6; p++)
        for (uint64_t seed = 0; seed < 6; seed++)
            play(&g, p, seed + 500, seed % 2 ? mixed : NULL, 0, secrecy, NULL);
}

/* ---- storage and replay --------------------------------------------------------------------- */

static void round_trip(const struct tech_game *before, const struct tech_game *g)
{
    (void)before;
    json_t *j = rs->to_json(g);
    char *a = json_dumps(j, JSON_SORT_KEYS);
    static struct tech_game back;
    char err[256] = "";
    cr_assert(rs->from_json(&back, j, err, sizeof err), "turn %d: %s", g->turn, err);
    json_t *j2 = rs->to_json(&back);
    char *b = json_dumps(j2, JSON_SORT_KEYS);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    json_decref(j);
    json_decref(j2);
}

Test(tech_props, stored_states_load_back_at_every_point)
{
    static struct tech_game g;
    for (int p = 1; p <= 6; p++)
        for (uint64_t seed = 0; seed < 5; seed++)
            play(&g, p, seed + 900, NULL, seed == 4 ? 2u : 0, round_trip, NULL);
}

Test(tech_props, a_recorded_game_replays_to_the_same_final_state)
{
    static struct tech_game g, again;
    static const char *const mixed[] = {"random", "greedy", "random", "greedy", "random", "greedy"};
    for (int p = 1; p <= 6; p++)
        for (uint64_t seed = 0; seed < 8; seed++) {
            json_t *replay = json_pack("{s:s, s:i, s:[]}", "seed", "0", "players", p, "decisions");
            char buf[24];
            uint64_t gseed = seed * 1000003 + 77;
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)gseed);
            json_object_set_new(replay, "seed", json_string(buf));
            play(&g, p, gseed, seed % 2 ? mixed : NULL, 0, NULL, replay);
            char err[256] = "";
            cr_assert(rs->replay_run(replay, &again, err, sizeof err), "%s", err);
            json_t *a = rs->to_json(&g), *b = rs->to_json(&again);
            cr_assert(json_equal(a, b), "players %d seed %llu: the replay ends elsewhere", p,
                      (unsigned long long)gseed);
            cr_assert_eq(memcmp(&g, &again, sizeof g), 0);
            json_decref(a);
            json_decref(b);
            json_decref(replay);
        }
}

/* The replay viewer's rounds: one entry per round in order, each a public view at that round's
 * end, the last one the game's final public view. */
Test(tech_props, a_replay_read_round_by_round_ends_at_the_final_public_view)
{
    static struct tech_game g;
    for (int p = 1; p <= 4; p++) {
        json_t *replay = json_pack("{s:s, s:i, s:[]}", "seed", "4242", "players", p, "decisions");
        play(&g, p, 4242, NULL, 0, NULL, replay);
        char err[256] = "";
        json_t *rounds = ruleset_replay_rounds(rs, replay, err, sizeof err);
        cr_assert_not_null(rounds, "%s", err);
        size_t n = json_array_size(rounds);
        cr_assert_geq(n, 2, "a start and at least one round");
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(rounds, i);
            cr_expect_eq(json_integer_value(json_object_get(e, "round")), (long long)i,
                         "players %d: entry %zu names its round", p, i);
        }
        json_t *last = json_object_get(json_array_get(rounds, n - 1), "view");
        json_t *final = rs->public_view(&g);
        cr_expect(json_equal(last, final), "players %d: the last round is the final view", p);
        json_decref(final);
        json_decref(rounds);
        json_decref(replay);
    }
}

Test(tech_props, the_ruleset_table_is_complete)
{
    cr_assert_str_eq(rs->id, "tech_city");
    cr_assert(rs->uses_turn && rs->noptions == 1 && strcmp(rs->options[0].name, "decks") == 0);
    cr_assert_leq(rs->state_size, RS_MAX_STATE);
    cr_assert_leq(rs->decision_size, 4096);
    const void *const *fns = (const void *const *)&rs->load_cards;
    size_t n = (sizeof *rs - offsetof(struct ruleset, load_cards)) / sizeof(void *);
    for (size_t i = 0; i < n; i++)
        cr_assert_not_null(fns[i], "function %zu of the table is missing", i);
    cr_assert_eq(ruleset_step_from_name(rs, "discard"), TECH_STEP_DISCARD);
    cr_assert_str_eq(rs->bots[0], "greedy");
    json_t *cards = rs->cards_json();
    cr_assert_eq(json_array_size(json_object_get(cards, "cards")), 53);
    json_decref(cards);
}

/* ---- the greedy bot reads no secret --------------------------------------------------------- */

/* Shuffles what seat may not see: the deck's order and the other hands' cards (each keeps its
 * count), drawing the new cards from the deck and the other hands together. */
static void scramble(struct tech_game *g, int seat, struct city_rng *r)
{
    uint8_t pool[TECH_MAX_CARDS];
    int n = 0;
    for (int i = 0; i < g->ndeck; i++)
        pool[n++] = g->deck[i];
    for (int s = 0; s < g->players; s++)
        if (s != seat)
            for (int i = 0; i < g->seats[s].nhand; i++)
                pool[n++] = g->seats[s].hand[i];
    rng_shuffle(r, pool, n);
    int k = 0;
    for (int i = 0; i < g->ndeck; i++)
        g->deck[i] = pool[k++];
    for (int s = 0; s < g->players; s++)
        if (s != seat)
            for (int i = 0; i < g->seats[s].nhand; i++)
                g->seats[s].hand[i] = pool[k++];
}

Test(tech_props, the_greedy_bot_decides_the_same_whatever_it_cannot_see)
{
    static struct tech_game g, other;
    struct city_rng r;
    rng_seed(&r, 99);
    int compared = 0;
    for (int p = 2; p <= 6; p++)
        for (uint64_t seed = 0; seed < 12; seed++) {
            cr_assert(rs->new_game(&g, p, seed + 3000, NULL));
            while (!rs->over(&g)) {
                for (int s = 0; s < p; s++) {
                    if (!rs->pending(&g, s))
                        continue;
                    struct tech_decision d, e;
                    cr_assert(rs->bot_decide(&g, s, "greedy", &d));
                    other = g;
                    scramble(&other, s, &r);
                    cr_assert(rs->bot_decide(&other, s, "greedy", &e));
                    cr_assert_eq(memcmp(&d, &e, sizeof d), 0,
                                 "seat %d's greedy decision changed with hidden cards (turn %d, "
                                 "step %s)",
                                 s, g.turn, tech_step_name(g.step));
                    compared++;
                    cr_assert_eq(rs->submit(&g, s, &d), 0);
                }
                rs->resolve(&g, NULL);
            }
        }
    cr_assert_gt(compared, 1000);
}

/* The expert's deals of the hidden cards (determinize) keep a game whole: from every seat's
 * view, at every point of bot games at 2 to 6 players, the dealt game conserves its cards and
 * is a consistent point (a service waiting for help names a card its builder holds), and so is
 * every point of the first rounds played on from it by greedy bots. */
static int dealt;

static void deals_keep_the_game_whole(const struct tech_game *before, const struct tech_game *g)
{
    (void)before;
    static struct tech_game copy;
    for (int seat = 0; seat < g->players && !rs->over(g); seat++) {
        memcpy(&copy, g, sizeof copy);
        struct city_rng r;
        rng_seed(&r, (uint64_t)g->turn * 31 + (uint64_t)seat);
        rs->determinize(&copy, seat, &r);
        dealt++;
        for (int k = 0; k < 12 && !rs->over(&copy); k++) {
            cr_assert(tech_check_conservation(&copy),
                      "seed %llu turn %d, dealt for seat %d: "
                      "cards not conserved %d points on",
                      (unsigned long long)g->seed, g->turn, seat, k);
            cr_assert(tech_check_point(&copy),
                      "seed %llu turn %d, dealt for seat %d: "
                      "inconsistent point %d points on (step %s)",
                      (unsigned long long)g->seed, g->turn, seat, k, tech_step_name(copy.step));
            for (int s = 0; s < copy.players; s++) {
                struct tech_decision d;
                if (rs->pending(&copy, s) && !rs->submitted(&copy, s) &&
                    rs->bot_decide(&copy, s, "greedy", &d))
                    rs->submit(&copy, s, &d);
            }
            if (!rs->ready(&copy))
                rs->fill_defaults(&copy, NULL);
            cr_assert(rs->resolve(&copy, NULL));
        }
    }
}

Test(tech_props, the_experts_deals_of_hidden_cards_keep_every_card_in_one_place)
{
    static struct tech_game g;
    for (int p = 2; p <= 6; p++)
        for (uint64_t seed = 1; seed <= 2; seed++)
            play(&g, p, seed * 7717 + (uint64_t)p, NULL, 0, deals_keep_the_game_whole, NULL);
    cr_expect_gt(dealt, 1000, "only %d deals", dealt);
}
