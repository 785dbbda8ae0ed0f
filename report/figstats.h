/* figstats: the figure kinds drawn from a workload's statistics — per-knob
 * sensitivity bars (analysis.json "sensitivity") and the heatmap of a
 * metric's mean over the two most influential knobs (from results.jsonl).
 * Registered in figures.c. */
#ifndef GPUDSE_FIGSTATS_H
#define GPUDSE_FIGSTATS_H

#include "chart.h"
#include "figkit.h"    /* fig_knob_title */
#include "rundata.h"

void fig_sensitivity(chart_ctx *cc, const rep_run *run, int wl,
                     const char *metric, int log, chart_box box);
int fig_sensitivity_avail(const rep_run *run, int wl, const char *metric);

void fig_heatmap(chart_ctx *cc, const rep_run *run, int wl,
                 const char *metric, int log, chart_box box);
int fig_heatmap_avail(const rep_run *run, int wl, const char *metric);

/* The two knobs a heatmap of metric shows: largest sensitivity effect
 * first, else the first two knobs that vary. 0 when found. */
int fig_heat_knobs(const rep_run *run, int wl, const char *metric, int *ka,
                   int *kb, int *by_sensitivity);

#endif
