/* sc_cards_parse.h: what SimCity's card file readers share (sc_cards.c reads a card and the
 * file, sc_cards_prims.c its primitives) and nothing else should call: the parser's state, one
 * refusal sentence, typed field readers, and the names the file spells. */
#ifndef SC_CARDS_PARSE_H
#define SC_CARDS_PARSE_H

#include <jansson.h>
#include <stdbool.h>

#include "sc_cards.h"

/* A parse in progress. */
struct sc_parser {
    const char *source;
    char *err;
    int errlen;
    const char *card; /* the card's id while parsing it */
    struct sc_catalog *cat;
    int nids; /* designs whose ids are known (the first pass) */
};

/* The names of zones, land types, services, coverages and hazards, in enum order. */
extern const char *const sc_zone_names[SC_ZONE_COUNT];
extern const char *const sc_land_names[SC_LAND_COUNT];
extern const char *const sc_service_names[SC_SVC_COUNT];
extern const char *const sc_cover_names[SC_COVER_COUNT];
extern const char *const sc_hazard_names[SC_HAZ_COUNT];

/* Writes "SOURCE: card "ID": MESSAGE." (or without the card) into the parser's buffer; always
 * returns false, for `return sc_fail(...)`. */
__attribute__((format(printf, 2, 3))) bool sc_fail(struct sc_parser *p, const char *fmt, ...);

/* Readers of one field of obj: absent is fine unless `required` (out left alone); a value of
 * the wrong type or out of range fails naming the key. */
bool sc_get_int(struct sc_parser *p, const json_t *obj, const char *key, bool required, int lo,
                int hi, int *out);
bool sc_get_bool(struct sc_parser *p, const json_t *obj, const char *key, bool *out);
bool sc_get_str(struct sc_parser *p, const json_t *obj, const char *key, bool required, char *out,
                size_t n);
/* A string that must be one of names[0..n-1]; *out its index. */
bool sc_get_name(struct sc_parser *p, const json_t *obj, const char *key, bool required,
                 const char *const *names, int n, int *out);

/* Refuses any key of obj not in the NULL-terminated list. */
bool sc_only_keys(struct sc_parser *p, const json_t *obj, const char *what,
                  const char *const *keys);

/* The one key of obj in the NULL-terminated list, or NULL (after failing) when not exactly one. */
const char *sc_one_of(struct sc_parser *p, const json_t *obj, const char *what,
                      const char *const *prims);

/* True when `word` is one of the space-separated words of `list`. */
bool sc_word_in(const char *list, const char *word);

/* The number of the complex named `name`, or -1. */
int sc_find_complex(const struct sc_catalog *cat, const char *name);

/* The primitives (sc_cards_prims.c): each reads one JSON value into its struct. */
bool sc_parse_sel(struct sc_parser *p, const json_t *v, const char *what, struct sc_sel *out);
bool sc_parse_cond(struct sc_parser *p, const json_t *v, struct sc_cond *out);
bool sc_parse_special(struct sc_parser *p, const json_t *v, struct sc_special *out);
bool sc_parse_effect(struct sc_parser *p, const json_t *v, struct sc_effect *out);
bool sc_parse_complex(struct sc_parser *p, const json_t *v, struct sc_design *d);

#endif
