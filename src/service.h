/* service.h: the game service, the one place that combines the rulesets and the store. Each
 * call is what one request does (create a game, join it, send an order, force a step, ...):
 * it loads the game in a transaction that locks its row where it writes (live.h), decides every
 * rule of the service (who may, when, how often, what the game says), records what happened,
 * and tells this instance's listeners (the hub) and metrics once it committed. The HTTP
 * handlers (api_*.c) only read the request, call one of these and answer.
 *
 * Contract common to the calls that take a struct outcome *o (zeroed by the caller, who owns
 * what it holds after: outcome_clear() or api_answer()): the call returns a store status,
 * STORE_OK with o->status the success status and o->reply (or o->text) its body, STORE_ABORT
 * with the problem recorded in o (nothing changed), or the store's failure (STORE_UNAVAILABLE,
 * STORE_HARD; nothing changed, o holds nothing to answer). `id` is a game id from the path and
 * `token` the request's bearer token (NULL when none was sent); both are borrowed. Every call
 * is thread-safe. */
#ifndef CITY_SERVICE_H
#define CITY_SERVICE_H

#include <jansson.h>
#include <stdbool.h>

#include "outcome.h"

struct server;

/* ---- games (service_create.c, service_games.c) ----------------------------------------------- */

/* Creates a game from create body `body` (a JSON object): its "game" (the default ruleset when
 * left out), seats, bots, turn_seconds, seed, the host's name, private, bot_level and the game's
 * own options, each checked in that order (400s in o); then takes one of the create quota's
 * tokens of address `client` (429 when used up), deals the game and stores it with its seats
 * (the host's when "name" is given). 201 with {id, game, host_token, seats, bots, join,
 * options, target_vp (the older field: the option of that name, or null), turn_seconds,
 * private, bot_level, [seat, token], status}. With an account's session token (auth.h) the
 * host is that account: seat 0 is its, under its name ("name" is then 400 conflicting_fields),
 * and the reply has {seat, account} but no seat token (the session token acts for the seat);
 * 401 for a session that ended. Any other token is ignored, as before accounts. */
int service_create(struct server *srv, const char *client, const char *token, const json_t *body,
                   struct outcome *o);

/* A page of the lobby: 200 with {games: [...], next}, open games first, newest first; an
 * address's open games beyond the newest --lobby-per-address left out. The query's values
 * (NULL when absent): `limit` 1..100 games (default 100), `after` the `next` of the page before
 * (null on the last page), `game` a ruleset id this server hosts, `seats` a number of seats;
 * any other value is 400 bad_query. */
int service_list_games(struct server *srv, const char *limit, const char *after, const char *game,
                       const char *seats, struct outcome *o);

/* The public view of game `id`, from this instance's view cache when it holds the game (else
 * read, and then cached): 200 with o->text; 404 when there is no such game. */
int service_game_view(struct server *srv, const char *id, struct outcome *o);

/* The private view of the seat `token` holds in game `id` (ruleset_private_view() with id, game,
 * status and the seat's last "defaulted" notice): 200; 404, or 401/403 for the token. */
int service_hand(struct server *srv, const char *id, const char *token, struct outcome *o);

/* Seats player `name` (a JSON value, checked here: a string that name_clean() accepts, names.h) at
 * the first free seat of open game `id`, after one of the join quota's tokens of address `client`
 * (429 when used up); starts the game when that was the last seat. 201 with {seat, token, id,
 * status}; 404, 409 for a full, started or unplayed game. */
int service_join(struct server *srv, const char *id, const char *client, const json_t *name,
                 struct outcome *o);

/* service_join() for the account whose session token is `token`: the seat takes the account's
 * name, and the reply has {seat, id, status, account} but no seat token (the session token
 * acts for the seat, on any device); 401 for a session that ended, 409 already_seated when the
 * account has a seat in the game. */
int service_join_account(struct server *srv, const char *id, const char *client, const char *token,
                         struct outcome *o);

