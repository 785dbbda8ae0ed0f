/* splitcal: fit the split cost model to measured timings — per-device,
 * per-class efficiencies and fixed costs by GSL weighted least squares on
 * single-device size ladders — and score held-out multi-device decisions
 * (median and p90 APE, Spearman rho, Kendall tau-b, decision regret, n).
 * `gpudse calibrate-machine` runs both on this machine's cores. */
#ifndef GPUDSE_SPLITCAL_H
#define GPUDSE_SPLITCAL_H

#include "costmodel.h"
#include "measure.h"

/* How a timing is obtained (measure-cpu in the tool; a synthetic model in
 * tests). Returns GD_OK and fills out, or an error. */
typedef int (*scal_measure_fn)(void *ctx, const cm_machine *m,
                               const cm_task *t, const cm_decision *d,
                               ms_stat *out, gd_err *err);

typedef struct {
    int dev, kind;
    double eta, fixed_s;           /* fitted efficiency of the binding roof */
    int compute_bound;             /* which roof binds (1: FLOP/s) */
    int npts;
    double r2;
} scal_row;

typedef struct {
    scal_row rows[CM_MAXDEV * CM_NKINDS];
    int nrows;
} scal_fit;

/* Fit every device of m for every task class present in tasks (the largest
 * task of each class sets the ladder top; ladder: fractions of it). m is
 * updated in place; fitted numbers are labelled measured. */
int scal_fit_machine(cm_machine *m, const cm_task *tasks, int ntasks,
                     const double *ladder, int nladder, scal_measure_fn fn,
                     void *ctx, scal_fit *out, gd_err *err);

/* Sizes in every copy ladder (p2p links and host links): the report's
 * "rungs" column of a link. */
#define SCAL_LINK_RUNGS 4

/* Fitted link between two devices. */
typedef struct {
    int a, b;
    double lat, bw, r2;
} scal_link;

typedef struct {
    scal_link links[CM_MAXDEV * (CM_MAXDEV - 1) / 2];
    int nlinks;
} scal_links;

/* How one rung of the link ladder is timed: a halo-style exchange of
 * `bytes` between devices a and b, per round (ms_link_cpu in the tool). */
typedef int (*scal_link_fn)(void *ctx, const cm_machine *m, int a, int b,
                            size_t bytes, int rounds, ms_stat *out,
                            gd_err *err);

/* Fit p2p latency and bandwidth of every pair of devices from a ladder of
 * halo-style exchanges (GSL weighted least squares); updates m (both
 * directions, labelled measured). */
int scal_fit_links(cm_machine *m, scal_link_fn fn, void *ctx,
                   scal_links *out, gd_err *err);

/* Fitted host link of one device, one direction. */
typedef struct {
    int dev, h2d;                /* h2d 1: host to device; 0: device to host */
    double lat, bw, r2;
} scal_host_link;

typedef struct {
    scal_host_link links[2 * CM_MAXDEV];
    int nlinks;
} scal_host_links;

/* How one rung of the host-link ladder is timed: time per copy of `bytes`
 * between pinned host memory and device dev (ms_copy_cuda in the tool). */
typedef int (*scal_copy_fn)(void *ctx, const cm_machine *m, int dev,
                            size_t bytes, int h2d, int rounds, ms_stat *out,
                            gd_err *err);

/* Fit each device's host->device and device->host latency and bandwidth
 * from a copy ladder (256 KiB to 64 MiB); updates m (labelled measured). */
int scal_fit_host_links(cm_machine *m, scal_copy_fn fn, void *ctx,
                        scal_host_links *out, gd_err *err);

/* Parallel efficiency of the CPU devices as this machine delivers them
 * now: time of a compute kernel on the first device alone over the time
 * of ndev times the work spread evenly on all of them (slowdowns off).
 * 1.0: devices independent; 1/ndev: they share one core. MEASURED. */
int scal_parallel_efficiency(const cm_machine *m, scal_measure_fn fn,
                             void *ctx, double *eff, gd_err *err);

/* Held-out score of predicted vs measured times. Decisions with equal
 * group[i] compete (regret is the mean over groups; groups contiguous). */
typedef struct {
    size_t n;
    double median_ape, p90_ape, spearman, kendall_tau_b, regret;
    int warn;                      /* median or p90 APE > 30% */
} scal_score;

void scal_score_pairs(const double *pred, const double *meas, const int *group,
                      size_t n, scal_score *out);

/* The measure-cpu timing functions (ctx: const ms_opts *). */
int scal_measure_cpu(void *ctx, const cm_machine *m, const cm_task *t,
                     const cm_decision *d, ms_stat *out, gd_err *err);
int scal_copy_cuda(void *ctx, const cm_machine *m, int dev, size_t bytes,
                   int h2d, int rounds, ms_stat *out, gd_err *err);
int scal_link_cpu(void *ctx, const cm_machine *m, int a, int b, size_t bytes,
                  int rounds, ms_stat *out, gd_err *err);

/* gpudse calibrate-machine [MACHINE] [-o FILE] [--slowdown a,b]
 *                          [--repeats N] [--seed S] */
int cmd_calibrate_machine(int argc, char **argv);

#endif
