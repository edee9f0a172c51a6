/* test_secrecy.c: the secrecy audit of the reliability suite. Whole games (2 to 5 seats,
 * several people and some bots each, with surveys, hand_limit discards, replaced orders, steps
 * forced by the host and illegal orders) are played through the HTTP API while the test reads
 * the true engine state from PostgreSQL (games.state, loaded with city_from_json() and the real
 * catalog) before and after every request, so it knows where every card instance is at that
 * moment.
 *
 * Every response is audited: the public view, the lobby, each seat's hand view, the create,
 * join, order and resolve replies, the event log page by page and as Server-Sent Events, the
 * replay and every problem reply. Each is walked field by field and every field is classified
 * as a card instance id, a card name (design slug), the seed, or plain data; a field the audit
 * does not know fails it, so a new field cannot carry cards unnoticed. Then, under rules.md
 * ("Hidden information"):
 *   - a card instance id must be visible to its requester: tableaux and the contractor pool
 *     (and the contractors removed at setup) to anyone, a hand (its survey draw and its
 *     pending order included) to its holder only, the deck and the discard pile to no one;
 *   - card names must be exactly the public truth (tableaux, the last reveal, built events),
 *     so a hidden card cannot travel under its design's name; a plain field must never hold
 *     a card name, and no seat sees another seat's order before the reveal;
 *   - the seed and the replay appear only once the game is finished;
 *   - during step survey, the cards a survey drew (the surveyor's hand after the reveal less
 *     its hand before) reach the surveyor only, and the cards paid at a reveal go face down;
 *   - an order naming another seat's card is refused exactly like one naming a card of the
 *     deck, the discard pile or a tableau (no oracle for where a card lies), changing nothing;
 *   - only known headers are sent, and no reply to a token may be kept by a shared cache;
 *   - in games whose people are accounts (signed in, their session tokens acting for their
 *     seats), the same holds for each account's seat, an account with no seat in the game reads
 *     no hand (403), and no reply carries a session token or a password hash (sign-in's own
 *     reply, the one place a session token is told, is checked apart);
 *   - table talk: the watchers' channel reaches no seat while the game runs (its own test).
 * GET requests must leave the stored game exactly as it was. Appends
 * secrecy_responses_scanned, secrecy_card_ids_checked, secrecy_card_names_checked,
 * secrecy_probes and secrecy_games to $CITY_COUNTS. */
#include <pthread.h>

#include "../client.h"
#include "../helpers.h"

#include "the_city/city_json.h"

static struct daemon d;
static char db[512];
static struct city_catalog cat;
static PGconn *pg; /* the test's own connection to the game database: the truth */

static struct {
    long responses, card_ids, card_names, probes, games, account_games;
    long people_surveys, people_hand_limits, forced, replaced, drawn, paid, doubles;
} counts;

static void up(void)
{
    db_create(db, sizeof db);
    /* The account games sign up and in a few times from one address. */
    daemon_start(&d, db, "--allow-seed --signin-burst 1000 --account-signin-burst 1000");
    client_base = d.base;
    load_catalog(&cat);
    pg = PQconnectdb(db);
    cr_assert(PQstatus(pg) == CONNECTION_OK, "cannot connect to %s: %s", db, PQerrorMessage(pg));
    /* client.h's whole-game helpers play without auditing; this file has its own. */
    (void)create;
    (void)play_to_end;
}

static void down(void)
{
    if (pg)
        PQfinish(pg);
    pg = NULL;
    daemon_stop(&d);
}

TestSuite(secrecy, .init = up, .fini = down, .timeout = 90);

/* ---- the truth ---------------------------------------------------------------------------- */

struct truth {
    char status[16];
    long long last_seq;
    struct city_game g;
};

/* Reads game `id` as stored: its status, newest event and engine state (secrets included). */
static void truth_read(const char *id, struct truth *t)
{
    memset(t, 0, sizeof *t);
    const char *vals[] = {id};
    PGresult *r = PQexecParams(pg, "SELECT status, state::text, last_seq FROM games WHERE id = $1",
                               1, NULL, vals, NULL, NULL, 0);
    cr_assert(PQresultStatus(r) == PGRES_TUPLES_OK, "reading game %s: %s", id,
              PQresultErrorMessage(r));
    cr_assert_eq(PQntuples(r), 1, "game %s is not in the database", id);
    snprintf(t->status, sizeof t->status, "%s", PQgetvalue(r, 0, 0));
    t->last_seq = atoll(PQgetvalue(r, 0, 2));
    json_error_t jerr;
    json_t *j = json_loads(PQgetvalue(r, 0, 1), 0, &jerr);
    PQclear(r);
    cr_assert_not_null(j, "game %s: the stored state is not JSON: %s", id, jerr.text);
    char err[300];
    bool ok = city_from_json(&t->g, &cat, j, err, sizeof err);
    json_decref(j);
    cr_assert(ok, "game %s: the stored state does not load: %s", id, err);
}

static bool truth_same(const struct truth *a, const struct truth *b)
{
    return strcmp(a->status, b->status) == 0 && a->last_seq == b->last_seq &&
           memcmp(&a->g, &b->g, sizeof a->g) == 0;
}

static bool finished(const struct truth *t)
{
    return strcmp(t->status, "finished") == 0;
}

static const char *slug_of(int card)
{
    return cat.designs[cat.card_design[card]].id;
}

/* Where card `card` is, in words, for failure messages. */
static const char *where(const struct truth *t, int card, char *buf, size_t n)
{
    int seat, pos;
    static const char *const places[] = {
        "nowhere",         "in the deck",  "in the discard pile",
        "in a hand",       "in a tableau", "in the contractor pool",
        "removed at setup"};
    enum place p = locate(&t->g, card, &seat, &pos);
    if (p == AT_HAND || p == AT_TABLEAU)
        snprintf(buf, n, "%s of seat %d", places[p], seat);
    else
        snprintf(buf, n, "%s", places[p]);
    return buf;
}

/* True when requester `who` (a seat, or -1 for anyone) may see card instance `card` now. */
static bool may_see(const struct truth *t, int who, int card)
{
    if (!t)
        return false;
    int seat, pos;
    switch (locate(&t->g, card, &seat, &pos)) {
    case AT_TABLEAU:
    case AT_POOL:
    case AT_REMOVED:
        return true;
    case AT_HAND:
        return who >= 0 && seat == who;
    default:
        return false; /* the deck, the discard pile */
    }
}

static char *seed_text(const struct truth *t, char *buf, size_t n)
{
    snprintf(buf, n, "%llu", (unsigned long long)t->g.seed);
    return buf;
}

/* What the last reveal made secret, besides where cards lie: during step survey, the cards
 * each surveying seat drew (by[card] = seat + 1), which only that seat may see. */
static struct {
    int round;
    bool open; /* a survey step with tracked draws is under way */
    uint8_t by[CITY_DECK_SIZE];
} drawn;

/* Called with the truth before and after each request: when the request resolved a build step,
 * notes what each surveying seat drew (the hand after less the hand before) and checks that
 * the cards paid went face down. */
static void track_reveal(const struct truth *b, const struct truth *a)
{
    char wbuf[96];
    if (drawn.open && (a->g.round != drawn.round || a->g.step != CITY_STEP_SURVEY)) {
        memset(drawn.by, 0, sizeof drawn.by);
        drawn.open = false;
    }
    if (b->g.step != CITY_STEP_BUILD || (a->g.round == b->g.round && a->g.step == CITY_STEP_BUILD))
        return; /* no build step resolved */
    bool reshuffled = a->g.reshuffles != b->g.reshuffles;
    for (int s = 0; s < a->g.players; s++) {
        const struct city_seat *sb = &b->g.seats[s], *sa = &a->g.seats[s];
        if ((sa->reveal.kind == CITY_DEC_BUILD || sa->reveal.kind == CITY_DEC_BUILD_TWO) &&
            sb->submitted)
            for (int k = 0; k < sb->order.nbuilds; k++)
                for (int i = 0; i < sb->order.builds[k].npay; i++) {
                    int c = sb->order.builds[k].pay[i], seat, pos;
                    enum place p = locate(&a->g, c, &seat, &pos);
                    /* Face down; or reshuffled, and perhaps drawn already (a survey, income). */
                    cr_assert(p == AT_DISCARD || (reshuffled && (p == AT_DECK || p == AT_HAND)),
                              "card %d paid by seat %d in round %d is %s after the reveal", c, s,
                              b->g.round, where(a, c, wbuf, sizeof wbuf));
                    counts.paid++;
                }
        if (sa->reveal.kind != CITY_DEC_SURVEY || !sa->drew || a->g.step != CITY_STEP_SURVEY ||
            a->g.round != b->g.round)
            continue;
        int n = 0;
        for (int i = 0; i < sa->nhand; i++) {
            bool had = false;
            for (int j = 0; j < sb->nhand && !had; j++)
                had = sb->hand[j] == sa->hand[i];
            if (!had) {
                drawn.by[sa->hand[i]] = (uint8_t)(s + 1);
                n++;
            }
        }
        cr_assert_eq(n, sa->drew, "seat %d drew %d cards in its survey, its hand grew by %d", s,
                     sa->drew, n);
        counts.drawn += n;
        drawn.round = a->g.round;
        drawn.open = true;
    }
}

