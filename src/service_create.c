/* service_create.c: the calls that seat people at a game (service.h): create (the body read
 * against the chosen game's descriptor, the game dealt, its creator seated) and join (by name or
 * by an account's session), each starting the game once its seats are full. Each write is one
 * store_tx() whose body locks the game row. */
#include "service.h"
#include "service_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "expert_levels.h"
#include "lobbycache.h"
#include "names.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_accounts.h"

enum { TURN_MIN = 5, TURN_MAX = 86400 };

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

/* service_int.h says what this adds; the one place outside The City's folder that names one
 * of its options (the stored rows have it in their options since migration 0012). */
void service_add_older_fields(json_t *game)
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
    service_add_older_fields(reply);
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
    /* Names tell the players apart in the log, the standings and the votes: one a table. */
    char mine[NAMES_KEY_BYTES], theirs[NAMES_KEY_BYTES];
    if (st == STORE_OK && !name_table_key(jc->name, mine))
        st = outcome_fail(o, P_INTERNAL, NULL, "The server ran out of memory; try again.");
    for (int i = 0; st == STORE_OK && i < lv.nseats; i++)
        if (lv.seats[i].name[0] && name_table_key(lv.seats[i].name, theirs) &&
            strcmp(mine, theirs) == 0)
            st = outcome_fail(o, P_NAME_TAKEN, NULL,
                              jc->account ? "A player at this table is called \"%s\" already; "
                                            "an account joins under its own name, so join this "
                                            "game signed out, under another name."
                                          : "A player at this table is called \"%s\" already; "
                                            "join under another name.",
                              lv.seats[i].name);
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
