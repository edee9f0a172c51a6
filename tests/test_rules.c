/* test_rules.c: Criterion tests that prove each rule of docs/rules.md on the rules engine,
 * on positions built by hand from the real card file; expected values come from the catalog. */
#include "helpers.h"

static struct city_catalog cat;

static void load(void)
{
    load_catalog(&cat);
}

TestSuite(setup, .init = load);
TestSuite(keep, .init = load);
TestSuite(build, .init = load);
TestSuite(discount, .init = load);
TestSuite(contractor, .init = load);
TestSuite(double_build, .init = load);
TestSuite(reveal, .init = load);
TestSuite(survey, .init = load);
TestSuite(score, .init = load);
TestSuite(income, .init = load);
TestSuite(end, .init = load);
TestSuite(hand_limit, .init = load);
TestSuite(defaults, .init = load);
TestSuite(options, .init = load);

static bool is_contractor(int card)
{
    return cat.designs[cat.card_design[card]].contractor;
}

/* Every seat not in `mask` takes a General Contractor (a decision that draws nothing). */
static void others_take_contractors(struct city_game *g, unsigned mask)
{
    for (int s = 0; s < g->players; s++)
        if (!(mask >> s & 1))
            SUBMIT_OK(g, s, dec_contractor());
}

/* A plain development: no prerequisite, limit, discount, Construction Gang or variable value,
 * so that its cost, points and income are just the printed numbers. */
static bool is_plain(int d)
{
    const struct city_design *x = &cat.designs[d];
    return !x->contractor && !x->nrequires && !x->limit && !x->discount && !x->construction_gang &&
           !x->vp_var.kind && !x->income_var.kind;
}

/* The k-th instance, counting down from the last instance id, of a plain development of
 * printed cost `cost` that no design in `avoid_discount` discounts (0 for any). The tests
 * use these instead of naming cards, so that they survive tuning of the deck. */
static int plain_card_not(int cost, int k, uint64_t avoid_discount)
{
    for (int c = CITY_DECK_SIZE - 1; c >= 0; c--) {
        int d = cat.card_design[c];
        if (!is_plain(d) || cat.designs[d].cost != cost)
            continue;
        bool discounted = false;
        for (int x = 0; x < cat.ndesigns; x++)
            if ((avoid_discount >> x & 1) && (cat.designs[x].discount_to >> d & 1))
                discounted = true;
        if (!discounted && k-- == 0)
            return c;
    }
    cr_assert_fail("the catalog has too few plain cards of cost %d", cost);
    return -1;
}

static int plain_card(int cost, int k)
{
    return plain_card_not(cost, k, 0);
}

/* The k-th instance, counting down from the last instance id, of a plain development that
 * shows icon `icon`. */
static int icon_card(int icon, int k)
{
    for (int c = CITY_DECK_SIZE - 1; c >= 0; c--)
        if (is_plain(cat.card_design[c]) && cat.designs[cat.card_design[c]].icons[icon] && k-- == 0)
            return c;
    cr_assert_fail("the catalog has too few plain cards showing icon %d", icon);
    return -1;
}

/* The first design, in file order, that Townhouse Row discounts and that has a cost, no
 * prerequisite and no limit. */
static int townhouse_target(void)
{
    const struct city_design *row = dsg(&cat, "townhouse_row");
    cr_assert_gt(row->discount, 0, "Townhouse Row gives a discount");
    for (int d = 0; d < cat.ndesigns; d++)
        if ((row->discount_to >> d & 1) && cat.designs[d].cost > 0 && !cat.designs[d].nrequires &&
            !cat.designs[d].limit)
            return d;
    cr_assert_fail("Townhouse Row discounts no buildable design");
    return -1;
}

/* Moves `card` into seat's hand and returns it. */
static int hand_card(struct city_game *g, int seat, int card)
{
    to_hand(g, seat, card);
    return card;
}

/* The top-most deck card of a plain design that earns income. */
static int plain_income_card(const struct city_game *g)
{
    for (int i = g->ndeck - 1; i >= 0; i--) {
        int d = cat.card_design[g->deck[i]];
        if (is_plain(d) && cat.designs[d].income > 0)
            return g->deck[i];
    }
    cr_assert_fail("the catalog has no plain income card left in the deck");
    return -1;
}

/* Sets seat's score so that it totals `total` after a round in which its tableau stays as it
 * is but for a General Contractor taken this round. */
static void set_score_after_round(struct city_game *g, int seat, int total)
{
    g->seats[seat].vp = total - rule_round_vp(g, seat) - cat.designs[cat.contractor_design].vp;
}

/* ---- setup -------------------------------------------------------------------------------- */

Test(setup, pool_holds_one_general_contractor_per_player_and_the_rest_leave_the_game)
{
    int contractors = 0;
    for (int c = 0; c < CITY_DECK_SIZE; c++)
        contractors += is_contractor(c);
    cr_assert_eq(contractors, CITY_CONTRACTORS);
    for (int p = CITY_MIN_PLAYERS; p <= CITY_MAX_PLAYERS; p++) {
        struct city_game g;
        cr_assert_eq(city_new(&g, &cat, p, 1000u + (unsigned)p, 0), CITY_OK);
        cr_assert_eq(g.npool, p);
        cr_assert_eq(g.nremoved, CITY_CONTRACTORS - p);
        for (int i = 0; i < g.npool; i++)
            cr_assert(is_contractor(g.pool[i]));
        for (int i = 0; i < g.nremoved; i++)
            cr_assert(is_contractor(g.removed[i]));
        for (int i = 0; i < g.ndeck; i++)
            cr_assert(!is_contractor(g.deck[i]));
        for (int s = 0; s < p; s++)
            for (int i = 0; i < g.seats[s].nhand; i++)
                cr_assert(!is_contractor(g.seats[s].hand[i]));
        cr_assert(city_check_conservation(&g));
    }
}

/* The engine keeps each seat's tableau summary (struct city_tab) as cards enter the tableau;
 * the invariant check notices a tableau changed behind its back until city_seat_refresh(). */
Test(setup, the_conservation_check_notices_a_stale_tableau_summary)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, 3, 11, 0), CITY_OK);
    struct city_seat *s = &g.seats[1];
    int card = s->hand[--s->nhand];
    s->hand[s->nhand] = 0;
    s->tableau[s->ntableau++] = (uint8_t)card; /* moved without the engine */
    cr_assert_not(city_check_conservation(&g));
    city_seat_refresh(&g, 1);
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(g.seats[1].tab.count[city_design_of(&g, card)], 1);
    cr_assert_eq(g.seats[1].tab.vp, cat.designs[city_design_of(&g, card)].vp);
}

Test(setup, each_player_is_dealt_seven_developments_and_the_rest_form_the_deck)
{
    for (int p = CITY_MIN_PLAYERS; p <= CITY_MAX_PLAYERS; p++) {
        struct city_game g;
        cr_assert_eq(city_new(&g, &cat, p, 7u * (unsigned)p, 0), CITY_OK);
        for (int s = 0; s < p; s++) {
            cr_assert_eq(g.seats[s].nhand, CITY_DEAL);
            cr_assert_eq(g.seats[s].ntableau, 0);
            cr_assert_eq(g.seats[s].vp, 0);
        }
        cr_assert_eq(g.ndeck, CITY_DECK_SIZE - CITY_CONTRACTORS - CITY_DEAL * p);
        cr_assert_eq(g.ndiscard, 0);
    }
}

Test(setup, the_game_opens_in_step_keep_of_round_0_with_every_seat_pending)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, 3, 42, 0), CITY_OK);
    cr_assert_eq(g.step, CITY_STEP_KEEP);
    cr_assert_eq(g.round, 0);
    for (int s = 0; s < 3; s++) {
        cr_assert(game_seat_pending(&g, s));
        cr_assert(!g.seats[s].submitted);
        cr_assert_eq(city_discard_count(&g, s), CITY_KEEP_DISCARD);
    }
    cr_assert(!game_seat_pending(&g, 3));
    cr_assert(!game_seat_pending(&g, -1));
    cr_assert(!city_ready(&g));
}

Test(setup, game_new_refuses_a_bad_player_count_or_target_and_defaults_the_target_to_50)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, CITY_MIN_PLAYERS - 1, 1, 0), CITY_ERR_BAD_SEAT);
    cr_assert_eq(city_new(&g, &cat, CITY_MAX_PLAYERS + 1, 1, 0), CITY_ERR_BAD_SEAT);
    cr_assert_eq(city_new(&g, &cat, 2, 1, -1), CITY_ERR_BAD_SEAT);
    cr_assert_eq(city_new(&g, &cat, 2, 1, CITY_MAX_TARGET + 1), CITY_ERR_BAD_SEAT);
    cr_assert_eq(city_new(&g, &cat, 2, 1, 0), CITY_OK);
    cr_assert_eq(g.target_vp, CITY_DEFAULT_TARGET);
    cr_assert_eq(CITY_DEFAULT_TARGET, 50);
    cr_assert_eq(city_new(&g, &cat, 2, 1, 17), CITY_OK);
    cr_assert_eq(g.target_vp, 17);
}

Test(setup, the_same_seed_deals_the_same_cards_and_another_seed_does_not)
{
    struct city_game a, b, c;
    cr_assert_eq(city_new(&a, &cat, 4, 99, 0), CITY_OK);
    cr_assert_eq(city_new(&b, &cat, 4, 99, 0), CITY_OK);
    cr_assert_eq(city_new(&c, &cat, 4, 100, 0), CITY_OK);
    cr_assert(memcmp(&a, &b, sizeof a) == 0);
    cr_assert(memcmp(a.deck, c.deck, sizeof a.deck) != 0);
}

/* ---- keep --------------------------------------------------------------------------------- */

Test(keep, each_player_must_discard_exactly_two_of_their_own_cards)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, 2, 5, 0), CITY_OK);
    const uint8_t *h = g.seats[0].hand;
    int one[1] = {h[0]}, two[2] = {h[0], h[1]}, three[3] = {h[0], h[1], h[2]};
    int dup[2] = {h[0], h[0]}, other[2] = {h[0], g.seats[1].hand[0]};
    int deck[2] = {h[0], g.deck[0]}, bogus[2] = {h[0], 200};
    SUBMIT_ERR(&g, 0, dec_discard(1, one), CITY_ERR_DISCARD_COUNT);
    SUBMIT_ERR(&g, 0, dec_discard(3, three), CITY_ERR_DISCARD_COUNT);
    SUBMIT_ERR(&g, 0, dec_discard(0, NULL), CITY_ERR_DISCARD_COUNT);
    SUBMIT_ERR(&g, 0, dec_discard(2, dup), CITY_ERR_DUPLICATE_CARD);
    SUBMIT_ERR(&g, 0, dec_discard(2, other), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_discard(2, deck), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_discard(2, bogus), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_survey(), CITY_ERR_WRONG_KIND);
    SUBMIT_ERR(&g, 0, dec_contractor(), CITY_ERR_WRONG_KIND);
    SUBMIT_ERR(&g, 0, dec_build(h[0], 0, NULL), CITY_ERR_WRONG_KIND);
    SUBMIT_ERR(&g, 5, dec_discard(2, two), CITY_ERR_BAD_SEAT);
    SUBMIT_OK(&g, 0, dec_discard(2, two));
    cr_assert(city_check_conservation(&g));
}

Test(keep, the_discards_start_the_discard_pile_and_round_1_step_build_opens)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, 3, 6, 0), CITY_OK);
    int thrown[3][2];
    for (int s = 0; s < 3; s++) {
        thrown[s][0] = g.seats[s].hand[3];
        thrown[s][1] = g.seats[s].hand[6];
        SUBMIT_OK(&g, s, dec_discard(2, thrown[s]));
        cr_assert_eq(city_ready(&g), s == 2);
        cr_assert_eq(g.seats[s].nhand, CITY_DEAL, "a keep discard happens only at resolve");
    }
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(g.ndiscard, 3 * CITY_KEEP_DISCARD);
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(g.seats[s].nhand, CITY_DEAL - CITY_KEEP_DISCARD);
        for (int k = 0; k < 2; k++) {
            int seat, pos;
            cr_assert_eq(locate(&g, thrown[s][k], &seat, &pos), AT_DISCARD);
        }
    }
    cr_assert_eq(g.step, CITY_STEP_BUILD);
    cr_assert_eq(g.round, 1);
    for (int s = 0; s < 3; s++)
        cr_assert(game_seat_pending(&g, s));
}

/* ---- build one ---------------------------------------------------------------------------- */

Test(build, a_legal_build_enters_the_tableau_and_its_payment_goes_to_the_discard_pile)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 11);
    int card = hand_card(&g, 0, plain_card(CITY_DOUBLE_MAX_COST, 0));
    int cost = city_effective_cost(&g, 0, cat.card_design[card]);
    cr_assert_eq(cost, cat.designs[cat.card_design[card]].cost);
    give_filler(&g, 0, cost + 1);
    int pay[CITY_MAX_COST];
    hand_cards(&g, 0, card, -1, 0, cost, pay);
    SUBMIT_OK(&g, 0, dec_build(card, cost, pay));
    others_take_contractors(&g, 1);
    int discard0 = g.ndiscard;
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert(in_tableau(&g, 0, card));
    cr_assert(!in_hand(&g, 0, card));
    cr_assert_eq(g.ndiscard, discard0 + cost);
    for (int i = 0; i < cost; i++) {
        int seat, pos;
        cr_assert_eq(locate(&g, pay[i], &seat, &pos), AT_DISCARD);
    }
    cr_assert_eq(g.seats[0].reveal.kind, CITY_DEC_BUILD);
    cr_assert_eq(g.seats[0].reveal.nbuilt, 1);
    cr_assert_eq(g.seats[0].reveal.built[0], card);
    cr_assert_eq(g.seats[0].reveal.paid, cost);
    cr_assert_eq(g.seats[0].nhand, 1 + rule_income(&g, 0));
}

