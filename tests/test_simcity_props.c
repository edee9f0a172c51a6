/* test_simcity_props.c: properties of SimCity over thousands of bot games on the real deck at
 * 1 to 6 players: every game ends; cards are conserved and the state stays consistent after
 * every point; money never goes below $0 and the phase never retreats; every default and every
 * listed legal option is accepted and plays the check refuses are not listed; a copy of a game
 * plays on exactly as the game does, and the same seed and decisions give the same game; the
 * scan a position keeps is the scan of its city; a replay read round by round lists every round. */
#include "sc_helpers.h"

#include "ruleset.h"
#include "simcity/sc_bots.h"

TestSuite(simcity_props, .init = load_sc, .timeout = 240);

enum { MAX_POINTS = 20000, MAX_LEGAL = 16384 };

static void invariants(const struct sc_game *before, const struct sc_game *g)
{
    cr_assert(sc_check_conservation(g), "cards not conserved (seed %llu, turn %d)",
              (unsigned long long)g->seed, g->turn);
    cr_assert(sc_check_point(g), "inconsistent point (seed %llu, turn %d, step %s)",
              (unsigned long long)g->seed, g->turn, sc_step_name(g->step));
    for (int s = 0; s < g->players; s++)
        cr_assert_geq(g->seats[s].money, 0);
    cr_assert_geq(g->phase, before->phase, "the phase retreated");
    cr_assert_gt(g->turn, before->turn);
    cr_assert(g->round >= before->round);
}

/* Plays a game with one bot kind per seat; seats in `absent` never decide and get defaults.
 * check(before, after) runs after every point. Returns the points played. */
static int play(struct sc_game *g, int players, uint64_t seed, const int *kinds, unsigned absent,
                void (*check)(const struct sc_game *, const struct sc_game *))
{
    cr_assert_eq(sc_new(g, &scat, players, seed, 0), SC_OK);
    struct bot bots[SC_MAX_PLAYERS];
    for (int s = 0; s < players; s++)
        bot_init(&bots[s], kinds[s], seed * 7 + (uint64_t)s);
    static struct sc_game before;
    int points = 0;
    while (!sc_over(g)) {
        cr_assert_lt(points++, MAX_POINTS, "seed %llu: the game does not end",
                     (unsigned long long)seed);
        for (int s = 0; s < players; s++) {
            struct sc_decision d;
            if ((absent & (1u << s)) || !sc_bot_decide(&bots[s], g, s, &d))
                continue;
            int e = sc_submit(g, s, &d);
            cr_assert_eq(e, SC_OK, "seed %llu seat %d step %s: bot decision refused: %s",
                         (unsigned long long)seed, s, sc_step_name(g->step), sc_error_code(e));
        }
        if (!sc_ready(g))
            sc_fill_defaults(g, NULL);
        before = *g;
        cr_assert(sc_resolve(g, NULL));
        if (check)
            check(&before, g);
    }
    cr_assert_neq(g->winners, 0);
    cr_assert_neq(g->end_reason, SC_END_NONE);
    return points;
}

Test(simcity_props, every_game_ends_with_cards_conserved_and_money_never_below_zero)
{
    static struct sc_game g;
    const int random[6] = {0}, greedy[6] = {1, 1, 1, 1, 1, 1}, mixed[6] = {0, 1, 0, 1, 0, 1};
    const int *kinds[3] = {random, greedy, mixed};
    int games = 0;
    for (int p = 1; p <= SC_MAX_PLAYERS; p++)
        for (uint64_t seed = 0; seed < 350; seed++, games++)
            play(&g, p, seed * 7919 + (uint64_t)p, kinds[seed % 3], seed % 5 == 4 ? 1u : 0,
                 invariants);
    cr_expect_eq(games, 2100);
}

/* At every point: the default is legal; every listed decision is accepted; at a play point,
 * a sample of (hand card, cell) pairs is accepted exactly when listed. */
static struct sc_decision legal[MAX_LEGAL];
static struct city_rng probe;

static bool listed_play(int n, int card, int x, int y)
{
    for (int i = 0; i < n && i < MAX_LEGAL; i++)
        if (legal[i].kind == SC_DEC_PLAY && legal[i].card == card && legal[i].x == x &&
            legal[i].y == y)
            return true;
    return false;
}

