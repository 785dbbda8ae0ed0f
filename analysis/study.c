/* study: replays every (strategy, seed) of a campaign's <study> through
 * pipeline/search/strategy with an oracle, tracks the hypervolume of what each
 * replay has found after every evaluation (objectives normalised to the
 * basis front's ideal..nadir, reference point 1.1 — as in quality.c), and
 * summarises over seeds with GSL quantiles. Strategies are deterministic
 * for a seed and their observations, so a replay against the journal
 * follows exactly the path the engine took. */
#include "study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "hypervolume.h"
#include "pareto.h"
#include "strategy.h"

typedef struct {
    size_t len;        /* evaluations the replay got through */
    double *y;         /* len x k minimised objective rows (NaN: failed) */
} replay;

static int run_replay(const camp_campaign *c, const char *name,
                      uint64_t seed, study_oracle f, void *arg, replay *rp,
                      gd_err *err)
{
    size_t k = (size_t)c->nobjectives, cap = (size_t)c->budget;
    strat *st;
    int rc = strat_new(name, &c->space, c->budget, seed, &st, err);
    if (rc)
        return rc;
    rc = strat_set_objectives(st, c->obj, c->nobjectives, err);
    strat_set_constraints(st, c);
    rp->len = 0;
    rp->y = malloc((cap ? cap : 1) * k * sizeof *rp->y);
    gpu_config *batch = malloc(256 * sizeof *batch);
    store_record *r = malloc(sizeof *r);
    if (!rc && (!rp->y || !batch || !r))
        rc = gd_errf(err, GD_EENV, "out of memory");
    size_t n;
    int stop = 0;
    while (!rc && !stop && (n = strat_next(st, batch, 256)) > 0)
        for (size_t i = 0; i < n && !stop && rp->len < cap; i++) {
            memset(r, 0, sizeof *r);
            if (f(arg, &batch[i], r) != 0) {
                stop = 1;
                break;
            }
            /* an infeasible result never counts towards the front */
            int use = r->status == ST_OK
                      && camp_feasible(c, &r->metrics, NULL);
            for (size_t j = 0; j < k; j++) {
                double v = NAN;
                if (use && met_get(&r->metrics, c->obj[j].metric, &v) != 0)
                    v = NAN;
                rp->y[rp->len * k + j] = c->obj[j].maximize ? -v : v;
            }
            rp->len++;
            strat_observe(st, &batch[i], r);
        }
    free(batch);
    free(r);
    strat_free(st);
    return rc;
}

/* Hypervolume after each evaluation of a replay, into hv[len]. */
static int hv_curve(const replay *rp, size_t k, const double *lo,
                    const double *hi, double *hv)
{
    double *nrm = malloc((rp->len ? rp->len : 1) * k * sizeof *nrm);
    double *front = malloc((rp->len ? rp->len : 1) * k * sizeof *front);
    double ref[CAMP_MAXOBJ], cur = 0;
    size_t nf = 0;
    if (!nrm || !front) {
        free(nrm);
        free(front);
        return -1;
    }
    for (size_t j = 0; j < k; j++)
        ref[j] = HV_REF_NORMALISED;
    hv_normalise(rp->y, rp->len, k, lo, hi, nrm);
    for (size_t i = 0; i < rp->len; i++) {
        const double *q = nrm + i * k;
        int dominated = 0, finite = 1;
        for (size_t j = 0; j < k; j++)
            finite &= isfinite(q[j]);
        for (size_t a = 0; finite && !dominated && a < nf; a++) {
            int le = 1;
            for (size_t j = 0; j < k; j++)
                le &= front[a * k + j] <= q[j];
            dominated = le;
        }
        if (finite && !dominated) {
            size_t m = 0;   /* drop what q dominates, then add q */
            for (size_t a = 0; a < nf; a++) {
                int ge = 1;
                for (size_t j = 0; j < k; j++)
                    ge &= q[j] <= front[a * k + j];
                if (!ge)
                    memmove(front + (m++) * k, front + a * k,
                            k * sizeof *front);
            }
            memcpy(front + m * k, q, k * sizeof *front);
            nf = m + 1;
            if (hv_compute(front, nf, k, ref, &cur) != 0) {
                free(nrm);
                free(front);
                return -1;
            }
        }
        hv[i] = cur;
    }
    free(nrm);
    free(front);
    return 0;
}

