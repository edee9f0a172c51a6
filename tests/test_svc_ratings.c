/* test_svc_ratings.c: rated games, through real HTTP against a real PostgreSQL: a rated game
 * takes only accounts' people (400 not_rateable, 403 account_required); played to its end it
 * gives its players the ratings rating_rate() gives for their places, written once however the
 * finishing requests race; a person alone against bots is rated and so are the bots; unrated
 * games change no rating; profiles and leaderboard pages read them back. */
#include <pthread.h>

#include "client.h"
#include "rating.h"

static struct daemon d;
static char db[512];

static void up(void)
{
    db_create(db, sizeof db);
    daemon_start(&d, db,
                 "--allow-seed --signin-burst 10000 --account-signin-burst 10000 "
                 "--hash-threads 8");
    client_base = d.base;
}

static void down(void)
{
    daemon_stop(&d);
}

TestSuite(ratings, .init = up, .fini = down, .timeout = 240);

static void problem(const char *method, const char *path, const char *token, const char *body,
                    long status, const char *code)
{
    call_problem(client_base, method, path, token, body, status, code);
}

/* A new account `name` signed in: its session token into token (80 bytes). */
static void account(const char *name, char *token)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\": \"%s\", \"password\": \"correct horse battery\"}",
             name);
    json_decref(call("POST", "/api/v1/accounts", NULL, body, 201));
    json_t *s = call("POST", "/api/v1/sessions", NULL, body, 201);
    snprintf(token, 80, "%s", str(s, "token"));
    json_decref(s);
}

/* A rated game of `seats` seats created by the account of `host` (seat 0) with `bots` as a JSON
 * array; the other people join with tokens[1..]. Fills t (its tokens the sessions). */
static void rated_table(struct table *t, int seats, const char *bots, char tokens[][80], int people)
{
    char body[256];
    snprintf(body, sizeof body, "{\"seats\": %d, \"bots\": %s, \"rated\": true, \"seed\": 7}",
             seats, bots);
    json_t *g = call("POST", "/api/v1/games", tokens[0], body, 201);
    cr_assert(json_is_true(json_object_get(g, "rated")));
    snprintf(t->id, sizeof t->id, "%s", str(g, "id"));
    json_decref(g);
    t->seats = seats;
    t->humans = people;
    snprintf(t->tokens[0], sizeof t->tokens[0], "%s", tokens[0]);
    for (int s = 1; s < people; s++) {
        char path[128];
        snprintf(path, sizeof path, "/api/v1/games/%s/join", t->id);
        json_t *j = call("POST", path, tokens[s], NULL, 201);
        cr_assert_eq(num(j, "seat"), s);
        json_decref(j);
        snprintf(t->tokens[s], sizeof t->tokens[s], "%s", tokens[s]);
    }
}

/* Two new accounts `a` and `b` (their sessions into tokens) at a rated game of `seats` seats
 * with `bots`, created by a. */
static void rated_pair(const char *a, const char *b, int seats, const char *bots, char tokens[][80],
                       struct table *t)
{
    account(a, tokens[0]);
    account(b, tokens[1]);
    rated_table(t, seats, bots, tokens, 2);
}

/* The places of the finished view's seats by The City's ranking: victory points, then cards in
 * hand; seats equal on both share a place. */
static void places_of(json_t *v, int *places, int n)
{
    json_t *seats = json_object_get(v, "seats");
    for (int s = 0; s < n; s++) {
        json_t *me = json_array_get(seats, (size_t)s);
        places[s] = 1;
        for (int o = 0; o < n; o++) {
            json_t *other = json_array_get(seats, (size_t)o);
            long long a = num(me, "vp"), b = num(other, "vp");
            if (a == b) {
                a = num(me, "hand_count");
                b = num(other, "hand_count");
            }
            places[s] += b > a;
        }
    }
}

/* The view's ratings[] entry of seat s. */
static json_t *rating_of(json_t *v, int s)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(v, "ratings"), i, r)
    {
        if (num(r, "seat") == s)
            return r;
    }
    cr_assert_fail("no rating for seat %d", s);
    return NULL;
}

