/* sc.h: the rules engine of SimCity: The Card Game — a game's whole state as one plain, copyable
 * struct, and the operations on it: start a game from a seed, ask who must decide at the current
 * decision point and what they may do (every legal option, with what a play would score),
 * submit a decision (with a precise reason when it is illegal), give defaults for missed
 * deadlines, and resolve the point. No I/O, no allocation, no globals: the same seed and the
 * same decisions give the same game, bit for bit. Rules are those of docs/simcity.md; the cards'
 * specials and events are data (sc_cards.h) run by one interpreter (sc_city.c, sc_politics.c).
 *
 * Every point where a seat decides is a decision point of one seat (a turn's draw, council
 * purchase and play; a chosen target of a timed event; each seat's ballot in a rezoning vote
 * and the Mayor's; the Mayor's bill; each bid of an election; Solitaire's discard).
 *
 * Ownership: a struct sc_game holds a borrowed pointer to its catalog, which must outlive it;
 * everything else is inside the struct, so memcpy() copies a game. */
#ifndef SC_H
#define SC_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "sc_cards.h"

enum {
    SC_MIN_PLAYERS = 1,
    SC_MAX_PLAYERS = 6,
    SC_DEAL = 7,      /* cards dealt to each player */
    SC_SOLO_HAND = 7, /* Solitaire's hand limit */
    SC_SIDE_SMALL = 12,
    SC_SIDE_BIG = 14, /* the surface's side at SC_BIG_FROM players and more */
    SC_BIG_FROM = 5,
    SC_STRIDE = 14, /* cells are numbered y * SC_STRIDE + x */
    SC_CELLS = SC_STRIDE * SC_STRIDE,
    SC_SCORCHED_BONUS = 5, /* $ for a block on a cell a disaster emptied */
    SC_GROUP_MIN = 3,      /* a zone or complex pays once it counts this many */
    SC_MAYOR_VOTES = 2,
    SC_VILLAGE_MIN = 4, /* phase II: blocks providing sims >= max(this, P) */
    SC_CITY_MIN = 8,    /* phase III: blocks requiring sims >= max(this, 2P) */
    SC_CITY_PER = 2,
    SC_METRO_MIN = 40, /* phase IV: sims > max(this, 10P) - the residential bonus */
    SC_METRO_PER = 10,
    SC_MAX_MEMBERS = 24,  /* council members one seat may hold */
    SC_MAX_TIMED = 8,     /* timed events running at once */
    SC_MAX_BILLS = 8,     /* bills waiting for the Mayor */
    SC_MAX_TARGET = 5000, /* the largest money target */
    /* The default money target, $50 + $40 a player (tuned by simulate; cards/README.md). */
    SC_TARGET_BASE = 50,
    SC_TARGET_PER_PLAYER = 40,
    SC_NONE = 255, /* no card, seat or cell */
};

/* The steps of a game: the kind of each decision point. SC_STEP_OVER: the game has ended. */
enum sc_step {
    SC_STEP_DRAW,      /* Solitaire: draw from the deck or take the discard pile's top */
    SC_STEP_COUNCIL,   /* the active seat may buy one Council Member from its hand */
    SC_STEP_TARGET,    /* the active seat picks where a timed event acts this turn */
    SC_STEP_PLAY,      /* the active seat plays a block or an event, or passes */
    SC_STEP_VOTE,      /* one seat casts its members' ballots, or the Mayor votes */
    SC_STEP_MAYOR_PAY, /* the Mayor pays a bill in full, or half and vacates */
    SC_STEP_ELECTION,  /* one seat buys votes for a candidate, or passes */
    SC_STEP_DISCARD,   /* Solitaire: a hand over the limit discards one */
    SC_STEP_OVER,
    SC_STEP_COUNT
};

/* What a decision does; which kinds answer which step is in sc_check(). */
enum sc_decision_kind {
    SC_DEC_NONE = 0,
    SC_DEC_PASS,    /* council, play, election */
    SC_DEC_PLAY,    /* play: card at x, y (a block's cell; an event's chosen block, or -1) */
    SC_DEC_BUY,     /* council: card */
    SC_DEC_TARGET,  /* target: x, y */
    SC_DEC_VOTE,    /* vote: ballots (a seat) or mayor and tie (the Mayor) */
    SC_DEC_PAY,     /* mayor_pay: vacate or not */
    SC_DEC_BID,     /* election: votes for candidate */
    SC_DEC_DISCARD, /* discard: card */
    SC_DEC_DRAW,    /* draw: from_discard or not */
};

