/* store_games.h: the service's queries on games, seats, orders, decisions and events. Every
 * function runs one parameterized statement on `conn` (inside the caller's transaction where
 * one is open) and returns an enum store_status. */
#ifndef CITY_STORE_GAMES_H
#define CITY_STORE_GAMES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "auth.h"
#include "netaddr.h"
#include "ruleset.h"
#include "store.h"

struct game_row {
    char id[AUTH_ID_LEN + 1];
    char game[16];   /* the ruleset's id (struct ruleset's `id`) */
    bool unlisted;   /* a private table: not in the lobby, joined through its link */
    char status[12]; /* "open", "playing", "finished", "expired", "cancelled", "abandoned" */
    int players;
    int turn_seconds;  /* 0: no time limit */
    int point_seconds; /* store_game_save(): the clock of a point opened (its step's share) */
    /* The time bank (migration 0021, docs/rules.md "Timers and defaults"): each seat's bank at
     * the start, 0: none; what each seat has left (charged when it decides after its step's own
     * time); when the step's own time ends (seconds since the epoch, 0: none) and how long ago
     * that was as this transaction reads it (negative before). */
    int time_bank_seconds;
    int banks[RS_MAX_SEATS];
    double step_ends;
    double past_step_end;
    int bank_extra; /* store_game_save(): the largest bank among the seats still deciding */
    long long version;
    int steps_resolved;
    int ndecisions;
    int ndefaults; /* decisions in the log that the rules chose (defaults) */
    long long last_seq;
    bool overdue;    /* the current step's deadline has passed */
    double deadline; /* seconds since the epoch, 0 when none */
    uint8_t host_hash[AUTH_HASH_LEN];
    char amend_step[40];            /* ruleset_pos_key() the amend_counts are for, or "" */
    int amend_counts[RS_MAX_SEATS]; /* amendments of each seat's order in amend_step */
    json_t *state;                  /* owned by the row; game_row_clear() frees it */
    bool state_unchanged;           /* state is NULL: the version is the one the reader knew */
    int seats_version;              /* bumped by every change of a seat after the start */
    bool bot_due;                   /* a slow bot (the expert) must decide: the bot pool's work */
    char bot_level[16];             /* the expert's level in this game (expert_levels.h) */
    char options[256]; /* store_game_insert(): the creation options as JSON {name: value} */
    bool has_creator;  /* creator_key is set (store_game_insert() writes it, a read fills it) */
    uint8_t creator_key[NETADDR_KEY_LEN]; /* the creating client's netaddr_key() (the lobby's
                                             cap per address) */
    bool rated; /* a rated game (migration 0018): its finish rates its players */
    /* A finished rated game's ratings as stored (games.ratings: [{seat, player, mu, sigma,
     * ordinal, change}], a person's player its rating key), or "" */
    char ratings[1536];
};

struct seat_row {
    int seat;
    char name[256]; /* empty while free */
    char bot[16];   /* empty for a human seat */
    bool has_token;
    uint8_t token_hash[AUTH_HASH_LEN];
    long long account; /* the account sitting here (store_accounts.h), or 0: anonymous or bot */
};

void game_row_clear(struct game_row *g);

/* Inserts a new game and its seats. */
int store_game_insert(PGconn *c, const struct game_row *g, const struct seat_row *seats, int n);

/* Reads a game row, locking it FOR UPDATE when `lock`. When its version is `known` (-1: none),
 * its state is not sent: out->state is NULL and out->state_unchanged true. STORE_NO_ROW when
 * there is none. */
int store_game_read(PGconn *c, const char *id, bool lock, long long known, struct game_row *out);

/* Reads a game row (locked FOR UPDATE when `lock`; its state as in store_game_read) and its
 * seats in one round trip; the seats are read after the lock is held, so they are as current
 * as the row. STORE_NO_ROW when there is no such game. */
int store_game_load(PGconn *c, const char *id, bool lock, long long known, struct game_row *out,
                    struct seat_row *seats, int *nseats);

/* The most games store_games_load() reads at once. */
enum { STORE_MAX_GAMES_LOADED = 32 };

