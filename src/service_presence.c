/* service_presence.c: whether each person is at the table (issue 27): a seat's "presence" in the
 * public view, "online" or "away". A seat is online while its last sign of life is recent
 * (--presence-seconds): its event stream (at its opening and at every keep-alive tick, which
 * comes a third of that time apart), else a hand view or an order, for clients that poll. The
 * sign is stored in the database (seats.last_seen, migration 0019), so that several daemons
 * sharing one database agree; each daemon writes it at most every quarter of the window per
 * seat (an in-memory gate, then the statement's own condition), so a connected seat costs one
 * small write every ~11 s by default, made by one writer thread for many seats at once, never
 * by the request that showed the sign. A seat coming back tells every instance (NOTIFY), so its
 * cached views go; a seat going away changes nothing stored, so a view showing an online seat
 * is cached only until that seat would turn away. */
#include "service.h"
#include "service_int.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "hub.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_games.h"
#include "viewcache.h"
#include "workers.h"

enum { GATE_SLOTS = 4096, DEFAULT_PRESENCE_SECONDS = 45 };

/* The last write of each (game, seat), by a hash of both; a collision costs one more write. */
static struct {
    uint64_t key;
    double at;
} gate[GATE_SLOTS];
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;

static int online_seconds(const struct server *srv)
{
    return srv->quotas && srv->quotas->presence_seconds > 0 ? srv->quotas->presence_seconds
                                                            : DEFAULT_PRESENCE_SECONDS;
}

int service_stream_tick_ms(const struct quotas *q)
{
    int online = q && q->presence_seconds > 0 ? q->presence_seconds : DEFAULT_PRESENCE_SECONDS;
    int ms = online * 1000 / 3;
    return ms < 15000 ? ms : 15000;
}

/* The gate's key of seat `seat` of game `id`: FNV-1a of the id, then the seat. */
static uint64_t gate_key(const char *id, int seat)
{
    uint64_t key = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        key = (key ^ *p) * 1099511628211ULL;
    return (key ^ (uint64_t)(seat + 1)) * 1099511628211ULL;
}

/* True (and noted) when seat `seat` of game `id` was not written by this instance within
 * `every` seconds. */
static bool due(const char *id, int seat, double every)
{
    uint64_t key = gate_key(id, seat);
    double now = view_cache_now();
    pthread_mutex_lock(&gate_mu);
    size_t slot = (size_t)(key % GATE_SLOTS);
    bool is_due = gate[slot].key != key || now - gate[slot].at >= every;
    if (is_due) {
        gate[slot].key = key;
        gate[slot].at = now;
    }
    pthread_mutex_unlock(&gate_mu);
    return is_due;
}

/* Forgets that seat `seat` of game `id` was written (its mark could not be queued), so that its
 * next sign of life tries again. */
static void undue(const char *id, int seat)
{
    uint64_t key = gate_key(id, seat);
    pthread_mutex_lock(&gate_mu);
    size_t slot = (size_t)(key % GATE_SLOTS);
    if (gate[slot].key == key)
        gate[slot].key = 0;
    pthread_mutex_unlock(&gate_mu);
}

/* A seat to note as seen. */
struct mark {
    char id[48];
    int seat;
};

/* The writer of signs of life: a request notes its seat's sign in memory and goes on; one thread
 * writes what has gathered within GATHER_MS of the first, up to STORE_SEEN_MAX seats in one
 * transaction, while the next ones gather. A sign is then never a request's wait for the
 * database, and a crowd of streams' keep-alives costs a few transactions a second rather than
 * one each. */
enum { QUEUE_MAX = 8192, GATHER_MS = 50, NAP_ROUNDS = 20 };
struct presence_writer {
    struct workers w; /* one thread; w.mu guards the queue */
    struct server *srv;
    int n;
    bool asleep; /* waiting without a deadline: the next mark must wake it */
    struct mark q[QUEUE_MAX];
};

