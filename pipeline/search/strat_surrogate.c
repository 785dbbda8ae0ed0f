/* strat_surrogate: model-based search. After a Latin-hypercube start it
 * fits, every round, one ridge regression per objective (GSL eigen-
 * decomposition of X'X, ridge parameter chosen by generalised
 * cross-validation) on one-hot knob levels and, once there are some more
 * results than main effects, one-hot level pairs of knob pairs; the
 * response is the log of the metric when all observed values are positive.
 * It predicts the unproposed points one knob change away from the observed
 * front (a trust region) and proposes the batch with the largest expected
 * gain in hypervolume over that front: candidates are scored on their
 * prediction (optimistic by KAPPA prediction errors), and each pick is
 * added to the front at its predicted value before the next is scored,
 * which spreads a batch along the front. With constraints it skips the
 * candidates predicted infeasible (predict_violation); when none is
 * predicted feasible it proposes those of least predicted violation. */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>

#include "hypervolume.h"

#define NCAND 256
/* Optimism in prediction errors: 0 (exploit the mean) did best on the
 * embedded model's workloads (tests/bench_strategies.c); the believer
 * batch already spreads the picks. */
#define KAPPA 0.0
/* Candidates: unseen points one knob change from the observed front (the
 * whole space when fewer than a batch are left). A linear model
 * extrapolates badly far from its data; radius 1 beat 2, 3 and the whole
 * space on every workload of the bench at 300 evaluations. */
#define TRUST_RADIUS 1

typedef struct {
    int nact, act[SPACE_MAXKNOBS];   /* knobs with more than one level */
    size_t pmain, pfull;           /* feature counts with/without pairs */
    size_t init;                   /* size of the Latin-hypercube start */
    int started;
    double *pred;                  /* size x nobj predictions (minimised) */
    double *cpred;                 /* size x CONS_MAX: constraint metrics */
    double *pviol;                 /* size: predicted violation, 0 feasible */
} surr;

static int init(strat *st)
{
    surr *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    st->impl = s;
    s->pmain = 1;
    for (int k = 0; k < space_nknobs(&st->space); k++)
        if (st->space.nlevels[k] > 1) {
            s->act[s->nact++] = k;
            s->pmain += (size_t)st->space.nlevels[k] - 1;
        }
    s->pfull = s->pmain;
    for (int a = 0; a < s->nact; a++)
        for (int b = a + 1; b < s->nact; b++)
            s->pfull += (size_t)(st->space.nlevels[s->act[a]] - 1)
                        * (size_t)(st->space.nlevels[s->act[b]] - 1);
    size_t init = st->cap / 5;
    size_t lo = s->pmain + 4 < 16 ? 16 : s->pmain + 4;
    s->init = init < lo ? lo : init > 64 ? 64 : init;
    s->pred = malloc(st->size * CAMP_MAXOBJ * sizeof *s->pred);
    s->cpred = malloc(st->size * CONS_MAX * sizeof *s->cpred);
    s->pviol = calloc(st->size, sizeof *s->pviol);
    return s->pred && s->cpred && s->pviol ? 0 : -1;
}

static void free_impl(strat *st)
{
    surr *s = st->impl;
    if (s) {
        free(s->pred);
        free(s->cpred);
        free(s->pviol);
    }
    free(s);
}

/* Columns of the set indicators of a point (intercept, main levels, then
 * level pairs of knob pairs, when pairs):
 * writes them into col and returns how many (1 + knobs + pairs). */
