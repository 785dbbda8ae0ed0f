/* execif: the executor interface — where the one dispatch loop (batch.c)
 * runs external jobs. An executor is a table of operations, as Redis's
 * ae_*.c backends are for ae.c: exec_local.c runs jobs in the process pool
 * of executor.h, exec_slurm.c as Slurm array tasks of `gpudse job-run`. The
 * loop owns what every executor shares — proposals, keys, skipping what is
 * journaled, the backend's prepare and job.json, retries and their
 * backoff, journaling each finished job once — and an executor only starts
 * jobs and says how they ended. Which executor, and how many workers, the
 * command line and the campaign ask for is decided here too, once. */
#ifndef GPUDSE_EXECIF_H
#define GPUDSE_EXECIF_H

#include <limits.h>
#include "jobsrc.h"

/* A job the loop hands to an executor, and gets back when it ended. */
typedef struct {
    int wl;
    gpu_config cfg;
    char key[65];
    char dir[PATH_MAX];        /* RUNDIR/jobs/KEY */
    long order;                /* place in its workload's proposals */
    int attempt;               /* runs again for the job's own failures */
    int infra;                 /* ... for the cluster's (Slurm) */
    int rerun;                 /* a journaled job run again (--retry) */
    double ready_at;           /* a retry waits until then */
} exec_job;

/* How a job's attempt ended, as the executor found it. */
typedef struct {
    store_record rec;          /* its record, classified by the backend */
    double wall_s;             /* the attempt's wall time; NAN: unknown */
    int infra;                 /* the cluster ended it, not the job (a node
                                  failure, a lost task): run again whatever
                                  retry-on says, up to EXEC_INFRA_RETRIES */
    char infra_what[40];       /* with infra: who said so ("Slurm NODE_FAIL") */
} exec_end;

#define EXEC_INFRA_RETRIES 3

/* What the executor calls, from exec_ops.wait or .stop, for each job that
 * ended: the loop journals it or queues it to run again. j is the job as
 * it was started (the executor forgets it first). */
typedef int (*exec_ended_fn)(void *loop, const exec_job *j, exec_end *e,
                             gd_err *err);

/* What an executor is given when it opens. */
typedef struct {
    const batch_opts *o;
    jobsrc *src;               /* be_job views, run.log, timing.csv */
    exec_ended_fn ended;
    void *loop;
} exec_host;

/* exec_ops.setup's verdict on a job about to start. */
enum {
    EXEC_FRESH,                /* the loop runs the backend's prepare, writes
                                  job.json and cmd.sh, then launches it */
    EXEC_READY,                /* already prepared (a Slurm resubmission):
                                  launch it as it is */
    EXEC_ADOPTED               /* taken over from a coordinator that died:
                                  running already, nothing to do */
};

typedef struct {
    const char *name;          /* "local", "slurm" */
    int (*open)(const exec_host *h, void **ex, gd_err *err);
    void (*close)(void *ex);
    /* Jobs that may be started now; held: jobs the loop holds for a retry
     * backoff, which an executor with keeps_places counts as its own. */
    int (*room)(const void *ex, int held);
    int keeps_places;
    int window;                /* most jobs it holds at once; 0: workers */
    int (*busy)(const void *ex);             /* started and not ended */
    /* Ready the job's directory for this attempt; *how: EXEC_*. */
    int (*setup)(void *ex, const exec_job *j, int *how, gd_err *err);
    /* Start (or queue) the job; x: what the backend prepared (NULL with
     * EXEC_READY). */
    int (*launch)(void *ex, const exec_job *j, const be_exec *x,
                  gd_err *err);
    /* Wait up to wait_s (< 0: no limit) for jobs to end, calling
     * exec_host.ended for each; returns how many ended (0 on time-out or
     * when the stop flag is raised), or an error code. */
    int (*wait)(void *ex, double wait_s, int *nended, gd_err *err);
    /* A job that ended will run again (exec_host.ended queued it): keep
     * this attempt's files. May be NULL. */
    void (*again)(void *ex, const exec_job *j);
    /* The loop ends with jobs still started (stopping: the stop flag, else
     * an error): end them so they run again on resume, or leave them for
     * a resumed run to adopt; returns how many were interrupted. */
    int (*stop)(void *ex, int stopping);
} exec_ops;

const exec_ops *exec_local_ops(void);
const exec_ops *exec_slurm_ops(void);

/* The executor of that name; NULL: none. */
const exec_ops *exec_find(const char *name);

/* ---- what the command line and the campaign ask for ---- */

typedef struct {
    const char *executor;      /* "local" or "slurm" */
    int workers;               /* local pool size, from 1 */
} exec_choice;

/* The one place the command line (--executor, -j) is weighed against the
 * campaign's <execution executor= jobs=>: the command line's when given,
 * else the campaign's, else local and one worker per online core.
 * cli_jobs as eng_opts.jobs: 0 not given, < 0 one per online core (-j 0).
 * Both job counts were read by camp_parse_jobs (one range, one message). */
void exec_choose(const camp_campaign *c, const char *cli_executor,
                 int cli_jobs, exec_choice *out);

#endif