Test(build, payment_must_equal_the_effective_cost_exactly)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 12);
    int card = hand_card(&g, 0, plain_card(CITY_DOUBLE_MAX_COST, 0));
    int cost = cat.designs[cat.card_design[card]].cost;
    cr_assert_gt(cost, 0);
    give_filler(&g, 0, cost + 1);
    int pay[CITY_MAX_COST];
    hand_cards(&g, 0, card, -1, 0, cost + 1, pay);
    SUBMIT_ERR(&g, 0, dec_build(card, cost - 1, pay), CITY_ERR_PAYMENT_COUNT);
    SUBMIT_ERR(&g, 0, dec_build(card, cost + 1, pay), CITY_ERR_PAYMENT_COUNT);
    SUBMIT_ERR(&g, 0, dec_build(card, 0, pay), CITY_ERR_PAYMENT_COUNT);
    SUBMIT_OK(&g, 0, dec_build(card, cost, pay));
}

Test(build, the_built_card_must_be_in_the_builders_hand)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 13);
    int mine = hand_card(&g, 0, plain_card(0, 0));
    int theirs = hand_card(&g, 1, plain_card(0, 1));
    int built = plain_card(0, 2);
    to_tableau(&g, 0, built);
    int in_deck = plain_card(0, 3);
    SUBMIT_ERR(&g, 0, dec_build(theirs, 0, NULL), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_build(built, 0, NULL), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_build(in_deck, 0, NULL), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_build(g.pool[0], 0, NULL), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_build(CITY_DECK_SIZE, 0, NULL), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_build(255, 0, NULL), CITY_ERR_NOT_IN_HAND);
    SUBMIT_OK(&g, 0, dec_build(mine, 0, NULL));
    cr_assert(city_check_conservation(&g));
}

Test(build, payment_cards_must_be_in_the_builders_hand)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 14);
    int card = hand_card(&g, 0, plain_card(1, 0));
    int theirs = hand_card(&g, 1, plain_card(0, 0));
    int built = plain_card(0, 1);
    to_tableau(&g, 0, built);
    give_filler(&g, 0, 1);
    int p1[1] = {theirs}, p2[1] = {built}, p3[1] = {g.deck[0]}, p4[1] = {CITY_DECK_SIZE};
    SUBMIT_ERR(&g, 0, dec_build(card, 1, p1), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_build(card, 1, p2), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_build(card, 1, p3), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_build(card, 1, p4), CITY_ERR_NOT_IN_HAND);
}

Test(build, payment_cards_must_be_distinct_and_exclude_the_built_card)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 15);
    int card = hand_card(&g, 0, plain_card(CITY_DOUBLE_MAX_COST, 0));
    int cost = city_effective_cost(&g, 0, cat.card_design[card]);
    cr_assert_geq(cost, 2);
    give_filler(&g, 0, cost);
    int pay[CITY_MAX_COST];
    hand_cards(&g, 0, card, -1, 0, cost, pay);
    int dup[CITY_MAX_COST];
    memcpy(dup, pay, sizeof pay);
    dup[cost - 1] = dup[0];
    SUBMIT_ERR(&g, 0, dec_build(card, cost, dup), CITY_ERR_DUPLICATE_CARD);
    int self[CITY_MAX_COST];
    memcpy(self, pay, sizeof pay);
    self[0] = card;
    SUBMIT_ERR(&g, 0, dec_build(card, cost, self), CITY_ERR_DUPLICATE_CARD);
    SUBMIT_OK(&g, 0, dec_build(card, cost, pay));
}

Test(build, every_prerequisite_must_be_in_the_builders_own_tableau)
{
    int checked = 0;
    for (int d = 0; d < cat.ndesigns; d++) {
        const struct city_design *x = &cat.designs[d];
        if (!x->nrequires)
            continue;
        struct city_game g;
        blank_board(&g, &cat, 2, 16u + (unsigned)d);
        int card = -1;
        for (int c = 0; c < CITY_DECK_SIZE && card < 0; c++)
            if (cat.card_design[c] == d)
                card = c;
        to_hand(&g, 0, card);
        /* The prerequisites in hand and in the other seat's tableau do not count. */
        for (int r = 0; r < x->nrequires; r++) {
            int req = -1, req2 = -1;
            for (int c = 0; c < CITY_DECK_SIZE; c++)
                if (cat.card_design[c] == x->requires[r]) {
                    if (req < 0)
                        req = c;
                    else if (req2 < 0)
                        req2 = c;
                }
            to_hand(&g, 0, req);
            if (req2 >= 0)
                to_tableau(&g, 1, req2);
        }
        give_filler(&g, 0, x->cost);
        int pay[CITY_MAX_COST];
        int cost = city_effective_cost(&g, 0, d);
        hand_cards(&g, 0, card, -1, 0, cost, pay);
        SUBMIT_ERR(&g, 0, dec_build(card, cost, pay), CITY_ERR_PREREQUISITE);
        /* All but the last prerequisite in the tableau: still refused. */
        for (int r = 0; r < x->nrequires; r++) {
            int req = -1;
            for (int i = 0; i < g.seats[0].nhand && req < 0; i++)
                if (cat.card_design[g.seats[0].hand[i]] == x->requires[r])
                    req = g.seats[0].hand[i];
            to_tableau(&g, 0, req);
            cost = city_effective_cost(&g, 0, d);
            hand_cards(&g, 0, card, -1, 0, cost, pay);
            if (r + 1 < x->nrequires)
                SUBMIT_ERR(&g, 0, dec_build(card, cost, pay), CITY_ERR_PREREQUISITE);
        }
        SUBMIT_OK(&g, 0, dec_build(card, cost, pay));
        cr_assert(city_check_conservation(&g));
        checked++;
    }
    cr_assert_gt(checked, 0, "the catalog should have a prerequisite (Schools)");
    cr_assert_eq(dsg(&cat, "schools")->nrequires, 1);
    cr_assert_eq(dsg(&cat, "schools")->requires[0], design(&cat, "housing_tract"));
}

Test(build, a_limit_per_player_counts_only_the_builders_own_copies)
{
    int checked = 0;
    for (int d = 0; d < cat.ndesigns; d++) {
        const struct city_design *x = &cat.designs[d];
        if (!x->limit || x->contractor)
            continue;
        cr_assert_gt(x->count, x->limit, "%s: a limit below the copies is testable", x->id);
        struct city_game g;
        blank_board(&g, &cat, 2, 17u + (unsigned)d);
        int copies[CITY_DECK_SIZE], n = 0;
        for (int c = 0; c < CITY_DECK_SIZE; c++)
            if (cat.card_design[c] == d)
                copies[n++] = c;
        /* limit - 1 own copies, the other seat holds the rest but one, one in hand. */
        for (int k = 0; k < x->limit - 1; k++)
            to_tableau(&g, 0, copies[k]);
        for (int k = x->limit - 1; k < n - 1; k++)
            to_tableau(&g, 1, copies[k]);
        int card = copies[n - 1];
        to_hand(&g, 0, card);
        give_filler(&g, 0, x->cost);
        int pay[CITY_MAX_COST];
        int cost = city_effective_cost(&g, 0, d);
        hand_cards(&g, 0, card, -1, 0, cost, pay);
        SUBMIT_OK(&g, 0, dec_build(card, cost, pay));
        /* One more own copy reaches the limit. */
        to_tableau(&g, 0, copies[x->limit - 1]);
        cr_assert_eq(copies_of(&g, 0, d), x->limit);
        cost = city_effective_cost(&g, 0, d);
        hand_cards(&g, 0, card, -1, 0, cost, pay);
        SUBMIT_ERR(&g, 0, dec_build(card, cost, pay), CITY_ERR_LIMIT);
        cr_assert(city_check_conservation(&g));
        checked++;
    }
    cr_assert_gt(checked, 0);
    cr_assert_eq(dsg(&cat, "mall")->limit, 1);
}

Test(build, a_general_contractor_in_hand_is_not_buildable)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 18);
    int gc = g.pool[0];
    to_hand(&g, 0, gc);
    cr_assert(city_check_conservation(&g));
    SUBMIT_ERR(&g, 0, dec_build(gc, 0, NULL), CITY_ERR_NOT_BUILDABLE);
}

Test(build, a_payment_longer_than_any_cost_is_too_many_cards)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 19);
    int card = hand_card(&g, 0, plain_card(0, 0));
    give_filler(&g, 0, CITY_MAX_COST + 1);
    struct city_decision d = dec_build(card, 0, NULL);
    d.builds[0].npay = CITY_MAX_COST + 1;
    SUBMIT_ERR(&g, 0, d, CITY_ERR_TOO_MANY_CARDS);
    d.builds[0].npay = 255;
    SUBMIT_ERR(&g, 0, d, CITY_ERR_TOO_MANY_CARDS);
}

Test(build, only_build_contractor_build_two_or_survey_answer_step_build)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 20);
    int card = hand_card(&g, 0, plain_card(0, 0));
    int other = hand_card(&g, 0, plain_card(0, 1));
    int one[1] = {card};
    SUBMIT_ERR(&g, 0, dec_discard(1, one), CITY_ERR_WRONG_KIND);
    SUBMIT_ERR(&g, 0, dec_discard(0, NULL), CITY_ERR_WRONG_KIND);
    SUBMIT_ERR(&g, 0, (struct city_decision){.kind = CITY_DEC_NONE}, CITY_ERR_WRONG_KIND);
    SUBMIT_ERR(&g, 0, (struct city_decision){.kind = 200}, CITY_ERR_WRONG_KIND);
    struct city_decision d = dec_build(card, 0, NULL);
    d.nbuilds = 0;
    SUBMIT_ERR(&g, 0, d, CITY_ERR_WRONG_KIND);
    d.nbuilds = 2;
    SUBMIT_ERR(&g, 0, d, CITY_ERR_WRONG_KIND);
    struct city_decision two = dec_two(card, 0, NULL, other, 0, NULL);
    two.nbuilds = 1;
    SUBMIT_ERR(&g, 0, two, CITY_ERR_WRONG_KIND);
}

/* ---- discounts ---------------------------------------------------------------------------- */

Test(discount, effective_cost_is_printed_cost_less_each_applicable_discount_never_below_0)
{
    int kinds = 0;
    for (int k = 0; k < cat.ndesigns; k++) {
        if (!cat.designs[k].discount)
            continue;
        kinds++;
        cr_assert(cat.discount_designs >> k & 1);
        struct city_game g;
        blank_board(&g, &cat, 2, 30u + (unsigned)k);
        int c = -1;
        for (int i = 0; i < CITY_DECK_SIZE && c < 0; i++)
            if (cat.card_design[i] == k)
                c = i;
        to_tableau(&g, 0, c);
        for (int d = 0; d < cat.ndesigns; d++) {
            int want = cat.designs[d].cost;
            if (cat.designs[k].discount_to >> d & 1)
                want -= cat.designs[k].discount;
            want = want < 0 ? 0 : want;
            cr_assert_eq(city_effective_cost(&g, 0, d), want, "%s with %s", cat.designs[d].id,
                         cat.designs[k].id);
            cr_assert_eq(city_effective_cost(&g, 1, d), cat.designs[d].cost,
                         "another seat's discount does not apply");
        }
    }
    cr_assert_geq(kinds, 1);
    /* Every kind of discount at once: the discounts add up, floored at 0. */
    struct city_game g;
    blank_board(&g, &cat, 2, 29);
    for (int k = 0; k < cat.ndesigns; k++)
        if (cat.designs[k].discount)
            for (int i = 0; i < CITY_DECK_SIZE; i++)
                if (cat.card_design[i] == k) {
                    to_tableau(&g, 0, i);
                    break;
                }
    for (int d = 0; d < cat.ndesigns; d++) {
        int want = cat.designs[d].cost;
        for (int k = 0; k < cat.ndesigns; k++)
            if (cat.designs[k].discount && (cat.designs[k].discount_to >> d & 1))
                want -= cat.designs[k].discount;
        cr_assert_eq(city_effective_cost(&g, 0, d), want < 0 ? 0 : want, "%s", cat.designs[d].id);
        cr_assert_eq(city_effective_cost(&g, 0, d), rule_cost(&g, 0, d, -1));
    }
}

