/* test_cards.c: Criterion tests of the card catalog: the real card file loads and carries
 * every mechanic and the printed photo values, and the loader refuses bad files with a
 * sentence naming the source, the card and the reason. */
#include <criterion/criterion.h>

#include "the_city/city_cards.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ----------------------------------------------------------------------------- */

/* The real card file, loaded once per test; fails the test when it does not load. */
static const struct city_catalog *real_catalog(void)
{
    static struct city_catalog cat;
    static char path[4096];
    const char *root = getenv("CITY_ROOT");
    snprintf(path, sizeof path, "%s/cards/cards.json", root && *root ? root : ".");
    char err[512];
    bool ok = city_catalog_load_file(&cat, path, err, sizeof err);
    cr_assert(ok, "the card file %s does not load: %s", path, err);
    return &cat;
}

/* The design with slug `id` in `cat`; fails the test when there is none. */
static const struct city_design *design(const struct city_catalog *cat, const char *id)
{
    int d = city_catalog_find(cat, id);
    cr_assert(d >= 0, "the deck has no card \"%s\"", id);
    return &cat->designs[d];
}

/* Index of design `id`, failing the test when absent. */
static int index_of(const struct city_catalog *cat, const char *id)
{
    int d = city_catalog_find(cat, id);
    cr_assert(d >= 0, "the deck has no card \"%s\"", id);
    return d;
}

/* A small valid catalog (5 contractors, 104 fillers) plus `extra` cards JSON text (one card
 * of count 1 makes it 110); written into a static buffer. */
static const char *with_cards(const char *extra)
{
    static char buf[16384];
    snprintf(buf, sizeof buf,
             "{\"format\": 1, \"cards\": [\n"
             "{\"id\": \"general_contractor\", \"name\": \"General Contractor\", \"count\": 5,"
             " \"cost\": 0, \"income\": 1, \"contractor\": true},\n"
             "{\"id\": \"filler\", \"name\": \"Filler\", \"count\": 104, \"cost\": 1},\n"
             "%s]}",
             extra);
    return buf;
}

/* Parses `text` as "test.json", asserts that it is refused, and that the message contains
 * each of the NULL-terminated fragments and is one sentence. */
static void assert_refused(const char *text, const char *const *fragments)
{
    static struct city_catalog cat;
    char err[512] = "untouched";
    bool ok = city_catalog_from_json(&cat, text, "test.json", err, sizeof err);
    cr_assert(!ok, "accepted a bad catalog:\n%s", text);
    for (int i = 0; fragments[i]; i++)
        cr_assert(strstr(err, fragments[i]), "error \"%s\" lacks \"%s\"", err, fragments[i]);
    size_t n = strlen(err);
    cr_assert(n > 0 && err[n - 1] == '.', "error \"%s\" is not one sentence", err);
    cr_assert(strncmp(err, "test.json:", 10) == 0, "error \"%s\" does not start with the source",
              err);
}

#define REFUSED(text, ...) assert_refused((text), (const char *const[]){__VA_ARGS__, NULL})

/* ---- the real deck ----------------------------------------------------------------------- */

Test(cards, real_card_file_loads)
{
    const struct city_catalog *cat = real_catalog();
    cr_assert_gt(cat->ndesigns, 0);
}

Test(cards, deck_has_110_cards)
{
    const struct city_catalog *cat = real_catalog();
    int total = 0;
    for (int d = 0; d < cat->ndesigns; d++)
        total += cat->designs[d].count;
    cr_assert_eq(total, 110);
    cr_assert_eq(total, CITY_DECK_SIZE);
}

