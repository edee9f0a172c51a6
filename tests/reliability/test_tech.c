/* test_tech.c: the reliability suite over the games that take turns, Tech City and SimCity (the
 * second and third rulesets the server hosts; the machinery is the same for both, each test
 * names its game). Whole games of people and bots are played through the HTTP API only (each
 * person sends its hand view's suggestion, sometimes first a wrong or stale order), while the
 * test reads the true state from PostgreSQL (games.state: the deck and every hand) around every
 * request:
 *   - secrecy: no response to a seat (views, refusals) holds the id of a card in the deck or in
 *     another seat's hand, and no public response (view, lobby, log, stream) holds one of
 *     either; no event names a card drawn from the deck; the replay appears only at the end and
 *     reproduces the final public state through the ruleset table. Public in both games: the
 *     discard pile; in SimCity also the card a seat proposed for a rezoning vote, which stays
 *     in its hand while the vote runs (docs/simcity.md, "What everyone may see");
 *   - bad input: every refused order is a problem+json 4xx with a code and changes nothing;
 *   - races: several clients send the same seat's orders at once, and a host forces the current
 *     point while they do: every point resolves once (the replay of what was recorded is the
 *     game), and no 5xx is seen;
 *   - crashes: the daemon is killed with SIGKILL mid-game and restarted on the same database;
 *     an order acknowledged (202) before the kill is never lost, and the game goes on to its
 *     end.
 * Appends tech_games (SimCity's among them: tech_simcity_games), tech_responses_scanned,
 * tech_card_ids_checked, tech_refused_orders, tech_races and tech_kills to $CITY_COUNTS. */
#include "suite.h"

#include <pthread.h>

#include "ruleset.h"

static struct daemon d;
static char db[512];
static PGconn *pg;
static struct {
    long games, responses, ids, refused, races, kills, simcity;
} counts;

static void up(void)
{
    db_create(db, sizeof db);
    daemon_start(&d, db, "");
    client_base = d.base;
    pg = PQconnectdb(db);
    cr_assert(PQstatus(pg) == CONNECTION_OK, "cannot connect to %s: %s", db, PQerrorMessage(pg));
    (void)create; /* client.h's helpers play The City */
    (void)play_to_end;
    (void)check_log;
}

static void down(void)
{
    static const char *const keys[] = {"tech_games",
                                       "tech_responses_scanned",
                                       "tech_card_ids_checked",
                                       "tech_refused_orders",
                                       "tech_races",
                                       "tech_kills",
                                       "tech_simcity_games"};
    long v[] = {counts.games, counts.responses, counts.ids,    counts.refused,
                counts.races, counts.kills,     counts.simcity};
    suite_counts_append(keys, v, 7);
    memset(&counts, 0, sizeof counts);
    if (pg)
        PQfinish(pg);
    pg = NULL;
    suite_stops_cleanly(&d);
}

TestSuite(tech, .init = up, .fini = down, .timeout = 240);

/* ---- the truth ------------------------------------------------------------------------------ */

enum { MAX_CARDS = 240, MAX_SEATS = 6 }; /* SimCity's largest deck */

/* Where the hidden cards are: hidden[c] is -2 for the deck, the holding seat for a hand, -1
 * when the card is not hidden (SimCity: the card proposed for a vote that runs is public). */
struct truth {
    char status[16];
    char *state; /* the stored state's text */
    int hidden[MAX_CARDS];
};

static void truth_read(const char *id, struct truth *t)
{
    const char *vals[] = {id};
    PGresult *r = PQexecParams(pg, "SELECT status, state::text FROM games WHERE id = $1", 1, NULL,
                               vals, NULL, NULL, 0);
    cr_assert(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1, "reading game %s: %s", id,
              PQresultErrorMessage(r));
    snprintf(t->status, sizeof t->status, "%s", PQgetvalue(r, 0, 0));
    t->state = strdup(PQgetvalue(r, 0, 1));
    PQclear(r);
    json_t *j = json_loads(t->state, 0, NULL);
    cr_assert_not_null(j, "the stored state of %s is not JSON", id);
    for (int c = 0; c < MAX_CARDS; c++)
        t->hidden[c] = -1;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(j, "deck"), i, v)
    {
        json_int_t c = json_integer_value(v);
        cr_assert(c >= 0 && c < MAX_CARDS);
        t->hidden[c] = -2;
    }
    json_t *seat;
    size_t s;
    json_array_foreach(json_object_get(j, "seats"), s, seat)
    {
        json_array_foreach(json_object_get(seat, "hand"), i, v)
        {
            json_int_t c = json_integer_value(v);
            cr_assert(c >= 0 && c < MAX_CARDS);
            t->hidden[c] = (int)s;
        }
    }
    json_t *vote = json_object_get(j, "vote"); /* SimCity: [active, proposer, card, ...] */
    if (json_is_array(vote) && json_is_true(json_array_get(vote, 0))) {
        json_int_t c = json_integer_value(json_array_get(vote, 2));
        cr_assert(c >= 0 && c < MAX_CARDS);
        t->hidden[c] = -1;
    }
    json_decref(j);
}

