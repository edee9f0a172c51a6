/* test_svc_api.c: the service through real HTTP on loopback against a real PostgreSQL: whole
 * games (one person and bots, five people), every error status, privacy of hands, races of
 * simultaneous orders on one and on two daemons, restarts of the daemon and the database,
 * Server-Sent Events, time limits, replays, and names (refused ones, the lobby's bot flags). */
#include "client.h"

#include <pthread.h>
#include <stdatomic.h>

static struct daemon d;
static char db[512];

static void up(void)
{
    db_create(db, sizeof db);
    daemon_start(&d, db, "--allow-seed");
    client_base = d.base;
}

static void down(void)
{
    daemon_stop(&d);
}

TestSuite(api, .init = up, .fini = down, .timeout = 240);

/* ---- a client written from the API table ------------------------------------------------- */

/* Problem replies: status, content type and code. */
static void expect_problem(const char *method, const char *path, const char *token,
                           const char *body, long status, const char *code)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", d.base, path);
    struct http_reply r;
    cr_assert(http_do(method, url, token, body, &r));
    cr_expect_eq(r.status, status, "%s %s -> %ld, wanted %ld: %s", method, path, r.status, status,
                 r.body);
    cr_expect_str_eq(r.content_type, "application/problem+json");
    cr_assert_not_null(r.json, "problem body is not JSON: %s", r.body);
    cr_expect_str_eq(json_string_value(json_object_get(r.json, "code")), code, "%s", r.body);
    cr_expect_eq(json_integer_value(json_object_get(r.json, "status")), status);
    const char *detail = json_string_value(json_object_get(r.json, "detail"));
    cr_expect(detail && strlen(detail) > 10, "a problem needs a sentence: %s", r.body);
    http_reply_free(&r);
}

/* The replay reproduces the final public state with `cityd replay`. */
static void check_replay(const struct table *t)
{
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/replay", t->id);
    json_t *rep = call("GET", path, NULL, NULL, 200);
    char file[] = "/tmp/city-replay-XXXXXX";
    int fd = mkstemp(file);
    cr_assert(fd >= 0);
    close(fd);
    json_dump_file(rep, file, 0);
    json_decref(rep);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "'%s' replay %s --cards '%s/cards/cards.json'",
             harness_env("CITYD", "build/cityd"), file, harness_env("CITY_ROOT", "."));
    FILE *p = popen(cmd, "r");
    json_error_t err;
    json_t *out = json_loadf(p, 0, &err);
    pclose(p);
    unlink(file);
    cr_assert_not_null(out, "replay printed no JSON: %s", err.text);
    json_t *v = view(t);
    cr_expect(json_equal(json_object_get(out, "winners"), json_object_get(v, "winners")),
              "the replay's winners differ from the game's");
    cr_expect_eq(num(out, "round"), num(v, "round"));
    for (size_t s = 0; s < json_array_size(json_object_get(v, "seats")); s++) {
        json_t *a = json_array_get(json_object_get(out, "seats"), s);
        json_t *b = json_array_get(json_object_get(v, "seats"), s);
        cr_expect_eq(num(a, "vp"), num(b, "vp"), "seat %zu", s);
        cr_expect(json_equal(json_object_get(a, "tableau"), json_object_get(b, "tableau")));
        cr_expect_eq(num(a, "hand_count"), num(b, "hand_count"));
    }
    /* The replay viewer's rounds: in order, and the last one is the game as it ended. */
    snprintf(path, sizeof path, "/api/v1/games/%s/replay/rounds", t->id);
    json_t *rr = call("GET", path, NULL, NULL, 200);
    json_t *rounds = json_object_get(rr, "rounds");
    size_t n = json_array_size(rounds);
    cr_assert_geq(n, 2);
    cr_expect_str_eq(json_string_value(json_object_get(rr, "game")), "the_city");
    cr_expect_eq(json_array_size(json_object_get(rr, "seats")),
                 json_array_size(json_object_get(v, "seats")));
    for (size_t i = 1; i < n; i++)
        cr_expect_gt(num(json_array_get(rounds, i), "round"),
                     num(json_array_get(rounds, i - 1), "round"));
    json_t *last = json_object_get(json_array_get(rounds, n - 1), "view");
    cr_expect_eq(num(json_array_get(rounds, n - 1), "round"), num(v, "round"));
    for (size_t s = 0; s < json_array_size(json_object_get(v, "seats")); s++) {
        json_t *a = json_array_get(json_object_get(last, "seats"), s);
        json_t *b = json_array_get(json_object_get(v, "seats"), s);
        cr_expect_eq(num(a, "vp"), num(b, "vp"), "rounds: seat %zu", s);
        cr_expect(json_equal(json_object_get(a, "tableau"), json_object_get(b, "tableau")));
    }
    json_decref(rr);
    json_decref(out);
    json_decref(v);
}

Test(api, one_person_and_bots_play_whole_games_for_2_to_5_seats)
{
    for (int seats = 2; seats <= 5; seats++) {
        struct table t;
        create(&t, seats, seats - 1, NULL);
        play_to_end(&t);
        check_log(&t);
        check_replay(&t);
    }
}

Test(api, five_people_play_a_whole_game)
{
    struct table t;
    create(&t, 5, 0, ", \"seed\": 12345");
    play_to_end(&t);
    check_log(&t);
    check_replay(&t);
}

/* ---- errors ------------------------------------------------------------------------------- */

