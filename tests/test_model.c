/* test_model: the embedded model (analytic-2.3) and the workload descriptors —
 * occupancy in every limiting regime, IPC direction against the one-factor
 * rows of the real GPGPU-Sim results, error figures, built-in and malformed
 * descriptors. Run from the repo root with GPUDSE_DATA=templates. */
#include "testutil.h"

#include <math.h>
#include <time.h>

#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include "model.h"
#include "space.h"
#include "workload.h"

#define REF_CSV "tests/data/reference_results.csv"
#define BAD_DIR "tests/data/bad_workloads"
#define MAXROWS 512

/* Direction checks the model must pass (measured: see the printout); the
 * real change must exceed 3% for a row to count. */
#define DIR_THRESHOLD 0.03
#define MIN_DIR_PASS 54
#define N_DIR_CHECKS 55
/* Uncalibrated IPC error over all rows must not get worse than this
 * (measured 13.5% with analytic-2.3, 13.7% with analytic-2.2, 14.8% with
 * analytic-2.0; v1 was
 * 36.6%). */
#define MAX_MAPE 0.145

static const char *const ref_kernels[] = {
    "vecadd", "sgemm", "reduction", "dct8x8", "histogram", "transpose", "sfu"
};
#define N_REF (sizeof ref_kernels / sizeof ref_kernels[0])

typedef struct {
    char kernel[32], design[48];
    gpu_config c;
    double ipc;
    int cta_per_core;          /* GPGPU-Sim's CTA/core */
    char cta_limited_by[32];   /* its limit(s), "shmem regs" on a tie */
} ref_row;

/* ---------------------------------------------------------------- helpers */

static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, ",\r\n", &save); t && n < max;
         t = strtok_r(NULL, ",\r\n", &save))
        f[n++] = t;
    return n;
}

/* Read tests/data/reference_results.csv (columns of reference/README.md). */
static int load_rows(ref_row *rows, int max)
{
    FILE *fp = fopen(REF_CSV, "r");
    ck_assert_msg(fp != NULL, "cannot open %s (run from the repo root)",
                  REF_CSV);
    char line[1024];
    char *f[32];
    ck_assert(fgets(line, sizeof line, fp) != NULL);
    int nh = split_csv(line, f, 32);
    ck_assert_int_ge(nh, 11);
    int knobcol[SPACE_NKNOBS], ipccol = -1, ctacol = -1, limcol = -1;
    for (int k = 0; k < SPACE_NKNOBS; k++)
        knobcol[k] = -1;
    for (int i = 0; i < nh; i++) {
        int k = space_knob_find(f[i]);
        if (k >= 0)
            knobcol[k] = i;
        if (strcmp(f[i], "ipc") == 0)
            ipccol = i;
        if (strcmp(f[i], "cta_per_core") == 0)
            ctacol = i;
        if (strcmp(f[i], "cta_limited_by") == 0)
            limcol = i;
    }
    ck_assert(ipccol >= 0 && ctacol >= 0 && limcol >= 0);
    for (int k = 0; k < SPACE_NKNOBS; k++)
        ck_assert_msg(knobcol[k] >= 0, "knob column %d missing", k);
    int n = 0;
    while (n < max && fgets(line, sizeof line, fp)) {
        int nf = split_csv(line, f, 32);
        if (nf < nh)
            continue;
        ref_row *r = &rows[n];
        util_strlcpy(r->kernel, f[0], sizeof r->kernel);
        util_strlcpy(r->design, f[1], sizeof r->design);
        r->c = space_baseline();
        for (int k = 0; k < SPACE_NKNOBS; k++) {
            int v;
            ck_assert_msg(space_value_parse(k, f[knobcol[k]], &v) == 0,
                          "bad value %s", f[knobcol[k]]);
            space_set(&r->c, k, v);
        }
        r->ipc = atof(f[ipccol]);
        r->cta_per_core = atoi(f[ctacol]);
        util_strlcpy(r->cta_limited_by, f[limcol], sizeof r->cta_limited_by);
        n++;
    }
    fclose(fp);
    return n;
}

static void load(const char *name, wl_workload *w)
{
    gd_err e = {0, ""};
    int rc = wl_load_builtin(name, w, &e);
    ck_assert_msg(rc == GD_OK, "load %s: %s", name, e.msg);
}

/* Every output at c; the workload must fit the point. */
static model_out eval_out(const wl_workload *w, const gpu_config *c)
{
    model_out o;
    gd_err e = {0, ""};
    ck_assert_msg(model_eval(w, c, &o, &e) == 0, "%s: %s", w->name, e.msg);
    return o;
}

static double eval_ipc(const wl_workload *w, const gpu_config *c)
{
    return eval_out(w, c).ipc;
}

static wl_kernel synth_kernel(int threads, int regs, int smem)
{
    wl_kernel k;
    memset(&k, 0, sizeof k);
    util_strlcpy(k.name, "synthetic", sizeof k.name);
    k.grid_ctas = 1000;
    k.threads_per_cta = threads;
    k.launches = 1;
    k.regs_per_thread = regs;
    k.smem_per_cta = smem;
    k.thread_insns = k.warp_insns = 100;
    k.insn_alu = 90;
    k.insn_ld_global = 5;
    k.insn_st_global = 5;
    k.ld_tx = k.st_tx = 1;
    k.st_sectors = 4;
    k.atom_tx = 1;
    k.shared_conflict = 1;
    k.ilp = 1;
    k.mem_waits = 1;
    k.mem_eff = 1;
    k.l2_reuse = 1;
    k.footprint_kb_total = 256;
    k.footprint_kb_per_cta = 1;
    return k;
}

static void occ_case(int threads, int regs, int smem, int shmem_size,
                     int want, int want_limit)
{
    wl_workload w;
    memset(&w, 0, sizeof w);
    util_strlcpy(w.name, "synthetic", sizeof w.name);
    w.nkernels = 1;
    w.k[0] = synth_kernel(threads, regs, smem);
    gpu_config c = space_baseline();
    c.shmem_size = shmem_size;
    model_out o;
    gd_err e = {0, ""};
    ck_assert_msg(model_eval(&w, &c, &o, &e) == 0, "%s", e.msg);
    ck_assert_msg(o.ctas_per_sm == want && o.limit == want_limit,
                  "threads=%d regs=%d smem=%d shmem=%d: got %d (%s), want "
                  "%d (%s)", threads, regs, smem, shmem_size, o.ctas_per_sm,
                  model_limit_name(o.limit), want,
                  model_limit_name(want_limit));
}

/* ------------------------------------------------------------ occupancy */

START_TEST(occupancy_regimes)
{
    /* threads: 1536 / 256 = 6 (vecadd, reduction, ... of kernels.csv). */
    occ_case(256, 12, 0, 49152, 6, LIMIT_THREADS);
    /* threads padded to whole warps: 200 -> 224, 1536 / 224 = 6 (not 7). */
    occ_case(200, 8, 0, 49152, 6, LIMIT_THREADS);
    /* regs: sgemm 30 -> 32 per thread, 32768 / (256 * 32) = 4. */
    occ_case(256, 30, 8192, 49152, 4, LIMIT_REGS);
    /* regs rounded up to a multiple of 4: 21 -> 24, 32768 / 6144 = 5. */
    occ_case(256, 21, 0, 49152, 5, LIMIT_REGS);
    /* dct8x8: 26 -> 28, 32768 / 7168 = 4. */
    occ_case(256, 26, 2112, 49152, 4, LIMIT_REGS);
    /* smem: sgemm at shmem_size 16384: 16384 / 8192 = 2. */
    occ_case(256, 30, 8192, 16384, 2, LIMIT_SMEM);
    /* tie smem = regs = 4 at 32768 (GPGPU-Sim prints "shmem regs"). */
    occ_case(256, 30, 8192, 32768, 4, LIMIT_SMEM);
    /* CTA cap: 64-thread CTAs (dct8x8_jpeg kernels): 8. */
    occ_case(64, 14, 2140, 49152, 8, LIMIT_CTAS);
}
END_TEST

START_TEST(occupancy_builtin_match_kernels_csv)
{
    /* kernels.csv: baseline_cta_per_core and baseline_cta_limited_by. */
    static const struct { const char *n; int ctas, limit; } want[] = {
        {"vecadd", 6, LIMIT_THREADS}, {"sgemm", 4, LIMIT_REGS},
        {"reduction", 6, LIMIT_THREADS}, {"dct8x8", 4, LIMIT_REGS},
        {"histogram", 6, LIMIT_THREADS}, {"transpose", 6, LIMIT_THREADS},
        {"sfu", 6, LIMIT_THREADS}, {"dct8x8_jpeg", 8, LIMIT_CTAS},
    };
    gpu_config c = space_baseline();
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        wl_workload w;
        load(want[i].n, &w);
        model_out o;
        o = eval_out(&w, &c);
        ck_assert_msg(o.ctas_per_sm == want[i].ctas
                      && o.limit == want[i].limit, "%s: %d %s", want[i].n,
                      o.ctas_per_sm, model_limit_name(o.limit));
    }
}
END_TEST

/* Every one of the 182 reference rows: the model places GPGPU-Sim's
 * CTA/core, and the limit it reports is one GPGPU-Sim printed (a tie prints
 * both, "shmem regs": sgemm at 32 KB of shared memory). */
START_TEST(occupancy_matches_every_reference_row)
{
    static ref_row rows[MAXROWS];
    int n = load_rows(rows, MAXROWS);
    ck_assert_int_eq(n, 182);
    static const char *const gpgpusim_name[] = {
        [LIMIT_CTAS] = "cta_limit", [LIMIT_THREADS] = "threads",
        [LIMIT_REGS] = "regs", [LIMIT_SMEM] = "shmem",
    };
    int smem_rows = 0;
    for (int i = 0; i < n; i++) {
        wl_workload w;
        load(rows[i].kernel, &w);
        model_out o = eval_out(&w, &rows[i].c);
        const char *want = gpgpusim_name[o.limit];
        const char *got = strstr(rows[i].cta_limited_by, want);
        size_t l = strlen(want);
        ck_assert_msg(o.ctas_per_sm == rows[i].cta_per_core && got
                      && (got[l] == '\0' || got[l] == ' '),
                      "%s %s: model %d CTAs (%s), GPGPU-Sim %d (%s)",
                      rows[i].kernel, rows[i].design, o.ctas_per_sm, want,
                      rows[i].cta_per_core, rows[i].cta_limited_by);
        smem_rows += o.limit == LIMIT_SMEM;
    }
    ck_assert_int_eq(smem_rows, 5);   /* sgemm at 16 KB (4 rows) and 32 KB */
}
END_TEST

