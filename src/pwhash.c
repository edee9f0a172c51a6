/* pwhash.c: argon2id password hashes with libsodium, and the cap on hashes at once (see
 * pwhash.h). */
#include "pwhash.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

static atomic_int hashing;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool ready;
static char dummy[PWHASH_STR_LEN]; /* the hash of a random password, for unknown accounts */

static void start(void)
{
    if (sodium_init() < 0)
        return;
    unsigned char pw[32];
    randombytes_buf(pw, sizeof pw);
    ready = crypto_pwhash_str(dummy, (const char *)pw, sizeof pw, PWHASH_OPSLIMIT,
                              (size_t)PWHASH_MEMLIMIT) == 0;
    sodium_memzero(pw, sizeof pw);
}

bool pwhash_enter(int cap)
{
    if (atomic_fetch_add(&hashing, 1) >= (cap < 1 ? 1 : cap)) {
        atomic_fetch_sub(&hashing, 1);
        return false;
    }
    return true;
}

void pwhash_leave(void)
{
    atomic_fetch_sub(&hashing, 1);
}

bool pwhash_make(const char *pw, size_t len, char out[PWHASH_STR_LEN])
{
    pthread_once(&once, start);
    return ready && crypto_pwhash_str(out, pw, len, PWHASH_OPSLIMIT, (size_t)PWHASH_MEMLIMIT) == 0;
}

bool pwhash_check(const char *stored, const char *pw, size_t len)
{
    pthread_once(&once, start);
    if (!ready)
        return false;
    bool ok = crypto_pwhash_str_verify(stored ? stored : dummy, pw, len) == 0;
    return stored && ok;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double pwhash_measure_ms(int runs)
{
    if (runs < 1)
        runs = 1;
    if (runs > 64)
        runs = 64;
    double ms[64];
    char out[PWHASH_STR_LEN];
    pthread_once(&once, start);
    for (int i = 0; i < runs; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        pwhash_make("correct horse battery staple", 28, out);
        clock_gettime(CLOCK_MONOTONIC, &b);
        ms[i] = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    }
    qsort(ms, (size_t)runs, sizeof *ms, by_value);
    return ms[runs / 2];
}
