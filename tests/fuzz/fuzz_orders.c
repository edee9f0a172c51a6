/* fuzz_orders.c: the libFuzzer target for the path an order takes through the service — the
 * body parsed as src/http.c parses it, read by city_order_from_json() as api_orders() does, made
 * canonical with city_order_to_json(), then given to city_submit() on a real game, resolved when
 * the step is ready — checking on the way that nothing crashes, leaks or misbehaves and that the
 * engine's promises hold: a refused submit changes nothing, an accepted one is stored as sent,
 * the canonical body reads back as the same order, the state survives city_to_json() and
 * city_from_json() byte for byte, and every card stays in exactly one place.
 *
 * An input is two selector bytes and the body: byte 0 picks one of NSTATES game states prepared
 * once by bots (every player count, steps keep, build, survey, hand_limit and a finished game,
 * some with other seats already decided), byte 1 picks the seat (low 3 bits: 0..4 are seats,
 * seats past the player count and 7 = -1 are bad seats); after an accepted submit the step
 * resolves, the other seats' missing decisions filled with their defaults, unless bit 3 of byte
 * 1 is set, in which case it resolves only if it is ready. The rest is the body.
 *
 * When bit 4 of byte 1 is set, the body is instead a stored state, read as the service loads a
 * game row (json_loads without flags, then city_from_json()): a state it accepts must keep every
 * card in one place, survive the JSON round trip byte for byte, show its views, and go on under
 * bots for a few steps, as city_json.h promises. The body's round
 * and step are not compared with the game's (the service refuses a stale order before the engine
 * sees it): every decision meets every state.
 *
 * With CITY_FUZZ_TRACE set, each input prints a line or two: the state, the seat and what
 * became of the order (to see what a seed or a crash input reaches). With CITY_FUZZ_WRITE_SEEDS=DIR
 * it writes legal and nearly legal orders for a spread of the prepared states into DIR and exits:
 * that is how tests/fuzz/corpus/fuzz_orders/seed-* were made (hand-* were written by hand). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "the_city/city_bots.h"
#include "the_city/city_cards.h"
#include "the_city/city.h"
#include "the_city/city_json.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The prepared states: byte 0 of an input indexes them. */
enum { NSTATES = 256, SELECTOR_BYTES = 2, FLAG_NO_DEFAULTS = 0x08, FLAG_STATE = 0x10 };

/* Steps a stored state accepted in state mode is played on by bots. */
enum { STATE_STEPS = 3 };

/* How many of the prepared states are in each step (the rest are build states). */
static const int state_quota[CITY_STEP_COUNT] = {[CITY_STEP_KEEP] = 24,
                                                 [CITY_STEP_SURVEY] = 48,
                                                 [CITY_STEP_HAND_LIMIT] = 48,
                                                 [CITY_STEP_OVER] = 8};

/* The flags the daemon parses a body with (src/http.c, dispatch). */
enum { BODY_FLAGS = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY };

static struct city_catalog cat;
static struct city_game states[NSTATES];
static bool trace; /* CITY_FUZZ_TRACE is set */

/* Aborts (so libFuzzer reports the input) with a sentence saying which promise broke. */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_orders: " __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* ---- preparing the states ----------------------------------------------------------------- */

/* Candidate states by step, gathered from bot games before the table is filled. */
enum { MAX_CANDIDATES = 4096 };
static struct city_game *candidates[CITY_STEP_COUNT];
static int ncandidates[CITY_STEP_COUNT];

static void keep_candidate(const struct city_game *g)
{
    int step = g->step;
    if (ncandidates[step] < MAX_CANDIDATES)
        memcpy(&candidates[step][ncandidates[step]++], g, sizeof *g);
}

/* Plays bot game number `k` to its end (players 2..5 in turn, greedy and random bots mixed),
 * keeping each step's state before anyone decides and, every other step, again once all pending
 * seats but the last have decided. */
