/* test_costmodel: Eq. (1) terms, the closed form against exhaustive search
 * on random instances, the optimum against the fine grid, the validator
 * (each malformed decision rejected with its reason, every valid one
 * accepted), canonical text and hash, machine files, and calibration
 * recovering known parameters from synthetic timings. */
#include "testutil.h"

#include <math.h>
#include <gsl/gsl_rng.h>

#include "costmodel.h"
#include "machine.h"
#include "splitcal.h"

#define TMP "tests/tmp/test_costmodel"

static cm_machine load_preset(const char *name)
{
    cm_machine m;
    gd_err err = {0, ""};
    ck_assert_msg(mach_load(name, &m, &err) == GD_OK, "%s", err.msg);
    return m;
}

static cm_decision make(const cm_machine *m, int n, const int *idx,
                        const double *sh, long chunk)
{
    cm_decision d;
    memset(&d, 0, sizeof d);
    d.n = n;
    for (int i = 0; i < n; i++) {
        util_strlcpy(d.dev[i], m->dev[idx[i]].name, CM_NAMELEN);
        d.share[i] = sh[i];
    }
    d.chunk = chunk;
    d.block = 256;
    return d;
}

static int rejects(const cm_machine *m, const cm_task *t, cm_decision d,
                   const char *reason)
{
    gd_err err = {0, ""};
    int rc = cm_validate(m, t, &d, &err);
    ck_assert_msg(rc == GD_EINPUT, "expected rejection (%s)", reason);
    ck_assert_msg(strstr(err.msg, reason) != NULL, "reason \"%s\" not in \"%s\"",
                  reason, err.msg);
    return 1;
}

START_TEST(validator_rejects_each_malformed_decision)
{
    cm_machine m = load_preset("hetero-4");
    cm_task t = {CM_TRIAD, {1000000, 0, 0}, 4};
    int two[2] = {0, 1};
    double half[2] = {0.5, 0.5};
    cm_decision d = make(&m, 2, two, half, 1000);
    util_strlcpy(d.dev[1], "h100", CM_NAMELEN);
    rejects(&m, &t, d, "unknown device");
    d = make(&m, 2, two, half, 1000);
    util_strlcpy(d.dev[1], d.dev[0], CM_NAMELEN);
    rejects(&m, &t, d, "listed twice");
    d = make(&m, 2, two, half, 1000);
    d.share[1] = NAN;
    rejects(&m, &t, d, "not a finite number");
    d = make(&m, 2, two, half, 1000);
    d.share[0] = -0.5;
    d.share[1] = 1.5;
    rejects(&m, &t, d, "negative");
    d = make(&m, 2, two, half, 1000);
    d.share[1] = 0.6;
    rejects(&m, &t, d, "sum to");
    d = make(&m, 2, two, half, 0);
    rejects(&m, &t, d, "chunk");
    d = make(&m, 2, two, half, 1000);
    d.block = 48;
    rejects(&m, &t, d, "multiple of 32");
    int np[2] = {2, 3};                       /* t4 and rtx3090: no peer access */
    d = make(&m, 2, np, half, 1000);
    d.path = CM_P2P;
    rejects(&m, &t, d, "peer access");
    cm_task big = {CM_GEMM, {2000000, 8192, 8192}, 4};
    int t4[1] = {2};
    double one[1] = {1};
    d = make(&m, 1, t4, one, 1000);
    rejects(&m, &big, d, "memory overflow");
    d = make(&m, 0, two, half, 1000);
    rejects(&m, &t, d, "devices");
}
END_TEST

