/* studies: strategy-study and calibration pages and figure files from the
 * optional "strategy_study" and "calibration" entries of analysis.json,
 * read tolerantly (odd entries are skipped). */
#include "studies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figures.h"
#include "plots.h"
#include "study.h"

#define STUDY_FIG_H 340.0
#define MAX_SERIES 8

/* The entries of a study key: an array, or one object. */
static const cJSON *entry(const rep_run *run, const char *key, int i)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(run->analysis, key);
    if (cJSON_IsObject(v))
        return i == 0 ? v : NULL;
    return cJSON_IsArray(v) ? cJSON_GetArrayItem(v, i) : NULL;
}

static const char *str(const cJSON *o, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* A JSON array of numbers (null: NaN) into a new array of n values. */
static double *numbers(const cJSON *a, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, (int)i);
        v[i] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
    }
    return v;
}

/* Everything one study figure owns. */
typedef struct {
    plot_spec p;
    plot_series ser[MAX_SERIES];
    double *arr[MAX_SERIES * 4 + 2];
    int narr;
    const char **labels;   /* per point / per group */
    char title[256], xt[160], yt[160], mt[1024], note[320];
} study_fig;

static void fig_free(study_fig *f)
{
    for (int i = 0; i < f->narr; i++)
        free(f->arr[i]);
    free(f->labels);
    f->narr = 0;
    f->labels = NULL;
}

static double *keep(study_fig *f, double *v)
{
    f->arr[f->narr++] = v;
    return v;
}

/* Quartile q of the finite values of a JSON array (linear between order
 * statistics); NaN when there are none. */
static double json_quantile(const cJSON *a, double q)
{
    double v[128];
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
        if (cJSON_IsNumber(it) && isfinite(it->valuedouble) && n < 128)
            v[n++] = it->valuedouble;
    for (int i = 1; i < n; i++)   /* insertion sort: a handful of seeds */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    if (n == 0)
        return NAN;
    double pos = q * (n - 1);
    int k = (int)floor(pos);
    return k + 1 < n ? v[k] + (pos - k) * (v[k + 1] - v[k]) : v[k];
}

/* A bar's median from per_seed (null = not reached), as analysis/study.c
 * computes it, so that an analysis.json written before that rule still
 * draws the right bar; the stored median when per_seed is missing. */
static double reach_median(const cJSON *per, const cJSON *med)
{
    double v[128];
    int n = 0;
    const cJSON *it;
    if (!cJSON_IsArray(per) || cJSON_GetArraySize(per) == 0)
        return cJSON_IsNumber(med) ? med->valuedouble : NAN;
    cJSON_ArrayForEach(it, per)
        if (n < 128)
            v[n++] = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    return study_reach_median(v, n);
}

static const cJSON *wl_study(const rep_run *run, int wl)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(run->wl[wl].json,
                                                      "study");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(s, "strategies");
    return cJSON_GetArraySize(st) > 0 ? s : NULL;
}

static int seed_count(const cJSON *study)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(study,
                                                               "seeds"));
}

/* The hypervolume gap 1 - ratio, floored at GAP_FLOOR so that a
 * strategy that reached the basis (gap 0) stays on the log axis. */
#define GAP_FLOOR 1e-4

static double *gaps(study_fig *f, const cJSON *ratios, size_t len)
{
    double *v = keep(f, numbers(ratios, len));
    for (size_t i = 0; v && i < len; i++)
        v[i] = isfinite(v[i]) ? fmax(1 - v[i], GAP_FLOOR) : NAN;
    return v;
}

/* The hypervolume gap (1 - ratio) against evaluations on log axes,
 * median and IQR per strategy: convergence is read off the log scale. */
