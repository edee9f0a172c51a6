/* serve.c: `cityd serve`: reads flags and environment, migrates the database, starts the
 * HTTP daemon, the event hub and the sweeper, and stops them cleanly on SIGINT or SIGTERM. */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "ruleset.h"
#include "cli.h"
#include "http.h"
#include "botpool.h"
#include "hashcrew.h"
#include "hub.h"
#include "lobbycache.h"
#include "ratelimit.h"
#include "server.h"
#include "service.h"
#include "store.h"
#include "viewcache.h"

struct options {
    int port, workers, timeout, view_cache, batchers;
    int threads, head_timeout, max_connections, max_per_address, headroom, max_streams,
        max_per_game, max_streams_per_address;
    int bot_workers, bot_queue, expert_ms, bot_yield_ms, bot_nice, lobby_cache_ms;
    const char *database, *web, *cards, *migrations, *openapi, *docs, *proxies, *metrics_allow;
    bool allow_seed;
    struct http_policy policy; /* CORS and request-head limits, from CITY_* (http.h) */
};

/* Prints the usage, after `what` went wrong (or, when what is NULL, asked for with --help, on
 * standard output); returns serve's exit status: 2 for an error, SERVE_HELP for --help. */
enum { SERVE_HELP = -1 };
static int usage_error(const char *what)
{
    fprintf(what ? stderr : stdout,
            "%s%s%s"
            "usage: cityd serve [--help] [--port N] [--database URL] [--web DIR] [--cards FILE]\n"
            "                   [--migrations DIR] [--openapi FILE] [--docs DIR] [--workers N]\n"
            "                   [--timeout SECONDS] [--view-cache GAMES] [--allow-seed]\n"
            "                   [--threads N] [--head-timeout SECONDS] [--max-connections N]\n"
            "                   [--max-per-address N] [--connection-headroom N]\n"
            "                   [--trusted-proxies LIST] [--metrics-allow LIST|none]\n"
            "                   [--max-streams N] [--max-streams-per-game N]\n"
            "                   [--max-streams-per-address N]\n"
            "                   [--max-headers N] [--max-header-bytes N]\n"
            "                   [--max-query-params N] [--max-url-bytes N]\n"
            "                   [--bot-workers N] [--bot-queue GAMES] [--expert-ms MS]\n"
            "                   [--bot-yield-ms MS] [--bot-nice N] [--lobby-cache-ms MS]\n"
            "environment: PORT, DATABASE_URL, CITY_WEB, CITY_CARDS, CITY_WORKERS,\n"
            "             CITY_VIEW_CACHE, CITY_BATCHERS, CITY_THREADS, CITY_TIMEOUT,\n"
            "             CITY_HEAD_TIMEOUT, CITY_MAX_CONNECTIONS, CITY_MAX_PER_ADDRESS,\n"
            "             CITY_CONNECTION_HEADROOM, CITY_METRICS_ALLOW, CITY_METRICS_TOKEN,\n"
            "             CITY_TRUSTED_PROXIES, CITY_MAX_STREAMS, CITY_MAX_STREAMS_PER_GAME,\n"
            "             CITY_MAX_STREAMS_PER_ADDRESS,\n"
            "             CITY_CORS_ORIGINS, CITY_MAX_HEADERS, CITY_MAX_HEADER_BYTES,\n"
            "             CITY_MAX_QUERY_PARAMS, CITY_MAX_URL_BYTES, CITY_BOT_WORKERS,\n"
            "             CITY_BOT_QUEUE, CITY_EXPERT_MS, CITY_BOT_YIELD_MS, CITY_BOT_NICE,\n"
            "             CITY_LOBBY_CACHE_MS\n%s",
            what ? "cityd serve: " : "", what ? what : "", what ? "\n" : "", quotas_usage);
    return what ? 2 : SERVE_HELP;
}

static bool parse_int(const char *s, int min, int max, int *out)
{
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || v < min || v > max)
        return false;
    *out = (int)v;
    return true;
}

/* The integer settings: a flag, an environment variable (either may be NULL), the range. */
struct int_setting {
    const char *flag, *env;
    int min, max;
    size_t offset; /* of the int in struct options */
    const char *what;
};

