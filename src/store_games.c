/* store_games.c: the SQL of the service (see store_games.h). All values travel as parameters;
 * hashes as binary bytea, everything else as text. */
#include "store_games.h"
#include "store_sql.h"
#include "lobbycache.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void game_row_clear(struct game_row *g)
{
    json_decref(g->state);
    g->state = NULL;
}

int store_game_insert(PGconn *c, const struct game_row *g, const struct seat_row *seats, int n)
{
    char players[24], turn[24], bank[24], *state = json_dumps(g->state, JSON_COMPACT);
    if (!state)
        return STORE_HARD;
    itoa_buf(players, sizeof players, g->players);
    itoa_buf(turn, sizeof turn, g->turn_seconds);
    itoa_buf(bank, sizeof bank, g->time_bank_seconds);
    const char *vals[] = {g->id,
                          g->game,
                          g->status,
                          players,
                          g->turn_seconds ? turn : NULL,
                          (const char *)g->host_hash,
                          state,
                          g->unlisted ? "true" : "false",
                          g->bot_level[0] ? g->bot_level : "expert",
                          g->options[0] ? g->options : "{}",
                          g->has_creator ? (const char *)g->creator_key : NULL,
                          g->rated ? "true" : "false",
                          g->time_bank_seconds > 0 ? bank : NULL};
    const int lens[] = {0, 0, 0, 0, 0, AUTH_HASH_LEN, 0, 0, 0, 0, NETADDR_KEY_LEN, 0, 0};
    /* Every seat's bank starts full: an array of `players` copies of time_bank_seconds. */
    int st = command(c, "insert game",
                     "INSERT INTO games (id, game, status, players, turn_seconds, host_hash, "
                     "state, unlisted, bot_level, options, creator_key, rated, time_bank_seconds, "
                     "banks) VALUES ($1, $2, $3, $4::smallint, $5, $6, $7::json, $8::boolean, $9, "
                     "$10::jsonb, $11, $12::boolean, $13::int, CASE WHEN $13::int IS NULL THEN "
                     "NULL ELSE array_fill($13::int, ARRAY[$4::smallint::int]) END)",
                     13, vals, lens);
    free(state);
    for (int i = 0; i < n && st == STORE_OK; i++) {
        char seat[24];
        itoa_buf(seat, sizeof seat, seats[i].seat);
        char account[24];
        itoa_buf(account, sizeof account, seats[i].account);
        const char *sv[] = {g->id,
                            seat,
                            seats[i].name[0] ? seats[i].name : NULL,
                            seats[i].bot[0] ? seats[i].bot : NULL,
                            seats[i].has_token ? (const char *)seats[i].token_hash : NULL,
                            seats[i].account ? account : NULL};
        const int sl[] = {0, 0, 0, 0, seats[i].has_token ? AUTH_HASH_LEN : 0, 0};
        st = command(c, "insert seat",
                     "INSERT INTO seats (game_id, seat, name, bot, token_hash, joined_at, "
                     "account_id) VALUES ($1, $2, $3, $4, $5, CASE WHEN $3::text IS NULL THEN "
                     "NULL ELSE now() END, $6::bigint)",
                     6, sv, sl);
    }
    return st;
}

#define GAME_COLUMNS                                                                               \
    "SELECT id, status, players, coalesce(turn_seconds, 0) AS turn_seconds, version, "             \
    "steps_resolved, ndecisions, ndefaults, last_seq, coalesce(deadline < now(), false) AS "       \
    "overdue, "                                                                                    \
    "coalesce(extract(epoch from deadline), 0) AS deadline, host_hash, amend_step, "               \
    "array_to_string(amend_counts, ',') AS amend_counts, game, unlisted, seats_version, bot_due, " \
    "bot_level, creator_key, rated, coalesce(ratings::text, '') AS ratings, "                      \
    "coalesce(time_bank_seconds, 0) AS time_bank_seconds, "                                        \
    "coalesce(array_to_string(banks, ','), '') AS banks, "                                         \
    "coalesce(extract(epoch from step_ends), 0) AS step_ends, "                                    \
    "coalesce(extract(epoch from now() - step_ends), 0) AS past_step_end, "
