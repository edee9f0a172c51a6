/* test_load_faults.c: the races, crash and database-restart part of the reliability suite.
 *
 * Many all-human games run at once on two cityd daemons that share one database (LOAD_GAMES at
 * a time, a finished game making room for a new one, TOTAL_GAMES per test). The load comes in
 * waves: in each wave every seat of every game still playing reads its hand, waits at one
 * barrier with all the others, and sends its order at the same instant, seats alternating
 * between the two daemons, so the orders of one game collide on its row from both instances
 * while the other games run beside them. Three tests: the races alone; the races while a
 * daemon is killed with SIGKILL in the middle of a wave (several times) and started again; the
 * races while PostgreSQL is stopped at once (immediate shutdown) in the middle of the load,
 * kept down under load and started again.
 *
 * Every 202 is recorded client-side (game, round, step, seat, body). Afterwards each game is
 * checked straight from PostgreSQL with libpq: every resolved step has exactly one decision per
 * pending seat and exactly one "step" (or "game_over") event, steps_resolved agrees with both,
 * the event log is gapless up to last_seq, the open step has no decision yet (nothing
 * half-resolved), the stored state loads with the real catalog and passes the engine's
 * card-conservation check, and every acknowledged order is in the orders table and, once its
 * step resolved, in the decisions. Counts go to $CITY_COUNTS for
 * scripts/reliability-summary.sh, which fails when lost_orders is not zero. */
#include "../client.h"
#include "../helpers.h"

#include "the_city/city_json.h"

#include <pthread.h>
#include <stdatomic.h>

enum {
    LOAD_GAMES = 16,  /* games playing at once: one ending makes room for the next */
    TOTAL_GAMES = 32, /* games played to their end in each test */
    MAX_JOBS = LOAD_GAMES * CITY_MAX_PLAYERS,
    MAX_WAVES = 300,       /* every game ends well before this many waves */
    REQUEST_MS = 20000,    /* a request unanswered for this long is a hang */
    KILLS = 5,             /* SIGKILLs in the crash test */
    DB_RESTARTS = 3,       /* immediate stops in the database test */
    OUTAGE_MS = 1500,      /* how long the database stays down, under load */
    RECOVERY_SECONDS = 15, /* full service again within this after the database is back */
    MAX_LOGS = 32,         /* daemon logs kept for the sanitizer scan */
};

static struct daemon dm[2];
static char db[512];
static struct city_catalog cat;
static PGconn *pg; /* the test's own connection to the game database */
static char logs[MAX_LOGS][1200];
static int nlogs;

/* ---- the load's bookkeeping ---------------------------------------------------------------- */

/* An order that got a 202. */
struct ack {
    int game;
    int round;
    char step[16];
    int seat;
    char *body;
    bool missing; /* an audit did not find it */
};

/* What the requests got, beyond the 200s and 202s. */
struct tally {
    long races;       /* steps where every pending seat sent its order at the same instant */
    long accepted;    /* 202s */
    long stale;       /* 409s */
    long unavailable; /* 503s */
    long unknown;     /* 503 outcome_unknown: the connection broke after COMMIT went out */
    long bad_503;     /* 503s that were neither a database_unavailable nor an outcome_unknown
                       * problem+json */
    long cut;         /* no response: the connection was refused or cut (a killed daemon) */
    long hangs;       /* no response within REQUEST_MS */
    long other;       /* anything else: a 500, a 4xx the client did not earn */
    char first_other[600];
};

static struct {
    struct table t[TOTAL_GAMES];
    bool over[TOTAL_GAMES];
    int ngames, playing;
    char last_order[TOTAL_GAMES][CITY_MAX_PLAYERS][1024]; /* each seat's last order sent */
    pthread_mutex_t mu;                                   /* guards acks and n */
    struct ack *acks;
    size_t nacks, cap;
    struct tally n;
    atomic_int answered; /* orders answered in the current wave */
} L = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Records a 202 for seat's order `body` (one of our own, so JSON with a round and a step).
 * Called from the load's threads: no cr_assert here. */
