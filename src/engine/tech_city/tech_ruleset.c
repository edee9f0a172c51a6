/* tech_ruleset.c: Tech City as one implementation of the ruleset seam (ruleset.h): its
 * catalog (tech_cards.h), engine (tech.h), orders and views (tech_json.h), bots (tech_bots.h)
 * and self-play figures (tech_sim.h) behind one table of functions, and its engine events
 * turned into the public log's JSON. */
#include <stdio.h>
#include <string.h>

#include "expert.h"
#include "ruleset.h"
#include "tech.h"
#include "tech_bots.h"
#include "tech_cards.h"
#include "tech_json.h"
#include "tech_sim.h"

/* The catalog every game of Tech City borrows; loaded once, before any game. */
static struct tech_catalog catalog;

static bool tc_load_cards(const char *path, char *err, int errlen)
{
    return tech_catalog_load_file(&catalog, path, err, errlen);
}

static json_t *tc_cards_json(void)
{
    return tech_catalog_json(&catalog);
}

static bool tc_new_game(void *g, int players, uint64_t seed, const int *options)
{
    return tech_new_decks(g, &catalog, players, seed, options ? options[0] : 0) == TECH_OK;
}

static int tc_option(const void *g, int i)
{
    (void)i; /* the one option: decks */
    return tech_decks(g);
}

RS_READ(tc_players, int, struct tech_game, g->players);
RS_READ(tc_seed, uint64_t, struct tech_game, g->seed);
RS_READ(tc_over, bool, struct tech_game, g->step == TECH_STEP_OVER);

static void tc_where(const void *vg, struct rs_pos *out)
{
    const struct tech_game *g = vg;
    out->round = g->round;
    out->step = g->step;
    out->turn = g->turn;
}

RS_READ_SEAT(tc_pending, bool, struct tech_game, tech_pending(g, seat));
RS_READ_SEAT(tc_submitted, bool, struct tech_game, (g->submitted >> seat) & 1);
RS_READ_SEAT(tc_defaulted, bool, struct tech_game, (g->defaulted >> seat) & 1);
RS_READ_SEAT(tc_decision, const void *, struct tech_game, &g->dec[seat]);

static const char *tc_card_id(const void *vg, int card)
{
    const struct tech_game *g = vg;
    if (card < 0 || card >= g->ncards)
        return NULL;
    return tech_design_of(g, card)->id;
}

static const char *tc_order_from_json(const json_t *body, struct rs_pos *pos, void *d, char *err,
                                      int errlen)
{
    int e = tech_order_from_json(body, &pos->round, &pos->step, &pos->turn, d, err, errlen);
    return e == TORDER_OK ? NULL : tech_order_error_code(e);
}

static json_t *tc_order_to_json(const struct rs_pos *pos, const void *d)
{
    return tech_order_to_json(pos->round, pos->step, pos->turn, d);
}

static int tc_submit(void *g, int seat, const void *d)
{
    return tech_submit(g, seat, d);
}

RS_READ(tc_ready, bool, struct tech_game, tech_ready(g));

/* Where the engine's events go while a ruleset call runs. */
struct relay {
    const struct tech_game *g;
    const struct rs_sink *sink;
};

static const char *const tc_events[] = {
    [TEV_STEP] = "step",
    [TEV_DEFAULT] = "default",
    [TEV_BUILT] = "built",
    [TEV_HELPED] = "helped",
    [TEV_SERVICE_FAILED] = "service_failed",
    [TEV_EFFECT] = "effect",
    [TEV_SCORED] = "scored",
    [TEV_DREW] = "drew",
    [TEV_DISCARDED] = "discarded",
    [TEV_RESHUFFLED] = "reshuffled",
    [TEV_EXPELLED] = "expelled",
    [TEV_REVEALED] = "revealed",
    [TEV_TOOK] = "took",
    [TEV_PLACED] = "placed",
    [TEV_MOVED] = "moved",
    [TEV_MARKER] = "marker",
    [TEV_PASSED] = "passed",
    [TEV_GAME_OVER] = "game_over",
    [TEV_DIVULGED] = "divulged",
    [TEV_DIVULGED + 1] = NULL, /* the end of the list, for the ruleset's descriptor */
};

