/* layout: which parts the report has and in what order — a small XML file
 * (templates/report/default.xml documents the format) or the built-in
 * default: title page, contents, per workload the Pareto figure and table,
 * quality, sensitivity, heatmaps and annotations, then the strategy-study
 * and calibration pages (when the run has them), campaign annotations and
 * the failures appendix. */
#ifndef GPUDSE_LAYOUT_H
#define GPUDSE_LAYOUT_H

#include "util.h"

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
    int log;               /* FIG_LOGX | FIG_LOGY from log="x|y|xy" */
} rep_item;

/* Top-level parts after the title page and contents, in order. */
typedef enum {
    REP_SEC_WORKLOADS, REP_SEC_STRATEGY, REP_SEC_CALIBRATION,
    REP_SEC_ANNOTATIONS, REP_SEC_FAILURES, REP_SEC_EXPLORATION
} rep_section;

typedef struct {
    int title_page;        /* 1: start with the title page */
    int contents;          /* 1: table of contents with page numbers */
    int nsections;
    int section[REP_SECTIONS_MAX];   /* rep_section */
    int nitems;
    rep_item item[REP_LAYOUT_MAX];   /* drawn for every workload, in order */
} rep_layout;

void rep_layout_default(rep_layout *l);
/* Parse a layout file; errors are GD_EINPUT naming FILE:LINE. */
int rep_layout_load(const char *path, rep_layout *l, gd_err *err);

#endif
