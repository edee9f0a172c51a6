/* api_misc.c: the handlers that are not about one game's moves: the card catalog and the
 * rulesets (from the service), health, metrics, the OpenAPI file and static files of the page. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/sha.h>
#include <zlib.h>

#include "api_common.h"
#include "botpool.h"
#include "expert_levels.h"
#include "hub.h"
#include "lobbycache.h"
#include "auth.h"
#include "metrics.h"
#include "server.h"
#include "service.h"
#include "store.h"
#include "viewcache.h"

void api_cards(struct http_req *r)
{
    struct outcome o = {0};
    int st = service_cards(r->srv, http_query(r, "game"), &o);
    api_answer(r, st, &o);
    if (st == STORE_OK)
        r->reply.cache = "public, max-age=300";
}

/* GET /api/v1/rulesets: the games this server hosts, the default first, and the expert's
 * levels (a game's bot_level). */
void api_rulesets(struct http_req *r)
{
    http_reply_json(r, 200, service_rulesets(r->srv));
    r->reply.cache = "public, max-age=300";
}

void api_healthz(struct http_req *r)
{
    if (service_healthy(r->srv)) {
        http_reply_json(r, 200, json_pack("{s:s, s:s}", "status", "ok", "database", "ok"));
        return;
    }
    struct store_stats ss;
    store_stats(r->srv->store, &ss);
    http_reply_problem(r, P_UNAVAILABLE, NULL,
                       "The database does not answer (last server reached: %s); the service "
                       "reconnects by itself, to whichever of its servers is the primary.",
                       ss.server[0] ? ss.server : "none yet");
}

/* Writes the pool's figures (store_stats) as Prometheus text to buf. */
static void db_metrics(struct store *st, char *buf, size_t n)
{
    struct store_stats ss;
    store_stats(st, &ss);
    snprintf(buf, n,
             "# HELP city_db_connections_total Database connections made by this instance.\n"
             "# TYPE city_db_connections_total counter\ncity_db_connections_total %llu\n"
             "# HELP city_db_reconnects_total Connections made to replace one that broke.\n"
             "# TYPE city_db_reconnects_total counter\ncity_db_reconnects_total %llu\n"
             "# HELP city_db_failovers_total Reconnections that reached another server than the "
             "connection before (a failover or switchover of the primary).\n"
             "# TYPE city_db_failovers_total counter\ncity_db_failovers_total %llu\n"
             "# HELP city_db_outcome_unknown_total Transactions whose COMMIT outcome was unknown "
             "(answered 503 outcome_unknown).\n"
             "# TYPE city_db_outcome_unknown_total counter\ncity_db_outcome_unknown_total %llu\n"
             "# HELP city_db_up Whether the last connection attempt succeeded.\n"
             "# TYPE city_db_up gauge\ncity_db_up %d\n",
             ss.connects, ss.reconnects, ss.failovers, ss.unknown, ss.down ? 0 : 1);
}

/* True when r may read /metrics: its client address is in the allowed blocks, or it sends the
 * metrics token (compared in constant time, through its hash). */
static bool metrics_allowed(struct http_req *r)
{
    if (netaddr_blocks_contain(&r->srv->metrics_allow, http_client(r)))
        return true;
    const char *sent = http_bearer(r);
    if (!r->srv->metrics_token || !sent)
        return false;
    uint8_t want[AUTH_HASH_LEN], got[AUTH_HASH_LEN];
    auth_hash(r->srv->metrics_token, want);
    auth_hash(sent, got);
    return auth_equal(want, got);
}

