/* city_cards.c: parses and validates the card catalog from the JSON text of the card file
 * (format in cards/README.md) into struct city_catalog; every refusal is one sentence that
 * names the source, the card and the reason (no I/O happens here). */
#include "city_cards.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const icon_names[CITY_ICON_COUNT] = {"car", "shopping", "entertainment"};

const char *city_icon_name(int icon)
{
    return icon >= 0 && icon < CITY_ICON_COUNT ? icon_names[icon] : NULL;
}

/* Returns the icon named `name`, or -1. */
static int icon_from_name(const char *name)
{
    for (int i = 0; i < CITY_ICON_COUNT; i++)
        if (strcmp(name, icon_names[i]) == 0)
            return i;
    return -1;
}

int city_catalog_find(const struct city_catalog *cat, const char *id)
{
    if (!cat || !id)
        return -1;
    for (int i = 0; i < cat->ndesigns; i++)
        if (strcmp(cat->designs[i].id, id) == 0)
            return i;
    return -1;
}

/* ---- errors ------------------------------------------------------------------------------ */

/* What a parse is working on, so that every error can name it. */
struct parser {
    struct city_catalog *cat;
    const char *source;
    char *err;
    int errlen;
    const char *card_id; /* the card being parsed, when its id is known and valid */
    int card_no;         /* its 1-based position in "cards", or 0 outside any card */
    int icon_discount[CITY_MAX_DESIGNS]; /* icon + 1 a design's discount applies to, or 0 */
};

/* Writes "SOURCE: [card ...: ]REASON." into the parser's err and returns false, so that
 * callers can `return fail(...)`. */
__attribute__((format(printf, 2, 3))) static bool fail(struct parser *p, const char *fmt, ...)
{
    if (!p->err || p->errlen <= 0)
        return false;
    size_t len = (size_t)p->errlen;
    int n;
    if (p->card_id)
        n = snprintf(p->err, len, "%s: card \"%s\": ", p->source, p->card_id);
    else if (p->card_no > 0)
        n = snprintf(p->err, len, "%s: card number %d: ", p->source, p->card_no);
    else
        n = snprintf(p->err, len, "%s: ", p->source);
    if (n < 0 || (size_t)n >= len)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(p->err + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    if (m >= 0 && (size_t)(n + m) + 1 < len)
        memcpy(p->err + n + m, ".", 2);
    return false;
}

/* ---- values ------------------------------------------------------------------------------ */

/* Reads integer member `key` of `obj` into *out when present (else leaves *out alone).
 * Refuses a non-integer or a value outside lo..hi. `in` names the enclosing key in the
 * message, or is NULL for a key of the card itself. */
static bool get_int(struct parser *p, json_t *obj, const char *in, const char *key, long long lo,
                    long long hi, long long *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return true;
    const char *sep = in ? "\" in \"" : "";
    if (!json_is_integer(v))
        return fail(p, "\"%s%s%s\" must be an integer from %lld to %lld", key, sep, in ? in : "",
                    lo, hi);
    long long x = json_integer_value(v);
    if (x < lo || x > hi)
        return fail(p, "\"%s%s%s\" must be an integer from %lld to %lld, not %lld", key, sep,
                    in ? in : "", lo, hi, x);
    *out = x;
    return true;
}

/* Like get_int, but the key must be present. */
static bool need_int(struct parser *p, json_t *obj, const char *in, const char *key, long long lo,
                     long long hi, long long *out)
{
    if (!json_object_get(obj, key))
        return in ? fail(p, "\"%s\" needs the key \"%s\"", in, key)
                  : fail(p, "the required key \"%s\" is missing", key);
    return get_int(p, obj, in, key, lo, hi, out);
}

/* Reads boolean member `key` when present. */
static bool get_bool(struct parser *p, json_t *obj, const char *key, bool *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return true;
    if (!json_is_boolean(v))
        return fail(p, "\"%s\" must be true or false", key);
    *out = json_is_true(v);
    return true;
}

/* Copies string member `key` (1..maxlen-1 bytes, or 0.. when !required) into out[maxlen]. */
static bool get_string(struct parser *p, json_t *obj, const char *key, bool required, char *out,
                       size_t maxlen)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return fail(p, "the required key \"%s\" is missing", key);
        out[0] = '\0';
        return true;
    }
    if (!json_is_string(v))
        return fail(p, "\"%s\" must be a string", key);
    size_t len = json_string_length(v);
    if (len >= maxlen || (required && len == 0) || strlen(json_string_value(v)) != len)
        return fail(p, "\"%s\" must be a string of %d to %zu bytes without NUL characters", key,
                    required ? 1 : 0, maxlen - 1);
    memcpy(out, json_string_value(v), len + 1);
    return true;
}

