/* service_accounts.c: optional accounts and their sessions (service.h): signing up, signing in
 * and out, the account's own view and games, changing its password and deleting it. Passwords
 * are hashed with argon2id (pwhash.h) outside any transaction and with no database connection
 * held, at most --hash-threads at once (503 busy past it); every call that takes a password is
 * limited per address and per account name (429 rate_limited with Retry-After). Passwords and
 * their hashes are never logged nor answered; a session token is answered once, by sign-in. */
#include "service.h"
#include "service_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/sha.h>
#include <unistr.h>

#include "auth.h"
#include "hub.h"
#include "lobbycache.h"
#include "names.h"
#include "netaddr.h"
#include "pwhash.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_accounts.h"

/* The games GET /api/v1/me/games lists; the games an account deletion tells listeners of one by
 * one (beyond, it tells them of every game: a transaction sends at most 32 notifications). */
enum { ME_GAMES_LIMIT = 100, DELETED_GAMES_TOLD = 24 };

/* ---- what every call shares ----------------------------------------------------------------- */

/* The bucket key of an account name (its name_key()): a first byte no address family has. */
static void account_bucket_key(const char *key, unsigned char out[NETADDR_KEY_LEN])
{
    unsigned char h[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)key, strlen(key), h);
    out[0] = 0xAC;
    memcpy(out + 1, h, NETADDR_KEY_LEN - 1);
}

/* Takes a password attempt of address `client` and, when `key` is not NULL, of that account
 * name; false with the 429 in o when either is used up. */
static bool attempt_allowed(struct server *srv, const char *client, const char *key,
                            struct outcome *o)
{
    const struct quotas *q = srv->quotas;
    if (!q)
        return true;
    if (!service_within_rate(q->signin, client, "tried passwords", q->signin_rate, q->signin_burst,
                             o))
        return false;
    if (!key || !q->account_signin)
        return true;
    unsigned char k[NETADDR_KEY_LEN];
    account_bucket_key(key, k);
    return service_within_key_rate(q->account_signin, k,
                                   "This account has had too many password attempts",
                                   q->account_signin_rate, q->account_signin_burst, o);
}

/* Takes one of the instance's hash slots; false with 503 busy (Retry-After 1) in o. */
static bool hash_slot(struct server *srv, struct outcome *o)
{
    if (pwhash_enter(srv->quotas ? srv->quotas->hash_threads : 2))
        return true;
    outcome_fail(o, P_BUSY, NULL,
                 "The server is checking too many passwords at once; try again in a second.");
    o->retry_after = 1;
    return false;
}

/* Reads a password field `v` named `field`: a string of PWHASH_MIN_CHARS characters or more and
 * at most PWHASH_MAX_BYTES bytes; false (a 400 in o) otherwise. */
static bool read_password(const json_t *v, const char *field, struct outcome *o)
{
    if (!v)
        return outcome_fail(o, P_MISSING_FIELD, NULL, "The field \"%s\" is required.", field),
               false;
    if (!json_is_string(v))
        return outcome_fail(o, P_WRONG_TYPE, NULL, "\"%s\" must be a string.", field), false;
    size_t len = json_string_length(v);
    const char *s = json_string_value(v);
    if (len > PWHASH_MAX_BYTES || strlen(s) != len ||
        u8_mbsnlen((const uint8_t *)s, len) < PWHASH_MIN_CHARS)
        return outcome_fail(o, P_BAD_VALUE, NULL,
                            "\"%s\" must be %d to %d characters (at most %d bytes of UTF-8, no "
                            "NUL); a few words are easier to remember and harder to guess.",
                            field, PWHASH_MIN_CHARS, PWHASH_MAX_BYTES, PWHASH_MAX_BYTES),
               false;
    return true;
}

/* The clean name (name_clean()) and its key (name_key()) of name field `v`; false with the 400
 * in o. */
static bool read_account_name(const json_t *v, char name[NAMES_MAX_BYTES + 1],
                              char key[NAMES_KEY_BYTES], struct outcome *o)
{
    if (!service_read_name(v, name, NAMES_MAX_BYTES + 1, o))
        return false;
    if (!name_key(name, strlen(name), key))
        return outcome_fail(o, P_INTERNAL, NULL, "The name could not be folded; try again."), false;
    return true;
}

/* A password check of account `a` (NULL: no such account, checked against a dummy for the same
 * time) inside a hash slot; false with 503 busy in o when no slot is free (then *ok is false). */
static bool check_in_slot(struct server *srv, const struct account *a, const json_t *pw, bool *ok,
                          struct outcome *o)
{
    *ok = false;
    if (!hash_slot(srv, o))
        return false;
    *ok = pwhash_check(a ? a->pw_hash : NULL, json_string_value(pw), json_string_length(pw));
    pwhash_leave();
    return true;
}

