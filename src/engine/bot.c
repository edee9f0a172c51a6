/* bot.c: the kinds and the randomness every game's bots share (see bot.h). */
#include "bot.h"

#include <string.h>

static const char *const kind_names[BOT_KIND_COUNT] = {"random", "greedy"};

const char *bot_kind_name(int kind)
{
    return kind >= 0 && kind < BOT_KIND_COUNT ? kind_names[kind] : "unknown";
}

int bot_kind_from_name(const char *name)
{
    for (int i = 0; name && i < BOT_KIND_COUNT; i++)
        if (strcmp(name, kind_names[i]) == 0)
            return i;
    return -1;
}

void bot_init(struct bot *b, int kind, uint64_t seed)
{
    b->kind = kind;
    rng_seed(&b->rng, seed);
}
