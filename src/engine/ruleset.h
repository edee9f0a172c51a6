/* ruleset.h: the seam between the server and the rules of one game. Each game the server hosts
 * (The City, Tech City, ...) fills one struct ruleset, a table of functions the way a route
 * table dispatches, in its own folder under src/engine/; the service, store and HTTP layers call
 * a game only through it and name no ruleset.
 *
 * The model of play is "pending decisions per seat": at every moment a game is at one decision
 * point (a position: round, step and turn), where some seats must decide. A seat's decision can
 * be replaced until the point resolves; it resolves when every pending seat has decided (or by
 * default when its deadline passes), and the game moves to the next point. The City's
 * simultaneous steps and Tech City's turns are both such points.
 *
 * States are plain structs of `state_size` bytes, copyable with memcpy(), that point only to the
 * ruleset's own catalog (loaded once by load_cards()). Decisions are plain structs of
 * `decision_size` bytes. Every function is pure (no I/O) except load_cards().
 *
 * Contract common to every function taking a state: the state was made by new_game() or
 * from_json() of the same ruleset; seats are 0..players-1 (callers check). */
#ifndef CITY_RULESET_H
#define CITY_RULESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#include <jansson.h>

enum {
    RS_MAX_SEATS = 6, /* the most seats any ruleset allows */
    RS_MAX_STATE = 64 * 1024,
    RS_MAX_OPTIONS = 4, /* creation options of one game */
};

/* An option's range and default at one seat count. */
struct rs_range {
    int min, max, def;
};

/* One creation option of a game: an integer field of the create body, stored with the game
 * and carried by its replay record (a choice of two is a range of two). Its range and default
 * may differ by seat count: by_players[P] holds them at P seats, for every P the game takes.
 * GET /api/v1/rulesets lists the options; ruleset_read_options() is the one place that checks
 * a body against them. */
struct rs_option {
    const char *name;        /* its field in the create body and the replay record */
    const char *title;       /* for people, e.g. "Points to win" */
    const char *description; /* one sentence for a create form */
    struct rs_range by_players[RS_MAX_SEATS + 1];
};

/* by_players for an option whose range and default are the same at every seat count. */
// clang-format off
#define RS_EVERY_SEAT_COUNT(min, max, def)                                                         \
    {{min, max, def}, {min, max, def}, {min, max, def}, {min, max, def}, {min, max, def},          \
     {min, max, def}, {min, max, def}}
// clang-format on
_Static_assert(RS_MAX_SEATS + 1 == 7, "RS_EVERY_SEAT_COUNT names one range per seat count 0..6");

/* A decision point. `round` and `step` as the API spells them (step through step_name());
 * `turn` counts the decision points opened since the game began, for rulesets where one round
 * and step name many points (Tech City's turns); The City's is always 0. */
struct rs_pos {
    int round;
    int step;
    int turn;
};

/* Receives a game's public events as the log's JSON: `type` (e.g. "built") and `data` (stolen;
 * always with "round" and "step", and "seat" when the event is about one). A "step" event
 * opens a new decision point; a "default" event {seat, decision} reports a default given by
 * fill_defaults(). */
struct rs_sink {
    void (*event)(void *ctx, const char *type, json_t *data);
    void *ctx;
};

/* What a seat's score is, for a client's score column: its field in the public view's
 * seats[] ("vp", "score"), a label for people ("Victory points") and a unit ("points"; a game
 * of money says "dollars"). */
struct rs_scoring {
    const char *field, *label, *unit;
};

/* How the places are decided at the end: the seats[] fields compared in order, most first
 * (keys[0] is the score), NULL-terminated; seats equal on every key share the place
 * ("shared"). `text` says it for people. */
struct rs_ranking {
    const char *const *keys;
    const char *ties;
    const char *text;
};

