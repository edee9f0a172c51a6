/* rating.h: players' skill ratings by OpenSkill's Weng–Lin Plackett–Luce model (Weng and Lin,
 * "A Bayesian Approximation Method for Online Ranking", 2011), with the default options of the
 * npm package `openskill` 5.x, whose `rate()` it matches to 1e-6 (tests/js/rating.test.mjs):
 * each player a team of one, ranked by their final place, equal places a shared rank. Pure
 * arithmetic, no I/O. */
#ifndef RATING_H
#define RATING_H

/* The model's defaults (openskill's): a new player's mean and deviation, the performance
 * spread beta, the dynamics tau added to every deviation before a match, the deviation's
 * floor factor kappa, and z for the conservative ordinal mu - z sigma. */
#define RATING_MU    25.0
#define RATING_SIGMA (25.0 / 3.0)
#define RATING_BETA  (25.0 / 6.0)
#define RATING_TAU   (25.0 / 300.0)
#define RATING_KAPPA 1e-4
#define RATING_Z     3.0

enum { RATING_MAX_PLAYERS = 64 };

struct rating {
    double mu, sigma;
};

/* A new player's rating: {RATING_MU, RATING_SIGMA}. */
struct rating rating_new(void);

/* Rates one finished match of n players (2..RATING_MAX_PLAYERS), each a team of one: in[i] is
 * player i's rating before it, rank[i] their place (lower is better; equal values share a
 * place), and out[i] receives the rating after it (out may be in). Returns 0, or -1 when n is
 * out of range or a rating is not finite with sigma > 0 (out untouched). */
int rating_rate(int n, const struct rating *in, const int *rank, struct rating *out);

/* The conservative estimate shown to players: mu - RATING_Z * sigma. */
double rating_ordinal(struct rating r);

#endif
