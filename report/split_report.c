/* split_report: report.pdf of a split study — per machine, the speedup of
 * each policy over the even split (grouped bars, measured ones with IQR
 * whiskers), predicted against measured times, the calibration table and
 * Eq. (1)'s term breakdown. Every figure and table names its label
 * (PREDICTED(costmodel), MEASURED(cpu), MEASURED(cuda)); one made only of
 * predictions says so in its title. Built on chart.h, doc.h, table.h. */
#include "split_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "doc.h"
#include "table.h"

#define A4_W 595.276
#define A4_H 841.890
#define FIG_H 300.0

/* Columns 2..6 of a fitted copy link's row in the fits table. */
static void link_cells(char (*c)[REP_CELL], double bw, double lat, double r2)
{
    snprintf(c[2], REP_CELL, "%.3g B/s", bw);
    snprintf(c[3], REP_CELL, "-");
    snprintf(c[4], REP_CELL, "%.3e", lat);
    snprintf(c[5], REP_CELL, "%.3f", r2);
    snprintf(c[6], REP_CELL, "%d", SCAL_LINK_RUNGS);
}

static const sp_result *find(const sp_run *r, int mi, int ti, int si, int pol)
{
    for (size_t i = 0; i < r->nres; i++) {
        const sp_result *x = &r->res[i];
        if (x->mach == mi && x->task == ti && x->size == si && x->policy == pol)
            return x;
    }
    return NULL;
}

/* Speedup of x over even (and the IQR whisker when measured). */
static int speedup(const sp_result *x, const sp_result *e, int measured,
                   double *v, double *lo, double *hi)
{
    if (!x || !e || !x->valid || !e->valid)
        return 0;
    if (!measured) {
        *v = *lo = *hi = e->pred / x->pred;
        return isfinite(*v);
    }
    if (x->meas_status != SP_MEAS_OK || e->meas_status != SP_MEAS_OK)
        return 0;
    *v = e->meas.median / x->meas.median;
    *lo = e->meas.median / x->meas.q3;
    *hi = e->meas.median / x->meas.q1;
    return isfinite(*v);
}

static void y_axis(chart_ctx *cc, const chart_axes *ax, const char *title)
{
    cairo_t *cr = cc->cr;
    cairo_set_line_width(cr, 0.5);
    for (int i = 0; i < chart_scale_nticks(&ax->ys); i++) {
        double v = chart_scale_tick(&ax->ys, i), y = chart_map_y(ax, v);
        char lbl[32];
        chart_scale_label(&ax->ys, v, lbl, sizeof lbl);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, ax->plot.x, y);
        cairo_line_to(cr, ax->plot.x + ax->plot.w, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        chart_text(cc, lbl, 7.5, CHART_REGULAR, 0, ax->plot.x - 4, y,
                   CHART_RIGHT, CHART_MIDDLE, NULL, NULL);
    }
    cairo_rectangle(cr, ax->plot.x, ax->plot.y, ax->plot.w, ax->plot.h);
    cairo_stroke(cr);
    chart_text_vertical(cc, title, 8, CHART_REGULAR, ax->plot.x - 34,
                        ax->plot.y + ax->plot.h / 2);
}