Test(cards, deck_has_exactly_5_contractors_and_105_developments)
{
    const struct city_catalog *cat = real_catalog();
    int contractors = 0, developments = 0, designs = 0;
    for (int i = 0; i < CITY_DECK_SIZE; i++) {
        if (cat->designs[cat->card_design[i]].contractor)
            contractors++;
        else
            developments++;
    }
    for (int d = 0; d < cat->ndesigns; d++)
        designs += cat->designs[d].contractor;
    cr_assert_eq(contractors, 5);
    cr_assert_eq(developments, 105);
    cr_assert_eq(designs, 1, "exactly one design is the General Contractor");
    const struct city_design *gc = design(cat, "general_contractor");
    cr_assert_str_eq(gc->name, "General Contractor");
    cr_assert_eq(cat->contractor_design, index_of(cat, "general_contractor"));
    cr_assert_eq(gc->cost, 0);
    cr_assert_eq(gc->income, 1);
    cr_assert_eq(gc->vp, 0);
}

Test(cards, card_instances_follow_designs_in_file_order)
{
    const struct city_catalog *cat = real_catalog();
    int i = 0;
    for (int d = 0; d < cat->ndesigns; d++)
        for (int c = 0; c < cat->designs[d].count; c++, i++)
            cr_assert_eq(cat->card_design[i], d, "instance %d", i);
    cr_assert_eq(i, CITY_DECK_SIZE);
}

Test(cards, deck_has_30_to_45_designs)
{
    const struct city_catalog *cat = real_catalog();
    cr_assert_geq(cat->ndesigns, 30);
    cr_assert_leq(cat->ndesigns, 45);
}

Test(cards, costs_span_0_to_11_with_more_cheap_cards_than_expensive)
{
    const struct city_catalog *cat = real_catalog();
    bool has0 = false, has11 = false;
    int cheap = 0, dear = 0;
    for (int d = 0; d < cat->ndesigns; d++) {
        const struct city_design *x = &cat->designs[d];
        cr_assert(x->cost >= 0 && x->cost <= 11, "%s costs %d", x->id, x->cost);
        if (x->contractor)
            continue;
        has0 |= x->cost == 0;
        has11 |= x->cost == 11;
        if (x->cost <= 3)
            cheap += x->count;
        if (x->cost >= 8)
            dear += x->count;
    }
    cr_assert(has0, "some development costs 0");
    cr_assert(has11, "some development costs 11");
    cr_assert_gt(cheap, dear);
}

