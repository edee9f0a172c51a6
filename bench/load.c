/* load.c: the service benchmark's own load generator, for what wrk cannot do.
 *
 *   load setup URL GAMES FILE   creates GAMES two-seat games with two people through the API
 *                               and writes one line per game to FILE: "ID TOKEN BODY1 BODY2",
 *                               two different legal keep orders of seat 0 (each replaces the
 *                               other: both are accepted, 202, and the step never resolves)
 *   load fill URL GAMES FILE    creates GAMES more games that wait for players, then reads the
 *                               public view of each of them and of every game in FILE once
 *                               (to measure the daemon's memory with that many games)
 *   load timed URL GAMES SECONDS
 *                               creates GAMES games of one person and a greedy bot with a
 *                               time limit of SECONDS a step; the person never decides, so
 *                               the sweeper forces each of their steps when it is due
 *   load experts URL GAMES FILE [GAME]
 *                               creates GAMES games of GAME (a ruleset id; the server's default
 *                               game when left out)
 *                               of one person and 3 expert bots, then has the person leave, so
 *                               that a greedy bot takes the seat and each game plays itself to
 *                               its end on the daemon's bot workers (3 expert decisions a step:
 *                               the bot queue stays full for as long as the games last); writes
 *                               their ids to FILE, one a line
 *   load rate URL FILE RATE SECONDS CONNECTIONS [orders|views|hands]
 *                               open-loop load: sends requests for the games of FILE at a fixed
 *                               RATE per second for SECONDS over up to CONNECTIONS keep-alive
 *                               connections, and prints JSON {kind, sent, accepted, rate,
 *                               achieved, p50_ms, p90_ms, p99_ms, max_ms, reopened: connections
 *                               the service closed, opened again; refused: of those, with a
 *                               request in flight that never served a reply (a connection cap);
 *                               closed_in_flight: with a request in flight after serving (a
 *                               fault: the bench fails on it); such a request is sent again on
 *                               the new connection, its latency counted from when it was due}.
 *                               The requests are
 *                               order submissions (orders, the default: accepted is 202), or
 *                               GETs of each game's public view (views) or of seat 0's hand
 *                               view with its token (hands; accepted is 200 for both). Each
 *                               latency is measured from the moment the request was due, not
 *                               from when a connection was free to send it, so a stall counts
 *                               against the service (no coordinated omission).
 *   load play URL GAME SEATS SECONDS CONNECTIONS
 *                               closed-loop play: each of CONNECTIONS clients plays games of
 *                               GAME (a ruleset id) for one person and SEATS-1 greedy bots, one
 *                               after the other, by reading its hand view and sending the
 *                               pending decision's suggestion; every order resolves a step (the
 *                               bots decide in the same transaction). Prints JSON {game,
 *                               orders, orders_per_sec, games_finished, p50_ms, p99_ms (the
 *                               orders'), hand_p50_ms, hand_p99_ms (the hand views' read
 *                               before them)}.
 *
 * URL is http://HOST:PORT (IPv4, no path). Plain HTTP/1.1 over non-blocking sockets and epoll;
 * replies must carry a Content-Length, as cityd's do. */
#include "stats.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in target;
static char host_header[96];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "load: %s\n", what);
    exit(1);
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

static int connect_to(bool nonblocking)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        die("socket");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&target, sizeof target) != 0)
        die("cannot connect to the service");
    if (nonblocking)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* Formats a request into buf; returns its length. */
static int format_request(char *buf, size_t n, const char *method, const char *path,
                          const char *token, const char *body)
{
    char auth[160] = "";
    if (token)
        snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", token);
    return snprintf(buf, n,
                    "%s %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\n"
                    "Content-Length: %zu\r\n\r\n%s",
                    method, path, host_header, auth, body ? strlen(body) : 0, body ? body : "");
}

/* How far a reply in buf[0..len) is: its total length once complete, 0 while incomplete, -1
 * when it cannot be parsed. Its status goes to *status. */
