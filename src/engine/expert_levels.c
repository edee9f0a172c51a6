/* expert_levels.c: the table of the expert's difficulty levels and its lookups; see
 * expert_levels.h. The figures each level reaches against the greedy bot are in the README
 * ("The expert's levels"), measured with `cityd simulate --level`. */
#include "expert_levels.h"

#include <assert.h>
#include <string.h>

const struct expert_level expert_levels[] = {
    {.id = "easy",
     .title = "Easy",
     .think_ms = 10,
     .iterations = 16,
     .candidates = 4,
     .rollout = "random"},
    {.id = "normal", .title = "Normal", .think_ms = 40, .iterations = 80, .candidates = 8},
    {.id = "expert", .title = "Expert", .think_ms = 0, .iterations = 0, .candidates = 0},
    {.id = NULL},
};

const struct expert_level *expert_level_find(const char *id)
{
    for (int i = 0; id && expert_levels[i].id; i++)
        if (strcmp(expert_levels[i].id, id) == 0)
            return &expert_levels[i];
    return NULL;
}

double expert_level_ms(const struct expert_level *l, double top_ms)
{
    assert(l);
    if (top_ms <= 0)
        return 0;
    return l->think_ms > 0 && l->think_ms < top_ms ? l->think_ms : top_ms;
}

struct expert_params expert_level_params(const struct expert_level *l, double top_ms)
{
    assert(l);
    struct expert_params p = expert_defaults;
    p.think_ms = expert_level_ms(l, top_ms);
    if (l->iterations > 0)
        p.iterations = l->iterations;
    if (l->candidates > 0)
        p.candidates = l->candidates;
    if (l->rollout)
        p.rollout = l->rollout;
    return p;
}