Test(api, every_error_is_a_problem_with_a_code)
{
    struct table t, other;
    create(&t, 3, 1, NULL);
    create(&other, 2, 1, NULL);
    char p[256];
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": 3,", 400, "malformed_json");
    expect_problem("POST", "/api/v1/games", NULL, "[1,2]", 400, "not_an_object");
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"colour\": 1}", 400,
                   "unknown_field");
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": \"three\"}", 400, "wrong_type");
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": 9}", 400, "bad_value");
    expect_problem("POST", "/api/v1/games", NULL, "{}", 400, "missing_field");
    expect_problem("POST", "/api/v1/games", NULL,
                   "{\"seats\": 2, \"bots\": [\"greedy\", "
                   "\"greedy\"]}",
                   400, "bad_value");
    snprintf(p, sizeof p, "/api/v1/games/%s/hand", t.id);
    expect_problem("GET", p, NULL, NULL, 401, "token_required");
    expect_problem("GET", p, "00112233", NULL, 401, "bad_token");
    expect_problem("GET", p, other.tokens[0], NULL, 403, "wrong_game");
    expect_problem("GET", p, t.host, NULL, 403, "not_a_seat_token");
    expect_problem("GET", "/api/v1/nothing", NULL, NULL, 404, "not_found");
    expect_problem("GET", "/api/v1/games/doesnotexist", NULL, NULL, 404, "game_not_found");
    snprintf(p, sizeof p, "/api/v1/games/%s", t.id);
    expect_problem("DELETE", p, NULL, NULL, 405, "method_not_allowed");
    snprintf(p, sizeof p, "/api/v1/games/%s/join", t.id);
    expect_problem("POST", p, NULL, "{\"name\": \"Late\"}", 409, "game_full");
    expect_problem("POST", p, NULL, "{\"name\": \"\"}", 400, "bad_value");
    snprintf(p, sizeof p, "/api/v1/games/%s/orders", t.id);
    expect_problem("POST", p, t.tokens[0], "{\"round\": 3, \"step\": \"build\", \"survey\": true}",
                   409, "stale_step");
    expect_problem("POST", p, t.tokens[0], "{\"round\": 0, \"step\": \"keep\", \"discard\": [200]}",
                   400, "bad_value");
    /* Cards that are not in this hand: 422 with the engine's reason. */
    json_t *h = hand(&t, 0), *h1 = hand(&t, 1);
    long long mine = num(json_array_get(json_object_get(h, "hand"), 0), "id");
    long long theirs = num(json_array_get(json_object_get(h1, "hand"), 0), "id");
    char body[200];
    snprintf(body, sizeof body, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}",
             mine, theirs);
    expect_problem("POST", p, t.tokens[0], body, 422, "not_in_hand");
    snprintf(body, sizeof body, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld]}", mine);
    expect_problem("POST", p, t.tokens[0], body, 422, "discard_count");
    snprintf(body, sizeof body, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}",
             mine, mine);
    expect_problem("POST", p, t.tokens[0], body, 422, "duplicate_card");
    expect_problem("POST", p, t.tokens[0], "{\"round\": 0, \"step\": \"keep\", \"survey\": true}",
                   422, "wrong_decision");
    json_decref(h);
    json_decref(h1);
    snprintf(p, sizeof p, "/api/v1/games/%s/replay", t.id);
    expect_problem("GET", p, NULL, NULL, 409, "game_not_finished");
    snprintf(p, sizeof p, "/api/v1/games/%s/replay/rounds", t.id);
    expect_problem("GET", p, NULL, NULL, 409, "game_not_finished");
    snprintf(p, sizeof p, "/api/v1/games/%s/resolve", t.id);
    expect_problem("POST", p, t.tokens[0], "{\"round\": 0, \"step\": \"keep\"}", 409,
                   "not_overdue");
    snprintf(p, sizeof p, "/api/v1/games/%s/events?after=-1", t.id);
    expect_problem("GET", p, NULL, NULL, 400, "bad_query");
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"name\": \"\\u0007\"}", 400,
                   "bad_value");
    /* 413: a body over 64 KiB. */
    size_t big = 100 * 1024;
    char *huge = malloc(big + 1);
    memset(huge, ' ', big);
    huge[big] = 0;
    huge[0] = '{';
    huge[big - 1] = '}';
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games", d.base);
    struct http_reply r;
    cr_assert(http_raw("POST", url, NULL, "application/json", huge, big, &r));
    cr_expect_eq(r.status, 413);
    cr_expect_str_eq(str(r.json, "code"), "body_too_large");
    http_reply_free(&r);
    free(huge);
    /* Nothing above changed the game: it is still in keep, nobody human has submitted. */
    json_t *v = view(&t);
    cr_expect_str_eq(str(v, "step"), "keep");
    cr_expect(json_is_false(
        json_object_get(json_array_get(json_object_get(v, "seats"), 0), "submitted")));
    json_decref(v);
}

Test(api, a_host_without_a_seat_cannot_order_but_can_force_a_step)
{
    struct table t;
    create(&t, 3, 1, NULL);
    char p[160];
    snprintf(p, sizeof p, "/api/v1/games/%s/resolve", t.id);
    json_t *v = call("POST", p, t.host, "{\"round\": 0, \"step\": \"keep\"}", 200);
    cr_expect_str_eq(str(v, "step"), "build");
    cr_expect_eq(num(v, "round"), 1);
    json_decref(v);
    snprintf(p, sizeof p, "/api/v1/games/%s/events", t.id);
    json_t *e = call("GET", p, NULL, NULL, 200);
    int defaults = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(e, "events"), i, ev) defaults +=
        strcmp(str(ev, "type"), "default") == 0;
    cr_expect_eq(defaults, 2, "both people got a default keep");
    json_decref(e);
}

/* ---- privacy ------------------------------------------------------------------------------ */

/* True when `text` holds {"id":N, ... as a hand entry would. */
static bool mentions_instance(const char *text, long long id)
{
    char needle[32];
    snprintf(needle, sizeof needle, "{\"id\":%lld,", id);
    return strstr(text, needle) != NULL;
}

Test(api, no_response_shows_another_seats_hand)
{
    struct table t;
    create(&t, 3, 0, NULL);
    for (int step = 0; step < 60; step++) {
        /* Everything seat 0 can read must not contain seat 1's or 2's hand entries. */
        json_t *h1 = hand(&t, 1), *h2 = hand(&t, 2), *h0 = hand(&t, 0);
        char p[200];
        const char *paths[] = {"", "/events", "/hand"};
        for (int k = 0; k < 3; k++) {
            snprintf(p, sizeof p, "%s/api/v1/games/%s%s", d.base, t.id, paths[k]);
            struct http_reply r;
            cr_assert(http_do("GET", p, t.tokens[0], NULL, &r));
            cr_assert_eq(r.status, 200);
            /* The hand view's suggestion is an order body of the seat's own: its "discard"
             * names the seat's own hand cards, not the discard pile. */
            json_t *body = json_loads(r.body, 0, NULL);
            cr_assert(body);
            json_object_del(json_object_get(body, "pending"), "suggestion");
            char *text = json_dumps(body, JSON_COMPACT);
            cr_expect(strstr(text, "\"deck\"") == NULL && strstr(text, "\"discard\":[") == NULL);
            free(text);
            json_decref(body);
            for (int o = 1; o <= 2; o++) {
                json_t *oh = json_object_get(o == 1 ? h1 : h2, "hand");
                size_t i;
                json_t *c;
                json_array_foreach(oh, i, c)
                {
                    cr_expect(!mentions_instance(r.body, num(c, "id")),
                              "%s shows seat %d's card %lld", paths[k], o, num(c, "id"));
                }
            }
            if (k == 0)
                cr_expect(strstr(r.body, "\"hand\"") == NULL, "the public view has a hand");
            http_reply_free(&r);
        }
        json_decref(h0);
        json_decref(h1);
        json_decref(h2);
        if (!play_step(&t))
            break;
    }
}

