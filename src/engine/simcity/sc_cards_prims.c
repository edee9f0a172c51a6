/* sc_cards_prims.c: reads the primitives of SimCity's card file — selectors, conditions, a
 * block's specials, an event's effects, complex membership — for sc_cards.c, refusing what is
 * wrong with a sentence naming the card (cards/README.md has the grammar). */
#include <string.h>

#include "sc_cards_parse.h"

/* A selector object: any of name, zone, land, complex, service, sims. */
bool sc_parse_sel(struct sc_parser *p, const json_t *v, const char *what, struct sc_sel *out)
{
    static const char *const keys[] = {"name", "zone", "land", "complex", "service", "sims", NULL};
    static const char *const sims[] = {"provides", "requires"};
    memset(out, 0, sizeof *out);
    if (!json_is_object(v))
        return sc_fail(p, "%s must be a selector object (name, zone, land, complex, service, sims)",
                       what);
    if (!sc_only_keys(p, v, what, keys))
        return false;
    const json_t *name = json_object_get(v, "name");
    if (name) {
        int d = -1;
        for (int i = 0; json_is_string(name) && i < p->nids; i++)
            if (strcmp(p->cat->designs[i].id, json_string_value(name)) == 0)
                d = i;
        if (d < 0)
            return sc_fail(p, "%s names \"%s\", which is no card of the file", what,
                           json_is_string(name) ? json_string_value(name) : "?");
        out->has |= SC_SEL_NAME;
        out->design = (uint8_t)d;
    }
    int zone = -1, land = -1, service = -1, s = -1;
    if (!sc_get_name(p, v, "zone", false, sc_zone_names, SC_ZONE_COUNT, &zone) ||
        !sc_get_name(p, v, "land", false, sc_land_names, SC_LAND_COUNT, &land) ||
        !sc_get_name(p, v, "service", false, sc_service_names, SC_SVC_COUNT, &service) ||
        !sc_get_name(p, v, "sims", false, sims, 2, &s))
        return false;
    if (zone >= 0) {
        out->has |= SC_SEL_ZONE;
        out->zone = (uint8_t)zone;
    }
    if (land >= 0) {
        out->has |= SC_SEL_LAND;
        out->land = (uint8_t)land;
    }
    if (service >= 0) {
        out->has |= SC_SEL_SERVICE;
        out->service = (uint8_t)service;
    }
    if (s >= 0)
        out->has |= s == 0 ? SC_SEL_PROVIDER : SC_SEL_REQUIRER;
    const json_t *cx = json_object_get(v, "complex");
    if (cx) {
        int c = json_is_string(cx) ? sc_find_complex(p->cat, json_string_value(cx)) : -1;
        if (c < 0)
            return sc_fail(p, "%s names a complex no card belongs to", what);
        out->has |= SC_SEL_COMPLEX;
        out->complex = (uint8_t)c;
    }
    return true;
}

/* A condition object: adjacent, within+of, connected+to, city_has, city_lacks, covered_by. */
bool sc_parse_cond(struct sc_parser *p, const json_t *v, struct sc_cond *out)
{
    static const char *const keys[] = {"adjacent", "within",     "of",         "connected", "to",
                                       "city_has", "city_lacks", "covered_by", NULL};
    static const char *const prims[] = {"adjacent",   "within",     "connected", "city_has",
                                        "city_lacks", "covered_by", NULL};
    memset(out, 0, sizeof *out);
    if (!json_is_object(v))
        return sc_fail(p, "a condition (\"if\", \"only_if\") must be an object");
    if (!sc_only_keys(p, v, "the condition", keys))
        return false;
    const char *which = sc_one_of(p, v, "a condition", prims);
    if (!which)
        return false;
    int n = 0;
    if (strcmp(which, "adjacent") == 0) {
        out->kind = SC_COND_ADJACENT;
        return sc_parse_sel(p, json_object_get(v, "adjacent"), "\"adjacent\"", &out->sel);
    }
    if (strcmp(which, "within") == 0) {
        out->kind = SC_COND_WITHIN;
        if (!sc_get_int(p, v, "within", true, 1, SC_MAX_RANGE, &n))
            return false;
        out->n = (uint8_t)n;
        if (!json_object_get(v, "of"))
            return sc_fail(p, "\"within\" needs \"of\", the blocks it counts to");
        return sc_parse_sel(p, json_object_get(v, "of"), "\"of\"", &out->sel);
    }
    if (strcmp(which, "connected") == 0) {
        out->kind = SC_COND_CONNECTED;
        if (!sc_get_name(p, v, "connected", true, sc_service_names, SC_SVC_COUNT, &n))
            return false;
        out->n = (uint8_t)n;
        if (!json_object_get(v, "to"))
            return sc_fail(p, "\"connected\" needs \"to\", the blocks it joins");
        return sc_parse_sel(p, json_object_get(v, "to"), "\"to\"", &out->sel);
    }
    if (strcmp(which, "city_has") == 0 || strcmp(which, "city_lacks") == 0) {
        out->kind = which[5] == 'h' ? SC_COND_CITY_HAS : SC_COND_CITY_LACKS;
        return sc_parse_sel(p, json_object_get(v, which), which, &out->sel);
    }
    out->kind = SC_COND_COVERED;
    if (!sc_get_name(p, v, "covered_by", true, sc_cover_names, SC_COVER_COUNT, &n))
        return false;
    out->n = (uint8_t)n;
    if (json_object_get(v, "of") || json_object_get(v, "to"))
        return sc_fail(p, "\"covered_by\" takes no \"of\" or \"to\"");
    return true;
}

