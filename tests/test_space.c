/* test_space: the design space — 15,552 distinct points and keys, index
 * round trips, canonical text, value parsing, and the strategies' budgets. */
#include "testutil.h"
#include "backend.h"
#include "space.h"
#include "strategy.h"

START_TEST(full_space_has_15552_distinct_keys)
{
    space_def s;
    space_def_full(&s);
    ck_assert_uint_eq(space_size(&s), 15552);
    wl_workload w;
    gd_err err;
    ck_assert_msg(wl_load_builtin("dct8x8", &w, &err) == 0, "%s", err.msg);
    const be_backend *b = be_find("analytic");
    size_t n = 15552;
    char (*keys)[65] = malloc(n * 65);
    for (uint64_t i = 0; i < n; i++) {
        gpu_config c = space_at(&s, i);
        ck_assert_int_eq(space_index(&s, &c), (int64_t)i);
        be_job_key(b, "", NULL, &w, &c, 1, keys[i]);
    }
    qsort(keys, n, 65, (int (*)(const void *, const void *))strcmp);
    for (size_t i = 1; i < n; i++)
        ck_assert_msg(strcmp(keys[i - 1], keys[i]) != 0, "duplicate key");
    free(keys);
}
END_TEST

START_TEST(key_depends_on_what_determines_result)
{
    wl_workload a, b2;
    gd_err err;
    ck_assert(wl_load_builtin("dct8x8", &a, &err) == 0);
    ck_assert(wl_load_builtin("sgemm", &b2, &err) == 0);
    const be_backend *b = be_find("analytic");
    gpu_config c = space_baseline();
    char k1[65], k2[65], k3[65], k4[65];
    be_job_key(b, "", NULL, &a, &c, 1, k1);
    be_job_key(b, "", NULL, &a, &c, 1, k2);
    ck_assert_str_eq(k1, k2);
    be_job_key(b, "", NULL, &a, &c, 2, k3);
    ck_assert_str_ne(k1, k3);
    be_job_key(b, "", NULL, &b2, &c, 1, k4);
    ck_assert_str_ne(k1, k4);
    c.l2_sets = 128;
    be_job_key(b, "", NULL, &a, &c, 1, k2);
    ck_assert_str_ne(k1, k2);
}
END_TEST

START_TEST(canonical_text_and_values)
{
    gpu_config c = space_baseline();
    char buf[256];
    space_config_canon(NULL, &c, buf, sizeof buf);
    ck_assert_str_eq(buf, "n_clusters=15,cores_per_cluster=1,n_mem=6,"
                     "shmem_size=49152,scheduler=gto,num_sched_per_core=2,"
                     "l1_sets=32,l2_sets=64");
    int v;
    ck_assert_int_eq(space_value_parse(KNOB_SCHEDULER, "two_level_active", &v), 0);
    ck_assert_int_eq(v, SCHED_TWO_LEVEL);
    ck_assert_int_eq(space_value_parse(KNOB_L1_SETS, "48", &v), -1);
    ck_assert_int_eq(space_value_parse(KNOB_N_MEM, "6x", &v), -1);
    ck_assert_int_eq(space_knob_find("l2_sets"), KNOB_L2_SETS);
    ck_assert_str_eq(space_knob_suggest("num_sched_per_cor"),
                     "num_sched_per_core");
    ck_assert_ptr_null(space_knob_suggest("frobnicate"));
}
END_TEST

static void check_strategy(const char *name, long budget, uint64_t seed,
                           size_t expect)
{
    space_def s;
    space_def_full(&s);
    strat *st;
    gd_err err;
    ck_assert(strat_new(name, &s, budget, seed, &st, &err) == 0);
    gpu_config batch[100];
    char *seen = calloc(space_size(&s), 1);
    size_t total = 0, n;
    while ((n = strat_next(st, batch, 100)) > 0)
        for (size_t i = 0; i < n; i++) {
            int64_t ix = space_index(&s, &batch[i]);
            ck_assert(ix >= 0);
            ck_assert_msg(!seen[ix], "%s proposed a config twice", name);
            seen[ix] = 1;
            total++;
        }
    ck_assert_uint_eq(total, expect);
    strat_free(st);
    free(seen);
}

START_TEST(strategies_respect_budget_and_never_repeat)
{
    check_strategy("exhaustive", 15552, 1, 15552);
    check_strategy("exhaustive", 100000, 1, 15552);
    check_strategy("random", 300, 1, 300);
    check_strategy("random", 20000, 3, 15552);
}
END_TEST

START_TEST(random_reproduces_for_a_seed)
{
    space_def s;
    space_def_full(&s);
    gpu_config a[50], b[50], c[50];
    strat *x, *y, *z;
    gd_err err;
    ck_assert(strat_new("random", &s, 50, 42, &x, &err) == 0);
    ck_assert(strat_new("random", &s, 50, 42, &y, &err) == 0);
    ck_assert(strat_new("random", &s, 50, 43, &z, &err) == 0);
    ck_assert_uint_eq(strat_next(x, a, 50), 50);
    ck_assert_uint_eq(strat_next(y, b, 50), 50);
    ck_assert_uint_eq(strat_next(z, c, 50), 50);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    ck_assert(memcmp(a, c, sizeof a) != 0);
    strat_free(x);
    strat_free(y);
    strat_free(z);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("space");
    TCase *t = tcase_create("space");
    tcase_add_test(t, full_space_has_15552_distinct_keys);
    tcase_add_test(t, key_depends_on_what_determines_result);
    tcase_add_test(t, canonical_text_and_values);
    tcase_add_test(t, strategies_respect_budget_and_never_repeat);
    tcase_add_test(t, random_reproduces_for_a_seed);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
