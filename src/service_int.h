/* service_int.h: what the service's files (service*.c) share and nothing else sees: finding the
 * seat of a token, the refusals every call makes alike, the per-address quotas, and telling
 * this instance's listeners what a committed write changed. */
#ifndef CITY_SERVICE_INT_H
#define CITY_SERVICE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <libpq-fe.h>

#include "live.h"
#include "outcome.h"

struct rate_limit;
struct account;

/* A read or write of one game: the server, the game id, the bearer token and what to answer
 * (the caller's). */
struct game_call {
    struct server *srv;
    const char *id;
    const char *token;
    struct outcome *o;
    int resolved; /* steps resolved by the write, for metrics */
};

/* The seat of `token` in loaded game lv, or -1 with the right 401/403 recorded in o (or 503 when
 * the database failed). A seat token names its seat; an account's session token (auth.h) the
 * seat its account holds in the game (403 not_seated when none). */
int service_seat_of_token(PGconn *c, struct live *lv, const char *token, struct outcome *o);

/* The account of session token `token` (NULL: none sent) into *a: STORE_OK; STORE_ABORT with
 * 401 token_required, or bad_token for a token that is no live session, recorded in o; or the
 * store's failure. `what` says what needs the session ("your account"). */
int service_session_account(PGconn *c, const char *token, const char *what, struct account *a,
                            struct outcome *o);

/* The account of session token `token`, read outside any transaction, into *a; a->id is 0 when
 * `token` (NULL: none) has no session token's form (a seat or host token, ignored where an
 * account is optional). STORE_OK, or the 401 of an ended session in o, or the store's failure. */
int service_account_of(struct server *srv, const char *token, struct account *a, struct outcome *o);

/* Checks a player name with name_clean() (names.h: NFC, trimmed, no controls, bidi or invisible
 * characters, 1..NAMES_MAX_CHARS characters, not a bot's). Writes the clean name to out (size n,
 * at least NAMES_MAX_BYTES + 1); false (a 400 in o) when it is refused. */
bool service_read_name(const json_t *v, char *out, size_t n, struct outcome *o);

/* Loads game gc->id into *lv (locked FOR UPDATE when `lock`): STORE_OK, or the 404 recorded
 * in gc->o ("There is no game "ID"" and `tail`: "." or "; what to do."), or the store's
 * failure. live_free() after, whatever it returns. */
int service_load(PGconn *c, struct game_call *gc, bool lock, const char *tail, struct live *lv);

/* service_load()'s tail that points to the lobby. */
extern const char service_see_lobby[];

/* True when a game of this status ended without being played (expired or cancelled). */
bool service_is_unplayed(const char *status);

/* The refusal of a join, an order, a force, a hint or a seat change on a game that ended
 * unplayed: 409 game_expired, or game_cancelled when `status` is "cancelled". Returns
 * STORE_ABORT. */
int service_fail_unplayed(struct outcome *o, const char *status);

/* The sentence of 409 game_over for a game the sweeper ended as abandoned. */
#define SERVICE_ABANDONED                                                                          \
    "The game was abandoned: nobody made an order or decision in it for the server's idle "        \
    "limit, so it ended unfinished. Create a game or join an open one (GET /api/v1/games)."

/* True when a started game has ended: finished, abandoned, or over by its rules. */
bool service_has_ended(const struct live *lv);

/* The refusals of a call that needs a game in play, in this order: 409 game_expired or
 * game_cancelled (service_fail_unplayed), game_not_started with sentence `not_started`,
 * game_over with SERVICE_ABANDONED for an abandoned game, game_over with sentence `ended`.
 * STORE_OK when the game is being played, else STORE_ABORT with the refusal in o. */
int service_check_playing(const struct live *lv, struct outcome *o, const char *not_started,
                          const char *ended);

/* Takes one token of address `client`'s bucket in `rl` (NULL: no limit). False, with a 429 and
 * its Retry-After in o, when the bucket is empty: `what` says what the address did too often
 * ("created games"), `rate` and `burst` are the limit's settings. */
bool service_within_rate(struct rate_limit *rl, const char *client, const char *what, double rate,
                         int burst, struct outcome *o);

/* service_within_rate() of a bucket key made by the caller (rate_limit_take_key: an account's,
 * a seat's): false, with a 429 and its Retry-After in o, when the bucket is empty; `too_often`
 * opens the sentence ("This account has had too many password attempts"). */
bool service_within_key_rate(struct rate_limit *rl, const unsigned char *key, const char *too_often,
                             double rate, int burst, struct outcome *o);

/* After a write of game `id` committed with status `st` (nothing when it is not STORE_OK):
 * counts the `resolved` steps and wakes this instance's listeners of the game. */
void service_published(struct server *srv, int st, const char *id, int resolved);

/* Adds "presence" ("online" or "away") to each seat of public view `view` of game `id`, from
 * the seats' last signs of life (service_seen): a bot's seat is always online, a free one away.
 * left[k] (when `left` is not NULL; RS_MAX_SEATS of them, *nleft set to the view's seats) is the
 * seconds until seat k, an online person, would turn away, and 0 for every other seat: a cached
 * copy of the view is true until the first of them, or longer as its seats show signs again
 * (service_presence.c extends it). */
int service_presence_add(struct server *srv, PGconn *c, const char *id, json_t *view, double left[],
                         int *nleft);

/* Adds to `game`, a create's reply or a lobby entry with its "options", the API's fields from
 * before options were declared: "target_vp", the option of that name or null, which clients
 * written then read (the OpenAPI file requires it). */
void service_add_older_fields(json_t *game);

#endif
