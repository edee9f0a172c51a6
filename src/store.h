/* store.h: the only code that speaks SQL. A pool of PostgreSQL connections, the migration
 * runner, one transaction runner that retries on serialization failures and deadlocks, and
 * the named, parameterized queries of the service. Every call returns one enum store_status. */
#ifndef CITY_STORE_H
#define CITY_STORE_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

enum store_status {
    STORE_OK = 0,      /* done (for a lookup: one row found) */
    STORE_NO_ROW,      /* a lookup found nothing */
    STORE_RETRY,       /* serialization failure or deadlock: the transaction may be re-run */
    STORE_UNAVAILABLE, /* the database cannot be reached now (the service answers 503) */
    STORE_HARD,        /* any other failure: a bug or a broken database */
    STORE_ABORT,       /* the transaction body chose to roll back (a 4xx, say) */
    STORE_UNKNOWN,     /* COMMIT was sent but its outcome is unknown: the connection broke before
                        * the answer, or the wait for the synchronous standby was cancelled (the
                        * write may stand on one node only). The service answers 503; writes are
                        * idempotent, so the client's resend is safe. */
};

struct store;

/* Opens a pool of up to `size` connections to `conninfo` (a libpq connection string or URI).
 * Connections are made lazily and re-made after a failure, so this succeeds even while the
 * database is down, unless conninfo itself is malformed (then NULL, with a sentence in err).
 * The caller owns the pool and frees it with store_close(). */
struct store *store_open(const char *conninfo, int size, char *err, int errlen);
void store_close(struct store *st);

/* Applies migrations/NNNN_*.sql from `dir` in order, each in its own transaction, under a
 * session advisory lock, recording each in table schema_migrations; already applied ones
 * are skipped, so a second instance starting at the same time waits, then skips. Returns
 * STORE_OK or an error with a sentence in err. */
int store_migrate(struct store *st, const char *dir, char *err, int errlen);

/* The body of a transaction: runs on `conn` inside BEGIN ... COMMIT. Returns STORE_OK to
 * commit, STORE_ABORT to roll back, or the status of a failed query (which rolls back; a
 * STORE_RETRY re-runs the whole body). The body must not commit or roll back itself, and
 * must be safe to run again from the start. */
typedef int (*store_tx_fn)(PGconn *conn, void *ctx);

/* The retry policy: how many times store_tx() tries a transaction that conflicts (a
 * serialization failure or deadlock, 40001/40P01). A write that locks a game row contends only
 * with writes of that game, and a client's order must not fail for a race it did not lose:
 * STORE_TRIES_WRITE. Reads, sweeps and inserts of new rows rarely conflict and can wait for the
 * next pass or a client's retry: STORE_TRIES_READ. */
enum { STORE_TRIES_READ = 3, STORE_TRIES_WRITE = 5 };

/* Runs `fn` in one transaction on a pooled connection, with up to `attempts` tries when it
 * returns STORE_RETRY (or COMMIT fails with 40001/40P01). Returns the body's status
 * (STORE_OK once committed), STORE_UNAVAILABLE when no connection could be made or it broke
 * before COMMIT went out (nothing was written), STORE_UNKNOWN when it broke after (or the
 * synchronous standby's acknowledgement was cancelled), or STORE_HARD. Never cancels a COMMIT.
 * Blocks while every pooled connection is busy. Thread-safe. */
int store_tx(struct store *st, store_tx_fn fn, void *ctx, int attempts);

/* Runs `fn` on a pooled connection without a transaction (for reads that need no lock). Same
 * statuses as store_tx(), without retries. */
int store_run(struct store *st, store_tx_fn fn, void *ctx);

/* A body run by store_session() on a pooled connection, outside any transaction; it sets
 * *discard to have the connection closed rather than pooled again (a session whose state it
 * could not undo). Returns a store status. */
typedef int (*store_session_fn)(PGconn *conn, void *ctx, bool *discard);

/* Runs fn on a pooled connection (connecting when needed); STORE_UNAVAILABLE when none can be
 * made, else fn's status. For the migration runner: service code uses store_tx(). */
int store_session(struct store *st, store_session_fn fn, void *ctx);

/* Maps the result of PQexec*() to a status: PGRES_COMMAND_OK / PGRES_TUPLES_OK -> STORE_OK,
 * SQLSTATE 40001/40P01 -> STORE_RETRY, a broken connection or SQLSTATE class 08/57P0x ->
 * STORE_UNAVAILABLE, else STORE_HARD (logged on stderr with the statement's name). Does not
 * clear `res`. */
