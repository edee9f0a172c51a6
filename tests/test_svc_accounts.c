/* test_svc_accounts.c: optional accounts, through real HTTP against a real PostgreSQL: signing
 * up (names unique after case folding), signing in and out (here and everywhere), the session
 * token acting for the account's seats on any device (hand, orders to the end of a game, the
 * games list), one account kept out of another's hands, changing the password (the other
 * sessions end), deleting the account (its seats keep their games as "deleted player"), the
 * limits on password attempts (429 per address and per account, 503 busy past the hash cap),
 * every refusal as problem+json, and anonymous play untouched beside it. */
#include <pthread.h>

#include "client.h"

static struct daemon d;
static char db[512];

static void up(void)
{
    db_create(db, sizeof db);
    /* Password attempts are not the subject of most tests: limits far away (see the last ones). */
    daemon_start(&d, db,
                 "--allow-seed --signin-burst 10000 --account-signin-burst 10000 "
                 "--hash-threads 8");
    client_base = d.base;
}

static void down(void)
{
    daemon_stop(&d);
}

TestSuite(accounts, .init = up, .fini = down, .timeout = 240);

/* A problem reply with `status` and `code`; returns its Retry-After (0: none). */
static int problem(const char *method, const char *path, const char *token, const char *body,
                   long status, const char *code)
{
    return call_problem(client_base, method, path, token, body, status, code);
}

/* Signs `name` up with `password`. */
static void sign_up(const char *name, const char *password)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\": \"%s\", \"password\": \"%s\"}", name, password);
    json_t *a = call("POST", "/api/v1/accounts", NULL, body, 201);
    cr_expect_str_eq(str(a, "name"), name);
    cr_expect(str(a, "created_at") && strlen(str(a, "created_at")) == 20, "a UTC time");
    char *text = json_dumps(a, 0);
    cr_expect_null(strstr(text, "argon2"), "no password hash in a reply");
    cr_expect_null(strstr(text, password), "nor the password");
    free(text);
    json_decref(a);
}

/* Signs in; the session token into out (80 bytes). */
static void sign_in(const char *name, const char *password, char *out)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\": \"%s\", \"password\": \"%s\"}", name, password);
    json_t *s = call("POST", "/api/v1/sessions", NULL, body, 201);
    const char *tok = str(s, "token");
    cr_assert(tok && strncmp(tok, "session_", 8) == 0 && strlen(tok) == 8 + 64,
              "a session token of 256 bits: %s", tok ? tok : "none");
    cr_expect(str(s, "expires_at") != NULL);
    snprintf(out, 80, "%s", tok);
    json_decref(s);
}

/* A new account with its session: names differ by test (one database for the suite). */
static void account(const char *name, char *token)
{
    sign_up(name, "correct horse battery");
    sign_in(name, "correct horse battery", token);
}

Test(accounts, sign_up_in_and_out_with_names_unique_after_case_folding)
{
    sign_up("Ada", "correct horse battery");
    problem("POST", "/api/v1/accounts", NULL,
            "{\"name\": \"ADA\", \"password\": \"another password\"}", 409, "name_taken");
    problem("POST", "/api/v1/accounts", NULL,
            "{\"name\": \"\xef\xbc\xa1\xef\xbd\x84\xef\xbd\x81\", \"password\": \"another one!\"}",
            409, "name_taken"); /* fullwidth "Ａｄａ" */
    problem("POST", "/api/v1/sessions", NULL, "{\"name\": \"Ada\", \"password\": \"wrong one!\"}",
            401, "bad_credentials");
    problem("POST", "/api/v1/sessions", NULL,
            "{\"name\": \"Nobody\", \"password\": \"correct horse battery\"}", 401,
            "bad_credentials");
    char tok[80], tok2[80];
    sign_in("ada", "correct horse battery", tok); /* any case signs in */
    sign_in("Ada", "correct horse battery", tok2);
    cr_expect_str_neq(tok, tok2, "each sign-in is a session of its own");
    json_t *me = call("GET", "/api/v1/me", tok, NULL, 200);
    cr_expect_str_eq(str(me, "name"), "Ada", "the name as it was signed up");
    json_decref(me);
    json_t *out = call("DELETE", "/api/v1/sessions/current", tok, NULL, 200);
    cr_expect_eq(num(out, "sessions_ended"), 1);
    json_decref(out);
    problem("GET", "/api/v1/me", tok, NULL, 401, "bad_token");
    problem("DELETE", "/api/v1/sessions/current", tok, NULL, 401, "bad_token");
    json_decref(call("GET", "/api/v1/me", tok2, NULL, 200)); /* the other session goes on */
    problem("GET", "/api/v1/me", NULL, NULL, 401, "token_required");
    problem("GET", "/api/v1/me/games",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", NULL, 401,
            "bad_token");
}

