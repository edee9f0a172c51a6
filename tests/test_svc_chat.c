/* test_svc_chat.c: table talk, through real HTTP against a real PostgreSQL: seats talking on the
 * players' channel (text stored and returned as typed, markup included), signed-in watchers on
 * their own channel that the seats do not read until the game ends, anonymous watchers reading
 * the players' channel but not writing, paging with the `after` cursor, each message a "chat"
 * event on the live streams of this and a second daemon on the same database (NOTIFY), the
 * length and rate limits, reports stored once per reporter and counted in /metrics, the talk in
 * the replay viewer's record, and every refusal as problem+json. */
#include <pthread.h>

#include "client.h"

static struct daemon d, d2;
static char db[512];

/* A seat's burst; an address has four times as much (service_chat.c), which these tests, all
 * from 127.0.0.1, never use up. */
enum { BURST = 40 };

static void up(void)
{
    db_create(db, sizeof db);
    char args[128];
    snprintf(args, sizeof args, "--allow-seed --chat-rate 6 --chat-burst %d --signin-burst 1000",
             BURST);
    daemon_start(&d, db, args);
    daemon_start(&d2, db, args);
    client_base = d.base;
}

static void down(void)
{
    daemon_stop(&d2);
    daemon_stop(&d);
}

TestSuite(chat, .init = up, .fini = down, .timeout = 240);

static int problem(const char *method, const char *path, const char *token, const char *body,
                   long status, const char *code)
{
    return call_problem(d.base, method, path, token, body, status, code);
}

/* A new account named `name` and its session token (80 bytes) in out. */
static void account(const char *name, char *out)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\": \"%s\", \"password\": \"correct horse battery\"}",
             name);
    json_decref(call("POST", "/api/v1/accounts", NULL, body, 201));
    json_t *s = call("POST", "/api/v1/sessions", NULL, body, 201);
    snprintf(out, 80, "%s", str(s, "token"));
    json_decref(s);
}

/* Posts `text` (a JSON string literal, quotes included) as `token`; returns the message id. */
static long long say(const struct table *t, const char *token, const char *text)
{
    char path[160], body[1024];
    snprintf(path, sizeof path, "/api/v1/games/%s/chat", t->id);
    snprintf(body, sizeof body, "{\"text\": %s}", text);
    json_t *m = call("POST", path, token, body, 201);
    long long id = num(m, "id");
    json_decref(m);
    return id;
}

/* GET .../chat?QUERY as `token`: a new reference to the page. */
static json_t *read_chat(const struct table *t, const char *token, const char *query)
{
    char path[200];
    snprintf(path, sizeof path, "/api/v1/games/%s/chat%s", t->id, query ? query : "");
    return call("GET", path, token, NULL, 200);
}

/* How many messages of `channel` a page holds. */
static int count(json_t *page, const char *channel)
{
    int n = 0;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(page, "messages"), i, m) n +=
        strcmp(str(m, "channel"), channel) == 0;
    return n;
}

Test(chat, seats_talk_as_typed_and_watchers_read_the_players_channel)
{
    struct table t;
    create(&t, 3, 1, NULL);
    long long a = say(&t, t.tokens[0], "\"<b>hi</b> & <script>alert(1)</script>\"");
    long long b = say(&t, t.tokens[1], "\"gl hf \\u00e9\\n:)\"");
    cr_expect_gt(b, a);
    json_t *p = read_chat(&t, NULL, NULL); /* an anonymous watcher */
    json_t *msgs = json_object_get(p, "messages");
    cr_assert_eq(json_array_size(msgs), 2);
    json_t *m0 = json_array_get(msgs, 0);
    cr_expect_str_eq(str(m0, "text"), "<b>hi</b> & <script>alert(1)</script>", "as typed");
    cr_expect_str_eq(str(m0, "name"), "Player 1");
    cr_expect_str_eq(str(m0, "channel"), "players");
    cr_expect_eq(num(m0, "seat"), 0);
    cr_expect(str(m0, "at") && strlen(str(m0, "at")) == 24, "a UTC time with milliseconds");
    cr_expect_str_eq(str(json_array_get(msgs, 1), "text"), "gl hf \xc3\xa9\n:)");
    cr_expect_eq(num(p, "last"), b);
    cr_expect(json_is_false(json_object_get(p, "watchers")));
    json_decref(p);
    /* Paging: after the first message, one page of one. */
    char q[64];
    snprintf(q, sizeof q, "?after=%lld", a);
    p = read_chat(&t, t.tokens[0], q);
    cr_expect_eq(json_array_size(json_object_get(p, "messages")), 1);
    json_decref(p);
    p = read_chat(&t, NULL, "?limit=1");
    cr_expect_eq(json_array_size(json_object_get(p, "messages")), 1);
    cr_expect(json_is_true(json_object_get(p, "more")));
    cr_expect_eq(num(p, "last"), a);
    json_decref(p);
}