/* Basis bounds: the reference front's, else the front of all replays. */
static int basis_bounds(const replay *rp, size_t nrp, size_t k,
                        const double *ref, size_t nref, double *lo,
                        double *hi)
{
    if (ref) {
        hv_bounds(ref, nref, k, lo, hi);
        return 0;
    }
    size_t total = 0;
    for (size_t i = 0; i < nrp; i++)
        total += rp[i].len;
    double *all = malloc((total ? total : 1) * k * sizeof *all);
    size_t *idx = malloc((total ? total : 1) * sizeof *idx);
    double *f = malloc((total ? total : 1) * k * sizeof *f);
    if (!all || !idx || !f) {
        free(all); free(idx); free(f);
        return -1;
    }
    size_t at = 0;
    for (size_t i = 0; i < nrp; i++) {
        memcpy(all + at * k, rp[i].y, rp[i].len * k * sizeof *all);
        at += rp[i].len;
    }
    size_t nf = pareto_front(all, total, k, idx);
    for (size_t i = 0; i < nf; i++)
        memcpy(f + i * k, all + idx[i] * k, k * sizeof *f);
    hv_bounds(f, nf, k, lo, hi);
    free(all); free(idx); free(f);
    return 0;
}

static double full_hv(const double *rows, size_t n, size_t k,
                      const double *lo, const double *hi)
{
    double *nrm = malloc((n ? n : 1) * k * sizeof *nrm), ref[CAMP_MAXOBJ];
    double v = NAN;
    for (size_t j = 0; j < k; j++)
        ref[j] = HV_REF_NORMALISED;
    if (nrm) {
        hv_normalise(rows, n, k, lo, hi, nrm);
        if (hv_compute(nrm, n, k, ref, &v) != 0)
            v = NAN;
    }
    free(nrm);
    return v;
}

/* Six significant digits: the curves are for figures, and shorter
 * numbers keep analysis.json readable. */
static double tidy(double v)
{
    if (!isfinite(v) || v == 0)
        return v;
    double e = floor(log10(fabs(v)));
    double s = pow(10, 5 - e);
    return round(v * s) / s;
}

static cJSON *num(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(tidy(v)) : cJSON_CreateNull();
}

static double quantile(double *v, size_t n, double q)
{
    gsl_sort(v, 1, n);
    return gsl_stats_quantile_from_sorted_data(v, 1, n, q);
}

/* First evaluation count whose ratio reaches target, or NaN. */
static double evals_to(const double *ratio, size_t len, double target)
{
    for (size_t i = 0; i < len; i++)
        if (ratio[i] >= target)
            return (double)(i + 1);
    return NAN;
}

double study_reach_median(const double *evals, int n)
{
    double v[128];
    int reached = 0;
    if (n <= 0 || n > 128)
        return NAN;
    for (int s = 0; s < n; s++) {
        v[s] = isfinite(evals[s]) ? evals[s] : INFINITY;
        reached += isfinite(evals[s]) != 0;
    }
    if (2 * reached < n)
        return NAN;
    gsl_sort(v, 1, (size_t)n);
    if (n % 2)
        return v[n / 2];
    if (!isfinite(v[n / 2]))   /* exactly half reached */
        return v[n / 2 - 1];
    return 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static cJSON *reach_json(double **ratio, const size_t *len, int seeds,
                         double target)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *per = cJSON_AddArrayToObject(o, "per_seed");
    double v[100];
    int reached = 0;
    for (int s = 0; s < seeds; s++) {
        double e = evals_to(ratio[s], len[s], target);
        cJSON_AddItemToArray(per, num(e));
        reached += isfinite(e);
        v[s] = e;
    }
    double med = study_reach_median(v, seeds);
    cJSON_AddItemToObject(o, "median", num(med));
    cJSON_AddNumberToObject(o, "reached", reached);
    return o;
}

