/* api_play.c: the handlers that move a game on: orders (parked while group commit writes
 * them, read by the game's own ruleset once the token shows a seat) and forcing a decision
 * point with /resolve. Each write locks its game row. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_common.h"
#include "auth.h"
#include "batch.h"
#include "hub.h"
#include "metrics.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"

/* ---- orders ------------------------------------------------------------------------------- */

struct order_ctx {
    struct server *srv;
    const char *id;
    const char *token;
    json_t *body;      /* the request's order body (a reference of its own) */
    struct rs_pos pos; /* the decision point it names */
    void *d;           /* the decision, the game's ruleset's decision_size bytes */
    json_t *canon;     /* the order as stored: the ruleset's order_to_json() of what was parsed */
    int resolved;
    bool amended; /* it replaced the seat's order for the step: nothing public changed */
    struct outcome o;
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

/* Applies an order to its loaded, locked game (a batch_job's apply, batch.h): records the
 * answer in the order_ctx, and the order, its event and what it set off in lv and the queued
 * statements. A refused order changes nothing and still returns STORE_OK. */
static int order_apply(PGconn *c, struct live *lv, void *ctx)
{
    struct order_ctx *oc = ctx;
    if (!lv) {
        api_fail(&oc->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", oc->id);
        return STORE_OK;
    }
    int seat = api_seat_of_token(c, lv, oc->token, &oc->o);
    if (seat < 0)
        return STORE_OK;
    /* The body is read by the game's ruleset, once the token has shown a seat of this game:
     * a client without one learns nothing about bodies. */
    const struct ruleset *rs = lv->rs;
    free(oc->d);
    json_decref(oc->canon);
    oc->canon = NULL;
    oc->d = calloc(1, rs->decision_size);
    if (!oc->d)
        return STORE_HARD;
    char err[300];
    const char *code = rs->order_from_json(oc->body, &oc->pos, oc->d, err, sizeof err);
    /* A field of another step's decision (422 wrong_kind) is judged like the engine's own
     * refusals, after the checks of the point: a seat with nothing to decide hears that first. */
    bool wrong_kind = code && strcmp(code, "wrong_kind") == 0;
    if (code && !wrong_kind) {
        api_fail(&oc->o, problem_of_order_error(code), code, "%s", err);
        return STORE_OK;
    }
    if (!wrong_kind && !(oc->canon = rs->order_to_json(&oc->pos, oc->d)))
        return STORE_HARD;
    struct rs_pos now;
    rs->where(lv->g, &now);
    char asked[64], at[64];
    ruleset_pos_text(rs, &oc->pos, asked, sizeof asked);
    ruleset_pos_text(rs, &now, at, sizeof at);
    if (api_is_unplayed(lv->row.status)) {
        api_fail_unplayed(&oc->o, lv->row.status);
        return STORE_OK;
    }
    if (strcmp(lv->row.status, "open") == 0) {
        api_fail(&oc->o, P_NOT_STARTED, NULL,
                 "The game starts when every seat is taken; wait for the \"started\" event.");
        return STORE_OK;
    }
    if (rs->over(lv->g)) {
        api_fail(&oc->o, P_GAME_OVER, NULL, "The game has ended; see its replay.");
        return STORE_OK;
    }
    if (oc->pos.round != now.round || oc->pos.step != now.step ||
        (rs->uses_turn && oc->pos.turn != now.turn)) {
        api_fail(&oc->o, P_STALE_STEP, NULL,
                 "The order is for %s, but the game is at %s; read the hand view and send an order "
                 "for the current step.",
                 asked, at);
        return STORE_OK;
    }
    if (wrong_kind) {
        if (!rs->pending(lv->g, seat))
            api_fail(&oc->o, P_STALE_STEP, "nothing_to_decide",
                     "Seat %d has nothing to decide at %s; wait for its turn (the hand view's "
                     "pending says when).",
                     seat, at);
        else
            api_fail(&oc->o, P_ILLEGAL, code, "%s", err);
        return STORE_OK;
    }
    /* The amendments of this step's orders are counted per seat; a new step starts at 0. */
    char step_key[sizeof lv->row.amend_step];
    ruleset_pos_key(rs, &now, step_key, sizeof step_key);
    if (strcmp(lv->row.amend_step, step_key) != 0) {
        snprintf(lv->row.amend_step, sizeof lv->row.amend_step, "%s", step_key);
        memset(lv->row.amend_counts, 0, sizeof lv->row.amend_counts);
    }
    bool had_decided = rs->pending(lv->g, seat) && rs->submitted(lv->g, seat);
    int cap = oc->srv->quotas ? oc->srv->quotas->max_amendments : 0;
    if (had_decided && cap > 0 && lv->row.amend_counts[seat] >= cap) {
        api_fail(&oc->o, P_RATE_LIMITED, "too_many_amendments",
                 "Seat %d has already replaced its order for %s %d times, the most one step "
                 "allows; the last order accepted stands. Send the next one for the next step.",
                 seat, at, cap);
        oc->o.retry_after = lv->row.turn_seconds ? lv->row.turn_seconds : 0;
        return STORE_OK;
    }
    int refused = rs->submit(lv->g, seat, oc->d);
    if (refused) {
        const char *ecode = rs->error_code(refused);
        bool stale = strcmp(ecode, "nothing_to_decide") == 0 || strcmp(ecode, "game_over") == 0;
        api_fail(&oc->o, stale ? P_STALE_STEP : P_ILLEGAL, ecode, "%s", rs->error_message(refused));
        return STORE_OK;
    }
    live_order(lv, seat, &oc->pos, oc->canon);
    if (had_decided) {
        /* An amendment: stored, counted, but no new public event and no news for others
         * unless something else in this transaction made some. */
        lv->row.amend_counts[seat]++;
        lv->quiet = !lv->changed || lv->quiet;
        oc->amended = true;
    } else {
        lv->quiet = false;
        json_t *data = json_pack("{s:i}", "seat", seat);
        json_object_update_new(data, ruleset_pos_json(rs, &oc->pos));
        live_event(lv, "submitted", data);
    }
    lv->changed = true;
    int before = lv->resolved;
    int st = live_advance(c, lv, false);
    if (st != STORE_OK)
        return st;
    oc->resolved = lv->resolved - before;
    oc->o.status = 202;
    json_t *reply = json_pack("{s:b}", "accepted", 1);
    json_object_update_new(reply, ruleset_pos_json(rs, &oc->pos));
    json_object_set_new(reply, "resolved", json_boolean(oc->resolved > 0));
    rs->where(lv->g, &now);
    json_t *game = json_pack("{s:s}", "status", lv->row.status);
    json_object_update_new(game, ruleset_pos_json(rs, &now));
    json_object_set_new(reply, "game", game);
    oc->o.reply = reply;
    return STORE_OK;
}

/* Forgets what an earlier run of order_apply recorded (the batch is being run again). */
static void order_reset(void *ctx)
{
    struct order_ctx *oc = ctx;
    json_decref(oc->o.reply);
    memset(&oc->o, 0, sizeof oc->o);
    oc->resolved = 0;
    oc->amended = false;
}

/* One read of the game for an order whose body was refused: the 400 already in r stays only
 * when the token is a seat's of this game; otherwise the game's 404 or the token's 401/403
 * replaces it, so that a client without a valid token learns nothing about bodies. */
static int token_check_tx(PGconn *c, void *ctx)
{
    struct read_ctx *rc = ctx;
    struct live lv;
    int st = live_load(c, rc->srv, rc->id, false, &lv);
    if (st == STORE_NO_ROW)
        st = api_fail(&rc->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", rc->id);
    else if (st == STORE_OK && api_seat_of_token(c, &lv, rc->token, &rc->o) < 0)
        st = STORE_ABORT;
    live_free(&lv);
    return st;
}

static void keep_body_problem_if_token_fits(struct http_req *r)
{
    struct read_ctx rc = {.srv = r->srv, .id = r->params[0], .token = http_bearer(r)};
    int st = store_run(r->srv->store, token_check_tx, &rc);
    if (st != STORE_OK)
        api_answer(r, st, &rc.o);
}

/* An order on its way through group commit while its request is parked (http_park). */
struct order_call {
    struct order_ctx oc;
    struct batch_job job;
    struct http_req *r;
    int st;
};

static void order_call_free(void *ctx)
{
    struct order_call *call = ctx;
    json_decref(call->oc.canon);
    json_decref(call->oc.body);
    json_decref(call->oc.o.reply);
    free(call->oc.d);
    free(call);
}

/* Answers an order whose transaction ended with call->st. */
static void order_answer(struct http_req *r, struct order_call *call)
{
    struct order_ctx *oc = &call->oc;
    /* A refused order changed nothing; an amendment nothing that others see. */
    if (call->st == STORE_OK && oc->o.status == 202 && (!oc->amended || oc->resolved > 0)) {
        metrics_steps_resolved(oc->resolved);
        hub_publish(r->srv->hub, oc->id, 0);
    }
    api_answer(r, call->st, &oc->o);
}

/* The batcher's callback: the transaction ended; wake the parked request. */
static void order_done(struct batch_job *job)
{
    struct order_call *call = (struct order_call *)job->ctx; /* ctx is &call->oc, its start */
    call->st = job->status;
    http_wake(call->r);
}

static void order_resume(struct http_req *r)
{
    order_answer(r, r->park_ctx);
}

void api_orders(struct http_req *r)
{
    if (!r->json) {
        if (!r->body_refused)
            http_reply_problem(r, P_BAD_JSON, NULL,
                               "Send an order as a JSON object: the position of your hand "
                               "view's pending (round, step, and turn where it has one) with "
                               "your choice; pending.suggestion is an order you can send as it "
                               "is.");
        keep_body_problem_if_token_fits(r);
        return;
    }
    struct order_call *call = calloc(1, sizeof *call);
    if (!call) {
        http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        return;
    }
    struct order_ctx *oc = &call->oc;
    *oc = (struct order_ctx){
        .srv = r->srv, .id = r->params[0], .token = http_bearer(r), .body = json_incref(r->json)};
    call->r = r;
    /* The batcher calls order_done (the job's ctx is the call, which begins with oc). */
    call->job = (struct batch_job){
        .id = oc->id, .apply = order_apply, .reset = order_reset, .ctx = oc, .done_fn = order_done};
    /* Parked, the request holds no thread while its batch is written; it is parked before the
     * batcher can see it, so the wake-up always comes after the suspension. */
    if (http_park(r, order_resume, call, order_call_free)) {
        if (!batcher_submit(r->srv->batcher, &call->job)) {
            call->st = STORE_UNAVAILABLE;
            http_wake(r);
        }
        return;
    }
    call->st = batcher_run(r->srv->batcher, &call->job); /* the daemon is stopping */
    order_answer(r, call);
    order_call_free(call);
}

/* ---- resolve ------------------------------------------------------------------------------ */

struct resolve_ctx {
    struct server *srv;
    const char *id;
    const char *token;
    json_t *body; /* the request's JSON object, or NULL when none was sent */
    int resolved;
    struct outcome o;
};

/* Reads the decision point a force names, {"round": R, "step": "build"} (and "turn" for
 * rulesets with turns), from `body` (NULL: none sent); false with the 400 recorded in o when it
 * is missing or wrong. */
static bool resolve_body(const struct ruleset *rs, json_t *body, struct rs_pos *pos,
                         struct outcome *o)
{
    const char *example = rs->uses_turn ? "{\"round\": 3, \"step\": \"build\", \"turn\": 17}"
                                        : "{\"round\": 3, \"step\": \"build\"}";
    if (!body) {
        api_fail(o, P_MISSING_FIELD, NULL,
                 "Name the step to force, as the public view shows it: send %s. A force without "
                 "them is refused, so that a click that arrives late cannot force the next step.",
                 example);
        return false;
    }
    static const struct api_field spec[] = {{"round", AF_INT, true, 0, 32767},
                                            {"step", AF_STRING, true, 0, 0},
                                            {"turn", AF_INT, true, 0, INT32_MAX}};
    const json_t *vals[3];
    if (!api_read_fields(body, spec, rs->uses_turn ? 3 : 2, "forcing a step", vals, o)) {
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
        api_fail(o, P_BAD_VALUE, NULL,
                 "\"round\"%s must be a non-negative integer and \"step\" one of %s.",
                 rs->uses_turn ? " and \"turn\"" : "", steps);
        return false;
    }
    pos->round = (int)r;
    pos->turn = (int)t;
    return true;
}

/* Forces the step the body names: only the host, or a seat once the step is overdue; only
 * while that step is the current one (else 409 stale_step: nothing is forced). */
static int resolve_tx(PGconn *c, void *ctx)
{
    struct resolve_ctx *rc = ctx;
    struct live lv;
    int st = live_load(c, rc->srv, rc->id, true, &lv);
    if (st == STORE_NO_ROW)
        st = api_fail(&rc->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", rc->id);
    if (st == STORE_OK && !rc->token)
        st = api_fail(&rc->o, P_NO_TOKEN, NULL,
                      "Send the host token (or, once the step is overdue, a seat token) as "
                      "\"Authorization: Bearer TOKEN\".");
    int by = FORCED_BY_HOST;
    if (st == STORE_OK) {
        uint8_t hash[AUTH_HASH_LEN];
        auth_hash(rc->token, hash);
        if (!auth_equal(hash, lv.row.host_hash)) {
            by = api_seat_of_token(c, &lv, rc->token, &rc->o);
            if (by < 0)
                st = STORE_ABORT;
        }
    }
    struct rs_pos want = {0}, now = {0};
    if (st == STORE_OK && !resolve_body(lv.rs, rc->body, &want, &rc->o))
        st = STORE_ABORT;
    if (st == STORE_OK && api_is_unplayed(lv.row.status))
        st = api_fail_unplayed(&rc->o, lv.row.status);
    if (st == STORE_OK && strcmp(lv.row.status, "open") == 0)
        st = api_fail(&rc->o, P_NOT_STARTED, NULL, "The game has not started yet.");
    if (st == STORE_OK && lv.rs->over(lv.g))
        st = api_fail(&rc->o, P_GAME_OVER, NULL, "The game has ended.");
    if (st == STORE_OK)
        lv.rs->where(lv.g, &now);
    if (st == STORE_OK && (want.round != now.round || want.step != now.step ||
                           (lv.rs->uses_turn && want.turn != now.turn))) {
        char asked[64], at[64];
        ruleset_pos_text(lv.rs, &want, asked, sizeof asked);
        ruleset_pos_text(lv.rs, &now, at, sizeof at);
        st = api_fail(&rc->o, P_STALE_STEP, NULL,
                      "You asked to force %s, but the game has moved on to %s; nothing was forced. "
                      "Read the game again and force the current step only if you still mean to.",
                      asked, at);
    }
    if (st == STORE_OK && by >= 0 && !lv.row.overdue)
        st = api_fail(&rc->o, P_NOT_OVERDUE, NULL, "%s",
                      lv.row.turn_seconds
                          ? "The step is not overdue yet; a seat may force it only after its time "
                            "limit."
                          : "This game has no time limit; only the host may force a step.");
    if (st == STORE_OK)
        st = live_force(c, &lv, by);
    if (st == STORE_OK)
        st = live_save(c, &lv);
    if (st == STORE_OK) {
        rc->resolved = lv.resolved;
        rc->o.status = 200;
        rc->o.reply = live_public_view(&lv);
    }
    live_free(&lv);
    return st;
}

void api_resolve(struct http_req *r)
{
    struct resolve_ctx rc = {
        .srv = r->srv, .id = r->params[0], .token = http_bearer(r), .body = r->json};
    int st = store_tx(r->srv->store, resolve_tx, &rc, STORE_TRIES_WRITE);
    if (st == STORE_OK) {
        metrics_steps_resolved(rc.resolved);
        hub_publish(r->srv->hub, rc.id, 0);
    }
    api_answer(r, st, &rc.o);
}
