/* live.h: a game loaded inside a transaction, the service's working piece (service.h): load a
 * game under its row lock, let bots decide, resolve ready steps, record decisions and events,
 * save. With the service's own files (service*.c), the bot pool (botpool.c) and group commit
 * (batch.c) the only code that combines the engine and the store; the HTTP handlers never see
 * a live. */
#ifndef CITY_LIVE_H
#define CITY_LIVE_H

#include <jansson.h>
#include <stdbool.h>

#include "botpool.h"
#include "ruleset.h"
#include "store_games.h"

struct server;

/* A game loaded inside a transaction: its row, its ruleset and engine state (rs->state_size
 * bytes owned by the live), and its seats. */
struct live {
    struct server *srv;
    struct game_row row;
    const struct ruleset *rs;
    void *g;
    struct seat_row seats[RS_MAX_SEATS];
    int nseats;
    json_t *events;    /* events to append at save: [{type, data}] */
    json_t *orders;    /* acknowledged orders to store at save: [{round, step, seat, body}] */
    json_t *decisions; /* decisions that took effect, to append at save (the last of them number
                          row.ndecisions - 1): [{seat, round, step, turn, body, is_default}] */
    int resolved;      /* steps resolved in this transaction */
    bool step_changed; /* the current step changed (a new deadline) */
    bool changed;      /* the state must be written back */
    int forced_by;     /* while live_force() gives defaults: who forced (enum live_forcer) */
    bool quiet;        /* the only change is private (an amended order): hands-only NOTIFY */
    uint64_t echo_tag; /* hub_expect_echo()'s tag for the save's notification, 0: none */
    /* A game inserted by this transaction: a worker cannot see it before the commit, so
     * live_save() leaves the bots' wake to the caller, after it (wake_due, wake_need). */
    bool inserted;
    bool wake_due;
    enum bot_need wake_need;
    char loaded_status[12]; /* row.status as loaded: a save that changes what the lobby lists of
                               a game not playing (or no longer) tells every instance's lobby */
    bool finish_written;    /* rated_finish() ran for this load (the game finished in it) */
    /* The seats a person plays that had to decide when the game was loaded (bit s: seat s):
     * the time bank charges those that decided since, at the save (docs/rules.md). */
    unsigned undecided;
    struct rs_pos undecided_at; /* the decision point they had to decide at */
};

/* Who made a step's missing decisions defaults: the timer (the sweeper, or live_advance()
 * with defaults), the host, or a seat (0, 1, ...) once the step was overdue. */
enum live_forcer { FORCED_BY_TIMER = -2, FORCED_BY_HOST = -1 };

/* Loads game `id` (locked FOR UPDATE when `lock`) and its seats into *lv. STORE_NO_ROW when
 * there is no such game, STORE_HARD when the stored state does not load. live_free() after. */
int live_load(PGconn *c, struct server *srv, const char *id, bool lock, struct live *lv);
void live_free(struct live *lv);

/* Keeps the engine state `g` of game `id` at `version`, committed by this instance, so that a
 * later live_load() or live_load_many() need not read and parse it again (its read sends the
 * state only when the version differs). Call only after the commit, with the store's epoch
 * (store_epoch) read before the transaction began: the state is used only while the epoch
 * stays the same. */
void live_remember(struct server *srv, const char *id, long long version, uint64_t epoch,
                   const struct ruleset *rs, const void *g);

/* Whether what live_save() saved (or would) is news to everyone (events, or more than an
 * amended order), not only to the seats' hands. */
bool live_public_change(const struct live *lv);

/* The view cache's ticket (view_cache_ticket) for game `id`, to take after a live_save() and
 * before the COMMIT, for live_committed(). */
uint64_t live_ticket(struct server *srv, const char *id);

