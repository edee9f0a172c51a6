/* city_cards_file.c: loads the card catalog from a file on disk; the only card code that does I/O
 * (the parsing and validation are city_catalog_from_json() in city_cards.c). */
#include "city_cards.h"

#include "textfile.h"

TEXT_FILE_LOADER(city_catalog_load_file, struct city_catalog, city_catalog_from_json);
