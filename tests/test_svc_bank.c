/* test_svc_bank.c: the time bank (docs/rules.md "Timers and defaults"), through real HTTP against
 * a real PostgreSQL: a seat that decides after its step's own time pays for it from its bank (a
 * "bank" event in the log) and the step waits for it, a seat whose bank is empty gets its default,
 * forces racing on one overdue step resolve it once, and the create option's bounds. The clock is
 * moved by writing the game's row (its step's own end and its deadline an amount earlier), so that
 * no test waits out a step. */
#include "client.h"

#include <pthread.h>

static struct daemon d;
static char db[512];

static void up(void)
{
    db_create(db, sizeof db);
    daemon_start(&d, db, "");
    client_base = d.base;
}

static void down(void)
{
    daemon_stop(&d);
}

TestSuite(bank, .init = up, .fini = down, .timeout = 120);

/* Moves game t's clock: its step's own time ended `past` seconds ago, and its deadline is that
 * end plus `extra` seconds (what the service sets: the largest bank still deciding). */
static void clock_to(const struct table *t, int past, int extra)
{
    char sql[400];
    snprintf(sql, sizeof sql,
             "UPDATE games SET step_ends = now() - make_interval(secs => %d), deadline = now() - "
             "make_interval(secs => %d) WHERE id = '%s'",
             past, past - extra, t->id);
    db_num(db, sql);
}

/* Seat `seat` of t sends the order its hand suggests (client.h); the reply's status. */
static long send_order(const struct table *t, int seat)
{
    json_t *h = hand(t, seat);
    char *order = choose_order(h);
    json_decref(h);
    cr_assert(order, "seat %d has a decision to send", seat);
    char url[512];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/orders", client_base, t->id);
    struct http_reply r;
    cr_assert(http_do("POST", url, t->tokens[seat], order, &r));
    long status = r.status;
    http_reply_free(&r);
    free(order);
    return status;
}

static long long bank_of(json_t *v, int seat)
{
    return num(json_array_get(json_object_get(v, "seats"), (size_t)seat), "bank_seconds");
}

/* The events of t of `type` in round 0's keep step. */
static int count_keep_events(const struct table *t, const char *type)
{
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/events?after=0", t->id);
    json_t *e = call("GET", path, NULL, NULL, 200);
    int n = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(e, "events"), i, ev)
    {
        if (strcmp(str(ev, "type"), type) == 0 && num(ev, "round") == 0 &&
            strcmp(str(ev, "step"), "keep") == 0)
            n++;
    }
    json_decref(e);
    return n;
}

/* Waits up to `seconds` for t to leave round 0's keep; true when it did. */
static bool keep_over(const struct table *t, double seconds)
{
    double start = harness_now();
    do {
        json_t *v = view(t);
        bool moved = num(v, "round") > 0 || strcmp(str(v, "step"), "keep") != 0;
        json_decref(v);
        if (moved)
            return true;
        harness_sleep_ms(200);
    } while (harness_now() - start < seconds);
    return false;
}

Test(bank, the_view_shows_each_seats_bank_and_the_steps_own_end)
{
    struct table t;
    create(&t, 2, 0, ", \"turn_seconds\": 30, \"time_bank_seconds\": 90");
    json_t *v = view(&t);
    cr_expect_eq(num(v, "time_bank_seconds"), 90);
    cr_expect_eq(bank_of(v, 0), 90);
    cr_expect_eq(bank_of(v, 1), 90);
    double own = json_number_value(json_object_get(v, "step_deadline"));
    double deadline = json_number_value(json_object_get(v, "deadline"));
    cr_expect_gt(own, 0);
    /* Forced only once the largest bank of the seats deciding ran out too. */
    cr_expect(deadline > own + 89 && deadline < own + 91, "deadline %f, own end %f", deadline, own);
    json_decref(v);
    /* A game without a bank: the fields are null, the deadline the step's own. */
    struct table u;
    create(&u, 2, 0, ", \"turn_seconds\": 30");
    v = view(&u);
    cr_expect(json_is_null(json_object_get(v, "time_bank_seconds")));
    cr_expect(json_is_null(
        json_object_get(json_array_get(json_object_get(v, "seats"), 0), "bank_seconds")));
    cr_expect_float_eq(json_number_value(json_object_get(v, "step_deadline")),
                       json_number_value(json_object_get(v, "deadline")), 0.01);
    json_decref(v);
}