/* One primitive of a specials box. */
bool sc_parse_special(struct sc_parser *p, const json_t *v, struct sc_special *out)
{
    static const char *const keys[] = {
        "must_cover", "only_if",     "limit",      "receive",  "lose",      "add",
        "deduct",     "mayor_gains", "mayor_pays", "coverage", "rezonable", "rezones",
        "extra_play", "remove_when", "protect",    "if",       "each",      "to",
        "within",     "connected",   "range",      "new_only", "per_block", NULL};
    static const char *const prims[] = {"must_cover", "only_if",     "limit",     "receive",
                                        "lose",       "add",         "deduct",    "mayor_gains",
                                        "mayor_pays", "coverage",    "rezonable", "rezones",
                                        "extra_play", "remove_when", "protect",   NULL};
    memset(out, 0, sizeof *out);
    if (!json_is_object(v))
        return sc_fail(p, "each of \"specials\" must be an object");
    if (!sc_only_keys(p, v, "a special", keys))
        return false;
    const char *w = sc_one_of(p, v, "a special", prims);
    if (!w)
        return false;
    int n = 0, r = 0;
    /* the keys each primitive takes besides its own */
    const char *takes = "";
    if (strcmp(w, "must_cover") == 0 || strcmp(w, "rezones") == 0 ||
        strcmp(w, "remove_when") == 0) {
        out->prim = w[0] == 'm'   ? SC_SP_MUST_COVER
                    : w[2] == 'z' ? SC_SP_REZONES
                                  : SC_SP_REMOVE_WHEN;
        if (!sc_parse_sel(p, json_object_get(v, w), w, &out->sel))
            return false;
    } else if (strcmp(w, "only_if") == 0) {
        out->prim = SC_SP_ONLY_IF;
        if (!sc_parse_cond(p, json_object_get(v, w), &out->cond))
            return false;
    } else if (strcmp(w, "limit") == 0) {
        out->prim = SC_SP_LIMIT;
        takes = "within";
        if (!sc_get_int(p, v, "limit", true, 1, 9, &n) ||
            !sc_get_int(p, v, "within", false, 1, SC_MAX_RANGE, &r))
            return false;
        out->amount = (int8_t)n;
        out->range = (uint8_t)r;
    } else if (strcmp(w, "receive") == 0 || strcmp(w, "lose") == 0) {
        out->prim = SC_SP_RECEIVE;
        takes = "if each";
        if (!sc_get_int(p, v, w, true, 1, SC_MAX_AMOUNT, &n) ||
            !sc_get_bool(p, v, "each", &out->each))
            return false;
        out->amount = (int8_t)(w[0] == 'r' ? n : -n);
        const json_t *c = json_object_get(v, "if");
        if (c && !sc_parse_cond(p, c, &out->cond))
            return false;
        if (out->each && out->cond.kind != SC_COND_ADJACENT && out->cond.kind != SC_COND_WITHIN &&
            out->cond.kind != SC_COND_CONNECTED && out->cond.kind != SC_COND_CITY_HAS)
            return sc_fail(p, "\"each\" counts the blocks of an adjacent, within, connected or "
                              "city_has condition");
    } else if (strcmp(w, "add") == 0 || strcmp(w, "deduct") == 0) {
        out->prim = SC_SP_ADD;
        takes = "to within connected";
        if (!sc_get_int(p, v, w, true, 1, SC_MAX_AMOUNT, &n))
            return false;
        out->amount = (int8_t)(w[0] == 'a' ? n : -n);
        if (!json_object_get(v, "to"))
            return sc_fail(p, "\"%s\" needs \"to\", the later blocks it applies to", w);
        if (!sc_parse_sel(p, json_object_get(v, "to"), "\"to\"", &out->sel) ||
            !sc_get_int(p, v, "within", false, 1, SC_MAX_RANGE, &r))
            return false;
        int svc = -1;
        if (!sc_get_name(p, v, "connected", false, sc_service_names, SC_SVC_COUNT, &svc))
            return false;
        if (r && svc >= 0)
            return sc_fail(p, "\"%s\" takes \"within\" or \"connected\", not both", w);
        out->cond.kind = r == 1     ? SC_COND_ADJACENT
                         : r        ? SC_COND_WITHIN
                         : svc >= 0 ? SC_COND_CONNECTED
                                    : SC_COND_ALWAYS;
        out->cond.n = (uint8_t)(svc >= 0 ? svc : r);
    } else if (strcmp(w, "mayor_gains") == 0 || strcmp(w, "mayor_pays") == 0) {
        out->prim = SC_SP_MAYOR;
        if (!sc_get_int(p, v, w, true, 1, SC_MAX_AMOUNT, &n))
            return false;
        out->amount = (int8_t)(w[6] == 'g' ? n : -n);
    } else if (strcmp(w, "coverage") == 0) {
        out->prim = SC_SP_COVERAGE;
        takes = "range per_block new_only";
        int cover = 0;
        if (!sc_get_name(p, v, "coverage", true, sc_cover_names, SC_COVER_COUNT, &cover) ||
            !sc_get_int(p, v, "range", cover != SC_COVER_POWER, 1, SC_MAX_RANGE, &r) ||
            !sc_get_int(p, v, "per_block", false, 0, 9, &n) ||
            !sc_get_bool(p, v, "new_only", &out->new_only))
            return false;
        if (cover == SC_COVER_POWER && r)
            return sc_fail(p, "power covers along power lines and takes no \"range\"");
        out->cover = (uint8_t)cover;
        out->range = (uint8_t)r;
        out->amount = (int8_t)n;
    } else if (strcmp(w, "rezonable") == 0) {
        out->prim = SC_SP_REZONABLE;
        if (!json_is_true(json_object_get(v, w)))
            return sc_fail(p, "\"rezonable\" must be true");
    } else if (strcmp(w, "extra_play") == 0) {
        out->prim = SC_SP_EXTRA_PLAY;
        if (!sc_get_int(p, v, w, true, 1, 2, &n))
            return false;
        out->amount = (int8_t)n;
    } else {
        out->prim = SC_SP_PROTECT;
        takes = "within";
        int h = 0;
        if (!sc_get_name(p, v, "protect", true, sc_hazard_names, SC_HAZ_COUNT, &h) ||
            !sc_get_int(p, v, "within", false, 1, SC_MAX_RANGE, &r))
            return false;
        if (h == SC_HAZ_NONE)
            return sc_fail(p, "\"protect\" names a hazard (fire, storm, ...)");
        out->cover = (uint8_t)h;
        out->range = (uint8_t)r;
    }
    /* refuse parameters the primitive does not take */
    static const char *const params[] = {"if",    "each",     "to",        "within", "connected",
                                         "range", "new_only", "per_block", NULL};
    for (int i = 0; params[i]; i++)
        if (json_object_get(v, params[i]) && !sc_word_in(takes, params[i]))
            return sc_fail(p, "\"%s\" takes no \"%s\"", w, params[i]);
    return true;
}

