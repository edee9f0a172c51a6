/* city_ruleset.c: The City as one implementation of the ruleset seam (ruleset.h): its catalog,
 * its engine (city.h), orders and views (city_json.h), bots (city_bots.h) and self-play
 * (city_sim.h) behind one table of functions, and its engine events turned into the public log's
 * JSON. */
#include <stdio.h>
#include <string.h>

#include "city_bots.h"
#include "city_cards.h"
#include "expert.h"
#include "city_catalog_json.h"
#include "city.h"
#include "city_json.h"
#include "ruleset.h"
#include "city_sim.h"

/* The catalog every game of The City borrows; loaded once, before any game. */
static struct city_catalog catalog;

static bool cr_load_cards(const char *path, char *err, int errlen)
{
    return city_catalog_load_file(&catalog, path, err, errlen);
}

static json_t *cr_cards_json(void)
{
    return city_catalog_to_json(&catalog);
}

static bool cr_new_game(void *g, int players, uint64_t seed, const int *options)
{
    return city_new(g, &catalog, players, seed, options ? options[0] : 0) == CITY_OK;
}

static int cr_option(const void *g, int i)
{
    (void)i; /* the one option: target_vp */
    return ((const struct city_game *)g)->target_vp;
}

RS_READ(cr_players, int, struct city_game, g->players);
RS_READ(cr_seed, uint64_t, struct city_game, g->seed);
RS_READ(cr_over, bool, struct city_game, g->step == CITY_STEP_OVER);

static void cr_where(const void *vg, struct rs_pos *out)
{
    const struct city_game *g = vg;
    out->round = g->round;
    out->step = g->step;
    out->turn = 0;
}

RS_READ_SEAT(cr_pending, bool, struct city_game, game_seat_pending(g, seat));
RS_READ_SEAT(cr_submitted, bool, struct city_game, g->seats[seat].submitted);
RS_READ_SEAT(cr_defaulted, bool, struct city_game, g->seats[seat].defaulted);
RS_READ_SEAT(cr_decision, const void *, struct city_game, &g->seats[seat].order);

static const char *cr_card_id(const void *vg, int card)
{
    const struct city_game *g = vg;
    if (card < 0 || card >= CITY_DECK_SIZE)
        return NULL;
    return g->cat->designs[city_design_of(g, card)].id;
}

static int cr_decision_cards(const void *vd, int *cards, int max)
{
    const struct city_decision *d = vd;
    int n = 0;
    for (int i = 0; d->kind == CITY_DEC_DISCARD && i < d->ndiscard && n < max; i++)
        cards[n++] = d->discard[i];
    return n;
}

static const char *cr_order_from_json(const json_t *body, struct rs_pos *pos, void *d, char *err,
                                      int errlen)
{
    struct city_order o;
    int e = city_order_from_json(body, &o, err, errlen);
    if (e != CITY_ORDER_OK)
        return city_order_error_code(e);
    pos->round = o.round;
    pos->step = o.step;
    pos->turn = 0;
    memcpy(d, &o.d, sizeof o.d);
    return NULL;
}

static json_t *cr_order_to_json(const struct rs_pos *pos, const void *d)
{
    return city_order_to_json(pos->round, pos->step, d);
}

static int cr_submit(void *g, int seat, const void *d)
{
    return city_submit(g, seat, d);
}

RS_READ(cr_ready, bool, struct city_game, city_ready(g));

/* Where the engine's events go while a ruleset call runs: the game (for card slugs) and the
 * caller's sink. */
struct relay {
    const struct city_game *g;
    const struct rs_sink *sink;
};

