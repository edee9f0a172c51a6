/* test_svc_ha.c: what the daemon answers when a write's outcome is unknown, the cases a
 * database failover makes (docs/deploy.md, "Past one machine"): the connection is cut while the
 * server runs the COMMIT, or the server gives up waiting for its synchronous standby. Neither
 * may be answered 202: the order gets 503 outcome_unknown with Retry-After, the pool reconnects
 * by itself, and the client's resend of the same order is taken at most once. /metrics counts
 * it. scripts/ha-test.sh proves the same on a real three-node cluster. */
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

TestSuite(ha, .init = up, .fini = down, .timeout = 120);

/* An order sent on a thread of its own. */
struct sender {
    char url[512];
    const char *token;
    const char *body;
    struct http_reply r;
    bool ok;
    atomic_bool done;
};

static void *send_order(void *arg)
{
    struct sender *s = arg;
    s->ok = http_do("POST", s->url, s->token, s->body, &s->r);
    atomic_store(&s->done, true);
    return NULL;
}

/* Sends seat 0's order for the current step of t on a thread and, until it is answered (up to
 * 20 s), runs `action` (pg_terminate_backend or pg_cancel_backend) on every session of the
 * daemon (in this test's database: other tests' daemons share the cluster) that waits on
 * `wait_event`: the bot's writes wait there too, and the order may come after them. Returns the
 * order's reply in *out and the order in *order (the caller frees both). */
static void order_while(const struct table *t, const char *wait_event, const char *action,
                        struct http_reply *out, char **order)
{
    json_t *h = hand(t, 0);
    *order = choose_order(h);
    json_decref(h);
    cr_assert_not_null(*order, "seat 0 has nothing to decide");
    struct sender s = {.token = t->tokens[0], .body = *order};
    atomic_init(&s.done, false);
    snprintf(s.url, sizeof s.url, "%s/api/v1/games/%s/orders", d.base, t->id);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, send_order, &s), 0);
    char sql[400];
    snprintf(sql, sizeof sql,
             "SELECT count(%s(pid)) FROM pg_stat_activity WHERE application_name = 'cityd' AND "
             "datname = current_database() AND wait_event = '%s'",
             action, wait_event);
    long long hit = 0;
    for (int i = 0; i < 400 && !atomic_load(&s.done); i++) {
        hit += db_num(db, sql);
        harness_sleep_ms(50);
    }
    pthread_join(th, NULL);
    cr_assert_gt(hit, 0, "no session of the daemon waited on %s", wait_event);
    cr_assert(s.ok, "the order got no answer");
    *out = s.r;
}

/* The reply is 503 outcome_unknown with a Retry-After. */
static void expect_unknown(const struct http_reply *r)
{
    cr_expect_eq(r->status, 503, "%s", r->body);
    cr_expect_str_eq(r->content_type, "application/problem+json");
    cr_expect_str_eq(str(r->json, "code"), "outcome_unknown", "%s", r->body);
    char ra[16] = "";
    cr_expect(http_header(r, "Retry-After", ra, sizeof ra) && atoi(ra) >= 1,
              "503 outcome_unknown needs a Retry-After");
}

/* The number of "submitted" events of seat 0 in t's log. */
static long long submitted_by_seat0(const struct table *t)
{
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM events WHERE game_id = '%s' AND type = 'submitted' AND "
             "(data->>'seat')::int = 0",
             t->id);
    return db_num(db, sql);
}

/* The value of the unlabelled metric `name` on the daemon. */
static long long metric(const char *name)
{
    char url[300];
    snprintf(url, sizeof url, "%s/metrics", d.base);
    struct http_reply r;
    cr_assert(http_do("GET", url, NULL, NULL, &r));
    char key[120];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *at = strstr(r.body, key);
    long long v = at ? atoll(at + strlen(key)) : -1;
    http_reply_free(&r);
    return v;
}

/* Resends order and expects it taken (202, an amendment of the same order when the first
 * stood) or refused as stale (the first stood and the step resolved). */
static void resend(const struct table *t, const char *order)
{
    char url[512];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/orders", d.base, t->id);
    struct http_reply r;
    long status = 0;
    for (int i = 0; i < 50 && status != 202 && status != 409; i++) {
        cr_assert(http_do("POST", url, t->tokens[0], order, &r));
        status = r.status;
        if (status == 409)
            cr_expect_str_eq(str(r.json, "code"), "stale_step", "%s", r.body);
        http_reply_free(&r);
        if (status == 503)
            harness_sleep_ms(200);
    }
    cr_expect(status == 202 || status == 409, "the resend was answered %ld", status);
}

Test(ha, an_order_whose_connection_is_cut_during_commit_is_503_outcome_unknown)
{
    struct table t;
    create(&t, 2, 1, NULL);
    long long before = submitted_by_seat0(&t);
    /* A deferred trigger makes COMMIT itself slow, so the cut lands inside it. */
    db_num(db, "CREATE FUNCTION ha_slow() RETURNS trigger LANGUAGE plpgsql AS "
               "$$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$");
    db_num(db, "CREATE CONSTRAINT TRIGGER ha_slow AFTER INSERT ON event_batches DEFERRABLE "
               "INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ha_slow()");
    struct http_reply r;
    char *order;
    order_while(&t, "PgSleep", "pg_terminate_backend", &r, &order);
    expect_unknown(&r);
    http_reply_free(&r);
    db_num(db, "DROP TRIGGER ha_slow ON event_batches");
    cr_expect_eq(submitted_by_seat0(&t), before, "the cut COMMIT was rolled back");
    resend(&t, order);
    free(order);
    cr_expect_eq(submitted_by_seat0(&t), before + 1, "the resent order is in the log once");
    cr_expect_geq(metric("city_db_outcome_unknown_total"), 1);
    /* Every session of the daemon cut while idle: the pool finds them broken and reconnects. */
    long long before_cut = metric("city_db_reconnects_total");
    db_num(db, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
               "application_name = 'cityd' AND datname = current_database()");
    play_to_end(&t);
    check_log(&t);
    cr_expect_gt(metric("city_db_reconnects_total"), before_cut, "the pool made new connections");
}

