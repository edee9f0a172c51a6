/* metrics.c: counters and a latency histogram behind one mutex (see metrics.h). */
#include "metrics.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SERIES = 128 };
static const double buckets[] = {0.5, 1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 5000};
enum { NBUCKETS = sizeof buckets / sizeof *buckets };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const char *route;
    int status;
    unsigned long long count;
} series[MAX_SERIES];
static int nseries;
static unsigned long long hist[NBUCKETS + 1], hist_count, steps;
static double hist_sum;
static const double late_buckets[] = {0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300};
enum { NLATE = sizeof late_buckets / sizeof *late_buckets };
static unsigned long long late_hist[NLATE + 1], late_count, games_expired, games_purged,
    games_abandoned;
static double late_sum, late_last;

static unsigned long long tx_conflicts, tx_gave_up;                            /* under lock */
static unsigned long long states_remembered, states_parsed, loads_from_memory; /* atomic */
static unsigned long long chat_players, chat_watchers, chat_reports;           /* under lock */

void metrics_request(const char *route, int status, double ms)
{
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < nseries && (series[i].route != route || series[i].status != status))
        i++;
    if (i == nseries && nseries < MAX_SERIES) {
        series[i].route = route;
        series[i].status = status;
        nseries++;
    }
    if (i < nseries)
        series[i].count++;
    int b = 0;
    while (b < NBUCKETS && ms > buckets[b])
        b++;
    hist[b]++;
    hist_count++;
    hist_sum += ms / 1000.0;
    pthread_mutex_unlock(&lock);
}

void metrics_steps_resolved(int n)
{
    pthread_mutex_lock(&lock);
    steps += (unsigned long long)n;
    pthread_mutex_unlock(&lock);
}

void metrics_sweeper_lateness(double seconds)
{
    pthread_mutex_lock(&lock);
    int b = 0;
    while (b < NLATE && seconds > late_buckets[b])
        b++;
    late_hist[b]++;
    late_count++;
    late_sum += seconds;
    late_last = seconds;
    pthread_mutex_unlock(&lock);
}

void metrics_tx_conflict(bool gave_up)
{
    pthread_mutex_lock(&lock);
    tx_conflicts++;
    tx_gave_up += gave_up;
    pthread_mutex_unlock(&lock);
}

void metrics_load_without_database(void)
{
    __atomic_add_fetch(&loads_from_memory, 1, __ATOMIC_RELAXED);
}

void metrics_state_load(bool from_memory)
{
    __atomic_add_fetch(from_memory ? &states_remembered : &states_parsed, 1, __ATOMIC_RELAXED);
}

void metrics_games_ended(int expired, int purged)
{
    pthread_mutex_lock(&lock);
    games_expired += (unsigned long long)expired;
    games_purged += (unsigned long long)purged;
    pthread_mutex_unlock(&lock);
}

void metrics_games_abandoned(int n)
{
    pthread_mutex_lock(&lock);
    games_abandoned += (unsigned long long)n;
    pthread_mutex_unlock(&lock);
}

void metrics_chat_message(bool watchers)
{
    pthread_mutex_lock(&lock);
    if (watchers)
        chat_watchers++;
    else
        chat_players++;
    pthread_mutex_unlock(&lock);
}

void metrics_chat_report(void)
{
    pthread_mutex_lock(&lock);
    chat_reports++;
    pthread_mutex_unlock(&lock);
}

struct buf {
    char *s;
    size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        char *s = realloc(b->s, b->cap * 2 + (size_t)n);
        if (!s)
            return;
        b->s = s;
        b->cap = b->cap * 2 + (size_t)n;
    }
}

