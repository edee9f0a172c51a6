/* test_store.c: the store's infrastructure against a real PostgreSQL (run under
 * scripts/with-postgres.sh): migrations apply once, in order, under a lock, and record
 * themselves; the transaction runner commits, rolls back and retries real serialization
 * failures and deadlocks; an unreachable database answers STORE_UNAVAILABLE at once; the
 * pool recovers when the server restarts, and counts a failover even behind a proxy; a seat's
 * sign of life commits without waiting for the disk. Each test
 * works in a database of its own. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <fnmatch.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "store.h"
#include "store_games.h"

TestSuite(store, .timeout = 90);

/*
** Helpers
*/

/* A fresh database (its URL in url) and a pool of `size` connections to it. */
static struct store *open_fresh(char *url, size_t n, int size)
{
    db_create(url, n);
    char err[256] = "";
    struct store *st = store_open(url, size, err, (int)sizeof err);
    cr_assert_not_null(st, "store_open(%s): %s", url, err);
    return st;
}

/* Runs `sql` on a connection of its own and returns the first column of the first row as a
 * number (-1 when there is no row). Fails the test when the query fails. */
static long query_long(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    cr_assert(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    cr_assert(PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", sql, PQresultErrorMessage(r));
    long v = PQntuples(r) > 0 && !PQgetisnull(r, 0, 0) ? atol(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    PQfinish(c);
    return v;
}

/* Runs a statement on a connection of its own; fails the test when it fails. */
static void exec_sql(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    cr_assert(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    ExecStatusType s = PQresultStatus(r);
    cr_assert(s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK, "%s: %s", sql,
              PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
}

/* The project's migrations directory. */
static const char *project_migrations(void)
{
    static char dir[1100];
    snprintf(dir, sizeof dir, "%s/migrations", harness_env("CITY_ROOT", "."));
    return dir;
}

/* open_fresh() with the project's migrations applied. */
static struct store *open_migrated(char *url, size_t n, int size)
{
    struct store *st = open_fresh(url, n, size);
    char err[256] = "";
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    return st;
}

/* Inserts playing games of The City with ids PREFIX || first..last (no seats). */
static void insert_playing(const char *url, const char *prefix, int first, int last)
{
    char sql[320];
    snprintf(sql, sizeof sql,
             "INSERT INTO games (id, game, status, players, host_hash, state) "
             "SELECT '%s' || i, 'the_city', 'playing', 2, '\\x00', '{}' "
             "FROM generate_series(%d, %d) i",
             prefix, first, last);
    exec_sql(url, sql);
}

/* How many migration files (NNNN_*.sql) the project has. */
static long project_migration_count(void)
{
    DIR *d = opendir(project_migrations());
    cr_assert_not_null(d, "cannot read %s", project_migrations());
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += fnmatch("[0-9][0-9][0-9][0-9]_*.sql", e->d_name, 0) == 0;
    closedir(d);
    return n;
}

/* A new empty directory for hand-written migrations, beside the cluster (so that
 * with-postgres.sh removes it even when a test fails first); remove it with rm_dir(). */
static void make_dir(char *dir, size_t n)
{
    snprintf(
        dir, n, "%s/migrations-XXXXXX",
        harness_env("CITY_TEST_LOGDIR", harness_cluster_dir() ? harness_cluster_dir() : "/tmp"));
    cr_assert_not_null(mkdtemp(dir));
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[1200];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

/* Runs one statement inside a body (through the store, as every body must) and maps its
 * result. */
static int body_exec(PGconn *conn, const char *sql, const char *what)
{
    const struct store_stmt q = {what, sql, 0, NULL, NULL, false};
    PGresult *r;
    int rc = store_query(conn, &q, &r);
    PQclear(r);
    return rc;
}

/*
** Migrations
*/

Test(store, migrations_apply_once_and_record_themselves)
{
    char url[512], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 2);
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    long files = project_migration_count();
    cr_assert_geq(files, 2);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM schema_migrations"), files);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM schema_migrations "
                                 "WHERE version = 1 AND name = '0001_init.sql' "
                                 "AND applied_at <= now()"),
                 1);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM games"), 0, "0001 made the games table");

    /* Again: nothing to do, nothing recorded twice, the data stays. */
    exec_sql(url, "INSERT INTO games (id, game, status, players, host_hash, state) "
                  "VALUES ('g1', 'the_city', 'open', 2, '\\x00', '{}')");
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM schema_migrations"), files);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM games"), 1);
    store_close(st);
    db_drop(url);
}

/* Copies the project's migrations numbered below `below` into the new directory dir. */
static void copy_migrations(char *dir, size_t n, int below)
{
    make_dir(dir, n);
    DIR *d = opendir(project_migrations());
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (fnmatch("[0-9][0-9][0-9][0-9]_*.sql", e->d_name, 0) != 0 || atoi(e->d_name) >= below)
            continue;
        char path[1500], text[16384];
        snprintf(path, sizeof path, "%s/%s", project_migrations(), e->d_name);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "cannot read %s", path);
        size_t len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = 0;
        write_file(dir, e->d_name, text);
    }
    closedir(d);
}

Test(store, games_stored_before_options_keep_their_game_and_target)
{
    char url[512], dir[1200], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    /* A database from before options were stored (0012): a game of The City that names no
     * game (0006 gave it its id by default) and keeps its target in a column of its own. */
    copy_migrations(dir, sizeof dir, 12);
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_OK, "%s", err);
    exec_sql(url, "INSERT INTO games (id, status, players, target_vp, host_hash, state) "
                  "VALUES ('old', 'finished', 2, 35, '\\x00', '{}')");
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM games WHERE id = 'old' AND game = "
                                 "'the_city' AND (options->>'target_vp')::int = 35"),
                 1, "the old game keeps its game and its target, now among its options");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM information_schema.columns WHERE "
                                 "table_name = 'games' AND ((column_name = 'target_vp' AND "
                                 "is_nullable = 'NO') OR (column_name = 'game' AND "
                                 "column_default IS NOT NULL))"),
                 0, "the table names no game and requires no game's option");
    /* A daemon of the release before, still running in a rolling upgrade, inserts as it did. */
    exec_sql(url, "INSERT INTO games (id, game, status, players, target_vp, turn_seconds, "
                  "host_hash, state, unlisted, bot_level, options) VALUES ('older', 'the_city', "
                  "'open', 2, 50, 60, '\\x00', '{}', false, 'normal', '{\"target_vp\": 50}')");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM games WHERE id = 'older'"), 1,
                 "the older daemon's insert still works");
    store_close(st);
    rm_dir(dir);
    db_drop(url);
}

Test(store, the_accounts_migration_keeps_every_game_and_its_seats_anonymous)
{
    char url[512], dir[1200], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    /* A database of the release before accounts (0016), with a running game and its seats. */
    copy_migrations(dir, sizeof dir, 17);
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_OK, "%s", err);
    exec_sql(url, "INSERT INTO games (id, game, status, players, host_hash, state) "
                  "VALUES ('pre', 'the_city', 'playing', 2, '\\x00', '{}')");
    exec_sql(url, "INSERT INTO seats (game_id, seat, name, bot, token_hash) VALUES "
                  "('pre', 0, 'Ada', NULL, '\\x0102'), ('pre', 1, 'Bot 2 (greedy)', 'greedy', "
                  "NULL)");
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM seats WHERE game_id = 'pre' AND "
                                 "account_id IS NULL AND ((seat = 0 AND name = 'Ada' AND "
                                 "token_hash = '\\x0102') OR (seat = 1 AND bot = 'greedy'))"),
                 2, "the seats keep their names and tokens, and belong to no account");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM games WHERE id = 'pre' AND status = "
                                 "'playing'"),
                 1);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM accounts"), 0);
    /* A daemon of the release before, still running in a rolling upgrade, seats as it did. */
    exec_sql(url, "UPDATE seats SET name = 'Bob', token_hash = '\\x0304', joined_at = now() "
                  "WHERE game_id = 'pre' AND seat = 1");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM seats WHERE name = 'Bob'"), 1);
    store_close(st);
    rm_dir(dir);
    db_drop(url);
}

/* Runs `sql` on a connection of its own and returns the first column of its first row (an
 * empty string when NULL), which the caller frees. */
