/* textfile.h: reads a whole text file into memory, the one file reader the card loaders of
 * every game and the migration runner share. The only I/O of the engine's folders besides
 * them. */
#ifndef CITY_TEXTFILE_H
#define CITY_TEXTFILE_H

#include <stddef.h>

/* Reads the file at `path` into a new NUL-terminated buffer the caller frees. NULL with a
 * sentence in err ("PATH: cannot read: REASON.") when it cannot be opened or read, holds more
 * than `max` bytes, or holds a NUL byte (it is not text). */
char *text_file_read(const char *path, size_t max, char *err, int errlen);

#endif
