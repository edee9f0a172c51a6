/* store_accounts.h: the SQL of accounts and their sessions (migration 0017): an account's row,
 * its sessions (only the SHA-256 of a session token is stored, with its expiry), the games its
 * seats are in, and deleting it (its seats keep their games under the name "deleted player").
 * Every function runs parameterized statements on `c` (inside the caller's transaction where
 * one is open) and returns an enum store_status. */
#ifndef CITY_STORE_ACCOUNTS_H
#define CITY_STORE_ACCOUNTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "auth.h"
#include "names.h"
#include "store.h"

/* The name every seat of a deleted account shows from then on. */
#define STORE_DELETED_NAME "deleted player"

/* An account as read. pw_hash is filled only by the reads that say so. */
struct account {
    long long id;
    char name[NAMES_MAX_BYTES + 1];
    char created_at[32]; /* "YYYY-MM-DDTHH:MM:SSZ" (UTC) */
    char pw_hash[128];   /* crypto_pwhash_str()'s string (crypto_pwhash_STRBYTES) */
};

/* Inserts an account named `name` (shown) with unique key `key` (name_key()) and password hash
 * `pw_hash`, filling *out (its id and created_at; not pw_hash). STORE_NO_ROW when an account
 * already has the key. */
int store_account_insert(PGconn *c, const char *name, const char *key, const char *pw_hash,
                         struct account *out);

/* The account whose name_key() is `key`, with its pw_hash. STORE_NO_ROW when there is none. */
int store_account_by_key(PGconn *c, const char *key, struct account *out);

/* The account of the unexpired session whose token hashes to `hash`, with its pw_hash.
 * STORE_NO_ROW when no session has it or it has expired. */
int store_account_of_session(PGconn *c, const uint8_t hash[AUTH_HASH_LEN], struct account *out);

/* Stores a session of account `account` whose token hashes to `hash`, expiring in `seconds`,
 * and deletes the account's sessions that have expired. Its expiry ("YYYY-MM-DDTHH:MM:SSZ") to
 * expires_at (32 bytes). */
int store_session_insert(PGconn *c, long long account, const uint8_t hash[AUTH_HASH_LEN],
                         int seconds, char expires_at[32]);

/* Ends sessions of account `account`: only the one hashing to `only` when it is not NULL;
 * else every one but the one hashing to `keep` (NULL: every one). Their number to *ended. */
int store_sessions_end(PGconn *c, long long account, const uint8_t *only, const uint8_t *keep,
                       int *ended);

/* Deletes up to `max` sessions that have expired (of any account), skipping rows another
 * transaction holds; their number to *n. The sweeper's, so that an account that never signs in
 * again leaves no session behind. */
int store_sessions_purge(PGconn *c, int max, int *n);

/* Replaces the password hash of account `account` when it still is `old_hash` (so that two
 * changes at once cannot both pass the old password). STORE_NO_ROW when it changed meanwhile. */
int store_account_password(PGconn *c, long long account, const char *old_hash,
                           const char *new_hash);

/* Deletes account `account` when its password hash still is `pw_hash` (else STORE_NO_ROW,
 * nothing changed): its seats keep their games and are renamed STORE_DELETED_NAME, in the seats
 * and in the games' logged events, and each such game's seats_version is bumped; its sessions
 * go with it. The ids of up to `max` such games to ids[], their number to *n. */
int store_account_delete(PGconn *c, long long account, const char *pw_hash,
                         char ids[][AUTH_ID_LEN + 1], int max, int *n);

/* Where a page of an account's games starts: after the game `id` changed at `at` (UTC text with
 * microseconds, "YYYY-MM-DDTHH:MM:SS.uuuuuuZ"); none when id is "". */
struct games_cursor {
    char at[32];
    char id[AUTH_ID_LEN + 1];
};

/* The length of a page cursor of an account's games, with its NUL. */
enum { STORE_GAMES_CURSOR_LEN = 64 };

/* Reads a cursor as store_account_games() wrote it ("AT~ID"); false when `text` is none. */
bool store_games_cursor_parse(const char *text, struct games_cursor *out);

/* The games account `account` sits in, the most recently changed first (ties by id), at most
 * `limit` after `after` (NULL: from the first), as a new JSON array of {id, game, status, seat,
 * players, private, created_at, updated_at}; the next page's cursor into next
 * (STORE_GAMES_CURSOR_LEN bytes; "" when this is the last page). */
int store_account_games(PGconn *c, long long account, int limit, const struct games_cursor *after,
                        json_t **out, char *next);

#endif
