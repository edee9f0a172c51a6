/* service_chat.c: table talk (service.h): a seat's messages on the players' channel, a signed-in
 * watcher's on the watchers' channel, reading both after a cursor, and reports of messages for
 * the operator. Who may read what, as on Board Game Arena: the players' channel is as public as
 * the table (everyone who may watch the game reads it); the watchers' channel is read by
 * signed-in watchers (an account's session with no seat in the game) and by everyone once the
 * game has ended, never by a seat while the game runs, so that nobody at the table gets help
 * from the rail. Anonymous watchers read the players' channel but may not write: a message needs
 * someone a report can name (a seat, or an account). A message is one insert and a NOTIFY, so
 * every instance's event streams send it as a "chat" event (sse.c). */
#include "service.h"
#include "service_int.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "hub.h"
#include "metrics.h"
#include "netaddr.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_accounts.h"
#include "store_chat.h"
#include "store_games.h"

/* Who a chat request comes from, once its game is loaded. */
struct speaker {
    int seat;          /* the seat the token acts for, or -1 */
    long long account; /* the account of a session token, or 0 */
    char name[NAMES_MAX_BYTES + 1];
    bool ended; /* the game has ended (or never was played): every channel is open */
};

/* Whether loaded game lv has ended: finished, abandoned, expired or cancelled, or over by its
 * rules (before the sweeper or the next write marks it finished). */
static bool game_ended(const struct live *lv)
{
    bool going = strcmp(lv->row.status, "open") == 0 || strcmp(lv->row.status, "playing") == 0;
    return !going || lv->rs->over(lv->g);
}

/* The seat account `account` holds in lv, or -1. */
static int seat_of_account(const struct live *lv, long long account)
{
    for (int i = 0; i < lv->nseats; i++)
        if (lv->seats[i].has_token && lv->seats[i].account == account)
            return lv->seats[i].seat;
    return -1;
}

/* Fills *sp from `token` for a writer: a session's account (seated or not), or a seat token of
 * the game. STORE_ABORT with the 401/403 in o when it is neither. */
static int identify(PGconn *c, struct live *lv, const char *token, struct speaker *sp,
                    struct outcome *o)
{
    memset(sp, 0, sizeof *sp);
    sp->seat = -1;
    sp->ended = game_ended(lv);
    if (!token)
        return outcome_fail(o, P_NO_TOKEN, NULL,
                            "Send your seat token as \"Authorization: Bearer TOKEN\" to talk at "
                            "the table, or sign in (POST /api/v1/sessions) to talk with the other "
                            "watchers: anonymous watchers may read the players' chat but not "
                            "write.");
    if (auth_is_session(token)) {
        struct account a;
        int st = service_session_account(c, token, "chatting", &a, o);
        if (st != STORE_OK)
            return st;
        sp->account = a.id;
        sp->seat = seat_of_account(lv, a.id);
        snprintf(sp->name, sizeof sp->name, "%s", a.name);
    } else {
        sp->seat = service_seat_of_token(c, lv, token, o);
        if (sp->seat < 0)
            return STORE_ABORT; /* its 401/403 (or 503) is in o */
    }
    if (sp->seat >= 0)
        for (int i = 0; i < lv->nseats; i++)
            if (lv->seats[i].seat == sp->seat)
                snprintf(sp->name, sizeof sp->name, "%s", lv->seats[i].name);
    return STORE_OK;
}

/* Whether the reader of `token` sees the watchers' channel of loaded game lv: once the game
 * ended, or for an account's session that holds no seat in it. Any other token (a seat's, the
 * host's, one that fits nothing) reads as an anonymous watcher does: the players' channel. */
static bool sees_watchers(PGconn *c, const struct live *lv, const char *token)
{
    if (game_ended(lv))
        return true;
    if (!token || !auth_is_session(token))
        return false;
    uint8_t hash[AUTH_HASH_LEN];
    auth_hash(token, hash);
    struct account a = {0};
    return store_account_of_session(c, hash, &a) == STORE_OK && seat_of_account(lv, a.id) < 0;
}

/* The bucket key of a speaker (a seat of a game, or an account) in the speakers' chat limiter
 * (its first byte none of netaddr_key()'s families, as for accounts' sign-in keys). */