/* Grouped bars: groups are task x size, bars the policies. */
static void speedup_figure(rep_doc *d, const sp_run *r, int mi, int measured)
{
    const sp_campaign *c = r->c;
    char title[256];
    const char *mname = r->mach[mi].m.name;
    if (measured)
        snprintf(title, sizeof title, "Speedup over even split on %s — %s "
                 "(median of %d repeats, whiskers: IQR)", mname,
                 sp_label(c->backend), c->repeats);
    else
        snprintf(title, sizeof title, "PREDICTED(costmodel) only: speedup "
                 "over even split on %s%s", mname,
                 r->mach[mi].m.induced ? " (induced heterogeneity)" : "");
    rep_doc_need(d, FIG_H + 40);
    rep_doc_text(d, title, 10, CHART_BOLD);
    int ng = 0;
    double ymax = 1;
    for (int ti = 0; ti < c->ntask; ti++)
        for (int si = 0; si < c->task[ti].nsizes; si++, ng++)
            for (int p = 0; p < c->npol; p++) {
                double v, lo, hi;
                if (speedup(find(r, mi, ti, si, c->pol[p]),
                            find(r, mi, ti, si, CM_POL_EVEN), measured, &v, &lo, &hi))
                    ymax = fmax(ymax, fmax(v, hi));
            }
    chart_axes ax;
    memset(&ax, 0, sizeof ax);
    chart_scale_fit(0, ymax, 0.05, 6, &ax.ys);
    ax.ys.lo = 0;
    ax.plot = (chart_box){rep_doc_left(d) + 44, d->y + 6,
                          rep_doc_width(d) - 50, FIG_H - 110};
    chart_ctx *cc = &d->cc;
    y_axis(cc, &ax, measured ? "speedup over even (measured)"
                             : "speedup over even (predicted)");
    double gw = ax.plot.w / (ng ? ng : 1), bw = gw * 0.8 / (c->npol ? c->npol : 1);
    cairo_t *cr = cc->cr;
    int g = 0;
    for (int ti = 0; ti < c->ntask; ti++)
        for (int si = 0; si < c->task[ti].nsizes; si++, g++) {
            double x0 = ax.plot.x + g * gw + gw * 0.1;
            for (int p = 0; p < c->npol; p++) {
                double v, lo, hi;
                if (!speedup(find(r, mi, ti, si, c->pol[p]),
                             find(r, mi, ti, si, CM_POL_EVEN), measured, &v, &lo, &hi))
                    continue;
                double xb = x0 + p * bw, y0 = chart_map_y(&ax, 0),
                       y1 = chart_map_y(&ax, fmin(v, ax.ys.hi));
                chart_set_rgba(cr, chart_colour(p % (CHART_NCOLOURS - 1) + 1, 1));
                cairo_rectangle(cr, xb, y1, bw * 0.9, y0 - y1);
                cairo_fill(cr);
                if (measured) {
                    cairo_set_source_rgb(cr, 0, 0, 0);
                    cairo_set_line_width(cr, 0.6);
                    double xm = xb + bw * 0.45;
                    cairo_move_to(cr, xm, chart_map_y(&ax, fmin(lo, ax.ys.hi)));
                    cairo_line_to(cr, xm, chart_map_y(&ax, fmin(hi, ax.ys.hi)));
                    cairo_stroke(cr);
                }
            }
            const sp_result *e = find(r, mi, ti, si, CM_POL_EVEN);
            cairo_set_source_rgb(cr, 0, 0, 0);
            if (e)
                chart_text(cc, e->task_text, 6.5, CHART_REGULAR, gw - 2,
                           x0 + gw * 0.4, ax.plot.y + ax.plot.h + 4,
                           CHART_CENTER, CHART_TOP, NULL, NULL);
        }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.8);
    double y1 = chart_map_y(&ax, 1.0);
    cairo_move_to(cr, ax.plot.x, y1);
    cairo_line_to(cr, ax.plot.x + ax.plot.w, y1);
    cairo_stroke(cr);
    chart_legend_item it[CM_NPOL];
    for (int p = 0; p < c->npol; p++)
        it[p] = (chart_legend_item){cm_policy_name(c->pol[p]), CHART_SQUARE,
            chart_colour(p % (CHART_NCOLOURS - 1) + 1, 1),
            chart_colour(p % (CHART_NCOLOURS - 1) + 1, 1), 0};
    double ly = ax.plot.y + ax.plot.h + 44;
    chart_legend(cc, it, c->npol, rep_doc_left(d), ly, rep_doc_width(d), 1);
    d->y = ly + 30;
}

