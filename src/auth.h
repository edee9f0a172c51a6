/* auth.h: secrets: random seat, host and session tokens (256 bits from the OS), their SHA-256
 * hashes (the only form stored), constant-time comparison, and random game ids and seeds. */
#ifndef CITY_AUTH_H
#define CITY_AUTH_H

#include <stdbool.h>
#include <stdint.h>

enum { AUTH_TOKEN_LEN = 64, AUTH_HASH_LEN = 32, AUTH_ID_LEN = 16 };

/* A session token of an account is AUTH_SESSION_PREFIX and AUTH_TOKEN_LEN hex characters: the
 * prefix tells it from a seat or host token without asking the database. */
#define AUTH_SESSION_PREFIX "session_"
enum { AUTH_SESSION_LEN = (int)sizeof AUTH_SESSION_PREFIX - 1 + AUTH_TOKEN_LEN };

/* Fills `token` (AUTH_TOKEN_LEN hex characters and a NUL) with 256 random bits from the OS
 * and `hash` with its SHA-256. Returns false when the OS gives no randomness. */
bool auth_new_token(char token[AUTH_TOKEN_LEN + 1], uint8_t hash[AUTH_HASH_LEN]);

/* A new session token (AUTH_SESSION_LEN characters and a NUL) and its SHA-256, as
 * auth_new_token(). */
bool auth_new_session(char token[AUTH_SESSION_LEN + 1], uint8_t hash[AUTH_HASH_LEN]);

/* True when a bearer token as sent (NULL: none) has the form of a session token. */
bool auth_is_session(const char *token);

/* SHA-256 of a token as presented by a client (any string). */
void auth_hash(const char *token, uint8_t hash[AUTH_HASH_LEN]);

/* Compares two hashes in time independent of their contents. */
bool auth_equal(const uint8_t a[AUTH_HASH_LEN], const uint8_t b[AUTH_HASH_LEN]);

/* A new random game id: AUTH_ID_LEN lowercase hex characters and a NUL. */
bool auth_new_id(char id[AUTH_ID_LEN + 1]);

/* 64 random bits from the OS (for seeds). */
uint64_t auth_random_u64(void);

#endif