/* One seat's decision at one point. Cards are instance ids (0..ncards-1). */
struct sc_decision {
    uint8_t kind; /* enum sc_decision_kind */
    uint8_t card;
    int8_t x, y;
    uint8_t nballots;                /* vote by a seat: one per member it holds, in order */
    uint8_t ballots[SC_MAX_MEMBERS]; /* SC_BALLOT_*; a corrupt member's is its card's */
    uint8_t mayor;                   /* vote by the Mayor: its 2 votes (SC_BALLOT_*) ... */
    uint8_t tie;                     /* ... and its tie-break (SC_BALLOT_WITHHOLD: none) */
    bool vacate;                     /* mayor_pay: pay half (rounded up) and vacate */
    int16_t votes;                   /* bid: $1 votes bought */
    uint8_t candidate;               /* bid: the seat they are cast for */
    bool from_discard;               /* draw */
};

/* Empties a decision: no kind, no card, no cell, no candidate. */
static inline void sc_decision_init(struct sc_decision *d)
{
    __builtin_memset(d, 0, sizeof *d);
    d->card = d->candidate = SC_NONE;
    d->x = d->y = -1;
}

/* Why a decision was refused. Stable: the service turns each into a problem `code`. */
enum sc_error {
    SC_OK = 0,
    SC_ERR_GAME_OVER,
    SC_ERR_BAD_SEAT,
    SC_ERR_NOT_PENDING,
    SC_ERR_WRONG_KIND,
    SC_ERR_NOT_IN_HAND,
    SC_ERR_OFF_GRID,
    SC_ERR_WRONG_CARD,    /* a council member to play, a block to buy, ... */
    SC_ERR_PHASE,         /* the city has not reached the card's phase */
    SC_ERR_POWER_PLANT,   /* no city card, event or member before the first Power Plant */
    SC_ERR_FIRST_CELL,    /* the first block goes in the centre cell */
    SC_ERR_NOT_ADJACENT,  /* a new block must share an edge with a block */
    SC_ERR_NO_REZONE,     /* covering a block that is no upgrade needs a free rezone or a vote */
    SC_ERR_SIMS,          /* the sims connected do not meet the card's requirement */
    SC_ERR_RESTRICTED,    /* the card's specials do not allow it there */
    SC_ERR_LIMIT,         /* the card's Limit of N is reached */
    SC_ERR_FORBIDDEN,     /* an event forbids placing next to such blocks now */
    SC_ERR_BAD_TARGET,    /* not a block the event or timed effect may choose */
    SC_ERR_CANNOT_AFFORD, /* the member's cost or the votes bought exceed your money */
    SC_ERR_BALLOTS,       /* one ballot per member held; a corrupt member's is fixed */
    SC_ERR_BAD_CANDIDATE, /* no such seat to vote for */
    SC_ERR_EMPTY_PILE,    /* nothing to draw there */
    SC_ERR_COUNT
};

/* The stable code (e.g. "not_in_hand") and an English sentence for an error. */
const char *sc_error_code(int err);
const char *sc_error_message(int err);

/* The steps' names as the API spells them, by step number ("draw", "council", "target", "play",
 * "vote", "mayor_pay", "election", "discard", "over"), NULL-terminated: the ruleset's `steps`. */
extern const char *const sc_step_names[];

/* Name of a step ("?" for another number), and the reverse (-1 when unknown). */
const char *sc_step_name(int step);
int sc_step_from_name(const char *name);

/* How a block comes into the city (a play's mode). */
enum sc_mode {
    SC_MODE_NEW,     /* on an empty cell */
    SC_MODE_UPGRADE, /* on a block of its zone, keeping its services */
    SC_MODE_REZONE,  /* on another block, free (one of the cards says so) */
    SC_MODE_VOTE,    /* on another block, if the council votes it through */
    SC_MODE_EVENT,   /* an event card */
    SC_MODE_COUNT
};
const char *sc_mode_name(int mode);

/* Where the money came from or went (figures and the end screen). */
enum sc_source {
    SC_SRC_VALUE, /* cards' $ */
    SC_SRC_BONUS, /* receive, lose, add, deduct */
    SC_SRC_ZONE,
    SC_SRC_COMPLEX,
    SC_SRC_SCORCHED,
    SC_SRC_COVERAGE,
    SC_SRC_MAYOR,     /* a block's "the Mayor gains/pays" */
    SC_SRC_EVENTS,    /* "all players gain/pay" */
    SC_SRC_COUNCIL,   /* members bought */
    SC_SRC_BILLS,     /* the Mayor's bills */
    SC_SRC_ELECTIONS, /* votes bought */
    SC_SRC_COUNT
};
const char *sc_source_name(int source);

