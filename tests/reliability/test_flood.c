/* test_flood.c: the reliability suite's crowds and connection floods. A real daemon (the
 * sanitizer build under `make test`) is held open by thousands of idle connections and of
 * connections that trickle their request head a line at a time, by more connections from one
 * address than it allows, and by thousands of idle event streams; meanwhile other clients must
 * be served: a whole game is played to its end, /healthz answers, a second loopback address
 * (127.0.0.2) is unaffected, and news of one game wakes only that game's streams. Stream caps
 * answer 503 too_many_streams with Retry-After; the X-Forwarded-For of an untrusted peer is
 * ignored; a flood of cheap requests does not hold another person's expert moves.
 *
 * The connections are raw sockets (this process raises its own open-file limit); every one is
 * counted, and each test appends "flood_connections N" and finer keys to $CITY_COUNTS. */
#include "suite.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>

static struct daemon d;
static char db[512];

enum kind { K_CONNS, K_TRICKLED, K_STREAMS, K_REFUSED, K_COUNT };
static const char *const count_keys[K_COUNT] = {"flood_connections", "flood_trickling_heads",
                                                "flood_idle_streams", "flood_refused_connections"};
static long counts[K_COUNT];

static void counts_append(void)
{
    suite_counts_append(count_keys, counts, K_COUNT);
}

static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void up_with(const char *args)
{
    signal(SIGPIPE, SIG_IGN);
    raise_nofile();
    db_create(db, sizeof db);
    daemon_start(&d, db, args);
    client_base = d.base;
}

static void down(void)
{
    counts_append();
    daemon_stop(&d);
}

static void stops_cleanly(void)
{
    suite_stops_cleanly(&d);
}

/* ---- raw sockets -------------------------------------------------------------------------- */

/* A non-blocking TCP connection from `from` (e.g. "127.0.0.2") to the daemon; -1 on failure. */
static int connect_from(const char *from)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in src = {.sin_family = AF_INET};
    inet_pton(AF_INET, from, &src.sin_addr);
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d.port)};
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    if (bind(fd, (struct sockaddr *)&src, sizeof src) != 0 ||
        connect(fd, (struct sockaddr *)&dst, sizeof dst) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool send_all(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0)
            return false;
        s += w;
        n -= (size_t)w;
    }
    return true;
}

/* Reads what arrives within timeout_ms into buf (NUL-terminated); the bytes read, 0 when the
 * peer closed with nothing, -1 when nothing came in time. */
static ssize_t read_some(int fd, char *buf, size_t n, long timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, (int)timeout_ms) <= 0)
        return -1;
    ssize_t r = recv(fd, buf, n - 1, 0);
    buf[r > 0 ? r : 0] = 0;
    return r < 0 ? 0 : r;
}