static int build_study_lines(const rep_run *run, int wl, study_fig *f)
{
    const cJSON *study = wl_study(run, wl), *s;
    int n = 0;
    memset(f, 0, sizeof *f);
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(study,
                                                           "strategies")) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(s, "median");
        const cJSON *q1 = cJSON_GetObjectItemCaseSensitive(s, "q1");
        const cJSON *q3 = cJSON_GetObjectItemCaseSensitive(s, "q3");
        size_t len = (size_t)cJSON_GetArraySize(m);
        if (n >= MAX_SERIES || !len)
            continue;
        double *x = keep(f, malloc(len * sizeof *x));
        if (!x)
            return -1;
        for (size_t i = 0; i < len; i++)
            x[i] = (double)(i + 1);
        int band = (size_t)cJSON_GetArraySize(q1) >= len
                   && (size_t)cJSON_GetArraySize(q3) >= len;
        /* the gap falls as the ratio rises: q3's gap is the band's low */
        f->ser[n] = (plot_series){ str(s, "name", "strategy"), len, x,
                                   gaps(f, m, len),
                                   band ? gaps(f, q3, len) : NULL,
                                   band ? gaps(f, q1, len) : NULL };
        if (!f->ser[n].mid || (band && (!f->ser[n].lo || !f->ser[n].hi)))
            return -1;
        n++;
    }
    snprintf(f->title, sizeof f->title, "%s: hypervolume gap (1 − ratio) "
             "against evaluations, median and IQR over %d seed%s (%s)",
             run->wl[wl].name, seed_count(study),
             seed_count(study) == 1 ? "" : "s", rep_wl_fidelity(run, wl));
    snprintf(f->mt, sizeof f->mt, "Basis: %s. Lower is better; a gap "
             "under 10⁻⁴ (the basis reached) is drawn at 10⁻⁴.",
             str(study, "basis", "the best front found"));
    util_strlcpy(f->xt, "Evaluations (jobs)", sizeof f->xt);
    util_strlcpy(f->yt, "1 − hypervolume ratio (of the basis)",
                 sizeof f->yt);
    f->p.kind = PLOT_LINES;
    f->p.xlog = 1;   /* most of the story is in the first evaluations */
    f->p.ylog = 1;
    f->p.title = f->title;
    f->p.note = f->mt;
    f->p.xtitle = f->xt;
    f->p.ytitle = f->yt;
    f->p.u.lines = (plot_lines){ "interquartile range over seeds", n,
                                 f->ser };
    return n > 0 ? 0 : -1;
}

/* Unreached targets, for the note: "random 99 % (2 of 5 seeds)". */
static void unreached_note(const cJSON *study, char *out, size_t n)
{
    static const char *const keys[2] = { "evals_to_95", "evals_to_99" };
    const cJSON *s;
    int seeds = seed_count(study), k = 0;
    out[0] = '\0';
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(study,
                                                           "strategies"))
        for (int t = 0; t < 2; t++) {
            const cJSON *r = cJSON_GetObjectItemCaseSensitive(s, keys[t]);
            const cJSON *got = cJSON_GetObjectItemCaseSensitive(r, "reached");
            if (!cJSON_IsNumber(got) || got->valuedouble >= seeds)
                continue;
            size_t l = strlen(out);
            snprintf(out + l, n - l, "%s%s %s %% (%d of %d seeds)",
                     k++ ? ", " : " Reached by fewer than all seeds: ",
                     str(s, "name", "?"), t ? "99" : "95",
                     (int)got->valuedouble, seeds);
        }
    if (k)
        snprintf(out + strlen(out), n - strlen(out), ".");
}

/* Evaluations needed for 95 % and 99 % of the basis hypervolume. */
static int build_study_bars(const rep_run *run, int wl, study_fig *f)
{
    static const char *const keys[2] = { "evals_to_95", "evals_to_99" };
    static const char *const series[2] = { "95 % of the basis",
                                           "99 % of the basis" };
    const cJSON *study = wl_study(run, wl), *s;
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(study, "strategies");
    int ng = cJSON_GetArraySize(sa), g = 0;
    memset(f, 0, sizeof *f);
    if (ng <= 0)
        return -1;
    double *v = keep(f, calloc((size_t)ng * 2, sizeof *v));
    double *lo = keep(f, calloc((size_t)ng * 2, sizeof *lo));
    double *hi = keep(f, calloc((size_t)ng * 2, sizeof *hi));
    f->labels = calloc((size_t)ng, sizeof *f->labels);
    if (!v || !lo || !hi || !f->labels)
        return -1;
    cJSON_ArrayForEach(s, sa) {
        f->labels[g] = str(s, "name", "?");
        for (int t = 0; t < 2; t++) {
            const cJSON *r = cJSON_GetObjectItemCaseSensitive(s, keys[t]);
            const cJSON *per = cJSON_GetObjectItemCaseSensitive(r,
                                                                "per_seed");
            const cJSON *med = cJSON_GetObjectItemCaseSensitive(r, "median");
            v[g * 2 + t] = reach_median(per, med);
            lo[g * 2 + t] = json_quantile(per, 0.25);
            hi[g * 2 + t] = json_quantile(per, 0.75);
        }
        g++;
    }
    snprintf(f->title, sizeof f->title, "%s: evaluations to reach 95 %% and "
             "99 %% of the basis hypervolume (%s)", run->wl[wl].name,
             rep_wl_fidelity(run, wl));
    snprintf(f->mt, sizeof f->mt, "Bars: median over seeds; whiskers: "
             "interquartile range of the seeds that got there.");
    unreached_note(study, f->mt + strlen(f->mt),
                   sizeof f->mt - strlen(f->mt));
    util_strlcpy(f->xt, "Strategy", sizeof f->xt);
    util_strlcpy(f->yt, "Evaluations (jobs)", sizeof f->yt);
    f->p.kind = PLOT_BARS;
    f->p.title = f->title;
    f->p.note = f->mt;
    f->p.xtitle = f->xt;
    f->p.ytitle = f->yt;
    f->p.u.bars = (plot_bars){ ng, 2, f->labels, series, v, NULL, lo, hi };
    return 0;
}

