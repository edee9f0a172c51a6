/* store.c: the infrastructure half of the store: a fixed pool of PostgreSQL connections made
 * lazily and re-made after a failure, the transaction runner that retries on serialization
 * failures and deadlocks, the mapping of libpq results to enum store_status, and sessions
 * outside a transaction (store_session, for the migration runner in store_migrate.c). The
 * named queries of the service live beside it and use these.
 *
 * Pool: `size` slots, each holding NULL or one PGconn, and a busy flag. A caller takes a free
 * slot under the mutex (waiting on the condition variable while all are busy), then connects
 * or checks the connection outside the mutex, so a slow connect never blocks other callers.
 * A connection that is broken when it comes back is closed; the next caller to take its slot
 * makes a new one. Connecting uses connect_timeout=3 unless the caller's conninfo or
 * PGCONNECT_TIMEOUT says otherwise, so an unreachable database answers STORE_UNAVAILABLE
 * within seconds, not minutes.
 *
 * Statements: every statement is a named prepared statement, prepared on a connection the
 * first time it runs there (each slot remembers which, and forgets when its connection is
 * re-made). A transaction runs in libpq's pipeline mode: BEGIN is sent with the first query,
 * statements whose result is not needed (store_command) are only queued, and they travel
 * with the next query or with COMMIT. An order is thus two round trips to the server (read
 * and lock; write and commit) instead of one per statement; a failure of a queued statement
 * fails the transaction at the point where its result is read. */
#include "store.h"

#include "metrics.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The key of the session advisory lock that serializes migrations ("City" in ASCII). */

/* Connection parameters added when the caller's conninfo does not set them. */
#define DEFAULT_CONNECT_TIMEOUT  "3"
#define DEFAULT_APPLICATION_NAME "cityd"

/* The most statements (distinct SQL texts) the store prepares, and the most results a
 * transaction leaves unread before it reads them all. */
enum { MAX_STATEMENTS = 64, PIPE_MAX = 512, MAX_NOTIFY = 32, NOTIFY_LEN = 96 };

struct slot {
    PGconn *conn;      /* NULL until connected, and again after a failure */
    bool busy;         /* taken by a caller */
    uint64_t prepared; /* statements prepared on conn (bit i: statement i) */
};

struct store {
    pthread_mutex_t mu;
    pthread_cond_t freed; /* signalled when a slot is released */
    int size;
    struct slot *slots;
    const char **keys; /* PQconnectdbParams() arguments, NULL-terminated */
    const char **vals;
    char *strings; /* one buffer holding every key and value */
    uint64_t rng;  /* for the retry backoff; under mu */
    bool down;     /* the last connection attempt failed (logged once per outage) */
};

/* A result still to be read in a pipelined transaction. */
struct pending {
    const char *what; /* for the log */
    int prepare;      /* the statement a PREPARE was for, or -1 */
};

/* A transaction in pipeline mode (see the top of the file). */
struct pipe {
    int npending;
    struct pending pending[PIPE_MAX];
    int status;       /* the first failure read so far, or STORE_OK */
    bool commit_sent; /* COMMIT went out: a broken connection now leaves the outcome unknown */
    int nnotify;      /* notifications to send once committed (store_notify_on_commit) */
    char channel[MAX_NOTIFY][32];
    char payload[MAX_NOTIFY][NOTIFY_LEN];
};

/* A connection taken from the pool: release it with pool_release(). */
struct lease {
    int slot;
    PGconn *conn;
    bool fresh;         /* made by this acquire, not reused */
    uint64_t *prepared; /* the slot's prepared set */
    struct pipe *pipe;  /* the open transaction, or NULL */
    bool discard;       /* close the connection when it comes back */
};