static char *query_text(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    cr_assert(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    cr_assert(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1, "%s: %s", sql,
              PQresultErrorMessage(r));
    char *v = strdup(PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(c);
    return v;
}

/* What read_events() reads: the events of game "ev" after `after`, at most `limit`, through
 * store_events_after() (page false) or store_events_page() (page true). */
struct events_read {
    long long after;
    int limit;
    bool page;
    json_t *events;
    long long last_seq;
};

static int read_events(PGconn *c, void *ctx)
{
    struct events_read *e = ctx;
    return e->page ? store_events_page(c, "ev", e->after, e->limit, &e->events, &e->last_seq)
                   : store_events_after(c, "ev", e->after, e->limit, &e->events);
}

/* The seq numbers of a JSON array of events, as "1,2,3". */
static void seqs_of(const json_t *events, char *out, size_t n)
{
    out[0] = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev)
    {
        snprintf(out + strlen(out), n - strlen(out), "%s%lld", i ? "," : "",
                 (long long)json_integer_value(json_object_get(ev, "seq")));
    }
}

Test(store, the_event_log_keeps_its_events_in_batches_and_reads_them_as_before)
{
    char url[512], dir[1200], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    /* A log of one row per event (before 0023), as the readers showed it then. */
    copy_migrations(dir, sizeof dir, 23);
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_OK, "%s", err);
    exec_sql(url, "INSERT INTO games (id, game, status, players, host_hash, state, last_seq) "
                  "VALUES ('ev', 'the_city', 'playing', 2, '\\x00', '{}', 7)");
    exec_sql(url, "INSERT INTO events (game_id, seq, type, data) VALUES ('ev', 1, 'started', "
                  "'{\"seats\": 2}'), ('ev', 2, 'step', '{}'), ('ev', 3, 'joined', '{\"seat\": "
                  "1, \"name\": \"Ada\"}')");
    char *before = query_text(url, "SELECT json_agg((jsonb_build_object('seq', seq, 'type', "
                                   "type) || data) ORDER BY seq)::text FROM events");
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    /* Then a save's batch of four. */
    exec_sql(url, "INSERT INTO event_batches (game_id, first_seq, last_seq, body) VALUES ('ev', "
                  "4, 7, '[{\"type\": \"step\", \"data\": {\"round\": 1}}, {\"type\": "
                  "\"default\", \"data\": {\"seat\": 0, \"by\": \"timer\"}}, {\"type\": "
                  "\"built\"}, {\"type\": \"step\", \"data\": {\"round\": 2}}]')");
    struct events_read all = {.after = 0, .limit = 100};
    cr_assert_eq(store_run(st, read_events, &all), STORE_OK);
    char seqs[128];
    seqs_of(all.events, seqs, sizeof seqs);
    cr_expect_str_eq(seqs, "1,2,3,4,5,6,7");
    json_t *old = json_loads(before, 0, NULL), *migrated = json_array();
    for (size_t i = 0; i < 3; i++)
        json_array_append(migrated, json_array_get(all.events, i));
    cr_expect(json_equal(old, migrated), "the migrated events read as before: %s", before);
    char *built = json_dumps(json_array_get(all.events, 5), JSON_COMPACT | JSON_SORT_KEYS);
    cr_expect_str_eq(built, "{\"seq\":6,\"type\":\"built\"}", "an event without data");
    free(built);
    /* The limit counts events across batches. */
    struct events_read mid = {.after = 2, .limit = 3};
    cr_assert_eq(store_run(st, read_events, &mid), STORE_OK);
    seqs_of(mid.events, seqs, sizeof seqs);
    cr_expect_str_eq(seqs, "3,4,5");
    struct events_read page = {.after = 4, .limit = 2, .page = true};
    cr_assert_eq(store_run(st, read_events, &page), STORE_OK);
    seqs_of(page.events, seqs, sizeof seqs);
    cr_expect_str_eq(seqs, "5,6");
    cr_expect_eq(page.last_seq, 7);
    struct events_read none = {.after = 7, .limit = 5, .page = true};
    cr_assert_eq(store_run(st, read_events, &none), STORE_OK);
    cr_expect_eq(json_array_size(none.events), 0);
    /* The view shows the log one event a row. */
    cr_expect_eq(query_long(url, "SELECT count(*) FROM events WHERE game_id = 'ev' AND type = "
                                 "'step' AND seq IN (2, 4, 7)"),
                 3);
    /* An instance of the release before, still running during an upgrade, appends and renames
     * as it did, and what it wrote reads as the rest. */
    exec_sql(url, "WITH ev AS (INSERT INTO events (game_id, seq, type, data) SELECT 'ev', 8, "
                  "'left', '{\"seat\": 1}'::jsonb) UPDATE games SET last_seq = 8 WHERE id = 'ev'");
    exec_sql(url, "WITH s AS (SELECT 'ev'::text AS game_id, 1 AS seat) UPDATE events ev SET data "
                  "= jsonb_set(ev.data, '{name}', to_jsonb('(deleted)'::text)) FROM s WHERE "
                  "ev.game_id = s.game_id AND ev.data ? 'name' AND ev.data->>'seat' = "
                  "s.seat::text");
    struct events_read later = {.after = 2, .limit = 10};
    cr_assert_eq(store_run(st, read_events, &later), STORE_OK);
    seqs_of(later.events, seqs, sizeof seqs);
    cr_expect_str_eq(seqs, "3,4,5,6,7,8");
    char *renamed = json_dumps(json_array_get(later.events, 0), JSON_COMPACT | JSON_SORT_KEYS);
    cr_expect_str_eq(renamed, "{\"name\":\"(deleted)\",\"seat\":1,\"seq\":3,\"type\":\"joined\"}");
    free(renamed);
    char *left = json_dumps(json_array_get(later.events, 5), JSON_COMPACT | JSON_SORT_KEYS);
    cr_expect_str_eq(left, "{\"seat\":1,\"seq\":8,\"type\":\"left\"}");
    free(left);
    json_decref(later.events);
    json_decref(old);
    json_decref(migrated);
    json_decref(all.events);
    json_decref(mid.events);
    json_decref(page.events);
    json_decref(none.events);
    free(before);
    store_close(st);
    rm_dir(dir);
    db_drop(url);
}

/* What read_decisions() reads of game "dc": its replay log, and seat 0's and seat 1's notice of
 * a default. */
struct decisions_read {
    json_t *all, *last[2];
    int last_st[2];
};

static int read_decisions(PGconn *c, void *ctx)
{
    struct decisions_read *d = ctx;
    for (int s = 0; s < 2; s++)
        d->last_st[s] = store_last_default(c, "dc", s, &d->last[s]);
    return store_decisions_read(c, "dc", &d->all);
}

