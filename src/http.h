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

enum { HTTP_MAX_BODY = 64 * 1024, HTTP_MAX_PARAMS = 2 };

struct server;

/* What a handler answers. A handler fills it through the http_reply_* functions. */
struct http_reply {
    int status;
    const char *content_type; /* static string */
    char *body;               /* owned, malloc'd */
    size_t len;
    const char *allow; /* Allow header for 405 */
    const char *cache; /* Cache-Control, or NULL */
    int retry_after;   /* seconds for a Retry-After header (429, 503), or 0 for none */
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
    struct http_reply reply;
};

struct http_route {
    const char *method;
    const char *pattern; /* e.g. "/api/v1/games/{id}/orders"; a trailing "*" matches the rest */
    void (*handler)(struct http_req *r);
    bool body;        /* the handler takes a JSON body */
    const char *name; /* label for metrics */
};

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
 * NULL when there is none. */
const char *http_header(struct http_req *r, const char *name);
const char *http_bearer(struct http_req *r);
const char *http_query(struct http_req *r, const char *name);

/* The client's address as text ("127.0.0.1", "::1"): the one per-address limits and quotas
 * count against. Never NULL; "" when unknown. */
const char *http_client(struct http_req *r);

#endif
