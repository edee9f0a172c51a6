/* store_sql.h: the small statement helpers the service's SQL files share (store_games.c,
 * store_seats.c, store_lobby.c, store_sweep.c), private to them: a statement with its parameters
 * through the store's pipeline, and a number as a text parameter. */
#ifndef CITY_STORE_SQL_H
#define CITY_STORE_SQL_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "store.h"

/* One statement through the store's pipeline (store.h); the result in *res (caller clears). */
static inline int query(PGconn *c, const char *what, const char *sql, int n,
                        const char *const *vals, const int *lens, PGresult **res)
{
    const struct store_stmt q = {what, sql, n, vals, lens, false};
    return store_query(c, &q, res);
}

/* One statement whose result is not needed: queued inside a transaction (store_command). */
static inline int command(PGconn *c, const char *what, const char *sql, int n,
                          const char *const *vals, const int *lens)
{
    const struct store_stmt q = {what, sql, n, vals, lens, false};
    return store_command(c, &q);
}

/* Writes v in decimal into buf (n bytes). */
static inline void itoa_buf(char *buf, size_t n, long long v)
{
    snprintf(buf, n, "%lld", v);
}

/* Parses column `col` of every row of r as a JSON document into a new array *out; STORE_HARD
 * when one is not JSON. */
int rows_to_array(PGresult *r, int col, json_t **out);

/* Runs a query whose one column is a JSON document per row; the rows become a new array *out. */
int query_array(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                json_t **out);

/* Copies the bytea in row i, column k of r into dst when it is exactly `len` bytes; false (dst
 * untouched) when it is NULL, of another length, or cannot be decoded. */
bool bytea_into(const PGresult *r, int i, int k, void *dst, size_t len);

/* The lobby's statement (store_lobby.c), for store_games_sql(). */
const char *store_lobby_sql(void);

#endif
