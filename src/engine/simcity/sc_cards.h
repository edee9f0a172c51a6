/* sc_cards.h: the card catalog of SimCity: The Card Game — each design's kind (block, event,
 * council member), phase, zone, land type, stat box (value, sims, crime, pollution), services
 * (road and rail edges, power line), complex membership, and its specials or event effects as
 * primitives over selectors and conditions; and which designs make the base deck (two players)
 * and the pack added per further player. Parsed and validated from the card file
 * (cards/simcity.json, format in cards/README.md), then shared read-only by every game. */
#ifndef SC_CARDS_H
#define SC_CARDS_H

#include <stdbool.h>
#include <stdint.h>

enum {
    SC_MAX_CARDS = 240, /* instances of the largest deck (base + 4 packs); ids fit a byte */
    SC_MAX_DESIGNS = 128,
    SC_MAX_COMPLEXES = 8,
    SC_MAX_SPECIALS = 4, /* primitives in one block's specials box */
    SC_MAX_EFFECTS = 3,  /* primitives of one event */
    SC_ID_LEN = 32,
    SC_NAME_LEN = 48,
    SC_TEXT_LEN = 240,
    SC_PHASES = 4,       /* I Settlement .. IV Metropolis */
    SC_MIN_DECK = 50,    /* the seed: "at least 50 standard cards" */
    SC_MAX_RANGE = 12,   /* the longest "within N" a card may say */
    SC_MAX_AMOUNT = 60,  /* the largest $ a primitive may move */
    SC_BASE_PLAYERS = 2, /* the base deck serves this many; one pack per further player */
};

/* What a card is. */
enum sc_kind { SC_KIND_BLOCK, SC_KIND_EVENT, SC_KIND_COUNCIL, SC_KIND_COUNT };

/* The zones (the card's colour). Gray city services are the wild cards of zone bonuses; green
 * undeveloped land has a land type. */
enum sc_zone {
    SC_ZONE_RESIDENTIAL,
    SC_ZONE_COMMERCIAL,
    SC_ZONE_INDUSTRIAL,
    SC_ZONE_GOVERNMENTAL,
    SC_ZONE_AGRICULTURAL,
    SC_ZONE_SPECIAL,  /* gold: never upgraded */
    SC_ZONE_SERVICES, /* gray */
    SC_ZONE_LAND,     /* green */
    SC_ZONE_COUNT
};

/* Land types of undeveloped land (River, Lake, Coastline, Swamp, Pond, Marsh, Bridge and Island
 * are all water). Plains never form a zone. */
enum sc_land {
    SC_LAND_NONE,
    SC_LAND_FOREST,
    SC_LAND_MOUNTAIN,
    SC_LAND_BARREN,
    SC_LAND_PLAINS,
    SC_LAND_WATER,
    SC_LAND_COUNT
};

/* Edges of a road or rail, as a bitmask. The seed's cards run vertically, horizontally, both
 * ways or not at all. */
enum { SC_EDGE_N = 1, SC_EDGE_E = 2, SC_EDGE_S = 4, SC_EDGE_W = 8 };

/* The three services; a selector or condition names one. */
enum sc_service { SC_SVC_ROAD, SC_SVC_RAIL, SC_SVC_POWER, SC_SVC_COUNT };

/* What a provider's coverage is of (New Coverage Only cards). */
enum sc_cover { SC_COVER_POWER, SC_COVER_POLICE, SC_COVER_FIRE, SC_COVER_PHONE, SC_COVER_COUNT };

/* What an event is (a protection names one). */
enum sc_hazard {
    SC_HAZ_NONE,
    SC_HAZ_FIRE,
    SC_HAZ_STORM,
    SC_HAZ_FLOOD,
    SC_HAZ_RIOT,
    SC_HAZ_TOXIC,
    SC_HAZ_BLIGHT,
    SC_HAZ_FISCAL,
    SC_HAZ_COUNT
};

/* A selector: which blocks it names. Every field present in `has` must match (an empty
 * selector names every block). */