static void speaker_key(const char *id, const struct speaker *sp,
                        unsigned char out[NETADDR_KEY_LEN])
{
    char text[128];
    if (sp->account)
        snprintf(text, sizeof text, "account:%lld", sp->account);
    else
        snprintf(text, sizeof text, "seat:%s:%d", id, sp->seat);
    unsigned char h[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)text, strlen(text), h);
    out[0] = 0xC7;
    memcpy(out + 1, h, NETADDR_KEY_LEN - 1);
}

/* Takes a chat token of address `client` and, when sp is not NULL, of the speaker; false with
 * the 429 in o when either is used up. */
static bool chat_allowed(struct server *srv, const char *id, const char *client,
                         const struct speaker *sp, struct outcome *o)
{
    const struct quotas *q = srv->quotas;
    if (!q || !q->chat)
        return true; /* no limit */
    if (!service_within_rate(q->chat_address, client, "sent chat messages or reports",
                             q->chat_rate * QUOTAS_CHAT_ADDRESS_SHARE,
                             q->chat_burst * QUOTAS_CHAT_ADDRESS_SHARE, o))
        return false;
    if (!sp)
        return true;
    unsigned char k[NETADDR_KEY_LEN];
    speaker_key(id, sp, k);
    return service_within_key_rate(
        q->chat, k,
        "You have sent chat messages too often (the limit holds for each "
        "person at a table)",
        q->chat_rate, q->chat_burst, o);
}

/* The characters (code points) of UTF-8 text s, and whether it has any that is not white
 * space. */
static size_t chars_of(const char *s, bool *blank)
{
    size_t n = 0;
    *blank = true;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p & 0xC0) != 0x80)
            n++;
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            *blank = false;
    }
    return n;
}

/* ---- writing ------------------------------------------------------------------------------ */

struct post_call {
    struct game_call gc;
    const char *client;
    const char *text;
    const char *key; /* the writer's key, or NULL */
    bool watchers;   /* the message went to the watchers' channel */
    int seat;
    int kept; /* STORE_CHAT_NEW, _AGAIN or _KEY_TAKEN */
};

static int post_tx(PGconn *c, void *ctx)
{
    struct post_call *pc = ctx;
    struct outcome *o = pc->gc.o;
    struct live lv;
    int st = service_load(c, &pc->gc, false, service_see_lobby, &lv);
    struct speaker sp;
    if (st == STORE_OK)
        st = identify(c, &lv, pc->gc.token, &sp, o);
    json_t *msg = NULL;
    if (st == STORE_OK) {
        pc->watchers = sp.seat < 0;
        pc->seat = sp.seat;
        const struct store_chat_new m = {pc->gc.id, pc->watchers ? "watchers" : "players",
                                         sp.seat,   sp.account,
                                         sp.name,   pc->text,
                                         pc->key};
        /* Only a new message is charged, before it is written: a message over the rate
         * costs the database a read, not an insert rolled back. */
        st = store_chat_sent(c, &m, &msg, &pc->kept);
        if (st == STORE_NO_ROW)
            st = chat_allowed(pc->gc.srv, pc->gc.id, pc->client, &sp, o)
                     ? store_chat_insert(c, &m, &msg, &pc->kept)
                     : STORE_ABORT;
    }
    if (st == STORE_OK && pc->kept == STORE_CHAT_KEY_TAKEN) {
        json_decref(msg);
        msg = NULL;
        st = outcome_fail(o, P_CHAT_KEY_REUSED, NULL,
                          "You already sent a message with the key \"%s\" in this game, with "
                          "another text: choose a new key for each new message (a random one), "
                          "and send the same key only when you send the same message again.",
                          pc->key);
    }
    if (st == STORE_OK && pc->kept == STORE_CHAT_NEW)
        st = store_notify(c, pc->gc.id, 0); /* every instance's streams read the chat */
    if (st == STORE_OK) {                   /* a message sent again: 200 with the one stored */
        outcome_reply(o, pc->kept == STORE_CHAT_NEW ? 201 : 200, msg);
        msg = NULL;
    }
    json_decref(msg);
    live_free(&lv);
    return st;
}

