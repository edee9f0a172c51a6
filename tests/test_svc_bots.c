/* test_svc_bots.c: the expert bot in the service, through real HTTP against a real PostgreSQL:
 * it thinks on the bot pool (never inside a request), its decisions are submitted exactly once
 * (two daemons on one database), /metrics shows the pool, a game it plays to the end replays
 * exactly, and a game whose daemon died while its bot was due is finished by another daemon's
 * sweeper; a game created at a level (bot_level) reports it and its experts think at it; the
 * pool pauses (a bounded time) while people's requests are served; a new game's expert moves at
 * once; the workers think at the nice --bot-nice gives them (or at SCHED_IDLE with 0). */
#include "client.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static struct daemon d;
static char db[512];

static void up(void)
{
    db_create(db, sizeof db);
    daemon_start(&d, db, "--allow-seed --expert-ms 5 --hints-per-game 2");
    client_base = d.base;
}

static void down(void)
{
    daemon_stop(&d);
}

TestSuite(bots, .init = up, .fini = down, .timeout = 240);

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Creates a game of `seats` seats with bots `bots` (a JSON array) and `extra` fields; the other
 * seats are joined by people. */
static void create_with(struct table *t, int seats, const char *bots, int nbots, const char *extra)
{
    char body[512];
    snprintf(body, sizeof body, "{\"seats\": %d, \"bots\": %s%s}", seats, bots, extra);
    json_t *g = call("POST", "/api/v1/games", NULL, body, 201);
    snprintf(t->id, sizeof t->id, "%s", str(g, "id"));
    snprintf(t->host, sizeof t->host, "%s", str(g, "host_token"));
    json_decref(g);
    t->seats = seats;
    t->humans = seats - nbots;
    for (int s = 0; s < t->humans; s++) {
        char path[128];
        snprintf(path, sizeof path, "/api/v1/games/%s/join", t->id);
        char name[64]; /* one name a table: "Pat 1", "Pat 2"... */
        snprintf(name, sizeof name, "{\"name\": \"Pat %d\"}", s + 1);
        json_t *j = call("POST", path, NULL, name, 201);
        snprintf(t->tokens[s], sizeof t->tokens[s], "%s", str(j, "token"));
        json_decref(j);
    }
}

/* Plays the people's seats of t (their orders through `bases` in turn) until the game ends or
 * `limit` seconds pass; returns true when it ended. */
static bool play_until_over(struct table *t, const char *const *bases, int nbases, double limit)
{
    double end = seconds() + limit;
    for (int k = 0; seconds() < end; k++) {
        client_base = bases[k % nbases];
        json_t *v = view(t);
        bool over = strcmp(str(v, "status"), "finished") == 0;
        json_decref(v);
        if (over) {
            client_base = d.base;
            return true;
        }
        bool sent = false;
        for (int s = 0; s < t->humans; s++) {
            json_t *h = hand(t, s); /* the hand view's suggestion: a legal order of any game */
            json_t *sug = json_object_get(json_object_get(h, "pending"), "suggestion");
            char *order = json_is_object(sug) && !json_is_object(json_object_get(h, "order"))
                              ? json_dumps(sug, JSON_COMPACT)
                              : NULL;
            json_decref(h);
            if (!order)
                continue;
            char path[128], url[512];
            snprintf(path, sizeof path, "/api/v1/games/%s/orders", t->id);
            snprintf(url, sizeof url, "%s%s", client_base, path);
            struct http_reply r;
            cr_assert(http_do("POST", url, t->tokens[s], order, &r));
            cr_assert(r.status == 202 || r.status == 409, "order %s -> %ld %s", order, r.status,
                      r.body);
            http_reply_free(&r);
            free(order);
            sent = true;
        }
        if (!sent)
            nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL); /* the bots think */
    }
    client_base = d.base;
    return false;
}

/* Whether seat `seat` of t has submitted its decision for the current step. */
static bool seat_submitted(const struct table *t, int seat)
{
    json_t *v = view(t);
    bool sub = json_is_true(
        json_object_get(json_array_get(json_object_get(v, "seats"), (size_t)seat), "submitted"));
    json_decref(v);
    return sub;
}

