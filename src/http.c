/* http.c: the route table and the one dispatcher of `cityd serve` (see http.h), and how the
 * daemon runs: libmicrohttpd with a pool of epoll threads (no select(), so any descriptor
 * number works), parked requests that wait for other threads without holding one, refusals
 * held back before they go out, and the client's address taken from X-Forwarded-For only when
 * the peer is a trusted proxy. The caps on connections in all and per address and the reaper
 * that cuts connections whose request head takes too long are in http_conns.c; how a reply
 * leaves (a cached view's shared reply) and its access-log line, in http_send.c. */
#include "http.h"
#include "http_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "accesslog.h"
#include "addrcount.h"
#include "auth.h"
#include "metrics.h"
#include "netaddr.h"
#include "ratelimit.h"
#include "server.h"
#include "viewcache.h"

static const struct http_route routes[] = {
    {"POST", "/api/v1/games", api_create_game, true, "create_game"},
    {"GET", "/api/v1/games", api_list_games, false, "list_games"},
    {"GET", "/api/v1/games/{id}", api_get_game, false, "get_game"},
    {"POST", "/api/v1/games/{id}/join", api_join, true, "join"},
    {"GET", "/api/v1/games/{id}/hand", api_hand, false, "hand"},
    {"POST", "/api/v1/games/{id}/orders", api_orders, true, "orders"},
    {"POST", "/api/v1/games/{id}/resolve", api_resolve, true, "resolve"},
    {"POST", "/api/v1/games/{id}/leave", api_leave, true, "leave"},
    {"POST", "/api/v1/games/{id}/takeover", api_takeover, true, "takeover"},
    {"POST", "/api/v1/games/{id}/reclaim", api_reclaim, true, "reclaim"},
    {"POST", "/api/v1/games/{id}/cancel", api_cancel, true, "cancel"},
    {"POST", "/api/v1/games/{id}/hint", api_hint, true, "hint"},
    {"POST", "/api/v1/games/{id}/chat", api_chat_post, true, "chat_post"},
    {"GET", "/api/v1/games/{id}/chat", api_chat_read, false, "chat_read"},
    {"POST", "/api/v1/games/{id}/chat/{msg}/report", api_chat_report, true, "chat_report"},
    {"GET", "/api/v1/games/{id}/events", api_events, false, "events"},
    {"GET", "/api/v1/games/{id}/stream", api_stream, false, "stream"},
    {"GET", "/api/v1/games/{id}/replay", api_replay, false, "replay"},
    {"GET", "/api/v1/games/{id}/replay/rounds", api_replay_rounds, false, "replay_rounds"},
    {"GET", "/api/v1/cards", api_cards, false, "cards"},
    {"GET", "/api/v1/rulesets", api_rulesets, false, "rulesets"},
    {"POST", "/api/v1/accounts", api_account_create, true, "account_create"},
    {"POST", "/api/v1/sessions", api_session_create, true, "session_create"},
    {"DELETE", "/api/v1/sessions", api_sessions_end, false, "sessions_end"},
    {"DELETE", "/api/v1/sessions/current", api_session_end, false, "session_end"},
    {"GET", "/api/v1/me", api_me, false, "me"},
    {"DELETE", "/api/v1/me", api_account_delete, true, "account_delete"},
    {"GET", "/api/v1/me/games", api_me_games, false, "me_games"},
    {"PUT", "/api/v1/me/password", api_password, true, "password"},
    {"GET", "/api/v1/players/*", api_player, false, "player"},
    {"GET", "/api/v1/leaderboard", api_leaderboard, false, "leaderboard"},
    {"GET", "/healthz", api_healthz, false, "healthz"},
    {"GET", "/metrics", api_metrics, false, "metrics"},
    {"GET", "/openapi.yaml", api_openapi, false, "openapi"},
    {"GET", "/docs/*", api_docs, false, "docs"},
    {"GET", "/", api_static, false, "static"},
    {"GET", "/api/*", NULL, false, "api_unknown"}, /* an unknown API path is a 404, not a file */
    {"GET", "/*", api_static, false, "static"},
};
enum { NROUTES = sizeof routes / sizeof *routes };

