/* live.c: a game loaded inside a transaction (see live.h): its seats and state from the caches or
 * the store, bots, resolution, the decision log, events, and the save. */
#include "live.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expert.h"
#include "hub.h"
#include "metrics.h"
#include "rated.h"
#include "server.h"
#include "store.h"
#include "viewcache.h"

/* A started game's seats rarely change (a player leaves, the host hands a seat to a bot; each
 * bumps the row's seats_version): this instance keeps them with their version (srv->seats), and
 * a load then reads only the game row, reading the seats again when its version differs. The
 * blob: the number of seats, their version, the seats. Fills lv's seats from the cache; false
 * when not there. */
static bool seats_from_cache(struct server *srv, const char *id, struct live *lv, int *version)
{
    char *blob;
    size_t len;
    if (!srv->seats || !view_cache_get(srv->seats, id, &blob, &len))
        return false;
    int head[2] = {-1, 0};
    if (len >= sizeof head)
        memcpy(head, blob, sizeof head);
    int n = head[0];
    bool ok = n >= 0 && n <= RS_MAX_SEATS && len == sizeof head + (size_t)n * sizeof lv->seats[0];
    if (ok) {
        lv->nseats = n;
        *version = head[1];
        memcpy(lv->seats, blob + sizeof head, (size_t)n * sizeof lv->seats[0]);
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
    int head[2] = {lv->nseats, lv->row.seats_version};
    char copy[sizeof head + sizeof lv->seats];
    size_t len = sizeof head + (size_t)lv->nseats * sizeof lv->seats[0];
    memcpy(copy, head, sizeof head);
    memcpy(copy + sizeof head, lv->seats, (size_t)lv->nseats * sizeof lv->seats[0]);
    view_cache_put(srv->seats, id, ticket, copy, len);
}

/* After the row of a game whose seats came from the cache was read: reads the seats again (and
 * caches them) when a seat changed hands since they were cached. */
static int seats_refresh(PGconn *c, struct server *srv, const char *id, int cached, struct live *lv)
{
    if (cached == lv->row.seats_version)
        return STORE_OK;
    uint64_t ticket = view_cache_ticket(srv->seats, id);
    int st = store_seats_read(c, id, lv->seats, &lv->nseats);
    if (st == STORE_OK)
        seats_to_cache(srv, id, ticket, lv);
    return st;
}

/* Starts an empty live for srv. */
static void live_init(struct server *srv, struct live *lv)
{
    memset(lv, 0, sizeof *lv);
    lv->srv = srv;
    lv->forced_by = FORCED_BY_TIMER;
    lv->events = json_array();
    lv->orders = json_array();
    lv->decisions = json_array();
}

/* Gives lv the ruleset named `game` and room for its state; false when this server does not
 * host it. */
static bool live_ruleset(struct live *lv, const char *game)
{
    const struct ruleset *rs = ruleset_find(game);
    if (!rs)
        return false;
    if (lv->rs != rs) {
        free(lv->g);
        lv->rs = rs;
        lv->g = calloc(1, rs->state_size);
    }
    return lv->g != NULL;
}

/* Loads the engine state of a live whose row was read: lv->g already holds it when the row
 * came without it (the version this instance had in memory, state_from_cache). */
static int live_state(struct live *lv)
{
    metrics_state_load(lv->row.state_unchanged);
    if (lv->row.state_unchanged) /* of the same ruleset: a game's ruleset never changes */
        return lv->rs && lv->g && strcmp(lv->rs->id, lv->row.game) == 0 ? STORE_OK : STORE_HARD;
    char err[256];
    if (!live_ruleset(lv, lv->row.game)) {
        fprintf(stderr, "cityd: game %s: this server does not host \"%s\"\n", lv->row.id,
                lv->row.game);
        return STORE_HARD;
    }
    if (!lv->rs->from_json(lv->g, lv->row.state, err, sizeof err)) {
        fprintf(stderr, "cityd: game %s: stored state refused: %s\n", lv->row.id, err);
        return STORE_HARD;
    }
    return STORE_OK;
}

/* The seat row of seat number `seat`, or NULL. */
static const struct seat_row *seat_row_of(const struct live *lv, int seat)
{
    for (int i = 0; i < lv->nseats; i++)
        if (lv->seats[i].seat == seat)
            return &lv->seats[i];
    return NULL;
}

/* The seats a person plays that must decide at the current point and have not (bit s: seat
 * s): the seats a time bank waits for. */
static unsigned undecided_people(const struct live *lv)
{
    unsigned m = 0;
    if (!lv->rs || !lv->g || lv->rs->over(lv->g))
        return 0;
    for (int s = 0; s < lv->rs->players(lv->g) && s < RS_MAX_SEATS; s++) {
        const struct seat_row *row = seat_row_of(lv, s);
        if (row && !row->bot[0] && lv->rs->pending(lv->g, s) && !lv->rs->submitted(lv->g, s))
            m |= 1u << s;
    }
    return m;
}

/* Notes which people must decide now, and where (the time bank charges them when they have). */
static void bank_snapshot(struct live *lv)
{
    lv->undecided = undecided_people(lv);
    if (lv->rs && lv->g)
        lv->rs->where(lv->g, &lv->undecided_at);
}

/* The time bank at the save (live.h, live_save()): charges the seats that decided since the
 * load, each charge logged first among the save's events ("bank"), and sets the row's
 * bank_extra, the largest bank among the seats still deciding. */
static void bank_settle(struct live *lv)
{
    struct game_row *r = &lv->row;
    r->bank_extra = 0;
    if (r->time_bank_seconds <= 0 || r->turn_seconds <= 0)
        return;
    unsigned now = strcmp(r->status, "playing") == 0 ? undecided_people(lv) : 0;
    int past = r->past_step_end > 0 ? (int)(r->past_step_end + 0.999) : 0;
    size_t at = 0;
    for (int s = 0; s < r->players && s < RS_MAX_SEATS; s++) {
        unsigned bit = 1u << s;
        bool decided = (lv->undecided & bit) && (lv->step_changed || !(now & bit));
        int used = decided && past > 0 ? (r->banks[s] < past ? r->banks[s] : past) : 0;
        if (used > 0) {
            r->banks[s] -= used;
            json_t *data = ruleset_pos_json(lv->rs, &lv->undecided_at);
            json_object_set_new(data, "seat", json_integer(s));
            json_object_set_new(data, "used", json_integer(used));
            json_object_set_new(data, "bank_seconds", json_integer(r->banks[s]));
            json_array_insert_new(lv->events, at++,
                                  json_pack("{s:s, s:o}", "type", "bank", "data", data));
        }
        if (r->banks[s] < 0)
            r->banks[s] = 0;
        if ((now & bit) && r->banks[s] > r->bank_extra)
            r->bank_extra = r->banks[s];
    }
    lv->undecided = now;
    lv->rs->where(lv->g, &lv->undecided_at);
    if (lv->step_changed)
        r->past_step_end = -1; /* a second save in this transaction charges nothing again */
}

static bool state_from_cache(struct server *srv, const char *id, long long *version,
                             struct live *lv);

int live_load(PGconn *c, struct server *srv, const char *id, bool lock, struct live *lv)
{
    live_init(srv, lv);
    long long known;
    if (!state_from_cache(srv, id, &known, lv))
        known = -1;
    int st, cached;
    if (seats_from_cache(srv, id, lv, &cached)) {
        st = store_game_read(c, id, lock, known, &lv->row);
        if (st == STORE_OK)
            st = seats_refresh(c, srv, id, cached, lv);
    } else {
        uint64_t ticket = srv->seats ? view_cache_ticket(srv->seats, id) : 0;
        st = store_game_load(c, id, lock, known, &lv->row, lv->seats, &lv->nseats);
        if (st == STORE_OK)
            seats_to_cache(srv, id, ticket, lv);
    }
    snprintf(lv->loaded_status, sizeof lv->loaded_status, "%s", lv->row.status);
    if (st == STORE_OK)
        st = live_state(lv);
    if (st == STORE_OK)
        bank_snapshot(lv);
    return st;
}

/* The cached blob of a state: its version, the store's epoch it was committed at, its
 * ruleset's id, then the state's bytes. */
struct state_head {
    long long version;
    uint64_t epoch;
    char game[16];
};

/* The engine state of game `id` at `version`, as this instance last committed it, into lv (its
 * ruleset and state), or false. */
static bool state_from_cache(struct server *srv, const char *id, long long *version,
                             struct live *lv)
{
    char *blob;
    size_t len;
    if (!srv->states || !view_cache_get(srv->states, id, &blob, &len))
        return false;
    struct state_head h;
    bool ok = len >= sizeof h;
    if (ok) {
        memcpy(&h, blob, sizeof h);
        h.game[sizeof h.game - 1] = 0;
        /* Committed at another epoch: the database may have lost that commit since (a failover,
         * a restore), and another writer may have saved the same version with another state. */
        ok = h.epoch == store_epoch(srv->store) && live_ruleset(lv, h.game) &&
             len == sizeof h + lv->rs->state_size;
    }
    if (ok) {
        *version = h.version;
        memcpy(lv->g, blob + sizeof h, lv->rs->state_size);
    }
    free(blob);
    return ok;
}

void live_remember(struct server *srv, const char *id, long long version, uint64_t epoch,
                   const struct ruleset *rs, const void *g)
{
    if (!srv->states)
        return;
    struct state_head h = {.version = version, .epoch = epoch};
    snprintf(h.game, sizeof h.game, "%s", rs->id);
    size_t len = sizeof h + rs->state_size;
    char *blob = malloc(len);
    if (!blob)
        return;
    memcpy(blob, &h, sizeof h);
    memcpy(blob + sizeof h, g, rs->state_size);
    view_cache_put(srv->states, id, view_cache_ticket(srv->states, id), blob, len);
    free(blob);
}

/* The view-cache key of game id's current row (live_committed): "ID/~" (a member); false
 * when id could not be a game's. */
static bool current_key(const char *id, char *key, size_t n)
{
    int k = snprintf(key, n, "%s/~", id);
    return k > 0 && (size_t)k < n && !strchr(id, '/');
}

uint64_t live_ticket(struct server *srv, const char *id)
{
    return srv->views ? view_cache_ticket(srv->views, id) : 0;
}

void live_committed(struct server *srv, uint64_t epoch, uint64_t ticket, const struct ruleset *rs,
                    const void *g, const struct game_row *row)
{
    live_remember(srv, row->id, row->version, epoch, rs, g);
    uint64_t after;
    char key[AUTH_ID_LEN + 8];
    if (!hub_publish_since(srv->hub, row->id, ticket, &after) || !srv->states ||
        !current_key(row->id, key, sizeof key))
        return;
    struct game_row copy = *row;
    copy.state = NULL; /* the state is kept apart (live_remember) */
    view_cache_put(srv->views, key, after, (const char *)&copy, sizeof copy);
}

bool live_load_current(struct server *srv, const char *id, struct live *lv)
{
    live_init(srv, lv);
    char key[AUTH_ID_LEN + 8], *blob = NULL;
    size_t len = 0;
    long long known = -1;
    int seats = -1;
    bool ok = srv->views && current_key(id, key, sizeof key) &&
              view_cache_peek(srv->views, key, &blob, &len) && len == sizeof lv->row;
    if (ok) {
        memcpy(&lv->row, blob, sizeof lv->row);
        lv->row.state = NULL;
        ok = strcmp(lv->row.id, id) == 0 && state_from_cache(srv, id, &known, lv) &&
             known == lv->row.version && seats_from_cache(srv, id, lv, &seats) &&
             seats == lv->row.seats_version;
    }
    free(blob);
    if (ok) {
        lv->row.state_unchanged = true;
        snprintf(lv->loaded_status, sizeof lv->loaded_status, "%s", lv->row.status);
        ok = live_state(lv) == STORE_OK;
    }
    if (ok) {
        bank_snapshot(lv);
        metrics_load_without_database();
    } else {
        live_free(lv);
    }
    return ok;
}

int live_load_many(PGconn *c, struct server *srv, int n, const char *const *ids, struct live *lvs,
                   int *found)
{
    assert(n >= 1 && n <= STORE_MAX_GAMES_LOADED);
    bool with_seats[STORE_MAX_GAMES_LOADED];
    uint64_t ticket[STORE_MAX_GAMES_LOADED];
    long long known[STORE_MAX_GAMES_LOADED];
    int cached[STORE_MAX_GAMES_LOADED];
    struct game_row rows[STORE_MAX_GAMES_LOADED];
    struct seat_row seats[STORE_MAX_GAMES_LOADED][RS_MAX_SEATS];
    int nseats[STORE_MAX_GAMES_LOADED] = {0};
    for (int i = 0; i < n; i++) {
        live_init(srv, &lvs[i]);
        with_seats[i] = !seats_from_cache(srv, ids[i], &lvs[i], &cached[i]);
        ticket[i] = with_seats[i] && srv->seats ? view_cache_ticket(srv->seats, ids[i]) : 0;
        if (!state_from_cache(srv, ids[i], &known[i], &lvs[i]))
            known[i] = -1;
    }
    int st = store_games_load(c, n, ids, known, with_seats, rows, found, seats, nseats);
    for (int i = 0; i < n; i++) {
        if (st != STORE_OK || found[i] != STORE_OK)
            continue;
        lvs[i].row = rows[i];
        rows[i].state = NULL; /* handed over */
        snprintf(lvs[i].loaded_status, sizeof lvs[i].loaded_status, "%s", lvs[i].row.status);
        if (with_seats[i]) {
            lvs[i].nseats = nseats[i];
            memcpy(lvs[i].seats, seats[i], sizeof seats[i]);
            seats_to_cache(srv, ids[i], ticket[i], &lvs[i]);
        } else if (seats_refresh(c, srv, ids[i], cached[i], &lvs[i]) != STORE_OK) {
            st = STORE_HARD;
        }
        if (live_state(&lvs[i]) != STORE_OK)
            st = STORE_HARD;
        else
            bank_snapshot(&lvs[i]);
    }
    if (st != STORE_OK) /* rows read but not handed over are freed here */
        for (int i = 0; i < n; i++)
            if (found[i] == STORE_OK)
                game_row_clear(&rows[i]);
    return st;
}

void live_free(struct live *lv)
{
    free(lv->g);
    lv->g = NULL;
    lv->rs = NULL;
    game_row_clear(&lv->row);
    json_decref(lv->events);
    json_decref(lv->orders);
    json_decref(lv->decisions);
    lv->events = lv->orders = lv->decisions = NULL;
}

void live_order(struct live *lv, int seat, const struct rs_pos *pos, json_t *body)
{
    json_t *o = json_pack("{s:i, s:s, s:i, s:i, s:O}", "round", pos->round, "step",
                          ruleset_step_name(lv->rs, pos->step), "turn", pos->turn, "seat", seat,
                          "body", body);
    size_t i;
    json_t *old;
    json_array_foreach(lv->orders, i, old)
    {
        if (json_equal(json_object_get(old, "round"), json_object_get(o, "round")) &&
            json_equal(json_object_get(old, "step"), json_object_get(o, "step")) &&
            json_equal(json_object_get(old, "turn"), json_object_get(o, "turn")) &&
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

/* The ruleset's events, into the log: a new decision point changes the deadline, and a
 * default carries who forced it. */
static void on_event(void *ctx, const char *type, json_t *data)
{
    struct live *lv = ctx;
    if (strcmp(type, "step") == 0)
        lv->step_changed = true;
    else if (strcmp(type, "default") == 0)
        json_object_set_new(data, "by", live_forcer_json(lv->forced_by));
    live_event(lv, type, data);
}

/* Appends the decisions about to take effect (every pending seat's, in seat order) to those the
 * save writes. */
static int record_decisions(struct live *lv)
{
    const struct ruleset *rs = lv->rs;
    struct rs_pos pos;
    rs->where(lv->g, &pos);
    for (int s = 0; s < rs->players(lv->g); s++) {
        if (!rs->pending(lv->g, s))
            continue;
        json_t *body = rs->order_to_json(&pos, rs->decision(lv->g, s));
        lv->row.ndecisions++;
        if (rs->defaulted(lv->g, s))
            lv->row.ndefaults++;
        json_t *d = json_pack("{s:i, s:i, s:s, s:i, s:o, s:b}", "seat", s, "round", pos.round,
                              "step", ruleset_step_name(rs, pos.step), "turn", pos.turn, "body",
                              body, "is_default", rs->defaulted(lv->g, s));
        if (!d || json_array_append_new(lv->decisions, d) != 0)
            return STORE_HARD;
    }
    return STORE_OK;
}

json_t *live_forcer_json(int by)
{
    if (by >= 0)
        return json_integer(by);
    return json_string(by == FORCED_BY_HOST ? "host" : "timer");
}

int live_force(PGconn *c, struct live *lv, int by)
{
    const struct ruleset *rs = lv->rs;
    if (rs->over(lv->g))
        return live_advance(c, lv, false);
    struct rs_sink sink = {on_event, lv};
    struct rs_pos pos;
    rs->where(lv->g, &pos);
    size_t at = json_array_size(lv->events);
    lv->forced_by = by;
    if (rs->fill_defaults(lv->g, &sink) > 0)
        lv->changed = true;
    lv->forced_by = FORCED_BY_TIMER;
    json_t *seats = json_array();
    for (size_t i = at; i < json_array_size(lv->events); i++) {
        json_t *e = json_array_get(lv->events, i);
        if (strcmp(json_string_value(json_object_get(e, "type")), "default") == 0)
            json_array_append(seats, json_object_get(json_object_get(e, "data"), "seat"));
    }
    json_t *data = ruleset_pos_json(rs, &pos);
    json_object_set_new(data, "by", live_forcer_json(by));
    json_object_set_new(data, "seats", seats);
    json_array_insert_new(lv->events, at, json_pack("{s:s, s:o}", "type", "forced", "data", data));
    lv->changed = true;
    return live_advance(c, lv, false);
}

int live_advance(PGconn *c, struct live *lv, bool defaults)
{
    const struct ruleset *rs = lv->rs;
    if (defaults && !rs->over(lv->g))
        return live_force(c, lv, FORCED_BY_TIMER);
    struct rs_sink sink = {on_event, lv};
    void *d = malloc(rs->decision_size);
    if (!d)
        return STORE_HARD;
    while (!rs->over(lv->g)) {
        for (int s = 0; s < rs->players(lv->g); s++) {
            const struct seat_row *row = seat_row_of(lv, s);
            /* A slow bot thinks on the bot pool, outside this transaction (botpool.h). */
            if (!row || !row->bot[0] || expert_is_slow_bot(row->bot) || !rs->pending(lv->g, s) ||
                rs->submitted(lv->g, s))
                continue;
            if (rs->bot_decide(lv->g, s, row->bot, d) && rs->submit(lv->g, s, d) == 0)
                lv->changed = true;
        }
        if (!rs->ready(lv->g))
            break;
        int st = record_decisions(lv);
        if (st != STORE_OK) {
            free(d);
            return st;
        }
        rs->resolve(lv->g, &sink);
        lv->resolved++;
        lv->changed = true;
    }
    free(d);
    if (rs->over(lv->g) && strcmp(lv->row.status, "finished") != 0) {
        snprintf(lv->row.status, sizeof lv->row.status, "finished");
        lv->changed = true;
    }
    return STORE_OK;
}

/* True when a slow bot's seat must decide at the current point (the bot pool's work). */
static bool bots_due(const struct live *lv)
{
    if (strcmp(lv->row.status, "playing") != 0 || lv->rs->over(lv->g))
        return false;
    for (int i = 0; i < lv->nseats; i++) {
        int s = lv->seats[i].seat;
        if (expert_is_slow_bot(lv->seats[i].bot) && lv->rs->pending(lv->g, s) &&
            !lv->rs->submitted(lv->g, s))
            return true;
    }
    return false;
}

enum bot_need live_bot_need(const struct live *lv)
{
    bool people = false, waiting = true;
    for (int i = 0; i < lv->nseats; i++) {
        if (lv->seats[i].bot[0])
            continue;
        int s = lv->seats[i].seat;
        people = true;
        if (lv->rs->pending(lv->g, s) && !lv->rs->submitted(lv->g, s))
            waiting = false;
    }
    return !people ? BOT_NEED_ALONE : waiting ? BOT_NEED_PERSON_WAITS : BOT_NEED_PEOPLE;
}

uint64_t live_who(const struct live *lv)
{
    return lv->row.has_creator ? netaddr_key_hash(lv->row.creator_key) : 0;
}

bool live_public_change(const struct live *lv)
{
    return json_array_size(lv->events) > 0 || !lv->quiet;
}

int live_save(PGconn *c, struct live *lv)
{
    bank_settle(lv); /* its events are this save's first */
    size_t n = json_array_size(lv->events);
    if (!lv->changed && n == 0)
        return STORE_OK;
    /* The finish's places and ratings commit with the finish, or neither does. */
    if (!lv->finish_written && strcmp(lv->row.status, "finished") == 0 &&
        strcmp(lv->loaded_status, "finished") != 0) {
        int fst = rated_finish(c, lv);
        if (fst != STORE_OK)
            return fst;
        lv->finish_written = true;
    }
    char *events = json_dumps(lv->events, JSON_COMPACT);
    char *orders = json_dumps(lv->orders, JSON_COMPACT);
    char *decisions = json_dumps(lv->decisions, JSON_COMPACT);
    if (!events || !orders || !decisions) {
        free(events);
        free(orders);
        free(decisions);
        return STORE_HARD;
    }
    long long first = lv->row.last_seq + 1;
    lv->row.last_seq += (long long)n;
    lv->row.bot_due = bots_due(lv);
    json_decref(lv->row.state);
    lv->row.state = lv->rs->to_json(lv->g);
    lv->row.steps_resolved += lv->resolved;
    struct rs_pos at;
    lv->rs->where(lv->g, &at); /* a new point's clock: its step's share of turn_seconds */
    lv->row.point_seconds = ruleset_point_seconds(lv->rs, at.step, lv->row.turn_seconds);
    int st = store_game_save(c, &lv->row, lv->step_changed, first, events, orders, decisions);
    free(events);
    free(orders);
    free(decisions);
    lv->row.version++; /* as the statement did */
    /* Every public change, events or not: other instances drop cached views. An amended order
     * changes only its seat's hand view: other instances drop the game's cached hands. */
    if (st == STORE_OK && live_public_change(lv)) {
        char tail[48] = ""; /* so that the writer knows its own change when it comes back */
        if (lv->echo_tag)
            hub_echo_tail(lv->srv->hub, lv->echo_tag, tail, sizeof tail);
        st = store_notify_news(c, lv->row.id, lv->row.last_seq, tail);
    } else if (st == STORE_OK)
        st = store_notify_news(c, lv->row.id, lv->row.last_seq, STORE_NEWS_HANDS);
    /* What the lobby lists of an open game changed, or a game left or entered play: every
     * instance's lobby cache forgets its pages (lobbycache.h). */
    if (st == STORE_OK && n > 0 &&
        (strcmp(lv->loaded_status, "playing") != 0 || strcmp(lv->row.status, "playing") != 0))
        st = store_notify_lobby(c);
    /* The worker's read locks the row, so it waits for this transaction's commit; a row this
     * transaction inserted it would not see at all, so that wake waits for the commit. */
    if (st == STORE_OK && lv->row.bot_due) {
        enum bot_need need = live_bot_need(lv);
        if (lv->inserted) {
            lv->wake_due = true;
            lv->wake_need = need;
        } else if (lv->srv->wake_bots) {
            lv->srv->wake_bots(lv->srv->bots, lv->row.id, need, live_who(lv));
        }
    }
    return st;
}

json_t *live_public_view(const struct live *lv)
{
    json_t *v = lv->rs->public_view(lv->g);
    json_object_set_new(v, "id", json_string(lv->row.id));
    json_object_set_new(v, "game", json_string(lv->rs->id));
    json_object_set_new(v, "private", json_boolean(lv->row.unlisted));
    json_object_set_new(v, "bot_level", json_string(lv->row.bot_level));
    json_object_set_new(v, "status", json_string(lv->row.status));
    json_object_set_new(v, "players", json_integer(lv->row.players));
    json_object_set_new(v, "turn_seconds",
                        lv->row.turn_seconds ? json_integer(lv->row.turn_seconds) : json_null());
    json_object_set_new(v, "deadline",
                        lv->row.deadline > 0 ? json_real(lv->row.deadline) : json_null());
    bool banked = lv->row.time_bank_seconds > 0 && lv->row.turn_seconds > 0;
    json_object_set_new(v, "time_bank_seconds",
                        banked ? json_integer(lv->row.time_bank_seconds) : json_null());
    json_object_set_new(v, "step_deadline",
                        lv->row.deadline > 0 && lv->row.step_ends > 0 ? json_real(lv->row.step_ends)
                                                                      : json_null());
    json_object_set_new(v, "last_seq", json_integer(lv->row.last_seq));
    json_object_set_new(v, "rated", json_boolean(lv->row.rated));
    json_t *ratings = strcmp(lv->row.status, "finished") == 0 ? rated_view(lv) : NULL;
    if (ratings)
        json_object_set_new(v, "ratings", ratings);
    json_t *seats = json_object_get(v, "seats");
    size_t i;
    json_t *seat;
    json_array_foreach(seats, i, seat)
    {
        const struct seat_row *row = seat_row_of(lv, (int)i);
        json_object_set_new(seat, "name",
                            row && row->name[0] ? json_string(row->name) : json_null());
        json_object_set_new(seat, "bot", row && row->bot[0] ? json_string(row->bot) : json_null());
        json_object_set_new(seat, "bank_seconds",
                            banked && i < RS_MAX_SEATS ? json_integer(lv->row.banks[i])
                                                       : json_null());
    }
    if (strcmp(lv->row.status, "finished") == 0) {
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)lv->rs->seed(lv->g));
        json_object_set_new(v, "seed", json_string(seed));
    }
    return v;
}
