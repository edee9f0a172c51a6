/* service_seats.c: the calls that change who sits at a table (service.h): a player leaving (a
 * bot takes a running game's seat, an open game's seat is free again), the host (or, for a seat
 * away past its time, another person at the table) handing an absent seat to a bot, its person
 * taking it back, and the host cancelling an open game. Each is one transaction that
 * locks the game row; a seat that changes hands bumps the game's seats_version, so every
 * instance reads the seats again (live.c). */
#include "service.h"
#include "service_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "lobbycache.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_accounts.h"
#include "store_games.h"

struct seats_call {
    struct game_call gc;
    int seat; /* takeover: the seat the body names */
};

/* The bot that takes a seat a person gave up: the greedy bot where the game has one. */
static const char *stand_in(const struct ruleset *rs)
{
    return ruleset_has_bot(rs, "greedy") ? "greedy" : rs->bots[0];
}

/* True (with the 409 in o) when the game ended without being played: expired or cancelled. */
static bool unplayed(const struct live *lv, struct outcome *o)
{
    if (service_is_unplayed(lv->row.status)) {
        service_fail_unplayed(o, lv->row.status);
        return true;
    }
    return false;
}

/* Hands seat `seat` of a running game to bot `bot` (its token stops playing), logs `event`
 * {seat, name, bot, ...extra} and lets the bot decide at once if the seat must. */
static int to_bot(PGconn *c, struct live *lv, int seat, const char *bot, const char *event,
                  json_t *extra)
{
    /* A seat taken over keeps its token and account, so that its person may take it back. */
    int st = strcmp(event, "taken_over") == 0 ? store_seat_takeover(c, lv->row.id, seat, bot)
                                              : store_seat_change(c, lv->row.id, seat, bot);
    struct seat_row *row = NULL;
    for (int i = 0; i < lv->nseats; i++)
        if (lv->seats[i].seat == seat)
            row = &lv->seats[i];
    if (st != STORE_OK || !row) {
        json_decref(extra);
        return st == STORE_OK ? STORE_HARD : st;
    }
    snprintf(row->bot, sizeof row->bot, "%s", bot);
    row->has_token = false;
    json_t *data = json_pack("{s:i, s:s, s:s}", "seat", seat, "name", row->name, "bot", bot);
    if (extra)
        json_object_update(data, extra);
    json_decref(extra);
    live_event(lv, event, data);
    lv->changed = true;
    st = live_advance(c, lv, false);
    return st == STORE_OK ? live_save(c, lv) : st;
}

/* Runs a seats transaction `fn` on sc and tells this instance's listeners when it changed the
 * game. */
static int run(struct seats_call *sc, store_tx_fn fn)
{
    int st = store_tx(sc->gc.srv->store, fn, sc, STORE_TRIES_WRITE);
    if (sc->gc.o->status) {
        service_published(sc->gc.srv, st, sc->gc.id, sc->gc.resolved);
        if (st == STORE_OK) /* a seat left, taken over or a game cancelled: seen at once */
            lobby_cache_changed(sc->gc.srv->lobby);
    }
    return st;
}

/* ---- leave -------------------------------------------------------------------------------- */

static int leave_tx(PGconn *c, void *ctx)
{
    struct seats_call *sc = ctx;
    struct outcome *o = sc->gc.o;
    struct live lv;
    int st = service_load(c, &sc->gc, true, service_see_lobby, &lv);
    int seat = -1;
    if (st == STORE_OK) {
        seat = service_seat_of_token(c, &lv, sc->gc.token, o);
        if (seat < 0)
            st = STORE_ABORT;
    }
    if (st == STORE_OK && unplayed(&lv, o))
        st = STORE_ABORT;
    if (st == STORE_OK && service_has_ended(&lv))
        st = outcome_fail(o, P_GAME_OVER, NULL, "The game has ended; there is nothing to leave.");
    const char *bot = NULL;
    if (st == STORE_OK && strcmp(lv.row.status, "open") == 0) {
        /* Before the start the seat is simply free again for someone else. */
        st = store_seat_change(c, sc->gc.id, seat, NULL);
        if (st == STORE_OK) {
            live_event(
                &lv, "left",
                json_pack("{s:i, s:s, s:n}", "seat", seat, "name", lv.seats[seat].name, "bot"));
            lv.changed = true;
            st = live_save(c, &lv);
        }
    } else if (st == STORE_OK) {
        bot = stand_in(lv.rs);
        st = to_bot(c, &lv, seat, bot, "left", NULL);
    }
    if (st == STORE_OK) {
        sc->gc.resolved = lv.resolved;
        outcome_reply(o, 200,
                      json_pack("{s:s, s:i, s:s, s:s*}", "id", sc->gc.id, "seat", seat, "status",
                                lv.row.status, "bot", bot));
    }
    live_free(&lv);
    return st;
}

int service_leave(struct server *srv, const char *id, const char *token, struct outcome *o)
{
    struct seats_call sc = {{.srv = srv, .id = id, .token = token, .o = o}, 0};
    return run(&sc, leave_tx);
}

/* ---- takeover ----------------------------------------------------------------------------- */

