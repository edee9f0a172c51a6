/* streams.c: the SSE benchmark's client: opens many server-sent event streams to one cityd
 * and holds them, to measure how many an instance holds and what they cost.
 *
 *   streams held URL FILE STREAMS SOURCES SECONDS PID HEALTHZ
 *       opens STREAMS streams (GET /api/v1/games/{id}/stream, spread over the games of FILE,
 *       one id per line first, as `load setup` writes it) within SECONDS, counts those
 *       answered 200 with text/event-stream, then, with all of them still held, sends HEALTHZ
 *       sequential GET /healthz (a new connection each) and reads the daemon's resident memory
 *       from /proc/PID/status. Prints one JSON object: {wanted, held, refused, closed,
 *       unanswered, statuses, open_seconds, healthz_ok, healthz_failed, healthz_p50_ms,
 *       healthz_p99_ms, held_at_end, rss_mb, daemon_threads}. A /healthz that fails or takes
 *       longer than HEALTHZ_TIMEOUT_MS counts as that timeout in the percentiles.
 *   streams idle URL FILE STREAMS SOURCES SECONDS
 *       opens the streams as above, prints {"wanted": N, "held": H, ...} on one line as soon
 *       as the opening is over, then keeps them open, reading and dropping what they send,
 *       until SIGTERM or SIGINT (or at most an hour).
 *
 * SOURCES (1..250) spreads the connections over that many loopback source addresses,
 * 127.0.0.1, 127.0.0.2, ... (for a daemon that limits connections per address). URL is
 * http://127.0.0.1:PORT. Non-blocking sockets and epoll, one thread, at most WINDOW
 * connections opening at once; it raises its own RLIMIT_NOFILE (up to the hard limit). It never
 * fails because the service refuses: it reports how many streams it held, and gives up on the
 * rest when SECONDS are over. Exit status 0 unless its own arguments or resources fail. */
#include "stats.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    WINDOW = 256,             /* connections opening (connect sent, head not read) at once */
    HEALTHZ_TIMEOUT_MS = 1000 /* one /healthz request's limit */
};

enum state { IDLE, CONNECTING, AWAITING, HELD, DONE };

struct conn {
    int fd;
    enum state state;
    char head[1024];
    size_t len;
};

static struct sockaddr_in target;
static char host_header[96];
static volatile sig_atomic_t stopping;
static int healthz_done;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "streams: %s\n", what);
    exit(1);
}

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

static void parse_url(const char *url)
{
    char host[64];
    int port;
    if (sscanf(url, "http://%63[^:]:%d", host, &port) != 2 || port <= 0 || port > 65535)
        die("URL must be http://HOST:PORT");
    target.sin_family = AF_INET;
    target.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &target.sin_addr) !=
        1)
        die("HOST must be an IPv4 address or localhost");
    snprintf(host_header, sizeof host_header, "%s:%d", host, port);
}

/* The game ids of FILE (the first word of each line). */
static char **read_ids(const char *file, int *count)
{
    FILE *f = fopen(file, "r");
    if (!f)
        die("cannot read the games file");
    char **ids = NULL, line[2048], id[64];
    int n = 0, cap = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%63s", id) == 1) {
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                ids = realloc(ids, (size_t)cap * sizeof *ids);
                if (!ids)
                    die("out of memory");
            }
            ids[n++] = strdup(id);
        }
    fclose(f);
    if (n == 0)
        die("the games file holds no games");
    *count = n;
    return ids;
}

/* Raises the soft limit of open files to what `want` connections need, within the hard one. */
static void raise_nofile(int want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t need = (rlim_t)want + 64;
    if (rl.rlim_cur >= need)
        return;
    rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < need)
        fprintf(stderr, "streams: only %llu open files allowed (hard limit); fewer streams open\n",
                (unsigned long long)rl.rlim_cur);
}

/* A non-blocking socket connecting to the target from loopback source `source` (0-based), or
 * -1 (errno set). */