static void truth_free(struct truth *t)
{
    free(t->state);
    t->state = NULL;
}

/* ---- the audit ------------------------------------------------------------------------------ */

/* Keys whose integer values (or arrays of them) name card instances in any response. */
static bool card_key(const char *key)
{
    static const char *const keys[] = {"id",   "card",    "take",     "pay",      "cards",
                                       "hand", "discard", "expelled", "revealed", NULL};
    for (int i = 0; keys[i]; i++)
        if (strcmp(keys[i], key) == 0)
            return true;
    return false;
}

/* Fails when `v` (found under key `key`, or inside an array under it) names a card `who` may
 * not see: the deck's, or a hand's other than who's (-1: anyone, so every hand). */
static void audit(json_t *v, const char *key, const struct truth *t, int who, const char *what)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) audit(x, k, t, who, what);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) audit(x, key, t, who, what);
    } else if (json_is_integer(v) && key && card_key(key)) {
        json_int_t c = json_integer_value(v);
        counts.ids++;
        if (c < 0 || c >= MAX_CARDS)
            return;
        int h = t->hidden[c];
        cr_assert(h == -1 || (who >= 0 && h == who),
                  "%s: \"%s\": %lld names a card in %s%d, which seat %d may not see", what, key,
                  (long long)c, h == -2 ? "the deck" : "the hand of seat ", h == -2 ? 0 : h, who);
    }
}

/* The public log is history: a card an event names was public when it happened (built,
 * discarded, helped, revealed, taken from the pile...), even if it is in a hand or the deck by
 * now. What an event must never name is a card that moved in secret: one drawn (but SimCity's
 * draw of the discard pile's top), or one taken from the deck or from another seat's hand. */
static void audit_events(json_t *page, const char *what)
{
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(page, "events"), i, ev)
    {
        const char *type = json_string_value(json_object_get(ev, "type"));
        const char *from = json_string_value(json_object_get(ev, "from"));
        bool secret = (strcmp(type, "drew") == 0 && !(from && strcmp(from, "discard") == 0)) ||
                      (strcmp(type, "took") == 0 &&
                       (json_object_get(ev, "from_seat") ||
                        strcmp(json_string_value(json_object_get(ev, "from")), "deck") == 0));
        if (secret)
            cr_assert(!json_object_get(ev, "id") && !json_object_get(ev, "card") &&
                          !json_object_get(ev, "cards"),
                      "%s: a \"%s\" event names the card that moved in secret", what, type);
        counts.ids++;
    }
}

/* GETs path with token (NULL: none) and audits the answer for seat `who`. */
static json_t *get_audited(const char *id, const char *path, const char *token, int who)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", d.base, path);
    struct http_reply r;
    cr_assert(http_do("GET", url, token, NULL, &r), "GET %s: no answer", path);
    cr_assert_eq(r.status, 200, "GET %s -> %ld: %s", path, r.status, r.body);
    json_t *j = json_incref(r.json);
    http_reply_free(&r);
    struct truth t;
    truth_read(id, &t);
    if (strstr(path, "/events"))
        audit_events(j, path);
    else
        audit(j, NULL, &t, who, path);
    counts.responses++;
    truth_free(&t);
    return j;
}

/* POSTs an order for seat `who`; returns the status. A refusal must be a problem with a code,
 * name no card the seat may not see, and change nothing stored. */
static long post_order(const char *id, const char *token, int who, const char *body)
{
    char url[512];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/orders", d.base, id);
    struct truth before, after;
    truth_read(id, &before);
    struct http_reply r;
    cr_assert(http_do("POST", url, token, body, &r), "POST orders: no answer");
    long st = r.status;
    if (st >= 400) {
        cr_assert(st < 500, "an order got %ld: %s", st, r.body);
        cr_assert_str_eq(r.content_type, "application/problem+json");
        cr_assert(json_is_string(json_object_get(r.json, "code")), "no code: %s", r.body);
        audit(r.json, NULL, &before, who, "a refusal");
        counts.responses++;
        truth_read(id, &after);
        cr_assert_str_eq(before.state, after.state, "a refused order (%s) changed the game", body);
        truth_free(&after);
        counts.refused++;
    }
    http_reply_free(&r);
    truth_free(&before);
    return st;
}

