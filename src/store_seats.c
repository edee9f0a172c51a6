/* store_seats.c: the SQL of a game's seats apart from loading a game (see store_games.h): taking,
 * changing, handing to a bot and taking back a seat, presence (when each seat was last seen),
 * defaults counted, hints taken, bots whose games wait, and whether a token is known. All values
 * travel as parameters. */
#include "store_games.h"
#include "store_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int store_seats_seen_now(PGconn *c, const char *const ids[], const int seats[], int n, double every,
                         double online, bool back[], bool written[])
{
    for (int i = 0; i < n; i++)
        back[i] = written[i] = false;
    if (n <= 0)
        return STORE_OK;
    if (n > STORE_SEEN_MAX)
        return STORE_HARD;
    /* Every id and seat number as text: the arrays' literals. */
    char idlist[STORE_SEEN_MAX * 72 + 4], seatlist[STORE_SEEN_MAX * 16 + 4], ev[32], on[32];
    char nums[STORE_SEEN_MAX][12];
    const char *numv[STORE_SEEN_MAX];
    for (int i = 0; i < n; i++) {
        itoa_buf(nums[i], sizeof nums[i], seats[i]);
        numv[i] = nums[i];
    }
    if (!store_text_array(idlist, sizeof idlist, ids, n) ||
        !store_text_array(seatlist, sizeof seatlist, numv, n))
        return STORE_HARD;
    snprintf(ev, sizeof ev, "%.3f", every);
    snprintf(on, sizeof on, "%.3f", online);
    const char *vals[] = {idlist, seatlist, ev, on};
    PGresult *r;
    /* The rows are found through the primary key (game_id = ANY: a few index probes, where a
     * join with the unnest read the whole table), locked in one order (game, then seat) by
     * every writer, so two batches never deadlock, and updated by their tuple ids. The old value
     * is read as locked, so a seat that was away says so once, to the write that brings it
     * back. */
    int st = query(c, "seats seen",
                   "WITH o AS (SELECT x.ctid AS tid, x.last_seen FROM seats AS x WHERE x.game_id = "
                   "ANY($1::text[]) AND (x.game_id, x.seat) IN (SELECT * FROM unnest($1::text[], "
                   "$2::int[])) AND (x.last_seen IS NULL OR x.last_seen < now() - "
                   "make_interval(secs => $3::float8)) ORDER BY x.game_id COLLATE \"C\", x.seat "
                   "FOR UPDATE OF x) UPDATE seats AS s SET last_seen = now() FROM o WHERE s.ctid "
                   "= o.tid RETURNING s.game_id, s.seat, (o.last_seen IS NULL OR o.last_seen < "
                   "now() - make_interval(secs => $4::float8)) AS back, (SELECT g.last_seq FROM "
                   "games AS g WHERE g.id = s.game_id) AS last_seq",
                   4, vals, NULL, &r);
    for (int k = 0; st == STORE_OK && k < PQntuples(r); k++) {
        const char *id = PQgetvalue(r, k, 0);
        int seat = atoi(PQgetvalue(r, k, 1));
        bool was_away = strcmp(PQgetvalue(r, k, 2), "t") == 0;
        for (int i = 0; i < n; i++)
            if (seats[i] == seat && strcmp(ids[i], id) == 0) {
                written[i] = true;
                back[i] = was_away;
            }
        if (was_away)
            st = store_notify_news(c, id, atoll(PQgetvalue(r, k, 3)), STORE_NEWS_PRESENCE);
    }
    PQclear(r);
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
