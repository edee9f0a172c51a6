/* http_conns.c: how the daemon keeps count of its connections (see http_int.h): which ones
 * libmicrohttpd may accept (caps in all and per address, headroom for addresses that hold few),
 * each connection tracked from its start to its close, and the reaper that cuts connections
 * whose request head takes too long and reclaims idle ones when the daemon is crowded. */
#include "http_int.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

static struct conn_track *track_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

bool http_peer_closed(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return false;
    char c;
    ssize_t n = recv(ci->connect_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE || errno == ENOTCONN));
}

const char *http_head_received(struct MHD_Connection *conn)
{
    struct conn_track *t = track_of(conn);
    if (!t)
        return NULL;
    atomic_store(&t->in_head, false);
    return t->peer;
}

void http_head_expected(struct MHD_Connection *conn)
{
    struct conn_track *t = track_of(conn);
    if (t) {
        atomic_store(&t->since, http_now());
        atomic_store(&t->in_head, true);
    }
}

/* Whether a connection from `addr` is taken, asked by libmicrohttpd as it accepts one (before
 * any byte is read; a refused one is closed with no reply, since answering would cost what the
 * cap protects). Trusted proxies are not counted per address (their clients are, per request,
 * by the rate limits). Another address is refused past --max-per-address, and, once the live
 * connections pass `crowded`, when it already holds `heavy` of them: the headroom under the
 * cap stays for addresses that hold few, and the reaper reclaims idle connections meanwhile. */
enum MHD_Result http_accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)len;
    struct http_daemon *d = cls;
    char text[64];
    netaddr_text(addr, text, sizeof text);
    if (netaddr_blocks_contain(&d->proxies, text))
        return MHD_YES;
    double now = http_now();
    pthread_mutex_lock(&d->lock);
    int held = addr_counts_held(d->addrs, text, now);
    bool per_address = d->hs.max_per_address > 0 && held >= d->hs.max_per_address;
    bool crowded = !per_address && d->nconns - d->ncut >= d->crowded && held >= d->heavy;
    if (!per_address && !crowded)
        addr_counts_promise(d->addrs, text, now); /* kept when its start is noticed */
    pthread_mutex_unlock(&d->lock);
    if (per_address)
        atomic_fetch_add(&d->refused_address, 1);
    if (crowded)
        atomic_fetch_add(&d->refused_crowded, 1);
    return per_address || crowded ? MHD_NO : MHD_YES;
}

void http_on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                        enum MHD_ConnectionNotificationCode code)
{
    struct http_daemon *d = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct conn_track *t = calloc(1, sizeof *t);
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!t || !ci) {
            free(t);
            return;
        }
        t->fd = ci->connect_fd;
        atomic_init(&t->since, http_now());
        atomic_init(&t->in_head, true);
        http_peer_address(conn, t->peer, sizeof t->peer);
        t->proxy = netaddr_blocks_contain(&d->proxies, t->peer);
        pthread_mutex_lock(&d->lock);
        if (!t->proxy)
            t->addr = addr_counts_take(d->addrs, t->peer);
        t->next = d->conns;
        if (d->conns)
            d->conns->prev = t;
        d->conns = t;
        d->nconns++;
        pthread_mutex_unlock(&d->lock);
        *socket_context = t;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        /* libmicrohttpd closes the descriptor only after this notice: once the entry is gone
         * under the lock, the reaper can no longer touch a reused descriptor. */
        struct conn_track *t = *socket_context;
        pthread_mutex_lock(&d->lock);
        if (t->prev)
            t->prev->next = t->next;
        else
            d->conns = t->next;
        if (t->next)
            t->next->prev = t->prev;
        d->nconns--;
        d->ncut -= t->cut;
        addr_counts_release(d->addrs, t->addr);
        pthread_mutex_unlock(&d->lock);
        free(t);
        *socket_context = NULL;
    }
}

/* Whether bytes wait unread on t's socket: a request head arrived that libmicrohttpd has not
 * read yet, so the connection is not idle, whatever in_head says (cutting it then would close
 * it with a request in flight). */
static bool request_waiting(const struct conn_track *t)
{
    int pending = 0;
    return ioctl(t->fd, FIONREAD, &pending) == 0 && pending > 0;
}

/* Once the live connections pass `crowded`, shuts down idle ones (awaiting a request head)
 * until a quarter of the headroom is free again: first those of addresses that hold `heavy`
 * connections or more, then any idle for a second or longer (a connection just accepted is
 * about to send its request). A proxy's connections are left alone. d->lock held. */
static void reclaim_idle(struct http_daemon *d, double now)
{
    long live = d->nconns - d->ncut;
    if (live < d->crowded)
        return;
    long want = live - (d->crowded - (d->hs.max_connections - d->crowded) / 4);
    for (int pass = 0; pass < 2 && want > 0; pass++)
        for (struct conn_track *t = d->conns; t && want > 0; t = t->next) {
            if (t->cut || t->proxy || !atomic_load(&t->in_head))
                continue;
            if (pass == 0 ? !t->addr || t->addr->open < d->heavy
                          : now - atomic_load(&t->since) < 1.0)
                continue;
            if (request_waiting(t))
                continue;
            t->cut = true;
            d->ncut++;
            shutdown(t->fd, SHUT_RDWR);
            atomic_fetch_add(&d->reclaimed, 1);
            want--;
        }
}

/* Every quarter second, flushes the access log and shuts down the connections that have waited
 * longer than head_timeout for a complete request head; libmicrohttpd then sees the end of
 * the stream and closes them. */
void *http_reaper_main(void *arg)
{
    struct http_daemon *d = arg;
    while (!atomic_load(&d->stop)) {
        struct timespec ts = {0, LOG_FLUSH_MS * 1000 * 1000};
        nanosleep(&ts, NULL);
        access_log_flush(&d->log);
        double now = http_now(), limit = now - d->hs.head_timeout;
        pthread_mutex_lock(&d->lock);
        for (struct conn_track *t = d->conns; d->hs.head_timeout > 0 && t; t = t->next)
            if (!t->cut && atomic_load(&t->in_head) && atomic_load(&t->since) < limit &&
                !request_waiting(t)) {
                t->cut = true;
                d->ncut++;
                shutdown(t->fd, SHUT_RDWR);
                atomic_fetch_add(&d->cut_head, 1);
            }
        reclaim_idle(d, now);
        pthread_mutex_unlock(&d->lock);
        http_wake_delayed(d, now);
    }
    return NULL;
}
