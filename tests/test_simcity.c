/* test_simcity.c: SimCity's rules, one test per rule of docs/simcity.md, on a small catalog of
 * the tests' own cards (so that tuning the deck changes no rule test): placement, services and
 * sims, upgrades and rezones, scoring (zones, complexes, coverage, add/deduct, receive/lose),
 * specials, phases, the Power Plant and the Mayor. Politics, events and the ends of the game
 * are in test_simcity_politics.c. */
#include "sc_helpers.h"

#include "sc_test_cards.h"

TestSuite(simcity, .init = NULL);

static struct sc_game g;

static void setup(int players)
{
    test_catalog(test_cards);
    sk_setup(&g, players);
}

/* The play's mode (or -1) for a card of `slug` given to seat 0. */
static int mode_of(const char *slug, int x, int y, int *err)
{
    int card = sk_give(&g, 0, slug);
    int m = sk_mode(&g, 0, card, x, y, err);
    sk_take(&g, card);
    g.deck[g.ndeck++] = (uint8_t)card;
    return m;
}

/* What a card of `slug` would score at (x, y) for seat 0 (it must be legal there). */
static int score_of(const char *slug, int x, int y, struct sc_score *out)
{
    int card = sk_give(&g, 0, slug);
    int err = 0;
    cr_assert_geq(sk_mode(&g, 0, card, x, y, &err), 0, "%s at %d,%d: %s", slug, x, y,
                  sc_error_code(err));
    int total = sc_play_score(&g, 0, card, x, y, out);
    sk_take(&g, card);
    g.deck[g.ndeck++] = (uint8_t)card;
    return total;
}

/* ---- placement -------------------------------------------------------------------------- */

Test(simcity, the_first_block_goes_in_the_centre_cell)
{
    setup(2);
    int err;
    cr_expect_eq(mode_of("t_res", 0, 0, &err), -1);
    cr_expect_eq(err, SC_ERR_FIRST_CELL);
    cr_expect_eq(mode_of("t_res", 6, 6, &err), SC_MODE_NEW);
    int card = sk_give(&g, 0, "t_res");
    sk_play(&g, 0, card, 6, 6);
    cr_expect_eq(sc_block_at(&g, 6, 6), card);
    cr_expect_eq(g.seats[0].money, 2);
}

Test(simcity, the_surface_is_12_by_12_up_to_4_players_and_14_by_14_from_5)
{
    setup(4);
    cr_expect_eq(g.side, 12);
    setup(5);
    cr_expect_eq(g.side, 14);
    cr_expect_eq(sc_cell(&g, 13, 13), 13 * SC_STRIDE + 13);
    cr_expect_eq(sc_cell(&g, 14, 0), -1);
}