/* ---- races -------------------------------------------------------------------------------- */

struct racer {
    const struct table *t;
    const char *base;
    int seat;
    char *order;
    long status;
    pthread_barrier_t *go;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    char url[512];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/orders", r->base, r->t->id);
    pthread_barrier_wait(r->go);
    struct http_reply rep;
    r->status = http_do("POST", url, r->t->tokens[r->seat], r->order, &rep) ? rep.status : 0;
    http_reply_free(&rep);
    return NULL;
}

/* Every seat submits at the same instant, through `bases` in turn; repeated until the end. */
static void race_game(const char *const *bases, int nbases)
{
    struct table t;
    create(&t, 4, 0, NULL);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT last_seq FROM games WHERE id = '%s'", t.id);
    for (int step = 0; step < 300; step++) {
        /* The step may have resolved on the other daemon: the hands are read once this one's
         * caches have heard of it (they hear by NOTIFY, a moment after the commit), or the
         * orders would answer the step before and be refused as stale. */
        json_t *v = view(&t);
        for (int k = 0; k < 100 && num(v, "last_seq") < db_num(db, sql); k++) {
            json_decref(v);
            harness_sleep_ms(20);
            v = view(&t);
        }
        bool over = strcmp(str(v, "status"), "finished") == 0;
        json_decref(v);
        if (over)
            break;
        struct racer rs[4];
        pthread_t th[4];
        pthread_barrier_t go;
        int n = 0;
        for (int s = 0; s < 4; s++) {
            json_t *h = hand(&t, s);
            char *o = choose_order(h);
            json_decref(h);
            if (o)
                rs[n++] = (struct racer){&t, bases[s % nbases], s, o, 0, NULL};
        }
        pthread_barrier_init(&go, NULL, (unsigned)n);
        for (int i = 0; i < n; i++) {
            rs[i].go = &go;
            pthread_create(&th[i], NULL, race, &rs[i]);
        }
        for (int i = 0; i < n; i++) {
            pthread_join(th[i], NULL);
            cr_expect_eq(rs[i].status, 202, "seat %d's simultaneous order got %ld", rs[i].seat,
                         rs[i].status);
            free(rs[i].order);
        }
        pthread_barrier_destroy(&go);
    }
    json_t *v = view(&t);
    cr_assert_str_eq(str(v, "status"), "finished");
    json_decref(v);
    check_log(&t);
    check_replay(&t);
}

Test(api, simultaneous_orders_resolve_each_step_exactly_once)
{
    const char *bases[] = {d.base};
    race_game(bases, 1);
}

Test(api, two_daemons_on_one_database_resolve_each_step_exactly_once)
{
    struct daemon d2;
    daemon_start(&d2, db, NULL);
    const char *bases[] = {d.base, d2.base};
    race_game(bases, 2);
    daemon_stop(&d2);
}

/* ---- restarts ----------------------------------------------------------------------------- */

Test(api, a_restarted_daemon_goes_on_with_the_game_unchanged)
{
    struct table t;
    create(&t, 3, 1, NULL);
    for (int i = 0; i < 4; i++)
        play_step(&t);
    json_t *before = view(&t);
    daemon_kill(&d);
    daemon_start(&d, db, NULL);
    json_t *after = view(&t);
    cr_expect(json_equal(before, after), "the game changed across a restart");
    json_decref(before);
    json_decref(after);
    play_to_end(&t);
    check_log(&t);
}

Test(api, the_daemon_answers_503_while_the_database_is_down_and_recovers)
{
    struct table t;
    create(&t, 2, 1, NULL);
    pg_stop_now();
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s", d.base, t.id);
    struct http_reply r;
    cr_assert(http_do("GET", url, NULL, NULL, &r));
    cr_expect_eq(r.status, 503, "%s", r.body);
    cr_expect_str_eq(str(r.json, "code"), "database_unavailable");
    http_reply_free(&r);
    snprintf(url, sizeof url, "%s/healthz", d.base);
    cr_assert(http_do("GET", url, NULL, NULL, &r));
    cr_expect_eq(r.status, 503);
    http_reply_free(&r);
    pg_start_again();
    long status = 0;
    for (int i = 0; i < 100 && status != 200; i++) {
        snprintf(url, sizeof url, "%s/api/v1/games/%s", d.base, t.id);
        if (http_do("GET", url, NULL, NULL, &r))
            status = r.status;
        http_reply_free(&r);
        if (status != 200)
            harness_sleep_ms(100);
    }
    cr_expect_eq(status, 200, "the daemon did not reconnect");
    play_to_end(&t);
}

/* ---- live updates and time limits -------------------------------------------------------- */

Test(api, the_stream_sends_the_log_and_resumes_after_last_event_id)
{
    struct table t;
    create(&t, 2, 1, NULL);
    play_step(&t);
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/stream", d.base, t.id);
    struct http_request rq = {.method = "GET", .url = url, .timeout_ms = 1500};
    struct http_reply r;
    http_request(&rq, &r);
    cr_expect_eq(r.status, 200);
    cr_expect_str_eq(r.content_type, "text/event-stream");
    cr_expect(strstr(r.body, "id: 1\n") && strstr(r.body, "event: created"), "%s", r.body);
    http_reply_free(&r);
    const char *hdr[] = {"Last-Event-ID: 3", NULL};
    rq.headers = hdr;
    http_request(&rq, &r);
    cr_expect(strstr(r.body, "id: 1\n") == NULL && strstr(r.body, "id: 4\n") != NULL, "%s", r.body);
    http_reply_free(&r);
}

