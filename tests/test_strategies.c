/* test_strategies: every strategy respects its budget, never proposes a
 * config twice, proposes only points of the space, ends, and reproduces
 * for a seed (also when fed the same results again, as on resume); lhs
 * balances levels; surrogate finds the optimum of an additive objective
 * right after its start; agent moves the knob its diagnosis names.
 * Results are synthetic (not the embedded model), so these tests check the
 * mechanisms and do not move when the model changes. */
#include "testutil.h"

#include <math.h>

#include "strategy.h"

static const char *const all[] = {"exhaustive", "random", "lhs", "nsga2",
                                  "surrogate", "agent"};
#define NALL (sizeof all / sizeof all[0])

/* A synthetic result: ipc grows with resources (with a shmem x l1
 * interaction), area grows with them too; a few configs fail. */
static void synth(const gpu_config *c, store_record *r)
{
    memset(r, 0, sizeof *r);
    r->cfg = *c;
    if (c->shmem_size == 16384 && c->l1_sets == 16 && c->n_mem == 4) {
        r->status = ST_INVALID_CONFIG;
        return;
    }
    r->status = ST_OK;
    double sms = c->n_clusters * c->cores_per_cluster;
    double ipc = sms * (0.5 + 0.1 * c->num_sched_per_core)
                 * (1 - 0.3 / (1 + c->n_mem)) * (1 + 0.001 * c->l2_sets)
                 * (c->scheduler == 0 ? 1.05 : 1.0)
                 * (1 + 0.05 * (c->shmem_size / 16384) * (c->l1_sets / 32));
    double area = 100 + 10 * sms + 5 * c->n_mem + 0.1 * c->l2_sets
                  + 0.05 * c->l1_sets + c->shmem_size / 8192.0
                  + c->num_sched_per_core;
    met_put(&r->metrics, "ipc", ipc);
    met_put(&r->metrics, "area_mm2", area);
    met_put(&r->metrics, "occupancy", 0.5);
    met_put(&r->metrics, "l1d_miss_rate", 0.4);
    strcpy(r->bottleneck, c->n_mem < 8 ? "mem_bandwidth" : "compute");
    strcpy(r->limit, "threads");
}

/* Run a strategy to the end, asking for batches of `ask`; write the
 * proposed indices (room for cap) and return their count. */
static size_t drive(const char *name, const space_def *s, long budget,
                    uint64_t seed, size_t ask, int64_t *seq, size_t cap)
{
    strat *st;
    gd_err e = {0, ""};
    ck_assert_msg(strat_new(name, s, budget, seed, &st, &e) == GD_OK, "%s",
                  e.msg);
    gpu_config b[64];
    size_t total = 0, n;
    int rounds = 0;
    while ((n = strat_next(st, b, ask)) > 0) {
        ck_assert_uint_le(n, ask);
        for (size_t i = 0; i < n; i++) {
            int64_t idx = space_index(s, &b[i]);
            ck_assert_msg(idx >= 0, "%s proposed a config outside the space",
                          name);
            ck_assert_uint_lt(total, cap);
            seq[total++] = idx;
            store_record r;
            synth(&b[i], &r);
            strat_observe(st, &b[i], &r);
        }
        ck_assert_int_lt(++rounds, 100000);
    }
    ck_assert_msg(strat_done(st), "%s stopped before it was done", name);
    strat_free(st);
    return total;
}

static void no_repeats(const int64_t *seq, size_t n, uint64_t size)
{
    unsigned char *seen = calloc(size, 1);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(!seen[seq[i]], "config %lld proposed twice",
                      (long long)seq[i]);
        seen[seq[i]] = 1;
    }
    free(seen);
}

START_TEST(budget_and_no_repeats_full_space)
{
    space_def s;
    space_def_full(&s);
    const long budgets[] = {1, 7, 120};
    int64_t *seq = malloc(200 * sizeof *seq);
    for (size_t i = 1; i < NALL; i++)   /* exhaustive needs the whole space */
        for (size_t b = 0; b < 3; b++) {
            size_t n = drive(all[i], &s, budgets[b], 3, 16, seq, 200);
            ck_assert_msg(n == (size_t)budgets[b], "%s: %zu proposals for "
                          "budget %ld", all[i], n, budgets[b]);
            no_repeats(seq, n, space_size(&s));
        }
    free(seq);
}
END_TEST

