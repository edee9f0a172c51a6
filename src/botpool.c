/* botpool.c: the bot workers (see botpool.h): a bounded fair queue of game ids and tasks (the
 * greatest need first, then the address served longest ago), threads that read a game, think with
 * nothing held (pausing for people's requests, and taking up outranking work between playouts),
 * and submit in a transaction that checks the point is still the one they thought about. */
#include "botpool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "expert.h"
#include "expert_levels.h"
#include "hub.h"
#include "metrics.h"
#include "server.h"
#include "live.h"
#include "store.h"
#include "workers.h"

enum {
    POOL_MAX_WORKERS = 64,
    SERVED_SLOTS = 256, /* addresses whose last turn the queue remembers (hashed, may collide) */
};

/* One piece of queued work: a game's bots (id set), or a task (run set). */
struct entry {
    char id[AUTH_ID_LEN + 1];
    void (*run)(void *ctx, const struct expert_params *params);
    void *ctx;
    enum bot_need need;
    uint64_t who; /* the address it is for (netaddr_key_hash), 0: none */
    uint64_t seq; /* when it was queued */
};

struct bot_pool {
    struct server *srv;
    struct workers crew; /* its mutex guards the queue, the counts and the stats; its wake: work */
    double think_ms;
    double yield_ms;          /* the most a decision pauses for people's requests */
    int (*people_busy)(void); /* requests being served now */
    int nice;                 /* a worker's nice for games of bots alone; 0: SCHED_IDLE instead */
    atomic_int people_nice;   /* its nice for work people wait on: 0, or `nice` when it cannot
                                 raise its priority back (told once in the log) */
    /* The queue, in no order (picked by need, address turn and seq; looked up linearly: it is
     * short while the workers keep up, and bounded when they do not): at most `cap` games and
     * BOT_POOL_MAX_TASKS tasks. */
    struct entry *q;
    int n, games, tasks, cap;
    uint64_t seq;
    /* When each address last got a worker (the turn counter `turns`), by who % SERVED_SLOTS. */
    struct {
        uint64_t who, turn;
    } served[SERVED_SLOTS];
    uint64_t turns;
    int workers, idle;
    int running[SERVED_SLOTS]; /* work being thought about now, by who % SERVED_SLOTS */
    struct bot_pool_stats stats;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The turn at which address `who` was last served (0: not lately). Under the mutex. */
static uint64_t served_turn(const struct bot_pool *p, uint64_t who)
{
    size_t k = who % SERVED_SLOTS;
    return p->served[k].who == who ? p->served[k].turn : 0;
}

/* Whether a ranks ahead of b: work people wait for before games of bots alone; then the
 * address served longest ago (so that an address cannot claim the front by always having a
 * person waiting); then the greater need; then the one queued first. Under the mutex. */
static bool ahead(const struct bot_pool *p, const struct entry *a, const struct entry *b)
{
    bool a_alone = a->need == BOT_NEED_ALONE, b_alone = b->need == BOT_NEED_ALONE;
    if (a_alone != b_alone)
        return b_alone;
    uint64_t ta = served_turn(p, a->who), tb = served_turn(p, b->who);
    if (ta != tb)
        return ta < tb;
    if (a->need != b->need)
        return a->need < b->need;
    return a->seq < b->seq;
}

/* The queued entry to serve next, or -1. Under the mutex. */
static int pick(const struct bot_pool *p)
{
    int best = -1;
    for (int i = 0; i < p->n; i++)
        if (best < 0 || ahead(p, &p->q[i], &p->q[best]))
            best = i;
    return best;
}

/* Takes entry i out of the queue into *out and gives its address this turn. Under the mutex. */
static void take(struct bot_pool *p, int i, struct entry *out)
{
    *out = p->q[i];
    p->q[i] = p->q[--p->n];
    if (out->run)
        p->tasks--;
    else
        p->games--;
    size_t k = out->who % SERVED_SLOTS;
    p->served[k].who = out->who;
    p->served[k].turn = ++p->turns;
}

/* Adds an entry (room checked by the caller) and wakes a worker. Under the mutex. */
static void put(struct bot_pool *p, const struct entry *e)
{
    p->q[p->n] = *e;
    p->q[p->n].seq = ++p->seq;
    p->n++;
    if (e->run)
        p->tasks++;
    else
        p->games++;
    pthread_cond_signal(&p->crew.wake);
}

void bot_pool_wake(struct bot_pool *p, const char *id, enum bot_need need, uint64_t who)
{
    if (!p || strlen(id) > AUTH_ID_LEN)
        return;
    pthread_mutex_lock(&p->crew.mu);
    int at = -1;
    for (int i = 0; i < p->n && at < 0; i++)
        if (!p->q[i].run && strcmp(p->q[i].id, id) == 0)
            at = i;
    if (at >= 0) { /* queued already: it keeps its place, with the need known last */
        p->q[at].need = need;
    } else if (p->games >= p->cap) {
        p->stats.dropped++;
    } else {
        struct entry e = {.need = need, .who = who};
        strcpy(e.id, id);
        put(p, &e);
    }
    pthread_mutex_unlock(&p->crew.mu);
}

bool bot_pool_task(struct bot_pool *p, void (*run)(void *ctx, const struct expert_params *params),
                   void *ctx, uint64_t who)
{
    if (!p || !run)
        return false;
    pthread_mutex_lock(&p->crew.mu);
    bool ok = !atomic_load(&p->crew.stop) && p->tasks < BOT_POOL_MAX_TASKS;
    if (ok)
        put(p, &(struct entry){.run = run, .ctx = ctx, .need = BOT_NEED_PERSON_WAITS, .who = who});
    pthread_mutex_unlock(&p->crew.mu);
    return ok;
}

/* One game's turn on a worker: the seats its slow bots must decide for, at one point. */
struct job {
    struct bot_pool *pool;
    char id[AUTH_ID_LEN + 1];
    enum bot_need need;
    uint64_t who;
    bool nested; /* taken up between two playouts of another decision */
    const struct ruleset *rs;
    void *g; /* the state thought about */
    struct rs_pos pos;
    const struct expert_level *level; /* the game's level (its bot_level) */
    int nseats;
    int seats[RS_MAX_SEATS];
    char kinds[RS_MAX_SEATS][16];
    void *d[RS_MAX_SEATS]; /* the decisions */
    int applied, stale, resolved;
    bool saved;               /* apply_tx saved the game: its state then in g, its row in row */
    struct game_row row;      /* as apply_tx saved it, without its state */
    uint64_t ticket;          /* live_ticket(), before the commit */
    uint64_t tag;             /* the saved change's echo tag (0: not public news) */
    struct hub_echoes echoes; /* every try's echo tags, until run_job() ends them */
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
    j->saved = false;
    j->tag = 0;
    if (st == STORE_NO_ROW) { /* purged while its bots thought */
        live_free(&lv);
        return STORE_OK;
    }
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
    if (st == STORE_OK && j->applied > 0) {
        lv.echo_tag = hub_echoes_expect(j->pool->srv->hub, &j->echoes, j->id);
        st = live_save(c, &lv);
    }
    if (st == STORE_OK && j->applied > 0) { /* kept for live_committed() */
        memcpy(j->g, lv.g, lv.rs->state_size);
        j->saved = true;
        j->row = lv.row;
        j->row.state = NULL; /* the live's, freed with it */
        j->ticket = live_ticket(j->pool->srv, j->id);
        j->tag = live_public_change(&lv) ? lv.echo_tag : 0;
    }
    j->resolved = lv.resolved;
    live_free(&lv);
    return st;
}

/* A decision's pauses (expert_params.yield): what it is for, when it began and how long it has
 * paused for people's requests, in ms. */
struct yielding {
    struct bot_pool *pool;
    enum bot_need need;
    uint64_t who;
    bool nested; /* no work is taken up inside work taken up */
    bool task;   /* a task (a person's hint) is a request itself: it does not pause for others */
    double began, paused, taken; /* taken: the ms of work taken up */
};

static void serve(struct bot_pool *p, const struct entry *e, bool nested);

/* Whether queued entry e should be thought about before going on with a decision of `need` for
 * `who`: work a person waits for before bots alone; and between people's work, that of an
 * address with nothing being thought about before that of one (`who`) with some. Under the
 * mutex. */
static bool outranks(const struct bot_pool *p, const struct entry *e, enum bot_need need,
                     uint64_t who)
{
    if (e->need == BOT_NEED_ALONE)
        return false;
    return need == BOT_NEED_ALONE || (e->who != who && p->running[e->who % SERVED_SLOTS] == 0);
}

/* When no worker is idle and work waits that outranks y's decision, thinks that work now, on
 * this worker, and returns the ms it took; else 0. */
static double take_up_outranking(struct yielding *y)
{
    struct bot_pool *p = y->pool;
    if (y->nested)
        return 0;
    struct entry e;
    bool found = false;
    pthread_mutex_lock(&p->crew.mu);
    if (p->idle == 0 && p->n > 0 && !atomic_load(&p->crew.stop)) {
        int i = pick(p);
        if (i >= 0 && outranks(p, &p->q[i], y->need, y->who)) {
            take(p, i, &e);
            p->stats.preempted++;
            found = true;
        }
    }
    pthread_mutex_unlock(&p->crew.mu);
    if (!found)
        return 0;
    double t0 = now_ms();
    serve(p, &e, true);
    return now_ms() - t0;
}

/* Between two playouts: takes up outranking work (take_up_outranking), then (not in a task)
 * waits, 1 ms at a time, while the process serves a request, for as long as the decision may still
 * pause: the pool's yield_ms in all, and never more than half the time it has thought so far, so
 * that a flood of requests (each cheap, but one always in progress) slows a decision by at most
 * half its thinking time instead of stalling it; not once the pool is stopping. Returns the ms it
 * paused (work taken up included). */
static double yield_to_people(void *ctx)
{
    struct yielding *y = ctx;
    double other = take_up_outranking(y);
    y->taken += other;
    if (y->task || y->pool->people_busy() == 0)
        return other;
    double t0 = now_ms();
    double thought = t0 - y->began - y->paused - y->taken;
    double may = y->pool->yield_ms - y->paused;
    if (thought / 2 - y->paused < may)
        may = thought / 2 - y->paused;
    double waited = 0;
    while (waited < may && y->pool->people_busy() > 0 && !atomic_load(&y->pool->crew.stop)) {
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
        waited = now_ms() - t0;
    }
    y->paused += waited;
    return other + waited;
}

/* Whether a people's game lets other people's work go first between two of its seats (so one
 * game of many experts does not hold a worker for all of them). A game of bots alone never
 * does: nobody waits for its turn or for another such game's, so going back in line would
 * only cost transactions, and people's work takes its worker between playouts anyway. */
static bool others_wait(struct bot_pool *p, enum bot_need need)
{
    if (need == BOT_NEED_ALONE)
        return false;
    bool any = false;
    pthread_mutex_lock(&p->crew.mu);
    for (int i = 0; i < p->n && !any; i++)
        any = p->q[i].need != BOT_NEED_ALONE;
    pthread_mutex_unlock(&p->crew.mu);
    return any;
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
    double ms[RS_MAX_SEATS], yielded = 0; /* pauses for people's requests */
    int n = 0;
    for (int k = 0; k < j->nseats; k++) {
        if (k > 0 && others_wait(p, j->need))
            break; /* the other seats go back in line (the save wakes the game again) */
        j->d[k] = calloc(1, j->rs->decision_size);
        struct yielding y = {
            .pool = p, .need = j->need, .who = j->who, .nested = j->nested, .began = now_ms()};
        struct expert_stats es = {0};
        params.yield_ctx = &y;
        bool ok = j->d[k] && expert_decide(j->rs, j->g, j->seats[k], &params, j->d[k], &es);
        ms[k] = es.ms;
        yielded += y.paused;
        if (!ok) {
            free(j->d[k]);
            j->d[k] = NULL;
            break;
        }
        n++;
    }
    j->nseats = n;
    uint64_t epoch = store_epoch(srv->store);
    j->echoes.n = 0;
    int st = n > 0 ? store_tx(srv->store, apply_tx, j, STORE_TRIES_WRITE) : STORE_HARD;
    if (st == STORE_OK && j->applied > 0) {
        if (j->saved) { /* remembered, announced, and its row kept as the current one */
            live_committed(srv, epoch, j->ticket, j->rs, j->g, &j->row);
            hub_echoes_announced(&j->echoes, j->tag);
        } else {
            hub_publish(srv->hub, j->id, 0);
        }
        metrics_steps_resolved(j->resolved);
    }
    hub_echoes_end(srv->hub, &j->echoes, st != STORE_OK);
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

/* Runs a task with the pool's parameters. */
static void run_task(struct bot_pool *p, const struct entry *e, bool nested)
{
    struct expert_params params = expert_defaults;
    params.think_ms = p->think_ms > 0 ? p->think_ms : params.think_ms;
    struct yielding y = {.pool = p,
                         .need = e->need,
                         .who = e->who,
                         .nested = nested,
                         .task = true,
                         .began = now_ms()};
    params.yield = yield_to_people;
    params.yield_ctx = &y;
    e->run(e->ctx, &params);
    pthread_mutex_lock(&p->crew.mu);
    p->stats.tasks++;
    pthread_mutex_unlock(&p->crew.mu);
}

/* Sets the calling worker's nice to n (setpriority on its own thread); false when the kernel
 * refuses (raising it back needs CAP_SYS_NICE or an RLIMIT_NICE of 20). */
static bool set_nice(int n)
{
    return setpriority(PRIO_PROCESS, (id_t)gettid(), n) == 0;
}

/* The nice a worker thinks work of `need` at (bot_pool_start: `nice`). */
static int nice_for(struct bot_pool *p, enum bot_need need)
{
    return need == BOT_NEED_ALONE ? p->nice : atomic_load(&p->people_nice);
}

/* Moves the worker to the nice of work of `need` when the pool lowers its workers' priority
 * (nice > 0); returns the nice it had. When raising it back is refused, every worker keeps
 * `nice` from then on, and the log says so once. */
static int nice_enter(struct bot_pool *p, enum bot_need need, int had)
{
    int want = nice_for(p, need);
    if (p->nice > 0 && want != had && !set_nice(want) && want < had) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&p->people_nice, &expected, p->nice))
            fprintf(stderr,
                    "cityd: bot workers cannot raise their priority back to nice 0 for work "
                    "people wait on (no CAP_SYS_NICE, RLIMIT_NICE below 20: %s); every bot "
                    "worker keeps nice %d\n",
                    strerror(errno), p->nice);
    }
    return had;
}

