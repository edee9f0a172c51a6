/* test_browser.c: the reliability suite's browser and client hardening, against a real daemon:
 * the security headers on every reply (Content-Security-Policy, X-Frame-Options,
 * Referrer-Policy, nosniff), CORS on /api/v1 (any origin by default, a configured list echoed
 * with Vary: Origin), preflight OPTIONS 204, 415 for POST bodies that are not application/json,
 * static files with their MIME types, ETag/Last-Modified and 304, gzip that decompresses to the
 * file, an access log that escapes control characters, the tolerant bearer parser, 414/431
 * problems for oversized request heads, and the order's token checked before its body.
 *
 * Each test appends "browser_checks N" and finer keys to $CITY_COUNTS (summed by
 * scripts/reliability-summary.sh). */
#include "suite.h"

#include <zlib.h>

static struct daemon d;
static char db[512];

/* ---- counting ----------------------------------------------------------------------------- */

enum kind { K_ALL, K_HEADERS, K_CORS, K_MEDIA, K_STATIC, K_LOG, K_BEARER, K_HEAD, K_AUTH, K_COUNT };
static const char *const count_keys[K_COUNT] = {
    "browser_checks",       "browser_security_headers", "browser_cors",
    "browser_media_type",   "browser_static_files",     "browser_log_escapes",
    "browser_bearer_forms", "browser_oversized_heads",  "browser_auth_before_body"};
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
    signal(SIGPIPE, SIG_IGN);
    db_create(db, sizeof db);
    daemon_start(&d, db, "--allow-seed");
    client_base = d.base;
}

static void down(void)
{
    counts_append();
    daemon_stop(&d);
}

TestSuite(browser, .init = up, .fini = down, .timeout = 80);

static void stops_cleanly(void)
{
    suite_stops_cleanly(&d);
}

/* ---- requests ----------------------------------------------------------------------------- */

/* Sends method path with extra header lines and an optional body (JSON unless ctype says). */
static void ask(const char *method, const char *path, const char *token, const char *const *headers,
                const char *ctype, const char *body, struct http_reply *r)
{
    static char url[65536]; /* the tests run one at a time (--jobs=1 or a process each) */
    snprintf(url, sizeof url, "%s%s", d.base, path);
    struct http_request rq = {.method = method,
                              .url = url,
                              .bearer = token,
                              .content_type = ctype,
                              .body = body,
                              .len = body ? strlen(body) : 0,
                              .headers = headers,
                              .timeout_ms = 15000};
    cr_assert(http_request(&rq, r), "%s %.80s: no answer (%s)", method, path, r->error);
}

/* The header's value, or "" when absent (a static buffer per call site is not needed: one
 * rotating set of four). */
static const char *hdr(const struct http_reply *r, const char *name)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ % 4];
    if (!http_header(r, name, b, sizeof bufs[0]))
        b[0] = 0;
    return b;
}

/* A problem reply with `status` and `code`, as application/problem+json. */
static void expect_problem(const struct http_reply *r, const char *what, long status,
                           const char *code)
{
    cr_expect_eq(r->status, status, "%s -> %ld, wanted %ld: %.300s", what, r->status, status,
                 r->body);
    cr_expect_str_eq(r->content_type, "application/problem+json", "%s: %s", what, r->content_type);
    const char *c = r->json ? json_string_value(json_object_get(r->json, "code")) : NULL;
    cr_expect(c && strcmp(c, code) == 0, "%s: code %s, wanted %s: %.300s", what, c, code, r->body);
}

/* Sends raw bytes on a new connection and reads what comes back until the daemon closes it. */
static void raw_request(const char *req, char *out, size_t n)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d.port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    size_t len = strlen(req);
    cr_assert_eq(write(fd, req, len), (ssize_t)len);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    size_t k = 0;
    ssize_t got;
    while (k + 1 < n && (got = read(fd, out + k, n - 1 - k)) > 0)
        k += (size_t)got;
    out[k] = 0;
    close(fd);
}

static long games_listed(void)
{
    json_t *l = call("GET", "/api/v1/games", NULL, NULL, 200);
    json_t *games = json_is_array(l) ? l : json_object_get(l, "games");
    long n = (long)json_array_size(games);
    json_decref(l);
    return n;
}

