/* http_int.h: what the HTTP layer's own files share (http.c: routes, dispatch and the daemon's
 * start and stop; http_conns.c: the accounting of connections and the reaper; http_send.c: the
 * replies and the access-log line), not for the rest of the daemon. */
#ifndef CITY_HTTP_INT_H
#define CITY_HTTP_INT_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "accesslog.h"
#include "addrcount.h"
#include "http.h"
#include "netaddr.h"

struct delayed;

/* One open connection, from libmicrohttpd's connection-started notice to its closed notice. */
struct conn_track {
    int fd;
    _Atomic double since; /* when the current request head began to be awaited */
    atomic_bool in_head;  /* awaiting a request head: new, or idle between requests */
    bool cut;
    bool proxy;              /* from a trusted proxy: not counted per address */
    struct addr_count *addr; /* its address's count (NULL for a proxy) */
    char peer[64];           /* the peer's address (numeric), as http_peer_address() gives it */
    struct conn_track *prev, *next;
};

struct http_daemon {
    struct server *srv;
    struct MHD_Daemon *mhd;
    struct http_settings hs;
    struct netaddr_blocks proxies; /* trusted proxies */
    pthread_mutex_t lock;          /* guards the list of connections and the counts */
    struct conn_track *conns;
    long nconns;
    long ncut; /* connections cut (shut down) whose closed notice has not come yet */
    struct addr_counts *addrs; /* open connections per address key */
    /* Past `crowded` live connections (the cap less the headroom), an address that holds
     * `heavy` connections gets no more, and idle connections are reclaimed. */
    long crowded;
    int heavy;
    atomic_ullong refused_address, refused_crowded, reclaimed;
    struct delayed *delayed; /* refusals held back before they go out (delay_reply) */
    atomic_long parked;
    atomic_ullong cut_head;
    pthread_t reaper;
    atomic_bool stop;
    struct access_log log; /* flushed every LOG_FLUSH_MS by the reaper, and at the stop */
};

enum { LOG_FLUSH_MS = 250 };

/* Seconds on the monotonic clock. */
double http_now(void);

/* Writes the connection's peer address as numeric text into out. */
void http_peer_address(struct MHD_Connection *conn, char *out, size_t n);

/* Sends the refusals held back (http.c's delay_reply) whose time has come by `now`
 * (INFINITY: all of them). */
void http_wake_delayed(struct http_daemon *d, double now);

/* libmicrohttpd's accept policy (cls: the daemon): whether a connection from `addr` is taken
 * (http_conns.c says how). */
enum MHD_Result http_accept_policy(void *cls, const struct sockaddr *addr, socklen_t len);

/* libmicrohttpd's connection notice (cls: the daemon): tracks a connection from its start to
 * its close, counted per address. */
void http_on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                        enum MHD_ConnectionNotificationCode code);

/* A request head on `conn` was received / is awaited again (the connection kept alive): the
 * reaper cuts only connections awaiting a head for too long. http_head_received returns the
 * peer's address as noted when the connection started (NULL when it is not tracked), so that
 * a request need not format it again. */
const char *http_head_received(struct MHD_Connection *conn);
void http_head_expected(struct MHD_Connection *conn);

/* Queues r's reply (http_send.c): its body, stream or cached view with its headers; a cached
 * view's whole reply is shared between reads where it can be (queue_view). */
enum MHD_Result http_send_reply(struct http_req *r);

/* r's access log line, `METHOD "PATH" STATUS 1.2ms route=NAME bytes=N client=ADDR\n`, into
 * line (cap bytes, cut to fit); returns its length. */
size_t http_log_line(char *line, size_t cap, const struct http_req *r, double ms,
                     const char *route);

/* The reaper thread (arg: the daemon): every LOG_FLUSH_MS, flushes the access log, cuts
 * connections past the head timeout, reclaims idle ones when crowded and sends the refusals
 * held back; until d->stop. */
void *http_reaper_main(void *arg);

#endif