/* Reads until `needle` has arrived, the peer closed or timeout_ms passed; true when it came. */
static bool read_until(int fd, const char *needle, long timeout_ms, char *buf, size_t n)
{
    size_t got = 0;
    buf[0] = 0;
    double until = harness_now() + timeout_ms / 1000.0;
    while (!strstr(buf, needle) && got < n - 1) {
        long left = (long)((until - harness_now()) * 1000);
        if (left <= 0)
            break;
        ssize_t r = read_some(fd, buf + got, n - got, left);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return strstr(buf, needle) != NULL;
}

/* One request from address `from` on a new connection; the status of the reply (0 when the
 * connection was closed with no reply), with the body copied into body when not NULL. */
static int request_from(const char *from, const char *method, const char *path, const char *body,
                        char *out, size_t outlen)
{
    int fd = connect_from(from);
    if (fd < 0)
        return 0;
    char req[2048];
    snprintf(req, sizeof req,
             "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n%s",
             method, path, body ? strlen(body) : 0, body ? body : "");
    int status = 0;
    static __thread char buf[256 * 1024];
    size_t got = 0;
    if (send_all(fd, req)) {
        ssize_t r;
        while (got < sizeof buf - 1 && (r = read_some(fd, buf + got, sizeof buf - got, 5000)) > 0)
            got += (size_t)r;
        buf[got] = 0;
        sscanf(buf, "HTTP/1.%*d %d", &status);
    }
    if (out) {
        const char *b = strstr(buf, "\r\n\r\n");
        snprintf(out, outlen, "%s", b && got ? b + 4 : "");
    }
    close(fd);
    return status;
}

/* A figure from GET /metrics: the value on the line starting with `line` ("name" or
 * "name{labels}"), or -1. */
/* The value on the line of Prometheus text `text` that starts with `line`, or -1. */
static double metric_in(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, line, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    return -1;
}

static double metric(const char *line)
{
    char url[128];
    snprintf(url, sizeof url, "%s/metrics", d.base);
    struct http_reply r;
    double v = -1;
    if (http_do("GET", url, NULL, NULL, &r) && r.status == 200 && r.body)
        v = metric_in(r.body, line);
    http_reply_free(&r);
    return v;
}

/* GET /healthz answers 200 within `seconds`; returns how long it took. */
static double healthz_seconds(double seconds)
{
    char url[128];
    snprintf(url, sizeof url, "%s/healthz", d.base);
    struct http_request rq = {.method = "GET", .url = url, .timeout_ms = (long)(seconds * 1000)};
    struct http_reply r;
    double t0 = harness_now();
    bool got = http_request(&rq, &r);
    long st = r.status;
    http_reply_free(&r);
    double took = harness_now() - t0;
    cr_assert(got && st == 200, "GET /healthz -> %ld within %.1f s while flooded", st, seconds);
    return took;
}

/* ---- idle and trickling connections ------------------------------------------------------- */

enum { IDLE = 5000, TRICKLING = 1000, HEAD_TIMEOUT_S = 12 };

TestSuite(flood, .fini = down, .timeout = 240);

Test(flood, idle_and_trickling_connections_neither_stop_a_game_nor_outlive_the_head_deadline)
{
    char args[200];
    snprintf(args, sizeof args,
             "--timeout 60 --head-timeout %d --max-per-address 0 --max-connections 12000",
             HEAD_TIMEOUT_S);
    up_with(args);
    static int fds[IDLE + TRICKLING];
    int open = 0;
    for (int i = 0; i < IDLE + TRICKLING; i++) {
        fds[i] = connect_from("127.0.0.1");
        cr_assert_geq(fds[i], 0, "connection %d of the flood could not be opened: %s", i,
                      strerror(errno));
        open++;
    }
    counts[K_CONNS] += open;
    counts[K_TRICKLED] += TRICKLING;
    double opened = harness_now();
    /* The trickling ones send a request line now and a header line every second. */
    for (int i = IDLE; i < IDLE + TRICKLING; i++)
        cr_assert(send_all(fds[i], "GET /healthz HTTP/1.1\r\n"));
    harness_sleep_ms(500);
    cr_expect_geq(metric("city_connections"), IDLE + TRICKLING,
                  "the daemon does not hold the whole flood open");
    double worst = healthz_seconds(5);

    /* A whole game, played while the flood holds on. */
    struct table t;
    create(&t, 3, 2, NULL);
    int steps = 0;
    double next_trickle = harness_now() + 1;
    while (play_step(&t)) {
        steps++;
        if (harness_now() >= next_trickle) {
            for (int i = IDLE; i < IDLE + TRICKLING; i++)
                send_all(fds[i], "X-Trickle: a\r\n");
            next_trickle = harness_now() + 1;
            double h = healthz_seconds(5);
            worst = h > worst ? h : worst;
        }
        cr_assert_lt(steps, 400, "the game does not end");
    }
    check_log(&t);
    cr_log_info("a game of %d steps played beside %d idle and %d trickling connections; "
                "slowest /healthz %.3f s",
                steps, IDLE, TRICKLING, worst);

    /* Past the head deadline the daemon has cut every one of them, trickling or not. */
    while (harness_now() < opened + HEAD_TIMEOUT_S + 4) {
        for (int i = IDLE; i < IDLE + TRICKLING; i++)
            send_all(fds[i], "X-Trickle: a\r\n");
        harness_sleep_ms(1000);
    }
    int closed = 0;
    for (int i = 0; i < IDLE + TRICKLING; i++) {
        char buf[256];
        ssize_t r = read_some(fds[i], buf, sizeof buf, 2000);
        closed += r == 0 || (r < 0 && errno == ECONNRESET);
        close(fds[i]);
    }
    cr_expect_eq(closed, IDLE + TRICKLING,
                 "%d of %d connections that never finished their request head are still open "
                 "%d s after they opened",
                 IDLE + TRICKLING - closed, IDLE + TRICKLING, HEAD_TIMEOUT_S + 4);
    cr_expect_geq(metric("city_connections_cut_total{reason=\"head_timeout\"}"), IDLE + TRICKLING);
    healthz_seconds(5);
    stops_cleanly();
}

Test(flood, connections_past_the_per_address_limit_are_refused_while_another_address_is_served)
{
    up_with("--max-per-address 50");
    enum { HOLD = 200 };
    int fds[HOLD], held = 0;
    for (int i = 0; i < HOLD; i++) {
        fds[i] = connect_from("127.0.0.1");
        held += fds[i] >= 0;
    }
    counts[K_CONNS] += held;
    harness_sleep_ms(500);
    /* Every connection past the 50th was closed at once. */
    int refused = 0;
    for (int i = 0; i < HOLD; i++) {
        char buf[64];
        if (fds[i] >= 0 && read_some(fds[i], buf, sizeof buf, 200) >= 0)
            refused++;
    }
    counts[K_REFUSED] += refused;
    cr_expect_geq(refused, HOLD - 50, "only %d of %d connections past the limit were refused",
                  refused, HOLD - 50);
    /* Read from the other address: this one has no connection to spare. */
    static char text[256 * 1024];
    cr_assert_eq(request_from("127.0.0.2", "GET", "/metrics", NULL, text, sizeof text), 200);
    double open = metric_in(text, "city_connections");
    cr_expect(open >= 50 && open <= 60, "%.0f connections open; the limit is 50 an address", open);
    /* Another address creates a game, joins it and reads its hand. */
    char body[4096];
    cr_assert_eq(request_from("127.0.0.2", "GET", "/healthz", NULL, NULL, 0), 200);
    cr_assert_eq(request_from("127.0.0.2", "POST", "/api/v1/games",
                              "{\"seats\": 2, \"bots\": [\"greedy\"]}", body, sizeof body),
                 201, "create from 127.0.0.2: %s", body);
    json_t *g = json_loads(body, 0, NULL);
    char path[200];
    snprintf(path, sizeof path, "/api/v1/games/%s/join", str(g, "id"));
    cr_assert_eq(
        request_from("127.0.0.2", "POST", path, "{\"name\": \"Other\"}", body, sizeof body), 201,
        "join from 127.0.0.2: %s", body);
    json_decref(g);
    for (int i = 0; i < HOLD; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    harness_sleep_ms(300);
    /* Once the flood is gone, its address is served again. */
    cr_assert_eq(request_from("127.0.0.1", "GET", "/healthz", NULL, NULL, 0), 200);
    stops_cleanly();
}

/* ---- many addresses against the connection cap ------------------------------------------- */

enum { CROWD_ADDRS = 12, CROWD_EACH = 64, CROWD_CAP = 600 };

/* The crowd: CROWD_ADDRS addresses (127.0.1.1...) each holding CROWD_EACH idle connections,
 * every one reopened as soon as the daemon cuts or refuses it, until `stop`. */
struct crowd {
    int fds[CROWD_ADDRS * CROWD_EACH];
    atomic_bool stop;
    long reopened;
};

static void crowd_open(struct crowd *c, int i)
{
    char from[32];
    snprintf(from, sizeof from, "127.0.1.%d", 1 + i / CROWD_EACH);
    c->fds[i] = connect_from(from);
}

static void *crowd_main(void *arg)
{
    struct crowd *c = arg;
    while (!atomic_load(&c->stop)) {
        for (int i = 0; i < CROWD_ADDRS * CROWD_EACH; i++) {
            char buf[64];
            if (c->fds[i] >= 0 && read_some(c->fds[i], buf, sizeof buf, 0) < 0)
                continue; /* still held */
            if (c->fds[i] >= 0)
                close(c->fds[i]);
            crowd_open(c, i);
            c->reopened++;
        }
        harness_sleep_ms(20);
    }
    return NULL;
}

/* A dozen addresses holding idle connections past the instance's cap, reopening each one the
 * moment it is cut or refused, leave room for another address: the connections of addresses
 * that hold many are refused once only the headroom is left, and idle ones are reclaimed, so
 * a newcomer's /healthz on a fresh connection never fails and stays fast, and it can create a
 * game. Before, the cap was one pool: the crowd filled it and the newcomer waited in the
 * listen queue until its request timed out. */
Test(flood, a_crowd_of_addresses_at_the_connection_cap_leaves_room_for_another)
{
    char args[200];
    snprintf(args, sizeof args, "--max-connections %d --max-per-address %d --head-timeout 120",
             CROWD_CAP, CROWD_EACH);
    up_with(args);
    static struct crowd c;
    atomic_init(&c.stop, false);
    for (int i = 0; i < CROWD_ADDRS * CROWD_EACH; i++)
        crowd_open(&c, i);
    counts[K_CONNS] += CROWD_ADDRS * CROWD_EACH;
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, crowd_main, &c), 0);
    harness_sleep_ms(1000);
    enum { TRIES = 100 };
    double took[TRIES];
    int failed = 0, tried = 0;
    for (int i = 0; i < TRIES && failed < 3; i++, tried++) { /* a failure waits 5 s */
        double t0 = harness_now();
        failed += request_from("127.0.0.200", "GET", "/healthz", NULL, NULL, 0) != 200;
        took[i] = harness_now() - t0;
        harness_sleep_ms(20);
    }
    char body[4096];
    double t0 = harness_now();
    int created = request_from("127.0.0.200", "POST", "/api/v1/games",
                               "{\"seats\": 2, \"bots\": [\"greedy\"]}", body, sizeof body);
    double create_s = harness_now() - t0;
    static char text[256 * 1024];
    int mst = request_from("127.0.0.200", "GET", "/metrics", NULL, text, sizeof text);
    atomic_store(&c.stop, true);
    pthread_join(th, NULL);
    for (int i = 0; i < CROWD_ADDRS * CROWD_EACH; i++)
        if (c.fds[i] >= 0)
            close(c.fds[i]);
    counts[K_REFUSED] += c.reopened;
    for (int i = tried; i < TRIES; i++)
        took[i] = 5.0;              /* not tried: as a failure */
    for (int i = 1; i < TRIES; i++) /* insertion sort: took[] ascending */
        for (int k = i; k > 0 && took[k] < took[k - 1]; k--) {
            double x = took[k];
            took[k] = took[k - 1];
            took[k - 1] = x;
        }
    double p99 = took[TRIES * 99 / 100 - 1];
    cr_log_info("a crowd of %d addresses x %d connections at a cap of %d (reopened %ld times): "
                "another address's /healthz failed %d of %d, p50 %.1f ms, p99 %.1f ms; create "
                "%.1f ms",
                CROWD_ADDRS, CROWD_EACH, CROWD_CAP, c.reopened, failed, tried,
                took[TRIES / 2] * 1000, p99 * 1000, create_s * 1000);
    cr_expect_eq(failed, 0, "another address's /healthz failed %d of %d times", failed, tried);
    cr_expect_lt(p99, 0.1, "another address's /healthz p99 %.1f ms", p99 * 1000);
    cr_expect_eq(created, 201, "create from another address: %d %s", created, body);
    cr_expect_lt(create_s, 1.0, "create took %.2f s", create_s);
    cr_assert_eq(mst, 200);
    cr_expect_gt(metric_in(text, "city_connections_refused_total{reason=\"crowded\"}"), 0,
                 "no connection of the crowd was refused for the headroom");
    cr_expect_leq(metric_in(text, "city_connections"), CROWD_CAP, "past the cap");
    stops_cleanly();
}

