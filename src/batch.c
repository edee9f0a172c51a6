/* batch.c: group commit for orders (see batch.h). One queue under one mutex; a free batcher
 * thread takes the jobs at its front (up to its limit), runs them in one store_tx(), and wakes
 * each job's waiter or calls its done_fn. */
#include "batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub.h"
#include "server.h"
#include "store.h"
#include "workers.h"

struct batcher {
    struct server *srv;
    struct workers crew;           /* its wake: jobs queued, or stopping */
    struct batch_job *head, *tail; /* under crew.mu */
    int max_batch;
    struct batch *batches; /* one per thread, made with the threads */
    int next_batch;        /* the next thread's, under crew.mu */
};

/* The jobs of one transaction, and the states it saved (kept once it committed). */
struct batch {
    struct server *srv;
    struct batch_job *jobs[STORE_MAX_GAMES_LOADED * 2];
    int njobs;
    int nsaved;
    struct hub_echoes echoes; /* every try's saves' echo tags, until run_batch() ends them */
    struct {
        const struct ruleset *rs;
        void *g;             /* taken from the live, freed by saved_clear() */
        struct game_row row; /* as saved, without its state */
        bool public;         /* live_public_change() */
        uint64_t ticket;     /* live_ticket(), before the commit */
        uint64_t tag;        /* its echo's tag, 0: none */
    } saved[STORE_MAX_GAMES_LOADED];
};

/* Forgets the states a batch saved (before a retry, and once they are remembered). */
static void saved_clear(struct batch *bt)
{
    for (int i = 0; i < bt->nsaved; i++)
        free(bt->saved[i].g);
    bt->nsaved = 0;
}

