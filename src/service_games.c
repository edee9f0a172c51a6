/* service_games.c: the calls about a game that are not moves (service.h): create (the body read
 * against the chosen game's descriptor), join, the lobby, the public and private views, the
 * log, and the replay. Each write is one store_tx() whose body locks the game row. */
#include "service.h"
#include "service_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "lobbycache.h"
#include "expert_levels.h"
#include "names.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_accounts.h"
#include "store_chat.h"
#include "viewcache.h"

enum { TURN_MIN = 5, TURN_MAX = 86400, LIST_LIMIT = 100 };

/* The largest time bank a seat may start with: three times the longest step. */
enum { BANK_MAX = 3 * TURN_MAX };

/* ---- what a create body holds --------------------------------------------------------------- */

/* Reads "bot_level" `v`, the level of the game's experts (expert_levels.h), into *out
 * (EXPERT_LEVEL_DEFAULT when absent or null); false (a 400 in o) when it names none. */
static bool read_level(const json_t *v, const struct expert_level **out, struct outcome *o)
{
    *out = expert_level_find(EXPERT_LEVEL_DEFAULT);
    if (!v || json_is_null(v))
        return true;
    const struct expert_level *l =
        json_is_string(v) ? expert_level_find(json_string_value(v)) : NULL;
    if (l) {
        *out = l;
        return true;
    }
    char list[160] = "";
    for (int i = 0; expert_levels[i].id; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "",
                 expert_levels[i].id);
    outcome_fail(o, json_is_string(v) ? P_BAD_VALUE : P_WRONG_TYPE, NULL,
                 "\"bot_level\" must be one of %s: how hard the game's expert bots think (GET "
                 "/api/v1/rulesets lists the levels; leave it out for \"%s\").",
                 list, EXPERT_LEVEL_DEFAULT);
    return false;
}

/* Reads "game" `v` into *rs (the default game when absent or null); false (a 400 in o) when it
 * names no game this server hosts. */
