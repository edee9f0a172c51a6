/* textfile.c: a whole text file into memory (see textfile.h). */
#include "textfile.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NULL, with "PATH: cannot read: WHY." in err. */
static char *refuse(const char *path, const char *why, char *err, int errlen)
{
    if (err && errlen > 0)
        snprintf(err, (size_t)errlen, "%s: cannot read: %s.", path, why);
    return NULL;
}

char *text_file_read(const char *path, size_t max, char *err, int errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return refuse(path, strerror(errno), err, errlen);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    const char *why = NULL;
    while (buf && !why) {
        if (len + 1 == cap) {
            char *grown = cap > max ? NULL : realloc(buf, cap * 2);
            if (!grown) {
                why = cap > max ? "it is larger than the largest file taken" : "out of memory";
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - 1 - len, f);
        len += n;
        if (n == 0)
            why = ferror(f) ? strerror(errno ? errno : EIO) : "";
    }
    fclose(f);
    if (!buf)
        why = "out of memory";
    else if (why && !*why && len > max)
        why = "it is larger than the largest file taken";
    else if (why && !*why && memchr(buf, 0, len))
        why = "it holds a NUL byte, so it is no text file";
    if (why && *why) {
        free(buf);
        return refuse(path, why, err, errlen);
    }
    buf[len] = '\0';
    return buf;
}

void text_file_refuse(char *err, int errlen, const char *source, const char *card, const char *fmt,
                      va_list ap)
{
    if (!err || errlen <= 0)
        return;
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (card)
        snprintf(err, (size_t)errlen, "%s: card \"%s\": %s.", source, card, msg);
    else
        snprintf(err, (size_t)errlen, "%s: %s.", source, msg);
}

bool card_refuse(const struct card_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_file_refuse(r->err, r->errlen, r->source, r->card, fmt, ap);
    va_end(ap);
    return false;
}

bool card_get_int(const struct card_reader *r, const json_t *obj, const char *key, bool required,
                  int lo, int hi, int *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return required ? card_refuse(r, "\"%s\" is missing", key) : true;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return card_refuse(r, "\"%s\" must be an integer from %d to %d", key, lo, hi);
    *out = (int)json_integer_value(v);
    return true;
}
