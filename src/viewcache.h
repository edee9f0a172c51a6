/* viewcache.h: this instance's cache of rendered public game views (GET /api/v1/games/{id}),
 * and of their members, the views that belong to one game but not to everyone (a seat's hand:
 * service_games.c), so that a read that nothing has changed since costs no database round
 * trip. A member's key is "ID/" and more; it is forgotten with its game. (The same
 * structure, always on and never invalidated, also keeps the seats of started games, which
 * never change: service.c.)
 *
 * Coherence: every change of a game is announced, on every instance, through the hub
 * (LISTEN/NOTIFY, plus a direct publish by the writer on its own instance before it replies).
 * The hub invalidates the game's entry; while the hub is not listening (start-up, a broken
 * connection) the cache is off, and it comes back empty. A view read from the database is
 * stored only when no invalidation of its game happened since the read began (the ticket), so
 * an old view cannot overwrite the news. A reader on this instance therefore always sees its
 * own writes; a write made through another instance reaches this cache when its NOTIFY
 * arrives (normally well under a millisecond after the commit).
 *
 * A writer's own note (live.c, live_committed: the game row it just committed, member "ID/~")
 * is stored the same way, with the ticket view_cache_invalidate_since() gives it when its own
 * announcement was the game's only news since before its commit; its own NOTIFY, when it comes
 * back, is skipped by the hub (hub.h, echoes), so the note lasts until other news. */
#ifndef CITY_VIEWCACHE_H
#define CITY_VIEWCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct view_cache;

/* A cache of up to `max_entries` views (0: a cache that never holds anything). Starts off;
 * view_cache_set_enabled() turns it on. NULL when memory runs out. */
struct view_cache *view_cache_new(size_t max_entries);
void view_cache_free(struct view_cache *vc);

/* Take before reading game `id` from the database; pass to view_cache_put(). */
uint64_t view_cache_ticket(struct view_cache *vc, const char *id);

/* The cached view of `id` as a new malloc'd copy in *body (*len bytes, NUL-terminated);
 * false when there is none. */
bool view_cache_get(struct view_cache *vc, const char *id, char **body, size_t *len);

/* view_cache_get() of an entry that is not a view (live.c's note of a game's current row):
 * not counted in the lookups' figures (view_cache_stats, view_cache_member_stats). */
bool view_cache_peek(struct view_cache *vc, const char *id, char **body, size_t *len);

/* A cached view as shared text: the cache's own copy, held by a reference that the caller must
 * give back with view_text_release() (the cache may drop or replace the view meanwhile: the text
 * lives on until its last reference goes). NULL when there is none. No copy is made. */
struct view_text;
struct view_text *view_cache_get_text(struct view_cache *vc, const char *id);

/* The text's bytes (NUL-terminated) and their number in *len; they never change. */
const char *view_text_body(const struct view_text *t, size_t *len);

/* Gives back a reference from view_cache_get_text(); the last one frees the text and calls the
 * attached object's free function. NULL is allowed. */
void view_text_release(struct view_text *t);

/* What a reader built from the text to serve it again (the HTTP layer's prepared reply, which
 * sends the text's own bytes). One reader claims the text (view_text_claim: false for the first
 * reader that asks, since a view read only once is not worth it, true for the second, false
 * again for every later one and once something is attached), builds its object, and attaches it
 * (view_text_attach), or gives up (view_text_unclaim). Once attached, the object is the
 * text's last user: the text's last release calls obj_free(obj) instead of freeing the text,
 * and the object calls view_text_free(t) when it no longer reads the text. view_text_attached()
 * is the object attached, or NULL (also while one is being built). The caller holds a
 * reference throughout. */
void *view_text_attached(struct view_text *t);
bool view_text_claim(struct view_text *t);
void view_text_attach(struct view_text *t, void *obj, void (*obj_free)(void *obj));
void view_text_unclaim(struct view_text *t);
void view_text_free(struct view_text *t);

/* Stores a copy of `body` as the view of `id`, unless `id` was invalidated since `ticket`
 * was taken or the cache is off. */
void view_cache_put(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                    size_t len);

/* view_cache_put() of a view that is true only until `expires` (view_cache_now() seconds; 0:
 * for as long as nothing invalidates it): after it, view_cache_get() misses. For what changes
 * with time alone, such as a seat's presence. */
void view_cache_put_until(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                          size_t len, double expires);

/* The most parts a view may be stored with (view_cache_put_parts). */
enum { VIEW_CACHE_MAX_PARTS = 16 };

/* view_cache_put_until() of a view made of parts (a game's seats) each true until until[k]
 * (view_cache_now() seconds; 0: for good), k < nparts <= VIEW_CACHE_MAX_PARTS: the view is
 * true until the first of them, and view_cache_extend() can move a part's end. */
void view_cache_put_parts(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                          size_t len, const double until[], int nparts);

/* Tells the cache that part `part` of the view of `id` stays true until `until` (a seat seen
 * again while it was online): its end moves there if that is later, and the view's end with it.
 * False, and nothing changes, when there is no such view, it was stored without parts, or the
 * part is true for good (0: an away seat coming back is a change, told by invalidation). */
bool view_cache_extend(struct view_cache *vc, const char *id, int part, double until);

/* view_cache_put_until() that keeps `tag` with the text, for the reader (view_text_tag): what
 * the caller knows of the view besides its bytes, such as the seat whose hand it is. */
void view_cache_put_tagged(struct view_cache *vc, const char *id, uint64_t ticket, const char *body,
                           size_t len, double expires, int tag);

/* The tag the text was stored with (0 by view_cache_put and view_cache_put_until). */
int view_text_tag(const struct view_text *t);

/* Seconds on the cache's clock (CLOCK_BOOTTIME: steady, and running on while the host is
 * suspended) now. */
double view_cache_now(void);

/* Forgets the view of `id` and its members ("ID/..."); "*" forgets every view. Thread-safe,
 * like all of these. */
void view_cache_invalidate(struct view_cache *vc, const char *id);

/* view_cache_invalidate() of game `id` (not "*") by the writer of a change, with the ticket it
 * took before its change was committed: true, with *after a ticket taken just after the
 * invalidation, when no other invalidation of a game in id's bucket came between the two, so
 * that no other change of the game can have been announced since `ticket`; what the writer knows
 * of the game as of its own change may then be stored with *after (view_cache_put), and it stays
 * until the next news of the game. False (nothing to store) otherwise, and when the cache is off.
 */
bool view_cache_invalidate_since(struct view_cache *vc, const char *id, uint64_t ticket,
                                 uint64_t *after);

/* Forgets the view of `id` alone, not its members (for news that changes only the public view,
 * such as a seat's presence); tickets of the game's members taken before fail all the same. */
void view_cache_invalidate_own(struct view_cache *vc, const char *id);

/* Forgets the members of `id` alone, not its public view (for news that changes only what one
 * seat reads, such as its amended order); tickets of the game's entries taken before fail. */
void view_cache_invalidate_members(struct view_cache *vc, const char *id);

/* Turns the cache on or off; either way it forgets every view. */
void view_cache_set_enabled(struct view_cache *vc, bool on);

/* Views held now (members included), and lookups of games' own views that found one / did not,
 * since the start (for /metrics). */
void view_cache_stats(struct view_cache *vc, size_t *entries, uint64_t *hits, uint64_t *misses);

/* Lookups of members ("ID/...") that found one / did not, since the start. */
void view_cache_member_stats(struct view_cache *vc, uint64_t *hits, uint64_t *misses);

#endif
