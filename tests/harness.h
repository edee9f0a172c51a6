/* harness.h: helpers for the service tests, which run under scripts/with-postgres.sh: a fresh
 * database per test on the throw-away cluster, a cityd daemon started on a free port and
 * stopped again, HTTP requests over loopback with libcurl, and stopping and restarting the
 * cluster itself.
 *
 * Ownership: every function that returns text or JSON through a struct (http_reply) leaves it
 * to the caller, who frees it with the matching *_free function. Functions named *_start,
 * db_create and pg_* fail the running test (cr_assert) when they cannot do their job; the
 * *_try_* variants return false instead.
 *
 * Criterion runs each test in its own process, possibly several at once (--jobs). Tests that
 * stop or restart the cluster must not disturb the others, so the cluster is guarded by a
 * file lock beside it: db_create() takes it shared (until the test's process exits), and
 * pg_restart() / pg_stop_now() take it exclusive, waiting for the tests already running to
 * finish; new tests wait behind them. */
#ifndef CITY_TEST_HARNESS_H
#define CITY_TEST_HARNESS_H

#include <criterion/criterion.h>
#include <curl/curl.h>
#include <jansson.h>
#include <libpq-fe.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/*
** Small things
*/

/* The environment variable `name`, or `fallback` when it is unset or empty. */
static inline const char *harness_env(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* Seconds on a monotonic clock. */
static inline double harness_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps `ms` milliseconds. */
static inline void harness_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick). */
static inline int harness_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(fd >= 0, "socket: %s", strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    cr_assert(bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s", strerror(errno));
    cr_assert(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* The directory of the with-postgres.sh cluster (it holds the data directory, the server's
 * log, the cluster lock and the daemons' logs), or NULL when not run under it. Static
 * storage. */
static inline const char *harness_cluster_dir(void)
{
    static char dir[1024];
    const char *data = getenv("CITY_PGDATA");
    if (!data || !*data)
        return NULL;
    snprintf(dir, sizeof dir, "%s", data);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = 0;
    return dir;
}

/*
** The cluster lock (see the top of the file)
*/

static int harness_lock_fd = -1, harness_turn_fd = -1;
static int harness_lock_mode; /* 0, LOCK_SH or LOCK_EX */

static inline void harness_lock_open(void)
{
    const char *dir = harness_cluster_dir();
    if (!dir || harness_lock_fd >= 0)
        return;
    char path[1100];
    snprintf(path, sizeof path, "%s/harness.lock", dir);
    harness_lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    snprintf(path, sizeof path, "%s/harness.turn", dir);
    harness_turn_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    cr_assert(harness_lock_fd >= 0 && harness_turn_fd >= 0, "cannot open %s: %s", path,
              strerror(errno));
}

/* Takes the cluster lock in `mode` (LOCK_SH or LOCK_EX). A waiting exclusive holder queues new
 * shared ones behind it (the turnstile); a process never waits on the turnstile while it
 * holds the main lock, so two restarting tests cannot deadlock. */
static inline void harness_lock(int mode)
{
    harness_lock_open();
    if (harness_lock_fd < 0 || harness_lock_mode == mode)
        return;
    if (harness_lock_mode)
        flock(harness_lock_fd, LOCK_UN);
    while (flock(harness_turn_fd, LOCK_EX) != 0 && errno == EINTR)
        ;
    while (flock(harness_lock_fd, mode) != 0 && errno == EINTR)
        ;
    flock(harness_turn_fd, LOCK_UN);
    harness_lock_mode = mode;
}

/* Declares that this test uses the cluster: later restarts by other tests wait for it to
 * end. db_create() calls it; call it yourself when using DATABASE_URL directly. */
static inline void harness_share_cluster(void)
{
    harness_lock(LOCK_SH);
}

/*
** Databases
*/

/* Connects to $DATABASE_URL (the cluster's maintenance database). Fails the test when it
 * cannot. The caller PQfinish()es the connection. */
static inline PGconn *harness_admin_conn(void)
{
    const char *url = getenv("DATABASE_URL");
    cr_assert(url && *url, "DATABASE_URL is not set: run the tests under scripts/with-postgres.sh");
    PGconn *c = PQconnectdb(url);
    cr_assert(PQstatus(c) == CONNECTION_OK, "cannot connect to %s: %s", url, PQerrorMessage(c));
    return c;
}

/* Appends s to out (of size n, used *k) percent-encoding all but unreserved characters. */
static inline void harness_urlencode(char *out, size_t n, size_t *k, const char *s)
{
    for (; *s && *k + 4 < n; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '.' || ch == '_' || ch == '~' || ch == ',')
            out[(*k)++] = (char)ch;
        else
            *k += (size_t)snprintf(out + *k, n - *k, "%%%02X", ch);
    }
    out[*k] = 0;
}

/* Writes to out the URI of database `dbname` on the server that `conninfo` points at (same
 * user, password, host, port and other options). */
static inline void harness_url_for_db(const char *conninfo, const char *dbname, char *out, size_t n)
{
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo, &perr);
    cr_assert_not_null(opts, "bad DATABASE_URL: %s", perr ? perr : "?");
    const char *user = NULL, *pass = NULL, *host = NULL, *port = NULL;
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val)
            continue;
        if (!strcmp(o->keyword, "user"))
            user = o->val;
        else if (!strcmp(o->keyword, "password"))
            pass = o->val;
        else if (!strcmp(o->keyword, "host"))
            host = o->val;
        else if (!strcmp(o->keyword, "port"))
            port = o->val;
    }
    size_t k = (size_t)snprintf(out, n, "postgresql://");
    if (user) {
        harness_urlencode(out, n, &k, user);
        if (pass) {
            k += (size_t)snprintf(out + k, n - k, ":");
            harness_urlencode(out, n, &k, pass);
        }
        k += (size_t)snprintf(out + k, n - k, "@");
    }
    if (host)
        harness_urlencode(out, n, &k, host);
    if (port)
        k += (size_t)snprintf(out + k, n - k, ":%s", port);
    k += (size_t)snprintf(out + k, n - k, "/");
    harness_urlencode(out, n, &k, dbname);
    char sep = '?';
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val || !strcmp(o->keyword, "user") || !strcmp(o->keyword, "password") ||
            !strcmp(o->keyword, "host") || !strcmp(o->keyword, "port") ||
            !strcmp(o->keyword, "dbname"))
            continue;
        k += (size_t)snprintf(out + k, n - k, "%c%s=", sep, o->keyword);
        harness_urlencode(out, n, &k, o->val);
        sep = '&';
    }
    PQconninfoFree(opts);
    cr_assert(k + 1 < n, "database URL too long");
}

