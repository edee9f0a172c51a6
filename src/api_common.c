/* api_common.c: the pieces the game handlers share; see api_common.h. */
#include "api_common.h"

#include "store.h"

void api_answer(struct http_req *r, int st, struct outcome *o)
{
    if (st == STORE_OK && o->status && o->view) {
        http_reply_view(r, o->status, o->view);
        o->view = NULL;
    } else if (st == STORE_OK && o->status && o->text) {
        http_reply_bytes(r, o->status, "application/json", o->text, o->text_len);
        o->text = NULL;
    } else if (st == STORE_OK && o->status) {
        http_reply_json(r, o->status, o->reply);
        o->reply = NULL;
    } else if (st == STORE_ABORT || (st == STORE_OK && !o->status)) {
        http_reply_problem(r, o->p, o->code[0] ? o->code : NULL, "%s", o->detail);
        if (o->retry_after > 0)
            r->reply.retry_after = o->retry_after;
    } else if (st == STORE_UNKNOWN) {
        http_reply_problem(r, P_OUTCOME_UNKNOWN, NULL,
                           "The connection to the database broke while the change was being "
                           "committed, so it may or may not be stored; send the same request "
                           "again in a few seconds (an order resent for the same step is taken "
                           "once).");
    } else if (st == STORE_UNAVAILABLE) {
        http_reply_problem(r, P_UNAVAILABLE, NULL,
                           "The database is unreachable right now; try again in a few seconds.");
    } else {
        http_reply_problem(r, P_INTERNAL, NULL,
                           "The server could not complete the request; nothing was changed.");
    }
    outcome_clear(o);
}

bool api_reply_fields(struct http_req *r, const struct field_spec *spec, int n, const char *what,
                      const json_t **vals)
{
    struct outcome o = {0};
    if (fields_read(r->json, spec, n, what, vals, &o))
        return true;
    api_answer(r, STORE_ABORT, &o);
    return false;
}