/* ---- what each field of each reply is ---------------------------------------------------- */

enum cls {
    F_PLAIN,       /* not about cards: counts, names, flags, steps */
    F_CARD,        /* a card instance id: must be visible to the requester */
    F_NAME,        /* a card design's slug: checked against the public truth */
    F_SEED,        /* the game's seed: only once finished */
    F_REPLAY_CARD, /* a card instance id in the replay: only once finished */
    F_OWN_DEFAULT, /* a card a default discarded for the requester: only it, from the pile */
};

struct field {
    const char *path; /* keys joined by '.', "[]" for array elements */
    enum cls cls;
};

static const struct field view_fields[] = {
    {"id", F_PLAIN},
    {"game", F_PLAIN},
    {"bot_level", F_PLAIN},
    {"private", F_PLAIN},
    {"rated", F_PLAIN},
    {"ratings[].seat", F_PLAIN},
    {"ratings[].player", F_PLAIN},
    {"ratings[].mu", F_PLAIN},
    {"ratings[].sigma", F_PLAIN},
    {"ratings[].ordinal", F_PLAIN},
    {"ratings[].change", F_PLAIN},
    {"status", F_PLAIN},
    {"players", F_PLAIN},
    {"round", F_PLAIN},
    {"step", F_PLAIN},
    {"target_vp", F_PLAIN},
    {"deck_count", F_PLAIN},
    {"discard_count", F_PLAIN},
    {"contractors_left", F_PLAIN},
    {"winners[]", F_PLAIN},
    {"ended_by", F_PLAIN},
    {"turn_seconds", F_PLAIN},
    {"deadline", F_PLAIN},
    {"step_deadline", F_PLAIN},
    {"time_bank_seconds", F_PLAIN},
    {"last_seq", F_PLAIN},
    {"seed", F_SEED},
    {"seats[].seat", F_PLAIN},
    {"seats[].name", F_PLAIN},
    {"seats[].bot", F_PLAIN},
    {"seats[].presence", F_PLAIN},
    {"seats[].bank_seconds", F_PLAIN},
    {"seats[].vp", F_PLAIN},
    {"seats[].hand_count", F_PLAIN},
    {"seats[].tableau[].card", F_NAME},
    {"seats[].tableau[].vp", F_PLAIN},
    {"seats[].tableau[].income", F_PLAIN},
    {"seats[].round_vp", F_PLAIN},
    {"seats[].income", F_PLAIN},
    {"seats[].submitted", F_PLAIN},
    {"seats[].pending", F_PLAIN},
    {"seats[].last.action", F_PLAIN},
    {"seats[].last.built[]", F_NAME},
    {"seats[].last.paid", F_PLAIN},
    {"seats[].last.default", F_PLAIN},
    {"seats[].vp_by_round[]", F_PLAIN},
    {NULL, F_PLAIN},
};

static const struct field list_fields[] = {
    {"next", F_PLAIN}, /* the lobby's cursor: where its next page begins (a listed game) */
    {"games[].id", F_PLAIN},
    {"games[].game", F_PLAIN},
    {"games[].status", F_PLAIN},
    {"games[].players", F_PLAIN},
    {"games[].target_vp", F_PLAIN},
    {"games[].turn_seconds", F_PLAIN},
    {"games[].round", F_PLAIN},
    {"games[].created_at", F_PLAIN},
    {"games[].seats_free", F_PLAIN},
    {"games[].names[]", F_PLAIN},
    {"games[].bots[]", F_PLAIN},
    {"games[].options.target_vp", F_PLAIN},
    {NULL, F_PLAIN},
};

static const struct field hand_fields[] = {
    {"seat", F_PLAIN},
    {"id", F_PLAIN},
    {"game", F_PLAIN},
    {"bot_level", F_PLAIN},
    {"status", F_PLAIN},
    {"hand[].id", F_CARD},
    {"hand[].card", F_NAME},
    {"pending", F_PLAIN}, /* null */
    {"pending.round", F_PLAIN},
    {"pending.step", F_PLAIN},
    {"pending.options.discard", F_PLAIN},
    {"pending.options.builds[].id", F_CARD},
    {"pending.options.builds[].card", F_NAME},
    {"pending.options.builds[].cost", F_PLAIN},
    {"pending.options.builds[].pay[]", F_CARD},
    {"pending.options.builds[].vp", F_PLAIN},
    {"pending.options.builds[].income", F_PLAIN},
    {"pending.options.unbuildable[].id", F_CARD},
    {"pending.options.unbuildable[].card", F_NAME},
    {"pending.options.unbuildable[].reason", F_PLAIN},
    {"pending.options.unbuildable[].needs[]", F_NAME},
    {"pending.options.contractor", F_PLAIN},
    {"pending.options.double", F_PLAIN},
    {"pending.options.doubles[].builds[].id", F_CARD},
    {"pending.options.doubles[].builds[].card", F_NAME},
    {"pending.options.doubles[].builds[].cost", F_PLAIN},
    {"pending.options.doubles[].builds[].pay[]", F_CARD},
    {"pending.options.doubles[].vp", F_PLAIN},
    {"pending.options.doubles[].income", F_PLAIN},
    {"pending.options.survey_score.vp", F_PLAIN},
    {"pending.options.survey_score.income", F_PLAIN},
    {"pending.options.contractor_score", F_PLAIN}, /* null */
    {"pending.options.contractor_score.vp", F_PLAIN},
    {"pending.options.contractor_score.income", F_PLAIN},
    /* The suggestion is an order of the requester's own: its cards must be ones it may see. */
    {"pending.suggestion.round", F_PLAIN},
    {"pending.suggestion.step", F_PLAIN},
    {"pending.suggestion.discard[]", F_CARD},
    {"pending.suggestion.build.card", F_CARD},
    {"pending.suggestion.build.pay[]", F_CARD},
    {"pending.suggestion.builds[].card", F_CARD},
    {"pending.suggestion.builds[].pay[]", F_CARD},
    {"pending.suggestion.contractor", F_PLAIN},
    {"pending.suggestion.survey", F_PLAIN},
    {"order.round", F_PLAIN},
    {"order.step", F_PLAIN},
    {"order.discard[]", F_CARD},
    {"order.build.card", F_CARD},
    {"order.build.pay[]", F_CARD},
    {"order.builds[].card", F_CARD},
    {"order.builds[].pay[]", F_CARD},
    {"order.contractor", F_PLAIN},
    {"order.survey", F_PLAIN},
    {"defaulted", F_PLAIN}, /* null */
    {"defaulted.round", F_PLAIN},
    {"defaulted.step", F_PLAIN},
    {"defaulted.reason", F_PLAIN},
    {"defaulted.by", F_PLAIN},
    {"defaulted.chosen.round", F_PLAIN},
    {"defaulted.chosen.step", F_PLAIN},
    {"defaulted.chosen.survey", F_PLAIN},
    {"defaulted.chosen.discard[]", F_OWN_DEFAULT},
    {"defaulted.cards[].id", F_OWN_DEFAULT},
    {"defaulted.cards[].card", F_NAME},
    {NULL, F_PLAIN},
};

static const struct field page_fields[] = {{"last_seq", F_PLAIN}, {NULL, F_PLAIN}};

static const struct field event_fields[] = {
    {"seq", F_PLAIN},    {"type", F_PLAIN},         {"players", F_PLAIN},
    {"seat", F_PLAIN},   {"name", F_PLAIN},         {"bot", F_PLAIN},
    {"round", F_PLAIN},  {"step", F_PLAIN},         {"decision", F_PLAIN},
    {"count", F_PLAIN},  {"hand_count", F_PLAIN},   {"card", F_NAME},
    {"paid", F_PLAIN},   {"drew", F_PLAIN},         {"deck_count", F_PLAIN},
    {"points", F_PLAIN}, {"vp", F_PLAIN},           {"cards", F_PLAIN},
    {"needed", F_PLAIN}, {"available", F_PLAIN},    {"winners[]", F_PLAIN},
    {"by", F_PLAIN},     {"seats[]", F_PLAIN},      {"game", F_PLAIN},
    {"used", F_PLAIN},   {"bank_seconds", F_PLAIN}, {NULL, F_PLAIN},
};

/* The keys each event type of The City may carry besides seq and type (openapi.yaml,
 * ServiceEvent and the_city.Event). */
static const struct {
    const char *type, *keys;
} event_keys[] = {
    {"created", " players game "},
    {"joined", " seat name bot "},
    {"started", " players "},
    {"submitted", " seat round step "},
    {"step", " round step "},
    {"forced", " round step by seats "},
    {"bank", " seat round step used bank_seconds "},
    {"default", " seat round step decision by "},
    {"discarded", " seat round step count hand_count "},
    {"built", " seat round step card paid "},
    {"contractor", " seat round step card "},
    {"surveyed", " seat round step drew hand_count "},
    {"reshuffled", " round step deck_count "},
    {"scored", " seat round step points vp "},
    {"income", " seat round step cards hand_count "},
    {"no_income", " round step needed available "},
    {"game_over", " round step winners vp "},
};