Test(chat, watchers_talk_apart_and_the_seats_read_it_only_once_the_game_ended)
{
    struct table t;
    create(&t, 2, 1, ", \"seed\": 5");
    char rail[80], other[80];
    account("Rail Watcher", rail);
    account("Other Watcher", other);
    say(&t, t.tokens[0], "\"players only\"");
    long long w = say(&t, rail, "\"he should build the farm\"");
    json_t *p = read_chat(&t, other, NULL); /* another signed-in watcher reads both */
    cr_expect_eq(count(p, "players"), 1);
    cr_expect_eq(count(p, "watchers"), 1);
    cr_expect(json_is_true(json_object_get(p, "watchers")));
    json_t *wm = json_array_get(json_object_get(p, "messages"), 1);
    cr_expect_str_eq(str(wm, "name"), "Rail Watcher");
    cr_expect(json_is_null(json_object_get(wm, "seat")));
    json_decref(p);
    p = read_chat(&t, t.tokens[0], NULL); /* the seat does not */
    cr_expect_eq(count(p, "watchers"), 0);
    json_decref(p);
    p = read_chat(&t, NULL, NULL); /* nor an anonymous watcher (who may be a seat) */
    cr_expect_eq(count(p, "watchers"), 0);
    json_decref(p);
    /* Nor can the seat report it: to a seat it does not exist. */
    char path[200];
    snprintf(path, sizeof path, "/api/v1/games/%s/chat/%lld/report", t.id, w);
    problem("POST", path, t.tokens[0], NULL, 404, "no_such_message");
    /* Anonymous watchers read but do not write. */
    snprintf(path, sizeof path, "/api/v1/games/%s/chat", t.id);
    problem("POST", path, NULL, "{\"text\": \"hello\"}", 401, "token_required");
    play_to_end(&t);
    p = read_chat(&t, t.tokens[0], NULL);
    cr_expect_eq(count(p, "watchers"), 1, "after the end every channel is open");
    json_decref(p);
    snprintf(path, sizeof path, "/api/v1/games/%s/replay/rounds", t.id);
    json_t *r = call("GET", path, NULL, NULL, 200);
    cr_expect_eq(json_array_size(json_object_get(r, "chat")), 2, "the talk is in the replay");
    json_decref(r);
    say(&t, t.tokens[0], "\"gg\""); /* talk goes on after the end */
}

Test(chat, a_seated_account_talks_on_the_players_channel_with_its_session)
{
    char ses[80];
    account("Seated Sam", ses);
    json_t *g = call("POST", "/api/v1/games", ses, "{\"seats\": 2, \"bots\": [\"greedy\"]}", 201);
    struct table t = {.seats = 2, .humans = 1};
    snprintf(t.id, sizeof t.id, "%s", str(g, "id"));
    json_decref(g);
    say(&t, ses, "\"hello from my account\"");
    json_t *p = read_chat(&t, ses, NULL);
    json_t *m = json_array_get(json_object_get(p, "messages"), 0);
    cr_expect_str_eq(str(m, "channel"), "players");
    cr_expect_eq(num(m, "seat"), 0);
    cr_expect_str_eq(str(m, "name"), "Seated Sam");
    cr_expect(json_is_false(json_object_get(p, "watchers")), "a seat reads no watchers' talk");
    json_decref(p);
}

/* A stream read for a while in a thread, its body kept. */
struct streamer {
    char url[256];
    const char *token;
    long ms;
    char *body;
};

static void *stream_for(void *arg)
{
    struct streamer *s = arg;
    struct http_request rq = {
        .method = "GET", .url = s->url, .bearer = s->token, .timeout_ms = s->ms};
    struct http_reply r;
    http_request(&rq, &r);
    s->body = r.body ? strdup(r.body) : strdup("");
    http_reply_free(&r);
    return NULL;
}