static void play_bot_game(int k)
{
    struct city_game g;
    struct bot bots[CITY_MAX_PLAYERS];
    int players = CITY_MIN_PLAYERS + k % 4;
    uint64_t seed = 0x5eedULL + (uint64_t)k;
    REQUIRE(city_new(&g, &cat, players, seed, k % 7 == 3 ? 25 : 0) == CITY_OK, "city_new");
    for (int s = 0; s < players; s++)
        city_bot_init(&bots[s], (k >> 2 >> s) & 1 ? BOT_GREEDY : BOT_RANDOM,
                      seed * 7 + (uint64_t)s);
    for (int n = 0; g.step != CITY_STEP_OVER; n++) {
        keep_candidate(&g);
        int last = -1;
        for (int s = 0; s < players; s++)
            if (game_seat_pending(&g, s))
                last = s;
        for (int s = 0; s < players; s++) {
            struct city_decision d;
            if (s == last && n % 2)
                keep_candidate(&g);
            if (city_bot_decide(&bots[s], &g, s, &d))
                REQUIRE(city_submit(&g, s, &d) == CITY_OK, "a bot's decision was refused");
        }
        REQUIRE(city_resolve(&g, NULL), "a ready step did not resolve");
    }
    keep_candidate(&g);
}

/* Fills states[] from the candidates: each step's quota spread evenly over its candidates. */
static void fill_states(void)
{
    int n = 0;
    for (int step = 0; step < CITY_STEP_COUNT; step++) {
        int quota = step == CITY_STEP_BUILD ? 0 : state_quota[step];
        for (int i = 0; i < quota && ncandidates[step] > 0; i++)
            states[n++] = candidates[step][(long)i * ncandidates[step] / quota];
    }
    int builds = NSTATES - n;
    for (int i = 0; i < builds; i++)
        states[n++] = candidates[CITY_STEP_BUILD][(long)i * ncandidates[CITY_STEP_BUILD] / builds];
}

/* ---- seeds (CITY_FUZZ_WRITE_SEEDS) -------------------------------------------------------- */

/* Writes one seed: selector bytes for state `index` and seat `seat`, then the order body of
 * decision `d` for the state's round and step (build once the game is over). */
static void write_seed(const char *dir, const char *name, int index, int seat,
                       const struct city_decision *d)
{
    const struct city_game *g = &states[index];
    json_t *body =
        city_order_to_json(g->round, g->step == CITY_STEP_OVER ? CITY_STEP_BUILD : g->step, d);
    REQUIRE(body, "no body for a seed decision");
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    char path[4096];
    snprintf(path, sizeof path, "%s/seed-%03d-%s", dir, index, name);
    FILE *f = fopen(path, "wb");
    REQUIRE(f, "cannot write %s", path);
    fputc(index, f);
    fputc(seat, f);
    fputs(text, f);
    fclose(f);
    free(text);
}

/* The first `n` cards of `s`'s hand other than cards `a` and `b`, into out; false when there
 * are too few. */
static bool pay_with(const struct city_seat *s, int a, int b, int skip, int n, uint8_t *out)
{
    int k = 0;
    for (int i = 0; i < s->nhand && k < n; i++)
        if (s->hand[i] != a && s->hand[i] != b && skip-- <= 0)
            out[k++] = s->hand[i];
    return k == n;
}

/* Writes the seeds for seat `seat` of state `index`: each legal shape the step offers, and near
 * misses that only the engine can refuse. */