static bool read_game(const json_t *v, const struct ruleset **rs, struct outcome *o)
{
    *rs = rulesets[0];
    if (!v || json_is_null(v))
        return true;
    *rs = json_is_string(v) ? ruleset_find(json_string_value(v)) : NULL;
    if (*rs)
        return true;
    char list[200] = "";
    for (int i = 0; rulesets[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "",
                 rulesets[i]->id);
    outcome_fail(o, json_is_string(v) ? P_BAD_VALUE : P_WRONG_TYPE, NULL,
                 "\"game\" must be one of %s (GET /api/v1/rulesets lists them).", list);
    return false;
}

/* Reads "bots" `v` (absent or null: none), bot kinds of ruleset rs for the last seats of a game
 * of `seats`, into kinds[0..*n); false (a 400 in o) when it is no array of rs's kinds, or would
 * leave no seat for a person. */
static bool read_bots(const json_t *v, const struct ruleset *rs, long long seats,
                      const char **kinds, int *n, struct outcome *o)
{
    *n = 0;
    if (!v || json_is_null(v))
        return true;
    if (!json_is_array(v)) {
        outcome_fail(o, P_WRONG_TYPE, NULL,
                     "\"bots\" must be an array of bot kinds such as \"greedy\" (GET "
                     "/api/v1/rulesets lists each game's).");
        return false;
    }
    if ((long long)json_array_size(v) >= seats) {
        outcome_fail(o, P_BAD_VALUE, NULL,
                     "\"bots\" may fill at most %lld of the %lld seats: at least one seat is for "
                     "a person.",
                     seats - 1, seats);
        return false;
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *b = json_array_get(v, i);
        if (!json_is_string(b) || !ruleset_has_bot(rs, json_string_value(b))) {
            char list[160] = "";
            for (int k = 0; rs->bots[k]; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", k ? ", " : "",
                         rs->bots[k]);
            outcome_fail(o, P_BAD_VALUE, NULL, "bots[%zu] must be one of %s.", i, list);
            return false;
        }
        kinds[(*n)++] = json_string_value(b);
    }
    return true;
}

/* Reads "seed" `v` into *seed (a fresh random one when absent or null); false (a 400 in o) when
 * this server takes no seeds or it is no number up to 2^64 - 1. */
static bool read_seed(const json_t *v, bool allowed, uint64_t *seed, struct outcome *o)
{
    *seed = auth_random_u64();
    if (!v || json_is_null(v))
        return true;
    if (!allowed) {
        outcome_fail(o, P_SEED_NOT_ALLOWED, NULL,
                     "This server deals its own seeds; leave \"seed\" out (servers started with "
                     "--allow-seed take one).");
        return false;
    }
    static const char rule[] = "\"seed\" must be a non-negative integer, or a string of decimal "
                               "digits up to 18446744073709551615.";
    bool ok = false;
    if (json_is_integer(v)) {
        ok = json_integer_value(v) >= 0;
        *seed = (uint64_t)json_integer_value(v);
    } else if (json_is_string(v)) {
        char *end;
        const char *s = json_string_value(v);
        errno = 0;
        *seed = strtoull(s, &end, 10);
        ok = *s >= '0' && *s <= '9' && !*end && errno != ERANGE;
    } else {
        outcome_fail(o, P_WRONG_TYPE, NULL, "%s", rule);
        return false;
    }
    if (!ok)
        outcome_fail(o, P_BAD_VALUE, NULL, "%s", rule);
    return ok;
}

/* A create body, read. */
struct create_req {
    const struct ruleset *rs;
    long long seats;
    bool has_turn;
    long long turn;
    long long bank; /* time_bank_seconds, 0: none */
    int options[RS_MAX_OPTIONS];
    const char *kinds[RS_MAX_SEATS];
    int nbots;
    uint64_t seed;
    char name[200]; /* the host's, or "" */
    bool unlisted;
    bool rated;
    const struct expert_level *level;
};

/* Reads create body `body` into *cr, checking each field in the order the API documents (the
 * game, the body's shape against the game's descriptor, its options at the seat count, bots,
 * seed, name, bot_level); false with the 400 in o. */
static bool read_create(const struct server *srv, const json_t *body, struct create_req *cr,
                        struct outcome *o)
{
    if (!read_game(json_object_get(body, "game"), &cr->rs, o))
        return false;
    const struct ruleset *rs = cr->rs;
    /* The body's shape in one place: the common fields, then the game's own options (whose
     * values ruleset_read_options() judges below, by the seat count). */
    enum {
        F_SEATS = 1,
        F_BOTS,
        F_TURN,
        F_SEED,
        F_NAME,
        F_PRIVATE,
        F_LEVEL,
        F_RATED,
        F_BANK,
        F_COMMON
    };
    struct field_spec spec[F_COMMON + RS_MAX_OPTIONS] = {
        {"game", FIELD_ANY, false, 0, 0},
        {"seats", FIELD_INT, true, rs->min_players, rs->max_players},
        {"bots", FIELD_ANY, false, 0, 0},
        {"turn_seconds", FIELD_INT, false, TURN_MIN, TURN_MAX},
        {"seed", FIELD_ANY, false, 0, 0},
        {"name", FIELD_STRING, false, 0, 0},
        {"private", FIELD_BOOL, false, 0, 0},
        {"bot_level", FIELD_ANY, false, 0, 0},
        {"rated", FIELD_BOOL, false, 0, 0},
        {"time_bank_seconds", FIELD_INT, false, 0, BANK_MAX},
    };
    int nspec = F_COMMON;
    for (int i = 0; i < rs->noptions; i++)
        spec[nspec++] = (struct field_spec){rs->options[i].name, FIELD_ANY, false, 0, 0};
    const json_t *vals[F_COMMON + RS_MAX_OPTIONS];
    char what[80];
    snprintf(what, sizeof what, "creating a game of %s", rs->title);
    if (!fields_read(body, spec, nspec, what, vals, o))
        return false;
    cr->seats = json_integer_value(vals[F_SEATS]);
    cr->has_turn = vals[F_TURN] != NULL;
    cr->turn = cr->has_turn ? json_integer_value(vals[F_TURN]) : 0;
    cr->bank = vals[F_BANK] ? json_integer_value(vals[F_BANK]) : 0;
    if (cr->bank > 0 && !cr->has_turn) {
        outcome_fail(o, P_BAD_VALUE, NULL,
                     "\"time_bank_seconds\" is time beyond a step's own: send \"turn_seconds\" "
                     "too, or leave the bank out.");
        return false;
    }
    cr->unlisted = json_is_true(vals[F_PRIVATE]);
    cr->rated = json_is_true(vals[F_RATED]);
    /* The game's own options, checked against its declared ranges at this seat count. */
    char why[300];
    const char *bad = ruleset_read_options(rs, (int)cr->seats, body, cr->options, why, sizeof why);
    if (bad) {
        outcome_fail(o, strcmp(bad, "wrong_type") == 0 ? P_WRONG_TYPE : P_BAD_VALUE, NULL, "%s",
                     why);
        return false;
    }
    return read_bots(vals[F_BOTS], rs, cr->seats, cr->kinds, &cr->nbots, o) &&
           read_seed(vals[F_SEED], srv->allow_seed, &cr->seed, o) &&
           (!vals[F_NAME] || service_read_name(vals[F_NAME], cr->name, sizeof cr->name, o)) &&
           read_level(json_object_get(body, "bot_level"), &cr->level, o);
}

/* ---- create ------------------------------------------------------------------------------- */

/* Starts the game when no seat is free: status playing, bots decide at once. */
static int start_if_full(PGconn *c, struct live *lv, bool *started)
{
    *started = false;
    for (int i = 0; i < lv->nseats; i++)
        if (!lv->seats[i].name[0])
            return STORE_OK;
    snprintf(lv->row.status, sizeof lv->row.status, "playing");
    lv->changed = lv->step_changed = true;
    live_event(lv, "started", json_pack("{s:i}", "players", lv->row.players));
    *started = true;
    return live_advance(c, lv, false);
}

struct create_ctx {
    struct server *srv;
    struct game_row row;
    struct seat_row seats[RS_MAX_SEATS];
    int nseats;
    bool started;
    bool wake; /* its bots are due: wake them once the game is committed (with wake_need) */
    enum bot_need wake_need;
};

static int create_tx(PGconn *c, void *ctx)
{
    struct create_ctx *cc = ctx;
    int st = store_game_insert(c, &cc->row, cc->seats, cc->nseats);
    /* An address's open games beyond its newest few leave the lobby (a burst cannot fill it). */
    const struct quotas *q = cc->srv->quotas;
    if (st == STORE_OK && cc->row.has_creator && !cc->row.unlisted && q && q->lobby_per_address > 0)
        st = store_lobby_trim(c, cc->row.creator_key, q->lobby_per_address);
    if (st != STORE_OK)
        return st;
    struct live lv;
    st = live_load(c, cc->srv, cc->row.id, true, &lv);
    if (st == STORE_OK) {
        live_event(&lv, "created",
                   json_pack("{s:i, s:s}", "players", cc->row.players, "game", lv.rs->id));
        for (int i = 0; i < lv.nseats; i++)
            if (lv.seats[i].name[0])
                live_event(&lv, "joined",
                           json_pack("{s:i, s:s, s:b}", "seat", lv.seats[i].seat, "name",
                                     lv.seats[i].name, "bot", lv.seats[i].bot[0] != 0));
        lv.changed = true;
        lv.inserted = true;
        st = start_if_full(c, &lv, &cc->started);
    }
    if (st == STORE_OK)
        st = live_save(c, &lv);
    cc->wake = st == STORE_OK && lv.wake_due;
    cc->wake_need = lv.wake_need;
    live_free(&lv);
    return st;
}

/* Adds to `game`, a create's reply or a lobby entry with its "options", the API's fields from
 * before options were declared: "target_vp", the option of that name or null, which clients
 * written then read (the OpenAPI file requires it). The one place outside The City's folder
 * that names one of its options; the stored rows have it in their options since migration
 * 0012. */
static void add_older_fields(json_t *game)
{
    json_t *target = json_object_get(json_object_get(game, "options"), "target_vp");
    json_object_set_new(game, "target_vp", target ? json_incref(target) : json_null());
}

/* Fills the game's row and seats in cc from what the body asked for, with the game dealt in
 * g; the host's seat token into seat_token when the body named the host. */
static void create_rows(struct create_ctx *cc, const struct create_req *cr, const void *g,
                        json_t *opts, char *seat_token)
{
    const struct ruleset *rs = cr->rs;
    snprintf(cc->row.status, sizeof cc->row.status, "open");
    snprintf(cc->row.game, sizeof cc->row.game, "%s", rs->id);
    cc->row.unlisted = cr->unlisted;
    snprintf(cc->row.bot_level, sizeof cc->row.bot_level, "%s", cr->level->id);
    cc->row.players = (int)cr->seats;
    char *opts_text = json_dumps(opts, JSON_COMPACT);
    snprintf(cc->row.options, sizeof cc->row.options, "%s", opts_text ? opts_text : "{}");
    free(opts_text);
    cc->row.turn_seconds = cr->has_turn ? (int)cr->turn : 0;
    cc->row.time_bank_seconds = (int)cr->bank;
    cc->row.state = rs->to_json(g);
    cc->nseats = (int)cr->seats;
    for (int s = 0; s < cr->seats; s++) {
        cc->seats[s].seat = s;
        int b = s - ((int)cr->seats - cr->nbots); /* bots take the last seats */
        if (b >= 0) {
            snprintf(cc->seats[s].bot, sizeof cc->seats[s].bot, "%s", cr->kinds[b]);
            snprintf(cc->seats[s].name, sizeof cc->seats[s].name, "Bot %d (%s)", s + 1,
                     cr->kinds[b]);
        }
    }
    if (cr->name[0]) {
        snprintf(cc->seats[0].name, sizeof cc->seats[0].name, "%s", cr->name);
        cc->seats[0].has_token = auth_new_token(seat_token, cc->seats[0].token_hash);
    }
}

int service_create(struct server *srv, const char *client, const char *token, const json_t *body,
                   struct outcome *o)
{
    struct create_req cr = {0};
    if (!read_create(srv, body, &cr, o))
        return STORE_ABORT;
    struct account acct;
    if (auth_is_session(token) && json_object_get(body, "name"))
        return outcome_fail(o, P_CONFLICTING_FIELDS, NULL,
                            "Signed in, you play under your account's name: leave \"name\" "
                            "out (or send no session token to play anonymously).");
    int ast = service_account_of(srv, token, &acct, o);
    if (ast != STORE_OK)
        return ast;
    if (acct.id)
        snprintf(cr.name, sizeof cr.name, "%s", acct.name);
    if (cr.rated && cr.seats < 2)
        return outcome_fail(o, P_NOT_RATEABLE, NULL,
                            "A rated game needs at least two seats; send \"seats\": 2 or more, "
                            "or leave \"rated\" out.");
    if (cr.rated && cr.name[0] && !acct.id)
        return outcome_fail(o, P_NOT_RATEABLE, NULL,
                            "Every person in a rated game plays with an account: sign in "
                            "(POST /api/v1/sessions) and create with your session token, or "
                            "leave \"name\" out to host without a seat.");
    const struct quotas *q = srv->quotas;
    if (q && !service_within_rate(q->create, client, "created games", q->create_rate,
                                  q->create_burst, o))
        return STORE_ABORT;
    const struct ruleset *rs = cr.rs;
    struct create_ctx cc;
    memset(&cc, 0, sizeof cc);
    cc.srv = srv;
    void *g = calloc(1, rs->state_size);
    if (!g || !rs->new_game(g, (int)cr.seats, cr.seed, cr.options)) {
        free(g);
        return outcome_fail(o, P_INTERNAL, NULL, "The game could not be dealt; try again.");
    }
    char host_token[AUTH_TOKEN_LEN + 1], seat_token[AUTH_TOKEN_LEN + 1];
    if (!auth_new_id(cc.row.id) || !auth_new_token(host_token, cc.row.host_hash)) {
        free(g);
        return outcome_fail(o, P_INTERNAL, NULL, "The server has no randomness; try again.");
    }
    json_t *opts = ruleset_options_json(rs, g);
    create_rows(&cc, &cr, g, opts, seat_token);
    cc.seats[0].account = acct.id; /* its seat token is never told: the session acts for it */
    cc.row.has_creator = true;     /* the lobby lists the newest few open games of each address */
    cc.row.rated = cr.rated;
    netaddr_key(client, cc.row.creator_key);
    free(g);
    int st = store_tx(srv->store, create_tx, &cc, STORE_TRIES_READ);
    game_row_clear(&cc.row);
    if (st != STORE_OK) {
        json_decref(opts);
        return st;
    }
    lobby_cache_changed(srv->lobby); /* the creator sees its game in the lobby */
    if (cc.wake && srv->wake_bots)   /* committed: a worker can read the game now */
        srv->wake_bots(srv->bots, cc.row.id, cc.wake_need, netaddr_key_hash(cc.row.creator_key));
    char join[96];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", cc.row.id);
    json_t *reply =
        json_pack("{s:s, s:s, s:s, s:i, s:i, s:s}", "id", cc.row.id, "game", rs->id, "host_token",
                  host_token, "seats", (int)cr.seats, "bots", cr.nbots, "join", join);
    json_object_set_new(reply, "options", opts);
    add_older_fields(reply);
    json_object_set_new(reply, "turn_seconds", cr.has_turn ? json_integer(cr.turn) : json_null());
    json_object_set_new(reply, "time_bank_seconds",
                        cr.bank > 0 ? json_integer(cr.bank) : json_null());
    json_object_set_new(reply, "private", json_boolean(cc.row.unlisted));
    json_object_set_new(reply, "bot_level", json_string(cr.level->id));
    json_object_set_new(reply, "rated", json_boolean(cr.rated));
    if (cr.name[0])
        json_object_set_new(reply, "seat", json_integer(0));
    if (acct.id)
        json_object_set_new(reply, "account", json_string(acct.name));
    else if (cr.name[0])
        json_object_set_new(reply, "token", json_string(seat_token));
    json_object_set_new(reply, "status", json_string(cc.started ? "playing" : "open"));
    outcome_reply(o, 201, reply);
    return STORE_OK;
}

/* ---- reads -------------------------------------------------------------------------------- */

struct list_call {
    struct lobby_query q;
    struct outcome *o;
};

static int list_tx(PGconn *c, void *ctx)
{
    struct list_call *lc = ctx;
    json_t *games;
    char next[STORE_CURSOR_LEN];
    int st = store_games_list(c, &lc->q, &games, next);
    if (st != STORE_OK)
        return st;
    size_t i;
    json_t *game;
    json_array_foreach(games, i, game)
    {
        add_older_fields(game);
    }
    outcome_reply(
        lc->o, 200,
        json_pack("{s:o, s:o}", "games", games, "next", next[0] ? json_string(next) : json_null()));
    return STORE_OK;
}

/* Reads a whole number in lo..hi from query value s into *out; false when it is not one. */
static bool query_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

int service_list_games(struct server *srv, const char *limit, const char *after, const char *game,
                       const char *seats, struct outcome *o)
{
    struct list_call lc = {.q = {.limit = LIST_LIMIT, .game = game}, .o = o};
    if (limit && !query_int(limit, 1, LIST_LIMIT, &lc.q.limit))
        return outcome_fail(o, P_BAD_QUERY, NULL, "\"limit\" must be a whole number from 1 to %d.",
                            LIST_LIMIT);
    if (seats && !query_int(seats, 1, RS_MAX_SEATS, &lc.q.players))
        return outcome_fail(o, P_BAD_QUERY, NULL, "\"seats\" must be a whole number from 1 to %d.",
                            RS_MAX_SEATS);
    if (game && !ruleset_find(game))
        return outcome_fail(o, P_BAD_QUERY, NULL,
                            "\"game\" must name a game this server hosts; GET /api/v1/rulesets "
                            "lists them.");
    if (after && !store_lobby_cursor_parse(after, &lc.q))
        return outcome_fail(o, P_BAD_QUERY, NULL,
                            "\"after\" must be the \"next\" of the lobby page before, as it was "
                            "given.");
    /* The page's key: the query's values as read. */
    char key[160], *body;
    size_t len;
    snprintf(key, sizeof key, "%d|%d|%.16s|%d|%d|%s|%s", lc.q.limit, lc.q.players, game ? game : "",
             lc.q.has_after, lc.q.after_part, lc.q.after_ts, lc.q.after_id);
    if (lobby_cache_get(srv->lobby, key, &body, &len)) {
        outcome_text(o, 200, body, len);
        return STORE_OK;
    }
    uint64_t ticket = lobby_cache_ticket(srv->lobby);
    int st = store_run(srv->store, list_tx, &lc);
    if (st != STORE_OK || o->status != 200 || !srv->lobby)
        return st;
    body = json_dumps(o->reply, JSON_COMPACT);
    if (!body)
        return outcome_fail(o, P_INTERNAL, NULL, "The reply could not be encoded.");
    len = strlen(body);
    lobby_cache_put(srv->lobby, key, ticket, body, len);
    outcome_text(o, 200, body, len);
    return STORE_OK;
}

struct view_call {
    struct game_call gc;
    double ttl; /* seconds the view stays true (its seats' presence) */
};

static int view_tx(PGconn *c, void *ctx)
{
    struct view_call *vc = ctx;
    struct live lv;
    int st = service_load(c, &vc->gc, false, service_see_lobby, &lv);
    json_t *v = st == STORE_OK ? live_public_view(&lv) : NULL;
    if (v)
        st = service_presence_add(vc->gc.srv, c, vc->gc.id, v, &vc->ttl);
    if (st == STORE_OK)
        outcome_reply(vc->gc.o, 200, v);
    else
        json_decref(v);
    live_free(&lv);
    return st;
}

int service_game_view(struct server *srv, const char *id, struct outcome *o)
{
    struct view_cache *vc = srv->views;
    struct view_text *cached = vc ? view_cache_get_text(vc, id) : NULL;
    if (cached) { /* shared, not copied: the HTTP layer serves it as it is */
        outcome_view(o, 200, cached);
        return STORE_OK;
    }
    uint64_t ticket = vc ? view_cache_ticket(vc, id) : 0;
    struct view_call call = {{.srv = srv, .id = id, .o = o}, 0};
    int st = store_run(srv->store, view_tx, &call);
    if (st != STORE_OK || o->status != 200)
        return st;
    char *body = json_dumps(o->reply, JSON_COMPACT);
    if (!body)
        return outcome_fail(o, P_INTERNAL, NULL, "The reply could not be encoded.");
    size_t len = strlen(body);
    /* True until an online seat would turn away (a seat coming back invalidates it). */
    if (vc && call.ttl > 0)
        view_cache_put_until(vc, id, ticket, body, len,
                             isfinite(call.ttl) ? view_cache_now() + call.ttl : 0);
    outcome_text(o, 200, body, len);
    return STORE_OK;
}

/* What seat `seat` was last given by default, and why, for its hand view: {round, step,
 * reason: "timer" | "forced_by_host" | "forced_by_seat", by, chosen: the order body, cards:
 * [{id, card}] the discards it names}; *out stays NULL when its last decision was its own, or
 * it has decided the current point since (its own decision replaces the notice; points others
 * resolve meanwhile do not). */
static int defaulted_of(PGconn *c, const struct live *lv, int seat, json_t **out)
{
    *out = NULL;
    if (strcmp(lv->row.status, "open") == 0 || lv->row.ndecisions < 1 ||
        (!lv->rs->over(lv->g) && lv->rs->submitted(lv->g, seat)))
        return STORE_OK;
    json_t *d;
    int st = store_last_default(c, lv->row.id, seat, &d);
    if (st == STORE_NO_ROW)
        return STORE_OK;
    if (st != STORE_OK)
        return st;
    json_t *by = json_object_get(d, "by");
    json_object_set_new(
        d, "reason",
        json_string(json_is_integer(by) ? "forced_by_seat"
                    : json_is_string(by) && strcmp(json_string_value(by), "host") == 0
                        ? "forced_by_host"
                        : "timer"));
    /* The cards the default gave up, as the game's rules read the chosen order. */
    json_t *cards = json_array();
    void *dec = calloc(1, lv->rs->decision_size);
    struct rs_pos pos;
    char why[200];
    int ids[128];
    int n =
        dec && !lv->rs->order_from_json(json_object_get(d, "chosen"), &pos, dec, why, sizeof why)
            ? lv->rs->decision_cards(dec, ids, 128)
            : 0;
    for (int i = 0; i < n; i++) {
        const char *slug = lv->rs->card_id(lv->g, ids[i]);
        if (slug)
            json_array_append_new(cards, json_pack("{s:i, s:s}", "id", ids[i], "card", slug));
    }
    free(dec);
    json_object_set_new(d, "cards", cards);
    *out = d;
    return STORE_OK;
}

struct hand_call {
    struct game_call gc;
    int seat; /* the token's, once known */
};

static int hand_tx(PGconn *c, void *ctx)
{
    struct hand_call *hc = ctx;
    struct game_call *gc = &hc->gc;
    struct live lv;
    int st = service_load(c, gc, false, ".", &lv);
    int seat = st == STORE_OK ? service_seat_of_token(c, &lv, gc->token, gc->o) : -1;
    hc->seat = seat;
    if (st == STORE_OK && seat < 0)
        st = STORE_ABORT;
    if (st == STORE_OK) {
        json_t *v = ruleset_private_view(lv.rs, lv.g, seat);
        json_object_set_new(v, "id", json_string(lv.row.id));
        json_object_set_new(v, "game", json_string(lv.rs->id));
        json_object_set_new(v, "status", json_string(lv.row.status));
        if (strcmp(lv.row.status, "open") == 0 || strcmp(lv.row.status, "abandoned") == 0)
            json_object_set_new(v, "pending", json_null()); /* not started yet, or ended */
        json_t *why = NULL;
        st = defaulted_of(c, &lv, seat, &why);
        json_object_set_new(v, "defaulted", why ? why : json_null());
        if (st == STORE_OK)
            outcome_reply(gc->o, 200, v);
        else
            json_decref(v);
    }
    live_free(&lv);
    return st;
}

int service_hand(struct server *srv, const char *id, const char *token, struct outcome *o)
{
    struct hand_call hc = {{.srv = srv, .id = id, .token = token, .o = o}, -1};
    int st = store_run(srv->store, hand_tx, &hc);
    if (st == STORE_OK && o->status == 200)
        service_seen(srv, id, hc.seat); /* a client that polls is at the table too */
    return st;
}

/* ---- join --------------------------------------------------------------------------------- */

struct join_call {
    struct game_call gc;
    char name[200];
    char token[AUTH_TOKEN_LEN + 1];
    uint8_t hash[AUTH_HASH_LEN];
    long long account; /* the joining account, or 0 */
};

static int join_tx(PGconn *c, void *ctx)
{
    struct join_call *jc = ctx;
    struct outcome *o = jc->gc.o;
    struct live lv;
    int st = service_load(c, &jc->gc, true, "; list open games with GET /api/v1/games.", &lv);
    int seat = -1;
    if (st == STORE_OK && service_is_unplayed(lv.row.status))
        st = service_fail_unplayed(o, lv.row.status);
    if (st == STORE_OK && lv.row.rated && !jc->account)
        st = outcome_fail(o, P_ACCOUNT_REQUIRED, NULL,
                          "This game is rated: every person in it plays with an account. Sign in "
                          "(POST /api/v1/sessions) and join with your session token in the "
                          "Authorization header.");
    for (int i = 0; st == STORE_OK && jc->account && i < lv.nseats; i++)
        if (lv.seats[i].account == jc->account && lv.seats[i].has_token)
            st = outcome_fail(o, P_ALREADY_SEATED, NULL,
                              "Your account sits at seat %d of this game already; play it with "
                              "your session token.",
                              lv.seats[i].seat);
    if (st == STORE_OK) {
        for (int i = 0; i < lv.nseats && seat < 0; i++)
            if (!lv.seats[i].name[0])
                seat = lv.seats[i].seat;
        if (strcmp(lv.row.status, "open") != 0 || seat < 0)
            st = outcome_fail(o, P_GAME_FULL, NULL,
                              "Every seat of this game is taken; create a game or join another.");
    }
    bool started = false;
    if (st == STORE_OK)
        st = store_seat_take(c, jc->gc.id, seat, jc->name, jc->hash, jc->account);
    if (st == STORE_OK) {
        snprintf(lv.seats[seat].name, sizeof lv.seats[seat].name, "%s", jc->name);
        lv.seats[seat].has_token = true;
        lv.seats[seat].account = jc->account;
        memcpy(lv.seats[seat].token_hash, jc->hash, AUTH_HASH_LEN);
        live_event(&lv, "joined",
                   json_pack("{s:i, s:s, s:b}", "seat", seat, "name", jc->name, "bot", 0));
        lv.changed = true;
        st = start_if_full(c, &lv, &started);
    }
    if (st == STORE_OK)
        st = live_save(c, &lv);
    if (st == STORE_OK) {
        jc->gc.resolved = lv.resolved;
        json_t *reply =
            json_pack("{s:i, s:s, s:s}", "seat", seat, "id", jc->gc.id, "status", lv.row.status);
        if (jc->account)
            json_object_set_new(reply, "account", json_string(jc->name));
        else
            json_object_set_new(reply, "token", json_string(jc->token));
        outcome_reply(o, 201, reply);
    }
    live_free(&lv);
    return st;
}

/* Seats jc (its name, and its account when it has one) in its game. */
static int join(struct server *srv, const char *client, struct join_call *jc, struct outcome *o)
{
    const char *id = jc->gc.id;
    const struct quotas *q = srv->quotas;
    if (q && !service_within_rate(q->join, client, "joined games", q->join_rate, q->join_burst, o))
        return STORE_ABORT;
    if (!auth_new_token(jc->token, jc->hash))
        return outcome_fail(o, P_INTERNAL, NULL, "The server has no randomness; try again.");
    int st = store_tx(srv->store, join_tx, jc, STORE_TRIES_WRITE);
    service_published(srv, st, id, jc->gc.resolved);
    if (st == STORE_OK)
        lobby_cache_changed(srv->lobby); /* the joiner sees its seat taken in the lobby */
    return st;
}

int service_join(struct server *srv, const char *id, const char *client, const json_t *name,
                 struct outcome *o)
{
    struct join_call jc = {.gc = {.srv = srv, .id = id, .o = o}};
    if (!service_read_name(name, jc.name, sizeof jc.name, o))
        return STORE_ABORT;
    return join(srv, client, &jc, o);
}

int service_join_account(struct server *srv, const char *id, const char *client, const char *token,
                         struct outcome *o)
{
    struct join_call jc = {.gc = {.srv = srv, .id = id, .o = o}};
    struct account acct;
    int st = service_account_of(srv, token, &acct, o);
    if (st != STORE_OK)
        return st;
    snprintf(jc.name, sizeof jc.name, "%s", acct.name);
    jc.account = acct.id;
    return join(srv, client, &jc, o);
}

/* ---- events and replay -------------------------------------------------------------------- */

struct events_call {
    struct game_call gc;
    long long after;
    json_t *seats;  /* replay_tx: [{seat, name, bot}] for the rounds view */
    bool with_chat; /* replay_tx: read the table talk too (the rounds view) */
    json_t *chat;   /* its messages, both channels (the game has ended) */
};

static int events_tx(PGconn *c, void *ctx)
{
    struct events_call *ec = ctx;
    json_t *events;
    long long last_seq = 0;
    int st =
        store_events_page(c, ec->gc.id, ec->after, ec->gc.srv->max_events_page, &events, &last_seq);
    if (st == STORE_NO_ROW)
        return outcome_fail(ec->gc.o, P_NO_GAME, NULL, "There is no game \"%.40s\".", ec->gc.id);
    if (st == STORE_OK)
        outcome_reply(ec->gc.o, 200,
                      json_pack("{s:o, s:I}", "events", events, "last_seq", last_seq));
    return st;
}

int service_events(struct server *srv, const char *id, long long after, struct outcome *o)
{
    struct events_call ec = {.gc = {.srv = srv, .id = id, .o = o}, .after = after};
    return store_run(srv->store, events_tx, &ec);
}

static int replay_tx(PGconn *c, void *ctx)
{
    struct events_call *ec = ctx;
    struct outcome *o = ec->gc.o;
    struct live lv;
    int st = service_load(c, &ec->gc, false, ".", &lv);
    if (st == STORE_OK && strcmp(lv.row.status, "finished") != 0)
        st = outcome_fail(o, P_NOT_FINISHED, NULL,
                          "The seed and the decisions stay secret until the game ends.");
    json_t *decisions;
    if (st == STORE_OK)
        st = store_decisions_read(c, ec->gc.id, &decisions);
    if (st == STORE_OK) {
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)lv.rs->seed(lv.g));
        json_t *reply = json_pack("{s:s, s:s, s:i}", "game", lv.rs->id, "seed", seed, "players",
                                  lv.rs->players(lv.g));
        /* the game's options by name, so that the replay deals and ends the same */
        json_object_update_new(reply, ruleset_options_json(lv.rs, lv.g));
        json_object_set_new(reply, "decisions", decisions);
        outcome_reply(o, 200, reply);
        json_decref(ec->seats);
        ec->seats = json_array();
        for (int i = 0; i < lv.nseats; i++)
            json_array_append_new(ec->seats,
                                  json_pack("{s:i, s:s, s:s*}", "seat", lv.seats[i].seat, "name",
                                            lv.seats[i].name, "bot",
                                            lv.seats[i].bot[0] ? lv.seats[i].bot : NULL));
        json_decref(ec->chat);
        ec->chat = NULL;
        if (ec->with_chat)
            st = store_chat_after(c, ec->gc.id, 0, SERVICE_CHAT_REPLAY, true, &ec->chat);
    }
    live_free(&lv);
    return st;
}