struct ruleset {
    const char *id;    /* the API's "game", also the name of the game's folder */
    const char *title; /* for people: "The City" */
    struct rs_scoring scoring;
    struct rs_ranking ranking;
    /* The types of the events the engine emits through its sink, NULL-terminated ("step",
     * "default" and "game_over" among them); the service adds ruleset_service_events. */
    const char *const *events;
    /* Optional (NULL: 100 for every step): each step's deadline as a percentage of the game's
     * turn_seconds, indexed like steps (a vote may have a shorter clock than a turn). */
    const unsigned char *deadline_pct;
    int min_players, max_players;
    size_t state_size;    /* at most RS_MAX_STATE (test_svc_api checks every ruleset) */
    size_t decision_size; /* at most 4096 (ruleset_replay_generic's buffer) */
    bool uses_turn;       /* orders and positions carry "turn" */
    /* The creation options (noptions of them, at most RS_MAX_OPTIONS); new_game() takes their
     * values in this order and option() gives back the one in effect. */
    const struct rs_option *options;
    int noptions;
    const char *cards_file;  /* the catalog's file name in the cards folder */
    const char *const *bots; /* bot kinds, NULL-terminated; bots[0] is the default */
    /* Optional: how many candidate decisions the expert weighs at `players` seats when its
     * level does not say (NULL: 24). A game whose playouts are noisier with more opponents
     * does better with fewer candidates, and more playouts each, as the table fills. */
    int (*expert_candidates)(int players);
    /* Optional: the decisions worth weighing for seat at this point, the game's own judgement
     * of them best first, read from what the seat may know: at most `max` into out (an array of
     * decisions); returns how many (0: the expert finds its own, the greedy bot's choice and
     * the random bot's in other deals). A game whose random choices are mostly poor gives its
     * playouts to a few good ones instead. */
    int (*expert_options)(const void *g, int seat, void *out, int max);
    /* Optional too (NULL for a game without them), for simulate's card report (--per-card): the
     * designs seat has built from its hand so far, as a bitset of design numbers (0..63), and
     * the id of design number `design` (NULL for a number that is no design built from a
     * hand). */
    uint64_t (*built_designs)(const void *g, int seat);
    const char *(*design_id)(int design);
    const char *const *steps; /* step names, NULL-terminated, in the order of step numbers */

    /* Loads and validates the catalog from `path` (once, at start-up, before any game).
     * False with a sentence in err when the file is missing or invalid. */
    bool (*load_cards)(const char *path, char *err, int errlen);
    /* The catalog for people and clients (GET /api/v1/cards?game=...); a new reference. */
    json_t *(*cards_json)(void);

    /* Starts a game of `players` seats dealt from `seed`, with options[i] the value of
     * option i (NULL: every option's default at that seat count). False when the players or
     * a value are out of range. */
    bool (*new_game)(void *g, int players, uint64_t seed, const int *options);
    int (*players)(const void *g);
    uint64_t (*seed)(const void *g);
    int (*option)(const void *g, int i); /* the value of option i in effect */
    bool (*over)(const void *g);
    void (*where)(const void *g, struct rs_pos *out);
    bool (*pending)(const void *g, int seat);         /* must decide at this point */
    bool (*submitted)(const void *g, int seat);       /* has a decision for this point */
    bool (*defaulted)(const void *g, int seat);       /* ... and it was given by default */
    const void *(*decision)(const void *g, int seat); /* the decision, when submitted */
    /* The public slug of card instance `card` (e.g. "housing_tract"), NULL when no such card. */
    const char *(*card_id)(const void *g, int card);
    /* The hand cards decision `d` gives up (discards), at most `max` into cards[]; returns how
     * many. The hand view's notice of a default lists them. */
    int (*decision_cards)(const void *d, int *cards, int max);

