/* model: the embedded analytical GPU model (Fermi/GTX480 baseline). Given a
 * workload descriptor and a design point it predicts the metrics of
 * DESIGN.md in microseconds. All outputs are modelled, never measured. */
#ifndef GPUDSE_MODEL_H
#define GPUDSE_MODEL_H

#include "space.h"
#include "workload.h"
#include "metrics.h"

typedef enum {
    LIMIT_CTAS, LIMIT_THREADS, LIMIT_REGS, LIMIT_SMEM
} model_limit;

typedef enum {
    BOTTLENECK_COMPUTE, BOTTLENECK_MEM_LATENCY, BOTTLENECK_MEM_BANDWIDTH
} model_bottleneck;

typedef struct {
    double ipc, cycles, instructions, occupancy;
    double l1d_miss_rate, l2_miss_rate, dram_stall_cycles;
    double l2_bw_gbps, dram_bw_gbps, power_w, area_mm2, energy_j, time_s;
    int ctas_per_sm;           /* of the first kernel */
    int limit;                 /* model_limit binding the first kernel */
    int bottleneck;            /* model_bottleneck of the longest kernel */
} model_out;

/* Version string; part of every analytic job key, so changing the model
 * invalidates old results instead of mixing them. */
const char *model_version(void);

/* Evaluate; returns 0, or -1 when the workload cannot run on the config (a
 * CTA does not fit on an SM), with the reason in err. */
int model_eval(const wl_workload *w, const gpu_config *c, model_out *out,
               gd_err *err);

/* A modelled IPC's prediction interval (docs/model.md, "Uncertainty"):
 * lo..hi = ipc·exp(∓Z·sigma), sigma from the descriptor's calibration
 * residuals (cal_log_sd; uncalibrated: the model's own error) widened by
 * how far c lies outside the calibrated region (SM count, channels, L1 and
 * L2 sets never seen in the calibration rows); extrapolated = 1 when c lies
 * outside that region in any of them. */
typedef struct {
    double lo, hi, sigma;
    int extrapolated;
} model_pi;
void model_interval(const wl_workload *w, const gpu_config *c, double ipc,
                    model_pi *out);

/* Effective number of L2 slices (of 2·n_mem) the stores of `window`
 * consecutive CTAs of kernel k reach under GPGPU-Sim's address mapping
 * (partition camping); 2·n_mem for contiguous or unknown strides. */
double model_store_slices(const wl_kernel *k, int n_mem, double window);

/* Chip area in mm² (40 nm) of a config. */
double model_area_mm2(const gpu_config *c);

/* Copy outputs into a metric set (names of DESIGN.md). */
void model_to_metrics(const model_out *o, met_set *m);

const char *model_limit_name(int limit);
const char *model_bottleneck_name(int b);

#endif
