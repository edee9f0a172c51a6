/* sc_cards.c: parses and validates SimCity's card file (cards/simcity.json, format in
 * cards/README.md) into struct sc_catalog, and reads it from disk; every refusal is one sentence
 * naming the source, the card and the reason. The specials, effects, selectors and conditions of
 * a card are read by sc_cards_prims.c. */
#include "sc_cards.h"
#include "sc_cards_parse.h"

#include "textfile.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[SC_KIND_COUNT] = {"block", "event", "council"};
const char *const sc_zone_names[SC_ZONE_COUNT] = {"residential",  "commercial",   "industrial",
                                                  "governmental", "agricultural", "special",
                                                  "services",     "land"};
const char *const sc_land_names[SC_LAND_COUNT] = {"none",   "forest", "mountain",
                                                  "barren", "plains", "water"};
const char *const sc_service_names[SC_SVC_COUNT] = {"road", "rail", "power"};
const char *const sc_cover_names[SC_COVER_COUNT] = {"power", "police", "fire", "phone"};
const char *const sc_hazard_names[SC_HAZ_COUNT] = {"none", "fire",  "storm",  "flood",
                                                   "riot", "toxic", "blight", "fiscal"};
static const char *const prim_names[SC_SP_COUNT] = {
    "must_cover", "only_if",   "limit",   "receive",    "add",         "mayor",
    "coverage",   "rezonable", "rezones", "extra_play", "remove_when", "protect"};
static const char *const effect_names[SC_EF_COUNT] = {
    "destroy",  "destroy_pollution", "destroy_crime", "mayor_pays",
    "all_gain", "forbid_adjacent",   "spread",        "remove_each_turn"};

#define NAME_OF(arr, i) ((i) >= 0 && (i) < (int)(sizeof arr / sizeof arr[0]) ? arr[i] : NULL)

const char *sc_kind_name(int kind)
{
    return NAME_OF(kind_names, kind);
}
const char *sc_zone_name(int zone)
{
    return NAME_OF(sc_zone_names, zone);
}
const char *sc_land_name(int land)
{
    return NAME_OF(sc_land_names, land);
}
const char *sc_service_name(int service)
{
    return NAME_OF(sc_service_names, service);
}
const char *sc_cover_name(int cover)
{
    return NAME_OF(sc_cover_names, cover);
}
const char *sc_hazard_name(int hazard)
{
    return NAME_OF(sc_hazard_names, hazard);
}
const char *sc_prim_name(int prim)
{
    return NAME_OF(prim_names, prim);
}
const char *sc_effect_name(int kind)
{
    return NAME_OF(effect_names, kind);
}

static int index_of(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int sc_zone_from_name(const char *name)
{
    return index_of(sc_zone_names, SC_ZONE_COUNT, name);
}

int sc_catalog_find(const struct sc_catalog *cat, const char *id)
{
    for (int i = 0; cat && id && i < cat->ndesigns; i++)
        if (strcmp(cat->designs[i].id, id) == 0)
            return i;
    return -1;
}

int sc_deck_size(const struct sc_catalog *cat, int players)
{
    int packs = players > SC_BASE_PLAYERS ? players - SC_BASE_PLAYERS : 0;
    return cat->base_size + packs * cat->pack_size;
}

/* ---- parsing ------------------------------------------------------------------------------ */

__attribute__((format(printf, 2, 3))) bool sc_fail(struct sc_parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_file_refuse(p->err, p->errlen, p->source, p->card, fmt, ap);
    va_end(ap);
    return false;
}

/* Reads integer `key` of obj into *out (left alone when absent and not required), lo..hi. */
bool sc_get_int(struct sc_parser *p, const json_t *obj, const char *key, bool required, int lo,
                int hi, int *out)
{
    const struct card_reader r = {p->source, p->err, p->errlen, p->card};
    return card_get_int(&r, obj, key, required, lo, hi, out);
}

bool sc_get_bool(struct sc_parser *p, const json_t *obj, const char *key, bool *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return true;
    if (!json_is_boolean(v))
        return sc_fail(p, "\"%s\" must be true or false", key);
    *out = json_is_true(v);
    return true;
}

/* Copies string `key` of obj (1..n-1 bytes) into out. */
bool sc_get_str(struct sc_parser *p, const json_t *obj, const char *key, bool required, char *out,
                size_t n)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return sc_fail(p, "\"%s\" is missing", key);
        return true;
    }
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= n)
        return sc_fail(p, "\"%s\" must be a string of 1 to %zu bytes", key, n - 1);
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return true;
}