/* Why the game ended. */
enum sc_end {
    SC_END_NONE,
    SC_END_TARGET,       /* the round in which someone reached the target is over */
    SC_END_SURFACE_FULL, /* the surface is full and the seat to play has no legal play */
    SC_END_DECK_OUT,     /* the deck is out and a seat has no legal play or no card */
    SC_END_ALL_PASSED,   /* a whole round passed with no play and no card from the deck */
    SC_END_COUNT
};
const char *sc_end_name(int reason);

/* What a play would score, by source; total is what the player's money changes by (before
 * the $0 floor). */
struct sc_score {
    int value, bonus, zone, complex, scorched, coverage, total;
};

/* Progress within a turn (internal; in the state so that a copy plays on). */
enum sc_stage { SC_ST_START, SC_ST_EFFECTS, SC_ST_DRAW, SC_ST_COUNCIL, SC_ST_PLAY, SC_ST_END };

/* Card flags in the city. */
enum { SC_CF_OVERTURNED = 1, SC_CF_DOOMED = 2 };

struct sc_seat {
    int32_t money;
    uint8_t nhand;
    uint8_t hand[SC_MAX_CARDS];
    uint8_t ncouncil;
    uint8_t council[SC_MAX_MEMBERS];    /* members bought, in order */
    int16_t turns;                      /* own turns begun */
    int32_t earned[SC_SRC_COUNT];       /* money by source, as it moved (figures) */
    uint8_t played[SC_MAX_DESIGNS / 8]; /* designs played or bought (figures) */
};

/* A timed event: forbid, spread or remove, lasting through its player's `until`-th turn. */
struct sc_timed {
    uint8_t card;   /* the event */
    uint8_t effect; /* index of the effect in the card */
    uint8_t player;
    int16_t until;
    int8_t x, y; /* spread: the last block burnt */
};

struct sc_bill {
    uint8_t card; /* the event (or SC_NONE) */
    int16_t amount;
};

/* A rezoning vote in progress. */
struct sc_vote {
    bool active;
    uint8_t proposer, card;
    int8_t x, y;
    uint8_t next;     /* seats asked so far, from the proposer */
    bool mayor_asked; /* the Mayor's point is open or done */
    int16_t yes, no;
};

/* An election in progress. */
struct sc_election {
    bool active;
    uint8_t outgoing;
    uint8_t next;   /* offset from the outgoing mayor of the seat to ask */
    uint8_t passes; /* passes in a row */
    int16_t votes[SC_MAX_PLAYERS];
    int16_t reached[SC_MAX_PLAYERS]; /* when each reached its total (ties: first wins) */
    int16_t seq;
};

struct sc_game {
    const struct sc_catalog *cat; /* borrowed */
    uint64_t seed;
    struct city_rng rng;
    uint8_t players;
    uint8_t side;   /* the surface is side x side */
    uint8_t ncards; /* instances in this game */
    int32_t target; /* the money target; 0 in Solitaire */

    uint8_t phase; /* 1..4 */
    bool power_played;
    uint8_t mayor; /* seat, or SC_NONE */

    int32_t round; /* 1.. */
    int32_t turn;  /* decision points opened since the start; the first is 1 */
    uint8_t first; /* the first player */
    uint8_t actor; /* the seat whose turn it is */
    uint8_t stage; /* enum sc_stage */
    uint8_t effect_i;
    uint8_t plays_left;
    bool played;  /* the actor has played a card this turn */
    uint8_t idle; /* turns in a row with no play and no card drawn from the deck */
    bool target_hit;
    uint8_t end_reason; /* enum sc_end */
    uint8_t drawn;      /* the card the actor drew this turn, or SC_NONE */
    bool drew_discard;  /* ... from the discard pile (Solitaire) */

    /* The decision point. */
    uint8_t step;                          /* enum sc_step */
    uint8_t pending, submitted, defaulted; /* seat bitmasks */
    struct sc_decision dec[SC_MAX_PLAYERS];

    uint8_t ndeck; /* deck[ndeck-1] is the top card */
    uint8_t deck[SC_MAX_CARDS];
    uint8_t ndiscard; /* discard[ndiscard-1] is the top card */
    uint8_t discard[SC_MAX_CARDS];