Test(chat, each_message_is_a_chat_event_on_the_streams_of_every_daemon)
{
    struct table t;
    create(&t, 2, 0, NULL);
    char rail[80];
    account("Stream Watcher", rail);
    say(&t, t.tokens[0], "\"before the streams opened\"");
    struct streamer seat = {.token = t.tokens[1], .ms = 2500};
    struct streamer watcher = {.token = rail, .ms = 2500};
    snprintf(seat.url, sizeof seat.url, "%s/api/v1/games/%s/stream", d2.base, t.id);
    snprintf(watcher.url, sizeof watcher.url, "%s/api/v1/games/%s/stream", d2.base, t.id);
    pthread_t th[2];
    pthread_create(&th[0], NULL, stream_for, &seat);
    pthread_create(&th[1], NULL, stream_for, &watcher);
    usleep(700 * 1000);
    say(&t, t.tokens[0], "\"<i>live</i>\""); /* on the first daemon */
    say(&t, rail, "\"rail talk\"");
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    cr_expect(strstr(seat.body, "event: chat\ndata: ") && strstr(seat.body, "<i>live</i>"), "%s",
              seat.body);
    cr_expect_null(strstr(seat.body, "rail talk"), "a seat's stream has no watchers' talk");
    cr_expect_null(strstr(seat.body, "before the streams"), "a stream sends only new talk");
    cr_expect(strstr(watcher.body, "<i>live</i>") && strstr(watcher.body, "rail talk"), "%s",
              watcher.body);
    free(seat.body);
    free(watcher.body);
}