Test(store, the_replay_log_keeps_its_decisions_in_batches_and_reads_them_as_before)
{
    char url[512], dir[1200], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    /* A log of one row per decision (before 0025), as the replay showed it then. */
    copy_migrations(dir, sizeof dir, 25);
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_OK, "%s", err);
    exec_sql(url, "INSERT INTO games (id, game, status, players, host_hash, state, ndecisions) "
                  "VALUES ('dc', 'the_city', 'playing', 2, '\\x00', '{}', 5)");
    exec_sql(url, "INSERT INTO decisions (game_id, n, seat, round, step, body, is_default, turn) "
                  "VALUES ('dc', 0, 0, 0, 'keep', '{\"step\": \"keep\", \"discard\": [1]}', false, "
                  "0), ('dc', 1, 1, 0, 'keep', '{\"step\": \"keep\", \"discard\": [2]}', true, 0), "
                  "('dc', 2, 0, 1, 'build', '{\"step\": \"build\", \"pass\": true}', true, 3)");
    char *before = query_text(url, "SELECT json_agg((jsonb_build_object('seat', seat) || body || "
                                   "CASE WHEN is_default THEN '{\"default\": true}'::jsonb ELSE "
                                   "'{}'::jsonb END) ORDER BY n)::text FROM decisions");
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    /* Then a save's batch of two: seat 1 decides for itself, seat 0 gets a default. */
    exec_sql(url, "INSERT INTO decision_batches (game_id, first_n, last_n, body) VALUES ('dc', 3, "
                  "4, '[{\"seat\": 0, \"round\": 1, \"step\": \"build\", \"turn\": 0, \"body\": "
                  "{\"step\": \"build\", \"build\": 7}, \"is_default\": true}, {\"seat\": 1, "
                  "\"round\": 1, \"step\": \"build\", \"turn\": 0, \"body\": {\"step\": "
                  "\"build\", \"pass\": true}, \"is_default\": false}]')");
    struct decisions_read d = {0};
    cr_assert_eq(store_run(st, read_decisions, &d), STORE_OK);
    cr_assert_eq(json_array_size(d.all), 5);
    json_t *old = json_loads(before, 0, NULL), *migrated = json_array();
    for (size_t i = 0; i < 3; i++)
        json_array_append(migrated, json_array_get(d.all, i));
    cr_expect(json_equal(old, migrated), "the migrated decisions read as before: %s", before);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(d.all, 3), "build")), 7);
    cr_expect(json_is_true(json_object_get(json_array_get(d.all, 3), "default")));
    /* Seat 0's last decision is the batch's default; seat 1's last is its own. */
    cr_assert_eq(d.last_st[0], STORE_OK);
    cr_expect_eq(json_integer_value(json_object_get(d.last[0], "round")), 1);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(d.last[0], "chosen"), "build")),
                 7);
    cr_expect_str_eq(json_string_value(json_object_get(d.last[0], "by")), "timer");
    cr_expect_eq(d.last_st[1], STORE_NO_ROW);
    cr_expect_eq(query_long(url, "SELECT count(*) FROM decisions WHERE game_id = 'dc' AND "
                                 "is_default AND turn = 3 AND n = 2"),
                 1, "the view shows the log one decision a row");
    /* An instance of the release before, still running during an upgrade, appends as it did. */
    exec_sql(url, "INSERT INTO decisions (game_id, n, seat, round, step, body, is_default, turn) "
                  "VALUES ('dc', 5, 1, 2, 'keep', '{\"step\": \"keep\", \"discard\": [9]}', "
                  "true, 0)");
    cr_expect_eq(query_long(url, "SELECT ndefaults FROM games WHERE id = 'dc'"), 3,
                 "the game counts the defaults migrated and the one the older instance added");
    struct decisions_read after = {0};
    cr_assert_eq(store_run(st, read_decisions, &after), STORE_OK);
    cr_assert_eq(json_array_size(after.all), 6);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(after.all, 5), "seat")), 1);
    cr_assert_eq(after.last_st[1], STORE_OK, "seat 1's last decision is now a default");
    cr_expect_eq(json_integer_value(json_object_get(after.last[1], "round")), 2);
    json_decref(after.all);
    json_decref(after.last[0]);
    json_decref(after.last[1]);
    json_decref(old);
    json_decref(migrated);
    json_decref(d.all);
    json_decref(d.last[0]);
    free(before);
    store_close(st);
    rm_dir(dir);
    db_drop(url);
}

Test(store, deleting_a_game_deletes_its_events_decisions_and_orders)
{
    char url[512], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    for (int g = 0; g < 3; g++) {
        char sql[1024];
        snprintf(
            sql, sizeof sql,
            "INSERT INTO games (id, game, status, players, host_hash, state) VALUES ('g%d', "
            "'the_city', 'finished', 2, '\\x00', '{}'); INSERT INTO event_batches (game_id, "
            "first_seq, last_seq, body) VALUES ('g%d', 1, 2, '[{\"type\": \"a\"}, "
            "{\"type\": \"b\"}]'); INSERT INTO decision_batches (game_id, first_n, "
            "last_n, body) VALUES ('g%d', 0, 0, '[{\"seat\": 0}]'); INSERT INTO orders (game_id, "
            "round, step, seat, body) VALUES ('g%d', 0, 'keep', 0, '{}')",
            g, g, g, g);
        exec_sql(url, sql);
    }
    exec_sql(url, "DELETE FROM games WHERE id IN ('g0', 'g2')");
    cr_expect_eq(query_long(url, "SELECT (SELECT count(*) FROM event_batches) + (SELECT count(*) "
                                 "FROM decision_batches) + (SELECT count(*) FROM orders)"),
                 3, "only g1's rows are left");
    cr_expect_eq(query_long(url, "SELECT count(*) FROM events WHERE game_id = 'g1'"), 2);
    store_close(st);
    db_drop(url);
}

Test(store, the_ratings_migration_keeps_every_game_seat_and_account)
{
    char url[512], dir[1200], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    /* A database of the release before ratings (0017): an account, its session, a finished game
     * it sat in and a running anonymous one. */
    copy_migrations(dir, sizeof dir, 18);
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_OK, "%s", err);
    exec_sql(url, "INSERT INTO accounts (name, name_key, pw_hash) VALUES ('Ada', 'ada', 'h')");
    exec_sql(url, "INSERT INTO sessions (token_hash, account_id, expires_at) SELECT '\\x01', "
                  "id, now() + interval '1 day' FROM accounts");
    exec_sql(url, "INSERT INTO games (id, game, status, players, host_hash, state) VALUES "
                  "('done', 'the_city', 'finished', 2, '\\x00', '{}'), ('run', 'tech_city', "
                  "'playing', 2, '\\x00', '{}')");
    exec_sql(url,
             "INSERT INTO seats (game_id, seat, name, bot, token_hash, account_id) SELECT "
             "'done', 0, 'Ada', NULL, NULL::bytea, id FROM accounts UNION ALL SELECT 'done', 1, "
             "'Bot 2 (greedy)', 'greedy', NULL, NULL UNION ALL SELECT 'run', 0, 'Bo', NULL, "
             "'\\x0102'::bytea, NULL");
    long long before = query_long(url, "SELECT count(*) FROM games") * 1000 +
                       query_long(url, "SELECT count(*) FROM seats") * 100 +
                       query_long(url, "SELECT count(*) FROM accounts") * 10 +
                       query_long(url, "SELECT count(*) FROM sessions");
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    long long after = query_long(url, "SELECT count(*) FROM games") * 1000 +
                      query_long(url, "SELECT count(*) FROM seats") * 100 +
                      query_long(url, "SELECT count(*) FROM accounts") * 10 +
                      query_long(url, "SELECT count(*) FROM sessions");
    cr_assert_eq(after, before, "every game, seat, account and session is kept");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM seats s JOIN accounts a ON a.id = "
                                 "s.account_id WHERE s.game_id = 'done' AND s.name = 'Ada' AND "
                                 "s.place IS NULL"),
                 1, "the account keeps its seat; a game finished before keeps no place");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM games WHERE NOT rated AND ratings IS "
                                 "NULL AND status IN ('finished', 'playing')"),
                 2, "every existing game is unrated");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM ratings"), 0);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM rated_results"), 0);
    /* A daemon of the release before, still running in a rolling upgrade, inserts as it did. */
    exec_sql(url, "INSERT INTO games (id, game, status, players, host_hash, state, unlisted, "
                  "bot_level, options) VALUES ('older', 'the_city', 'open', 2, '\\x00', '{}', "
                  "false, 'normal', '{}')");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM games WHERE id = 'older' AND NOT rated"), 1);
    store_close(st);
    rm_dir(dir);
    db_drop(url);
}

Test(store, migrations_run_in_name_order_and_ignore_other_files)
{
    char url[512], dir[1200], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    make_dir(dir, sizeof dir);
    write_file(dir, "0002_b.sql", "INSERT INTO seen (name) VALUES ('b');");
    write_file(dir, "0001_a.sql",
               "-- the first\nCREATE TABLE seen (n serial, name text);\n"
               "INSERT INTO seen (name) VALUES ('a');");
    write_file(dir, "0010_c.sql", "INSERT INTO seen (name) VALUES ('c');");
    write_file(dir, "0011_comments_only.sql", "-- nothing to do yet\n");
    write_file(dir, "README.md", "not SQL");
    write_file(dir, "12_short.sql", "SELECT broken syntax here");
    write_file(dir, "0003_x.sql.bak", "SELECT broken syntax here");
    write_file(dir, ".0004_hidden.sql", "SELECT broken syntax here");
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_OK, "%s", err);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM seen"), 3);
    cr_assert_eq(query_long(url, "SELECT n FROM seen WHERE name = 'a'"), 1);
    cr_assert_eq(query_long(url, "SELECT n FROM seen WHERE name = 'b'"), 2);
    cr_assert_eq(query_long(url, "SELECT n FROM seen WHERE name = 'c'"), 3);
    cr_assert_eq(query_long(url, "SELECT CASE WHEN string_agg(version::text, ',' ORDER BY "
                                 "version) = '1,2,10,11' THEN 1 ELSE 0 END FROM schema_migrations"),
                 1, "versions 1, 2, 10 and 11 are recorded");
    store_close(st);
    rm_dir(dir);
    db_drop(url);
}

