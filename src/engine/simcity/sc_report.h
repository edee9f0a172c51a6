/* sc_report.h: SimCity's self-play figures as JSON (the `simulate` report's own keys and the
 * deck's proof in cards/README.md): end reasons, turns per player, phases reached, wins per
 * seat, each design's played share and win lift, politics, the winners' money by source. */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include <jansson.h>

#include "sc_sim.h"

/* The figures of run r on catalog cat as a new JSON object: players, games, deck_size,
 * end_reasons {target, surface_full, deck_out, all_passed} (shares), turns_per_player {median,
 * p10, p90, min, max, in_20_30}, rounds {avg, min, max}, phase_reached {II, III, IV} (shares),
 * wins_by_seat, first_seat_wins, per_design [{card, played, win_lift}] (designs of the deck
 * at r's player count), least_played and most_lift {card, share}, politics per game {votes,
 * votes_passed, vacancies, elections}, winners_money_by_source {source: $ a game},
 * avg_winning_money, avg_money, primitives_idle (those that never acted), illegal, broken. */
json_t *sc_sim_report(const struct sc_catalog *cat, const struct sc_sim_result *r);

#endif
