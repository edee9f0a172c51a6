/* api_games.c: the handlers of /api/v1/games and below that are not moves (api_play.c has
 * orders and resolve): create, list, view, join, hand, events, replay. Each write is one
 * store_tx() whose body locks the game row. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_common.h"
#include "auth.h"
#include "batch.h"
#include "expert_levels.h"
#include "hub.h"
#include "metrics.h"
#include "names.h"
#include "ratelimit.h"
#include "server.h"
#include "service.h"
#include "store.h"
#include "viewcache.h"

enum { TURN_MIN = 5, TURN_MAX = 86400, LIST_LIMIT = 100 };

/* ---- body fields -------------------------------------------------------------------------- */

/* Checks a player name with name_clean() (names.h: NFC, trimmed, no controls, bidi or invisible
 * characters, 1..NAMES_MAX_CHARS characters, not a bot's). Writes the clean name to out (size n,
 * at least NAMES_MAX_BYTES + 1); false (a 400 queued) when it is refused. */
static bool name_field(struct http_req *r, json_t *v, char *out, size_t n)
{
    if (!v) {
        http_reply_problem(r, P_MISSING_FIELD, NULL,
                           "The field \"name\" is required: the name others will see.");
        return false;
    }
    if (!json_is_string(v)) {
        http_reply_problem(r, P_WRONG_TYPE, NULL, "\"name\" must be a string.");
        return false;
    }
    char clean[NAMES_MAX_BYTES + 1], why[400];
    enum name_verdict nv =
        name_clean(json_string_value(v), json_string_length(v), clean, why, sizeof why);
    if (nv != NAME_OK) {
        http_reply_problem(r, nv == NAME_NO_MEMORY ? P_INTERNAL : P_BAD_VALUE, NULL, "%s", why);
        return false;
    }
    snprintf(out, n, "%s", clean);
    return true;
}

/* Reads optional field "bot_level", the level of the game's experts (expert_levels.h), into
 * *out (EXPERT_LEVEL_DEFAULT when absent or null); false (a 400 queued) when it names none. */
static bool level_field(struct http_req *r, const struct expert_level **out)
{
    json_t *v = json_object_get(r->json, "bot_level");
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
    http_reply_problem(r, json_is_string(v) ? P_BAD_VALUE : P_WRONG_TYPE, NULL,
                       "\"bot_level\" must be one of %s: how hard the game's expert bots think "
                       "(GET /api/v1/rulesets lists the levels; leave it out for \"%s\").",
                       list, EXPERT_LEVEL_DEFAULT);
    return false;
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
};

static int create_tx(PGconn *c, void *ctx)
{
    struct create_ctx *cc = ctx;
    int st = store_game_insert(c, &cc->row, cc->seats, cc->nseats);
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
        st = start_if_full(c, &lv, &cc->started);
    }
    if (st == STORE_OK)
        st = live_save(c, &lv);
    live_free(&lv);
    return st;
}

