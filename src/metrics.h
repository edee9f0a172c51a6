/* metrics.h: the daemon's Prometheus metrics: requests by route and status, a latency
 * histogram, steps resolved; rendered as Prometheus text for GET /metrics. Thread-safe. */
#ifndef CITY_METRICS_H
#define CITY_METRICS_H

#include <stdbool.h>
#include <stddef.h>

/* Counts one finished request of route `route` (a static string) with `status`, taking `ms`. */
void metrics_request(const char *route, int status, double ms);

/* Counts `n` resolved steps. */
void metrics_steps_resolved(int n);

/* Counts one step forced by the sweeper `seconds` after its deadline (the lateness histogram
 * city_sweeper_lateness_seconds, and the gauge of the last one). */
void metrics_sweeper_lateness(double seconds);

/* Counts open games expired and ended games deleted by the sweeper. */
void metrics_games_ended(int expired, int purged);

/* Counts started games the sweeper ended as abandoned (idle past --idle-game-seconds). */
void metrics_games_abandoned(int n);

/* Counts one chat message written, on the watchers' channel when `watchers`, else the players'. */
void metrics_chat_message(bool watchers);

/* Counts one new report of a chat message (for the operator: `cityd reports`). */
void metrics_chat_report(void);

/* A transaction conflicted (serialization failure or deadlock); `gave_up` when it was its last
 * try (store.h, the retry policy). */
void metrics_tx_conflict(bool gave_up);

/* Counts one load of a game's engine state: `from_memory` when the database did not send it,
 * because this instance had just that version in memory (live.c), else parsed from the row. */
void metrics_state_load(bool from_memory);

/* Counts a game loaded with no database round trip (live_load_current). */
void metrics_load_without_database(void);

/* Appends the metrics as Prometheus text to a new malloc'd string (caller frees), followed by
 * `extra` (already Prometheus text, e.g. games by status from the database; may be NULL). */
char *metrics_render(const char *extra, size_t *len);

#endif
