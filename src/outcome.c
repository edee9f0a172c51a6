/* outcome.c: outcomes and the field-spec reader of request bodies; see outcome.h. */
#include "outcome.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "store.h"
#include "viewcache.h"

int outcome_fail(struct outcome *o, enum problem p, const char *code, const char *fmt, ...)
{
    o->status = 0;
    o->p = p;
    snprintf(o->code, sizeof o->code, "%s", code ? code : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->detail, sizeof o->detail, fmt, ap);
    va_end(ap);
    json_decref(o->reply);
    o->reply = NULL;
    free(o->text);
    o->text = NULL;
    view_text_release(o->view);
    o->view = NULL;
    return STORE_ABORT;
}

void outcome_reply(struct outcome *o, int status, json_t *reply)
{
    json_decref(o->reply);
    free(o->text);
    o->text = NULL;
    view_text_release(o->view);
    o->view = NULL;
    o->status = status;
    o->reply = reply;
}

void outcome_text(struct outcome *o, int status, char *text, size_t len)
{
    outcome_reply(o, status, NULL);
    o->text = text;
    o->text_len = len;
}

void outcome_view(struct outcome *o, int status, struct view_text *view)
{
    outcome_reply(o, status, NULL);
    o->view = view;
}

void outcome_clear(struct outcome *o)
{
    json_decref(o->reply);
    free(o->text);
    view_text_release(o->view);
    memset(o, 0, sizeof *o);
}

bool fields_read(const json_t *body, const struct field_spec *spec, int n, const char *what,
                 const json_t **vals, struct outcome *o)
{
    static const char *const kinds[] = {"an integer", "a string", "true or false", "any value"};
    json_t *obj = unconst(body);
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        bool known = false;
        for (int i = 0; i < n && !known; i++)
            known = strcmp(spec[i].name, key) == 0;
        if (known)
            continue;
        char list[240] = "";
        for (int i = 0; i < n; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     i == 0      ? ""
                     : i + 1 < n ? ", "
                                 : " and ",
                     spec[i].name);
        if (n == 0)
            outcome_fail(o, P_UNKNOWN_FIELD, NULL,
                         "Unknown field \"%.60s\"; %s takes no fields: send no body or {}.", key,
                         what);
        else
            outcome_fail(o, P_UNKNOWN_FIELD, NULL, "Unknown field \"%.60s\"; %s takes only %s.",
                         key, what, list);
        return false;
    }
    for (int i = 0; i < n; i++) {
        const struct field_spec *f = &spec[i];
        v = json_object_get(body, f->name);
        vals[i] = v && !json_is_null(v) ? v : NULL; /* null stands for "left out" */
        if (!vals[i] && f->required) {
            outcome_fail(o, P_MISSING_FIELD, NULL, "The field \"%s\" is required (%s).", f->name,
                         kinds[f->kind]);
            return false;
        }
        if (!vals[i] || f->kind == FIELD_ANY)
            continue;
        bool fits = f->kind == FIELD_INT      ? json_is_integer(v)
                    : f->kind == FIELD_STRING ? json_is_string(v)
                                              : json_is_boolean(v);
        if (!fits) {
            outcome_fail(o, P_WRONG_TYPE, NULL, "\"%s\" must be %s.", f->name, kinds[f->kind]);
            return false;
        }
        json_int_t x = f->kind == FIELD_INT ? json_integer_value(v) : 0;
        if (f->kind == FIELD_INT && (x < f->min || x > f->max)) {
            outcome_fail(o, P_BAD_VALUE, NULL, "\"%s\" must be between %lld and %lld.", f->name,
                         f->min, f->max);
            return false;
        }
    }
    return true;
}
