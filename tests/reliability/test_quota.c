/* test_quota.c: the reliability suite's quotas and lifecycle, each against a real daemon with
 * its own settings and database: a creation flood and a join flood from one address get 429
 * problem+json with Retry-After while another loopback address (127.0.0.2) is served; amendment
 * spam leaves the event log at one "submitted" event per seat and step, stores the last order
 * accepted and ends in 429 too_many_amendments past the cap (with Retry-After, as is 429
 * too_many_hints); an open game that never fills expires (out of the lobby, join 409
 * game_expired); a started game nobody moves is abandoned by the sweeper while one being played
 * is not; a finished and an expired game are deleted
 * with every row of theirs after the retention; and two daemons force the overdue steps of
 * 2,000 timed games, each exactly once, exporting how late they were.
 *
 * Each test appends its counts ("quota_requests N" and finer keys) to $CITY_COUNTS (summed by
 * scripts/reliability-summary.sh). */
#include "suite.h"

#include <pthread.h>
#include <stdatomic.h>
#include <strings.h>

static struct daemon d;
static char db[512];

/* ---- counting ----------------------------------------------------------------------------- */

enum kind { K_REQUESTS, K_429, K_AMENDMENTS, K_EXPIRED, K_DELETED, K_FORCED, K_COUNT };
static const char *const count_keys[K_COUNT] = {
    "quota_requests",      "quota_rate_limited_429", "quota_amendments_sent",
    "quota_games_expired", "quota_games_deleted",    "quota_timed_games_forced"};
static long counts[K_COUNT];

static void counts_append(void)
{
    suite_counts_append(count_keys, counts, K_COUNT);
}

/* ---- the daemon --------------------------------------------------------------------------- */

/* A fresh database and a daemon with `flags` (every quota off unless flags set it). */
static void up_with(const char *flags)
{
    signal(SIGPIPE, SIG_IGN);
    db_create(db, sizeof db);
    char args[512];
    snprintf(args, sizeof args,
             "--create-rate 0 --join-rate 0 --max-amendments 0 --open-ttl 0 --retention 0 %s",
             flags);
    daemon_start(&d, db, args);
    client_base = d.base;
}

static void down(void)
{
    counts_append();
    daemon_stop(&d);
}

TestSuite(quota, .fini = down, .timeout = 240);

/* ---- requests from a chosen loopback address ----------------------------------------------- */

/* Sends `method path` with an optional body and token from source address `from`
 * ("127.0.0.1", "127.0.0.2") to the daemon, fills *a (a->json to be freed) and counts it. */
static void send_from(const char *from, const char *method, const char *path, const char *token,
                      const char *body, struct suite_answer *a)
{
    suite_send_from(d.base, from, method, path, token, body, a);
    counts[K_REQUESTS]++;
    if (a->status == 429)
        counts[K_429]++;
}

/* A 429 is a rate_limited (or `code`) problem with a Retry-After and a detail that says when
 * to try again. */
static void assert_rate_limited(const struct suite_answer *a, const char *code, bool retry_after)
{
    cr_assert_eq(a->status, 429);
    cr_assert_str_eq(a->content_type, "application/problem+json");
    cr_assert_not_null(a->json, "a problem body");
    cr_assert_str_eq(str(a->json, "code"), code);
    cr_assert_eq(num(a->json, "status"), 429);
    const char *detail = str(a->json, "detail");
    cr_assert(detail && strlen(detail) > 20, "a detail sentence");
    if (retry_after) {
        cr_assert_geq(a->retry_after, 1, "Retry-After of at least a second");
        cr_assert(strstr(detail, "Try again in"), "the detail says when: %s", detail);
    }
}

/* Runs `sql` on the test's database; the first column of the first row as a number. */
static long long sql_long(const char *sql)
{
    return db_num(db, sql);
}

/* True when the lobby lists game `id`. */
static bool in_lobby(const char *id)
{
    json_t *l = call("GET", "/api/v1/games", NULL, NULL, 200);
    bool found = false;
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(l, "games"), i, g) found =
        found || strcmp(str(g, "id"), id) == 0;
    json_decref(l);
    return found;
}

/* ---- rate limits -------------------------------------------------------------------------- */