static void scatter_figure(rep_doc *d, const sp_run *r, int mi)
{
    double x[4096], y[4096];
    size_t n = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < r->nres && n < 4096; i++) {
        const sp_result *s = &r->res[i];
        if (s->mach != mi || !s->valid || s->meas_status != SP_MEAS_OK)
            continue;
        x[n] = log10(s->meas.median);
        y[n] = log10(s->pred);
        lo = fmin(lo, fmin(x[n], y[n]));
        hi = fmax(hi, fmax(x[n], y[n]));
        n++;
    }
    if (n == 0)
        return;
    char title[256];
    snprintf(title, sizeof title, "PREDICTED(costmodel) against %s on %s "
             "(every policy job; line: prediction = measurement)",
             sp_label(r->c->backend), r->mach[mi].m.name);
    rep_doc_need(d, FIG_H + 20);
    rep_doc_text(d, title, 10, CHART_BOLD);
    chart_axes ax;
    memset(&ax, 0, sizeof ax);
    chart_scale_fit(lo, hi, 0.05, 6, &ax.xs);
    chart_scale_fit(lo, hi, 0.05, 6, &ax.ys);
    chart_margins m;
    chart_axes_margins(&d->cc, &ax, &m);
    double side = FIG_H - 40;
    ax.plot = (chart_box){rep_doc_left(d) + m.left, d->y + 6, side, side - m.bottom};
    char xt[96], yt[96];
    snprintf(xt, sizeof xt, "log10 %s time (s)", sp_label(r->c->backend));
    snprintf(yt, sizeof yt, "log10 PREDICTED(costmodel) time (s)");
    chart_axes_draw(&d->cc, &ax, xt, yt);
    cairo_t *cr = d->cr;
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    cairo_move_to(cr, chart_map_x(&ax, ax.xs.lo), chart_map_y(&ax, ax.xs.lo));
    cairo_line_to(cr, chart_map_x(&ax, ax.xs.hi), chart_map_y(&ax, ax.xs.hi));
    cairo_stroke(cr);
    chart_scatter(&d->cc, &ax, x, y, n, CHART_CIRCLE, 2.2,
                  chart_colour(CHART_BLUE, 0.8), 0.5);
    d->y = ax.plot.y + ax.plot.h + m.bottom + 12;
}

