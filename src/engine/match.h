/* match.h: bot-against-bot matches of any ruleset through its table alone, for judging bots
 * (the expert against greedy) rather than the deck: wins by seat and by bot kind, with the kinds
 * rotated over the seats from game to game, and each kind's decision time. Pure except for the
 * clock it reads to time decisions. */
#ifndef CITY_MATCH_H
#define CITY_MATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "ruleset.h"

/* Plays `games` games of `players` seats from consecutive seeds with bots as one kind or a
 * comma list of one kind per seat (each one of rs->bots), the list rotated by one seat
 * each game. Returns the report every simulate() gives (ruleset_sim_report(): players, games,
 * finished, seed, bots, avg_rounds, min_rounds, max_rounds, wins_by_seat, wins_by_kind: {kind:
 * {share, per_seat, seat_games}}), the per-card shares for a ruleset with built_designs
 * (ruleset_sim_cards(): cards [{card, built, in_winners}], most_in_winners, least_built), and
 * decision_ms: {kind: {p50, p99, max, decisions}}, think_ms; or NULL with a sentence in err. */
json_t *ruleset_match(const struct ruleset *rs, int players, long long games, uint64_t seed,
                      const char *bots, char *err, int errlen);

#endif
