/* regression: the report page and figure of DIR/compare.json — the verdict
 * of gpudse compare, the largest relative changes per check as horizontal
 * bars (failed checks first, accent colour) and a table of failed checks.
 * Reads compare.json tolerantly: odd entries are skipped. */
#include "regression.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figures.h"
#include "plots.h"
#include "table.h"

#define REG_MAXBARS 14
#define REG_FIG_H 360.0

/* The bars of the figure and the texts they point to. */
typedef struct {
    int n, highlight;
    char label[REG_MAXBARS][80];
    const char *lab[REG_MAXBARS];
    double val[REG_MAXBARS];
    char title[160], note[320];
} reg_fig;

static const char *jstr(const cJSON *o, const char *k, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

static double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* DIR/compare.json, or NULL (*bad set when it exists but does not parse). */
static cJSON *load_compare(const rep_run *run, int *bad, char *path,
                           size_t n)
{
    char *text = NULL;
    size_t len;
    gd_err err;
    *bad = 0;
    if (rep_run_path(run, "compare.json", path, n, &err)
        || !util_path_exists(path))
        return NULL;
    if (util_read_file(path, &text, &len, &err)) {
        *bad = 1;
        return NULL;
    }
    cJSON *o = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        *bad = 1;
        return NULL;
    }
    return o;
}

/* The relative change (percent) a check's largest change made, NaN when
 * there is none to plot. */
static double check_change(const cJSON *c)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(c, "largest_change");
    double v = jnum(l, "relative_pct");
    return isfinite(v) && v != 0 ? v : NAN;
}

static int is_fail(const cJSON *c)
{
    return strcmp(jstr(c, "result", ""), "fail") == 0;
}

/* Up to REG_MAXBARS checks: failed ones by |change|, then the others. */
static void pick_bars(const cJSON *cmp, reg_fig *f)
{
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(cmp, "checks");
    for (int pass = 0; pass < 2; pass++) {
        int start = f->n;
        const cJSON *c;
        cJSON_ArrayForEach(c, checks) {
            double v = check_change(c);
            if (is_fail(c) != (pass == 0) || !isfinite(v))
                continue;
            int at = f->n < REG_MAXBARS ? f->n : REG_MAXBARS;
            while (at > start && fabs(v) > fabs(f->val[at - 1]))
                at--;
            if (at >= REG_MAXBARS)
                continue;
            int last = f->n < REG_MAXBARS ? f->n : REG_MAXBARS - 1;
            memmove(&f->val[at + 1], &f->val[at],
                    (size_t)(last - at) * sizeof f->val[0]);
            memmove(f->label[at + 1], f->label[at],
                    (size_t)(last - at) * sizeof f->label[0]);
            const char *w = jstr(c, "workload", "");
            snprintf(f->label[at], sizeof f->label[at], "%s%s%s",
                     w[0] ? w : "", w[0] ? " " : "",
                     jstr(c, "metric", jstr(c, "check", "?")));
            f->val[at] = v;
            if (f->n < REG_MAXBARS)
                f->n++;
        }
        if (pass == 0)
            f->highlight = f->n;
    }
    for (int i = 0; i < f->n; i++)
        f->lab[i] = f->label[i];
}

static void build_fig(const cJSON *cmp, reg_fig *f, plot_spec *p)
{
    const cJSON *now = cJSON_GetObjectItemCaseSensitive(cmp, "new");
    memset(f, 0, sizeof *f);
    memset(p, 0, sizeof *p);
    pick_bars(cmp, f);
    snprintf(f->title, sizeof f->title, "Largest changes against the "
             "baseline (%s results)", jstr(now, "fidelity", "modelled"));
    snprintf(f->note, sizeof f->note, "Per check, the job (or front, or "
             "calibration) that moved most, relative to BASE %s. %d of the "
             "bars (accent colour, first) failed their threshold.",
             jstr(cJSON_GetObjectItemCaseSensitive(cmp, "base"), "dir", ""),
             f->highlight);
    p->kind = PLOT_HBARS;
    p->title = f->title;
    p->note = f->note;
    p->xtitle = "Change against BASE (%)";
    p->ytitle = "Workload and metric";
    p->u.hbars = (plot_hbars){ f->n, f->lab, f->val, f->highlight };
}

