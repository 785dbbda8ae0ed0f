/* exec_slurm: the Slurm executor (its operations: exec_slurm_ops() in
 * execif.h) — the dispatch loop's external jobs run as Slurm array jobs on
 * a shared run directory. The loop prepares each job directory and its
 * job.json; this submits arrays (throttle %P, --time from the job timeout,
 * --mem from the memory cap) whose tasks run `gpudse job-run` (jobrun.h),
 * and polls squeue and the tasks' result.json files — no slurmdbd/sacct
 * needed — to hand results back, and classifies tasks Slurm ended without
 * a result. SIGINT cancels its jobs (scancel). Each submitted job's Slurm
 * id is kept in jobs/<key>/slurm.json, so a coordinator that died is
 * resumed by adopting its queued and running tasks instead of submitting
 * them again. */
#ifndef GPUDSE_EXEC_SLURM_H
#define GPUDSE_EXEC_SLURM_H

#include <stddef.h>
#include "campaign.h"
#include "util.h"

/* Before a run directory is made: when external jobs go to Slurm
 * (exec_choose: executor, else the campaign's), check that this host can
 * talk to a Slurm cluster (squeue answers). GD_EENV saying what is missing — Slurm's
 * client commands, its configuration (slurm.conf, SLURM_CONF), or an
 * answering controller — else GD_OK. */
int slurm_preflight(const camp_campaign *c, const char *executor,
                    gd_err *err);

/* What a Slurm job state (squeue %T, e.g. "TIMEOUT") means for a task that
 * left no result: -1 while the task is still alive (PENDING, RUNNING, ...),
 * else its store_status (TIMEOUT and DEADLINE: timeout; OUT_OF_MEMORY: oom;
 * NODE_FAIL and BOOT_FAIL: crashed; PREEMPTED, CANCELLED, FAILED, COMPLETED
 * and a state Slurm no longer knows (""): failed), with why in reason. *infra
 * is set when the cluster, not the job, is at fault (node failure, boot
 * failure, preemption, a lost job): those are resubmitted whatever the
 * campaign's retry-on says. */
int slurm_state_class(const char *state, int *infra, char *reason, size_t n);

#endif
