/* calibrate: reference-CSV reader, GSL nonlinear least-squares fit of a
 * descriptor's free parameters to measured IPC, k-fold / leave-one-out
 * held-out error, and the `gpudse calibrate` command. */
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

#define CAL_MAXCOLS 64
#define CAL_MAXFREE (CAL_NPARAMS * WL_MAXKERNELS)
#define CAL_FAIL_RESIDUAL 5.0  /* log-error charged when a config cannot run */
#define CAL_REFINE 4           /* screened points the optimiser starts from */

/* ------------------------------------------------------------ CSV reading */

/* Split line in place at commas (double quotes group a field); returns the
 * number of fields. */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        while (*p == ' ')
            p++;
        if (*p == '"') {
            f[n++] = ++p;
            while (*p && *p != '"')
                p++;
            if (*p)
                *p++ = '\0';
            while (*p && *p != ',')
                p++;
        } else {
            f[n++] = p;
            while (*p && *p != ',' && *p != '\r' && *p != '\n')
                p++;
        }
        if (*p != ',') {
            *p = '\0';
            break;
        }
        *p++ = '\0';
    }
    return n;
}

typedef struct {
    int knob[SPACE_NKNOBS];    /* column of each knob or -1 */
    int kernel, design, ipc;   /* columns or -1 */
    int ncols;
} csv_cols;

static int read_header(const char *path, char *line, csv_cols *cols,
                       gd_err *err)
{
    char *f[CAL_MAXCOLS];
    int n = split_fields(line, f, CAL_MAXCOLS);
    memset(cols, -1, sizeof *cols);
    cols->ncols = n;
    int nknobs = 0;
    for (int i = 0; i < n; i++) {
        int k = space_knob_find(f[i]);
        if (k >= 0) {
            if (cols->knob[k] >= 0)
                return gd_errf(err, GD_EINPUT, "%s:1: column '%s' appears "
                               "twice", path, f[i]);
            cols->knob[k] = i;
            nknobs++;
        } else if (!strcmp(f[i], "kernel")) {
            cols->kernel = i;
        } else if (!strcmp(f[i], "design")) {
            cols->design = i;
        } else if (!strcmp(f[i], "ipc")) {
            cols->ipc = i;
        }
    }
    if (nknobs == 0)
        return gd_errf(err, GD_EINPUT, "%s:1: the header names no knob "
                       "column (expected some of n_clusters, "
                       "cores_per_cluster, n_mem, shmem_size, scheduler, "
                       "num_sched_per_core, l1_sets, l2_sets)", path);
    return GD_OK;
}

static int parse_row(const char *path, int line, char *text,
                     const csv_cols *cols, cal_row *r, gd_err *err)
{
    char *f[CAL_MAXCOLS];
    int n = split_fields(text, f, CAL_MAXCOLS);
    if (n != cols->ncols)
        return gd_errf(err, GD_EINPUT, "%s:%d: %d fields, the header has %d",
                       path, line, n, cols->ncols);
    memset(r, 0, sizeof *r);
    r->line = line;
    r->c = space_baseline();
    r->ipc = NAN;
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        if (cols->knob[k] < 0)
            continue;
        int v;
        if (space_value_parse(k, f[cols->knob[k]], &v) != 0)
            return gd_errf(err, GD_EINPUT, "%s:%d: %s=\"%s\" is not one of "
                           "the knob's values", path, line,
                           space_knob_get(k)->name, f[cols->knob[k]]);
        space_set(&r->c, k, v);
    }
    if (cols->kernel >= 0)
        util_strlcpy(r->kernel, f[cols->kernel], sizeof r->kernel);
    if (cols->design >= 0)
        util_strlcpy(r->design, f[cols->design], sizeof r->design);
    if (cols->ipc >= 0 && *f[cols->ipc]
        && util_parse_double(f[cols->ipc], &r->ipc) != 0)
        return gd_errf(err, GD_EINPUT, "%s:%d: ipc \"%s\" is not a number",
                       path, line, f[cols->ipc]);
    return GD_OK;
}

