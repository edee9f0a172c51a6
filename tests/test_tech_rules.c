/* test_tech_rules.c: Tech City's rules, one fact per test (docs/tech_city.md): setup,
 * placement, payment, scoring, services, wild cards, every effect primitive, the effects
 * phase (tilting, owners, the Knowledge free use), the end of a round and of the game. */
#include "tech_helpers.h"

#include "tech_city/tech_effects.h"

TestSuite(tech_setup, .init = load_tech);
TestSuite(tech_place, .init = load_tech);
TestSuite(tech_pay, .init = load_tech);
TestSuite(tech_score, .init = load_tech);
TestSuite(tech_service, .init = load_tech);
TestSuite(tech_wild, .init = load_tech);
TestSuite(tech_effect, .init = load_tech);
TestSuite(tech_phase, .init = load_tech);
TestSuite(tech_round, .init = load_tech);
TestSuite(tech_end, .init = load_tech);
TestSuite(tech_errors, .init = load_tech);

static struct tech_game g;

enum { SV = DOMAIN_SERVICE, TE = DOMAIN_TECHNOLOGY, SC = DOMAIN_SCIENCE, KN = DOMAIN_KNOWLEDGE };

/* ---- setup ------------------------------------------------------------------------------ */

Test(tech_setup, the_seed_card_starts_the_city_and_each_player_gets_six_cards)
{
    cr_assert_eq(tech_new(&g, &tcat, 4, 42), TECH_OK);
    cr_assert_eq(g.ncards, 54);
    cr_assert_eq(g.ncity, 1);
    cr_assert_str_eq(tech_design_of(&g, tech_card_at(&g, 0, 0))->id, "delivery_services");
    for (int s = 0; s < 4; s++)
        cr_assert_eq(g.seats[s].nhand, 6);
    cr_assert_eq(g.ndeck, 54 - 1 - 24);
    cr_assert_eq(g.step, TECH_STEP_BUILD);
    cr_assert_eq(g.pending, 1u << g.first);
    cr_assert_eq(g.turn, 1);
    cr_assert(tech_check_conservation(&g));
}

Test(tech_setup, five_and_six_players_shuffle_two_decks_and_keep_five)
{
    for (int p = 5; p <= 6; p++) {
        cr_assert_eq(tech_new(&g, &tcat, p, 7), TECH_OK);
        cr_assert_eq(g.ncards, 108);
        cr_assert_eq(g.ndeck, 108 - 1 - 6 * p);
        cr_assert_eq(tech_hand_limit(&g), 5);
        cr_assert(tech_check_conservation(&g));
    }
    cr_assert_eq(tech_new(&g, &tcat, 4, 7), TECH_OK);
    cr_assert_eq(tech_hand_limit(&g), 6);
}

Test(tech_setup, the_first_player_is_drawn_from_the_seed)
{
    unsigned seen = 0;
    for (uint64_t seed = 0; seed < 60; seed++) {
        cr_assert_eq(tech_new(&g, &tcat, 3, seed), TECH_OK);
        seen |= 1u << g.first;
    }
    cr_assert_eq(seen, 7u);
    cr_assert_eq(tech_new(&g, &tcat, 0, 1), TECH_ERR_BAD_SEAT);
    cr_assert_eq(tech_new(&g, &tcat, 7, 1), TECH_ERR_BAD_SEAT);
}

/* ---- placement ------------------------------------------------------------------------------ */

Test(tech_place, placement_is_orthogonal_only)
{
    tk_new(&g, 2);
    int c = tk_vd(&g, TE, 9), p = tk_vd(&g, SC, 2);
    tk_hand(&g, 0, c);
    tk_hand(&g, 0, p);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(c, 1, 1, 1, p, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_NOT_ADJACENT);
    d = tk_build(c, 0, 2, 1, p, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_NOT_ADJACENT);
    d = tk_build(c, 0, -1, 1, p, 0);
    tk_do(&g, 0, d);
    cr_assert_eq(tech_card_at(&g, 0, -1), c);
    cr_assert_eq(g.owner[c], 0);
}

Test(tech_place, a_taken_cell_is_refused)
{
    tk_new(&g, 2);
    int c = tk_vd(&g, TE, 9), p = tk_vd(&g, SC, 2);
    tk_hand(&g, 0, c);
    tk_hand(&g, 0, p);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(c, 0, 0, 1, p, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_CELL_TAKEN);
}

/* ---- payment ------------------------------------------------------------------------------ */

Test(tech_pay, one_card_of_value_seven_or_less_or_any_two_cards)
{
    tk_new(&g, 2);
    int c = tk_vd(&g, TE, 9), seven = tk_vd(&g, SC, 7), eight = tk_vd(&g, SC, 8),
        thirteen = tk_vd(&g, KN, 13);
    tk_hand(&g, 0, c);
    tk_hand(&g, 0, seven);
    tk_hand(&g, 0, eight);
    tk_hand(&g, 0, thirteen);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(c, 1, 0, 1, eight, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_PAYMENT);
    d = tk_build(c, 1, 0, 0, 0, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_PAYMENT);
    d = tk_build(c, 1, 0, 1, seven, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_OK);
    d = tk_build(c, 1, 0, 2, eight, thirteen);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_OK);
    d = tk_build(c, 1, 0, 2, eight, eight);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_DUPLICATE_CARD);
    d = tk_build(c, 1, 0, 1, c, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_DUPLICATE_CARD);
    d = tk_build(c, 1, 0, 2, eight, thirteen);
    tk_do(&g, 0, d);
    cr_assert(tk_in(g.discard, g.ndiscard, eight) && tk_in(g.discard, g.ndiscard, thirteen));
}

Test(tech_pay, one_technology_company_lets_any_one_card_pay)
{
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, TE, 1), 0, 1, 0);
    int c = tk_vd(&g, SC, 9), eight = tk_vd(&g, SC, 8), k = tk_vd(&g, KN, 12);
    tk_hand(&g, 0, c);
    tk_hand(&g, 0, eight);
    tk_hand(&g, 0, k);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(c, 1, 0, 1, eight, 0);
    tk_do(&g, 0, d);
    cr_assert(tk_in_hand(&g, 0, k));
}

Test(tech_pay, one_technology_company_still_lets_any_two_cards_pay)
{
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, TE, 1), 0, 1, 0);
    int c = tk_vd(&g, SC, 9), eight = tk_vd(&g, SC, 8), k = tk_vd(&g, KN, 12);
    tk_hand(&g, 0, c);
    tk_hand(&g, 0, eight);
    tk_hand(&g, 0, k);
    tk_build_turn(&g, 0);
    /* the rule text: with a Technology company you "can" pay one card; two stay open */
    tk_do(&g, 0, tk_build(c, 1, 0, 2, eight, k));
    cr_assert(tk_in(g.discard, g.ndiscard, eight) && tk_in(g.discard, g.ndiscard, k));
    cr_assert_eq(g.owner[c], 0);
}