static int compare_ids(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int batch_tx(PGconn *c, void *ctx)
{
    struct batch *bt = ctx;
    const char *ids[STORE_MAX_GAMES_LOADED];
    int n = 0;
    for (int j = 0; j < bt->njobs; j++) {
        bt->jobs[j]->reset(bt->jobs[j]->ctx);
        bool seen = false;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(ids[i], bt->jobs[j]->id) == 0;
        if (!seen)
            ids[n++] = bt->jobs[j]->id;
    }
    qsort(ids, (size_t)n, sizeof *ids, compare_ids);
    struct live lvs[STORE_MAX_GAMES_LOADED];
    int found[STORE_MAX_GAMES_LOADED];
    int st = live_load_many(c, bt->srv, n, ids, lvs, found);
    for (int j = 0; j < bt->njobs && st == STORE_OK; j++) {
        int i = 0;
        while (strcmp(ids[i], bt->jobs[j]->id) != 0)
            i++;
        st = bt->jobs[j]->apply(c, found[i] == STORE_OK ? &lvs[i] : NULL, bt->jobs[j]->ctx);
    }
    saved_clear(bt);
    for (int i = 0; i < n && st == STORE_OK; i++) {
        if (found[i] != STORE_OK)
            continue;
        long long before = lvs[i].row.version;
        lvs[i].echo_tag = hub_echoes_expect(bt->srv->hub, &bt->echoes, ids[i]);
        st = live_save(c, &lvs[i]);
        if (st == STORE_OK && lvs[i].row.version != before) {
            bt->saved[bt->nsaved].rs = lvs[i].rs;
            bt->saved[bt->nsaved].row = lvs[i].row;
            bt->saved[bt->nsaved].row.state = NULL; /* the live's, freed with it */
            bt->saved[bt->nsaved].public = live_public_change(&lvs[i]);
            bt->saved[bt->nsaved].ticket = live_ticket(bt->srv, ids[i]);
            bt->saved[bt->nsaved].tag = lvs[i].echo_tag;
            bt->saved[bt->nsaved++].g = lvs[i].g;
            lvs[i].g = NULL; /* handed over */
        }
    }
    for (int i = 0; i < n; i++)
        live_free(&lvs[i]);
    return st;
}

/* Runs jobs[0..n) in one transaction and records the outcome in each. */
static void run_batch(struct batcher *b, struct batch *bt, struct batch_job **jobs, int n)
{
    bt->srv = b->srv;
    bt->njobs = n;
    bt->nsaved = 0;
    bt->echoes.n = 0;
    memcpy(bt->jobs, jobs, (size_t)n * sizeof *jobs);
    uint64_t epoch = store_epoch(b->srv->store);
    int st = store_tx(b->srv->store, batch_tx, bt, STORE_TRIES_WRITE);
    for (int j = 0; j < n; j++)
        jobs[j]->published = false;
    for (int i = 0; i < bt->nsaved && st == STORE_OK; i++) {
        const struct game_row *row = &bt->saved[i].row;
        if (!bt->saved[i].public) { /* an amended order: its job announces it to the hands */
            live_remember(b->srv, row->id, row->version, epoch, bt->saved[i].rs, bt->saved[i].g);
            continue;
        }
        live_committed(b->srv, epoch, bt->saved[i].ticket, bt->saved[i].rs, bt->saved[i].g, row);
        hub_echoes_announced(&bt->echoes, bt->saved[i].tag);
        for (int j = 0; j < n; j++)
            jobs[j]->published |= strcmp(jobs[j]->id, row->id) == 0;
    }
    hub_echoes_end(b->srv->hub, &bt->echoes, st != STORE_OK);
    saved_clear(bt);
    if (st == STORE_HARD && n > 1) {
        /* Isolate the job that failed: each on its own. */
        for (int j = 0; j < n; j++)
            run_batch(b, bt, &jobs[j], 1);
        return;
    }
    for (int j = 0; j < n; j++)
        jobs[j]->status = st;
}

static void *batcher_main(void *arg)
{
    struct batcher *b = arg;
    struct batch_job *jobs[STORE_MAX_GAMES_LOADED * 2];
    pthread_mutex_lock(&b->crew.mu);
    struct batch *bt = &b->batches[b->next_batch++]; /* ~75 kB: not on the stack */
    for (;;) {
        while (!b->head && !b->crew.stop)
            pthread_cond_wait(&b->crew.wake, &b->crew.mu);
        if (!b->head)
            break; /* stopping, and nothing is left */
        /* Take jobs from the front while they touch at most STORE_MAX_GAMES_LOADED games. */
        int n = 0, games = 0;
        while (b->head && n < b->max_batch) {
            bool known = false;
            for (int k = 0; k < n && !known; k++)
                known = strcmp(jobs[k]->id, b->head->id) == 0;
            if (!known && games == STORE_MAX_GAMES_LOADED)
                break;
            games += !known;
            jobs[n++] = b->head;
            b->head = b->head->next;
        }
        if (!b->head)
            b->tail = NULL;
        pthread_mutex_unlock(&b->crew.mu);
        run_batch(b, bt, jobs, n);
        /* A job with a done_fn may be freed as soon as that is called: take every job's kind
         * first, and never touch one again after its done_fn. */
        bool waited[STORE_MAX_GAMES_LOADED * 2];
        for (int k = 0; k < n; k++)
            waited[k] = jobs[k]->done_fn == NULL;
        for (int k = 0; k < n; k++)
            if (!waited[k])
                jobs[k]->done_fn(jobs[k]);
        pthread_mutex_lock(&b->crew.mu);
        for (int k = 0; k < n; k++)
            if (waited[k]) {
                jobs[k]->done = true;
                pthread_cond_signal(&jobs[k]->cond);
            }
    }
    pthread_mutex_unlock(&b->crew.mu);
    return NULL;
}

struct batcher *batcher_start(struct server *srv, int threads, int max_batch)
{
    struct batcher *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->srv = srv;
    b->max_batch = max_batch < 1                            ? 1
                   : max_batch > STORE_MAX_GAMES_LOADED * 2 ? STORE_MAX_GAMES_LOADED * 2
                                                            : max_batch;
    b->batches = calloc((size_t)threads, sizeof *b->batches);
    if (!workers_init(&b->crew, threads) || !b->batches ||
        workers_start(&b->crew, threads, batcher_main, b) < 1) {
        batcher_stop(b);
        return NULL;
    }
    return b;
}

void batcher_stop(struct batcher *b)
{
    if (!b)
        return;
    workers_stop(&b->crew);
    free(b->batches);
    free(b);
}

/* Appends job to the queue and wakes a batcher thread; b->crew.mu is held. */
static void enqueue(struct batcher *b, struct batch_job *job)
{
    job->next = NULL;
    if (b->tail)
        b->tail->next = job;
    else
        b->head = job;
    b->tail = job;
    pthread_cond_signal(&b->crew.wake);
}

bool batcher_submit(struct batcher *b, struct batch_job *job)
{
    pthread_mutex_lock(&b->crew.mu);
    bool ok = !b->crew.stop;
    if (ok)
        enqueue(b, job);
    pthread_mutex_unlock(&b->crew.mu);
    return ok;
}

int batcher_run(struct batcher *b, struct batch_job *job)
{
    job->done_fn = NULL;
    job->done = false;
    pthread_cond_init(&job->cond, NULL);
    pthread_mutex_lock(&b->crew.mu);
    enqueue(b, job);
    while (!job->done)
        pthread_cond_wait(&job->cond, &b->crew.mu);
    pthread_mutex_unlock(&b->crew.mu);
    pthread_cond_destroy(&job->cond);
    return job->status;
}
