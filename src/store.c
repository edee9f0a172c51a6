/* store.c: the infrastructure half of the store: a fixed pool of PostgreSQL connections made
 * lazily and re-made after a failure, the transaction runner that retries on serialization
 * failures and deadlocks, the mapping of libpq results to enum store_status, and the
 * migration runner. The named queries of the service live beside it and use these.
 *
 * Pool: `size` slots, each holding NULL or one PGconn, and a busy flag. A caller takes a free
 * slot under the mutex (waiting on the condition variable while all are busy), then connects
 * or checks the connection outside the mutex, so a slow connect never blocks other callers.
 * A connection that is broken when it comes back is closed; the next caller to take its slot
 * makes a new one. Connecting uses connect_timeout=3 unless the caller's conninfo or
 * PGCONNECT_TIMEOUT says otherwise, so an unreachable database answers STORE_UNAVAILABLE
 * within seconds, not minutes. */
#include "store.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The key of the session advisory lock that serializes migrations ("City" in ASCII). */
#define MIGRATION_LOCK_KEY "1130918009"

/* The largest migration file read, in bytes. */
#define MIGRATION_MAX_BYTES (16 * 1024 * 1024)

/* Connection parameters added when the caller's conninfo does not set them. */
#define DEFAULT_CONNECT_TIMEOUT  "3"
#define DEFAULT_APPLICATION_NAME "cityd"

struct slot {
    PGconn *conn; /* NULL until connected, and again after a failure */
    bool busy;    /* taken by a caller */
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

/* A connection taken from the pool: release it with pool_release(). */
struct lease {
    int slot;
    PGconn *conn;
    bool fresh; /* made by this acquire, not reused */
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
 * outage). */
static PGconn *pool_connect(struct store *st)
{
    PGconn *conn = PQconnectdbParams(st->keys, st->vals, 0);
    bool ok = conn && PQstatus(conn) == CONNECTION_OK;
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
    }
    l->conn = conn;
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

/* Takes a connection and, when `begin`, opens a transaction on it. A reused connection that
 * turns out to be dead at BEGIN is replaced once by a new one: nothing has run yet. */
static int acquire_and_begin(struct store *st, struct lease *l, bool begin)
{
    for (int tries = 0;; tries++) {
        int rc = pool_acquire(st, l);
        if (rc != STORE_OK || !begin)
            return rc;
        rc = exec_simple(l->conn, "BEGIN", "BEGIN");
        if (rc == STORE_OK)
            return rc;
        bool stale = rc == STORE_UNAVAILABLE && !l->fresh && tries == 0;
        lease_discard(l);
        pool_release(st, l);
        if (!stale)
            return rc;
    }
}

/* Ends the transaction on l: COMMIT when rc is STORE_OK, else ROLLBACK. Returns the final
 * status: rc, or what a failed COMMIT maps to. */
static int finish_tx(struct lease *l, int rc)
{
    if (rc == STORE_OK) {
        PGresult *r = PQexec(l->conn, "COMMIT");
        rc = store_status_of(l->conn, r, "COMMIT");
        /* COMMIT of a transaction that had failed answers "ROLLBACK": the body swallowed an
         * error and said OK, and nothing was saved. */
        if (rc == STORE_OK && strcmp(PQcmdStatus(r), "ROLLBACK") == 0) {
            log_line("COMMIT", "the transaction had failed and was rolled back (a body returned "
                               "STORE_OK after a failed query)");
            rc = STORE_HARD;
        }
        PQclear(r);
        return rc;
    }
    if (PQstatus(l->conn) == CONNECTION_OK) {
        PGresult *r = PQexec(l->conn, "ROLLBACK");
        if (store_status_of(l->conn, r, "ROLLBACK") != STORE_OK)
            lease_discard(l);
        PQclear(r);
    }
    return rc;
}

int store_tx(struct store *st, store_tx_fn fn, void *ctx, int attempts)
{
    assert(st && fn);
    if (attempts < 1)
        attempts = 1;
    for (int attempt = 1;; attempt++) {
        struct lease l;
        int rc = acquire_and_begin(st, &l, true);
        if (rc != STORE_OK)
            return rc;
        rc = fn(l.conn, ctx);
        if (rc < STORE_OK || rc > STORE_ABORT) {
            log_line("store_tx", "the transaction body returned an unknown status");
            rc = STORE_HARD;
        }
        rc = finish_tx(&l, rc);
        pool_release(st, &l);
        if (rc != STORE_RETRY || attempt >= attempts)
            return rc;
        backoff(st, attempt);
    }
}

int store_run(struct store *st, store_tx_fn fn, void *ctx)
{
    assert(st && fn);
    struct lease l;
    int rc = acquire_and_begin(st, &l, false);
    if (rc != STORE_OK)
        return rc;
    rc = fn(l.conn, ctx);
    if (rc < STORE_OK || rc > STORE_ABORT) {
        log_line("store_run", "the body returned an unknown status");
        rc = STORE_HARD;
    }
    pool_release(st, &l);
    return rc;
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

/*
** Migrations
*/

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Lists the files of dir named NNNN_*.sql, sorted by name, into *out (caller frees with
 * free_names). False with a sentence in err when dir cannot be read, memory runs out, or two
 * files share a number. */
static bool list_migrations(const char *dir, char ***out, size_t *count, char *err, int errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, (size_t)errlen, "cannot read the migrations directory %s: %s", dir,
                 strerror(errno));
        return false;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    bool ok = true;
    while ((e = readdir(d))) {
        if (fnmatch("[0-9][0-9][0-9][0-9]_*.sql", e->d_name, FNM_PERIOD) != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                ok = false;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(e->d_name))) {
            ok = false;
            break;
        }
        n++;
    }
    closedir(d);
    if (!ok) {
        free_names(names, n);
        snprintf(err, (size_t)errlen, "out of memory");
        return false;
    }
    if (n)
        qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 1; i < n; i++)
        if (strncmp(names[i - 1], names[i], 4) == 0) {
            snprintf(err, (size_t)errlen, "migrations %s and %s share the number %.4s",
                     names[i - 1], names[i], names[i]);
            free_names(names, n);
            return false;
        }
    *out = names;
    *count = n;
    return true;
}

