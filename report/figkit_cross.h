/* figkit_cross: what the kinds of figure across workloads (figlines.c,
 * figbars.c) share with figcross.c, which draws them by kind: the metric
 * and the title. Only declarations, defined in figcross.c; this header
 * lets a kind use them without including figcross, which includes the
 * kinds (no include cycle). */
#ifndef GPUDSE_FIGKIT_CROSS_H
#define GPUDSE_FIGKIT_CROSS_H

#include <stddef.h>
#include "layout.h"
#include "rundata.h"

/* The metric the figure shows: its own, else the first objective. */
const char *fig_cross_metric(const rep_run *run, const rep_cross_fig *f);
/* Page heading and figure title: "IPC against n_clusters across
 * workloads". */
void fig_cross_title(const rep_run *run, const rep_cross_fig *f, char *out,
                     size_t n);

#endif
