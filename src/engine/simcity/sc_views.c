/* sc_views.c: what SimCity shows — the public view everyone may see, a seat's private view with
 * its hand and its pending decision's legal options (each play with its mode and what a block
 * would score), and the catalog for clients (see sc_json.h). */
#include <stdlib.h>
#include <string.h>

#include "ruleset.h"
#include "sc_json.h"

static json_t *card_json(const struct sc_game *g, int card)
{
    return json_pack("{s:i, s:s}", "id", card, "card", sc_design_of(g, card)->id);
}

static json_t *cards_json(const struct sc_game *g, const uint8_t *cards, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, card_json(g, cards[i]));
    return a;
}

static json_t *seat_or_null(int seat)
{
    return seat == SC_NONE ? json_null() : json_integer(seat);
}

json_t *sc_seats_json(unsigned mask)
{
    json_t *a = json_array();
    for (int s = 0; s < SC_MAX_PLAYERS; s++)
        if (mask & (1u << s))
            json_array_append_new(a, json_integer(s));
    return a;
}

/* The cells holding cards or scorched, in reading order; each stack from the bottom up. */
static json_t *city_json(const struct sc_game *g)
{
    json_t *cells = json_array();
    for (int y = 0; y < g->side; y++)
        for (int x = 0; x < g->side; x++) {
            int c = sc_cell(g, x, y);
            if (g->top[c] == SC_NONE && !g->scorched[c])
                continue;
            uint8_t stack[SC_MAX_CARDS];
            int n = 0;
            for (int k = g->top[c]; k != SC_NONE; k = g->below[k])
                stack[n++] = (uint8_t)k;
            json_t *cards = json_array();
            for (int i = n - 1; i >= 0; i--) {
                json_t *e = card_json(g, stack[i]);
                json_object_set_new(e, "overturned",
                                    json_boolean(g->flags[stack[i]] & SC_CF_OVERTURNED));
                if (g->flags[stack[i]] & SC_CF_DOOMED)
                    json_object_set_new(e, "doomed", json_true());
                json_array_append_new(cards, e);
            }
            json_array_append_new(
                cells, json_pack("{s:i, s:i, s:o, s:o, s:b}", "x", x, "y", y, "block",
                                 g->block[c] == SC_NONE ? json_null() : card_json(g, g->block[c]),
                                 "stack", cards, "scorched", g->scorched[c]));
        }
    return cells;
}

static json_t *seats_json(const struct sc_game *g)
{
    json_t *seats = json_array();
    for (int s = 0; s < g->players; s++) {
        const struct sc_seat *st = &g->seats[s];
        json_t *council = json_array();
        for (int i = 0; i < st->ncouncil; i++) {
            const struct sc_design *m = sc_design_of(g, st->council[i]);
            json_t *e = card_json(g, st->council[i]);
            json_object_set_new(e, "votes", json_integer(m->votes));
            if (m->corrupt)
                json_object_set_new(e, "vote",
                                    json_string(m->vote == SC_BALLOT_YES ? "yes" : "no"));
            json_array_append_new(council, e);
        }
        json_t *earned = json_object();
        for (int k = 0; k < SC_SRC_COUNT; k++)
            json_object_set_new(earned, sc_source_name(k), json_integer(st->earned[k]));
        json_array_append_new(seats, json_pack("{s:i, s:i, s:i, s:o, s:i, s:o}", "seat", s, "money",
                                               st->money, "hand_count", st->nhand, "council",
                                               council, "turns", st->turns, "earned", earned));
    }
    return seats;
}

