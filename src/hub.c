/* hub.c: LISTEN/NOTIFY fan-out to this instance's SSE streams, by game (see hub.h).
 *
 * One mutex guards a hash table of the games that have streams here. Each game entry counts
 * its news (gen) and keeps the list of its parked streams. A stream parks only while holding
 * the mutex and only when it has seen its game's latest news, and news resumes the parked
 * streams of its game while holding it too, so a resume never comes before its suspend and
 * no news is missed between a stream's read of the database and its parking. The listener
 * thread polls its database socket with poll() (any descriptor number) and, once a second,
 * resumes the streams whose keep-alive is due. */
#include "hub.h"

#include "addrcount.h"
#include "auth.h"
#include "lobbycache.h"
#include "store_games.h"
#include "viewcache.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { ID_LEN = 64, BUCKETS = 4096 };

struct game_entry {
    char id[ID_LEN];
    uint64_t gen; /* news of this game so far */
    int nsubs;
    int nending;            /* of them, ended for players' streams and not yet gone */
    struct hub_sub *parked; /* streams waiting for news, linked through next_parked */
    struct game_entry *next;
};

struct hub_sub {
    struct hub *h;
    struct game_entry *g;
    uint64_t seen; /* g->gen when the stream last read */
    bool parked, keepalive;
    bool player;                 /* opened with a seat token of its game */
    bool evicted;                /* ended to make room for a player's stream */
    struct addr_count *addr;     /* its client address's count of streams */
    struct hub_sub *prev, *next; /* every stream of the hub */
    struct MHD_Connection *conn; /* while parked */
    double due;                  /* when its keep-alive is due, while parked */
    struct hub_sub *next_parked;
};

