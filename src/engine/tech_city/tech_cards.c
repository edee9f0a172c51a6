/* tech_cards.c: parses and validates Tech City's card file (cards/tech_city.json, format in
 * cards/README.md) into struct tech_catalog, and reads it from disk; every refusal is one
 * sentence naming the source, the card and the reason. */
#include "tech_cards.h"

#include "textfile.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const domain_names[] = {"service", "technology", "science", "knowledge", "wild"};
static const char *const prim_names[PRIM_COUNT] = {
    "none",    "draw", "discard", "reveal",      "search", "exchange_deck", "exchange_discard",
    "replace", "swap", "expel",   "move_marker", "steal",  "score"};
static const char *const filter_names[FILTER_COUNT] = {"any", "own", "neutral", "other"};
static const char *const cond_names[COND_COUNT] = {"controls", "most_companies", "hand",
                                                   "neutral_cards"};

const char *tech_domain_name(int domain)
{
    return domain >= 0 && domain <= DOMAIN_WILD ? domain_names[domain] : NULL;
}

int tech_domain_from_name(const char *name)
{
    for (int i = 0; name && i <= DOMAIN_WILD; i++)
        if (strcmp(name, domain_names[i]) == 0)
            return i;
    return -1;
}

const char *tech_prim_name(int prim)
{
    return prim >= 0 && prim < PRIM_COUNT ? prim_names[prim] : NULL;
}

const char *tech_filter_name(int filter)
{
    return filter >= 0 && filter < FILTER_COUNT ? filter_names[filter] : NULL;
}

const char *tech_cond_name(int cond)
{
    return cond >= 0 && cond < COND_COUNT ? cond_names[cond] : NULL;
}

static int index_of(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int tech_catalog_find(const struct tech_catalog *cat, const char *id)
{
    for (int i = 0; cat && id && i < cat->ndesigns; i++)
        if (strcmp(cat->designs[i].id, id) == 0)
            return i;
    return -1;
}

/* ---- parsing ------------------------------------------------------------------------------ */

/* Copies string `key` of obj (1..n-1 bytes) into out. */
static bool get_str(struct card_reader *p, const json_t *obj, const char *key, bool required,
                    char *out, size_t n)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return card_refuse(p, "\"%s\" is missing", key);
        return true;
    }
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= n)
        return card_refuse(p, "\"%s\" must be a string of 1 to %zu bytes", key, n - 1);
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return true;
}

/* Refuses any key of obj not in the NULL-terminated list. */
static bool only_keys(struct card_reader *p, const json_t *obj, const char *what,
                      const char *const *keys)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, key, v)
    {
        bool known = false;
        for (int i = 0; keys[i]; i++)
            known = known || strcmp(keys[i], key) == 0;
        if (!known)
            return card_refuse(p, "unknown key \"%s\" in %s", key, what);
    }
    return true;
}

