/* sensitivity: one-hot least squares on knob levels. The main-effects model
 * is y ~ 1 + sum over knobs of indicators of every level but the first;
 * its R², k-fold CV error (folds by a hash of the config), and per
 * knob the partial dependence (mean prediction with the knob forced to each
 * level). Interactions: for every pair of knobs the main-effects model plus
 * the pair's level-product indicators; the strength is the R² it adds. */
#include "sensitivity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_multifit.h>

typedef struct {
    int64_t idx;
    int lv[SPACE_MAXKNOBS];
    int fold;          /* cross-validation fold: a hash of idx */
    double y;
} row;

/* Fold of a space index: splitmix64 of the index, so folds depend on the
 * config alone (not on row order) and do not line up with any knob. */
static int fold_of(int64_t idx, int folds)
{
    uint64_t z = (uint64_t)idx + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (int)(z % (uint64_t)folds);
}

typedef struct {
    const space_def *s;
    int nact, act[SPACE_MAXKNOBS];
    row *rows;
    size_t n;
} data;

static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int level_pos(const space_def *s, int k, int value)
{
    for (int l = 0; l < s->nlevels[k]; l++)
        if (s->levels[k][l] == value)
            return l;
    return -1;
}

static size_t main_cols(const data *d)
{
    size_t p = 1;
    for (int a = 0; a < d->nact; a++)
        p += (size_t)d->s->nlevels[d->act[a]] - 1;
    return p;
}

static size_t pair_cols(const data *d, int ka, int kb)
{
    return (size_t)(d->s->nlevels[ka] - 1) * (size_t)(d->s->nlevels[kb] - 1);
}

/* The nonzero columns of a row's feature vector, in column order: the
 * intercept, each active knob's indicator of the row's level (none for a
 * knob's first level), then the (ka,kb) product when ka >= 0. Every
 * nonzero feature is 1, so sums over these columns add the same terms in
 * the same order as a dense pass over all p columns would (the skipped
 * terms are zeros). Returns the count. */
static size_t nz_cols(const data *d, const row *r, int ka, int kb,
                      size_t *nzi)
{
    size_t nz = 0, c = 1;
    nzi[nz++] = 0;
    for (int a = 0; a < d->nact; a++) {
        int k = d->act[a];
        if (r->lv[k] > 0)
            nzi[nz++] = c + (size_t)r->lv[k] - 1;
        c += (size_t)d->s->nlevels[k] - 1;
    }
    if (ka >= 0 && r->lv[ka] > 0 && r->lv[kb] > 0)
        nzi[nz++] = c + (size_t)(r->lv[ka] - 1) * (size_t)(d->s->nlevels[kb] - 1)
                    + (size_t)r->lv[kb] - 1;
    return nz;
}

/* The fitted value of a row: the sum of the coefficients of its nonzero
 * columns. */
static double fitted(const data *d, const row *r, int ka, int kb,
                     const double *coef)
{
    size_t nzi[SPACE_MAXKNOBS + 2];
    size_t nz = nz_cols(d, r, ka, kb, nzi);
    double f = 0;
    for (size_t j = 0; j < nz; j++)
        f += coef[nzi[j]];
    return f;
}

/* Least squares on the rows not in fold skip (all rows when skip < 0);
 * coefficients into coef (p values) and the residual sum of squares into
 * *chisq. The rows are first reduced to their normal equations X'X, X'y
 * (one-hot rows are sparse, so this is one cheap pass), and
 * gsl_multifit_linear solves the equivalent p x p system
 * X' = S^1/2 V', y' = S^-1/2 V' X'y from the eigen-decomposition
 * X'X = V S V' — the same solution, without an SVD of thousands of rows
 * (rank-deficient systems get the minimum-norm solution instead).
 * Returns 0, 1 when too few rows, -1 when out of memory or GSL fails. */
