/* backend: the seam that runs one job (backend + workload + config) and
 * returns a result record. In-process backends (analytic) run in the engine;
 * external ones (command, gpgpusim) prepare a job directory and a command,
 * the executor runs it, and the backend turns what happened into a record. */
#ifndef GPUDSE_BACKEND_H
#define GPUDSE_BACKEND_H

#include <stdint.h>
#include "util.h"
#include "space.h"
#include "workload.h"
#include "store.h"
#include "executor.h"
#include "campaign.h"


typedef struct {
    const camp_campaign *camp;
    int wl_index;              /* index of the workload in the campaign */
    const wl_workload *workload;
    gpu_config cfg;
    uint64_t seed;
    char key[65];
    const char *job_dir;       /* jobs/<key>/ for external backends */
} be_job;

#define BE_MAXENV 24

/* What an external backend asks the executor to run. */
typedef struct {
    util_buf command;          /* for /bin/sh -c */
    char *env[BE_MAXENV + 1];  /* "NAME=value", malloc'd, NULL-terminated */
    int nenv;
} be_exec;

void be_exec_init(be_exec *x);
void be_exec_free(be_exec *x);
int be_exec_setenv(be_exec *x, const char *name, const char *value);

typedef struct be_backend {
    const char *name;          /* as in <simulator backend="..."> */
    const char *fidelity;      /* "modelled" or "measured" */
    int in_process;
    const char *(*version)(void);
    /* Whether this backend produces metric `name` (the command backend
     * produces what the campaign declares; see be_check_campaign). */
    int (*has_metric)(const char *name);
    /* In-process: run one job and fill out. A failed job is a record with
     * a failure status and 0 return; nonzero is an internal error. */
    int (*run)(const be_job *job, store_record *out, gd_err *err);
    /* External: write the job's files into job_dir and fill x. GD_EINPUT
     * means the config cannot run (recorded as invalid-config with err's
     * message as the reason). */
    int (*prepare)(const be_job *job, be_exec *x, gd_err *err);
    /* External: classify the finished process and read its metrics. */
    int (*finish)(const be_job *job, const exec_result *res,
                  store_record *out, gd_err *err);
    /* Optional: check the campaign's simulator set-up once, before the run
     * directory is created (GD_EINPUT names the file at fault). */
    int (*check)(const camp_campaign *camp, gd_err *err);
    /* Optional: whether the campaign's set-up of this backend produces a
     * metric has_metric allows (a GPGPU-Sim config without power simulation
     * has no power_w); when not, why says so. */
    int (*produces)(const camp_campaign *camp, const char *metric, char *why,
                    size_t n);
    /* Optional: append "name=value\n" lines that identify the simulator
     * build and its config files (hashes) to out; be_fingerprint hashes
     * them into the simulator fingerprint of job keys, the manifest lists
     * them. */
    int (*identity)(const camp_campaign *camp, util_buf *out, gd_err *err);
    /* Optional (external): the job's command and environment as prepare
     * gives them, writing nothing (gpudse validate prints the first job). */
    int (*plan)(const be_job *job, be_exec *x, gd_err *err);
    /* Whether this backend takes knob k of the campaign's space at every
     * level the campaign lists (1), else 0 with why. Every backend has
     * one: be_check_campaign asks it of each knob the campaign declares. */
    int (*takes_knob)(const camp_campaign *camp, int k, char *why, size_t n);
} be_backend;

/* Whether metric name is a function of the configuration alone (area_mm2,
 * from the area model: model_area_mm2), which a measured backend that does
 * not measure it gets attached from the model. */
int be_config_metric(const char *name);

/* Put every config-only metric of cfg into m (area_mm2): what a search
 * can know of a config before running it. */
void be_config_metrics(const gpu_config *cfg, met_set *m);

/* On a finished ok record of a measured backend: put every config-only
 * metric the record lacks (area_mm2 = model_area_mm2 of its config) and
 * name it in r->modelled, so the record says which metrics were measured
 * and which were modelled. Failed records are left alone. */
void be_attach_config_metrics(const be_job *job, store_record *r);

/* The backend named name, or NULL. */
const be_backend *be_find(const char *name);
/* The i-th known backend (0..), NULL past the last. */
const be_backend *be_at(int i);

/* What the campaign's sections mean to the backends, checked before
 * anything runs (preflight_load, after camp_load): <simulator> and <verify>
 * name known backends; every command and file template expands (an unknown
 * placeholder, or one where no shell quoting is safe, is GD_EINPUT at its
 * line); every objective is a metric the backend produces, and its set-up
 * too (a GPGPU-Sim config without power simulation has no power_w); every
 * knob the campaign declares is one each backend it runs on takes (its
 * takes_knob), else GD_EINPUT at the knob's line naming the backends that
 * can. */
int be_check_campaign(const camp_campaign *c, gd_err *err);

/* sha256 over everything that defines the external simulator — backend,
 * root, config folder, command, metric regexes, file templates and the
 * backend's identity lines (its build, its config files) — into
 * c->sim_fingerprint, which job keys hash; the identity lines into
 * c->sim_identity; "" without <simulator> and <verify>. GD_EINPUT/GD_EENV
 * when a template cannot be read. */
int be_fingerprint(camp_campaign *c, gd_err *err);

/* Job key: sha256 over backend name and version, the campaign's simulator
 * fingerprint (command, templates, regexes; "" for analytic), workload name
 * and descriptor hash, canonical config (its user knobs named by s, NULL:
 * none) and seed. */
void be_job_key(const be_backend *b, const char *sim_fingerprint,
                const space_def *s, const wl_workload *w, const gpu_config *c,
                uint64_t seed, char key[65]);

/* Expand {placeholders} of a command or file template: every knob,
 * {workload}, {job_dir}, {campaign_dir}; "{{" is a literal "{". With quote
 * set (a /bin/sh command), each value is quoted for the context it stands
 * in — plain words '...', inside "..." with backslashes, inside '...' by
 * closing and reopening — so no value runs as shell code; a placeholder
 * inside backquotes, $'...' or after << is GD_EINPUT. GD_EINPUT also names
 * an unknown placeholder. */
int be_expand(const char *tpl, const be_job *job, int quote, util_buf *out,
              gd_err *err);

/* Class of a finished process from exit status, signal, timeout and the
 * usual out-of-memory messages in its output tails; ST_OK when it exited 0.
 * The reason is written into reason; a failed or crashed process's ends
 * with its last two meaningful stderr lines (else stdout's). */
int be_classify_process(const exec_result *r, const char *out_tail,
                        const char *err_tail, char *reason, size_t n);

/* A job's directory, created (with its parents) by whichever step first
 * writes into it: a backend's prepare, or the executor's child. */
int be_make_job_dir(const char *dir, gd_err *err);

/* The last `max` bytes of a job's log file, NUL-terminated, malloc'd ("" when
 * the file is missing). */
char *be_read_tail(const char *job_dir, const char *name, size_t max);

#endif