Test(tech_pay, two_technology_companies_build_for_free)
{
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, TE, 1), 0, 1, 0);
    tk_city(&g, tk_vd(&g, TE, 2), 0, 2, 0);
    int c = tk_vd(&g, SC, 9), two = tk_vd(&g, SC, 2);
    tk_hand(&g, 0, c);
    tk_hand(&g, 0, two);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(c, 1, 0, 1, two, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_PAYMENT);
    d = tk_build(c, 1, 0, 0, 0, 0);
    tk_do(&g, 0, d);
    cr_assert(tk_in_hand(&g, 0, two));
    cr_assert_eq(g.owner[c], 0);
}

Test(tech_pay, a_wild_card_pays_any_build_and_is_expelled)
{
    tk_new(&g, 2);
    int c = tk_vd(&g, SC, 9), w = tk_wild(&g, 0);
    tk_hand(&g, 0, c);
    tk_hand(&g, 0, w);
    tk_build_turn(&g, 0);
    tk_do(&g, 0, tk_build(c, 1, 0, 1, w, 0));
    cr_assert(tk_in(g.expelled, g.nexpelled, w));
    cr_assert(!tk_in(g.discard, g.ndiscard, w));
}

/* ---- scoring --------------------------------------------------------------------------------- */

/* Builds card for seat 0 at (x, y), paying with a spare 1, and returns the points scored. */
static int build_scores(int card, int x, int y)
{
    int spare = tk_vd(&g, KN, 1);
    if (spare == card)
        spare = tk_vd(&g, SC, 1);
    tk_hand(&g, 0, card);
    tk_hand(&g, 0, spare);
    tk_build_turn(&g, 0);
    int before = g.seats[0].score;
    tk_do(&g, 0, tk_build(card, x, y, 1, spare, 0));
    return g.seats[0].score - before;
}

Test(tech_score, no_match_scores_nothing)
{
    tk_new(&g, 2);
    cr_assert_eq(build_scores(tk_vd(&g, TE, 9), 1, 0), 0);
}

Test(tech_score, a_pair_scores_one)
{
    tk_new(&g, 2);
    cr_assert_eq(build_scores(tk_vd(&g, TE, 3), 1, 0), 1); /* the seed card is a 3 */
}

Test(tech_score, a_triple_scores_two)
{
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, SC, 3), 0, 1, 1);
    cr_assert_eq(build_scores(tk_vd(&g, TE, 3), 1, 0), 2);
}

Test(tech_score, quadruple_scores_three)
{
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, SC, 3), 0, 1, 1);
    tk_city(&g, tk_vd(&g, KN, 3), 0, 2, 1);
    cr_assert_eq(build_scores(tk_vd(&g, TE, 3), 1, 0), 3);
}

Test(tech_score, science_bonus_needs_two_base_points_and_two_science_companies)
{
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, SC, 11), 0, -5, 0); /* one Science company, far away */
    /* base 1 (the seed card): no bonus even with the new Science card */
    cr_assert_eq(build_scores(tk_vd(&g, SC, 3), 1, 0), 1);
    /* base 2 and two Science companies (the new one counts): bonus */
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, SC, 11), 0, -5, 0);
    tk_city(&g, tk_vd(&g, TE, 3), 0, 1, 1);
    cr_assert_eq(build_scores(tk_vd(&g, SC, 3), -1, 0), 3);
    /* base 2 but only one Science company: no bonus */
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, TE, 3), 0, 1, 1);
    cr_assert_eq(build_scores(tk_vd(&g, SC, 3), -1, 0), 2);
}

Test(tech_score, touching_two_own_companies_counts_diagonals)
{
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, KN, 11), 1, 0, 0);  /* diagonal to (0, 1) */
    tk_city(&g, tk_vd(&g, KN, 12), -1, 1, 0); /* orthogonal to (0, 1) */
    cr_assert_eq(build_scores(tk_vd(&g, SC, 9), 0, 1), 1);
    /* another player's companies do not count */
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, KN, 11), 1, 0, 1);
    tk_city(&g, tk_vd(&g, KN, 12), -1, 1, 0);
    cr_assert_eq(build_scores(tk_vd(&g, SC, 9), 0, 1), 0);
}

Test(tech_score, cards_entering_by_an_effect_do_not_score)
{
    tk_new(&g, 2);
    int rep = tk_prim(&g, PRIM_REPLACE, true, 0);
    tk_city(&g, rep, 1, 0, 0);
    int old = tk_vd(&g, KN, 3);
    tk_city(&g, old, 0, 1, 0);
    int in = tk_vd(&g, SC, 3);
    tk_hand(&g, 0, in);
    tk_effect_turn(&g, 0);
    struct tech_decision d = tk_use(1, 0);
    d.card = (uint8_t)in;
    d.has_target = true;
    d.tx = 0;
    d.ty = 1;
    tk_do(&g, 0, d);
    cr_assert_eq(tech_card_at(&g, 0, 1), in);
    cr_assert_eq(g.seats[0].score, 0);
}

/* ---- services ------------------------------------------------------------------------------- */

/* Seat 0 builds service `svc` at (1, 0) giving `own` (-1: nothing) as help, in a game of
 * `players`; returns with the help point open. */
static void start_service(int players, int svc, int own)
{
    tk_new(&g, players);
    tk_hand(&g, 0, svc);
    if (own >= 0)
        tk_hand(&g, 0, own);
    for (int s = 1; s < players; s++)
        tk_hand(&g, s, tk_vd(&g, KN, s + 1));
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(svc, 1, 0, own >= 0, own >= 0 ? own : 0, 0);
    tk_do(&g, 0, d);
}

static struct tech_decision help(int card)
{
    struct tech_decision d;
    tech_decision_init(&d);
    d.kind = TDEC_HELP;
    d.card = (uint8_t)card;
    return d;
}

Test(tech_service, needs_a_helper_from_another_player)
{
    int svc = tk_vd(&g, SV, 9), own = tk_vd(&g, TE, 13);
    start_service(3, svc, own);
    cr_assert_eq(g.step, TECH_STEP_HELP);
    cr_assert_eq(g.pending, 6u);
    tk_do(&g, 1, tk_pass());
    tk_do(&g, 2, tk_pass());
    cr_assert_eq(tech_card_at(&g, 1, 0), TECH_NONE);
    cr_assert(tk_in_hand(&g, 0, svc) && tk_in_hand(&g, 0, own));
    cr_assert_eq(g.seats[0].score, 0);
    cr_assert_eq(g.step, TECH_STEP_BUILD);
    cr_assert_eq(g.actor, 1);
}

Test(tech_service, two_cards_with_one_from_another_player_build_it)
{
    int svc = tk_vd(&g, SV, 9), own = tk_vd(&g, TE, 13);
    start_service(3, svc, own);
    int h = g.seats[1].hand[0];
    tk_do(&g, 2, tk_pass());
    tk_do(&g, 1, help(h));
    cr_assert_eq(tech_card_at(&g, 1, 0), svc);
    cr_assert_eq(g.owner[svc], TECH_NONE, "a service never gets a marker");
    cr_assert_eq(g.seats[0].score, 1, "the builder scores at least 1");
    cr_assert_eq(g.seats[1].score, 1, "a helper scores 1");
    cr_assert_eq(g.seats[2].score, 0);
    cr_assert(tk_in(g.discard, g.ndiscard, h) && tk_in(g.discard, g.ndiscard, own));
}