Test(store, a_failing_migration_rolls_back_is_not_recorded_and_releases_the_lock)
{
    char url[512], dir[1200], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    make_dir(dir, sizeof dir);
    write_file(dir, "0001_a.sql", "CREATE TABLE a (x int);");
    write_file(dir, "0002_bad.sql", "CREATE TABLE b (x int);\nSELECT no_such_function();");
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_HARD);
    cr_assert(strstr(err, "0002_bad.sql"), "the error names the file: %s", err);
    cr_assert(strstr(err, "no_such_function"), "the error says what failed: %s", err);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM schema_migrations"), 1);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM pg_tables WHERE tablename = 'b'"), 0,
                 "the failed migration left nothing behind");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                                 "AND database = (SELECT oid FROM pg_database "
                                 "WHERE datname = current_database())"),
                 0, "the migration lock was released");

    /* Fixed, it applies; the pooled connection is still usable. */
    write_file(dir, "0002_bad.sql", "CREATE TABLE b (x int);");
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_OK, "%s", err);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM schema_migrations"), 2);
    cr_assert(store_ping(st));
    store_close(st);
    rm_dir(dir);
    db_drop(url);
}

Test(store, migrations_refuse_a_missing_directory_and_duplicate_numbers)
{
    char url[512], dir[1200], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 1);
    cr_assert_eq(store_migrate(st, "/nonexistent/migrations", err, (int)sizeof err), STORE_HARD);
    cr_assert(strstr(err, "/nonexistent/migrations"), "%s", err);
    make_dir(dir, sizeof dir);
    write_file(dir, "0001_a.sql", "CREATE TABLE a (x int);");
    write_file(dir, "0001_b.sql", "CREATE TABLE b (x int);");
    cr_assert_eq(store_migrate(st, dir, err, (int)sizeof err), STORE_HARD);
    cr_assert(strstr(err, "0001_a.sql") && strstr(err, "0001_b.sql"), "%s", err);
    store_close(st);
    rm_dir(dir);
    db_drop(url);
}

struct migrate_job {
    const char *url, *dir;
    pthread_barrier_t *go;
    int rc;
    char err[512];
};

static void *migrate_thread(void *arg)
{
    struct migrate_job *j = arg;
    char err[256] = "";
    struct store *st = store_open(j->url, 1, err, (int)sizeof err);
    if (!st) {
        j->rc = -1;
        snprintf(j->err, sizeof j->err, "%s", err);
        return NULL;
    }
    store_ping(st); /* connect first, so that both reach the lock at the same moment */
    pthread_barrier_wait(j->go);
    j->rc = store_migrate(st, j->dir, j->err, (int)sizeof j->err);
    store_close(st);
    return NULL;
}

Test(store, two_instances_migrating_at_once_both_succeed_and_apply_each_file_once)
{
    char url[512], dir[1200];
    db_create(url, sizeof url);
    make_dir(dir, sizeof dir);
    /* A slow first file widens the window in which the second instance must wait. */
    write_file(dir, "0001_slow.sql",
               "CREATE TABLE applied (name text);\n"
               "INSERT INTO applied VALUES ('0001');\n"
               "SELECT pg_sleep(0.5);");
    write_file(dir, "0002_more.sql", "INSERT INTO applied VALUES ('0002');");
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 2);
    struct migrate_job jobs[2] = {{.url = url, .dir = dir, .go = &go},
                                  {.url = url, .dir = dir, .go = &go}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, migrate_thread, &jobs[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(jobs[i].rc, STORE_OK, "instance %d: %s", i, jobs[i].err);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM applied"), 2);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM applied WHERE name = '0001'"), 1);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM schema_migrations"), 2);
    rm_dir(dir);
    db_drop(url);
}

/*
** Transactions
*/

/* Queues an insert (store_command): inside a transaction it travels with COMMIT. */
static int insert_row(PGconn *conn, void *ctx)
{
    const char *vals[1] = {ctx};
    const struct store_stmt q = {"insert t", "INSERT INTO t (name) VALUES ($1)", 1, vals, NULL,
                                 false};
    return store_command(conn, &q);
}

static int insert_then_abort(PGconn *conn, void *ctx)
{
    int rc = insert_row(conn, ctx);
    return rc == STORE_OK ? STORE_ABORT : rc;
}

Test(store, tx_commits_what_the_body_did)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 2);
    exec_sql(url, "CREATE TABLE t (name text)");
    cr_assert_eq(store_tx(st, insert_row, "one", 3), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t WHERE name = 'one'"), 1);
    store_close(st);
    db_drop(url);
}

Test(store, tx_rolls_back_when_the_body_aborts)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 1);
    exec_sql(url, "CREATE TABLE t (name text)");
    cr_assert_eq(store_tx(st, insert_then_abort, "gone", 3), STORE_ABORT);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 0);
    /* The connection went back to the pool clean. */
    cr_assert_eq(store_tx(st, insert_row, "kept", 3), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 1);
    store_close(st);
    db_drop(url);
}

struct flaky {
    int calls, fail_first;
};

/* Inserts a row, then asks for a retry on its first `fail_first` calls. */
static int flaky_body(PGconn *conn, void *ctx)
{
    struct flaky *f = ctx;
    f->calls++;
    int rc = insert_row(conn, "try");
    if (rc != STORE_OK)
        return rc;
    return f->calls <= f->fail_first ? STORE_RETRY : STORE_OK;
}

Test(store, tx_reruns_a_body_that_asks_for_a_retry_and_keeps_only_the_last_run)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 1);
    exec_sql(url, "CREATE TABLE t (name text)");
    struct flaky f = {.fail_first = 2};
    cr_assert_eq(store_tx(st, flaky_body, &f, 5), STORE_OK);
    cr_assert_eq(f.calls, 3);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 1);

    /* Out of attempts: the retry status comes back and nothing is saved. */
    struct flaky g = {.fail_first = 100};
    cr_assert_eq(store_tx(st, flaky_body, &g, 4), STORE_RETRY);
    cr_assert_eq(g.calls, 4);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 1);
    store_close(st);
    db_drop(url);
}

/* Two threads each run a body once through store_tx; the bodies meet at a barrier on their
 * first run only, so that they conflict once and then succeed when re-run. */
struct conflict {
    struct store *st;
    pthread_barrier_t *meet;
    int who, calls, rc;
};

/* Serializable read-then-update of the same row: the second writer fails with 40001. */
static int serializable_increment(PGconn *conn, void *ctx)
{
    struct conflict *c = ctx;
    c->calls++;
    int rc = body_exec(conn, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", "isolation");
    if (rc == STORE_OK)
        rc = body_exec(conn, "SELECT n FROM counter WHERE id = 1", "read counter");
    if (rc != STORE_OK)
        return rc;
    if (c->calls == 1)
        pthread_barrier_wait(c->meet); /* both have read: their snapshots overlap */
    return body_exec(conn, "UPDATE counter SET n = n + 1 WHERE id = 1", "update counter");
}

/* Updates row 1 then 2, or 2 then 1: the first time, they deadlock. */
static int crossed_updates(PGconn *conn, void *ctx)
{
    struct conflict *c = ctx;
    c->calls++;
    const char *first = c->who == 0 ? "UPDATE counter SET n = n + 1 WHERE id = 1"
                                    : "UPDATE counter SET n = n + 1 WHERE id = 2";
    const char *second = c->who == 0 ? "UPDATE counter SET n = n + 1 WHERE id = 2"
                                     : "UPDATE counter SET n = n + 1 WHERE id = 1";
    int rc = body_exec(conn, first, "first update");
    if (rc != STORE_OK)
        return rc;
    if (c->calls == 1)
        pthread_barrier_wait(c->meet); /* each holds its first row */
    return body_exec(conn, second, "second update");
}

static store_tx_fn conflict_body;

static void *conflict_thread(void *arg)
{
    struct conflict *c = arg;
    c->rc = store_tx(c->st, conflict_body, c, 5);
    return NULL;
}

/* Runs `body` in two threads at once and checks that both succeed after a retry. */
static void run_conflict(const char *url, store_tx_fn body)
{
    char err[256];
    struct store *st = store_open(url, 2, err, (int)sizeof err);
    cr_assert_not_null(st, "%s", err);
    exec_sql(url, "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL);"
                  "INSERT INTO counter VALUES (1, 0), (2, 0)");
    pthread_barrier_t meet;
    pthread_barrier_init(&meet, NULL, 2);
    conflict_body = body;
    struct conflict c[2] = {{.st = st, .meet = &meet, .who = 0},
                            {.st = st, .meet = &meet, .who = 1}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, conflict_thread, &c[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&meet);
    cr_assert_eq(c[0].rc, STORE_OK);
    cr_assert_eq(c[1].rc, STORE_OK);
    /* At least one body was re-run; a re-run may meet the other again (CI once: 1 + 3). */
    cr_assert_geq(c[0].calls + c[1].calls, 3, "a body was re-run (calls %d + %d)", c[0].calls,
                  c[1].calls);
    store_close(st);
}

Test(store, tx_retries_a_real_serialization_failure_to_success)
{
    char url[512];
    db_create(url, sizeof url);
    run_conflict(url, serializable_increment);
    cr_assert_eq(query_long(url, "SELECT n FROM counter WHERE id = 1"), 2, "both increments");
    db_drop(url);
}

Test(store, tx_retries_a_real_deadlock_to_success)
{
    char url[512];
    db_create(url, sizeof url);
    run_conflict(url, crossed_updates);
    cr_assert_eq(query_long(url, "SELECT n FROM counter WHERE id = 1"), 2);
    cr_assert_eq(query_long(url, "SELECT n FROM counter WHERE id = 2"), 2);
    db_drop(url);
}

static int bad_sql(PGconn *conn, void *ctx)
{
    return body_exec(conn, ctx, "bad sql");
}

/* Runs a failing statement, ignores the failure and says OK. */
static int swallow_error(PGconn *conn, void *ctx)
{
    (void)ctx;
    (void)body_exec(conn, "SELECT * FROM no_such_table", "missing table");
    (void)insert_row(conn, "after an error");
    return STORE_OK;
}

Test(store, errors_that_are_not_transient_are_hard)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 1);
    exec_sql(url, "CREATE TABLE t (name text); CREATE TABLE u (k int PRIMARY KEY);"
                  "INSERT INTO u VALUES (1)");
    cr_assert_eq(store_tx(st, bad_sql, "SELECT * FROM no_such_table", 5), STORE_HARD);
    cr_assert_eq(store_tx(st, bad_sql, "INSERT INTO u VALUES (1)", 5), STORE_HARD);
    cr_assert_eq(store_run(st, bad_sql, "SELEC 1"), STORE_HARD);
    /* A body that swallows an error and says OK commits nothing and is told so. */
    cr_assert_eq(store_tx(st, swallow_error, NULL, 5), STORE_HARD);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 0);
    /* The pool still works. */
    cr_assert_eq(store_tx(st, insert_row, "fine", 5), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 1);
    store_close(st);
    db_drop(url);
}

