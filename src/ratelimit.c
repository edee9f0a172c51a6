/* ratelimit.c: token buckets per client address in a fixed open-addressing table, and the
 * quota and lifecycle settings (see ratelimit.h). */
#include "ratelimit.h"

#include <arpa/inet.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "netaddr.h"

/* A bucket is looked for, and a new key placed, among this many slots from its hash. */
enum { PROBE = 8, KEY_LEN = NETADDR_KEY_LEN, MIN_SLOTS = 64 };

struct bucket {
    uint8_t key[KEY_LEN]; /* family (4, 6 or 0) and the address bytes that count */
    bool used;
    double tokens;
    double last; /* when tokens was last brought up to date */
};

struct rate_limit {
    pthread_mutex_t lock;
    double per_second;
    double burst;
    size_t mask; /* slots - 1 */
    size_t used;
    uint64_t seed; /* random per limiter: nobody can aim many addresses at one window */
    struct bucket *b;
};

struct rate_limit *rate_limit_new(double per_minute, int burst, size_t slots)
{
    if (per_minute <= 0)
        return NULL;
    size_t n = MIN_SLOTS;
    while (n < slots && n < ((size_t)1 << 30))
        n <<= 1;
    struct rate_limit *rl = calloc(1, sizeof *rl);
    if (!rl)
        return NULL;
    rl->b = calloc(n, sizeof *rl->b);
    if (!rl->b) {
        free(rl);
        return NULL;
    }
    pthread_mutex_init(&rl->lock, NULL);
    rl->per_second = per_minute / 60.0;
    rl->burst = burst >= 1 ? burst : 1;
    rl->mask = n - 1;
    rl->seed = auth_random_u64();
    return rl;
}

void rate_limit_free(struct rate_limit *rl)
{
    if (!rl)
        return;
    pthread_mutex_destroy(&rl->lock);
    free(rl->b);
    free(rl);
}

/* FNV-1a of the key, started from the limiter's random seed. */
static size_t hash_of(const struct rate_limit *rl, const uint8_t key[KEY_LEN])
{
    uint64_t h = 1469598103934665603ULL ^ rl->seed;
    for (int i = 0; i < KEY_LEN; i++) {
        h ^= key[i];
        h *= 1099511628211ULL;
    }
    return (size_t)(h ^ (h >> 29));
}

/* True when a bucket would hold `burst` tokens at `now`: as good as a new one. */
static bool is_full(const struct rate_limit *rl, const struct bucket *b, double now)
{
    return b->tokens + (now - b->last) * rl->per_second >= rl->burst;
}

/* Brings a bucket's tokens up to `now`. */
static void refill(const struct rate_limit *rl, struct bucket *b, double now)
{
    if (now > b->last) {
        b->tokens = fmin(rl->burst, b->tokens + (now - b->last) * rl->per_second);
        b->last = now;
    }
}

int rate_limit_take(struct rate_limit *rl, const char *client, double now)
{
    if (!rl)
        return 0;
    uint8_t key[KEY_LEN];
    netaddr_key(client, key);
    return rate_limit_take_key(rl, key, now);
}

int rate_limit_take_key(struct rate_limit *rl, const unsigned char *key, double now)
{
    if (!rl)
        return 0;
    size_t h = hash_of(rl, key);
    pthread_mutex_lock(&rl->lock);
    struct bucket *found = NULL, *victim = NULL;
    for (size_t i = 0; i < PROBE && !found; i++) {
        struct bucket *b = &rl->b[(h + i) & rl->mask];
        if (b->used && memcmp(b->key, key, KEY_LEN) == 0) {
            found = b;
            break;
        }
        /* The slot to reuse: a free one, else a bucket that has refilled (forgetting it
         * loses nothing), else the one least recently used. */
        if (!b->used) {
            if (!victim || victim->used)
                victim = b;
            continue;
        }
        if (victim && !victim->used)
            continue;
        bool full = is_full(rl, b, now), victim_full = victim && is_full(rl, victim, now);
        if (!victim || (full && !victim_full) || (full == victim_full && b->last < victim->last))
            victim = b;
    }
    if (!found) {
        found = victim;
        if (!found->used)
            rl->used++;
        memcpy(found->key, key, KEY_LEN);
        found->used = true;
        found->tokens = rl->burst;
        found->last = now;
    }
    refill(rl, found, now);
    int wait = 0;
    if (found->tokens >= 1) {
        found->tokens -= 1;
    } else {
        double s = ceil((1 - found->tokens) / rl->per_second);
        wait = s < 1 ? 1 : s > 86400 ? 86400 : (int)s;
    }
    pthread_mutex_unlock(&rl->lock);
    return wait;
}