START_TEST(parser_rejects_malformed_text)
{
    cm_decision d;
    gd_err err = {0, ""};
    const char *bad[][2] = {
        {"devices=a100,v100;shares=0.5;chunk=10;block=256;mode=sync;path=host", "2 devices but 1 shares"},
        {"devices=a100;shares=1;chunk=10;block=256;mode=sync", "missing field"},
        {"devices=a100;shares=x;chunk=10;block=256;mode=sync;path=host", "not a number"},
        {"devices=a100;shares=1;chunk=10;block=256;mode=fast;path=host", "unknown mode"},
        {"devices=a100;shares=1;chunk=10;block=256;mode=sync;path=nvlink", "unknown path"},
        {"devices=a100;shares=1;chunk=10;block=256;mode=sync;path=host;colour=red", "unknown field"},
        {"devices=a100;shares=1;chunk;block=256;mode=sync;path=host", "no '='"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(cm_decision_parse(bad[i][0], &d, &err), GD_EINPUT);
        ck_assert_msg(strstr(err.msg, bad[i][1]) != NULL, "%s: got %s",
                      bad[i][0], err.msg);
    }
}
END_TEST

START_TEST(every_policy_decision_is_valid_and_round_trips)
{
    const char *machines[] = {"hetero-4", "uni-server-1gpu", "uni-server-2gpu-induced"};
    cm_task tasks[] = {{CM_TRIAD, {1 << 24, 0, 0}, 4}, {CM_DOT, {1 << 24, 0, 0}, 8},
                       {CM_GEMM, {4096, 4096, 4096}, 4},
                       {CM_JACOBI, {4096, 4096, 50}, 4}, {CM_MAP, {1 << 22, 64, 0}, 4}};
    for (int mi = 0; mi < 3; mi++) {
        cm_machine m = load_preset(machines[mi]);
        for (int ti = 0; ti < 5; ti++) {
            cm_profile prof;
            cm_profile_from_model(&m, &tasks[ti], &prof);
            for (int p = 0; p < CM_NPOL; p++) {
                cm_decision d, back;
                gd_err err = {0, ""};
                ck_assert_msg(cm_policy_decide(p, &m, &tasks[ti], &prof, &d, &err) == GD_OK,
                              "%s %s: %s", machines[mi], cm_policy_name(p), err.msg);
                char text[1024], text2[1024], h1[65], h2[65];
                cm_decision_text(&d, text, sizeof text);
                ck_assert_int_eq(cm_decision_parse(text, &back, &err), GD_OK);
                ck_assert_int_eq(cm_validate(&m, &tasks[ti], &back, &err), GD_OK);
                cm_decision_text(&back, text2, sizeof text2);
                ck_assert_str_eq(text, text2);
                cm_decision_hash(&d, h1);
                cm_decision_hash(&back, h2);
                ck_assert_str_eq(h1, h2);
                ck_assert(isfinite(cm_predict_any(&m, &tasks[ti], &d, NULL)));
            }
        }
    }
}
END_TEST

START_TEST(random_valid_decisions_are_accepted)
{
    cm_machine m = load_preset("hetero-4");
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    cm_task t = {CM_MAP, {1 << 20, 16, 0}, 4};
    for (int k = 0; k < 200; k++) {
        cm_decision d;
        memset(&d, 0, sizeof d);
        d.n = 1 + (int)gsl_rng_uniform_int(rng, 4);
        double sum = 0;
        for (int i = 0; i < d.n; i++) {
            util_strlcpy(d.dev[i], m.dev[i].name, CM_NAMELEN);
            d.share[i] = gsl_rng_uniform_pos(rng);
            sum += d.share[i];
        }
        for (int i = 0; i < d.n; i++)
            d.share[i] /= sum;
        d.chunk = 1 + (long)gsl_rng_uniform_int(rng, 1 << 20);
        d.block = 32 * (1 + (int)gsl_rng_uniform_int(rng, 32));
        d.mode = (int)gsl_rng_uniform_int(rng, 2);
        d.path = CM_HOST;
        gd_err err = {0, ""};
        ck_assert_msg(cm_validate(&m, &t, &d, &err) == GD_OK, "%s", err.msg);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(eq1_terms_add_up)
{
    cm_machine m = load_preset("uni-server-2gpu-induced");
    cm_task t = {CM_TRIAD, {1000000, 0, 0}, 4};
    int two[2] = {0, 1};
    double sh[2] = {0.6, 0.4};
    cm_decision d = make(&m, 2, two, sh, 100000);
    gd_err err = {0, ""};
    ck_assert_int_eq(cm_validate(&m, &t, &d, &err), GD_OK);
    cm_terms o;
    cm_shape s;
    cm_task_shape(&t, &s);
    double total = cm_predict(&m, &t, &s, &d, &o);
    ck_assert_double_eq_tol(o.u[0], 600000, 0.5);
    ck_assert_double_eq_tol(o.n_chunks[1], 4, 1e-12);
    ck_assert_double_eq_tol(total, o.t_setup + o.t_max + o.t_merge, 1e-15);
    for (int i = 0; i < 2; i++)
        ck_assert_double_eq_tol(o.t_dev[i], o.t_in[i] + o.t_comp[i] + o.t_out[i] +
                                o.t_launch[i], 1e-15);
    /* device 1 runs at half speed: roofline term doubles per unit */
    ck_assert_double_eq_tol(o.t_comp[1] / o.u[1], 2 * o.t_comp[0] / o.u[0], 1e-18);
    const cm_device *dv = &m.dev[0];
    double tin = 6 * dv->h2d_lat.v + 600000.0 * 8 / dv->h2d_bw.v;
    ck_assert_double_eq_tol(o.t_in[0], tin, 1e-15);
    d.mode = CM_PIPELINED;
    cm_predict(&m, &t, &s, &d, &o);
    double mx = fmax(o.t_in[0], fmax(o.t_comp[0], o.t_out[0]));
    double sum = o.t_in[0] + o.t_comp[0] + o.t_out[0];
    ck_assert_double_eq_tol(o.t_dev[0], mx + (sum - mx) / 6 + o.t_launch[0], 1e-15);
    ck_assert(o.t_dev[0] < sum + o.t_launch[0]);
}
END_TEST

START_TEST(allreduce_merge_follows_nccl_tests)
{
    cm_machine m = load_preset("hetero-4");
    cm_task t = {CM_DOT, {1 << 20, 0, 0}, 4};
    int two[2] = {0, 1};
    double sh[2] = {0.5, 0.5};
    cm_decision d = make(&m, 2, two, sh, 1 << 20);
    d.path = CM_P2P;
    gd_err err = {0, ""};
    ck_assert_int_eq(cm_validate(&m, &t, &d, &err), GD_OK);
    cm_terms o;
    cm_predict_any(&m, &t, &d, &o);
    double expect = m.p2p_lat[0][1].v + 8.0 / m.p2p_bw[0][1].v * 2.0 * 1 / 2;
    ck_assert_double_eq_tol(o.t_merge, expect, 1e-18);
}
END_TEST

/* Exhaustive min over a fine share grid of max_i(a_i + s_i U r_i). */
static double grid_min(const cm_profile *p, double U, int G)
{
    double best = INFINITY;
    int n = p->n;
    int k[3] = {0, 0, 0};
    for (k[0] = 0; k[0] <= G; k[0]++)
        for (k[1] = 0; k[1] <= (n > 2 ? G - k[0] : 0); k[1]++) {
            int s[3];
            s[0] = k[0];
            if (n == 2) {
                s[1] = G - k[0];
            } else {
                s[1] = k[1];
                s[2] = G - k[0] - k[1];
            }
            double t = 0;
            for (int i = 0; i < n; i++)
                if (s[i] > 0)
                    t = fmax(t, p->a[i] + (double)s[i] / G * U * p->r[i]);
            best = fmin(best, t);
        }
    return best;
}

START_TEST(closed_form_matches_exhaustive_search)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 5);
    for (int inst = 0; inst < 200; inst++) {
        cm_profile p;
        p.n = 2 + (int)gsl_rng_uniform_int(rng, 2);
        double U = 1e6;
        for (int i = 0; i < p.n; i++) {
            p.r[i] = 1e-9 * (0.5 + 10 * gsl_rng_uniform(rng));
            p.a[i] = 1e-3 * gsl_rng_uniform(rng) * (gsl_rng_uniform(rng) < 0.3 ? 10 : 1);
        }
        double sh[CM_MAXDEV];
        double T = cm_closed_form(&p, U, sh);
        double G = grid_min(&p, U, 600);
        /* T* is the true optimum: never above the grid's best, and the grid
         * (step 1/600) comes within its resolution of it. */
        ck_assert_msg(T <= G * (1 + 1e-9), "inst %d: T* %g > grid %g", inst, T, G);
        ck_assert_msg(G <= T * 1.01, "inst %d: grid %g vs T* %g", inst, G, T);
        double sum = 0;
        for (int i = 0; i < p.n; i++) {
            ck_assert(sh[i] >= 0);
            sum += sh[i];
            if (sh[i] > 0)     /* equal finish time */
                ck_assert_double_eq_tol(p.a[i] + sh[i] * U * p.r[i], T, T * 1e-9);
        }
        ck_assert_double_eq_tol(sum, 1, 1e-9);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(optimum_within_one_percent_of_fine_grid)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 9);
    cm_machine base = load_preset("hetero-4");
    for (int inst = 0; inst < 6; inst++) {
        cm_machine m = base;
        m.ndev = 3;
        for (int i = 0; i < m.ndev; i++) {
            m.dev[i].peak_flops.v *= 0.3 + gsl_rng_uniform(rng);
            m.dev[i].mem_bw.v *= 0.3 + gsl_rng_uniform(rng);
            m.dev[i].h2d_bw.v *= 0.3 + gsl_rng_uniform(rng);
        }
        cm_task t = {(int)gsl_rng_uniform_int(rng, CM_NKINDS), {0, 0, 0}, 4};
        t.dims[0] = t.kind == CM_GEMM || t.kind == CM_JACOBI ? 4096 : 1 << 24;
        t.dims[1] = t.kind == CM_MAP ? 64 : 2048;
        t.dims[2] = t.kind == CM_JACOBI ? 20 : 2048;
        cm_search g;
        cm_search_default(&t, &g);
        g.grid = 10;
        cm_decision d1, d2;
        double opt = cm_optimum(&m, &t, &g, &d1, NULL);
        g.grid = 60;
        double fine = cm_grid_best(&m, &t, &g, &d2, NULL);
        ck_assert_msg(opt <= fine * 1.01, "inst %d (%s): optimum %g vs grid %g",
                      inst, cm_kind_name(t.kind), opt, fine);
        gd_err err = {0, ""};
        ck_assert_int_eq(cm_validate(&m, &t, &d1, &err), GD_OK);
    }
    gsl_rng_free(rng);
}
END_TEST

/* Synthetic timings: the model itself on a "true" machine. */
static int synthetic(void *ctx, const cm_machine *m, const cm_task *t,
                     const cm_decision *d, ms_stat *out, gd_err *err)
{
    (void)m;
    (void)err;
    const cm_machine *truth = ctx;
    double v = cm_predict_any(truth, t, d, NULL);
    *out = (ms_stat){.median = v, .q1 = v, .q3 = v, .n = 1};
    return GD_OK;
}

START_TEST(calibration_recovers_known_parameters)
{
    cm_machine truth = load_preset("hetero-4"), start = truth;
    double eta[4] = {0.61, 0.43, 0.77, 0.25}, fixed[4] = {2e-5, 0, 7e-4, 1e-4};
    for (int i = 0; i < 4; i++) {
        truth.dev[i].eta_f[CM_GEMM].v = eta[i];
        truth.dev[i].fixed_s[CM_GEMM].v = fixed[i];
        truth.dev[i].eta_m[CM_TRIAD].v = eta[3 - i];
        truth.dev[i].fixed_s[CM_TRIAD].v = fixed[3 - i];
    }
    cm_task tasks[2] = {{CM_GEMM, {8192, 4096, 4096}, 4}, {CM_TRIAD, {1 << 26, 0, 0}, 4}};
    double ladder[4] = {0.125, 0.25, 0.5, 1};
    scal_fit fit;
    gd_err err = {0, ""};
    ck_assert_int_eq(scal_fit_machine(&start, tasks, 2, ladder, 4, synthetic, &truth,
                                      &fit, &err), GD_OK);
    ck_assert_int_eq(fit.nrows, 8);
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq_tol(start.dev[i].eta_f[CM_GEMM].v, eta[i], eta[i] * 1e-6);
        ck_assert_double_eq_tol(start.dev[i].fixed_s[CM_GEMM].v, fixed[i], 1e-9);
        ck_assert_double_eq_tol(start.dev[i].eta_m[CM_TRIAD].v, eta[3 - i], 1e-6);
        ck_assert_double_eq_tol(start.dev[i].fixed_s[CM_TRIAD].v, fixed[3 - i], 1e-9);
        ck_assert_int_eq(start.dev[i].eta_f[CM_GEMM].prov, CM_MEASURED);
    }
    /* and the calibrated model predicts held-out multi-device decisions */
    cm_decision d;
    cm_profile prof;
    cm_profile_from_model(&start, &tasks[0], &prof);
    ck_assert_int_eq(cm_policy_decide(CM_POL_PROFILED, &start, &tasks[0], &prof, &d, &err), GD_OK);
    ck_assert_double_eq_tol(cm_predict_any(&start, &tasks[0], &d, NULL),
                            cm_predict_any(&truth, &tasks[0], &d, NULL), 1e-9);
}
END_TEST

