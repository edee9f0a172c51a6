/* test_hostile.c: the reliability suite's hostile input. A real daemon (the sanitizer build
 * under `make test`, started with --timeout 2) gets malformed and truncated JSON, wrong types
 * and absurd numbers in every field, duplicate cards and keys, bodies of 10 MB with and without
 * a length, bodies that trickle in or stall, invalid UTF-8, NULs and control characters, SQL
 * in names, ids and tokens, path traversal against the static files, tokens of other games and
 * replayed orders, and a lobby filled from six addresses. Each must get a clear 4xx
 * (application/problem+json with a stable code and a detail sentence wherever the request reached
 * the route table), must leave the game uncorrupted and playable to its end, must reveal no hand,
 * and must leave the daemon serving (GET /healthz 200 and the process alive: under ASan a memory
 * error kills it).
 *
 * Raw sockets (raw_exchange, slow_open) send what libcurl would normalise or refuse to send:
 * paths with "..", bodies without a Content-Length, stalled and trickling bodies.
 *
 * Every hostile request is counted; each test appends "hostile_inputs N" and finer keys to
 * $CITY_COUNTS (summed by scripts/reliability-summary.sh). */
#include "suite.h"

#include <poll.h>

static struct daemon d;
static char db[512];

/* ---- counting ----------------------------------------------------------------------------- */

enum kind {
    K_ALL,
    K_MALFORMED,
    K_TRUNCATED,
    K_TYPES,
    K_NUMBERS,
    K_DUPLICATES,
    K_BIG,
    K_SLOW,
    K_TEXT,
    K_SQL,
    K_PATHS,
    K_TOKENS,
    K_REPLAYS,
    K_COUNT
};
static const char *const count_keys[K_COUNT] = {
    "hostile_inputs",         "hostile_malformed_json", "hostile_truncated_orders",
    "hostile_wrong_types",    "hostile_bad_numbers",    "hostile_duplicates",
    "hostile_big_bodies",     "hostile_slow_bodies",    "hostile_bad_text",
    "hostile_sql_metachars",  "hostile_path_traversal", "hostile_bad_tokens",
    "hostile_replayed_orders"};
static long counts[K_COUNT];

static void counted(enum kind k)
{
    counts[K_ALL]++;
    counts[k]++;
}

static void counts_append(void)
{
    suite_counts_append(count_keys, counts, K_COUNT);
}

/* ---- the daemon --------------------------------------------------------------------------- */

static void up(void)
{
    signal(SIGPIPE, SIG_IGN); /* writes to sockets the daemon closed */
    db_create(db, sizeof db);
    daemon_start(&d, db, "--allow-seed --timeout 2");
    client_base = d.base;
}

static void down(void)
{
    counts_append();
    daemon_stop(&d); /* when the test ended early; else stops_cleanly() did */
}

TestSuite(hostile, .init = up, .fini = down, .timeout = 80);

/* The daemon is alive (a sanitizer report would have killed it) and answers /healthz 200. */
static void still_serving(const char *after)
{
    char tail[2000];
    int st = daemon_wait(&d, 0);
    cr_assert_eq(st, -1, "cityd exited (status %d) after %s; its log ends:\n%s", st, after,
                 daemon_log_tail(&d, tail, sizeof tail));
    char url[128];
    snprintf(url, sizeof url, "%s/healthz", d.base);
    struct http_request rq = {.method = "GET", .url = url, .timeout_ms = 5000};
    struct http_reply r;
    bool got = http_request(&rq, &r);
    long status = r.status;
    http_reply_free(&r);
    cr_assert(got && status == 200, "GET /healthz -> %ld after %s; the log ends:\n%s", status,
              after, daemon_log_tail(&d, tail, sizeof tail));
    /* Nothing hostile left a request counted as in progress (the bot pool would pause for it):
     * only the metrics request itself is. */
    snprintf(url, sizeof url, "%s/metrics", d.base);
    rq.url = url;
    cr_assert(http_request(&rq, &r) && r.status == 200, "GET /metrics after %s", after);
    const char *line = r.body ? strstr(r.body, "\ncity_requests_in_progress ") : NULL;
    int busy = line ? atoi(line + strlen("\ncity_requests_in_progress ")) : -1;
    http_reply_free(&r);
    cr_expect_eq(busy, 1, "city_requests_in_progress is %d after %s", busy, after);
}

static void stops_cleanly(void)
{
    suite_stops_cleanly(&d);
}

/* ---- checks shared by every hostile reply ------------------------------------------------- */

/* A reply must never carry a hand: no "hand" key, no {"id":N,...} card entry. */
static void no_hand_in(const char *body, const char *what)
{
    cr_expect(strstr(body, "\"hand\"") == NULL && strstr(body, "{\"id\":") == NULL,
              "%s: the reply shows a hand: %.300s", what, body);
}

/* A problem reply: status `status`, application/problem+json, `code` (any when NULL), the same
 * status inside, a detail sentence and no hand. */
static void check_problem(const char *what, long got_status, const char *ctype, json_t *json,
                          const char *body, long status, const char *code)
{
    cr_expect_eq(got_status, status, "%s -> %ld, wanted %ld: %.300s", what, got_status, status,
                 body);
    cr_expect_str_eq(ctype, "application/problem+json", "%s: content type %s: %.300s", what, ctype,
                     body);
    cr_assert_not_null(json, "%s: the problem is not JSON: %.300s", what, body);
    const char *c = json_string_value(json_object_get(json, "code"));
    cr_expect(c && *c, "%s: the problem has no code: %.300s", what, body);
    if (code)
        cr_expect(c && strcmp(c, code) == 0, "%s: code %s, wanted %s: %.300s", what, c, code, body);
    cr_expect_eq(json_integer_value(json_object_get(json, "status")), got_status, "%s", what);
    const char *detail = json_string_value(json_object_get(json, "detail"));
    cr_expect(detail && strlen(detail) > 10, "%s: a problem needs a sentence: %.300s", what, body);
    no_hand_in(body, what);
}

/* Sends method path (relative to the daemon) with raw body bytes (len, may hold NULs; NULL for
 * none) and extra header lines, counts it as `k` and checks the problem reply. */
static void expect_problem_h(enum kind k, const char *method, const char *path, const char *token,
                             const char *const *headers, const void *body, size_t len, long status,
                             const char *code)
{
    char url[16384];
    snprintf(url, sizeof url, "%s%s", d.base, path);
    struct http_request rq = {.method = method,
                              .url = url,
                              .bearer = token,
                              .body = body,
                              .len = len,
                              .headers = headers,
                              .timeout_ms = 15000};
    struct http_reply r;
    counted(k);
    bool got = http_request(&rq, &r);
    char what[200];
    snprintf(what, sizeof what, "%s %.60s [%.80s]", method, path,
             body ? (const char *)body : "no body");
    cr_assert(got, "%s: no answer (%s)", what, r.error);
    check_problem(what, r.status, r.content_type, r.json, r.body, status, code);
    http_reply_free(&r);
}

static void expect_problem(enum kind k, const char *method, const char *path, const char *token,
                           const char *body, long status, const char *code)
{
    expect_problem_h(k, method, path, token, NULL, body, body ? strlen(body) : 0, status, code);
}

/* malloc that never returns NULL. */
static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    return p;
}

/* ---- raw sockets -------------------------------------------------------------------------- */

/* What came back on a raw connection. */
struct raw_reply {
    int status; /* of the first status line; 0 when none came */
    char *data; /* everything received, NUL-terminated */
    size_t len;
    const char *body; /* after the first header block (inside data), or "" */
    char content_type[128];
    json_t *json;  /* the body when it is JSON */
    bool closed;   /* the daemon closed the connection (or reset it) */
    double waited; /* seconds from the end of sending to the close or the timeout */
};

