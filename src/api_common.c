/* api_common.c: the pieces the game handlers share; see api_common.h. */
#include "api_common.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "json_util.h"
#include "ratelimit.h"
#include "store.h"

int api_fail(struct outcome *o, enum problem p, const char *code, const char *fmt, ...)
{
    o->status = 0;
    o->p = p;
    snprintf(o->code, sizeof o->code, "%s", code ? code : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->detail, sizeof o->detail, fmt, ap);
    va_end(ap);
    json_decref(o->reply);
    o->reply = NULL;
    return STORE_ABORT;
}

/* Answers the request from a transaction's status and outcome. */
void api_answer(struct http_req *r, int st, struct outcome *o)
{
    if (st == STORE_OK && o->status) {
        http_reply_json(r, o->status, o->reply);
        o->reply = NULL;
    } else if (st == STORE_ABORT || (st == STORE_OK && !o->status)) {
        http_reply_problem(r, o->p, o->code[0] ? o->code : NULL, "%s", o->detail);
        r->reply.retry_after = o->retry_after;
    } else if (st == STORE_UNAVAILABLE) {
        http_reply_problem(r, P_UNAVAILABLE, NULL,
                           "The database is unreachable right now; try again in a few seconds.");
    } else {
        http_reply_problem(r, P_INTERNAL, NULL,
                           "The server could not complete the request; nothing was changed.");
    }
    json_decref(o->reply);
    o->reply = NULL;
}

/* ---- quotas ------------------------------------------------------------------------------ */

/* Takes one token of the client address's bucket in `rl` (NULL: no limit). False, with a 429
 * and its Retry-After queued, when the bucket is empty: `what` says what the address did too
 * often ("created games"), `rate` and `burst` are the limit's settings. */
bool api_within_rate(struct http_req *r, struct rate_limit *rl, const char *what, double rate,
                     int burst)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int wait = rate_limit_take(rl, http_client(r), (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
    if (!wait)
        return true;
    http_reply_problem(r, P_RATE_LIMITED, NULL,
                       "Your address has %s too often: this server allows %g a minute, %d at "
                       "once. Try again in %d second%s (see Retry-After).",
                       what, rate, burst, wait, wait == 1 ? "" : "s");
    r->reply.retry_after = wait;
    return false;
}

int api_fail_unplayed(struct outcome *o, const char *status)
{
    if (strcmp(status, "cancelled") == 0)
        return api_fail(o, P_GAME_CANCELLED, NULL,
                        "The host cancelled this game before it started. Create a game or join "
                        "an open one (GET /api/v1/games).");
    return api_fail(o, P_GAME_EXPIRED, NULL,
                    "This game expired: its seats did not fill in time. Create a game or join an "
                    "open one (GET /api/v1/games).");
}

bool api_is_unplayed(const char *status)
{
    return strcmp(status, "expired") == 0 || strcmp(status, "cancelled") == 0;
}

/* Finds the seat of `token` in a loaded game, or queues the right 401/403. */
int api_seat_of_token(PGconn *c, struct live *lv, const char *token, struct outcome *o)
{
    if (!token) {
        api_fail(o, P_NO_TOKEN, NULL,
                 "Send your seat token as \"Authorization: Bearer TOKEN\" (it came with join).");
        return -1;
    }
    uint8_t hash[AUTH_HASH_LEN];
    auth_hash(token, hash);
    int seat = live_seat_of(lv, hash);
    if (seat >= 0)
        return seat;
    if (auth_equal(hash, lv->row.host_hash)) {
        api_fail(o, P_NOT_SEAT, NULL,
                 "This is the host token; hands and orders need a seat token from join.");
        return -1;
    }
    if (store_token_known(c, hash) == STORE_OK)
        api_fail(o, P_WRONG_GAME, NULL,
                 "This token belongs to another game; use the token of "
                 "your seat in this game.");
    else
        api_fail(o, P_BAD_TOKEN, NULL, "The token is not valid; join the game to get one.");
    return -1;
}

/* ---- request bodies ----------------------------------------------------------------------- */

bool api_read_fields(const json_t *body, const struct api_field *spec, int n, const char *what,
                     const json_t **vals, struct outcome *o)
{
    static const char *const kinds[] = {"an integer", "a string", "true or false", "any value"};
    json_t *obj = unconst(body);
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        bool known = false;
        for (int i = 0; i < n && !known; i++)
            known = strcmp(spec[i].name, key) == 0;
        if (known)
            continue;
        char list[240] = "";
        for (int i = 0; i < n; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     i == 0      ? ""
                     : i + 1 < n ? ", "
                                 : " and ",
                     spec[i].name);
        if (n == 0)
            api_fail(o, P_UNKNOWN_FIELD, NULL,
                     "Unknown field \"%.60s\"; %s takes no fields: send no body or {}.", key, what);
        else
            api_fail(o, P_UNKNOWN_FIELD, NULL, "Unknown field \"%.60s\"; %s takes only %s.", key,
                     what, list);
        return false;
    }
    for (int i = 0; i < n; i++) {
        const struct api_field *f = &spec[i];
        v = json_object_get(body, f->name);
        vals[i] = v && !json_is_null(v) ? v : NULL; /* null stands for "left out" */
        if (!vals[i] && f->required) {
            api_fail(o, P_MISSING_FIELD, NULL, "The field \"%s\" is required (%s).", f->name,
                     kinds[f->kind]);
            return false;
        }
        if (!vals[i] || f->kind == AF_ANY)
            continue;
        bool fits = f->kind == AF_INT      ? json_is_integer(v)
                    : f->kind == AF_STRING ? json_is_string(v)
                                           : json_is_boolean(v);
        if (!fits) {
            api_fail(o, P_WRONG_TYPE, NULL, "\"%s\" must be %s.", f->name, kinds[f->kind]);
            return false;
        }
        json_int_t x = f->kind == AF_INT ? json_integer_value(v) : 0;
        if (f->kind == AF_INT && (x < f->min || x > f->max)) {
            api_fail(o, P_BAD_VALUE, NULL, "\"%s\" must be between %lld and %lld.", f->name, f->min,
                     f->max);
            return false;
        }
    }
    return true;
}

bool api_reply_fields(struct http_req *r, const struct api_field *spec, int n, const char *what,
                      const json_t **vals)
{
    struct outcome o = {0};
    if (api_read_fields(r->json, spec, n, what, vals, &o))
        return true;
    api_answer(r, STORE_ABORT, &o);
    return false;
}
