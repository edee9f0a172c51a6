/* store_pool.c: the connection half of the store: a fixed pool of PostgreSQL connections made
 * lazily and re-made after a failure, the mapping of libpq results to enum store_status, the
 * log line every store failure writes, the retry backoff, and sessions outside a transaction
 * (store_session, for the migration runner in store_migrate.c; store_ping for /healthz). The
 * pipeline and transaction runner (store.c) lease their connections here (store_int.h).
 *
 * Pool: `size` slots, each holding NULL or one PGconn, and a busy flag. A caller takes a free
 * slot under the mutex (waiting on the condition variable while all are busy), then connects
 * or checks the connection outside the mutex, so a slow connect never blocks other callers.
 * A connection that is broken when it comes back is closed; the next caller to take its slot
 * makes a new one. Connecting uses connect_timeout=3 unless the caller's conninfo or
 * PGCONNECT_TIMEOUT says otherwise, so an unreachable database answers STORE_UNAVAILABLE
 * within seconds, not minutes.
 *
 * Failover: the conninfo may name several servers (libpq's multi-host form, with
 * target_session_attrs=read-write so only the primary is taken). A failed connection attempt
 * is tried again a bounded number of times (CONNECT_TRIES, sleeping between, within
 * CONNECT_BUDGET_MS), so a caller arriving during a failover of a second or so often waits
 * instead of failing; after that it gets STORE_UNAVAILABLE. Each connection made records the
 * server it reached (the server's own address and port, which a proxy in between does not
 * hide; host:port as connected over a unix socket); one made to replace a broken connection counts
 * as a reconnect, and one that reaches another server than the connection before it counts as a
 * failover (store_stats, shown in /metrics). */
#include "store.h"
#include "store_int.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Connection parameters added when the caller's conninfo does not set them. */
#define DEFAULT_CONNECT_TIMEOUT  "3"
#define DEFAULT_APPLICATION_NAME "cityd"

/* TCP settings added when the conninfo sets none of its own: a database machine that vanishes
 * (powered off, cut from the network) sends no reset, and without them a request would wait
 * for the kernel's retransmission timeout (many minutes). Keepalives find an idle connection
 * dead within about 11 s (5 s idle, then 3 probes 2 s apart), and tcp_user_timeout drops one
 * whose sent data stays unacknowledged for 10 s. Ignored on Unix-domain sockets. */
static const char *const tcp_defaults[][2] = {
    {"keepalives", "1"},       {"keepalives_idle", "5"},      {"keepalives_interval", "2"},
    {"keepalives_count", "3"}, {"tcp_user_timeout", "10000"},
};
enum { NTCP_DEFAULTS = sizeof tcp_defaults / sizeof tcp_defaults[0] };

/* Connection attempts per acquire, the pause before the second (doubling after), the time
 * after which no new attempt starts, and the age of an outage past which a caller makes one
 * attempt only (a failover is over in seconds; a longer outage is answered 503 at once). */
enum { CONNECT_TRIES = 4, CONNECT_PAUSE_MS = 100, CONNECT_BUDGET_MS = 1500, OUTAGE_WAIT_MS = 5000 };

struct slot {
    PGconn *conn;      /* NULL until connected, and again after a failure */
    bool busy;         /* taken by a caller */
    uint64_t prepared; /* statements prepared on conn (bit i: statement i) */
    bool syncrep_cut;  /* the lease's syncrep_cut flag (set by on_notice) */
};

struct store {
    pthread_mutex_t mu;
    pthread_cond_t freed; /* signalled when a slot is released */
    int size;
    struct slot *slots;
    const char **keys; /* PQconnectdbParams() arguments, NULL-terminated */
    const char **vals;
    char *strings;             /* one buffer holding every key and value */
    uint64_t rng;              /* for the retry backoff; under mu */
    bool down;                 /* the last connection attempt failed (logged once per outage) */
    long long down_since;      /* CLOCK_MONOTONIC ms of the first failed attempt of this outage */
    struct store_stats stats;  /* under mu */
    unsigned long long closed; /* connections closed as broken and not yet replaced; under mu */
    char incarnation[48];      /* the last server's start time (pg_postmaster_start_time); mu */
    uint64_t epoch;            /* store_epoch(); atomic */
};

/*
** Connection parameters
*/

/* Fills st->keys/vals from `conninfo` plus defaults. False (with a sentence in err) when
 * conninfo does not parse or memory runs out. */
