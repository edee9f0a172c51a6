/* service.c: what the service's calls share (service_int.h): the seat of a token, loading a game
 * or its 404, the refusals of unplayed games, the per-address quotas and telling listeners; and
 * the calls that are not about one game: the rulesets, the card catalogs, health and the
 * games' metrics (service.h). */
#include "service.h"
#include "service_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "expert.h"
#include "expert_levels.h"
#include "hub.h"
#include "metrics.h"
#include "names.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_accounts.h"

const char service_see_lobby[] = "; list games with GET /api/v1/games.";

int service_session_account(PGconn *c, const char *token, const char *what, struct account *a,
                            struct outcome *o)
{
    if (!token)
        return outcome_fail(o, P_NO_TOKEN, NULL,
                            "Sign in (POST /api/v1/sessions) and send the session token as "
                            "\"Authorization: Bearer TOKEN\" for %s.",
                            what);
    if (!auth_is_session(token))
        return outcome_fail(o, P_BAD_TOKEN, NULL,
                            "This is no session token (seat and host tokens act only in their "
                            "game); sign in (POST /api/v1/sessions) for %s.",
                            what);
    uint8_t hash[AUTH_HASH_LEN];
    auth_hash(token, hash);
    int st = store_account_of_session(c, hash, a);
    if (st == STORE_NO_ROW)
        return outcome_fail(o, P_BAD_TOKEN, NULL,
                            "The session has ended or expired; sign in again (POST "
                            "/api/v1/sessions).");
    return st;
}

/* The seat of the account whose session token is `token` in lv, or -1 with the refusal in o. */
static int seat_of_session(PGconn *c, const struct live *lv, const char *token, struct outcome *o)
{
    struct account a;
    int st = service_session_account(c, token, "this game", &a, o);
    if (st != STORE_OK && st != STORE_ABORT)
        outcome_fail(o, P_UNAVAILABLE, NULL, "The database did not answer; try again.");
    if (st != STORE_OK)
        return -1;
    for (int i = 0; i < lv->nseats; i++)
        if (lv->seats[i].account == a.id && lv->seats[i].has_token)
            return lv->seats[i].seat;
    outcome_fail(o, P_NOT_SEATED, NULL,
                 "Your account has no seat in this game; join it (POST .../join with your "
                 "session token), or list your games with GET /api/v1/me/games.");
    return -1;
}

int service_seat_of_token(PGconn *c, struct live *lv, const char *token, struct outcome *o)
{
    if (!token) {
        outcome_fail(o, P_NO_TOKEN, NULL,
                     "Send your seat token as \"Authorization: Bearer TOKEN\" (it came with "
                     "join).");
        return -1;
    }
    if (auth_is_session(token))
        return seat_of_session(c, lv, token, o);
    uint8_t hash[AUTH_HASH_LEN];
    auth_hash(token, hash);
    int seat = live_seat_of(lv, hash);
    if (seat >= 0)
        return seat;
    if (auth_equal(hash, lv->row.host_hash)) {
        outcome_fail(o, P_NOT_SEAT, NULL,
                     "This is the host token; hands and orders need a seat token from join.");
        return -1;
    }
    if (store_token_known(c, hash) == STORE_OK)
        outcome_fail(o, P_WRONG_GAME, NULL,
                     "This token belongs to another game; use the token of "
                     "your seat in this game.");
    else
        outcome_fail(o, P_BAD_TOKEN, NULL, "The token is not valid; join the game to get one.");
    return -1;
}

bool service_read_name(const json_t *v, char *out, size_t n, struct outcome *o)
{
    if (!v) {
        outcome_fail(o, P_MISSING_FIELD, NULL,
                     "The field \"name\" is required: the name others will see.");
        return false;
    }
    if (!json_is_string(v)) {
        outcome_fail(o, P_WRONG_TYPE, NULL, "\"name\" must be a string.");
        return false;
    }
    char clean[NAMES_MAX_BYTES + 1], why[400];
    enum name_verdict nv =
        name_clean(json_string_value(v), json_string_length(v), clean, why, sizeof why);
    if (nv != NAME_OK) {
        outcome_fail(o, nv == NAME_NO_MEMORY ? P_INTERNAL : P_BAD_VALUE, NULL, "%s", why);
        return false;
    }
    snprintf(out, n, "%s", clean);
    return true;
}

int service_load(PGconn *c, struct game_call *gc, bool lock, const char *tail, struct live *lv)
{
    int st = live_load(c, gc->srv, gc->id, lock, lv);
    if (st == STORE_NO_ROW)
        st = outcome_fail(gc->o, P_NO_GAME, NULL, "There is no game \"%.40s\"%s", gc->id, tail);
    return st;
}

bool service_is_unplayed(const char *status)
{
    return strcmp(status, "expired") == 0 || strcmp(status, "cancelled") == 0;
}

int service_fail_unplayed(struct outcome *o, const char *status)
{
    if (strcmp(status, "cancelled") == 0)
        return outcome_fail(o, P_GAME_CANCELLED, NULL,
                            "The host cancelled this game before it started. Create a game or "
                            "join an open one (GET /api/v1/games).");
    return outcome_fail(o, P_GAME_EXPIRED, NULL,
                        "This game expired: its seats did not fill in time. Create a game or "
                        "join an open one (GET /api/v1/games).");
}

