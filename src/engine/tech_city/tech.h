/* tech.h: the rules engine of Tech City — a game's whole state as one plain, copyable struct,
 * and the operations on it: start a game from a seed, ask who must decide at the current
 * decision point and what they may do, submit a decision (with a precise reason when it is
 * illegal), give defaults for missed deadlines, and resolve the point. No I/O, no allocation,
 * no globals: the same seed and the same decisions give the same game, bit for bit. Rules are
 * those of docs/tech_city.md; the card effects are data (tech_cards.h) run by one interpreter
 * (tech_effects.c).
 *
 * Ownership: a struct tech_game holds a borrowed pointer to its catalog, which must outlive
 * it; everything else is inside the struct, so memcpy() copies a game. */
#ifndef TECH_H
#define TECH_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "tech_cards.h"

enum {
    TECH_MIN_PLAYERS = 1,
    TECH_MAX_PLAYERS = 6,
    TECH_TWO_DECKS_FROM = 5, /* 5-6 players shuffle two decks together */
    TECH_ROUNDS = 6,
    TECH_DEAL = 6,            /* cards dealt to each player */
    TECH_HAND_LIMIT = 6,      /* kept at the end of a round ... */
    TECH_HAND_LIMIT_BIG = 5,  /* ... or this many in a 5-6 player game */
    TECH_DRAW_UP = 3,         /* a hand below this is drawn up to it at the end of a round */
    TECH_CHEAP_VALUE = 7,     /* one card of value <= this pays a build */
    TECH_MAX_COORD = 120,     /* |x|, |y| of a cell: more than any city can reach */
    TECH_SCORE_CAP_MATCH = 3, /* base points: 1, 2, 3 or more matches give 1, 2, 3 */
};

/* The steps of a game: the kind of each decision point. TECH_STEP_OVER: the game has ended. */
enum tech_step {
    TECH_STEP_BUILD,   /* the active seat builds or passes */
    TECH_STEP_HELP,    /* the other seats may discard a card to help build a service */
    TECH_STEP_EFFECT,  /* the active seat uses an effect or passes */
    TECH_STEP_OWNER,   /* a company's owner may draw a card (then discards one) */
    TECH_STEP_CHOOSE,  /* a seat picks cards an effect asks for */
    TECH_STEP_DISCARD, /* end of round: seats over the limit discard down (simultaneous) */
    TECH_STEP_OVER,
    TECH_STEP_COUNT
};

/* What a decision does; which kinds answer which step is in tech_check(). */
enum tech_decision_kind {
    TDEC_NONE = 0,
    TDEC_PASS,  /* build, help, effect */
    TDEC_BUILD, /* build: card, x, y, pay (and as_value/as_domain for a wild card) */
    TDEC_HELP,  /* help: card */
    TDEC_USE,   /* effect: x, y (the card used), free, and the effect's choices */
    TDEC_OWNER, /* owner: draw */
    TDEC_CARDS, /* choose and discard: cards */
};

enum { TECH_NONE = 255 }; /* no card, no seat */

/* One seat's decision at one point. Card numbers are instance ids (0..107). */
struct tech_decision {
    uint8_t kind; /* enum tech_decision_kind */
    uint8_t card; /* build: the card built; help: the card given; use: the hand card */
    int8_t x, y;  /* build: the cell; use: the card used */
    uint8_t npay;
    uint8_t pay[2];
    int8_t as_value;  /* wild card: the value named (0 otherwise) */
    int8_t as_domain; /* wild card: the domain named (-1 otherwise) */
    bool free;        /* use: the Knowledge free use */
    bool draw;        /* owner: draws a card (then discards one) */
    bool owner_first; /* use of another seat's company: its owner draws and discards first */
    bool has_target, has_to;
    int8_t tx, ty;  /* use: "target" cell */
    int8_t ux, uy;  /* use: "to" cell */
    uint8_t take;   /* use: a discard-pile card */
    uint8_t victim; /* use: a seat (steal) */
    uint8_t ncards;
    uint8_t cards[TECH_MAX_CARDS]; /* choose, discard */
    /* Any kind: cards of the seat's hand it shows to all when the point resolves (the rule
     * text's "a player who looks at a card may choose to divulge" it). */
    uint8_t ndivulge;
    uint8_t divulge[TECH_MAX_CARDS];
};