Test(quota, a_creation_flood_from_one_address_gets_429_while_another_address_is_served)
{
    up_with("--create-rate 6 --create-burst 5");
    const char *body = "{\"seats\": 2, \"bots\": [\"greedy\"]}";
    double start = harness_now();
    int created = 0, limited = 0;
    for (int i = 0; i < 40; i++) {
        struct suite_answer a;
        send_from("127.0.0.1", "POST", "/api/v1/games", NULL, body, &a);
        cr_assert(a.status == 201 || a.status == 429, "create -> %ld", a.status);
        if (a.status == 201) {
            created++;
        } else {
            limited++;
            assert_rate_limited(&a, "rate_limited", true);
        }
        json_decref(a.json);
    }
    /* A burst of 5, plus what refilled at 6 a minute while the flood ran. */
    double refilled = (harness_now() - start) / 10.0;
    cr_assert_geq(created, 5, "the burst is served");
    cr_assert_leq(created, 5 + (int)refilled + 1, "created %d in %.1f s", created,
                  harness_now() - start);
    cr_assert_geq(limited, 30);
    for (int i = 0; i < 5; i++) {
        struct suite_answer a;
        send_from("127.0.0.2", "POST", "/api/v1/games", NULL, body, &a);
        cr_assert_eq(a.status, 201, "another address is not limited");
        json_decref(a.json);
    }
}

/* ---- a read flood ------------------------------------------------------------------------- */

struct reader {
    const char *path;
    atomic_bool *stop;
    long sent, limited;
};

/* Reads `path` from 127.0.0.1 as fast as the daemon answers, until *stop. */
static void *read_flood(void *arg)
{
    struct reader *rd = arg;
    char url[512];
    snprintf(url, sizeof url, "%s%s", d.base, rd->path);
    CURL *c = curl_easy_init();
    struct harness_buf sink = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_INTERFACE, "127.0.0.1");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, harness_collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    while (!atomic_load(rd->stop)) {
        long status = 0;
        if (curl_easy_perform(c) == CURLE_OK)
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        rd->sent++;
        rd->limited += status == 429;
        free(sink.p);
        sink = (struct harness_buf){0};
    }
    curl_easy_cleanup(c);
    return NULL;
}

/* Eight connections of one address reading the lobby and a game's log as fast as they are
 * answered get 429 rate_limited with Retry-After past --read-rate, each refusal held back a
 * second (so the flood cannot spin on refusals: before, one address got ~16,000 refusals a
 * second and another's /healthz p99 was 630-730 ms on this 2-core machine), while another
 * address's /healthz stays fast and its own reads of the lobby and the log are served. */
Test(quota, a_read_flood_from_one_address_gets_429_while_another_address_is_served)
{
    up_with("--read-rate 60 --read-burst 30");
    struct table t;
    create(&t, 2, 1, NULL);
    char events[200];
    snprintf(events, sizeof events, "/api/v1/games/%s/events", t.id);
    atomic_bool stop;
    atomic_init(&stop, false);
    enum { READERS = 8 };
    struct reader rd[READERS];
    pthread_t th[READERS];
    double flood_start = harness_now();
    for (int i = 0; i < READERS; i++) {
        rd[i] = (struct reader){.path = i % 2 ? events : "/api/v1/games", .stop = &stop};
        cr_assert_eq(pthread_create(&th[i], NULL, read_flood, &rd[i]), 0);
    }
    harness_sleep_ms(300);
    enum { TRIES = 100 };
    double took[TRIES];
    for (int i = 0; i < TRIES; i++) {
        struct suite_answer a;
        double t0 = harness_now();
        send_from("127.0.0.2", "GET", "/healthz", NULL, NULL, &a);
        took[i] = harness_now() - t0;
        cr_assert_eq(a.status, 200, "another address's /healthz -> %ld", a.status);
        json_decref(a.json);
    }
    struct suite_answer lobby, log, flooded;
    send_from("127.0.0.2", "GET", "/api/v1/games", NULL, NULL, &lobby);
    send_from("127.0.0.2", "GET", events, NULL, NULL, &log);
    send_from("127.0.0.1", "GET", "/api/v1/games", NULL, NULL, &flooded);
    atomic_store(&stop, true);
    long sent = 0, limited = 0;
    for (int i = 0; i < READERS; i++) {
        pthread_join(th[i], NULL);
        sent += rd[i].sent;
        limited += rd[i].limited;
    }
    counts[K_REQUESTS] += sent;
    counts[K_429] += limited;
    for (int i = 1; i < TRIES; i++)
        for (int k = i; k > 0 && took[k] < took[k - 1]; k--) {
            double x = took[k];
            took[k] = took[k - 1];
            took[k - 1] = x;
        }
    cr_log_info("a read flood of %ld requests from one address (%ld answered 429): another "
                "address's /healthz p50 %.1f ms, p99 %.1f ms",
                sent, limited, took[TRIES / 2] * 1000, took[TRIES * 99 / 100 - 1] * 1000);
    cr_expect_eq(lobby.status, 200, "another address reads the lobby");
    cr_expect_eq(log.status, 200, "another address reads the log");
    assert_rate_limited(&flooded, "rate_limited", true);
    /* The burst of 30 and one a second refilled while the flood ran (a few seconds), nothing
     * more; every connection of the flood was refused, and each waited a second for it. */
    cr_expect_leq(sent - limited, 30 + (long)(harness_now() - flood_start) + 1,
                  "%ld of %ld flood reads were served", sent - limited, sent);
    cr_expect_geq(limited, READERS, "only %ld flood reads were refused", limited);
    cr_expect_leq(sent, 30 + 3 * READERS * (long)(harness_now() - flood_start + 1),
                  "the flood spun on its refusals: %ld reads", sent);
    cr_expect_lt(took[TRIES * 99 / 100 - 1], 0.1, "another address's /healthz p99 %.1f ms",
                 took[TRIES * 99 / 100 - 1] * 1000);
    json_decref(lobby.json);
    json_decref(log.json);
    json_decref(flooded.json);
}