Test(cards, every_card_named_in_the_rules_keeps_its_name)
{
    const struct city_catalog *cat = real_catalog();
    static const char *const names[][2] = {
        {"general_contractor", "General Contractor"},
        {"townhouse_row", "Townhouse Row"},
        {"schools", "Schools"},
        {"housing_tract", "Housing Tracts"},
        {"mall", "Mall"},
        {"construction_gang", "Construction Gang"},
        {"freeway_interchange", "Freeway Interchange"},
        {"amusement_park", "Amusement Park"},
        {"central_park", "Central Park"},
        {"luxury_homes", "Luxury Homes"},
        {"subway_system", "Subway System"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_assert_str_eq(design(cat, names[i][0])->name, names[i][1]);
}

Test(cards, photo_cards_carry_their_printed_values)
{
    const struct city_catalog *cat = real_catalog();
    static const struct {
        const char *id;
        int cost, income, vp, car, shopping, entertainment;
    } photo[] = {
        {"amusement_park", 8, 2, 5, 3, 0, 0}, {"opera_house", 8, 0, 8, 0, 0, 1},
        {"mall", 8, 3, 0, 1, 2, 0},           {"skyscrapers", 8, 1, 7, 0, 0, 1},
        {"airport", 9, 1, 8, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof photo / sizeof photo[0]; i++) {
        const struct city_design *d = design(cat, photo[i].id);
        cr_assert_eq(d->cost, photo[i].cost, "%s cost", d->id);
        cr_assert_eq(d->income, photo[i].income, "%s income", d->id);
        cr_assert_eq(d->vp, photo[i].vp, "%s vp", d->id);
        cr_assert_eq(d->icons[CITY_ICON_CAR], photo[i].car, "%s cars", d->id);
        cr_assert_eq(d->icons[CITY_ICON_SHOPPING], photo[i].shopping, "%s shopping", d->id);
        cr_assert_eq(d->icons[CITY_ICON_ENTERTAINMENT], photo[i].entertainment, "%s ent.", d->id);
        cr_assert_eq(d->vp_var.kind, i == 2 ? CITY_VAR_ICON : CITY_VAR_NONE, "%s variable vp",
                     d->id);
        cr_assert_eq(d->income_var.kind, CITY_VAR_NONE, "%s variable income", d->id);
    }
    const struct city_design *mall = design(cat, "mall");
    cr_assert_eq(mall->vp_var.icon, CITY_ICON_SHOPPING);
    cr_assert_eq(mall->vp_var.amount, 1);
    cr_assert_eq(mall->limit, 1);
}

Test(cards, housing_tracts_cost_1)
{
    cr_assert_eq(design(real_catalog(), "housing_tract")->cost, 1);
}

Test(cards, some_cards_have_fixed_vp_and_some_fixed_income)
{
    const struct city_catalog *cat = real_catalog();
    cr_assert_eq(design(cat, "opera_house")->vp, 8);
    cr_assert_eq(design(cat, "opera_house")->vp_var.kind, CITY_VAR_NONE);
    cr_assert_eq(design(cat, "housing_tract")->income, 1);
    cr_assert_eq(design(cat, "housing_tract")->income_var.kind, CITY_VAR_NONE);
}

Test(cards, townhouse_row_discounts_residential_developments)
{
    const struct city_catalog *cat = real_catalog();
    int t = index_of(cat, "townhouse_row");
    const struct city_design *d = &cat->designs[t];
    cr_assert_gt(d->discount, 0);
    cr_assert(d->discount_to & (1ULL << index_of(cat, "luxury_homes")));
    cr_assert(d->discount_to & (1ULL << index_of(cat, "apartments")));
    cr_assert(!(d->discount_to & (1ULL << index_of(cat, "opera_house"))));
    cr_assert(cat->discount_designs & (1ULL << t));
}

Test(cards, only_discount_cards_are_in_the_discount_set)
{
    const struct city_catalog *cat = real_catalog();
    for (int d = 0; d < cat->ndesigns; d++) {
        bool in_set = (cat->discount_designs >> d) & 1;
        cr_assert_eq(in_set, cat->designs[d].discount > 0, "%s", cat->designs[d].id);
        cr_assert_eq(cat->designs[d].discount_to != 0, cat->designs[d].discount > 0, "%s",
                     cat->designs[d].id);
    }
}

Test(cards, an_icon_discount_applies_to_every_design_printing_that_icon)
{
    const struct city_catalog *cat = real_catalog();
    const struct city_design *dealer = design(cat, "car_dealership");
    cr_assert_gt(dealer->discount, 0);
    for (int d = 0; d < cat->ndesigns; d++) {
        bool has_car = cat->designs[d].icons[CITY_ICON_CAR] > 0;
        cr_assert_eq((dealer->discount_to >> d) & 1, has_car, "%s", cat->designs[d].id);
    }
}

Test(cards, schools_require_housing_tracts)
{
    const struct city_catalog *cat = real_catalog();
    const struct city_design *d = design(cat, "schools");
    cr_assert_eq(d->nrequires, 1);
    cr_assert_eq(d->requires[0], index_of(cat, "housing_tract"));
}

Test(cards, mall_is_limited_to_one_per_player)
{
    cr_assert_eq(design(real_catalog(), "mall")->limit, 1);
}

Test(cards, construction_gang_allows_two_builds_and_costs_at_most_4)
{
    const struct city_catalog *cat = real_catalog();
    const struct city_design *d = design(cat, "construction_gang");
    cr_assert(d->construction_gang);
    cr_assert_leq(d->cost, CITY_DOUBLE_MAX_COST);
    for (int i = 0; i < cat->ndesigns; i++)
        if (i != index_of(cat, "construction_gang"))
            cr_assert(!cat->designs[i].construction_gang, "%s", cat->designs[i].id);
}

Test(cards, freeway_interchange_scores_per_car)
{
    const struct city_design *d = design(real_catalog(), "freeway_interchange");
    cr_assert_eq(d->vp_var.kind, CITY_VAR_ICON);
    cr_assert_eq(d->vp_var.icon, CITY_ICON_CAR);
    cr_assert_geq(d->vp_var.amount, 1);
}

Test(cards, amusement_park_prints_car_three_times)
{
    const struct city_design *d = design(real_catalog(), "amusement_park");
    cr_assert_eq(d->icons[CITY_ICON_CAR], 3);
}

Test(cards, central_park_counts_its_own_icon)
{
    const struct city_design *d = design(real_catalog(), "central_park");
    cr_assert_eq(d->vp_var.kind, CITY_VAR_ICON);
    cr_assert_gt(d->icons[d->vp_var.icon], 0, "Central Park prints the icon it counts");
}

Test(cards, luxury_homes_score_per_other_copy)
{
    const struct city_design *d = design(real_catalog(), "luxury_homes");
    cr_assert_eq(d->vp_var.kind, CITY_VAR_OTHER_COPY);
    cr_assert_geq(d->vp_var.amount, 1);
    cr_assert_geq(d->count, 3, "enough copies to collect");
}

Test(cards, subway_system_scores_icons_with_another_tableau)
{
    const struct city_design *d = design(real_catalog(), "subway_system");
    cr_assert_eq(d->vp_var.kind, CITY_VAR_ICON_WITH_OTHER);
    cr_assert_lt(d->vp_var.icon, CITY_ICON_COUNT);
}

Test(cards, university_scores_per_school_in_play)
{
    const struct city_catalog *cat = real_catalog();
    const struct city_design *d = design(cat, "university");
    cr_assert_eq(d->vp_var.kind, CITY_VAR_CARD_ALL);
    cr_assert_eq(d->vp_var.card, index_of(cat, "schools"));
}

Test(cards, freeway_earns_per_freeway_interchange_owned)
{
    const struct city_catalog *cat = real_catalog();
    const struct city_design *d = design(cat, "freeway");
    cr_assert_eq(d->income_var.kind, CITY_VAR_CARD_OWN);
    cr_assert_eq(d->income_var.card, index_of(cat, "freeway_interchange"));
}

Test(cards, variable_income_appears_on_more_than_one_card)
{
    const struct city_catalog *cat = real_catalog();
    int n = 0;
    for (int d = 0; d < cat->ndesigns; d++)
        n += cat->designs[d].income_var.kind != CITY_VAR_NONE;
    cr_assert_geq(n, 2);
}

Test(cards, every_icon_is_common_in_the_deck)
{
    const struct city_catalog *cat = real_catalog();
    int n[CITY_ICON_COUNT] = {0};
    for (int d = 0; d < cat->ndesigns; d++)
        for (int i = 0; i < CITY_ICON_COUNT; i++)
            n[i] += cat->designs[d].icons[i] * cat->designs[d].count;
    for (int i = 0; i < CITY_ICON_COUNT; i++)
        cr_assert_geq(n[i], 15, "%s is printed %d times", city_icon_name(i), n[i]);
}

Test(cards, every_card_with_a_special_rule_has_text)
{
    const struct city_catalog *cat = real_catalog();
    for (int i = 0; i < cat->ndesigns; i++) {
        const struct city_design *d = &cat->designs[i];
        bool special = d->limit || d->nrequires || d->discount || d->vp_var.kind ||
                       d->income_var.kind || d->construction_gang || d->contractor;
        if (special)
            cr_assert_gt(strlen(d->text), 0, "%s has a special rule but no text", d->id);
    }
}

Test(cards, icon_names_round_trip)
{
    cr_assert_str_eq(city_icon_name(CITY_ICON_CAR), "car");
    cr_assert_str_eq(city_icon_name(CITY_ICON_SHOPPING), "shopping");
    cr_assert_str_eq(city_icon_name(CITY_ICON_ENTERTAINMENT), "entertainment");
    cr_assert_null(city_icon_name(CITY_ICON_COUNT));
    cr_assert_null(city_icon_name(-1));
}

Test(cards, catalog_find_returns_minus_one_for_an_unknown_id)
{
    const struct city_catalog *cat = real_catalog();
    cr_assert_eq(city_catalog_find(cat, "no_such_card"), -1);
    cr_assert_eq(city_catalog_find(cat, NULL), -1);
    cr_assert_eq(city_catalog_find(cat, "mall"), index_of(cat, "mall"));
}

/* ---- the loader: acceptance -------------------------------------------------------------- */

Test(cards, a_minimal_catalog_loads)
{
    static struct city_catalog cat;
    char err[256];
    bool ok = city_catalog_from_json(
        &cat, with_cards("{\"id\": \"x\", \"name\": \"X\", \"count\": 1, \"cost\": 2}"),
        "test.json", err, sizeof err);
    cr_assert(ok, "%s", err);
    cr_assert_eq(cat.ndesigns, 3);
    cr_assert_eq(cat.contractor_design, 0);
    cr_assert_eq(cat.card_design[109], 2);
}

Test(cards, defaults_fill_every_optional_key)
{
    static struct city_catalog cat;
    char err[256];
    cr_assert(city_catalog_from_json(
                  &cat, with_cards("{\"id\": \"x\", \"name\": \"X\", \"count\": 1, \"cost\": 2}"),
                  "test.json", err, sizeof err),
              "%s", err);
    const struct city_design *d = &cat.designs[2];
    cr_assert_str_eq(d->text, "");
    cr_assert_eq(d->vp + d->income + d->limit + d->nrequires + d->discount, 0);
    cr_assert_eq(d->icons[0] + d->icons[1] + d->icons[2], 0);
    cr_assert_eq(d->vp_var.kind, CITY_VAR_NONE);
    cr_assert_eq(d->income_var.kind, CITY_VAR_NONE);
    cr_assert(!d->construction_gang && !d->contractor);
}

Test(cards, requires_may_name_a_card_defined_later)
{
    static struct city_catalog cat;
    char err[256];
    bool ok = city_catalog_from_json(&cat,
                                     with_cards("{\"id\": \"x\", \"name\": \"X\", \"count\": 1, "
                                                "\"cost\": 2, \"requires\": [\"filler\"]}"),
                                     "test.json", err, sizeof err);
    cr_assert(ok, "%s", err);
    const char *later = "{\"format\": 1, \"cards\": ["
                        "{\"id\": \"a\", \"name\": \"A\", \"count\": 104, \"cost\": 1,"
                        " \"requires\": [\"b\"], \"vp_per\": {\"kind\": \"card_own\","
                        " \"card\": \"b\", \"amount\": 2}},"
                        "{\"id\": \"b\", \"name\": \"B\", \"count\": 1, \"cost\": 1},"
                        "{\"id\": \"gc\", \"name\": \"GC\", \"count\": 5, \"cost\": 0,"
                        " \"income\": 1, \"contractor\": true}]}";
    ok = city_catalog_from_json(&cat, later, "later.json", err, sizeof err);
    cr_assert(ok, "%s", err);
    cr_assert_eq(cat.designs[0].requires[0], 1);
    cr_assert_eq(cat.designs[0].vp_var.card, 1);
    cr_assert_eq(cat.designs[0].vp_var.amount, 2);
    cr_assert_eq(cat.contractor_design, 2);
}

Test(cards, an_unreadable_file_is_reported_with_its_path)
{
    static struct city_catalog cat;
    char err[512];
    cr_assert(!city_catalog_load_file(&cat, "/nonexistent/cards.json", err, sizeof err));
    cr_assert(strstr(err, "/nonexistent/cards.json: cannot read: "), "%s", err);
    cr_assert(strstr(err, "No such file"), "%s", err);
}

Test(cards, a_short_error_buffer_is_never_overrun)
{
    static struct city_catalog cat;
    char err[12];
    memset(err, 'x', sizeof err);
    cr_assert(!city_catalog_from_json(&cat, "{", "a-long-source-name.json", err, 8));
    cr_assert_eq(strlen(err), 7);
    cr_assert_eq(err[8], 'x');
    cr_assert(!city_catalog_from_json(&cat, with_cards("{\"id\": \"x\"}"), "s", NULL, 0));
}

/* ---- the loader: refusals ---------------------------------------------------------------- */

Test(cards, unknown_key_is_refused_naming_file_card_and_key)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"colour\": \"red\"}"),
            "test.json", "card \"bad\"", "unknown key \"colour\"");
}

