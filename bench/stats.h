/* stats.h: the order statistics the benchmark programs report (bench/load.c, bench/streams.c):
 * a qsort comparison of doubles and the nearest-rank percentile of a sorted array. */
#ifndef CITY_BENCH_STATS_H
#define CITY_BENCH_STATS_H

#include <stddef.h>

/* For qsort: ascending doubles. */
static inline int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of sorted[0..n), nearest rank; 0 for an empty array. */
static inline double percentile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

#endif
