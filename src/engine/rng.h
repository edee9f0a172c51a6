/* rng.h: the one seeded random number generator of a game (xoshiro256**, seeded through
 * splitmix64). Its whole state lives inside struct city_rng, so copying a game copies its
 * future; nothing here touches global state. */
#ifndef CITY_RNG_H
#define CITY_RNG_H

#include <stdint.h>

struct city_rng {
    uint64_t s[4];
};

/* Seeds `r` from any 64-bit value (0 included). */
void rng_seed(struct city_rng *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t rng_next(struct city_rng *r);

/* A uniform integer in [0, bound); bound must be at least 1. Unbiased (Lemire's method). */
uint32_t rng_below(struct city_rng *r, uint32_t bound);

/* Shuffles n bytes in place (Fisher-Yates). */
void rng_shuffle(struct city_rng *r, uint8_t *a, int n);

#endif