static void options_hold(const struct sc_game *before, const struct sc_game *g)
{
    invariants(before, g);
    if (sc_over(g))
        return;
    for (int s = 0; s < g->players; s++) {
        if (!sc_pending(g, s))
            continue;
        struct sc_decision d;
        sc_default_decision(g, s, &d);
        cr_assert_eq(sc_check(g, s, &d), SC_OK, "default refused at step %s",
                     sc_step_name(g->step));
        int n = sc_legal(g, s, legal, MAX_LEGAL);
        cr_assert_gt(n, 0, "a pending seat with no legal decision (step %s)",
                     sc_step_name(g->step));
        cr_assert_leq(n, MAX_LEGAL);
        for (int i = 0; i < n; i++) {
            int e = sc_check(g, s, &legal[i]);
            cr_assert_eq(e, SC_OK, "listed decision %d of %d refused at step %s: %s", i, n,
                         sc_step_name(g->step), sc_error_code(e));
        }
        if (g->step != SC_STEP_PLAY)
            continue;
        const struct sc_seat *st = &g->seats[s];
        for (int k = 0; k < 40; k++) {
            struct sc_decision q;
            sc_decision_init(&q);
            q.kind = SC_DEC_PLAY;
            q.card = st->hand[rng_below(&probe, st->nhand)];
            q.x = (int8_t)((int)rng_below(&probe, (uint32_t)g->side + 2) - 1);
            q.y = (int8_t)((int)rng_below(&probe, (uint32_t)g->side + 2) - 1);
            bool ok = sc_check(g, s, &q) == SC_OK;
            cr_assert_eq(ok, listed_play(n, q.card, q.x, q.y),
                         "card %d at %d,%d: accepted %d, listed %d", q.card, q.x, q.y, ok, !ok);
        }
        /* other seats, and decisions of another step, are refused */
        struct sc_decision other;
        sc_decision_init(&other);
        other.kind = SC_DEC_BID;
        other.votes = 1;
        other.candidate = 0;
        cr_assert_eq(sc_check(g, s, &other), SC_ERR_WRONG_KIND);
        cr_assert_eq(sc_check(g, (s + 1) % g->players, &legal[0]),
                     g->players > 1 ? SC_ERR_NOT_PENDING : SC_OK);
    }
}

Test(simcity_props, every_listed_option_and_default_is_accepted_and_unlisted_plays_refused)
{
    static struct sc_game g;
    rng_seed(&probe, 99);
    const int random[6] = {0}, greedy[6] = {1, 1, 1, 1, 1, 1};
    for (int p = 1; p <= SC_MAX_PLAYERS; p++)
        for (uint64_t seed = 0; seed < 24; seed++)
            play(&g, p, 500 + seed * 31 + (uint64_t)p, seed % 2 ? greedy : random, 0, options_hold);
}

/* Plays on from g with bots seeded from `seed` until the end. */
static void play_on(struct sc_game *g, uint64_t seed, int kind)
{
    struct bot bots[SC_MAX_PLAYERS];
    for (int s = 0; s < g->players; s++)
        bot_init(&bots[s], kind, seed + (uint64_t)s);
    for (int points = 0; !sc_over(g); points++) {
        cr_assert_lt(points, MAX_POINTS);
        for (int s = 0; s < g->players; s++) {
            struct sc_decision d;
            if (sc_bot_decide(&bots[s], g, s, &d))
                cr_assert_eq(sc_submit(g, s, &d), SC_OK);
        }
        cr_assert(sc_resolve(g, NULL));
    }
}

Test(simcity_props, a_copy_of_a_game_plays_on_exactly_as_the_game_does)
{
    static struct sc_game g, copy, again;
    for (int p = 1; p <= SC_MAX_PLAYERS; p++)
        for (uint64_t seed = 0; seed < 10; seed++) {
            int kind = seed % 2 ? BOT_GREEDY : BOT_RANDOM;
            cr_assert_eq(sc_new(&g, &scat, p, 77 + seed, 0), SC_OK);
            /* some way into the game */
            struct bot bots[SC_MAX_PLAYERS];
            for (int s = 0; s < p; s++)
                bot_init(&bots[s], kind, seed + (uint64_t)s);
            for (int k = 0; k < 40 + 10 * (int)seed && !sc_over(&g); k++) {
                for (int s = 0; s < p; s++) {
                    struct sc_decision d;
                    if (sc_bot_decide(&bots[s], &g, s, &d))
                        cr_assert_eq(sc_submit(&g, s, &d), SC_OK);
                }
                sc_resolve(&g, NULL);
            }
            memcpy(&copy, &g, sizeof g);
            play_on(&g, 1000 + seed, kind);
            play_on(&copy, 1000 + seed, kind);
            cr_assert_eq(memcmp(&g, &copy, sizeof g), 0,
                         "%d players, seed %llu: the copy "
                         "played on differently",
                         p, (unsigned long long)seed);
            /* the same seed and the same bots give the same game */
            cr_assert_eq(sc_new(&again, &scat, p, 77 + seed, 0), SC_OK);
            struct sc_game fresh;
            memcpy(&fresh, &again, sizeof again);
            play_on(&again, 5, kind);
            play_on(&fresh, 5, kind);
            cr_assert_eq(memcmp(&again, &fresh, sizeof again), 0);
        }
}