Test(cards, unknown_top_level_key_is_refused)
{
    REFUSED("{\"format\": 1, \"cards\": [], \"extra\": 1}", "test.json", "unknown key \"extra\"");
}

Test(cards, format_other_than_1_is_refused)
{
    REFUSED("{\"format\": 2, \"cards\": []}", "test.json", "\"format\" must be 1");
}

Test(cards, wrong_type_is_refused_naming_file_card_and_key)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": \"3\"}"),
            "test.json", "card \"bad\"", "\"cost\" must be an integer");
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 3,"
                       " \"construction_gang\": 1}"),
            "test.json", "card \"bad\"", "\"construction_gang\" must be true or false");
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": 7, \"count\": 1, \"cost\": 3}"), "test.json",
            "card \"bad\"", "\"name\" must be a string");
}

Test(cards, cost_12_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 12}"),
            "test.json", "card \"bad\"", "\"cost\" must be an integer from 0 to 11, not 12");
}

Test(cards, negative_count_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": -1, \"cost\": 1}"),
            "test.json", "card \"bad\"", "\"count\" must be an integer from 1 to 105, not -1");
}

Test(cards, missing_required_key_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"cost\": 1}"), "test.json",
            "card \"bad\"", "required key \"count\" is missing");
    REFUSED(with_cards("{\"name\": \"Bad\", \"count\": 1, \"cost\": 1}"), "test.json",
            "card number 3", "required key \"id\" is missing");
}