static void write_state_seeds(const char *dir, int index, int seat)
{
    const struct city_game *g = &states[index];
    const struct city_seat *s = &g->seats[seat < g->players ? seat : 0];
    struct city_decision d = {0};
    if (g->step != CITY_STEP_BUILD && g->step != CITY_STEP_OVER) {
        int n = city_discard_count(g, seat);
        d.kind = CITY_DEC_DISCARD;
        d.ndiscard = (uint8_t)n;
        memcpy(d.discard, s->hand, (size_t)n);
        write_seed(dir, "discard", index, seat, &d);
        if (n >= 2) {
            d.discard[1] = d.discard[0];
            write_seed(dir, "discard-twice", index, seat, &d);
        }
        d.ndiscard = (uint8_t)(n + 1 <= s->nhand ? n + 1 : 0);
        memcpy(d.discard, s->hand, d.ndiscard);
        write_seed(dir, "discard-count", index, seat, &d);
        return;
    }
    d.kind = CITY_DEC_SURVEY;
    write_seed(dir, "survey", index, seat, &d);
    struct city_build_options o;
    city_build_options(g, seat, &o);
    if (o.contractor) {
        d = (struct city_decision){.kind = CITY_DEC_CONTRACTOR};
        write_seed(dir, "contractor", index, seat, &d);
    }
    if (o.nbuilds > 0) {
        d = (struct city_decision){.kind = CITY_DEC_BUILD, .nbuilds = 1};
        d.builds[0].card = o.card[0];
        d.builds[0].npay = o.cost[0];
        REQUIRE(pay_with(s, o.card[0], -1, 0, o.cost[0], d.builds[0].pay), "cannot pay");
        write_seed(dir, "build", index, seat, &d);
        if (o.cost[0] > 0) {
            d.builds[0].npay--;
            write_seed(dir, "build-underpaid", index, seat, &d);
        }
    }
    struct city_pair p;
    if (city_double_pairs(g, seat, &p, 1) > 0) {
        d = (struct city_decision){.kind = CITY_DEC_BUILD_TWO, .nbuilds = 2};
        d.builds[0].card = p.a;
        d.builds[0].npay = p.cost_a;
        d.builds[1].card = p.b;
        d.builds[1].npay = p.cost_b;
        REQUIRE(pay_with(s, p.a, p.b, 0, p.cost_a, d.builds[0].pay) &&
                    pay_with(s, p.a, p.b, p.cost_a, p.cost_b, d.builds[1].pay),
                "cannot pay for a pair");
        write_seed(dir, "builds", index, seat, &d);
    }
}

/* Writes state-mode seeds: the stored state of state `index`, and the same with a card
 * duplicated (which city_from_json() must refuse). */
static void write_state_text_seeds(const char *dir, int index)
{
    json_t *j = city_to_json(&states[index]);
    REQUIRE(j, "city_to_json returned NULL");
    for (int broken = 0; broken < 2; broken++) {
        if (broken) {
            json_t *deck = json_object_get(j, "deck");
            REQUIRE(json_array_size(deck) >= 2, "a prepared state has no deck");
            json_array_set(deck, 0, json_array_get(deck, 1));
        }
        char *text = json_dumps(j, JSON_COMPACT);
        char path[4096];
        snprintf(path, sizeof path, "%s/seed-%03d-%s", dir, index, broken ? "state-dup" : "state");
        FILE *f = fopen(path, "wb");
        REQUIRE(f && text, "cannot write %s", path);
        fputc(index, f);
        fputc(FLAG_STATE, f);
        fputs(text, f);
        fclose(f);
        free(text);
    }
    json_decref(j);
}

/* Writes seeds for a spread of states of every step (the first and every 16th of each step,
 * for their first pending seat) and for the first seat of any state that has a double build;
 * and state-mode seeds of the second state of each step and of the first where a seat has
 * decided. */