/* The handlers that need a bearer token and check it before the body: a request without one
 * is answered 401 before its body is read; with one, a refused body still reaches the handler
 * (r->body_refused), which checks the token before it leaves the 400. */
static void (*const token_first_handlers[])(struct http_req *) = {api_orders};

static bool token_first(const struct http_route *rt)
{
    for (size_t i = 0; i < sizeof token_first_handlers / sizeof *token_first_handlers; i++)
        if (rt->handler == token_first_handlers[i])
            return true;
    return false;
}

/* The reads that cost the most (a page of the lobby, of a game's log, a whole replay): each
 * takes a token of its client address's read bucket (--read-rate, --read-burst); past it, 429
 * rate_limited with Retry-After. A game's view, a hand and the stream are not counted: the
 * view cache answers the first two, and streams have caps of their own. */
static void (*const costly_read_handlers[])(struct http_req *) = {
    api_list_games, api_events, api_replay, api_replay_rounds, api_player, api_leaderboard};

static void delay_reply(struct http_req *r, double seconds);

/* True, with the 429 in r's reply, when route rt is a costly read and r's address is past its
 * read rate. The refusal goes out only after a second (the connection parked, holding no
 * thread), so that a client cannot spin on refusals as fast as they are made: each of its
 * connections gets one answer a second while others are served. */
static bool read_rate_exceeded(struct http_req *r, const struct http_route *rt)
{
    const struct quotas *q = r->srv->quotas;
    if (!q || !q->reads)
        return false;
    bool costly = false;
    for (size_t i = 0; i < sizeof costly_read_handlers / sizeof *costly_read_handlers; i++)
        costly |= rt->handler == costly_read_handlers[i];
    if (!costly)
        return false;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int wait = rate_limit_take(q->reads, r->client, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
    if (!wait)
        return false;
    http_reply_problem(r, P_RATE_LIMITED, NULL,
                       "Your address has read the lobby, event logs and replays too often: this "
                       "server allows %g such reads a minute, %d at once. Try again in %d "
                       "second%s (see Retry-After); a game's own view and its stream are not "
                       "limited.",
                       q->read_rate, q->read_burst, wait, wait == 1 ? "" : "s");
    r->reply.retry_after = wait;
    delay_reply(r, 1.0);
    return true;
}

/* The route every OPTIONS request takes (CORS preflights included): for metrics and the log. */
static const struct http_route options_route = {"OPTIONS", "/*", NULL, false, "options"};

double http_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef char route_params[HTTP_MAX_PARAMS][64];

/* Matches `url` against `pattern`, filling params with its {id} parts. */
static bool match(const char *pattern, const char *url, route_params params)
{
    int np = 0;
    const char *p = pattern, *u = url;
    while (*p) {
        if (*p == '*')
            return true;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            size_t n = strcspn(u, "/");
            if (!end || n == 0 || n >= sizeof params[0] || np >= HTTP_MAX_PARAMS)
                return false;
            memcpy(params[np], u, n);
            params[np++][n] = 0;
            p = end + 1;
            u += n;
            continue;
        }
        if (*p != *u)
            return false;
        p++;
        u++;
    }
    return *u == 0;
}

void http_peer_address(struct MHD_Connection *conn, char *out, size_t n)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    netaddr_text(ci ? ci->client_addr : NULL, out, n);
}

/* True when a Content-Type names application/json, whatever its parameters (charset...) and
 * the case of its letters. */
static bool is_json_media_type(const char *ct)
{
    if (!ct)
        return false;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    size_t n = strcspn(ct, "; \t");
    if (n != 16 || strncasecmp(ct, "application/json", 16) != 0)
        return false;
    ct += n;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    return *ct == 0 || *ct == ';';
}

