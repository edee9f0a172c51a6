/* service.c: game transactions (see service.h): bots, resolution, the decision log, events. */
#include "service.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bots.h"
#include "game_json.h"
#include "hub.h"
#include "metrics.h"
#include "ratelimit.h"
#include "server.h"
#include "viewcache.h"

/* A started game's seats never change again: this instance keeps them (srv->seats), and a
 * load then reads only the game row. Fills lv's seats from the cache; false when not there. */
static bool seats_from_cache(struct server *srv, const char *id, struct live *lv)
{
    char *blob;
    size_t len;
    if (!srv->seats || !view_cache_get(srv->seats, id, &blob, &len))
        return false;
    int n = -1;
    if (len >= sizeof(int))
        memcpy(&n, blob, sizeof(int));
    bool ok =
        n >= 0 && n <= CITY_MAX_PLAYERS && len == sizeof(int) + (size_t)n * sizeof lv->seats[0];
    if (ok) {
        lv->nseats = n;
        memcpy(lv->seats, blob + sizeof(int), (size_t)n * sizeof lv->seats[0]);
    }
    free(blob);
    return ok;
}

/* Keeps the seats of a loaded game that has started (read after `ticket` was taken). */
static void seats_to_cache(struct server *srv, const char *id, uint64_t ticket,
                           const struct live *lv)
{
    if (!srv->seats || strcmp(lv->row.status, "open") == 0)
        return;
    char copy[sizeof(int) + sizeof lv->seats];
    size_t len = sizeof(int) + (size_t)lv->nseats * sizeof lv->seats[0];
    memcpy(copy, &lv->nseats, sizeof(int));
    memcpy(copy + sizeof(int), lv->seats, (size_t)lv->nseats * sizeof lv->seats[0]);
    view_cache_put(srv->seats, id, ticket, copy, len);
}

/* Starts an empty live for srv. */
static void live_init(struct server *srv, struct live *lv)
{
    memset(lv, 0, sizeof *lv);
    lv->srv = srv;
    lv->forced_by = FORCED_BY_TIMER;
    lv->events = json_array();
    lv->orders = json_array();
}

/* Loads the engine state of a live whose row was read. */
static int live_state(struct live *lv)
{
    char err[256];
    if (!game_from_json(&lv->g, lv->srv->cat, lv->row.state, err, sizeof err)) {
        fprintf(stderr, "cityd: game %s: stored state refused: %s\n", lv->row.id, err);
        return STORE_HARD;
    }
    return STORE_OK;
}

int live_load(PGconn *c, struct server *srv, const char *id, bool lock, struct live *lv)
{
    live_init(srv, lv);
    int st;
    if (seats_from_cache(srv, id, lv)) {
        st = store_game_read(c, id, lock, &lv->row);
    } else {
        uint64_t ticket = srv->seats ? view_cache_ticket(srv->seats, id) : 0;
        st = store_game_load(c, id, lock, &lv->row, lv->seats, &lv->nseats);
        if (st == STORE_OK)
            seats_to_cache(srv, id, ticket, lv);
    }
    return st == STORE_OK ? live_state(lv) : st;
}

/* The engine state of game `id` at `version`, as this instance last committed it, or false. */
static bool state_from_cache(struct server *srv, const char *id, long long *version,
                             struct city_game *g)
{
    char *blob;
    size_t len;
    if (!srv->states || !view_cache_get(srv->states, id, &blob, &len))
        return false;
    bool ok = len == sizeof *version + sizeof *g;
    if (ok) {
        memcpy(version, blob, sizeof *version);
        memcpy(g, blob + sizeof *version, sizeof *g);
    }
    free(blob);
    return ok;
}

void live_remember(struct server *srv, const char *id, long long version, const struct city_game *g)
{
    if (!srv->states)
        return;
    char blob[sizeof version + sizeof *g];
    memcpy(blob, &version, sizeof version);
    memcpy(blob + sizeof version, g, sizeof *g);
    view_cache_put(srv->states, id, view_cache_ticket(srv->states, id), blob, sizeof blob);
}

