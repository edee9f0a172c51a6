/* api_misc.c: the handlers that are not about one game's moves: the card catalog, health,
 * metrics, the OpenAPI file, static files of the page, and the SSE stream of a game's log. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hub.h"
#include "metrics.h"
#include "server.h"
#include "store.h"
#include "viewcache.h"
#include "store_games.h"

void api_cards(struct http_req *r)
{
    char *copy = strdup(r->srv->cards_json);
    if (!copy) {
        http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        return;
    }
    http_reply_bytes(r, 200, "application/json", copy, strlen(copy));
    r->reply.cache = "public, max-age=300";
}

void api_healthz(struct http_req *r)
{
    if (store_ping(r->srv->store))
        http_reply_json(r, 200, json_pack("{s:s, s:s}", "status", "ok", "database", "ok"));
    else
        http_reply_problem(r, P_UNAVAILABLE, NULL,
                           "The database does not answer; the service will reconnect.");
}

static int games_metrics_tx(PGconn *c, void *ctx)
{
    return store_games_metrics(c, ctx);
}

void api_metrics(struct http_req *r)
{
    char *games = NULL;
    if (store_run(r->srv->store, games_metrics_tx, &games) != STORE_OK)
        games = NULL;
    size_t entries, len;
    uint64_t hits, misses;
    view_cache_stats(r->srv->views, &entries, &hits, &misses);
    char *extra = NULL;
    if (asprintf(&extra,
                 "%s# HELP city_view_cache_entries Public views cached by this instance.\n"
                 "# TYPE city_view_cache_entries gauge\ncity_view_cache_entries %zu\n"
                 "# HELP city_view_cache_lookups_total Public view lookups, by result.\n"
                 "# TYPE city_view_cache_lookups_total counter\n"
                 "city_view_cache_lookups_total{result=\"hit\"} %llu\n"
                 "city_view_cache_lookups_total{result=\"miss\"} %llu\n",
                 games ? games : "", entries, (unsigned long long)hits,
                 (unsigned long long)misses) < 0)
        extra = NULL;
    free(games);
    char *text = metrics_render(extra, &len);
    free(extra);
    if (!text) {
        http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        return;
    }
    http_reply_bytes(r, 200, "text/plain; version=0.0.4", text, len);
}

/* Reads a whole regular file below `root` (a real path); NULL when absent or outside. */
static char *read_below(const char *root, const char *path, size_t *len)
{
    char full[PATH_MAX], real[PATH_MAX];
    if (snprintf(full, sizeof full, "%s/%s", root, path) >= (int)sizeof full)
        return NULL;
    if (!realpath(full, real))
        return NULL;
    size_t n = strlen(root);
    if (strncmp(real, root, n) != 0 || (real[n] != '/' && real[n] != 0))
        return NULL; /* outside the root, e.g. through a link */
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    char *buf = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size < 16 * 1024 * 1024) {
        buf = malloc((size_t)sb.st_size + 1);
        if (buf && read(fd, buf, (size_t)sb.st_size) != sb.st_size) {
            free(buf);
            buf = NULL;
        }
        if (buf) {
            buf[sb.st_size] = 0;
            *len = (size_t)sb.st_size;
        }
    }
    close(fd);
    return buf;
}

static const char *content_type_of(const char *path)
{
    static const struct {
        const char *ext, *type;
    } types[] = {{".html", "text/html; charset=utf-8"},
                 {".js", "text/javascript; charset=utf-8"},
                 {".mjs", "text/javascript; charset=utf-8"},
                 {".css", "text/css; charset=utf-8"},
                 {".svg", "image/svg+xml"},
                 {".png", "image/png"},
                 {".ico", "image/x-icon"},
                 {".json", "application/json"},
                 {".yaml", "application/yaml"},
                 {".txt", "text/plain; charset=utf-8"}};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof *types; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

static void serve_file(struct http_req *r, const char *root, const char *path)
{
    size_t len = 0;
    char *body = NULL;
    char real_root[PATH_MAX];
    bool clean = strstr(path, "..") == NULL && strchr(path, '\\') == NULL && path[0] != '/';
    if (clean && root && realpath(root, real_root))
        body = read_below(real_root, path, &len);
    if (!body) {
        http_reply_problem(r, P_NOT_FOUND, NULL, "There is no file at %s.", r->url);
        return;
    }
    http_reply_bytes(r, 200, content_type_of(path), body, len);
    r->reply.cache = "no-cache";
}

void api_openapi(struct http_req *r)
{
    const char *p = r->srv->openapi_path;
    const char *slash = p ? strrchr(p, '/') : NULL;
    if (!p) {
        http_reply_problem(r, P_NOT_FOUND, NULL, "This server has no OpenAPI file.");
        return;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - p) : 1, slash ? p : ".");
    serve_file(r, dir, slash ? slash + 1 : p);
}