/* Waits up to `limit` seconds (looking every `poll_ms`) until seats first..last of t have all
 * submitted their decisions for the current step; whether they have. */
static bool wait_submitted(const struct table *t, int first, int last, double limit, long poll_ms)
{
    for (double end = seconds() + limit;;) {
        bool all = true;
        for (int s = first; s <= last && all; s++)
            all = seat_submitted(t, s);
        if (all || seconds() >= end)
            return all;
        nanosleep(&(struct timespec){0, poll_ms * 1000 * 1000}, NULL);
    }
}

Test(bots, an_expert_plays_a_whole_game_on_the_pool_and_the_game_replays)
{
    struct table t;
    create_with(&t, 3, "[\"expert\", \"expert\"]", 2, ", \"seed\": 31");
    const char *bases[] = {d.base};
    cr_assert(play_until_over(&t, bases, 1, 120), "the game ends");
    check_log(&t);
    json_t *v = view(&t);
    cr_expect_str_eq(str(json_array_get(json_object_get(v, "seats"), 1), "bot"), "expert");
    json_decref(v);
    cr_expect_gt(metric_at(d.base, "city_bot_decisions_total{result=\"submitted\"} "), 10,
                 "the pool's decisions are counted");
    cr_expect_geq(metric_at(d.base, "city_bot_queue{state=\"queued\"} "), 0);
    cr_expect_gt(metric_at(d.base, "city_bot_decision_seconds_count "), 10);
    /* The replay reproduces the game, the experts' decisions included. */
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/replay/rounds", t.id);
    json_t *rr = call("GET", path, NULL, NULL, 200);
    json_t *last =
        json_object_get(json_array_get(json_object_get(rr, "rounds"),
                                       json_array_size(json_object_get(rr, "rounds")) - 1),
                        "view");
    v = view(&t);
    for (size_t s = 0; s < 3; s++)
        cr_expect_eq(num(json_array_get(json_object_get(last, "seats"), s), "vp"),
                     num(json_array_get(json_object_get(v, "seats"), s), "vp"), "seat %zu", s);
    json_decref(v);
    json_decref(rr);
}

/* The version of game `id` in the database (read there, not through a daemon). */
static long long stored_version(const char *id)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT version FROM games WHERE id = '%s'", id);
    return db_num(db, sql);
}

Test(bots, a_hand_read_after_an_experts_move_takes_the_state_from_memory)
{
    /* On a daemon of its own, so that no other test's loads move its counters. After the
     * person's order, the expert's move is the game's next save: once it is in the database
     * (watched there, so that the daemon loads nothing meanwhile), the person's hand is read
     * from the state the bot worker committed, not parsed from the row again. */
    struct daemon alone;
    daemon_start(&alone, db, "--allow-seed --expert-ms 5");
    client_base = alone.base;
    static const char hits[] = "city_state_cache_lookups_total{result=\"hit\"} ";
    struct table t;
    create_with(&t, 2, "[\"expert\"]", 1, ", \"seed\": 33");
    int moved = 0;
    for (int round = 0; round < 6 && moved < 3 && send_suggested_order(&t, 0); round++) {
        long long after_order = stored_version(t.id);
        double end = seconds() + 10;
        while (stored_version(t.id) == after_order && seconds() < end)
            harness_sleep_ms(20);
        if (stored_version(t.id) == after_order)
            continue;          /* no move of the expert's came after this order */
        harness_sleep_ms(300); /* the worker keeps the state it committed right after its commit */
        double before = metric_at(alone.base, hits);
        json_decref(hand(&t, 0));
        cr_expect_eq(metric_at(alone.base, hits), before + 1,
                     "round %d: the hand after the expert's move parsed the stored state", round);
        moved++;
    }
    cr_expect_geq(moved, 2, "the expert moved after only %d of the person's orders", moved);
    client_base = d.base;
    daemon_stop(&alone);
}

/* An expert and a greedy bot beside a person, the create body ending with `extra` (its game
 * and seed): the game ends and its log is gapless. */