int service_replay(struct server *srv, const char *id, struct outcome *o)
{
    struct events_call ec = {.gc = {.srv = srv, .id = id, .o = o}};
    int st = store_run(srv->store, replay_tx, &ec);
    json_decref(ec.seats);
    json_decref(ec.chat);
    return st;
}

int service_replay_rounds(struct server *srv, const char *id, struct outcome *o)
{
    struct events_call ec = {.gc = {.srv = srv, .id = id, .o = o}, .with_chat = true};
    int st = store_run(srv->store, replay_tx, &ec);
    if (st == STORE_OK && o->status == 200) {
        const struct ruleset *rs =
            ruleset_find(json_string_value(json_object_get(o->reply, "game")));
        char err[256] = "";
        json_t *rounds = rs ? ruleset_replay_rounds(rs, o->reply, err, sizeof err) : NULL;
        json_t *reply = NULL;
        if (rounds) {
            reply =
                json_pack("{s:O, s:O, s:o, s:o, s:o}", "game", json_object_get(o->reply, "game"),
                          "players", json_object_get(o->reply, "players"), "seats", ec.seats,
                          "rounds", rounds, "chat", ec.chat ? ec.chat : json_array());
            ec.seats = ec.chat = NULL; /* taken by the reply */
        }
        if (reply)
            outcome_reply(o, 200, reply);
        else
            st = outcome_fail(o, P_INTERNAL, NULL, "The game's replay does not replay: %s", err);
    }
    json_decref(ec.seats);
    json_decref(ec.chat);
    return st;
}
