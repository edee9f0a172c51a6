/* serve.c: `cityd serve`: reads flags and environment, migrates the database, starts the
 * HTTP daemon, the event hub and the sweeper, and stops them cleanly on SIGINT or SIGTERM. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "catalog_json.h"
#include "cli.h"
#include "hub.h"
#include "ratelimit.h"
#include "server.h"
#include "service.h"
#include "store.h"
#include "viewcache.h"

struct options {
    int port, workers, timeout, view_cache, batchers;
    const char *database, *web, *cards, *migrations, *openapi;
    bool allow_seed;
};

static int usage_error(const char *what)
{
    fprintf(stderr,
            "cityd serve: %s\n"
            "usage: cityd serve [--port N] [--database URL] [--web DIR] [--cards FILE]\n"
            "                   [--migrations DIR] [--openapi FILE] [--workers N]\n"
            "                   [--timeout SECONDS] [--view-cache GAMES] [--allow-seed]\n"
            "environment: PORT, DATABASE_URL, CITY_WEB, CITY_CARDS, CITY_WORKERS,\n"
            "             CITY_VIEW_CACHE, CITY_BATCHERS\n%s",
            what, quotas_usage);
    return 2;
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

static volatile sig_atomic_t stopping;
static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

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
            struct timespec ts = {0, 500 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

int cmd_serve(int argc, char **argv)
{
    struct options o = {.port = 8080,
                        .workers = 16,
                        .timeout = 30,
                        .view_cache = 10000,
                        .web = "web",
                        .migrations = "migrations",
                        .openapi = "openapi/openapi.yaml"};
    const char *env;
    if ((env = getenv("PORT")) && !parse_int(env, 0, 65535, &o.port))
        return usage_error("PORT must be a port number");
    if ((env = getenv("CITY_WORKERS")) && !parse_int(env, 1, 512, &o.workers))
        return usage_error("CITY_WORKERS must be 1..512");
    if ((env = getenv("CITY_VIEW_CACHE")) && !parse_int(env, 0, 10000000, &o.view_cache))
        return usage_error("CITY_VIEW_CACHE must be 0..10000000 games");
    if ((env = getenv("CITY_BATCHERS")) && !parse_int(env, 1, 256, &o.batchers))
        return usage_error("CITY_BATCHERS must be 1..256 threads");
    static struct quotas quotas;
    char qerr[256];
    if (!quotas_from_env(&quotas, qerr, sizeof qerr))
        return usage_error(qerr);
    o.database = getenv("DATABASE_URL");
    if ((env = getenv("CITY_WEB")))
        o.web = env;
    o.cards = getenv("CITY_CARDS");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--allow-seed") == 0) {
            o.allow_seed = true;
            continue;
        }
        static const char *const takes_value[] = {
            "--port",  "--workers",    "--timeout", "--database",   "--web",
            "--cards", "--migrations", "--openapi", "--view-cache", NULL};
        bool known = false;
        for (const char *const *k = takes_value; *k; k++)
            known = known || strcmp(a, *k) == 0;
        int q = known ? 0 : quotas_flag(&quotas, a, v, qerr, sizeof qerr);
        if (q < 0)
            return usage_error(qerr);
        if (q > 0) {
            i++;
            continue;
        }
        if (!known)
            return usage_error("unknown option");
        if (!v)
            return usage_error("an option lacks its value");
        if (strcmp(a, "--port") == 0) {
            if (!parse_int(v, 0, 65535, &o.port))
                return usage_error("--port must be 0..65535");
        } else if (strcmp(a, "--workers") == 0) {
            if (!parse_int(v, 1, 512, &o.workers))
                return usage_error("--workers must be 1..512");
        } else if (strcmp(a, "--timeout") == 0) {
            if (!parse_int(v, 1, 3600, &o.timeout))
                return usage_error("--timeout must be 1..3600 seconds");
        } else if (strcmp(a, "--view-cache") == 0) {
            if (!parse_int(v, 0, 10000000, &o.view_cache))
                return usage_error("--view-cache must be 0..10000000 games");
        } else if (strcmp(a, "--database") == 0) {
            o.database = v;
        } else if (strcmp(a, "--web") == 0) {
            o.web = v;
        } else if (strcmp(a, "--cards") == 0) {
            o.cards = v;
        } else if (strcmp(a, "--migrations") == 0) {
            o.migrations = v;
        } else if (strcmp(a, "--openapi") == 0) {
            o.openapi = v;
        } else {
            return usage_error("unknown option");
        }
        i++;
    }
    if (!o.database)
        return usage_error("no database: pass --database URL or set DATABASE_URL");

    static struct city_catalog cat;
    if (!cli_load_catalog(&cat, o.cards))
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
    json_t *cj = catalog_to_json(&cat);
    struct server srv = {.cat = &cat,
                         .store = st,
                         .cards_json = json_dumps(cj, JSON_COMPACT),
                         .web_dir = o.web,
                         .openapi_path = o.openapi,
                         .allow_seed = o.allow_seed,
                         .max_events_page = 500,
                         .quotas = &quotas};
    json_decref(cj);
    srv.views = view_cache_new((size_t)o.view_cache);
    srv.seats = view_cache_new((size_t)o.view_cache);
    view_cache_set_enabled(srv.seats, true); /* immutable entries: no news can make them old */
    srv.states = view_cache_new((size_t)o.view_cache / 4);
    view_cache_set_enabled(srv.states, true); /* keyed by version: never wrong, at worst unused */
    srv.hub = hub_start(o.database, srv.views);
    bool quotas_ok = quotas_start(&quotas);

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    /* A quarter of the pool writes orders in shared transactions; the rest serves reads and
     * the other writes. */
    srv.batcher = batcher_start(&srv,
                                o.batchers          ? o.batchers
                                : o.workers / 4 > 0 ? o.workers / 4
                                                    : 1,
                                32);
    struct MHD_Daemon *d = http_start(&srv, o.port, o.timeout);
    if (!d || !quotas_ok || !srv.hub || !srv.views || !srv.seats || !srv.states || !srv.batcher) {
        if (d)
            MHD_stop_daemon(d);
        batcher_stop(srv.batcher);
        hub_stop(srv.hub);
        view_cache_free(srv.views);
        view_cache_free(srv.seats);
        view_cache_free(srv.states);
        store_close(st);
        free(srv.cards_json);
        quotas_stop(&quotas);
        return 1;
    }
    struct sweeper sw = {.srv = &srv};
    pthread_create(&sw.thread, NULL, sweep_main, &sw);
    printf("cityd: serving http://localhost:%d (database ready, %d connections)\n", o.port,
           o.workers);
    fflush(stdout);
    while (!stopping)
        pause();
    printf("cityd: stopping\n");
    fflush(stdout);
    pthread_join(sw.thread, NULL);
    hub_stop(srv.hub);
    srv.hub = NULL;
    MHD_stop_daemon(d);
    batcher_stop(srv.batcher);
    view_cache_free(srv.views);
    view_cache_free(srv.seats);
    view_cache_free(srv.states);
    store_close(st);
    free(srv.cards_json);
    quotas_stop(&quotas);
    return 0;
}