/* Creates an empty database with a unique name on the cluster of $DATABASE_URL and writes its
 * URI to url_out (n bytes). Fails the test when it cannot. */
static inline void db_create(char *url_out, size_t n)
{
    static unsigned counter;
    harness_share_cluster();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned rnd = (unsigned)(ts.tv_nsec ^ (long)getpid() * 2654435761L) % 1000000u;
    char name[64];
    snprintf(name, sizeof name, "city_test_%ld_%u_%06u", (long)getpid(), ++counter, rnd);
    PGconn *c = harness_admin_conn();
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name); /* digits and letters only */
    PGresult *r = PQexec(c, sql);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK, "CREATE DATABASE %s: %s", name,
              PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
    harness_url_for_db(getenv("DATABASE_URL"), name, url_out, n);
}

/* Runs `sql` on a connection of its own to the database at `url` and returns the first column
 * of its first row as a number (-1 when it has no row). Fails the test when it fails. */
static inline long long db_num(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    cr_assert(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    ExecStatusType rs = PQresultStatus(r);
    cr_assert(rs == PGRES_TUPLES_OK || rs == PGRES_COMMAND_OK, "%s: %s", sql,
              PQresultErrorMessage(r));
    long long v = PQntuples(r) > 0 && !PQgetisnull(r, 0, 0) ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    PQfinish(c);
    return v;
}

/* Drops the database at `url` (made by db_create), closing its sessions. False when it
 * could not (the cluster is down, say); never fails the test. */
static inline bool db_drop(const char *url)
{
    PQconninfoOption *opts = PQconninfoParse(url, NULL);
    if (!opts)
        return false;
    char name[128] = "";
    for (PQconninfoOption *o = opts; o->keyword; o++)
        if (o->val && !strcmp(o->keyword, "dbname"))
            snprintf(name, sizeof name, "%s", o->val);
    PQconninfoFree(opts);
    PGconn *c = PQconnectdb(harness_env("DATABASE_URL", ""));
    bool ok = false;
    if (name[0] && PQstatus(c) == CONNECTION_OK) {
        char *id = PQescapeIdentifier(c, name, strlen(name));
        char sql[300];
        snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", id ? id : "\"\"");
        PQfreemem(id);
        PGresult *r = PQexec(c, sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
    }
    PQfinish(c);
    return ok;
}

/*
** HTTP
*/

/* One reply. `body` is NUL-terminated (len excludes the NUL); `json` is the parsed body when
 * it is JSON, else NULL; `headers` holds the raw header lines of the last response. */
struct http_reply {
    long status; /* 0 when no response arrived */
    char *body;
    size_t len;
    char content_type[128]; /* "" when absent */
    json_t *json;
    char *headers;
    bool timed_out; /* the timeout expired: body holds what arrived (streams) */
    char error[CURL_ERROR_SIZE];
};

/* One request. Only method and url are required. */
struct http_request {
    const char *method;
    const char *url;
    const char *bearer;         /* Authorization: Bearer ...; NULL for none */
    const char *content_type;   /* sent when body is set; default application/json */
    const void *body;           /* NULL for none */
    size_t len;                 /* bytes of body */
    const char *const *headers; /* extra "Name: value" lines, NULL-terminated, or NULL */
    long timeout_ms;            /* 0 for 30 s */
    const char *from;           /* the local address to send from ("127.0.0.3"); NULL: any */
};

struct harness_buf {
    char *p;
    size_t n, cap;
};

static inline size_t harness_collect(char *data, size_t size, size_t nmemb, void *ud)
{
    struct harness_buf *b = ud;
    size_t add = size * nmemb;
    if (b->n + add + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + add + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, add);
    b->n += add;
    b->p[b->n] = 0;
    return add;
}

/* Sends a request and fills *out (which the caller frees with http_reply_free, whatever the
 * result). True when a response arrived (any status, or a stream cut by the timeout). */
static inline bool http_request(const struct http_request *rq, struct http_reply *out)
{
    static bool inited;
    if (!inited) {
        curl_global_init(CURL_GLOBAL_ALL);
        inited = true;
    }
    memset(out, 0, sizeof *out);
    CURL *c = curl_easy_init();
    cr_assert_not_null(c);
    struct harness_buf body = {0}, head = {0};
    struct curl_slist *hdrs = NULL;
    char auth[1024];
    if (rq->bearer) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", rq->bearer);
        hdrs = curl_slist_append(hdrs, auth);
    }
    char ctype[256];
    if (rq->body) {
        snprintf(ctype, sizeof ctype, "Content-Type: %s",
                 rq->content_type ? rq->content_type : "application/json");
        hdrs = curl_slist_append(hdrs, ctype);
    }
    hdrs = curl_slist_append(hdrs, "Expect:");
    for (const char *const *h = rq->headers; h && *h; h++)
        hdrs = curl_slist_append(hdrs, *h);

    curl_easy_setopt(c, CURLOPT_URL, rq->url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, out->error);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, rq->timeout_ms > 0 ? rq->timeout_ms : 30000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, harness_collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, harness_collect);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &head);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    if (rq->from)
        curl_easy_setopt(c, CURLOPT_INTERFACE, rq->from);
    const char *method = rq->method ? rq->method : "GET";
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    else if (!strcmp(method, "GET") && !rq->body)
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    else
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (rq->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
    } else if (!strcmp(method, "POST") || !strcmp(method, "PUT") || !strcmp(method, "PATCH")) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
    }

    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    char *ct = NULL;
    if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
        snprintf(out->content_type, sizeof out->content_type, "%s", ct);
    out->timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    if (rc != CURLE_OK && !out->error[0])
        snprintf(out->error, sizeof out->error, "%s", curl_easy_strerror(rc));
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);

    out->body = body.p ? body.p : calloc(1, 1);
    out->len = body.n;
    out->headers = head.p ? head.p : calloc(1, 1);
    if (out->len)
        out->json = json_loadb(out->body, out->len, JSON_DECODE_ANY, NULL);
    return out->status > 0 && (rc == CURLE_OK || out->timed_out);
}