int cal_read_csv(const char *path, const char *kernel, int need_ipc,
                 cal_row **rows, size_t *n, gd_err *err)
{
    *rows = NULL;
    *n = 0;
    char *buf = NULL;
    size_t len = 0;
    if (util_read_file(path, &buf, &len, err)) {
        if (err)
            err->code = GD_EINPUT;
        return GD_EINPUT;
    }
    size_t cap = 16, cnt = 0;
    cal_row *out = malloc(cap * sizeof *out);
    csv_cols cols;
    int rc = out ? GD_OK : gd_errf(err, GD_EENV, "out of memory");
    int line = 0;
    char *save = NULL;
    for (char *l = strtok_r(buf, "\n", &save); l && rc == GD_OK;
         l = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t ll = strlen(l);
        if (ll && l[ll - 1] == '\r')
            l[--ll] = '\0';
        if (line == 1) {
            if ((rc = read_header(path, l, &cols, err)) == GD_OK && need_ipc
                && cols.ipc < 0)
                rc = gd_errf(err, GD_EINPUT, "%s:1: no 'ipc' column",
                             path);
            continue;
        }
        if (ll == 0)
            continue;
        cal_row r;
        if ((rc = parse_row(path, line, l, &cols, &r, err)))
            break;
        if (kernel && strcmp(r.kernel, kernel) != 0)
            continue;
        if (need_ipc && !(r.ipc > 0))
            rc = gd_errf(err, GD_EINPUT, "%s:%d: ipc must be a positive "
                         "number", path, line);
        if (rc == GD_OK && cnt == cap) {
            cal_row *g = realloc(out, 2 * cap * sizeof *out);
            if (!g)
                rc = gd_errf(err, GD_EENV, "out of memory");
            else {
                out = g;
                cap *= 2;
            }
        }
        if (rc == GD_OK)
            out[cnt++] = r;
    }
    if (rc == GD_OK && line == 0)
        rc = gd_errf(err, GD_EINPUT, "%s:1: empty file", path);
    free(buf);
    if (rc) {
        free(out);
        return rc;
    }
    *rows = out;
    *n = cnt;
    return GD_OK;
}

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

/* ------------------------------------------------------------ command */

typedef struct {
    const char *wl, *ref, *out, *kernel, *params;
    int folds;
    int starts;                /* < 0: default */
    double prior;              /* < 0: default */
    double ident;              /* < 0: default */
} cal_args;

static int parse_args(int argc, char **argv, cal_args *a, gd_err *err)
{
    memset(a, 0, sizeof *a);
    a->prior = -1;
    a->ident = -1;
    a->starts = -1;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        const char **slot = !strcmp(o, "-w") ? &a->wl
                            : !strcmp(o, "-r") ? &a->ref
                            : !strcmp(o, "-o") ? &a->out
                            : !strcmp(o, "--kernel") ? &a->kernel
                            : !strcmp(o, "--params") ? &a->params : NULL;
        if (!strcmp(o, "--prior") && i + 1 < argc) {
            if (util_parse_double(argv[++i], &a->prior) || a->prior < 0)
                return gd_errf(err, GD_EINPUT, "calibrate: --prior must be "
                               "a number >= 0, not '%s'", argv[i]);
            continue;
        }
        if (!strcmp(o, "--ident") && i + 1 < argc) {
            if (util_parse_double(argv[++i], &a->ident) || a->ident < 0)
                return gd_errf(err, GD_EINPUT, "calibrate: --ident must be "
                               "a number >= 0, not '%s'", argv[i]);
            continue;
        }
        if (!strcmp(o, "--starts") && i + 1 < argc) {
            long v;
            if (util_parse_long(argv[++i], 0, 100000, &v))
                return gd_errf(err, GD_EINPUT, "calibrate: --starts must "
                               "be an integer >= 0, not '%s'", argv[i]);
            a->starts = (int)v;
            continue;
        }
        if (slot || !strcmp(o, "--folds")) {
            if (i + 1 >= argc)
                return gd_errf(err, GD_EINPUT, "calibrate: %s needs a "
                               "value", o);
            if (slot) {
                *slot = argv[++i];
            } else {
                long v;
                if (util_parse_long(argv[++i], 2, 100000, &v))
                    return gd_errf(err, GD_EINPUT, "calibrate: --folds "
                                   "must be an integer >= 2, not '%s'",
                                   argv[i]);
                a->folds = (int)v;
            }
        } else {
            return gd_errf(err, GD_EINPUT, "calibrate: unexpected argument "
                           "'%s'", o);
        }
    }
    if (!a->wl || !a->ref || !a->out)
        return gd_errf(err, GD_EINPUT, "usage: gpudse calibrate -w W.xml -r "
                       "REF.csv -o OUT.xml [--kernel NAME] [--folds K] "
                       "[--params ilp,mem_waits,...] [--prior W] [--ident T] "
                       "[--starts N]");
    return GD_OK;
}

