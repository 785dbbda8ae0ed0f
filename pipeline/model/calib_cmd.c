/* calib_cmd: the `gpudse calibrate` command — reads a descriptor and a
 * reference CSV, fits, measures the held-out error and writes the fitted
 * descriptor with where it was calibrated. Split out of calibrate.c
 * (issue 25); the fit itself is calibrate.c. */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

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
            snprintf(buf + l, n - l, "%s%s", l ? "," : "", cal_param_name(p));
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
            double before = cal_param_get(&orig->k[ki], p);
            double after = cal_param_get(&fitted->k[ki], p);
            if (before != after)
                util_buf_printf(&c, " %s.%s %.4g (was %.4g)",
                                fitted->k[ki].name, cal_param_name(p), after,
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
            cal_record_region(fit, rows, n, pred);
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