void api_create_game(struct http_req *r)
{
    if (!r->json) {
        http_reply_problem(r, P_BAD_JSON, NULL,
                           "Send a JSON object such as {\"seats\": 4, \"bots\": [\"greedy\", "
                           "\"greedy\", \"greedy\"]}.");
        return;
    }
    const struct ruleset *rs = rulesets[0];
    json_t *jgame = json_object_get(r->json, "game");
    if (jgame && !json_is_null(jgame)) {
        rs = json_is_string(jgame) ? ruleset_find(json_string_value(jgame)) : NULL;
        if (!rs) {
            char list[200] = "";
            for (int i = 0; rulesets[i]; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "",
                         rulesets[i]->id);
            http_reply_problem(r, json_is_string(jgame) ? P_BAD_VALUE : P_WRONG_TYPE, NULL,
                               "\"game\" must be one of %s (GET /api/v1/rulesets lists them).",
                               list);
            return;
        }
    }
    /* The body's shape in one place: the common fields, then the game's own options (whose
     * values ruleset_read_options() judges below, by the seat count). */
    enum { F_SEATS = 1, F_BOTS, F_TURN, F_SEED, F_NAME, F_PRIVATE, F_LEVEL, F_COMMON };
    struct api_field spec[F_COMMON + RS_MAX_OPTIONS] = {
        {"game", AF_ANY, false, 0, 0},
        {"seats", AF_INT, true, rs->min_players, rs->max_players},
        {"bots", AF_ANY, false, 0, 0},
        {"turn_seconds", AF_INT, false, TURN_MIN, TURN_MAX},
        {"seed", AF_ANY, false, 0, 0},
        {"name", AF_STRING, false, 0, 0},
        {"private", AF_BOOL, false, 0, 0},
        {"bot_level", AF_ANY, false, 0, 0},
    };
    int nspec = F_COMMON;
    for (int i = 0; i < rs->noptions; i++)
        spec[nspec++] = (struct api_field){rs->options[i].name, AF_ANY, false, 0, 0};
    const json_t *vals[F_COMMON + RS_MAX_OPTIONS];
    char what[80];
    snprintf(what, sizeof what, "creating a game of %s", rs->title);
    if (!api_reply_fields(r, spec, nspec, what, vals))
        return;
    long long seats = json_integer_value(vals[F_SEATS]);
    bool has_turn = vals[F_TURN] != NULL;
    long long turn = has_turn ? json_integer_value(vals[F_TURN]) : 0;
    /* The game's own options, checked against its declared ranges at this seat count. */
    int options[RS_MAX_OPTIONS];
    char why[300];
    const char *bad = ruleset_read_options(rs, (int)seats, r->json, options, why, sizeof why);
    if (bad) {
        http_reply_problem(r, strcmp(bad, "wrong_type") == 0 ? P_WRONG_TYPE : P_BAD_VALUE, NULL,
                           "%s", why);
        return;
    }
    json_t *bots = json_object_get(r->json, "bots");
    int nbots = 0;
    const char *kinds[RS_MAX_SEATS];
    if (bots && !json_is_null(bots)) {
        if (!json_is_array(bots)) {
            http_reply_problem(r, P_WRONG_TYPE, NULL,
                               "\"bots\" must be an array of bot kinds such as \"greedy\" "
                               "(GET /api/v1/rulesets lists each game's).");
            return;
        }
        if ((long long)json_array_size(bots) >= seats) {
            http_reply_problem(r, P_BAD_VALUE, NULL,
                               "\"bots\" may fill at most %lld of the %lld seats: at least one "
                               "seat is for a person.",
                               seats - 1, seats);
            return;
        }
        size_t i;
        json_t *b;
        json_array_foreach(bots, i, b)
        {
            if (!json_is_string(b) || !ruleset_has_bot(rs, json_string_value(b))) {
                char kinds_list[160] = "";
                for (int k = 0; rs->bots[k]; k++)
                    snprintf(kinds_list + strlen(kinds_list),
                             sizeof kinds_list - strlen(kinds_list), "%s\"%s\"", k ? ", " : "",
                             rs->bots[k]);
                http_reply_problem(r, P_BAD_VALUE, NULL, "bots[%zu] must be one of %s.", i,
                                   kinds_list);
                return;
            }
            kinds[nbots++] = json_string_value(b);
        }
    }
    uint64_t seed = auth_random_u64();
    json_t *jseed = json_object_get(r->json, "seed");
    if (jseed && !json_is_null(jseed)) {
        if (!r->srv->allow_seed) {
            http_reply_problem(r, P_SEED_NOT_ALLOWED, NULL,
                               "This server deals its own seeds; leave \"seed\" out (servers "
                               "started with --allow-seed take one).");
            return;
        }
        static const char seed_rule[] = "\"seed\" must be a non-negative integer, or a string "
                                        "of decimal digits up to 18446744073709551615.";
        bool seed_ok = false;
        if (json_is_integer(jseed)) {
            seed_ok = json_integer_value(jseed) >= 0;
            seed = (uint64_t)json_integer_value(jseed);
        } else if (json_is_string(jseed)) {
            char *end;
            const char *s = json_string_value(jseed);
            errno = 0;
            seed = strtoull(s, &end, 10);
            seed_ok = *s >= '0' && *s <= '9' && !*end && errno != ERANGE;
        } else {
            http_reply_problem(r, P_WRONG_TYPE, NULL, "%s", seed_rule);
            return;
        }
        if (!seed_ok) {
            http_reply_problem(r, P_BAD_VALUE, NULL, "%s", seed_rule);
            return;
        }
    }
    const json_t *jprivate = vals[F_PRIVATE];
    char name[200] = "";
    json_t *jname = json_object_get(r->json, "name");
    if (jname && !json_is_null(jname) && !name_field(r, jname, name, sizeof name))
        return;
    const struct expert_level *level;
    if (!level_field(r, &level))
        return;

    const struct quotas *q = r->srv->quotas;
    if (q && !api_within_rate(r, q->create, "created games", q->create_rate, q->create_burst))
        return;

    struct create_ctx cc;
    memset(&cc, 0, sizeof cc);
    cc.srv = r->srv;
    void *g = calloc(1, rs->state_size);
    if (!g || !rs->new_game(g, (int)seats, seed, options)) {
        free(g);
        http_reply_problem(r, P_INTERNAL, NULL, "The game could not be dealt; try again.");
        return;
    }
    char host_token[AUTH_TOKEN_LEN + 1], seat_token[AUTH_TOKEN_LEN + 1];
    if (!auth_new_id(cc.row.id) || !auth_new_token(host_token, cc.row.host_hash)) {
        free(g);
        http_reply_problem(r, P_INTERNAL, NULL, "The server has no randomness; try again.");
        return;
    }
    snprintf(cc.row.status, sizeof cc.row.status, "open");
    snprintf(cc.row.game, sizeof cc.row.game, "%s", rs->id);
    cc.row.unlisted = json_is_true(jprivate);
    snprintf(cc.row.bot_level, sizeof cc.row.bot_level, "%s", level->id);
    cc.row.players = (int)seats;
    json_t *opts = ruleset_options_json(rs, g);
    json_t *jtarget = json_object_get(opts, "target_vp"); /* the lobby's older field */
    cc.row.target_vp = jtarget ? (int)json_integer_value(jtarget) : 0;
    char *opts_text = json_dumps(opts, JSON_COMPACT);
    snprintf(cc.row.options, sizeof cc.row.options, "%s", opts_text ? opts_text : "{}");
    free(opts_text);
    cc.row.turn_seconds = has_turn ? (int)turn : 0;
    cc.row.state = rs->to_json(g);
    free(g);
    cc.nseats = (int)seats;
    for (int s = 0; s < seats; s++) {
        cc.seats[s].seat = s;
        int b = s - ((int)seats - nbots); /* bots take the last seats */
        if (b >= 0) {
            snprintf(cc.seats[s].bot, sizeof cc.seats[s].bot, "%s", kinds[b]);
            snprintf(cc.seats[s].name, sizeof cc.seats[s].name, "Bot %d (%s)", s + 1, kinds[b]);
        }
    }
    if (name[0]) {
        snprintf(cc.seats[0].name, sizeof cc.seats[0].name, "%s", name);
        cc.seats[0].has_token = auth_new_token(seat_token, cc.seats[0].token_hash);
    }
    int st = store_tx(r->srv->store, create_tx, &cc, STORE_TRIES_READ);
    game_row_clear(&cc.row);
    if (st != STORE_OK) {
        json_decref(opts);
        struct outcome o = {0};
        api_answer(r, st, &o);
        return;
    }
    char join[96];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", cc.row.id);
    json_t *reply =
        json_pack("{s:s, s:s, s:s, s:i, s:i, s:o, s:s}", "id", cc.row.id, "game", rs->id,
                  "host_token", host_token, "seats", (int)seats, "bots", nbots, "target_vp",
                  jtarget ? json_integer(cc.row.target_vp) : json_null(), "join", join);
    json_object_set_new(reply, "options", opts);
    json_object_set_new(reply, "turn_seconds", has_turn ? json_integer(turn) : json_null());
    json_object_set_new(reply, "private", json_boolean(cc.row.unlisted));
    json_object_set_new(reply, "bot_level", json_string(level->id));
    if (name[0]) {
        json_object_set_new(reply, "seat", json_integer(0));
        json_object_set_new(reply, "token", json_string(seat_token));
    }
    json_object_set_new(reply, "status", json_string(cc.started ? "playing" : "open"));
    http_reply_json(r, 201, reply);
}