/* Events list what resolving does; a game's events come out the same on a replay. */
struct log {
    int n;
    uint32_t hash;
};

static void record(void *ctx, const struct sc_event *e)
{
    struct log *l = ctx;
    const int32_t fields[] = {e->type, e->seat, e->round, e->step,   e->turn,  e->card,
                              e->x,    e->y,    e->flag,  e->source, e->count, e->total};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        l->hash = (l->hash ^ (uint32_t)fields[i]) * 16777619u;
    l->n++;
}

Test(simcity_props, a_game_replayed_from_its_seed_and_decisions_emits_the_same_events)
{
    static struct sc_game g, r;
    static struct sc_decision log[MAX_POINTS][SC_MAX_PLAYERS];
    static unsigned pend[MAX_POINTS];
    for (int p = 2; p <= SC_MAX_PLAYERS; p += 2) {
        struct log a = {0, 2166136261u}, b = {0, 2166136261u};
        struct sc_events ea = {record, &a}, eb = {record, &b};
        cr_assert_eq(sc_new(&g, &scat, p, 4242, 0), SC_OK);
        struct bot bots[SC_MAX_PLAYERS];
        for (int s = 0; s < p; s++)
            bot_init(&bots[s], BOT_GREEDY, (uint64_t)s);
        int n = 0;
        while (!sc_over(&g)) {
            pend[n] = g.pending;
            for (int s = 0; s < p; s++)
                if (sc_bot_decide(&bots[s], &g, s, &log[n][s]))
                    cr_assert_eq(sc_submit(&g, s, &log[n][s]), SC_OK);
            cr_assert(sc_resolve(&g, &ea));
            n++;
        }
        cr_assert_eq(sc_new(&r, &scat, p, 4242, 0), SC_OK);
        for (int i = 0; i < n; i++) {
            cr_assert_eq(r.pending, pend[i]);
            for (int s = 0; s < p; s++)
                if (pend[i] & (1u << s))
                    cr_assert_eq(sc_submit(&r, s, &log[i][s]), SC_OK);
            cr_assert(sc_resolve(&r, &eb));
        }
        cr_assert_eq(memcmp(&g, &r, sizeof g), 0);
        cr_expect_eq(a.n, b.n);
        cr_expect_eq(a.hash, b.hash);
        cr_expect_gt(a.n, 100);
    }
}

/* The scan's reading of a play (sc_each_play's options and scores) agrees with tracing the
 * city: for every design of the deck at every cell, the same check result and mode, and for a
 * legal block the same score by source. Sampled at play points of greedy games. */
static void scan_agrees(const struct sc_game *before, const struct sc_game *g)
{
    (void)before;
    if (sc_over(g) || g->step != SC_STEP_PLAY || g->turn % 3 != 0)
        return;
    static struct sc_scan scan;
    sc_scan_city(g, &scan);
    for (int k = 0; k < scat.ndesigns; k++) {
        const struct sc_design *d = &scat.designs[k];
        int card = -1;
        for (int c = 0; c < g->ncards && card < 0; c++)
            card = g->cat->card_design[c] == k ? c : -1;
        for (int y = -1; y <= g->side; y++)
            for (int x = -1; x <= g->side; x++) {
                int slow_mode = -1, fast_mode = -1;
                int slow = sc_card_check(g, d, x, y, &slow_mode, NULL);
                int fast = sc_card_check(g, d, x, y, &fast_mode, &scan);
                cr_assert_eq(fast, slow, "seed %llu turn %d: %s at %d,%d: scan says %s, trace %s",
                             (unsigned long long)g->seed, g->turn, d->name, x, y,
                             sc_error_code(fast), sc_error_code(slow));
                if (slow != SC_OK)
                    continue;
                cr_assert_eq(fast_mode, slow_mode, "%s at %d,%d: mode", d->name, x, y);
                if (d->kind != SC_KIND_BLOCK || card < 0)
                    continue;
                struct sc_score a, b;
                sc_score_with(g, card, x, y, &a, &scan);
                sc_score_with(g, card, x, y, &b, NULL);
                cr_assert(memcmp(&a, &b, sizeof a) == 0,
                          "seed %llu turn %d: %s at %d,%d scores %d by the scan, %d traced "
                          "(zone %d/%d, bonus %d/%d, coverage %d/%d, complex %d/%d)",
                          (unsigned long long)g->seed, g->turn, d->name, x, y, a.total, b.total,
                          a.zone, b.zone, a.bonus, b.bonus, a.coverage, b.coverage, a.complex,
                          b.complex);
            }
    }
}

