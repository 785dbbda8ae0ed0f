/* bench_model: figures for `make bench` (never pass/fail) — embedded-model
 * evaluations per second on one core, per reference kernel the IPC error
 * of the built-in descriptor (uncalibrated), of a descriptor from the
 * kernel's baseline log alone, and held out of a calibration (leave-one-out
 * over the kernel's reference runs), and the error of the other outputs
 * that results.csv also measures; with STRAT.csv (the stratified rows, 8
 * to 240 SMs) also, per kernel over both files: the fit on all rows, the
 * rows held out of a baseline+one-factor calibration, leave-one-SM-count-
 * out, and the mean signed error by SM-count class.
 * Usage: bench_model REF.csv LOGDIR [STRAT.csv]
 * (LOGDIR holds the gunzipped KERNEL-baseline.log files). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib_metrics.h"
#include "calibrate.h"
#include "fromlog.h"
#include "model.h"
#include "space.h"
#include "workload.h"

static const char *const kernels[] = {
    "vecadd", "sgemm", "reduction", "dct8x8", "histogram", "transpose", "sfu"
};
#define NK (sizeof kernels / sizeof kernels[0])
#define RHO_TARGET 0.9         /* the held-out target */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* This thread's CPU seconds: on a shared machine the wall clock counts
 * the time other processes hold the core. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Evaluations per second over the whole space, every reference kernel. */
static void speed(void)
{
    space_def s;
    space_def_full(&s);
    uint64_t size = space_size(&s);
    double sink = 0, t0 = now(), c0 = cpu_now();
    long n = 0;
    for (int rep = 0; rep < 3; rep++)
        for (size_t k = 0; k < NK; k++) {
            wl_workload w;
            gd_err e;
            if (wl_load_builtin(kernels[k], &w, &e))
                continue;
            for (uint64_t i = 0; i < size; i++, n++) {
                gpu_config c = space_at(&s, i);
                model_out o;
                if (model_eval(&w, &c, &o, NULL) == 0)
                    sink += o.ipc;
            }
        }
    double dt = now() - t0, dc = cpu_now() - c0;
    printf("model %s: %.0f evaluations/s on one core (%ld evaluations: 7 "
           "reference kernels x 15,552 configs x 3; checksum %.6g); %.0f "
           "per CPU-second of this thread\n\n", model_version(), n / dt, n,
           sink, n / dc);
}

static void row(const char *kernel, const char *what, const cal_row *rows,
                size_t n, const double *pred)
{
    double *ref = malloc(n * sizeof *ref), *p = malloc(n * sizeof *p);
    size_t m = 0;
    for (size_t i = 0; ref && p && i < n; i++)
        if (isfinite(pred[i])) {
            ref[m] = rows[i].ipc;
            p[m++] = pred[i];
        }
    calm_metrics cm;
    if (m && calm_compute(ref, p, m, &cm) == 0)
        printf("%-10s %-14s %3zu %6.1f%% %6.1f%% %6.3f %6.3f %6.3f %6.1f%% "
               "%4zu %6.1f%% %6.1f%% %6.1f%%\n", kernel, what, cm.n,
               100 * cm.mape, 100 * cm.agg_err, cm.pearson_r,
               cm.spearman_rho, cm.kendall_tau, 100 * cm.nrmse,
               cm.n_under_10, 100 * cm.max_ape, 100 * cm.median_ape,
               100 * cm.p90_ape);
    free(ref);
    free(p);
}

