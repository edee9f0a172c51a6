/* ruleset.c: the registry of the games this server hosts, and the helpers every ruleset shares
 * (positions as JSON and as keys, descriptions, a generic replay); see ruleset.h. */
#include "ruleset.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"

/* The registry: the one file outside the games' folders that names them. The first is the
 * default game, and also the game of what was stored before there were several (records and
 * rows that name none; migration 0006 gave those rows its id): it stays first. */
extern const struct ruleset ruleset_the_city, ruleset_tech_city, ruleset_simcity;

const struct ruleset *const rulesets[] = {&ruleset_the_city, &ruleset_tech_city, &ruleset_simcity,
                                          NULL};

const struct ruleset *ruleset_find(const char *id)
{
    for (int i = 0; id && rulesets[i]; i++)
        if (strcmp(rulesets[i]->id, id) == 0)
            return rulesets[i];
    return NULL;
}

int rs_name_index(const char *const *list, const char *name)
{
    for (int i = 0; name && list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return i;
    return -1;
}

const char *rs_name_at(const char *const *list, int i, const char *other)
{
    for (int k = 0; i >= 0 && list[k]; k++)
        if (k == i)
            return list[k];
    return other;
}

int ruleset_step_from_name(const struct ruleset *rs, const char *name)
{
    return rs_name_index(rs->steps, name);
}

const char *ruleset_step_name(const struct ruleset *rs, int step)
{
    return rs_name_at(rs->steps, step, "?");
}

bool ruleset_has_bot(const struct ruleset *rs, const char *name)
{
    return rs_name_index(rs->bots, name) >= 0;
}

json_t *ruleset_private_view(const struct ruleset *rs, const void *g, int seat)
{
    json_t *v = rs->private_view(g, seat);
    json_t *pending = json_object_get(v, "pending");
    if (!json_is_object(pending))
        return v;
    void *d = calloc(1, rs->decision_size);
    if (d && rs->bot_decide(g, seat, "greedy", d)) {
        struct rs_pos pos;
        rs->where(g, &pos);
        json_t *order = rs->order_to_json(&pos, d);
        if (order)
            json_object_set_new(pending, "suggestion", order);
    }
    free(d);
    return v;
}

json_t *ruleset_pos_json(const struct ruleset *rs, const struct rs_pos *pos)
{
    json_t *j =
        json_pack("{s:i, s:s}", "round", pos->round, "step", ruleset_step_name(rs, pos->step));
    if (rs->uses_turn)
        json_object_set_new(j, "turn", json_integer(pos->turn));
    return j;
}

void ruleset_pos_text(const struct ruleset *rs, const struct rs_pos *pos, char *buf, size_t n)
{
    if (rs->uses_turn)
        snprintf(buf, n, "round %d, step %s, turn %d", pos->round, ruleset_step_name(rs, pos->step),
                 pos->turn);
    else
        snprintf(buf, n, "round %d, step %s", pos->round, ruleset_step_name(rs, pos->step));
}

void ruleset_pos_key(const struct ruleset *rs, const struct rs_pos *pos, char *buf, size_t n)
{
    if (rs->uses_turn)
        snprintf(buf, n, "%d/%s/%d", pos->round, ruleset_step_name(rs, pos->step), pos->turn);
    else
        snprintf(buf, n, "%d/%s", pos->round, ruleset_step_name(rs, pos->step));
}

static json_t *string_list(const char *const *names)
{
    json_t *a = json_array();
    for (int i = 0; names[i]; i++)
        json_array_append_new(a, json_string(names[i]));
    return a;
}

const struct rs_range *ruleset_option_range(const struct ruleset *rs, int i, int players)
{
    assert(i >= 0 && i < rs->noptions && players >= 0 && players <= RS_MAX_SEATS);
    return &rs->options[i].by_players[players];
}

const char *ruleset_read_options(const struct ruleset *rs, int players, const json_t *body,
                                 int *values, char *err, int errlen)
{
    for (int i = 0; i < rs->noptions; i++) {
        const struct rs_option *o = &rs->options[i];
        const struct rs_range *r = ruleset_option_range(rs, i, players);
        const json_t *v = json_object_get(body, o->name);
        values[i] = r->def;
        if (!v || json_is_null(v))
            continue;
        char range[80];
        if (r->min == r->max)
            snprintf(range, sizeof range, "%d", r->min);
        else
            snprintf(range, sizeof range, "from %d to %d", r->min, r->max);
        if (!json_is_integer(v)) {
            snprintf(err, (size_t)errlen, "\"%s\" (%s) must be an integer %s at %d seats.", o->name,
                     o->title, range, players);
            return "wrong_type";
        }
        json_int_t x = json_integer_value(v);
        if (x < r->min || x > r->max) {
            snprintf(err, (size_t)errlen,
                     "\"%s\" (%s) must be %s at %d seats (default %d); leave it out for the "
                     "default.",
                     o->name, o->title, range, players, r->def);
            return "bad_value";
        }
        values[i] = (int)x;
    }
    return NULL;
}

json_t *ruleset_options_json(const struct ruleset *rs, const void *g)
{
    json_t *o = json_object();
    for (int i = 0; i < rs->noptions; i++)
        json_object_set_new(o, rs->options[i].name, json_integer(rs->option(g, i)));
    return o;
}

const char *const ruleset_service_events[] = {"created", "joined", "started",    "submitted",
                                              "forced",  "left",   "taken_over", "cancelled",
                                              "expired", "bank",   NULL};

int ruleset_point_seconds(const struct ruleset *rs, int step, int turn_seconds)
{
    if (turn_seconds <= 0)
        return 0;
    int pct = rs->deadline_pct ? rs->deadline_pct[step] : 100;
    long long secs = ((long long)turn_seconds * pct + 50) / 100;
    return secs < 5 ? 5 : (int)secs;
}

json_t *ruleset_describe(const struct ruleset *rs)
{
    json_t *options = json_array();
    for (int i = 0; i < rs->noptions; i++) {
        const struct rs_option *o = &rs->options[i];
        json_t *by = json_array();
        for (int p = rs->min_players; p <= rs->max_players; p++) {
            const struct rs_range *r = ruleset_option_range(rs, i, p);
            json_array_append_new(by, json_pack("{s:i, s:i, s:i, s:i}", "players", p, "min", r->min,
                                                "max", r->max, "default", r->def));
        }
        json_array_append_new(options, json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", o->name,
                                                 "type", "integer", "title", o->title,
                                                 "description", o->description, "by_players", by));
    }
    json_t *events = string_list(ruleset_service_events), *own = string_list(rs->events);
    json_array_extend(events, own);
    json_decref(own);
    json_t *deadlines = json_array();
    for (int i = 0; rs->steps[i]; i++)
        if (strcmp(rs->steps[i], "over") != 0)
            json_array_append_new(
                deadlines, json_pack("{s:s, s:f}", "step", rs->steps[i], "share",
                                     (rs->deadline_pct ? rs->deadline_pct[i] : 100) / 100.0));
    return json_pack(
        "{s:s, s:s, s:i, s:i, s:o, s:o, s:b, s:o, s:{s:s, s:s, s:s}, s:{s:o, s:s, s:s}, s:o, s:o}",
        "id", rs->id, "title", rs->title, "min_players", rs->min_players, "max_players",
        rs->max_players, "bots", string_list(rs->bots), "steps", string_list(rs->steps), "turns",
        rs->uses_turn, "options", options, "score", "field", rs->scoring.field, "label",
        rs->scoring.label, "unit", rs->scoring.unit, "rank", "keys", string_list(rs->ranking.keys),
        "ties", rs->ranking.ties, "text", rs->ranking.text, "event_types", events, "deadlines",
        deadlines);
}