static double real(json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

/* The player's rating in the_city from its profile (fails when it has none). */
static json_t *profile_rating(json_t *p)
{
    json_t *r = json_array_get(json_object_get(p, "ratings"), 0);
    cr_assert_not_null(r, "a rating in the profile");
    cr_expect_str_eq(str(r, "game"), "the_city");
    return r;
}

Test(ratings, a_rated_game_takes_only_accounts_people)
{
    char ida[80];
    account("Ida", ida);
    problem("POST", "/api/v1/games", NULL, "{\"seats\": 2, \"rated\": true, \"name\": \"Anon\"}",
            400, "not_rateable");
    problem("POST", "/api/v1/games", ida, "{\"seats\": 2, \"rated\": \"yes\"}", 400, "wrong_type");
    json_t *g = call("POST", "/api/v1/games", ida, "{\"seats\": 3, \"rated\": true}", 201);
    char join[160];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", str(g, "id"));
    problem("POST", join, NULL, "{\"name\": \"Anon\"}", 403, "account_required");
    json_decref(g);
    /* An unrated game says so. */
    g = call("POST", "/api/v1/games", NULL, "{\"seats\": 2}", 201);
    cr_expect(json_is_false(json_object_get(g, "rated")));
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s", str(g, "id"));
    json_t *v = call("GET", path, NULL, NULL, 200);
    cr_expect(json_is_false(json_object_get(v, "rated")));
    cr_expect_null(json_object_get(v, "ratings"));
    json_decref(v);
    json_decref(g);
}

Test(ratings, a_rated_game_of_two_rates_both_by_their_places)
{
    char tokens[2][80];
    struct table t;
    rated_pair("Ann", "Ben", 2, "[]", tokens, &t);
    play_to_end(&t);
    json_t *v = view(&t);
    cr_assert(json_is_true(json_object_get(v, "rated")));
    cr_assert_eq(json_array_size(json_object_get(v, "ratings")), 2);
    int places[2];
    places_of(v, places, 2);
    struct rating in[2] = {rating_new(), rating_new()}, out[2];
    cr_assert_eq(rating_rate(2, in, places, out), 0);
    const char *names[2] = {"Ann", "Ben"};
    for (int s = 0; s < 2; s++) {
        json_t *r = rating_of(v, s);
        cr_expect_str_eq(str(r, "player"), names[s]);
        cr_expect_float_eq(real(r, "mu"), out[s].mu, 1e-9);
        cr_expect_float_eq(real(r, "sigma"), out[s].sigma, 1e-9);
        cr_expect_float_eq(real(r, "ordinal"), rating_ordinal(out[s]), 1e-9);
        cr_expect_float_eq(real(r, "change"), rating_ordinal(out[s]) - rating_ordinal(in[s]), 1e-9);
        char path[96];
        snprintf(path, sizeof path, "/api/v1/players/%s", names[s]);
        json_t *p = call("GET", path, NULL, NULL, 200);
        cr_expect_str_eq(str(p, "name"), names[s]);
        cr_expect_str_eq(str(p, "kind"), "person");
        json_t *pr = profile_rating(p);
        cr_expect_float_eq(real(pr, "mu"), out[s].mu, 1e-9);
        cr_expect_eq(num(pr, "games"), 1);
        cr_expect_eq(num(pr, "wins"), places[s] == 1);
        cr_expect_eq(num(p, "played"), 1);
        cr_expect_eq(num(p, "won"), places[s] == 1);
        json_t *recent = json_array_get(json_object_get(p, "recent"), 0);
        cr_expect_str_eq(str(recent, "id"), t.id);
        cr_expect_eq(num(recent, "place"), places[s]);
        cr_expect(json_is_true(json_object_get(recent, "rated")));
        cr_expect_float_eq(real(recent, "change"), real(rating_of(v, s), "change"), 1e-9);
        json_decref(p);
    }
    json_decref(v);
    cr_expect_eq(db_num(db, "SELECT count(*) FROM rated_results"), 2);
}

/* Sends seat s's order (a thread of race_step). */
struct racer {
    const struct table *t;
    int seat;
};

static void *send_order(void *arg)
{
    struct racer *r = arg;
    char path[128], url[512];
    snprintf(path, sizeof path, "/api/v1/games/%s/hand", r->t->id);
    snprintf(url, sizeof url, "%s%s", client_base, path);
    struct http_reply h;
    if (!http_do("GET", url, r->t->tokens[r->seat], NULL, &h))
        return NULL;
    char *order = h.status == 200 ? choose_order(h.json) : NULL;
    http_reply_free(&h);
    if (!order)
        return NULL;
    snprintf(url, sizeof url, "%s/api/v1/games/%s/orders", client_base, r->t->id);
    struct http_reply o;
    if (http_do("POST", url, r->t->tokens[r->seat], order, &o))
        http_reply_free(&o);
    free(order);
    return NULL;
}

Test(ratings, racing_finishing_requests_rate_the_game_once)
{
    char tokens[2][80];
    struct table t;
    rated_pair("Cal", "Dot", 2, "[]", tokens, &t);
    /* Both seats send every order at once, so that the last step's two orders race to finish
     * the game. */
    for (int i = 0; i < 400; i++) {
        json_t *v = view(&t);
        bool over = strcmp(str(v, "status"), "finished") == 0;
        json_decref(v);
        if (over)
            break;
        pthread_t th[2];
        struct racer r[2] = {{&t, 0}, {&t, 1}};
        for (int s = 0; s < 2; s++)
            pthread_create(&th[s], NULL, send_order, &r[s]);
        for (int s = 0; s < 2; s++)
            pthread_join(th[s], NULL);
    }
    json_t *v = view(&t);
    cr_assert_str_eq(str(v, "status"), "finished");
    json_decref(v);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM rated_results WHERE game_id = '%s'", t.id);
    cr_expect_eq(db_num(db, sql), 2, "one result per seat");
    cr_expect_eq(db_num(db, "SELECT count(*) FROM ratings r JOIN accounts a ON r.account_id = a.id "
                            "WHERE a.name IN ('Cal', 'Dot') AND r.games = 1"),
                 2, "each rated once");
    /* A forced step or another order after the end changes nothing. */
    char path[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/orders", t.id);
    problem("POST", path, tokens[0], "{\"round\": 1, \"step\": \"build\", \"survey\": true}", 409,
            "game_over");
    cr_expect_eq(db_num(db, sql), 2);
}

Test(ratings, a_person_alone_against_bots_and_the_bots_are_rated)
{
    char tokens[1][80];
    account("Eda", tokens[0]);
    struct table t;
    rated_table(&t, 3, "[\"greedy\", \"random\"]", tokens, 1);
    play_to_end(&t);
    json_t *v = view(&t);
    cr_assert_eq(json_array_size(json_object_get(v, "ratings")), 3);
    int places[3];
    places_of(v, places, 3);
    struct rating in[3] = {rating_new(), rating_new(), rating_new()}, out[3];
    cr_assert_eq(rating_rate(3, in, places, out), 0);
    cr_expect_str_eq(str(rating_of(v, 0), "player"), "Eda");
    cr_expect_str_eq(str(rating_of(v, 1), "player"), "bot:greedy");
    cr_expect_str_eq(str(rating_of(v, 2), "player"), "bot:random");
    for (int s = 0; s < 3; s++)
        cr_expect_float_eq(real(rating_of(v, s), "mu"), out[s].mu, 1e-9);
    json_decref(v);
    json_t *p = call("GET", "/api/v1/players/bot:greedy", NULL, NULL, 200);
    cr_expect_str_eq(str(p, "kind"), "bot");
    cr_expect_float_eq(real(profile_rating(p), "mu"), out[1].mu, 1e-9);
    cr_expect_eq(num(p, "played"), 1);
    cr_expect_str_eq(str(json_array_get(json_object_get(p, "recent"), 0), "id"), t.id);
    json_decref(p);
}

Test(ratings, an_expert_that_finishes_the_game_on_the_bot_pool_rates_it_under_its_level)
{
    char tokens[1][80];
    account("Jo", tokens[0]);
    json_t *g = call("POST", "/api/v1/games", tokens[0],
                     "{\"seats\": 2, \"bots\": [\"expert\"], \"bot_level\": \"easy\", "
                     "\"rated\": true, \"seed\": 11}",
                     201);
    struct table t = {.seats = 2, .humans = 1};
    snprintf(t.id, sizeof t.id, "%s", str(g, "id"));
    snprintf(t.tokens[0], sizeof t.tokens[0], "%s", tokens[0]);
    json_decref(g);
    /* The expert decides on the bot pool, outside the person's requests: wait for it. */
    for (int i = 0; i < 20000 && play_step(&t); i++)
        harness_sleep_ms(2);
    json_t *v = view(&t);
    cr_assert_str_eq(str(v, "status"), "finished");
    cr_expect_str_eq(str(rating_of(v, 1), "player"), "bot:expert-easy");
    json_decref(v);
    json_t *p = call("GET", "/api/v1/players/bot:expert-easy", NULL, NULL, 200);
    cr_expect_eq(num(profile_rating(p), "games"), 1);
    json_decref(p);
}

Test(ratings, unrated_games_change_no_rating)
{
    char fay[80], gus[80];
    account("Fay", fay);
    account("Gus", gus);
    json_t *g = call("POST", "/api/v1/games", fay, "{\"seats\": 2, \"seed\": 3}", 201);
    struct table t = {.seats = 2, .humans = 2};
    snprintf(t.id, sizeof t.id, "%s", str(g, "id"));
    json_decref(g);
    char join[160];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", t.id);
    json_decref(call("POST", join, gus, NULL, 201));
    snprintf(t.tokens[0], sizeof t.tokens[0], "%s", fay);
    snprintf(t.tokens[1], sizeof t.tokens[1], "%s", gus);
    long long before = db_num(db, "SELECT count(*) FROM ratings");
    play_to_end(&t);
    json_t *v = view(&t);
    cr_expect(json_is_false(json_object_get(v, "rated")));
    cr_expect_null(json_object_get(v, "ratings"));
    json_decref(v);
    cr_expect_eq(db_num(db, "SELECT count(*) FROM ratings"), before);
    json_t *p = call("GET", "/api/v1/players/fay", NULL, NULL, 200);
    cr_expect_str_eq(str(p, "name"), "Fay", "found by any case, named as signed up");
    cr_expect_eq(json_array_size(json_object_get(p, "ratings")), 0);
    cr_expect_eq(num(p, "played"), 1);
    json_t *recent = json_array_get(json_object_get(p, "recent"), 0);
    cr_expect(json_is_false(json_object_get(recent, "rated")));
    cr_expect(json_is_null(json_object_get(recent, "change")));
    cr_expect_gt(num(recent, "place"), 0);
    json_decref(p);
}

Test(ratings, profiles_and_leaderboard_pages)
{
    char tokens[2][80];
    struct table t;
    rated_pair("Hal", "Ivy", 3, "[\"greedy\"]", tokens, &t);
    play_to_end(&t);
    /* Page by page, one player a page: ranks follow on, ordinals never rise. */
    json_t *all = call("GET", "/api/v1/leaderboard?game=the_city&limit=100", NULL, NULL, 200);
    size_t total = json_array_size(json_object_get(all, "players"));
    cr_assert_geq(total, 3);
    cr_expect(json_is_null(json_object_get(all, "next")));
    cr_expect(json_is_array(json_object_get(all, "best_solo")));
    char path[256] = "/api/v1/leaderboard?game=the_city&limit=1";
    size_t seen = 0;
    double last = 1e9;
    for (;;) {
        json_t *page = call("GET", path, NULL, NULL, 200);
        json_t *row = json_array_get(json_object_get(page, "players"), 0);
        cr_assert_not_null(row);
        seen++;
        cr_expect_eq(num(row, "rank"), (long long)seen);
        cr_expect_str_eq(str(row, "name"),
                         str(json_array_get(json_object_get(all, "players"), seen - 1), "name"));
        cr_expect_leq(real(row, "ordinal"), last);
        last = real(row, "ordinal");
        const char *kind = str(row, "kind");
        cr_expect(strcmp(kind, strncmp(str(row, "name"), "bot:", 4) ? "person" : "bot") == 0);
        const char *next = str(page, "next");
        if (!next) {
            json_decref(page);
            break;
        }
        snprintf(path, sizeof path, "/api/v1/leaderboard?game=the_city&limit=1&after=%s", next);
        json_decref(page);
    }
    cr_expect_eq(seen, total);
    json_decref(all);
    json_t *tech = call("GET", "/api/v1/leaderboard?game=tech_city", NULL, NULL, 200);
    cr_expect_eq(json_array_size(json_object_get(tech, "players")), 0);
    json_decref(tech);
    problem("GET", "/api/v1/leaderboard?game=chess", NULL, NULL, 400, "bad_game");
    problem("GET", "/api/v1/leaderboard?limit=0", NULL, NULL, 400, "bad_query");
    problem("GET", "/api/v1/leaderboard?after=nonsense", NULL, NULL, 400, "bad_query");
    problem("GET", "/api/v1/players/Nobody", NULL, NULL, 404, "no_such_player");
    problem("GET", "/api/v1/players/bot:nonesuch", NULL, NULL, 404, "no_such_player");
    /* A deleted account's name is no player any more; its game keeps its ratings. */
    json_decref(
        call("DELETE", "/api/v1/me", tokens[1], "{\"password\": \"correct horse battery\"}", 200));
    problem("GET", "/api/v1/players/Ivy", NULL, NULL, 404, "no_such_player");
    json_t *v = view(&t);
    cr_expect_str_eq(str(rating_of(v, 1), "player"), "deleted player");
    json_decref(v);
}