/* The lease whose body runs on this thread (store_tx and store_run set it). */
static _Thread_local struct lease *running;

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
    bool has_enc = getenv("PGCLIENTENCODING") != NULL;
    size_t n = 0, bytes = 0;
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val)
            continue;
        n++;
        bytes += strlen(o->keyword) + strlen(o->val) + 2;
        has_timeout |= strcmp(o->keyword, "connect_timeout") == 0;
        has_app |= strcmp(o->keyword, "application_name") == 0;
        has_enc |= strcmp(o->keyword, "client_encoding") == 0;
    }
    n += 3;
    bytes += 128;
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
static void log_line(const char *what, const char *msg)
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
 * dropped, WARNING and above (a shutdown cutting the session) are logged as one line. */
static void on_notice(void *arg, const PGresult *res)
{
    (void)arg;
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (sev && (strcmp(sev, "NOTICE") == 0 || strcmp(sev, "INFO") == 0 || strcmp(sev, "LOG") == 0 ||
                strcmp(sev, "DEBUG") == 0))
        return;
    log_line("server", PQresultErrorMessage(res));
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

/* Makes a new connection. NULL when the database cannot be reached (logged once per
 * outage). Its commits are synchronous whatever the server's default: a 202 promises the
 * order is committed, and with synchronous_commit=off a crash of the server loses what it
 * acknowledged in its last moments. (Not the `options` connection parameter: PgBouncer
 * refuses it.) */
static PGconn *pool_connect(struct store *st)
{
    PGconn *conn = PQconnectdbParams(st->keys, st->vals, 0);
    bool ok = conn && PQstatus(conn) == CONNECTION_OK;
    if (ok) {
        PGresult *r = PQexec(conn, "SET synchronous_commit = on");
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
    }
    pthread_mutex_lock(&st->mu);
    bool was_down = st->down;
    st->down = !ok;
    pthread_mutex_unlock(&st->mu);
    if (!ok) {
        if (!was_down)
            log_line("connect", conn ? PQerrorMessage(conn) : "out of memory");
        PQfinish(conn);
        return NULL;
    }
    if (was_down)
        log_line("connect", "the database is reachable again");
    PQsetNoticeReceiver(conn, on_notice, NULL);
    return conn;
}

/* Takes a slot, waiting while all are busy, and gives it a live connection. STORE_OK, or
 * STORE_UNAVAILABLE (the slot is released again) when no connection could be made. */
static int pool_acquire(struct store *st, struct lease *l)
{
    pthread_mutex_lock(&st->mu);
    int pick;
    for (;;) {
        pick = -1;
        for (int i = 0; i < st->size; i++) {
            if (st->slots[i].busy)
                continue;
            if (st->slots[i].conn) {
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
    if (conn && !idle_conn_alive(conn)) {
        PQfinish(conn);
        conn = NULL;
    }
    if (!conn) {
        conn = pool_connect(st);
        l->fresh = true;
        st->slots[pick].prepared = 0; /* a new session has no prepared statements */
    }
    l->conn = conn;
    l->prepared = &st->slots[pick].prepared;
    l->pipe = NULL;
    l->discard = false;
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
static void pool_release(struct store *st, struct lease *l)
{
    if (l->discard && l->conn) {
        PQfinish(l->conn);
        l->conn = NULL;
    }
    PGconn *conn = l->conn;
    if (conn && PQstatus(conn) == CONNECTION_OK && PQtransactionStatus(conn) != PQTRANS_IDLE) {
        /* A body that left a transaction open (store_run) or failed oddly: end it. */
        PGresult *r = PQtransactionStatus(conn) == PQTRANS_ACTIVE ? NULL : PQexec(conn, "ROLLBACK");
        PQclear(r);
    }
    if (conn && (PQstatus(conn) != CONNECTION_OK || PQtransactionStatus(conn) != PQTRANS_IDLE)) {
        PQfinish(conn);
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
static void lease_discard(struct lease *l)
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
        log_line(what, conn ? PQerrorMessage(conn) : "no result");
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
    log_line(what, msg);
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
** Transactions
*/

/* Sleeps a random 1..cap ms, cap doubling with each attempt up to 64 ms. */
static void backoff(struct store *st, int attempt)
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

/*
** Statements
*/

static pthread_mutex_t stmt_mu = PTHREAD_MUTEX_INITIALIZER;
static const char *stmt_sql[MAX_STATEMENTS];
static int nstmt;

/* The number of statement `sql` (registering it on first sight), or -1 when the table is
 * full (the statement then runs unnamed). A statement is known by its text's address: every
 * SQL of the store is a string literal. */
static int stmt_index(const char *sql)
{
    pthread_mutex_lock(&stmt_mu);
    int i = 0;
    while (i < nstmt && stmt_sql[i] != sql)
        i++;
    if (i == nstmt) {
        if (nstmt < MAX_STATEMENTS)
            stmt_sql[nstmt++] = sql;
        else
            i = -1;
    }
    pthread_mutex_unlock(&stmt_mu);
    return i;
}

/* Records a result to be read later; false when the queue is full. */
static bool pipe_push(struct pipe *p, const char *what, int prepare)
{
    if (p->npending >= PIPE_MAX)
        return false;
    p->pending[p->npending].what = what;
    p->pending[p->npending++].prepare = prepare;
    return true;
}

/* Queues statement q (and its PREPARE, the first time on this connection) on a connection in
 * pipeline mode. False when libpq refuses (a broken connection). */
static bool pipe_send(struct lease *l, const struct store_stmt *q)
{
    assert(q->n <= 16);
    if (l->pipe->npending + 2 > PIPE_MAX) {
        log_line(q->what, "too many statements queued in one transaction");
        return false; /* nothing sent: the reads stay in step */
    }
    int fmts[16] = {0};
    for (int i = 0; i < q->n; i++)
        fmts[i] = q->lens && q->lens[i] > 0;
    int idx = stmt_index(q->sql);
    if (idx < 0)
        return PQsendQueryParams(l->conn, q->sql, q->n, NULL, q->vals, q->lens, fmts, 0) &&
               pipe_push(l->pipe, q->what, -1);
    char name[16];
    snprintf(name, sizeof name, "city_%d", idx);
    if (!(*l->prepared >> idx & 1)) {
        if (!PQsendPrepare(l->conn, name, q->sql, q->n, NULL) || !pipe_push(l->pipe, q->what, idx))
            return false;
        *l->prepared |= 1ULL << idx;
    }
    return PQsendQueryPrepared(l->conn, name, q->n, q->vals, q->lens, fmts, 0) &&
           pipe_push(l->pipe, q->what, -1);
}

/* Reads the result of pending entry `e` (and the NULL that ends it). Returns the result, or
 * NULL (recording the failure in the pipe) when the statement failed or was skipped after an
 * earlier failure. */
static PGresult *pipe_read(struct lease *l, const struct pending *e)
{
    struct pipe *p = l->pipe;
    PGresult *r = PQgetResult(l->conn);
    ExecStatusType es = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    int st;
    if (es == PGRES_PIPELINE_ABORTED)
        st = p->status != STORE_OK ? p->status : STORE_HARD;
    else
        st = store_status_of(l->conn, r, e->what);
    if (r) {
        PGresult *end = PQgetResult(l->conn); /* each result is followed by a NULL */
        if (end) {
            PQclear(end);
            st = STORE_HARD;
            log_line(e->what, "pipeline out of step: a second result");
        }
    }
    if (e->prepare >= 0 && st != STORE_OK)
        *l->prepared &= ~(1ULL << e->prepare); /* it was not prepared after all */
    if (r && es == PGRES_FATAL_ERROR) {
        const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (state && strcmp(state, "26000") == 0) {
            /* The session lost its prepared statements (a pooler, DISCARD ALL): start again on
             * a new connection. */
            l->discard = true;
            st = STORE_RETRY;
        }
    }
    if (st != STORE_OK) {
        if (p->status == STORE_OK)
            p->status = st;
        PQclear(r);
        return NULL;
    }
    return r;
}

/* Asks the server for every queued result and reads them all; the results of statements (not
 * of PREPAREs) are stored in out[] in order (NULL for those that failed). */
static void pipe_read_all(struct lease *l, PGresult **out)
{
    struct pipe *p = l->pipe;
    if (PQsendFlushRequest(l->conn) != 1 || PQflush(l->conn) != 0) {
        if (p->status == STORE_OK)
            p->status = PQstatus(l->conn) == CONNECTION_OK ? STORE_HARD : STORE_UNAVAILABLE;
        p->npending = 0;
        return;
    }
    int k = 0;
    for (int i = 0; i < p->npending; i++) {
        PGresult *r = p->status == STORE_OK || PQstatus(l->conn) == CONNECTION_OK
                          ? pipe_read(l, &p->pending[i])
                          : NULL;
        if (p->pending[i].prepare < 0)
            out[k++] = r;
        else
            PQclear(r);
    }
    p->npending = 0;
}

/* Runs `count` statements on a connection outside a transaction, in one round trip. */
static int run_unpiped(struct lease *l, int count, const struct store_stmt *q, PGresult **res)
{
    struct pipe p = {0};
    if (PQenterPipelineMode(l->conn) != 1)
        return store_status_of(l->conn, NULL, q[0].what);
    l->pipe = &p;
    bool sent = true;
    for (int i = 0; i < count && sent; i++)
        sent = pipe_send(l, &q[i]);
    if (!sent || PQpipelineSync(l->conn) != 1) {
        p.status = PQstatus(l->conn) == CONNECTION_OK ? STORE_HARD : STORE_UNAVAILABLE;
    } else {
        int k = 0;
        for (int i = 0; i < p.npending; i++) {
            PGresult *r = pipe_read(l, &p.pending[i]);
            if (p.pending[i].prepare < 0)
                res[k++] = r;
            else
                PQclear(r);
        }
        PGresult *sync = PQgetResult(l->conn);
        if (!sync || PQresultStatus(sync) != PGRES_PIPELINE_SYNC)
            p.status = p.status != STORE_OK ? p.status : store_status_of(l->conn, sync, "sync");
        PQclear(sync);
    }
    if (PQstatus(l->conn) == CONNECTION_OK && PQexitPipelineMode(l->conn) != 1)
        lease_discard(l); /* out of step: start again on a new connection */
    l->pipe = NULL;
    return p.status;
}

int store_queries(PGconn *c, int count, const struct store_stmt *q, PGresult **res)
{
    assert(c && count > 0 && q && res);
    for (int i = 0; i < count; i++)
        res[i] = NULL;
    struct lease *l = running;
    if (l && !l->conn)
        return STORE_UNAVAILABLE; /* the body's connection was closed after a failure */
    if (!l || l->conn != c) {
        log_line(q[0].what, "a statement ran outside store_tx() and store_run()");
        return STORE_HARD;
    }
    int st;
    if (!l->pipe) {
        st = run_unpiped(l, count, q, res);
    } else if ((st = l->pipe->status) == STORE_OK) {
        if (l->pipe->npending + 2 * count > PIPE_MAX) { /* read what is queued to make room */
            PGresult *all[PIPE_MAX] = {0};
            pipe_read_all(l, all);
            for (int i = 0; i < PIPE_MAX; i++)
                PQclear(all[i]);
            if ((st = l->pipe->status) != STORE_OK)
                return st;
        }
        /* Results of earlier commands come first: read them, then keep ours. */
        int before = 0;
        for (int i = 0; i < l->pipe->npending; i++)
            before += l->pipe->pending[i].prepare < 0;
        bool sent = true;
        for (int i = 0; i < count && sent; i++)
            sent = pipe_send(l, &q[i]);
        if (!sent && l->pipe->status == STORE_OK)
            l->pipe->status = PQstatus(c) == CONNECTION_OK ? STORE_HARD : STORE_UNAVAILABLE;
        PGresult *all[PIPE_MAX] = {0};
        pipe_read_all(l, all);
        for (int i = 0; i < count && before + i < PIPE_MAX; i++)
            res[i] = all[before + i];
        for (int i = 0; i < before; i++)
            PQclear(all[i]);
        st = l->pipe->status;
    }
    if (st != STORE_OK)
        for (int i = 0; i < count; i++) {
            PQclear(res[i]);
            res[i] = NULL;
        }
    return st;
}

int store_query(PGconn *c, const struct store_stmt *q, PGresult **res)
{
    return store_queries(c, 1, q, res);
}

int store_command(PGconn *c, const struct store_stmt *q)
{
    struct lease *l = running;
    if (!l || l->conn != c || !l->pipe) {
        PGresult *r;
        int st = store_queries(c, 1, q, &r);
        PQclear(r);
        return st;
    }
    if (l->pipe->status != STORE_OK)
        return l->pipe->status;
    if (l->pipe->npending > PIPE_MAX - 4) { /* read what is queued to make room */
        PGresult *all[PIPE_MAX] = {0};
        pipe_read_all(l, all);
        for (int i = 0; i < PIPE_MAX; i++)
            PQclear(all[i]);
        if (l->pipe->status != STORE_OK)
            return l->pipe->status;
    }
    if (!pipe_send(l, q))
        l->pipe->status = PQstatus(c) == CONNECTION_OK ? STORE_HARD : STORE_UNAVAILABLE;
    return l->pipe->status;
}

/*
** Transactions
*/

/* Opens a pipelined transaction on l: BEGIN is queued, to travel with the first statement. */
static int begin_tx(struct lease *l, struct pipe *p)
{
    memset(p, 0, sizeof *p);
    if (PQenterPipelineMode(l->conn) != 1)
        return store_status_of(l->conn, NULL, "BEGIN");
    l->pipe = p;
    if (!PQsendQueryParams(l->conn, "BEGIN", 0, NULL, NULL, NULL, NULL, 0) ||
        !pipe_push(p, "BEGIN", -1))
        p->status = PQstatus(l->conn) == CONNECTION_OK ? STORE_HARD : STORE_UNAVAILABLE;
    return STORE_OK;
}

static const char sql_notify[] = "SELECT pg_notify($1, $2)";
static const char sql_notify_list[] = "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p";
static const char sql_notify_list_async[] =
    "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, p) "
    "FROM unnest($2::text[]) AS p";

bool store_text_array(char *buf, size_t n, const char *const *items, int count)
{
    size_t k = 0;
    if (n < 3)
        return false;
    buf[k++] = '{';
    for (int i = 0; i < count; i++) {
        if (k + strlen(items[i]) * 2 + 4 >= n)
            return false;
        if (i > 0)
            buf[k++] = ',';
        buf[k++] = '"';
        for (const char *c = items[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                buf[k++] = '\\';
            buf[k++] = *c;
        }
        buf[k++] = '"';
    }
    buf[k++] = '}';
    buf[k] = 0;
    return true;
}

/* Queues, after COMMIT, the notifications as a transaction of their own: NOTIFY holds a
 * database-wide lock from its commit until the commit is durable, so inside the write it made
 * every writer wait for the others' WAL flushes in turn (make bench: about 500 orders/s
 * before, thousands after). Here one statement per channel runs in the implicit transaction
 * that ends at the pipeline's Sync, committed without waiting for the flush (a notification
 * is only a wake-up: a listener that misses one after a crash reconnects and rereads), so the
 * lock is held for microseconds. A failed COMMIT aborts the rest of the pipeline, so nothing
 * is announced that did not happen. */
static bool send_notifications(struct lease *l, struct pipe *p)
{
    char list[MAX_NOTIFY * (2 * NOTIFY_LEN + 4) + 4];
    bool first = true;
    for (int i = 0; i < p->nnotify; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(p->channel[j], p->channel[i]) == 0;
        if (seen)
            continue;
        const char *payloads[MAX_NOTIFY];
        int np = 0;
        for (int j = i; j < p->nnotify; j++)
            if (strcmp(p->channel[j], p->channel[i]) == 0)
                payloads[np++] = p->payload[j];
        if (!store_text_array(list, sizeof list, payloads, np))
            return false;
        const char *vals[2] = {p->channel[i], list};
        const struct store_stmt q = {"notify", first ? sql_notify_list_async : sql_notify_list, 2,
                                     vals, NULL};
        if (!pipe_send(l, &q))
            return false;
        first = false;
    }
    return true;
}

int store_notify_on_commit(PGconn *c, const char *channel, const char *payload)
{
    struct lease *l = running;
    if (!l || l->conn != c || !l->pipe) {
        const char *vals[2] = {channel, payload};
        const struct store_stmt q = {"notify", sql_notify, 2, vals, NULL};
        return store_command(c, &q);
    }
    struct pipe *p = l->pipe;
    for (int i = 0; i < p->nnotify; i++)
        if (strcmp(p->channel[i], channel) == 0 && strcmp(p->payload[i], payload) == 0)
            return STORE_OK; /* already to be sent */
    if (p->nnotify >= MAX_NOTIFY || strlen(channel) >= sizeof p->channel[0] ||
        strlen(payload) >= sizeof p->payload[0]) {
        log_line("notify", "too many notifications in one transaction, or too long");
        return STORE_HARD;
    }
    snprintf(p->channel[p->nnotify], sizeof p->channel[0], "%s", channel);
    snprintf(p->payload[p->nnotify++], sizeof p->payload[0], "%s", payload);
    return STORE_OK;
}

/* Ends the transaction on l: COMMIT when rc is STORE_OK and nothing failed, else ROLLBACK;
 * reads every queued result, leaves pipeline mode. Returns the final status: rc, the first
 * failure of a queued statement, or what a failed COMMIT maps to. */
static int finish_tx(struct lease *l, int rc)
{
    struct pipe *p = l->pipe;
    bool commit = rc == STORE_OK && p->status == STORE_OK;
    /* Make room for COMMIT and the notifications (each may need a PREPARE too). */
    if (commit && p->npending + 2 + 2 * MAX_NOTIFY > PIPE_MAX) {
        PGresult *all[PIPE_MAX] = {0};
        pipe_read_all(l, all);
        for (int i = 0; i < PIPE_MAX; i++)
            PQclear(all[i]);
        commit = p->status == STORE_OK;
    }
    int commit_entry = -1;
    bool committed = false, notified = true;
    if (PQstatus(l->conn) == CONNECTION_OK) {
        const char *end = commit ? "COMMIT" : "ROLLBACK";
        if (PQsendQueryParams(l->conn, end, 0, NULL, NULL, NULL, NULL, 0) &&
            pipe_push(p, end, -1)) {
            commit_entry = commit ? p->npending - 1 : -1;
            p->commit_sent = commit;
        } else if (p->status == STORE_OK) {
            p->status = STORE_HARD;
        }
        if (p->commit_sent && p->nnotify > 0)
            notified = send_notifications(l, p);
    }
    if (PQstatus(l->conn) == CONNECTION_OK && PQpipelineSync(l->conn) == 1) {
        for (int i = 0; i < p->npending; i++) {
            PGresult *r = pipe_read(l, &p->pending[i]);
            if (i == commit_entry)
                committed = r != NULL && strcmp(PQcmdStatus(r), "COMMIT") == 0;
            PQclear(r);
        }
        PGresult *sync = PQgetResult(l->conn);
        if ((!sync || PQresultStatus(sync) != PGRES_PIPELINE_SYNC) && p->status == STORE_OK)
            p->status = store_status_of(l->conn, sync, "sync");
        PQclear(sync);
    } else if (p->status == STORE_OK) {
        p->status = PQstatus(l->conn) == CONNECTION_OK ? STORE_HARD : STORE_UNAVAILABLE;
    }
    p->npending = 0;
    l->pipe = NULL;
    if (PQstatus(l->conn) == CONNECTION_OK) {
        if (PQexitPipelineMode(l->conn) != 1) {
            lease_discard(l);
        } else if (PQtransactionStatus(l->conn) != PQTRANS_IDLE) {
            PGresult *r = PQexec(l->conn, "ROLLBACK"); /* a failed BEGIN block */
            if (store_status_of(l->conn, r, "ROLLBACK") != STORE_OK)
                lease_discard(l);
            PQclear(r);
        }
    }
    if (rc != STORE_OK)
        return rc == STORE_ABORT && p->status != STORE_OK && p->status != STORE_HARD ? p->status
                                                                                     : rc;
    if (committed) {
        /* Done, whatever befell the notifications after it: a committed write must never be
         * reported as failed (a caller would run it again). Listeners catch up on their next
         * notification or reconnection. */
        if (p->status != STORE_OK || !notified)
            log_line("NOTIFY", "the notifications after a COMMIT failed; the write stands");
        return STORE_OK;
    }
    if (p->commit_sent && p->status != STORE_RETRY && PQstatus(l->conn) != CONNECTION_OK)
        return STORE_UNAVAILABLE; /* COMMIT went out and no answer came back: unknown */
    return p->status == STORE_OK ? STORE_HARD : p->status;
}

/* Runs a body on l's connection, where the store's statement functions can find it. */
static int run_body(struct lease *l, store_tx_fn fn, void *ctx, const char *who)
{
    running = l;
    int rc = fn(l->conn, ctx);
    running = NULL;
    if (rc < STORE_OK || rc > STORE_ABORT) {
        log_line(who, "the body returned an unknown status");
        rc = STORE_HARD;
    }
    return rc;
}

int store_tx(struct store *st, store_tx_fn fn, void *ctx, int attempts)
{
    assert(st && fn);
    if (attempts < 1)
        attempts = 1;
    bool stale_retried = false;
    for (int attempt = 1;; attempt++) {
        struct lease l;
        int rc = pool_acquire(st, &l);
        if (rc != STORE_OK)
            return rc;
        struct pipe p;
        rc = begin_tx(&l, &p);
        if (rc == STORE_OK)
            rc = finish_tx(&l, run_body(&l, fn, ctx, "store_tx"));
        bool fresh = l.fresh;
        pool_release(st, &l);
        /* A reused connection that the server had closed (a restart): nothing reached the
         * database, so run the body once more on a new connection. */
        if (rc == STORE_UNAVAILABLE && !fresh && !p.commit_sent && !stale_retried) {
            stale_retried = true;
            attempt--;
            continue;
        }
        if (rc == STORE_RETRY)
            metrics_tx_conflict(attempt >= attempts);
        if (rc != STORE_RETRY || attempt >= attempts)
            return rc;
        backoff(st, attempt);
    }
}

int store_run(struct store *st, store_tx_fn fn, void *ctx)
{
    assert(st && fn);
    for (int tries = 0;; tries++) {
        struct lease l;
        int rc = pool_acquire(st, &l);
        if (rc != STORE_OK)
            return rc;
        rc = run_body(&l, fn, ctx, "store_run");
        bool fresh = l.fresh;
        pool_release(st, &l);
        if (rc != STORE_UNAVAILABLE || fresh || tries > 0)
            return rc;
        /* A reused connection died since its last use: try once more on a new one. */
    }
}

bool store_ping(struct store *st)
{
    assert(st);
    for (int tries = 0; tries < 2; tries++) {
        struct lease l;
        if (pool_acquire(st, &l) != STORE_OK)
            return false;
        int rc = exec_simple(l.conn, "SELECT 1", "ping");
        bool fresh = l.fresh;
        pool_release(st, &l);
        if (rc == STORE_OK)
            return true;
        if (fresh || rc != STORE_UNAVAILABLE)
            return false;
        /* A reused connection died since its last use: try once more on a new one. */
    }
    return false;
}

int store_session(struct store *st, store_session_fn fn, void *ctx)
{
    assert(st && fn);
    struct lease l;
    int rc = pool_acquire(st, &l);
    if (rc != STORE_OK)
        return rc;
    bool discard = false;
    rc = fn(l.conn, ctx, &discard);
    if (discard)
        lease_discard(&l);
    pool_release(st, &l);
    return rc;
}