/* Back to nice `had` after work entered with nice_enter(). */
static void nice_leave(struct bot_pool *p, enum bot_need need, int had)
{
    if (p->nice > 0 && nice_for(p, need) != had)
        set_nice(had);
}

/* The worker's nice now (its own thread's). */
static int nice_now(void)
{
    errno = 0;
    int n = getpriority(PRIO_PROCESS, (id_t)gettid());
    return errno ? 0 : n;
}

/* Thinks entry e (taken from the queue) with its address counted as being thought about, at the
 * nice of its need (a task is a person waiting). */
static void serve(struct bot_pool *p, const struct entry *e, bool nested)
{
    enum bot_need need = e->run ? BOT_NEED_PERSON_WAITS : e->need;
    int had = p->nice > 0 ? nice_now() : 0;
    nice_enter(p, need, had);
    size_t k = e->who % SERVED_SLOTS;
    pthread_mutex_lock(&p->crew.mu);
    p->running[k]++;
    pthread_mutex_unlock(&p->crew.mu);
    if (e->run) {
        run_task(p, e, nested);
    } else {
        struct job j = {.pool = p, .need = e->need, .who = e->who, .nested = nested};
        strcpy(j.id, e->id);
        run_job(p, &j);
    }
    pthread_mutex_lock(&p->crew.mu);
    p->running[k]--;
    pthread_mutex_unlock(&p->crew.mu);
    nice_leave(p, need, had);
}

