/* figoverlay: loads the other run directories of `--overlay`, checks they
 * answer the same question (first two objectives), and draws each
 * workload's fronts, one series per run, labelled with its fidelity. */
#include "figoverlay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figures.h"
#include "plots.h"
#include "split.h"

#define OV_PAD 4.0

/* ---- loading ---------------------------------------------------------- */

static const char *base_name(const char *dir)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    const char *p = dir + len;
    while (p > dir && p[-1] != '/')
        p--;
    return p;
}

/* "DIR[:LABEL]": DIR as given when it exists, else split at the last
 * colon. */
static int split_spec(const char *spec, char *dir, size_t dn, char *label,
                      size_t ln, gd_err *err)
{
    const char *colon = strrchr(spec, ':');
    label[0] = '\0';
    if (util_path_exists(spec) || !colon) {
        if (strlen(spec) >= dn)
            return gd_errf(err, GD_EINPUT, "--overlay %s: path too long",
                           spec);
        util_strlcpy(dir, spec, dn);
        return GD_OK;
    }
    size_t len = (size_t)(colon - spec);
    if (!len || len >= dn || strlen(colon + 1) >= ln)
        return gd_errf(err, GD_EINPUT, "--overlay %s: use DIR or DIR:LABEL "
                       "(label under %zu characters)", spec, ln);
    util_strlcpy(dir, spec, len + 1);
    util_strlcpy(label, colon + 1, ln);
    return GD_OK;
}

static int same_question(const rep_run *base, const rep_run *o,
                         const char *dir, gd_err *err)
{
    if (base->nobj < 2)
        return gd_errf(err, GD_EINPUT, "--overlay: %s has %d objective; an "
                       "overlay of fronts needs two", base->dir, base->nobj);
    if (o->nobj >= 2 && !strcmp(o->obj[0].metric, base->obj[0].metric)
        && !strcmp(o->obj[1].metric, base->obj[1].metric)
        && o->obj[0].maximize == base->obj[0].maximize
        && o->obj[1].maximize == base->obj[1].maximize)
        return GD_OK;
    return gd_errf(err, GD_EINPUT, "--overlay %s: its objectives (%s%s%s) "
                   "are not %s's (%s, %s, same senses): fronts of different "
                   "questions cannot share axes", dir,
                   o->nobj ? o->obj[0].metric : "none", o->nobj >= 2 ? ", "
                   : "", o->nobj >= 2 ? o->obj[1].metric : "", base->dir,
                   base->obj[0].metric, base->obj[1].metric);
}

/* The default label: the campaign's name unless an earlier series has
 * it, then the directory's name. */
static void default_label(const rep_overlay *ov, int i, const char *dir)
{
    rep_overlay_run *o = &ov->o[i];
    const char *name = o->run.have_camp && o->run.camp.name[0]
                       ? o->run.camp.name : base_name(dir);
    int taken = strcmp(name, ov->base_label) == 0;
    for (int k = 0; k < i && !taken; k++)
        taken = strcmp(name, ov->o[k].label) == 0;
    util_strlcpy(o->label, taken ? base_name(dir) : name, sizeof o->label);
}

static int load_one(const rep_run *base, const char *spec, rep_overlay *ov,
                    gd_err *err)
{
    char dir[4096];
    rep_overlay_run *o = &ov->o[ov->n];
    int rc = split_spec(spec, dir, sizeof dir, o->label, sizeof o->label,
                        err);
    if (rc)
        return rc;
    if (!util_path_exists(dir))
        return gd_errf(err, GD_EINPUT, "--overlay %s: no such run "
                       "directory", dir);
    if (sp_is_run_dir(dir))
        return gd_errf(err, GD_EINPUT, "--overlay %s: a split study, not a "
                       "design-space run", dir);
    rc = rep_run_load(dir, &o->run, err);
    if (rc) {
        char msg[sizeof err->msg];
        util_strlcpy(msg, err->msg, sizeof msg);
        return gd_errf(err, GD_EINPUT, "--overlay %s: not a finished run "
                       "directory: %s", dir, msg);
    }
    ov->n++;
    rc = same_question(base, &o->run, dir, err);
    if (!rc && !o->label[0])
        default_label(ov, ov->n - 1, dir);
    return rc;
}

int rep_overlay_load(const rep_run *base, const char *const *spec, int n,
                     rep_overlay *ov, gd_err *err)
{
    memset(ov, 0, sizeof *ov);
    util_strlcpy(ov->base_label, base->have_camp && base->camp.name[0]
                 ? base->camp.name : base_name(base->dir),
                 sizeof ov->base_label);
    if (n > REP_OVERLAY_MAX)
        return gd_errf(err, GD_EINPUT, "--overlay: at most %d other runs "
                       "(%d given)", REP_OVERLAY_MAX, n);
    ov->o = calloc((size_t)(n > 0 ? n : 1), sizeof *ov->o);
    if (!ov->o)
        return gd_errf(err, GD_EENV, "--overlay: out of memory");
    for (int i = 0; i < n; i++) {
        int rc = load_one(base, spec[i], ov, err);
        if (rc)
            return rc;
    }
    return GD_OK;
}

