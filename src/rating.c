/* rating.c: OpenSkill's Plackett–Luce rating update for players ranked by place (see rating.h),
 * written after the npm package openskill 5.x's `rate()` with default options: every sigma
 * first grows by tau, the players are taken in order of rank (a stable order: equal ranks keep
 * their order), each one's place is the first position of its rank, and the update reads, for
 * each player i and each q not placed after i, q's share of the exp(mu / c) of the players not
 * placed before q, divided among the players who share q's place. */
#include "rating.h"

#include <math.h>
#include <string.h>

struct rating rating_new(void)
{
    return (struct rating){RATING_MU, RATING_SIGMA};
}

double rating_ordinal(struct rating r)
{
    return r.mu - RATING_Z * r.sigma;
}

int rating_rate(int n, const struct rating *in, const int *rank, struct rating *out)
{
    if (n < 2 || n > RATING_MAX_PLAYERS)
        return -1;
    for (int i = 0; i < n; i++)
        if (!isfinite(in[i].mu) || !isfinite(in[i].sigma) || !(in[i].sigma > 0))
            return -1;
    /* the order of rank, stable (an insertion sort: n is small) */
    int order[RATING_MAX_PLAYERS];
    for (int i = 0; i < n; i++) {
        int at = i;
        while (at > 0 && rank[order[at - 1]] > rank[i]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    double mu[RATING_MAX_PLAYERS], sd[RATING_MAX_PLAYERS], sig2[RATING_MAX_PLAYERS];
    double e[RATING_MAX_PLAYERS];
    int place[RATING_MAX_PLAYERS], share[RATING_MAX_PLAYERS];
    double c2 = 0;
    for (int j = 0; j < n; j++) {
        const struct rating *r = &in[order[j]];
        mu[j] = r->mu;
        sd[j] = sqrt(r->sigma * r->sigma + RATING_TAU * RATING_TAU);
        sig2[j] = sd[j] * sd[j];
        place[j] = j > 0 && rank[order[j - 1]] == rank[order[j]] ? place[j - 1] : j;
        c2 += sig2[j] + RATING_BETA * RATING_BETA;
    }
    double c = sqrt(c2);
    for (int j = 0; j < n; j++) {
        e[j] = exp(mu[j] / c);
        share[j] = 0;
        for (int k = 0; k < n; k++)
            share[j] += place[k] == place[j];
    }
    double sum_q[RATING_MAX_PLAYERS]; /* exp(mu / c) of the players not placed before q */
    for (int q = 0; q < n; q++) {
        sum_q[q] = 0;
        for (int k = 0; k < n; k++)
            if (place[k] >= place[q])
                sum_q[q] += e[k];
    }
    struct rating res[RATING_MAX_PLAYERS];
    for (int i = 0; i < n; i++) {
        double omega = 0, delta = 0;
        for (int q = 0; q < n; q++) {
            if (place[q] > place[i])
                continue;
            double quotient = e[i] / sum_q[q];
            omega += (i == q ? 1 - quotient : -quotient) / share[q];
            delta += quotient * (1 - quotient) / share[q];
        }
        double gamma = sqrt(sig2[i]) / c;
        double i_omega = omega * (sig2[i] / c);
        double i_delta = delta * (sig2[i] / (c * c)) * gamma;
        /* the player's part of its team's (a team of one: the whole) */
        double part = pow(sd[i], 2) / sig2[i], f = 1 - part * i_delta;
        res[order[i]] = (struct rating){mu[i] + part * i_omega,
                                        sd[i] * sqrt(f > RATING_KAPPA ? f : RATING_KAPPA)};
    }
    memcpy(out, res, (size_t)n * sizeof *out);
    return 0;
}