/* Sends `method url` with an optional bearer token and an optional JSON body (text), and
 * fills *out. True when a response arrived. */
static inline bool http_do(const char *method, const char *url, const char *bearer_token,
                           const char *body, struct http_reply *out)
{
    struct http_request rq = {.method = method,
                              .url = url,
                              .bearer = bearer_token,
                              .body = body,
                              .len = body ? strlen(body) : 0};
    return http_request(&rq, out);
}

/* Sends `len` raw bytes of `body` (which may hold NULs) with Content-Type `content_type`
 * (none when NULL... then application/json). True when a response arrived. */
static inline bool http_raw(const char *method, const char *url, const char *bearer_token,
                            const char *content_type, const void *body, size_t len,
                            struct http_reply *out)
{
    struct http_request rq = {.method = method,
                              .url = url,
                              .bearer = bearer_token,
                              .content_type = content_type,
                              .body = body,
                              .len = len};
    return http_request(&rq, out);
}

/* The value of response header `name` (case-insensitive, the last one when repeated) copied
 * into buf; false when absent. */
static inline bool http_header(const struct http_reply *r, const char *name, char *buf, size_t n)
{
    bool found = false;
    size_t nl = strlen(name);
    for (const char *line = r->headers; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t ll = end ? (size_t)(end - line) : strlen(line);
        if (ll > nl && line[nl] == ':' && strncasecmp(line, name, nl) == 0) {
            const char *v = line + nl + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t vl = (size_t)(line + ll - v);
            while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
                vl--;
            snprintf(buf, n, "%.*s", (int)vl, v);
            found = true;
        }
        line = end ? end + 1 : line + ll;
    }
    return found;
}