static void record_ack(int game, int seat, const char *body)
{
    json_t *o = json_loads(body, 0, NULL);
    struct ack a = {.game = game, .round = (int)num(o, "round"), .seat = seat};
    snprintf(a.step, sizeof a.step, "%s", o ? str(o, "step") : "?");
    json_decref(o);
    a.body = strdup(body);
    pthread_mutex_lock(&L.mu);
    if (L.nacks == L.cap) {
        L.cap = L.cap ? L.cap * 2 : 1024;
        L.acks = realloc(L.acks, L.cap * sizeof *L.acks);
        if (!L.acks)
            abort();
    }
    L.acks[L.nacks++] = a;
    L.n.accepted++;
    pthread_mutex_unlock(&L.mu);
}

/* Counts a reply that is neither a 200 nor a 202 (from any thread). */
static void tally_reply(const struct http_reply *r, const char *what)
{
    pthread_mutex_lock(&L.mu);
    if (r->status == 409) {
        L.n.stale++;
    } else if (r->status == 503) {
        L.n.unavailable++;
        /* A write in flight when the database stops dies with its connection: when its COMMIT
         * had gone out, the daemon cannot know whether it stood (issue 28), and says so. Either
         * way it was not acknowledged, so the audit of the 202s holds for both. */
        const char *code = r->json ? str(r->json, "code") : NULL;
        bool problem = strcmp(r->content_type, "application/problem+json") == 0 && code;
        if (problem && strcmp(code, "outcome_unknown") == 0)
            L.n.unknown++;
        else if (!problem || strcmp(code, "database_unavailable") != 0)
            L.n.bad_503++;
    } else if (r->status == 0 && r->timed_out) {
        L.n.hangs++;
    } else if (r->status == 0) {
        L.n.cut++;
    } else {
        if (!L.n.other++)
            snprintf(L.n.first_other, sizeof L.n.first_other, "%s -> %ld %.400s", what, r->status,
                     r->body ? r->body : "");
    }
    pthread_mutex_unlock(&L.mu);
}

/* ---- daemons, the database, counts ---------------------------------------------------------- */

static void daemon_up(int i)
{
    daemon_start(&dm[i], db, "--allow-seed");
    cr_assert_lt(nlogs, MAX_LOGS);
    snprintf(logs[nlogs++], sizeof logs[0], "%s", dm[i].log);
}

/* (Re)connects the test's own connection when it is not usable. */
static void pg_connect(void)
{
    if (pg && PQstatus(pg) == CONNECTION_OK)
        return;
    PQfinish(pg);
    pg = PQconnectdb(db);
    cr_assert(PQstatus(pg) == CONNECTION_OK, "cannot connect to %s: %s", db, PQerrorMessage(pg));
}

/* Runs `q` with text parameters; fails the test unless it succeeds. The caller PQclear()s. */
static PGresult *sql(const char *q, int n, const char *const *vals)
{
    pg_connect();
    PGresult *r = PQexecParams(pg, q, n, NULL, vals, NULL, NULL, 0);
    ExecStatusType es = PQresultStatus(r);
    cr_assert(es == PGRES_TUPLES_OK || es == PGRES_COMMAND_OK, "%s: %s", q,
              PQresultErrorMessage(r));
    return r;
}

static long long sql_ll(const PGresult *r, int row, int col)
{
    return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

/* Appends "key value" to $CITY_COUNTS (when set). */
static void count_add(const char *key, long value)
{
    const char *path = getenv("CITY_COUNTS");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f, "cannot append to %s: %s", path, strerror(errno));
    fprintf(f, "%s %ld\n", key, value);
    fclose(f);
}

static void up(void)
{
    db_create(db, sizeof db);
    load_catalog(&cat);
    daemon_up(0);
    daemon_up(1);
    client_base = dm[0].base;
}

static void down(void)
{
    daemon_stop(&dm[0]);
    daemon_stop(&dm[1]);
    PQfinish(pg);
    pg = NULL;
    for (size_t i = 0; i < L.nacks; i++)
        free(L.acks[i].body);
    free(L.acks);
}

TestSuite(load, .init = up, .fini = down, .timeout = 100);

/* ---- the load ------------------------------------------------------------------------------- */

/* Creates games until LOAD_GAMES are playing or TOTAL_GAMES have been made: all human, of 2
 * to 5 seats, seeded (each run plays the same games), made through each daemon in turn.
 * Returns how many are playing. */