/* Reads string `key` as one of names[0..n-1] into *out. */
bool sc_get_name(struct sc_parser *p, const json_t *obj, const char *key, bool required,
                 const char *const *names, int n, int *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return sc_fail(p, "\"%s\" is missing", key);
        return true;
    }
    int i = json_is_string(v) ? index_of(names, n, json_string_value(v)) : -1;
    if (i < 0) {
        char list[200] = "";
        for (int k = 0; k < n; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                     names[k]);
        return sc_fail(p, "\"%s\" must be one of %s", key, list);
    }
    *out = i;
    return true;
}

/* Refuses any key of obj not in the NULL-terminated list. */
bool sc_only_keys(struct sc_parser *p, const json_t *obj, const char *what, const char *const *keys)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, key, v)
    {
        bool known = false;
        for (int i = 0; keys[i]; i++)
            known = known || strcmp(keys[i], key) == 0;
        if (!known)
            return sc_fail(p, "unknown key \"%s\" in %s", key, what);
    }
    return true;
}

/* The one key of obj that is in the NULL-terminated list `prims`, or NULL (after failing) when
 * there is not exactly one. */
const char *sc_one_of(struct sc_parser *p, const json_t *obj, const char *what,
                      const char *const *prims)
{
    const char *which = NULL;
    int found = 0;
    for (int i = 0; prims[i]; i++)
        if (json_object_get(obj, prims[i])) {
            found++;
            which = prims[i];
        }
    if (found == 1)
        return which;
    char list[400] = "";
    for (int k = 0; prims[k]; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", prims[k]);
    sc_fail(p, "%s names exactly one of %s", what, list);
    return NULL;
}

/* Edges as the file spells them: "", "NS", "EW" or "NESW". */
static bool get_edges(struct sc_parser *p, const json_t *obj, const char *key, uint8_t *out)
{
    const json_t *v = json_object_get(obj, key);
    *out = 0;
    if (!v)
        return true;
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (s && strcmp(s, "") == 0)
        *out = 0;
    else if (s && strcmp(s, "NS") == 0)
        *out = SC_EDGE_N | SC_EDGE_S;
    else if (s && strcmp(s, "EW") == 0)
        *out = SC_EDGE_E | SC_EDGE_W;
    else if (s && strcmp(s, "NESW") == 0)
        *out = SC_EDGE_N | SC_EDGE_E | SC_EDGE_S | SC_EDGE_W;
    else
        return sc_fail(p, "\"%s\" must be \"\", \"NS\", \"EW\" or \"NESW\"", key);
    return true;
}

int sc_find_complex(const struct sc_catalog *cat, const char *name)
{
    for (int i = 0; name && i < cat->ncomplexes; i++)
        if (strcmp(cat->complexes[i], name) == 0)
            return i;
    return -1;
}

/* True when `word` is one of the space-separated words of `list`. */
bool sc_word_in(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *at = list; (at = strstr(at, word)) != NULL; at += len)
        if ((at == list || at[-1] == ' ') && (at[len] == ' ' || at[len] == '\0'))
            return true;
    return false;
}