Test(discount, a_discount_kind_counts_once_however_many_copies_are_owned)
{
    const struct city_design *row = dsg(&cat, "townhouse_row");
    int lux = townhouse_target();
    struct city_game g;
    blank_board(&g, &cat, 2, 31);
    int want = cat.designs[lux].cost - row->discount;
    want = want < 0 ? 0 : want;
    for (int k = 0; k < row->count; k++) {
        give_tableau(&g, 0, "townhouse_row", k);
        cr_assert_eq(city_effective_cost(&g, 0, lux), want, "%d Townhouse Rows", k + 1);
    }
    /* And the build is paid at that cost, not less. */
    int card = give_hand(&g, 0, cat.designs[lux].id, 0);
    give_filler(&g, 0, cat.designs[lux].cost);
    int pay[CITY_MAX_COST];
    hand_cards(&g, 0, card, -1, 0, want, pay);
    if (want > 0)
        SUBMIT_ERR(&g, 0, dec_build(card, want - 1, pay), CITY_ERR_PAYMENT_COUNT);
    SUBMIT_OK(&g, 0, dec_build(card, want, pay));
}

Test(discount, a_discounted_build_pays_the_effective_cost_not_the_printed_one)
{
    int apt = townhouse_target();
    struct city_game g;
    blank_board(&g, &cat, 2, 32);
    give_tableau(&g, 0, "townhouse_row", 0);
    int card = give_hand(&g, 0, cat.designs[apt].id, 0);
    int office = hand_card(&g, 0, plain_card_not(CITY_DOUBLE_MAX_COST, 0, cat.discount_designs));
    give_filler(&g, 0, CITY_MAX_COST);
    int printed = cat.designs[apt].cost, eff = rule_cost(&g, 0, apt, -1);
    cr_assert_lt(eff, printed);
    int pay[CITY_MAX_COST];
    hand_cards(&g, 0, card, office, 0, printed, pay);
    SUBMIT_ERR(&g, 0, dec_build(card, printed, pay), CITY_ERR_PAYMENT_COUNT);
    SUBMIT_OK(&g, 0, dec_build(card, eff, pay));
    /* A card the discount does not name pays its printed cost. */
    int ocost = cat.designs[cat.card_design[office]].cost;
    hand_cards(&g, 0, card, office, 0, ocost, pay);
    SUBMIT_OK(&g, 0, dec_build(office, ocost, pay));
}

/* ---- General Contractor ------------------------------------------------------------------- */

Test(contractor, taking_one_costs_nothing_and_moves_it_from_the_pool_to_the_tableau)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 40);
    give_filler(&g, 0, 3);
    int pool0 = g.npool, discard0 = g.ndiscard;
    SUBMIT_OK(&g, 0, dec_contractor());
    SUBMIT_OK(&g, 1, dec_contractor()); /* two players may take one in the same round */
    SUBMIT_OK(&g, 2, dec_survey());
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(g.npool, pool0 - 2);
    cr_assert_eq(g.ndiscard, discard0, "taking a contractor pays nothing");
    for (int s = 0; s < 2; s++) {
        cr_assert_eq(g.seats[s].ntableau, 1);
        cr_assert(is_contractor(g.seats[s].tableau[0]));
        cr_assert_eq(g.seats[s].reveal.kind, CITY_DEC_CONTRACTOR);
        cr_assert_eq(g.seats[s].reveal.paid, 0);
    }
    cr_assert_eq(g.seats[0].nhand, 3);
    cr_assert_eq(g.step, CITY_STEP_SURVEY);
}

Test(contractor, each_player_may_take_only_one_per_game)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 41);
    SUBMIT_OK(&g, 0, dec_contractor());
    SUBMIT_OK(&g, 1, dec_survey());
    SUBMIT_OK(&g, 2, dec_survey());
    cr_assert(city_resolve(&g, NULL));
    city_fill_defaults(&g, NULL);
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.step, CITY_STEP_BUILD);
    cr_assert_eq(g.round, 2);
    cr_assert_eq(g.npool, 2);
    SUBMIT_ERR(&g, 0, dec_contractor(), CITY_ERR_CONTRACTOR_TAKEN);
    SUBMIT_OK(&g, 1, dec_contractor());
    struct city_build_options o;
    city_build_options(&g, 0, &o);
    cr_assert(!o.contractor);
    city_build_options(&g, 1, &o);
    cr_assert(o.contractor);
}

Test(contractor, an_empty_pool_refuses_a_contractor)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 42);
    while (g.npool)
        to_removed(&g, g.pool[0]);
    cr_assert(city_check_conservation(&g));
    SUBMIT_ERR(&g, 0, dec_contractor(), CITY_ERR_POOL_EMPTY);
    struct city_build_options o;
    city_build_options(&g, 0, &o);
    cr_assert(!o.contractor);
}

Test(contractor, a_contractor_is_never_one_of_a_construction_gangs_two_builds)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 43);
    give_tableau(&g, 0, "construction_gang", 0);
    int a = hand_card(&g, 0, plain_card(0, 0));
    give_filler(&g, 0, 4);
    /* The pool's contractor is not a hand card to build. */
    SUBMIT_ERR(&g, 0, dec_two(g.pool[0], 0, NULL, a, 0, NULL), CITY_ERR_NOT_IN_HAND);
    SUBMIT_ERR(&g, 0, dec_two(a, 0, NULL, g.pool[0], 0, NULL), CITY_ERR_NOT_IN_HAND);
    /* Nor can one be built from hand, first or second. */
    int gc = g.pool[0];
    to_hand(&g, 0, gc);
    SUBMIT_ERR(&g, 0, dec_two(gc, 0, NULL, a, 0, NULL), CITY_ERR_NOT_BUILDABLE);
    SUBMIT_ERR(&g, 0, dec_two(a, 0, NULL, gc, 0, NULL), CITY_ERR_NOT_BUILDABLE);
    struct city_pair pairs[256];
    int n = city_double_pairs(&g, 0, pairs, 256);
    cr_assert_gt(n, 0);
    for (int i = 0; i < n && i < 256; i++)
        cr_assert(!is_contractor(pairs[i].a) && !is_contractor(pairs[i].b));
}

/* ---- build two (Construction Gang) -------------------------------------------------------- */

Test(double_build, building_two_needs_a_construction_gang_of_ones_own)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 50);
    int a = hand_card(&g, 0, plain_card(0, 0));
    int b = hand_card(&g, 0, plain_card(0, 1));
    int gang = give_hand(&g, 0, "construction_gang", 0);
    give_tableau(&g, 1, "construction_gang", 1); /* another seat's gang does not help */
    give_filler(&g, 0, 6);
    SUBMIT_ERR(&g, 0, dec_two(a, 0, NULL, b, 0, NULL), CITY_ERR_NO_DOUBLE);
    /* A gang as the second of the two does not open the double build. */
    int cg = dsg(&cat, "construction_gang")->cost;
    int pay[CITY_MAX_COST];
    hand_cards(&g, 0, a, gang, 1, cg, pay);
    SUBMIT_ERR(&g, 0, dec_two(a, 0, NULL, gang, cg, pay), CITY_ERR_NO_DOUBLE);
    struct city_build_options o;
    city_build_options(&g, 0, &o);
    cr_assert(o.two, "building the gang first is open");
    city_build_options(&g, 1, &o);
    cr_assert(!o.two);
}

Test(double_build, an_owned_gang_builds_two_in_the_order_given)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 51);
    give_tableau(&g, 0, "construction_gang", 0);
    int a = give_hand(&g, 0, "housing_tract", 0);
    int b = hand_card(&g, 0, plain_card(1, 0));
    give_filler(&g, 0, 6);
    int ca = rule_cost(&g, 0, cat.card_design[a], -1);
    int cb = rule_cost(&g, 0, cat.card_design[b], cat.card_design[a]);
    int pa[CITY_MAX_COST], pb[CITY_MAX_COST];
    hand_cards(&g, 0, a, b, 0, ca, pa);
    hand_cards(&g, 0, a, b, ca, cb, pb);
    int hand0 = g.seats[0].nhand, discard0 = g.ndiscard;
    SUBMIT_OK(&g, 0, dec_two(a, ca, pa, b, cb, pb));
    others_take_contractors(&g, 1);
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(g.seats[0].ntableau, 3);
    cr_assert_eq(g.seats[0].tableau[1], a);
    cr_assert_eq(g.seats[0].tableau[2], b);
    cr_assert_eq(g.ndiscard, discard0 + ca + cb);
    cr_assert_eq(g.seats[0].nhand, hand0 - 2 - ca - cb + rule_income(&g, 0));
    cr_assert_eq(g.seats[0].reveal.kind, CITY_DEC_BUILD_TWO);
    cr_assert_eq(g.seats[0].reveal.nbuilt, 2);
    cr_assert_eq(g.seats[0].reveal.paid, ca + cb);
}

Test(double_build, a_gang_built_first_allows_a_second_build_the_same_round)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 52);
    int gang = give_hand(&g, 0, "construction_gang", 0);
    int b = give_hand(&g, 0, "housing_tract", 0);
    give_filler(&g, 0, 6);
    int ca = rule_cost(&g, 0, cat.card_design[gang], -1);
    int cb = rule_cost(&g, 0, cat.card_design[b], cat.card_design[gang]);
    int pa[CITY_MAX_COST], pb[CITY_MAX_COST];
    hand_cards(&g, 0, gang, b, 0, ca, pa);
    hand_cards(&g, 0, gang, b, ca, cb, pb);
    SUBMIT_OK(&g, 0, dec_two(gang, ca, pa, b, cb, pb));
    others_take_contractors(&g, 1);
    cr_assert(city_resolve(&g, NULL));
    cr_assert(in_tableau(&g, 0, gang) && in_tableau(&g, 0, b));
    cr_assert(city_check_conservation(&g));
}

Test(double_build, each_of_the_two_must_have_printed_cost_4_or_less_whatever_the_discount)
{
    cr_assert_eq(CITY_DOUBLE_MAX_COST, 4);
    /* A card of printed cost over 4, with a discount that brings it to 4 or less if the
     * catalog has one. */
    int dear = -1, helper = -1;
    for (int d = 0; d < cat.ndesigns && helper < 0; d++) {
        if (cat.designs[d].cost <= CITY_DOUBLE_MAX_COST || cat.designs[d].contractor ||
            cat.designs[d].nrequires || cat.designs[d].limit)
            continue;
        if (dear < 0)
            dear = d;
        for (int k = 0; k < cat.ndesigns; k++)
            if ((cat.designs[k].discount_to >> d & 1) && !cat.designs[k].limit &&
                cat.designs[d].cost - cat.designs[k].discount <= CITY_DOUBLE_MAX_COST)
                dear = d, helper = k;
    }
    cr_assert_geq(dear, 0);
    struct city_game g;
    blank_board(&g, &cat, 2, 53);
    give_tableau(&g, 0, "construction_gang", 0);
    if (helper >= 0) {
        give_tableau(&g, 0, cat.designs[helper].id, 0);
        cr_assert_leq(rule_cost(&g, 0, dear, -1), CITY_DOUBLE_MAX_COST);
    }
    int four = hand_card(&g, 0, plain_card(CITY_DOUBLE_MAX_COST, 0));
    int cheap = hand_card(&g, 0, plain_card(0, 0));
    int lux = give_hand(&g, 0, cat.designs[dear].id, 0);
    give_filler(&g, 0, CITY_MAX_COST + 1);
    int c4 = rule_cost(&g, 0, cat.card_design[four], -1);
    int cl = rule_cost(&g, 0, dear, -1);
    int p[CITY_MAX_COST], q[CITY_MAX_COST];
    hand_cards(&g, 0, four, lux, 1, cl, p);
    SUBMIT_ERR(&g, 0, dec_two(cheap, 0, NULL, lux, cl, p), CITY_ERR_DOUBLE_COST);
    SUBMIT_ERR(&g, 0, dec_two(lux, cl, p, cheap, 0, NULL), CITY_ERR_DOUBLE_COST);
    hand_cards(&g, 0, four, cheap, 0, c4, q);
    SUBMIT_OK(&g, 0, dec_two(cheap, 0, NULL, four, c4, q));
    /* A single build of the same card is fine. */
    SUBMIT_OK(&g, 0, dec_build(lux, cl, p));
}

Test(double_build, the_first_build_counts_for_the_second_builds_discount)
{
    /* Find a discount design and a design it discounts, both of printed cost <= 4. */
    int dd = -1, td = -1;
    for (int k = 0; k < cat.ndesigns && td < 0; k++) {
        const struct city_design *x = &cat.designs[k];
        if (!x->discount || x->cost > CITY_DOUBLE_MAX_COST)
            continue;
        for (int t = 0; t < cat.ndesigns && td < 0; t++)
            if (t != k && (x->discount_to >> t & 1) &&
                cat.designs[t].cost <= CITY_DOUBLE_MAX_COST && cat.designs[t].cost > 0 &&
                !cat.designs[t].nrequires && !cat.designs[t].construction_gang)
                dd = k, td = t;
    }
    cr_assert_geq(td, 0, "the catalog should let a cheap discount card help a cheap card");
    struct city_game g;
    blank_board(&g, &cat, 2, 54);
    give_tableau(&g, 0, "construction_gang", 0);
    int a = give_hand(&g, 0, cat.designs[dd].id, 0);
    int b = give_hand(&g, 0, cat.designs[td].id, 0);
    give_filler(&g, 0, 8);
    int ca = rule_cost(&g, 0, dd, -1);
    int cb = rule_cost(&g, 0, td, dd);
    cr_assert_lt(cb, cat.designs[td].cost);
    int pa[CITY_MAX_COST], pb[CITY_MAX_COST];
    hand_cards(&g, 0, a, b, 0, ca, pa);
    hand_cards(&g, 0, a, b, ca, cat.designs[td].cost, pb);
    SUBMIT_ERR(&g, 0, dec_two(a, ca, pa, b, cat.designs[td].cost, pb), CITY_ERR_PAYMENT_COUNT);
    SUBMIT_OK(&g, 0, dec_two(a, ca, pa, b, cb, pb));
    /* In the other order the discount card comes too late. */
    int cb0 = rule_cost(&g, 0, td, -1), ca1 = rule_cost(&g, 0, dd, td);
    hand_cards(&g, 0, a, b, 0, cb0, pb);
    hand_cards(&g, 0, a, b, cb0, ca1, pa);
    SUBMIT_OK(&g, 0, dec_two(b, cb0, pb, a, ca1, pa));
    cr_assert_eq(cb0, cat.designs[td].cost);
}

