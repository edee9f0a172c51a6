/* service_play.c: the calls that move a game on (service.h): an order, applied in the
 * transaction group commit gives it (batch.h) with every rule of the service (the game's
 * status, the point it names, the amendment cap, the engine's verdict, the public event); a
 * force of an overdue point; and the expert's hint, thought about outside any transaction. */
#include "service.h"
#include "service_int.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "batch.h"
#include "botpool.h"
#include "expert.h"
#include "hub.h"
#include "metrics.h"
#include "netaddr.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"

/* ---- orders ------------------------------------------------------------------------------- */

/* How long a seat past the amendment cap waits for a step that takes orders again: the seconds
 * left on the step's clock (at least 1), or, in a game without a clock, where the step ends when
 * the other seats decide, AMEND_WAIT_NO_CLOCK (the page's polling interval). */
enum { AMEND_WAIT_NO_CLOCK = 5 };

static int amendments_wait(const struct live *lv)
{
    if (lv->row.deadline <= 0)
        return AMEND_WAIT_NO_CLOCK;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double left = lv->row.deadline - ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
    return left < 1 ? 1 : left > 86400 ? 86400 : (int)(left + 0.999);
}

struct service_order {
    struct server *srv;
    const char *id;
    const char *token;
    json_t *body;      /* the request's order body (a reference of its own) */
    struct rs_pos pos; /* the decision point it names */
    void *d;           /* the decision, the game's ruleset's decision_size bytes */
    json_t *canon;     /* the order as stored: the ruleset's order_to_json() of what was parsed */
    int resolved;
    int seat;     /* the token's seat, once known (-1 before) */
    bool amended; /* it replaced the seat's order for the step: nothing public changed */
    struct outcome o;
    struct batch_job job;
    int st; /* the transaction's status, once it ended */
    void (*done)(void *arg);
    void *arg;
};

static enum problem problem_of_order_error(const char *code)
{
    static const struct {
        const char *code;
        enum problem p;
    } map[] = {{"not_an_object", P_NOT_AN_OBJECT},           {"missing_field", P_MISSING_FIELD},
               {"unknown_field", P_UNKNOWN_FIELD},           {"wrong_type", P_WRONG_TYPE},
               {"conflicting_fields", P_CONFLICTING_FIELDS}, {"too_many_cards", P_TOO_MANY_CARDS}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(map[i].code, code) == 0)
            return map[i].p;
    return P_BAD_VALUE;
}

/* The refusal of a decision of the game's own: a point that is not the current one, a seat
 * with nothing to decide, or the engine's reason (engine code `code`, sentence `why`). */
static void refuse(struct outcome *o, const char *code, const char *why)
{
    if (strcmp(code, "nothing_to_decide") == 0)
        outcome_fail(o, P_NOTHING_TO_DECIDE, NULL, "%s", why);
    else if (strcmp(code, "game_over") == 0)
        outcome_fail(o, P_GAME_OVER, NULL, "%s", why);
    else
        outcome_fail(o, P_ILLEGAL, code, "%s", why);
}

/* Checks what the order's point and the game's state allow before the engine judges the
 * decision: the game's status, the point (a stale one is refused), a field of another step's
 * decision (`wrong_kind`, with the parser's sentence `err`), the amendment cap. False with the
 * refusal in so->o; true with *had_decided set (the seat replaces its order). */
