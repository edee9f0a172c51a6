/* accesslog.c: the access log, escaped and written in blocks (see accesslog.h). */
#include "accesslog.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void access_log_init(struct access_log *l)
{
    pthread_mutex_init(&l->lock, NULL);
    pthread_mutex_init(&l->out, NULL);
    l->cur = l->blocks[0];
    l->len = 0;
}

/* Writes n bytes of block b to stdout. */
static void write_block(const char *b, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(STDOUT_FILENO, b + off, n - off);
        if (w <= 0)
            break; /* stdout is gone: the log is lost, the service goes on */
        off += (size_t)w;
    }
}

/* Called with l->lock held, which it releases: lines go on into the other block while this
 * one is written out (under l->out, which also waits for the other block's own write to end,
 * so blocks go out in order and a block is never reused while it is being written). */
static void switch_and_write(struct access_log *l)
{
    pthread_mutex_lock(&l->out);
    char *full = l->cur;
    size_t n = l->len;
    l->cur = full == l->blocks[0] ? l->blocks[1] : l->blocks[0];
    l->len = 0;
    pthread_mutex_unlock(&l->lock);
    write_block(full, n);
    pthread_mutex_unlock(&l->out);
}

void access_log_flush(struct access_log *l)
{
    pthread_mutex_lock(&l->lock);
    if (l->len == 0) {
        pthread_mutex_unlock(&l->lock);
        return;
    }
    switch_and_write(l);
}

void access_log_destroy(struct access_log *l)
{
    access_log_flush(l);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->out);
}

void access_log_append(struct access_log *l, const char *line, size_t n)
{
    if (n > ACCESS_LOG_BLOCK)
        return;
    pthread_mutex_lock(&l->lock);
    if (l->len + n > ACCESS_LOG_BLOCK) {
        switch_and_write(l); /* releases l->lock */
        pthread_mutex_lock(&l->lock);
        if (l->len + n > ACCESS_LOG_BLOCK) { /* filled again meanwhile (rare): out it goes */
            switch_and_write(l);
            pthread_mutex_lock(&l->lock);
        }
    }
    memcpy(l->cur + l->len, line, n);
    l->len += n;
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