START_TEST(cta_that_does_not_fit)
{
    wl_workload w;
    memset(&w, 0, sizeof w);
    util_strlcpy(w.name, "big", sizeof w.name);
    w.nkernels = 1;
    w.k[0] = synth_kernel(256, 12, 20000);
    gpu_config c = space_baseline();
    c.shmem_size = 16384;
    model_out o;
    gd_err e = {0, ""};
    ck_assert_int_eq(model_eval(&w, &c, &o, &e), -1);
    ck_assert_int_eq(e.code, GD_EINPUT);
    ck_assert_msg(strstr(e.msg, "does not fit") != NULL, "%s", e.msg);
    c.shmem_size = 49152;
    o = eval_out(&w, &c);
    ck_assert_int_eq(o.ctas_per_sm, 2);
}
END_TEST

/* ------------------------------------------------- against GPGPU-Sim rows */

START_TEST(ipc_direction_and_error)
{
    static ref_row rows[MAXROWS];
    int n = load_rows(rows, MAXROWS);
    ck_assert_int_ge(n, 100);
    int checks = 0, pass = 0;
    double ape_all = 0;
    int nall = 0;
    printf("model %s against %s (uncalibrated)\n", model_version(), REF_CSV);
    printf("%-10s %10s %10s %8s %6s\n", "kernel", "base_model", "base_real",
           "MAPE", "rows");
    for (size_t ki = 0; ki < N_REF; ki++) {
        wl_workload w;
        load(ref_kernels[ki], &w);
        const ref_row *base = NULL;
        for (int i = 0; i < n; i++)
            if (!strcmp(rows[i].kernel, w.name)
                && !strcmp(rows[i].design, "baseline"))
                base = &rows[i];
        ck_assert_msg(base != NULL, "no baseline row for %s", w.name);
        double mb = eval_ipc(&w, &base->c), ape = 0;
        int nk = 0;
        for (int i = 0; i < n; i++) {
            const ref_row *r = &rows[i];
            if (strcmp(r->kernel, w.name))
                continue;
            double m = eval_ipc(&w, &r->c);
            ape += fabs(m - r->ipc) / r->ipc;
            nk++;
            if (strncmp(r->design, "ofat:", 5))
                continue;
            double real = r->ipc / base->ipc - 1, mod = m / mb - 1;
            if (fabs(real) <= DIR_THRESHOLD)
                continue;
            checks++;
            if (real * mod > 0 && fabs(mod) > 1e-3) {
                pass++;
            } else {
                char buf[32];
                int knob = space_knob_find(r->design + 5);
                printf("  direction miss: %s %s=%s real %+.1f%% model "
                       "%+.1f%%\n", w.name, r->design + 5,
                       space_value_str(knob, space_get(&r->c, knob), buf,
                                       sizeof buf), 100 * real, 100 * mod);
            }
        }
        printf("%-10s %10.1f %10.1f %7.1f%% %6d\n", w.name, mb, base->ipc,
               100 * ape / nk, nk);
        ape_all += ape;
        nall += nk;
    }
    printf("direction checks passed: %d of %d (real change > %.0f%%)\n", pass,
           checks, 100 * DIR_THRESHOLD);
    printf("IPC MAPE over all %d rows: %.3f%%\n", nall, 100 * ape_all / nall);
    fflush(stdout);
    ck_assert_int_eq(checks, N_DIR_CHECKS);
    ck_assert_int_ge(pass, MIN_DIR_PASS);
    ck_assert_msg(ape_all / nall <= MAX_MAPE, "MAPE %.3f", ape_all / nall);
}
END_TEST

/* ------------------------------------------------- outputs, knobs, speed */

START_TEST(outputs_in_range)
{
    space_def s;
    space_def_full(&s);
    uint64_t size = space_size(&s);
    char names[64][WL_NAMELEN];
    gd_err e = {0, ""};
    int nw = wl_list_builtin(names, 64, &e);
    ck_assert_int_ge(nw, 8);
    for (int wi = 0; wi < nw; wi++) {
        wl_workload w;
        load(names[wi], &w);
        for (uint64_t i = 0; i < size; i += 53) {
            gpu_config c = space_at(&s, i);
            model_out o;
            if (model_eval(&w, &c, &o, &e) != 0)
                continue; /* a CTA that does not fit */
            ck_assert(isfinite(o.ipc) && o.ipc > 0);
            ck_assert(o.cycles > 0 && o.instructions > 0);
            ck_assert(o.occupancy > 0 && o.occupancy <= 1);
            ck_assert(o.l1d_miss_rate >= 0 && o.l1d_miss_rate <= 1);
            ck_assert(o.l2_miss_rate >= 0 && o.l2_miss_rate <= 1);
            ck_assert(o.dram_stall_cycles >= 0 && o.l2_bw_gbps >= 0);
            ck_assert(o.dram_bw_gbps >= 0 && isfinite(o.dram_bw_gbps));
            ck_assert(o.power_w > 0 && o.area_mm2 > 0 && o.energy_j > 0);
            ck_assert(fabs(o.time_s - o.cycles / 700e6) < 1e-12);
            ck_assert(fabs(o.energy_j - o.power_w * o.time_s)
                      <= 1e-9 * o.energy_j);
        }
    }
}
END_TEST

START_TEST(area_and_power_anchors)
{
    /* GF100 anchor: 16 SMs, 6 channels, 768 KB L2 -> 529 mm². */
    gpu_config c = space_baseline();
    c.n_clusters = 16;
    ck_assert_msg(fabs(model_area_mm2(&c) - 529.0) < 0.5, "%f",
                  model_area_mm2(&c));
    c = space_baseline();
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        if (k == KNOB_SCHEDULER || k == KNOB_NUM_SCHED_PER_CORE)
            continue;
        const space_knob_def *d = space_knob_get(k);
        gpu_config lo = c, hi = c;
        space_set(&lo, k, d->levels[0]);
        space_set(&hi, k, d->levels[d->nlevels - 1]);
        ck_assert_msg(model_area_mm2(&hi) > model_area_mm2(&lo), "knob %s",
                      d->name);
    }
    /* GTX480 baseline below the 250 W board TDP for every kernel. */
    for (size_t i = 0; i < N_REF; i++) {
        wl_workload w;
        load(ref_kernels[i], &w);
        model_out o;
        o = eval_out(&w, &c);
        ck_assert_msg(o.power_w > 50 && o.power_w < 250, "%s %f", w.name,
                      o.power_w);
    }
}
END_TEST

START_TEST(responds_to_every_knob)
{
    gpu_config b = space_baseline();
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const space_knob_def *d = space_knob_get(k);
        int moved = 0;
        for (size_t i = 0; i < N_REF && !moved; i++) {
            wl_workload w;
            load(ref_kernels[i], &w);
            double base = eval_ipc(&w, &b);
            for (int l = 0; l < d->nlevels && !moved; l++) {
                gpu_config c = b;
                space_set(&c, k, d->levels[l]);
                model_out o;
                gd_err e = {0, ""};
                if (model_eval(&w, &c, &o, &e) == 0
                    && fabs(o.ipc / base - 1) > 1e-3)
                    moved = 1;
            }
        }
        ck_assert_msg(moved, "no reference kernel responds to %s", d->name);
    }
}
END_TEST

START_TEST(multi_kernel_sums)
{
    wl_workload w, one;
    load("dct8x8_jpeg", &w);
    ck_assert_int_eq(w.nkernels, 2);
    gpu_config c = space_baseline();
    model_out o, o1, o2;
    o = eval_out(&w, &c);
    one = w;
    one.nkernels = 1;
    o1 = eval_out(&one, &c);
    one.k[0] = w.k[1];
    o2 = eval_out(&one, &c);
    ck_assert(fabs(o.cycles - o1.cycles - o2.cycles) < 1e-6 * o.cycles);
    /* 18710528 thread instructions in the fixture log. */
    ck_assert(fabs(o.instructions - 18710528.0) < 1.0);
    printf("dct8x8_jpeg: model IPC %.1f (fixture log 315.2), at "
           "n_clusters=30 %.1f (measured 456.58)\n", o.ipc,
           (c.n_clusters = 30, eval_ipc(&w, &c)));
}
END_TEST

/* The v2 mechanisms, each in the direction its physics says. */
START_TEST(physics_mechanisms)
{
    gpu_config c = space_baseline();
    wl_workload w;
    load("reduction", &w);
    double base = eval_ipc(&w, &c);
    /* Barriers cost time (release + skew of the CTA's warps). */
    w.k[0].insn_sync += 4;
    w.k[0].warp_insns += 4;
    ck_assert(eval_ipc(&w, &c) < base);
    /* Fill and drain are paid once per launch: twice the CTAs in the
     * same number of rounds take less than twice the time. */
    load("sfu", &w);
    model_out o1, o2;
    o1 = eval_out(&w, &c);
    w.k[0].grid_ctas *= 2;
    o2 = eval_out(&w, &c);
    ck_assert_msg(o2.cycles < 2 * o1.cycles && o2.cycles > o1.cycles,
                  "%g %g", o1.cycles, o2.cycles);
    /* A worse address pattern (lower achieved bandwidth) slows a
     * bandwidth-bound kernel. */
    load("vecadd", &w);
    base = eval_ipc(&w, &c);
    w.k[0].mem_eff = 0.5;
    ck_assert(eval_ipc(&w, &c) < 0.8 * base);
    /* A reuse-heavy kernel loses L1 hits when its working set outgrows
     * a smaller L1. */
    load("sgemm", &w);
    model_out big, small;
    big = eval_out(&w, &c);
    c.l1_sets = 16;
    small = eval_out(&w, &c);
    ck_assert(small.l1d_miss_rate > big.l1d_miss_rate);
    ck_assert(small.ipc < big.ipc);
}
END_TEST

/* analytic-2.2: the replies of a memory burst queue at the SM's cluster
 * port (one packet per cycle, shared by the cluster's cores) as well as at
 * the L2 slices. GPGPU-Sim: vecadd 293.5 IPC at 30x1 vs 288.6 at 15x2,
 * 425.4 at 15x1 vs 305.5 at 8x4 with 12 channels; transpose 176.2 vs
 * 144.9. */
