/* calibrate: GSL nonlinear least-squares fit of a descriptor's free
 * parameters to measured IPC, k-fold / leave-one-out held-out error, and
 * where a fit was calibrated (the CSV reader is calib_csv.c, the command
 * calib_cmd.c). */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "model.h"

#define CAL_MAXFREE (CAL_NPARAMS * WL_MAXKERNELS)
#define CAL_FAIL_RESIDUAL 5.0  /* log-error charged when a config cannot run */
#define CAL_REFINE 4           /* screened points the optimiser starts from */

/* --------------------------------------------------- free parameters */

/* A free parameter: where it lives and its bounds. Bounded parameters are
 * fitted through a logistic map, footprints through a log map, so the
 * unconstrained optimiser never leaves the descriptor's valid ranges. */
typedef struct {
    const char *name;
    size_t off;
    int logscale;              /* 1: x = exp(u) within [lo, hi] */
    double lo, hi;
} pdef;

#define PF(f) offsetof(wl_kernel, f)
static const pdef pdefs[CAL_NPARAMS] = {
    [CAL_ILP] = {"ilp", PF(ilp), 0, 1, 16},
    [CAL_MEM_WAITS] = {"mem_waits", PF(mem_waits), 0, 0, 0 /* per kernel */},
    [CAL_L1_REUSE] = {"l1_reuse", PF(l1_reuse), 0, 0, 1},
    [CAL_FOOTPRINT_CTA] = {"footprint_kb_per_cta", PF(footprint_kb_per_cta),
                           1, 0.01, 1e5},
    [CAL_L2_REUSE] = {"l2_reuse", PF(l2_reuse), 0, 0, 1},
    [CAL_FOOTPRINT_TOTAL] = {"footprint_kb_total", PF(footprint_kb_total), 1,
                             0.01, 1e8},
    [CAL_MEM_EFF] = {"mem_eff", PF(mem_eff), 0, 0.05, 1},
};
#undef PF

const char *cal_param_name(int p)
{
    return p >= 0 && p < CAL_NPARAMS ? pdefs[p].name : "unknown";
}

int cal_parse_params(const char *list, unsigned *mask, gd_err *err)
{
    char buf[512];
    util_strlcpy(buf, list, sizeof buf);
    *mask = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int p = 0; p < CAL_NPARAMS; p++)
            if (!strcmp(t, pdefs[p].name))
                found = p;
        if (found < 0)
            return gd_errf(err, GD_EINPUT, "--params: unknown parameter "
                           "'%s' (free parameters: ilp, mem_waits, l1_reuse, "
                           "footprint_kb_per_cta, l2_reuse, "
                           "footprint_kb_total, mem_eff)", t);
        *mask |= 1u << found;
    }
    if (!*mask)
        return gd_errf(err, GD_EINPUT, "--params: empty list");
    return GD_OK;
}

void cal_opts_default(cal_opts *o)
{
    o->params = CAL_ALL_PARAMS;
    o->prior = 0.001;
    o->ident = CAL_IDENT_DEFAULT;
    o->max_iter = 60;
    o->starts = 0;
}

/* Bounds of parameter p of kernel k. */
static void bounds(const wl_kernel *k, int p, double *lo, double *hi)
{
    *lo = pdefs[p].lo;
    *hi = pdefs[p].hi;
    if (p == CAL_MEM_WAITS)
        *hi = 2.0 * (k->insn_ld_global + k->insn_atomic) + 1.0;
}

/* Whether parameter p can affect kernel k at all. */
static int relevant(const wl_kernel *k, int p)
{
    int loads = k->insn_ld_global + k->insn_atomic > 0;
    int mem = loads || k->insn_st_global > 0;
    switch (p) {
    case CAL_MEM_WAITS: return loads;
    case CAL_L1_REUSE: case CAL_FOOTPRINT_CTA: return k->insn_ld_global > 0;
    case CAL_L2_REUSE: case CAL_FOOTPRINT_TOTAL: case CAL_MEM_EFF: return mem;
    default: return 1;
    }
}