/* After this instance committed a public change (events, or more than an amended order) of
 * game `id`, saved by live_save() as `row` with state `g` of ruleset rs: keeps the state
 * (live_remember, with the store's epoch read before the transaction began) and announces the
 * change on this instance (hub_publish). When no other news of the game came since `ticket`
 * (live_ticket) was taken, it also keeps the row as the game's current one until its next news
 * (a member of its view-cache entry), so that live_load_current() can serve the game without
 * the database meanwhile. */
void live_committed(struct server *srv, uint64_t epoch, uint64_t ticket, const struct ruleset *rs,
                    const void *g, const struct game_row *row);

/* Loads game `id` without the database, and without its lock: true when this instance
 * committed the game's last change, as far as its news tells (live_committed), and still
 * keeps its state and its seats at that version; false otherwise (lv is then freed). The
 * row's clock fields (deadline, step_ends, overdue, past_step_end) may be out of date: for
 * readers that do not show them, such as a seat's hand. live_free() after a true. */
bool live_load_current(struct server *srv, const char *id, struct live *lv);

/* Loads and locks n games (at most STORE_MAX_GAMES_LOADED, ids sorted by the caller) in one
 * round trip: found[i] is STORE_OK with lvs[i] loaded, or STORE_NO_ROW. Returns STORE_OK, or a
 * failure; either way every lvs[i] must be freed with live_free(). */
int live_load_many(PGconn *c, struct server *srv, int n, const char *const *ids, struct live *lvs,
                   int *found);

/* Queues seat's acknowledged order `body` (a canonical order body, borrowed) for decision point
 * `pos` to be stored at the save, replacing one of the same seat for the same point queued
 * before. */
void live_order(struct live *lv, int seat, const struct rs_pos *pos, json_t *body);

/* Queues public event `type` with fields `data` (stolen) for the save. */
void live_event(struct live *lv, const char *type, json_t *data);

/* Lets every bot seat that must decide do so, then resolves the step whenever every pending
 * seat has decided, recording the decisions, until humans must decide or the game is over.
 * When `defaults` is true, first gives every missing human decision its default, as the
 * timer's (live_force(c, lv, FORCED_BY_TIMER)). */
int live_advance(PGconn *c, struct live *lv, bool defaults);

/* Forces the current step: gives every missing decision its default, logs a public "forced"
 * event {round, step, by, seats} before the seats' "default" events (each also carrying
 * "by"), then advances as live_advance(). `by` is FORCED_BY_TIMER, FORCED_BY_HOST or the
 * forcing seat. The caller has checked that the game is playing and not over. */
int live_force(PGconn *c, struct live *lv, int by);

/* The public log's "by" of a forcer: "timer", "host" or the seat number (a new reference). */
json_t *live_forcer_json(int by);

/* Writes the state back (when changed), charges the time bank of every person's seat that
 * decided since the load after its step's own time (the seconds past it, rounded up, at most
 * what is left; each charge a public "bank" event {seat, used, bank_seconds, round, step,
 * turn?} placed first among this save's events), sets the deadline to the step's own end plus the
 * largest bank among the seats still deciding, and appends the queued events with gapless sequence
 * numbers, then NOTIFYs other instances (only of the game's hands when nothing public changed:
 * no events and quiet).
 * A save that finishes the game (its status became "finished" since the load) first writes the
 * finish's places and ratings in the same transaction (rated_finish()). */
int live_save(PGconn *c, struct live *lv);

/* How much lv's slow bots are waited for: by a person who has sent all they must, by a person
 * seated with a decision of their own open, or by no one (bots alone). */
enum bot_need live_bot_need(const struct live *lv);

/* The address lv's bot work is counted for (the game's creator's netaddr_key_hash), 0: none. */
uint64_t live_who(const struct live *lv);

/* The public view of a loaded game: the engine's view plus id, status, names and bots, "rated",
 * and once a rated game is finished its "ratings" (rated_view()). */
json_t *live_public_view(const struct live *lv);

/* The seat whose token hashes to `hash`, or -1. Compares every seat in constant time. */
int live_seat_of(const struct live *lv, const uint8_t *hash);

#endif