/* Answers OPTIONS: 204 with Allow (the methods of the path, or those of the whole API for a
 * path under /api/v1 that names nothing) and, under /api/v1, the preflight's answers, which
 * queue_reply adds. */
static void answer_options(struct http_req *r)
{
    char *methods = r->allow;
    methods[0] = 0;
    bool get = false, post = false, put = false, del = false;
    for (int i = 0; i < NROUTES; i++) {
        route_params probe;
        const char *pat = routes[i].pattern;
        if (!routes[i].handler || pat[strlen(pat) - 1] == '*' || !match(pat, r->url, probe))
            continue; /* the catch-alls: a path they alone match is a file (GET) or nothing */
        get = get || strcmp(routes[i].method, "GET") == 0;
        post = post || strcmp(routes[i].method, "POST") == 0;
        put = put || strcmp(routes[i].method, "PUT") == 0;
        del = del || strcmp(routes[i].method, "DELETE") == 0;
    }
    if (!get && !post && !put && !del) {
        /* Outside the API, a file (or its 404); inside, a path that names nothing, whose
         * preflight still succeeds so that a page can read the real call's 404. */
        get = true;
        post = http_is_api_path(r->url);
    }
    snprintf(methods, sizeof r->allow, "%s%s%s%sOPTIONS", get ? "GET, HEAD, " : "",
             post ? "POST, " : "", put ? "PUT, " : "", del ? "DELETE, " : "");
    r->route = &options_route;
    http_reply_bytes(r, 204, NULL, NULL, 0);
    r->reply.allow = r->allow;
}

