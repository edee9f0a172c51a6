/* api_chat.c: the handlers of table talk: POST /games/{id}/chat (a message), GET
 * /games/{id}/chat (a page of messages after a cursor) and POST /games/{id}/chat/{msg}/report
 * (a report for the operator). Each reads its request, calls one service call
 * (service_chat.c), which decides who may write and read which channel, and answers. */
#include "api_common.h"
#include "server.h"
#include "service.h"

void api_chat_post(struct http_req *r)
{
    if (!json_is_object(r->json)) {
        http_reply_problem(r, r->json ? P_NOT_AN_OBJECT : P_BAD_JSON, NULL,
                           "Send a JSON object with the message: {\"text\": \"good game\"}.");
        return;
    }
    static const struct field_spec spec[] = {{"text", FIELD_ANY, false, 0, 0},
                                             {"key", FIELD_ANY, false, 0, 0}};
    const json_t *vals[2] = {NULL, NULL};
    if (!api_reply_fields(r, spec, 2, "a chat message ({\"text\": \"good game\"})", vals))
        return;
    struct outcome o = {0};
    api_answer(r,
               service_chat_post(r->srv, r->params[0], http_client(r), http_bearer(r), vals[0],
                                 vals[1], &o),
               &o);
}

void api_chat_read(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r,
               service_chat_read(r->srv, r->params[0], http_bearer(r), http_query(r, "after"),
                                 http_query(r, "limit"), &o),
               &o);
}

void api_chat_report(struct http_req *r)
{
    if (r->json && !json_is_object(r->json)) {
        http_reply_problem(r, P_NOT_AN_OBJECT, NULL,
                           "The body of a report must be a JSON object: {\"reason\": \"insults\"} "
                           "or nothing.");
        return;
    }
    static const struct field_spec spec[] = {{"reason", FIELD_ANY, false, 0, 0}};
    const json_t *vals[1] = {NULL};
    if (r->json && !api_reply_fields(r, spec, 1, "a report ({\"reason\": \"insults\"})", vals))
        return;
    struct outcome o = {0};
    api_answer(r,
               service_chat_report(r->srv, r->params[0], http_client(r), http_bearer(r),
                                   r->params[1], vals[0], &o),
               &o);
}
