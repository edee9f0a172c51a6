/* store_ratings.c: the SQL of rated games, ratings, profiles and leaderboards (see
 * store_ratings.h). Values travel as text parameters, lists as array literals. */
#include "store_ratings.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UTC_TEXT(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

static int query(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                 PGresult **res)
{
    const struct store_stmt q = {what, sql, n, vals, NULL, false};
    return store_query(c, &q, res);
}

static int command(PGconn *c, const char *what, const char *sql, int n, const char *const *vals)
{
    const struct store_stmt q = {what, sql, n, vals, NULL, false};
    return store_command(c, &q);
}

/* A growing array literal ("{a,b}") of n items, each written by the caller with add(). */
struct lit {
    char text[2048];
    size_t len;
};

static void lit_add(struct lit *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lit_add(struct lit *l, const char *fmt, ...)
{
    if (l->len == 0)
        l->text[l->len++] = '{';
    else if (l->text[l->len - 1] == '}')
        l->text[l->len - 1] = ',';
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
    va_end(ap);
    if (w > 0 && l->len + (size_t)w + 2 < sizeof l->text)
        l->len += (size_t)w;
    l->text[l->len++] = '}';
    l->text[l->len] = 0;
}

/* The literal, "{}" when nothing was added. */
static const char *lit_text(struct lit *l)
{
    return l->len ? l->text : "{}";
}

int store_seat_places(PGconn *c, const char *id, int n, const int *seats, const int *places,
                      const int *scores)
{
    struct lit s = {0}, p = {0}, v = {0};
    for (int i = 0; i < n; i++) {
        lit_add(&s, "%d", seats[i]);
        lit_add(&p, "%d", places[i]);
        lit_add(&v, "%d", scores[i]);
    }
    const char *vals[] = {id, lit_text(&s), lit_text(&p), lit_text(&v)};
    return command(c, "seat places",
                   "UPDATE seats s SET place = x.place, score = x.score FROM unnest($2::int[], "
                   "$3::int[], $4::int[]) AS x(seat, place, score) WHERE s.game_id = $1 AND "
                   "s.seat = x.seat",
                   4, vals);
}

int store_ratings_lock(PGconn *c, const char *game, int n, const char *const *players,
                       const long long *accounts, struct rating *out)
{
    struct lit p = {0}, a = {0};
    for (int i = 0; i < n; i++) {
        lit_add(&p, "\"%s\"", players[i]);
        if (accounts[i])
            lit_add(&a, "%lld", accounts[i]);
        else
            lit_add(&a, "NULL");
    }
    char mu[40], sigma[40];
    struct rating fresh = rating_new();
    snprintf(mu, sizeof mu, "%.17g", fresh.mu);
    snprintf(sigma, sizeof sigma, "%.17g", fresh.sigma);
    const char *vals[] = {game, lit_text(&p), lit_text(&a), mu, sigma};
    const struct store_stmt q[] = {
        {"new ratings",
         "INSERT INTO ratings (game, player, account_id, mu, sigma) SELECT $1, x.p, x.a, "
         "$4::float8, $5::float8 FROM unnest($2::text[], $3::bigint[]) AS x(p, a) ORDER BY x.p "
         "COLLATE \"C\" ON CONFLICT (game, player) DO NOTHING",
         5, vals, NULL, false},
        {"lock ratings",
         "SELECT player, mu, sigma FROM ratings WHERE game = $1 AND player = ANY($2::text[]) "
         "ORDER BY player COLLATE \"C\" FOR UPDATE",
         2, vals, NULL, false},
    };
    PGresult *r[2] = {NULL, NULL};
    int st = store_queries(c, 2, q, r);
    for (int i = 0; st == STORE_OK && i < n; i++) {
        out[i] = rating_new();
        bool found = false;
        for (int k = 0; k < PQntuples(r[1]) && !found; k++)
            if (strcmp(PQgetvalue(r[1], k, 0), players[i]) == 0) {
                out[i].mu = strtod(PQgetvalue(r[1], k, 1), NULL);
                out[i].sigma = strtod(PQgetvalue(r[1], k, 2), NULL);
                found = true;
            }
        if (!found)
            st = STORE_HARD;
    }
    PQclear(r[0]);
    PQclear(r[1]);
    return st;
}

int store_ratings_save(PGconn *c, const char *id, const char *game, int n,
                       const struct rated_seat *seats, const char *view)
{
    struct lit seat = {0}, player = {0}, account = {0}, place = {0}, mu0 = {0}, s0 = {0}, mu1 = {0},
               s1 = {0};
    for (int i = 0; i < n; i++) {
        const struct rated_seat *x = &seats[i];
        lit_add(&seat, "%d", x->seat);
        lit_add(&player, "\"%s\"", x->player);
        if (x->account)
            lit_add(&account, "%lld", x->account);
        else
            lit_add(&account, "NULL");
        lit_add(&place, "%d", x->place);
        lit_add(&mu0, "%.17g", x->before.mu);
        lit_add(&s0, "%.17g", x->before.sigma);
        lit_add(&mu1, "%.17g", x->after.mu);
        lit_add(&s1, "%.17g", x->after.sigma);
    }
    const char *vals[] = {id,
                          game,
                          lit_text(&seat),
                          lit_text(&player),
                          lit_text(&account),
                          lit_text(&place),
                          lit_text(&mu0),
                          lit_text(&s0),
                          lit_text(&mu1),
                          lit_text(&s1),
                          view};
    return command(
        c, "save ratings",
        "WITH x AS (SELECT * FROM unnest($3::int[], $4::text[], $5::bigint[], $6::int[], "
        "$7::float8[], $8::float8[], $9::float8[], $10::float8[]) AS x(seat, player, account, "
        "place, mu0, s0, mu1, s1)), "
        "r AS (INSERT INTO rated_results (game_id, seat, game, player, account_id, place, "
        "mu_before, sigma_before, mu, sigma) SELECT $1, seat, $2, player, account, place, mu0, s0, "
        "mu1, s1 FROM x), "
        "u AS (UPDATE ratings t SET mu = y.mu1, sigma = y.s1, games = t.games + 1, wins = t.wins "
        "+ y.won, updated_at = now() FROM (SELECT player, min(mu1) AS mu1, min(s1) AS s1, "
        "max(CASE WHEN place = 1 THEN 1 ELSE 0 END) AS won FROM x GROUP BY player) y WHERE "
        "t.game = $2 AND t.player = y.player), "
        "g AS (UPDATE games SET ratings = $11::jsonb WHERE id = $1) "
        "SELECT 1",
        11, vals);
}

/* Runs a statement whose one row and column is JSON text, parsed into *out. */
static int json_query(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                      json_t **out)
{
    PGresult *r;
    *out = NULL;
    int st = query(c, what, sql, n, vals, &r);
    if (st == STORE_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
        *out = json_loads(PQgetvalue(r, 0, 0), 0, NULL);
    if (st == STORE_OK && !*out)
        st = STORE_HARD;
    PQclear(r);
    return st;
}

int store_player_profile(PGconn *c, const char *player, long long account, int recent, json_t **out)
{
    char a[24], lim[24];
    snprintf(a, sizeof a, "%lld", account);
    snprintf(lim, sizeof lim, "%d", recent);
    const char *vals[] = {player, a, lim};
    /* An account's finished games are its seats'; a bot's are its rated results. */
    return json_query(
        c, "player profile",
        "WITH f AS (SELECT g.id, g.game, g.updated_at, g.players, g.rated, g.unlisted, s.seat, "
        "s.place FROM seats s JOIN games g ON g.id = s.game_id WHERE $2::bigint <> 0 AND "
        "s.account_id = $2::bigint AND g.status = 'finished' UNION ALL SELECT g.id, g.game, "
        "g.updated_at, g.players, true, g.unlisted, r.seat, r.place FROM rated_results r JOIN "
        "games g ON g.id = r.game_id WHERE $2::bigint = 0 AND r.player = $1), "
        "recent AS (SELECT f.*, (rr.mu - 3 * rr.sigma) - (rr.mu_before - 3 * rr.sigma_before) AS "
        "change FROM f LEFT JOIN rated_results rr ON rr.game_id = f.id AND rr.seat = f.seat WHERE "
        "NOT f.unlisted ORDER BY f.updated_at DESC, f.id DESC LIMIT $3::int) "
        "SELECT json_build_object("
        "'ratings', coalesce((SELECT json_agg(json_build_object('game', game, 'mu', mu, 'sigma', "
        "sigma, 'ordinal', ordinal, 'games', games, 'wins', wins) ORDER BY game) FROM ratings "
        "WHERE player = $1), '[]'), "
        "'played', (SELECT count(DISTINCT id) FROM f), "
        "'won', (SELECT count(DISTINCT id) FROM f WHERE place = 1), "
        "'recent', coalesce((SELECT json_agg(json_build_object('id', id, 'game', game, "
        "'finished_at', " UTC_TEXT("updated_at") ", 'place', place, 'players', players, 'rated', "
                                                 "rated, 'change', change) ORDER BY updated_at "
                                                 "DESC, id DESC) FROM recent), '[]'))::text",
        3, vals, out);
}

bool store_board_cursor_parse(const char *text, struct board_cursor *out)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return false;
    char *end;
    long rank = strtol(text, &end, 10);
    if (end == text || *end != '.' || rank < 1 || rank > 1000000000)
        return false;
    const char *hex = end + 1;
    uint64_t bits = strtoull(hex, &end, 16);
    if (end - hex != 16 || *end != '.')
        return false;
    const char *p = end + 1;
    size_t n = strlen(p);
    if (n == 0 || n >= sizeof out->player ||
        strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789:_-") != n)
        return false;
    double d;
    memcpy(&d, &bits, sizeof d);
    if (d != d) /* NaN */
        return false;
    out->has = true;
    out->rank = (int)rank;
    out->ordinal = d;
    snprintf(out->player, sizeof out->player, "%s", p);
    return true;
}

/* Writes the cursor after row (rank, ordinal, player) into next. */
static void board_cursor_text(int rank, double ordinal, const char *player, char *next)
{
    uint64_t bits;
    memcpy(&bits, &ordinal, sizeof bits);
    snprintf(next, STORE_BOARD_CURSOR_LEN, "%d.%016" PRIx64 ".%s", rank, bits, player);
}

int store_leaderboard(PGconn *c, const char *game, int limit, const struct board_cursor *after,
                      json_t **players, char *next, json_t **best)
{
    char lim[24], ord[40];
    snprintf(lim, sizeof lim, "%d", limit + 1);
    snprintf(ord, sizeof ord, "%.17g", after->has ? after->ordinal : 0.0);
    const char *vals[] = {game, after->has ? ord : NULL, after->has ? after->player : NULL, lim};
    *players = *best = NULL;
    next[0] = 0;
    PGresult *r;
    int st = query(c, "leaderboard",
                   "SELECT r.player, coalesce(a.name, r.player), r.account_id IS NULL, r.mu, "
                   "r.sigma, r.ordinal, r.games FROM ratings r LEFT JOIN accounts a ON a.id = "
                   "r.account_id WHERE r.game = $1 AND r.games >= 1 AND ($2::float8 IS NULL OR "
                   "(r.ordinal, r.player COLLATE \"C\") < ($2::float8, $3::text COLLATE \"C\")) "
                   "ORDER BY r.ordinal DESC, r.player COLLATE \"C\" DESC LIMIT $4::int",
                   4, vals, &r);
    if (st != STORE_OK) {
        PQclear(r);
        return st;
    }
    json_t *list = json_array();
    int rows = PQntuples(r), first = after->has ? after->rank + 1 : 1;
    for (int i = 0; i < rows && i < limit; i++) {
        double ordinal = strtod(PQgetvalue(r, i, 5), NULL);
        json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:f, s:f, s:f, s:i}", "rank",
                                              first + i, "name", PQgetvalue(r, i, 1), "kind",
                                              PQgetvalue(r, i, 2)[0] == 't' ? "bot" : "person",
                                              "mu", strtod(PQgetvalue(r, i, 3), NULL), "sigma",
                                              strtod(PQgetvalue(r, i, 4), NULL), "ordinal", ordinal,
                                              "games", atoi(PQgetvalue(r, i, 6))));
        if (i == limit - 1 && rows > limit)
            board_cursor_text(first + i, ordinal, PQgetvalue(r, i, 0), next);
    }
    PQclear(r);
    const char *bv[] = {game};
    st = json_query(c, "best solo",
                    "SELECT coalesce(json_agg(json_build_object('name', b.name, 'score', b.score, "
                    "'id', b.id, 'finished_at', " UTC_TEXT(
                        "b.updated_at") ") ORDER BY b.score DESC, b.updated_at, b.id), '[]')::text "
                                        "FROM (SELECT a.name, s.score, g.id, g.updated_at FROM "
                                        "seats s JOIN games g ON g.id = s.game_id JOIN accounts a "
                                        "ON a.id = s.account_id WHERE g.game = $1 AND g.players = "
                                        "1 AND g.status = 'finished' AND NOT g.unlisted AND "
                                        "s.score IS NOT NULL ORDER BY s.score DESC, g.updated_at, "
                                        "g.id LIMIT 10) b",
                    1, bv, best);
    if (st != STORE_OK) {
        json_decref(list);
        return st;
    }
    *players = list;
    return STORE_OK;
}
