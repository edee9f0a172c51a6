/* accesslog.h: the daemon's access log: one line per request, its fields escaped so that a
 * client's bytes cannot forge lines, written to stdout in blocks (a write() per request cost a
 * fifth of the public reads' throughput). Two blocks: a full one is written out while lines go
 * on into the other, so that no request waits for a write() unless both are full. Thread-safe. */
#ifndef CITY_ACCESSLOG_H
#define CITY_ACCESSLOG_H

#include <pthread.h>
#include <stddef.h>

enum { ACCESS_LOG_BLOCK = 64 * 1024 };

struct access_log {
    pthread_mutex_t lock; /* guards cur and len */
    pthread_mutex_t out;  /* held while a block is written out; guards the other block */
    char *cur;            /* the block lines go into: one of blocks */
    size_t len;
    char blocks[2][ACCESS_LOG_BLOCK];
};

void access_log_init(struct access_log *l);

/* Writes out what is buffered, then releases the log. */
void access_log_destroy(struct access_log *l);

/* Appends one line of n bytes, writing the buffer out first when the line does not fit. */
void access_log_append(struct access_log *l, const char *line, size_t n);

/* Writes out what is buffered (the daemon calls it every quarter second and at stop). */
void access_log_flush(struct access_log *l);

/* Copies s into out (n bytes), every byte outside printable ASCII, and '"' and '\', written as
 * \xHH; cut with "..." when it does not fit. */
void access_log_escape(char *out, size_t n, const char *s);

#endif