/* The contents of a file of the project's web/ directory. */
static char *web_file(const char *name, size_t *len)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/web/%s", harness_env("CITY_ROOT", "."), name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* ---- security headers --------------------------------------------------------------------- */

Test(browser, every_reply_carries_the_security_headers)
{
    struct table t;
    create(&t, 2, 1, NULL);
    char hand[160], view[160];
    snprintf(hand, sizeof hand, "/api/v1/games/%s/hand", t.id);
    snprintf(view, sizeof view, "/api/v1/games/%s", t.id);
    const struct {
        const char *method, *path, *token;
        long status;
    } cases[] = {{"GET", "/", NULL, 200},
                 {"GET", "/app.js", NULL, 200},
                 {"HEAD", "/style.css", NULL, 200},
                 {"GET", "/openapi.yaml", NULL, 200},
                 {"GET", "/healthz", NULL, 200},
                 {"GET", "/metrics", NULL, 200},
                 {"GET", "/api/v1/games", NULL, 200},
                 /* a game's view: read from the database, then from the view cache with the
                  * reply prepared the first time (queued again as it is), then as HEAD */
                 {"GET", view, NULL, 200},
                 {"GET", view, NULL, 200},
                 {"GET", view, NULL, 200},
                 {"HEAD", view, NULL, 200},
                 {"GET", hand, t.tokens[0], 200},
                 {"GET", hand, NULL, 401},
                 {"GET", "/nothing-here", NULL, 404},
                 {"DELETE", "/api/v1/games", NULL, 405},
                 {"OPTIONS", "/api/v1/games", NULL, 204}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct http_reply r;
        counted(K_HEADERS);
        ask(cases[i].method, cases[i].path, cases[i].token, NULL, NULL, NULL, &r);
        cr_expect_eq(r.status, cases[i].status, "%s %s -> %ld", cases[i].method, cases[i].path,
                     r.status);
        const char *csp = hdr(&r, "Content-Security-Policy");
        if (strncmp(cases[i].path, "/api/v1/", 8) == 0) {
            /* JSON loads nothing and is framed by nothing: the strictest policy, and a short
             * one (the API's replies are most of the traffic). */
            cr_expect_str_eq(csp, "default-src 'none'; frame-ancestors 'none'", "%s %s",
                             cases[i].method, cases[i].path);
        } else {
            static const char *const parts[] = {
                "default-src 'self'",     "script-src 'self'",  "style-src 'self'",
                "img-src 'self' data:",   "connect-src 'self'", "font-src 'self'",
                "frame-ancestors 'none'", "base-uri 'none'",    "form-action 'self'"};
            for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
                cr_expect(strstr(csp, parts[k]), "%s %s: CSP lacks %s: %s", cases[i].method,
                          cases[i].path, parts[k], csp);
        }
        cr_expect(!strstr(csp, "unsafe"), "the CSP allows nothing unsafe: %s", csp);
        cr_expect_str_eq(hdr(&r, "X-Frame-Options"), "DENY", "%s", cases[i].path);
        cr_expect_str_eq(hdr(&r, "Referrer-Policy"), "no-referrer", "%s", cases[i].path);
        cr_expect_str_eq(hdr(&r, "X-Content-Type-Options"), "nosniff", "%s", cases[i].path);
        http_reply_free(&r);
    }
    stops_cleanly();
}

/* ---- CORS --------------------------------------------------------------------------------- */

Test(browser, any_origin_may_call_the_api_and_read_its_headers)
{
    static const char *const from[] = {"Origin: http://elsewhere.test:9999", NULL};
    struct http_reply r;
    counted(K_CORS);
    ask("GET", "/api/v1/games", NULL, from, NULL, NULL, &r);
    cr_expect_eq(r.status, 200);
    cr_expect_str_eq(hdr(&r, "Access-Control-Allow-Origin"), "*");
    const char *expose = hdr(&r, "Access-Control-Expose-Headers");
    cr_expect(strstr(expose, "Retry-After") && strstr(expose, "Location") && strstr(expose, "ETag"),
              "exposed: %s", expose);
    http_reply_free(&r);

    /* A problem too: a cross-origin page must be able to read the 404's sentence. */
    counted(K_CORS);
    ask("GET", "/api/v1/games/nosuchgame", NULL, from, NULL, NULL, &r);
    cr_expect_eq(r.status, 404);
    cr_expect_str_eq(hdr(&r, "Access-Control-Allow-Origin"), "*");
    http_reply_free(&r);

    /* The page and its files are for the same origin only. */
    counted(K_CORS);
    ask("GET", "/app.js", NULL, from, NULL, NULL, &r);
    cr_expect_eq(r.status, 200);
    cr_expect_str_eq(hdr(&r, "Access-Control-Allow-Origin"), "", "static files have no CORS");
    http_reply_free(&r);
    stops_cleanly();
}