START_TEST(small_space_exhausted_once)
{
    /* 3 x 2 x 2 = 12 points, budget larger than the space */
    space_def s;
    space_def_baseline(&s);
    s.nlevels[KNOB_N_CLUSTERS] = 3;
    s.levels[KNOB_N_CLUSTERS][0] = 8;
    s.levels[KNOB_N_CLUSTERS][1] = 15;
    s.levels[KNOB_N_CLUSTERS][2] = 30;
    s.nlevels[KNOB_N_MEM] = 2;
    s.levels[KNOB_N_MEM][0] = 4;
    s.levels[KNOB_N_MEM][1] = 8;
    s.nlevels[KNOB_SCHEDULER] = 2;
    s.levels[KNOB_SCHEDULER][0] = SCHED_GTO;
    s.levels[KNOB_SCHEDULER][1] = SCHED_LRR;
    int64_t seq[64];
    for (size_t i = 0; i < NALL; i++)
        for (size_t ask = 1; ask <= 13; ask += 4) {
            size_t n = drive(all[i], &s, 100, 9, ask, seq, 64);
            ck_assert_msg(n == 12, "%s: %zu of 12 points (ask %zu)", all[i],
                          n, ask);
            no_repeats(seq, n, 12);
        }
}
END_TEST

START_TEST(reproducible_for_a_seed)
{
    space_def s;
    space_def_full(&s);
    int64_t a[150], b[150], c[150];
    for (size_t i = 1; i < NALL; i++) {
        size_t na = drive(all[i], &s, 150, 42, 8, a, 150);
        size_t nb = drive(all[i], &s, 150, 42, 8, b, 150);
        size_t nc = drive(all[i], &s, 150, 43, 8, c, 150);
        ck_assert_uint_eq(na, nb);
        ck_assert_msg(memcmp(a, b, na * sizeof *a) == 0,
                      "%s differs between two runs with seed 42", all[i]);
        ck_assert_msg(nc != na || memcmp(a, c, na * sizeof *a) != 0,
                      "%s ignores the seed", all[i]);
    }
}
END_TEST

START_TEST(exhaustive_in_index_order)
{
    space_def s;
    space_def_full(&s);
    int64_t *seq = malloc(15552 * sizeof *seq);
    size_t n = drive("exhaustive", &s, 15552, 1, 64, seq, 15552);
    ck_assert_uint_eq(n, 15552);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(seq[i], (int64_t)i);
    free(seq);
}
END_TEST

/* Every strategy evaluates the baseline, inside its budget, when it lies
 * in the space (with batches of 1 and of 8, small and large budgets); in
 * a space without it none proposes it and strat_has_baseline says so. */
START_TEST(every_strategy_runs_the_baseline)
{
    space_def s;
    space_def_full(&s);
    gpu_config base = space_baseline();
    int64_t bi = space_index(&s, &base), seq[200];
    long budgets[] = {1, 3, 20, 150};
    size_t asks[] = {1, 8};
    for (size_t i = 0; i < NALL; i++) {
        if (strcmp(all[i], "exhaustive") == 0)
            continue;
        for (size_t b = 0; b < 4; b++)
            for (size_t a = 0; a < 2; a++)
                for (uint64_t seed = 1; seed <= 3; seed++) {
                    size_t n = drive(all[i], &s, budgets[b], seed, asks[a],
                                     seq, 200);
                    ck_assert_uint_eq(n, (size_t)budgets[b]);
                    int hits = 0;
                    for (size_t j = 0; j < n; j++)
                        hits += seq[j] == bi;
                    ck_assert_msg(hits == 1, "%s budget %ld ask %zu seed %d: "
                                  "baseline proposed %d times", all[i],
                                  budgets[b], asks[a], (int)seed, hits);
                }
    }
    /* n_clusters without its baseline value 15 */
    int cl[] = {8, 30};
    s.nlevels[KNOB_N_CLUSTERS] = 2;
    memcpy(s.levels[KNOB_N_CLUSTERS], cl, sizeof cl);
    strat *st;
    gd_err e = {0, ""};
    ck_assert_int_eq(strat_new("random", &s, 10, 1, &st, &e), GD_OK);
    ck_assert_int_eq(strat_has_baseline(st), 0);
    strat_free(st);
    space_def full;
    space_def_full(&full);
    ck_assert_int_eq(strat_new("lhs", &full, 10, 1, &st, &e), GD_OK);
    ck_assert_int_eq(strat_has_baseline(st), 1);
    strat_free(st);
}
END_TEST

