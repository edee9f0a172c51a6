/* test_svc_presence.c: whether each person is at the table, through real HTTP against a real
 * PostgreSQL: each seat's "presence" in the public view ("online" after a sign of life of its
 * own, a hand view or an order or its event stream, "away" once --presence-seconds passed
 * without one, a bot's seat always online), and the same answer from a second daemon on the
 * same database, whose cached view must not keep an old presence. */
#include "client.h"

#include <pthread.h>
#include <unistd.h>

static struct daemon d;
static char db[512];

enum { PRESENCE_S = 3 }; /* --presence-seconds of these daemons: a short window for a quick test */

static void up(void)
{
    db_create(db, sizeof db);
    daemon_start(&d, db, "--allow-seed --presence-seconds 3");
    client_base = d.base;
}

static void down(void)
{
    daemon_stop(&d);
}

TestSuite(presence, .init = up, .fini = down, .timeout = 120);

/* The presence of seat `seat` in the public view of `t` read from daemon base `base`. */
static char *presence_at(const char *base, const struct table *t, int seat)
{
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s", base, t->id);
    struct http_reply r;
    cr_assert(http_do("GET", url, NULL, NULL, &r));
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *v = json_loads(r.body, 0, NULL);
    http_reply_free(&r);
    cr_assert(v);
    json_t *s = json_array_get(json_object_get(v, "seats"), (size_t)seat);
    const char *p = json_string_value(json_object_get(s, "presence"));
    cr_assert(p, "seat %d has a presence", seat);
    char *out = strdup(p);
    json_decref(v);
    return out;
}

static void expect_presence(const char *base, const struct table *t, int seat, const char *want)
{
    char *p = presence_at(base, t, seat);
    cr_expect_str_eq(p, want, "seat %d is %s", seat, want);
    free(p);
}

/* expect_presence() of "online" after a sign of life: its writer thread writes it moments after
 * the request that showed it (service_seen), so this looks again for up to two seconds. */
static void expect_online_soon(const char *base, const struct table *t, int seat)
{
    double until = harness_now() + 2.0;
    char *p = presence_at(base, t, seat);
    while (strcmp(p, "online") != 0 && harness_now() < until) {
        free(p);
        usleep(10 * 1000);
        p = presence_at(base, t, seat);
    }
    cr_expect_str_eq(p, "online", "seat %d came online within two seconds", seat);
    free(p);
}

Test(presence, a_hand_view_makes_a_seat_online_until_the_window_passes)
{
    struct table t;
    create(&t, 2, 0, NULL);
    expect_presence(d.base, &t, 0, "away"); /* joined, but never seen since */
    expect_presence(d.base, &t, 1, "away");
    json_decref(hand(&t, 0));
    expect_online_soon(d.base, &t, 0); /* the cached view was dropped */
    expect_presence(d.base, &t, 1, "away");
    sleep(PRESENCE_S + 1);
    /* Nothing was written: the cached view that said "online" ran out with the window. */
    expect_presence(d.base, &t, 0, "away");
}

Test(presence, an_order_is_a_sign_of_life)
{
    struct table t;
    create(&t, 2, 0, NULL);
    sleep(1);
    json_t *h = hand(&t, 1);
    char *order = choose_order(h);
    json_decref(h);
    cr_assert(order);
    sleep(PRESENCE_S + 1); /* the hand view's sign of life is over */
    expect_presence(d.base, &t, 1, "away");
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/orders", t.id);
    json_decref(call("POST", path, t.tokens[1], order, 202));
    free(order);
    expect_online_soon(d.base, &t, 1);
}

Test(presence, a_bot_is_always_online_and_the_public_stream_is_no_seat)
{
    struct table t;
    create(&t, 2, 1, NULL);
    expect_presence(d.base, &t, 1, "online"); /* the bot */
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/stream", d.base, t.id);
    struct http_request rq = {.method = "GET", .url = url, .timeout_ms = 1500};
    struct http_reply r;
    http_request(&rq, &r); /* a watcher's stream: no seat's */
    http_reply_free(&r);
    expect_presence(d.base, &t, 0, "away");
}

struct streamer {
    const char *url, *token;
    long ms;
};

static void *stream_for(void *arg)
{
    struct streamer *s = arg;
    struct http_request rq = {
        .method = "GET", .url = s->url, .bearer = s->token, .timeout_ms = s->ms};
    struct http_reply r;
    http_request(&rq, &r);
    http_reply_free(&r);
    return NULL;
}

Test(presence, a_seat_stream_keeps_its_seat_online_and_closing_it_makes_it_away)
{
    struct table t;
    create(&t, 2, 0, NULL);
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/stream", d.base, t.id);
    struct streamer s = {url, t.tokens[0], (PRESENCE_S * 3) * 1000};
    pthread_t th;
    pthread_create(&th, NULL, stream_for, &s);
    expect_online_soon(d.base, &t, 0);
    /* Past the window while the stream stays open: its keep-alive ticks keep the seat here. */
    sleep(PRESENCE_S + 2);
    expect_presence(d.base, &t, 0, "online");
    expect_presence(d.base, &t, 1, "away");
    pthread_join(th, NULL); /* the tab is closed */
    /* A tick after the close is no sign of life (the server looks for the peer's close before
     * counting it, though the tick's write would still succeed): the seat is away once the
     * window has passed since its last tick before the close, and it stays away. Were the
     * ticks after the close counted, it would be online up to two ticks (a third of the
     * window each) longer, and a player's hand-over of it would be refused meanwhile. */
    usleep((PRESENCE_S * 1000 + 300) * 1000);
    expect_presence(d.base, &t, 0, "away");
    sleep(2);
    expect_presence(d.base, &t, 0, "away");
}