static int fit(const data *d, int ka, int kb, int skip,
               double *coef, double *chisq)
{
    size_t p = main_cols(d) + (ka >= 0 ? pair_cols(d, ka, kb) : 0), m = 0;
    for (size_t i = 0; i < d->n; i++)
        m += skip < 0 || d->rows[i].fold != skip;
    if (m < p + 1)
        return 1;
    gsl_matrix *A = gsl_matrix_calloc(p, p), *V = gsl_matrix_alloc(p, p);
    gsl_matrix *Xr = gsl_matrix_alloc(p, p), *cov = gsl_matrix_alloc(p, p);
    gsl_vector *ev = gsl_vector_alloc(p), *yr = gsl_vector_alloc(p);
    gsl_vector *c = gsl_vector_alloc(p);
    gsl_eigen_symmv_workspace *ew = gsl_eigen_symmv_alloc(p);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(p, p);
    double *xty = calloc(p, sizeof *xty);
    size_t nzi[SPACE_MAXKNOBS + 2];
    int rc = -1;
    if (!A || !V || !Xr || !cov || !ev || !yr || !c || !ew || !w || !xty)
        goto out;
    for (size_t i = 0; i < d->n; i++) {
        if (skip >= 0 && d->rows[i].fold == skip)
            continue;
        /* the row's nonzero columns (a handful of p): each cell of A
         * gets the same additions in the same order as a dense pass */
        size_t nz = nz_cols(d, &d->rows[i], ka, kb, nzi);
        double *a = gsl_matrix_ptr(A, 0, 0);
        size_t tda = A->tda;
        for (size_t j = 0; j < nz; j++) {
            size_t q = nzi[j];
            xty[q] += d->rows[i].y;
            for (size_t k = 0; k <= j; k++)
                a[q * tda + nzi[k]] += 1;
        }
    }
    if (gsl_eigen_symmv(A, ev, V, ew) != 0)
        goto out;
    double smax = 0;
    int full_rank = 1;
    for (size_t q = 0; q < p; q++)
        smax = fmax(smax, gsl_vector_get(ev, q));
    for (size_t q = 0; q < p; q++)
        full_rank &= gsl_vector_get(ev, q) > smax * 1e-10;
    for (size_t q = 0; q < p; q++)
        coef[q] = 0;
    for (size_t q = 0; q < p; q++) {
        double e = gsl_vector_get(ev, q), vty = 0;
        for (size_t r = 0; r < p; r++)
            vty += gsl_matrix_get(V, r, q) * xty[r];
        if (!(e > smax * 1e-10))
            continue;      /* a direction the data do not determine */
        for (size_t r = 0; r < p; r++) {
            gsl_matrix_set(Xr, q, r, sqrt(e) * gsl_matrix_get(V, r, q));
            coef[r] += gsl_matrix_get(V, r, q) * vty / e;
        }
        gsl_vector_set(yr, q, vty / sqrt(e));
    }
    /* Full rank: gsl_multifit_linear on the equivalent square system.
     * Rank-deficient (a level absent from the rows, or knobs confounded):
     * keep the minimum-norm solution accumulated above, which leaves
     * undetermined columns at 0 (GSL's column balancing would blow the
     * rounding noise in such columns up). */
    double ignore;
    if (full_rank) {
        if (gsl_multifit_linear(Xr, yr, c, cov, &ignore, w) != 0)
            goto out;
        for (size_t q = 0; q < p; q++)
            coef[q] = gsl_vector_get(c, q);
    }
    double ss = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (skip >= 0 && d->rows[i].fold == skip)
            continue;
        double f = fitted(d, &d->rows[i], ka, kb, coef);
        ss += (d->rows[i].y - f) * (d->rows[i].y - f);
    }
    *chisq = ss;
    rc = 0;
out:
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_matrix_free(Xr);
    gsl_matrix_free(cov);
    gsl_vector_free(ev);
    gsl_vector_free(yr);
    gsl_vector_free(c);
    if (ew)
        gsl_eigen_symmv_free(ew);
    if (w)
        gsl_multifit_linear_free(w);
    free(xty);
    return rc;
}

static double predict(const data *d, const row *r, const double *coef)
{
    return fitted(d, r, -1, -1, coef);
}

static double total_ss(const data *d)
{
    double mean = 0, ss = 0;
    for (size_t i = 0; i < d->n; i++)
        mean += d->rows[i].y;
    mean /= (double)d->n;
    for (size_t i = 0; i < d->n; i++)
        ss += (d->rows[i].y - mean) * (d->rows[i].y - mean);
    return ss;
}

/* Partial dependence of every active knob from the main-effects fit. */
static void main_effects(const data *d, const double *coef, sens_result *o)
{
    double mean_pred = 0;
    for (size_t i = 0; i < d->n; i++)
        mean_pred += predict(d, &d->rows[i], coef);
    mean_pred /= (double)d->n;
    size_t c = 1;
    for (int a = 0; a < d->nact; a++) {
        int k = d->act[a], nl = d->s->nlevels[k];
        double cl[SPACE_MAXLEVELS] = {0}, avg = 0;
        for (int l = 1; l < nl; l++)
            cl[l] = coef[c++];
        for (size_t i = 0; i < d->n; i++)
            avg += cl[d->rows[i].lv[k]];
        avg /= (double)d->n;
        sens_main *m = &o->main[o->nmain++];
        m->knob = k;
        m->nlevels = nl;
        int count[SPACE_MAXLEVELS] = {0};
        for (size_t i = 0; i < d->n; i++)
            count[d->rows[i].lv[k]]++;
        double lo = INFINITY, hi = -INFINITY;
        for (int l = 0; l < nl; l++) {
            m->value[l] = d->s->levels[k][l];
            m->mean[l] = count[l] ? mean_pred - avg + cl[l] : NAN;
            if (!count[l])
                continue;   /* a level no row has: unknown */
            lo = m->mean[l] < lo ? m->mean[l] : lo;
            hi = m->mean[l] > hi ? m->mean[l] : hi;
        }
        m->effect = hi >= lo ? hi - lo : 0;
    }
}