static const struct field order_fields[] = {
    {"accepted", F_PLAIN},  {"round", F_PLAIN},       {"step", F_PLAIN},
    {"resolved", F_PLAIN},  {"game.status", F_PLAIN}, {"game.round", F_PLAIN},
    {"game.step", F_PLAIN}, {NULL, F_PLAIN},
};

static const struct field join_fields[] = {
    {"seat", F_PLAIN},   {"token", F_PLAIN},   {"id", F_PLAIN},
    {"status", F_PLAIN}, {"account", F_PLAIN}, {NULL, F_PLAIN},
};

static const struct field create_fields[] = {
    {"id", F_PLAIN},      {"game", F_PLAIN},         {"host_token", F_PLAIN},
    {"seats", F_PLAIN},   {"bots", F_PLAIN},         {"target_vp", F_PLAIN},
    {"join", F_PLAIN},    {"turn_seconds", F_PLAIN}, {"time_bank_seconds", F_PLAIN},
    {"seat", F_PLAIN},    {"token", F_PLAIN},        {"status", F_PLAIN},
    {"private", F_PLAIN}, {"bot_level", F_PLAIN},    {"options.target_vp", F_PLAIN},
    {"account", F_PLAIN}, {"rated", F_PLAIN},        {NULL, F_PLAIN},
};

static const struct field problem_fields[] = {
    {"type", F_PLAIN},   {"title", F_PLAIN}, {"status", F_PLAIN},
    {"detail", F_PLAIN}, {"code", F_PLAIN},  {NULL, F_PLAIN},
};

static const struct field replay_fields[] = {
    {"game", F_PLAIN},
    {"seed", F_SEED},
    {"players", F_PLAIN},
    {"target_vp", F_PLAIN},
    {"decisions[].seat", F_PLAIN},
    {"decisions[].default", F_PLAIN},
    {"decisions[].round", F_PLAIN},
    {"decisions[].step", F_PLAIN},
    {"decisions[].discard[]", F_REPLAY_CARD},
    {"decisions[].build.card", F_REPLAY_CARD},
    {"decisions[].build.pay[]", F_REPLAY_CARD},
    {"decisions[].builds[].card", F_REPLAY_CARD},
    {"decisions[].builds[].pay[]", F_REPLAY_CARD},
    {"decisions[].contractor", F_PLAIN},
    {"decisions[].survey", F_PLAIN},
    {NULL, F_PLAIN},
};

/* ---- walking a reply ------------------------------------------------------------------------ */

struct scan {
    const struct field *fields;
    const struct truth *before; /* NULL when the game did not exist yet */
    const struct truth *after;
    int who; /* the requester's seat, -1 for anyone */
    const char *what;
};

static enum cls classify(const struct scan *sc, const char *path)
{
    for (const struct field *f = sc->fields; f->path; f++)
        if (strcmp(f->path, path) == 0)
            return f->cls;
    cr_assert_fail("%s: the field \"%s\" is not known to the secrecy audit; classify it in "
                   "tests/reliability/test_secrecy.c (card id, card name, seed or plain data)",
                   sc->what, path);
    return F_PLAIN;
}

static void leaf(const struct scan *sc, const char *path, json_t *v)
{
    char buf[128], seed[24];
    enum cls c = classify(sc, path);
    switch (c) {
    case F_CARD:
    case F_REPLAY_CARD: {
        json_int_t x = json_integer_value(v);
        cr_assert(json_is_integer(v) && x >= 0 && x < CITY_DECK_SIZE,
                  "%s: %s is not a card instance id", sc->what, path);
        int card = (int)x;
        counts.card_ids++;
        if (c == F_REPLAY_CARD) {
            cr_assert(finished(sc->after), "%s: %s names card %d before the game is finished",
                      sc->what, path, card);
            break;
        }
        cr_assert(!drawn.by[card] || drawn.by[card] - 1 == sc->who,
                  "%s: %s shows card %d (%s), which seat %d drew in its survey", sc->what, path,
                  card, slug_of(card), drawn.by[card] - 1);
        cr_assert(may_see(sc->before, sc->who, card) || may_see(sc->after, sc->who, card),
                  "%s: %s shows card %d (%s), which is %s", sc->what, path, card, slug_of(card),
                  where(sc->after, card, buf, sizeof buf));
        break;
    }
    case F_OWN_DEFAULT: { /* a seat's own hand view only; the cards it was made to discard */
        json_int_t x = json_integer_value(v);
        cr_assert(json_is_integer(v) && x >= 0 && x < CITY_DECK_SIZE,
                  "%s: %s is not a card instance id", sc->what, path);
        int card = (int)x, seat, pos;
        counts.card_ids++;
        cr_assert(sc->who >= 0, "%s: %s shows a default's discards to a non-seat", sc->what, path);
        cr_assert(may_see(sc->after, sc->who, card) ||
                      locate(&sc->after->g, card, &seat, &pos) == AT_DISCARD,
                  "%s: %s shows card %d (%s), which is %s", sc->what, path, card, slug_of(card),
                  where(sc->after, card, buf, sizeof buf));
        break;
    }
    case F_NAME:
        cr_assert(json_is_string(v) && city_catalog_find(&cat, json_string_value(v)) >= 0,
                  "%s: %s is not a card name", sc->what, path);
        counts.card_names++;
        break;
    case F_SEED:
        cr_assert(finished(sc->after), "%s: %s publishes the seed before the game is finished",
                  sc->what, path);
        cr_assert_str_eq(json_string_value(v), seed_text(sc->after, seed, sizeof seed),
                         "%s: %s is not the game's seed", sc->what, path);
        break;
    case F_PLAIN:
        if (json_is_string(v)) {
            const char *s = json_string_value(v);
            cr_assert(city_catalog_find(&cat, s) < 0,
                      "%s: %s holds the card name \"%s\" in a field that is not a card's", sc->what,
                      path, s);
            if (!finished(sc->after))
                cr_assert(strcmp(s, seed_text(sc->after, seed, sizeof seed)) != 0,
                          "%s: %s holds the seed before the game is finished", sc->what, path);
        }
        break;
    }
}

static void walk(const struct scan *sc, json_t *v, char *path, size_t len, size_t cap)
{
    if (json_is_object(v)) {
        const char *key;
        json_t *x;
        json_object_foreach(v, key, x)
        {
            int n = snprintf(path + len, cap - len, "%s%s", len ? "." : "", key);
            cr_assert(n > 0 && len + (size_t)n < cap, "%s: a field path is too long", sc->what);
            walk(sc, x, path, len + (size_t)n, cap);
            path[len] = 0;
        }
    } else if (json_is_array(v)) {
        cr_assert(len + 3 < cap, "%s: a field path is too long", sc->what);
        memcpy(path + len, "[]", 3);
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) walk(sc, x, path, len + 2, cap);
        path[len] = 0;
    } else {
        leaf(sc, path, v);
    }
}

static void scan_json(const struct scan *sc, json_t *v)
{
    char path[256] = "";
    walk(sc, v, path, 0, sizeof path);
}

/* ---- what each reply must say -------------------------------------------------------------- */

static const char *action_of(int kind)
{
    static const char *const names[] = {[CITY_DEC_BUILD] = "build",
                                        [CITY_DEC_BUILD_TWO] = "build_two",
                                        [CITY_DEC_CONTRACTOR] = "contractor",
                                        [CITY_DEC_SURVEY] = "survey"};
    return kind > 0 && kind <= CITY_DEC_SURVEY ? names[kind] : NULL;
}

/* The public view says exactly the public truth: each tableau card by card, the last reveal,
 * the counts; never a hidden card by its name, nor what a seat chose before the reveal. */
static void check_public_view(json_t *v, const struct truth *t, const char *what)
{
    const struct city_game *g = &t->g;
    cr_assert_str_eq(str(v, "status"), t->status, "%s", what);
    cr_assert_eq(num(v, "round"), g->round, "%s", what);
    cr_assert_str_eq(str(v, "step"), city_step_name(g->step), "%s", what);
    cr_assert_eq(num(v, "deck_count"), g->ndeck, "%s", what);
    cr_assert_eq(num(v, "discard_count"), g->ndiscard, "%s", what);
    cr_assert_eq(num(v, "contractors_left"), g->npool, "%s", what);
    cr_assert_eq(json_object_get(v, "seed") != NULL, finished(t),
                 "%s: the seed must be published exactly when the game is finished", what);
    json_t *seats = json_object_get(v, "seats");
    cr_assert_eq(json_array_size(seats), g->players, "%s", what);
    for (int s = 0; s < g->players; s++) {
        const struct city_seat *seat = &g->seats[s];
        json_t *o = json_array_get(seats, (size_t)s);
        cr_assert_eq(num(o, "hand_count"), seat->nhand, "%s: seat %d", what, s);
        cr_assert_eq(json_is_true(json_object_get(o, "submitted")), seat->submitted, "%s: seat %d",
                     what, s);
        json_t *tab = json_object_get(o, "tableau");
        cr_assert_eq(json_array_size(tab), seat->ntableau, "%s: seat %d's tableau", what, s);
        for (int k = 0; k < seat->ntableau; k++)
            cr_assert_str_eq(str(json_array_get(tab, (size_t)k), "card"), slug_of(seat->tableau[k]),
                             "%s: seat %d's tableau[%d] is not the card it built", what, s, k);
        json_t *last = json_object_get(o, "last");
        const char *action = action_of(seat->reveal.kind);
        json_t *ja = json_object_get(last, "action");
        cr_assert(action ? json_is_string(ja) && strcmp(json_string_value(ja), action) == 0
                         : json_is_null(ja),
                  "%s: seat %d's last action is not its last revealed one (%s)", what, s,
                  action ? action : "none");
        json_t *built = json_object_get(last, "built");
        cr_assert_eq(json_array_size(built), seat->reveal.nbuilt, "%s: seat %d", what, s);
        for (int k = 0; k < seat->reveal.nbuilt; k++)
            cr_assert_str_eq(json_string_value(json_array_get(built, (size_t)k)),
                             slug_of(seat->reveal.built[k]), "%s: seat %d's last.built[%d]", what,
                             s, k);
        cr_assert_eq(num(last, "paid"), seat->reveal.paid, "%s: seat %d", what, s);
    }
}