static void raw_free(struct raw_reply *r)
{
    free(r->data);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

static int raw_connect(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(fd >= 0, "socket: %s", strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect: %s", strerror(errno));
    return fd;
}

/* Sends all of buf (stopping quietly when the daemon has closed the connection); the bytes
 * sent. */
static size_t raw_send(int fd, const void *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = send(fd, (const char *)buf + off, len - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    return off;
}

/* Fills in status, body, content type and JSON from r->data. */
static void raw_parse(struct raw_reply *r)
{
    r->body = "";
    if (sscanf(r->data, "HTTP/1.%*d %d", &r->status) != 1)
        r->status = 0;
    char *end = strstr(r->data, "\r\n\r\n");
    if (!end)
        return;
    r->body = end + 4;
    for (char *line = strstr(r->data, "\r\n"); line && line < end; line = strstr(line + 2, "\r\n"))
        if (strncasecmp(line + 2, "Content-Type:", 13) == 0) {
            const char *v = line + 15;
            while (*v == ' ')
                v++;
            snprintf(r->content_type, sizeof r->content_type, "%.*s", (int)strcspn(v, "\r\n"), v);
            break;
        }
    size_t blen = r->len - (size_t)(r->body - r->data);
    if (blen)
        r->json = json_loadb(r->body, blen, 0, NULL);
}

/* Reads from fd until the daemon closes it or timeout_ms pass; appends to r->data. */
static void raw_read(int fd, struct raw_reply *r, long timeout_ms)
{
    double start = harness_now(), until = start + (double)timeout_ms / 1000.0;
    size_t cap = r->len + 65536;
    r->data = realloc(r->data, cap);
    cr_assert_not_null(r->data);
    for (;;) {
        double left = until - harness_now();
        if (left <= 0)
            break;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = poll(&p, 1, (int)(left * 1000) + 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (r->len + 4097 > cap) {
            cap *= 2;
            r->data = realloc(r->data, cap);
            cr_assert_not_null(r->data);
        }
        ssize_t got = recv(fd, r->data + r->len, cap - r->len - 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            r->closed = true;
            break;
        }
        r->len += (size_t)got;
    }
    r->waited = harness_now() - start;
    r->data[r->len] = 0;
    raw_parse(r);
}

/* Sends `len` bytes as one request on a new connection and reads the answer until the daemon
 * closes the connection (requests should say "Connection: close") or timeout_ms pass. */
static void raw_exchange(const void *req, size_t len, long timeout_ms, struct raw_reply *out)
{
    memset(out, 0, sizeof *out);
    int fd = raw_connect();
    raw_send(fd, req, len);
    raw_read(fd, out, timeout_ms);
    close(fd);
}

/* ---- a game to attack --------------------------------------------------------------------- */

static void path_of(char *out, size_t n, const struct table *t, const char *tail)
{
    snprintf(out, n, "/api/v1/games/%.63s%s", t->id, tail);
}

static long long last_seq(const struct table *t)
{
    json_t *v = view(t);
    long long s = num(v, "last_seq");
    json_decref(v);
    return s;
}

/* The public view of t once the seats' signs of life shown so far are written: a sign (a hand
 * view, an accepted order) is written by the daemon's presence writer within moments, not by the
 * request (service_seen), so a view read at once may still show the seat away. Read until two
 * reads 150 ms apart agree (at most 3 s). */
static json_t *settled_view(const struct table *t)
{
    json_t *v = view(t);
    for (double until = harness_now() + 3.0; harness_now() < until;) {
        harness_sleep_ms(150);
        json_t *again = view(t);
        bool same = json_equal(v, again);
        json_decref(v);
        v = again;
        if (same)
            break;
    }
    return v;
}

/* The game's public view loads, shows no hand, and nothing moved since `before` (its last_seq
 * and the whole view are unchanged). */
static void game_unchanged(const struct table *t, json_t *before, const char *after)
{
    json_t *v = view(t);
    char *text = json_dumps(v, JSON_COMPACT);
    cr_assert_not_null(text);
    no_hand_in(text, after);
    free(text);
    if (before) {
        cr_expect_eq(num(v, "last_seq"), num(before, "last_seq"), "the log moved after %s", after);
        cr_expect(json_equal(v, before), "the public view changed after %s", after);
    }
    json_decref(v);
}

/* The game goes on to its end with the client's ordinary orders; its log has no gap. */
static void still_playable(const struct table *t)
{
    play_to_end(t);
    check_log(t);
}

/* The first n card ids of a seat's hand. */
static int hand_ids(const struct table *t, int seat, long long *ids, int n)
{
    json_t *h = hand(t, seat);
    json_t *cards = json_object_get(h, "hand");
    int k = 0;
    for (; k < n && (size_t)k < json_array_size(cards); k++)
        ids[k] = num(json_array_get(cards, (size_t)k), "id");
    json_decref(h);
    return k;
}

/* ==== malformed and truncated JSON ========================================================= */

Test(hostile, malformed_json_is_a_400_problem_and_changes_nothing)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 11");
    json_t *before = settled_view(&t);
    char orders[128], join[128];
    path_of(orders, sizeof orders, &t, "/orders");
    path_of(join, sizeof join, &t, "/join");
    static const struct {
        const char *body;
        const char *code;
    } cases[] = {
        {"{", "malformed_json"},
        {"}", "malformed_json"},
        {"[", "malformed_json"},
        {"{\"seats\":", "malformed_json"},
        {"{'seats': 2}", "malformed_json"},
        {"{seats: 2}", "malformed_json"},
        {"{\"seats\": 2,}", "malformed_json"},
        {"{\"seats\": 2}}", "malformed_json"},
        {"{\"seats\": 2} {\"seats\": 3}", "malformed_json"},
        {"{\"seats\": 2} trailing", "malformed_json"},
        {"\xef\xbb\xbf{\"seats\": 2}", "malformed_json"},
        {"{\"seats\": 02}", "malformed_json"},
        {"{\"seats\": +2}", "malformed_json"},
        {"{\"seats\": 0x2}", "malformed_json"},
        {"{\"seats\": NaN}", "malformed_json"},
        {"{\"seats\": Infinity}", "malformed_json"},
        {"{\"seats\": 2 /* comment */}", "malformed_json"},
        {"{\"seats\": \"2}", "malformed_json"},
        {"{\"seats\": \"\\x41\"}", "malformed_json"},
        {"{\"seats\": tru}", "malformed_json"},
        {"nul", "malformed_json"},
        {"   ", "malformed_json"},
        {"[1, 2]", "not_an_object"},
        {"2", "not_an_object"},
        {"\"seats\"", "not_an_object"},
        {"null", "not_an_object"},
        {"true", "not_an_object"},
    };
    const char *paths[] = {"/api/v1/games", join, orders};
    for (size_t p = 0; p < 3; p++) {
        const char *token = p == 2 ? t.tokens[0] : NULL;
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            expect_problem(K_MALFORMED, "POST", paths[p], token, cases[i].body, 400, cases[i].code);
        /* No body at all. */
        expect_problem(K_MALFORMED, "POST", paths[p], token, NULL, 400, "malformed_json");
        /* Nesting far deeper than any parser should follow. */
        size_t depth = 20000;
        char *deep = xmalloc(2 * depth + 1);
        memset(deep, '[', depth);
        memset(deep + depth, ']', depth);
        deep[2 * depth] = 0;
        expect_problem(K_MALFORMED, "POST", paths[p], token, deep, 400, "malformed_json");
        memset(deep, '{', depth);
        expect_problem(K_MALFORMED, "POST", paths[p], token, deep, 400, "malformed_json");
        free(deep);
    }
    still_serving("malformed JSON");
    game_unchanged(&t, before, "malformed JSON");
    json_decref(before);
    still_playable(&t);
    still_serving("playing on");
    stops_cleanly();
}

/* Every proper prefix of a valid order is refused; the whole order is then accepted. */
static void truncate_everywhere(const struct table *t, const char *order)
{
    char path[128];
    path_of(path, sizeof path, t, "/orders");
    json_t *before = settled_view(t);
    size_t n = strlen(order);
    for (size_t cut = 0; cut < n; cut++)
        expect_problem_h(K_TRUNCATED, "POST", path, t->tokens[0], NULL, cut ? order : NULL, cut,
                         400, "malformed_json");
    game_unchanged(t, before, "truncated orders");
    json_decref(before);
    json_t *ok = call("POST", path, t->tokens[0], order, 202);
    cr_expect(json_is_true(json_object_get(ok, "accepted")));
    json_decref(ok);
}

Test(hostile, an_order_truncated_at_any_byte_is_refused_and_the_whole_one_accepted)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 12");
    for (int step = 0; step < 3; step++) {
        json_t *h = hand(&t, 0);
        char *order = choose_order(h);
        json_decref(h);
        cr_assert_not_null(order, "seat 0 has a decision to make");
        /* Spaced out as a person would type it, so that cuts fall between tokens too. */
        json_t *o = json_loads(order, 0, NULL);
        char *spaced = json_dumps(o, JSON_INDENT(1));
        json_decref(o);
        free(order);
        truncate_everywhere(&t, spaced);
        free(spaced);
        still_serving("truncated orders");
    }
    still_playable(&t);
    stops_cleanly();
}

/* ==== wrong types and absurd numbers ======================================================= */

struct field_case {
    const char *field; /* for create: which field gets `value` */
    const char *value;
    const char *code;
};

/* The JSON of a create body whose fields are all valid but `field`, which is `value`. */
static void create_body(char *out, size_t n, const char *field, const char *value)
{
    static const char *const fields[][2] = {{"seats", "2"},      {"bots", "[\"greedy\"]"},
                                            {"target_vp", "50"}, {"turn_seconds", "60"},
                                            {"seed", "1"},       {"name", "\"Ada\""}};
    size_t k = (size_t)snprintf(out, n, "{");
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        k += (size_t)snprintf(out + k, n - k, "%s\"%s\": %s", i ? ", " : "", fields[i][0],
                              strcmp(fields[i][0], field) == 0 ? value : fields[i][1]);
    snprintf(out + k, n - k, "}");
}

/* Values that are wrong for every integer field, with the code each must get. */
static const struct {
    const char *value;
    const char *code;
} bad_ints[] = {
    {"\"2\"", "wrong_type"},
    {"2.0", "wrong_type"},
    {"2.5", "wrong_type"},
    {"-0.0", "wrong_type"},
    {"1e1", "wrong_type"},
    {"true", "wrong_type"},
    {"false", "wrong_type"},
    {"[2]", "wrong_type"},
    {"{\"n\": 2}", "wrong_type"},
    {"-1", "bad_value"},
    {"-9223372036854775808", "bad_value"},
    {"9223372036854775807", "bad_value"},
    {"9223372036854775808", "malformed_json"}, /* 2^63: no JSON integer we accept */
    {"-9223372036854775809", "malformed_json"},
    {"99999999999999999999", "malformed_json"},
    {"1e400", "malformed_json"},
    {"-1e400", "malformed_json"},
};
enum { NBAD_INTS = sizeof bad_ints / sizeof *bad_ints };

Test(hostile, wrong_types_and_absurd_numbers_in_create_are_400_with_the_field_named)
{
    char body[512];
    const char *int_fields[] = {"seats", "target_vp", "turn_seconds"};
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < NBAD_INTS; i++) {
            create_body(body, sizeof body, int_fields[f], bad_ints[i].value);
            enum kind k = strcmp(bad_ints[i].code, "wrong_type") ? K_NUMBERS : K_TYPES;
            expect_problem(k, "POST", "/api/v1/games", NULL, body, 400, bad_ints[i].code);
        }
    static const struct field_case cases[] = {
        {"seats", "null", "missing_field"},
        {"seats", "0", "bad_value"},
        {"seats", "6", "bad_value"},
        {"target_vp", "0", "bad_value"},
        {"turn_seconds", "0", "bad_value"},
        {"turn_seconds", "4", "bad_value"},
        {"bots", "\"greedy\"", "wrong_type"},
        {"bots", "1", "wrong_type"},
        {"bots", "true", "wrong_type"},
        {"bots", "{\"greedy\": 1}", "wrong_type"},
        {"bots", "[1]", "bad_value"},
        {"bots", "[null]", "bad_value"},
        {"bots", "[[\"greedy\"]]", "bad_value"},
        {"bots", "[\"GREEDY\"]", "bad_value"},
        {"bots", "[\"greedy \"]", "bad_value"},
        {"bots", "[\"\"]", "bad_value"},
        {"bots", "[\"greedy\", \"greedy\"]", "bad_value"},
        {"seed", "-1", "bad_value"},
        {"seed", "-9223372036854775808", "bad_value"},
        {"seed", "1.5", "wrong_type"},
        {"seed", "true", "wrong_type"},
        {"seed", "[1]", "wrong_type"},
        {"seed", "{}", "wrong_type"},
        {"seed", "\"\"", "bad_value"},
        {"seed", "\"abc\"", "bad_value"},
        {"seed", "\"-1\"", "bad_value"},
        {"seed", "\"1.5\"", "bad_value"},
        {"seed", "\"99999999999999999999\"", "bad_value"},
        {"seed", "\" 5\"", "bad_value"},
        {"seed", "\"+5\"", "bad_value"},
        {"seed", "\"5 \"", "bad_value"},
        {"seed", "\"18446744073709551616\"", "bad_value"},
        {"seed", "9223372036854775808", "malformed_json"},
        {"seed", "1e400", "malformed_json"},
        {"name", "1", "wrong_type"},
        {"name", "true", "wrong_type"},
        {"name", "[\"Ada\"]", "wrong_type"},
        {"name", "{\"first\": \"Ada\"}", "wrong_type"},
        {"name", "\"\"", "bad_value"},
        {"name", "\" \\t \"", "bad_value"},
        {"name", "\"12345678901234567890123456789012345678901\"", "bad_value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        create_body(body, sizeof body, cases[i].field, cases[i].value);
        expect_problem(K_TYPES, "POST", "/api/v1/games", NULL, body, 400, cases[i].code);
    }
    /* A field create does not take. */
    expect_problem(K_TYPES, "POST", "/api/v1/games", NULL, "{\"seats\": 2, \"colour\": \"red\"}",
                   400, "unknown_field");
    still_serving("wrong types in create");
    /* None of it made a game. */
    json_t *list = call("GET", "/api/v1/games", NULL, NULL, 200);
    cr_expect_eq(json_array_size(json_object_get(list, "games")), 0,
                 "a refused create left a game behind");
    json_decref(list);
    stops_cleanly();
}

Test(hostile, wrong_types_in_join_are_400_and_the_seat_stays_free)
{
    struct table t;
    create(&t, 3, 1, ", \"seed\": 13"); /* two people join; the game starts */
    struct table lobby;
    char path[128];
    /* A game with a free seat: create without the joins of client.h. */
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"bots\": [\"random\"]}", 201);
    snprintf(lobby.id, sizeof lobby.id, "%s", str(g, "id"));
    json_decref(g);
    path_of(path, sizeof path, &lobby, "/join");
    static const struct {
        const char *body;
        const char *code;
    } cases[] = {
        {"{}", "missing_field"},
        {"{\"name\": null}", "missing_field"}, /* null is "left out", in every body */
        {"{\"name\": 1}", "wrong_type"},
        {"{\"name\": 1.5}", "wrong_type"},
        {"{\"name\": 99999999999999999999}", "malformed_json"},
        {"{\"name\": 1e400}", "malformed_json"},
        {"{\"name\": -1}", "wrong_type"},
        {"{\"name\": true}", "wrong_type"},
        {"{\"name\": [\"Bob\"]}", "wrong_type"},
        {"{\"name\": {\"first\": \"Bob\"}}", "wrong_type"},
        {"{\"name\": \"\"}", "bad_value"},
        {"{\"name\": \"Bob\", \"seat\": 0}", "unknown_field"},
        {"{\"Name\": \"Bob\"}", "unknown_field"},
    };
    json_t *before = settled_view(&lobby);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        enum kind k = strstr(cases[i].code, "malformed") ? K_NUMBERS : K_TYPES;
        expect_problem(k, "POST", path, NULL, cases[i].body, 400, cases[i].code);
    }
    game_unchanged(&lobby, before, "wrong types in join");
    json_decref(before);
    /* The seat is still free for a proper join, which starts the game. */
    json_t *j = call("POST", path, NULL, "{\"name\": \"Bob\"}", 201);
    cr_expect_eq(num(j, "seat"), 0);
    snprintf(lobby.tokens[0], sizeof lobby.tokens[0], "%s", str(j, "token"));
    json_decref(j);
    lobby.seats = 2;
    lobby.humans = 1;
    still_serving("wrong types in join");
    still_playable(&lobby);
    still_playable(&t);
    stops_cleanly();
}

