/* test_svc_seats.c: seats that change hands, through real HTTP against a real PostgreSQL: a
 * player leaving an open game (the seat is free again) and a running one (a bot plays on to the
 * end), the host handing a seat that missed its deadlines to a bot, the host cancelling an open
 * game, every refusal as problem+json, and a second daemon that had cached the seats. */
#include "client.h"

static struct daemon d;
static char db[512];

static void up(void)
{
    db_create(db, sizeof db);
    daemon_start(&d, db, "--allow-seed");
    client_base = d.base;
}

static void down(void)
{
    daemon_stop(&d);
}

TestSuite(seats, .init = up, .fini = down, .timeout = 240);

static void problem(const char *method, const char *path, const char *token, const char *body,
                    long status, const char *code)
{
    call_problem(d.base, method, path, token, body, status, code);
}

static void path_of(char *out, size_t n, const struct table *t, const char *what)
{
    snprintf(out, n, "/api/v1/games/%s/%s", t->id, what);
}

/* Seat `seat` sends the order its hand view suggests (a legal one); false when it has nothing to
 * decide. */
static bool submit(const struct table *t, int seat)
{
    json_t *h = hand(t, seat);
    char *order = choose_order(h);
    json_decref(h);
    if (!order)
        return false;
    char path[160];
    path_of(path, sizeof path, t, "orders");
    json_decref(call("POST", path, t->tokens[seat], order, 202));
    free(order);
    return true;
}

/* The host forces the current step. */
static void force(const struct table *t)
{
    json_t *v = view(t);
    char body[128], path[160];
    snprintf(body, sizeof body, "{\"round\": %lld, \"step\": \"%s\"}", num(v, "round"),
             str(v, "step"));
    json_decref(v);
    path_of(path, sizeof path, t, "resolve");
    json_decref(call("POST", path, t->host, body, 200));
}

/* How many events of `type` the game's log has. */
static int events_of(const struct table *t, const char *type)
{
    char path[160];
    path_of(path, sizeof path, t, "events?after=0");
    json_t *e = call("GET", path, NULL, NULL, 200);
    int n = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(e, "events"), i, ev) n += strcmp(str(ev, "type"), type) == 0;
    json_decref(e);
    return n;
}

Test(seats, leaving_an_open_game_frees_the_seat_for_someone_else)
{
    char path[160];
    /* An open game: two seats of three taken. */
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"bots\": []}", 201);
    char id[64], host[80], tok[2][80];
    snprintf(id, sizeof id, "%s", str(g, "id"));
    snprintf(host, sizeof host, "%s", str(g, "host_token"));
    json_decref(g);
    char join[160], leave[160], hpath[160];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", id);
    snprintf(leave, sizeof leave, "/api/v1/games/%s/leave", id);
    snprintf(hpath, sizeof hpath, "/api/v1/games/%s/hand", id);
    for (int s = 0; s < 2; s++) {
        json_t *j =
            call("POST", join, NULL, s ? "{\"name\": \"Bea\"}" : "{\"name\": \"Ann\"}", 201);
        snprintf(tok[s], sizeof tok[s], "%s", str(j, "token"));
        json_decref(j);
    }
    json_t *r = call("POST", leave, tok[0], NULL, 200);
    cr_expect_str_eq(str(r, "status"), "open");
    cr_expect_eq(num(r, "seat"), 0);
    cr_expect(json_is_null(json_object_get(r, "bot")) || !json_object_get(r, "bot"));
    json_decref(r);
    snprintf(path, sizeof path, "/api/v1/games/%s", id);
    json_t *v = call("GET", path, NULL, NULL, 200);
    cr_expect(json_is_null(json_object_get(json_array_get(json_object_get(v, "seats"), 0), "name")),
              "the seat is free again");
    json_decref(v);
    problem("GET", hpath, tok[0], NULL, 401, "bad_token");
    problem("POST", leave, tok[0], NULL, 401, "bad_token");
    problem("POST", leave, host, NULL, 403, "not_a_seat_token");
    problem("POST", leave, NULL, NULL, 401, "token_required");
    problem("POST", leave, tok[1], "{\"now\": true}", 400, "unknown_field");
    json_t *j = call("POST", join, NULL, "{\"name\": \"Cy\"}", 201);
    cr_expect_eq(num(j, "seat"), 0, "the freed seat is the one taken next");
    json_decref(j);
}