static const struct int_setting int_settings[] = {
    {"--port", "PORT", 0, 65535, offsetof(struct options, port), "a port number"},
    {"--workers", "CITY_WORKERS", 1, 512, offsetof(struct options, workers),
     "1..512 database connections"},
    {"--timeout", "CITY_TIMEOUT", 1, 3600, offsetof(struct options, timeout), "1..3600 seconds"},
    {"--view-cache", "CITY_VIEW_CACHE", 0, 10000000, offsetof(struct options, view_cache),
     "0..10000000 games"},
    {NULL, "CITY_BATCHERS", 1, 256, offsetof(struct options, batchers), "1..256 threads"},
    {"--threads", "CITY_THREADS", 1, 256, offsetof(struct options, threads), "1..256 threads"},
    {"--head-timeout", "CITY_HEAD_TIMEOUT", 0, 3600, offsetof(struct options, head_timeout),
     "0..3600 seconds (0: none)"},
    {"--max-connections", "CITY_MAX_CONNECTIONS", 16, 1000000,
     offsetof(struct options, max_connections), "16..1000000 connections"},
    {"--max-per-address", "CITY_MAX_PER_ADDRESS", 0, 1000000,
     offsetof(struct options, max_per_address), "0..1000000 connections (0: no limit)"},
    {"--connection-headroom", "CITY_CONNECTION_HEADROOM", 0, 1000000,
     offsetof(struct options, headroom), "0..1000000 connections (0: a sixteenth of the cap)"},
    {"--max-streams", "CITY_MAX_STREAMS", 0, 1000000, offsetof(struct options, max_streams),
     "0..1000000 streams (0: no limit)"},
    {"--max-streams-per-game", "CITY_MAX_STREAMS_PER_GAME", 0, 1000000,
     offsetof(struct options, max_per_game), "0..1000000 streams (0: no limit)"},
    {"--max-streams-per-address", "CITY_MAX_STREAMS_PER_ADDRESS", 0, 1000000,
     offsetof(struct options, max_streams_per_address), "0..1000000 streams (0: no limit)"},
    {"--max-headers", "CITY_MAX_HEADERS", 8, 1000, offsetof(struct options, policy.max_headers),
     "8..1000 header lines"},
    {"--max-header-bytes", "CITY_MAX_HEADER_BYTES", 1024, 64 * 1024,
     offsetof(struct options, policy.max_header_bytes), "1024..65536 bytes"},
    {"--max-query-params", "CITY_MAX_QUERY_PARAMS", 1, 1000,
     offsetof(struct options, policy.max_query_params), "1..1000 parameters"},
    {"--max-url-bytes", "CITY_MAX_URL_BYTES", 256, 64 * 1024,
     offsetof(struct options, policy.max_url_bytes), "256..65536 bytes"},
    {"--bot-workers", "CITY_BOT_WORKERS", 1, 64, offsetof(struct options, bot_workers),
     "1..64 threads"},
    {"--bot-queue", "CITY_BOT_QUEUE", 1, 1000000, offsetof(struct options, bot_queue),
     "1..1000000 games"},
    {"--expert-ms", "CITY_EXPERT_MS", 1, 10000, offsetof(struct options, expert_ms),
     "1..10000 milliseconds"},
    {"--bot-yield-ms", "CITY_BOT_YIELD_MS", 0, 60000, offsetof(struct options, bot_yield_ms),
     "0..60000 milliseconds (0: bots never pause for people)"},
    {"--bot-nice", "CITY_BOT_NICE", 0, 19, offsetof(struct options, bot_nice),
     "0..19 (0: the bot workers run at SCHED_IDLE instead)"},
    {"--lobby-cache-ms", "CITY_LOBBY_CACHE_MS", 0, 60000, offsetof(struct options, lobby_cache_ms),
     "0..60000 milliseconds (0: no cache)"},
};
enum { NINT = sizeof int_settings / sizeof *int_settings };