static int top_up(void)
{
    while (L.playing < LOAD_GAMES && L.ngames < TOTAL_GAMES) {
        int g = L.ngames++;
        char extra[96];
        snprintf(extra, sizeof extra, ", \"seed\": %d", 7100 + g);
        client_base = dm[g % 2].base;
        create(&L.t[g], CITY_MIN_PLAYERS + g % (CITY_MAX_PLAYERS - CITY_MIN_PLAYERS + 1), 0, extra);
        L.playing++;
    }
    client_base = dm[0].base;
    return L.playing;
}

/* One seat's part in one wave. */
struct job {
    int g, s;
    char hand_url[256], order_url[256];
    pthread_barrier_t *go;
    bool resend; /* when the hand cannot be read, send the seat's last order again */
    /* results */
    bool read;     /* the hand was read */
    bool pending;  /* the seat had a decision to make */
    bool finished; /* the game was over */
    bool sent;     /* an order went out */
};

static void *seat_run(void *arg)
{
    struct job *j = arg;
    const struct table *t = &L.t[j->g];
    char *order = NULL;
    struct http_request rq = {
        .method = "GET", .url = j->hand_url, .bearer = t->tokens[j->s], .timeout_ms = REQUEST_MS};
    struct http_reply r;
    http_request(&rq, &r);
    if (r.status == 200 && r.json) {
        j->read = true;
        const char *status = str(r.json, "status");
        j->finished = status && strcmp(status, "finished") == 0;
        j->pending = json_is_object(json_object_get(r.json, "pending"));
        /* A seat whose order is already in (a retry after a fault) waits for the others. */
        if (j->pending && !json_object_get(r.json, "order")) {
            order = choose_order(r.json);
            if (order)
                snprintf(L.last_order[j->g][j->s], sizeof L.last_order[0][0], "%s", order);
        }
    } else {
        tally_reply(&r, "GET hand");
        if (j->resend && L.last_order[j->g][j->s][0])
            order = strdup(L.last_order[j->g][j->s]);
    }
    http_reply_free(&r);

    pthread_barrier_wait(j->go);
    if (!order)
        return NULL;
    j->sent = true;
    rq = (struct http_request){.method = "POST",
                               .url = j->order_url,
                               .bearer = t->tokens[j->s],
                               .body = order,
                               .len = strlen(order),
                               .timeout_ms = REQUEST_MS};
    http_request(&rq, &r);
    atomic_fetch_add(&L.answered, 1);
    if (r.status == 202)
        record_ack(j->g, j->s, order);
    else
        tally_reply(&r, order);
    http_reply_free(&r);
    free(order);
    return NULL;
}

/* Runs one wave over every game still playing: one thread per seat, all released at once by
 * one barrier. Seat s of game g sends its order to daemon (g + s) % 2 and reads its hand from
 * the other. When `fault` is not NULL, the calling thread runs it as soon as the first order
 * of the wave has been answered, while the rest are in flight. Returns how many games are
 * still playing. One wave at a time; it may run on a thread of its own (no cr_assert: a
 * failure to make threads aborts the test). */
static int wave(bool resend, void (*fault)(void))
{
    static struct job jobs[MAX_JOBS];
    pthread_t th[MAX_JOBS];
    int n = 0;
    for (int g = 0; g < L.ngames; g++) {
        if (L.over[g])
            continue;
        for (int s = 0; s < L.t[g].seats; s++) {
            if (n == MAX_JOBS)
                abort(); /* top_up() keeps at most LOAD_GAMES playing */
            struct job *j = &jobs[n++];
            *j = (struct job){.g = g, .s = s, .resend = resend};
            snprintf(j->hand_url, sizeof j->hand_url, "%s/api/v1/games/%s/hand",
                     dm[(g + s + 1) % 2].base, L.t[g].id);
            snprintf(j->order_url, sizeof j->order_url, "%s/api/v1/games/%s/orders",
                     dm[(g + s) % 2].base, L.t[g].id);
        }
    }
    if (n == 0)
        return L.playing = 0;
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)n + 1);
    atomic_store(&L.answered, 0);
    for (int i = 0; i < n; i++) {
        jobs[i].go = &go;
        if (pthread_create(&th[i], NULL, seat_run, &jobs[i]) != 0)
            abort();
    }
    pthread_barrier_wait(&go);
    if (fault) {
        double until = harness_now() + 5;
        while (atomic_load(&L.answered) == 0 && harness_now() < until)
            harness_sleep_ms(1);
        fault();
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);

    /* A race: every seat with a decision read its hand and sent its order at once. */
    int playing = 0;
    for (int i = 0; i < n;) {
        int g = jobs[i].g, sent = 0, pending = 0;
        bool all_read = true;
        for (; i < n && jobs[i].g == g; i++) {
            all_read = all_read && jobs[i].read;
            pending += jobs[i].pending;
            sent += jobs[i].sent;
            L.over[g] = L.over[g] || jobs[i].finished;
        }
        if (all_read && sent >= 2 && sent == pending)
            L.n.races++;
        playing += !L.over[g];
    }
    L.playing = playing;
    return playing;
}