Test(seats, a_player_who_leaves_a_running_game_is_replaced_by_a_bot_that_plays_to_the_end)
{
    struct table t;
    create(&t, 3, 1, ", \"seed\": 77"); /* seats 0 and 1 people, seat 2 a bot */
    char path[160];
    path_of(path, sizeof path, &t, "leave");
    cr_assert(submit(&t, 0));
    json_t *r = call("POST", path, t.tokens[1], "{}", 200);
    cr_expect_str_eq(str(r, "bot"), "greedy");
    cr_expect_str_eq(str(r, "status"), "playing");
    json_decref(r);
    json_t *v = view(&t);
    json_t *seat1 = json_array_get(json_object_get(v, "seats"), 1);
    cr_expect_str_eq(str(seat1, "bot"), "greedy", "the seat is a bot's now");
    cr_expect_str_eq(str(seat1, "name"), "Player 2", "and keeps its name");
    cr_expect_gt(num(v, "round"), 0, "the bot decided the keep at once and the game moved on");
    json_decref(v);
    cr_expect_eq(events_of(&t, "left"), 1);
    path_of(path, sizeof path, &t, "hand");
    problem("GET", path, t.tokens[1], NULL, 401, "bad_token");
    t.humans = 1; /* seat 0 plays on alone with two bots */
    play_to_end(&t);
    check_log(&t);
    path_of(path, sizeof path, &t, "leave");
    problem("POST", path, t.tokens[0], NULL, 409, "game_over");
}

Test(seats, the_host_hands_a_seat_that_missed_its_deadlines_to_a_bot)
{
    struct table t;
    create(&t, 3, 1, ", \"seed\": 78");
    char path[160];
    path_of(path, sizeof path, &t, "takeover");
    problem("POST", path, t.host, "{\"seat\": 1}", 409, "seat_not_absent");
    /* Another player's rule (test_svc_presence.c): away (never seen) but not past its time. */
    problem("POST", path, t.tokens[0], "{\"seat\": 1}", 409, "seat_not_absent");
    problem("POST", path, NULL, "{\"seat\": 1}", 401, "token_required");
    problem("POST", path, t.host, "{\"seat\": 2}", 409, "seat_is_bot");
    problem("POST", path, t.host, "{\"seat\": 3}", 400, "bad_value");
    problem("POST", path, t.host, "{\"seat\": -1}", 400, "bad_value");
    problem("POST", path, t.host, "{\"seat\": \"1\"}", 400, "wrong_type");
    problem("POST", path, t.host, "{}", 400, "missing_field");
    problem("POST", path, t.host, "{\"seat\": 1, \"bot\": \"x\"}", 400, "unknown_field");
    problem("POST", path, t.host, "[1]", 400, "not_an_object");
    /* Seat 1 misses two steps: seat 0 decides, the host forces. */
    for (int k = 0; k < 2; k++) {
        cr_assert(submit(&t, 0));
        force(&t);
        if (k == 0)
            problem("POST", path, t.host, "{\"seat\": 1}", 409, "seat_not_absent");
    }
    json_t *r = call("POST", path, t.host, "{\"seat\": 1}", 200);
    cr_expect_str_eq(str(r, "bot"), "greedy");
    cr_expect_eq(num(r, "missed"), 2);
    json_decref(r);
    cr_expect_eq(events_of(&t, "taken_over"), 1);
    problem("POST", path, t.host, "{\"seat\": 1}", 409, "seat_is_bot");
    path_of(path, sizeof path, &t, "orders");
    problem("POST", path, t.tokens[1], "{\"round\": 1, \"step\": \"build\", \"survey\": true}", 401,
            "bad_token");
    t.humans = 1;
    play_to_end(&t);
}

Test(seats, the_host_cancels_an_open_game_and_nobody_can_join_it)
{
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"bots\": []}", 201);
    char id[64], host[80], path[160];
    snprintf(id, sizeof id, "%s", str(g, "id"));
    snprintf(host, sizeof host, "%s", str(g, "host_token"));
    json_decref(g);
    snprintf(path, sizeof path, "/api/v1/games/%s/join", id);
    json_t *j = call("POST", path, NULL, "{\"name\": \"Ann\"}", 201);
    char tok[80];
    snprintf(tok, sizeof tok, "%s", str(j, "token"));
    json_decref(j);
    snprintf(path, sizeof path, "/api/v1/games/%s/cancel", id);
    problem("POST", path, tok, NULL, 403, "not_host");
    problem("POST", path, NULL, NULL, 401, "token_required");
    problem("POST", path, host, "{\"why\": 1}", 400, "unknown_field");
    json_t *r = call("POST", path, host, NULL, 200);
    cr_expect_str_eq(str(r, "status"), "cancelled");
    json_decref(r);
    problem("POST", path, host, NULL, 409, "game_cancelled");
    snprintf(path, sizeof path, "/api/v1/games/%s", id);
    json_t *v = call("GET", path, NULL, NULL, 200);
    cr_expect_str_eq(str(v, "status"), "cancelled");
    json_decref(v);
    snprintf(path, sizeof path, "/api/v1/games/%s/join", id);
    problem("POST", path, NULL, "{\"name\": \"Bea\"}", 409, "game_cancelled");
    snprintf(path, sizeof path, "/api/v1/games/%s/leave", id);
    problem("POST", path, tok, NULL, 409, "game_cancelled");
    json_t *list = call("GET", "/api/v1/games", NULL, NULL, 200);
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(list, "games"), i, it)
        cr_expect_str_neq(str(it, "id"), id, "a cancelled game leaves the lobby");
    json_decref(list);

    struct table t;
    create(&t, 2, 1, NULL);
    path_of(path, sizeof path, &t, "cancel");
    problem("POST", path, t.host, NULL, 409, "game_started");
    problem("POST", "/api/v1/games/nosuchgame/cancel", host, NULL, 404, "game_not_found");
}

