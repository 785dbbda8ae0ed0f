/* test_model_props: the embedded model on kernels that are not in the
 * reference — seeded random descriptors (parsed from XML like a user's file)
 * over random design points. Checks properties every prediction must hold
 * whatever the kernel: finite outputs in their ranges, IPC under the issue
 * stage's ceiling, bit-identical repeats, launches that add up, knobs a
 * kernel cannot feel left exactly inert, and more SMs never slowing a
 * kernel that touches no memory. Run from the repo root. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>

#include "model.h"
#include "space.h"
#include "workload.h"

#define N_KERNELS 1000         /* random descriptors per property */
#define N_POINTS 40            /* random design points per descriptor */
#define SEED 0x9e3779b97f4a7c15ULL
#define WARP_THREADS 32

/* ------------------------------------------------------------- generator */

/* splitmix64: a tiny seeded generator, so the cases are the same on every
 * machine and a failure names a reproducible case number. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
    return (double)(next_u64(s) >> 11) / 9007199254740992.0;
}

static double log_uniform(uint64_t *s, double lo, double hi)
{
    return lo * pow(hi / lo, uniform(s));
}

static int int_between(uint64_t *s, int lo, int hi)
{
    return lo + (int)(uniform(s) * (hi - lo + 1));
}

/* A random share of warp instructions for each class; zero with odds 1/2
 * so that kernels without a class (no atomics, no SFU, ...) are common. */
static double class_share(uint64_t *s)
{
    return uniform(s) < 0.5 ? 0 : uniform(s);
}

typedef struct {
    int memory;                /* 0: no global, shared, constant (beyond the
                                  parameter line) or atomic work */
} gen_opts;

/* The text of one random descriptor with one kernel, within the ranges
 * workload.c accepts (instruction classes scaled to fit warp_insns) and
 * mem_waits within calibrate.c's bound, 2·(ld_global + atomic) + 1: a warp
 * waits on no more round trips than its loads make. An SM fetches no more
 * 128-B code lines (16 instructions each) than a warp executes. */
static void random_descriptor(uint64_t *s, const gen_opts *g, char *xml,
                              size_t size)
{
    int threads = uniform(s) < 0.8 ? 32 * int_between(s, 1, 32)
                                   : int_between(s, 1, 1024);
    double warp_insns = log_uniform(s, 8, 2e5);
    double sh[7];
    double sum = 0;
    for (int i = 0; i < 7; i++) {
        sh[i] = class_share(s);
        if (!g->memory && i != 0 && i != 6)
            sh[i] = 0;         /* keep sfu [0] and sync [6] only */
        sum += sh[i];
    }
    double room = 0.9 * warp_insns / (sum > 1 ? sum : 1);
    double c[7];
    for (int i = 0; i < 7; i++)
        c[i] = floor(sh[i] * room);
    double fp_cta = log_uniform(s, 0.01, 64);
    snprintf(xml, size,
             "<?xml version=\"1.0\"?>\n"
             "<workload name=\"rand\" description=\"random\">\n"
             "  <kernel name=\"k\" grid_ctas=\"%d\" threads_per_cta=\"%d\""
             " launches=\"%d\" regs_per_thread=\"%d\" smem_per_cta=\"%d\">\n"
             "    <mix thread_insns=\"%.17g\" warp_insns=\"%.17g\" sfu=\"%g\""
             " ld_global=\"%g\" st_global=\"%g\" shared=\"%g\" const=\"%g\""
             " atomic=\"%g\" sync=\"%g\"/>\n"
             "    <params ld_tx=\"%.6g\" st_tx=\"%.6g\" st_sectors=\"%.6g\""
             " atom_tx=\"%.6g\" atom_hot=\"%.6g\" shared_conflict=\"%.6g\""
             " const_conflict=\"%.6g\" code_lines=\"%d\" const_lines=\"%d\""
             " l1_reuse=\"%.6g\" footprint_kb_per_cta=\"%.6g\""
             " l2_reuse=\"%.6g\" footprint_kb_total=\"%.6g\""
             " read_share=\"%.6g\" st_stride=\"%d\" st_group=\"%d\""
             " ilp=\"%.6g\" mem_waits=\"%.6g\" mem_eff=\"%.6g\"/>\n"
             "  </kernel>\n</workload>\n",
             (int)log_uniform(s, 1, 50000), threads, int_between(s, 1, 3),
             int_between(s, 0, 63), uniform(s) < 0.5 ? 0
                                    : int_between(s, 0, 48 * 1024),
             warp_insns * (0.5 + 0.5 * uniform(s)), warp_insns,
             c[0], c[1], c[2], c[3], c[4], c[5], c[6],
             1 + 31 * pow(uniform(s), 3), 1 + 31 * pow(uniform(s), 3),
             1 + 3 * uniform(s), 1 + 31 * uniform(s), uniform(s),
             1 + 31 * pow(uniform(s), 3), 1 + 31 * pow(uniform(s), 3),
             /* code lines: every active SM fetches each at one L2 slice
              * (analytic-3.0), so more SMs queue longer there: memory */
             (g->memory ? 1 : 0)
                 * int_between(s, 0, (int)fmin(40, warp_insns / 16 + 1)),
             int_between(s, 0, g->memory ? 8 : 1),
             uniform(s), fp_cta, uniform(s),
             fp_cta * log_uniform(s, 1, 1e5), uniform(s),
             uniform(s) < 0.5 ? 0 : 4 * int_between(s, 1, 4096),
             int_between(s, 0, 16), 1 + 7 * uniform(s),
             (2 * (c[1] + c[5]) + (g->memory ? 1 : 0)) * uniform(s),
             0.05 + 0.95 * uniform(s));
}