/* One engine event as the public log's {type, data}. */
static void relay_event(void *ctx, const struct city_event *e)
{
    const struct relay *rl = ctx;
    json_t *d = json_pack("{s:i, s:s}", "round", e->round, "step", city_step_name(e->step));
    if (e->seat >= 0)
        json_object_set_new(d, "seat", json_integer(e->seat));
    const char *type = "unknown";
    switch (e->type) {
    case CITY_EV_STEP:
        type = "step";
        break;
    case CITY_EV_DEFAULT:
        type = "default";
        json_object_set_new(d, "decision",
                            json_string(e->count == CITY_DEC_SURVEY ? "survey" : "discard"));
        break;
    case CITY_EV_DISCARDED:
        type = "discarded";
        json_object_set_new(d, "count", json_integer(e->count));
        json_object_set_new(d, "hand_count", json_integer(e->total));
        break;
    case CITY_EV_BUILT:
        type = "built";
        json_object_set_new(d, "card", json_string(cr_card_id(rl->g, e->card)));
        json_object_set_new(d, "paid", json_integer(e->count));
        break;
    case CITY_EV_CONTRACTOR:
        type = "contractor";
        json_object_set_new(d, "card", json_string(cr_card_id(rl->g, e->card)));
        break;
    case CITY_EV_SURVEYED:
        type = "surveyed";
        json_object_set_new(d, "drew", json_integer(e->count));
        json_object_set_new(d, "hand_count", json_integer(e->total));
        break;
    case CITY_EV_RESHUFFLED:
        type = "reshuffled";
        json_object_set_new(d, "deck_count", json_integer(e->count));
        break;
    case CITY_EV_SCORED:
        type = "scored";
        json_object_set_new(d, "points", json_integer(e->count));
        json_object_set_new(d, "vp", json_integer(e->total));
        break;
    case CITY_EV_INCOME:
        type = "income";
        json_object_set_new(d, "cards", json_integer(e->count));
        json_object_set_new(d, "hand_count", json_integer(e->total));
        break;
    case CITY_EV_NO_INCOME:
        type = "no_income";
        json_object_set_new(d, "needed", json_integer(e->count));
        json_object_set_new(d, "available", json_integer(e->total));
        break;
    case CITY_EV_GAME_OVER: {
        type = "game_over";
        json_t *w = json_array();
        for (int s = 0; s < CITY_MAX_PLAYERS; s++)
            if (e->total & (1 << s))
                json_array_append_new(w, json_integer(s));
        json_object_set_new(d, "winners", w);
        json_object_set_new(d, "vp", json_integer(e->count));
        break;
    }
    default:
        break;
    }
    rl->sink->event(rl->sink->ctx, type, d);
}

static int cr_fill_defaults(void *g, const struct rs_sink *sink)
{
    struct relay rl = {g, sink};
    struct city_events ev = {relay_event, &rl};
    return city_fill_defaults(g, sink ? &ev : NULL);
}

static bool cr_resolve(void *g, const struct rs_sink *sink)
{
    struct relay rl = {g, sink};
    struct city_events ev = {relay_event, &rl};
    return city_resolve(g, sink ? &ev : NULL);
}

extern const struct ruleset ruleset_the_city;

static bool cr_bot_decide(const void *vg, int seat, const char *kind, void *d)
{
    const struct city_game *g = vg;
    if (strcmp(kind, "expert") == 0)
        return expert_decide(&ruleset_the_city, g, seat, &expert_defaults, d, NULL);
    int k = bot_kind_from_name(kind);
    struct bot bot;
    city_bot_init(&bot, k < 0 ? BOT_GREEDY : k,
                  g->seed ^ ((uint64_t)g->round << 16) ^ ((uint64_t)g->step << 8) ^ (uint64_t)seat);
    return city_bot_decide(&bot, g, seat, d);
}

/* The deck, the face-down discard pile and the other hands are hidden from `seat` (rules.md,
 * Hidden information); so are the other seats' orders before the reveal. */
static void cr_determinize(void *vg, int seat, struct city_rng *rng)
{
    struct city_game *g = vg;
    uint8_t *places[2 + CITY_MAX_PLAYERS] = {g->deck, g->discard};
    int counts[2 + CITY_MAX_PLAYERS] = {g->ndeck, g->ndiscard}, n = 2;
    for (int s = 0; s < g->players; s++) {
        struct city_seat *st = &g->seats[s];
        if (s == seat)
            continue;
        places[n] = st->hand;
        counts[n++] = st->nhand;
        if (st->submitted) { /* an order not yet revealed */
            st->submitted = st->defaulted = false;
            memset(&st->order, 0, sizeof st->order);
        }
    }
    ruleset_redeal(places, counts, n, &g->seed, &g->rng, rng);
}

RS_READ_SEAT(cr_score, int, struct city_game, g->seats[seat].vp);
RS_READ(cr_winners, unsigned, struct city_game, g->winners);
RS_READ(cr_to_json, json_t *, struct city_game, city_to_json(g));

static bool cr_from_json(void *g, const json_t *j, char *err, int errlen)
{
    return city_from_json(g, &catalog, j, err, errlen);
}