/* Adds `ms` milliseconds to `t`. */
static void add_ms(struct timespec *t, long ms)
{
    t->tv_nsec += ms * 1000000L;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* Waits (w.mu held) until marks are queued or the writer stops. A request that queues a mark
 * does not wake the writer while it naps (it looks every GATHER_MS on its own): a wake-up from
 * a request's thread lets the writer take that thread's core before the request's reply is
 * sent (measured under expert games: a preemption in nearly every hand view that queued a
 * mark, docs/benchmarks.md). Only after NAP_ROUNDS empty looks (a second) does it sleep until
 * woken, so an idle daemon does not wake 20 times a second. */
static void wait_for_marks(struct presence_writer *pw)
{
    for (int empty = 0; pw->n == 0 && !atomic_load(&pw->w.stop); empty++) {
        if (empty >= NAP_ROUNDS) {
            pw->asleep = true;
            pthread_cond_wait(&pw->w.wake, &pw->w.mu);
            pw->asleep = false;
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until); /* the crew's clock */
        add_ms(&until, GATHER_MS);
        pthread_cond_timedwait(&pw->w.wake, &pw->w.mu, &until);
    }
}

struct seen_call {
    const struct mark *marks;
    int n;
    double every, online;
    bool back[STORE_SEEN_MAX], written[STORE_SEEN_MAX];
};

/* A sign of life promises nothing: its commit does not wait for the disk (a crash may forget the
 * last few, which only shows a seat away until its next sign). */
static int seen_tx(PGconn *c, void *ctx)
{
    struct seen_call *sc = ctx;
    int st = store_commit_lazily(c);
    if (st != STORE_OK)
        return st;
    const char *ids[STORE_SEEN_MAX];
    int seats[STORE_SEEN_MAX];
    for (int i = 0; i < sc->n; i++) {
        ids[i] = sc->marks[i].id;
        seats[i] = sc->marks[i].seat;
    }
    return store_seats_seen_now(c, ids, seats, sc->n, sc->every, sc->online, sc->back, sc->written);
}

/* Writes the n (at most STORE_SEEN_MAX) marks and tells this instance of the seats that came
 * back. A seat written while it was online stays online for the window from now: its game's
 * cached public view, which says so, is true that much longer (without this, a view read
 * from the database with the seat online would be read again when its first window ran out,
 * to say the same; measured as a tenth of the view reads in the bench's expert part). A failure
 * is not a request's: each seat is written again at its next sign of life. */
static void write_marks(struct server *srv, const struct mark *marks, int n)
{
    int online = online_seconds(srv);
    struct seen_call sc = {.marks = marks, .n = n, .every = online / 4.0, .online = online};
    /* Before the transaction: the seat's new last_seen is the database's now(), later than
     * this, so the window counted from here ends no later than the database's. */
    double before = view_cache_now();
    if (store_tx(srv->store, seen_tx, &sc, STORE_TRIES_READ) != STORE_OK)
        return;
    for (int i = 0; i < n; i++) {
        if (sc.back[i])
            hub_publish_presence(srv->hub, marks[i].id); /* the public view changed, no hand */
        else if (sc.written[i])
            view_cache_extend(srv->views, marks[i].id, marks[i].seat, before + online);
    }
}

static void *writer_main(void *arg)
{
    struct presence_writer *pw = arg;
    struct mark batch[STORE_SEEN_MAX];
    for (;;) {
        pthread_mutex_lock(&pw->w.mu);
        wait_for_marks(pw);
        /* Lets more gather for a moment (a seat's presence is told in seconds): a handful of
         * transactions a second, however many signs. A full batch wakes it early. */
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until); /* the crew's clock */
        add_ms(&until, GATHER_MS);
        while (pw->n < STORE_SEEN_MAX && !atomic_load(&pw->w.stop) &&
               pthread_cond_timedwait(&pw->w.wake, &pw->w.mu, &until) == 0)
            ;
        int k = pw->n < STORE_SEEN_MAX ? pw->n : STORE_SEEN_MAX;
        memcpy(batch, pw->q, (size_t)k * sizeof *batch);
        memmove(pw->q, pw->q + k, (size_t)(pw->n - k) * sizeof *pw->q);
        pw->n -= k;
        pthread_mutex_unlock(&pw->w.mu);
        if (k == 0)
            return NULL; /* stopping, and every mark is written */
        write_marks(pw->srv, batch, k);
    }
}

bool service_presence_start(struct server *srv)
{
    struct presence_writer *pw = calloc(1, sizeof *pw);
    if (!pw)
        return false;
    pw->srv = srv;
    if (!workers_init(&pw->w, 1) || workers_start(&pw->w, 1, writer_main, pw) != 1) {
        workers_stop(&pw->w);
        free(pw);
        return false;
    }
    srv->presence = pw;
    return true;
}

void service_presence_stop(struct server *srv)
{
    struct presence_writer *pw = srv ? srv->presence : NULL;
    if (!pw)
        return;
    workers_stop(&pw->w); /* the thread writes what is queued, then returns */
    srv->presence = NULL;
    free(pw);
}

void service_seen(struct server *srv, const char *id, int seat)
{
    if (!srv || !srv->store || seat < 0)
        return;
    int online = online_seconds(srv);
    if (!due(id, seat, online / 4.0))
        return;
    struct presence_writer *pw = srv->presence;
    struct mark m = {.seat = seat};
    bool fits = strlen(id) < sizeof m.id;
    if (fits)
        memcpy(m.id, id, strlen(id) + 1);
    if (fits && !pw) { /* no writer (a daemon that does not serve: tests, tools): at once */
        write_marks(srv, &m, 1);
        return;
    }
    bool queued = false;
    if (fits) {
        pthread_mutex_lock(&pw->w.mu);
        if (pw->n < QUEUE_MAX && !atomic_load(&pw->w.stop)) {
            pw->q[pw->n++] = m;
            queued = true;
            if (pw->asleep || pw->n == STORE_SEEN_MAX) /* else it looks on its own: see above */
                pthread_cond_signal(&pw->w.wake);
        }
        pthread_mutex_unlock(&pw->w.mu);
    }
    if (!queued)
        undue(id, seat);
}

int service_presence_add(struct server *srv, PGconn *c, const char *id, json_t *view, double left[],
                         int *nleft)
{
    double ago[RS_MAX_SEATS];
    int n = 0;
    int st = store_seats_seen(c, id, ago, &n);
    if (st != STORE_OK)
        return st;
    double online = online_seconds(srv);
    size_t i;
    json_t *seat;
    if (nleft)
        *nleft = 0;
    json_array_foreach(json_object_get(view, "seats"), i, seat)
    {
        bool bot = json_is_string(json_object_get(seat, "bot"));
        bool person = json_is_string(json_object_get(seat, "name")) && !bot;
        bool here = bot || (person && (int)i < n && ago[i] >= 0 && ago[i] < online);
        if (left && i < RS_MAX_SEATS) {
            /* at least a millisecond: 0 says "for good" */
            left[i] = person && here ? fmax(online - ago[i], 1e-3) : 0;
            *nleft = (int)i + 1;
        }
        json_object_set_new(seat, "presence", json_string(here ? "online" : "away"));
    }
    return STORE_OK;
}