START_TEST(cluster_port_sharing)
{
    static const char *const mem_bound[] = {"vecadd", "transpose",
                                            "reduction"};
    for (size_t i = 0; i < 3; i++) {
        wl_workload w;
        load(mem_bound[i], &w);
        gpu_config flat = space_baseline(), shared = flat;
        flat.n_clusters = 30;
        shared.cores_per_cluster = 2;
        double a = eval_ipc(&w, &flat), b = eval_ipc(&w, &shared);
        ck_assert_msg(a > b, "%s: 30x1 %g <= 15x2 %g", w.name, a, b);
    }
    wl_workload w;
    load("vecadd", &w);
    gpu_config wide = space_baseline(), narrow = wide;
    wide.n_mem = narrow.n_mem = 12;
    narrow.n_clusters = 8;
    narrow.cores_per_cluster = 4;
    double a = eval_ipc(&w, &wide), b = eval_ipc(&w, &narrow);
    ck_assert_msg(b < a, "vecadd n_mem 12: 8x4 %g >= 15x1 %g", b, a);
    /* A kernel without global memory traffic does not see the port. */
    load("sfu", &w);
    gpu_config f30 = space_baseline(), f15x2 = f30;
    f30.n_clusters = 30;
    f15x2.cores_per_cluster = 2;
    ck_assert(fabs(eval_ipc(&w, &f30) / eval_ipc(&w, &f15x2) - 1) < 0.01);
}
END_TEST

/* Cycles of w with its first kernel's grid set to g CTAs. */
static double cycles_at_grid(wl_workload *w, const gpu_config *c, int g)
{
    w->k[0].grid_ctas = g;
    return eval_out(w, c).cycles;
}

/* analytic-2.3: when one CTA's latency exceeds the SM's time to issue a
 * full residency, co-resident CTAs finish together and the next ones start
 * together, so a partial last wave costs nearly a whole wave (reduction:
 * cycles = 3136 + 1310·waves in GPGPU-Sim). A throughput-bound kernel's
 * CTAs finish staggered: one more CTA per SM costs about its share of a
 * wave (vecadd, sgemm: cycles linear in CTAs per SM). Baseline: 15 SMs,
 * reduction and vecadd 6 CTAs per SM. Measured 0.58 (analytic-2.2: 0.16;
 * the rest of a whole wave is the throughput term, which stays fluid) and
 * vecadd 0.17. */
START_TEST(latency_bound_waves_quantise)
{
    gpu_config c = space_baseline();
    int S = c.n_clusters * c.cores_per_cluster, r = 6;
    static const char *const names[] = {"reduction", "vecadd"};
    double share[2];
    for (int i = 0; i < 2; i++) {
        wl_workload w;
        load(names[i], &w);
        double two = cycles_at_grid(&w, &c, 2 * r * S);
        double partial = cycles_at_grid(&w, &c, 2 * r * S + S);
        double three = cycles_at_grid(&w, &c, 3 * r * S);
        ck_assert(two < partial && partial <= three);
        share[i] = (partial - two) / (three - two);
    }
    ck_assert_msg(share[0] > 0.45, "reduction: a partial wave costs %.2f "
                  "of a full one", share[0]);
    ck_assert_msg(share[1] < 0.3, "vecadd: one CTA per SM costs %.2f of a "
                  "wave", share[1]);
}
END_TEST

/* analytic-2.4: copied-in input survives in L2 while the CTAs of the first
 * wave read it, so only the output written after them competes with it.
 * GPGPU-Sim's transpose at 60 SMs with a 256-KB L2 (input 256 KB, output
 * 256 KB, every CTA resident at once) misses L2 almost only on its first
 * stores (0.681 of sectors; 0.667 with every read hitting); at 15 SMs
 * with 384 KB it misses 0.727. analytic-2.22: an input larger than L2
 * gets the same window (until 2.21 the whole footprint competed there, and
 * this test pinned vecadd at 60 SMs to its read_share-0 value). The first
 * wave's reads come before any write whatever the input's size, and
 * GPGPU-Sim shows it: vecadd (1 MB of a and b in 768 KB) misses L2 0.874
 * at 15 SMs and 0.761 at 60 (results.csv l2_miss_rate: 360 of the 512
 * CTAs read in the first wave there, 90 at 15 SMs); the old rule gave
 * the same miss rate at both. */
static double l2_miss_at(const wl_workload *w, int clusters, int n_mem,
                         int l2_sets)
{
    gpu_config c = space_baseline();
    c.n_clusters = clusters;
    c.n_mem = n_mem;
    c.l2_sets = l2_sets;
    return eval_out(w, &c).l2_miss_rate;
}

START_TEST(preloaded_input_read_before_writes)
{
    wl_workload w;
    load("transpose", &w);
    double all_resident = l2_miss_at(&w, 60, 4, 32);
    double third_resident = l2_miss_at(&w, 15, 6, 32);
    ck_assert_msg(all_resident < 0.69, "transpose 60 SMs, 256 KB: L2 miss "
                  "%.3f (GPGPU-Sim 0.681)", all_resident);
    ck_assert_msg(third_resident > all_resident + 0.02
                  && third_resident < 0.76, "transpose 15 SMs, 384 KB: L2 "
                  "miss %.3f (GPGPU-Sim 0.727)", third_resident);
    w.k[0].read_share = 0;     /* unknown: the whole footprint competes */
    ck_assert(l2_miss_at(&w, 60, 4, 32) > all_resident + 0.1);
    wl_workload v;
    load("vecadd", &v);
    double at15 = l2_miss_at(&v, 15, 6, 64), at60 = l2_miss_at(&v, 60, 6, 64);
    ck_assert_msg(at60 < at15 - 0.05 && fabs(at60 - 0.761) < 0.06,
                  "vecadd L2 miss %.3f at 15 SMs, %.3f at 60 (GPGPU-Sim "
                  "0.874, 0.761)", at15, at60);
    v.k[0].read_share = 0;
    ck_assert(l2_miss_at(&v, 60, 6, 64) > at60 + 0.05);
}
END_TEST

/* analytic-2.5: with one VC per crossbar input (config_fermi_islip.icnt
 * num_vcs 1, iSLIP alloc_iters 1) only the head packets of the cluster
 * inputs compete for the slices, so few clusters cannot keep many slices
 * busy. GPGPU-Sim's transpose at 8 clusters x 4 cores with 12 channels
 * (reference rand03) runs 10922 cycles, where analytic-2.4's cluster port
 * and slice bounds gave 8268; the same 32 SMs as 32 clusters of one core
 * feed four times as many inputs. */
START_TEST(crossbar_head_of_line)
{
    wl_workload w;
    load("transpose", &w);
    gpu_config c = space_baseline();
    c.n_clusters = 8;
    c.cores_per_cluster = 4;
    c.n_mem = 12;
    c.shmem_size = 16384;
    c.num_sched_per_core = 1;
    model_out few, many;
    few = eval_out(&w, &c);
    ck_assert_msg(few.cycles > 0.85 * 10922 && few.cycles < 1.15 * 10922,
                  "transpose 8x4, 12 channels: %.0f cycles (GPGPU-Sim "
                  "10922)", few.cycles);
    c.n_clusters = 32;
    c.cores_per_cluster = 1;
    many = eval_out(&w, &c);
    ck_assert(many.cycles < 0.85 * few.cycles);
}
END_TEST

/* analytic-2.6: transpose's warp of 16 stores 1 KB apart (4 chunks of
 * 256 B) reaches, under dramid@8 with 2 sub-partitions per channel, chunk
 * mod 2·n_mem = {0, 4, 8, ...}: 2 / 3 / 4 / 6 slices at n_mem 4 / 6 / 8 / 12
 * (by hand: 8/gcd(4,8), 12/gcd(4,12), 16/4, 24/4). Two groups of CTAs
 * (blockIdx.y / 4 differs) shift the set by one chunk and double it.
 * Unit-stride kernels spread uniformly, and camping makes the 4-channel
 * row slower than a uniform spread would. */
START_TEST(partition_camping_spread)
{
    static const int n_mem[4] = {4, 6, 8, 12}, one[4] = {2, 3, 4, 6};
    wl_workload w;
    load("transpose", &w);
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq_tol(model_store_slices(&w.k[0], n_mem[i], 1),
                                one[i], 1e-12);
        ck_assert_double_eq_tol(model_store_slices(&w.k[0], n_mem[i], 65),
                                2 * one[i], 1e-12);
        ck_assert_double_eq_tol(model_store_slices(&w.k[0], n_mem[i], 1e6),
                                2 * n_mem[i], 1e-12);
    }
    ck_assert_double_eq_tol(model_store_slices(&w.k[0], 4, 33), 3, 1e-12);
    static const char *unit[] = {"vecadd", "sgemm", "reduction", "sfu",
                                 "dct8x8"};
    for (size_t u = 0; u < sizeof unit / sizeof unit[0]; u++) {
        wl_workload v;
        load(unit[u], &v);
        for (int i = 0; i < 4; i++)
            ck_assert_double_eq_tol(model_store_slices(&v.k[0], n_mem[i], 1),
                                    2 * n_mem[i], 1e-12);
    }
    gpu_config c = space_baseline();
    c.n_mem = 4;
    model_out camped, uniform;
    camped = eval_out(&w, &c);
    w.k[0].st_stride = 0;
    uniform = eval_out(&w, &c);
    ck_assert_msg(camped.cycles > 1.03 * uniform.cycles, "%.0f vs %.0f", camped.cycles, uniform.cycles);
}
END_TEST

/* analytic-2.7: a CTA that meets a barrier after its loads waits for its
 * last reply, so it sees the whole drain of the L2 slices and of its
 * cluster's ejection port, not half. Four cores behind one port lose more
 * against the same 60 SMs with one core per cluster (reduction, barrier
 * after the loads: GPGPU-Sim 15x4 is 9.2% slower than 60x1) than the same
 * kernel without barriers would. */
START_TEST(barrier_waits_whole_drain)
{
    wl_workload w;
    load("reduction", &w);
    gpu_config c = space_baseline();
    model_out wide, shared;
    double loss[2];
    for (int nosync = 0; nosync < 2; nosync++) {
        if (nosync)
            w.k[0].insn_sync = 0;
        c.n_clusters = 60;
        c.cores_per_cluster = 1;
        wide = eval_out(&w, &c);
        c.n_clusters = 15;
        c.cores_per_cluster = 4;
        shared = eval_out(&w, &c);
        loss[nosync] = 1 - shared.ipc / wide.ipc;
    }
    printf("reduction 15x4 vs 60x1: %.1f%% slower (no barrier: %.1f%%; "
           "GPGPU-Sim 9.2%%)\n", 100 * loss[0], 100 * loss[1]);
    ck_assert(loss[0] > loss[1]);
    ck_assert(loss[0] > 0.05 && loss[0] < 0.30);
}
END_TEST

