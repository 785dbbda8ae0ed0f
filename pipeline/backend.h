/* backend: the seam that runs one job (backend + workload + config) and
 * returns a result record. In-process backends (analytic) run in the engine;
 * external ones (gpgpusim, command) run in a job directory. */
#ifndef GPUDSE_BACKEND_H
#define GPUDSE_BACKEND_H

#include <stdint.h>
#include "util.h"
#include "space.h"
#include "workload.h"
#include "store.h"

typedef struct {
    const wl_workload *workload;
    gpu_config cfg;
    uint64_t seed;
    char key[65];
    const char *job_dir;   /* jobs/<key>/ for external backends, else NULL */
} be_job;

typedef struct be_backend {
    const char *name;      /* as in <simulator backend="..."> */
    const char *fidelity;  /* "modelled" or "measured" */
    int in_process;
    /* Version text hashed into job keys. */
    const char *(*version)(void);
    /* Whether this backend produces metric `name`. */
    int (*has_metric)(const char *name);
    /* Run one job: fill out (status, metrics). A failed job is a record with
     * a failure status and 0 return; a nonzero return is an internal error. */
    int (*run)(const be_job *job, store_record *out, gd_err *err);
} be_backend;

/* The backend named name, or NULL. */
const be_backend *be_find(const char *name);

/* Job key: sha256 over backend name and version, workload name and
 * descriptor hash, canonical config and seed. */
void be_job_key(const be_backend *b, const wl_workload *w,
                const gpu_config *c, uint64_t seed, char key[65]);

#endif
