/* fuzz_rulesets.c: the libFuzzer target for every game the server hosts, through the ruleset
 * table alone (src/engine/ruleset.h), as the service drives it: an order body parsed as
 * src/http.c parses it, read by the game's order_from_json(), made canonical, submitted at a
 * prepared position, and the point resolved; or a body read as a stored state by from_json().
 * It checks the table's promises for each ruleset: nothing crashes or leaks; the canonical body
 * reads back as the same decision; a refused submit changes nothing; a state survives
 * to_json()/from_json() unchanged; views and bots work on every state from_json() accepts.
 *
 * An input is three selector bytes and the body: byte 0 picks the ruleset (modulo how many the
 * server hosts), byte 1 one of NSTATES positions prepared once per ruleset by its bots, byte 2
 * the seat (low 3 bits; 7 and seats past the player count are refused before the engine, as the
 * service does) and flags: bit 3 resolves only when ready (else missing decisions get their
 * defaults first), bit 4 reads the body as a stored state instead of an order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ruleset.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NSTATES = 128, SELECTOR_BYTES = 3, FLAG_NO_DEFAULTS = 0x08, FLAG_STATE = 0x10 };
enum { BODY_FLAGS = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, STATE_STEPS = 4, MAX_RS = 8 };

#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_rulesets: " __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static int nrs;
static void *states[MAX_RS][NSTATES]; /* prepared positions, rs->state_size bytes each */

/* Plays the point the game stands at with bots (every pending seat), then resolves it. */
static void bots_play_point(const struct ruleset *rs, void *g, void *d)
{
    for (int s = 0; s < rs->players(g); s++)
        if (rs->pending(g, s) && !rs->submitted(g, s) && rs->bot_decide(g, s, "random", d))
            REQUIRE(rs->submit(g, s, d) == 0, "%s: a bot's decision was refused", rs->id);
    if (!rs->ready(g))
        rs->fill_defaults(g, NULL);
    REQUIRE(rs->resolve(g, NULL), "%s: a point with every decision in did not resolve", rs->id);
}

