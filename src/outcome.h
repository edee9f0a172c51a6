/* outcome.h: what a request came to, as the service decides it (service.h) and the HTTP layer
 * answers it (api_common.h): a success, with its status and reply body, or a problem of the
 * registry (problem.h) with its code and a sentence; and the one declarative reader of request
 * bodies (a field spec per body), whose refusals are such outcomes. No I/O. */
#ifndef CITY_OUTCOME_H
#define CITY_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "problem.h"

/* What a request came to. Start one zeroed; whoever holds it owns reply and text. */
struct outcome {
    int status;     /* the success status (200, 201, 202), or 0 for a problem */
    enum problem p; /* the problem, when status is 0 */
    char code[48];  /* the problem's code instead of the registry's (an engine's reason), or "" */
    char detail[400];
    int retry_after; /* seconds for Retry-After, or 0 */
    json_t *reply;   /* the success body */
    char *text;      /* or the success body already rendered as JSON (text_len bytes, malloc'd) */
    size_t text_len;
    struct view_text *view; /* or a cached view's text, shared (a reference, viewcache.h) */
};

/* Records problem `p` (with `code`, NULL for the problem's own, and a sentence) in o, dropping
 * any reply; returns STORE_ABORT, so that a transaction body can `return outcome_fail(...)`. */
int outcome_fail(struct outcome *o, enum problem p, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records a success: `status` with body `reply` (stolen), replacing whatever o held (a body run
 * again after a retried transaction records its reply again). */
void outcome_reply(struct outcome *o, int status, json_t *reply);

/* Records a success whose body is already JSON text: `status` with the `len` bytes at `text`
 * (malloc'd, stolen), replacing whatever o held. */
void outcome_text(struct outcome *o, int status, char *text, size_t len);

/* Records a success whose body is a cached view's shared text `view` (a reference, stolen). */
struct view_text;
void outcome_view(struct outcome *o, int status, struct view_text *view);

/* Frees what o holds and zeroes it. */
void outcome_clear(struct outcome *o);

/* ---- request bodies: one declarative reader ------------------------------------------------ */

/* What a field of a request body must be. */
enum field_kind {
    FIELD_INT,    /* an integer in min..max */
    FIELD_STRING, /* a string (its content is the caller's to judge) */
    FIELD_BOOL,   /* true or false */
    FIELD_ANY,    /* any JSON (judged by someone else: a game's options, a seed) */
};

/* One field of a request body, for fields_read(). */
struct field_spec {
    const char *name;
    enum field_kind kind;
    bool required;
    long long min, max; /* FIELD_INT's range */
};

/* Reads JSON object `body` against spec[0..n-1], the one check of a body's shape every request
 * shares: a key that is no field of the spec is 400 unknown_field (its sentence lists what
 * `what`, e.g. "joining a game", takes), a required field left out missing_field (null is
 * "left out" in every body), a field of the wrong kind wrong_type, an integer out of range
 * bad_value. vals[i] is field i's value (NULL when left out or null). False with the problem
 * recorded in o. */
bool fields_read(const json_t *body, const struct field_spec *spec, int n, const char *what,
                 const json_t **vals, struct outcome *o);

#endif
