/* service_games.c: the reads of games (service.h): the lobby, the public and private views, the
 * log and the replay (service_create.c seats people: create and join). */
#include "service.h"
#include "service_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "lobbycache.h"
#include "server.h"
#include "store.h"
#include "store_chat.h"
#include "viewcache.h"

enum { LIST_LIMIT = 100 };

/* ---- reads -------------------------------------------------------------------------------- */

struct list_call {
    struct lobby_query q;
    struct outcome *o;
};

static int list_tx(PGconn *c, void *ctx)
{
    struct list_call *lc = ctx;
    json_t *games;
    char next[STORE_CURSOR_LEN];
    int st = store_games_list(c, &lc->q, &games, next);
    if (st != STORE_OK)
        return st;
    size_t i;
    json_t *game;
    json_array_foreach(games, i, game)
    {
        service_add_older_fields(game);
    }
    outcome_reply(
        lc->o, 200,
        json_pack("{s:o, s:o}", "games", games, "next", next[0] ? json_string(next) : json_null()));
    return STORE_OK;
}

/* Reads a whole number in lo..hi from query value s into *out; false when it is not one. */
static bool query_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

int service_list_games(struct server *srv, const char *limit, const char *after, const char *game,
                       const char *seats, struct outcome *o)
{
    struct list_call lc = {.q = {.limit = LIST_LIMIT, .game = game}, .o = o};
    if (limit && !query_int(limit, 1, LIST_LIMIT, &lc.q.limit))
        return outcome_fail(o, P_BAD_QUERY, NULL, "\"limit\" must be a whole number from 1 to %d.",
                            LIST_LIMIT);
    if (seats && !query_int(seats, 1, RS_MAX_SEATS, &lc.q.players))
        return outcome_fail(o, P_BAD_QUERY, NULL, "\"seats\" must be a whole number from 1 to %d.",
                            RS_MAX_SEATS);
    if (game && !ruleset_find(game))
        return outcome_fail(o, P_BAD_QUERY, NULL,
                            "\"game\" must name a game this server hosts; GET /api/v1/rulesets "
                            "lists them.");
    if (after && !store_lobby_cursor_parse(after, &lc.q))
        return outcome_fail(o, P_BAD_QUERY, NULL,
                            "\"after\" must be the \"next\" of the lobby page before, as it was "
                            "given.");
    /* The page's key: the query's values as read. */
    char key[160], *body;
    size_t len;
    snprintf(key, sizeof key, "%d|%d|%.16s|%d|%d|%s|%s", lc.q.limit, lc.q.players, game ? game : "",
             lc.q.has_after, lc.q.after_part, lc.q.after_ts, lc.q.after_id);
    if (lobby_cache_get(srv->lobby, key, &body, &len)) {
        outcome_text(o, 200, body, len);
        return STORE_OK;
    }
    uint64_t ticket = lobby_cache_ticket(srv->lobby);
    int st = store_run(srv->store, list_tx, &lc);
    if (st != STORE_OK || o->status != 200 || !srv->lobby)
        return st;
    body = json_dumps(o->reply, JSON_COMPACT);
    if (!body)
        return outcome_fail(o, P_INTERNAL, NULL, "The reply could not be encoded.");
    len = strlen(body);
    lobby_cache_put(srv->lobby, key, ticket, body, len);
    outcome_text(o, 200, body, len);
    return STORE_OK;
}

_Static_assert((int)RS_MAX_SEATS <= (int)VIEW_CACHE_MAX_PARTS, "a view's parts are its seats");

struct view_call {
    struct game_call gc;
    double left[RS_MAX_SEATS]; /* seconds each seat's presence stays true (0: for good) */
    int nleft;
};

static int view_tx(PGconn *c, void *ctx)
{
    struct view_call *vc = ctx;
    struct live lv;
    int st = service_load(c, &vc->gc, false, service_see_lobby, &lv);
    json_t *v = st == STORE_OK ? live_public_view(&lv) : NULL;
    if (v)
        st = service_presence_add(vc->gc.srv, c, vc->gc.id, v, vc->left, &vc->nleft);
    if (st == STORE_OK)
        outcome_reply(vc->gc.o, 200, v);
    else
        json_decref(v);
    live_free(&lv);
    return st;
}