static void *worker_main(void *arg)
{
    struct bot_pool *p = arg;
    /* With nice 0 (off), the worker runs at SCHED_IDLE: within the daemon a request's thread
     * takes a core from a thinking worker at once (if the kernel refuses, the worker keeps the
     * default policy). A SCHED_IDLE worker preempted while it holds a lock that request
     * threads take too (the metrics', the view cache's stripe as it publishes a move, the
     * database pool's) may hold them up until it gets a core again, which on a busy machine
     * can take long; a nice worker gets its turn sooner, but thinks with more weight. */
    if (p->nice > 0)
        set_nice(p->nice);
    else
        pthread_setschedparam(pthread_self(), SCHED_IDLE, &(struct sched_param){0});
    pthread_mutex_lock(&p->crew.mu);
    for (;;) {
        int i = pick(p);
        /* Stopping: games are left to the sweeper, but a task still queued is answered. */
        if (atomic_load(&p->crew.stop) && (i < 0 || !p->q[i].run))
            break;
        if (i < 0) {
            p->idle++;
            pthread_cond_wait(&p->crew.wake, &p->crew.mu);
            p->idle--;
            continue;
        }
        struct entry e;
        take(p, i, &e);
        p->stats.thinking++;
        pthread_mutex_unlock(&p->crew.mu);
        serve(p, &e, false);
        pthread_mutex_lock(&p->crew.mu);
        p->stats.thinking--;
    }
    pthread_mutex_unlock(&p->crew.mu);
    return NULL;
}

