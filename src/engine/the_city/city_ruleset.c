/* city_ruleset.c: The City as one implementation of the ruleset seam (ruleset.h): its catalog,
 * its engine (game.h), orders and views (game_json.h), bots (bots.h) and self-play (sim.h)
 * behind one table of functions, and its engine events turned into the public log's JSON. */
#include <stdio.h>
#include <string.h>

#include "bots.h"
#include "cards.h"
#include "expert.h"
#include "catalog_json.h"
#include "game.h"
#include "game_json.h"
#include "ruleset.h"
#include "sim.h"

/* The catalog every game of The City borrows; loaded once, before any game. */
static struct city_catalog catalog;

static bool city_load_cards(const char *path, char *err, int errlen)
{
    return catalog_load_file(&catalog, path, err, errlen);
}

static json_t *city_cards_json(void)
{
    return catalog_to_json(&catalog);
}

static bool city_new_game(void *g, int players, uint64_t seed, int target)
{
    return game_new(g, &catalog, players, seed, target) == CITY_OK;
}

static int city_players(const void *g)
{
    return ((const struct city_game *)g)->players;
}

static uint64_t city_seed(const void *g)
{
    return ((const struct city_game *)g)->seed;
}

static int city_target(const void *g)
{
    return ((const struct city_game *)g)->target_vp;
}

static bool city_over(const void *g)
{
    return ((const struct city_game *)g)->step == STEP_OVER;
}

static void city_where(const void *vg, struct rs_pos *out)
{
    const struct city_game *g = vg;
    out->round = g->round;
    out->step = g->step;
    out->turn = 0;
}

static bool city_pending(const void *g, int seat)
{
    return game_seat_pending(g, seat);
}

static bool city_submitted(const void *g, int seat)
{
    return ((const struct city_game *)g)->seats[seat].submitted;
}

static bool city_defaulted(const void *g, int seat)
{
    return ((const struct city_game *)g)->seats[seat].defaulted;
}

static const void *city_decision(const void *g, int seat)
{
    return &((const struct city_game *)g)->seats[seat].order;
}

static const char *city_card_id(const void *vg, int card)
{
    const struct city_game *g = vg;
    if (card < 0 || card >= CITY_DECK_SIZE)
        return NULL;
    return g->cat->designs[game_design_of(g, card)].id;
}

static int city_decision_cards(const void *vd, int *cards, int max)
{
    const struct city_decision *d = vd;
    int n = 0;
    for (int i = 0; d->kind == DEC_DISCARD && i < d->ndiscard && n < max; i++)
        cards[n++] = d->discard[i];
    return n;
}

static const char *city_order_from_json(const json_t *body, struct rs_pos *pos, void *d, char *err,
                                        int errlen)
{
    struct city_order o;
    int e = order_from_json(body, &o, err, errlen);
    if (e != ORDER_OK)
        return order_error_code(e);
    pos->round = o.round;
    pos->step = o.step;
    pos->turn = 0;
    memcpy(d, &o.d, sizeof o.d);
    return NULL;
}

static json_t *city_order_to_json(const struct rs_pos *pos, const void *d)
{
    return order_to_json(pos->round, pos->step, d);
}

static int city_submit(void *g, int seat, const void *d)
{
    return game_submit(g, seat, d);
}