size_t rate_limit_keys(struct rate_limit *rl)
{
    if (!rl)
        return 0;
    pthread_mutex_lock(&rl->lock);
    size_t n = rl->used;
    pthread_mutex_unlock(&rl->lock);
    return n;
}

/* ---- settings ----------------------------------------------------------------------------- */

const char quotas_usage[] =
    "quotas: [--create-rate PER_MINUTE] [--create-burst N] [--join-rate PER_MINUTE]\n"
    "        [--join-burst N] [--read-rate PER_MINUTE] [--read-burst N]\n"
    "        [--max-amendments N] [--open-ttl SECONDS] [--idle-game-seconds SECONDS]\n"
    "        [--retention SECONDS]\n"
    "        [--takeover-after N] [--presence-seconds SECONDS] [--hints-per-game N]\n"
    "        [--hint-threads N]\n"
    "        [--hint-rate PER_MINUTE] [--hint-burst N] [--lobby-per-address N]\n"
    "        [--signin-rate PER_MINUTE] [--signin-burst N] [--account-signin-rate PER_MINUTE]\n"
    "        [--account-signin-burst N] [--session-seconds SECONDS] [--hash-threads N]\n"
    "        [--chat-rate PER_MINUTE] [--chat-burst N]\n"
    "        (environment: CITY_CREATE_RATE, CITY_CREATE_BURST, CITY_JOIN_RATE, CITY_JOIN_BURST,\n"
    "        CITY_READ_RATE, CITY_READ_BURST,\n"
    "        CITY_MAX_AMENDMENTS, CITY_OPEN_TTL, CITY_IDLE_GAME_SECONDS, CITY_RETENTION,\n"
    "        CITY_TAKEOVER_AFTER, CITY_PRESENCE_SECONDS,\n"
    "        CITY_HINTS_PER_GAME, CITY_HINT_THREADS, CITY_HINT_RATE, CITY_HINT_BURST,\n"
    "        CITY_LOBBY_PER_ADDRESS, CITY_SIGNIN_RATE, CITY_SIGNIN_BURST,\n"
    "        CITY_ACCOUNT_SIGNIN_RATE, CITY_ACCOUNT_SIGNIN_BURST, CITY_SESSION_SECONDS,\n"
    "        CITY_HASH_THREADS, CITY_CHAT_RATE, CITY_CHAT_BURST,\n"
    "        CITY_RATE_SLOTS; 0 turns a limit off)\n";

enum { YEAR = 366 * 86400 };

/* One setting: its flag, its variable, its range, where it goes (one of d or i). */
struct setting {
    const char *flag, *env;
    double min, max;
    double *d;
    int *i;
    const char *meaning;
};

