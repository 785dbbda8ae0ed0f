/* model: analytical model v2 of a Fermi/GTX480-class GPU in GPGPU-Sim —
 * occupancy as GPGPU-Sim computes it, per-launch MWP-CWP-style throughput
 * bounds plus the unhidden latency of one CTA (fill and drain, barriers),
 * burst queueing at L2 and DRAM, footprint-based cache hit rates, area and
 * power. Every constant and equation is documented with its source in
 * docs/model.md; a comment citing a version ("analytic-2.24") points to its
 * derivation in docs/model-history.md. */
#include "model.h"

#include <math.h>
#include <string.h>


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

/* ---- Area (mm^2, 40 nm) ---- */
#define A_ANCHOR 529.0         /* GF100 die */
#define A_ANCHOR_SMS 16
#define A_ANCHOR_CH 6
#define A_ANCHOR_L2_MB 0.75
#define A_ANCHOR_SRAM_MB (64.0 / 1024.0) /* 16 KB L1 + 48 KB shared per SM */
#define A_RF_MB (128.0 / 1024.0)        /* 32768 x 32-bit registers per SM */
#define A_RF_PER_MB 20.0
#define A_SRAM_PER_MB 16.0     /* banked L1/shared */
#define A_L2_PER_MB 8.0
#define A_CHANNEL 13.0         /* GDDR5 PHY + controller + 2 L2 slice/ROP */
#define A_XBAR_PER_PORT2 0.02
#define A_FIXED 60.0           /* PCIe, host, display, GPC front ends, pads */
#define A_ANCHOR_SCHED 2       /* GF100: two warp schedulers per SM */
#define SCHED_DEFAULT 2.0      /* GPGPU-Sim GTX480 config: -gpgpu_num_sched_per_core 2 */
#define A_SCHED 0.6            /* per extra warp scheduler: instruction buffer, scoreboard, dispatch, operand-collector ports (estimate) */

/* ---- Power (W) and energy per event (J) ---- */
#define P_UNCORE 15.0
#define P_SM_STATIC 3.0        /* GPUWattch idle core 1.59 W + leakage */
#define P_CH_STATIC 3.5
#define P_L2_PER_MB 2.0
#define E_WARP_INSN 800e-12
#define E_THREAD_OP 50e-12
#define E_SFU_OP 50e-12        /* extra per SFU thread op */
#define E_SHARED 1000e-12      /* per warp shared-memory access */
#define E_L1 500e-12           /* per 128-B L1 access */
#define E_L2 300e-12           /* per 32-B L2 sector access */
#define E_FLIT 100e-12
#define E_DRAM_BYTE 160e-12    /* ~20 pJ/bit GDDR5 incl. I/O */

const char *model_version(void)
{
    return "analytic-3.3";
}

/* Per-warp event counts and the launch-independent facts of one kernel. */
typedef struct {
    double wpc;                /* warps per CTA */
    double I, dep;             /* warp insns; mean dependent latency */
    double ld_lines, st_tx, st_sect, atom_tx, mem_pipe;
    double sm_cycles_sp, sm_cycles_sfu;
} kfacts;

/* What one launch of a kernel contributes to the totals. */
typedef struct {
    double t, t_comp, t_mem_lat, t_mem_bw;
    double l1_acc, l1_miss, l2_acc, l2_miss, dram_bytes, flits;
    double occ_weighted, dram_stall;
} launch_out;

typedef struct {
    double cycles, insns, warp_insns, thread_insns, sfu_ops, shared_acc;
    double l1_acc, l1_miss, l2_acc, l2_miss, dram_bytes, flits;
    double occ_weighted, dram_stall;
    double t_comp, t_mem_lat, t_mem_bw;
} totals;

/* Memory behaviour of one warp at a given residency. */
typedef struct {
    double h1, h2, fit2;
    double l1_miss, rd_sect, l2_acc, dram_sect, dram_cmds, inj, ej;
} mem_events;

static double minf(double a, double b) { return a < b ? a : b; }
static double maxf(double a, double b) { return a > b ? a : b; }
static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* GPGPU-Sim's shader_core_config::max_cta: threads padded to whole warps,
 * registers per thread rounded up to a multiple of 4. Ties are reported in
 * GPGPU-Sim's print order: cta_limit, shmem, regs, threads. */
static int occupancy(const wl_kernel *k, const gpu_config *c, int *limit)
{
    int padded = (k->threads_per_cta + WARP - 1) / WARP * WARP;
    int by_threads = SM_MAX_THREADS / padded;
    int by_smem = k->smem_per_cta > 0 ? c->shmem_size / k->smem_per_cta
                                      : 1 << 30;
    int regs = (k->regs_per_thread + 3) & ~3;
    int by_regs = regs > 0 ? SM_REGS / (padded * regs) : 1 << 30;
    int n = SM_MAX_CTAS;
    n = by_smem < n ? by_smem : n;
    n = by_regs < n ? by_regs : n;
    n = by_threads < n ? by_threads : n;
    *limit = n == SM_MAX_CTAS ? LIMIT_CTAS
             : n == by_smem   ? LIMIT_SMEM
             : n == by_regs   ? LIMIT_REGS
                              : LIMIT_THREADS;
    return n;
}

static void kernel_facts(const wl_kernel *k, kfacts *f)
{
    f->wpc = (double)((k->threads_per_cta + WARP - 1) / WARP);
    f->I = k->warp_insns;
    double mem = k->insn_ld_global + k->insn_st_global + k->insn_atomic;
    f->dep = (k->insn_alu * LAT_ALU + k->insn_sfu * LAT_SFU
              + k->insn_shared * LAT_SH + k->insn_const * LAT_CONST
              + (mem + k->insn_sync) * LAT_ALU) / f->I;
    f->ld_lines = k->insn_ld_global * k->ld_tx;
    f->st_tx = k->insn_st_global * k->st_tx;
    f->st_sect = f->st_tx * k->st_sectors;
    f->atom_tx = k->insn_atomic * k->atom_tx;
    f->mem_pipe = f->ld_lines + f->st_tx + f->atom_tx
                  + k->insn_shared * k->shared_conflict
                  + k->insn_const * k->const_conflict;
    f->sm_cycles_sp = k->insn_alu / N_SP;
    f->sm_cycles_sfu = k->insn_sfu * SFU_II;
}

/* How many CTAs' working sets a scheduler keeps live, relative to GTO. */
static double sched_ws(int sched)
{
    return sched == SCHED_LRR ? 1.2 : sched == SCHED_TWO_LEVEL ? 1.1 : 1.0;
}

/* Overlap exponent of the smooth maximum: GTO staggers warps so phases
 * overlap best; LRR keeps warps in lockstep so they overlap least. */
static double sched_overlap(int sched)
{
    return sched == SCHED_LRR ? 3.0 : sched == SCHED_TWO_LEVEL ? 3.5 : 4.0;
}

static double l2_bytes(const gpu_config *c)
{
    return c->l2_sets * L1_LINE * L2_WAYS * SUBPART_PER_CH * c->n_mem;
}

/* Overlap exponent between an SM's time and the GPU-wide bandwidth bounds
 * (analytic-2.13). The bandwidth servers (L2 slices, crossbars, DRAM) are
 * fed by every SM's requests at once, so how one SM's scheduler orders its
 * warps does not change how SM work overlaps a saturated network: under
 * LRR / two-level GPGPU-Sim's memory-bound kernels lose at most 1.1%
 * against GTO (vecadd −0.5 / −1.1%, transpose +0.3 / +2.9%, histogram
 * +0.3 / 0%). GTO's exponent, the one every baseline was measured under. */
#define NET_OVERLAP 4.0

/* r^p for the scheduler overlap exponents (3, 3.5, 4) without pow(). */
static double pow_p(double r, double p)
{
    if (p == 4.0) {
        double r2 = r * r;
        return r2 * r2;
    }
    if (p == 3.0)
        return r * r * r;
    if (p == 3.5)
        return r * r * r * sqrt(r);
    return pow(r, p);
}

static double root_p(double s, double p)
{
    return p == 4.0 ? sqrt(sqrt(s)) : p == 3.0 ? cbrt(s) : pow(s, 1.0 / p);
}

/* Smooth maximum (p-norm) of n non-negative terms. */
static double smax(const double *x, int n, double p)
{
    double m = 0, s = 0;
    for (int i = 0; i < n; i++)
        m = maxf(m, x[i]);
    if (m <= 0)
        return 0;
    double inv = 1 / m;   /* one division, not n */
    for (int i = 0; i < n; i++)
        s += pow_p(x[i] * inv, p);
    return m * root_p(s, p);
}

/* LRU cliff: share of a footprint of fp bytes that an L2 of c2 bytes keeps
 * (exponent 2 reproduces vecadd's read miss rates at 384-1536 KB). */