/* Reads and locks (FOR UPDATE, in the order given: callers sort the ids so that transactions
 * that lock several games cannot deadlock) n games in one round trip, with their seats where
 * with_seats[i]. Where a game's version is known[i] (-1: none), its state is not sent and
 * rows[i].state_unchanged is set. found[i] is STORE_OK with rows[i] (and seats[i], nseats[i])
 * filled, or STORE_NO_ROW. Returns STORE_OK or the failure that stopped the reads. */
int store_games_load(PGconn *c, int n, const char *const *ids, const long long *known,
                     const bool *with_seats, struct game_row *rows, int *found,
                     struct seat_row (*seats)[RS_MAX_SEATS], int *nseats);

/* Writes back state, status, version+1, counters, the amendment counts, the banks, and the
 * deadline: when step_changed, the step's own time (point_seconds) from now, else the step's own
 * end as before, plus bank_extra either way (none when not playing or without a clock), appends
 * `events` (the text of a JSON array of {type, data}, g->last_seq - first_seq + 1 of them) to
 * the game's log as events first_seq, first_seq+1, ..., g->last_seq (one batch row), stores
 * `orders` (a JSON array of {round, step, turn, seat, body}, at most one per seat and step), each
 * replacing the seat's earlier order for its step, and appends `decisions` (a JSON array of
 * {seat, round, step, turn, body, is_default}, the replay log's decisions g->ndecisions - k to
 * g->ndecisions - 1, k its length) as one batch row; one statement. */
int store_game_save(PGconn *c, const struct game_row *g, bool step_changed, long long first_seq,
                    const char *events, const char *orders, const char *decisions);

/* Gives a free seat a name, a token hash and its account (0: none). */
int store_seat_take(PGconn *c, const char *id, int seat, const char *name,
                    const uint8_t hash[AUTH_HASH_LEN], long long account);

/* Reads the seats of game `id` (at most RS_MAX_SEATS) into seats[], their number to *nseats. */
int store_seats_read(PGconn *c, const char *id, struct seat_row *seats, int *nseats);

/* Changes seat `seat` of game `id` and bumps the game's seats_version: with `bot` a bot kind,
 * a bot plays the seat from now on (its name stays, its token and account no longer act for
 * it); with `bot` NULL the seat is free again (name, token and account cleared). */
int store_seat_change(PGconn *c, const char *id, int seat, const char *bot);

/* The most seats one store_seats_seen_now() notes (each may send a notification, and a
 * transaction sends at most 128). */
enum { STORE_SEEN_MAX = 100 };

/* Notes that seat seats[i] of game ids[i] was seen now, for each i < n (at most
 * STORE_SEEN_MAX; the same seat twice is written once): a live connection of its own
 * (migration 0019). A seat seen within `every` seconds is not written (a connected seat costs
 * at most one write per `every` seconds, whichever instances serve it). back[i] is set when
 * the write found the seat not seen within `online` seconds (it was "away", or never seen);
 * every instance is then told of the game (store_notify_news with STORE_NEWS_PRESENCE, once
 * committed) so that cached public views, which show the seat away, are dropped. written[i] is
 * set when seat i's sign was written now (not skipped as seen within `every`). Run it in a
 * transaction of its own, which may commit lazily (store_commit_lazily). */
int store_seats_seen_now(PGconn *c, const char *const ids[], const int seats[], int n, double every,
                         double online, bool back[], bool written[]);

/* The seconds since each seat of game `id` was last seen, by seat number, into ago[] (at most
 * RS_MAX_SEATS; -1: never), their number to *n. */
int store_seats_seen(PGconn *c, const char *id, double ago[], int *n);

/* store_seat_change() to bot `bot` of a seat whose person may take it back: its token hash and
 * account are kept (seats.reclaim_hash, reclaim_account) for store_seat_reclaim(). */
int store_seat_takeover(PGconn *c, const char *id, int seat, const char *bot);

/* Gives the seat of game `id` that a bot took over back to its person: the seat whose kept token
 * hash is `hash`, or whose kept account is `account` (0: none), plays again with that token and
 * account (the kept ones are cleared, seats_version bumped, the seat seen now). Its number to
 * *seat; STORE_NO_ROW when no seat of the game was taken over from that token or account. */
int store_seat_reclaim(PGconn *c, const char *id, const uint8_t hash[AUTH_HASH_LEN],
                       long long account, int *seat);