/* A reader of /events polls while the game moves on: every page must be one snapshot. */
struct poller {
    const struct table *t;
    atomic_bool stop;
    atomic_int pages; /* pages read */
    int behind;       /* pages naming a seq past their own last_seq */
    char example[200];
};

static void *poll_events(void *arg)
{
    struct poller *p = arg;
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/events?after=0", d.base, p->t->id);
    while (!p->stop) {
        struct http_reply r;
        if (!http_do("GET", url, NULL, NULL, &r))
            continue;
        json_t *events = json_object_get(r.json, "events");
        long long last = json_integer_value(json_object_get(r.json, "last_seq"));
        json_t *newest = json_array_get(events, json_array_size(events) - 1);
        long long top = newest ? json_integer_value(json_object_get(newest, "seq")) : 0;
        if (r.status == 200 && top > last && p->behind++ == 0)
            snprintf(p->example, sizeof p->example, "last_seq %lld with seq %lld in the page", last,
                     top);
        p->pages += r.status == 200;
        http_reply_free(&r);
    }
    return NULL;
}

Test(api, an_events_page_is_one_snapshot_so_last_seq_is_never_behind_its_events)
{
    struct table t;
    create(&t, 4, 0, NULL);
    struct poller ps[2] = {{.t = &t}, {.t = &t}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, poll_events, &ps[i]);
    /* Step by step, each step waiting (up to 2 s) until both pollers read a page after it, so
     * that the pages fall while the game moves however loaded the machine is (at load 19 the
     * game once ended before a poller had read 20). */
    for (int k = 0; k < 400 && play_step(&t); k++) {
        int seen[2] = {atomic_load(&ps[0].pages), atomic_load(&ps[1].pages)};
        for (double t0 = harness_now(); harness_now() - t0 < 2;) {
            if (atomic_load(&ps[0].pages) > seen[0] + 1 && atomic_load(&ps[1].pages) > seen[1] + 1)
                break;
            harness_sleep_ms(1);
        }
    }
    json_t *v = view(&t);
    cr_assert_str_eq(str(v, "status"), "finished");
    json_decref(v);
    for (int i = 0; i < 2; i++) {
        ps[i].stop = true;
        pthread_join(th[i], NULL);
        cr_expect_gt(ps[i].pages, 20, "the poller read pages while the game was played");
        cr_expect_eq(ps[i].behind, 0, "%d of %d pages had last_seq behind their events (%s)",
                     ps[i].behind, ps[i].pages, ps[i].example);
    }
}

Test(api, an_overdue_step_resolves_with_defaults)
{
    struct table t;
    create(&t, 2, 1, ", \"turn_seconds\": 5");
    double start = harness_now();
    json_t *v = NULL;
    while (harness_now() - start < 15) {
        json_decref(v);
        v = view(&t);
        if (num(v, "round") >= 1)
            break;
        harness_sleep_ms(250);
    }
    cr_expect_geq(num(v, "round"), 1, "the sweeper did not resolve the overdue keep");
    json_decref(v);
}

/* ---- the public view cache (src/viewcache.c) ---------------------------------------------- */

/* The public view of table t read from `base`. */
static json_t *view_at(const char *base, const struct table *t)
{
    const char *saved = client_base;
    client_base = base;
    json_t *v = view(t);
    client_base = saved;
    return v;
}

/* Sends every human seat's order for the current step through `base`. */
static void play_step_at(const char *base, const struct table *t)
{
    const char *saved = client_base;
    client_base = base;
    play_step(t);
    client_base = saved;
}

Test(api, a_cached_view_shows_a_write_on_the_same_instance_at_once)
{
    struct table t;
    create(&t, 2, 0, NULL);
    for (int i = 0; i < 4; i++) {
        json_t *before = view(&t); /* read twice: the second comes from the cache */
        json_decref(view(&t));
        long long seq = num(before, "last_seq");
        json_decref(before);
        play_step(&t);
        json_t *after = view(&t);
        cr_assert_gt(num(after, "last_seq"), seq, "the view after an order still shows seq %lld",
                     seq);
        json_decref(after);
    }
}

Test(api, a_cached_view_learns_of_a_write_through_another_instance)
{
    struct daemon d2;
    daemon_start(&d2, db, NULL);
    struct table t;
    create(&t, 2, 0, NULL);
    for (int i = 0; i < 4; i++) {
        json_t *cached = view_at(d2.base, &t);
        json_decref(view_at(d2.base, &t));
        long long seq = num(cached, "last_seq");
        json_decref(cached);
        play_step_at(d.base, &t); /* the write goes through the other daemon */
        /* The NOTIFY reaches d2 within milliseconds; allow a generous bound. */
        long long now = seq;
        double until = harness_now() + 5.0;
        while (now == seq && harness_now() < until) {
            json_t *v = view_at(d2.base, &t);
            now = num(v, "last_seq");
            json_decref(v);
            if (now == seq)
                harness_sleep_ms(5);
        }
        cr_assert_gt(now, seq, "instance 2 still serves the view from before the write");
    }
    daemon_stop(&d2);
}

/* ---- the hand cache (service_hand: a seat token's hand, a member of its game's entry) ----- */

static const char hand_hits[] = "city_hand_cache_lookups_total{result=\"hit\"} ";
static const char view_hits[] = "city_view_cache_lookups_total{result=\"hit\"} ";

/* Waits until the view cache of the daemon at `base` is on: it is off until the daemon's
 * listener has connected, which may come after /healthz answers, and a read meanwhile is neither
 * a hit nor a miss and caches nothing. A public view served from the cache says it is on. */
static void wait_cache_on(const char *base, const struct table *t)
{
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s", base, t->id);
    for (int k = 0; k < 200 && metric_at(base, view_hits) < 1; k++) {
        struct http_reply r;
        cr_assert(http_do("GET", url, NULL, NULL, &r));
        http_reply_free(&r);
        if (metric_at(base, view_hits) < 1)
            harness_sleep_ms(10);
    }
    cr_assert_geq(metric_at(base, view_hits), 1, "the view cache of %s never came on", base);
}
static const char hand_misses[] = "city_hand_cache_lookups_total{result=\"miss\"} ";

/* The hand view of table t's seat `seat` read from `base`, as text (200 expected). */
static char *hand_text_at(const char *base, const struct table *t, int seat)
{
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/hand", base, t->id);
    struct http_reply r;
    cr_assert(http_do("GET", url, t->tokens[seat], NULL, &r));
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *text = strdup(r.body);
    http_reply_free(&r);
    return text;
}