/* One primitive of an event. */
bool sc_parse_effect(struct sc_parser *p, const json_t *v, struct sc_effect *out)
{
    static const char *const keys[] = {
        "destroy",          "mayor_pays", "all_gain", "all_pay", "forbid_adjacent", "spread",
        "remove_each_turn", "within",     "at_least", "bill",    "turns",           NULL};
    static const char *const prims[] = {
        "destroy",         "mayor_pays", "all_gain",         "all_pay",
        "forbid_adjacent", "spread",     "remove_each_turn", NULL};
    static const char *const destroy[] = {"chosen", "pollution", "crime"};
    memset(out, 0, sizeof *out);
    if (!json_is_object(v))
        return sc_fail(p, "each of \"effects\" must be an object");
    if (!sc_only_keys(p, v, "an effect", keys))
        return false;
    const char *w = sc_one_of(p, v, "an effect", prims);
    if (!w)
        return false;
    int n = 0;
    const char *takes = "";
    if (strcmp(w, "destroy") == 0) {
        int how = 0;
        if (!sc_get_name(p, v, "destroy", true, destroy, 3, &how) ||
            !sc_get_bool(p, v, "bill", &out->bill))
            return false;
        if (how == 0) {
            out->kind = SC_EF_DESTROY;
            takes = "within bill";
            if (!sc_get_int(p, v, "within", false, 1, 3, &n))
                return false;
            out->range = (uint8_t)n;
        } else {
            out->kind = how == 1 ? SC_EF_POLLUTION : SC_EF_CRIME;
            takes = "at_least bill";
            if (!sc_get_int(p, v, "at_least", true, 1, 9, &n))
                return false;
            out->amount = (int8_t)n;
        }
    } else if (strcmp(w, "mayor_pays") == 0) {
        out->kind = SC_EF_MAYOR_PAYS;
        if (!sc_get_int(p, v, w, true, 1, SC_MAX_AMOUNT, &n))
            return false;
        out->amount = (int8_t)n;
    } else if (strcmp(w, "all_gain") == 0 || strcmp(w, "all_pay") == 0) {
        out->kind = SC_EF_ALL_GAIN;
        if (!sc_get_int(p, v, w, true, 1, SC_MAX_AMOUNT, &n))
            return false;
        out->amount = (int8_t)(w[4] == 'g' ? n : -n);
    } else if (strcmp(w, "forbid_adjacent") == 0 || strcmp(w, "remove_each_turn") == 0) {
        out->kind = w[0] == 'f' ? SC_EF_FORBID : SC_EF_REMOVE_EACH;
        takes = "turns";
        if (!sc_parse_sel(p, json_object_get(v, w), w, &out->sel) ||
            !sc_get_int(p, v, "turns", true, 1, 9, &n))
            return false;
        out->turns = (uint8_t)n;
    } else {
        out->kind = SC_EF_SPREAD;
        takes = "turns bill";
        int cover = 0;
        if (!sc_get_name(p, v, "spread", true, sc_cover_names, SC_COVER_COUNT, &cover) ||
            !sc_get_int(p, v, "turns", true, 1, 9, &n) || !sc_get_bool(p, v, "bill", &out->bill))
            return false;
        out->cover = (uint8_t)cover;
        out->turns = (uint8_t)n;
    }
    static const char *const params[] = {"within", "at_least", "bill", "turns", NULL};
    for (int i = 0; params[i]; i++)
        if (json_object_get(v, params[i]) && !sc_word_in(takes, params[i]))
            return sc_fail(p, "\"%s\" takes no \"%s\"", w, params[i]);
    return true;
}

