/* city_cards_file.c: loads the card catalog from a file on disk; the only card code that does I/O
 * (the parsing and validation are city_catalog_from_json() in city_cards.c). */
#include "city_cards.h"

#include <stdlib.h>

#include "textfile.h"

/* The card file is small; anything larger than this is not a card file. */
enum { CARDS_FILE_MAX = 1 << 20 };

bool city_catalog_load_file(struct city_catalog *cat, const char *path, char *err, int errlen)
{
    char *text = text_file_read(path, CARDS_FILE_MAX, err, errlen);
    if (!text)
        return false;
    bool ok = city_catalog_from_json(cat, text, path, err, errlen);
    free(text);
    return ok;
}
