/* rated.h: what a game's finish leaves behind, written in the transaction that finishes it
 * (live_save() calls it): every seat's place and score when an account sat in the game, and for
 * a rated game every player's new rating (OpenSkill, rating.h), exactly once; and the names
 * rated players go by. */
#ifndef CITY_RATED_H
#define CITY_RATED_H

#include <stddef.h>

#include <jansson.h>
#include <libpq-fe.h>

struct live;

/* The rating key of a bot of kind `bot` in a game whose experts play at `level`: "bot:greedy",
 * "bot:random"; the expert as "bot:expert" at the top level, else "bot:expert-easy", ... It is
 * also the bot's name on the leaderboard and its profile's {name}. */
void rated_bot_player(const char *bot, const char *level, char *out, size_t n);

/* Writes what finishing loaded game lv leaves: called once, by the transaction whose save
 * makes its status "finished" (the game row is locked). Queues the seats' places and scores
 * (when a seat is an account's or the game is rated); for a rated game locks its players'
 * ratings, rates the match by the places (a shared place a shared rank; a player in several
 * seats, such as two bots of one kind, moves by the sum of its seats' changes) and writes the
 * ratings, a rated_results row per seat and the game's ratings (also into lv->row.ratings). */
int rated_finish(PGconn *c, struct live *lv);

/* The public view's "ratings" of a finished rated game lv: [{seat, player, mu, sigma, ordinal,
 * change}], each person's player the name their seat shows; a new reference, or NULL when
 * the game has none. */
json_t *rated_view(const struct live *lv);

#endif
