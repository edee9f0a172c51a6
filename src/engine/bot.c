/* bot.c: the kinds and the randomness every game's bots share (see bot.h). */
#include "bot.h"

#include "ruleset.h"

const char *const bot_names[] = {"greedy", "random", "expert", NULL};

static const char *const kind_names[BOT_KIND_COUNT + 1] = {"random", "greedy", NULL};

const char *bot_kind_name(int kind)
{
    return rs_name_at(kind_names, kind, "unknown");
}

int bot_kind_from_name(const char *name)
{
    return rs_name_index(kind_names, name);
}

void bot_init(struct bot *b, int kind, uint64_t seed)
{
    b->kind = kind;
    rng_seed(&b->rng, seed);
}
