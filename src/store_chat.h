/* store_chat.h: the SQL of table talk (migration 0020): a game's chat messages in two channels
 * ("players" and "watchers"), read after a cursor (the message id), and the reports of messages
 * that the operator lists (`cityd reports`). Every function runs parameterized statements on
 * `c` (inside the caller's transaction where one is open) and returns an enum store_status. */
#ifndef CITY_STORE_CHAT_H
#define CITY_STORE_CHAT_H

#include <jansson.h>
#include <stdbool.h>

#include "store.h"

/* A message as the API shows it: {id, channel, seat (null on the watchers' channel), name,
 * text, at ("YYYY-MM-DDTHH:MM:SS.mmmZ", UTC)}. */

/* A new message: `text` of `name` in game `id`'s channel `channel` ("players" with `seat`, or
 * "watchers" with seat -1), by account `account` (0: none), with the writer's key `key` (NULL:
 * none; else unique per writer and game, the writer being the account when there is one, else
 * the seat). */
struct store_chat_new {
    const char *id, *channel;
    int seat;
    long long account;
    const char *name, *text, *key;
};

/* What store_chat_sent() found, or store_chat_insert() did, for a message. */
enum {
    STORE_CHAT_NEW,       /* stored it */
    STORE_CHAT_AGAIN,     /* its key was stored with the same text: *out is that message */
    STORE_CHAT_KEY_TAKEN, /* its key was stored with another text: *out is that message */
};

/* Whether m's writer already sent a message with m's key: STORE_OK with that message in *out (a
 * new reference) and *kept STORE_CHAT_AGAIN (same text) or STORE_CHAT_KEY_TAKEN (another text);
 * STORE_NO_ROW with *kept STORE_CHAT_NEW when not, or when m has no key. Writes nothing, so a
 * caller can check its rate between this and the insert. */
int store_chat_sent(PGconn *c, const struct store_chat_new *m, json_t **out, int *kept);

/* Appends message m: *out gets the new message and *kept STORE_CHAT_NEW, or, when a request
 * racing this one stored m's key first (this insert waits for it), what store_chat_sent() says
 * of it. */
int store_chat_insert(PGconn *c, const struct store_chat_new *m, json_t **out, int *kept);

/* Game `id`'s messages with an id past `after`, oldest first, at most `limit`, the watchers'
 * channel included only when `watchers`: *out a new array of messages. */
int store_chat_after(PGconn *c, const char *id, long long after, int limit, bool watchers,
                     json_t **out);

/* The id of game `id`'s newest message (0 when it has none) into *last. */
int store_chat_last(PGconn *c, const char *id, long long *last);

/* The channel ("players" or "watchers", written to `channel`, size at least 16) of message
 * `msg` of game `id`; STORE_NO_ROW when the game has no such message. */
int store_chat_channel(PGconn *c, const char *id, long long msg, char *channel);

/* Records `reporter`'s report of message `msg` with `reason` (may be ""): *fresh tells whether
 * it is new (a reporter's second report of a message is kept once). */
int store_chat_report(PGconn *c, long long msg, const char *reporter, const char *reason,
                      bool *fresh);

/* Every standing report, oldest first, as a new array of {report, message, game, channel,
 * seat, name, text, at, reporter, reason, reported_at}. */
int store_chat_reports(PGconn *c, json_t **out);

/* Deletes report `report` (the operator dealt with it); STORE_NO_ROW when there is none. */
int store_chat_report_clear(PGconn *c, long long report);

/* Deletes message `msg` and its reports (the operator took it down: nobody reads it any more,
 * on the page, through GET .../chat or in the replay); STORE_NO_ROW when there is none. */
int store_chat_message_remove(PGconn *c, long long msg);

#endif