/* /metrics is not public: served to the addresses of --metrics-allow (loopback and private
 * networks by default) and to a client with CITY_METRICS_TOKEN, 403 metrics_forbidden to
 * others (before, anyone who reached the game port read it). */
/* The lobby entry of game `id` read from the daemon at `base`, as a new reference (NULL when
 * the first page does not list it). */
static json_t *lobby_entry(const char *base, const char *id)
{
    const char *saved = client_base;
    client_base = base;
    json_t *l = call("GET", "/api/v1/games", NULL, NULL, 200);
    client_base = saved;
    json_t *found = NULL;
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(l, "games"), i, g)
    {
        if (!found && strcmp(str(g, "id"), id) == 0)
            found = json_incref(g);
    }
    json_decref(l);
    return found;
}

Test(quota, a_crowd_reading_the_lobby_is_served_from_the_cache_and_every_change_shows_at_once)
{
    /* The report: 250 connections of one address reading the lobby pushed another client's
     * /healthz p99 to 1.34 s. Pages are cached (a second by default) and forgotten by every
     * change of an open game: on this instance at once, on another through its NOTIFY. */
    up_with("");
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"name\": \"Host\"}", 201);
    char id[64], join[128];
    snprintf(id, sizeof id, "%s", str(g, "id"));
    snprintf(join, sizeof join, "/api/v1/games/%s/join", id);
    json_decref(g);
    json_t *e = lobby_entry(d.base, id);
    cr_assert_not_null(e, "the creator sees its game in the lobby at once");
    cr_assert_eq(num(e, "seats_free"), 2);
    json_decref(e);
    /* A crowd of four addresses reads the lobby 400 times: the database reads it a few. */
    double hits = metric_at(d.base, "city_lobby_cache_lookups_total{result=\"hit\"}");
    double misses = metric_at(d.base, "city_lobby_cache_lookups_total{result=\"miss\"}");
    const char *from[] = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"};
    for (int i = 0; i < 400; i++) {
        struct suite_answer a;
        send_from(from[i % 4], "GET", "/api/v1/games", NULL, NULL, &a);
        cr_assert_eq(a.status, 200);
        json_decref(a.json);
    }
    hits = metric_at(d.base, "city_lobby_cache_lookups_total{result=\"hit\"}") - hits;
    misses = metric_at(d.base, "city_lobby_cache_lookups_total{result=\"miss\"}") - misses;
    fprintf(stderr, "lobby cache: %.0f of 400 reads from the cache, %.0f from the database\n", hits,
            misses);
    cr_assert_geq(hits, 360, "%.0f of 400 lobby reads came from the cache", hits);
    /* A join shows at once, to the joiner and to everyone. */
    json_decref(call("POST", join, NULL, "{\"name\": \"Ann\"}", 201));
    e = lobby_entry(d.base, id);
    cr_assert_eq(num(e, "seats_free"), 1, "the join shows in the lobby at once");
    json_decref(e);
    /* Another instance keeps pages for a minute, yet sees a join made here within moments:
     * the NOTIFY of the change makes it forget them. */
    struct daemon d2;
    daemon_start(&d2, db, "--lobby-cache-ms 60000");
    e = lobby_entry(d2.base, id);
    cr_assert_eq(num(e, "seats_free"), 1);
    json_decref(e);
    json_decref(call("POST", join, NULL, "{\"name\": \"Bea\"}", 201));
    double t0 = harness_now(), until = t0 + 5;
    bool seen = false;
    while (!seen && harness_now() < until) {
        e = lobby_entry(d2.base, id);
        seen = e && strcmp(str(e, "status"), "playing") == 0;
        json_decref(e);
        if (!seen)
            harness_sleep_ms(10);
    }
    cr_assert(seen, "the other instance's lobby shows the game started");
    fprintf(stderr, "lobby cache: another instance saw the change after %.0f ms\n",
            (harness_now() - t0) * 1000);
    cr_assert_lt(harness_now() - t0, 2.0);
    daemon_stop(&d2);
}

