/* api_common.h: what the handlers of /api/v1/games share (api_games.c, api_play.c): the
 * outcome a transaction body records and how it is answered, the per-address rate check, and
 * finding the seat of a token. */
#ifndef CITY_API_COMMON_H
#define CITY_API_COMMON_H

#include <stdbool.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "http.h"
#include "problem.h"
#include "service.h"

struct rate_limit;

/* What a transaction body decided to answer. */
struct outcome {
    int status;     /* 2xx on success */
    enum problem p; /* otherwise */
    char code[48];  /* problem code override, or "" */
    char detail[400];
    int retry_after; /* seconds for Retry-After, or 0 */
    json_t *reply;   /* success body, owned */
};

/* A read of one game: the server, the game id, the bearer token (for the hand view) and what
 * to answer. */
struct read_ctx {
    struct server *srv;
    const char *id;
    const char *token; /* for the hand view */
    struct outcome o;
};

/* Records problem `p` (with `code`, NULL for the problem's own, and a sentence) in o, dropping
 * any reply; returns STORE_ABORT, so a transaction body can `return api_fail(...)`. */
int api_fail(struct outcome *o, enum problem p, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Answers r from a transaction's status and outcome (freeing the outcome's reply). */
void api_answer(struct http_req *r, int st, struct outcome *o);

/* Takes one token of the client address's bucket in `rl` (NULL: no limit). False, with a 429
 * and its Retry-After queued, when the bucket is empty: `what` says what the address did too
 * often ("created games"), `rate` and `burst` are the limit's settings. */
bool api_within_rate(struct http_req *r, struct rate_limit *rl, const char *what, double rate,
                     int burst);

/* The refusal of a join, an order, a force or a seat change on a game that ended unplayed:
 * 409 game_expired, or game_cancelled when `status` is "cancelled". Returns STORE_ABORT. */
int api_fail_unplayed(struct outcome *o, const char *status);

/* True when a game of this status ended without being played (expired or cancelled). */
bool api_is_unplayed(const char *status);

/* ---- request bodies: one declarative reader ------------------------------------------------ */

/* What a field of a request body must be. */
enum api_kind {
    AF_INT,    /* an integer in min..max */
    AF_STRING, /* a string (its content is the caller's to judge) */
    AF_BOOL,   /* true or false */
    AF_ANY,    /* any JSON (judged by someone else: a game's options, a seed) */
};

/* One field of a request body, for api_read_fields(). */
struct api_field {
    const char *name;
    enum api_kind kind;
    bool required;
    long long min, max; /* AF_INT's range */
};

/* Reads JSON object `body` against spec[0..n-1], the one check of a body's shape every handler
 * shares: a key that is no field of the spec is 400 unknown_field (its sentence lists what
 * `what`, e.g. "joining a game", takes), a required field left out missing_field (null is
 * "left out" in every body), a field of the wrong kind wrong_type, an integer out of range
 * bad_value. vals[i] is field i's value (NULL when left out or null). False with the problem
 * recorded in o. */
bool api_read_fields(const json_t *body, const struct api_field *spec, int n, const char *what,
                     const json_t **vals, struct outcome *o);

/* api_read_fields() of request r's body (a JSON object), answering its 400 when it fails. */
bool api_reply_fields(struct http_req *r, const struct api_field *spec, int n, const char *what,
                      const json_t **vals);

/* The seat of `token` in loaded game lv, or -1 with the right 401/403 recorded in o. */
int api_seat_of_token(PGconn *c, struct live *lv, const char *token, struct outcome *o);

#endif