Test(store, status_of_maps_results)
{
    char url[512];
    db_create(url, sizeof url);
    PGconn *c = PQconnectdb(url);
    cr_assert(PQstatus(c) == CONNECTION_OK);
    PGresult *r = PQexec(c, "SELECT 1");
    cr_assert_eq(store_status_of(c, r, "select"), STORE_OK);
    PQclear(r);
    r = PQexec(c, "CREATE TABLE x (k int)");
    cr_assert_eq(store_status_of(c, r, "create"), STORE_OK);
    PQclear(r);
    r = PQexec(c, "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END $$");
    cr_assert_eq(store_status_of(c, r, "serialization"), STORE_RETRY);
    PQclear(r);
    r = PQexec(c, "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40P01'; END $$");
    cr_assert_eq(store_status_of(c, r, "deadlock"), STORE_RETRY);
    PQclear(r);
    r = PQexec(c, "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '57P03'; END $$");
    cr_assert_eq(store_status_of(c, r, "cannot connect now"), STORE_UNAVAILABLE);
    PQclear(r);
    r = PQexec(c, "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '23505'; END $$");
    cr_assert_eq(store_status_of(c, r, "unique"), STORE_HARD);
    PQclear(r);
    /* A connection the server closed. */
    r = PQexec(c, "SELECT pg_terminate_backend(pg_backend_pid())");
    cr_assert_eq(store_status_of(c, r, "terminated"), STORE_UNAVAILABLE);
    PQclear(r);
    cr_assert_eq(store_status_of(c, NULL, "no result"), STORE_UNAVAILABLE);
    PQfinish(c);
    db_drop(url);
}

static int check_no_transaction(PGconn *conn, void *ctx)
{
    (void)ctx;
    return PQtransactionStatus(conn) == PQTRANS_IDLE ? STORE_OK : STORE_HARD;
}

/* Opens a transaction and leaves it open (a bug the pool must survive). */
static int leave_tx_open(PGconn *conn, void *ctx)
{
    int rc = body_exec(conn, "BEGIN", "begin");
    return rc == STORE_OK ? insert_row(conn, ctx) : rc;
}

Test(store, run_works_outside_a_transaction_and_cleans_up_after_its_body)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 1);
    exec_sql(url, "CREATE TABLE t (name text)");
    cr_assert_eq(store_run(st, check_no_transaction, NULL), STORE_OK);
    cr_assert_eq(store_run(st, insert_row, "autocommit"), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 1);
    cr_assert_eq(store_run(st, leave_tx_open, "never committed"), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 1);
    cr_assert_eq(store_run(st, check_no_transaction, NULL), STORE_OK);
    cr_assert_eq(store_tx(st, insert_row, "next", 3), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 2);
    store_close(st);
    db_drop(url);
}

/* Increments the counter under a row lock, as the service does with a game. */
static int locked_increment(PGconn *conn, void *ctx)
{
    (void)ctx;
    int rc = body_exec(conn, "SELECT n FROM counter WHERE id = 1 FOR UPDATE", "lock");
    return rc == STORE_OK ? body_exec(conn, "UPDATE counter SET n = n + 1 WHERE id = 1", "inc")
                          : rc;
}

struct hammer {
    struct store *st;
    int failures;
};

static void *hammer_thread(void *arg)
{
    struct hammer *h = arg;
    for (int i = 0; i < 25; i++)
        h->failures += store_tx(h->st, locked_increment, NULL, 5) != STORE_OK;
    h->failures += !store_ping(h->st);
    return NULL;
}

Test(store, many_threads_share_a_small_pool)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 2);
    exec_sql(url, "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL);"
                  "INSERT INTO counter VALUES (1, 0)");
    enum { THREADS = 8 };
    struct hammer h[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        h[i] = (struct hammer){.st = st};
        pthread_create(&t[i], NULL, hammer_thread, &h[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(h[i].failures, 0, "thread %d failed %d times", i, h[i].failures);
    }
    cr_assert_eq(query_long(url, "SELECT n FROM counter WHERE id = 1"), THREADS * 25);
    char q[512];
    snprintf(q, sizeof q,
             "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
             "AND application_name = 'cityd'");
    cr_assert_leq(query_long(url, q), 2, "the pool never opens more than its size");
    store_close(st);
    db_drop(url);
}

/*
** Availability
*/

Test(store, a_closed_port_is_unavailable_at_once)
{
    char url[128], err[256] = "";
    snprintf(url, sizeof url, "postgresql://postgres@127.0.0.1:%d/postgres", harness_free_port());
    struct store *st = store_open(url, 2, err, (int)sizeof err);
    cr_assert_not_null(st, "a pool opens while the database is down: %s", err);
    double t0 = harness_now();
    struct flaky f = {0};
    cr_assert_eq(store_tx(st, flaky_body, &f, 5), STORE_UNAVAILABLE);
    cr_assert_eq(f.calls, 0, "the body never ran");
    cr_assert_eq(store_run(st, flaky_body, &f), STORE_UNAVAILABLE);
    cr_assert_not(store_ping(st));
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_UNAVAILABLE);
    cr_assert(harness_now() - t0 < 3.0, "took %.1f s", harness_now() - t0);
    store_close(st);
}

Test(store, a_malformed_conninfo_is_refused_at_open)
{
    char err[256] = "";
    cr_assert_null(store_open("postgresql://[::1", 2, err, (int)sizeof err));
    cr_assert(err[0], "with a sentence");
    err[0] = 0;
    cr_assert_null(store_open("host=localhost no_such_option=1", 2, err, (int)sizeof err));
    cr_assert(strstr(err, "no_such_option"), "%s", err);
    cr_assert_null(store_open("host=localhost", 0, err, (int)sizeof err));
}

/* Has the server end the pool's one connection (in url's database), then runs a transaction
 * on the pool (table t), which must succeed on a new connection. */
