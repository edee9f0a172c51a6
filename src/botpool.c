/* botpool.c: the bot workers (see botpool.h): a bounded queue of game ids (games with people
 * first), threads that read a game, think with nothing held (pausing for people's requests), and
 * submit in a transaction that checks the point is still the one they thought about. */
#include "botpool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "expert.h"
#include "expert_levels.h"
#include "hub.h"
#include "metrics.h"
#include "server.h"
#include "live.h"
#include "store.h"
#include "workers.h"

enum { POOL_MAX_WORKERS = 64 };

struct bot_pool {
    struct server *srv;
    struct workers crew; /* its mutex guards the queue and the stats; its wake: ids queued */
    double think_ms;
    double yield_ms;          /* the most a decision pauses for people's requests */
    int (*people_busy)(void); /* requests being served now */
    /* The queue: two rings of ids, games with a person seated (served first) and games of bots
     * alone, `cap` ids in all; an id is queued at most once (looked up linearly: the queue is
     * short while the workers keep up, and bounded when they do not). */
    struct ring {
        char (*ids)[AUTH_ID_LEN + 1];
        int head, count;
    } q[2];
    int cap;
    struct bot_pool_stats stats;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Where id is in ring r (0 for its head), or -1. */
static int ring_find(const struct bot_pool *p, const struct ring *r, const char *id)
{
    for (int i = 0; i < r->count; i++)
        if (strcmp(r->ids[(r->head + i) % p->cap], id) == 0)
            return i;
    return -1;
}

/* Takes the id at position i out of ring r, keeping the others' order. */
static void ring_remove(const struct bot_pool *p, struct ring *r, int i)
{
    for (; i + 1 < r->count; i++)
        memcpy(r->ids[(r->head + i) % p->cap], r->ids[(r->head + i + 1) % p->cap], sizeof *r->ids);
    r->count--;
}

void bot_pool_wake(struct bot_pool *p, const char *id, bool people)
{
    if (!p || strlen(id) > AUTH_ID_LEN)
        return;
    pthread_mutex_lock(&p->crew.mu);
    struct ring *r = &p->q[people ? 0 : 1], *other = &p->q[people ? 1 : 0];
    int at = ring_find(p, other, id);
    if (at >= 0) /* queued in the other class (its last person left): it changes class */
        ring_remove(p, other, at);
    if (ring_find(p, r, id) >= 0) {
        /* queued already */
    } else if (p->q[0].count + p->q[1].count >= p->cap) {
        p->stats.dropped++;
    } else {
        strcpy(r->ids[(r->head + r->count) % p->cap], id);
        r->count++;
        pthread_cond_signal(&p->crew.wake);
    }
    pthread_mutex_unlock(&p->crew.mu);
}

/* One game's turn on a worker: the seats its slow bots must decide for, at one point. */
struct job {
    struct bot_pool *pool;
    char id[AUTH_ID_LEN + 1];
    const struct ruleset *rs;
    void *g; /* the state thought about */
    struct rs_pos pos;
    const struct expert_level *level; /* the game's level (its bot_level) */
    int nseats;
    int seats[RS_MAX_SEATS];
    char kinds[RS_MAX_SEATS][16];
    void *d[RS_MAX_SEATS]; /* the decisions */
    int applied, stale, resolved;
};

/* Reads the game and the seats whose slow bots must decide. The row is locked for the read, so
 * that a wake-up queued by a transaction still committing waits for its commit. */
static int read_tx(PGconn *c, void *ctx)
{
    struct job *j = ctx;
    struct live lv;
    int st = live_load(c, j->pool->srv, j->id, true, &lv);
    j->nseats = 0;
    if (st == STORE_OK && strcmp(lv.row.status, "playing") == 0 && !lv.rs->over(lv.g)) {
        j->rs = lv.rs;
        j->g = malloc(lv.rs->state_size);
        if (!j->g) {
            live_free(&lv);
            return STORE_HARD;
        }
        memcpy(j->g, lv.g, lv.rs->state_size);
        lv.rs->where(lv.g, &j->pos);
        j->level = expert_level_find(lv.row.bot_level);
        if (!j->level) /* a level this build does not know (a newer instance's): the top one */
            j->level = expert_level_find(EXPERT_LEVEL_DEFAULT);
        for (int i = 0; i < lv.nseats; i++) {
            int s = lv.seats[i].seat;
            if (expert_is_slow_bot(lv.seats[i].bot) && lv.rs->pending(lv.g, s) &&
                !lv.rs->submitted(lv.g, s)) {
                j->seats[j->nseats] = s;
                strcpy(j->kinds[j->nseats], lv.seats[i].bot);
                j->nseats++;
            }
        }
    }
    live_free(&lv);
    return st == STORE_NO_ROW ? STORE_OK : st;
}

/* Submits the decisions if the game is still at the point they answer and each seat is still a
 * slow bot's with nothing sent; then lets the game run on as after any order. */
static int apply_tx(PGconn *c, void *ctx)
{
    struct job *j = ctx;
    struct live lv;
    int st = live_load(c, j->pool->srv, j->id, true, &lv);
    j->applied = j->stale = j->resolved = 0;
    if (st == STORE_NO_ROW)
        return STORE_OK;
    struct rs_pos now = {0};
    if (st == STORE_OK && lv.rs == j->rs && !lv.rs->over(lv.g))
        lv.rs->where(lv.g, &now);
    bool same = st == STORE_OK && lv.rs == j->rs && !lv.rs->over(lv.g) &&
                now.round == j->pos.round && now.step == j->pos.step && now.turn == j->pos.turn;
    for (int k = 0; st == STORE_OK && k < j->nseats; k++) {
        int s = j->seats[k];
        bool still = same && s < lv.nseats && expert_is_slow_bot(lv.seats[s].bot) &&
                     lv.rs->pending(lv.g, s) && !lv.rs->submitted(lv.g, s);
        if (still && lv.rs->submit(lv.g, s, j->d[k]) == 0) {
            j->applied++;
            lv.changed = true;
        } else {
            j->stale++;
        }
    }
    if (st == STORE_OK && j->applied > 0)
        st = live_advance(c, &lv, false);
    if (st == STORE_OK && j->applied > 0)
        st = live_save(c, &lv);
    j->resolved = lv.resolved;
    live_free(&lv);
    return st;
}

/* A decision's pauses for people (expert_params.yield): when it began and how long it has
 * paused, in ms. */
struct yielding {
    struct bot_pool *pool;
    double began, paused;
};

/* Waits, 1 ms at a time, while the process serves a request, for as long as the decision may
 * still pause: the pool's yield_ms in all, and never more than half the time it has thought so
 * far, so that a flood of requests (each cheap, but one always in progress) slows a decision
 * by at most half its thinking time instead of stalling it; not once the pool is stopping.
 * Returns the ms waited. */
static double yield_to_people(void *ctx)
{
    struct yielding *y = ctx;
    if (y->pool->people_busy() == 0)
        return 0;
    double t0 = now_ms();
    double thought = t0 - y->began - y->paused;
    double may = y->pool->yield_ms - y->paused;
    if (thought / 2 - y->paused < may)
        may = thought / 2 - y->paused;
    double waited = 0;
    while (waited < may && y->pool->people_busy() > 0 && !atomic_load(&y->pool->crew.stop)) {
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
        waited = now_ms() - t0;
    }
    y->paused += waited;
    return waited;
}

static void run_job(struct bot_pool *p, struct job *j)
{
    struct server *srv = p->srv;
    if (store_tx(srv->store, read_tx, j, STORE_TRIES_READ) != STORE_OK || j->nseats == 0) {
        free(j->g);
        return;
    }
    struct expert_params params = expert_level_params(j->level, p->think_ms);
    params.yield = yield_to_people;
    double ms[RS_MAX_SEATS], yielded = 0;
    int n = 0;
    for (int k = 0; k < j->nseats; k++) {
        j->d[k] = calloc(1, j->rs->decision_size);
        struct yielding y = {.pool = p, .began = now_ms()};
        struct expert_stats es = {0};
        params.yield_ctx = &y;
        bool ok = j->d[k] && expert_decide(j->rs, j->g, j->seats[k], &params, j->d[k], &es);
        ms[k] = es.ms;
        yielded += es.yield_ms;
        if (!ok) {
            free(j->d[k]);
            j->d[k] = NULL;
            break;
        }
        n++;
    }
    j->nseats = n;
    int st = n > 0 ? store_tx(srv->store, apply_tx, j, STORE_TRIES_WRITE) : STORE_HARD;
    if (st == STORE_OK && j->applied > 0) {
        metrics_steps_resolved(j->resolved);
        hub_publish(srv->hub, j->id, 0);
    }
    pthread_mutex_lock(&p->crew.mu);
    static const double le[6] = {10, 25, 50, 100, 200, 500};
    ptrdiff_t level = j->level ? j->level - expert_levels : -1;
    if (level >= 0 && level < EXPERT_LEVELS_MAX)
        p->stats.by_level[level] += (uint64_t)n;
    p->stats.yield_ms += yielded;
    for (int k = 0; k < n; k++) {
        p->stats.thought++;
        p->stats.ms_sum += ms[k];
        for (int b = 0; b < 6; b++)
            p->stats.le_ms[b] += ms[k] <= le[b];
    }
    if (st == STORE_OK) {
        p->stats.decisions += (uint64_t)j->applied;
        p->stats.stale += (uint64_t)j->stale;
    }
    pthread_mutex_unlock(&p->crew.mu);
    for (int k = 0; k < n; k++)
        free(j->d[k]);
    free(j->g);
}

static void *worker_main(void *arg)
{
    struct bot_pool *p = arg;
    /* Within the daemon, a request's thread then takes a core from a thinking worker at once
     * (if the kernel refuses, the worker just keeps the default policy). */
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &(struct sched_param){0});
    pthread_mutex_lock(&p->crew.mu);
    while (!p->crew.stop) {
        struct ring *r = p->q[0].count > 0 ? &p->q[0] : &p->q[1];
        if (r->count == 0) {
            pthread_cond_wait(&p->crew.wake, &p->crew.mu);
            continue;
        }
        struct job j = {.pool = p};
        strcpy(j.id, r->ids[r->head]);
        r->head = (r->head + 1) % p->cap;
        r->count--;
        p->stats.thinking++;
        pthread_mutex_unlock(&p->crew.mu);
        run_job(p, &j);
        pthread_mutex_lock(&p->crew.mu);
        p->stats.thinking--;
    }
    pthread_mutex_unlock(&p->crew.mu);
    return NULL;
}