static int settings_of(struct quotas *q, struct setting *s)
{
    struct setting all[] = {
        {"--create-rate", "CITY_CREATE_RATE", 0, 1e6, &q->create_rate, NULL,
         "games per minute per address (0: no limit)"},
        {"--create-burst", "CITY_CREATE_BURST", 1, 1e6, NULL, &q->create_burst,
         "games an address may create at once"},
        {"--join-rate", "CITY_JOIN_RATE", 0, 1e6, &q->join_rate, NULL,
         "seats per minute per address (0: no limit)"},
        {"--join-burst", "CITY_JOIN_BURST", 1, 1e6, NULL, &q->join_burst,
         "seats an address may take at once"},
        {"--read-rate", "CITY_READ_RATE", 0, 1e6, &q->read_rate, NULL,
         "costly reads (lobby, events, replays) per minute per address (0: no limit)"},
        {"--read-burst", "CITY_READ_BURST", 1, 1e6, NULL, &q->read_burst,
         "costly reads an address may make at once"},
        {"--max-amendments", "CITY_MAX_AMENDMENTS", 0, 1e6, NULL, &q->max_amendments,
         "amendments of one order within a step (0: no limit)"},
        {"--open-ttl", "CITY_OPEN_TTL", 0, 10.0 * YEAR, NULL, &q->open_ttl,
         "seconds an open game waits for players (0: forever)"},
        {"--idle-game-seconds", "CITY_IDLE_GAME_SECONDS", 0, 10.0 * YEAR, NULL,
         &q->idle_game_seconds,
         "seconds a started game may go without an order or decision before it is abandoned "
         "(0: forever)"},
        {"--retention", "CITY_RETENTION", 0, 100.0 * YEAR, NULL, &q->retention,
         "seconds ended games (finished, expired, cancelled, abandoned) are kept (0: forever)"},
        {"--takeover-after", "CITY_TAKEOVER_AFTER", 1, 1e6, NULL, &q->takeover_after,
         "missed deadlines (default decisions) after which the host may hand a seat to a bot"},
        {"--presence-seconds", "CITY_PRESENCE_SECONDS", 3, 3600, NULL, &q->presence_seconds,
         "seconds a seat stays \"online\" after its last sign of life (its event stream's "
         "keep-alive, a hand view, an order); then \"away\""},
        {"--hints-per-game", "CITY_HINTS_PER_GAME", 0, 1000, NULL, &q->hints_per_game,
         "expert hints a seat may ask for in one game (0: none)"},
        {"--hint-threads", "CITY_HINT_THREADS", 1, 256, NULL, &q->hint_threads,
         "hints thought about at once on an instance (an address: half of them, at least one); "
         "past it 503 (429 for an address) with Retry-After"},
        {"--hint-rate", "CITY_HINT_RATE", 0, 1e6, &q->hint_rate, NULL,
         "hints asked for per minute per address (0: no limit)"},
        {"--hint-burst", "CITY_HINT_BURST", 1, 1e6, NULL, &q->hint_burst,
         "hints an address may ask for at once"},
        {"--lobby-per-address", "CITY_LOBBY_PER_ADDRESS", 0, 1e6, NULL, &q->lobby_per_address,
         "open games the lobby lists per creating address, the newest (0: all)"},
        {"--signin-rate", "CITY_SIGNIN_RATE", 0, 1e6, &q->signin_rate, NULL,
         "password attempts (sign-up, sign-in, password change, account deletion) per minute per "
         "address (0: no limit)"},
        {"--signin-burst", "CITY_SIGNIN_BURST", 1, 1e6, NULL, &q->signin_burst,
         "password attempts an address may make at once"},
        {"--account-signin-rate", "CITY_ACCOUNT_SIGNIN_RATE", 0, 1e6, &q->account_signin_rate, NULL,
         "password attempts per minute per account name (0: no limit)"},
        {"--account-signin-burst", "CITY_ACCOUNT_SIGNIN_BURST", 1, 1e6, NULL,
         &q->account_signin_burst, "password attempts on one account at once"},
        {"--session-seconds", "CITY_SESSION_SECONDS", 60, 10.0 * YEAR, NULL, &q->session_seconds,
         "seconds an account's session token stays valid"},
        {"--hash-threads", "CITY_HASH_THREADS", 1, 64, NULL, &q->hash_threads,
         "password hashes computed at once on an instance; past it 503 busy with Retry-After"},
        {"--chat-rate", "CITY_CHAT_RATE", 0, 1e6, &q->chat_rate, NULL,
         "chat messages per minute per seat or account, and four times as many (reports "
         "included) per address (0: no limit)"},
        {"--chat-burst", "CITY_CHAT_BURST", 1, 1e6, NULL, &q->chat_burst,
         "chat messages a seat or account may send at once (an address: four times as many)"},
    };
    memcpy(s, all, sizeof all);
    return (int)(sizeof all / sizeof *all);
}