/* ---- playing -------------------------------------------------------------------------------- */

struct tgame {
    const char *game; /* tech_city or simcity */
    char id[40];
    char host[80];
    int seats, people;
    char tokens[MAX_SEATS][80];
};

/* A game of `game` (tech_city or simcity) of `seats` seats, `people` of them people (seat 0 at
 * create, the others by join), the rest greedy bots. */
static void turn_create(struct tgame *g, const char *game, int seats, int people)
{
    memset(g, 0, sizeof *g);
    g->game = game;
    g->seats = seats;
    g->people = people;
    char body[300], bots[120] = "";
    for (int s = people; s < seats; s++)
        snprintf(bots + strlen(bots), sizeof bots - strlen(bots), "%s\"greedy\"",
                 s > people ? "," : "");
    snprintf(body, sizeof body,
             "{\"game\": \"%s\", \"seats\": %d, \"bots\": [%s], \"name\": \"Ada\"}", game, seats,
             bots);
    json_t *c = call("POST", "/api/v1/games", NULL, body, 201);
    cr_assert_str_eq(str(c, "game"), game);
    snprintf(g->id, sizeof g->id, "%s", str(c, "id"));
    snprintf(g->host, sizeof g->host, "%s", str(c, "host_token"));
    snprintf(g->tokens[0], sizeof g->tokens[0], "%s", str(c, "token"));
    json_decref(c);
    char path[128];
    snprintf(path, sizeof path, "/api/v1/games/%s/join", g->id);
    for (int s = 1; s < people; s++) {
        char jb[64];
        snprintf(jb, sizeof jb, "{\"name\": \"Person %d\"}", s + 1);
        json_t *j = call("POST", path, NULL, jb, 201);
        snprintf(g->tokens[num(j, "seat")], sizeof g->tokens[0], "%s", str(j, "token"));
        json_decref(j);
    }
    counts.games++;
    counts.simcity += strcmp(game, "simcity") == 0;
}

static bool finished(const struct tgame *g)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/games/%s", g->id);
    json_t *v = call("GET", path, NULL, NULL, 200);
    bool over = strcmp(str(v, "status"), "finished") == 0;
    json_decref(v);
    return over;
}

/* The replay, run through the ruleset table, ends where the game did. */
static void check_replay(const struct tgame *g)
{
    const struct ruleset *rs = ruleset_find(g->game);
    cr_assert_not_null(rs, "this build hosts no %s", g->game);
    char path[300], err[512];
    const char *root = getenv("CITY_ROOT");
    snprintf(path, sizeof path, "%s/cards/%s", root && *root ? root : ".", rs->cards_file);
    cr_assert(rs->load_cards(path, err, sizeof err), "%s", err);
    snprintf(path, sizeof path, "/api/v1/games/%s/replay", g->id);
    json_t *rep = call("GET", path, NULL, NULL, 200);
    cr_assert_str_eq(str(rep, "game"), g->game);
    void *st = calloc(1, rs->state_size);
    cr_assert(rs->replay_run(rep, st, err, sizeof err), "the replay does not run: %s", err);
    json_t *mine = rs->public_view(st);
    snprintf(path, sizeof path, "/api/v1/games/%s", g->id);
    json_t *theirs = call("GET", path, NULL, NULL, 200);
    static const char *const keys[] = {"city", "seats", "discard", "winners", "round", NULL};
    for (int k = 0; keys[k]; k++) {
        json_t *a = json_deep_copy(json_object_get(mine, keys[k]));
        json_t *b = json_deep_copy(json_object_get(theirs, keys[k]));
        if (strcmp(keys[k], "seats") == 0) { /* the service adds names, bots, presence, banks */
            size_t i;
            json_t *s;
            json_array_foreach(b, i, s)
            {
                json_object_del(s, "name");
                json_object_del(s, "bot");
                json_object_del(s, "presence");
                json_object_del(s, "bank_seconds");
            }
        }
        cr_expect(json_equal(a, b), "the replay's \"%s\" differs from the game's", keys[k]);
        json_decref(a);
        json_decref(b);
    }
    json_decref(mine);
    json_decref(theirs);
    json_decref(rep);
    free(st);
}

