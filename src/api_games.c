/* api_games.c: the handlers of /api/v1/games and below that are not moves (api_play.c has
 * orders, resolve and hints): create, list, view, join, hand, events, replay. Each reads its
 * request, calls one service call (service.h), which decides, and answers its outcome. */
#include <stdio.h>
#include <stdlib.h>

#include "api_common.h"
#include "auth.h"
#include "server.h"
#include "service.h"

void api_create_game(struct http_req *r)
{
    if (!r->json) {
        http_reply_problem(r, P_BAD_JSON, NULL,
                           "Send a JSON object such as {\"seats\": 4, \"bots\": [\"greedy\", "
                           "\"greedy\", \"greedy\"]}.");
        return;
    }
    struct outcome o = {0};
    int st = service_create(r->srv, http_client(r), http_bearer(r), r->json, &o);
    const char *id = o.status == 201 ? json_string_value(json_object_get(o.reply, "id")) : NULL;
    if (id) { /* the new game's public view */
        char where[64];
        snprintf(where, sizeof where, "/api/v1/games/%s", id);
        http_reply_header(r, "Location", where);
    }
    api_answer(r, st, &o);
}

void api_list_games(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r,
               service_list_games(r->srv, http_query(r, "limit"), http_query(r, "after"),
                                  http_query(r, "game"), http_query(r, "seats"), &o),
               &o);
}

/* The public view, from this instance's view cache when it holds the game (see viewcache.h),
 * else from the database (and then cached). */
void api_get_game(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r, service_game_view(r->srv, r->params[0], &o), &o);
}

void api_hand(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r, service_hand(r->srv, r->params[0], http_bearer(r), &o), &o);
}

void api_join(struct http_req *r)
{
    if (auth_is_session(http_bearer(r))) { /* the account joins under its name: no body */
        if (r->json && json_object_size(r->json) > 0) {
            http_reply_problem(r, P_CONFLICTING_FIELDS, NULL,
                               "Signed in, you join under your account's name: send no body or "
                               "{} (or send no session token to join anonymously).");
            return;
        }
        struct outcome o = {0};
        api_answer(
            r, service_join_account(r->srv, r->params[0], http_client(r), http_bearer(r), &o), &o);
        return;
    }
    if (!r->json) {
        http_reply_problem(r, P_BAD_JSON, NULL, "Send a JSON object such as {\"name\": \"Ada\"}.");
        return;
    }
    static const struct field_spec spec[] = {{"name", FIELD_STRING, true, 0, 0}};
    const json_t *vals[1];
    if (!api_reply_fields(r, spec, 1, "joining a game", vals))
        return;
    struct outcome o = {0};
    api_answer(r, service_join(r->srv, r->params[0], http_client(r), vals[0], &o), &o);
}

/* Parses a non-negative integer query value; NULL means 0. */
static bool parse_after(const char *s, long long *out)
{
    *out = 0;
    if (!s)
        return true;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < 0 || v > 1000000000000LL)
        return false;
    *out = v;
    return true;
}

void api_events(struct http_req *r)
{
    long long after;
    if (!parse_after(http_query(r, "after"), &after)) {
        http_reply_problem(r, P_BAD_QUERY, NULL,
                           "\"after\" must be a non-negative integer: the last event sequence "
                           "number you have.");
        return;
    }
    struct outcome o = {0};
    api_answer(r, service_events(r->srv, r->params[0], after, &o), &o);
}

void api_replay(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r, service_replay(r->srv, r->params[0], &o), &o);
}

/* The finished game round by round, for the page's replay viewer. */
void api_replay_rounds(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r, service_replay_rounds(r->srv, r->params[0], &o), &o);
}
