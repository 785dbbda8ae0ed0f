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
#include "parseopt.h"

typedef struct {
    const char *wl, *ref, *out, *kernel, *params;
    int folds;
    int starts;                /* < 0: default */
    double prior;              /* < 0: default */
    double ident;              /* < 0: default */
} cal_args;

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
    calm_metrics cm;
    char line[512] = "no predictions";
    if (m > 0 && calm_compute(ref, p, m, &cm) == 0) {
        calm_format(&cm, line, sizeof line);
        if (calm_is_flat(ref, m))   /* rho says little over near-equal rows */
            snprintf(line + strlen(line), sizeof line - strlen(line),
                     " (flat: real IPC varies < %.0f%%, rho not asked; "
                     "MAPE is the measure)", 100 * CALM_FLAT_REL);
    }
    printf("  %-22s %s\n", label, line);
    free(ref);
    free(p);
}

/* How finely the reference rows must be resolved for a held-out rho of 0.9
 * to be reachable (calm_rank_resolution): printed beside the held-out
 * metrics so a low rho on near-tied rows reads as what it is. */
static void print_rank_resolution(const cal_row *rows, size_t n)
{
    double *ref = malloc(n * sizeof *ref);
    if (!ref)
        return;
    for (size_t i = 0; i < n; i++)
        ref[i] = rows[i].ipc;
    unsigned draws = calm_resolution_draws(n);
    double sigma = calm_rank_resolution(ref, n, 0.9, draws, 1);
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
                        const calm_metrics *held, const char *folds_txt,
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
            calm_metrics held;
            double *ref = malloc(n * sizeof *ref);
            size_t m = 0;
            for (size_t i = 0; ref && i < n; i++)
                if (isfinite(pred[i])) {
                    ref[m] = rows[i].ipc;
                    pred[m++] = pred[i];
                }
            if (!ref)   /* README "Conventions": never a silent 0 */
                rc = gd_errf(err, GD_EENV, "out of memory");
            else if (m == 0 || calm_compute(ref, pred, m, &held) != 0)
                memset(&held, 0, sizeof held);
            free(ref);
            if (rc == GD_OK)
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
    cal_args a = {NULL, NULL, NULL, NULL, NULL, 0, -1, -1, -1};
    long folds = 0, starts = -1;
    const po_option opts[] = {
        PO_STRING("-w", "W.xml", &a.wl,
                  "descriptor file or built-in workload name"),
        PO_STRING("-r", "REF.csv", &a.ref,
                  "measured results; rows of the workload's kernel"),
        PO_STRING("-o", "OUT.xml", &a.out, "the fitted descriptor to write"),
        PO_STRING("--kernel", "NAME", &a.kernel,
                  "use REF.csv's rows of kernel NAME"),
        PO_LONG("--folds", "K", &folds, 2, 100000, "an integer >= 2",
                "K-fold held-out error, K >= 2 (default: leave-one-out)"),
        PO_STRING("--params", "P,...", &a.params,
                  "free parameters to fit (default: all seven)"),
        PO_DOUBLE("--prior", "W", &a.prior, 0, 1e300, "a number >= 0",
                  "weight of the pull to the descriptor (default 0.001)"),
        PO_DOUBLE("--ident", "T", &a.ident, 0, 1e300, "a number >= 0",
                  "identifiability threshold; 0 fits every chosen\n"
                  "parameter (default 0.05)"),
        PO_LONG("--starts", "N", &starts, 0, 100000, "an integer >= 0",
                "screened multi-start points (default 0: off)"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "calibrate",
        "usage: gpudse calibrate -w W.xml -r REF.csv -o OUT.xml [--kernel NAME]\n"
        "                        [--folds K] [--params P,...] [--prior W]\n"
        "                        [--ident T] [--starts N]\n",
        "Fit a descriptor's free parameters to measured results (the CSV format\n"
        "of tests/data/reference_results.csv) and print the error on held-out rows\n"
        "(docs/model.md, \"Calibration\").\n",
        opts, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n > 0)
        return po_usage_error(&cmd, "unexpected argument \"%s\"", argv[0]);
    if (!a.wl || !a.ref || !a.out)
        return po_usage_error(&cmd, "calibrate needs -w, -r and -o");
    a.folds = (int)folds;
    a.starts = (int)starts;
    gd_err err = {0, ""};
    rc = run_calibrate(&a, &err);
    if (rc)
        fprintf(stderr, "gpudse: %s\n", err.msg);
    return rc;
}
