/* store.c: the statement half of the store: named prepared statements, libpq's pipeline mode,
 * the transaction runner that retries on serialization failures and deadlocks, and NOTIFY after
 * COMMIT. It runs on connections leased from the pool (store_pool.c, through store_int.h). The
 * named queries of the service live beside it (store_games.c) and use these.
 *
 * Statements: every statement is a named prepared statement, prepared on a connection the
 * first time it runs there (each slot remembers which, and forgets when its connection is
 * re-made). A transaction runs in libpq's pipeline mode: BEGIN is sent with the first query,
 * statements whose result is not needed (store_command) are only queued, and they travel
 * with the next query or with COMMIT. An order is thus two round trips to the server (read
 * and lock; write and commit) instead of one per statement; a failure of a queued statement
 * fails the transaction at the point where its result is read. */
#include "store.h"
#include "store_int.h"

#include "metrics.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The most statements (distinct SQL texts) the store prepares, and the most results a
 * transaction leaves unread before it reads them all. */
enum { MAX_STATEMENTS = 64, PIPE_MAX = 512, MAX_NOTIFY = 128, NOTIFY_LEN = 96 };

/* How long the answer to COMMIT may take before the connection is dropped (never cancelled:
 * a cancelled wait for the synchronous standby leaves the commit standing on one node, and
 * the server then reports success). With strict synchronous replication a COMMIT waits while
 * no standby is there; past this bound the outcome is unknown and the client is told so. */
enum { COMMIT_WAIT_MS = 15000 };

/* A result still to be read in a pipelined transaction. */
struct pending {
    const char *what; /* for the log */
    int prepare;      /* the statement a PREPARE was for, or -1 */
};

/* A transaction in pipeline mode (see the top of the file). */
struct pipe {
    int npending;
    struct pending pending[PIPE_MAX];
    int status;            /* the first failure read so far, or STORE_OK */
    bool commit_sent;      /* COMMIT went out: a broken connection now leaves the outcome unknown */
    long long deadline_ms; /* CLOCK_MONOTONIC ms after which reads drop the connection, or 0 */
    int nnotify;           /* notifications to send once committed (store_notify_on_commit) */
    char channel[MAX_NOTIFY][32];
    char payload[MAX_NOTIFY][NOTIFY_LEN];
};

/* The lease whose body runs on this thread (store_tx and store_run set it). */
static _Thread_local struct lease *running;

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
    assert(q->n <= STORE_MAX_PARAMS);
    if (l->pipe->npending + 2 > PIPE_MAX) {
        store_log(q->what, "too many statements queued in one transaction");
        return false; /* nothing sent: the reads stay in step */
    }
    int fmts[STORE_MAX_PARAMS] = {0};
    for (int i = 0; i < q->n; i++)
        fmts[i] = q->lens && q->lens[i] > 0;
    int idx = q->fresh_plan ? -1 : stmt_index(q->sql);
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

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until a result can be read from l without blocking, or until the pipe's deadline
 * (when it has one): then closes the connection (no cancel request: see COMMIT_WAIT_MS), so
 * the reads that follow fail as on a broken connection. */
static void await_input(struct lease *l)
{
    struct pipe *p = l->pipe;
    if (!p || !p->deadline_ms || !l->conn)
        return;
    while (PQstatus(l->conn) == CONNECTION_OK && PQisBusy(l->conn)) {
        long long left = p->deadline_ms - mono_ms();
        struct pollfd pfd = {.fd = PQsocket(l->conn), .events = POLLIN};
        int r = left > 0 ? poll(&pfd, 1, (int)(left < 1000 ? left : 1000)) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 && mono_ms() < p->deadline_ms)
            continue;
        if (r <= 0) {
            store_log("COMMIT", "no answer in time: the connection is dropped, outcome unknown");
            store_lease_discard(l);
            return;
        }
        if (!PQconsumeInput(l->conn))
            return; /* broken: PQgetResult reports it */
    }
}

/* Reads the result of pending entry `e` (and the NULL that ends it). Returns the result, or
 * NULL (recording the failure in the pipe) when the statement failed or was skipped after an
 * earlier failure. */
