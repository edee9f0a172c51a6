/* server.h: what every request handler of `cityd serve` shares: the catalog, the store, the
 * event hub, metrics and the settings; and the handlers the route table names. */
#ifndef CITY_SERVER_H
#define CITY_SERVER_H

#include <stdbool.h>

#include "botpool.h"
#include "http.h"
#include "netaddr.h"

struct store;
struct hub;
struct view_cache;
struct batcher;
struct quotas;
struct bot_pool;

enum { SERVER_MAX_RULESETS = 8 };

struct server {
    struct store *store;
    struct hub *hub;
    struct view_cache *views;  /* rendered public views (viewcache.h) */
    struct view_cache *seats;  /* the seats of started games, which never change again */
    struct view_cache *states; /* engine states this instance committed, by version */
    struct lobby_cache *lobby; /* rendered lobby pages (lobbycache.h); NULL: none */
    struct batcher *batcher;   /* group commit of orders (batch.h) */
    char *cards_json[SERVER_MAX_RULESETS]; /* GET /api/v1/cards per ruleset, rendered once */
    const char *web_dir;
    const char *openapi_path;
    const char *docs_dir; /* the rule books and guides, served at /docs/ */
    bool allow_seed;
    int max_events_page;
    struct http_policy policy; /* CORS and request-head limits (http.h) */
    struct quotas *quotas;     /* rate limits, amendment cap, expiry, retention (ratelimit.h) */
    struct bot_pool *bots;     /* the workers of slow bots (botpool.h); NULL: none */
    struct presence_writer *presence; /* signs of life's writer (service_presence.c); or NULL */
    struct hash_crew *hashes; /* the password hashes' threads (hashcrew.h); NULL: in place */
    /* Queues game `id` for its slow bots (bot_pool_wake, set by serve.c, so that the service
     * needs no arrow to the pool that calls it); NULL: no pool. */
    void (*wake_bots)(struct bot_pool *bots, const char *id, enum bot_need need, uint64_t who);
    double expert_ms; /* the expert's thinking time per decision (bots and hints) */
    /* Who may read /metrics: clients in metrics_allow (after trusted proxies), or any client
     * with metrics_token (NULL: none) as its bearer token. */
    struct netaddr_blocks metrics_allow;
    const char *metrics_token;
};

/* Route handlers. Each answers the request through r (http_reply_*), never fails silently. */
void api_create_game(struct http_req *r);
void api_list_games(struct http_req *r);
void api_get_game(struct http_req *r);
void api_join(struct http_req *r);
void api_hand(struct http_req *r);
void api_orders(struct http_req *r);
void api_resolve(struct http_req *r);
void api_events(struct http_req *r);
void api_stream(struct http_req *r);
void api_replay(struct http_req *r);
void api_replay_rounds(struct http_req *r);
void api_leave(struct http_req *r);
void api_takeover(struct http_req *r);
void api_reclaim(struct http_req *r);
void api_cancel(struct http_req *r);
void api_hint(struct http_req *r);
void api_chat_post(struct http_req *r);
void api_chat_read(struct http_req *r);
void api_chat_report(struct http_req *r);
void api_cards(struct http_req *r);
void api_rulesets(struct http_req *r);
void api_healthz(struct http_req *r);
void api_metrics(struct http_req *r);
void api_openapi(struct http_req *r);
void api_static(struct http_req *r);
void api_docs(struct http_req *r);
void api_account_create(struct http_req *r);
void api_session_create(struct http_req *r);
void api_session_end(struct http_req *r);
void api_sessions_end(struct http_req *r);
void api_me(struct http_req *r);
void api_me_games(struct http_req *r);
void api_player(struct http_req *r);
void api_leaderboard(struct http_req *r);
void api_password(struct http_req *r);
void api_account_delete(struct http_req *r);

#endif