static long reply_length(const char *buf, size_t len, int *status)
{
    const char *end = memmem(buf, len, "\r\n\r\n", 4);
    if (!end)
        return 0;
    if (sscanf(buf, "HTTP/1.%*d %d", status) != 1)
        return -1;
    long body = -1;
    for (const char *p = buf; p < end; p++)
        if ((p == buf || p[-1] == '\n') && strncasecmp(p, "Content-Length:", 15) == 0)
            body = strtol(p + 15, NULL, 10);
    if (body < 0)
        return -1;
    long total = (long)(end + 4 - buf) + body;
    return (long)len >= total ? total : 0;
}

/* One blocking request on fd (kept alive); the reply body parsed as JSON (or NULL). */
static json_t *call(int fd, const char *method, const char *path, const char *token,
                    const char *body, int want)
{
    char req[4096], buf[65536];
    int n = format_request(req, sizeof req, method, path, token, body);
    if (write(fd, req, (size_t)n) != n)
        die("write");
    size_t len = 0;
    int status = 0;
    long total;
    while ((total = reply_length(buf, len, &status)) == 0) {
        ssize_t got = read(fd, buf + len, sizeof buf - len - 1);
        if (got <= 0)
            die("the service closed the connection during setup");
        len += (size_t)got;
    }
    if (total < 0 || status != want) {
        fprintf(stderr, "load: %s %s -> %d (wanted %d)\n", method, path, status, want);
        exit(1);
    }
    buf[total] = 0;
    const char *b = strstr(buf, "\r\n\r\n") + 4;
    return json_loads(b, 0, NULL);
}

static int setup(const char *file, int games)
{
    FILE *out = fopen(file, "w");
    if (!out)
        die("cannot write the games file");
    int fd = connect_to(false);
    for (int i = 0; i < games; i++) {
        json_t *g =
            call(fd, "POST", "/api/v1/games", NULL, "{\"seats\":2,\"name\":\"Bench A\"}", 201);
        const char *id = json_string_value(json_object_get(g, "id"));
        const char *token = json_string_value(json_object_get(g, "token"));
        char path[160];
        snprintf(path, sizeof path, "/api/v1/games/%s/join", id);
        json_decref(call(fd, "POST", path, NULL, "{\"name\":\"Bench B\"}", 201));
        snprintf(path, sizeof path, "/api/v1/games/%s/hand", id);
        json_t *h = call(fd, "GET", path, token, NULL, 200);
        json_t *cards = json_object_get(h, "hand");
        long long c[4];
        for (int k = 0; k < 4; k++)
            c[k] = json_integer_value(json_object_get(json_array_get(cards, (size_t)k), "id"));
        fprintf(out,
                "%s %s {\"round\":0,\"step\":\"keep\",\"discard\":[%lld,%lld]} "
                "{\"round\":0,\"step\":\"keep\",\"discard\":[%lld,%lld]}\n",
                id, token, c[0], c[1], c[2], c[3]);
        json_decref(h);
        json_decref(g);
    }
    close(fd);
    fclose(out);
    return 0;
}

static int fill(const char *file, int games)
{
    int fd = connect_to(false);
    char path[160];
    for (int i = 0; i < games; i++) {
        json_t *g =
            call(fd, "POST", "/api/v1/games", NULL, "{\"seats\":3,\"name\":\"Waiting\"}", 201);
        snprintf(path, sizeof path, "/api/v1/games/%s",
                 json_string_value(json_object_get(g, "id")));
        json_decref(call(fd, "GET", path, NULL, NULL, 200));
        json_decref(g);
    }
    FILE *f = fopen(file, "r");
    if (!f)
        die("cannot read the games file");
    char line[2048], id[64];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%63s", id) == 1) {
            snprintf(path, sizeof path, "/api/v1/games/%s", id);
            json_decref(call(fd, "GET", path, NULL, NULL, 200));
        }
    fclose(f);
    close(fd);
    return 0;
}

static int timed(int games, int seconds)
{
    int fd = connect_to(false);
    char body[160];
    snprintf(body, sizeof body,
             "{\"seats\":2,\"bots\":[\"greedy\"],\"name\":\"Timed\",\"turn_seconds\":%d}", seconds);
    for (int i = 0; i < games; i++)
        json_decref(call(fd, "POST", "/api/v1/games", NULL, body, 201));
    close(fd);
    return 0;
}