/* An order whose integer field number `which` (round, a discard, a built card, a payment) is
 * `value`; a and b are cards of the hand. */
static void order_with(char *out, size_t n, int which, const char *value, long long a, long long b)
{
    switch (which) {
    case 0:
        snprintf(out, n, "{\"round\": %s, \"step\": \"keep\", \"discard\": [%lld, %lld]}", value, a,
                 b);
        break;
    case 1:
        snprintf(out, n, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%s, %lld, %lld]}", value,
                 a, b);
        break;
    case 2:
        snprintf(out, n,
                 "{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": %s, \"pay\": [%lld, "
                 "%lld]}}",
                 value, a, b);
        break;
    default:
        snprintf(out, n,
                 "{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": %lld, \"pay\": [%s, "
                 "%lld]}}",
                 a, value, b);
    }
}

Test(hostile, wrong_types_and_absurd_numbers_in_orders_are_400_and_change_nothing)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 14");
    long long id[2];
    cr_assert_eq(hand_ids(&t, 0, id, 2), 2);
    char path[128], body[4096];
    path_of(path, sizeof path, &t, "/orders");
    json_t *before = settled_view(&t);
    const char *tok = t.tokens[0];
    /* Every integer field of an order: round, a discarded card, a built card, a paid card. */
    for (int s = 0; s < 4; s++)
        for (int i = 0; i < NBAD_INTS; i++) {
            order_with(body, sizeof body, s, bad_ints[i].value, id[0], id[1]);
            enum kind k = strcmp(bad_ints[i].code, "wrong_type") ? K_NUMBERS : K_TYPES;
            expect_problem(k, "POST", path, tok, body, 400, bad_ints[i].code);
        }
    static const struct {
        const char *body;
        const char *code;
    } cases[] = {
        {"{}", "missing_field"},
        {"{\"step\": \"keep\", \"discard\": [1, 2]}", "missing_field"},
        {"{\"round\": 0, \"discard\": [1, 2]}", "missing_field"},
        {"{\"round\": 0, \"step\": \"keep\"}", "conflicting_fields"},
        {"{\"round\": null, \"step\": \"keep\", \"discard\": [1, 2]}", "wrong_type"},
        {"{\"round\": 0, \"step\": 0, \"discard\": [1, 2]}", "wrong_type"},
        {"{\"round\": 0, \"step\": true, \"discard\": [1, 2]}", "wrong_type"},
        {"{\"round\": 0, \"step\": null, \"discard\": [1, 2]}", "wrong_type"},
        {"{\"round\": 0, \"step\": [\"keep\"], \"discard\": [1, 2]}", "wrong_type"},
        {"{\"round\": 0, \"step\": {\"keep\": 1}, \"discard\": [1, 2]}", "wrong_type"},
        {"{\"round\": 0, \"step\": \"KEEP\", \"discard\": [1, 2]}", "bad_value"},
        {"{\"round\": 0, \"step\": \"\", \"discard\": [1, 2]}", "bad_value"},
        {"{\"round\": 0, \"step\": \"over\", \"discard\": [1, 2]}", "bad_value"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": \"1,2\"}", "wrong_type"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": 1}", "wrong_type"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": null}", "wrong_type"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": {\"0\": 1}}", "wrong_type"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": [null, 1]}", "wrong_type"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": [[1], 2]}", "wrong_type"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": [{\"id\": 1}, 2]}", "wrong_type"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": [110, 1]}", "bad_value"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": [1, 2], \"x\": 1}", "unknown_field"},
        {"{\"round\": 0, \"step\": \"keep\", \"discard\": [1, 2], \"survey\": true}",
         "conflicting_fields"},
        {"{\"round\": 1, \"step\": \"build\", \"build\": \"1\"}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"build\": [1]}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"build\": null}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": 1}}", "missing_field"},
        {"{\"round\": 1, \"step\": \"build\", \"build\": {\"pay\": []}}", "missing_field"},
        {"{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": 1, \"pay\": 2}}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": 1, \"pay\": {}}}",
         "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": 1, \"pay\": [], \"x\": 0}}",
         "unknown_field"},
        {"{\"round\": 1, \"step\": \"build\", \"builds\": {}}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"builds\": [1, 2]}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"builds\": []}", "too_many_cards"},
        {"{\"round\": 1, \"step\": \"build\", \"builds\": [{\"card\": 1, \"pay\": []}]}",
         "too_many_cards"},
        {"{\"round\": 1, \"step\": \"build\", \"contractor\": 1}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"contractor\": \"true\"}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"contractor\": null}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"contractor\": false}", "bad_value"},
        {"{\"round\": 1, \"step\": \"build\", \"survey\": 1}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"survey\": [true]}", "wrong_type"},
        {"{\"round\": 1, \"step\": \"build\", \"survey\": false}", "bad_value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_problem(K_TYPES, "POST", path, tok, cases[i].body, 400, cases[i].code);
    /* Too many cards: 111 discards, 12 payments. */
    size_t k =
        (size_t)snprintf(body, sizeof body, "{\"round\": 0, \"step\": \"keep\", \"discard\": [");
    for (int i = 0; i < 111; i++)
        k += (size_t)snprintf(body + k, sizeof body - k, "%s%d", i ? ", " : "", i % 110);
    snprintf(body + k, sizeof body - k, "]}");
    expect_problem(K_NUMBERS, "POST", path, tok, body, 400, "too_many_cards");
    expect_problem(K_NUMBERS, "POST", path, tok,
                   "{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": 1, \"pay\": [2, 3, "
                   "4, 5, 6, 7, 8, 9, 10, 11, 12, 13]}}",
                   400, "too_many_cards");
    /* A huge round that parses is simply stale. */
    expect_problem(K_NUMBERS, "POST", path, tok,
                   "{\"round\": 60, \"step\": \"build\", \"survey\": true}", 409, "stale_step");
    still_serving("wrong types in orders");
    game_unchanged(&t, before, "wrong types in orders");
    json_decref(before);
    still_playable(&t);
    stops_cleanly();
}

Test(hostile, absurd_numbers_in_queries_and_headers_are_400_bad_query)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 15");
    char path[256];
    static const char *const afters[] = {"-1",
                                         "99999999999999999999",
                                         "9223372036854775808",
                                         "1e3",
                                         "1.5",
                                         "0x10",
                                         "abc",
                                         "",
                                         "1;DROP%20TABLE%20events",
                                         "%00",
                                         "1%00",
                                         "-9223372036854775808"};
    for (size_t i = 0; i < sizeof afters / sizeof *afters; i++) {
        snprintf(path, sizeof path, "/api/v1/games/%s/events?after=%s", t.id, afters[i]);
        expect_problem(K_NUMBERS, "GET", path, NULL, NULL, 400, "bad_query");
        snprintf(path, sizeof path, "/api/v1/games/%s/stream?after=%s", t.id, afters[i]);
        expect_problem(K_NUMBERS, "GET", path, NULL, NULL, 400, "bad_query");
    }
    static const char *const ids[] = {"Last-Event-ID: 99999999999999999999", "Last-Event-ID: -5",
                                      "Last-Event-ID: 1e9", "Last-Event-ID: x"};
    path_of(path, sizeof path, &t, "/stream");
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const char *h[] = {ids[i], NULL};
        expect_problem_h(K_NUMBERS, "GET", path, NULL, h, NULL, 0, 400, "bad_query");
    }
    still_serving("absurd query numbers");
    still_playable(&t);
    stops_cleanly();
}

/* ==== duplicates =========================================================================== */

