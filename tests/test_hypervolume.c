/* test_hypervolume: hypervolume against hand-computed fronts in 2, 3 and 4
 * objectives and against cell counting on random integer sets; NSGA-II
 * non-dominated sorting and crowding distance on known sets; ADRS and IGD
 * on hand fronts; analysis.json's quality object on a hand front. */
#include "testutil.h"

#include <math.h>

#include <cjson/cJSON.h>

#include "frontmetrics.h"
#include "hypervolume.h"
#include "nsga2.h"
#include "quality.h"

static double hv(const double *p, size_t n, size_t k, const double *ref)
{
    double v = -1;
    ck_assert_int_eq(hv_compute(p, n, k, ref, &v), 0);
    return v;
}

START_TEST(hv_2d_staircase)
{
    /* (1,3) (2,2) (3,1) under (4,4): strips 3 + 2 + 1; a dominated point,
     * a duplicate and a point beyond the reference add nothing */
    const double p[] = {3, 1, 1, 3, 2, 2, 3, 3, 2, 2, 5, 0, 0.5, 4};
    const double ref[] = {4, 4};
    ck_assert_double_eq_tol(hv(p, 3, 2, ref), 6, 1e-12);
    ck_assert_double_eq_tol(hv(p, 7, 2, ref), 6, 1e-12);
    ck_assert_double_eq(hv(p, 0, 2, ref), 0);
}
END_TEST

START_TEST(hv_3d_hand)
{
    const double one[] = {1, 1, 1}, ref2[] = {2, 2, 2};
    ck_assert_double_eq_tol(hv(one, 1, 3, ref2), 1, 1e-12);
    /* boxes 4 and 2 overlapping in a unit cube */
    const double two[] = {0, 0, 1, 1, 1, 0};
    ck_assert_double_eq_tol(hv(two, 2, 3, ref2), 5, 1e-12);
    /* three boxes of 6, pairwise overlaps 2, triple overlap 1: 18-6+1 */
    const double three[] = {1, 2, 3, 2, 3, 1, 3, 1, 2};
    const double ref4[] = {4, 4, 4};
    ck_assert_double_eq_tol(hv(three, 3, 3, ref4), 13, 1e-12);
}
END_TEST

START_TEST(hv_4d_hand)
{
    const double p[] = {0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0};
    const double ref[] = {1, 1, 1, 1};
    ck_assert_double_eq_tol(hv(p, 1, 4, ref), 0.5, 1e-12);
    ck_assert_double_eq_tol(hv(p, 2, 4, ref), 0.5 + 0.125 - 0.0625, 1e-12);
}
END_TEST

/* Count the unit cells of [0,G)^k dominated by integer points. */
static double cells(const double *p, size_t n, size_t k, int G)
{
    size_t total = 1, count = 0;
    for (size_t j = 0; j < k; j++)
        total *= (size_t)G;
    for (size_t c = 0; c < total; c++) {
        int cell[4];
        size_t t = c;
        for (size_t j = 0; j < k; j++) {
            cell[j] = (int)(t % (size_t)G);
            t /= (size_t)G;
        }
        for (size_t i = 0; i < n; i++) {
            int dom = 1;
            for (size_t j = 0; j < k; j++)
                dom &= p[i * k + j] <= cell[j];
            if (dom) {
                count++;
                break;
            }
        }
    }
    return (double)count;
}

START_TEST(hv_matches_cell_count)
{
    unsigned s = 12345;
    for (size_t k = 1; k <= 4; k++)
        for (int trial = 0; trial < 20; trial++) {
            double p[12 * 4], ref[4] = {6, 6, 6, 6};
            size_t n = 1 + (size_t)(trial % 12);
            for (size_t i = 0; i < n * k; i++) {
                s = s * 1103515245u + 12345u;
                p[i] = (double)((s >> 16) % 6);
            }
            ck_assert_double_eq_tol(hv(p, n, k, ref), cells(p, n, k, 6),
                                    1e-9);
        }
}
END_TEST

START_TEST(hv_nan_rows_ignored)
{
    const double p[] = {1, 1, NAN, 0};
    const double ref[] = {2, 2};
    ck_assert_double_eq_tol(hv(p, 2, 2, ref), 1, 1e-12);
}
END_TEST