int live_load_many(PGconn *c, struct server *srv, int n, const char *const *ids, struct live *lvs,
                   int *found)
{
    assert(n >= 1 && n <= STORE_MAX_GAMES_LOADED);
    bool with_seats[STORE_MAX_GAMES_LOADED];
    uint64_t ticket[STORE_MAX_GAMES_LOADED];
    long long known[STORE_MAX_GAMES_LOADED];
    struct game_row rows[STORE_MAX_GAMES_LOADED];
    struct seat_row seats[STORE_MAX_GAMES_LOADED][CITY_MAX_PLAYERS];
    int nseats[STORE_MAX_GAMES_LOADED] = {0};
    for (int i = 0; i < n; i++) {
        live_init(srv, &lvs[i]);
        with_seats[i] = !seats_from_cache(srv, ids[i], &lvs[i]);
        ticket[i] = with_seats[i] && srv->seats ? view_cache_ticket(srv->seats, ids[i]) : 0;
        if (!state_from_cache(srv, ids[i], &known[i], &lvs[i].g))
            known[i] = -1;
    }
    int st = store_games_load(c, n, ids, known, with_seats, rows, found, seats, nseats);
    for (int i = 0; i < n; i++) {
        if (st != STORE_OK || found[i] != STORE_OK)
            continue;
        lvs[i].row = rows[i];
        rows[i].state = NULL; /* handed over */
        if (with_seats[i]) {
            lvs[i].nseats = nseats[i];
            memcpy(lvs[i].seats, seats[i], sizeof seats[i]);
            seats_to_cache(srv, ids[i], ticket[i], &lvs[i]);
        }
        /* An unchanged state is the one this instance committed: lvs[i].g holds it. */
        if (!lvs[i].row.state_unchanged && live_state(&lvs[i]) != STORE_OK)
            st = STORE_HARD;
    }
    if (st != STORE_OK) /* rows read but not handed over are freed here */
        for (int i = 0; i < n; i++)
            if (found[i] == STORE_OK)
                game_row_clear(&rows[i]);
    return st;
}

void live_free(struct live *lv)
{
    game_row_clear(&lv->row);
    json_decref(lv->events);
    json_decref(lv->orders);
    lv->events = lv->orders = NULL;
}

void live_order(struct live *lv, int seat, json_t *body)
{
    json_t *o = json_pack("{s:O, s:O, s:i, s:O}", "round", json_object_get(body, "round"), "step",
                          json_object_get(body, "step"), "seat", seat, "body", body);
    size_t i;
    json_t *old;
    json_array_foreach(lv->orders, i, old)
    {
        if (json_equal(json_object_get(old, "round"), json_object_get(o, "round")) &&
            json_equal(json_object_get(old, "step"), json_object_get(o, "step")) &&
            json_integer_value(json_object_get(old, "seat")) == seat) {
            json_array_set_new(lv->orders, i, o); /* one row per seat and step */
            return;
        }
    }
    json_array_append_new(lv->orders, o);
}

void live_event(struct live *lv, const char *type, json_t *data)
{
    json_array_append_new(
        lv->events, json_pack("{s:s, s:o}", "type", type, "data", data ? data : json_object()));
}

int live_seat_of(const struct live *lv, const uint8_t *hash)
{
    int found = -1;
    for (int i = 0; i < lv->nseats; i++)
        if (lv->seats[i].has_token && auth_equal(lv->seats[i].token_hash, hash))
            found = lv->seats[i].seat;
    return found;
}

static const char *card_slug(const struct live *lv, int card)
{
    return lv->srv->cat->designs[game_design_of(&lv->g, card)].id;
}