/* Parses one effect object: exactly one primitive key and its parameters. */
static bool parse_effect(struct card_reader *p, const json_t *e, struct tech_effect *out)
{
    static const char *const keys[] = {"draw",
                                       "then_discard",
                                       "discard",
                                       "reveal",
                                       "search_value",
                                       "search_domain",
                                       "exchange",
                                       "replace",
                                       "swap",
                                       "expel",
                                       "move_marker",
                                       "steal",
                                       "score",
                                       "if",
                                       "domain",
                                       "at_least",
                                       NULL};
    static const char *const prims[] = {
        "draw", "discard", "reveal",      "search_value", "search_domain", "exchange", "replace",
        "swap", "expel",   "move_marker", "steal",        "score",         NULL};
    if (!json_is_object(e))
        return card_refuse(p, "\"effect\" must be an object");
    if (!only_keys(p, e, "the effect", keys))
        return false;
    int found = 0;
    const char *which = NULL;
    for (int i = 0; prims[i]; i++)
        if (json_object_get(e, prims[i])) {
            found++;
            which = prims[i];
        }
    if (found != 1)
        return card_refuse(p, "an effect names exactly one primitive (draw, discard, reveal, "
                              "search_value, search_domain, exchange, replace, swap, expel, "
                              "move_marker, steal, score)");
    memset(out, 0, sizeof *out);
    out->domain = -1;
    int n = 0, m = 0;
    const json_t *v = json_object_get(e, which);
    bool ok = true;
    if (strcmp(which, "draw") == 0) {
        out->prim = PRIM_DRAW;
        ok = card_get_int(p, e, "draw", true, 1, TECH_MAX_DRAW, &n) &&
             card_get_int(p, e, "then_discard", false, 0, TECH_MAX_DRAW, &m);
        if (ok && m > n)
            return card_refuse(p, "\"then_discard\" must not exceed \"draw\"");
    } else if (strcmp(which, "discard") == 0) {
        out->prim = PRIM_DISCARD;
        ok = card_get_int(p, e, "discard", true, 1, 3, &n);
    } else if (strcmp(which, "reveal") == 0) {
        out->prim = PRIM_REVEAL;
        ok = card_get_int(p, e, "reveal", true, 1, TECH_MAX_REVEAL, &n);
    } else if (strcmp(which, "search_value") == 0) {
        int value = 0;
        out->prim = PRIM_SEARCH;
        ok = card_get_int(p, e, "search_value", true, 1, TECH_VALUES, &value);
        out->value = (int8_t)value;
    } else if (strcmp(which, "search_domain") == 0) {
        out->prim = PRIM_SEARCH;
        out->domain =
            (int8_t)(json_is_string(v) ? tech_domain_from_name(json_string_value(v)) : -1);
        if (out->domain < 0 || out->domain == DOMAIN_WILD)
            return card_refuse(
                p, "\"search_domain\" must be service, technology, science or knowledge");
    } else if (strcmp(which, "exchange") == 0) {
        const char *s = json_is_string(v) ? json_string_value(v) : "";
        if (strcmp(s, "deck") == 0)
            out->prim = PRIM_EXCHANGE_TOP;
        else if (strcmp(s, "discard") == 0)
            out->prim = PRIM_EXCHANGE_PILE;
        else
            return card_refuse(p, "\"exchange\" must be \"deck\" or \"discard\"");
    } else if (strcmp(which, "replace") == 0 || strcmp(which, "expel") == 0) {
        out->prim = which[0] == 'r' ? PRIM_REPLACE : PRIM_EXPEL;
        int f = index_of(filter_names, FILTER_COUNT, json_is_string(v) ? json_string_value(v) : "");
        if (f < 0)
            return card_refuse(p, "\"%s\" must be any, own, neutral or other", which);
        out->filter = (uint8_t)f;
    } else if (strcmp(which, "swap") == 0 || strcmp(which, "move_marker") == 0) {
        if (!json_is_true(v))
            return card_refuse(p, "\"%s\" must be true", which);
        out->prim = which[0] == 's' ? PRIM_SWAP : PRIM_MOVE_MARKER;
    } else if (strcmp(which, "steal") == 0) {
        out->prim = PRIM_STEAL;
        ok = card_get_int(p, e, "steal", true, 1, 1, &n);
    } else {
        out->prim = PRIM_SCORE;
        int pts = 0;
        ok = card_get_int(p, e, "score", true, 1, 3, &pts);
        out->points = (int8_t)pts;
        const json_t *c = json_object_get(e, "if");
        int cond = index_of(cond_names, COND_COUNT, json_is_string(c) ? json_string_value(c) : "");
        if (ok && cond < 0)
            return card_refuse(p, "\"if\" must be controls, most_companies, hand or neutral_cards");
        out->cond = (uint8_t)(cond < 0 ? 0 : cond);
        if (ok && cond != COND_MOST)
            ok = card_get_int(p, e, "at_least", true, 1, 20, &n);
        const json_t *d = json_object_get(e, "domain");
        if (ok && d) {
            out->domain =
                (int8_t)(json_is_string(d) ? tech_domain_from_name(json_string_value(d)) : -1);
            if (cond != COND_CONTROLS || out->domain < 0 || out->domain == DOMAIN_WILD)
                return card_refuse(p,
                                   "\"domain\" goes with \"if\": \"controls\" and names a domain");
        }
    }
    if (!ok)
        return false;
    bool is_draw = out->prim == PRIM_DRAW, is_score = out->prim == PRIM_SCORE;
    if (!is_draw && json_object_get(e, "then_discard"))
        return card_refuse(p, "\"then_discard\" goes only with \"draw\"");
    if (!is_score && (json_object_get(e, "if") || json_object_get(e, "at_least") ||
                      json_object_get(e, "domain")))
        return card_refuse(p, "\"if\", \"at_least\" and \"domain\" go only with \"score\"");
    out->n = (int8_t)n;
    out->m = (int8_t)m;
    return true;
}

