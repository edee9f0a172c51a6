/* http_policy.c: the defaults of struct http_policy, the reading of CITY_CORS_ORIGINS, and the
 * headers the policy puts on every reply: the security headers, and CORS under /api/v1 (see
 * http.h); the request-head limits are read with the daemon's other settings (serve.c). */
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
    p->max_header_bytes = 24 * 1024;
    p->max_query_params = 64;
    p->max_url_bytes = 16 * 1024;
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

void http_policy_headers(struct http_req *r, struct MHD_Response *resp)
{
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Content-Security-Policy", CSP);
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    add_cors_headers(r, resp);
}