Test(browser, a_preflight_of_any_api_path_gets_204_with_what_it_may_send)
{
    static const char *const pre[] = {
        "Origin: http://elsewhere.test", "Access-Control-Request-Method: POST",
        "Access-Control-Request-Headers: authorization,content-type", NULL};
    const struct {
        const char *path, *allow;
    } cases[] = {{"/api/v1/games", "GET, HEAD, POST, OPTIONS"},
                 {"/api/v1/games/abc/orders", "POST, OPTIONS"},
                 {"/api/v1/games/abc/hand", "GET, HEAD, OPTIONS"},
                 {"/api/v1/games/abc/join", "POST, OPTIONS"},
                 {"/api/v1/no/such/path", "GET, HEAD, POST, OPTIONS"},
                 {"/api/v1/me", "GET, HEAD, DELETE, OPTIONS"},
                 {"/api/v1/me/password", "PUT, OPTIONS"},
                 {"/api/v1/sessions", "POST, DELETE, OPTIONS"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct http_reply r;
        counted(K_CORS);
        ask("OPTIONS", cases[i].path, NULL, pre, NULL, NULL, &r);
        cr_expect_eq(r.status, 204, "OPTIONS %s -> %ld: %s", cases[i].path, r.status, r.body);
        cr_expect_eq(r.len, 0, "a 204 has no body");
        cr_expect_str_eq(hdr(&r, "Allow"), cases[i].allow, "%s", cases[i].path);
        cr_expect_str_eq(hdr(&r, "Access-Control-Allow-Origin"), "*", "%s", cases[i].path);
        cr_expect_str_eq(hdr(&r, "Access-Control-Allow-Methods"), cases[i].allow, "%s",
                         cases[i].path);
        const char *ah = hdr(&r, "Access-Control-Allow-Headers");
        cr_expect(strstr(ah, "Authorization") && strstr(ah, "Content-Type") &&
                      strstr(ah, "Last-Event-ID"),
                  "%s: allowed headers %s", cases[i].path, ah);
        cr_expect(atoi(hdr(&r, "Access-Control-Max-Age")) >= 600, "%s", cases[i].path);
        /* The docs promise the exposed headers on every reply under /api/v1, preflights too. */
        const char *expose = hdr(&r, "Access-Control-Expose-Headers");
        cr_expect(strstr(expose, "Retry-After") && strstr(expose, "Location") &&
                      strstr(expose, "ETag"),
                  "%s: exposed %s", cases[i].path, expose);
        http_reply_free(&r);
    }
    /* OPTIONS outside the API: 204 with Allow, and no CORS. */
    struct http_reply r;
    counted(K_CORS);
    ask("OPTIONS", "/index.html", NULL, pre, NULL, NULL, &r);
    cr_expect_eq(r.status, 204);
    cr_expect_str_eq(hdr(&r, "Allow"), "GET, HEAD, OPTIONS");
    cr_expect_str_eq(hdr(&r, "Access-Control-Allow-Origin"), "");
    http_reply_free(&r);
    stops_cleanly();
}

Test(browser, a_configured_origin_list_echoes_only_a_listed_origin)
{
    daemon_stop(&d);
    setenv("CITY_CORS_ORIGINS", "https://play.example.org, http://127.0.0.1:8000/", 1);
    daemon_start(&d, db, "--allow-seed");
    unsetenv("CITY_CORS_ORIGINS");
    client_base = d.base;
    const struct {
        const char *origin, *allowed;
    } cases[] = {{"Origin: https://play.example.org", "https://play.example.org"},
                 {"Origin: http://127.0.0.1:8000", "http://127.0.0.1:8000"},
                 {"Origin: https://evil.example.org", ""},
                 {"Origin: https://play.example.org.evil.test", ""},
                 {"Origin: null", ""}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *h[] = {cases[i].origin, NULL};
        for (int pre = 0; pre < 2; pre++) {
            struct http_reply r;
            counted(K_CORS);
            ask(pre ? "OPTIONS" : "GET", "/api/v1/games", NULL, h, NULL, NULL, &r);
            cr_expect_eq(r.status, pre ? 204 : 200);
            cr_expect_str_eq(hdr(&r, "Access-Control-Allow-Origin"), cases[i].allowed, "%s",
                             cases[i].origin);
            cr_expect_str_eq(hdr(&r, "Vary"), "Origin", "a cache must key on the Origin");
            http_reply_free(&r);
        }
    }
    daemon_stop(&d);
    /* A malformed list is a usage error at start. */
    for (const char *const *bad =
             (const char *const[]){"https://x.test/path", "x.test", "a,*", NULL};
         *bad; bad++) {
        setenv("CITY_CORS_ORIGINS", *bad, 1);
        char why[2048];
        counted(K_CORS);
        cr_expect(!daemon_try_start(&d, db, "", why, sizeof why),
                  "CITY_CORS_ORIGINS=%s was accepted", *bad);
        cr_expect(strstr(why, "CITY_CORS_ORIGINS"), "the usage error names the setting: %s", why);
        daemon_stop(&d);
    }
    unsetenv("CITY_CORS_ORIGINS");
}

/* ---- media types -------------------------------------------------------------------------- */

Test(browser, a_post_body_that_is_not_json_gets_415_and_changes_nothing)
{
    struct table t;
    create(&t, 2, 1, NULL);
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"bots\": [\"random\"]}", 201);
    char open_id[64];
    snprintf(open_id, sizeof open_id, "%s", str(g, "id"));
    json_decref(g);
    long before = games_listed();
    char join[160], orders[160];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", open_id);
    snprintf(orders, sizeof orders, "/api/v1/games/%s/orders", t.id);
    const struct {
        const char *path, *ctype, *body;
        const char *const *headers;
    } cases[] = {
        {"/api/v1/games", "text/plain", "{\"seats\": 2, \"bots\": [\"random\"]}", NULL},
        {"/api/v1/games", "text/plain;charset=UTF-8", "{\"seats\": 2, \"bots\": [\"random\"]}",
         NULL},
        {"/api/v1/games", "application/x-www-form-urlencoded", "{\"seats\": 2}", NULL},
        {"/api/v1/games", "multipart/form-data; boundary=x", "{\"seats\": 2}", NULL},
        {"/api/v1/games", "application/jsonx", "{\"seats\": 2}", NULL},
        {"/api/v1/games", "application/json-patch+json", "{\"seats\": 2}", NULL},
        {join, "text/plain", "{\"name\": \"Mallory\"}", NULL},
        {orders, "text/plain", "{\"round\": 1, \"step\": \"keep\"}", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct http_reply r;
        counted(K_MEDIA);
        ask("POST", cases[i].path, cases[i].path == orders ? t.tokens[0] : NULL, cases[i].headers,
            cases[i].ctype, cases[i].body, &r);
        char what[200];
        snprintf(what, sizeof what, "POST %.60s as %s", cases[i].path,
                 cases[i].ctype ? cases[i].ctype : "no type");
        expect_problem(&r, what, 415, "unsupported_media_type");
        http_reply_free(&r);
    }
    /* No Content-Type at all (libcurl always sends one with a body: a raw request). */
    counted(K_MEDIA);
    char raw[512];
    const char *json = "{\"seats\": 2, \"bots\": [\"random\"]}";
    snprintf(raw, sizeof raw,
             "POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n"
             "Connection: close\r\n\r\n%s",
             strlen(json), json);
    char got[4096];
    raw_request(raw, got, sizeof got);
    cr_expect(strncmp(got, "HTTP/1.1 415 ", 13) == 0, "a body without a type: %.200s", got);
    cr_expect_eq(games_listed(), before, "a refused body created no game");
    /* The refused join took no seat: the next one (as JSON) gets seat 0. */
    char open_join[160];
    snprintf(open_join, sizeof open_join, "/api/v1/games/%s/join", open_id);
    json_t *j = call("POST", open_join, NULL, "{\"name\": \"Ada\"}", 201);
    cr_expect_eq(num(j, "seat"), 0, "a refused join took no seat");
    json_decref(j);

    /* JSON with parameters and in any case is JSON. */
    const char *fine[] = {"application/json; charset=utf-8", "Application/JSON",
                          "application/json;charset=UTF-8", " application/json "};
    for (size_t k = 0; k < sizeof fine / sizeof *fine; k++) {
        struct http_reply r;
        counted(K_MEDIA);
        ask("POST", "/api/v1/games", NULL, NULL, fine[k], "{\"seats\": 2, \"bots\": [\"random\"]}",
            &r);
        cr_expect_eq(r.status, 201, "POST as %s -> %ld: %s", fine[k], r.status, r.body);
        http_reply_free(&r);
    }
    /* An empty body is never acted on: 400, whatever its type. */
    struct http_reply r;
    counted(K_MEDIA);
    ask("POST", "/api/v1/games", NULL, NULL, "text/plain", "", &r);
    expect_problem(&r, "an empty text/plain POST", 400, "malformed_json");
    http_reply_free(&r);
    stops_cleanly();
}

/* ---- static files ------------------------------------------------------------------------- */

Test(browser, static_files_have_their_types_and_validators)
{
    const struct {
        const char *path, *type;
    } cases[] = {{"/", "text/html; charset=utf-8"},
                 {"/index.html", "text/html; charset=utf-8"},
                 {"/app.js", "text/javascript; charset=utf-8"},
                 {"/style.css", "text/css; charset=utf-8"},
                 {"/favicon.svg", "image/svg+xml"},
                 {"/fonts/city-emoji.ttf", "font/ttf"},
                 {"/fonts/README.txt", "text/plain; charset=utf-8"},
                 {"/openapi.yaml", "application/yaml"},
                 {"/docs/rules.md", "text/markdown; charset=utf-8"},
                 {"/docs/tech_city.md", "text/markdown; charset=utf-8"},
                 {"/docs/simcity.md", "text/markdown; charset=utf-8"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (int head = 0; head < 2; head++) {
            struct http_reply r;
            counted(K_STATIC);
            ask(head ? "HEAD" : "GET", cases[i].path, NULL, NULL, NULL, NULL, &r);
            cr_expect_eq(r.status, 200, "%s", cases[i].path);
            cr_expect_str_eq(r.content_type, cases[i].type, "%s", cases[i].path);
            const char *etag = hdr(&r, "ETag");
            cr_expect(strlen(etag) == 34 && etag[0] == '"' && etag[33] == '"',
                      "%s: a strong ETag: %s", cases[i].path, etag);
            cr_expect(strstr(hdr(&r, "Last-Modified"), " GMT"), "%s", cases[i].path);
            if (head)
                cr_expect_eq(r.len, 0, "HEAD sends no body");
            else
                cr_expect_gt(r.len, 0);
            http_reply_free(&r);
        }
    }
    stops_cleanly();
}

Test(browser, a_matching_validator_gets_304_and_a_changed_one_the_file)
{
    struct http_reply r;
    ask("GET", "/app.js", NULL, NULL, NULL, NULL, &r);
    char etag[128], modified[128];
    snprintf(etag, sizeof etag, "%s", hdr(&r, "ETag"));
    snprintf(modified, sizeof modified, "%s", hdr(&r, "Last-Modified"));
    http_reply_free(&r);

    char inm[200], weak[200], list[300], ims[200];
    snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
    snprintf(weak, sizeof weak, "If-None-Match: W/%s", etag);
    snprintf(list, sizeof list, "If-None-Match: \"other\", %s", etag);
    snprintf(ims, sizeof ims, "If-Modified-Since: %s", modified);
    const struct {
        const char *header;
        long status;
    } cases[] = {{inm, 304},
                 {weak, 304},
                 {list, 304},
                 {"If-None-Match: *", 304},
                 {ims, 304},
                 {"If-None-Match: \"stale\"", 200},
                 {"If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT", 200},
                 {"If-Modified-Since: yesterday", 200}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *h[] = {cases[i].header, NULL};
        for (int head = 0; head < 2; head++) {
            counted(K_STATIC);
            ask(head ? "HEAD" : "GET", "/app.js", NULL, h, NULL, NULL, &r);
            cr_expect_eq(r.status, cases[i].status, "%s -> %ld", cases[i].header, r.status);
            cr_expect_str_eq(hdr(&r, "ETag"), etag, "%s", cases[i].header);
            if (r.status == 304)
                cr_expect_eq(r.len, 0, "a 304 has no body");
            http_reply_free(&r);
        }
    }
    stops_cleanly();
}

/* The bytes of a gzip stream, inflated. */
static char *gunzip(const char *data, size_t len, size_t *out_len)
{
    size_t cap = 1 << 20;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    z_stream zs = {0};
    cr_assert_eq(inflateInit2(&zs, 15 + 16), Z_OK);
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)len;
    zs.next_out = (Bytef *)out;
    zs.avail_out = (uInt)cap;
    int rc = inflate(&zs, Z_FINISH);
    cr_assert_eq(rc, Z_STREAM_END, "the gzip body inflates (%d)", rc);
    *out_len = zs.total_out;
    inflateEnd(&zs);
    return out;
}

Test(browser, text_assets_are_gzipped_when_accepted_and_inflate_to_the_file)
{
    const char *files[] = {"table.js", "style.css", "index.html", "fonts/city-emoji.ttf"};
    static const char *const gz[] = {"Accept-Encoding: br, gzip;q=0.8", NULL};
    static const char *const no_gz[] = {"Accept-Encoding: gzip;q=0, identity", NULL};
    size_t total = 0, sent = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        size_t len;
        char *want = web_file(files[i], &len);
        char path[200];
        snprintf(path, sizeof path, "/%s", files[i]);
        struct http_reply r;
        counted(K_STATIC);
        ask("GET", path, NULL, gz, NULL, NULL, &r);
        cr_expect_eq(r.status, 200);
        cr_expect_str_eq(hdr(&r, "Content-Encoding"), "gzip", "%s", path);
        cr_expect(strstr(hdr(&r, "Vary"), "Accept-Encoding"), "%s", path);
        const char *etag = hdr(&r, "ETag");
        cr_expect(strstr(etag, "-gz\""), "the gzip form has its own ETag: %s", etag);
        cr_expect_lt(r.len, len, "%s: compressed is smaller", path);
        size_t got_len;
        char *got = gunzip(r.body, r.len, &got_len);
        cr_expect(got_len == len && memcmp(got, want, len) == 0, "%s inflates to the file", path);
        total += len;
        sent += r.len;
        free(got);
        http_reply_free(&r);

        /* Refused gzip (q=0) or no Accept-Encoding: the file as it is. */
        for (int k = 0; k < 2; k++) {
            counted(K_STATIC);
            ask("GET", path, NULL, k ? no_gz : NULL, NULL, NULL, &r);
            cr_expect_str_eq(hdr(&r, "Content-Encoding"), "", "%s", path);
            cr_expect(r.len == len && memcmp(r.body, want, len) == 0, "%s as it is", path);
            cr_expect(strstr(hdr(&r, "Vary"), "Accept-Encoding"), "%s", path);
            http_reply_free(&r);
        }
        free(want);
    }
    cr_log_info("gzip: %zu bytes of text assets sent as %zu", total, sent);
    /* A file too small to gain from it (the 245-byte icon) goes as it is, still with Vary. */
    struct http_reply r;
    counted(K_STATIC);
    ask("GET", "/favicon.svg", NULL, gz, NULL, NULL, &r);
    cr_expect_eq(r.status, 200);
    cr_expect_str_eq(hdr(&r, "Content-Encoding"), "");
    cr_expect(strstr(hdr(&r, "Vary"), "Accept-Encoding"));
    http_reply_free(&r);
    stops_cleanly();
}

