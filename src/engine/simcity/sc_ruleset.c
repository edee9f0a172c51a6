/* sc_ruleset.c: SimCity as one implementation of the ruleset seam (ruleset.h): its catalog
 * (sc_cards.h), engine (sc.h), orders, views and stored state (sc_json.h), bots (sc_bots.h) and
 * self-play figures (sc_sim.h, sc_report.h) behind one table of functions, and its engine
 * events turned into the public log's JSON. Listed in the server's registry (ruleset.c). */
#include <stdio.h>
#include <string.h>

#include "bot.h"
#include "expert.h"
#include "ruleset.h"
#include "sc.h"
#include "sc_bots.h"
#include "sc_json.h"
#include "sc_report.h"
#include "sc_sim.h"

/* The catalog every game of SimCity borrows; loaded once, before any game. */
static struct sc_catalog catalog;

static bool sr_load_cards(const char *path, char *err, int errlen)
{
    return sc_catalog_load_file(&catalog, path, err, errlen);
}

/* The catalog as GET /api/v1/cards serves it: named by its game, as Tech City's is, so that a
 * client (and the OpenAPI file's Catalog union) tells the games' catalogs apart. */
static json_t *sr_cards_json(void)
{
    json_t *j = sc_catalog_json(&catalog);
    json_object_set_new(j, "game", json_string("simcity"));
    return j;
}

static bool sr_new_game(void *g, int players, uint64_t seed, const int *options)
{
    int target = options ? options[0] : sc_default_target(players);
    if (players > 1 && target <= 0)
        return false;
    return sc_new(g, &catalog, players, seed, players > 1 ? target : 0) == SC_OK;
}

RS_READ(sr_players, int, struct sc_game, g->players);
RS_READ(sr_seed, uint64_t, struct sc_game, g->seed);

static int sr_option(const void *g, int i)
{
    (void)i; /* the one option: the money target */
    return ((const struct sc_game *)g)->target;
}

RS_READ(sr_over, bool, struct sc_game, sc_over(g));

static void sr_where(const void *vg, struct rs_pos *out)
{
    const struct sc_game *g = vg;
    out->round = g->round;
    out->step = g->step;
    out->turn = g->turn;
}

RS_READ_SEAT(sr_pending, bool, struct sc_game, sc_pending(g, seat));
RS_READ_SEAT(sr_submitted, bool, struct sc_game, (g->submitted >> seat) & 1);
RS_READ_SEAT(sr_defaulted, bool, struct sc_game, (g->defaulted >> seat) & 1);
RS_READ_SEAT(sr_decision, const void *, struct sc_game, &g->dec[seat]);
RS_READ_SEAT(sr_score, int, struct sc_game, g->seats[seat].money);
RS_READ(sr_winners, unsigned, struct sc_game, g->winners);
RS_READ(sr_to_json, json_t *, struct sc_game, sc_state_to_json(g));
RS_READ(sr_public_view, json_t *, struct sc_game, sc_public_view(g));
RS_READ_SEAT(sr_private_view, json_t *, struct sc_game, sc_private_view(g, seat));

static const char *sr_card_id(const void *vg, int card)
{
    const struct sc_game *g = vg;
    return card >= 0 && card < g->ncards ? sc_design_of(g, card)->id : NULL;
}

/* The hand card a decision gives up: Solitaire's discard. */
static int sr_decision_cards(const void *vd, int *cards, int max)
{
    const struct sc_decision *d = vd;
    if (d->kind != SC_DEC_DISCARD || max < 1)
        return 0;
    cards[0] = d->card;
    return 1;
}

static const char *sr_order_from_json(const json_t *body, struct rs_pos *pos, void *d, char *err,
                                      int errlen)
{
    int e = sc_order_from_json(body, &pos->round, &pos->step, &pos->turn, d, err, errlen);
    return e == SC_ORDER_OK ? NULL : sc_order_error_code(e);
}

static json_t *sr_order_to_json(const struct rs_pos *pos, const void *d)
{
    return sc_order_to_json(pos->round, pos->step, pos->turn, d);
}

static int sr_submit(void *g, int seat, const void *d)
{
    return sc_submit(g, seat, d);
}

RS_READ(sr_ready, bool, struct sc_game, sc_ready(g));

/* ---- events --------------------------------------------------------------------------------- */

/* The engine's event types in the order of enum sc_event_type (sc.h), NULL-terminated for the
 * ruleset's descriptor. */
