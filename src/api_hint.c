/* api_hint.c: POST /games/{id}/hint, the expert's suggestion for a seat's pending decision, a
 * few times per game (CITY_HINTS_PER_GAME). The service (service_hint_*) counts the hint in one
 * short transaction and queues it on the bot pool, where the expert thinks on a copy of the
 * state with no lock and no database connection held, fairly among addresses; the request is
 * parked meanwhile (it holds no thread), so hints never hold up play. */
#include "api_common.h"
#include "server.h"
#include "service.h"

static void hint_resume(struct http_req *r)
{
    struct outcome o;
    int st = service_hint_finish(r->park_ctx, &o);
    api_answer(r, st, &o);
}

/* The service's callback, from a bot worker: the hint is thought; wake the request. */
static void hint_wake(void *arg)
{
    http_wake(arg);
}

static void hint_free(void *ctx)
{
    service_hint_free(ctx);
}

void api_hint(struct http_req *r)
{
    if (r->json && json_is_object(r->json) && !api_reply_fields(r, NULL, 0, "a hint", NULL))
        return;
    struct service_hint *h = service_hint_new(r->srv, r->params[0], http_bearer(r), http_client(r));
    if (!h) {
        http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        return;
    }
    /* Parked, the request holds no thread while the hint waits for a bot worker; it is parked
     * before the worker can see it, so the wake-up always comes after the suspension. */
    if (http_park(r, hint_resume, h, hint_free)) {
        http_not_busy(r);
        if (!service_hint_start(h, hint_wake, r))
            http_wake(r); /* answered already */
        return;
    }
    service_hint_start(h, NULL, NULL); /* the daemon is stopping: in place */
    struct outcome o;
    api_answer(r, service_hint_finish(h, &o), &o);
    service_hint_free(h);
}
