/* client.h: a small client of the API for the service tests, written only from the API table
 * of design.md and the hand view: create and join games, read views, choose each seat's order
 * from its pending options, play to the end, and check the event log. Requests go to
 * `client_base`, which each test file points at a daemon or at the load balancer. */
#ifndef CITY_TEST_CLIENT_H
#define CITY_TEST_CLIENT_H

#include "harness.h"

static const char *client_base; /* "http://127.0.0.1:PORT" */

static json_t *call(const char *method, const char *path, const char *token, const char *body,
                    long want)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", client_base, path);
    struct http_reply r;
    cr_assert(http_do(method, url, token, body, &r), "%s %s: no answer", method, path);
    cr_assert_eq(r.status, want, "%s %s -> %ld (wanted %ld): %s", method, path, r.status, want,
                 r.body);
    json_t *j = json_incref(r.json);
    http_reply_free(&r);
    return j;
}

static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}
static long long num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Sends `method path` (at `base`) with an optional token and body and checks the reply: a
 * problem of `status` and `code` whose detail says what to do. Returns its Retry-After in
 * seconds (0: none). */
static inline int call_problem(const char *base, const char *method, const char *path,
                               const char *token, const char *body, long status, const char *code)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", base, path);
    struct http_reply r;
    cr_assert(http_do(method, url, token, body, &r));
    cr_expect_eq(r.status, status, "%s %s -> %ld, wanted %ld: %s", method, path, r.status, status,
                 r.body);
    cr_expect_str_eq(r.content_type, "application/problem+json");
    cr_expect_str_eq(str(r.json, "code"), code, "%s", r.body);
    const char *detail = str(r.json, "detail");
    cr_expect(detail && strlen(detail) > 10, "a problem says what to do: %s", r.body);
    char ra[32] = "";
    int retry = http_header(&r, "Retry-After", ra, sizeof ra) ? atoi(ra) : 0;
    http_reply_free(&r);
    return retry;
}

/* Builds this seat's order from its hand view only: the first affordable build paying with
 * the first other cards, else the contractor, else survey; discards take the first cards. */
static char *choose_order(json_t *hand)
{
    json_t *p = json_object_get(hand, "pending");
    if (!json_is_object(p))
        return NULL;
    long long round = num(p, "round");
    const char *step = str(p, "step");
    json_t *opts = json_object_get(p, "options");
    json_t *cards = json_object_get(hand, "hand");
    json_t *order = json_pack("{s:I, s:s}", "round", round, "step", step);
    if (strcmp(step, "build") == 0) {
        json_t *builds = json_object_get(opts, "builds");
        if (json_array_size(builds) > 0) {
            json_t *b = json_array_get(builds, json_array_size(builds) - 1);
            long long id = num(b, "id"), cost = num(b, "cost");
            json_t *pay = json_array();
            size_t i;
            json_t *c;
            json_array_foreach(cards, i, c)
            {
                if ((long long)json_array_size(pay) < cost && num(c, "id") != id)
                    json_array_append_new(pay, json_integer(num(c, "id")));
            }
            json_object_set_new(order, "build", json_pack("{s:I, s:o}", "card", id, "pay", pay));
        } else if (json_is_true(json_object_get(opts, "contractor"))) {
            json_object_set_new(order, "contractor", json_true());
        } else {
            json_object_set_new(order, "survey", json_true());
        }
    } else {
        long long n = num(opts, "discard");
        json_t *discard = json_array();
        for (long long i = 0; i < n; i++)
            json_array_append_new(discard,
                                  json_integer(num(json_array_get(cards, (size_t)i), "id")));
        json_object_set_new(order, "discard", discard);
    }
    char *text = json_dumps(order, JSON_COMPACT);
    json_decref(order);
    return text;
}

struct table {
    char id[64];
    char host[80];
    int seats;
    char tokens[5][80];
    int humans;
};

static inline void create(struct table *t, int seats, int bots, const char *extra)
{
    char body[512];
    json_t *b = json_array();
    for (int i = 0; i < bots; i++)
        json_array_append_new(b, json_string(i % 2 ? "random" : "greedy"));
    char *bj = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    snprintf(body, sizeof body, "{\"seats\": %d, \"bots\": %s%s}", seats, bj, extra ? extra : "");
    free(bj);
    json_t *g = call("POST", "/api/v1/games", NULL, body, 201);
    snprintf(t->id, sizeof t->id, "%s", str(g, "id"));
    snprintf(t->host, sizeof t->host, "%s", str(g, "host_token"));
    cr_assert_eq(strlen(t->host), 64, "host token of 256 bits in hex");
    json_decref(g);
    t->seats = seats;
    t->humans = seats - bots;
    for (int s = 0; s < t->humans; s++) {
        char path[128], name[64];
        snprintf(path, sizeof path, "/api/v1/games/%s/join", t->id);
        snprintf(name, sizeof name, "{\"name\": \"Player %d\"}", s + 1);
        json_t *j = call("POST", path, NULL, name, 201);
        cr_assert_eq(num(j, "seat"), s);
        snprintf(t->tokens[s], sizeof t->tokens[s], "%s", str(j, "token"));
        json_decref(j);
    }
}

