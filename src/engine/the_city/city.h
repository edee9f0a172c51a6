/* city.h: the rules engine of The City — a game's whole state as one plain, copyable struct,
 * and the operations on it: start a game from a seed, ask what a seat must decide and what it
 * may do, submit a decision (with a precise reason when it is illegal), and resolve a step.
 * No I/O, no allocation, no globals: the same seed and the same decisions give the same game,
 * bit for bit. Rules are those of docs/rules.md; project decisions are in README.md.
 *
 * Ownership: a struct city_game holds a borrowed pointer to its catalog, which must outlive
 * it; everything else is inside the struct, so memcpy() copies a game. */
#ifndef CITY_GAME_H
#define CITY_GAME_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "city_cards.h"
#include "rng.h"

enum {
    CITY_MIN_PLAYERS = 2,
    CITY_MAX_PLAYERS = 5,
    CITY_DEAL = 7,            /* cards dealt to each player at setup */
    CITY_KEEP_DISCARD = 2,    /* cards each player discards in step keep */
    CITY_SURVEY_DRAW = 5,     /* cards a survey draws */
    CITY_HAND_LIMIT = 12,     /* hand size kept after step hand_limit */
    CITY_DEFAULT_TARGET = 50, /* victory points that end the game */
    CITY_MIN_TARGET = 1,
    CITY_MAX_TARGET = 500,
    /* Project decision (README): a game still going after this many rounds ends as if the
     * target were reached. Greedy games last 7-9 rounds; this only stops endless games of
     * players who never build. */
    CITY_MAX_ROUNDS = 60,
};

/* The steps of a game (rules.md). CITY_STEP_OVER: the game has ended. */
enum city_step {
    CITY_STEP_KEEP,
    CITY_STEP_BUILD,
    CITY_STEP_SURVEY,
    CITY_STEP_HAND_LIMIT,
    CITY_STEP_OVER,
    CITY_STEP_COUNT
};

/* What a decision does. CITY_DEC_DISCARD answers keep, survey and hand_limit; the rest answer
 * build. */
enum city_decision_kind {
    CITY_DEC_NONE = 0,
    CITY_DEC_DISCARD,
    CITY_DEC_BUILD,      /* build one development: builds[0] */
    CITY_DEC_CONTRACTOR, /* take a General Contractor from the pool */
    CITY_DEC_BUILD_TWO,  /* Construction Gang: builds[0] then builds[1] */
    CITY_DEC_SURVEY,
};

/* One development built: the card instance and the instances paid for it. */
struct city_build {
    uint8_t card;
    uint8_t npay;
    uint8_t pay[CITY_MAX_COST];
};

/* One seat's decision for one step. Card numbers are instance ids (0..109). */
struct city_decision {
    uint8_t kind; /* enum city_decision_kind */
    uint8_t nbuilds;
    struct city_build builds[2];
    uint8_t ndiscard;
    uint8_t discard[CITY_DECK_SIZE];
};

/* Why a decision was refused. Stable: the service turns each into a problem `code`. */
enum city_error {
    CITY_OK = 0,
    CITY_ERR_GAME_OVER,        /* the game has ended */
    CITY_ERR_BAD_SEAT,         /* no such seat */
    CITY_ERR_NOT_PENDING,      /* this seat has nothing to decide in this step */
    CITY_ERR_WRONG_KIND,       /* e.g. a build in a discard step, or a discard in build */
    CITY_ERR_NOT_IN_HAND,      /* a named card is not in this seat's hand */
    CITY_ERR_DUPLICATE_CARD,   /* a card is named twice (payment repeats, or built twice) */
    CITY_ERR_DISCARD_COUNT,    /* wrong number of cards to discard */
    CITY_ERR_PAYMENT_COUNT,    /* payment does not equal the effective cost */
    CITY_ERR_NOT_BUILDABLE,    /* the card cannot be built (a General Contractor in hand) */
    CITY_ERR_PREREQUISITE,     /* a required card is not in the tableau */
    CITY_ERR_LIMIT,            /* "Limit: N per player" reached */
    CITY_ERR_NO_DOUBLE,        /* build two without a Construction Gang */
    CITY_ERR_DOUBLE_COST,      /* a card of printed cost over 4 in a double build */
    CITY_ERR_CONTRACTOR_TAKEN, /* this seat already took a General Contractor */
    CITY_ERR_POOL_EMPTY,       /* no General Contractor left in the pool */
    CITY_ERR_TOO_MANY_CARDS,   /* more cards than a decision can hold */
    CITY_ERR_COUNT
};

