/* splitcal: fit per-device efficiencies and fixed costs of the split cost
 * model from single-device size ladders (GSL weighted least squares,
 * weights 1/T^2 so every rung counts by its relative error), then score
 * held-out multi-device decisions with the shared calib_metrics module.
 * Link parameters (latency, bandwidth) come from copy ladders: device to
 * device exchanges (p2p) and, for GPUs, host<->device copies; a probed
 * CPU machine's host links from the probe's memcpy ladder (machine.c). */
#include "splitcal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_rng.h>

#include "calib_metrics.h"
#include "machine.h"
#include "parseopt.h"
#include "split_metrics.h"

int scal_measure_cpu(void *ctx, const cm_machine *m, const cm_task *t,
                     const cm_decision *d, ms_stat *out, gd_err *err)
{
    return ms_run_cpu(m, t, d, (const ms_opts *)ctx, out, err);
}

int scal_link_cpu(void *ctx, const cm_machine *m, int a, int b, size_t bytes,
                  int rounds, ms_stat *out, gd_err *err)
{
    return ms_link_cpu(m, a, b, bytes, rounds, (const ms_opts *)ctx, out, err);
}

int scal_copy_cuda(void *ctx, const cm_machine *m, int dev, size_t bytes,
                   int h2d, int rounds, ms_stat *out, gd_err *err)
{
    return ms_copy_cuda(m, dev, bytes, h2d, rounds, (const ms_opts *)ctx, out, err);
}

/* Model time of a one-device, one-chunk run with its roofline term left
 * out, and the two roofline terms at efficiency 1. */
static void known_parts(const cm_machine *m, const cm_task *t, int dev,
                        double *known, double *tf, double *tm)
{
    cm_shape s;
    cm_task_shape(t, &s);
    const cm_device *dv = &m->dev[dev];
    double g = 1.0 / (dv->slowdown.v > 0 ? dv->slowdown.v : 1); /* block 256 */
    *known = m->setup_s.v + m->setup_dev_s.v + dv->h2d_lat.v + dv->d2h_lat.v +
             dv->launch_s.v + (s.units * s.d_in + s.rep) / dv->h2d_bw.v +
             s.units * s.d_out / dv->d2h_bw.v;
    *tf = s.units * s.f / (dv->peak_flops.v * g);
    *tm = s.units * s.m / (dv->mem_bw.v * g);
}

static void task_at(const cm_task *top, double frac, cm_task *t)
{
    *t = *top;
    long u = (long)floor(top->dims[0] * frac + 0.5);
    t->dims[0] = u < 1 ? 1 : u;
}

static double weighted_r2(const double *y, const double *w, int n,
                          double chisq)
{
    double ybar = 0, sw = 0, sst = 0;
    for (int l = 0; l < n; l++) {
        ybar += w[l] * y[l];
        sw += w[l];
    }
    ybar /= sw;
    for (int l = 0; l < n; l++)
        sst += w[l] * (y[l] - ybar) * (y[l] - ybar);
    return sst > 0 ? 1.0 - chisq / sst : 1.0;
}

/* Fit one (device, class) from its ladder: y = T - known = a + x / eta,
 * x the binding roofline time at efficiency 1. Updates m. */