Test(chat, limits_refusals_and_reports)
{
    struct table t;
    create(&t, 2, 0, NULL);
    char path[200], body[2200];
    snprintf(path, sizeof path, "/api/v1/games/%s/chat", t.id);
    problem("POST", path, t.tokens[0], "{\"text\": \"   \\n \"}", 400, "chat_empty");
    char long_text[1200];
    memset(long_text, 'x', 501);
    long_text[501] = 0;
    snprintf(body, sizeof body, "{\"text\": \"%s\"}", long_text);
    problem("POST", path, t.tokens[0], body, 400, "chat_too_long");
    /* 500 characters of two bytes each are 500 characters, not 1000. */
    char e500[1100] = "\"";
    for (int i = 0; i < 500; i++)
        strcat(e500, "\xc3\xa9");
    strcat(e500, "\"");
    long long first = say(&t, t.tokens[0], e500);
    problem("POST", path, t.tokens[0], "{\"text\": 5}", 400, "wrong_type");
    problem("POST", path, t.tokens[0], "{}", 400, "missing_field");
    problem("POST", path, t.tokens[0], "{\"text\": \"a\", \"to\": 1}", 400, "unknown_field");
    problem("POST", path, t.host, "{\"text\": \"a\"}", 403, "not_a_seat_token");
    problem("POST", path, "not-a-token", "{\"text\": \"a\"}", 401, "bad_token");
    problem("POST", "/api/v1/games/nosuchgame/chat", t.tokens[0], "{\"text\": \"a\"}", 404,
            "game_not_found");
    problem("GET", "/api/v1/games/nosuchgame/chat", NULL, NULL, 404, "game_not_found");
    char q[240];
    snprintf(q, sizeof q, "%s?after=-1", path);
    problem("GET", q, NULL, NULL, 400, "bad_query");
    snprintf(q, sizeof q, "%s?limit=0", path);
    problem("GET", q, NULL, NULL, 400, "bad_query");
    /* Reports: stored once per reporter, counted. */
    char rpath[240];
    snprintf(rpath, sizeof rpath, "/api/v1/games/%s/chat/%lld/report", t.id, first);
    json_t *r = call("POST", rpath, t.tokens[1], "{\"reason\": \"spam\"}", 201);
    cr_expect(json_is_true(json_object_get(r, "first")));
    json_decref(r);
    r = call("POST", rpath, t.tokens[1], NULL, 200);
    cr_expect(json_is_false(json_object_get(r, "first")), "a second report of one reporter");
    json_decref(r);
    snprintf(q, sizeof q, "/api/v1/games/%s/chat/999999999/report", t.id);
    problem("POST", q, t.tokens[1], NULL, 404, "no_such_message");
    snprintf(q, sizeof q, "/api/v1/games/%s/chat/abc/report", t.id);
    problem("POST", q, t.tokens[1], NULL, 404, "no_such_message");
    problem("POST", rpath, t.tokens[1], "{\"reason\": 3}", 400, "wrong_type");
    cr_expect_eq(db_num(db, "SELECT count(*) FROM chat_reports"), 1);
    /* The operator's list: `cityd reports`, one JSON line each; --clear deletes one. */
    char cmd[1200], out[4096] = "";
    const char *bin = getenv("CITYD");
    char fallback[512];
    snprintf(fallback, sizeof fallback, "%s/build/cityd", harness_env("CITY_ROOT", "."));
    snprintf(cmd, sizeof cmd, "'%s' reports --database '%s'", bin ? bin : fallback, db);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    size_t got = fread(out, 1, sizeof out - 1, f);
    out[got] = 0;
    cr_expect_eq(pclose(f), 0);
    json_t *line = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);
    cr_expect_str_eq(str(line, "reason"), "spam", "%s", out);
    cr_expect_str_eq(str(line, "reporter"), "seat:1");
    cr_expect_eq(num(line, "message"), first);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " --clear %lld", num(line, "report"));
    json_decref(line);
    cr_expect_eq(system(cmd), 0);
    cr_expect_eq(db_num(db, "SELECT count(*) FROM chat_reports"), 0, "cleared");
    struct http_reply m;
    char url[512];
    snprintf(url, sizeof url, "%s/metrics", d.base);
    http_do("GET", url, NULL, NULL, &m);
    cr_expect(m.body && strstr(m.body, "city_chat_reports_total 1"), "%s", m.body);
    cr_expect(m.body && strstr(m.body, "city_chat_messages_total{channel=\"players\"} 1"));
    http_reply_free(&m);
    /* --remove takes a message down: reported again, removed, it and its report are gone from
     * the chat (and so from the page and the replay, which read it). */
    json_decref(call("POST", rpath, t.tokens[1], "{\"reason\": \"insults\"}", 201));
    snprintf(cmd, sizeof cmd, "'%s' reports --database '%s' --remove %lld", bin ? bin : fallback,
             db, first);
    cr_expect_eq(system(cmd), 0);
    json_t *after = read_chat(&t, NULL, NULL);
    json_t *am;
    size_t ai;
    json_array_foreach(json_object_get(after, "messages"), ai, am)
        cr_expect_neq(num(am, "id"), first, "the removed message is not read any more");
    json_decref(after);
    cr_expect_eq(db_num(db, "SELECT count(*) FROM chat_reports"), 0, "its report went with it");
    cr_expect_neq(system(cmd), 0, "a message removed is not there to remove again");
    /* The rate: a seat (seat 1 has sent nothing yet) has BURST messages at once, then 429. */
    int sent = 0, retry = 0;
    for (int i = 0; i < BURST + 2 && !retry; i++) {
        struct http_reply rr;
        snprintf(url, sizeof url, "%s%s", d.base, path);
        http_do("POST", url, t.tokens[1], "{\"text\": \"again\"}", &rr);
        if (rr.status == 201)
            sent++;
        else {
            cr_expect_eq(rr.status, 429, "%s", rr.body);
            cr_expect_str_eq(str(rr.json, "code"), "rate_limited");
            char ra[16] = "";
            cr_expect(http_header(&rr, "Retry-After", ra, sizeof ra) && atoi(ra) >= 1);
            retry = 1;
        }
        http_reply_free(&rr);
    }
    cr_expect(retry, "past the burst a 429 (%d sent)", sent);
    cr_expect_eq(sent, BURST, "the seat's burst");
}

/* A message sent again with its key (after an answer that never came: a lost connection, a 503
 * outcome_unknown in a failover) is stored once; each writer has its own keys. */
