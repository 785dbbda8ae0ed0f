/* calib_metrics: MAPE, aggregate error, Pearson r, Spearman rho, Kendall
 * tau-b, NRMSE, APE quantiles, count under 10%, and the rank resolution of
 * a reference set — definitions in calib_metrics.h. */
#include "calib_metrics.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

double calm_mae(const double *ref, const double *pred, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += fabs(pred[i] - ref[i]);
    return n ? sum / n : 0;
}

double calm_pearson(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return 0;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

typedef struct {
    double v;
    size_t i;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const ranked *)a)->v, y = ((const ranked *)b)->v;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* Whether two sorted neighbours rank as a tie: equal to CALM_TIE_REL. */
static int tied(double lo, double hi)
{
    return hi - lo <= CALM_TIE_REL * fmax(fabs(lo), fabs(hi));
}

/* Ranks 1..n of x into r, ties (runs of sorted neighbours within
 * CALM_TIE_REL of each other) sharing their mean rank. O(n log n): the
 * rank resolution ranks thousands of noisy copies of a reference set. */
static int ranks(const double *x, size_t n, double *r)
{
    ranked *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++)
        s[i] = (ranked){x[i], i};
    qsort(s, n, sizeof *s, cmp_ranked);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && tied(s[j].v, s[j + 1].v))
            j++;
        double mean_rank = (i + j) / 2.0 + 1;
        for (size_t k = i; k <= j; k++)
            r[s[k].i] = mean_rank;
        i = j + 1;
    }
    free(s);
    return 0;
}

/* Ranks of x and y into new arrays *rx, *ry (the caller frees both, also
 * on failure, when they may be NULL). Returns 0, or -1 when out of memory. */
static int rank_pair(const double *x, const double *y, size_t n, double **rx,
                     double **ry)
{
    *rx = malloc(n * sizeof **rx);
    *ry = malloc(n * sizeof **ry);
    return *rx && *ry && ranks(x, n, *rx) == 0 && ranks(y, n, *ry) == 0
               ? 0 : -1;
}

static int sign(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

/* Kendall tau-b over ranks, so that ties are the same pairs as Spearman's. */
static double kendall_of_ranks(const double *rx, const double *ry, size_t n)
{
    double conc_minus_disc = 0, n1 = 0, n2 = 0, n0 = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int sx = sign(rx[i] - rx[j]), sy = sign(ry[i] - ry[j]);
            n0 += 1;
            n1 += sx == 0;  /* pairs tied in x */
            n2 += sy == 0;  /* pairs tied in y */
            conc_minus_disc += sx * sy;
        }
    double den = sqrt((n0 - n1) * (n0 - n2));
    return den > 0 ? conc_minus_disc / den : 0;
}

/* stat applied to the ranks of x and y (ties averaged); 0 when n < 2 or
 * out of memory. */
static double on_ranks(const double *x, const double *y, size_t n,
                       double (*stat)(const double *, const double *, size_t))
{
    if (n < 2)
        return 0;
    double *rx, *ry, v = 0;
    if (rank_pair(x, y, n, &rx, &ry) == 0)
        v = stat(rx, ry, n);
    free(rx);
    free(ry);
    return v;
}

double calm_spearman(const double *x, const double *y, size_t n)
{
    return on_ranks(x, y, n, calm_pearson);
}

double calm_kendall_tau_b(const double *x, const double *y, size_t n)
{
    return on_ranks(x, y, n, kendall_of_ranks);
}

/* Quantile q of sorted v (n >= 1), linear between order statistics. */
static double quantile_sorted(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

int calm_compute(const double *ref, const double *pred, size_t n,
               calm_metrics *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(ref[i]) || !isfinite(pred[i]))
            return -1;
    double *ape = malloc(n * sizeof *ape);
    if (!ape)
        return -1;
    size_t na = 0;
    double abs_err = 0, abs_ref = 0, sq = 0, sum_ref = 0;
    for (size_t i = 0; i < n; i++) {
        double d = pred[i] - ref[i];
        abs_err += fabs(d);
        abs_ref += fabs(ref[i]);
        sq += d * d;
        sum_ref += ref[i];
        if (ref[i] != 0)
            ape[na++] = fabs(d) / fabs(ref[i]);
    }
    out->n = n;
    if (na > 0) {
        double s = 0;
        for (size_t i = 0; i < na; i++) {
            s += ape[i];
            out->n_under_10 += ape[i] < 0.10;
        }
        qsort(ape, na, sizeof *ape, cmp_double);
        out->mape = s / na;
        out->median_ape = quantile_sorted(ape, na, 0.5);
        out->p90_ape = quantile_sorted(ape, na, 0.9);
        out->max_ape = ape[na - 1];
    }
    free(ape);
    out->agg_err = abs_ref > 0 ? abs_err / abs_ref : 0;
    double mean_ref = sum_ref / n;
    out->nrmse = mean_ref != 0 ? sqrt(sq / n) / fabs(mean_ref) : 0;
    out->pearson_r = calm_pearson(pred, ref, n);
    double *rp, *rr;   /* ranked once for both rank statistics */
    int rc = rank_pair(pred, ref, n, &rp, &rr);
    if (rc == 0) {
        out->spearman_rho = calm_pearson(rp, rr, n);
        out->kendall_tau = kendall_of_ranks(rp, rr, n);
    } else {
        memset(out, 0, sizeof *out);
    }
    free(rp);
    free(rr);
    return rc;
}