static double *field(wl_kernel *k, int p)
{
    return (double *)((char *)k + pdefs[p].off);
}

double cal_param_get(const wl_kernel *k, int p)
{
    return *(const double *)((const char *)k + pdefs[p].off);
}

static double to_x(const wl_kernel *k, int p, double u)
{
    double lo, hi;
    bounds(k, p, &lo, &hi);
    if (pdefs[p].logscale) {
        double x = exp(u);
        return x < lo ? lo : x > hi ? hi : x;
    }
    return lo + (hi - lo) / (1.0 + exp(-u));
}

static double to_u(const wl_kernel *k, int p, double x)
{
    double lo, hi;
    bounds(k, p, &lo, &hi);
    if (pdefs[p].logscale)
        return log(x < lo ? lo : x > hi ? hi : x);
    double s = (x - lo) / (hi - lo), eps = 1e-3;
    s = s < eps ? eps : s > 1 - eps ? 1 - eps : s;
    return log(s / (1 - s));
}

/* The fitted unknowns: (kernel, parameter) pairs. */
typedef struct {
    wl_workload w;             /* working copy the residuals evaluate */
    int kern[CAL_MAXFREE], par[CAL_MAXFREE];
    double u0[CAL_MAXFREE];
    size_t np;
    const cal_row *rows;
    size_t n;
    double sqrt_prior;
} fit_ctx;

static void ctx_init(fit_ctx *x, const wl_workload *w, const cal_row *rows,
                     size_t n, const cal_opts *o)
{
    x->w = *w;
    x->np = 0;
    for (int ki = 0; ki < w->nkernels; ki++)
        for (int p = 0; p < CAL_NPARAMS; p++)
            if ((o->params >> p & 1u) && relevant(&w->k[ki], p)) {
                x->kern[x->np] = ki;
                x->par[x->np] = p;
                x->u0[x->np] = to_u(&w->k[ki], p, *field(&x->w.k[ki], p));
                x->np++;
            }
    x->rows = rows;
    x->n = n;
    x->sqrt_prior = sqrt(o->prior);
}

static void ctx_apply(fit_ctx *x, const gsl_vector *u)
{
    for (size_t j = 0; j < x->np; j++) {
        wl_kernel *k = &x->w.k[x->kern[j]];
        *field(k, x->par[j]) = to_x(k, x->par[j], gsl_vector_get(u, j));
    }
}

/* log IPC of the working copy at every row (0 where it cannot run). */
static void log_ipc(fit_ctx *x, double *out)
{
    for (size_t i = 0; i < x->n; i++) {
        model_out o;
        out[i] = model_eval(&x->w, &x->rows[i].c, &o, NULL) == 0 && o.ipc > 0
                     ? log(o.ipc) : 0;
    }
}

/* Column j of the sensitivity matrix: d log IPC / d x per row, times the
 * parameter's unit step (a quarter of a bounded range, which is what one
 * logistic unit moves x at mid-range; a factor e for footprints). The
 * difference is taken inside the range so a parameter at its bound still
 * shows how much moving it would matter. */
static void sensitivity_column(fit_ctx *x, size_t j, double *fp, double *fm,
                               gsl_matrix *S)
{
    wl_kernel *k = &x->w.k[x->kern[j]];
    double *v = field(k, x->par[j]), x0 = *v, lo, hi, a, b, unit;
    bounds(k, x->par[j], &lo, &hi);
    if (pdefs[x->par[j]].logscale) {
        a = x0 * exp(-0.05);
        b = x0 * exp(0.05);
        unit = 1.0 / 0.1;
    } else {
        double d = 0.02 * (hi - lo);
        a = x0 - d < lo ? lo : x0 - d;
        b = a + 2 * d > hi ? hi : a + 2 * d;
        a = b - 2 * d;
        unit = 0.25 * (hi - lo) / (b - a);
    }
    *v = b;
    log_ipc(x, fp);
    *v = a;
    log_ipc(x, fm);
    *v = x0;
    for (size_t i = 0; i < x->n; i++)
        gsl_matrix_set(S, i, j, (fp[i] - fm[i]) * unit);
}

