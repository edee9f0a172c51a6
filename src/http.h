/* http.h: the HTTP layer of `cityd serve` on libmicrohttpd: one route table, one dispatcher
 * that caps the body, parses JSON, matches the path and method, and turns every failure into
 * an application/problem+json reply; plus one log line and the metrics of every request. */
#ifndef CITY_HTTP_H
#define CITY_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "problem.h"

/* HTTP_MAX_BODY: the largest request body read; HTTP_MAX_PARAMS: {id} parts of a route's path;
 * HTTP_MAX_EXTRA_HEADERS: response headers beyond those a reply's fields name. */
enum { HTTP_MAX_BODY = 64 * 1024, HTTP_MAX_PARAMS = 2, HTTP_MAX_EXTRA_HEADERS = 6 };

struct server;

/* What the HTTP layer enforces for browsers and against oversized request heads; set once at
 * start (http_policy_defaults, http_cors_from_env, then serve.c's settings) and shared
 * read-only by every request. */
struct http_policy {
    /* CORS on /api/v1: cors_any answers "Access-Control-Allow-Origin: *"; otherwise only an
     * Origin equal to one of cors_origins (a comma-separated list) is echoed, with
     * "Vary: Origin". Both false/empty: no CORS headers at all. */
    bool cors_any;
    char cors_origins[1024];
    int max_headers;      /* request header lines; more gets 431 */
    int max_header_bytes; /* the names and values of all header lines together; more gets 431 */
    int max_query_params; /* query parameters; more gets 414 */
    int max_url_bytes;    /* the path and query as sent; longer gets 414 */
};

/* The defaults of struct http_policy: CORS for any origin, 100 headers, 8 KiB of headers,
 * 64 query parameters, 2 KiB of URL. */
void http_policy_defaults(struct http_policy *p);

/* libmicrohttpd's memory pool per connection, in bytes, for the head limits of `p`: the header
 * bytes and the URL bytes together plus 4 KiB for the request line and the library's own
 * entries, rounded up to 1 KiB. The pool holds the request head and its parsed headers and
 * query parameters, so a head a little past the limits still parses and gets a 414/431 problem
 * from us; a head past the pool gets libmicrohttpd's own 414/431 (a status, no problem body).
 * It is also most of what an open event stream costs: libmicrohttpd touches about half of it
 * (it zeroes the read buffer it gives back to the write buffer), so the defaults' 14 KiB keep
 * an open stream near 15 KB (it was 41 KB with a 64 KiB pool). */
size_t http_connection_memory(const struct http_policy *p);

/* Reads CITY_CORS_ORIGINS ("*", "none" or a comma-separated list of origins) over the value
 * already in *p. False, with a sentence for a usage error in err, when it is malformed. */
bool http_cors_from_env(struct http_policy *p, char *err, size_t errlen);

/* One response header beyond those the reply's fields name (ETag, Content-Encoding...). */
struct http_extra_header {
    const char *name; /* static string */
    char value[96];
};

/* What a handler answers. A handler fills it through the http_reply_* functions. */
struct http_reply {
    int status;
    const char *content_type; /* static string */
    char *body;               /* owned, malloc'd */
    size_t len;
    struct view_text *view; /* or a cached view's shared text (a reference, viewcache.h) */
    const char *allow;      /* Allow header for 405 */
    const char *cache;      /* Cache-Control, or NULL */
    int retry_after;        /* seconds for a Retry-After header (429, 503), or 0 for none */
    struct http_extra_header extra[HTTP_MAX_EXTRA_HEADERS]; /* see http_reply_header */
    int nextra;
    /* A streamed reply (SSE): when stream is set, body is unused. */
    MHD_ContentReaderCallback stream;
    void *stream_ctx;
    MHD_ContentReaderFreeCallback stream_free;
};