/* A session token's account, read outside any transaction (store_run). */
struct session_read {
    const char *token;
    struct account *a;
    struct outcome *o;
};

static int session_read_tx(PGconn *c, void *ctx)
{
    struct session_read *sr = ctx;
    return service_session_account(c, sr->token, "playing under your account", sr->a, sr->o);
}

int service_account_of(struct server *srv, const char *token, struct account *a, struct outcome *o)
{
    memset(a, 0, sizeof *a);
    if (!auth_is_session(token))
        return STORE_OK;
    struct session_read sr = {token, a, o};
    return store_run(srv->store, session_read_tx, &sr);
}

/* ---- sign up ------------------------------------------------------------------------------ */

struct account_call {
    struct server *srv;
    struct outcome *o;
    const char *token; /* the request's bearer token */
    char name[NAMES_MAX_BYTES + 1];
    char key[NAMES_KEY_BYTES];
    char pw_hash[PWHASH_STR_LEN];
    struct account a;
    char expires_at[32];
    uint8_t session_hash[AUTH_HASH_LEN];
    int ended;
    char games[DELETED_GAMES_TOLD + 1][AUTH_ID_LEN + 1];
    int ngames;
};

static int account_by_key_tx(PGconn *c, void *ctx)
{
    struct account_call *ac = ctx;
    return store_account_by_key(c, ac->key, &ac->a);
}

/* The 409 of a name an account has already; returns STORE_ABORT. */
static int taken(struct account_call *ac)
{
    return outcome_fail(ac->o, P_NAME_TAKEN, NULL,
                        "An account is named \"%s\" already (names are compared without case "
                        "and width); choose another, or sign in.",
                        ac->name);
}

static int account_insert_tx(PGconn *c, void *ctx)
{
    struct account_call *ac = ctx;
    int st = store_account_insert(c, ac->name, ac->key, ac->pw_hash, &ac->a);
    return st == STORE_NO_ROW ? taken(ac) : st;
}

int service_account_create(struct server *srv, const char *client, const json_t *name,
                           const json_t *password, struct outcome *o)
{
    struct account_call ac = {.srv = srv, .o = o};
    if (!read_account_name(name, ac.name, ac.key, o) || !read_password(password, "password", o))
        return STORE_ABORT;
    if (!attempt_allowed(srv, client, NULL, o))
        return STORE_ABORT;
    int st = store_run(srv->store, account_by_key_tx, &ac);
    if (st != STORE_NO_ROW)
        return st == STORE_OK ? taken(&ac) : st;
    if (!hash_slot(srv, o))
        return STORE_ABORT;
    bool hashed =
        pwhash_make(json_string_value(password), json_string_length(password), ac.pw_hash);
    pwhash_leave();
    if (!hashed)
        return outcome_fail(o, P_INTERNAL, NULL, "The password could not be hashed; try again.");
    st = store_tx(srv->store, account_insert_tx, &ac, STORE_TRIES_READ);
    if (st == STORE_OK)
        outcome_reply(o, 201,
                      json_pack("{s:s, s:s}", "name", ac.a.name, "created_at", ac.a.created_at));
    return st;
}

/* ---- sign in and out ---------------------------------------------------------------------- */

static int session_insert_tx(PGconn *c, void *ctx)
{
    struct account_call *ac = ctx;
    const struct quotas *q = ac->srv->quotas;
    return store_session_insert(c, ac->a.id, ac->session_hash, q ? q->session_seconds : 30 * 86400,
                                ac->expires_at);
}

int service_session_create(struct server *srv, const char *client, const json_t *name,
                           const json_t *password, struct outcome *o)
{
    struct account_call ac = {.srv = srv, .o = o};
    static const char wrong[] =
        "The name or the password is not right (names are compared without case and width).";
    if (!json_is_string(name))
        return outcome_fail(o, name ? P_WRONG_TYPE : P_MISSING_FIELD, NULL,
                            "Send {\"name\": ..., \"password\": ...}: \"name\" is a string.");
    if (!json_is_string(password))
        return outcome_fail(o, password ? P_WRONG_TYPE : P_MISSING_FIELD, NULL,
                            "Send {\"name\": ..., \"password\": ...}: \"password\" is a string.");
    struct outcome ignored = {0};
    bool named = read_account_name(name, ac.name, ac.key, &ignored);
    outcome_clear(&ignored);
    if (!attempt_allowed(srv, client, named ? ac.key : NULL, o))
        return STORE_ABORT;
    int st = named ? store_run(srv->store, account_by_key_tx, &ac) : STORE_NO_ROW;
    if (st != STORE_OK && st != STORE_NO_ROW)
        return st;
    bool ok;
    if (!check_in_slot(srv, st == STORE_OK ? &ac.a : NULL, password, &ok, o))
        return STORE_ABORT;
    if (!ok)
        return outcome_fail(o, P_BAD_CREDENTIALS, NULL, "%s", wrong);
    char token[AUTH_SESSION_LEN + 1];
    if (!auth_new_session(token, ac.session_hash))
        return outcome_fail(o, P_INTERNAL, NULL, "The server has no randomness; try again.");
    st = store_tx(srv->store, session_insert_tx, &ac, STORE_TRIES_READ);
    if (st == STORE_OK)
        outcome_reply(o, 201,
                      json_pack("{s:s, s:s, s:s}", "token", token, "name", ac.a.name, "expires_at",
                                ac.expires_at));
    return st;
}

