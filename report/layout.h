/* layout: which parts the report has and in what order — a small XML file
 * (templates/report/default.xml documents the format) or the built-in
 * default: title page, contents, per workload the Pareto figure and table,
 * quality, sensitivity, heatmaps and annotations, then the strategy-study
 * and calibration pages (when the run has them), campaign annotations and
 * the failures appendix. */
#ifndef GPUDSE_LAYOUT_H
#define GPUDSE_LAYOUT_H

#include "campaign.h"
#include "chart.h"
#include "util.h"
#include "space.h"

#define REP_LAYOUT_MAX 32
#define REP_SECTIONS_MAX 16

typedef enum {
    REP_ITEM_FIGURE, REP_ITEM_TABLE, REP_ITEM_ANNOTATIONS
} rep_item_kind;

typedef struct {
    int kind;              /* rep_item_kind */
    char name[32];         /* figure kind ("pareto") or table kind ("front") */
    char metrics[256];     /* per-metric figures: names, space separated;
                            * "" = the campaign's objectives */
    int log;               /* FIG_LOGX | FIG_LOGY from log="x|y|xy", with
                            * density="..." as FIG_EXACT / FIG_DENSITY(N) */
    int no_title;          /* title="off": figure files without title and
                            * note (the report's pages keep them) */
    int top;               /* table kind="front" top="N": the first N rows
                            * (best first by objective 1); 0 = all */
} rep_item;

/* A figure across workloads, a top-level <figure> of the layout.
 * kind "bars": see the bars fields below.
 * kind "line": metric against one numeric knob, one line per workload,
 * the other knobs at the workload's baseline (at_best = 0) or at its best
 * configuration by the first objective (at_best = 1). */
#define REP_BARS_MAX 8

typedef struct {
    char kind[16];         /* "line" or "bars" */
    char metric[64];
    int knob;              /* space_knob */
    int at_best;           /* at="best" */
    int log;               /* FIG_LOGX | FIG_LOGY */
    int no_title;          /* title="off": the files have no title or
                            * caption (the report's page keeps them) */
    int has_xrange, has_yrange;      /* xrange="lo hi", yrange="lo hi" */
    double xrange[2], yrange[2];
    /* bars: the metric's ratio to each workload's baseline for nconf
     * configs (a group per workload, then the geomean); best[i]: each
     * workload's best by the first objective, else conf[i]. */
    int nconf;
    int best[REP_BARS_MAX];
    gpu_config conf[REP_BARS_MAX];
    char label[REP_BARS_MAX][64];
} rep_cross_fig;

#define REP_CROSS_MAX 16

/* Top-level parts after the title page and contents, in order. */
typedef enum {
    REP_SEC_WORKLOADS, REP_SEC_STRATEGY, REP_SEC_CALIBRATION,
    REP_SEC_ANNOTATIONS, REP_SEC_FAILURES, REP_SEC_FIGURE,
    REP_SEC_EXPLORATION, REP_SEC_AGGREGATES
} rep_section;

typedef struct {
    int title_page;        /* 1: start with the title page */
    int contents;          /* 1: table of contents with page numbers */
    int nsections;
    int section[REP_SECTIONS_MAX];   /* rep_section */
    int section_fig[REP_SECTIONS_MAX];   /* REP_SEC_FIGURE: index in cross */
    int ncross;
    rep_cross_fig cross[REP_CROSS_MAX];
    int nitems;
    rep_item item[REP_LAYOUT_MAX];   /* drawn for every workload, in order */
    /* <report font="FAMILY" font-size="PT">: the figure files' text
     * (checked installed when the layout is read); "" / 0: default. */
    chart_font font;
    const camp_campaign *camp;  /* whose declared metrics (<derived>, a
                                 * command's <metric>) it may name; NULL:
                                 * the catalogue's only */
} rep_layout;

void rep_layout_default(rep_layout *l);
/* Parse a layout file; errors are GD_EINPUT naming FILE:LINE. */
int rep_layout_load(const char *path, rep_layout *l, gd_err *err);
/* The same for campaign c's report: metrics c declares are known too. */
int rep_layout_load_camp(const char *path, const camp_campaign *c,
                         rep_layout *l, gd_err *err);
/* The campaign's <report layout="..."> file, when it names one, parsed now
 * (preflight_load), not after the jobs ran. */
int rep_layout_check_campaign(const camp_campaign *c, gd_err *err);

#endif