Test(tech_service, two_other_helpers_suffice_without_the_builder)
{
    int svc = tk_vd(&g, SV, 9);
    start_service(3, svc, -1);
    tk_do(&g, 1, help(g.seats[1].hand[0]));
    tk_do(&g, 2, help(g.seats[2].hand[0]));
    cr_assert_eq(tech_card_at(&g, 1, 0), svc);
    cr_assert_eq(g.seats[1].score, 1);
    cr_assert_eq(g.seats[2].score, 1);
}

Test(tech_service, the_builder_alone_with_one_helper_short_fails)
{
    int svc = tk_vd(&g, SV, 9);
    start_service(2, svc, -1);
    tk_do(&g, 1, help(g.seats[1].hand[0]));
    cr_assert_eq(tech_card_at(&g, 1, 0), TECH_NONE, "one card given is not enough");
    cr_assert_eq(g.seats[1].nhand, 1, "the helper's card goes back");
}

Test(tech_service, a_service_scores_normally_above_the_minimum)
{
    int svc = tk_vd(&g, SV, 13), own = tk_vd(&g, TE, 2);
    start_service(2, svc, own);
    tk_city(&g, tk_vd(&g, SC, 13), 2, 0, 1); /* a match for the 13 */
    tk_city(&g, tk_vd(&g, KN, 13), 2, 1, 1); /* and a second */
    tk_do(&g, 1, help(g.seats[1].hand[0]));
    cr_assert_eq(g.seats[0].score, 2);
}

Test(tech_service, solo_builds_a_service_with_any_one_card)
{
    tk_new(&g, 1);
    int svc = tk_vd(&g, SV, 9), thirteen = tk_vd(&g, TE, 13);
    tk_hand(&g, 0, svc);
    tk_hand(&g, 0, thirteen);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(svc, 1, 0, 0, 0, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_PAYMENT);
    tk_do(&g, 0, tk_build(svc, 1, 0, 1, thirteen, 0));
    cr_assert_eq(tech_card_at(&g, 1, 0), svc);
    cr_assert_eq(g.seats[0].score, 1);
}

/* ---- wild cards ------------------------------------------------------------------------------ */

Test(tech_wild, scores_as_the_named_card_then_the_top_card_takes_its_place)
{
    tk_new(&g, 2);
    tk_city(&g, tk_vd(&g, SC, 3), 0, 1, 1);
    int w = tk_wild(&g, 0), pay = tk_vd(&g, KN, 1), top = tk_vd(&g, TE, 10);
    tk_hand(&g, 0, w);
    tk_hand(&g, 0, pay);
    tk_deck_top(&g, top);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(w, 1, 0, 1, pay, 0);
    d.as_value = 3;
    d.as_domain = SC;
    tk_do(&g, 0, d);
    cr_assert_eq(g.seats[0].score, 2, "two other 3s in play: base 2");
    cr_assert_eq(tech_card_at(&g, 1, 0), top);
    cr_assert_eq(g.owner[top], 0, "the replacing company gets the builder's marker");
    cr_assert(tk_in(g.expelled, g.nexpelled, w));
    cr_assert(tech_check_conservation(&g));
}

Test(tech_wild, a_replacing_service_stays_neutral)
{
    tk_new(&g, 2);
    int w = tk_wild(&g, 0), pay = tk_vd(&g, KN, 1), top = tk_vd(&g, SV, 10);
    tk_hand(&g, 0, w);
    tk_hand(&g, 0, pay);
    tk_deck_top(&g, top);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(w, 1, 0, 1, pay, 0);
    d.as_value = 3;
    d.as_domain = SV;
    tk_do(&g, 0, d);
    cr_assert_eq(tech_card_at(&g, 1, 0), top);
    cr_assert_eq(g.owner[top], TECH_NONE);
}

Test(tech_wild, must_name_a_card_in_play)
{
    tk_new(&g, 2);
    int w = tk_wild(&g, 0), pay = tk_vd(&g, KN, 1);
    tk_hand(&g, 0, w);
    tk_hand(&g, 0, pay);
    tk_build_turn(&g, 0);
    struct tech_decision d = tk_build(w, 1, 0, 1, pay, 0);
    d.as_value = 3;
    d.as_domain = TE;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_WILD_NAME);
    d.as_domain = -1;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_WILD_NAME);
}

/* ---- one test per effect primitive -------------------------------------------------------- */

/* Seat 0 uses the company `card` (owned by seat 0, at (1, 0)) in a game of `players`. */
static void own_effect(int players, int card)
{
    tk_new(&g, players);
    tk_city(&g, card, 1, 0, 0);
    tk_effect_turn(&g, 0);
}

static int effect_of(int prim, int k)
{
    tk_new(&g, 2);
    return tk_prim(&g, prim, true, k);
}

Test(tech_effect, draw_draws_then_discards_by_choice)
{
    int card = -1;
    for (int k = 0; card < 0; k++) {
        int c = effect_of(PRIM_DRAW, k);
        if (tech_design_of(&g, c)->effect.m > 0)
            card = c;
    }
    const struct tech_effect *e = &tech_design_of(&g, card)->effect;
    own_effect(2, card);
    tk_hand(&g, 0, tk_vd(&g, KN, 1));
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert_eq(g.seats[0].nhand, 1 + e->n);
    cr_assert_eq(g.step, TECH_STEP_CHOOSE);
    cr_assert_eq(g.pending, 1u);
    int pick[4];
    for (int i = 0; i < e->m; i++)
        pick[i] = g.seats[0].hand[i];
    tk_do(&g, 0, tk_cards(e->m, pick));
    cr_assert_eq(g.seats[0].nhand, 1 + e->n - e->m);
    cr_assert(tk_in(g.discard, g.ndiscard, pick[0]));
}

Test(tech_effect, discard_makes_every_other_player_discard_in_seat_order)
{
    int card = effect_of(PRIM_DISCARD, 0);
    int n = tech_design_of(&g, card)->effect.n;
    own_effect(3, card);
    for (int s = 1; s < 3; s++)
        for (int k = 0; k < n + 1; k++)
            tk_hand(&g, s, tk_vd(&g, KN, 3 * s + k - 2));
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert_eq(g.step, TECH_STEP_CHOOSE);
    cr_assert_eq(g.pending, 2u, "seat 1 first");
    int a[3] = {g.seats[1].hand[0], g.seats[1].hand[1], g.seats[1].hand[2]};
    tk_do(&g, 1, tk_cards(n, a));
    cr_assert_eq(g.pending, 4u, "then seat 2");
    int b[3] = {g.seats[2].hand[0], g.seats[2].hand[1], g.seats[2].hand[2]};
    tk_do(&g, 2, tk_cards(n, b));
    cr_assert_eq(g.seats[1].nhand, 1);
    cr_assert_eq(g.seats[2].nhand, 1);
    cr_assert_eq(g.step, TECH_STEP_EFFECT);
}