struct bot_pool *bot_pool_start(struct server *srv, int workers, int queue_cap, double think_ms,
                                double yield_ms, int (*people_busy)(void), int nice)
{
    struct bot_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->nice = nice > 19 ? 19 : nice < 0 ? 0 : nice;
    atomic_init(&p->people_nice, 0);
    if (p->nice > 0) {
        /* Raising a thread's priority back to nice 0 needs CAP_SYS_NICE or an RLIMIT_NICE of
         * 20: take the soft limit up to the hard one where that allows it. */
        struct rlimit rl;
        if (getrlimit(RLIMIT_NICE, &rl) == 0 && rl.rlim_cur < 20 &&
            (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= 20)) {
            rl.rlim_cur = 20;
            setrlimit(RLIMIT_NICE, &rl);
        }
    }
    p->srv = srv;
    p->cap = queue_cap > 0 ? queue_cap : 1;
    p->think_ms = think_ms;
    p->yield_ms = yield_ms;
    p->people_busy = people_busy;
    p->q = calloc((size_t)p->cap + BOT_POOL_MAX_TASKS, sizeof *p->q);
    int n = workers < POOL_MAX_WORKERS ? workers : POOL_MAX_WORKERS;
    p->workers = n;
    if (!workers_init(&p->crew, n) || !p->q || workers_start(&p->crew, n, worker_main, p) == 0) {
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
    /* A task no worker ran (none started): answered unthought, so that no one waits for ever. */
    for (int i = 0; i < p->n; i++)
        if (p->q[i].run)
            p->q[i].run(p->q[i].ctx, NULL);
    free(p->q);
    free(p);
}

void bot_pool_stats(struct bot_pool *p, struct bot_pool_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!p)
        return;
    pthread_mutex_lock(&p->crew.mu);
    *out = p->stats;
    out->nice_alone = p->nice;
    out->nice_people = p->nice > 0 ? atomic_load(&p->people_nice) : 0;
    out->sched_idle = p->nice == 0;
    out->queued = p->games;
    out->queued_tasks = p->tasks;
    out->queued_people = 0;
    for (int i = 0; i < p->n; i++)
        out->queued_people += !p->q[i].run && p->q[i].need < BOT_NEED_ALONE;
    pthread_mutex_unlock(&p->crew.mu);
}