/* Only the host; true when `token` is the host token of the loaded game, else the 401 (no
 * token, or one no game knows) or 403 (a seat's token, or another game's) in o. */
static bool is_host(PGconn *c, const struct live *lv, const char *token, const char *what,
                    struct outcome *o)
{
    if (!token) {
        outcome_fail(o, P_NO_TOKEN, NULL,
                     "Send the host token as \"Authorization: Bearer TOKEN\".");
        return false;
    }
    uint8_t hash[AUTH_HASH_LEN];
    auth_hash(token, hash);
    if (auth_equal(hash, lv->row.host_hash))
        return true;
    if (live_seat_of(lv, hash) >= 0)
        outcome_fail(o, P_NOT_HOST, NULL,
                     "Only the host may %s; this is a seat token. Send the host token from "
                     "create.",
                     what);
    else if (store_token_known(c, hash) == STORE_OK)
        outcome_fail(o, P_WRONG_GAME, NULL,
                     "This token belongs to another game; send this game's host token.");
    else
        outcome_fail(o, P_BAD_TOKEN, NULL,
                     "The token is not valid; send the host token from create.");
    return false;
}

/* The seat of another person at the table whose token (a seat's or an account's session) is
 * `token`, or -1 when it is none (the host's, another game's, no live one). */
static int asker_seat(PGconn *c, struct live *lv, const char *token)
{
    if (!token)
        return -1;
    struct outcome quiet = {0};
    int seat = service_seat_of_token(c, lv, token, &quiet);
    outcome_clear(&quiet);
    return seat >= 0 && !lv->seats[seat].bot[0] ? seat : -1;
}

/* True when seat `seat` of game `id` has shown no sign of life within the presence window. */
static int seat_away(struct server *srv, PGconn *c, const char *id, int seat, bool *away, int *ago)
{
    double seen[RS_MAX_SEATS];
    int n = 0, st = store_seats_seen(c, id, seen, &n);
    int window = srv->quotas ? srv->quotas->presence_seconds : 45;
    *ago = seat < n ? (int)seen[seat] : -1;
    *away = *ago < 0 || *ago >= window;
    return st;
}

static int takeover_tx(PGconn *c, void *ctx)
{
    struct seats_call *sc = ctx;
    struct outcome *o = sc->gc.o;
    struct server *srv = sc->gc.srv;
    struct live lv;
    int st = service_load(c, &sc->gc, true, service_see_lobby, &lv);
    /* The host, or another person at the table (who may hand over only a seat that is away). */
    int asker = st == STORE_OK ? asker_seat(c, &lv, sc->gc.token) : -1;
    if (st == STORE_OK && asker < 0 && !is_host(c, &lv, sc->gc.token, "hand a seat to a bot", o))
        st = STORE_ABORT;
    if (st == STORE_OK && unplayed(&lv, o))
        st = STORE_ABORT;
    if (st == STORE_OK && strcmp(lv.row.status, "open") == 0)
        st = outcome_fail(o, P_NOT_STARTED, NULL,
                          "The game has not started; an open seat waits for a player.");
    if (st == STORE_OK && service_has_ended(&lv))
        st = outcome_fail(o, P_GAME_OVER, NULL, "The game has ended.");
    if (st == STORE_OK && sc->seat >= lv.row.players)
        st = outcome_fail(o, P_BAD_VALUE, NULL, "\"seat\" must be a seat of this game: 0 to %d.",
                          lv.row.players - 1);
    if (st == STORE_OK && lv.seats[sc->seat].bot[0])
        st = outcome_fail(o, P_SEAT_IS_BOT, NULL, "A bot (%s) already plays seat %d.",
                          lv.seats[sc->seat].bot, sc->seat);
    if (st == STORE_OK && asker == sc->seat)
        st = outcome_fail(o, P_BAD_VALUE, NULL,
                          "Seat %d is your own: to give it up, leave the game (POST .../leave).",
                          sc->seat);
    bool away = true;
    int ago = -1;
    if (st == STORE_OK && asker >= 0)
        st = seat_away(srv, c, sc->gc.id, sc->seat, &away, &ago);
    if (st == STORE_OK && !away)
        st = outcome_fail(o, P_SEAT_NOT_ABSENT, NULL,
                          "Seat %d is online (seen %d s ago); a player may hand another's seat "
                          "to a bot only while it is away and has missed its time.",
                          sc->seat, ago);
    /* The host: after takeover_after missed deadlines; another person: a seat away past its
     * time once. */
    int missed = 0, need = asker >= 0 ? 1 : srv->quotas ? srv->quotas->takeover_after : 2;
    if (st == STORE_OK)
        st = store_seat_defaults(c, sc->gc.id, sc->seat, &missed);
    if (st == STORE_OK && asker >= 0 && missed < need)
        st = outcome_fail(o, P_SEAT_NOT_ABSENT, NULL,
                          "Seat %d is away but has not missed its time yet; a player may hand it "
                          "to a bot once its time ran out.",
                          sc->seat);
    else if (st == STORE_OK && missed < need)
        st = outcome_fail(o, P_SEAT_NOT_ABSENT, NULL,
                          "Seat %d has missed %d deadline%s; the host may hand a seat to a bot "
                          "once it has missed %d. Force the step meanwhile (POST .../resolve).",
                          sc->seat, missed, missed == 1 ? "" : "s", need);
    const char *bot = st == STORE_OK ? stand_in(lv.rs) : NULL;
    if (st == STORE_OK)
        st = to_bot(c, &lv, sc->seat, bot, "taken_over",
                    asker >= 0 ? json_pack("{s:i, s:i}", "missed", missed, "by", asker)
                               : json_pack("{s:i, s:s}", "missed", missed, "by", "host"));
    if (st == STORE_OK) {
        sc->gc.resolved = lv.resolved;
        outcome_reply(o, 200,
                      json_pack("{s:s, s:i, s:s, s:s, s:i}", "id", sc->gc.id, "seat", sc->seat,
                                "status", lv.row.status, "bot", bot, "missed", missed));
    }
    live_free(&lv);
    return st;
}