Test(cards, id_that_is_not_a_slug_is_refused)
{
    REFUSED(with_cards("{\"id\": \"Bad Id\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1}"),
            "test.json", "card number 3", "\"id\" \"Bad Id\" must be");
}

Test(cards, duplicate_id_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1},"
                       "{\"id\": \"bad\", \"name\": \"Bad too\", \"count\": 1, \"cost\": 1}"),
            "test.json", "card \"bad\"", "duplicate id");
}

Test(cards, prerequisite_naming_no_card_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"requires\": [\"nowhere\"]}"),
            "test.json", "card \"bad\"", "\"requires\" names no card \"nowhere\"");
}

Test(cards, prerequisite_naming_the_card_itself_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"requires\": [\"bad\"]}"),
            "test.json", "card \"bad\"", "\"requires\" names the card itself");
}

Test(cards, discount_naming_no_card_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"discount\": {\"amount\": 1, \"cards\": [\"filler\", \"nowhere\"]}}"),
            "test.json", "card \"bad\"", "\"discount\" names no card \"nowhere\"");
}

Test(cards, discount_with_both_cards_and_icon_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"discount\": {\"amount\": 1, \"cards\": [\"filler\"], \"icon\": "
                       "\"car\"}}"),
            "test.json", "card \"bad\"", "exactly one of \"cards\" and \"icon\"");
}