/* A hand view shows exactly its holder's hand, options from that hand and its own order. */
static void check_hand_view(json_t *h, const struct truth *t, int seat, const char *what)
{
    const struct city_game *g = &t->g;
    const struct city_seat *s = &g->seats[seat];
    cr_assert_eq(num(h, "seat"), seat, "%s", what);
    cr_assert_str_eq(str(h, "status"), t->status, "%s", what);
    json_t *hand = json_object_get(h, "hand");
    cr_assert_eq(json_array_size(hand), s->nhand, "%s", what);
    for (int i = 0; i < s->nhand; i++) {
        json_t *c = json_array_get(hand, (size_t)i);
        cr_assert_eq(num(c, "id"), s->hand[i], "%s: hand[%d]", what, i);
        cr_assert_str_eq(str(c, "card"), slug_of(s->hand[i]), "%s: hand[%d]", what, i);
    }
    bool pending = strcmp(t->status, "open") != 0 && game_seat_pending(g, seat);
    json_t *p = json_object_get(h, "pending");
    cr_assert_eq(json_is_object(p), pending, "%s: pending", what);
    if (pending) {
        cr_assert_eq(num(p, "round"), g->round, "%s", what);
        cr_assert_str_eq(str(p, "step"), city_step_name(g->step), "%s", what);
        size_t i;
        json_t *b;
        json_array_foreach(json_object_get(json_object_get(p, "options"), "builds"), i, b)
        {
            long long id = num(b, "id");
            cr_assert(id >= 0 && id < CITY_DECK_SIZE, "%s", what);
            cr_assert_str_eq(str(b, "card"), slug_of((int)id), "%s: options.builds[%zu]", what, i);
        }
    }
    json_t *order = json_object_get(h, "order");
    bool has = s->submitted && game_seat_pending(g, seat);
    cr_assert_eq(order != NULL, has, "%s: the order is shown exactly while it is pending", what);
    if (has) {
        json_t *want = city_order_to_json(g->round, g->step, &s->order);
        cr_assert(json_equal(order, want), "%s: the order shown is not this seat's own", what);
        json_decref(want);
    }
}

/* ---- one game as the audit sees it ------------------------------------------------------- */

enum policy {
    P_PLAIN,   /* client.h's choose_order() */
    P_BUILDER, /* the dearest build, sometimes two, the contractor, now and then a survey */
    P_HOARDER, /* the contractor first, then surveys until the hand is big: hand_limit */
};

struct game {
    char id[64], host[80];
    int seats, humans;
    char tokens[CITY_MAX_PLAYERS][80];
    enum policy policy[CITY_MAX_PLAYERS];
    bool host_forces;
    uint64_t rng;
    struct truth cur;
    long long counted_seq;                              /* events counted into built_seen */
    int built_seen[CITY_MAX_PLAYERS][CITY_MAX_DESIGNS]; /* built and contractor events */
};

static char other_game_token[80]; /* a seat token of an earlier game, for wrong_game */

static int rnd(struct game *gm, int n)
{
    gm->rng ^= gm->rng << 13;
    gm->rng ^= gm->rng >> 7;
    gm->rng ^= gm->rng << 17;
    return (int)(gm->rng % (uint64_t)n);
}

/* Checks one event against the truth and, when it is the next in the log, counts what it
 * says was built into gm->built_seen. */
static void check_event(struct game *gm, json_t *ev, const struct scan *sc)
{
    struct scan es = *sc;
    es.fields = event_fields;
    scan_json(&es, ev);
    const char *type = str(ev, "type");
    cr_assert_not_null(type, "%s: an event without a type", sc->what);
    const char *keys = NULL;
    for (size_t i = 0; i < sizeof event_keys / sizeof *event_keys; i++)
        if (strcmp(event_keys[i].type, type) == 0)
            keys = event_keys[i].keys;
    cr_assert_not_null(keys, "%s: an event of unknown type \"%s\"", sc->what, type);
    const char *key;
    json_t *x;
    json_object_foreach(ev, key, x)
    {
        char k[64];
        snprintf(k, sizeof k, " %s ", key);
        cr_assert(strcmp(key, "seq") == 0 || strcmp(key, "type") == 0 || strstr(keys, k),
                  "%s: a \"%s\" event carries \"%s\"", sc->what, type, key);
    }
    long long seq = num(ev, "seq");
    cr_assert(seq >= 1 && seq <= sc->after->last_seq, "%s: event seq %lld", sc->what, seq);
    bool builds = strcmp(type, "built") == 0 || strcmp(type, "contractor") == 0;
    if (builds) {
        int seat = (int)num(ev, "seat");
        cr_assert(seat >= 0 && seat < sc->after->g.players, "%s", sc->what);
        int design = city_catalog_find(&cat, str(ev, "card"));
        if (strcmp(type, "contractor") == 0)
            cr_assert_eq(design, cat.contractor_design, "%s", sc->what);
        int have = 0;
        const struct city_seat *s = &sc->after->g.seats[seat];
        for (int k = 0; k < s->ntableau; k++)
            have += cat.card_design[s->tableau[k]] == design;
        cr_assert(have > 0, "%s: event %lld says seat %d built %s, which is not in its tableau",
                  sc->what, seq, seat, str(ev, "card"));
        if (seq == gm->counted_seq + 1) {
            gm->built_seen[seat][design]++;
            cr_assert_leq(gm->built_seen[seat][design], have,
                          "%s: more %s built by seat %d than its tableau holds", sc->what,
                          str(ev, "card"), seat);
        }
    }
    if (seq == gm->counted_seq + 1)
        gm->counted_seq = seq;
}

/* Audits a text/event-stream body: every message is one event of the log. */
static void scan_stream(struct game *gm, const char *body, const struct scan *sc)
{
    long long id = -1;
    for (const char *line = body; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            break; /* a message cut by the timeout */
        size_t n = (size_t)(end - line);
        if (n > 4 && strncmp(line, "id: ", 4) == 0) {
            id = atoll(line + 4);
        } else if (n > 6 && strncmp(line, "data: ", 6) == 0) {
            json_error_t err;
            json_t *ev = json_loadb(line + 6, n - 6, 0, &err);
            cr_assert_not_null(ev, "%s: data is not JSON: %.*s", sc->what, (int)n, line);
            cr_assert_eq(num(ev, "seq"), id, "%s: the message id is not the event's seq", sc->what);
            check_event(gm, ev, sc);
            json_decref(ev);
        } else {
            cr_assert(n == 0 || line[0] == ':' || strncmp(line, "event: ", 7) == 0 ||
                          strncmp(line, "retry: ", 7) == 0,
                      "%s: an unexpected stream line: %.*s", sc->what, (int)n, line);
        }
        line = end + 1;
    }
}

/* Only known headers, and nothing a seat's token fetched may sit in a shared cache. */
static void check_headers(const struct http_reply *r, bool with_token, const char *what)
{
    static const char *const known[] = {
        "content-type", "content-length", "cache-control", "x-content-type-options", "allow",
        "x-accel-buffering", "date", "connection", "transfer-encoding", "keep-alive",
        /* fixed values: the browser hardening and CORS */
        "content-security-policy", "x-frame-options", "referrer-policy",
        "access-control-allow-origin", "access-control-expose-headers", "vary",
        /* a number of seconds (429, 503) */
        "retry-after",
        /* static files: a hash and a date of a public file */
        "etag", "last-modified", "content-encoding",
        /* a created game's path, its public id alone (checked below) */
        "location"};
    char cache[128] = "";
    for (const char *line = r->headers; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *colon = memchr(line, ':', n);
        if (colon && strncmp(line, "HTTP/", 5) != 0) {
            bool ok = false;
            for (size_t i = 0; i < sizeof known / sizeof *known && !ok; i++)
                ok = strlen(known[i]) == (size_t)(colon - line) &&
                     strncasecmp(line, known[i], (size_t)(colon - line)) == 0;
            cr_assert(ok, "%s: a header the audit does not know: %.*s", what, (int)n, line);
            if (colon - line == 8 && strncasecmp(line, "location", 8) == 0) {
                const char *v = colon + 1 + strspn(colon + 1, " ");
                size_t vlen = n - (size_t)(v - line);
                while (vlen && (v[vlen - 1] == '\r' || v[vlen - 1] == ' '))
                    vlen--;
                cr_assert(vlen == 14 + 16 && strncmp(v, "/api/v1/games/", 14) == 0 &&
                              strspn(v + 14, "0123456789abcdef") == 16,
                          "%s: Location holds no more than a game's path: %.*s", what, (int)n,
                          line);
            }
        }
        line = end ? end + 1 : line + n;
    }
    if (with_token) {
        cr_assert(http_header(r, "Cache-Control", cache, sizeof cache) &&
                      (strstr(cache, "no-store") || strstr(cache, "private")),
                  "%s: a reply to a token may be cached and shown to others (Cache-Control: %s)",
                  what, cache);
    }
}

