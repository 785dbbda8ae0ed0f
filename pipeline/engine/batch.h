/* batch: the one dispatch loop of a run — asks the strategies for configs,
 * skips keys already journaled, runs in-process jobs at once and external
 * jobs through an executor (execif.h: local or Slurm), retries transient
 * failures with backoff, and journals every finished record exactly once. */
#ifndef GPUDSE_BATCH_H
#define GPUDSE_BATCH_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "backend.h"
#include "campaign.h"
#include "progress.h"
#include "store.h"

typedef struct {
    const camp_campaign *c;
    const be_backend *be;
    store *st;
    const char *rundir;        /* absolute */
    int workers;
    volatile sig_atomic_t *stop;
    void (*on_result)(const store_record *r, void *arg);
    void *cb_arg;
    FILE *log;                 /* run.log, may be NULL */
    progress *pg;
    const char *executor;      /* "local" or "slurm", as exec_choose
                                  (execif.h) decided; NULL: local */
    /* Optional, for a verification pass: run exactly these configs per
     * workload instead of asking the strategy, as these workloads (same
     * names, their own identities in job keys). NULL: the campaign's. */
    const gpu_config *const *fixed;
    const size_t *nfixed;
    const wl_workload *workloads;
    /* `run --retry`: bits (1 << store_status) of the journaled outcomes to
     * run again (once per session); 0: a journaled key is done. */
    unsigned rerun_mask;
    /* The budgets a resumed search went through, first to last (manifest
     * "budgets"; the last is the campaign's): an extensible strategy starts
     * with the first and is extended to each next one when it has spent
     * the one before. NULL: the campaign's budget alone. */
    const long *budgets;
    int nbudgets;
} batch_opts;

typedef struct {
    uint64_t planned;          /* configs proposed */
    uint64_t ran, skipped, failed, retried, interrupted;
    uint64_t rerun;            /* journaled jobs run again (--retry) */
} batch_counts;

/* Returns GD_OK when every proposed job finished or was found finished (or
 * the stop flag was raised: check it), else an error. */
int batch_run(const batch_opts *o, batch_counts *n, gd_err *err);

/* Number of configs each workload's strategy will propose, in total. */
uint64_t batch_planned(const camp_campaign *c);

#endif
