/* http_send.c: how a request's reply leaves (see http_int.h): its headers, a cached public
 * view's reply built once and queued again for every read of it, and the request's line in
 * the access log. */
#include "http.h"
#include "http_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "accesslog.h"
#include "viewcache.h"

/* Adds r's reply headers to resp: its type, Allow, Retry-After, Cache-Control, the handler's
 * own, and the policy's. */
static void add_reply_headers(struct http_req *r, struct MHD_Response *resp)
{
    struct http_reply *rep = &r->reply;
    if (rep->content_type)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, rep->content_type);
    if (rep->content_type && strcmp(rep->content_type, "text/event-stream") == 0)
        MHD_add_response_header(resp, "X-Accel-Buffering", "no"); /* nginx: do not buffer */
    if (rep->allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, rep->allow);
    if (rep->retry_after > 0) {
        char secs[16];
        snprintf(secs, sizeof secs, "%d", rep->retry_after);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, secs);
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
                            rep->cache ? rep->cache : "no-store");
    for (int i = 0; i < rep->nextra; i++)
        MHD_add_response_header(resp, rep->extra[i].name, rep->extra[i].value);
    http_policy_headers(r, resp);
}

/* The view text's hold on its prepared reply, dropped when the text's last reference goes;
 * libmicrohttpd frees the reply once no connection sends it any more, and then the text. */
static void prepared_free(void *resp)
{
    MHD_destroy_response(resp);
}

static void prepared_done(void *text)
{
    view_text_free(text);
}

/* Queues a cached view's reply (http_reply_view). When the request adds no header of its own
 * and the policy's headers are the same for every request, the libmicrohttpd response built
 * by the second read (the text's own bytes, not a copy, with every header: 1.4 to 2.5 KB a
 * view measured, spent only on views read more than once) is attached to the shared text and queued
 * again for every later read of it, on any connection: libmicrohttpd counts its users. Else (the
 * first read, or one while the second builds it) one is built for this request from a copy. */
static enum MHD_Result queue_view(struct http_req *r)
{
    struct http_reply *rep = &r->reply;
    struct view_text *t = rep->view;
    bool plain = !rep->allow && rep->retry_after <= 0 && rep->nextra == 0 && !rep->cache &&
                 http_policy_headers_fixed(r);
    struct MHD_Response *resp = plain ? view_text_attached(t) : NULL;
    bool shared = resp != NULL;
    if (!resp) {
        size_t len;
        const char *body = view_text_body(t, &len);
        shared = plain && view_text_claim(t);
        resp = shared ? MHD_create_response_from_buffer_with_free_callback_cls(
                            len, (void *)(uintptr_t)body, prepared_done, t)
                      : MHD_create_response_from_buffer(len, (void *)(uintptr_t)body,
                                                        MHD_RESPMEM_MUST_COPY);
        if (!resp) {
            if (shared)
                view_text_unclaim(t);
            return MHD_NO;
        }
        add_reply_headers(r, resp);
        if (shared)
            view_text_attach(t, resp, prepared_free);
    }
    enum MHD_Result ret = MHD_queue_response(r->conn, (unsigned)rep->status, resp);
    if (!shared)
        MHD_destroy_response(resp);
    view_text_release(t);
    rep->view = NULL;
    return ret;
}

enum MHD_Result http_send_reply(struct http_req *r)
{
    struct http_reply *rep = &r->reply;
    if (rep->view && !rep->stream)
        return queue_view(r);
    struct MHD_Response *resp;
    if (rep->stream) {
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 512, rep->stream,
                                                 rep->stream_ctx, rep->stream_free);
        if (resp)
            rep->stream = NULL; /* MHD owns the stream context now (else on_completed frees it) */
    } else {
        resp = MHD_create_response_from_buffer(rep->len, rep->body, MHD_RESPMEM_MUST_FREE);
        rep->body = NULL; /* MHD frees it */
    }
    if (!resp)
        return MHD_NO;
    add_reply_headers(r, resp);
    enum MHD_Result ret = MHD_queue_response(r->conn, (unsigned)rep->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* A line being written (at most cap - 1 bytes; what does not fit is cut). */
struct line {
    char *s;
    size_t len, cap;
};

static void put_text(struct line *l, const char *s, size_t n)
{
    if (n > l->cap - 1 - l->len)
        n = l->cap - 1 - l->len;
    memcpy(l->s + l->len, s, n);
    l->len += n;
}

static void put_str(struct line *l, const char *s)
{
    put_text(l, s, strlen(s));
}

static void put_uint(struct line *l, unsigned long long v)
{
    char d[24];
    size_t i = sizeof d;
    do
        d[--i] = (char)('0' + v % 10);
    while (v /= 10);
    put_text(l, d + i, sizeof d - i);
}

/* s escaped (access_log_escape), in at most `most` bytes: each byte outside printable ASCII and
 * each '"' and '\\' written as \xHH, so a percent-decoded path cannot forge a log line (%0a),
 * move the cursor of a terminal (ESC) or end the quoted field early; cut to fit, ending "...". */
static void put_escaped(struct line *l, const char *s, size_t most)
{
    if (most > l->cap - l->len)
        most = l->cap - l->len;
    access_log_escape(l->s + l->len, most, s);
    l->len += strlen(l->s + l->len);
}

/* r's access log line, `METHOD "PATH" STATUS 1.2ms route=NAME bytes=N client=ADDR`, into line
 * (cap bytes); returns its length. Written by hand: snprintf was most of a cached read's
 * logging. */
size_t http_log_line(char *line, size_t cap, const struct http_req *r, double ms, const char *route)
{
    struct line l = {line, 0, cap};
    put_escaped(&l, r->method, 64);
    put_str(&l, " \"");
    put_escaped(&l, r->url, 1024);
    put_str(&l, "\" ");
    put_uint(&l, (unsigned long long)(r->reply.status > 0 ? r->reply.status : 0));
    put_str(&l, " ");
    unsigned long long tenths = (unsigned long long)(ms * 10 + 0.5);
    put_uint(&l, tenths / 10);
    put_str(&l, ".");
    put_uint(&l, tenths % 10);
    put_str(&l, "ms route=");
    put_str(&l, route);
    put_str(&l, " bytes=");
    put_uint(&l, r->len);
    put_str(&l, " client=");
    put_str(&l, r->client);
    put_str(&l, "\n");
    return l.len;
}