void rep_overlay_free(rep_overlay *ov)
{
    for (int i = 0; ov->o && i < ov->n; i++)
        rep_run_free(&ov->o[i].run);
    free(ov->o);
    memset(ov, 0, sizeof *ov);
}

/* ---- one series: a run's front for a workload -------------------------- */

typedef struct {
    const rep_run *run;
    const char *label;
    int wl;                 /* in run; -1: the run lacks the workload */
    double *x, *y;
    size_t n;
} ov_series;

typedef struct { double x, y; } ov_pt;

static int pt_cmp(const void *a, const void *b)
{
    const ov_pt *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

/* The front's finite points, ordered along x. */
static int series_fill(ov_series *s, const char *wlname)
{
    s->wl = rep_wl_find(s->run, wlname);
    s->n = 0;
    if (s->wl < 0)
        return 0;
    const rep_wl *w = &s->run->wl[s->wl];
    ov_pt *p = malloc((w->nfront + 1) * sizeof *p);
    s->x = malloc((w->nfront + 1) * sizeof *s->x);
    s->y = malloc((w->nfront + 1) * sizeof *s->y);
    if (!p || !s->x || !s->y) {
        free(p);
        return -1;
    }
    for (size_t i = 0; i < w->nfront; i++) {
        double x, y;
        if (met_get(&w->front[i].metrics, s->run->obj[1].metric, &x)
            || met_get(&w->front[i].metrics, s->run->obj[0].metric, &y)
            || !isfinite(x) || !isfinite(y))
            continue;
        p[s->n++] = (ov_pt){ x, y };
    }
    qsort(p, s->n, sizeof *p, pt_cmp);
    for (size_t i = 0; i < s->n; i++) {
        s->x[i] = p[i].x;
        s->y[i] = p[i].y;
    }
    free(p);
    return 0;
}

static void series_free(ov_series *s, int n)
{
    for (int i = 0; i < n; i++) {
        free(s[i].x);
        free(s[i].y);
    }
}

static const char *series_fidelity(const ov_series *s)
{
    return s->wl < 0 ? "absent" : rep_wl_fidelity(s->run, s->wl);
}

/* ---- drawing ---------------------------------------------------------- */

void fig_overlay_title(const rep_run *base, const rep_overlay *ov, int wl,
                       char *out, size_t n)
{
    snprintf(out, n, "%s: Pareto fronts of %d runs", base->wl[wl].name,
             ov->n + 1);
}

/* "modelled fronts", "measured fronts" or "MIXED: modelled and measured
 * fronts (each series says which)". */
static const char *fidelity_words(const ov_series *s, int ns)
{
    int mod = 0, meas = 0;
    for (int i = 0; i < ns; i++) {
        const char *f = series_fidelity(&s[i]);
        mod |= !strcmp(f, "modelled") || !strcmp(f, "mixed");
        meas |= !strcmp(f, "measured") || !strcmp(f, "mixed");
    }
    if (mod && meas)
        return "MIXED modelled and measured fronts (each series says "
               "which)";
    return meas ? "measured fronts" : "modelled fronts";
}

static void overlay_note(const rep_run *base, int wl, const ov_series *s,
                         int ns, char *note, size_t n)
{
    int over2 = 0;
    snprintf(note, n, "%s. ", fidelity_words(s, ns));
    for (int i = 0; i < ns; i++) {
        over2 |= s[i].run->nobj > 2;
        if (s[i].wl < 0)
            snprintf(note + strlen(note), n - strlen(note), "%s has no "
                     "workload %s. ", s[i].label, base->wl[wl].name);
    }
    if (over2)
        snprintf(note + strlen(note), n - strlen(note), "Fronts over more "
                 "than two objectives are shown on the first two. ");
    note[0] = note[0] == 'm' ? 'M' : note[0];
}

static void overlay_legend(const ov_series *s, int ns, chart_legend_item *it,
                           char lbl[][96])
{
    for (int i = 0; i < ns; i++) {
        snprintf(lbl[i], 96, "%s — %s (%zu)", s[i].label,
                 series_fidelity(&s[i]), s[i].n);
        it[i] = (chart_legend_item){ lbl[i], plot_series_shape(i),
            plot_series_colour(i, 1), chart_colour(CHART_BLACK, 1), 1 };
    }
}

static void overlay_axes(chart_ctx *cc, const ov_series *s, int ns,
                         chart_box area, chart_axes *ax)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    chart_margins m;
    for (int i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++) {
            xlo = fmin(xlo, s[i].x[k]);
            xhi = fmax(xhi, s[i].x[k]);
            ylo = fmin(ylo, s[i].y[k]);
            yhi = fmax(yhi, s[i].y[k]);
        }
    chart_scale_fit_x(cc, xlo, xhi, 0.03, 0, area.w * 0.85, &ax->xs);
    chart_scale_fit(ylo, yhi, 0.04, (int)fmax(2, area.h / 36), &ax->ys);
    chart_axes_margins(cc, ax, &m);
    ax->plot = (chart_box){ area.x + m.left, area.y + m.top,
                            area.w - m.left - m.right,
                            area.h - m.top - m.bottom };
}

