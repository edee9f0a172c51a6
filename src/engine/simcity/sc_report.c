/* sc_report.c: SimCity's self-play figures as JSON (see sc_report.h). */
#include "sc_report.h"

static double share(long long n, long long games)
{
    return games ? (double)n / (double)games : 0;
}

/* A share rounded to 3 places, as JSON. */
static json_t *frac(double x)
{
    return json_real((double)(long long)(x * 1000 + (x < 0 ? -0.5 : 0.5)) / 1000);
}

json_t *sc_sim_report(const struct sc_catalog *cat, const struct sc_sim_result *r)
{
    long long n = r->games;
    int p = r->players;
    json_t *o = json_object();
    json_object_set_new(o, "players", json_integer(p));
    json_object_set_new(o, "games", json_integer(n));
    json_object_set_new(o, "deck_size", json_integer(sc_deck_size(cat, p)));
    json_t *ends = json_object();
    for (int k = SC_END_TARGET; k < SC_END_COUNT; k++)
        json_object_set_new(ends, sc_end_name(k), frac(share(r->end_reasons[k], n)));
    json_object_set_new(o, "end_reasons", ends);
    json_t *turns = json_object();
    json_object_set_new(turns, "median", json_integer(sc_sim_median_turns(r)));
    json_object_set_new(turns, "p10", json_integer(sc_sim_turns_quantile(r, 0.1)));
    json_object_set_new(turns, "p90", json_integer(sc_sim_turns_quantile(r, 0.9)));
    json_object_set_new(turns, "min", json_integer(n ? r->min_turns : 0));
    json_object_set_new(turns, "max", json_integer(r->max_turns));
    json_object_set_new(turns, "in_20_30", frac(sc_sim_turns_share(r, 20, 30)));
    json_object_set_new(o, "turns_per_player", turns);
    json_t *rounds = json_object();
    json_object_set_new(rounds, "avg", frac(n ? (double)r->rounds_sum / (double)n : 0));
    json_object_set_new(rounds, "min", json_integer(n ? r->min_rounds : 0));
    json_object_set_new(rounds, "max", json_integer(r->max_rounds));
    json_object_set_new(o, "rounds", rounds);
    json_t *phases = json_object();
    static const char *const roman[] = {"", "I", "II", "III", "IV"};
    for (int ph = 2; ph <= SC_PHASES; ph++)
        json_object_set_new(phases, roman[ph], frac(share(r->phase_reached[ph], n)));
    json_object_set_new(o, "phase_reached", phases);
    json_t *wins = json_array();
    for (int s = 0; s < p; s++)
        json_array_append_new(wins, frac(n ? r->wins[s] / (double)n : 0));
    json_object_set_new(o, "wins_by_seat", wins);
    json_object_set_new(o, "first_seat_wins", frac(n ? r->first_wins / (double)n : 0));
    json_t *designs = json_array();
    int packs = p > SC_BASE_PLAYERS ? p - SC_BASE_PLAYERS : 0;
    double least = 2, most = -2;
    const char *least_id = NULL, *most_id = NULL;
    for (int k = 0; k < cat->ndesigns; k++) {
        const struct sc_design *d = &cat->designs[k];
        if (d->copies_base + packs * d->copies_pack == 0)
            continue;
        double played = share(r->played[k], n);
        double lift =
            r->played_seats[k] ? r->played_wins[k] / (double)r->played_seats[k] - 1.0 / p : 0;
        json_t *e = json_object();
        json_object_set_new(e, "card", json_string(d->id));
        json_object_set_new(e, "played", frac(played));
        json_object_set_new(e, "win_lift", frac(lift));
        json_array_append_new(designs, e);
        if (played < least) {
            least = played;
            least_id = d->id;
        }
        if (r->played_seats[k] && lift > most) {
            most = lift;
            most_id = d->id;
        }
    }
    json_object_set_new(o, "per_design", designs);
    json_object_set_new(o, "least_played",
                        json_pack("{s:s?, s:o}", "card", least_id, "share", frac(least)));
    json_object_set_new(o, "most_lift",
                        json_pack("{s:s?, s:o}", "card", most_id, "share", frac(most)));
    json_object_set_new(o, "politics",
                        json_pack("{s:o, s:o, s:o, s:o}", "votes", frac(share(r->votes, n)),
                                  "votes_passed", frac(share(r->votes_passed, n)), "vacancies",
                                  frac(share(r->vacancies, n)), "elections",
                                  frac(share(r->elections, n))));
    json_t *money = json_object();
    for (int k = 0; k < SC_SRC_COUNT; k++)
        json_object_set_new(money, sc_source_name(k), frac(n ? r->winner_money[k] / (double)n : 0));
    json_object_set_new(o, "winners_money_by_source", money);
    json_object_set_new(o, "avg_winning_money", frac(n ? r->winning_money_sum / (double)n : 0));
    json_object_set_new(o, "avg_money", frac(n ? (double)r->money_sum / (double)n / p : 0));
    json_t *idle = json_array();
    for (int k = 0; k < SC_SP_COUNT; k++)
        if (!(r->acted & (1u << k)))
            json_array_append_new(idle, json_string(sc_prim_name(k)));
    for (int k = 0; k < SC_EF_COUNT; k++)
        if (!(r->acted_ev & (1u << k)))
            json_array_append_new(idle, json_string(sc_effect_name(k)));
    json_object_set_new(o, "primitives_idle", idle);
    json_object_set_new(o, "illegal", json_integer(r->illegal));
    json_object_set_new(o, "broken", json_integer(r->broken));
    return o;
}