enum kind { K_VIEW, K_LIST, K_HAND, K_EVENTS, K_ORDER, K_JOIN, K_CREATE, K_REPLAY, K_STREAM };

struct req {
    const char *method;
    const char *path; /* below /api/v1/games/{id}, or a whole path from /api/ */
    const char *token;
    const char *body;
    const char *const *headers;
    long timeout_ms;
    int who;        /* the requester's seat, -1 for anyone */
    enum kind kind; /* what a successful reply is */
};

/* Sends one request, reading the truth just before and just after it, and audits the reply
 * (a problem reply included). Leaves the reply in *out for the caller to free, and the truth
 * after it in gm->cur. */
static void audited(struct game *gm, const struct req *rq, struct http_reply *out)
{
    static struct truth before, after;
    bool existed = gm->id[0] != 0;
    if (existed) {
        truth_read(gm->id, &before);
        cr_assert(truth_same(&before, &gm->cur), "game %s changed between two requests of the test",
                  gm->id);
    }
    char url[512];
    if (strncmp(rq->path, "/api/", 5) == 0)
        snprintf(url, sizeof url, "%s%s", d.base, rq->path);
    else
        snprintf(url, sizeof url, "%s/api/v1/games/%s%s", d.base, gm->id, rq->path);
    struct http_request hr = {.method = rq->method,
                              .url = url,
                              .bearer = rq->token,
                              .body = rq->body,
                              .len = rq->body ? strlen(rq->body) : 0,
                              .headers = rq->headers,
                              .timeout_ms = rq->timeout_ms};
    bool got = http_request(&hr, out);
    cr_assert(got, "%s %s: no answer: %s", rq->method, url, out->error);
    if (!existed) {
        cr_assert_eq(rq->kind, K_CREATE);
        cr_assert_eq(out->status, 201, "create: %s", out->body);
        snprintf(gm->id, sizeof gm->id, "%s", str(out->json, "id"));
    }
    truth_read(gm->id, &after);
    char what[400], who[16] = "anyone";
    if (rq->who >= 0)
        snprintf(who, sizeof who, "seat %d", rq->who);
    snprintf(what, sizeof what, "%s %s as %s -> %ld", rq->method, url + strlen(d.base), who,
             out->status);
    if (existed && strcmp(rq->method, "GET") == 0)
        cr_assert(truth_same(&before, &after), "%s changed the game", what);
    if (existed)
        track_reveal(&before, &after);
    struct scan sc = {NULL, existed ? &before : NULL, &after, rq->who, what};
    counts.responses++;
    check_headers(out, rq->token != NULL, what);
    /* Sign-in alone tells a session token (it is not sent through here), and nothing ever
     * tells a password hash. */
    cr_assert_null(strstr(out->body, "session_"), "%s: a session token in a reply: %.300s", what,
                   out->body);
    cr_assert_null(strstr(out->body, "$argon2"), "%s: a password hash in a reply", what);
    if (strcmp(out->content_type, "application/problem+json") == 0) {
        cr_assert_not_null(out->json, "%s: the problem is not JSON", what);
        sc.fields = problem_fields;
        scan_json(&sc, out->json);
        cr_assert_eq(num(out->json, "status"), out->status, "%s", what);
    } else if (rq->kind == K_STREAM) {
        cr_assert_eq(out->status, 200, "%s: %s", what, out->body);
        cr_assert_str_eq(out->content_type, "text/event-stream", "%s", what);
        scan_stream(gm, out->body, &sc);
    } else {
        cr_assert(out->json && strncmp(out->content_type, "application/json", 16) == 0,
                  "%s: not JSON (%s): %.200s", what, out->content_type, out->body);
        static const struct field *const tables[] = {
            [K_VIEW] = view_fields,     [K_LIST] = list_fields,    [K_HAND] = hand_fields,
            [K_EVENTS] = page_fields,   [K_ORDER] = order_fields,  [K_JOIN] = join_fields,
            [K_CREATE] = create_fields, [K_REPLAY] = replay_fields};
        sc.fields = tables[rq->kind];
        json_t *events = NULL;
        if (rq->kind == K_EVENTS) {
            events = json_incref(json_object_get(out->json, "events"));
            cr_assert(json_is_array(events), "%s: no events array", what);
            json_object_del(out->json, "events");
        }
        scan_json(&sc, out->json);
        if (events) {
            size_t i;
            json_t *ev;
            json_array_foreach(events, i, ev) check_event(gm, ev, &sc);
            json_object_set_new(out->json, "events", events);
        }
        if (rq->kind == K_VIEW)
            check_public_view(out->json, &after, what);
        else if (rq->kind == K_HAND)
            check_hand_view(out->json, &after, rq->who, what);
        else if (rq->kind == K_REPLAY)
            cr_assert(finished(&after), "%s: the replay is published before the end", what);
    }
    gm->cur = after;
}

/* An audited request whose status must be `want`; returns its JSON (a new reference). */
static json_t *ask(struct game *gm, const struct req *rq, long want)
{
    struct http_reply r;
    audited(gm, rq, &r);
    cr_assert_eq(r.status, want, "%s %s as seat %d -> %ld (wanted %ld): %.300s", rq->method,
                 rq->path, rq->who, r.status, want, r.body);
    json_t *j = json_incref(r.json);
    http_reply_free(&r);
    return j;
}

static json_t *get_view(struct game *gm)
{
    struct req rq = {.method = "GET", .path = "", .who = -1, .kind = K_VIEW};
    return ask(gm, &rq, 200);
}

static json_t *get_hand(struct game *gm, int seat)
{
    struct req rq = {
        .method = "GET", .path = "/hand", .token = gm->tokens[seat], .who = seat, .kind = K_HAND};
    return ask(gm, &rq, 200);
}

static long post_order(struct game *gm, int seat, const char *body, json_t **reply)
{
    struct req rq = {.method = "POST",
                     .path = "/orders",
                     .token = gm->tokens[seat],
                     .body = body,
                     .who = seat,
                     .kind = K_ORDER};
    struct http_reply r;
    audited(gm, &rq, &r);
    long status = r.status;
    if (reply)
        *reply = json_incref(r.json);
    http_reply_free(&r);
    return status;
}

/* Reads the log from the last event counted on, page by page, up to the newest. */
static void poll_events(struct game *gm)
{
    for (int pages = 0; pages < 20 && gm->counted_seq < gm->cur.last_seq; pages++) {
        char path[64];
        snprintf(path, sizeof path, "/events?after=%lld", gm->counted_seq);
        struct req rq = {.method = "GET", .path = path, .who = -1, .kind = K_EVENTS};
        json_decref(ask(gm, &rq, 200));
    }
    cr_assert_eq(gm->counted_seq, gm->cur.last_seq, "the log did not reach its last event");
}

/* The stream from `after`, as `who` (a seat sends its token, which it may). */
static void read_stream(struct game *gm, long long after, int who, long timeout_ms)
{
    char hdr[64];
    snprintf(hdr, sizeof hdr, "Last-Event-ID: %lld", after);
    const char *headers[] = {hdr, NULL};
    struct req rq = {.method = "GET",
                     .path = "/stream",
                     .token = who >= 0 ? gm->tokens[who] : NULL,
                     .headers = headers,
                     .timeout_ms = timeout_ms,
                     .who = who,
                     .kind = K_STREAM};
    struct http_reply r;
    audited(gm, &rq, &r);
    cr_assert_eq(r.status, 200, "stream: %s", r.body);
    http_reply_free(&r);
}

/* ---- choosing orders from a hand view ------------------------------------------------------- */

/* Appends to `pay` n random cards of `cards` that are not in `taken` (ids marked 1), marking
 * them. */
static void pick_cards(struct game *gm, json_t *cards, int n, uint8_t *taken, json_t *pay)
{
    int free_ids[CITY_DECK_SIZE], nfree = 0;
    size_t i;
    json_t *c;
    json_array_foreach(cards, i, c)
    {
        int id = (int)num(c, "id");
        if (!taken[id])
            free_ids[nfree++] = id;
    }
    cr_assert_geq(nfree, n, "not enough cards to pay or discard");
    for (int k = 0; k < n; k++) {
        int j = k + rnd(gm, nfree - k);
        int t = free_ids[k];
        free_ids[k] = free_ids[j];
        free_ids[j] = t;
        taken[free_ids[k]] = 1;
        json_array_append_new(pay, json_integer(free_ids[k]));
    }
}