/* analytic-2.8: a launch is a pipeline, T = L + (c - 1)·t_cta — the last
 * CTA's own issue lies inside the latency the fill and drain term pays.
 * dct8x8 at 30 SMs (5 CTAs per SM) is as fast with one scheduler as with
 * two in GPGPU-Sim (5516 vs 5519 cycles); analytic-2.7 charged one
 * scheduler 17.7% (uncalibrated), double counting the fifth CTA's issue.
 * With one CTA per SM nothing is issued before the last CTA, so the
 * launch is its fill and drain whatever the issue rate. */
START_TEST(last_cta_issue_inside_drain)
{
    wl_workload w;
    load("dct8x8", &w);
    gpu_config c = space_baseline();
    model_out two, one;
    c.n_clusters = 30;
    two = eval_out(&w, &c);
    c.num_sched_per_core = 1;
    one = eval_out(&w, &c);
    printf("dct8x8 30x1, one vs two schedulers: %.1f%% more cycles "
           "(GPGPU-Sim -0.1%%; analytic-2.7 17.7%%)\n",
           100 * (one.cycles / two.cycles - 1));
    /* analytic-3.0: the code lines' queue at their slice is the same at
     * both scheduler counts; one scheduler's longer per-line work covers
     * more of it, so one is now within 2% of two either way (-1.0%;
     * analytic-2.29 +4.5%) */
    ck_assert(fabs(one.cycles / two.cycles - 1) < 0.02);
    /* One CTA per SM: 144 CTAs on 144 SMs (36 clusters of 4). */
    c.n_clusters = 36;
    c.cores_per_cluster = 4;
    c.num_sched_per_core = 2;
    two = eval_out(&w, &c);
    c.num_sched_per_core = 1;
    one = eval_out(&w, &c);
    ck_assert_msg(fabs(one.cycles / two.cycles - 1) < 0.02, "%.0f vs %.0f",
                  one.cycles, two.cycles);
}
END_TEST

/* analytic-2.10: the cold instruction cache. dct8x8 (6 code lines) at 60
 * SMs (one wave, 3 CTAs): with two schedulers the other 23 warps' issue
 * work in a line (23 x 92/6 / 2 = 176 cycles) does not cover a 277-cycle
 * fetch, so lines 1..5 cost 5 x 101 cycles; with one scheduler (353
 * cycles of issue) they are hidden. No code_lines, no cost. */
START_TEST(cold_icache_hidden_by_issue_work)
{
    wl_workload w;
    load("dct8x8", &w);
    ck_assert(w.k[0].code_lines == 6);
    gpu_config c = space_baseline();
    c.n_clusters = 60;
    model_out o, o0;
    double d1 = 0;
    for (int s = 1; s <= 2; s++) {
        c.num_sched_per_core = s;
        w.k[0].code_lines = 6;
        o = eval_out(&w, &c);
        w.k[0].code_lines = 0;
        o0 = eval_out(&w, &c);
        double d = o.cycles - o0.cycles;
        printf("dct8x8 60x1, %d scheduler(s): cold il1 exposes %.0f cycles\n",
               s, d);
        /* analytic-3.0: each code line also waits in the queue of the
         * 60 SMs' requests at its one slice (0.5 x 60 x 4 = 120 cycles),
         * line 0 included, so nothing hides all of it: at least line 0's
         * queue, at most every line's whole fetch, 6 x (277 + 120); one
         * scheduler's longer per-line work covers more (the one-SM toy
         * of docs/model-history.md, "Tried after analytic-2.23", without
         * the slice queue: 465 at one scheduler, 469 at two). */
        ck_assert_msg(d >= 120 && d <= 6 * (277 + 120), "%.1f", d);
        if (s == 2)
            ck_assert_msg(d > d1, "%.1f <= %.1f", d, d1);
        d1 = d;
    }
}
END_TEST

/* analytic-2.15: the cold constant cache. dct8x8 fetches 5 constant
 * lines per SM (the parameter line and Cm's four); with 2 MSHR entries
 * lines 1..4 take 2 rounds of an L2 miss (277 cycles) plus half the
 * drain of every active SM's 2 lines x 2 sectors at the one slice that
 * holds them: 2 x (277 + 2 x 15) = 614 cycles at 15 SMs, 2 x (277 + 2 x
 * 60) = 794 at 60. The parameter line alone (every other kernel) costs
 * nothing beyond the fitted fill. */
START_TEST(cold_constant_cache_rounds)
{
    wl_workload w;
    load("dct8x8", &w);
    ck_assert(w.k[0].const_lines == 5);
    static const int clusters[2] = {15, 60};
    static const double want[2] = {614, 794};
    gpu_config c = space_baseline();
    model_out o, o1;
    for (int i = 0; i < 2; i++) {
        c.n_clusters = clusters[i];
        w.k[0].const_lines = 5;
        o = eval_out(&w, &c);
        w.k[0].const_lines = 1;
        o1 = eval_out(&w, &c);
        ck_assert_msg(fabs(o.cycles - o1.cycles - want[i]) < 1e-6,
                      "%d clusters: %.3f", clusters[i], o.cycles - o1.cycles);
    }
    wl_workload v;
    load("vecadd", &v);
    ck_assert(v.k[0].const_lines == 1);
    c = space_baseline();
    o = eval_out(&v, &c);
    v.k[0].const_lines = 0;
    o1 = eval_out(&v, &c);
    ck_assert(o.cycles == o1.cycles);
}
END_TEST

/* analytic-2.9: a saturated SFU serves every CTA's operations to the end;
 * only what it serves during the last warps' staggered chains lies inside
 * the drain. sfu baseline log: 21701 cycles, 20480 of them SFU work on the
 * busiest SM (5 CTAs x 8 warps x 64 SFU instructions x 8 cycles): the
 * launch costs the SFU work plus a tail, not the SFU work less a CTA
 * (analytic-2.8: 140.8 IPC vs 132.9). The tail is a fixed cost, so its
 * share grows as CTAs per SM fall: 60 SMs (2 CTAs) is 18.5% fast in
 * analytic-2.8, GPGPU-Sim 296.7 IPC. */
START_TEST(saturated_sfu_serves_to_the_end)
{
    wl_workload w;
    load("sfu", &w);
    gpu_config c = space_baseline();
    model_out o;
    o = eval_out(&w, &c);
    double sfu_work = 5 * 8 * 64 * 8.0;
    printf("sfu baseline: %.0f cycles, SFU work %.0f (GPGPU-Sim 21701)\n",
           o.cycles, sfu_work);
    ck_assert_msg(o.cycles > sfu_work + 500 && o.cycles < sfu_work + 2000,
                  "%.0f cycles", o.cycles);
    ck_assert_msg(fabs(o.ipc / 132.9 - 1) < 0.03, "IPC %.1f", o.ipc);
    c.n_clusters = 60;
    o = eval_out(&w, &c);
    ck_assert_msg(fabs(o.ipc / 296.7 - 1) < 0.06, "60 SMs: IPC %.1f", o.ipc);
}
END_TEST

/* analytic-2.11: the reply crossbar. vecadd with every byte in L2
 * (l2_sets 128: 1.5 MB for a 1.5-MB footprint) is bound by the replies,
 * 12 one-flit packets per warp (8 read sectors, 4 store acks; the log's
 * traffic_breakdown_memtocore), which the 2·n_mem slices push into a
 * one-VC input-queued switch towards the clusters: at most
 * n_in + d − √(n_in² + d²) per cycle. GPGPU-Sim: 331.3 IPC (analytic-2.10
 * predicted +22%). At 8 clusters and 12 channels the reply bound is
 * 49152 / (8 + 24 − √640) = 7336 cycles and no other term is close. */
START_TEST(reply_crossbar_bounds_l2_hits)
{
    wl_workload w;
    load("vecadd", &w);
    gpu_config c = space_baseline();
    c.l2_sets = 128;
    model_out o;
    o = eval_out(&w, &c);
    printf("vecadd l2_sets 128: IPC %.1f (GPGPU-Sim 331.3)\n", o.ipc);
    ck_assert_msg(fabs(o.ipc / 331.3 - 1) < 0.12, "IPC %.1f", o.ipc);
    c.n_clusters = 8;
    c.n_mem = 12;
    o = eval_out(&w, &c);
    double packets = 512 * 8 * 12.0;
    double bound = packets / (8 + 24 - sqrt(8 * 8 + 24 * 24));
    ck_assert_msg(o.cycles >= bound, "%.0f cycles < reply bound %.0f",
                  o.cycles, bound);
}
END_TEST

/* analytic-2.11: whether an SM runs its CTAs in whole waves (L > nr·busy
 * time) is decided by the work that keeps it busy, not by the
 * misses-in-flight term. GPGPU-Sim runs dct8x8 in 7889 cycles at l1_sets
 * 16, 32, 64 and 128 (32 lines in flight, fewer than the 48 fill slots of
 * 16 sets); analytic-2.10 let the 16-set misses term tip the switch and
 * jumped by 5.2% at ilp 1.62 (the from-log fit sits near it). */
START_TEST(l1_sets_cannot_flip_waves)
{
    wl_workload w;
    load("dct8x8", &w);
    for (double ilp = 1.0; ilp <= 4.0; ilp += 0.005) {
        w.k[0].ilp = ilp;
        gpu_config c = space_baseline();
        model_out a, b;
        a = eval_out(&w, &c);
        c.l1_sets = 16;
        b = eval_out(&w, &c);
        ck_assert_msg(fabs(b.cycles / a.cycles - 1) < 0.01,
                      "ilp %.3f: %.0f cycles at 16 sets, %.0f at 32", ilp,
                      b.cycles, a.cycles);
    }
}
END_TEST

/* analytic-2.12: with the stores placed (transpose's stride), the L2
 * slices they camp on take one tag cycle per write, as GPGPU-Sim's slice
 * does, not the 3-cycle uniform estimate. rand04 (60x1, 4 channels,
 * 256-KB L2, LRR, 4 schedulers): GPGPU-Sim 10104 cycles; analytic-2.11
 * 15213 (the uniform term 2048·56/8 = 14336 bound it). The descriptor
 * without a stride keeps the estimate. */
START_TEST(camped_slices_one_cycle_per_write)
{
    wl_workload w;
    load("transpose", &w);
    gpu_config c = space_baseline();
    c.n_clusters = 60;
    c.n_mem = 4;
    c.scheduler = SCHED_LRR;
    c.num_sched_per_core = 4;
    c.l2_sets = 32;
    model_out placed, uniform;
    placed = eval_out(&w, &c);
    printf("transpose rand04: %.0f cycles (GPGPU-Sim 10104)\n",
           placed.cycles);
    ck_assert_msg(fabs(placed.cycles / 10104 - 1) < 0.2, "%.0f cycles",
                  placed.cycles);
    w.k[0].st_stride = 0;
    uniform = eval_out(&w, &c);
    ck_assert(uniform.cycles > 2048 * 56 / 8.0);
}
END_TEST

