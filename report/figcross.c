/* figcross: figures across workloads — what they draw gathered one
 * workload at a time and drawing dispatched by kind (line: figlines.c,
 * bars: figbars.c), metric, title, file stems and the standalone files. */
#include "figcross.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figbars.h"
#include "figlines.h"
#include "figures.h"

static int is_bars(const rep_cross_fig *f)
{
    return strcmp(f->kind, "bars") == 0;
}

const char *fig_cross_metric(const rep_run *run, const rep_cross_fig *f)
{
    if (f->metric[0] || run->nobj < 1)
        return f->metric[0] ? f->metric : "ipc";
    return run->obj[0].metric;
}

void fig_cross_title(const rep_run *run, const rep_cross_fig *f, char *out,
                     size_t n)
{
    const char *m = met_label(fig_cross_metric(run, f));
    if (is_bars(f))
        snprintf(out, n, "%s relative to the baseline, per workload", m);
    else
        snprintf(out, n, "%s against %s across workloads", m,
                 space_knob_name(rep_run_space(run), f->knob));
}

struct fig_cross_set {
    int n;
    rep_cross_fig f[REP_CROSS_MAX];
    fig_line_data *line[REP_CROSS_MAX];   /* by kind: one of the two */
    fig_bars_data *bars[REP_CROSS_MAX];
};

fig_cross_set *fig_cross_new(const rep_run *run, const rep_cross_fig *f,
                             int n)
{
    fig_cross_set *s = calloc(1, sizeof *s);
    if (!s || n < 0 || n > REP_CROSS_MAX) {
        free(s);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        s->f[s->n++] = f[i];
        if (is_bars(&f[i]))
            s->bars[i] = fig_bars_new(run, &f[i]);
        else
            s->line[i] = fig_line_new(run, &f[i]);
        if (!s->bars[i] && !s->line[i]) {
            fig_cross_free(s);
            return NULL;
        }
    }
    return s;
}

void fig_cross_add(fig_cross_set *s, const rep_run *run, int wl)
{
    for (int i = 0; s && i < s->n; i++)
        if (s->bars[i])
            fig_bars_add(s->bars[i], run, &s->f[i], wl);
        else
            fig_line_add(s->line[i], run, &s->f[i], wl);
}

static int add_selected(rep_run *run, void *arg)
{
    int wl = rep_wl_find(run, run->recs_wl);
    if (wl >= 0)
        fig_cross_add(arg, run, wl);
    return 0;
}

int fig_cross_gather(rep_run *run, const rep_cross_fig *f, int n,
                     fig_cross_set **out, gd_err *err)
{
    *out = fig_cross_new(run, f, n);
    if (!*out)
        return gd_errf(err, GD_EENV, "%s: out of memory for the figures "
                       "across workloads", run->dir);
    int rc = rep_run_each(run, add_selected, *out, err);
    if (rc) {
        fig_cross_free(*out);
        *out = NULL;
    }
    return rc;
}

void fig_cross_free(fig_cross_set *s)
{
    for (int i = 0; s && i < s->n; i++) {
        fig_line_free(s->line[i]);
        fig_bars_free(s->bars[i]);
    }
    free(s);
}

void fig_cross_draw(chart_ctx *cc, const rep_run *run,
                    const fig_cross_set *s, int i, int titled,
                    chart_box box)
{
    if (!s || i < 0 || i >= s->n)
        return;
    rep_cross_fig f = s->f[i];
    if (titled)
        f.no_title = 0;
    if (s->bars[i])
        fig_bars_draw(cc, run, &f, s->bars[i], box);
    else
        fig_line_draw(cc, run, &f, s->line[i], box);
}

void fig_cross_stem(const rep_run *run, const rep_cross_fig *f, char *out,
                    size_t n)
{
    if (is_bars(f))
        snprintf(out, n, "bars_%s", fig_cross_metric(run, f));
    else
        snprintf(out, n, "line_%s_%s%s", space_knob_name(rep_run_space(run), f->knob),
                 fig_cross_metric(run, f), f->at_best ? "_best" : "");
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            *p = '_';
}

typedef struct {
    const rep_run *run;
    const fig_cross_set *s;
    int i;
} cross_job;

static void draw_job(chart_ctx *cc, chart_box page, const void *arg)
{
    const cross_job *j = arg;
    fig_cross_draw(cc, j->run, j->s, j->i, 0, page);
}

int fig_cross_write_files(const rep_run *run, const fig_cross_set *s, int i,
                          int formats, const chart_font *font, gd_err *err)
{
    char dir[4096], stem[160], name[200], path[4096];
    double w, h;
    if (!s || i < 0 || i >= s->n)
        return gd_errf(err, GD_EENV, "%s: no figure across workloads %d",
                       run->dir, i + 1);
    const rep_cross_fig *f = &s->f[i];
    cross_job j = { run, s, i };
    int rc = rep_run_path(run, "figures", dir, sizeof dir, err);
    if (!rc)
        rc = util_mkdirs(dir, err);
    fig_cross_stem(run, f, stem, sizeof stem);
    fig_size(run->camp.figure_single, &w, &h);
    for (int i = 0; !rc && i < 2; i++) {
        int bit = i == 0 ? CAMP_FMT_SVG : CAMP_FMT_PDF;
        if (!(formats & bit))
            continue;
        snprintf(name, sizeof name, "%s.%s", stem, i == 0 ? "svg" : "pdf");
        if (util_path_join(path, sizeof path, dir, name) != GD_OK)
            return gd_errf(err, GD_EENV, "%s/%s: path too long", dir, name);
        rc = chart_write_file_font(i == 0 ? REP_OUT_SVG : REP_OUT_PDF, w, h,
                                   stem, path, font, draw_job, &j, err);
    }
    return rc;
}