static json_t *build_body(struct game *gm, json_t *cards, json_t *option, uint8_t *taken)
{
    int id = (int)num(option, "id");
    taken[id] = 1;
    json_t *pay = json_array();
    pick_cards(gm, cards, (int)num(option, "cost"), taken, pay);
    return json_pack("{s:i, s:o}", "card", id, "pay", pay);
}

/* This seat's order for its pending step, chosen by its policy from its hand view alone
 * (`single`: never try a double build). NULL when it has nothing to decide. */
static char *choose(struct game *gm, int seat, json_t *h, bool single)
{
    json_t *p = json_object_get(h, "pending");
    if (!json_is_object(p))
        return NULL;
    if (gm->policy[seat] == P_PLAIN)
        return choose_order(h);
    json_t *opts = json_object_get(p, "options");
    json_t *cards = json_object_get(h, "hand");
    int n = (int)json_array_size(cards);
    json_t *o = json_pack("{s:I, s:s}", "round", num(p, "round"), "step", str(p, "step"));
    uint8_t taken[CITY_DECK_SIZE] = {0};
    if (strcmp(str(p, "step"), "build") == 0) {
        json_t *builds = json_object_get(opts, "builds");
        bool contractor = json_is_true(json_object_get(opts, "contractor"));
        bool survey = gm->policy[seat] == P_HOARDER ? !contractor && n <= 11 : rnd(gm, 5) == 0;
        if (gm->policy[seat] == P_HOARDER && contractor) {
            json_object_set_new(o, "contractor", json_true());
        } else if (!survey && json_array_size(builds) > 0) {
            json_t *a = NULL, *b = NULL;
            if (!single && json_is_true(json_object_get(opts, "double"))) {
                size_t i, k;
                json_t *x, *y;
                json_array_foreach(builds, i, x) json_array_foreach(builds, k, y)
                {
                    int cx = cat.designs[cat.card_design[num(x, "id")]].cost;
                    int cy = cat.designs[cat.card_design[num(y, "id")]].cost;
                    if (!a && i != k && cx <= CITY_DOUBLE_MAX_COST && cy <= CITY_DOUBLE_MAX_COST &&
                        num(x, "cost") + num(y, "cost") + 2 <= n) {
                        a = x;
                        b = y;
                    }
                }
            }
            if (a) {
                json_t *pair = json_array();
                json_array_append_new(pair, build_body(gm, cards, a, taken));
                json_array_append_new(pair, build_body(gm, cards, b, taken));
                json_object_set_new(o, "builds", pair);
            } else {
                size_t i, best = 0;
                json_t *x;
                json_array_foreach(
                    builds, i,
                    x) if (num(x, "cost") > num(json_array_get(builds, best), "cost") ||
                           (num(x, "cost") == num(json_array_get(builds, best), "cost") &&
                            rnd(gm, 2))) best = i;
                json_object_set_new(o, "build",
                                    build_body(gm, cards, json_array_get(builds, best), taken));
            }
        } else if (!survey && contractor) {
            json_object_set_new(o, "contractor", json_true());
        } else {
            json_object_set_new(o, "survey", json_true());
        }
    } else {
        json_t *discard = json_array();
        pick_cards(gm, cards, (int)num(opts, "discard"), taken, discard);
        json_object_set_new(o, "discard", discard);
    }
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* ---- probes: refusals that must not tell where a card lies ------------------------------- */

/* Sends, as pending seat `seat`, the same illegal order naming in turn a card of another
 * seat's hand, of the deck (its top: the next card drawn, and its bottom), of the discard
 * pile, of a tableau and of the pool: every refusal must be the same 422 not_in_hand, word for
 * word, and change nothing. */
static void probe(struct game *gm, int seat, json_t *h)
{
    const struct city_game *g = &gm->cur.g;
    int cands[8], n = 0;
    const char *labels[8];
    int other = (seat + 1 + rnd(gm, g->players - 1)) % g->players;
    if (g->seats[other].nhand) {
        labels[n] = "another seat's hand";
        cands[n++] = g->seats[other].hand[rnd(gm, g->seats[other].nhand)];
    }
    if (g->ndeck) {
        labels[n] = "the top of the deck";
        cands[n++] = g->deck[g->ndeck - 1];
        labels[n] = "the bottom of the deck";
        cands[n++] = g->deck[0];
    }
    if (g->ndiscard) {
        labels[n] = "the discard pile";
        cands[n++] = g->discard[rnd(gm, g->ndiscard)];
    }
    for (int s = 0; s < g->players; s++)
        if (g->seats[s].ntableau && n < 6) {
            labels[n] = "a tableau";
            cands[n++] = g->seats[s].tableau[0];
            break;
        }
    if (g->npool) {
        labels[n] = "the contractor pool";
        cands[n++] = g->pool[0];
    }
    if (n < 2)
        return;
    json_t *p = json_object_get(h, "pending");
    const char *step = str(p, "step");
    json_t *cards = json_object_get(h, "hand");
    json_t *first = NULL;
    const char *first_label = NULL;
    /* The hidden card as the card built, as a payment for a card of the hand, or as the first
     * of a Construction Gang's two builds. */
    int variant = json_array_size(cards) ? rnd(gm, 3) : 0;
    long long own = num(json_array_get(cards, 0), "id");
    for (int k = 0; k < n; k++) {
        json_t *o = json_pack("{s:I, s:s}", "round", num(p, "round"), "step", step);
        if (strcmp(step, "build") == 0 && variant == 0) {
            json_object_set_new(o, "build", json_pack("{s:i, s:[]}", "card", cands[k], "pay"));
        } else if (strcmp(step, "build") == 0 && variant == 1) {
            json_object_set_new(o, "build",
                                json_pack("{s:I, s:[i]}", "card", own, "pay", cands[k]));
        } else if (strcmp(step, "build") == 0) {
            json_object_set_new(o, "builds",
                                json_pack("[{s:i, s:[]}, {s:I, s:[]}]", "card", cands[k], "pay",
                                          "card", own, "pay"));
        } else {
            json_t *discard = json_array();
            json_array_append_new(discard, json_integer(cands[k]));
            for (long long i = 1; i < num(json_object_get(p, "options"), "discard"); i++)
                json_array_append_new(discard, json_incref(json_object_get(
                                                   json_array_get(cards, (size_t)i - 1), "id")));
            json_object_set_new(o, "discard", discard);
        }
        char *body = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        struct truth before = gm->cur;
        json_t *r = NULL;
        long status = post_order(gm, seat, body, &r);
        free(body);
        cr_assert(!first || json_equal(first, r),
                  "naming a card in %s and in %s gets different refusals, which tells where "
                  "cards lie: %s",
                  first_label, labels[k], json_dumps(r, JSON_COMPACT));
        cr_assert_eq(status, 422, "an order naming a card in %s -> %ld", labels[k], status);
        if (strcmp(step, "build") != 0 || variant != 1) /* else the own card may fail first */
            cr_assert_str_eq(str(r, "code"), "not_in_hand", "naming a card in %s", labels[k]);
        cr_assert(truth_same(&before, &gm->cur), "a refused order changed the game");
        if (!first) {
            first = r;
            first_label = labels[k];
        } else {
            json_decref(r);
        }
    }
    json_decref(first);
    counts.probes++;
}

/* Requests that must fail, audited like any other: a hand without a token, with the host token
 * and with another game's token, the replay before the end, an order for a stale step, an
 * order with the host token, a seat forcing a step that is not overdue. */
static void ask_wrongly(struct game *gm, int seat)
{
    struct req rq = {.method = "GET", .path = "/hand", .who = -1, .kind = K_HAND};
    json_decref(ask(gm, &rq, 401));
    rq.token = gm->host;
    json_decref(ask(gm, &rq, 403));
    if (other_game_token[0]) {
        rq.token = other_game_token;
        json_decref(ask(gm, &rq, 403));
    }
    rq = (struct req){.method = "GET", .path = "/replay", .who = -1, .kind = K_REPLAY};
    json_decref(ask(gm, &rq, 409));
    char body[96];
    snprintf(body, sizeof body, "{\"round\": %d, \"step\": \"build\", \"survey\": true}",
             gm->cur.g.round + 7);
    cr_assert_eq(post_order(gm, seat, body, NULL), 409);
    rq = (struct req){.method = "POST",
                      .path = "/orders",
                      .token = gm->host,
                      .body = body,
                      .who = -1,
                      .kind = K_ORDER};
    json_decref(ask(gm, &rq, 403));
    char force[96];
    snprintf(force, sizeof force, "{\"round\": %d, \"step\": \"%s\"}", gm->cur.g.round,
             city_step_name(gm->cur.g.step));
    rq = (struct req){.method = "POST",
                      .path = "/resolve",
                      .token = gm->tokens[seat],
                      .body = force,
                      .who = seat,
                      .kind = K_VIEW};
    json_decref(ask(gm, &rq, 409));
}

/* ---- playing one game ------------------------------------------------------------------------ */

struct spec {
    int seats, humans;
    const char *bots; /* JSON array */
    int target;
    bool host_forces;
    bool creator_plays; /* the creator takes seat 0 by sending "name" */
    bool accounts;      /* the people are accounts: their session tokens act for their seats */
};

/* Signs up account `name` and signs it in (not audited: sign-in's reply is the one that tells
 * a session token), checking that neither reply holds the password or a hash; the session
 * token into out (80 bytes). */
static void account_session(const char *name, char *out)
{
    char url[512], body[160];
    snprintf(body, sizeof body, "{\"name\": \"%s\", \"password\": \"secret words %s\"}", name,
             name);
    for (int k = 0; k < 2; k++) {
        snprintf(url, sizeof url, "%s/api/v1/%s", d.base, k ? "sessions" : "accounts");
        struct http_reply r;
        cr_assert(http_do("POST", url, NULL, body, &r));
        cr_assert_eq(r.status, 201, "%s: %s", url, r.body);
        cr_assert_null(strstr(r.body, "secret words"), "a reply holds the password");
        cr_assert_null(strstr(r.body, "$argon2"), "a reply holds a password hash");
        if (k)
            snprintf(out, 80, "%s", str(r.json, "token"));
        http_reply_free(&r);
    }
    cr_assert(strncmp(out, "session_", 8) == 0);
}

static void play_game(const struct spec *sp, int index)
{
    static struct game game;
    struct game *gm = &game;
    memset(gm, 0, sizeof *gm);
    memset(&drawn, 0, sizeof drawn);
    gm->seats = sp->seats;
    gm->humans = sp->humans;
    gm->host_forces = sp->host_forces;
    gm->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(index + 1);
    for (int s = 0; s < sp->humans; s++)
        gm->policy[s] = s == 0 ? P_HOARDER : s % 2 ? P_BUILDER : P_PLAIN;

    char body[256], outsider[80] = "";
    for (int s = 0; sp->accounts && s <= sp->humans; s++) {
        char name[32];
        snprintf(name, sizeof name, "Game%d Seat%d", index, s);
        account_session(name, s < sp->humans ? gm->tokens[s] : outsider);
    }
    snprintf(body, sizeof body,
             "{\"seats\": %d, \"bots\": %s, \"target_vp\": %d, \"seed\": \"%llu\"%s}", sp->seats,
             sp->bots, sp->target, 12345678901234567ULL * (unsigned long long)(index + 7),
             sp->creator_plays && !sp->accounts ? ", \"name\": \"Creator\"" : "");
    struct req rq = {.method = "POST",
                     .path = "/api/v1/games",
                     .token = sp->accounts && sp->creator_plays ? gm->tokens[0] : NULL,
                     .body = body,
                     .who = -1,
                     .kind = K_CREATE};
    json_t *created = ask(gm, &rq, 201);
    snprintf(gm->host, sizeof gm->host, "%s", str(created, "host_token"));
    if (sp->creator_plays && !sp->accounts)
        snprintf(gm->tokens[0], sizeof gm->tokens[0], "%s", str(created, "token"));
    else if (sp->creator_plays)
        cr_assert(str(created, "account") && !json_object_get(created, "token"));
    json_decref(created);

    /* While the game is open: the deal is made, but only joined seats see their own hands. */
    for (int s = sp->creator_plays ? 1 : 0; s < sp->humans; s++) {
        json_decref(get_view(gm));
        if (s > 0)
            json_decref(get_hand(gm, s - 1));
        char name[64]; /* one name a table */
        snprintf(name, sizeof name, "{\"name\": \"Person %d\"}", s + 1);
        rq = (struct req){.method = "POST",
                          .path = "/join",
                          .token = sp->accounts ? gm->tokens[s] : NULL,
                          .body = sp->accounts ? NULL : name,
                          .who = -1,
                          .kind = K_JOIN};
        json_t *j = ask(gm, &rq, 201);
        cr_assert_eq(num(j, "seat"), s);
        if (!sp->accounts)
            snprintf(gm->tokens[s], sizeof gm->tokens[s], "%s", str(j, "token"));
        json_decref(j);
        if (outsider[0]) { /* an account with no seat here reads no hand */
            rq = (struct req){
                .method = "GET", .path = "/hand", .token = outsider, .who = -1, .kind = K_HAND};
            json_decref(ask(gm, &rq, 403));
        }
        json_decref(get_hand(gm, s));
        if (s + 1 < sp->humans) {
            cr_assert_eq(
                post_order(gm, s, "{\"round\": 0, \"step\": \"keep\", \"survey\": true}", NULL),
                409, "an order before the start");
            ask_wrongly(gm, s);
        }
    }

    int iter = 0, last_round = -1, last_step = -1;
    while (!finished(&gm->cur)) {
        cr_assert_lt(++iter, 400, "game %d did not end", index);
        const struct city_game *g = &gm->cur.g;
        bool new_step = g->round != last_round || g->step != last_step;
        last_round = g->round;
        last_step = g->step;
        json_decref(get_view(gm));
        if (iter % 3 == 0) {
            rq = (struct req){.method = "GET", .path = "/api/v1/games", .who = -1, .kind = K_LIST};
            json_decref(ask(gm, &rq, 200));
        }
        poll_events(gm);
        if (iter % 4 == 1) {
            char path[64];
            snprintf(path, sizeof path, "/events?after=%d", rnd(gm, (int)gm->cur.last_seq + 1));
            rq = (struct req){.method = "GET", .path = path, .who = -1, .kind = K_EVENTS};
            json_decref(ask(gm, &rq, 200));
        }
        if (iter % 5 == 2)
            read_stream(gm, gm->cur.last_seq > 6 ? gm->cur.last_seq - 6 : 0,
                        rnd(gm, 2) ? rnd(gm, gm->humans) : -1, 150);
        if (iter % 7 == 3)
            ask_wrongly(gm, rnd(gm, gm->humans));

        json_t *hands[CITY_MAX_PLAYERS] = {NULL};
        int pending[CITY_MAX_PLAYERS], np = 0;
        for (int s = 0; s < gm->humans; s++) {
            hands[s] = get_hand(gm, s);
            if (json_is_object(json_object_get(hands[s], "pending")))
                pending[np++] = s;
        }
        cr_assert_gt(np, 0, "game %d: nobody has a decision, yet the game goes on", index);
        if (new_step && gm->cur.g.step == CITY_STEP_SURVEY)
            counts.people_surveys += np;
        if (new_step && gm->cur.g.step == CITY_STEP_HAND_LIMIT)
            counts.people_hand_limits += np;
        int prober = pending[rnd(gm, np)];
        probe(gm, prober, hands[prober]);

        int first = pending[0];
        if (np >= 2 && rnd(gm, 3) == 0) {
            /* A decision replaced: the hand view shows the seat its latest, nobody else. */
            char *decoy = choose(gm, first, hands[first], true);
            cr_assert_eq(post_order(gm, first, decoy, NULL), 202, "%s", decoy);
            free(decoy);
            for (int k = 0; k < np; k++)
                json_decref(get_hand(gm, pending[k]));
            counts.replaced++;
        }
        bool force = gm->host_forces && np >= 2 && rnd(gm, 4) == 0;
        for (int k = 0; k < (force ? 1 : np); k++) {
            int s = pending[k];
            char *order = choose(gm, s, hands[s], false);
            json_t *reply = NULL;
            long status = post_order(gm, s, order, &reply);
            if (status == 422 && strstr(order, "\"builds\"")) {
                free(order); /* a double build the seat misjudged: build one instead */
                order = choose(gm, s, hands[s], true);
                json_decref(reply);
                status = post_order(gm, s, order, &reply);
            }
            cr_assert_eq(status, 202, "game %d, seat %d: %s -> %ld %s", index, s, order, status,
                         json_dumps(reply, JSON_COMPACT));
            counts.doubles += strstr(order, "\"builds\"") != NULL;
            json_decref(reply);
            free(order);
        }
        if (force) {
            char force_body[96];
            snprintf(force_body, sizeof force_body, "{\"round\": %d, \"step\": \"%s\"}",
                     gm->cur.g.round, city_step_name(gm->cur.g.step));
            rq = (struct req){.method = "POST",
                              .path = "/resolve",
                              .token = gm->host,
                              .body = force_body,
                              .who = -1,
                              .kind = K_VIEW};
            json_decref(ask(gm, &rq, 200));
            counts.forced++;
        }
        for (int s = 0; s < gm->humans; s++)
            json_decref(hands[s]);
    }

    /* The end: now the seed and the replay are public, and every hand still is its own. */
    json_t *v = get_view(gm);
    cr_assert_str_eq(str(v, "status"), "finished");
    json_decref(v);
    for (int s = 0; s < gm->humans; s++)
        json_decref(get_hand(gm, s));
    poll_events(gm);
    for (int s = 0; s < gm->seats; s++)
        for (int k = 0; k < cat.ndesigns; k++) {
            int have = 0;
            for (int i = 0; i < gm->cur.g.seats[s].ntableau; i++)
                have += cat.card_design[gm->cur.g.seats[s].tableau[i]] == k;
            cr_assert_eq(gm->built_seen[s][k], have,
                         "game %d: the log announced %d %s for seat %d; its tableau holds %d",
                         index, gm->built_seen[s][k], cat.designs[k].id, s, have);
        }
    char path[64];
    snprintf(path, sizeof path, "/events?after=%d", rnd(gm, (int)gm->cur.last_seq));
    rq = (struct req){.method = "GET", .path = path, .who = -1, .kind = K_EVENTS};
    json_decref(ask(gm, &rq, 200));
    read_stream(gm, 0, -1, 10000);
    rq = (struct req){.method = "GET", .path = "/replay", .who = -1, .kind = K_REPLAY};
    json_t *replay = ask(gm, &rq, 200);
    struct city_game *again = malloc(sizeof *again);
    char err[300];
    cr_assert(city_replay_run(&cat, replay, again, err, sizeof err), "the replay does not run: %s",
              err);
    json_t *a = city_to_json(again), *b = city_to_json(&gm->cur.g);
    cr_assert(json_equal(a, b), "game %d: the published replay is not the game played", index);
    json_decref(a);
    json_decref(b);
    free(again);
    json_decref(replay);
    rq = (struct req){.method = "GET", .path = "/api/v1/games", .who = -1, .kind = K_LIST};
    json_decref(ask(gm, &rq, 200));
    struct table t = {.seats = gm->seats, .humans = gm->humans};
    memcpy(t.id, gm->id, sizeof t.id);
    check_log(&t);
    memcpy(other_game_token, gm->tokens[0], sizeof other_game_token);
    counts.games++;
    counts.account_games += sp->accounts;
}

static void append_counts(void)
{
    const char *path = getenv("CITY_COUNTS");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f, "cannot append to %s: %s", path, strerror(errno));
    fprintf(f,
            "secrecy_responses_scanned %ld\nsecrecy_card_ids_checked %ld\n"
            "secrecy_card_names_checked %ld\nsecrecy_probes %ld\nsecrecy_games %ld\n",
            counts.responses, counts.card_ids, counts.card_names, counts.probes, counts.games);
    fclose(f);
}