/* Refuses any member of `obj` not in the NULL-terminated list `allowed`; `what` names the
 * object in the message. */
static bool only_keys(struct parser *p, json_t *obj, const char *const *allowed, const char *what)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        bool ok = false;
        for (int i = 0; allowed[i] && !ok; i++)
            ok = strcmp(key, allowed[i]) == 0;
        if (!ok)
            return fail(p, "unknown key \"%s\" in %s", key, what);
    }
    return true;
}

/* Resolves card id string `v` (member `what`) to a design index in *out. */
static bool card_ref(struct parser *p, json_t *v, const char *what, int *out)
{
    if (!json_is_string(v))
        return fail(p, "\"%s\" must name cards by their id strings", what);
    int d = city_catalog_find(p->cat, json_string_value(v));
    if (d < 0)
        return fail(p, "\"%s\" names no card \"%s\"", what, json_string_value(v));
    *out = d;
    return true;
}

/* Reads member `key`, an icon name, into *out. */
static bool icon_ref(struct parser *p, json_t *obj, const char *key, const char *what, int *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return fail(p, "\"%s\" needs the key \"%s\"", what, key);
    int icon = json_is_string(v) ? icon_from_name(json_string_value(v)) : -1;
    if (icon < 0)
        return fail(p, "\"%s\" \"%s\" must be \"car\", \"shopping\" or \"entertainment\"", what,
                    key);
    *out = icon;
    return true;
}

/* True when `id` is a slug: 1..CITY_ID_LEN-1 characters of [a-z0-9_]. */
static bool is_slug(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n >= CITY_ID_LEN)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') || id[i] == '_'))
            return false;
    return true;
}

/* ---- card parts -------------------------------------------------------------------------- */

/* Reads "icons" into d->icons (prints per icon, at most 3 each). */
static bool parse_icons(struct parser *p, json_t *card, struct city_design *d)
{
    json_t *a = json_object_get(card, "icons");
    if (!a)
        return true;
    if (!json_is_array(a))
        return fail(p, "\"icons\" must be an array of icon names");
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        int icon = json_is_string(v) ? icon_from_name(json_string_value(v)) : -1;
        if (icon < 0) {
            if (json_is_string(v))
                return fail(p,
                            "unknown icon \"%s\" in \"icons\" (use \"car\", \"shopping\" or "
                            "\"entertainment\")",
                            json_string_value(v));
            return fail(p, "\"icons\" must hold only icon name strings");
        }
        if (++d->icons[icon] > 3)
            return fail(p, "\"icons\" prints \"%s\" more than 3 times", icon_names[icon]);
    }
    return true;
}

/* Reads "requires" into d->requires: 1..CITY_MAX_REQUIRES distinct existing designs other
 * than `self`. */
static bool parse_requires(struct parser *p, json_t *card, int self, struct city_design *d)
{
    json_t *a = json_object_get(card, "requires");
    if (!a)
        return true;
    if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > CITY_MAX_REQUIRES)
        return fail(p, "\"requires\" must be an array of 1 to %d card ids", CITY_MAX_REQUIRES);
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        int r;
        if (!card_ref(p, v, "requires", &r))
            return false;
        if (r == self)
            return fail(p, "\"requires\" names the card itself");
        for (int k = 0; k < d->nrequires; k++)
            if (d->requires[k] == r)
                return fail(p, "\"requires\" names \"%s\" twice", p->cat->designs[r].id);
        d->requires[d->nrequires++] = (uint8_t)r;
    }
    return true;
}

/* Reads "discount" into d->discount and d->discount_to (an icon discount is only noted here
 * and resolved by resolve_icon_discounts()); marks `self` in cat->discount_designs. */