static size_t active_cols(const strat *st, const surr *s, uint64_t idx,
                          int pairs, size_t *col)
{
    int lv[SPACE_MAXKNOBS];
    strat_levels(st, idx, lv);
    size_t c = 1, m = 0;
    col[m++] = 0;
    for (int a = 0; a < s->nact; a++) {
        int k = s->act[a];
        if (lv[k] > 0)
            col[m++] = c + (size_t)lv[k] - 1;
        c += (size_t)st->space.nlevels[k] - 1;
    }
    if (!pairs)
        return m;
    for (int a = 0; a < s->nact; a++)
        for (int b = a + 1; b < s->nact; b++) {
            int ka = s->act[a], kb = s->act[b];
            size_t w = (size_t)st->space.nlevels[kb] - 1;
            if (lv[ka] > 0 && lv[kb] > 0)
                col[m++] = c + (size_t)(lv[ka] - 1) * w + (size_t)lv[kb] - 1;
            c += (size_t)(st->space.nlevels[ka] - 1) * w;
        }
    return m;
}

/* Ridge regression through the eigen-decomposition of X'X (GSL
 * gsl_eigen_symmv), the ridge parameter chosen by generalised
 * cross-validation on a log grid: GCV(l) = n RSS(l) / (n - tr H(l))^2, all
 * in closed form from the eigenvalues. y is centred first (its mean is the
 * returned *mean). Works with fewer rows than columns. X is n x p. */
static int ridge_gcv(const gsl_matrix *X, const gsl_vector *y, double *coef,
                     double *mean, double *mse)
{
    size_t n = X->size1, p = X->size2;
    gsl_matrix *A = gsl_matrix_calloc(p, p), *V = gsl_matrix_alloc(p, p);
    gsl_vector *ev = gsl_vector_alloc(p);
    gsl_eigen_symmv_workspace *ew = gsl_eigen_symmv_alloc(p);
    double *xty = calloc(p, sizeof *xty), *b = calloc(p, sizeof *b);
    int rc = -1;
    if (!A || !V || !ev || !ew || !xty || !b)
        goto out;
    double m = 0, yy = 0;
    for (size_t i = 0; i < n; i++)
        m += gsl_vector_get(y, i);
    m /= (double)n;
    gsl_blas_dsyrk(CblasLower, CblasTrans, 1.0, X, 0.0, A);
    for (size_t i = 0; i < n; i++) {
        double yc = gsl_vector_get(y, i) - m;
        yy += yc * yc;
        for (size_t q = 0; q < p; q++)
            xty[q] += gsl_matrix_get(X, i, q) * yc;
    }
    if (gsl_eigen_symmv(A, ev, V, ew) != GSL_SUCCESS)
        goto out;
    double emax = 0;
    for (size_t q = 0; q < p; q++) {
        double e = gsl_vector_get(ev, q);
        emax = e > emax ? e : emax;
        for (size_t r = 0; r < p; r++)
            b[q] += gsl_matrix_get(V, r, q) * xty[r];
    }
    double best = INFINITY, lbest = emax;
    for (int g = 0; g < 48; g++) {
        double l = emax * pow(10, -9 + g * 10.0 / 47), tr = 0, rss = yy;
        for (size_t q = 0; q < p; q++) {
            double e = fmax(gsl_vector_get(ev, q), 0), d = e + l;
            tr += e / d;
            rss += -2 * b[q] * b[q] / d + e * b[q] * b[q] / (d * d);
        }
        double den = (double)n - tr;
        double gcv = den > 0.5 ? (double)n * fmax(rss, 0) / (den * den)
                               : INFINITY;
        if (gcv < best) {
            best = gcv;
            lbest = l;
        }
    }
    for (size_t r = 0; r < p; r++) {
        coef[r] = 0;
        for (size_t q = 0; q < p; q++)
            coef[r] += gsl_matrix_get(V, r, q) * b[q]
                       / (fmax(gsl_vector_get(ev, q), 0) + lbest);
    }
    *mean = m;
    *mse = isfinite(best) ? best : yy / (double)n;
    rc = 0;
out:
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_vector_free(ev);
    if (ew)
        gsl_eigen_symmv_free(ew);
    free(xty);
    free(b);
    return rc;
}

/* Response q of an observation in its own units: objective q (q < nobj;
 * NaN when the result failed), else the metric of constraint q - nobj
 * (NaN when absent). */
static double response(const strat *st, const strat_obs *o, int q)
{
    if (q < st->nobj)
        return o->ok ? o->y[q] * (st->obj[q].maximize ? -1 : 1) : NAN;
    return o->cv[q - st->nobj];
}