static void print_metrics(const char *label, const cal_row *rows, size_t n,
                          const double *pred)
{
    double *ref = malloc(n * sizeof *ref), *p = malloc(n * sizeof *p);
    size_t m = 0;
    for (size_t i = 0; ref && p && i < n; i++)
        if (isfinite(pred[i])) {
            ref[m] = rows[i].ipc;
            p[m++] = pred[i];
        }
    cm_metrics cm;
    char line[512] = "no predictions";
    if (m > 0 && cm_compute(ref, p, m, &cm) == 0) {
        cm_format(&cm, line, sizeof line);
        if (cm_is_flat(ref, m))   /* rho says little over near-equal rows */
            snprintf(line + strlen(line), sizeof line - strlen(line),
                     " (flat: real IPC varies < %.0f%%, rho not asked; "
                     "MAPE is the measure)", 100 * CM_FLAT_REL);
    }
    printf("  %-22s %s\n", label, line);
    free(ref);
    free(p);
}

/* How finely the reference rows must be resolved for a held-out rho of 0.9
 * to be reachable (cm_rank_resolution): printed beside the held-out
 * metrics so a low rho on near-tied rows reads as what it is. */
static void print_rank_resolution(const cal_row *rows, size_t n)
{
    double *ref = malloc(n * sizeof *ref);
    if (!ref)
        return;
    for (size_t i = 0; i < n; i++)
        ref[i] = rows[i].ipc;
    unsigned draws = cm_resolution_draws(n);
    double sigma = cm_rank_resolution(ref, n, 0.9, draws, 1);
    if (sigma > 0)
        printf("  %-22s rho 0.9 held out needs a random row error under "
               "%.2f%% on these rows (a model with no other error; %u "
               "seeded draws)\n", "rank resolution:", 100 * sigma, draws);
    else if (sigma == 0)
        printf("  %-22s rho 0.9 is out of reach on these rows (their ties "
               "alone keep it lower)\n", "rank resolution:");
    free(ref);
}

static void param_list(unsigned mask, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int p = 0; p < CAL_NPARAMS; p++)
        if (mask >> p & 1u) {
            size_t l = strlen(buf);
            snprintf(buf + l, n - l, "%s%s", l ? "," : "", pdefs[p].name);
        }
}

/* Which unknowns the fit on all rows moves (a failure here only loses the
 * line; cal_fit reports its own errors). */
static void print_identified(const wl_workload *w, const cal_row *rows,
                             size_t n, const cal_opts *o)
{
    char kept[1024], dropped[1024];
    if (cal_identified(w, rows, n, o, kept, dropped, sizeof kept, NULL))
        return;
    printf("  identified (fitted): %s; kept at the descriptor's value: %s\n",
           kept, *dropped ? dropped : "none");
}

/* Record in every kernel of fit where it was calibrated: the rows' count,
 * the held-out RMS of log(modelled / measured IPC) (pred: the held-out
 * predictions; NAN rows skipped) and each size knob's range over the rows
 * (model_interval widens the interval and flags a config outside it). */