/* The stable code (e.g. "not_in_hand") and an English sentence for an error. */
const char *city_error_code(int err);
const char *city_error_message(int err);

/* The steps' names as the API spells them, by step number ("keep", "build", "survey",
 * "hand_limit", "over"), NULL-terminated: the ruleset's `steps`. */
extern const char *const city_step_names[];

/* Name of a step ("unknown" for another number), and the reverse (-1 when unknown). */
const char *city_step_name(int step);
int city_step_from_name(const char *name);

/* What a seat chose in the last build step, public once revealed. */
struct city_reveal {
    uint8_t kind; /* enum city_decision_kind; CITY_DEC_NONE before the first build step */
    uint8_t nbuilt;
    uint8_t built[2]; /* instance ids entered into the tableau */
    uint8_t paid;     /* how many cards were paid in all (the cards stay secret) */
    bool defaulted;   /* the decision was a default for a missed step */
};

/* A tableau summarized for the rules that read it (costs, prerequisites, limits, scoring).
 * The engine keeps one in every seat, derived from the seat's tableau and brought up to date
 * whenever a card enters it; code that edits a tableau directly (a test, a loader) calls
 * city_seat_refresh() afterwards. 88 bytes, no padding, so equal games stay equal bytes. */
struct city_tab {
    uint64_t owned;                  /* bitset of designs present */
    int32_t vp, income;              /* the fixed victory points and income, summed */
    uint16_t icons[CITY_ICON_COUNT]; /* icons printed, repeats counted */
    uint16_t unused;                 /* always 0 */
    uint8_t count[CITY_MAX_DESIGNS]; /* copies of each design */
};

struct city_seat {
    uint8_t nhand;
    uint8_t hand[CITY_DECK_SIZE];
    uint8_t ntableau;
    uint8_t tableau[CITY_DECK_SIZE];          /* in build order */
    int32_t vp;                               /* total victory points */
    bool pending;                             /* must decide in the current step */
    bool submitted;                           /* has a decision for the current step */
    bool defaulted;                           /* the current decision is a default */
    uint8_t drew;                             /* cards drawn by this round's survey */
    struct city_decision order;               /* the decision, valid when submitted */
    struct city_reveal reveal;                /* public summary of the last build step */
    int16_t vp_by_round[CITY_MAX_ROUNDS + 1]; /* total after each round; [0] = 0 */
    int16_t last_income;                      /* cards drawn as income in the last round */
    struct city_tab tab;                      /* the tableau's summary (derived) */
};

struct city_game {
    const struct city_catalog *cat; /* borrowed */
    uint64_t seed;
    struct city_rng rng;
    uint8_t players;
    int16_t target_vp;
    int16_t round; /* 0 during keep, then 1, 2, ... */
    uint8_t step;  /* enum city_step */
    uint8_t ndeck; /* deck[ndeck-1] is the top card */
    uint8_t deck[CITY_DECK_SIZE];
    uint8_t ndiscard;
    uint8_t discard[CITY_DECK_SIZE];
    uint8_t npool;
    uint8_t pool[CITY_CONTRACTORS];
    uint8_t nremoved; /* General Contractors that left the game at setup */
    uint8_t removed[CITY_CONTRACTORS];
    uint8_t winners;      /* bitmask of winning seats once over */
    bool ended_by_deck;   /* the game ended because income could not be paid */
    bool ended_by_rounds; /* the game ended at CITY_MAX_ROUNDS */
    uint16_t reshuffles;
    struct city_seat seats[CITY_MAX_PLAYERS];
};