/* ---- event streams ------------------------------------------------------------------------ */

/* Opens a stream of game `id` from 127.0.0.1 and reads its first bytes: the fd, or -1 when the
 * reply was not 200 (its status in *status). */
/* As open_stream(), from address `from` and with a bearer token when `token` is not NULL. */
static int open_stream_as(const char *from, const char *token, const char *id, int *status)
{
    int fd = connect_from(from);
    cr_assert_geq(fd, 0);
    char req[512], auth[200] = "";
    if (token)
        snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", token);
    /* Connection: close, so that a refusal ends the connection at once rather than after the
     * 10 s wait for "retry:" below (a stream stays open until it ends either way). */
    snprintf(req, sizeof req,
             "GET /api/v1/games/%s/stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n%s\r\n", id,
             auth);
    cr_assert(send_all(fd, req));
    char buf[2048];
    *status = 0;
    bool opened = read_until(fd, "retry:", 10000, buf, sizeof buf);
    sscanf(buf, "HTTP/1.%*d %d", status);
    if (*status == 200 && !opened)
        *status = -1; /* a 200 with no first event-stream line */
    if (*status != 200) {
        if (*status == 503)
            cr_expect(strcasestr(buf, "Retry-After:") && strstr(buf, "too_many_streams"),
                      "a refused stream says why and when to retry: %s", buf);
        close(fd);
        return -1;
    }
    return fd;
}

