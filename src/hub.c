/* hub.c: LISTEN/NOTIFY fan-out to this instance's SSE streams (see hub.h). */
#include "hub.h"

#include "viewcache.h"

#include <errno.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

enum { RING = 256, ID_LEN = 24 };

struct hub {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
    bool stop;
    char *conninfo;
    struct view_cache *cache; /* borrowed */
    unsigned long long gen;   /* news so far; ring[gen % RING] is the newest */
    char ring[RING][ID_LEN];
};

void hub_publish(struct hub *h, const char *id, long long seq)
{
    (void)seq;
    if (!h)
        return;
    view_cache_invalidate(h->cache, id); /* before anyone is woken to read the game */
    pthread_mutex_lock(&h->lock);
    h->gen++;
    snprintf(h->ring[h->gen % RING], ID_LEN, "%s", id);
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

unsigned long long hub_generation(struct hub *h)
{
    pthread_mutex_lock(&h->lock);
    unsigned long long g = h->gen;
    pthread_mutex_unlock(&h->lock);
    return g;
}

bool hub_stopping(struct hub *h)
{
    pthread_mutex_lock(&h->lock);
    bool s = h->stop;
    pthread_mutex_unlock(&h->lock);
    return s;
}

/* True when news newer than `gen` names `id`; caller holds the lock. */
static bool news_for(struct hub *h, const char *id, unsigned long long gen)
{
    if (h->gen - gen >= RING)
        return true; /* lost track: look anyway */
    for (unsigned long long g = gen + 1; g <= h->gen; g++)
        if (strcmp(h->ring[g % RING], id) == 0 || h->ring[g % RING][0] == '*')
            return true;
    return false;
}

bool hub_wait(struct hub *h, const char *id, unsigned long long *gen, int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    bool news = false;
    pthread_mutex_lock(&h->lock);
    while (!h->stop) {
        if (h->gen != *gen) {
            news = news_for(h, id, *gen);
            *gen = h->gen;
            if (news)
                break;
        }
        if (pthread_cond_timedwait(&h->cond, &h->lock, &until) == ETIMEDOUT)
            break;
    }
    pthread_mutex_unlock(&h->lock);
    return news;
}

static void *listen_main(void *arg)
{
    struct hub *h = arg;
    PGconn *c = NULL;
    while (!hub_stopping(h)) {
        if (!c || PQstatus(c) != CONNECTION_OK) {
            view_cache_set_enabled(h->cache, false); /* news may be missed: no cached views */
            if (c)
                PQfinish(c);
            c = PQconnectdb(h->conninfo);
            PGresult *r = PQstatus(c) == CONNECTION_OK ? PQexec(c, "LISTEN city_events") : NULL;
            bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
            PQclear(r);
            if (!ok) {
                sleep(1);
                continue;
            }
            hub_publish(h, "*", 0); /* news may have been missed while disconnected */
            view_cache_set_enabled(h->cache, true);
        }
        int fd = PQsocket(c);
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        struct timeval tv = {0, 200000};
        if (select(fd + 1, &fds, NULL, NULL, &tv) < 0 && errno != EINTR)
            continue;
        if (!PQconsumeInput(c))
            continue; /* broken: reconnect above */
        PGnotify *n;
        while ((n = PQnotifies(c)) != NULL) {
            char id[ID_LEN];
            snprintf(id, sizeof id, "%s", n->extra);
            char *colon = strchr(id, ':');
            if (colon)
                *colon = 0;
            hub_publish(h, id, colon ? atoll(colon + 1) : 0);
            PQfreemem(n);
        }
    }
    view_cache_set_enabled(h->cache, false);
    if (c)
        PQfinish(c);
    return NULL;
}

struct hub *hub_start(const char *conninfo, struct view_cache *cache)
{
    struct hub *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->cache = cache;
    pthread_mutex_init(&h->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_cond_init(&h->cond, &attr);
    pthread_condattr_destroy(&attr);
    h->conninfo = strdup(conninfo);
    if (!h->conninfo || pthread_create(&h->thread, NULL, listen_main, h) != 0) {
        free(h->conninfo);
        free(h);
        return NULL;
    }
    return h;
}

void hub_stop(struct hub *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->lock);
    h->stop = true;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->thread, NULL);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->cond);
    free(h->conninfo);
    free(h);
}
