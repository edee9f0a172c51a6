/* rng.c: xoshiro256** with splitmix64 seeding (Blackman and Vigna, public domain
 * algorithms), the only source of randomness in the engine. */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(struct city_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

void rng_shuffle(struct city_rng *r, uint8_t *a, int n)
{
    /* The state in a local: a[] is bytes, which may alias anything, so with *r the compiler
     * would load and store the whole state around every swap. Same draws, same order. */
    struct city_rng local = *r;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(&local, (uint32_t)i + 1);
        uint8_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    *r = local;
}