static int open_stream(const char *id, int *status)
{
    return open_stream_as("127.0.0.1", NULL, id, status);
}

/* True when the daemon has ended stream fd within ms: the connection closed, or the chunked
 * reply's last chunk came (the connection may then stay open for another request). */
static bool stream_ended(int fd, long ms)
{
    char buf[4096];
    double until = harness_now() + ms / 1000.0;
    for (;;) {
        long left = (long)((until - harness_now()) * 1000);
        if (left <= 0)
            return false;
        ssize_t r = read_some(fd, buf, sizeof buf, left);
        if (r == 0 || (r > 0 && strstr(buf, "\r\n0\r\n\r\n")))
            return true;
        if (r < 0)
            return false;
    }
}

TestSuite(streams, .fini = down, .timeout = 240);

Test(streams, news_of_one_game_wakes_only_that_games_streams)
{
    up_with("--max-per-address 0");
    enum { WATCHERS = 2000 };
    struct table quiet;
    json_t *q = call("POST", "/api/v1/games", NULL, "{\"seats\": 3}", 201);
    snprintf(quiet.id, sizeof quiet.id, "%s", str(q, "id"));
    json_decref(q);
    static int fds[WATCHERS];
    for (int i = 0; i < WATCHERS; i++) {
        int st;
        fds[i] = open_stream(quiet.id, &st);
        cr_assert_geq(fds[i], 0, "stream %d -> %d", i, st);
    }
    counts[K_STREAMS] += WATCHERS;
    harness_sleep_ms(500);
    cr_expect_eq(metric("city_streams{state=\"parked\"}"), WATCHERS,
                 "idle streams must be parked, holding no thread");
    double before = metric("city_stream_wakeups_total");
    cr_assert_geq(before, 0, "/metrics has no city_stream_wakeups_total");

    /* A whole game elsewhere: none of the quiet game's streams is woken. */
    struct table t;
    create(&t, 2, 1, NULL);
    play_to_end(&t);
    cr_expect_eq(metric("city_stream_wakeups_total"), before,
                 "a game's news woke streams of another game");
    healthz_seconds(5);

    /* News of the quiet game wakes each of its streams once, and each gets the event. */
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/join", quiet.id);
    json_decref(call("POST", path, NULL, "{\"name\": \"Late\"}", 201));
    int got = 0;
    for (int i = 0; i < WATCHERS; i++) {
        char buf[4096];
        got += read_until(fds[i], "joined", 10000, buf, sizeof buf);
        close(fds[i]);
    }
    cr_expect_eq(got, WATCHERS, "only %d of %d streams saw the join", got, WATCHERS);
    cr_expect_geq(metric("city_stream_wakeups_total"), before + WATCHERS);
    stops_cleanly();
}

Test(streams, caps_per_game_and_per_instance_answer_503_with_retry_after)
{
    up_with("--max-streams 12 --max-streams-per-game 5");
    char ids[4][64];
    for (int g = 0; g < 4; g++) {
        json_t *q = call("POST", "/api/v1/games", NULL, "{\"seats\": 2}", 201);
        snprintf(ids[g], sizeof ids[g], "%s", str(q, "id"));
        json_decref(q);
    }
    int fds[16], n = 0, st;
    for (int i = 0; i < 5; i++) {
        fds[n] = open_stream(ids[0], &st);
        cr_assert_geq(fds[n++], 0, "stream %d of game 0 -> %d", i, st);
    }
    cr_expect_eq(open_stream(ids[0], &st), -1);
    cr_expect_eq(st, 503, "the 6th stream of one game -> %d", st);
    for (int i = 0; i < 7; i++) {
        fds[n] = open_stream(ids[1 + i / 4], &st);
        cr_assert_geq(fds[n++], 0, "stream %d -> %d", i, st);
    }
    cr_expect_eq(open_stream(ids[3], &st), -1);
    cr_expect_eq(st, 503, "the 13th stream of the instance -> %d", st);
    cr_expect_eq(metric("city_streams_refused_total"), 2);
    /* A stream that ends frees its place. */
    close(fds[0]);
    harness_sleep_ms(300);
    struct table t = {0};
    snprintf(t.id, sizeof t.id, "%s", ids[0]);
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/join", ids[0]);
    json_decref(call("POST", path, NULL, "{\"name\": \"Waker\"}", 201)); /* wakes the closed one */
    harness_sleep_ms(300);
    int again = open_stream(ids[0], &st);
    cr_expect_geq(again, 0, "a freed place is not given again (-> %d)", st);
    if (again >= 0)
        close(again);
    for (int i = 1; i < n; i++)
        close(fds[i]);
    stops_cleanly();
}

/* Streams are not first come, first served: one address holds at most its share, and a
 * player's stream (opened with a seat token) ends a watcher's when the game's or the instance's
 * cap is reached, the watcher of the address that holds the most; a token of another game counts as
 * none. Before, 8 addresses x 256 watchers shut a game's own player out of its stream. */