/* Whether s is a writer's key: 1 to SERVICE_CHAT_KEY_MAX letters, digits and "-_.:". */
static bool chat_key_ok(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= SERVICE_CHAT_KEY_MAX &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == n;
}

int service_chat_post(struct server *srv, const char *id, const char *client, const char *token,
                      const json_t *text, const json_t *key, struct outcome *o)
{
    if (key && !json_is_string(key))
        return outcome_fail(o, P_WRONG_TYPE, NULL,
                            "\"key\" must be a string: a random one of your choice for each "
                            "new message, e.g. a UUID.");
    if (key && !chat_key_ok(json_string_value(key)))
        return outcome_fail(o, P_BAD_VALUE, NULL,
                            "\"key\" must be 1 to %d letters, digits or \"-_.:\", e.g. a UUID.",
                            SERVICE_CHAT_KEY_MAX);
    if (!text)
        return outcome_fail(o, P_MISSING_FIELD, NULL,
                            "The field \"text\" is required: {\"text\": \"good game\"}.");
    if (!json_is_string(text))
        return outcome_fail(o, P_WRONG_TYPE, NULL, "\"text\" must be a string.");
    bool blank;
    size_t n = chars_of(json_string_value(text), &blank);
    if (blank)
        return outcome_fail(o, P_CHAT_EMPTY, NULL,
                            "The message has no text (only white space); write something.");
    if (n > SERVICE_CHAT_MAX_CHARS)
        return outcome_fail(o, P_CHAT_TOO_LONG, NULL,
                            "The message has %zu characters; a message has at most %d. Shorten "
                            "it or send it in parts.",
                            n, SERVICE_CHAT_MAX_CHARS);
    struct post_call pc = {.gc = {srv, id, token, o, 0},
                           .client = client,
                           .text = json_string_value(text),
                           .key = key ? json_string_value(key) : NULL};
    int st = store_tx(srv->store, post_tx, &pc, STORE_TRIES_READ);
    if (st == STORE_OK && pc.kept == STORE_CHAT_NEW) {
        metrics_chat_message(pc.watchers);
        hub_publish(srv->hub, id, 0);
        if (pc.seat >= 0)
            service_seen(srv, id, pc.seat); /* talking is a sign of life */
    }
    return st;
}

/* ---- reading ------------------------------------------------------------------------------ */

struct read_call {
    struct game_call gc;
    long long after;
    int limit;
};

static int read_tx(PGconn *c, void *ctx)
{
    struct read_call *rc = ctx;
    struct live lv;
    int st = service_load(c, &rc->gc, false, service_see_lobby, &lv);
    bool watchers = false;
    json_t *msgs = NULL;
    if (st == STORE_OK) {
        watchers = sees_watchers(c, &lv, rc->gc.token);
        st = store_chat_after(c, rc->gc.id, rc->after, rc->limit, watchers, &msgs);
    }
    if (st == STORE_OK) {
        json_t *lastm = json_array_get(msgs, json_array_size(msgs) - 1);
        long long last = lastm ? json_integer_value(json_object_get(lastm, "id")) : rc->after;
        outcome_reply(rc->gc.o, 200,
                      json_pack("{s:o, s:I, s:b, s:b}", "messages", msgs, "last", (json_int_t)last,
                                "more", json_array_size(msgs) == (size_t)rc->limit, "watchers",
                                watchers));
        msgs = NULL;
    }
    json_decref(msgs);
    live_free(&lv);
    return st;
}

/* Reads a non-negative whole number query value into *v (absent: `dflt`); false when bad. */
static bool query_number(const char *s, long long max, long long dflt, long long *v)
{
    if (!s) {
        *v = dflt;
        return true;
    }
    char *end = NULL;
    *v = strtoll(s, &end, 10);
    return *s && !*end && *v >= 0 && *v <= max;
}

int service_chat_read(struct server *srv, const char *id, const char *token, const char *after,
                      const char *limit, struct outcome *o)
{
    long long a, l;
    if (!query_number(after, 1000000000000000LL, 0, &a))
        return outcome_fail(o, P_BAD_QUERY, NULL,
                            "\"after\" must be a message id (a whole number, 0 or more): the "
                            "\"last\" of the page before.");
    if (!query_number(limit, SERVICE_CHAT_PAGE, SERVICE_CHAT_PAGE, &l) || l < 1)
        return outcome_fail(o, P_BAD_QUERY, NULL, "\"limit\" must be a whole number from 1 to %d.",
                            SERVICE_CHAT_PAGE);
    struct read_call rc = {.gc = {srv, id, token, o, 0}, .after = a, .limit = (int)l};
    return store_run(srv->store, read_tx, &rc);
}