char *metrics_render(const char *extra, size_t *len)
{
    struct buf b = {malloc(4096), 0, 4096};
    if (!b.s)
        return NULL;
    b.s[0] = 0;
    pthread_mutex_lock(&lock);
    put(&b, "# HELP city_http_requests_total HTTP requests by route and status.\n"
            "# TYPE city_http_requests_total counter\n");
    for (int i = 0; i < nseries; i++)
        put(&b, "city_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n", series[i].route,
            series[i].status, series[i].count);
    put(&b, "# HELP city_http_request_duration_seconds Time to answer a request.\n"
            "# TYPE city_http_request_duration_seconds histogram\n");
    unsigned long long cum = 0;
    for (int i = 0; i < NBUCKETS; i++) {
        cum += hist[i];
        put(&b, "city_http_request_duration_seconds_bucket{le=\"%g\"} %llu\n", buckets[i] / 1000.0,
            cum);
    }
    put(&b, "city_http_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n", hist_count);
    put(&b, "city_http_request_duration_seconds_sum %.6f\n", hist_sum);
    put(&b, "city_http_request_duration_seconds_count %llu\n", hist_count);
    put(&b,
        "# HELP city_steps_resolved_total Game steps resolved by this instance.\n"
        "# TYPE city_steps_resolved_total counter\ncity_steps_resolved_total %llu\n",
        steps);
    put(&b, "# HELP city_sweeper_lateness_seconds How long past its deadline the sweeper "
            "forced each overdue step.\n"
            "# TYPE city_sweeper_lateness_seconds histogram\n");
    cum = 0;
    for (int i = 0; i < NLATE; i++) {
        cum += late_hist[i];
        put(&b, "city_sweeper_lateness_seconds_bucket{le=\"%g\"} %llu\n", late_buckets[i], cum);
    }
    put(&b, "city_sweeper_lateness_seconds_bucket{le=\"+Inf\"} %llu\n", late_count);
    put(&b, "city_sweeper_lateness_seconds_sum %.6f\n", late_sum);
    put(&b, "city_sweeper_lateness_seconds_count %llu\n", late_count);
    put(&b,
        "# HELP city_sweeper_last_lateness_seconds How late the last step the sweeper forced "
        "was.\n# TYPE city_sweeper_last_lateness_seconds gauge\n"
        "city_sweeper_last_lateness_seconds %.6f\n",
        late_last);
    put(&b,
        "# HELP city_sweeper_expired_games_total Open games this instance expired.\n"
        "# TYPE city_sweeper_expired_games_total counter\ncity_sweeper_expired_games_total %llu\n"
        "# HELP city_sweeper_deleted_games_total Ended games this instance deleted after the "
        "retention.\n"
        "# TYPE city_sweeper_deleted_games_total counter\ncity_sweeper_deleted_games_total %llu\n"
        "# HELP city_sweeper_abandoned_games_total Started games this instance ended as abandoned "
        "(no order or decision for --idle-game-seconds).\n"
        "# TYPE city_sweeper_abandoned_games_total counter\n"
        "city_sweeper_abandoned_games_total %llu\n",
        games_expired, games_purged, games_abandoned);
    put(&b,
        "# HELP city_store_conflicts_total Transactions that met a serialization failure or "
        "deadlock (each is run again, up to the retry policy's tries).\n"
        "# TYPE city_store_conflicts_total counter\ncity_store_conflicts_total %llu\n"
        "# HELP city_store_conflicts_given_up_total Conflicts on a transaction's last try.\n"
        "# TYPE city_store_conflicts_given_up_total counter\n"
        "city_store_conflicts_given_up_total %llu\n",
        tx_conflicts, tx_gave_up);
    put(&b,
        "# HELP city_state_cache_lookups_total Game states loaded from this instance's memory, as "
        "it last committed them (hit), or parsed from the database's row (miss).\n"
        "# TYPE city_state_cache_lookups_total counter\n"
        "city_state_cache_lookups_total{result=\"hit\"} %llu\n"
        "city_state_cache_lookups_total{result=\"miss\"} %llu\n"
        "# HELP city_game_loads_without_database_total Games loaded with no database round trip "
        "(a seat's hand): this instance committed their last change and has had no news of them "
        "since.\n"
        "# TYPE city_game_loads_without_database_total counter\n"
        "city_game_loads_without_database_total %llu\n",
        __atomic_load_n(&states_remembered, __ATOMIC_RELAXED),
        __atomic_load_n(&states_parsed, __ATOMIC_RELAXED),
        __atomic_load_n(&loads_from_memory, __ATOMIC_RELAXED));
    put(&b,
        "# HELP city_chat_messages_total Chat messages this instance stored, by channel.\n"
        "# TYPE city_chat_messages_total counter\n"
        "city_chat_messages_total{channel=\"players\"} %llu\n"
        "city_chat_messages_total{channel=\"watchers\"} %llu\n"
        "# HELP city_chat_reports_total Reports of chat messages this instance stored (listed by "
        "`cityd reports`).\n"
        "# TYPE city_chat_reports_total counter\ncity_chat_reports_total %llu\n",
        chat_players, chat_watchers, chat_reports);
    pthread_mutex_unlock(&lock);
    if (extra)
        put(&b, "%s", extra);
    *len = b.len;
    return b.s;
}
