/* api_hint.c: POST /games/{id}/hint, the expert's suggestion for a seat's pending decision, a
 * few times per game (CITY_HINTS_PER_GAME). The hint is counted in one short transaction; the
 * expert then thinks on a copy of the state with no lock and no database connection held, and at
 * most CITY_HINT_THREADS hints are thought about at once on an instance (past it: 503 with
 * Retry-After), so hints never hold up play. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api_common.h"
#include "expert.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"

struct hint_ctx {
    struct server *srv;
    const char *id;
    const char *token;
    int cap;
    int seat, used;
    const struct ruleset *rs;
    void *g; /* a copy of the state, to think about after the transaction */
    struct outcome o;
};

static atomic_int thinking;

static int hint_tx(PGconn *c, void *ctx)
{
    struct hint_ctx *hc = ctx;
    struct live lv;
    int st = live_load(c, hc->srv, hc->id, false, &lv);
    if (st == STORE_NO_ROW)
        st = api_fail(&hc->o, P_NO_GAME, NULL,
                      "There is no game \"%.40s\"; list games with GET /api/v1/games.", hc->id);
    if (st == STORE_OK) {
        hc->seat = api_seat_of_token(c, &lv, hc->token, &hc->o);
        if (hc->seat < 0)
            st = STORE_ABORT;
    }
    if (st == STORE_OK && api_is_unplayed(lv.row.status))
        st = api_fail_unplayed(&hc->o, lv.row.status);
    if (st == STORE_OK && strcmp(lv.row.status, "open") == 0)
        st = api_fail(&hc->o, P_NOT_STARTED, NULL, "The game has not started yet.");
    if (st == STORE_OK && lv.rs->over(lv.g))
        st = api_fail(&hc->o, P_GAME_OVER, NULL, "The game has ended; see its replay.");
    if (st == STORE_OK && !lv.rs->pending(lv.g, hc->seat))
        st = api_fail(&hc->o, P_STALE_STEP, "nothing_to_decide",
                      "Your seat has nothing to decide now; ask for a hint when it does.");
    if (st == STORE_OK) {
        st = store_hint_take(c, hc->id, hc->seat, hc->cap, &hc->used);
        if (st == STORE_NO_ROW)
            st = api_fail(&hc->o, P_RATE_LIMITED, "too_many_hints",
                          "Your seat has used its %d hint%s of this game; the hand view's "
                          "suggestion (the greedy bot's) is still there for every decision.",
                          hc->cap, hc->cap == 1 ? "" : "s");
    }
    if (st == STORE_OK) {
        hc->rs = lv.rs;
        hc->g = malloc(lv.rs->state_size);
        if (!hc->g)
            st = STORE_HARD;
        else
            memcpy(hc->g, lv.g, lv.rs->state_size);
    }
    live_free(&lv);
    return st;
}

void api_hint(struct http_req *r)
{
    if (r->json && json_is_object(r->json) && !api_reply_fields(r, NULL, 0, "a hint", NULL))
        return;
    const struct quotas *q = r->srv->quotas;
    struct hint_ctx hc = {.srv = r->srv,
                          .id = r->params[0],
                          .token = http_bearer(r),
                          .cap = q ? q->hints_per_game : 5};
    int limit = q ? q->hint_threads : 4;
    if (atomic_fetch_add(&thinking, 1) >= limit) {
        atomic_fetch_sub(&thinking, 1);
        http_reply_problem(r, P_BUSY, NULL,
                           "The server is thinking about %d hints already; ask again in a "
                           "second.",
                           limit);
        r->reply.retry_after = 1;
        return;
    }
    int st = store_tx(r->srv->store, hint_tx, &hc, STORE_TRIES_READ);
    if (st == STORE_OK) {
        struct expert_params p = expert_defaults;
        p.think_ms = r->srv->expert_ms > 0 ? r->srv->expert_ms : p.think_ms;
        p.iterations = 0; /* a person waits for it: think the whole budget */
        char *d = calloc(1, hc.rs->decision_size);
        struct rs_pos pos;
        hc.rs->where(hc.g, &pos);
        if (d && expert_decide(hc.rs, hc.g, hc.seat, &p, d, NULL)) {
            hc.o.status = 200;
            hc.o.reply =
                json_pack("{s:o, s:s, s:i, s:i}", "suggestion", hc.rs->order_to_json(&pos, d), "by",
                          "expert", "hints_used", hc.used, "hints_left", hc.cap - hc.used);
        } else {
            api_fail(&hc.o, P_INTERNAL, NULL, "The expert could not decide; try again.");
        }
        free(d);
    }
    free(hc.g);
    atomic_fetch_sub(&thinking, 1);
    api_answer(r, st == STORE_OK ? STORE_OK : st, &hc.o);
}