/* Runs waves, topping up the games, until every game has been played to its end. */
static void play_all_waves(void)
{
    for (int w = 0; top_up() > 0; w++) {
        cr_assert_lt(w, MAX_WAVES, "the games did not end within %d waves", MAX_WAVES);
        wave(false, NULL);
    }
}

/* ---- checks straight from PostgreSQL ------------------------------------------------------ */

/* Checks game g's stored rows: exactly-once resolution, a gapless log, conservation, nothing
 * half-resolved. When `exact` (no faults, every seat submitted once per step), the "submitted"
 * events and the decisions also match the 202s one for one. */
static void check_game(int g, bool exact)
{
    const char *id = L.t[g].id;
    PQclear(sql("BEGIN ISOLATION LEVEL REPEATABLE READ", 0, NULL));
    const char *v1[] = {id};
    PGresult *r = sql("SELECT status, steps_resolved, ndecisions, last_seq, players, state::text "
                      "FROM games WHERE id = $1",
                      1, v1);
    cr_assert_eq(PQntuples(r), 1, "game %s is not stored", id);
    char status[16];
    snprintf(status, sizeof status, "%s", PQgetvalue(r, 0, 0));
    long long steps = sql_ll(r, 0, 1), ndec = sql_ll(r, 0, 2), last_seq = sql_ll(r, 0, 3);
    long long players = sql_ll(r, 0, 4);
    json_error_t je;
    json_t *state = json_loads(PQgetvalue(r, 0, 5), 0, &je);
    PQclear(r);
    cr_assert_not_null(state, "game %s: the stored state is not JSON: %s", id, je.text);
    static struct city_game gm;
    char err[256] = "";
    bool loaded = city_from_json(&gm, &cat, state, err, sizeof err);
    json_decref(state);
    cr_assert(loaded, "game %s: the engine refuses the stored state: %s", id, err);
    cr_assert(city_check_conservation(&gm), "game %s: the stored state loses or doubles a card",
              id);
    bool finished = strcmp(status, "finished") == 0;
    cr_assert_eq(finished, gm.step == CITY_STEP_OVER,
                 "game %s: status %s but the state's step is %s", id, status,
                 city_step_name(gm.step));

    /* The log: seq 1..last_seq without a gap (seq is unique per game); one "step" event per
     * step opened, none twice, plus one "game_over": together, one per resolution. */
    r = sql("SELECT count(*), coalesce(min(seq), 0), coalesce(max(seq), 0), "
            "count(*) FILTER (WHERE type = 'step'), count(*) FILTER (WHERE type = 'game_over'), "
            "count(DISTINCT (data->>'round') || ':' || (data->>'step')) FILTER (WHERE type = "
            "'step'), count(*) FILTER (WHERE type = 'submitted') FROM events WHERE game_id = $1",
            1, v1);
    long long nev = sql_ll(r, 0, 0), min_seq = sql_ll(r, 0, 1), max_seq = sql_ll(r, 0, 2);
    long long nstep = sql_ll(r, 0, 3), nover = sql_ll(r, 0, 4), nstep_keys = sql_ll(r, 0, 5);
    long long nsubmitted = sql_ll(r, 0, 6);
    PQclear(r);
    cr_assert(nev == last_seq && min_seq == 1 && max_seq == last_seq,
              "game %s: %lld events, seq %lld..%lld, last_seq %lld: the log has a gap", id, nev,
              min_seq, max_seq, last_seq);
    cr_assert_eq(nstep, nstep_keys,
                 "game %s: a step was opened twice (%lld step events, %lld "
                 "steps)",
                 id, nstep, nstep_keys);
    cr_assert_eq(nover, finished ? 1 : 0, "game %s: %lld game_over events", id, nover);
    cr_assert_eq(nstep + nover, steps,
                 "game %s: %lld step + %lld game_over events for %lld steps "
                 "resolved",
                 id, nstep, nover, steps);
    if (!finished && nstep > 0) {
        r = sql("SELECT data->>'round', data->>'step' FROM events WHERE game_id = $1 AND type = "
                "'step' ORDER BY seq DESC LIMIT 1",
                1, v1);
        cr_assert(atoi(PQgetvalue(r, 0, 0)) == gm.round &&
                      strcmp(PQgetvalue(r, 0, 1), city_step_name(gm.step)) == 0,
                  "game %s: the last step event opened %s %s, the state is at %d %s", id,
                  PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1), gm.round, city_step_name(gm.step));
        PQclear(r);
    }

    /* The decisions: n 0..ndecisions-1; one per seat per resolved step; keep and build steps
     * have every seat; the open step has none yet. */
    char round[16];
    snprintf(round, sizeof round, "%d", gm.round);
    const char *v3[] = {id, round, city_step_name(gm.step)};
    r = sql("SELECT count(*), coalesce(min(n), -1), coalesce(max(n), -1), "
            "count(DISTINCT (round, step)), count(DISTINCT (round, step, seat)), "
            "count(*) FILTER (WHERE round = $2::int AND step = $3), "
            "count(*) FILTER (WHERE is_default) FROM decisions WHERE game_id = $1",
            3, v3);
    long long ndecisions = sql_ll(r, 0, 0), min_n = sql_ll(r, 0, 1), max_n = sql_ll(r, 0, 2);
    long long dsteps = sql_ll(r, 0, 3), dseats = sql_ll(r, 0, 4), dopen = sql_ll(r, 0, 5);
    long long ddefault = sql_ll(r, 0, 6);
    PQclear(r);
    cr_assert(ndecisions == ndec && min_n == (ndec ? 0 : -1) && max_n == ndec - 1,
              "game %s: %lld decisions numbered %lld..%lld, ndecisions %lld", id, ndecisions, min_n,
              max_n, ndec);
    cr_assert_eq(dsteps, steps, "game %s: decisions for %lld steps, %lld steps resolved", id,
                 dsteps, steps);
    cr_assert_eq(dseats, ndecisions, "game %s: a seat has two decisions for one step", id);
    cr_assert(finished || dopen == 0, "game %s: the open step %d %s already has %lld decisions", id,
              gm.round, city_step_name(gm.step), dopen);
    cr_assert_eq(ddefault, 0, "game %s: %lld default decisions, but nothing was overdue", id,
                 ddefault);
    char np[16];
    snprintf(np, sizeof np, "%lld", players);
    const char *v2[] = {id, np};
    r = sql("SELECT round, step, count(*) FROM decisions WHERE game_id = $1 AND step IN ('keep', "
            "'build') GROUP BY round, step HAVING count(*) <> $2::int",
            2, v2);
    cr_assert_eq(PQntuples(r), 0, "game %s: round %s %s has %s decisions for %lld seats", id,
                 PQntuples(r) ? PQgetvalue(r, 0, 0) : "", PQntuples(r) ? PQgetvalue(r, 0, 1) : "",
                 PQntuples(r) ? PQgetvalue(r, 0, 2) : "", players);
    PQclear(r);
    PQclear(sql("COMMIT", 0, NULL));

    if (exact) {
        long long acks = 0;
        for (size_t i = 0; i < L.nacks; i++)
            acks += L.acks[i].game == g;
        cr_assert_eq(nsubmitted, acks, "game %s: %lld submitted events for %lld 202s", id,
                     nsubmitted, acks);
        cr_assert_eq(ndecisions, acks, "game %s: %lld decisions for %lld 202s", id, ndecisions,
                     acks);
    }
}