static void experts_finish(const char *extra)
{
    struct table t;
    create_with(&t, 3, "[\"expert\", \"greedy\"]", 2, extra);
    const char *bases[] = {d.base};
    cr_assert(play_until_over(&t, bases, 1, 120), "the game ends (%s)", extra);
    check_log(&t);
}

Test(bots, experts_in_tech_city_and_simcity_play_to_the_end_too)
{
    experts_finish(", \"game\": \"tech_city\", \"seed\": 32");
    experts_finish(", \"game\": \"simcity\", \"seed\": 32");
}

Test(bots, two_daemons_submit_each_expert_decision_once)
{
    struct daemon d2;
    daemon_start(&d2, db, "--allow-seed --expert-ms 5");
    struct table t[3];
    for (int i = 0; i < 3; i++)
        create_with(&t[i], 4, "[\"expert\", \"expert\"]", 2, "");
    const char *bases[] = {d.base, d2.base};
    for (int i = 0; i < 3; i++) {
        cr_assert(play_until_over(&t[i], bases, 2, 120), "game %d ends", i);
        check_log(&t[i]); /* gapless, and each step opened exactly once */
    }
    daemon_stop(&d2);
}

Test(bots, a_game_whose_daemon_died_while_its_bot_was_due_is_finished_elsewhere)
{
    struct daemon d2;
    daemon_start(&d2, db, "--allow-seed --expert-ms 200 --bot-workers 1");
    /* Two experts and a person: the game starts at its creation, its bots due on d2's pool. */
    char url[512];
    snprintf(url, sizeof url, "%s/api/v1/games", d2.base);
    struct http_reply r;
    cr_assert(http_do("POST", url, NULL,
                      "{\"seats\": 3, \"bots\": [\"expert\", \"expert\"], \"name\": \"Pat\", "
                      "\"seed\": 9}",
                      &r));
    cr_assert_eq(r.status, 201, "%s", r.body);
    struct table t = {.seats = 3, .humans = 1};
    snprintf(t.id, sizeof t.id, "%s", str(r.json, "id"));
    snprintf(t.tokens[0], sizeof t.tokens[0], "%s", str(r.json, "token"));
    http_reply_free(&r);
    daemon_kill(&d2); /* mid-thought, most likely */
    /* Nobody sends anything: d's sweeper finds the bots overdue and its pool decides. */
    cr_assert(wait_submitted(&t, 1, 2, 30, 100),
              "the experts of a game whose daemon died decide on another daemon");
    const char *bases[] = {d.base};
    cr_assert(play_until_over(&t, bases, 1, 120), "another daemon's sweeper finishes the game");
    check_log(&t);
}

Test(bots, a_seat_asks_the_expert_for_a_few_hints_a_game)
{
    struct table t;
    create_with(&t, 2, "[\"greedy\"]", 1, ", \"seed\": 44");
    char hint[128], orders[128];
    snprintf(hint, sizeof hint, "/api/v1/games/%s/hint", t.id);
    snprintf(orders, sizeof orders, "/api/v1/games/%s/orders", t.id);
    int estimates = 0;
    for (int k = 0; k < 2; k++) {
        json_t *h = call("POST", hint, t.tokens[0], NULL, 200);
        cr_expect_str_eq(str(h, "by"), "expert");
        cr_expect_eq(num(h, "hints_left"), 1 - k);
        /* Why: the expert's estimate of its choice and, when it weighed another, the
         * runner-up's, whose suggestion is a legal order too (it is not sent). */
        json_t *e = json_object_get(h, "estimate");
        estimates += e != NULL;
        if (e) {
            cr_expect_gt(num(e, "playouts"), 0);
            double w = json_real_value(json_object_get(e, "win"));
            cr_expect(w >= 0 && w <= 1, "win %g", w);
            json_t *ru = json_object_get(e, "runner_up");
            if (ru) {
                cr_expect(json_is_object(json_object_get(ru, "suggestion")));
                cr_expect(!json_equal(json_object_get(ru, "suggestion"),
                                      json_object_get(h, "suggestion")));
                cr_expect_gt(num(json_object_get(ru, "estimate"), "playouts"), 0);
            }
        }
        char *order = json_dumps(json_object_get(h, "suggestion"), JSON_COMPACT);
        json_decref(call("POST", orders, t.tokens[0], order, 202)); /* a legal order as it is */
        free(order);
        json_decref(h);
    }
    cr_expect_gt(estimates, 0, "a hint says why");
    char url[512];
    snprintf(url, sizeof url, "%s%s", d.base, hint);
    struct http_reply r;
    cr_assert(http_do("POST", url, t.tokens[0], NULL, &r));
    cr_expect_eq(r.status, 429, "%s", r.body);
    cr_expect_str_eq(str(r.json, "code"), "too_many_hints");
    http_reply_free(&r);
    cr_assert(http_do("POST", url, t.host, NULL, &r));
    cr_expect_eq(r.status, 403, "%s", r.body);
    http_reply_free(&r);
}