static json_t *politics_json(const struct sc_game *g, json_t *view)
{
    json_t *timed = json_array();
    for (int i = 0; i < g->ntimed; i++) {
        const struct sc_timed *t = &g->timed[i];
        const struct sc_effect *e = &sc_design_of(g, t->card)->effects[t->effect];
        json_t *o = card_json(g, t->card);
        json_object_set_new(o, "effect", json_string(sc_effect_name(e->kind)));
        json_object_set_new(o, "player", json_integer(t->player));
        json_object_set_new(o, "until_turn", json_integer(t->until));
        if (t->x >= 0)
            json_object_update_new(o, json_pack("{s:i, s:i}", "x", t->x, "y", t->y));
        json_array_append_new(timed, o);
    }
    json_t *bills = json_array();
    for (int i = 0; i < g->nbills; i++)
        json_array_append_new(bills,
                              json_pack("{s:o, s:i}", "card",
                                        g->bills[i].card == SC_NONE
                                            ? json_null()
                                            : json_string(sc_design_of(g, g->bills[i].card)->id),
                                        "amount", g->bills[i].amount));
    const struct sc_vote *v = &g->vote;
    json_t *vote = !v->active ? json_null()
                              : json_pack("{s:i, s:o, s:i, s:i, s:i, s:i}", "proposer", v->proposer,
                                          "card", card_json(g, v->card), "x", v->x, "y", v->y,
                                          "yes", v->yes, "no", v->no);
    json_t *election = json_null();
    if (g->elect.active) {
        json_t *votes = json_array();
        for (int s = 0; s < g->players; s++)
            json_array_append_new(votes, json_integer(g->elect.votes[s]));
        election = json_pack("{s:i, s:o, s:i}", "outgoing", g->elect.outgoing, "votes", votes,
                             "passes", g->elect.passes);
    }
    json_object_set_new(view, "timed", timed);
    json_object_set_new(view, "bills", bills);
    json_object_set_new(view, "vote", vote);
    json_object_set_new(view, "election", election);
    return view;
}

json_t *sc_public_view(const struct sc_game *g)
{
    json_t *v = json_pack(
        "{s:i, s:i, s:s, s:i, s:i, s:i, s:i, s:b, s:o, s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:b}",
        "players", g->players, "round", g->round, "step", sc_step_name(g->step), "turn", g->turn,
        "actor", g->actor, "first", g->first, "phase", g->phase, "power_played", g->power_played,
        "mayor", seat_or_null(g->mayor), "target",
        g->target ? json_integer(g->target) : json_null(), "side", g->side, "deck_count", g->ndeck,
        "discard", cards_json(g, g->discard, g->ndiscard), "city", city_json(g), "seats",
        seats_json(g), "pending", sc_seats_json(g->pending), "over", sc_over(g));
    politics_json(g, v);
    if (sc_over(g))
        json_object_update_new(v, json_pack("{s:o, s:s, s:o}", "winners", sc_seats_json(g->winners),
                                            "end_reason", sc_end_name(g->end_reason), "seed",
                                            ruleset_u64_json(g->seed)));
    return v;
}

/* An order body's own fields (round, step and turn left out). */
static json_t *option_json(const struct sc_decision *d)
{
    json_t *o = json_object();
    sc_decision_fields(o, d);
    return o;
}

static json_t *pending_json(const struct sc_game *g, int seat)
{
    json_t *p = json_pack("{s:i, s:s, s:i}", "round", g->round, "step", sc_step_name(g->step),
                          "turn", g->turn);
    json_t *options = json_array();
    if (g->step == SC_STEP_PLAY) {
        struct sc_decision pass;
        sc_decision_init(&pass);
        pass.kind = SC_DEC_PASS;
        json_array_append_new(options, option_json(&pass));
        int n = sc_play_options(g, seat, NULL, 0, false);
        struct sc_option *opts = malloc((size_t)(n > 0 ? n : 1) * sizeof *opts);
        n = opts ? sc_play_options(g, seat, opts, n, true) : 0;
        for (int i = 0; i < n; i++) {
            struct sc_decision d;
            sc_decision_init(&d);
            d.kind = SC_DEC_PLAY;
            d.card = opts[i].card;
            d.x = opts[i].x;
            d.y = opts[i].y;
            json_t *o = option_json(&d);
            json_object_set_new(o, "mode", json_string(sc_mode_name(opts[i].mode)));
            if (opts[i].mode != SC_MODE_EVENT)
                json_object_set_new(o, "score", json_integer(opts[i].score));
            json_array_append_new(options, o);
        }
        free(opts);
    } else {
        int n = sc_legal(g, seat, NULL, 0);
        struct sc_decision *all = malloc((size_t)(n > 0 ? n : 1) * sizeof *all);
        n = all ? sc_legal(g, seat, all, n) : 0;
        for (int i = 0; i < n; i++)
            json_array_append_new(options, option_json(&all[i]));
        free(all);
    }
    json_object_set_new(p, "options", options);
    if (g->step == SC_STEP_VOTE)
        json_object_set_new(p, g->vote.next >= g->players ? "mayor" : "ballots",
                            g->vote.next >= g->players ? json_true()
                                                       : json_integer(g->seats[seat].ncouncil));
    if (g->step == SC_STEP_ELECTION)
        json_object_set_new(p, "max_votes", json_integer(g->seats[seat].money));
    if (g->step == SC_STEP_MAYOR_PAY && g->nbills)
        json_object_set_new(p, "bill", json_integer(g->bills[0].amount));
    return p;
}