static gpu_config random_point(uint64_t *s, const space_def *sp)
{
    return space_at(sp, next_u64(s) % space_size(sp));
}

/* Parse the text as a user's descriptor file would be. */
static void load_text(const char *xml, wl_workload *w)
{
    char path[] = "tests/tmp/props_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "cannot create %s", path);
    close(fd);
    tu_write(path, xml);
    gd_err e = {0, ""};
    int rc = wl_load_file(path, w, &e);
    unlink(path);
    ck_assert_msg(rc == GD_OK, "generated descriptor rejected: %s\n%s",
                  e.msg, xml);
}

/* A stream of random cases: descriptors of one kind, design points. */
typedef struct {
    uint64_t s;
    space_def sp;
    gen_opts g;
    char xml[4096];            /* the last descriptor's text */
} case_gen;

static void case_gen_init(case_gen *cg, uint64_t seed, int memory)
{
    cg->s = seed;
    space_def_full(&cg->sp);
    cg->g.memory = memory;
    cg->xml[0] = 0;
}

/* The next descriptor into w (parsed as a file is). */
static void next_kernel(case_gen *cg, wl_workload *w)
{
    random_descriptor(&cg->s, &cg->g, cg->xml, sizeof cg->xml);
    load_text(cg->xml, w);
}

/* The next descriptor and design point, evaluated into o; 0 when the
 * kernel does not fit the point (the caller skips the case). */
static int next_case(case_gen *cg, wl_workload *w, gpu_config *c,
                     model_out *o)
{
    next_kernel(cg, w);
    *c = random_point(&cg->s, &cg->sp);
    gd_err e = {0, ""};
    return model_eval(w, c, o, &e) == 0;
}

/* ------------------------------------------------------------ properties */

/* Thread instructions per cycle the issue stage could sustain: s
 * schedulers, at most 2 SP + 1 MEM + 1 SFU warp instructions per cycle. */
static double issue_ceiling(const wl_kernel *k, const gpu_config *c)
{
    double sms = c->n_clusters * c->cores_per_cluster;
    double per_sm = c->num_sched_per_core < 4 ? c->num_sched_per_core : 4;
    return sms * per_sm * WARP_THREADS * k->thread_insns / k->warp_insns;
}

/* Peak bandwidths of the GTX480 configuration (docs/model.md): a GDDR5
 * channel moves 32 B per DRAM clock at 924 MHz; an L2 slice (two per
 * channel) serves one 32-B sector per core clock at 700 MHz. */