/* Empties a decision: no kind, no card, take or victim (TECH_NONE), no wild name. */
static inline void tech_decision_init(struct tech_decision *d)
{
    __builtin_memset(d, 0, sizeof *d);
    d->card = d->take = d->victim = TECH_NONE;
    d->as_domain = -1;
}

/* Why a decision was refused. Stable: the service turns each into a problem `code`. */
enum tech_error {
    TECH_OK = 0,
    TECH_ERR_GAME_OVER,       /* the game has ended */
    TECH_ERR_BAD_SEAT,        /* no such seat */
    TECH_ERR_NOT_PENDING,     /* this seat has nothing to decide now */
    TECH_ERR_WRONG_KIND,      /* e.g. a build in the effects phase */
    TECH_ERR_NOT_IN_HAND,     /* a named card is not in this seat's hand */
    TECH_ERR_DUPLICATE_CARD,  /* a card is named twice */
    TECH_ERR_CELL_TAKEN,      /* the build cell already holds a card */
    TECH_ERR_NOT_ADJACENT,    /* the build cell touches no card orthogonally */
    TECH_ERR_OFF_GRID,        /* a coordinate outside -120..120 */
    TECH_ERR_PAYMENT,         /* the payment is not one the rules allow for this seat */
    TECH_ERR_WILD_NAME,       /* a wild card's value and domain name no card in play */
    TECH_ERR_NO_CARD_THERE,   /* no card in the named city cell */
    TECH_ERR_TILTED,          /* that company's effect was used this round */
    TECH_ERR_FREE_USE,        /* the free use needs two Knowledge companies and one of your own */
    TECH_ERR_ALREADY_USED,    /* this seat has already made that use this round */
    TECH_ERR_MISSING_CHOICE,  /* the effect needs a choice the decision lacks */
    TECH_ERR_NEEDLESS_CHOICE, /* the decision names a choice the effect does not take */
    TECH_ERR_BAD_TARGET,      /* the effect cannot apply to the named card, cell or seat */
    TECH_ERR_SEED_CARD,       /* the seed card never leaves the city */
    TECH_ERR_CARD_COUNT,      /* wrong number of cards chosen or discarded */
    TECH_ERR_NOT_OFFERED,     /* a chosen card is not one of those offered */
    TECH_ERR_COUNT
};

/* The stable code (e.g. "not_in_hand") and an English sentence for an error. */
const char *tech_error_code(int err);
const char *tech_error_message(int err);

/* The steps' names as the API spells them, by step number ("build", "help", "effect",
 * "owner", "choose", "discard", "over"), NULL-terminated: the ruleset's `steps`. */
extern const char *const tech_step_names[];

/* Name of a step ("?" for another number), and the reverse (-1 when unknown). */
const char *tech_step_name(int step);
int tech_step_from_name(const char *name);

/* What a choose point asks for. */
enum tech_choose_kind {
    CHOOSE_NONE = 0,
    CHOOSE_DISCARD,  /* discard `choose_n` cards from hand */
    CHOOSE_REVEALED, /* take one of the revealed cards */
};

/* An effect in progress: the use, then the choices it waits for. */
enum tech_run_stage {
    RUN_NONE = 0,
    RUN_OTHERS,
    RUN_OWNER,
    RUN_OWNER_DISCARD,
    RUN_DONE,
    RUN_BEFORE /* the owner's draw-and-discard first; the effect waits in g->use */
};

struct tech_run {
    uint8_t stage;      /* enum tech_run_stage */
    uint8_t user;       /* the seat using the effect */
    uint8_t card;       /* the card whose effect runs */
    uint8_t owner;      /* its owner when another seat controlled it at use, else TECH_NONE */
    uint8_t next_other; /* RUN_OTHERS: the next seat (offset from user) to ask */
};

struct tech_seat {
    uint8_t nhand;
    uint8_t hand[TECH_MAX_CARDS];
    int16_t score;
    bool used_normal; /* made the normal use this round */
    bool used_free;   /* made the Knowledge free use this round */
    bool passed;      /* passed in this round's effects phase */
};