static const char *const kind_names[] = {"none", "pass", "build", "help", "use", "owner", "cards"};

static json_t *seats_of(unsigned mask)
{
    json_t *a = json_array();
    for (int s = 0; s < TECH_MAX_PLAYERS; s++)
        if (mask & (1u << s))
            json_array_append_new(a, json_integer(s));
    return a;
}

static void set(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v);
}

/* One engine event as the public log's {type, data}: public facts only (never a drawn card). */
static void relay_event(void *ctx, const struct tech_event *e)
{
    const struct relay *rl = ctx;
    const struct tech_game *g = rl->g;
    json_t *d = json_pack("{s:i, s:s, s:i}", "round", e->round, "step", tech_step_name(e->step),
                          "turn", e->turn);
    if (e->seat >= 0)
        set(d, "seat", json_integer(e->seat));
    const char *card = e->card < g->ncards ? tech_design_of(g, e->card)->id : NULL;
    switch (e->type) {
    case TEV_STEP:
        set(d, "seats", seats_of((unsigned)e->count));
        break;
    case TEV_DEFAULT:
        set(d, "decision", json_string(kind_names[e->count]));
        break;
    case TEV_BUILT:
        set(d, "card", json_string(card));
        set(d, "id", json_integer(e->card));
        set(d, "x", json_integer(e->x));
        set(d, "y", json_integer(e->y));
        set(d, "paid", json_integer(e->count));
        set(d, "points", json_integer(e->total));
        set(d, "wild", json_boolean(e->flag));
        break;
    case TEV_HELPED:
    case TEV_DIVULGED:
    case TEV_SERVICE_FAILED:
    case TEV_DISCARDED:
    case TEV_REVEALED:
        set(d, "card", json_string(card));
        set(d, "id", json_integer(e->card));
        if (e->type == TEV_DISCARDED && e->seat >= 0)
            set(d, "hand_count", json_integer(e->total));
        break;
    case TEV_EFFECT:
        set(d, "card", json_string(card));
        set(d, "x", json_integer(e->x));
        set(d, "y", json_integer(e->y));
        set(d, "free", json_boolean(e->flag));
        set(d, "effect", json_string(tech_prim_name(e->count)));
        set(d, "owner_first", json_boolean(e->total != 0));
        break;
    case TEV_SCORED:
        set(d, "points", json_integer(e->count));
        set(d, "score", json_integer(e->total));
        break;
    case TEV_DREW:
        set(d, "count", json_integer(e->count));
        set(d, "hand_count", json_integer(e->total));
        break;
    case TEV_RESHUFFLED:
        set(d, "deck_count", json_integer(e->count));
        break;
    case TEV_EXPELLED:
        set(d, "card", json_string(card));
        set(d, "id", json_integer(e->card));
        if (e->count == 1) {
            set(d, "x", json_integer(e->x));
            set(d, "y", json_integer(e->y));
        }
        break;
    case TEV_TOOK:
        /* count: -1 exchanged with the deck or the pile, -2 a revealed card, else the seat
         * robbed (the card stays secret then) */
        if (e->count >= 0)
            set(d, "from_seat", json_integer(e->count));
        else if (e->card < g->ncards) {
            set(d, "card", json_string(card));
            set(d, "id", json_integer(e->card));
            set(d, "from", json_string(e->count == -2 ? "revealed" : "discard"));
        } else {
            set(d, "from", json_string("deck"));
        }
        set(d, "hand_count", json_integer(e->total));
        break;
    case TEV_PLACED:
    case TEV_MOVED:
    case TEV_MARKER:
        set(d, "card", json_string(card));
        set(d, "id", json_integer(e->card));
        set(d, "x", json_integer(g->cx[e->card]));
        set(d, "y", json_integer(g->cy[e->card]));
        if (e->type == TEV_MARKER)
            set(d, "owner", e->count >= 0 ? json_integer(e->count) : json_null());
        else /* whose card it is now: after a replacement or a swap a reader could not tell */
            set(d, "owner",
                g->owner[e->card] != TECH_NONE ? json_integer(g->owner[e->card]) : json_null());
        break;
    case TEV_GAME_OVER: {
        set(d, "winners", seats_of((unsigned)e->count));
        json_t *scores = json_array();
        for (int s = 0; s < g->players; s++)
            json_array_append_new(scores, json_integer(g->seats[s].score));
        set(d, "scores", scores);
        break;
    }
    default:
        break;
    }
    rl->sink->event(rl->sink->ctx, tc_events[e->type], d);
}