static int start_connect(int source)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (source > 0) {
        struct sockaddr_in src = {.sin_family = AF_INET,
                                  .sin_addr.s_addr = htonl(0x7f000001u + (uint32_t)source)};
        setsockopt(fd, SOL_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&src, sizeof src) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
    }
    if (connect(fd, (struct sockaddr *)&target, sizeof target) != 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* ---- opening and holding ------------------------------------------------------------------- */

struct tally {
    int wanted, opened, held, refused, closed, unanswered, dropped;
    int status[6]; /* replies by class: 1xx..5xx, [0] unparsable */
    int not_event_stream;
    double open_seconds;
};

struct pool {
    struct conn *c;
    int n, sources, nids;
    char **ids;
    int ep;
    struct tally t;
};

static void finish(struct pool *p, struct conn *c, enum state was)
{
    if (c->fd >= 0) {
        epoll_ctl(p->ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd = -1;
    c->state = DONE;
    if (was == HELD) {
        p->t.held--;
        p->t.dropped++;
    }
}

/* Judges a complete response head: held when 200 with text/event-stream. */
static void judge_head(struct pool *p, struct conn *c)
{
    int status = 0;
    if (sscanf(c->head, "HTTP/1.%*d %d", &status) != 1 || status < 100 || status > 599) {
        p->t.status[0]++;
        finish(p, c, AWAITING);
        return;
    }
    p->t.status[status / 100]++;
    bool sse = false;
    for (const char *h = strstr(c->head, "\r\n"); h && !sse; h = strstr(h + 2, "\r\n"))
        if (strncasecmp(h + 2, "Content-Type:", 13) == 0) {
            const char *v = h + 15;
            while (*v == ' ')
                v++;
            sse = strncasecmp(v, "text/event-stream", 17) == 0;
        }
    if (status != 200 || !sse) {
        if (status == 200)
            p->t.not_event_stream++;
        finish(p, c, AWAITING);
        return;
    }
    c->state = HELD;
    p->t.held++;
}

/* Handles readiness of connection c. */
static void on_event(struct pool *p, struct conn *c, uint32_t events)
{
    if (c->state == CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0 || (events & (EPOLLERR | EPOLLHUP))) {
            p->t.refused++;
            finish(p, c, CONNECTING);
            return;
        }
        char req[512];
        int n = snprintf(req, sizeof req,
                         "GET /api/v1/games/%s/stream HTTP/1.1\r\nHost: %s\r\n"
                         "Accept: text/event-stream\r\n\r\n",
                         p->ids[(c - p->c) % p->nids], host_header);
        if (write(c->fd, req, (size_t)n) != n) {
            p->t.closed++;
            finish(p, c, CONNECTING);
            return;
        }
        c->state = AWAITING;
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u32 = (uint32_t)(c - p->c)};
        epoll_ctl(p->ep, EPOLL_CTL_MOD, c->fd, &ev);
        return;
    }
    char buf[16384];
    for (;;) {
        char *into = c->state == AWAITING ? c->head + c->len : buf;
        size_t room = c->state == AWAITING ? sizeof c->head - 1 - c->len : sizeof buf;
        ssize_t got = read(c->fd, into, room);
        if (got < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (got <= 0) {
            enum state was = c->state;
            if (was == AWAITING)
                p->t.closed++;
            finish(p, c, was);
            return;
        }
        if (c->state == AWAITING) {
            c->len += (size_t)got;
            c->head[c->len] = 0;
            if (strstr(c->head, "\r\n\r\n"))
                judge_head(p, c);
            else if (c->len == sizeof c->head - 1) {
                p->t.status[0]++;
                finish(p, c, AWAITING);
            }
            if (c->state != HELD)
                return;
        }
    }
}

/* Runs the event loop for up to `wait` seconds (0: one pass without waiting). */
static void pump(struct pool *p, double wait)
{
    struct epoll_event evs[256];
    int ms = (int)(wait * 1000);
    int k = epoll_wait(p->ep, evs, 256, ms);
    for (int e = 0; e < k; e++)
        on_event(p, &p->c[evs[e].data.u32], evs[e].events);
}

/* Opens the pool's streams, at most WINDOW at once, until all are judged or `seconds` pass. */
static void open_all(struct pool *p, double seconds)
{
    double t0 = now_s(), deadline = t0 + seconds;
    int next = 0, opening = 0;
    while (!stopping && now_s() < deadline) {
        opening = 0;
        for (int i = 0; i < next; i++)
            opening += p->c[i].state == CONNECTING || p->c[i].state == AWAITING;
        if (next == p->n && opening == 0)
            break;
        while (next < p->n && opening < WINDOW) {
            struct conn *c = &p->c[next];
            c->fd = start_connect(p->sources > 1 ? next % p->sources : 0);
            if (c->fd < 0) {
                if (errno == EMFILE || errno == ENFILE) {
                    fprintf(stderr, "streams: out of file descriptors after %d\n", next);
                    p->n = next; /* the rest are never tried: not counted as wanted */
                    break;
                }
                p->t.refused++;
                c->state = DONE;
            } else {
                c->state = CONNECTING;
                struct epoll_event ev = {.events = EPOLLOUT, .data.u32 = (uint32_t)next};
                epoll_ctl(p->ep, EPOLL_CTL_ADD, c->fd, &ev);
                opening++;
            }
            next++;
        }
        pump(p, 0.05);
    }
    for (int i = 0; i < p->n; i++)
        if (p->c[i].state == CONNECTING || p->c[i].state == AWAITING || p->c[i].state == IDLE) {
            p->t.unanswered++;
            finish(p, &p->c[i], p->c[i].state);
        }
    p->t.open_seconds = now_s() - t0;
    p->t.opened = p->t.held;
}

static void pool_init(struct pool *p, const char *file, int n, int sources)
{
    memset(p, 0, sizeof *p);
    p->ids = read_ids(file, &p->nids);
    p->n = n;
    p->sources = sources;
    p->c = calloc((size_t)n, sizeof *p->c);
    if (!p->c)
        die("out of memory");
    for (int i = 0; i < n; i++)
        p->c[i].fd = -1;
    p->ep = epoll_create1(EPOLL_CLOEXEC);
    if (p->ep < 0)
        die("epoll_create1");
    p->t.wanted = n;
    raise_nofile(n);
}

static void pool_free(struct pool *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->c[i].fd >= 0)
            close(p->c[i].fd);
    for (int i = 0; i < p->nids; i++)
        free(p->ids[i]);
    free(p->ids);
    free(p->c);
    close(p->ep);
}

static void print_tally(const struct tally *t)
{
    printf("{\"wanted\": %d, \"held\": %d, \"refused\": %d, \"closed\": %d, \"unanswered\": %d, "
           "\"statuses\": {\"2xx\": %d, \"4xx\": %d, \"5xx\": %d, \"other\": %d}, "
           "\"not_event_stream\": %d, \"open_seconds\": %.1f",
           t->wanted, t->opened, t->refused, t->closed, t->unanswered, t->status[2], t->status[4],
           t->status[5], t->status[0] + t->status[1] + t->status[3], t->not_event_stream,
           t->open_seconds);
}

/* ---- /healthz while they are held ---------------------------------------------------------- */

struct healthz {
    int requests, ok, failed;
    double *ms;
};

/* Waits until fd is ready for `events`, up to the deadline; false on timeout. */
static bool wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        int left = (int)((deadline - now_s()) * 1000);
        if (left <= 0)
            return false;
        struct pollfd pf = {.fd = fd, .events = events};
        int k = poll(&pf, 1, left);
        if (k > 0)
            return true;
        if (k < 0 && errno != EINTR)
            return false;
    }
}