static bool fail(char *err, int errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
    return false;
}

bool ruleset_replay_generic(const struct ruleset *rs, const json_t *replay, void *g, char *err,
                            int errlen)
{
    if (!json_is_object(replay))
        return fail(err, errlen,
                    "a replay must be a JSON object {\"seed\", \"players\", \"decisions\"}.");
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)(uintptr_t)replay, key, value)
    {
        if (strcmp(key, "game") == 0 && json_is_string(value) &&
            strcmp(json_string_value(value), rs->id) == 0)
            continue;
        bool option = false;
        char names[120] = "";
        for (int i = 0; i < rs->noptions; i++) {
            option = option || strcmp(rs->options[i].name, key) == 0;
            snprintf(names + strlen(names), sizeof names - strlen(names), ", %s",
                     rs->options[i].name);
        }
        if (!option && strcmp(key, "seed") != 0 && strcmp(key, "players") != 0 &&
            strcmp(key, "decisions") != 0)
            return fail(err, errlen,
                        "unknown replay field \"%.40s\"; a replay has seed, players%s and "
                        "decisions.",
                        key, names);
    }
    const json_t *js = json_object_get(replay, "seed");
    uint64_t seed = 0;
    if (json_is_string(js)) {
        char *end;
        const char *s = json_string_value(js);
        errno = 0;
        seed = strtoull(s, &end, 10);
        if (*s < '0' || *s > '9' || *end || errno == ERANGE)
            return fail(err, errlen, "replay field \"seed\" must be a string of decimal digits.");
    } else if (json_is_integer(js) && json_integer_value(js) >= 0) {
        seed = (uint64_t)json_integer_value(js);
    } else {
        return fail(err, errlen, "replay field \"seed\" is missing or not a number.");
    }
    const json_t *jp = json_object_get(replay, "players");
    if (!json_is_integer(jp) || json_integer_value(jp) < rs->min_players ||
        json_integer_value(jp) > rs->max_players)
        return fail(err, errlen, "replay field \"players\" must be an integer from %d to %d.",
                    rs->min_players, rs->max_players);
    int values[RS_MAX_OPTIONS];
    char bad[200];
    if (ruleset_read_options(rs, (int)json_integer_value(jp), replay, values, bad, sizeof bad))
        return fail(err, errlen, "replay field %s", bad);
    if (!rs->new_game(g, (int)json_integer_value(jp), seed, values))
        return fail(err, errlen, "the replay's players or options cannot start a game.");
    const json_t *decisions = json_object_get(replay, "decisions");
    if (!json_is_array(decisions))
        return fail(err, errlen, "replay field \"decisions\" must be an array.");
    _Alignas(max_align_t) char buf[4096];
    void *d = rs->decision_size <= sizeof buf ? buf : NULL;
    if (!d)
        return fail(err, errlen, "decisions of this game are too large to replay.");
    size_t i;
    json_t *dj;
    json_array_foreach(decisions, i, dj)
    {
        json_t *order = json_deep_copy(dj);
        json_t *jseat = json_object_get(order, "seat");
        int seat = json_is_integer(jseat) ? (int)json_integer_value(jseat) : -1;
        json_object_del(order, "seat");
        json_object_del(order, "default");
        struct rs_pos pos, now;
        char why[256];
        const char *code = rs->order_from_json(order, &pos, d, why, sizeof why);
        json_decref(order);
        if (seat < 0 || seat >= rs->players(g))
            return fail(err, errlen, "decisions[%zu].seat must be a seat of the game.", i);
        if (code)
            return fail(err, errlen, "decisions[%zu]: %s", i, why);
        rs->where(g, &now);
        if (rs->over(g) || pos.round != now.round || pos.step != now.step ||
            (rs->uses_turn && pos.turn != now.turn))
            return fail(err, errlen, "decisions[%zu] is not for the game's current step.", i);
        int e = rs->submit(g, seat, d);
        if (e)
            return fail(err, errlen, "decisions[%zu] was refused: %s", i, rs->error_message(e));
        if (rs->ready(g))
            rs->resolve(g, NULL);
    }
    return true;
}