Test(cards, unknown_icon_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"icons\": [\"car\", \"fountain\"]}"),
            "test.json", "card \"bad\"", "unknown icon \"fountain\"");
}

Test(cards, an_icon_printed_four_times_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"icons\": [\"car\", \"car\", \"car\", \"car\"]}"),
            "test.json", "card \"bad\"", "more than 3 times");
}

Test(cards, variable_key_foreign_to_its_kind_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"vp_per\": {\"kind\": \"other_copy\", \"icon\": \"car\"}}"),
            "test.json", "card \"bad\"", "unknown key \"icon\" in \"vp_per\"");
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"income_per\": {\"kind\": \"per_moon\"}}"),
            "test.json", "card \"bad\"", "\"income_per\" \"kind\" must be");
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"vp_per\": {\"kind\": \"card_all\", \"card\": \"nowhere\"}}"),
            "test.json", "card \"bad\"", "\"vp_per\" names no card \"nowhere\"");
}

Test(cards, wrong_total_is_refused)
{
    const char *text = "{\"format\": 1, \"cards\": ["
                       "{\"id\": \"gc\", \"name\": \"GC\", \"count\": 5, \"cost\": 0,"
                       " \"income\": 1, \"contractor\": true},"
                       "{\"id\": \"filler\", \"name\": \"Filler\", \"count\": 104, \"cost\": 1}]}";
    REFUSED(text, "test.json", "add up to 109 cards", "exactly 110");
}