/* The hand of t's seat `seat` read at `base` once it is `want`, read again every 20 ms for up to
 * two seconds (another instance's news takes a moment to arrive): the last one read. */
static char *hand_text_when(const char *base, const struct table *t, int seat, const char *want)
{
    char *got = hand_text_at(base, t, seat);
    for (int k = 0; k < 100 && strcmp(got, want) != 0; k++) {
        harness_sleep_ms(20);
        free(got);
        got = hand_text_at(base, t, seat);
    }
    return got;
}

Test(api, a_hand_read_again_comes_from_memory_until_an_order_changes_it)
{
    struct table t;
    create(&t, 2, 0, NULL);
    /* Seat 0 online first: its first sign of life is news that drops the game's cached views,
     * which would make a read on `alone` miss once more when the presence writer's batch
     * lands between two of them. */
    free(hand_text_at(d.base, &t, 0));
    bool online = false;
    for (int k = 0; k < 200 && !online; k++) {
        json_t *v = view(&t);
        const char *p = str(json_array_get(json_object_get(v, "seats"), 0), "presence");
        online = p && strcmp(p, "online") == 0;
        json_decref(v);
        if (!online)
            harness_sleep_ms(10);
    }
    cr_assert(online, "seat 0 came online within two seconds");
    /* Counted on a daemon of its own: the suite's other tests read hands on d meanwhile. */
    struct daemon alone;
    daemon_start(&alone, db, NULL);
    wait_cache_on(alone.base, &t);
    for (int i = 0; i < 3; i++)
        free(hand_text_at(alone.base, &t, 0));
    cr_expect_eq(metric_at(alone.base, hand_misses), 1, "the first read is the database's");
    cr_expect_eq(metric_at(alone.base, hand_hits), 2, "the next two are the cache's");
    daemon_stop(&alone);
    for (int i = 0; i < 3; i++) {
        char *first = hand_text_at(d.base, &t, 0), *again = hand_text_at(d.base, &t, 0);
        cr_expect_str_eq(again, first, "the cached hand differs from the one read");
        play_step(&t); /* reads both hands (seat 1's once, from the database) and orders */
        char *after = hand_text_at(d.base, &t, 0);
        cr_expect_str_neq(after, first, "step %d: the hand after an order is the one before", i);
        free(first);
        free(again);
        free(after);
    }
}

static const char state_hits[] = "city_state_cache_lookups_total{result=\"hit\"} ";
static const char loads_without_db[] = "city_game_loads_without_database_total ";

/* In a game of `extra` (a create body's tail naming the game), `steps` times: seat 0 orders on
 * a daemon of its own, reads its hand there (from memory: a state-cache hit) and the same hand
 * from d, which parses the stored state; the two must be the same text. */
static void state_from_memory_is_the_stored_one(const char *extra, int steps)
{
    /* On a daemon of its own, so that no other test's reads move its counters. */
    struct daemon alone;
    daemon_start(&alone, db, NULL);
    const char *shared = client_base;
    client_base = alone.base;
    struct table t;
    create(&t, 2, 1, extra); /* seat 1 is a greedy bot: it decides in the order's transaction */
    wait_cache_on(alone.base, &t);
    int played = 0;
    double no_db = metric_at(alone.base, loads_without_db);
    for (int i = 0; i < steps && send_suggested_order(&t, 0); i++, played++) {
        /* The order changed the hand, so it is read from the database again; its state is the
         * one this instance just committed, which the database then does not send. */
        double before = metric_at(alone.base, state_hits);
        char *mine = hand_text_at(alone.base, &t, 0);
        cr_expect_eq(metric_at(alone.base, state_hits), before + 1,
                     "step %d: the hand read after the order parsed the stored state", i);
        /* The same hand as another daemon reads it, parsing the stored state (once its own
         * cache has heard of the order). */
        char *parsed = hand_text_when(d.base, &t, 0, mine);
        cr_expect_str_eq(mine, parsed, "step %d: the hand from memory is not the stored one", i);
        free(mine);
        free(parsed);
    }
    /* The read after each order had no news of the game but this instance's own order (whose
     * echo is skipped): it needed no database round trip at all (the read before the next
     * order is the hand cache's). A step or two may miss: the seat's first sign of life is news
     * of the game's presence, which may come during a commit (CI: 9 of 10 under the sanitizer).
     * Such news also drops the hand cache, so the read that fetches the next suggestion can come
     * from memory as well (CI: 12 in 11 steps): at most every read on `alone` is one, two a step
     * and the last suggestion's read, which found none. */
    double without = metric_at(alone.base, loads_without_db) - no_db;
    cr_expect(played >= steps / 2 && without >= played - 2 && without <= 2 * played + 1,
              "%d steps played, %.0f hands read without the database", played, without);
    client_base = shared;
    daemon_stop(&alone);
}

Test(api, a_hand_read_after_this_instances_order_takes_the_state_from_memory)
{
    state_from_memory_is_the_stored_one(NULL, 12);
}

Test(api, a_tech_city_hand_from_memory_is_the_stored_one)
{
    state_from_memory_is_the_stored_one(", \"game\": \"tech_city\"", 12);
}

Test(api, a_simcity_hand_from_memory_is_the_stored_one)
{
    state_from_memory_is_the_stored_one(", \"game\": \"simcity\"", 12);
}

/* Waits until the first `seats` seats of t show "online" in the view read at client_base: a
 * seat's first sign of life is news of the game (its presence), which keeps a writer from
 * noting its change as the game's last one when it comes during the writer's commit. */
static void wait_online(const struct table *t, int seats)
{
    bool online = false;
    for (int k = 0; k < 200 && !online; k++) {
        json_t *v = view(t);
        online = true;
        for (int s = 0; s < seats; s++) {
            const char *p = str(json_array_get(json_object_get(v, "seats"), (size_t)s), "presence");
            online = online && p && strcmp(p, "online") == 0;
        }
        json_decref(v);
        if (!online)
            harness_sleep_ms(10);
    }
    cr_assert(online, "the seats came online within two seconds");
}

/* A hand this instance serves from memory (it committed the game's last change) is the
 * database's again as soon as another instance's change is heard of: the other instance's
 * notification is news here, not the echo of a change of this one. */