Test(hostile, duplicate_cards_and_duplicate_keys_are_refused)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 16");
    long long id[7];
    cr_assert_eq(hand_ids(&t, 0, id, 7), 7);
    char path[128], body[512];
    path_of(path, sizeof path, &t, "/orders");
    const char *tok = t.tokens[0];
    json_t *before = settled_view(&t);
    snprintf(body, sizeof body, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}",
             id[0], id[0]);
    expect_problem(K_DUPLICATES, "POST", path, tok, body, 422, "duplicate_card");
    /* Duplicate keys, also when they differ only in escapes, and nested. */
    snprintf(body, sizeof body,
             "{\"round\": 0, \"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}", id[0],
             id[1]);
    expect_problem(K_DUPLICATES, "POST", path, tok, body, 400, "malformed_json");
    snprintf(body, sizeof body,
             "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld], \"discard\": [%lld, "
             "%lld]}",
             id[0], id[1], id[2], id[3]);
    expect_problem(K_DUPLICATES, "POST", path, tok, body, 400, "malformed_json");
    snprintf(body, sizeof body,
             "{\"round\": 0, \"r\\u006fund\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}",
             id[0], id[1]);
    expect_problem(K_DUPLICATES, "POST", path, tok, body, 400, "malformed_json");
    expect_problem(K_DUPLICATES, "POST", "/api/v1/games", NULL,
                   "{\"seats\": 2, \"seats\": 5, \"bots\": [\"greedy\"]}", 400, "malformed_json");
    char join[128];
    path_of(join, sizeof join, &t, "/join");
    expect_problem(K_DUPLICATES, "POST", join, NULL, "{\"name\": \"A\", \"name\": \"B\"}", 400,
                   "malformed_json");
    game_unchanged(&t, before, "duplicates in keep");
    json_decref(before);

    /* Into the build step: duplicate payments and the same card built twice. */
    snprintf(body, sizeof body, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}",
             id[5], id[6]);
    json_decref(call("POST", path, tok, body, 202));
    json_t *v = view(&t);
    cr_assert_str_eq(str(v, "step"), "build");
    json_decref(v);
    before = view(&t);
    snprintf(body, sizeof body,
             "{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": %lld, \"pay\": [%lld, "
             "%lld]}}",
             id[0], id[1], id[1]);
    expect_problem(K_DUPLICATES, "POST", path, tok, body, 422, "duplicate_card");
    snprintf(body, sizeof body,
             "{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": %lld, \"pay\": [%lld]}}",
             id[0], id[0]);
    expect_problem(K_DUPLICATES, "POST", path, tok, body, 422, "duplicate_card");
    snprintf(body, sizeof body,
             "{\"round\": 1, \"step\": \"build\", \"build\": {\"card\": %lld, \"card\": %lld, "
             "\"pay\": []}}",
             id[0], id[1]);
    expect_problem(K_DUPLICATES, "POST", path, tok, body, 400, "malformed_json");
    snprintf(body, sizeof body,
             "{\"round\": 1, \"step\": \"build\", \"builds\": [{\"card\": %lld, \"pay\": []}, "
             "{\"card\": %lld, \"pay\": []}]}",
             id[0], id[0]);
    counted(K_DUPLICATES);
    char url[512];
    snprintf(url, sizeof url, "%s%s", d.base, path);
    struct http_reply r;
    cr_assert(http_do("POST", url, tok, body, &r));
    /* Without a Construction Gang this is no_double; with one it is a duplicate. Either way a
     * 422 problem. */
    check_problem("the same card built twice", r.status, r.content_type, r.json, r.body, 422, NULL);
    http_reply_free(&r);
    game_unchanged(&t, before, "duplicates in build");
    json_decref(before);
    still_serving("duplicates");
    still_playable(&t);
    stops_cleanly();
}

/* ==== big bodies =========================================================================== */

/* The header block of a POST to path with `extra` header lines. */
static void post_head(char *out, size_t n, const char *path, const char *token, const char *extra)
{
    char auth[200] = "";
    if (token)
        snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", token);
    snprintf(out, n,
             "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%s%s"
             "Connection: close\r\n\r\n",
             path, auth, extra);
}

static void expect_raw_problem(const struct raw_reply *r, const char *what, long status,
                               const char *code)
{
    cr_assert(r->status > 0, "%s: no answer (got %zu bytes: %.200s)", what, r->len, r->data);
    check_problem(what, r->status, r->content_type, r->json, r->body, status, code);
}

Test(hostile, bodies_of_10_mb_get_413_with_or_without_a_length)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 17");
    json_t *before = settled_view(&t);
    char orders[128], join[128], head[1024];
    path_of(orders, sizeof orders, &t, "/orders");
    path_of(join, sizeof join, &t, "/join");
    const size_t ten_mb = 10u * 1024 * 1024;
    char *big = xmalloc(ten_mb);
    memset(big, ' ', ten_mb);
    big[0] = '{';
    big[ten_mb - 1] = '}';
    const char *paths[] = {"/api/v1/games", join, orders, "/healthz"};
    for (int p = 0; p < 4; p++) {
        const char *token = p == 2 ? t.tokens[0] : NULL;
        /* With a Content-Length: refused from the headers alone, before any of the body. */
        char extra[128];
        snprintf(extra, sizeof extra, "Content-Length: %zu\r\n", ten_mb);
        post_head(head, sizeof head, paths[p], token, extra);
        struct raw_reply r;
        counted(K_BIG);
        raw_exchange(head, strlen(head), 10000, &r);
        expect_raw_problem(&r, "10 MB announced", 413, "body_too_large");
        cr_expect(r.closed, "the daemon keeps a connection whose body it refused");
        raw_free(&r);
        /* With the Content-Length, sending it all anyway. */
        counted(K_BIG);
        int fd = raw_connect();
        raw_send(fd, head, strlen(head));
        raw_send(fd, big, ten_mb);
        memset(&r, 0, sizeof r);
        raw_read(fd, &r, 10000);
        close(fd);
        expect_raw_problem(&r, "10 MB sent with a length", 413, "body_too_large");
        raw_free(&r);
        /* Chunked, no Content-Length: read to its end, then refused. */
        post_head(head, sizeof head, paths[p], token, "Transfer-Encoding: chunked\r\n");
        counted(K_BIG);
        fd = raw_connect();
        raw_send(fd, head, strlen(head));
        const size_t chunk = 256 * 1024;
        char size_line[32];
        for (size_t off = 0; off < ten_mb; off += chunk) {
            snprintf(size_line, sizeof size_line, "%zx\r\n", chunk);
            raw_send(fd, size_line, strlen(size_line));
            raw_send(fd, big + off, chunk);
            raw_send(fd, "\r\n", 2);
        }
        raw_send(fd, "0\r\n\r\n", 5);
        memset(&r, 0, sizeof r);
        raw_read(fd, &r, 15000);
        close(fd);
        expect_raw_problem(&r, "10 MB chunked", 413, "body_too_large");
        raw_free(&r);
    }
    /* Through libcurl too (it may see the reply before it has sent everything). */
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games", d.base);
    struct http_reply hr;
    counted(K_BIG);
    if (http_raw("POST", url, NULL, "application/json", big, ten_mb, &hr)) {
        cr_expect_eq(hr.status, 413);
        cr_expect_str_eq(str(hr.json, "code"), "body_too_large");
    }
    http_reply_free(&hr);
    free(big);
    /* The cap is exact: 64 KiB of JSON is read, one byte more is not. */
    size_t cap = 64 * 1024;
    char *edge = xmalloc(cap + 2);
    memset(edge, ' ', cap + 1);
    edge[cap + 1] = 0;
    const char *inner = "{\"name\": \"\"";
    memcpy(edge, inner, strlen(inner));
    edge[cap - 1] = '}';
    expect_problem_h(K_BIG, "POST", join, NULL, NULL, edge, cap, 400, "bad_value");
    edge[cap - 1] = ' ';
    edge[cap] = '}';
    expect_problem_h(K_BIG, "POST", join, NULL, NULL, edge, cap + 1, 413, "body_too_large");
    free(edge);
    still_serving("10 MB bodies");
    game_unchanged(&t, before, "10 MB bodies");
    json_decref(before);
    still_playable(&t);
    stops_cleanly();
}

/* Counts the status lines in a raw reply: more than one means a second request was read from
 * what the client sent as one. */
static int status_lines(const struct raw_reply *r)
{
    int n = 0;
    for (const char *p = r->data; p && (p = strstr(p, "HTTP/1.")); p += 7)
        if (p == r->data || p[-1] == '\n')
            n++;
    return n;
}

/* Request smuggling: heads whose framing a proxy in front could read otherwise than the daemon
 * (two lengths, a length beside chunked coding, a space before the colon, HTTP/1.1 without
 * Host) are 400 bad_request_head before any of the body is read, the connection is closed, and
 * nothing after them is answered as a request of its own. */
Test(hostile, ambiguous_request_heads_are_400_and_nothing_after_them_is_answered)
{
    static const char *const heads[] = {
        "POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 12\r\nContent-Length: 40\r\n\r\n{\"seats\": 2}",
        "POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nc\r\n{\"seats\": 2}\r\n0\r\n\r\n"
        "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length : 12\r\n\r\n{\"seats\": 2}",
        "POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length:\t12\r\nTransfer-Encoding: identity\r\n\r\n{\"seats\": 2}",
        "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        counted(K_DUPLICATES);
        struct raw_reply r;
        raw_exchange(heads[i], strlen(heads[i]), 5000, &r);
        char what[64];
        snprintf(what, sizeof what, "ambiguous head %zu", i);
        expect_raw_problem(&r, what, 400, "bad_request_head");
        cr_expect_eq(status_lines(&r), 1, "%s: %d answers to one request:\n%s", what,
                     status_lines(&r), r.data);
        cr_expect(r.closed, "%s: the connection stays open after a head it could not frame", what);
        raw_free(&r);
    }
    /* The same requests framed one way only are served: HTTP/1.0 needs no Host, and one
     * length, however written, is one length. */
    static const char *const fine[] = {
        "GET /healthz HTTP/1.0\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "content-length: 14\r\nConnection: close\r\n\r\n{\"seats\": 200}",
    };
    static const int fine_status[] = {200, 200, 400};
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        struct raw_reply r;
        raw_exchange(fine[i], strlen(fine[i]), 5000, &r);
        cr_expect_eq(r.status, fine_status[i], "plain head %zu -> %d:\n%s", i, r.status, r.data);
        const char *code = json_string_value(json_object_get(r.json, "code"));
        cr_expect(!code || strcmp(code, "bad_request_head") != 0, "plain head %zu refused", i);
        raw_free(&r);
    }
    still_serving("ambiguous request heads");
}

/* ==== slow bodies ========================================================================== */