/* The value of /metrics' counter of expert decisions at `level`. */
static double level_decisions(const char *level)
{
    char prefix[96];
    snprintf(prefix, sizeof prefix, "city_bot_level_decisions_total{level=\"%s\"} ", level);
    return metric_at(d.base, prefix);
}

Test(bots, a_game_created_at_a_level_stores_and_reports_it_and_its_experts_play_at_it)
{
    /* The levels are served with their budgets on this server (--expert-ms 5: the top). */
    json_t *rs = call("GET", "/api/v1/rulesets", NULL, NULL, 200);
    cr_expect_str_eq(str(rs, "default_bot_level"), "expert");
    json_t *levels = json_object_get(rs, "bot_levels");
    cr_assert_eq(json_array_size(levels), 3);
    cr_expect_str_eq(str(json_array_get(levels, 0), "id"), "easy");
    cr_expect_str_eq(str(json_array_get(levels, 2), "id"), "expert");
    cr_expect_eq(num(json_array_get(levels, 2), "think_ms"), 5, "the top level thinks --expert-ms");
    cr_expect_leq(num(json_array_get(levels, 0), "think_ms"), 5, "no level thinks longer");
    json_decref(rs);

    /* (Only this test plays at level easy: the other tests' games, which may run meanwhile, play
     * at the default level.) */
    double easy_before = level_decisions("easy");
    struct table t;
    char created[512];
    snprintf(created, sizeof created,
             "{\"seats\": 3, \"bots\": [\"expert\", \"expert\"], \"bot_level\": \"easy\", "
             "\"seed\": 33}");
    json_t *g = call("POST", "/api/v1/games", NULL, created, 201);
    cr_expect_str_eq(str(g, "bot_level"), "easy", "the create reply says the level");
    snprintf(t.id, sizeof t.id, "%s", str(g, "id"));
    json_decref(g);
    t.seats = 3;
    t.humans = 1;
    char path[128];
    snprintf(path, sizeof path, "/api/v1/games/%s/join", t.id);
    json_t *j = call("POST", path, NULL, "{\"name\": \"Pat\"}", 201);
    snprintf(t.tokens[0], sizeof t.tokens[0], "%s", str(j, "token"));
    json_decref(j);
    json_t *v = view(&t);
    cr_expect_str_eq(str(v, "bot_level"), "easy", "the game view says the level");
    json_decref(v);
    const char *bases[] = {d.base};
    cr_assert(play_until_over(&t, bases, 1, 120), "the game at level easy ends");
    check_log(&t);
    cr_expect_gt(level_decisions("easy"), easy_before + 10, "its experts thought at level easy");

    /* Without bot_level, the top level, as before levels existed. */
    struct table u;
    create_with(&u, 2, "[\"expert\"]", 1, "");
    v = view(&u);
    cr_expect_str_eq(str(v, "bot_level"), "expert");
    json_decref(v);
}