/* The engine's events, as the public log's JSON. */
static void on_engine_event(void *ctx, const struct city_event *e)
{
    struct live *lv = ctx;
    json_t *d = json_pack("{s:i, s:s}", "round", e->round, "step", city_step_name(e->step));
    if (e->seat >= 0)
        json_object_set_new(d, "seat", json_integer(e->seat));
    const char *type = "unknown";
    switch (e->type) {
    case EV_STEP:
        type = "step";
        lv->step_changed = true;
        break;
    case EV_DEFAULT:
        type = "default";
        json_object_set_new(d, "decision",
                            json_string(e->count == DEC_SURVEY ? "survey" : "discard"));
        json_object_set_new(d, "by", live_forcer_json(lv->forced_by));
        break;
    case EV_DISCARDED:
        type = "discarded";
        json_object_set_new(d, "count", json_integer(e->count));
        json_object_set_new(d, "hand_count", json_integer(e->total));
        break;
    case EV_BUILT:
        type = "built";
        json_object_set_new(d, "card", json_string(card_slug(lv, e->card)));
        json_object_set_new(d, "paid", json_integer(e->count));
        break;
    case EV_CONTRACTOR:
        type = "contractor";
        json_object_set_new(d, "card", json_string(card_slug(lv, e->card)));
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
    live_event(lv, type, d);
}

/* Appends the decisions about to take effect (every pending seat's, in seat order). */
static int record_decisions(PGconn *c, struct live *lv)
{
    const struct city_game *g = &lv->g;
    for (int s = 0; s < g->players; s++) {
        const struct city_seat *seat = &g->seats[s];
        if (!seat->pending)
            continue;
        json_t *body = order_to_json(g->round, g->step, &seat->order);
        char *text = json_dumps(body, JSON_COMPACT);
        json_decref(body);
        if (!text)
            return STORE_HARD;
        int st = store_decision_add(c, lv->row.id, lv->row.ndecisions++, s, g->round,
                                    city_step_name(g->step), text, seat->defaulted);
        free(text);
        if (st != STORE_OK)
            return st;
    }
    return STORE_OK;
}

static const struct seat_row *seat_row_of(const struct live *lv, int seat)
{
    for (int i = 0; i < lv->nseats; i++)
        if (lv->seats[i].seat == seat)
            return &lv->seats[i];
    return NULL;
}

json_t *live_forcer_json(int by)
{
    if (by >= 0)
        return json_integer(by);
    return json_string(by == FORCED_BY_HOST ? "host" : "timer");
}

int live_force(PGconn *c, struct live *lv, int by)
{
    struct city_game *g = &lv->g;
    if (g->step == STEP_OVER)
        return live_advance(c, lv, false);
    struct city_events sink = {on_engine_event, lv};
    int round = g->round, step = g->step;
    size_t at = json_array_size(lv->events);
    lv->forced_by = by;
    if (game_fill_defaults(g, &sink) > 0)
        lv->changed = true;
    lv->forced_by = FORCED_BY_TIMER;
    json_t *seats = json_array();
    for (size_t i = at; i < json_array_size(lv->events); i++) {
        json_t *e = json_array_get(lv->events, i);
        if (strcmp(json_string_value(json_object_get(e, "type")), "default") == 0)
            json_array_append(seats, json_object_get(json_object_get(e, "data"), "seat"));
    }
    json_array_insert_new(lv->events, at,
                          json_pack("{s:s, s:{s:i, s:s, s:o, s:o}}", "type", "forced", "data",
                                    "round", round, "step", city_step_name(step), "by",
                                    live_forcer_json(by), "seats", seats));
    lv->changed = true;
    return live_advance(c, lv, false);
}

int live_advance(PGconn *c, struct live *lv, bool defaults)
{
    struct city_game *g = &lv->g;
    if (defaults && g->step != STEP_OVER)
        return live_force(c, lv, FORCED_BY_TIMER);
    struct city_events sink = {on_engine_event, lv};
    while (g->step != STEP_OVER) {
        for (int s = 0; s < g->players; s++) {
            const struct seat_row *row = seat_row_of(lv, s);
            if (!row || !row->bot[0] || !game_seat_pending(g, s) || g->seats[s].submitted)
                continue;
            struct city_bot bot;
            int kind = bot_kind_from_name(row->bot);
            bot_init(&bot, kind < 0 ? BOT_GREEDY : kind,
                     g->seed ^ ((uint64_t)g->round << 16) ^ ((uint64_t)g->step << 8) ^ (uint64_t)s);
            struct city_decision d;
            if (bot_decide(&bot, g, s, &d) && game_submit(g, s, &d) == CITY_OK)
                lv->changed = true;
        }
        if (!game_ready(g))
            break;
        int st = record_decisions(c, lv);
        if (st != STORE_OK)
            return st;
        game_resolve(g, &sink);
        lv->resolved++;
        lv->changed = true;
    }
    if (g->step == STEP_OVER && strcmp(lv->row.status, "finished") != 0) {
        snprintf(lv->row.status, sizeof lv->row.status, "finished");
        lv->changed = true;
    }
    return STORE_OK;
}

int live_save(PGconn *c, struct live *lv)
{
    size_t n = json_array_size(lv->events);
    if (!lv->changed && n == 0)
        return STORE_OK;
    char *events = json_dumps(lv->events, JSON_COMPACT);
    char *orders = json_dumps(lv->orders, JSON_COMPACT);
    if (!events || !orders) {
        free(events);
        free(orders);
        return STORE_HARD;
    }
    long long first = lv->row.last_seq + 1;
    lv->row.last_seq += (long long)n;
    json_decref(lv->row.state);
    lv->row.state = game_to_json(&lv->g);
    lv->row.steps_resolved += lv->resolved;
    int st = store_game_save(c, &lv->row, lv->step_changed, first, events, orders);
    free(events);
    free(orders);
    lv->row.version++; /* as the statement did */
    /* Every public change, events or not: other instances drop cached views. An amended order
     * changes nothing another instance shows. */
    if (st == STORE_OK && (n > 0 || !lv->quiet))
        st = store_notify(c, lv->row.id, lv->row.last_seq);
    return st;
}

json_t *live_public_view(const struct live *lv)
{
    json_t *v = game_public_view(&lv->g);
    json_object_set_new(v, "id", json_string(lv->row.id));
    json_object_set_new(v, "status", json_string(lv->row.status));
    json_object_set_new(v, "players", json_integer(lv->row.players));
    json_object_set_new(v, "turn_seconds",
                        lv->row.turn_seconds ? json_integer(lv->row.turn_seconds) : json_null());
    json_object_set_new(v, "deadline",
                        lv->row.deadline > 0 ? json_real(lv->row.deadline) : json_null());
    json_object_set_new(v, "last_seq", json_integer(lv->row.last_seq));
    json_t *seats = json_object_get(v, "seats");
    size_t i;
    json_t *seat;
    json_array_foreach(seats, i, seat)
    {
        const struct seat_row *row = seat_row_of(lv, (int)i);
        json_object_set_new(seat, "name",
                            row && row->name[0] ? json_string(row->name) : json_null());
        json_object_set_new(seat, "bot", row && row->bot[0] ? json_string(row->bot) : json_null());
    }
    if (strcmp(lv->row.status, "finished") == 0) {
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)lv->g.seed);
        json_object_set_new(v, "seed", json_string(seed));
    }
    return v;
}