/* analytic-2.13: the warp scheduler changes how an SM's own units overlap,
 * not how SM work overlaps a saturated network. GPGPU-Sim runs the
 * memory-bound kernels under LRR and two-level within 0.5% / 1.1% (vecadd)
 * and +0.3% / +2.9% (transpose) of GTO; analytic-2.12 charged LRR −6.7% and
 * −5.6%. A compute-bound kernel keeps its scheduler effect (sgemm LRR
 * −9.8% in GPGPU-Sim). */
START_TEST(network_overlap_ignores_warp_order)
{
    static const char *mem_bound[] = {"vecadd", "transpose"};
    static const int scheds[] = {SCHED_LRR, SCHED_TWO_LEVEL};
    /* GPGPU-Sim's IPC change against GTO (transpose's two-level gain is
     * the wider camping window of analytic-2.17). */
    static const double real[2][2] = {{-0.005, -0.011}, {0.003, 0.029}};
    for (size_t i = 0; i < 2; i++) {
        wl_workload w;
        load(mem_bound[i], &w);
        gpu_config c = space_baseline();
        model_out gto, other;
        gto = eval_out(&w, &c);
        for (size_t j = 0; j < 2; j++) {
            c.scheduler = scheds[j];
            other = eval_out(&w, &c);
            double r = other.ipc / gto.ipc - 1;
            printf("%s scheduler %d vs GTO: %+.1f%%\n", mem_bound[i],
                   scheds[j], 100 * r);
            ck_assert_msg(fabs(r - real[i][j]) < 0.03, "%s: %+.1f%%",
                          mem_bound[i], 100 * r);
        }
    }
    wl_workload w;
    load("sgemm", &w);
    gpu_config c = space_baseline();
    model_out gto, lrr;
    gto = eval_out(&w, &c);
    c.scheduler = SCHED_LRR;
    lrr = eval_out(&w, &c);
    ck_assert(lrr.ipc < 0.97 * gto.ipc);
}
END_TEST

/* analytic-2.16: the camping window grows with the schedulers per core
 * (each scheduler owns warp_id % num_sched and falls through to a younger
 * CTA's warps sooner when it holds fewer of the oldest CTA's). GPGPU-Sim's
 * transpose: one scheduler 3.6% slower than two, four 2.8% faster;
 * analytic-2.15 gave +0.2% / 0.0%. A kernel whose stores are not camped
 * (vecadd) does not feel it: until analytic-2.26 its four-scheduler row
 * was exactly its two-scheduler one; since analytic-2.27 the front-end
 * terms move it (latency-bound: the lockstep's stagger loss, share u 0.3;
 * issue ports beside it), so the check is that it stays within half a
 * percent (GPGPU-Sim +0.4%), far from transpose's +3%. */
START_TEST(sched_count_widens_camping_window)
{
    wl_workload w;
    load("transpose", &w);
    gpu_config c = space_baseline();
    double two = eval_ipc(&w, &c);
    c.num_sched_per_core = 1;
    double one = eval_ipc(&w, &c);
    c.num_sched_per_core = 4;
    double four = eval_ipc(&w, &c);
    printf("transpose 1 / 4 schedulers vs 2: %+.1f%% / %+.1f%%\n",
           100 * (one / two - 1), 100 * (four / two - 1));
    ck_assert_msg(one < 0.98 * two && four > 1.02 * two,
                  "%.2f / %.2f / %.2f IPC", one, two, four);
    load("vecadd", &w);
    c = space_baseline();
    two = eval_ipc(&w, &c);
    c.num_sched_per_core = 4;
    double vec4 = eval_ipc(&w, &c);
    printf("vecadd 4 vs 2 schedulers: %+.2f%% (GPGPU-Sim +0.4%%)\n",
           100 * (vec4 / two - 1));
    ck_assert_msg(fabs(vec4 / two - 1) < 0.005, "%.3f vs %.3f", vec4, two);
}
END_TEST

/* analytic-2.17: two_level_active's pool (6 warps per scheduler, a warp
 * demoted at every global load) spans 1.5 CTAs' shares of transpose's
 * warps, so its stores camp on more slices than under GTO. GPGPU-Sim:
 * two-level +2.9% IPC over GTO; analytic-2.16 gave -0.4%. */
START_TEST(two_level_pool_widens_camping_window)
{
    wl_workload w;
    load("transpose", &w);
    gpu_config c = space_baseline();
    double gto = eval_ipc(&w, &c);
    c.scheduler = SCHED_TWO_LEVEL;
    double two = eval_ipc(&w, &c);
    printf("transpose two-level vs GTO: %+.1f%%\n", 100 * (two / gto - 1));
    ck_assert_msg(two > 1.015 * gto, "%.2f vs %.2f IPC", two, gto);
}
END_TEST

/* analytic-2.20: under two_level_active a warp holds one of its
 * scheduler's 6 slots for its short-stall chain I·dep/ilp (order_warps
 * demotes it on barriers and long-op operands), so the pool reads the
 * descriptor's ilp. With ilp from the critical path of the source
 * (reduction 1.3, transpose 2; both were 1) the two-level rows move from
 * -35 / -46 / -33% (reduction) and -17% (transpose rand02) to -19 / -30 /
 * -18% and -9% of GPGPU-Sim, uncalibrated. analytic-3.4's convoy at
 * one-core clusters takes transpose rand02 (15 x 1) from -9.6 to -12.8%
 * uncalibrated (tolerance 12 -> 14%); held out of the one-factor
 * calibration it goes from -17.8 to -12.6% (make bench). */
START_TEST(two_level_pool_reads_source_ilp)
{
    static const struct {
        const char *w; int clusters, cores, mem, shmem, sched, l1, l2;
        double real, tol;
    } rows[] = {
        {"reduction", 15, 1, 6, 49152, 2, 32, 64, 464.27, 0.22},  /* ofat */
        {"reduction", 15, 1, 12, 16384, 1, 32, 128, 311.01, 0.33}, /* rand02 */
        {"reduction", 15, 2, 4, 49152, 1, 16, 128, 457.90, 0.22}, /* rand05 */
        {"transpose", 15, 1, 12, 16384, 1, 32, 128, 191.27, 0.14},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        wl_workload w;
        load(rows[i].w, &w);
        gpu_config c = space_baseline();
        c.n_clusters = rows[i].clusters;
        c.cores_per_cluster = rows[i].cores;
        c.n_mem = rows[i].mem;
        c.shmem_size = rows[i].shmem;
        c.scheduler = SCHED_TWO_LEVEL;
        c.num_sched_per_core = rows[i].sched;
        c.l1_sets = rows[i].l1;
        c.l2_sets = rows[i].l2;
        double ipc = eval_ipc(&w, &c), err = ipc / rows[i].real - 1;
        printf("%s two-level (%dx%d, %d ch., %d sched.): %+.1f%%\n",
               rows[i].w, c.n_clusters, c.cores_per_cluster, c.n_mem,
               c.num_sched_per_core, 100 * err);
        ck_assert_msg(fabs(err) <= rows[i].tol, "%s: %.2f vs %.2f IPC",
                      rows[i].w, ipc, rows[i].real);
    }
}
END_TEST

/* analytic-2.19: the hot atomic slice is paced by its reply input (one VC,
 * two internal steps per packet): the other slices' replies that hold the
 * destination cluster's output VC cost it a step, so more clusters (more
 * outputs to spread them over) feed it faster, and its share of the input
 * loads falls with more channels. GPGPU-Sim histogram IPC at 8 / 15 / 30
 * clusters: 70.0 / 72.8 / 74.6; at n_mem 4 / 12: 72.9 / 73.4. */
START_TEST(hot_slice_paced_by_reply_input)
{
    wl_workload w;
    load("histogram", &w);
    double ipc[3];
    const int clusters[3] = {8, 15, 30};
    for (int i = 0; i < 3; i++) {
        gpu_config c = space_baseline();
        c.n_clusters = clusters[i];
        ipc[i] = eval_ipc(&w, &c);
    }
    printf("histogram 8 / 15 / 30 clusters: IPC %.2f / %.2f / %.2f "
           "(GPGPU-Sim 70.00 / 72.77 / 74.61)\n", ipc[0], ipc[1], ipc[2]);
    ck_assert_msg(ipc[0] < ipc[1] && ipc[1] < ipc[2], "%.2f %.2f %.2f",
                  ipc[0], ipc[1], ipc[2]);
    ck_assert_msg(ipc[2] / ipc[0] > 1.03, "30 vs 8 clusters only %+.1f%%",
                  100 * (ipc[2] / ipc[0] - 1));
    gpu_config c = space_baseline();
    c.n_mem = 4;
    double m4 = eval_ipc(&w, &c);
    c.n_mem = 12;
    double m12 = eval_ipc(&w, &c);
    ck_assert_msg(m12 > m4, "n_mem 12 %.2f <= n_mem 4 %.2f", m12, m4);
}
END_TEST

/* analytic-2.24: the hot atomic slice's reply deficit is not hidden by the
 * reply buffers (the launch ends when the last reply reaches its cluster;
 * histogram baseline: 14602 hot accesses, deficit 491 at 15 clusters, a
 * fill of ~960: ~16000 cycles, GPGPU-Sim 16661; 2.23 subtracted the 137
 * buffered replies: 15921), and the first wave's loads before its first
 * atomic precede the slice's busy time, so one wave on 30 SMs (15 x 2)
 * beats two on 15 (GPGPU-Sim 72.84 vs 72.77 IPC; 2.23: 76.07 vs 76.15). */
START_TEST(hot_slice_reply_deficit_and_first_wave_loads)
{
    wl_workload w;
    load("histogram", &w);
    model_out o;
    gpu_config c = space_baseline();
    o = eval_out(&w, &c);
    double base_ipc = o.ipc;
    printf("histogram baseline: %.0f cycles (GPGPU-Sim 16661)\n", o.cycles);
    ck_assert_msg(o.cycles > 15960, "%.0f cycles: reply deficit hidden",
                  o.cycles);
    c.cores_per_cluster = 2;
    o = eval_out(&w, &c);
    printf("histogram 15 x 2: IPC %.3f vs 15 x 1 %.3f (GPGPU-Sim 72.84 vs "
           "72.77)\n", o.ipc, base_ipc);
    /* analytic-3.0: 30 active SMs queue 60 more cycles than 15 for the
     * two code lines at their slice, about the first wave's gain: the two
     * stay within 0.5% of each other (GPGPU-Sim +0.1%; analytic-2.29
     * +0.01%) */
    ck_assert_msg(fabs(o.ipc / base_ipc - 1) < 0.005,
                  "15 x 2 %.3f vs 15 x 1 %.3f", o.ipc, base_ipc);
}
END_TEST