/* ---- the access log ----------------------------------------------------------------------- */

Test(browser, the_access_log_escapes_control_characters)
{
    const char *paths[] = {"/x%0aGET%20/forged%20200%200.1ms", "/y%0d%0aSet-Cookie:%20a",
                           "/z%1b%5b2J%22quoted%22%5c", "/api/v1/games/%0a%09id"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        struct http_reply r;
        counted(K_LOG);
        ask("GET", paths[i], NULL, NULL, NULL, NULL, &r);
        cr_expect_eq(r.status, 404, "%s", paths[i]);
        http_reply_free(&r);
    }
    /* The log is written in blocks at least every quarter second: /healthz last, then wait for
     * a flush and read it. */
    struct http_reply r;
    ask("GET", "/healthz", NULL, NULL, NULL, NULL, &r);
    http_reply_free(&r);
    harness_sleep_ms(800);
    FILE *f = fopen(d.log, "rb");
    cr_assert_not_null(f);
    char line[4096];
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        cr_expect(strncmp(line, "GET /forged", 11) != 0 && strncmp(line, "Set-Cookie", 10) != 0,
                  "a forged log line: %s", line);
        for (const unsigned char *p = (const unsigned char *)line; *p && *p != '\n'; p++)
            cr_expect(*p >= 0x20 && *p != 0x7f && *p != '\r' && *p != 0x1b,
                      "a control character 0x%02x in the log line %s", *p, line);
        seen += strstr(line, "\"/x\\x0aGET /forged 200 0.1ms\" 404") != NULL;
        seen += strstr(line, "\"/y\\x0d\\x0aSet-Cookie: a\" 404") != NULL;
        seen += strstr(line, "\"/z\\x1b[2J\\x22quoted\\x22\\x5c\" 404") != NULL;
    }
    fclose(f);
    cr_expect_eq(seen, 3, "each hostile path is logged once, escaped, on one line");
    stops_cleanly();
}