Test(accounts, sign_out_everywhere_ends_every_session)
{
    char a[80], b[80], c[80];
    account("Bea", a);
    sign_in("Bea", "correct horse battery", b);
    sign_in("Bea", "correct horse battery", c);
    json_t *out = call("DELETE", "/api/v1/sessions", b, NULL, 200);
    cr_expect_eq(num(out, "sessions_ended"), 3);
    json_decref(out);
    problem("GET", "/api/v1/me", a, NULL, 401, "bad_token");
    problem("GET", "/api/v1/me", c, NULL, 401, "bad_token");
    problem("DELETE", "/api/v1/sessions", b, NULL, 401, "bad_token");
}

Test(accounts, bad_sign_ups_are_400)
{
    problem("POST", "/api/v1/accounts", NULL, "{\"name\": \"Cal\", \"password\": \"short\"}", 400,
            "bad_value");
    problem("POST", "/api/v1/accounts", NULL,
            "{\"name\": \"Bot 2\", \"password\": \"long enough\"}", 400, "bad_value");
    problem("POST", "/api/v1/accounts", NULL, "{\"name\": \"Cal\"}", 400, "missing_field");
    problem("POST", "/api/v1/accounts", NULL, "{\"name\": \"Cal\", \"password\": 12345678}", 400,
            "wrong_type");
    problem("POST", "/api/v1/accounts", NULL,
            "{\"name\": \"Cal\", \"password\": \"long enough\", \"email\": \"x\"}", 400,
            "unknown_field");
    problem("POST", "/api/v1/accounts", NULL, NULL, 400, "malformed_json");
    problem("POST", "/api/v1/sessions", NULL, "{\"name\": \"Cal\"}", 400, "missing_field");
    problem("PUT", "/api/v1/me/password", NULL, "{\"old\": \"a\"}", 400, "missing_field");
}

Test(accounts, a_session_plays_its_seats_on_any_device_and_reads_no_other_hand)
{
    char dee[80], eve[80], fox[80], dee2[80];
    account("Dee", dee);
    account("Eve", eve);
    account("Fox", fox);
    /* Dee hosts a game of three with a bot; Eve joins with no body. */
    problem("POST", "/api/v1/games", dee, "{\"seats\": 3, \"bots\": [\"greedy\"], \"name\": \"X\"}",
            400, "conflicting_fields");
    json_t *g = call("POST", "/api/v1/games", dee,
                     "{\"seats\": 3, \"bots\": [\"greedy\"], \"seed\": 5}", 201);
    struct table t = {.seats = 3, .humans = 2};
    snprintf(t.id, sizeof t.id, "%s", str(g, "id"));
    snprintf(t.host, sizeof t.host, "%s", str(g, "host_token"));
    cr_expect_eq(num(g, "seat"), 0);
    cr_expect_str_eq(str(g, "account"), "Dee");
    cr_expect_null(json_object_get(g, "token"), "no seat token: the session acts for the seat");
    json_decref(g);
    char join[160], hpath[160], leave[160];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", t.id);
    snprintf(hpath, sizeof hpath, "/api/v1/games/%s/hand", t.id);
    snprintf(leave, sizeof leave, "/api/v1/games/%s/leave", t.id);
    problem("POST", join, dee, NULL, 409, "already_seated");
    problem("POST", join, eve, "{\"name\": \"Evil\"}", 400, "conflicting_fields");
    json_t *j = call("POST", join, eve, NULL, 201);
    cr_expect_eq(num(j, "seat"), 1);
    cr_expect_str_eq(str(j, "account"), "Eve");
    cr_expect_str_eq(str(j, "status"), "playing");
    cr_expect_null(json_object_get(j, "token"));
    json_decref(j);
    json_t *v = view(&t);
    cr_expect_str_eq(str(json_array_get(json_object_get(v, "seats"), 0), "name"), "Dee");
    cr_expect_str_eq(str(json_array_get(json_object_get(v, "seats"), 1), "name"), "Eve");
    json_decref(v);
    /* Dee on a second device: a new sign-in reads the same hand. */
    sign_in("Dee", "correct horse battery", dee2);
    json_t *h1 = call("GET", hpath, dee, NULL, 200), *h2 = call("GET", hpath, dee2, NULL, 200);
    json_t *he = call("GET", hpath, eve, NULL, 200);
    cr_expect_eq(num(h1, "seat"), 0);
    cr_expect_eq(num(he, "seat"), 1);
    cr_expect(json_equal(json_object_get(h1, "hand"), json_object_get(h2, "hand")));
    cr_expect(!json_equal(json_object_get(h1, "hand"), json_object_get(he, "hand")),
              "each account reads its own seat's hand");
    json_decref(h1);
    json_decref(h2);
    json_decref(he);
    /* Fox has no seat here: no hand, no order, no leave. */
    problem("GET", hpath, fox, NULL, 403, "not_seated");
    char opath[160];
    snprintf(opath, sizeof opath, "/api/v1/games/%s/orders", t.id);
    problem("POST", opath, fox, "{\"round\": 0, \"step\": \"keep\", \"discard\": [0, 1]}", 403,
            "not_seated");
    problem("POST", leave, fox, NULL, 403, "not_seated");
    /* The games list, then the whole game played with session tokens alone. */
    json_t *mine = call("GET", "/api/v1/me/games", dee2, NULL, 200);
    json_t *first = json_array_get(json_object_get(mine, "games"), 0);
    cr_expect_str_eq(str(first, "id"), t.id);
    cr_expect_eq(num(first, "seat"), 0);
    cr_expect_str_eq(str(first, "status"), "playing");
    json_decref(mine);
    snprintf(t.tokens[0], sizeof t.tokens[0], "%s", dee2);
    snprintf(t.tokens[1], sizeof t.tokens[1], "%s", eve);
    play_to_end(&t);
    check_log(&t);
    mine = call("GET", "/api/v1/me/games", eve, NULL, 200);
    cr_expect_str_eq(str(json_array_get(json_object_get(mine, "games"), 0), "status"), "finished");
    json_decref(mine);
    /* Signed out, the session no longer acts for the seat. */
    json_decref(call("DELETE", "/api/v1/sessions/current", dee, NULL, 200));
    problem("GET", hpath, dee, NULL, 401, "bad_token");
    json_decref(call("GET", hpath, dee2, NULL, 200));
}

