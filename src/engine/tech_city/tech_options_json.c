/* tech_options_json.c: the "options" of a Tech City seat's pending decision in its hand view:
 * every legal choice at the point, with what each would score, so that a client presents them
 * with no rule of its own (docs/tech_city.md, "Your options"). The rules are asked, never
 * repeated: the payment rule (tech_pay_counts(), tech_pays_alone()), the points a build scores
 * (tech_match_points(), tech_neighbour_point()), and which effects can be used with which choices
 * (tech_use_option(), tech_choice_check()). */
#include "tech_json.h"
#include "tech_json_util.h"

#include "tech_bots.h"
#include "tech_effects.h"
#include "tech_internal.h"

/* The distinct (value, domain) of the cards in play, in the city's order: what a wild card may
 * name. Returns how many, written to values/domains. */
static int wild_names(const struct tech_game *g, int8_t *values, int8_t *domains)
{
    int n = 0;
    for (int i = 0; i < g->ncity; i++) {
        const struct tech_design *d = tech_design_of(g, g->city[i]);
        bool dup = false;
        for (int m = 0; m < n && !dup; m++)
            dup = values[m] == d->value && domains[m] == d->domain;
        if (!dup) {
            values[n] = d->value;
            domains[n++] = d->domain;
        }
    }
    return n;
}

/* Where a build point stands for seat: the open cells and their neighbour point, the names a
 * wild card may take. */
struct build_ctx {
    const struct tech_game *g;
    int seat;
    int ncells;
    int8_t xs[TECH_MAX_CELLS], ys[TECH_MAX_CELLS];
    uint8_t near[TECH_MAX_CELLS];
    int nnames;
    int8_t values[TECH_MAX_CARDS], domains[TECH_MAX_CARDS];
};

static json_t *name_json(int value, int domain)
{
    return json_pack("{s:i, s:s}", "value", value, "domain", tech_domain_name(domain));
}

/* One legal build of hand card `card` (payable): {"id", "card", "pay_counts", "pays_alone",
 * "pay", "scores"}, scores[k] what it scores built in the k-th open cell; a wild card adds "as"
 * (the name its scores assume) and "names". */
static json_t *build_json(const struct build_ctx *b, int card)
{
    const struct tech_game *g = b->g;
    const struct tech_seat *s = &g->seats[b->seat];
    const struct tech_design *d = tech_design_of(g, card);
    unsigned counts = tech_pay_counts(g, b->seat, card);
    json_t *o = json_object(), *pc = json_array(), *alone = json_array(), *scores = json_array();
    json_object_set_new(o, "id", json_integer(card));
    json_object_set_new(o, "card", json_string(d->id));
    for (int n = 0; n <= 2; n++)
        if (counts & 1u << n)
            json_array_append_new(pc, json_integer(n));
    for (int i = 0; i < s->nhand; i++)
        if (s->hand[i] != card && tech_pays_alone(g, b->seat, card, s->hand[i]))
            json_array_append_new(alone, json_integer(s->hand[i]));
    struct tech_decision pay;
    tech_decision_init(&pay);
    tech_bot_payment(g, b->seat, card, &pay);
    json_object_set_new(o, "pay_counts", pc);
    json_object_set_new(o, "pays_alone", alone);
    json_object_set_new(o, "pay", ids_json(pay.pay, pay.npay));
    /* What the card scores apart from its cell: a wild card names the card in play that scores
     * most (the first of them), and says what each name would score. */
    int base = 0;
    if (d->domain == DOMAIN_WILD) {
        json_t *names = json_array();
        int best = -1;
        for (int k = 0; k < b->nnames; k++) {
            int pts = tech_match_points(g, b->seat, b->values[k], b->domains[k]);
            json_t *nj = name_json(b->values[k], b->domains[k]);
            json_object_set_new(nj, "score", json_integer(pts));
            json_array_append_new(names, nj);
            if (best < 0 || pts > base) {
                best = k;
                base = pts;
            }
        }
        json_object_set_new(o, "as",
                            best < 0 ? json_null() : name_json(b->values[best], b->domains[best]));
        json_object_set_new(o, "names", names);
    } else {
        base = tech_match_points(g, b->seat, d->value, d->domain);
    }
    for (int k = 0; k < b->ncells; k++) {
        int score = base + b->near[k];
        if (d->domain == DOMAIN_SERVICE && score < 1)
            score = 1; /* a service scores at least 1 for its builder, once built */
        json_array_append_new(scores, json_integer(score));
    }
    json_object_set_new(o, "scores", scores);
    return o;
}

static json_t *build_options(const struct tech_game *g, int seat)
{
    static _Thread_local struct build_ctx b;
    b.g = g;
    b.seat = seat;
    b.ncells = tech_open_cells(g, b.xs, b.ys, TECH_MAX_CELLS);
    b.nnames = wild_names(g, b.values, b.domains);
    json_t *cells = json_array(), *names = json_array();
    for (int k = 0; k < b.ncells; k++) {
        b.near[k] = (uint8_t)tech_neighbour_point(g, seat, b.xs[k], b.ys[k]);
        json_t *c = cell_json(b.xs[k], b.ys[k]);
        json_object_set_new(c, "near", json_boolean(b.near[k]));
        json_array_append_new(cells, c);
    }
    for (int k = 0; k < b.nnames; k++)
        json_array_append_new(names, name_json(b.values[k], b.domains[k]));
    json_t *builds = json_array(), *unbuildable = json_array();
    const struct tech_seat *s = &g->seats[seat];
    for (int i = 0; i < s->nhand; i++) {
        int card = s->hand[i];
        if (b.ncells > 0 && tech_build_payable(g, seat, card))
            json_array_append_new(builds, build_json(&b, card));
        else
            json_array_append_new(unbuildable,
                                  json_pack("{s:i, s:s, s:s}", "id", card, "card", slug(g, card),
                                            "reason",
                                            tech_error_code(b.ncells > 0 ? TECH_ERR_PAYMENT
                                                                         : TECH_ERR_NOT_ADJACENT)));
    }
    int tech = tech_controls(g, seat, DOMAIN_TECHNOLOGY);
    return json_pack("{s:o, s:s, s:o, s:o, s:o}", "cells", cells, "payment",
                     tech >= 2   ? "free"
                     : tech == 1 ? "one_any"
                                 : "one_cheap_or_two",
                     "wild_names", names, "builds", builds, "unbuildable", unbuildable);
}