START_TEST(normalise_and_bounds)
{
    const double p[] = {2, 10, 4, 30, NAN, 0, 3, 20};
    double lo[2], hi[2], out[8];
    hv_bounds(p, 4, 2, lo, hi);
    ck_assert_double_eq(lo[0], 2);
    ck_assert_double_eq(hi[0], 4);
    ck_assert_double_eq(lo[1], 10);
    ck_assert_double_eq(hi[1], 30);
    hv_normalise(p, 4, 2, lo, hi, out);
    ck_assert_double_eq_tol(out[0], 0, 1e-12);
    ck_assert_double_eq_tol(out[2], 1, 1e-12);
    ck_assert_double_eq_tol(out[7], 0.5, 1e-12);
    const double flat[] = {5, 5};
    hv_bounds(flat, 1, 2, lo, hi);
    hv_normalise(flat, 1, 2, lo, hi, out);
    ck_assert_double_eq(out[0], 0);
}
END_TEST

START_TEST(nsga2_sorting_known_set)
{
    const double p[] = {1, 4, 3, 3, 2, 2, 5, 5, 4, 1, NAN, 0, 4, 4};
    int rank[7];
    ck_assert_int_eq(nsga2_sort(p, 7, 2, rank), 5);   /* 4 fronts + NaN */
    ck_assert_int_eq(rank[0], 0);
    ck_assert_int_eq(rank[2], 0);
    ck_assert_int_eq(rank[4], 0);
    ck_assert_int_eq(rank[1], 1);
    ck_assert_int_eq(rank[6], 2);
    ck_assert_int_eq(rank[3], 3);
    ck_assert_int_eq(rank[5], 7);
    /* equal points share a front */
    const double q[] = {1, 1, 1, 1, 2, 2};
    int r2[3];
    ck_assert_int_eq(nsga2_sort(q, 3, 2, r2), 2);
    ck_assert_int_eq(r2[0], 0);
    ck_assert_int_eq(r2[1], 0);
    ck_assert_int_eq(r2[2], 1);
}
END_TEST

START_TEST(nsga2_crowding_known_set)
{
    /* front (1,4) (2,2) (4,1) (3,1.5): extremes infinite; (2,2): gaps
     * (3-1)/3 + (4-1.5)/3; (3,1.5): (4-2)/3 + (2-1)/3 */
    const double p[] = {1, 4, 2, 2, 4, 1, 3, 1.5};
    size_t mem[] = {0, 1, 2, 3};
    double d[4];
    ck_assert_int_eq(nsga2_crowding(p, 2, mem, 4, d), 0);
    ck_assert(isinf(d[0]) && isinf(d[2]));
    ck_assert_double_eq_tol(d[1], 2.0 / 3 + 2.5 / 3, 1e-12);
    ck_assert_double_eq_tol(d[3], 2.0 / 3 + 1.0 / 3, 1e-12);
    /* members listed in another order give the same distances */
    size_t mem2[] = {3, 1, 0, 2};
    double d2[4];
    nsga2_crowding(p, 2, mem2, 4, d2);
    ck_assert_double_eq_tol(d2[0], d[3], 1e-12);
    ck_assert_double_eq_tol(d2[1], d[1], 1e-12);
    ck_assert_int_eq(nsga2_prefer(0, 1.0, 1, INFINITY), -1);
    ck_assert_int_eq(nsga2_prefer(2, 5.0, 2, 1.0), -1);
    ck_assert_int_eq(nsga2_prefer(2, 1.0, 2, 5.0), 1);
}
END_TEST

START_TEST(adrs_igd_hand)
{
    const double ref[] = {0, 1, 1, 0};
    const double a1[] = {0, 1};
    ck_assert_double_eq_tol(fm_adrs(ref, 2, a1, 1, 2), 0.5, 1e-12);
    ck_assert_double_eq_tol(fm_igd(ref, 2, a1, 1, 2), sqrt(2) / 2, 1e-12);
    ck_assert_double_eq_tol(fm_adrs(ref, 2, ref, 2, 2), 0, 1e-12);
    ck_assert_double_eq_tol(fm_igd(ref, 2, ref, 2, 2), 0, 1e-12);
    const double shifted[] = {0.1, 1.2, 1.3, 0.05};
    ck_assert_double_eq_tol(fm_adrs(ref, 2, shifted, 2, 2), (0.2 + 0.3) / 2,
                            1e-12);
    /* better than the reference: no distance for ADRS */
    const double better[] = {-1, -1};
    ck_assert_double_eq_tol(fm_adrs(ref, 2, better, 1, 2), 0, 1e-12);
    ck_assert(isinf(fm_adrs(ref, 2, a1, 0, 2)));
}
END_TEST