/* A connection that sends its request in pieces. */
struct slow {
    int fd;
    bool trickle;  /* sends a byte every tick; else stays silent after its head */
    double opened; /* when its last head byte went out */
    double closed; /* when the daemon closed it, or 0 */
    int status;    /* a status line it got, or 0 */
    size_t sent;   /* body bytes sent */
};

static void slow_open(struct slow *s, const char *head, bool trickle)
{
    memset(s, 0, sizeof *s);
    s->fd = raw_connect();
    s->trickle = trickle;
    cr_assert_eq(raw_send(s->fd, head, strlen(head)), strlen(head));
    s->opened = harness_now();
    counted(K_SLOW);
}

/* Notes whether the daemon has closed it; trickles one byte when it should. */
static void slow_tick(struct slow *s, bool send_now)
{
    if (s->closed)
        return;
    char buf[4096];
    for (;;) {
        ssize_t got = recv(s->fd, buf, sizeof buf - 1, MSG_DONTWAIT);
        if (got > 0) {
            buf[got] = 0;
            if (!s->status)
                sscanf(buf, "HTTP/1.%*d %d", &s->status);
            continue;
        }
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            s->closed = harness_now();
            close(s->fd);
            return;
        }
        break;
    }
    if (s->trickle && send_now && send(s->fd, " ", 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
        s->sent++;
}

/* Times a GET of path; fails the test when it is not 200. */
static double timed_get(const char *path)
{
    char url[256];
    snprintf(url, sizeof url, "%s%s", d.base, path);
    double t0 = harness_now();
    struct http_request rq = {.method = "GET", .url = url, .timeout_ms = 10000};
    struct http_reply r;
    bool got = http_request(&rq, &r);
    double took = harness_now() - t0;
    cr_expect(got && r.status == 200, "GET %s -> %ld beside slow clients", path, r.status);
    http_reply_free(&r);
    return took;
}

/* Drives the slow connections (a byte every tick_ms for tricklers) while serving ordinary
 * requests, until all are closed or `limit` seconds pass. Expects ordinary requests to have
 * been answered while every slow connection was still open (a daemon that the slow ones
 * blocked would answer only once they are cut off); returns the slowest one's time. */
static double drive_slow(struct slow *s, int n, const struct table *t, double limit, long tick_ms)
{
    char game[128];
    path_of(game, sizeof game, t, "");
    double start = harness_now(), last_tick = 0, slowest = 0;
    int served = 0, served_beside_all = 0;
    for (;;) {
        bool tick = harness_now() - last_tick >= (double)tick_ms / 1000.0;
        if (tick)
            last_tick = harness_now();
        int still_open = 0;
        for (int i = 0; i < n; i++) {
            slow_tick(&s[i], tick);
            still_open += !s[i].closed;
        }
        if (!still_open || harness_now() - start > limit)
            break;
        double a = timed_get(served % 2 ? "/healthz" : game);
        slowest = a > slowest ? a : slowest;
        served++;
        bool all_open = true;
        for (int i = 0; i < n && all_open; i++) {
            slow_tick(&s[i], false);
            all_open = !s[i].closed;
        }
        served_beside_all += all_open;
        harness_sleep_ms(50);
    }
    cr_expect_geq(served_beside_all, 3,
                  "only %d ordinary requests were answered while %d slow connections were open",
                  served_beside_all, n);
    return slowest;
}

Test(hostile, a_stalled_body_is_cut_off_after_the_timeout_while_others_are_served)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 18");
    char head[512], path[128];
    path_of(path, sizeof path, &t, "/orders");
    post_head(head, sizeof head, path, t.tokens[0], "Content-Length: 1000\r\n");
    struct slow s[3];
    slow_open(&s[0], head, false);
    cr_assert_eq(raw_send(s[0].fd, "{\"round\": 0", 11), 11);
    /* A head that never ends. */
    slow_open(&s[1], "POST /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le", false);
    /* A request line that never ends. */
    slow_open(&s[2], "GET /api/v1/ga", false);
    double slowest = drive_slow(s, 3, &t, 8, 1000);
    for (int i = 0; i < 3; i++) {
        cr_expect(s[i].closed, "slow connection %d is still open after 8 s", i);
        double after = s[i].closed - s[i].opened;
        cr_expect(after >= 1.5 && after <= 4.5,
                  "slow connection %d was closed after %.2f s; the timeout is 2 s", i, after);
    }
    cr_expect_lt(slowest, 5.0, "an ordinary request took %.2f s beside stalled ones", slowest);
    still_serving("stalled bodies");
    still_playable(&t);
    stops_cleanly();
}

Test(hostile, a_trickling_body_is_cut_off_by_the_timeout_too)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 19");
    char head[512], path[128];
    path_of(path, sizeof path, &t, "/orders");
    post_head(head, sizeof head, path, t.tokens[0], "Content-Length: 60000\r\n");
    struct slow s;
    slow_open(&s, head, true);
    /* A byte every 400 ms: never idle for the 2 s timeout, but never done either. */
    double slowest = drive_slow(&s, 1, &t, 10, 400);
    cr_expect(s.closed,
              "a body trickling in a byte at a time is still open after 10 s (%zu "
              "bytes sent)",
              s.sent);
    if (s.closed)
        cr_expect_leq(s.closed - s.opened, 4.5, "the trickle was cut only after %.2f s",
                      s.closed - s.opened);
    cr_expect_lt(slowest, 5.0, "an ordinary request took %.2f s beside a trickle", slowest);
    still_serving("a trickling body");
    still_playable(&t);
    stops_cleanly();
}

Test(hostile, many_slow_connections_at_once_do_not_stop_the_service)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 20");
    char head[512], path[128];
    path_of(path, sizeof path, &t, "/orders");
    post_head(head, sizeof head, path, t.tokens[0], "Content-Length: 60000\r\n");
    enum { N = 90 };
    struct slow *s = calloc(N, sizeof *s);
    cr_assert_not_null(s);
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0)
            slow_open(&s[i], "POST /api/v1/games HTTP/1.1\r\nHost: x\r\n", false);
        else
            slow_open(&s[i], head, i % 3 == 2);
    }
    double slowest = drive_slow(s, N, &t, 10, 400);
    int still_open = 0;
    double latest = 0;
    for (int i = 0; i < N; i++) {
        still_open += !s[i].closed;
        if (s[i].closed && s[i].closed - s[i].opened > latest)
            latest = s[i].closed - s[i].opened;
        if (!s[i].closed)
            close(s[i].fd);
    }
    free(s);
    cr_expect_eq(still_open, 0, "%d of %d slow connections are still open after 10 s", still_open,
                 N);
    cr_expect_leq(latest, 5.5, "the last slow connection was cut after %.2f s", latest);
    cr_expect_lt(slowest, 5.0, "an ordinary request took %.2f s beside %d slow ones", slowest, N);
    still_serving("many slow connections");
    still_playable(&t);
    stops_cleanly();
}

/* ==== text: invalid UTF-8, NULs, control characters ======================================== */

Test(hostile, invalid_utf8_nuls_and_control_characters_are_400_problems)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 21");
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"bots\": [\"random\"]}", 201);
    char join[128];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", str(g, "id"));
    json_decref(g);
    char orders[128];
    path_of(orders, sizeof orders, &t, "/orders");
    json_t *before = settled_view(&t);
    /* Raw bytes inside a JSON string: each makes the body invalid JSON. */
    static const struct {
        const char *bytes;
        size_t len;
    } bad[] = {
        {"\xff", 1},
        {"\xfe\xff", 2},
        {"\xc3\x28", 2},
        {"\xc0\xaf", 2},
        {"\xe0\x80\xaf", 3},
        {"\xed\xa0\x80", 3},
        {"\xf4\x90\x80\x80", 4},
        {"\xe2\x82", 2},
        {"\x80", 1},
        {"A\x00"
         "B",
         3},
        {"\x01", 1},
        {"\x1f", 1},
        {"\n", 1},
        {"\t", 1},
        {"\r", 1},
    };
    char body[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        /* In a name, to join and to create. */
        size_t n = (size_t)snprintf(body, sizeof body, "{\"name\": \"Ada");
        memcpy(body + n, bad[i].bytes, bad[i].len);
        n += bad[i].len;
        n += (size_t)snprintf(body + n, sizeof body - n, "\"}");
        expect_problem_h(K_TEXT, "POST", join, NULL, NULL, body, n, 400, "malformed_json");
        n = (size_t)snprintf(body, sizeof body, "{\"seats\": 2, \"name\": \"");
        memcpy(body + n, bad[i].bytes, bad[i].len);
        n += bad[i].len;
        n += (size_t)snprintf(body + n, sizeof body - n, "\"}");
        expect_problem_h(K_TEXT, "POST", "/api/v1/games", NULL, NULL, body, n, 400,
                         "malformed_json");
        /* In an order's step and in a key. */
        n = (size_t)snprintf(body, sizeof body, "{\"round\": 0, \"step\": \"keep");
        memcpy(body + n, bad[i].bytes, bad[i].len);
        n += bad[i].len;
        n += (size_t)snprintf(body + n, sizeof body - n, "\", \"discard\": [1, 2]}");
        expect_problem_h(K_TEXT, "POST", orders, t.tokens[0], NULL, body, n, 400, "malformed_json");
        n = (size_t)snprintf(body, sizeof body, "{\"round\": 0, \"");
        memcpy(body + n, bad[i].bytes, bad[i].len);
        n += bad[i].len;
        n += (size_t)snprintf(body + n, sizeof body - n, "\": 1}");
        expect_problem_h(K_TEXT, "POST", orders, t.tokens[0], NULL, body, n, 400, "malformed_json");
    }
    /* A NUL between tokens, and a body that is only NULs. */
    static const char nul_between[] = "{\"name\": \"Ada\"}\0{\"x\": 1}";
    expect_problem_h(K_TEXT, "POST", join, NULL, NULL, nul_between, sizeof nul_between - 1, 400,
                     "malformed_json");
    static const char nuls[8] = {0};
    expect_problem_h(K_TEXT, "POST", join, NULL, NULL, nuls, sizeof nuls, 400, "malformed_json");
    /* Escapes that decode to what a name must not hold. */
    static const struct {
        const char *body;
        const char *code;
    } escaped[] = {
        {"{\"name\": \"\\u0000\"}", "malformed_json"},
        {"{\"name\": \"Ada\\u0000Eve\"}", "malformed_json"},
        {"{\"name\": \"\\ud800\"}", "malformed_json"},
        {"{\"name\": \"\\udc00x\"}", "malformed_json"},
        {"{\"name\": \"\\u0007\"}", "bad_value"},
        {"{\"name\": \"Ada\\u001bEve\"}", "bad_value"},
        {"{\"name\": \"Ada\\nEve\"}", "bad_value"},
        {"{\"name\": \"Ada\\rEve\"}", "bad_value"},
        {"{\"name\": \"Ada\\tEve\"}", "bad_value"},
        {"{\"name\": \"\\u007f\"}", "bad_value"},
        {"{\"name\": \"\\u001b[31mred\"}", "bad_value"},
        {"{\"name\": \"Ada\", \"\\u0000\": 1}", "malformed_json"},
    };
    for (size_t i = 0; i < sizeof escaped / sizeof *escaped; i++) {
        expect_problem(K_TEXT, "POST", join, NULL, escaped[i].body, 400, escaped[i].code);
        snprintf(body, sizeof body, "{\"seats\": 2, %s", escaped[i].body + 1);
        expect_problem(K_TEXT, "POST", "/api/v1/games", NULL, body, 400, escaped[i].code);
    }
    /* An unknown key long and multibyte enough that the detail must cut it. */
    char key[400];
    size_t k = (size_t)snprintf(key, sizeof key, "{\"seats\": 2, \"a");
    for (int i = 0; i < 60; i++)
        k += (size_t)snprintf(key + k, sizeof key - k, "\xc3\xa9");
    snprintf(key + k, sizeof key - k, "\": 1}");
    expect_problem(K_TEXT, "POST", "/api/v1/games", NULL, key, 400, "unknown_field");
    /* An order's step that is long and multibyte: the detail quotes part of it. */
    k = (size_t)snprintf(key, sizeof key, "{\"round\": 0, \"step\": \"k");
    for (int i = 0; i < 40; i++)
        k += (size_t)snprintf(key + k, sizeof key - k, "\xe2\x82\xac");
    snprintf(key + k, sizeof key - k, "\", \"discard\": [1, 2]}");
    expect_problem(K_TEXT, "POST", orders, t.tokens[0], key, 400, "bad_value");
    /* Invalid UTF-8 and encoded NULs in path ids and in methods. */
    static const char *const ids[] = {
        "%ff%fe",   "%c0%af", "abc%00def", "%00", "%ed%a0%80", "a%c3", "%0d%0aX-Injected:%201",
        "%1b%5b31m"};
    char path[256];
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        snprintf(path, sizeof path, "/api/v1/games/%s", ids[i]);
        expect_problem(K_TEXT, "GET", path, NULL, NULL, 404, "game_not_found");
        snprintf(path, sizeof path, "/api/v1/games/%s/join", ids[i]);
        expect_problem(K_TEXT, "POST", path, NULL, "{\"name\": \"Eve\"}", 404, "game_not_found");
    }
    /* An id whose 40-byte quotation in the detail would split a character. */
    snprintf(path, sizeof path, "/api/v1/games/%s",
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa%c3%a9");
    expect_problem(K_TEXT, "GET", path, NULL, NULL, 404, "game_not_found");
    /* A method of control and high bytes (raw: libcurl would not send it). */
    struct raw_reply r;
    static const char weird[] =
        "G\xff\x01T /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    counted(K_TEXT);
    raw_exchange(weird, sizeof weird - 1, 5000, &r);
    cr_expect(r.status >= 400 && r.status < 500, "a method of odd bytes -> %d", r.status);
    if (r.status != 400) /* a 400 there is the HTTP library's own (the request line is bad) */
        expect_raw_problem(&r, "a method of odd bytes", 405, "method_not_allowed");
    raw_free(&r);
    still_serving("invalid UTF-8");
    game_unchanged(&t, before, "invalid UTF-8");
    json_decref(before);
    still_playable(&t);
    stops_cleanly();
}

