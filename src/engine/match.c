/* match.c: bot-against-bot matches of any ruleset through its table alone (see match.h): who
 * wins, by seat and by bot kind with seats rotated, and how long each kind takes to decide. */
#include "match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expert.h"

enum { MATCH_MAX_KINDS = 8 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n sorted values. */
static double quantile(const double *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

struct kind_times {
    char name[16];
    double *ms;
    size_t n, cap;
    double wins; /* shares of games won by seats of this kind */
    int seats;   /* seat-games played by this kind */
};

static bool add_time(struct kind_times *k, double ms)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 1024;
        double *m = realloc(k->ms, cap * sizeof *m);
        if (!m)
            return false;
        k->ms = m;
        k->cap = cap;
    }
    k->ms[k->n++] = ms;
    return true;
}

json_t *ruleset_match(const struct ruleset *rs, int players, long long games, uint64_t seed,
                      const char *bots, char *err, int errlen)
{
    char copy[256], *names[RS_MAX_SEATS];
    int nk = 0;
    if (!bots || strlen(bots) >= sizeof copy) {
        snprintf(err, (size_t)errlen, "--bots must be a comma list of bot kinds");
        return NULL;
    }
    strcpy(copy, bots);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (nk >= RS_MAX_SEATS || !ruleset_has_bot(rs, t)) {
            snprintf(err, (size_t)errlen, "--bots: \"%.20s\" is not a bot of %s, or too many", t,
                     rs->id);
            return NULL;
        }
        names[nk++] = t;
    }
    if (nk != 1 && nk != players) {
        snprintf(err, (size_t)errlen, "--bots must name one kind, or one per seat (%d)", players);
        return NULL;
    }
    struct kind_times kt[MATCH_MAX_KINDS] = {0};
    int nkt = 0, seat_kind[RS_MAX_SEATS];
    for (int s = 0; s < players; s++) {
        const char *nm = names[nk == 1 ? 0 : s];
        int k = 0;
        while (k < nkt && strcmp(kt[k].name, nm) != 0)
            k++;
        if (k == nkt)
            snprintf(kt[nkt++].name, sizeof kt[0].name, "%s", nm);
        seat_kind[s] = k;
    }
    void *g = malloc(rs->state_size), *d = malloc(rs->decision_size);
    double built[64] = {0}, in_winners[64] = {0};
    struct rs_sim_tally t = {.players = players};
    bool per_card = rs->built_designs && rs->design_id;
    bool ok = g && d;
    for (long long n = 0; ok && n < games; n++) {
        /* Kinds rotate over the seats from game to game: each kind plays each seat. */
        int rot = (int)(n % players);
        ok = rs->new_game(g, players, seed + (uint64_t)n, NULL);
        for (int guard = 0; ok && guard < 100000 && !rs->over(g); guard++) {
            for (int s = 0; ok && s < players; s++) {
                if (!rs->pending(g, s) || rs->submitted(g, s))
                    continue;
                struct kind_times *k = &kt[seat_kind[(s + rot) % players]];
                memset(d, 0, rs->decision_size);
                double t0 = now_ms();
                bool decided = rs->bot_decide(g, s, k->name, d);
                ok = add_time(k, now_ms() - t0);
                if (decided && rs->submit(g, s, d) != 0) {
                    snprintf(err, (size_t)errlen, "a %s bot made an illegal decision (seed %llu)",
                             k->name, (unsigned long long)(seed + (uint64_t)n));
                    ok = false;
                }
            }
            if (ok && !rs->ready(g))
                rs->fill_defaults(g, NULL);
            ok = ok && rs->resolve(g, NULL);
        }
        if (!ok)
            break;
        struct rs_pos pos;
        rs->where(g, &pos);
        t.games++;
        t.finished += rs->over(g);
        t.rounds_sum += pos.round;
        if (n == 0 || pos.round < t.min_rounds)
            t.min_rounds = pos.round;
        if (pos.round > t.max_rounds)
            t.max_rounds = pos.round;
        unsigned w = rs->winners(g);
        int nw = __builtin_popcount(w);
        if (per_card) {
            uint64_t any = 0;
            for (int s = 0; s < players; s++) {
                uint64_t b = rs->built_designs(g, s);
                any |= b;
                if ((w >> s) & 1u)
                    for (uint64_t m = b; m; m &= m - 1)
                        in_winners[__builtin_ctzll(m)] += 1.0 / nw;
            }
            for (uint64_t m = any; m; m &= m - 1)
                built[__builtin_ctzll(m)] += 1;
        }
        for (int s = 0; s < players; s++) {
            struct kind_times *k = &kt[seat_kind[(s + rot) % players]];
            k->seats++;
            if ((w >> s) & 1u) {
                t.wins[s] += 1.0 / nw;
                k->wins += 1.0 / nw;
            }
        }
    }
    json_t *out = NULL;
    if (ok) {
        json_t *dms = json_object();
        for (int k = 0; k < nkt; k++) {
            qsort(kt[k].ms, kt[k].n, sizeof *kt[k].ms, by_value);
            ruleset_sim_kind(&t, kt[k].name, kt[k].wins, kt[k].seats);
            json_object_set_new(
                dms, kt[k].name,
                json_pack("{s:f, s:f, s:f, s:I}", "p50", quantile(kt[k].ms, kt[k].n, 0.5), "p99",
                          quantile(kt[k].ms, kt[k].n, 0.99), "max",
                          kt[k].n ? kt[k].ms[kt[k].n - 1] : 0.0, "decisions", (json_int_t)kt[k].n));
        }
        out = ruleset_sim_report(&t, seed, bots);
        json_object_set_new(out, "decision_ms", dms);
        json_object_set_new(out, "think_ms", json_real(expert_defaults.think_ms));
        if (per_card)
            json_object_update_new(out,
                                   ruleset_sim_cards(rs->design_id, 64, built, in_winners, games));
    }
    for (int k = 0; k < nkt; k++)
        free(kt[k].ms);
    free(g);
    free(d);
    return out;
}