#define GAME_READ                                                                                  \
    GAME_COLUMNS "CASE WHEN version = $2::bigint THEN NULL ELSE state::text END AS state "         \
                 "FROM games WHERE id = $1"
static const char sql_game_plain[] = GAME_READ, sql_game_lock[] = GAME_READ " FOR UPDATE";
#undef GAME_READ
#undef GAME_COLUMNS
#define SEAT_COLUMNS                                                                               \
    "SELECT seat, coalesce(name, '') AS name, coalesce(bot, '') AS bot, token_hash IS NOT NULL "   \
    "AS has_token, token_hash, game_id, coalesce(account_id, 0) AS account_id FROM seats "
static const char sql_seats[] = SEAT_COLUMNS "WHERE game_id = $1 ORDER BY seat";
#undef SEAT_COLUMNS

/* The value of column `name` in row i of r (columns are read by name, not by position). */
static const char *col(const PGresult *r, int i, const char *name)
{
    int k = PQfnumber(r, name);
    assert(k >= 0);
    return PQgetvalue(r, i, k);
}

bool bytea_into(const PGresult *r, int i, int k, void *dst, size_t len)
{
    if (PQgetisnull(r, i, k))
        return false;
    size_t n = 0;
    unsigned char *b = PQunescapeBytea((const unsigned char *)PQgetvalue(r, i, k), &n);
    bool ok = b && n == len;
    if (ok)
        memcpy(dst, b, len);
    PQfreemem(b);
    return ok;
}

/* Reads "1,2,3" (array_to_string of a smallint[] or integer[]) into out[0..RS_MAX_SEATS-1]. */
static void int_list(const char *text, int *out)
{
    for (int k = 0; k < RS_MAX_SEATS && *text; k++) {
        char *end;
        out[k] = (int)strtol(text, &end, 10);
        text = *end == ',' ? end + 1 : end;
    }
}

/* Writes out[0..n-1] as an array literal "{1,2,3}" into buf. */
static void int_array(char *buf, size_t size, const int *v, int n, int cap)
{
    snprintf(buf, size, "{");
    for (int k = 0; k < n; k++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%d", k ? "," : "",
                 v[k] < cap ? v[k] : cap);
    snprintf(buf + strlen(buf), size - strlen(buf), "}");
}

/* Fills *out from row `i` of a result of sql_game_* (STORE_NO_ROW when there is none). */
static int game_from_row(const PGresult *r, int i, const char *id, struct game_row *out)
{
    if (i >= PQntuples(r))
        return STORE_NO_ROW;
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", col(r, i, "id"));
    snprintf(out->status, sizeof out->status, "%s", col(r, i, "status"));
    out->players = atoi(col(r, i, "players"));
    out->turn_seconds = atoi(col(r, i, "turn_seconds"));
    out->version = atoll(col(r, i, "version"));
    out->steps_resolved = atoi(col(r, i, "steps_resolved"));
    out->ndecisions = atoi(col(r, i, "ndecisions"));
    out->ndefaults = atoi(col(r, i, "ndefaults"));
    out->last_seq = atoll(col(r, i, "last_seq"));
    out->overdue = col(r, i, "overdue")[0] == 't';
    out->deadline = atof(col(r, i, "deadline"));
    bytea_into(r, i, PQfnumber(r, "host_hash"), out->host_hash, AUTH_HASH_LEN);
    snprintf(out->amend_step, sizeof out->amend_step, "%s", col(r, i, "amend_step"));
    int_list(col(r, i, "amend_counts"), out->amend_counts);
    out->time_bank_seconds = atoi(col(r, i, "time_bank_seconds"));
    int_list(col(r, i, "banks"), out->banks);
    out->step_ends = atof(col(r, i, "step_ends"));
    out->past_step_end = atof(col(r, i, "past_step_end"));
    snprintf(out->game, sizeof out->game, "%s", col(r, i, "game"));
    out->unlisted = col(r, i, "unlisted")[0] == 't';
    out->seats_version = atoi(col(r, i, "seats_version"));
    out->bot_due = col(r, i, "bot_due")[0] == 't';
    snprintf(out->bot_level, sizeof out->bot_level, "%s", col(r, i, "bot_level"));
    out->rated = col(r, i, "rated")[0] == 't';
    snprintf(out->ratings, sizeof out->ratings, "%s", col(r, i, "ratings"));
    out->has_creator =
        bytea_into(r, i, PQfnumber(r, "creator_key"), out->creator_key, NETADDR_KEY_LEN);
    if (PQgetisnull(r, i, PQfnumber(r, "state"))) {
        out->state_unchanged = true; /* the caller knows this version's state */
        return STORE_OK;
    }
    json_error_t e;
    out->state =
        json_loadb(col(r, i, "state"), (size_t)PQgetlength(r, i, PQfnumber(r, "state")), 0, &e);
    if (!out->state) {
        fprintf(stderr, "cityd: game %s: stored state is not JSON: %s\n", id, e.text);
        return STORE_HARD;
    }
    return STORE_OK;
}

