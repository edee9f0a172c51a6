/* hashcrew.c: the password hashes' own threads (see hashcrew.h). */
#include "hashcrew.h"

#include <stdlib.h>

#include "workers.h"

enum { CREW_MAX = 64 };

struct job {
    void (*fn)(void *arg);
    void *arg;
};

struct hash_crew {
    struct workers crew;
    struct job queue[CREW_MAX]; /* a ring of waiting jobs */
    int head, count, cap;
};

static void *crew_main(void *arg)
{
    struct hash_crew *c = arg;
    pthread_mutex_lock(&c->crew.mu);
    for (;;) {
        if (c->count == 0) {
            if (atomic_load(&c->crew.stop))
                break;
            pthread_cond_wait(&c->crew.wake, &c->crew.mu);
            continue;
        }
        struct job j = c->queue[c->head];
        c->head = (c->head + 1) % CREW_MAX;
        c->count--;
        pthread_mutex_unlock(&c->crew.mu);
        j.fn(j.arg);
        pthread_mutex_lock(&c->crew.mu);
    }
    pthread_mutex_unlock(&c->crew.mu);
    return NULL;
}

struct hash_crew *hash_crew_start(int threads)
{
    if (threads < 1)
        threads = 1;
    if (threads > CREW_MAX)
        threads = CREW_MAX;
    struct hash_crew *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (!workers_init(&c->crew, threads) ||
        (c->cap = workers_start(&c->crew, threads, crew_main, c)) < 1) {
        workers_stop(&c->crew);
        free(c);
        return NULL;
    }
    return c;
}

bool hash_crew_submit(struct hash_crew *c, void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&c->crew.mu);
    bool room = !atomic_load(&c->crew.stop) && c->count < c->cap;
    if (room) {
        c->queue[(c->head + c->count) % CREW_MAX] = (struct job){fn, arg};
        c->count++;
        pthread_cond_signal(&c->crew.wake);
    }
    pthread_mutex_unlock(&c->crew.mu);
    return room;
}

void hash_crew_stop(struct hash_crew *c)
{
    if (!c)
        return;
    workers_stop(&c->crew);
    free(c);
}