void api_metrics(struct http_req *r)
{
    if (!metrics_allowed(r)) {
        http_reply_problem(r, P_METRICS_FORBIDDEN, NULL,
                           "This server shows its metrics to the addresses in CITY_METRICS_ALLOW "
                           "(by default loopback and private networks) and to clients that send "
                           "CITY_METRICS_TOKEN as \"Authorization: Bearer TOKEN\"; %s is neither.",
                           http_client(r));
        return;
    }
    char *games = service_games_metrics(r->srv);
    size_t entries, len;
    uint64_t hits, misses;
    view_cache_stats(r->srv->views, &entries, &hits, &misses);
    uint64_t hand_hits, hand_misses;
    view_cache_member_stats(r->srv->views, &hand_hits, &hand_misses);
    uint64_t lobby_hits, lobby_misses;
    lobby_cache_stats(r->srv->lobby, &lobby_hits, &lobby_misses);
    long streams = 0, parked = 0;
    uint64_t wakeups = 0, refused = 0;
    if (r->srv->hub)
        hub_stats(r->srv->hub, &streams, &parked, &wakeups, &refused);
    struct http_net_stats ns;
    http_stats(r->daemon, &ns);
    char dbm[1400];
    db_metrics(r->srv->store, dbm, sizeof dbm);
    char *net = NULL;
    if (asprintf(&net,
                 "# HELP city_connections Open HTTP connections on this instance.\n"
                 "# TYPE city_connections gauge\ncity_connections %ld\n"
                 "# HELP city_parked_requests Requests waiting for group commit, holding no "
                 "thread.\n"
                 "# TYPE city_parked_requests gauge\ncity_parked_requests %ld\n"
                 "# HELP city_requests_in_progress Requests being worked on (this one included); "
                 "bot workers pause while any is.\n"
                 "# TYPE city_requests_in_progress gauge\ncity_requests_in_progress %d\n"
                 "# HELP city_connections_cut_total Connections cut: for sending their request "
                 "head too slowly, or idle ones reclaimed near the connection cap.\n"
                 "# TYPE city_connections_cut_total counter\n"
                 "city_connections_cut_total{reason=\"head_timeout\"} %llu\n"
                 "city_connections_cut_total{reason=\"reclaimed\"} %llu\n"
                 "# HELP city_connections_refused_total Connections closed as they came: past "
                 "the cap per address, or from an address holding many once the headroom is "
                 "reached.\n"
                 "# TYPE city_connections_refused_total counter\n"
                 "city_connections_refused_total{reason=\"per_address\"} %llu\n"
                 "city_connections_refused_total{reason=\"crowded\"} %llu\n"
                 "# HELP city_streams Open event streams on this instance, and those parked.\n"
                 "# TYPE city_streams gauge\ncity_streams{state=\"open\"} %ld\n"
                 "city_streams{state=\"parked\"} %ld\n"
                 "# HELP city_stream_wakeups_total Event streams woken by news of their game.\n"
                 "# TYPE city_stream_wakeups_total counter\ncity_stream_wakeups_total %llu\n"
                 "# HELP city_streams_refused_total Event streams refused at a cap.\n"
                 "# TYPE city_streams_refused_total counter\ncity_streams_refused_total %llu\n"
                 "# HELP city_streams_evicted_total Watchers' event streams ended to make room "
                 "for a player's.\n"
                 "# TYPE city_streams_evicted_total counter\ncity_streams_evicted_total %llu\n%s",
                 ns.open, ns.parked, http_requests_busy(), (unsigned long long)ns.cut_head,
                 (unsigned long long)ns.reclaimed, (unsigned long long)ns.refused_address,
                 (unsigned long long)ns.refused_crowded, streams, parked,
                 (unsigned long long)wakeups, (unsigned long long)refused,
                 (unsigned long long)(r->srv->hub ? hub_evicted(r->srv->hub) : 0), dbm) < 0)
        net = NULL;
    struct bot_pool_stats bs;
    bot_pool_stats(r->srv->bots, &bs);
    char by_level[EXPERT_LEVELS_MAX * 80] = "";
    for (int i = 0; i < EXPERT_LEVELS_MAX && expert_levels[i].id; i++)
        snprintf(by_level + strlen(by_level), sizeof by_level - strlen(by_level),
                 "city_bot_level_decisions_total{level=\"%s\"} %llu\n", expert_levels[i].id,
                 (unsigned long long)bs.by_level[i]);
    char *bots = NULL;
    if (asprintf(&bots,
                 "# HELP city_bot_queue Games waiting for a bot worker, hints waiting for one, and "
                 "workers thinking.\n"
                 "# TYPE city_bot_queue gauge\ncity_bot_queue{state=\"queued\"} %ld\n"
                 "city_bot_queue{state=\"hints\"} %ld\n"
                 "city_bot_queue{state=\"thinking\"} %ld\n"
                 "# HELP city_bot_queue_people Queued games where a person sits (served first).\n"
                 "# TYPE city_bot_queue_people gauge\ncity_bot_queue_people %ld\n"
                 "# HELP city_bot_decisions_total Slow bots' decisions: submitted, thrown away "
                 "because the game had moved on, wake-ups dropped by a full queue.\n"
                 "# TYPE city_bot_decisions_total counter\n"
                 "city_bot_decisions_total{result=\"submitted\"} %llu\n"
                 "city_bot_decisions_total{result=\"stale\"} %llu\n"
                 "city_bot_decisions_total{result=\"dropped\"} %llu\n"
                 "# HELP city_bot_decision_seconds Time a slow bot thought per decision (its "
                 "pauses for people's requests not counted).\n"
                 "# TYPE city_bot_decision_seconds histogram\n"
                 "city_bot_decision_seconds_bucket{le=\"0.01\"} %llu\n"
                 "city_bot_decision_seconds_bucket{le=\"0.025\"} %llu\n"
                 "city_bot_decision_seconds_bucket{le=\"0.05\"} %llu\n"
                 "city_bot_decision_seconds_bucket{le=\"0.1\"} %llu\n"
                 "city_bot_decision_seconds_bucket{le=\"0.2\"} %llu\n"
                 "city_bot_decision_seconds_bucket{le=\"0.5\"} %llu\n"
                 "city_bot_decision_seconds_bucket{le=\"+Inf\"} %llu\n"
                 "city_bot_decision_seconds_sum %.6f\ncity_bot_decision_seconds_count %llu\n"
                 "# HELP city_bot_level_decisions_total Expert decisions thought, by the game's "
                 "level.\n"
                 "# TYPE city_bot_level_decisions_total counter\n%s"
                 "# HELP city_bot_yield_seconds_total Time bot workers paused their thinking "
                 "while people's requests were served.\n"
                 "# TYPE city_bot_yield_seconds_total counter\ncity_bot_yield_seconds_total %.6f\n"
                 "# HELP city_bot_hints_total Hints the bot workers thought about.\n"
                 "# TYPE city_bot_hints_total counter\ncity_bot_hints_total %llu\n"
                 "# HELP city_bot_taken_up_total Work a bot worker took up between two playouts of "
                 "a decision, for a person or an address waiting while every worker was busy.\n"
                 "# TYPE city_bot_taken_up_total counter\ncity_bot_taken_up_total %llu\n"
                 "# HELP city_bot_worker_nice The nice a bot worker thinks at, for games of bots "
                 "alone and for work people wait on (--bot-nice; both 0 at SCHED_IDLE).\n"
                 "# TYPE city_bot_worker_nice gauge\n"
                 "city_bot_worker_nice{work=\"alone\"} %d\n"
                 "city_bot_worker_nice{work=\"people\"} %d\n"
                 "# HELP city_bot_worker_sched_idle 1 when the bot workers run at SCHED_IDLE "
                 "(--bot-nice 0).\n"
                 "# TYPE city_bot_worker_sched_idle gauge\ncity_bot_worker_sched_idle %d\n%s",
                 bs.queued, bs.queued_tasks, bs.thinking, bs.queued_people,
                 (unsigned long long)bs.decisions, (unsigned long long)bs.stale,
                 (unsigned long long)bs.dropped, (unsigned long long)bs.le_ms[0],
                 (unsigned long long)bs.le_ms[1], (unsigned long long)bs.le_ms[2],
                 (unsigned long long)bs.le_ms[3], (unsigned long long)bs.le_ms[4],
                 (unsigned long long)bs.le_ms[5], (unsigned long long)bs.thought,
                 bs.ms_sum / 1000.0, (unsigned long long)bs.thought, by_level, bs.yield_ms / 1000.0,
                 (unsigned long long)bs.tasks, (unsigned long long)bs.preempted, bs.nice_alone,
                 bs.nice_people, bs.sched_idle ? 1 : 0, net ? net : "") < 0)
        bots = NULL;
    free(net);
    net = bots;
    char *extra = NULL;
    if (asprintf(&extra,
                 "%s# HELP city_view_cache_entries Public views and seat tokens' hands cached "
                 "by this instance.\n"
                 "# TYPE city_view_cache_entries gauge\ncity_view_cache_entries %zu\n"
                 "# HELP city_view_cache_lookups_total Public view lookups, by result.\n"
                 "# TYPE city_view_cache_lookups_total counter\n"
                 "city_view_cache_lookups_total{result=\"hit\"} %llu\n"
                 "city_view_cache_lookups_total{result=\"miss\"} %llu\n"
                 "# HELP city_hand_cache_lookups_total Hand views of seat tokens served from "
                 "this instance's view cache (hit) or read from the database (miss).\n"
                 "# TYPE city_hand_cache_lookups_total counter\n"
                 "city_hand_cache_lookups_total{result=\"hit\"} %llu\n"
                 "city_hand_cache_lookups_total{result=\"miss\"} %llu\n"
                 "# HELP city_lobby_cache_lookups_total Lobby pages served from this "
                 "instance's cache (hit) or read from the database (miss).\n"
                 "# TYPE city_lobby_cache_lookups_total counter\n"
                 "city_lobby_cache_lookups_total{result=\"hit\"} %llu\n"
                 "city_lobby_cache_lookups_total{result=\"miss\"} %llu\n%s",
                 games ? games : "", entries, (unsigned long long)hits, (unsigned long long)misses,
                 (unsigned long long)hand_hits, (unsigned long long)hand_misses,
                 (unsigned long long)lobby_hits, (unsigned long long)lobby_misses,
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

/* ---- static files -------------------------------------------------------------------------
 *
 * The page's files and the OpenAPI file: served with their MIME type, a strong ETag (from a
 * SHA-256 of the content; "-gz" added for the gzip form, a different representation) and
 * Last-Modified, answered 304 on a matching If-None-Match (or, without one, If-Modified-Since),
 * and gzip-compressed for text when the client accepts it. Each file is read and compressed
 * once per version (path, inode, size and mtime) and kept in a small bounded cache: on the fly
 * rather than at build time, because web/ (CITY_WEB) is served from wherever the operator
 * points it, edited in place during development, and has no build step of its own. */

enum {
    STATIC_MAX_FILE = 16 * 1024 * 1024,  /* larger files are not served */
    STATIC_CACHE_ENTRIES = 64,           /* files kept in memory */
    STATIC_CACHE_FILE = 2 * 1024 * 1024, /* larger files are read each time and not compressed */
    STATIC_GZIP_MIN = 256,               /* smaller files are not worth compressing */
};

struct static_file {
    char path[PATH_MAX]; /* the real path; "" for a free slot */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    char *body, *gz; /* gz is NULL when not compressed */
    size_t len, gzlen;
    char etag[40], etag_gz[44]; /* quoted */
    char last_modified[32];
    unsigned long long used; /* the cache's clock at the last use, for eviction */
};

static struct {
    pthread_mutex_t lock;
    struct static_file files[STATIC_CACHE_ENTRIES];
    unsigned long long clock;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const struct {
    const char *ext, *type;
    bool text; /* worth compressing */
} types[] = {{".html", "text/html; charset=utf-8", true},
             {".js", "text/javascript; charset=utf-8", true},
             {".mjs", "text/javascript; charset=utf-8", true},
             {".css", "text/css; charset=utf-8", true},
             {".map", "application/json", true},
             {".json", "application/json", true},
             {".webmanifest", "application/manifest+json", true},
             {".yaml", "application/yaml", true},
             {".yml", "application/yaml", true},
             {".txt", "text/plain; charset=utf-8", true},
             {".md", "text/markdown; charset=utf-8", true},
             {".svg", "image/svg+xml", true},
             {".ico", "image/x-icon", true},
             {".ttf", "font/ttf", true}, /* glyph tables compress well, unlike woff/woff2 */
             {".otf", "font/otf", true},
             {".woff", "font/woff", false},
             {".woff2", "font/woff2", false},
             {".png", "image/png", false},
             {".jpg", "image/jpeg", false},
             {".jpeg", "image/jpeg", false},
             {".gif", "image/gif", false},
             {".webp", "image/webp", false},
             {".wasm", "application/wasm", false}};

/* The index of path's type in types[], or -1 (application/octet-stream). */
static int type_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof *types; i++)
        if (strcasecmp(dot, types[i].ext) == 0)
            return (int)i;
    return -1;
}

/* An HTTP date (RFC 9110 IMF-fixdate) of t, in any locale. */
static void http_date(time_t t, char *out, size_t n)
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(out, n, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday % 7], tm.tm_mday,
             months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Reads an IMF-fixdate (the only form a client should send); -1 when it is not one. */
static time_t parse_http_date(const char *s)
{
    struct tm tm = {0};
    const char *end = s ? strptime(s, "%a, %d %b %Y %H:%M:%S GMT", &tm) : NULL;
    return end && *end == 0 ? timegm(&tm) : (time_t)-1;
}

/* The gzip form of body, or NULL when it would not be smaller (or on failure). */
static char *gzip_of(const char *body, size_t len, size_t *gzlen)
{
    z_stream zs = {0};
    if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&zs, (uLong)len);
    char *out = malloc(cap);
    zs.next_in = (Bytef *)(uintptr_t)body;
    zs.avail_in = (uInt)len;
    zs.next_out = (Bytef *)out;
    zs.avail_out = (uInt)cap;
    int rc = out ? deflate(&zs, Z_FINISH) : Z_MEM_ERROR;
    *gzlen = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END || *gzlen >= len) {
        free(out);
        return NULL;
    }
    return out;
}

