/* bot.c: the kinds and the randomness every game's bots share (see bot.h). */
#include "bot.h"

#include <string.h>

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

bool bot_at_point(struct bot *b, const char *kind, uint64_t seed, int turn, int seat)
{
    if (strcmp(kind, "expert") == 0)
        return false;
    int k = bot_kind_from_name(kind);
    bot_init(b, k < 0 ? BOT_GREEDY : k, seed ^ ((uint64_t)turn << 8) ^ (uint64_t)seat);
    return true;
}