/* The entry's error summary (analysis/verification.c), when it has one:
 * "MAPE 4.2 %, Spearman ρ 0.91 over 12 points; ρ 0.9 needs random errors
 * under 3.1 % on them." */
static void calibration_note(const cJSON *e, char *buf, size_t bufsz)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "n");
    const cJSON *mape = cJSON_GetObjectItemCaseSensitive(e, "mape");
    const cJSON *rho = cJSON_GetObjectItemCaseSensitive(e, "spearman");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(e, "rank_resolution");
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(e, "spearman_note");
    buf[0] = '\0';
    if (cJSON_IsNumber(n) && cJSON_IsNumber(mape) && cJSON_IsNull(rho)
        && cJSON_IsString(why)) {
        snprintf(buf, bufsz, "MAPE %.1f %%, Spearman ρ %s, over %d points.",
                 100 * mape->valuedouble, why->valuestring, n->valueint);
        return;
    }
    if (!cJSON_IsNumber(n) || !cJSON_IsNumber(mape) || !cJSON_IsNumber(rho))
        return;
    int len = snprintf(buf, bufsz, "MAPE %.1f %%, Spearman ρ %.2f over %d "
                       "points.", 100 * mape->valuedouble, rho->valuedouble,
                       n->valueint);
    if (len < 0 || (size_t)len >= bufsz || !cJSON_IsNumber(res))
        return;
    if (res->valuedouble > 0)
        snprintf(buf + len, bufsz - len, " ρ 0.9 needs random errors under "
                 "%.1f %% on these points.", 100 * res->valuedouble);
    else
        snprintf(buf + len, bufsz - len, " Their ties keep ρ under 0.9 "
                 "whatever the model.");
}

static int build_calibration(const cJSON *e, study_fig *f)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(e, "points"), *pt;
    memset(f, 0, sizeof *f);
    size_t n = (size_t)cJSON_GetArraySize(pts), i = 0;
    if (!n)
        return -1;
    double *pr = keep(f, malloc(n * sizeof *pr));
    double *me = keep(f, malloc(n * sizeof *me));
    f->labels = calloc(n, sizeof *f->labels);
    if (!pr || !me || !f->labels)
        return -1;
    cJSON_ArrayForEach(pt, pts) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(pt, "predicted");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(pt, "measured");
        pr[i] = cJSON_IsNumber(a) ? a->valuedouble : NAN;
        me[i] = cJSON_IsNumber(b) ? b->valuedouble : NAN;
        f->labels[i] = str(pt, "label", NULL);
        i++;
    }
    const char *metric = str(e, "metric", "ipc");
    fig_axis_title(NULL, metric, f->mt, sizeof f->mt);
    snprintf(f->title, sizeof f->title, "%s", str(e, "title", ""));
    if (!f->title[0])
        snprintf(f->title, sizeof f->title, "Calibration: modelled against "
                 "measured %s", met_label(metric));
    snprintf(f->xt, sizeof f->xt, "Predicted %s (modelled)", f->mt);
    snprintf(f->yt, sizeof f->yt, "Measured %s", f->mt);
    calibration_note(e, f->note, sizeof f->note);
    f->p.note = f->note[0] ? f->note : NULL;
    f->p.kind = PLOT_PVM;
    f->p.title = f->title;
    f->p.xtitle = f->xt;
    f->p.ytitle = f->yt;
    f->p.u.pvm = (plot_pvm){ n, pr, me, f->labels };
    return 0;
}