Test(presence, two_daemons_on_one_database_agree)
{
    struct daemon d2;
    daemon_start(&d2, db, "--presence-seconds 3");
    struct table t;
    create(&t, 2, 0, NULL);
    /* Both daemons cache the view with both seats away... */
    expect_presence(d.base, &t, 1, "away");
    expect_presence(d2.base, &t, 1, "away");
    /* ...then seat 1 shows a sign of life through the second daemon only. */
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/hand", d2.base, t.id);
    struct http_reply r;
    cr_assert(http_do("GET", url, t.tokens[1], NULL, &r));
    cr_assert_eq(r.status, 200);
    http_reply_free(&r);
    expect_online_soon(d2.base, &t, 1);
    expect_online_soon(d.base, &t, 1); /* the NOTIFY's way to the first daemon */
    sleep(PRESENCE_S + 1);
    expect_presence(d.base, &t, 1, "away");
    expect_presence(d2.base, &t, 1, "away");
    daemon_stop(&d2);
}

/* Seat `seat` of `t` sends the order its hand view suggests. */
static void decide(const struct table *t, int seat)
{
    json_t *h = hand(t, seat);
    char *order = choose_order(h);
    json_decref(h);
    cr_assert(order, "seat %d has a decision", seat);
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/orders", t->id);
    json_decref(call("POST", path, t->tokens[seat], order, 202));
    free(order);
}

Test(presence,
     another_person_hands_an_away_seat_past_its_time_to_a_bot_and_its_person_takes_it_back)
{
    struct table t;
    create(&t, 2, 0, NULL);
    char take[160], reclaim[160], force[160];
    snprintf(take, sizeof take, "/api/v1/games/%s/takeover", t.id);
    snprintf(reclaim, sizeof reclaim, "/api/v1/games/%s/reclaim", t.id);
    snprintf(force, sizeof force, "/api/v1/games/%s/resolve", t.id);
    const char *bea_seat = "{\"seat\": 1}";
    /* Bea is away (never seen) but has not missed her time. */
    call_problem(d.base, "POST", take, t.tokens[0], bea_seat, 409, "seat_not_absent");
    call_problem(d.base, "POST", take, t.tokens[0], "{\"seat\": 0}", 400, "bad_value");
    /* Ada decides; the host forces the step: Bea missed it. */
    decide(&t, 0);
    json_t *v = view(&t);
    char body[128];
    snprintf(body, sizeof body, "{\"round\": %lld, \"step\": \"%s\"}", num(v, "round"),
             str(v, "step"));
    json_decref(v);
    json_decref(call("POST", force, t.host, body, 200));
    /* Bea comes back for a moment: online, nobody but the host's rule may take her seat. */
    json_decref(hand(&t, 1));
    expect_online_soon(d.base, &t, 1);
    call_problem(d.base, "POST", take, t.tokens[0], bea_seat, 409, "seat_not_absent");
    sleep(PRESENCE_S + 1);
    expect_presence(d.base, &t, 1, "away");
    json_t *r = call("POST", take, t.tokens[0], bea_seat, 200);
    cr_expect_str_eq(str(r, "bot"), "greedy");
    cr_expect_eq(num(r, "missed"), 1);
    json_decref(r);
    v = view(&t);
    json_t *s1 = json_array_get(json_object_get(v, "seats"), 1);
    cr_expect_str_eq(json_string_value(json_object_get(s1, "bot")), "greedy");
    cr_expect_str_eq(json_string_value(json_object_get(s1, "presence")), "online", "a bot");
    json_decref(v);
    char hand_path[160];
    snprintf(hand_path, sizeof hand_path, "/api/v1/games/%s/hand", t.id);
    call_problem(d.base, "GET", hand_path, t.tokens[1], NULL, 401, "bad_token");
    /* Only Bea takes it back, with the token her seat had. */
    call_problem(d.base, "POST", reclaim, t.tokens[0], NULL, 401, "bad_token");
    call_problem(d.base, "POST", reclaim, t.host, NULL, 401, "bad_token");
    call_problem(d.base, "POST", reclaim, NULL, NULL, 401, "token_required");
    r = call("POST", reclaim, t.tokens[1], NULL, 200);
    cr_expect_eq(num(r, "seat"), 1);
    cr_expect_str_eq(str(r, "status"), "playing");
    json_decref(r);
    call_problem(d.base, "POST", reclaim, t.tokens[1], NULL, 401, "bad_token");
    v = view(&t);
    s1 = json_array_get(json_object_get(v, "seats"), 1);
    cr_expect(json_is_null(json_object_get(s1, "bot")), "a person plays seat 1 again");
    cr_expect_str_eq(json_string_value(json_object_get(s1, "presence")), "online");
    json_decref(v);
    json_decref(hand(&t, 1));
    play_to_end(&t);
    /* The log tells who handed the seat over, and that it came back. */
    char events[160];
    snprintf(events, sizeof events, "/api/v1/games/%s/events?after=0", t.id);
    json_t *e = call("GET", events, NULL, NULL, 200);
    bool taken = false, back = false;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(e, "events"), i, ev)
    {
        const char *type = str(ev, "type");
        if (strcmp(type, "taken_over") == 0)
            taken = num(ev, "by") == 0;
        if (strcmp(type, "reclaimed") == 0)
            back = num(ev, "seat") == 1;
    }
    cr_expect(taken && back, "taken_over by seat 0, then reclaimed");
    json_decref(e);
}