static bool params_from_conninfo(struct store *st, const char *conninfo, char *err, int errlen)
{
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo, &perr);
    if (!opts) {
        char *nl = perr ? strchr(perr, '\n') : NULL;
        if (nl)
            *nl = 0;
        snprintf(err, (size_t)errlen, "bad database connection string: %s",
                 perr ? perr : "out of memory");
        PQfreemem(perr);
        return false;
    }
    bool has_timeout = getenv("PGCONNECT_TIMEOUT") != NULL, has_app = false;
    bool has_enc = getenv("PGCLIENTENCODING") != NULL, has_tcp = false;
    size_t n = 0, bytes = 0;
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val)
            continue;
        n++;
        bytes += strlen(o->keyword) + strlen(o->val) + 2;
        has_timeout |= strcmp(o->keyword, "connect_timeout") == 0;
        has_app |= strcmp(o->keyword, "application_name") == 0;
        has_enc |= strcmp(o->keyword, "client_encoding") == 0;
        has_tcp |= strncmp(o->keyword, "keepalives", 10) == 0 ||
                   strcmp(o->keyword, "tcp_user_timeout") == 0;
    }
    n += 3 + NTCP_DEFAULTS;
    bytes += 256;
    st->keys = calloc(n + 1, sizeof *st->keys);
    st->vals = calloc(n + 1, sizeof *st->vals);
    st->strings = malloc(bytes);
    if (!st->keys || !st->vals || !st->strings) {
        PQconninfoFree(opts);
        snprintf(err, (size_t)errlen, "out of memory");
        return false;
    }
    size_t k = 0, used = 0;
#define ADD(key, val)                                                                              \
    do {                                                                                           \
        size_t lk_ = strlen(key) + 1, lv_ = strlen(val) + 1;                                       \
        memcpy(st->strings + used, (key), lk_);                                                    \
        st->keys[k] = st->strings + used;                                                          \
        used += lk_;                                                                               \
        memcpy(st->strings + used, (val), lv_);                                                    \
        st->vals[k++] = st->strings + used;                                                        \
        used += lv_;                                                                               \
    } while (0)
    for (PQconninfoOption *o = opts; o->keyword; o++)
        if (o->val)
            ADD(o->keyword, o->val);
    if (!has_timeout)
        ADD("connect_timeout", DEFAULT_CONNECT_TIMEOUT);
    if (!has_app)
        ADD("application_name", DEFAULT_APPLICATION_NAME);
    if (!has_enc)
        ADD("client_encoding", "UTF8");
    for (int i = 0; i < NTCP_DEFAULTS && !has_tcp; i++)
        ADD(tcp_defaults[i][0], tcp_defaults[i][1]);
#undef ADD
    st->keys[k] = st->vals[k] = NULL;
    PQconninfoFree(opts);
    return true;
}

/*
** Logging
*/

/* Writes "store: <what>: <msg>" to stderr as one line (each run of white space in msg, new
 * lines included, becomes one space). */
void store_log(const char *what, const char *msg)
{
    char line[1024];
    size_t len = 0;
    bool space = false;
    for (const char *p = msg ? msg : ""; *p && len < sizeof line - 1; p++) {
        if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
            space = len > 0;
            continue;
        }
        if (space && len < sizeof line - 2)
            line[len++] = ' ';
        space = false;
        line[len++] = *p;
    }
    line[len] = 0;
    fprintf(stderr, "store: %s: %s\n", what ? what : "query", line);
}

/* Receives the server's notices: NOTICE and below (CREATE TABLE IF NOT EXISTS chatter) are
 * dropped, WARNING and above (a shutdown cutting the session) are logged as one line. The
 * warning that a commit's wait for its synchronous standby was cancelled (raised in the
 * server's SyncRepWaitForLSN: the commit stands locally but is not known to be replicated)
 * also sets the slot's flag `arg`, so the transaction runner reports the outcome unknown. */
static void on_notice(void *arg, const PGresult *res)
{
    const char *fn = PQresultErrorField(res, PG_DIAG_SOURCE_FUNCTION);
    if (arg && fn && strcmp(fn, "SyncRepWaitForLSN") == 0)
        *(bool *)arg = true;
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (sev && (strcmp(sev, "NOTICE") == 0 || strcmp(sev, "INFO") == 0 || strcmp(sev, "LOG") == 0 ||
                strcmp(sev, "DEBUG") == 0))
        return;
    store_log("server", PQresultErrorMessage(res));
}

/*
** Pool
*/

