/* viewcache.c: the public view cache (see viewcache.h). A fixed table of buckets, each a short
 * list of entries, guarded by one of a few striped locks. A game's members ("ID/...") land in
 * its bucket, by a hash of the ID alone. Each bucket counts the
 * invalidations of its games; a ticket is that count together with the cache's epoch, which
 * moves whenever everything is forgotten. When the cache is full, a put first empties the
 * bucket it lands in and then, if still full, one other bucket in turn (a clock hand). */
#include "viewcache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { STRIPES = 16 };

/* A view's text, shared by the cache and the readers it was handed to (view_cache_get_text):
 * freed when the last of them lets go, or, once an object is attached, by that object when it
 * is done with the text (view_text_attach). */
struct view_text {
    atomic_long refs;
    _Atomic(void *) attached; /* NULL, CLAIMED, or view_text_attach()'s object */
    atomic_int claims;        /* view_text_claim() calls */
    void (*attached_free)(void *obj);
    int tag; /* view_cache_put_tagged()'s */
    size_t len;
    char body[]; /* NUL-terminated */
};

/* `attached` while its claimant builds the object. */
static char claimed_mark;
#define CLAIMED ((void *)&claimed_mark)

struct entry {
    struct entry *next;
    double expires; /* view_cache_now() after which it is no longer served; 0: never */
    struct view_text *text;
    double *until; /* NULL, or its nparts parts' ends (view_cache_put_parts); expires their min */
    int nparts;
    char id[]; /* NUL-terminated */
};

struct bucket {
    struct entry *head;
    uint32_t gen; /* invalidations of games in this bucket */
};

struct view_cache {
    pthread_mutex_t stripe[STRIPES];
    struct bucket *buckets;
    size_t nbuckets; /* a power of two */
    size_t max_entries;
    /* Under stripe[0] and read with atomics elsewhere: */
    uint32_t epoch; /* moves when everything is forgotten */
    bool on;
    size_t entries, hand;
    uint64_t hits, misses;               /* games' own views */
    uint64_t member_hits, member_misses; /* their members' */
};

/* The hash of key `id`'s game: of the part before its first '/'. */
static uint64_t hash_id(const char *id)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)id; *p && *p != '/'; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

/* What an invalidation forgets of a game: its own view, its members ("ID/..."), or both. */
enum { FORGET_OWN = 1, FORGET_MEMBERS = 2 };

/* True when key `key` is what `what` (FORGET_*) forgets of game `id`. */
static bool of_game(const char *key, const char *id, size_t idlen, int what)
{
    return strncmp(key, id, idlen) == 0 && ((key[idlen] == 0 && (what & FORGET_OWN)) ||
                                            (key[idlen] == '/' && (what & FORGET_MEMBERS)));
}

static size_t bucket_of(const struct view_cache *vc, const char *id)
{
    return (size_t)hash_id(id) & (vc->nbuckets - 1);
}

static pthread_mutex_t *lock_of(struct view_cache *vc, size_t b)
{
    return &vc->stripe[b % STRIPES];
}

struct view_cache *view_cache_new(size_t max_entries)
{
    struct view_cache *vc = calloc(1, sizeof *vc);
    if (!vc)
        return NULL;
    vc->max_entries = max_entries;
    vc->nbuckets = 64;
    while (vc->nbuckets < max_entries && vc->nbuckets < ((size_t)1 << 24))
        vc->nbuckets <<= 1;
    vc->buckets = calloc(vc->nbuckets, sizeof *vc->buckets);
    if (!vc->buckets) {
        free(vc);
        return NULL;
    }
    for (int i = 0; i < STRIPES; i++)
        pthread_mutex_init(&vc->stripe[i], NULL);
    return vc;
}

