/* store_accounts.c: the SQL of accounts and sessions (see store_accounts.h). Values travel as
 * parameters; token hashes as binary bytea, everything else as text. */
#include "store_accounts.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UTC_TEXT(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

static int query(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                 const int *lens, PGresult **res)
{
    const struct store_stmt q = {what, sql, n, vals, lens, false};
    return store_query(c, &q, res);
}

/* Fills *out from row 0 of r (columns id, name, created_at and, when present, pw_hash);
 * STORE_NO_ROW when r has no row. */
static int account_from(const PGresult *r, struct account *out)
{
    if (PQntuples(r) < 1)
        return STORE_NO_ROW;
    memset(out, 0, sizeof *out);
    out->id = atoll(PQgetvalue(r, 0, PQfnumber(r, "id")));
    snprintf(out->name, sizeof out->name, "%s", PQgetvalue(r, 0, PQfnumber(r, "name")));
    snprintf(out->created_at, sizeof out->created_at, "%s",
             PQgetvalue(r, 0, PQfnumber(r, "created_at")));
    int k = PQfnumber(r, "pw_hash");
    if (k >= 0)
        snprintf(out->pw_hash, sizeof out->pw_hash, "%s", PQgetvalue(r, 0, k));
    return STORE_OK;
}

/* Runs a statement that returns at most one account row into *out. */
static int one_account(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                       const int *lens, struct account *out)
{
    PGresult *r;
    int st = query(c, what, sql, n, vals, lens, &r);
    if (st == STORE_OK)
        st = account_from(r, out);
    PQclear(r);
    return st;
}

int store_account_insert(PGconn *c, const char *name, const char *key, const char *pw_hash,
                         struct account *out)
{
    const char *vals[] = {name, key, pw_hash};
    return one_account(c, "insert account",
                       "INSERT INTO accounts (name, name_key, pw_hash) VALUES ($1, $2, $3) "
                       "ON CONFLICT (name_key) DO NOTHING RETURNING id, name, " UTC_TEXT(
                           "created_at") " AS created_at",
                       3, vals, NULL, out);
}

int store_account_by_key(PGconn *c, const char *key, struct account *out)
{
    const char *vals[] = {key};
    return one_account(c, "account by name",
                       "SELECT id, name, pw_hash, " UTC_TEXT(
                           "created_at") " AS created_at FROM accounts WHERE name_key = $1",
                       1, vals, NULL, out);
}

int store_account_of_session(PGconn *c, const uint8_t hash[AUTH_HASH_LEN], struct account *out)
{
    const char *vals[] = {(const char *)hash};
    const int lens[] = {AUTH_HASH_LEN};
    return one_account(c, "account of session",
                       "SELECT a.id, a.name, a.pw_hash, " UTC_TEXT(
                           "a.created_at") " AS created_at FROM sessions s JOIN accounts a ON "
                                           "a.id = s.account_id WHERE s.token_hash = $1 AND "
                                           "s.expires_at > now()",
                       1, vals, lens, out);
}

int store_session_insert(PGconn *c, long long account, const uint8_t hash[AUTH_HASH_LEN],
                         int seconds, char expires_at[32])
{
    char a[24], s[24];
    snprintf(a, sizeof a, "%lld", account);
    snprintf(s, sizeof s, "%d", seconds);
    const char *vals[] = {a, (const char *)hash, s};
    const int lens[] = {0, AUTH_HASH_LEN, 0};
    PGresult *r;
    int st = query(c, "insert session",
                   "WITH old AS (DELETE FROM sessions WHERE account_id = $1::bigint AND "
                   "expires_at <= now()) INSERT INTO sessions (token_hash, account_id, "
                   "expires_at) VALUES ($2, $1::bigint, now() + make_interval(secs => $3::int)) "
                   "RETURNING " UTC_TEXT("expires_at"),
                   3, vals, lens, &r);
    if (st == STORE_OK && PQntuples(r) == 1)
        snprintf(expires_at, 32, "%s", PQgetvalue(r, 0, 0));
    else if (st == STORE_OK)
        st = STORE_HARD;
    PQclear(r);
    return st;
}