/* Finds the route and runs it, or answers 404/405; parses the body first. */
static void dispatch(struct http_req *r)
{
    bool path_known = false;
    const struct http_route *found = NULL;
    char *methods = r->allow;
    methods[0] = 0;
    if (strcmp(r->method, "OPTIONS") == 0) {
        answer_options(r);
        return;
    }
    for (int i = 0; i < NROUTES; i++) {
        route_params probe;
        for (int k = 0; k < HTTP_MAX_PARAMS; k++)
            probe[k][0] = 0; /* a route with fewer parts leaves the others empty */
        if (!match(routes[i].pattern, r->url, probe))
            continue;
        bool wildcard = routes[i].pattern[strlen(routes[i].pattern) - 1] == '*';
        if (wildcard && path_known)
            break; /* a wildcard never hides a 405 of an exact path */
        if (strcmp(routes[i].method, r->method) == 0 ||
            (strcmp(r->method, "HEAD") == 0 && strcmp(routes[i].method, "GET") == 0)) {
            found = &routes[i];
            memcpy(r->params, probe, sizeof r->params);
            break;
        }
        if (wildcard)
            continue; /* a catch-all does not make a path known: other methods get 404 */
        path_known = true;
        if (!strstr(methods, routes[i].method) &&
            strlen(methods) + strlen(routes[i].method) + 3 < sizeof r->allow) {
            if (*methods)
                strcat(methods, ", ");
            strcat(methods, routes[i].method);
        }
    }
    if (!found) {
        r->route = NULL;
        if (path_known) {
            http_reply_problem(r, P_METHOD, NULL, "%s is not allowed on %s; use %s.", r->method,
                               r->url, methods);
            r->reply.allow = r->allow;
        } else {
            http_reply_problem(r, P_NOT_FOUND, NULL,
                               "Nothing is at %s; the API lives under /api/v1 (see "
                               "/openapi.yaml).",
                               r->url);
        }
        return;
    }
    r->route = found;
    if (!found->handler) {
        http_reply_problem(r, P_NOT_FOUND, NULL,
                           "Nothing is at %s; the API's paths are listed in /openapi.yaml.",
                           r->url);
        return;
    }
    for (int i = 0; i < HTTP_MAX_PARAMS; i++)
        if (!http_utf8_valid(r->params[i])) {
            /* Every {id} of the table names a game. The database holds ids as text and refuses
             * bytes that are not UTF-8 (a 500), so such an id is answered here: no such game. */
            http_reply_problem(r, P_NO_GAME, NULL,
                               "There is no game \"%.40s\"; list games with GET /api/v1/games.",
                               r->params[i]);
            return;
        }
    if (read_rate_exceeded(r, found))
        return;
    /* The token before the body: a client without one learns nothing about the body's rules. */
    if (token_first(found) && !http_bearer(r)) {
        http_reply_problem(r, P_NO_TOKEN, NULL,
                           "Send your seat token as \"Authorization: Bearer TOKEN\" (it came with "
                           "join).");
        return;
    }
    /* Only JSON is read: a cross-site form or a "simple" text/plain fetch() can no longer act
     * without a CORS preflight. An empty body is never acted on (a route that takes a body
     * answers 400 for it), so it may come with any type or none. */
    if ((strcmp(r->method, "POST") == 0 || found->body) && r->len > 0 &&
        !is_json_media_type(http_header(r, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        const char *ct = http_header(r, MHD_HTTP_HEADER_CONTENT_TYPE);
        http_reply_problem(r, P_UNSUPPORTED_MEDIA, NULL,
                           "Send the body as JSON with \"Content-Type: application/json\" (it "
                           "came as %.60s).",
                           ct ? ct : "no Content-Type");
        return;
    }
    if (found->body && r->len > 0) {
        json_error_t err;
        r->json = json_loadb(r->body, r->len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
        if (!r->json) {
            http_reply_problem(r, P_BAD_JSON, NULL,
                               "The body is not valid JSON (line %d, column %d: %s); send a "
                               "JSON object.",
                               err.line, err.column, err.text);
        } else if (!json_is_object(r->json)) {
            json_decref(r->json);
            r->json = NULL;
            http_reply_problem(r, P_NOT_AN_OBJECT, NULL,
                               "The body must be a JSON object, not an array or a scalar.");
        }
        if (!r->json) {
            if (!token_first(found))
                return;
            r->body_refused = true; /* the handler checks the token, then leaves this 400 */
        }
    }
    found->handler(r);
}

/* Requests being worked on (http_requests_busy); r->busy says whether r is one of them. */
static atomic_int busy_requests;

int http_requests_busy(void)
{
    return atomic_load_explicit(&busy_requests, memory_order_relaxed);
}

static void busy_end(struct http_req *r)
{
    if (r->busy) {
        r->busy = false;
        atomic_fetch_sub_explicit(&busy_requests, 1, memory_order_relaxed);
    }
}

static enum MHD_Result queue_reply(struct http_req *r)
{
    busy_end(r);
    return http_send_reply(r);
}

bool http_proxies_valid(const char *list, char *err, size_t errlen)
{
    struct netaddr_blocks bl;
    if (netaddr_blocks_parse(list, &bl))
        return true;
    snprintf(err, errlen,
             "the trusted proxies must be at most %d addresses or CIDR blocks separated by "
             "commas, such as 10.0.0.0/8,::1",
             NETADDR_MAX_BLOCKS);
    return false;
}

/* Every X-Forwarded-For header line, joined in order with commas (a proxy may add a line of
 * its own rather than extend the client's). */
struct xff_join {
    char text[2048];
    size_t len;
    bool overflow;
};

static enum MHD_Result join_xff(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value)
{
    (void)kind;
    struct xff_join *j = cls;
    if (strcasecmp(key, "X-Forwarded-For") != 0 || !value)
        return MHD_YES;
    size_t n = strlen(value);
    if (j->len + n + 2 >= sizeof j->text) {
        j->overflow = true;
        return MHD_NO;
    }
    if (j->len)
        j->text[j->len++] = ',';
    memcpy(j->text + j->len, value, n + 1);
    j->len += n;
    return MHD_YES;
}

/* Sets r->client: the TCP peer (`peer`, its address as the connection's start noted it, or NULL
 * to ask libmicrohttpd), or, when the peer is a trusted proxy, the nearest address in
 * X-Forwarded-For (read from the right) that is not itself a trusted proxy. */
static void client_address(struct http_req *r, const char *peer)
{
    if (peer)
        snprintf(r->client, sizeof r->client, "%s", peer);
    else
        http_peer_address(r->conn, r->client, sizeof r->client);
    if (!netaddr_blocks_contain(&r->daemon->proxies, r->client))
        return;
    struct xff_join j = {.len = 0};
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, join_xff, &j);
    if (j.overflow)
        return; /* more hops than anyone forwards through: keep the proxy's address */
    netaddr_forwarded_client(&r->daemon->proxies, j.text, j.len, r->client, sizeof r->client);
}

bool http_park(struct http_req *r, void (*resume)(struct http_req *r), void *ctx,
               void (*park_free)(void *ctx))
{
    /* http_stop() raises `stop` and then waits for `parked` to fall to 0: a request either
     * counted before the flag was seen, and is waited for, or is refused here. */
    atomic_fetch_add(&r->daemon->parked, 1);
    if (atomic_load(&r->daemon->stop)) {
        atomic_fetch_sub(&r->daemon->parked, 1);
        return false;
    }
    r->resume = resume;
    r->park_ctx = ctx;
    r->park_free = park_free;
    r->parked = true;
    MHD_suspend_connection(r->conn);
    return true;
}

void http_wake(struct http_req *r)
{
    MHD_resume_connection(r->conn);
}

void http_not_busy(struct http_req *r)
{
    busy_end(r);
}

/* A parked request whose reply is filled, and when it may go out. */
struct delayed {
    struct http_req *r;
    double when;
    struct delayed *next;
};

static void reply_is_ready(struct http_req *r)
{
    (void)r; /* delay_reply() filled it before parking */
}

/* Parks r, whose reply is filled, for `seconds`; the reaper wakes it (at its quarter-second
 * pace). Answers at once when the daemon is stopping or memory runs out. */
static void delay_reply(struct http_req *r, double seconds)
{
    struct delayed *e = malloc(sizeof *e);
    if (!e || !http_park(r, reply_is_ready, NULL, NULL)) {
        free(e);
        return;
    }
    busy_end(r); /* waiting is not work: the bot pool need not pause for it */
    e->r = r;
    e->when = http_now() + seconds;
    pthread_mutex_lock(&r->daemon->lock);
    e->next = r->daemon->delayed;
    r->daemon->delayed = e;
    pthread_mutex_unlock(&r->daemon->lock);
}

/* Wakes the delayed replies that are due at `now` (every one when now is INFINITY). */
void http_wake_delayed(struct http_daemon *d, double now)
{
    struct delayed *due = NULL;
    pthread_mutex_lock(&d->lock);
    for (struct delayed **p = &d->delayed; *p;) {
        struct delayed *e = *p;
        if (e->when <= now) {
            *p = e->next;
            e->next = due;
            due = e;
        } else {
            p = &e->next;
        }
    }
    pthread_mutex_unlock(&d->lock);
    while (due) {
        struct delayed *next = due->next;
        http_wake(due->r);
        free(due);
        due = next;
    }
}

void http_stats(struct http_daemon *d, struct http_net_stats *out)
{
    pthread_mutex_lock(&d->lock);
    out->open = d->nconns;
    pthread_mutex_unlock(&d->lock);
    out->parked = atomic_load(&d->parked);
    out->cut_head = atomic_load(&d->cut_head);
    out->reclaimed = atomic_load(&d->reclaimed);
    out->refused_address = atomic_load(&d->refused_address);
    out->refused_crowded = atomic_load(&d->refused_crowded);
}

/* True when the body has taken longer than the connection timeout to arrive since the
 * headers did: the idle timeout alone never cuts off a client that trickles a byte at a time
 * (a thread held per connection). */
static bool body_overdue(struct http_req *r)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_TIMEOUT);
    unsigned timeout = ci ? ci->connection_timeout : 0;
    return timeout > 0 && http_now() - r->start > (double)timeout;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
    struct http_req *r = *con_cls;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return MHD_NO;
        r->daemon = cls;
        r->srv = r->daemon->srv;
        r->conn = conn;
        r->method = method;
        r->url = url;
        r->start = http_now();
        client_address(r, http_head_received(conn));
        *con_cls = r;
        if (http_head_refused(r, version)) {
            r->too_big = true; /* a body that follows is not read into memory */
            return queue_reply(r);
        }
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > HTTP_MAX_BODY) {
            /* Refuse before reading the body; MHD then closes the connection. */
            r->too_big = true;
            http_reply_problem(r, P_TOO_LARGE, NULL,
                               "Request bodies are limited to %d bytes; send a smaller body.",
                               HTTP_MAX_BODY);
            return queue_reply(r);
        }
        return MHD_YES;
    }
    if (r->parked) { /* woken: the handler's other half fills the reply */
        r->parked = false;
        atomic_fetch_sub(&r->daemon->parked, 1);
        r->resume(r);
        return queue_reply(r);
    }
    if (*upload_size) {
        if (body_overdue(r)) {
            r->route = NULL;
            return MHD_NO; /* MHD closes the connection, as after an idle timeout */
        }
        if (!r->too_big && r->len + *upload_size <= HTTP_MAX_BODY) {
            char *b = realloc(r->body, r->len + *upload_size + 1);
            if (!b)
                return MHD_NO;
            memcpy(b + r->len, upload_data, *upload_size);
            r->body = b;
            r->len += *upload_size;
            b[r->len] = 0;
        } else {
            r->too_big = true;
        }
        *upload_size = 0;
        return MHD_YES; /* a body that grew too big is read to its end and refused */
    }
    if (r->too_big) {
        http_reply_problem(r, P_TOO_LARGE, NULL,
                           "Request bodies are limited to %d bytes; send a smaller body.",
                           HTTP_MAX_BODY);
        r->route = NULL;
        return queue_reply(r);
    }
    r->busy = true;
    atomic_fetch_add_explicit(&busy_requests, 1, memory_order_relaxed);
    dispatch(r);
    if (r->parked)
        return MHD_YES; /* suspended; http_wake() brings it back */
    return queue_reply(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)toe;
    http_head_expected(conn); /* the next request's head, if the connection is kept alive */
    struct http_req *r = *con_cls;
    if (!r)
        return;
    if (r->parked) /* woken, but the client had gone: libmicrohttpd closed it unanswered */
        atomic_fetch_sub(&r->daemon->parked, 1);
    busy_end(r);
    if (r->park_free)
        r->park_free(r->park_ctx);
    double ms = (http_now() - r->start) * 1000.0;
    const char *route = r->route ? r->route->name : "none";
    metrics_request(route, r->reply.status, ms);
    char line[1400];
    size_t n = http_log_line(line, sizeof line, r, ms, route);
    access_log_append(&r->daemon->log, line, n);
    if (r->reply.stream && r->reply.stream_free)
        r->reply.stream_free(r->reply.stream_ctx);
    free(r->reply.body);
    view_text_release(r->reply.view);
    free(r->body);
    free(r->bearer);
    json_decref(r->json);
    free(r);
    *con_cls = NULL;
}