static double jnum(const cJSON *o, const char *path0, const char *path1,
                   int idx)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, path0);
    if (path1)
        v = cJSON_GetObjectItemCaseSensitive(v, path1);
    if (idx >= 0)
        v = cJSON_GetArrayItem(v, idx);
    ck_assert_msg(cJSON_IsNumber(v), "%s.%s[%d] missing", path0,
                  path1 ? path1 : "", idx);
    return v->valuedouble;
}

START_TEST(quality_json_hand_front)
{
    /* maximize ipc, minimize area. Reference front (ipc, area): (1, 1)
     * and (3, 2); normalised (0 best, 1 worst on that front): (1, 0) and
     * (0, 1): hypervolume under (1.1, 1.1) = 0.11 + 0.10. Found: (1, 1)
     * only: 0.11; ADRS (0 + 1) / 2; IGD (0 + sqrt 2) / 2. */
    static camp_campaign c;
    memset(&c, 0, sizeof c);
    c.nobjectives = 2;
    strcpy(c.obj[0].metric, "ipc");
    c.obj[0].maximize = 1;
    strcpy(c.obj[1].metric, "area_mm2");
    const double ref[] = {-1, 1, -3, 2};
    const double found[] = {-1, 1, -0.5, 1.5};   /* + a dominated point */
    gd_err e = {0, ""};
    cJSON *w = cJSON_CreateObject();
    ck_assert_int_eq(qual_add_json(w, &c, found, 2, ref, 2, &e), GD_OK);
    ck_assert_double_eq_tol(jnum(w, "hypervolume", "value", -1), 0.11, 1e-12);
    ck_assert_double_eq_tol(jnum(w, "hypervolume", "reference_point", 1),
                            1.1, 1e-12);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(w, "hypervolume"), "normalisation");
    ck_assert_double_eq_tol(jnum(nm, "min", NULL, 0), 1, 1e-12); /* ipc */
    ck_assert_double_eq_tol(jnum(nm, "max", NULL, 0), 3, 1e-12);
    ck_assert_double_eq_tol(jnum(nm, "min", NULL, 1), 1, 1e-12); /* area */
    ck_assert_double_eq_tol(jnum(nm, "max", NULL, 1), 2, 1e-12);
    ck_assert_double_eq_tol(jnum(w, "reference", "hypervolume", -1), 0.21,
                            1e-12);
    ck_assert_double_eq_tol(jnum(w, "reference", "hv_ratio", -1),
                            0.11 / 0.21, 1e-12);
    ck_assert_double_eq_tol(jnum(w, "reference", "adrs", -1), 0.5, 1e-12);
    ck_assert_double_eq_tol(jnum(w, "reference", "igd", -1), sqrt(2) / 2,
                            1e-12);
    cJSON_Delete(w);
    /* without a reference: the observed front is the basis, no
     * "reference" object */
    w = cJSON_CreateObject();
    ck_assert_int_eq(qual_add_json(w, &c, ref, 2, NULL, 0, &e), GD_OK);
    ck_assert_double_eq_tol(jnum(w, "hypervolume", "value", -1), 0.21, 1e-12);
    ck_assert(cJSON_GetObjectItemCaseSensitive(w, "reference") == NULL);
    cJSON_Delete(w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hypervolume");
    TCase *t = tcase_create("core");
    tcase_add_test(t, hv_2d_staircase);
    tcase_add_test(t, hv_3d_hand);
    tcase_add_test(t, hv_4d_hand);
    tcase_add_test(t, hv_matches_cell_count);
    tcase_add_test(t, hv_nan_rows_ignored);
    tcase_add_test(t, normalise_and_bounds);
    tcase_add_test(t, nsga2_sorting_known_set);
    tcase_add_test(t, nsga2_crowding_known_set);
    tcase_add_test(t, adrs_igd_hand);
    tcase_add_test(t, quality_json_hand_front);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