static bool order_allowed(struct service_order *so, struct live *lv, int seat, bool wrong_kind,
                          const char *err, bool *had_decided)
{
    const struct ruleset *rs = lv->rs;
    struct outcome *o = &so->o;
    struct rs_pos now;
    rs->where(lv->g, &now);
    char asked[64], at[64];
    ruleset_pos_text(rs, &so->pos, asked, sizeof asked);
    ruleset_pos_text(rs, &now, at, sizeof at);
    if (service_check_playing(lv, o,
                              "The game starts when every seat is taken; wait for the "
                              "\"started\" event.",
                              "The game has ended; see its replay.") != STORE_OK)
        return false;
    if (so->pos.round != now.round || so->pos.step != now.step ||
        (rs->uses_turn && so->pos.turn != now.turn)) {
        outcome_fail(o, P_STALE_STEP, NULL,
                     "The order is for %s, but the game is at %s; read the hand view and send "
                     "an order for the current step.",
                     asked, at);
        return false;
    }
    if (wrong_kind) {
        if (!rs->pending(lv->g, seat))
            outcome_fail(o, P_NOTHING_TO_DECIDE, NULL,
                         "Seat %d has nothing to decide at %s; wait for its turn (the hand "
                         "view's pending says when).",
                         seat, at);
        else
            outcome_fail(o, P_ILLEGAL, "wrong_kind", "%s", err);
        return false;
    }
    /* The amendments of this step's orders are counted per seat; a new step starts at 0. */
    char step_key[sizeof lv->row.amend_step];
    ruleset_pos_key(rs, &now, step_key, sizeof step_key);
    if (strcmp(lv->row.amend_step, step_key) != 0) {
        snprintf(lv->row.amend_step, sizeof lv->row.amend_step, "%s", step_key);
        memset(lv->row.amend_counts, 0, sizeof lv->row.amend_counts);
    }
    *had_decided = rs->pending(lv->g, seat) && rs->submitted(lv->g, seat);
    int cap = so->srv->quotas ? so->srv->quotas->max_amendments : 0;
    if (*had_decided && cap > 0 && lv->row.amend_counts[seat] >= cap) {
        int wait = amendments_wait(lv);
        outcome_fail(o, P_TOO_MANY_AMENDMENTS, NULL,
                     "Seat %d has already replaced its order for %s %d times, the most one step "
                     "allows; the last order accepted stands. Send the next one for the next "
                     "step (Retry-After: %d second%s%s).",
                     seat, at, cap, wait, wait == 1 ? "" : "s",
                     lv->row.deadline > 0 ? ", when the step's clock runs out"
                                          : "; the game has no clock, so the step ends when "
                                            "the other seats decide");
        o->retry_after = wait;
        return false;
    }
    return true;
}

/* The 202 of an accepted order: {accepted, round, step, [turn], resolved, game: {status,
 * round, step, [turn]}}. */
static json_t *accepted_json(const struct service_order *so, const struct live *lv)
{
    const struct ruleset *rs = lv->rs;
    json_t *reply = json_pack("{s:b}", "accepted", 1);
    json_object_update_new(reply, ruleset_pos_json(rs, &so->pos));
    json_object_set_new(reply, "resolved", json_boolean(so->resolved > 0));
    struct rs_pos now;
    rs->where(lv->g, &now);
    json_t *game = json_pack("{s:s}", "status", lv->row.status);
    json_object_update_new(game, ruleset_pos_json(rs, &now));
    json_object_set_new(reply, "game", game);
    return reply;
}

/* Applies an order to its loaded, locked game (a batch_job's apply, batch.h): records the
 * answer in the order, and the order, its event and what it set off in lv and the queued
 * statements. A refused order changes nothing and still returns STORE_OK. */
