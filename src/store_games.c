/* store_games.c: the SQL of the service (see store_games.h). All values travel as parameters;
 * hashes as binary bytea, everything else as text. */
#include "store_games.h"
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

/* One statement through the store's pipeline (store.h); the result in *res (caller clears). */
static int query(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                 const int *lens, PGresult **res)
{
    const struct store_stmt q = {what, sql, n, vals, lens};
    return store_query(c, &q, res);
}

/* One statement whose result is not needed: queued inside a transaction (store_command). */
static int command(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                   const int *lens)
{
    const struct store_stmt q = {what, sql, n, vals, lens};
    return store_command(c, &q);
}

static void itoa_buf(char *buf, size_t n, long long v)
{
    snprintf(buf, n, "%lld", v);
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
    "steps_resolved, ndecisions, last_seq, coalesce(deadline < now(), false) AS overdue, "         \
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
/* Several games, locked in one order (id in the C collation) by every caller. */
static const char sql_games_lock[] =
    GAME_COLUMNS "CASE WHEN version = k.kv THEN NULL ELSE state::text END AS state FROM games "
                 "JOIN unnest($1::text[], $2::bigint[]) AS k(kid, kv) ON id = k.kid "
                 "ORDER BY id COLLATE \"C\" FOR UPDATE OF games";
#undef GAME_READ
#undef GAME_COLUMNS
#define SEAT_COLUMNS                                                                               \
    "SELECT seat, coalesce(name, '') AS name, coalesce(bot, '') AS bot, token_hash IS NOT NULL "   \
    "AS has_token, token_hash, game_id, coalesce(account_id, 0) AS account_id FROM seats "
static const char sql_seats[] = SEAT_COLUMNS "WHERE game_id = $1 ORDER BY seat";
static const char sql_seats_many[] =
    SEAT_COLUMNS "WHERE game_id = ANY($1::text[]) ORDER BY game_id, seat";
#undef SEAT_COLUMNS

/* The value of column `name` in row i of r (columns are read by name, not by position). */
static const char *col(const PGresult *r, int i, const char *name)
{
    int k = PQfnumber(r, name);
    assert(k >= 0);
    return PQgetvalue(r, i, k);
}

/* Copies the bytea in row i, column k of r into dst when it is exactly `len` bytes; false (dst
 * untouched) when it is NULL, of another length, or cannot be decoded. */
static bool bytea_into(const PGresult *r, int i, int k, void *dst, size_t len)
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

int store_game_read(PGconn *c, const char *id, bool lock, struct game_row *out)
{
    const char *vals[] = {id, "-1"};
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
    char versions[STORE_MAX_GAMES_LOADED][24];
    const char *vlist[STORE_MAX_GAMES_LOADED], *need[STORE_MAX_GAMES_LOADED];
    int nneed = 0;
    for (int i = 0; i < n; i++) {
        itoa_buf(versions[i], sizeof versions[i], known[i]);
        vlist[i] = versions[i];
        if (with_seats[i])
            need[nneed++] = ids[i];
        found[i] = STORE_NO_ROW;
    }
    /* Ids come from paths: at most 63 bytes each, doubled by escaping in the worst case. */
    static const size_t max_list = STORE_MAX_GAMES_LOADED * 132 + 4;
    char *lists = malloc(3 * max_list);
    if (!lists)
        return STORE_HARD;
    char *id_list = lists, *version_list = lists + max_list, *need_list = lists + 2 * max_list;
    if (!store_text_array(id_list, max_list, ids, n) ||
        !store_text_array(version_list, max_list, vlist, n) ||
        !store_text_array(need_list, max_list, need, nneed)) {
        free(lists);
        return STORE_HARD;
    }
    const char *game_vals[] = {id_list, version_list}, *seat_vals[] = {need_list};
    /* The seats are read after every lock is held: a statement of its own, a new snapshot. */
    const struct store_stmt q[2] = {{"read games", sql_games_lock, 2, game_vals, NULL},
                                    {"read seats", sql_seats_many, 1, seat_vals, NULL}};
    PGresult *r[2] = {NULL, NULL};
    int st = store_queries(c, nneed > 0 ? 2 : 1, q, r);
    free(lists);
    for (int row = 0; st == STORE_OK && row < PQntuples(r[0]); row++) {
        int i = 0;
        while (i < n && strcmp(ids[i], PQgetvalue(r[0], row, 0)) != 0)
            i++;
        if (i == n || found[i] == STORE_OK)
            continue;
        found[i] = game_from_row(r[0], row, ids[i], &rows[i]);
        if (found[i] == STORE_OK && with_seats[i])
            seats_from_result(r[1], ids[i], seats[i], &nseats[i]);
        else if (found[i] != STORE_OK)
            st = found[i];
    }
    PQclear(r[0]);
    PQclear(r[1]);
    return st;
}

int store_game_load(PGconn *c, const char *id, bool lock, struct game_row *out,
                    struct seat_row *seats, int *nseats)
{
    const char *vals[] = {id, "-1"};
    const struct store_stmt q[2] = {
        {"read game", lock ? sql_game_lock : sql_game_plain, 2, vals, NULL},
        {"read seats", sql_seats, 1, vals, NULL},
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
                    const char *events, const char *orders)
{
    char *state = json_dumps(g->state, JSON_COMPACT);
    if (!state)
        return STORE_HARD;
    char steps[24], seq[24], nd[24], first[24], changed[2] = {step_changed ? 't' : 'f', 0},
                                                due[2] = {g->bot_due ? 't' : 'f', 0};
    itoa_buf(steps, sizeof steps, g->steps_resolved);
    itoa_buf(seq, sizeof seq, g->last_seq);
    itoa_buf(nd, sizeof nd, g->ndecisions);
    itoa_buf(first, sizeof first, first_seq);
    char counts[RS_MAX_SEATS * 12 + 3], banks[RS_MAX_SEATS * 12 + 3];
    int_array(counts, sizeof counts, g->amend_counts, RS_MAX_SEATS, 32767);
    int_array(banks, sizeof banks, g->banks, g->players, INT32_MAX);
    char secs[24], extra[24];
    itoa_buf(secs, sizeof secs, g->point_seconds > 0 ? g->point_seconds : g->turn_seconds);
    itoa_buf(extra, sizeof extra, g->bank_extra);
    const char *vals[] = {
        g->id,  g->status, state,         steps,
        seq,    nd,        changed,       first,
        events, orders,    g->amend_step, counts,
        due,    secs,      extra,         g->time_bank_seconds > 0 ? banks : NULL};
    int st =
        command(c, "save game",
                "WITH ev AS (INSERT INTO events (game_id, seq, type, data) "
                "SELECT $1, $8::bigint + e.n - 1, e.v->>'type', coalesce(e.v->'data', '{}')::jsonb "
                "FROM json_array_elements($9::json) WITH ORDINALITY AS e(v, n)), "
                "o AS (INSERT INTO orders (game_id, round, step, turn, seat, body) "
                "SELECT $1, x.round, x.step, x.turn, x.seat, x.body FROM "
                "json_to_recordset($10::json) "
                "AS x(round smallint, step text, turn integer, seat smallint, body jsonb) "
                "ON CONFLICT (game_id, round, step, turn, seat) DO UPDATE SET body = "
                "EXCLUDED.body, "
                "received_at = now()) "
                "UPDATE games SET status = $2, state = $3::json, version = version + 1, "
                "steps_resolved = $4, last_seq = $5, ndecisions = $6, updated_at = now(), "
                "amend_step = $11, amend_counts = $12::smallint[], bot_due = $13::boolean, "
                "banks = $16::int[], "
                "step_ends = CASE WHEN $2 <> 'playing' OR turn_seconds IS NULL THEN NULL "
                "WHEN $7::boolean OR step_ends IS NULL THEN now() + make_interval(secs => "
                "$14::int) ELSE step_ends END, "
                "deadline = CASE WHEN $2 <> 'playing' OR turn_seconds IS NULL THEN NULL "
                "WHEN $7::boolean OR step_ends IS NULL THEN now() + make_interval(secs => "
                "$14::int + $15::int) ELSE step_ends + make_interval(secs => $15::int) END "
                "WHERE id = $1",
                16, vals, NULL);
    free(state);
    return st;
}

int store_seat_take(PGconn *c, const char *id, int seat, const char *name,
                    const uint8_t hash[AUTH_HASH_LEN], long long account)
{
    char s[24], a[24];
    itoa_buf(s, sizeof s, seat);
    itoa_buf(a, sizeof a, account);
    const char *vals[] = {id, s, name, (const char *)hash, account ? a : NULL};
    const int lens[] = {0, 0, 0, AUTH_HASH_LEN, 0};
    return command(c, "take seat",
                   "UPDATE seats SET name = $3, token_hash = $4, joined_at = now(), account_id = "
                   "$5::bigint WHERE game_id = $1 AND seat = $2",
                   5, vals, lens);
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

/* Runs `sql` ($1 the game id, $2 the seat, $3 the bot kind or NULL) as command `what`. */
static int seat_command(PGconn *c, const char *what, const char *sql, const char *id, int seat,
                        const char *bot)
{
    char s[24];
    itoa_buf(s, sizeof s, seat);
    const char *vals[] = {id, s, bot};
    return command(c, what, sql, 3, vals, NULL);
}

int store_seat_change(PGconn *c, const char *id, int seat, const char *bot)
{
    return seat_command(
        c, "change seat",
        "WITH s AS (UPDATE seats SET token_hash = NULL, account_id = NULL, bot = $3, "
        "name = CASE WHEN "
        "$3::text IS NULL THEN NULL ELSE name END, joined_at = CASE WHEN $3::text IS "
        "NULL THEN NULL ELSE joined_at END WHERE game_id = $1 AND seat = $2::int) "
        "UPDATE games SET seats_version = seats_version + 1 WHERE id = $1",
        id, seat, bot);
}

int store_seat_seen(PGconn *c, const char *id, int seat, double every, double online, bool *back)
{
    char s[24], ev[32], on[32];
    itoa_buf(s, sizeof s, seat);
    snprintf(ev, sizeof ev, "%.3f", every);
    snprintf(on, sizeof on, "%.3f", online);
    const char *vals[] = {id, s, ev, on};
    PGresult *r;
    /* The old value is read by the UPDATE's own snapshot (FROM), so a seat that was away says
     * so once, to the write that brings it back. */
    int st = query(c, "seat seen",
                   "UPDATE seats AS s SET last_seen = now() FROM (SELECT game_id, seat, last_seen "
                   "FROM seats WHERE game_id = $1 AND seat = $2::int) AS o, games AS g WHERE "
                   "s.game_id = o.game_id AND s.seat = o.seat AND g.id = s.game_id AND "
                   "(o.last_seen IS NULL OR o.last_seen < now() - make_interval(secs => "
                   "$3::float8)) RETURNING (o.last_seen IS NULL OR o.last_seen < now() - "
                   "make_interval(secs => $4::float8)) AS back, g.last_seq",
                   4, vals, NULL, &r);
    *back = false;
    long long seq = 0;
    if (st == STORE_OK && PQntuples(r) == 1) {
        *back = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
        seq = atoll(PQgetvalue(r, 0, 1));
    }
    PQclear(r);
    if (st == STORE_OK && *back)
        st = store_notify(c, id, seq);
    return st;
}

int store_seats_seen(PGconn *c, const char *id, double ago[], int *n)
{
    const char *vals[] = {id};
    PGresult *r;
    int st = query(c, "seats seen",
                   "SELECT seat, coalesce(extract(epoch from now() - last_seen), -1) FROM seats "
                   "WHERE game_id = $1 ORDER BY seat",
                   1, vals, NULL, &r);
    *n = 0;
    for (int i = 0; st == STORE_OK && i < PQntuples(r) && *n < RS_MAX_SEATS; i++) {
        double a = atof(PQgetvalue(r, i, 1));
        ago[(*n)++] = a < 0 && a != -1 ? 0 : a; /* a clock a little ahead: just now */
    }
    PQclear(r);
    return st;
}

int store_seat_takeover(PGconn *c, const char *id, int seat, const char *bot)
{
    return seat_command(
        c, "take over seat",
        "WITH s AS (UPDATE seats SET reclaim_hash = token_hash, reclaim_account = "
        "account_id, token_hash = NULL, account_id = NULL, bot = $3 WHERE game_id = $1 "
        "AND seat = $2::int) UPDATE games SET seats_version = seats_version + 1 WHERE "
        "id = $1",
        id, seat, bot);
}

int store_seat_reclaim(PGconn *c, const char *id, const uint8_t hash[AUTH_HASH_LEN],
                       long long account, int *seat)
{
    char acc[24];
    snprintf(acc, sizeof acc, "%lld", account);
    const char *vals[] = {id, (const char *)hash, acc};
    const int lens[] = {0, AUTH_HASH_LEN, 0};
    PGresult *r;
    int st = query(c, "reclaim seat",
                   "WITH s AS (UPDATE seats SET token_hash = reclaim_hash, account_id = "
                   "reclaim_account, reclaim_hash = NULL, reclaim_account = NULL, bot = NULL, "
                   "last_seen = now() WHERE game_id = $1 AND bot IS NOT NULL AND (reclaim_hash = "
                   "$2 OR ($3::bigint <> 0 AND reclaim_account = $3::bigint)) RETURNING seat), "
                   "g AS (UPDATE games SET seats_version = seats_version + 1 WHERE id = $1 AND "
                   "EXISTS (SELECT 1 FROM s)) SELECT seat FROM s",
                   3, vals, lens, &r);
    if (st == STORE_OK && PQntuples(r) < 1)
        st = STORE_NO_ROW;
    if (st == STORE_OK)
        *seat = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return st;
}

int store_seat_defaults(PGconn *c, const char *id, int seat, int *count)
{
    char s[24];
    itoa_buf(s, sizeof s, seat);
    const char *vals[] = {id, s};
    PGresult *r;
    int st = query(c, "count defaults",
                   "SELECT count(*) FROM decisions WHERE game_id = $1 AND seat = $2::int AND "
                   "is_default",
                   2, vals, NULL, &r);
    if (st == STORE_OK)
        *count = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : 0;
    PQclear(r);
    return st;
}

int store_hint_take(PGconn *c, const char *id, int seat, int cap, int *used)
{
    char s[24], k[24];
    itoa_buf(s, sizeof s, seat);
    itoa_buf(k, sizeof k, cap);
    const char *vals[] = {id, s, k};
    PGresult *r;
    int st = query(c, "take hint",
                   "UPDATE seats SET hints_used = hints_used + 1 WHERE game_id = $1 AND seat = "
                   "$2::int AND hints_used < $3::int RETURNING hints_used",
                   3, vals, NULL, &r);
    if (st == STORE_OK && PQntuples(r) != 1)
        st = STORE_NO_ROW;
    else if (st == STORE_OK)
        *used = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return st;
}

int store_bots_stale(PGconn *c, int seconds, int max, char ids[][AUTH_ID_LEN + 1], bool people[],
                     uint64_t who[], int *n)
{
    char s[24], m[24];
    itoa_buf(s, sizeof s, seconds);
    itoa_buf(m, sizeof m, max);
    const char *vals[] = {s, m};
    PGresult *r;
    *n = 0;
    int st = query(c, "stale bots",
                   "SELECT g.id, EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND "
                   "s.bot IS NULL) AS people, g.creator_key FROM games g WHERE g.bot_due AND "
                   "g.status = "
                   "'playing' AND g.updated_at < now() - make_interval(secs => $1::int) "
                   "ORDER BY people DESC LIMIT $2::int",
                   2, vals, NULL, &r);
    for (int i = 0; st == STORE_OK && i < PQntuples(r) && i < max; i++) {
        people[*n] = PQgetvalue(r, i, 1)[0] == 't';
        uint8_t key[NETADDR_KEY_LEN];
        who[*n] = bytea_into(r, i, 2, key, sizeof key) ? netaddr_key_hash(key) : 0;
        snprintf(ids[(*n)++], AUTH_ID_LEN + 1, "%s", PQgetvalue(r, i, 0));
    }
    PQclear(r);
    return st;
}

int store_token_known(PGconn *c, const uint8_t hash[AUTH_HASH_LEN])
{
    const char *vals[] = {(const char *)hash};
    const int lens[] = {AUTH_HASH_LEN};
    PGresult *r;
    int st = query(c, "token known",
                   "SELECT 1 FROM seats WHERE token_hash = $1 UNION ALL "
                   "SELECT 1 FROM games WHERE host_hash = $1 LIMIT 1",
                   1, vals, lens, &r);
    if (st != STORE_OK)
        return st;
    st = PQntuples(r) > 0 ? STORE_OK : STORE_NO_ROW;
    PQclear(r);
    return st;
}

int store_decision_add(PGconn *c, const char *id, int n, int seat, const struct store_point *at,
                       const char *body, bool is_default)
{
    char nn[24], s[24], r[24], t[24];
    itoa_buf(nn, sizeof nn, n);
    itoa_buf(s, sizeof s, seat);
    itoa_buf(r, sizeof r, at->round);
    itoa_buf(t, sizeof t, at->turn);
    const char *vals[] = {id, nn, s, r, at->step, body, is_default ? "t" : "f", t};
    return command(c, "add decision",
                   "INSERT INTO decisions (game_id, n, seat, round, step, body, is_default, turn) "
                   "VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)",
                   8, vals, NULL);
}

int store_notify(PGconn *c, const char *id, long long seq)
{
    char payload[64];
    snprintf(payload, sizeof payload, "%s:%lld", id, seq);
    return store_notify_on_commit(c, "city_events", payload);
}

int store_notify_lobby(PGconn *c)
{
    return store_notify_on_commit(c, "city_events", LOBBY_CACHE_NEWS);
}

/* Parses column `col` of every row as a JSON document into a new array. */
static int rows_to_array(PGresult *r, int col, json_t **out)
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

/* Runs a query whose one column is a JSON document per row; the rows become a new array. */
static int query_array(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
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

int store_events_after(PGconn *c, const char *id, long long after, int limit, json_t **out)
{
    char a[24], l[24];
    itoa_buf(a, sizeof a, after);
    itoa_buf(l, sizeof l, limit);
    const char *vals[] = {id, a, l};
    return query_array(c, "events after",
                       "SELECT (jsonb_build_object('seq', seq, 'type', type) || data)::text "
                       "FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                       3, vals, out);
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
    int st = query(c, "events page",
                   "SELECT g.last_seq, coalesce((SELECT json_agg(e.ev ORDER BY e.seq) FROM "
                   "(SELECT seq, jsonb_build_object('seq', seq, 'type', type) || data AS ev "
                   "FROM events WHERE game_id = g.id AND seq > $2 ORDER BY seq LIMIT $3) e), "
                   "'[]')::text FROM games g WHERE g.id = $1",
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

/* Open games newest first, then playing and finished ones newest first (ties by id), private
 * tables left out: each part one scan of a partial index on (created_at, id) from the cursor
 * on, LIMITed, so the cost does not grow with the games stored; open games an address's newer
 * ones pushed out (lobby_hidden) are not in the index, which holds the filters' columns (the
 * open part's ids come from it alone, then their rows). $1 the rows to read (a page and one), $2
 * a game or NULL, $3 a number of seats or NULL, $4 the cursor's part or NULL, $5 its time
 * (UTC), $6 its id. */
static const char sql_lobby[] =
    "SELECT json_build_object('id', g.id, 'game', g.game, 'status', g.status, 'players', "
    "g.players, 'options', g.options, 'turn_seconds', g.turn_seconds, 'round', "
    "(g.state->>'round')::int, 'created_at', to_char(g.created_at AT TIME ZONE 'UTC', "
    "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 'seats_free', (SELECT count(*) FROM seats s WHERE "
    "s.game_id = g.id AND s.name IS NULL AND s.bot IS NULL), 'names', (SELECT "
    "coalesce(json_agg(coalesce(s.name, '') ORDER BY s.seat), '[]') FROM seats s WHERE "
    "s.game_id = g.id), 'bots', (SELECT coalesce(json_agg(s.bot IS NOT NULL ORDER BY s.seat), "
    "'[]') FROM seats s WHERE s.game_id = g.id), '_cursor', g.part || '-' || "
    "to_char(g.created_at AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS') || '-' || g.id)::text FROM ("
    "(SELECT 0 AS part, o.id, o.game, o.status, o.players, o.options, o.turn_seconds, o.state, "
    "o.created_at FROM (SELECT id FROM games WHERE status = 'open' AND NOT unlisted AND NOT "
    "lobby_hidden AND ($2::text IS NULL OR game = $2::text) AND ($3::int IS NULL OR players = "
    "$3::int) AND ($4::int IS NULL OR ($4::int = 0 AND (created_at, id) < ($5::timestamp AT "
    "TIME ZONE 'UTC', $6::text))) ORDER BY created_at DESC, id DESC LIMIT $1) k JOIN games o "
    "ON o.id = k.id) "
    "UNION ALL "
    "(SELECT 1, id, game, status, players, options, turn_seconds, state, created_at "
    "FROM games WHERE status IN ('playing', 'finished') AND NOT unlisted AND ($2::text IS NULL "
    "OR game = $2::text) AND ($3::int IS NULL OR players = $3::int) AND ($4::int IS NULL OR "
    "$4::int = 0 OR (created_at, id) < ($5::timestamp AT TIME ZONE 'UTC', $6::text)) "
    "ORDER BY created_at DESC, id DESC LIMIT $1)"
    ") g ORDER BY g.part, g.created_at DESC, g.id DESC LIMIT $1";

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool store_lobby_cursor_parse(const char *text, struct lobby_query *q)
{
    /* "P-YYYYMMDDHHMMSSuuuuuu-ID" */
    size_t n = text ? strlen(text) : 0;
    if (n < 25 || n > 24 + AUTH_ID_LEN || (text[0] != '0' && text[0] != '1') || text[1] != '-' ||
        text[22] != '-')
        return false;
    int v[7]; /* year, month, day, hour, minute, second, microsecond */
    static const int at[7] = {2, 6, 8, 10, 12, 14, 16}, len[7] = {4, 2, 2, 2, 2, 2, 6};
    for (int k = 0; k < 7; k++) {
        v[k] = 0;
        for (int c = 0; c < len[k]; c++) {
            char ch = text[at[k] + c];
            if (ch < '0' || ch > '9')
                return false;
            v[k] = v[k] * 10 + (ch - '0');
        }
    }
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (v[0] < 1970 || v[1] < 1 || v[1] > 12 || v[2] < 1 ||
        v[2] > mdays[v[1] - 1] + (v[1] == 2 && leap(v[0])) || v[3] > 23 || v[4] > 59 || v[5] > 59)
        return false;
    for (const char *p = text + 23; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z')))
            return false;
    q->has_after = true;
    q->after_part = text[0] - '0';
    snprintf(q->after_ts, sizeof q->after_ts, "%04d-%02d-%02d %02d:%02d:%02d.%06d", v[0], v[1],
             v[2], v[3], v[4], v[5], v[6]);
    snprintf(q->after_id, sizeof q->after_id, "%s", text + 23);
    return true;
}

int store_games_list(PGconn *c, const struct lobby_query *q, json_t **out, char *next)
{
    char l[24], players[24], part[24];
    itoa_buf(l, sizeof l, q->limit + 1);
    itoa_buf(players, sizeof players, q->players);
    itoa_buf(part, sizeof part, q->after_part);
    const char *vals[] = {l,
                          q->game,
                          q->players > 0 ? players : NULL,
                          q->has_after ? part : NULL,
                          q->has_after ? q->after_ts : NULL,
                          q->has_after ? q->after_id : NULL};
    next[0] = 0;
    int st = query_array(c, "list games", sql_lobby, 6, vals, out);
    if (st != STORE_OK)
        return st;
    size_t n = json_array_size(*out);
    if (n > (size_t)q->limit) {
        json_array_remove(*out, n - 1);
        n--;
        snprintf(next, STORE_CURSOR_LEN, "%s",
                 json_string_value(json_object_get(json_array_get(*out, n - 1), "_cursor")));
    }
    size_t i;
    json_t *game;
    json_array_foreach(*out, i, game)
    {
        json_object_del(game, "_cursor");
    }
    return STORE_OK;
}

int store_lobby_trim(PGconn *c, const uint8_t key[NETADDR_KEY_LEN], int keep)
{
    char k[24];
    itoa_buf(k, sizeof k, keep);
    const char *vals[] = {(const char *)key, k};
    const int lens[] = {NETADDR_KEY_LEN, 0};
    return command(c, "trim the lobby",
                   "UPDATE games SET lobby_hidden = true WHERE id IN (SELECT id FROM games WHERE "
                   "creator_key = $1 AND status = 'open' AND NOT unlisted AND NOT lobby_hidden "
                   "ORDER BY created_at DESC, id DESC OFFSET $2::int FOR UPDATE SKIP LOCKED)",
                   2, vals, lens);
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

static const char sql_counts[] = "SELECT status, sum(n) FROM game_counts GROUP BY status";

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
        "'by', coalesce((SELECT e.data->'by' FROM events e WHERE e.game_id = $1 AND e.type = "
        "'default' AND e.data->'seat' = to_jsonb(d.seat::int) AND e.data->'round' = "
        "to_jsonb(d.round::int) AND e.data->'step' = d.body->'step' AND e.data->'turn' IS NOT "
        "DISTINCT FROM d.body->'turn' ORDER BY e.seq DESC LIMIT 1), '\"timer\"'::jsonb)) || "
        "CASE WHEN d.body ? 'turn' THEN jsonb_build_object('turn', d.body->'turn') ELSE "
        "'{}'::jsonb END)::text "
        "FROM (SELECT * FROM decisions WHERE game_id = $1 AND seat = $2::int ORDER BY n DESC "
        "LIMIT 1) d WHERE d.is_default",
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

/* The oldest open games past their time (games_open_created), locked, marked expired, each
 * with an "expired" event at the next sequence number. */
static const char sql_expire[] =
    "WITH x AS (SELECT id FROM games WHERE status = 'open' AND created_at < now() - "
    "make_interval(secs => $1::int) ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED), "
    "u AS (UPDATE games g SET status = 'expired', deadline = NULL, updated_at = now(), "
    "version = g.version + 1, last_seq = g.last_seq + 1 FROM x WHERE g.id = x.id "
    "RETURNING g.id, g.last_seq), "
    "e AS (INSERT INTO events (game_id, seq, type, data) SELECT id, last_seq, 'expired', "
    "'{}'::jsonb FROM u) "
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
    "e AS (INSERT INTO events (game_id, seq, type, data) SELECT id, last_seq, 'abandoned', "
    "jsonb_build_object('idle_seconds', $1::int) FROM u) "
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
        return sql_lobby;
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