Test(streams, a_player_always_gets_its_stream_and_one_address_cannot_take_them_all)
{
    up_with("--max-streams 20 --max-streams-per-game 10 --max-streams-per-address 8");
    struct table a, b;
    create(&a, 2, 1, NULL);
    create(&b, 2, 1, NULL);
    int fds[32], n = 0, st;
    for (int i = 0; i < 8; i++) {
        fds[n] = open_stream_as("127.0.1.1", NULL, a.id, &st);
        cr_assert_geq(fds[n++], 0, "watcher %d of 127.0.1.1 -> %d", i, st);
    }
    cr_expect_eq(open_stream_as("127.0.1.1", NULL, b.id, &st), -1);
    cr_expect_eq(st, 503, "a 9th stream of one address -> %d", st);
    for (int i = 0; i < 2; i++) {
        fds[n] = open_stream_as("127.0.1.2", NULL, a.id, &st);
        cr_assert_geq(fds[n++], 0, "watcher %d of 127.0.1.2 -> %d", i, st);
    }
    cr_expect_eq(open_stream_as("127.0.1.3", NULL, a.id, &st), -1);
    cr_expect_eq(st, 503, "an 11th watcher of game a -> %d", st);
    /* Game a's player gets in; a watcher of 127.0.1.1 (which holds the most) is ended. */
    int player = open_stream_as("127.0.1.3", a.tokens[0], a.id, &st);
    cr_expect_geq(player, 0, "game a's player -> %d", st);
    int ended = 0, from_first = 0;
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0 && stream_ended(fds[i], i == 0 ? 2000 : 100)) {
            ended++;
            from_first += i < 8;
            close(fds[i]);
            fds[i] = -1;
        }
    cr_expect_eq(ended, 1, "%d watchers were ended for the player", ended);
    cr_expect_eq(from_first, 1, "the watcher ended was not of the address holding the most");
    /* The instance: 10 streams of game a; 8 watchers of b from two more addresses bring it to
     * 18, the 19th and 20th too, then a 21st watcher is refused and b's player gets in. */
    for (int i = 0; i < 10; i++) {
        fds[n] = open_stream_as(i < 8 ? "127.0.1.4" : "127.0.1.5", NULL, b.id, &st);
        cr_assert_geq(fds[n++], 0, "watcher %d of game b -> %d", i, st);
    }
    cr_expect_eq(open_stream_as("127.0.1.6", NULL, b.id, &st), -1);
    cr_expect_eq(st, 503, "a 21st stream of the instance -> %d", st);
    int player_b = open_stream_as("127.0.1.6", b.tokens[0], b.id, &st);
    cr_expect_geq(player_b, 0, "game b's player at the instance's cap -> %d", st);
    cr_expect_eq(metric("city_streams_evicted_total"), 2);
    /* A token of another game is no seat of this one: a watcher's stream, refused at the cap. */
    cr_expect_eq(open_stream_as("127.0.1.7", b.tokens[0], a.id, &st), -1);
    cr_expect_eq(st, 503, "another game's token at the cap -> %d", st);
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (player >= 0)
        close(player);
    if (player_b >= 0)
        close(player_b);
    stops_cleanly();
}

Test(streams, a_stopping_daemon_ends_parked_streams_and_exits_cleanly)
{
    up_with("");
    json_t *q = call("POST", "/api/v1/games", NULL, "{\"seats\": 2}", 201);
    char id[64];
    snprintf(id, sizeof id, "%s", str(q, "id"));
    json_decref(q);
    int fds[50], st;
    for (int i = 0; i < 50; i++) {
        fds[i] = open_stream(id, &st);
        cr_assert_geq(fds[i], 0);
    }
    stops_cleanly();
    for (int i = 0; i < 50; i++) {
        char buf[256];
        ssize_t r;
        while ((r = read_some(fds[i], buf, sizeof buf, 2000)) > 0)
            ;
        cr_expect_eq(r, 0, "stream %d was not ended by the stopping daemon", i);
        close(fds[i]);
    }
}

/* ---- the client's address ----------------------------------------------------------------- */