/* analytic-2.24: an atomic target that was not copied in (histogram's bins,
 * cudaMemset: 1 KB of its 65 KB footprint, read_share 0.985) is cold in L2;
 * the hot slice's first atomics miss, the MSHR merges four per sector and
 * the next reservation fail holds the slice for one DRAM round trip (log:
 * 8 misses per bin bank, 160 reservation fails on the hot one). With the
 * whole footprint copied in the launch is LAT_DRAM (130 cycles) shorter. */
START_TEST(cold_atomic_target_costs_one_dram_trip)
{
    wl_workload w;
    load("histogram", &w);
    model_out cold, warm;
    gpu_config c = space_baseline();
    cold = eval_out(&w, &c);
    w.k[0].read_share = 1.0;
    warm = eval_out(&w, &c);
    printf("histogram cold / preloaded bins: %.0f / %.0f cycles\n",
           cold.cycles, warm.cycles);
    ck_assert_msg(cold.cycles - warm.cycles > 100
                  && cold.cycles - warm.cycles < 160,
                  "cold target costs %.0f cycles", cold.cycles - warm.cycles);
}
END_TEST

/* analytic-2.25: under two_level_active the warp whose load has returned
 * waits for the pending FIFO's first round before it issues the atomic,
 * so the hot slice starts later at one scheduler (GPGPU-Sim rand02,
 * 15x1, n_mem 12: 70.49 IPC against 73.43 under GTO at two schedulers)
 * and not at two (72.82 against 72.77). Without the term two-level at one
 * scheduler was level with GTO (76.34 vs 76.32 at n_mem 12). */
START_TEST(two_level_round_delays_atomics)
{
    wl_workload w;
    load("histogram", &w);
    gpu_config c = space_baseline();
    c.n_mem = 12;
    c.num_sched_per_core = 1;
    c.scheduler = SCHED_GTO;
    double gto1 = eval_ipc(&w, &c);
    c.scheduler = SCHED_TWO_LEVEL;
    double tl1 = eval_ipc(&w, &c);
    c.num_sched_per_core = 2;
    double tl2 = eval_ipc(&w, &c);
    c.scheduler = SCHED_GTO;
    double gto2 = eval_ipc(&w, &c);
    printf("histogram n_mem 12, GTO / two-level at 1 scheduler: %.2f / %.2f, "
           "at 2: %.2f / %.2f (GPGPU-Sim two-level 1 scheduler 70.49)\n",
           gto1, tl1, gto2, tl2);
    ck_assert_msg(tl1 < 0.995 * gto1, "two-level 1 sched %.2f vs GTO %.2f",
                  tl1, gto1);
    ck_assert_msg(fabs(tl2 / gto2 - 1) < 0.002, "two-level 2 sched %.2f vs "
                  "GTO %.2f", tl2, gto2);
}
END_TEST

/* analytic-2.26: under LRR (order_lrr: every cycle starts after the last
 * issued warp) co-resident CTAs finish together, so the rounds after the
 * first are whole waves even where the SM is throughput-bound. dct8x8 at
 * the baseline, 10 CTAs on the busiest SM, 4 resident: GPGPU-Sim LRR
 * 377.97 IPC against GTO 429.90 (0.879). Before, LRR's third wave of 2
 * CTAs cost half a round: 424.48 against 450.92 (0.941). */
START_TEST(lrr_rounds_are_whole_waves)
{
    wl_workload w;
    load("dct8x8", &w);
    gpu_config c = space_baseline();
    double gto = eval_ipc(&w, &c);
    c.scheduler = SCHED_LRR;
    double lrr = eval_ipc(&w, &c);
    printf("dct8x8 baseline GTO / LRR: %.2f / %.2f (%.3f; GPGPU-Sim 0.879)\n",
           gto, lrr, lrr / gto);
    ck_assert_msg(lrr < 0.92 * gto, "LRR %.2f vs GTO %.2f", lrr, gto);
}
END_TEST

/* analytic-2.21: an L2 write-back is one request of the dirty line's bytes,
 * served in 64-B DRAM column commands (dram_atom_size = BL 8 x busW 4 x 2
 * chips), so a line of 4 dirty sectors costs 2 commands where 4 sector
 * reads cost 4 (vecadd log: n_wr_bk 3500 commands for 1750 lines). With
 * per-sector write-backs (analytic-2.20) vecadd's baseline took 13005
 * cycles (GPGPU-Sim 9815, +32.5%); at l2_sets 32 (fp 1.5 MB, 384 KB of
 * L2) 16028 (GPGPU-Sim 10928, +46.7%). */
START_TEST(writeback_lines_share_dram_commands)
{
    wl_workload w;
    load("vecadd", &w);
    model_out o;
    gpu_config c = space_baseline();
    o = eval_out(&w, &c);
    printf("vecadd baseline: %.0f cycles (GPGPU-Sim 9815)\n", o.cycles);
    ck_assert_msg(o.cycles < 1.27 * 9815, "%.0f cycles", o.cycles);
    c.l2_sets = 32;
    o = eval_out(&w, &c);
    printf("vecadd l2_sets 32: %.0f cycles (GPGPU-Sim 10928)\n", o.cycles);
    ck_assert_msg(o.cycles < 1.42 * 10928, "%.0f cycles", o.cycles);
}
END_TEST

/* analytic-2.22: the misses-in-flight term (Little's law on the request
 * budget) leaves out the burst's DRAM queue, which the launch's DRAM time
 * already counts; with it in both, vecadd's baseline took 12240 cycles
 * (analytic-2.21, GPGPU-Sim 9815, +24.7%) and n_mem 4 (GPGPU-Sim 171.0
 * IPC) 142.5 IPC. Rows whose data fit L2 keep their latency-bound time:
 * n_mem 12 within 10% of 425.4. */
START_TEST(dram_queue_counted_once)
{
    wl_workload w;
    load("vecadd", &w);
    gpu_config c = space_baseline();
    double base = eval_ipc(&w, &c);
    printf("vecadd baseline %.1f IPC (GPGPU-Sim 280.4)\n", base);
    ck_assert_msg(fabs(base / 280.44 - 1) < 0.05, "%.1f IPC", base);
    c.n_mem = 4;
    double m4 = eval_ipc(&w, &c);
    ck_assert_msg(fabs(m4 / 170.98 - 1) < 0.05, "n_mem 4: %.1f IPC", m4);
    c.n_mem = 12;
    double m12 = eval_ipc(&w, &c);
    ck_assert_msg(fabs(m12 / 425.36 - 1) < 0.10, "n_mem 12: %.1f IPC", m12);
}
END_TEST

/* analytic-2.23: above two schedulers GTO loses CTA stagger (each
 * scheduler holds fewer of the oldest CTA's warps), and where the front
 * end (one warp fetch per cycle) is busy more than half the time the extra
 * issue slots cannot recover it. reduction's front end is the busiest
 * (34.25 fetches per warp, 1.71 instructions per fetch; u 0.71 of the
 * launch): GPGPU-Sim -3.6% IPC at four schedulers, analytic-2.22 0.0%.
 * With a descriptor that does not name its fetches (old descriptors) the
 * front end's best case of 2 instructions per fetch is assumed: less busy,
 * less loss. analytic-2.27: reduction is latency-bound, so it loses the
 * share u (not 2u − 1) and -3.6% moves closer (-1.2% -> -2.2%); at the
 * front end's best case the issue stage's own ports (2 SP + 1 MEM, from
 * the slack the front end then has) offset that loss, so an unknown fetch
 * count no longer lies strictly below two schedulers: it must stay
 * within half a percent of it, above the known count. */
START_TEST(busy_front_end_loses_stagger_at_four_schedulers)
{
    wl_workload w;
    load("reduction", &w);
    ck_assert(w.k[0].fetches == 34.25);
    gpu_config c = space_baseline();
    double two = eval_ipc(&w, &c);
    c.num_sched_per_core = 4;
    double four = eval_ipc(&w, &c);
    w.k[0].fetches = 0;
    double four_unknown = eval_ipc(&w, &c);
    printf("reduction 4 vs 2 schedulers: %+.2f%% (fetches unknown %+.2f%%; "
           "GPGPU-Sim -3.6%%)\n", 100 * (four / two - 1),
           100 * (four_unknown / two - 1));
    ck_assert_msg(four < 0.995 * two, "%.2f vs %.2f IPC", four, two);
    ck_assert_msg(four < four_unknown && fabs(four_unknown / two - 1) < 0.005,
                  "%.2f %.2f", four_unknown, two);
    /* LRR has no stagger to lose: until analytic-2.26 its four-scheduler
     * row was exactly its two-scheduler one; since analytic-2.27 the issue
     * stage's own ports may only raise it (fetch count unknown here: the
     * front end's best case, with slack). */
    c.scheduler = SCHED_LRR;
    double lrr4 = eval_ipc(&w, &c);
    c.num_sched_per_core = 2;
    double lrr2 = eval_ipc(&w, &c);
    printf("reduction LRR 4 vs 2 schedulers: %+.2f%%\n",
           100 * (lrr4 / lrr2 - 1));
    ck_assert_msg(lrr4 >= lrr2 && lrr4 < 1.05 * lrr2, "%.2f %.2f", lrr4,
                  lrr2);
}
END_TEST

/* analytic-2.27: above two schedulers the issue stage's own ports (2 SP +
 * 1 MEM + 1 SFU per cycle, -gpgpu_pipeline_widths) raise issue where the
 * front end has slack (dct8x8, GPGPU-Sim +1.5% at four schedulers;
 * analytic-2.26 0.0%), a thin last wave starts late when the first wave's
 * completions lose their stagger (sgemm: 5 CTAs, 4 resident; GPGPU-Sim
 * -0.9%; the ports alone give +0.3%), and a latency-bound SM loses the
 * stagger share u (reduction, GPGPU-Sim -3.6%; analytic-2.26 -1.2%). No
 * row at one or two schedulers moves. */
START_TEST(four_schedulers_ports_and_thin_wave)
{
    static const struct { const char *w; double lo, hi; } want[] = {
        {"dct8x8", 1.005, 1.02}, {"sgemm", 0.98, 1.0},
        {"reduction", 0.96, 0.985},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        wl_workload w;
        load(want[i].w, &w);
        gpu_config c = space_baseline();
        double two = eval_ipc(&w, &c);
        c.num_sched_per_core = 4;
        double four = eval_ipc(&w, &c);
        printf("%s 4 vs 2 schedulers: %+.2f%%\n", want[i].w,
               100 * (four / two - 1));
        ck_assert_msg(four > want[i].lo * two && four < want[i].hi * two,
                      "%s %.3f vs %.3f", want[i].w, four, two);
    }
}
END_TEST