Test(quota, metrics_are_served_only_to_allowed_addresses_or_the_metrics_token)
{
    setenv("CITY_METRICS_TOKEN", "a-long-metrics-token-for-the-scraper", 1);
    up_with("--metrics-allow 127.0.0.2");
    unsetenv("CITY_METRICS_TOKEN");
    struct suite_answer a;
    send_from("127.0.0.2", "GET", "/metrics", NULL, NULL, &a);
    cr_expect_eq(a.status, 200, "an allowed address reads the metrics");
    json_decref(a.json);
    send_from("127.0.0.1", "GET", "/metrics", NULL, NULL, &a);
    cr_expect_eq(a.status, 403, "another address -> %ld", a.status);
    cr_expect_str_eq(a.content_type, "application/problem+json");
    cr_expect_str_eq(a.json ? str(a.json, "code") : "", "metrics_forbidden");
    json_decref(a.json);
    send_from("127.0.0.1", "GET", "/metrics", "not-the-token", NULL, &a);
    cr_expect_eq(a.status, 403, "a wrong token -> %ld", a.status);
    json_decref(a.json);
    send_from("127.0.0.1", "GET", "/metrics", "a-long-metrics-token-for-the-scraper", NULL, &a);
    cr_expect_eq(a.status, 200, "the metrics token -> %ld", a.status);
    json_decref(a.json);
    send_from("127.0.0.1", "GET", "/healthz", NULL, NULL, &a);
    cr_expect_eq(a.status, 200, "/healthz stays public");
    json_decref(a.json);
}

Test(quota, a_join_flood_from_one_address_gets_429_while_another_address_is_served)
{
    up_with("--join-rate 6 --join-burst 3");
    char ids[6][64];
    for (int i = 0; i < 6; i++) {
        json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 5}", 201);
        snprintf(ids[i], sizeof ids[i], "%s", str(g, "id"));
        json_decref(g);
    }
    double start = harness_now();
    int joined = 0, limited = 0;
    for (int i = 0; i < 20; i++) {
        char path[512];
        snprintf(path, sizeof path, "/api/v1/games/%s/join", ids[i % 6]);
        char name[64]; /* one name a table: a join that got through never meets its own name */
        snprintf(name, sizeof name, "{\"name\": \"Flood %d\"}", i);
        struct suite_answer a;
        send_from("127.0.0.1", "POST", path, NULL, name, &a);
        cr_assert(a.status == 201 || a.status == 429, "join -> %ld", a.status);
        if (a.status == 201)
            joined++;
        else {
            limited++;
            assert_rate_limited(&a, "rate_limited", true);
        }
        json_decref(a.json);
    }
    /* A burst of 3, plus what refilled at 6 a minute while the flood ran. */
    double refilled = (harness_now() - start) / 10.0;
    cr_assert_geq(joined, 3, "the burst is served");
    cr_assert_leq(joined, 3 + (int)refilled + 1, "joined %d times", joined);
    cr_assert_geq(limited, 15);
    for (int i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "/api/v1/games/%s/join", ids[i]);
        struct suite_answer a;
        send_from("127.0.0.2", "POST", path, NULL, "{\"name\": \"Other\"}", &a);
        cr_assert_eq(a.status, 201, "another address is not limited");
        json_decref(a.json);
    }
}

/* ---- amendments --------------------------------------------------------------------------- */