/* ==== SQL metacharacters =================================================================== */

/* Runs one SQL query on the test database; its single value. */
static long long db_count(const char *sql)
{
    PGconn *c = PQconnectdb(db);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s: %s", sql, PQresultErrorMessage(r));
    long long v = atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(c);
    return v;
}

Test(hostile, sql_in_names_ids_and_tokens_is_only_ever_text)
{
    static const char *const names[] = {
        "'; DROP TABLE games; --",       "Robert'); DROP TABLE seats;--", "' OR '1'='1",
        "\\\\'; DELETE FROM events; --", "$1::text; TRUNCATE orders",     "%_%",
        "\\\"; SELECT pg_sleep(10); --", "1; COPY games TO '/tmp/x'",     "E'\\\\x00'",
        "); NOTIFY city, 'x'; --",
    };
    enum { NNAMES = sizeof names / sizeof *names };
    struct table first, last, cur; /* the first and the last game made */
    char body[512], path[512];
    for (int i = 0; i < NNAMES; i++) {
        /* Create with the name (seat 0), join with it and " 2" (seat 1: two players at a table
         * may not share a name); the bot takes seat 2. */
        snprintf(body, sizeof body,
                 "{\"seats\": 3, \"bots\": [\"greedy\"], \"name\": \"%s\", \"seed\": %d}", names[i],
                 30 + i);
        counted(K_SQL);
        json_t *g = call("POST", "/api/v1/games", NULL, body, 201);
        struct table *t = &cur;
        memset(t, 0, sizeof *t);
        snprintf(t->id, sizeof t->id, "%s", str(g, "id"));
        snprintf(t->host, sizeof t->host, "%s", str(g, "host_token"));
        snprintf(t->tokens[0], sizeof t->tokens[0], "%s", str(g, "token"));
        json_decref(g);
        t->seats = 3;
        t->humans = 2;
        path_of(path, sizeof path, t, "/join");
        snprintf(body, sizeof body, "{\"name\": \"%s 2\"}", names[i]);
        counted(K_SQL);
        json_t *j = call("POST", path, NULL, body, 201);
        snprintf(t->tokens[1], sizeof t->tokens[1], "%s", str(j, "token"));
        json_decref(j);
        /* The names come back exactly as sent. */
        json_t *v = view(t);
        json_t *want = json_loads(body, 0, NULL);
        char first_name[256];
        snprintf(first_name, sizeof first_name, "%s", str(want, "name"));
        first_name[strlen(first_name) - 2] = 0; /* less " 2" */
        cr_expect_str_eq(str(json_array_get(json_object_get(v, "seats"), 0), "name"), first_name);
        cr_expect_str_eq(str(json_array_get(json_object_get(v, "seats"), 1), "name"),
                         str(want, "name"));
        json_decref(want);
        cr_expect_str_eq(str(v, "status"), "playing");
        json_decref(v);
        if (i == 0)
            first = cur;
        last = cur;
    }
    long long ngames = db_count("SELECT count(*) FROM games");
    cr_expect_eq(ngames, NNAMES);
    /* SQL and very long strings as ids. */
    static const char *const ids[] = {
        "'%3B%20DROP%20TABLE%20games%3B%20--",
        "'%20OR%20'1'%3D'1",
        "1%20OR%201%3D1",
        "%25",
        "_",
        "*",
        "%2e%2e",
        "%22%3B%20DELETE%20FROM%20seats%3B%20--",
    };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const char *tails[] = {"", "/hand", "/events", "/replay"};
        for (int k = 0; k < 4; k++) {
            snprintf(path, sizeof path, "/api/v1/games/%s%s", ids[i], tails[k]);
            expect_problem(K_SQL, "GET", path, k == 1 ? first.tokens[0] : NULL, NULL, 404,
                           "game_not_found");
        }
        snprintf(path, sizeof path, "/api/v1/games/%s/orders", ids[i]);
        expect_problem(K_SQL, "POST", path, first.tokens[0],
                       "{\"round\": 0, \"step\": \"keep\", \"discard\": [1, 2]}", 404,
                       "game_not_found");
        snprintf(path, sizeof path, "/api/v1/games/%s/resolve", ids[i]);
        expect_problem(K_SQL, "POST", path, first.host, NULL, 404, "game_not_found");
    }
    /* The longest id the route table takes (63 bytes), then 64, then 2,000 (within the URL
     * limit of 2 KiB, so the route table sees it). */
    char *longid = xmalloc(10001);
    memset(longid, 'a', 10000);
    longid[10000] = 0;
    char *lpath = xmalloc(10100);
    snprintf(lpath, 10100, "/api/v1/games/%.63s", longid);
    expect_problem(K_SQL, "GET", lpath, NULL, NULL, 404, "game_not_found");
    snprintf(lpath, 10100, "/api/v1/games/%.64s", longid);
    expect_problem(K_SQL, "GET", lpath, NULL, NULL, 404, NULL);
    snprintf(lpath, 10100, "/api/v1/games/%.2000s", longid);
    expect_problem(K_SQL, "GET", lpath, NULL, NULL, 404, NULL);
    snprintf(lpath, 10100, "/api/v1/games/%.2000s/join", longid);
    expect_problem(K_SQL, "POST", lpath, NULL, "{\"name\": \"Eve\"}", 404, NULL);
    /* A 10,000-character name. */
    char *longname = xmalloc(10100);
    snprintf(longname, 10100, "{\"name\": \"%s\"}", longid);
    path_of(path, sizeof path, &first, "/join");
    expect_problem(K_SQL, "POST", path, NULL, longname, 400, "bad_value");
    snprintf(longname, 10100, "{\"seats\": 2, \"name\": \"%s\"}", longid);
    expect_problem(K_SQL, "POST", "/api/v1/games", NULL, longname, 400, "bad_value");
    free(longname);
    free(longid);
    free(lpath);
    /* SQL in a token and in a seed. */
    path_of(path, sizeof path, &first, "/hand");
    expect_problem(K_SQL, "GET", path, "' OR '1'='1", NULL, 401, "bad_token");
    expect_problem(K_SQL, "GET", path, "x'; DROP TABLE seats; --", NULL, 401, "bad_token");
    expect_problem(K_SQL, "POST", "/api/v1/games", NULL,
                   "{\"seats\": 2, \"seed\": \"1; DROP TABLE games\"}", 400, "bad_value");
    still_serving("SQL metacharacters");
    /* Every table is there and holds what it should. */
    cr_expect_eq(db_count("SELECT count(*) FROM games"), ngames);
    cr_expect_eq(db_count("SELECT count(*) FROM seats WHERE name IS NOT NULL"), 3 * NNAMES);
    cr_expect_gt(db_count("SELECT count(*) FROM events"), 0);
    cr_expect_geq(db_count("SELECT count(*) FROM orders"), 0);
    cr_expect_geq(db_count("SELECT count(*) FROM decisions"), 0);
    cr_expect_eq(db_count("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND "
                          "tablename IN ('games', 'seats', 'decision_batches', 'orders', "
                          "'event_batches')"),
                 5);
    cr_expect_eq(db_count("SELECT count(*) FROM pg_views WHERE schemaname = 'public' AND "
                          "viewname IN ('decisions', 'events')"),
                 2);
    /* And the games play on. */
    still_playable(&first);
    still_playable(&last);
    stops_cleanly();
}

/* ==== path traversal ======================================================================= */