/* One move of seat s: audits its hand view, the public view and the log, sometimes sends a
 * wrong order first, then its suggestion. Returns false when the seat has nothing to decide. */
static bool move(const struct tgame *g, int s, int n)
{
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", g->id);
    json_t *h = get_audited(g->id, path, g->tokens[s], s);
    json_t *pending = json_object_get(h, "pending");
    if (!json_is_object(pending)) {
        /* Not this seat's turn: an order at the game's position is stale (409), not illegal. */
        if (n % 3 == 0 && strcmp(str(h, "status"), "playing") == 0) {
            char body[200];
            snprintf(body, sizeof body,
                     "{\"round\": %lld, \"step\": \"%s\", \"turn\": %lld, \"pass\": true}",
                     num(h, "round"), str(h, "step"), num(h, "turn"));
            long st = post_order(g->id, g->tokens[s], s, body);
            cr_assert(st == 409 || st == 400, "an order out of turn got %ld: %s", st, body);
        }
        json_decref(h);
        return false;
    }
    if (n % 5 == 0) {
        /* The suggestion for another turn (stale), and with a field of The City: refused. */
        json_t *bad = json_deep_copy(json_object_get(pending, "suggestion"));
        json_object_set_new(bad, "turn", json_integer(num(pending, "turn") + 1));
        char *text = json_dumps(bad, JSON_COMPACT);
        cr_assert_eq(post_order(g->id, g->tokens[s], s, text), 409, "stale: %s", text);
        free(text);
        json_object_set_new(bad, "turn", json_integer(num(pending, "turn")));
        json_object_set_new(bad, "survey", json_true());
        text = json_dumps(bad, JSON_COMPACT);
        cr_assert_eq(post_order(g->id, g->tokens[s], s, text), 400, "unknown field: %s", text);
        free(text);
        json_decref(bad);
    }
    char *body = json_dumps(json_object_get(pending, "suggestion"), JSON_COMPACT);
    cr_assert_not_null(body, "pending has no suggestion");
    long st = post_order(g->id, g->tokens[s], s, body);
    cr_assert_eq(st, 202, "the suggestion %s was refused (%ld)", body, st);
    free(body);
    json_decref(h);
    return true;
}

/* The live stream of finished game g, read whole (it ends after game_over): its events are
 * the log's, audited as a page of it. */
static void audit_stream(const struct tgame *g)
{
    char url[200];
    snprintf(url, sizeof url, "%s/api/v1/games/%s/stream", d.base, g->id);
    struct http_reply r;
    cr_assert(http_do("GET", url, NULL, NULL, &r), "GET stream: no answer");
    cr_assert_eq(r.status, 200, "GET stream -> %ld", r.status);
    json_t *page = json_pack("{s:[]}", "events");
    for (char *line = r.body; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (strncmp(line, "data: ", 6) == 0) {
            json_t *ev = json_loads(line + 6, 0, NULL);
            cr_assert_not_null(ev, "a stream message is not JSON: %s", line);
            json_array_append_new(json_object_get(page, "events"), ev);
        }
        line = end ? end + 1 : NULL;
    }
    cr_assert_gt(json_array_size(json_object_get(page, "events")), 0, "the stream is empty");
    audit_events(page, "the stream");
    counts.responses++;
    json_decref(page);
    http_reply_free(&r);
}

/* Plays g to its end: every person moves whenever pending, auditing as it goes; then audits
 * the finished game's stream. */
static void play_audited(const struct tgame *g)
{
    char path[160];
    for (int n = 0; n < 3000; n++) {
        bool any = false;
        for (int s = 0; s < g->people; s++)
            any = move(g, s, n) || any;
        if (n % 7 == 0) {
            snprintf(path, sizeof path, "/api/v1/games/%s", g->id);
            json_decref(get_audited(g->id, path, NULL, -1));
            snprintf(path, sizeof path, "/api/v1/games/%s/events?after=0", g->id);
            json_decref(get_audited(g->id, path, NULL, -1));
            json_decref(get_audited(g->id, "/api/v1/games", NULL, -1));
        }
        if (!any && finished(g)) {
            audit_stream(g);
            return;
        }
    }
    cr_assert_fail("game %s did not end", g->id);
}

