/* api_games.c: the handlers of /api/v1/games and below: create, list, view, join, hand,
 * orders, resolve, events, replay. Each write is one store_tx() whose body locks the game row. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "batch.h"
#include "hub.h"
#include "metrics.h"
#include "names.h"
#include "ratelimit.h"
#include "server.h"
#include "service.h"
#include "store.h"
#include "viewcache.h"

enum { TURN_MIN = 5, TURN_MAX = 86400, LIST_LIMIT = 100 };

/* What a transaction body decided to answer. */
struct outcome {
    int status;     /* 2xx on success */
    enum problem p; /* otherwise */
    char code[48];  /* problem code override, or "" */
    char detail[400];
    int retry_after; /* seconds for Retry-After, or 0 */
    json_t *reply;   /* success body, owned */
};

static int fail(struct outcome *o, enum problem p, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct outcome *o, enum problem p, const char *code, const char *fmt, ...)
{
    o->status = 0;
    o->p = p;
    snprintf(o->code, sizeof o->code, "%s", code ? code : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->detail, sizeof o->detail, fmt, ap);
    va_end(ap);
    json_decref(o->reply);
    o->reply = NULL;
    return STORE_ABORT;
}

/* Answers the request from a transaction's status and outcome. */
static void answer(struct http_req *r, int st, struct outcome *o)
{
    if (st == STORE_OK && o->status) {
        http_reply_json(r, o->status, o->reply);
        o->reply = NULL;
    } else if (st == STORE_ABORT || (st == STORE_OK && !o->status)) {
        http_reply_problem(r, o->p, o->code[0] ? o->code : NULL, "%s", o->detail);
        r->reply.retry_after = o->retry_after;
    } else if (st == STORE_UNAVAILABLE) {
        http_reply_problem(r, P_UNAVAILABLE, NULL,
                           "The database is unreachable right now; try again in a few seconds.");
    } else {
        http_reply_problem(r, P_INTERNAL, NULL,
                           "The server could not complete the request; nothing was changed.");
    }
    json_decref(o->reply);
    o->reply = NULL;
}

/* ---- quotas ------------------------------------------------------------------------------ */

/* Takes one token of the client address's bucket in `rl` (NULL: no limit). False, with a 429
 * and its Retry-After queued, when the bucket is empty: `what` says what the address did too
 * often ("created games"), `rate` and `burst` are the limit's settings. */
static bool within_rate(struct http_req *r, struct rate_limit *rl, const char *what, double rate,
                        int burst)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int wait = rate_limit_take(rl, http_client(r), (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
    if (!wait)
        return true;
    http_reply_problem(r, P_RATE_LIMITED, NULL,
                       "Your address has %s too often: this server allows %g a minute, %d at "
                       "once. Try again in %d second%s (see Retry-After).",
                       what, rate, burst, wait, wait == 1 ? "" : "s");
    r->reply.retry_after = wait;
    return false;
}

/* The refusal of a join, an order or a force on an expired game. */
static int fail_expired(struct outcome *o)
{
    return fail(o, P_GAME_EXPIRED, NULL,
                "This game expired: its seats did not fill in time. Create a game or join an "
                "open one (GET /api/v1/games).");
}

/* ---- body fields -------------------------------------------------------------------------- */

/* Refuses a body with a key outside `allowed` (NULL-terminated). */
static bool only_fields(struct http_req *r, const char *const *allowed, const char *what)
{
    const char *key;
    json_t *v;
    json_object_foreach(r->json, key, v)
    {
        bool ok = false;
        for (const char *const *a = allowed; *a; a++)
            ok = ok || strcmp(*a, key) == 0;
        if (!ok) {
            char list[200] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 3);
                if (a[1])
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            http_reply_problem(r, P_UNKNOWN_FIELD, NULL,
                               "Unknown field \"%.60s\"; %s takes only %s.", key, what, list);
            return false;
        }
    }
    return true;
}