Test(secrecy, no_response_reveals_a_card_its_requester_may_not_see)
{
    static const struct spec specs[] = {
        {2, 2, "[]", 50, false, false, false},
        {3, 2, "[\"greedy\"]", 50, true, true, true},
        {4, 3, "[\"random\"]", 60, false, false, true},
        {5, 3, "[\"greedy\", \"random\"]", 50, true, false, false},
        {2, 2, "[]", 70, true, true, false},
        {3, 3, "[]", 50, false, false, false},
        {4, 2, "[\"greedy\", \"greedy\"]", 50, true, false, false},
        {5, 4, "[\"random\"]", 50, false, true, true},
    };
    double start = harness_now();
    for (int i = 0; i < (int)(sizeof specs / sizeof *specs); i++)
        play_game(&specs[i], i);
    /* The audit saw what it is for. */
    cr_expect_gt(counts.people_surveys, 0, "no person surveyed: no survey draw was audited");
    cr_expect_gt(counts.people_hand_limits, 0, "no person discarded in hand_limit");
    cr_expect_gt(counts.forced, 0, "the host never forced a step");
    cr_expect_gt(counts.replaced, 0, "no order was replaced");
    cr_expect_gt(counts.probes, 10);
    cr_expect_gt(counts.drawn, 0, "no survey draw was tracked");
    cr_expect_gt(counts.paid, 0, "no payment was tracked");
    cr_expect_gt(counts.card_ids, 1000);
    cr_expect_gt(counts.account_games, 0, "no game was played by accounts' session tokens");
    fprintf(stderr,
            "secrecy: %ld games (%ld by accounts), %ld responses, %ld card ids, %ld card names, "
            "%ld probes, "
            "%ld survey and %ld hand_limit decisions by people, %ld cards drawn in surveys and "
            "%ld paid tracked, %ld double builds by people, %.1f s\n",
            counts.games, counts.account_games, counts.responses, counts.card_ids,
            counts.card_names, counts.probes, counts.people_surveys, counts.people_hand_limits,
            counts.drawn, counts.paid, counts.doubles, harness_now() - start);
    append_counts();
}