Test(quota, amendment_spam_adds_one_submitted_event_stores_the_last_order_and_ends_in_429)
{
    up_with("--max-amendments 50");
    struct table t;
    create(&t, 3, 1, NULL); /* two people: seat 1 never decides, so the step stays open */
    json_t *h = hand(&t, 0);
    json_t *p = json_object_get(h, "pending");
    cr_assert(json_is_object(p));
    /* Two different orders for the step: seat 0 alternates between them. */
    char *a_order = choose_order(h), b_order[512];
    if (strcmp(str(p, "step"), "build") == 0) {
        snprintf(b_order, sizeof b_order,
                 "{\"round\": %lld, \"step\": \"build\", \"survey\": true}", num(p, "round"));
    } else {
        json_t *cards = json_object_get(h, "hand"), *discard = json_array();
        long long n = num(json_object_get(p, "options"), "discard");
        for (long long k = 0; k < n; k++)
            json_array_append_new(
                discard, json_integer(num(
                             json_array_get(cards, json_array_size(cards) - 1 - (size_t)k), "id")));
        json_t *b = json_pack("{s:I, s:s, s:o}", "round", num(p, "round"), "step", str(p, "step"),
                              "discard", discard);
        char *text = json_dumps(b, JSON_COMPACT);
        snprintf(b_order, sizeof b_order, "%s", text);
        free(text);
        json_decref(b);
    }
    json_decref(h);
    char path[512];
    snprintf(path, sizeof path, "/api/v1/games/%s/orders", t.id);
    int accepted = 0, limited = 0;
    const char *last = NULL;
    long long seq_after_first = 0;
    for (int i = 0; i < 500; i++) {
        const char *order = i % 2 ? b_order : a_order;
        struct suite_answer a;
        send_from("127.0.0.1", "POST", path, t.tokens[0], order, &a);
        counts[K_AMENDMENTS]++;
        cr_assert(a.status == 202 || a.status == 429, "order %d -> %ld", i, a.status);
        if (a.status == 202) {
            accepted++;
            last = order;
            cr_assert_eq(limited, 0, "no order is accepted after the first refusal");
        } else {
            limited++;
            assert_rate_limited(&a, "too_many_amendments", false);
            /* No clock: the step ends when the other seat decides; the page polls every 5 s. */
            cr_assert_eq(a.retry_after, 5, "Retry-After of a game without a clock");
        }
        json_decref(a.json);
        if (i == 0) {
            json_t *v = view(&t);
            seq_after_first = num(v, "last_seq");
            json_decref(v);
        }
    }
    cr_assert_eq(accepted, 51, "the first order and 50 amendments");
    cr_assert_eq(limited, 449);
    /* The log grew by nothing after the first submission. */
    json_t *v = view(&t);
    cr_assert_eq(num(v, "last_seq"), seq_after_first, "amendments add no public event");
    json_decref(v);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM events WHERE game_id = '%s' AND type = 'submitted'", t.id);
    cr_assert_eq(sql_long(sql), 1, "one submitted event for the seat and step");
    /* The order that stands is the last one accepted, in the hand view and in the table. */
    h = hand(&t, 0);
    json_t *want = json_loads(last, 0, NULL);
    json_t *got = json_object_get(h, "order");
    cr_assert_not_null(got, "the hand view shows the seat's order");
    const char *key;
    json_t *value;
    json_object_foreach(want, key, value)
    {
        cr_assert(json_equal(value, json_object_get(got, key)),
                  "the last accepted order stands (field %s)", key);
    }
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM orders WHERE game_id = '%s' AND seat = 0 AND body @> '%s'", t.id,
             last);
    cr_assert_eq(sql_long(sql), 1, "the orders table holds the last accepted order");
    json_decref(want);
    json_decref(h);
    free(a_order);
    /* The next step starts a new count: the game goes on. */
    h = hand(&t, 1);
    char *o1 = choose_order(h);
    json_decref(h);
    json_decref(call("POST", path, t.tokens[1], o1, 202));
    free(o1);
    check_log(&t); /* gapless, each step opened once */
}

/* ---- expiry and retention ----------------------------------------------------------------- */

/* ---- hints ------------------------------------------------------------------------------- */

Test(quota, a_seat_past_its_hints_gets_429_too_many_hints_with_retry_after)
{
    up_with("--hints-per-game 1");
    struct table t;
    create(&t, 2, 1, NULL);
    char path[512];
    snprintf(path, sizeof path, "/api/v1/games/%s/hint", t.id);
    struct suite_answer a;
    send_from("127.0.0.1", "POST", path, t.tokens[0], NULL, &a);
    cr_assert_eq(a.status, 200, "the seat's one hint");
    cr_assert_eq(a.retry_after, -1, "a hint given says no Retry-After");
    json_decref(a.json);
    send_from("127.0.0.1", "POST", path, t.tokens[0], NULL, &a);
    assert_rate_limited(&a, "too_many_hints", false);
    /* The seat's hints of the game do not come back: a day. */
    cr_assert_eq(a.retry_after, 86400, "Retry-After of a spent hint budget");
    json_decref(a.json);
}