static bool parse_discount(struct parser *p, json_t *card, int self, struct city_design *d)
{
    json_t *o = json_object_get(card, "discount");
    if (!o)
        return true;
    if (!json_is_object(o))
        return fail(p, "\"discount\" must be an object with \"amount\" and \"cards\" or \"icon\"");
    static const char *const keys[] = {"amount", "cards", "icon", NULL};
    if (!only_keys(p, o, keys, "\"discount\""))
        return false;
    long long amount = 0;
    if (!need_int(p, o, "discount", "amount", 1, CITY_MAX_COST, &amount))
        return false;
    json_t *cards = json_object_get(o, "cards");
    bool has_icon = json_object_get(o, "icon") != NULL;
    if ((cards != NULL) == has_icon)
        return fail(p, "\"discount\" must have exactly one of \"cards\" and \"icon\"");
    d->discount = (int8_t)amount;
    p->cat->discount_designs |= 1ULL << self;
    if (has_icon) {
        int icon;
        if (!icon_ref(p, o, "icon", "discount", &icon))
            return false;
        p->icon_discount[self] = icon + 1; /* resolved once every design's icons are known */
        return true;
    }
    if (!json_is_array(cards) || json_array_size(cards) < 1)
        return fail(p, "\"discount\" \"cards\" must be a non-empty array of card ids");
    size_t i;
    json_t *v;
    json_array_foreach(cards, i, v)
    {
        int t;
        if (!card_ref(p, v, "discount", &t))
            return false;
        if (d->discount_to & (1ULL << t))
            return fail(p, "\"discount\" names \"%s\" twice", p->cat->designs[t].id);
        d->discount_to |= 1ULL << t;
    }
    return true;
}

/* Parses member `key` ("vp_per" or "income_per") into *v. */
static bool parse_variable(struct parser *p, json_t *card, const char *key, struct city_variable *v)
{
    json_t *o = json_object_get(card, key);
    if (!o)
        return true;
    if (!json_is_object(o))
        return fail(p, "\"%s\" must be an object with a \"kind\"", key);
    static const struct {
        const char *name;
        int kind;
        const char *arg; /* the one extra key the kind needs, or NULL */
    } kinds[] = {
        {"icon", CITY_VAR_ICON, "icon"},
        {"icon_with_other", CITY_VAR_ICON_WITH_OTHER, "icon"},
        {"other_copy", CITY_VAR_OTHER_COPY, NULL},
        {"card_own", CITY_VAR_CARD_OWN, "card"},
        {"card_all", CITY_VAR_CARD_ALL, "card"},
    };
    json_t *k = json_object_get(o, "kind");
    const char *kname = json_is_string(k) ? json_string_value(k) : NULL;
    int which = -1;
    for (int i = 0; kname && i < (int)(sizeof kinds / sizeof kinds[0]); i++)
        if (strcmp(kname, kinds[i].name) == 0)
            which = i;
    if (which < 0)
        return fail(p,
                    "\"%s\" \"kind\" must be \"icon\", \"icon_with_other\", \"other_copy\", "
                    "\"card_own\" or \"card_all\"",
                    key);
    const char *arg = kinds[which].arg;
    const char *kv;
    json_t *val;
    json_object_foreach(o, kv, val)
    {
        if (strcmp(kv, "kind") != 0 && strcmp(kv, "amount") != 0 && !(arg && strcmp(kv, arg) == 0))
            return fail(p, "unknown key \"%s\" in \"%s\" of kind \"%s\"", kv, key, kname);
    }
    long long amount = 1;
    if (!get_int(p, o, key, "amount", 1, 10, &amount))
        return false;
    v->kind = (uint8_t)kinds[which].kind;
    v->amount = (int8_t)amount;
    if (arg && strcmp(arg, "icon") == 0) {
        int icon;
        if (!icon_ref(p, o, "icon", key, &icon))
            return false;
        v->icon = (uint8_t)icon;
    } else if (arg) {
        json_t *c = json_object_get(o, "card");
        if (!c)
            return fail(p, "\"%s\" of kind \"%s\" needs the key \"card\"", key, kname);
        int d;
        if (!card_ref(p, c, key, &d))
            return false;
        v->card = (uint8_t)d;
    }
    return true;
}

/* Checks that contractor design `self` is exactly the card the rules describe and the only
 * one, and records it as cat->contractor_design. */
static bool check_contractor(struct parser *p, int self, const struct city_design *d)
{
    if (p->cat->contractor_design >= 0)
        return fail(p,
                    "a second card has \"contractor\": true (card \"%s\" already has it); "
                    "exactly one may",
                    p->cat->designs[p->cat->contractor_design].id);
    if (d->count != CITY_CONTRACTORS)
        return fail(p,
                    "a contractor must have \"count\" %d (the deck has exactly %d General "
                    "Contractors), not %d",
                    CITY_CONTRACTORS, CITY_CONTRACTORS, d->count);
    if (d->cost != 0 || d->vp != 0 || d->income != 1)
        return fail(p, "a contractor must have cost 0, vp 0 and income 1");
    if (d->icons[0] || d->icons[1] || d->icons[2] || d->limit || d->nrequires || d->discount ||
        d->vp_var.kind || d->income_var.kind || d->construction_gang)
        return fail(p, "a contractor may have no icons, limit, requires, discount, vp_per, "
                       "income_per or construction_gang");
    p->cat->contractor_design = self;
    return true;
}