Test(chat, a_message_sent_again_with_its_key_is_stored_once)
{
    struct table t;
    create(&t, 2, 0, NULL);
    char path[200];
    snprintf(path, sizeof path, "/api/v1/games/%s/chat", t.id);
    const char *body = "{\"text\": \"gg\", \"key\": \"6f1c2a9e-0b7d-4c55-9a3e-1d2b3c4d5e6f\"}";
    json_t *m1 = call("POST", path, t.tokens[0], body, 201);
    json_t *m2 = call("POST", path, t.tokens[0], body, 200); /* the resend */
    cr_expect_eq(num(m2, "id"), num(m1, "id"), "the resend answers the stored message");
    cr_expect_str_eq(str(m2, "text"), "gg");
    json_decref(m1);
    json_decref(m2);
    /* Another seat may use the same key: it is its own message. */
    json_t *m3 = call("POST", path, t.tokens[1], body, 201);
    json_decref(m3);
    char q[400];
    snprintf(q, sizeof q, "SELECT count(*) FROM chat_messages WHERE game_id = '%s'", t.id);
    cr_expect_eq(db_num(db, q), 2, "one message of each seat");
    /* The same key with another text is a mistake of the client's, said as such. */
    problem("POST", path, t.tokens[0],
            "{\"text\": \"good game\", \"key\": \"6f1c2a9e-0b7d-4c55-9a3e-1d2b3c4d5e6f\"}", 409,
            "chat_key_reused");
    problem("POST", path, t.tokens[0], "{\"text\": \"a\", \"key\": \"\"}", 400, "bad_value");
    problem("POST", path, t.tokens[0], "{\"text\": \"a\", \"key\": \"a b\"}", 400, "bad_value");
    problem("POST", path, t.tokens[0], "{\"text\": \"a\", \"key\": 7}", 400, "wrong_type");
    cr_expect_eq(db_num(db, q), 2, "nothing stored by the refusals");
}

/* A resend is not charged to the rate, and a new message refused for the rate stores nothing
 * (the rate is checked before the insert). */
Test(chat, a_resend_is_not_charged_and_a_message_over_the_rate_stores_nothing)
{
    struct table t;
    create(&t, 2, 0, NULL);
    char path[200], q[400], body[160];
    snprintf(path, sizeof path, "/api/v1/games/%s/chat", t.id);
    snprintf(q, sizeof q, "SELECT count(*) FROM chat_messages WHERE game_id = '%s'", t.id);
    const char *keyed = "{\"text\": \"first\", \"key\": \"k-first\"}";
    json_decref(call("POST", path, t.tokens[0], keyed, 201));
    for (int i = 1; i < BURST; i++) { /* the rest of the seat's burst */
        snprintf(body, sizeof body, "{\"text\": \"m%d\", \"key\": \"k%d\"}", i, i);
        json_decref(call("POST", path, t.tokens[0], body, 201));
    }
    cr_expect_eq(db_num(db, q), BURST);
    /* Not even tried: an insert rolled back would still have taken a number of the sequence. */
    const char *seq = "SELECT last_value FROM chat_messages_id_seq";
    long long before = db_num(db, seq);
    problem("POST", path, t.tokens[0], "{\"text\": \"one more\", \"key\": \"k-more\"}", 429,
            "rate_limited");
    cr_expect_eq(db_num(db, q), BURST, "the refused message was not stored");
    cr_expect_eq(db_num(db, seq), before, "the refused message was not inserted at all");
    json_t *again = call("POST", path, t.tokens[0], keyed, 200); /* over the rate, yet answered */
    cr_expect_str_eq(str(again, "text"), "first");
    json_decref(again);
}

/* Deleting accounts keeps their talk and never collides their keys: two watchers' messages with
 * the same key, then both accounts deleted (the messages' account goes NULL). */
Test(chat, accounts_that_used_the_same_key_can_both_be_deleted)
{
    struct table t;
    create(&t, 2, 1, NULL);
    char a[80], b[80], path[200];
    account("Key Watcher A", a);
    account("Key Watcher B", b);
    snprintf(path, sizeof path, "/api/v1/games/%s/chat", t.id);
    json_decref(call("POST", path, a, "{\"text\": \"hi\", \"key\": \"1\"}", 201));
    json_decref(call("POST", path, b, "{\"text\": \"hi\", \"key\": \"1\"}", 201));
    const char *pw = "{\"password\": \"correct horse battery\"}";
    json_decref(call("DELETE", "/api/v1/me", a, pw, 200));
    json_decref(call("DELETE", "/api/v1/me", b, pw, 200));
    char q[400];
    snprintf(q, sizeof q, "SELECT count(*) FROM chat_messages WHERE game_id = '%s'", t.id);
    cr_expect_eq(db_num(db, q), 2, "their talk stays");
}