/* Public events that resolving a step produces, in order. The service turns them into its
 * log; the engine only reports them. Card fields are instance ids. */
enum city_event_type {
    CITY_EV_STEP,       /* a step opened: round, step */
    CITY_EV_DEFAULT,    /* seat got a default decision */
    CITY_EV_DISCARDED,  /* seat discarded `count` cards (keep, survey, hand_limit) */
    CITY_EV_BUILT,      /* seat built `card`, paying `count` cards */
    CITY_EV_CONTRACTOR, /* seat took General Contractor `card` */
    CITY_EV_SURVEYED,   /* seat surveyed and drew `count` cards */
    CITY_EV_RESHUFFLED, /* the discard pile (`count` cards) became the deck */
    CITY_EV_SCORED,     /* seat scored `count` points this round, total `total` */
    CITY_EV_INCOME,     /* seat drew `count` cards of income */
    CITY_EV_NO_INCOME,  /* the deck and discard pile could not pay `count` cards: the game ends */
    CITY_EV_GAME_OVER,  /* the game ended; winners in `total` as a seat bitmask */
};

struct city_event {
    uint8_t type;
    int8_t seat; /* -1 when the event is about no seat */
    int16_t round;
    uint8_t step;
    uint8_t card;
    int32_t count;
    int32_t total;
};

/* Receives each event as it happens; may be NULL where no one listens. */
struct city_events {
    void (*emit)(void *ctx, const struct city_event *ev);
    void *ctx;
};

/* Starts a game: `players` seats (2..5), a target (CITY_MIN_TARGET..CITY_MAX_TARGET; 0 means
 * CITY_DEFAULT_TARGET), dealt from `seed`. The game opens in step keep. Returns CITY_OK, or
 * CITY_ERR_BAD_SEAT for a bad player count or target. */
int city_new(struct city_game *g, const struct city_catalog *cat, int players, uint64_t seed,
             int target_vp);

/* True when seat `seat` must decide in the current step (whether or not it has already
 * submitted; a later submission replaces the earlier). Inline: bots ask it on every decision. */
static inline bool game_seat_pending(const struct city_game *g, int seat)
{
    return seat >= 0 && seat < g->players && g->step != CITY_STEP_OVER && g->seats[seat].pending;
}

/* Sets every byte of decision *d to zero. A plain memset of the whole struct (139 bytes)
 * compiles to `rep stos`, which costs tens of cycles to start; fixed pieces of at most 64
 * bytes compile to a few vector stores. */
static inline void city_decision_clear(struct city_decision *d)
{
    _Static_assert(sizeof *d > 128 && sizeof *d <= 192, "city_decision_clear's pieces");
    unsigned char *p = (unsigned char *)d;
    memset(p, 0, 64);
    memset(p + 64, 0, 64);
    memset(p + 128, 0, sizeof *d - 128);
}

/* How many cards seat `seat` must discard in the current discard step (0 in build). */
int city_discard_count(const struct city_game *g, int seat);

/* The effective cost of design `design` for seat `seat` now: printed cost less every kind of
 * applicable discount in its tableau, never below 0. */
int city_effective_cost(const struct city_game *g, int seat, int design);

/* A seat's legal build options now (rules.md, step build). Only card[0..nbuilds) and
 * cost[0..nbuilds) are written. */
struct city_build_options {
    uint8_t nbuilds;
    uint8_t card[CITY_DECK_SIZE]; /* hand cards it can build on its own now */
    uint8_t cost[CITY_DECK_SIZE]; /* their effective costs */
    bool contractor;              /* a General Contractor can be taken */
    bool two;                     /* a double build (Construction Gang) is open */
};
void city_build_options(const struct city_game *g, int seat, struct city_build_options *out);

