/* calib_metrics: error metrics of predictions against reference values —
 * the figures gpudse reports for a model's calibration error (and any other
 * predicted-vs-measured comparison). Pure functions over two arrays; no
 * allocation kept, no global state. Prefix calm_ (cm_ is the split cost
 * model's, pipeline/backends/costmodel).
 *
 * Definitions (ref = r_i, prediction = p_i, i = 1..n, APE_i = |p_i - r_i| / |r_i|):
 *   mape        mean of APE_i                                (rows with r_i = 0 skipped)
 *   median_ape  median of APE_i (mean of the two middle values when n is even)
 *   p90_ape     90th percentile of APE_i, linear interpolation between order
 *               statistics at rank 0.9 (n - 1) (numpy's default "linear")
 *   max_ape     largest APE_i
 *   agg_err     aggregate error  sum |p_i - r_i| / sum |r_i|
 *   pearson_r   Pearson correlation of p and r (0 when either is constant)
 *   spearman_rho Pearson correlation of the ranks (ties get their mean rank)
 *   kendall_tau Kendall tau-b (tie-corrected) over the same ranks; 0 when
 *               either is constant
 * Ties: values within CALM_TIE_REL (relative) of their sorted neighbour rank
 * together. Reference results print IPC to six significant digits, and
 * held-out predictions of rows a model calls equal differ below that only
 * by each fold's fit tolerance — ranks the data cannot support (and under
 * leave-one-out anti-correlated with the reference by construction: a fold
 * that leaves out a fast row fits a slower level).
 *   nrmse       sqrt(mean (p_i - r_i)^2) / mean(r_i)
 *   n_under_10  count of rows with APE_i < 0.10
 *   n           rows compared
 * All ratios are fractions (0.15 = 15%). */
#ifndef GPUDSE_CALIB_METRICS_H
#define GPUDSE_CALIB_METRICS_H

#include <stddef.h>

#define CALM_TIE_REL 1e-6

typedef struct {
    size_t n;
    double mape, median_ape, p90_ape, max_ape;
    double agg_err, pearson_r, spearman_rho, kendall_tau, nrmse;
    size_t n_under_10;
} calm_metrics;

/* Compute every metric of pred against ref (n values each). Returns 0, or
 * -1 when n == 0, an input is not finite, or memory runs out (out is then
 * zeroed). O(n^2) for Kendall's tau; meant for up to a few thousand rows. */
int calm_compute(const double *ref, const double *pred, size_t n,
               calm_metrics *out);

/* Single metrics, for callers that need one figure (same definitions). */
double calm_pearson(const double *x, const double *y, size_t n);
double calm_spearman(const double *x, const double *y, size_t n);
double calm_kendall_tau_b(const double *x, const double *y, size_t n);
/* Mean absolute error |pred - ref| in the values' own unit: for rates and
 * fractions (miss rates, occupancy), where a relative error of a value near
 * 0 says little. 0 when n == 0. */
double calm_mae(const double *ref, const double *pred, size_t n);

/* 1 when the reference values vary by less than CALM_FLAT_REL (max < (1 +
 * CALM_FLAT_REL)·min, all positive): a rank correlation over them says
 * little, so rho is not asked of them and MAPE is the measure. 0 otherwise
 * (also when n < 2 or a value is not positive and finite). */
#define CALM_FLAT_REL 0.2
int calm_is_flat(const double *ref, size_t n);

/* Rank resolution of a set of reference values: the relative row error
 * sigma at which a model whose only error is random, p_i = r_i·exp(sigma·z_i)
 * with z_i standard normal and independent per row, reaches a mean
 * Spearman rho of `target` against ref over `draws` seeded draws. It says
 * how finely predictions must resolve these rows for a rho target to be
 * meaningful: near-tied references (sub-percent differences, exact ties)
 * give a small sigma. Found by bisection on log sigma in [1e-6, 1] with the
 * same normals at every sigma (deterministic for a given seed). Returns
 * sigma as a fraction; 1 when even sigma = 1 reaches target; 0 when even
 * 1e-6 does not (ties alone keep rho below target); -1 when n < 3, a value
 * is not finite, target is not in (-1, 1], draws is 0, or memory runs out. */
double calm_rank_resolution(const double *ref, size_t n, double target,
                          unsigned draws, unsigned long seed);

/* The draws gpudse uses for n values: 400 up to 250 values, fewer above so
 * the work stays near 10^5 ranked values (at least 20). */
unsigned calm_resolution_draws(size_t n);

/* One line "n=26 MAPE 8.1% agg 7.9% r 0.981 rho 0.953 tau 0.85 NRMSE 9.2%
 * <10%: 20 max 21.3% median 6.0% p90 15.2%" into buf. */
void calm_format(const calm_metrics *m, char *buf, size_t bufsz);

#endif