static int order_apply(PGconn *c, struct live *lv, void *ctx)
{
    struct service_order *so = ctx;
    if (!lv) {
        outcome_fail(&so->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", so->id);
        return STORE_OK;
    }
    int seat = service_seat_of_token(c, lv, so->token, &so->o);
    so->seat = seat;
    if (seat < 0)
        return STORE_OK;
    /* The body is read by the game's ruleset, once the token has shown a seat of this game:
     * a client without one learns nothing about bodies. */
    const struct ruleset *rs = lv->rs;
    free(so->d);
    json_decref(so->canon);
    so->canon = NULL;
    so->d = calloc(1, rs->decision_size);
    if (!so->d)
        return STORE_HARD;
    char err[300];
    const char *code = rs->order_from_json(so->body, &so->pos, so->d, err, sizeof err);
    /* A field of another step's decision (422 wrong_kind) is judged like the engine's own
     * refusals, after the checks of the point: a seat with nothing to decide hears that first. */
    bool wrong_kind = code && strcmp(code, "wrong_kind") == 0;
    if (code && !wrong_kind) {
        outcome_fail(&so->o, problem_of_order_error(code), code, "%s", err);
        return STORE_OK;
    }
    if (!wrong_kind && !(so->canon = rs->order_to_json(&so->pos, so->d)))
        return STORE_HARD;
    bool had_decided = false;
    if (!order_allowed(so, lv, seat, wrong_kind, err, &had_decided))
        return STORE_OK;
    int refused = rs->submit(lv->g, seat, so->d);
    if (refused) {
        refuse(&so->o, rs->error_code(refused), rs->error_message(refused));
        return STORE_OK;
    }
    live_order(lv, seat, &so->pos, so->canon);
    if (had_decided) {
        /* An amendment: stored, counted, but no new public event and no news for others
         * unless something else in this transaction made some. */
        lv->row.amend_counts[seat]++;
        lv->quiet = !lv->changed || lv->quiet;
        so->amended = true;
    } else {
        lv->quiet = false;
        json_t *data = json_pack("{s:i}", "seat", seat);
        json_object_update_new(data, ruleset_pos_json(rs, &so->pos));
        live_event(lv, "submitted", data);
    }
    lv->changed = true;
    int before = lv->resolved;
    int st = live_advance(c, lv, false);
    if (st != STORE_OK)
        return st;
    so->resolved = lv->resolved - before;
    outcome_reply(&so->o, 202, accepted_json(so, lv));
    return STORE_OK;
}

/* Forgets what an earlier run of order_apply recorded (the batch is being run again). */
static void order_reset(void *ctx)
{
    struct service_order *so = ctx;
    outcome_clear(&so->o);
    so->resolved = 0;
    so->amended = false;
}

/* The batcher's callback: the transaction ended; tell the caller. */
static void order_done(struct batch_job *job)
{
    struct service_order *so = job->ctx;
    so->st = job->status;
    so->done(so->arg);
}

struct service_order *service_order_new(struct server *srv, const char *id, const char *token,
                                        json_t *body)
{
    struct service_order *so = calloc(1, sizeof *so);
    if (!so)
        return NULL;
    so->srv = srv;
    so->id = id;
    so->token = token;
    so->body = json_incref(body);
    so->job = (struct batch_job){.id = id, .apply = order_apply, .reset = order_reset, .ctx = so};
    return so;
}

bool service_order_queue(struct service_order *so, void (*done)(void *arg), void *arg)
{
    so->done = done;
    so->arg = arg;
    so->job.done_fn = order_done;
    if (batcher_submit(so->srv->batcher, &so->job))
        return true;
    so->st = STORE_UNAVAILABLE;
    return false;
}

void service_order_run(struct service_order *so)
{
    so->job.done_fn = NULL;
    so->st = batcher_run(so->srv->batcher, &so->job);
}

int service_order_finish(struct service_order *so, struct outcome *o)
{
    /* A refused order changed nothing; an amendment nothing that others see, only its seat's
     * hand view (its "order"). */
    if (so->o.status == 202 && so->job.published) /* the batch announced it (live_committed) */
        metrics_steps_resolved(so->resolved);
    else if (so->o.status == 202 && (!so->amended || so->resolved > 0))
        service_published(so->srv, so->st, so->id, so->resolved);
    else if (so->o.status == 202 && so->st == STORE_OK)
        hub_publish_hands(so->srv->hub, so->id);
    if (so->o.status == 202)
        service_seen(so->srv, so->id, so->seat); /* an order is a sign of life */
    *o = so->o;
    memset(&so->o, 0, sizeof so->o);
    return so->st;
}

void service_order_free(struct service_order *so)
{
    if (!so)
        return;
    json_decref(so->canon);
    json_decref(so->body);
    outcome_clear(&so->o);
    free(so->d);
    free(so);
}

static int seat_check_tx(PGconn *c, void *ctx)
{
    struct game_call *gc = ctx;
    struct live lv;
    int st = service_load(c, gc, false, ".", &lv);
    if (st == STORE_OK && service_seat_of_token(c, &lv, gc->token, gc->o) < 0)
        st = STORE_ABORT;
    live_free(&lv);
    return st;
}

int service_seat_check(struct server *srv, const char *id, const char *token, struct outcome *o)
{
    struct game_call gc = {.srv = srv, .id = id, .token = token, .o = o};
    return store_run(srv->store, seat_check_tx, &gc);
}

/* ---- resolve ------------------------------------------------------------------------------ */

struct resolve_call {
    struct game_call gc;
    const json_t *body; /* the request's JSON object, or NULL when none was sent */
};

/* Writes to buf (n bytes) the body that forces point `now` of ruleset rs, as a refusal's
 * example. */
static void force_example(const struct ruleset *rs, const struct rs_pos *now, char *buf, size_t n)
{
    if (rs->uses_turn)
        snprintf(buf, n, "{\"round\": %d, \"step\": \"%s\", \"turn\": %d}", now->round,
                 ruleset_step_name(rs, now->step), now->turn);
    else
        snprintf(buf, n, "{\"round\": %d, \"step\": \"%s\"}", now->round,
                 ruleset_step_name(rs, now->step));
}

/* Reads the decision point a force names, {"round": R, "step": "build"} (and "turn" for
 * rulesets with turns), from `body` (NULL: none sent); false with the 400 recorded in o when it
 * is missing or wrong, whose example is the game's current point `now`. */
static bool resolve_body(const struct ruleset *rs, const struct rs_pos *now, const json_t *body,
                         struct rs_pos *pos, struct outcome *o)
{
    char example[160];
    if (!body) {
        force_example(rs, now, example, sizeof example);
        outcome_fail(o, P_MISSING_FIELD, NULL,
                     "Name the step to force, as the public view shows it: send %s for the "
                     "current one. A force without them is refused, so that a click that "
                     "arrives late cannot force the next step.",
                     example);
        return false;
    }
    static const struct field_spec spec[] = {{"round", FIELD_INT, true, 0, 32767},
                                             {"step", FIELD_STRING, true, 0, 0},
                                             {"turn", FIELD_INT, true, 0, INT32_MAX}};
    const json_t *vals[3];
    if (!fields_read(body, spec, rs->uses_turn ? 3 : 2, "forcing a step", vals, o)) {
        force_example(rs, now, example, sizeof example);
        snprintf(o->detail + strlen(o->detail), sizeof o->detail - strlen(o->detail), " Send %s.",
                 example);
        return false;
    }
    const json_t *jr = vals[0], *js = vals[1], *jt = rs->uses_turn ? vals[2] : NULL;
    long long r = json_integer_value(jr), t = jt ? json_integer_value(jt) : 0;
    pos->step = ruleset_step_from_name(rs, json_string_value(js));
    if (r < 0 || r > 32767 || t < 0 || t > INT32_MAX || pos->step < 0 ||
        strcmp(json_string_value(js), "over") == 0) {
        char steps[200] = "";
        for (int i = 0; rs->steps[i]; i++)
            if (strcmp(rs->steps[i], "over") != 0)
                snprintf(steps + strlen(steps), sizeof steps - strlen(steps), "%s%s",
                         steps[0] ? ", " : "", rs->steps[i]);
        outcome_fail(o, P_BAD_VALUE, NULL,
                     "\"round\"%s must be a non-negative integer and \"step\" one of %s.",
                     rs->uses_turn ? " and \"turn\"" : "", steps);
        return false;
    }
    pos->round = (int)r;
    pos->turn = (int)t;
    return true;
}

/* Who forces: FORCED_BY_HOST for the host token, else the seat of a seat token; -3 with the
 * 401/403 in o. */
static int forcer_of(PGconn *c, struct live *lv, const char *token, struct outcome *o)
{
    if (!token) {
        outcome_fail(o, P_NO_TOKEN, NULL,
                     "Send the host token (or, once the step is overdue, a seat token) as "
                     "\"Authorization: Bearer TOKEN\".");
        return -3;
    }
    uint8_t hash[AUTH_HASH_LEN];
    auth_hash(token, hash);
    if (auth_equal(hash, lv->row.host_hash))
        return FORCED_BY_HOST;
    int seat = service_seat_of_token(c, lv, token, o);
    return seat < 0 ? -3 : seat;
}

/* Forces the step the body names: only the host, or a seat once the step is overdue; only
 * while that step is the current one (else 409 stale_step: nothing is forced). */
static int resolve_tx(PGconn *c, void *ctx)
{
    struct resolve_call *rc = ctx;
    struct outcome *o = rc->gc.o;
    struct live lv;
    int st = service_load(c, &rc->gc, true, ".", &lv);
    int by = st == STORE_OK ? forcer_of(c, &lv, rc->gc.token, o) : FORCED_BY_HOST;
    if (by == -3)
        st = STORE_ABORT;
    struct rs_pos want = {0}, now = {0};
    /* Playing first: the body's example is then a step that can be forced. */
    if (st == STORE_OK)
        st = service_check_playing(&lv, o, "The game has not started yet.", "The game has ended.");
    if (st == STORE_OK)
        lv.rs->where(lv.g, &now);
    if (st == STORE_OK && !resolve_body(lv.rs, &now, rc->body, &want, o))
        st = STORE_ABORT;
    if (st == STORE_OK && (want.round != now.round || want.step != now.step ||
                           (lv.rs->uses_turn && want.turn != now.turn))) {
        char asked[64], at[64];
        ruleset_pos_text(lv.rs, &want, asked, sizeof asked);
        ruleset_pos_text(lv.rs, &now, at, sizeof at);
        st = outcome_fail(o, P_STALE_STEP, NULL,
                          "You asked to force %s, but the game has moved on to %s; nothing was "
                          "forced. Read the game again and force the current step only if you "
                          "still mean to.",
                          asked, at);
    }
    if (st == STORE_OK && by >= 0 && !lv.row.overdue)
        st = outcome_fail(o, P_NOT_OVERDUE, NULL, "%s",
                          lv.row.turn_seconds
                              ? "The step is not overdue yet; a seat may force it only after its "
                                "time limit."
                              : "This game has no time limit; only the host may force a step.");
    if (st == STORE_OK)
        st = live_force(c, &lv, by);
    if (st == STORE_OK)
        st = live_save(c, &lv);
    json_t *v = st == STORE_OK ? live_public_view(&lv) : NULL;
    if (v)
        st = service_presence_add(rc->gc.srv, c, rc->gc.id, v, NULL, NULL);
    if (st == STORE_OK) {
        rc->gc.resolved = lv.resolved;
        outcome_reply(o, 200, v);
    } else {
        json_decref(v);
    }
    live_free(&lv);
    return st;
}

int service_resolve(struct server *srv, const char *id, const char *token, const json_t *body,
                    struct outcome *o)
{
    struct resolve_call rc = {{.srv = srv, .id = id, .token = token, .o = o}, body};
    int st = store_tx(srv->store, resolve_tx, &rc, STORE_TRIES_WRITE);
    service_published(srv, st, id, rc.gc.resolved);
    return st;
}

/* ---- hints -------------------------------------------------------------------------------- */

/* A hint on its way: counted in a short transaction, then thought about on the bot pool (or in
 * place without one), its outcome kept for the request that waits. */
struct service_hint {
    struct game_call gc;
    struct outcome o;
    int cap;
    int seat, used;
    const struct ruleset *rs;
    void *g;         /* a copy of the state, to think about after the transaction */
    char client[64]; /* the asking address (the per-address limits') */
    uint64_t who;    /* its netaddr_key_hash() */
    int st;          /* the status service_hint_finish() returns */
    bool holds;      /* counted among the hints in flight (released by free) */
    void (*done)(void *arg);
    void *arg;
};

/* The hints in flight on this instance (queued or thought about), by asking address. */
static pthread_mutex_t flight_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t flight[256];
static int nflight;

/* The Retry-After of 429 too_many_hints: a seat's hints are counted for the whole game, so no
 * wait brings one back; a day tells a client not to ask again soon. */
enum { HINTS_WAIT = 86400 };

static int hint_tx(PGconn *c, void *ctx)
{
    struct service_hint *hc = ctx;
    struct outcome *o = hc->gc.o;
    struct live lv;
    int st = service_load(c, &hc->gc, false, service_see_lobby, &lv);
    if (st == STORE_OK) {
        hc->seat = service_seat_of_token(c, &lv, hc->gc.token, o);
        if (hc->seat < 0)
            st = STORE_ABORT;
    }
    if (st == STORE_OK)
        st = service_check_playing(&lv, o, "The game has not started yet.",
                                   "The game has ended; see its replay.");
    if (st == STORE_OK && !lv.rs->pending(lv.g, hc->seat))
        st = outcome_fail(o, P_NOTHING_TO_DECIDE, NULL,
                          "Your seat has nothing to decide now; ask for a hint when it does.");
    /* The address's rate, once the hint would be thought about (a refused one costs nothing). */
    const struct quotas *q = hc->gc.srv->quotas;
    if (st == STORE_OK && q &&
        !service_within_rate(q->hints, hc->client, "asked for hints", q->hint_rate, q->hint_burst,
                             o))
        st = STORE_ABORT;
    if (st == STORE_OK) {
        st = store_hint_take(c, hc->gc.id, hc->seat, hc->cap, &hc->used);
        if (st == STORE_NO_ROW) {
            st = outcome_fail(o, P_TOO_MANY_HINTS, NULL,
                              "Your seat has used its %d hint%s of this game, which do not come "
                              "back in it (Retry-After: a day); the hand view's suggestion (the "
                              "greedy bot's) is still there for every decision.",
                              hc->cap, hc->cap == 1 ? "" : "s");
            o->retry_after = HINTS_WAIT;
        }
    }
    if (st == STORE_OK) {
        hc->rs = lv.rs;
        free(hc->g);
        hc->g = malloc(lv.rs->state_size);
        if (!hc->g)
            st = STORE_HARD;
        else
            memcpy(hc->g, lv.g, lv.rs->state_size);
    }
    live_free(&lv);
    return st;
}

/* A hint's estimate of one decision in JSON: {playouts, win (0..1, 3 places), score (1 place)}. */
static json_t *estimate_json(const struct expert_estimate *e)
{
    return json_pack("{s:i, s:f, s:f}", "playouts", e->playouts, "win",
                     round(e->win * 1000.0) / 1000.0, "score", round(e->score * 10.0) / 10.0);
}

/* The expert thinks about the copy of the state hint_tx() took, with no lock and no database
 * connection held, with parameters `base` (NULL: the pool stopped before thinking it). */
static void hint_think(struct service_hint *hc, const struct expert_params *base)
{
    if (!base) {
        hc->st = outcome_fail(&hc->o, P_BUSY, NULL,
                              "The server is stopping; ask for the hint again in a moment.");
        hc->o.retry_after = 1;
        return;
    }
    struct expert_params p = *base;
    p.iterations = 0; /* a person waits for it: think the whole budget */
    char *d = calloc(1, hc->rs->decision_size);
    struct expert_why why = {.runner_up = calloc(1, hc->rs->decision_size)};
    struct rs_pos pos;
    hc->rs->where(hc->g, &pos);
    if (d && why.runner_up && expert_decide_why(hc->rs, hc->g, hc->seat, &p, d, NULL, &why)) {
        json_t *body =
            json_pack("{s:o, s:s, s:i, s:i}", "suggestion", hc->rs->order_to_json(&pos, d), "by",
                      "expert", "hints_used", hc->used, "hints_left", hc->cap - hc->used);
        if (body && why.best.playouts > 0) {
            json_t *e = estimate_json(&why.best);
            if (e && why.has_runner_up)
                json_object_set_new(e, "runner_up",
                                    json_pack("{s:o, s:o}", "suggestion",
                                              hc->rs->order_to_json(&pos, why.runner_up),
                                              "estimate", estimate_json(&why.runner)));
            json_object_set_new(body, "estimate", e);
        }
        outcome_reply(&hc->o, 200, body);
    } else
        hc->st = outcome_fail(&hc->o, P_INTERNAL, NULL, "The expert could not decide; try again.");
    free(d);
    free(why.runner_up);
}

/* No longer counts hc among the hints in flight (it is thought: the next may come at once). */
static void hint_land(struct service_hint *hc)
{
    if (!hc->holds)
        return;
    pthread_mutex_lock(&flight_mu);
    for (int i = 0; i < nflight; i++)
        if (flight[i] == hc->who) {
            flight[i] = flight[--nflight];
            break;
        }
    pthread_mutex_unlock(&flight_mu);
    hc->holds = false;
}

/* The bot pool's task: think, then tell whoever waits (the hint leaves the flight first, so a
 * client that asks again as soon as it has the answer is not refused for it). */
static void hint_task(void *ctx, const struct expert_params *params)
{
    struct service_hint *hc = ctx;
    hint_think(hc, params);
    hint_land(hc);
    hc->done(hc->arg);
}

struct service_hint *service_hint_new(struct server *srv, const char *id, const char *token,
                                      const char *client)
{
    struct service_hint *hc = calloc(1, sizeof *hc);
    if (!hc)
        return NULL;
    const struct quotas *q = srv->quotas;
    hc->gc = (struct game_call){.srv = srv, .id = id, .token = token, .o = &hc->o};
    hc->cap = q ? q->hints_per_game : 5;
    snprintf(hc->client, sizeof hc->client, "%s", client ? client : "");
    uint8_t key[NETADDR_KEY_LEN];
    netaddr_key(client, key);
    hc->who = netaddr_key_hash(key);
    return hc;
}

/* Counts hc among the hints in flight unless the instance (hint_threads) or its address (half
 * of them, at least one) has as many already; else fails hc's outcome (503 busy, 429). */
static bool hint_fly(struct service_hint *hc)
{
    const struct quotas *q = hc->gc.srv->quotas;
    int limit = q ? q->hint_threads : 4;
    if (limit > (int)(sizeof flight / sizeof *flight))
        limit = (int)(sizeof flight / sizeof *flight);
    int per_address = limit / 2 > 1 ? limit / 2 : 1, mine = 0;
    pthread_mutex_lock(&flight_mu);
    for (int i = 0; i < nflight; i++)
        mine += flight[i] == hc->who;
    bool full = nflight >= limit, ok = !full && mine < per_address;
    if (ok)
        flight[nflight++] = hc->who;
    pthread_mutex_unlock(&flight_mu);
    if (ok)
        hc->holds = true;
    else if (!full)
        outcome_fail(&hc->o, P_RATE_LIMITED, NULL,
                     "Your address has %d hint%s being thought about already; ask again in a "
                     "second.",
                     mine, mine == 1 ? "" : "s");
    else
        outcome_fail(&hc->o, P_BUSY, NULL,
                     "The server is thinking about %d hints already; ask again in a second.",
                     limit);
    if (!ok)
        hc->o.retry_after = 1;
    return ok;
}

bool service_hint_start(struct service_hint *hc, void (*done)(void *arg), void *arg)
{
    struct server *srv = hc->gc.srv;
    hc->st = STORE_ABORT;
    if (!hint_fly(hc))
        return false;
    hc->st = store_tx(srv->store, hint_tx, hc, STORE_TRIES_READ);
    if (hc->st != STORE_OK)
        return false;
    hc->done = done;
    hc->arg = arg;
    if (done && bot_pool_task(srv->bots, hint_task, hc, hc->who))
        return true;
    struct expert_params p = expert_defaults; /* no pool (or it is stopping): think in place */
    p.think_ms = srv->expert_ms > 0 ? srv->expert_ms : p.think_ms;
    hint_think(hc, &p);
    hint_land(hc);
    return false;
}

int service_hint_finish(struct service_hint *hc, struct outcome *o)
{
    *o = hc->o;
    memset(&hc->o, 0, sizeof hc->o);
    return hc->st;
}

void service_hint_free(struct service_hint *hc)
{
    if (!hc)
        return;
    hint_land(hc); /* refused before it was thought */
    outcome_clear(&hc->o);
    free(hc->g);
    free(hc);
}