Test(simcity_props, the_scan_reads_every_play_as_tracing_the_city_does)
{
    static struct sc_game g;
    const int greedy[6] = {1, 1, 1, 1, 1, 1}, mixed[6] = {1, 0, 1, 0, 1, 0};
    for (int p = 2; p <= SC_MAX_PLAYERS; p += 2)
        for (uint64_t seed = 1; seed <= 2; seed++)
            play(&g, p, seed * 104729 + (uint64_t)p, seed == 1 ? greedy : mixed, 0, scan_agrees);
}

/* The replay viewer's rounds (ruleset_replay_rounds), one entry per round in order, even for
 * rounds in which no seat had anything to decide (every turn drew and passed by itself): such a
 * round shows the game as its decisions left it, like the round before it. */
/* The lowest cell of cell q's network of service svc in scan s (its name whatever its number),
 * or -1 when q is in none. */
static int net_name(const struct sc_scan *s, int svc, int q)
{
    int k = s->net[svc][q], low = SC_CELLS;
    if (k == SC_NONE)
        return -1;
    for (int j = s->first[svc][k]; j < s->first[svc][k + 1]; j++)
        low = s->netcells[svc][j] < low ? s->netcells[svc][j] : low;
    return low;
}

/* The on-demand parts a kept scan carries from earlier positions (each cell's reach, the zones
 * of each key, their most and each cell's zone bonus) are the ones fresh from the city: NULL,
 * or what differs. */
static const char *kept_parts_differ(const struct sc_game *g, struct sc_scan *kept,
                                     struct sc_scan *fresh)
{
    SC_FOR_CELLS(g, q)
    {
        if (kept->reach[q] >= 0 && kept->reach[q] != sc_scan_reach(g, fresh, q))
            return "a cell's reach";
    }
    for (int key = 0; key < SC_ZONE_KEYS; key++) {
        if (!(kept->zone_done >> key & 1u))
            continue;
        int most = kept->zone_most[key], fresh_most = sc_scan_zone_most(g, fresh, key);
        if (most >= 0 && most != fresh_most) /* (fresh's zones of key are worked out now) */
            return "a key's largest zones";
        SC_FOR_CELLS(g, q)
        {
            int a = kept->zone[key][q], b = fresh->zone[key][q];
            if ((a == SC_NONE) != (b == SC_NONE) ||
                (a != SC_NONE && kept->zone_size[key][a] != fresh->zone_size[key][b]))
                return "zones";
            if (sc_scan_zone(g, kept, key, q) != sc_scan_zone(g, fresh, key, q))
                return "a cell's zone";
            if (kept->zone_bonus[key][q] >= 0 &&
                kept->zone_bonus[key][q] != sc_scan_zone_bonus(g, fresh, key, q))
                return "a cell's zone bonus";
        }
    }
    return NULL;
}

/* The scan a position keeps (brought on from the last position's one step at a time,
 * sc_scan_update()) is the one scanning the city gives: the same blocks, candidate cells,
 * providers, adders and remote members, and the same networks with the same sims and power
 * providers, whatever their numbers; and what it kept of its on-demand parts (reach, zones) is
 * what the city gives now. Checked after every point. */