Test(bank, a_late_seat_draws_on_its_bank_and_the_step_waits_for_it)
{
    struct table t;
    create(&t, 2, 0, ", \"turn_seconds\": 30, \"time_bank_seconds\": 60");
    cr_assert_eq(send_order(&t, 0), 202);
    json_t *v = view(&t);
    double own = json_number_value(json_object_get(v, "step_deadline"));
    /* Seat 1 still decides: the deadline is its bank past the step's own end. */
    cr_expect_float_eq(json_number_value(json_object_get(v, "deadline")), own + 60, 1.0);
    json_decref(v);
    clock_to(&t, 10, 60);   /* the step's own time ended 10 s ago */
    harness_sleep_ms(2500); /* the sweeper looks every second: it must not force */
    cr_expect_not(keep_over(&t, 0), "the step waited for the seat drawing on its bank");
    cr_assert_eq(send_order(&t, 1), 202);
    cr_assert(keep_over(&t, 10), "both decided: the keep resolved");
    v = view(&t);
    cr_expect_eq(bank_of(v, 0), 60, "seat 0 decided in time: its bank is whole");
    long long left = bank_of(v, 1);
    cr_expect(left >= 46 && left <= 50, "seat 1 paid about 10-13 s of its 60: %lld left", left);
    json_decref(v);
    cr_expect_eq(count_keep_events(&t, "default"), 0, "nobody got a default");
    cr_expect_eq(count_keep_events(&t, "bank"), 1, "seat 1's payment is logged");
}

Test(bank, an_empty_bank_gives_the_default)
{
    struct table t;
    create(&t, 2, 0, ", \"turn_seconds\": 30, \"time_bank_seconds\": 5");
    cr_assert_eq(send_order(&t, 0), 202);
    clock_to(&t, 6, 5); /* its own time and all 5 s of seat 1's bank are gone */
    cr_assert(keep_over(&t, 10), "the sweeper forced the keep");
    json_t *v = view(&t);
    cr_expect_eq(bank_of(v, 1), 0, "seat 1's bank was spent");
    cr_expect_eq(bank_of(v, 0), 5);
    json_decref(v);
    cr_expect_eq(count_keep_events(&t, "default"), 1, "seat 1 got its default");
    cr_expect_eq(count_keep_events(&t, "forced"), 1);
    cr_expect_eq(count_keep_events(&t, "bank"), 1, "seat 1 paid its last 5 s; seat 0 nothing");
}

struct force_arg {
    const struct table *t;
    const char *token;
    long status;
};

static void *force(void *p)
{
    struct force_arg *a = p;
    char url[512];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/resolve", client_base, a->t->id);
    struct http_reply r;
    a->status =
        http_do("POST", url, a->token, "{\"round\": 0, \"step\": \"keep\"}", &r) ? r.status : -1;
    http_reply_free(&r);
    return NULL;
}

Test(bank, forces_racing_on_an_overdue_step_resolve_it_once)
{
    for (int round = 0; round < 3; round++) {
        struct table t;
        create(&t, 2, 0, ", \"turn_seconds\": 30, \"time_bank_seconds\": 5");
        clock_to(&t, 7, 5); /* overdue: the host, seat 0, seat 1 and the sweeper all may force */
        struct force_arg a[3] = {{&t, t.host, 0}, {&t, t.tokens[0], 0}, {&t, t.tokens[1], 0}};
        pthread_t th[3];
        for (int i = 0; i < 3; i++)
            pthread_create(&th[i], NULL, force, &a[i]);
        int ok = 0;
        for (int i = 0; i < 3; i++) {
            pthread_join(th[i], NULL);
            cr_expect(a[i].status == 200 || a[i].status == 409, "force %d -> %ld", i, a[i].status);
            ok += a[i].status == 200;
        }
        cr_expect_leq(ok, 1, "one force resolved the step, the others found it gone");
        cr_assert(keep_over(&t, 10));
        cr_expect_eq(count_keep_events(&t, "forced"), 1, "the keep was forced once");
        cr_expect_eq(count_keep_events(&t, "default"), 2, "each seat got one default");
        json_t *v = view(&t);
        cr_expect_eq(bank_of(v, 0), 0);
        cr_expect_eq(bank_of(v, 1), 0);
        json_decref(v);
    }
}

Test(bank, the_create_option_is_checked)
{
    call_problem(d.base, "POST", "/api/v1/games", NULL,
                 "{\"seats\": 2, \"turn_seconds\": 30, \"time_bank_seconds\": -1}", 400,
                 "bad_value");
    call_problem(d.base, "POST", "/api/v1/games", NULL,
                 "{\"seats\": 2, \"turn_seconds\": 30, \"time_bank_seconds\": 259201}", 400,
                 "bad_value");
    call_problem(d.base, "POST", "/api/v1/games", NULL,
                 "{\"seats\": 2, \"turn_seconds\": 30, \"time_bank_seconds\": \"90\"}", 400,
                 "wrong_type");
    call_problem(d.base, "POST", "/api/v1/games", NULL, "{\"seats\": 2, \"time_bank_seconds\": 90}",
                 400, "bad_value");
    json_t *g = call("POST", "/api/v1/games", NULL,
                     "{\"seats\": 2, \"turn_seconds\": 30, \"time_bank_seconds\": 0}", 201);
    cr_expect(json_is_null(json_object_get(g, "time_bank_seconds")), "0: no bank");
    json_decref(g);
}
