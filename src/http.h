/* http.h: the HTTP layer of `cityd serve` on libmicrohttpd: one route table, one dispatcher
 * that caps the body, parses JSON, matches the path and method, and turns every failure into
 * an application/problem+json reply; plus one log line and the metrics of every request. */
#ifndef CITY_HTTP_H
#define CITY_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "problem.h"

/* HTTP_CONNECTION_MEMORY: libmicrohttpd's memory pool per connection (its default is 32 KiB),
 * which holds the request head and its parsed headers and query parameters. Large enough that
 * a head past struct http_policy's largest limits still parses and gets a 414/431 problem from
 * us, rather than a closed connection; above 32 KiB the pool is mmap'd, so pages a connection
 * never touches cost no memory. */
enum {
    HTTP_MAX_BODY = 64 * 1024,
    HTTP_MAX_PARAMS = 2,
    HTTP_MAX_EXTRA_HEADERS = 6,
    HTTP_CONNECTION_MEMORY = 256 * 1024
};

struct server;

/* What the HTTP layer enforces for browsers and against oversized request heads; read once at
 * start (http_policy_from_env) and shared read-only by every request. */
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

/* The defaults of struct http_policy: CORS for any origin, 100 headers, 32 KiB of headers,
 * 64 query parameters, 16 KiB of URL. */
void http_policy_defaults(struct http_policy *p);

/* Reads CITY_CORS_ORIGINS, CITY_MAX_HEADERS, CITY_MAX_HEADER_BYTES, CITY_MAX_QUERY_PARAMS and
 * CITY_MAX_URL_BYTES over the values already in *p. False, with a sentence for a usage error in
 * err, when one is malformed or out of range. */
bool http_policy_from_env(struct http_policy *p, char *err, size_t errlen);

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
    const char *allow; /* Allow header for 405 */
    const char *cache; /* Cache-Control, or NULL */
    int retry_after;   /* seconds for a Retry-After header (429, 503), or 0 for none */
    struct http_extra_header extra[HTTP_MAX_EXTRA_HEADERS]; /* see http_reply_header */
    int nextra;
    /* A streamed reply (SSE): when stream is set, body is unused. */
    MHD_ContentReaderCallback stream;
    void *stream_ctx;
    MHD_ContentReaderFreeCallback stream_free;
};

struct http_req {
    struct server *srv;
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
    char allow[32]; /* the Allow header of a 405 */
    /* A body the dispatcher refused (already answered 400) on a route that checks the token
     * first (http.c's token_first_handlers): the handler replaces that answer with a 401/403
     * when the token does not fit. */
    bool body_refused;
    char *bearer; /* the parsed bearer token (owned), once http_bearer has looked */
    bool bearer_read;
    struct http_reply reply;
};

struct http_route {
    const char *method;
    const char *pattern; /* e.g. "/api/v1/games/{id}/orders"; a trailing "*" matches the rest */
    void (*handler)(struct http_req *r);
    bool body;        /* the handler takes a JSON body */
    const char *name; /* label for metrics */
};

/* Adds response header `name` (a static string) with `value` (copied, cut at 95 bytes) to the
 * reply; a reply takes at most HTTP_MAX_EXTRA_HEADERS (more are dropped). */
void http_reply_header(struct http_req *r, const char *name, const char *value);

/* Starts the daemon on `port` (0.0.0.0 and ::) with a thread per connection, serving `srv`.
 * Returns NULL (with a message on stderr) when the port cannot be bound. */
struct MHD_Daemon *http_start(struct server *srv, int port, int timeout_seconds);

/* Replies: each replaces any earlier reply of the request. `json` is stolen. */
void http_reply_json(struct http_req *r, int status, json_t *json);
void http_reply_problem(struct http_req *r, enum problem p, const char *code,
                        const char *detail_fmt, ...) __attribute__((format(printf, 4, 5)));
void http_reply_bytes(struct http_req *r, int status, const char *content_type, char *body,
                      size_t len);

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
