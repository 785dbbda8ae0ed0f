/* test_sensitivity: main effects, interactions, R² and cross-validated
 * error of the one-hot regression on synthetic responses whose effects are
 * known exactly; results independent of row order; NaN rows skipped; too
 * few rows reported as not fitted. */
#include "testutil.h"

#include <math.h>

#include "sensitivity.h"

/* Full factorial over n_clusters (4) x scheduler (3) x l1_sets (4). */
static void small_space(space_def *s)
{
    space_def_baseline(s);
    int nc[] = {8, 15, 30, 60}, l1[] = {16, 32, 64, 128};
    s->nlevels[KNOB_N_CLUSTERS] = 4;
    memcpy(s->levels[KNOB_N_CLUSTERS], nc, sizeof nc);
    s->nlevels[KNOB_SCHEDULER] = 3;
    s->levels[KNOB_SCHEDULER][0] = SCHED_GTO;
    s->levels[KNOB_SCHEDULER][1] = SCHED_LRR;
    s->levels[KNOB_SCHEDULER][2] = SCHED_TWO_LEVEL;
    s->nlevels[KNOB_L1_SETS] = 4;
    memcpy(s->levels[KNOB_L1_SETS], l1, sizeof l1);
}

static int lvl(const space_def *s, int k, const gpu_config *c)
{
    for (int l = 0; l < s->nlevels[k]; l++)
        if (s->levels[k][l] == space_get(c, k))
            return l;
    return -1;
}

/* y = 10 level(n_clusters) + 3 [lrr] + inter * [n_clusters=60, l1=128] */
static size_t make_data(const space_def *s, double inter, gpu_config *cfg,
                        double *y)
{
    size_t n = (size_t)space_size(s);
    for (size_t i = 0; i < n; i++) {
        cfg[i] = space_at(s, i);
        int a = lvl(s, KNOB_N_CLUSTERS, &cfg[i]);
        int b = lvl(s, KNOB_L1_SETS, &cfg[i]);
        y[i] = 10.0 * a + 3.0 * (cfg[i].scheduler == SCHED_LRR)
               + inter * (a == 3 && b == 3);
    }
    return n;
}

static const sens_main *main_of(const sens_result *r, int knob)
{
    for (int i = 0; i < r->nmain; i++)
        if (r->main[i].knob == knob)
            return &r->main[i];
    return NULL;
}

START_TEST(additive_response_recovered_exactly)
{
    space_def s;
    small_space(&s);
    gpu_config cfg[48];
    double y[48];
    size_t n = make_data(&s, 0, cfg, y);
    sens_result r;
    gd_err e = {0, ""};
    ck_assert_int_eq(sens_fit(cfg, y, n, &s, 4, &r, &e), GD_OK);
    ck_assert(r.fitted);
    ck_assert_uint_eq(r.n, 48);
    ck_assert_double_eq_tol(r.r2, 1, 1e-9);
    ck_assert_double_eq_tol(r.cv_rmse, 0, 1e-9);
    ck_assert_int_eq(r.nmain, 3);   /* only the knobs that vary */
    const sens_main *nc = main_of(&r, KNOB_N_CLUSTERS);
    const sens_main *sc = main_of(&r, KNOB_SCHEDULER);
    const sens_main *l1 = main_of(&r, KNOB_L1_SETS);
    ck_assert(nc && sc && l1);
    ck_assert_double_eq_tol(nc->effect, 30, 1e-9);
    ck_assert_double_eq_tol(sc->effect, 3, 1e-9);
    ck_assert_double_eq_tol(l1->effect, 0, 1e-9);
    /* level means: overall mean 15 + 1, shifted by each level's effect */
    ck_assert_int_eq(nc->value[3], 60);
    ck_assert_double_eq_tol(nc->mean[0], 1, 1e-9);
    ck_assert_double_eq_tol(nc->mean[3], 31, 1e-9);
    ck_assert_double_eq_tol(sc->mean[1] - sc->mean[0], 3, 1e-9);
    for (int i = 0; i < r.npairs; i++)
        ck_assert_double_eq_tol(r.pair[i].strength, 0, 1e-9);
}
END_TEST