Test(flood, x_forwarded_for_from_an_untrusted_peer_does_not_escape_the_per_address_limit)
{
    /* The limit counts TCP peers, so a forged header cannot lift it: with --max-per-address 5,
     * ten connections from 127.0.0.1 claiming ten different addresses still get only five. */
    up_with("--max-per-address 5");
    int fds[10], served = 0;
    for (int i = 0; i < 10; i++)
        fds[i] = connect_from("127.0.0.1");
    for (int i = 0; i < 10; i++) {
        char req[256], buf[1024];
        snprintf(req, sizeof req,
                 "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.%d\r\n\r\n", i);
        if (fds[i] >= 0 && send_all(fds[i], req) && read_some(fds[i], buf, sizeof buf, 2000) > 0 &&
            strncmp(buf, "HTTP/1.1 200", 12) == 0)
            served++;
    }
    /* At most five (one slot may still be held by the start-up's /healthz connection, which
     * the daemon closes a moment later), and the forged addresses never lift that. */
    cr_expect(served >= 1 && served <= 5, "%d of 10 connections from one peer were served", served);
    for (int i = 0; i < 10; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    stops_cleanly();
}

/* POST /api/v1/games with X-Forwarded-For: xff; the status. */
static long create_forwarded_for(const char *xff)
{
    char url[128], header[128];
    snprintf(url, sizeof url, "%s/api/v1/games", d.base);
    snprintf(header, sizeof header, "X-Forwarded-For: %s", xff);
    const char *headers[] = {header, NULL};
    const char *body = "{\"seats\": 2}";
    struct http_request rq = {
        .method = "POST", .url = url, .body = body, .len = strlen(body), .headers = headers};
    struct http_reply r;
    cr_assert(http_request(&rq, &r));
    long st = r.status;
    http_reply_free(&r);
    return st;
}

Test(flood, x_forwarded_for_names_the_client_only_behind_a_trusted_proxy)
{
    /* Trusted: each forwarded address has its own bucket of two creations. */
    up_with("--create-rate 1 --create-burst 2 --trusted-proxies 127.0.0.0/8");
    cr_expect_eq(create_forwarded_for("198.51.100.1"), 201);
    cr_expect_eq(create_forwarded_for("203.0.113.9, 198.51.100.1"), 201);
    cr_expect_eq(create_forwarded_for("198.51.100.1"), 429, "the third from one client");
    cr_expect_eq(create_forwarded_for("198.51.100.2"), 201, "another client behind the proxy");
    /* A hop that is not an address stops the walk at the proxy: all such count as one. */
    cr_expect_eq(create_forwarded_for("not-an-address"), 201);
    cr_expect_eq(create_forwarded_for("also not one"), 201);
    cr_expect_eq(create_forwarded_for("nor this"), 429);
    stops_cleanly();

    /* Untrusted: the header is ignored, every request counts against 127.0.0.1. */
    up_with("--create-rate 1 --create-burst 2");
    cr_expect_eq(create_forwarded_for("198.51.100.1"), 201);
    cr_expect_eq(create_forwarded_for("198.51.100.2"), 201);
    cr_expect_eq(create_forwarded_for("198.51.100.3"), 429,
                 "a forged X-Forwarded-For from an untrusted peer escaped the quota");
    stops_cleanly();
}

/* ---- clients that leave ------------------------------------------------------------------- */

Test(flood, clients_that_leave_while_their_orders_are_written_stall_nothing)
{
    /* An order's request is parked while group commit writes it. A client that hangs up in
     * that moment is closed unanswered when its request is woken: it must still count as
     * answered, or a stopping daemon would wait for it forever. */
    up_with("");
    struct table t;
    create(&t, 2, 0, NULL);
    enum { LEAVERS = 300 };
    const char *body = "{\"round\": 9, \"step\": \"build\", \"survey\": true}";
    for (int i = 0; i < LEAVERS; i++) {
        int fd = connect_from("127.0.0.1");
        cr_assert_geq(fd, 0);
        char req[512];
        snprintf(req, sizeof req,
                 "POST /api/v1/games/%s/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                 "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                 t.id, t.tokens[0], strlen(body), body);
        send_all(fd, req);
        struct linger hang_up = {.l_onoff = 1, .l_linger = 0}; /* a reset, at once */
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &hang_up, sizeof hang_up);
        close(fd);
    }
    counts[K_CONNS] += LEAVERS;
    double until = harness_now() + 10;
    while (metric("city_parked_requests") != 0 && harness_now() < until)
        harness_sleep_ms(100);
    cr_expect_eq(metric("city_parked_requests"), 0,
                 "requests whose clients left still count as parked");
    stops_cleanly();
}

/* ---- bots under a flood of cheap requests --------------------------------------------------- */

/* The seconds until the expert of a new 2-seat game created from 127.0.0.2 has decided its first
 * point (the public view says it submitted), polled every 5 ms. */
static double expert_move_seconds(unsigned seed)
{
    char body[160], out[8192], path[160];
    snprintf(body, sizeof body,
             "{\"seats\": 2, \"bots\": [\"expert\"], \"name\": \"Pat\", \"seed\": %u}", seed);
    double t0 = harness_now();
    cr_assert_eq(request_from("127.0.0.2", "POST", "/api/v1/games", body, out, sizeof out), 201);
    json_error_t e;
    json_t *g = json_loads(out, 0, &e);
    cr_assert_not_null(g, "%s", out);
    snprintf(path, sizeof path, "/api/v1/games/%s", json_string_value(json_object_get(g, "id")));
    json_decref(g);
    for (double end = t0 + 20; harness_now() < end; harness_sleep_ms(5)) {
        if (request_from("127.0.0.2", "GET", path, NULL, out, sizeof out) != 200)
            continue;
        json_t *v = json_loads(out, 0, &e);
        bool done = json_is_true(
            json_object_get(json_array_get(json_object_get(v, "seats"), 1), "submitted"));
        json_decref(v);
        if (done)
            return harness_now() - t0;
    }
    cr_assert_fail("the expert did not decide within 20 s");
    return 0;
}

