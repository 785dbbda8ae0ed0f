/* model_mem: the memory side of the embedded model -- L1 and L2 hit rates
 * from footprints, L2 write-backs, the loaded miss latency of a burst, the
 * L2 slices (partition camping, the hot atomic slice and its reply pacing),
 * the request and reply crossbars, and the cold instruction and constant
 * caches. Equations and sources: docs/model.md, "One launch". */
#include "model_int.h"

#include <math.h>

/* How many CTAs' working sets a scheduler keeps live, relative to GTO. */
static double sched_ws(int sched)
{
    return sched == SCHED_LRR ? 1.2 : sched == SCHED_TWO_LEVEL ? 1.1 : 1.0;
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
 * L2 gets the same window (analytic-2.22): the first wave's reads still come before any write,
 * which is what raises vecadd's read hit rate with the SMs resident at
 * once (results.csv: 0.185 at 15 SMs, 0.355 at 60 and 0.347 at 15x4).
 * With read_share 0 (unknown) the whole footprint competes. */
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
 * line) sectors; otherwise every stored sector counts once.
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
void model_mem_of(const wl_kernel *k, const kfacts *f, const gpu_config *c,
                   int nr, double rho, mem_events *m)
{
    double c1 = c->l1_sets * L1_LINE * L1_WAYS;
    double ws1 = k->footprint_kb_per_cta * 1024.0 * nr * sched_ws(c->scheduler);
    m->h1 = k->l1_reuse * (ws1 > c1 ? c1 / ws1 : 1.0);
    m->fit2 = l2_fit(k->footprint_kb_total * 1024.0, model_l2_bytes(c));
    m->h2 = k->l2_reuse * l2_fit(read_footprint(k, rho), model_l2_bytes(c));
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
miss_latency model_loaded_miss_latency(const wl_kernel *k,
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

/* L2 sub-partition of a 256-B chunk under the GTX480 mapping
 * (-gpgpu_mem_addr_mapping dramid@8, -gpgpu_n_sub_partition_per_mchannel 2,
 * sub_partition_id_mask 0x100 of the logs): channel = chunk mod n_mem, the
 * sub-partition bit = bit 0 of chunk / n_mem. A bijection of chunk mod
 * 2·n_mem onto the 2·n_mem slices, so the slices a set of chunks reaches
 * are counted on their residues mod 2·n_mem. */
static int bits_set(unsigned long long m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

/* The residues of `m` (a set on a ring of `ring` <= 64 slots) moved by o. */
static unsigned long long ring_shift(unsigned long long m, int o, int ring)
{
    unsigned long long all = ring == 64 ? ~0ULL : (1ULL << ring) - 1;
    o %= ring;
    return o ? ((m << o) | (m >> (ring - o))) & all : m;
}

/* Distinct L2 slices hit by the stores of CTAs spread over `groups`
 * consecutive chunk offsets: each warp writes st_tx transactions st_stride
 * bytes apart; CTA groups step one 256-B chunk through the stride. The
 * counts for `lo` and lo + 1 groups in one pass (the set only grows with
 * the groups): one warp's chunks as residues, shifted once per group. */
static void slices_hit(double stride, int tx, int lo, int n_mem,
                       int *at_lo, int *at_hi)
{
    int ring = 2 * n_mem;
    unsigned long long warp = 0, seen = 0;
    for (int j = 0; j < tx; j++)
        warp |= 1ULL << ((long)((j * stride) / 256.0) % ring);
    *at_lo = 0;
    for (int o = 0; o <= lo; o++) {
        if (o == lo)
            *at_lo = bits_set(seen);
        seen |= ring_shift(warp, o, ring);
    }
    *at_hi = bits_set(seen);
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
double model_hot_slice_cycles(const wl_kernel *k, const kfacts *f,
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
 * deficit. */
double model_hot_reply_paced(double t_hot, double replies, double n_in)
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
double model_cold_atomic_start(const wl_kernel *k, const kfacts *f)
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
double model_l2_slice_cycles(const wl_kernel *k, const kfacts *f,
                              const mem_events *m, double nsub, double s_st,
                              int n_mem)
{
    if (stores_placed(k, n_mem))
        return (m->l2_acc - f->st_sect) / nsub + f->st_sect / s_st;
    return (m->l2_acc + f->st_tx * (L2_WR_CYCLES - 1)) / nsub;
}

/* Exposed cold-instruction-cache time of a launch. A warp that reaches
 * the end of line j waits LAT_L2 + LAT_DRAM for line j + 1 (il1 "S:2:32,4",
 * no prefetch; the code is not in L2); meanwhile the other N − 1 resident
 * warps issue what is left of their 1/code_lines of the code at the
 * continuously serving unit's pace (issue port or SFU: t_serve per CTA).
 * Exposed share per line = (fetch − cover) / fetch; lines 1 .. code_lines − 1
 * (line 0 at launch is in the fitted fill and drain). The MEM pipe is not
 * a cover: its work comes in bursts that every warp reaches together. */
double model_icache_exposed(const wl_kernel *k, const kfacts *f, double N,
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
double model_const_exposed(const wl_kernel *k, double active)
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
double model_sched_store_window(const gpu_config *c, double wpc)
{
    double w = sqrt(c->num_sched_per_core / SCHED_DEFAULT);
    if (c->scheduler == SCHED_TWO_LEVEL)
        w *= maxf(1.0, TWO_LEVEL_POOL * SCHED_DEFAULT / wpc);
    return w;
}