static void check_games(bool exact)
{
    for (int g = 0; g < L.ngames; g++)
        check_game(g, exact);
}

/* Every order that got a 202 is in the orders table (as the last 202 of its seat and step
 * left it: a later order of the same seat for the same step replaces it) and, when its step
 * has resolved, among the decisions. Marks the 202s missing now and returns how many there
 * are; logs the first. */
static long audit_acks(void)
{
    long lost = 0;
    for (size_t i = 0; i < L.nacks; i++) {
        const struct ack *a = &L.acks[i], *last = a;
        for (size_t k = i + 1; k < L.nacks; k++) {
            const struct ack *b = &L.acks[k];
            if (b->game == a->game && b->round == a->round && b->seat == a->seat &&
                strcmp(b->step, a->step) == 0)
                last = b;
        }
        char round[16], seat[16];
        snprintf(round, sizeof round, "%d", a->round);
        snprintf(seat, sizeof seat, "%d", a->seat);
        const char *v[] = {L.t[a->game].id, round, a->step, seat, last->body};
        PGresult *r = sql(
            "SELECT (SELECT count(*) FROM orders WHERE game_id = $1 AND round = $2::int AND step = "
            "$3 AND seat = $4::int AND body = $5::jsonb), (SELECT count(*) FROM decisions WHERE "
            "game_id = $1 AND round = $2::int AND step = $3 AND seat = $4::int AND body = "
            "$5::jsonb AND NOT is_default), (SELECT status = 'finished' OR (state->>'round')::int "
            "<> $2::int OR state->>'step' <> $3 FROM games WHERE id = $1)",
            5, v);
        bool in_orders = sql_ll(r, 0, 0) == 1, in_decisions = sql_ll(r, 0, 1) == 1;
        bool resolved = PQgetvalue(r, 0, 2)[0] == 't';
        PQclear(r);
        if (!in_orders || (resolved && !in_decisions)) {
            L.acks[i].missing = true;
            if (!lost)
                cr_log_error("lost: game %s seat %d round %d %s: %s (orders %d, resolved %d, "
                             "decisions %d)",
                             L.t[a->game].id, a->seat, a->round, a->step, last->body, in_orders,
                             resolved, in_decisions);
            lost++;
        }
    }
    return lost;
}