Test(accounts, leaving_an_open_game_frees_the_accounts_seat)
{
    char gil[80];
    account("Gil", gil);
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3}", 201);
    char id[64], join[160], leave[160];
    snprintf(id, sizeof id, "%s", str(g, "id"));
    json_decref(g);
    snprintf(join, sizeof join, "/api/v1/games/%s/join", id);
    snprintf(leave, sizeof leave, "/api/v1/games/%s/leave", id);
    json_decref(call("POST", join, gil, "{}", 201));
    json_decref(call("POST", leave, gil, NULL, 200));
    problem("POST", leave, gil, NULL, 403, "not_seated");
    json_t *j = call("POST", join, gil, NULL, 201); /* and may sit again */
    cr_expect_eq(num(j, "seat"), 0);
    json_decref(j);
}

Test(accounts, an_account_may_not_join_a_table_where_someone_has_its_name)
{
    char hal[80];
    account("Hal", hal);
    /* An anonymous player sits as "hal" first: the account's fixed name would be a second one. */
    json_t *g = call("POST", "/api/v1/games", NULL, "{\"seats\": 3, \"name\": \"hal\"}", 201);
    char join[160];
    snprintf(join, sizeof join, "/api/v1/games/%s/join", str(g, "id"));
    json_decref(g);
    problem("POST", join, hal, NULL, 409, "name_taken");
    /* Signed out, under another name, Hal may sit. */
    json_t *j = call("POST", join, NULL, "{\"name\": \"Hal 2\"}", 201);
    cr_expect_eq(num(j, "seat"), 1);
    json_decref(j);
}

Test(accounts, changing_the_password_ends_the_other_sessions)
{
    char hal[80], hal2[80];
    account("Hal", hal);
    sign_in("Hal", "correct horse battery", hal2);
    problem("PUT", "/api/v1/me/password", hal,
            "{\"old\": \"not the password\", \"new\": \"a brand new one\"}", 403, "wrong_password");
    problem("PUT", "/api/v1/me/password", hal,
            "{\"old\": \"correct horse battery\", \"new\": \"short\"}", 400, "bad_value");
    json_t *r = call("PUT", "/api/v1/me/password", hal,
                     "{\"old\": \"correct horse battery\", \"new\": \"a brand new one\"}", 200);
    cr_expect_eq(num(r, "sessions_ended"), 1);
    json_decref(r);
    problem("GET", "/api/v1/me", hal2, NULL, 401, "bad_token");
    json_decref(call("GET", "/api/v1/me", hal, NULL, 200));
    problem("POST", "/api/v1/sessions", NULL,
            "{\"name\": \"Hal\", \"password\": \"correct horse battery\"}", 401, "bad_credentials");
    sign_in("Hal", "a brand new one", hal2);
}

