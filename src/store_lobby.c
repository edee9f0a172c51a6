/* store_lobby.c: the SQL of the lobby (see store_games.h): the list of games by pages with its
 * cursor, and the trim of an address's oldest open games past its share. All values travel as
 * parameters. */
#include "store_games.h"
#include "store_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *store_lobby_sql(void)
{
    return sql_lobby;
}
