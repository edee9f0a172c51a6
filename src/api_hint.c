/* api_hint.c: POST /games/{id}/hint, the expert's suggestion for a seat's pending decision, a
 * few times per game (CITY_HINTS_PER_GAME). The service (service_hint) counts the hint in one
 * short transaction and lets the expert think on a copy of the state with no lock and no
 * database connection held, at most CITY_HINT_THREADS hints at once on an instance (past it:
 * 503 with Retry-After), so hints never hold up play. */
#include "api_common.h"
#include "server.h"
#include "service.h"

void api_hint(struct http_req *r)
{
    if (r->json && json_is_object(r->json) && !api_reply_fields(r, NULL, 0, "a hint", NULL))
        return;
    struct outcome o = {0};
    api_answer(r, service_hint(r->srv, r->params[0], http_bearer(r), &o), &o);
}
