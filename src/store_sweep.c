/* store_sweep.c: the SQL the sweeper runs (see store_games.h): overdue steps, the games' counts
 * for /metrics, and the lifecycle of games (open ones expired, idle ones abandoned, ended ones
 * purged past their retention), and store_games_sql(), the statements the tests EXPLAIN. All
 * values travel as parameters. */
#include "store_games.h"
#include "store_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads games_deadline (partial: playing games with a deadline) in deadline order. */
static const char sql_overdue[] =
    "SELECT id FROM games WHERE status = 'playing' AND deadline IS NOT NULL AND deadline < now() "
    "ORDER BY deadline LIMIT $1 FOR UPDATE SKIP LOCKED";

int store_overdue_games(PGconn *c, char ids[][AUTH_ID_LEN + 1], int max, int *n)
{
    char m[24];
    itoa_buf(m, sizeof m, max);
    const char *vals[] = {m};
    PGresult *r;
    int st = query(c, "overdue games", sql_overdue, 1, vals, NULL, &r);
    if (st != STORE_OK)
        return st;
    *n = 0;
    for (int i = 0; i < PQntuples(r) && i < max; i++)
        snprintf(ids[(*n)++], AUTH_ID_LEN + 1, "%s", PQgetvalue(r, i, 0));
    PQclear(r);
    return STORE_OK;
}

static const char sql_counts[] = "SELECT status, n FROM game_counts_now";

/* Takes the changes of status written since the last fold (each locked by its DELETE, so that
 * two instances folding at once count each one once) into the status' row of slot 0, the rows
 * taken in status order (two folds at once cannot deadlock). */
static const char sql_fold[] =
    "WITH d AS (DELETE FROM game_count_changes RETURNING status, n), "
    "s AS (SELECT status, sum(n) AS n FROM d GROUP BY status ORDER BY status) "
    "INSERT INTO game_counts (status, slot, n) SELECT status, 0, n FROM s "
    "ON CONFLICT (status, slot) DO UPDATE SET n = game_counts.n + EXCLUDED.n";

int store_game_counts_fold(PGconn *c)
{
    return command(c, "fold game counts", sql_fold, 0, NULL, NULL);
}

int store_games_metrics(PGconn *c, char **out)
{
    PGresult *r;
    int st = query(c, "games metrics", sql_counts, 0, NULL, NULL, &r);
    if (st != STORE_OK)
        return st;
    enum { NSTATUS = 5 };
    long long counts[NSTATUS] = {0, 0, 0, 0, 0};
    const char *names[NSTATUS] = {"open", "playing", "finished", "expired", "abandoned"};
    for (int i = 0; i < PQntuples(r); i++)
        for (int k = 0; k < NSTATUS; k++)
            if (strcmp(PQgetvalue(r, i, 0), names[k]) == 0)
                counts[k] = atoll(PQgetvalue(r, i, 1));
    PQclear(r);
    char buf[512];
    snprintf(buf, sizeof buf,
             "# HELP city_games Games stored, by status (counters kept by triggers).\n"
             "# TYPE city_games gauge\n"
             "city_games{status=\"open\"} %lld\ncity_games{status=\"playing\"} %lld\n"
             "city_games{status=\"finished\"} %lld\ncity_games{status=\"expired\"} %lld\n"
             "city_games{status=\"abandoned\"} %lld\n",
             counts[0], counts[1], counts[2], counts[3], counts[4]);
    *out = strdup(buf);
    return *out ? STORE_OK : STORE_HARD;
}

/* The oldest open games past their time (games_open_created), locked, marked expired, each
 * with an "expired" event at the next sequence number. */
static const char sql_expire[] =
    "WITH x AS (SELECT id FROM games WHERE status = 'open' AND created_at < now() - "
    "make_interval(secs => $1::int) ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED), "
    "u AS (UPDATE games g SET status = 'expired', deadline = NULL, updated_at = now(), "
    "version = g.version + 1, last_seq = g.last_seq + 1 FROM x WHERE g.id = x.id "
    "RETURNING g.id, g.last_seq), "
    "e AS (INSERT INTO event_batches (game_id, first_seq, last_seq, body) SELECT id, last_seq, "
    "last_seq, '[{\"type\": \"expired\", \"data\": {}}]'::jsonb FROM u) "
    "SELECT id, last_seq FROM u";