/* The public log of game `id` after sequence `after`, one page: 200 with {events, last_seq}. */
int service_events(struct server *srv, const char *id, long long after, struct outcome *o);

/* The replay record of finished game `id`: 200 with {game, seed, players, ...options,
 * decisions}; 404, 409 before the end. */
int service_replay(struct server *srv, const char *id, struct outcome *o);

/* The finished game `id` round by round, for a replay viewer: 200 with {game, players, seats,
 * rounds, chat} (ruleset_replay_rounds() of its replay record, run outside the transaction;
 * chat: the table talk of both channels, its first SERVICE_CHAT_REPLAY messages). The replay
 * record itself (service_replay) holds only what replays the game. */
int service_replay_rounds(struct server *srv, const char *id, struct outcome *o);

/* ---- play (service_play.c) ---------------------------------------------------------------- */

/* One order on its way through group commit (batch.h), written in the transaction its batch
 * shares with other games' orders: one transaction per batch, never more per order. */
struct service_order;

/* A new order of the seat `token` holds in game `id`, with order body `body` (a JSON value; a
 * reference of its own is taken). The body is read by the game's ruleset only once the token
 * has shown a seat of this game. id and token must outlive the order. NULL when memory runs
 * out. */
struct service_order *service_order_new(struct server *srv, const char *id, const char *token,
                                        json_t *body);

/* Queues the order for group commit; `done(arg)` is called from a batcher thread once its
 * transaction ended. False, with the order failed as STORE_UNAVAILABLE and done never called,
 * when the batcher is stopping. */
bool service_order_queue(struct service_order *so, void (*done)(void *arg), void *arg);

/* Runs the order and waits until its transaction ended (for a caller that cannot wait to be
 * called back). */
void service_order_run(struct service_order *so);

/* Once the order's transaction ended: tells this instance's listeners what it changed (a
 * refused order changed nothing, an amendment nothing others see) and moves its outcome into
 * *o: 202 with {accepted, round, step, [turn], resolved, game: {status, round, step, [turn]}};
 * the 400 of a body the ruleset does not read, 409 stale_step (a past point, or
 * nothing_to_decide), 409 for a game not started, ended or unplayed, 422 with the engine's
 * reason, 429 too_many_amendments past the amendment cap. Returns the transaction's status. */
int service_order_finish(struct service_order *so, struct outcome *o);

void service_order_free(struct service_order *so);

/* STORE_OK when `token` is a seat's of game `id`; else its 404, or the token's 401/403, in o
 * (or the store's failure): for a request whose body was refused before the game was read, so
 * that a client without a valid token learns nothing about bodies. */
int service_seat_check(struct server *srv, const char *id, const char *token, struct outcome *o);

/* Forces the point that body {"round", "step"[, "turn"]} names (NULL: none sent, a 400) with
 * defaults for the missing decisions: the host token, or a seat's once the point is overdue;
 * only while that point is the current one (else 409 stale_step, nothing forced). 200 with the
 * public view. */
int service_resolve(struct server *srv, const char *id, const char *token, const json_t *body,
                    struct outcome *o);

/* A hint on its way: the expert's suggestion for the pending decision of the seat `token` holds
 * in game `id`, asked for from address `client`. A seat has hints_per_game of a game (429
 * too_many_hints past it); an address asks at most hint_rate a minute (429 rate_limited with
 * Retry-After), with at most half of hint_threads (at least one) in flight, and the instance
 * thinks at most hint_threads at once (503 busy past it, Retry-After 1). The hint is counted in
 * a short transaction, then thought about on the bot pool, fairly among addresses, with no lock
 * and no database connection held. 200 with {suggestion, by, hints_used, hints_left}.
 * NULL when memory runs out; id, token and client must outlive the hint's start. */
struct service_hint;
struct service_hint *service_hint_new(struct server *srv, const char *id, const char *token,
                                      const char *client);

