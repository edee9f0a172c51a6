/* service_ratings.c: the reads of ratings (service.h): a player's profile and a game's
 * leaderboard. The ratings themselves are written where a game finishes (rated.c). */
#include "service.h"
#include "service_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "server.h"
#include "store.h"
#include "store_accounts.h"
#include "store_ratings.h"

struct player_call {
    const char *name;
    struct outcome *o;
};

/* True when some rating has key `player` (a bot's). */
static int bot_known(PGconn *c, const char *player, bool *known)
{
    const char *vals[] = {player};
    const struct store_stmt q = {
        "bot known", "SELECT 1 FROM ratings WHERE player = $1 LIMIT 1", 1, vals, NULL, false};
    PGresult *r;
    int st = store_query(c, &q, &r);
    *known = st == STORE_OK && PQntuples(r) > 0;
    PQclear(r);
    return st;
}

static int player_tx(PGconn *c, void *ctx)
{
    struct player_call *pc = ctx;
    const char *name = pc->name;
    char player[STORE_PLAYER_LEN] = "";
    long long account = 0;
    char shown[NAMES_MAX_BYTES + 1];
    snprintf(shown, sizeof shown, "%s", name);
    bool bot = false;
    int st = STORE_OK;
    if (strncmp(name, "bot:", 4) == 0 && strlen(name) < sizeof player) {
        st = bot_known(c, name, &bot);
        if (bot)
            snprintf(player, sizeof player, "%s", name);
    }
    if (st == STORE_OK && !bot) {
        char key[NAMES_KEY_BYTES];
        struct account a;
        st = name_key(name, strlen(name), key) ? store_account_by_key(c, key, &a) : STORE_NO_ROW;
        if (st == STORE_NO_ROW)
            return outcome_fail(pc->o, P_NO_PLAYER, NULL,
                                "No player is named \"%.80s\": an account's name, or a rated "
                                "bot's such as \"bot:greedy\" (GET /api/v1/leaderboard lists "
                                "them).",
                                name);
        account = a.id;
        snprintf(player, sizeof player, "a:%lld", a.id);
        snprintf(shown, sizeof shown, "%s", a.name);
    }
    json_t *p = NULL;
    if (st == STORE_OK)
        st = store_player_profile(c, player, account, SERVICE_PROFILE_RECENT, &p);
    if (st != STORE_OK)
        return st;
    json_object_set_new(p, "name", json_string(shown));
    json_object_set_new(p, "kind", json_string(bot ? "bot" : "person"));
    outcome_reply(pc->o, 200, p);
    return STORE_OK;
}

int service_player(struct server *srv, const char *name, struct outcome *o)
{
    struct player_call pc = {.name = name, .o = o};
    return store_run(srv->store, player_tx, &pc);
}

struct board_call {
    const char *game;
    int limit;
    struct board_cursor after;
    struct outcome *o;
};

static int board_tx(PGconn *c, void *ctx)
{
    struct board_call *bc = ctx;
    json_t *players, *best;
    char next[STORE_BOARD_CURSOR_LEN];
    int st = store_leaderboard(c, bc->game, bc->limit, &bc->after, &players, next, &best);
    if (st != STORE_OK)
        return st;
    outcome_reply(bc->o, 200,
                  json_pack("{s:s, s:o, s:o, s:o}", "game", bc->game, "players", players, "next",
                            next[0] ? json_string(next) : json_null(), "best_solo", best));
    return STORE_OK;
}

int service_leaderboard(struct server *srv, const char *game, const char *limit, const char *after,
                        struct outcome *o)
{
    const struct ruleset *rs = game ? ruleset_find(game) : rulesets[0];
    if (!rs)
        return outcome_fail(o, P_BAD_GAME, NULL,
                            "\"game\" must name a game this server hosts, such as \"%s\"; GET "
                            "/api/v1/rulesets lists them.",
                            rulesets[0]->id);
    struct board_call bc = {.game = rs->id, .limit = SERVICE_BOARD_DEFAULT, .o = o};
    if (limit) {
        char *end;
        long v = strtol(limit, &end, 10);
        if (!*limit || *end || v < 1 || v > SERVICE_BOARD_LIMIT)
            return outcome_fail(o, P_BAD_QUERY, NULL,
                                "\"limit\" must be a whole number from 1 to %d.",
                                SERVICE_BOARD_LIMIT);
        bc.limit = (int)v;
    }
    if (after && !store_board_cursor_parse(after, &bc.after))
        return outcome_fail(o, P_BAD_QUERY, NULL,
                            "\"after\" must be the \"next\" of the leaderboard page before, as it "
                            "was given.");
    return store_run(srv->store, board_tx, &bc);
}