static int fit_one(cm_machine *m, const cm_task *top, int dev,
                   const double *ladder, int nl, scal_measure_fn fn, void *ctx,
                   scal_row *row, gd_err *err)
{
    double x[16], y[16], w[16], ratio = 1;
    int cb = 0;
    if (nl > 16)
        nl = 16;
    for (int l = 0; l < nl; l++) {
        cm_task t;
        task_at(top, ladder[l], &t);
        cm_decision d;
        cm_single_decision(m, dev, t.dims[0], &d);
        ms_stat st;
        int rc = fn(ctx, m, &t, &d, &st, err);
        if (rc)
            return rc;
        double known, tf, tm;
        known_parts(m, &t, dev, &known, &tf, &tm);
        cb = tf >= tm;
        x[l] = cb ? tf : tm;
        ratio = cb ? tm / tf : tf / tm;     /* other roof over binding one */
        y[l] = st.median - known;
        w[l] = 1.0 / (st.median * st.median);
    }
    double c0, c1, v00, v01, v11, chisq;
    gsl_fit_wlinear(x, 1, w, 1, y, 1, (size_t)nl, &c0, &c1, &v00, &v01, &v11,
                    &chisq);
    if (!(c1 > 0) || !isfinite(c1)) {     /* noise swamped the slope */
        c1 = y[nl - 1] > 0 ? y[nl - 1] / x[nl - 1] : 1.0;
        c0 = 0;
    }
    cm_device *dv = &m->dev[dev];
    int k = top->kind;
    double eta = fmin(10.0, fmax(1e-4, 1.0 / c1));
    /* The other roof must stay below the fitted one: its efficiency is
     * raised to at least what keeps it from binding (estimated). */
    if (cb) {
        dv->eta_f[k] = (cm_num){eta, CM_MEASURED};
        if (dv->eta_m[k].v < eta * ratio)
            dv->eta_m[k] = (cm_num){eta * ratio, CM_ESTIMATED};
    } else {
        dv->eta_m[k] = (cm_num){eta, CM_MEASURED};
        if (dv->eta_f[k].v < eta * ratio)
            dv->eta_f[k] = (cm_num){eta * ratio, CM_ESTIMATED};
    }
    dv->fixed_s[k] = (cm_num){c0 > 0 ? c0 : 0, CM_MEASURED};
    *row = (scal_row){dev, k, eta, dv->fixed_s[k].v, cb, nl,
                      weighted_r2(y, w, nl, chisq)};
    return GD_OK;
}

int scal_fit_machine(cm_machine *m, const cm_task *tasks, int ntasks,
                     const double *ladder, int nladder, scal_measure_fn fn,
                     void *ctx, scal_fit *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    if (nladder < 2)
        return gd_errf(err, GD_EINPUT, "calibration needs a ladder of at "
                       "least 2 sizes");
    for (int k = 0; k < CM_NKINDS; k++) {
        const cm_task *top = NULL;
        for (int i = 0; i < ntasks; i++)
            if (tasks[i].kind == k &&
                (!top || tasks[i].dims[0] > top->dims[0]))
                top = &tasks[i];
        if (!top)
            continue;
        for (int dev = 0; dev < m->ndev; dev++) {
            int rc = fit_one(m, top, dev, ladder, nladder, fn, ctx,
                             &out->rows[out->nrows], err);
            if (rc)
                return rc;
            out->nrows++;
        }
    }
    return GD_OK;
}

/* time = lat + bytes / bw through a ladder of n sizes (weights 1/T^2). */
static void fit_lat_bw(const double *x, const double *y, int n, double *lat,
                       double *bw, double *r2)
{
    double w[16], c0, c1, v00, v01, v11, chisq;
    for (int l = 0; l < n; l++)
        w[l] = 1.0 / (y[l] * y[l]);
    gsl_fit_wlinear(x, 1, w, 1, y, 1, (size_t)n, &c0, &c1, &v00, &v01, &v11,
                    &chisq);
    *bw = c1 > 0 ? 1.0 / c1 : x[n - 1] / y[n - 1];
    *lat = c0 > 0 ? c0 : 0;
    *r2 = weighted_r2(y, w, n, chisq);
}

int scal_fit_links(cm_machine *m, scal_link_fn fn, void *ctx,
                   scal_links *out, gd_err *err)
{
    enum { NL = SCAL_LINK_RUNGS, ROUNDS = 64 };
    const size_t sizes[NL] = {4096, 65536, 262144, 1048576};
    memset(out, 0, sizeof *out);
    for (int a = 0; a < m->ndev; a++)
        for (int b = a + 1; b < m->ndev; b++) {
            double x[NL], y[NL], lat, bw, r2;
            for (int l = 0; l < NL; l++) {
                ms_stat st;
                int rc = fn(ctx, m, a, b, sizes[l], ROUNDS, &st, err);
                if (rc)
                    return rc;
                x[l] = (double)sizes[l];
                y[l] = st.median;
            }
            fit_lat_bw(x, y, NL, &lat, &bw, &r2);
            m->p2p_lat[a][b] = m->p2p_lat[b][a] = (cm_num){lat, CM_MEASURED};
            m->p2p_bw[a][b] = m->p2p_bw[b][a] = (cm_num){bw, CM_MEASURED};
            out->links[out->nlinks++] = (scal_link){a, b, lat, bw, r2};
        }
    return GD_OK;
}

