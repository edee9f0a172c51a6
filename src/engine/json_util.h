/* json_util.h: the two helpers every JSON reader of the engines shares: a sentence into an
 * error buffer, and jansson's iterators on a const object. Header-only. */
#ifndef CITY_JSON_UTIL_H_SHARED
#define CITY_JSON_UTIL_H_SHARED

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* Writes a sentence into err (when there is room for one). */
__attribute__((format(printf, 3, 4))) static inline void say(char *err, int errlen, const char *fmt,
                                                             ...)
{
    if (!err || errlen <= 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
}

/* jansson's object iterator takes a non-const pointer although iterating changes nothing. */
static inline json_t *unconst(const json_t *j)
{
    return (json_t *)(uintptr_t)j;
}

#endif