/* Sets setting k from text v (named `name` in the message); a usage error when out of range. */
static int set_int(struct options *o, int k, const char *name, const char *v)
{
    const struct int_setting *is = &int_settings[k];
    if (parse_int(v, is->min, is->max, (int *)(void *)((char *)o + is->offset)))
        return 0;
    char msg[160];
    snprintf(msg, sizeof msg, "%s must be %s", name, is->what);
    return usage_error(msg);
}

/* The string settings. */
struct str_setting {
    const char *flag, *env;
    size_t offset; /* of the const char * in struct options */
};

static const struct str_setting str_settings[] = {
    {"--database", "DATABASE_URL", offsetof(struct options, database)},
    {"--web", "CITY_WEB", offsetof(struct options, web)},
    {"--cards", "CITY_CARDS", offsetof(struct options, cards)},
    {"--migrations", NULL, offsetof(struct options, migrations)},
    {"--openapi", NULL, offsetof(struct options, openapi)},
    {"--docs", "CITY_DOCS", offsetof(struct options, docs)},
    {"--trusted-proxies", "CITY_TRUSTED_PROXIES", offsetof(struct options, proxies)},
    {"--metrics-allow", "CITY_METRICS_ALLOW", offsetof(struct options, metrics_allow)},
};
enum { NSTR = sizeof str_settings / sizeof *str_settings };

static void set_str(struct options *o, int k, const char *v)
{
    *(const char **)(void *)((char *)o + str_settings[k].offset) = v;
}

/* Fills o and the quotas q from the environment, then from the flags (which win). 0, or a
 * usage error's 2, or SERVE_HELP when --help asked for the usage. */
static int read_options(struct options *o, struct quotas *q, int argc, char **argv)
{
    char qerr[256];
    if (!quotas_from_env(q, qerr, sizeof qerr))
        return usage_error(qerr);
    const char *env;
    for (int k = 0; k < NINT; k++)
        if (int_settings[k].env && (env = getenv(int_settings[k].env))) {
            int e = set_int(o, k, int_settings[k].env, env);
            if (e)
                return e;
        }
    for (int k = 0; k < NSTR; k++)
        if (str_settings[k].env && (env = getenv(str_settings[k].env)))
            set_str(o, k, env);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return usage_error(NULL);
        if (strcmp(a, "--allow-seed") == 0) {
            o->allow_seed = true;
            continue;
        }
        int ki = -1, ks = -1;
        for (int k = 0; k < NINT; k++)
            if (int_settings[k].flag && strcmp(a, int_settings[k].flag) == 0)
                ki = k;
        for (int k = 0; k < NSTR; k++)
            if (strcmp(a, str_settings[k].flag) == 0)
                ks = k;
        if (ki < 0 && ks < 0) {
            int used = quotas_flag(q, a, v, qerr, sizeof qerr);
            if (used < 0)
                return usage_error(qerr);
            if (used == 0)
                return usage_error("unknown option");
            i++;
            continue;
        }
        if (!v)
            return usage_error("an option lacks its value");
        if (ki >= 0) {
            int e = set_int(o, ki, a, v);
            if (e)
                return e;
        } else {
            set_str(o, ks, v);
        }
        i++;
    }
    if (!o->database)
        return usage_error("no database: pass --database URL or set DATABASE_URL");
    char err[200];
    if (!http_proxies_valid(o->proxies, err, sizeof err))
        return usage_error(err);
    struct netaddr_blocks bl;
    if (strcmp(o->metrics_allow, "none") != 0 && !netaddr_blocks_parse(o->metrics_allow, &bl)) {
        snprintf(err, sizeof err,
                 "the addresses allowed to read /metrics must be \"none\" or at most %d "
                 "addresses or CIDR blocks separated by commas, such as 10.0.0.0/8,::1",
                 NETADDR_MAX_BLOCKS);
        return usage_error(err);
    }
    return 0;
}

static atomic_bool stopping; /* set by the main thread on SIGINT or SIGTERM */

/* The sweeper's pause between idle sweeps, cut short when the daemon stops: a plain sleep held
 * every stop up to half a second (the tests start and stop hundreds of daemons). */
static pthread_mutex_t sweep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sweep_wake = PTHREAD_COND_INITIALIZER;