/* The most empty cells next to a city (four a card). */
enum { TECH_MAX_CELLS = 4 * TECH_MAX_CARDS };

struct tech_game {
    const struct tech_catalog *cat; /* borrowed */
    uint64_t seed;
    struct city_rng rng;
    uint8_t players;
    uint8_t ncards; /* instances in this game: 54, or 108 with two decks */
    uint8_t seed_card;
    int8_t round; /* 1..6 */
    uint8_t step; /* enum tech_step */
    int32_t turn; /* decision points opened since the start; the first is 1 */
    uint8_t first;
    uint8_t phase_i; /* seats whose build/effect turn is over in this phase */
    uint8_t actor;   /* the seat whose build/effect turn it is */

    uint8_t ndeck; /* deck[ndeck-1] is the top card */
    uint8_t deck[TECH_MAX_CARDS];
    uint8_t ndiscard; /* discard[ndiscard-1] is the top card */
    uint8_t discard[TECH_MAX_CARDS];
    uint8_t nexpelled;
    uint8_t expelled[TECH_MAX_CARDS];
    uint8_t ncity; /* in the order they came into play */
    uint8_t city[TECH_MAX_CARDS];
    int8_t cx[TECH_MAX_CARDS], cy[TECH_MAX_CARDS]; /* by instance, for cards in the city */
    uint8_t owner[TECH_MAX_CARDS];                 /* by instance: seat, or TECH_NONE */
    bool tilted[TECH_MAX_CARDS];                   /* by instance */

    struct tech_seat seats[TECH_MAX_PLAYERS];

    /* The decision point. */
    uint8_t pending, submitted, defaulted; /* seat bitmasks */
    struct tech_decision dec[TECH_MAX_PLAYERS];
    struct tech_decision build; /* a service build waiting for help */
    struct tech_decision use;   /* a use waiting for its owner's draw-and-discard (RUN_BEFORE) */
    struct tech_run run;
    uint8_t choose_kind, choose_n; /* enum tech_choose_kind, cards asked for */
    uint8_t nrevealed;             /* revealed cards (public until the point resolves) */
    uint8_t revealed[TECH_MAX_REVEAL];

    uint8_t winners; /* bitmask of winning seats once over */
    uint16_t reshuffles;
    uint64_t built_designs; /* designs built from hand this game (figures) */
    uint64_t used_designs;  /* designs whose effect was used this game (figures) */

    /* Read off the city, kept as it changes (tech_city_put(), tech_city_remove(), the moves of
     * cards and markers; tech_city_recount() for a city set otherwise) so that the bots' many
     * questions do not scan it: the answers of tech_controls() (controls[seat][domain + 1],
     * [seat][0] all of seat's), the cards in the city by value, and the answer of
     * tech_open_cells() (nopen cells in its order; the entries past them are zero, so that two
     * games with the same city have the same bytes). */
    uint8_t controls[TECH_MAX_PLAYERS][DOMAIN_WILD + 2];
    uint8_t by_value[TECH_VALUES + 1];
    uint16_t nopen;
    int8_t open_x[TECH_MAX_CELLS], open_y[TECH_MAX_CELLS];
};

/* Public events that resolving a point produces, in order; the ruleset turns them into the
 * log's JSON. Card fields are instance ids (TECH_NONE for none). Never secret: no event says
 * which card a seat drew or kept. */
enum tech_event_type {
    TEV_STEP,           /* a point opened: count = pending seat mask */
    TEV_DEFAULT,        /* seat got a default decision, count = its kind */
    TEV_BUILT,          /* seat built card at x,y paying count cards; total = points */
    TEV_HELPED,         /* seat gave card to help build a service */
    TEV_SERVICE_FAILED, /* seat's service card returned to its hand */
    TEV_EFFECT,         /* seat used card at x,y (flag = free use) */
    TEV_SCORED,         /* seat scored count points, total score total */
    TEV_DREW,           /* seat drew count cards, hand total */
    TEV_DISCARDED,      /* seat discarded card (one event per card) */
    TEV_RESHUFFLED,     /* the discard pile became the deck: count cards */
    TEV_EXPELLED,       /* card left the game (x,y when from the city, flag) */
    TEV_REVEALED,       /* card was revealed from the deck */
    TEV_TOOK,           /* seat took a card: from the discard pile (card) or a seat (count) */
    TEV_PLACED,         /* card entered the city at x,y by an effect or a wild card */
    TEV_MOVED,          /* card moved to x,y (swap) */
    TEV_MARKER,         /* card's owner became count (-1 neutral) */
    TEV_PASSED,         /* seat passed */
    TEV_GAME_OVER,      /* count = winners mask */
    TEV_DIVULGED,       /* seat showed card of its hand to all (its order asked to) */
};

