/* test_svc_nginx.c: the deployment topology of docker/compose.yml, proved without a container
 * engine: one database on the throw-away cluster, two cityd daemons on it, and Debian's nginx
 * (/usr/sbin/nginx, or $CITY_NGINX) running a copy of docker/nginx.conf whose upstream servers,
 * listen port and temporary paths are rewritten to loopback ports and a private directory.
 * Whole games are played through nginx's port only; the tests then read each daemon's
 * /metrics directly to see that both served them, check that Server-Sent Events pass through
 * nginx as they happen (an order sent through the balancer reaches a stream held on the other
 * instance), that the 64 KiB body cap matches the daemon's, and that /metrics stays with each
 * instance (nginx refuses it). */
#include "client.h"

#include <pthread.h>

/* ---- nginx as a child process ------------------------------------------------------------- */

struct balancer {
    pid_t pid; /* 0 when not running */
    int port;
    char base[64];   /* "http://127.0.0.1:PORT" */
    char dir[1100];  /* its prefix: the generated config, pid file, temp dirs, log */
    char log[1200];  /* its stdout (access log) and stderr (error log) */
    char conf[1200]; /* the generated copy of docker/nginx.conf */
};

static struct daemon d1, d2;
static struct balancer lb;
static char db[512];

static const char *nginx_path(void)
{
    return harness_env("CITY_NGINX", "/usr/sbin/nginx");
}

/* Reads a whole file into a new NUL-terminated string, or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 8192, n = 0;
    char *p = malloc(cap);
    size_t got;
    while (p && (got = fread(p + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *q = realloc(p, cap *= 2);
            if (!q) {
                free(p);
                p = NULL;
            }
            p = q;
        }
    }
    fclose(f);
    if (p)
        p[n] = 0;
    return p;
}

/* Replaces every occurrence of `from` in *text with `to` (a new string replaces *text) and
 * returns how many there were. */
static int replace_all(char **text, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    int count = 0;
    for (const char *p = *text; (p = strstr(p, from)) != NULL; p += fl)
        count++;
    if (!count)
        return 0;
    char *out = malloc(strlen(*text) + (size_t)count * (tl > fl ? tl - fl : 0) + 1);
    cr_assert_not_null(out);
    char *w = out;
    const char *r = *text;
    for (const char *p; (p = strstr(r, from)) != NULL; r = p + fl) {
        memcpy(w, r, (size_t)(p - r));
        w += p - r;
        memcpy(w, to, tl);
        w += tl;
    }
    strcpy(w, r);
    free(*text);
    *text = out;
    return count;
}

static const char *balancer_log_tail(char *buf, size_t n)
{
    struct daemon fake = {0};
    snprintf(fake.log, sizeof fake.log, "%s", lb.log);
    return daemon_log_tail(&fake, buf, n);
}

/* Waits up to `seconds` for nginx's master to exit; its status, or -1 while it runs. */
static int balancer_wait(double seconds)
{
    struct daemon fake = {.pid = lb.pid};
    int st = daemon_wait(&fake, seconds);
    lb.pid = fake.pid;
    return st;
}

/* Fast shutdown (SIGTERM: the master stops its workers), then SIGKILL to the whole process
 * group if it lingers. */
static void balancer_stop(void)
{
    if (lb.pid <= 0)
        return;
    pid_t group = lb.pid;
    kill(lb.pid, SIGTERM);
    if (balancer_wait(10) < 0) {
        kill(-group, SIGKILL);
        balancer_wait(10);
    }
    kill(-group, SIGKILL); /* any worker left behind by its master */
}

/* Writes a copy of docker/nginx.conf balancing d1 and d2 and starts nginx on it, in the
 * foreground as a child in its own process group; waits until /healthz answers through it. */