static double l2_fit(double fp, double c2)
{
    double f = fp > 0 ? minf(1.0, c2 / fp) : 1.0;
    return f * f;
}

/* Footprint that competes with a read of copied-in input for L2 space.
 * GPGPU-Sim's memcpy leaves the input in L2 with the oldest LRU stamps;
 * the CTAs resident in the first wave (share rho of the grid) read their
 * input before any of the launch's writes allocate lines, so only the
 * output written while the rest is still unread (share 1 - rho) can evict
 * it: read input + (1 - rho) of the written output. An input larger than
 * L2 gets the same window (analytic-2.22; before, the whole footprint
 * competed there): the first wave's reads still come before any write,
 * which is what raises vecadd's read hit rate with the SMs resident at
 * once (results.csv: 0.185 at 15 SMs, 0.355 at 60 and 0.347 at 15x4).
 * With read_share 0 (unknown) the whole footprint competes, as before
 * analytic-2.4. */
static double read_footprint(const wl_kernel *k, double rho)
{
    double fp = k->footprint_kb_total * 1024.0, rs = k->read_share;
    if (rs <= 0)
        return fp;
    return fp * (rs + (1 - rs) * (1 - rho));
}

/* DRAM column commands per written-back sector, in units of one sector
 * read's (analytic-2.21). GPGPU-Sim's DRAM moves dram_atom_size =
 * BL·busW·chips per controller = 8·4·2 = 64 B per column command
 * (dram_t::issue_col_command adds dram_atom_size to txbytes and counts one
 * n_rd / n_wr_WB), so a 32-B sector read takes a whole command
 * (DRAM_SECTOR_EFF). An L2 write-back is one request of the evicted line's
 * modified bytes (tag_array::access sets evicted.m_modified_size for the
 * dirty line, the L2 sends one L2_WRBK_ACC of that size), served in
 * ceil(bytes / 64) commands: the dirty sectors of a line share commands.
 * A line holds at least the st_sectors one store transaction wrote.
 * vecadd log: n_wr_bk 3500 commands for 7000 written-back sectors (1750
 * lines of c); n_rd 26726 commands for 26716 read sectors. */
static double writeback_cmds_per_sector(const wl_kernel *k)
{
    double per_line = L1_LINE / SECTOR;
    double s = k->st_sectors >= 1 ? minf(k->st_sectors, per_line) : 1;
    double sectors_per_cmd = 2.0;     /* 64-B atom / 32-B sector */
    return ceil(s / sectors_per_cmd) / s;
}

/* Written-back sectors and DRAM commands per warp, before the share
 * (1 − fit2) that L2 evicts (analytic-3.2). GPGPU-Sim's L2 is write-back
 * (-gpgpu_cache:dl2 S:32:128:8,L:B:m:L:L): a store that finds its sector
 * already dirty in L2 merges there, and a line is written back once, when
 * evicted, with its modified bytes (writeback_cmds_per_sector). Where the
 * written footprint is known (footprint_kb_total · (1 − read_share): the
 * L2 GLOBAL_ACC_W line misses × 128 B of the baseline log), the lines
 * written are that footprint's, each dirty in min(4, stored sectors per
 * line) sectors; otherwise every stored sector counts once (as before).
 * transpose strat-a00 (4 channels, 256-KB L2): 32768 stored sectors
 * (GLOBAL_ACC_W) on 2522 written lines, n_wr_bk 2060 commands over the
 * four channels (about 1030 whole lines of two), where counting every
 * stored sector gave 24576. */
static double writeback_cmds(const wl_kernel *k, const kfacts *f,
                             double *sectors)
{
    double rs = k->read_share, W = (double)k->grid_ctas * f->wpc;
    double per_line = L1_LINE / SECTOR;
    double lines = rs > 0 && rs < 1 && W > 0
                   ? k->footprint_kb_total * 1024.0 * (1 - rs) / L1_LINE / W
                   : 0;
    if (lines <= 0 || lines * per_line >= f->st_sect) {
        *sectors = f->st_sect;
        return f->st_sect * writeback_cmds_per_sector(k);
    }
    double dirty = minf(per_line, f->st_sect / lines);
    *sectors = lines * dirty;
    return lines * ceil(dirty / 2.0);   /* 64-B atoms of the dirty bytes */
}

/* Cache hit rates and per-warp memory events with nr CTAs resident per SM
 * and a share rho of the grid resident in the first wave. */
static void mem_of(const wl_kernel *k, const kfacts *f, const gpu_config *c,
                   int nr, double rho, mem_events *m)
{
    double c1 = c->l1_sets * L1_LINE * L1_WAYS;
    double ws1 = k->footprint_kb_per_cta * 1024.0 * nr * sched_ws(c->scheduler);
    m->h1 = k->l1_reuse * (ws1 > c1 ? c1 / ws1 : 1.0);
    m->fit2 = l2_fit(k->footprint_kb_total * 1024.0, l2_bytes(c));
    m->h2 = k->l2_reuse * l2_fit(read_footprint(k, rho), l2_bytes(c));
    m->l1_miss = f->ld_lines * (1 - m->h1);
    m->rd_sect = m->l1_miss * L1_LINE / SECTOR;
    m->l2_acc = m->rd_sect + f->st_sect + f->atom_tx;
    double wb_sect, wb_cmds = writeback_cmds(k, f, &wb_sect);
    m->dram_sect = m->rd_sect * (1 - m->h2) + wb_sect * (1 - m->fit2);
    m->dram_cmds = m->rd_sect * (1 - m->h2) + wb_cmds * (1 - m->fit2);
    /* Interconnect units as GPGPU-Sim moves them (traffic_breakdown of the
     * baseline logs): a read request is one 8-B packet, a store carries its
     * sectors, an atomic one 40-B packet; every 32-B sector read comes back
     * as its own 40-B packet, every stored sector is acknowledged by one
     * 8-B packet, every atomic transaction by one 40-B packet. A cluster
     * injects one flit and accepts one packet per cycle. */
    m->inj = m->l1_miss + f->st_tx * ceil((k->st_sectors * SECTOR + PKT_HDR)
                                          / FLIT) + f->atom_tx;
    m->ej = m->rd_sect + f->st_sect + f->atom_tx;
}

/* Share of a burst's drain through the L2 slices and the cluster's ejection
 * port that the wait of a round trip sees. Independent warps proceed as
 * their own reply arrives: the mean request waits half the drain. A CTA
 * whose warps meet at a barrier after their loads proceeds only when its
 * last reply is in; the slices and the cluster's response FIFO serve the
 * burst in arrival order (simt_core_cluster::icnt_cycle pops one packet of
 * m_response_fifo per cycle, whichever core it is for), so each CTA's
 * replies are spread over the whole drain and the last arrives near its
 * end. The DRAM queue keeps the half: FR-FCFS (-gpgpu_dram_scheduler 1)
 * serves a CTA's contiguous lines, which share a row, together. */
static double drain_share(const wl_kernel *k)
{
    return k->insn_sync > 0 ? 1.0 : 0.5;
}

/* Loaded miss latency, split where the DRAM's own drain is: `total` is the
 * mean loaded latency of an L1 read miss (what a CTA's chain waits), `dram_q`
 * the part of it that is the burst's wait in the DRAM queue. */
typedef struct {
    double total, dram_q;
} miss_latency;

/* Burst queueing: when the resident warps of every active SM issue the
 * requests of one round trip together, a request waits a share of the time
 * (drain_share: half, or the whole drain behind a barrier) the busiest
 * server needs to drain the burst. The replies of a burst pass
 * two servers in series: the L2 slices (one sector per cycle each, the
 * bursts of all active SMs spread over 2·n_mem slices) and the ejection
 * port of the SM's cluster (one packet per cycle, shared by the cluster's
 * active cores); a request waits in both, so the drain times add (the
 * sum beat the maximum and a 2-norm on the reference rows). Returns the
 * mean loaded latency of an L1 read miss. */
static miss_latency loaded_miss_latency(const wl_kernel *k,
                                        const kfacts *f,
                                        const gpu_config *c,
                                        const mem_events *m,
                                        double warps_per_sm, int active_sms,
                                        int per_cluster)
{
    double waits = k->mem_waits > 1 ? k->mem_waits : 1;
    double req = m->l1_miss + f->st_tx;          /* requests per warp */
    miss_latency r = {LAT_L2 + (1 - m->h2) * LAT_DRAM, 0};
    if (req <= 0)
        return r;
    double per_sm = minf(MSHR, warps_per_sm * req / waits);
    double pk = (m->rd_sect + f->st_sect) / req; /* reply packets/request */
    double burst = active_sms * per_sm;          /* requests */
    double nsub = SUBPART_PER_CH * c->n_mem;
    double d_sl = burst * pk / nsub;
    double d_port = per_cluster * per_sm * pk;
    double q_l2 = drain_share(k) * (d_sl + d_port);
    double dram_bpc = c->n_mem * DRAM_BYTES_PER_CLK * DRAM_HZ / CORE_HZ
                      * DRAM_SCHED_EFF * DRAM_SECTOR_EFF;
    double q_dram = 0.5 * burst * (1 - m->h2) * L1_LINE / dram_bpc;
    r.dram_q = (1 - m->h2) * q_dram;
    r.total = LAT_L2 + q_l2 + (1 - m->h2) * LAT_DRAM + r.dram_q;
    return r;
}

