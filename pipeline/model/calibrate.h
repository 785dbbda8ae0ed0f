/* calibrate: fit a workload descriptor's free parameters to real simulator
 * results (the CSV format of tests/data/reference_results.csv) with GSL nonlinear
 * least squares, and measure the calibration error on configs held out of
 * the fit (k-fold or leave-one-out) (calibrate.c). Also the reference-CSV
 * reader that `gpudse sim --configs` and <verify configs=> share
 * (calib_csv.c) and the `gpudse calibrate` command (calib_cmd.c). */
#ifndef GPUDSE_CALIBRATE_H
#define GPUDSE_CALIBRATE_H

#include <stddef.h>

#include "calib_metrics.h"
#include "space.h"
#include "workload.h"

/* One row of a reference or configs CSV. */
typedef struct {
    char kernel[WL_NAMELEN];   /* "" when the CSV has no kernel column */
    char design[48];           /* "" when the CSV has no design column */
    int line;                  /* 1-based line in the file */
    gpu_config c;              /* knobs missing from the CSV stay baseline */
    double ipc;                /* NAN when the CSV has no ipc column */
} cal_row;

/* Read a CSV whose header names knob columns (any subset of the eight,
 * names of docs/gpgpusim.md) and optionally kernel, design and ipc. kernel !=
 * NULL keeps only rows of that kernel; need_ipc requires an ipc column with
 * a positive number on every kept row. *rows is malloc'd (caller frees).
 * Errors name FILE:LINE (GD_EINPUT). */
int cal_read_csv(const char *path, const char *kernel, int need_ipc,
                 cal_row **rows, size_t *n, gd_err *err);

/* The free parameters of a kernel that calibration may fit. */
enum {
    CAL_ILP, CAL_MEM_WAITS, CAL_L1_REUSE, CAL_FOOTPRINT_CTA, CAL_L2_REUSE,
    CAL_FOOTPRINT_TOTAL, CAL_MEM_EFF, CAL_NPARAMS
};
#define CAL_ALL_PARAMS ((1u << CAL_NPARAMS) - 1)
const char *cal_param_name(int p);
/* Parse "ilp,mem_waits" into a bit mask of CAL_*; GD_EINPUT on a bad name. */
int cal_parse_params(const char *list, unsigned *mask, gd_err *err);

/* Default identifiability threshold: 5% RMS change of IPC per unit step
 * (docs/model.md, "Calibration"). */
#define CAL_IDENT_DEFAULT 0.05

/* Fit options. */
typedef struct {
    unsigned params;           /* CAL_* bit mask */
    double prior;              /* weight pulling parameters to their start */
    double ident;              /* an unknown whose independent effect on the
                                * rows (RMS change of log IPC per unit step,
                                * beyond the better-identified unknowns) is
                                * below this stays at its descriptor value;
                                * 0 fits every chosen one */
    int max_iter;
    int starts;                /* multi-start: low-discrepancy points over
                                * the parameters' ranges whose cost is
                                * evaluated; the optimiser also runs from the
                                * 4 lowest (besides its three fixed starts).
                                * 0 (default): the fixed starts only */
} cal_opts;
void cal_opts_default(cal_opts *o);

/* Fit w's free parameters (of every kernel) to the IPC of rows, in place.
 * The residuals are log(model/reference). On return *cost_out (if not
 * NULL) is the sum of squared residuals over the rows. */
int cal_fit(wl_workload *w, const cal_row *rows, size_t n,
            const cal_opts *o, double *cost_out, gd_err *err);

/* Which chosen unknowns cal_fit would fit on rows: "kernel.param" names
 * joined by commas into kept, the unidentifiable ones into dropped (each
 * buffer len bytes; "" when none). */
int cal_identified(const wl_workload *w, const cal_row *rows, size_t n,
                   const cal_opts *o, char *kept, char *dropped, size_t len,
                   gd_err *err);

/* Held-out predictions: rows split into `folds` folds (row i in fold
 * i % folds; folds >= n means leave-one-out); each fold is predicted by a
 * fit on the others, started from w. pred[i] receives row i's prediction. */
int cal_heldout(const wl_workload *w, const cal_row *rows, size_t n,
                int folds, const cal_opts *o, double *pred, gd_err *err);

/* Record in every kernel of fit where it was calibrated: the rows' count,
 * the held-out RMS of log(modelled / measured IPC) over pred (held-out
 * predictions of the rows; NAN ones skipped) and each size knob's range
 * over the rows (model_interval widens its interval outside it). */
void cal_record_region(wl_workload *fit, const cal_row *rows, size_t n,
                       const double *pred);

/* The value of free parameter p (CAL_*) in kernel k. */
double cal_param_get(const wl_kernel *k, int p);

/* IPC predicted by w at every row (NAN where the config cannot run). */
void cal_predict(const wl_workload *w, const cal_row *rows, size_t n,
                 double *pred);

/* gpudse calibrate -w W.xml -r REF.csv -o OUT.xml [--kernel NAME]
 * [--folds K] [--params LIST] [--prior W] [--ident T] [--starts N] */
int cmd_calibrate(int argc, char **argv);

#endif
