/* model_sm: the SM side of the embedded model and how a launch's times
 * combine -- a CTA's latency chain, the schedulers' overlap (smooth
 * maximum), the throughput pipeline and latency-bound rounds, the front
 * end above two schedulers, two_level_active's pool, and the hot atomic
 * slice's utilisation. Equations and sources: docs/model.md, "One launch". */
#include "model_int.h"

#include <math.h>

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

/* Smooth maximum (p-norm) of n non-negative terms, the evaluation's hot
 * path. A zero term adds exactly 0, a ratio of exactly 1 adds exactly 1
 * (1^p), and a sum of exactly 1 has the root 1, so none of them calls
 * pow or cbrt: the same bits as the sum taken in full. (The largest
 * term's ratio x·(1/x) is not always 1 in double, so it is computed.) */
static double smax(const double *x, int n, double p)
{
    double m = 0, s = 0;
    for (int i = 0; i < n; i++)
        m = maxf(m, x[i]);
    if (m <= 0)
        return 0;
    double inv = 1 / m;   /* one division, not n */
    for (int i = 0; i < n; i++) {
        if (x[i] == 0)
            continue;
        double r = x[i] * inv;
        s += r == 1.0 ? 1.0 : pow_p(r, p);
    }
    return s == 1.0 ? m : m * root_p(s, p);
}

/* One CTA's latency: a warp's dependent chain, its round trips to memory
 * (L1 read misses at latency lat_miss), and at every barrier the release
 * plus the skew of the CTA's other warps through the MEM pipe (MWP-CWP
 * Synch_cost with the departure delay of one warp's segment). */
double model_cta_latency(const wl_kernel *k, const kfacts *f,
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
 * t_res = nr·t_busy (issue, SP, SFU, MEM pipe; not the
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
 * Monotone in both times (MVA throughput falls with every demand).
 * histogram: n 720, r ≈ 285 at the baseline, B ≈ 10⁻¹⁰⁰: exactly the
 * hard bound, so SM-side changes (schedulers, which GPGPU-Sim has within
 * its own ±40-cycle noise) do not move the launch.
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

double model_launch_time(const sm_times *st, double p, double *t_busy,
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
double model_front_end_use(const wl_kernel *k, const kfacts *f, int cmax,
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
double model_front_end_overlap(const gpu_config *c, double p, double u,
                                int latency_bound)
{
    double s = c->num_sched_per_core;
    if (c->scheduler != SCHED_GTO || s <= SCHED_DEFAULT || !latency_bound
        || u <= 0)
        return p;
    return p - u * (p - model_sched_overlap(SCHED_LRR))
               * (1 - SCHED_DEFAULT / s);
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
double model_issue_ports_cycles(const wl_kernel *k, const kfacts *f,
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
double model_thin_wave_delay(int cmax, int nr, double t_res, double L,
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
double model_two_level_atom_start(const wl_kernel *k, const kfacts *f,
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
double model_lone_cta_pool_tail(const gpu_config *c, double wpc,
                                 double t_busy, double L, int nr)
{
    double pool = TWO_LEVEL_POOL * c->num_sched_per_core;
    if (c->scheduler != SCHED_TWO_LEVEL || nr != 1 || wpc <= pool)
        return 0;
    double b = t_busy / wpc, e = wpc - pool;
    return maxf(pool * b, L) + maxf(e * b, L) - maxf(wpc * b, L);
}