Test(quota, one_address_past_its_hint_rate_gets_429_while_another_address_is_served)
{
    /* The report: one address spent 226 hints in 6.2 s over 48 seats, within every seat's
     * budget. Hints are now counted per address too: a burst of 3, then 6 a minute. */
    up_with("--hints-per-game 100 --hint-rate 6 --hint-burst 3");
    struct table t;
    create(&t, 2, 1, NULL);
    char path[512];
    snprintf(path, sizeof path, "/api/v1/games/%s/hint", t.id);
    struct suite_answer a;
    for (int i = 0; i < 3; i++) {
        send_from("127.0.0.3", "POST", path, t.tokens[0], NULL, &a);
        cr_assert_eq(a.status, 200, "hint %d of the burst", i + 1);
        json_decref(a.json);
    }
    send_from("127.0.0.3", "POST", path, t.tokens[0], NULL, &a);
    assert_rate_limited(&a, "rate_limited", true);
    cr_assert(strstr(str(a.json, "detail"), "hints"), "the detail says what: %s",
              str(a.json, "detail"));
    json_decref(a.json);
    send_from("127.0.0.2", "POST", path, t.tokens[0], NULL, &a);
    cr_assert_eq(a.status, 200, "another address's hint");
    json_decref(a.json);
}

/* A hint asked for from `from` in a thread of its own (its status into `status`). */
struct hint_call {
    const char *from, *path, *token;
    int status;
};

static void *hint_main(void *arg)
{
    struct hint_call *h = arg;
    struct suite_answer a;
    suite_send_from(d.base, h->from, "POST", h->path, h->token, NULL, &a);
    h->status = a.status;
    json_decref(a.json);
    return NULL;
}

Test(quota, one_address_holds_at_most_half_of_the_hints_thought_about_at_once)
{
    /* Two hints at once on the instance, so one for an address; each thinks for 600 ms. */
    up_with("--hints-per-game 100 --hint-threads 2 --expert-ms 600");
    struct table t;
    create(&t, 2, 1, NULL);
    char path[512];
    snprintf(path, sizeof path, "/api/v1/games/%s/hint", t.id);
    struct hint_call first = {"127.0.0.3", path, t.tokens[0], 0};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, hint_main, &first), 0);
    harness_sleep_ms(200);
    struct suite_answer a;
    send_from("127.0.0.3", "POST", path, t.tokens[0], NULL, &a);
    cr_assert_eq(a.status, 429, "a second hint of one address while its first is thought about");
    cr_assert_str_eq(str(a.json, "code"), "rate_limited");
    cr_assert_eq(a.retry_after, 1);
    cr_assert(strstr(str(a.json, "detail"), "being thought about"), "%s", str(a.json, "detail"));
    json_decref(a.json);
    send_from("127.0.0.2", "POST", path, t.tokens[0], NULL, &a);
    cr_assert_eq(a.status, 200, "another address's hint meanwhile");
    json_decref(a.json);
    pthread_join(th, NULL);
    cr_assert_eq(first.status, 200, "the first hint");
}

/* Waits up to `seconds` for `sql` to count `want`. */
static void wait_count(const char *sql, long long want, double seconds)
{
    double until = harness_now() + seconds;
    long long got;
    while ((got = sql_long(sql)) != want && harness_now() < until)
        harness_sleep_ms(200);
    cr_assert_eq(got, want, "%s: %lld, wanted %lld", sql, got, want);
}

Test(quota, an_open_game_expires_leaves_the_lobby_and_refuses_joins_with_409)
{
    up_with("--open-ttl 2");
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"name\": \"Host\"}", 201);
    char id[64], token[80];
    snprintf(id, sizeof id, "%s", str(g, "id"));
    snprintf(token, sizeof token, "%s", str(g, "token"));
    json_decref(g);
    cr_assert(in_lobby(id));
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM games WHERE id = '%s' AND status = 'expired'",
             id);
    wait_count(sql, 1, 30);
    counts[K_EXPIRED]++;
    char path[512];
    snprintf(path, sizeof path, "/api/v1/games/%s", id);
    json_t *v = call("GET", path, NULL, NULL, 200);
    cr_assert_str_eq(str(v, "status"), "expired");
    json_decref(v);
    cr_assert_not(in_lobby(id), "an expired game leaves the lobby");
    snprintf(path, sizeof path, "/api/v1/games/%s/join", id);
    struct suite_answer a;
    send_from("127.0.0.1", "POST", path, NULL, "{\"name\": \"Late\"}", &a);
    cr_assert_eq(a.status, 409);
    cr_assert_str_eq(a.content_type, "application/problem+json");
    cr_assert_str_eq(str(a.json, "code"), "game_expired");
    json_decref(a.json);
    snprintf(path, sizeof path, "/api/v1/games/%s/orders", id);
    send_from("127.0.0.1", "POST", path, token,
              "{\"round\": 1, \"step\": \"build\", \"survey\": true}", &a);
    cr_assert_eq(a.status, 409);
    cr_assert_str_eq(str(a.json, "code"), "game_expired");
    json_decref(a.json);
    snprintf(path, sizeof path, "/api/v1/games/%s/events?after=0", id);
    json_t *e = call("GET", path, NULL, NULL, 200);
    json_t *events = json_object_get(e, "events");
    json_t *lastev = json_array_get(events, json_array_size(events) - 1);
    cr_assert_str_eq(str(lastev, "type"), "expired", "the log says the game expired");
    json_decref(e);
    cr_assert_eq(metric_at(d.base, "city_games{status=\"expired\"}"), 1);
    cr_assert_eq(metric_at(d.base, "city_games{status=\"open\"}"), 0);
}

