/* batch: the one dispatch loop of a run — asks the strategies for configs,
 * skips keys already journaled, runs in-process jobs at once and external
 * jobs through an executor (execif.h: local or Slurm), retries transient
 * failures with backoff, and journals every finished record exactly once. */
#ifndef GPUDSE_BATCH_H
#define GPUDSE_BATCH_H

#include <stdint.h>
#include "campaign.h"
#include "jobsrc.h"

/* batch_opts and batch_counts, what the loop is given and what it
 * counts, are declared in jobsrc.h: the job source and the executors
 * (execif.h) read them too, and batch.c stands above both. */

/* Returns GD_OK when every proposed job finished or was found finished (or
 * the stop flag was raised: check it), else an error. */
int batch_run(const batch_opts *o, batch_counts *n, gd_err *err);

/* Number of configs each workload's strategy will propose, in total. */
uint64_t batch_planned(const camp_campaign *c);

#endif