/* How many 202s any audit found missing: the lost orders. (An audit right after a fault
 * matters: a lost order sent again with the same body would pass a later one.) */
static long lost_orders(void)
{
    long n = 0;
    for (size_t i = 0; i < L.nacks; i++)
        n += L.acks[i].missing;
    return n;
}

/* The daemons' logs hold no sanitizer report. */
static void check_logs(void)
{
    for (int i = 0; i < nlogs; i++) {
        FILE *f = fopen(logs[i], "rb");
        if (!f)
            continue;
        char line[1024];
        while (fgets(line, sizeof line, f))
            cr_expect(!strstr(line, "Sanitizer") && !strstr(line, "runtime error:"), "%s: %s",
                      logs[i], line);
        fclose(f);
    }
}

/* Stops both daemons (each must shut down cleanly) and scans every log. */
static void stop_daemons_and_check_logs(void)
{
    for (int i = 0; i < 2; i++) {
        char tail[1500];
        int st = daemon_stop(&dm[i]);
        cr_expect_eq(st, 0, "daemon %d exited with %d; log %s:\n%s", i, st, dm[i].log,
                     daemon_log_tail(&dm[i], tail, sizeof tail));
    }
    check_logs();
}

/* The games went on to their end after the faults: each finished with winners (play_to_end
 * finds nothing left to play) and its public log reads gapless through the API. */
static void check_finished_through_the_api(void)
{
    for (int g = 0; g < L.ngames; g++) {
        client_base = dm[g % 2].base;
        play_to_end(&L.t[g]);
        check_log(&L.t[g]);
    }
    client_base = dm[0].base;
}

static void log_tally(const char *test)
{
    cr_log_info("%s: %zu 202s, %ld races, %ld 409s, %ld 503s, %ld cut, %ld hangs, %ld other", test,
                L.nacks, L.n.races, L.n.stale, L.n.unavailable, L.n.cut, L.n.hangs, L.n.other);
}

/* ---- the tests ------------------------------------------------------------------------------ */