static void table(const char *ref_csv, const char *logdir)
{
    printf("IPC error against %s (modelled vs measured GPGPU-Sim 4.0)\n",
           ref_csv);
    printf("%-10s %-14s %3s %7s %7s %6s %6s %6s %7s %4s %7s %7s %7s\n",
           "kernel", "descriptor", "n", "MAPE", "agg", "r", "rho", "tau",
           "NRMSE", "<10%", "max", "median", "p90");
    cal_opts o;
    cal_opts_default(&o);
    double resolution[NK];
    unsigned draws = 0;
    for (size_t k = 0; k < NK; k++) {
        resolution[k] = -1;
        cal_row *rows = NULL;
        size_t n = 0;
        gd_err e = {0, ""};
        wl_workload w, fl;
        if (wl_load_builtin(kernels[k], &w, &e)
            || cal_read_csv(ref_csv, kernels[k], 1, &rows, &n, &e)) {
            printf("%-10s %s\n", kernels[k], e.msg);
            continue;
        }
        double *pred = malloc(n * sizeof *pred);
        for (size_t i = 0; pred && i < n; i++)
            pred[i] = rows[i].ipc;
        if (pred) {
            draws = calm_resolution_draws(n);   /* as gpudse calibrate */
            resolution[k] = calm_rank_resolution(pred, n, RHO_TARGET, draws, 1);
        }
        cal_predict(&w, rows, n, pred);
        row(kernels[k], "built-in", rows, n, pred);
        char path[1024];
        snprintf(path, sizeof path, "%s/%s-baseline.log", logdir,
                 kernels[k]);
        if (fl_from_file(path, kernels[k], NULL, &fl, NULL, &e) == GD_OK) {
            cal_predict(&fl, rows, n, pred);
            row(kernels[k], "from-log", rows, n, pred);
            if (cal_heldout(&fl, rows, n, (int)n, &o, pred, &e) == GD_OK)
                row(kernels[k], "from-log+LOO", rows, n, pred);
        } else {
            printf("%-10s from-log: %s\n", kernels[k], e.msg);
        }
        if (cal_heldout(&w, rows, n, (int)n, &o, pred, &e) == GD_OK)
            row(kernels[k], "built-in+LOO", rows, n, pred);
        else
            printf("%-10s calibrate: %s\n", kernels[k], e.msg);
        free(pred);
        free(rows);
    }
    printf("(built-in: templates/workloads, uncalibrated; from-log: gpudse "
           "workload from-log of the baseline log alone, no --mix; +LOO: "
           "each row predicted by a calibration on the other %s rows of "
           "its kernel)\n", "25");
    printf("\nrank resolution of the reference rows (random row error at "
           "which a model with no other error reaches mean rho %.1f; %u "
           "seeded draws):\n", RHO_TARGET, draws);
    for (size_t k = 0; k < NK; k++)
        if (resolution[k] >= 0)
            printf("  %-10s %5.2f%%\n", kernels[k], 100 * resolution[k]);
}

/* Other outputs than IPC, each against its results.csv column. */
enum { O_L1, O_L2, O_L2BW, O_OCC, O_STALL, O_N };
static const char *const other_cols[O_N] = {
    "l1d_miss_rate", "l2_miss_rate", "l2_bw_gbps", "occupancy",
    "dram_stall_cycles",
};

static double other_output(const model_out *o, int m)
{
    switch (m) {
    case O_L1: return o->l1d_miss_rate;
    case O_L2: return o->l2_miss_rate;
    case O_L2BW: return o->l2_bw_gbps;
    case O_OCC: return o->occupancy;
    default: return o->dram_stall_cycles;
    }
}

/* Column `name` of the CSV at path, by 1-based line, into v[line] (NAN
 * where absent); lines beyond max are ignored. 0, or -1 (no file/column). */
static int read_column(const char *path, const char *name, double *v,
                       size_t max)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    char line[2048];
    int col = -1, lineno = 0;
    for (size_t i = 0; i < max; i++)
        v[i] = NAN;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        int c = 0;
        char *save = NULL;
        for (char *t = strtok_r(line, ",\r\n", &save); t;
             t = strtok_r(NULL, ",\r\n", &save), c++) {
            if (lineno == 1 && !strcmp(t, name))
                col = c;
            else if (lineno > 1 && c == col && (size_t)lineno < max)
                v[lineno] = strtod(t, NULL);
        }
        if (lineno == 1 && col < 0)
            break;
    }
    fclose(fp);
    return col < 0 ? -1 : 0;
}

/* Per kernel, the built-in descriptor uncalibrated: miss rates and
 * occupancy as mean absolute error (fractions), L2 bandwidth as MAPE and
 * Spearman rho, the DRAM stall proxy as rho only (its unit is not
 * GPGPU-Sim's). */
