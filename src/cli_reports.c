/* cli_reports.c: `cityd reports`, the operator's list of reported chat messages (table talk,
 * service_chat.c): each standing report as one JSON line {report, message, game, channel, seat,
 * name, text, at, reporter, reason, reported_at}, oldest first; `--clear ID` deletes a report
 * the operator dealt with, `--remove MESSAGE` takes a message down (it and its reports are
 * deleted). Reads the database the service uses (--database or DATABASE_URL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store.h"
#include "store_chat.h"

struct reports_ctx {
    long long clear;  /* a report to delete, or 0 */
    long long remove; /* a message to take down, or 0 */
    json_t *list;
};

static int reports_tx(PGconn *c, void *ctx)
{
    struct reports_ctx *rc = ctx;
    if (rc->clear)
        return store_chat_report_clear(c, rc->clear);
    if (rc->remove)
        return store_chat_message_remove(c, rc->remove);
    return store_chat_reports(c, &rc->list);
}

/* Reads argv[i + 1] as a positive id into *v: true (and i moves past it) when it is one. */
static bool id_arg(int argc, char **argv, int *i, long long *v)
{
    char *end = NULL;
    if (*i + 1 >= argc || (*v = strtoll(argv[*i + 1], &end, 10)) <= 0 || *end)
        return false;
    ++*i;
    return true;
}

int cmd_reports(int argc, char **argv)
{
    const char *db = getenv("DATABASE_URL");
    struct reports_ctx rc = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--database") == 0 && i + 1 < argc)
            db = argv[++i];
        else if (!(strcmp(argv[i], "--clear") == 0 && !rc.remove &&
                   id_arg(argc, argv, &i, &rc.clear)) &&
                 !(strcmp(argv[i], "--remove") == 0 && !rc.clear &&
                   id_arg(argc, argv, &i, &rc.remove))) {
            fprintf(stderr, "usage: cityd reports [--database URL] [--clear REPORT_ID | --remove "
                            "MESSAGE_ID]\n");
            return 2;
        }
    }
    if (!db) {
        fprintf(stderr, "cityd reports: no database: pass --database URL or set DATABASE_URL\n");
        return 2;
    }
    char err[256];
    struct store *st = store_open(db, 1, err, sizeof err);
    if (!st) {
        fprintf(stderr, "cityd reports: %s\n", err);
        return 1;
    }
    int s = store_tx(st, reports_tx, &rc, STORE_TRIES_READ);
    store_close(st);
    if (s == STORE_NO_ROW) {
        fprintf(stderr, "cityd reports: there is no %s %lld\n", rc.clear ? "report" : "message",
                rc.clear ? rc.clear : rc.remove);
        return 1;
    }
    if (s != STORE_OK) {
        fprintf(stderr, "cityd reports: the database did not answer (status %d)\n", s);
        return 1;
    }
    if (rc.clear)
        printf("{\"cleared\": %lld}\n", rc.clear);
    if (rc.remove)
        printf("{\"removed\": %lld}\n", rc.remove);
    size_t i;
    json_t *r;
    json_array_foreach(rc.list, i, r)
    {
        char *line = json_dumps(r, JSON_COMPACT);
        if (line)
            puts(line);
        free(line);
    }
    json_decref(rc.list);
    return 0;
}