Test(api, a_hand_from_memory_gives_way_to_another_instances_change)
{
    struct daemon a;
    daemon_start(&a, db, NULL);
    const char *shared = client_base;
    struct table t;
    client_base = a.base;
    create(&t, 2, 0, NULL);
    wait_cache_on(a.base, &t);
    free(hand_text_at(a.base, &t, 0));
    free(hand_text_at(d.base, &t, 1));
    wait_online(&t, 2);
    int steps = 4, from_memory = 0;
    for (int step = 0; step < steps; step++) {
        client_base = a.base;
        cr_assert(send_suggested_order(&t, 0), "step %d: seat 0 has a decision", step);
        double no_db = metric_at(a.base, loads_without_db);
        char *before = hand_text_at(a.base, &t, 0);
        from_memory += metric_at(a.base, loads_without_db) > no_db;
        client_base = d.base; /* seat 1 orders on the other instance: the step resolves there */
        cr_assert(send_suggested_order(&t, 1), "step %d: seat 1 has a decision", step);
        char *stored = hand_text_at(d.base, &t, 0), *mine = hand_text_when(a.base, &t, 0, stored);
        cr_expect_str_neq(stored, before, "step %d: the step changed seat 0's hand", step);
        cr_expect_str_eq(mine, stored,
                         "step %d: a still serves the hand from before the other "
                         "instance's change",
                         step);
        free(before);
        free(stored);
        free(mine);
    }
    /* Presence news from d may still come during one of a's commits. */
    cr_expect_geq(from_memory, steps - 1,
                  "only %d of %d hands read on a right after its own order came from memory",
                  from_memory, steps);
    client_base = shared;
    daemon_stop(&a);
}

/* No hand of t for anyone but its seats, at `base`: the host's token, an unknown one, none, and
 * another game's seat token are each refused with their problem. */
static void no_hand_for_others(const char *base, const struct table *t)
{
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", t->id);
    call_problem(base, "GET", path, t->host, NULL, 403, "not_a_seat_token");
    call_problem(base, "GET", path,
                 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", NULL, 401,
                 "bad_token");
    call_problem(base, "GET", path, NULL, NULL, 401, "token_required");
    struct table other;
    create(&other, 2, 0, NULL);
    call_problem(base, "GET", path, other.tokens[0], NULL, 403, "wrong_game");
}

/* The hands served from memory go each to its own seat's token, as those read from the
 * database: each seat reads its own (the same text as another instance reads in the database),
 * and the host's token, an unknown one and another game's are refused. */
Test(api, a_hand_from_memory_goes_to_its_own_token_only)
{
    struct daemon a;
    daemon_start(&a, db, NULL);
    const char *shared = client_base;
    client_base = a.base;
    struct table t;
    create(&t, 3, 0, NULL);
    wait_cache_on(a.base, &t);
    for (int s = 0; s < 3; s++)
        free(hand_text_at(a.base, &t, s));
    wait_online(&t, 3);
    play_step(&t); /* on a: its last order's save is the game's last change */
    double no_db = metric_at(a.base, loads_without_db);
    char *mine[3];
    for (int s = 0; s < 3; s++)
        mine[s] = hand_text_at(a.base, &t, s);
    cr_expect_gt(metric_at(a.base, loads_without_db), no_db, "no hand came from memory");
    for (int s = 0; s < 3; s++) {
        char *stored = hand_text_at(d.base, &t, s);
        cr_expect_str_eq(mine[s], stored, "seat %d's hand from memory is not its stored one", s);
        free(stored);
        for (int o = 0; o < s; o++)
            cr_expect_str_neq(mine[s], mine[o], "seats %d and %d read the same hand", s, o);
    }
    for (int s = 0; s < 3; s++)
        free(mine[s]);
    no_hand_for_others(a.base, &t);
    client_base = shared;
    daemon_stop(&a);
}

Test(api, a_cached_hand_goes_to_its_own_token_only)
{
    struct table t;
    create(&t, 3, 0, NULL);
    char *h[3];
    for (int s = 0; s < 3; s++) {
        free(hand_text_at(d.base, &t, s));
        h[s] = hand_text_at(d.base, &t, s); /* from the cache */
    }
    for (int s = 0; s < 3; s++)
        for (int o = 0; o < 3; o++)
            if (o != s)
                cr_expect_str_neq(h[s], h[o], "seats %d and %d read the same hand", s, o);
    for (int s = 0; s < 3; s++)
        free(h[s]);
    no_hand_for_others(d.base, &t);
}

Test(api, a_seat_that_left_no_longer_reads_its_cached_hand)
{
    struct table t;
    create(&t, 2, 0, NULL);
    play_step(&t); /* the game is running */
    free(hand_text_at(d.base, &t, 1));
    free(hand_text_at(d.base, &t, 1)); /* cached */
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/leave", t.id);
    json_decref(call("POST", path, t.tokens[1], NULL, 200));
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", t.id);
    call_problem(d.base, "GET", path, t.tokens[1], NULL, 401, "bad_token");
}

Test(api, a_cached_hand_learns_of_an_order_through_another_instance)
{
    struct daemon d2;
    daemon_start(&d2, db, NULL);
    struct table t;
    create(&t, 2, 0, NULL);
    for (int i = 0; i < 3; i++) {
        char *cached = hand_text_at(d2.base, &t, 0);
        free(hand_text_at(d2.base, &t, 0));
        play_step_at(d.base, &t); /* the write goes through the other daemon */
        /* The NOTIFY reaches d2 within milliseconds; allow a generous bound. */
        char *now = hand_text_at(d2.base, &t, 0);
        double until = harness_now() + 5.0;
        while (strcmp(now, cached) == 0 && harness_now() < until) {
            harness_sleep_ms(5);
            free(now);
            now = hand_text_at(d2.base, &t, 0);
        }
        cr_assert_str_neq(now, cached, "instance 2 still serves the hand from before the write");
        free(cached);
        free(now);
    }
    cr_expect_gt(metric_at(d2.base, hand_hits), 0, "instance 2 served none from its cache");
    daemon_stop(&d2);
}

/* The ids seat 0's cached hand view of t at `base` says it chose to discard, as "a,b" in out
 * ("" when it has no order). */
