/* auth.c: tokens, hashes and ids from the OS's randomness and OpenSSL's SHA-256. */
#include "auth.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <string.h>
#include <sys/random.h>

static bool random_bytes(void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom((char *)buf + got, n - got, 0);
        if (r < 0)
            return false;
        got += (size_t)r;
    }
    return true;
}

static void hex(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = 0;
}

bool auth_new_token(char token[AUTH_TOKEN_LEN + 1], uint8_t hash[AUTH_HASH_LEN])
{
    uint8_t raw[AUTH_TOKEN_LEN / 2];
    if (!random_bytes(raw, sizeof raw))
        return false;
    hex(raw, sizeof raw, token);
    auth_hash(token, hash);
    return true;
}

bool auth_new_session(char token[AUTH_SESSION_LEN + 1], uint8_t hash[AUTH_HASH_LEN])
{
    uint8_t raw[AUTH_TOKEN_LEN / 2];
    if (!random_bytes(raw, sizeof raw))
        return false;
    memcpy(token, AUTH_SESSION_PREFIX, sizeof AUTH_SESSION_PREFIX - 1);
    hex(raw, sizeof raw, token + sizeof AUTH_SESSION_PREFIX - 1);
    auth_hash(token, hash);
    return true;
}

bool auth_is_session(const char *token)
{
    return token && strncmp(token, AUTH_SESSION_PREFIX, sizeof AUTH_SESSION_PREFIX - 1) == 0;
}

void auth_hash(const char *token, uint8_t hash[AUTH_HASH_LEN])
{
    SHA256((const unsigned char *)token, strlen(token), hash);
}

bool auth_equal(const uint8_t a[AUTH_HASH_LEN], const uint8_t b[AUTH_HASH_LEN])
{
    return CRYPTO_memcmp(a, b, AUTH_HASH_LEN) == 0;
}

bool auth_new_id(char id[AUTH_ID_LEN + 1])
{
    uint8_t raw[AUTH_ID_LEN / 2];
    if (!random_bytes(raw, sizeof raw))
        return false;
    hex(raw, sizeof raw, id);
    return true;
}

uint64_t auth_random_u64(void)
{
    uint64_t v = 0;
    if (!random_bytes(&v, sizeof v))
        v = 0;
    return v;
}