int service_takeover(struct server *srv, const char *id, const char *token, int seat,
                     struct outcome *o)
{
    struct seats_call sc = {{.srv = srv, .id = id, .token = token, .o = o}, seat};
    return run(&sc, takeover_tx);
}

/* ---- reclaim ------------------------------------------------------------------------------ */

static int reclaim_tx(PGconn *c, void *ctx)
{
    struct seats_call *sc = ctx;
    struct outcome *o = sc->gc.o;
    struct live lv;
    int st = service_load(c, &sc->gc, true, service_see_lobby, &lv);
    if (st == STORE_OK && !sc->gc.token)
        st = outcome_fail(o, P_NO_TOKEN, NULL,
                          "Send the token your seat had as \"Authorization: Bearer TOKEN\" (or "
                          "your account's session token).");
    if (st == STORE_OK)
        st = service_check_playing(&lv, o,
                                   "The game has not started; there is no seat to take back.",
                                   "The game has ended; there is no seat to take back.");
    uint8_t hash[AUTH_HASH_LEN];
    struct account a = {0};
    if (st == STORE_OK && auth_is_session(sc->gc.token))
        st = service_session_account(c, sc->gc.token, "your seat", &a, o);
    if (st == STORE_OK)
        auth_hash(sc->gc.token, hash);
    int seat = -1;
    if (st == STORE_OK) {
        st = store_seat_reclaim(c, sc->gc.id, hash, a.id, &seat);
        if (st == STORE_NO_ROW || seat < 0 || seat >= lv.nseats)
            st = outcome_fail(o, P_BAD_TOKEN, NULL,
                              "No seat of this game that a bot took over was played with this "
                              "token; only the person a bot replaced may take the seat back.");
    }
    if (st == STORE_OK) {
        struct seat_row *row = &lv.seats[seat];
        row->bot[0] = 0;
        row->has_token = true;
        row->account = a.id;
        if (!a.id)
            memcpy(row->token_hash, hash, AUTH_HASH_LEN);
        live_event(&lv, "reclaimed", json_pack("{s:i, s:s}", "seat", seat, "name", row->name));
        lv.changed = true;
        st = live_save(c, &lv);
    }
    if (st == STORE_OK)
        outcome_reply(
            o, 200,
            json_pack("{s:s, s:i, s:s}", "id", sc->gc.id, "seat", seat, "status", lv.row.status));
    live_free(&lv);
    return st;
}

int service_reclaim(struct server *srv, const char *id, const char *token, struct outcome *o)
{
    struct seats_call sc = {{.srv = srv, .id = id, .token = token, .o = o}, 0};
    return run(&sc, reclaim_tx);
}

/* ---- cancel ------------------------------------------------------------------------------- */

static int cancel_tx(PGconn *c, void *ctx)
{
    struct seats_call *sc = ctx;
    struct outcome *o = sc->gc.o;
    struct live lv;
    int st = service_load(c, &sc->gc, true, service_see_lobby, &lv);
    if (st == STORE_OK && !is_host(c, &lv, sc->gc.token, "cancel the game", o))
        st = STORE_ABORT;
    if (st == STORE_OK && unplayed(&lv, o))
        st = STORE_ABORT;
    if (st == STORE_OK && strcmp(lv.row.status, "open") != 0)
        st = outcome_fail(o, P_GAME_STARTED, NULL,
                          "The game has %s; only an open game can be cancelled. A player may "
                          "leave a running game (a bot takes the seat).",
                          service_has_ended(&lv) ? "ended" : "started");
    if (st == STORE_OK) {
        snprintf(lv.row.status, sizeof lv.row.status, "cancelled");
        live_event(&lv, "cancelled", json_pack("{s:s}", "by", "host"));
        lv.changed = true;
        st = live_save(c, &lv);
    }
    if (st == STORE_OK)
        outcome_reply(o, 200, json_pack("{s:s, s:s}", "id", sc->gc.id, "status", "cancelled"));
    live_free(&lv);
    return st;
}

int service_cancel(struct server *srv, const char *id, const char *token, struct outcome *o)
{
    struct seats_call sc = {{.srv = srv, .id = id, .token = token, .o = o}, 0};
    return run(&sc, cancel_tx);
}
