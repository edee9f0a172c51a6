/* workers.h: a crew of threads that share one mutex, one condition variable and a stop flag,
 * as group commit (batch.c) and the bot pool (botpool.c) run theirs: started together, told to
 * stop together (the flag set under the mutex, every thread woken), joined together. What the
 * threads wait for under the mutex is their owner's business. */
#ifndef CITY_WORKERS_H
#define CITY_WORKERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct workers {
    pthread_mutex_t mu;
    pthread_cond_t wake; /* signalled when there is work, broadcast when stopping */
    atomic_bool stop;    /* set under mu by workers_stop(); may be read without it */
    pthread_t *threads;  /* room for max */
    int max, n;          /* n: threads running */
};

/* Makes w's mutex and condition variable (whose timed waits take CLOCK_MONOTONIC deadlines) and
 * room for up to `max` (at least 1) threads; none runs yet. False when memory runs out;
 * workers_stop() must be called either way. */
bool workers_init(struct workers *w, int max);

/* Starts up to `count` (at most init's max) threads running fn(arg), stopping at the first that
 * cannot be made. Returns how many run. */
int workers_start(struct workers *w, int count, void *(*fn)(void *), void *arg);

/* Sets stop under the mutex, wakes every thread, waits for all of them to return, then frees
 * what workers_init() made. The threads must return soon after they see stop. */
void workers_stop(struct workers *w);

#endif