/* Games of `game` at several seat counts (seats, people), audited from start to end. */
static void no_leak(const char *game, const int (*shapes)[2], int n)
{
    for (int k = 0; k < n; k++) {
        struct tgame g;
        turn_create(&g, game, shapes[k][0], shapes[k][1]);
        char path[160];
        snprintf(path, sizeof path, "/api/v1/games/%s/replay", g.id);
        json_decref(call("GET", path, NULL, NULL, 409)); /* secret until the end */
        play_audited(&g);
        check_replay(&g);
    }
}

Test(tech, no_response_shows_a_seat_a_card_of_the_deck_or_of_another_hand)
{
    static const int shapes[][2] = {{1, 1}, {2, 2}, {4, 2}, {6, 3}};
    no_leak("tech_city", shapes, 4);
}

Test(tech, simcity_no_response_shows_a_seat_a_card_of_the_deck_or_of_another_hand)
{
    static const int shapes[][2] = {{1, 1}, {2, 2}, {3, 3}, {5, 2}, {6, 3}};
    no_leak("simcity", shapes, 5);
}

/* SimCity's order bodies gone wrong, each sent at a point of each kind: wrong types, absurd
 * numbers, fields of other steps (each after the point's round, step and turn). */
static const char *const sc_absurd[] = {
    "\"card\": -1, \"x\": 6, \"y\": 6",
    "\"card\": 99999999999, \"x\": 6, \"y\": 6",
    "\"card\": \"row_houses\"",
    "\"card\": 0, \"x\": 99, \"y\": -3",
    "\"card\": 0, \"x\": 6",
    "\"card\": 0, \"x\": 6.5, \"y\": 6",
    "\"pass\": false",
    "\"pass\": true, \"card\": 0",
    "\"ballots\": [\"maybe\"]",
    "\"ballots\": [1, 2]",
    "\"ballots\": [\"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", "
    "\"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", "
    "\"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\", \"yes\"]",
    "\"ballots\": \"yes\"",
    "\"mayor\": \"yes\", \"tie\": \"maybe\"",
    "\"mayor\": \"yes\", \"ballots\": []",
    "\"votes\": 0, \"candidate\": 0",
    "\"votes\": 1000000000000, \"candidate\": 0",
    "\"votes\": 1, \"candidate\": -1",
    "\"votes\": 1, \"candidate\": 9",
    "\"vacate\": \"yes\"",
    "\"from\": \"hand\"",
    "\"from\": 1",
    "\"divulge\": [0]",
    "",
};

Test(tech, simcity_absurd_orders_at_every_kind_of_point_are_refused_and_change_nothing)
{
    /* Solitaire (draw, discard, the Mayor's own votes) and three seats of people and a bot
     * (votes, bills, elections): at each of the people's first points, every absurd body is a
     * 4xx problem that changes nothing (post_order() checks), never a 5xx. */
    static const int shapes[][2] = {{1, 1}, {3, 2}};
    for (int k = 0; k < 2; k++) {
        struct tgame g;
        turn_create(&g, "simcity", shapes[k][0], shapes[k][1]);
        char path[160];
        snprintf(path, sizeof path, "/api/v1/games/%s/hand", g.id);
        for (int n = 0, points = 0; n < 3000 && points < 60; n++) {
            bool any = false;
            for (int s = 0; s < g.people; s++) {
                json_t *h = get_audited(g.id, path, g.tokens[s], s);
                json_t *p = json_object_get(h, "pending");
                if (json_is_object(p)) {
                    char at[120], body[700];
                    snprintf(at, sizeof at, "\"round\": %lld, \"step\": \"%s\", \"turn\": %lld",
                             num(p, "round"), str(p, "step"), num(p, "turn"));
                    for (size_t i = 0; i < sizeof sc_absurd / sizeof *sc_absurd; i++) {
                        snprintf(body, sizeof body, "{%s%s%s}", at, *sc_absurd[i] ? ", " : "",
                                 sc_absurd[i]);
                        long st = post_order(g.id, g.tokens[s], s, body);
                        cr_assert(st >= 400 && st < 500, "%s at a %s point got %ld", body,
                                  str(p, "step"), st);
                    }
                    points++;
                }
                json_decref(h);
                any = move(&g, s, 1) || any;
            }
            if (!any && finished(&g))
                break;
        }
        play_audited(&g);
    }
}

/* ---- races ---------------------------------------------------------------------------------- */