/* Creates `games` self-playing games of `game` (NULL: the server's default game; one person who
 * leaves at once, so a greedy bot takes the seat, and 3 expert bots) and writes their ids to
 * `file`, one a line; 0, or exits. */
static int experts(const char *file, int games, const char *game)
{
    FILE *out = fopen(file, "w");
    if (!out)
        die("cannot write the games file");
    int fd = connect_to(false);
    char body[256], path[160], field[80] = "";
    if (game)
        snprintf(field, sizeof field, "\"game\":\"%.60s\",", game);
    snprintf(body, sizeof body,
             "{%s\"seats\":4,\"bots\":[\"expert\",\"expert\",\"expert\"],"
             "\"name\":\"Bench experts\"}",
             field);
    for (int i = 0; i < games; i++) {
        json_t *g = call(fd, "POST", "/api/v1/games", NULL, body, 201);
        const char *id = json_string_value(json_object_get(g, "id"));
        snprintf(path, sizeof path, "/api/v1/games/%s/leave", id);
        json_decref(
            call(fd, "POST", path, json_string_value(json_object_get(g, "token")), NULL, 200));
        fprintf(out, "%s\n", id);
        json_decref(g);
    }
    close(fd);
    fclose(out);
    return 0;
}

/* ---- open-loop load ------------------------------------------------------------------------ */

/* What `load rate` sends: order submissions, public views or hand views. */
enum kind { KIND_ORDERS, KIND_VIEWS, KIND_HANDS };
static const char *const kind_names[] = {"orders", "views", "hands"};

struct request {
    char *text;
    int len;
};

struct conn {
    int fd;
    bool busy;
    double due; /* when the request in flight was due */
    struct request *req;
    int sent;
    long replies; /* replies read on this connection: 0 means it never served one */
    char buf[16384];
    size_t len;
};

/* The requests of `kind` for the games of `file` (lines "ID TOKEN BODY1 BODY2", as `load setup`
 * writes them): two orders a game (all first orders, then all second ones, so that consecutive
 * requests are for different games), or one view a game. Sets *count; exits when there are none. */
static struct request *load_requests(const char *file, enum kind kind, int *count)
{
    FILE *f = fopen(file, "r");
    if (!f)
        die("cannot read the games file");
    struct request *reqs = NULL;
    int n = 0, cap = 0;
    char line[2048];
    int per_game = kind == KIND_ORDERS ? 2 : 1;
    while (fgets(line, sizeof line, f)) {
        char id[64], token[128], b1[512], b2[512];
        if (sscanf(line, "%63s %127s %511s %511s", id, token, b1, b2) != 4)
            continue;
        for (int k = 0; k < per_game; k++) {
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                reqs = realloc(reqs, (size_t)cap * sizeof *reqs);
                if (!reqs)
                    die("out of memory");
            }
            char path[160], text[2048];
            if (kind == KIND_ORDERS) {
                snprintf(path, sizeof path, "/api/v1/games/%s/orders", id);
                reqs[n].len =
                    format_request(text, sizeof text, "POST", path, token, k == 0 ? b1 : b2);
            } else if (kind == KIND_VIEWS) {
                snprintf(path, sizeof path, "/api/v1/games/%s", id);
                reqs[n].len = format_request(text, sizeof text, "GET", path, NULL, NULL);
            } else {
                snprintf(path, sizeof path, "/api/v1/games/%s/hand", id);
                reqs[n].len = format_request(text, sizeof text, "GET", path, token, NULL);
            }
            reqs[n].text = strdup(text);
            n++;
        }
    }
    fclose(f);
    if (n == 0)
        die("the games file holds no games");
    if (per_game == 2) { /* all first orders, then all second ones */
        struct request *ordered = malloc((size_t)n * sizeof *ordered);
        if (!ordered)
            die("out of memory");
        for (int i = 0; i < n / 2; i++) {
            ordered[i] = reqs[2 * i];
            ordered[n / 2 + i] = reqs[2 * i + 1];
        }
        free(reqs);
        reqs = ordered;
    }
    *count = n;
    return reqs;
}

/* When request k of an open-loop schedule that starts at t0 and sends per_sec falls due. */
static double due_at(double t0, double per_sec, size_t k)
{
    return t0 + (double)k / per_sec;
}