    /* Parses an order body {"round", "step", ["turn"], ...} into its position and decision.
     * NULL when it parses; else a stable problem code ("missing_field", "unknown_field",
     * "wrong_type", "bad_value", "conflicting_fields", "too_many_cards", "not_an_object"; the
     * service answers those 400) with a sentence saying what to send in err, or "wrong_kind"
     * (answered 422) for a field of another step's decision. */
    const char *(*order_from_json)(const json_t *body, struct rs_pos *pos, void *d, char *err,
                                   int errlen);
    /* The canonical order body of decision `d` at `pos`; a new reference. */
    json_t *(*order_to_json)(const struct rs_pos *pos, const void *d);
    /* Stores `d` as seat's decision at the current point (replacing an earlier one), or returns
     * a nonzero engine error, changing nothing. */
    int (*submit)(void *g, int seat, const void *d);
    /* Stable, e.g. "not_in_hand". Two codes are common to every ruleset, which the service
     * answers with problems of their own (409): "nothing_to_decide" (the seat has no decision
     * at this point) and "game_over". */
    const char *(*error_code)(int err);
    const char *(*error_message)(int err); /* an English sentence */
    bool (*ready)(const void *g);          /* every pending seat has decided */
    /* Gives every pending seat without a decision its default; returns how many got one.
     * Here and in resolve(), `sink` may be NULL where no one listens. */
    int (*fill_defaults)(void *g, const struct rs_sink *sink);
    /* Resolves the current point and opens the next; requires ready(). False, changing
     * nothing, when not ready or over. */
    bool (*resolve)(void *g, const struct rs_sink *sink);
    /* A bot of kind `bot` (one of bots[]; unknown names play as bots[0]) chooses seat's
     * decision from what that seat may know, deterministically from the game's seed and the
     * position. False when the seat has nothing to decide. */
    bool (*bot_decide)(const void *g, int seat, const char *bot, void *d);
    /* For search (the expert bot): replaces in state g everything seat `seat` may not know by
     * a random deal consistent with what it knows, drawn from `rng`: the hidden cards (deck,
     * other seats' hands, and hidden piles) are pooled in a canonical order, shuffled and dealt
     * back in the same counts; other seats' undisclosed decisions are withdrawn; the state's
     * own random stream is reseeded. The result depends only on what the seat may know and
     * on `rng`, never on where the hidden cards really are. */
    void (*determinize)(void *g, int seat, struct city_rng *rng);
    /* A seat's score now (victory points), for search and figures. */
    int (*score)(const void *g, int seat);
    /* The winning seats as a bitmask once over(), else 0. */
    unsigned (*winners)(const void *g);

    /* The whole state as JSON for storage, and back (false with a sentence when it does not
     * load). */
    json_t *(*to_json)(const void *g);
    bool (*from_json)(void *g, const json_t *j, char *err, int errlen);
    /* What everyone may see: no hand, no deck order, no seed before the end. */
    json_t *(*public_view)(const void *g);
    /* What seat `seat` may see: the public view plus its hand and "pending" (null, or an object
     * saying what it must decide); NULL for a seat out of range. Callers use
     * ruleset_private_view(), which adds the suggestion. */
    json_t *(*private_view)(const void *g, int seat);

    /* Replays a record {["game"], "seed", "players", [each option by name], "decisions":
     * [{"seat", ["default"], ...order}]} ("game", when present, names this ruleset) into *g;
     * false with a sentence naming the bad part. */
    bool (*replay_run)(const json_t *replay, void *g, char *err, int errlen);
    /* Bot self-play of `games` games of `players` seats from consecutive seeds, bots as
     * "greedy" or a comma list of one kind per seat: the figures that prove the deck, as JSON.
     * NULL with a sentence in err for bad arguments or an illegal bot decision. */
    json_t *(*simulate)(int players, long long games, uint64_t seed, const char *bots, char *err,
                        int errlen);
};

/* The rulesets this server hosts, NULL-terminated; rulesets[0] is the default game. */
extern const struct ruleset *const rulesets[];

/* Name lists (steps, bots, events) are NULL-terminated arrays of names, each name's number its
 * index. rs_name_index() is the index of `name` in `list` (-1 for a NULL or unknown name);
 * rs_name_at() is list[i] when i is an index of `list`, else `other`. */
int rs_name_index(const char *const *list, const char *name);
const char *rs_name_at(const char *const *list, int i, const char *other);

/* A game's refusals: the stable code and the English sentence of each engine error number, in a
 * table indexed by the number (its error_code and error_message read it). */
struct rs_error {
    const char *code, *message;
};

/* errors[err].code (.message) for err in 0..n-1, else "unknown_error" ("Unknown error."). */
const char *rs_error_code(const struct rs_error *errors, int n, int err);
const char *rs_error_message(const struct rs_error *errors, int n, int err);

/* In a game's table of struct rs_error, the entries every game has, each at the game's own
 * number: accepted, the game over, no such seat, nothing to decide, a decision of another step. */
#define RS_COMMON_ERRORS(ok, over, seat, pending, kind)                                            \
    [ok] = {"ok", "The decision was accepted."},                                                   \
    [over] = {"game_over", "The game has ended; no more decisions are taken."},                    \
    [seat] = {"bad_seat", "There is no such seat in this game."},                                  \
    [pending] = {"nothing_to_decide", "This seat has nothing to decide now; wait for its turn."},  \
    [kind] = {"wrong_kind", "This decision does not answer the current step; see \"pending\" in "  \
                            "your view for what to send."}

/* The ruleset named `id`, or NULL. */
const struct ruleset *ruleset_find(const char *id);

/* Index of `name` in rs->steps, or -1. */
int ruleset_step_from_name(const struct ruleset *rs, const char *name);