int service_game_view(struct server *srv, const char *id, struct outcome *o)
{
    struct view_cache *vc = srv->views;
    struct view_text *cached = vc ? view_cache_get_text(vc, id) : NULL;
    if (cached) { /* shared, not copied: the HTTP layer serves it as it is */
        outcome_view(o, 200, cached);
        return STORE_OK;
    }
    uint64_t ticket = vc ? view_cache_ticket(vc, id) : 0;
    /* Before the transaction: the seats' ends counted from here are no later than the
     * database's, which counts them from its now() inside the transaction. */
    double start = view_cache_now();
    struct view_call call = {.gc = {.srv = srv, .id = id, .o = o}};
    int st = store_run(srv->store, view_tx, &call);
    if (st != STORE_OK || o->status != 200)
        return st;
    char *body = json_dumps(o->reply, JSON_COMPACT);
    if (!body)
        return outcome_fail(o, P_INTERNAL, NULL, "The reply could not be encoded.");
    size_t len = strlen(body);
    /* True until an online seat would turn away (a seat coming back invalidates it; one seen
     * again while online moves its end: service_presence.c). */
    if (vc) {
        for (int k = 0; k < call.nleft; k++)
            call.left[k] = call.left[k] > 0 ? start + call.left[k] : 0;
        view_cache_put_parts(vc, id, ticket, body, len, call.left, call.nleft);
    }
    outcome_text(o, 200, body, len);
    return STORE_OK;
}

/* Whether seat `seat`'s hand may carry a notice of a default (defaulted_of reads it). */
static bool has_default_notice(const struct live *lv, int seat)
{
    return strcmp(lv->row.status, "open") != 0 && lv->row.ndefaults >= 1 &&
           (lv->rs->over(lv->g) || !lv->rs->submitted(lv->g, seat));
}

/* What seat `seat` was last given by default, and why, for its hand view: {round, step,
 * reason: "timer" | "forced_by_host" | "forced_by_seat", by, chosen: the order body, cards:
 * [{id, card}] the discards it names}; *out stays NULL when the game has had no default, when
 * the seat's last decision was its own, or when it has decided the current point since (its own
 * decision replaces the notice; points others resolve meanwhile do not). */
static int defaulted_of(PGconn *c, const struct live *lv, int seat, json_t **out)
{
    *out = NULL;
    if (!has_default_notice(lv, seat))
        return STORE_OK;
    json_t *d;
    int st = store_last_default(c, lv->row.id, seat, &d);
    if (st == STORE_NO_ROW)
        return STORE_OK;
    if (st != STORE_OK)
        return st;
    json_t *by = json_object_get(d, "by");
    json_object_set_new(
        d, "reason",
        json_string(json_is_integer(by) ? "forced_by_seat"
                    : json_is_string(by) && strcmp(json_string_value(by), "host") == 0
                        ? "forced_by_host"
                        : "timer"));
    /* The cards the default gave up, as the game's rules read the chosen order. */
    json_t *cards = json_array();
    void *dec = calloc(1, lv->rs->decision_size);
    struct rs_pos pos;
    char why[200];
    int ids[128];
    int n =
        dec && !lv->rs->order_from_json(json_object_get(d, "chosen"), &pos, dec, why, sizeof why)
            ? lv->rs->decision_cards(dec, ids, 128)
            : 0;
    for (int i = 0; i < n; i++) {
        const char *slug = lv->rs->card_id(lv->g, ids[i]);
        if (slug)
            json_array_append_new(cards, json_pack("{s:i, s:s}", "id", ids[i], "card", slug));
    }
    free(dec);
    json_object_set_new(d, "cards", cards);
    *out = d;
    return STORE_OK;
}

struct hand_call {
    struct game_call gc;
    int seat; /* the token's, once known */
};

/* Seat `seat`'s hand view of lv, without its "defaulted" notice (hand_tx adds it). */
static json_t *hand_json(const struct live *lv, int seat)
{
    json_t *v = ruleset_private_view(lv->rs, lv->g, seat);
    json_object_set_new(v, "id", json_string(lv->row.id));
    json_object_set_new(v, "game", json_string(lv->rs->id));
    json_object_set_new(v, "status", json_string(lv->row.status));
    if (strcmp(lv->row.status, "open") == 0 || strcmp(lv->row.status, "abandoned") == 0)
        json_object_set_new(v, "pending", json_null()); /* not started yet, or ended */
    return v;
}