    /* The surface: each cell a stack of cards, top[cell] uppermost, below[card] the one
     * beneath; the block is the uppermost card not overturned (SC_NONE: empty). */
    uint8_t top[SC_CELLS];
    uint8_t block[SC_CELLS];
    bool scorched[SC_CELLS];
    uint8_t cell_of[SC_MAX_CARDS]; /* by instance: its cell, or SC_NONE */
    uint8_t below[SC_MAX_CARDS];
    uint8_t flags[SC_MAX_CARDS]; /* SC_CF_* */
    uint8_t nblocks;             /* cells holding a block */

    struct sc_seat seats[SC_MAX_PLAYERS];
    uint8_t ntimed;
    struct sc_timed timed[SC_MAX_TIMED];
    uint8_t nbills;
    struct sc_bill bills[SC_MAX_BILLS];
    struct sc_vote vote;
    struct sc_election elect;

    uint8_t winners; /* bitmask of winning seats once over */
    /* Figures. */
    uint16_t votes_held, votes_passed, vacancies, elections;
    uint32_t acted;                    /* bit k: special primitive k acted */
    uint32_t acted_ev;                 /* bit k: event effect k acted */
    uint8_t phase_turn[SC_PHASES + 1]; /* round in which each phase was reached */
};

/* Public events that resolving a point produces, in order; the ruleset turns them into the
 * log's JSON. Never secret: no event says which card a seat drew. */
enum sc_event_type {
    SC_EV_STEP,        /* a point opened: count = pending seat mask */
    SC_EV_DEFAULT,     /* seat got a default decision, count = its kind */
    SC_EV_DREW,        /* seat drew count cards (flag: the discard pile's top, card), total hand */
    SC_EV_BOUGHT,      /* seat bought member card for count */
    SC_EV_PLAYED,      /* seat played block card at x,y; count = mode, total = $ scored */
    SC_EV_MONEY,       /* seat's money moved by count to total, for `source` */
    SC_EV_PASSED,      /* seat passed */
    SC_EV_PROPOSED,    /* seat proposed rezoning x,y with card */
    SC_EV_BALLOT,      /* seat's member card voted count (SC_BALLOT_*) */
    SC_EV_MAYOR_VOTE,  /* the Mayor (seat) voted count and broke a tie with total */
    SC_EV_VOTE_RESULT, /* flag: passed; count yes, total no */
    SC_EV_EVENT,       /* seat played event card (x,y: its chosen block, or -1) */
    SC_EV_DESTROYED,   /* the block card at x,y was destroyed (flag: the cell is scorched) */
    SC_EV_REMOVED,     /* card left the city at x,y */
    SC_EV_DOOMED,      /* card at x,y will be removed at the next player's turn */
    SC_EV_PHASE,       /* the city reached phase count */
    SC_EV_MAYOR,       /* seat became Mayor */
    SC_EV_BILL,        /* the Mayor (seat) owes count for event card */
    SC_EV_VACATED,     /* the Mayor (seat) vacated the office */
    SC_EV_BID,         /* seat bought count votes for seat total */
    SC_EV_ELECTED,     /* seat was elected Mayor with count votes */
    SC_EV_TIMED,       /* the timed effect of card acts or ends (flag: ended) */
    SC_EV_DISCARDED,   /* seat discarded card */
    SC_EV_TARGET,      /* seat reached the money target (count) */
    SC_EV_GAME_OVER,   /* count = winners mask, total = enum sc_end */
};

struct sc_event {
    uint8_t type;
    int8_t seat;
    int32_t round;
    uint8_t step;
    int32_t turn;
    uint8_t card;
    int8_t x, y;
    bool flag;
    uint8_t source;
    int32_t count;
    int32_t total;
};

struct sc_events {
    void (*emit)(void *ctx, const struct sc_event *ev);
    void *ctx;
};

/* The default money target at `players` seats (0 for Solitaire, which has none). */
int sc_default_target(int players);

/* Starts a game of `players` seats (1..6) dealt from `seed` with money target `target` (0: the
 * default; ignored in Solitaire): the deck for the players shuffled, 7 cards each, a first
 * player drawn from the seed; opens the first decision point. SC_OK, or SC_ERR_BAD_SEAT for a
 * bad player count or target. */
int sc_new(struct sc_game *g, const struct sc_catalog *cat, int players, uint64_t seed, int target);

/* Design of an instance. */
static inline const struct sc_design *sc_design_of(const struct sc_game *g, int card)
{
    return &g->cat->designs[g->cat->card_design[card]];
}