struct http_req {
    struct server *srv;
    struct http_daemon *daemon;
    struct MHD_Connection *conn;
    const char *method;
    const char *url;
    char client[64]; /* the client's address (numeric), as the per-address limits see it */
    char *body;      /* the raw body, NUL-terminated; NULL when none */
    size_t len;
    bool too_big;
    json_t *json;                     /* parsed body (borrowed by handlers), or NULL */
    char params[HTTP_MAX_PARAMS][64]; /* {id} parts of the path */
    const struct http_route *route;
    double start;
    char allow[64]; /* the Allow header of a 405 */
    /* A body the dispatcher refused (already answered 400) on a route that checks the token
     * first (http.c's token_first_handlers): the handler replaces that answer with a 401/403
     * when the token does not fit. */
    bool body_refused;
    char *bearer; /* the parsed bearer token (owned), once http_bearer has looked */
    bool bearer_read;
    struct http_reply reply;
    /* A parked request (http_park): resumed by http_wake, then `resume` fills the reply. */
    void (*resume)(struct http_req *r);
    void (*park_free)(void *ctx);
    void *park_ctx;
    bool parked;
    bool busy; /* counted in http_requests_busy() until its reply is queued */
};

struct http_route {
    const char *method;
    const char *pattern; /* e.g. "/api/v1/games/{id}/orders"; a trailing "*" matches the rest */
    void (*handler)(struct http_req *r);
    bool body;        /* the handler takes a JSON body */
    const char *name; /* label for metrics */
};

/* How the daemon takes connections. Every limit is a count or seconds; 0 means none. */
struct http_settings {
    int port;
    int threads;         /* libmicrohttpd worker threads, each with its own epoll set */
    int idle_timeout;    /* seconds a connection may stay silent */
    int head_timeout;    /* seconds a client has to send a whole request head */
    int max_connections; /* open connections, idle ones and event streams included */
    int max_per_address; /* open connections from one address (IPv4) or /64 (IPv6); 0: none */
    /* Connections under max_connections kept for addresses that hold few (0: a sixteenth):
     * past max_connections - headroom, an address holding max_per_address / 8 (at least 2;
     * 32 with no per-address cap) gets no more, and idle connections are reclaimed. */
    int headroom;
    /* Addresses and CIDR blocks ("10.0.0.0/8,::1") of proxies whose X-Forwarded-For is
     * believed; NULL or "" for none. */
    const char *trusted_proxies;
};

struct http_daemon;

/* Checks a trusted-proxy list; false with a message in err when it does not parse. */
bool http_proxies_valid(const char *list, char *err, size_t errlen);

/* Starts the daemon on hs->port (0.0.0.0 and ::) with hs->threads epoll threads serving
 * `srv`. Returns NULL (with a message on stderr) when it cannot start. */
struct http_daemon *http_start(struct server *srv, const struct http_settings *hs);

/* The most connections d takes at once: its settings' max_connections, or fewer when the open
 * files allowed are fewer (http_start then says so on stderr). */
int http_max_connections(const struct http_daemon *d);

/* Stops taking new connections, waits for parked requests to be answered (complaining on
 * stderr every `seconds` while some are not), then closes every connection and frees the
 * daemon. */
void http_stop(struct http_daemon *d, double seconds);

/* Requests this process is working on now, in every daemon: from the end of their body to
 * the queueing of their reply (a parked order included; a stream counts only until its headers
 * go). The bot pool pauses its thinking while this is above 0 (botpool.h). Lock-free. */
int http_requests_busy(void);

/* What http_stats() reports of a daemon's connections. */
struct http_net_stats {
    long open;                /* connections open now */
    long parked;              /* requests parked (holding no thread) now */
    uint64_t cut_head;        /* cut for sending their request head too slowly */
    uint64_t reclaimed;       /* idle ones cut to keep the headroom free */
    uint64_t refused_address; /* refused as they came, past max_per_address */
    uint64_t refused_crowded; /* refused as they came, from an address holding many, once
                                 the headroom was reached */
};

/* The daemon's connection figures now (for /metrics). */
void http_stats(struct http_daemon *d, struct http_net_stats *out);

/* Parks request r from inside its handler: the handler returns with no reply, libmicrohttpd
 * stops serving the connection (no thread waits), and once another thread calls
 * http_wake(r), `resume` runs in a libmicrohttpd thread to fill the reply. `ctx` is the
 * handler's, freed with park_free (may be NULL) when the request ends. Call http_park before
 * handing r to the thread that will wake it. Returns false, parking nothing, once the daemon
 * is stopping: the handler then does its work in place. */