/* Runs a statement that answers one count, into *n (0 when it failed). */
static int count_query(PGconn *c, const char *what, const char *sql, int nv,
                       const char *const *vals, const int *lens, int *n)
{
    PGresult *r;
    int st = query(c, what, sql, nv, vals, lens, &r);
    *n = st == STORE_OK && PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : 0;
    PQclear(r);
    return st;
}

int store_sessions_end(PGconn *c, long long account, const uint8_t *only, const uint8_t *keep,
                       int *ended)
{
    char a[24];
    snprintf(a, sizeof a, "%lld", account);
    const char *vals[] = {a, (const char *)only, (const char *)keep};
    const int lens[] = {0, only ? AUTH_HASH_LEN : 0, keep ? AUTH_HASH_LEN : 0};
    return count_query(c, "end sessions",
                       "WITH d AS (DELETE FROM sessions WHERE account_id = $1::bigint AND "
                       "($2::bytea IS NULL OR token_hash = $2) AND ($3::bytea IS NULL OR "
                       "token_hash <> $3) RETURNING 1) SELECT count(*) FROM d",
                       3, vals, lens, ended);
}

int store_sessions_purge(PGconn *c, int max, int *n)
{
    char m[24];
    snprintf(m, sizeof m, "%d", max);
    const char *vals[] = {m};
    return count_query(c, "purge sessions",
                       "WITH d AS (DELETE FROM sessions WHERE token_hash IN (SELECT token_hash "
                       "FROM sessions WHERE expires_at <= now() LIMIT $1::int FOR UPDATE SKIP "
                       "LOCKED) RETURNING 1) SELECT count(*) FROM d",
                       1, vals, NULL, n);
}

int store_account_password(PGconn *c, long long account, const char *old_hash, const char *new_hash)
{
    char a[24];
    snprintf(a, sizeof a, "%lld", account);
    const char *vals[] = {a, old_hash, new_hash};
    PGresult *r;
    int st = query(c, "change password",
                   "UPDATE accounts SET pw_hash = $3 WHERE id = $1::bigint AND pw_hash = $2 "
                   "RETURNING id",
                   3, vals, NULL, &r);
    if (st == STORE_OK && PQntuples(r) != 1)
        st = STORE_NO_ROW;
    PQclear(r);
    return st;
}

int store_account_delete(PGconn *c, long long account, const char *pw_hash,
                         char ids[][AUTH_ID_LEN + 1], int max, int *n)
{
    char a[24], m[24];
    snprintf(a, sizeof a, "%lld", account);
    snprintf(m, sizeof m, "%d", max);
    *n = 0;
    /* The games first, locked in the order every writer of several games takes (id in the C
     * collation), so that this cannot deadlock with a write of one of them; then the seats,
     * while they still name the account; the delete then sets their account_id to NULL (ON
     * DELETE SET NULL) and takes the sessions with it (CASCADE). */
    const char *vals[] = {a, m};
    PGresult *r;
    int st = query(c, "lock deleted seats' games",
                   "SELECT id FROM games WHERE id IN (SELECT game_id FROM seats WHERE account_id "
                   "= $1::bigint) ORDER BY id COLLATE \"C\" FOR UPDATE",
                   1, vals, NULL, &r);
    PQclear(r);
    if (st != STORE_OK)
        return st;
    st = query(
        c, "rename deleted seats",
        "WITH s AS (UPDATE seats SET name = '" STORE_DELETED_NAME "' WHERE account_id = $1::bigint "
        "RETURNING game_id, seat), "
        "gs AS (SELECT game_id, array_agg(seat::text) AS seats FROM s GROUP BY game_id), "
        "e AS (UPDATE event_batches b SET body = (SELECT jsonb_agg(CASE WHEN x.v->'data' ? "
        "'name' AND x.v->'data'->>'seat' = ANY(gs.seats) THEN jsonb_set(x.v, '{data,name}', "
        "to_jsonb('" STORE_DELETED_NAME "'::text)) ELSE x.v END ORDER BY x.n) FROM "
        "jsonb_array_elements(b.body) WITH ORDINALITY AS x(v, n)) FROM gs WHERE b.game_id = "
        "gs.game_id AND EXISTS (SELECT 1 FROM jsonb_array_elements(b.body) AS y(v) WHERE "
        "y.v->'data' ? 'name' AND y.v->'data'->>'seat' = ANY(gs.seats))), "
        "g AS (UPDATE games SET seats_version = seats_version + 1 WHERE id IN (SELECT game_id "
        "FROM s) RETURNING id, updated_at) "
        "SELECT id FROM g ORDER BY updated_at DESC LIMIT $2::int",
        2, vals, NULL, &r);
    for (int i = 0; st == STORE_OK && i < PQntuples(r) && i < max; i++)
        snprintf(ids[(*n)++], AUTH_ID_LEN + 1, "%s", PQgetvalue(r, i, 0));
    PQclear(r);
    if (st != STORE_OK)
        return st;
    const char *dv[] = {a, pw_hash};
    st = query(c, "delete account",
               "DELETE FROM accounts WHERE id = $1::bigint AND pw_hash = $2 RETURNING id", 2, dv,
               NULL, &r);
    if (st == STORE_OK && PQntuples(r) != 1)
        st = STORE_NO_ROW;
    PQclear(r);
    return st;
}