/* Fit response q on the observations that have it and predict every
 * unproposed point: an objective into s->pred (minimised units, optimistic
 * by kappa prediction errors), a constraint's metric into s->cpred. -1
 * when there are too few observations (or out of memory). */
static int fit_predict(strat *st, surr *s, int q, double kappa)
{
    size_t n = 0;
    int logy = 1, isobj = q < st->nobj;
    for (size_t i = 0; i < st->nobs; i++) {
        double v = response(st, &st->obs[i], q);
        if (isfinite(v)) {
            n++;
            logy &= v > 0;
        }
    }
    if (n < 4)
        return -1;
    /* pairs once there are some results beyond the main effects' count
     * (the ridge copes with fewer rows than columns) */
    int pairs = n >= s->pmain + 30;
    size_t p = pairs ? s->pfull : s->pmain;
    gsl_matrix *X = gsl_matrix_calloc(n, p);
    gsl_vector *y = gsl_vector_alloc(n);
    double *coef = malloc(p * sizeof *coef), mean, mse;
    size_t col[1 + SPACE_MAXKNOBS + SPACE_MAXKNOBS * SPACE_MAXKNOBS];
    int rc = -1;
    if (!X || !y || !coef)
        goto out;
    size_t r = 0;
    for (size_t i = 0; i < st->nobs; i++) {
        double v = response(st, &st->obs[i], q);
        if (!isfinite(v))
            continue;
        size_t m = active_cols(st, s, st->obs[i].idx, pairs, col);
        for (size_t c = 0; c < m; c++)
            gsl_matrix_set(X, r, col[c], 1);
        gsl_vector_set(y, r++, logy ? log(v) : v);
    }
    if (ridge_gcv(X, y, coef, &mean, &mse) != 0)
        goto out;
    double shift = isobj ? (st->obj[q].maximize ? 1 : -1) * kappa * sqrt(mse)
                         : 0;
    for (uint64_t i = 0; i < st->size; i++) {
        if (st->seen[i])
            continue;
        size_t m = active_cols(st, s, i, pairs, col);
        double f = mean + shift;
        for (size_t c = 0; c < m; c++)
            f += coef[col[c]];
        double v = logy ? exp(f) : f;
        if (isobj)
            s->pred[i * CAMP_MAXOBJ + q] = st->obj[q].maximize ? -v : v;
        else
            s->cpred[i * CONS_MAX + q - st->nobj] = v;
    }
    rc = 0;
out:
    gsl_matrix_free(X);
    gsl_vector_free(y);
    free(coef);
    return rc;
}

/* Predicted total violation of every unproposed point into s->pviol (0:
 * predicted feasible). A constraint on what the config alone determines
 * (area_mm2) is predicted exactly (strat_predict_infeasible); one on a
 * result metric by its regression once four results have it; until then
 * it cannot be predicted and does not count: the result decides. */
static void predict_violation(strat *st, surr *s)
{
    const camp_campaign *c = st->camp;
    int fitted[CONS_MAX] = {0};
    for (int b = 0; c && b < c->ncons; b++)
        fitted[b] = !strat_cons_from_config(st, b)
                    && fit_predict(st, s, st->nobj + b, 0) == 0;
    for (uint64_t i = 0; i < st->size; i++) {
        if (st->seen[i])
            continue;
        met_set m;
        memset(&m, 0, sizeof m);
        for (int b = 0; c && b < c->ncons; b++)
            if (fitted[b])
                met_put(&m, c->cons[b].metric, s->cpred[i * CONS_MAX + b]);
        double v = 0;
        for (int b = 0; c && b < c->ncons; b++) {
            double one;
            if (fitted[b]) {
                cons_feasible(&c->cons[b], 1, &m, &one);
                v += one;
            }
        }
        s->pviol[i] = v + (strat_predict_infeasible(st, i) ? 1 : 0);
    }
}