static int hand_tx(PGconn *c, void *ctx)
{
    struct hand_call *hc = ctx;
    struct game_call *gc = &hc->gc;
    struct live lv;
    int st = service_load(c, gc, false, ".", &lv);
    int seat = st == STORE_OK ? service_seat_of_token(c, &lv, gc->token, gc->o) : -1;
    hc->seat = seat;
    if (st == STORE_OK && seat < 0)
        st = STORE_ABORT;
    if (st == STORE_OK) {
        json_t *v = hand_json(&lv, seat);
        json_t *why = NULL;
        st = defaulted_of(c, &lv, seat, &why);
        json_object_set_new(v, "defaulted", why ? why : json_null());
        if (st == STORE_OK)
            outcome_reply(gc->o, 200, v);
        else
            json_decref(v);
    }
    live_free(&lv);
    return st;
}

/* The hand of the seat whose token hashes to `hash`, built without the database when this
 * instance committed the game's last change (live_load_current) and the hand needs nothing else
 * from it (no notice of a default); NULL otherwise. *seat is the token's seat. */
static json_t *hand_from_memory(struct server *srv, const char *id, const uint8_t *hash, int *seat)
{
    struct live lv;
    if (!live_load_current(srv, id, &lv))
        return NULL;
    json_t *v = NULL;
    *seat = live_seat_of(&lv, hash);
    if (*seat >= 0 && !has_default_notice(&lv, *seat)) {
        v = hand_json(&lv, *seat);
        json_object_set_new(v, "defaulted", json_null());
    }
    live_free(&lv);
    return v;
}

/* The view cache's key of the hand that seat token `token` reads in game `id`: "ID/" and the
 * token's hash in hex, a member of the game's entry, so forgotten with it. False (no key) for
 * an account's session token: a session can end, or change seats, with no news of the game, so
 * its hands are always read; and for an id that could not be a game's. */
static bool hand_key(const char *id, const char *token, char *key, size_t n,
                     uint8_t hash[AUTH_HASH_LEN])
{
    if (!token || auth_is_session(token) || strchr(id, '/'))
        return false;
    auth_hash(token, hash);
    int k = snprintf(key, n, "%s/", id);
    if (k < 0 || (size_t)k + 2 * AUTH_HASH_LEN >= n)
        return false;
    for (int i = 0; i < AUTH_HASH_LEN; i++)
        snprintf(key + k + 2 * i, 3, "%02x", hash[i]);
    return true;
}

/* A hand is cached under its token (hand_key) once read, with its seat as the text's tag, and
 * served from the cache until the game changes: only a change of the game (an order, a seat
 * changing hands, a sweep) can change a hand or end a seat token's hold on it, and each one
 * invalidates the game's entry and its members on the writer's instance before it replies, and
 * on every other instance when its NOTIFY arrives (hub.c), as for the public view. So a cached
 * hand goes only to a token that read it from the database, and it is the hand that token
 * would read there now; on another instance than the one that took a seat from a token, for
 * the notification's way (normally well under a millisecond), the token may still read the hand
 * it read before. */
int service_hand(struct server *srv, const char *id, const char *token, struct outcome *o)
{
    struct view_cache *vc = srv->views;
    char key[256];
    uint8_t hash[AUTH_HASH_LEN]; /* the token's, with the key */
    bool cached = vc && hand_key(id, token, key, sizeof key, hash);
    struct view_text *t = cached ? view_cache_get_text(vc, key) : NULL;
    if (t) {
        int seat = view_text_tag(t);
        outcome_view(o, 200, t);
        service_seen(srv, id, seat);
        return STORE_OK;
    }
    uint64_t ticket = cached ? view_cache_ticket(vc, key) : 0;
    struct hand_call hc = {{.srv = srv, .id = id, .token = token, .o = o}, -1};
    json_t *mine = cached ? hand_from_memory(srv, id, hash, &hc.seat) : NULL;
    if (mine) {
        outcome_reply(o, 200, mine);
    } else {
        int st = store_run(srv->store, hand_tx, &hc);
        if (st != STORE_OK || o->status != 200)
            return st;
    }
    if (cached) {
        char *body = json_dumps(o->reply, JSON_COMPACT);
        if (!body)
            return outcome_fail(o, P_INTERNAL, NULL, "The reply could not be encoded.");
        size_t len = strlen(body);
        view_cache_put_tagged(vc, key, ticket, body, len, 0, hc.seat);
        outcome_text(o, 200, body, len);
    }
    service_seen(srv, id, hc.seat); /* a client that polls is at the table too */
    return STORE_OK;
}

/* ---- events and replay -------------------------------------------------------------------- */