static void overlay_marks(chart_ctx *cc, const chart_axes *ax,
                          const ov_series *s, int ns)
{
    cairo_save(cc->cr);
    cairo_rectangle(cc->cr, ax->plot.x, ax->plot.y, ax->plot.w, ax->plot.h);
    cairo_clip(cc->cr);
    for (int i = 0; i < ns; i++) {
        if (s[i].run->nobj == 2)
            chart_step_line(cc, ax, s[i].x, s[i].y, s[i].n,
                            plot_series_colour(i, 1), 1.2);
        chart_markers_stroked(cc, ax, s[i].x, s[i].y, s[i].n,
                              plot_series_shape(i), s[i].n > 60 ? 2.0 : 2.6,
                              plot_series_colour(i, 1),
                              chart_colour(CHART_BLACK, 1));
    }
    cairo_restore(cc->cr);
}

static void overlay_draw(chart_ctx *cc, const rep_run *base,
                         const rep_overlay *ov, ov_series *s, int ns, int wl,
                         int no_title, chart_box box)
{
    chart_legend_item it[REP_OVERLAY_MAX + 1];
    char lbl[REP_OVERLAY_MAX + 1][96], title[256], note[1024];
    char xt[160], yt[160];
    chart_axes ax;
    memset(&ax, 0, sizeof ax);
    box = (chart_box){ box.x + OV_PAD, box.y + OV_PAD, box.w - 2 * OV_PAD,
                       box.h - 2 * OV_PAD };
    fig_overlay_title(base, ov, wl, title, sizeof title);
    overlay_note(base, wl, s, ns, note, sizeof note);
    double top = no_title ? 0 : plot_header(cc, title, note, box, 1);
    overlay_legend(s, ns, it, lbl);
    double legh = chart_legend(cc, it, ns, box.x, 0, box.w, 0) + 8;
    overlay_axes(cc, s, ns, (chart_box){ box.x, box.y + top, box.w,
                                         box.h - top - legh }, &ax);
    fig_axis_title_sense(rep_run_camp(base), &base->obj[1], xt, sizeof xt);
    fig_axis_title_sense(rep_run_camp(base), &base->obj[0], yt, sizeof yt);
    chart_axes_draw(cc, &ax, xt, yt);
    overlay_marks(cc, &ax, s, ns);
    chart_legend(cc, it, ns, box.x, box.y + box.h - legh + 8, box.w, 1);
}

void fig_overlay_draw(chart_ctx *cc, const rep_run *base,
                      const rep_overlay *ov, int wl, int no_title,
                      chart_box box)
{
    ov_series s[REP_OVERLAY_MAX + 1];
    int ns = 0, bad = 0;
    memset(s, 0, sizeof s);
    for (int i = 0; i <= ov->n && i <= REP_OVERLAY_MAX; i++, ns++) {
        s[ns].run = i == 0 ? base : &ov->o[i - 1].run;
        s[ns].label = i == 0 ? ov->base_label : ov->o[i - 1].label;
        bad |= series_fill(&s[ns], base->wl[wl].name) != 0;
    }
    if (!bad)
        overlay_draw(cc, base, ov, s, ns, wl, no_title, box);
    series_free(s, ns);
}

/* ---- files ------------------------------------------------------------ */

typedef struct {
    const rep_run *base;
    const rep_overlay *ov;
    int wl;
} ov_job;

static void draw_job(chart_ctx *cc, chart_box page, const void *arg)
{
    const ov_job *j = arg;
    fig_overlay_draw(cc, j->base, j->ov, j->wl, 0, page);
}

static void overlay_stem(const rep_run *base, int wl, char *out, size_t n)
{
    snprintf(out, n, "overlay_%s", base->wl[wl].name);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            *p = '_';
}

int fig_overlay_write_files(const rep_run *base, const rep_overlay *ov,
                            int formats, const chart_font *font,
                            gd_err *err)
{
    char dir[4096], stem[160], name[200], path[4096];
    double w, h;
    int rc = rep_run_path(base, "figures", dir, sizeof dir, err);
    if (!rc)
        rc = util_mkdirs(dir, err);
    fig_size(base->camp.figure_single, &w, &h);
    for (int wl = 0; !rc && wl < base->nwl; wl++) {
        ov_job j = { base, ov, wl };
        overlay_stem(base, wl, stem, sizeof stem);
        for (int i = 0; !rc && i < 2; i++) {
            int bit = i == 0 ? CAMP_FMT_SVG : CAMP_FMT_PDF;
            if (!(formats & bit))
                continue;
            snprintf(name, sizeof name, "%s.%s", stem, i ? "pdf" : "svg");
            if (util_path_join(path, sizeof path, dir, name) != GD_OK)
                return gd_errf(err, GD_EENV, "%s/%s: path too long", dir,
                               name);
            rc = chart_write_file_font(i == 0 ? REP_OUT_SVG : REP_OUT_PDF,
                                       w, h, stem, path, font, draw_job, &j,
                                       err);
        }
    }
    return rc;
}