/* Sends requests of `kind` at `per_sec` for `seconds` over up to `nconns` connections and prints
 * the JSON described at the top; 0 when every reply was the expected status, else 1. */
static int rate(const char *file, enum kind kind, double per_sec, double seconds, int nconns)
{
    int nreqs;
    struct request *reqs = load_requests(file, kind, &nreqs);
    struct conn *conns = calloc((size_t)nconns, sizeof *conns);
    int ep = epoll_create1(0);
    for (int i = 0; i < nconns; i++) {
        conns[i].fd = connect_to(true);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
    }
    size_t total = (size_t)(per_sec * seconds) + 1, done = 0, accepted = 0, next = 0, reopened = 0;
    size_t refused = 0, closed_in_flight = 0;
    double *lat = malloc(total * sizeof *lat);
    double t0 = now_s() + 0.05;
    bool trace = getenv("LOAD_TRACE") != NULL; /* print each reply slower than 100 ms */
    while (done < total) {
        /* Send every request that is due, on idle connections. */
        bool all_busy = false;
        while (next < total && due_at(t0, per_sec, next) <= now_s()) {
            int idle = -1;
            for (int i = 0; i < nconns && idle < 0; i++)
                if (!conns[i].busy)
                    idle = i;
            if (idle < 0) {
                all_busy = true; /* it waits, and its wait counts */
                break;
            }
            struct conn *c = &conns[idle];
            c->busy = true;
            c->due = due_at(t0, per_sec, next);
            c->req = &reqs[next % (size_t)nreqs];
            c->len = 0;
            if (write(c->fd, c->req->text, (size_t)c->req->len) != c->req->len)
                die("write failed (a short write of a small request)");
            next++;
        }
        /* Sleep until the next request is due or a reply comes, whichever is first; when one
         * is due and every connection is busy, only a reply can help. Never spin: the load tool
         * must not take the CPU it measures. Only a request that found every connection busy
         * may wait without a deadline: one that fell due after the loop above looked (the tool
         * preempted between the two readings of the clock) is sent at once. That wait once
         * had no deadline with every connection idle, and the tool slept until the service cut
         * its idle connections 15 s later: the "stalls" of the hand views in docs/benchmarks.md. */
        double wake = next < total ? due_at(t0, per_sec, next) - now_s() : 0.05;
        if (wake < 0)
            wake = 0;
        struct timespec ts = {.tv_sec = (time_t)wake,
                              .tv_nsec = (long)((wake - (double)(time_t)wake) * 1e9)};
        struct epoll_event evs[64];
        int k = epoll_pwait2(ep, evs, 64, all_busy ? NULL : &ts, NULL);
        for (int e = 0; e < k; e++) {
            struct conn *c = &conns[evs[e].data.u32];
            ssize_t got = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
            if (got <= 0) {
                if (got < 0 && errno == EAGAIN)
                    continue;
                /* The service let the connection go: an idle keep-alive one (e.g. one never
                 * used within its head timeout), or one with a request in flight: refused as
                 * it was accepted (it never served a reply: a connection cap), or closed after
                 * serving (what must never happen: counted, and the bench fails on it). Either
                 * way another opens in its place and a request in flight is sent again on it,
                 * its latency still counted from when it was due. */
                if (c->busy && c->replies == 0)
                    refused++;
                else if (c->busy)
                    closed_in_flight++;
                if (c->busy && trace)
                    fprintf(stderr, "load: %.3f s: a connection %s with a request in flight\n",
                            c->due - t0, c->replies ? "closed" : "refused");
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                close(c->fd);
                c->fd = connect_to(true);
                c->len = 0;
                c->replies = 0;
                struct epoll_event ev = {.events = EPOLLIN, .data.u32 = evs[e].data.u32};
                epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
                if (c->busy && write(c->fd, c->req->text, (size_t)c->req->len) != c->req->len)
                    die("write failed (a short write of a small request)");
                reopened++;
                continue;
            }
            c->len += (size_t)got;
            int status = 0;
            long len = reply_length(c->buf, c->len, &status);
            if (len < 0)
                die("a reply without Content-Length");
            if (len == 0 || !c->busy)
                continue;
            lat[done] = (now_s() - c->due) * 1000.0;
            if (trace && lat[done] > 100)
                fprintf(stderr, "load: %.3f s: %.1f ms\n", c->due - t0, lat[done]);
            done++;
            accepted += status == (kind == KIND_ORDERS ? 202 : 200);
            c->replies++;
            c->busy = false;
            c->len = 0;
        }
    }
    double elapsed = now_s() - t0;
    qsort(lat, done, sizeof *lat, compare_doubles);
    printf("{\"kind\": \"%s\", \"sent\": %zu, \"accepted\": %zu, \"rate\": %.1f, "
           "\"achieved\": %.1f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, "
           "\"max_ms\": %.3f, \"reopened\": %zu, \"refused\": %zu, \"closed_in_flight\": %zu}\n",
           kind_names[kind], done, accepted, per_sec, (double)done / elapsed,
           percentile(lat, done, 0.50), percentile(lat, done, 0.90), percentile(lat, done, 0.99),
           lat[done ? done - 1 : 0], reopened, refused, closed_in_flight);
    for (int i = 0; i < nconns; i++)
        close(conns[i].fd);
    free(conns);
    free(lat);
    for (int i = 0; i < nreqs; i++)
        free(reqs[i].text);
    free(reqs);
    return accepted == done ? 0 : 1;
}

