/* executor: the local pool that runs external jobs as processes — each in
 * its own process group and job directory, its leader a child subreaper
 * (so even a descendant that calls setsid() stays in the job's tree), with
 * its output captured to size-capped files (the tail kept), a timeout
 * (SIGTERM, grace, SIGKILL to everything the job started), a memory cap
 * (RLIMIT_AS), and nothing left running behind it. While a pool exists the
 * process that made it is a child subreaper too: what an ended job left
 * comes to it and is killed — any child of it that is no job's leader and
 * not in its own process group. */
#ifndef GPUDSE_EXECUTOR_H
#define GPUDSE_EXECUTOR_H

#include <signal.h>
#include <stddef.h>
#include "util.h"

typedef struct {
    const char *job_dir;     /* working directory, created when missing by
                              * the child, as are stdout.log and stderr.log */
    const char *command;     /* run as /bin/sh -c COMMAND */
    char *const *env;        /* extra "NAME=value" entries, NULL-terminated */
    double timeout_s;        /* 0: none */
    double grace_s;          /* between SIGTERM and SIGKILL */
    size_t mem_cap;          /* RLIMIT_AS in bytes, 0: none */
    size_t out_cap;          /* bytes kept per stream (the tail), 0: 64 MiB */
    void *tag;               /* the caller's, returned in the result */
} exec_spec;

typedef struct {
    void *tag;
    int exited, exit_code;   /* normal exit and its status */
    int signaled, signo;     /* killed by a signal */
    int timed_out;           /* we killed it for its timeout */
    int interrupted;         /* we killed it because gpudse was stopping */
    double wall_s;
    size_t out_bytes, err_bytes;   /* bytes the job wrote to each stream */
    int io_err;              /* errno of a failure to save the job's output
                              * (full disk, file size limit): the logs are
                              * incomplete, an environment error; 0: none */
    const char *io_file;     /* which log: "stdout.log", "stderr.log" */
} exec_result;

typedef struct exec_pool exec_pool;

int exec_pool_new(int workers, exec_pool **out, gd_err *err);
void exec_pool_free(exec_pool *p);
int exec_pool_idle(const exec_pool *p);      /* free worker slots */
int exec_pool_running(const exec_pool *p);

/* Start one job in a free slot. The spec's strings are copied. A job whose
 * directory, logs or shell cannot be set up is an error here (GD_EENV, the
 * job directory named), not a job result: the environment is broken. */
int exec_pool_start(exec_pool *p, const exec_spec *s, gd_err *err);

/* Wait until jobs finish, *stop becomes set, or wait_s passes (< 0: no
 * limit); fill up to max results and return their count (0 on time-out or
 * stop), or -1 with err on an internal error. */
int exec_pool_wait(exec_pool *p, exec_result *res, int max, double wait_s,
                   volatile sig_atomic_t *stop, gd_err *err);

/* Stop every running job: SIGTERM to each group, up to grace_s for them to
 * exit, then SIGKILL; results are marked interrupted and returned through
 * res (room for exec_pool_running() entries); returns their count. */
int exec_pool_stop_all(exec_pool *p, double grace_s, exec_result *res);

/* Keep the process group ids of running jobs in the file path (rewritten
 * in place as jobs start and end), and put GPUDSE_JOBS_OF=<its absolute
 * path> in every job's environment. If gpudse itself is killed (kill -9),
 * PR_SET_PDEATHSIG ends each job's leader but not what it started. Set on
 * a file an earlier run left non-empty, this first kills such orphaned
 * groups — only groups whose leader is gone (no such process, a zombie,
 * or an id now in another group), so a reused id is never hit — and then
 * any process whose environment holds the marker (a daemon that left its
 * group); *killed (may be NULL) counts groups and such processes. A listed
 * group it could not kill stays in the file. exec_kill_orphans kills the
 * groups alone and returns their count. */
int exec_pool_set_registry(exec_pool *p, const char *path, int *killed,
                           gd_err *err);
int exec_kill_orphans(const char *registry);

/* The error for a job directory that cannot be made (why: the cause),
 * whether the executor's child or a backend's prepare found it. */
int exec_job_dir_error(gd_err *err, const char *dir, const char *why);

/* Keep only the last cap bytes of a file (used for job logs). */
int exec_trim_file(const char *path, size_t cap, gd_err *err);

#endif