enum {
    SC_SEL_NAME = 1,
    SC_SEL_ZONE = 2,
    SC_SEL_LAND = 4,
    SC_SEL_COMPLEX = 8,
    SC_SEL_SERVICE = 16,
    SC_SEL_PROVIDER = 32, /* provides sims */
    SC_SEL_REQUIRER = 64, /* requires sims */
};
struct sc_sel {
    uint8_t has;
    uint8_t design; /* SC_SEL_NAME */
    uint8_t zone, land, complex, service;
};

/* A condition, judged at the cell of the card it belongs to. */
enum sc_cond_kind {
    SC_COND_ALWAYS,
    SC_COND_ADJACENT,   /* a block of `sel` shares an edge */
    SC_COND_WITHIN,     /* a block of `sel` within n blocks */
    SC_COND_CONNECTED,  /* a block of `sel` joined by service n (road, rail, power) */
    SC_COND_CITY_HAS,   /* some block of `sel` in the city */
    SC_COND_CITY_LACKS, /* no block of `sel` in the city */
    SC_COND_COVERED,    /* the cell is covered by coverage n (police, fire, ...) */
    SC_COND_COUNT
};
struct sc_cond {
    uint8_t kind; /* enum sc_cond_kind */
    uint8_t n;    /* within: range; connected: enum sc_service; covered: enum sc_cover */
    struct sc_sel sel;
};

/* The primitives of a block's specials box. */
enum sc_prim {
    SC_SP_MUST_COVER,  /* may only be played on top of a block of `sel` */
    SC_SP_ONLY_IF,     /* may only be played where `cond` holds */
    SC_SP_LIMIT,       /* at most `amount` of this design in the city (or within `range`) */
    SC_SP_RECEIVE,     /* receive `amount` ($, negative: lose) when `cond` holds (x matches) */
    SC_SP_ADD,         /* later blocks of `sel` in relation `cond` to this one get `amount` */
    SC_SP_MAYOR,       /* when played, the Mayor gains `amount` (negative: pays) */
    SC_SP_COVERAGE,    /* covers by `cover` within `range`; receive `amount` per block covered */
    SC_SP_REZONABLE,   /* may be covered by any block without a vote */
    SC_SP_REZONES,     /* may cover a block of `sel` without a vote */
    SC_SP_EXTRA_PLAY,  /* the player may play `amount` more cards this turn */
    SC_SP_REMOVE_WHEN, /* removed when a block of `sel` is later played */
    SC_SP_PROTECT,     /* blocks within `range` are spared by events of hazard `cover` */
    SC_SP_COUNT
};
struct sc_special {
    uint8_t prim;  /* enum sc_prim */
    int8_t amount; /* $ (signed), a limit, extra plays */
    uint8_t range; /* limit and coverage range, protection range */
    uint8_t cover; /* coverage: enum sc_cover; protect: enum sc_hazard */
    bool new_only; /* coverage: only blocks no provider of its kind covered before pay */
    bool each;     /* receive: per block matching the condition, not once */
    struct sc_sel sel;
    struct sc_cond cond;
};

/* The primitives of an event. */
enum sc_effect_kind {
    SC_EF_DESTROY,     /* the chosen block and those within `range` */
    SC_EF_POLLUTION,   /* every block with pollution >= `amount` */
    SC_EF_CRIME,       /* every block with crime >= `amount` not covered by police */
    SC_EF_MAYOR_PAYS,  /* the Mayor pays `amount` (a bill) */
    SC_EF_ALL_GAIN,    /* every player gains `amount` (negative: pays) */
    SC_EF_FORBID,      /* no block may be placed next to a block of `sel` for `turns` */
    SC_EF_SPREAD,      /* the chosen block burns, then one next to it each turn for `turns`
                          unless covered by `cover` */
    SC_EF_REMOVE_EACH, /* each turn for `turns`, one block of `sel` is removed */
    SC_EF_COUNT
};
struct sc_effect {
    uint8_t kind; /* enum sc_effect_kind */
    int8_t amount;
    uint8_t range;
    uint8_t turns;
    uint8_t cover; /* spread: enum sc_cover that stops it */
    bool bill;     /* destroyed blocks' values are billed to the Mayor */
    struct sc_sel sel;
};