/* Fills out[] (at most RS_MAX_SEATS) from the rows of a result of sql_seats* that belong
 * to game `id`. */
static void seats_from_result(const PGresult *r, const char *id, struct seat_row *out, int *n)
{
    int rows = PQntuples(r);
    *n = 0;
    for (int i = 0; i < rows && *n < RS_MAX_SEATS; i++) {
        if (strcmp(col(r, i, "game_id"), id) != 0)
            continue;
        struct seat_row *s = &out[(*n)++];
        memset(s, 0, sizeof *s);
        s->seat = atoi(col(r, i, "seat"));
        snprintf(s->name, sizeof s->name, "%s", col(r, i, "name"));
        snprintf(s->bot, sizeof s->bot, "%s", col(r, i, "bot"));
        s->has_token = col(r, i, "has_token")[0] == 't';
        s->account = atoll(col(r, i, "account_id"));
        if (s->has_token)
            bytea_into(r, i, PQfnumber(r, "token_hash"), s->token_hash, AUTH_HASH_LEN);
    }
}

int store_game_read(PGconn *c, const char *id, bool lock, long long known, struct game_row *out)
{
    char version[24];
    itoa_buf(version, sizeof version, known);
    const char *vals[] = {id, version};
    PGresult *r;
    int st = query(c, "read game", lock ? sql_game_lock : sql_game_plain, 2, vals, NULL, &r);
    if (st == STORE_OK)
        st = game_from_row(r, 0, id, out);
    PQclear(r);
    return st;
}

int store_games_load(PGconn *c, int n, const char *const *ids, const long long *known,
                     const bool *with_seats, struct game_row *rows, int *found,
                     struct seat_row (*seats)[RS_MAX_SEATS], int *nseats)
{
    if (n < 1 || n > STORE_MAX_GAMES_LOADED)
        return STORE_HARD;
    /* One prepared read of one game each, in the order given (so the locks are taken in it),
     * all sent in one round trip, then the seats of those that need them. Not one statement
     * for all: its plan depends on the table's size, so it was planned at every run, and the
     * planning cost more than the reads (issue 25: 0.15 ms a batch); a read by the primary key
     * has an index scan as its generic plan even while the table is empty. */
    char versions[STORE_MAX_GAMES_LOADED][24];
    const char *vals[STORE_MAX_GAMES_LOADED][2];
    struct store_stmt q[2 * STORE_MAX_GAMES_LOADED];
    int seat_of[STORE_MAX_GAMES_LOADED], nq = n;
    for (int i = 0; i < n; i++) {
        itoa_buf(versions[i], sizeof versions[i], known[i]);
        vals[i][0] = ids[i];
        vals[i][1] = versions[i];
        q[i] = (struct store_stmt){"read games", sql_game_lock, 2, vals[i], NULL, false};
        found[i] = STORE_NO_ROW;
        seat_of[i] = -1;
    }
    for (int i = 0; i < n; i++)
        if (with_seats[i]) {
            seat_of[i] = nq;
            q[nq++] = (struct store_stmt){"read seats", sql_seats, 1, vals[i], NULL, false};
        }
    PGresult *r[2 * STORE_MAX_GAMES_LOADED];
    int st = store_queries(c, nq, q, r);
    for (int i = 0; st == STORE_OK && i < n; i++) {
        found[i] = game_from_row(r[i], 0, ids[i], &rows[i]);
        if (found[i] == STORE_OK && seat_of[i] >= 0)
            seats_from_result(r[seat_of[i]], ids[i], seats[i], &nseats[i]);
        else if (found[i] != STORE_OK && found[i] != STORE_NO_ROW)
            st = found[i];
    }
    for (int i = 0; i < nq; i++)
        PQclear(r[i]);
    return st;
}