void api_static(struct http_req *r)
{
    const char *path = r->url + 1;
    if (!*path)
        path = "index.html";
    serve_file(r, r->srv->web_dir, path);
}

/* ---- Server-Sent Events ------------------------------------------------------------------ */

enum { SSE_KEEPALIVE_MS = 15000 };

struct stream {
    struct server *srv;
    char id[64];
    long long last; /* the last sequence sent */
    unsigned long long gen;
    char *buf; /* bytes waiting to go out */
    size_t len, off;
    bool finished; /* game_over was sent: end after the buffer */
    bool first;
};

struct fetch_ctx {
    struct stream *s;
    json_t *events;
};

static int fetch_tx(PGconn *c, void *ctx)
{
    struct fetch_ctx *f = ctx;
    return store_events_after(c, f->s->id, f->s->last, 200, &f->events);
}

static void append(struct stream *s, const char *text)
{
    size_t n = strlen(text);
    char *b = realloc(s->buf, s->len + n + 1);
    if (!b)
        return;
    memcpy(b + s->len, text, n + 1);
    s->buf = b;
    s->len += n;
}

/* Reads new events into the buffer; true when some arrived. */
static bool fetch(struct stream *s)
{
    struct fetch_ctx f = {s, NULL};
    if (store_run(s->srv->store, fetch_tx, &f) != STORE_OK || !f.events)
        return false;
    size_t i;
    json_t *e;
    json_array_foreach(f.events, i, e)
    {
        long long seq = json_integer_value(json_object_get(e, "seq"));
        const char *type = json_string_value(json_object_get(e, "type"));
        char *data = json_dumps(e, JSON_COMPACT);
        if (!data)
            continue;
        size_t need = strlen(data) + 128;
        char *line = malloc(need);
        if (line) {
            snprintf(line, need, "id: %lld\nevent: %s\ndata: %s\n\n", seq, type ? type : "event",
                     data);
            append(s, line);
            free(line);
        }
        free(data);
        s->last = seq;
        if (type && strcmp(type, "game_over") == 0)
            s->finished = true;
    }
    bool got = json_array_size(f.events) > 0;
    json_decref(f.events);
    return got;
}

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
            if (s->finished || hub_stopping(s->srv->hub))
                return MHD_CONTENT_READER_END_OF_STREAM;
            if (fetch(s))
                break;
            if (!hub_wait(s->srv->hub, s->id, &s->gen, SSE_KEEPALIVE_MS) &&
                !hub_stopping(s->srv->hub) && !fetch(s))
                append(s, ": keep-alive\n\n");
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
    free(s->buf);
    free(s);
}

static int exists_tx(PGconn *c, void *ctx)
{
    struct game_row row = {0};
    int st = store_game_read(c, ctx, false, &row);
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
    int st = store_run(r->srv->store, exists_tx, (void *)r->params[0]);
    if (st == STORE_NO_ROW) {
        http_reply_problem(r, P_NO_GAME, NULL, "There is no game \"%.40s\".", r->params[0]);
        return;
    }
    if (st != STORE_OK) {
        http_reply_problem(r, P_UNAVAILABLE, NULL, "The database is unreachable; retry soon.");
        return;
    }
    struct stream *s = calloc(1, sizeof *s);
    if (!s) {
        http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        return;
    }
    s->srv = r->srv;
    snprintf(s->id, sizeof s->id, "%s", r->params[0]);
    s->last = last;
    s->first = true;
    s->gen = hub_generation(r->srv->hub);
    r->reply.status = 200;
    r->reply.content_type = "text/event-stream";
    r->reply.stream = stream_read;
    r->reply.stream_ctx = s;
    r->reply.stream_free = stream_free;
}