/* The round a recorded decision names (0 when it names none: its replay then says why). */
static long long round_of(const json_t *decision)
{
    return json_integer_value(json_object_get(decision, "round"));
}

json_t *ruleset_replay_rounds(const struct ruleset *rs, const json_t *replay, char *err, int errlen)
{
    const json_t *decisions = json_object_get(replay, "decisions");
    if (!json_is_array(decisions)) {
        fail(err, errlen, "replay field \"decisions\" must be an array.");
        return NULL;
    }
    void *g = malloc(rs->state_size);
    json_t *cut = json_copy((json_t *)(uintptr_t)replay); /* shallow: shares the decisions */
    json_t *rounds = json_array();
    json_t *prefix = json_array();
    bool ok = g && cut && rounds && prefix && json_object_set(cut, "decisions", prefix) == 0;
    size_t n = json_array_size(decisions), i = 0;
    /* Entry 0 is the game once its setup point (round 0) is decided, or as it begins; entry
     * for round r is the state after every decision of rounds <= r: the game as round r has
     * ended (the next round's first point, or the end). A round without decisions (SimCity:
     * every turn drew and passed by itself) gets the same state as the round before it. */
    long long r = 0;
    while (ok) {
        while (ok && i < n && round_of(json_array_get(decisions, i)) <= r)
            ok = json_array_append(prefix, json_array_get(decisions, i++)) == 0;
        ok = ok && rs->replay_run(cut, g, err, errlen);
        json_t *view = ok ? rs->public_view(g) : NULL;
        long long next = i < n ? round_of(json_array_get(decisions, i)) : r + 1;
        for (long long q = r; ok && q < next; q++)
            ok = view && json_array_append_new(
                             rounds, json_pack("{s:I, s:O}", "round", q, "view", view)) == 0;
        json_decref(view);
        if (i >= n)
            break;
        r = next; /* greater than r: the loop took the rest */
    }
    free(g);
    json_decref(cut);
    json_decref(prefix);
    if (!ok) {
        json_decref(rounds);
        return NULL;
    }
    return rounds;
}