START_TEST(score_metrics)
{
    double p[6] = {1, 2, 3, 4, 5, 6}, q[6] = {1.1, 2.2, 2.7, 4.4, 5.0, 6.6};
    int g[6] = {0, 0, 0, 1, 1, 1};
    scal_score s;
    scal_score_pairs(p, q, g, 6, &s);
    ck_assert_int_eq((int)s.n, 6);
    ck_assert_double_eq_tol(s.spearman, 1, 1e-12);
    ck_assert_double_eq_tol(s.kendall_tau_b, 1, 1e-12);
    ck_assert_double_eq_tol(s.regret, 0, 1e-12);
    ck_assert(!s.warn);
    double q2[6] = {3, 2, 1, 9, 8, 7};    /* prediction picks the worst */
    scal_score_pairs(p, q2, g, 6, &s);
    ck_assert_double_eq_tol(s.regret, (3.0 / 1 - 1 + 9.0 / 7 - 1) / 2, 1e-12);
    ck_assert(s.warn);
}
END_TEST

START_TEST(machine_files_round_trip_and_errors_name_lines)
{
    ck_assert_int_eq(system("mkdir -p " TMP), 0);
    cm_machine m = load_preset("hetero-4"), back;
    gd_err err = {0, ""};
    ck_assert_int_eq(mach_save(&m, TMP "/h4.xml", &err), GD_OK);
    ck_assert_int_eq(mach_load(TMP "/h4.xml", &back, &err), GD_OK);
    ck_assert_int_eq(back.ndev, 4);
    ck_assert_int_eq(back.peer[2][3], 0);
    ck_assert_int_eq(back.dev[0].peak_flops.prov, CM_SPEC);
    tu_write(TMP "/bad.xml", "<machine name=\"x\">\n"
             "  <param name=\"setup_s\" value=\"0\" prov=\"spec\"/>\n"
             "  <param name=\"setup_dev_s\" value=\"0\"/>\n</machine>\n");
    ck_assert_int_eq(mach_load(TMP "/bad.xml", &back, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "bad.xml:3:") && strstr(err.msg, "prov"), "%s", err.msg);
    tu_write(TMP "/bad2.xml", "<machine name=\"x\">\n"
             "  <device name=\"g\" kind=\"tpu\"/>\n</machine>\n");
    ck_assert_int_eq(mach_load(TMP "/bad2.xml", &back, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "bad2.xml:2:"), "%s", err.msg);
    ck_assert_int_eq(mach_load("no-such-preset", &back, &err), GD_EINPUT);
}
END_TEST

