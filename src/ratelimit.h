/* ratelimit.h: per-client-address quotas of `cityd serve` and the lifecycle settings of games:
 * token buckets for creating and joining games and for costly reads (keyed by the client's address;
 * an IPv6 client by its /64), the cap on amendments of an order within one step, how long an open
 * game waits for players, how long a started game may sit idle, and how long ended games are
 * kept. A limiter's memory is
 * fixed when it is made: a flood of distinct addresses evicts old or full buckets, it never grows
 * the table. Thread-safe. */
#ifndef CITY_RATELIMIT_H
#define CITY_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>

struct rate_limit;

/* A limiter of `per_minute` tokens a minute per address, holding at most `burst` (>= 1), in a
 * table of `slots` buckets (rounded up to a power of two, at least 64). NULL when per_minute
 * is 0 (no limit) or memory runs out; every function takes NULL as "no limit". */
struct rate_limit *rate_limit_new(double per_minute, int burst, size_t slots);
void rate_limit_free(struct rate_limit *rl);

/* Takes one token of `client`'s bucket at time `now` (seconds, monotonic). Returns 0 when it
 * was there, else how many whole seconds (>= 1) until one will be. An address that cannot be
 * parsed is limited as one shared key. */
int rate_limit_take(struct rate_limit *rl, const char *client, double now);

/* rate_limit_take() of a key made by the caller (NETADDR_KEY_LEN bytes, netaddr.h): an account's
 * key, say, whose first byte is none of netaddr_key()'s families so that it never meets an
 * address's bucket. */
int rate_limit_take_key(struct rate_limit *rl, const unsigned char *key, double now);

/* How many distinct keys the limiter holds now (for tests of its bound). */
size_t rate_limit_keys(struct rate_limit *rl);

/* How many people behind one address (a household, a school behind NAT) an address's chat
 * bucket is made for: it holds this many times a speaker's burst and refills as fast. */
enum { QUOTAS_CHAT_ADDRESS_SHARE = 4 };

/* The settings and limiters of quotas and lifecycle, read at start (quotas_from_env then
 * quotas_flag for each command-line option) and made live by quotas_start. */
struct quotas {
    double create_rate; /* games created per minute per address; 0: no limit */
    int create_burst;
    double join_rate; /* seats taken per minute per address; 0: no limit */
    int join_burst;
    double read_rate; /* costly reads (lobby, events, replays) per minute per address; 0: none */
    int read_burst;
    int max_amendments;    /* replacements of one seat's order within one step; 0: no limit */
    int open_ttl;          /* seconds an open game waits for players before it expires; 0: never */
    int idle_game_seconds; /* seconds a started game may go without an order or decision
                              before the sweeper ends it as abandoned; 0: never */
    int retention;         /* seconds ended games are kept; 0: forever */
    int takeover_after;    /* missed deadlines after which the host may hand a seat to a bot */
    int presence_seconds;  /* a seat seen (stream, hand view, order) this recently is "online" */
    int hints_per_game;    /* expert hints a seat may ask for in one game; 0: none */
    int hint_threads;      /* hints thought about at once on this instance */
    double hint_rate;      /* hints asked for per minute per address; 0: no limit */
    int hint_burst;
    int lobby_per_address; /* open games the lobby lists per creating address; 0: all */
    double signin_rate;    /* password attempts (sign-up, sign-in, password change, account
                              deletion) per minute per address; 0: no limit */
    int signin_burst;
    double account_signin_rate; /* password attempts per minute per account name; 0: none */
    int account_signin_burst;
    int session_seconds; /* how long a session token of an account stays valid */
    int hash_threads;    /* password hashes computed at once on an instance; past it 503 busy */
    double chat_rate;    /* chat messages per minute per seat or account (an address:
                            QUOTAS_CHAT_ADDRESS_SHARE times as many, reports included); 0: none */
    int chat_burst;
    size_t slots; /* buckets per limiter */
    struct rate_limit *create, *join, *reads, *hints, *signin, *account_signin, *chat,
        *chat_address;
};

/* The defaults (sane for a public server), then CITY_CREATE_RATE, CITY_CREATE_BURST,
 * CITY_JOIN_RATE, CITY_JOIN_BURST, CITY_READ_RATE, CITY_READ_BURST, CITY_MAX_AMENDMENTS,
 * CITY_OPEN_TTL, CITY_IDLE_GAME_SECONDS, CITY_RETENTION, CITY_TAKEOVER_AFTER,
 * CITY_PRESENCE_SECONDS, CITY_HINTS_PER_GAME, CITY_HINT_THREADS, CITY_HINT_RATE, CITY_HINT_BURST,
 * CITY_LOBBY_PER_ADDRESS, CITY_SIGNIN_RATE, CITY_SIGNIN_BURST, CITY_ACCOUNT_SIGNIN_RATE,
 * CITY_ACCOUNT_SIGNIN_BURST, CITY_SESSION_SECONDS, CITY_HASH_THREADS, CITY_CHAT_RATE,
 * CITY_CHAT_BURST and CITY_RATE_SLOTS from the
 * environment.
 * False, with a sentence in err, when one is not a number in its range. */
bool quotas_from_env(struct quotas *q, char *err, size_t errlen);

/* Reads command-line option `flag` with `value` (may be NULL when missing) when it is one of
 * --create-rate, --create-burst, --join-rate, --join-burst, --read-rate, --read-burst,
 * --max-amendments, --open-ttl, --idle-game-seconds, --retention, --takeover-after,
 * --presence-seconds, --hints-per-game, --hint-threads, --hint-rate, --hint-burst,
 * --lobby-per-address,
 * --signin-rate, --signin-burst, --account-signin-rate, --account-signin-burst,
 * --session-seconds, --hash-threads, --chat-rate, --chat-burst. Returns 1 when
 * it took the option, 0 when the flag is not one of these, -1 (with a sentence in err) when the
 * value is missing or out of range. */
int quotas_flag(struct quotas *q, const char *flag, const char *value, char *err, size_t errlen);

/* Makes the limiters of the settings. False when memory runs out. */
bool quotas_start(struct quotas *q);
void quotas_stop(struct quotas *q);

/* The usage lines of these settings, for `cityd serve`'s usage message. */
extern const char quotas_usage[];

#endif