static void balancer_start(void)
{
    const char *nginx = nginx_path();
    char src[1100];
    snprintf(src, sizeof src, "%s/docker/nginx.conf", harness_env("CITY_ROOT", "."));
    const char *parent = harness_cluster_dir();
    snprintf(lb.dir, sizeof lb.dir, "%s/nginx-XXXXXX",
             parent ? parent : harness_env("TMPDIR", "/tmp"));
    cr_assert_not_null(mkdtemp(lb.dir), "mkdtemp %s: %s", lb.dir, strerror(errno));
    /* As root, nginx's workers run as `nobody`: they must reach the temp dirs in here. */
    chmod(lb.dir, 0755);
    snprintf(lb.log, sizeof lb.log, "%s/nginx.log", lb.dir);
    snprintf(lb.conf, sizeof lb.conf, "%s/nginx.conf", lb.dir);

    for (int attempt = 0; attempt < 3; attempt++) {
        char *text = slurp(src);
        cr_assert_not_null(text, "cannot read %s: %s", src, strerror(errno));
        lb.port = harness_free_port();
        char up1[64], up2[64], listen[64], temp[1200], pidopt[1300];
        snprintf(up1, sizeof up1, "127.0.0.1:%d", d1.port);
        snprintf(up2, sizeof up2, "127.0.0.1:%d", d2.port);
        snprintf(listen, sizeof listen, "listen 127.0.0.1:%d;", lb.port);
        snprintf(temp, sizeof temp, "%s/", lb.dir);
        /* (The file's opening comment names them too, which is harmless.) */
        cr_assert_geq(replace_all(&text, "city1:8080", up1), 1, "%s must name city1:8080", src);
        cr_assert_geq(replace_all(&text, "city2:8080", up2), 1, "%s must name city2:8080", src);
        cr_assert_geq(replace_all(&text, "listen 80;", listen), 1, "%s must say `listen 80;`", src);
        cr_assert_geq(replace_all(&text, "/var/cache/nginx/", temp), 1,
                      "%s must keep its temp paths under /var/cache/nginx/", src);
        FILE *f = fopen(lb.conf, "w");
        cr_assert_not_null(f, "cannot write %s: %s", lb.conf, strerror(errno));
        fputs(text, f);
        fclose(f);
        free(text);

        snprintf(pidopt, sizeof pidopt, "daemon off; pid %s/nginx.pid;", lb.dir);
        char prefix[1200];
        snprintf(prefix, sizeof prefix, "%s/", lb.dir);
        const char *argv[] = {nginx, "-p", prefix, "-c", lb.conf, "-g", pidopt, NULL};
        int logfd = open(lb.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        cr_assert(logfd >= 0, "cannot create %s: %s", lb.log, strerror(errno));
        pid_t me = getpid();
        fflush(NULL);
        pid_t pid = fork();
        cr_assert(pid >= 0, "fork: %s", strerror(errno));
        if (pid == 0) {
            setpgid(0, 0);
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGTERM); /* the master stops its workers on the way out */
            if (getppid() != me)
                _exit(127);
#else
            (void)me;
#endif
            dup2(logfd, 1);
            dup2(logfd, 2);
            int nul = open("/dev/null", O_RDONLY);
            if (nul >= 0)
                dup2(nul, 0);
            execv(nginx, (char *const *)(uintptr_t)argv);
            dprintf(2, "test: cannot run %s: %s\n", nginx, strerror(errno));
            _exit(127);
        }
        close(logfd);
        lb.pid = pid;
        snprintf(lb.base, sizeof lb.base, "http://127.0.0.1:%d", lb.port);

        char url[128];
        snprintf(url, sizeof url, "%s/healthz", lb.base);
        double until = harness_now() + 10;
        int exited = -1;
        while (harness_now() < until) {
            struct http_request rq = {.method = "GET", .url = url, .timeout_ms = 2000};
            struct http_reply r;
            bool got = http_request(&rq, &r);
            long status = r.status;
            http_reply_free(&r);
            if (got && status == 200)
                return;
            if ((exited = balancer_wait(0)) >= 0)
                break;
            harness_sleep_ms(50);
        }
        char tail[1500];
        balancer_log_tail(tail, sizeof tail);
        if (exited < 0) {
            balancer_stop();
            cr_assert_fail(
                "nginx did not answer /healthz through the proxy within 10 s; log %s:\n%s", lb.log,
                tail);
        }
        /* Someone took the port between our pick and nginx's bind: try another. */
        cr_assert(strstr(tail, "in use") != NULL, "nginx exited with status %d; log %s:\n%s",
                  exited, lb.log, tail);
    }
    cr_assert_fail("nginx found no free port in 3 attempts; log %s", lb.log);
}