/* Parses card object `card`, design index `self`, whose id pass one has already checked. */
static bool parse_card(struct parser *p, json_t *card, int self)
{
    static const char *const keys[] = {
        "id",         "name",  "text",     "count",    "cost",   "vp",         "income",
        "icons",      "limit", "requires", "discount", "vp_per", "income_per", "construction_gang",
        "contractor", NULL};
    struct city_design *d = &p->cat->designs[self];
    if (!only_keys(p, card, keys, "a card"))
        return false;
    if (!get_string(p, card, "name", true, d->name, sizeof d->name) ||
        !get_string(p, card, "text", false, d->text, sizeof d->text))
        return false;
    long long count = 0, cost = 0, vp = 0, income = 0, limit = 0;
    if (!need_int(p, card, NULL, "count", 1, CITY_DECK_SIZE - CITY_CONTRACTORS, &count) ||
        !need_int(p, card, NULL, "cost", 0, CITY_MAX_COST, &cost) ||
        !get_int(p, card, NULL, "vp", 0, 30, &vp) ||
        !get_int(p, card, NULL, "income", 0, 10, &income) ||
        !get_int(p, card, NULL, "limit", 1, 5, &limit))
        return false;
    d->count = (uint8_t)count;
    d->cost = (int8_t)cost;
    d->vp = (int8_t)vp;
    d->income = (int8_t)income;
    d->limit = (uint8_t)limit;
    if (!parse_icons(p, card, d) || !parse_requires(p, card, self, d) ||
        !parse_discount(p, card, self, d) || !parse_variable(p, card, "vp_per", &d->vp_var) ||
        !parse_variable(p, card, "income_per", &d->income_var) ||
        !get_bool(p, card, "construction_gang", &d->construction_gang) ||
        !get_bool(p, card, "contractor", &d->contractor))
        return false;
    if (d->construction_gang && d->cost > CITY_DOUBLE_MAX_COST)
        return fail(p, "a construction gang must cost at most %d, not %d", CITY_DOUBLE_MAX_COST,
                    d->cost);
    if (d->contractor && !check_contractor(p, self, d))
        return false;
    return true;
}

/* ---- the catalog ------------------------------------------------------------------------- */

/* Pass one: every card is an object with a valid, unique id; copies the ids in. */
static bool read_ids(struct parser *p, json_t *cards)
{
    size_t i;
    json_t *card;
    json_array_foreach(cards, i, card)
    {
        p->card_no = (int)i + 1;
        p->card_id = NULL;
        if (!json_is_object(card))
            return fail(p, "a card must be a JSON object");
        json_t *id = json_object_get(card, "id");
        if (!id)
            return fail(p, "the required key \"id\" is missing");
        if (!json_is_string(id))
            return fail(p, "\"id\" must be a string");
        const char *s = json_string_value(id);
        if (!is_slug(s) || strlen(s) != json_string_length(id))
            return fail(p, "\"id\" \"%s\" must be 1 to %d characters of a-z, 0-9 and _", s,
                        CITY_ID_LEN - 1);
        p->card_id = s;
        int prev = city_catalog_find(p->cat, s);
        if (prev >= 0)
            return fail(p, "duplicate id (card number %d has it too)", prev + 1);
        memcpy(p->cat->designs[i].id, s, strlen(s) + 1);
        p->cat->ndesigns = (int)i + 1;
    }
    return true;
}

/* Applies the icon discounts now that every design's icons are known. */
static void resolve_icon_discounts(struct parser *p)
{
    struct city_catalog *cat = p->cat;
    for (int d = 0; d < cat->ndesigns; d++) {
        if (!p->icon_discount[d])
            continue;
        int icon = p->icon_discount[d] - 1;
        for (int t = 0; t < cat->ndesigns; t++)
            if (cat->designs[t].icons[icon])
                cat->designs[d].discount_to |= 1ULL << t;
    }
}

