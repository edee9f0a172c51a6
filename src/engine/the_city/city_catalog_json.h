/* city_catalog_json.h: the card catalog as the JSON that `cityd cards` prints and GET
 * /api/v1/cards serves. */
#ifndef CITY_CATALOG_JSON_H
#define CITY_CATALOG_JSON_H

#include <jansson.h>

#include "city_cards.h"

/* Returns a new reference to {"cards":[{id, name, cost, vp, income, icons, text, count, ...}]}
 * listing every design in file order, with its special rules as structured fields. */
json_t *city_catalog_to_json(const struct city_catalog *cat);

#endif