/* The median of three expert moves (seeds seed..seed+2). */
static double expert_move_median(unsigned seed)
{
    double t[3];
    for (int i = 0; i < 3; i++)
        t[i] = expert_move_seconds(seed + (unsigned)i);
    for (int i = 1; i < 3; i++)
        for (int k = i; k > 0 && t[k] < t[k - 1]; k--) {
            double x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
    return t[1];
}

/* A keep-alive connection from 127.0.0.3 asking GET /healthz back to back until told to stop. */
struct healthz_flood {
    atomic_bool stop;
    atomic_long answered;
};

static void *healthz_flood_main(void *arg)
{
    struct healthz_flood *f = arg;
    const char *req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    char buf[4096];
    while (!atomic_load(&f->stop)) {
        int fd = connect_from("127.0.0.3");
        if (fd < 0) {
            harness_sleep_ms(1);
            continue;
        }
        while (!atomic_load(&f->stop) && send_all(fd, req)) {
            /* one reply: its head, then the body its Content-Length announces */
            size_t got = 0;
            long want = -1;
            ssize_t r = 0;
            while ((r = read_some(fd, buf + got, sizeof buf - 1 - got, 2000)) > 0) {
                got += (size_t)r;
                buf[got] = 0;
                const char *end = strstr(buf, "\r\n\r\n"), *cl = strstr(buf, "Content-Length: ");
                if (end && cl)
                    want = (end - buf) + 4 + atol(cl + 16);
                if (want >= 0 && (long)got >= want)
                    break;
            }
            if (r <= 0)
                break;
            atomic_fetch_add(&f->answered, 1);
        }
        close(fd);
    }
    return NULL;
}

Test(flood, a_healthz_flood_does_not_hold_another_persons_expert_moves)
{
    /* Bots pause between playouts while a request is served: a flood of cheap requests (one
     * always in progress) once held each expert move for the whole --bot-yield-ms (1 s). */
    up_with("--allow-seed --expert-ms 100 --bot-workers 1 --bot-yield-ms 1000");
    double usual = expert_move_median(101);
    enum { FLOODERS = 4 };
    struct healthz_flood f;
    atomic_init(&f.stop, false);
    atomic_init(&f.answered, 0);
    pthread_t th[FLOODERS];
    for (int i = 0; i < FLOODERS; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, healthz_flood_main, &f), 0);
    harness_sleep_ms(300);
    long before = atomic_load(&f.answered);
    double t0 = harness_now();
    double flooded = expert_move_median(201);
    double rate = (double)(atomic_load(&f.answered) - before) / (harness_now() - t0);
    atomic_store(&f.stop, true);
    for (int i = 0; i < FLOODERS; i++)
        pthread_join(th[i], NULL);
    counts[K_CONNS] += FLOODERS;
    cr_assert_gt(rate, 500, "the flood was a flood (%.0f /healthz a second)", rate);
    /* Half a second at most on top (the pause is bounded by half the thinking time, 50 ms
     * here; the rest is the flood's share of two cores): held for the whole --bot-yield-ms, a
     * move took about 1.2 s. */
    cr_expect_leq(flooded, usual + 0.5,
                  "an expert's move took %.0f ms under %.0f /healthz a second, %.0f ms without",
                  flooded * 1000, rate, usual * 1000);
    fprintf(stderr, "flood: expert move %.0f ms usual, %.0f ms under %.0f /healthz/s\n",
            usual * 1000, flooded * 1000, rate);
    stops_cleanly();
}

/* ---- one address's bots and hints ---------------------------------------------------------- */

/* Sends a request from loopback address `from` with seat token `token` (NULL: none); returns
 * the status (0 when no answer came) and, when json is not NULL, the body parsed (or NULL). */
static long call_from(const char *from, const char *method, const char *path, const char *token,
                      const char *body, json_t **json)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", d.base, path);
    struct http_request rq = {.method = method,
                              .url = url,
                              .bearer = token,
                              .body = body,
                              .len = body ? strlen(body) : 0,
                              .from = from,
                              .timeout_ms = 20000};
    struct http_reply r;
    long st = http_request(&rq, &r) ? r.status : 0;
    if (json)
        *json = r.body ? json_loads(r.body, 0, NULL) : NULL;
    http_reply_free(&r);
    return st;
}

/* A new 4-seat game of The City created from `from` by a person named Pat against three
 * experts (it starts at once); its id and Pat's token into id and token. */
static void create_against_experts(const char *from, int seats, char id[64], char token[80])
{
    char body[200];
    snprintf(body, sizeof body, "{\"seats\": %d, \"bots\": [%s], \"name\": \"Pat\"}", seats,
             seats == 4 ? "\"expert\", \"expert\", \"expert\"" : "\"expert\"");
    json_t *g = NULL;
    cr_assert_eq(call_from(from, "POST", "/api/v1/games", NULL, body, &g), 201);
    snprintf(id, 64, "%s", str(g, "id"));
    snprintf(token, 80, "%s", str(g, "token"));
    json_decref(g);
}

/* One address (127.0.0.3) keeping the bot pool busy: its games of three experts each, where
 * its person plays the hand view's suggestion as soon as it may, and asks for a hint first. */
enum { BUSY_THREADS = 3, BUSY_GAMES = 4 };
struct busy_address {
    atomic_bool stop;
    char ids[BUSY_GAMES][64], tokens[BUSY_GAMES][80];
    char done[BUSY_GAMES][48]; /* the point of each game it ordered last */
    atomic_long orders, hints, refused;
};

static void *busy_address_main(void *arg)
{
    struct busy_address *b = arg;
    while (!atomic_load(&b->stop)) {
        bool idle = true;
        for (int i = 0; i < BUSY_GAMES && !atomic_load(&b->stop); i++) {
            char path[160], point[48];
            snprintf(path, sizeof path, "/api/v1/games/%s/hand", b->ids[i]);
            json_t *h = NULL;
            if (call_from("127.0.0.3", "GET", path, b->tokens[i], NULL, &h) != 200 || !h) {
                json_decref(h);
                continue;
            }
            json_t *pending = json_object_get(h, "pending");
            json_t *sug = json_object_get(pending, "suggestion");
            snprintf(point, sizeof point, "%lld %s", num(pending, "round"), str(pending, "step"));
            char *order = json_is_object(sug) && strcmp(point, b->done[i]) != 0
                              ? json_dumps(sug, JSON_COMPACT)
                              : NULL;
            json_decref(h);
            if (!order)
                continue;
            idle = false;
            snprintf(b->done[i], sizeof b->done[i], "%s", point);
            snprintf(path, sizeof path, "/api/v1/games/%s/hint", b->ids[i]);
            long st = call_from("127.0.0.3", "POST", path, b->tokens[i], NULL, NULL);
            atomic_fetch_add(st == 200 ? &b->hints : &b->refused, 1);
            snprintf(path, sizeof path, "/api/v1/games/%s/orders", b->ids[i]);
            if (call_from("127.0.0.3", "POST", path, b->tokens[i], order, NULL) == 202)
                atomic_fetch_add(&b->orders, 1);
            free(order);
        }
        if (idle)
            harness_sleep_ms(5);
    }
    return NULL;
}