/* The cards a choose or discard decision gives up (other decisions give up none). */
static int tc_decision_cards(const void *vd, int *cards, int max)
{
    const struct tech_decision *d = vd;
    int n = 0;
    for (int i = 0; d->kind == TDEC_CARDS && i < d->ncards && n < max; i++)
        cards[n++] = d->cards[i];
    return n;
}

static int tc_fill_defaults(void *g, const struct rs_sink *sink)
{
    struct relay rl = {g, sink};
    struct tech_events ev = {relay_event, &rl};
    return tech_fill_defaults(g, sink ? &ev : NULL);
}

static bool tc_resolve(void *g, const struct rs_sink *sink)
{
    struct relay rl = {g, sink};
    struct tech_events ev = {relay_event, &rl};
    return tech_resolve(g, sink ? &ev : NULL);
}

static const struct ruleset *self(void);

static bool tc_bot_decide(const void *vg, int seat, const char *kind, void *d)
{
    const struct tech_game *g = vg;
    struct bot bot;
    if (!bot_at_point(&bot, kind, g->seed, g->turn, seat))
        return expert_decide(self(), g, seat, &expert_defaults, d, NULL);
    return tech_bot_decide(&bot, g, seat, d);
}

/* Where card sits in seat's hand, or -1. */
static int hand_index(const struct tech_game *g, int seat, int card)
{
    for (int i = 0; i < g->seats[seat].nhand; i++)
        if (g->seats[seat].hand[i] == card)
            return i;
    return -1;
}

/* The deck's order and the other hands are hidden from `seat`, and so are the decisions other
 * seats have sent at a point where several decide at once (techcity.md: the discard pile, the
 * city and revealed cards are public). A decision waiting at this point names cards of another
 * seat's hand: a service waiting for help is public and stays where it is; the builder's own
 * help and the hand card of a use waiting for its owner follow their place in the hand, so that
 * the decision names whatever the new deal put there (else the deal could put the named card in
 * the city or another hand, and the playout would run on a card in two places). */