static void up(void)
{
    cr_assert(access(nginx_path(), X_OK) == 0,
              "nginx is missing (%s): install Debian's package `nginx` (apt-get install -y nginx; "
              "scripts/deps.sh does) or set CITY_NGINX to an nginx binary",
              nginx_path());
    db_create(db, sizeof db);
    daemon_start(&d1, db, NULL);
    daemon_start(&d2, db, NULL);
    balancer_start();
    client_base = lb.base;
}

static void down(void)
{
    balancer_stop();
    daemon_stop(&d1);
    daemon_stop(&d2);
}

TestSuite(topology, .init = up, .fini = down, .timeout = 120);

/* ---- a client that knows only the balancer's address (as in tests/test_svc_api.c) -------- */

/* The sum of city_http_requests_total{route="ROUTE",...} over every status, read from the
 * daemon directly (not through nginx). */
static long long requests_served(const struct daemon *d, const char *route)
{
    char url[128], prefix[128];
    snprintf(url, sizeof url, "%s/metrics", d->base);
    snprintf(prefix, sizeof prefix, "city_http_requests_total{route=\"%s\",", route);
    struct http_reply r;
    cr_assert(http_do("GET", url, NULL, NULL, &r), "GET %s: %s", url, r.error);
    cr_assert_eq(r.status, 200, "GET %s -> %ld", url, r.status);
    long long total = 0;
    for (char *line = r.body; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            char *sp = strrchr(line, ' ');
            if (sp)
                total += strtoll(sp + 1, NULL, 10);
        }
        line = end ? end + 1 : NULL;
    }
    http_reply_free(&r);
    return total;
}

/* ---- games through the balancer ----------------------------------------------------------- */

Test(topology, whole_games_through_nginx_are_served_by_both_instances)
{
    static const int shapes[][2] = {{2, 1}, {3, 1}, {4, 2}, {5, 4}}; /* seats, bots */
    for (size_t g = 0; g < sizeof shapes / sizeof *shapes; g++) {
        struct table t;
        create(&t, shapes[g][0], shapes[g][1], NULL);
        play_to_end(&t);
        check_log(&t);
    }
    /* Dozens of requests of each of these routes: least_conn (round robin among idle
     * instances, shared by nginx's workers through the zone) gives each instance some. The
     * four create_game requests are too few to say so of them: they are only counted. */
    const char *routes[] = {"get_game", "hand", "orders", "create_game"};
    long long total = 0;
    for (size_t i = 0; i < sizeof routes / sizeof *routes; i++) {
        long long a = requests_served(&d1, routes[i]), b = requests_served(&d2, routes[i]);
        if (strcmp(routes[i], "create_game") != 0) {
            cr_expect_gt(a, 0, "instance 1 (%s) served no %s request", d1.base, routes[i]);
            cr_expect_gt(b, 0, "instance 2 (%s) served no %s request", d2.base, routes[i]);
        }
        total += a + b;
        cr_log_info("%s: instance 1 %lld, instance 2 %lld", routes[i], a, b);
    }
    /* Every request went through nginx to one of the two: none was lost or served twice. */
    cr_expect_eq(requests_served(&d1, "create_game") + requests_served(&d2, "create_game"), 4);
    cr_expect_gt(total, 40);
}

/* ---- Server-Sent Events through the balancer ---------------------------------------------- */

struct stream {
    char url[512];
    pthread_mutex_t mu;
    char *buf;
    size_t len, cap;
    double opened; /* when the request started */
    double first;  /* when the first byte arrived; 0 before */
    bool done;     /* the transfer ended */
    CURLcode rc;
    long status;
    char ctype[128];
};

