/* store_migrate.c: the migration runner (store.h, store_migrate): applies the files of the
 * migrations folder in order, each in its own transaction, each recorded in schema_migrations
 * so that it runs once, under an advisory lock so that daemons starting together apply them
 * once between them. */
#include "store.h"

#include "textfile.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The advisory lock that daemons starting at once take around their migrations. */
#define MIGRATION_LOCK_KEY "1130918009"
/* The largest migration file read, in bytes. */
#define MIGRATION_MAX_BYTES (16 * 1024 * 1024)

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Lists the files of dir named NNNN_*.sql, sorted by name, into *out (caller frees with
 * free_names). False with a sentence in err when dir cannot be read, memory runs out, or two
 * files share a number. */
static bool list_migrations(const char *dir, char ***out, size_t *count, char *err, int errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, (size_t)errlen, "cannot read the migrations directory %s: %s", dir,
                 strerror(errno));
        return false;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    bool ok = true;
    while ((e = readdir(d))) {
        if (fnmatch("[0-9][0-9][0-9][0-9]_*.sql", e->d_name, FNM_PERIOD) != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                ok = false;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(e->d_name))) {
            ok = false;
            break;
        }
        n++;
    }
    closedir(d);
    if (!ok) {
        free_names(names, n);
        snprintf(err, (size_t)errlen, "out of memory");
        return false;
    }
    if (n)
        qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 1; i < n; i++)
        if (strncmp(names[i - 1], names[i], 4) == 0) {
            snprintf(err, (size_t)errlen, "migrations %s and %s share the number %.4s",
                     names[i - 1], names[i], names[i]);
            free_names(names, n);
            return false;
        }
    *out = names;
    *count = n;
    return true;
}

/* Copies the first line of a libpq error message into err after a prefix. */
static void pq_error(char *err, int errlen, const char *prefix, PGconn *conn, const PGresult *res)
{
    const char *msg = res ? PQresultErrorMessage(res) : "";
    if (!msg || !*msg)
        msg = PQerrorMessage(conn);
    if (!msg || !*msg)
        msg = res ? PQresStatus(PQresultStatus(res)) : "no result";
    int len = (int)strcspn(msg, "\n");
    snprintf(err, (size_t)errlen, "%s: %.*s", prefix, len, msg);
}

/* Runs one statement with text parameters; on failure fills err and returns the status. The
 * result is returned through *out when out is not NULL (caller clears), else cleared. */
static int exec_params(PGconn *conn, const char *sql, int n, const char *const *vals,
                       PGresult **out, const char *what, char *err, int errlen)
{
    PGresult *r = PQexecParams(conn, sql, n, NULL, vals, NULL, NULL, 0);
    int rc = store_status_of(conn, r, what);
    if (rc != STORE_OK)
        pq_error(err, errlen, what, conn, r);
    if (out && rc == STORE_OK)
        *out = r;
    else
        PQclear(r);
    return rc;
}

/* Applies migration `name` (version `version`) unless it is recorded. Holds the advisory lock
 * already. */
