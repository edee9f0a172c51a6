/* api_play.c: the handlers that move a game on: orders (parked while group commit writes them,
 * service_order_*) and forcing a decision point with /resolve (service_resolve). Each reads its
 * request, hands it to the service (service.h), which decides, and answers its outcome. */
#include <stdlib.h>

#include "api_common.h"
#include "server.h"
#include "service.h"
#include "store.h"

/* ---- orders ------------------------------------------------------------------------------- */

/* An order whose body was refused before the game was read: the 400 already in r stays only
 * when the token is a seat's of this game; otherwise the game's 404 or the token's 401/403
 * replaces it, so that a client without a valid token learns nothing about bodies. */
static void keep_body_problem_if_token_fits(struct http_req *r)
{
    struct outcome o = {0};
    int st = service_seat_check(r->srv, r->params[0], http_bearer(r), &o);
    if (st != STORE_OK)
        api_answer(r, st, &o);
    outcome_clear(&o);
}

/* Answers an order whose transaction ended. */
static void order_answer(struct http_req *r, struct service_order *so)
{
    struct outcome o;
    int st = service_order_finish(so, &o);
    api_answer(r, st, &o);
}

static void order_resume(struct http_req *r)
{
    order_answer(r, r->park_ctx);
}

/* The service's callback, from a batcher thread: the transaction ended; wake the request. */
static void order_wake(void *arg)
{
    http_wake(arg);
}

static void order_free(void *ctx)
{
    service_order_free(ctx);
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
    struct service_order *so = service_order_new(r->srv, r->params[0], http_bearer(r), r->json);
    if (!so) {
        http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        return;
    }
    /* Parked, the request holds no thread while its batch is written; it is parked before the
     * batcher can see it, so the wake-up always comes after the suspension. */
    if (http_park(r, order_resume, so, order_free)) {
        if (!service_order_queue(so, order_wake, r))
            http_wake(r); /* the daemon is stopping: answered as unavailable */
        return;
    }
    service_order_run(so); /* the daemon is stopping */
    order_answer(r, so);
    service_order_free(so);
}

/* ---- resolve ------------------------------------------------------------------------------ */

void api_resolve(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r, service_resolve(r->srv, r->params[0], http_bearer(r), r->json, &o), &o);
}