static void calibration_tables(rep_doc *d, const sp_run *r, int mi)
{
    const sp_machine_out *mo = &r->mach[mi];
    char cap[256];
    if (mo->calibrated) {
        snprintf(cap, sizeof cap, "Calibration of %s: efficiencies, fixed "
                 "costs (single-device ladders) and links (exchange and copy ladders) "
                 "fitted by GSL weighted least squares to %s timings",
                 mo->m.name, sp_label(r->c->backend));
        rep_table t;
        rep_table_init(&t, cap);
        rep_table_col(&t, "device", CHART_LEFT);
        rep_table_col(&t, "class", CHART_LEFT);
        rep_table_col(&t, "roof / link bw", CHART_LEFT);
        rep_table_col(&t, "eta (fitted)", CHART_RIGHT);
        rep_table_col(&t, "fixed cost / lat (s)", CHART_RIGHT);
        rep_table_col(&t, "R^2", CHART_RIGHT);
        rep_table_col(&t, "rungs", CHART_RIGHT);
        for (int i = 0; i < mo->fit.nrows; i++) {
            const scal_row *f = &mo->fit.rows[i];
            char (*c)[REP_CELL] = rep_table_row(&t, 0);
            if (!c)
                break;
            snprintf(c[0], REP_CELL, "%s", mo->m.dev[f->dev].name);
            snprintf(c[1], REP_CELL, "%s", cm_kind_name(f->kind));
            snprintf(c[2], REP_CELL, "%s", f->compute_bound ? "FLOP/s" : "bytes/s");
            snprintf(c[3], REP_CELL, "%.4f", f->eta);
            snprintf(c[4], REP_CELL, "%.3e", f->fixed_s);
            snprintf(c[5], REP_CELL, "%.3f", f->r2);
            snprintf(c[6], REP_CELL, "%d", f->npts);
        }
        for (int i = 0; i < mo->links.nlinks; i++) {
            const scal_link *l = &mo->links.links[i];
            char (*c)[REP_CELL] = rep_table_row(&t, 0);
            if (!c)
                break;
            snprintf(c[0], REP_CELL, "%s-%s", mo->m.dev[l->a].name,
                     mo->m.dev[l->b].name);
            snprintf(c[1], REP_CELL, "p2p link");
            link_cells(c, l->bw, l->lat, l->r2);
        }
        for (int i = 0; i < mo->host_links.nlinks; i++) {
            const scal_host_link *l = &mo->host_links.links[i];
            char (*c)[REP_CELL] = rep_table_row(&t, 0);
            if (!c)
                break;
            snprintf(c[0], REP_CELL, "%s", mo->m.dev[l->dev].name);
            snprintf(c[1], REP_CELL, "%s copy", l->h2d ? "host->device" : "device->host");
            link_cells(c, l->bw, l->lat, l->r2);
        }
        rep_table_draw(d, &t);
        rep_table_free(&t);
        rep_doc_space(d, 8);
    }
    if (!mo->has_score)
        return;
    const scal_score *s = &mo->score;
    snprintf(cap, sizeof cap, "Held-out error on %s: PREDICTED(costmodel) "
             "vs %s, multi-device policy decisions not used by the fit",
             mo->m.name, sp_label(r->c->backend));
    rep_table t;
    rep_table_init(&t, cap);
    const char *h[] = {"n", "median APE", "p90 APE", "Spearman rho",
                       "Kendall tau-b", "regret", "warning"};
    for (int i = 0; i < 7; i++)
        rep_table_col(&t, h[i], CHART_RIGHT);
    char (*c)[REP_CELL] = rep_table_row(&t, s->warn);
    if (c) {
        snprintf(c[0], REP_CELL, "%zu", s->n);
        snprintf(c[1], REP_CELL, "%.1f%%", s->median_ape);
        snprintf(c[2], REP_CELL, "%.1f%%", s->p90_ape);
        snprintf(c[3], REP_CELL, "%.3f", s->spearman);
        snprintf(c[4], REP_CELL, "%.3f", s->kendall_tau_b);
        snprintf(c[5], REP_CELL, "%.1f%%", 100 * s->regret);
        snprintf(c[6], REP_CELL, "%s", s->warn ? "APE > 30%" : "none");
    }
    rep_table_draw(d, &t);
    rep_table_free(&t);
    rep_doc_space(d, 8);
}

static void terms_table(rep_doc *d, const sp_run *r, int mi)
{
    char cap[256];
    snprintf(cap, sizeof cap, "PREDICTED(costmodel) only: Eq. (1) terms on %s "
             "(critical device; milliseconds)", r->mach[mi].m.name);
    rep_table t;
    rep_table_init(&t, cap);
    const char *h[] = {"task", "policy", "devices", "setup", "in", "comp",
                       "out", "launch", "merge", "total"};
    for (int i = 0; i < 10; i++)
        rep_table_col(&t, h[i], i < 3 ? CHART_LEFT : CHART_RIGHT);
    for (size_t i = 0; i < r->nres; i++) {
        const sp_result *x = &r->res[i];
        if (x->mach != mi)
            continue;
        char (*c)[REP_CELL] = rep_table_row(&t, x->policy == CM_POL_OPTIMUM);
        if (!c)
            break;
        snprintf(c[0], REP_CELL, "%s", x->task_text);
        snprintf(c[1], REP_CELL, "%s", cm_policy_name(x->policy));
        if (!x->valid) {
            snprintf(c[2], REP_CELL, "rejected");
            continue;
        }
        int k = x->terms.critical;
        snprintf(c[2], REP_CELL, "%d%s", x->d.n, x->d.dynamic ? " dyn" : "");
        double v[7] = {x->terms.t_setup, x->terms.t_in[k], x->terms.t_comp[k],
                       x->terms.t_out[k], x->terms.t_launch[k], x->terms.t_merge,
                       x->terms.total};
        for (int j = 0; j < 7; j++)
            snprintf(c[3 + j], REP_CELL, "%.4g", 1e3 * v[j]);
    }
    rep_table_draw(d, &t);
    rep_table_free(&t);
}