Test(simcity, a_new_block_shares_an_edge_with_a_block_and_diagonals_do_not_count)
{
    setup(2);
    sk_put(&g, "t_com", 6, 6);
    int err;
    cr_expect_eq(mode_of("t_com", 7, 6, &err), SC_MODE_NEW);
    cr_expect_eq(mode_of("t_com", 6, 5, &err), SC_MODE_NEW);
    cr_expect_eq(mode_of("t_com", 7, 7, &err), -1);
    cr_expect_eq(err, SC_ERR_NOT_ADJACENT);
    cr_expect_eq(mode_of("t_com", 8, 6, &err), -1);
    cr_expect_eq(mode_of("t_com", 12, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_OFF_GRID);
}

Test(simcity, an_overturned_cell_is_empty_and_a_scorched_one_pays_5)
{
    setup(2);
    sk_put(&g, "t_com", 6, 6);
    sk_put(&g, "t_com", 7, 6);
    int value = sc_city_destroy(&g, sc_cell(&g, 7, 6), NULL);
    cr_expect_eq(value, 2);
    cr_expect_eq(sc_block_at(&g, 7, 6), SC_NONE);
    cr_expect(g.scorched[sc_cell(&g, 7, 6)]);
    struct sc_score s;
    cr_expect_eq(score_of("t_com", 7, 6, &s), 2 + SC_SCORCHED_BONUS);
    cr_expect_eq(s.scorched, SC_SCORCHED_BONUS);
    cr_expect(sc_check_conservation(&g));
}

Test(simcity, a_destroyed_block_over_land_leaves_the_land_as_the_block)
{
    setup(2);
    sk_put(&g, "t_com", 6, 6);
    sk_put(&g, "t_plains", 7, 6);
    int res = sk_put(&g, "t_res", 7, 6); /* on the plains */
    int plains = g.below[res];
    sc_city_destroy(&g, sc_cell(&g, 7, 6), NULL);
    cr_expect_eq(sc_block_at(&g, 7, 6), plains);
    cr_expect(!g.scorched[sc_cell(&g, 7, 6)]);
    cr_expect(g.flags[res] & SC_CF_OVERTURNED);
    /* land is not destroyed */
    cr_expect_eq(sc_city_destroy(&g, sc_cell(&g, 7, 6), NULL), 0);
    cr_expect_eq(sc_block_at(&g, 7, 6), plains);
}

/* ---- services and sims -------------------------------------------------------------------- */

Test(simcity, roads_join_only_where_both_cards_have_the_facing_edges)
{
    setup(2);
    sk_put(&g, "t_ew", 6, 6); /* road east-west, 2 sims */
    int err;
    cr_expect_eq(mode_of("t_need2", 7, 6, &err), SC_MODE_NEW);
    cr_expect_eq(mode_of("t_need2", 6, 5, &err), -1, "a north-south meeting of an EW road");
    cr_expect_eq(err, SC_ERR_SIMS);
}

Test(simcity, sims_of_every_provider_joined_by_one_road_add_up)
{
    setup(2);
    sk_put(&g, "t_res", 5, 6);
    int ew = sk_put(&g, "t_ew", 4, 6); /* joined to t_res: 2 + 2 */
    int err;
    cr_expect_eq(mode_of("t_need4", 6, 6, &err), SC_MODE_NEW);
    sk_take(&g, ew);
    g.deck[g.ndeck++] = (uint8_t)ew;
    cr_expect_eq(mode_of("t_need4", 6, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_SIMS);
}

Test(simcity, sims_come_by_one_service_only_never_road_and_rail_together)
{
    setup(2);
    sk_put(&g, "t_res", 5, 6);  /* 2 sims by road */
    sk_put(&g, "t_rail", 6, 5); /* 3 sims by rail */
    int err;
    /* t_need4 has road and rail: 2 by road, 3 by rail, never 5 */
    cr_expect_eq(mode_of("t_need4", 6, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_SIMS);
    sk_put(&g, "t_rail", 6, 7); /* 3 + 3 by rail */
    cr_expect_eq(mode_of("t_need4", 6, 6, &err), SC_MODE_NEW);
}

Test(simcity, a_provider_reached_by_two_routes_counts_once)
{
    setup(2);
    /* a ring of road around (6,6): the one provider at (5,5) reaches (6,6) two ways */
    sk_put(&g, "t_res", 5, 5);
    sk_put(&g, "t_com", 6, 5);
    sk_put(&g, "t_com", 5, 6);
    int err;
    cr_expect_eq(mode_of("t_need2", 6, 6, &err), SC_MODE_NEW);
    cr_expect_eq(mode_of("t_need4", 6, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_SIMS);
}

Test(simcity, sims_do_not_walk_across_a_block_without_the_service)
{
    setup(2);
    sk_put(&g, "t_res", 4, 6);
    sk_put(&g, "t_gray", 5, 6); /* no road between */
    int err;
    cr_expect_eq(mode_of("t_need2", 6, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_SIMS);
}

Test(simcity, a_requirer_without_road_or_rail_takes_sims_from_a_road_block_it_touches)
{
    setup(2);
    sk_put(&g, "t_res", 5, 6);
    sk_put(&g, "t_res", 4, 6);
    int err;
    cr_expect_eq(mode_of("t_bare", 6, 6, &err), SC_MODE_NEW, "touches a road block with 4 sims");
    cr_expect_eq(mode_of("t_bare", 3, 5, &err), -1, "touches nothing");
    sk_put(&g, "t_com", 5, 7);
    cr_expect_eq(mode_of("t_bare", 4, 7, &err), SC_MODE_NEW, "a road block joined to providers");
}

Test(simcity, power_reaches_only_orthogonal_neighbours_with_a_power_line)
{
    setup(2);
    g.phase = 3;
    sk_put(&g, "t_pole", 6, 6);
    sk_put(&g, "t_pole", 7, 6); /* joined */
    sk_put(&g, "t_pole", 8, 7); /* diagonal to (7,6): not joined */
    sk_put(&g, "t_com", 8, 6);  /* no power line */
    sk_put(&g, "t_pole", 9, 6); /* beyond a block without power */
    struct sc_score s;
    /* a plant at (5,6) covers (6,6) and (7,6) only */
    cr_expect_eq(score_of("t_plant", 5, 6, &s), 2 + 2);
    cr_expect_eq(s.coverage, 2);
}

/* ---- upgrades and rezones ----------------------------------------------------------------- */

Test(simcity, an_upgrade_keeps_zone_services_and_value_and_adds_something)
{
    setup(2);
    sk_put(&g, "t_res", 6, 6);
    int err;
    cr_expect_eq(mode_of("t_res_big", 6, 6, &err), SC_MODE_UPGRADE, "a higher value");
    cr_expect_eq(mode_of("t_res_power", 6, 6, &err), SC_MODE_UPGRADE, "a power line added");
    cr_expect_eq(mode_of("t_res", 6, 6, &err), -1, "adds nothing");
    cr_expect_eq(err, SC_ERR_NO_REZONE);
    cr_expect_eq(mode_of("t_ns", 6, 6, &err), -1, "drops the east-west road and value");
    cr_expect_eq(mode_of("t_com", 6, 6, &err), -1, "another zone");
}

Test(simcity, land_upgrades_only_land_of_its_type_and_gold_is_never_upgraded)
{
    setup(2);
    sk_put(&g, "t_forest", 6, 6);
    sk_put(&g, "t_gold", 7, 6);
    int err;
    cr_expect_eq(mode_of("t_forest2", 6, 6, &err), SC_MODE_UPGRADE);
    cr_expect_eq(mode_of("t_mountain", 6, 6, &err), -1);
    cr_expect_eq(mode_of("t_gold2", 7, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_NO_REZONE);
}

Test(simcity, a_rezonable_block_or_a_card_that_rezones_its_kind_needs_no_vote)
{
    setup(2);
    sk_put(&g, "t_plains", 6, 6);
    sk_put(&g, "t_res", 7, 6);
    int err;
    cr_expect_eq(mode_of("t_com", 6, 6, &err), SC_MODE_REZONE, "the plains say so");
    cr_expect_eq(mode_of("t_bnb", 7, 6, &err), SC_MODE_REZONE, "the bed and breakfast says so");
    cr_expect_eq(mode_of("t_com", 7, 6, &err), -1, "no Mayor, no vote");
    g.power_played = true;
    g.mayor = 1;
    cr_expect_eq(mode_of("t_com", 7, 6, &err), SC_MODE_VOTE);
}

Test(simcity, a_block_is_never_placed_beneath_another_and_covered_cards_are_inert)
{
    setup(2);
    int res = sk_put(&g, "t_res", 6, 6);
    int big = sk_give(&g, 0, "t_res_big");
    sk_play(&g, 0, big, 6, 6);
    cr_expect_eq(sc_block_at(&g, 6, 6), big);
    cr_expect_eq(g.below[big], res);
    cr_expect_eq(g.nblocks, 1);
}

/* ---- scoring ------------------------------------------------------------------------------- */

Test(simcity, a_zone_pays_1_per_block_once_it_holds_three_before_the_new_one)
{
    setup(2);
    sk_put(&g, "t_res", 5, 6);
    sk_put(&g, "t_res", 4, 6);
    struct sc_score s;
    score_of("t_res", 6, 6, &s);
    cr_expect_eq(s.zone, 0, "two before it: no bonus");
    sk_put(&g, "t_res", 4, 7);
    score_of("t_res", 6, 6, &s);
    cr_expect_eq(s.zone, 3);
    sk_put(&g, "t_res", 7, 5); /* not joined to the zone until the new card joins it */
    score_of("t_res", 7, 6, &s);
    cr_expect_eq(s.zone, 0, "(7,6) touches only (7,5)");
    score_of("t_res", 6, 5, &s);
    cr_expect_eq(s.zone, 0, "(6,5) touches (5,5)? no block there");
    sk_put(&g, "t_res", 6, 6);
    score_of("t_res", 6, 5, &s);
    cr_expect_eq(s.zone, 5, "the groups the new card joins count together: 1 + 4");
}

Test(simcity, gray_blocks_are_wild_and_three_of_them_are_an_instant_zone)
{
    setup(2);
    sk_put(&g, "t_gray", 5, 6);
    sk_put(&g, "t_gray", 4, 6);
    sk_put(&g, "t_gray", 3, 6);
    struct sc_score s;
    score_of("t_res", 6, 6, &s);
    cr_expect_eq(s.zone, 3, "three grays: an instant zone for a residential block");
    score_of("t_com", 6, 6, &s);
    cr_expect_eq(s.zone, 3, "and for a commercial one");
    score_of("t_gray", 6, 6, &s);
    cr_expect_eq(s.zone, 0, "a gray block earns no zone bonus of its own");
    sk_put(&g, "t_com", 3, 5);
    score_of("t_res", 6, 6, &s);
    cr_expect_eq(s.zone, 3, "a commercial block is no residential zone");
}

Test(simcity, land_zones_go_by_type_water_is_one_type_and_plains_never_zone)
{
    setup(2);
    sk_put(&g, "t_lake", 5, 6);
    sk_put(&g, "t_lake", 4, 6);
    sk_put(&g, "t_lake", 3, 6);
    struct sc_score s;
    score_of("t_lake", 6, 6, &s);
    cr_expect_eq(s.zone, 3);
    score_of("t_forest", 6, 6, &s);
    cr_expect_eq(s.zone, 0);
    setup(2);
    sk_put(&g, "t_plains", 5, 6);
    sk_put(&g, "t_plains", 4, 6);
    sk_put(&g, "t_plains", 3, 6);
    score_of("t_plains", 6, 6, &s);
    cr_expect_eq(s.zone, 0);
}

Test(simcity, a_complex_pays_the_sum_of_its_members_once_three_count)
{
    setup(2);
    sk_put(&g, "t_farm", 5, 6);  /* farm 2, provides sims */
    sk_put(&g, "t_field", 4, 6); /* farm 1 if the complex provides sims */
    struct sc_score s;
    score_of("t_field", 6, 6, &s);
    cr_expect_eq(s.complex, 0, "two members before it");
    sk_put(&g, "t_field", 4, 5);
    score_of("t_field", 6, 6, &s);
    cr_expect_eq(s.complex, 2 + 1 + 1);
}

Test(simcity, conditional_members_count_only_when_the_complex_provides_sims)
{
    setup(2);
    sk_put(&g, "t_field", 5, 6);
    sk_put(&g, "t_field", 4, 6);
    sk_put(&g, "t_field", 3, 6);
    struct sc_score s;
    score_of("t_field", 6, 6, &s);
    cr_expect_eq(s.complex, 0, "four fields are no farm complex");
    score_of("t_farm", 6, 6, &s);
    cr_expect_eq(s.complex, 3, "one farmhouse and three fields are");
}

Test(simcity, a_remote_member_counts_in_range_but_does_not_extend_the_complex)
{
    setup(2);
    sk_put(&g, "t_farm", 5, 6);
    sk_put(&g, "t_farm", 4, 6);
    sk_put(&g, "t_elevator", 4, 8); /* 2 from (4,6): remote member */
    struct sc_score s;
    score_of("t_farm", 6, 6, &s);
    cr_expect_eq(s.complex, 2 + 2 + 4);
    /* a farm next to the elevator only joins no complex */
    score_of("t_farm", 5, 8, &s);
    cr_expect_eq(s.complex, 0);
    /* a new remote member is paid by the complex in its range */
    sk_put(&g, "t_com", 6, 6);
    sk_put(&g, "t_com", 7, 6);
    score_of("t_elevator", 8, 6, &s);
    cr_expect_eq(s.complex, 2 + 2 + 4, "(8,6) is 3 from (5,6)");
}

Test(simcity, new_coverage_only_pays_blocks_no_provider_covered_before)
{
    setup(2);
    sk_put(&g, "t_com", 6, 6);
    sk_put(&g, "t_com", 7, 6);
    sk_put(&g, "t_com", 8, 6);
    sk_put(&g, "t_com", 9, 6);
    struct sc_score s;
    score_of("t_police", 5, 6, &s);
    cr_expect_eq(s.coverage, 2, "(6,6) and (7,6) within 2");
    sk_put(&g, "t_police", 5, 6);
    score_of("t_police", 10, 6, &s);
    cr_expect_eq(s.coverage, 2, "(8,6), (9,6): the others were covered");
    score_of("t_police", 7, 5, &s);
    cr_expect_eq(s.coverage, 1, "(8,6); (6,6) and (7,6) were covered, (9,6) is 3 away");
}

Test(simcity, police_coverage_adds_a_blocks_crime_to_its_distance)
{
    setup(2);
    sk_put(&g, "t_com", 6, 6);
    sk_put(&g, "t_crimy", 7, 6); /* distance 2 + crime 2 > 2 */
    sk_put(&g, "t_com", 6, 7);
    struct sc_score s;
    score_of("t_police", 5, 6, &s);
    cr_expect_eq(s.coverage, 2, "(6,6) and (6,7); (7,6) is 2 away plus crime 2");
}

Test(simcity, add_and_deduct_apply_to_each_later_block_that_meets_them)
{
    setup(2);
    sk_put(&g, "t_adder", 6, 6);  /* residential within 2: +2 */
    sk_put(&g, "t_adder", 9, 6);  /* too far from (7,7)? 3 away */
    sk_put(&g, "t_deduct", 8, 7); /* residential adjacent: -1 */
    struct sc_score s;
    score_of("t_res", 7, 7, &s);
    cr_expect_eq(s.bonus, 2 - 1);
    score_of("t_com", 7, 6, &s);
    cr_expect_eq(s.bonus, 0, "not residential");
}

Test(simcity, receive_each_counts_every_block_and_lose_applies_once)
{
    setup(2);
    sk_put(&g, "t_res", 6, 6);
    sk_put(&g, "t_res", 7, 5);
    struct sc_score s;
    score_of("t_each", 7, 6, &s);
    cr_expect_eq(s.bonus, 2);
    score_of("t_lose", 5, 6, &s);
    cr_expect_eq(s.total, 2 - 5, "a play may score less than nothing");
    sk_put(&g, "t_police", 6, 7);
    score_of("t_lose", 5, 6, &s);
    cr_expect_eq(s.bonus, 0);
}

Test(simcity, money_never_goes_below_zero)
{
    setup(2);
    sk_put(&g, "t_res", 6, 6);
    int card = sk_give(&g, 0, "t_lose");
    g.seats[0].money = 1;
    sk_play(&g, 0, card, 5, 6);
    cr_expect_eq(g.seats[0].money, 0);
    cr_expect_eq(g.seats[0].earned[SC_SRC_VALUE], 2);
    cr_expect_eq(g.seats[0].earned[SC_SRC_BONUS], -3, "only what there was to lose");
}

/* ---- specials ------------------------------------------------------------------------------- */

Test(simcity, must_cover_and_only_if_restrict_where_a_card_goes)
{
    setup(2);
    sk_put(&g, "t_res", 6, 6);
    sk_put(&g, "t_lake", 7, 6);
    int err;
    cr_expect_eq(mode_of("t_must", 6, 6, &err), SC_MODE_UPGRADE);
    cr_expect_eq(mode_of("t_must", 5, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_RESTRICTED);
    cr_expect_eq(mode_of("t_onlyif", 8, 6, &err), SC_MODE_NEW);
    cr_expect_eq(mode_of("t_onlyif", 5, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_RESTRICTED);
}

Test(simcity, a_limit_of_n_counts_such_blocks_in_its_scope)
{
    setup(2);
    sk_put(&g, "t_com", 6, 6);
    sk_put(&g, "t_limit", 7, 6);
    int err;
    cr_expect_eq(mode_of("t_limit", 5, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_LIMIT);
    for (int x = 8; x <= 10; x++)
        sk_put(&g, "t_com", x, 6);
    cr_expect_eq(mode_of("t_limit", 11, 6, &err), SC_MODE_NEW, "4 away: out of scope");
}

Test(simcity, a_removal_triggers_on_a_later_play_and_happens_at_the_next_turn)
{
    setup(2);
    sk_put(&g, "t_com", 6, 6);
    int doomed = sk_put(&g, "t_doomed", 7, 6);
    int trigger = sk_give(&g, 0, "t_trigger");
    sk_give(&g, 0, "t_com"); /* keeps seat 0 in cards */
    sk_give(&g, 1, "t_com");
    g.plays_left = 2; /* seat 0 may play again after the trigger */
    sk_play(&g, 0, trigger, 5, 6);
    cr_expect(g.flags[doomed] & SC_CF_DOOMED);
    cr_expect_eq(sc_block_at(&g, 7, 6), doomed, "still there until the next turn");
    cr_expect_eq(g.actor, 0);
    sk_pass(&g, 0); /* seat 0's turn ends; seat 1's begins with the removal */
    cr_expect_eq(g.actor, 1);
    cr_expect_eq(sc_block_at(&g, 7, 6), SC_NONE);
    cr_expect(!g.scorched[sc_cell(&g, 7, 6)], "a removal scorches nothing");
    cr_expect(sc_check_conservation(&g));
}

Test(simcity, a_removal_does_not_trigger_on_a_trigger_already_in_the_city)
{
    setup(2);
    sk_put(&g, "t_trigger", 6, 6);
    int doomed = sk_give(&g, 0, "t_doomed");
    sk_give(&g, 0, "t_com");
    sk_give(&g, 1, "t_com");
    sk_play(&g, 0, doomed, 7, 6);
    cr_expect(!(g.flags[doomed] & SC_CF_DOOMED));
    cr_expect_eq(sc_block_at(&g, 7, 6), doomed);
}

Test(simcity, an_extra_play_lets_the_player_play_again_in_the_same_turn)
{
    setup(2);
    sk_put(&g, "t_com", 6, 6);
    int extra = sk_give(&g, 0, "t_extra");
    int com = sk_give(&g, 0, "t_com");
    sk_give(&g, 1, "t_com");
    sk_play(&g, 0, extra, 7, 6);
    cr_expect_eq(g.actor, 0);
    cr_expect_eq(g.step, SC_STEP_PLAY);
    sk_play(&g, 0, com, 8, 6);
    cr_expect_eq(g.actor, 1);
}

/* ---- phases, the Power Plant and the Mayor -------------------------------------------------- */

Test(simcity, the_village_comes_with_max_4_p_providers)
{
    setup(2);
    for (int x = 3; x <= 5; x++)
        sk_put(&g, "t_res", x, 6);
    sc_check_phases(&g, NULL);
    cr_expect_eq(g.phase, 1);
    sk_put(&g, "t_res", 6, 6);
    sc_check_phases(&g, NULL);
    cr_expect_eq(g.phase, 2);
}

Test(simcity, the_city_comes_with_max_8_2p_requirers_and_never_retreats)
{
    setup(5); /* 10 requirers at 5 players */
    for (int x = 0; x < 4; x++)
        sk_put(&g, "t_res", x, 0);
    for (int x = 0; x < 9; x++)
        sk_put(&g, "zz_shop", x, 1);
    sc_check_phases(&g, NULL);
    cr_expect_eq(g.phase, 1, "5 providers needed");
    sk_put(&g, "t_res", 4, 0);
    sc_check_phases(&g, NULL);
    cr_expect_eq(g.phase, 2);
    sk_put(&g, "zz_shop", 9, 1);
    sc_check_phases(&g, NULL);
    cr_expect_eq(g.phase, 3);
    sc_city_destroy(&g, sc_cell(&g, 9, 1), NULL);
    sc_check_phases(&g, NULL);
    cr_expect_eq(g.phase, 3);
}

Test(simcity, the_metropolis_comes_when_sims_pass_max_40_10p_less_the_residential_bonus)
{
    setup(2);
    g.phase = 3;
    for (int x = 0; x < 12; x++)
        sk_put(&g, "zz_home", x, 0); /* 36 sims, a residential zone of 12 */
    sc_check_phases(&g, NULL);
    cr_expect_eq(g.phase, 4, "36 > 40 - 12");
    setup(2);
    g.phase = 3;
    for (int x = 0; x < 12; x += 2)
        sk_put(&g, "zz_home", x, 0); /* 18 sims, no zone of 3 */
    sk_put(&g, "zz_home", 0, 2);
    sc_check_phases(&g, NULL);
    cr_expect_eq(g.phase, 3);
}

Test(simcity, no_city_card_event_or_member_before_a_power_plant_whose_player_becomes_mayor)
{
    setup(2);
    g.phase = 3;
    sk_put(&g, "t_com", 6, 6);
    int err;
    cr_expect_eq(mode_of("t_green", 7, 6, &err), SC_MODE_NEW);
    cr_expect_eq(mode_of("t_tan", 7, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_POWER_PLANT);
    int plant = sk_give(&g, 0, "t_plant");
    sk_give(&g, 1, "t_com");
    sk_play(&g, 0, plant, 7, 6);
    cr_expect(g.power_played);
    cr_expect_eq(g.mayor, 0);
    cr_expect_eq(mode_of("t_tan", 5, 6, &err), SC_MODE_NEW);
    g.phase = 2;
    cr_expect_eq(mode_of("t_tan", 5, 6, &err), -1);
    cr_expect_eq(err, SC_ERR_PHASE);
}

Test(simcity, a_block_that_gives_the_mayor_money_pays_whoever_holds_the_office)
{
    setup(2);
    g.phase = 3;
    g.power_played = true;
    g.mayor = 1;
    sk_put(&g, "t_com", 6, 6);
    int gain = sk_give(&g, 0, "t_gain");
    sk_give(&g, 1, "t_com");
    sk_play(&g, 0, gain, 7, 6);
    cr_expect_eq(g.seats[1].money, 4);
    cr_expect_eq(g.seats[0].money, 1);
}