/* How many of the decisions recorded for seat `seat` of game `id` were defaults (missed
 * deadlines and forced steps), into *count. */
int store_seat_defaults(PGconn *c, const char *id, int seat, int *count);

/* Counts one hint of seat `seat` of game `id` if it has used fewer than `cap`: STORE_OK with
 * the hints used now in *used, or STORE_NO_ROW when none is left. */
int store_hint_take(PGconn *c, const char *id, int seat, int cap, int *used);

/* Ids of up to `max` playing games whose slow bots have been due for `seconds` or more (their
 * worker was lost, or its queue was full), into ids[], games where a person sits first (and
 * people[i] says which), their creators' netaddr_key_hash() into who[] (0: unknown), their
 * number to *n. */
int store_bots_stale(PGconn *c, int seconds, int max, char ids[][AUTH_ID_LEN + 1], bool people[],
                     uint64_t who[], int *n);

/* STORE_OK when some seat or host of any game has this token hash, STORE_NO_ROW when none. */
int store_token_known(PGconn *c, const uint8_t hash[AUTH_HASH_LEN]);

/* The seat's last decision in the log when the rules chose it (a default), as a new object
 * {round, step, [turn,] chosen: the order body, by: "timer" | "host" | a seat number}, or
 * STORE_NO_ROW when the seat's last decision was its own, or it has none. Points that other
 * seats decided after it (bots taking their turns) do not end the notice: only the seat's own
 * next decision does. */
int store_last_default(PGconn *c, const char *id, int seat, json_t **out);

/* Announces new events of a game to every instance (LISTEN city_events) once the running
 * transaction commits. */
int store_notify(PGconn *c, const char *id, long long seq);

/* The tail of a notification's payload ("ID:SEQ" STORE_NEWS_PRESENCE) that changes only the
 * game's public view: a seat's presence. Hubs then keep the game's cached hands. */
#define STORE_NEWS_PRESENCE ":presence"

/* The tail of a notification's payload ("ID:SEQ" STORE_NEWS_HANDS) that changes only what a seat
 * reads (an amended order): hubs forget the game's cached hands, not its public view. */
#define STORE_NEWS_HANDS ":hands"

/* store_notify() of a partial change: `tail` is STORE_NEWS_PRESENCE or STORE_NEWS_HANDS ("" is
 * store_notify's whole change, and so is any other tail that begins with ':', such as the one
 * that marks the writer's own change, hub_echo_tail). */
int store_notify_news(PGconn *c, const char *id, long long seq, const char *tail);

/* Announces to every instance (LISTEN city_events, payload LOBBY_CACHE_NEWS, which is no game's
 * id) that what the lobby lists changed, once the running transaction commits. */
int store_notify_lobby(PGconn *c);

/* Events with seq > after, oldest first, at most `limit`, as a new JSON array of
 * {seq, type, ...data}. */
int store_events_after(PGconn *c, const char *id, long long after, int limit, json_t **out);

/* A page of the public log as GET /events serves it: the events with seq > after (at most
 * `limit`, oldest first, a new JSON array in *events) and the game's newest seq in *last_seq,
 * both read by one statement, so from one snapshot: *last_seq is never behind the page.
 * STORE_NO_ROW when there is no such game (then *events is NULL). */
int store_events_page(PGconn *c, const char *id, long long after, int limit, json_t **events,
                      long long *last_seq);

/* What a page of the lobby asks for. */
struct lobby_query {
    int limit;         /* games on the page, 1..100 */
    const char *game;  /* only games of this ruleset id, or NULL */
    int players;       /* only games of this many seats, or 0 */
    bool has_after;    /* the page starts after the cursor below */
    int after_part;    /* 0: open games, 1: playing and finished ones */
    char after_ts[80]; /* "YYYY-MM-DD HH:MM:SS.uuuuuu" (UTC) of the last game seen */
    char after_id[AUTH_ID_LEN + 1];
};

/* The room for a lobby cursor ("P-YYYYMMDDHHMMSSuuuuuu-ID"). */
enum { STORE_CURSOR_LEN = 48 };

/* Reads cursor text ("P-YYYYMMDDHHMMSSuuuuuu-ID", as a page's next gives it) into q's after_*
 * fields. False when it is not one (a part other than 0 or 1, a time that is no valid UTC
 * time, an id of other than 1..AUTH_ID_LEN lowercase letters and digits). */