/* rs->steps[step], or "?" outside the list. */
const char *ruleset_step_name(const struct ruleset *rs, int step);

/* True when `name` is one of rs->bots. */
bool ruleset_has_bot(const struct ruleset *rs, const char *name);

/* rs->private_view() with, when the seat must decide, "suggestion" in its "pending": a complete
 * legal order body, the greedy bot's choice made from what the seat may know (rs->bot_decide()
 * with "greedy"), which a client may send as it is. NULL when rs->private_view() gives none. */
json_t *ruleset_private_view(const struct ruleset *rs, const void *g, int seat);

/* The final places of game g's seats by its ranking (rs->ranking: the public view's seats[]
 * fields compared in order, most first): places[s] is 1 + the number of seats ranked above seat
 * s, so seats equal on every key share a place; scores[s] (when scores is not NULL) is the
 * seat's first key, its score. Returns the number of seats. Meant for a game that is over. */
int ruleset_places(const struct ruleset *rs, const void *g, int *places, int *scores);

/* {"round", "step"[, "turn"]} of a position; a new reference. */
json_t *ruleset_pos_json(const struct ruleset *rs, const struct rs_pos *pos);

/* A decision point for people, e.g. "round 3, step build" or "round 3, step build, turn 17". */
void ruleset_pos_text(const struct ruleset *rs, const struct rs_pos *pos, char *buf, size_t n);

/* A key naming a decision point, e.g. "3/build" or "3/build/17", into buf. */
void ruleset_pos_key(const struct ruleset *rs, const struct rs_pos *pos, char *buf, size_t n);

/* The events the service itself writes to every game's log (created, joined, started,
 * submitted, forced, left, taken_over, cancelled, expired, bank), NULL-terminated. */
extern const char *const ruleset_service_events[];

/* The seconds a point of step `step` has in a game of `turn_seconds` a point (0: no clock):
 * the step's share of it (deadline_pct), at least 5. */
int ruleset_point_seconds(const struct ruleset *rs, int step, int turn_seconds);

/* Option i's range at `players` seats. */
const struct rs_range *ruleset_option_range(const struct ruleset *rs, int i, int players);

/* Reads the game's options from object `body` (a create body or a replay record) for a game
 * of `players` seats into values[0..noptions-1]: a field left out or null takes its default.
 * NULL when all are good; else "wrong_type" or "bad_value" with a sentence in err naming the
 * field and its range at that seat count. */
const char *ruleset_read_options(const struct ruleset *rs, int players, const json_t *body,
                                 int *values, char *err, int errlen);

/* The options in effect in game g, {name: value}, for its replay record and its row; a new
 * reference. */
json_t *ruleset_options_json(const struct ruleset *rs, const void *g);

/* The description for GET /api/v1/rulesets: {id, title, min_players, max_players, bots,
 * steps, turns, options, score: {field, label, unit}, rank: {keys, ties, text}, event_types
 * (the service's and the engine's), deadlines: [{step, share}] (each decision step's share of
 * turn_seconds)}; a new reference. */
json_t *ruleset_describe(const struct ruleset *rs);

/* A replay_run() for any ruleset whose orders round-trip through order_from_json(): starts the
 * game from the record's seed, players and options, then submits each decision at the
 * position it names (which must be the current one) and resolves each point once ready. */
bool ruleset_replay_generic(const struct ruleset *rs, const json_t *replay, void *g, char *err,
                            int errlen);

/* For determinize(): deals the cards of `n` places anew (places[i] holds counts[i] card
 * instance ids, each below RS_MAX_CARDS): pools them in a canonical order (by id, so that where
 * they really were cannot leak), shuffles the pool with `rng` and fills each place back with as
 * many cards as it had. Then reseeds the state from `rng`: its `seed` and its own random stream
 * `stream`, so that nothing the search plays next follows from the real ones. */
enum { RS_MAX_CARDS = 256 };
void ruleset_redeal(uint8_t *const *places, const int *counts, int n, uint64_t *seed,
                    struct city_rng *stream, struct city_rng *rng);

/* A list of cards in a state (a hand, a pile): n card instance ids in cards[]. The first is true
 * when `card` is one of them; the second takes its first copy out, keeping the others in their
 * order, and is false, changing nothing, when it is not there. */
bool ruleset_cards_has(const uint8_t *cards, int n, int card);
bool ruleset_cards_remove(uint8_t *cards, uint8_t *n, int card);

