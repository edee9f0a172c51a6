/* pwhash.h: account passwords: argon2id hashes through libsodium's crypto_pwhash_str (the stored
 * string holds its salt and its costs, so hashes made with other costs still verify), with this
 * server's costs chosen so that one hash takes well under 100 ms on a small machine, and a cap
 * on the hashes computed at once in the process, so that sign-ins cannot take every thread of
 * the HTTP server (past the cap the caller answers 503 busy). Thread-safe. */
#ifndef CITY_PWHASH_H
#define CITY_PWHASH_H

#include <stdbool.h>
#include <stddef.h>

/* The costs of a new hash: 2 passes over 32 MiB (`cityd hash-cost`: a median of 56 to 83 ms on
 * the project's 2-core machine while other work ran, 2026-11-26), and the length of a stored
 * hash string. */
#define PWHASH_OPSLIMIT 2ULL
#define PWHASH_MEMLIMIT (32ULL << 20)
enum {
    PWHASH_STR_LEN = 128,    /* crypto_pwhash_STRBYTES, its NUL included */
    PWHASH_MIN_CHARS = 8,    /* a password's shortest length, in code points */
    PWHASH_MAX_BYTES = 1024, /* and its longest, in bytes */
};

/* Takes one of `cap` (>= 1) slots for a hash, without waiting: false when `cap` hashes run
 * already. Every pwhash_make() and pwhash_check() runs inside a slot: release it with
 * pwhash_leave(). */
bool pwhash_enter(int cap);
void pwhash_leave(void);

/* Hashes the `len` bytes of password `pw` into `out` (a NUL-terminated string). False when the
 * library cannot start or memory runs out. */
bool pwhash_make(const char *pw, size_t len, char out[PWHASH_STR_LEN]);

/* True when password `pw` (`len` bytes) matches stored hash string `stored`. With `stored`
 * NULL (no such account) it checks against a hash of a random password, so that the answer
 * takes as long whether the account exists or not, and is false. */
bool pwhash_check(const char *stored, const char *pw, size_t len);

/* The time one pwhash_make() takes here, in milliseconds (the median of `runs`). */
double pwhash_measure_ms(int runs);

#endif