/* Keep only the unknowns the rows can identify. Rank-revealing QR with
 * column pivoting of the sensitivity matrix at the start orders the
 * unknowns by how much each changes the predictions beyond what the ones
 * before it can mimic; |R_kk|/sqrt(n) is that independent effect as an
 * RMS change of log IPC per unit step. An unknown below o->ident stays at
 * its descriptor value: its fitted value would be set by the model's own
 * structural error (5-10% in-sample on the reference rows), not by the
 * workload, and moves from fit to fit (docs/model.md, "Calibration"). The
 * first pivot is always kept. Returns -1 when out of memory. */
static int select_identifiable(fit_ctx *x, double ident)
{
    size_t n = x->n, np = x->np;
    if (ident <= 0 || np < 2 || n < np)
        return 0;
    gsl_matrix *S = gsl_matrix_alloc(n, np);
    gsl_vector *tau = gsl_vector_alloc(np), *norm = gsl_vector_alloc(np);
    gsl_permutation *perm = gsl_permutation_alloc(np);
    double *fp = malloc(n * sizeof *fp), *fm = malloc(n * sizeof *fm);
    int rc = S && tau && norm && perm && fp && fm ? 0 : -1;
    int keep[CAL_MAXFREE] = {0}, sig;
    for (size_t j = 0; rc == 0 && j < np; j++)
        sensitivity_column(x, j, fp, fm, S);
    if (rc == 0 && gsl_linalg_QRPT_decomp(S, tau, perm, &sig, norm) != 0)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < np; k++) {
        double r = fabs(gsl_matrix_get(S, k, k)) / sqrt((double)n);
        keep[gsl_permutation_get(perm, k)] = k == 0 || r >= ident;
    }
    size_t m = 0;
    for (size_t j = 0; rc == 0 && j < np; j++)
        if (keep[j]) {
            x->kern[m] = x->kern[j];
            x->par[m] = x->par[j];
            x->u0[m] = x->u0[j];
            m++;
        }
    if (rc == 0)
        x->np = m;
    gsl_matrix_free(S);
    gsl_vector_free(tau);
    gsl_vector_free(norm);
    gsl_permutation_free(perm);
    free(fp);
    free(fm);
    return rc;
}

static int residuals(const gsl_vector *u, void *data, gsl_vector *f)
{
    fit_ctx *x = data;
    ctx_apply(x, u);
    for (size_t i = 0; i < x->n; i++) {
        model_out o;
        double r = CAL_FAIL_RESIDUAL;
        if (model_eval(&x->w, &x->rows[i].c, &o, NULL) == 0 && o.ipc > 0)
            r = log(o.ipc / x->rows[i].ipc);
        gsl_vector_set(f, i, r);
    }
    for (size_t j = 0; j < x->np; j++)
        gsl_vector_set(f, x->n + j,
                       x->sqrt_prior * (gsl_vector_get(u, j) - x->u0[j]));
    return GSL_SUCCESS;
}

/* One trust-region Levenberg-Marquardt run from u (overwritten with the
 * solution); returns the final cost 0.5 |f|^2 or INFINITY. */
