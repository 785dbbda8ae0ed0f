/* split_analysis: the analysis stage of a split study — reads a split
 * run directory (campaign.xml, manifest.json, results.jsonl, machines/)
 * and writes split-analysis.json: per machine its calibration (as the run
 * recorded it), the held-out score of PREDICTED(costmodel) against the
 * measured times, and every policy's speedup over the even split. */
#ifndef GPUDSE_SPLIT_ANALYSIS_H
#define GPUDSE_SPLIT_ANALYSIS_H

#include "util.h"

/* GD_OK, or GD_EINPUT naming the file that is missing or damaged (an
 * unfinished run says so), GD_EENV. */
int ana_split_run(const char *rundir, gd_err *err);

#endif