int store_game_load(PGconn *c, const char *id, bool lock, long long known, struct game_row *out,
                    struct seat_row *seats, int *nseats)
{
    char version[24];
    itoa_buf(version, sizeof version, known);
    const char *vals[] = {id, version};
    const struct store_stmt q[2] = {
        {"read game", lock ? sql_game_lock : sql_game_plain, 2, vals, NULL, false},
        {"read seats", sql_seats, 1, vals, NULL, false},
    };
    PGresult *r[2];
    int st = store_queries(c, 2, q, r);
    if (st == STORE_OK)
        st = game_from_row(r[0], 0, id, out);
    if (st == STORE_OK)
        seats_from_result(r[1], id, seats, nseats);
    PQclear(r[0]);
    PQclear(r[1]);
    return st;
}

int store_game_save(PGconn *c, const struct game_row *g, bool step_changed, long long first_seq,
                    const char *events, const char *orders, const char *decisions)
{
    char *state = json_dumps(g->state, JSON_COMPACT);
    if (!state)
        return STORE_HARD;
    char steps[24], seq[24], nd[24], ndef[24], first[24],
        changed[2] = {step_changed ? 't' : 'f', 0}, due[2] = {g->bot_due ? 't' : 'f', 0};
    itoa_buf(steps, sizeof steps, g->steps_resolved);
    itoa_buf(seq, sizeof seq, g->last_seq);
    itoa_buf(nd, sizeof nd, g->ndecisions);
    itoa_buf(ndef, sizeof ndef, g->ndefaults);
    itoa_buf(first, sizeof first, first_seq);
    char counts[RS_MAX_SEATS * 12 + 3], banks[RS_MAX_SEATS * 12 + 3];
    int_array(counts, sizeof counts, g->amend_counts, RS_MAX_SEATS, 32767);
    int_array(banks, sizeof banks, g->banks, g->players, INT32_MAX);
    char secs[24], extra[24];
    itoa_buf(secs, sizeof secs, g->point_seconds > 0 ? g->point_seconds : g->turn_seconds);
    itoa_buf(extra, sizeof extra, g->bank_extra);
    const char *vals[] = {
        g->id,     g->status, state,         steps,
        seq,       nd,        changed,       first,
        events,    orders,    g->amend_step, counts,
        due,       secs,      extra,         g->time_bank_seconds > 0 ? banks : NULL,
        decisions, ndef};
    /* The events are one batch row (none when there are none: first_seq is then last_seq + 1),
     * and so are the decisions, the last of them number ndecisions - 1. */
    int st =
        command(c, "save game",
                "WITH ev AS (INSERT INTO event_batches (game_id, first_seq, last_seq, body) "
                "SELECT $1, $8::bigint, $5::bigint, $9::jsonb WHERE $5::bigint >= $8::bigint), "
                "d AS (INSERT INTO decision_batches (game_id, first_n, last_n, body) SELECT $1, "
                "$6::int - json_array_length($17::json), $6::int - 1, $17::jsonb WHERE "
                "json_array_length($17::json) > 0), "
                "o AS (INSERT INTO orders (game_id, round, step, turn, seat, body) "
                "SELECT $1, x.round, x.step, x.turn, x.seat, x.body FROM "
                "json_to_recordset($10::json) "
                "AS x(round smallint, step text, turn integer, seat smallint, body jsonb) "
                "ON CONFLICT (game_id, round, step, turn, seat) DO UPDATE SET body = "
                "EXCLUDED.body, "
                "received_at = now()) "
                "UPDATE games SET status = $2, state = $3::json, version = version + 1, "
                "steps_resolved = $4, last_seq = $5, ndecisions = $6, ndefaults = $18::int, "
                "updated_at = now(), "
                "amend_step = $11, amend_counts = $12::smallint[], bot_due = $13::boolean, "
                "banks = $16::int[], "
                "step_ends = CASE WHEN $2 <> 'playing' OR turn_seconds IS NULL THEN NULL "
                "WHEN $7::boolean OR step_ends IS NULL THEN now() + make_interval(secs => "
                "$14::int) ELSE step_ends END, "
                "deadline = CASE WHEN $2 <> 'playing' OR turn_seconds IS NULL THEN NULL "
                "WHEN $7::boolean OR step_ends IS NULL THEN now() + make_interval(secs => "
                "$14::int + $15::int) ELSE step_ends + make_interval(secs => $15::int) END "
                "WHERE id = $1",
                18, vals, NULL);
    free(state);
    return st;
}