/* Reads the regular file at fd (already fstat'd as sb) into f: content, ETags, date and, for
 * text, the gzip form. False when it cannot be read. */
static bool static_load(struct static_file *f, int fd, const struct stat *sb, bool text)
{
    f->body = malloc((size_t)sb->st_size + 1);
    if (!f->body)
        return false;
    size_t got = 0;
    while (got < (size_t)sb->st_size) {
        ssize_t n = read(fd, f->body + got, (size_t)sb->st_size - got);
        if (n <= 0) {
            free(f->body);
            f->body = NULL;
            return false;
        }
        got += (size_t)n;
    }
    f->body[got] = 0;
    f->len = got;
    unsigned char hash[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)f->body, f->len, hash);
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", hash[i]);
    snprintf(f->etag, sizeof f->etag, "\"%s\"", hex);
    snprintf(f->etag_gz, sizeof f->etag_gz, "\"%s-gz\"", hex);
    http_date(sb->st_mtim.tv_sec, f->last_modified, sizeof f->last_modified);
    f->gz = text && f->len >= STATIC_GZIP_MIN && f->len <= STATIC_CACHE_FILE
                ? gzip_of(f->body, f->len, &f->gzlen)
                : NULL;
    f->dev = sb->st_dev;
    f->ino = sb->st_ino;
    f->size = sb->st_size;
    f->mtime = sb->st_mtim;
    return true;
}