START_TEST(lhs_balances_levels)
{
    space_def s;
    space_def_full(&s);
    int64_t seq[72];
    size_t n = drive("lhs", &s, 72, 5, 64, seq, 72);
    ck_assert_uint_eq(n, 72);
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        int count[SPACE_MAXLEVELS] = {0};
        for (size_t i = 0; i < n; i++) {
            gpu_config c = space_at(&s, (uint64_t)seq[i]);
            for (int l = 0; l < s.nlevels[k]; l++)
                count[l] += space_get(&c, k) == s.levels[k][l];
        }
        for (int l = 0; l < s.nlevels[k]; l++)
            ck_assert_int_eq(count[l], 72 / s.nlevels[k]);
    }
}
END_TEST

/* Feed a strategy exactly the results it asks for; return the configs. */
START_TEST(surrogate_finds_additive_optimum)
{
    /* one objective, additive in the knob levels (of its log): after the
     * start the main-effects fit is exact, so every adaptive pick (one per
     * round) is the best point one knob away from the best so far — it
     * improves every time and sets one more knob to its best level: the
     * optimum comes within 8 adaptive rounds */
    space_def s;
    space_def_full(&s);
    strat *st;
    gd_err e = {0, ""};
    ck_assert_int_eq(strat_new("surrogate", &s, 60, 7, &st, &e), GD_OK);
    camp_objective o = {"ipc", 1};
    ck_assert_int_eq(strat_set_objectives(st, &o, 1, &e), GD_OK);
    strat_set_batch(st, 1);
    gpu_config b[64], best = {60, 4, 12, 49152, SCHED_LRR, 4, 128, 128, {0}};
    int found = 0, after_start = -1, round = 0, worse = 0;
    double top = 0;
    size_t n;
    while ((n = strat_next(st, b, 64)) > 0) {
        round++;
        for (size_t i = 0; i < n; i++) {
            store_record r;
            memset(&r, 0, sizeof r);
            r.status = ST_OK;
            r.cfg = b[i];
            /* multiplicative: additive in the log the surrogate fits */
            double v = (double)b[i].n_clusters * b[i].cores_per_cluster
                       * b[i].n_mem * (b[i].shmem_size / 16384.0)
                       * (b[i].scheduler == SCHED_LRR ? 3 : 1)
                       * b[i].num_sched_per_core * (b[i].l1_sets / 16.0)
                       * (b[i].l2_sets / 32.0);
            met_put(&r.metrics, "ipc", v);
            if (round > 1 && !found && v <= top)
                worse++;
            top = v > top ? v : top;
            if (space_index(&s, &b[i]) == space_index(&s, &best) && !found) {
                found = 1;
                after_start = round;
            }
            strat_observe(st, &b[i], &r);
        }
    }
    strat_free(st);
    ck_assert_msg(found && after_start >= 2 && after_start <= 9,
                  "optimum found in round %d", after_start);
    ck_assert_int_eq(worse, 0);
}
END_TEST