/* The value of daemon `base`'s /metrics line for `prefix`, a metric's name with its labels
 * (e.g. "city_games{status=\"expired\"}"; a trailing space is allowed), or -1 when there is
 * none. */
static inline double metric_at(const char *base, const char *prefix)
{
    char url[512];
    snprintf(url, sizeof url, "%s/metrics", base);
    struct http_reply r;
    cr_assert(http_do("GET", url, NULL, NULL, &r));
    cr_assert_eq(r.status, 200);
    double v = -1;
    size_t n = strlen(prefix);
    bool spaced = n > 0 && prefix[n - 1] == ' ';
    for (const char *p = r.body; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, n) == 0 && (spaced || p[n] == ' '))
            v = atof(p + n);
    http_reply_free(&r);
    return v;
}

static json_t *view(const struct table *t)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/games/%s", t->id);
    return call("GET", path, NULL, NULL, 200);
}

static json_t *hand(const struct table *t, int seat)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", t->id);
    return call("GET", path, t->tokens[seat], NULL, 200);
}

/* Seat `seat` of t sends the order its hand suggests (the pending decision's suggestion: a
 * whole order body in every game) and expects 202; false when it has nothing to decide. */
static inline bool send_suggested_order(const struct table *t, int seat)
{
    json_t *h = hand(t, seat);
    json_t *sug = json_object_get(json_object_get(h, "pending"), "suggestion");
    char *order = json_is_object(sug) ? json_dumps(sug, JSON_COMPACT) : NULL;
    json_decref(h);
    if (!order)
        return false;
    char path[128];
    snprintf(path, sizeof path, "/api/v1/games/%s/orders", t->id);
    json_decref(call("POST", path, t->tokens[seat], order, 202));
    free(order);
    return true;
}

/* Every human with a decision sends it; returns false once the game is over. */
static bool play_step(const struct table *t)
{
    json_t *v = view(t);
    bool over = strcmp(str(v, "status"), "finished") == 0;
    json_decref(v);
    if (over)
        return false;
    for (int s = 0; s < t->humans; s++) {
        json_t *h = hand(t, s);
        char *order = choose_order(h);
        json_decref(h);
        if (!order)
            continue;
        char path[128];
        snprintf(path, sizeof path, "/api/v1/games/%s/orders", t->id);
        char url[512];
        snprintf(url, sizeof url, "%s%s", client_base, path);
        struct http_reply r;
        cr_assert(http_do("POST", url, t->tokens[s], order, &r));
        /* 202, or 409 when an earlier seat's order already moved the game on. */
        cr_assert(r.status == 202 || r.status == 409, "order %s -> %ld %s", order, r.status,
                  r.body);
        http_reply_free(&r);
        free(order);
    }
    return true;
}

static inline void play_to_end(const struct table *t)
{
    for (int i = 0; i < 400 && play_step(t); i++)
        ;
    json_t *v = view(t);
    cr_assert_str_eq(str(v, "status"), "finished");
    cr_assert_gt(json_array_size(json_object_get(v, "winners")), 0);
    json_decref(v);
}

/* The event log has seq 1..last without a gap (read page by page), and each decision point
 * (round, step and, in games with turns, turn) opened exactly once; returns last. */
static inline long long check_log(const struct table *t)
{
    static char seen[1 << 16];
    seen[0] = 0;
    long long next = 1, last = 0;
    for (;;) {
        char path[160];
        snprintf(path, sizeof path, "/api/v1/games/%s/events?after=%lld", t->id, next - 1);
        json_t *e = call("GET", path, NULL, NULL, 200);
        json_t *events = json_object_get(e, "events");
        last = num(e, "last_seq");
        size_t i;
        json_t *ev;
        json_array_foreach(events, i, ev)
        {
            cr_assert_eq(num(ev, "seq"), next, "gap in the event log at %lld", next);
            next++;
            if (strcmp(str(ev, "type"), "step") == 0) {
                char key[80];
                json_t *turn = json_object_get(ev, "turn");
                snprintf(key, sizeof key, "|%lld:%s:%lld|", num(ev, "round"), str(ev, "step"),
                         turn ? json_integer_value(turn) : -1LL);
                cr_assert(strstr(seen, key) == NULL, "step %s opened twice", key);
                strncat(seen, key, sizeof seen - strlen(seen) - 1);
            }
        }
        bool done = json_array_size(events) == 0 || next > last;
        json_decref(e);
        if (done)
            break;
    }
    cr_assert_eq(last, next - 1, "the log reaches last_seq");
    return last;
}

#endif