Test(double_build, the_first_build_counts_for_the_second_builds_prerequisites)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 55);
    give_tableau(&g, 0, "construction_gang", 0);
    int tract = give_hand(&g, 0, "housing_tract", 0);
    int school = give_hand(&g, 0, "schools", 0);
    cr_assert_leq(dsg(&cat, "schools")->cost, CITY_DOUBLE_MAX_COST);
    give_filler(&g, 0, 6);
    int ct = rule_cost(&g, 0, cat.card_design[tract], -1);
    int cs = rule_cost(&g, 0, cat.card_design[school], -1);
    int pt[CITY_MAX_COST], ps[CITY_MAX_COST];
    hand_cards(&g, 0, tract, school, 0, ct, pt);
    hand_cards(&g, 0, tract, school, ct, cs, ps);
    SUBMIT_ERR(&g, 0, dec_build(school, cs, ps), CITY_ERR_PREREQUISITE);
    SUBMIT_ERR(&g, 0, dec_two(school, cs, ps, tract, ct, pt), CITY_ERR_PREREQUISITE);
    SUBMIT_OK(&g, 0, dec_two(tract, ct, pt, school, cs, ps));
    others_take_contractors(&g, 1);
    cr_assert(city_resolve(&g, NULL));
    cr_assert(in_tableau(&g, 0, tract) && in_tableau(&g, 0, school));
}

Test(double_build, no_card_may_be_used_twice)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 56);
    give_tableau(&g, 0, "construction_gang", 0);
    int a = give_hand(&g, 0, "housing_tract", 0);
    int b = hand_card(&g, 0, plain_card(1, 0));
    int t = hand_card(&g, 0, plain_card(0, 0));
    give_filler(&g, 0, 4);
    int ca = rule_cost(&g, 0, cat.card_design[a], -1);
    int cb = rule_cost(&g, 0, cat.card_design[b], cat.card_design[a]);
    cr_assert(ca >= 1 && cb >= 1);
    int pa[CITY_MAX_COST], pb[CITY_MAX_COST];
    hand_cards(&g, 0, a, b, 0, ca, pa);
    hand_cards(&g, 0, a, b, ca, cb, pb);
    /* The same card built twice. */
    SUBMIT_ERR(&g, 0, dec_two(t, 0, NULL, t, 0, NULL), CITY_ERR_DUPLICATE_CARD);
    /* The second card paid for the first, or the first card for the second. */
    int x[CITY_MAX_COST];
    memcpy(x, pa, sizeof x);
    x[0] = b;
    SUBMIT_ERR(&g, 0, dec_two(a, ca, x, b, cb, pb), CITY_ERR_DUPLICATE_CARD);
    memcpy(x, pb, sizeof x);
    x[0] = a;
    SUBMIT_ERR(&g, 0, dec_two(a, ca, pa, b, cb, x), CITY_ERR_DUPLICATE_CARD);
    /* One card paid for both. */
    memcpy(x, pb, sizeof x);
    x[0] = pa[0];
    SUBMIT_ERR(&g, 0, dec_two(a, ca, pa, b, cb, x), CITY_ERR_DUPLICATE_CARD);
    SUBMIT_OK(&g, 0, dec_two(a, ca, pa, b, cb, pb));
}

Test(double_build, each_build_has_its_own_payment)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 57);
    give_tableau(&g, 0, "construction_gang", 0);
    int a = hand_card(&g, 0, plain_card(0, 0));
    int b = hand_card(&g, 0, plain_card(CITY_DOUBLE_MAX_COST, 0));
    give_filler(&g, 0, 6);
    int ca = rule_cost(&g, 0, cat.card_design[a], -1);
    int cb = rule_cost(&g, 0, cat.card_design[b], cat.card_design[a]);
    cr_assert_neq(ca, cb);
    int p[2 * CITY_MAX_COST];
    hand_cards(&g, 0, a, b, 0, ca + cb, p);
    /* The right total split the wrong way is refused. */
    SUBMIT_ERR(&g, 0, dec_two(a, cb, p, b, ca, p + cb), CITY_ERR_PAYMENT_COUNT);
    SUBMIT_OK(&g, 0, dec_two(a, ca, p, b, cb, p + ca));
}

Test(double_build, a_surveying_gang_owner_builds_nothing)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 58);
    give_tableau(&g, 0, "construction_gang", 0);
    to_hand(&g, 0, plain_card(0, 0));
    to_hand(&g, 0, plain_card(0, 1));
    SUBMIT_OK(&g, 0, dec_survey());
    others_take_contractors(&g, 1);
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.seats[0].ntableau, 1);
    cr_assert_eq(g.seats[0].reveal.nbuilt, 0);
    cr_assert_eq(g.seats[0].drew, CITY_SURVEY_DRAW);
    cr_assert_eq(g.seats[0].nhand, 2 + CITY_SURVEY_DRAW);
}

/* ---- simultaneous reveal ------------------------------------------------------------------ */

Test(reveal, nothing_enters_a_tableau_until_every_seat_has_submitted_and_the_step_resolves)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 60);
    int a = hand_card(&g, 0, plain_card(0, 0));
    int b = hand_card(&g, 1, plain_card(1, 0));
    give_filler(&g, 1, 1);
    int pb[1];
    hand_cards(&g, 1, b, -1, 0, 1, pb);
    SUBMIT_OK(&g, 0, dec_build(a, 0, NULL));
    struct city_game snap;
    memcpy(&snap, &g, sizeof g);
    cr_assert(!city_ready(&g));
    cr_assert(!city_resolve(&g, NULL), "cannot resolve before every seat has submitted");
    cr_assert(memcmp(&snap, &g, sizeof g) == 0);
    cr_assert(in_hand(&g, 0, a) && g.seats[0].ntableau == 0);
    SUBMIT_OK(&g, 1, dec_build(b, 1, pb));
    cr_assert(!city_ready(&g));
    cr_assert(in_hand(&g, 1, b) && in_hand(&g, 1, pb[0]) && g.seats[1].ntableau == 0);
    SUBMIT_OK(&g, 2, dec_contractor());
    cr_assert(city_ready(&g));
    cr_assert_eq(g.seats[0].ntableau + g.seats[1].ntableau + g.seats[2].ntableau, 0);
    cr_assert_eq(g.seats[0].reveal.kind, CITY_DEC_NONE,
                 "nothing revealed before the step resolves");
    cr_assert(city_resolve(&g, NULL));
    cr_assert(in_tableau(&g, 0, a) && in_tableau(&g, 1, b));
    cr_assert(is_contractor(g.seats[2].tableau[0]));
    cr_assert(city_check_conservation(&g));
}

Test(reveal, a_later_submission_replaces_the_earlier_one)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 61);
    int a = hand_card(&g, 0, plain_card(0, 0));
    SUBMIT_OK(&g, 0, dec_build(a, 0, NULL));
    SUBMIT_OK(&g, 0, dec_survey());
    SUBMIT_OK(&g, 1, dec_survey());
    SUBMIT_OK(&g, 1, dec_contractor());
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.seats[0].ntableau, 0);
    cr_assert_eq(g.seats[0].drew, CITY_SURVEY_DRAW);
    cr_assert_eq(g.seats[1].drew, 0);
    cr_assert_eq(g.seats[1].ntableau, 1);
}

Test(reveal, a_refused_submission_keeps_the_earlier_decision)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 62);
    int a = hand_card(&g, 0, plain_card(0, 0));
    int b = hand_card(&g, 0, plain_card(CITY_DOUBLE_MAX_COST, 0));
    SUBMIT_OK(&g, 0, dec_build(a, 0, NULL));
    SUBMIT_ERR(&g, 0, dec_build(b, 0, NULL), CITY_ERR_PAYMENT_COUNT);
    cr_assert(g.seats[0].submitted);
    cr_assert_eq(g.seats[0].order.builds[0].card, a);
}

Test(reveal, the_reveal_tells_what_each_seat_chose_and_how_many_cards_it_paid)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 63);
    int a = hand_card(&g, 0, plain_card(CITY_DOUBLE_MAX_COST, 0));
    int cost = rule_cost(&g, 0, cat.card_design[a], -1);
    give_filler(&g, 0, cost);
    int pay[CITY_MAX_COST];
    hand_cards(&g, 0, a, -1, 0, cost, pay);
    SUBMIT_OK(&g, 0, dec_build(a, cost, pay));
    SUBMIT_OK(&g, 1, dec_survey());
    SUBMIT_OK(&g, 2, dec_contractor());
    struct recorder r = {0};
    struct city_events ev = {record_event, &r};
    cr_assert(city_resolve(&g, &ev));
    cr_assert_eq(g.seats[0].reveal.kind, CITY_DEC_BUILD);
    cr_assert_eq(g.seats[0].reveal.built[0], a);
    cr_assert_eq(g.seats[0].reveal.paid, cost);
    cr_assert_eq(g.seats[1].reveal.kind, CITY_DEC_SURVEY);
    cr_assert_eq(g.seats[1].reveal.nbuilt, 0);
    cr_assert_eq(g.seats[2].reveal.kind, CITY_DEC_CONTRACTOR);
    cr_assert_eq(count_events(&r, CITY_EV_BUILT, 0), 1);
    cr_assert_eq(count_events(&r, CITY_EV_SURVEYED, 1), 1);
    cr_assert_eq(count_events(&r, CITY_EV_CONTRACTOR, 2), 1);
    for (int i = 0; i < r.n; i++)
        if (r.ev[i].type == CITY_EV_BUILT)
            cr_assert(r.ev[i].card == a && r.ev[i].count == cost);
}

/* ---- survey ------------------------------------------------------------------------------- */

Test(survey, surveyors_draw_five_each_in_seat_order)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 70);
    int top[2 * CITY_SURVEY_DRAW];
    for (int i = 0; i < 2 * CITY_SURVEY_DRAW; i++)
        top[i] = g.deck[g.ndeck - 1 - i];
    SUBMIT_OK(&g, 2, dec_survey()); /* submission order does not matter */
    SUBMIT_OK(&g, 1, dec_contractor());
    SUBMIT_OK(&g, 0, dec_survey());
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(g.step, CITY_STEP_SURVEY);
    for (int i = 0; i < CITY_SURVEY_DRAW; i++) {
        cr_assert(in_hand(&g, 0, top[i]), "seat 0 draws first");
        cr_assert(in_hand(&g, 2, top[CITY_SURVEY_DRAW + i]), "seat 2 draws next");
    }
    cr_assert_eq(g.seats[0].drew, CITY_SURVEY_DRAW);
    cr_assert_eq(g.seats[2].drew, CITY_SURVEY_DRAW);
    cr_assert_eq(g.seats[1].drew, 0);
    cr_assert(game_seat_pending(&g, 0) && game_seat_pending(&g, 2));
    cr_assert(!game_seat_pending(&g, 1));
    cr_assert_eq(city_discard_count(&g, 0), CITY_SURVEY_DRAW - 1);
    SUBMIT_ERR(&g, 1, dec_discard(0, NULL), CITY_ERR_NOT_PENDING);
}

Test(survey, a_surveyor_discards_one_fewer_than_drawn_from_the_whole_hand)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 71);
    int old1 = hand_card(&g, 0, plain_card(0, 0));
    int old2 = hand_card(&g, 0, plain_card(0, 1));
    SUBMIT_OK(&g, 0, dec_survey());
    others_take_contractors(&g, 1);
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.step, CITY_STEP_SURVEY);
    int n = CITY_SURVEY_DRAW - 1;
    int d[CITY_SURVEY_DRAW + 2];
    d[0] = old1; /* cards held before the survey may go too */
    d[1] = old2;
    hand_cards(&g, 0, old1, old2, 0, n, d + 2);
    SUBMIT_ERR(&g, 0, dec_discard(n - 1, d), CITY_ERR_DISCARD_COUNT);
    SUBMIT_ERR(&g, 0, dec_discard(n + 1, d), CITY_ERR_DISCARD_COUNT);
    SUBMIT_ERR(&g, 0, dec_build(old1, 0, NULL), CITY_ERR_WRONG_KIND);
    SUBMIT_OK(&g, 0, dec_discard(n, d));
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert(!in_hand(&g, 0, old1) && !in_hand(&g, 0, old2));
    cr_assert_eq(g.seats[0].nhand, 2 + 1, "a survey nets one card");
    cr_assert_eq(g.step, CITY_STEP_BUILD);
    cr_assert_eq(g.round, 2);
}

