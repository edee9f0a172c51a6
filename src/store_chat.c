/* store_chat.c: the SQL of table talk and its reports (see store_chat.h). Values travel as text
 * parameters; lists come back as one json_agg() document. */
#include "store_chat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHAT_AT(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"

/* The API's JSON of a chat_messages row aliased m. */
#define CHAT_JSON                                                                                  \
    "json_build_object('id', m.id, 'channel', m.channel, 'seat', m.seat, 'name', m.name, "         \
    "'text', m.body, 'at', " CHAT_AT("m.created_at") ")"

static int run(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
               PGresult **res)
{
    const struct store_stmt q = {what, sql, n, vals, NULL, false};
    return store_query(c, &q, res);
}

/* Runs a statement whose first row's first column is a JSON document into *out and, when flag
 * is not NULL, its second column, a boolean, into *flag. */
static int json_row(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                    json_t **out, bool *flag)
{
    *out = NULL;
    PGresult *r;
    int st = run(c, what, sql, n, vals, &r);
    if (st != STORE_OK)
        return st;
    if (PQntuples(r) < 1)
        st = STORE_NO_ROW;
    else if (!(*out = json_loads(PQgetvalue(r, 0, 0), 0, NULL)))
        st = STORE_HARD;
    else if (flag)
        *flag = strcmp(PQgetvalue(r, 0, 1), "t") == 0;
    PQclear(r);
    return st;
}

/* Runs a statement whose first row's first column is a JSON document into *out. */
static int one_json(PGconn *c, const char *what, const char *sql, int n, const char *const *vals,
                    json_t **out)
{
    return json_row(c, what, sql, n, vals, out, NULL);
}

/* The message writer $2 of game $1 sent with key $3, and whether its text is $4. */
#define CHAT_BY_KEY                                                                                \
    "SELECT " CHAT_JSON "::text, m.body = $4 FROM chat_messages m WHERE m.game_id = $1 AND "       \
    "m.writer = $2 AND m.client_key = $3"

/* Reads the message of a key (CHAT_BY_KEY) into *out and *same; STORE_NO_ROW when none. */
static int chat_by_key(PGconn *c, const char *const *vals, json_t **out, bool *same)
{
    return json_row(c, "chat by key", CHAT_BY_KEY, 4, vals, out, same);
}

/* The writer of m, as the unique key's column names it, into `writer` (size at least 48). */
static void writer_of(const struct store_chat_new *m, char *writer, size_t size)
{
    if (m->account)
        snprintf(writer, size, "account:%lld", m->account);
    else
        snprintf(writer, size, "seat:%d", m->seat);
}

int store_chat_sent(PGconn *c, const struct store_chat_new *m, json_t **out, int *kept)
{
    *out = NULL;
    *kept = STORE_CHAT_NEW;
    if (!m->key)
        return STORE_NO_ROW;
    char writer[48];
    writer_of(m, writer, sizeof writer);
    const char *keyed[] = {m->id, writer, m->key, m->text};
    bool same = false;
    int st = chat_by_key(c, keyed, out, &same);
    if (st == STORE_OK)
        *kept = same ? STORE_CHAT_AGAIN : STORE_CHAT_KEY_TAKEN;
    return st;
}

int store_chat_insert(PGconn *c, const struct store_chat_new *m, json_t **out, int *kept)
{
    char s[16], a[24];
    snprintf(s, sizeof s, "%d", m->seat);
    snprintf(a, sizeof a, "%lld", m->account);
    const char *seat = m->seat >= 0 ? s : NULL, *account = m->account ? a : NULL;
    char writer[48];
    writer_of(m, writer, sizeof writer);
    *out = NULL;
    *kept = STORE_CHAT_NEW;
    const char *vals[] = {m->id,   m->channel, seat,   account,
                          m->name, m->text,    m->key, m->key ? writer : NULL};
    int st = one_json(c, "chat insert",
                      "INSERT INTO chat_messages AS m (game_id, channel, seat, account_id, name, "
                      "body, client_key, writer) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON "
                      "CONFLICT DO NOTHING RETURNING " CHAT_JSON "::text",
                      8, vals, out);
    if (st != STORE_NO_ROW || !m->key)
        return st;
    /* The same key stored meanwhile by a request that raced this one (the insert waited for it
     * to commit): this statement's snapshot is newer, so it sees that message. */
    return store_chat_sent(c, m, out, kept);
}