/* Knobs a kernel cannot feel give exactly the same prediction, as
 * GPGPU-Sim gives exactly the same cycles (reference rows: shmem_size for
 * every kernel without 16-KB CTAs of shared memory, l1_sets for kernels
 * that never hit L1, l2_sets for kernels whose data fit the smallest L2). */
/* analytic-3.0: the prediction interval. Uncalibrated: the model's own
 * error over the stratified rows (sigma 0.10), never extrapolated (no
 * region recorded). Calibrated: the residuals' sigma inside the rows'
 * region; outside it (SM count, channels, cache sets) flagged and wider
 * the farther out. */
START_TEST(prediction_interval_and_extrapolation)
{
    wl_workload w;
    load("sfu", &w);
    gpu_config c = space_baseline();
    model_pi pi;
    model_interval(&w, &c, 100, &pi);
    ck_assert_int_eq(pi.extrapolated, 0);
    ck_assert(fabs(pi.sigma - 0.10) < 1e-12);
    ck_assert(pi.lo < 100 && pi.hi > 100);
    ck_assert(fabs(pi.lo * pi.hi - 100 * 100) < 1e-9);   /* symmetric in log */
    for (int i = 0; i < w.nkernels; i++) {
        wl_kernel *k = &w.k[i];
        k->cal_rows = 26;
        k->cal_log_sd = 0.03;
        k->cal_sm_min = 8;
        k->cal_sm_max = 60;
        k->cal_mem_min = 4;
        k->cal_mem_max = 8;
        k->cal_l1_min = 16;
        k->cal_l1_max = 128;
        k->cal_l2_min = 32;
        k->cal_l2_max = 128;
    }
    model_interval(&w, &c, 100, &pi);                      /* 15 SMs, 6 ch */
    ck_assert_int_eq(pi.extrapolated, 0);
    ck_assert(fabs(pi.sigma - 0.03) < 1e-12);
    double prev = pi.sigma;
    static const int sms[][2] = {{30, 4}, {60, 4}};        /* 120, 240 SMs */
    for (int j = 0; j < 2; j++) {
        c.n_clusters = sms[j][0];
        c.cores_per_cluster = sms[j][1];
        model_interval(&w, &c, 100, &pi);
        ck_assert_int_eq(pi.extrapolated, 1);
        ck_assert_msg(pi.sigma > prev, "%g <= %g", pi.sigma, prev);
        prev = pi.sigma;
    }
    c = space_baseline();
    c.n_mem = 12;                                          /* unseen channels */
    model_interval(&w, &c, 100, &pi);
    ck_assert_int_eq(pi.extrapolated, 1);
    ck_assert(pi.sigma > 0.03);
}
END_TEST

/* analytic-3.1: a lone CTA whose warps overflow two_level_active's pool
 * (8 warps, one scheduler, pool 6) runs the two left over after the
 * pool's stretch. GPGPU-Sim, sfu at 60x4 (strat-a23 vs a22): +1240 cycles
 * over LRR; the model +1475 (analytic-3.0: +3). Two schedulers (pool 12)
 * hold all 8: no tail. */
START_TEST(lone_cta_waits_for_two_level_pool)
{
    wl_workload w;
    load("sfu", &w);
    gpu_config c = space_baseline();
    c.n_clusters = 60;
    c.cores_per_cluster = 4;
    c.n_mem = 12;
    c.l1_sets = 32;
    c.l2_sets = 32;
    double d[3];
    for (int s = 1; s <= 2; s++) {
        c.num_sched_per_core = s;
        c.scheduler = SCHED_LRR;
        double lrr = eval_out(&w, &c).cycles;
        c.scheduler = SCHED_TWO_LEVEL;
        d[s] = eval_out(&w, &c).cycles - lrr;
    }
    printf("sfu 60x4, two-level over LRR: %.0f cycles at one scheduler "
           "(GPGPU-Sim +1240), %.0f at two\n", d[1], d[2]);
    ck_assert_msg(d[1] > 1000 && d[1] < 2000, "%.1f", d[1]);
    ck_assert_msg(fabs(d[2]) < 1, "%.1f", d[2]);
}
END_TEST

/* analytic-3.2: a line written back from L2 carries its dirty bytes once,
 * whatever the number of stores that dirtied it (write-back L2,
 * -gpgpu_cache:dl2 ...,L:B:m:L:L). transpose stores 16 one-sector
 * transactions per warp into 256 KB of output (32768 stored sectors on
 * 8192 written); at 4 channels and 32 L2 sets (256 KB of L2) GPGPU-Sim
 * wrote back 2060 commands of 64 B, 132 KB (strat-a00 n_wr_bk); counting
 * every stored sector the model wrote back 768 KB, three times the
 * output. The written-back bytes are the DRAM bytes less those of the
 * same launch without its stores. */
static double dram_bytes(const wl_workload *w, const gpu_config *c)
{
    model_out o = eval_out(w, c);
    return o.dram_bw_gbps * o.time_s * 1e9;
}

START_TEST(writeback_bounded_by_written_footprint)
{
    wl_workload w;
    load("transpose", &w);
    gpu_config c = space_baseline();
    c.n_clusters = 8;
    c.n_mem = 4;
    c.l2_sets = 32;
    double all = dram_bytes(&w, &c);
    wl_workload nost = w;
    nost.k[0].insn_st_global = 0;
    double wb = all - dram_bytes(&nost, &c);
    double written = w.k[0].footprint_kb_total * 1024.0
                     * (1 - w.k[0].read_share);
    printf("transpose 8 SMs, 4 channels, 256-KB L2: %.0f KB written back "
           "of %.0f KB written (GPGPU-Sim 132 KB)\n", wb / 1024,
           written / 1024);
    ck_assert_msg(wb > 0 && wb <= written, "%.0f of %.0f", wb, written);
}
END_TEST

/* analytic-3.3: where the DRAM bounds the launch, the latency-bound
 * rounds do not wait the burst's DRAM queue a second time (t_dram counts
 * the DRAM's drain). strat-a00 (8x1, 4 channels, 256-KB L2, two-level,
 * four schedulers; GPGPU-Sim IPC vecadd 154.1, reduction 292.8): on
 * analytic-3.2 the built-in descriptors gave 136.1 (-11.7%) and 232.9
 * (-20.5%), the smooth maximum of t_dram with rounds whose L held 399
 * cycles of DRAM queue. */
START_TEST(dram_queue_not_in_the_rounds)
{
    static const struct { const char *w; double real, tol; } rows[] = {
        {"vecadd", 154.116, 0.10}, {"reduction", 292.7656, 0.18},
    };
    gpu_config c = space_baseline();
    c.n_clusters = 8;
    c.cores_per_cluster = 1;
    c.n_mem = 4;
    c.shmem_size = 32768;
    c.scheduler = SCHED_TWO_LEVEL;
    c.num_sched_per_core = 4;
    c.l1_sets = 16;
    c.l2_sets = 32;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        wl_workload w;
        load(rows[i].w, &w);
        double ipc = eval_out(&w, &c).ipc, e = ipc / rows[i].real - 1;
        printf("%s strat-a00: IPC %.1f (GPGPU-Sim %.1f, %+.1f%%)\n",
               rows[i].w, ipc, rows[i].real, 100 * e);
        ck_assert_msg(fabs(e) <= rows[i].tol, "%s %+.1f%%", rows[i].w,
                      100 * e);
    }
}
END_TEST

/* analytic-3.4: with one core per cluster an input of the request
 * crossbar carries one core's strided stores, whose slices come in one
 * fixed order in every warp, so the heads convoy (a closed cyclic network,
 * d·n/(n + d − 1) requests per cycle, below the independent-heads rate);
 * two cores per cluster interleave their streams and lose less. The four
 * 12-channel one-core rows of GPGPU-Sim (built-in transpose, uncalibrated;
 * analytic-3.3: +19.0 / +18.1 / +13.3 / +14.8%), and 30 x 2 over 30 x 1
 * at strat-a13's knobs (3.3: +8.3%; GPGPU-Sim strat-a14 over a13, whose
 * L1/L2 sets the model finds inert for transpose here, +17.2%). */
START_TEST(one_core_clusters_convoy)
{
    static const struct {
        const char *d; int clusters, mem, shmem, sched, ns, l1, l2;
        double real;
    } rows[] = {
        {"rand00", 30, 12, 49152, SCHED_GTO, 1, 16, 64, 220.4818},
        {"strat-a12", 30, 12, 32768, SCHED_GTO, 2, 32, 32, 234.1575},
        {"strat-a13", 30, 12, 49152, SCHED_LRR, 4, 64, 128, 253.2694},
        {"strat-a18", 60, 12, 32768, SCHED_TWO_LEVEL, 4, 16, 64, 354.2487},
    };
    wl_workload w;
    load("transpose", &w);
    gpu_config c = space_baseline();
    double one = 0, two = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        c.n_clusters = rows[i].clusters;
        c.cores_per_cluster = 1;
        c.n_mem = rows[i].mem;
        c.shmem_size = rows[i].shmem;
        c.scheduler = rows[i].sched;
        c.num_sched_per_core = rows[i].ns;
        c.l1_sets = rows[i].l1;
        c.l2_sets = rows[i].l2;
        double ipc = eval_ipc(&w, &c), e = ipc / rows[i].real - 1;
        printf("transpose %s (%dx1, 12 ch.): IPC %.1f (GPGPU-Sim %.1f, "
               "%+.1f%%)\n", rows[i].d, c.n_clusters, ipc, rows[i].real,
               100 * e);
        ck_assert_msg(e <= 0.13, "%s %+.1f%%", rows[i].d, 100 * e);
        if (i == 2) {
            one = ipc;
            c.cores_per_cluster = 2;
            two = eval_ipc(&w, &c);
        }
    }
    printf("transpose 30x2 over 30x1 (strat-a13 knobs): %+.1f%%\n",
           100 * (two / one - 1));
    ck_assert_msg(two > 1.09 * one, "%.1f vs %.1f", two, one);
}
END_TEST