static void write_seeds(const char *dir)
{
    int last_step = -1, same = 0;
    unsigned submitted_seen = 0; /* steps with a stored state where a seat has decided */
    for (int i = 0; i < NSTATES; i++) {
        const struct city_game *g = &states[i];
        same = g->step == last_step ? same + 1 : 0;
        last_step = g->step;
        int seat = 0;
        while (seat < g->players && !game_seat_pending(g, seat))
            seat++;
        if (same % 16 == 0)
            write_state_seeds(dir, i, seat);
        if (same == 1)
            write_state_text_seeds(dir, i);
        bool decided = false;
        for (int k = 0; k < g->players; k++)
            decided = decided || g->seats[k].submitted;
        if (decided && !(submitted_seen & 1u << g->step)) {
            submitted_seen |= 1u << g->step;
            write_state_text_seeds(dir, i);
        }
    }
    for (int i = 0; i < NSTATES; i++)
        for (int seat = 0; seat < states[i].players; seat++)
            if (city_double_pairs(&states[i], seat, NULL, 0) > 0) {
                write_state_seeds(dir, i, seat);
                return;
            }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *root = getenv("CITY_ROOT");
    char path[4096], err[512] = "";
    snprintf(path, sizeof path, "%s/cards/cards.json", root && *root ? root : ".");
    if (!city_catalog_load_file(&cat, path, err, (int)sizeof err)) {
        fprintf(stderr, "fuzz_orders: cannot load %s: %s (set CITY_ROOT)\n", path, err);
        exit(1);
    }
    for (int step = 0; step < CITY_STEP_COUNT; step++) {
        candidates[step] = malloc(MAX_CANDIDATES * sizeof *candidates[step]);
        REQUIRE(candidates[step], "out of memory");
    }
    for (int k = 0; k < 64; k++)
        play_bot_game(k);
    for (int step = 0; step < CITY_STEP_COUNT; step++)
        REQUIRE(ncandidates[step] > 0, "no state in step %s", city_step_name(step));
    fill_states();
    fprintf(stderr, "fuzz_orders: %d states from bot games (candidates:", NSTATES);
    for (int step = 0; step < CITY_STEP_COUNT; step++)
        fprintf(stderr, " %s %d", city_step_name(step), ncandidates[step]);
    fprintf(stderr, ")\n");
    for (int step = 0; step < CITY_STEP_COUNT; step++)
        free(candidates[step]);
    for (int i = 0; i < NSTATES; i++)
        REQUIRE(city_check_conservation(&states[i]), "prepared state %d breaks conservation", i);
    trace = getenv("CITY_FUZZ_TRACE") != NULL;
    const char *seeds = getenv("CITY_FUZZ_WRITE_SEEDS");
    if (seeds && *seeds) {
        write_seeds(seeds);
        exit(0);
    }
    return 0;
}

/* ---- one input ---------------------------------------------------------------------------- */

/* Checks each event a resolution emits names a seat of the game (or none) and a real card. */
static void check_event(void *ctx, const struct city_event *ev)
{
    const struct city_game *g = ctx;
    REQUIRE(ev->type <= CITY_EV_GAME_OVER, "event of unknown type %d", ev->type);
    REQUIRE(ev->seat >= -1 && ev->seat < g->players, "event for seat %d", ev->seat);
    REQUIRE(ev->card < CITY_DECK_SIZE, "event for card %d", ev->card);
}

/* The stored state of `g` must read back as `g` itself, byte for byte. */
static void check_state_round_trip(const struct city_game *g)
{
    static struct city_game back;
    char err[300] = "";
    json_t *j = city_to_json(g);
    REQUIRE(j, "city_to_json returned NULL");
    bool ok = city_from_json(&back, &cat, j, err, (int)sizeof err);
    json_decref(j);
    REQUIRE(ok, "city_from_json refused a state the engine reached: %s", err);
    REQUIRE(memcmp(&back, g, sizeof back) == 0, "the state changed through JSON (round %d, %s)",
            g->round, city_step_name(g->step));
}

/* The canonical body of `o` (what the service stores) must read back as `o`. */
static void check_order_round_trip(const struct city_order *o)
{
    json_t *canon = city_order_to_json(o->round, o->step, &o->d);
    REQUIRE(canon, "city_order_to_json refused an order city_order_from_json accepted");
    char *text = json_dumps(canon, JSON_COMPACT);
    json_decref(canon);
    REQUIRE(text, "json_dumps failed");
    json_error_t jerr;
    json_t *again = json_loads(text, BODY_FLAGS, &jerr);
    REQUIRE(again, "the canonical body %s is not JSON: %s", text, jerr.text);
    struct city_order back;
    char err[300] = "";
    int e = city_order_from_json(again, &back, err, (int)sizeof err);
    json_decref(again);
    REQUIRE(e == CITY_ORDER_OK, "the canonical body %s was refused: %s", text, err);
    REQUIRE(memcmp(&back, o, sizeof back) == 0, "the canonical body %s reads back differently",
            text);
    free(text);
}