/* Checks the limits and counts the hint, then queues its thinking: true when queued, and
 * done(arg) is called from a bot worker once the outcome is ready. False when the outcome is
 * ready now (refused, or thought about in place: no pool, done NULL, or the pool stopping). */
bool service_hint_start(struct service_hint *hc, void (*done)(void *arg), void *arg);

/* Once the outcome is ready: moves it into *o and returns the transaction's status. */
int service_hint_finish(struct service_hint *hc, struct outcome *o);

void service_hint_free(struct service_hint *hc);

/* ---- seats (service_seats.c) -------------------------------------------------------------- */

/* The seat `token` holds leaves game `id`: free again in an open game, a bot's in a running
 * one. 200 with {id, seat, status, bot}. */
int service_leave(struct server *srv, const char *id, const char *token, struct outcome *o);

/* Hands seat `seat` (0..RS_MAX_SEATS-1) of running game `id` to a bot: asked by the host
 * (`token`) once the seat has missed enough deadlines (srv->quotas' takeover_after), or by
 * another person at the table (a seat's token or an account's session) once the seat is away
 * (no sign of life within --presence-seconds) and has missed at least one deadline (else 409
 * seat_not_absent; one's own seat is 400 bad_value: leave instead). The seat's token and account
 * are kept for service_reclaim(). 200 with {id, seat, status, bot, missed}; the taken_over event
 * says `by`: "host" or the asking seat. */
int service_takeover(struct server *srv, const char *id, const char *token, int seat,
                     struct outcome *o);

/* The person whose seat of running game `id` a bot took over (service_takeover) takes it back
 * with the token the seat had, or their account's session token: the seat plays with it again,
 * a "reclaimed" event {seat, name} is logged. 200 with {id, seat, status}; 401 bad_token when no
 * seat of the game was taken over from this token; 409 for a game not being played. */
int service_reclaim(struct server *srv, const char *id, const char *token, struct outcome *o);

/* The host (`token`) cancels open game `id`. 200 with {id, status: "cancelled"}. */
int service_cancel(struct server *srv, const char *id, const char *token, struct outcome *o);

/* ---- table talk (service_chat.c) ---------------------------------------------------------- */

/* The longest chat message (characters, i.e. Unicode code points), the longest writer's key,
 * the longest reason of a report, the most messages a page of GET .../chat holds, and the most a
 * replay shows. */
enum {
    SERVICE_CHAT_MAX_CHARS = 500,
    SERVICE_CHAT_KEY_MAX = 64,
    SERVICE_CHAT_REASON_CHARS = 200,
    SERVICE_CHAT_PAGE = 100,
    SERVICE_CHAT_REPLAY = 2000
};

/* Message `text` (the body's "text", a JSON value checked here: a string of 1..
 * SERVICE_CHAT_MAX_CHARS characters, not only white space, stored as typed) in game `id`, from
 * `token`: a seat token of the game, or the session of an account seated in it, writes on the
 * players' channel; the session of an account with no seat, on the watchers' channel. Takes a
 * token of the chat limiter for address `client` and for the seat or account (429 rate_limited
 * with Retry-After). 201 with the message {id, channel, seat, name, text, at}, which every
 * instance's event streams then send as a "chat" event; 400 chat_empty, chat_too_long,
 * missing_field, wrong_type; 401 token_required (anonymous watchers do not write), bad_token;
 * 403 wrong_game, not_a_seat_token; 404. `key` (the body's "key", NULL when absent: 1 to
 * SERVICE_CHAT_KEY_MAX of [A-Za-z0-9-_.:], else 400 bad_value or wrong_type) makes a resend safe:
 * when the writer already sent a message with it in this game, nothing is stored, sent or
 * charged to the limiter, and the answer is 200 with that message, or 409 chat_key_reused
 * when its text differs. */
int service_chat_post(struct server *srv, const char *id, const char *client, const char *token,
                      const json_t *text, const json_t *key, struct outcome *o);