static double dram_peak_gbps(const gpu_config *c)
{
    return c->n_mem * 32.0 * 924e6 / 1e9;
}

static double l2_peak_gbps(const gpu_config *c)
{
    return 2.0 * c->n_mem * 32.0 * 700e6 / 1e9;
}

static void check_ranges(const model_out *o, const wl_kernel *k,
                         const gpu_config *c, int kase)
{
    ck_assert_msg(isfinite(o->ipc) && o->ipc > 0, "case %d: ipc %g", kase,
                  o->ipc);
    ck_assert_msg(o->ipc <= issue_ceiling(k, c) * (1 + 1e-9),
                  "case %d: ipc %g above the issue ceiling %g", kase, o->ipc,
                  issue_ceiling(k, c));
    ck_assert_msg(isfinite(o->cycles) && o->cycles >= 1,
                  "case %d: cycles %g", kase, o->cycles);
    ck_assert(o->occupancy > 0 && o->occupancy <= 1);
    ck_assert(o->l1d_miss_rate >= 0 && o->l1d_miss_rate <= 1);
    ck_assert(o->l2_miss_rate >= 0 && o->l2_miss_rate <= 1);
    ck_assert(isfinite(o->dram_stall_cycles) && o->dram_stall_cycles >= 0);
    ck_assert(isfinite(o->l2_bw_gbps) && o->l2_bw_gbps >= 0);
    ck_assert(isfinite(o->dram_bw_gbps) && o->dram_bw_gbps >= 0);
    ck_assert_msg(o->dram_bw_gbps <= dram_peak_gbps(c),
                  "case %d: DRAM %g GB/s above the peak %g", kase,
                  o->dram_bw_gbps, dram_peak_gbps(c));
    ck_assert_msg(o->l2_bw_gbps <= l2_peak_gbps(c),
                  "case %d: L2 %g GB/s above the peak %g", kase,
                  o->l2_bw_gbps, l2_peak_gbps(c));
    ck_assert(isfinite(o->power_w) && o->power_w > 0);
    ck_assert(isfinite(o->area_mm2) && o->area_mm2 > 0);
    ck_assert(isfinite(o->energy_j) && o->energy_j > 0);
    ck_assert(o->bottleneck >= BOTTLENECK_COMPUTE
              && o->bottleneck <= BOTTLENECK_MEM_BANDWIDTH);
    ck_assert(o->limit >= LIMIT_CTAS && o->limit <= LIMIT_SMEM);
}

/* Every output finite and in range, under the issue ceiling, and the same
 * bits when evaluated again. */
START_TEST(random_kernels_stay_physical)
{
    case_gen cg;
    case_gen_init(&cg, SEED, 1);
    int evaluated = 0, unfit = 0;
    double dram_use = 0, l2_use = 0;   /* highest share of the peaks */
    for (int kase = 0; kase < N_KERNELS; kase++) {
        wl_workload w;
        next_kernel(&cg, &w);
        for (int p = 0; p < N_POINTS; p++) {
            gpu_config c = random_point(&cg.s, &cg.sp);
            model_out o, again;
            gd_err e = {0, ""};
            if (model_eval(&w, &c, &o, &e) != 0) {
                unfit++;       /* a CTA that does not fit: an error, fine */
                ck_assert_msg(e.msg[0] != 0, "case %d: no reason", kase);
                continue;
            }
            evaluated++;
            check_ranges(&o, &w.k[0], &c, kase);
            dram_use = fmax(dram_use, o.dram_bw_gbps / dram_peak_gbps(&c));
            l2_use = fmax(l2_use, o.l2_bw_gbps / l2_peak_gbps(&c));
            ck_assert_int_eq(model_eval(&w, &c, &again, &e), 0);
            ck_assert_msg(memcmp(&o, &again, sizeof o) == 0,
                          "case %d: a repeat differs", kase);
        }
    }
    printf("model props: %d random points evaluated, %d did not fit; "
           "highest DRAM use %.0f%%, L2 %.0f%% of peak\n", evaluated, unfit,
           100 * dram_use, 100 * l2_use);
    ck_assert_int_gt(evaluated, N_KERNELS * N_POINTS / 2);
}
END_TEST