/* ---- bearer tokens ------------------------------------------------------------------------ */

Test(browser, the_bearer_parser_takes_what_clients_send)
{
    struct table t;
    create(&t, 2, 1, NULL);
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", t.id);
    /* Each form: what comes before the token, what after ("-" for no token at all). */
    const struct {
        const char *before, *after;
        long status;
    } cases[] = {{"Bearer ", "", 200},  {"Bearer ", "   ", 200},  {"Bearer ", "\t", 200},
                 {"bearer ", "", 200},  {"BEARER ", "", 200},     {"Bearer    ", "", 200},
                 {"Bearer\t", "", 200}, {"   Bearer ", " ", 200}, {"Bearer", "", 401},
                 {"Basic ", "", 401},   {"Bearer x", "", 401},    {"Bearer ", " x", 401},
                 {"Bearer", "-", 401},  {"Bearer    ", "-", 401}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char auth[300];
        bool none = strcmp(cases[i].after, "-") == 0;
        snprintf(auth, sizeof auth, "Authorization: %s%s%s", cases[i].before,
                 none ? "" : t.tokens[0], none ? "" : cases[i].after);
        const char *h[] = {auth, NULL};
        struct http_reply r;
        counted(K_BEARER);
        ask("GET", path, NULL, h, NULL, NULL, &r);
        cr_expect_eq(r.status, cases[i].status, "[%s] -> %ld: %.200s", auth, r.status, r.body);
        http_reply_free(&r);
    }
    stops_cleanly();
}