/* A page of game `id`'s chat after message `after` (NULL: from the start), at most `limit`
 * (1..SERVICE_CHAT_PAGE, NULL: the most) messages, oldest first: 200 with {messages, last (the
 * last message's id, or `after` when none: the next page's cursor), more (the page is full),
 * watchers (whether the watchers' channel is included: once the game ended, or for the session
 * of an account with no seat in it; any other token, or none, reads the players' channel)};
 * 400 bad_query; 404. */
int service_chat_read(struct server *srv, const char *id, const char *token, const char *after,
                      const char *limit, struct outcome *o);

/* Reports message `msg` (its id, as text from the path) of game `id`, with `reason` (a JSON
 * string of at most SERVICE_CHAT_REASON_CHARS characters, or NULL), for the operator: stored
 * once per reporter (the account of a session, the seat of a seat token, else address
 * `client`), logged on stderr and counted in /metrics when new. A token, when sent, must fit
 * (401/403 as for posting). Takes a token of the address's chat bucket (429). 201 with
 * {message, reported: true, first: true}, or 200 with first false for a repeated report; 404
 * no_such_message for a message the reporter cannot read. */
int service_chat_report(struct server *srv, const char *id, const char *client, const char *token,
                        const char *msg, const json_t *reason, struct outcome *o);

/* ---- presence (service_presence.c) -------------------------------------------------------- */

struct quotas;

/* A sign of life of seat `seat` of game `id` (its event stream opening or ticking, a hand view,
 * an order): the seat is "online" for --presence-seconds (srv->quotas) from now. Noted in
 * memory for the writer thread (service_presence_start), which writes the database at most
 * every quarter of that time per seat, many seats a transaction, moments later (a write that
 * finds the seat away tells every instance); without a writer, written before it returns. A
 * failure is ignored: the seat's next sign tries again. Thread-safe. */
void service_seen(struct server *srv, const char *id, int seat);

/* Starts the writer of signs of life (srv->presence); false when it cannot (then service_seen
 * writes in the caller's thread). Call after the store and the hub are up. */
bool service_presence_start(struct server *srv);

/* Writes the signs still queued, stops the writer and frees it; before the store and the hub
 * go. NULL or a server without a writer is allowed. */
void service_presence_stop(struct server *srv);

/* The keep-alive tick of event streams, in milliseconds, for presence settings `q` (NULL: the
 * defaults): a third of --presence-seconds, at most 15 s, so that a connected seat's stream
 * shows a sign of life well within the window. */
int service_stream_tick_ms(const struct quotas *q);

/* ---- accounts (service_accounts.c) -------------------------------------------------------- */

/* Each call that takes a password takes one attempt of address `client`'s bucket and of the
 * account name's (429 rate_limited with Retry-After past either), hashes with argon2id
 * (pwhash.h) with no database connection held, and answers 503 busy (Retry-After 1) when the
 * instance hashes --hash-threads passwords already. name and password are JSON values of the
 * body (NULL when left out), checked here. */

/* Signs up: name (name_clean(), unique after name_key() folding: 409 name_taken) and password
 * (PWHASH_MIN_CHARS characters to PWHASH_MAX_BYTES bytes). 201 with {name, created_at}. */
int service_account_create(struct server *srv, const char *client, const json_t *name,
                           const json_t *password, struct outcome *o);

/* Signs in: 201 with {token (a new session token, answered only here), name, expires_at (after
 * --session-seconds)}; 401 bad_credentials for an unknown name or a wrong password, alike. */
int service_session_create(struct server *srv, const char *client, const json_t *name,
                           const json_t *password, struct outcome *o);

/* Signs out session `token`, or every session of its account when `everywhere`: 200 with
 * {sessions_ended}; 401 when `token` is no live session. */
int service_session_end(struct server *srv, const char *token, bool everywhere, struct outcome *o);

/* The account of session `token`: 200 with {name, created_at}. */
int service_me(struct server *srv, const char *token, struct outcome *o);