static void tc_determinize(void *vg, int seat, struct city_rng *rng)
{
    struct tech_game *g = vg;
    uint8_t *places[1 + TECH_MAX_PLAYERS] = {g->deck};
    int counts[1 + TECH_MAX_PLAYERS] = {g->ndeck}, n = 1;
    uint8_t rest[TECH_MAX_PLAYERS][TECH_MAX_CARDS]; /* a hand less its public card */
    int builder = g->step == TECH_STEP_HELP && g->build.kind == TDEC_BUILD ? g->actor : -1;
    int user = g->use.kind == TDEC_USE ? g->run.user : -1;
    int pay_at[2] = {-1, -1}, use_at = -1;
    if (builder >= 0 && builder != seat)
        for (int i = 0; i < g->build.npay && i < 2; i++)
            pay_at[i] = hand_index(g, builder, g->build.pay[i]);
    if (user >= 0 && user != seat)
        use_at = hand_index(g, user, g->use.card);
    unsigned withdrawn = ruleset_withdraw(g->pending, &g->submitted, &g->defaulted, seat);
    for (int s = 0; s < g->players; s++) {
        if (s == seat)
            continue;
        const struct tech_seat *h = &g->seats[s];
        int k = 0;
        for (int i = 0; i < h->nhand; i++)
            if (s != builder || h->hand[i] != g->build.card)
                rest[s][k++] = h->hand[i];
        places[n] = rest[s];
        counts[n++] = k;
        if (withdrawn & (1u << s)) /* not yet disclosed */
            memset(&g->dec[s], 0, sizeof g->dec[s]);
    }
    ruleset_redeal(places, counts, n, &g->seed, &g->rng, rng);
    for (int s = 0; s < g->players; s++) {
        if (s == seat)
            continue;
        struct tech_seat *h = &g->seats[s];
        for (int i = 0, k = 0; i < h->nhand; i++)
            if (s != builder || h->hand[i] != g->build.card)
                h->hand[i] = rest[s][k++];
    }
    for (int i = 0; i < 2; i++)
        if (pay_at[i] >= 0)
            g->build.pay[i] = g->seats[builder].hand[pay_at[i]];
    if (use_at >= 0)
        g->use.card = g->seats[user].hand[use_at];
}

RS_READ_SEAT(tc_score, int, struct tech_game, g->seats[seat].score);
RS_READ(tc_winners, unsigned, struct tech_game, g->winners);
RS_READ(tc_to_json, json_t *, struct tech_game, tech_state_to_json(g));

static bool tc_from_json(void *g, const json_t *j, char *err, int errlen)
{
    return tech_state_from_json(g, &catalog, j, err, errlen);
}

RS_READ(tc_public_view, json_t *, struct tech_game, tech_public_view(g));
RS_READ_SEAT(tc_private_view, json_t *, struct tech_game, tech_private_view(g, seat));

static bool tc_replay_run(const json_t *replay, void *g, char *err, int errlen)
{
    return ruleset_replay_generic(self(), replay, g, err, errlen);
}

static json_t *tc_simulate(int players, long long games, uint64_t seed, const char *bots, char *err,
                           int errlen)
{
    int kinds[TECH_MAX_PLAYERS];
    if (!ruleset_sim_args(self(), players, games, bots, bot_kind_from_name, kinds, err, errlen))
        return NULL;
    static struct tech_sim_result r;
    tech_sim_run(&catalog, players, games, seed, kinds, &r);
    if (!ruleset_sim_legal(r.illegal || r.broken, r.illegal_seed, err, errlen))
        return NULL;
    const struct tech_catalog *cat = &catalog;
    const struct rs_sim_seats run = {players,      r.games, r.rounds_sum, r.min_rounds,
                                     r.max_rounds, r.wins,  kinds};
    json_t *out = ruleset_sim_report_seats(&run, seed, bots);
    /* The per-card shares, with how often each company's effect was used. */
    json_t *cards = json_array();
    int low_built = -1, low_used = -1, top = -1;
    for (int k = 0; k < cat->ndesigns; k++) {
        if (cat->designs[k].domain == DOMAIN_WILD)
            continue;
        json_array_append_new(cards, json_pack("{s:s, s:f, s:f, s:f}", "card", cat->designs[k].id,
                                               "built", (double)r.built[k] / (double)games, "used",
                                               (double)r.used[k] / (double)games, "in_winners",
                                               r.winner_has[k] / (double)games));
        /* the seed card starts in the city: at 1-4 players it can never be built */
        if ((k != cat->seed_design || players >= TECH_TWO_DECKS_FROM) &&
            (low_built < 0 || r.built[k] < r.built[low_built]))
            low_built = k;
        if (low_used < 0 || r.used[k] < r.used[low_used])
            low_used = k;
        if (top < 0 || r.winner_has[k] > r.winner_has[top])
            top = k;
    }
    json_object_update_new(
        out, json_pack(
                 "{s:f, s:f, s:i, s:f, s:{s:s, s:f}, s:{s:s, s:f}, s:{s:s, s:f}, s:{s:s, s:f}, "
                 "s:o}",
                 "first_seat_wins", r.first_wins / (double)games, "avg_winning_score",
                 (double)r.winning_score_sum / (double)games, "max_winning_score",
                 r.max_winning_score, "avg_score", (double)r.points_sum / (double)games / players,
                 "least_built", "card", cat->designs[low_built].id, "share",
                 (double)r.built[low_built] / (double)games, "least_used", "card",
                 cat->designs[low_used].id, "share", (double)r.used[low_used] / (double)games,
                 "most_in_winners", "card", cat->designs[top].id, "share",
                 r.winner_has[top] / (double)games, "top_winner_card", "card", cat->designs[top].id,
                 "share", r.winner_has[top] / (double)games, "cards", cards));
    return out;
}

