/* model_int: what the embedded model's three files share and nothing
 * else includes -- the GPGPU-Sim machine constants, the per-warp facts of a
 * kernel, a launch's memory events and loaded latency, and the functions
 * one file calls in another (model.c composes a launch from the memory
 * side, model_mem.c, and the SM side, model_sm.c). Every constant is
 * sourced in docs/model.md, "Coefficients and sources". */
#ifndef GPUDSE_MODEL_INT_H
#define GPUDSE_MODEL_INT_H

#include <math.h>

#include "space.h"
#include "workload.h"

/* ---- Machine facts of the GTX480 GPGPU-Sim config (gpgpusim.config) ---- */
#define CORE_HZ 700e6          /* -gpgpu_clock_domains core 700 MHz */
#define DRAM_HZ 924e6          /* -gpgpu_clock_domains dram 924 MHz */
#define WARP 32
#define SM_MAX_THREADS 1536    /* -gpgpu_shader_core_pipeline 1536:32 */
#define SM_MAX_WARPS 48
#define SM_MAX_CTAS 8          /* -gpgpu_shader_cta 8 */
#define SM_REGS 32768          /* -gpgpu_shader_registers */
#define N_SP 2.0               /* -gpgpu_num_sp_units 2 */
#define SFU_II 8.0             /* cycles per warp SFU insn (4 SFU lanes) */
#define L1_LINE 128.0
#define L1_WAYS 4.0
#define L2_WAYS 8.0
#define SUBPART_PER_CH 2.0     /* -gpgpu_n_sub_partition_per_mchannel */
#define SECTOR 32.0
#define MSHR 64.0              /* dl1 "S:64:8" */
#define DRAM_BYTES_PER_CLK 32.0 /* 8 B/transfer x 4 transfers per clock */
#define FLIT 40.0              /* icnt_flit_size */
#define PKT_HDR 8.0
#define SCHED_DEFAULT 2.0      /* GPGPU-Sim GTX480 config: -gpgpu_num_sched_per_core 2 */
#define TWO_LEVEL_POOL 6.0     /* two_level_active:6 */
#define DISPATCH_MAX 2.0       /* operand collector: 2 SP in/out ports */
#define ID_OC_SP 2.0           /* -gpgpu_pipeline_widths: ID_OC_SP 2 (SP, branches, barriers) */
#define ID_OC_MEM 1.0          /* ID_OC_MEM 1 (global, shared, constant, atomic) */
#define ID_OC_SFU 1.0          /* ID_OC_SFU 1 */

/* ---- Latencies in core cycles ---- */
#define LAT_ALU 11.0           /* issue + operand collect (2-3) + FU latency 4-5 + writeback; fitted */
#define LAT_SFU 16.0
#define LAT_SH 38.0            /* -gpgpu_smem_latency 26 + operand collect + writeback */
#define LAT_CONST 20.0
#define LAT_L1 35.0            /* -gpgpu_l1_latency 35 */
#define LAT_L2 147.0           /* averagemflatency of L2-hit runs */
#define LAT_DRAM 130.0         /* extra on an L2 miss: dram_latency 100 + tRCD/CL */
#define LAT_ATOM 20.0          /* ROP read-modify-write on top of an L2 hit */
#define CONST_MSHR 2.0         /* -gpgpu_const_cache:l1 N:64:64:2,L:R:f:N:L,S:2:32: 2 MSHR entries */
#define CONST_SECTORS 2.0      /* 32-B L2 sectors per 64-B constant line (L2 CONST_ACC_R accesses 150 for 75 requests) */
#define INST_SECTORS 4.0       /* 32-B L2 sectors per 128-B il1 line (reduction 240 SMs: INST_ACC_R 1440 requests, 5760 L2 accesses and 40-B replies) */
#define LAT_SYNC 60.0          /* barrier: drain of the last warp's accesses + release + refetch; fitted */