/* ---- play: closed-loop games through the suggestion -------------------------------------- */

struct player {
    pthread_t thread;
    const char *game;
    int seats;
    double until;
    long orders, finished;
    double *lat;  /* order latencies in ms */
    double *hlat; /* the latencies of the hand views read before them, in ms */
    size_t nlat, cap;
};

/* Creates a game of p->game for one person and greedy bots; fills id and token. */
static void play_new_game(struct player *p, int fd, char *id, char *token)
{
    char body[256], bots[128] = "";
    for (int s = 1; s < p->seats; s++)
        snprintf(bots + strlen(bots), sizeof bots - strlen(bots), "%s\"greedy\"", s > 1 ? "," : "");
    snprintf(body, sizeof body, "{\"game\":\"%s\",\"seats\":%d,\"bots\":[%s],\"name\":\"Bench\"}",
             p->game, p->seats, bots);
    json_t *g = call(fd, "POST", "/api/v1/games", NULL, body, 201);
    snprintf(id, 40, "%s", json_string_value(json_object_get(g, "id")));
    snprintf(token, 100, "%s", json_string_value(json_object_get(g, "token")));
    json_decref(g);
}

static void *play_loop(void *arg)
{
    struct player *p = arg;
    int fd = connect_to(false);
    char id[40], token[100], path[160];
    play_new_game(p, fd, id, token);
    while (now_s() < p->until) {
        snprintf(path, sizeof path, "/api/v1/games/%s/hand", id);
        double th = now_s();
        json_t *h = call(fd, "GET", path, token, NULL, 200);
        th = (now_s() - th) * 1000.0;
        json_t *sug = json_object_get(json_object_get(h, "pending"), "suggestion");
        if (!json_is_object(sug)) { /* nothing to decide: the game is over */
            json_decref(h);
            p->finished++;
            play_new_game(p, fd, id, token);
            continue;
        }
        char *body = json_dumps(sug, JSON_COMPACT);
        json_decref(h);
        snprintf(path, sizeof path, "/api/v1/games/%s/orders", id);
        double t0 = now_s();
        json_decref(call(fd, "POST", path, token, body, 202));
        free(body);
        if (p->nlat == p->cap) {
            p->cap = p->cap ? p->cap * 2 : 4096;
            p->lat = realloc(p->lat, p->cap * sizeof *p->lat);
            p->hlat = realloc(p->hlat, p->cap * sizeof *p->hlat);
            if (!p->lat || !p->hlat)
                die("out of memory");
        }
        p->hlat[p->nlat] = th;
        p->lat[p->nlat++] = (now_s() - t0) * 1000.0;
        p->orders++;
    }
    close(fd);
    return NULL;
}