static PGresult *pipe_read(struct lease *l, const struct pending *e)
{
    struct pipe *p = l->pipe;
    await_input(l);
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
            store_log(e->what, "pipeline out of step: a second result");
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
        store_lease_discard(l); /* out of step: start again on a new connection */
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
        store_log(q[0].what, "a statement ran outside store_tx() and store_run()");
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

int store_commit_lazily(PGconn *c)
{
    return store_command(c,
                         &(struct store_stmt){"lazy commit", "SET LOCAL synchronous_commit = off",
                                              0, NULL, NULL, false});
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
        const struct store_stmt q = {
            "notify", first ? sql_notify_list_async : sql_notify_list, 2, vals, NULL, false};
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
        const struct store_stmt q = {"notify", sql_notify, 2, vals, NULL, false};
        return store_command(c, &q);
    }
    struct pipe *p = l->pipe;
    for (int i = 0; i < p->nnotify; i++)
        if (strcmp(p->channel[i], channel) == 0 && strcmp(p->payload[i], payload) == 0)
            return STORE_OK; /* already to be sent */
    if (p->nnotify >= MAX_NOTIFY || strlen(channel) >= sizeof p->channel[0] ||
        strlen(payload) >= sizeof p->payload[0]) {
        store_log("notify", "too many notifications in one transaction, or too long");
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
            if (commit) {
                *l->syncrep_cut = false;
                p->deadline_ms = mono_ms() + COMMIT_WAIT_MS;
            }
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
        await_input(l);
        PGresult *sync = PQgetResult(l->conn);
        if ((!sync || PQresultStatus(sync) != PGRES_PIPELINE_SYNC) && p->status == STORE_OK)
            p->status = store_status_of(l->conn, sync, "sync");
        PQclear(sync);
    } else if (p->status == STORE_OK) {
        p->status = PQstatus(l->conn) == CONNECTION_OK ? STORE_HARD : STORE_UNAVAILABLE;
    }
    p->npending = 0;
    l->pipe = NULL;
    bool cut = p->commit_sent && *l->syncrep_cut;
    if (cut) /* committed here, maybe not on the standby: this session is done with */
        store_lease_discard(l);
    if (PQstatus(l->conn) == CONNECTION_OK) {
        if (PQexitPipelineMode(l->conn) != 1) {
            store_lease_discard(l);
        } else if (PQtransactionStatus(l->conn) != PQTRANS_IDLE) {
            PGresult *r = PQexec(l->conn, "ROLLBACK"); /* a failed BEGIN block */
            if (store_status_of(l->conn, r, "ROLLBACK") != STORE_OK)
                store_lease_discard(l);
            PQclear(r);
        }
    }
    if (rc != STORE_OK)
        return rc == STORE_ABORT && p->status != STORE_OK && p->status != STORE_HARD ? p->status
                                                                                     : rc;
    if (cut || (p->commit_sent && !committed &&
                (PQstatus(l->conn) != CONNECTION_OK || p->status == STORE_UNAVAILABLE))) {
        /* COMMIT went out and no answer came back, or the server gave up waiting for the
         * synchronous standby: the write may or may not stand. */
        store_log("COMMIT", cut ? "the wait for the synchronous standby was cancelled: outcome "
                                  "unknown"
                                : "the connection broke after COMMIT was sent: outcome unknown");
        return STORE_UNKNOWN;
    }
    if (committed) {
        /* Done, whatever befell the notifications after it: a committed write must never be
         * reported as failed (a caller would run it again). Listeners catch up on their next
         * notification or reconnection. */
        if (p->status != STORE_OK || !notified)
            store_log("NOTIFY", "the notifications after a COMMIT failed; the write stands");
        return STORE_OK;
    }
    return p->status == STORE_OK ? STORE_HARD : p->status;
}

/* Runs a body on l's connection, where the store's statement functions can find it. */
static int run_body(struct lease *l, store_tx_fn fn, void *ctx, const char *who)
{
    running = l;
    int rc = fn(l->conn, ctx);
    running = NULL;
    if (rc < STORE_OK || rc > STORE_ABORT) {
        store_log(who, "the body returned an unknown status");
        rc = STORE_HARD;
    }
    return rc;
}

int store_tx(struct store *st, store_tx_fn fn, void *ctx, int attempts)
{
    assert(st && fn);
    if (attempts < 1)
        attempts = 1;
    bool stale_retried = false, renew = false;
    for (int attempt = 1;; attempt++) {
        struct lease l;
        int rc = store_pool_acquire(st, &l, renew);
        renew = false;
        if (rc != STORE_OK)
            return rc;
        struct pipe p;
        rc = begin_tx(&l, &p);
        if (rc == STORE_OK)
            rc = finish_tx(&l, run_body(&l, fn, ctx, "store_tx"));
        bool fresh = l.fresh;
        store_pool_release(st, &l);
        /* A reused connection that the server had closed (a restart): nothing reached the
         * database, so run the body once more on a new connection. */
        if (rc == STORE_UNAVAILABLE && !fresh && !p.commit_sent && !stale_retried) {
            stale_retried = renew = true;
            attempt--;
            continue;
        }
        if (rc == STORE_UNKNOWN)
            store_count_unknown(st);
        if (rc == STORE_RETRY)
            metrics_tx_conflict(attempt >= attempts);
        if (rc != STORE_RETRY || attempt >= attempts)
            return rc;
        store_backoff(st, attempt);
    }
}

int store_run(struct store *st, store_tx_fn fn, void *ctx)
{
    assert(st && fn);
    for (int tries = 0;; tries++) {
        struct lease l;
        int rc = store_pool_acquire(st, &l, tries > 0);
        if (rc != STORE_OK)
            return rc;
        rc = run_body(&l, fn, ctx, "store_run");
        bool fresh = l.fresh;
        store_pool_release(st, &l);
        if (rc != STORE_UNAVAILABLE || fresh || tries > 0)
            return rc;
        /* A reused connection died since its last use: try once more on a new one. */
    }
}