/* Raises the soft limit on open descriptors to the hard one; returns the limit in force. */
static long raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit want = {rl.rlim_max, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &want) == 0)
            rl = want;
    }
    return rl.rlim_cur == RLIM_INFINITY ? 1L << 20 : (long)rl.rlim_cur;
}

struct http_daemon *http_start(struct server *srv, const struct http_settings *hs)
{
    struct http_daemon *d = calloc(1, sizeof *d);
    if (!d || !(d->addrs = addr_counts_new())) {
        free(d);
        return NULL;
    }
    d->srv = srv;
    d->hs = *hs;
    netaddr_blocks_parse(hs->trusted_proxies, &d->proxies); /* checked: http_proxies_valid() */
    pthread_mutex_init(&d->lock, NULL);
    access_log_init(&d->log);
    atomic_init(&d->parked, 0);
    atomic_init(&d->cut_head, 0);
    atomic_init(&d->stop, false);
    /* Keep descriptors for the database pool, files and the listening sockets. */
    long fds = raise_nofile();
    long max_conns = d->hs.max_connections;
    if (max_conns > fds - 256) {
        max_conns = fds - 256 > 16 ? fds - 256 : 16;
        fprintf(stderr,
                "cityd: only %ld open files are allowed; taking at most %ld connections "
                "instead of %d (raise the limit with ulimit -n)\n",
                fds, max_conns, d->hs.max_connections);
        d->hs.max_connections = (int)max_conns;
    }
    int headroom = d->hs.headroom > 0 ? d->hs.headroom : d->hs.max_connections / 16;
    if (headroom >= d->hs.max_connections)
        headroom = d->hs.max_connections / 2;
    d->crowded = d->hs.max_connections - headroom;
    d->heavy = d->hs.max_per_address > 0 ? d->hs.max_per_address / 8 : 32;
    if (d->heavy < 2)
        d->heavy = 2;
    unsigned threads = (unsigned)(d->hs.threads > 0 ? d->hs.threads : 1);
    d->mhd = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_DUAL_STACK |
            MHD_USE_ERROR_LOG,
        (uint16_t)hs->port, http_accept_policy, d, on_request, d, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, d, MHD_OPTION_NOTIFY_CONNECTION, http_on_connection, d,
        MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)hs->idle_timeout, MHD_OPTION_CONNECTION_LIMIT, (unsigned)d->hs.max_connections,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        http_connection_memory(&srv->policy), MHD_OPTION_UNESCAPE_CALLBACK,
        http_unescape_keeping_nul, NULL, MHD_OPTION_END);
    if (!d->mhd) {
        fprintf(stderr, "cityd: cannot listen on port %d\n", hs->port);
        pthread_mutex_destroy(&d->lock);
        access_log_destroy(&d->log);
        addr_counts_free(d->addrs);
        free(d);
        return NULL;
    }
    if (pthread_create(&d->reaper, NULL, http_reaper_main, d) != 0) {
        MHD_stop_daemon(d->mhd);
        pthread_mutex_destroy(&d->lock);
        access_log_destroy(&d->log);
        addr_counts_free(d->addrs);
        free(d);
        return NULL;
    }
    return d;
}

int http_max_connections(const struct http_daemon *d)
{
    return d->hs.max_connections;
}

void http_stop(struct http_daemon *d, double seconds)
{
    if (!d)
        return;
    MHD_socket listener = MHD_quiesce_daemon(d->mhd);
    atomic_store(&d->stop, true);
    pthread_join(d->reaper, NULL);
    /* libmicrohttpd aborts when stopped with a suspended connection: every parked request
     * must have been woken and answered first. Their work (a batch) always ends. */
    double warn = http_now() + seconds;
    while (atomic_load(&d->parked) > 0) {
        http_wake_delayed(d, INFINITY); /* refusals held back go out now */
        if (http_now() > warn) {
            fprintf(stderr, "cityd: still waiting for %ld parked requests\n",
                    (long)atomic_load(&d->parked));
            warn = http_now() + seconds;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(d->mhd);
    if (listener != MHD_INVALID_SOCKET)
        close(listener);
    access_log_destroy(&d->log);
    pthread_mutex_destroy(&d->lock);
    addr_counts_free(d->addrs);
    free(d);
}
