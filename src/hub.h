/* hub.h: wakes the SSE streams of this instance when a game has new events, whichever
 * instance wrote them: a thread LISTENs on channel city_events (payload "game:seq") and
 * broadcasts; writers on this instance also publish directly. Every piece of news also
 * invalidates the game's entry in the view cache, which is on only while the hub listens. */
#ifndef CITY_HUB_H
#define CITY_HUB_H

#include <stdbool.h>

struct hub;
struct view_cache;

/* Starts the listener thread on its own connection to `conninfo` (reconnecting whenever it
 * breaks). `cache` (borrowed, may be NULL) is turned on while the thread listens and told of
 * every change. Returns NULL only when a thread cannot be made. */
struct hub *hub_start(const char *conninfo, struct view_cache *cache);
void hub_stop(struct hub *h);

/* Announces that game `id` has events up to `seq`. Thread-safe. */
void hub_publish(struct hub *h, const char *id, long long seq);

/* The current generation; pass it to hub_wait(). */
unsigned long long hub_generation(struct hub *h);

/* Waits up to timeout_ms for news of game `id` after generation *gen (updated). Returns true
 * when there may be news for it (including when the hub lost track), false on timeout or
 * when the hub is stopping. */
bool hub_wait(struct hub *h, const char *id, unsigned long long *gen, int timeout_ms);

/* True once hub_stop() has begun: streams end. */
bool hub_stopping(struct hub *h);

#endif
