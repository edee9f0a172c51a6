/* problem.h: the one registry of the errors a client can cause or meet, each with its HTTP
 * status, stable `code` and title; replies are RFC 9457 application/problem+json bodies built
 * from it: {type, title, status, detail, code}. */
#ifndef CITY_PROBLEM_H
#define CITY_PROBLEM_H

#include <jansson.h>

enum problem {
    P_BAD_JSON,            /* 400 the body is not JSON */
    P_NOT_AN_OBJECT,       /* 400 */
    P_MISSING_FIELD,       /* 400 */
    P_UNKNOWN_FIELD,       /* 400 */
    P_WRONG_TYPE,          /* 400 */
    P_BAD_VALUE,           /* 400 */
    P_CONFLICTING_FIELDS,  /* 400 */
    P_TOO_MANY_CARDS,      /* 400 */
    P_SEED_NOT_ALLOWED,    /* 400 */
    P_BAD_QUERY,           /* 400 */
    P_NOT_RATEABLE,        /* 400 "rated": true for a game that cannot be rated */
    P_BAD_GAME,            /* 400 a query's "game" names no game this server hosts */
    P_BAD_HEAD,            /* 400 a request head whose framing is ambiguous (smuggling) */
    P_CHAT_EMPTY,          /* 400 a chat message with no text (or only white space) */
    P_CHAT_TOO_LONG,       /* 400 a chat message past SERVICE_CHAT_MAX_CHARS characters */
    P_NO_TOKEN,            /* 401 */
    P_BAD_TOKEN,           /* 401 */
    P_BAD_CREDENTIALS,     /* 401 sign-in with a name or password that does not fit */
    P_WRONG_GAME,          /* 403 a token of another game */
    P_NOT_HOST,            /* 403 */
    P_METRICS_FORBIDDEN,   /* 403 /metrics from an address not allowed, without the token */
    P_NOT_SEAT,            /* 403 the host token where a seat token is needed */
    P_NOT_SEATED,          /* 403 a session whose account has no seat in this game */
    P_ACCOUNT_REQUIRED,    /* 403 a rated game joined without a session token */
    P_WRONG_PASSWORD,      /* 403 a signed-in change whose password does not fit */
    P_NOT_FOUND,           /* 404 no such path */
    P_NO_GAME,             /* 404 no such game */
    P_NO_PLAYER,           /* 404 no account or rated bot of this name */
    P_NO_MESSAGE,          /* 404 no chat message of this id in the game (that the asker sees) */
    P_METHOD,              /* 405 */
    P_STALE_STEP,          /* 409 round/step not current */
    P_NOTHING_TO_DECIDE,   /* 409 the seat has no decision at the current point */
    P_GAME_FULL,           /* 409 */
    P_NOT_STARTED,         /* 409 */
    P_GAME_OVER,           /* 409 */
    P_NOT_FINISHED,        /* 409 */
    P_NOT_OVERDUE,         /* 409 */
    P_GAME_EXPIRED,        /* 409 an open game that never filled and expired */
    P_GAME_CANCELLED,      /* 409 an open game its host cancelled */
    P_GAME_STARTED,        /* 409 only an open game can be cancelled */
    P_SEAT_IS_BOT,         /* 409 the seat is already a bot's */
    P_SEAT_NOT_ABSENT,     /* 409 the seat has not missed enough deadlines to be taken over */
    P_NAME_TAKEN,          /* 409 an account, or a player at the table, has this name */
    P_ALREADY_SEATED,      /* 409 the account already has a seat in this game */
    P_CHAT_KEY_REUSED,     /* 409 a chat key its writer used for another text */
    P_TOO_LARGE,           /* 413 */
    P_URI_TOO_LONG,        /* 414 too long a URL or too many query parameters */
    P_UNSUPPORTED_MEDIA,   /* 415 a POST body that is not application/json */
    P_ILLEGAL,             /* 422 an illegal decision; code comes from the engine */
    P_RATE_LIMITED,        /* 429 a per-address or per-seat quota is used up */
    P_TOO_MANY_AMENDMENTS, /* 429 a seat replaced its order as often as a step allows */
    P_TOO_MANY_HINTS,      /* 429 a seat used its expert hints of the game */
    P_HEADERS_TOO_LARGE,   /* 431 too many or too large request headers */
    P_INTERNAL,            /* 500 */
    P_UNAVAILABLE,         /* 503 the database is unreachable */
    P_OUTCOME_UNKNOWN,     /* 503 the connection broke after COMMIT went out: resend */
    P_TOO_MANY_STREAMS,    /* 503 the instance's or the game's cap on event streams */
    P_BUSY,                /* 503 the instance's cap on work thought about at once (hints) */
    P_COUNT
};

/* HTTP status, stable code and title of a problem. */
int problem_status(enum problem p);
const char *problem_code(enum problem p);
const char *problem_title(enum problem p);

/* Seconds a client is told to wait (Retry-After) after 503 database_unavailable or
 * outcome_unknown: a failover of the database takes about 2 to 5 seconds. */
enum { PROBLEM_DB_RETRY_AFTER = 2 };

/* A new problem body: the registry's status, code and title, with `detail` (a sentence that
 * says what was wrong and what to do) and, when code_override is not NULL, that code instead
 * of the registry's (used for the engine's reasons under 422). Caller owns the reference. */
json_t *problem_body(enum problem p, const char *code_override, const char *detail);

#endif
