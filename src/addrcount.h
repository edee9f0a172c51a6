/* addrcount.h: how many of something (connections, event streams) each client address holds,
 * counted by netaddr_key (IPv4 by address, IPv6 by /64) in a hash table whose bucket choice is
 * seeded at random (it cannot be aimed at). Not thread-safe: the caller locks. */
#ifndef CITY_ADDRCOUNT_H
#define CITY_ADDRCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "netaddr.h"

struct addr_counts;

/* One address key's count. `open` is read by the caller; change it through the functions. */
struct addr_count {
    uint8_t key[NETADDR_KEY_LEN];
    int open;
    int pending;       /* promised but not yet counted in open (addr_counts_promise) */
    double pending_at; /* when the last promise was made */
    unsigned bucket;
    struct addr_count *next;
};

/* A new, empty table; NULL when memory runs out. */
struct addr_counts *addr_counts_new(void);
void addr_counts_free(struct addr_counts *t);

/* The count of numeric address `addr`'s key; created at 0 when `create` (NULL when absent and
 * not created, or memory runs out). */
struct addr_count *addr_counts_find(struct addr_counts *t, const char *addr, bool create);

/* How many the key of `addr` holds (0 when absent). */
int addr_counts_of(struct addr_counts *t, const char *addr);

/* Counts one more for `addr`; returns its count entry (NULL when memory runs out: then nothing
 * is counted). A promise of addr_counts_promise() is kept by it. */
struct addr_count *addr_counts_take(struct addr_counts *t, const char *addr);

/* How many `addr` holds with its promises (those under a second old), for a check that comes
 * before the count is taken: libmicrohttpd asks whether to accept a connection before it
 * notices it started, and accepts several in a row. */
int addr_counts_held(struct addr_counts *t, const char *addr, double now);

/* Promises one more for `addr` at `now`, to be kept by addr_counts_take(); a promise not kept
 * within a second (the connection never started) lapses. */
void addr_counts_promise(struct addr_counts *t, const char *addr, double now);

/* Counts one fewer for an entry addr_counts_take() returned (NULL is ignored), freeing it at 0. */
void addr_counts_release(struct addr_counts *t, struct addr_count *c);

#endif