/* The most recent games a profile lists, and a leaderboard's page size (default and most). */
enum { SERVICE_PROFILE_RECENT = 20, SERVICE_BOARD_LIMIT = 100, SERVICE_BOARD_DEFAULT = 50 };

/* The profile of player `name` (an account's name, or a rated bot's "bot:greedy"): 200 with
 * {name, kind: "person" | "bot", ratings: [{game, mu, sigma, ordinal, games, wins}], played,
 * won, recent: [{id, game, finished_at, place, players, rated, change}]} (the last
 * SERVICE_PROFILE_RECENT finished listed games, newest first; change null when unrated); 404
 * no_such_player when no account (a deleted one included) or rated bot has the name. */
int service_player(struct server *srv, const char *name, struct outcome *o);

/* A page of the leaderboard of game kind `game` (NULL: the default game): 200 with {game,
 * players: [{rank, name, kind, mu, sigma, ordinal, games}] (players with a rated game, ordinal
 * most first), next: the cursor of the next page or null, best_solo: [{name, score, id,
 * finished_at}]}. `limit` 1..SERVICE_BOARD_LIMIT (default SERVICE_BOARD_DEFAULT) and `after`
 * a page's `next` (NULL: the first page); 400 bad_game for an unknown game, bad_query for a bad
 * limit or cursor. */
int service_leaderboard(struct server *srv, const char *game, const char *limit, const char *after,
                        struct outcome *o);

/* The games the account of session `token` sits in, most recently changed first, a page of
 * `limit` (1..100, default 100) after `after` (a page's `next`; NULL: the first page): 200 with
 * {name, games: [{id, game, status, seat, players, private, created_at, updated_at}], next: the
 * next page's cursor or null}; 400 bad_query for a bad limit or cursor. */
int service_me_games(struct server *srv, const char *token, const char *limit, const char *after,
                     struct outcome *o);

/* Changes the password of session `token`'s account from `old` (403 wrong_password) to `new_pw`
 * and ends its other sessions: 200 with {name, sessions_ended}. */
int service_password_change(struct server *srv, const char *client, const char *token,
                            const json_t *old, const json_t *new_pw, struct outcome *o);

/* Deletes the account of session `token` after checking its `password` (403 wrong_password):
 * its sessions end, its seats keep their games under the name "deleted player" (in the views
 * and the logs), and the name is free again. 200 with {name, deleted: true, shown_as}. */
int service_account_delete(struct server *srv, const char *client, const char *token,
                           const json_t *password, struct outcome *o);

/* ---- what is not one game (service.c, service_sweep.c) ----------------------------------- */

/* GET /api/v1/rulesets: the games this server hosts (each ruleset's descriptor), the default
 * first, the hints per game and the expert's levels; a new reference. */
json_t *service_rulesets(const struct server *srv);

/* The card catalog of the game `game` names (NULL: the default game), as rendered at start-up:
 * 200 with o->text; 400 bad_query for a game this server does not host. */
int service_cards(const struct server *srv, const char *game, struct outcome *o);

/* True when the database answers now. */
bool service_healthy(const struct server *srv);

/* The games' figures for /metrics (Prometheus text, malloc'd), or NULL when the database does
 * not answer. */
char *service_games_metrics(const struct server *srv);

/* One round of the sweeper: resolves the overdue steps of up to `max` (at most
 * STORE_MAX_GAMES_LOADED) playing games in one transaction (locked FOR UPDATE SKIP LOCKED, so
 * that several instances share the work; loaded in one round trip), recording how late past
 * its deadline each step was forced (metrics_sweeper_lateness); and, at most once a second,
 * expires open games older than the open TTL and deletes games ended longer ago than the
 * retention (srv->quotas), a bounded batch of each. Returns the steps resolved plus the games
 * expired and deleted: 0 when there was nothing to do. */
int service_sweep(struct server *srv, int max);

#endif
