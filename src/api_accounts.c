/* api_accounts.c: the handlers of optional accounts: sign up (POST /api/v1/accounts), sign in
 * and out (POST and DELETE /api/v1/sessions, DELETE /api/v1/sessions/current), the account's own
 * view and games (GET /api/v1/me, /api/v1/me/games), its password (PUT /api/v1/me/password) and
 * its deletion (DELETE /api/v1/me), and the public profiles and leaderboards of ratings (GET
 * /api/v1/players/{name}, /api/v1/leaderboard). Each reads its request against a field spec, calls
 * one service call (service_accounts.c, service_ratings.c), which decides, and answers its outcome.
 */
#include "api_common.h"

#include <string.h>

#include "server.h"
#include "service.h"

/* Reads body fields spec[0..n) of r into vals; false with the 400 answered (no body is 400
 * malformed_json, with `example` to send). */
static bool read_body(struct http_req *r, const struct field_spec *spec, int n, const char *what,
                      const char *example, const json_t **vals)
{
    if (!r->json) {
        http_reply_problem(r, P_BAD_JSON, NULL, "Send a JSON object such as %s.", example);
        return false;
    }
    return api_reply_fields(r, spec, n, what, vals);
}

static const struct field_spec credentials[] = {{"name", FIELD_STRING, true, 0, 0},
                                                {"password", FIELD_STRING, true, 0, 0}};
static const char credentials_example[] = "{\"name\": \"Ada\", \"password\": \"a few words\"}";

void api_account_create(struct http_req *r)
{
    const json_t *vals[2];
    if (!read_body(r, credentials, 2, "signing up", credentials_example, vals))
        return;
    struct outcome o = {0};
    api_answer(r, service_account_create(r->srv, http_client(r), vals[0], vals[1], &o), &o);
}

void api_session_create(struct http_req *r)
{
    const json_t *vals[2];
    if (!read_body(r, credentials, 2, "signing in", credentials_example, vals))
        return;
    struct outcome o = {0};
    api_answer(r, service_session_create(r->srv, http_client(r), vals[0], vals[1], &o), &o);
}

void api_session_end(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r, service_session_end(r->srv, http_bearer(r), false, &o), &o);
}

void api_sessions_end(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r, service_session_end(r->srv, http_bearer(r), true, &o), &o);
}

void api_me(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r, service_me(r->srv, http_bearer(r), &o), &o);
}

void api_me_games(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r,
               service_me_games(r->srv, http_bearer(r), http_query(r, "limit"),
                                http_query(r, "after"), &o),
               &o);
}

void api_password(struct http_req *r)
{
    static const struct field_spec spec[] = {{"old", FIELD_STRING, true, 0, 0},
                                             {"new", FIELD_STRING, true, 0, 0}};
    const json_t *vals[2];
    if (!read_body(r, spec, 2, "changing the password",
                   "{\"old\": \"the current password\", \"new\": \"the new one\"}", vals))
        return;
    struct outcome o = {0};
    api_answer(
        r, service_password_change(r->srv, http_client(r), http_bearer(r), vals[0], vals[1], &o),
        &o);
}

void api_account_delete(struct http_req *r)
{
    static const struct field_spec spec[] = {{"password", FIELD_STRING, true, 0, 0}};
    const json_t *vals[1];
    if (!read_body(r, spec, 1, "deleting the account", "{\"password\": \"the password\"}", vals))
        return;
    struct outcome o = {0};
    api_answer(r, service_account_delete(r->srv, http_client(r), http_bearer(r), vals[0], &o), &o);
}

void api_player(struct http_req *r)
{
    /* The rest of the path is the name (percent-decoded), which may be longer than an {id}. */
    const char *name = r->url + strlen("/api/v1/players/");
    struct outcome o = {0};
    if (!*name || strchr(name, '/')) {
        http_reply_problem(r, P_NO_PLAYER, NULL,
                           "Name one player: GET /api/v1/players/{name}, the name as the "
                           "leaderboard shows it.");
        return;
    }
    api_answer(r, service_player(r->srv, name, &o), &o);
}

void api_leaderboard(struct http_req *r)
{
    struct outcome o = {0};
    api_answer(r,
               service_leaderboard(r->srv, http_query(r, "game"), http_query(r, "limit"),
                                   http_query(r, "after"), &o),
               &o);
}
