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

/* Runs `fn` in one transaction on a pooled connection, with up to `attempts` tries when it
 * returns STORE_RETRY (or COMMIT fails with 40001/40P01). Returns the body's status
 * (STORE_OK once committed), STORE_UNAVAILABLE when no connection could be made or it broke,
 * or STORE_HARD. Blocks while every pooled connection is busy. Thread-safe. */
int store_tx(struct store *st, store_tx_fn fn, void *ctx, int attempts);

/* Runs `fn` on a pooled connection without a transaction (for reads that need no lock). Same
 * statuses as store_tx(), without retries. */
int store_run(struct store *st, store_tx_fn fn, void *ctx);

/* Maps the result of PQexec*() to a status: PGRES_COMMAND_OK / PGRES_TUPLES_OK -> STORE_OK,
 * SQLSTATE 40001/40P01 -> STORE_RETRY, a broken connection or SQLSTATE class 08/57P0x ->
 * STORE_UNAVAILABLE, else STORE_HARD (logged on stderr with the statement's name). Does not
 * clear `res`. */
int store_status_of(PGconn *conn, const PGresult *res, const char *what);

/* True when the database answers a trivial query now (for /healthz). */
bool store_ping(struct store *st);

#endif