Test(quota, a_full_batch_of_expiring_games_expires_in_one_sweep)
{
    /* The sweeper expires up to 32 open games a transaction, each with its NOTIFY, and one more
     * for the lobby: a transaction may send that many (it once allowed 32 in all, so a full
     * batch failed at every sweep and no open game expired again). */
    up_with("--open-ttl 3600 --lobby-per-address 0");
    for (int i = 0; i < 40; i++)
        json_decref(call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"name\": \"Host\"}", 201));
    /* All forty past their time at once: the next sweep takes a full batch. */
    sql_long("WITH u AS (UPDATE games SET created_at = now() - interval '2 hours' RETURNING 1) "
             "SELECT count(*) FROM u");
    wait_count("SELECT count(*) FROM games WHERE status = 'expired'", 40, 30);
    counts[K_EXPIRED] += 40;
}

Test(quota, finished_and_expired_games_are_deleted_with_all_their_rows_after_the_retention)
{
    up_with("--open-ttl 1 --retention 5");
    struct table t;
    create(&t, 2, 1, NULL);
    play_to_end(&t);
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"name\": \"Alone\"}", 201);
    char lonely[64];
    snprintf(lonely, sizeof lonely, "%s", str(g, "id"));
    json_decref(g);
    static const char *const tables[] = {"games", "seats", "orders", "decisions", "events"};
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM decisions WHERE game_id = '%s'", t.id);
    cr_assert_gt(sql_long(sql), 0, "a finished game has rows to delete");
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE %s IN ('%s', '%s')", tables[i],
                 strcmp(tables[i], "games") ? "game_id" : "id", t.id, lonely);
        wait_count(sql, 0, 40);
    }
    counts[K_DELETED] += 2;
    char path[512];
    snprintf(path, sizeof path, "/api/v1/games/%s", t.id);
    json_decref(call("GET", path, NULL, NULL, 404));
    cr_assert_eq(metric_at(d.base, "city_games{status=\"finished\"}"), 0);
    cr_assert_eq(metric_at(d.base, "city_games{status=\"expired\"}"), 0);
    cr_assert_geq(metric_at(d.base, "city_sweeper_deleted_games_total"), 2);
}

/* ---- idle started games ------------------------------------------------------------------ */

