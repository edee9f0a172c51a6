/* api_common.h: what the HTTP handlers of /api/v1 share (api_games.c, api_play.c,
 * api_seats.c, api_hint.c): answering a request from the outcome a service call recorded
 * (service.h), and reading a request body against a field spec (outcome.h) with its 400
 * answered. */
#ifndef CITY_API_COMMON_H
#define CITY_API_COMMON_H

#include <stdbool.h>

#include <jansson.h>

#include "http.h"
#include "outcome.h"

/* Answers r from a service call's store status `st` and outcome o: o's success (its reply or
 * text) when st is STORE_OK and o has a status, o's problem (with its Retry-After) when the call
 * refused, 503 when the database is unreachable, else 500. Frees what o holds. */
void api_answer(struct http_req *r, int st, struct outcome *o);

/* fields_read() of request r's body (a JSON object), answering its 400 when it fails. */
bool api_reply_fields(struct http_req *r, const struct field_spec *spec, int n, const char *what,
                      const json_t **vals);

#endif