/* The seconds a hint asked for from 127.0.0.2 in a new game against an expert takes. */
static double hint_seconds(void)
{
    char id[64], token[80], path[160];
    create_against_experts("127.0.0.2", 2, id, token);
    snprintf(path, sizeof path, "/api/v1/games/%s/hint", id);
    double t0 = harness_now();
    long st = call_from("127.0.0.2", "POST", path, token, NULL, NULL);
    cr_assert_eq(st, 200, "another address's hint");
    return harness_now() - t0;
}

Test(flood, one_busy_address_does_not_hold_another_persons_expert_moves_or_hints)
{
    /* The report: one address's 48 seats spending 226 hints in 6.2 s took both cores, made
     * others' hints 503 three times in four and another person's expert move 1.4-1.6 s (58 ms
     * usual). Here one address plays twelve games of three experts each, asking for a hint
     * before each order from three connections (its hint limits off, so that only the fair
     * queue stands between it and others), while another address's expert moves and hint are
     * timed. */
    up_with("--allow-seed --expert-ms 100 --hints-per-game 1000 --hint-rate 0");
    double usual = expert_move_median(301), usual_hint = hint_seconds();
    const char *submitted = "city_bot_decisions_total{result=\"submitted\"}";
    double before = metric(submitted), t0 = harness_now();
    static struct busy_address b[BUSY_THREADS];
    pthread_t th[BUSY_THREADS];
    for (int t = 0; t < BUSY_THREADS; t++) {
        atomic_init(&b[t].stop, false);
        atomic_init(&b[t].orders, 0);
        atomic_init(&b[t].hints, 0);
        atomic_init(&b[t].refused, 0);
        for (int i = 0; i < BUSY_GAMES; i++)
            create_against_experts("127.0.0.3", 4, b[t].ids[i], b[t].tokens[i]);
        cr_assert_eq(pthread_create(&th[t], NULL, busy_address_main, &b[t]), 0);
    }
    harness_sleep_ms(1000);
    double queued = metric("city_bot_queue{state=\"queued\"}");
    double busy = expert_move_median(401), busy_hint = hint_seconds();
    /* Meanwhile another address's /healthz on fresh connections, and a whole game of greedy
     * bots (from 127.0.0.1), each of its steps' requests timed. */
    enum { TRIES = 50 };
    double took[TRIES];
    int failed = 0;
    for (int i = 0; i < TRIES; i++) {
        double h0 = harness_now();
        failed += request_from("127.0.0.2", "GET", "/healthz", NULL, NULL, 0) != 200;
        took[i] = harness_now() - h0;
    }
    for (int i = 1; i < TRIES; i++)
        for (int k = i; k > 0 && took[k] < took[k - 1]; k--) {
            double x = took[k];
            took[k] = took[k - 1];
            took[k - 1] = x;
        }
    struct table game;
    create(&game, 3, 2, NULL);
    double slowest_step = 0;
    int steps = 0;
    for (double s0 = harness_now(); play_step(&game); s0 = harness_now()) {
        double s = harness_now() - s0;
        slowest_step = s > slowest_step ? s : slowest_step;
        cr_assert_lt(++steps, 400, "the game does not end");
    }
    double queued_after = metric("city_bot_queue{state=\"queued\"}");
    long orders = 0, hints = 0, refused = 0;
    for (int t = 0; t < BUSY_THREADS; t++) {
        atomic_store(&b[t].stop, true);
        pthread_join(th[t], NULL);
        orders += atomic_load(&b[t].orders);
        hints += atomic_load(&b[t].hints);
        refused += atomic_load(&b[t].refused);
    }
    double decisions = metric(submitted) - before, span = harness_now() - t0;
    fprintf(stderr,
            "fair bots: expert move %.0f ms usual, %.0f ms beside one busy address (%.0f bot "
            "decisions in %.1f s, %.0f then %.0f games queued; its %ld hints answered, %ld "
            "refused, %ld orders); hint %.0f ms usual, %.0f ms beside it\n",
            usual * 1000, busy * 1000, decisions, span, queued, queued_after, hints, refused,
            orders, usual_hint * 1000, busy_hint * 1000);
    fprintf(stderr,
            "fair bots: beside it, another address's /healthz p99 %.1f ms (%d of %d failed); a "
            "game of %d steps, the slowest %.0f ms\n",
            took[TRIES - 2] * 1000, failed, TRIES, steps, slowest_step * 1000);
    /* The premise: the busy address kept the bots busy (its games stayed queued). Exactly 20
     * decisions in 1.8 s were seen in CI on a loaded machine, with 10 then 12 games queued. */
    cr_assert_geq(decisions, 10, "the busy address kept the bots busy (%.0f decisions)", decisions);
    cr_assert_gt(queued, 0, "the busy address's games were queued");
    cr_assert_gt(hints, 5, "the busy address's hints were thought about too");
    /* Twice the usual time, and one thinking budget (100 ms) more: alone, the expert often
     * ends early (its playouts cap); sharing two cores with the busy address's, it thinks for
     * its whole budget. Before the fair queue: 2.3 s against 49 ms usual. */
    cr_expect_leq(busy, 2 * usual + 0.1,
                  "another person's expert move took %.0f ms beside one busy address, %.0f ms "
                  "usual",
                  busy * 1000, usual * 1000);
    cr_expect_leq(busy_hint, 2 * usual_hint + 0.1,
                  "another person's hint took %.0f ms beside one busy address, %.0f ms usual",
                  busy_hint * 1000, usual_hint * 1000);
    cr_expect_eq(failed, 0, "another address's /healthz failed %d of %d times", failed, TRIES);
    cr_expect_lt(took[TRIES - 2], 0.1, "another address's /healthz p99 %.1f ms",
                 took[TRIES - 2] * 1000);
    cr_expect_lt(slowest_step, 1.0, "a step of another game took %.2f s", slowest_step);
    stops_cleanly();
}