static bool city_ready(const void *g)
{
    return game_ready(g);
}

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
    case EV_STEP:
        type = "step";
        break;
    case EV_DEFAULT:
        type = "default";
        json_object_set_new(d, "decision",
                            json_string(e->count == DEC_SURVEY ? "survey" : "discard"));
        break;
    case EV_DISCARDED:
        type = "discarded";
        json_object_set_new(d, "count", json_integer(e->count));
        json_object_set_new(d, "hand_count", json_integer(e->total));
        break;
    case EV_BUILT:
        type = "built";
        json_object_set_new(d, "card", json_string(city_card_id(rl->g, e->card)));
        json_object_set_new(d, "paid", json_integer(e->count));
        break;
    case EV_CONTRACTOR:
        type = "contractor";
        json_object_set_new(d, "card", json_string(city_card_id(rl->g, e->card)));
        break;
    case EV_SURVEYED:
        type = "surveyed";
        json_object_set_new(d, "drew", json_integer(e->count));
        json_object_set_new(d, "hand_count", json_integer(e->total));
        break;
    case EV_RESHUFFLED:
        type = "reshuffled";
        json_object_set_new(d, "deck_count", json_integer(e->count));
        break;
    case EV_SCORED:
        type = "scored";
        json_object_set_new(d, "points", json_integer(e->count));
        json_object_set_new(d, "vp", json_integer(e->total));
        break;
    case EV_INCOME:
        type = "income";
        json_object_set_new(d, "cards", json_integer(e->count));
        json_object_set_new(d, "hand_count", json_integer(e->total));
        break;
    case EV_NO_INCOME:
        type = "no_income";
        json_object_set_new(d, "needed", json_integer(e->count));
        json_object_set_new(d, "available", json_integer(e->total));
        break;
    case EV_GAME_OVER: {
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

static int city_fill_defaults(void *g, const struct rs_sink *sink)
{
    struct relay rl = {g, sink};
    struct city_events ev = {relay_event, &rl};
    return game_fill_defaults(g, sink ? &ev : NULL);
}

static bool city_resolve(void *g, const struct rs_sink *sink)
{
    struct relay rl = {g, sink};
    struct city_events ev = {relay_event, &rl};
    return game_resolve(g, sink ? &ev : NULL);
}

extern const struct ruleset ruleset_the_city;

static bool city_bot_decide(const void *vg, int seat, const char *kind, void *d)
{
    const struct city_game *g = vg;
    if (strcmp(kind, "expert") == 0)
        return expert_decide(&ruleset_the_city, g, seat, &expert_defaults, d, NULL);
    int k = bot_kind_from_name(kind);
    struct city_bot bot;
    bot_init(&bot, k < 0 ? BOT_GREEDY : k,
             g->seed ^ ((uint64_t)g->round << 16) ^ ((uint64_t)g->step << 8) ^ (uint64_t)seat);
    return bot_decide(&bot, g, seat, d);
}

/* The deck, the face-down discard pile and the other hands are hidden from `seat` (rules.md,
 * Hidden information); so are the other seats' orders before the reveal. */
static void city_determinize(void *vg, int seat, struct city_rng *rng)
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
    ruleset_redeal(places, counts, n, rng);
    g->seed = rng_next(rng);
    rng_seed(&g->rng, rng_next(rng));
}

static int city_score(const void *g, int seat)
{
    return ((const struct city_game *)g)->seats[seat].vp;
}

static unsigned city_winners(const void *g)
{
    return ((const struct city_game *)g)->winners;
}

static json_t *city_to_json(const void *g)
{
    return game_to_json(g);
}

static bool city_from_json(void *g, const json_t *j, char *err, int errlen)
{
    return game_from_json(g, &catalog, j, err, errlen);
}

static json_t *city_public_view(const void *g)
{
    return game_public_view(g);
}

static json_t *city_private_view(const void *g, int seat)
{
    return game_private_view(g, seat);
}

static bool city_replay_run(const json_t *replay, void *g, char *err, int errlen)
{
    return replay_run(&catalog, replay, g, err, errlen);
}

/* Parses "greedy", "random" or a comma list of one of those per seat. */
static bool parse_bots(const char *spec, int players, int *kinds)
{
    char copy[256];
    if (strlen(spec) >= sizeof copy)
        return false;
    strcpy(copy, spec);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int k = bot_kind_from_name(tok);
        if (k < 0 || n >= CITY_MAX_PLAYERS)
            return false;
        kinds[n++] = k;
    }
    if (n == 1)
        for (int s = 1; s < players; s++)
            kinds[s] = kinds[0];
    else if (n != players)
        return false;
    return true;
}