static void title_page(rep_doc *d, const sp_run *r)
{
    const sp_campaign *c = r->c;
    char buf[512];
    rep_doc_new_page(d);
    snprintf(buf, sizeof buf, "Split study %s", c->name);
    rep_doc_text(d, buf, 16, CHART_BOLD);
    rep_doc_space(d, 6);
    rep_doc_kv(d, "campaign", c->path, CHART_REGULAR);
    snprintf(buf, sizeof buf, "%lu", c->seed);
    rep_doc_kv(d, "seed", buf, CHART_REGULAR);
    rep_doc_kv(d, "backend", sp_backend_name(c->backend), CHART_REGULAR);
    snprintf(buf, sizeof buf, "PREDICTED(costmodel)%s%s",
             c->backend != SP_COSTMODEL ? " and " : " only",
             c->backend != SP_COSTMODEL ? sp_label(c->backend) : "");
    rep_doc_kv(d, "labels", buf, CHART_REGULAR);
    for (int i = 0; i < c->nmach; i++) {
        const cm_machine *m = &r->mach[i].m;
        snprintf(buf, sizeof buf, "%d devices%s%s", m->ndev,
                 m->induced ? ", heterogeneity induced (slowdown factors)" : "",
                 c->mach[i].probe ? ", described by measurement (probe)" : "");
        rep_doc_kv(d, m->name, buf, CHART_REGULAR);
    }
    rep_doc_space(d, 6);
    rep_doc_text(d, "PREDICTED(costmodel) numbers come from Eq. (1) of "
                 "docs/costmodel.md; MEASURED numbers are medians of timed "
                 "repeats after discarded warm-ups. The two are never pooled: "
                 "each figure and table names the label of its numbers.",
                 9, CHART_REGULAR);
    for (int i = 0; i < c->nmach; i++)
        if (r->mach[i].par_eff < 0.8) {
            snprintf(buf, sizeof buf, "Warning: on %s the devices were not "
                     "independent while measuring (MEASURED(cpu) parallel "
                     "efficiency %.2f; other processes shared the cores). "
                     "Multi-device timings include that contention, which "
                     "Eq. (1) does not model.", r->mach[i].m.name,
                     r->mach[i].par_eff);
            rep_doc_text(d, buf, 9, CHART_BOLD);
        }
    for (int i = 0; i < c->nmach; i++)
        if (r->mach[i].has_score && r->mach[i].score.warn) {
            snprintf(buf, sizeof buf, "Warning: on %s the cost model's held-out "
                     "error exceeds 30%% (median %.1f%%, p90 %.1f%%).",
                     r->mach[i].m.name, r->mach[i].score.median_ape,
                     r->mach[i].score.p90_ape);
            rep_doc_text(d, buf, 9, CHART_BOLD);
        }
    rep_doc_space(d, 10);
}

int split_report(const sp_run *r, const char *path, gd_err *err)
{
    rep_doc d;
    char footer[128];
    snprintf(footer, sizeof footer, "gpudse split study %s", r->c->name);
    int rc = rep_doc_begin(&d, A4_W, A4_H, r->c->name, footer, path, err);
    if (rc)
        return rc;
    title_page(&d, r);
    for (int mi = 0; mi < r->c->nmach; mi++) {
        if (r->c->backend != SP_COSTMODEL)
            speedup_figure(&d, r, mi, 1);
        speedup_figure(&d, r, mi, 0);
        if (r->c->backend != SP_COSTMODEL)
            scatter_figure(&d, r, mi);
        calibration_tables(&d, r, mi);
        terms_table(&d, r, mi);
        rep_doc_space(&d, 12);
    }
    return rep_doc_end(&d, path, err);
}

int split_report_dir(const char *dir, gd_err *err)
{
    sp_campaign *c = malloc(sizeof *c);
    if (!c)
        return gd_errf(err, GD_EENV, "out of memory");
    sp_run r;
    int rc = sp_run_load(dir, c, &r, err);
    if (!rc) {
        char path[PATH_MAX];
        util_path_join(path, sizeof path, dir, "report.pdf");
        rc = split_report(&r, path, err);
        sp_run_free(&r);
    }
    free(c);
    return rc;
}
