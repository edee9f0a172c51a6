/* city_cards_file.c: loads the card catalog from a file on disk; the only card code that does I/O
 * (the parsing and validation are city_catalog_from_json() in engine/cards.c). */
#include "city_cards.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The card file is small; anything larger than this is not a card file. */
enum { CARDS_FILE_MAX = 1 << 20 };

/* Reads the whole file at `path` into a new NUL-terminated buffer the caller frees; on
 * failure returns NULL with errno set (EFBIG for a file over CARDS_FILE_MAX bytes). */
static char *read_whole_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 == cap) {
            if (cap > CARDS_FILE_MAX) {
                free(buf);
                buf = NULL;
                errno = EFBIG;
                break;
            }
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - 1 - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) {
                int e = errno ? errno : EIO;
                free(buf);
                buf = NULL;
                errno = e;
            }
            break;
        }
    }
    int e = errno;
    fclose(f);
    errno = e;
    if (buf)
        buf[len] = '\0';
    return buf;
}

bool city_catalog_load_file(struct city_catalog *cat, const char *path, char *err, int errlen)
{
    errno = 0;
    char *text = read_whole_file(path);
    if (!text) {
        if (err && errlen > 0)
            snprintf(err, (size_t)errlen, "%s: cannot read: %s.", path,
                     strerror(errno ? errno : EIO));
        return false;
    }
    bool ok = city_catalog_from_json(cat, text, path, err, errlen);
    free(text);
    return ok;
}
