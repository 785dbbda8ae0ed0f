/* figcross: figures across workloads — metric, title, caption and drawing
 * dispatched by kind (line: figlines.c, bars: figbars.c), file stems and
 * the standalone files. */
#include "figcross.h"

#include <stdio.h>
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

void fig_cross_draw(chart_ctx *cc, const rep_run *run,
                    const rep_cross_fig *f, chart_box box)
{
    if (is_bars(f))
        fig_bars_draw(cc, run, f, box);
    else
        fig_line_draw(cc, run, f, box);
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
    const rep_cross_fig *f;
} cross_job;

static void draw_job(chart_ctx *cc, chart_box page, const void *arg)
{
    const cross_job *j = arg;
    fig_cross_draw(cc, j->run, j->f, page);
}

int fig_cross_write_files(const rep_run *run, const rep_cross_fig *f,
                          int formats, const chart_font *font, gd_err *err)
{
    char dir[4096], stem[160], name[200], path[4096];
    double w, h;
    cross_job j = { run, f };
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