static bool parse_card(struct sc_parser *p, const json_t *c, struct sc_design *d)
{
    static const char *const keys[] = {
        "id",       "name",   "kind",    "phase",     "text",  "copies",  "zone",  "land",
        "value",    "sims",   "crime",   "pollution", "road",  "rail",    "power", "complex",
        "specials", "hazard", "effects", "cost",      "votes", "corrupt", "vote",  NULL};
    static const char *const by_kind[SC_KIND_COUNT] = {
        "zone land value sims crime pollution road rail power complex specials", "hazard effects",
        "cost votes corrupt vote"};
    if (!sc_only_keys(p, c, "the card", keys))
        return false;
    int kind = 0, phase = 0;
    if (!sc_get_str(p, c, "name", true, d->name, sizeof d->name) ||
        !sc_get_str(p, c, "text", false, d->text, sizeof d->text) ||
        !sc_get_name(p, c, "kind", true, kind_names, SC_KIND_COUNT, &kind) ||
        !sc_get_int(p, c, "phase", true, 1, SC_PHASES, &phase))
        return false;
    d->kind = (uint8_t)kind;
    d->phase = (uint8_t)phase;
    d->complex = -1;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)c, key, v)
    {
        bool common = index_of(keys, 6, key) >= 0;
        if (common)
            continue;
        if (!sc_word_in(by_kind[kind], key)) /* a key of another kind of card */
            return sc_fail(p, "a %s card takes no \"%s\"", kind_names[kind], key);
    }
    const json_t *copies = json_object_get(c, "copies");
    static const char *const copy_keys[] = {"base", "pack", NULL};
    if (!json_is_object(copies))
        return sc_fail(p, "\"copies\" must be an object {base, pack}");
    int base = 0, pack = 0;
    if (!sc_only_keys(p, copies, "\"copies\"", copy_keys) ||
        !sc_get_int(p, copies, "base", false, 0, 30, &base) ||
        !sc_get_int(p, copies, "pack", false, 0, 30, &pack))
        return false;
    if (base + pack == 0)
        return sc_fail(p, "a card needs a copy in the base or the pack");
    d->copies_base = (uint8_t)base;
    d->copies_pack = (uint8_t)pack;

    int n = 0;
    if (kind == SC_KIND_COUNCIL) {
        int cost = 0, votes = 0, ballot = 0;
        static const char *const ballots[] = {"withhold", "yes", "no"};
        if (!sc_get_int(p, c, "cost", true, 0, 30, &cost) ||
            !sc_get_int(p, c, "votes", true, 1, 5, &votes) ||
            !sc_get_bool(p, c, "corrupt", &d->corrupt) ||
            !sc_get_name(p, c, "vote", d->corrupt, ballots, 3, &ballot))
            return false;
        if (!d->corrupt && json_object_get(c, "vote"))
            return sc_fail(p, "only a corrupt member has a fixed \"vote\"");
        if (d->corrupt && ballot == SC_BALLOT_WITHHOLD)
            return sc_fail(p, "a corrupt member votes \"yes\" or \"no\"");
        if (phase < 3)
            return sc_fail(p, "council members come with the city (phase 3 or 4)");
        d->cost = (int8_t)cost;
        d->votes = (int8_t)votes;
        d->vote = (uint8_t)ballot;
        return true;
    }
    if (kind == SC_KIND_EVENT) {
        int h = 0;
        if (!sc_get_name(p, c, "hazard", true, sc_hazard_names, SC_HAZ_COUNT, &h))
            return false;
        d->hazard = (uint8_t)h;
        const json_t *effects = json_object_get(c, "effects");
        if (!json_is_array(effects) || json_array_size(effects) == 0 ||
            json_array_size(effects) > SC_MAX_EFFECTS)
            return sc_fail(p, "\"effects\" must be an array of 1 to %d effects", SC_MAX_EFFECTS);
        if (phase < 3)
            return sc_fail(p, "events come with the city (phase 3 or 4)");
        size_t i;
        json_array_foreach(effects, i, v)
        {
            if (!sc_parse_effect(p, v, &d->effects[i]))
                return false;
            int k = d->effects[i].kind;
            if (k == SC_EF_DESTROY || k == SC_EF_SPREAD) {
                if (d->targeted)
                    return sc_fail(p, "an event chooses at most one block (one destroy or spread)");
                d->targeted = true;
            }
        }
        d->neffects = (uint8_t)json_array_size(effects);
        return true;
    }
    int zone = 0, land = SC_LAND_NONE, value = 0, sims = 0, crime = 0, pollution = 0;
    if (!sc_get_name(p, c, "zone", true, sc_zone_names, SC_ZONE_COUNT, &zone) ||
        !sc_get_name(p, c, "land", false, sc_land_names, SC_LAND_COUNT, &land) ||
        !sc_get_int(p, c, "value", true, 0, SC_MAX_AMOUNT, &value) ||
        !sc_get_int(p, c, "sims", false, -30, 30, &sims) ||
        !sc_get_int(p, c, "crime", false, -5, 5, &crime) ||
        !sc_get_int(p, c, "pollution", false, -5, 5, &pollution) ||
        !get_edges(p, c, "road", &d->road) || !get_edges(p, c, "rail", &d->rail) ||
        !sc_get_bool(p, c, "power", &d->power))
        return false;
    if ((zone == SC_ZONE_LAND) != (land != SC_LAND_NONE))
        return sc_fail(p, "land (zone \"land\") and only land has a \"land\" type");
    d->zone = (uint8_t)zone;
    d->land = (uint8_t)land;
    d->value = (int8_t)value;
    d->sims = (int8_t)sims;
    d->crime = (int8_t)crime;
    d->pollution = (int8_t)pollution;
    const json_t *cx = json_object_get(c, "complex");
    if (cx && !sc_parse_complex(p, cx, d))
        return false;
    const json_t *specials = json_object_get(c, "specials");
    if (specials) {
        if (!json_is_array(specials) || json_array_size(specials) > SC_MAX_SPECIALS)
            return sc_fail(p, "\"specials\" must be an array of at most %d", SC_MAX_SPECIALS);
        size_t i;
        json_array_foreach(specials, i, v)
        {
            struct sc_special *s = &d->specials[i];
            if (!sc_parse_special(p, v, s))
                return false;
            if (s->prim == SC_SP_COVERAGE && s->cover == SC_COVER_POWER) {
                if (!d->power)
                    return sc_fail(p, "power coverage needs the card's own power line");
                /* The city phase's Power Plant; a metropolis card with power coverage (the
                 * Nuclear Power Plant) is one of the cards that must wait for it. */
                d->power_plant = d->phase == 3;
            }
            n++;
        }
    }
    d->nspecials = (uint8_t)n;
    return true;
}

