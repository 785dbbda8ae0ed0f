/* test_pareto: the front (and its allocation-free fallback) equals a
 * brute-force O(n²) reference on random point sets in 2 and 3 objectives,
 * with ties, duplicates and NaN. */
#include "testutil.h"
#include <math.h>
#include <gsl/gsl_rng.h>
#include "pareto.h"

static int brute_dominated(const double *p, size_t n, size_t k, size_t i)
{
    for (size_t j = 0; j < n; j++) {
        int le = 1, lt = 0;
        for (size_t d = 0; d < k; d++) {
            double a = p[j * k + d], b = p[i * k + d];
            if (isnan(a) || a > b)
                le = 0;
            if (a < b)
                lt = 1;
        }
        if (j != i && le && lt)
            return 1;
    }
    return 0;
}

static void check_random(size_t n, size_t k, int levels, unsigned long seed,
                         double nan_frac)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    double *p = malloc(n * k * sizeof *p);
    size_t *idx = malloc(n * sizeof *idx);
    for (size_t i = 0; i < n * k; i++)   /* few levels: many ties */
        p[i] = (double)gsl_rng_uniform_int(r, (unsigned long)levels);
    for (size_t i = 0; i < n / 10; i++) {  /* exact duplicates */
        size_t a = gsl_rng_uniform_int(r, n), b = gsl_rng_uniform_int(r, n);
        memcpy(p + a * k, p + b * k, k * sizeof *p);
    }
    for (size_t i = 0; i < n; i++)
        if (gsl_rng_uniform(r) < nan_frac)
            p[i * k] = NAN;
    size_t nf = pareto_front(p, n, k, idx), expect = 0;
    for (size_t i = 0; i < n; i++) {
        int nanrow = 0;
        for (size_t d = 0; d < k; d++)
            nanrow |= isnan(p[i * k + d]);
        int on = !nanrow && !brute_dominated(p, n, k, i);
        int found = 0;
        for (size_t f = 0; f < nf; f++)
            found |= idx[f] == i;
        ck_assert_msg(on == found, "point %zu: brute %d fast %d (n=%zu k=%zu)",
                      i, on, found, n, k);
        expect += (size_t)on;
    }
    ck_assert_uint_eq(nf, expect);
    for (size_t f = 1; f < nf; f++)
        ck_assert(idx[f - 1] < idx[f]);
    /* the allocation-free fallback gives the very same list */
    size_t *idx2 = malloc(n * sizeof *idx2);
    ck_assert_uint_eq(pareto_front_pairs(p, n, k, idx2), nf);
    ck_assert(nf == 0 || memcmp(idx, idx2, nf * sizeof *idx) == 0);
    free(idx2);
    free(p);
    free(idx);
    gsl_rng_free(r);
}

START_TEST(random_2d)
{
    for (unsigned long s = 1; s <= 40; s++)
        check_random(50 + s * 7, 2, s % 2 ? 10 : 1000, s, 0.0);
}
END_TEST

START_TEST(random_3d)
{
    for (unsigned long s = 1; s <= 40; s++)
        check_random(60 + s * 5, 3, s % 2 ? 6 : 500, 100 + s, 0.0);
}
END_TEST

START_TEST(random_with_nan_and_5d)
{
    for (unsigned long s = 1; s <= 10; s++) {
        check_random(200, 2, 20, 500 + s, 0.05);
        check_random(200, 5, 4, 600 + s, 0.05);
    }
}
END_TEST

START_TEST(hand_cases)
{
    size_t idx[8];
    /* min-min: (1,5) (2,2) (5,1) on the front, (3,3) dominated by (2,2),
     * (2,2) duplicated: both copies kept. */
    double p[] = {1, 5, 2, 2, 3, 3, 5, 1, 2, 2};
    size_t nf = pareto_front(p, 5, 2, idx);
    ck_assert_uint_eq(nf, 4);
    ck_assert_uint_eq(idx[0], 0);
    ck_assert_uint_eq(idx[1], 1);
    ck_assert_uint_eq(idx[2], 3);
    ck_assert_uint_eq(idx[3], 4);
    /* weak domination: (1,1) dominates (1,2) */
    double q[] = {1, 2, 1, 1};
    nf = pareto_front(q, 2, 2, idx);
    ck_assert_uint_eq(nf, 1);
    ck_assert_uint_eq(idx[0], 1);
    ck_assert_uint_eq(pareto_front(q, 0, 2, idx), 0);
    double one[] = {NAN, 1};
    ck_assert_uint_eq(pareto_front(one, 1, 2, idx), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pareto");
    TCase *t = tcase_create("pareto");
    tcase_add_test(t, hand_cases);
    tcase_add_test(t, random_2d);
    tcase_add_test(t, random_3d);
    tcase_add_test(t, random_with_nan_and_5d);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