Test(accounts, a_deleted_account_leaves_its_games_to_deleted_player_and_frees_its_name)
{
    char ivy[80];
    account("Ivy", ivy);
    json_t *g = call("POST", "/api/v1/games", ivy, "{\"seats\": 2, \"bots\": [\"greedy\"]}", 201);
    char id[64], path[160];
    snprintf(id, sizeof id, "%s", str(g, "id"));
    json_decref(g);
    snprintf(path, sizeof path, "/api/v1/games/%s", id);
    json_decref(call("GET", path, NULL, NULL, 200)); /* cached with the name */
    problem("DELETE", "/api/v1/me", ivy, "{\"password\": \"not the password\"}", 403,
            "wrong_password");
    problem("DELETE", "/api/v1/me", ivy, "{}", 400, "missing_field");
    json_t *r = call("DELETE", "/api/v1/me", ivy, "{\"password\": \"correct horse battery\"}", 200);
    cr_expect(json_is_true(json_object_get(r, "deleted")));
    cr_expect_str_eq(str(r, "shown_as"), "deleted player");
    json_decref(r);
    json_t *v = call("GET", path, NULL, NULL, 200);
    cr_expect_str_eq(str(json_array_get(json_object_get(v, "seats"), 0), "name"), "deleted player");
    char *shown = json_dumps(v, 0);
    cr_expect_null(strstr(shown, "Ivy"), "the name is gone from the view");
    free(shown);
    json_decref(v);
    snprintf(path, sizeof path, "/api/v1/games/%s/events?after=0", id);
    json_t *e = call("GET", path, NULL, NULL, 200);
    char *text = json_dumps(e, 0);
    cr_expect_null(strstr(text, "Ivy"), "and from the log: %s", text);
    cr_expect_not_null(strstr(text, "deleted player"));
    free(text);
    json_decref(e);
    problem("GET", "/api/v1/me", ivy, NULL, 401, "bad_token");
    problem("POST", "/api/v1/sessions", NULL,
            "{\"name\": \"Ivy\", \"password\": \"correct horse battery\"}", 401, "bad_credentials");
    sign_up("Ivy", "someone else's"); /* the name is free again */
}

Test(accounts, the_sweeper_deletes_expired_sessions)
{
    char kit[80], kit2[80];
    account("Kit", kit);
    sign_in("Kit", "correct horse battery", kit2);
    static const char count[] = "SELECT count(*) FROM sessions s JOIN accounts a ON a.id = "
                                "s.account_id WHERE a.name = 'Kit'";
    cr_assert_eq(db_num(db, count), 2);
    /* One session expires (as if its time had passed); the sweeper deletes it, not the other. */
    db_num(db, "UPDATE sessions SET expires_at = now() - interval '1 second' WHERE token_hash = "
               "(SELECT s.token_hash FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE "
               "a.name = 'Kit' LIMIT 1)");
    long long left = 2;
    for (int i = 0; i < 100 && left != 1; i++) {
        harness_sleep_ms(100);
        left = db_num(db, count);
    }
    cr_expect_eq(left, 1, "the expired session is gone without a sign-in");
    int live = 0;
    const char *tokens[] = {kit, kit2};
    for (int i = 0; i < 2; i++) {
        char url[512];
        snprintf(url, sizeof url, "%s/api/v1/me", client_base);
        struct http_reply r;
        cr_assert(http_do("GET", url, tokens[i], NULL, &r));
        live += r.status == 200;
        http_reply_free(&r);
    }
    cr_expect_eq(live, 1, "the other session still signs the account in");
}

Test(accounts, the_games_list_pages_by_cursor)
{
    char lea[80];
    account("Lea", lea);
    char ids[3][32];
    for (int i = 0; i < 3; i++) {
        json_t *g = call("POST", "/api/v1/games", lea, "{\"seats\": 2}", 201);
        snprintf(ids[i], sizeof ids[i], "%s", str(g, "id"));
        json_decref(g);
    }
    /* Newest first, one a page, then nothing more. */
    char path[256] = "/api/v1/me/games?limit=1";
    for (int i = 2; i >= 0; i--) {
        json_t *page = call("GET", path, lea, NULL, 200);
        json_t *games = json_object_get(page, "games");
        cr_assert_eq(json_array_size(games), 1);
        cr_expect_str_eq(str(json_array_get(games, 0), "id"), ids[i]);
        const char *next = str(page, "next");
        cr_assert_eq(next != NULL, i > 0, "a next page while games are left");
        if (next) {
            char enc[128];
            size_t k = 0;
            harness_urlencode(enc, sizeof enc, &k, next);
            enc[k] = 0;
            snprintf(path, sizeof path, "/api/v1/me/games?limit=1&after=%s", enc);
        }
        json_decref(page);
    }
    problem("GET", "/api/v1/me/games?limit=101", lea, NULL, 400, "bad_query");
    problem("GET", "/api/v1/me/games?after=2026-01-01T00:00:00Z~x", lea, NULL, 400, "bad_query");
}

