/* suite.h: what every file of the reliability suite shares: appending its counts to
 * $CITY_COUNTS (summed by scripts/reliability-summary.sh) and the last check of a test, that its
 * daemon stops with status 0 (under ASan a leak or a late memory error shows only there, and
 * Criterion does not fail a test for what its fini finds). */
#ifndef CITY_RELIABILITY_SUITE_H
#define CITY_RELIABILITY_SUITE_H

#include "../client.h"

/* Appends "key value" for each non-zero count to $CITY_COUNTS in one write (O_APPEND: tests
 * never interleave); nothing when the variable is unset or every count is 0. */
static inline void suite_counts_append(const char *const *keys, const long *counts, int n)
{
    const char *path = getenv("CITY_COUNTS");
    if (!path || !*path)
        return;
    char buf[2048];
    size_t len = 0;
    for (int k = 0; k < n; k++)
        if (counts[k] && len < sizeof buf)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s %ld\n", keys[k], counts[k]);
    if (len == 0)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, buf, len < sizeof buf ? len : sizeof buf);
        (void)w;
        close(fd);
    }
}

/* Stops d and expects status 0, showing the end of its log otherwise. */
static inline void suite_stops_cleanly(struct daemon *d)
{
    char tail[2000];
    int st = daemon_stop(d);
    cr_expect_eq(st, 0, "cityd did not stop cleanly (status %d); its log ends:\n%s", st,
                 daemon_log_tail(d, tail, sizeof tail));
}

#endif