/* Checks slug syntax: [a-z0-9_]+, shorter than SC_ID_LEN. */
static bool good_slug(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= SC_ID_LEN)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

/* The first pass: every card's id and every complex's name, so that selectors may cite cards
 * further down the file. */
static bool collect_names(struct sc_parser *p, const json_t *cards)
{
    size_t i;
    const json_t *c;
    json_array_foreach(cards, i, c)
    {
        struct sc_design *d = &p->cat->designs[i];
        p->card = NULL;
        if (!json_is_object(c))
            return sc_fail(p, "card %zu is not an object", i + 1);
        const json_t *id = json_object_get(c, "id");
        if (!json_is_string(id) || !good_slug(json_string_value(id)))
            return sc_fail(p, "card %zu: \"id\" must be [a-z0-9_]+ of at most %d characters", i + 1,
                           SC_ID_LEN - 1);
        snprintf(d->id, sizeof d->id, "%s", json_string_value(id));
        p->card = d->id;
        for (size_t k = 0; k < i; k++)
            if (strcmp(p->cat->designs[k].id, d->id) == 0)
                return sc_fail(p, "the id is used twice");
        p->nids = (int)i + 1;
        const json_t *cx = json_object_get(c, "complex");
        const json_t *name = json_is_object(cx) ? json_object_get(cx, "name") : NULL;
        if (json_is_string(name) && sc_find_complex(p->cat, json_string_value(name)) < 0) {
            if (!good_slug(json_string_value(name)))
                return sc_fail(p, "a complex's \"name\" must be [a-z0-9_]+");
            if (p->cat->ncomplexes >= SC_MAX_COMPLEXES)
                return sc_fail(p, "more than %d complexes", SC_MAX_COMPLEXES);
            snprintf(p->cat->complexes[p->cat->ncomplexes++], SC_ID_LEN, "%s",
                     json_string_value(name));
        }
    }
    return true;
}

