/* status: `gpudse status DIR [--json] [--watch [S]]` — a run's progress
 * from its files alone, while it runs or after its coordinator died:
 * queued, running, done and failed jobs per workload with totals, the
 * running jobs (workload, config, elapsed, last log line; Slurm tasks as
 * squeue reports them), results job-run wrote that are not yet merged, the
 * phase (jobs, analysis, report, finished) and an ETA. */
#ifndef GPUDSE_STATUS_H
#define GPUDSE_STATUS_H

int cmd_status(int argc, char **argv);

#endif