static size_t stream_write(char *data, size_t size, size_t nmemb, void *ud)
{
    struct stream *s = ud;
    size_t add = size * nmemb;
    pthread_mutex_lock(&s->mu);
    if (!s->first)
        s->first = harness_now();
    if (s->len + add + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 8192;
        while (cap < s->len + add + 1)
            cap *= 2;
        char *p = realloc(s->buf, cap);
        if (!p) {
            pthread_mutex_unlock(&s->mu);
            return 0;
        }
        s->buf = p;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, add);
    s->len += add;
    s->buf[s->len] = 0;
    pthread_mutex_unlock(&s->mu);
    return add;
}

static void *stream_run(void *arg)
{
    struct stream *s = arg;
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, s->url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 60000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, stream_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    s->opened = harness_now();
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    char *ct = NULL;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
    pthread_mutex_lock(&s->mu);
    s->rc = rc;
    s->status = status;
    snprintf(s->ctype, sizeof s->ctype, "%s", ct ? ct : "");
    s->done = true;
    pthread_mutex_unlock(&s->mu);
    curl_easy_cleanup(c);
    return NULL;
}

/* The highest "id: N" line the stream has delivered so far (0 for none). */
static long long stream_last_id(struct stream *s)
{
    long long last = 0;
    pthread_mutex_lock(&s->mu);
    for (const char *p = s->buf; p && (p = strstr(p, "id: ")) != NULL; p += 4)
        if (p == s->buf || p[-1] == '\n') {
            long long v = strtoll(p + 4, NULL, 10);
            if (v > last)
                last = v;
        }
    pthread_mutex_unlock(&s->mu);
    return last;
}

/* Waits up to `seconds` for an event with id >= `id`; the time it was seen, or 0. */
static double stream_await(struct stream *s, long long id, double seconds)
{
    double until = harness_now() + seconds;
    while (harness_now() < until) {
        if (stream_last_id(s) >= id)
            return harness_now();
        pthread_mutex_lock(&s->mu);
        bool done = s->done;
        pthread_mutex_unlock(&s->mu);
        if (done)
            return stream_last_id(s) >= id ? harness_now() : 0;
        harness_sleep_ms(5);
    }
    return 0;
}

Test(topology, events_stream_through_nginx_as_they_happen)
{
    struct table t;
    create(&t, 2, 1, NULL);
    struct stream s = {0};
    pthread_mutex_init(&s.mu, NULL);
    snprintf(s.url, sizeof s.url, "%s/api/v1/games/%s/stream", lb.base, t.id);
    long long streams_before = requests_served(&d1, "stream") + requests_served(&d2, "stream");
    pthread_t th;
    pthread_create(&th, NULL, stream_run, &s);

    /* The backlog (the game's creation, the first step) comes at once. */
    cr_assert_neq(stream_await(&s, 1, 10), 0, "no event through nginx within 10 s: %s",
                  s.buf ? s.buf : "(nothing)");
    cr_expect_lt(s.first - s.opened, 3.0, "the first bytes took %.2f s", s.first - s.opened);
    harness_sleep_ms(200); /* let the backlog settle */

    /* Each order sent through the balancer shows up on the open stream within a moment, while
     * the stream stays open: nginx neither buffers nor waits for the response to end. */
    int live = 0;
    double worst = 0;
    for (int i = 0; i < 400; i++) {
        long long before = stream_last_id(&s);
        double sent = harness_now();
        if (!play_step(&t))
            break;
        double seen = stream_await(&s, before + 1, 5);
        cr_assert_neq(seen, 0, "no new event through nginx within 5 s of an order (last id %lld)",
                      before);
        if (seen - sent > worst)
            worst = seen - sent;
        pthread_mutex_lock(&s.mu);
        bool done = s.done;
        pthread_mutex_unlock(&s.mu);
        if (!done)
            live++;
    }
    cr_expect_geq(live, 3, "events arrived only after the stream ended");
    cr_log_info("%d steps streamed live through nginx; slowest event %.3f s after its order", live,
                worst);

    /* The game is over: the daemon ends the stream, nginx ends it too. */
    pthread_join(th, NULL);
    cr_expect_eq(s.rc, CURLE_OK, "the stream ended with %s", curl_easy_strerror(s.rc));
    cr_expect_eq(s.status, 200);
    cr_expect_str_eq(s.ctype, "text/event-stream");
    long long last = check_log(&t);
    cr_expect(strstr(s.buf, "event: game_over") != NULL, "no game_over on the stream");
    /* Every event of the log came through the stream exactly once, in order. */
    const char *p = s.buf;
    for (long long id = 1; id <= last; id++) {
        char needle[40];
        snprintf(needle, sizeof needle, "\nid: %lld\n", id);
        const char *at = (id == 1 && strncmp(s.buf, needle + 1, strlen(needle + 1)) == 0)
                             ? s.buf
                             : strstr(p, needle);
        cr_assert_not_null(at, "event %lld missing from the stream (or out of order)", id);
        p = at + 1;
    }
    cr_expect_eq(stream_last_id(&s), last);

    /* The stream was held by one instance; least_conn sent the orders to the other one while
     * it was open, so the events reached it through PostgreSQL's LISTEN/NOTIFY. */
    long long st1 = requests_served(&d1, "stream"), st2 = requests_served(&d2, "stream");
    cr_expect_eq(st1 + st2 - streams_before, 1, "one stream request, got %lld + %lld", st1, st2);
    const struct daemon *other = st1 > 0 ? &d2 : &d1;
    cr_expect_gt(requests_served(other, "orders"), 0,
                 "the instance without the stream (%s) served no order", other->base);
    free(s.buf);
    pthread_mutex_destroy(&s.mu);
}

