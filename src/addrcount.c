/* addrcount.c: counts per client address key in a seeded chained hash table (see addrcount.h). */
#include "addrcount.h"

#include <stdlib.h>
#include <string.h>

#include "auth.h"

enum { BUCKETS = 4096 };

struct addr_counts {
    uint64_t seed;
    struct addr_count *b[BUCKETS];
};

struct addr_counts *addr_counts_new(void)
{
    struct addr_counts *t = calloc(1, sizeof *t);
    if (t)
        t->seed = auth_random_u64();
    return t;
}

void addr_counts_free(struct addr_counts *t)
{
    if (!t)
        return;
    for (int i = 0; i < BUCKETS; i++)
        while (t->b[i]) {
            struct addr_count *next = t->b[i]->next;
            free(t->b[i]);
            t->b[i] = next;
        }
    free(t);
}

struct addr_count *addr_counts_find(struct addr_counts *t, const char *addr, bool create)
{
    uint8_t key[NETADDR_KEY_LEN];
    netaddr_key(addr, key);
    uint64_t h = 1469598103934665603ULL ^ t->seed; /* FNV-1a from the seed */
    for (int i = 0; i < NETADDR_KEY_LEN; i++) {
        h ^= key[i];
        h *= 1099511628211ULL;
    }
    unsigned bucket = (unsigned)((h ^ (h >> 29)) % BUCKETS);
    for (struct addr_count *a = t->b[bucket]; a; a = a->next)
        if (memcmp(a->key, key, NETADDR_KEY_LEN) == 0)
            return a;
    struct addr_count *a = create ? calloc(1, sizeof *a) : NULL;
    if (a) {
        memcpy(a->key, key, NETADDR_KEY_LEN);
        a->bucket = bucket;
        a->next = t->b[bucket];
        t->b[bucket] = a;
    }
    return a;
}

int addr_counts_of(struct addr_counts *t, const char *addr)
{
    const struct addr_count *c = addr_counts_find(t, addr, false);
    return c ? c->open : 0;
}

struct addr_count *addr_counts_take(struct addr_counts *t, const char *addr)
{
    struct addr_count *c = addr_counts_find(t, addr, true);
    if (c) {
        c->open++;
        if (c->pending > 0)
            c->pending--;
    }
    return c;
}

static void drop(struct addr_counts *t, struct addr_count *c);

int addr_counts_held(struct addr_counts *t, const char *addr, double now)
{
    struct addr_count *c = addr_counts_find(t, addr, false);
    if (!c)
        return 0;
    if (c->pending > 0 && now - c->pending_at > 1.0) {
        c->pending = 0; /* lapsed: those connections never started */
        if (c->open <= 0) {
            drop(t, c);
            return 0;
        }
    }
    return c->open + c->pending;
}

void addr_counts_promise(struct addr_counts *t, const char *addr, double now)
{
    struct addr_count *c = addr_counts_find(t, addr, true);
    if (c) {
        c->pending++;
        c->pending_at = now;
    }
}

void addr_counts_release(struct addr_counts *t, struct addr_count *c)
{
    if (!c || --c->open > 0 || c->pending > 0)
        return;
    drop(t, c);
}

/* Unlinks and frees entry c. */
static void drop(struct addr_counts *t, struct addr_count *c)
{
    for (struct addr_count **p = &t->b[c->bucket]; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            free(c);
            return;
        }
}
