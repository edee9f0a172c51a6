/* expert.c: the expert bot, information-set Monte Carlo tree search over the ruleset table; see
 * expert.h. */
#include "expert.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct expert_params expert_defaults = {
    .iterations = 1000, .think_ms = 100, .rollout = "greedy", .candidates = 0};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The search's random stream: the game's seed, the position and the seat (splitmix64-mixed by
 * rng_seed), so that a decision does not depend on anything hidden from the seat. */
static void search_rng(const struct ruleset *rs, const void *g, int seat, struct city_rng *r)
{
    struct rs_pos pos;
    rs->where(g, &pos);
    uint64_t k = rs->seed(g) ^ 0x9e3779b97f4a7c15ULL;
    k = k * 31 + (uint64_t)(uint32_t)pos.round;
    k = k * 31 + (uint64_t)(uint32_t)pos.step;
    k = k * 31 + (uint64_t)(uint32_t)pos.turn;
    k = k * 31 + (uint64_t)(uint32_t)seat;
    rng_seed(r, k);
}

/* Plays game g out to its end: every seat that must decide asks bot `kind`; a point whose
 * decisions a bot cannot complete gets the rules' defaults. */
static void playout(const struct ruleset *rs, void *g, const char *kind, void *d)
{
    for (int guard = 0; guard < 100000 && !rs->over(g); guard++) {
        int n = rs->players(g);
        for (int s = 0; s < n; s++) {
            if (!rs->pending(g, s) || rs->submitted(g, s))
                continue;
            memset(d, 0, rs->decision_size);
            if (rs->bot_decide(g, s, kind, d))
                rs->submit(g, s, d);
        }
        if (!rs->ready(g))
            rs->fill_defaults(g, NULL);
        if (!rs->resolve(g, NULL))
            break;
    }
}

/* The seat's reward for a finished game: its share of the win, plus a little for its margin
 * over the best other seat (so that a lost game lost narrowly counts for something). */
static double reward(const struct ruleset *rs, const void *g, int seat)
{
    unsigned w = rs->winners(g);
    int n = rs->players(g), mine = rs->score(g, seat), best = -1000000, k = 0;
    for (int s = 0; s < n; s++) {
        k += (w >> s) & 1u;
        if (s != seat && rs->score(g, s) > best)
            best = rs->score(g, s);
    }
    double share = (w >> seat) & 1u ? 1.0 / (k ? k : 1) : 0.0;
    double margin = n > 1 ? tanh((double)(mine - best) / 8.0) : tanh((double)mine / 30.0);
    return 0.9 * share + 0.05 * (1.0 + margin);
}

/* The best of the `nc` candidates but `skip` (-1: none) that were tried: by the best mean reward
 * when `by_mean` (paired playouts), else the most visited, the better mean among equals. -1 when
 * there is none. */
static int best_of(int nc, const int *visits, const double *sum, int skip, bool by_mean)
{
    int b = -1;
    for (int i = 0; i < nc; i++) {
        if (i == skip || !visits[i])
            continue;
        double m = sum[i] / visits[i];
        if (b < 0 ||
            (by_mean ? m > sum[b] / visits[b]
                     : visits[i] > visits[b] || (visits[i] == visits[b] && m > sum[b] / visits[b])))
            b = i;
    }
    return b;
}

/* The estimate of a candidate tried `visits` times with the sums of its wins and scores. */
static struct expert_estimate estimate(int visits, double wins, double scores)
{
    struct expert_estimate e = {.playouts = visits};
    if (visits > 0) {
        e.win = wins / visits;
        e.score = scores / visits;
    }
    return e;
}

/* The seat's share of the win in a finished game (a tie shared): 0..1. */
static double win_share(const struct ruleset *rs, const void *g, int seat)
{
    unsigned w = rs->winners(g);
    int k = 0;
    for (int s = 0; s < rs->players(g); s++)
        k += (w >> s) & 1u;
    return (w >> seat) & 1u ? 1.0 / (k ? k : 1) : 0.0;
}

bool expert_decide(const struct ruleset *rs, const void *g, int seat, const struct expert_params *p,
                   void *d, struct expert_stats *stats)
{
    return expert_decide_why(rs, g, seat, p, d, stats, NULL);
}

bool expert_decide_why(const struct ruleset *rs, const void *g, int seat,
                       const struct expert_params *p, void *d, struct expert_stats *stats,
                       struct expert_why *why)
{
    if (why) {
        why->has_runner_up = false;
        why->best = why->runner = (struct expert_estimate){0};
    }
    double t0 = now_ms();
    if (rs->over(g) || !rs->pending(g, seat))
        return false;
    int want = p->candidates > 0 ? p->candidates : 24;
    if (p->candidates <= 0 && rs->expert_candidates)
        want = rs->expert_candidates(rs->players(g));
    if (want > EXPERT_MAX_CAND)
        want = EXPERT_MAX_CAND;
    size_t ds = rs->decision_size;
    char *cand = calloc((size_t)EXPERT_MAX_CAND + 1, ds);
    void *det = malloc(rs->state_size), *scratch = malloc(ds);
    if (!cand || !det || !scratch) {
        free(cand);
        free(det);
        free(scratch);
        return rs->bot_decide(g, seat, "greedy", d);
    }
    struct city_rng rng;
    search_rng(rs, g, seat, &rng);

