/* batch.h: group commit for orders. Order submissions for different games that arrive while
 * others are being written share one transaction: one BEGIN, one round trip that reads and
 * locks all their games (FOR UPDATE, in id order, so that batches on several instances cannot
 * deadlock), each order applied to its game in arrival order, one round trip that writes them
 * all with COMMIT, one NOTIFY statement. A lone order is a batch of one and waits for nobody:
 * a batcher thread takes whatever is queued the moment it is free. Each order is still written
 * by a transaction that locks its game's row, and answered only after that transaction
 * committed; when a batch fails for a reason other than a retryable conflict, its orders are
 * run again one by one, so that one order's failure never becomes another's. */
#ifndef CITY_BATCH_H
#define CITY_BATCH_H

#include <libpq-fe.h>
#include <pthread.h>
#include <stdbool.h>

#include "live.h"

struct server;
struct batcher;

/* One order (or any write to one game) to run in a shared transaction. */
struct batch_job {
    const char *id; /* the game */
    /* Applies the job to its loaded, locked game `lv` (NULL when there is no such game). It
     * records its answer in ctx and returns STORE_OK whether the job was accepted or refused
     * (a refused job changes neither lv nor the database), or the status of a failed
     * statement, which fails the whole batch. It must be safe to run again after reset. */
    int (*apply)(PGconn *c, struct live *lv, void *ctx);
    void (*reset)(void *ctx); /* forgets what an earlier run of apply recorded */
    void *ctx;
    /* When set, called by the batcher thread once the job's transaction ended (job->status
     * set), instead of waking a waiter: the job is submitted with batcher_submit(). */
    void (*done_fn)(struct batch_job *job);
    /* The batcher's: */
    int status;     /* the transaction's status once done */
    bool published; /* its game's change was committed and announced on this instance
                       (live_committed): the job need not announce it again */
    bool done;
    pthread_cond_t cond; /* signalled when done */
    struct batch_job *next;
};

/* Starts `threads` batcher threads, each taking up to `max_batch` queued jobs (at most
 * STORE_MAX_GAMES_LOADED games) into one transaction of srv->store. NULL when a thread cannot
 * be made. */
struct batcher *batcher_start(struct server *srv, int threads, int max_batch);

/* Lets the threads finish what is queued, then stops them. */
void batcher_stop(struct batcher *b);

/* Queues `job`, whose done_fn will be called from a batcher thread once its
 * transaction ended. False, queueing nothing, once the batcher is stopping. Thread-safe. */
bool batcher_submit(struct batcher *b, struct batch_job *job);

/* Queues `job` and waits until the transaction that ran it ended; returns that status
 * (STORE_OK once committed). Thread-safe. */
int batcher_run(struct batcher *b, struct batch_job *job);

#endif
