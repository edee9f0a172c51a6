/* api_accounts.c: the handlers of optional accounts: sign up (POST /api/v1/accounts), sign in
 * and out (POST and DELETE /api/v1/sessions, DELETE /api/v1/sessions/current), the account's own
 * view and games (GET /api/v1/me, /api/v1/me/games), its password (PUT /api/v1/me/password) and
 * its deletion (DELETE /api/v1/me), and the public profiles and leaderboards of ratings (GET
 * /api/v1/players/{name}, /api/v1/leaderboard). Each reads its request against a field spec, calls
 * one service call (service_accounts.c, service_ratings.c), which decides, and answers its outcome.
 */
#include "api_common.h"

#include <stdlib.h>
#include <string.h>

#include "hashcrew.h"
#include "server.h"
#include "service.h"
#include "store.h"

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

/* A handler's service call that hashes a password, run on the hash crew (hashcrew.h) with the
 * request parked: `call` reads r (its body and token stay as they were) and fills o. */
struct offload {
    struct http_req *r;
    int (*call)(struct http_req *r, struct outcome *o);
    int st;
    struct outcome o;
};

static void offload_run(void *arg)
{
    struct offload *f = arg;
    f->st = f->call(f->r, &f->o);
    http_wake(f->r);
}

static void offload_resume(struct http_req *r)
{
    struct offload *f = r->park_ctx;
    api_answer(r, f->st, &f->o);
}

static void offload_free(void *ctx)
{
    struct offload *f = ctx;
    outcome_clear(&f->o);
    free(f);
}

/* Answers r with call's outcome, computed on the hash crew; in place when there is no crew or
 * the daemon is stopping; 503 busy when the crew has no room. */
static void offload(struct http_req *r, int (*call)(struct http_req *r, struct outcome *o))
{
    (void)http_bearer(r); /* read here, on libmicrohttpd's thread; the crew finds it kept */
    struct offload *f = calloc(1, sizeof *f);
    if (!f || !r->srv->hashes || !http_park(r, offload_resume, f, offload_free)) {
        free(f);
        struct outcome o = {0};
        api_answer(r, call(r, &o), &o);
        return;
    }
    f->r = r;
    f->call = call;
    if (!hash_crew_submit(r->srv->hashes, offload_run, f)) {
        outcome_fail(&f->o, P_BUSY, NULL,
                     "The server is checking too many passwords at once; try again in a second.");
        f->o.retry_after = 1;
        f->st = STORE_ABORT;
        http_wake(r);
    }
}

static const struct field_spec credentials[] = {{"name", FIELD_STRING, true, 0, 0},
                                                {"password", FIELD_STRING, true, 0, 0}};
static const char credentials_example[] = "{\"name\": \"Ada\", \"password\": \"a few words\"}";

static int account_create(struct http_req *r, struct outcome *o)
{
    return service_account_create(r->srv, http_client(r), json_object_get(r->json, "name"),
                                  json_object_get(r->json, "password"), o);
}

void api_account_create(struct http_req *r)
{
    const json_t *vals[2];
    if (read_body(r, credentials, 2, "signing up", credentials_example, vals))
        offload(r, account_create);
}

static int session_create(struct http_req *r, struct outcome *o)
{
    return service_session_create(r->srv, http_client(r), json_object_get(r->json, "name"),
                                  json_object_get(r->json, "password"), o);
}

void api_session_create(struct http_req *r)
{
    const json_t *vals[2];
    if (read_body(r, credentials, 2, "signing in", credentials_example, vals))
        offload(r, session_create);
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

static int password_change(struct http_req *r, struct outcome *o)
{
    return service_password_change(r->srv, http_client(r), http_bearer(r),
                                   json_object_get(r->json, "old"), json_object_get(r->json, "new"),
                                   o);
}

void api_password(struct http_req *r)
{
    static const struct field_spec spec[] = {{"old", FIELD_STRING, true, 0, 0},
                                             {"new", FIELD_STRING, true, 0, 0}};
    const json_t *vals[2];
    if (!read_body(r, spec, 2, "changing the password",
                   "{\"old\": \"the current password\", \"new\": \"the new one\"}", vals))
        return;
    offload(r, password_change);
}

static int account_delete(struct http_req *r, struct outcome *o)
{
    return service_account_delete(r->srv, http_client(r), http_bearer(r),
                                  json_object_get(r->json, "password"), o);
}

void api_account_delete(struct http_req *r)
{
    static const struct field_spec spec[] = {{"password", FIELD_STRING, true, 0, 0}};
    const json_t *vals[1];
    if (!read_body(r, spec, 1, "deleting the account", "{\"password\": \"the password\"}", vals))
        return;
    offload(r, account_delete);
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
