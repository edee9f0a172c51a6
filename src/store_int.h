/* store_int.h: what the two halves of the store share, private to them: the connection pool
 * (store_pool.c) leases a connection, and the statement and transaction code (store.c) runs its
 * pipeline on it. Nothing outside src/store*.c includes this file. */
#ifndef CITY_STORE_INT_H
#define CITY_STORE_INT_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

struct store;
struct pipe; /* store.c's pipelined transaction */

/* A connection taken from the pool: release it with store_pool_release(). */
struct lease {
    int slot;
    PGconn *conn;
    bool fresh;         /* made by this acquire, not reused */
    uint64_t *prepared; /* the slot's prepared set (bit i: statement i) */
    struct pipe *pipe;  /* the open transaction, or NULL */
    bool discard;       /* close the connection when it comes back */
    bool *syncrep_cut;  /* set by the notice receiver when the server cancelled a commit's wait
                         * for its synchronous standby (the slot's flag; store.c clears it) */
};

/* Takes a slot, waiting while all are busy, and gives it a live connection in *l. With `renew`,
 * that connection is a new one: a caller whose reused connection turned out dead takes one,
 * because a restart or failover closes every idle connection at once, while the server's kill
 * reaches each session a moment later, so the others may still look alive. STORE_OK, or
 * STORE_UNAVAILABLE (the slot is released again) when no connection could be made. */
int store_pool_acquire(struct store *st, struct lease *l, bool renew);

/* Gives l's connection back. A broken one, or one left inside a transaction that cannot be
 * rolled back, is closed. */
void store_pool_release(struct store *st, struct lease *l);

/* Closes the leased connection at once (it is broken or holds a session state we cannot
 * undo); the slot connects again on its next use. */
void store_lease_discard(struct lease *l);

/* Sleeps a random 1..cap ms before a transaction's next attempt, cap doubling with each
 * attempt up to 64 ms. Thread-safe. */
void store_backoff(struct store *st, int attempt);

/* Counts a transaction whose COMMIT outcome was unknown in the pool's stats. Thread-safe. */
void store_count_unknown(struct store *st);

/* Writes "store: <what>: <msg>" to stderr as one line (each run of white space in msg, new
 * lines included, becomes one space). */
void store_log(const char *what, const char *msg);

#endif