static void other_table(const char *ref_csv)
{
    enum { MAXLINE = 4096 };
    double *col[O_N];
    for (int m = 0; m < O_N; m++) {
        col[m] = malloc(MAXLINE * sizeof *col[m]);
        if (!col[m] || read_column(ref_csv, other_cols[m], col[m], MAXLINE)) {
            printf("other outputs: no column %s in %s\n", other_cols[m],
                   ref_csv);
            for (int j = 0; j <= m; j++)
                free(col[j]);
            return;
        }
    }
    printf("\nother outputs of the built-in descriptors, uncalibrated "
           "(modelled vs measured GPGPU-Sim 4.0):\n");
    printf("%-10s %3s %9s %9s %9s %7s %9s %11s\n", "kernel", "n",
           "l1d MAE", "l2 MAE", "L2bw MAPE", "rho", "occ MAE", "stall rho");
    for (size_t k = 0; k < NK; k++) {
        cal_row *rows = NULL;
        size_t n = 0;
        gd_err e = {0, ""};
        wl_workload w;
        if (wl_load_builtin(kernels[k], &w, &e)
            || cal_read_csv(ref_csv, kernels[k], 1, &rows, &n, &e))
            continue;
        double *ref = malloc(O_N * n * sizeof *ref);
        double *pred = malloc(O_N * n * sizeof *pred);
        size_t m = 0;
        for (size_t i = 0; ref && pred && i < n; i++) {
            model_out o;
            if (rows[i].line >= MAXLINE
                || model_eval(&w, &rows[i].c, &o, NULL))
                continue;
            for (int j = 0; j < O_N; j++) {
                ref[j * n + m] = col[j][rows[i].line];
                pred[j * n + m] = other_output(&o, j);
            }
            m++;
        }
        calm_metrics bw;
        char stall[16] = "  constant";   /* a rank needs two values */
        const double *ps = pred + O_STALL * n;
        for (size_t i = 1; i < m; i++)
            if (ps[i] != ps[0]) {
                snprintf(stall, sizeof stall, "%.3f",
                         calm_spearman(ref + O_STALL * n, ps, m));
                break;
            }
        if (m && calm_compute(ref + O_L2BW * n, pred + O_L2BW * n, m, &bw) == 0)
            printf("%-10s %3zu %9.3f %9.3f %8.1f%% %7.3f %9.3f %11s\n",
                   kernels[k], m, calm_mae(ref, pred, m),
                   calm_mae(ref + O_L2 * n, pred + O_L2 * n, m), 100 * bw.mape,
                   bw.spearman_rho,
                   calm_mae(ref + O_OCC * n, pred + O_OCC * n, m), stall);
        free(ref);
        free(pred);
        free(rows);
    }
    printf("(MAE: mean |modelled - measured| of a fraction; occupancy is "
           "the model's resident warps / 48, GPGPU-Sim's the achieved "
           "mean; dram_stall_cycles is a proxy, ranked only; constant: "
           "the model's proxy takes one value on every row)\n");
    for (int m = 0; m < O_N; m++)
        free(col[m]);
}

/* ---- Across the SM counts: the reference rows plus the stratified rows ---- */

#define MAXROWS 64

static int sm_count(const cal_row *r)
{
    return r->c.n_clusters * r->c.cores_per_cluster;
}

/* SM-count classes of the signed-error table (the issue's). */
static const int sm_class_lo[] = {8, 15, 30, 60, 120, 240};
#define NCLASS (sizeof sm_class_lo / sizeof sm_class_lo[0])
static int sm_class(int sm)
{
    int c = 0;
    for (size_t i = 0; i < NCLASS; i++)
        if (sm >= sm_class_lo[i])
            c = (int)i;
    return c;
}

/* Metrics of pred over the rows with use[i] set (all when use is NULL):
 * MAPE, Spearman rho (not asked when the real IPC varies < 20%: flat) and
 * the mean signed error per SM-count class into sum/cnt. Returns rho, NAN
 * when flat or not computed. */