static void chosen_discards_at(const char *base, const struct table *t, char *out, size_t n)
{
    char *text = hand_text_at(base, t, 0);
    json_t *h = json_loads(text, 0, NULL);
    free(text);
    cr_assert(h);
    json_t *dis = json_object_get(json_object_get(h, "order"), "discard");
    snprintf(out, n, "%lld,%lld", (long long)json_integer_value(json_array_get(dis, 0)),
             (long long)json_integer_value(json_array_get(dis, 1)));
    if (!json_is_array(dis))
        snprintf(out, n, "%s", "");
    json_decref(h);
}

Test(api, an_amended_order_shows_in_its_seats_cached_hand_on_every_daemon)
{
    struct daemon d2;
    daemon_start(&d2, db, NULL);
    struct table t;
    create(&t, 2, 0, NULL);
    json_t *h = hand(&t, 0);
    json_t *cards = json_object_get(h, "hand");
    cr_assert_geq(json_array_size(cards), 4);
    long long id[4];
    for (int i = 0; i < 4; i++)
        id[i] = num(json_array_get(cards, (size_t)i), "id");
    json_decref(h);
    char path[160], order[160], want[64], got[64];
    snprintf(path, sizeof path, "/api/v1/games/%s/orders", t.id);
    snprintf(order, sizeof order, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}",
             id[0], id[1]);
    json_decref(call("POST", path, t.tokens[0], order, 202));
    /* Both daemons cache the hand with its first choice... */
    for (int k = 0; k < 2; k++) {
        chosen_discards_at(d.base, &t, got, sizeof got);
        chosen_discards_at(d2.base, &t, got, sizeof got);
    }
    snprintf(want, sizeof want, "%lld,%lld", id[0], id[1]);
    cr_assert_str_eq(got, want, "the first choice");
    /* ...then the seat changes its mind through d: an amendment, nothing public changes. */
    snprintf(order, sizeof order, "{\"round\": 0, \"step\": \"keep\", \"discard\": [%lld, %lld]}",
             id[2], id[3]);
    json_decref(call("POST", path, t.tokens[0], order, 202));
    snprintf(want, sizeof want, "%lld,%lld", id[2], id[3]);
    chosen_discards_at(d.base, &t, got, sizeof got);
    cr_expect_str_eq(got, want, "the amending daemon's cached hand still shows the first choice");
    chosen_discards_at(d2.base, &t, got, sizeof got);
    for (double until = harness_now() + 5.0; strcmp(got, want) != 0 && harness_now() < until;) {
        harness_sleep_ms(5);
        chosen_discards_at(d2.base, &t, got, sizeof got);
    }
    cr_expect_str_eq(got, want, "the other daemon's cached hand still shows the first choice");
    daemon_stop(&d2);
}

/* ---- names -------------------------------------------------------------------------------- */

Test(api, hostile_names_are_refused_and_the_lobby_marks_bots)
{
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"bots\": [\"greedy\"]}", 201);
    char join[128];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", str(g, "id"));
    static const char *const hostile[] = {
        "Ada\\u202eevE",  /* right-to-left override */
        "Ada\\u200b",     /* zero-width space */
        "Ada\\u0085Eve",  /* C1 control */
        "\\ufeffAda",     /* BOM */
        "Ada\\u2066Eve",  /* bidi isolate */
        "Bot 3 (greedy)", /* the bot's own name */
        "bot 2",          /* a bot's name in other case */
        "\\ue000",        /* private use */
    };
    char body[128];
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        snprintf(body, sizeof body, "{\"name\": \"%s\"}", hostile[i]);
        expect_problem("POST", join, NULL, body, 400, "bad_value");
        snprintf(body, sizeof body, "{\"seats\": 2, \"name\": \"%s\"}", hostile[i]);
        expect_problem("POST", "/api/v1/games", NULL, body, 400, "bad_value");
    }
    /* The detail names the character. */
    char url[256];
    snprintf(url, sizeof url, "%s%s", d.base, join);
    struct http_reply r;
    cr_assert(http_do("POST", url, NULL, "{\"name\": \"Ada\\u202eevE\"}", &r));
    cr_expect(strstr(str(r.json, "detail"), "U+202E"), "%s", r.body);
    http_reply_free(&r);
    /* NFC and trimming: "Zoe" with a combining acute and an ideographic space after it. */
    json_decref(call("POST", join, NULL, "{\"name\": \"Zoe\\u0301\\u3000\"}", 201));
    json_t *list = call("GET", "/api/v1/games", NULL, NULL, 200);
    json_t *mine = NULL, *x;
    size_t i;
    json_array_foreach(json_object_get(list, "games"), i, x)
    {
        if (strcmp(str(x, "id"), str(g, "id")) == 0)
            mine = x;
    }
    cr_assert_not_null(mine, "the game is in the lobby");
    json_t *names = json_object_get(mine, "names"), *bots = json_object_get(mine, "bots");
    cr_assert_eq(json_array_size(bots), 3, "one bot flag a seat");
    cr_expect_str_eq(json_string_value(json_array_get(names, 0)), "Zo\xc3\xa9");
    cr_expect(json_is_false(json_array_get(bots, 0)), "a person is no bot");
    cr_expect(json_is_false(json_array_get(bots, 1)), "a free seat is no bot");
    cr_expect(json_is_true(json_array_get(bots, 2)), "the bot seat is marked");
    cr_expect_str_eq(json_string_value(json_array_get(names, 2)), "Bot 3 (greedy)");
    json_decref(list);
    /* The public view marks it too. */
    char path[128];
    snprintf(path, sizeof path, "/api/v1/games/%s", str(g, "id"));
    json_t *v = call("GET", path, NULL, NULL, 200);
    json_t *seats = json_object_get(v, "seats");
    cr_expect(json_is_null(json_object_get(json_array_get(seats, 0), "bot")));
    cr_expect_str_eq(str(json_array_get(seats, 2), "bot"), "greedy");
    json_decref(v);
    json_decref(g);
}

/* ---- several games ------------------------------------------------------------------------ */