static void static_clear(struct static_file *f)
{
    free(f->body);
    free(f->gz);
    memset(f, 0, sizeof *f);
}

/* The cached file at `real` if it is still the version on disk (sb), else a fresh copy put
 * into the cache (evicting the least recently used file). The result is a private copy of what
 * the caller needs: *out gets the entry's metadata with body and gz pointing at fresh
 * allocations the caller frees (gz only when want_gz). False when the file cannot be read. */
static bool static_get(const char *real, int fd, const struct stat *sb, bool text, bool want_gz,
                       struct static_file *out)
{
    bool cacheable = sb->st_size <= STATIC_CACHE_FILE;
    pthread_mutex_lock(&cache.lock);
    struct static_file *f = NULL, *victim = &cache.files[0];
    for (int i = 0; cacheable && i < STATIC_CACHE_ENTRIES; i++) {
        struct static_file *c = &cache.files[i];
        if (c->path[0] && strcmp(c->path, real) == 0) {
            if (c->dev == sb->st_dev && c->ino == sb->st_ino && c->size == sb->st_size &&
                c->mtime.tv_sec == sb->st_mtim.tv_sec && c->mtime.tv_nsec == sb->st_mtim.tv_nsec)
                f = c;
            else
                static_clear(c); /* an older version of the file */
        }
        if (!cache.files[i].path[0] || (victim->path[0] && c->used < victim->used))
            victim = c;
    }
    struct static_file fresh = {0};
    if (!f) {
        /* Read outside the lock would be nicer; these files are small and read once. */
        if (!static_load(&fresh, fd, sb, text)) {
            pthread_mutex_unlock(&cache.lock);
            return false;
        }
        snprintf(fresh.path, sizeof fresh.path, "%s", real);
        if (cacheable) {
            static_clear(victim);
            *victim = fresh;
            f = victim;
            memset(&fresh, 0, sizeof fresh);
        } else {
            f = &fresh;
        }
    }
    f->used = ++cache.clock;
    *out = *f;
    out->body = NULL;
    out->gz = NULL;
    bool ok = true;
    if (want_gz && f->gz) {
        out->gz = malloc(f->gzlen);
        ok = out->gz != NULL;
        if (ok)
            memcpy(out->gz, f->gz, f->gzlen);
    } else {
        out->body = malloc(f->len + 1);
        ok = out->body != NULL;
        if (ok)
            memcpy(out->body, f->body, f->len + 1);
    }
    static_clear(&fresh);
    pthread_mutex_unlock(&cache.lock);
    return ok;
}

