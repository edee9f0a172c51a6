/* rng.h: the one seeded random number generator of a game (xoshiro256**, seeded through
 * splitmix64). Its whole state lives inside struct city_rng, so copying a game copies its
 * future; nothing here touches global state. */
#ifndef CITY_RNG_H
#define CITY_RNG_H

#include <assert.h>
#include <stdint.h>

struct city_rng {
    uint64_t s[4];
};

/* Seeds `r` from any 64-bit value (0 included). */
void rng_seed(struct city_rng *r, uint64_t seed);

/* The next 64 random bits. Inline: the engine and its bots draw hundreds of numbers a game. */
static inline uint64_t rng_next(struct city_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t x = s[1] * 5;
    const uint64_t result = ((x << 7) | (x >> 57)) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* A uniform integer in [0, bound); bound must be at least 1. Unbiased (Lemire's method). */
static inline uint32_t rng_below(struct city_rng *r, uint32_t bound)
{
    assert(bound > 0);
    uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * bound;
    uint32_t low = (uint32_t)m;
    if (__builtin_expect(low < bound, 0)) {
        uint32_t threshold = (uint32_t)(-bound) % bound;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Shuffles n bytes in place (Fisher-Yates). */
void rng_shuffle(struct city_rng *r, uint8_t *a, int n);

#endif