static double strat_line(const char *kernel, const char *what,
                       const cal_row *rows, size_t n, const double *pred,
                       const int *use, double *sum, int *cnt)
{
    double ref[MAXROWS], p[MAXROWS];
    size_t m = 0;
    double cls[NCLASS] = {0};
    int ccnt[NCLASS] = {0};
    for (size_t i = 0; i < n && m < MAXROWS; i++)
        if ((!use || use[i]) && isfinite(pred[i])) {
            ref[m] = rows[i].ipc;
            p[m++] = pred[i];
            int c = sm_class(sm_count(&rows[i]));
            cls[c] += pred[i] / rows[i].ipc - 1;
            ccnt[c]++;
        }
    calm_metrics cm;
    if (!m || calm_compute(ref, p, m, &cm))
        return NAN;
    char rho[16] = "  flat";
    if (!calm_is_flat(ref, m))
        snprintf(rho, sizeof rho, "%6.3f", cm.spearman_rho);
    printf("%-10s %-16s %3zu %6.1f%% %s %6.1f%%", kernel, what, cm.n,
           100 * cm.mape, rho, 100 * cm.max_ape);
    for (size_t c = 0; c < NCLASS; c++) {
        if (ccnt[c])
            printf(" %+6.1f%%", 100 * cls[c] / ccnt[c]);
        else
            printf(" %7s", "-");
        if (sum) {
            sum[c] += cls[c];
            cnt[c] += ccnt[c];
        }
    }
    printf("\n");
    return calm_is_flat(ref, m) ? NAN : cm.spearman_rho;
}

/* Rows of one kernel from the reference CSV and the stratified CSV. */
static size_t strat_rows(const char *ref_csv, const char *strat_csv,
                         const char *kernel, cal_row *out, gd_err *e)
{
    size_t total = 0;
    const char *files[2] = {ref_csv, strat_csv};
    for (int f = 0; f < 2; f++) {
        cal_row *rows = NULL;
        size_t n = 0;
        if (cal_read_csv(files[f], kernel, 1, &rows, &n, e))
            return 0;
        for (size_t i = 0; i < n && total < MAXROWS; i++)
            out[total++] = rows[i];
        free(rows);
    }
    return total;
}

/* Fit a copy of w on the rows with train[i] set, predict the others. */
static int fit_predict(const wl_workload *w, const cal_row *rows, size_t n,
                       const int *train, const cal_opts *o, double *pred)
{
    cal_row tr[MAXROWS] = {{"", "", 0, {0}, 0}};
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (train[i])
            tr[m++] = rows[i];
    wl_workload fit = *w;
    gd_err e = {0, ""};
    if (cal_fit(&fit, tr, m, o, NULL, &e))
        return -1;
    double all[MAXROWS];
    cal_predict(&fit, rows, n, all);
    for (size_t i = 0; i < n; i++)
        if (!train[i])
            pred[i] = all[i];
    return 0;
}