struct store *store_open(const char *conninfo, int size, char *err, int errlen)
{
    assert(conninfo && err && errlen > 0);
    err[0] = 0;
    if (size < 1 || size > 4096) {
        snprintf(err, (size_t)errlen, "the pool size must be 1 to 4096, not %d", size);
        return NULL;
    }
    struct store *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, (size_t)errlen, "out of memory");
        return NULL;
    }
    st->size = size;
    st->slots = calloc((size_t)size, sizeof *st->slots);
    if (!st->slots || !params_from_conninfo(st, conninfo, err, errlen)) {
        if (!err[0])
            snprintf(err, (size_t)errlen, "out of memory");
        free(st->slots);
        free(st->keys);
        free(st->vals);
        free(st->strings);
        free(st);
        return NULL;
    }
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->freed, NULL);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    st->rng = ((uint64_t)now.tv_sec << 32 ^ (uint64_t)now.tv_nsec ^ (uint64_t)(uintptr_t)st) | 1;
    return st;
}

void store_close(struct store *st)
{
    if (!st)
        return;
    pthread_mutex_lock(&st->mu);
    for (int i = 0; i < st->size; i++) {
        assert(!st->slots[i].busy && "store_close() while a connection is in use");
        if (st->slots[i].conn)
            PQfinish(st->slots[i].conn);
    }
    pthread_mutex_unlock(&st->mu);
    pthread_cond_destroy(&st->freed);
    pthread_mutex_destroy(&st->mu);
    free(st->slots);
    free(st->keys);
    free(st->vals);
    free(st->strings);
    free(st);
}

/* Whether an idle connection still looks alive: when the server has closed it (a restart,
 * an administrator's kill), the socket is readable; consuming the input then marks the
 * connection bad. Does not block. */
static bool idle_conn_alive(PGconn *conn)
{
    for (int i = 0; i < 4 && PQstatus(conn) == CONNECTION_OK; i++) {
        struct pollfd p = {.fd = PQsocket(conn), .events = POLLIN};
        if (p.fd < 0)
            return false;
        int r = poll(&p, 1, 0);
        if (r == 0)
            break;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || !PQconsumeInput(conn))
            return false;
        PGnotify *n;
        while ((n = PQnotifies(conn)))
            PQfreemem(n);
    }
    return PQstatus(conn) == CONNECTION_OK && PQtransactionStatus(conn) == PQTRANS_IDLE;
}

/* Counts a connection the pool closed as broken (or could not trust): the next connection made
 * counts as a reconnect, whichever slot makes it, and store_epoch() moves on. */
static void pool_count_closed(struct store *st)
{
    pthread_mutex_lock(&st->mu);
    st->closed++;
    pthread_mutex_unlock(&st->mu);
    __atomic_add_fetch(&st->epoch, 1, __ATOMIC_RELEASE);
}

/* Closes a connection the pool found broken (or cannot trust), so that the next connection
 * made counts as a reconnect, whichever slot makes it. */
static void pool_closed(struct store *st, PGconn *conn)
{
    PQfinish(conn);
    pool_count_closed(st);
}

/* Sleeps `ms` milliseconds. */
static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One connection attempt: NULL when the database cannot be reached (logged once per outage).
 * Its commits are synchronous whatever the server's default: a 202 promises the order is
 * committed, and with synchronous_commit=off a crash of the server loses what it acknowledged
 * in its last moments. (A transaction whose commit promises nothing may turn it off for
 * itself: store_commit_lazily. Not the `options` connection parameter: PgBouncer refuses it.)
 * Counts the connection in st->stats (a reconnect when the pool had closed a broken one; a
 * failover when it reached another server than the last connection made), and moves
 * store_epoch() on when it reached another server, or the same one restarted, than before. */