Test(tech_effect, reveal_takes_one_and_puts_the_rest_back_in_order)
{
    int card = effect_of(PRIM_REVEAL, 0);
    int n = tech_design_of(&g, card)->effect.n;
    own_effect(2, card);
    int top[4];
    for (int i = 0; i < 4; i++)
        top[i] = g.deck[g.ndeck - 1 - i];
    struct tk_log log = {0};
    struct tech_events ev = {tk_record, &log};
    struct tech_decision d = tk_use(1, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_OK);
    tech_resolve(&g, &ev);
    cr_assert_eq(tk_count(&log, TEV_REVEALED), n);
    cr_assert_eq(g.nrevealed, n);
    cr_assert_eq(g.step, TECH_STEP_CHOOSE);
    struct tech_decision bad = tk_cards(1, (int[]){g.seed_card});
    cr_assert_eq(tech_submit(&g, 0, &bad), TECH_ERR_NOT_OFFERED);
    tk_do(&g, 0, tk_cards(1, (int[]){top[1]}));
    cr_assert(tk_in_hand(&g, 0, top[1]));
    cr_assert_eq(g.deck[g.ndeck - 1], top[0], "the first revealed is on top again");
    if (n > 2)
        cr_assert_eq(g.deck[g.ndeck - 2], top[2]);
    cr_assert(tech_check_conservation(&g));
}

Test(tech_effect, search_takes_a_card_of_the_value_or_domain_and_shuffles)
{
    for (int k = 0; k < 2; k++) {
        int card = effect_of(PRIM_SEARCH, k);
        const struct tech_effect *e = &tech_design_of(&g, card)->effect;
        own_effect(2, card);
        tk_do(&g, 0, tk_use(1, 0));
        cr_assert_eq(g.seats[0].nhand, 1);
        const struct tech_design *got = tech_design_of(&g, g.seats[0].hand[0]);
        if (e->value)
            cr_assert_eq(got->value, e->value);
        else
            cr_assert_eq(got->domain, e->domain);
    }
}

Test(tech_effect, a_search_that_finds_nothing_does_nothing)
{
    int card = effect_of(PRIM_SEARCH, 0);
    const struct tech_effect *e = &tech_design_of(&g, card)->effect;
    own_effect(2, card);
    for (int c = 0; c < g.ncards; c++) {
        const struct tech_design *d = tech_design_of(&g, c);
        if (d->domain != DOMAIN_WILD &&
            (e->value ? d->value == e->value : d->domain == e->domain) && tk_in(g.deck, g.ndeck, c))
            tk_discard(&g, c);
    }
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert_eq(g.seats[0].nhand, 0);
}

Test(tech_effect, exchange_deck_swaps_a_hand_card_with_the_top_card)
{
    int card = effect_of(PRIM_EXCHANGE_TOP, 0);
    own_effect(2, card);
    int mine = tk_vd(&g, KN, 2);
    tk_hand(&g, 0, mine);
    int top = g.deck[g.ndeck - 1];
    struct tech_decision d = tk_use(1, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_MISSING_CHOICE);
    d.card = (uint8_t)mine;
    tk_do(&g, 0, d);
    cr_assert(tk_in_hand(&g, 0, top));
    cr_assert_eq(g.deck[g.ndeck - 1], mine);
}

Test(tech_effect, exchange_discard_swaps_a_hand_card_with_a_pile_card)
{
    int card = effect_of(PRIM_EXCHANGE_PILE, 0);
    own_effect(2, card);
    int mine = tk_vd(&g, KN, 2), there = tk_vd(&g, SC, 12);
    tk_hand(&g, 0, mine);
    tk_discard(&g, there);
    struct tech_decision d = tk_use(1, 0);
    d.card = (uint8_t)mine;
    d.take = (uint8_t)tk_vd(&g, SC, 11);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_BAD_TARGET);
    d.take = (uint8_t)there;
    tk_do(&g, 0, d);
    cr_assert(tk_in_hand(&g, 0, there));
    cr_assert(tk_in(g.discard, g.ndiscard, mine));
}

Test(tech_effect, replace_discards_a_city_card_and_keeps_its_marker)
{
    int card = -1;
    for (int k = 0; card < 0; k++) {
        int c = effect_of(PRIM_REPLACE, k);
        if (tech_design_of(&g, c)->effect.filter == FILTER_ANY ||
            tech_design_of(&g, c)->effect.filter == FILTER_OTHER)
            card = c;
    }
    own_effect(2, card);
    int old = tk_vd(&g, TE, 12), in = tk_vd(&g, SC, 4);
    tk_city(&g, old, 0, 1, 1);
    tk_hand(&g, 0, in);
    struct tech_decision d = tk_use(1, 0);
    d.card = (uint8_t)in;
    d.has_target = true;
    d.tx = 0;
    d.ty = 1;
    tk_do(&g, 0, d);
    cr_assert_eq(tech_card_at(&g, 0, 1), in);
    cr_assert_eq(g.owner[in], 1, "the replaced company's owner keeps the marker");
    cr_assert(tk_in(g.discard, g.ndiscard, old));
}

Test(tech_effect, a_wild_card_cannot_replace_and_is_expelled_for_a_draw)
{
    int card = effect_of(PRIM_REPLACE, 0);
    own_effect(2, card);
    int w = tk_wild(&g, 0);
    tk_hand(&g, 0, w);
    int target = tk_vd(&g, TE, 12);
    tk_city(&g, target, 0, 1, 0);
    struct tech_decision d = tk_use(1, 0);
    d.card = (uint8_t)w;
    d.has_target = true;
    d.tx = 0;
    d.ty = 1;
    if (tech_design_of(&g, card)->effect.filter == FILTER_NEUTRAL) {
        tk_city(&g, target, 0, 1, TECH_NONE);
        g.owner[target] = TECH_NONE;
    }
    tk_do(&g, 0, d);
    cr_assert(tk_in(g.expelled, g.nexpelled, w));
    cr_assert_eq(tech_card_at(&g, 0, 1), target);
    cr_assert_eq(g.seats[0].nhand, 1);
}

Test(tech_effect, swap_exchanges_two_city_cards_places)
{
    int card = effect_of(PRIM_SWAP, 0);
    own_effect(2, card);
    int a = tk_vd(&g, TE, 12), b = tk_vd(&g, SC, 12);
    tk_city(&g, a, 0, 1, 0);
    tk_city(&g, b, 0, -1, 1);
    struct tech_decision d = tk_use(1, 0);
    d.has_target = d.has_to = true;
    d.tx = 0;
    d.ty = 1;
    d.ux = 0;
    d.uy = -1;
    tk_do(&g, 0, d);
    cr_assert_eq(tech_card_at(&g, 0, -1), a);
    cr_assert_eq(tech_card_at(&g, 0, 1), b);
    cr_assert_eq(g.owner[a], 0, "markers move with their cards");
}

Test(tech_effect, expel_removes_a_city_card_from_the_game)
{
    int card = effect_of(PRIM_EXPEL, 0);
    own_effect(2, card);
    int victim = tk_vd(&g, SC, 11);
    tk_city(&g, victim, 0, 1, 1);
    struct tech_decision d = tk_use(1, 0);
    d.has_target = true;
    d.tx = 0;
    d.ty = 1;
    tk_do(&g, 0, d);
    cr_assert_eq(tech_card_at(&g, 0, 1), TECH_NONE);
    cr_assert(tk_in(g.expelled, g.nexpelled, victim));
}