int store_seats_read(PGconn *c, const char *id, struct seat_row *seats, int *nseats)
{
    const char *vals[] = {id};
    PGresult *r;
    int st = query(c, "read seats", sql_seats, 1, vals, NULL, &r);
    if (st == STORE_OK)
        seats_from_result(r, id, seats, nseats);
    PQclear(r);
    return st;
}

int store_notify(PGconn *c, const char *id, long long seq)
{
    return store_notify_news(c, id, seq, "");
}

int store_notify_news(PGconn *c, const char *id, long long seq, const char *tail)
{
    char payload[96];
    snprintf(payload, sizeof payload, "%s:%lld%s", id, seq, tail);
    return store_notify_on_commit(c, "city_events", payload);
}

int store_notify_lobby(PGconn *c)
{
    return store_notify_on_commit(c, "city_events", LOBBY_CACHE_NEWS);
}

int rows_to_array(PGresult *r, int col, json_t **out)
{
    json_t *a = json_array();
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *v = json_loads(PQgetvalue(r, i, col), 0, NULL);
        if (!v) {
            json_decref(a);
            return STORE_HARD;
        }
        json_array_append_new(a, v);
    }
    *out = a;
    return STORE_OK;
}

int query_array(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                json_t **out)
{
    PGresult *r;
    int st = query(c, what, sql, n, vals, NULL, &r);
    if (st != STORE_OK)
        return st;
    st = rows_to_array(r, 0, out);
    PQclear(r);
    return st;
}

/* The events of game $1 after seq $2, at most $3, in order, as rows (seq, ev): ev is the event as
 * the API shows it, {seq, type} with its data's fields merged in. Only the batches that end after
 * $2 are read (along the key), and the limit counts events, across batches. */
#define EVENTS_AFTER                                                                               \
    "(SELECT b.first_seq + x.n - 1 AS seq, jsonb_build_object('seq', b.first_seq + x.n - 1, "      \
    "'type', x.v->'type') || coalesce(x.v->'data', '{}'::jsonb) AS ev FROM event_batches b, "      \
    "jsonb_array_elements(b.body) WITH ORDINALITY AS x(v, n) WHERE b.game_id = $1 AND "            \
    "b.last_seq > $2::bigint AND b.first_seq + x.n - 1 > $2::bigint ORDER BY b.last_seq, x.n "     \
    "LIMIT $3::int)"

