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

/* Where a card file's reader is, for its refusals: the file's name, the caller's error buffer,
 * and the id of the card being read (NULL between cards). */
struct card_reader {
    const char *source;
    char *err;
    int errlen;
    const char *card;
};

/* Writes text_file_refuse()'s sentence for reader r from fmt and its arguments; returns false,
 * so that a reader can `return card_refuse(...)`. */
bool card_refuse(const struct card_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct json_t;
/* Reads integer `key` of JSON object obj into *out, which is left alone when the key is absent
 * and not required. False, with a refusal naming the key and the range lo..hi, when it is
 * missing but required or not an integer in lo..hi. */
bool card_get_int(const struct card_reader *r, const struct json_t *obj, const char *key,
                  bool required, int lo, int hi, int *out);

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