/* k launches of one shape take k times the cycles of one, less what only
 * the first finds cold: the atomic target's one DRAM trip (LAT_DRAM 130
 * cycles, cold_atomic_start in model.c), spread over the launches. */
#define COLD_ONCE 130.0
START_TEST(launches_add_up)
{
    case_gen cg;
    case_gen_init(&cg, SEED ^ 1, 1);
    for (int kase = 0; kase < N_KERNELS / 4; kase++) {
        wl_workload w;
        gpu_config c;
        model_out o, o1;
        if (!next_case(&cg, &w, &c, &o))
            continue;
        wl_workload once = w;
        once.k[0].launches = 1;
        gd_err e = {0, ""};
        ck_assert_int_eq(model_eval(&once, &c, &o1, &e), 0);
        double k = w.k[0].launches;
        double saved = k * o1.cycles - o.cycles;
        ck_assert_msg(saved >= -1e-9 * o.cycles
                      && saved <= (k - 1) * COLD_ONCE + 1e-9 * o.cycles,
                      "case %d: %g launches %.17g cycles, one %.17g", kase,
                      k, o.cycles, o1.cycles);
        ck_assert(fabs(o.instructions - k * o1.instructions)
                  <= 1e-12 * o.instructions);
    }
}
END_TEST

/* A kernel that touches no memory feels neither the memory system nor the
 * caches' sizes, and more SMs never slow it down. (Constant lines beyond
 * the parameters, and code lines, are memory: every active SM misses on
 * them at the same slice, so more SMs can queue longer there, as in
 * GPGPU-Sim.) */
START_TEST(compute_kernels_ignore_memory_and_scale_with_sms)
{
    case_gen cg;
    case_gen_init(&cg, SEED ^ 2, 0);
    int compared = 0;
    for (int kase = 0; kase < N_KERNELS / 2; kase++) {
        wl_workload w;
        gpu_config c;
        model_out o, m;
        gd_err e = {0, ""};
        if (!next_case(&cg, &w, &c, &o))
            continue;
        static const struct { int knob, v; } inert[] = {
            {KNOB_N_MEM, 4}, {KNOB_N_MEM, 12}, {KNOB_L1_SETS, 16},
            {KNOB_L1_SETS, 128}, {KNOB_L2_SETS, 32}, {KNOB_L2_SETS, 128},
        };
        for (size_t i = 0; i < sizeof inert / sizeof inert[0]; i++) {
            gpu_config d = c;
            space_set(&d, inert[i].knob, inert[i].v);
            ck_assert_int_eq(model_eval(&w, &d, &m, &e), 0);
            ck_assert_msg(m.cycles == o.cycles,
                          "case %d: %s=%d moves a memory-free kernel "
                          "(%.17g vs %.17g cycles)\n%s", kase,
                          space_knob_get(inert[i].knob)->name, inert[i].v,
                          m.cycles, o.cycles, cg.xml);
        }
        static const struct { int knob, lo, hi; } sms[] = {
            {KNOB_N_CLUSTERS, 8, 60}, {KNOB_CORES_PER_CLUSTER, 1, 4},
        };
        for (size_t i = 0; i < sizeof sms / sizeof sms[0]; i++) {
            int knob = sms[i].knob;
            gpu_config lo = c, hi = c;
            space_set(&lo, knob, sms[i].lo);
            space_set(&hi, knob, sms[i].hi);
            model_out olo, ohi;
            ck_assert_int_eq(model_eval(&w, &lo, &olo, &e), 0);
            ck_assert_int_eq(model_eval(&w, &hi, &ohi, &e), 0);
            ck_assert_msg(ohi.cycles <= olo.cycles * (1 + 1e-9),
                          "case %d: %s up, a memory-free kernel slows "
                          "(%g -> %g cycles)\n%s", kase,
                          space_knob_get(knob)->name, olo.cycles,
                          ohi.cycles, cg.xml);
            compared++;
        }
    }
    ck_assert_int_gt(compared, N_KERNELS / 2);
}
END_TEST

/* More traffic at the hot atomic slice never takes less time: more
 * transactions per atomic, a larger share of them on the hottest slice. */