/* True when the Accept-Encoding header allows gzip (named, or "*", with a q above 0). */
static bool accepts_gzip(const char *ae)
{
    bool gzip = false, star = false, gzip_named = false;
    for (const char *c = ae; c && *c;) {
        size_t n = strcspn(c, ",");
        const char *a = c;
        while (*a == ' ' || *a == '\t')
            a++;
        size_t tok = strcspn(a, ";, \t");
        const char *q = memmem(a, (size_t)(c + n - a), "q=", 2);
        bool zero = q && strtod(q + 2, NULL) <= 0.0;
        if (tok == 4 && strncasecmp(a, "gzip", 4) == 0) {
            gzip_named = true;
            gzip = !zero;
        } else if (tok == 1 && *a == '*') {
            star = !zero;
        }
        c += n + (c[n] == ',');
    }
    return gzip || (star && !gzip_named);
}

/* True when If-None-Match (a list of entity tags, or "*") names one of the file's forms;
 * the comparison is the weak one RFC 9110 prescribes for If-None-Match. */
static bool none_match_hits(const char *inm, const struct static_file *f)
{
    for (const char *c = inm; *c;) {
        while (*c == ' ' || *c == '\t' || *c == ',')
            c++;
        if (*c == '*')
            return true;
        if (strncmp(c, "W/", 2) == 0)
            c += 2;
        size_t n = strcspn(c, ", \t");
        if ((n == strlen(f->etag) && strncmp(c, f->etag, n) == 0) ||
            (n == strlen(f->etag_gz) && strncmp(c, f->etag_gz, n) == 0))
            return true;
        c += n;
    }
    return false;
}