static double solve_from(fit_ctx *x, gsl_vector *u, int max_iter)
{
    const gsl_multifit_nlinear_type *T = gsl_multifit_nlinear_trust;
    gsl_multifit_nlinear_parameters params =
        gsl_multifit_nlinear_default_parameters();
    size_t nres = x->n + x->np;
    gsl_multifit_nlinear_workspace *ws =
        gsl_multifit_nlinear_alloc(T, &params, nres, x->np);
    if (!ws)
        return INFINITY;
    gsl_multifit_nlinear_fdf fdf;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = residuals;
    fdf.df = NULL;             /* finite-difference Jacobian */
    fdf.n = nres;
    fdf.p = x->np;
    fdf.params = x;
    double cost = INFINITY;
    if (gsl_multifit_nlinear_init(u, &fdf, ws) == GSL_SUCCESS) {
        int info;
        gsl_multifit_nlinear_driver((size_t)max_iter, 1e-8, 1e-8, 0.0, NULL,
                                    NULL, &info, ws);
        gsl_vector *sol = gsl_multifit_nlinear_position(ws);
        gsl_vector *res = gsl_multifit_nlinear_residual(ws);
        double c = 0;
        for (size_t i = 0; i < nres; i++)
            c += gsl_vector_get(res, i) * gsl_vector_get(res, i);
        if (isfinite(c)) {
            cost = 0.5 * c;
            gsl_vector_memcpy(u, sol);
        }
    }
    gsl_multifit_nlinear_free(ws);
    return cost;
}

/* Starts: the descriptor itself, the middle of every bounded range, and
 * the descriptor nudged down by one unit of u. */
static void start_point(const fit_ctx *x, int which, gsl_vector *u)
{
    for (size_t j = 0; j < x->np; j++) {
        double v = x->u0[j];
        if (which == 1 && !pdefs[x->par[j]].logscale)
            v = 0;
        else if (which == 2)
            v -= 1.0;
        gsl_vector_set(u, j, v);
    }
}

/* Objective at u: 0.5 |f|^2, the cost solve_from minimises. */
static double cost_at(fit_ctx *x, const gsl_vector *u, gsl_vector *f)
{
    residuals(u, x, f);
    double c = 0;
    for (size_t i = 0; i < f->size; i++)
        c += gsl_vector_get(f, i) * gsl_vector_get(f, i);
    return isfinite(c) ? 0.5 * c : INFINITY;
}

/* The R_d low-discrepancy sequence in [0,1)^d (Roberts 2018): point i has
 * coordinates frac(0.5 + i * a_j), a_j = phi^-(j+1), phi the real root of
 * z^(d+1) = z + 1. Deterministic, evenly spread in any dimension, no table
 * of primes. */
static double rd_phi(size_t d)
{
    double phi = 2.0;
    for (int it = 0; it < 60; it++)
        phi = pow(1.0 + phi, 1.0 / (double)(d + 1));
    return phi;
}

/* Screened start i (0-based) of the box every unknown can reach: a bounded
 * parameter anywhere in its range (uniform in x, kept 1e-3 inside the
 * bounds as to_u does), a footprint within a factor e^2 of the
 * descriptor's (the cache capacities a footprint is compared with span a
 * factor of 6 across the knob space). */
static void screen_point(const fit_ctx *x, size_t i, double phi,
                         gsl_vector *u)
{
    double a = 1.0;
    for (size_t j = 0; j < x->np; j++) {
        a /= phi;
        double r = 0.5 + (double)(i + 1) * a, v;
        r -= floor(r);
        if (pdefs[x->par[j]].logscale) {
            v = x->u0[j] + 2.0 * (2.0 * r - 1.0);
        } else {
            double e = 1e-3, q = e + (1 - 2 * e) * r;
            v = log(q / (1 - q));
        }
        gsl_vector_set(u, j, v);
    }
}

/* The starts the optimiser runs from, one per row of U: the three fixed
 * ones, then the CAL_REFINE lowest-cost of o->starts screened points (the
 * objective can have several local minima, and a parameter whose
 * descriptor value sits at a bound starts where the logistic map is flat:
 * docs/model.md, "Calibration"). Screening costs one evaluation of the
 * rows per point; returns how many starts were filled. */