/* For a game's check that every card is in one place: adds the n card ids of cards[] to seen[]
 * (RS_MAX_CARDS counts, zeroed by the caller) and to *total; false when one is `ncards` or more
 * or was seen before. */
bool ruleset_cards_tally(uint8_t *seen, int ncards, const uint8_t *cards, int n, int *total);

/* For a game's submit(), once the decision is stored: marks seat's bit in the bitmask *submitted
 * and clears it in *defaulted (the seat's own decision replaces a default). */
void ruleset_mark_sent(uint8_t *submitted, uint8_t *defaulted, int seat);

/* For a game's fill_defaults(): the seats that must decide at this point and have not (in the
 * bitmask pending, not in *submitted), marked now in *submitted and *defaulted, as a bitmask;
 * the caller gives each its default decision. */
unsigned ruleset_defaults_due(unsigned pending, uint8_t *submitted, uint8_t *defaulted);

/* For determinize(): withdraws the decisions seats other than `seat` have sent at this point
 * (pending and submitted, not yet disclosed) from the seat bitmasks *submitted and *defaulted,
 * and returns those seats as a bitmask, whose decisions the caller empties. */
unsigned ruleset_withdraw(unsigned pending, uint8_t *submitted, uint8_t *defaulted, int seat);

/* The game of a replay record (as replay_run() takes it) round by round, for a replay viewer:
 * [{"round": 0, "view": the public view once the setup point is decided, or as round 1
 * begins}, {"round": r, "view": the public view as round r has ended}, ...], the last entry
 * being the record's final state. NULL with a sentence in err when the record does not replay.
 * Replays the record once per round; a new reference. */
json_t *ruleset_replay_rounds(const struct ruleset *rs, const json_t *replay, char *err,
                              int errlen);

/* ---- simulate's report: the keys every game's has (docs/rulesets.md, "Simulation") ------- */

/* What a self-play run counted. wins are games won, a tie split among its winners; each bot
 * kind's wins and seat-games are added with ruleset_sim_kind(). */
struct rs_sim_tally {
    int players;
    long long games, finished, rounds_sum; /* finished: games that reached their end */
    int min_rounds, max_rounds;
    double wins[RS_MAX_SEATS];
    int nkinds;
    const char *kind[RS_MAX_SEATS]; /* bot kind names, in the order first added */
    double kind_wins[RS_MAX_SEATS];
    long long kind_seat_games[RS_MAX_SEATS];
};

/* Adds `wins` won over `seat_games` seat-games to bot kind `kind` (a static string). */
void ruleset_sim_kind(struct rs_sim_tally *t, const char *kind, double wins, long long seat_games);

/* The keys every simulate() report holds, as a new object: players, games, finished, seed,
 * bots, avg_rounds, min_rounds, max_rounds, wins_by_seat [share per seat], wins_by_kind {kind:
 * {share, per_seat, seat_games}}. The caller adds the per-card shares
 * (ruleset_sim_cards()) and its game's own figures. */
json_t *ruleset_sim_report(const struct rs_sim_tally *t, uint64_t seed, const char *bots);

/* The figures every game's own self-play has, for ruleset_sim_report(): `games` games, every
 * one finished, of rounds `rounds_sum` in all (min_rounds..max_rounds), wins[s] won by seat s,
 * whose bot kind (bot.h's enum bot_kind, as ruleset_sim_args() read it) was kinds[s] in
 * every game. */
struct rs_sim_seats {
    int players;
    long long games, rounds_sum;
    int min_rounds, max_rounds;
    const double *wins;
    const int *kinds;
};

/* A 64-bit number as JSON: a string of decimal digits (JSON numbers lose precision past 2^53 in
 * many clients); a new reference. */
json_t *ruleset_u64_json(uint64_t v);

/* Reads a 64-bit number written by ruleset_u64_json() (a string of 1 to 20 decimal digits, in
 * range), or, when `integer_ok`, a non-negative JSON integer too. False for anything else. */
bool ruleset_u64_from_json(const json_t *v, bool integer_ok, uint64_t *out);

/* Reads simulate's --bots, one kind for every seat or a comma list of one kind per seat, into
 * kinds[0..players-1] through from_name() (a game's own bot numbers; negative for a name it
 * does not know). False for an unknown name or a list of another length. */
bool ruleset_parse_bots(const char *spec, int players, int (*from_name)(const char *name),
                        int *kinds);