/* General Contractors are taken from the pool, never built from a hand: not reported. */
static uint64_t city_built_designs(const void *g, int seat)
{
    const struct city_game *cg = g;
    return cg->seats[seat].tab.owned & ~(1ULL << catalog.contractor_design);
}

static const char *city_design_id(int design)
{
    return design >= 0 && design < catalog.ndesigns && design != catalog.contractor_design
               ? catalog.designs[design].id
               : NULL;
}

static json_t *city_simulate(int players, long long games, uint64_t seed, const char *bots,
                             char *err, int errlen)
{
    int kinds[CITY_MAX_PLAYERS];
    if (games < 1) {
        snprintf(err, (size_t)errlen, "--games must be at least 1");
        return NULL;
    }
    if (players < CITY_MIN_PLAYERS || players > CITY_MAX_PLAYERS) {
        snprintf(err, (size_t)errlen, "--players must be %d..%d", CITY_MIN_PLAYERS,
                 CITY_MAX_PLAYERS);
        return NULL;
    }
    if (!parse_bots(bots, players, kinds)) {
        snprintf(err, (size_t)errlen,
                 "--bots must be greedy, random or a comma list of one per seat");
        return NULL;
    }
    static struct sim_result r;
    sim_run(&catalog, players, games, seed, kinds, &r);
    if (r.illegal) {
        snprintf(err, (size_t)errlen, "a bot made an illegal decision (seed %llu)",
                 (unsigned long long)r.illegal_seed);
        return NULL;
    }
    const struct city_catalog *cat = &catalog;
    struct rs_sim_tally t = {.players = players,
                             .games = r.games,
                             .finished = r.games,
                             .rounds_sum = r.rounds_sum,
                             .min_rounds = r.min_rounds,
                             .max_rounds = r.max_rounds};
    for (int s = 0; s < players; s++) {
        t.wins[s] = r.wins[s];
        ruleset_sim_kind(&t, bot_kind_name(kinds[s]), r.wins[s], games);
    }
    json_t *out = ruleset_sim_report(&t, seed, bots);
    json_object_update_new(
        out, ruleset_sim_cards(city_design_id, cat->ndesigns, r.built, r.winner_has, games));
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

static const char *const city_bots[] = {"greedy", "random", "expert", NULL};
static const char *const city_steps[] = {"keep", "build", "survey", "hand_limit", "over", NULL};

const struct ruleset ruleset_the_city = {
    .id = "the_city",
    .title = "The City",
    .min_players = CITY_MIN_PLAYERS,
    .max_players = CITY_MAX_PLAYERS,
    .state_size = sizeof(struct city_game),
    .decision_size = sizeof(struct city_decision),
    .uses_turn = false,
    .has_target = true,
    .target_min = CITY_MIN_TARGET,
    .target_max = CITY_MAX_TARGET,
    .target_default = CITY_DEFAULT_TARGET,
    .cards_file = "cards.json",
    .bots = city_bots,
    .steps = city_steps,
    .load_cards = city_load_cards,
    .cards_json = city_cards_json,
    .new_game = city_new_game,
    .players = city_players,
    .seed = city_seed,
    .target = city_target,
    .over = city_over,
    .where = city_where,
    .pending = city_pending,
    .submitted = city_submitted,
    .defaulted = city_defaulted,
    .decision = city_decision,
    .card_id = city_card_id,
    .decision_cards = city_decision_cards,
    .order_from_json = city_order_from_json,
    .order_to_json = city_order_to_json,
    .submit = city_submit,
    .error_code = city_error_code,
    .error_message = city_error_message,
    .ready = city_ready,
    .fill_defaults = city_fill_defaults,
    .resolve = city_resolve,
    .bot_decide = city_bot_decide,
    .determinize = city_determinize,
    .score = city_score,
    .winners = city_winners,
    .built_designs = city_built_designs,
    .design_id = city_design_id,
    .to_json = city_to_json,
    .from_json = city_from_json,
    .public_view = city_public_view,
    .private_view = city_private_view,
    .replay_run = city_replay_run,
    .simulate = city_simulate,
};