Test(ha, an_order_whose_wait_for_the_standby_is_cancelled_is_503_outcome_unknown)
{
    struct table t;
    create(&t, 2, 1, NULL);
    long long before = submitted_by_seat0(&t);
    /* A standby that never comes: every commit waits, cluster-wide, so the others' tests wait
     * for the cluster lock first. The cancel makes the server drop the wait and report the
     * commit as done with a WARNING, which must not become a 202. */
    harness_lock(LOCK_EX);
    db_num(db, "ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
    db_num(db, "SELECT pg_reload_conf()");
    harness_sleep_ms(300);
    struct http_reply r;
    char *order;
    order_while(&t, "SyncRep", "pg_cancel_backend", &r, &order);
    db_num(db, "ALTER SYSTEM RESET synchronous_standby_names");
    db_num(db, "SELECT pg_reload_conf()");
    harness_sleep_ms(300);
    harness_lock(LOCK_SH);
    expect_unknown(&r);
    http_reply_free(&r);
    cr_expect_eq(submitted_by_seat0(&t), before + 1, "the commit stood on this server");
    resend(&t, order);
    free(order);
    cr_expect_eq(submitted_by_seat0(&t), before + 1, "the resent order is not taken twice");
    cr_expect_geq(metric("city_db_outcome_unknown_total"), 1);
    play_to_end(&t);
    check_log(&t);
}

/* Reads t's event log `n` times on a thread of its own (the pool opens a connection a reader). */
struct reader {
    char url[512];
    int n;
};

static void *read_events(void *arg)
{
    struct reader *rd = arg;
    for (int i = 0; i < rd->n; i++) {
        struct http_reply r;
        if (http_do("GET", rd->url, NULL, NULL, &r))
            http_reply_free(&r);
    }
    return NULL;
}

Test(ha, a_read_right_after_every_idle_session_is_cut_is_answered)
{
    /* A restart or failover closes every connection at once, but the server's kill reaches
     * each session a moment later, so idle connections can look alive when taken. However
     * many of them there are, the read is answered on a new one, never 503. */
    struct table t;
    create(&t, 2, 1, NULL);
    char path[200];
    snprintf(path, sizeof path, "/api/v1/games/%s/events?after=0", t.id);
    const char *count = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cityd' "
                        "AND datname = current_database() AND state = 'idle'";
    int tested = 0;
    for (int round = 0; round < 60 && tested < 10; round++) {
        struct reader rd[4];
        pthread_t th[4];
        for (int i = 0; i < 4; i++) {
            rd[i].n = 25;
            snprintf(rd[i].url, sizeof rd[i].url, "%s%s", d.base, path);
            cr_assert_eq(pthread_create(&th[i], NULL, read_events, &rd[i]), 0);
        }
        for (int i = 0; i < 4; i++)
            pthread_join(th[i], NULL);
        if (db_num(db, count) < 2)
            continue; /* the readers did not overlap: no pool of idle sessions to cut */
        db_num(db, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                   "application_name = 'cityd' AND datname = current_database()");
        json_t *e = call("GET", path, NULL, NULL, 200);
        json_decref(e);
        tested++;
    }
    cr_expect_geq(tested, 3, "only %d rounds of 60 had two idle sessions or more to cut", tested);
}

Test(ha, a_state_kept_in_memory_is_not_trusted_after_the_pool_lost_its_connections)
{
    /* A failover to a standby that lacked the last commits, or a restore, can lose what this
     * instance committed, and another writer can then save the same version with another
     * state: once the pool has found its connections broken, a game is read from the database
     * again, not from memory. */
    static const char hits[] = "city_state_cache_lookups_total{result=\"hit\"} ",
                      misses[] = "city_state_cache_lookups_total{result=\"miss\"} ";
    struct table t;
    create(&t, 2, 1, NULL);
    for (int round = 0; round < 2; round++) {
        cr_assert(send_suggested_order(&t, 0), "seat 0 has nothing to decide");
        double hit = metric_at(d.base, hits), miss = metric_at(d.base, misses);
        if (round == 1) {
            db_num(db, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                       "application_name = 'cityd' AND datname = current_database()");
            for (int i = 0; i < 100 && db_num(db, "SELECT count(*) FROM pg_stat_activity WHERE "
                                                  "application_name = 'cityd' AND "
                                                  "datname = current_database()") > 0;
                 i++)
                harness_sleep_ms(20);
        }
        /* The public view: a game load that asks the database for the row (a hand right after
         * this instance's order needs none: live_load_current, whose freshness is the view
         * cache's, kept by the hub's own connection). */
        json_decref(view(&t));
        if (round == 0) {
            cr_expect_eq(metric_at(d.base, hits), hit + 1, "the state is kept after the order");
        } else {
            cr_expect_eq(metric_at(d.base, hits), hit, "a state kept before the cut was used");
            cr_expect_eq(metric_at(d.base, misses), miss + 1, "the state was not read again");
        }
    }
}