static size_t choose_starts(fit_ctx *x, const cal_opts *o, gsl_matrix *U)
{
    size_t m = 0;
    gsl_vector_view row;
    for (int s = 0; s < 3; s++, m++) {
        row = gsl_matrix_row(U, m);
        start_point(x, s, &row.vector);
    }
    size_t ns = o->starts > 0 ? (size_t)o->starts : 0, nb = 0;
    size_t want = U->size1 - m, idx[CAL_REFINE];
    double best[CAL_REFINE], phi = rd_phi(x->np);
    gsl_vector *u = ns ? gsl_vector_alloc(x->np) : NULL;
    gsl_vector *f = ns ? gsl_vector_alloc(x->n + x->np) : NULL;
    for (size_t s = 0; u && f && s < ns; s++) {
        screen_point(x, s, phi, u);
        double c = cost_at(x, u, f);
        if (!isfinite(c) || (nb == want && c >= best[nb - 1]))
            continue;
        size_t k = nb < want ? nb++ : nb - 1;
        for (; k > 0 && best[k - 1] > c; k--) {
            best[k] = best[k - 1];
            idx[k] = idx[k - 1];
        }
        best[k] = c;
        idx[k] = s;
    }
    for (size_t b = 0; b < nb; b++, m++) {
        row = gsl_matrix_row(U, m);
        screen_point(x, idx[b], phi, &row.vector);
    }
    gsl_vector_free(u);
    gsl_vector_free(f);
    return m;
}

int cal_fit(wl_workload *w, const cal_row *rows, size_t n,
            const cal_opts *o, double *cost_out, gd_err *err)
{
    if (n == 0)
        return gd_errf(err, GD_EINPUT, "calibrate: no reference rows");
    fit_ctx *x = malloc(sizeof *x);
    if (!x)
        return gd_errf(err, GD_EENV, "out of memory");
    ctx_init(x, w, rows, n, o);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (select_identifiable(x, o->ident)) {
        gsl_set_error_handler(old);
        free(x);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    if (x->np == 0) {
        gsl_set_error_handler(old);
        free(x);
        return gd_errf(err, GD_EINPUT, "calibrate: workload '%s' has no "
                       "free parameter to fit among those chosen", w->name);
    }
    gsl_vector *u = gsl_vector_alloc(x->np), *best = gsl_vector_alloc(x->np);
    gsl_matrix *U = gsl_matrix_alloc(3 + (o->starts > 0 ? CAL_REFINE : 0),
                                     x->np);
    size_t nstart = U ? choose_starts(x, o, U) : 0;
    double best_cost = INFINITY;
    for (size_t s = 0; u && best && s < nstart; s++) {
        gsl_vector_const_view row = gsl_matrix_const_row(U, s);
        gsl_vector_memcpy(u, &row.vector);
        double c = solve_from(x, u, o->max_iter);
        if (c < best_cost) {
            best_cost = c;
            gsl_vector_memcpy(best, u);
        }
    }
    int rc = GD_OK;
    if (!u || !best || !isfinite(best_cost)) {
        rc = gd_errf(err, GD_EENV, "calibrate: the least-squares fit of "
                     "'%s' failed", w->name);
    } else {
        ctx_apply(x, best);
        double c = 0;
        for (size_t i = 0; i < n; i++) {
            model_out mo;
            double r = CAL_FAIL_RESIDUAL;
            if (model_eval(&x->w, &rows[i].c, &mo, NULL) == 0 && mo.ipc > 0)
                r = log(mo.ipc / rows[i].ipc);
            c += r * r;
        }
        for (int ki = 0; ki < w->nkernels; ki++)
            w->k[ki] = x->w.k[ki];
        if (cost_out)
            *cost_out = c;
    }
    gsl_vector_free(u);
    gsl_vector_free(best);
    gsl_matrix_free(U);
    gsl_set_error_handler(old);
    free(x);
    return rc;
}

static void append_name(char *buf, size_t len, const fit_ctx *x, size_t j)
{
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, "%s%s.%s", l ? "," : "",
             x->w.k[x->kern[j]].name, pdefs[x->par[j]].name);
}

