/* test_accesslog.c: the access log on its own (src/accesslog.c): lines from many threads go
 * out whole, each once, and in the order each thread appended them, across many switches of
 * its two blocks; a flush writes out what is buffered; escaping keeps a line one line. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accesslog.h"

enum { THREADS = 4, LINES = 6000 };

static struct access_log log_under_test;

static void *append_lines(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < LINES; i++) {
        char line[128];
        int n = snprintf(line, sizeof line, "thread %d line %05d %s\n", t, i,
                         "padding-padding-padding-padding-padding-padding");
        access_log_append(&log_under_test, line, (size_t)n);
    }
    return NULL;
}

Test(accesslog, lines_from_many_threads_go_out_whole_once_and_in_order)
{
    char path[] = "/tmp/city-accesslog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    cr_assert(dup2(fd, STDOUT_FILENO) >= 0);
    access_log_init(&log_under_test);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, append_lines, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    access_log_destroy(&log_under_test); /* writes out the rest */
    dup2(saved, STDOUT_FILENO);
    close(saved);

    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int next[THREADS] = {0};
    char line[256];
    long total = 0;
    while (fgets(line, sizeof line, f)) {
        int t, i;
        cr_assert_eq(sscanf(line, "thread %d line %d ", &t, &i), 2, "a whole line: %s", line);
        cr_assert(t >= 0 && t < THREADS);
        cr_assert_eq(i, next[t], "thread %d: line %d after %d", t, i, next[t] - 1);
        next[t]++;
        total++;
    }
    fclose(f);
    unlink(path);
    cr_assert_eq(total, (long)THREADS * LINES, "every line once (%ld)", total);
}

Test(accesslog, escaping_keeps_a_line_one_line)
{
    char out[32];
    access_log_escape(out, sizeof out, "GET\n\"x\\");
    cr_assert_str_eq(out, "GET\\x0a\\x22x\\x5c");
    access_log_escape(out, 12, "abcdefghijklmnop");
    cr_assert_str_eq(out, "abcdefgh...", "cut to fit its 12 bytes: %s", out);
}