/* After an accepted submit of order `o`: the seat sees its order as the canonical body. */
static void check_private_view(const struct city_game *g, int seat, const struct city_order *o)
{
    json_t *view = city_private_view(g, seat);
    REQUIRE(view, "no private view for seat %d", seat);
    json_t *canon = city_order_to_json(o->round, g->step, &o->d);
    json_object_set_new(canon, "round", json_integer(g->round));
    REQUIRE(json_equal(json_object_get(view, "order"), canon),
            "the private view does not show the order submitted");
    json_decref(canon);
    json_decref(view);
}

static bool contains(const uint8_t *cards, int n, int card)
{
    for (int i = 0; i < n; i++)
        if (cards[i] == card)
            return true;
    return false;
}

/* After the step of accepted decision `d` of seat `seat` resolved (from `before` to `g`): what
 * it built is in its tableau, a General Contractor too, and cards it discarded in keep or
 * hand_limit (where nothing is drawn before the next step) are in the discard pile. */
static void check_effects(const struct city_game *before, const struct city_game *g, int seat,
                          const struct city_decision *d)
{
    const struct city_seat *s = &g->seats[seat], *was = &before->seats[seat];
    switch (d->kind) {
    case CITY_DEC_BUILD:
    case CITY_DEC_BUILD_TWO:
        REQUIRE(s->ntableau == was->ntableau + d->nbuilds, "the tableau did not grow by %d",
                d->nbuilds);
        for (int k = 0; k < d->nbuilds; k++)
            REQUIRE(contains(s->tableau, s->ntableau, d->builds[k].card) &&
                        !contains(s->hand, s->nhand, d->builds[k].card),
                    "card %d was not built", d->builds[k].card);
        break;
    case CITY_DEC_CONTRACTOR:
        REQUIRE(s->ntableau == was->ntableau + 1 && g->npool < before->npool &&
                    g->cat->designs[city_design_of(g, s->tableau[s->ntableau - 1])].contractor,
                "no General Contractor was taken");
        break;
    case CITY_DEC_DISCARD:
        if (before->step != CITY_STEP_KEEP && before->step != CITY_STEP_HAND_LIMIT)
            break;
        REQUIRE(s->nhand == was->nhand - d->ndiscard, "the hand did not shrink by %d", d->ndiscard);
        for (int k = 0; k < d->ndiscard; k++)
            REQUIRE(contains(g->discard, g->ndiscard, d->discard[k]), "card %d was not discarded",
                    d->discard[k]);
        break;
    default:
        break;
    }
}