/* Frees what a reply holds and zeroes it. */
static inline void http_reply_free(struct http_reply *r)
{
    free(r->body);
    free(r->headers);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

/*
** The daemon
*/

struct daemon {
    pid_t pid; /* 0 when not running */
    int port;
    char base[64];  /* "http://127.0.0.1:PORT" */
    char log[1200]; /* its stdout and stderr */
};

/* Copies the last n-1 bytes of the daemon's log into buf (for failure messages). */
static inline const char *daemon_log_tail(const struct daemon *d, char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = fopen(d->log, "rb");
    if (!f)
        return buf;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long from = size - (long)(n - 1) > 0 ? size - (long)(n - 1) : 0;
    fseek(f, from, SEEK_SET);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = 0;
    fclose(f);
    return buf;
}

/* Waits up to `seconds` for the daemon to exit; its exit status (128+signal when killed), or
 * -1 when it is still running. */
static inline int daemon_wait(struct daemon *d, double seconds)
{
    if (d->pid <= 0)
        return -1;
    double until = harness_now() + seconds;
    for (;;) {
        int st;
        pid_t r = waitpid(d->pid, &st, WNOHANG);
        if (r == d->pid) {
            d->pid = 0;
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        if (r < 0) {
            d->pid = 0;
            return -1;
        }
        if (harness_now() > until)
            return -1;
        harness_sleep_ms(20);
    }
}

/* Starts `$CITYD serve` (default $CITY_ROOT/build/cityd) on a free port with database db_url,
 * the project's web/, cards and migrations, and `extra_args` (split at spaces, no quoting),
 * logging to d->log, and waits up to 10 s for GET /healthz to answer 200. False (with the
 * reason and the log's tail in why) when it exits or does not become healthy; it is then
 * killed. */
static inline bool daemon_try_start(struct daemon *d, const char *db_url, const char *extra_args,
                                    char *why, size_t whylen)
{
    static unsigned started;
    const char *root = harness_env("CITY_ROOT", ".");
    char cityd[1100], web[1100], cards[1100], migrations[1100], portbuf[16], extra[1024];
    const char *bin = getenv("CITYD");
    if (bin && *bin)
        snprintf(cityd, sizeof cityd, "%s", bin);
    else
        snprintf(cityd, sizeof cityd, "%s/build/cityd", root);
    snprintf(web, sizeof web, "%s/web", root);
    snprintf(cards, sizeof cards, "%s/cards/cards.json", root);
    snprintf(migrations, sizeof migrations, "%s/migrations", root);
    snprintf(extra, sizeof extra, "%s", extra_args ? extra_args : "");

    const char *argv[64];
    int argc = 0;
    argv[argc++] = cityd;
    argv[argc++] = "serve";
    argv[argc++] = "--port";
    argv[argc++] = portbuf;
    argv[argc++] = "--database";
    argv[argc++] = db_url;
    argv[argc++] = "--web";
    argv[argc++] = web;
    argv[argc++] = "--cards";
    argv[argc++] = cards;
    argv[argc++] = "--migrations";
    argv[argc++] = migrations;
    for (char *save = NULL, *tok = strtok_r(extra, " \t", &save); tok && argc < 63;
         tok = strtok_r(NULL, " \t", &save))
        argv[argc++] = tok;
    argv[argc] = NULL;

    const char *dir = harness_env("CITY_TEST_LOGDIR", harness_cluster_dir());
    for (int attempt = 0; attempt < 3; attempt++) {
        memset(d, 0, sizeof *d);
        d->port = harness_free_port();
        snprintf(portbuf, sizeof portbuf, "%d", d->port);
        snprintf(d->base, sizeof d->base, "http://127.0.0.1:%d", d->port);
        snprintf(d->log, sizeof d->log, "%s/cityd-%ld-%u-%d.log", dir ? dir : "/tmp",
                 (long)getpid(), ++started, d->port);
        int logfd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (logfd < 0) {
            snprintf(why, whylen, "cannot create %s: %s", d->log, strerror(errno));
            return false;
        }
        pid_t parent = getpid();
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            close(logfd);
            snprintf(why, whylen, "fork: %s", strerror(errno));
            return false;
        }
        if (pid == 0) {
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
            if (getppid() != parent)
                _exit(127);
#else
            (void)parent;
#endif
            /* Tests create and join many games from one address: no per-address rate
             * limits unless the environment or extra_args (flags win) set them. */
            setenv("CITY_CREATE_RATE", "0", 0);
            setenv("CITY_JOIN_RATE", "0", 0);
            setenv("CITY_READ_RATE", "0", 0);
            setenv("CITY_MAX_STREAMS_PER_ADDRESS", "0", 0);
            dup2(logfd, 1);
            dup2(logfd, 2);
            int nul = open("/dev/null", O_RDONLY);
            if (nul >= 0)
                dup2(nul, 0);
            execv(cityd, (char *const *)(uintptr_t)argv);
            dprintf(2, "harness: cannot run %s: %s\n", cityd, strerror(errno));
            _exit(127);
        }
        close(logfd);
        d->pid = pid;

        char url[128];
        snprintf(url, sizeof url, "%s/healthz", d->base);
        double until = harness_now() + 10;
        int exited = -1;
        while (harness_now() < until) {
            struct http_request rq = {.method = "GET", .url = url, .timeout_ms = 2000};
            struct http_reply r;
            bool got = http_request(&rq, &r);
            long status = r.status;
            http_reply_free(&r);
            if (got && status == 200)
                return true;
            if ((exited = daemon_wait(d, 0)) >= 0)
                break;
            harness_sleep_ms(50);
        }
        char tail[4096]; /* the whole of a usage error, whose naming line comes first */
        daemon_log_tail(d, tail, sizeof tail);
        if (exited < 0) {
            kill(d->pid, SIGKILL);
            daemon_wait(d, 10);
            snprintf(why, whylen, "cityd did not answer /healthz with 200 within 10 s; log %s:\n%s",
                     d->log, tail);
            return false;
        }
        snprintf(why, whylen, "cityd exited with status %d; log %s:\n%s", exited, d->log, tail);
        /* Someone took the port between our pick and its bind: try another. */
        if (!strstr(tail, "in use"))
            return false;
    }
    return false;
}

/* As daemon_try_start(), failing the test when the daemon does not come up. */
static inline void daemon_start(struct daemon *d, const char *db_url, const char *extra_args)
{
    char why[2048];
    bool ok = daemon_try_start(d, db_url, extra_args, why, sizeof why);
    cr_assert(ok, "%s", why);
}

/* Sends SIGTERM and waits up to 15 s for the daemon to exit (then SIGKILL). Returns its exit
 * status (128+signal when killed by one); 0 is a clean shutdown. */
static inline int daemon_stop(struct daemon *d)
{
    if (d->pid <= 0)
        return -1;
    kill(d->pid, SIGTERM);
    int st = daemon_wait(d, 15);
    if (st < 0) {
        kill(d->pid, SIGKILL);
        daemon_wait(d, 10);
        return 128 + SIGKILL;
    }
    return st;
}

/* Kills the daemon with SIGKILL (a crash) and reaps it. */
static inline void daemon_kill(struct daemon *d)
{
    if (d->pid <= 0)
        return;
    kill(d->pid, SIGKILL);
    daemon_wait(d, 10);
}

/*
** The cluster itself
*/

/* Runs `pg_ctl -D $CITY_PGDATA args...` as $CITY_PGUSER (through runuser when root and that
 * user is not root); its output goes to pg_ctl.log beside the cluster. Returns its exit
 * status. */
static inline int harness_pg_ctl(const char *const *args)
{
    const char *dir = harness_cluster_dir();
    cr_assert(dir, "CITY_PGDATA is not set: run the tests under scripts/with-postgres.sh");
    const char *bin = harness_env("CITY_PGBIN", NULL), *user = harness_env("CITY_PGUSER", NULL);
    cr_assert(bin, "CITY_PGBIN is not set: run the tests under scripts/with-postgres.sh");
    char pg_ctl[1100], logpath[1100];
    snprintf(pg_ctl, sizeof pg_ctl, "%s/pg_ctl", bin);
    snprintf(logpath, sizeof logpath, "%s/pg_ctl.log", dir);
    const char *argv[32];
    int argc = 0;
    if (geteuid() == 0 && user && strcmp(user, "root") != 0) {
        argv[argc++] = "runuser";
        argv[argc++] = "-u";
        argv[argc++] = user;
        argv[argc++] = "--";
    }
    argv[argc++] = pg_ctl;
    argv[argc++] = "-D";
    argv[argc++] = getenv("CITY_PGDATA");
    for (; *args && argc < 31; args++)
        argv[argc++] = *args;
    argv[argc] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (chdir("/") != 0)
            _exit(126);
        execvp(argv[0], (char *const *)(uintptr_t)argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Restarts the cluster (fast shutdown: sessions are cut, then it starts on the same port),
 * after the tests running beside this one have finished. Fails the test when it cannot. */
static inline void pg_restart(void)
{
    harness_lock(LOCK_EX);
    const char *args[] = {"-w", "-t", "60", "-m", "fast", "restart", NULL};
    int st = harness_pg_ctl(args);
    harness_lock(LOCK_SH);
    cr_assert_eq(st, 0, "pg_ctl restart failed (see %s/pg_ctl.log)", harness_cluster_dir());
}

/* Stops the cluster at once (immediate shutdown, like a crash), after the tests running beside
 * this one have finished. Other tests wait until pg_start_again(). The cluster runs with
 * synchronous_commit=off, so a checkpoint comes first: what was committed survives, as after
 * a crash of a durable server; transactions in flight are lost. */
static inline void pg_stop_now(void)
{
    harness_lock(LOCK_EX);
    PGconn *c = harness_admin_conn();
    PGresult *r = PQexec(c, "CHECKPOINT");
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK, "CHECKPOINT: %s", PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
    const char *args[] = {"-w", "-t", "60", "-m", "immediate", "stop", NULL};
    int st = harness_pg_ctl(args);
    cr_assert_eq(st, 0, "pg_ctl stop failed (see %s/pg_ctl.log)", harness_cluster_dir());
}

/* Starts the cluster stopped by pg_stop_now() again and waits until it accepts connections. */
static inline void pg_start_again(void)
{
    char logopt[1100];
    const char *log = getenv("CITY_PGLOG");
    if (log && *log)
        snprintf(logopt, sizeof logopt, "%s", log);
    else
        snprintf(logopt, sizeof logopt, "%s/postgres.log", harness_cluster_dir());
    const char *args[] = {"-w", "-t", "60", "-l", logopt, "start", NULL};
    int st = harness_pg_ctl(args);
    harness_lock(LOCK_SH);
    cr_assert_eq(st, 0, "pg_ctl start failed (see %s and %s/pg_ctl.log)", logopt,
                 harness_cluster_dir());
}

#endif