Test(tech_effect, the_seed_card_is_never_expelled_or_replaced)
{
    int card = -1;
    for (int k = 0; card < 0; k++) {
        int c = effect_of(PRIM_EXPEL, k);
        if (tech_filter_ok(&g, 0, g.seed_card, tech_design_of(&g, c)->effect.filter))
            card = c;
    }
    own_effect(2, card);
    struct tech_decision d = tk_use(1, 0);
    d.has_target = true;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_SEED_CARD);
    int rep = -1;
    for (int k = 0; rep < 0; k++) {
        int c = effect_of(PRIM_REPLACE, k);
        if (tech_filter_ok(&g, 0, g.seed_card, tech_design_of(&g, c)->effect.filter))
            rep = c;
    }
    own_effect(2, rep);
    int in = tk_vd(&g, SC, 4);
    tk_hand(&g, 0, in);
    d = tk_use(1, 0);
    d.has_target = true;
    d.card = (uint8_t)in;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_SEED_CARD);
}

Test(tech_effect, move_marker_takes_a_company_for_one_of_yours)
{
    int card = effect_of(PRIM_MOVE_MARKER, 0);
    own_effect(2, card);
    int theirs = tk_vd(&g, SC, 12), svc = tk_vd(&g, SV, 12);
    tk_city(&g, theirs, 0, 1, 1);
    tk_city(&g, svc, 0, -1, TECH_NONE);
    struct tech_decision d = tk_use(1, 0);
    d.has_target = d.has_to = true;
    d.tx = 1;
    d.ty = 0;
    d.ux = 0;
    d.uy = -1;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_BAD_TARGET, "never onto a service");
    d.uy = 1;
    tk_do(&g, 0, d);
    cr_assert_eq(g.owner[theirs], 0);
    cr_assert_eq(g.owner[card], TECH_NONE);
}

Test(tech_effect, steal_takes_a_random_card_from_another_hand)
{
    int card = effect_of(PRIM_STEAL, 0);
    own_effect(3, card);
    tk_hand(&g, 2, tk_vd(&g, SC, 12));
    tk_hand(&g, 2, tk_vd(&g, SC, 11));
    struct tech_decision d = tk_use(1, 0);
    d.victim = 1;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_BAD_TARGET, "seat 1 has no card");
    d.victim = 0;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_BAD_TARGET, "not from yourself");
    d.victim = 2;
    tk_do(&g, 0, d);
    cr_assert_eq(g.seats[0].nhand, 1);
    cr_assert_eq(g.seats[2].nhand, 1);
}

Test(tech_effect, score_scores_only_when_its_condition_holds)
{
    for (int k = 0;; k++) {
        int card = effect_of(PRIM_SCORE, k);
        const struct tech_effect *e = &tech_design_of(&g, card)->effect;
        if (e->cond != COND_HAND)
            continue;
        own_effect(2, card);
        tk_do(&g, 0, tk_use(1, 0));
        cr_assert_eq(g.seats[0].score, 0, "an empty hand does not meet the condition");
        own_effect(2, card);
        for (int i = 0; i < e->n; i++)
            tk_hand(&g, 0, tk_vd(&g, SC, 1 + i));
        tk_do(&g, 0, tk_use(1, 0));
        cr_assert_eq(g.seats[0].score, e->points);
        break;
    }
}

Test(tech_effect, an_effect_refuses_choices_it_does_not_take)
{
    int card = effect_of(PRIM_DRAW, 0);
    own_effect(2, card);
    struct tech_decision d = tk_use(1, 0);
    d.victim = 1;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_NEEDLESS_CHOICE);
    d = tk_use(5, 5);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_NO_CARD_THERE);
}

/* ---- the effects phase ---------------------------------------------------------------------- */

Test(tech_phase, a_used_company_is_tilted_until_the_round_ends)
{
    int card = effect_of(PRIM_DRAW, 0);
    own_effect(2, card);
    tk_do(&g, 0, tk_use(1, 0));
    while (g.step == TECH_STEP_CHOOSE || g.step == TECH_STEP_OWNER) {
        struct tech_decision d;
        int s = __builtin_ctz(g.pending);
        tech_default_decision(&g, s, &d);
        tk_do(&g, s, d);
    }
    cr_assert(g.tilted[card]);
    cr_assert_eq(g.step, TECH_STEP_EFFECT);
    cr_assert_eq(g.actor, 1);
    struct tech_decision d = tk_use(1, 0);
    cr_assert_eq(tech_submit(&g, 1, &d), TECH_ERR_TILTED);
}

Test(tech_phase, a_service_can_be_used_by_every_player)
{
    tk_new(&g, 2);
    tk_effect_turn(&g, 0);
    tk_do(&g, 0, tk_use(0, 0));
    while (g.step == TECH_STEP_CHOOSE) {
        struct tech_decision d;
        tech_default_decision(&g, 0, &d);
        tk_do(&g, 0, d);
    }
    cr_assert(!g.tilted[g.seed_card]);
    cr_assert_eq(g.actor, 1);
    tk_do(&g, 1, tk_use(0, 0));
}

Test(tech_phase, using_another_players_company_lets_its_owner_draw_and_discard)
{
    int card = effect_of(PRIM_SCORE, 0);
    tk_new(&g, 2);
    tk_city(&g, card, 1, 0, 1);
    tk_effect_turn(&g, 0);
    tk_hand(&g, 1, tk_vd(&g, KN, 2));
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert_eq(g.step, TECH_STEP_OWNER);
    cr_assert_eq(g.pending, 2u);
    struct tech_decision d;
    tech_decision_init(&d);
    d.kind = TDEC_OWNER;
    d.draw = true;
    tk_do(&g, 1, d);
    cr_assert_eq(g.seats[1].nhand, 2);
    cr_assert_eq(g.step, TECH_STEP_CHOOSE);
    cr_assert_eq(g.pending, 2u);
    tk_do(&g, 1, tk_cards(1, (int[]){g.seats[1].hand[1]}));
    cr_assert_eq(g.seats[1].nhand, 1);
    cr_assert_eq(g.step, TECH_STEP_EFFECT);
    cr_assert_eq(g.actor, 1);
}

Test(tech_phase, an_owner_may_decline_to_draw)
{
    int card = effect_of(PRIM_SCORE, 0);
    tk_new(&g, 2);
    tk_city(&g, card, 1, 0, 1);
    tk_effect_turn(&g, 0);
    tk_do(&g, 0, tk_use(1, 0));
    struct tech_decision d;
    tech_decision_init(&d);
    d.kind = TDEC_OWNER;
    tk_do(&g, 1, d);
    cr_assert_eq(g.seats[1].nhand, 0);
    cr_assert_eq(g.step, TECH_STEP_EFFECT);
}

