/* api_misc.c: the handlers that are not about one game's moves: the card catalog, health,
 * metrics, the OpenAPI file and static files of the page. */
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
    long streams = 0, parked = 0, conns = 0, parked_requests = 0;
    uint64_t wakeups = 0, refused = 0, cut_head = 0;
    if (r->srv->hub)
        hub_stats(r->srv->hub, &streams, &parked, &wakeups, &refused);
    if (r->srv->http)
        http_stats(r->srv->http, &conns, &parked_requests, &cut_head);
    char *net = NULL;
    if (asprintf(&net,
                 "# HELP city_connections Open HTTP connections on this instance.\n"
                 "# TYPE city_connections gauge\ncity_connections %ld\n"
                 "# HELP city_parked_requests Requests waiting for group commit, holding no "
                 "thread.\n"
                 "# TYPE city_parked_requests gauge\ncity_parked_requests %ld\n"
                 "# HELP city_connections_cut_total Connections cut for sending their request "
                 "head too slowly.\n"
                 "# TYPE city_connections_cut_total counter\n"
                 "city_connections_cut_total{reason=\"head_timeout\"} %llu\n"
                 "# HELP city_streams Open event streams on this instance, and those parked.\n"
                 "# TYPE city_streams gauge\ncity_streams{state=\"open\"} %ld\n"
                 "city_streams{state=\"parked\"} %ld\n"
                 "# HELP city_stream_wakeups_total Event streams woken by news of their game.\n"
                 "# TYPE city_stream_wakeups_total counter\ncity_stream_wakeups_total %llu\n"
                 "# HELP city_streams_refused_total Event streams refused at a cap.\n"
                 "# TYPE city_streams_refused_total counter\ncity_streams_refused_total %llu\n",
                 conns, parked_requests, (unsigned long long)cut_head, streams, parked,
                 (unsigned long long)wakeups, (unsigned long long)refused) < 0)
        net = NULL;
    char *extra = NULL;
    if (asprintf(&extra,
                 "%s# HELP city_view_cache_entries Public views cached by this instance.\n"
                 "# TYPE city_view_cache_entries gauge\ncity_view_cache_entries %zu\n"
                 "# HELP city_view_cache_lookups_total Public view lookups, by result.\n"
                 "# TYPE city_view_cache_lookups_total counter\n"
                 "city_view_cache_lookups_total{result=\"hit\"} %llu\n"
                 "city_view_cache_lookups_total{result=\"miss\"} %llu\n%s",
                 games ? games : "", entries, (unsigned long long)hits, (unsigned long long)misses,
                 net ? net : "") < 0)
        extra = NULL;
    free(games);
    free(net);
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