Test(survey, a_survey_draws_fewer_when_deck_and_discard_together_hold_fewer)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 72);
    /* Leave 1 card in the deck and 2 in the discard pile: the rest go to seat 1's hand. */
    while (g.ndeck > 3)
        to_hand(&g, 1, g.deck[0]);
    to_discard(&g, g.deck[0]);
    to_discard(&g, g.deck[0]);
    cr_assert_eq(g.ndeck + g.ndiscard, 3);
    int pool[3] = {g.deck[0], g.discard[0], g.discard[1]};
    SUBMIT_OK(&g, 0, dec_survey());
    others_take_contractors(&g, 1);
    int reshuffles = g.reshuffles;
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(g.seats[0].drew, 3);
    cr_assert_eq(g.reshuffles, reshuffles + 1);
    for (int i = 0; i < 3; i++)
        cr_assert(in_hand(&g, 0, pool[i]));
    cr_assert_eq(g.step, CITY_STEP_SURVEY);
    cr_assert_eq(city_discard_count(&g, 0), 2);
}

Test(survey, a_survey_that_draws_one_card_or_none_has_nothing_to_discard)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 73);
    while (g.ndeck > 1)
        to_hand(&g, 1, g.deck[0]);
    SUBMIT_OK(&g, 0, dec_survey());
    SUBMIT_OK(&g, 1, dec_survey());
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(g.seats[0].drew, 1);
    cr_assert_eq(g.seats[1].drew, 0);
    cr_assert_neq(g.step, CITY_STEP_SURVEY, "nobody has anything to discard");
}

Test(survey, step_survey_is_skipped_when_nobody_surveyed)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 74);
    int a = hand_card(&g, 0, plain_card(0, 0));
    SUBMIT_OK(&g, 0, dec_build(a, 0, NULL));
    SUBMIT_OK(&g, 1, dec_contractor());
    struct recorder r = {0};
    struct city_events ev = {record_event, &r};
    cr_assert(city_resolve(&g, &ev));
    cr_assert_eq(g.step, CITY_STEP_BUILD);
    cr_assert_eq(g.round, 2);
    for (int i = 0; i < r.n; i++)
        cr_assert(!(r.ev[i].type == CITY_EV_STEP && r.ev[i].step == CITY_STEP_SURVEY));
}

Test(survey, a_survey_reshuffles_the_discard_pile_when_the_deck_runs_out)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 75);
    while (g.ndeck > 2)
        to_discard(&g, g.deck[0]);
    int d0 = g.deck[1], d1 = g.deck[0];
    SUBMIT_OK(&g, 0, dec_survey());
    others_take_contractors(&g, 1);
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(g.seats[0].drew, CITY_SURVEY_DRAW);
    cr_assert_eq(g.seats[0].hand[0], d0);
    cr_assert_eq(g.seats[0].hand[1], d1);
    cr_assert_eq(g.reshuffles, 1);
    cr_assert_eq(g.ndiscard, 0);
}

/* ---- scoring ------------------------------------------------------------------------------ */

Test(score, a_card_without_variable_points_scores_its_printed_points)
{
    for (int d = 0; d < cat.ndesigns; d++) {
        const struct city_design *x = &cat.designs[d];
        if (x->vp_var.kind || x->income_var.kind)
            continue;
        struct city_game g;
        blank_board(&g, &cat, 2, 80);
        int c = -1;
        for (int i = 0; i < CITY_DECK_SIZE && c < 0; i++)
            if (cat.card_design[i] == d)
                c = i;
        to_tableau(&g, 0, c);
        cr_assert_eq(city_card_vp(&g, 0, 0), x->vp, "%s", x->id);
        cr_assert_eq(city_card_income(&g, 0, 0), x->income, "%s", x->id);
        cr_assert_eq(city_seat_round_vp(&g, 0), x->vp);
        cr_assert_eq(city_seat_income(&g, 0), x->income);
    }
    const struct city_design *gc = dsg(&cat, "general_contractor");
    cr_assert(gc->cost == 0 && gc->vp == 0 && gc->income == 1);
}

Test(score, vp_per_icon_counts_an_icon_printed_several_times_once_per_print)
{
    const struct city_design *fi = dsg(&cat, "freeway_interchange");
    const struct city_design *ap = dsg(&cat, "amusement_park");
    cr_assert_eq(fi->vp_var.kind, CITY_VAR_ICON);
    int icon = fi->vp_var.icon;
    cr_assert_gt(ap->icons[icon], 1, "Amusement Park prints its icon more than once");
    /* One more plain card showing the icon. */
    int other = -1;
    for (int c = 0; c < CITY_DECK_SIZE && other < 0; c++)
        if (is_plain(cat.card_design[c]) && cat.designs[cat.card_design[c]].icons[icon])
            other = c;
    cr_assert_geq(other, 0);
    const struct city_design *od = &cat.designs[cat.card_design[other]];
    struct city_game g;
    blank_board(&g, &cat, 2, 81);
    give_tableau(&g, 0, "freeway_interchange", 0);
    give_tableau(&g, 0, "amusement_park", 0);
    to_tableau(&g, 0, other);
    give_tableau(&g, 1, "amusement_park", 1); /* another tableau's icons do not count */
    int icons = fi->icons[icon] + ap->icons[icon] + od->icons[icon];
    cr_assert_eq(city_card_vp(&g, 0, 0), fi->vp + fi->vp_var.amount * icons);
    cr_assert_eq(city_seat_round_vp(&g, 0), fi->vp + fi->vp_var.amount * icons + ap->vp + od->vp);
    cr_assert_eq(city_seat_round_vp(&g, 0), rule_round_vp(&g, 0));
}

Test(score, central_park_counts_its_own_icon)
{
    const struct city_design *cp = dsg(&cat, "central_park");
    cr_assert_eq(cp->vp_var.kind, CITY_VAR_ICON);
    cr_assert_gt(cp->icons[cp->vp_var.icon], 0, "Central Park shows the icon it counts");
    struct city_game g;
    blank_board(&g, &cat, 2, 82);
    give_tableau(&g, 0, "central_park", 0);
    cr_assert_eq(city_card_vp(&g, 0, 0), cp->vp + cp->vp_var.amount * cp->icons[cp->vp_var.icon]);
    int other = icon_card(cp->vp_var.icon, 0);
    to_tableau(&g, 0, other);
    const struct city_design *nc = &cat.designs[cat.card_design[other]];
    int icons = cp->icons[cp->vp_var.icon] + nc->icons[cp->vp_var.icon];
    cr_assert_eq(city_card_vp(&g, 0, 0), cp->vp + cp->vp_var.amount * icons);
}

Test(score, luxury_homes_score_per_other_copy_in_the_owners_tableau)
{
    const struct city_design *lh = dsg(&cat, "luxury_homes");
    cr_assert_eq(lh->vp_var.kind, CITY_VAR_OTHER_COPY);
    struct city_game g;
    blank_board(&g, &cat, 2, 83);
    give_tableau(&g, 1, "luxury_homes", lh->count - 1); /* another player's copy */
    for (int n = 1; n < lh->count; n++) {
        give_tableau(&g, 0, "luxury_homes", n - 1);
        int each = lh->vp + lh->vp_var.amount * (n - 1);
        for (int p = 0; p < n; p++)
            cr_assert_eq(city_card_vp(&g, 0, p), each, "%d copies", n);
        cr_assert_eq(city_seat_round_vp(&g, 0), n * each);
    }
    cr_assert_eq(city_seat_round_vp(&g, 1), lh->vp);
}

Test(score, subway_system_adds_the_best_other_tableau_and_never_its_owners_twice)
{
    const struct city_design *ss = dsg(&cat, "subway_system");
    cr_assert_eq(ss->vp_var.kind, CITY_VAR_ICON_WITH_OTHER);
    int icon = ss->vp_var.icon;
    struct city_game g;
    blank_board(&g, &cat, 3, 84);
    give_tableau(&g, 0, "subway_system", 0);
    int own = ss->icons[icon];
    cr_assert_eq(city_card_vp(&g, 0, 0), ss->vp + ss->vp_var.amount * own,
                 "no other tableau has any: only the owner's own");
    /* The owner holds the most; the best *other* tableau counts, not the owner's again. */
    int next = 0;
    to_tableau(&g, 1, icon_card(icon, next++));
    while (icons_of(&g, 0, icon) <= 2 * icons_of(&g, 1, icon) + 2)
        to_tableau(&g, 0, icon_card(icon, next++));
    own = icons_of(&g, 0, icon);
    int one = icons_of(&g, 1, icon);
    cr_assert_gt(one, 0);
    cr_assert_eq(city_card_vp(&g, 0, 0), ss->vp + ss->vp_var.amount * (own + one));
    /* Seat 2 gets more than seat 1 (and fewer than the owner): the engine picks seat 2. */
    while (icons_of(&g, 2, icon) <= one)
        to_tableau(&g, 2, icon_card(icon, next++));
    int two = icons_of(&g, 2, icon);
    cr_assert(two > one && two < own);
    cr_assert_eq(city_card_vp(&g, 0, 0), ss->vp + ss->vp_var.amount * (own + two));
    cr_assert_eq(city_seat_round_vp(&g, 0), rule_round_vp(&g, 0));
}

Test(score, university_counts_schools_in_every_tableau)
{
    const struct city_design *u = dsg(&cat, "university");
    cr_assert_eq(u->vp_var.kind, CITY_VAR_CARD_ALL);
    cr_assert_eq(u->vp_var.card, design(&cat, "schools"));
    struct city_game g;
    blank_board(&g, &cat, 3, 85);
    give_tableau(&g, 0, "university", 0);
    cr_assert_eq(city_card_vp(&g, 0, 0), u->vp);
    int schools = dsg(&cat, "schools")->count;
    for (int k = 0; k < schools; k++) {
        give_tableau(&g, k % 3, "schools", k);
        cr_assert_eq(city_card_vp(&g, 0, 0), u->vp + u->vp_var.amount * (k + 1));
    }
    cr_assert_eq(city_seat_round_vp(&g, 0), rule_round_vp(&g, 0));
}

Test(score, variable_income_counts_as_variable_points_do)
{
    const struct city_design *fw = dsg(&cat, "freeway");
    cr_assert_eq(fw->income_var.kind, CITY_VAR_CARD_OWN);
    cr_assert_eq(fw->income_var.card, design(&cat, "freeway_interchange"));
    struct city_game g;
    blank_board(&g, &cat, 2, 86);
    give_tableau(&g, 0, "freeway", 0);
    cr_assert_eq(city_card_income(&g, 0, 0), fw->income);
    give_tableau(&g, 0, "freeway_interchange", 0);
    give_tableau(&g, 0, "freeway_interchange", 1);
    give_tableau(&g, 1, "freeway_interchange", 2); /* not the owner's */
    cr_assert_eq(city_card_income(&g, 0, 0), fw->income + fw->income_var.amount * 2);
    /* Income per icon counts the card's own icons and every print, as points do. */
    int checked = 0;
    for (int d = 0; d < cat.ndesigns; d++) {
        const struct city_design *x = &cat.designs[d];
        if (x->income_var.kind != CITY_VAR_ICON)
            continue;
        blank_board(&g, &cat, 2, 86u + (unsigned)d);
        give_tableau(&g, 0, x->id, 0);
        to_tableau(&g, 0, icon_card(x->income_var.icon, 0));
        to_tableau(&g, 1, icon_card(x->income_var.icon, 1));
        int icons = x->icons[x->income_var.icon] +
                    cat.designs[cat.card_design[g.seats[0].tableau[1]]].icons[x->income_var.icon];
        cr_assert_eq(city_card_income(&g, 0, 0), x->income + x->income_var.amount * icons, "%s",
                     x->id);
        checked++;
    }
    cr_log_info("%d designs with income per icon", checked);
    cr_assert_eq(city_seat_income(&g, 0), rule_income(&g, 0));
}

Test(score, engine_scores_and_income_match_the_rules_on_random_tableaux)
{
    struct city_rng r;
    rng_seed(&r, 87);
    for (int trial = 0; trial < 300; trial++) {
        int players = CITY_MIN_PLAYERS + (int)rng_below(&r, 4);
        struct city_game g;
        cr_assert_eq(city_new(&g, &cat, players, trial, 0), CITY_OK);
        /* Deal random deck cards into random tableaux. */
        int n = (int)rng_below(&r, 40);
        for (int i = 0; i < n && g.ndeck; i++)
            to_tableau(&g, (int)rng_below(&r, (uint32_t)players), g.deck[rng_below(&r, g.ndeck)]);
        cr_assert(city_check_conservation(&g));
        for (int s = 0; s < players; s++) {
            cr_assert_eq(city_seat_round_vp(&g, s), rule_round_vp(&g, s));
            cr_assert_eq(city_seat_income(&g, s), rule_income(&g, s));
            int sum = 0, inc = 0;
            for (int p = 0; p < g.seats[s].ntableau; p++) {
                sum += city_card_vp(&g, s, p);
                inc += city_card_income(&g, s, p);
            }
            cr_assert_eq(sum, city_seat_round_vp(&g, s));
            cr_assert_eq(inc, city_seat_income(&g, s));
            for (int d = 0; d < cat.ndesigns; d++)
                cr_assert_eq(city_effective_cost(&g, s, d), rule_cost(&g, s, d, -1));
        }
    }
}