int cal_identified(const wl_workload *w, const cal_row *rows, size_t n,
                   const cal_opts *o, char *kept, char *dropped, size_t len,
                   gd_err *err)
{
    kept[0] = dropped[0] = '\0';
    fit_ctx *all = malloc(sizeof *all), *sel = malloc(sizeof *sel);
    int rc = all && sel ? GD_OK : gd_errf(err, GD_EENV, "out of memory");
    if (rc == GD_OK) {
        ctx_init(all, w, rows, n, o);
        *sel = *all;
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        if (select_identifiable(sel, o->ident))
            rc = gd_errf(err, GD_EENV, "out of memory");
        gsl_set_error_handler(old);
    }
    for (size_t j = 0, m = 0; rc == GD_OK && j < all->np; j++) {
        int in = m < sel->np && sel->kern[m] == all->kern[j]
                 && sel->par[m] == all->par[j];
        append_name(in ? kept : dropped, len, all, j);
        m += in;
    }
    free(all);
    free(sel);
    return rc;
}

void cal_predict(const wl_workload *w, const cal_row *rows, size_t n,
                 double *pred)
{
    for (size_t i = 0; i < n; i++) {
        model_out o;
        pred[i] = model_eval(w, &rows[i].c, &o, NULL) == 0 ? o.ipc : NAN;
    }
}

int cal_heldout(const wl_workload *w, const cal_row *rows, size_t n,
                int folds, const cal_opts *o, double *pred, gd_err *err)
{
    if (n < 2)
        return gd_errf(err, GD_EINPUT, "calibrate: held-out error needs at "
                       "least 2 reference rows, got %zu", n);
    size_t k = folds < 2 || (size_t)folds > n ? n : (size_t)folds;
    cal_row *train = malloc(n * sizeof *train);
    wl_workload *fit = malloc(sizeof *fit);
    int rc = train && fit ? GD_OK : gd_errf(err, GD_EENV, "out of memory");
    for (size_t f = 0; f < k && rc == GD_OK; f++) {
        size_t nt = 0;
        for (size_t i = 0; i < n; i++)
            if (i % k != f)
                train[nt++] = rows[i];
        *fit = *w;
        if ((rc = cal_fit(fit, train, nt, o, NULL, err)))
            break;
        for (size_t i = f; i < n; i += k) {
            model_out mo;
            pred[i] = model_eval(fit, &rows[i].c, &mo, NULL) == 0 ? mo.ipc
                                                                   : NAN;
        }
    }
    free(train);
    free(fit);
    return rc;
}

/* Record in every kernel of fit where it was calibrated: the rows' count,
 * the held-out RMS of log(modelled / measured IPC) (pred: the held-out
 * predictions; NAN rows skipped) and each size knob's range over the rows
 * (model_interval widens the interval and flags a config outside it). */
void cal_record_region(wl_workload *fit, const cal_row *rows, size_t n,
                          const double *pred)
{
    double ss = 0, lo[4], hi[4];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const gpu_config *c = &rows[i].c;
        double v[4] = {c->n_clusters * c->cores_per_cluster, c->n_mem,
                       c->l1_sets, c->l2_sets};
        for (int j = 0; j < 4; j++) {
            lo[j] = i == 0 || v[j] < lo[j] ? v[j] : lo[j];
            hi[j] = i == 0 || v[j] > hi[j] ? v[j] : hi[j];
        }
        if (isfinite(pred[i]) && pred[i] > 0) {
            double r = log(pred[i] / rows[i].ipc);
            ss += r * r;
            m++;
        }
    }
    for (int ki = 0; n > 0 && ki < fit->nkernels; ki++) {
        wl_kernel *k = &fit->k[ki];
        k->cal_rows = (double)n;
        k->cal_log_sd = m ? sqrt(ss / m) : 0;
        k->cal_sm_min = lo[0];
        k->cal_sm_max = hi[0];
        k->cal_mem_min = lo[1];
        k->cal_mem_max = hi[1];
        k->cal_l1_min = lo[2];
        k->cal_l1_max = hi[2];
        k->cal_l2_min = lo[3];
        k->cal_l2_max = hi[3];
    }
}