void ruleset_redeal(uint8_t *const *places, const int *counts, int n, uint64_t *seed,
                    struct city_rng *stream, struct city_rng *rng)
{
    bool hidden[RS_MAX_CARDS] = {false};
    for (int p = 0; p < n; p++)
        for (int i = 0; i < counts[p]; i++)
            hidden[places[p][i]] = true;
    uint8_t pool[RS_MAX_CARDS];
    int k = 0;
    for (int id = 0; id < RS_MAX_CARDS; id++)
        if (hidden[id])
            pool[k++] = (uint8_t)id;
    rng_shuffle(rng, pool, k);
    k = 0;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < counts[p]; i++)
            places[p][i] = pool[k++];
    *seed = rng_next(rng);
    rng_seed(stream, rng_next(rng));
}

void ruleset_sim_kind(struct rs_sim_tally *t, const char *kind, double wins, long long seat_games)
{
    int k = 0;
    while (k < t->nkinds && strcmp(t->kind[k], kind) != 0)
        k++;
    if (k == t->nkinds) {
        if (k >= RS_MAX_SEATS)
            return;
        t->kind[t->nkinds++] = kind;
    }
    t->kind_wins[k] += wins;
    t->kind_seat_games[k] += seat_games;
}

json_t *ruleset_sim_report(const struct rs_sim_tally *t, uint64_t seed, const char *bots)
{
    double games = t->games > 0 ? (double)t->games : 1.0;
    json_t *ws = json_array(), *byk = json_object();
    for (int s = 0; s < t->players; s++)
        json_array_append_new(ws, json_real(t->wins[s] / games));
    /* share: of all games' wins, what this kind's seats took; per_seat: per seat it held (1/P
     * is an even match). */
    for (int k = 0; k < t->nkinds; k++)
        json_object_set_new(
            byk, t->kind[k],
            json_pack("{s:f, s:f, s:I}", "share", t->kind_wins[k] / games, "per_seat",
                      t->kind_seat_games[k] ? t->kind_wins[k] / (double)t->kind_seat_games[k] : 0.0,
                      "seat_games", (json_int_t)t->kind_seat_games[k]));
    return json_pack("{s:i, s:I, s:I, s:I, s:s, s:f, s:i, s:i, s:o, s:o}", "players", t->players,
                     "games", (json_int_t)t->games, "finished", (json_int_t)t->finished, "seed",
                     (json_int_t)seed, "bots", bots, "avg_rounds", (double)t->rounds_sum / games,
                     "min_rounds", t->games ? t->min_rounds : 0, "max_rounds", t->max_rounds,
                     "wins_by_seat", ws, "wins_by_kind", byk);
}