Test(accounts, anonymous_play_is_untouched_and_seat_tokens_are_no_sessions)
{
    struct table t;
    create(&t, 2, 1, NULL);
    problem("GET", "/api/v1/me", t.tokens[0], NULL, 401, "bad_token");
    problem("GET", "/api/v1/me", t.host, NULL, 401, "bad_token");
    char jack[80];
    account("Jack", jack);
    /* A seat token sent to create is ignored, as before accounts. */
    json_t *g =
        call("POST", "/api/v1/games", t.tokens[0], "{\"seats\": 2, \"name\": \"Kim\"}", 201);
    cr_expect(str(g, "token") != NULL);
    cr_expect_null(json_object_get(g, "account"));
    json_decref(g);
    play_to_end(&t);
}

/* ---- the limits on password attempts ------------------------------------------------------- */

struct attempt {
    const char *base;
    long status;
    char code[40];
};

static void *sign_in_once(void *arg)
{
    struct attempt *a = arg;
    char url[512];
    snprintf(url, sizeof url, "%s/api/v1/sessions", a->base);
    struct http_reply r;
    if (http_do("POST", url, NULL, "{\"name\": \"Lee\", \"password\": \"correct horse battery\"}",
                &r)) {
        a->status = r.status;
        const char *code = r.json ? str(r.json, "code") : NULL;
        snprintf(a->code, sizeof a->code, "%s", code ? code : "");
        http_reply_free(&r);
    }
    return NULL;
}

Test(accounts, password_attempts_are_limited_per_account_and_address_and_hashes_per_instance)
{
    struct daemon lim;
    daemon_start(&lim, db,
                 "--account-signin-rate 1 --account-signin-burst 2 --signin-rate 1 "
                 "--signin-burst 5");
    const char *saved = client_base;
    client_base = lim.base;
    /* Per account: two wrong guesses, then 429 even with the right password. */
    sign_up("Mo", "correct horse battery"); /* 1 of the address's 5 */
    for (int i = 0; i < 2; i++)
        problem("POST", "/api/v1/sessions", NULL, "{\"name\": \"Mo\", \"password\": \"guess 123\"}",
                401, "bad_credentials");
    int wait =
        problem("POST", "/api/v1/sessions", NULL,
                "{\"name\": \"MO\", \"password\": \"correct horse battery\"}", 429, "rate_limited");
    cr_expect_geq(wait, 1, "with Retry-After");
    /* Per address: another name is refused once the address's burst is spent. */
    problem("POST", "/api/v1/sessions", NULL, "{\"name\": \"Ned\", \"password\": \"guess 123\"}",
            401, "bad_credentials");
    wait = problem("POST", "/api/v1/sessions", NULL,
                   "{\"name\": \"Ned\", \"password\": \"guess 1\"}", 429, "rate_limited");
    cr_expect_geq(wait, 1);
    client_base = saved;
    daemon_stop(&lim);

    /* One hash at a time: sign-ins at once beyond it are 503 busy with Retry-After 1. */
    struct daemon one;
    daemon_start(&one, db, "--hash-threads 1 --signin-burst 10000 --account-signin-burst 10000");
    client_base = one.base;
    sign_up("Lee", "correct horse battery");
    enum { N = 8 };
    struct attempt at[N];
    pthread_t th[N];
    int ok = 0, busy = 0;
    for (int round = 0; round < 5 && !busy; round++) {
        for (int i = 0; i < N; i++) {
            at[i] = (struct attempt){.base = one.base};
            pthread_create(&th[i], NULL, sign_in_once, &at[i]);
        }
        for (int i = 0; i < N; i++) {
            pthread_join(th[i], NULL);
            ok += at[i].status == 201;
            busy += at[i].status == 503 && strcmp(at[i].code, "busy") == 0;
            cr_expect(at[i].status == 201 || at[i].status == 503, "%ld", at[i].status);
        }
    }
    cr_expect_gt(ok, 0, "some sign in");
    cr_expect_gt(busy, 0, "and those past the one hash at a time are 503 busy");
    client_base = saved;
    daemon_stop(&one);
}