Test(tech_phase, two_knowledge_companies_give_a_free_use_even_of_a_tilted_one)
{
    tk_new(&g, 2);
    int k1 = -1, k2 = -1;
    for (int c = 0; c < g.ncards && k2 < 0; c++) {
        const struct tech_design *d = tech_design_of(&g, c);
        if (d->domain == KN && tech_effect_choices(d->effect.prim) == 0 &&
            d->effect.prim != PRIM_DISCARD && !(d->effect.prim == PRIM_DRAW && d->effect.m) &&
            d->effect.prim != PRIM_REVEAL) {
            if (k1 < 0)
                k1 = c;
            else
                k2 = c;
        }
    }
    cr_assert(k2 >= 0);
    tk_city(&g, k1, 1, 0, 0);
    tk_city(&g, k2, 2, 0, 0);
    tk_effect_turn(&g, 0);
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert_eq(g.step, TECH_STEP_EFFECT);
    cr_assert_eq(g.actor, 0, "the free use is still open");
    struct tech_decision d = tk_use(0, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_ALREADY_USED);
    d.free = true;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_FREE_USE, "only on your own Knowledge company");
    d = tk_use(1, 0);
    d.free = true;
    tk_do(&g, 0, d);
    cr_assert_eq(g.actor, 1, "both uses made: the turn passes");
}

Test(tech_phase, one_knowledge_company_gives_no_free_use)
{
    tk_new(&g, 2);
    int k1 = tk_vd(&g, KN, 5);
    tk_city(&g, k1, 1, 0, 0);
    tk_effect_turn(&g, 0);
    struct tech_decision d = tk_use(1, 0);
    d.free = true;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_FREE_USE);
}

/* ---- the end of a round -----------------------------------------------------------------------
 */

/* Opens the last effect turn of the round (seat players-1, seat 0 first) and passes it. */
static void end_round(void)
{
    for (int s = 0; s < g.players - 1; s++)
        g.seats[s].passed = true;
    tk_point(&g, TECH_STEP_EFFECT, g.players - 1, 1u << (g.players - 1));
    tk_do(&g, g.players - 1, tk_pass());
}

Test(tech_round, discard_down_is_one_simultaneous_point)
{
    tk_new(&g, 3);
    for (int k = 0; k < 8; k++) {
        tk_hand(&g, 0, tk_vd(&g, TE, 1 + k));
        tk_hand(&g, 2, tk_vd(&g, SC, 1 + k));
    }
    for (int k = 0; k < 3; k++)
        tk_hand(&g, 1, tk_vd(&g, KN, 1 + k));
    end_round();
    cr_assert_eq(g.step, TECH_STEP_DISCARD);
    cr_assert_eq(g.pending, 5u);
    struct tech_decision d = tk_cards(1, (int[]){g.seats[0].hand[0]});
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_CARD_COUNT);
    tk_do(&g, 0, tk_cards(2, (int[]){g.seats[0].hand[0], g.seats[0].hand[1]}));
    cr_assert_eq(g.step, TECH_STEP_DISCARD, "waits for seat 2");
    tk_do(&g, 2, tk_cards(2, (int[]){g.seats[2].hand[0], g.seats[2].hand[1]}));
    cr_assert_eq(g.seats[0].nhand, 6);
    cr_assert_eq(g.seats[2].nhand, 6);
    cr_assert_eq(g.round, 2);
}

Test(tech_round, short_hands_draw_up_to_three_and_the_first_player_passes)
{
    tk_new(&g, 2);
    tk_hand(&g, 0, tk_vd(&g, TE, 1));
    int tilted = tk_vd(&g, TE, 5);
    tk_city(&g, tilted, 1, 0, 0);
    g.tilted[tilted] = true;
    end_round();
    cr_assert_eq(g.seats[0].nhand, 3);
    cr_assert_eq(g.seats[1].nhand, 3);
    cr_assert_eq(g.first, 1);
    cr_assert_eq(g.round, 2);
    cr_assert(!g.tilted[tilted], "companies untilt");
    cr_assert_eq(g.step, TECH_STEP_BUILD);
    cr_assert_eq(g.actor, 1);
}

Test(tech_round, an_empty_deck_reshuffles_the_discard_pile)
{
    tk_new(&g, 2);
    while (g.ndeck > 1)
        tk_discard(&g, g.deck[g.ndeck - 1]);
    int nd = g.ndiscard;
    struct tk_log log = {0};
    struct tech_events ev = {tk_record, &log};
    cr_assert_eq(tech_draw(&g, 0, 3, &ev), 3);
    cr_assert_eq(tk_count(&log, TEV_RESHUFFLED), 1);
    cr_assert_eq(g.reshuffles, 1);
    cr_assert_eq(g.ndiscard, 0);
    cr_assert_eq(g.ndeck, nd - 2);
    cr_assert(tech_check_conservation(&g));
}

/* ---- the end of the game ----------------------------------------------------------------------
 */

Test(tech_end, the_game_ends_after_six_rounds)
{
    cr_assert_eq(tech_new(&g, &tcat, 3, 99), TECH_OK);
    int rounds_seen = 0, last = 0;
    while (g.step != TECH_STEP_OVER) {
        if (g.round != last)
            rounds_seen++, last = g.round;
        tech_fill_defaults(&g, NULL);
        cr_assert(tech_resolve(&g, NULL));
    }
    cr_assert_eq(rounds_seen, 6);
    cr_assert_eq(g.round, 6);
    cr_assert_neq(g.winners, 0);
    struct tech_decision d = tk_pass();
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_GAME_OVER);
    cr_assert(!tech_resolve(&g, NULL));
}

/* Ends the game now (the last round's last effect turn passes). */
static void finish(void)
{
    g.round = TECH_ROUNDS;
    end_round();
    while (g.step == TECH_STEP_DISCARD) {
        tech_fill_defaults(&g, NULL);
        tech_resolve(&g, NULL);
    }
    cr_assert_eq(g.step, TECH_STEP_OVER);
}

Test(tech_end, ties_go_to_most_companies_then_most_cards_then_are_shared)
{
    tk_new(&g, 3);
    g.seats[0].score = g.seats[1].score = g.seats[2].score = 5;
    tk_city(&g, tk_vd(&g, TE, 5), 1, 0, 1);
    finish();
    cr_assert_eq(g.winners, 2u, "seat 1 controls a company");

    tk_new(&g, 3);
    g.seats[0].score = g.seats[2].score = 5;
    for (int k = 0; k < 4; k++)
        tk_hand(&g, 2, tk_vd(&g, SC, 1 + k));
    finish();
    cr_assert_eq(g.winners, 4u, "seat 2 holds more cards");

    tk_new(&g, 3);
    g.seats[0].score = g.seats[2].score = 5;
    finish();
    cr_assert_eq(g.winners, 5u, "a full tie is shared");
}

Test(tech_end, the_most_points_win)
{
    tk_new(&g, 2);
    g.seats[1].score = 3;
    tk_city(&g, tk_vd(&g, TE, 5), 1, 0, 0);
    finish();
    cr_assert_eq(g.winners, 2u);
}

/* ---- errors -------------------------------------------------------------------------------- */

Test(tech_errors, each_refusal_has_a_code_and_a_sentence)
{
    for (int e = 0; e < TECH_ERR_COUNT; e++) {
        cr_assert_not_null(tech_error_message(e));
        cr_assert(strlen(tech_error_code(e)) > 1, "error %d has no code", e);
        for (int f = 0; f < e; f++)
            cr_assert_str_neq(tech_error_code(e), tech_error_code(f));
    }
    cr_assert_str_eq(tech_error_code(TECH_ERR_COUNT), "unknown_error");
}