static const char *const event_names[SC_EV_GAME_OVER + 2] = {
    "step",     "default",   "drew",           "bought",      "played",  "money",     "passed",
    "proposed", "ballot",    "mayor_vote",     "vote_result", "event",   "destroyed", "removed",
    "doomed",   "phase",     "mayor",          "bill",        "vacated", "bid",       "elected",
    "timed",    "discarded", "target_reached", "game_over",   NULL};
_Static_assert(SC_EV_STEP == 0 && SC_EV_TARGET == 23, "event_names follows enum sc_event_type");

static const char *const decision_names[] = {"none", "pass", "play", "buy",     "target",
                                             "vote", "pay",  "bid",  "discard", "draw"};
static const char *const ballot_names[] = {"withhold", "yes", "no"};

/* Where the engine's events go while a ruleset call runs. */
struct relay {
    const struct sc_game *g;
    const struct rs_sink *sink;
};

static void set(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v);
}

/* Each event's plain numbers: its count and total as integers and its flag as a boolean under
 * these names (NULL: not sent). */
static const struct {
    const char *count, *total, *flag;
} plain[SC_EV_GAME_OVER + 1] = {
    [SC_EV_DREW] = {"count", "hand_count", NULL},    [SC_EV_BOUGHT] = {"cost", NULL, NULL},
    [SC_EV_PLAYED] = {NULL, "scored", NULL},         [SC_EV_MONEY] = {"amount", "money", NULL},
    [SC_EV_BALLOT] = {NULL, "votes", NULL},          [SC_EV_VOTE_RESULT] = {"yes", "no", "passed"},
    [SC_EV_DESTROYED] = {"value", NULL, "scorched"}, [SC_EV_PHASE] = {"phase", NULL, NULL},
    [SC_EV_BILL] = {"amount", NULL, NULL},           [SC_EV_BID] = {"votes", "candidate", NULL},
    [SC_EV_ELECTED] = {"votes", NULL, NULL},         [SC_EV_TARGET] = {"target", "money", NULL},
};

/* One engine event as the public log's {type, data}: public facts only (never a card drawn from
 * the deck). */
static void relay_event(void *ctx, const struct sc_event *e)
{
    const struct relay *rl = ctx;
    const struct sc_game *g = rl->g;
    json_t *d = json_pack("{s:i, s:s, s:i}", "round", e->round, "step", sc_step_name(e->step),
                          "turn", e->turn);
    if (e->seat >= 0)
        set(d, "seat", json_integer(e->seat));
    if (e->card < g->ncards) {
        set(d, "card", json_string(sc_design_of(g, e->card)->id));
        set(d, "id", json_integer(e->card));
    }
    if (e->x >= 0) {
        set(d, "x", json_integer(e->x));
        set(d, "y", json_integer(e->y));
    }
    if (plain[e->type].count)
        set(d, plain[e->type].count, json_integer(e->count));
    if (plain[e->type].total)
        set(d, plain[e->type].total, json_integer(e->total));
    if (plain[e->type].flag)
        set(d, plain[e->type].flag, json_boolean(e->flag));
    /* the numbers that stand for names */
    switch (e->type) {
    case SC_EV_STEP:
        set(d, "seats", sc_seats_json((unsigned)e->count));
        break;
    case SC_EV_DEFAULT:
        set(d, "decision", json_string(decision_names[e->count % 10]));
        break;
    case SC_EV_DREW:
        set(d, "from", json_string(e->flag ? "discard" : "deck"));
        break;
    case SC_EV_PLAYED:
        set(d, "mode", json_string(sc_mode_name(e->count)));
        break;
    case SC_EV_MONEY:
        set(d, "source", json_string(sc_source_name(e->source)));
        break;
    case SC_EV_BALLOT:
        set(d, "ballot", json_string(ballot_names[e->count % 3]));
        break;
    case SC_EV_MAYOR_VOTE:
        set(d, "ballot", json_string(ballot_names[e->count % 3]));
        set(d, "tie",
            json_string(e->total == SC_BALLOT_WITHHOLD ? "none" : ballot_names[e->total % 3]));
        break;
    case SC_EV_TIMED:
        set(d, "ended", json_boolean(e->seat < 0));
        break;
    case SC_EV_GAME_OVER: {
        set(d, "winners", sc_seats_json((unsigned)e->count));
        set(d, "end_reason", json_string(sc_end_name(e->total)));
        json_t *money = json_array();
        for (int s = 0; s < g->players; s++)
            json_array_append_new(money, json_integer(g->seats[s].money));
        set(d, "money", money);
        break;
    }
    default:
        break;
    }
    rl->sink->event(rl->sink->ctx, event_names[e->type], d);
}

