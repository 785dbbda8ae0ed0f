/* fromlog_anchor: fits what a GPGPU-Sim log does not count in a from-log
 * kernel descriptor (store camping from the request network's waits; the
 * bandwidth efficiency, ILP, memory waits and SFU work that make the
 * embedded model reproduce the log's cycles). fromlog.c builds the rest of
 * the descriptor from the counters (docs/model.md, "From a log"). */
#include "fromlog_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define ANCHOR_STEPS 40        /* bisection steps of the cycle anchor */
#define MEM_EFF_MIN 0.5        /* lowest bandwidth efficiency anchored */
#define CAMP_MAX_STRIDE (1 << 16)   /* largest store stride tried, bytes */

/* The model's outputs for kernel k alone at config c into o; 0, or -1. */
int fl_kernel_eval(const wl_kernel *k, const gpu_config *c, model_out *o)
{
    static const wl_workload empty;
    wl_workload *one = malloc(sizeof *one);
    if (!one)
        return -1;
    *one = empty;
    util_strlcpy(one->name, "anchor", sizeof one->name);
    one->nkernels = 1;
    one->k[0] = *k;
    int rc = model_eval(one, c, o, NULL) == 0 ? 0 : -1;
    free(one);
    return rc;
}

/* Model cycles of kernel k alone at config c, or -1. */
static double kernel_cycles(const wl_kernel *k, const gpu_config *c)
{
    model_out o;
    return fl_kernel_eval(k, c, &o) == 0 ? o.cycles : -1;
}

/* Bisect field *x in [lo, hi] (cycles fall as ilp rises, rise as mem_waits
 * rises: `rising` says which) until the model meets target cycles. */
static void bisect(wl_kernel *k, double *x, double lo, double hi, int rising,
                   const gpu_config *c, double target)
{
    for (int i = 0; i < ANCHOR_STEPS; i++) {
        *x = 0.5 * (lo + hi);
        double cyc = kernel_cycles(k, c);
        if (cyc < 0)
            return;
        if ((cyc < target) == rising)
            lo = *x;
        else
            hi = *x;
    }
}

/* Move x of the kernel's alu instructions to the SFU class. */
static void set_sfu(wl_kernel *k, double alu, double x)
{
    k->insn_sfu = x;
    k->insn_alu = alu - x;
}

static void bisect_sfu(wl_kernel *k, double alu, const gpu_config *c,
                       double target)
{
    double lo = 0, hi = alu;
    set_sfu(k, alu, hi);
    if (kernel_cycles(k, c) < target)
        return;                /* even all-SFU is too fast: keep it so */
    for (int i = 0; i < ANCHOR_STEPS; i++) {
        set_sfu(k, alu, 0.5 * (lo + hi));
        if (kernel_cycles(k, c) < target)
            lo = k->insn_sfu;
        else
            hi = k->insn_sfu;
    }
}

/* Partition camping from the counters (a from-log descriptor has no store
 * stride). A request that waits longer in the request network than its
 * input buffer can hold (avg_icnt2mem_latency above 64 cycles; the
 * reference logs whose requests spread wait 11-22) heads for a saturated
 * L2 slice; with stores split into several transactions per warp (st_tx
 * >= 2) those are the slices the stores camp on, and
 * partiton_level_parallism_util (slices taking a request in a busy cycle)
 * is their number. The descriptor gets the equivalent stride fact: the
 * smallest power-of-two stride whose stores reach at most that many slices
 * from one 256-B chunk, and the CTA group that spreads the log's window of
 * n_in consecutive CTAs over exactly that count (model_store_slices
 * interpolates between one and two chunk offsets). The model then scales
 * the camping with n_mem and the cluster count as it does for a
 * descriptor that states its stride. */
void fl_infer_store_camping(wl_kernel *k, const gpu_config *c, double util,
                            double icnt2mem)
{
    if (!(icnt2mem > ICNT_IN_BUFFER_FLITS) || k->insn_st_global <= 0
        || ceil(k->st_tx) < 2 || !(util > 0))
        return;
    int sms = c->n_clusters * c->cores_per_cluster;
    double active = k->grid_ctas < sms ? k->grid_ctas : sms;
    double n_in = c->n_clusters < active ? c->n_clusters : active;
    for (double st = 512; st <= CAMP_MAX_STRIDE; st *= 2) {
        k->st_stride = st;
        k->st_group = 1;
        double s1 = model_store_slices(k, c->n_mem, 1);
        double s2 = model_store_slices(k, c->n_mem, 2);
        if (s1 > util)
            continue;
        double g = s2 > s1 ? 1 + (util - s1) / (s2 - s1) : 1;
        k->st_group = g > 1 && n_in > 1 ? (n_in - 1) / (g - 1)
                                          : k->grid_ctas;
        if (k->st_group > k->grid_ctas)
            k->st_group = k->grid_ctas;
        return;
    }
    k->st_stride = 0;          /* no power-of-two stride camps that tightly */
    k->st_group = 0;
}

/* Bandwidth efficiency mem_eff in [MEM_EFF_MIN, 1] so the model meets
 * target cycles; returns 0 (mem_eff back at 1) when even the lowest is
 * too fast. */
static int anchor_mem_eff(wl_kernel *k, const gpu_config *c, double target)
{
    k->mem_eff = MEM_EFF_MIN;
    if (kernel_cycles(k, c) > target) {
        bisect(k, &k->mem_eff, MEM_EFF_MIN, 1, 0, c, target);
        return 1;
    }
    k->mem_eff = 1;
    return 0;
}

/* Anchor ilp (and, when even ilp = 1 is too fast, mem_waits) so the model
 * reproduces the measured cycles (describe_kernel reports how near). When
 * the log shows the request network saturated (net_saturated), time the
 * counted work cannot explain is memory-side: the network delivers less
 * than the model's bounds, so mem_eff is anchored first. */
void fl_anchor(wl_kernel *k, const gpu_config *c, double target,
               int sfu_given, int net_saturated)
{
    if (!(target > 0))
        return;
    k->ilp = 1;
    if (kernel_cycles(k, c) > target) {
        k->ilp = 16;
        if (kernel_cycles(k, c) < target)
            bisect(k, &k->ilp, 1, 16, 0, c, target);
        return;
    }
    if (net_saturated && anchor_mem_eff(k, c, target))
        return;
    if (k->insn_ld_global + k->insn_atomic > 0) {
        double hi = 2.0 * (k->insn_ld_global + k->insn_atomic) + 1.0;
        double lo = k->mem_waits;
        k->mem_waits = hi;
        if (kernel_cycles(k, c) > target) {
            bisect(k, &k->mem_waits, lo, hi, 1, c, target);
            return;
        }
    }
    /* Still faster than measured with every counted cause at its limit:
     * the statistics do not count SFU instructions, so the rest of the
     * time is taken as SFU work among the "ALU" instructions (unless
     * --mix gave the SFU count). */
    if (!sfu_given && k->insn_alu > 0) {
        double alu = k->insn_alu;
        bisect_sfu(k, alu, c, target);
    }
}