bool sc_parse_complex(struct sc_parser *p, const json_t *v, struct sc_design *d)
{
    static const char *const keys[] = {"name", "bonus", "if", "within", NULL};
    if (!json_is_object(v))
        return sc_fail(p, "\"complex\" must be an object {name, bonus, [if], [within]}");
    if (!sc_only_keys(p, v, "the complex", keys))
        return false;
    const json_t *name = json_object_get(v, "name");
    d->complex =
        (int8_t)(json_is_string(name) ? sc_find_complex(p->cat, json_string_value(name)) : -1);
    if (d->complex < 0)
        return sc_fail(p, "\"complex\" needs a \"name\"");
    int bonus = 0, within = 0;
    if (!sc_get_int(p, v, "bonus", true, 1, 9, &bonus) ||
        !sc_get_int(p, v, "within", false, 1, SC_MAX_RANGE, &within))
        return false;
    d->cbonus = (int8_t)bonus;
    d->cwithin = (uint8_t)within;
    const json_t *cond = json_object_get(v, "if");
    if (cond) {
        if (!json_is_string(cond) || strcmp(json_string_value(cond), "sims") != 0)
            return sc_fail(p,
                           "a complex's \"if\" can only be \"sims\" (the complex provides sims)");
        d->cif_sims = true;
    }
    return true;
}