struct tech_event {
    uint8_t type;
    int8_t seat;
    int8_t round;
    uint8_t step;
    int32_t turn;
    uint8_t card;
    int8_t x, y;
    bool flag;
    int32_t count;
    int32_t total;
};

struct tech_events {
    void (*emit)(void *ctx, const struct tech_event *ev);
    void *ctx;
};

/* Starts a game of `players` seats (1..6) dealt from `seed`: the seed card at (0,0), six cards
 * each, a first player drawn from the seed; opens the first build point. Returns TECH_OK or
 * TECH_ERR_BAD_SEAT for a bad player count. */
int tech_new(struct tech_game *g, const struct tech_catalog *cat, int players, uint64_t seed);

/* tech_new() with a number of decks: 0 for the default (two at 5-6 players, else one), 1, or 2
 * (5-6 players only: the rule text suggests two decks there, it does not impose them).
 * TECH_ERR_BAD_SEAT for a bad player count or a number of decks the players cannot take. */
int tech_new_decks(struct tech_game *g, const struct tech_catalog *cat, int players, uint64_t seed,
                   int decks);

/* The decks of a game (1 or 2). */
static inline int tech_decks(const struct tech_game *g)
{
    return g->ncards > g->cat->deck_size ? 2 : 1;
}

/* Design of an instance, and its fields. */
static inline const struct tech_design *tech_design_of(const struct tech_game *g, int card)
{
    unsigned n = (unsigned)g->cat->deck_size; /* the first deck's cards without a division */
    return &g->cat->designs[g->cat->card_design[(unsigned)card < n ? card : card % (int)n]];
}

/* The card in cell (x, y), or TECH_NONE. */
int tech_card_at(const struct tech_game *g, int x, int y);

/* True when an empty cell (x, y) touches a card of the city orthogonally. */
bool tech_cell_open(const struct tech_game *g, int x, int y);

/* Companies seat controls, in all or of one domain (domain -1 = all). */
static inline int tech_controls(const struct tech_game *g, int seat, int domain)
{
    return g->controls[seat][domain < 0 ? 0 : domain + 1];
}

/* The hand limit of this game (6, or 5 with 5-6 players). */
int tech_hand_limit(const struct tech_game *g);

/* Points a build of `card` (or, for a wild card, of value as_value / domain as_domain) by
 * seat at (x, y) would score now, before the service minimum: tech_match_points() of its value
 * and domain plus tech_neighbour_point() of the cell. */
int tech_build_points(const struct tech_game *g, int seat, int card, int x, int y, int as_value,
                      int as_domain);

/* The part of a build's points that depends on the card alone: base points for the cards in
 * play of the same value (1, 2, 3 or more give 1, 2, 3), +1 when the base is at least 2 and seat
 * would control two Science companies (the built card counting when its domain is Science). */
int tech_match_points(const struct tech_game *g, int seat, int value, int domain);

/* The part that depends on the cell alone: 1 when (x, y) touches (8-neighbourhood) at least two
 * companies seat controls, else 0. */
int tech_neighbour_point(const struct tech_game *g, int seat, int x, int y);

/* How many cards may pay seat's build of hand card `card` now, as a bitmask (bit n set: n cards
 * pay, n = 0..2). A company: only 0 when seat controls two Technology companies, else 1 (a card
 * tech_pays_alone() accepts) or 2 (any two). A service (the builder's own help): 0 or 1, and
 * exactly 1 in a solo game. tech_check_build() applies exactly this rule. */
unsigned tech_pay_counts(const struct tech_game *g, int seat, int card);

/* True when hand card `payer` pays seat's build of `card` on its own: for a company, a card of
 * value <= TECH_CHEAP_VALUE or a wild card, or any card once seat controls one Technology
 * company (never when the build is free); for a service, any card. */
