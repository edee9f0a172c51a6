/* sse.c: GET /api/v1/games/{id}/stream, a game's public log as Server-Sent Events. A stream
 * costs no thread while it waits: with nothing to send, its content reader parks the
 * connection in the hub (hub.h), which resumes it on news of its game, on its keep-alive tick
 * or at shutdown. Streams are capped per instance, per game and per client address; past a
 * cap the request gets 503 too_many_streams with Retry-After, except that a stream opened
 * with a seat token of the game (a player's) ends a watcher's stream to make room. A player's
 * stream is its seat's sign of life (service_seen) when it opens and at every keep-alive
 * until its peer closes it.
 * Table talk comes on the same stream: each chat message written after the stream opened is a
 * "chat" event (no id: Last-Event-ID stays the log's sequence; a client reads what it missed
 * with GET .../chat?after=), the watchers' channel only on a stream opened with the session of
 * an account that holds no seat in the game (service_chat.c says who reads what). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "hub.h"
#include "ruleset.h"
#include "server.h"
#include "service.h"
#include "store.h"
#include "store_accounts.h"
#include "store_chat.h"
#include "store_games.h"

enum { SSE_PAGE = 200, SSE_RETRY_AFTER_S = 10 };

struct stream {
    struct server *srv;
    struct MHD_Connection *conn;
    struct hub_sub *sub;
    char id[64];
    long long last; /* the last sequence sent */
    char *buf;      /* bytes waiting to go out */
    size_t len, cap, off;
    bool finished; /* game_over (or abandoned) was sent: end after the buffer */
    int seat;      /* the seat whose token opened it (a sign of life at every tick), or -1 */
    bool first;
    long long chat_last; /* the last chat message sent (or the newest when it opened) */
    bool watchers;       /* the watchers' channel is sent too */
};

struct fetch_ctx {
    struct stream *s;
    json_t *events;
    json_t *chat;
};

static int fetch_tx(PGconn *c, void *ctx)
{
    struct fetch_ctx *f = ctx;
    int st = store_events_after(c, f->s->id, f->s->last, SSE_PAGE, &f->events);
    if (st == STORE_OK)
        st = store_chat_after(c, f->s->id, f->s->chat_last, SSE_PAGE, f->s->watchers, &f->chat);
    return st;
}

static void append(struct stream *s, const char *text)
{
    size_t n = strlen(text);
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 512;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *b = realloc(s->buf, cap);
        if (!b)
            return;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, text, n + 1);
    s->len += n;
}

/* Reads new events into the buffer; true when some arrived. */
static bool fetch(struct stream *s)
{
    struct fetch_ctx f = {s, NULL, NULL};
    if (store_run(s->srv->store, fetch_tx, &f) != STORE_OK || !f.events || !f.chat) {
        json_decref(f.events);
        json_decref(f.chat);
        return false;
    }
    size_t i;
    json_t *e;
    json_array_foreach(f.chat, i, e)
    {
        char *data = json_dumps(e, JSON_COMPACT);
        if (!data)
            continue;
        append(s, "event: chat\ndata: ");
        append(s, data);
        append(s, "\n\n");
        free(data);
        s->chat_last = json_integer_value(json_object_get(e, "id"));
    }
    json_array_foreach(f.events, i, e)
    {
        long long seq = json_integer_value(json_object_get(e, "seq"));
        const char *type = json_string_value(json_object_get(e, "type"));
        char *data = json_dumps(e, JSON_COMPACT);
        if (!data)
            continue;
        char head[128];
        snprintf(head, sizeof head, "id: %lld\nevent: %s\ndata: ", seq, type ? type : "event");
        append(s, head);
        append(s, data);
        append(s, "\n\n");
        free(data);
        s->last = seq;
        if (type && (strcmp(type, "game_over") == 0 || strcmp(type, "abandoned") == 0))
            s->finished = true; /* the game's last event */
    }
    bool got = json_array_size(f.events) > 0 || json_array_size(f.chat) > 0;
    json_decref(f.events);
    json_decref(f.chat);
    return got;
}

/* libmicrohttpd's content reader: the buffered bytes, or new events, or a keep-alive comment;
 * with none of these it parks the connection and returns 0 (no thread waits). */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    struct stream *s = cls;
    if (s->off == s->len) {
        s->off = s->len = 0;
        if (s->first) {
            s->first = false;
            append(s, "retry: 2000\n\n");
        }
        while (s->len == 0) {
            bool evicted;
            if (s->finished || hub_sub_ending(s->sub, &evicted))
                return MHD_CONTENT_READER_END_OF_STREAM; /* evicted: a player needed the room */
            if (hub_sub_take_keepalive(s->sub)) {
                /* A closed tab is no sign of life: without this look, the tick after the
                 * close (whose write still succeeds) and the one whose write fails would
                 * each count, and the seat would look online two ticks past its close. */
                if (http_peer_closed(s->conn))
                    return MHD_CONTENT_READER_END_WITH_ERROR;
                service_seen(s->srv, s->id, s->seat); /* the seat's person is still here */
                append(s, ": keep-alive\n\n");
                break;
            }
            hub_sub_mark(s->sub);
            if (fetch(s))
                break;
            /* Nothing to send: an idle stream keeps no buffer (a game's history, sent once,
             * left 8-16 KiB in every parked stream). */
            free(s->buf);
            s->buf = NULL;
            s->cap = 0;
            if (hub_park(s->sub, s->conn))
                return 0; /* resumed by news, a keep-alive tick or shutdown */
        }
    }
    size_t n = s->len - s->off < max ? s->len - s->off : max;
    memcpy(out, s->buf + s->off, n);
    s->off += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    struct stream *s = cls;
    hub_unsubscribe(s->sub);
    free(s->buf);
    free(s);
}