static int apply_one(PGconn *conn, const char *dir, const char *name, char *err, int errlen)
{
    char version[16];
    snprintf(version, sizeof version, "%d", atoi(name));
    const char *vals[2] = {version, name};
    PGresult *r = NULL;
    int rc = exec_params(conn, "SELECT name FROM schema_migrations WHERE version = $1", 1, vals, &r,
                         "migrations: lookup", err, errlen);
    if (rc != STORE_OK)
        return rc;
    if (PQntuples(r) > 0) {
        bool same = strcmp(PQgetvalue(r, 0, 0), name) == 0;
        if (!same)
            snprintf(err, (size_t)errlen,
                     "migration %s: version %s is recorded as applied under the name %s", name,
                     version, PQgetvalue(r, 0, 0));
        PQclear(r);
        return same ? STORE_OK : STORE_HARD;
    }
    PQclear(r);

    size_t plen = strlen(dir) + strlen(name) + 2;
    char *path = malloc(plen);
    if (!path) {
        snprintf(err, (size_t)errlen, "out of memory");
        return STORE_HARD;
    }
    snprintf(path, plen, "%s/%s", dir, name);
    char *sql = text_file_read(path, MIGRATION_MAX_BYTES, err, errlen);
    free(path);
    if (!sql)
        return STORE_HARD;

    rc = exec_params(conn, "BEGIN", 0, NULL, NULL, "migrations: BEGIN", err, errlen);
    if (rc != STORE_OK) {
        free(sql);
        pq_error(err, errlen, "migrations: BEGIN", conn, NULL);
        return rc;
    }
    r = PQexec(conn, sql);
    free(sql);
    if (r && PQresultStatus(r) == PGRES_EMPTY_QUERY) {
        rc = STORE_OK;
    } else {
        char what[300];
        snprintf(what, sizeof what, "migration %s", name);
        rc = store_status_of(conn, r, what);
        if (rc != STORE_OK)
            pq_error(err, errlen, what, conn, r);
    }
    PQclear(r);
    if (rc == STORE_OK)
        rc = exec_params(conn, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", 2,
                         vals, NULL, "migrations: record", err, errlen);
    if (rc == STORE_OK) {
        r = PQexec(conn, "COMMIT");
        rc = store_status_of(conn, r, "migrations: COMMIT");
        if (rc == STORE_OK && strcmp(PQcmdStatus(r), "COMMIT") != 0) {
            snprintf(err, (size_t)errlen,
                     "migration %s: its transaction ended early "
                     "(does the file hold its own BEGIN/COMMIT?)",
                     name);
            rc = STORE_HARD;
        } else if (rc != STORE_OK) {
            pq_error(err, errlen, "migrations: COMMIT", conn, r);
        }
        PQclear(r);
    }
    if (rc != STORE_OK && PQstatus(conn) == CONNECTION_OK &&
        PQtransactionStatus(conn) != PQTRANS_IDLE)
        PQclear(PQexec(conn, "ROLLBACK"));
    return rc;
}

/* What store_migrate() runs on its session. */
struct migrate_ctx {
    const char *dir;
    char **names;
    size_t n;
    char *err;
    int errlen;
};

static int migrate_session(PGconn *conn, void *ctx, bool *discard)
{
    struct migrate_ctx *m = ctx;
    const char *key[1] = {MIGRATION_LOCK_KEY};
    int rc = exec_params(conn, "SELECT pg_advisory_lock($1::bigint)", 1, key, NULL,
                         "migrations: lock", m->err, m->errlen);
    bool locked = rc == STORE_OK;
    if (rc == STORE_OK)
        rc = exec_params(conn,
                         "CREATE TABLE IF NOT EXISTS schema_migrations ("
                         " version int PRIMARY KEY,"
                         " name text NOT NULL,"
                         " applied_at timestamptz NOT NULL DEFAULT now())",
                         0, NULL, NULL, "migrations: create table", m->err, m->errlen);
    for (size_t i = 0; rc == STORE_OK && i < m->n; i++)
        rc = apply_one(conn, m->dir, m->names[i], m->err, m->errlen);
    if (locked && PQstatus(conn) == CONNECTION_OK) {
        char unlock_err[256];
        PGresult *r = NULL;
        int urc = exec_params(conn, "SELECT pg_advisory_unlock($1::bigint)", 1, key, &r,
                              "migrations: unlock", unlock_err, (int)sizeof unlock_err);
        bool released = urc == STORE_OK && PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
        PQclear(r);
        *discard = !released; /* closing the session releases the lock */
    }
    return rc;
}

int store_migrate(struct store *st, const char *dir, char *err, int errlen)
{
    assert(st && dir && err && errlen > 0);
    err[0] = 0;
    struct migrate_ctx m = {.dir = dir, .err = err, .errlen = errlen};
    if (!list_migrations(dir, &m.names, &m.n, err, errlen))
        return STORE_HARD;
    int rc = store_session(st, migrate_session, &m);
    if (rc == STORE_UNAVAILABLE && !err[0])
        snprintf(err, (size_t)errlen, "cannot connect to the database to apply migrations");
    free_names(m.names, m.n);
    if (rc != STORE_OK && !err[0])
        snprintf(err, (size_t)errlen, "migrations failed");
    return rc;
}
