/* service_presence.c: whether each person is at the table (issue 27): a seat's "presence" in the
 * public view, "online" or "away". A seat is online while its last sign of life is recent
 * (--presence-seconds): its event stream (at its opening and at every keep-alive tick, which
 * comes a third of that time apart), else a hand view or an order, for clients that poll. The
 * sign is stored in the database (seats.last_seen, migration 0019), so that several daemons
 * sharing one database agree; each daemon writes it at most every quarter of the window per
 * seat (an in-memory gate, then the statement's own condition), so a connected seat costs one
 * small write every ~11 s by default. A seat coming back tells every instance (NOTIFY), so its
 * cached views go; a seat going away changes nothing stored, so a view showing an online seat
 * is cached only until that seat would turn away. */
#include "service.h"
#include "service_int.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "hub.h"
#include "ratelimit.h"
#include "server.h"
#include "store.h"
#include "store_games.h"
#include "viewcache.h"

enum { GATE_SLOTS = 4096, DEFAULT_PRESENCE_SECONDS = 45 };

/* The last write of each (game, seat), by a hash of both; a collision costs one more write. */
static struct {
    uint64_t key;
    double at;
} gate[GATE_SLOTS];
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;

static int online_seconds(const struct server *srv)
{
    return srv->quotas && srv->quotas->presence_seconds > 0 ? srv->quotas->presence_seconds
                                                            : DEFAULT_PRESENCE_SECONDS;
}

int service_stream_tick_ms(const struct quotas *q)
{
    int online = q && q->presence_seconds > 0 ? q->presence_seconds : DEFAULT_PRESENCE_SECONDS;
    int ms = online * 1000 / 3;
    return ms < 15000 ? ms : 15000;
}

/* True (and noted) when seat `seat` of game `id` was not written by this instance within
 * `every` seconds. */
static bool due(const char *id, int seat, double every)
{
    uint64_t key = 1469598103934665603ULL; /* FNV-1a of the id, then the seat */
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        key = (key ^ *p) * 1099511628211ULL;
    key = (key ^ (uint64_t)(seat + 1)) * 1099511628211ULL;
    double now = view_cache_now();
    pthread_mutex_lock(&gate_mu);
    size_t slot = (size_t)(key % GATE_SLOTS);
    bool is_due = gate[slot].key != key || now - gate[slot].at >= every;
    if (is_due) {
        gate[slot].key = key;
        gate[slot].at = now;
    }
    pthread_mutex_unlock(&gate_mu);
    return is_due;
}

struct seen_call {
    const char *id;
    int seat;
    double every, online;
    bool back;
};

/* A sign of life promises nothing: its commit does not wait for the disk (a crash may forget the
 * last few, which only shows a seat away until its next sign). */
static int seen_tx(PGconn *c, void *ctx)
{
    struct seen_call *sc = ctx;
    int st = store_commit_lazily(c);
    if (st != STORE_OK)
        return st;
    return store_seat_seen(c, sc->id, sc->seat, sc->every, sc->online, &sc->back);
}

void service_seen(struct server *srv, const char *id, int seat)
{
    if (!srv || !srv->store || seat < 0)
        return;
    int online = online_seconds(srv);
    struct seen_call sc = {id, seat, online / 4.0, online, false};
    if (!due(id, seat, sc.every))
        return;
    /* A failure is not the request's: the seat is seen again at its next sign of life. */
    if (store_tx(srv->store, seen_tx, &sc, STORE_TRIES_READ) == STORE_OK && sc.back)
        hub_publish_presence(srv->hub, id); /* the public view changed, no hand did */
}

int service_presence_add(struct server *srv, PGconn *c, const char *id, json_t *view, double *ttl)
{
    double ago[RS_MAX_SEATS];
    int n = 0;
    int st = store_seats_seen(c, id, ago, &n);
    if (st != STORE_OK)
        return st;
    double online = online_seconds(srv), until = INFINITY;
    size_t i;
    json_t *seat;
    json_array_foreach(json_object_get(view, "seats"), i, seat)
    {
        bool bot = json_is_string(json_object_get(seat, "bot"));
        bool person = json_is_string(json_object_get(seat, "name")) && !bot;
        bool here = bot || (person && (int)i < n && ago[i] >= 0 && ago[i] < online);
        if (person && here && online - ago[i] < until)
            until = online - ago[i];
        json_object_set_new(seat, "presence", json_string(here ? "online" : "away"));
    }
    if (ttl)
        *ttl = until;
    return STORE_OK;
}