/* True when text holds a line of /etc/passwd (or any "root:x:0:0" line). */
static bool shows_passwd(const char *text, const char *passwd_line)
{
    return strstr(text, "root:x:0:0") || (passwd_line[0] && strstr(text, passwd_line));
}

Test(hostile, path_traversal_never_leaves_the_web_directory)
{
    char passwd_line[256] = "";
    FILE *pf = fopen("/etc/passwd", "r");
    if (pf) {
        if (fgets(passwd_line, sizeof passwd_line, pf))
            passwd_line[strcspn(passwd_line, "\n")] = 0;
        fclose(pf);
    }
    /* Files of the project outside web/ that must not be served either. */
    static const char *const outside[] = {"CC      ?= cc", "\"catalog\"", "CREATE TABLE games"};
    static const char *const targets[] = {
        "/../etc/passwd",
        "/../../../../../../../../etc/passwd",
        "/..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/%2E%2E/%2E%2E/%2E%2E/etc/passwd",
        "/.%2e/.%2e/.%2e/.%2e/etc/passwd",
        "/%252e%252e/%252e%252e/etc/passwd",
        "/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
        "/%c0%af..%c0%af..%c0%afetc/passwd",
        "//etc/passwd",
        "///etc/passwd",
        "/%2fetc%2fpasswd",
        "/web/../../etc/passwd",
        "/./../etc/passwd",
        "/fonts/../../etc/passwd",
        "/index.html/../../etc/passwd",
        "/..;/etc/passwd",
        "/..\\..\\..\\..\\etc\\passwd",
        "/%5c..%5c..%5c..%5cetc%5cpasswd",
        "/..%5c..%5c..%5cetc/passwd",
        "/../etc/passwd%00",
        "/../etc/passwd%00.html",
        "/%00/../../etc/passwd",
        "/index.html%00",
        "/index.html%00.png",
        "/app.js%00../../etc/passwd",
        "/%00",
        "/..",
        "/../",
        "/.",
        "/%2e",
        "/%2e%2e",
        "/../Makefile",
        "/../cards/cards.json",
        "/../migrations/0001_init.sql",
        "/%2e%2e/Makefile",
        "/proc/self/environ",
        "/../../../../../../proc/self/environ",
        "/dev/zero",
        "/../../../../../../dev/zero",
        "/fonts",
        "/fonts/",
        "/openapi.yaml/../../etc/passwd",
        "/api/../../etc/passwd",
        "/api/v1/../../../etc/passwd",
        "/healthz/../../etc/passwd",
    };
    char req[20000];
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        const char *methods[] = {"GET", "HEAD"};
        for (int m = 0; m < 2; m++) {
            snprintf(req, sizeof req,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", methods[m],
                     targets[i]);
            struct raw_reply r;
            counted(K_PATHS);
            raw_exchange(req, strlen(req), 5000, &r);
            char what[160];
            snprintf(what, sizeof what, "%s %s", methods[m], targets[i]);
            cr_expect(!shows_passwd(r.data, passwd_line), "%s served /etc/passwd", what);
            for (size_t o = 0; o < sizeof outside / sizeof *outside; o++)
                cr_expect(strstr(r.body, outside[o]) == NULL,
                          "%s served a file outside web/: %.200s", what, r.body);
            if (m == 0)
                expect_raw_problem(&r, what, 404, NULL);
            else
                cr_expect_eq(r.status, 404, "%s -> %d", what, r.status);
            raw_free(&r);
        }
    }
    /* Request lines the HTTP library itself refuses: a 4xx, whatever its body. */
    static const char *const lines[] = {
        "GET ../etc/passwd HTTP/1.1",        "GET ..%2f..%2fetc%2fpasswd HTTP/1.1",
        "GET \\..\\etc\\passwd HTTP/1.1",    "GET http://127.0.0.1/../../etc/passwd HTTP/1.1",
        "GET /../etc/passwd HTTP/1.1 extra", "GET /../etc/passwd",
        "GET  /../etc/passwd HTTP/1.1",      "GET /../etc/passwd HTTP/9.9",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        snprintf(req, sizeof req, "%s\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", lines[i]);
        struct raw_reply r;
        counted(K_PATHS);
        raw_exchange(req, strlen(req), 5000, &r);
        cr_expect(!shows_passwd(r.data, passwd_line), "%s served /etc/passwd", lines[i]);
        cr_expect(r.status == 0 || (r.status >= 400 && r.status < 500) || r.status == 505,
                  "%s -> %d", lines[i], r.status);
        raw_free(&r);
    }
    /* Long paths: 2,000 bytes (within the URL limit) reach the route table; beyond the
     * daemon's header memory the HTTP library answers 414 itself. */
    size_t n = (size_t)snprintf(req, sizeof req, "GET ");
    while (n < 4 + 1980)
        n += (size_t)snprintf(req + n, sizeof req - n, "/..");
    n += (size_t)snprintf(req + n, sizeof req - n,
                          "/etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    struct raw_reply r;
    counted(K_PATHS);
    raw_exchange(req, n, 5000, &r);
    cr_expect(!shows_passwd(r.data, passwd_line));
    expect_raw_problem(&r, "a 2,000-byte path of ..", 404, "not_found");
    raw_free(&r);
    char *huge = xmalloc(200000);
    n = (size_t)snprintf(huge, 200000, "GET /");
    memset(huge + n, 'a', 150000);
    n += 150000;
    n +=
        (size_t)snprintf(huge + n, 200000 - n, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    counted(K_PATHS);
    raw_exchange(huge, n, 5000, &r);
    cr_expect(r.status >= 400 && r.status < 500, "a 150,000-byte path -> %d", r.status);
    raw_free(&r);
    free(huge);
    still_serving("path traversal");
    /* The page itself is still served. */
    cr_expect_lt(timed_get("/"), 5.0);
    cr_expect_lt(timed_get("/app.js"), 5.0);
    stops_cleanly();
}

Test(hostile, a_link_inside_the_web_directory_does_not_lead_out_of_it)
{
    /* A second daemon on a web directory holding links to /etc/passwd and to /etc. */
    char dir[] = "/tmp/city-hostile-web-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char p[256], extra[512];
    snprintf(p, sizeof p, "%s/index.html", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs("<!doctype html><title>ok</title>\n", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/passwd.txt", dir);
    cr_assert_eq(symlink("/etc/passwd", p), 0, "symlink: %s", strerror(errno));
    snprintf(p, sizeof p, "%s/etc", dir);
    cr_assert_eq(symlink("/etc", p), 0, "symlink: %s", strerror(errno));
    struct daemon d2;
    snprintf(extra, sizeof extra, "--timeout 2 --web %s", dir);
    daemon_start(&d2, db, extra);
    const char *paths[] = {"/passwd.txt", "/etc/passwd", "/etc/hostname", "/etc/"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        char url[256];
        snprintf(url, sizeof url, "%s%s", d2.base, paths[i]);
        struct http_reply r;
        counted(K_PATHS);
        cr_assert(http_do("GET", url, NULL, NULL, &r));
        check_problem(paths[i], r.status, r.content_type, r.json, r.body, 404, "not_found");
        cr_expect(strstr(r.body, "root:") == NULL, "%s served /etc/passwd", paths[i]);
        http_reply_free(&r);
    }
    char url[256];
    snprintf(url, sizeof url, "%s/", d2.base);
    struct http_reply r;
    cr_assert(http_do("GET", url, NULL, NULL, &r));
    cr_expect_eq(r.status, 200, "the page in the directory itself is served");
    http_reply_free(&r);
    cr_expect_eq(daemon_stop(&d2), 0, "the second daemon did not stop cleanly");
    snprintf(p, sizeof p, "%s/passwd.txt", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/etc", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/index.html", dir);
    unlink(p);
    rmdir(dir);
    still_serving("links out of the web directory");
    stops_cleanly();
}

/* ==== tokens =============================================================================== */

Test(hostile, tokens_of_other_games_hosts_and_garbage_are_refused)
{
    struct table t, other;
    create(&t, 3, 1, ", \"seed\": 22");
    create(&other, 2, 1, ", \"seed\": 23");
    char hand_p[128], orders_p[128], resolve_p[128];
    path_of(hand_p, sizeof hand_p, &t, "/hand");
    path_of(orders_p, sizeof orders_p, &t, "/orders");
    path_of(resolve_p, sizeof resolve_p, &t, "/resolve");
    long long id[2];
    cr_assert_eq(hand_ids(&t, 0, id, 2), 2);
    /* After seat 0's own hand view, which shows it "online": no bad token below may change
     * the view, its seats' presence included. */
    json_t *before = settled_view(&t);
    char order[200];
    snprintf(order, sizeof order, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}",
             id[0], id[1]);
    /* Another game's seat token: 403 wrong_game everywhere. */
    expect_problem(K_TOKENS, "GET", hand_p, other.tokens[0], NULL, 403, "wrong_game");
    expect_problem(K_TOKENS, "POST", orders_p, other.tokens[0], order, 403, "wrong_game");
    expect_problem(K_TOKENS, "POST", resolve_p, other.tokens[0], NULL, 403, "wrong_game");
    /* This game's host token where a seat token is needed. */
    expect_problem(K_TOKENS, "GET", hand_p, t.host, NULL, 403, "not_a_seat_token");
    expect_problem(K_TOKENS, "POST", orders_p, t.host, order, 403, "not_a_seat_token");
    /* Another game's host token: 403 wrong_game everywhere, as another game's seat token. */
    const char *force = "{\"round\": 0, \"step\": \"keep\"}";
    expect_problem(K_TOKENS, "GET", hand_p, other.host, NULL, 403, "wrong_game");
    expect_problem(K_TOKENS, "POST", orders_p, other.host, order, 403, "wrong_game");
    expect_problem(K_TOKENS, "POST", resolve_p, other.host, force, 403, "wrong_game");
    expect_problem(K_TOKENS, "POST", resolve_p, other.host, NULL, 403, "wrong_game");
    /* Seat tokens may not force a step without a time limit. */
    expect_problem(K_TOKENS, "POST", resolve_p, t.tokens[0], force, 409, "not_overdue");
    /* Garbage bearer tokens. */
    /* 6,000 characters (within the 8 KiB of headers): sent as a header line of its own (the
     * harness caps bearer lines). */
    char *longtok = xmalloc(6100);
    int lk = snprintf(longtok, 6100, "Authorization: Bearer ");
    memset(longtok + lk, 'f', 6000);
    longtok[lk + 6000] = 0;
    const char *long_h[] = {longtok, NULL};
    expect_problem_h(K_TOKENS, "GET", hand_p, NULL, long_h, NULL, 0, 401, "bad_token");
    expect_problem_h(K_TOKENS, "POST", orders_p, NULL, long_h, order, strlen(order), 401,
                     "bad_token");
    expect_problem_h(K_TOKENS, "POST", resolve_p, NULL, long_h, NULL, 0, 401, "bad_token");
    free(longtok);
    char flipped[80];
    snprintf(flipped, sizeof flipped, "%s", t.tokens[0]);
    flipped[0] = flipped[0] == '0' ? '1' : '0';
    char upper[80];
    snprintf(upper, sizeof upper, "%s", t.tokens[0]);
    for (char *c = upper; *c; c++)
        if (*c >= 'a' && *c <= 'f')
            *c = (char)(*c - 'a' + 'A');
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%.63s", t.tokens[0]);
    char longer[90];
    snprintf(longer, sizeof longer, "%s0", t.tokens[0]);
    const char *garbage[] = {"x",   "00112233", flipped, upper,         prefix,     longer,  "null",
                             "%00", "\"\"",     "{}",    "' OR 1=1 --", "\xff\xfe", "Bearer"};
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
        expect_problem(K_TOKENS, "GET", hand_p, garbage[i], NULL, 401, "bad_token");
        expect_problem(K_TOKENS, "POST", orders_p, garbage[i], order, 401, "bad_token");
        expect_problem(K_TOKENS, "POST", resolve_p, garbage[i], NULL, 401, "bad_token");
    }
    /* Authorization headers that carry no bearer token at all. */
    char basic[200], lower[200], spaced[200];
    snprintf(basic, sizeof basic, "Authorization: Basic %s", t.tokens[0]);
    snprintf(lower, sizeof lower, "Authorization: Token %s", t.tokens[0]);
    snprintf(spaced, sizeof spaced, "Authorization: Bearer");
    const char *headers[] = {basic, lower, spaced, "Authorization:", "Authorization: Bearer    "};
    for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
        const char *h[] = {headers[i], NULL};
        expect_problem_h(K_TOKENS, "GET", hand_p, NULL, h, NULL, 0, 401, "token_required");
        expect_problem_h(K_TOKENS, "POST", orders_p, NULL, h, order, strlen(order), 401,
                         "token_required");
    }
    /* A token with spaces or a second token after it is not the seat's token. */
    char two[200];
    snprintf(two, sizeof two, "%s %s", t.tokens[0], t.tokens[0]);
    expect_problem(K_TOKENS, "GET", hand_p, two, NULL, 401, "bad_token");
    still_serving("bad tokens");
    game_unchanged(&t, before, "bad tokens");
    json_decref(before);
    /* The right tokens still work: the game plays to its end. */
    still_playable(&t);
    still_playable(&other);
    stops_cleanly();
}