int store_chat_after(PGconn *c, const char *id, long long after, int limit, bool watchers,
                     json_t **out)
{
    char a[24], l[16];
    snprintf(a, sizeof a, "%lld", after);
    snprintf(l, sizeof l, "%d", limit);
    const char *vals[] = {id, a, l, watchers ? "t" : "f"};
    return one_json(c, "chat after",
                    "SELECT coalesce(json_agg(" CHAT_JSON " ORDER BY m.id), '[]')::text FROM "
                    "(SELECT * FROM chat_messages WHERE game_id = $1 AND id > $2 AND "
                    "($4 OR channel = 'players') ORDER BY id LIMIT $3) m",
                    4, vals, out);
}

int store_chat_last(PGconn *c, const char *id, long long *last)
{
    const char *vals[] = {id};
    PGresult *r;
    int st = run(c, "chat last",
                 "SELECT coalesce(max(id), 0) FROM chat_messages WHERE game_id = $1", 1, vals, &r);
    if (st == STORE_OK)
        *last = atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    return st;
}

int store_chat_channel(PGconn *c, const char *id, long long msg, char *channel)
{
    char m[24];
    snprintf(m, sizeof m, "%lld", msg);
    const char *vals[] = {id, m};
    PGresult *r;
    int st = run(c, "chat channel",
                 "SELECT channel FROM chat_messages WHERE game_id = $1 AND id = $2", 2, vals, &r);
    if (st != STORE_OK)
        return st;
    if (PQntuples(r) < 1)
        st = STORE_NO_ROW;
    else
        snprintf(channel, 16, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    return st;
}

int store_chat_report(PGconn *c, long long msg, const char *reporter, const char *reason,
                      bool *fresh)
{
    char m[24];
    snprintf(m, sizeof m, "%lld", msg);
    const char *vals[] = {m, reporter, reason};
    PGresult *r;
    int st = run(c, "chat report",
                 "INSERT INTO chat_reports (message_id, reporter, reason) VALUES ($1, $2, $3) "
                 "ON CONFLICT (message_id, reporter) DO NOTHING RETURNING id",
                 3, vals, &r);
    if (st == STORE_OK)
        *fresh = PQntuples(r) > 0;
    PQclear(r);
    return st;
}

int store_chat_reports(PGconn *c, json_t **out)
{
    return one_json(
        c, "chat reports",
        "SELECT coalesce(json_agg(json_build_object('report', r.id, 'message', m.id, 'game', "
        "m.game_id, 'channel', m.channel, 'seat', m.seat, 'name', m.name, 'text', m.body, 'at', "
        "" CHAT_AT("m.created_at") ", 'reporter', r.reporter, 'reason', r.reason, 'reported_at', "
                                   "" CHAT_AT(
                                       "r.created_at") ") ORDER BY r.id), '[]')::text FROM "
                                                       "chat_reports r JOIN "
                                                       "chat_messages m ON m.id = r.message_id",
        0, NULL, out);
}

/* Runs DELETE statement `sql` (... WHERE id = $1 RETURNING id) for row `row`; STORE_NO_ROW
 * when it deleted none. */
static int delete_one(PGconn *c, const char *what, const char *sql, long long row)
{
    char id[24];
    snprintf(id, sizeof id, "%lld", row);
    const char *vals[] = {id};
    PGresult *r;
    int st = run(c, what, sql, 1, vals, &r);
    if (st == STORE_OK && PQntuples(r) < 1)
        st = STORE_NO_ROW;
    PQclear(r);
    return st;
}

int store_chat_report_clear(PGconn *c, long long report)
{
    return delete_one(c, "chat report clear", "DELETE FROM chat_reports WHERE id = $1 RETURNING id",
                      report);
}

int store_chat_message_remove(PGconn *c, long long msg)
{
    return delete_one(c, "chat message remove",
                      "DELETE FROM chat_messages WHERE id = $1 RETURNING id", msg);
}