Test(tech_errors, only_the_pending_seat_decides_and_only_for_this_step)
{
    tk_new(&g, 3);
    tk_build_turn(&g, 1);
    struct tech_decision d = tk_pass();
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_NOT_PENDING);
    cr_assert_eq(tech_submit(&g, 7, &d), TECH_ERR_BAD_SEAT);
    d = tk_use(0, 0);
    cr_assert_eq(tech_submit(&g, 1, &d), TECH_ERR_WRONG_KIND);
    d = tk_build(5, 1, 0, 0, 0, 0);
    cr_assert_eq(tech_submit(&g, 1, &d), TECH_ERR_NOT_IN_HAND);
}

Test(tech_errors, defaults_pass_and_discard_the_lowest_cards)
{
    tk_new(&g, 2);
    tk_build_turn(&g, 1);
    tk_hand(&g, 1, tk_vd(&g, TE, 1));
    struct tech_decision d;
    tech_default_decision(&g, 1, &d);
    cr_assert_eq(d.kind, TDEC_PASS);
    for (int k = 0; k < 8; k++)
        tk_hand(&g, 0, tk_vd(&g, SC, 13 - k));
    end_round();
    cr_assert_eq(g.step, TECH_STEP_DISCARD);
    tech_default_decision(&g, 0, &d);
    cr_assert_eq(d.ncards, 2);
    cr_assert_eq(tech_design_of(&g, d.cards[0])->value, 6);
    cr_assert_eq(tech_design_of(&g, d.cards[1])->value, 7);
    cr_assert_eq(tech_fill_defaults(&g, NULL), 1);
    cr_assert(g.defaulted & 1u);
}

Test(tech_round, a_reveal_past_the_end_of_the_deck_reshuffles_and_goes_on)
{
    int card = -1;
    for (int k = 0; card < 0; k++) {
        int c = effect_of(PRIM_REVEAL, k);
        if (tech_design_of(&g, c)->effect.n >= 3)
            card = c;
    }
    int n = tech_design_of(&g, card)->effect.n;
    own_effect(2, card);
    while (g.ndeck > 1)
        tk_discard(&g, g.deck[0]);
    int last = g.deck[0];
    struct tk_log log = {0};
    struct tech_events ev = {tk_record, &log};
    struct tech_decision d = tk_use(1, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_OK);
    cr_assert(tech_resolve(&g, &ev));
    cr_assert_eq(g.nrevealed, n, "one card from the old deck, the rest after the reshuffle");
    cr_assert_eq(g.revealed[0], last);
    cr_assert_eq(tk_count(&log, TEV_RESHUFFLED), 1);
    cr_assert(tech_check_conservation(&g));
    int second = g.revealed[1];
    tk_do(&g, 0, tk_cards(1, (int[]){g.revealed[n - 1]}));
    cr_assert_eq(g.deck[g.ndeck - 1], last);
    cr_assert_eq(g.deck[g.ndeck - 2], second);
}

Test(tech_end, a_solo_game_is_six_rounds_of_one_seat_without_help)
{
    cr_assert_eq(tech_new(&g, &tcat, 1, 5), TECH_OK);
    cr_assert_eq(g.first, 0);
    struct bot bot;
    bot_init(&bot, BOT_GREEDY, 5);
    int builds = 0;
    while (g.step != TECH_STEP_OVER) {
        cr_assert_neq(g.step, TECH_STEP_HELP);
        cr_assert_neq(g.step, TECH_STEP_OWNER, "nobody else owns a company");
        struct tech_decision d;
        cr_assert(tech_bot_decide(&bot, &g, 0, &d));
        builds += d.kind == TDEC_BUILD;
        tk_do(&g, 0, d);
    }
    cr_assert_eq(g.round, 6);
    cr_assert_leq(builds, 6, "one build a round");
    cr_assert_eq(g.winners, 1u);
}

/* ---- found by the audit against the rule text ------------------------------------------------ */

Test(tech_effect, research_council_scores_when_nobody_controls_a_company)
{
    tk_new(&g, 2);
    int rc = tcard(&g, "research_council", 0);
    tk_city(&g, rc, 1, 0, TECH_NONE); /* neutral, as after a marker moved away */
    tk_effect_turn(&g, 0);
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert_eq(g.seats[0].score, 2, "no player controls more companies than seat 0 (all 0)");
    tk_city(&g, tk_vd(&g, SC, 9), 0, 1, 1);
    g.tilted[rc] = false;
    tk_effect_turn(&g, 0);
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert_eq(g.seats[0].score, 2, "seat 1 controls more: no points");
}

Test(tech_effect, a_search_that_finds_nothing_leaves_the_deck_in_its_order)
{
    int card = effect_of(PRIM_SEARCH, 0);
    const struct tech_effect *e = &tech_design_of(&g, card)->effect;
    own_effect(2, card);
    for (int c = 0; c < g.ncards; c++) {
        const struct tech_design *d = tech_design_of(&g, c);
        if (d->domain != DOMAIN_WILD &&
            (e->value ? d->value == e->value : d->domain == e->domain) && tk_in(g.deck, g.ndeck, c))
            tk_discard(&g, c);
    }
    uint8_t before[TECH_MAX_CARDS];
    int n = g.ndeck;
    memcpy(before, g.deck, sizeof before);
    struct city_rng rng = g.rng;
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert_eq(g.ndeck, n);
    cr_assert(memcmp(before, g.deck, (size_t)n) == 0, "\"has no effect\": no shuffle");
    cr_assert(memcmp(&rng, &g.rng, sizeof rng) == 0, "and the game's random stream is untouched");
}

Test(tech_effect, a_swap_may_move_the_seed_card_which_stays_in_the_city)
{
    int card = effect_of(PRIM_SWAP, 0);
    own_effect(2, card);
    int a = tk_vd(&g, TE, 12);
    tk_city(&g, a, 0, 1, 1);
    struct tech_decision d = tk_use(1, 0);
    d.has_target = d.has_to = true;
    d.tx = 0;
    d.ty = 0;
    d.ux = 0;
    d.uy = 1;
    tk_do(&g, 0, d);
    cr_assert_eq(tech_card_at(&g, 0, 1), g.seed_card, "the seed card moved ...");
    cr_assert_eq(tech_card_at(&g, 0, 0), a);
    cr_assert_eq(g.owner[a], 1);
    cr_assert(tech_check_conservation(&g), "... and is still in the city");
    int ex = -1;
    for (int k = 0; ex < 0; k++) {
        int c = effect_of(PRIM_EXPEL, k);
        if (tech_design_of(&g, c)->effect.filter == FILTER_ANY)
            ex = c;
    }
    own_effect(2, ex);
    tk_take(&g, g.seed_card);
    tech_city_put(&g, g.seed_card, 0, 1, TECH_NONE);
    d = tk_use(1, 0);
    d.has_target = true;
    d.tx = 0;
    d.ty = 1;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_SEED_CARD, "it never leaves, wherever it is");
}