/* The legal values of each choice the use of `card` takes, keyed as the order names them. */
static json_t *choices_json(const struct tech_game *g, int seat, int card, unsigned want)
{
    json_t *o = json_object();
    const struct tech_seat *s = &g->seats[seat];
    if (want & CHOICE_CARD) {
        json_t *a = json_array();
        for (int i = 0; i < s->nhand; i++)
            if (tech_choice_check(g, seat, card, CHOICE_CARD, s->hand[i]) == TECH_OK)
                json_array_append_new(a, json_integer(s->hand[i]));
        json_object_set_new(o, "card", a);
    }
    if (want & CHOICE_TAKE) {
        json_t *a = json_array();
        for (int i = 0; i < g->ndiscard; i++)
            if (tech_choice_check(g, seat, card, CHOICE_TAKE, g->discard[i]) == TECH_OK)
                json_array_append_new(a, json_integer(g->discard[i]));
        json_object_set_new(o, "take", a);
    }
    static const struct {
        unsigned which;
        const char *key;
    } cells[] = {{CHOICE_TARGET, "target"}, {CHOICE_TO, "to"}};
    for (int k = 0; k < 2; k++) {
        if (!(want & cells[k].which))
            continue;
        json_t *a = json_array();
        for (int i = 0; i < g->ncity; i++) {
            int c = g->city[i];
            if (tech_choice_check(g, seat, card, cells[k].which, c) == TECH_OK)
                json_array_append_new(a, cell_json(g->cx[c], g->cy[c]));
        }
        json_object_set_new(o, cells[k].key, a);
    }
    if (want & CHOICE_VICTIM) {
        json_t *a = json_array();
        for (int v = 0; v < g->players; v++)
            if (tech_choice_check(g, seat, card, CHOICE_VICTIM, v) == TECH_OK)
                json_array_append_new(a, json_integer(v));
        json_object_set_new(o, "victim", a);
    }
    return o;
}

static json_t *effect_options(const struct tech_game *g, int seat)
{
    /* the cards whose effect the seat may use now: "cells" for the normal use, "free_cells" for
     * the free one (whatever their choices), and "uses", each use that some order can make */
    bool normal = !g->seats[seat].used_normal;
    json_t *cells = json_array(), *free_cells = json_array(), *owner_cells = json_array();
    json_t *uses = json_array();
    for (int i = 0; i < g->ncity; i++) {
        int c = g->city[i];
        bool n = tech_use_open(g, seat, c, false) == TECH_OK;
        bool f = tech_use_open(g, seat, c, true) == TECH_OK;
        if (n)
            json_array_append_new(cells, cell_json(g->cx[c], g->cy[c]));
        if (n && g->owner[c] != TECH_NONE && g->owner[c] != seat)
            json_array_append_new(owner_cells, cell_json(g->cx[c], g->cy[c]));
        if (f)
            json_array_append_new(free_cells, cell_json(g->cx[c], g->cy[c]));
        struct tech_use_option u;
        if (!tech_use_option(g, seat, c, &u))
            continue;
        json_array_append_new(uses, json_pack("{s:i, s:i, s:i, s:s, s:b, s:b, s:b, s:i, s:o}", "x",
                                              g->cx[c], "y", g->cy[c], "id", c, "card", slug(g, c),
                                              "normal", u.normal, "free", u.free, "owner_first",
                                              u.owner_first, "score", u.points, "choices",
                                              choices_json(g, seat, c, u.choices)));
    }
    bool free = json_array_size(free_cells) > 0; /* two Knowledge companies: two cells */
    return json_pack("{s:b, s:b, s:o, s:o, s:o, s:o}", "normal", normal, "free", free, "cells",
                     cells, "free_cells", free_cells, "owner_cells", owner_cells, "uses", uses);
}

json_t *tech_options_json(const struct tech_game *g, int seat)
{
    switch (g->step) {
    case TECH_STEP_BUILD:
        return build_options(g, seat);
    case TECH_STEP_HELP:
        return json_pack("{s:i, s:s}", "builder", g->actor, "card", slug(g, g->build.card));
    case TECH_STEP_EFFECT:
        return effect_options(g, seat);
    case TECH_STEP_OWNER:
        return json_pack("{s:i, s:s}", "user", g->run.user, "card", slug(g, g->run.card));
    case TECH_STEP_CHOOSE:
        return json_pack("{s:s, s:i}", "kind",
                         g->choose_kind == CHOOSE_REVEALED ? "take_revealed" : "discard", "count",
                         tech_cards_wanted(g, seat));
    case TECH_STEP_DISCARD:
        return json_pack("{s:i}", "count", tech_cards_wanted(g, seat));
    default:
        return json_object();
    }
}