/* ---- oversized request heads -------------------------------------------------------------- */

Test(browser, too_many_query_parameters_or_headers_get_a_problem_not_a_closed_connection)
{
    /* 100 query parameters (the limit is 64). */
    char *q = malloc(40000);
    cr_assert_not_null(q);
    size_t n = (size_t)snprintf(q, 40000, "/api/v1/games?");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(q + n, 40000 - n, "%sa%d=1", i ? "&" : "", i);
    struct http_reply r;
    counted(K_HEAD);
    ask("GET", q, NULL, NULL, NULL, NULL, &r);
    expect_problem(&r, "100 query parameters", 414, "uri_too_long");
    http_reply_free(&r);
    /* A path past the 2 KiB limit. */
    memset(q, 'a', 3000);
    q[0] = '/';
    q[3000] = 0;
    counted(K_HEAD);
    ask("GET", q, NULL, NULL, NULL, NULL, &r);
    expect_problem(&r, "a 3,000-byte path", 414, "uri_too_long");
    http_reply_free(&r);
    free(q);

    /* 120 header lines (the limit is 100). */
    static char lines[120][32];
    const char *many[121];
    for (int i = 0; i < 120; i++) {
        snprintf(lines[i], sizeof lines[i], "X-Filler-%d: %d", i, i);
        many[i] = lines[i];
    }
    many[120] = NULL;
    counted(K_HEAD);
    ask("GET", "/api/v1/games", NULL, many, NULL, NULL, &r);
    expect_problem(&r, "120 header lines", 431, "headers_too_large");
    http_reply_free(&r);

    /* One header of 10 KB, and 10 KB of headers in five: past the 8 KiB limit, within the
     * connection's memory for a head (14 KiB), so the answer is ours. */
    for (int big = 0; big < 2; big++) {
        size_t each = big ? 2000 : 10000, count = big ? 5 : 1;
        char *vals[5];
        const char *h[6];
        for (size_t i = 0; i < count; i++) {
            vals[i] = malloc(each + 32);
            cr_assert_not_null(vals[i]);
            int k = snprintf(vals[i], 32, "X-Big-%zu: ", i);
            memset(vals[i] + k, 'v', each);
            vals[i][k + (int)each] = 0;
            h[i] = vals[i];
        }
        h[count] = NULL;
        counted(K_HEAD);
        ask("GET", "/healthz", NULL, h, NULL, NULL, &r);
        expect_problem(&r, big ? "10 KB of headers in five" : "one 10 KB header", 431,
                       "headers_too_large");
        http_reply_free(&r);
        for (size_t i = 0; i < count; i++)
            free(vals[i]);
    }
    /* Past that memory (one 40 KB header) libmicrohttpd answers 431 itself, and the next
     * request is served. */
    char *huge = malloc(40032);
    cr_assert_not_null(huge);
    int k = snprintf(huge, 32, "X-Huge: ");
    memset(huge + k, 'v', 40000);
    huge[k + 40000] = 0;
    const char *one[] = {huge, NULL};
    counted(K_HEAD);
    ask("GET", "/healthz", NULL, one, NULL, NULL, &r);
    cr_expect(r.status == 431 || r.status == 0, "a 40 KB header -> %ld", r.status);
    http_reply_free(&r);
    free(huge);
    /* Within the limits, a request with a handful of parameters and headers is served. */
    static const char *const few[] = {"X-A: 1", "X-B: 2", NULL};
    counted(K_HEAD);
    ask("GET", "/api/v1/games?a=1&b=2&c=3", NULL, few, NULL, NULL, &r);
    cr_expect_eq(r.status, 200);
    http_reply_free(&r);
    stops_cleanly();
}