/* ---- limits --------------------------------------------------------------------------------- */

Test(topology, nginx_caps_bodies_at_64_KiB_like_the_daemon)
{
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games", lb.base);
    /* Just under the cap: nginx passes it on and the daemon creates the game. */
    const char *head = "{\"seats\": 2, \"bots\": [\"greedy\"]";
    size_t small = 60 * 1024;
    char *body = malloc(100 * 1024 + 1);
    cr_assert_not_null(body);
    memset(body, ' ', 100 * 1024);
    memcpy(body, head, strlen(head));
    body[small - 1] = '}';
    struct http_reply r;
    cr_assert(http_raw("POST", url, NULL, "application/json", body, small, &r), "%s", r.error);
    cr_expect_eq(r.status, 201, "a 60 KiB body through nginx -> %ld: %s", r.status, r.body);
    http_reply_free(&r);
    /* Over it: nginx answers 413 itself, in the daemon's problem format. */
    size_t big = 100 * 1024;
    body[small - 1] = ' ';
    body[big - 1] = '}';
    cr_assert(http_raw("POST", url, NULL, "application/json", body, big, &r), "%s", r.error);
    cr_expect_eq(r.status, 413);
    cr_expect_str_eq(r.content_type, "application/problem+json");
    cr_assert_not_null(r.json, "the 413 is not JSON: %s", r.body);
    cr_expect_str_eq(str(r.json, "code"), "body_too_large");
    cr_expect_eq(num(r.json, "status"), 413);
    http_reply_free(&r);
    free(body);
}

Test(topology, nginx_keeps_the_metrics_to_each_instance)
{
    /* Through the balancer every client would come from its private address, which an instance
     * lets read /metrics: nginx refuses them in the daemon's problem format. */
    char url[256];
    snprintf(url, sizeof url, "%s/metrics", lb.base);
    struct http_reply r;
    cr_assert(http_do("GET", url, NULL, NULL, &r), "GET %s: %s", url, r.error);
    cr_expect_eq(r.status, 403, "GET /metrics through nginx -> %ld", r.status);
    cr_expect_str_eq(r.content_type, "application/problem+json");
    cr_assert_not_null(r.json, "the 403 is not JSON: %s", r.body);
    cr_expect_str_eq(str(r.json, "code"), "metrics_forbidden");
    http_reply_free(&r);
    /* Each instance still serves them to its own scraper. */
    snprintf(url, sizeof url, "%s/metrics", d1.base);
    cr_assert(http_do("GET", url, NULL, NULL, &r), "GET %s: %s", url, r.error);
    cr_expect_eq(r.status, 200);
    http_reply_free(&r);
}