Test(bots, a_level_the_server_does_not_have_is_refused)
{
    static const struct {
        const char *body, *code;
    } bad[] = {
        {"{\"seats\": 2, \"bots\": [\"expert\"], \"bot_level\": \"grandmaster\"}", "bad_value"},
        {"{\"seats\": 2, \"bots\": [\"expert\"], \"bot_level\": \"Easy\"}", "bad_value"},
        {"{\"seats\": 2, \"bots\": [\"expert\"], \"bot_level\": 3}", "wrong_type"},
        {"{\"seats\": 2, \"bots\": [\"expert\"], \"bot_level\": [\"easy\"]}", "wrong_type"},
    };
    char url[512];
    snprintf(url, sizeof url, "%s/api/v1/games", d.base);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct http_reply r;
        cr_assert(http_do("POST", url, NULL, bad[i].body, &r));
        cr_expect_eq(r.status, 400, "%s -> %s", bad[i].body, r.body);
        cr_expect_str_eq(str(r.json, "code"), bad[i].code, "%s", bad[i].body);
        cr_expect(strstr(str(r.json, "detail"), "\"easy\", \"normal\", \"expert\"") != NULL,
                  "the detail lists the levels: %s", str(r.json, "detail"));
        http_reply_free(&r);
    }
}

/* A person reading its hand view without a pause until `stop`. */
struct reader {
    char url[512], token[128];
    atomic_bool stop;
    int ok;
};

static void *read_repeatedly(void *arg)
{
    struct reader *h = arg;
    while (!atomic_load(&h->stop)) {
        struct http_reply r;
        if (http_do("GET", h->url, h->token, NULL, &r)) {
            h->ok += r.status == 200;
            http_reply_free(&r);
        }
    }
    return NULL;
}

Test(bots, a_new_games_expert_decides_at_once_not_after_the_stale_sweep)
{
    /* The expert of a game that starts as it is created is woken by the creating transaction;
     * woken before its commit, the worker found no game yet and dropped it, and the expert moved
     * only when the sweeper found it stale, 4 to 6 s later. Ten games, one at a time. */
    double worst = 0;
    for (int i = 0; i < 10; i++) {
        double t0 = seconds();
        struct table t;
        /* the creator takes the other seat (no join): the game starts in the creating
         * transaction */
        create_with(&t, 2, "[\"expert\"]", 2, ", \"name\": \"Pat\"");
        cr_assert(wait_submitted(&t, 1, 1, 20, 5), "game %d: the expert never decided", i);
        double took = seconds() - t0;
        worst = took > worst ? took : worst;
    }
    cr_expect_lt(worst, 2.0, "an expert took %.2f s to make a new game's first move", worst);
}

Test(bots, the_pool_pauses_for_people_served_and_still_decides)
{
    /* One worker, pausing at most 200 ms of each decision for people's requests. */
    struct daemon d2;
    daemon_start(&d2, db, "--allow-seed --expert-ms 300 --bot-workers 1 --bot-yield-ms 200");
    client_base = d2.base;
    /* A person keeps the daemon busy: reads of a game of its own, one after another, each from
     * the database (its event log: a hand view is served from memory after the first, too
     * quickly for a playout's end to find it in progress). */
    struct table a;
    create_with(&a, 2, "[\"greedy\"]", 1, ", \"seed\": 11");
    struct reader h = {.ok = 0};
    snprintf(h.url, sizeof h.url, "%s/api/v1/games/%s/events?after=0", d2.base, a.id);
    snprintf(h.token, sizeof h.token, "%s", a.tokens[0]);
    atomic_init(&h.stop, false);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, read_repeatedly, &h), 0);
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    /* Meanwhile two experts must decide in another game. */
    struct table t;
    create_with(&t, 3, "[\"expert\", \"expert\"]", 2, ", \"seed\": 12");
    bool decided = wait_submitted(&t, 1, 2, 60, 20);
    atomic_store(&h.stop, true);
    pthread_join(th, NULL);
    cr_expect(decided, "the experts decide while a person keeps the daemon busy");
    cr_expect_gt(h.ok, 0, "the person's reads were answered");
    double paused = metric_at(d2.base, "city_bot_yield_seconds_total ");
    /* Any pause shows it (how long depends on how often the reader's requests were in progress
     * when a playout ended: 0.033 s was seen on a loaded machine, where 0.05 was asked). */
    cr_expect_gt(paused, 0.0, "the pool paused for the person's requests (%.3f s)", paused);
    /* 200 ms for each of the two decisions, give or take the scheduler's wake-ups on a loaded
     * machine (without the bound they would not have decided at all). */
    cr_expect_leq(paused, 1.0, "at most about 200 ms for each of the two decisions (%.3f s)",
                  paused);
    /* No request is left counted as in progress (else the pool would pause for ever): only the
     * metrics request itself. */
    cr_expect_eq(metric_at(d2.base, "city_requests_in_progress "), 1);
    client_base = d.base;
    daemon_stop(&d2);
}