/* ---- Efficiencies ---- */
#define L1_RESERVE 0.75        /* share of L1 lines in-flight fills can hold before set conflicts fail reservations (estimate) */
#define DRAM_SECTOR_EFF 0.5    /* a 32-B sector occupies a 64-B BL8 burst */
#define DRAM_SCHED_EFF 0.93    /* dram_eff of the saturated vecadd log */
#define ATOM_CYCLES 1.0        /* L2 slice cycles per atomic transaction */
#define L2_WR_CYCLES 3.0       /* L2 slice cycles of a one-sector write request; each further sector adds one (estimate) */
#define REPLY_VC_STEP 0.25     /* cycles lost per conflicting reply: 1 of 2 internal steps */

/* Per-warp event counts and the launch-independent facts of one kernel. */
typedef struct {
    double wpc;                /* warps per CTA */
    double I, dep;             /* warp insns; mean dependent latency */
    double ld_lines, st_tx, st_sect, atom_tx, mem_pipe;
    double sm_cycles_sp, sm_cycles_sfu;
} kfacts;

/* Memory behaviour of one warp at a given residency. */
typedef struct {
    double h1, h2, fit2;
    double l1_miss, rd_sect, l2_acc, dram_sect, dram_cmds, inj, ej;
} mem_events;

/* Loaded miss latency, split where the DRAM's own drain is: `total` is the
 * mean loaded latency of an L1 read miss (what a CTA's chain waits), `dram_q`
 * the part of it that is the burst's wait in the DRAM queue. */
typedef struct {
    double total, dram_q;
} miss_latency;

/* One launch's time at overlap exponent p: the SM's throughput pipeline
 * and its latency-bound rounds, met with the GPU-wide bandwidth bound, plus
 * the fill and drain and the exposed cold-cache time (icache, cconst). */
typedef struct {
    const double *per_cta;
    /* The two-slot per-CTA work that decides the wave switch (analytic-2.27;
     * NULL: per_cta itself). */
    const double *per_cta_switch;
    int cmax, nr;
    double fill_drain, chain, wpc, L, t_bw, icache, cconst;
    int whole_waves;   /* LRR: co-resident CTAs finish together */
    double thin_wave;  /* a thin last wave's delayed start (analytic-2.27) */
    double t_atom;     /* the hot atomic slice's busy time (analytic-2.29) */
    double pop;        /* resident warps GPU-wide: the slice's customers */
} sm_times;

static inline double minf(double a, double b) { return a < b ? a : b; }
static inline double maxf(double a, double b) { return a > b ? a : b; }
static inline double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

static inline double model_l2_bytes(const gpu_config *c)
{
    return c->l2_sets * L1_LINE * L2_WAYS * SUBPART_PER_CH * c->n_mem;
}

/* Request packets per cycle the request crossbar delivers when its n_in
 * cluster inputs are backlogged (transpose log: avg_icnt2mem_latency 389,
 * 96904 store MISS_QUEUE_FULL fails, partiton_level_parallism 2.84). With
 * one VC per input (config_fermi_islip.icnt num_vcs 1, iSLIP alloc_iters 1)
 * only each input's head packet can be granted: the saturation throughput
 * of an input-queued n_in x d switch with uniform destinations over the d
 * slices the heads address, n_in·(1 + e − sqrt(1 + e²)) with e = d/n_in
 * (input queueing with expansion ratio e; 2 − √2 per input at d = n_in,
 * Karol et al. 1987; → d when many inputs feed few slices). */
static inline double model_xbar_requests_per_cycle(double d, double n_in)
{
    return n_in + d - sqrt(n_in * n_in + d * d);
}

/* Request packets per cycle the request crossbar delivers when every one
 * of its n_in inputs carries a single core's stores (one core per cluster,
 * analytic-3.4): the core's LD/ST unit sends a warp's strided stores in
 * address order, so an input's successive heads visit the d slices in one
 * fixed cyclic order, the same in every warp. The heads then circulate
 * through the slices as the n_in customers of a closed cyclic network of d
 * single-server stations (Gordon and Newell 1967, product form: every
 * placement of the heads equally likely), each station busy a share
 * n_in/(n_in + d - 1) of the time. Heads that meet at a slice leave it
 * one behind the other and meet again at the next (a convoy), which the
 * independent destinations of model_xbar_requests_per_cycle do not see;
 * both tend to d when the inputs outnumber the slices. */
