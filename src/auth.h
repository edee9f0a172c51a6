/* auth.h: secrets: random seat and host tokens (256 bits from the OS), their SHA-256 hashes
 * (the only form stored), constant-time comparison, and random game ids and seeds. */
#ifndef CITY_AUTH_H
#define CITY_AUTH_H

#include <stdbool.h>
#include <stdint.h>

enum { AUTH_TOKEN_LEN = 64, AUTH_HASH_LEN = 32, AUTH_ID_LEN = 16 };

/* Fills `token` (AUTH_TOKEN_LEN hex characters and a NUL) with 256 random bits from the OS
 * and `hash` with its SHA-256. Returns false when the OS gives no randomness. */
bool auth_new_token(char token[AUTH_TOKEN_LEN + 1], uint8_t hash[AUTH_HASH_LEN]);

/* SHA-256 of a token as presented by a client (any string). */
void auth_hash(const char *token, uint8_t hash[AUTH_HASH_LEN]);

/* Compares two hashes in time independent of their contents. */
bool auth_equal(const uint8_t a[AUTH_HASH_LEN], const uint8_t b[AUTH_HASH_LEN]);

/* A new random game id: AUTH_ID_LEN lowercase hex characters and a NUL. */
bool auth_new_id(char id[AUTH_ID_LEN + 1]);

/* 64 random bits from the OS (for seeds). */
uint64_t auth_random_u64(void);

#endif