static void record_region(wl_workload *fit, const cal_row *rows, size_t n,
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

/* Write the fitted descriptor with a comment saying where it came from. */
static int write_fitted(const cal_args *a, const wl_workload *fitted,
                        const wl_workload *orig, size_t n,
                        const cm_metrics *held, const char *folds_txt,
                        gd_err *err)
{
    util_buf c;
    util_buf_init(&c);
    util_buf_printf(&c, "calibrated by gpudse calibrate (model %s) from %s "
                    "against %zu rows of %s (kernel %s). Held-out (%s) IPC "
                    "error: MAPE %.1f%%, Spearman rho %.3f, max %.1f%%. "
                    "Fitted:", model_version(), a->wl, n, a->ref,
                    a->kernel ? a->kernel : orig->name, folds_txt,
                    100 * held->mape, held->spearman_rho,
                    100 * held->max_ape);
    for (int ki = 0; ki < fitted->nkernels; ki++)
        for (int p = 0; p < CAL_NPARAMS; p++) {
            double before = *field((wl_kernel *)&orig->k[ki], p);
            double after = *field((wl_kernel *)&fitted->k[ki], p);
            if (before != after)
                util_buf_printf(&c, " %s.%s %.4g (was %.4g)",
                                fitted->k[ki].name, pdefs[p].name, after,
                                before);
        }
    char *xml = NULL;
    int rc = wl_to_xml(fitted, c.s, &xml, err);
    util_buf_free(&c);
    if (rc == GD_OK)
        rc = util_write_file_atomic(a->out, xml, strlen(xml), err);
    free(xml);
    return rc;
}

static int run_calibrate(const cal_args *a, gd_err *err)
{
    cal_opts o;
    cal_opts_default(&o);
    int rc;
    if (a->params && (rc = cal_parse_params(a->params, &o.params, err)))
        return rc;
    if (a->prior >= 0)
        o.prior = a->prior;
    if (a->ident >= 0)
        o.ident = a->ident;
    if (a->starts >= 0)
        o.starts = a->starts;
    wl_workload *w = malloc(sizeof *w), *fit = malloc(sizeof *fit);
    cal_row *rows = NULL;
    double *pred = NULL;
    size_t n = 0;
    rc = w && fit ? wl_load_named(a->wl, w, err)
                  : gd_errf(err, GD_EENV, "out of memory");
    const char *kern = a->kernel ? a->kernel : (rc ? "" : w->name);
    if (rc == GD_OK)
        rc = cal_read_csv(a->ref, kern, 1, &rows, &n, err);
    if (rc == GD_OK && n < 3)
        rc = gd_errf(err, GD_EINPUT, "%s: %zu rows for kernel '%s'; "
                     "calibration needs at least 3 (name another with "
                     "--kernel)", a->ref, n, kern);
    if (rc == GD_OK && !(pred = malloc(n * sizeof *pred)))
        rc = gd_errf(err, GD_EENV, "out of memory");
    if (rc == GD_OK) {
        char plist[256], folds_txt[64];
        param_list(o.params, plist, sizeof plist);
        int k = a->folds && (size_t)a->folds < n ? a->folds : (int)n;
        if (k == (int)n)
            snprintf(folds_txt, sizeof folds_txt, "leave-one-out");
        else
            snprintf(folds_txt, sizeof folds_txt, "%d-fold", k);
        printf("calibrate %s: %zu rows of %s (kernel %s), model %s, free "
               "parameters %s, held-out by %s\n", w->name, n, a->ref, kern,
               model_version(), plist, folds_txt);
        print_identified(w, rows, n, &o);
        cal_predict(w, rows, n, pred);
        print_metrics("uncalibrated:", rows, n, pred);
        *fit = *w;
        double cost;
        if ((rc = cal_fit(fit, rows, n, &o, &cost, err)) == GD_OK) {
            cal_predict(fit, rows, n, pred);
            print_metrics("fit (in-sample):", rows, n, pred);
            rc = cal_heldout(w, rows, n, k, &o, pred, err);
        }
        if (rc == GD_OK) {
            char label[64];
            snprintf(label, sizeof label, "held-out (%s):", folds_txt);
            print_metrics(label, rows, n, pred);
            print_rank_resolution(rows, n);
            record_region(fit, rows, n, pred);
            cm_metrics held;
            double *ref = malloc(n * sizeof *ref);
            size_t m = 0;
            for (size_t i = 0; ref && i < n; i++)
                if (isfinite(pred[i])) {
                    ref[m] = rows[i].ipc;
                    pred[m++] = pred[i];
                }
            if (!ref || m == 0 || cm_compute(ref, pred, m, &held) != 0)
                memset(&held, 0, sizeof held);
            free(ref);
            rc = write_fitted(a, fit, w, n, &held, folds_txt, err);
            if (rc == GD_OK)
                printf("wrote %s\n", a->out);
        }
    }
    free(pred);
    free(rows);
    free(w);
    free(fit);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    gd_err err = {0, ""};
    cal_args a;
    int rc = parse_args(argc, argv, &a, &err);
    if (rc == GD_OK)
        rc = run_calibrate(&a, &err);
    if (rc)
        fprintf(stderr, "gpudse: %s\n", err.msg);
    return rc;
}