typedef int (*build_fn)(const cJSON *e, study_fig *f);
typedef int (*wl_build_fn)(const rep_run *run, int wl, study_fig *f);

static void draw_fig(rep_doc *d, const study_fig *f)
{
    rep_doc_need(d, STUDY_FIG_H);
    if (!d->measure)
        plot_draw(&d->cc, &f->p, (chart_box){ rep_doc_left(d), d->y,
                                              rep_doc_width(d),
                                              STUDY_FIG_H });
    d->y += STUDY_FIG_H + 10;
}

void rep_study_strategy(rep_doc *d, const rep_run *run)
{
    static const wl_build_fn builds[2] = { build_study_lines,
                                           build_study_bars };
    int started = 0;
    for (int w = 0; w < run->nwl; w++) {
        if (!wl_study(run, w))
            continue;
        if (!started++) {
            rep_doc_new_page(d);
            rep_doc_heading(d, "Strategy study", 0);
            rep_doc_text(d, "Every strategy of the study replayed with "
                         "each seed; after each evaluation, how far its "
                         "hypervolume is from the basis hypervolume (1 − "
                         "ratio, log axis).", 9,
                         CHART_REGULAR);
            rep_doc_space(d, 8);
        }
        for (int k = 0; k < 2; k++) {
            study_fig f;
            if (builds[k](run, w, &f) == 0)
                draw_fig(d, &f);
            fig_free(&f);
        }
    }
}

void rep_study_calibration(rep_doc *d, const rep_run *run)
{
    const char *key = "calibration";
    int started = 0;
    for (int i = 0; entry(run, key, i); i++) {
        study_fig f;
        if (build_calibration(entry(run, key, i), &f) == 0) {
            if (!started++) {
                rep_doc_new_page(d);
                rep_doc_heading(d, "Calibration", 0);
            }
            draw_fig(d, &f);
        }
        fig_free(&f);
    }
}

/* Write f to DIR/figures/STEM.{svg,pdf} as the campaign's formats say. */
static int write_fig(const rep_run *run, const study_fig *f,
                     const char *stem, gd_err *err)
{
    char dir[4096], path[4400];
    double w, h;
    int rc = rep_run_path(run, "figures", dir, sizeof dir, err);
    if (!rc)
        rc = util_mkdirs(dir, err);
    fig_size(run->camp.figure_single, &w, &h);
    for (int k = 0; !rc && k < 2; k++) {
        int bit = k == 0 ? CAMP_FMT_SVG : CAMP_FMT_PDF;
        if (!(run->camp.formats & bit))
            continue;
        snprintf(path, sizeof path, "%s/%s.%s", dir, stem,
                 k == 0 ? "svg" : "pdf");
        for (char *p = path + strlen(dir) + 1; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
                  || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'
                  || *p == '.'))
                *p = '_';
        rc = plot_write_file(&f->p, k == 0 ? REP_OUT_SVG : REP_OUT_PDF, w, h,
                             path, err);
    }
    return rc;
}

int rep_study_write_figures(const rep_run *run, const chart_font *font,
                            gd_err *err)
{
    static const wl_build_fn builds[2] = { build_study_lines,
                                           build_study_bars };
    static const char *const names[2] = { "study_hv", "study_evals" };
    char stem[200];
    int rc = GD_OK;
    for (int w = 0; !rc && w < run->nwl; w++)
        for (int k = 0; !rc && wl_study(run, w) && k < 2; k++) {
            study_fig f;
            snprintf(stem, sizeof stem, "%s_%s", names[k], run->wl[w].name);
            if (builds[k](run, w, &f) == 0) {
                f.p.font = font;
                rc = write_fig(run, &f, stem, err);
            }
            fig_free(&f);
        }
    for (int i = 0; !rc && entry(run, "calibration", i); i++) {
        study_fig f;
        const cJSON *e = entry(run, "calibration", i);
        snprintf(stem, sizeof stem, "calibration_%d_%s", i + 1,
                 str(e, "metric", "value"));
        if (build_calibration(e, &f) == 0) {
            f.p.font = font;
            rc = write_fig(run, &f, stem, err);
        }
        fig_free(&f);
    }
    return rc;
}
