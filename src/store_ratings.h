/* store_ratings.h: the SQL of rated games (migration 0018): the places and scores a finished
 * game's seats keep, players' ratings per game kind (locked in one order, then written with a
 * rated_results row per seat), and the reads of a player's profile and of a leaderboard. Every
 * function runs parameterized statements on `c` (inside the caller's transaction where one is
 * open) and returns an enum store_status. */
#ifndef CITY_STORE_RATINGS_H
#define CITY_STORE_RATINGS_H

#include <jansson.h>
#include <stdbool.h>

#include "rating.h"
#include "store.h"

/* The longest rating key: "a:" and an account id, or "bot:" and a bot kind and level. */
enum { STORE_PLAYER_LEN = 48, STORE_BOARD_CURSOR_LEN = 96 };

/* One seat of a rated game as its finish rates it. */
struct rated_seat {
    int seat;
    char player[STORE_PLAYER_LEN]; /* its rating key */
    long long account;             /* 0 for a bot */
    int place;                     /* 1 = first */
    struct rating before, after;
};

/* Queues (store_command) the places and scores of the n seats seats[] of finished game `id`. */
int store_seat_places(PGconn *c, const char *id, int n, const int *seats, const int *places,
                      const int *scores);

/* Reads the ratings in game kind `game` of the n distinct players[] (accounts[i] their account,
 * 0 for a bot), first creating each missing one at rating_new(), and locks them (FOR UPDATE, in
 * player order, so that two finishes sharing players cannot deadlock), into out[i]. */
int store_ratings_lock(PGconn *c, const char *game, int n, const char *const *players,
                       const long long *accounts, struct rating *out);

/* Writes a rated finish of game `id` of kind `game`: each player's rating after it (a player in
 * several seats has the same `after` in each), games + 1 and wins + 1 when placed first; one
 * rated_results row per seat (a second write for a seat fails: a game is rated once); and the
 * game's `ratings` column, `view` (JSON text). Queued with store_command(). */
int store_ratings_save(PGconn *c, const char *id, const char *game, int n,
                       const struct rated_seat *seats, const char *view);

/* A player's profile as GET /api/v1/players/{name} answers it, into *out (a new object):
 * {ratings: [{game, mu, sigma, ordinal, games, wins}], played, won, recent: [{id, game,
 * finished_at, place, players, rated, change}] (the last `recent` finished listed games,
 * newest first)}. For an account (account != 0) its finished games count; for a bot (player
 * its key, account 0) its rated ones. */
int store_player_profile(PGconn *c, const char *player, long long account, int recent,
                         json_t **out);

/* Where a leaderboard page starts: after the row of `rank` with ordinal `ordinal` and key
 * `player`; none when !has. */
struct board_cursor {
    bool has;
    int rank;
    double ordinal;
    char player[STORE_PLAYER_LEN];
};

/* Reads a leaderboard cursor as store_leaderboard() wrote it; false when `text` is none. */
bool store_board_cursor_parse(const char *text, struct board_cursor *out);

/* A page of game kind `game`'s leaderboard: players with a rated game, by ordinal (most first),
 * at most `limit` after `after`, as a new array in *players of {rank, name, kind, mu, sigma,
 * ordinal, games}; the next page's cursor in next (STORE_BOARD_CURSOR_LEN bytes; "" for none); and
 * the 10 best final scores of finished listed one-seat games played by accounts, as a new array
 * in *best of {name, score, id, finished_at}. */
int store_leaderboard(PGconn *c, const char *game, int limit, const struct board_cursor *after,
                      json_t **players, char *next, json_t **best);

#endif