struct racer {
    const struct tgame *g;
    int seat;
    long accepted, server_errors;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    char hand[160], orders[160];
    snprintf(hand, sizeof hand, "%s/api/v1/games/%s/hand", d.base, r->g->id);
    snprintf(orders, sizeof orders, "%s/api/v1/games/%s/orders", d.base, r->g->id);
    for (int n = 0; n < 400; n++) {
        struct http_reply h;
        if (!http_do("GET", hand, r->g->tokens[r->seat], NULL, &h))
            continue;
        json_t *sug = json_object_get(json_object_get(h.json, "pending"), "suggestion");
        bool over = h.json && !json_is_object(json_object_get(h.json, "pending")) &&
                    strcmp(json_string_value(json_object_get(h.json, "status")), "finished") == 0;
        char *body = json_is_object(sug) ? json_dumps(sug, JSON_COMPACT) : NULL;
        http_reply_free(&h);
        if (over)
            break;
        if (!body)
            continue;
        struct http_reply o;
        if (http_do("POST", orders, r->g->tokens[r->seat], body, &o)) {
            if (o.status == 202)
                r->accepted++;
            if (o.status >= 500)
                r->server_errors++;
            http_reply_free(&o);
        }
        free(body);
    }
    return NULL;
}

/* A game of `game` of four seats, two of them people, raced to its end. */
static void races(const char *game)
{
    struct tgame g;
    turn_create(&g, game, 4, 2);
    /* Three clients per person send its suggestion at once; the host forces now and then. */
    enum { PER_SEAT = 3 };
    struct racer rs[2 * PER_SEAT];
    pthread_t th[2 * PER_SEAT];
    for (int i = 0; i < 2 * PER_SEAT; i++) {
        rs[i] = (struct racer){.g = &g, .seat = i % 2};
        pthread_create(&th[i], NULL, race, &rs[i]);
    }
    char path[160], url[200];
    snprintf(path, sizeof path, "/api/v1/games/%s", g.id);
    snprintf(url, sizeof url, "%s/api/v1/games/%s/resolve", d.base, g.id);
    for (int n = 0; n < 30; n++) {
        json_t *v = call("GET", path, NULL, NULL, 200);
        if (strcmp(str(v, "status"), "finished") == 0) {
            json_decref(v);
            break;
        }
        char body[160];
        snprintf(body, sizeof body, "{\"round\": %lld, \"step\": \"%s\", \"turn\": %lld}",
                 num(v, "round"), str(v, "step"), num(v, "turn"));
        json_decref(v);
        struct http_reply r;
        cr_assert(http_do("POST", url, g.host, body, &r));
        cr_assert(r.status == 200 || r.status == 409, "a force got %ld: %s", r.status, r.body);
        http_reply_free(&r);
        harness_sleep_ms(20);
    }
    long errors = 0;
    for (int i = 0; i < 2 * PER_SEAT; i++) {
        pthread_join(th[i], NULL);
        errors += rs[i].server_errors;
        counts.races += rs[i].accepted;
    }
    cr_assert_eq(errors, 0, "no order may get a 5xx");
    /* Whatever is left (a point the racers' last reads missed), the people finish by hand. */
    play_audited(&g);
    check_replay(&g);
}

Test(tech, racing_clients_and_a_host_force_resolve_every_point_once)
{
    races("tech_city");
}

Test(tech, simcity_racing_clients_and_a_host_force_resolve_every_point_once)
{
    races("simcity");
}

/* ---- crashes -------------------------------------------------------------------------------- */

/* A game of `game` of three seats, two people, its daemon killed three times mid-game. */
static void kills(const char *game)
{
    struct tgame g;
    turn_create(&g, game, 3, 2);
    for (int kill_round = 0; kill_round < 3; kill_round++) {
        /* A few moves, each acknowledged; the last order's decision must be stored. */
        for (int n = 1; n < 6; n++)
            for (int s = 0; s < g.people; s++)
                move(&g, s, n);
        struct truth before;
        truth_read(g.id, &before);
        daemon_kill(&d);
        counts.kills++;
        daemon_start(&d, db, "");
        client_base = d.base;
        struct truth after;
        truth_read(g.id, &after);
        cr_assert_str_eq(before.state, after.state,
                         "the state acknowledged before the kill changed");
        truth_free(&before);
        truth_free(&after);
    }
    play_audited(&g);
    check_replay(&g);
}

Test(tech, an_acknowledged_order_survives_a_kill_and_the_game_goes_on)
{
    kills("tech_city");
}

Test(tech, simcity_an_acknowledged_order_survives_a_kill_and_the_game_goes_on)
{
    kills("simcity");
}

/* ---- deadlines ------------------------------------------------------------------------------ */