bool store_lobby_cursor_parse(const char *text, struct lobby_query *q);

/* Leaves out of the lobby for good (lobby_hidden) the open games of creating address `key`
 * beyond its newest `keep` listed ones (games another transaction holds are skipped: they may
 * stay listed). */
int store_lobby_trim(PGconn *c, const uint8_t key[NETADDR_KEY_LEN], int keep);

/* A page of the lobby as a new JSON array: open games newest first, then playing and finished
 * ones newest first (ties by id), private tables and open games store_lobby_trim() hid left
 * out; filtered by q's game and players; after q's cursor when it has one. *next (STORE_CURSOR_LEN
 * bytes) is the cursor of the page's last game when more follow, else "". Each part reads its
 * partial index from the cursor on, LIMITed, so the cost does not grow with the games stored. */
int store_games_list(PGconn *c, const struct lobby_query *q, json_t **out, char *next);

/* Every decision of a game in order, as a new JSON array of {seat, ...order body}. */
int store_decisions_read(PGconn *c, const char *id, json_t **out);

/* Ids of up to `max` playing games whose deadline has passed, locked FOR UPDATE SKIP LOCKED
 * (so that several instances share the sweeping). */
int store_overdue_games(PGconn *c, char ids[][AUTH_ID_LEN + 1], int max, int *n);

/* Games by status as Prometheus text into a new malloc'd string, read from the counts that
 * triggers keep with every change of status (game_counts, and the changes in
 * game_count_changes that store_game_counts_fold() has not taken in yet). */
int store_games_metrics(PGconn *c, char **out);

/* Folds the changes of status written since the last fold into game_counts, so that the
 * changes table stays small; the sweeper calls it about once a second. The counts read do not
 * change. Safe to run on several instances at once. */
int store_game_counts_fold(PGconn *c);

/* Marks up to `max` (at most STORE_MAX_GAMES_LOADED) open games created more than `ttl`
 * seconds ago as expired, oldest first, skipping games another transaction holds, and appends
 * an "expired" event to each. Their ids and new last_seq go to ids[] and seqs[], their number
 * to *n. */
int store_expire_open(PGconn *c, int ttl, int max, char ids[][AUTH_ID_LEN + 1], long long *seqs,
                      int *n);

/* The room for a game's seats as store_abandon_idle() lists them ("0:Ada 1:Bob/greedy 2:-"). */
enum { STORE_SEATS_TEXT = RS_MAX_SEATS * 280 };

/* Marks up to `max` (at most STORE_MAX_GAMES_LOADED) playing games in which nothing was saved
 * (no order, decision or seat change) for `idle` seconds as abandoned, oldest first, skipping
 * games another transaction holds, and appends an "abandoned" event ({idle_seconds}) to each.
 * Their ids, new last_seq and seats ("seat:name", "seat:name/bot", "seat:-" for a free one,
 * blank-separated) go to ids[], seqs[] and seats[], their number to *n. */
int store_abandon_idle(PGconn *c, int idle, int max, char ids[][AUTH_ID_LEN + 1], long long *seqs,
                       char (*seats)[STORE_SEATS_TEXT], int *n);

/* Deletes up to `max` (at most STORE_MAX_GAMES_LOADED) games that finished or expired more than
 * `retention` seconds ago, oldest first, with every row of theirs (seats, orders, decisions,
 * events: ON DELETE CASCADE), skipping games another transaction holds. Their ids go to ids[],
 * their number to *n. */
int store_purge_ended(PGconn *c, int retention, int max, char ids[][AUTH_ID_LEN + 1], int *n);

/* The statements whose plans matter at scale, for tests that EXPLAIN them: the lobby ($1
 * limit), overdue games ($1 limit), expiry ($1 ttl, $2 limit), purge ($1 retention, $2
 * limit), abandoning idle games ($1 idle seconds, $2 limit) and the game counts. */
enum store_games_sql { SQL_LOBBY, SQL_OVERDUE, SQL_EXPIRE, SQL_PURGE, SQL_COUNTS, SQL_ABANDON };
const char *store_games_sql(enum store_games_sql which);

#endif