bool service_has_ended(const struct live *lv)
{
    return strcmp(lv->row.status, "finished") == 0 || strcmp(lv->row.status, "abandoned") == 0 ||
           lv->rs->over(lv->g);
}

int service_check_playing(const struct live *lv, struct outcome *o, const char *not_started,
                          const char *ended)
{
    if (service_is_unplayed(lv->row.status))
        return service_fail_unplayed(o, lv->row.status);
    if (strcmp(lv->row.status, "open") == 0)
        return outcome_fail(o, P_NOT_STARTED, NULL, "%s", not_started);
    if (strcmp(lv->row.status, "abandoned") == 0)
        return outcome_fail(o, P_GAME_OVER, NULL, "%s", SERVICE_ABANDONED);
    if (lv->rs->over(lv->g))
        return outcome_fail(o, P_GAME_OVER, NULL, "%s", ended);
    return STORE_OK;
}

/* The monotonic clock in seconds, as the rate limiters count time. */
static double monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* True when a limiter said `wait` 0; else false with 429 rate_limited and Retry-After `wait` in
 * o, its sentence opened by `too_often` ("Your address has created games too often"). */
static bool within(int wait, const char *too_often, double rate, int burst, struct outcome *o)
{
    if (!wait)
        return true;
    outcome_fail(o, P_RATE_LIMITED, NULL,
                 "%s: this server allows %g a minute, %d at once. Try again in %d second%s (see "
                 "Retry-After).",
                 too_often, rate, burst, wait, wait == 1 ? "" : "s");
    o->retry_after = wait;
    return false;
}

bool service_within_rate(struct rate_limit *rl, const char *client, const char *what, double rate,
                         int burst, struct outcome *o)
{
    char too_often[160];
    snprintf(too_often, sizeof too_often, "Your address has %s too often", what);
    return within(rate_limit_take(rl, client, monotonic_now()), too_often, rate, burst, o);
}

bool service_within_key_rate(struct rate_limit *rl, const unsigned char *key, const char *too_often,
                             double rate, int burst, struct outcome *o)
{
    return within(rate_limit_take_key(rl, key, monotonic_now()), too_often, rate, burst, o);
}

void service_published(struct server *srv, int st, const char *id, int resolved)
{
    if (st != STORE_OK)
        return;
    metrics_steps_resolved(resolved);
    hub_publish(srv->hub, id, 0);
}

/* ---- what is not one game ----------------------------------------------------------------- */

/* The expert's levels, weakest first, each as {id, title, think_ms: the most it thinks per
 * decision on this server (whole ms), playouts: the most playouts per decision}; a new array. */
static json_t *levels_json(double top_ms)
{
    json_t *list = json_array();
    for (int i = 0; expert_levels[i].id; i++) {
        const struct expert_level *l = &expert_levels[i];
        struct expert_params p = expert_level_params(l, top_ms);
        json_array_append_new(list, json_pack("{s:s, s:s, s:I, s:i}", "id", l->id, "title",
                                              l->title, "think_ms", (json_int_t)(p.think_ms + 0.5),
                                              "playouts", p.iterations));
    }
    return list;
}

json_t *service_rulesets(const struct server *srv)
{
    json_t *list = json_array();
    for (int i = 0; rulesets[i]; i++)
        json_array_append_new(list, ruleset_describe(rulesets[i]));
    const struct quotas *q = srv->quotas;
    double top_ms = srv->expert_ms > 0 ? srv->expert_ms : expert_defaults.think_ms;
    return json_pack("{s:o, s:s, s:i, s:o, s:s}", "rulesets", list, "default", rulesets[0]->id,
                     "hints_per_game", q ? q->hints_per_game : 5, "bot_levels", levels_json(top_ms),
                     "default_bot_level", EXPERT_LEVEL_DEFAULT);
}

int service_cards(const struct server *srv, const char *game, struct outcome *o)
{
    int idx = 0;
    if (game) {
        while (rulesets[idx] && strcmp(rulesets[idx]->id, game) != 0)
            idx++;
        if (!rulesets[idx] || idx >= SERVER_MAX_RULESETS)
            return outcome_fail(o, P_BAD_QUERY, NULL,
                                "\"game\" must name a game this server hosts; GET "
                                "/api/v1/rulesets lists them.");
    }
    char *copy = strdup(srv->cards_json[idx]);
    if (!copy)
        return outcome_fail(o, P_INTERNAL, NULL, "Out of memory.");
    outcome_text(o, 200, copy, strlen(copy));
    return STORE_OK;
}

bool service_healthy(const struct server *srv)
{
    return store_ping(srv->store);
}

static int games_metrics_tx(PGconn *c, void *ctx)
{
    return store_games_metrics(c, ctx);
}

char *service_games_metrics(const struct server *srv)
{
    char *games = NULL;
    if (store_run(srv->store, games_metrics_tx, &games) == STORE_OK)
        return games;
    free(games);
    return NULL;
}