Test(bots, a_person_waiting_for_an_expert_goes_ahead_of_games_of_bots_alone)
{
    /* One worker, no pauses, and twelve games of bots alone that keep it busy: each a person
     * and three experts, then the person leaves (a greedy bot takes the seat). */
    struct daemon d2;
    daemon_start(&d2, db, "--allow-seed --expert-ms 300 --bot-workers 1 --bot-yield-ms 0");
    client_base = d2.base;
    for (int i = 0; i < 12; i++) {
        struct table b;
        create_with(&b, 4, "[\"expert\", \"expert\", \"expert\"]", 3, "");
        char leave[160];
        snprintf(leave, sizeof leave, "/api/v1/games/%s/leave", b.id);
        json_decref(call("POST", leave, b.tokens[0], NULL, 200));
    }
    /* (Each game's first turn was queued while its person still sat there; the leave moved it
     * to the queue of bots alone.) A person sits down against one expert: its decision comes
     * before the bots-alone games' turns, so the worker finishes at most the game it is on
     * (three decisions) first. */
    const char *submitted = "city_bot_decisions_total{result=\"submitted\"} ";
    double before = metric_at(d2.base, submitted);
    struct table t;
    create_with(&t, 2, "[\"expert\"]", 1, "");
    bool decided = wait_submitted(&t, 1, 1, 60, 10);
    double between = metric_at(d2.base, submitted) - before;
    cr_assert(decided, "the person's expert decides");
    /* Served in turn, it would wait for the twelve games' 36 decisions. */
    cr_expect_leq(between, 3 + 1 + 3, "%.0f decisions were made before the person's expert's",
                  between);
    cr_expect_geq(metric_at(d2.base, "city_bot_queue_people "), 0);
    client_base = d.base;
    daemon_stop(&d2);
}

/* How many threads of process `pid` run at nice `nice`, by /proc/PID/task/TID/stat (the 17th
 * field after the command's closing parenthesis is the nice). */
static int threads_at_nice(pid_t pid, int nice)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *dp = opendir(dir);
    cr_assert_not_null(dp, "cannot read %s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        if (e->d_name[0] == '.')
            continue;
        char path[384], stat[1024];
        snprintf(path, sizeof path, "%s/%s/stat", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[len] = 0;
        const char *p = strrchr(stat, ')');
        for (int field = 0; p && field < 17; field++)
            p = strchr(p + 1, ' ');
        n += p && atoi(p + 1) == nice;
    }
    closedir(dp);
    return n;
}

Test(bots, the_workers_think_at_the_nice_they_are_given)
{
    /* The suite's daemon: the default, SCHED_IDLE. */
    cr_assert_eq(metric_at(d.base, "city_bot_worker_sched_idle "), 1);
    cr_assert_eq(metric_at(d.base, "city_bot_worker_nice{work=\"alone\"} "), 0);
    struct daemon d2;
    daemon_start(&d2, db, "--bot-nice 7 --bot-workers 3");
    cr_assert_eq(metric_at(d2.base, "city_bot_worker_nice{work=\"alone\"} "), 7);
    double people = metric_at(d2.base, "city_bot_worker_nice{work=\"people\"} ");
    cr_assert(people == 0 || people == 7, "people's work at nice 0 (or 7 where it cannot go back)");
    cr_assert_eq(threads_at_nice(d2.pid, 7), 3, "the three idle workers, and no other thread");
    cr_assert_eq(metric_at(d2.base, "city_bot_worker_sched_idle "), 0);
    daemon_stop(&d2);
}
