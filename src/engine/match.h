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
 * each game. Returns {players, games, seed, bots, avg_rounds, min_rounds, max_rounds,
 * wins_by_seat: [share], wins_by_kind: {kind: {share, per_seat, seat_games}}, decision_ms:
 * {kind: {p50, p99, max, decisions}}, think_ms}, and with `per_card` (for a ruleset with
 * built_designs) cards: [{card, built, in_winners}] (the share of games in which some seat
 * built the design; the share of winners whose tableau holds it, a tie's winners counting a
 * share each) with most_in_winners and least_built; or NULL with a sentence in err. */
json_t *ruleset_match(const struct ruleset *rs, int players, long long games, uint64_t seed,
                      const char *bots, bool per_card, char *err, int errlen);

#endif