/* The engine's defaults (resolve false: how many seats got one) or its resolution (true: whether
 * it resolved), its events relayed to `sink` when someone listens. */
static int relayed(void *g, const struct rs_sink *sink, bool resolve)
{
    struct relay rl = {g, sink};
    struct sc_events ev = {relay_event, &rl}, *evp = sink ? &ev : NULL;
    return resolve ? sc_resolve(g, evp) : sc_fill_defaults(g, evp);
}

static int sr_fill_defaults(void *g, const struct rs_sink *sink)
{
    return relayed(g, sink, false);
}

static bool sr_resolve(void *g, const struct rs_sink *sink)
{
    return relayed(g, sink, true);
}

/* ---- bots and search ------------------------------------------------------------------------ */

static const struct ruleset *self(void);

static bool sr_bot_decide(const void *vg, int seat, const char *kind, void *d)
{
    const struct sc_game *g = vg;
    struct bot bot;
    if (!bot_at_point(&bot, kind, g->seed, g->turn, seat))
        return expert_decide(self(), g, seat, &expert_defaults, d, NULL);
    return sc_bot_decide(&bot, g, seat, d);
}

/* The deck's order and the other hands are hidden from `seat` (a card proposed for a vote is
 * public and stays with its proposer); so is a decision another seat has sent at this point. */
static void sr_determinize(void *vg, int seat, struct city_rng *rng)
{
    struct sc_game *g = vg;
    int held = SC_NONE, holder = -1;
    if (g->vote.active && g->vote.proposer != seat) {
        holder = g->vote.proposer;
        held = g->vote.card;
        ruleset_cards_remove(g->seats[holder].hand, &g->seats[holder].nhand, held);
    }
    uint8_t *places[1 + SC_MAX_PLAYERS] = {g->deck};
    int counts[1 + SC_MAX_PLAYERS] = {g->ndeck}, n = 1;
    unsigned withdrawn = ruleset_withdraw(g->pending, &g->submitted, &g->defaulted, seat);
    for (int s = 0; s < g->players; s++) {
        if (s == seat)
            continue;
        places[n] = g->seats[s].hand;
        counts[n++] = g->seats[s].nhand;
        if (withdrawn & (1u << s)) /* not yet disclosed */
            sc_decision_init(&g->dec[s]);
    }
    ruleset_redeal(places, counts, n, &g->seed, &g->rng, rng);
    if (holder >= 0)
        g->seats[holder].hand[g->seats[holder].nhand++] = (uint8_t)held;
}

/* ---- storage, views, replay, figures -------------------------------------------------------- */

static bool sr_from_json(void *g, const json_t *j, char *err, int errlen)
{
    return sc_state_from_json(g, &catalog, j, err, errlen);
}

static bool sr_replay_run(const json_t *replay, void *g, char *err, int errlen)
{
    return ruleset_replay_generic(self(), replay, g, err, errlen);
}

/* The player count of the simulate report being written, for sim_design_id(). */
static int sim_players;

/* A design of the deck at sim_players (NULL for one only a further player's pack brings). */
static const char *sim_design_id(int design)
{
    const struct sc_design *d = &catalog.designs[design];
    int packs = sim_players > SC_BASE_PLAYERS ? sim_players - SC_BASE_PLAYERS : 0;
    return d->copies_base + packs * d->copies_pack > 0 ? d->id : NULL;
}

/* Greedy or random bots (a comma list of one per seat) from consecutive seeds, with the default
 * target: the figures every game reports (with the per-card ones, ruleset_sim_cards()) and
 * SimCity's own (sc_sim_report()). */