void view_text_release(struct view_text *t)
{
    if (!t || atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
        return;
    void *obj = atomic_load_explicit(&t->attached, memory_order_acquire);
    if (obj && obj != CLAIMED) {
        t->attached_free(obj); /* it frees the text (view_text_free) when it is done with it */
        return;
    }
    free(t);
}

void view_text_free(struct view_text *t)
{
    free(t);
}

const char *view_text_body(const struct view_text *t, size_t *len)
{
    *len = t->len;
    return t->body;
}

void *view_text_attached(struct view_text *t)
{
    void *obj = atomic_load_explicit(&t->attached, memory_order_acquire);
    return obj == CLAIMED ? NULL : obj;
}

bool view_text_claim(struct view_text *t)
{
    if (atomic_fetch_add_explicit(&t->claims, 1, memory_order_relaxed) == 0)
        return false; /* the first reader: a view read once is not worth an object */
    void *was = NULL;
    return atomic_compare_exchange_strong_explicit(&t->attached, &was, CLAIMED,
                                                   memory_order_acq_rel, memory_order_acquire);
}

void view_text_unclaim(struct view_text *t)
{
    atomic_store_explicit(&t->attached, NULL, memory_order_release);
}

void view_text_attach(struct view_text *t, void *obj, void (*obj_free)(void *obj))
{
    t->attached_free = obj_free; /* published by the store below */
    atomic_store_explicit(&t->attached, obj, memory_order_release);
}

static void free_list(struct entry *e)
{
    while (e) {
        struct entry *next = e->next;
        view_text_release(e->text);
        free(e->until);
        free(e);
        e = next;
    }
}

/* Empties bucket b (its stripe held); returns how many entries it had. */
static size_t empty_bucket(struct bucket *bk)
{
    size_t n = 0;
    for (struct entry *e = bk->head; e; e = e->next)
        n++;
    free_list(bk->head);
    bk->head = NULL;
    return n;
}

void view_cache_free(struct view_cache *vc)
{
    if (!vc)
        return;
    for (size_t b = 0; b < vc->nbuckets; b++)
        free_list(vc->buckets[b].head);
    for (int i = 0; i < STRIPES; i++)
        pthread_mutex_destroy(&vc->stripe[i]);
    free(vc->buckets);
    free(vc);
}

uint64_t view_cache_ticket(struct view_cache *vc, const char *id)
{
    size_t b = bucket_of(vc, id);
    pthread_mutex_lock(lock_of(vc, b));
    uint64_t t = (uint64_t)__atomic_load_n(&vc->epoch, __ATOMIC_ACQUIRE) << 32 | vc->buckets[b].gen;
    pthread_mutex_unlock(lock_of(vc, b));
    return t;
}

double view_cache_now(void)
{
    /* CLOCK_BOOTTIME, not CLOCK_MONOTONIC: a view's end stands for a time the database counts
     * on its own clock (a seat's presence window), which runs on while the host is suspended;
     * a monotonic clock stops then, and would serve such a view past its end. */
    struct timespec ts;
#ifdef CLOCK_BOOTTIME
    clock_gettime(CLOCK_BOOTTIME, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts); /* not Linux: may stop while suspended */
#endif
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* view_cache_get_text(), counted in the lookups' figures when `counted`. */
static struct view_text *get_text(struct view_cache *vc, const char *id, bool counted)
{
    if (!__atomic_load_n(&vc->on, __ATOMIC_ACQUIRE))
        return NULL;
    struct view_text *t = NULL;
    size_t b = bucket_of(vc, id);
    pthread_mutex_lock(lock_of(vc, b));
    for (struct entry *e = vc->buckets[b].head; e; e = e->next)
        if (strcmp(e->id, id) == 0) {
            if (e->expires > 0 && view_cache_now() >= e->expires)
                break; /* out of date: a miss (the next put replaces it) */
            t = e->text;
            atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
            break;
        }
    pthread_mutex_unlock(lock_of(vc, b));
    bool member = strchr(id, '/') != NULL;
    if (counted)
        __atomic_add_fetch(member ? (t ? &vc->member_hits : &vc->member_misses)
                                  : (t ? &vc->hits : &vc->misses),
                           1, __ATOMIC_RELAXED);
    return t;
}

struct view_text *view_cache_get_text(struct view_cache *vc, const char *id)
{
    return get_text(vc, id, true);
}

int view_text_tag(const struct view_text *t)
{
    return t->tag;
}

/* view_cache_get(), counted when `counted`. */
static bool get_copy(struct view_cache *vc, const char *id, char **body, size_t *len, bool counted)
{
    *body = NULL;
    *len = 0;
    struct view_text *t = get_text(vc, id, counted);
    if (!t)
        return false;
    *body = malloc(t->len + 1);
    if (*body) {
        memcpy(*body, t->body, t->len + 1);
        *len = t->len;
    }
    view_text_release(t);
    return *body != NULL;
}

bool view_cache_get(struct view_cache *vc, const char *id, char **body, size_t *len)
{
    return get_copy(vc, id, body, len, true);
}

bool view_cache_peek(struct view_cache *vc, const char *id, char **body, size_t *len)
{
    return get_copy(vc, id, body, len, false);
}

/* Makes room for one more entry when the cache is full, emptying buckets in clock order. The
 * caller holds the stripe of bucket `keep`; other stripes are only tried (never waited for),
 * so two puts making room at once cannot deadlock. */
static void make_room(struct view_cache *vc, size_t keep)
{
    for (size_t tries = 0;
         tries < 64 && __atomic_load_n(&vc->entries, __ATOMIC_RELAXED) >= vc->max_entries;
         tries++) {
        size_t b = __atomic_fetch_add(&vc->hand, 1, __ATOMIC_RELAXED) & (vc->nbuckets - 1);
        size_t n = 0;
        if (b % STRIPES == keep % STRIPES) {
            n = empty_bucket(&vc->buckets[b]);
        } else if (pthread_mutex_trylock(lock_of(vc, b)) == 0) {
            n = empty_bucket(&vc->buckets[b]);
            pthread_mutex_unlock(lock_of(vc, b));
        }
        __atomic_sub_fetch(&vc->entries, n, __ATOMIC_RELAXED);
    }
}

void view_cache_put(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                    size_t len)
{
    view_cache_put_until(vc, id, ticket, body, len, 0);
}

void view_cache_put_until(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                          size_t len, double expires)
{
    view_cache_put_tagged(vc, id, ticket, body, len, expires, 0);
}

static void put_entry(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                      size_t len, double expires, int tag, const double until[], int nparts);

/* The first end of parts until[0..n) (0: none ends). */
static double first_end(const double until[], int n)
{
    double first = 0;
    for (int k = 0; k < n; k++)
        if (until[k] > 0 && (first == 0 || until[k] < first))
            first = until[k];
    return first;
}

void view_cache_put_parts(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                          size_t len, const double until[], int nparts)
{
    if (nparts < 0 || nparts > VIEW_CACHE_MAX_PARTS)
        return;
    put_entry(vc, id, ticket, body, len, first_end(until, nparts), 0, until, nparts);
}

void view_cache_put_tagged(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                           size_t len, double expires, int tag)
{
    put_entry(vc, id, ticket, body, len, expires, tag, NULL, 0);
}

bool view_cache_extend(struct view_cache *vc, const char *id, int part, double until)
{
    if (!vc || part < 0)
        return false;
    bool moved = false;
    size_t b = bucket_of(vc, id);
    pthread_mutex_lock(lock_of(vc, b));
    for (struct entry *e = vc->buckets[b].head; e; e = e->next)
        if (strcmp(e->id, id) == 0) {
            if (e->until && part < e->nparts && e->until[part] > 0 && until > e->until[part]) {
                e->until[part] = until;
                e->expires = first_end(e->until, e->nparts);
                moved = true;
            }
            break;
        }
    pthread_mutex_unlock(lock_of(vc, b));
    return moved;
}

static void put_entry(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                      size_t len, double expires, int tag, const double until[], int nparts)
{
    if (vc->max_entries == 0 || !__atomic_load_n(&vc->on, __ATOMIC_ACQUIRE))
        return;
    size_t idlen = strlen(id);
    struct entry *fresh = malloc(sizeof *fresh + idlen + 1);
    struct view_text *copy = malloc(sizeof *copy + len + 1);
    double *parts = nparts > 0 ? malloc((size_t)nparts * sizeof *parts) : NULL;
    if (!fresh || !copy || (nparts > 0 && !parts)) {
        free(fresh);
        free(copy);
        free(parts);
        return;
    }
    if (parts)
        memcpy(parts, until, (size_t)nparts * sizeof *parts);
    fresh->until = parts;
    fresh->nparts = nparts;
    memcpy(fresh->id, id, idlen + 1);
    atomic_init(&copy->refs, 1);
    atomic_init(&copy->attached, NULL);
    atomic_init(&copy->claims, 0);
    copy->attached_free = NULL;
    copy->tag = tag;
    copy->len = len;
    memcpy(copy->body, body, len);
    copy->body[len] = 0;
    fresh->text = copy;
    fresh->expires = expires;
    size_t b = bucket_of(vc, id);
    pthread_mutex_lock(lock_of(vc, b));
    struct bucket *bk = &vc->buckets[b];
    uint64_t now = (uint64_t)__atomic_load_n(&vc->epoch, __ATOMIC_ACQUIRE) << 32 | bk->gen;
    if (now != ticket || !__atomic_load_n(&vc->on, __ATOMIC_ACQUIRE)) {
        pthread_mutex_unlock(lock_of(vc, b));
        free(copy);
        free(parts);
        free(fresh);
        return; /* the game changed since its view was read: do not store old news */
    }
    struct entry **pp = &bk->head;
    while (*pp && strcmp((*pp)->id, id) != 0)
        pp = &(*pp)->next;
    if (*pp) { /* replace */
        struct entry *old = *pp;
        fresh->next = old->next;
        *pp = fresh;
        old->next = NULL;
        free_list(old);
    } else {
        make_room(vc, b);
        fresh->next = bk->head;
        bk->head = fresh;
        __atomic_add_fetch(&vc->entries, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(lock_of(vc, b));
}

/* Forgets everything and moves the epoch (so that outstanding tickets fail). */
static void forget_all(struct view_cache *vc)
{
    for (int i = 0; i < STRIPES; i++)
        pthread_mutex_lock(&vc->stripe[i]);
    __atomic_add_fetch(&vc->epoch, 1, __ATOMIC_RELEASE);
    for (size_t b = 0; b < vc->nbuckets; b++)
        empty_bucket(&vc->buckets[b]);
    __atomic_store_n(&vc->entries, 0, __ATOMIC_RELAXED);
    for (int i = STRIPES - 1; i >= 0; i--)
        pthread_mutex_unlock(&vc->stripe[i]);
}

/* Forgets what `what` (FORGET_*) names of game `id`; "*" everything. With `since` (not for
 * "*"): true with *after the ticket just after, when the bucket's ticket was *since before. */
static bool invalidate_since(struct view_cache *vc, const char *id, int what, const uint64_t *since,
                             uint64_t *after)
{
    if (!vc)
        return false;
    if (strcmp(id, "*") == 0) {
        forget_all(vc);
        return false;
    }
    size_t idlen = strlen(id);
    size_t b = bucket_of(vc, id);
    pthread_mutex_lock(lock_of(vc, b));
    struct bucket *bk = &vc->buckets[b];
    uint64_t epoch = (uint64_t)__atomic_load_n(&vc->epoch, __ATOMIC_ACQUIRE) << 32;
    bool quiet = since && (epoch | bk->gen) == *since && __atomic_load_n(&vc->on, __ATOMIC_ACQUIRE);
    bk->gen++;
    if (quiet)
        *after = epoch | bk->gen;
    size_t n = 0;
    for (struct entry **pp = &bk->head; *pp;) {
        if (!of_game((*pp)->id, id, idlen, what)) {
            pp = &(*pp)->next;
            continue;
        }
        struct entry *old = *pp;
        *pp = old->next;
        old->next = NULL;
        free_list(old);
        n++;
    }
    __atomic_sub_fetch(&vc->entries, n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(lock_of(vc, b));
    return quiet;
}

static void invalidate(struct view_cache *vc, const char *id, int what)
{
    invalidate_since(vc, id, what, NULL, NULL);
}

bool view_cache_invalidate_since(struct view_cache *vc, const char *id, uint64_t ticket,
                                 uint64_t *after)
{
    return strcmp(id, "*") != 0 &&
           invalidate_since(vc, id, FORGET_OWN | FORGET_MEMBERS, &ticket, after);
}

void view_cache_invalidate(struct view_cache *vc, const char *id)
{
    invalidate(vc, id, FORGET_OWN | FORGET_MEMBERS);
}

void view_cache_invalidate_own(struct view_cache *vc, const char *id)
{
    invalidate(vc, id, FORGET_OWN);
}

void view_cache_invalidate_members(struct view_cache *vc, const char *id)
{
    invalidate(vc, id, FORGET_MEMBERS);
}

void view_cache_set_enabled(struct view_cache *vc, bool on)
{
    if (!vc)
        return;
    if (!on)
        __atomic_store_n(&vc->on, false, __ATOMIC_RELEASE);
    forget_all(vc);
    if (on)
        __atomic_store_n(&vc->on, true, __ATOMIC_RELEASE);
}

void view_cache_stats(struct view_cache *vc, size_t *entries, uint64_t *hits, uint64_t *misses)
{
    *entries = vc ? __atomic_load_n(&vc->entries, __ATOMIC_RELAXED) : 0;
    *hits = vc ? __atomic_load_n(&vc->hits, __ATOMIC_RELAXED) : 0;
    *misses = vc ? __atomic_load_n(&vc->misses, __ATOMIC_RELAXED) : 0;
}

void view_cache_member_stats(struct view_cache *vc, uint64_t *hits, uint64_t *misses)
{
    *hits = vc ? __atomic_load_n(&vc->member_hits, __ATOMIC_RELAXED) : 0;
    *misses = vc ? __atomic_load_n(&vc->member_misses, __ATOMIC_RELAXED) : 0;
}
