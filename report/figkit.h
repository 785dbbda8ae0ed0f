/* figkit: what the figure kinds share — the FIG_* bits a layout item asks
 * for and the axis titles every kind writes the same way. Only
 * declarations: each function is defined with the kind it came from
 * (figures.c, figstats.c), and this header lets a kind use another's text
 * without including its module (no include cycle between figures,
 * figstats, figlines and figbars). figkit_cross.h holds the same for the
 * figures across workloads. */
#ifndef GPUDSE_FIGKIT_H
#define GPUDSE_FIGKIT_H

#include <stddef.h>
#include "campaign.h"

/* Log axes requested by the layout (log="x", "y" or "xy"); FIG_NOTITLE:
 * title="off", the figure without its title and note (figure files; the
 * report's pages keep them); FIG_EXACT: density="off", every job as its
 * own marker however many. */
enum { FIG_LOGX = 1, FIG_LOGY = 2, FIG_NOTITLE = 4, FIG_EXACT = 8 };

/* Scatters of more than FIG_DENSITY_AUTO jobs are drawn as a density
 * raster (chart_density) with the front's points exact, unless the layout
 * says otherwise: density="N" (FIG_DENSITY(N) in the flags: above N
 * points), density="on" (N = 0) or density="off" (FIG_EXACT);
 * fig_density_above (figures.c) reads the flags. */
#define FIG_DENSITY_AUTO 5000
#define FIG_DENSITY_MAX 1000000
#define FIG_DENSITY_SHIFT 8
#define FIG_DENSITY(n) ((int)(((n) + 1) << FIG_DENSITY_SHIFT))

/* Axis title for a metric: "Area (mm²)"; a <derived> metric of c (NULL:
 * none known) with its unit=: "ipc_per_mm2 (1/mm²)" (figures.c). */
void fig_axis_title(const camp_campaign *c, const char *metric, char *out,
                    size_t n);
/* The same with the objective's sense: "IPC, higher is better". */
void fig_axis_title_sense(const camp_campaign *c, const camp_objective *o,
                          char *out, size_t n);

/* Axis title of a knob: "shmem_size (bytes)" (figstats.c). */
void fig_knob_title(int knob, char *out, size_t n);
/* The same for knob of sp (its user knobs by name; NULL: built-in). */
void fig_knob_title_in(const space_def *sp, int knob, char *out, size_t n);

#endif