/* ---- the order's token before its body ---------------------------------------------------- */

Test(browser, an_order_is_refused_for_its_token_before_its_body)
{
    struct table t, other;
    create(&t, 2, 1, NULL);
    create(&other, 2, 1, NULL);
    char orders[160];
    snprintf(orders, sizeof orders, "/api/v1/games/%s/orders", t.id);
    const char *bad_bodies[] = {"{\"round\": ", "[1]", "{\"round\": \"x\"}", "{\"colour\": 1}",
                                "{}"};
    const struct {
        const char *token;
        long status;
        const char *code;
    } who[] = {
        {NULL, 401, "token_required"},
        {"0000000000000000000000000000000000000000000000000000000000000000", 401, "bad_token"},
        {other.tokens[0], 403, "wrong_game"},
        {t.host, 403, "not_a_seat_token"}};
    for (size_t w = 0; w < sizeof who / sizeof *who; w++)
        for (size_t b = 0; b < sizeof bad_bodies / sizeof *bad_bodies; b++) {
            struct http_reply r;
            char what[200];
            snprintf(what, sizeof what, "token %zu, body %s", w, bad_bodies[b]);
            counted(K_AUTH);
            ask("POST", orders, who[w].token, NULL, NULL, bad_bodies[b], &r);
            expect_problem(&r, what, who[w].status, who[w].code);
            http_reply_free(&r);
        }
    /* No token and no body; no token and a text/plain body. */
    struct http_reply r;
    counted(K_AUTH);
    ask("POST", orders, NULL, NULL, NULL, NULL, &r);
    expect_problem(&r, "no token, no body", 401, "token_required");
    http_reply_free(&r);
    /* With the seat's token, the body's own problem. */
    counted(K_AUTH);
    ask("POST", orders, t.tokens[0], NULL, NULL, "{\"round\": ", &r);
    expect_problem(&r, "a seat's token, a malformed body", 400, "malformed_json");
    http_reply_free(&r);
    counted(K_AUTH);
    ask("POST", orders, t.tokens[0], NULL, NULL, "{\"colour\": 1}", &r);
    cr_expect_eq(r.status, 400, "a seat's token, an unknown field: %s", r.body);
    http_reply_free(&r);
    /* A game that does not exist: 404 whatever the body. */
    counted(K_AUTH);
    ask("POST", "/api/v1/games/nosuchgame/orders", t.tokens[0], NULL, NULL, "[", &r);
    expect_problem(&r, "no such game", 404, "game_not_found");
    http_reply_free(&r);
    /* The game is still playable to its end, its log intact. */
    play_to_end(&t);
    check_log(&t);
    stops_cleanly();
}