/* Reads `path` as `token` (NULL: none) and fails when the body holds `secret`. */
static void never_shows(const char *path, const char *token, const char *secret, const char *who)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", d.base, path);
    struct http_reply r;
    cr_assert(http_do("GET", url, token, NULL, &r));
    cr_expect(r.status == 200, "%s %s -> %ld", who, path, r.status);
    cr_expect_null(strstr(r.body ? r.body : "", secret), "%s reads the watchers' talk at %s: %s",
                   who, path, r.body);
    http_reply_free(&r);
}

/* A stream of game `id` read for a moment as `token`, while `say` posts the watcher's message. */
struct chat_stream {
    char url[256];
    const char *token;
    char *body;
};

static void *read_chat_stream(void *arg)
{
    struct chat_stream *s = arg;
    struct http_request rq = {
        .method = "GET", .url = s->url, .bearer = s->token, .timeout_ms = 2000};
    struct http_reply r;
    http_request(&rq, &r);
    s->body = strdup(r.body ? r.body : "");
    http_reply_free(&r);
    return NULL;
}

/* Table talk: the watchers' channel (signed-in watchers) is hidden from the seats while the game
 * runs, so that nobody at the table gets help from the rail. No read a seat (or the host, or an
 * anonymous reader, who may be a seat in another tab) can make carries it: the chat, the view,
 * the hand, the log, the stream; a seat's report of such a message is refused as for a message
 * that does not exist (no oracle). Once the game is over the seats read it. */
Test(secrecy, the_watchers_talk_reaches_no_seat_while_the_game_runs)
{
    struct table t;
    create(&t, 3, 1, ", \"seed\": 11");
    json_decref(call("POST", "/api/v1/accounts", NULL,
                     "{\"name\": \"Rail\", \"password\": \"correct horse battery\"}", 201));
    json_t *s = call("POST", "/api/v1/sessions", NULL,
                     "{\"name\": \"Rail\", \"password\": \"correct horse battery\"}", 201);
    char rail[80];
    snprintf(rail, sizeof rail, "%s", str(s, "token"));
    json_decref(s);
    char chat[160], path[200];
    snprintf(chat, sizeof chat, "/api/v1/games/%s/chat", t.id);
    json_t *m = call("POST", chat, rail, "{\"text\": \"RAIL-SECRET-1: build the farm\"}", 201);
    long long secret_id = num(m, "id");
    json_decref(m);
    json_decref(call("POST", chat, t.tokens[0], "{\"text\": \"hello table\"}", 201));
    /* Seat 1's stream, open while the watcher talks again. */
    struct chat_stream cs = {.token = t.tokens[1]};
    snprintf(cs.url, sizeof cs.url, "%s/api/v1/games/%s/stream", d.base, t.id);
    pthread_t th;
    pthread_create(&th, NULL, read_chat_stream, &cs);
    usleep(500 * 1000);
    json_decref(call("POST", chat, rail, "{\"text\": \"RAIL-SECRET-2\"}", 201));
    json_decref(call("POST", chat, t.tokens[0], "{\"text\": \"still here\"}", 201));
    pthread_join(th, NULL);
    cr_expect(strstr(cs.body, "still here"), "the seat's stream carries the players' talk: %s",
              cs.body);
    cr_expect_null(strstr(cs.body, "RAIL-SECRET"), "a seat's stream carries the watchers' talk");
    free(cs.body);
    const char *readers[] = {t.tokens[0], t.tokens[1], t.host, NULL};
    const char *names[] = {"seat 0", "seat 1", "the host", "an anonymous reader"};
    for (int i = 0; i < 4; i++) {
        never_shows(chat, readers[i], "RAIL-SECRET", names[i]);
        snprintf(path, sizeof path, "%s?after=0&limit=100", chat);
        never_shows(path, readers[i], "RAIL-SECRET", names[i]);
        snprintf(path, sizeof path, "/api/v1/games/%s", t.id);
        never_shows(path, readers[i], "RAIL-SECRET", names[i]);
        snprintf(path, sizeof path, "/api/v1/games/%s/events?after=0", t.id);
        never_shows(path, readers[i], "RAIL-SECRET", names[i]);
    }
    for (int seat = 0; seat < 2; seat++) {
        snprintf(path, sizeof path, "/api/v1/games/%s/hand", t.id);
        never_shows(path, t.tokens[seat], "RAIL-SECRET", "a hand");
        /* No oracle: a hidden message is refused like one that does not exist. */
        snprintf(path, sizeof path, "%s/%lld/report", chat, secret_id);
        call_problem(d.base, "POST", path, t.tokens[seat], NULL, 404, "no_such_message");
        snprintf(path, sizeof path, "%s/%lld/report", chat, secret_id + 100000);
        call_problem(d.base, "POST", path, t.tokens[seat], NULL, 404, "no_such_message");
    }
    play_to_end(&t);
    json_t *page = call("GET", chat, t.tokens[0], NULL, 200);
    char *text = json_dumps(page, 0);
    cr_expect(strstr(text, "RAIL-SECRET-1") && strstr(text, "RAIL-SECRET-2"),
              "after the end the seats read the watchers' talk: %s", text);
    free(text);
    json_decref(page);
}
