/* http_policy.c: the defaults of struct http_policy, the reading of CITY_CORS_ORIGINS, and the
 * headers the policy puts on every reply: the security headers, and CORS under /api/v1 (see
 * http.h); and the checks of a request head before anything reads it (http_head_refused: its
 * limits, read with the daemon's other settings in serve.c, and an unambiguous framing). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "server.h"

void http_policy_defaults(struct http_policy *p)
{
    memset(p, 0, sizeof *p);
    p->cors_any = true;
    p->max_headers = 100;
    p->max_header_bytes = 8 * 1024;
    p->max_query_params = 64;
    p->max_url_bytes = 2 * 1024;
}

size_t http_connection_memory(const struct http_policy *p)
{
    size_t bytes = (size_t)p->max_header_bytes + (size_t)p->max_url_bytes + 4096;
    return (bytes + 1023) / 1024 * 1024;
}

/* True when `o` is an origin as browsers send it: scheme "://" host [":" port], nothing more. */
static bool origin_well_formed(const char *o, size_t n)
{
    const char *sep = memmem(o, n, "://", 3);
    if (!sep || sep == o || (size_t)(sep - o) + 3 >= n)
        return false;
    for (const char *c = o; c < o + n; c++)
        if (*c == '/' && (c < sep + 1 || c > sep + 2))
            return false; /* a path, or a trailing slash: never part of an Origin header */
        else if (!isgraph((unsigned char)*c) || *c == ',' || *c == '*')
            return false;
    return true;
}

bool http_cors_from_env(struct http_policy *p, char *err, size_t errlen)
{
    const char *cors = getenv("CITY_CORS_ORIGINS");
    if (cors) {
        /* "*" for any origin, "none" (or empty) for no CORS, else a comma-separated list. */
        while (*cors == ' ')
            cors++;
        p->cors_any = strcmp(cors, "*") == 0;
        p->cors_origins[0] = 0;
        if (!p->cors_any && *cors && strcmp(cors, "none") != 0) {
            size_t k = 0;
            for (const char *c = cors; *c;) {
                size_t n = strcspn(c, ",");
                const char *a = c, *b = c + n;
                while (a < b && (*a == ' ' || *a == '\t'))
                    a++;
                while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '/'))
                    b--;
                if (!origin_well_formed(a, (size_t)(b - a)) ||
                    k + (size_t)(b - a) + 2 > sizeof p->cors_origins) {
                    snprintf(err, errlen,
                             "CITY_CORS_ORIGINS must be \"*\", \"none\" or a comma-separated list "
                             "of origins such as https://play.example.org (at most %zu bytes)",
                             sizeof p->cors_origins - 1);
                    return false;
                }
                k += (size_t)snprintf(p->cors_origins + k, sizeof p->cors_origins - k, "%s%.*s",
                                      k ? "," : "", (int)(b - a), a);
                c += n + (c[n] == ',');
            }
        }
    }
    return true;
}

/* Sent with every reply. The page (web/) loads only its own files, sets styles only through
 * the CSSOM, never runs inline script, and may not be framed (clickjacking of the order
 * buttons); no reply leaks its URL (which can hold a game id) to another site. */
static const char CSP[] = "default-src 'self'; script-src 'self'; style-src 'self'; "
                          "img-src 'self' data:; connect-src 'self'; font-src 'self'; "
                          "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
/* The API's replies are JSON (or an event stream): a document that loads nothing and is framed
 * by nothing, so the strictest policy, and 180 bytes shorter, on most of the replies sent. */
static const char CSP_API[] = "default-src 'none'; frame-ancestors 'none'";

/* CORS: what a preflight allows, and what a cross-origin script may read of a reply. The
 * Max-Age is Chromium's ceiling (7200 s); Firefox caps it at 86400. */
static const char CORS_ALLOW_HEADERS[] = "Authorization, Content-Type, Last-Event-ID";
static const char CORS_EXPOSE_HEADERS[] = "Retry-After, Location, ETag";
static const char CORS_MAX_AGE[] = "7200";

bool http_is_api_path(const char *url)
{
    return strncmp(url, "/api/v1/", 8) == 0 || strcmp(url, "/api/v1") == 0;
}

/* The CORS headers of a reply under /api/v1 (nothing elsewhere: the page and its files are
 * same-origin only), preflight answers included when the request is an OPTIONS. */
static void add_cors_headers(struct http_req *r, struct MHD_Response *resp)
{
    const struct http_policy *p = &r->srv->policy;
    if (!http_is_api_path(r->url) || (!p->cors_any && !p->cors_origins[0]))
        return;
    const char *origin = http_header(r, "Origin");
    const char *allowed = NULL;
    if (p->cors_any) {
        allowed = "*";
    } else {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
        size_t n = origin ? strlen(origin) : 0;
        for (const char *c = p->cors_origins; n && *c;) {
            size_t k = strcspn(c, ",");
            if (k == n && strncasecmp(c, origin, n) == 0)
                allowed = origin;
            c += k + (c[k] == ',');
        }
    }
    if (!allowed)
        return;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, allowed);
    /* On every reply, preflights too, as the docs promise (a browser reads it on the actual
     * response; on a preflight it is harmless and keeps one rule for clients that check). */
    MHD_add_response_header(resp, "Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    if (strcmp(r->method, "OPTIONS") == 0) {
        MHD_add_response_header(resp, "Access-Control-Allow-Methods", r->allow);
        MHD_add_response_header(resp, "Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
        MHD_add_response_header(resp, "Access-Control-Max-Age", CORS_MAX_AGE);
    }
}

