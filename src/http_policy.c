/* http_policy.c: the defaults of struct http_policy and the reading of CITY_CORS_ORIGINS (see
 * http.h); the request-head limits are read with the daemon's other settings (serve.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

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
