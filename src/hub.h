/* hub.h: wakes this instance's SSE streams when their game has new events, whichever instance
 * wrote them. A thread LISTENs on channel city_events (payload "game:seq", and a tail: news of
 * only the game's presence or hands, or the writer's echo tag, below); writers on this instance
 * also publish directly. News wakes only the streams of its game: each stream holds a
 * subscription to one game, and a stream with nothing to send parks its connection (suspended
 * in libmicrohttpd, costing no thread) until news of that game, a keep-alive tick or shutdown
 * resumes it. The hub also counts streams against an instance-wide and a per-game cap. Every
 * piece of news also invalidates the game's entry in the view cache, which is on only while the
 * hub listens; news of the lobby (payload "lobby") makes the lobby cache forget its pages. */
#ifndef CITY_HUB_H
#define CITY_HUB_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"

struct hub;
struct hub_sub;
struct view_cache;
struct lobby_cache;

/* Caps on open streams. 0 means no cap. */
struct hub_limits {
    int max_streams;             /* on this instance */
    int max_streams_per_game;    /* on one game, on this instance */
    int max_streams_per_address; /* from one client address (IPv6: /64), on this instance */
    int keepalive_ms;            /* a parked stream is resumed this often to send a comment */
};

/* Starts the listener thread on its own connection to `conninfo` (reconnecting whenever it
 * breaks). `cache` (borrowed, may be NULL) is turned on while the thread listens and told of
 * every change; `lobby` (borrowed, may be NULL) is told of every change of the lobby, and of
 * every reconnection (news may have been missed). Returns NULL only when a thread cannot be made.
 */
struct hub *hub_start(const char *conninfo, struct view_cache *cache, struct lobby_cache *lobby,
                      struct hub_limits limits);

/* Ends every stream (parked ones are resumed and see hub_sub_stopping()), then stops the
 * thread and frees the hub. Every subscription must be released with hub_unsubscribe()
 * before hub_free(). */
void hub_stop(struct hub *h);
void hub_free(struct hub *h);

/* Announces that game `id` has events up to `seq` ("*" for every game). Thread-safe. */
void hub_publish(struct hub *h, const char *id, long long seq);

/* hub_publish() of game `id` (not "*") by the instance that committed the change, with the
 * cache's ticket (view_cache_ticket) it took before its COMMIT: true, with *after a ticket to
 * store what it knows of the game as of its change, when no other news of a game of the same
 * cache bucket came between (view_cache_invalidate_since). */
bool hub_publish_since(struct hub *h, const char *id, uint64_t ticket, uint64_t *after);

/* Echoes. A change's NOTIFY reaches every instance, the one that committed it too, which has
 * already announced it on its own (hub_publish before it replies). A writer that will announce
 * its change itself takes a tag (hub_echoes_expect) before the save, and the save puts
 * hub_echo_tail() in the notification's payload (live.h: echo_tag); the notification that
 * carries that tail, when it comes back to this instance, is then skipped, once. Only the writer
 * knows its tag: no other change is ever taken for an echo. Once its transaction ended, the
 * writer marks the tags of the changes it committed and announced (hub_echoes_announced), and
 * hub_echoes_end() forgets the others (an earlier try's, a save that was not public news) and,
 * when the transaction failed, announces their games (a commit whose answer was lost may have
 * happened). Another instance reads the tail as any other ("ID:SEQ" and a tail that is neither
 * STORE_NEWS_PRESENCE nor STORE_NEWS_HANDS: news of the whole game). The hub keeps the last
 * HUB_ECHOES tags in a ring: a tag whose echo has not come by the time its place is taken again
 * only costs an announcement made twice. */
#define HUB_ECHO_MARK ":@"
enum { HUB_ECHOES = 256, HUB_ECHO_LIST = 128 };

/* The tags one writer takes over the tries of one transaction (an order batch, a bot worker's
 * move). Start it empty ({0}). */
struct hub_echoes {
    int n;
    struct {
        char id[AUTH_ID_LEN + 1];
        uint64_t tag;
        bool announced;
    } e[HUB_ECHO_LIST];
};

/* A new tag, kept in l, for a change of game `id` that this instance is about to save and will
 * announce itself; never 0 (0, no tag, when h is NULL or l holds HUB_ECHO_LIST tags already). */
uint64_t hub_echoes_expect(struct hub *h, struct hub_echoes *l, const char *id);

/* Tag `tag` of l (0: none) was committed and announced: its echo is skipped when it comes. */
void hub_echoes_announced(struct hub_echoes *l, uint64_t tag);

/* Ends l once its transaction ended: the echoes of the tags not announced are news again, and
 * when `failed` their games are announced. Empties l. */
void hub_echoes_end(struct hub *h, struct hub_echoes *l, bool failed);

/* Writes the payload's tail for the change tagged `tag`: HUB_ECHO_MARK, this instance's random
 * id in hex, '.', the tag in hex. */
void hub_echo_tail(struct hub *h, uint64_t tag, char *buf, size_t n);

/* hub_publish() of news that changes only game `id`'s public view, a seat's presence: the
 * cached public view goes, the game's cached members (its hands) stay. */
void hub_publish_presence(struct hub *h, const char *id);

/* Announces news that changes only what a seat of game `id` reads (an amended order): the
 * game's cached hands go; its public view stays, and no stream is woken. Thread-safe. */
void hub_publish_hands(struct hub *h, const char *id);

enum hub_refusal { HUB_OK, HUB_FULL, HUB_GAME_FULL, HUB_ADDRESS_FULL, HUB_NOMEM, HUB_STOPPING };

/* Subscribes a stream of client address `addr` to game `id`; `player` when it was opened with
 * a seat token of the game. A player is never refused for the instance's or the game's cap: a
 * watcher's stream (of that game for the game's cap, of the address holding the most streams
 * for the instance's) is ended to make room, and when there is none the player is let in past
 * the cap (a game has at most a few seats). Everyone is refused past the per-address cap. On
 * success returns the subscription (release it with hub_unsubscribe) and sets *why to HUB_OK;
 * otherwise NULL with the reason. */
struct hub_sub *hub_subscribe(struct hub *h, const char *id, const char *addr, bool player,
                              enum hub_refusal *why);
void hub_unsubscribe(struct hub_sub *s);

/* Call before reading the game's events: news published after this call will stop the next
 * hub_park() from parking. */
void hub_sub_mark(struct hub_sub *s);

/* Parks the stream: suspends `conn` (from inside its content reader, which must then return 0)
 * until news of its game since the last hub_sub_mark(), its keep-alive tick or hub_stop().
 * Returns false, without suspending, when such news already came or the hub is stopping: the
 * caller reads again instead. */
bool hub_park(struct hub_sub *s, struct MHD_Connection *conn);

/* True (once per tick) when the stream was resumed for its keep-alive rather than news. */
bool hub_sub_take_keepalive(struct hub_sub *s);

/* True once hub_stop() has begun, or once the stream was ended to make room for a player's:
 * the stream ends. *evicted says which. */
bool hub_sub_ending(struct hub_sub *s, bool *evicted);

/* Streams open now, parked now, and wake-ups for news so far (a stream resumed because its
 * game changed). */
void hub_stats(struct hub *h, long *streams, long *parked, uint64_t *wakeups, uint64_t *refused);

/* Watchers' streams ended so far to make room for players' streams. */
uint64_t hub_evicted(struct hub *h);

#endif