static void kill_then_insert(struct store *st, const char *url)
{
    long killed = query_long(url, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                  "WHERE datname = current_database() "
                                  "AND application_name = 'cityd'");
    cr_assert_eq(killed, 1);
    /* Until the backend has gone: one that ends only while the transaction below commits makes
     * its outcome unknown (a loaded machine, once in CI's sanitizer pass), which is not the case
     * tested here. */
    long left = 1;
    for (int i = 0; i < 100 && left > 0; i++) {
        harness_sleep_ms(20);
        left = query_long(url, "SELECT count(*) FROM pg_stat_activity "
                               "WHERE datname = current_database() AND application_name = 'cityd'");
    }
    cr_assert_eq(left, 0, "the killed backend is gone within two seconds");
    cr_assert_eq(store_tx(st, insert_row, "after", 3), STORE_OK);
}

Test(store, a_connection_the_server_killed_is_replaced_without_an_error)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 1);
    exec_sql(url, "CREATE TABLE t (name text)");
    cr_assert(store_ping(st));
    kill_then_insert(st, url);
    store_close(st);
    db_drop(url);
}

/* Waits up to `seconds` for store_ping to answer true; the time it took, or -1. */
static double wait_for_ping(struct store *st, double seconds)
{
    double t0 = harness_now();
    while (harness_now() - t0 < seconds) {
        if (store_ping(st))
            return harness_now() - t0;
        harness_sleep_ms(100);
    }
    return -1;
}

Test(store, the_pool_recovers_after_the_server_restarts)
{
    char url[512], err[512] = "";
    struct store *st = open_fresh(url, sizeof url, 3);
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    exec_sql(url, "CREATE TABLE t (name text)");
    cr_assert(store_ping(st));
    cr_assert_eq(store_tx(st, insert_row, "before", 3), STORE_OK);
    pg_restart();
    double took = wait_for_ping(st, 10);
    cr_assert(took >= 0, "store_ping is still false 10 s after the restart");
    cr_assert_eq(store_tx(st, insert_row, "after", 3), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 2);
    store_close(st);
    db_drop(url);
}

Test(store, the_pool_is_unavailable_while_the_server_is_down_then_recovers)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 2);
    exec_sql(url, "CREATE TABLE t (name text)");
    cr_assert(store_ping(st));
    pg_stop_now();
    double t0 = harness_now();
    cr_assert_eq(store_tx(st, insert_row, "while down", 3), STORE_UNAVAILABLE);
    cr_assert_not(store_ping(st));
    cr_assert(harness_now() - t0 < 5.0, "took %.1f s", harness_now() - t0);
    pg_start_again();
    cr_assert(wait_for_ping(st, 10) >= 0, "store_ping is still false 10 s after the start");
    cr_assert_eq(store_tx(st, insert_row, "after", 3), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 1);
    store_close(st);
    db_drop(url);
}

/* Reads the session's synchronous_commit into ctx (a char[16]). */
static int read_synchronous_commit(PGconn *conn, void *ctx)
{
    const struct store_stmt q = {
        "setting", "SELECT current_setting('synchronous_commit')", 0, NULL, NULL, false};
    PGresult *r;
    int rc = store_query(conn, &q, &r);
    if (rc == STORE_OK)
        snprintf(ctx, 16, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    return rc;
}

/* A 202 promises a committed order: with synchronous_commit=off, a crash of the server loses
 * commits it acknowledged in its last moments (tests/reliability/test_load_faults.c saw it). */
Test(store, every_session_commits_synchronously_whatever_the_server_default)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 2);
    PGconn *c = PQconnectdb(url);
    cr_assert(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    char *name = PQescapeIdentifier(c, PQdb(c), strlen(PQdb(c)));
    char sql[300];
    snprintf(sql, sizeof sql, "ALTER DATABASE %s SET synchronous_commit = off", name);
    PQfreemem(name);
    PQfinish(c);
    exec_sql(url, sql);
    char tx[16] = "", run[16] = "";
    cr_assert_eq(store_tx(st, read_synchronous_commit, tx, 1), STORE_OK);
    cr_assert_eq(store_run(st, read_synchronous_commit, run), STORE_OK);
    cr_expect_str_eq(tx, "on");
    cr_expect_str_eq(run, "on");
    store_close(st);
    db_drop(url);
}

/* A sign of life's transaction as the service runs it (service_presence.c: a lazy commit, then
 * the seat noted as seen) for a game that does not exist (nothing is written), then reads the
 * transaction's synchronous_commit into ctx (a char[16]). */
static int seen_then_read_synchronous_commit(PGconn *conn, void *ctx)
{
    const char *ids[] = {"nosuchgame", "nor\"this"};
    const int seats[] = {0, 1};
    bool back[2] = {true, true}, written[2] = {true, true};
    int rc = store_commit_lazily(conn);
    if (rc == STORE_OK)
        rc = store_seats_seen_now(conn, ids, seats, 2, 10, 45, back, written);
    if (rc != STORE_OK)
        return rc;
    cr_expect(!back[0] && !back[1] && !written[0] && !written[1], "no seat was written");
    return read_synchronous_commit(conn, ctx);
}

/* A sign of life (a hand view's, an order's, a stream's) must not wait for an fsync: under load
 * that wait was a tenth of the hand views' latency tail (docs/benchmarks.md). Only its own
 * transaction commits asynchronously; the next one on the same connection waits as before. */
Test(store, a_seats_sign_of_life_commits_without_waiting_for_the_disk_and_only_it)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 1);
    char err[256];
    cr_assert_eq(store_migrate(st, project_migrations(), err, (int)sizeof err), STORE_OK, "%s",
                 err);
    char seen[16] = "", after[16] = "";
    cr_assert_eq(store_tx(st, seen_then_read_synchronous_commit, seen, 1), STORE_OK);
    cr_assert_eq(store_tx(st, read_synchronous_commit, after, 1), STORE_OK);
    cr_expect_str_eq(seen, "off");
    cr_expect_str_eq(after, "on", "the pooled connection's next transaction (one connection)");
    store_close(st);
    db_drop(url);
}

/* Inserts a row and asks for a notification that the server refuses (an empty channel name),
 * which is sent only after the COMMIT. */
static int insert_then_notify_badly(PGconn *conn, void *ctx)
{
    int rc = insert_row(conn, ctx);
    return rc == STORE_OK ? store_notify_on_commit(conn, "", "x") : rc;
}

Test(store, a_commit_is_done_even_when_the_notification_after_it_fails)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 1);
    exec_sql(url, "CREATE TABLE t (name text)");
    /* Reported as failed, a committed write would be run again by its caller. */
    cr_assert_eq(store_tx(st, insert_then_notify_badly, "kept", 3), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t WHERE name = 'kept'"), 1);
    cr_assert_eq(store_tx(st, insert_row, "next", 3), STORE_OK, "the connection still works");
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 2);
    store_close(st);
    db_drop(url);
}

/* Queues far more commands than the pipeline holds unread, reading in between. */
static int many_commands(PGconn *conn, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 1500; i++) {
        int rc = insert_row(conn, "many");
        if (rc == STORE_OK && i % 500 == 499)
            rc = body_exec(conn, "SELECT count(*) FROM t", "count");
        if (rc != STORE_OK)
            return rc;
    }
    return store_notify_on_commit(conn, "city_test", "many");
}

Test(store, a_transaction_may_queue_more_commands_than_the_pipeline_holds)
{
    char url[512];
    struct store *st = open_fresh(url, sizeof url, 1);
    exec_sql(url, "CREATE TABLE t (name text)");
    cr_assert_eq(store_tx(st, many_commands, NULL, 1), STORE_OK);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM t"), 1500);
    store_close(st);
    db_drop(url);
}

/*
** Plans at scale: the lobby, /metrics, the sweeper and the lifecycle read indexes
*/

