/* lobbycache.c: the lobby's page cache (see lobbycache.h): a few pages by query, each with the
 * lobby's generation it was read at and when, behind one mutex. */
#include "lobbycache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PAGES = 16, KEY_LEN = 160 };

struct page {
    char key[KEY_LEN];
    char *body;
    size_t len;
    uint64_t gen;
    double at, used; /* when read from the database, when last served */
};

struct lobby_cache {
    pthread_mutex_t mu;
    double ttl;   /* seconds */
    uint64_t gen; /* bumped by every change */
    uint64_t hits, misses;
    struct page pages[PAGES];
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct lobby_cache *lobby_cache_new(int ttl_ms)
{
    if (ttl_ms <= 0)
        return NULL;
    struct lobby_cache *lc = calloc(1, sizeof *lc);
    if (!lc)
        return NULL;
    pthread_mutex_init(&lc->mu, NULL);
    lc->ttl = ttl_ms / 1000.0;
    lc->gen = 1;
    return lc;
}

void lobby_cache_free(struct lobby_cache *lc)
{
    if (!lc)
        return;
    for (int i = 0; i < PAGES; i++)
        free(lc->pages[i].body);
    pthread_mutex_destroy(&lc->mu);
    free(lc);
}

uint64_t lobby_cache_ticket(struct lobby_cache *lc)
{
    if (!lc)
        return 0;
    pthread_mutex_lock(&lc->mu);
    uint64_t t = lc->gen;
    pthread_mutex_unlock(&lc->mu);
    return t;
}

bool lobby_cache_get(struct lobby_cache *lc, const char *key, char **body, size_t *len)
{
    if (!lc)
        return false;
    bool found = false;
    double now = now_s();
    pthread_mutex_lock(&lc->mu);
    for (int i = 0; i < PAGES && !found; i++) {
        struct page *p = &lc->pages[i];
        if (p->body && p->gen == lc->gen && now - p->at < lc->ttl && strcmp(p->key, key) == 0) {
            *body = malloc(p->len + 1);
            if (*body) {
                memcpy(*body, p->body, p->len + 1);
                *len = p->len;
                p->used = now;
                found = true;
            }
        }
    }
    if (found)
        lc->hits++;
    else
        lc->misses++;
    pthread_mutex_unlock(&lc->mu);
    return found;
}

void lobby_cache_put(struct lobby_cache *lc, const char *key, uint64_t ticket, const char *body,
                     size_t len)
{
    if (!lc || strlen(key) >= KEY_LEN)
        return;
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, body, len);
    copy[len] = 0;
    double now = now_s();
    pthread_mutex_lock(&lc->mu);
    if (ticket != lc->gen) { /* the lobby changed while this page was read */
        pthread_mutex_unlock(&lc->mu);
        free(copy);
        return;
    }
    /* The page of this key, else an empty or stale one, else the one served longest ago. */
    struct page *slot = NULL;
    for (int i = 0; i < PAGES && !slot; i++)
        if (lc->pages[i].body && strcmp(lc->pages[i].key, key) == 0)
            slot = &lc->pages[i];
    for (int i = 0; i < PAGES && !slot; i++)
        if (!lc->pages[i].body || lc->pages[i].gen != lc->gen || now - lc->pages[i].at >= lc->ttl)
            slot = &lc->pages[i];
    if (!slot) {
        slot = &lc->pages[0];
        for (int i = 1; i < PAGES; i++)
            if (lc->pages[i].used < slot->used)
                slot = &lc->pages[i];
    }
    free(slot->body);
    strcpy(slot->key, key);
    slot->body = copy;
    slot->len = len;
    slot->gen = lc->gen;
    slot->at = slot->used = now;
    pthread_mutex_unlock(&lc->mu);
}

void lobby_cache_changed(struct lobby_cache *lc)
{
    if (!lc)
        return;
    pthread_mutex_lock(&lc->mu);
    lc->gen++;
    pthread_mutex_unlock(&lc->mu);
}

void lobby_cache_stats(struct lobby_cache *lc, uint64_t *hits, uint64_t *misses)
{
    *hits = *misses = 0;
    if (!lc)
        return;
    pthread_mutex_lock(&lc->mu);
    *hits = lc->hits;
    *misses = lc->misses;
    pthread_mutex_unlock(&lc->mu);
}