bool store_games_cursor_parse(const char *text, struct games_cursor *out)
{
    memset(out, 0, sizeof *out);
    const char *sep = text ? strchr(text, '~') : NULL;
    /* "2026-11-26T05:30:00.123456Z": 27 characters of digits and separators in place. */
    static const char shape[] = "dddd-dd-ddTdd:dd:dd.ddddddZ";
    if (!sep || sep - text != (ptrdiff_t)strlen(shape) || strlen(sep + 1) != AUTH_ID_LEN)
        return false;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? text[i] < '0' || text[i] > '9' : text[i] != shape[i])
            return false;
    for (const char *p = sep + 1; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    memcpy(out->at, text, strlen(shape));
    snprintf(out->id, sizeof out->id, "%s", sep + 1);
    return true;
}

int store_account_games(PGconn *c, long long account, int limit, const struct games_cursor *after,
                        json_t **out, char *next)
{
    char a[24], l[24];
    snprintf(a, sizeof a, "%lld", account);
    snprintf(l, sizeof l, "%d", limit + 1);
    bool has = after && after->id[0];
    const char *vals[] = {a, l, has ? after->at : NULL, has ? after->id : NULL};
    PGresult *r;
    *out = NULL;
    next[0] = 0;
    int st = query(
        c, "account games",
        "SELECT g.id, g.game, g.status, s.seat, g.players, g.unlisted, " UTC_TEXT(
            "g.created_at") " AS created_at, " UTC_TEXT("g.updated_at") " AS updated_at, "
                                                                        "to_char(g.updated_at AT "
                                                                        "TIME ZONE 'UTC', "
                                                                        "'YYYY-MM-DD\"T\"HH24:MI:"
                                                                        "SS.US\"Z\"') AS at "
                                                                        "FROM seats s JOIN games g "
                                                                        "ON g.id = s.game_id WHERE "
                                                                        "s.account_id = $1::bigint "
                                                                        "AND "
                                                                        "($3::timestamptz IS NULL "
                                                                        "OR (g.updated_at, g.id "
                                                                        "COLLATE \"C\") < "
                                                                        "($3::timestamptz, "
                                                                        "$4::text COLLATE \"C\")) "
                                                                        "ORDER BY g.updated_at "
                                                                        "DESC, g.id COLLATE \"C\" "
                                                                        "DESC LIMIT "
                                                                        "$2::int",
        4, vals, NULL, &r);
    if (st != STORE_OK) {
        PQclear(r);
        return st;
    }
    json_t *list = json_array();
    int rows = PQntuples(r);
    for (int i = 0; i < rows && i < limit; i++) {
        json_array_append_new(
            list, json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:s, s:s}", "id", PQgetvalue(r, i, 0),
                            "game", PQgetvalue(r, i, 1), "status", PQgetvalue(r, i, 2), "seat",
                            atoi(PQgetvalue(r, i, 3)), "players", atoi(PQgetvalue(r, i, 4)),
                            "private", PQgetvalue(r, i, 5)[0] == 't', "created_at",
                            PQgetvalue(r, i, 6), "updated_at", PQgetvalue(r, i, 7)));
        if (i == limit - 1 && rows > limit)
            snprintf(next, STORE_GAMES_CURSOR_LEN, "%s~%s", PQgetvalue(r, i, 8),
                     PQgetvalue(r, i, 0));
    }
    PQclear(r);
    *out = list;
    return STORE_OK;
}