/* The observed front, normalised by the observed bounds; room for nobs +
 * extra rows. Returns the row count. */
static size_t front_rows(strat *st, double *rows, double *lo, double *hi)
{
    size_t k = (size_t)st->nobj, n = 0;
    double *all = malloc((st->nobs ? st->nobs : 1) * k * sizeof *all);
    size_t *pos = malloc((st->nobs ? st->nobs : 1) * sizeof *pos);
    if (!all || !pos) {
        free(all);
        free(pos);
        return 0;
    }
    for (size_t i = 0; i < st->nobs; i++)
        if (st->obs[i].ok)
            memcpy(all + (n++) * k, st->obs[i].y, k * sizeof *all);
    hv_bounds(all, n, k, lo, hi);
    size_t nf = strat_front(st, pos);
    for (size_t i = 0; i < nf; i++)
        hv_normalise(st->obs[pos[i]].y, 1, k, lo, hi, rows + i * k);
    free(all);
    free(pos);
    return nf;
}

/* Additive epsilon by which q falls short of being non-dominated by the
 * front: max over f of min_j (q_j - f_j); negative when q is not dominated. */
static double shortfall(const double *q, const double *front, size_t nf,
                        size_t k)
{
    double worst = -INFINITY;
    for (size_t f = 0; f < nf; f++) {
        double m = INFINITY;
        for (size_t j = 0; j < k; j++) {
            double d = q[j] - front[f * k + j];
            if (d < m)
                m = d;
        }
        if (m > worst)
            worst = m;
    }
    return worst;
}

typedef struct {
    uint64_t idx;
    double score;
} cand;

/* Keep the NCAND lowest shortfalls (ties by index) in c, sorted. */
/* Mark the unseen points within `radius` knob changes of lv. */
static size_t mark_near(const strat *st, int lv[SPACE_MAXKNOBS], int from,
                        int radius, unsigned char *near)
{
    size_t n = 0;
    uint64_t i = strat_index_of(st, lv);
    if (!st->seen[i] && !near[i]) {
        near[i] = 1;
        n++;
    }
    if (radius == 0)
        return n;
    for (int k = from; k < space_nknobs(&st->space); k++) {
        int keep = lv[k];
        for (int l = 0; l < st->space.nlevels[k]; l++) {
            if (l == keep)
                continue;
            lv[k] = l;
            n += mark_near(st, lv, k + 1, radius - 1, near);
        }
        lv[k] = keep;
    }
    return n;
}

/* The trust region: unseen points within `radius` knob changes of a config
 * on the observed front. Returns how many. */
static size_t trust_region(const strat *st, unsigned char *near, int radius)
{
    size_t *pos = malloc((st->nobs ? st->nobs : 1) * sizeof *pos), n = 0;
    memset(near, 0, st->size);
    if (!pos)
        return 0;
    size_t nf = strat_front(st, pos);
    for (size_t f = 0; f < nf; f++) {
        int lv[SPACE_MAXKNOBS];
        strat_levels(st, st->obs[pos[f]].idx, lv);
        n += mark_near(st, lv, 0, radius, near);
    }
    free(pos);
    return n;
}

static size_t shortlist(strat *st, surr *s, const double *front, size_t nf,
                        const double *lo, const double *hi, cand *c)
{
    size_t k = (size_t)st->nobj, m = 0;
    double q[CAMP_MAXOBJ];
    unsigned char *near = malloc(st->size);
    if (near && trust_region(st, near, TRUST_RADIUS) < st->batch) {
        free(near);
        near = NULL;
    }
    for (uint64_t i = 0; i < st->size; i++) {
        if (st->seen[i] || (near && !near[i]) || s->pviol[i] > 0)
            continue;
        hv_normalise(s->pred + i * CAMP_MAXOBJ, 1, k, lo, hi, q);
        double sc = shortfall(q, front, nf, k);
        if (m == NCAND && sc >= c[m - 1].score)
            continue;
        size_t at = m < NCAND ? m++ : NCAND - 1;
        while (at > 0 && c[at - 1].score > sc) {
            c[at] = c[at - 1];
            at--;
        }
        c[at] = (cand){i, sc};
    }
    free(near);
    return m;
}