/* ---- the sweeper -------------------------------------------------------------------------- */

struct sweep_ctx {
    struct server *srv;
    int max, done;
    int nlate;
    double late[STORE_MAX_GAMES_LOADED]; /* seconds past the deadline of each forced game */
};

static int by_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sweep_tx(PGconn *c, void *ctx)
{
    struct sweep_ctx *sw = ctx;
    char ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    int n = 0;
    sw->done = sw->nlate = 0;
    int st = store_overdue_games(c, ids, sw->max, &n);
    if (st != STORE_OK || n == 0)
        return st;
    const char *sorted[STORE_MAX_GAMES_LOADED];
    for (int i = 0; i < n; i++)
        sorted[i] = ids[i];
    qsort(sorted, (size_t)n, sizeof *sorted, by_id); /* the lock order of live_load_many */
    struct live *lvs = calloc((size_t)n, sizeof *lvs);
    int found[STORE_MAX_GAMES_LOADED];
    if (!lvs)
        return STORE_HARD;
    st = live_load_many(c, sw->srv, n, sorted, lvs, found);
    double now = wall_seconds();
    for (int i = 0; i < n && st == STORE_OK; i++) {
        struct live *lv = &lvs[i];
        if (found[i] != STORE_OK || !lv->row.overdue || lv->g.step == STEP_OVER)
            continue;
        double late = lv->row.deadline > 0 && now > lv->row.deadline ? now - lv->row.deadline : 0;
        st = live_advance(c, lv, true);
        if (st == STORE_OK)
            st = live_save(c, lv);
        if (st == STORE_OK && lv->resolved > 0) {
            sw->done += lv->resolved;
            sw->late[sw->nlate++] = late;
        }
    }
    for (int i = 0; i < n; i++)
        live_free(&lvs[i]);
    free(lvs);
    return st;
}