Test(load, simultaneous_orders_through_two_daemons_resolve_every_step_exactly_once)
{
    play_all_waves();
    log_tally("races");
    cr_expect_eq(L.n.other + L.n.stale + L.n.unavailable + L.n.cut + L.n.hangs, 0,
                 "every simultaneous order should get a 202: %ld 409s, %ld 503s, %ld without an "
                 "answer, %ld hangs, %ld other (first: %s)",
                 L.n.stale, L.n.unavailable, L.n.cut, L.n.hangs, L.n.other, L.n.first_other);
    cr_assert_gt(L.n.races, TOTAL_GAMES * 5, "only %ld races were run", L.n.races);
    check_games(true);
    check_finished_through_the_api();
    audit_acks();
    long lost = lost_orders();
    count_add("races_run", L.n.races);
    count_add("orders_accepted", L.n.accepted);
    count_add("lost_orders", lost);
    cr_assert_eq(lost, 0, "%ld acknowledged orders are missing from the database", lost);
    stop_daemons_and_check_logs();
}

static int victim;

static void kill_victim(void)
{
    kill(dm[victim].pid, SIGKILL);
}

Test(load, every_acknowledged_order_survives_a_kill_9)
{
    int kills = 0;
    long cut_by_kills = 0;
    for (int w = 0; top_up() > 0; w++) {
        cr_assert_lt(w, MAX_WAVES, "the games did not end within %d waves", MAX_WAVES);
        bool strike = kills < KILLS && w % 3 == 2;
        victim = kills % 2;
        long cut_before = L.n.cut;
        wave(false, strike ? kill_victim : NULL);
        if (strike) {
            cr_assert_eq(daemon_wait(&dm[victim], 10), 128 + SIGKILL, "daemon %d did not die",
                         victim);
            cut_by_kills += L.n.cut - cut_before;
            daemon_up(victim);
            /* At once after the restart: nothing acknowledged is missing, nothing is
             * half-resolved. */
            check_games(false);
            long missing = audit_acks();
            cr_expect_eq(missing, 0, "after kill %d, %ld acknowledged orders are missing",
                         kills + 1, missing);
            kills++;
        }
    }
    cr_assert_eq(kills, KILLS, "the games ended after %d of the %d kills", kills, KILLS);
    log_tally("kills");
    cr_log_info("kills: %ld requests cut by the kills", cut_by_kills);
    cr_expect_eq(L.n.other + L.n.hangs + L.n.unavailable, 0,
                 "%ld hangs, %ld 503s, %ld other (first: %s)", L.n.hangs, L.n.unavailable,
                 L.n.other, L.n.first_other);
    cr_expect_gt(cut_by_kills, 0, "no kill caught a request in flight");
    check_games(false);
    check_finished_through_the_api();
    audit_acks();
    long lost = lost_orders();
    count_add("races_run", L.n.races);
    count_add("orders_accepted", L.n.accepted);
    count_add("kills_survived", kills);
    count_add("lost_orders", lost);
    cr_assert_eq(lost, 0, "%ld acknowledged orders are missing from the database", lost);
    stop_daemons_and_check_logs();
}

/* Waves on a thread of their own, each seat sending its last order again when its hand
 * cannot be read, until told to stop: the load that runs while the database goes down, stays
 * down and comes back. */
static struct {
    pthread_t th;
    atomic_bool stop;
    atomic_long waves;
} loader;

static void *loader_run(void *arg)
{
    (void)arg;
    while (!atomic_load(&loader.stop)) {
        if (wave(true, NULL) == 0)
            harness_sleep_ms(10);
        atomic_fetch_add(&loader.waves, 1);
    }
    return NULL;
}

static void loader_start(void)
{
    atomic_store(&loader.stop, false);
    atomic_store(&loader.waves, 0);
    cr_assert_eq(pthread_create(&loader.th, NULL, loader_run, NULL), 0);
}

static void loader_stop(void)
{
    atomic_store(&loader.stop, true);
    pthread_join(loader.th, NULL);
}

static long unavailable_so_far(void)
{
    pthread_mutex_lock(&L.mu);
    long n = L.n.unavailable;
    pthread_mutex_unlock(&L.mu);
    return n;
}

static size_t acks_so_far(void)
{
    pthread_mutex_lock(&L.mu);
    size_t n = L.nacks;
    pthread_mutex_unlock(&L.mu);
    return n;
}