enum { SC_BALLOT_WITHHOLD, SC_BALLOT_YES, SC_BALLOT_NO };

struct sc_design {
    char id[SC_ID_LEN];     /* slug, e.g. "log_cabin" */
    char name[SC_NAME_LEN]; /* printed name */
    char text[SC_TEXT_LEN]; /* the specials box or effect for people (may be empty) */
    uint8_t kind;           /* enum sc_kind */
    uint8_t phase;          /* 1..4 */
    uint8_t zone;           /* enum sc_zone (blocks) */
    uint8_t land;           /* enum sc_land (land blocks) */
    int8_t value;           /* $ */
    int8_t sims;            /* > 0 provides, < 0 requires */
    int8_t crime, pollution;
    uint8_t road, rail; /* SC_EDGE_* */
    bool power;         /* a power line */
    int8_t complex;     /* complex number, -1 none */
    int8_t cbonus;      /* complex bonus */
    bool cif_sims;      /* member only if the complex provides sims */
    uint8_t cwithin;    /* remote member within this many blocks of the complex (0: adjacent) */
    uint8_t nspecials;
    struct sc_special specials[SC_MAX_SPECIALS];
    int8_t cost, votes; /* council */
    bool corrupt;
    uint8_t vote;   /* a corrupt member's fixed ballot (SC_BALLOT_YES or _NO) */
    uint8_t hazard; /* event: enum sc_hazard */
    uint8_t neffects;
    struct sc_effect effects[SC_MAX_EFFECTS];
    uint8_t copies_base, copies_pack;
    /* Derived on load: */
    bool power_plant; /* a city-phase block with power coverage: the Power Plant that opens the
                         city phase's cards (a metropolis one, the Nuclear, waits for it) */
    bool targeted;    /* an event whose player chooses a block (destroy, spread) */
};

struct sc_catalog {
    int ndesigns;
    struct sc_design designs[SC_MAX_DESIGNS];
    int ncomplexes;
    char complexes[SC_MAX_COMPLEXES][SC_ID_LEN];
    int base_size, pack_size; /* cards */
    /* Instances of the largest deck: the base's designs in file order, copies in place, then
     * each pack the same way; a game of P players takes the first sc_deck_size(cat, P). */
    uint8_t card_design[SC_MAX_CARDS];
    /* Set on load, another for every load in the process: what is kept about a position
     * (sc_each_play()'s options) tells a catalog loaded anew at the same address apart. */
    uint64_t stamp;
};

/* The cards of the deck for `players` players: the base, plus one pack per player past two
 * (the Solitaire game plays the base alone). */
int sc_deck_size(const struct sc_catalog *cat, int players);

/* Names in the card file and JSON; NULL out of range. The reverse lookups give -1 when
 * unknown. */
const char *sc_kind_name(int kind);
const char *sc_zone_name(int zone);
const char *sc_land_name(int land);
const char *sc_service_name(int service);
const char *sc_cover_name(int cover);
const char *sc_hazard_name(int hazard);
const char *sc_prim_name(int prim);
const char *sc_effect_name(int kind);
int sc_zone_from_name(const char *name);

/* Parses a catalog from JSON text (format in cards/README.md) into *cat. `source` names the
 * text in messages. False with one sentence naming the source, the card and the reason; *cat is
 * then unspecified. Checks every field's type and range, unknown keys, names that selectors
 * cite, and the deck's minimums at every player count (cards/README.md, "Errors"). */
bool sc_catalog_from_json(struct sc_catalog *cat, const char *text, const char *source, char *err,
                          int errlen);

/* Reads the file at `path` and parses it; same contract. The only function here doing I/O. */
bool sc_catalog_load_file(struct sc_catalog *cat, const char *path, char *err, int errlen);

/* Index of the design with slug `id`, or -1. */
int sc_catalog_find(const struct sc_catalog *cat, const char *id);

/* True when the design provides / requires sims. */
static inline bool sc_provides(const struct sc_design *d)
{
    return d->sims > 0;
}
static inline bool sc_requires(const struct sc_design *d)
{
    return d->sims < 0;
}

#endif