/* EXPLAIN of `sql` with parameters vals (n of them) on `url`, as one text. */
static char *explain(const char *url, const char *sql, int n, const char *const *vals)
{
    PGconn *c = PQconnectdb(url);
    cr_assert(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    char text[8192];
    snprintf(text, sizeof text, "EXPLAIN %s", sql);
    PGresult *r = PQexecParams(c, text, n, NULL, vals, NULL, NULL, 0);
    cr_assert(PQresultStatus(r) == PGRES_TUPLES_OK, "%s in: %s", PQresultErrorMessage(r), sql);
    size_t cap = 1, len = 0;
    for (int i = 0; i < PQntuples(r); i++)
        cap += strlen(PQgetvalue(r, i, 0)) + 1;
    char *plan = malloc(cap);
    cr_assert_not_null(plan);
    plan[0] = 0;
    for (int i = 0; i < PQntuples(r); i++)
        len += (size_t)sprintf(plan + len, "%s\n", PQgetvalue(r, i, 0));
    PQclear(r);
    PQfinish(c);
    return plan;
}

Test(store, the_lobby_metrics_sweeper_and_lifecycle_never_scan_all_games)
{
    char url[512];
    struct store *st = open_migrated(url, sizeof url, 1);
    /* 50,000 games, most of them finished, as a spammed public server would hold. */
    exec_sql(url, "INSERT INTO games (id, game, status, players, turn_seconds, deadline, "
                  "host_hash, state, created_at) "
                  "SELECT 'g' || i, 'the_city', CASE WHEN i % 50 = 0 THEN 'open' WHEN i % 7 = 0 "
                  "THEN 'playing' WHEN i % 11 = 0 THEN 'expired' ELSE 'finished' END, 2, "
                  "CASE WHEN i % 7 = 0 THEN 60 END, CASE WHEN i % 7 = 0 AND i % 50 <> 0 THEN "
                  "now() + interval '1 minute' END, '\\x00', '{\"round\": 1}', "
                  "now() - i * interval '1 second' FROM generate_series(1, 50000) i");
    exec_sql(url, "INSERT INTO seats (game_id, seat, name) SELECT id, s, 'P' FROM games, "
                  "generate_series(0, 1) s");
    /* Open games of three creating addresses, the older ones hidden from the lobby. */
    exec_sql(url, "UPDATE games SET creator_key = decode(lpad(to_hex(length(id) % 3), 2, '0'), "
                  "'hex'), lobby_hidden = created_at < now() - interval '1 hour' WHERE status = "
                  "'open'");
    exec_sql(url, "ANALYZE");
    const char *limit[] = {"100"}, *lifecycle[] = {"86400", "32"};
    /* A first page, and a filtered page after a cursor in the open part. */
    const char *lobby[] = {"101", NULL, NULL, NULL, NULL, NULL};
    const char *lobby_after[] = {"21", "the_city", "2", "0", "2026-01-01 00:00:00.000000", "g500"};
    struct {
        enum store_games_sql which;
        int n;
        const char *const *vals;
    } plans[] = {{SQL_LOBBY, 6, lobby},     {SQL_LOBBY, 6, lobby_after},
                 {SQL_OVERDUE, 1, limit},   {SQL_EXPIRE, 2, lifecycle},
                 {SQL_PURGE, 2, lifecycle}, {SQL_ABANDON, 2, lifecycle},
                 {SQL_COUNTS, 0, NULL}};
    for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
        char *plan = explain(url, store_games_sql(plans[i].which), plans[i].n, plans[i].vals);
        cr_assert_null(strstr(plan, "Seq Scan on games"), "statement %zu scans games:\n%s", i,
                       plan);
        cr_assert_null(strstr(plan, "Seq Scan on seats"), "statement %zu scans seats:\n%s", i,
                       plan);
        free(plan);
    }
    /* The counters agree with the table after inserts, a status change and deletes. */
    exec_sql(url, "UPDATE games SET status = 'expired' WHERE id IN ('g50', 'g100')");
    exec_sql(url, "DELETE FROM games WHERE id IN ('g1', 'g2')");
    long want = query_long(url, "SELECT count(*) FROM games WHERE status = 'expired'");
    cr_assert_eq(query_long(url, "SELECT n FROM game_counts_now WHERE status = 'expired'"), want);
    cr_assert_eq(query_long(url, "SELECT sum(n) FROM game_counts_now"), 50000 - 2);
    cr_assert_eq(query_long(url, "SELECT count(*) FROM games WHERE status IN ('finished', "
                                 "'expired') AND ended_at IS NULL"),
                 0, "ended games carry ended_at");
    store_close(st);
    db_drop(url);
}

static int metrics_of(PGconn *c, void *ctx)
{
    return store_games_metrics(c, ctx);
}

static int fold_counts(PGconn *c, void *ctx)
{
    (void)ctx;
    return store_game_counts_fold(c);
}

/* A game's change of status takes no lock that another game's change waits for: the counters
 * of /metrics (game_counts) took a random one of 16 rows a status in the same transaction, so
 * a batch that finished several games held several of them, in random order, and two batches
 * waited on each other until PostgreSQL's deadlock_timeout (1 s) aborted one (seen under play:
 * 22 requests of about a second in 5 s, "deadlock detected ... in relation game_counts"). */