int store_status_of(PGconn *conn, const PGresult *res, const char *what);

/* One statement. `sql` must be a string literal (or otherwise live as long as the process):
 * its address names the prepared statement made from it. Parameters travel as text, except
 * where lens[i] > 0: then vals[i] points at lens[i] bytes of binary (bytea). */
/* The most parameters a statement takes. */
#define STORE_MAX_PARAMS 24

struct store_stmt {
    const char *what; /* a short name for the log */
    const char *sql;
    int n; /* parameters, at most STORE_MAX_PARAMS */
    const char *const *vals;
    const int *lens; /* NULL: all text */
    /* Planned afresh at every run instead of prepared once per connection: for a statement
     * whose best plan depends on how big its tables are now. A prepared statement's generic
     * plan is made once and kept until the next ANALYZE, so one made while a table was small
     * (a sequential scan) stays while the table grows. Costs a parse and a plan each run. */
    bool fresh_plan;
};

/* Runs `count` statements of a store_tx() or store_run() body on its connection `c` in one
 * round trip, with the commands the body queued before them (store_command), and fills
 * res[0..count) with their results (the caller clears each). Returns STORE_OK, or the status
 * of the first statement that failed, queued ones included; then every res[i] is NULL. In a
 * transaction each statement sees the effects of the ones before it, as usual; a statement
 * after a FOR UPDATE that had to wait takes a new snapshot, as usual in READ COMMITTED. */
int store_queries(PGconn *c, int count, const struct store_stmt *q, PGresult **res);

/* store_queries() with one statement. */
int store_query(PGconn *c, const struct store_stmt *q, PGresult **res);

/* A statement whose result the body does not need. In a store_tx() body it is only queued:
 * it travels with the next store_query() or with COMMIT, and its failure is reported there
 * (or as the transaction's status); what it returns now is the failure of an earlier
 * statement, or STORE_OK. Outside a transaction it runs at once. */
int store_command(PGconn *c, const struct store_stmt *q);

/* Lets the running store_tx() body's COMMIT return without waiting for the disk
 * (synchronous_commit off for this transaction alone, queued like store_command): for a
 * transaction whose commit promises nothing, such as a seat's sign of life, so that the request
 * carrying it does not wait for an fsync queued behind other commits. A crash may forget such a
 * transaction's last moments; every other transaction on the connection still waits (see
 * store_open). Returns as store_command does. */
int store_commit_lazily(PGconn *c);

/* Sends NOTIFY `channel` with `payload` once the running store_tx() body commits (right
 * after the COMMIT, in the same round trip, as a transaction of its own), and never when it
 * rolls back; the same pair twice is sent once. Outside a transaction: at once. STORE_HARD
 * when a transaction asks for more than 128 (the sweeper sends up to 3 x 32 and one for the
 * lobby) or the text is too long. */
int store_notify_on_commit(PGconn *c, const char *channel, const char *payload);

/* Writes to buf (of size n) the PostgreSQL array literal of the `count` strings in items,
 * each quoted and escaped, for a text[] parameter. False when it does not fit. */
bool store_text_array(char *buf, size_t n, const char *const *items, int count);

/* True when the database answers a trivial query now (for /healthz). */
bool store_ping(struct store *st);

/* What the pool has seen of its servers, for /metrics and /healthz. */
struct store_stats {
    unsigned long long connects;   /* connections made */
    unsigned long long reconnects; /* of them, made to replace one that broke */
    unsigned long long failovers;  /* reconnections that landed on another server than before */
    unsigned long long unknown;    /* transactions whose COMMIT outcome was unknown */
    char server[128]; /* "address:port" of the server the last connection reached, as the
                       * server sees itself ("" before; host:port over a unix socket) */
    bool down;        /* the last connection attempt failed */
};

/* A number that moves on whenever the pool may be talking to a database that is not the one it
 * talked to before: it reached another server, or the same server restarted, or it closed a
 * connection as broken. What a transaction committed at one epoch may be lost at a later one
 * (a failover to a standby without it, a restore), so memory of committed rows (live.c's
 * states) is trusted only at the epoch it was taken at. Thread-safe, lock-free. */
uint64_t store_epoch(struct store *st);

/* Fills *out with the pool's counters. Thread-safe. */
void store_stats(struct store *st, struct store_stats *out);

#endif