/* Checks the deck as a whole and numbers the card instances. */
static bool expand_deck(struct parser *p)
{
    struct city_catalog *cat = p->cat;
    p->card_id = NULL;
    p->card_no = 0;
    if (cat->contractor_design < 0)
        return fail(p, "no card has \"contractor\": true; exactly one card must be the General "
                       "Contractor");
    int total = 0;
    for (int d = 0; d < cat->ndesigns; d++)
        total += cat->designs[d].count;
    if (total != CITY_DECK_SIZE)
        return fail(p, "the counts add up to %d cards; the deck must have exactly %d", total,
                    CITY_DECK_SIZE);
    int n = 0;
    for (int d = 0; d < cat->ndesigns; d++)
        for (int c = 0; c < cat->designs[d].count; c++)
            cat->card_design[n++] = (uint8_t)d;
    return true;
}

/* Parses the whole document `root` into p->cat. */
static bool parse_root(struct parser *p, json_t *root)
{
    if (!json_is_object(root))
        return fail(p, "the file must be a JSON object with \"format\" and \"cards\"");
    static const char *const keys[] = {"format", "cards", NULL};
    if (!only_keys(p, root, keys, "the top level"))
        return false;
    json_t *format = json_object_get(root, "format");
    if (!json_is_integer(format) || json_integer_value(format) != 1)
        return fail(p, "\"format\" must be 1");
    json_t *cards = json_object_get(root, "cards");
    if (!json_is_array(cards))
        return fail(p, "\"cards\" must be an array of cards");
    if (json_array_size(cards) > CITY_MAX_DESIGNS)
        return fail(p, "too many designs: %zu cards in \"cards\", at most %d",
                    json_array_size(cards), CITY_MAX_DESIGNS);
    if (!read_ids(p, cards))
        return false;
    size_t i;
    json_t *card;
    json_array_foreach(cards, i, card)
    {
        p->card_no = (int)i + 1;
        p->card_id = p->cat->designs[i].id;
        if (!parse_card(p, card, (int)i))
            return false;
    }
    resolve_icon_discounts(p);
    if (!expand_deck(p))
        return false;
    city_catalog_derive(p->cat);
    return true;
}

void city_catalog_derive(struct city_catalog *cat)
{
    cat->vp_var_designs = cat->income_var_designs = cat->gang_designs = 0;
    cat->gang_cards[0] = cat->gang_cards[1] = 0;
    memset(cat->hot, 0, sizeof cat->hot);
    for (int d = 0; d < cat->ndesigns; d++) {
        const struct city_design *x = &cat->designs[d];
        struct city_hot *h = &cat->hot[d];
        h->cost = x->cost;
        h->vp = x->vp;
        h->income = x->income;
        memcpy(h->icons, x->icons, sizeof h->icons);
        h->discount = x->discount;
        h->limit = x->limit;
        h->contractor = x->contractor;
        h->construction_gang = x->construction_gang;
        for (int r = 0; r < x->nrequires; r++)
        h->requires |= 1ULL << x->requires[r];
        for (int o = 0; o < cat->ndesigns; o++)
            if (cat->designs[o].discount && (cat->designs[o].discount_to & (1ULL << d)))
                h->discounted_by |= 1ULL << o;
        if (cat->designs[d].vp_var.kind != CITY_VAR_NONE)
            cat->vp_var_designs |= 1ULL << d;
        if (cat->designs[d].income_var.kind != CITY_VAR_NONE)
            cat->income_var_designs |= 1ULL << d;
        if (x->construction_gang)
            cat->gang_designs |= 1ULL << d;
    }
    for (int card = 0; card < CITY_DECK_SIZE; card++)
        if (cat->gang_designs & (1ULL << cat->card_design[card]))
            cat->gang_cards[card >> 6] |= 1ULL << (card & 63);
}

bool city_catalog_from_json(struct city_catalog *cat, const char *text, const char *source,
                            char *err, int errlen)
{
    struct parser p = {
        .cat = cat, .source = source ? source : "cards", .err = err, .errlen = errlen};
    if (err && errlen > 0)
        err[0] = '\0';
    memset(cat, 0, sizeof *cat);
    cat->contractor_design = -1;
    if (!text)
        return fail(&p, "no text to parse");
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (err && errlen > 0)
            snprintf(err, (size_t)errlen, "%s:%d:%d: invalid JSON: %s.", p.source, je.line,
                     je.column, je.text);
        return false;
    }
    bool ok = parse_root(&p, root);
    json_decref(root);
    return ok;
}