Test(api, a_game_names_its_ruleset_and_an_unknown_one_is_refused)
{
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"game\": \"chess\"}", 400,
                   "bad_value");
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"game\": 7}", 400, "wrong_type");
    expect_problem("GET", "/api/v1/cards?game=chess", NULL, NULL, 400, "bad_query");
    json_t *made = call("POST", "/api/v1/games", NULL,
                        "{\"seats\": 2, \"game\": \"the_city\", \"bots\": [\"greedy\"], "
                        "\"name\": \"Ada\"}",
                        201);
    cr_expect_str_eq(str(made, "game"), "the_city");
    char p[128];
    snprintf(p, sizeof p, "/api/v1/games/%s", str(made, "id"));
    json_t *v = call("GET", p, NULL, NULL, 200);
    cr_expect_str_eq(str(v, "game"), "the_city");
    snprintf(p, sizeof p, "/api/v1/games/%s/hand", str(made, "id"));
    json_t *h = call("GET", p, str(made, "token"), NULL, 200);
    cr_expect_str_eq(str(h, "game"), "the_city");
    /* The suggestion is a complete order for the pending decision: sent as it is, accepted. */
    json_t *sug = json_object_get(json_object_get(h, "pending"), "suggestion");
    cr_assert(json_is_object(sug), "pending carries a suggestion");
    char *body = json_dumps(sug, JSON_COMPACT);
    snprintf(p, sizeof p, "/api/v1/games/%s/orders", str(made, "id"));
    json_decref(call("POST", p, str(made, "token"), body, 202));
    free(body);
    json_t *list = call("GET", "/api/v1/games", NULL, NULL, 200);
    cr_expect_str_eq(str(json_array_get(json_object_get(list, "games"), 0), "game"), "the_city");
    json_t *rs = call("GET", "/api/v1/rulesets", NULL, NULL, 200);
    cr_expect_str_eq(str(rs, "default"), "the_city");
    json_decref(rs);
    json_decref(list);
    json_decref(h);
    json_decref(v);
    json_decref(made);
}

Test(api, a_private_table_is_left_out_of_the_lobby_and_joined_through_its_link)
{
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"private\": \"yes\"}", 400,
                   "wrong_type");
    json_t *made = call("POST", "/api/v1/games", NULL,
                        "{\"seats\": 2, \"name\": \"Ada\", \"private\": true}", 201);
    json_t *open = call("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"name\": \"Bea\"}", 201);
    cr_expect(json_is_true(json_object_get(made, "private")));
    cr_expect(json_is_false(json_object_get(open, "private")));
    const char *id = str(made, "id");
    json_t *list = call("GET", "/api/v1/games", NULL, NULL, 200);
    size_t i;
    json_t *g;
    bool seen_private = false, seen_open = false;
    json_array_foreach(json_object_get(list, "games"), i, g)
    {
        seen_private |= strcmp(str(g, "id"), id) == 0;
        seen_open |= strcmp(str(g, "id"), str(open, "id")) == 0;
    }
    cr_expect(!seen_private, "the private table is not in the lobby");
    cr_expect(seen_open, "a listed table is");
    /* Its link (the id) is enough to join and to watch. */
    char p[128];
    snprintf(p, sizeof p, "/api/v1/games/%s/join", id);
    json_t *j = call("POST", p, NULL, "{\"name\": \"Cy\"}", 201);
    cr_expect_str_eq(str(j, "status"), "playing");
    snprintf(p, sizeof p, "/api/v1/games/%s", id);
    json_t *v = call("GET", p, NULL, NULL, 200);
    cr_expect(json_is_true(json_object_get(v, "private")));
    json_t *list2 = call("GET", "/api/v1/games", NULL, NULL, 200);
    json_array_foreach(json_object_get(list2, "games"), i, g)
        cr_expect(strcmp(str(g, "id"), id) != 0, "nor once it is playing");
    json_decref(list2);
    json_decref(v);
    json_decref(j);
    json_decref(list);
    json_decref(open);
    json_decref(made);
}

Test(api, simcity_takes_a_money_target_but_none_in_solitaire)
{
    expect_problem("POST", "/api/v1/games", NULL,
                   "{\"seats\": 3, \"game\": \"simcity\", \"target\": 19}", 400, "bad_value");
    expect_problem("POST", "/api/v1/games", NULL,
                   "{\"seats\": 1, \"game\": \"simcity\", \"target\": 100}", 400, "bad_value");
    expect_problem("POST", "/api/v1/games", NULL,
                   "{\"seats\": 3, \"game\": \"simcity\", \"decks\": 1}", 400, "unknown_field");
    json_t *made = call("POST", "/api/v1/games", NULL,
                        "{\"seats\": 3, \"game\": \"simcity\", \"target\": 120, \"bots\": "
                        "[\"greedy\", \"greedy\"]}",
                        201);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(made, "options"), "target")),
                 120);
    char p[128];
    snprintf(p, sizeof p, "/api/v1/games/%s", str(made, "id"));
    json_t *v = call("GET", p, NULL, NULL, 200);
    cr_expect_eq(json_integer_value(json_object_get(v, "target")), 120);
    cr_expect_str_eq(str(v, "game"), "simcity");
    json_decref(v);
    json_decref(made);
    made = call("POST", "/api/v1/games", NULL, "{\"seats\": 1, \"game\": \"simcity\"}", 201);
    snprintf(p, sizeof p, "/api/v1/games/%s", str(made, "id"));
    v = call("GET", p, NULL, NULL, 200);
    cr_expect(json_is_null(json_object_get(v, "target")), "Solitaire has no target");
    json_decref(v);
    json_decref(made);
}

Test(api, tech_city_takes_one_deck_at_five_players_and_refuses_two_below)
{
    expect_problem("POST", "/api/v1/games", NULL,
                   "{\"seats\": 3, \"game\": \"tech_city\", \"decks\": 2}", 400, "bad_value");
    expect_problem("POST", "/api/v1/games", NULL,
                   "{\"seats\": 5, \"game\": \"tech_city\", \"decks\": 3}", 400, "bad_value");
    expect_problem("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"decks\": 1}", 400,
                   "unknown_field");
    json_t *made = call("POST", "/api/v1/games", NULL,
                        "{\"seats\": 5, \"game\": \"tech_city\", \"decks\": 1, \"bots\": "
                        "[\"greedy\", \"greedy\", \"greedy\", \"greedy\"]}",
                        201);
    char p[128];
    snprintf(p, sizeof p, "/api/v1/games/%s", str(made, "id"));
    json_t *v = call("GET", p, NULL, NULL, 200);
    cr_expect_eq(json_integer_value(json_object_get(v, "decks")), 1);
    json_decref(v);
    json_decref(made);
}