Test(score, a_round_adds_every_tableau_cards_points_including_this_rounds_builds)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 88);
    give_tableau(&g, 0, "freeway_interchange", 0);
    give_tableau(&g, 0, "opera_house", 0);
    give_tableau(&g, 1, "skyscrapers", 0);
    g.seats[0].vp = 7;
    g.seats[1].vp = 3;
    int a = hand_card(&g, 0, plain_card(1, 0));
    int ca = rule_cost(&g, 0, cat.card_design[a], -1);
    give_filler(&g, 0, ca);
    int pay[CITY_MAX_COST];
    hand_cards(&g, 0, a, -1, 0, ca, pay);
    SUBMIT_OK(&g, 0, dec_build(a, ca, pay));
    SUBMIT_OK(&g, 1, dec_contractor());
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.round, 2);
    cr_assert_eq(g.seats[0].vp, 7 + rule_round_vp(&g, 0));
    cr_assert_eq(g.seats[1].vp, 3 + rule_round_vp(&g, 1));
    cr_assert_eq(g.seats[0].vp_by_round[1], g.seats[0].vp);
    cr_assert_eq(g.seats[1].vp_by_round[1], g.seats[1].vp);
}

/* ---- income ------------------------------------------------------------------------------- */

Test(income, each_player_draws_its_whole_income_after_scoring)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 90);
    give_tableau(&g, 0, "mall", 0);
    give_tableau(&g, 0, "freeway", 0);
    give_tableau(&g, 0, "freeway_interchange", 0);
    give_tableau(&g, 1, "housing_tract", 0);
    set_score_after_round(&g, 0, 20);
    set_score_after_round(&g, 1, 10);
    others_take_contractors(&g, 0);
    int top[16];
    for (int i = 0; i < 16; i++)
        top[i] = g.deck[g.ndeck - 1 - i];
    struct recorder r = {0};
    struct city_events ev = {record_event, &r};
    cr_assert(city_resolve(&g, &ev));
    int inc0 = rule_income(&g, 0), inc1 = rule_income(&g, 1);
    cr_assert_eq(g.seats[0].nhand, inc0);
    cr_assert_eq(g.seats[1].nhand, inc1);
    cr_assert_eq(g.seats[0].last_income, inc0);
    cr_assert_eq(g.seats[1].last_income, inc1);
    cr_assert_eq(count_events(&r, CITY_EV_INCOME, -2), 2);
    cr_assert_gt(g.seats[0].vp, g.seats[1].vp);
    for (int i = 0; i < inc0; i++)
        cr_assert_eq(g.seats[0].hand[i], top[i], "the leader draws first");
    for (int i = 0; i < inc1; i++)
        cr_assert_eq(g.seats[1].hand[i], top[inc0 + i]);
    cr_assert(city_check_conservation(&g));
}

Test(income, players_draw_in_vp_order_highest_first_and_ties_in_seat_order)
{
    struct city_game g;
    blank_board(&g, &cat, 4, 91);
    for (int s = 0; s < 4; s++)
        for (int k = 0; k <= s; k++)
            to_tableau(&g, s, plain_income_card(&g));
    const int total[4] = {25, 39, 25, 39};
    for (int s = 0; s < 4; s++)
        set_score_after_round(&g, s, total[s]);
    others_take_contractors(&g, 0);
    int top[64];
    for (int i = 0; i < 64; i++)
        top[i] = g.deck[g.ndeck - 1 - i];
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    for (int s = 0; s < 4; s++)
        cr_assert_eq(g.seats[s].vp, total[s]);
    const int order[4] = {1, 3, 0, 2};
    int k = 0;
    for (int i = 0; i < 4; i++) {
        int s = order[i], inc = rule_income(&g, s);
        cr_assert_eq(g.seats[s].nhand, inc);
        for (int j = 0; j < inc; j++)
            cr_assert_eq(g.seats[s].hand[j], top[k++], "seat %d draws in turn %d", s, i);
    }
}

/* Income seat `seat` will draw this round if it takes a General Contractor and its tableau
 * is otherwise left as it is (contractors show no icon, so no variable value changes). */
static int income_with_contractor(const struct city_game *g, int seat)
{
    return rule_income(g, seat) + cat.designs[cat.contractor_design].income;
}

Test(income, the_discard_pile_is_reshuffled_into_a_new_deck_when_the_deck_runs_out)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 92);
    for (int s = 0; s < 3; s++)
        to_tableau(&g, s, plain_income_card(&g));
    set_score_after_round(&g, 0, 1);
    set_score_after_round(&g, 1, 10);
    set_score_after_round(&g, 2, 4);
    int inc[3];
    for (int s = 0; s < 3; s++)
        inc[s] = income_with_contractor(&g, s);
    cr_assert_geq(inc[2], 2);
    others_take_contractors(&g, 0);
    /* Seat 1 draws first, then seat 2 draws the last deck card and goes on from the
     * reshuffled discard pile, then seat 0. */
    while (g.ndeck > inc[1] + 1)
        to_discard(&g, g.deck[0]);
    int top[CITY_DECK_SIZE];
    for (int i = 0; i < g.ndeck; i++)
        top[i] = g.deck[g.ndeck - 1 - i];
    uint8_t old[CITY_DECK_SIZE];
    int nold = g.ndiscard;
    memcpy(old, g.discard, (size_t)nold);
    struct recorder r = {0};
    struct city_events ev = {record_event, &r};
    cr_assert(city_resolve(&g, &ev));
    cr_assert(city_check_conservation(&g));
    for (int s = 0; s < 3; s++)
        cr_assert_eq(rule_income(&g, s), inc[s]);
    cr_assert_eq(g.reshuffles, 1);
    cr_assert_eq(count_events(&r, CITY_EV_RESHUFFLED, -2), 1);
    for (int j = 0; j < inc[1]; j++)
        cr_assert_eq(g.seats[1].hand[j], top[j]);
    cr_assert_eq(g.seats[2].hand[0], top[inc[1]]);
    for (int j = 1; j < inc[2]; j++)
        cr_assert(memchr(old, g.seats[2].hand[j], (size_t)nold) != NULL);
    for (int j = 0; j < inc[0]; j++)
        cr_assert(memchr(old, g.seats[0].hand[j], (size_t)nold) != NULL);
    cr_assert_eq(g.ndiscard, 0);
    cr_assert_eq(g.ndeck, nold - (inc[2] - 1) - inc[0]);
}

Test(income, when_deck_and_discard_cannot_pay_everyone_the_game_ends_and_nobody_draws)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 93);
    give_tableau(&g, 0, "opera_house", 0);
    to_tableau(&g, 0, plain_income_card(&g));
    to_tableau(&g, 1, plain_income_card(&g));
    int need = income_with_contractor(&g, 0) + income_with_contractor(&g, 1);
    cr_assert_geq(need, 3);
    others_take_contractors(&g, 0);
    /* Leave one card fewer than the income, split over deck and discard pile. */
    while (g.ndeck > need - 1)
        to_hand(&g, 1, g.deck[0]);
    to_discard(&g, g.deck[0]);
    struct city_game before;
    memcpy(&before, &g, sizeof g);
    struct recorder r = {0};
    struct city_events ev = {record_event, &r};
    cr_assert(city_resolve(&g, &ev));
    cr_assert(city_check_conservation(&g));
    cr_assert_eq(rule_income(&g, 0) + rule_income(&g, 1), need);
    cr_assert_eq(g.step, CITY_STEP_OVER);
    cr_assert(g.ended_by_deck);
    cr_assert_eq(count_events(&r, CITY_EV_NO_INCOME, -2), 1);
    cr_assert_eq(count_events(&r, CITY_EV_INCOME, -2), 0);
    cr_assert_eq(g.seats[0].nhand, before.seats[0].nhand);
    cr_assert_eq(g.seats[1].nhand, before.seats[1].nhand);
    cr_assert_eq(g.ndeck, need - 2);
    cr_assert_eq(g.ndiscard, 1);
    cr_assert_eq(g.seats[0].vp, rule_round_vp(&g, 0), "points were scored before income");
    cr_assert_lt(g.seats[0].vp, g.target_vp);
    cr_assert_gt(g.seats[0].vp, g.seats[1].vp);
    cr_assert_eq(g.winners, 1u << 0);
}

Test(income, when_deck_and_discard_hold_exactly_the_income_everyone_draws)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 94);
    to_tableau(&g, 0, plain_income_card(&g));
    to_tableau(&g, 1, plain_income_card(&g));
    int i0 = income_with_contractor(&g, 0), i1 = income_with_contractor(&g, 1);
    others_take_contractors(&g, 0);
    while (g.ndeck > i0 + i1)
        to_hand(&g, 1, g.deck[0]);
    to_discard(&g, g.deck[0]);
    int hand1 = g.seats[1].nhand;
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    cr_assert(!g.ended_by_deck);
    cr_assert_eq(g.ndeck + g.ndiscard, 0);
    cr_assert_eq(g.seats[0].nhand, i0);
    cr_assert_eq(g.seats[1].nhand, hand1 + i1);
    cr_assert_eq(g.step, CITY_STEP_HAND_LIMIT);
}

/* ---- the end of the game ------------------------------------------------------------------ */

/* Plays one round in which every seat takes a contractor (or surveys when it has one). */
static void quiet_round(struct city_game *g)
{
    for (int s = 0; s < g->players; s++) {
        struct city_decision d = dec_contractor();
        if (city_check(g, s, &d) != CITY_OK)
            d = dec_survey();
        SUBMIT_OK(g, s, d);
    }
    cr_assert(city_resolve(g, NULL));
    while (g->step == CITY_STEP_SURVEY || g->step == CITY_STEP_HAND_LIMIT) {
        city_fill_defaults(g, NULL);
        cr_assert(city_resolve(g, NULL));
    }
}

Test(end, the_game_ends_when_anyone_reaches_the_target)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 100);
    give_tableau(&g, 2, "opera_house", 0);
    int gain = rule_round_vp(&g, 2);
    cr_assert_gt(gain, 0);
    g.seats[2].vp = CITY_DEFAULT_TARGET - 2 * gain;
    quiet_round(&g);
    cr_assert_eq(g.step, CITY_STEP_BUILD, "short of the target: play on");
    cr_assert_eq(g.seats[2].vp, CITY_DEFAULT_TARGET - gain);
    struct recorder r = {0};
    struct city_events ev = {record_event, &r};
    for (int s = 0; s < 3; s++)
        SUBMIT_OK(&g, s, dec_survey());
    cr_assert(city_resolve(&g, &ev));
    cr_assert_eq(g.step, CITY_STEP_SURVEY);
    city_fill_defaults(&g, &ev);
    cr_assert(city_resolve(&g, &ev));
    cr_assert_eq(g.step, CITY_STEP_OVER, "exactly the target ends the game");
    cr_assert_eq(g.seats[2].vp, CITY_DEFAULT_TARGET);
    cr_assert_eq(g.winners, 1u << 2);
    cr_assert(!g.ended_by_deck && !g.ended_by_rounds);
    cr_assert_eq(count_events(&r, CITY_EV_GAME_OVER, -2), 1);
    cr_assert_gt(count_events(&r, CITY_EV_INCOME, -2), 0, "income is drawn before the end check");
    cr_assert(city_check_conservation(&g));
}

Test(end, the_target_given_at_creation_is_the_one_checked)
{
    const struct city_design *op = dsg(&cat, "opera_house");
    cr_assert(!op->vp_var.kind && op->vp > 0);
    int target = 2 * op->vp;
    cr_assert_neq(target, CITY_DEFAULT_TARGET);
    struct city_game g;
    blank_board_target(&g, &cat, 2, 101, target);
    cr_assert_eq(g.target_vp, target);
    give_tableau(&g, 0, "opera_house", 0);
    int gain = rule_round_vp(&g, 0);
    cr_assert_eq(gain, op->vp);
    quiet_round(&g);
    cr_assert_eq(g.step, CITY_STEP_BUILD);
    cr_assert_eq(g.seats[0].vp, gain);
    quiet_round(&g);
    cr_assert_eq(g.step, CITY_STEP_OVER);
    cr_assert_eq(g.seats[0].vp, target);
    cr_assert_eq(g.winners, 1u << 0);
    cr_assert_eq(g.round, 2);
}

Test(end, the_winner_has_the_most_points)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 102);
    g.seats[0].vp = 60;
    g.seats[1].vp = 61;
    g.seats[2].vp = 10;
    give_filler(&g, 0, 9);
    quiet_round(&g);
    cr_assert_eq(g.step, CITY_STEP_OVER);
    cr_assert_eq(g.winners, 1u << 1);
}

Test(end, a_tie_on_points_goes_to_most_cards_in_hand_counted_after_income)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 103);
    /* Seat 1 earns more than seat 0 and ends with more cards, having held fewer. */
    to_tableau(&g, 1, plain_income_card(&g));
    to_tableau(&g, 1, plain_income_card(&g));
    int extra = income_with_contractor(&g, 1) - income_with_contractor(&g, 0);
    cr_assert_geq(extra, 2);
    give_filler(&g, 0, 4);
    give_filler(&g, 1, 4 - extra + 1);
    give_filler(&g, 2, 20);
    set_score_after_round(&g, 0, 55);
    set_score_after_round(&g, 1, 55);
    set_score_after_round(&g, 2, 54);
    cr_assert_gt(g.seats[0].nhand, g.seats[1].nhand);
    quiet_round(&g);
    cr_assert_eq(g.step, CITY_STEP_OVER);
    cr_assert_eq(g.seats[0].vp, g.seats[1].vp);
    cr_assert_gt(g.seats[1].nhand, g.seats[0].nhand);
    cr_assert_gt(g.seats[2].nhand, CITY_HAND_LIMIT, "the count is taken before any discard");
    cr_assert_eq(g.winners, 1u << 1);
}

