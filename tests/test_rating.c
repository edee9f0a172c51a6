/* test_rating.c: the players' rating (src/rating.c): a match of known ratings rates as the npm
 * package openskill 5.x rates it (the full comparison is tests/js/rating.test.mjs), a winner
 * gains and a loser loses, players sharing a place with equal ratings move alike and the order
 * of the players does not matter, and bad input is refused. */
#include <criterion/criterion.h>

#include <math.h>

#include "rating.h"

Test(rating, a_match_rates_as_openskill_rates_it)
{
    /* openskill 5.0.1: rate([[{mu:25,sigma:25/3}],[{mu:25,sigma:25/3}],[{mu:30,sigma:5}]],
     * {rank:[1,2,2]}) */
    struct rating in[3] = {{25, 25.0 / 3}, {25, 25.0 / 3}, {30, 5}}, out[3];
    const int rank[3] = {1, 2, 2};
    cr_assert_eq(rating_rate(3, in, rank, out), 0);
    const double want[3][2] = {{28.337890233149704, 8.17463888787976},
                               {24.010344066353042, 7.984284190886377},
                               {29.15448538021104, 4.95266447823904}};
    for (int i = 0; i < 3; i++) {
        cr_expect(fabs(out[i].mu - want[i][0]) < 1e-12, "player %d mu %.17g", i, out[i].mu);
        cr_expect(fabs(out[i].sigma - want[i][1]) < 1e-12, "player %d sigma %.17g", i,
                  out[i].sigma);
    }
}

Test(rating, a_winner_gains_and_a_loser_loses)
{
    struct rating in[2] = {rating_new(), rating_new()}, out[2];
    const int rank[2] = {2, 1};
    cr_assert_eq(rating_rate(2, in, rank, out), 0);
    cr_expect_gt(out[1].mu, RATING_MU);
    cr_expect_lt(out[0].mu, RATING_MU);
    cr_expect_lt(out[0].sigma, RATING_SIGMA);
    cr_expect_gt(rating_ordinal(out[1]), rating_ordinal(out[0]));
}

Test(rating, players_sharing_a_place_with_equal_ratings_move_alike_in_any_order)
{
    struct rating in[4] = {{25, 5}, {20, 4}, {25, 5}, {30, 6}}, out[4];
    const int rank[4] = {2, 1, 2, 3};
    cr_assert_eq(rating_rate(4, in, rank, out), 0);
    cr_expect(fabs(out[0].mu - out[2].mu) < 1e-12 && fabs(out[0].sigma - out[2].sigma) < 1e-12);
    /* the same match listed in another order rates each player the same */
    struct rating in2[4] = {in[3], in[2], in[1], in[0]}, out2[4];
    const int rank2[4] = {3, 2, 1, 2};
    cr_assert_eq(rating_rate(4, in2, rank2, out2), 0);
    for (int i = 0; i < 4; i++)
        cr_expect(fabs(out2[3 - i].mu - out[i].mu) < 1e-12, "player %d", i);
}

Test(rating, bad_input_is_refused_and_leaves_out_alone)
{
    struct rating in[2] = {{25, 8}, {25, 0}}, out[2] = {{1, 1}, {1, 1}};
    const int rank[2] = {1, 2};
    cr_expect_eq(rating_rate(2, in, rank, out), -1, "sigma 0");
    cr_expect_eq(rating_rate(1, in, rank, out), -1, "one player");
    in[1].sigma = NAN;
    cr_expect_eq(rating_rate(2, in, rank, out), -1, "not a number");
    cr_expect(out[0].mu == 1 && out[1].sigma == 1);
}