/* For the match's card report: the companies seat controls in the city (services are
 * nobody's, so they are not counted), as design bits. */
static uint64_t tc_built_designs(const void *g, int seat)
{
    const struct tech_game *tg = g;
    uint64_t m = 0;
    for (int i = 0; i < tg->ncity; i++)
        if (tg->owner[tg->city[i]] == seat)
            m |= 1ULL << tg->cat->card_design[tg->city[i] % tg->cat->deck_size];
    return m;
}

static const char *tc_design_id(int design)
{
    return design >= 0 && design < catalog.ndesigns && catalog.designs[design].domain != DOMAIN_WILD
               ? catalog.designs[design].id
               : NULL;
}

/* The decks shuffled together: two are suggested at 5-6 players (the rule text), never below. */
static const struct rs_option tc_options[] = {
    {.name = "decks",
     .title = "Tech Decks",
     .description = "How many Tech Decks are shuffled together: two are suggested with 5 or 6 "
                    "players, one below.",
     .by_players = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 2, 2}, {1, 2, 2}}},
};

/* 24 candidates heads-up, 8 at 4 players: 24 / (players - 1). With 100 playouts a decision
 * against greedy bots, 100 games, seed 1 (README, "The expert"): heads-up 0.79 weighing 24 and
 * 0.71 weighing 8; at 4 players 0.33 weighing 24 and 0.42 weighing 8. */
static int tc_expert_candidates(int players)
{
    return players > 1 ? 24 / (players - 1) : 24;
}

static const char *const tc_rank_keys[] = {"score", "companies", "hand_count", NULL};

/* The table, grouped as city_ruleset.c's is: here a point is one seat's turn (uses_turn), and
 * the expert weighs fewer candidates as the table fills. */
const struct ruleset ruleset_tech_city = {
    .id = "tech_city",
    .title = "Tech City",
    .min_players = TECH_MIN_PLAYERS,
    .max_players = TECH_MAX_PLAYERS,
    .uses_turn = true,
    .steps = tech_step_names,
    .events = tc_events,
    .bots = bot_names,
    RS_OPTIONS(tc_options),
    .cards_file = "tech_city.json",
    .scoring = {.field = "score", .label = "Points", .unit = "points"},
    .ranking = {.keys = tc_rank_keys,
                .ties = "shared",
                .text = "Most points; ties go to the most companies controlled, then the most "
                        "cards in hand; players still tied share the win."},
    .expert_candidates = tc_expert_candidates,
    .built_designs = tc_built_designs,
    .design_id = tc_design_id,
    .error_code = tech_error_code,
    .error_message = tech_error_message,
    RS_STRUCTS(struct tech_game, struct tech_decision),
    RS_FUNCTIONS(tc),
};

static const struct ruleset *self(void)
{
    return &ruleset_tech_city;
}
