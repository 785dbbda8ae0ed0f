/* engine: takes a campaign to a finished run directory — copies the campaign,
 * writes the manifest, asks the strategy for configs, runs the jobs whose
 * keys are not yet in the journal, then analysis and report. */
#ifndef GPUDSE_ENGINE_H
#define GPUDSE_ENGINE_H

#include <signal.h>
#include "util.h"
#include "store.h"

typedef struct {
    const char *campaign_path;
    const char *outdir;        /* NULL: runs/<campaign name>/ */
    int jobs;                  /* -j; 0: not given (the campaign's jobs=,
                                  else one per core); ENG_JOBS_PER_CORE:
                                  -j 0, one per online core */
    int quiet;
    /* Called after each record is journaled (progress, tests). */
    void (*on_result)(const store_record *r, void *arg);
    void *cb_arg;
    /* Set (by a signal handler in main) to stop dispatching jobs; the run
     * stays resumable. May be NULL. */
    volatile sig_atomic_t *stop;
    /* "local" or "slurm" (execif.h); NULL: the campaign's executor. */
    const char *executor;
    /* --force: run in a non-empty directory that holds no gpudse run */
    int force;
    /* --retry: bits (1 << store_status) of journaled outcomes whose jobs
     * run again, each adding a record; 0: journaled jobs are done. */
    unsigned retry_mask;
    /* `gpudse split run`: the campaign must be a <split-study> (split.c's
     * loader says so with FILE:LINE when it is not). */
    int split_only;
} eng_opts;

/* eng_opts.jobs for `-j 0`: one worker per online core, whatever the
 * campaign's jobs= says (execif.h's exec_choose weighs them). */
#define ENG_JOBS_PER_CORE (-1)

/* Returns GD_OK, GD_EJOBS when any job failed, GD_EINPUT, GD_EENV.
 * The run directory used is written into rundir (may be NULL). */
int eng_run(const eng_opts *o, char *rundir, size_t rundirsz, gd_err *err);

/* engine_split.c: whether the campaign file is a <split-study>, and its
 * run (eng_run takes this path for one; -j, --executor and --retry do not
 * apply to a split study). */
int eng_is_split(const char *campaign_path);
int eng_run_split(const eng_opts *o, char *rundir, size_t rundirsz,
                  gd_err *err);

#endif