START_TEST(atomic_demand_never_speeds_up)
{
    case_gen cg;
    case_gen_init(&cg, SEED ^ 3, 1);
    int compared = 0;
    for (int kase = 0; kase < N_KERNELS; kase++) {
        wl_workload w;
        gpu_config c;
        model_out o, more;
        gd_err e = {0, ""};
        if (!next_case(&cg, &w, &c, &o) || w.k[0].insn_atomic <= 0)
            continue;
        const wl_kernel *k = &w.k[0];
        wl_workload busier = w;
        busier.k[0].atom_tx = fmin(32, k->atom_tx * 1.5);
        busier.k[0].atom_hot = fmin(1, k->atom_hot + 0.1);
        ck_assert_int_eq(model_eval(&busier, &c, &more, &e), 0);
        ck_assert_msg(more.cycles >= o.cycles * (1 - 1e-12),
                      "case %d: more atomic traffic, %.17g -> %.17g cycles"
                      "\n%s", kase, o.cycles, more.cycles, cg.xml);
        compared++;
    }
    ck_assert_int_gt(compared, N_KERNELS / 10);
}
END_TEST

/* Larger caches never miss more, and never cost time beyond a rounding
 * of the latencies: more L1 or L2 sets only raise the hit rates (the
 * footprints' fits), and so shorten the latencies. A shorter latency can
 * lengthen a launch by a sliver: each throughput term drops its own share
 * of the last CTA's latency before the smooth maximum, whose gradient sums
 * to more than 1 where terms are close (measured with LAT_L2 10 cycles
 * longer: 6 of 2751 random cases faster, at most by 0.0028%; here the L2
 * sets move the latency of 4 of 2139 cases, by at most 5·10⁻⁸ of the
 * cycles). */
#define CACHE_SLACK 1e-6
START_TEST(larger_caches_never_miss_more)
{
    case_gen cg;
    case_gen_init(&cg, SEED ^ 4, 1);
    static const int l1v[] = {16, 32, 64, 128}, l2v[] = {32, 64, 128};
    int compared = 0;
    for (int kase = 0; kase < N_KERNELS; kase++) {
        wl_workload w;
        gpu_config c;
        model_out o, prev, x;
        gd_err e = {0, ""};
        if (!next_case(&cg, &w, &c, &o))
            continue;
        for (int i = 0; i < 4; i++, prev = x) {
            c.l1_sets = l1v[i];
            ck_assert_int_eq(model_eval(&w, &c, &x, &e), 0);
            if (!i)
                continue;
            compared++;
            ck_assert_msg(x.l1d_miss_rate <= prev.l1d_miss_rate
                          && x.cycles <= prev.cycles * (1 + 1e-12),
                          "case %d: L1 %d -> %d sets: miss %g -> %g, "
                          "%.17g -> %.17g cycles\n%s", kase, l1v[i - 1],
                          l1v[i], prev.l1d_miss_rate, x.l1d_miss_rate,
                          prev.cycles, x.cycles, cg.xml);
        }
        for (int i = 0; i < 3; i++, prev = x) {
            c.l2_sets = l2v[i];
            ck_assert_int_eq(model_eval(&w, &c, &x, &e), 0);
            if (!i)
                continue;
            ck_assert_msg(x.l2_miss_rate <= prev.l2_miss_rate
                          && x.cycles <= prev.cycles * (1 + CACHE_SLACK),
                          "case %d: L2 %d -> %d sets: miss %g -> %g, "
                          "%.17g -> %.17g cycles\n%s", kase, l2v[i - 1],
                          l2v[i], prev.l2_miss_rate, x.l2_miss_rate,
                          prev.cycles, x.cycles, cg.xml);
        }
    }
    ck_assert_int_gt(compared, N_KERNELS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("model_props");
    TCase *t = tcase_create("random kernels");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, random_kernels_stay_physical);
    tcase_add_test(t, launches_add_up);
    tcase_add_test(t, atomic_demand_never_speeds_up);
    tcase_add_test(t, larger_caches_never_miss_more);
    tcase_add_test(t, compute_kernels_ignore_memory_and_scale_with_sms);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