bool http_park(struct http_req *r, void (*resume)(struct http_req *r), void *ctx,
               void (*park_free)(void *ctx));
void http_wake(struct http_req *r);

/* Stops counting parked request r among the requests being worked on (http_requests_busy): it
 * waits for the bot pool's thinking, which must not pause for it. */
void http_not_busy(struct http_req *r);

/* True when the peer of `conn` has closed its side of the connection (end of file, or a reset),
 * as far as the kernel knows now, read without waiting and without taking any byte. A stream
 * that only writes learns of a closed tab otherwise only when a write fails, and the first
 * write after the close still succeeds. False when it cannot tell. */
bool http_peer_closed(struct MHD_Connection *conn);

/* Adds response header `name` (a static string) with `value` (copied, cut at 95 bytes) to the
 * reply; a reply takes at most HTTP_MAX_EXTRA_HEADERS (more are dropped). */
void http_reply_header(struct http_req *r, const char *name, const char *value);

/* Whether url is under /api/v1 (where CORS applies and unknown paths are API 404s). */
bool http_is_api_path(const char *url);

/* The headers the policy puts on every reply (r's): Content-Security-Policy (the API's under
 * /api/v1, the page's elsewhere), X-Frame-Options, Referrer-Policy, X-Content-Type-Options, and
 * under /api/v1 CORS (a preflight's answers when r is an OPTIONS), for the origins srv->policy
 * allows. */
void http_policy_headers(struct http_req *r, struct MHD_Response *resp);

/* Whether http_policy_headers() adds the same headers to every reply of r's method and path,
 * whatever else the request says (false when CORS echoes an allowed Origin). They differ by
 * path (the policy under /api/v1 or not): a reply prepared for one request may be queued again
 * only for requests of the same path (http_send.c's cached views, all under /api/v1). */
bool http_policy_headers_fixed(const struct http_req *r);

/* Checks a request head on the first call, before anything reads it, and answers what it
 * refuses: 431 or 414 past the policy's limits, 400 bad_request_head when its framing could be
 * read two ways (`version` is libmicrohttpd's, e.g. "HTTP/1.1"). True when it answered. */
bool http_head_refused(struct http_req *r, const char *version);

/* libmicrohttpd's unescape callback: decodes %HH in the path and query values, except %00
 * (kept as three characters, so that no decoded NUL cuts a string short). */
size_t http_unescape_keeping_nul(void *cls, struct MHD_Connection *conn, char *s);

/* Whether s is well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points past
 * U+10FFFF). */
bool http_utf8_valid(const char *s);

/* Replies: each replaces any earlier reply of the request. `json` is stolen. */
void http_reply_json(struct http_req *r, int status, json_t *json);
void http_reply_problem(struct http_req *r, enum problem p, const char *code,
                        const char *detail_fmt, ...) __attribute__((format(printf, 4, 5)));
void http_reply_bytes(struct http_req *r, int status, const char *content_type, char *body,
                      size_t len);
/* A reply of JSON text `view` (a reference, stolen) from the view cache: sent as it is, and
 * with the reply it was first sent with when the request adds nothing of its own (so a cached
 * view's bytes, headers included, are prepared once, not for every read). */
struct view_text;
void http_reply_view(struct http_req *r, int status, struct view_text *view);

/* The request's header `name`, or NULL. The bearer token of the Authorization header, or
 * NULL when there is none: the scheme "Bearer" in any case, then one or more spaces or tabs,
 * then the token; spaces and tabs after the token are not part of it (the token is copied into
 * the request, so the pointer lives as long as the request). */
const char *http_header(struct http_req *r, const char *name);
const char *http_bearer(struct http_req *r);
const char *http_query(struct http_req *r, const char *name);

/* The client's address as text ("127.0.0.1", "::1"): the one per-address limits and quotas
 * count against. Never NULL; "" when unknown. */
const char *http_client(struct http_req *r);

#endif