START_TEST(agent_moves_the_binding_resource)
{
    /* Only n_mem and n_clusters vary; every result says the kernel is
     * memory-bandwidth bound and ipc depends on n_mem alone, so the
     * agent's first diagnosed move from the best config raises n_mem. */
    space_def s;
    space_def_baseline(&s);
    s.nlevels[KNOB_N_MEM] = 4;
    int mem[] = {4, 6, 8, 12}, cl[] = {8, 15, 30, 60};
    memcpy(s.levels[KNOB_N_MEM], mem, sizeof mem);
    s.nlevels[KNOB_N_CLUSTERS] = 4;
    memcpy(s.levels[KNOB_N_CLUSTERS], cl, sizeof cl);
    strat *st;
    gd_err e = {0, ""};
    ck_assert_int_eq(strat_new("agent", &s, 16, 1, &st, &e), GD_OK);
    camp_objective o = {"ipc", 1};
    strat_set_objectives(st, &o, 1, &e);
    strat_set_batch(st, 1);
    gpu_config b[64];
    size_t n = strat_next(st, b, 64);
    ck_assert_uint_ge(n, 2);
    int best_mem = 0;
    for (size_t i = 0; i < n; i++) {
        store_record r;
        memset(&r, 0, sizeof r);
        r.status = ST_OK;
        met_put(&r.metrics, "ipc", b[i].n_mem);
        strcpy(r.bottleneck, "mem_bandwidth");
        best_mem = b[i].n_mem > best_mem ? b[i].n_mem : best_mem;
        strat_observe(st, &b[i], &r);
    }
    if (best_mem == 12) {   /* already at the top: nothing to test */
        strat_free(st);
        return;
    }
    ck_assert_uint_eq(strat_next(st, b, 64), 1);
    ck_assert_int_gt(b[0].n_mem, best_mem);
    strat_free(st);
}
END_TEST

START_TEST(start_design_does_not_wait)
{
    /* Four idle workers asking four configs at a time: the start design
     * (Latin hypercube) is handed out without waiting for results; an
     * adaptive round then waits for its results, and only then goes on. */
    space_def s;
    space_def_full(&s);
    for (size_t i = 1; i < NALL; i++) {
        strat *st;
        gd_err e = {0, ""};
        ck_assert_int_eq(strat_new(all[i], &s, 100, 1, &st, &e), GD_OK);
        strat_set_batch(st, 4);
        gpu_config b[4][4];
        for (int r = 0; r < 4; r++)
            ck_assert_msg(strat_next(st, b[r], 4) == 4, "%s round %d",
                          all[i], r);
        ck_assert(!strat_done(st));
        strat_free(st);
    }
    strat *st;
    gd_err e = {0, ""};
    ck_assert_int_eq(strat_new("surrogate", &s, 40, 1, &st, &e), GD_OK);
    strat_set_batch(st, 4);
    gpu_config b[64];
    size_t n = strat_next(st, b, 64);   /* the whole start design */
    ck_assert_uint_ge(n, 16);
    ck_assert_uint_eq(strat_next(st, b + n, 4), 0);   /* waits for results */
    ck_assert(!strat_done(st));
    for (size_t i = 0; i < n; i++) {
        store_record r;
        synth(&b[i], &r);
        strat_observe(st, &b[i], &r);
    }
    ck_assert_uint_eq(strat_next(st, b, 64), 4);      /* one round */
    strat_free(st);
}
END_TEST

START_TEST(unknown_and_bad_arguments)
{
    space_def s;
    space_def_full(&s);
    strat *st;
    gd_err e = {0, ""};
    ck_assert_int_eq(strat_new("simulated_annealing", &s, 10, 1, &st, &e),
                     GD_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "surrogate"));
    ck_assert_int_eq(strat_new("random", &s, 0, 1, &st, &e), GD_EINPUT);
    for (size_t i = 0; i < NALL; i++)
        ck_assert(strat_known(all[i]));
    ck_assert(!strat_known("Random"));
    ck_assert_int_eq(strat_new("nsga2", &s, 10, 1, &st, &e), GD_OK);
    ck_assert_int_eq(strat_set_objectives(st, NULL, 0, &e), GD_EINPUT);
    strat_free(st);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("strategies");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, budget_and_no_repeats_full_space);
    tcase_add_test(t, small_space_exhausted_once);
    tcase_add_test(t, reproducible_for_a_seed);
    tcase_add_test(t, exhaustive_in_index_order);
    tcase_add_test(t, every_strategy_runs_the_baseline);
    tcase_add_test(t, lhs_balances_levels);
    tcase_add_test(t, surrogate_finds_additive_optimum);
    tcase_add_test(t, agent_moves_the_binding_resource);
    tcase_add_test(t, start_design_does_not_wait);
    tcase_add_test(t, unknown_and_bad_arguments);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
