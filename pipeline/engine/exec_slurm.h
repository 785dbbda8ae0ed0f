/* exec_slurm: the Slurm executor (its operations: exec_slurm_ops() in
 * execif.h) — the dispatch loop's external jobs run as Slurm array jobs on
 * a shared run directory. The loop prepares each job directory and its
 * job.json; this submits arrays (throttle %P, --time from the job timeout,
 * --mem from the memory cap) whose tasks run `gpudse job-run` (jobrun.h),
 * and polls squeue and the tasks' result.json files — no slurmdbd/sacct
 * needed — to hand results back, and classifies tasks Slurm ended without
 * a result, or whose result Slurm's state overrides (a result is taken
 * only from a task that COMPLETED: slurm_result_verdict). SIGINT cancels
 * its jobs (scancel), which then run again on resume whatever they wrote.
 * Each submitted job's Slurm id is kept in jobs/<key>/slurm.json, so a
 * coordinator that died is resumed by adopting its queued and running
 * tasks instead of submitting them again. */
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
 * left no result (or one not taken: slurm_result_verdict): -1 while the task is still alive (PENDING, RUNNING, ...),
 * else its store_status (TIMEOUT and DEADLINE: timeout; OUT_OF_MEMORY: oom;
 * NODE_FAIL and BOOT_FAIL: crashed; PREEMPTED, CANCELLED, FAILED, COMPLETED
 * and a state Slurm no longer knows (""): failed), with why in reason. *infra
 * is set when the cluster, not the job, is at fault (node failure, boot
 * failure, preemption, a lost job): those are resubmitted whatever the
 * campaign's retry-on says. */
int slurm_state_class(const char *state, int *infra, char *reason, size_t n);

/* What the coordinator does with a task's result.json, given the task's
 * Slurm state (squeue %T; "" when squeue did not list it) and whether that
 * state is known (an squeue that started after the task was queued
 * answered). The job's result is taken only once its task COMPLETED (or
 * Slurm no longer knows the task, long after it ended): Slurm signals a
 * task's processes in no set order when it cancels it or its time limit
 * fires, so a job (a wrapper that traps SIGTERM) may end and be saved with
 * the partial metrics it had before job-run hears of the stop. */
enum {
    SLURM_TAKE,        /* merge result.json */
    SLURM_WAIT,        /* alive, or not yet listed: ask squeue again */
    SLURM_SET_ASIDE    /* ended otherwise (CANCELLED, TIMEOUT, PREEMPTED,
                          ...): the state classifies it, as without a
                          result; result.json is kept aside */
};
int slurm_result_verdict(const char *state, int known);

#endif
