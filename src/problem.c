/* problem.c: the registry of problems (see problem.h). */
#include "problem.h"

#include <stdio.h>

static const struct {
    int status;
    const char *code;
    const char *title;
} problems[P_COUNT] = {
    [P_BAD_JSON] = {400, "malformed_json", "The request body is not valid JSON"},
    [P_NOT_AN_OBJECT] = {400, "not_an_object", "The request body must be a JSON object"},
    [P_MISSING_FIELD] = {400, "missing_field", "A required field is missing"},
    [P_UNKNOWN_FIELD] = {400, "unknown_field", "The body has a field this endpoint does not take"},
    [P_WRONG_TYPE] = {400, "wrong_type", "A field has the wrong JSON type"},
    [P_BAD_VALUE] = {400, "bad_value", "A field has a value out of range"},
    [P_CONFLICTING_FIELDS] = {400, "conflicting_fields",
                              "The body mixes fields that exclude each other"},
    [P_TOO_MANY_CARDS] = {400, "too_many_cards", "The order names too many cards"},
    [P_SEED_NOT_ALLOWED] = {400, "seed_not_allowed",
                            "This server does not take seeds from clients"},
    [P_BAD_QUERY] = {400, "bad_query", "A query parameter is malformed"},
    [P_NOT_RATEABLE] = {400, "not_rateable", "This game cannot be rated"},
    [P_BAD_GAME] = {400, "bad_game", "No game of this name is hosted here"},
    [P_BAD_HEAD] = {400, "bad_request_head", "The request head is ambiguous"},
    [P_CHAT_EMPTY] = {400, "chat_empty", "The chat message has no text"},
    [P_CHAT_TOO_LONG] = {400, "chat_too_long", "The chat message is too long"},
    [P_NO_TOKEN] = {401, "token_required", "This endpoint needs a bearer token"},
    [P_BAD_TOKEN] = {401, "bad_token", "The bearer token is not valid"},
    [P_BAD_CREDENTIALS] = {401, "bad_credentials", "The name or the password is not right"},
    [P_WRONG_GAME] = {403, "wrong_game", "The token belongs to another game"},
    [P_NOT_HOST] = {403, "not_host", "Only the host may do this now"},
    [P_METRICS_FORBIDDEN] = {403, "metrics_forbidden", "The metrics are not served to this client"},
    [P_NOT_SEAT] = {403, "not_a_seat_token", "This needs a seat token, not the host token"},
    [P_NOT_SEATED] = {403, "not_seated", "The signed-in account has no seat in this game"},
    [P_ACCOUNT_REQUIRED] = {403, "account_required", "A rated game is joined signed in"},
    [P_WRONG_PASSWORD] = {403, "wrong_password", "The password is not right"},
    [P_NOT_FOUND] = {404, "not_found", "There is nothing at this path"},
    [P_NO_GAME] = {404, "game_not_found", "There is no game with this id"},
    [P_NO_PLAYER] = {404, "no_such_player", "There is no player of this name"},
    [P_NO_MESSAGE] = {404, "no_such_message", "There is no such chat message"},
    [P_METHOD] = {405, "method_not_allowed", "This path does not take this method"},
    [P_STALE_STEP] = {409, "stale_step", "The order is for a step that is not the current one"},
    [P_NOTHING_TO_DECIDE] = {409, "nothing_to_decide", "This seat has nothing to decide now"},
    [P_GAME_FULL] = {409, "game_full", "Every seat of this game is taken"},
    [P_NOT_STARTED] = {409, "game_not_started", "The game has not started yet"},
    [P_GAME_OVER] = {409, "game_over", "The game has ended"},
    [P_NOT_FINISHED] = {409, "game_not_finished", "The replay is published when the game ends"},
    [P_NOT_OVERDUE] = {409, "not_overdue", "The step is not overdue"},
    [P_GAME_EXPIRED] = {409, "game_expired", "The game expired before every seat was taken"},
    [P_GAME_CANCELLED] = {409, "game_cancelled", "The host cancelled the game before it started"},
    [P_GAME_STARTED] = {409, "game_started", "The game has started and cannot be cancelled"},
    [P_SEAT_IS_BOT] = {409, "seat_is_bot", "A bot already plays this seat"},
    [P_SEAT_NOT_ABSENT] = {409, "seat_not_absent",
                           "The seat has not missed enough deadlines to be handed to a bot"},
    [P_NAME_TAKEN] = {409, "name_taken", "This name is taken"},
    [P_ALREADY_SEATED] = {409, "already_seated", "The account already has a seat in this game"},
    [P_CHAT_KEY_REUSED] = {409, "chat_key_reused", "This chat key was used for another message"},
    [P_TOO_LARGE] = {413, "body_too_large", "The request body is too large"},
    [P_URI_TOO_LONG] = {414, "uri_too_long", "The URL or its query is too long"},
    [P_UNSUPPORTED_MEDIA] = {415, "unsupported_media_type",
                             "The request body must be sent as application/json"},
    [P_ILLEGAL] = {422, "illegal_decision", "The decision is not legal now"},
    [P_RATE_LIMITED] = {429, "rate_limited", "Too many requests; slow down"},
    [P_TOO_MANY_AMENDMENTS] = {429, "too_many_amendments",
                               "This seat has replaced its order as often as a step allows"},
    [P_TOO_MANY_HINTS] = {429, "too_many_hints", "This seat has used its expert hints of the game"},
    [P_HEADERS_TOO_LARGE] = {431, "headers_too_large",
                             "The request headers are too many or too large"},
    [P_INTERNAL] = {500, "internal_error", "The server failed"},
    [P_UNAVAILABLE] = {503, "database_unavailable", "The database cannot be reached"},
    [P_OUTCOME_UNKNOWN] = {503, "outcome_unknown",
                           "The database may or may not have stored the request"},
    [P_TOO_MANY_STREAMS] = {503, "too_many_streams", "Too many event streams are open"},
    [P_BUSY] = {503, "busy", "The server is thinking about too much at once"},
};

int problem_status(enum problem p)
{
    return problems[p].status;
}
const char *problem_code(enum problem p)
{
    return problems[p].code;
}
const char *problem_title(enum problem p)
{
    return problems[p].title;
}

json_t *problem_body(enum problem p, const char *code_override, const char *detail)
{
    const char *code = code_override ? code_override : problems[p].code;
    char type[128];
    snprintf(type, sizeof type, "/problems/%s", code);
    return json_pack("{s:s, s:s, s:i, s:s, s:s}", "type", type, "title", problems[p].title,
                     "status", problems[p].status, "detail", detail ? detail : problems[p].title,
                     "code", code);
}
