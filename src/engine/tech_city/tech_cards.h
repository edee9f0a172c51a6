/* tech_cards.h: the card catalog of Tech City — each design's domain, value, name, rule text
 * and effect (one primitive of a small vocabulary with its parameters), and how the 54 card
 * instances of one deck map onto the designs. Parsed and validated from the card file
 * (cards/tech_city.json, format in cards/README.md), then shared read-only by every game. */
#ifndef TECH_CARDS_H
#define TECH_CARDS_H

#include <stdbool.h>
#include <stdint.h>

enum {
    TECH_DECK_SIZE = 54,  /* instances in one deck: 52 companies and 2 wild cards */
    TECH_MAX_CARDS = 108, /* two decks (5-6 players) */
    TECH_MAX_DESIGNS = 64,
    TECH_VALUES = 13,
    TECH_MAX_REVEAL = 4,
    TECH_MAX_DRAW = 4,
    TECH_ID_LEN = 32,
    TECH_NAME_LEN = 48,
    TECH_TEXT_LEN = 200,
};

/* The four domains; DOMAIN_WILD marks the wild cards. */
enum tech_domain {
    DOMAIN_SERVICE,
    DOMAIN_TECHNOLOGY,
    DOMAIN_SCIENCE,
    DOMAIN_KNOWLEDGE,
    DOMAIN_WILD
};

/* The effect primitives (techcity.md, "Effects"). */
enum tech_prim {
    PRIM_NONE = 0,
    PRIM_DRAW,          /* draw n, then discard m (a choice) */
    PRIM_DISCARD,       /* every other player discards n (their choice, in seat order) */
    PRIM_REVEAL,        /* reveal the top n, take one (a choice); the rest go back in order */
    PRIM_SEARCH,        /* take the first card of value `value` or domain `domain`; shuffle */
    PRIM_EXCHANGE_TOP,  /* swap a hand card with the top of the deck */
    PRIM_EXCHANGE_PILE, /* swap a hand card with a card of the discard pile */
    PRIM_REPLACE,       /* replace a city card (of `filter`) with a hand card */
    PRIM_SWAP,          /* exchange two city cards' places */
    PRIM_EXPEL,         /* expel a city card (of `filter`; never the seed card) */
    PRIM_MOVE_MARKER,   /* move your marker from your company to one you do not control */
    PRIM_STEAL,         /* take a random card from another player's hand */
    PRIM_SCORE,         /* score `points` when condition `cond` holds */
    PRIM_COUNT
};

/* Which city cards a replace or expel may name. */
enum tech_filter { FILTER_ANY, FILTER_OWN, FILTER_NEUTRAL, FILTER_OTHER, FILTER_COUNT };

/* Conditions of PRIM_SCORE. */
enum tech_cond {
    COND_CONTROLS, /* you control >= n companies of `domain` (-1: of any domain) */
    COND_MOST,     /* you control at least as many companies as every other player */
    COND_HAND,     /* you hold >= n cards */
    COND_NEUTRAL,  /* the city holds >= n neutral cards */
    COND_COUNT
};

struct tech_effect {
    uint8_t prim;   /* enum tech_prim */
    int8_t n;       /* draw/discard/reveal count, condition threshold */
    int8_t m;       /* draw: cards discarded after */
    int8_t value;   /* search: value 1..13, or 0 */
    int8_t domain;  /* search or condition: enum tech_domain, or -1 */
    uint8_t filter; /* replace, expel: enum tech_filter */
    uint8_t cond;   /* score: enum tech_cond */
    int8_t points;  /* score */
};

struct tech_design {
    char id[TECH_ID_LEN];     /* slug, e.g. "delivery_services" */
    char name[TECH_NAME_LEN]; /* printed name */
    char text[TECH_TEXT_LEN]; /* the effect for people */
    int8_t domain;            /* enum tech_domain */
    int8_t value;             /* 1..13; 0 for a wild card */
    uint8_t count;            /* copies in one deck */
    struct tech_effect effect;
};

struct tech_catalog {
    int ndesigns;
    struct tech_design designs[TECH_MAX_DESIGNS];
    int deck_size;                       /* TECH_DECK_SIZE */
    uint8_t card_design[TECH_DECK_SIZE]; /* instance (mod deck size) -> design */
    int seed_design;                     /* the seed card's design ("seed" in the file) */
};

/* Names in the card file and JSON: "service", "technology", "science", "knowledge" ("wild");
 * primitives ("draw", ...), filters ("any", "own", "neutral", "other"), conditions
 * ("controls", "most_companies", "hand", "neutral_cards"). NULL out of range; -1 unknown. */
const char *tech_domain_name(int domain);
int tech_domain_from_name(const char *name);
const char *tech_prim_name(int prim);
const char *tech_filter_name(int filter);
const char *tech_cond_name(int cond);

/* Parses a catalog from JSON text (format in cards/README.md) into *cat. `source` names the
 * text in messages. False with one sentence naming the source, the card and the reason; *cat is
 * then unspecified. Checks: 4 domains x values 1..13, each once, 2 wild cards, 54 cards, every
 * primitive used, the seed card present, every parameter in range, unknown keys refused. */
bool tech_catalog_from_json(struct tech_catalog *cat, const char *text, const char *source,
                            char *err, int errlen);

/* Reads the file at `path` and parses it; same contract. The only function here doing I/O. */
bool tech_catalog_load_file(struct tech_catalog *cat, const char *path, char *err, int errlen);

/* Index of the design with slug `id`, or -1. */
int tech_catalog_find(const struct tech_catalog *cat, const char *id);

#endif
