/* city_cards.h: the card catalog of The City — what each card design is (cost, points, income,
 * icons, discounts, prerequisites, variable points) and how the 110 card instances of a game
 * map onto those designs. The catalog is plain data: it is parsed from JSON text by
 * city_catalog_from_json() and then shared read-only by every game. */
#ifndef CITY_CARDS_H
#define CITY_CARDS_H

#include <stdbool.h>
#include <stdint.h>

/* The rules' fixed numbers (rules.md, Components). */
enum {
    CITY_DECK_SIZE = 110,     /* card instances in a game, General Contractors included */
    CITY_CONTRACTORS = 5,     /* General Contractors among them */
    CITY_MAX_DESIGNS = 64,    /* distinct designs a catalog may hold (bitsets are 64 bits) */
    CITY_MAX_COST = 11,       /* printed costs run 0..CITY_MAX_COST */
    CITY_DOUBLE_MAX_COST = 4, /* a Construction Gang's builds cost at most this (printed) */
    CITY_MAX_REQUIRES = 4,    /* prerequisites one design may name */
    CITY_ID_LEN = 32,
    CITY_NAME_LEN = 48,
    CITY_TEXT_LEN = 240,
};

/* The three attribute icons. */
enum city_icon { CITY_ICON_CAR, CITY_ICON_SHOPPING, CITY_ICON_ENTERTAINMENT, CITY_ICON_COUNT };

/* How a design's points (or income) vary with the table, on top of its fixed value. */
enum city_var_kind {
    CITY_VAR_NONE = 0,
    CITY_VAR_ICON, /* amount per `icon` printed in the owner's tableau (this card included) */
    CITY_VAR_ICON_WITH_OTHER, /* amount per `icon` in the owner's tableau plus the best other
                                 tableau */
    CITY_VAR_OTHER_COPY,      /* amount per other copy of this design in the owner's tableau */
    CITY_VAR_CARD_OWN,        /* amount per copy of design `card` in the owner's tableau */
    CITY_VAR_CARD_ALL,        /* amount per copy of design `card` in every tableau */
};

struct city_variable {
    uint8_t kind;  /* enum city_var_kind */
    uint8_t icon;  /* enum city_icon, for CITY_VAR_ICON and CITY_VAR_ICON_WITH_OTHER */
    uint8_t card;  /* design index, for CITY_VAR_CARD_OWN and CITY_VAR_CARD_ALL */
    int8_t amount; /* points (or cards of income) per unit counted */
};

/* One card design: what is printed on a card. */
struct city_design {
    char id[CITY_ID_LEN];           /* stable slug, e.g. "housing_tract" */
    char name[CITY_NAME_LEN];       /* printed name */
    char text[CITY_TEXT_LEN];       /* rule text for people; may be empty */
    uint8_t count;                  /* copies in the deck */
    int8_t cost;                    /* printed cost, 0..CITY_MAX_COST */
    int8_t vp;                      /* fixed victory points per round */
    int8_t income;                  /* fixed income (cards drawn per round) */
    uint8_t icons[CITY_ICON_COUNT]; /* how many times each icon is printed */
    uint8_t limit;                  /* most copies one player may own; 0 = no limit */
    uint8_t nrequires;              /* all of requires[] must be in the builder's tableau */
    uint8_t requires[CITY_MAX_REQUIRES];
    int8_t discount;                 /* cards off the cost of designs in discount_to (0 = none) */
    uint64_t discount_to;            /* bitset of design indices the discount applies to */
    struct city_variable vp_var;     /* variable victory points */
    struct city_variable income_var; /* variable income */
    bool contractor;                 /* a General Contractor: taken from the pool, never built */
    bool construction_gang;          /* owner may build two cards of printed cost <= 4 a round */
};

/* What the rules read of a design on every check, packed together (derived from designs[]
 * by city_catalog_from_json, so that checking a hand touches a few cache lines, not whole
 * designs with their names and texts). */
struct city_hot {
    uint64_t requires;      /* bitset of designs required in the tableau */
    uint64_t discounted_by; /* bitset of designs whose discount applies to this one */
    int8_t cost;            /* printed cost */
    int8_t vp, income;      /* fixed victory points and income */
    uint8_t icons[CITY_ICON_COUNT];
    int8_t discount;        /* the discount this design gives (0 = none) */
    uint8_t limit;          /* most copies one player may own; 0 = no limit */
    bool contractor;        /* a General Contractor */
    bool construction_gang; /* a Construction Gang */
};

/* The whole catalog: designs in file order and the instance -> design map. */
struct city_catalog {
    int ndesigns;
    struct city_design designs[CITY_MAX_DESIGNS];
    uint8_t card_design[CITY_DECK_SIZE];   /* instance id -> design index */
    int contractor_design;                 /* index of the General Contractor design */
    uint64_t discount_designs;             /* bitset of designs that give a discount */
    uint64_t vp_var_designs;               /* bitset of designs with variable victory points */
    uint64_t income_var_designs;           /* bitset of designs with variable income */
    struct city_hot hot[CITY_MAX_DESIGNS]; /* the rules' view of designs[] */
    uint64_t gang_designs;                 /* bitset of Construction Gang designs */
    uint64_t gang_cards[2];                /* bitset of their card instances (0..109) */
};

/* Recomputes what the catalog derives from designs[] and card_design[] (hot[],
 * vp_var_designs, income_var_designs, gang_designs, gang_cards). city_catalog_from_json() calls it;
 * call it again after changing designs[] by hand (tests do). */
void city_catalog_derive(struct city_catalog *cat);

/* Names of the icons as they appear in the card file and in JSON ("car", "shopping",
 * "entertainment"); returns NULL for an out-of-range icon. */
const char *city_icon_name(int icon);

/* Parses a catalog from JSON text `text` (the format of cards/README.md) into `*cat`.
 * `source` names the text in error messages (usually the file path). Returns true on
 * success. On failure returns false and writes one sentence naming the source, the card
 * and the reason into err (size errlen); `*cat` is then unspecified. Never allocates
 * anything the caller must free. */
bool city_catalog_from_json(struct city_catalog *cat, const char *text, const char *source,
                            char *err, int errlen);

/* Reads the file at `path` and parses it with city_catalog_from_json(). Same contract; an
 * unreadable file is reported as such. This is the only function here that does I/O. */
bool city_catalog_load_file(struct city_catalog *cat, const char *path, char *err, int errlen);

/* Returns the index of the design with slug `id`, or -1. */
int city_catalog_find(const struct city_catalog *cat, const char *id);

#endif