/* Signs out the session of ac->token (all of its account's sessions when `everywhere`). */
static int sign_out(PGconn *c, struct account_call *ac, bool everywhere)
{
    int st = service_session_account(c, ac->token, "signing out", &ac->a, ac->o);
    if (st != STORE_OK)
        return st;
    uint8_t hash[AUTH_HASH_LEN];
    auth_hash(ac->token, hash);
    st = store_sessions_end(c, ac->a.id, everywhere ? NULL : hash, NULL, &ac->ended);
    if (st == STORE_OK)
        outcome_reply(ac->o, 200, json_pack("{s:i}", "sessions_ended", ac->ended));
    return st;
}

static int sign_out_tx(PGconn *c, void *ctx)
{
    return sign_out(c, ctx, false);
}

static int sign_out_all_tx(PGconn *c, void *ctx)
{
    return sign_out(c, ctx, true);
}

int service_session_end(struct server *srv, const char *token, bool everywhere, struct outcome *o)
{
    struct account_call ac = {.srv = srv, .o = o, .token = token};
    return store_tx(srv->store, everywhere ? sign_out_all_tx : sign_out_tx, &ac, STORE_TRIES_READ);
}

/* ---- the account's own view --------------------------------------------------------------- */

static int me_tx(PGconn *c, void *ctx)
{
    struct account_call *ac = ctx;
    int st = service_session_account(c, ac->token, "your account", &ac->a, ac->o);
    if (st == STORE_OK)
        outcome_reply(ac->o, 200,
                      json_pack("{s:s, s:s}", "name", ac->a.name, "created_at", ac->a.created_at));
    return st;
}

int service_me(struct server *srv, const char *token, struct outcome *o)
{
    struct account_call ac = {.srv = srv, .o = o, .token = token};
    return store_run(srv->store, me_tx, &ac);
}

struct games_call {
    struct account_call ac;
    int limit;
    struct games_cursor after;
};

static int me_games_tx(PGconn *c, void *ctx)
{
    struct games_call *gc = ctx;
    struct account_call *ac = &gc->ac;
    int st = service_session_account(c, ac->token, "your games", &ac->a, ac->o);
    json_t *games = NULL;
    char next[STORE_GAMES_CURSOR_LEN];
    if (st == STORE_OK)
        st = store_account_games(c, ac->a.id, gc->limit, &gc->after, &games, next);
    if (st == STORE_OK)
        outcome_reply(ac->o, 200,
                      json_pack("{s:s, s:o, s:o}", "name", ac->a.name, "games", games, "next",
                                next[0] ? json_string(next) : json_null()));
    return st;
}

int service_me_games(struct server *srv, const char *token, const char *limit, const char *after,
                     struct outcome *o)
{
    struct games_call gc = {.ac = {.srv = srv, .o = o, .token = token}, .limit = ME_GAMES_LIMIT};
    if (limit) {
        char *end;
        long v = strtol(limit, &end, 10);
        if (!*limit || *end || v < 1 || v > ME_GAMES_LIMIT)
            return outcome_fail(o, P_BAD_QUERY, NULL,
                                "\"limit\" must be a whole number from 1 to %d.", ME_GAMES_LIMIT);
        gc.limit = (int)v;
    }
    if (after && !store_games_cursor_parse(after, &gc.after))
        return outcome_fail(o, P_BAD_QUERY, NULL,
                            "\"after\" must be the \"next\" of the page of your games before, as "
                            "it was given.");
    return store_run(srv->store, me_games_tx, &gc);
}

/* ---- change the password, delete the account ---------------------------------------------- */

static int own_session_tx(PGconn *c, void *ctx)
{
    struct account_call *ac = ctx;
    return service_session_account(c, ac->token, "your account", &ac->a, ac->o);
}

/* The session's account (with its hash) and a check of password `pw` against it, after the
 * limits: STORE_OK when it fits, else the refusal (401, 429, 503, 403 wrong_password) in o. */