/* State mode: `text` as a stored state. */
static void fuzz_state_text(const char *text, size_t len)
{
    static struct city_game g;
    json_t *j = json_loadb(text, len, 0, NULL);
    if (!j)
        return;
    char err[300] = "";
    bool ok = city_from_json(&g, &cat, j, err, (int)sizeof err);
    json_decref(j);
    if (trace)
        fprintf(stderr, "fuzz_orders: stored state %s%s\n", ok ? "accepted" : "refused: ", err);
    if (!ok) {
        REQUIRE(err[0], "city_from_json refused a state without saying why");
        return;
    }
    REQUIRE(city_check_conservation(&g),
            "city_from_json accepted a state that breaks conservation");
    check_state_round_trip(&g);
    for (int k = 0; k < STATE_STEPS && g.step != CITY_STEP_OVER; k++) {
        json_t *view = city_public_view(&g);
        REQUIRE(view, "no public view of an accepted state");
        json_decref(view);
        for (int seat = 0; seat < g.players; seat++) {
            view = city_private_view(&g, seat);
            REQUIRE(view, "no private view for seat %d of an accepted state", seat);
            json_decref(view);
            struct bot bot;
            struct city_decision d;
            city_bot_init(&bot, (seat + k) % 2 ? BOT_GREEDY : BOT_RANDOM, (uint64_t)seat);
            if (city_bot_decide(&bot, &g, seat, &d)) {
                int e = city_submit(&g, seat, &d);
                REQUIRE(e == CITY_OK, "a bot's decision was refused (%s) in an accepted state",
                        city_error_code(e));
            }
        }
        city_fill_defaults(&g, NULL);
        struct city_events ev = {check_event, &g};
        REQUIRE(city_resolve(&g, &ev), "a ready step of an accepted state did not resolve");
        REQUIRE(city_check_conservation(&g), "conservation broken going on from a stored state");
        check_state_round_trip(&g);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < SELECTOR_BYTES)
        return 0;
    static struct city_game g, before;
    memcpy(&g, &states[data[0] % NSTATES], sizeof g);
    int pick = data[1] & 7;
    int seat = pick == 7 ? -1 : pick;
    bool defaults = !(data[1] & FLAG_NO_DEFAULTS);
    if (data[1] & FLAG_STATE) {
        fuzz_state_text((const char *)data + SELECTOR_BYTES, size - SELECTOR_BYTES);
        return 0;
    }

    json_error_t jerr;
    json_t *body =
        json_loadb((const char *)data + SELECTOR_BYTES, size - SELECTOR_BYTES, BODY_FLAGS, &jerr);
    if (trace)
        fprintf(stderr,
                "fuzz_orders: state %d (%d players, round %d, %s), seat %d: ", data[0] % NSTATES,
                g.players, g.round, city_step_name(g.step), seat);
    if (!body) {
        if (trace)
            fprintf(stderr, "not JSON: %s\n", jerr.text);
        return 0;
    }
    struct city_order o;
    char err[300] = "";
    int e = city_order_from_json(body, &o, err, (int)sizeof err);
    json_decref(body);
    if (trace)
        fprintf(stderr, "%s%s%s\n", city_order_error_code(e), e ? ": " : "", err);
    if (e) {
        REQUIRE(e > CITY_ORDER_OK && e < CITY_ORDER_ERR_COUNT, "city_order_from_json returned %d",
                e);
        REQUIRE(err[0], "city_order_from_json refused a body without saying why");
        return 0;
    }
    check_order_round_trip(&o);

    memcpy(&before, &g, sizeof g);
    int r = city_submit(&g, seat, &o.d);
    if (trace)
        fprintf(stderr, "fuzz_orders: city_submit: %s\n", city_error_code(r));
    if (r) {
        REQUIRE(r > CITY_OK && r < CITY_ERR_COUNT, "city_submit returned %d", r);
        REQUIRE(city_check(&before, seat, &o.d) == r, "city_check disagrees with city_submit");
        REQUIRE(memcmp(&before, &g, sizeof g) == 0, "a refused submit (%s) changed the game",
                city_error_code(r));
        return 0;
    }
    REQUIRE(city_check(&before, seat, &o.d) == CITY_OK, "city_check disagrees with city_submit");
    REQUIRE(g.seats[seat].submitted, "an accepted order is not marked submitted");
    REQUIRE(memcmp(&g.seats[seat].order, &o.d, sizeof o.d) == 0,
            "the stored order differs from the one sent");
    REQUIRE(city_check_conservation(&g), "conservation broken by a submit");
    check_private_view(&g, seat, &o);
    check_state_round_trip(&g);

    if (!city_ready(&g) && defaults)
        REQUIRE(city_fill_defaults(&g, NULL) > 0, "no default for a step that is not ready");
    if (city_ready(&g)) {
        struct city_events ev = {check_event, &g};
        int round = g.round;
        REQUIRE(city_resolve(&g, &ev), "a ready step did not resolve");
        REQUIRE(city_check_conservation(&g), "conservation broken by resolving after %s",
                city_step_name(before.step));
        REQUIRE(g.round > round || (g.round == round && g.step > before.step),
                "the game did not move on from round %d, %s", round, city_step_name(before.step));
        check_effects(&before, &g, seat, &o.d);
        check_state_round_trip(&g);
    }
    return 0;
}
