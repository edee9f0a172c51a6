/* test_force.c: the reliability suite's forcing of steps. A real daemon gets a host's Force
 * and a player's build for the same {round, step} at the same instant (two threads released
 * by one barrier), many times over; after each race exactly one step was resolved, the build
 * either counted or was refused (409/422) with the force winning, and the next step was never
 * forced. Beside the races: a stale force gets 409 stale_step and changes nothing; the public
 * log says who forced a step (the host, a seat, the timer) and which seats got defaults; the
 * hand view tells a defaulted seat, and only it, what was chosen for it and why.
 *
 * Each test appends "force_races N" and finer keys to $CITY_COUNTS (summed by
 * scripts/reliability-summary.sh); CITY_FORCE_RACES sets the number of races (default 100). */
#include "suite.h"

#include <pthread.h>

static struct daemon d;
static char db[512];

/* ---- counting ----------------------------------------------------------------------------- */

enum kind { K_RACES, K_BUILD_WON, K_FORCE_WON, K_STALE_FORCES, K_CHECKS, K_COUNT };
static const char *const count_keys[K_COUNT] = {"force_races", "force_races_build_first",
                                                "force_races_force_first", "force_stale_409",
                                                "force_checks"};
static long counts[K_COUNT];

static void counts_append(void)
{
    suite_counts_append(count_keys, counts, K_COUNT);
}

/* ---- the daemon --------------------------------------------------------------------------- */

static void up(void)
{
    signal(SIGPIPE, SIG_IGN);
    db_create(db, sizeof db);
    daemon_start(&d, db, "--allow-seed --timeout 5");
    client_base = d.base;
}

static void down(void)
{
    counts_append();
    daemon_stop(&d);
}

TestSuite(force, .init = up, .fini = down, .timeout = 240);

static void stops_cleanly(void)
{
    suite_stops_cleanly(&d);
}

/* ---- requests ----------------------------------------------------------------------------- */

/* Sends a request without asserting (safe in a thread); the status, 0 when no answer. The
 * reply's JSON goes to *out when out is not NULL (caller decrefs). */
static long send_json(const char *method, const char *path, const char *token, const char *body,
                      json_t **out)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", client_base, path);
    struct http_reply r;
    bool got = http_do(method, url, token, body, &r);
    long status = got ? r.status : 0;
    if (out)
        *out = json_incref(r.json);
    http_reply_free(&r);
    return status;
}

static void path_of(char *out, size_t n, const struct table *t, const char *tail)
{
    snprintf(out, n, "/api/v1/games/%s%s", t->id, tail);
}

/* POSTs /resolve for {round, step} with `token`; the status (reply to *out when not NULL). */
static long force(const struct table *t, const char *token, long long round, const char *step,
                  json_t **out)
{
    char path[160], body[96];
    path_of(path, sizeof path, t, "/resolve");
    snprintf(body, sizeof body, "{\"round\": %lld, \"step\": \"%s\"}", round, step);
    return send_json("POST", path, token, body, out);
}

/* Asserts a problem reply with `status` and `code` and a detail sentence. */
static void expect_problem(long got, json_t *reply, long status, const char *code, const char *what)
{
    counts[K_CHECKS]++;
    char *text = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
    cr_assert_eq(got, status, "%s -> %ld, wanted %ld %s: %s", what, got, status, code,
                 text ? text : "(no body)");
    cr_assert_str_eq(str(reply, "code"), code, "%s: %s", what, text);
    const char *detail = str(reply, "detail");
    cr_assert(detail && strlen(detail) > 20, "%s: a problem needs a sentence: %s", what, text);
    free(text);
}

/* The events after seq `after` (a new array). */
static json_t *events_after(const struct table *t, long long after)
{
    char path[200];
    snprintf(path, sizeof path, "/api/v1/games/%s/events?after=%lld", t->id, after);
    json_t *page = call("GET", path, NULL, NULL, 200);
    json_t *e = json_incref(json_object_get(page, "events"));
    json_decref(page);
    return e;
}

/* How many events of `type` (and, when round >= 0, of that round and step; when seat >= 0,
 * of that seat) the array holds; *last gets the last one found (borrowed) when not NULL. */