/* Reads optional integer field `name` in [min, max]; false (reply queued) when bad. */
static bool int_field(struct http_req *r, const char *name, bool required, long long min,
                      long long max, long long *out, bool *present)
{
    json_t *v = json_object_get(r->json, name);
    *present = v && !json_is_null(v);
    if (!*present) {
        if (required)
            http_reply_problem(r, P_MISSING_FIELD, NULL, "The field \"%s\" is required.", name);
        return !required;
    }
    if (!json_is_integer(v)) {
        http_reply_problem(r, P_WRONG_TYPE, NULL, "\"%s\" must be an integer.", name);
        return false;
    }
    long long x = json_integer_value(v);
    if (x < min || x > max) {
        http_reply_problem(r, P_BAD_VALUE, NULL, "\"%s\" must be between %lld and %lld.", name, min,
                           max);
        return false;
    }
    *out = x;
    return true;
}

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
    static const char *const allowed[] = {"game", "seats", "bots",    "target_vp", "turn_seconds",
                                          "seed", "name",  "private", NULL};
    if (!r->json) {
        http_reply_problem(r, P_BAD_JSON, NULL,
                           "Send a JSON object such as {\"seats\": 4, \"bots\": [\"greedy\", "
                           "\"greedy\", \"greedy\"]}.");
        return;
    }
    if (!only_fields(r, allowed, "creating a game"))
        return;
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
    long long seats = 0, target = rs->target_default, turn = 0;
    bool has_target, has_turn, present;
    json_t *jtarget = json_object_get(r->json, "target_vp");
    if (!rs->has_target && jtarget && !json_is_null(jtarget)) {
        http_reply_problem(r, P_BAD_VALUE, NULL, "%s has no target score; leave \"target_vp\" out.",
                           rs->title);
        return;
    }
    if (!int_field(r, "seats", true, rs->min_players, rs->max_players, &seats, &present) ||
        !int_field(r, "target_vp", false, rs->has_target ? rs->target_min : 0,
                   rs->has_target ? rs->target_max : 0, &target, &has_target) ||
        !int_field(r, "turn_seconds", false, TURN_MIN, TURN_MAX, &turn, &has_turn))
        return;
    if (has_target && !rs->has_target) {
        http_reply_problem(r, P_BAD_VALUE, NULL, "%s has no target score; leave \"target_vp\" out.",
                           rs->title);
        return;
    }
    json_t *bots = json_object_get(r->json, "bots");
    int nbots = 0;
    const char *kinds[RS_MAX_SEATS];
    if (bots && !json_is_null(bots)) {
        if (!json_is_array(bots)) {
            http_reply_problem(r, P_WRONG_TYPE, NULL,
                               "\"bots\" must be an array of bot kinds (\"greedy\" or "
                               "\"random\").");
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
    json_t *jprivate = json_object_get(r->json, "private");
    if (jprivate && !json_is_boolean(jprivate) && !json_is_null(jprivate)) {
        http_reply_problem(r, P_WRONG_TYPE, NULL,
                           "\"private\" must be true (a table left out of the lobby, joined "
                           "through its link) or false.");
        return;
    }
    char name[200] = "";
    json_t *jname = json_object_get(r->json, "name");
    if (jname && !json_is_null(jname) && !name_field(r, jname, name, sizeof name))
        return;

    const struct quotas *q = r->srv->quotas;
    if (q && !within_rate(r, q->create, "created games", q->create_rate, q->create_burst))
        return;

    struct create_ctx cc;
    memset(&cc, 0, sizeof cc);
    cc.srv = r->srv;
    void *g = calloc(1, rs->state_size);
    if (!g || !rs->new_game(g, (int)seats, seed, (int)target)) {
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
    cc.row.players = (int)seats;
    cc.row.target_vp = rs->target(g);
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
    int st = store_tx(r->srv->store, create_tx, &cc, 3);
    game_row_clear(&cc.row);
    if (st != STORE_OK) {
        struct outcome o = {0};
        answer(r, st, &o);
        return;
    }
    char join[96];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", cc.row.id);
    json_t *reply =
        json_pack("{s:s, s:s, s:s, s:i, s:i, s:o, s:s}", "id", cc.row.id, "game", rs->id,
                  "host_token", host_token, "seats", (int)seats, "bots", nbots, "target_vp",
                  rs->has_target ? json_integer(cc.row.target_vp) : json_null(), "join", join);
    json_object_set_new(reply, "turn_seconds", has_turn ? json_integer(turn) : json_null());
    json_object_set_new(reply, "private", json_boolean(cc.row.unlisted));
    if (name[0]) {
        json_object_set_new(reply, "seat", json_integer(0));
        json_object_set_new(reply, "token", json_string(seat_token));
    }
    json_object_set_new(reply, "status", json_string(cc.started ? "playing" : "open"));
    http_reply_json(r, 201, reply);
}

/* ---- reads -------------------------------------------------------------------------------- */

struct read_ctx {
    struct server *srv;
    const char *id;
    const char *token; /* for the hand view */
    struct outcome o;
};

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
    answer(r, store_run(r->srv->store, list_tx, &rc), &rc.o);
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
        st = fail(&rc->o, P_NO_GAME, NULL,
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
    answer(r, st, &rc.o);
}

/* Finds the seat of `token` in a loaded game, or queues the right 401/403. */
static int seat_of_token(PGconn *c, struct live *lv, const char *token, struct outcome *o)
{
    if (!token) {
        fail(o, P_NO_TOKEN, NULL,
             "Send your seat token as \"Authorization: Bearer TOKEN\" (it came with join).");
        return -1;
    }
    uint8_t hash[AUTH_HASH_LEN];
    auth_hash(token, hash);
    int seat = live_seat_of(lv, hash);
    if (seat >= 0)
        return seat;
    if (auth_equal(hash, lv->row.host_hash)) {
        fail(o, P_NOT_SEAT, NULL,
             "This is the host token; hands and orders need a seat token from join.");
        return -1;
    }
    if (store_token_known(c, hash) == STORE_OK)
        fail(o, P_WRONG_GAME, NULL,
             "This token belongs to another game; use the token of "
             "your seat in this game.");
    else
        fail(o, P_BAD_TOKEN, NULL, "The token is not valid; join the game to get one.");
    return -1;
}

/* What seat `seat` was given by default in the step that resolved last, and why, for its
 * hand view: {round, step, reason: "timer" | "forced_by_host" | "forced_by_seat", by,
 * chosen: the order body, cards: [{id, card}] the discards it names}; *out stays NULL when it
 * decided that step itself, or has decided the current step since (its own decision replaces the
 * notice). */
static int defaulted_of(PGconn *c, const struct live *lv, int seat, json_t **out)
{
    *out = NULL;
    if (strcmp(lv->row.status, "open") == 0 || lv->row.ndecisions < 1 ||
        (!lv->rs->over(lv->g) && lv->rs->submitted(lv->g, seat)))
        return STORE_OK;
    json_t *d;
    int st = store_last_default(c, lv->row.id, seat, lv->row.ndecisions, lv->row.players, &d);
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
    /* The cards the default gave up: the chosen order's list of hand cards, "discard" in The
     * City, "cards" in Tech City. */
    json_t *cards = json_array(), *id;
    json_t *chosen = json_object_get(d, "chosen"), *list = json_object_get(chosen, "discard");
    if (!list)
        list = json_object_get(chosen, "cards");
    size_t i;
    json_array_foreach(list, i, id)
    {
        json_int_t card = json_integer_value(id);
        const char *slug = card >= 0 && card < 100000 ? lv->rs->card_id(lv->g, (int)card) : NULL;
        if (slug)
            json_array_append_new(cards, json_pack("{s:I, s:s}", "id", card, "card", slug));
    }
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
        st = fail(&rc->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", rc->id);
    if (st == STORE_OK) {
        int seat = seat_of_token(c, &lv, rc->token, &rc->o);
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
    answer(r, store_run(r->srv->store, hand_tx, &rc), &rc.o);
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
        st = fail(&jc->o, P_NO_GAME, NULL,
                  "There is no game \"%.40s\"; list open games with "
                  "GET /api/v1/games.",
                  jc->id);
    int seat = -1;
    if (st == STORE_OK && strcmp(lv.row.status, "expired") == 0)
        st = fail_expired(&jc->o);
    if (st == STORE_OK) {
        for (int i = 0; i < lv.nseats && seat < 0; i++)
            if (!lv.seats[i].name[0])
                seat = lv.seats[i].seat;
        if (strcmp(lv.row.status, "open") != 0 || seat < 0)
            st = fail(&jc->o, P_GAME_FULL, NULL,
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
    static const char *const allowed[] = {"name", NULL};
    if (!r->json) {
        http_reply_problem(r, P_BAD_JSON, NULL, "Send a JSON object such as {\"name\": \"Ada\"}.");
        return;
    }
    struct join_ctx jc = {.srv = r->srv, .id = r->params[0]};
    if (!only_fields(r, allowed, "join") ||
        !name_field(r, json_object_get(r->json, "name"), jc.name, sizeof jc.name))
        return;
    const struct quotas *q = r->srv->quotas;
    if (q && !within_rate(r, q->join, "joined games", q->join_rate, q->join_burst))
        return;
    if (!auth_new_token(jc.token, jc.hash)) {
        http_reply_problem(r, P_INTERNAL, NULL, "The server has no randomness; try again.");
        return;
    }
    int st = store_tx(r->srv->store, join_tx, &jc, 5);
    if (st == STORE_OK) {
        metrics_steps_resolved(jc.resolved);
        hub_publish(r->srv->hub, jc.id, 0);
    }
    answer(r, st, &jc.o);
}

/* ---- orders ------------------------------------------------------------------------------- */

struct order_ctx {
    struct server *srv;
    const char *id;
    const char *token;
    json_t *body;      /* the request's order body (a reference of its own) */
    struct rs_pos pos; /* the decision point it names */
    void *d;           /* the decision, the game's ruleset's decision_size bytes */
    json_t *canon;     /* the order as stored: the ruleset's order_to_json() of what was parsed */
    int resolved;
    bool amended; /* it replaced the seat's order for the step: nothing public changed */
    struct outcome o;
};

static enum problem problem_of_order_error(const char *code)
{
    static const struct {
        const char *code;
        enum problem p;
    } map[] = {{"not_an_object", P_NOT_AN_OBJECT},           {"missing_field", P_MISSING_FIELD},
               {"unknown_field", P_UNKNOWN_FIELD},           {"wrong_type", P_WRONG_TYPE},
               {"conflicting_fields", P_CONFLICTING_FIELDS}, {"too_many_cards", P_TOO_MANY_CARDS}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(map[i].code, code) == 0)
            return map[i].p;
    return P_BAD_VALUE;
}

/* Applies an order to its loaded, locked game (a batch_job's apply, batch.h): records the
 * answer in the order_ctx, and the order, its event and what it set off in lv and the queued
 * statements. A refused order changes nothing and still returns STORE_OK. */
static int order_apply(PGconn *c, struct live *lv, void *ctx)
{
    struct order_ctx *oc = ctx;
    if (!lv) {
        fail(&oc->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", oc->id);
        return STORE_OK;
    }
    int seat = seat_of_token(c, lv, oc->token, &oc->o);
    if (seat < 0)
        return STORE_OK;
    /* The body is read by the game's ruleset, once the token has shown a seat of this game:
     * a client without one learns nothing about bodies. */
    const struct ruleset *rs = lv->rs;
    free(oc->d);
    json_decref(oc->canon);
    oc->canon = NULL;
    oc->d = calloc(1, rs->decision_size);
    if (!oc->d)
        return STORE_HARD;
    char err[300];
    const char *code = rs->order_from_json(oc->body, &oc->pos, oc->d, err, sizeof err);
    if (code) {
        fail(&oc->o, problem_of_order_error(code), code, "%s", err);
        return STORE_OK;
    }
    oc->canon = rs->order_to_json(&oc->pos, oc->d);
    if (!oc->canon)
        return STORE_HARD;
    struct rs_pos now;
    rs->where(lv->g, &now);
    char asked[64], at[64];
    ruleset_pos_text(rs, &oc->pos, asked, sizeof asked);
    ruleset_pos_text(rs, &now, at, sizeof at);
    if (strcmp(lv->row.status, "expired") == 0) {
        fail_expired(&oc->o);
        return STORE_OK;
    }
    if (strcmp(lv->row.status, "open") == 0) {
        fail(&oc->o, P_NOT_STARTED, NULL,
             "The game starts when every seat is taken; wait for the \"started\" event.");
        return STORE_OK;
    }
    if (rs->over(lv->g)) {
        fail(&oc->o, P_GAME_OVER, NULL, "The game has ended; see its replay.");
        return STORE_OK;
    }
    if (oc->pos.round != now.round || oc->pos.step != now.step ||
        (rs->uses_turn && oc->pos.turn != now.turn)) {
        fail(&oc->o, P_STALE_STEP, NULL,
             "The order is for %s, but the game is at %s; read the hand view and send an order "
             "for the current step.",
             asked, at);
        return STORE_OK;
    }
    /* The amendments of this step's orders are counted per seat; a new step starts at 0. */
    char step_key[sizeof lv->row.amend_step];
    ruleset_pos_key(rs, &now, step_key, sizeof step_key);
    if (strcmp(lv->row.amend_step, step_key) != 0) {
        snprintf(lv->row.amend_step, sizeof lv->row.amend_step, "%s", step_key);
        memset(lv->row.amend_counts, 0, sizeof lv->row.amend_counts);
    }
    bool had_decided = rs->pending(lv->g, seat) && rs->submitted(lv->g, seat);
    int cap = oc->srv->quotas ? oc->srv->quotas->max_amendments : 0;
    if (had_decided && cap > 0 && lv->row.amend_counts[seat] >= cap) {
        fail(&oc->o, P_RATE_LIMITED, "too_many_amendments",
             "Seat %d has already replaced its order for %s %d times, the most one step "
             "allows; the last order accepted stands. Send the next one for the next step.",
             seat, at, cap);
        oc->o.retry_after = lv->row.turn_seconds ? lv->row.turn_seconds : 0;
        return STORE_OK;
    }
    int refused = rs->submit(lv->g, seat, oc->d);
    if (refused) {
        const char *ecode = rs->error_code(refused);
        bool stale = strcmp(ecode, "nothing_to_decide") == 0 || strcmp(ecode, "game_over") == 0;
        fail(&oc->o, stale ? P_STALE_STEP : P_ILLEGAL, ecode, "%s", rs->error_message(refused));
        return STORE_OK;
    }
    live_order(lv, seat, &oc->pos, oc->canon);
    if (had_decided) {
        /* An amendment: stored, counted, but no new public event and no news for others
         * unless something else in this transaction made some. */
        lv->row.amend_counts[seat]++;
        lv->quiet = !lv->changed || lv->quiet;
        oc->amended = true;
    } else {
        lv->quiet = false;
        json_t *data = json_pack("{s:i}", "seat", seat);
        json_object_update_new(data, ruleset_pos_json(rs, &oc->pos));
        live_event(lv, "submitted", data);
    }
    lv->changed = true;
    int before = lv->resolved;
    int st = live_advance(c, lv, false);
    if (st != STORE_OK)
        return st;
    oc->resolved = lv->resolved - before;
    oc->o.status = 202;
    json_t *reply = json_pack("{s:b}", "accepted", 1);
    json_object_update_new(reply, ruleset_pos_json(rs, &oc->pos));
    json_object_set_new(reply, "resolved", json_boolean(oc->resolved > 0));
    rs->where(lv->g, &now);
    json_t *game = json_pack("{s:s}", "status", lv->row.status);
    json_object_update_new(game, ruleset_pos_json(rs, &now));
    json_object_set_new(reply, "game", game);
    oc->o.reply = reply;
    return STORE_OK;
}

/* Forgets what an earlier run of order_apply recorded (the batch is being run again). */
static void order_reset(void *ctx)
{
    struct order_ctx *oc = ctx;
    json_decref(oc->o.reply);
    memset(&oc->o, 0, sizeof oc->o);
    oc->resolved = 0;
    oc->amended = false;
}

/* One read of the game for an order whose body was refused: the 400 already in r stays only
 * when the token is a seat's of this game; otherwise the game's 404 or the token's 401/403
 * replaces it, so that a client without a valid token learns nothing about bodies. */
static int token_check_tx(PGconn *c, void *ctx)
{
    struct read_ctx *rc = ctx;
    struct live lv;
    int st = live_load(c, rc->srv, rc->id, false, &lv);
    if (st == STORE_NO_ROW)
        st = fail(&rc->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", rc->id);
    else if (st == STORE_OK && seat_of_token(c, &lv, rc->token, &rc->o) < 0)
        st = STORE_ABORT;
    live_free(&lv);
    return st;
}

static void keep_body_problem_if_token_fits(struct http_req *r)
{
    struct read_ctx rc = {.srv = r->srv, .id = r->params[0], .token = http_bearer(r)};
    int st = store_run(r->srv->store, token_check_tx, &rc);
    if (st != STORE_OK)
        answer(r, st, &rc.o);
}

/* An order on its way through group commit while its request is parked (http_park). */
struct order_call {
    struct order_ctx oc;
    struct batch_job job;
    struct http_req *r;
    int st;
};

static void order_call_free(void *ctx)
{
    struct order_call *call = ctx;
    json_decref(call->oc.canon);
    json_decref(call->oc.body);
    json_decref(call->oc.o.reply);
    free(call->oc.d);
    free(call);
}

/* Answers an order whose transaction ended with call->st. */
static void order_answer(struct http_req *r, struct order_call *call)
{
    struct order_ctx *oc = &call->oc;
    /* A refused order changed nothing; an amendment nothing that others see. */
    if (call->st == STORE_OK && oc->o.status == 202 && (!oc->amended || oc->resolved > 0)) {
        metrics_steps_resolved(oc->resolved);
        hub_publish(r->srv->hub, oc->id, 0);
    }
    answer(r, call->st, &oc->o);
}

/* The batcher's callback: the transaction ended; wake the parked request. */
static void order_done(struct batch_job *job)
{
    struct order_call *call = (struct order_call *)job->ctx; /* ctx is &call->oc, its start */
    call->st = job->status;
    http_wake(call->r);
}

static void order_resume(struct http_req *r)
{
    order_answer(r, r->park_ctx);
}

void api_orders(struct http_req *r)
{
    if (!r->json) {
        if (!r->body_refused)
            http_reply_problem(r, P_BAD_JSON, NULL,
                               "Send an order as a JSON object: the position of your hand "
                               "view's pending (round, step, and turn where it has one) with "
                               "your choice; pending.suggestion is an order you can send as it "
                               "is.");
        keep_body_problem_if_token_fits(r);
        return;
    }
    struct order_call *call = calloc(1, sizeof *call);
    if (!call) {
        http_reply_problem(r, P_INTERNAL, NULL, "Out of memory.");
        return;
    }
    struct order_ctx *oc = &call->oc;
    *oc = (struct order_ctx){
        .srv = r->srv, .id = r->params[0], .token = http_bearer(r), .body = json_incref(r->json)};
    call->r = r;
    /* The batcher calls order_done (the job's ctx is the call, which begins with oc). */
    call->job = (struct batch_job){
        .id = oc->id, .apply = order_apply, .reset = order_reset, .ctx = oc, .done_fn = order_done};
    /* Parked, the request holds no thread while its batch is written; it is parked before the
     * batcher can see it, so the wake-up always comes after the suspension. */
    if (http_park(r, order_resume, call, order_call_free)) {
        if (!batcher_submit(r->srv->batcher, &call->job)) {
            call->st = STORE_UNAVAILABLE;
            http_wake(r);
        }
        return;
    }
    call->st = batcher_run(r->srv->batcher, &call->job); /* the daemon is stopping */
    order_answer(r, call);
    order_call_free(call);
}

/* ---- resolve ------------------------------------------------------------------------------ */

struct resolve_ctx {
    struct server *srv;
    const char *id;
    const char *token;
    json_t *body; /* the request's JSON object, or NULL when none was sent */
    int resolved;
    struct outcome o;
};

/* Reads the decision point a force names, {"round": R, "step": "build"} (and "turn" for
 * rulesets with turns), from `body` (NULL: none sent); false with the 400 recorded in o when it
 * is missing or wrong. */
static bool resolve_body(const struct ruleset *rs, json_t *body, struct rs_pos *pos,
                         struct outcome *o)
{
    const char *example = rs->uses_turn ? "{\"round\": 3, \"step\": \"build\", \"turn\": 17}"
                                        : "{\"round\": 3, \"step\": \"build\"}";
    if (!body) {
        fail(o, P_MISSING_FIELD, NULL,
             "Name the step to force, as the public view shows it: send %s. A force without "
             "them is refused, so that a click that arrives late cannot force the next step.",
             example);
        return false;
    }
    const char *key;
    json_t *v;
    json_object_foreach(body, key, v)
    {
        if (strcmp(key, "round") != 0 && strcmp(key, "step") != 0 &&
            !(rs->uses_turn && strcmp(key, "turn") == 0)) {
            fail(o, P_UNKNOWN_FIELD, NULL, "Unknown field \"%.60s\"; forcing a step takes only %s.",
                 key, rs->uses_turn ? "round, step and turn" : "round and step");
            return false;
        }
    }
    const json_t *jr = json_object_get(body, "round"), *js = json_object_get(body, "step");
    const json_t *jt = rs->uses_turn ? json_object_get(body, "turn") : NULL;
    if (!jr || !js || (rs->uses_turn && !jt)) {
        fail(o, P_MISSING_FIELD, NULL, "The field \"%s\" is required: send %s.",
             !jr   ? "round"
             : !js ? "step"
                   : "turn",
             example);
        return false;
    }
    if (!json_is_integer(jr) || !json_is_string(js) || (jt && !json_is_integer(jt))) {
        bool step_wrong = json_is_integer(jr) && !json_is_string(js);
        fail(o, P_WRONG_TYPE, NULL, "\"%s\" must be %s.",
             !json_is_integer(jr) ? "round"
             : step_wrong         ? "step"
                                  : "turn",
             step_wrong ? "a step name such as \"build\"" : "an integer");
        return false;
    }
    long long r = json_integer_value(jr), t = jt ? json_integer_value(jt) : 0;
    pos->step = ruleset_step_from_name(rs, json_string_value(js));
    if (r < 0 || r > 32767 || t < 0 || t > INT32_MAX || pos->step < 0 ||
        strcmp(json_string_value(js), "over") == 0) {
        char steps[200] = "";
        for (int i = 0; rs->steps[i]; i++)
            if (strcmp(rs->steps[i], "over") != 0)
                snprintf(steps + strlen(steps), sizeof steps - strlen(steps), "%s%s",
                         steps[0] ? ", " : "", rs->steps[i]);
        fail(o, P_BAD_VALUE, NULL,
             "\"round\"%s must be a non-negative integer and \"step\" one of %s.",
             rs->uses_turn ? " and \"turn\"" : "", steps);
        return false;
    }
    pos->round = (int)r;
    pos->turn = (int)t;
    return true;
}

/* Forces the step the body names: only the host, or a seat once the step is overdue; only
 * while that step is the current one (else 409 stale_step: nothing is forced). */
static int resolve_tx(PGconn *c, void *ctx)
{
    struct resolve_ctx *rc = ctx;
    struct live lv;
    int st = live_load(c, rc->srv, rc->id, true, &lv);
    if (st == STORE_NO_ROW)
        st = fail(&rc->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", rc->id);
    if (st == STORE_OK && !rc->token)
        st = fail(&rc->o, P_NO_TOKEN, NULL,
                  "Send the host token (or, once the step is overdue, a seat token) as "
                  "\"Authorization: Bearer TOKEN\".");
    int by = FORCED_BY_HOST;
    if (st == STORE_OK) {
        uint8_t hash[AUTH_HASH_LEN];
        auth_hash(rc->token, hash);
        if (!auth_equal(hash, lv.row.host_hash)) {
            by = seat_of_token(c, &lv, rc->token, &rc->o);
            if (by < 0)
                st = STORE_ABORT;
        }
    }
    struct rs_pos want = {0}, now = {0};
    if (st == STORE_OK && !resolve_body(lv.rs, rc->body, &want, &rc->o))
        st = STORE_ABORT;
    if (st == STORE_OK && strcmp(lv.row.status, "expired") == 0)
        st = fail_expired(&rc->o);
    if (st == STORE_OK && strcmp(lv.row.status, "open") == 0)
        st = fail(&rc->o, P_NOT_STARTED, NULL, "The game has not started yet.");
    if (st == STORE_OK && lv.rs->over(lv.g))
        st = fail(&rc->o, P_GAME_OVER, NULL, "The game has ended.");
    if (st == STORE_OK)
        lv.rs->where(lv.g, &now);
    if (st == STORE_OK && (want.round != now.round || want.step != now.step ||
                           (lv.rs->uses_turn && want.turn != now.turn))) {
        char asked[64], at[64];
        ruleset_pos_text(lv.rs, &want, asked, sizeof asked);
        ruleset_pos_text(lv.rs, &now, at, sizeof at);
        st = fail(&rc->o, P_STALE_STEP, NULL,
                  "You asked to force %s, but the game has moved on to %s; nothing was forced. "
                  "Read the game again and force the current step only if you still mean to.",
                  asked, at);
    }
    if (st == STORE_OK && by >= 0 && !lv.row.overdue)
        st = fail(&rc->o, P_NOT_OVERDUE, NULL, "%s",
                  lv.row.turn_seconds
                      ? "The step is not overdue yet; a seat may force it only after its time "
                        "limit."
                      : "This game has no time limit; only the host may force a step.");
    if (st == STORE_OK)
        st = live_force(c, &lv, by);
    if (st == STORE_OK)
        st = live_save(c, &lv);
    if (st == STORE_OK) {
        rc->resolved = lv.resolved;
        rc->o.status = 200;
        rc->o.reply = live_public_view(&lv);
    }
    live_free(&lv);
    return st;
}

void api_resolve(struct http_req *r)
{
    struct resolve_ctx rc = {
        .srv = r->srv, .id = r->params[0], .token = http_bearer(r), .body = r->json};
    int st = store_tx(r->srv->store, resolve_tx, &rc, 5);
    if (st == STORE_OK) {
        metrics_steps_resolved(rc.resolved);
        hub_publish(r->srv->hub, rc.id, 0);
    }
    answer(r, st, &rc.o);
}

/* ---- events and replay -------------------------------------------------------------------- */

struct events_ctx {
    struct server *srv;
    const char *id;
    long long after;
    struct outcome o;
};

static int events_tx(PGconn *c, void *ctx)
{
    struct events_ctx *ec = ctx;
    struct game_row row = {0};
    int st = store_game_read(c, ec->id, false, &row);
    game_row_clear(&row);
    if (st == STORE_NO_ROW)
        return fail(&ec->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", ec->id);
    json_t *events;
    if (st == STORE_OK)
        st = store_events_after(c, ec->id, ec->after, ec->srv->max_events_page, &events);
    if (st == STORE_OK) {
        ec->o.status = 200;
        ec->o.reply = json_pack("{s:o, s:I}", "events", events, "last_seq", row.last_seq);
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
    answer(r, store_run(r->srv->store, events_tx, &ec), &ec.o);
}

static int replay_tx(PGconn *c, void *ctx)
{
    struct events_ctx *ec = ctx;
    struct live lv;
    int st = live_load(c, ec->srv, ec->id, false, &lv);
    if (st == STORE_NO_ROW)
        st = fail(&ec->o, P_NO_GAME, NULL, "There is no game \"%.40s\".", ec->id);
    if (st == STORE_OK && strcmp(lv.row.status, "finished") != 0)
        st = fail(&ec->o, P_NOT_FINISHED, NULL,
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
        if (lv.rs->has_target)
            json_object_set_new(ec->o.reply, "target_vp", json_integer(lv.rs->target(lv.g)));
        json_object_set_new(ec->o.reply, "decisions", decisions);
    }
    live_free(&lv);
    return st;
}

void api_replay(struct http_req *r)
{
    struct events_ctx ec = {.srv = r->srv, .id = r->params[0]};
    answer(r, store_run(r->srv->store, replay_tx, &ec), &ec.o);
}