/* The oldest playing games that nobody has moved for $1 seconds (games_playing_created: a game
 * idle that long was created before it), locked, marked abandoned, each with an "abandoned"
 * event at the next sequence number; with their seats as "seat:name" (a bot's seat
 * "seat:name/bot", a free one "seat:-") for the daemon's log. */
static const char sql_abandon[] =
    "WITH x AS (SELECT id FROM games WHERE status = 'playing' AND created_at < now() - "
    "make_interval(secs => $1::int) AND updated_at < now() - make_interval(secs => $1::int) "
    "ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED), "
    "u AS (UPDATE games g SET status = 'abandoned', deadline = NULL, bot_due = false, "
    "updated_at = now(), version = g.version + 1, last_seq = g.last_seq + 1 FROM x "
    "WHERE g.id = x.id RETURNING g.id, g.last_seq), "
    "e AS (INSERT INTO event_batches (game_id, first_seq, last_seq, body) SELECT id, last_seq, "
    "last_seq, jsonb_build_array(jsonb_build_object('type', 'abandoned', 'data', "
    "jsonb_build_object('idle_seconds', $1::int))) FROM u) "
    "SELECT u.id, u.last_seq, (SELECT string_agg(s.seat || ':' || coalesce(s.name, '-') || "
    "coalesce('/' || s.bot, ''), ' ' ORDER BY s.seat) FROM seats s WHERE s.game_id = u.id) "
    "FROM u";

/* The oldest ended games past the retention (games_ended), locked and deleted. */
static const char sql_purge[] =
    "DELETE FROM games WHERE id IN (SELECT id FROM games WHERE ended_at < now() - "
    "make_interval(secs => $1::int) ORDER BY ended_at LIMIT $2 FOR UPDATE SKIP LOCKED) "
    "RETURNING id";

/* Runs a lifecycle statement ($1 seconds, $2 limit) and collects column 0 (ids) and, when
 * seqs is not NULL, column 1, and, when seats is not NULL, column 2. */
static int lifecycle(PGconn *c, const char *what, const char *sql, int seconds, int max,
                     char ids[][AUTH_ID_LEN + 1], long long *seqs, char (*seats)[STORE_SEATS_TEXT],
                     int *n)
{
    *n = 0;
    if (max < 1 || max > STORE_MAX_GAMES_LOADED)
        return STORE_HARD;
    char s[24], m[24];
    itoa_buf(s, sizeof s, seconds);
    itoa_buf(m, sizeof m, max);
    const char *vals[] = {s, m};
    PGresult *r;
    int st = query(c, what, sql, 2, vals, NULL, &r);
    if (st != STORE_OK)
        return st;
    for (int i = 0; i < PQntuples(r) && i < max; i++) {
        snprintf(ids[*n], AUTH_ID_LEN + 1, "%s", PQgetvalue(r, i, 0));
        if (seqs)
            seqs[*n] = atoll(PQgetvalue(r, i, 1));
        if (seats)
            snprintf(seats[*n], STORE_SEATS_TEXT, "%s", PQgetvalue(r, i, 2));
        (*n)++;
    }
    PQclear(r);
    return STORE_OK;
}

int store_expire_open(PGconn *c, int ttl, int max, char ids[][AUTH_ID_LEN + 1], long long *seqs,
                      int *n)
{
    return lifecycle(c, "expire open games", sql_expire, ttl, max, ids, seqs, NULL, n);
}

int store_abandon_idle(PGconn *c, int idle, int max, char ids[][AUTH_ID_LEN + 1], long long *seqs,
                       char (*seats)[STORE_SEATS_TEXT], int *n)
{
    return lifecycle(c, "abandon idle games", sql_abandon, idle, max, ids, seqs, seats, n);
}

int store_purge_ended(PGconn *c, int retention, int max, char ids[][AUTH_ID_LEN + 1], int *n)
{
    return lifecycle(c, "purge ended games", sql_purge, retention, max, ids, NULL, NULL, n);
}

const char *store_games_sql(enum store_games_sql which)
{
    switch (which) {
    case SQL_LOBBY:
        return store_lobby_sql();
    case SQL_OVERDUE:
        return sql_overdue;
    case SQL_EXPIRE:
        return sql_expire;
    case SQL_PURGE:
        return sql_purge;
    case SQL_ABANDON:
        return sql_abandon;
    case SQL_COUNTS:
        return sql_counts;
    }
    return NULL;
}
