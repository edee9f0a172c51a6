/* textfile.h: reads a whole text file into memory, the one file reader the card loaders of
 * every game and the migration runner share. The only I/O of the engine's folders besides
 * them. */
#ifndef CITY_TEXTFILE_H
#define CITY_TEXTFILE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* Reads the file at `path` into a new NUL-terminated buffer the caller frees. NULL with a
 * sentence in err ("PATH: cannot read: REASON.") when it cannot be opened or read, holds more
 * than `max` bytes, or holds a NUL byte (it is not text). */
char *text_file_read(const char *path, size_t max, char *err, int errlen);

/* A card parser's refusal: "SOURCE: card \"CARD\": MESSAGE." (or "SOURCE: MESSAGE." when `card`
 * is NULL), MESSAGE formatted from fmt and ap, into err when err is non-NULL and errlen > 0. */
void text_file_refuse(char *err, int errlen, const char *source, const char *card, const char *fmt,
                      va_list ap) __attribute__((format(printf, 5, 0)));

/* A card file is small; anything larger is not a card file. */
enum { TEXT_CARDS_MAX = 1 << 20 };

/* Defines `bool name(TYPE *into, const char *path, char *err, int errlen)`, a game's loader of
 * its card file: reads the file at `path` (text_file_read(), at most TEXT_CARDS_MAX bytes) and
 * returns parse(into, text, path, err, errlen), the game's parser and validator of the text
 * (which names `path` in its sentences). False with the reader's sentence when the file cannot
 * be read. The use ends with a semicolon. */
#define TEXT_FILE_LOADER(name, type, parse)                                                        \
    bool name(type *into, const char *path, char *err, int errlen)                                 \
    {                                                                                              \
        char *text = text_file_read(path, TEXT_CARDS_MAX, err, errlen);                            \
        if (!text)                                                                                 \
            return false;                                                                          \
        bool ok = parse(into, text, path, err, errlen);                                            \
        free(text);                                                                                \
        return ok;                                                                                 \
    }                                                                                              \
    _Static_assert(1, #name)

#endif