json_t *ruleset_u64_json(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return json_string(buf);
}

bool ruleset_u64_from_json(const json_t *v, bool integer_ok, uint64_t *out)
{
    if (integer_ok && json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            return false;
        *out = (uint64_t)json_integer_value(v);
        return true;
    }
    const char *s = json_string_value(v);
    if (!s || !*s || json_string_length(v) > 20)
        return false;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned digit = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - digit) / 10)
            return false;
        x = x * 10 + digit;
    }
    *out = x;
    return true;
}

bool ruleset_parse_bots(const char *spec, int players, int (*from_name)(const char *name),
                        int *kinds)
{
    char copy[256];
    if (!spec || strlen(spec) >= sizeof copy)
        return false;
    strcpy(copy, spec);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int k = from_name(tok);
        if (k < 0 || n >= RS_MAX_SEATS)
            return false;
        kinds[n++] = k;
    }
    if (n == 1)
        for (int s = 1; s < players; s++)
            kinds[s] = kinds[0];
    else if (n != players)
        return false;
    return true;
}

bool ruleset_sim_args(const struct ruleset *rs, int players, long long games, const char *bots,
                      int (*from_name)(const char *name), int *kinds, char *err, int errlen)
{
    if (games < 1) {
        snprintf(err, (size_t)errlen, "--games must be at least 1");
        return false;
    }
    if (players < rs->min_players || players > rs->max_players) {
        snprintf(err, (size_t)errlen, "--players must be %d..%d", rs->min_players, rs->max_players);
        return false;
    }
    if (!ruleset_parse_bots(bots, players, from_name, kinds)) {
        snprintf(err, (size_t)errlen,
                 "--bots must be greedy, random or a comma list of one per seat");
        return false;
    }
    return true;
}

json_t *ruleset_sim_report_seats(const struct rs_sim_seats *run, uint64_t seed, const char *bots)
{
    struct rs_sim_tally t = {.players = run->players,
                             .games = run->games,
                             .finished = run->games,
                             .rounds_sum = run->rounds_sum,
                             .min_rounds = run->min_rounds,
                             .max_rounds = run->max_rounds};
    for (int s = 0; s < run->players; s++) {
        t.wins[s] = run->wins[s];
        ruleset_sim_kind(&t, bot_kind_name(run->kinds[s]), run->wins[s], run->games);
    }
    return ruleset_sim_report(&t, seed, bots);
}

json_t *ruleset_sim_cards(const char *(*design_id)(int), int ndesigns, const double *built,
                          const double *in_winners, long long games)
{
    double n = games > 0 ? (double)games : 1.0;
    json_t *cards = json_array();
    int most = -1, least = -1;
    for (int d = 0; d < ndesigns; d++) {
        if (!design_id(d))
            continue;
        json_array_append_new(cards, json_pack("{s:s, s:f, s:f}", "card", design_id(d), "built",
                                               built[d] / n, "in_winners", in_winners[d] / n));
        if (most < 0 || in_winners[d] > in_winners[most])
            most = d;
        if (least < 0 || built[d] < built[least])
            least = d;
    }
    json_t *out = json_object();
    json_object_set_new(out, "cards", cards);
    if (most >= 0) {
        json_object_set_new(
            out, "most_in_winners",
            json_pack("{s:s, s:f}", "card", design_id(most), "share", in_winners[most] / n));
        json_object_set_new(
            out, "least_built",
            json_pack("{s:s, s:f}", "card", design_id(least), "share", built[least] / n));
    }
    return out;
}