/* True when the daemon's log holds `needle`. */
static bool log_has(const char *needle)
{
    FILE *f = fopen(d.log, "rb");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

Test(quota, a_started_game_nobody_moves_is_abandoned_while_a_game_being_played_is_not)
{
    up_with("--idle-game-seconds 2");
    struct table idle, busy;
    create(&idle, 2, 1, NULL);                   /* a person and a bot, no clock: nobody moves it */
    create(&busy, 2, 1, ", \"target_vp\": 500"); /* long enough to outlast the test */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM games WHERE id = '%s' AND status = 'abandoned'",
             idle.id);
    double until = harness_now() + 30;
    int steps = 0;
    while (sql_long(sql) == 0 && harness_now() < until) {
        cr_assert(play_step(&busy), "the game being played goes on");
        steps++;
        harness_sleep_ms(300);
    }
    cr_assert_eq(sql_long(sql), 1, "the idle game was abandoned within 30 s");
    /* Played on for another two idle limits: the busy game is never touched. */
    for (double end = harness_now() + 5; harness_now() < end && play_step(&busy); steps++)
        harness_sleep_ms(300);
    json_t *v = view(&busy);
    cr_assert(strcmp(str(v, "status"), "playing") == 0 || strcmp(str(v, "status"), "finished") == 0,
              "the game being played is %s after %d steps", str(v, "status"), steps);
    json_decref(v);
    /* The abandoned game: ended in its view, its hand and its log; its rows are kept. */
    v = view(&idle);
    cr_assert_str_eq(str(v, "status"), "abandoned");
    json_decref(v);
    json_t *h = hand(&idle, 0);
    cr_assert(json_is_null(json_object_get(h, "pending")), "nothing to decide any more");
    char *order = choose_order(h);
    json_decref(h);
    char path[512];
    snprintf(path, sizeof path, "/api/v1/games/%s/events?after=0", idle.id);
    json_t *e = call("GET", path, NULL, NULL, 200);
    json_t *events = json_object_get(e, "events");
    json_t *lastev = json_array_get(events, json_array_size(events) - 1);
    cr_assert_str_eq(str(lastev, "type"), "abandoned", "the log says the game was abandoned");
    cr_assert_eq(num(lastev, "idle_seconds"), 2);
    json_decref(e);
    if (order) {
        snprintf(path, sizeof path, "/api/v1/games/%s/orders", idle.id);
        struct suite_answer a;
        send_from("127.0.0.1", "POST", path, idle.tokens[0], order, &a);
        cr_assert_eq(a.status, 409, "an order on an abandoned game");
        cr_assert_str_eq(str(a.json, "code"), "game_over");
        json_decref(a.json);
        free(order);
    }
    snprintf(sql, sizeof sql, "SELECT count(*) FROM seats WHERE game_id = '%s'", idle.id);
    cr_assert_eq(sql_long(sql), 2, "its rows are kept until the retention");
    /* Its people are told in the daemon's log: one line naming the game and its seats. */
    char line[256];
    snprintf(line, sizeof line, "game %s abandoned", idle.id);
    cr_assert(log_has(line), "the log names the abandoned game");
    cr_assert(log_has("0:Player 1 1:"), "the log line names its seats");
    snprintf(line, sizeof line, "game %s abandoned", busy.id);
    cr_assert_not(log_has(line));
    cr_assert_eq(metric_at(d.base, "city_sweeper_abandoned_games_total"), 1);
    cr_assert_eq(metric_at(d.base, "city_games{status=\"abandoned\"}"), 1);
}

/* ---- the sweeper at scale ----------------------------------------------------------------- */

Test(quota, two_daemons_force_every_overdue_step_of_2000_timed_games_exactly_once)
{
    enum { GAMES = 2000 };
    up_with("");
    /* One real timed game, copied 1,999 times by SQL (the API's limits would only slow this
     * down); the copies' human seats have no token, which the sweeper never needs. */
    struct table t;
    create(&t, 2, 1, ", \"turn_seconds\": 3600");
    char sql[2048];
    snprintf(sql, sizeof sql,
             "WITH src AS (SELECT * FROM games WHERE id = '%s'), "
             "ids AS (SELECT substr(md5('copy' || i), 1, 16) AS id FROM generate_series(1, %d) i), "
             "g AS (INSERT INTO games (id, game, status, players, options, turn_seconds, "
             "deadline, host_hash, version, steps_resolved, ndecisions, last_seq, state) "
             "SELECT ids.id, src.game, src.status, src.players, src.options, src.turn_seconds, "
             "src.deadline, src.host_hash, src.version, src.steps_resolved, src.ndecisions, "
             "src.last_seq, src.state FROM src, ids RETURNING id) "
             "INSERT INTO seats (game_id, seat, name, bot, token_hash, joined_at) "
             "SELECT g.id, s.seat, s.name, s.bot, NULL, s.joined_at FROM g, seats s "
             "WHERE s.game_id = '%s'",
             t.id, GAMES - 1, t.id);
    sql_long(sql);
    sql_long("ANALYZE games");
    struct daemon d2;
    daemon_start(&d2, db, "--create-rate 0 --join-rate 0");
    /* Every deadline passes at once. */
    sql_long("UPDATE games SET deadline = now() - interval '1 second' WHERE status = 'playing'");
    wait_count("SELECT count(*) FROM games WHERE status = 'playing' AND deadline < now()", 0, 150);
    cr_assert_eq(sql_long("SELECT count(*) FROM games WHERE steps_resolved = 0"), 0);
    double forced = metric_at(d.base, "city_sweeper_lateness_seconds_count") +
                    metric_at(d2.base, "city_sweeper_lateness_seconds_count");
    cr_assert_eq((long long)forced, GAMES, "each game forced once by one of the two daemons");
    cr_assert_geq(metric_at(d.base, "city_sweeper_last_lateness_seconds"), 0, "exported");
    counts[K_FORCED] += GAMES;
    counts[K_REQUESTS]++;
    daemon_stop(&d2);
}