static cJSON *strategy_json(const char *name, double **ratio,
                            const size_t *len, int seeds, long budget)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    size_t common = (size_t)budget;
    for (int s = 0; s < seeds; s++)
        common = len[s] < common ? len[s] : common;
    cJSON_AddNumberToObject(o, "evaluations", (double)common);
    cJSON *med = cJSON_AddArrayToObject(o, "median");
    cJSON *q1 = cJSON_AddArrayToObject(o, "q1");
    cJSON *q3 = cJSON_AddArrayToObject(o, "q3");
    double v[100];
    for (size_t i = 0; i < common; i++) {
        for (int s = 0; s < seeds; s++)
            v[s] = ratio[s][i];
        cJSON_AddItemToArray(q1, num(quantile(v, (size_t)seeds, 0.25)));
        cJSON_AddItemToArray(med, num(quantile(v, (size_t)seeds, 0.5)));
        cJSON_AddItemToArray(q3, num(quantile(v, (size_t)seeds, 0.75)));
    }
    cJSON *fin = cJSON_AddArrayToObject(o, "final_per_seed");
    for (int s = 0; s < seeds; s++)
        cJSON_AddItemToArray(fin, num(len[s] ? ratio[s][len[s] - 1] : NAN));
    cJSON_AddItemToObject(o, "evals_to_95", reach_json(ratio, len, seeds,
                                                       0.95));
    cJSON_AddItemToObject(o, "evals_to_99", reach_json(ratio, len, seeds,
                                                       0.99));
    return o;
}

static void free_replays(replay *rp, size_t n)
{
    for (size_t i = 0; rp && i < n; i++)
        free(rp[i].y);
    free(rp);
}

int study_json(const camp_campaign *c, study_oracle f, void *arg,
               const double *ref, size_t nref, cJSON **out, gd_err *err)
{
    size_t k = (size_t)c->nobjectives, ns = (size_t)c->nstudy;
    int seeds = c->study_seeds > 0 ? c->study_seeds : 1;
    size_t nrp = ns * (size_t)seeds;
    replay *rp = calloc(nrp ? nrp : 1, sizeof *rp);
    if (!rp)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = GD_OK;
    for (size_t i = 0; !rc && i < nrp; i++)
        rc = run_replay(c, c->study[i / (size_t)seeds],
                        c->seed + i % (size_t)seeds, f, arg, &rp[i], err);
    double lo[CAMP_MAXOBJ], hi[CAMP_MAXOBJ];
    if (!rc && basis_bounds(rp, nrp, k, ref, nref, lo, hi) != 0)
        rc = gd_errf(err, GD_EENV, "out of memory");
    double hv_basis = NAN;
    if (!rc && ref)
        hv_basis = full_hv(ref, nref, k, lo, hi);
    /* without a reference: the best any replay reached is the basis */
    double **ratio = calloc(nrp ? nrp : 1, sizeof *ratio);
    if (!rc && !ratio)
        rc = gd_errf(err, GD_EENV, "out of memory");
    for (size_t i = 0; !rc && i < nrp; i++) {
        ratio[i] = malloc((rp[i].len ? rp[i].len : 1) * sizeof **ratio);
        if (!ratio[i] || hv_curve(&rp[i], k, lo, hi, ratio[i]) != 0)
            rc = gd_errf(err, GD_EENV, "out of memory");
    }
    if (!rc && !ref) {
        hv_basis = 0;
        for (size_t i = 0; i < nrp; i++)
            if (rp[i].len && ratio[i][rp[i].len - 1] > hv_basis)
                hv_basis = ratio[i][rp[i].len - 1];
    }
    for (size_t i = 0; !rc && i < nrp; i++)
        for (size_t e = 0; e < rp[i].len; e++)
            ratio[i][e] = hv_basis > 0 ? ratio[i][e] / hv_basis : NAN;
    if (!rc) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "budget", (double)c->budget);
        cJSON *sd = cJSON_AddArrayToObject(o, "seeds");
        for (int s = 0; s < seeds; s++)
            cJSON_AddItemToArray(sd, cJSON_CreateNumber(
                                         (double)(c->seed + (uint64_t)s)));
        cJSON_AddStringToObject(o, "basis", ref ? "reference front"
                                    : "best front found by the study");
        cJSON_AddStringToObject(o, "measure", "hypervolume / basis "
                                "hypervolume after each evaluation");
        cJSON *sa = cJSON_AddArrayToObject(o, "strategies");
        size_t len[100];
        for (size_t s = 0; s < ns; s++) {
            for (int j = 0; j < seeds; j++)
                len[j] = rp[s * (size_t)seeds + (size_t)j].len;
            cJSON_AddItemToArray(sa, strategy_json(
                c->study[s], ratio + s * (size_t)seeds, len, seeds,
                c->budget));
        }
        *out = o;
    }
    for (size_t i = 0; ratio && i < nrp; i++)
        free(ratio[i]);
    free(ratio);
    free_replays(rp, nrp);
    return rc;
}