/* One CTA's latency: a warp's dependent chain, its round trips to memory
 * (L1 read misses at latency lat_miss), and at every barrier the release
 * plus the skew of the CTA's other warps through the MEM pipe (MWP-CWP
 * Synch_cost with the departure delay of one warp's segment). */
static double cta_latency(const wl_kernel *k, const kfacts *f,
                          const mem_events *m, double lat_miss)
{
    double lat_ld = m->h1 * LAT_L1 + (1 - m->h1) * lat_miss;
    double nw = k->insn_ld_global + k->insn_atomic;
    double lat_wait = nw > 0 ? (k->insn_ld_global * lat_ld
                                + k->insn_atomic * (lat_miss + LAT_ATOM)) / nw
                             : lat_miss;
    double seg = f->mem_pipe / (k->insn_sync + 1);
    return f->I * f->dep / k->ilp + k->mem_waits * lat_wait
           + k->insn_sync * (LAT_SYNC + (f->wpc - 1) * seg);
}

/* Latency-bound rounds after the first on the busiest SM (cmax CTAs, nr
 * resident), for a CTA latency L and a full residency's busy time
 * t_res = nr·t_busy (issue, SP, SFU, MEM pipe; since analytic-2.11 not the
 * misses-in-flight term, which is latency, not work that keeps the SM
 * busy). When L > t_res the SM idles waiting on the CTAs'
 * latency chains: co-resident CTAs started together finish together and
 * their replacements start together, so the rounds are whole waves
 * (reduction: cycles = 3136 + 1310·waves at 8/15/30/60 SMs within 1%).
 * When the SM is throughput-bound its issue order staggers the CTAs'
 * completions and a partial wave costs its share (vecadd, sgemm: cycles
 * linear in cmax) -- under GTO and two_level_active only (whole_waves).
 * analytic-2.26: lrr_scheduler::order_warps (order_lrr, shader.cc) starts
 * every cycle after the last issued warp, so all resident warps advance
 * one instruction each in turn: co-resident CTAs finish together whatever
 * the SM's busy share, and their replacements start together. The toy
 * tests/tools/sm_issue_sim.py (dct8x8, 10 CTAs, 4 resident, 2 schedulers)
 * finishes LRR's waves within 55 / 147 / 34 cycles of each other (GTO's
 * second wave spread over 1795, two-level's over 1019: its 6-warp pool
 * serves the CTAs in turn, so their completions stagger as under GTO). */