/* --slowdown's factor list: every malformed list is refused whole. */
START_TEST(slowdown_factors_parse_and_refuse)
{
    double f[CM_MAXDEV];
    int n = 0;
    ck_assert_int_eq(mach_parse_factors("1,2.5", f, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert(f[0] == 1 && f[1] == 2.5);
    const char *bad[] = {"", ",", "0.5", "1,x", "-2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(mach_parse_factors(bad[i], f, &n) != 0, "\"%s\"", bad[i]);
    char many[256] = "1";
    for (int i = 1; i <= CM_MAXDEV; i++)
        strcat(many, ",1");
    ck_assert_int_ne(mach_parse_factors(many, f, &n), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("costmodel");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, validator_rejects_each_malformed_decision);
    tcase_add_test(tc, slowdown_factors_parse_and_refuse);
    tcase_add_test(tc, parser_rejects_malformed_text);
    tcase_add_test(tc, every_policy_decision_is_valid_and_round_trips);
    tcase_add_test(tc, random_valid_decisions_are_accepted);
    tcase_add_test(tc, eq1_terms_add_up);
    tcase_add_test(tc, allreduce_merge_follows_nccl_tests);
    tcase_add_test(tc, closed_form_matches_exhaustive_search);
    tcase_add_test(tc, optimum_within_one_percent_of_fine_grid);
    tcase_add_test(tc, calibration_recovers_known_parameters);
    tcase_add_test(tc, score_metrics);
    tcase_add_test(tc, machine_files_round_trip_and_errors_name_lines);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