START_TEST(inert_knobs_tie_exactly)
{
    static const struct { const char *w; int knob; int v; } inert[] = {
        {"vecadd", 3 /* shmem_size */, 16384},
        {"histogram", 3, 16384}, {"transpose", 3, 32768},
        {"sfu", 6 /* l1_sets */, 128}, {"sfu", 7 /* l2_sets */, 32},
        {"dct8x8", 7, 128}, {"sgemm", 7, 32},
    };
    for (size_t i = 0; i < sizeof inert / sizeof inert[0]; i++) {
        wl_workload w;
        load(inert[i].w, &w);
        gpu_config c = space_baseline();
        ck_assert_str_eq(space_knob_get(inert[i].knob)->name,
                         inert[i].knob == 3 ? "shmem_size"
                         : inert[i].knob == 6 ? "l1_sets" : "l2_sets");
        double base = eval_ipc(&w, &c);
        space_set(&c, inert[i].knob, inert[i].v);
        ck_assert_msg(eval_ipc(&w, &c) == base, "%s: %s=%d moves IPC",
                      inert[i].w, space_knob_get(inert[i].knob)->name,
                      inert[i].v);
    }
}
END_TEST

/* analytic-2.29: past its knee (a closed population of resident warps far
 * above (D + L)/D) the hot atomic slice alone sets histogram's time, so
 * changes of the SM side (schedulers per core, warp order) leave it exactly
 * unchanged; and the launch stays monotone in the grid through the knee. */
START_TEST(hot_slice_bounds_past_its_knee)
{
    wl_workload w;
    load("histogram", &w);
    gpu_config c = space_baseline();
    model_out base, o;
    base = eval_out(&w, &c);
    static const struct { int sched, s; } rows[] = {
        {SCHED_GTO, 1}, {SCHED_GTO, 4}, {SCHED_LRR, 2},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gpu_config d = c;
        d.scheduler = rows[i].sched;
        d.num_sched_per_core = rows[i].s;
        o = eval_out(&w, &d);
        ck_assert_msg(o.cycles == base.cycles, "%s, %d schedulers: %.17g vs "
                      "%.17g cycles", space_sched_name(rows[i].sched),
                      rows[i].s, o.cycles, base.cycles);
    }
    /* The exponent grows from NET_OVERLAP as the population passes the
     * knee (about 9 resident CTAs here): more CTAs never take less time,
     * through the transition included. */
    static const int clusters[] = {8, 15, 30, 60};
    for (size_t i = 0; i < sizeof clusters / sizeof clusters[0]; i++) {
        c.n_clusters = clusters[i];
        double prev = 0;
        for (int g = 1; g <= 200; g++) {
            w.k[0].grid_ctas = g;
            o = eval_out(&w, &c);
            ck_assert_msg(o.cycles >= prev, "%d clusters: %d CTAs %.17g "
                          "cycles, %d CTAs %.17g", c.n_clusters, g, o.cycles,
                          g - 1, prev);
            prev = o.cycles;
        }
    }
}
END_TEST

/* ------------------------------------------------------------ descriptors */

START_TEST(builtins_load)
{
    char names[64][WL_NAMELEN];
    gd_err e = {0, ""};
    int n = wl_list_builtin(names, 64, &e);
    ck_assert_msg(n >= 8, "%d: %s", n, e.msg);
    for (int i = 1; i < n; i++)
        ck_assert(strcmp(names[i - 1], names[i]) < 0);
    for (size_t i = 0; i < N_REF; i++) {
        int found = 0;
        for (int j = 0; j < n; j++)
            found |= !strcmp(names[j], ref_kernels[i]);
        ck_assert_msg(found, "%s not built in", ref_kernels[i]);
    }
    for (int i = 0; i < n; i++) {
        wl_workload w;
        load(names[i], &w);
        ck_assert_str_eq(w.name, names[i]);
        ck_assert_int_eq((int)strlen(w.sha256), 64);
        ck_assert_int_ge(w.nkernels, 1);
        for (int k = 0; k < w.nkernels; k++)
            ck_assert(w.k[k].insn_alu >= 0);
    }
    wl_workload w;
    ck_assert_int_eq(wl_load_builtin("vecad", &w, &e), GD_EINPUT);
    ck_assert_int_eq(e.code, GD_EINPUT);
    ck_assert_msg(strstr(e.msg, "vecadd") && strstr(e.msg, "transpose"),
                  "%s", e.msg);
    ck_assert_int_eq(wl_load_builtin("../x", &w, &e), GD_EINPUT);
}
END_TEST

/* The RELAX NG schema (templates/workload.rng) accepts every built-in
 * descriptor and refuses an unknown parameter. Before its optional
 * attributes were interleaved, libxml2 took minutes on dct8x8_jpeg, which
 * sets every parameter (Check's timeout fails the test then). */
static void quiet_xml(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

START_TEST(builtins_match_schema)
{
    const char *data = getenv("GPUDSE_DATA");
    ck_assert(data != NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/workload.rng", data);
    xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewParserCtxt(path);
    xmlRelaxNGPtr schema = xmlRelaxNGParse(pc);
    ck_assert_msg(schema != NULL, "%s", path);
    xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(schema);
    char names[64][WL_NAMELEN];
    gd_err e = {0, ""};
    int n = wl_list_builtin(names, 64, &e);
    ck_assert_int_ge(n, 8);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/workloads/%s.xml", data, names[i]);
        xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
        ck_assert_msg(doc != NULL, "%s", path);
        ck_assert_msg(xmlRelaxNGValidateDoc(vc, doc) == 0, "%s", path);
        xmlFreeDoc(doc);
    }
    static const char bad[] =
        "<workload name=\"x\"><kernel name=\"k\" grid_ctas=\"1\" "
        "threads_per_cta=\"32\" regs_per_thread=\"8\" smem_per_cta=\"0\">"
        "<mix thread_insns=\"1\" warp_insns=\"1\"/>"
        "<params ilp=\"1\" bogus=\"1\"/></kernel></workload>";
    xmlDocPtr doc = xmlReadMemory(bad, sizeof bad - 1, "bad.xml", NULL,
                                  XML_PARSE_NONET);
    ck_assert(doc != NULL);
    xmlSetGenericErrorFunc(NULL, quiet_xml);
    xmlSetStructuredErrorFunc(NULL, NULL);
    xmlRelaxNGSetValidStructuredErrors(vc, NULL, NULL);
    ck_assert_int_ne(xmlRelaxNGValidateDoc(vc, doc), 0);
    xmlFreeDoc(doc);
    xmlRelaxNGFreeValidCtxt(vc);
    xmlRelaxNGFree(schema);
    xmlRelaxNGFreeParserCtxt(pc);
}
END_TEST

START_TEST(bad_descriptors)
{
    static const struct { const char *file; int line; const char *what; }
    bad[] = {
        {"not_wellformed.xml", 6, ""},
        {"missing_attr.xml", 3, "grid_ctas"},
        {"bad_number.xml", 4, "regs_per_thread"},
        {"unknown_attr.xml", 3, "thread_per_cta"},
        {"doctype.xml", 3, "entity"},
        {"mix_overflow.xml", 3, "warp_insns"},
        {"wrong_root.xml", 2, "<workload>"},
        {"no_kernel.xml", 2, "no <kernel>"},
        {"out_of_range.xml", 5, "l1_reuse"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[256], want[300];
        snprintf(path, sizeof path, "%s/%s", BAD_DIR, bad[i].file);
        snprintf(want, sizeof want, "%s:%d:", path, bad[i].line);
        wl_workload w;
        gd_err e = {0, ""};
        ck_assert_int_eq(wl_load_file(path, &w, &e), GD_EINPUT);
        ck_assert_int_eq(e.code, GD_EINPUT);
        ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0,
                      "%s: message '%s' does not start with '%s'",
                      bad[i].file, e.msg, want);
        ck_assert_msg(strstr(e.msg, bad[i].what) != NULL, "%s: '%s'",
                      bad[i].file, e.msg);
    }
    wl_workload w;
    gd_err e = {0, ""};
    ck_assert_int_eq(wl_load_file(BAD_DIR "/absent.xml", &w, &e), GD_EINPUT);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, occupancy_regimes);
    tcase_add_test(t, occupancy_builtin_match_kernels_csv);
    tcase_add_test(t, occupancy_matches_every_reference_row);
    tcase_add_test(t, cta_that_does_not_fit);
    tcase_add_test(t, ipc_direction_and_error);
    tcase_add_test(t, outputs_in_range);
    tcase_add_test(t, area_and_power_anchors);
    tcase_add_test(t, responds_to_every_knob);
    tcase_add_test(t, multi_kernel_sums);
    tcase_add_test(t, physics_mechanisms);
    tcase_add_test(t, cluster_port_sharing);
    tcase_add_test(t, inert_knobs_tie_exactly);
    tcase_add_test(t, latency_bound_waves_quantise);
    tcase_add_test(t, preloaded_input_read_before_writes);
    tcase_add_test(t, dram_queue_counted_once);
    tcase_add_test(t, crossbar_head_of_line);
    tcase_add_test(t, partition_camping_spread);
    tcase_add_test(t, barrier_waits_whole_drain);
    tcase_add_test(t, last_cta_issue_inside_drain);
    tcase_add_test(t, cold_icache_hidden_by_issue_work);
    tcase_add_test(t, prediction_interval_and_extrapolation);
    tcase_add_test(t, lone_cta_waits_for_two_level_pool);
    tcase_add_test(t, writeback_bounded_by_written_footprint);
    tcase_add_test(t, cold_constant_cache_rounds);
    tcase_add_test(t, saturated_sfu_serves_to_the_end);
    tcase_add_test(t, reply_crossbar_bounds_l2_hits);
    tcase_add_test(t, l1_sets_cannot_flip_waves);
    tcase_add_test(t, camped_slices_one_cycle_per_write);
    tcase_add_test(t, network_overlap_ignores_warp_order);
    tcase_add_test(t, sched_count_widens_camping_window);
    tcase_add_test(t, two_level_pool_widens_camping_window);
    tcase_add_test(t, hot_slice_paced_by_reply_input);
    tcase_add_test(t, hot_slice_reply_deficit_and_first_wave_loads);
    tcase_add_test(t, cold_atomic_target_costs_one_dram_trip);
    tcase_add_test(t, two_level_round_delays_atomics);
    tcase_add_test(t, lrr_rounds_are_whole_waves);
    tcase_add_test(t, two_level_pool_reads_source_ilp);
    tcase_add_test(t, writeback_lines_share_dram_commands);
    tcase_add_test(t, busy_front_end_loses_stagger_at_four_schedulers);
    tcase_add_test(t, four_schedulers_ports_and_thin_wave);
    tcase_add_test(t, hot_slice_bounds_past_its_knee);
    tcase_add_test(t, dram_queue_not_in_the_rounds);
    tcase_add_test(t, one_core_clusters_convoy);
    tcase_add_test(t, builtins_load);
    tcase_add_test(t, builtins_match_schema);
    tcase_add_test(t, bad_descriptors);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_run_suite(model_suite());
}
