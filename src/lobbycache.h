/* lobbycache.h: this instance's cache of rendered lobby pages (GET /api/v1/games), so that a
 * crowd reading the lobby costs the database one read a page a moment, not one each.
 *
 * Coherence: a page is kept for at most `ttl_ms` (the rounds of running games it shows may lag
 * by that much), and every change to what the lobby lists of open games (a game created,
 * joined, left, cancelled, started, expired) forgets every page at once: on the instance that
 * made it, after its commit and before it replies (so a client sees its own change), and on
 * every other instance when the change's NOTIFY arrives (the hub). A page read from the
 * database is kept only when no change happened since its read began (the ticket), so an old
 * page cannot overwrite the news. Thread-safe. */
#ifndef CITY_LOBBYCACHE_H
#define CITY_LOBBYCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lobby_cache;

/* The payload of the NOTIFY on channel city_events that says the lobby changed (no game's id). */
#define LOBBY_CACHE_NEWS "lobby"

/* A cache that keeps pages for `ttl_ms` (1..60000); NULL when ttl_ms is 0 (no cache) or memory
 * runs out. Every function takes NULL as "no cache". */
struct lobby_cache *lobby_cache_new(int ttl_ms);
void lobby_cache_free(struct lobby_cache *lc);

/* Take before reading a page from the database; pass to lobby_cache_put(). */
uint64_t lobby_cache_ticket(struct lobby_cache *lc);

/* The page cached for query `key` as a new malloc'd copy in *body (*len bytes, NUL-terminated);
 * false when there is none still fresh. */
bool lobby_cache_get(struct lobby_cache *lc, const char *key, char **body, size_t *len);

/* Keeps a copy of `body` as the page for `key`, unless the lobby changed since `ticket`. */
void lobby_cache_put(struct lobby_cache *lc, const char *key, uint64_t ticket, const char *body,
                     size_t len);

/* The lobby changed: forgets every page. */
void lobby_cache_changed(struct lobby_cache *lc);

/* Lookups that found a page / did not, since the start (for /metrics). */
void lobby_cache_stats(struct lobby_cache *lc, uint64_t *hits, uint64_t *misses);

#endif