/* Creates a game of `game` from the rest of a create body ("\"seats\": 3, ..."). */
static json_t *create_game(const char *game, const char *rest)
{
    char body[300];
    snprintf(body, sizeof body, "{\"game\": \"%s\", %s}", game, rest);
    return call("POST", "/api/v1/games", NULL, body, 201);
}

/* One person who never decides and two bots, five seconds a point: the sweeper gives the
 * person's missing decisions their defaults, and the game moves on without them. */
static void sweeper(const char *game)
{
    json_t *c = create_game(game, "\"seats\": 3, \"bots\": [\"greedy\", \"greedy\"], "
                                  "\"name\": \"Ada\", \"turn_seconds\": 5");
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/events?after=0", str(c, "id"));
    bool forced = false, defaulted = false;
    for (int i = 0; i < 100 && !(forced && defaulted); i++) {
        harness_sleep_ms(200);
        json_t *page = call("GET", path, NULL, NULL, 200);
        size_t k;
        json_t *ev;
        json_array_foreach(json_object_get(page, "events"), k, ev)
        {
            const char *type = str(ev, "type");
            if (strcmp(type, "forced") == 0 && strcmp(str(ev, "by"), "timer") == 0)
                forced = true;
            if (strcmp(type, "default") == 0 && num(ev, "seat") == 0)
                defaulted = json_integer_value(json_object_get(ev, "turn")) > 0;
        }
        json_decref(page);
    }
    cr_expect(forced, "the sweeper forced the person's overdue point (a forced event by timer)");
    cr_expect(defaulted, "the person got a default decision, logged with its turn");
    json_decref(c);
}

Test(tech, the_sweeper_forces_an_overdue_point_with_the_rules_default)
{
    sweeper("tech_city");
}

Test(tech, simcity_the_sweeper_forces_an_overdue_point_with_the_rules_default)
{
    sweeper("simcity");
}

/* Ada and two bots: the host forces Ada's point; the bots then resolve theirs at once, and
 * Ada, who has not decided since, must still be told what was chosen for her. */