/* Seconds until both daemons answer /healthz with 200 and serve a hand, and the load has had an
 * order accepted, at most `limit`. */
static double await_full_service(double limit)
{
    double start = harness_now();
    size_t acks = acks_so_far();
    for (int i = 0; i < 2; i++) {
        char urls[2][256];
        snprintf(urls[0], sizeof urls[0], "%s/healthz", dm[i].base);
        snprintf(urls[1], sizeof urls[1], "%s/api/v1/games/%s/hand", dm[i].base, L.t[0].id);
        for (int k = 0; k < 2; k++) {
            long status = 0;
            while (status != 200 && harness_now() - start < limit) {
                struct http_reply r;
                struct http_request rq = {.method = "GET",
                                          .url = urls[k],
                                          .bearer = k ? L.t[0].tokens[0] : NULL,
                                          .timeout_ms = REQUEST_MS};
                http_request(&rq, &r);
                status = r.status;
                if (status != 200)
                    tally_reply(&r, urls[k]);
                http_reply_free(&r);
                if (status != 200)
                    harness_sleep_ms(50);
            }
        }
    }
    while (acks_so_far() == acks && harness_now() - start < limit)
        harness_sleep_ms(10);
    return harness_now() - start;
}

Test(load, orders_get_503_while_the_database_is_down_and_none_is_lost)
{
    int restarts = 0;
    long outage_waves = 0;
    double slowest = 0;
    for (int w = 0; top_up() > 0; w++) {
        cr_assert_lt(w, MAX_WAVES, "the games did not end within %d waves", MAX_WAVES);
        if (restarts == DB_RESTARTS || w % 6 != 3) {
            wave(false, NULL);
            continue;
        }
        /* Stop the database in the middle of the load's second wave, keep the load on it
         * while it is down and while it comes back. */
        loader_start();
        double until = harness_now() + 10;
        while (atomic_load(&loader.waves) < 1 && harness_now() < until)
            harness_sleep_ms(1);
        harness_sleep_ms(20);
        long before = unavailable_so_far();
        pg_stop_now();
        harness_sleep_ms(OUTAGE_MS);
        cr_expect_gt(unavailable_so_far(), before, "no 503 while the database was down");
        pg_start_again();
        PQfinish(pg); /* cut by the stop */
        pg = NULL;
        double took = await_full_service(RECOVERY_SECONDS);
        loader_stop();
        outage_waves += atomic_load(&loader.waves);
        cr_assert_lt(took, RECOVERY_SECONDS, "no full service %d s after the database came back",
                     RECOVERY_SECONDS);
        if (took > slowest)
            slowest = took;
        check_games(false);
        long missing = audit_acks();
        cr_expect_eq(missing, 0, "after restart %d, %ld acknowledged orders are missing",
                     restarts + 1, missing);
        restarts++;
    }
    cr_assert_eq(restarts, DB_RESTARTS, "the games ended after %d of the %d restarts", restarts,
                 DB_RESTARTS);
    log_tally("database restarts");
    cr_log_info("database restarts: %ld waves around the outages; full service %.2f s after the "
                "slowest restart",
                outage_waves, slowest);
    cr_expect_eq(L.n.other + L.n.hangs + L.n.cut, 0,
                 "only 503s may fail while the database is down: %ld hangs, %ld without an "
                 "answer, %ld other (first: %s)",
                 L.n.hangs, L.n.cut, L.n.other, L.n.first_other);
    cr_expect_eq(L.n.bad_503, 0,
                 "%ld 503s were neither database_unavailable nor outcome_unknown problems",
                 L.n.bad_503);
    cr_log_info("database restarts: %ld of the 503s were outcome_unknown (COMMIT in flight)",
                L.n.unknown);
    count_add("responses_503_outcome_unknown", L.n.unknown);
    check_games(false);
    check_finished_through_the_api();
    audit_acks();
    long lost = lost_orders();
    count_add("races_run", L.n.races);
    count_add("orders_accepted", L.n.accepted);
    count_add("db_restarts_survived", restarts);
    count_add("responses_503", L.n.unavailable);
    count_add("lost_orders", lost);
    cr_assert_eq(lost, 0, "%ld acknowledged orders are missing from the database", lost);
    stop_daemons_and_check_logs();
}