struct sweeper {
    struct server *srv;
    pthread_t thread;
};

static void *sweep_main(void *arg)
{
    struct sweeper *sw = arg;
    while (!stopping) {
        int n = service_sweep(sw->srv, 32);
        if (n == 0) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 500 * 1000 * 1000;
            if (until.tv_nsec >= 1000 * 1000 * 1000) {
                until.tv_sec++;
                until.tv_nsec -= 1000 * 1000 * 1000;
            }
            pthread_mutex_lock(&sweep_lock);
            while (!stopping && pthread_cond_timedwait(&sweep_wake, &sweep_lock, &until) == 0)
                ;
            pthread_mutex_unlock(&sweep_lock);
        }
    }
    return NULL;
}

static void sweep_stop(void)
{
    pthread_mutex_lock(&sweep_lock);
    atomic_store(&stopping, true);
    pthread_cond_broadcast(&sweep_wake);
    pthread_mutex_unlock(&sweep_lock);
}

int cmd_serve(int argc, char **argv)
{
    struct options o = {.port = 8080,
                        .workers = 16,
                        .timeout = 30,
                        .view_cache = 10000,
                        .threads = 16,
                        .head_timeout = 15,
                        .max_connections = 16384,
                        .max_per_address = 256,
                        .max_streams = 12000,
                        .max_per_game = 2000,
                        .max_streams_per_address = 64,
                        .bot_workers = 2,
                        .bot_queue = 10000,
                        .expert_ms = 100,
                        .bot_yield_ms = 1000,
                        .bot_nice = 0,
                        .lobby_cache_ms = 1000,
                        .web = "web",
                        .migrations = "migrations",
                        .openapi = "openapi/openapi.yaml",
                        .docs = "docs",
                        .metrics_allow = "127.0.0.0/8,::1,10.0.0.0/8,172.16.0.0/12,"
                                         "192.168.0.0/16,fc00::/7"};
    static struct quotas quotas;
    http_policy_defaults(&o.policy);
    int usage = read_options(&o, &quotas, argc, argv);
    if (usage)
        return usage == SERVE_HELP ? 0 : usage;
    /* Blocked in every thread (each inherits the mask): the main thread takes SIGINT and
     * SIGTERM with sigwait(), so none is missed; SIGPIPE is never wanted. */
    sigset_t stop_signals, blocked;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    blocked = stop_signals;
    sigaddset(&blocked, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &blocked, NULL);
    char policy_err[256];
    if (!http_cors_from_env(&o.policy, policy_err, sizeof policy_err))
        return usage_error(policy_err);

    if (!cli_load_cards(o.cards))
        return 1;
    char err[512];
    struct store *st = store_open(o.database, o.workers, err, sizeof err);
    if (!st) {
        fprintf(stderr, "cityd serve: %s\n", err);
        return 1;
    }
    /* Wait for the database at start-up (it may still be starting), then migrate. */
    int mig = STORE_UNAVAILABLE;
    for (int tries = 0; tries < 60 && mig == STORE_UNAVAILABLE; tries++) {
        mig = store_migrate(st, o.migrations, err, sizeof err);
        if (mig == STORE_UNAVAILABLE)
            sleep(1);
    }
    if (mig != STORE_OK) {
        fprintf(stderr, "cityd serve: migrations failed: %s\n", err);
        store_close(st);
        return 1;
    }
    struct server srv = {.store = st,
                         .web_dir = o.web,
                         .openapi_path = o.openapi,
                         .docs_dir = o.docs,
                         .allow_seed = o.allow_seed,
                         .max_events_page = 500,
                         .policy = o.policy,
                         .quotas = &quotas,
                         .metrics_token = getenv("CITY_METRICS_TOKEN")};
    if (strcmp(o.metrics_allow, "none") != 0)
        netaddr_blocks_parse(o.metrics_allow, &srv.metrics_allow); /* read_options checked it */
    for (int i = 0; rulesets[i] && i < SERVER_MAX_RULESETS; i++) {
        json_t *cj = rulesets[i]->cards_json();
        srv.cards_json[i] = json_dumps(cj, JSON_COMPACT);
        json_decref(cj);
    }
    srv.views = view_cache_new((size_t)o.view_cache);
    srv.seats = view_cache_new((size_t)o.view_cache);
    view_cache_set_enabled(srv.seats, true); /* versioned: a load compares seats_version */
    srv.states = view_cache_new((size_t)o.view_cache / 4);
    view_cache_set_enabled(srv.states, true); /* keyed by version: never wrong, at worst unused */
    srv.lobby = lobby_cache_new(o.lobby_cache_ms);
    srv.hub = hub_start(o.database, srv.views, srv.lobby,
                        (struct hub_limits){.max_streams = o.max_streams,
                                            .max_streams_per_game = o.max_per_game,
                                            .max_streams_per_address = o.max_streams_per_address,
                                            .keepalive_ms = service_stream_tick_ms(&quotas)});
    bool quotas_ok = quotas_start(&quotas);

    /* A quarter of the pool writes orders in shared transactions; the rest serves reads and
     * the other writes. */
    srv.batcher = batcher_start(&srv,
                                o.batchers          ? o.batchers
                                : o.workers / 4 > 0 ? o.workers / 4
                                                    : 1,
                                32);
    srv.expert_ms = o.expert_ms;
    srv.bots = bot_pool_start(&srv, o.bot_workers, o.bot_queue, o.expert_ms, o.bot_yield_ms,
                              http_requests_busy, o.bot_nice);
    srv.wake_bots = srv.bots ? bot_pool_wake : NULL;
    srv.hashes = hash_crew_start(quotas.hash_threads);
    bool presence_ok = service_presence_start(&srv);
    struct http_settings hs = {.port = o.port,
                               .threads = o.threads,
                               .idle_timeout = o.timeout,
                               .head_timeout = o.head_timeout,
                               .max_connections = o.max_connections,
                               .max_per_address = o.max_per_address,
                               .headroom = o.headroom,
                               .trusted_proxies = o.proxies};
    /* HTTP last: a request may come the moment it listens. */
    bool ready = quotas_ok && srv.hub && srv.views && srv.seats && srv.states && srv.batcher &&
                 srv.bots && srv.hashes && presence_ok;
    struct http_daemon *d = ready ? http_start(&srv, &hs) : NULL;
    if (!d) {
        service_presence_stop(&srv);
        hub_stop(srv.hub);
        bot_pool_stop(srv.bots);
        hash_crew_stop(srv.hashes);
        batcher_stop(srv.batcher);
        hub_free(srv.hub);
        view_cache_free(srv.views);
        view_cache_free(srv.seats);
        view_cache_free(srv.states);
        lobby_cache_free(srv.lobby);
        store_close(st);
        for (int i = 0; i < SERVER_MAX_RULESETS; i++)
            free(srv.cards_json[i]);
        quotas_stop(&quotas);
        return 1;
    }
    struct sweeper sw = {.srv = &srv};
    pthread_create(&sw.thread, NULL, sweep_main, &sw);
    printf("cityd: serving http://localhost:%d (database ready, %d database connections, %d "
           "threads, at most %d connections)\n",
           o.port, o.workers, o.threads, http_max_connections(d));
    fflush(stdout);
    int sig;
    sigwait(&stop_signals, &sig);
    sweep_stop();
    printf("cityd: stopping\n");
    fflush(stdout);
    pthread_join(sw.thread, NULL);
    hub_stop(srv.hub);       /* streams end */
    http_stop(d, 5);         /* parked orders are answered, then connections close */
    bot_pool_stop(srv.bots); /* each worker finishes the decision it is on */
    hash_crew_stop(srv.hashes);
    batcher_stop(srv.batcher);
    service_presence_stop(&srv); /* after every caller of service_seen; what is queued is written */
    hub_free(srv.hub);
    srv.hub = NULL;
    view_cache_free(srv.views);
    view_cache_free(srv.seats);
    view_cache_free(srv.states);
    lobby_cache_free(srv.lobby);
    store_close(st);
    for (int i = 0; i < SERVER_MAX_RULESETS; i++)
        free(srv.cards_json[i]);
    quotas_stop(&quotas);
    return 0;
}