/* ---- reads -------------------------------------------------------------------------------- */

static int list_tx(PGconn *c, void *ctx)
{
    struct read_ctx *rc = ctx;
    json_t *games;
    int st = store_games_list(c, LIST_LIMIT, &games);
    if (st == STORE_OK) {
        rc->o.status = 200;
        rc->o.reply = json_pack("{s:o}", "games", games);
    }
    return st;
}

void api_list_games(struct http_req *r)
{
    struct read_ctx rc = {.srv = r->srv};
    api_answer(r, store_run(r->srv->store, list_tx, &rc), &rc.o);
}

static int view_tx(PGconn *c, void *ctx)
{
    struct read_ctx *rc = ctx;
    struct live lv;
    int st = live_load(c, rc->srv, rc->id, false, &lv);
    if (st == STORE_OK) {
        rc->o.status = 200;
        rc->o.reply = live_public_view(&lv);
    } else if (st == STORE_NO_ROW) {
        st = api_fail(&rc->o, P_NO_GAME, NULL,
                      "There is no game \"%.40s\"; list games with GET "
                      "/api/v1/games.",
                      rc->id);
    }
    live_free(&lv);
    return st;
}

/* The public view, from this instance's view cache when it holds the game (see
 * viewcache.h), else from the database (and then cached). */
