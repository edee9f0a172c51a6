/* http_reply.c: what a handler answers with and reads of its request (http.h): the reply's
 * body, headers and problem+json, with the text a problem echoes made valid UTF-8, and the
 * request's headers, query, bearer token and %-decoding. The daemon and dispatch are
 * http.c's. */
#include "http.h"
#include "viewcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void reply_clear(struct http_reply *rep)
{
    free(rep->body);
    rep->body = NULL;
    rep->len = 0;
    view_text_release(rep->view);
    rep->view = NULL;
}

void http_reply_bytes(struct http_req *r, int status, const char *content_type, char *body,
                      size_t len)
{
    reply_clear(&r->reply);
    r->reply.status = status;
    r->reply.content_type = content_type;
    r->reply.body = body;
    r->reply.len = len;
}

void http_reply_view(struct http_req *r, int status, struct view_text *view)
{
    reply_clear(&r->reply);
    r->reply.status = status;
    r->reply.content_type = "application/json";
    r->reply.view = view;
}

void http_reply_header(struct http_req *r, const char *name, const char *value)
{
    struct http_reply *rep = &r->reply;
    if (rep->nextra >= HTTP_MAX_EXTRA_HEADERS)
        return;
    rep->extra[rep->nextra].name = name;
    snprintf(rep->extra[rep->nextra].value, sizeof rep->extra[0].value, "%s", value);
    rep->nextra++;
}

void http_reply_json(struct http_req *r, int status, json_t *json)
{
    char *text = json ? json_dumps(json, JSON_COMPACT) : NULL;
    json_decref(json);
    if (!text) {
        http_reply_problem(r, P_INTERNAL, NULL, "The reply could not be encoded.");
        return;
    }
    http_reply_bytes(r, status, "application/json", text, strlen(text));
}

/* Length of the well-formed UTF-8 sequence (RFC 3629) at p, or 0 when there is none. */
static size_t utf8_sequence(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (!n)
        return 0;
    /* The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF. */
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

bool http_utf8_valid(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_sequence(p);
        if (!n)
            return false;
        p += n;
    }
    return true;
}

/* Replaces each byte of s that is not part of well-formed UTF-8 with '?', so that a detail
 * quoting a client's bytes (a path, an id, a key cut at a byte count) can still be JSON. */
static void utf8_scrub(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        size_t n = utf8_sequence(p);
        if (n)
            p += n;
        else
            *p++ = '?';
    }
}

void http_reply_problem(struct http_req *r, enum problem p, const char *code,
                        const char *detail_fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, detail_fmt);
    vsnprintf(detail, sizeof detail, detail_fmt, ap);
    va_end(ap);
    utf8_scrub(detail);
    json_t *body = problem_body(p, code, detail);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    http_reply_bytes(r, problem_status(p), "application/problem+json", text,
                     text ? strlen(text) : 0);
    if (p == P_UNAVAILABLE || p == P_OUTCOME_UNKNOWN)
        r->reply.retry_after = PROBLEM_DB_RETRY_AFTER;
}

const char *http_header(struct http_req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *http_query(struct http_req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *http_client(struct http_req *r)
{
    return r->client;
}

const char *http_bearer(struct http_req *r)
{
    if (r->bearer_read)
        return r->bearer;
    r->bearer_read = true;
    const char *h = http_header(r, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h)
        return NULL;
    while (*h == ' ' || *h == '\t')
        h++;
    if (strncasecmp(h, "Bearer", 6) != 0 || (h[6] != ' ' && h[6] != '\t'))
        return NULL;
    h += 6;
    while (*h == ' ' || *h == '\t')
        h++;
    size_t n = strlen(h);
    while (n > 0 && (h[n - 1] == ' ' || h[n - 1] == '\t'))
        n--;
    if (n > 0)
        r->bearer = strndup(h, n); /* NULL when out of memory: then no token, a 401 */
    return r->bearer;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes %HH in the path and in query values as libmicrohttpd's default does, except %00:
 * a decoded NUL would end the string early (/index.html%00.png would name index.html, and
 * after=1%00 would read as 1), so "%00" stays three characters that name nothing. */
size_t http_unescape_keeping_nul(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls;
    (void)conn;
    char *w = s;
    for (const char *p = s; *p;) {
        int hi = p[0] == '%' ? hex_digit(p[1]) : -1;
        int lo = hi >= 0 ? hex_digit(p[2]) : -1;
        if (lo >= 0 && (hi | lo) != 0) {
            *w++ = (char)(hi * 16 + lo);
            p += 3;
        } else {
            *w++ = *p++;
        }
    }
    *w = 0;
    return (size_t)(w - s);
}
