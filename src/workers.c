/* workers.c: a crew of threads with one mutex, condition variable and stop flag; see
 * workers.h. */
#include "workers.h"

#include <stdlib.h>
#include <time.h>

bool workers_init(struct workers *w, int max)
{
    pthread_mutex_init(&w->mu, NULL);
    /* Timed waits count on the monotonic clock: a step of the wall clock (NTP, a VM's resume)
     * neither stretches nor cuts them. */
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    atomic_init(&w->stop, false);
    w->n = 0;
    w->max = max > 0 ? max : 1;
    w->threads = calloc((size_t)w->max, sizeof *w->threads);
    return w->threads != NULL;
}

int workers_start(struct workers *w, int count, void *(*fn)(void *), void *arg)
{
    while (w->threads && w->n < count && w->n < w->max &&
           pthread_create(&w->threads[w->n], NULL, fn, arg) == 0)
        w->n++;
    return w->n;
}

void workers_stop(struct workers *w)
{
    pthread_mutex_lock(&w->mu);
    atomic_store(&w->stop, true);
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->mu);
    for (int i = 0; i < w->n; i++)
        pthread_join(w->threads[i], NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mu);
    free(w->threads);
    w->threads = NULL;
    w->n = 0;
}