static void kept_scan_agrees(const struct sc_game *before, const struct sc_game *g)
{
    (void)before;
    static struct sc_scan fresh;
    struct sc_scan *kept = sc_position_scan(g);
    sc_scan_city(g, &fresh);
    const char *what = kept_parts_differ(g, kept, &fresh);
    if (what)
        ;
    else if (kept->nblocks != fresh.nblocks || memcmp(kept->blocks, fresh.blocks, fresh.nblocks))
        what = "blocks";
    else if (kept->ncands != fresh.ncands || memcmp(kept->cands, fresh.cands, fresh.ncands))
        what = "candidate cells";
    else if (kept->nadders != fresh.nadders || memcmp(kept->adders, fresh.adders, fresh.nadders))
        what = "adders";
    else if (kept->nremotes != fresh.nremotes ||
             memcmp(kept->remotes, fresh.remotes, fresh.nremotes))
        what = "remote members";
    else if (kept->min_crime != fresh.min_crime)
        what = "the lowest crime";
    for (int k = 0; k < SC_COVER_COUNT && !what; k++)
        if (kept->nproviders[k] != fresh.nproviders[k] ||
            memcmp(kept->providers[k], fresh.providers[k], fresh.nproviders[k]))
            what = "providers";
    for (int svc = 0; svc < SC_SVC_COUNT && !what; svc++)
        SC_FOR_CELLS(g, q)
        {
            int a = net_name(kept, svc, q), b = net_name(&fresh, svc, q);
            if (a != b)
                what = "networks";
            else if (a >= 0 &&
                     kept->sims[svc][kept->net[svc][q]] != fresh.sims[svc][fresh.net[svc][q]])
                what = "a network's sims";
            else if (a >= 0 && svc == SC_SVC_POWER &&
                     kept->power_providers[kept->net[svc][q]] !=
                         fresh.power_providers[fresh.net[svc][q]])
                what = "a network's power providers";
            else if (a >= 0 && kept->first[svc][kept->net[svc][q] + 1] -
                                       kept->first[svc][kept->net[svc][q]] !=
                                   fresh.first[svc][fresh.net[svc][q] + 1] -
                                       fresh.first[svc][fresh.net[svc][q]])
                what = "a network's cells";
            if (what)
                break;
        }
    cr_assert_null(what, "seed %llu turn %d: the kept scan's %s differ from a fresh scan's",
                   (unsigned long long)g->seed, g->turn, what);
}

Test(simcity_props, the_kept_scan_is_the_scan_of_the_city)
{
    static struct sc_game g;
    const int greedy[6] = {1, 1, 1, 1, 1, 1}, mixed[6] = {1, 0, 1, 0, 1, 0};
    for (int p = 1; p <= SC_MAX_PLAYERS; p++)
        for (uint64_t seed = 1; seed <= 6; seed++)
            play(&g, p, seed * 7919 + (uint64_t)p, seed % 2 ? greedy : mixed, 0, kept_scan_agrees);
}

Test(simcity_props, a_replay_read_round_by_round_lists_every_round)
{
    const struct ruleset *rs = ruleset_find("simcity");
    cr_assert_not_null(rs);
    char path[4096], err[256] = "";
    const char *root = getenv("CITY_ROOT");
    snprintf(path, sizeof path, "%s/cards/simcity.json", root && *root ? root : ".");
    cr_assert(rs->load_cards(path, err, (int)sizeof err), "%s", err);
    static struct sc_game g;
    int skipped = 0;
    for (int p = 2; p <= SC_MAX_PLAYERS; p++)
        for (uint64_t seed = 1; seed <= 12; seed++) {
            char buf[24];
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)(seed * 7 + (uint64_t)p));
            json_t *replay = json_pack("{s:s, s:i, s:[]}", "seed", buf, "players", p, "decisions");
            json_t *decisions = json_object_get(replay, "decisions");
            cr_assert(rs->new_game(&g, p, seed * 7 + (uint64_t)p, NULL));
            long long last = 0;
            while (!rs->over(&g)) {
                for (int s = 0; s < p; s++) {
                    struct sc_decision d;
                    if (rs->pending(&g, s) &&
                        rs->bot_decide(&g, s, s % 2 ? "random" : "greedy", &d))
                        cr_assert_eq(rs->submit(&g, s, &d), 0);
                }
                if (!rs->ready(&g))
                    rs->fill_defaults(&g, NULL);
                struct rs_pos pos;
                rs->where(&g, &pos);
                skipped += pos.round > last + 1;
                last = pos.round;
                for (int s = 0; s < p; s++)
                    if (rs->pending(&g, s)) {
                        json_t *o = rs->order_to_json(&pos, rs->decision(&g, s));
                        cr_assert_not_null(o);
                        json_object_set_new(o, "seat", json_integer(s));
                        json_array_append_new(decisions, o);
                    }
                cr_assert(rs->resolve(&g, NULL));
            }
            json_t *rounds = ruleset_replay_rounds(rs, replay, err, sizeof err);
            cr_assert_not_null(rounds, "%s", err);
            size_t n = json_array_size(rounds);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(
                    json_integer_value(json_object_get(json_array_get(rounds, i), "round")),
                    (long long)i, "players %d seed %llu: entry %zu names round %lld", p,
                    (unsigned long long)seed, i,
                    json_integer_value(json_object_get(json_array_get(rounds, i), "round")));
            json_t *final = rs->public_view(&g);
            cr_assert(json_equal(json_object_get(json_array_get(rounds, n - 1), "view"), final),
                      "players %d: the last round is the final view", p);
            json_decref(final);
            json_decref(rounds);
            json_decref(replay);
        }
    cr_expect_gt(skipped, 0, "no game had a round without a decision: the test proves nothing");
}