/* The hand view of seat `seat` of t read from `base` (200 expected). */
static void read_hand_at(const char *base, const struct table *t, int seat)
{
    char url[256];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/hand", base, t->id);
    struct http_reply r;
    cr_assert(http_do("GET", url, t->tokens[seat], NULL, &r));
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_reply_free(&r);
}

Test(presence, a_seat_coming_back_changes_the_view_on_every_daemon_but_keeps_the_cached_hands)
{
    static const char hits[] = "city_hand_cache_lookups_total{result=\"hit\"} ";
    /* Two daemons of its own, so that only this test's reads are counted (the suite runs its
     * tests side by side on d). */
    struct daemon d1, d2;
    daemon_start(&d1, db, "--presence-seconds 3");
    daemon_start(&d2, db, "--presence-seconds 3");
    struct table t;
    create(&t, 2, 0, NULL);
    /* Each daemon caches the hand. A hand read while news of the game arrives is not stored (its
     * ticket fails), and seat 0 coming online is such news: so the hands are read again once it
     * has settled. */
    read_hand_at(d1.base, &t, 0);
    read_hand_at(d2.base, &t, 0);
    expect_online_soon(d1.base, &t, 0);
    expect_online_soon(d2.base, &t, 0);
    read_hand_at(d1.base, &t, 0);
    read_hand_at(d2.base, &t, 0);
    sleep(PRESENCE_S + 1);
    expect_presence(d1.base, &t, 0, "away");
    expect_presence(d2.base, &t, 0, "away");
    double h1 = metric_at(d1.base, hits), h2 = metric_at(d2.base, hits);
    /* Seat 0 comes back through the first daemon, with a hand read from its cache. */
    read_hand_at(d1.base, &t, 0);
    expect_online_soon(d1.base, &t, 0);
    expect_online_soon(d2.base, &t, 0); /* the NOTIFY's way to the second daemon */
    read_hand_at(d1.base, &t, 0);
    read_hand_at(d2.base, &t, 0);
    cr_expect_eq(metric_at(d1.base, hits) - h1, 2, "the first daemon read the hand again");
    cr_expect_eq(metric_at(d2.base, hits) - h2, 1, "the second daemon read the hand again");
    daemon_stop(&d1);
    daemon_stop(&d2);
}

/* A seat that keeps showing signs of life while online keeps its game's cached public view: the
 * view read from the database is true until the seat's window from its last sign runs out, and
 * each later sign this daemon writes moves that end (view_cache_extend). Before, the view was
 * read again from the database when its first window ran out, to say the same: a tenth of the
 * view reads in the bench's expert part, each waiting for the database. */
Test(presence, a_seat_that_stays_online_keeps_its_games_cached_view_past_the_first_window)
{
    static const char misses[] = "city_view_cache_lookups_total{result=\"miss\"} ";
    struct daemon d1; /* of its own: only this test's reads are counted */
    daemon_start(&d1, db, "--presence-seconds 3");
    struct table t;
    create(&t, 2, 0, NULL);
    read_hand_at(d1.base, &t, 0);
    expect_online_soon(d1.base, &t, 0);
    /* The read that saw the seat online may have been cached just before the writer's own
     * news of it (sent after its commit) dropped it again (seen under the sanitizers): let that
     * pass, then read the view once more, from the database or the cache, and count from there. */
    usleep(300 * 1000);
    expect_presence(d1.base, &t, 0, "online");
    double m0 = metric_at(d1.base, misses);
    /* For twice the window: seat 0's hand read every half second, its public view between. */
    double end = harness_now() + 2 * PRESENCE_S;
    int views = 0;
    while (harness_now() < end) {
        read_hand_at(d1.base, &t, 0);
        usleep(250 * 1000);
        expect_presence(d1.base, &t, 0, "online");
        expect_presence(d1.base, &t, 1, "away");
        views += 2;
        usleep(250 * 1000);
    }
    cr_expect_eq(metric_at(d1.base, misses) - m0, 0,
                 "%d view reads over twice the window, none from the database", views);
    /* Signs stop: the view turns away once the window from the last one passed. */
    sleep(PRESENCE_S + 1);
    expect_presence(d1.base, &t, 0, "away");
    daemon_stop(&d1);
}