/* Whether the game exists and, when a bearer token came, which of its seats it is. */
struct who_ctx {
    const char *id, *token;
    int seat;      /* the token's seat; -1 when it is none of the game's seats (the stream is then a
                    * watcher's, as without a token), -2 when none came */
    bool watchers; /* the stream may carry the watchers' chat */
    long long chat_last; /* the game's newest chat message now */
};

static int who_tx(PGconn *c, void *ctx)
{
    struct who_ctx *w = ctx;
    struct game_row row = {0};
    struct seat_row seats[RS_MAX_SEATS];
    int n = 0;
    int st = store_game_load(c, w->id, false, -1, &row, seats, &n);
    w->seat = w->token ? -1 : -2;
    if (st == STORE_OK && w->token) {
        uint8_t hash[AUTH_HASH_LEN];
        auth_hash(w->token, hash);
        /* An account's session token is the seat its account holds (none: a watcher's). */
        struct account a = {0};
        bool session = auth_is_session(w->token);
        if (session && store_account_of_session(c, hash, &a) != STORE_OK)
            a.id = 0;
        for (int i = 0; i < n; i++)
            if (seats[i].has_token && (session ? a.id && seats[i].account == a.id
                                               : auth_equal(hash, seats[i].token_hash)))
                w->seat = seats[i].seat;
        /* A signed-in watcher (an account with no seat here) reads the watchers' channel. */
        w->watchers = session && a.id && w->seat < 0;
    }
    if (st == STORE_OK && strcmp(row.status, "open") != 0 && strcmp(row.status, "playing") != 0)
        w->watchers = true; /* the game ended: every channel is open */
    if (st == STORE_OK)
        st = store_chat_last(c, w->id, &w->chat_last);
    game_row_clear(&row);
    return st;
}

void api_stream(struct http_req *r)
{
    const char *after = http_header(r, "Last-Event-ID");
    if (!after)
        after = http_query(r, "after");
    char *end = NULL;
    long long last = after ? strtoll(after, &end, 10) : 0;
    if (after && (!*after || *end || last < 0 || last > 1000000000000LL)) {
        http_reply_problem(r, P_BAD_QUERY, NULL,
                           "Last-Event-ID (or \"after\") must be a non-negative integer.");
        return;
    }
    struct who_ctx who = {.id = r->params[0], .token = http_bearer(r)};
    int st = store_run(r->srv->store, who_tx, &who);
    if (st == STORE_NO_ROW) {
        http_reply_problem(r, P_NO_GAME, NULL, "There is no game \"%.40s\".", r->params[0]);
        return;
    }
    if (st != STORE_OK) {
        http_reply_problem(r, P_UNAVAILABLE, NULL, "The database is unreachable; retry soon.");
        return;
    }
    enum hub_refusal why;
    struct hub_sub *sub =
        hub_subscribe(r->srv->hub, r->params[0], http_client(r), who.seat >= 0, &why);
    if (!sub) {
        if (why == HUB_NOMEM)
            http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        else if (why == HUB_ADDRESS_FULL)
            http_reply_problem(r, P_TOO_MANY_STREAMS, NULL,
                               "Your address has as many event streams open on this server as "
                               "it keeps for one address; close some, or poll GET "
                               "/api/v1/games/%.40s/events.",
                               r->params[0]);
        else
            http_reply_problem(
                r, P_TOO_MANY_STREAMS, NULL,
                why == HUB_GAME_FULL ? "This game has as many event streams as one server keeps "
                                       "open; retry later, or poll GET /api/v1/games/%.40s/events."
                : why == HUB_FULL    ? "This server has as many event streams open as it keeps; "
                                       "retry later, or poll GET /api/v1/games/%.40s/events."
                                     : "The server is shutting down; reconnect (game %.40s).",
                r->params[0]);
        r->reply.retry_after = SSE_RETRY_AFTER_S;
        return;
    }
    struct stream *s = calloc(1, sizeof *s);
    if (!s) {
        hub_unsubscribe(sub);
        http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        return;
    }
    s->srv = r->srv;
    s->conn = r->conn;
    s->sub = sub;
    snprintf(s->id, sizeof s->id, "%s", r->params[0]);
    s->last = last;
    s->first = true;
    s->seat = who.seat >= 0 ? who.seat : -1;
    s->watchers = who.watchers;
    s->chat_last = who.chat_last;
    service_seen(r->srv, s->id, s->seat);
    r->reply.status = 200;
    r->reply.content_type = "text/event-stream";
    r->reply.stream = stream_read;
    r->reply.stream_ctx = s;
    r->reply.stream_free = stream_free;
}