struct bot_pool *bot_pool_start(struct server *srv, int workers, int queue_cap, double think_ms,
                                double yield_ms, int (*people_busy)(void))
{
    struct bot_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->srv = srv;
    p->cap = queue_cap > 0 ? queue_cap : 1;
    p->think_ms = think_ms;
    p->yield_ms = yield_ms;
    p->people_busy = people_busy;
    p->q[0].ids = calloc((size_t)p->cap, sizeof *p->q[0].ids);
    p->q[1].ids = calloc((size_t)p->cap, sizeof *p->q[1].ids);
    int n = workers < POOL_MAX_WORKERS ? workers : POOL_MAX_WORKERS;
    if (!workers_init(&p->crew, n) || !p->q[0].ids || !p->q[1].ids ||
        workers_start(&p->crew, n, worker_main, p) == 0) {
        bot_pool_stop(p);
        return NULL;
    }
    return p;
}

void bot_pool_stop(struct bot_pool *p)
{
    if (!p)
        return;
    workers_stop(&p->crew);
    free(p->q[0].ids);
    free(p->q[1].ids);
    free(p);
}

void bot_pool_stats(struct bot_pool *p, struct bot_pool_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!p)
        return;
    pthread_mutex_lock(&p->crew.mu);
    *out = p->stats;
    out->queued = p->q[0].count + p->q[1].count;
    out->queued_people = p->q[0].count;
    pthread_mutex_unlock(&p->crew.mu);
}