static PGconn *connect_once(struct store *st, struct slot *slot)
{
    PGconn *conn = PQconnectdbParams(st->keys, st->vals, 0);
    bool ok = conn && PQstatus(conn) == CONNECTION_OK;
    char server[sizeof st->stats.server] = "", was[sizeof st->stats.server] = "";
    char incarnation[sizeof st->incarnation] = "";
    if (ok) {
        /* In the same round trip, the server's own address: behind a proxy (PgBouncer,
         * HAProxy) every connection reaches one host:port whichever server is the primary, so
         * only the server can tell a failover (NULL over a unix socket: then host:port). */
        PGresult *r = PQexec(conn, "SELECT set_config('synchronous_commit', 'on', false), "
                                   "host(inet_server_addr()), inet_server_port(), "
                                   "pg_postmaster_start_time()::text");
        ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
        if (ok)
            snprintf(incarnation, sizeof incarnation, "%s", PQgetvalue(r, 0, 3));
        if (ok && !PQgetisnull(r, 0, 1))
            snprintf(server, sizeof server, "%s:%s", PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2));
        else if (ok)
            snprintf(server, sizeof server, "%s:%s", PQhost(conn) ? PQhost(conn) : "?",
                     PQport(conn) ? PQport(conn) : "?");
        PQclear(r);
    }
    pthread_mutex_lock(&st->mu);
    bool was_down = st->down, moved = false;
    st->down = st->stats.down = !ok;
    if (!ok && !was_down)
        st->down_since = now_ms();
    if (ok) {
        st->stats.connects++;
        st->stats.reconnects += st->closed > 0;
        st->closed -= st->closed > 0;
        moved = st->stats.server[0] && strcmp(st->stats.server, server) != 0;
        st->stats.failovers += moved;
        snprintf(was, sizeof was, "%s", st->stats.server);
        snprintf(st->stats.server, sizeof st->stats.server, "%s", server);
        if (moved || (st->incarnation[0] && strcmp(st->incarnation, incarnation) != 0))
            __atomic_add_fetch(&st->epoch, 1, __ATOMIC_RELEASE);
        snprintf(st->incarnation, sizeof st->incarnation, "%s", incarnation);
    }
    pthread_mutex_unlock(&st->mu);
    if (!ok) {
        if (!was_down)
            store_log("connect", conn ? PQerrorMessage(conn) : "out of memory");
        PQfinish(conn);
        return NULL;
    }
    if (was_down)
        store_log("connect", "the database is reachable again");
    if (moved) {
        char line[300];
        snprintf(line, sizeof line, "now on %s (was %s): a failover", server, was);
        store_log("connect", line);
    }
    PQsetNoticeReceiver(conn, on_notice, &slot->syncrep_cut);
    return conn;
}

/* Makes a new connection for `slot`, trying again up to CONNECT_TRIES times with pauses
 * (100, 200, 400 ms) while CONNECT_BUDGET_MS has not passed and the outage is younger than
 * OUTAGE_WAIT_MS, so a failover's gap is waited out rather than answered 503 when it is
 * short. NULL when every attempt failed. */
static PGconn *pool_connect(struct store *st, struct slot *slot)
{
    long long start = now_ms();
    long pause = CONNECT_PAUSE_MS;
    for (int attempt = 1;; attempt++) {
        PGconn *conn = connect_once(st, slot);
        pthread_mutex_lock(&st->mu);
        bool young = st->down && now_ms() - st->down_since < OUTAGE_WAIT_MS;
        pthread_mutex_unlock(&st->mu);
        if (conn || !young || attempt >= CONNECT_TRIES ||
            now_ms() + pause - start > CONNECT_BUDGET_MS)
            return conn;
        sleep_ms(pause);
        pause *= 2;
    }
}

/* Takes a slot, waiting while all are busy, and gives it a live connection. STORE_OK, or
 * STORE_UNAVAILABLE (the slot is released again) when no connection could be made. */
int store_pool_acquire(struct store *st, struct lease *l, bool renew)
{
    pthread_mutex_lock(&st->mu);
    int pick;
    for (;;) {
        /* A free slot with a connection first (without one when renewing: no live
         * connection is closed when an empty slot is free). */
        pick = -1;
        for (int i = 0; i < st->size; i++) {
            if (st->slots[i].busy)
                continue;
            if (!st->slots[i].conn == renew) {
                pick = i;
                break;
            }
            if (pick < 0)
                pick = i;
        }
        if (pick >= 0)
            break;
        pthread_cond_wait(&st->freed, &st->mu);
    }
    st->slots[pick].busy = true;
    PGconn *conn = st->slots[pick].conn;
    st->slots[pick].conn = NULL;
    pthread_mutex_unlock(&st->mu);

    l->slot = pick;
    l->fresh = false;
    if (conn && (renew || !idle_conn_alive(conn))) {
        pool_closed(st, conn);
        conn = NULL;
    }
    if (!conn) {
        conn = pool_connect(st, &st->slots[pick]);
        l->fresh = true;
        st->slots[pick].prepared = 0; /* a new session has no prepared statements */
    }
    l->conn = conn;
    l->prepared = &st->slots[pick].prepared;
    l->pipe = NULL;
    l->discard = false;
    l->syncrep_cut = &st->slots[pick].syncrep_cut;
    if (!conn) {
        pthread_mutex_lock(&st->mu);
        st->slots[pick].busy = false;
        pthread_cond_signal(&st->freed);
        pthread_mutex_unlock(&st->mu);
        return STORE_UNAVAILABLE;
    }
    return STORE_OK;
}

/* Gives the connection back. A broken one, or one left inside a transaction that cannot be
 * rolled back, is closed. */