/* Mean Spearman rho of ref against ref·exp(sigma·z) over `draws` draws. The
 * generator is reseeded for every sigma, so each sigma sees the same z
 * (common random numbers): the bisection is deterministic and the mean
 * moves with sigma, not with the draws. */
static int noisy_oracle_rho(const double *ref, size_t n, double sigma,
                            unsigned draws, unsigned long seed, double *p,
                            double *mean)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    if (!g)
        return -1;
    gsl_rng_set(g, seed);
    double sum = 0;
    for (unsigned d = 0; d < draws; d++) {
        for (size_t i = 0; i < n; i++)
            p[i] = ref[i] * exp(sigma * gsl_ran_gaussian_ziggurat(g, 1.0));
        sum += calm_spearman(ref, p, n);
    }
    gsl_rng_free(g);
    *mean = sum / draws;
    return 0;
}

/* The bisection of calm_rank_resolution, p being scratch for n predictions. */
static double resolution_search(const double *ref, size_t n, double target,
                                unsigned draws, unsigned long seed, double *p)
{
    double lo = log(1e-6), hi = 0, rho;
    if (noisy_oracle_rho(ref, n, exp(hi), draws, seed, p, &rho) != 0)
        return -1;
    if (rho >= target)
        return 1;
    if (noisy_oracle_rho(ref, n, exp(lo), draws, seed, p, &rho) != 0)
        return -1;
    if (rho < target)
        return 0;
    /* rho(lo) >= target > rho(hi): 40 halvings of the 14-unit log
     * interval leave it under 1e-10 wide. */
    for (int it = 0; it < 40; it++) {
        double mid = 0.5 * (lo + hi);
        if (noisy_oracle_rho(ref, n, exp(mid), draws, seed, p, &rho) != 0)
            return -1;
        if (rho >= target)
            lo = mid;
        else
            hi = mid;
    }
    return exp(lo);
}

double calm_rank_resolution(const double *ref, size_t n, double target,
                          unsigned draws, unsigned long seed)
{
    if (n < 3 || draws == 0 || !(target > -1 && target <= 1))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(ref[i]))
            return -1;
    double *p = malloc(n * sizeof *p);
    if (!p)
        return -1;
    double sigma = resolution_search(ref, n, target, draws, seed, p);
    free(p);
    return sigma;
}

unsigned calm_resolution_draws(size_t n)
{
    return n < 250 ? 400 : n < 5000 ? (unsigned)(100000 / n) : 20;
}

void calm_format(const calm_metrics *m, char *buf, size_t bufsz)
{
    snprintf(buf, bufsz,
             "n=%zu MAPE %.1f%% agg %.1f%% r %.3f rho %.3f tau %.3f "
             "NRMSE %.1f%% <10%%: %zu max %.1f%% median %.1f%% p90 %.1f%%",
             m->n, 100 * m->mape, 100 * m->agg_err, m->pearson_r,
             m->spearman_rho, m->kendall_tau, 100 * m->nrmse, m->n_under_10,
             100 * m->max_ape, 100 * m->median_ape, 100 * m->p90_ape);
}

int calm_is_flat(const double *ref, size_t n)
{
    if (n < 2)
        return 0;
    double lo = ref[0], hi = ref[0];
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(ref[i]) || ref[i] <= 0)
            return 0;
        lo = ref[i] < lo ? ref[i] : lo;
        hi = ref[i] > hi ? ref[i] : hi;
    }
    return hi < (1 + CALM_FLAT_REL) * lo;
}