Test(cards, not_exactly_5_contractors_is_refused)
{
    const char *text = "{\"format\": 1, \"cards\": ["
                       "{\"id\": \"general_contractor\", \"name\": \"GC\", \"count\": 4,"
                       " \"cost\": 0, \"income\": 1, \"contractor\": true},"
                       "{\"id\": \"filler\", \"name\": \"Filler\", \"count\": 105, \"cost\": 1}]}";
    REFUSED(text, "test.json", "card \"general_contractor\"", "\"count\" 5");
}

Test(cards, a_second_contractor_design_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 5, \"cost\": 0,"
                       " \"income\": 1, \"contractor\": true}"),
            "test.json", "card \"bad\"", "exactly one may");
}

Test(cards, a_deck_without_a_contractor_is_refused)
{
    const char *text = "{\"format\": 1, \"cards\": ["
                       "{\"id\": \"filler\", \"name\": \"Filler\", \"count\": 105, \"cost\": 1},"
                       "{\"id\": \"more\", \"name\": \"More\", \"count\": 5, \"cost\": 0}]}";
    REFUSED(text, "test.json", "no card has \"contractor\": true");
}

Test(cards, a_contractor_with_a_rule_is_refused)
{
    const char *text = "{\"format\": 1, \"cards\": ["
                       "{\"id\": \"gc\", \"name\": \"GC\", \"count\": 5, \"cost\": 0,"
                       " \"income\": 1, \"contractor\": true, \"icons\": [\"car\"]},"
                       "{\"id\": \"filler\", \"name\": \"Filler\", \"count\": 105, \"cost\": 1}]}";
    REFUSED(text, "test.json", "card \"gc\"", "a contractor may have no icons");
}

Test(cards, malformed_json_is_refused_naming_the_line)
{
    REFUSED("{\n  \"format\": 1,\n  \"cards\": [ oops ]\n}", "test.json:3:", "invalid JSON");
}

Test(cards, duplicate_json_key_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 1,"
                       " \"cost\": 2}"),
            "test.json:", "duplicate");
}

Test(cards, construction_gang_costing_over_4_is_refused)
{
    REFUSED(with_cards("{\"id\": \"bad\", \"name\": \"Bad\", \"count\": 1, \"cost\": 5,"
                       " \"construction_gang\": true}"),
            "test.json", "card \"bad\"", "construction gang must cost at most 4");
}

Test(cards, more_than_64_designs_is_refused)
{
    static char text[16384];
    int n = snprintf(text, sizeof text,
                     "{\"format\": 1, \"cards\": [{\"id\": \"gc\", \"name\": \"GC\", \"count\": "
                     "5, \"cost\": 0, \"income\": 1, \"contractor\": true}");
    for (int i = 1; i < 65; i++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      ", {\"id\": \"c%d\", \"name\": \"C\", \"count\": 1, \"cost\": 1}", i);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    REFUSED(text, "test.json", "too many designs", "at most 64");
}