bool http_policy_headers_fixed(const struct http_req *r)
{
    const struct http_policy *p = &r->srv->policy;
    return strcmp(r->method, "OPTIONS") != 0 &&
           (!http_is_api_path(r->url) || p->cors_any || !p->cors_origins[0]);
}

void http_policy_headers(struct http_req *r, struct MHD_Response *resp)
{
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Content-Security-Policy",
                            http_is_api_path(r->url) ? CSP_API : CSP);
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    add_cors_headers(r, resp);
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    (void)kind;
    size_t *c = cls;
    c[0]++;
    c[1] += (key ? strlen(key) : 0) + (value ? strlen(value) : 0);
    return MHD_YES;
}

/* Answers 431 or 414 when the request head passes the policy's limits (counted on the first
 * call, before anything else reads it); false when it is within them. */
static bool head_too_big_or_reply(struct http_req *r)
{
    const struct http_policy *p = &r->srv->policy;
    size_t headers[2] = {0, 0}, args[2] = {0, 0};
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, count_header, headers);
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, count_header, args);
    if (headers[0] > (size_t)p->max_headers || headers[1] > (size_t)p->max_header_bytes) {
        http_reply_problem(r, P_HEADERS_TOO_LARGE, NULL,
                           "The request has %zu header lines of %zu bytes; this server takes at "
                           "most %d lines and %d bytes: send fewer or shorter headers.",
                           headers[0], headers[1], p->max_headers, p->max_header_bytes);
        return true;
    }
    if (args[0] > (size_t)p->max_query_params ||
        strlen(r->url) + args[1] + 2 * args[0] > (size_t)p->max_url_bytes) {
        http_reply_problem(r, P_URI_TOO_LONG, NULL,
                           "The URL has %zu query parameters and about %zu bytes; this server "
                           "takes at most %d parameters and %d bytes: shorten it.",
                           args[0], strlen(r->url) + args[1] + 2 * args[0], p->max_query_params,
                           p->max_url_bytes);
        return true;
    }
    return false;
}

/* What the framing headers of a request head say, gathered in one pass. */
struct framing {
    int lengths;         /* Content-Length lines */
    bool lengths_differ; /* two of them with different values */
    bool transfer;       /* a Transfer-Encoding line */
    bool host;           /* a Host line */
    const char *length;  /* the first Content-Length value */
    char odd_name[48];   /* a header name with a blank or a control byte in it, or "" */
};

static enum MHD_Result read_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    (void)kind;
    struct framing *f = cls;
    if (!key)
        return MHD_YES;
    for (const unsigned char *c = (const unsigned char *)key; *c && !f->odd_name[0]; c++)
        if (*c <= ' ' || *c == 0x7f)
            snprintf(f->odd_name, sizeof f->odd_name, "%s", key);
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (f->lengths++ && strcmp(f->length, value ? value : "") != 0)
            f->lengths_differ = true;
        if (!f->length)
            f->length = value ? value : "";
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        f->transfer = true;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) {
        f->host = true;
    }
    return MHD_YES;
}

/* Answers 400 bad_request_head when the head could be framed two ways by a proxy in front and
 * by this daemon (RFC 9112, sections 3.2 and 6.3): two different lengths, a length beside a
 * transfer coding, a blank in a header name, or HTTP/1.1 without Host. A proxy that reads such a
 * head otherwise would hand us the rest of a body as a request of its own (request smuggling);
 * the reply closes the connection, so nothing after the head is read as a request. False when
 * the head is unambiguous. */
static bool head_ambiguous_or_reply(struct http_req *r, const char *version)
{
    struct framing f = {.lengths = 0};
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, read_framing, &f);
    const char *why = NULL;
    char name[96];
    if (f.lengths_differ)
        why = "it has two Content-Length headers with different values";
    else if (f.lengths && f.transfer)
        why = "it has both Content-Length and Transfer-Encoding";
    else if (f.odd_name[0]) {
        snprintf(name, sizeof name, "a header name (\"%.40s\") holds a blank", f.odd_name);
        why = name;
    } else if (!f.host && version && strcmp(version, MHD_HTTP_VERSION_1_1) == 0)
        why = "it is HTTP/1.1 without a Host header";
    if (!why)
        return false;
    http_reply_problem(r, P_BAD_HEAD, NULL,
                       "The request head cannot be read one way only: %s. Send one "
                       "Content-Length or chunked coding, header names without blanks, and "
                       "Host with HTTP/1.1.",
                       why);
    http_reply_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    return true;
}

bool http_head_refused(struct http_req *r, const char *version)
{
    return head_too_big_or_reply(r) || head_ambiguous_or_reply(r, version);
}