static int count_of(json_t *events, const char *type, long long round, const char *step, int seat,
                    json_t **last)
{
    int n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        if (strcmp(str(e, "type"), type) != 0)
            continue;
        if (round >= 0 && (num(e, "round") != round || strcmp(str(e, "step"), step) != 0))
            continue;
        if (seat >= 0 && (!json_is_integer(json_object_get(e, "seat")) || num(e, "seat") != seat))
            continue;
        n++;
        if (last)
            *last = e;
    }
    return n;
}

/* True when JSON array `a` holds exactly the integers listed (in order). */
static bool seats_are(json_t *a, int n, const int *want)
{
    if (!json_is_array(a) || (int)json_array_size(a) != n)
        return false;
    for (int i = 0; i < n; i++)
        if (json_integer_value(json_array_get(a, (size_t)i)) != want[i])
            return false;
    return true;
}

/* ---- the race ----------------------------------------------------------------------------- */

struct racer {
    pthread_barrier_t *go;
    const char *method, *path, *token;
    char body[128];
    long status;
    json_t *reply;
};

static void *race_main(void *arg)
{
    struct racer *r = arg;
    pthread_barrier_wait(r->go);
    r->status = send_json(r->method, r->path, r->token, r->body, &r->reply);
    return NULL;
}

/* Forces every step of the game until it is at a build step (or over), checking that each
 * force resolves exactly its own step. False once the game is over. */
static bool force_to_build(const struct table *t)
{
    for (int i = 0; i < 8; i++) {
        json_t *v = view(t);
        bool over = strcmp(str(v, "status"), "finished") == 0;
        bool build = strcmp(str(v, "step"), "build") == 0;
        long long round = num(v, "round");
        char step[16];
        snprintf(step, sizeof step, "%s", str(v, "step"));
        json_decref(v);
        if (over)
            return false;
        if (build)
            return true;
        json_t *reply;
        long st = force(t, t->host, round, step, &reply);
        cr_assert_eq(st, 200, "forcing round %lld, step %s -> %ld", round, step, st);
        json_decref(reply);
    }
    cr_assert_fail("the game did not reach a build step");
    return false;
}