/* Cell number of (x, y), or -1 off the surface. */
static inline int sc_cell(const struct sc_game *g, int x, int y)
{
    return x >= 0 && y >= 0 && x < g->side && y < g->side ? y * SC_STRIDE + x : -1;
}

/* The block at (x, y), or SC_NONE (empty or off the surface). */
int sc_block_at(const struct sc_game *g, int x, int y);

/* True when every cell holds a block. */
static inline bool sc_surface_full(const struct sc_game *g)
{
    return g->nblocks >= g->side * g->side;
}

static inline bool sc_over(const struct sc_game *g)
{
    return g->step == SC_STEP_OVER;
}

/* True when seat must decide at the current point. */
bool sc_pending(const struct sc_game *g, int seat);

/* Checks decision `d` for seat at the current point without changing anything. Returns SC_OK
 * or the first reason it is illegal. */
int sc_check(const struct sc_game *g, int seat, const struct sc_decision *d);

/* Checks `d` and, when legal, stores it as seat's decision at this point (replacing an earlier
 * one). Returns SC_OK or the reason it was refused, in which case nothing changed. */
int sc_submit(struct sc_game *g, int seat, const struct sc_decision *d);

/* True when every pending seat has submitted, so the point can resolve. */
bool sc_ready(const struct sc_game *g);

/* The default for a missed decision: draw from the deck, buy no member, the first target in
 * reading order, pass the play, withhold every ballot (the Mayor breaks no tie), pay the bill
 * in full, no bid, discard the card drawn (or the last card of the hand). */
void sc_default_decision(const struct sc_game *g, int seat, struct sc_decision *d);

/* Gives every pending seat without a decision its default; returns how many got one. */
int sc_fill_defaults(struct sc_game *g, const struct sc_events *ev);

/* Resolves the current point and opens the next one, reporting public events. Requires
 * sc_ready(); returns false (changing nothing) when not ready or over. */
bool sc_resolve(struct sc_game *g, const struct sc_events *ev);

/* Whether card (a block or an event in seat's hand) may be played at (x, y) now (for an event:
 * (x, y) its chosen block, or -1, -1 when it chooses none), and in which mode. Returns SC_OK
 * with *mode set, or why not. Does not ask whether it is seat's turn to play. */
int sc_play_check(const struct sc_game *g, int seat, int card, int x, int y, int *mode);

/* What playing block `card` at (x, y) would score now (the play must pass sc_play_check()),
 * by source into *out when given; returns the total. */
int sc_play_score(const struct sc_game *g, int seat, int card, int x, int y, struct sc_score *out);

/* One legal play of the play step. */
struct sc_option {
    uint8_t card;
    int8_t x, y;   /* -1: an event that chooses no block */
    uint8_t mode;  /* enum sc_mode */
    int16_t score; /* what a block would score (if the vote passes); 0 for an event */
};

/* Every legal play of seat's hand now, each card and cell once, in hand then reading order, at
 * most `max` written; returns how many there are. With `scored`, each option's score. Passing
 * is always legal at the play step and is not listed. */
int sc_play_options(const struct sc_game *g, int seat, struct sc_option *out, int max, bool scored);

/* True when seat holds a legal play in the sense of the game's end: a block (new, upgrade or
 * free rezone) or an event; a rezone that needs a vote does not count. */
bool sc_has_legal_play(const struct sc_game *g, int seat);

/* Legal decisions of a pending seat at the current point, at most `max` written; returns how
 * many there are (0 when the seat has nothing to decide). Complete for every step but two:
 * a seat's ballots list withhold, yes and no for all its free members together (and each member
 * alone when it holds at most three), and an election's bids 1, 2, 3, 5 and 10 votes (within
 * the seat's money) for each candidate; sc_check() accepts any other legal ballot or bid. */
int sc_legal(const struct sc_game *g, int seat, struct sc_decision *out, int max);

/* The n-th (from 0) of the decisions sc_legal() lists, into *out; false when there are not
 * that many. */
bool sc_legal_nth(const struct sc_game *g, int seat, int n, struct sc_decision *out);

/* Card conservation: every instance in exactly one place (deck, discard pile, a hand, a seat's
 * council, a cell's stack). True when it holds. */
bool sc_check_conservation(const struct sc_game *g);

/* The state is consistent: who is pending fits the step, the cached blocks match the stacks,
 * money is never negative, the vote and the election name seats of the game. True when it
 * holds. */
bool sc_check_point(const struct sc_game *g);

#endif