static inline double model_xbar_cyclic_requests_per_cycle(double d,
                                                          double n_in)
{
    return d * n_in / (n_in + d - 1);
}

/* Overlap exponent of the smooth maximum: GTO staggers warps so phases
 * overlap best; LRR keeps warps in lockstep so they overlap least. */
static inline double model_sched_overlap(int sched)
{
    return sched == SCHED_LRR ? 3.0 : sched == SCHED_TWO_LEVEL ? 3.5 : 4.0;
}

/* Overlap exponent between an SM's time and the GPU-wide bandwidth bounds
 * (analytic-2.13). The bandwidth servers (L2 slices, crossbars, DRAM) are
 * fed by every SM's requests at once, so how one SM's scheduler orders its
 * warps does not change how SM work overlaps a saturated network: under
 * LRR / two-level GPGPU-Sim's memory-bound kernels lose at most 1.1%
 * against GTO (vecadd −0.5 / −1.1%, transpose +0.3 / +2.9%, histogram
 * +0.3 / 0%). GTO's exponent, the one every baseline was measured under. The
 * request and reply crossbars meet at it too (analytic-3.4). */
#define NET_OVERLAP 4.0

/* The smooth maximum (p-norm) of two non-negative terms at NET_OVERLAP
 * (4), inline for the evaluation's hot path: max·(1 + r⁴)^¼, r = min/max
 * (model_sm.c's smax for two terms, written out). */
static inline double model_smax2_net(double a, double b)
{
    double hi = a > b ? a : b, lo = a > b ? b : a;
    if (lo <= 0)
        return hi;
    double r = lo / hi, r2 = r * r;
    return hi * sqrt(sqrt(1 + r2 * r2));
}

/* The memory side (model_mem.c). */
void model_mem_of(const wl_kernel *k, const kfacts *f, const gpu_config *c,
                   int nr, double rho, mem_events *m);
miss_latency model_loaded_miss_latency(const wl_kernel *k,
                                        const kfacts *f,
                                        const gpu_config *c,
                                        const mem_events *m,
                                        double warps_per_sm, int active_sms,
                                        int per_cluster);
double model_hot_slice_cycles(const wl_kernel *k, const kfacts *f,
                               const mem_events *m, double nsub,
                               double wave1);
double model_hot_reply_paced(double t_hot, double replies, double n_in);
double model_cold_atomic_start(const wl_kernel *k, const kfacts *f);
double model_l2_slice_cycles(const wl_kernel *k, const kfacts *f,
                              const mem_events *m, double nsub, double s_st,
                              int n_mem);
double model_icache_exposed(const wl_kernel *k, const kfacts *f, double N,
                             double t_serve, double active);
double model_const_exposed(const wl_kernel *k, double active);
double model_sched_store_window(const gpu_config *c, double wpc);

/* The SM side and how a launch's times combine (model_sm.c). */
double model_cta_latency(const wl_kernel *k, const kfacts *f,
                          const mem_events *m, double lat_miss);
double model_launch_time(const sm_times *st, double p, double *t_busy,
                          double *t_rounds);
double model_front_end_use(const wl_kernel *k, const kfacts *f, int cmax,
                            double t);
double model_front_end_overlap(const gpu_config *c, double p, double u,
                                int latency_bound);
double model_issue_ports_cycles(const wl_kernel *k, const kfacts *f,
                                 double s, double rate, double u);
double model_thin_wave_delay(int cmax, int nr, double t_res, double L,
                              double lam);
double model_two_level_atom_start(const wl_kernel *k, const kfacts *f,
                                   const gpu_config *c, double N);
double model_lone_cta_pool_tail(const gpu_config *c, double wpc,
                                 double t_busy, double L, int nr);

#endif
