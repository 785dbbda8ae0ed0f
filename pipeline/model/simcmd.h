/* simcmd: `gpudse sim` — one prediction of the embedded model for a
 * workload descriptor at a config (JSON), or one CSV row of predictions per
 * config row of a CSV file. All numbers are modelled. */
#ifndef GPUDSE_SIMCMD_H
#define GPUDSE_SIMCMD_H

#include "space.h"
#include "util.h"

/* Parse "n_clusters=30,l1_sets=64" over the baseline into c. Unknown knobs
 * and values are GD_EINPUT with the knob's allowed values. */
int sim_parse_config(const char *text, gpu_config *c, gd_err *err);

/* gpudse sim -w W.xml (--config k=v,... | --configs CONFIGS.csv) */
int cmd_sim(int argc, char **argv);

#endif