static void strat_table(const char *ref_csv, const char *strat_csv,
                        const char *logdir)
{
    printf("\nIPC across the SM counts: %s (26 rows per kernel) + %s "
           "(24 stratified rows per kernel, 8 to 240 SMs)\n", ref_csv,
           strat_csv);
    printf("%-10s %-16s %3s %7s %6s %7s", "kernel", "prediction", "n",
           "MAPE", "rho", "max");
    for (size_t c = 0; c < NCLASS; c++)
        printf(" %5dSM", sm_class_lo[c]);
    printf("   (mean signed error by SM-count class)\n");
    cal_opts o;
    cal_opts_default(&o);
    enum { P_RAW, P_FIT, P_OFAT, P_LOSO, P_N };
    static const char *const pname[P_N] = {
        "from-log", "fit all 50", "held:ofat-cal", "held:LOSO"
    };
    double sum[P_N][NCLASS] = {{0}};
    int cnt[P_N][NCLASS] = {{0}};
    double rho_sum[P_N] = {0};
    int rho_n[P_N] = {0};
    double r;
#define RHO(pi, expr) do { r = (expr); if (isfinite(r)) { \
        rho_sum[pi] += r; rho_n[pi]++; } } while (0)
    double loso_mape = 0;
    int nk = 0;
    for (size_t k = 0; k < NK; k++) {
        cal_row rows[MAXROWS];
        gd_err e = {0, ""};
        size_t n = strat_rows(ref_csv, strat_csv, kernels[k], rows, &e);
        wl_workload w;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s-baseline.log", logdir, kernels[k]);
        if (!n || fl_from_file(path, kernels[k], NULL, &w, NULL, &e)) {
            printf("%-10s %s\n", kernels[k], e.msg);
            continue;
        }
        double pred[MAXROWS];
        int train[MAXROWS], test[MAXROWS];
        cal_predict(&w, rows, n, pred);
        RHO(P_RAW, strat_line(kernels[k], pname[P_RAW], rows, n, pred, NULL,
                              sum[P_RAW], cnt[P_RAW]));
        for (size_t i = 0; i < n; i++)
            train[i] = 1;
        wl_workload fit = w;
        if (cal_fit(&fit, rows, n, &o, NULL, &e) == GD_OK) {
            cal_predict(&fit, rows, n, pred);
            RHO(P_FIT, strat_line(kernels[k], pname[P_FIT], rows, n, pred,
                                  NULL, sum[P_FIT], cnt[P_FIT]));
        }
        /* calibrated on the baseline and one-factor rows, as a new user
         * would; the random and stratified rows held out */
        for (size_t i = 0; i < n; i++) {
            train[i] = !strcmp(rows[i].design, "baseline")
                || !strncmp(rows[i].design, "ofat", 4);
            test[i] = !train[i];
        }
        if (fit_predict(&w, rows, n, train, &o, pred) == 0) {
            RHO(P_OFAT, strat_line(kernels[k], pname[P_OFAT], rows, n, pred,
                                   test, sum[P_OFAT], cnt[P_OFAT]));
            if (getenv("BENCH_MODEL_ROWS"))
                for (size_t i = 0; i < n; i++)
                    if (test[i])
                        fprintf(stderr, "row %s %s sm=%d mem=%d sched=%d "
                                "ns=%d l1=%d l2=%d smem=%d real %.1f model "
                                "%.1f err %+.1f%%\n", kernels[k],
                                rows[i].design, sm_count(&rows[i]),
                                rows[i].c.n_mem, rows[i].c.scheduler,
                                rows[i].c.num_sched_per_core,
                                rows[i].c.l1_sets, rows[i].c.l2_sets,
                                rows[i].c.shmem_size, rows[i].ipc, pred[i],
                                100 * (pred[i] / rows[i].ipc - 1));
        }
        /* leave one SM count out */
        int ok = 1;
        for (size_t i = 0; i < n; i++)
            pred[i] = NAN;
        for (size_t j = 0; j < n && ok; j++) {
            if (isfinite(pred[j]))
                continue;
            int sm = sm_count(&rows[j]);
            for (size_t i = 0; i < n; i++)
                train[i] = sm_count(&rows[i]) != sm;
            ok = fit_predict(&w, rows, n, train, &o, pred) == 0;
        }
        if (ok) {
            RHO(P_LOSO, strat_line(kernels[k], pname[P_LOSO], rows, n, pred,
                                   NULL, sum[P_LOSO], cnt[P_LOSO]));
            double a = 0;
            for (size_t i = 0; i < n; i++)
                a += fabs(pred[i] / rows[i].ipc - 1);
            loso_mape += a / n;
            nk++;
        }
    }
    for (int p = 0; p < P_N; p++) {
        printf("%-10s %-16s %3s %7s %6s %7s", "all", pname[p], "", "", "",
               "");
        for (size_t c = 0; c < NCLASS; c++)
            if (cnt[p][c])
                printf(" %+6.1f%%", 100 * sum[p][c] / cnt[p][c]);
            else
                printf(" %7s", "-");
        if (rho_n[p])
            printf("   mean rho %.3f over %d non-flat kernels",
                   rho_sum[p] / rho_n[p], rho_n[p]);
        printf("\n");
    }
#undef RHO
    if (nk)
        printf("mean leave-one-SM-count-out MAPE over %d kernels: %.1f%%\n",
               nk, 100 * loso_mape / nk);
    printf("(descriptors: gpudse workload from-log of each baseline log; "
           "classes: 8 = 8 SMs, 15 = 15-16, 30 = 30-32, 60, 120, 240; "
           "ofat-cal: calibrated on the baseline and 19 one-factor rows, "
           "the 30 others predicted; LOSO: every row of one SM count "
           "predicted by a calibration on the other SM counts; rho 'flat': "
           "real IPC varies < 20%% over the rows, MAPE only)\n");
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: bench_model REF.csv LOGDIR [STRAT.csv]\n");
        return 2;
    }
    speed();
    double t0 = now();
    table(argv[1], argv[2]);
    printf("calibration table computed in %.1f s\n", now() - t0);
    other_table(argv[1]);
    if (argc == 4) {
        t0 = now();
        strat_table(argv[1], argv[3], argv[2]);
        printf("SM-count table computed in %.1f s\n", now() - t0);
    }
    return 0;
}