static void verdict(rep_doc *d, const cJSON *cmp)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(cmp, "summary");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cmp, "base");
    char v[512];
    int reg = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cmp,
                                                            "regression"));
    int acc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cmp, "accepted"));
    snprintf(v, sizeof v, "%s: %.0f of %.0f checks failed, %.0f passed, "
             "%.0f skipped", reg && acc ? "ACCEPTED (gpudse compare --accept)"
             : reg ? "REGRESSION" : "No regression",
             jnum(s, "failed"), jnum(s, "checks"), jnum(s, "passed"),
             jnum(s, "skipped"));
    rep_doc_kv(d, "Result", v, CHART_BOLD);
    if (jnum(s, "improvements") > 0) {
        snprintf(v, sizeof v, "%.0f value(s) in %.0f check(s) moved beyond "
                 "their thresholds the better way (per check in compare.json "
                 "\"largest_improvement\")", jnum(s, "improvements"),
                 jnum(s, "checks_improved"));
        rep_doc_kv(d, "Improved", v, CHART_REGULAR);
    }
    snprintf(v, sizeof v, "%s (gpudse %s, %s)", jstr(b, "dir", "?"),
             jstr(b, "version", "?"), jstr(b, "backend_version", "?"));
    rep_doc_kv(d, "Baseline", v, CHART_REGULAR);
    snprintf(v, sizeof v, "%.0f matched by key, %.0f by workload + config, "
             "%.0f only in BASE, %.0f only in NEW; %.0f new failures, %.0f "
             "fixed", jnum(s, "matched_by_key"), jnum(s, "matched_by_config"),
             jnum(s, "only_in_base"), jnum(s, "only_in_new"),
             jnum(s, "new_failures"), jnum(s, "fixed_failures"));
    rep_doc_kv(d, "Jobs", v, CHART_REGULAR);
}

static void failed_table(rep_doc *d, const cJSON *cmp)
{
    rep_table t;
    const cJSON *c;
    rep_table_init(&t, "Failed checks (worst first)");
    rep_table_col(&t, "workload", CHART_LEFT);
    rep_table_col(&t, "check", CHART_LEFT);
    rep_table_col(&t, "over / compared", CHART_RIGHT);
    rep_table_col(&t, "worst: BASE -> NEW", CHART_RIGHT);
    rep_table_col(&t, "change", CHART_RIGHT);
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cmp, "checks")) {
        if (!is_fail(c))
            continue;
        char (*row)[REP_CELL] = rep_table_row(&t, 0);
        if (!row)
            break;
        const cJSON *w = cJSON_GetArrayItem(
            cJSON_GetObjectItemCaseSensitive(c, "worst"), 0);
        const char *wl = jstr(c, "workload", "");
        util_strlcpy(row[0], wl[0] ? wl : "(campaign)", REP_CELL);
        util_strlcpy(row[1], jstr(c, "check", ""), REP_CELL);
        snprintf(row[2], REP_CELL, "%.0f / %.0f", jnum(c, "over_threshold"),
                 jnum(c, "compared"));
        if (isfinite(jnum(w, "base")) || isfinite(jnum(w, "new")))
            snprintf(row[3], REP_CELL, "%.6g -> %.6g", jnum(w, "base"),
                     jnum(w, "new"));
        else
            util_strlcpy(row[3], jstr(w, "label", ""), REP_CELL);
        if (isfinite(jnum(w, "relative_pct")))
            snprintf(row[4], REP_CELL, "%+.2f%%", jnum(w, "relative_pct"));
    }
    if (t.nrows)
        rep_table_draw(d, &t);
    rep_table_free(&t);
}

void rep_regression_page(rep_doc *d, const rep_run *run)
{
    char path[4096];
    int bad;
    cJSON *cmp = load_compare(run, &bad, path, sizeof path);
    if (!cmp && !bad)
        return;
    rep_doc_new_page(d);
    rep_doc_heading(d, "Regression against the baseline", 0);
    if (!cmp) {
        rep_doc_text(d, "compare.json is not valid JSON; run gpudse compare "
                     "again.", 9, CHART_REGULAR);
        return;
    }
    verdict(d, cmp);
    rep_doc_space(d, 10);
    reg_fig f;
    plot_spec p;
    build_fig(cmp, &f, &p);
    rep_doc_need(d, REG_FIG_H);
    if (!d->measure)
        plot_draw(&d->cc, &p, (chart_box){ rep_doc_left(d), d->y,
                                           rep_doc_width(d), REG_FIG_H });
    d->y += REG_FIG_H + 10;
    failed_table(d, cmp);
    cJSON_Delete(cmp);
}

int rep_regression_write_figures(const rep_run *run, gd_err *err)
{
    char path[4096], dir[4096], file[4200];
    int bad, rc = GD_OK;
    cJSON *cmp = load_compare(run, &bad, path, sizeof path);
    if (!cmp)
        return bad ? gd_errf(err, GD_EINPUT, "%s: not valid JSON; run "
                             "gpudse compare again", path) : GD_OK;
    reg_fig f;
    plot_spec p;
    double w, h;
    build_fig(cmp, &f, &p);
    fig_size(run->camp.figure_single, &w, &h);
    rc = rep_run_path(run, "figures", dir, sizeof dir, err);
    if (!rc)
        rc = util_mkdirs(dir, err);
    for (int k = 0; !rc && k < 2; k++) {
        int bit = k == 0 ? CAMP_FMT_SVG : CAMP_FMT_PDF;
        if (!(run->camp.formats & bit))
            continue;
        snprintf(file, sizeof file, "%s/regression.%s", dir,
                 k == 0 ? "svg" : "pdf");
        rc = plot_write_file(&p, k == 0 ? REP_OUT_SVG : REP_OUT_PDF, w, h,
                             file, err);
    }
    cJSON_Delete(cmp);
    return rc;
}