static void serve_file(struct http_req *r, const char *root, const char *path)
{
    char real_root[PATH_MAX], full[PATH_MAX], real[PATH_MAX];
    bool clean = strstr(path, "..") == NULL && strchr(path, '\\') == NULL && path[0] != '/';
    bool found = clean && root && realpath(root, real_root) &&
                 snprintf(full, sizeof full, "%s/%s", real_root, path) < (int)sizeof full &&
                 realpath(full, real);
    size_t n = found ? strlen(real_root) : 0;
    if (found && (strncmp(real, real_root, n) != 0 || (real[n] != '/' && real[n] != 0)))
        found = false; /* outside the root, e.g. through a link */
    int fd = found ? open(real, O_RDONLY | O_CLOEXEC) : -1;
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size >= STATIC_MAX_FILE) {
        if (fd >= 0)
            close(fd);
        http_reply_problem(r, P_NOT_FOUND, NULL, "There is no file at %s.", r->url);
        return;
    }
    int t = type_of(path);
    bool text = t >= 0 && types[t].text;
    bool gzip = text && accepts_gzip(http_header(r, MHD_HTTP_HEADER_ACCEPT_ENCODING));
    struct static_file f;
    bool ok = static_get(real, fd, &sb, text, gzip, &f);
    close(fd);
    if (!ok) {
        http_reply_problem(r, P_INTERNAL, NULL, "The file %s could not be read.", r->url);
        return;
    }
    gzip = f.gz != NULL;
    const char *inm = http_header(r, MHD_HTTP_HEADER_IF_NONE_MATCH);
    time_t since = inm ? -1 : parse_http_date(http_header(r, MHD_HTTP_HEADER_IF_MODIFIED_SINCE));
    if ((inm && none_match_hits(inm, &f)) || (since >= 0 && sb.st_mtim.tv_sec <= since)) {
        free(f.body);
        free(f.gz);
        http_reply_bytes(r, 304, NULL, NULL, 0);
    } else if (gzip) {
        http_reply_bytes(r, 200, types[t].type, f.gz, f.gzlen);
        http_reply_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    } else {
        http_reply_bytes(r, 200, t >= 0 ? types[t].type : "application/octet-stream", f.body,
                         f.len);
    }
    r->reply.cache = "no-cache"; /* always revalidated: a 304 costs one round trip */
    http_reply_header(r, MHD_HTTP_HEADER_ETAG, gzip ? f.etag_gz : f.etag);
    http_reply_header(r, MHD_HTTP_HEADER_LAST_MODIFIED, f.last_modified);
    if (text)
        http_reply_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
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

void api_docs(struct http_req *r)
{
    serve_file(r, r->srv->docs_dir ? r->srv->docs_dir : "docs", r->url + strlen("/docs/"));
}