static double cv_rmse(const data *d, int folds, double *coef, int *ok)
{
    double sse = 0, chisq;
    size_t cnt = 0;
    *ok = 1;
    for (int f = 0; f < folds; f++) {
        int rc = fit(d, -1, -1, f, coef, &chisq);
        if (rc) {
            *ok = rc > 0 ? 0 : -1;
            return NAN;
        }
        for (size_t i = 0; i < d->n; i++) {
            if (d->rows[i].fold != f)
                continue;
            double e = d->rows[i].y - predict(d, &d->rows[i], coef);
            sse += e * e;
            cnt++;
        }
    }
    return cnt ? sqrt(sse / (double)cnt) : NAN;
}

static void insert_pair(sens_result *o, int a, int b, double strength)
{
    int at = o->npairs < SENS_TOP ? o->npairs++ : SENS_TOP;
    if (at == SENS_TOP && strength <= o->pair[SENS_TOP - 1].strength)
        return;
    if (at == SENS_TOP)
        at = SENS_TOP - 1;
    while (at > 0 && o->pair[at - 1].strength < strength) {
        o->pair[at] = o->pair[at - 1];
        at--;
    }
    o->pair[at] = (sens_pair){a, b, strength};
}

static int interactions(const data *d, double sst, double chisq_main,
                        double *coef, sens_result *o)
{
    for (int a = 0; a < d->nact; a++)
        for (int b = a + 1; b < d->nact; b++) {
            double chisq;
            int rc = fit(d, d->act[a], d->act[b], -1, coef, &chisq);
            if (rc < 0)
                return -1;
            if (rc > 0)
                continue;
            insert_pair(o, d->act[a], d->act[b],
                        sst > 0 ? (chisq_main - chisq) / sst : 0);
        }
    return 0;
}

static int load_rows(const gpu_config *cfg, const double *y, size_t n,
                     int folds, data *d)
{
    d->rows = malloc((n ? n : 1) * sizeof *d->rows);
    if (!d->rows)
        return -1;
    d->n = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t idx = space_index(d->s, &cfg[i]);
        if (idx < 0 || !isfinite(y[i]))
            continue;
        row *r = &d->rows[d->n++];
        r->idx = idx;
        r->fold = fold_of(idx, folds);
        r->y = y[i];
        for (int k = 0; k < space_nknobs(d->s); k++)
            r->lv[k] = level_pos(d->s, k, space_get(&cfg[i], k));
    }
    qsort(d->rows, d->n, sizeof *d->rows, cmp_row);
    return 0;
}

int sens_fit(const gpu_config *cfg, const double *y, size_t n,
             const space_def *s, int folds, sens_result *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    data d = {s, 0, {0}, NULL, 0};
    for (int k = 0; k < space_nknobs(s); k++)
        if (s->nlevels[k] > 1)
            d.act[d.nact++] = k;
    if (folds < 2)
        folds = 2;
    if (load_rows(cfg, y, n, folds, &d) != 0)
        return gd_errf(err, GD_EENV, "out of memory");
    out->n = d.n;
    size_t pmax = main_cols(&d) + SPACE_MAXLEVELS * SPACE_MAXLEVELS;
    double *coef = malloc(pmax * sizeof *coef), chisq = 0;
    int rc = coef ? 0 : -1;
    if (!rc && d.nact > 0 && d.n > 0)
        rc = fit(&d, -1, -1, -1, coef, &chisq);
    if (rc == 0 && d.nact > 0 && d.n > 0) {
        double sst = total_ss(&d);
        out->r2 = sst > 0 ? 1 - chisq / sst : 1;
        main_effects(&d, coef, out);
        int cvok;
        out->cv_rmse = cv_rmse(&d, folds, coef, &cvok);
        if (cvok == 0)
            out->cv_rmse = NAN;   /* too few rows to hold any out */
        rc = cvok < 0 ? -1 : interactions(&d, sst, chisq, coef, out);
        out->fitted = rc == 0;
        if (!out->fitted)
            out->nmain = out->npairs = 0;
    }
    free(coef);
    free(d.rows);
    if (rc < 0)
        return gd_errf(err, GD_EENV, "out of memory");
    return GD_OK;
}