bool tech_pays_alone(const struct tech_game *g, int seat, int card, int payer);

/* tech_pay_counts() and tech_pays_alone() for a seat controlling `tech` Technology companies
 * (tech_controls(g, seat, DOMAIN_TECHNOLOGY)), for a caller asking many times at one point. */
unsigned tech_pay_counts_with(const struct tech_game *g, int tech, int card);
bool tech_pays_alone_with(const struct tech_game *g, int tech, int card, int payer);

/* True when some payment of seat's build of hand card `card` is legal now (tech_pay_counts(),
 * tech_pays_alone() and the cards left in hand). */
bool tech_build_payable(const struct tech_game *g, int seat, int card);

/* How seat may use the effect of city card `card` at its effect point. */
struct tech_use_option {
    bool normal;      /* as its normal use of the round */
    bool free;        /* as the Knowledge free use */
    bool owner_first; /* "owner_first" may be sent: another seat controls the card (normal use) */
    unsigned choices; /* what the effect takes, as bits of enum tech_choice (tech_effects.h):
                       * 1 a hand card, 2 a card of the discard pile, 4 a target cell, 8 a "to"
                       * cell (another than the target), 16 a seat */
    int points;       /* what the use would score now (only a score effect scores) */
};

/* Fills *out and returns true when seat, pending at an effect point, may use `card` (a city
 * card) now: the use is open (tech_use_open()) and every choice its effect takes has a legal
 * value, so that some use order naming it passes tech_check(). False otherwise (*out zeroed). */
bool tech_use_option(const struct tech_game *g, int seat, int card, struct tech_use_option *out);

/* The empty cells a card may be built into now (orthogonally next to a card of the city), in
 * the city's order, each once, into xs/ys; returns how many (at most `max`: TECH_MAX_CELLS
 * holds every one). The game keeps them (g->open_x, g->open_y, g->nopen), and a caller that
 * only reads them may read them there. */
int tech_open_cells(const struct tech_game *g, int8_t *xs, int8_t *ys, int max);

/* How many cards seat must give at a choose or discard point: down to the hand limit at a
 * discard point, one revealed card to take, else the cards an effect asks to discard (at most
 * the hand). */
int tech_cards_wanted(const struct tech_game *g, int seat);

/* True when seat must decide at the current point. */
bool tech_pending(const struct tech_game *g, int seat);

/* Checks decision `d` for seat at the current point without changing anything. Returns
 * TECH_OK or the first reason it is illegal. */
int tech_check(const struct tech_game *g, int seat, const struct tech_decision *d);

/* Checks `d` and, when legal, stores it as seat's decision at this point (replacing an earlier
 * one). Returns TECH_OK or the reason it was refused, in which case nothing changed. */
int tech_submit(struct tech_game *g, int seat, const struct tech_decision *d);

/* True when every pending seat has submitted, so the point can resolve. */
bool tech_ready(const struct tech_game *g);

/* The default for a missed decision: pass in build, help and effect, no draw for an owner,
 * the lowest-valued cards (lowest id first) in choose and discard, the first revealed card. */
void tech_default_decision(const struct tech_game *g, int seat, struct tech_decision *d);

/* Gives every pending seat without a decision its default; returns how many got one. */
int tech_fill_defaults(struct tech_game *g, const struct tech_events *ev);

/* Resolves the current point and opens the next one, reporting public events. Requires
 * tech_ready(); returns false (changing nothing) when not ready or over. */
bool tech_resolve(struct tech_game *g, const struct tech_events *ev);

/* Card conservation: every instance in exactly one place (deck, discard pile, a hand, the
 * city, expelled), the seed card in the city. True when it holds. */
bool tech_check_conservation(const struct tech_game *g);

/* The decision point is consistent: who is pending fits the step (one actor in build and
 * effect, helpers other than the builder in help, the owner in owner, one seat in choose,
 * seats over the limit in discard, none once over), the effect in progress names a card and
 * seats of the game, a service build waits in help. True when it holds; tech_state_from_json()
 * refuses a state where it does not, so the engine can go on from any state it accepts. */
bool tech_check_point(const struct tech_game *g);

#endif