/* The seed's minimums for the deck of `players` players (cards/README.md). */
static bool check_minimums(struct sc_parser *p, int players)
{
    const struct sc_catalog *cat = p->cat;
    int packs = players > SC_BASE_PLAYERS ? players - SC_BASE_PLAYERS : 0;
    int total = 0, white = 0, providers = 0, requirers = 0, sims = 0, plants = 0;
    for (int k = 0; k < cat->ndesigns; k++) {
        const struct sc_design *d = &cat->designs[k];
        int n = d->copies_base + packs * d->copies_pack;
        total += n;
        white += d->phase == 1 ? n : 0;
        if (d->kind != SC_KIND_BLOCK)
            continue;
        providers += d->phase == 1 && d->sims > 0 ? n : 0;
        requirers += d->phase <= 2 && d->sims < 0 ? n : 0;
        sims += d->sims > 0 ? n * d->sims : 0;
        plants += d->power_plant ? n : 0;
    }
    int want_providers = 3 * players > 12 ? 3 * players : 12;
    int want_requirers = 4 * players > 16 ? 4 * players : 16;
    int want_sims = 10 * players > 40 ? 10 * players : 40;
    if (total < SC_MIN_DECK)
        return sc_fail(p, "the deck for %d players holds %d cards, fewer than %d", players, total,
                       SC_MIN_DECK);
    if (total > SC_MAX_CARDS)
        return sc_fail(p, "the deck for %d players holds %d cards, more than %d", players, total,
                       SC_MAX_CARDS);
    if (providers < want_providers)
        return sc_fail(p, "the deck for %d players has %d white sim providers, fewer than %d",
                       players, providers, want_providers);
    if (requirers < want_requirers)
        return sc_fail(p,
                       "the deck for %d players has %d white or green sim requirers, fewer "
                       "than %d",
                       players, requirers, want_requirers);
    if (sims < want_sims)
        return sc_fail(p, "the deck for %d players provides %d sims, fewer than %d", players, sims,
                       want_sims);
    if (plants < players)
        return sc_fail(p, "the deck for %d players has %d Power Plants, fewer than %d", players,
                       plants, players);
    if (10 * white < 3 * total)
        return sc_fail(p, "the deck for %d players is %d%% white, less than 30%%", players,
                       100 * white / total);
    return true;
}

bool sc_catalog_from_json(struct sc_catalog *cat, const char *text, const char *source, char *err,
                          int errlen)
{
    struct sc_parser p = {
        .source = source ? source : "cards", .err = err, .errlen = errlen, .cat = cat};
    static atomic_uint_fast64_t loads;
    memset(cat, 0, sizeof *cat);
    cat->stamp = (uint64_t)atomic_fetch_add(&loads, 1) + 1;
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    if (!root)
        return sc_fail(&p, "not JSON (line %d: %s)", jerr.line, jerr.text);
    bool ok = false;
    static const char *const top_keys[] = {"format", "cards", NULL};
    const json_t *cards = json_object_get(root, "cards");
    const json_t *format = json_object_get(root, "format");
    if (!json_is_object(root) || !sc_only_keys(&p, root, "the file", top_keys))
        goto out;
    if (!json_is_integer(format) || json_integer_value(format) != 1) {
        sc_fail(&p, "\"format\" must be 1");
        goto out;
    }
    if (!json_is_array(cards) || json_array_size(cards) == 0 ||
        json_array_size(cards) > SC_MAX_DESIGNS) {
        sc_fail(&p, "\"cards\" must be an array of 1 to %d cards", SC_MAX_DESIGNS);
        goto out;
    }
    if (!collect_names(&p, cards))
        goto out;
    size_t i;
    const json_t *c;
    json_array_foreach(cards, i, c)
    {
        struct sc_design *d = &cat->designs[i];
        p.card = d->id;
        if (!parse_card(&p, c, d))
            goto out;
    }
    cat->ndesigns = (int)json_array_size(cards);
    p.card = NULL;
    for (int k = 0; k < cat->ndesigns; k++) {
        cat->base_size += cat->designs[k].copies_base;
        cat->pack_size += cat->designs[k].copies_pack;
    }
    for (int players = 1; players <= 6; players++)
        if (!check_minimums(&p, players))
            goto out;
    int n = 0;
    for (int k = 0; k < cat->ndesigns; k++)
        for (int j = 0; j < cat->designs[k].copies_base; j++)
            cat->card_design[n++] = (uint8_t)k;
    for (int pack = 0; pack < 6 - SC_BASE_PLAYERS; pack++)
        for (int k = 0; k < cat->ndesigns; k++)
            for (int j = 0; j < cat->designs[k].copies_pack; j++)
                cat->card_design[n++] = (uint8_t)k;
    ok = true;
out:
    json_decref(root);
    return ok;
}

TEXT_FILE_LOADER(sc_catalog_load_file, struct sc_catalog, sc_catalog_from_json);