Test(seats, a_second_daemon_that_cached_the_seats_sees_the_change)
{
    struct daemon d2;
    daemon_start(&d2, db, NULL);
    struct table t;
    create(&t, 3, 1, ", \"seed\": 79");
    char path[160], url[512];
    path_of(path, sizeof path, &t, "hand");
    snprintf(url, sizeof url, "%s%s", d2.base, path);
    struct http_reply r;
    cr_assert(http_do("GET", url, t.tokens[1], NULL, &r)); /* d2 caches the started game's seats */
    cr_assert_eq(r.status, 200);
    http_reply_free(&r);
    path_of(path, sizeof path, &t, "leave");
    json_decref(call("POST", path, t.tokens[1], NULL, 200)); /* through d */
    path_of(path, sizeof path, &t, "hand");
    /* d2 also cached the hand for that token: it goes when the leave's NOTIFY reaches d2, within
     * milliseconds (a generous bound here, as for the public view's cache in test_svc_api). */
    snprintf(url, sizeof url, "%s%s", d2.base, path);
    long status = 200;
    for (double until = harness_now() + 5.0; status == 200 && harness_now() < until;) {
        cr_assert(http_do("GET", url, t.tokens[1], NULL, &r));
        status = r.status;
        http_reply_free(&r);
        if (status == 200)
            harness_sleep_ms(5);
    }
    call_problem(d2.base, "GET", path, t.tokens[1], NULL, 401, "bad_token");
    /* Seat 0 plays through d2, where the bot must now decide for seat 1. */
    client_base = d2.base;
    t.humans = 1;
    play_to_end(&t);
    client_base = d.base;
    daemon_stop(&d2);
}

Test(seats, two_players_at_one_table_may_not_share_a_name)
{
    /* Ann hosts a game of three, seated. */
    json_t *g =
        call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"bots\": [], \"name\": \"Ann\"}", 201);
    char id[64];
    snprintf(id, sizeof id, "%s", str(g, "id"));
    json_decref(g);
    char join[160], leave[160], path[160];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", id);
    snprintf(leave, sizeof leave, "/api/v1/games/%s/leave", id);
    snprintf(path, sizeof path, "/api/v1/games/%s", id);
    /* Her name in any case, in full-width letters, or with spaces around is hers. */
    static const char *const same[] = {"{\"name\": \"Ann\"}", "{\"name\": \"aNN\"}",
                                       "{\"name\": \"\\uff21\\uff4e\\uff4e\"}",
                                       "{\"name\": \" ann \"}"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        struct http_reply r;
        char url[512];
        snprintf(url, sizeof url, "%s%s", d.base, join);
        cr_assert(http_do("POST", url, NULL, same[i], &r));
        cr_expect_eq(r.status, 409, "%s: %s", same[i], r.body);
        cr_expect_str_eq(str(r.json, "code"), "name_taken", "%s", r.body);
        const char *detail = str(r.json, "detail");
        cr_expect(detail && strstr(detail, "\"Ann\"") && strstr(detail, "another name"),
                  "the refusal names who has the name and what to do: %s", r.body);
        http_reply_free(&r);
    }
    /* Nothing was taken: the next seat goes to Bea, and a third name fills the game. */
    json_t *v = call("GET", path, NULL, NULL, 200);
    cr_expect(json_is_null(json_object_get(json_array_get(json_object_get(v, "seats"), 1), "name")),
              "a refused join took no seat");
    json_decref(v);
    json_t *j = call("POST", join, NULL, "{\"name\": \"Bea\"}", 201);
    cr_expect_eq(num(j, "seat"), 1);
    char bea[80];
    snprintf(bea, sizeof bea, "%s", str(j, "token"));
    json_decref(j);
    problem("POST", join, NULL, "{\"name\": \"BEA\"}", 409, "name_taken");
    /* Once Bea leaves, her name is free at the table again. */
    json_decref(call("POST", leave, bea, NULL, 200));
    json_decref(call("POST", join, NULL, "{\"name\": \"Bea\"}", 201));
    /* Another table may have its own Ann. */
    g = call("POST", "/api/v1/games", NULL,
             "{\"seats\": 2, \"bots\": [\"greedy\"], \"name\": \"Ann\"}", 201);
    json_decref(g);
}