Test(tech_effect, a_player_may_divulge_cards_it_holds_with_its_next_order)
{
    int card = effect_of(PRIM_SEARCH, 0);
    own_effect(2, card);
    struct tk_log log = {0};
    struct tech_events ev = {tk_record, &log};
    struct tech_decision d = tk_use(1, 0);
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_OK);
    tech_resolve(&g, &ev);
    cr_assert_eq(g.seats[0].nhand, 1);
    int found = g.seats[0].hand[0];
    /* the search showed it to seat 0 alone; with seat 0's next order it may show it to all */
    for (int i = 0; i < log.n; i++)
        cr_assert(log.ev[i].type != TEV_DIVULGED, "nothing is divulged unless asked");
    tk_point(&g, TECH_STEP_EFFECT, 0, 1u);
    g.seats[0].used_normal = true;
    g.seats[0].used_free = false;
    struct tech_decision p = tk_pass();
    p.ndivulge = 1;
    p.divulge[0] = (uint8_t)g.seed_card;
    cr_assert_eq(tech_submit(&g, 0, &p), TECH_ERR_NOT_IN_HAND, "only cards of your hand");
    p.divulge[0] = (uint8_t)found;
    p.ndivulge = 2;
    p.divulge[1] = (uint8_t)found;
    cr_assert_eq(tech_submit(&g, 0, &p), TECH_ERR_DUPLICATE_CARD);
    p.ndivulge = 1;
    cr_assert_eq(tech_submit(&g, 0, &p), TECH_OK);
    log.n = 0;
    cr_assert(tech_resolve(&g, &ev));
    cr_assert_eq(tk_count(&log, TEV_DIVULGED), 1);
    cr_assert_eq(log.ev[0].type, TEV_DIVULGED, "shown before the order acts");
    cr_assert_eq(log.ev[0].seat, 0);
    cr_assert_eq(log.ev[0].card, found);
    cr_assert(tk_in_hand(&g, 0, found), "divulging shows a card, it does not move it");
}

Test(tech_errors, defaults_and_bots_never_divulge)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        cr_assert_eq(tech_new(&g, &tcat, 3, seed), TECH_OK);
        struct tk_log log = {0};
        struct tech_events ev = {tk_record, &log};
        struct bot bot;
        bot_init(&bot, seed % 2 ? BOT_GREEDY : BOT_RANDOM, seed);
        while (g.step != TECH_STEP_OVER) {
            for (int s = 0; s < g.players; s++) {
                struct tech_decision d;
                if (tech_pending(&g, s) && s != 0 && tech_bot_decide(&bot, &g, s, &d))
                    cr_assert_eq(tech_submit(&g, s, &d), TECH_OK);
            }
            tech_fill_defaults(&g, &ev);
            tech_resolve(&g, &ev);
            cr_assert_eq(tk_count(&log, TEV_DIVULGED), 0);
            log.n = 0;
        }
    }
}

/* Seat 0 uses seat 1's "draw N, then discard M" company at (1, 0) in a 2-player game. */
static int use_theirs_drawing(void)
{
    int card = -1;
    for (int k = 0; card < 0; k++) {
        int c = effect_of(PRIM_DRAW, k);
        if (tech_design_of(&g, c)->effect.m > 0)
            card = c;
    }
    tk_new(&g, 2);
    tk_city(&g, card, 1, 0, 1);
    tk_hand(&g, 1, tk_vd(&g, KN, 2));
    tk_effect_turn(&g, 0);
    return card;
}

Test(tech_phase, the_active_player_may_let_the_owner_draw_and_discard_before_the_effect)
{
    /* "If multiple effects need to be resolved, the active player chooses the order": using
     * another player's company sets two things waiting, its effect and its owner's
     * draw-and-discard */
    int card = use_theirs_drawing();
    const struct tech_effect *e = &tech_design_of(&g, card)->effect;
    int top = g.deck[g.ndeck - 1];
    struct tech_decision d = tk_use(1, 0);
    d.owner_first = true;
    tk_do(&g, 0, d);
    cr_assert_eq(g.step, TECH_STEP_OWNER, "the owner first");
    cr_assert_eq(g.seats[0].nhand, 0, "the effect waits");
    struct tech_decision o;
    tech_decision_init(&o);
    o.kind = TDEC_OWNER;
    o.draw = true;
    tk_do(&g, 1, o);
    cr_assert(tk_in_hand(&g, 1, top), "the owner drew the top card");
    cr_assert_eq(g.step, TECH_STEP_CHOOSE);
    cr_assert_eq(g.pending, 2u);
    tk_do(&g, 1, tk_cards(1, (int[]){top}));
    cr_assert_eq(g.seats[0].nhand, e->n, "then the effect: seat 0 draws");
    cr_assert_eq(g.step, TECH_STEP_CHOOSE);
    cr_assert_eq(g.pending, 1u);
    int pick[4];
    for (int i = 0; i < e->m; i++)
        pick[i] = g.seats[0].hand[i];
    tk_do(&g, 0, tk_cards(e->m, pick));
    cr_assert_eq(g.step, TECH_STEP_EFFECT, "and nobody is asked twice");
    cr_assert_eq(g.actor, 1);
    cr_assert_eq(g.seats[1].nhand, 1);
}

Test(tech_phase, by_default_the_effect_resolves_before_the_owner_draws)
{
    int card = use_theirs_drawing();
    const struct tech_effect *e = &tech_design_of(&g, card)->effect;
    int top = g.deck[g.ndeck - 1];
    tk_do(&g, 0, tk_use(1, 0));
    cr_assert(tk_in_hand(&g, 0, top), "the effect first: seat 0 drew the top card");
    cr_assert_eq(g.step, TECH_STEP_CHOOSE);
    int pick[4];
    for (int i = 0; i < e->m; i++)
        pick[i] = g.seats[0].hand[i];
    tk_do(&g, 0, tk_cards(e->m, pick));
    cr_assert_eq(g.step, TECH_STEP_OWNER, "then the owner");
}

Test(tech_phase, the_order_is_a_choice_only_on_another_players_company)
{
    int card = effect_of(PRIM_SCORE, 0);
    own_effect(2, card);
    struct tech_decision d = tk_use(1, 0);
    d.owner_first = true;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_NEEDLESS_CHOICE, "your own company: no owner");
    d = tk_use(0, 0);
    d.owner_first = true;
    cr_assert_eq(tech_submit(&g, 0, &d), TECH_ERR_NEEDLESS_CHOICE, "a neutral service: none");
}

Test(tech_setup, five_or_six_players_may_choose_one_deck_and_fewer_never_two)
{
    /* "If playing with 5 or 6 players, it is suggested to use two Tech Decks": optional */
    for (int p = 5; p <= 6; p++) {
        cr_assert_eq(tech_new_decks(&g, &tcat, p, 7, 1), TECH_OK);
        cr_assert_eq(g.ncards, 54);
        cr_assert_eq(tech_hand_limit(&g), 5, "the hand limit goes by players, not decks");
        cr_assert(tech_check_conservation(&g));
        cr_assert_eq(tech_new_decks(&g, &tcat, p, 7, 0), TECH_OK);
        cr_assert_eq(g.ncards, 108, "two decks by default");
    }
    cr_assert_eq(tech_new_decks(&g, &tcat, 4, 7, 2), TECH_ERR_BAD_SEAT, "1-4 players: one deck");
    cr_assert_eq(tech_new_decks(&g, &tcat, 5, 7, 3), TECH_ERR_BAD_SEAT);
}