static void notice_stays(const char *game)
{
    json_t *c = create_game(game, "\"seats\": 3, \"bots\": [\"greedy\", \"greedy\"], "
                                  "\"name\": \"Ada\"");
    char path[160], rpath[160], body[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", str(c, "id"));
    snprintf(rpath, sizeof rpath, "/api/v1/games/%s/resolve", str(c, "id"));
    /* The host forces Ada's points until one is followed by bots' points before her next one
     * (the deal is random: her next point may also come at once, e.g. her effect after her
     * build when she plays last). */
    json_t *h = call("GET", path, str(c, "token"), NULL, 200), *p = NULL;
    long long turn = 0;
    int tries = 0;
    for (; tries < 40; tries++) {
        p = json_object_get(h, "pending");
        cr_assert(json_is_object(p), "Ada has a point to decide: %s", json_dumps(h, JSON_COMPACT));
        turn = num(p, "turn");
        snprintf(body, sizeof body, "{\"round\": %lld, \"step\": \"%s\", \"turn\": %lld}",
                 num(p, "round"), str(p, "step"), turn);
        json_decref(call("POST", rpath, str(c, "host_token"), body, 200));
        json_decref(h);
        h = call("GET", path, str(c, "token"), NULL, 200);
        p = json_object_get(h, "pending");
        cr_assert(json_is_object(p), "Ada decides again later in the game");
        if (num(p, "turn") > turn + 1)
            break; /* the bots resolved points after Ada's */
    }
    cr_assert_lt(tries, 40, "no forced point of Ada's was followed by the bots' points");
    json_t *why = json_object_get(h, "defaulted");
    cr_assert(json_is_object(why), "the notice stays until Ada's next decision: %s",
              json_dumps(h, JSON_COMPACT));
    cr_expect_eq(num(why, "turn"), turn);
    cr_expect_str_eq(str(why, "reason"), "forced_by_host");
    /* Her own decision replaces it. */
    char opath[160];
    snprintf(opath, sizeof opath, "/api/v1/games/%s/orders", str(c, "id"));
    char *order = json_dumps(json_object_get(p, "suggestion"), JSON_COMPACT);
    json_decref(call("POST", opath, str(c, "token"), order, 202));
    free(order);
    json_decref(h);
    h = call("GET", path, str(c, "token"), NULL, 200);
    cr_expect(json_is_null(json_object_get(h, "defaulted")), "Ada has decided since: %s",
              json_dumps(h, JSON_COMPACT));
    json_decref(h);
    json_decref(c);
}

Test(tech, a_defaulted_seat_keeps_its_notice_while_bots_resolve_the_points_after_it)
{
    notice_stays("tech_city");
}

Test(tech, simcity_a_defaulted_seat_keeps_its_notice_while_bots_resolve_the_points_after_it)
{
    notice_stays("simcity");
}

/* The orders and decisions tables name a point by round, step and turn, each in its own column
 * (the turn was once squeezed into the step's name, "build#3"). */
Test(tech, orders_and_decisions_name_their_point_by_round_step_and_turn)
{
    json_t *c = call("POST", "/api/v1/games", NULL,
                     "{\"game\": \"tech_city\", \"seats\": 2, \"bots\": [\"greedy\"], "
                     "\"name\": \"Ada\"}",
                     201);
    char path[160], opath[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", str(c, "id"));
    snprintf(opath, sizeof opath, "/api/v1/games/%s/orders", str(c, "id"));
    for (int i = 0; i < 6; i++) {
        json_t *h = call("GET", path, str(c, "token"), NULL, 200);
        json_t *p = json_object_get(h, "pending");
        if (json_is_object(p)) {
            char *order = json_dumps(json_object_get(p, "suggestion"), JSON_COMPACT);
            json_decref(call("POST", opath, str(c, "token"), order, 202));
            free(order);
        }
        json_decref(h);
    }
    const char *vals[] = {str(c, "id")};
    PGresult *r = PQexecParams(
        pg,
        "SELECT (SELECT count(*) FILTER (WHERE step LIKE '%#%') FROM decisions WHERE game_id = "
        "$1), (SELECT count(*) FILTER (WHERE turn > 0 AND turn = (body->>'turn')::int AND step = "
        "body->>'step') FROM decisions WHERE game_id = $1), (SELECT count(*) FILTER (WHERE step "
        "LIKE '%#%' OR turn = 0) FROM orders WHERE game_id = $1), (SELECT count(*) FROM orders "
        "WHERE game_id = $1)",
        1, NULL, vals, NULL, NULL, 0);
    cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s", PQresultErrorMessage(r));
    cr_expect_eq(atoi(PQgetvalue(r, 0, 0)), 0, "no decision's step holds its turn");
    cr_expect_gt(atoi(PQgetvalue(r, 0, 1)), 5, "decisions carry their turn in its own column");
    cr_expect_eq(atoi(PQgetvalue(r, 0, 2)), 0, "no order's step holds its turn");
    cr_expect_gt(atoi(PQgetvalue(r, 0, 3)), 0, "the person's orders are stored");
    PQclear(r);
    json_decref(c);
}

/* Solo: after the host forces Ada's point, the point that resolved last is hers. */
static void forced_told(const char *game)
{
    json_t *c = create_game(game, "\"seats\": 1, \"name\": \"Ada\"");
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", str(c, "id"));
    json_t *h = call("GET", path, str(c, "token"), NULL, 200);
    json_t *p = json_object_get(h, "pending");
    cr_assert(json_is_object(p), "a solo player decides at once");
    char body[160];
    snprintf(body, sizeof body, "{\"round\": %lld, \"step\": \"%s\", \"turn\": %lld}",
             num(p, "round"), str(p, "step"), num(p, "turn"));
    long long turn = num(p, "turn");
    char step[24];
    snprintf(step, sizeof step, "%s", str(p, "step"));
    char rpath[160];
    snprintf(rpath, sizeof rpath, "/api/v1/games/%s/resolve", str(c, "id"));
    json_decref(call("POST", rpath, str(c, "host_token"), body, 200));
    json_t *after = call("GET", path, str(c, "token"), NULL, 200);
    json_t *why = json_object_get(after, "defaulted");
    cr_assert(json_is_object(why), "the hand view says a default was given: %s",
              json_dumps(after, JSON_COMPACT));
    cr_expect_str_eq(str(why, "reason"), "forced_by_host");
    cr_expect_str_eq(str(why, "step"), step);
    cr_expect_eq(num(why, "turn"), turn);
    json_decref(after);
    json_decref(h);
    json_decref(c);
}

Test(tech, a_forced_seat_is_told_what_was_chosen_for_it_and_by_whom)
{
    forced_told("tech_city");
}

Test(tech, simcity_a_forced_seat_is_told_what_was_chosen_for_it_and_by_whom)
{
    forced_told("simcity");
}