struct events_call {
    struct game_call gc;
    long long after;
    json_t *seats;  /* replay_tx: [{seat, name, bot}] for the rounds view */
    bool with_chat; /* replay_tx: read the table talk too (the rounds view) */
    json_t *chat;   /* its messages, both channels (the game has ended) */
};

static int events_tx(PGconn *c, void *ctx)
{
    struct events_call *ec = ctx;
    json_t *events;
    long long last_seq = 0;
    int st =
        store_events_page(c, ec->gc.id, ec->after, ec->gc.srv->max_events_page, &events, &last_seq);
    if (st == STORE_NO_ROW)
        return outcome_fail(ec->gc.o, P_NO_GAME, NULL, "There is no game \"%.40s\".", ec->gc.id);
    if (st == STORE_OK)
        outcome_reply(ec->gc.o, 200,
                      json_pack("{s:o, s:I}", "events", events, "last_seq", last_seq));
    return st;
}

int service_events(struct server *srv, const char *id, long long after, struct outcome *o)
{
    struct events_call ec = {.gc = {.srv = srv, .id = id, .o = o}, .after = after};
    return store_run(srv->store, events_tx, &ec);
}

static int replay_tx(PGconn *c, void *ctx)
{
    struct events_call *ec = ctx;
    struct outcome *o = ec->gc.o;
    struct live lv;
    int st = service_load(c, &ec->gc, false, ".", &lv);
    if (st == STORE_OK && strcmp(lv.row.status, "finished") != 0)
        st = outcome_fail(o, P_NOT_FINISHED, NULL,
                          "The seed and the decisions stay secret until the game ends.");
    json_t *decisions;
    if (st == STORE_OK)
        st = store_decisions_read(c, ec->gc.id, &decisions);
    if (st == STORE_OK) {
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)lv.rs->seed(lv.g));
        json_t *reply = json_pack("{s:s, s:s, s:i}", "game", lv.rs->id, "seed", seed, "players",
                                  lv.rs->players(lv.g));
        /* the game's options by name, so that the replay deals and ends the same */
        json_object_update_new(reply, ruleset_options_json(lv.rs, lv.g));
        json_object_set_new(reply, "decisions", decisions);
        outcome_reply(o, 200, reply);
        json_decref(ec->seats);
        ec->seats = json_array();
        for (int i = 0; i < lv.nseats; i++)
            json_array_append_new(ec->seats,
                                  json_pack("{s:i, s:s, s:s*}", "seat", lv.seats[i].seat, "name",
                                            lv.seats[i].name, "bot",
                                            lv.seats[i].bot[0] ? lv.seats[i].bot : NULL));
        json_decref(ec->chat);
        ec->chat = NULL;
        if (ec->with_chat)
            st = store_chat_after(c, ec->gc.id, 0, SERVICE_CHAT_REPLAY, true, &ec->chat);
    }
    live_free(&lv);
    return st;
}

int service_replay(struct server *srv, const char *id, struct outcome *o)
{
    struct events_call ec = {.gc = {.srv = srv, .id = id, .o = o}};
    int st = store_run(srv->store, replay_tx, &ec);
    json_decref(ec.seats);
    json_decref(ec.chat);
    return st;
}

int service_replay_rounds(struct server *srv, const char *id, struct outcome *o)
{
    struct events_call ec = {.gc = {.srv = srv, .id = id, .o = o}, .with_chat = true};
    int st = store_run(srv->store, replay_tx, &ec);
    if (st == STORE_OK && o->status == 200) {
        const struct ruleset *rs =
            ruleset_find(json_string_value(json_object_get(o->reply, "game")));
        char err[256] = "";
        json_t *rounds = rs ? ruleset_replay_rounds(rs, o->reply, err, sizeof err) : NULL;
        json_t *reply = NULL;
        if (rounds) {
            reply =
                json_pack("{s:O, s:O, s:o, s:o, s:o}", "game", json_object_get(o->reply, "game"),
                          "players", json_object_get(o->reply, "players"), "seats", ec.seats,
                          "rounds", rounds, "chat", ec.chat ? ec.chat : json_array());
            ec.seats = ec.chat = NULL; /* taken by the reply */
        }
        if (reply)
            outcome_reply(o, 200, reply);
        else
            st = outcome_fail(o, P_INTERNAL, NULL, "The game's replay does not replay: %s", err);
    }
    json_decref(ec.seats);
    json_decref(ec.chat);
    return st;
}