static json_t *sr_simulate(int players, long long games, uint64_t seed, const char *bots, char *err,
                           int errlen)
{
    int kinds[SC_MAX_PLAYERS];
    if (!ruleset_sim_args(self(), players, games, bots, bot_kind_from_name, kinds, err, errlen))
        return NULL;
    static struct sc_sim_result r;
    sc_sim_run(&catalog, players, games, seed, 0, kinds, &r);
    if (!ruleset_sim_legal(r.illegal || r.broken || r.games != games, r.illegal_seed, err, errlen))
        return NULL;
    const struct rs_sim_seats run = {players,      r.games, r.rounds_sum, r.min_rounds,
                                     r.max_rounds, r.wins,  kinds};
    json_t *out = ruleset_sim_report_seats(&run, seed, bots);
    /* the per-card keys every game reports: a design "built" in a game where a seat played it,
     * "in_winners" where a winner did (ties split) */
    static double built[SC_MAX_DESIGNS], in_winners[SC_MAX_DESIGNS];
    for (int k = 0; k < catalog.ndesigns; k++) {
        built[k] = (double)r.played[k];
        in_winners[k] = r.played_wins[k];
    }
    sim_players = players;
    json_t *cards = ruleset_sim_cards(sim_design_id, catalog.ndesigns, built, in_winners, r.games);
    json_object_set(cards, "top_winner_card", json_object_get(cards, "most_in_winners"));
    json_object_update_missing_new(out, cards);
    json_object_update_missing_new(out, sc_sim_report(&catalog, &r));
    return out;
}

/* For the match's card report: the designs seat has played (blocks, events, members), as bits
 * of the first 64 designs. */
static uint64_t sr_built_designs(const void *vg, int seat)
{
    const struct sc_game *g = vg;
    uint64_t m = 0;
    for (int k = 0; k < 64 && k < g->cat->ndesigns; k++)
        if (g->seats[seat].played[k / 8] & (1u << (k % 8)))
            m |= 1ULL << k;
    return m;
}

static const char *sr_design_id(int design)
{
    return design >= 0 && design < catalog.ndesigns && design < 64 ? catalog.designs[design].id
                                                                   : NULL;
}

/* ---- the descriptor ------------------------------------------------------------------------- */

#define TARGET_AT(p)                                                                               \
    {                                                                                              \
        20, SC_MAX_TARGET, SC_TARGET_BASE + SC_TARGET_PER_PLAYER *(p)                              \
    }
/* The money target; Solitaire has none. */
static const struct rs_option sr_options[] = {
    {.name = "target",
     .title = "Money to win",
     .description = "The game ends after the round in which a player first has this much money "
                    "(Solitaire has no target).",
     .by_players = {{0, 0, 0},
                    {0, 0, 0},
                    TARGET_AT(2),
                    TARGET_AT(3),
                    TARGET_AT(4),
                    TARGET_AT(5),
                    TARGET_AT(6)}},
};

/* Each step's share of turn_seconds: votes, bills and bids are quick answers. */
static const unsigned char sr_deadline_pct[SC_STEP_COUNT] = {
    [SC_STEP_DRAW] = 50,     [SC_STEP_COUNCIL] = 50, [SC_STEP_TARGET] = 50,
    [SC_STEP_PLAY] = 100,    [SC_STEP_VOTE] = 40,    [SC_STEP_MAYOR_PAY] = 40,
    [SC_STEP_ELECTION] = 40, [SC_STEP_DISCARD] = 50, [SC_STEP_OVER] = 100};

static const char *const sr_rank_keys[] = {"money", NULL};

/* The table, grouped as the other games' are. */
const struct ruleset ruleset_simcity = {
    .id = "simcity",
    .title = "SimCity: The Card Game",
    .min_players = SC_MIN_PLAYERS,
    .max_players = SC_MAX_PLAYERS,
    /* the decision points: one seat's turn, or one answer of the politics inside it */
    .uses_turn = true,
    .steps = sc_step_names,
    .deadline_pct = sr_deadline_pct,
    .events = event_names,
    .bots = bot_names,
    RS_OPTIONS(sr_options),
    .cards_file = "simcity.json",
    /* money is the score, and the most money wins */
    .scoring = {.field = "money", .label = "Money", .unit = "dollars"},
    .ranking = {.keys = sr_rank_keys,
                .ties = "shared",
                .text = "Most money wins; players tied share the win."},
    /* every card played, blocks, events and members alike, for the card report */
    .built_designs = sr_built_designs,
    /* the expert weighs the greedy bot's best plays (sc_bots.c) */
    .expert_options = sc_expert_options,
    .design_id = sr_design_id,
    .error_code = sc_error_code,
    .error_message = sc_error_message,
    RS_STRUCTS(struct sc_game, struct sc_decision),
    RS_FUNCTIONS(sr),
};

static const struct ruleset *self(void)
{
    return &ruleset_simcity;
}