const char *rs_error_code(const struct rs_error *errors, int n, int err)
{
    return err >= 0 && err < n ? errors[err].code : "unknown_error";
}

const char *rs_error_message(const struct rs_error *errors, int n, int err)
{
    return err >= 0 && err < n ? errors[err].message : "Unknown error.";
}

bool ruleset_cards_has(const uint8_t *cards, int n, int card)
{
    for (int i = 0; i < n; i++)
        if (cards[i] == card)
            return true;
    return false;
}

bool ruleset_cards_remove(uint8_t *cards, uint8_t *n, int card)
{
    for (int i = 0; i < *n; i++)
        if (cards[i] == card) {
            memmove(&cards[i], &cards[i + 1], (size_t)(*n - i - 1));
            (*n)--;
            return true;
        }
    return false;
}

bool ruleset_sim_legal(bool illegal, uint64_t illegal_seed, char *err, int errlen)
{
    if (illegal)
        snprintf(err, (size_t)errlen, "a bot made an illegal decision (seed %llu)",
                 (unsigned long long)illegal_seed);
    return !illegal;
}

unsigned ruleset_withdraw(unsigned pending, uint8_t *submitted, uint8_t *defaulted, int seat)
{
    unsigned sent = pending & *submitted & ~(1u << seat);
    *submitted = (uint8_t)(*submitted & ~sent);
    *defaulted = (uint8_t)(*defaulted & ~sent);
    return sent;
}

unsigned ruleset_defaults_due(unsigned pending, uint8_t *submitted, uint8_t *defaulted)
{
    unsigned due = pending & ~(unsigned)*submitted;
    *submitted = (uint8_t)(*submitted | due);
    *defaulted = (uint8_t)(*defaulted | due);
    return due;
}

void ruleset_mark_sent(uint8_t *submitted, uint8_t *defaulted, int seat)
{
    *submitted = (uint8_t)(*submitted | (1u << seat));
    *defaulted = (uint8_t)(*defaulted & ~(1u << seat));
}

bool ruleset_cards_tally(uint8_t *seen, int ncards, const uint8_t *cards, int n, int *total)
{
    for (int i = 0; i < n; i++) {
        if (cards[i] >= ncards || seen[cards[i]]++)
            return false;
        (*total)++;
    }
    return true;
}

/* A seat's value of ranking key `key` in the public view's seats[] (0 when missing). */
static double rank_value(const json_t *seat, const char *key)
{
    const json_t *v = json_object_get(seat, key);
    return json_is_number(v) ? json_number_value(v) : 0;
}

int ruleset_places(const struct ruleset *rs, const void *g, int *places, int *scores)
{
    json_t *view = rs->public_view(g);
    const json_t *seats = json_object_get(view, "seats");
    int n = rs->players(g);
    for (int s = 0; s < n; s++) {
        const json_t *me = json_array_get(seats, (size_t)s);
        int better = 0;
        for (int o = 0; o < n; o++) {
            const json_t *other = json_array_get(seats, (size_t)o);
            for (int k = 0; rs->ranking.keys[k]; k++) {
                double a = rank_value(me, rs->ranking.keys[k]);
                double b = rank_value(other, rs->ranking.keys[k]);
                if (a != b) {
                    better += b > a;
                    break;
                }
            }
        }
        places[s] = 1 + better;
        if (scores)
            scores[s] = (int)rank_value(me, rs->ranking.keys[0]);
    }
    json_decref(view);
    return n;
}