/* ==== replays of old orders ================================================================ */

Test(hostile, replayed_orders_are_stale_and_change_nothing)
{
    struct table t;
    create(&t, 3, 1, ", \"seed\": 24"); /* two people: a step resolves on the second order */
    char path[128];
    path_of(path, sizeof path, &t, "/orders");
    enum { MAXO = 400 };
    char **accepted = calloc(MAXO, sizeof *accepted);
    int *seat_of = calloc(MAXO, sizeof *seat_of);
    cr_assert(accepted && seat_of);
    int n = 0, resolutions = 0;
    for (int step = 0; step < 200; step++) {
        json_t *v = view(&t);
        bool over = strcmp(str(v, "status"), "finished") == 0;
        json_decref(v);
        if (over)
            break;
        for (int s = 0; s < t.humans; s++) {
            json_t *h = hand(&t, s);
            char *order = choose_order(h);
            json_decref(h);
            if (!order)
                continue;
            char url[512];
            snprintf(url, sizeof url, "%s%s", d.base, path);
            struct http_reply r;
            cr_assert(http_do("POST", url, t.tokens[s], order, &r));
            cr_assert(r.status == 202 || r.status == 409, "%s -> %ld %s", order, r.status, r.body);
            bool resolved = r.status == 202 && json_is_true(json_object_get(r.json, "resolved"));
            long status = r.status;
            http_reply_free(&r);
            if (status == 202 && n < MAXO) {
                seat_of[n] = s;
                accepted[n++] = order;
            } else {
                free(order);
            }
            if (!resolved)
                continue;
            /* The step resolved: every order accepted so far is now stale. Replay the latest
             * few (and, every fourth step, all of them). */
            json_t *before = settled_view(&t);
            if (strcmp(str(before, "status"), "finished") == 0) {
                json_decref(before); /* replays after the end are checked below */
                break;
            }
            long long last = num(before, "last_seq");
            int from = resolutions++ % 4 == 0 ? 0 : (n > 4 ? n - 4 : 0);
            for (int i = from; i < n; i++)
                expect_problem(K_REPLAYS, "POST", path, t.tokens[seat_of[i]], accepted[i], 409,
                               "stale_step");
            cr_expect_eq(last_seq(&t), last, "a replayed order moved the log");
            game_unchanged(&t, before, "replayed orders");
            json_decref(before);
            break;
        }
    }
    json_t *v = view(&t);
    cr_assert_str_eq(str(v, "status"), "finished");
    json_decref(v);
    /* After the end: every order ever accepted is refused as game_over. */
    long long last = last_seq(&t);
    for (int i = 0; i < n; i++)
        expect_problem(K_REPLAYS, "POST", path, t.tokens[seat_of[i]], accepted[i], 409,
                       "game_over");
    cr_expect_eq(last_seq(&t), last, "an order after the end moved the log");
    for (int i = 0; i < n; i++)
        free(accepted[i]);
    free(accepted);
    free(seat_of);
    check_log(&t);
    still_serving("replayed orders");
    stops_cleanly();
}

/* ---- a lobby filled from a few addresses -------------------------------------------------- */

/* `method path` with an optional body from source address `from`; the status, and the reply's
 * JSON in *json (to be freed; NULL when none). */
static long lobby_call(const char *from, const char *method, const char *path, const char *body,
                       json_t **json)
{
    struct suite_answer a;
    suite_send_from(d.base, from, method, path, NULL, body, &a);
    counted(K_ALL);
    *json = a.json;
    return a.status;
}

/* The position of game `id` in a lobby page's games, or -1. */
static int lobby_index(json_t *page, const char *id)
{
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(page, "games"), i, g)
    {
        if (strcmp(str(g, "id"), id) == 0)
            return (int)i;
    }
    return -1;
}

Test(hostile, a_lobby_filled_from_six_addresses_still_lists_an_earlier_players_open_game)
{
    json_t *j;
    cr_assert_eq(lobby_call("127.0.0.9", "POST", "/api/v1/games",
                            "{\"seats\": 3, \"name\": "
                            "\"Real\"}",
                            &j),
                 201);
    char real[64], spam_first[64] = "";
    snprintf(real, sizeof real, "%s", str(j, "id"));
    json_decref(j);
    /* 6 addresses x 20 open games, each within the creation burst of its address. */
    for (int a = 0; a < 6; a++) {
        char from[32];
        snprintf(from, sizeof from, "127.0.0.%d", 11 + a);
        for (int k = 0; k < 20; k++) {
            cr_assert_eq(
                lobby_call(from, "POST", "/api/v1/games", "{\"seats\": 4, \"name\": \"Spam\"}", &j),
                201, "create %d of %s", k, from);
            if (!spam_first[0])
                snprintf(spam_first, sizeof spam_first, "%s", str(j, "id"));
            json_decref(j);
        }
    }
    /* The lobby's first page, as another address asks it: the real game is there, and only the
     * newest 5 open games of each flooding address. */
    json_t *page;
    cr_assert_eq(lobby_call("127.0.0.20", "GET", "/api/v1/games", NULL, &page), 200);
    cr_assert_geq(lobby_index(page, real), 0, "the earlier player's open game is listed");
    int spam = 0;
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(page, "games"), i, g)
    {
        spam +=
            strcmp(json_string_value(json_array_get(json_object_get(g, "names"), 0)), "Spam") == 0;
    }
    cr_assert_eq(spam, 30, "5 open games listed per flooding address, %d listed", spam);
    cr_assert(json_is_null(json_object_get(page, "next")), "one page holds them all");
    /* Paged 7 at a time, the same games in the same order, each once. */
    json_t *all = json_object_get(page, "games");
    size_t seen = 0;
    char path[256] = "/api/v1/games?limit=7";
    for (int pages = 0; pages < 50; pages++) {
        json_t *p;
        cr_assert_eq(lobby_call("127.0.0.20", "GET", path, NULL, &p), 200, "%s", path);
        json_t *games = json_object_get(p, "games");
        cr_assert_leq(json_array_size(games), 7);
        json_array_foreach(games, i, g)
        {
            cr_assert_lt(seen, json_array_size(all));
            cr_assert_str_eq(str(g, "id"), str(json_array_get(all, seen), "id"),
                             "game %zu of the pages", seen);
            seen++;
        }
        json_t *next = json_object_get(p, "next");
        bool more = json_is_string(next);
        if (more)
            snprintf(path, sizeof path, "/api/v1/games?limit=7&after=%s", json_string_value(next));
        json_decref(p);
        if (!more)
            break;
    }
    cr_assert_eq(seen, json_array_size(all), "the pages hold every listed game");
    json_decref(page);
    /* Filters: by seats and by game. */
    cr_assert_eq(lobby_call("127.0.0.20", "GET", "/api/v1/games?seats=3", NULL, &page), 200);
    cr_assert_eq(json_array_size(json_object_get(page, "games")), 1);
    cr_assert_eq(lobby_index(page, real), 0);
    json_decref(page);
    cr_assert_eq(lobby_call("127.0.0.20", "GET", "/api/v1/games?game=tech_city", NULL, &page), 200);
    cr_assert_eq(json_array_size(json_object_get(page, "games")), 0);
    json_decref(page);
    static const char *const bad[] = {"limit=0",
                                      "limit=101",
                                      "limit=x",
                                      "seats=0",
                                      "seats=9",
                                      "game=nope",
                                      "after=x",
                                      "after=0-20261331000000000000-ab",
                                      "after=2-20260101000000000000-ab",
                                      "after=0-20260101000000000000-AB"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        snprintf(path, sizeof path, "/api/v1/games?%s", bad[k]);
        cr_assert_eq(lobby_call("127.0.0.20", "GET", path, NULL, &page), 400, "%s", path);
        cr_assert_str_eq(str(page, "code"), "bad_query", "%s", path);
        json_decref(page);
    }
    /* An open game the lobby leaves out still exists and is joined by its id. */
    snprintf(path, sizeof path, "/api/v1/games/%s/join", spam_first);
    cr_assert_eq(lobby_call("127.0.0.21", "POST", path, "{\"name\": \"Late\"}", &j), 201);
    json_decref(j);
    still_serving("a filled lobby");
    stops_cleanly();
}
