/* figoverlay: the Pareto fronts of several run directories on one plot
 * per workload (`gpudse report DIR --overlay OTHER[:LABEL]`): one series
 * per run with its label and its fidelity (modelled, measured or mixed,
 * said per series and in the title), files figures/overlay_WORKLOAD.* and
 * a report page per workload. */
#ifndef GPUDSE_FIGOVERLAY_H
#define GPUDSE_FIGOVERLAY_H

#include "chart.h"
#include "rundata.h"

#define REP_OVERLAY_MAX 7   /* other runs: with DIR, the 8 series colours
                               * (REP_OVERLAY_ARGS in report.h is the same) */

typedef struct {
    rep_run run;
    char label[96];
} rep_overlay_run;

/* The other runs of an overlay, loaded (fronts, not records). */
typedef struct {
    int n;
    rep_overlay_run *o;     /* n entries */
    char base_label[96];
} rep_overlay;

/* Load each "DIR[:LABEL]" of spec[0..n) against the report's run base:
 * a run directory (not a split study) whose first two objectives are
 * base's. Errors are GD_EINPUT naming the argument. The default label is
 * the run's campaign name, or its directory's name when two runs share a
 * campaign name. rep_overlay_free either way. */
int rep_overlay_load(const rep_run *base, const char *const *spec, int n,
                     rep_overlay *ov, gd_err *err);
void rep_overlay_free(rep_overlay *ov);

/* Draw workload wl of base with every overlay run's front into box;
 * no_title leaves title and note out. */
void fig_overlay_draw(chart_ctx *cc, const rep_run *base,
                      const rep_overlay *ov, int wl, int no_title,
                      chart_box box);
/* Write DIR/figures/overlay_WORKLOAD.svg and/or .pdf for each workload. */
int fig_overlay_write_files(const rep_run *base, const rep_overlay *ov,
                            int formats, const chart_font *font,
                            gd_err *err);
/* Title of workload wl's overlay: "sgemm: Pareto fronts of 3 runs". */
void fig_overlay_title(const rep_run *base, const rep_overlay *ov, int wl,
                       char *out, size_t n);

#endif