Test(store, a_status_change_waits_for_no_other_games_status_change)
{
    char url[512];
    struct store *st = open_migrated(url, sizeof url, 1);
    insert_playing(url, "g", 0, 200);
    /* A finishes 200 games and holds its transaction open (with the old counters: every one of
     * the 16 rows of 'playing' and of 'finished', all but surely). */
    PGconn *a = PQconnectdb(url), *b = PQconnectdb(url);
    cr_assert(PQstatus(a) == CONNECTION_OK && PQstatus(b) == CONNECTION_OK);
    PGresult *r = PQexec(a, "BEGIN; UPDATE games SET status = 'finished' WHERE id <> 'g0'");
    cr_assert_eq(PQresultStatus(r), PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
    PQclear(r);
    /* B finishes another game meanwhile: it must not wait for A. */
    r = PQexec(b, "SET lock_timeout = '2s'; UPDATE games SET status = 'finished' WHERE id = 'g0'");
    cr_expect_eq(PQresultStatus(r), PGRES_COMMAND_OK, "B waited for A: %s",
                 PQresultErrorMessage(r));
    PQclear(r);
    r = PQexec(a, "COMMIT");
    PQclear(r);
    PQfinish(a);
    PQfinish(b);
    /* The counts /metrics reads are right before the sweeper folds the changes in, and after. */
    char *m = NULL;
    cr_assert_eq(store_run(st, metrics_of, &m), STORE_OK);
    cr_expect_not_null(strstr(m, "city_games{status=\"finished\"} 201\n"), "%s", m);
    cr_expect_not_null(strstr(m, "city_games{status=\"playing\"} 0\n"), "%s", m);
    free(m);
    cr_assert_eq(store_tx(st, fold_counts, NULL, 1), STORE_OK);
    cr_expect_eq(query_long(url, "SELECT count(*) FROM game_count_changes"), 0,
                 "the fold takes every change");
    cr_assert_eq(store_run(st, metrics_of, &m), STORE_OK);
    cr_expect_not_null(strstr(m, "city_games{status=\"finished\"} 201\n"), "%s", m);
    cr_expect_not_null(strstr(m, "city_games{status=\"playing\"} 0\n"), "%s", m);
    free(m);
    store_close(st);
    db_drop(url);
}

/* Locks games g5 and g7 through store_games_load(), as a batch of orders does, with their
 * seats. */
static int load_two(PGconn *c, void *ctx)
{
    (void)ctx;
    const char *ids[] = {"g5", "g7"};
    long long known[] = {-1, -1};
    bool with_seats[] = {true, true};
    struct game_row rows[2];
    int found[2], nseats[2];
    struct seat_row seats[2][RS_MAX_SEATS];
    memset(rows, 0, sizeof rows);
    int st = store_games_load(c, 2, ids, known, with_seats, rows, found, seats, nseats);
    cr_assert_eq(st, STORE_OK);
    cr_assert(found[0] == STORE_OK && found[1] == STORE_OK);
    cr_assert(nseats[0] == 2 && nseats[1] == 2, "seats %d and %d", nseats[0], nseats[1]);
    game_row_clear(&rows[0]);
    game_row_clear(&rows[1]);
    return STORE_OK;
}

static int one_statement(PGconn *c, void *ctx)
{
    (void)ctx;
    PGresult *r = NULL;
    const struct store_stmt q = {"one", "SELECT 1", 0, NULL, NULL, false};
    int st = store_query(c, &q, &r);
    PQclear(r);
    return st;
}

/* The sequential scans of tables games and seats so far, as the statistics show them once the
 * store's connection has reported its own (a backend reports at the end of a transaction at
 * most once a second). */
static long games_seq_scans(struct store *st, const char *url)
{
    usleep(1100 * 1000);
    cr_assert_eq(store_run(st, one_statement, NULL), STORE_OK);
    usleep(200 * 1000);
    return query_long(url, "SELECT sum(seq_scan) FROM pg_stat_user_tables WHERE relname IN "
                           "('games', 'seats')");
}

/* A batch's read of its games by id stays an index look-up as the table grows: as a prepared
 * statement its plan was made once per connection, when the table was small (a sequential
 * scan is cheapest over 20 rows), and kept until the next ANALYZE, so every batch read the
 * whole table (issue 25: under play the batch's read went from 0.6 to 5.7 ms and from 670 to
 * 3,244 blocks in 40 s, and orders a second fell from 1,732 to 999). Its games and their seats
 * are now read by primary key, each by a prepared statement of its own. */
Test(store, a_batch_reads_its_games_by_index_however_the_table_has_grown)
{
    char url[512];
    struct store *st = open_migrated(url, sizeof url, 1);
    exec_sql(url, "ALTER TABLE games SET (autovacuum_enabled = false)"); /* no ANALYZE comes */
    exec_sql(url, "ALTER TABLE seats SET (autovacuum_enabled = false)");
    insert_playing(url, "g", 0, 19);
    exec_sql(url, "INSERT INTO seats (game_id, seat, name) SELECT id, s, 'P' FROM games, "
                  "generate_series(0, 1) s");
    for (int i = 0; i < 10; i++)
        cr_assert_eq(store_tx(st, load_two, NULL, 1), STORE_OK);
    insert_playing(url, "h", 0, 19999);
    exec_sql(url, "INSERT INTO seats (game_id, seat, name) SELECT id, s, 'P' FROM games, "
                  "generate_series(0, 1) s WHERE id LIKE 'h%'");
    long before = games_seq_scans(st, url);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(store_tx(st, load_two, NULL, 1), STORE_OK);
    long after = games_seq_scans(st, url);
    cr_expect_eq(after, before, "the batches scanned games %ld times", after - before);
    store_close(st);
    db_drop(url);
}

/* Loads g1 (with its seats), a game that does not exist, and g2 at the version it has. */
static int load_three(PGconn *c, void *ctx)
{
    (void)ctx;
    const char *ids[] = {"g1", "g15x", "g2"};
    long long known[] = {-1, -1, 0};
    bool with_seats[] = {true, true, false};
    struct game_row rows[3];
    int found[3], nseats[3] = {0};
    struct seat_row seats[3][RS_MAX_SEATS];
    memset(rows, 0, sizeof rows);
    int st = store_games_load(c, 3, ids, known, with_seats, rows, found, seats, nseats);
    cr_assert_eq(st, STORE_OK);
    cr_expect_eq(found[0], STORE_OK);
    cr_expect_str_eq(rows[0].id, "g1");
    cr_expect_not_null(rows[0].state, "g1's version was not known: its state is read");
    cr_expect_eq(nseats[0], 2, "g1's two seats, not %d", nseats[0]);
    cr_expect(nseats[0] == 2 && seats[0][0].seat == 0 && seats[0][1].seat == 1 &&
                  strcmp(seats[0][1].name, "P1") == 0,
              "g1's seats in order, with their names");
    cr_expect_eq(found[1], STORE_NO_ROW, "a missing game is not found, and stops nothing");
    cr_expect_eq(found[2], STORE_OK);
    cr_expect_str_eq(rows[2].id, "g2");
    cr_expect(rows[2].state_unchanged && !rows[2].state, "g2's known version: no state sent");
    game_row_clear(&rows[0]);
    game_row_clear(&rows[2]);
    return STORE_OK;
}

/* A batch reads each of its games, as a statement of its own, and tells each one apart: the
 * game that is missing, the one whose state the caller already has, and the seats asked for. */
Test(store, a_batch_load_tells_each_game_apart)
{
    char url[512];
    struct store *st = open_migrated(url, sizeof url, 1);
    insert_playing(url, "g", 1, 2);
    exec_sql(url,
             "INSERT INTO seats (game_id, seat, name) VALUES ('g1', 1, 'P1'), ('g1', 0, 'P0'), "
             "('g2', 0, 'Q0')");
    cr_assert_eq(store_tx(st, load_three, NULL, 1), STORE_OK);
    store_close(st);
    db_drop(url);
}

/*
** A failover behind one proxy address
*/

/* A TCP proxy on 127.0.0.1 that sends each connection it accepts on to `upstream` (an IPv4
 * address) at `port`, as PgBouncer or HAProxy in front of a cluster does; the address it sends
 * new connections to can change, as it does when the cluster fails over. */
struct proxy {
    int listen_fd;
    int listen_port;
    int port;
    _Atomic(const char *) upstream;
    pthread_t thread;
};

/* Copies bytes both ways between a and b until either side closes, then closes both. */
static void *proxy_pipe(void *arg)
{
    int *fds = arg;
    struct pollfd p[2] = {{.fd = fds[0], .events = POLLIN}, {.fd = fds[1], .events = POLLIN}};
    char buf[16384];
    for (;;) {
        if (poll(p, 2, -1) < 0)
            break;
        int from = (p[0].revents & (POLLIN | POLLHUP | POLLERR)) ? 0 : 1;
        ssize_t n = read(p[from].fd, buf, sizeof buf);
        if (n <= 0 || write(p[1 - from].fd, buf, (size_t)n) != n)
            break;
    }
    close(fds[0]);
    close(fds[1]);
    free(fds);
    return NULL;
}

/* Accepts connections and starts a pipe to the upstream of the moment for each. */
static void *proxy_accept(void *arg)
{
    struct proxy *px = arg;
    for (;;) {
        int c = accept(px->listen_fd, NULL, NULL);
        if (c < 0)
            return NULL; /* the listening socket was shut down */
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)px->port)};
        inet_pton(AF_INET, atomic_load(&px->upstream), &to.sin_addr);
        int u = socket(AF_INET, SOCK_STREAM, 0);
        if (u < 0 || connect(u, (struct sockaddr *)&to, sizeof to) != 0) {
            close(c);
            if (u >= 0)
                close(u);
            continue;
        }
        int *fds = malloc(2 * sizeof *fds);
        fds[0] = c;
        fds[1] = u;
        pthread_t t;
        pthread_create(&t, NULL, proxy_pipe, fds);
        pthread_detach(t);
    }
}

static void proxy_start(struct proxy *px, const char *upstream, int port)
{
    px->port = port;
    atomic_store(&px->upstream, upstream);
    px->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    cr_assert_eq(bind(px->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(px->listen_fd, 16), 0);
    cr_assert_eq(getsockname(px->listen_fd, (struct sockaddr *)&a, &len), 0);
    px->listen_port = ntohs(a.sin_port);
    pthread_create(&px->thread, NULL, proxy_accept, px);
}

static void proxy_stop(struct proxy *px)
{
    shutdown(px->listen_fd, SHUT_RDWR);
    pthread_join(px->thread, NULL);
    close(px->listen_fd);
}

/* Behind a proxy every connection reaches the same address and port, so the pool tells servers
 * apart by the server's own address (inet_server_addr): the cluster answers on 127.0.0.1 and
 * 127.0.0.2 (scripts/with-postgres.sh), and moving the proxy from one to the other, then cutting
 * the pool's connection, is a failover to /metrics. Counted by host:port as connected, it was
 * none. */
Test(store, a_failover_behind_one_proxy_address_is_counted)
{
    char url[512], proxied[600], err[256] = "";
    db_create(url, sizeof url);
    exec_sql(url, "CREATE TABLE t (name text)");
    const char *port = getenv("CITY_PGPORT");
    cr_assert_not_null(port, "run under scripts/with-postgres.sh");
    struct proxy px;
    proxy_start(&px, "127.0.0.1", atoi(port));
    PQconninfoOption *opts = PQconninfoParse(url, NULL);
    const char *dbname = "";
    for (PQconninfoOption *o = opts; o && o->keyword; o++)
        if (!strcmp(o->keyword, "dbname") && o->val)
            dbname = o->val;
    snprintf(proxied, sizeof proxied, "host=127.0.0.1 port=%d user=postgres dbname=%s",
             px.listen_port, dbname);
    PQconninfoFree(opts);
    struct store *st = store_open(proxied, 1, err, (int)sizeof err);
    cr_assert_not_null(st, "%s", err);
    cr_assert(store_ping(st));
    struct store_stats s;
    store_stats(st, &s);
    char want[64];
    snprintf(want, sizeof want, "127.0.0.1:%s", port);
    cr_expect_str_eq(s.server, want, "the server's own address, not the proxy's");
    cr_expect_eq(s.failovers, 0);

    atomic_store(&px.upstream, "127.0.0.2"); /* the "new primary" */
    kill_then_insert(st, url);
    store_stats(st, &s);
    snprintf(want, sizeof want, "127.0.0.2:%s", port);
    cr_expect_str_eq(s.server, want);
    cr_expect_eq(s.failovers, 1, "reached another server through the same proxy address");
    store_close(st);
    proxy_stop(&px);
    db_drop(url);
}