RS_READ(cr_public_view, json_t *, struct city_game, city_public_view(g));
RS_READ_SEAT(cr_private_view, json_t *, struct city_game, city_private_view(g, seat));

static bool cr_replay_run(const json_t *replay, void *g, char *err, int errlen)
{
    return city_replay_run(&catalog, replay, g, err, errlen);
}

/* General Contractors are taken from the pool, never built from a hand: not reported. */
static uint64_t cr_built_designs(const void *g, int seat)
{
    const struct city_game *cg = g;
    return cg->seats[seat].tab.owned & ~(1ULL << catalog.contractor_design);
}

static const char *cr_design_id(int design)
{
    return design >= 0 && design < catalog.ndesigns && design != catalog.contractor_design
               ? catalog.designs[design].id
               : NULL;
}

static json_t *cr_simulate(int players, long long games, uint64_t seed, const char *bots, char *err,
                           int errlen)
{
    int kinds[CITY_MAX_PLAYERS];
    if (!ruleset_sim_args(&ruleset_the_city, players, games, bots, bot_kind_from_name, kinds, err,
                          errlen))
        return NULL;
    static struct city_sim_result r;
    city_sim_run(&catalog, players, games, seed, kinds, &r);
    if (!ruleset_sim_legal(r.illegal, r.illegal_seed, err, errlen))
        return NULL;
    const struct city_catalog *cat = &catalog;
    const struct rs_sim_seats run = {players,      r.games, r.rounds_sum, r.min_rounds,
                                     r.max_rounds, r.wins,  kinds};
    json_t *out = ruleset_sim_report_seats(&run, seed, bots);
    json_object_update_new(
        out, ruleset_sim_cards(cr_design_id, cat->ndesigns, r.built, r.winner_has, games));
    /* The most common development among winners; General Contractors are reported apart,
     * since every player may take one from the pool. */
    int top = -1;
    for (int k = 0; k < cat->ndesigns; k++)
        if (k != cat->contractor_design && (top < 0 || r.winner_has[k] > r.winner_has[top]))
            top = k;
    json_object_update_new(
        out,
        json_pack("{s:I, s:I, s:{s:s, s:f}, s:f}", "ended_by_deck", (json_int_t)r.ended_by_deck,
                  "ended_by_rounds", (json_int_t)r.ended_by_rounds, "top_winner_card", "card",
                  cat->designs[top].id, "share", r.winner_has[top] / (double)games,
                  "contractor_in_winners", r.winner_has[cat->contractor_design] / (double)games));
    return out;
}

/* The points that end the game, at every seat count. */
static const struct rs_option cr_options[] = {
    {.name = "target_vp",
     .title = "Points to win",
     .description = "The game ends after the round in which a player reaches this many victory "
                    "points.",
     .by_players = RS_EVERY_SEAT_COUNT(CITY_MIN_TARGET, CITY_MAX_TARGET, CITY_DEFAULT_TARGET)},
};

static const char *const cr_rank_keys[] = {"vp", "hand_count", NULL};
static const char *const cr_events[] = {"step",       "default",   "discarded",  "built",
                                        "contractor", "surveyed",  "reshuffled", "scored",
                                        "income",     "no_income", "game_over",  NULL};

/* The table, grouped as docs/rulesets.md's table groups the entries: who plays and how its
 * points and log are named (one step a point: no turn), what a game is created with, how it is
 * scored and ranked, what the reports and the engine take. */
const struct ruleset ruleset_the_city = {
    .id = "the_city",
    .title = "The City",
    .min_players = CITY_MIN_PLAYERS,
    .max_players = CITY_MAX_PLAYERS,
    .steps = city_step_names,
    .events = cr_events,
    .bots = bot_names,
    RS_OPTIONS(cr_options),
    .cards_file = "cards.json",
    .scoring = {.field = "vp", .label = "Victory points", .unit = "points"},
    .ranking = {.keys = cr_rank_keys,
                .ties = "shared",
                .text = "Most victory points; a tie goes to the most cards in hand at the end; "
                        "players still tied share the win."},
    .built_designs = cr_built_designs,
    .design_id = cr_design_id,
    .error_code = city_error_code,
    .error_message = city_error_message,
    RS_STRUCTS(struct city_game, struct city_decision),
    RS_FUNCTIONS(cr),
};