Test(force, a_force_racing_a_build_never_forces_the_next_step)
{
    int races = atoi(harness_env("CITY_FORCE_RACES", "100"));
    cr_assert_gt(races, 0);
    struct table t;
    bool have = false;
    char orders_p[160], resolve_p[160];
    for (int i = 0; i < races; i++) {
        if (!have) {
            create(&t, 2, 0, ", \"target_vp\": 500");
            path_of(orders_p, sizeof orders_p, &t, "/orders");
            path_of(resolve_p, sizeof resolve_p, &t, "/resolve");
            have = true;
        }
        if (!force_to_build(&t)) {
            have = false;
            i--;
            continue;
        }
        json_t *v = view(&t);
        long long round = num(v, "round"), before = num(v, "last_seq");
        json_decref(v);
        /* Odd races: seat 1 has decided, so seat 0's build is the last one the step waits
         * for, and a force that loses the race finds the game moved on. */
        bool last_one = i % 2 == 1;
        char survey[96];
        snprintf(survey, sizeof survey, "{\"round\": %lld, \"step\": \"build\", \"survey\": true}",
                 round);
        if (last_one)
            cr_assert_eq(send_json("POST", orders_p, t.tokens[1], survey, NULL), 202);

        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        struct racer build = {.go = &go, .method = "POST", .path = orders_p, .token = t.tokens[0]};
        struct racer host = {.go = &go, .method = "POST", .path = resolve_p, .token = t.host};
        snprintf(build.body, sizeof build.body, "%s", survey);
        snprintf(host.body, sizeof host.body, "{\"round\": %lld, \"step\": \"build\"}", round);
        pthread_t tb, th;
        pthread_create(&tb, NULL, race_main, &build);
        pthread_create(&th, NULL, race_main, &host);
        pthread_join(tb, NULL);
        pthread_join(th, NULL);
        pthread_barrier_destroy(&go);
        counts[K_RACES]++;

        char *bt = build.reply ? json_dumps(build.reply, JSON_COMPACT) : NULL;
        char *ht = host.reply ? json_dumps(host.reply, JSON_COMPACT) : NULL;
        json_t *ev = events_after(&t, before);
        json_t *forced = NULL, *dflt = NULL;
        int nforced = count_of(ev, "forced", round, "build", -1, &forced);
        int seat0_default = count_of(ev, "default", round, "build", 0, &dflt);
        bool build_counted = build.status == 202;
        cr_assert(build_counted || build.status == 409 || build.status == 422,
                  "race %d: the build -> %ld %s", i, build.status, bt);
        cr_assert(host.status == 200 || host.status == 409, "race %d: the force -> %ld %s", i,
                  host.status, ht);
        if (build_counted) {
            counts[K_BUILD_WON]++;
            cr_assert_eq(seat0_default, 0, "race %d: seat 0's build counted and was defaulted", i);
            if (host.status == 409) {
                counts[K_STALE_FORCES]++;
                cr_assert(last_one, "race %d: a stale force while a seat had not decided", i);
                cr_assert_str_eq(str(host.reply, "code"), "stale_step", "%s", ht);
                cr_assert_eq(nforced, 0, "race %d: a refused force left a forced event", i);
            } else {
                cr_assert(!last_one, "race %d: the force came after the last decision", i);
                cr_assert_eq(nforced, 1, "race %d", i);
                cr_assert(seats_are(json_object_get(forced, "seats"), 1, (int[]){1}),
                          "race %d: the force defaulted other seats than seat 1", i);
            }
        } else {
            counts[K_FORCE_WON]++;
            cr_assert_eq(host.status, 200, "race %d: the build was refused and the force too: %s",
                         i, ht);
            cr_assert_str_eq(str(build.reply, "code"), "stale_step", "race %d: %s", i, bt);
            cr_assert_eq(nforced, 1, "race %d", i);
            cr_assert_eq(seat0_default, 1, "race %d: seat 0 lost the race but got no default", i);
            cr_assert_str_eq(str(forced, "by"), "host", "race %d", i);
            cr_assert(seats_are(json_object_get(forced, "seats"), last_one ? 1 : 2,
                                last_one ? (int[]){0} : (int[]){0, 1}),
                      "race %d: the force named the wrong seats", i);
            cr_assert_str_eq(str(dflt, "by"), "host", "race %d", i);
        }
        /* Exactly one step resolved: one step opened (survey: everyone surveyed), and nothing
         * of it was forced or defaulted. */
        json_t *step_ev = NULL;
        cr_assert_eq(count_of(ev, "step", -1, NULL, -1, &step_ev), 1,
                     "race %d: %d steps opened after one race", i,
                     count_of(ev, "step", -1, NULL, -1, NULL));
        cr_assert_eq(num(step_ev, "round"), round);
        cr_assert_str_eq(str(step_ev, "step"), "survey");
        cr_assert_eq(count_of(ev, "forced", round, "survey", -1, NULL), 0,
                     "race %d: the next step was forced", i);
        cr_assert_eq(count_of(ev, "default", round, "survey", -1, NULL), 0,
                     "race %d: the next step got defaults", i);
        v = view(&t);
        cr_assert_eq(num(v, "round"), round);
        cr_assert_str_eq(str(v, "step"), "survey");
        for (int s = 0; s < 2; s++) {
            json_t *seat = json_array_get(json_object_get(v, "seats"), (size_t)s);
            cr_assert(json_is_true(json_object_get(seat, "pending")), "race %d, seat %d", i, s);
            cr_assert(json_is_false(json_object_get(seat, "submitted")), "race %d, seat %d", i, s);
        }
        json_decref(v);
        /* Seat 0's hand says whether it was defaulted, and why. */
        json_t *h = hand(&t, 0);
        json_t *why = json_object_get(h, "defaulted");
        if (build_counted) {
            cr_assert(json_is_null(why), "race %d: seat 0 decided itself", i);
        } else {
            cr_assert(json_is_object(why), "race %d: seat 0 was defaulted", i);
            cr_assert_str_eq(str(why, "reason"), "forced_by_host");
            cr_assert_eq(num(why, "round"), round);
            cr_assert_str_eq(str(why, "step"), "build");
            cr_assert(json_is_true(json_object_get(json_object_get(why, "chosen"), "survey")));
        }
        json_decref(h);
        counts[K_CHECKS] += 12;
        json_decref(ev);
        free(bt);
        free(ht);
        json_decref(build.reply);
        json_decref(host.reply);
    }
    cr_log_info("force races: %ld, build first %ld, force first %ld, stale forces %ld",
                counts[K_RACES], counts[K_BUILD_WON], counts[K_FORCE_WON], counts[K_STALE_FORCES]);
    stops_cleanly();
}