struct hub {
    pthread_mutex_t lock;
    pthread_t thread;
    bool stop;
    char *conninfo;
    struct view_cache *cache;  /* borrowed */
    struct lobby_cache *lobby; /* borrowed */
    struct hub_limits limits;
    long streams, parked;
    long nending; /* streams ended for players' streams and not yet gone */
    uint64_t wakeups, refused, evicted;
    struct game_entry *buckets[BUCKETS];
    struct hub_sub *all;       /* every stream, newest first */
    struct addr_counts *addrs; /* streams per client address */
    uint64_t self;             /* this instance, in the tails of its own notifications */
    /* The changes this instance is committing and announces itself (hub_echoes_expect): their
     * notifications, when they come back to it, are no news. A ring: an entry overwritten
     * early only costs an announcement made twice. */
    struct {
        char id[AUTH_ID_LEN + 1];
        uint64_t tag; /* 0: free */
    } echoes[HUB_ECHOES];
    uint64_t next_tag;
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned bucket_of(const char *id)
{
    uint32_t x = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        x = (x ^ *p) * 16777619u;
    return x % BUCKETS;
}

static struct game_entry *entry_find(struct hub *h, const char *id)
{
    for (struct game_entry *e = h->buckets[bucket_of(id)]; e; e = e->next)
        if (strcmp(e->id, id) == 0)
            return e;
    return NULL;
}

/* Resumes every parked stream of `e` (lock held). */
static void wake_all(struct hub *h, struct game_entry *e, bool for_news)
{
    while (e->parked) {
        struct hub_sub *s = e->parked;
        e->parked = s->next_parked;
        s->next_parked = NULL;
        s->parked = false;
        h->parked--;
        if (for_news)
            h->wakeups++;
        MHD_resume_connection(s->conn);
        s->conn = NULL;
    }
}

/* hub_publish(), forgetting the game's cached members too when `members`; with `since`, as
 * hub_publish_since() (its result). */
static bool publish(struct hub *h, const char *id, bool members, const uint64_t *since,
                    uint64_t *after)
{
    if (!h)
        return false;
    /* Before anyone is woken to read the game. */
    bool quiet = false;
    if (since)
        quiet = view_cache_invalidate_since(h->cache, id, *since, after);
    else if (members)
        view_cache_invalidate(h->cache, id);
    else
        view_cache_invalidate_own(h->cache, id);
    pthread_mutex_lock(&h->lock);
    if (strcmp(id, "*") == 0) {
        for (int b = 0; b < BUCKETS; b++)
            for (struct game_entry *e = h->buckets[b]; e; e = e->next) {
                e->gen++;
                wake_all(h, e, true);
            }
    } else {
        struct game_entry *e = entry_find(h, id);
        if (e) {
            e->gen++;
            wake_all(h, e, true);
        }
    }
    pthread_mutex_unlock(&h->lock);
    return quiet;
}

void hub_publish(struct hub *h, const char *id, long long seq)
{
    (void)seq;
    publish(h, id, true, NULL, NULL);
}

bool hub_publish_since(struct hub *h, const char *id, uint64_t ticket, uint64_t *after)
{
    return publish(h, id, true, &ticket, after);
}

void hub_publish_presence(struct hub *h, const char *id)
{
    publish(h, id, false, NULL, NULL);
}

void hub_publish_hands(struct hub *h, const char *id)
{
    if (h && strcmp(id, "*") != 0)
        view_cache_invalidate_members(h->cache, id); /* nothing public: no stream to wake */
}

void hub_echo_tail(struct hub *h, uint64_t tag, char *buf, size_t n)
{
    snprintf(buf, n, "%s%016llx.%llx", HUB_ECHO_MARK, (unsigned long long)(h ? h->self : 0),
             (unsigned long long)tag);
}

/* A new tag for game `id` in the hub's ring (hub_echoes_expect); 0 when h is NULL. */
static uint64_t expect_echo(struct hub *h, const char *id)
{
    if (!h || strlen(id) > AUTH_ID_LEN)
        return 0;
    pthread_mutex_lock(&h->lock);
    uint64_t tag = ++h->next_tag;
    unsigned k = (unsigned)(tag % HUB_ECHOES);
    snprintf(h->echoes[k].id, sizeof h->echoes[k].id, "%s", id);
    h->echoes[k].tag = tag;
    pthread_mutex_unlock(&h->lock);
    return tag;
}

/* The tag's echo, should it come, is news again. */
static void forget_echo(struct hub *h, uint64_t tag)
{
    if (!h || !tag)
        return;
    pthread_mutex_lock(&h->lock);
    unsigned k = (unsigned)(tag % HUB_ECHOES);
    if (h->echoes[k].tag == tag)
        h->echoes[k].tag = 0;
    pthread_mutex_unlock(&h->lock);
}

uint64_t hub_echoes_expect(struct hub *h, struct hub_echoes *l, const char *id)
{
    if (l->n >= HUB_ECHO_LIST)
        return 0;
    uint64_t tag = expect_echo(h, id);
    if (tag) {
        snprintf(l->e[l->n].id, sizeof l->e[0].id, "%s", id);
        l->e[l->n].tag = tag;
        l->e[l->n++].announced = false;
    }
    return tag;
}

void hub_echoes_announced(struct hub_echoes *l, uint64_t tag)
{
    for (int k = 0; k < l->n && tag; k++)
        if (l->e[k].tag == tag)
            l->e[k].announced = true;
}

void hub_echoes_end(struct hub *h, struct hub_echoes *l, bool failed)
{
    for (int k = 0; k < l->n; k++) {
        if (l->e[k].announced)
            continue;
        forget_echo(h, l->e[k].tag); /* first: an echo that comes now is news */
        if (failed)
            hub_publish(h, l->e[k].id, 0);
    }
    l->n = 0;
}

/* Whether the notification of game `id` with tail `tail` (from its last ':') is the echo of a
 * change this instance announces itself (hub_echoes_expect); its tag is then used up. */
static bool is_echo(struct hub *h, const char *id, const char *tail)
{
    size_t mark = strlen(HUB_ECHO_MARK);
    if (!tail || strncmp(tail, HUB_ECHO_MARK, mark) != 0)
        return false;
    char *end;
    unsigned long long who = strtoull(tail + mark, &end, 16);
    if (who != h->self || *end != '.')
        return false;
    unsigned long long tag = strtoull(end + 1, &end, 16);
    if (*end || tag == 0)
        return false;
    pthread_mutex_lock(&h->lock);
    unsigned k = (unsigned)(tag % HUB_ECHOES);
    bool found = h->echoes[k].tag == tag && strcmp(h->echoes[k].id, id) == 0;
    if (found)
        h->echoes[k].tag = 0; /* an echo comes once */
    pthread_mutex_unlock(&h->lock);
    return found;
}

/* Resumes stream s if it is parked (lock held), so that its reader runs. */
static void wake_one(struct hub *h, struct hub_sub *s)
{
    if (!s->parked)
        return;
    for (struct hub_sub **pp = &s->g->parked; *pp; pp = &(*pp)->next_parked)
        if (*pp == s) {
            *pp = s->next_parked;
            break;
        }
    s->next_parked = NULL;
    s->parked = false;
    h->parked--;
    MHD_resume_connection(s->conn);
    s->conn = NULL;
}

/* Ends a watcher's stream to make room for a player's: one of game `e` (any game when NULL),
 * from the address that holds the most streams. False when there is no watcher to end. Lock
 * held. */
static bool evict_watcher(struct hub *h, const struct game_entry *e)
{
    struct hub_sub *victim = NULL;
    for (struct hub_sub *s = h->all; s; s = s->next)
        if (!s->player && !s->evicted && (!e || s->g == e) &&
            (!victim || (s->addr ? s->addr->open : 0) > (victim->addr ? victim->addr->open : 0)))
            victim = s;
    if (!victim)
        return false;
    victim->evicted = true;
    victim->g->nending++;
    h->nending++;
    h->evicted++;
    wake_one(h, victim);
    return true;
}

/* Streams the caps count: those of game `e` (every game when NULL) less those ending for
 * players (lock held). */
static long counted(const struct hub *h, const struct game_entry *e)
{
    return e ? e->nsubs - e->nending : h->streams - h->nending;
}

struct hub_sub *hub_subscribe(struct hub *h, const char *id, const char *addr, bool player,
                              enum hub_refusal *why)
{
    struct hub_sub *s = NULL;
    pthread_mutex_lock(&h->lock);
    struct game_entry *e = entry_find(h, id);
    bool game_full =
        h->limits.max_streams_per_game > 0 && e && counted(h, e) >= h->limits.max_streams_per_game;
    if (player && game_full) {
        evict_watcher(h, e); /* a player gets in, with room made or past the cap */
        game_full = false;
    }
    bool full = h->limits.max_streams > 0 && counted(h, NULL) >= h->limits.max_streams;
    if (player && full) {
        evict_watcher(h, NULL);
        full = false;
    }
    if (h->stop)
        *why = HUB_STOPPING;
    else if (h->limits.max_streams_per_address > 0 &&
             addr_counts_of(h->addrs, addr) >= h->limits.max_streams_per_address)
        *why = HUB_ADDRESS_FULL;
    else if (full)
        *why = HUB_FULL;
    else if (game_full)
        *why = HUB_GAME_FULL;
    else if (strlen(id) >= ID_LEN || !(s = calloc(1, sizeof *s)))
        *why = HUB_NOMEM;
    else if (!e && !(e = calloc(1, sizeof *e))) {
        free(s);
        s = NULL;
        *why = HUB_NOMEM;
    } else {
        if (!e->nsubs && !e->id[0]) {
            snprintf(e->id, sizeof e->id, "%s", id);
            unsigned b = bucket_of(id);
            e->next = h->buckets[b];
            h->buckets[b] = e;
        }
        e->nsubs++;
        h->streams++;
        s->h = h;
        s->g = e;
        s->seen = e->gen;
        s->player = player;
        s->addr = addr_counts_take(h->addrs, addr);
        s->next = h->all;
        if (h->all)
            h->all->prev = s;
        h->all = s;
        *why = HUB_OK;
    }
    if (!s && *why != HUB_STOPPING)
        h->refused++;
    pthread_mutex_unlock(&h->lock);
    return s;
}

void hub_unsubscribe(struct hub_sub *s)
{
    if (!s)
        return;
    struct hub *h = s->h;
    pthread_mutex_lock(&h->lock);
    struct game_entry *e = s->g;
    if (s->parked) { /* only when its connection is being torn down while suspended */
        for (struct hub_sub **pp = &e->parked; *pp; pp = &(*pp)->next_parked)
            if (*pp == s) {
                *pp = s->next_parked;
                break;
            }
        h->parked--;
    }
    h->streams--;
    if (s->evicted) {
        e->nending--;
        h->nending--;
    }
    addr_counts_release(h->addrs, s->addr);
    if (s->prev)
        s->prev->next = s->next;
    else
        h->all = s->next;
    if (s->next)
        s->next->prev = s->prev;
    if (--e->nsubs == 0) {
        for (struct game_entry **pp = &h->buckets[bucket_of(e->id)]; *pp; pp = &(*pp)->next)
            if (*pp == e) {
                *pp = e->next;
                break;
            }
        free(e);
    }
    pthread_mutex_unlock(&h->lock);
    free(s);
}

void hub_sub_mark(struct hub_sub *s)
{
    pthread_mutex_lock(&s->h->lock);
    s->seen = s->g->gen;
    pthread_mutex_unlock(&s->h->lock);
}

bool hub_park(struct hub_sub *s, struct MHD_Connection *conn)
{
    struct hub *h = s->h;
    bool parked = false;
    pthread_mutex_lock(&h->lock);
    if (!h->stop && s->seen == s->g->gen) {
        s->parked = true;
        s->conn = conn;
        s->due = now_seconds() + h->limits.keepalive_ms / 1000.0;
        s->next_parked = s->g->parked;
        s->g->parked = s;
        h->parked++;
        MHD_suspend_connection(conn);
        parked = true;
    }
    pthread_mutex_unlock(&h->lock);
    return parked;
}

bool hub_sub_take_keepalive(struct hub_sub *s)
{
    pthread_mutex_lock(&s->h->lock);
    bool k = s->keepalive;
    s->keepalive = false;
    pthread_mutex_unlock(&s->h->lock);
    return k;
}

bool hub_sub_ending(struct hub_sub *s, bool *evicted)
{
    pthread_mutex_lock(&s->h->lock);
    *evicted = s->evicted;
    bool end = s->h->stop || s->evicted;
    pthread_mutex_unlock(&s->h->lock);
    return end;
}

uint64_t hub_evicted(struct hub *h)
{
    pthread_mutex_lock(&h->lock);
    uint64_t n = h->evicted;
    pthread_mutex_unlock(&h->lock);
    return n;
}

void hub_stats(struct hub *h, long *streams, long *parked, uint64_t *wakeups, uint64_t *refused)
{
    pthread_mutex_lock(&h->lock);
    *streams = h->streams;
    *parked = h->parked;
    *wakeups = h->wakeups;
    *refused = h->refused;
    pthread_mutex_unlock(&h->lock);
}

/* Resumes the parked streams whose keep-alive is due. */
static void keepalive_tick(struct hub *h)
{
    double now = now_seconds();
    pthread_mutex_lock(&h->lock);
    for (int b = 0; b < BUCKETS; b++)
        for (struct game_entry *e = h->buckets[b]; e; e = e->next)
            for (struct hub_sub **pp = &e->parked; *pp;) {
                struct hub_sub *s = *pp;
                if (s->due > now) {
                    pp = &s->next_parked;
                    continue;
                }
                *pp = s->next_parked;
                s->next_parked = NULL;
                s->parked = false;
                s->keepalive = true;
                h->parked--;
                MHD_resume_connection(s->conn);
                s->conn = NULL;
            }
    pthread_mutex_unlock(&h->lock);
}

static bool stopping(struct hub *h)
{
    pthread_mutex_lock(&h->lock);
    bool s = h->stop;
    pthread_mutex_unlock(&h->lock);
    return s;
}

static void *listen_main(void *arg)
{
    struct hub *h = arg;
    PGconn *c = NULL;
    double next_tick = now_seconds() + 1;
    while (!stopping(h)) {
        if (now_seconds() >= next_tick) {
            keepalive_tick(h);
            next_tick = now_seconds() + 1;
        }
        if (!c || PQstatus(c) != CONNECTION_OK) {
            view_cache_set_enabled(h->cache, false); /* news may be missed: no cached views */
            if (c)
                PQfinish(c);
            /* Our defaults first, so that the connection string overrides them: a bounded
             * connect (the thread also keeps the streams' keep-alives), and TCP keepalives so
             * that a connection gone half-open is noticed within about a minute. */
            const char *keys[] = {"connect_timeout",
                                  "keepalives",
                                  "keepalives_idle",
                                  "keepalives_interval",
                                  "keepalives_count",
                                  "dbname",
                                  NULL};
            const char *vals[] = {"3", "1", "30", "10", "3", h->conninfo, NULL};
            c = PQconnectdbParams(keys, vals, 1);
            PGresult *r = PQstatus(c) == CONNECTION_OK ? PQexec(c, "LISTEN city_events") : NULL;
            bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
            PQclear(r);
            if (!ok) {
                sleep(1);
                continue;
            }
            hub_publish(h, "*", 0); /* news may have been missed while disconnected */
            lobby_cache_changed(h->lobby);
            view_cache_set_enabled(h->cache, true);
        }
        struct pollfd pfd = {.fd = PQsocket(c), .events = POLLIN};
        if (poll(&pfd, 1, 200) < 0 && errno != EINTR)
            continue;
        if (!PQconsumeInput(c))
            continue; /* broken: reconnect above */
        PGnotify *n;
        while ((n = PQnotifies(c)) != NULL) {
            if (strcmp(n->extra, LOBBY_CACHE_NEWS) == 0) {
                lobby_cache_changed(h->lobby);
                PQfreemem(n);
                continue;
            }
            char id[ID_LEN];
            snprintf(id, sizeof id, "%s", n->extra);
            char *colon = strchr(id, ':');
            if (colon)
                *colon = 0;
            const char *tail = strrchr(n->extra, ':');
            if (tail && strcmp(tail, STORE_NEWS_PRESENCE) == 0)
                hub_publish_presence(h, id);
            else if (tail && strcmp(tail, STORE_NEWS_HANDS) == 0)
                hub_publish_hands(h, id);
            else if (!is_echo(h, id, tail))
                hub_publish(h, id, colon ? atoll(colon + 1) : 0);
            PQfreemem(n);
        }
    }
    view_cache_set_enabled(h->cache, false);
    if (c)
        PQfinish(c);
    return NULL;
}

struct hub *hub_start(const char *conninfo, struct view_cache *cache, struct lobby_cache *lobby,
                      struct hub_limits limits)
{
    struct hub *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->cache = cache;
    h->lobby = lobby;
    h->limits = limits;
    h->self = auth_random_u64();
    if (h->limits.keepalive_ms <= 0)
        h->limits.keepalive_ms = 15000;
    pthread_mutex_init(&h->lock, NULL);
    h->conninfo = strdup(conninfo);
    h->addrs = addr_counts_new();
    if (!h->conninfo || !h->addrs || pthread_create(&h->thread, NULL, listen_main, h) != 0) {
        addr_counts_free(h->addrs);
        free(h->conninfo);
        pthread_mutex_destroy(&h->lock);
        free(h);
        return NULL;
    }
    return h;
}

void hub_stop(struct hub *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->lock);
    bool was = h->stop;
    h->stop = true;
    for (int b = 0; b < BUCKETS; b++)
        for (struct game_entry *e = h->buckets[b]; e; e = e->next)
            wake_all(h, e, false);
    pthread_mutex_unlock(&h->lock);
    if (!was)
        pthread_join(h->thread, NULL);
}

void hub_free(struct hub *h)
{
    if (!h)
        return;
    hub_stop(h);
    for (int b = 0; b < BUCKETS; b++)
        while (h->buckets[b]) {
            struct game_entry *e = h->buckets[b];
            h->buckets[b] = e->next;
            free(e);
        }
    pthread_mutex_destroy(&h->lock);
    addr_counts_free(h->addrs);
    free(h->conninfo);
    free(h);
}