json_t *sc_private_view(const struct sc_game *g, int seat)
{
    if (seat < 0 || seat >= g->players)
        return NULL;
    json_t *v = sc_public_view(g);
    const struct sc_seat *st = &g->seats[seat];
    json_object_set_new(v, "seat", json_integer(seat));
    json_object_set_new(v, "hand", cards_json(g, st->hand, st->nhand));
    json_object_set_new(v, "pending", sc_pending(g, seat) ? pending_json(g, seat) : json_null());
    return v;
}

static const char *edges_name(uint8_t e)
{
    return e == (SC_EDGE_N | SC_EDGE_S)   ? "NS"
           : e == (SC_EDGE_E | SC_EDGE_W) ? "EW"
           : e                            ? "NESW"
                                          : "";
}

json_t *sc_catalog_json(const struct sc_catalog *cat)
{
    json_t *cards = json_array();
    for (int k = 0; k < cat->ndesigns; k++) {
        const struct sc_design *d = &cat->designs[k];
        json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:{s:i, s:i}}", "id", d->id, "name",
                              d->name, "kind", sc_kind_name(d->kind), "phase", d->phase, "text",
                              d->text, "copies", "base", d->copies_base, "pack", d->copies_pack);
        if (d->kind == SC_KIND_BLOCK) {
            json_object_update_new(o, json_pack("{s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:b, s:b}",
                                                "zone", sc_zone_name(d->zone), "value", d->value,
                                                "sims", d->sims, "crime", d->crime, "pollution",
                                                d->pollution, "road", edges_name(d->road), "rail",
                                                edges_name(d->rail), "power", d->power,
                                                "power_plant", d->power_plant));
            if (d->zone == SC_ZONE_LAND)
                json_object_set_new(o, "land", json_string(sc_land_name(d->land)));
            if (d->complex >= 0)
                json_object_set_new(o, "complex",
                                    json_pack("{s:s, s:i, s:b, s:i}", "name",
                                              cat->complexes[d->complex], "bonus", d->cbonus,
                                              "if_sims", d->cif_sims, "within", d->cwithin));
        } else if (d->kind == SC_KIND_EVENT) {
            json_t *effects = json_array();
            for (int i = 0; i < d->neffects; i++)
                json_array_append_new(effects, json_string(sc_effect_name(d->effects[i].kind)));
            json_object_update_new(o,
                                   json_pack("{s:s, s:o, s:b}", "hazard", sc_hazard_name(d->hazard),
                                             "effects", effects, "chooses_block", d->targeted));
        } else {
            json_object_update_new(o, json_pack("{s:i, s:i, s:b}", "cost", d->cost, "votes",
                                                d->votes, "corrupt", d->corrupt));
            if (d->corrupt)
                json_object_set_new(o, "vote",
                                    json_string(d->vote == SC_BALLOT_YES ? "yes" : "no"));
        }
        json_array_append_new(cards, o);
    }
    return json_pack("{s:i, s:i, s:o}", "base_size", cat->base_size, "pack_size", cat->pack_size,
                     "cards", cards);
}