int scal_fit_host_links(cm_machine *m, scal_copy_fn fn, void *ctx,
                        scal_host_links *out, gd_err *err)
{
    enum { NL = SCAL_LINK_RUNGS, ROUNDS = 8 };
    const size_t sizes[NL] = {262144, 2097152, 16777216, 67108864};
    memset(out, 0, sizeof *out);
    for (int dev = 0; dev < m->ndev; dev++)
        for (int h2d = 1; h2d >= 0; h2d--) {
            double x[NL], y[NL], lat, bw, r2;
            for (int l = 0; l < NL; l++) {
                ms_stat st;
                int rc = fn(ctx, m, dev, sizes[l], h2d, ROUNDS, &st, err);
                if (rc)
                    return rc;
                x[l] = (double)sizes[l];
                y[l] = st.median;
            }
            fit_lat_bw(x, y, NL, &lat, &bw, &r2);
            cm_device *dv = &m->dev[dev];
            *(h2d ? &dv->h2d_lat : &dv->d2h_lat) = (cm_num){lat, CM_MEASURED};
            *(h2d ? &dv->h2d_bw : &dv->d2h_bw) = (cm_num){bw, CM_MEASURED};
            out->links[out->nlinks++] = (scal_host_link){dev, h2d, lat, bw, r2};
        }
    return GD_OK;
}

int scal_parallel_efficiency(const cm_machine *m, scal_measure_fn fn,
                             void *ctx, double *eff, gd_err *err)
{
    cm_machine plain = *m;
    for (int i = 0; i < plain.ndev; i++)
        plain.dev[i].slowdown.v = 1;
    cm_task one = {CM_MAP, {32768, 128, 0}, 4}, all = one;
    all.dims[0] = one.dims[0] * plain.ndev;
    cm_decision d1, dn;
    cm_single_decision(&plain, 0, one.dims[0], &d1);
    memset(&dn, 0, sizeof dn);
    dn.n = plain.ndev;
    for (int i = 0; i < plain.ndev; i++) {
        util_strlcpy(dn.dev[i], plain.dev[i].name, CM_NAMELEN);
        dn.share[i] = 1.0 / plain.ndev;
    }
    dn.chunk = all.dims[0];
    dn.block = 256;
    ms_stat a, b;
    int rc = cm_validate(&plain, &one, &d1, err);
    if (!rc)
        rc = cm_validate(&plain, &all, &dn, err);
    if (!rc)
        rc = fn(ctx, &plain, &one, &d1, &a, err);
    if (!rc)
        rc = fn(ctx, &plain, &all, &dn, &b, err);
    if (!rc)
        *eff = a.median / b.median;
    return rc;
}

void scal_score_pairs(const double *pred, const double *meas, const int *group,
                      size_t n, scal_score *o)
{
    memset(o, 0, sizeof *o);
    o->n = n;
    calm_metrics mt;
    if (calm_compute(meas, pred, n, &mt) != 0) {
        o->median_ape = o->p90_ape = o->spearman = o->kendall_tau_b =
            o->regret = NAN;
        o->warn = 1;
        return;
    }
    o->median_ape = 100.0 * mt.median_ape;
    o->p90_ape = 100.0 * mt.p90_ape;
    o->spearman = mt.spearman_rho;
    o->kendall_tau_b = mt.kendall_tau;
    double rsum = 0;
    int ng = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && group[j] == group[i])
            j++;
        double r = sm_regret(pred + i, meas + i, j - i);
        if (isfinite(r)) {
            rsum += r;
            ng++;
        }
        i = j;
    }
    o->regret = ng ? rsum / ng : NAN;
    o->warn = !(o->median_ape <= 30.0) || !(o->p90_ape <= 30.0);
}

/* ---- the command ---- */

static const cm_task default_tasks[] = {
    {CM_TRIAD, {2000000, 0, 0}, 4},
    {CM_DOT, {2000000, 0, 0}, 4},
    {CM_GEMM, {192, 256, 256}, 4},
    {CM_JACOBI, {384, 512, 16}, 4},
    {CM_MAP, {65536, 128, 0}, 4},
};
#define NTASKS (int)(sizeof default_tasks / sizeof default_tasks[0])

