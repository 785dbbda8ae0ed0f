/* jobsrc: what the dispatch loop (batch.c) and its executors (execif.h)
 * share — the configs each workload's strategy (or a fixed verification
 * list) proposes, job keys, and journaling a finished job exactly once
 * while the strategy, the progress line and the caller's hook see it. */
#ifndef GPUDSE_JOBSRC_H
#define GPUDSE_JOBSRC_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "backend.h"
#include "campaign.h"
#include "progress.h"
#include "store.h"
#include "strategy.h"

/* What the dispatch loop (batch.h's batch_run) is given and what it
 * counts; declared here, below batch.c, as the job source and the
 * executors read them too. */
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

typedef struct {
    const batch_opts *o;
    batch_counts *n;
    int nwl;
    strat **st;                /* per workload; NULL entries with o->fixed */
    gpu_config **props;        /* per workload: proposals not yet used */
    size_t *nprops, *pos;
    size_t *fixed_pos;         /* with batch_opts.fixed */
    int *exhausted;            /* the strategy has nothing more */
    int *inflight;             /* jobs started and not yet journaled */
    int *step;                 /* index in o->budgets of the budget now */
    long *proposed;            /* per workload: configs proposed so far */
    long last_order;           /* place of jobsrc_next's last config in its
                                  workload's proposals, from 1 */
    int cur;                   /* workload proposals come from now */
    const wl_workload *wls;    /* the workloads jobs run as */
} jobsrc;

/* cap: most configs asked for at once. */
int jobsrc_init(jobsrc *s, const batch_opts *o, batch_counts *n, size_t cap,
                gd_err *err);
void jobsrc_free(jobsrc *s);

/* The next config to run, rotating to the next workload only when the
 * current one has nothing to propose right now; 0 when none. */
int jobsrc_next(jobsrc *s, size_t want, int *wl, gpu_config *cfg);

/* Job key and folder (RUNDIR/jobs/KEY) of a config of workload wl. */
void jobsrc_key(const jobsrc *s, int wl, const gpu_config *cfg, char key[65],
                char *dir, size_t dirsz);

/* The backend's view of a job. */
be_job jobsrc_be_job(const jobsrc *s, int wl, const gpu_config *cfg,
                     const char *key, const char *dir);

/* Journal a finished job's record (filling its identity fields and its
 * proposal order, last_order when it was proposed) and tell the strategy,
 * the progress line and the on_result hook. */
int jobsrc_record(jobsrc *s, int wl, const gpu_config *cfg, const char *key,
                  long order, store_record *rec, gd_err *err);

/* A key already in the journal: 1 in *rerun when its latest record is of
 * a class batch_opts.rerun_mask reruns and an earlier session wrote it
 * (the job then runs again and jobsrc_record appends its new record),
 * else it is skipped and the strategy still observes it, so an adaptive
 * search resumes on the same path. */
int jobsrc_journaled(jobsrc *s, int wl, const gpu_config *cfg,
                     const char *key, int *rerun, gd_err *err);

/* A line in run.log (when the run has one). */
void jobsrc_log(const jobsrc *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* JOB_DIR/status.json: how the attempt ended (timings live here, never in
 * the journal), written atomically. attempt counts from 1. A failure is an
 * environment error (the job must not be journaled). */
int jobsrc_write_status(const char *job_dir, int attempt,
                        const exec_result *x, const store_record *r,
                        gd_err *err);

/* The environment error for a job whose output could not be saved (x's
 * io_err set): not a result of the job; it runs again on resume. */
int jobsrc_output_error(const char *job_dir, const exec_result *x,
                        gd_err *err);

/* A row of RUN/timing.csv (header written with the file): key, workload,
 * attempt (from 1), status and wall seconds of a finished external job
 * attempt. Run-to-run noise: kept out of results.jsonl and results.csv.
 * Best effort: a row that cannot be written is only lost. */
void jobsrc_timing(const jobsrc *s, const char *key, int wl, int attempt,
                   int status, double wall_s);

/* Empty a job directory a crashed session may have left files in (the
 * folder itself stays); jobsrc_fresh_dir also creates it when missing. */
int jobsrc_clear_dir(const char *dir, gd_err *err);
int jobsrc_fresh_dir(const char *dir, gd_err *err);

#endif