/* Hypervolume gain of q over front (nf rows), or -shortfall when none. */
static double gain(const double *q, double *front, size_t nf, size_t k,
                   double base)
{
    double ref[CAMP_MAXOBJ], hv;
    for (size_t j = 0; j < k; j++)
        ref[j] = HV_REF_NORMALISED;
    memcpy(front + nf * k, q, k * sizeof *q);
    if (hv_compute(front, nf + 1, k, ref, &hv) != 0)
        return -INFINITY;
    if (hv > base)
        return hv - base;
    return -shortfall(q, front, nf, k);
}

static size_t pick_batch(strat *st, surr *s, gpu_config *out, size_t want)
{
    size_t k = (size_t)st->nobj, nf;
    double lo[CAMP_MAXOBJ], hi[CAMP_MAXOBJ], ref[CAMP_MAXOBJ];
    double *front = malloc((st->nobs + want + 2) * k * sizeof *front);
    cand *c = malloc(NCAND * sizeof *c);
    if (!front || !c) {
        free(front);
        free(c);
        return 0;
    }
    nf = front_rows(st, front, lo, hi);
    size_t m = shortlist(st, s, front, nf, lo, hi, c);
    for (size_t j = 0; j < k; j++)
        ref[j] = HV_REF_NORMALISED;
    size_t got = 0;
    while (got < want && m > 0) {
        double base = 0, best = -INFINITY, q[CAMP_MAXOBJ];
        hv_compute(front, nf, k, ref, &base);
        size_t bi = 0;
        for (size_t i = 0; i < m; i++) {
            hv_normalise(s->pred + c[i].idx * CAMP_MAXOBJ, 1, k, lo, hi, q);
            double g = gain(q, front, nf, k, base);
            if (g > best) {
                best = g;
                bi = i;
            }
        }
        hv_normalise(s->pred + c[bi].idx * CAMP_MAXOBJ, 1, k, lo, hi,
                     front + nf * k);
        nf++;                        /* believe the pick, spread the rest */
        strat_emit(st, c[bi].idx, out, &got);
        c[bi] = c[--m];
    }
    free(front);
    free(c);
    return got;
}

/* When no candidate is predicted feasible: the want unseen points of
 * least predicted violation (ties by index), as Deb's rule ranks them. */
static size_t least_violation(strat *st, surr *s, gpu_config *out,
                              size_t want)
{
    size_t got = 0;
    while (got < want) {
        int64_t best = -1;
        for (uint64_t i = 0; i < st->size; i++)
            if (!st->seen[i] && (best < 0 || s->pviol[i] < s->pviol[best]))
                best = (int64_t)i;
        if (best < 0)
            break;
        strat_emit(st, (uint64_t)best, out, &got);
    }
    return got;
}

static size_t next(strat *st, gpu_config *out, size_t max)
{
    surr *s = st->impl;
    if (!s->started) {
        s->started = 1;
        uint64_t *v = malloc(s->init * sizeof *v);
        if (!v)
            return 0;
        strat_queue(st, v, strat_lhs(st, s->init, v));
        free(v);
    }
    size_t k = strat_emit_queued(st, out, max);   /* the start design */
    if (k > 0)
        return k;
    if (strat_pending(st) > 0)
        return 0;
    size_t want = st->batch < max ? st->batch : max;
    for (int j = 0; j < st->nobj; j++)
        if (fit_predict(st, s, j, KAPPA) != 0)
            return strat_emit_random_feasible(st, out, want);
    if (!st->camp)
        return pick_batch(st, s, out, want);
    predict_violation(st, s);
    size_t got = pick_batch(st, s, out, want);
    return got ? got : least_violation(st, s, out, want);
}

const strat_kind strat_kind_surrogate = {"surrogate", 1, init, next, NULL,
                                         free_impl};