/* One GET /healthz on a new connection; true when 200 came within HEALTHZ_TIMEOUT_MS. */
static bool healthz_once(void)
{
    double deadline = now_s() + HEALTHZ_TIMEOUT_MS / 1000.0;
    int fd = start_connect(0);
    if (fd < 0)
        return false;
    bool ok = false;
    char buf[2048];
    size_t len = 0;
    int n = snprintf(buf, sizeof buf,
                     "GET /healthz HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host_header);
    if (!wait_fd(fd, POLLOUT, deadline))
        goto out;
    int err = 0;
    socklen_t el = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
    if (err || write(fd, buf, (size_t)n) != n)
        goto out;
    while (len < sizeof buf - 1) {
        if (!wait_fd(fd, POLLIN, deadline))
            goto out;
        ssize_t got = read(fd, buf + len, sizeof buf - 1 - len);
        if (got < 0 && errno == EAGAIN)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
        buf[len] = 0;
        const char *end = strstr(buf, "\r\n\r\n");
        const char *cl = strcasestr(buf, "\r\nContent-Length:");
        if (end && cl && cl < end && (size_t)(end + 4 - buf) + strtoul(cl + 17, NULL, 10) <= len)
            break;
    }
    buf[len] = 0;
    int status = 0;
    ok = sscanf(buf, "HTTP/1.%*d %d", &status) == 1 && status == 200;
out:
    close(fd);
    return ok;
}

static void *healthz_main(void *arg)
{
    struct healthz *h = arg;
    double deadline = now_s() + 30; /* the whole series: at most 30 s */
    for (int i = 0; i < h->requests && now_s() < deadline; i++) {
        double t = now_s();
        bool ok = healthz_once();
        double ms = (now_s() - t) * 1000.0;
        if (!ok || ms > HEALTHZ_TIMEOUT_MS)
            ms = HEALTHZ_TIMEOUT_MS;
        h->ms[h->ok + h->failed] = ms;
        if (ok)
            h->ok++;
        else
            h->failed++;
    }
    __atomic_store_n(&healthz_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* The value (in kB) of `key` in /proc/PID/status, or -1. */
static long proc_status(long pid, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long v = -1;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, k) == 0 && line[k] == ':')
            v = strtol(line + k + 1, NULL, 10);
    fclose(f);
    return v;
}

static int held(struct pool *p, long pid, int requests)
{
    struct healthz h = {.requests = requests, .ms = calloc((size_t)requests + 1, sizeof(double))};
    if (!h.ms)
        die("out of memory");
    pthread_t th;
    if (pthread_create(&th, NULL, healthz_main, &h) != 0)
        die("cannot start the /healthz thread");
    while (!__atomic_load_n(&healthz_done, __ATOMIC_ACQUIRE))
        pump(p, 0.05); /* keep reading the streams meanwhile */
    pthread_join(th, NULL);
    pump(p, 0);
    long rss = proc_status(pid, "VmRSS"), threads = proc_status(pid, "Threads");
    int n = h.ok + h.failed;
    qsort(h.ms, (size_t)n, sizeof *h.ms, compare_doubles);
    print_tally(&p->t);
    printf(", \"healthz_ok\": %d, \"healthz_failed\": %d, \"healthz_p50_ms\": %.3f, "
           "\"healthz_p99_ms\": %.3f, \"held_at_end\": %d, \"dropped\": %d, \"rss_mb\": %.1f, "
           "\"daemon_threads\": %ld}\n",
           h.ok, h.failed, percentile(h.ms, n, 0.5), percentile(h.ms, n, 0.99), p->t.held,
           p->t.dropped, rss < 0 ? -1.0 : (double)rss / 1024.0, threads);
    free(h.ms);
    return 0;
}

static int idle(struct pool *p)
{
    print_tally(&p->t);
    printf("}\n");
    fflush(stdout);
    double deadline = now_s() + 3600;
    while (!stopping && now_s() < deadline)
        pump(p, 0.2);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: streams held URL FILE STREAMS SOURCES SECONDS PID HEALTHZ\n"
                    "       streams idle URL FILE STREAMS SOURCES SECONDS\n");
    return 2;
}

int main(int argc, char **argv)
{
    bool is_held = argc == 9 && strcmp(argv[1], "held") == 0;
    bool is_idle = argc == 7 && strcmp(argv[1], "idle") == 0;
    if (!is_held && !is_idle)
        return usage();
    parse_url(argv[2]);
    int n = atoi(argv[4]), sources = atoi(argv[5]);
    double seconds = atof(argv[6]);
    long pid = is_held ? atol(argv[7]) : 0;
    int requests = is_held ? atoi(argv[8]) : 0;
    if (n < 1 || n > 1000000 || sources < 1 || sources > 250 || seconds <= 0 ||
        (is_held && (pid <= 0 || requests < 1 || requests > 100000)))
        return usage();
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct pool p;
    pool_init(&p, argv[3], n, sources);
    open_all(&p, seconds);
    int status = is_held ? held(&p, pid, requests) : idle(&p);
    pool_free(&p);
    return status;
}
