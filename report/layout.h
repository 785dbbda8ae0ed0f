/* layout: which parts the report has and in what order — a small XML file
 * (templates/report/default.xml documents the format) or the built-in
 * default: title page, then per workload the Pareto figure and front table. */
#ifndef GPUDSE_LAYOUT_H
#define GPUDSE_LAYOUT_H

#include "util.h"

#define REP_LAYOUT_MAX 32

typedef enum { REP_ITEM_FIGURE, REP_ITEM_TABLE } rep_item_kind;

typedef struct {
    int kind;              /* rep_item_kind */
    char name[32];         /* figure kind ("pareto") or table kind ("front") */
} rep_item;

typedef struct {
    int title_page;        /* 1: start with the title page */
    int nitems;
    rep_item item[REP_LAYOUT_MAX];   /* drawn for every workload, in order */
} rep_layout;

void rep_layout_default(rep_layout *l);
/* Parse a layout file; errors are GD_EINPUT naming FILE:LINE. */
int rep_layout_load(const char *path, rep_layout *l, gd_err *err);

#endif
