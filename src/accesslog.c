/* accesslog.c: the access log, escaped and written in blocks (see accesslog.h). */
#include "accesslog.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void access_log_init(struct access_log *l)
{
    pthread_mutex_init(&l->lock, NULL);
    l->len = 0;
}

/* Writes the buffer out; lock held. */
static void flush_locked(struct access_log *l)
{
    size_t off = 0;
    while (off < l->len) {
        ssize_t w = write(STDOUT_FILENO, l->buf + off, l->len - off);
        if (w <= 0)
            break; /* stdout is gone: the log is lost, the service goes on */
        off += (size_t)w;
    }
    l->len = 0;
}

void access_log_flush(struct access_log *l)
{
    pthread_mutex_lock(&l->lock);
    flush_locked(l);
    pthread_mutex_unlock(&l->lock);
}

void access_log_destroy(struct access_log *l)
{
    access_log_flush(l);
    pthread_mutex_destroy(&l->lock);
}

void access_log_append(struct access_log *l, const char *line, size_t n)
{
    pthread_mutex_lock(&l->lock);
    if (l->len + n > sizeof l->buf)
        flush_locked(l);
    if (n <= sizeof l->buf) {
        memcpy(l->buf + l->len, line, n);
        l->len += n;
    }
    pthread_mutex_unlock(&l->lock);
}

void access_log_escape(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        bool plain = *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\';
        if (k + (plain ? 1 : 4) + 4 > n) {
            memcpy(out + k, "...", 3);
            k += 3;
            break;
        }
        if (plain)
            out[k++] = (char)*p;
        else
            k += (size_t)snprintf(out + k, n - k, "\\x%02x", *p);
    }
    out[k] = 0;
}