static int play(const char *game, int seats, double seconds, int nconns)
{
    struct player *ps = calloc((size_t)nconns, sizeof *ps);
    if (!ps)
        die("out of memory");
    double t0 = now_s();
    for (int i = 0; i < nconns; i++) {
        ps[i] = (struct player){.game = game, .seats = seats, .until = t0 + seconds};
        if (pthread_create(&ps[i].thread, NULL, play_loop, &ps[i]) != 0)
            die("pthread_create");
    }
    long orders = 0, finished = 0;
    size_t n = 0;
    for (int i = 0; i < nconns; i++) {
        pthread_join(ps[i].thread, NULL);
        orders += ps[i].orders;
        finished += ps[i].finished;
        n += ps[i].nlat;
    }
    double elapsed = now_s() - t0;
    double *all = malloc((n ? n : 1) * sizeof *all), *hands = malloc((n ? n : 1) * sizeof *hands);
    if (!all || !hands)
        die("out of memory");
    size_t k = 0;
    for (int i = 0; i < nconns; i++) {
        memcpy(all + k, ps[i].lat, ps[i].nlat * sizeof *all);
        memcpy(hands + k, ps[i].hlat, ps[i].nlat * sizeof *hands);
        k += ps[i].nlat;
        free(ps[i].lat);
        free(ps[i].hlat);
    }
    qsort(all, n, sizeof *all, compare_doubles);
    qsort(hands, n, sizeof *hands, compare_doubles);
    printf("{\"game\": \"%s\", \"orders\": %ld, \"orders_per_sec\": %.1f, \"games_finished\": %ld, "
           "\"p50_ms\": %.2f, \"p99_ms\": %.2f, \"hand_p50_ms\": %.2f, \"hand_p99_ms\": %.2f}\n",
           game, orders, (double)orders / elapsed, finished, percentile(all, n, 0.5),
           percentile(all, n, 0.99), percentile(hands, n, 0.5), percentile(hands, n, 0.99));
    free(all);
    free(hands);
    free(ps);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "setup") == 0) {
        parse_url(argv[2]);
        return setup(argv[4], atoi(argv[3]));
    }
    if (argc == 5 && strcmp(argv[1], "fill") == 0) {
        parse_url(argv[2]);
        return fill(argv[4], atoi(argv[3]));
    }
    if (argc == 5 && strcmp(argv[1], "timed") == 0) {
        parse_url(argv[2]);
        return timed(atoi(argv[3]), atoi(argv[4]));
    }
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "experts") == 0) {
        parse_url(argv[2]);
        return experts(argv[4], atoi(argv[3]), argc == 6 ? argv[5] : NULL);
    }
    if ((argc == 7 || argc == 8) && strcmp(argv[1], "rate") == 0) {
        parse_url(argv[2]);
        double r = atof(argv[4]), s = atof(argv[5]);
        int c = atoi(argv[6]);
        if (r <= 0 || s <= 0 || c < 1 || c > 4096)
            die("RATE and SECONDS must be positive, CONNECTIONS 1..4096");
        int kind = argc == 8 ? -1 : KIND_ORDERS;
        for (int k = 0; k < 3 && kind < 0; k++)
            if (strcmp(argv[7], kind_names[k]) == 0)
                kind = k;
        if (kind < 0)
            die("the kind of requests must be orders, views or hands");
        return rate(argv[3], (enum kind)kind, r, s, c);
    }
    if (argc == 7 && strcmp(argv[1], "play") == 0) {
        parse_url(argv[2]);
        int seats = atoi(argv[4]), c = atoi(argv[6]);
        double secs = atof(argv[5]);
        if (seats < 1 || seats > 6 || secs <= 0 || c < 1 || c > 256)
            die("SEATS must be 1..6, SECONDS positive, CONNECTIONS 1..256");
        return play(argv[3], seats, secs, c);
    }
    fprintf(stderr, "usage: load setup URL GAMES FILE\n"
                    "       load fill URL GAMES FILE\n"
                    "       load timed URL GAMES SECONDS\n"
                    "       load experts URL GAMES FILE [GAME]\n"
                    "       load rate URL FILE RATE SECONDS CONNECTIONS [orders|views|hands]\n"
                    "       load play URL GAME SEATS SECONDS CONNECTIONS\n");
    return 2;
}