/* ---- reports ------------------------------------------------------------------------------ */

struct report_call {
    struct game_call gc;
    const char *client;
    long long msg;
    const char *reason;
    bool fresh;
    char reporter[96];
};

static int report_tx(PGconn *c, void *ctx)
{
    struct report_call *rc = ctx;
    struct outcome *o = rc->gc.o;
    const char *token = rc->gc.token;
    struct live lv;
    int st = service_load(c, &rc->gc, false, service_see_lobby, &lv);
    struct speaker sp = {.seat = -1};
    if (st == STORE_OK && token) /* a token must fit: a seat, or a live session */
        st = identify(c, &lv, token, &sp, o);
    if (st == STORE_OK && !chat_allowed(rc->gc.srv, rc->gc.id, rc->client, NULL, o))
        st = STORE_ABORT;
    char channel[16] = "";
    if (st == STORE_OK) {
        st = store_chat_channel(c, rc->gc.id, rc->msg, channel);
        /* A message the reporter cannot read is one it cannot report (nor learn of). */
        if (st == STORE_OK && strcmp(channel, "watchers") == 0 && !sees_watchers(c, &lv, token))
            st = STORE_NO_ROW;
        if (st == STORE_NO_ROW)
            st = outcome_fail(o, P_NO_MESSAGE, NULL,
                              "Game \"%.40s\" has no chat message %lld that you can read; take "
                              "the id from GET /api/v1/games/%.40s/chat.",
                              rc->gc.id, rc->msg, rc->gc.id);
    }
    if (st == STORE_OK) {
        if (sp.account)
            snprintf(rc->reporter, sizeof rc->reporter, "account:%lld", sp.account);
        else if (sp.seat >= 0)
            snprintf(rc->reporter, sizeof rc->reporter, "seat:%d", sp.seat);
        else
            snprintf(rc->reporter, sizeof rc->reporter, "address:%.64s", rc->client);
        st = store_chat_report(c, rc->msg, rc->reporter, rc->reason, &rc->fresh);
    }
    if (st == STORE_OK)
        outcome_reply(o, rc->fresh ? 201 : 200,
                      json_pack("{s:I, s:b, s:b}", "message", (json_int_t)rc->msg, "reported", 1,
                                "first", rc->fresh));
    live_free(&lv);
    return st;
}

int service_chat_report(struct server *srv, const char *id, const char *client, const char *token,
                        const char *msg, const json_t *reason, struct outcome *o)
{
    long long m;
    if (!query_number(msg, 1000000000000000LL, 0, &m) || m < 1)
        return outcome_fail(o, P_NO_MESSAGE, NULL,
                            "\"%.40s\" is no chat message id; take the id from GET "
                            "/api/v1/games/%.40s/chat.",
                            msg, id);
    if (reason && !json_is_string(reason))
        return outcome_fail(o, P_WRONG_TYPE, NULL, "\"reason\" must be a string.");
    bool blank;
    if (reason && chars_of(json_string_value(reason), &blank) > SERVICE_CHAT_REASON_CHARS)
        return outcome_fail(o, P_BAD_VALUE, NULL,
                            "\"reason\" has at most %d characters: say briefly what is wrong.",
                            SERVICE_CHAT_REASON_CHARS);
    struct report_call rc = {.gc = {srv, id, token, o, 0},
                             .client = client,
                             .msg = m,
                             .reason = reason ? json_string_value(reason) : ""};
    int st = store_tx(srv->store, report_tx, &rc, STORE_TRIES_READ);
    if (st == STORE_OK && rc.fresh) {
        metrics_chat_report();
        /* The operator's trace of it: one line on stderr (and `cityd reports` lists them). */
        fprintf(stderr, "chat report: game %.40s message %lld by %s: %.200s\n", id, m, rc.reporter,
                rc.reason);
    }
    return st;
}