void api_get_game(struct http_req *r)
{
    struct view_cache *vc = r->srv->views;
    const char *id = r->params[0];
    char *body;
    size_t len;
    if (vc && view_cache_get(vc, id, &body, &len)) {
        http_reply_bytes(r, 200, "application/json", body, len);
        return;
    }
    uint64_t ticket = vc ? view_cache_ticket(vc, id) : 0;
    struct read_ctx rc = {.srv = r->srv, .id = id};
    int st = store_run(r->srv->store, view_tx, &rc);
    if (st == STORE_OK && rc.o.status == 200) {
        body = json_dumps(rc.o.reply, JSON_COMPACT);
        json_decref(rc.o.reply);
        rc.o.reply = NULL;
        if (!body) {
            http_reply_problem(r, P_INTERNAL, NULL, "The reply could not be encoded.");
            return;
        }
        len = strlen(body);
        if (vc)
            view_cache_put(vc, id, ticket, body, len);
        http_reply_bytes(r, 200, "application/json", body, len);
        return;
    }
    api_answer(r, st, &rc.o);
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

static int hand_tx(PGconn *c, void *ctx)
{
    struct read_ctx *rc = ctx;
    struct live lv;
    int st = live_load(c, rc->srv, rc->id, false, &lv);
    if (st == STORE_NO_ROW)
        st = api_fail(&rc->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", rc->id);
    if (st == STORE_OK) {
        int seat = api_seat_of_token(c, &lv, rc->token, &rc->o);
        if (seat < 0) {
            st = STORE_ABORT;
        } else {
            json_t *v = ruleset_private_view(lv.rs, lv.g, seat);
            json_object_set_new(v, "id", json_string(lv.row.id));
            json_object_set_new(v, "game", json_string(lv.rs->id));
            json_object_set_new(v, "status", json_string(lv.row.status));
            if (strcmp(lv.row.status, "open") == 0)
                json_object_set_new(v, "pending", json_null()); /* not started yet */
            json_t *why = NULL;
            st = defaulted_of(c, &lv, seat, &why);
            json_object_set_new(v, "defaulted", why ? why : json_null());
            if (st == STORE_OK) {
                rc->o.status = 200;
                rc->o.reply = v;
            } else {
                json_decref(v);
            }
        }
    }
    live_free(&lv);
    return st;
}

void api_hand(struct http_req *r)
{
    struct read_ctx rc = {.srv = r->srv, .id = r->params[0], .token = http_bearer(r)};
    api_answer(r, store_run(r->srv->store, hand_tx, &rc), &rc.o);
}

/* ---- join --------------------------------------------------------------------------------- */

struct join_ctx {
    struct server *srv;
    const char *id;
    char name[200];
    char token[AUTH_TOKEN_LEN + 1];
    uint8_t hash[AUTH_HASH_LEN];
    int resolved;
    struct outcome o;
};

static int join_tx(PGconn *c, void *ctx)
{
    struct join_ctx *jc = ctx;
    struct live lv;
    int st = live_load(c, jc->srv, jc->id, true, &lv);
    if (st == STORE_NO_ROW)
        st = api_fail(&jc->o, P_NO_GAME, NULL,
                      "There is no game \"%.40s\"; list open games with "
                      "GET /api/v1/games.",
                      jc->id);
    int seat = -1;
    if (st == STORE_OK && api_is_unplayed(lv.row.status))
        st = api_fail_unplayed(&jc->o, lv.row.status);
    if (st == STORE_OK) {
        for (int i = 0; i < lv.nseats && seat < 0; i++)
            if (!lv.seats[i].name[0])
                seat = lv.seats[i].seat;
        if (strcmp(lv.row.status, "open") != 0 || seat < 0)
            st = api_fail(&jc->o, P_GAME_FULL, NULL,
                          "Every seat of this game is taken; create a game or join another.");
    }
    bool started = false;
    if (st == STORE_OK)
        st = store_seat_take(c, jc->id, seat, jc->name, jc->hash);
    if (st == STORE_OK) {
        snprintf(lv.seats[seat].name, sizeof lv.seats[seat].name, "%s", jc->name);
        lv.seats[seat].has_token = true;
        memcpy(lv.seats[seat].token_hash, jc->hash, AUTH_HASH_LEN);
        live_event(&lv, "joined",
                   json_pack("{s:i, s:s, s:b}", "seat", seat, "name", jc->name, "bot", 0));
        lv.changed = true;
        st = start_if_full(c, &lv, &started);
    }
    if (st == STORE_OK)
        st = live_save(c, &lv);
    if (st == STORE_OK) {
        jc->resolved = lv.resolved;
        jc->o.status = 201;
        jc->o.reply = json_pack("{s:i, s:s, s:s, s:s}", "seat", seat, "token", jc->token, "id",
                                jc->id, "status", lv.row.status);
    }
    live_free(&lv);
    return st;
}

void api_join(struct http_req *r)
{
    if (!r->json) {
        http_reply_problem(r, P_BAD_JSON, NULL, "Send a JSON object such as {\"name\": \"Ada\"}.");
        return;
    }
    struct join_ctx jc = {.srv = r->srv, .id = r->params[0]};
    static const struct api_field spec[] = {{"name", AF_STRING, true, 0, 0}};
    const json_t *vals[1];
    if (!api_reply_fields(r, spec, 1, "joining a game", vals) ||
        !name_field(r, json_object_get(r->json, "name"), jc.name, sizeof jc.name))
        return;
    const struct quotas *q = r->srv->quotas;
    if (q && !api_within_rate(r, q->join, "joined games", q->join_rate, q->join_burst))
        return;
    if (!auth_new_token(jc.token, jc.hash)) {
        http_reply_problem(r, P_INTERNAL, NULL, "The server has no randomness; try again.");
        return;
    }
    int st = store_tx(r->srv->store, join_tx, &jc, STORE_TRIES_WRITE);
    if (st == STORE_OK) {
        metrics_steps_resolved(jc.resolved);
        hub_publish(r->srv->hub, jc.id, 0);
    }
    api_answer(r, st, &jc.o);
}

/* ---- events and replay -------------------------------------------------------------------- */

struct events_ctx {
    struct server *srv;
    const char *id;
    long long after;
    struct outcome o;
    json_t *seats; /* replay_tx: [{seat, name, bot}] for the rounds view */
};

static int events_tx(PGconn *c, void *ctx)
{
    struct events_ctx *ec = ctx;
    json_t *events;
    long long last_seq = 0;
    int st = store_events_page(c, ec->id, ec->after, ec->srv->max_events_page, &events, &last_seq);
    if (st == STORE_NO_ROW)
        return api_fail(&ec->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", ec->id);
    if (st == STORE_OK) {
        ec->o.status = 200;
        ec->o.reply = json_pack("{s:o, s:I}", "events", events, "last_seq", last_seq);
    }
    return st;
}

/* Parses a non-negative integer query value; NULL means 0. */
static bool parse_after(const char *s, long long *out)
{
    *out = 0;
    if (!s)
        return true;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < 0 || v > 1000000000000LL)
        return false;
    *out = v;
    return true;
}

void api_events(struct http_req *r)
{
    struct events_ctx ec = {.srv = r->srv, .id = r->params[0]};
    if (!parse_after(http_query(r, "after"), &ec.after)) {
        http_reply_problem(r, P_BAD_QUERY, NULL,
                           "\"after\" must be a non-negative integer: the last event sequence "
                           "number you have.");
        return;
    }
    api_answer(r, store_run(r->srv->store, events_tx, &ec), &ec.o);
}

static int replay_tx(PGconn *c, void *ctx)
{
    struct events_ctx *ec = ctx;
    struct live lv;
    int st = live_load(c, ec->srv, ec->id, false, &lv);
    if (st == STORE_NO_ROW)
        st = api_fail(&ec->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", ec->id);
    if (st == STORE_OK && strcmp(lv.row.status, "finished") != 0)
        st = api_fail(&ec->o, P_NOT_FINISHED, NULL,
                      "The seed and the decisions stay secret until the game ends.");
    json_t *decisions;
    if (st == STORE_OK)
        st = store_decisions_read(c, ec->id, &decisions);
    if (st == STORE_OK) {
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)lv.rs->seed(lv.g));
        ec->o.status = 200;
        ec->o.reply = json_pack("{s:s, s:s, s:i}", "game", lv.rs->id, "seed", seed, "players",
                                lv.rs->players(lv.g));
        /* the game's options by name (The City's target_vp, Tech City's decks), so that the
         * replay deals and ends the same */
        json_object_update_new(ec->o.reply, ruleset_options_json(lv.rs, lv.g));
        json_object_set_new(ec->o.reply, "decisions", decisions);
        ec->seats = json_array();
        for (int i = 0; i < lv.nseats; i++)
            json_array_append_new(ec->seats,
                                  json_pack("{s:i, s:s, s:s*}", "seat", lv.seats[i].seat, "name",
                                            lv.seats[i].name, "bot",
                                            lv.seats[i].bot[0] ? lv.seats[i].bot : NULL));
    }
    live_free(&lv);
    return st;
}

void api_replay(struct http_req *r)
{
    struct events_ctx ec = {.srv = r->srv, .id = r->params[0]};
    api_answer(r, store_run(r->srv->store, replay_tx, &ec), &ec.o);
    json_decref(ec.seats);
}

/* The finished game round by round, for the page's replay viewer: the published replay replayed
 * here (ruleset_replay_rounds(), outside the transaction), with the seats' names. */
void api_replay_rounds(struct http_req *r)
{
    struct events_ctx ec = {.srv = r->srv, .id = r->params[0]};
    int st = store_run(r->srv->store, replay_tx, &ec);
    if (st == STORE_OK && ec.o.status == 200) {
        const struct ruleset *rs =
            ruleset_find(json_string_value(json_object_get(ec.o.reply, "game")));
        char err[256] = "";
        json_t *rounds = rs ? ruleset_replay_rounds(rs, ec.o.reply, err, sizeof err) : NULL;
        json_t *reply = NULL;
        if (rounds)
            reply = json_pack("{s:O, s:O, s:o, s:o}", "game", json_object_get(ec.o.reply, "game"),
                              "players", json_object_get(ec.o.reply, "players"), "seats", ec.seats,
                              "rounds", rounds);
        ec.seats = NULL;
        json_decref(ec.o.reply);
        ec.o.reply = reply;
        if (!reply)
            st = api_fail(&ec.o, P_INTERNAL, NULL, "The game's replay does not replay: %s", err);
    }
    api_answer(r, st, &ec.o);
    json_decref(ec.seats);
}
