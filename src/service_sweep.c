/* service_sweep.c: the sweeper (service_sweep() in service.h): overdue steps forced, slow bots
 * that waited too long handed to this instance's pool, open games expired, started games nobody
 * moves abandoned, ended games deleted after their retention, and expired sessions deleted. */
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accesslog.h"
#include "auth.h"
#include "lobbycache.h"
#include "hub.h"
#include "live.h"
#include "metrics.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_accounts.h"

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

/* The most expired sessions one lifecycle round deletes. */
enum { SESSIONS_PURGED_MAX = 1000 };

struct lifecycle_ctx {
    const struct quotas *q;
    bool idle_round; /* look for idle started games this time */
    int expired, purged, abandoned;
    int sessions; /* expired sessions deleted */
    char expired_ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    long long seqs[STORE_MAX_GAMES_LOADED];
    char purged_ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    char abandoned_ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    long long abandoned_seqs[STORE_MAX_GAMES_LOADED];
    char abandoned_seats[STORE_MAX_GAMES_LOADED][STORE_SEATS_TEXT];
};

/* Folds the changes of status into the games' counts, expires open games past the open TTL,
 * abandons started games idle past the idle limit (on an idle round) and deletes games past
 * the retention, a batch of each; every instance hears of all three (NOTIFY), so that none
 * serves a cached view of them. Then deletes a batch of expired sessions. */
static int lifecycle_tx(PGconn *c, void *ctx)
{
    struct lifecycle_ctx *lc = ctx;
    lc->expired = lc->purged = lc->abandoned = lc->sessions = 0;
    /* The changes of status since the last round into the games' counts (/metrics). */
    int st = store_game_counts_fold(c);
    if (st == STORE_OK && lc->q->open_ttl > 0)
        st = store_expire_open(c, lc->q->open_ttl, STORE_MAX_GAMES_LOADED, lc->expired_ids,
                               lc->seqs, &lc->expired);
    for (int i = 0; i < lc->expired && st == STORE_OK; i++)
        st = store_notify(c, lc->expired_ids[i], lc->seqs[i]);
    if (st == STORE_OK && lc->idle_round)
        st = store_abandon_idle(c, lc->q->idle_game_seconds, STORE_MAX_GAMES_LOADED,
                                lc->abandoned_ids, lc->abandoned_seqs, lc->abandoned_seats,
                                &lc->abandoned);
    for (int i = 0; i < lc->abandoned && st == STORE_OK; i++)
        st = store_notify(c, lc->abandoned_ids[i], lc->abandoned_seqs[i]);
    if (st == STORE_OK && lc->q->retention > 0)
        st = store_purge_ended(c, lc->q->retention, STORE_MAX_GAMES_LOADED, lc->purged_ids,
                               &lc->purged);
    for (int i = 0; i < lc->purged && st == STORE_OK; i++)
        st = store_notify(c, lc->purged_ids[i], 0);
    if (st == STORE_OK && lc->expired + lc->abandoned + lc->purged > 0)
        st = store_notify_lobby(c);
    /* Sessions past their expiry, which an account's next sign-in would delete too. */
    if (st == STORE_OK)
        st = store_sessions_purge(c, SESSIONS_PURGED_MAX, &lc->sessions);
    return st;
}

/* The seconds between two looks for idle started games: an eighth of the idle limit, from 1 to
 * 60 (the look walks the playing games older than the limit, so it is not made every second
 * on a server whose limit is days). */
static double idle_period(int idle_seconds)
{
    double p = idle_seconds / 8.0;
    return p < 1 ? 1 : p > 60 ? 60 : p;
}

/* One line on stderr for each abandoned game, naming its seats (their names escaped: a name
 * cannot forge a line), so that an operator can tell its people. */
static void log_abandoned(const struct lifecycle_ctx *lc)
{
    for (int i = 0; i < lc->abandoned; i++) {
        char seats[STORE_SEATS_TEXT * 2];
        access_log_escape(seats, sizeof seats, lc->abandoned_seats[i]);
        fprintf(stderr,
                "cityd: game %s abandoned: no order or decision for %d seconds; its seats "
                "(seat:name, /bot): %s\n",
                lc->abandoned_ids[i], lc->q->idle_game_seconds, seats[0] ? seats : "-");
    }
    if (lc->abandoned > 0)
        fflush(stderr);
}

/* The lifecycle round when its time has come (once a second, or at once while the last one
 * found a full batch; idle started games every idle_period()); returns the games expired,
 * abandoned and deleted. */
static int sweep_lifecycle(struct server *srv)
{
    static double next, next_idle;
    const struct quotas *q = srv->quotas;
    if (!q) /* expired sessions are deleted whatever the games' limits */
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
    lc->idle_round = q->idle_game_seconds > 0 && now >= next_idle;
    int done = 0;
    if (store_tx(srv->store, lifecycle_tx, lc, STORE_TRIES_READ) == STORE_OK) {
        for (int i = 0; i < lc->expired; i++)
            hub_publish(srv->hub, lc->expired_ids[i], lc->seqs[i]);
        for (int i = 0; i < lc->abandoned; i++)
            hub_publish(srv->hub, lc->abandoned_ids[i], lc->abandoned_seqs[i]);
        for (int i = 0; i < lc->purged; i++)
            hub_publish(srv->hub, lc->purged_ids[i], 0);
        if (lc->expired + lc->abandoned + lc->purged > 0)
            lobby_cache_changed(srv->lobby);
        log_abandoned(lc);
        metrics_games_ended(lc->expired, lc->purged);
        metrics_games_abandoned(lc->abandoned);
        done = lc->expired + lc->abandoned + lc->purged;
        if (lc->idle_round && lc->abandoned < STORE_MAX_GAMES_LOADED)
            next_idle = now + idle_period(q->idle_game_seconds);
    }
    bool full = lc->expired == STORE_MAX_GAMES_LOADED || lc->purged == STORE_MAX_GAMES_LOADED ||
                lc->abandoned == STORE_MAX_GAMES_LOADED || lc->sessions == SESSIONS_PURGED_MAX;
    next = full ? now : now + 1;
    free(lc);
    return done;
}

struct stale_ctx {
    char ids[STORE_MAX_GAMES_LOADED][AUTH_ID_LEN + 1];
    bool people[STORE_MAX_GAMES_LOADED];
    uint64_t who[STORE_MAX_GAMES_LOADED];
    int n;
};

static int stale_tx(PGconn *c, void *ctx)
{
    struct stale_ctx *sc = ctx;
    return store_bots_stale(c, BOTS_STALE_SECONDS, STORE_MAX_GAMES_LOADED, sc->ids, sc->people,
                            sc->who, &sc->n);
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
            srv->wake_bots(srv->bots, sc->ids[i], sc->people[i] ? BOT_NEED_PEOPLE : BOT_NEED_ALONE,
                           sc->who[i]);
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