/* ---- stale and malformed forces ---------------------------------------------------------- */

Test(force, a_stale_force_gets_409_stale_step_and_changes_nothing)
{
    struct table t;
    create(&t, 3, 1, ", \"seed\": 7");
    json_t *r = NULL;
    cr_assert_eq(force(&t, t.host, 0, "keep", &r), 200);
    json_decref(r);
    json_t *before = view(&t);
    cr_assert_eq(num(before, "round"), 1);
    cr_assert_str_eq(str(before, "step"), "build");
    /* The step just forced, again: the late click of a second host tab. */
    long st = force(&t, t.host, 0, "keep", &r);
    expect_problem(st, r, 409, "stale_step", "a force of the step just resolved");
    cr_assert(strstr(str(r, "detail"), "round 1, step build"),
              "the detail names the current step: %s", str(r, "detail"));
    json_decref(r);
    /* A step not yet open. */
    st = force(&t, t.host, 1, "survey", &r);
    expect_problem(st, r, 409, "stale_step", "a force of a later step");
    json_decref(r);
    /* A seat's stale force is as stale (it is refused before the time limit is asked). */
    st = force(&t, t.tokens[0], 0, "keep", &r);
    expect_problem(st, r, 409, "stale_step", "a seat's stale force");
    json_decref(r);
    /* Bodies: none (an old client), not naming the step, wrong fields. */
    char path[160];
    path_of(path, sizeof path, &t, "/resolve");
    const struct {
        const char *body;
        long status;
        const char *code;
    } bad[] = {
        {NULL, 400, "missing_field"},
        {"{}", 400, "missing_field"},
        {"{\"round\": 1}", 400, "missing_field"},
        {"{\"step\": \"build\"}", 400, "missing_field"},
        {"{\"round\": \"1\", \"step\": \"build\"}", 400, "wrong_type"},
        {"{\"round\": 1, \"step\": 3}", 400, "wrong_type"},
        {"{\"round\": 1, \"step\": \"lunch\"}", 400, "bad_value"},
        {"{\"round\": 1, \"step\": \"over\"}", 400, "bad_value"},
        {"{\"round\": -1, \"step\": \"build\"}", 400, "bad_value"},
        {"{\"round\": 1, \"step\": \"build\", \"all\": true}", 400, "unknown_field"},
        {"[1, \"build\"]", 400, "not_an_object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st = send_json("POST", path, t.host, bad[i].body, &r);
        expect_problem(st, r, bad[i].status, bad[i].code, bad[i].body ? bad[i].body : "no body");
        json_decref(r);
    }
    /* Tokens are checked before the body: no token is 401, whatever the body. */
    st = send_json("POST", path, NULL, NULL, &r);
    expect_problem(st, r, 401, "token_required", "no token and no body");
    json_decref(r);
    /* Nothing above changed the game. */
    json_t *after = view(&t);
    cr_assert_eq(num(after, "last_seq"), num(before, "last_seq"), "a refused force wrote events");
    cr_assert_eq(num(after, "round"), 1);
    cr_assert_str_eq(str(after, "step"), "build");
    json_decref(after);
    json_decref(before);
    play_to_end(&t);
    check_log(&t); /* gapless, and no step opened twice */
    stops_cleanly();
}

/* ---- who forced, in the log and in the hand view ------------------------------------------ */

Test(force, the_log_says_the_host_forced_and_which_seats_got_defaults)
{
    struct table t;
    create(&t, 3, 0, ", \"seed\": 11");
    /* Seat 0 decides its keep; the host forces the others. */
    json_t *h0 = hand(&t, 0);
    char *order = choose_order(h0);
    json_decref(h0);
    char path[160];
    path_of(path, sizeof path, &t, "/orders");
    cr_assert_eq(send_json("POST", path, t.tokens[0], order, NULL), 202);
    free(order);
    json_t *h1 = hand(&t, 1);
    json_t *r;
    cr_assert_eq(force(&t, t.host, 0, "keep", &r), 200);
    json_decref(r);
    json_t *ev = events_after(&t, 0);
    json_t *forced = NULL, *dflt = NULL;
    cr_assert_eq(count_of(ev, "forced", 0, "keep", -1, &forced), 1);
    cr_assert_str_eq(str(forced, "by"), "host");
    cr_assert(seats_are(json_object_get(forced, "seats"), 2, (int[]){1, 2}));
    cr_assert_eq(count_of(ev, "default", 0, "keep", 0, NULL), 0, "seat 0 decided itself");
    for (int s = 1; s < 3; s++) {
        cr_assert_eq(count_of(ev, "default", 0, "keep", s, &dflt), 1);
        cr_assert_str_eq(str(dflt, "by"), "host");
        cr_assert_str_eq(str(dflt, "decision"), "discard");
    }
    /* The forced event comes before the defaults it explains, and says nothing of cards. */
    size_t i;
    json_t *e;
    long long forced_seq = num(forced, "seq");
    json_array_foreach(ev, i, e) if (strcmp(str(e, "type"), "default") == 0)
        cr_assert_gt(num(e, "seq"), forced_seq);
    char *text = json_dumps(ev, JSON_COMPACT);
    cr_assert(!strstr(text, "discard\":[") && !strstr(text, "chosen"), "%s", text);
    free(text);
    json_decref(ev);

    /* Seat 1's hand says what was chosen for it and why; the cards left its hand. */
    json_t *h = hand(&t, 1);
    json_t *why = json_object_get(h, "defaulted");
    cr_assert(json_is_object(why), "seat 1 was defaulted");
    cr_assert_eq(num(why, "round"), 0);
    cr_assert_str_eq(str(why, "step"), "keep");
    cr_assert_str_eq(str(why, "reason"), "forced_by_host");
    cr_assert_str_eq(str(why, "by"), "host");
    json_t *chosen = json_object_get(why, "chosen");
    cr_assert_eq(num(chosen, "round"), 0);
    cr_assert_str_eq(str(chosen, "step"), "keep");
    json_t *discard = json_object_get(chosen, "discard");
    cr_assert_eq(json_array_size(discard), 2);
    json_t *cards = json_object_get(why, "cards");
    cr_assert_eq(json_array_size(cards), 2);
    json_t *id;
    json_array_foreach(discard, i, id)
    {
        cr_assert_eq(num(json_array_get(cards, i), "id"), json_integer_value(id));
        bool had = false, has = false;
        size_t k;
        json_t *c;
        json_array_foreach(json_object_get(h1, "hand"), k,
                           c) if (num(c, "id") == json_integer_value(id))
        {
            had = true;
            cr_assert_str_eq(str(c, "card"), str(json_array_get(cards, i), "card"));
        }
        json_array_foreach(json_object_get(h, "hand"), k, c) has =
            has || num(c, "id") == json_integer_value(id);
        cr_assert(had && !has, "a default discards cards of the seat's own hand");
    }
    json_decref(h);
    json_decref(h1);
    /* Only seat 1 sees seat 1's notice: seat 0 decided itself, the public view has none. */
    h = hand(&t, 0);
    cr_assert(json_is_null(json_object_get(h, "defaulted")));
    json_decref(h);
    json_t *v = view(&t);
    text = json_dumps(v, JSON_COMPACT);
    cr_assert(!strstr(text, "defaulted") && !strstr(text, "chosen"), "%s", text);
    free(text);
    json_decref(v);

    /* Its own next decision replaces the notice. */
    h = hand(&t, 1);
    order = choose_order(h);
    json_decref(h);
    cr_assert_eq(send_json("POST", path, t.tokens[1], order, NULL), 202);
    free(order);
    h = hand(&t, 1);
    cr_assert(json_is_null(json_object_get(h, "defaulted")), "seat 1 has decided since");
    json_decref(h);
    /* Seat 2, which has not decided again, still sees its own. */
    h = hand(&t, 2);
    cr_assert_str_eq(str(json_object_get(h, "defaulted"), "reason"), "forced_by_host");
    json_decref(h);
    /* The next step resolved by its players ends every notice of the step before. */
    h = hand(&t, 2);
    order = choose_order(h);
    json_decref(h);
    cr_assert_eq(send_json("POST", path, t.tokens[2], order, NULL), 202);
    free(order);
    h = hand(&t, 0);
    order = choose_order(h);
    json_decref(h);
    cr_assert_eq(send_json("POST", path, t.tokens[0], order, NULL), 202);
    free(order);
    for (int s = 0; s < 3; s++) {
        h = hand(&t, s);
        cr_assert(json_is_null(json_object_get(h, "defaulted")), "seat %d", s);
        json_decref(h);
    }
    counts[K_CHECKS] += 40;
    stops_cleanly();
}

/* Moves game `id`'s deadline into the past, as if its time limit had run out. */
static void make_overdue(const char *id)
{
    PGconn *c = PQconnectdb(db);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    const char *vals[] = {id};
    PGresult *r = PQexecParams(c,
                               "UPDATE games SET deadline = now() - interval '1 second' "
                               "WHERE id = $1",
                               1, NULL, vals, NULL, NULL, 0);
    cr_assert_eq(PQresultStatus(r), PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

Test(force, deadline_defaults_say_by_timer_and_a_seat_forcing_an_overdue_step_is_named)
{
    /* The timer: the sweeper gives the defaults once the deadline has passed. */
    struct table t;
    create(&t, 2, 0, ", \"turn_seconds\": 3600, \"seed\": 5");
    make_overdue(t.id);
    json_t *v = NULL;
    for (int i = 0; i < 200; i++) {
        json_decref(v);
        v = view(&t);
        if (strcmp(str(v, "step"), "keep") != 0)
            break;
        harness_sleep_ms(50);
    }
    cr_assert_str_eq(str(v, "step"), "build", "the sweeper resolved the overdue keep");
    json_decref(v);
    json_t *ev = events_after(&t, 0), *forced = NULL, *dflt = NULL;
    cr_assert_eq(count_of(ev, "forced", 0, "keep", -1, &forced), 1);
    cr_assert_str_eq(str(forced, "by"), "timer");
    cr_assert(seats_are(json_object_get(forced, "seats"), 2, (int[]){0, 1}));
    cr_assert_eq(count_of(ev, "default", 0, "keep", 1, &dflt), 1);
    cr_assert_str_eq(str(dflt, "by"), "timer");
    json_decref(ev);
    json_t *h = hand(&t, 1);
    cr_assert_str_eq(str(json_object_get(h, "defaulted"), "reason"), "timer");
    json_decref(h);

    /* A seat: seat 0 decides, the deadline passes, seat 0 forces before the sweeper does
     * (a force the sweeper beat is stale: then try again with the next step). */
    bool named = false;
    char path[160];
    path_of(path, sizeof path, &t, "/orders");
    for (int attempt = 0; attempt < 5 && !named; attempt++) {
        v = view(&t);
        long long round = num(v, "round");
        char step[16];
        snprintf(step, sizeof step, "%s", str(v, "step"));
        long long seq = num(v, "last_seq");
        json_decref(v);
        h = hand(&t, 0);
        char *order = choose_order(h);
        json_decref(h);
        json_t *r;
        if (!order) { /* seat 0 has nothing to decide in this step: move on */
            cr_assert_eq(force(&t, t.host, round, step, &r), 200);
            json_decref(r);
            continue;
        }
        cr_assert_eq(send_json("POST", path, t.tokens[0], order, NULL), 202);
        free(order);
        long st = force(&t, t.tokens[0], round, step, &r);
        expect_problem(st, r, 409, "not_overdue", "a seat's force before the deadline");
        json_decref(r);
        make_overdue(t.id);
        st = force(&t, t.tokens[0], round, step, &r);
        json_decref(r);
        if (st == 409) /* the sweeper was first */
            continue;
        cr_assert_eq(st, 200);
        ev = events_after(&t, seq);
        cr_assert_eq(count_of(ev, "forced", round, step, -1, &forced), 1);
        cr_assert(json_is_integer(json_object_get(forced, "by")) && num(forced, "by") == 0,
                  "the forcing seat is named");
        cr_assert(seats_are(json_object_get(forced, "seats"), 1, (int[]){1}));
        cr_assert_eq(count_of(ev, "default", round, step, 1, &dflt), 1);
        cr_assert_eq(num(dflt, "by"), 0);
        json_decref(ev);
        h = hand(&t, 1);
        json_t *why = json_object_get(h, "defaulted");
        cr_assert_str_eq(str(why, "reason"), "forced_by_seat");
        cr_assert_eq(num(why, "by"), 0);
        json_decref(h);
        named = true;
    }
    cr_assert(named, "the sweeper beat the seat five times in a row");
    counts[K_CHECKS] += 20;
    stops_cleanly();
}
