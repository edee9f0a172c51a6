/* service_sweep.c: the sweeper (service_sweep() in service.h): overdue steps forced, slow bots
 * that waited too long handed to this instance's pool, open games expired and ended games
 * deleted after their retention. */
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "hub.h"
#include "live.h"
#include "metrics.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"

struct sweep_ctx {
    struct server *srv;
    int max, done;
    int nlate;
    double late[STORE_MAX_GAMES_LOADED]; /* seconds past the deadline of each forced game */
};

static int by_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sweep_tx(PGconn *c, void *ctx)
{
    struct sweep_ctx *sw = ctx;
    char ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    int n = 0;
    sw->done = sw->nlate = 0;
    int st = store_overdue_games(c, ids, sw->max, &n);
    if (st != STORE_OK || n == 0)
        return st;
    const char *sorted[STORE_MAX_GAMES_LOADED];
    for (int i = 0; i < n; i++)
        sorted[i] = ids[i];
    qsort(sorted, (size_t)n, sizeof *sorted, by_id); /* the lock order of live_load_many */
    struct live *lvs = calloc((size_t)n, sizeof *lvs);
    int found[STORE_MAX_GAMES_LOADED];
    if (!lvs)
        return STORE_HARD;
    st = live_load_many(c, sw->srv, n, sorted, lvs, found);
    double now = wall_seconds();
    for (int i = 0; i < n && st == STORE_OK; i++) {
        struct live *lv = &lvs[i];
        if (found[i] != STORE_OK || !lv->row.overdue || lv->rs->over(lv->g))
            continue;
        double late = lv->row.deadline > 0 && now > lv->row.deadline ? now - lv->row.deadline : 0;
        st = live_advance(c, lv, true);
        if (st == STORE_OK)
            st = live_save(c, lv);
        if (st == STORE_OK && lv->resolved > 0) {
            sw->done += lv->resolved;
            sw->late[sw->nlate++] = late;
        }
    }
    for (int i = 0; i < n; i++)
        live_free(&lvs[i]);
    free(lvs);
    return st;
}

/* How long a slow bot's decision may wait before another instance takes the game up. */
enum { BOTS_STALE_SECONDS = 4 };

struct lifecycle_ctx {
    const struct quotas *q;
    int expired, purged;
    char expired_ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    long long seqs[STORE_MAX_GAMES_LOADED];
    char purged_ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
};

/* Expires open games past the open TTL and deletes games past the retention, a batch of each;
 * every instance hears of both (NOTIFY), so that none serves a cached view of them. */
static int lifecycle_tx(PGconn *c, void *ctx)
{
    struct lifecycle_ctx *lc = ctx;
    lc->expired = lc->purged = 0;
    int st = STORE_OK;
    if (lc->q->open_ttl > 0)
        st = store_expire_open(c, lc->q->open_ttl, STORE_MAX_GAMES_LOADED, lc->expired_ids,
                               lc->seqs, &lc->expired);
    for (int i = 0; i < lc->expired && st == STORE_OK; i++)
        st = store_notify(c, lc->expired_ids[i], lc->seqs[i]);
    if (st == STORE_OK && lc->q->retention > 0)
        st = store_purge_ended(c, lc->q->retention, STORE_MAX_GAMES_LOADED, lc->purged_ids,
                               &lc->purged);
    for (int i = 0; i < lc->purged && st == STORE_OK; i++)
        st = store_notify(c, lc->purged_ids[i], 0);
    return st;
}

/* The lifecycle round when its time has come (once a second, or at once while the last one
 * found a full batch); returns the games expired and deleted. */
static int sweep_lifecycle(struct server *srv)
{
    static double next;
    const struct quotas *q = srv->quotas;
    if (!q || (q->open_ttl <= 0 && q->retention <= 0))
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    if (now < next)
        return 0;
    struct lifecycle_ctx *lc = calloc(1, sizeof *lc);
    if (!lc)
        return 0;
    lc->q = q;
    int done = 0;
    if (store_tx(srv->store, lifecycle_tx, lc, STORE_TRIES_READ) == STORE_OK) {
        for (int i = 0; i < lc->expired; i++)
            hub_publish(srv->hub, lc->expired_ids[i], lc->seqs[i]);
        for (int i = 0; i < lc->purged; i++)
            hub_publish(srv->hub, lc->purged_ids[i], 0);
        metrics_games_ended(lc->expired, lc->purged);
        done = lc->expired + lc->purged;
    }
    bool full = lc->expired == STORE_MAX_GAMES_LOADED || lc->purged == STORE_MAX_GAMES_LOADED;
    next = full ? now : now + 1;
    free(lc);
    return done;
}

struct stale_ctx {
    char ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    bool people[STORE_MAX_GAMES_LOADED];
    int n;
};

static int stale_tx(PGconn *c, void *ctx)
{
    struct stale_ctx *sc = ctx;
    return store_bots_stale(c, BOTS_STALE_SECONDS, STORE_MAX_GAMES_LOADED, sc->ids, sc->people,
                            &sc->n);
}

/* Once every few seconds: games whose slow bots have waited too long for a worker (the daemon
 * that queued them died, or its queue was full) go to this instance's bot pool. */
static void sweep_stale_bots(struct server *srv)
{
    static double next;
    if (!srv->bots)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    if (now < next)
        return;
    next = now + BOTS_STALE_SECONDS / 2.0;
    struct stale_ctx *sc = calloc(1, sizeof *sc);
    if (sc && srv->wake_bots && store_run(srv->store, stale_tx, sc) == STORE_OK)
        for (int i = 0; i < sc->n; i++)
            srv->wake_bots(srv->bots, sc->ids[i], sc->people[i]);
    free(sc);
}

int service_sweep(struct server *srv, int max)
{
    sweep_stale_bots(srv);
    struct sweep_ctx sw = {srv,
                           max < 1                        ? 1
                           : max > STORE_MAX_GAMES_LOADED ? STORE_MAX_GAMES_LOADED
                                                          : max,
                           0,
                           0,
                           {0}};
    int st = store_tx(srv->store, sweep_tx, &sw, STORE_TRIES_READ);
    int done = 0;
    if (st == STORE_OK) {
        metrics_steps_resolved(sw.done);
        for (int i = 0; i < sw.nlate; i++)
            metrics_sweeper_lateness(sw.late[i]);
        done = sw.done;
    }
    return done + sweep_lifecycle(srv);
}
