/* split: the split-study campaign kind — a <split-study> file (checked
 * against templates/split-study.rng, then for meaning; errors FILE:LINE,
 * exit class 2) declaring tasks x sizes x machines x policies, and
 * split_session, which runs it in a run directory the engine has opened
 * (engine_split.c: lock, campaign.xml copy, manifest.json, the journal
 * results.jsonl with one labelled record per job, resume; then
 * split-analysis.json by the analysis stage and report.pdf by the report
 * stage, both from the directory's files), writing machines/. */
#ifndef GPUDSE_SPLIT_H
#define GPUDSE_SPLIT_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "costmodel.h"
#include "measure.h"
#include "splitcal.h"
#include "store.h"
#include "util.h"

/* In every job key and the manifest's backend_version: a change of what a
 * key means changes it. */
#define SP_TOOL_VERSION "split-2"

#define SP_MAXMACH 8
#define SP_MAXTASK 16
#define SP_MAXSIZE 16

/* Indices of the split backends (be_split.h's table, in its order). */
enum { SP_COSTMODEL, SP_MEASURE_CPU, SP_MEASURE_CUDA };
const char *sp_backend_name(int b);
/* "PREDICTED(costmodel)", "MEASURED(cpu)", "MEASURED(cuda)". */
const char *sp_label(int backend);

typedef struct {
    int kind;                      /* cm_kind */
    long sizes[SP_MAXSIZE];        /* units along the split axis */
    int nsizes;
    long p1, p2;                   /* gemm N K; jacobi cols iters; map k */
    int dtype_bytes;
    int line;
} sp_task;

typedef struct {
    char name[64];
    char file[PATH_MAX];           /* resolved path, "" for a preset */
    int probe;                     /* describe this machine by measurement */
    double slowdown[CM_MAXDEV];
    int nslowdown;
    int line;
} sp_mach;

typedef struct {
    char path[PATH_MAX];
    char name[64];
    unsigned long seed;
    char sha256[65];
    int backend;
    int repeats, warmups;
    sp_mach mach[SP_MAXMACH];
    int nmach;
    sp_task task[SP_MAXTASK];
    int ntask;
    int pol[CM_NPOL];
    int npol;
    double ladder[8];
    int nladder;
} sp_campaign;

int sp_load(const char *path, sp_campaign *c, gd_err *err);
/* The same for a run directory's campaign.xml: machine files and presets
 * named by it are not looked up (the run keeps its machines/). */
int sp_load_copy(const char *path, sp_campaign *c, gd_err *err);
/* The concrete task of task spec ts at size index si. */
void sp_task_at(const sp_task *ts, int si, cm_task *t);

/* One policy job of a run: its decision, prediction and measurement. */
enum { SP_MEAS_NONE, SP_MEAS_OK, SP_MEAS_SKIPPED, SP_MEAS_FAILED };
typedef struct {
    int mach, task, size, policy;
    cm_task t;
    char task_text[96];
    cm_decision d;
    int valid;
    char reason[256];
    double pred;
    cm_terms terms;
    int meas_status;
    ms_stat meas;
    char meas_reason[256];
} sp_result;

typedef struct {
    cm_machine m;                  /* as used for predictions */
    int calibrated;
    scal_fit fit;
    scal_links links;              /* fitted p2p links (measure-cpu) */
    scal_host_links host_links;    /* fitted host<->device links (measure-cuda) */
    double par_eff;                /* measured parallel efficiency; NaN: none */
    int has_score;
    scal_score score;
} sp_machine_out;

typedef struct {
    const sp_campaign *c;
    sp_machine_out mach[SP_MAXMACH];
    sp_result *res;
    size_t nres;
} sp_run;

/* Each machine's check before a run directory is made: its file loads and
 * its devices are of the backend's kind (GD_EINPUT with FILE:LINE). */
int sp_check_machines(const sp_campaign *c, gd_err *err);

/* What a session of a split study leaves for the manifest. */
typedef struct {
    size_t njobs;                  /* policy jobs */
    unsigned long measured;        /* measurements taken this session */
    unsigned long recalled;        /* read back from the journal */
    size_t failed;                 /* policy jobs not measured (failed or
                                      skipped) */
    size_t resumed;                /* policy jobs wholly read back */
    struct {
        char name[64], sha256[65], source[256];
    } mach[SP_MAXMACH];            /* machines as used (c->nmach) */
} sp_outcome;

/* Run the split study c in the run directory dir, whose journal st the
 * engine has opened (engine_split.c holds the lock, copies the campaign,
 * writes the manifest and renders the report): every record is journaled
 * as it is made, a finished measurement already in the journal is read
 * back instead of taken again (resume); then machines/ is written (each
 * machine as used, and its calibration: sp_calibration_save). *stop set (SIGINT; NULL: never) stops it with a
 * GD_EENV error, the journal kept. out is filled on every return. */
int split_session(const sp_campaign *c, const char *dir, store *st,
                  int quiet, volatile sig_atomic_t *stop, sp_outcome *out,
                  gd_err *err);

/* splitdir.c: a finished split run read back from its files alone —
 * campaign.xml, manifest.json, results.jsonl, split-analysis.json and
 * machines/ (c is filled and r->c points to it; sp_run_free frees r).
 * Errors name the file. */
int sp_run_load(const char *dir, sp_campaign *c, sp_run *r, gd_err *err);
/* The same without split-analysis.json, which the analysis stage writes
 * from it: each machine as used (the manifest's "machines", then
 * machines/NAME.xml), its calibration (machines/NAME.calibration.json;
 * none: not calibrated) and the policy jobs; no held-out score. */
int sp_run_load_jobs(const char *dir, sp_campaign *c, sp_run *r,
                     gd_err *err);

/* A machine's calibration as a JSON object — calibrated, label (label
 * when calibrated, else "none (machine file numbers)"), fits,
 * parallel_efficiency_measured, links, host_links — the object
 * split-analysis.json carries per machine; NULL when out of memory. */
cJSON *sp_calibration_json(const sp_machine_out *mo, const char *label);
/* A number of split-analysis.json (and the calibration files): v, or null
 * when it is not finite (NaN: none). */
void sp_json_num(cJSON *o, const char *k, double v);
/* DIR/machines/NAME.calibration.json: sp_calibration_json, atomically. */
int sp_calibration_save(const char *dir, const sp_machine_out *mo,
                        const char *label, gd_err *err);
void sp_run_free(sp_run *r);
/* Whether dir holds a split run (its campaign.xml is a <split-study>). */
int sp_is_run_dir(const char *dir);

/* gpudse split validate CAMPAIGN (main.c hands `split run` to `run`). */
int cmd_split(int argc, char **argv);

/* "split: MESSAGE" on stderr unless quiet: the split study's progress
 * lines, from the stage and from the engine that runs it. */
void split_say(int quiet, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