static bool parse_card(struct card_reader *p, const json_t *c, struct tech_design *d)
{
    static const char *const keys[] = {"id",   "name", "domain", "value", "effect",
                                       "text", "wild", "count",  NULL};
    if (!json_is_object(c))
        return card_refuse(p, "every card must be an object");
    memset(d, 0, sizeof *d);
    if (!get_str(p, c, "id", true, d->id, sizeof d->id))
        return false;
    for (const char *s = d->id; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return card_refuse(p, "\"id\" \"%s\" may hold only a-z, 0-9 and _", d->id);
    p->card = d->id;
    if (!only_keys(p, c, "the card", keys) ||
        !get_str(p, c, "name", true, d->name, sizeof d->name) ||
        !get_str(p, c, "text", true, d->text, sizeof d->text))
        return false;
    const json_t *wild = json_object_get(c, "wild");
    if (wild && !json_is_boolean(wild))
        return card_refuse(p, "\"wild\" must be true or false");
    int count = 1;
    if (json_is_true(wild)) {
        if (json_object_get(c, "domain") || json_object_get(c, "value") ||
            json_object_get(c, "effect"))
            return card_refuse(p, "a wild card has no domain, value or effect");
        if (!card_get_int(p, c, "count", true, 1, 2, &count))
            return false;
        d->domain = DOMAIN_WILD;
        d->count = (uint8_t)count;
        return true;
    }
    if (json_object_get(c, "count"))
        return card_refuse(p, "only wild cards have a \"count\" (each company is printed once)");
    const json_t *dom = json_object_get(c, "domain");
    int domain = json_is_string(dom) ? tech_domain_from_name(json_string_value(dom)) : -1;
    if (domain < 0 || domain == DOMAIN_WILD)
        return card_refuse(p, "\"domain\" must be service, technology, science or knowledge");
    int value = 0;
    if (!card_get_int(p, c, "value", true, 1, TECH_VALUES, &value))
        return false;
    d->domain = (int8_t)domain;
    d->value = (int8_t)value;
    d->count = 1;
    if (!json_object_get(c, "effect"))
        return card_refuse(p, "\"effect\" is missing");
    return parse_effect(p, json_object_get(c, "effect"), &d->effect);
}

bool tech_catalog_from_json(struct tech_catalog *cat, const char *text, const char *source,
                            char *err, int errlen)
{
    struct card_reader p = {source ? source : "card file", err, errlen, NULL};
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    if (!root)
        return card_refuse(&p, "not JSON (line %d: %s)", je.line, je.text);
    bool ok = false;
    memset(cat, 0, sizeof *cat);
    static const char *const keys[] = {"format", "seed", "cards", NULL};
    const json_t *cards = json_object_get(root, "cards");
    const json_t *seed = json_object_get(root, "seed");
    int format = 0;
    if (!json_is_object(root)) {
        card_refuse(&p, "the file must hold one object {\"format\", \"seed\", \"cards\"}");
        goto out;
    }
    if (!only_keys(&p, root, "the file", keys) ||
        !card_get_int(&p, root, "format", true, 1, 1, &format))
        goto out;
    if (!json_is_array(cards) || json_array_size(cards) == 0 ||
        json_array_size(cards) > TECH_MAX_DESIGNS) {
        card_refuse(&p, "\"cards\" must be an array of 1 to %d cards", TECH_MAX_DESIGNS);
        goto out;
    }
    bool seen[4][TECH_VALUES + 1] = {{false}};
    int wilds = 0;
    unsigned prims = 0;
    size_t i;
    const json_t *c;
    json_array_foreach(cards, i, c)
    {
        struct tech_design *d = &cat->designs[i];
        p.card = NULL;
        if (!parse_card(&p, c, d))
            goto out;
        if (tech_catalog_find(cat, d->id) >= 0) {
            card_refuse(&p, "the id is used twice");
            goto out;
        }
        cat->ndesigns = (int)i + 1;
        if (d->domain == DOMAIN_WILD) {
            wilds += d->count;
            continue;
        }
        if (seen[d->domain][d->value]) {
            card_refuse(&p, "two cards are the %d of %s", d->value, domain_names[d->domain]);
            goto out;
        }
        seen[d->domain][d->value] = true;
        prims |= 1u << d->effect.prim;
    }
    p.card = NULL;
    for (int dm = 0; dm < 4; dm++)
        for (int v = 1; v <= TECH_VALUES; v++)
            if (!seen[dm][v]) {
                card_refuse(&p, "no card is the %d of %s (each domain has values 1 to 13)", v,
                            domain_names[dm]);
                goto out;
            }
    if (wilds != 2) {
        card_refuse(&p, "the deck needs 2 wild cards, not %d", wilds);
        goto out;
    }
    for (int k = PRIM_DRAW; k < PRIM_COUNT; k++)
        if (!(prims & (1u << k))) {
            card_refuse(&p, "no card uses the primitive %s", prim_names[k]);
            goto out;
        }
    cat->seed_design = json_is_string(seed) ? tech_catalog_find(cat, json_string_value(seed)) : -1;
    if (cat->seed_design < 0 || cat->designs[cat->seed_design].domain == DOMAIN_WILD) {
        card_refuse(&p, "\"seed\" must name a company of the file");
        goto out;
    }
    int n = 0;
    for (int k = 0; k < cat->ndesigns; k++)
        for (int j = 0; j < cat->designs[k].count; j++)
            cat->card_design[n++] = (uint8_t)k;
    cat->deck_size = n; /* 52 + 2, checked above */
    ok = true;
out:
    json_decref(root);
    return ok;
}

TEXT_FILE_LOADER(tech_catalog_load_file, struct tech_catalog, tech_catalog_from_json);
