/* compare: `gpudse compare BASE_DIR NEW_DIR` — matches the jobs of two run
 * directories (by key, else by workload + canonical config across tool
 * versions), checks every metric, job status, Pareto front and calibration
 * error against thresholds, and writes NEW_DIR/compare.json, an optional
 * JUnit XML file and a terminal summary sorted by severity. */
#ifndef GPUDSE_COMPARE_H
#define GPUDSE_COMPARE_H

#include "util.h"
#include "campaign.h"

/* Threshold metric names beyond the result metrics. */
#define CMP_HYPERVOLUME "hypervolume"
#define CMP_CALIB_MAPE "calibration_mape"

/* Default threshold: 1 % of the base value, no absolute floor. */
#define CMP_DEFAULT_REL_PCT 1.0
#define CMP_DEFAULT_ABS 0.0

/* 1 when name may carry a threshold: a known result metric,
 * "hypervolume", "calibration_mape" or "*" (every metric). */
int cmp_threshold_metric_known(const char *name);
/* The closest such name for a did-you-mean, or NULL. */
const char *cmp_threshold_metric_suggest(const char *name);
/* The campaign's <regression> thresholds name such metrics (GD_EINPUT at
 * the <threshold>'s FILE:LINE when one does not). */
int cmp_check_campaign(const camp_campaign *c, gd_err *err);

#define CMP_MAXFLAGS 64

typedef struct {
    const char *base_dir, *new_dir;
    const char *junit_path;        /* NULL: no JUnit file */
    int nflags;                    /* --threshold flags: override the campaign */
    camp_threshold flags[CMP_MAXFLAGS];
    int fail_on_improvement;       /* an improvement beyond its threshold fails */
    int accept;                    /* NEW is accepted: report, exit 0 */
} cmp_opts;

/* Parse one --threshold value "METRIC=PCT" or "METRIC=PCT,ABS" (PCT may end
 * in '%'); GD_EINPUT with a message naming the flag on error. */
int cmp_parse_threshold(const char *text, camp_threshold *t, gd_err *err);

/* Compare and write NEW_DIR/compare.json (and the JUnit file). The terminal
 * summary is appended to summary (may be NULL). A metric's direction (which
 * way is better) is its <threshold direction=...> in NEW's campaign, else
 * its objective's (maximize: higher is better), higher for hypervolume and
 * lower for calibration_mape; any other metric has none, and every change
 * beyond its threshold is a regression. A change beyond the threshold in
 * the better direction is an improvement: reported and counted, a failure
 * only with fail_on_improvement. Returns GD_OK when nothing regressed (or
 * o->accept), GD_EJOBS on any regression, GD_EINPUT on bad input, GD_EENV. */
int cmp_run(const cmp_opts *o, util_buf *summary, gd_err *err);

/* The subcommand; argv[0] is BASE_DIR. */
int cmd_compare(int argc, char **argv);

#endif