static void random_decision(const cm_machine *m, const cm_task *t,
                            gsl_rng *rng, cm_decision *d)
{
    cm_shape s;
    cm_task_shape(t, &s);
    memset(d, 0, sizeof *d);
    d->n = m->ndev;
    double sum = 0;
    for (int i = 0; i < m->ndev; i++) {
        util_strlcpy(d->dev[i], m->dev[i].name, CM_NAMELEN);
        d->share[i] = 0.1 + gsl_rng_uniform(rng);
        sum += d->share[i];
    }
    double acc = 0;
    for (int i = 0; i < m->ndev; i++) {
        d->share[i] = round(d->share[i] / sum * 1e6) / 1e6;
        acc += d->share[i];
    }
    d->share[m->ndev - 1] += 1 - acc;
    long chunks[3] = {(long)s.units, (long)ceil(s.units / 4),
                      (long)ceil(s.units / 16)};
    d->chunk = chunks[gsl_rng_uniform_int(rng, 3)];
    d->block = 256;
}

typedef struct {
    double *pred, *meas;
    int *group;
    size_t n, cap;
} pairs;

static int pairs_add(pairs *p, double pr, double me, int g)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        double *a = realloc(p->pred, cap * sizeof *a);
        if (a)
            p->pred = a;
        double *b = realloc(p->meas, cap * sizeof *b);
        if (b)
            p->meas = b;
        int *c = realloc(p->group, cap * sizeof *c);
        if (c)
            p->group = c;
        if (!a || !b || !c)
            return -1;
        p->cap = cap;
    }
    p->pred[p->n] = pr;
    p->meas[p->n] = me;
    p->group[p->n] = g;
    p->n++;
    return 0;
}

static void pairs_free(pairs *p)
{
    free(p->pred);
    free(p->meas);
    free(p->group);
}

/* Policy decisions (multi-device ones) and random share vectors per task,
 * measured and predicted; none of them was used by the fit. */
static int score_heldout(const cm_machine *m, const ms_opts *o,
                         unsigned long seed, int verbose, pairs *p,
                         gd_err *err)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        return gd_errf(err, GD_EENV, "out of memory");
    gsl_rng_set(rng, seed);
    int rc = GD_OK;
    for (int k = 0; k < NTASKS && !rc; k++) {
        const cm_task *t = &default_tasks[k];
        cm_profile prof;
        cm_profile_from_model(m, t, &prof);
        for (int j = 0; j < CM_NPOL + 4 && !rc; j++) {
            cm_decision d;
            if (j == CM_POL_SINGLE)
                continue;          /* single-device: not a held-out split */
            if (j < CM_NPOL)
                rc = cm_policy_decide(j, m, t, &prof, &d, err);
            else {
                random_decision(m, t, rng, &d);
                rc = cm_validate(m, t, &d, err);
            }
            if (rc || (d.n < 2 && !d.dynamic))
                continue;
            ms_stat st;
            rc = ms_run_cpu(m, t, &d, o, &st, err);
            double pr = cm_predict_any(m, t, &d, NULL);
            if (!rc && pairs_add(p, pr, st.median, k))
                rc = gd_errf(err, GD_EENV, "out of memory");
            if (!rc && verbose) {
                char task[96], text[1024];
                cm_task_text(t, task, sizeof task);
                cm_decision_text(&d, text, sizeof text);
                printf("  %-34s %-11s %s\n    PREDICTED(costmodel) %.4g s  "
                       "MEASURED(cpu) %.4g s [IQR %.4g, %.4g]  APE %.1f%%  "
                       "(contended repeats: %d dropped, %d kept)\n",
                       task, j < CM_NPOL ? cm_policy_name(j) : "random", text,
                       pr, st.median, st.q1, st.q3,
                       100 * fabs(pr - st.median) / st.median, st.dropped,
                       st.contended);
            }
        }
    }
    gsl_rng_free(rng);
    return rc;
}

static void print_fit(const cm_machine *m, const scal_fit *f)
{
    printf("calibration of %s (fitted from single-device ladders of "
           "MEASURED(cpu) timings):\n", m->name);
    printf("  %-8s %-7s %-6s %10s %12s %6s\n", "device", "class", "roof",
           "eta", "fixed_s", "r2");
    for (int i = 0; i < f->nrows; i++) {
        const scal_row *r = &f->rows[i];
        printf("  %-8s %-7s %-6s %10.4f %12.3e %6.3f\n", m->dev[r->dev].name,
               cm_kind_name(r->kind), r->compute_bound ? "flops" : "bytes",
               r->eta, r->fixed_s, r->r2);
    }
}