/* Parses `value` into setting s; false (err filled, naming `name`) when out of range. */
static bool set_value(const struct setting *s, const char *name, const char *value, char *err,
                      size_t errlen)
{
    char *end = NULL;
    double v = value ? strtod(value, &end) : 0;
    bool ok = value && *value && end && !*end && isfinite(v) && v >= s->min && v <= s->max &&
              (s->d || v == floor(v));
    if (!ok) {
        snprintf(err, errlen, "%s must be %s from %.0f to %.0f: %s", name,
                 s->d ? "a number" : "a whole number", s->min, s->max, s->meaning);
        return false;
    }
    if (s->d)
        *s->d = v;
    else
        *s->i = (int)v;
    return true;
}

bool quotas_from_env(struct quotas *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    q->create_rate = 10;
    q->create_burst = 20;
    q->join_rate = 30;
    q->join_burst = 30;
    q->read_rate = 600;
    q->read_burst = 120;
    q->max_amendments = 50;
    q->open_ttl = 86400;
    q->idle_game_seconds = 7 * 86400;
    q->retention = 30 * 86400;
    q->takeover_after = 2;
    q->presence_seconds = 45;
    q->hints_per_game = 5;
    q->hint_threads = 4;
    q->hint_rate = 20;
    q->hint_burst = 10;
    q->lobby_per_address = 5;
    q->signin_rate = 20;
    q->signin_burst = 10;
    q->account_signin_rate = 6;
    q->account_signin_burst = 6;
    q->session_seconds = 30 * 86400;
    q->hash_threads = 2;
    q->chat_rate = 20;
    q->chat_burst = 8;
    q->slots = 16384;
    struct setting s[32];
    int n = settings_of(q, s);
    for (int i = 0; i < n; i++) {
        const char *v = getenv(s[i].env);
        if (v && !set_value(&s[i], s[i].env, v, err, errlen))
            return false;
    }
    const char *v = getenv("CITY_RATE_SLOTS");
    if (v) {
        char *end;
        long long x = strtoll(v, &end, 10);
        if (!*v || *end || x < 64 || x > (1 << 24)) {
            snprintf(err, errlen,
                     "CITY_RATE_SLOTS must be 64 to 16777216: the addresses each rate limit "
                     "remembers");
            return false;
        }
        q->slots = (size_t)x;
    }
    return true;
}

int quotas_flag(struct quotas *q, const char *flag, const char *value, char *err, size_t errlen)
{
    struct setting s[32];
    int n = settings_of(q, s);
    for (int i = 0; i < n; i++)
        if (strcmp(flag, s[i].flag) == 0)
            return set_value(&s[i], flag, value, err, errlen) ? 1 : -1;
    return 0;
}

bool quotas_start(struct quotas *q)
{
    q->create = rate_limit_new(q->create_rate, q->create_burst, q->slots);
    q->join = rate_limit_new(q->join_rate, q->join_burst, q->slots);
    q->reads = rate_limit_new(q->read_rate, q->read_burst, q->slots);
    q->hints = rate_limit_new(q->hint_rate, q->hint_burst, q->slots);
    q->signin = rate_limit_new(q->signin_rate, q->signin_burst, q->slots);
    q->account_signin = rate_limit_new(q->account_signin_rate, q->account_signin_burst, q->slots);
    q->chat = rate_limit_new(q->chat_rate, q->chat_burst, q->slots);
    q->chat_address = rate_limit_new(q->chat_rate * QUOTAS_CHAT_ADDRESS_SHARE,
                                     q->chat_burst * QUOTAS_CHAT_ADDRESS_SHARE, q->slots);
    return (q->chat_rate <= 0 || (q->chat && q->chat_address)) &&
           (q->create_rate <= 0 || q->create) && (q->join_rate <= 0 || q->join) &&
           (q->read_rate <= 0 || q->reads) && (q->hint_rate <= 0 || q->hints) &&
           (q->signin_rate <= 0 || q->signin) && (q->account_signin_rate <= 0 || q->account_signin);
}

void quotas_stop(struct quotas *q)
{
    rate_limit_free(q->create);
    rate_limit_free(q->join);
    rate_limit_free(q->reads);
    rate_limit_free(q->hints);
    rate_limit_free(q->signin);
    rate_limit_free(q->account_signin);
    rate_limit_free(q->chat);
    rate_limit_free(q->chat_address);
    q->create = q->join = q->reads = q->hints = q->signin = q->account_signin = q->chat =
        q->chat_address = NULL;
}