/* Why seat `seat` cannot build hand card `card` on its own now, as city_check() refuses it:
 * CITY_ERR_NOT_BUILDABLE (a General Contractor), CITY_ERR_PREREQUISITE, CITY_ERR_LIMIT, or
 * CITY_ERR_PAYMENT_COUNT (its effective cost is more than the other cards in hand); CITY_OK
 * when it can (city_build_options() lists it). *missing receives the bitset of the designs it
 * requires that the seat's tableau lacks. */
int city_build_blocker(const struct city_game *g, int seat, int card, uint64_t *missing);

/* A legal Construction Gang pair: build card a, then card b, at these effective costs. */
struct city_pair {
    uint8_t a, b;
    uint8_t cost_a, cost_b;
};

/* Lists up to `max` legal double builds for seat `seat` now into `out` (NULL with max 0 to
 * only count them). Returns how many there are in all (which may exceed max). */
int city_double_pairs(const struct city_game *g, int seat, struct city_pair *out, int max);

/* Checks decision `d` for seat `seat` in the current step without changing anything.
 * Returns CITY_OK or the first reason it is illegal. */
int city_check(const struct city_game *g, int seat, const struct city_decision *d);

/* Checks `d` and, when legal, stores it as the seat's decision for the current step
 * (replacing an earlier one). Returns CITY_OK or the reason it was refused, in which case
 * nothing changed. Does not resolve; see city_ready() and city_resolve(). */
int city_submit(struct city_game *g, int seat, const struct city_decision *d);

/* True when every pending seat has submitted, so the step can resolve. */
bool city_ready(const struct city_game *g);

/* Gives every pending seat without a decision the default of rules.md ("Missed decisions"):
 * survey in build, the greedy bot's discards otherwise. Returns how many seats got one. */
int city_fill_defaults(struct city_game *g, const struct city_events *ev);

/* Resolves the current step and opens the next one (skipping steps with nobody to act),
 * reporting public events to `ev`. Requires city_ready(); returns false (changing nothing)
 * when it is not, or when the game is over. */
bool city_resolve(struct city_game *g, const struct city_events *ev);

/* Victory points card at tableau position `pos` of seat `seat` scores per round now, and its
 * income. Used by scoring and by the public breakdown. */
int city_card_vp(const struct city_game *g, int seat, int pos);
int city_card_income(const struct city_game *g, int seat, int pos);

/* Sums of city_card_vp() / city_card_income() over a seat's tableau. */
int city_seat_round_vp(const struct city_game *g, int seat);
int city_seat_income(const struct city_game *g, int seat);

/* What seat `seat` would gain per round, in victory points and in income, if the `n` designs
 * in `designs` entered its tableau now (variable points of cards already there included). */
void city_gain_if_built(const struct city_game *g, int seat, const int *designs, int n, int *dvp,
                        int *dincome);

/* What seat `seat` would score per round, and draw as income, in all if the `n` designs in
 * `designs` entered its tableau now: city_gain_if_built() without subtracting today's figures
 * (for a caller that weighs many builds against the same ones). */
void city_totals_if_built(const struct city_game *g, int seat, const int *designs, int n, int *vp,
                          int *income);

/* Recomputes seat `seat`'s tableau summary (struct city_tab) from its tableau. The engine
 * keeps summaries up to date itself; call this after changing a tableau by other means. Every
 * card in the tableau must be a valid instance id. */
void city_seat_refresh(struct city_game *g, int seat);

/* Card conservation: every instance is in exactly one place (deck, discard, a hand, a
 * tableau, the pool, removed), and every seat's tableau summary matches its tableau. Returns
 * true when both hold. */
bool city_check_conservation(const struct city_game *g);

/* Design index of a card instance. */
static inline int city_design_of(const struct city_game *g, int card)
{
    return g->cat->card_design[card];
}

#endif