static void print_score(const scal_score *s)
{
    printf("held-out multi-device decisions (PREDICTED(costmodel) vs "
           "MEASURED(cpu)):\n  n %zu  median APE %.1f%%  p90 APE %.1f%%  "
           "Spearman %.3f  Kendall tau-b %.3f  regret %.1f%%\n", s->n,
           s->median_ape, s->p90_ape, s->spearman, s->kendall_tau_b,
           100 * s->regret);
    if (s->warn)
        printf("warning: cost-model error above 30%% (median %.1f%%, p90 "
               "%.1f%%): do not trust its decisions on this machine\n",
               s->median_ape, s->p90_ape);
}

int cmd_calibrate_machine(int argc, char **argv)
{
    const char *mach = NULL, *out = NULL;
    mach_factors sdf = {{1, 2}, 2};
    long reps = 9, seed = 1;
    int verbose = 0;
    const po_option opts[] = {
        PO_STRING("-o", "FILE", &out, "write the fitted machine to FILE"),
        PO_CALLBACK("--slowdown", "a,b,...", &sdf, mach_factors_opt,
                    "per-device slowdown factors of a probed machine"),
        PO_LONG("--repeats", "N", &reps, 1, 1000, NULL,
                "timed repeats per point, 1 to 1000 (default 9)"),
        PO_LONG("--seed", "S", &seed, 0, (double)(1L << 40), NULL,
                "seed of the measurement order (default 1)"),
        PO_FLAG("-v", &verbose, "print every measured point"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "calibrate-machine",
        "usage: gpudse calibrate-machine [MACHINE.xml] [-o FILE]\n"
        "                                [--slowdown a,b,...] [--repeats N] [--seed S] [-v]\n",
        "Fit the split cost model to timings measured on this machine's cores\n"
        "(MACHINE.xml, or a probed machine) and print its error.\n",
        opts, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n > 1)
        return po_usage_error(&cmd, "one machine only; extra argument "
                              "\"%s\"", argv[1]);
    mach = n ? argv[0] : NULL;
    cm_machine m;
    gd_err err = {0, ""};
    rc = mach ? mach_load(mach, &m, &err) : mach_probe(sdf.n, sdf.f, &m, &err);
    ms_opts o = {(int)reps, 1};
    scal_fit fit;
    double ladder[4] = {0.25, 0.5, 0.75, 1.0};
    scal_links links;
    double eff = NAN;
    if (!rc)
        rc = scal_parallel_efficiency(&m, scal_measure_cpu, &o, &eff, &err);
    if (!rc)
        rc = scal_fit_links(&m, scal_link_cpu, &o, &links, &err);
    if (!rc)
        rc = scal_fit_machine(&m, default_tasks, NTASKS, ladder, 4,
                              scal_measure_cpu, &o, &fit, &err);
    pairs p = {0};
    if (!rc)
        rc = score_heldout(&m, &o, (unsigned long)seed, verbose, &p, &err);
    if (!rc && out)
        rc = mach_save(&m, out, &err);
    if (rc) {
        pairs_free(&p);
        fprintf(stderr, "gpudse: %s\n", err.msg);
        return rc;
    }
    print_fit(&m, &fit);
    for (int i = 0; i < links.nlinks; i++)
        printf("  link %s-%s: latency %.3g s, bandwidth %.3g B/s (r2 %.3f)\n",
               m.dev[links.links[i].a].name, m.dev[links.links[i].b].name,
               links.links[i].lat, links.links[i].bw, links.links[i].r2);
    scal_score s;
    scal_score_pairs(p.pred, p.meas, p.group, p.n, &s);
    print_score(&s);
    printf("parallel efficiency of the %d devices (MEASURED(cpu), 1.0 = "
           "independent): %.2f\n", m.ndev, eff);
    if (eff < 0.8)
        printf("warning: the devices were not independent while measuring "
               "(other processes share the cores); multi-device timings "
               "include that contention, which Eq. (1) does not model\n");
    if (out)
        printf("calibrated machine: %s\n", out);
    pairs_free(&p);
    return GD_OK;
}
