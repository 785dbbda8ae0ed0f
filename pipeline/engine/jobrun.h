/* jobrun: one external job run away from its coordinator (a Slurm array
 * task): `gpudse job-run JOBDIR` reads JOBDIR/job.json, runs its command
 * with the local executor (one worker) in JOBDIR, lets the backend classify
 * it and read its metrics, and writes JOBDIR/result.json atomically. This
 * module owns both files' formats: the coordinator writes job.json and
 * reads result.json through it. */
#ifndef GPUDSE_JOBRUN_H
#define GPUDSE_JOBRUN_H

#include <stddef.h>
#include "backend.h"
#include "campaign.h"
#include "store.h"

#define JOBRUN_SPEC "job.json"
#define JOBRUN_RESULT "result.json"
/* Left instead of result.json when job-run met an environment error
 * (output or status not saved: a full disk, a file size limit): its text
 * is the message. The coordinator then journals nothing for the job and
 * stops with exit 3, as the local executor does; the job runs on resume. */
#define JOBRUN_ENV_ERROR "environment-error.txt"

/* Write JOBDIR/job.json for job (its job_dir) of backend be: the command and
 * environment of x, the campaign's timeout, grace and caps, and the path of
 * the campaign file finish reads (the run directory's copy); and
 * JOBDIR/cmd.sh, the same command and environment changes as a script
 * to run by hand, and JOBDIR/config.json (key, workload, backend, seed,
 * config). Every external job, local or on Slurm, has all three. */
int jobrun_write_spec(const be_backend *be, const be_job *job,
                      const be_exec *x, const char *campaign_path,
                      gd_err *err);

/* Read JOBDIR/result.json into r, its config's user knobs those of sp
 * (NULL: none). GD_EINPUT when it is missing (errno ENOENT: check
 * util_path_exists first) or malformed, naming the file. */
int jobrun_read_result(const char *job_dir, const space_def *sp,
                       store_record *r, gd_err *err);

/* JOBDIR/environment-error.txt's message into msg (the file is removed,
 * so the job runs again on resume); 1 when there was one, else 0. */
int jobrun_take_env_error(const char *job_dir, char *msg, size_t n);

/* `gpudse job-run JOBDIR`: exit 0 when result.json was written (whatever
 * the job's outcome), 2 on a bad job.json, 3 when it could not run or was
 * stopped by SIGTERM/SIGINT (then no result is written; an environment
 * error other than a stop leaves environment-error.txt). An earlier
 * result.json is removed before the job runs; a SIGTERM/SIGINT that comes
 * at any time until result.json is written is a stop (the job may have
 * ended because of it: Slurm signals the job's processes first). */
int cmd_job_run(int argc, char **argv);

#endif