void store_pool_release(struct store *st, struct lease *l)
{
    if (!l->conn) { /* store_lease_discard closed it */
        pool_count_closed(st);
    } else if (l->discard) {
        pool_closed(st, l->conn);
        l->conn = NULL;
    }
    PGconn *conn = l->conn;
    if (conn && PQstatus(conn) == CONNECTION_OK && PQtransactionStatus(conn) != PQTRANS_IDLE) {
        /* A body that left a transaction open (store_run) or failed oddly: end it. */
        PGresult *r = PQtransactionStatus(conn) == PQTRANS_ACTIVE ? NULL : PQexec(conn, "ROLLBACK");
        PQclear(r);
    }
    if (conn && (PQstatus(conn) != CONNECTION_OK || PQtransactionStatus(conn) != PQTRANS_IDLE)) {
        pool_closed(st, conn);
        conn = NULL;
    }
    pthread_mutex_lock(&st->mu);
    st->slots[l->slot].conn = conn;
    st->slots[l->slot].busy = false;
    pthread_cond_signal(&st->freed);
    pthread_mutex_unlock(&st->mu);
    l->conn = NULL;
}

/* Closes the leased connection at once (it is broken or holds a session state we cannot
 * undo); the slot connects again on its next use. */
void store_lease_discard(struct lease *l)
{
    PQfinish(l->conn);
    l->conn = NULL;
}

/*
** Statuses
*/

int store_status_of(PGconn *conn, const PGresult *res, const char *what)
{
    if (!res) {
        if (!conn || PQstatus(conn) != CONNECTION_OK)
            return STORE_UNAVAILABLE;
        store_log(what, conn ? PQerrorMessage(conn) : "no result");
        return STORE_HARD;
    }
    ExecStatusType es = PQresultStatus(res);
    if (es == PGRES_COMMAND_OK || es == PGRES_TUPLES_OK)
        return STORE_OK;
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    if (state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0))
        return STORE_RETRY;
    if ((conn && PQstatus(conn) != CONNECTION_OK) ||
        (state && (strncmp(state, "08", 2) == 0 || strncmp(state, "57P0", 4) == 0)))
        return STORE_UNAVAILABLE;
    const char *msg = PQresultErrorMessage(res);
    if (!msg || !*msg)
        msg = PQresStatus(es);
    store_log(what, msg);
    return STORE_HARD;
}

/* Runs a statement without parameters and maps its result. */
static int exec_simple(PGconn *conn, const char *sql, const char *what)
{
    PGresult *r = PQexec(conn, sql);
    int rc = store_status_of(conn, r, what);
    PQclear(r);
    return rc;
}

/*
** Retries and sessions
*/

/* Sleeps a random 1..cap ms, cap doubling with each attempt up to 64 ms. */
void store_backoff(struct store *st, int attempt)
{
    pthread_mutex_lock(&st->mu);
    st->rng ^= st->rng << 13;
    st->rng ^= st->rng >> 7;
    st->rng ^= st->rng << 17;
    uint64_t r = st->rng;
    pthread_mutex_unlock(&st->mu);
    long cap = 1L << (attempt < 6 ? attempt : 6);
    long us = 1000 + (long)(r % (uint64_t)(cap * 1000));
    struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

bool store_ping(struct store *st)
{
    assert(st);
    for (int tries = 0; tries < 2; tries++) {
        struct lease l;
        if (store_pool_acquire(st, &l, tries > 0) != STORE_OK)
            return false;
        int rc = exec_simple(l.conn, "SELECT 1", "ping");
        bool fresh = l.fresh;
        store_pool_release(st, &l);
        if (rc == STORE_OK)
            return true;
        if (fresh || rc != STORE_UNAVAILABLE)
            return false;
        /* A reused connection died since its last use: try once more on a new one. */
    }
    return false;
}

uint64_t store_epoch(struct store *st)
{
    return __atomic_load_n(&st->epoch, __ATOMIC_ACQUIRE);
}

void store_stats(struct store *st, struct store_stats *out)
{
    assert(st && out);
    pthread_mutex_lock(&st->mu);
    *out = st->stats;
    pthread_mutex_unlock(&st->mu);
}

/* Counts a transaction whose COMMIT outcome was unknown (store.c). */
void store_count_unknown(struct store *st)
{
    pthread_mutex_lock(&st->mu);
    st->stats.unknown++;
    pthread_mutex_unlock(&st->mu);
}

int store_session(struct store *st, store_session_fn fn, void *ctx)
{
    assert(st && fn);
    struct lease l;
    int rc = store_pool_acquire(st, &l, false);
    if (rc != STORE_OK)
        return rc;
    bool discard = false;
    rc = fn(l.conn, ctx, &discard);
    if (discard)
        store_lease_discard(&l);
    store_pool_release(st, &l);
    return rc;
}