Test(end, players_tied_on_points_and_cards_share_the_win)
{
    struct city_game g;
    blank_board(&g, &cat, 4, 104);
    const int vp[4] = {70, 40, 70, 70};
    const int cards[4] = {5, 9, 5, 4};
    for (int s = 0; s < 4; s++) {
        g.seats[s].vp = vp[s];
        give_filler(&g, s, cards[s]);
    }
    quiet_round(&g);
    cr_assert_eq(g.step, CITY_STEP_OVER);
    cr_assert_eq(g.winners, (1u << 0) | (1u << 2));
}

Test(end, no_decision_is_taken_after_the_end)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 105);
    g.seats[0].vp = 80;
    int a = hand_card(&g, 0, plain_card(0, 0));
    quiet_round(&g);
    cr_assert_eq(g.step, CITY_STEP_OVER);
    int one[1] = {a};
    for (int s = -1; s <= 2; s++) {
        SUBMIT_ERR(&g, s, dec_survey(), CITY_ERR_GAME_OVER);
        SUBMIT_ERR(&g, s, dec_contractor(), CITY_ERR_GAME_OVER);
        SUBMIT_ERR(&g, s, dec_build(a, 0, NULL), CITY_ERR_GAME_OVER);
        SUBMIT_ERR(&g, s, dec_discard(1, one), CITY_ERR_GAME_OVER);
        cr_assert(!game_seat_pending(&g, s));
    }
    struct city_game before;
    memcpy(&before, &g, sizeof g);
    cr_assert(!city_ready(&g));
    cr_assert(!city_resolve(&g, NULL));
    cr_assert_eq(city_fill_defaults(&g, NULL), 0);
    cr_assert(memcmp(&before, &g, sizeof g) == 0);
}

Test(end, a_game_still_going_after_the_last_round_ends_as_if_the_target_were_reached)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 106);
    g.round = CITY_MAX_ROUNDS;
    g.seats[0].vp = 3;
    quiet_round(&g);
    cr_assert_eq(g.step, CITY_STEP_OVER);
    cr_assert(g.ended_by_rounds);
    cr_assert_eq(g.winners, 1u << 0);
}

/* ---- hand limit --------------------------------------------------------------------------- */

Test(hand_limit, only_players_over_twelve_cards_discard_down_to_twelve)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 110);
    /* With a contractor's income of one: 14, 12 and 13 cards. */
    give_filler(&g, 0, CITY_HAND_LIMIT + 1);
    give_filler(&g, 1, CITY_HAND_LIMIT - 1);
    give_filler(&g, 2, CITY_HAND_LIMIT);
    others_take_contractors(&g, 0);
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.step, CITY_STEP_HAND_LIMIT);
    cr_assert_eq(g.round, 1);
    cr_assert(game_seat_pending(&g, 0) && game_seat_pending(&g, 2));
    cr_assert(!game_seat_pending(&g, 1));
    cr_assert_eq(city_discard_count(&g, 0), 2);
    cr_assert_eq(city_discard_count(&g, 2), 1);
    int d0[3], d2[1];
    hand_cards(&g, 0, -1, -1, 0, 3, d0);
    hand_cards(&g, 2, -1, -1, 0, 1, d2);
    SUBMIT_ERR(&g, 1, dec_discard(0, NULL), CITY_ERR_NOT_PENDING);
    SUBMIT_ERR(&g, 0, dec_discard(3, d0), CITY_ERR_DISCARD_COUNT);
    SUBMIT_ERR(&g, 0, dec_discard(1, d0), CITY_ERR_DISCARD_COUNT);
    SUBMIT_ERR(&g, 0, dec_survey(), CITY_ERR_WRONG_KIND);
    SUBMIT_OK(&g, 0, dec_discard(2, d0));
    cr_assert(!city_ready(&g));
    SUBMIT_OK(&g, 2, dec_discard(1, d2));
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    for (int s = 0; s < 3; s++)
        cr_assert_eq(g.seats[s].nhand, CITY_HAND_LIMIT);
    cr_assert_eq(g.step, CITY_STEP_BUILD);
    cr_assert_eq(g.round, 2);
}

Test(hand_limit, the_step_is_skipped_when_nobody_holds_more_than_twelve)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 111);
    give_filler(&g, 0, CITY_HAND_LIMIT - 1);
    struct recorder r = {0};
    struct city_events ev = {record_event, &r};
    others_take_contractors(&g, 0);
    cr_assert(city_resolve(&g, &ev));
    cr_assert_eq(g.seats[0].nhand, CITY_HAND_LIMIT);
    cr_assert_eq(g.step, CITY_STEP_BUILD);
    cr_assert_eq(g.round, 2);
    for (int i = 0; i < r.n; i++)
        cr_assert(!(r.ev[i].type == CITY_EV_STEP && r.ev[i].step == CITY_STEP_HAND_LIMIT));
}

/* ---- missed decisions --------------------------------------------------------------------- */

Test(defaults, a_missed_build_becomes_a_survey_logged_as_a_default)
{
    struct city_game g;
    blank_board(&g, &cat, 3, 120);
    int a = hand_card(&g, 0, plain_card(0, 0));
    SUBMIT_OK(&g, 0, dec_build(a, 0, NULL));
    struct recorder r = {0};
    struct city_events ev = {record_event, &r};
    cr_assert_eq(city_fill_defaults(&g, &ev), 2);
    cr_assert_eq(count_events(&r, CITY_EV_DEFAULT, 1), 1);
    cr_assert_eq(count_events(&r, CITY_EV_DEFAULT, 2), 1);
    cr_assert_eq(count_events(&r, CITY_EV_DEFAULT, 0), 0);
    cr_assert_eq(g.seats[0].order.kind, CITY_DEC_BUILD, "a submitted decision is kept");
    cr_assert(!g.seats[0].defaulted);
    for (int s = 1; s < 3; s++) {
        cr_assert(g.seats[s].submitted && g.seats[s].defaulted);
        cr_assert_eq(g.seats[s].order.kind, CITY_DEC_SURVEY);
    }
    cr_assert(city_ready(&g));
    cr_assert_eq(city_fill_defaults(&g, &ev), 0);
    cr_assert(city_resolve(&g, &ev));
    cr_assert(g.seats[1].reveal.defaulted && g.seats[1].reveal.kind == CITY_DEC_SURVEY);
    cr_assert(!g.seats[0].reveal.defaulted);
    cr_assert_eq(g.seats[1].drew, CITY_SURVEY_DRAW);
}

Test(defaults, a_seat_that_submits_after_a_default_replaces_it)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 121);
    int a = hand_card(&g, 0, plain_card(0, 0));
    cr_assert_eq(city_fill_defaults(&g, NULL), 2);
    SUBMIT_OK(&g, 0, dec_build(a, 0, NULL));
    cr_assert(!g.seats[0].defaulted);
    cr_assert(city_resolve(&g, NULL));
    cr_assert(in_tableau(&g, 0, a));
    cr_assert(!g.seats[0].reveal.defaulted);
}

/* Checks that fill_defaults gives every pending seat the greedy bot's discards. */
static void expect_greedy_defaults(struct city_game *g)
{
    uint8_t want[CITY_MAX_PLAYERS][CITY_DECK_SIZE];
    int n[CITY_MAX_PLAYERS];
    for (int s = 0; s < g->players; s++) {
        n[s] = city_discard_count(g, s);
        if (game_seat_pending(g, s))
            city_bot_greedy_discards(g, s, n[s], want[s]);
    }
    cr_assert_gt(city_fill_defaults(g, NULL), 0);
    for (int s = 0; s < g->players; s++) {
        if (!game_seat_pending(g, s))
            continue;
        cr_assert(g->seats[s].defaulted);
        cr_assert_eq(g->seats[s].order.kind, CITY_DEC_DISCARD);
        cr_assert_eq(g->seats[s].order.ndiscard, n[s]);
        cr_assert(memcmp(g->seats[s].order.discard, want[s], (size_t)n[s]) == 0);
    }
}

Test(defaults, missed_discards_are_the_greedy_bots_choice_in_keep_survey_and_hand_limit)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, 3, 122, 0), CITY_OK);
    expect_greedy_defaults(&g);
    cr_assert(city_resolve(&g, NULL));
    /* Survey. */
    SUBMIT_OK(&g, 0, dec_survey());
    SUBMIT_OK(&g, 1, dec_contractor());
    SUBMIT_OK(&g, 2, dec_survey());
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.step, CITY_STEP_SURVEY);
    expect_greedy_defaults(&g);
    cr_assert(city_resolve(&g, NULL));
    cr_assert(city_check_conservation(&g));
    /* Hand limit. */
    cr_assert_eq(g.step, CITY_STEP_BUILD);
    give_filler(&g, 1, CITY_HAND_LIMIT);
    SUBMIT_OK(&g, 0, dec_contractor());
    SUBMIT_OK(&g, 1, dec_survey());
    SUBMIT_OK(&g, 2, dec_contractor());
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.step, CITY_STEP_SURVEY);
    city_fill_defaults(&g, NULL);
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.step, CITY_STEP_HAND_LIMIT);
    expect_greedy_defaults(&g);
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.seats[1].nhand, CITY_HAND_LIMIT);
    cr_assert(city_check_conservation(&g));
}

Test(defaults, a_bad_seat_and_a_seat_with_nothing_to_decide_are_refused)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 123);
    SUBMIT_ERR(&g, 2, dec_survey(), CITY_ERR_BAD_SEAT);
    SUBMIT_ERR(&g, -1, dec_survey(), CITY_ERR_BAD_SEAT);
    SUBMIT_ERR(&g, CITY_MAX_PLAYERS, dec_survey(), CITY_ERR_BAD_SEAT);
    SUBMIT_OK(&g, 0, dec_survey());
    SUBMIT_OK(&g, 1, dec_contractor());
    cr_assert(city_resolve(&g, NULL));
    cr_assert_eq(g.step, CITY_STEP_SURVEY);
    SUBMIT_ERR(&g, 1, dec_discard(0, NULL), CITY_ERR_NOT_PENDING);
    SUBMIT_ERR(&g, 1, dec_survey(), CITY_ERR_NOT_PENDING);
    cr_assert_eq(city_discard_count(&g, 1), 0);
}

/* ---- options ------------------------------------------------------------------------------ */

/* Checks that city_build_options and city_double_pairs list exactly what the rules allow for
 * seat `seat` now, and that city_submit accepts each of them (on a copy). */
static void check_options(const struct city_game *g, int seat)
{
    const struct city_seat *s = &g->seats[seat];
    struct city_build_options o;
    city_build_options(g, seat, &o);
    bool listed[CITY_DECK_SIZE] = {false};
    for (int i = 0; i < o.nbuilds; i++) {
        int c = o.card[i], d = cat.card_design[c];
        cr_assert(!listed[c], "an option is listed twice");
        listed[c] = true;
        cr_assert(in_hand(g, seat, c));
        cr_assert_eq(o.cost[i], rule_cost(g, seat, d, -1));
        cr_assert_eq(o.cost[i], city_effective_cost(g, seat, d));
        int pay[CITY_MAX_COST];
        hand_cards(g, seat, c, -1, 0, o.cost[i], pay);
        struct city_game copy;
        memcpy(&copy, g, sizeof copy);
        SUBMIT_OK(&copy, seat, dec_build(c, o.cost[i], pay));
    }
    for (int i = 0; i < s->nhand; i++) {
        int c = s->hand[i], d = cat.card_design[c];
        int cost = rule_cost(g, seat, d, -1);
        bool legal = rule_admits(g, seat, d, -1) && cost <= s->nhand - 1;
        cr_assert_eq(listed[c], legal, "%s listed %d, legal %d", cat.designs[d].id, listed[c],
                     legal);
        if (!legal) {
            /* No payment count at all makes it legal. */
            for (int k = 0; k <= CITY_MAX_COST && k <= s->nhand - 1; k++) {
                int pay[CITY_MAX_COST];
                hand_cards(g, seat, c, -1, 0, k, pay);
                struct city_decision d1 = dec_build(c, k, pay);
                cr_assert_neq(city_check(g, seat, &d1), CITY_OK);
            }
        }
    }
    struct city_decision dc = dec_contractor();
    cr_assert_eq(o.contractor, city_check(g, seat, &dc) == CITY_OK);
    cr_assert_eq(o.contractor, g->npool > 0 && !copies_of(g, seat, cat.contractor_design));

    /* Double builds: every ordered pair of hand cards, by the rules and by the engine. */
    static struct city_pair pairs[CITY_DECK_SIZE * CITY_DECK_SIZE];
    int np = city_double_pairs(g, seat, pairs, CITY_DECK_SIZE * CITY_DECK_SIZE);
    cr_assert_eq(o.two, np > 0);
    cr_assert_leq(np, CITY_DECK_SIZE * CITY_DECK_SIZE);
    static int at_of[CITY_DECK_SIZE][CITY_DECK_SIZE];
    for (int i = 0; i < s->nhand; i++)
        for (int j = 0; j < s->nhand; j++)
            at_of[s->hand[i]][s->hand[j]] = -1;
    for (int k = 0; k < np; k++) {
        cr_assert(in_hand(g, seat, pairs[k].a) && in_hand(g, seat, pairs[k].b));
        cr_assert_eq(at_of[pairs[k].a][pairs[k].b], -1, "a pair is listed twice");
        at_of[pairs[k].a][pairs[k].b] = k;
    }
    int found = 0;
    bool gang = rule_has_gang(g, seat);
    for (int i = 0; i < s->nhand; i++) {
        for (int j = 0; j < s->nhand; j++) {
            if (i == j)
                continue;
            int a = s->hand[i], b = s->hand[j];
            int da = cat.card_design[a], db = cat.card_design[b];
            int ca = rule_cost(g, seat, da, -1), cb = rule_cost(g, seat, db, da);
            bool legal = (gang || cat.designs[da].construction_gang) &&
                         cat.designs[da].cost <= CITY_DOUBLE_MAX_COST &&
                         cat.designs[db].cost <= CITY_DOUBLE_MAX_COST &&
                         rule_admits(g, seat, da, -1) && rule_admits(g, seat, db, da) &&
                         ca + cb <= s->nhand - 2;
            int at = at_of[a][b];
            cr_assert_eq(at >= 0, legal, "pair %s then %s", cat.designs[da].id, cat.designs[db].id);
            if (!legal)
                continue;
            found++;
            cr_assert_eq(pairs[at].cost_a, ca);
            cr_assert_eq(pairs[at].cost_b, cb);
            int pa[CITY_MAX_COST], pb[CITY_MAX_COST];
            hand_cards(g, seat, a, b, 0, ca, pa);
            hand_cards(g, seat, a, b, ca, cb, pb);
            struct city_game copy;
            memcpy(&copy, g, sizeof copy);
            SUBMIT_OK(&copy, seat, dec_two(a, ca, pa, b, cb, pb));
        }
    }
    cr_assert_eq(found, np);
}

