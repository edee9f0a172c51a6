/* city_catalog_json.c: turns the card catalog into JSON for people and clients. */
#include "city_catalog_json.h"

static const char *const var_kinds[] = {
    [CITY_VAR_NONE] = NULL,
    [CITY_VAR_ICON] = "icon",
    [CITY_VAR_ICON_WITH_OTHER] = "icon_with_other",
    [CITY_VAR_OTHER_COPY] = "other_copy",
    [CITY_VAR_CARD_OWN] = "card_own",
    [CITY_VAR_CARD_ALL] = "card_all",
};

static json_t *variable_to_json(const struct city_catalog *cat, const struct city_variable *v)
{
    json_t *o = json_pack("{s:s, s:i}", "kind", var_kinds[v->kind], "amount", v->amount);
    if (v->kind == CITY_VAR_ICON || v->kind == CITY_VAR_ICON_WITH_OTHER)
        json_object_set_new(o, "icon", json_string(city_icon_name(v->icon)));
    if (v->kind == CITY_VAR_CARD_OWN || v->kind == CITY_VAR_CARD_ALL)
        json_object_set_new(o, "card", json_string(cat->designs[v->card].id));
    return o;
}

json_t *city_catalog_to_json(const struct city_catalog *cat)
{
    json_t *cards = json_array();
    for (int i = 0; i < cat->ndesigns; i++) {
        const struct city_design *d = &cat->designs[i];
        json_t *icons = json_array();
        for (int k = 0; k < CITY_ICON_COUNT; k++)
            for (int n = 0; n < d->icons[k]; n++)
                json_array_append_new(icons, json_string(city_icon_name(k)));
        json_t *c = json_pack("{s:s, s:s, s:i, s:i, s:i, s:o, s:s, s:i}", "id", d->id, "name",
                              d->name, "cost", d->cost, "vp", d->vp, "income", d->income, "icons",
                              icons, "text", d->text, "count", d->count);
        if (d->limit)
            json_object_set_new(c, "limit", json_integer(d->limit));
        if (d->nrequires) {
            json_t *req = json_array();
            for (int r = 0; r < d->nrequires; r++)
                json_array_append_new(req, json_string(cat->designs[d->requires[r]].id));
            json_object_set_new(c, "requires", req);
        }
        if (d->discount) {
            json_t *to = json_array();
            for (int k = 0; k < cat->ndesigns; k++)
                if (d->discount_to & (1ULL << k))
                    json_array_append_new(to, json_string(cat->designs[k].id));
            json_object_set_new(c, "discount",
                                json_pack("{s:i, s:o}", "amount", d->discount, "cards", to));
        }
        if (d->vp_var.kind)
            json_object_set_new(c, "vp_per", variable_to_json(cat, &d->vp_var));
        if (d->income_var.kind)
            json_object_set_new(c, "income_per", variable_to_json(cat, &d->income_var));
        if (d->construction_gang)
            json_object_set_new(c, "construction_gang", json_true());
        if (d->contractor)
            json_object_set_new(c, "contractor", json_true());
        json_array_append_new(cards, c);
    }
    int total = 0;
    for (int i = 0; i < cat->ndesigns; i++)
        total += cat->designs[i].count;
    return json_pack("{s:i, s:i, s:o}", "total", total, "designs", cat->ndesigns, "cards", cards);
}
