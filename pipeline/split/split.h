/* split: the split-study campaign kind — a <split-study> file (checked
 * against templates/split-study.rng, then for meaning; errors FILE:LINE,
 * exit class 2) declaring tasks x sizes x machines x policies, and
 * split_run, which takes it to a run directory: campaign.xml copy,
 * manifest.json, results.jsonl (one labelled record per job) and
 * split-analysis.json (speedups, calibration error); the engine then has
 * the report stage render report.pdf from those files. */
#ifndef GPUDSE_SPLIT_H
#define GPUDSE_SPLIT_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include "costmodel.h"
#include "measure.h"
#include "splitcal.h"
#include "util.h"

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

/* Run a split study into the run directory dir (the engine's
 * eng_run_split calls it, then renders the report from dir's files). The
 * directory is locked while it runs; every record is journaled as it is
 * made, so a run killed or stopped (*stop set, e.g. by SIGINT; NULL:
 * never) resumes on the same directory without taking a finished
 * measurement again. force set: run in a non-empty directory that holds
 * no gpudse run (refused otherwise: its files are not ours to overwrite). */
int split_run(const char *campaign_path, const char *dir, int quiet,
              int force, volatile sig_atomic_t *stop, gd_err *err);

/* splitdir.c: a finished split run read back from its files alone —
 * campaign.xml, manifest.json, results.jsonl, split-analysis.json and
 * machines/ (c is filled and r->c points to it; sp_run_free frees r).
 * Errors name the file. */
int sp_run_load(const char *dir, sp_campaign *c, sp_run *r, gd_err *err);
void sp_run_free(sp_run *r);
/* Whether dir holds a split run (its campaign.xml is a <split-study>). */
int sp_is_run_dir(const char *dir);

/* gpudse split validate CAMPAIGN (main.c hands `split run` to `run`). */
int cmd_split(int argc, char **argv);

#endif