struct lifecycle_ctx {
    const struct quotas *q;
    int expired, purged;
    char expired_ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    long long seqs[STORE_MAX_GAMES_LOADED];
    char purged_ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
};

/* Expires open games past the open TTL and deletes games past the retention, a batch of each;
 * every instance hears of both (NOTIFY), so that none serves a cached view of them. */
static int lifecycle_tx(PGconn *c, void *ctx)
{
    struct lifecycle_ctx *lc = ctx;
    lc->expired = lc->purged = 0;
    int st = STORE_OK;
    if (lc->q->open_ttl > 0)
        st = store_expire_open(c, lc->q->open_ttl, STORE_MAX_GAMES_LOADED, lc->expired_ids,
                               lc->seqs, &lc->expired);
    for (int i = 0; i < lc->expired && st == STORE_OK; i++)
        st = store_notify(c, lc->expired_ids[i], lc->seqs[i]);
    if (st == STORE_OK && lc->q->retention > 0)
        st = store_purge_ended(c, lc->q->retention, STORE_MAX_GAMES_LOADED, lc->purged_ids,
                               &lc->purged);
    for (int i = 0; i < lc->purged && st == STORE_OK; i++)
        st = store_notify(c, lc->purged_ids[i], 0);
    return st;
}

/* The lifecycle round when its time has come (once a second, or at once while the last one
 * found a full batch); returns the games expired and deleted. */
static int sweep_lifecycle(struct server *srv)
{
    static double next;
    const struct quotas *q = srv->quotas;
    if (!q || (q->open_ttl <= 0 && q->retention <= 0))
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    if (now < next)
        return 0;
    struct lifecycle_ctx *lc = calloc(1, sizeof *lc);
    if (!lc)
        return 0;
    lc->q = q;
    int done = 0;
    if (store_tx(srv->store, lifecycle_tx, lc, 3) == STORE_OK) {
        for (int i = 0; i < lc->expired; i++)
            hub_publish(srv->hub, lc->expired_ids[i], lc->seqs[i]);
        for (int i = 0; i < lc->purged; i++)
            hub_publish(srv->hub, lc->purged_ids[i], 0);
        metrics_games_ended(lc->expired, lc->purged);
        done = lc->expired + lc->purged;
    }
    bool full = lc->expired == STORE_MAX_GAMES_LOADED || lc->purged == STORE_MAX_GAMES_LOADED;
    next = full ? now : now + 1;
    free(lc);
    return done;
}

int service_sweep(struct server *srv, int max)
{
    struct sweep_ctx sw = {srv,
                           max < 1                        ? 1
                           : max > STORE_MAX_GAMES_LOADED ? STORE_MAX_GAMES_LOADED
                                                          : max,
                           0,
                           0,
                           {0}};
    int st = store_tx(srv->store, sweep_tx, &sw, 3);
    int done = 0;
    if (st == STORE_OK) {
        metrics_steps_resolved(sw.done);
        for (int i = 0; i < sw.nlate; i++)
            metrics_sweeper_lateness(sw.late[i]);
        done = sw.done;
    }
    return done + sweep_lifecycle(srv);
}