static int signed_in_check(struct account_call *ac, const char *client, const json_t *pw)
{
    int st = store_run(ac->srv->store, own_session_tx, ac);
    if (st != STORE_OK)
        return st;
    char key[NAMES_KEY_BYTES];
    if (!name_key(ac->a.name, strlen(ac->a.name), key))
        return outcome_fail(ac->o, P_INTERNAL, NULL, "The name could not be folded; try again.");
    if (!attempt_allowed(ac->srv, client, key, ac->o))
        return STORE_ABORT;
    bool ok;
    if (!check_in_slot(ac->srv, &ac->a, pw, &ok, ac->o))
        return STORE_ABORT;
    if (!ok)
        return outcome_fail(ac->o, P_WRONG_PASSWORD, NULL,
                            "The password is not right; send the account's current password.");
    return STORE_OK;
}

static int password_tx(PGconn *c, void *ctx)
{
    struct account_call *ac = ctx;
    int st = store_account_password(c, ac->a.id, ac->a.pw_hash, ac->pw_hash);
    if (st == STORE_NO_ROW)
        return outcome_fail(ac->o, P_WRONG_PASSWORD, NULL,
                            "The password changed meanwhile; send the account's current "
                            "password.");
    uint8_t keep[AUTH_HASH_LEN];
    auth_hash(ac->token, keep);
    if (st == STORE_OK)
        st = store_sessions_end(c, ac->a.id, NULL, keep, &ac->ended);
    return st;
}

int service_password_change(struct server *srv, const char *client, const char *token,
                            const json_t *old, const json_t *new_pw, struct outcome *o)
{
    struct account_call ac = {.srv = srv, .o = o, .token = token};
    if (!json_is_string(old))
        return outcome_fail(o, old ? P_WRONG_TYPE : P_MISSING_FIELD, NULL,
                            "Send {\"old\": the current password, \"new\": the new one}.");
    if (!read_password(new_pw, "new", o))
        return STORE_ABORT;
    int st = signed_in_check(&ac, client, old);
    if (st != STORE_OK)
        return st;
    if (!hash_slot(srv, o))
        return STORE_ABORT;
    bool hashed = pwhash_make(json_string_value(new_pw), json_string_length(new_pw), ac.pw_hash);
    pwhash_leave();
    if (!hashed)
        return outcome_fail(o, P_INTERNAL, NULL, "The password could not be hashed; try again.");
    st = store_tx(srv->store, password_tx, &ac, STORE_TRIES_READ);
    if (st == STORE_OK)
        outcome_reply(o, 200,
                      json_pack("{s:s, s:i}", "name", ac.a.name, "sessions_ended", ac.ended));
    return st;
}

static int delete_tx(PGconn *c, void *ctx)
{
    struct account_call *ac = ctx;
    int st = store_account_delete(c, ac->a.id, ac->a.pw_hash, ac->games, DELETED_GAMES_TOLD + 1,
                                  &ac->ngames);
    if (st == STORE_NO_ROW)
        return outcome_fail(ac->o, P_WRONG_PASSWORD, NULL,
                            "The password changed meanwhile; send the account's current "
                            "password.");
    bool all = ac->ngames > DELETED_GAMES_TOLD;
    for (int i = 0; st == STORE_OK && i < (all ? 1 : ac->ngames); i++)
        st = store_notify_on_commit(c, "city_events", all ? "*" : ac->games[i]);
    if (st == STORE_OK && ac->ngames > 0)
        st = store_notify_on_commit(c, "city_events", LOBBY_CACHE_NEWS);
    return st;
}

int service_account_delete(struct server *srv, const char *client, const char *token,
                           const json_t *password, struct outcome *o)
{
    struct account_call ac = {.srv = srv, .o = o, .token = token};
    if (!json_is_string(password))
        return outcome_fail(o, password ? P_WRONG_TYPE : P_MISSING_FIELD, NULL,
                            "Send {\"password\": the account's password} to delete it.");
    int st = signed_in_check(&ac, client, password);
    if (st != STORE_OK)
        return st;
    st = store_tx(srv->store, delete_tx, &ac, STORE_TRIES_WRITE);
    if (st != STORE_OK)
        return st;
    bool all = ac.ngames > DELETED_GAMES_TOLD;
    for (int i = 0; i < (all ? 1 : ac.ngames); i++)
        hub_publish(srv->hub, all ? "*" : ac.games[i], 0); /* their views name the seat anew */
    if (ac.ngames > 0)
        lobby_cache_changed(srv->lobby);
    outcome_reply(o, 200,
                  json_pack("{s:s, s:b, s:s}", "name", ac.a.name, "deleted", 1, "shown_as",
                            STORE_DELETED_NAME));
    return STORE_OK;
}