/* Checks the arguments of rs's simulate(), as every game's self-play takes them: `games` at
 * least 1, `players` in rs's range, then `bots` read by ruleset_parse_bots() into
 * kinds[0..players-1]. False with the sentence for --games, --players or --bots in err. */
bool ruleset_sim_args(const struct ruleset *rs, int players, long long games, const char *bots,
                      int (*from_name)(const char *name), int *kinds, char *err, int errlen);

/* For simulate() after its run: true when no bot made an illegal decision (`illegal` false);
 * else false with "a bot made an illegal decision (seed N)" in err, N the game's seed. */
bool ruleset_sim_legal(bool illegal, uint64_t illegal_seed, char *err, int errlen);

/* ruleset_sim_report() of a self-play run whose seats kept their bot kinds. */
json_t *ruleset_sim_report_seats(const struct rs_sim_seats *run, uint64_t seed, const char *bots);

/* The per-card shares of a report: {"cards": [{card, built, in_winners}], "most_in_winners":
 * {card, share}, "least_built": {card, share}} for the designs 0..ndesigns-1 that design_id()
 * names, built[d] and in_winners[d] being games (in_winners split among tied winners); a new
 * object to merge into the report. */
json_t *ruleset_sim_cards(const char *(*design_id)(int), int ndesigns, const double *built,
                          const double *in_winners, long long games);

/* ---- writing a game's table (its NAME_ruleset.c) -------------------------------------------
 *
 * The table takes a state as `void *`, and a game's engine takes its own struct; C calls no
 * function through a pointer of another type, so each entry is a static function of the game's
 * that converts the state. Where an entry only reads the state (a field, or what one engine
 * function answers), one of these defines it in a line (the use ends with a semicolon):
 * RS_READ(name, ret, TYPE, expr) is `static ret name(const void *state)` returning expr, with
 * `g` the state as a `const TYPE *`; RS_READ_SEAT(...) the same taking `int seat` too. E.g.
 * RS_READ(cr_players, int, struct city_game, g->players). */
#define RS_READ(name, ret, type, expr)                                                             \
    static ret name(const void *state)                                                             \
    {                                                                                              \
        const type *g = state;                                                                     \
        return expr;                                                                               \
    }                                                                                              \
    _Static_assert(1, #name)
#define RS_READ_SEAT(name, ret, type, expr)                                                        \
    static ret name(const void *state, int seat)                                                   \
    {                                                                                              \
        const type *g = state;                                                                     \
        return expr;                                                                               \
    }                                                                                              \
    _Static_assert(1, #name)

/* In a table's initializer, RS_STRUCTS(STATE_TYPE, DECISION_TYPE) sets state_size and
 * decision_size, and RS_OPTIONS(ARRAY) sets options and noptions from an array of every option
 * (counted by the compiler). */
#define RS_STRUCTS(state, decision) .state_size = sizeof(state), .decision_size = sizeof(decision)
#define RS_OPTIONS(array)           .options = (array), .noptions = (int)(sizeof(array) / sizeof((array)[0]))

/* The table's functions of a game that names each PREFIX_ENTRY (cr_players, tc_submit, ...):
 * in its table's initializer, RS_FUNCTIONS(PREFIX) sets every entry that each game has, so that
 * the compiler names any it lacks; the descriptor, error_code and error_message and the
 * optional entries (expert_candidates, built_designs, design_id) are set beside it. */
#define RS_FUNCTIONS(p)                                                                            \
    .load_cards = p##_load_cards, .cards_json = p##_cards_json, .new_game = p##_new_game,          \
    .players = p##_players, .seed = p##_seed, .option = p##_option, .over = p##_over,              \
    .where = p##_where, .pending = p##_pending, .submitted = p##_submitted,                        \
    .defaulted = p##_defaulted, .decision = p##_decision, .card_id = p##_card_id,                  \
    .decision_cards = p##_decision_cards, .order_from_json = p##_order_from_json,                  \
    .order_to_json = p##_order_to_json, .submit = p##_submit, .ready = p##_ready,                  \
    .fill_defaults = p##_fill_defaults, .resolve = p##_resolve, .bot_decide = p##_bot_decide,      \
    .determinize = p##_determinize, .score = p##_score, .winners = p##_winners,                    \
    .to_json = p##_to_json, .from_json = p##_from_json, .public_view = p##_public_view,            \
    .private_view = p##_private_view, .replay_run = p##_replay_run, .simulate = p##_simulate

#endif
