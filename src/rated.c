/* rated.c: a finished game's places and ratings, written by the transaction that finishes it
 * (see rated.h). */
#include "rated.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expert_levels.h"
#include "live.h"
#include "rating.h"
#include "store_ratings.h"

void rated_bot_player(const char *bot, const char *level, char *out, size_t n)
{
    if (expert_is_slow_bot(bot) && level && level[0] && strcmp(level, EXPERT_LEVEL_DEFAULT) != 0)
        snprintf(out, n, "bot:%s-%s", bot, level);
    else
        snprintf(out, n, "bot:%s", bot);
}

/* The seat row of seat s, or NULL. */
static const struct seat_row *row_of(const struct live *lv, int s)
{
    for (int i = 0; i < lv->nseats; i++)
        if (lv->seats[i].seat == s)
            return &lv->seats[i];
    return NULL;
}

/* Rates the n seats x[] (each with its player and place), filling before and after. */
static int rate(PGconn *c, const struct live *lv, int n, struct rated_seat *x)
{
    const char *players[RS_MAX_SEATS];
    long long accounts[RS_MAX_SEATS];
    int np = 0, of[RS_MAX_SEATS];
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < np && strcmp(players[k], x[i].player) != 0)
            k++;
        if (k == np) {
            players[np] = x[i].player;
            accounts[np++] = x[i].account;
        }
        of[i] = k;
    }
    struct rating before[RS_MAX_SEATS], in[RS_MAX_SEATS], out[RS_MAX_SEATS];
    int rank[RS_MAX_SEATS];
    int st = store_ratings_lock(c, lv->rs->id, np, players, accounts, before);
    if (st != STORE_OK)
        return st;
    for (int i = 0; i < n; i++) {
        in[i] = before[of[i]];
        rank[i] = x[i].place;
    }
    if (rating_rate(n, in, rank, out) != 0)
        return STORE_HARD;
    /* A player in several seats: the sum of its seats' moves, the least deviation. */
    for (int k = 0; k < np; k++) {
        struct rating after = before[k];
        double sigma = before[k].sigma + 1e9;
        for (int i = 0; i < n; i++)
            if (of[i] == k) {
                after.mu += out[i].mu - before[k].mu;
                sigma = out[i].sigma < sigma ? out[i].sigma : sigma;
            }
        after.sigma = sigma;
        for (int i = 0; i < n; i++)
            if (of[i] == k) {
                x[i].before = before[k];
                x[i].after = after;
            }
    }
    return STORE_OK;
}

int rated_finish(PGconn *c, struct live *lv)
{
    int places[RS_MAX_SEATS], scores[RS_MAX_SEATS], seats[RS_MAX_SEATS];
    int n = ruleset_places(lv->rs, lv->g, places, scores);
    bool accounts = false;
    for (int i = 0; i < lv->nseats; i++)
        accounts |= lv->seats[i].account != 0;
    if (!accounts && !lv->row.rated)
        return STORE_OK;
    for (int s = 0; s < n; s++)
        seats[s] = s;
    int st = store_seat_places(c, lv->row.id, n, seats, places, scores);
    if (st != STORE_OK || !lv->row.rated)
        return st;
    /* Each seat's player: its account, or its bot (a person who left is the bot that took the
     * seat over); a seat that is neither is not rated. */
    struct rated_seat x[RS_MAX_SEATS];
    int m = 0;
    for (int s = 0; s < n; s++) {
        const struct seat_row *row = row_of(lv, s);
        if (!row || (!row->bot[0] && !row->account))
            continue;
        memset(&x[m], 0, sizeof x[m]);
        x[m].seat = s;
        x[m].place = places[s];
        if (row->bot[0]) {
            rated_bot_player(row->bot, lv->row.bot_level, x[m].player, sizeof x[m].player);
        } else {
            x[m].account = row->account;
            snprintf(x[m].player, sizeof x[m].player, "a:%lld", row->account);
        }
        m++;
    }
    if (m < 2)
        return STORE_OK;
    st = rate(c, lv, m, x);
    if (st != STORE_OK)
        return st;
    json_t *view = json_array();
    for (int i = 0; i < m; i++)
        json_array_append_new(
            view, json_pack("{s:i, s:s, s:f, s:f, s:f, s:f}", "seat", x[i].seat, "player",
                            x[i].player, "mu", x[i].after.mu, "sigma", x[i].after.sigma, "ordinal",
                            rating_ordinal(x[i].after), "change",
                            rating_ordinal(x[i].after) - rating_ordinal(x[i].before)));
    char *text = json_dumps(view, JSON_COMPACT);
    json_decref(view);
    if (!text)
        return STORE_HARD;
    snprintf(lv->row.ratings, sizeof lv->row.ratings, "%s", text);
    st = store_ratings_save(c, lv->row.id, lv->rs->id, m, x, text);
    free(text);
    return st;
}

json_t *rated_view(const struct live *lv)
{
    if (!lv->row.ratings[0])
        return NULL;
    json_t *list = json_loads(lv->row.ratings, 0, NULL);
    if (!json_is_array(list)) {
        json_decref(list);
        return NULL;
    }
    size_t i;
    json_t *r;
    json_array_foreach(list, i, r)
    {
        const char *player = json_string_value(json_object_get(r, "player"));
        const struct seat_row *row =
            row_of(lv, (int)json_integer_value(json_object_get(r, "seat")));
        if (player && strncmp(player, "bot:", 4) != 0)
            json_object_set_new(r, "player", json_string(row ? row->name : ""));
    }
    return list;
}