START_TEST(interaction_found_and_ranked_first)
{
    space_def s;
    small_space(&s);
    gpu_config cfg[48];
    double y[48];
    size_t n = make_data(&s, 8, cfg, y);
    sens_result r;
    gd_err e = {0, ""};
    ck_assert_int_eq(sens_fit(cfg, y, n, &s, 4, &r, &e), GD_OK);
    ck_assert(r.fitted);
    ck_assert(r.r2 < 0.999 && r.r2 > 0.5);
    ck_assert(r.cv_rmse > 0.01);
    ck_assert_int_eq(r.npairs, 3);
    ck_assert_int_eq(r.pair[0].a, KNOB_N_CLUSTERS);
    ck_assert_int_eq(r.pair[0].b, KNOB_L1_SETS);
    /* with the pair the model is exact: it adds all that was missing */
    ck_assert_double_eq_tol(r.pair[0].strength, 1 - r.r2, 1e-9);
    ck_assert(r.pair[1].strength < 1e-9);
    /* balanced design: the interaction cell lifts the top levels' means */
    const sens_main *nc = main_of(&r, KNOB_N_CLUSTERS);
    ck_assert_double_eq_tol(nc->effect, 30 + 8.0 / 4, 1e-9);
    const sens_main *l1 = main_of(&r, KNOB_L1_SETS);
    ck_assert_double_eq_tol(l1->effect, 8.0 / 4, 1e-9);
}
END_TEST

START_TEST(independent_of_row_order)
{
    space_def s;
    small_space(&s);
    gpu_config cfg[48], c2[48];
    double y[48], y2[48];
    size_t n = make_data(&s, 8, cfg, y);
    for (size_t i = 0; i < n; i++) {   /* a fixed permutation */
        size_t j = (i * 29 + 7) % n;
        c2[j] = cfg[i];
        y2[j] = y[i];
    }
    sens_result a, b;
    gd_err e = {0, ""};
    ck_assert_int_eq(sens_fit(cfg, y, n, &s, 5, &a, &e), GD_OK);
    ck_assert_int_eq(sens_fit(c2, y2, n, &s, 5, &b, &e), GD_OK);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
}
END_TEST

START_TEST(nan_rows_skipped_and_too_few_rows)
{
    space_def s;
    small_space(&s);
    gpu_config cfg[48];
    double y[48];
    size_t n = make_data(&s, 0, cfg, y);
    y[5] = NAN;
    y[17] = INFINITY;
    sens_result r;
    gd_err e = {0, ""};
    ck_assert_int_eq(sens_fit(cfg, y, n, &s, 4, &r, &e), GD_OK);
    ck_assert_uint_eq(r.n, 46);
    ck_assert(r.fitted);
    ck_assert_double_eq_tol(r.r2, 1, 1e-9);
    /* 9 parameters, 6 rows: nothing can be fitted */
    ck_assert_int_eq(sens_fit(cfg, y, 6, &s, 4, &r, &e), GD_OK);
    ck_assert(!r.fitted);
    ck_assert_int_eq(r.nmain, 0);
}
END_TEST

START_TEST(absent_level_reported_unknown)
{
    /* drop every row with l1_sets = 32: that level's effect cannot be
     * known, and the others must come out exactly as before */
    space_def s;
    small_space(&s);
    gpu_config cfg[48], c2[48];
    double y[48], y2[48];
    size_t n = make_data(&s, 0, cfg, y), m = 0;
    for (size_t i = 0; i < n; i++)
        if (cfg[i].l1_sets != 32) {
            c2[m] = cfg[i];
            y2[m++] = y[i];
        }
    sens_result r;
    gd_err e = {0, ""};
    ck_assert_int_eq(sens_fit(c2, y2, m, &s, 4, &r, &e), GD_OK);
    ck_assert(r.fitted);
    ck_assert_double_eq_tol(r.r2, 1, 1e-9);
    const sens_main *l1 = main_of(&r, KNOB_L1_SETS);
    ck_assert(isnan(l1->mean[1]));
    ck_assert(isfinite(l1->mean[0]) && isfinite(l1->mean[3]));
    ck_assert_double_eq_tol(l1->effect, 0, 1e-9);
    ck_assert_double_eq_tol(main_of(&r, KNOB_N_CLUSTERS)->effect, 30, 1e-9);
    ck_assert_double_eq_tol(main_of(&r, KNOB_SCHEDULER)->effect, 3, 1e-9);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sensitivity");
    TCase *t = tcase_create("core");
    tcase_add_test(t, additive_response_recovered_exactly);
    tcase_add_test(t, interaction_found_and_ranked_first);
    tcase_add_test(t, independent_of_row_order);
    tcase_add_test(t, nan_rows_skipped_and_too_few_rows);
    tcase_add_test(t, absent_level_reported_unknown);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