Test(options, build_options_list_exactly_the_legal_builds_on_a_hand_made_position)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 130);
    give_tableau(&g, 0, "housing_tract", 0);
    give_tableau(&g, 0, "townhouse_row", 0);
    give_tableau(&g, 0, "mall", 0);
    int school = give_hand(&g, 0, "schools", 0);
    int lux = give_hand(&g, 0, "luxury_homes", 0);
    int mall = give_hand(&g, 0, "mall", 1);
    int uni = give_hand(&g, 0, "university", 0);
    int gang = give_hand(&g, 0, "construction_gang", 0);
    give_filler(&g, 0, 2);
    /* 7 cards in hand: a card is listed when its prerequisites are met, its limit not
     * reached and its effective cost at most the 6 other cards. */
    struct city_build_options o;
    city_build_options(&g, 0, &o);
    bool has[CITY_DECK_SIZE] = {false};
    for (int i = 0; i < o.nbuilds; i++)
        has[o.card[i]] = true;
    cr_assert(!has[mall], "the second Mall is over its limit");
    const int cards[4] = {school, lux, uni, gang};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(has[cards[i]], rule_cost(&g, 0, cat.card_design[cards[i]], -1) <= 6);
    cr_assert(has[school], "Schools: the Housing Tract is there");
    cr_assert(o.contractor);
    if (rule_cost(&g, 0, design(&cat, "construction_gang"), -1) +
            rule_cost(&g, 0, design(&cat, "schools"), -1) <=
        5)
        cr_assert(o.two, "the gang can be built first, then Schools");
    check_options(&g, 0);
    check_options(&g, 1);
}

Test(options, no_options_outside_a_pending_build_step)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, 2, 131, 0), CITY_OK);
    struct city_build_options o;
    city_build_options(&g, 0, &o);
    cr_assert_eq(o.nbuilds, 0);
    cr_assert(!o.contractor && !o.two);
    cr_assert_eq(city_double_pairs(&g, 0, NULL, 0), 0);
    city_build_options(&g, 7, &o);
    cr_assert_eq(o.nbuilds, 0);
}

Test(options, options_and_pairs_are_exactly_the_legal_builds_in_random_games)
{
    int positions = 0, with_two = 0;
    for (int game = 0; game < 120; game++) {
        int players = CITY_MIN_PLAYERS + game % 4;
        struct city_game g;
        cr_assert_eq(city_new(&g, &cat, players, 5000u + (unsigned)game, 0), CITY_OK);
        struct bot bots[CITY_MAX_PLAYERS];
        for (int s = 0; s < players; s++)
            city_bot_init(&bots[s], (game + s) % 2 ? BOT_GREEDY : BOT_RANDOM,
                          (uint64_t)game * 31 + (uint64_t)s);
        while (g.step != CITY_STEP_OVER) {
            if (g.step == CITY_STEP_BUILD) {
                for (int s = 0; s < players; s++) {
                    check_options(&g, s);
                    positions++;
                    with_two += city_double_pairs(&g, s, NULL, 0) > 0;
                }
            }
            for (int s = 0; s < players; s++) {
                struct city_decision d;
                if (city_bot_decide(&bots[s], &g, s, &d))
                    SUBMIT_OK(&g, s, d);
            }
            cr_assert(city_resolve(&g, NULL));
        }
    }
    cr_assert_gt(positions, 1000);
    cr_assert_gt(with_two, 10, "random games should reach some Construction Gang positions");
}

Test(options, double_pairs_counts_every_pair_with_or_without_a_buffer)
{
    struct city_game g;
    blank_board(&g, &cat, 2, 132);
    give_tableau(&g, 0, "construction_gang", 0);
    for (int k = 0; k < 4; k++)
        to_hand(&g, 0, plain_card(0, k));
    give_filler(&g, 0, 4);
    static struct city_pair all[CITY_DECK_SIZE * CITY_DECK_SIZE];
    int n = city_double_pairs(&g, 0, all, CITY_DECK_SIZE * CITY_DECK_SIZE);
    cr_assert_geq(n, 4 * 3, "each ordered pair of the free cards at least");
    /* city.h: "NULL with max 0 to only count them. Returns how many there are in all". */
    cr_assert_eq(city_double_pairs(&g, 0, NULL, 0), n);
    struct city_pair one[1];
    cr_assert_eq(city_double_pairs(&g, 0, one, 1), n);
    cr_assert(one[0].a == all[0].a && one[0].b == all[0].b);
}

/* ---- rules on a tuned copy of the catalog ------------------------------------------------- */

/* The catalog is plain data: these tests change a copy of it to reach rules that the real
 * deck (today) gives no card for. */
static struct city_catalog mod;

Test(discount, discounts_of_different_kinds_add_up_and_never_go_below_zero)
{
    mod = cat;
    int x = cat.card_design[plain_card(CITY_DOUBLE_MAX_COST, 0)];
    int a = cat.card_design[plain_card(0, 0)];
    int b = cat.card_design[plain_card(1, 0)];
    cr_assert(a != b && a != x && b != x);
    mod.designs[a].discount = 1;
    mod.designs[a].discount_to = 1ULL << x;
    mod.designs[b].discount = 2;
    mod.designs[b].discount_to = 1ULL << x;
    mod.discount_designs |= 1ULL << a | 1ULL << b;
    city_catalog_derive(&mod);
    struct city_game g;
    blank_board(&g, &mod, 2, 140);
    int cost = mod.designs[x].cost;
    cr_assert_geq(cost, 3);
    int ca = -1, cb = -1, ca2 = -1;
    for (int c = 0; c < CITY_DECK_SIZE; c++) {
        if (mod.card_design[c] == a && ca < 0)
            ca = c;
        else if (mod.card_design[c] == a && ca2 < 0)
            ca2 = c;
        else if (mod.card_design[c] == b && cb < 0)
            cb = c;
    }
    cr_assert(ca >= 0 && ca2 >= 0 && cb >= 0);
    to_tableau(&g, 0, ca);
    cr_assert_eq(city_effective_cost(&g, 0, x), cost - 1);
    to_tableau(&g, 0, ca2);
    cr_assert_eq(city_effective_cost(&g, 0, x), cost - 1, "a kind counts once");
    to_tableau(&g, 0, cb);
    cr_assert_eq(city_effective_cost(&g, 0, x), cost - 3, "two kinds add up");
    mod.designs[b].discount = (int8_t)cost;
    city_catalog_derive(&mod);
    cr_assert_eq(city_effective_cost(&g, 0, x), 0, "never below zero");
    int card = hand_card(&g, 0, plain_card(CITY_DOUBLE_MAX_COST, 0));
    SUBMIT_OK(&g, 0, dec_build(card, 0, NULL));
}

Test(double_build, the_first_build_counts_toward_the_seconds_limit)
{
    mod = cat;
    int free1 = plain_card(0, 0), free2 = -1;
    int d = cat.card_design[free1];
    for (int c = 0; c < CITY_DECK_SIZE && free2 < 0; c++)
        if (c != free1 && cat.card_design[c] == d)
            free2 = c;
    cr_assert_geq(free2, 0);
    mod.designs[d].limit = 1;
    city_catalog_derive(&mod);
    struct city_game g;
    blank_board(&g, &mod, 2, 141);
    give_tableau(&g, 0, "construction_gang", 0);
    to_hand(&g, 0, free1);
    to_hand(&g, 0, free2);
    give_filler(&g, 0, 2);
    SUBMIT_ERR(&g, 0, dec_two(free1, 0, NULL, free2, 0, NULL), CITY_ERR_LIMIT);
    static struct city_pair pairs[CITY_DECK_SIZE * CITY_DECK_SIZE];
    int n = city_double_pairs(&g, 0, pairs, CITY_DECK_SIZE * CITY_DECK_SIZE);
    for (int i = 0; i < n; i++)
        cr_assert(!(mod.card_design[pairs[i].a] == d && mod.card_design[pairs[i].b] == d));
    SUBMIT_OK(&g, 0, dec_build(free1, 0, NULL));
}

/* ---- the engine's own contracts ----------------------------------------------------------- */

Test(setup, the_conservation_check_catches_a_lost_or_duplicated_card)
{
    struct city_game g;
    cr_assert_eq(city_new(&g, &cat, 3, 150, 0), CITY_OK);
    cr_assert(city_check_conservation(&g));
    struct city_game bad = g;
    bad.seats[0].hand[0] = bad.seats[1].hand[0]; /* one card twice, another lost */
    cr_assert(!city_check_conservation(&bad));
    bad = g;
    bad.ndeck--; /* a card lost */
    cr_assert(!city_check_conservation(&bad));
    bad = g;
    bad.discard[bad.ndiscard++] = bad.deck[0]; /* a card in two places */
    cr_assert(!city_check_conservation(&bad));
}

Test(setup, every_error_has_a_distinct_code_and_a_sentence)
{
    for (int e = 0; e < CITY_ERR_COUNT; e++) {
        cr_assert(city_error_code(e) && *city_error_code(e));
        cr_assert(city_error_message(e) && *city_error_message(e));
        for (int f = 0; f < e; f++)
            cr_assert_str_neq(city_error_code(e), city_error_code(f));
    }
    cr_assert_str_eq(city_error_code(CITY_OK), "ok");
    cr_assert_str_eq(city_error_code(CITY_ERR_COUNT), "unknown_error");
    cr_assert_str_eq(city_error_code(-1), "unknown_error");
    for (int s = 0; s < CITY_STEP_COUNT; s++)
        cr_assert_eq(city_step_from_name(city_step_name(s)), s);
    cr_assert_str_eq(city_step_name(CITY_STEP_HAND_LIMIT), "hand_limit");
    cr_assert_eq(city_step_from_name("nonsense"), -1);
    cr_assert_eq(city_step_from_name(NULL), -1);
}

Test(score, gain_if_built_is_exactly_what_building_would_add)
{
    struct city_rng r;
    rng_seed(&r, 151);
    for (int trial = 0; trial < 300; trial++) {
        int players = CITY_MIN_PLAYERS + (int)rng_below(&r, 4);
        struct city_game g;
        cr_assert_eq(city_new(&g, &cat, players, 7000u + (unsigned)trial, 0), CITY_OK);
        int n = (int)rng_below(&r, 30);
        for (int i = 0; i < n; i++)
            to_tableau(&g, (int)rng_below(&r, (uint32_t)players), g.deck[rng_below(&r, g.ndeck)]);
        int seat = (int)rng_below(&r, (uint32_t)players), k = 1 + (int)rng_below(&r, 2);
        int cards[2], designs[2];
        for (int i = 0; i < k; i++) {
            cards[i] = g.deck[g.ndeck - 1 - i];
            designs[i] = cat.card_design[cards[i]];
        }
        int dvp, dinc;
        city_gain_if_built(&g, seat, designs, k, &dvp, &dinc);
        int vp0 = rule_round_vp(&g, seat), inc0 = rule_income(&g, seat);
        for (int i = 0; i < k; i++)
            to_tableau(&g, seat, cards[i]);
        cr_assert_eq(dvp, rule_round_vp(&g, seat) - vp0);
        cr_assert_eq(dinc, rule_income(&g, seat) - inc0);
    }
}
