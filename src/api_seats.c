/* api_seats.c: the handlers that change who sits at a table: a player leaving, the host handing
 * an absent seat to a bot (or another person one away past its time), its person taking it back,
 * and the host cancelling an open game. Each reads its request, calls
 * one service call (service_seats.c), which decides, and answers its outcome. */
#include "api_common.h"
#include "ruleset.h"
#include "server.h"
#include "service.h"

/* A body that must be empty or {}: false with a 400 answered. */
static bool no_body(struct http_req *r, const char *what)
{
    if (r->json && !json_is_object(r->json)) {
        http_reply_problem(r, P_NOT_AN_OBJECT, NULL,
                           "The body of %s must be a JSON object with no fields: send no body or "
                           "{}.",
                           what);
        return false;
    }
    return !r->json || api_reply_fields(r, NULL, 0, what, NULL);
}

void api_leave(struct http_req *r)
{
    if (!no_body(r, "leaving a game"))
        return;
    struct outcome o = {0};
    api_answer(r, service_leave(r->srv, r->params[0], http_bearer(r), &o), &o);
}

void api_takeover(struct http_req *r)
{
    if (!json_is_object(r->json)) {
        http_reply_problem(r, r->json ? P_NOT_AN_OBJECT : P_BAD_JSON, NULL,
                           "Send a JSON object naming the seat: {\"seat\": 2}.");
        return;
    }
    static const struct field_spec spec[] = {{"seat", FIELD_INT, true, 0, RS_MAX_SEATS - 1}};
    const json_t *vals[1];
    if (!api_reply_fields(r, spec, 1, "a takeover (name the seat: {\"seat\": 2})", vals))
        return;
    struct outcome o = {0};
    int seat = (int)json_integer_value(vals[0]);
    api_answer(r, service_takeover(r->srv, r->params[0], http_bearer(r), seat, &o), &o);
}

void api_reclaim(struct http_req *r)
{
    if (!no_body(r, "taking a seat back"))
        return;
    struct outcome o = {0};
    api_answer(r, service_reclaim(r->srv, r->params[0], http_bearer(r), &o), &o);
}

void api_cancel(struct http_req *r)
{
    if (!no_body(r, "cancelling a game"))
        return;
    struct outcome o = {0};
    api_answer(r, service_cancel(r->srv, r->params[0], http_bearer(r), &o), &o);
}