/* Fills states[r] with positions from bot games of every player count, spread over the games. */
static void prepare(int r)
{
    const struct ruleset *rs = rulesets[r];
    void *g = calloc(1, rs->state_size), *d = calloc(1, rs->decision_size);
    REQUIRE(g && d, "out of memory");
    int n = 0;
    for (uint64_t seed = 1; n < NSTATES; seed++) {
        int players =
            rs->min_players + (int)(seed % (uint64_t)(rs->max_players - rs->min_players + 1));
        REQUIRE(rs->new_game(g, players, seed, NULL), "%s: new_game refused %d players", rs->id,
                players);
        for (int point = 0; n < NSTATES && point < 2000; point++) {
            /* Keep one position in seven, the finished one too. */
            if ((point + (int)seed) % 7 == 0 || rs->over(g)) {
                states[r][n] = malloc(rs->state_size);
                REQUIRE(states[r][n], "out of memory");
                memcpy(states[r][n++], g, rs->state_size);
            }
            if (rs->over(g))
                break;
            bots_play_point(rs, g, d);
        }
    }
    free(g);
    free(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *root = getenv("CITY_ROOT");
    for (nrs = 0; rulesets[nrs] && nrs < MAX_RS; nrs++) {
        char path[4096], err[512];
        snprintf(path, sizeof path, "%s/cards/%s", root && *root ? root : ".",
                 rulesets[nrs]->cards_file);
        REQUIRE(rulesets[nrs]->load_cards(path, err, sizeof err), "%s", err);
        prepare(nrs);
    }
    return 0;
}

/* The stored JSON text of a state (a new string). */
static char *state_text(const struct ruleset *rs, const void *g)
{
    json_t *j = rs->to_json(g);
    REQUIRE(j, "%s: to_json failed", rs->id);
    char *t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    REQUIRE(t, "out of memory");
    return t;
}

/* A state loads back from its JSON into the same JSON. */
static void check_round_trip(const struct ruleset *rs, const void *g)
{
    char *a = state_text(rs, g);
    json_t *j = json_loads(a, 0, NULL);
    void *back = calloc(1, rs->state_size);
    char err[256];
    REQUIRE(back && j && rs->from_json(back, j, err, sizeof err), "%s: its own state refused: %s",
            rs->id, err);
    char *b = state_text(rs, back);
    REQUIRE(strcmp(a, b) == 0, "%s: a state changed through to_json/from_json", rs->id);
    free(a);
    free(b);
    free(back);
    json_decref(j);
}

/* Views of every seat are objects; the public one says nothing of hands. */
static void check_views(const struct ruleset *rs, const void *g)
{
    json_t *v = rs->public_view(g);
    REQUIRE(json_is_object(v) && !json_object_get(v, "hand"), "%s: bad public view", rs->id);
    json_decref(v);
    for (int s = 0; s < rs->players(g); s++) {
        json_t *p = rs->private_view(g, s);
        REQUIRE(json_is_object(p), "%s: no private view for seat %d", rs->id, s);
        json_decref(p);
    }
}

static void fuzz_order(const struct ruleset *rs, void *g, int seat, bool defaults,
                       const json_t *body)
{
    void *d = calloc(1, rs->decision_size), *d2 = calloc(1, rs->decision_size);
    REQUIRE(d && d2, "out of memory");
    struct rs_pos pos, pos2;
    char err[512];
    const char *code = rs->order_from_json(body, &pos, d, err, sizeof err);
    if (code) {
        REQUIRE(err[0], "%s: refused body %s without a sentence", rs->id, code);
    } else {
        json_t *canon = rs->order_to_json(&pos, d);
        REQUIRE(canon, "%s: an order it read has no canonical body", rs->id);
        REQUIRE(!rs->order_from_json(canon, &pos2, d2, err, sizeof err),
                "%s: its canonical body is refused: %s", rs->id, err);
        REQUIRE(memcmp(&pos, &pos2, sizeof pos) == 0 && memcmp(d, d2, rs->decision_size) == 0,
                "%s: the canonical body reads as another order", rs->id);
        json_decref(canon);
        if (seat >= 0 && seat < rs->players(g)) {
            char *before = state_text(rs, g);
            int e = rs->submit(g, seat, d);
            if (e) {
                REQUIRE(rs->error_code(e) && rs->error_message(e), "%s: an error without words",
                        rs->id);
                char *after = state_text(rs, g);
                REQUIRE(strcmp(before, after) == 0, "%s: a refused decision changed the game",
                        rs->id);
                free(after);
            } else {
                REQUIRE(rs->submitted(g, seat), "%s: accepted but not submitted", rs->id);
                if (defaults && !rs->ready(g))
                    rs->fill_defaults(g, NULL);
                if (rs->ready(g))
                    REQUIRE(rs->resolve(g, NULL), "%s: a ready point did not resolve", rs->id);
                check_round_trip(rs, g);
            }
            free(before);
        }
    }
    free(d);
    free(d2);
}

static void fuzz_state(const struct ruleset *rs, const json_t *body)
{
    void *g = calloc(1, rs->state_size), *d = calloc(1, rs->decision_size);
    REQUIRE(g && d, "out of memory");
    char err[512];
    if (rs->from_json(g, body, err, sizeof err)) {
        check_round_trip(rs, g);
        check_views(rs, g);
        for (int i = 0; i < STATE_STEPS && !rs->over(g); i++)
            bots_play_point(rs, g, d);
        check_round_trip(rs, g);
    } else {
        REQUIRE(err[0], "%s: a state refused without a sentence", rs->id);
    }
    free(g);
    free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < SELECTOR_BYTES || nrs == 0)
        return 0;
    const struct ruleset *rs = rulesets[data[0] % nrs];
    int seat = data[2] & 7;
    if (seat == 7)
        seat = -1;
    bool state_mode = data[2] & FLAG_STATE, defaults = !(data[2] & FLAG_NO_DEFAULTS);
    json_t *body = json_loadb((const char *)data + SELECTOR_BYTES, size - SELECTOR_BYTES,
                              state_mode ? 0 : BODY_FLAGS, NULL);
    if (!body)
        return 0;
    if (state_mode) {
        fuzz_state(rs, body);
    } else {
        void *g = malloc(rs->state_size);
        REQUIRE(g, "out of memory");
        memcpy(g, states[data[0] % nrs][data[1] % NSTATES], rs->state_size);
        fuzz_order(rs, g, seat, defaults, body);
        free(g);
    }
    json_decref(body);
    return 0;
}