static double latency_rounds(int cmax, int nr, double t_res, double L,
                             int whole_waves)
{
    if (whole_waves || L > t_res)
        return (double)((cmax + nr - 1) / nr - 1) * L;
    return ((double)cmax / nr - 1) * L;
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
static double xbar_requests_per_cycle(double d, double n_in)
{
    return n_in + d - sqrt(n_in * n_in + d * d);
}

/* L2 sub-partition of a 256-B chunk under the GTX480 mapping
 * (-gpgpu_mem_addr_mapping dramid@8, -gpgpu_n_sub_partition_per_mchannel 2,
 * sub_partition_id_mask 0x100 of the logs): channel = chunk mod n_mem, the
 * sub-partition bit = bit 0 of chunk / n_mem. A bijection of chunk mod
 * 2·n_mem onto the 2·n_mem slices. */
static int slice_of_chunk(long chunk, int n_mem)
{
    return (int)(2 * (chunk % n_mem) + (chunk / n_mem) % 2);
}

/* Distinct L2 slices hit by the stores of CTAs spread over `groups`
 * consecutive chunk offsets: each warp writes st_tx transactions st_stride
 * bytes apart; CTA groups step one 256-B chunk through the stride. The
 * counts for `lo` and lo + 1 groups in one pass (the set only grows with
 * the groups). */
static void slices_hit(double stride, int tx, int lo, int n_mem,
                       int *at_lo, int *at_hi)
{
    unsigned long long seen = 0;
    int count = 0;
    *at_lo = 0;
    for (int o = 0; o <= lo; o++) {
        if (o == lo)
            *at_lo = count;
        for (int j = 0; j < tx; j++) {
            long chunk = (long)((j * stride) / 256.0) + o;
            int sl = slice_of_chunk(chunk, n_mem);
            if (!(seen >> sl & 1ULL)) {
                seen |= 1ULL << sl;
                count++;
            }
        }
    }
    *at_hi = count;
}

/* Whether the descriptor's store stride lets the model place the stores on
 * slices (partition camping, analytic-2.6); otherwise they spread
 * uniformly. */
static int stores_placed(const wl_kernel *k, int n_mem)
{
    return k->st_stride >= 256.0 && k->insn_st_global > 0
           && SUBPART_PER_CH * n_mem <= 64 && (int)ceil(k->st_tx) >= 2;
}

/* Effective number of L2 slices a launch's stores spread over while `window`
 * consecutive CTAs store together (partition camping). transpose: a warp's
 * 16 stores 1 KB apart are 4 chunks apart, so they reach 2 / 3 / 4 / 6 of
 * the 8 / 12 / 16 / 24 slices at n_mem 4 / 6 / 8 / 12, and only CTAs of
 * another blockIdx.y / 4 (st_group 64 CTAs later) shift the set by one
 * chunk. A fractional number of groups interpolates the slice count.
 * Contiguous stores (st_stride under a 256-B chunk) or an unknown stride
 * (0, every from-log descriptor) spread uniformly. */
double model_store_slices(const wl_kernel *k, int n_mem, double window)
{
    double nsub = SUBPART_PER_CH * n_mem;
    int tx = (int)ceil(k->st_tx);
    if (!stores_placed(k, n_mem))
        return nsub;
    int offsets = (int)ceil(k->st_stride / 256.0);
    double g = k->st_group > 0
               ? minf(offsets, 1 + maxf(0, window - 1) / k->st_group)
               : offsets;
    int lo = (int)floor(g), at_lo, at_hi;
    slices_hit(k->st_stride, tx, lo, n_mem, &at_lo, &at_hi);
    double a = at_lo, b = lo < offsets ? at_hi : at_lo;
    return a + (b - a) * (g - lo);
}

/* Cycles per warp of the L2 slice that holds an atomic kernel's hot data:
 * a share atom_hot of the atomic transactions, one slice cycle each, plus
 * the slice's share of every other L2 access (input loads, spread over all
 * 2·n_mem slices by the address mapping). histogram log: the hot bank's
 * 14602 accesses = 14419 atomics + 183 of the 2198 other accesses over 12
 * slices; with 4 / 12 channels the loads' share is 1.5x / 0.5x that.
 * Not every load lies inside the slice's busy time (analytic-2.24): the
 * first wave's warps (share wave1 of all warps) issue the loads before
 * their first atomic while no atomic has reached the slice yet (the
 * launch's start, counted in the fill), a share 1/insn_atomic of a warp's
 * loads when they interleave with its atomics (histogram: load, dependent
 * atomic, twice). */
static double hot_slice_cycles(const wl_kernel *k, const kfacts *f,
                               const mem_events *m, double nsub,
                               double wave1)
{
    if (f->atom_tx <= 0)
        return 0;
    double before = wave1 * minf(1.0, 1.0 / k->insn_atomic);
    return f->atom_tx * k->atom_hot * ATOM_CYCLES
           + (m->l2_acc - f->atom_tx) * (1 - before) / nsub;
}

/* The hot slice's L2 produces a reply per cycle, and its one reply input
 * into the reply crossbar sends at most one per cycle too: one VC per
 * port (config_fermi_islip.icnt num_vcs 1) and a 1-flit packet holds the
 * destination cluster's output VC for two internal steps (VC allocation,
 * then switch traversal; internal_speedup 2). Whenever another slice's
 * reply holds the VC of the cluster the hot reply is for, the hot input
 * loses one step (half a cycle); that happens for a share of its replies
 * equal to the other slices' replies per step at that output,
 * other / (2·n_in). There is no slack to make the step up, so the slice
 * runs at 1 / (1 + other / (4·n_in)) replies per cycle. histogram
 * baseline: other = 2.0 replies/cycle at 15 clusters gives a deficit of
 * 491 replies; gpu_stall_icnt2sh (cycles the L2-to-icnt head finds the
 * intersim2 injection queue full, icnt_has_buffer) counts it less what
 * the injection queue (9 flits) and the router's VC buffer (64) hold:
 * 418, the log's 354. More clusters spread the other replies over more
 * outputs. The launch ends when the last reply reaches its cluster, not
 * when the L2 serves the last atomic (analytic-2.24): the replies queued
 * in those buffers and the L2-to-icnt queue (64) still leave at the
 * paced rate, so the buffers delay the L2's stalls but hide none of the
 * deficit (analytic-2.19 subtracted the 137). */
static double hot_reply_paced(double t_hot, double replies, double n_in)
{
    if (t_hot <= 0 || n_in <= 0)
        return t_hot;
    double other = maxf(0.0, replies - t_hot) / t_hot;
    return t_hot * (1 + REPLY_VC_STEP * other / n_in);
}

/* The hot slice's first atomics find their lines cold when the atomic
 * target was not copied in (cudaMemset, not preloaded by
 * -gpgpu_perf_sim_memcpy): each sector misses once, the next accesses merge
 * into its MSHR entry (-gpgpu_cache:dl2 ...,A:256:4: at most 4), and the
 * next one fails its reservation and holds the slice's queue head until
 * the fill (memory_sub_partition::cache_cycle retries it every cycle): the
 * slice loses one DRAM round trip (LAT_DRAM) at the start of its busy
 * time. histogram log: 8 misses on each bin bank, 160 reservation fails
 * on the hot one. The descriptor says a target is cold when part of the
 * footprint is not copied in (0 < read_share < 1; the atomic target is
 * taken to be that part: histogram's 1 KB of bins of 65 KB). Only the
 * first of repeated launches finds it cold: the cost is spread over them. */
static double cold_atomic_start(const wl_kernel *k, const kfacts *f)
{
    if (f->atom_tx <= 0 || k->read_share <= 0 || k->read_share >= 1)
        return 0;
    return LAT_DRAM / (k->launches > 1 ? k->launches : 1);
}

/* Busiest L2 slice's cycles per warp. GPGPU-Sim's slice takes one request
 * per cycle (memory_sub_partition::cache_cycle, one tag access; a sector
 * read or a <= 32-B write hit holds the 32-B data port one cycle, a
 * lazy-fetch write miss none). When the stores can be placed
 * (analytic-2.12), they load the s_st slices they camp on at that one
 * cycle each, the other sectors spread over all nsub slices; the
 * baseline log's partiton_level_parallism_util 3.64 is those camped
 * slices. When they cannot (no stride: every from-log descriptor, and
 * contiguous stores), the spread is uniform and a write request costs
 * L2_WR_CYCLES, the estimate that stands in for the camping the model
 * cannot place (it was read off transpose's log under a uniform
 * spread). */
static double l2_slice_cycles(const wl_kernel *k, const kfacts *f,
                              const mem_events *m, double nsub, double s_st,
                              int n_mem)
{
    if (stores_placed(k, n_mem))
        return (m->l2_acc - f->st_sect) / nsub + f->st_sect / s_st;
    return (m->l2_acc + f->st_tx * (L2_WR_CYCLES - 1)) / nsub;
}

/* Time of the busiest SM's c CTAs as a pipeline (terms of per_cta: issue
 * port, SP, SFU, MEM pipe, MSHR-limited misses). The fill and drain term
 * pays the last CTA's latency, so each throughput term drops the share of
 * it that lies inside that latency:
 * - issue port, SP, MEM pipe, misses in flight: the last CTA's warps issue
 *   and wait while their chains (memory round trips included) run,
 *   T = L + (c − 1)·t_cta — one CTA's share, when the drain is long enough
 *   to hold it (analytic-2.8). The SP term cannot exceed the issue term
 *   (two SP pipes, two dispatch ports), so it follows the port's rule.
 * - the SFU (one unit, initiation interval 8, far slower than the port)
 *   saturates on its own and serves every CTA's operations to the end;
 *   only what it serves during the last warps' chains is hidden. With r
 *   one warp's SFU work and `chain` one warp's dependent chain, k =
 *   chain / r warps keep it busy; GTO runs them oldest first, so they
 *   finish staggered by chain / k and the unit is busy k, k − 1, … 1
 *   k-ths of the last warp's chain: it serves chain·(k + 1)/(2k) =
 *   (chain + r)/2 inside it (analytic-2.9). sfu log: 21701 cycles for
 *   20480 cycles of SFU work on the busiest SM, 1221 more; the model: the
 *   rest of the last warp's chain (2267 − 1390 = 877) plus the first
 *   load's round trip. */
static double pipelined_sm_time(const double *per_cta, int cmax,
                                double fill_drain, double chain, double wpc,
                                double p)
{
    double x[5];
    for (int i = 0; i < 5; i++) {
        double hidden = i == 2 ? 0.5 * (chain + per_cta[i] / wpc)
                               : fill_drain;
        x[i] = cmax * per_cta[i] - minf(per_cta[i], hidden);
    }
    return smax(x, 5, p);
}

/* Exposed cold-instruction-cache time of a launch. A warp that reaches
 * the end of line j waits LAT_L2 + LAT_DRAM for line j + 1 (il1 "S:2:32,4",
 * no prefetch; the code is not in L2); meanwhile the other N − 1 resident
 * warps issue what is left of their 1/code_lines of the code at the
 * continuously serving unit's pace (issue port or SFU: t_serve per CTA).
 * Exposed share per line = (fetch − cover) / fetch; lines 1 .. code_lines − 1
 * (line 0 at launch is in the fitted fill and drain). The MEM pipe is not
 * a cover: its work comes in bursts that every warp reaches together. */
static double icache_exposed(const wl_kernel *k, const kfacts *f, double N,
                             double t_serve, double active)
{
    if (k->code_lines < 1)
        return 0;
    /* analytic-3.0: every active SM fetches each line at about the same
     * time (same code, same start) from the one L2 slice that holds it;
     * the slice returns INST_SECTORS sector replies per request, one per
     * cycle, so the mean request waits half that drain (the queue of
     * const_exposed). Line 0's round trip is in the fill; its queue is
     * not. */
    double queue = 0.5 * active * INST_SECTORS;
    double fetch = LAT_L2 + LAT_DRAM + queue;
    double cover = (N - 1) * (t_serve / f->wpc) / k->code_lines;
    return queue + (k->code_lines - 1) * maxf(0.0, fetch - cover);
}

/* Exposed cold-constant-cache time of a launch. GPGPU-Sim's constant
 * cache (N:64:64:2, 64-B lines, S:2:32) has 2 MSHR entries: a warp's
 * access to a third missing line fails its reservation and holds the
 * single MEM pipe (ldst_unit::constant_cycle, c_mem resource_stall) until
 * a fill returns, and every warp then waits for the next lines' fill. So
 * the lines after the first come CONST_MSHR per round, and no other warp
 * covers a round: all reach the same constant loads after the same
 * barrier, and the MEM pipe they would use is blocked. A round is an L2
 * miss (the logs: every const sector misses L2 once, the other SMs merge
 * or retry), LAT_L2 + LAT_DRAM, plus the queue at the slice that holds
 * them (a 256-B chunk is one slice; dct8x8's Cm is one chunk): every
 * active SM asks for the same CONST_MSHR lines at once, CONST_SECTORS
 * slice cycles each, and the mean request waits half that drain (as in loaded_miss_latency). Line 0 (the kernel parameters,
 * every kernel's first access) is in the fitted fill and drain. dct8x8:
 * 4 lines of Cm after the parameter line, 2 rounds; the log's
 * MSHR_ENRTY_FAIL 4165 / 15 SMs = 278 blocked cycles is the first. */
static double const_exposed(const wl_kernel *k, double active)
{
    if (k->const_lines <= 1)
        return 0;
    double rounds = ceil((k->const_lines - 1) / CONST_MSHR);
    double queue = 0.5 * active * CONST_MSHR * CONST_SECTORS;
    return rounds * (LAT_L2 + LAT_DRAM + queue);
}

/* How many CTAs' stores one cluster's head interleaves, relative to GTO
 * at the two schedulers the camping window was measured at.
 * analytic-2.16: GPGPU-Sim gives scheduler i the warps with
 * warp_id % num_sched == i, so a CTA's warps are spread over all
 * schedulers; each scheduler issues its oldest ready warp and falls
 * through to a younger CTA's warps when its own share of the oldest CTA
 * (wpc/s warps) is stalled. With more schedulers each holds fewer of the
 * oldest CTA's warps and reaches the next CTAs' stores sooner, so more
 * CTAs (and store offsets) reach the crossbar together; with one scheduler
 * the oldest CTA's warps monopolise the only issue slot. transpose's
 * cycles against two schedulers: GPGPU-Sim +3.6% at one, -2.8% at four;
 * sqrt(s/2) gives +3.2 / -3.5%.
 * analytic-2.17: two_level_active keeps TWO_LEVEL_POOL warps per
 * scheduler active and demotes a warp at every global load and barrier,
 * so its pool always spans the oldest CTA's share at two schedulers
 * (wpc/2 warps) and the next CTA's, POOL/(wpc/2) CTAs' shares (transpose
 * 1.5), whatever the scheduler count: GPGPU-Sim's transpose is 2.9%
 * faster under two-level than GTO, the factor gives +3.8%. */
static double sched_store_window(const gpu_config *c, double wpc)
{
    double w = sqrt(c->num_sched_per_core / SCHED_DEFAULT);
    if (c->scheduler == SCHED_TWO_LEVEL)
        w *= maxf(1.0, TWO_LEVEL_POOL * SCHED_DEFAULT / wpc);
    return w;
}

/* The hot atomic slice's utilisation over a launch (analytic-2.29): the
 * machine-repairman model (M/M/1//N; Lazowska et al., Quantitative System
 * Performance, ch. 6 and 7). The slice is one FIFO server of a closed
 * network whose n customers are the resident warps GPU-wide; each cycles
 * between the slice (demand D = t_atom per warp) and everything else (think
 * time Z: the launch's time without the slice, t_rest, spread over the
 * warps, Z = t_rest·n / warps), so r = Z/D = n·t_rest/t_atom. The server
 * is idle with probability Erlang-B(n, r) and the launch takes
 * t_atom / (1 − B). One customer: t_atom + t_rest (nothing overlaps);
 * many past the knee n ≫ r + 1: B vanishes faster than exponentially and
 * the slice's busy time is the launch's, whatever the SM side does.
 * Monotone in both times (MVA throughput falls with every demand), where
 * a p-norm with a population-dependent exponent was not (its sharpness
 * grew with the slice's demand: more demand, less time, found by
 * test_model_props). histogram: n 720, r ≈ 285 at the baseline, B ≈
 * 10⁻¹⁰⁰: exactly the hard bound; the exponent-4 norm of 2.28 added
 * 0.5% (15 clusters) to 1.6% (8) and let SM-side changes (schedulers,
 * which GPGPU-Sim has within its own ±40-cycle noise) move the launch.
 * Erlang-B by its stable recursion 1/B(k) = 1 + k/(r·B(k−1)), stopped
 * once 1 − B is 1 in double precision. */
static double hot_slice_utilisation(double n, double r)
{
    int customers = n < 1 ? 1 : (int)n;
    if (r <= 0)
        return 1;
    /* Far past the knee, skip the recursion: B ≤ 2·Poisson(r) at n when
     * n ≥ r + 1 (the median is below r + 1), with ln n! from below by
     * Stirling (Robbins), so the bound stays a bound. */
    double m = customers;
    if (m >= r + 1
        && M_LN2 + m * log(r) - r - (m * log(m) - m + 0.5 * log(2 * M_PI * m))
           < -40)
        return 1;
    double inv_b = 1, inv_r = 1 / r;   /* 1/B(0) */
    for (int k = 1; k <= customers && inv_b < 1e17; k++)
        inv_b = 1 + k * inv_r * inv_b;
    return 1 - 1 / inv_b;
}

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

static double launch_time(const sm_times *st, double p, double *t_busy,
                          double *t_rounds)
{
    /* Work that keeps the SM busy per CTA: issue port, SP, SFU, MEM pipe.
     * The misses-in-flight term is a latency (Little's law on lat_miss),
     * not busy time, so it does not decide whether the SM idles waiting on
     * its CTAs' latency chains (analytic-2.11). */
    *t_busy = smax(st->per_cta, 4, p);
    /* Pipeline: the fill and drain term pays the last CTA's latency; what
     * of its throughput work lies inside it is not counted twice. */
    double t_sm = pipelined_sm_time(st->per_cta, st->cmax, st->fill_drain,
                                    st->chain, st->wpc, p);
    /* Whether the SM idles waiting on its CTAs' chains is set by the
     * instruction supply (one fetch per cycle, two instructions), not by
     * how many the issue stage could take (analytic-2.27). */
    double t_switch = st->per_cta_switch ? smax(st->per_cta_switch, 4, p)
                                         : *t_busy;
    *t_rounds = latency_rounds(st->cmax, st->nr, st->nr * t_switch, st->L,
                               st->whole_waves);
    /* The SM side (throughput pipeline, latency-bound rounds) overlaps as
     * the scheduler staggers warps (p); the result meets the GPU-wide
     * bandwidth bound at the network's own exponent (analytic-2.13). */
    double sm_side[2] = {t_sm, *t_rounds};
    double outer[2] = {smax(sm_side, 2, p), st->t_bw};
    double t = smax(outer, 2, NET_OVERLAP);
    if (st->t_atom > 0)
        t = st->t_atom / hot_slice_utilisation(st->pop, st->pop * t
                                                            / st->t_atom);
    t += st->fill_drain;
    t += st->icache;   /* added one by one, as they always were: */
    t += st->cconst;   /* near-tied rows must not move in the last bit */
    t += st->thin_wave;  /* 0 but above two schedulers: adds exactly 0 */
    return t;
}

/* Fetches per warp: the log's L1I accesses per warp, else the front end's
 * best case of 2 instructions per fetch. */
static double fetches_per_warp(const wl_kernel *k, const kfacts *f)
{
    return k->fetches > 0 ? k->fetches : f->I / 2;
}

/* The front end's utilisation over a launch of t cycles: fetches per warp
 * × the busiest SM's warps / t (analytic-2.23). */
static double front_end_use(const wl_kernel *k, const kfacts *f, int cmax,
                            double t)
{
    return clamp01(cmax * f->wpc * fetches_per_warp(k, f) / t);
}

/* GTO's overlap exponent above two schedulers per core (analytic-2.23).
 * GPGPU-Sim gives scheduler i the warps with warp_id % num_sched == i, so
 * with s schedulers each holds wpc/s warps of the oldest CTA, finds them
 * stalled sooner and falls through to younger CTAs: the CTAs run more in
 * step and GTO keeps 2/s of the stagger it has at two schedulers; the
 * exponent moves toward LRR's (no stagger) by the lost share 1 − 2/s.
 * The extra issue slots can absorb the lockstep's bursts only with
 * instructions in the ibuffers, and the SM fetches for one warp per cycle
 * (shader_core_ctx::fetch): the burst finds the front end busy with
 * probability u, its utilisation (fetches per warp × the busiest SM's
 * warps over the launch's cycles), and then loses the stagger; with
 * probability 1 − u the front end refills it and the extra slots recover
 * the loss. Baseline logs: reduction u 0.66 (1.71 instructions per
 * fetch; GPGPU-Sim −3.6% at four schedulers), sgemm 0.47, dct8x8 0.45,
 * the others ≤ 0.31.
 * analytic-2.27: where the loss shows depends on the SM's regime. A
 * latency-bound SM (L > t_res: whole waves, latency_rounds) idles while
 * its lockstepped warps all wait on loads together (toy: reduction's
 * no-issue cycles 430 → 682), and extra issue slots cannot recover that
 * (nothing is ready to issue): the share lost is u. A throughput-bound SM
 * refills the stagger from its own work: its extra slots take the bursts
 * (issue_ports_cycles, with weight 1 − u) and the net loss 2u − 1 shows
 * only where a thin last wave starts from the first wave's completions
 * (thin_wave_delay); no exponent shift there. */
static double front_end_overlap(const gpu_config *c, double p, double u,
                                int latency_bound)
{
    double s = c->num_sched_per_core;
    if (c->scheduler != SCHED_GTO || s <= SCHED_DEFAULT || !latency_bound
        || u <= 0)
        return p;
    return p - u * (p - sched_overlap(SCHED_LRR)) * (1 - SCHED_DEFAULT / s);
}

/* Issue cycles per warp above two schedulers per core (analytic-2.27).
 * Each scheduler issues at most one instruction per cycle
 * (-gpgpu_max_insn_issue_per_warp 1) into the shared pipeline registers
 * (-gpgpu_pipeline_widths: ID_OC_SP 2, ID_OC_SFU 1, ID_OC_MEM 1; barriers
 * and branches go to SP; shader.cc), so two schedulers issue at most 2 per
 * cycle and four up to 2 SP + 1 MEM + 1 SFU: the issue stage's own bound is
 * the busiest of its ports. The front end still fetches for one warp per
 * cycle, ≤ 2 instructions (-gpgpu_inst_fetch_throughput default 1,
 * shader_core_ctx::fetch), so issue beyond 2 per cycle comes only out of
 * ibuffers filled while the front end had slack: with probability u (its
 * utilisation) a burst finds it busy and issue is held to the fetches. The
 * result replaces the two-slot issue term only where it is smaller. Toy
 * (tests/tools/sm_issue_sim.py, warm caches): dct8x8 +3.7% IPC at four
 * schedulers, 9% of its cycles issue 3 (one MEM beside two SP). */
static double issue_ports_cycles(const wl_kernel *k, const kfacts *f,
                                 double s, double rate, double u)
{
    double i_mem = k->insn_ld_global + k->insn_st_global + k->insn_atomic
                   + k->insn_shared + k->insn_const;
    double i_sp = f->I - i_mem - k->insn_sfu;
    double ports = maxf(maxf(f->I / (s * rate), i_sp / ID_OC_SP),
                        maxf(i_mem / ID_OC_MEM, k->insn_sfu / ID_OC_SFU));
    double fetched = maxf(ports, fetches_per_warp(k, f));
    return f->wpc * ((1 - u) * ports + u * fetched);
}

/* A thin last wave's delayed start above two schedulers per core under GTO
 * (analytic-2.27). A throughput-bound SM's first wave starts together and
 * GTO staggers its completions between a lone CTA's latency L (the oldest
 * CTA, served first) and the wave's busy time t_res (the youngest), evenly
 * over its nr CTAs. With the stagger share lam lost (front_end_overlap:
 * lockstep at s schedulers, net of the extra slots' recovery) the early
 * completions move toward t_res. A last wave of r < nr CTAs that starts
 * from the first wave's completions (nr < cmax < 2·nr) starts at the r-th
 * of them, lam·(t_res − L)·(nr − r)/(nr − 1) later, and runs with the SM
 * otherwise idle, so the delay is the launch's. With more waves the
 * middle waves' own work restores the stagger before the last one starts.
 * Toy: sgemm (5 CTAs, 4 resident) first completion 11767 → 13030 cycles
 * at four schedulers and the lone fifth CTA later with it; dct8x8 (10 CTAs)
 * idle only +143. */
static double thin_wave_delay(int cmax, int nr, double t_res, double L,
                              double lam)
{
    if (nr < 2 || cmax <= nr || cmax >= 2 * nr || lam <= 0 || t_res <= L)
        return 0;
    int r = cmax - nr;
    return lam * (t_res - L) * (double)(nr - r) / (nr - 1);
}

/* two_level_active's first pending rounds in front of the hot atomic slice
 * (analytic-2.25). order_warps (shader.cc) demotes a warp whose next
 * instruction reads a long-op register (a global or parameter load in
 * flight) to the back of the pending FIFO and refills the pool from the
 * FIFO's front, whatever the front warp's state. At the launch every warp
 * of a scheduler reaches each long-op wait in step, so a warp whose load
 * has returned gets back into the pool only after the other N/s - 1 warps
 * have each been through it with their own run of instructions up to
 * their own wait, one instruction per cycle; under GTO the oldest warp
 * goes straight on. The atomic (its address is the loaded value) waits
 * behind two such rounds: the parameter load's (hidden by the cold
 * parameter line's L2 + DRAM round trip) and the global load's (hidden by
 * L1 queue + L2 hit). What the latencies do not hide is time the hot
 * slice, the launch's bottleneck, starts later. Run = I over the warp's
 * long-op waits + 1 (global loads, atomics, the parameter load). Toy of
 * the SM front end, LD/ST unit and request crossbar
 * (tests/tools/hist_gpu_sim.py): at one scheduler the first parameter use
 * comes 26 cycles and the first atomic ~350 cycles later than under GTO,
 * at two schedulers 16. */
static double two_level_atom_start(const wl_kernel *k, const kfacts *f,
                                   const gpu_config *c, double N)
{
    if (c->scheduler != SCHED_TWO_LEVEL || f->atom_tx <= 0)
        return 0;
    double waits = k->insn_ld_global + k->insn_atomic
                   + (k->insn_const > 0 ? 1 : 0);
    double run = f->I / (waits + 1);
    double round = (N / c->num_sched_per_core - 1) * run;
    double param = k->insn_const > 0
                   ? maxf(0.0, round - (LAT_L2 + LAT_DRAM)) : 0;
    return param + maxf(0.0, round - (LAT_L1 + LAT_L2));
}

/* two_level_active with a lone CTA whose warps overflow the pool
 * (analytic-3.1). order_warps (two_level_active_scheduler, shader.cc)
 * keeps TWO_LEVEL_POOL warps per scheduler active and promotes a pending
 * warp only when an active one is demoted (a long-op operand, a barrier,
 * or done). With one CTA on the SM (nr = 1) and wpc > POOL·s, the other
 * wpc − POOL·s warps run each stretch after the pool's: at every barrier
 * the pool waits for them, with no other CTA to fill the SM, and a
 * stretch with neither waits until the pool's warps finish. Each part
 * takes the larger of its busy time (b per warp) and one warp's latency L:
 * extra = max(P·b, L) + max(E·b, L) − max(wpc·b, L). strat-a23 against
 * strat-a22 (60x4, one scheduler, one 8-warp CTA per SM; two-level vs
 * LRR): sfu +1240 cycles (W0_Idle per SM 2385 -> 3309, the SFU never
 * stalled), sgemm +4671, dct8x8 +780, transpose +490, vecadd +584. */
static double lone_cta_pool_tail(const gpu_config *c, double wpc,
                                 double t_busy, double L, int nr)
{
    double pool = TWO_LEVEL_POOL * c->num_sched_per_core;
    if (c->scheduler != SCHED_TWO_LEVEL || nr != 1 || wpc <= pool)
        return 0;
    double b = t_busy / wpc, e = wpc - pool;
    return maxf(pool * b, L) + maxf(e * b, L) - maxf(wpc * b, L);
}

/* One launch: G CTAs over S SMs, n resident per SM at most. The busiest SM
 * runs cmax CTAs, nr at a time. Time = smooth max of the throughput bounds
 * over the launch plus one CTA's latency (fill and drain are not hidden). */
static void launch(const wl_kernel *k, const kfacts *f, const gpu_config *c,
                   int n, launch_out *o)
{
    int S = c->n_clusters * c->cores_per_cluster, G = k->grid_ctas;
    int active = G < S ? G : S;
    int cmax = (G + S - 1) / S;
    int nr = cmax < n ? cmax : n;
    double N = nr * f->wpc, W = G * f->wpc, s = c->num_sched_per_core;
    mem_events m;
    mem_of(k, f, c, nr, minf(1.0, (double)active * nr / G), &m);
    int per_cluster = (active + c->n_clusters - 1) / c->n_clusters;
    if (per_cluster > c->cores_per_cluster)
        per_cluster = c->cores_per_cluster;
    /* Latencies (loaded). */
    miss_latency ml = loaded_miss_latency(k, f, c, &m, N, active,
                                          per_cluster);
    double lat_miss = ml.total;
    double lat_miss0 = LAT_L2 + (1 - m.h2) * LAT_DRAM;
    double L = cta_latency(k, f, &m, lat_miss);
    /* The latency-bound rounds' CTA latency, without the burst's DRAM
     * queue (analytic-3.3, docs/model.md "Across the SM counts" item 8):
     * whole waves that each wait a DRAM drain are the DRAM's busy time,
     * which t_dram counts over the launch; keeping the queue in the rounds
     * as well added it twice through the smooth maximum (vecadd strat-a00:
     * 10 waves of L 947 cycles, 399 of them DRAM queue, met with t_dram).
     * The fill keeps it: the first wave does wait there. */
    double L_rounds = cta_latency(k, f, &m, lat_miss - ml.dram_q);
    double L0 = cta_latency(k, f, &m, lat_miss0);
    /* Per-CTA throughput on one SM. */
    double pool = N / s;
    if (c->scheduler == SCHED_TWO_LEVEL)
        pool = minf(pool, TWO_LEVEL_POOL);
    double rate = minf(1.0, pool * k->ilp / f->dep);
    double outstanding = minf(MSHR, c->l1_sets * L1_WAYS * L1_RESERVE);
    /* The misses-in-flight term (Little's law on the request budget) uses
     * the latency without the burst's DRAM queue (analytic-2.22): the
     * DRAM's own drain is the launch's DRAM time t_dram, and counting it
     * in the SM's Little term as well added the two through the smooth
     * maximum (vecadd on analytic-2.22: 826 cycles of burst latency, 391 of
     * it DRAM queue; 797 and 269 on analytic-2.29; the log's
     * averagemflatency is 482 and avg_mrq_latency 90). L and the fill keep
     * it: a CTA's chain does wait there; the rounds do not (analytic-3.3,
     * L_rounds above). */
    double per_cta[5] = {
        f->wpc * f->I / minf(s * rate, DISPATCH_MAX),
        f->wpc * f->sm_cycles_sp,
        f->wpc * f->sm_cycles_sfu,
        f->wpc * f->mem_pipe,
        f->wpc * (m.l1_miss / outstanding + f->st_tx / MSHR)
            * (lat_miss - ml.dram_q),
    };
    double p = sched_overlap(c->scheduler);
    /* GPU-wide bandwidth bounds over the whole launch. */
    double nsub = SUBPART_PER_CH * c->n_mem;
    /* Partition camping at the request crossbar: an input's head packets
     * come from the one CTA whose stores fill its buffer (64-flit
     * -icnt_in_buffer_limit + 8-entry L1 miss queue: 4-5 warps' runs of 16
     * stores), and CTAs are dealt to the clusters in launch order, so the
     * n_in heads belong to n_in consecutive CTAs. Loads spread uniformly;
     * the mix's effective slice count is the harmonic blend. */
    double n_in = minf(c->n_clusters, active);
    double s_st = model_store_slices(k, c->n_mem,
                                     n_in * sched_store_window(c, f->wpc));
    double t_l2 = W * l2_slice_cycles(k, f, &m, nsub, s_st, c->n_mem)
                  / k->mem_eff;
    double st_inj = m.inj - m.l1_miss - f->atom_tx;
    double d_mix = m.inj > 0
                   ? m.inj / ((m.inj - st_inj) / nsub + st_inj / s_st) : nsub;
    double dram_bpc = c->n_mem * DRAM_BYTES_PER_CLK * DRAM_HZ / CORE_HZ
                      * DRAM_SCHED_EFF * DRAM_SECTOR_EFF;
    /* DRAM time in column commands (a sector read or half a written-back
     * line each, analytic-2.21) at dram_bpc's sector-read rate. */
    double t_dram = W * m.dram_cmds * SECTOR / dram_bpc / k->mem_eff;
    double t_port = cmax * f->wpc * per_cluster * maxf(m.inj, m.ej);
    double wave1 = minf(1.0, (double)active * nr / G);
    double t_atom = hot_reply_paced(W * hot_slice_cycles(k, f, &m, nsub,
                                                         wave1),
                                    W * m.ej, n_in)
                    + cold_atomic_start(k, f);
    if (t_atom > 0)
        t_atom += two_level_atom_start(k, f, c, N);
    double t_xbar = W * m.inj / k->mem_eff
                    / xbar_requests_per_cycle(d_mix, n_in);
    /* Reply crossbar (analytic-2.11): the same input-queued switch the
     * other way, the 2·n_mem slices as inputs (each pushes at most one
     * reply per cycle into its one-VC buffer, gpu_stall_icnt2sh when it is
     * full) and the n_in clusters as outputs (one packet per cycle each);
     * every read sector and every stored sector's ack is one packet.
     * Replies count as spread over all slices: camped stores (and so their
     * acks) are charged once, at the request crossbar where the camped
     * stream forms (a camped slice acks no faster than stores reach it). */
    double t_xrep = W * m.ej / k->mem_eff
                    / xbar_requests_per_cycle(nsub, n_in);
    double t_bw = maxf(maxf(maxf(t_l2, t_dram), t_port),
                       maxf(t_xbar, t_xrep));
    /* Fill and drain: the first CTAs wait under the launch's initial burst
     * (loaded latency L), the last ones drain without contention (L0). */
    double fill_drain = 0.5 * (L + L0);
    /* Cold instruction cache (analytic-2.10): the SM fetches each of its
     * code_lines 128-B lines on demand, one L2 + DRAM round trip each. The
     * first line's fetch is part of the fitted fill; a later line's fetch
     * is hidden by the issue work the other resident warps still have in
     * the previous line (issue port or saturated SFU: units that keep
     * serving), and exposed for the rest. Cold constant cache
     * (analytic-2.15): the lines after the parameter line, CONST_MSHR per
     * round trip that every warp waits for. */
    double t_icache = icache_exposed(k, f, N, maxf(per_cta[0], per_cta[2]),
                                     active);
    double t_const = const_exposed(k, active);
    sm_times st = {per_cta, NULL, cmax, nr, fill_drain,
                   f->I * f->dep / k->ilp, f->wpc, L_rounds, t_bw, t_icache, t_const,
                   c->scheduler == SCHED_LRR, 0.0, t_atom,
                   active * N};
    double t_busy, t_rounds;
    o->t = launch_time(&st, p, &t_busy, &t_rounds);
    int latency_bound = L > nr * t_busy;
    /* Above two schedulers (analytic-2.23, 2.27): the stagger lost where
     * the front end is busy, the issue stage's own ports where it has
     * slack, the wave switch at the two-slot busy time, a thin last wave's
     * delayed start. */
    double p_fe = p;
    double two_slot[5] = {per_cta[0], per_cta[1], per_cta[2], per_cta[3],
                          per_cta[4]};
    int moved = 0;
    if (s > SCHED_DEFAULT && o->t > 0) {
        double u = front_end_use(k, f, cmax, o->t);
        p_fe = front_end_overlap(c, p, u, latency_bound);
        double issue = issue_ports_cycles(k, f, s, rate, u);
        if (issue < per_cta[0]) {
            per_cta[0] = issue;
            st.per_cta_switch = two_slot;
            moved = 1;
        }
        if (c->scheduler == SCHED_GTO && !latency_bound) {
            double lam = maxf(0.0, 2 * u - 1) * (1 - SCHED_DEFAULT / s);
            st.thin_wave = thin_wave_delay(cmax, nr, nr * t_busy, L, lam);
            moved |= st.thin_wave > 0;
        }
    }
    if (p_fe != p || moved)
        o->t = launch_time(&st, p_fe, &t_busy, &t_rounds);
    o->t += cmax * lone_cta_pool_tail(c, f->wpc, t_busy, L, nr);
    o->t_comp = cmax * t_busy;
    o->t_mem_lat = cmax * per_cta[4] + t_rounds + fill_drain;
    o->t_mem_bw = maxf(t_bw, t_atom);
    /* GPU-wide counts (GPGPU-Sim's L1D counts loads and stores). */
    o->l1_acc = W * (f->ld_lines + f->st_tx);
    o->l1_miss = W * (m.l1_miss + f->st_tx);
    o->l2_acc = W * m.l2_acc;
    o->l2_miss = W * (m.rd_sect * (1 - m.h2) + f->st_sect);
    o->dram_bytes = W * m.dram_sect * SECTOR;
    o->flits = W * (m.inj + m.ej);
    /* Mean resident warps over active SMs: each SM runs G/active CTAs of
     * the busiest SM's cmax, nr at a time. */
    o->occ_weighted = o->t * N / SM_MAX_WARPS * ((double)G / active) / cmax;
    double u = clamp01(t_dram / o->t), u2 = u * u, u4 = u2 * u2;
    o->dram_stall = o->t * nsub * u4 * u4;      /* utilisation^8 */
}

/* One kernel (all its launches) into t; returns its cycles. */
static double eval_kernel(const wl_kernel *k, const gpu_config *c, int n,
                          totals *t)
{
    kfacts f;
    kernel_facts(k, &f);
    launch_out one;
    launch(k, &f, c, n, &one);
    double L = k->launches;
    double threads = (double)k->grid_ctas * k->threads_per_cta * L;
    double warps = (double)k->grid_ctas * f.wpc * L;
    t->cycles += L * one.t;
    t->insns += threads * k->thread_insns;
    t->warp_insns += warps * k->warp_insns;
    t->thread_insns += threads * k->thread_insns;
    t->sfu_ops += warps * k->insn_sfu * WARP;
    t->shared_acc += warps * k->insn_shared;
    t->l1_acc += L * one.l1_acc;
    t->l1_miss += L * one.l1_miss;
    t->l2_acc += L * one.l2_acc;
    t->l2_miss += L * one.l2_miss;
    t->dram_bytes += L * one.dram_bytes;
    t->flits += L * one.flits;
    t->occ_weighted += L * one.occ_weighted;
    t->dram_stall += L * one.dram_stall;
    t->t_comp += L * one.t_comp;
    t->t_mem_lat += L * one.t_mem_lat;
    t->t_mem_bw += L * one.t_mem_bw;
    return L * one.t;
}

static int bottleneck_of(const totals *t)
{
    if (t->t_mem_bw >= t->t_comp && t->t_mem_bw >= t->t_mem_lat)
        return BOTTLENECK_MEM_BANDWIDTH;
    if (t->t_comp >= t->t_mem_lat)
        return BOTTLENECK_COMPUTE;
    return BOTTLENECK_MEM_LATENCY;
}

/* Per-SM logic area implied by the GF100 anchor and the other terms. */
static double sm_logic_area(void)
{
    double k = A_ANCHOR_SMS + 2.0 * A_ANCHOR_CH;
    double rest = A_FIXED + A_XBAR_PER_PORT2 * k * k
                  + A_ANCHOR_CH * A_CHANNEL + A_ANCHOR_L2_MB * A_L2_PER_MB;
    return (A_ANCHOR - rest) / A_ANCHOR_SMS - A_RF_MB * A_RF_PER_MB
           - A_ANCHOR_SRAM_MB * A_SRAM_PER_MB;
}

double model_area_mm2(const gpu_config *c)
{
    double sms = (double)c->n_clusters * c->cores_per_cluster;
    double sram_mb = (c->l1_sets * L1_LINE * L1_WAYS + c->shmem_size)
                     / 1048576.0;
    double sm = sm_logic_area() + A_RF_MB * A_RF_PER_MB
                + sram_mb * A_SRAM_PER_MB
                + (c->num_sched_per_core - A_ANCHOR_SCHED) * A_SCHED;
    double ports = c->n_clusters + 2.0 * c->n_mem;
    return A_FIXED + sms * sm + l2_bytes(c) / 1048576.0 * A_L2_PER_MB
           + c->n_mem * A_CHANNEL + A_XBAR_PER_PORT2 * ports * ports;
}

static double static_power(const gpu_config *c)
{
    double sms = (double)c->n_clusters * c->cores_per_cluster;
    return P_UNCORE + sms * P_SM_STATIC + c->n_mem * P_CH_STATIC
           + l2_bytes(c) / 1048576.0 * P_L2_PER_MB;
}

static double dynamic_energy(const totals *t)
{
    return t->warp_insns * E_WARP_INSN + t->thread_insns * E_THREAD_OP
           + t->sfu_ops * E_SFU_OP + t->shared_acc * E_SHARED
           + t->l1_acc * E_L1 + t->l2_acc * E_L2 + t->flits * E_FLIT
           + t->dram_bytes * E_DRAM_BYTE;
}

static void fill_out(const totals *t, const gpu_config *c, model_out *out)
{
    double time = t->cycles / CORE_HZ;
    out->cycles = t->cycles;
    out->instructions = t->insns;
    out->ipc = t->insns / t->cycles;
    out->occupancy = clamp01(t->occ_weighted / t->cycles);
    out->l1d_miss_rate = t->l1_acc > 0 ? t->l1_miss / t->l1_acc : 0;
    out->l2_miss_rate = t->l2_acc > 0 ? t->l2_miss / t->l2_acc : 0;
    out->dram_stall_cycles = t->dram_stall;
    out->l2_bw_gbps = t->l2_acc * SECTOR / time / 1e9;
    out->dram_bw_gbps = t->dram_bytes / time / 1e9;
    out->time_s = time;
    out->power_w = static_power(c) + dynamic_energy(t) / time;
    out->energy_j = out->power_w * time;
    out->area_mm2 = model_area_mm2(c);
}

static int config_ok(const gpu_config *c, gd_err *err)
{
    if (c->n_clusters < 1 || c->cores_per_cluster < 1 || c->n_mem < 1
        || c->shmem_size < 0 || c->num_sched_per_core < 1
        || c->l1_sets < 1 || c->l2_sets < 1 || c->scheduler < SCHED_GTO
        || c->scheduler > SCHED_TWO_LEVEL) {
        gd_errf(err, GD_EINPUT, "model: config out of the model's domain "
                "(n_clusters=%d cores_per_cluster=%d n_mem=%d shmem_size=%d "
                "scheduler=%d num_sched_per_core=%d l1_sets=%d l2_sets=%d)",
                c->n_clusters, c->cores_per_cluster, c->n_mem, c->shmem_size,
                c->scheduler, c->num_sched_per_core, c->l1_sets, c->l2_sets);
        return -1;
    }
    return 0;
}

int model_eval(const wl_workload *w, const gpu_config *c, model_out *out,
               gd_err *err)
{
    if (config_ok(c, err))
        return -1;
    if (w->nkernels < 1) {
        gd_errf(err, GD_EINPUT, "model: workload '%s' has no kernels",
                w->name);
        return -1;
    }
    totals t;
    memset(&t, 0, sizeof t);
    memset(out, 0, sizeof *out);
    double longest = -1;
    totals at_longest;
    memset(&at_longest, 0, sizeof at_longest);
    for (int i = 0; i < w->nkernels; i++) {
        const wl_kernel *k = &w->k[i];
        int limit, n = occupancy(k, c, &limit);
        if (n < 1) {
            gd_errf(err, GD_EINPUT, "model: kernel '%s' of workload '%s' "
                    "cannot run: one CTA (%d threads, %d regs/thread, %d B "
                    "shared) does not fit an SM (1536 threads, 32768 regs, "
                    "shmem_size=%d B)", k->name, w->name, k->threads_per_cta,
                    k->regs_per_thread, k->smem_per_cta, c->shmem_size);
            return -1;
        }
        if (i == 0) {
            out->ctas_per_sm = n;
            out->limit = limit;
        }
        totals before = t;
        double cyc = eval_kernel(k, c, n, &t);
        if (cyc > longest) {
            longest = cyc;
            at_longest = t;
            at_longest.t_comp -= before.t_comp;
            at_longest.t_mem_lat -= before.t_mem_lat;
            at_longest.t_mem_bw -= before.t_mem_bw;
        }
    }
    fill_out(&t, c, out);
    out->bottleneck = bottleneck_of(&at_longest);
    return 0;
}

void model_to_metrics(const model_out *o, met_set *m)
{
    met_put(m, "ipc", o->ipc);
    met_put(m, "cycles", o->cycles);
    met_put(m, "instructions", o->instructions);
    met_put(m, "occupancy", o->occupancy);
    met_put(m, "l1d_miss_rate", o->l1d_miss_rate);
    met_put(m, "l2_miss_rate", o->l2_miss_rate);
    met_put(m, "dram_stall_cycles", o->dram_stall_cycles);
    met_put(m, "l2_bw_gbps", o->l2_bw_gbps);
    met_put(m, "dram_bw_gbps", o->dram_bw_gbps);
    met_put(m, "power_w", o->power_w);
    met_put(m, "area_mm2", o->area_mm2);
    met_put(m, "energy_j", o->energy_j);
    met_put(m, "time_s", o->time_s);
}

/* Prediction interval (analytic-3.0). SIGMA_UNCAL: RMS of log(modelled /
 * measured IPC) of the seven from-log descriptors, uncalibrated, over the
 * 168 stratified rows (8-240 SMs; make bench, 0.101). K_SM: make bench's
 * leave-one-SM-count-out error at 240 SMs (analytic-3.1: per kernel mean
 * |error| 7.0%, calibrated up to 120 SMs: ln 2 beyond) per unit of ln
 * distance, 0.10. K_SIZE: channels
 * and cache sets (estimate: the reference rows span those knobs' whole
 * range, so no held-out measure exists). Z: 95% for normal log errors. */
#define PI_Z 1.96
#define PI_SIGMA_UNCAL 0.10
#define PI_SIGMA_FLOOR 0.01
#define PI_K_SM 0.10
#define PI_K_SIZE 0.10

/* ln distance of x outside [lo, hi] (0 inside, or when lo is 0: unknown). */
static double outside(double x, double lo, double hi)
{
    if (lo <= 0 || hi <= 0 || x <= 0)
        return 0;
    return x < lo ? log(lo / x) : x > hi ? log(x / hi) : 0;
}

void model_interval(const wl_workload *w, const gpu_config *c, double ipc,
                    model_pi *out)
{
    const wl_kernel *k = &w->k[0];   /* calibrate records all kernels alike */
    double sig = PI_SIGMA_UNCAL, ext2 = 0;
    out->extrapolated = 0;
    if (k->cal_rows > 0) {
        sig = maxf(k->cal_log_sd, PI_SIGMA_FLOOR);
        double d[4] = {
            outside(c->n_clusters * c->cores_per_cluster, k->cal_sm_min,
                    k->cal_sm_max),
            outside(c->n_mem, k->cal_mem_min, k->cal_mem_max),
            outside(c->l1_sets, k->cal_l1_min, k->cal_l1_max),
            outside(c->l2_sets, k->cal_l2_min, k->cal_l2_max),
        };
        for (int i = 0; i < 4; i++) {
            double kk = i == 0 ? PI_K_SM : PI_K_SIZE;
            ext2 += kk * d[i] * kk * d[i];
            out->extrapolated |= d[i] > 0;
        }
    }
    out->sigma = sqrt(sig * sig + ext2);
    out->lo = ipc * exp(-PI_Z * out->sigma);
    out->hi = ipc * exp(PI_Z * out->sigma);
}

const char *model_limit_name(int limit)
{
    switch (limit) {
    case LIMIT_CTAS: return "ctas";
    case LIMIT_THREADS: return "threads";
    case LIMIT_REGS: return "regs";
    case LIMIT_SMEM: return "smem";
    default: return "unknown";
    }
}

const char *model_bottleneck_name(int b)
{
    switch (b) {
    case BOTTLENECK_COMPUTE: return "compute";
    case BOTTLENECK_MEM_LATENCY: return "mem_latency";
    case BOTTLENECK_MEM_BANDWIDTH: return "mem_bandwidth";
    default: return "unknown";
    }
}
