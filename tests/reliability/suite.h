/* suite.h: what every file of the reliability suite shares: appending its counts to
 * $CITY_COUNTS (summed by scripts/reliability-summary.sh), a request from a chosen loopback
 * source address, and the last check of a test, that its daemon stops with status 0 (under ASan
 * a leak or a late memory error shows only there, and Criterion does not fail a test for what
 * its fini finds). */
#ifndef CITY_RELIABILITY_SUITE_H
#define CITY_RELIABILITY_SUITE_H

#include <strings.h>

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

/* What a request from a chosen source address got. */
struct suite_answer {
    long status;
    char content_type[128];
    int retry_after; /* -1 when absent */
    json_t *json;    /* the body as JSON (to be freed), or NULL */
};

/* Sends `method base+path` with an optional JSON body and bearer token from loopback source
 * address `from` ("127.0.0.2") and fills *a. */
static inline void suite_send_from(const char *base, const char *from, const char *method,
                                   const char *path, const char *token, const char *body,
                                   struct suite_answer *a)
{
    memset(a, 0, sizeof *a);
    a->retry_after = -1;
    char url[512], auth[160];
    snprintf(url, sizeof url, "%s%s", base, path);
    CURL *c = curl_easy_init();
    cr_assert_not_null(c);
    struct harness_buf got = {0}, head = {0};
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    h = curl_slist_append(h, "Expect:");
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_INTERFACE, from);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, harness_collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &got);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, harness_collect);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &head);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    CURLcode rc = curl_easy_perform(c);
    cr_assert_eq(rc, CURLE_OK, "%s %s from %s: %s", method, path, from, curl_easy_strerror(rc));
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
    char *ct = NULL;
    if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
        snprintf(a->content_type, sizeof a->content_type, "%s", ct);
    for (char *line = head.p; line && *line;) {
        if (strncasecmp(line, "Retry-After:", 12) == 0)
            a->retry_after = atoi(line + 12);
        char *next = strchr(line, '\n');
        line = next ? next + 1 : NULL;
    }
    if (got.p)
        a->json = json_loads(got.p, 0, NULL);
    free(got.p);
    free(head.p);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
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
