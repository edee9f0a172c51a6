/* city_defaults.c: the decisions the rules give a seat that did not decide in time
 * (docs/rules.md, "Timers and defaults"): a survey in build, else the discards the greedy bot
 * would make. Apart from city.c so that the rules do not depend on the bots: this file
 * depends on both, and nothing depends on it but the ruleset table. */
#include "city.h"
#include "city_bots.h"
#include "city_rules.h"

#include <assert.h>

int city_fill_defaults(struct city_game *g, const struct city_events *ev)
{
    int n = 0;
    if (g->step == CITY_STEP_OVER)
        return 0;
    for (int i = 0; i < g->players; i++) {
        struct city_seat *s = &g->seats[i];
        if (!s->pending || s->submitted)
            continue;
        struct city_decision d;
        city_decision_clear(&d);
        if (g->step == CITY_STEP_BUILD) {
            d.kind = CITY_DEC_SURVEY;
        } else {
            d.kind = CITY_DEC_DISCARD;
            d.ndiscard = (uint8_t)city_discard_count(g, i);
            city_bot_greedy_discards(g, i, d.ndiscard, d.discard);
        }
        int err = city_submit(g, i, &d);
        assert(err == CITY_OK);
        (void)err;
        s->defaulted = true;
        city_emit(ev, g, CITY_EV_DEFAULT, i, 0, d.kind, 0);
        n++;
    }
    return n;
}