int store_events_after(PGconn *c, const char *id, long long after, int limit, json_t **out)
{
    char a[24], l[24];
    itoa_buf(a, sizeof a, after);
    itoa_buf(l, sizeof l, limit);
    const char *vals[] = {id, a, l};
    return query_array(c, "events after",
                       "SELECT e.ev::text FROM " EVENTS_AFTER " e ORDER BY e.seq", 3, vals, out);
}

int store_events_page(PGconn *c, const char *id, long long after, int limit, json_t **events,
                      long long *last_seq)
{
    *events = NULL;
    char a[24], l[24];
    itoa_buf(a, sizeof a, after);
    itoa_buf(l, sizeof l, limit);
    const char *vals[] = {id, a, l};
    PGresult *r;
    int st =
        query(c, "events page",
              "SELECT g.last_seq, coalesce((SELECT json_agg(e.ev ORDER BY e.seq) FROM " EVENTS_AFTER
              " e), '[]')::text FROM games g WHERE g.id = $1",
              3, vals, NULL, &r);
    if (st != STORE_OK)
        return st;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return STORE_NO_ROW;
    }
    *last_seq = atoll(PQgetvalue(r, 0, 0));
    *events = json_loads(PQgetvalue(r, 0, 1), 0, NULL);
    PQclear(r);
    return *events ? STORE_OK : STORE_HARD;
}

int store_decisions_read(PGconn *c, const char *id, json_t **out)
{
    const char *vals[] = {id};
    return query_array(c, "read decisions",
                       "SELECT (jsonb_build_object('seat', seat) || body || CASE WHEN is_default "
                       "THEN '{\"default\": true}'::jsonb ELSE '{}'::jsonb END)::text "
                       "FROM decisions WHERE game_id = $1 ORDER BY n",
                       1, vals, out);
}

/* ---- why a seat got a default (the hand view's "defaulted") ------------------------------- */

int store_last_default(PGconn *c, const char *id, int seat, json_t **out)
{
    *out = NULL;
    char s[24];
    itoa_buf(s, sizeof s, seat);
    const char *vals[] = {id, s};
    /* The seat's last decision, read backwards along the primary key (a seat decides at least
     * once a round, so few rows are read); the cause is in the seat's public "default" event
     * of that point ("by"; older logs have none: the timer). */
    json_t *rows;
    int st = query_array(
        c, "last default",
        "SELECT (jsonb_build_object('round', d.round, 'step', d.body->'step', 'chosen', d.body, "
        "'by', coalesce((SELECT x.v->'data'->'by' FROM event_batches b, "
        "jsonb_array_elements(b.body) WITH ORDINALITY AS x(v, n) WHERE b.game_id = $1 AND "
        "x.v->>'type' = 'default' AND x.v->'data'->'seat' = to_jsonb(d.seat::int) AND "
        "x.v->'data'->'round' = to_jsonb(d.round::int) AND x.v->'data'->'step' = d.body->'step' "
        "AND x.v->'data'->'turn' IS NOT DISTINCT FROM d.body->'turn' ORDER BY b.last_seq DESC, "
        "x.n DESC LIMIT 1), '\"timer\"'::jsonb)) || "
        "CASE WHEN d.body ? 'turn' THEN jsonb_build_object('turn', d.body->'turn') ELSE "
        "'{}'::jsonb END)::text "
        "FROM (SELECT (x.v->>'seat')::int AS seat, (x.v->>'round')::int AS round, x.v->'body' "
        "AS body, (x.v->>'is_default')::boolean AS is_default FROM decision_batches b, "
        "jsonb_array_elements(b.body) WITH ORDINALITY AS x(v, n) WHERE b.game_id = $1 AND "
        "(x.v->>'seat')::int = $2::int ORDER BY b.last_n DESC, x.n DESC LIMIT 1) d WHERE "
        "d.is_default",
        2, vals, &rows);
    if (st != STORE_OK)
        return st;
    if (json_array_size(rows) == 0) {
        json_decref(rows);
        return STORE_NO_ROW;
    }
    *out = json_incref(json_array_get(rows, 0));
    json_decref(rows);
    return STORE_OK;
}