    /* Candidates: the game's own (rs->expert_options), or the greedy bot's choice, then what the
     * random bot picks in other deals of the hidden cards; each kept once and only if it is
     * legal in the real game. */
    int nc = 0;
    if (rs->expert_options) {
        int n = rs->expert_options(g, seat, cand, want);
        for (int i = 0; i < n; i++) {
            memcpy(det, g, rs->state_size);
            if (rs->submit(det, seat, cand + (size_t)i * ds) != 0)
                continue;
            if (nc != i)
                memcpy(cand + (size_t)nc * ds, cand + (size_t)i * ds, ds);
            nc++;
        }
    }
    bool given = nc > 0;
    for (int tries = 0; !given && tries < 4 * want && nc < want; tries++) {
        void *c = cand + (size_t)nc * ds;
        memset(c, 0, ds);
        memcpy(det, g, rs->state_size);
        bool ok;
        if (tries == 0) {
            ok = rs->bot_decide(det, seat, "greedy", c);
        } else {
            rs->determinize(det, seat, &rng);
            ok = rs->bot_decide(det, seat, "random", c);
            memcpy(det, g, rs->state_size);
        }
        ok = ok && rs->submit(det, seat, c) == 0;
        for (int j = 0; ok && j < nc; j++)
            ok = memcmp(cand + (size_t)j * ds, c, ds) != 0;
        if (ok)
            nc++;
    }
    if (nc == 0) {
        free(cand);
        free(det);
        free(scratch);
        return rs->bot_decide(g, seat, "greedy", d);
    }

    double sum[EXPERT_MAX_CAND] = {0}, wins[EXPERT_MAX_CAND] = {0}, scores[EXPERT_MAX_CAND] = {0};
    int visits[EXPERT_MAX_CAND] = {0}, it = 0;
    double paused = 0;
    const char *kind = p->rollout && strcmp(p->rollout, "expert") != 0 ? p->rollout : "random";
    /* The game's own candidates are few and good: each deal of the hidden cards is played out
     * from every one of them in turn (paired: the deal's luck falls on all alike), and the best
     * mean wins. Otherwise UCB1 over the candidates, a fresh deal each playout. */
    int choice = -1;
    void *deal = given && nc > 1 ? malloc(rs->state_size) : NULL;
    while (nc > 1 && deal) {
        bool stop = false;
        memcpy(deal, g, rs->state_size);
        rs->determinize(deal, seat, &rng);
        for (int i = 0; i < nc && !stop; i++) {
            if (p->iterations > 0 && it >= p->iterations)
                stop = true;
            if (p->yield)
                paused += p->yield(p->yield_ctx);
            if (p->think_ms > 0 && now_ms() - t0 - paused >= p->think_ms)
                stop = true;
            if (p->iterations <= 0 && p->think_ms <= 0)
                stop = true;
            if (stop)
                break;
            memcpy(det, deal, rs->state_size);
            it++;
            if (rs->submit(det, seat, cand + (size_t)i * ds) != 0)
                continue; /* cannot happen: the seat's own cards are the same in every deal */
            playout(rs, det, kind, scratch);
            sum[i] += reward(rs, det, seat);
            wins[i] += win_share(rs, det, seat);
            scores[i] += rs->score(det, seat);
            visits[i]++;
        }
        if (stop)
            break;
    }
    if (deal) {
        free(deal);
        choice = 0;
        for (int i = 1; i < nc; i++)
            if (visits[i] && (!visits[choice] || sum[i] / visits[i] > sum[choice] / visits[choice]))
                choice = i;
    }
    while (nc > 1 && !given) {
        if (p->iterations > 0 && it >= p->iterations)
            break;
        if (p->yield)
            paused += p->yield(p->yield_ctx);
        if (p->think_ms > 0 && now_ms() - t0 - paused >= p->think_ms)
            break;
        if (p->iterations <= 0 && p->think_ms <= 0)
            break;
        /* UCB1: every candidate once, then the best upper bound. */
        int pick = -1;
        double best = -1;
        for (int i = 0; i < nc; i++) {
            double ucb =
                visits[i] ? sum[i] / visits[i] + 0.7 * sqrt(log((double)it) / visits[i]) : 1e9 - i;
            if (ucb > best) {
                best = ucb;
                pick = i;
            }
        }
        memcpy(det, g, rs->state_size);
        rs->determinize(det, seat, &rng);
        if (rs->submit(det, seat, cand + (size_t)pick * ds) != 0) {
            visits[pick]++; /* cannot happen: the seat's own cards are the same in every deal */
            it++;
            continue;
        }
        playout(rs, det, kind, scratch);
        sum[pick] += reward(rs, det, seat);
        wins[pick] += win_share(rs, det, seat);
        scores[pick] += rs->score(det, seat);
        visits[pick]++;
        it++;
    }
    bool paired = choice >= 0;
    if (!paired) { /* the most visited (UCB1), the better mean among equals */
        choice = best_of(nc, visits, sum, -1, false);
        if (choice < 0)
            choice = 0;
    }
    memcpy(d, cand + (size_t)choice * ds, ds);
    if (why) {
        why->best = estimate(visits[choice], wins[choice], scores[choice]);
        int second = best_of(nc, visits, sum, choice, paired);
        if (second >= 0 && visits[second] > 0) {
            why->has_runner_up = true;
            why->runner = estimate(visits[second], wins[second], scores[second]);
            memcpy(why->runner_up, cand + (size_t)second * ds, ds);
        }
    }
    if (stats) {
        stats->iterations = it;
        stats->candidates = nc;
        stats->ms = now_ms() - t0 - paused;
        stats->yield_ms = paused;
    }
    free(cand);
    free(det);
    free(scratch);
    return true;
}

bool expert_is_slow_bot(const char *kind)
{
    return kind && strcmp(kind, "expert") == 0;
}