/* Reads a whole file into a NUL-terminated buffer (caller frees). NULL with a sentence in
 * err when it cannot be read, is too large, or holds a NUL byte. */
static char *read_text_file(const char *path, char *err, int errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, (size_t)errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (n + 1 == cap) {
            if (cap >= MIGRATION_MAX_BYTES) {
                snprintf(err, (size_t)errlen, "%s is larger than %d bytes", path,
                         MIGRATION_MAX_BYTES);
                free(buf);
                fclose(f);
                return NULL;
            }
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        snprintf(err, (size_t)errlen, "cannot read %s: %s", path,
                 buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    if (strlen(buf) != n) {
        snprintf(err, (size_t)errlen, "%s contains a NUL byte", path);
        free(buf);
        return NULL;
    }
    return buf;
}

/* Copies the first line of a libpq error message into err after a prefix. */
static void pq_error(char *err, int errlen, const char *prefix, PGconn *conn, const PGresult *res)
{
    const char *msg = res ? PQresultErrorMessage(res) : "";
    if (!msg || !*msg)
        msg = PQerrorMessage(conn);
    if (!msg || !*msg)
        msg = res ? PQresStatus(PQresultStatus(res)) : "no result";
    int len = (int)strcspn(msg, "\n");
    snprintf(err, (size_t)errlen, "%s: %.*s", prefix, len, msg);
}

/* Runs one statement with text parameters; on failure fills err and returns the status. The
 * result is returned through *out when out is not NULL (caller clears), else cleared. */
static int exec_params(PGconn *conn, const char *sql, int n, const char *const *vals,
                       PGresult **out, const char *what, char *err, int errlen)
{
    PGresult *r = PQexecParams(conn, sql, n, NULL, vals, NULL, NULL, 0);
    int rc = store_status_of(conn, r, what);
    if (rc != STORE_OK)
        pq_error(err, errlen, what, conn, r);
    if (out && rc == STORE_OK)
        *out = r;
    else
        PQclear(r);
    return rc;
}

/* Applies migration `name` (version `version`) unless it is recorded. Holds the advisory lock
 * already. */
static int apply_one(PGconn *conn, const char *dir, const char *name, char *err, int errlen)
{
    char version[16];
    snprintf(version, sizeof version, "%d", atoi(name));
    const char *vals[2] = {version, name};
    PGresult *r = NULL;
    int rc = exec_params(conn, "SELECT name FROM schema_migrations WHERE version = $1", 1, vals, &r,
                         "migrations: lookup", err, errlen);
    if (rc != STORE_OK)
        return rc;
    if (PQntuples(r) > 0) {
        bool same = strcmp(PQgetvalue(r, 0, 0), name) == 0;
        if (!same)
            snprintf(err, (size_t)errlen,
                     "migration %s: version %s is recorded as applied under the name %s", name,
                     version, PQgetvalue(r, 0, 0));
        PQclear(r);
        return same ? STORE_OK : STORE_HARD;
    }
    PQclear(r);

    size_t plen = strlen(dir) + strlen(name) + 2;
    char *path = malloc(plen);
    if (!path) {
        snprintf(err, (size_t)errlen, "out of memory");
        return STORE_HARD;
    }
    snprintf(path, plen, "%s/%s", dir, name);
    char *sql = read_text_file(path, err, errlen);
    free(path);
    if (!sql)
        return STORE_HARD;

    rc = exec_simple(conn, "BEGIN", "migrations: BEGIN");
    if (rc != STORE_OK) {
        free(sql);
        pq_error(err, errlen, "migrations: BEGIN", conn, NULL);
        return rc;
    }
    r = PQexec(conn, sql);
    free(sql);
    if (r && PQresultStatus(r) == PGRES_EMPTY_QUERY) {
        rc = STORE_OK;
    } else {
        char what[300];
        snprintf(what, sizeof what, "migration %s", name);
        rc = store_status_of(conn, r, what);
        if (rc != STORE_OK)
            pq_error(err, errlen, what, conn, r);
    }
    PQclear(r);
    if (rc == STORE_OK)
        rc = exec_params(conn, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", 2,
                         vals, NULL, "migrations: record", err, errlen);
    if (rc == STORE_OK) {
        r = PQexec(conn, "COMMIT");
        rc = store_status_of(conn, r, "migrations: COMMIT");
        if (rc == STORE_OK && strcmp(PQcmdStatus(r), "COMMIT") != 0) {
            snprintf(err, (size_t)errlen,
                     "migration %s: its transaction ended early "
                     "(does the file hold its own BEGIN/COMMIT?)",
                     name);
            rc = STORE_HARD;
        } else if (rc != STORE_OK) {
            pq_error(err, errlen, "migrations: COMMIT", conn, r);
        }
        PQclear(r);
    }
    if (rc != STORE_OK && PQstatus(conn) == CONNECTION_OK &&
        PQtransactionStatus(conn) != PQTRANS_IDLE)
        PQclear(PQexec(conn, "ROLLBACK"));
    return rc;
}

int store_migrate(struct store *st, const char *dir, char *err, int errlen)
{
    assert(st && dir && err && errlen > 0);
    err[0] = 0;
    char **names = NULL;
    size_t n = 0;
    if (!list_migrations(dir, &names, &n, err, errlen))
        return STORE_HARD;

    struct lease l;
    int rc = pool_acquire(st, &l);
    if (rc != STORE_OK) {
        snprintf(err, (size_t)errlen, "cannot connect to the database to apply migrations");
        free_names(names, n);
        return rc;
    }
    const char *key[1] = {MIGRATION_LOCK_KEY};
    rc = exec_params(l.conn, "SELECT pg_advisory_lock($1::bigint)", 1, key, NULL,
                     "migrations: lock", err, errlen);
    bool locked = rc == STORE_OK;
    if (rc == STORE_OK)
        rc = exec_params(l.conn,
                         "CREATE TABLE IF NOT EXISTS schema_migrations ("
                         " version int PRIMARY KEY,"
                         " name text NOT NULL,"
                         " applied_at timestamptz NOT NULL DEFAULT now())",
                         0, NULL, NULL, "migrations: create table", err, errlen);
    for (size_t i = 0; rc == STORE_OK && i < n; i++)
        rc = apply_one(l.conn, dir, names[i], err, errlen);
    if (locked && PQstatus(l.conn) == CONNECTION_OK) {
        char unlock_err[256];
        PGresult *r = NULL;
        int urc = exec_params(l.conn, "SELECT pg_advisory_unlock($1::bigint)", 1, key, &r,
                              "migrations: unlock", unlock_err, (int)sizeof unlock_err);
        bool released = urc == STORE_OK && PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
        PQclear(r);
        if (!released)
            lease_discard(&l); /* closing the session releases the lock */
    }
    pool_release(st, &l);
    free_names(names, n);
    if (rc != STORE_OK && !err[0])
        snprintf(err, (size_t)errlen, "migrations failed");
    return rc;
}
