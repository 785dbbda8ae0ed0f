/* costmodel: the multi-device split cost model of docs/costmodel.md — tasks
 * of the five classes, machines (devices and links with provenance),
 * decisions with canonical text and hash, the validator, Eq. (1) with its
 * term breakdown, the seven split policies and the cost-model optimum by
 * grid search checked against the equal-finish-time closed form. Every
 * number it returns is PREDICTED(costmodel). */
#ifndef GPUDSE_COSTMODEL_H
#define GPUDSE_COSTMODEL_H

#include <stddef.h>
#include "util.h"

#define CM_MAXDEV 8
#define CM_NAMELEN 32

/* Provenance of a machine number. */
typedef enum { CM_SPEC, CM_ESTIMATED, CM_MEASURED } cm_prov;
const char *cm_prov_name(int prov);
int cm_prov_parse(const char *s);          /* -1 when unknown */

typedef struct {
    double v;
    int prov;                              /* cm_prov */
} cm_num;

/* The five task classes. */
typedef enum { CM_TRIAD, CM_DOT, CM_GEMM, CM_JACOBI, CM_MAP, CM_NKINDS } cm_kind;
const char *cm_kind_name(int kind);
int cm_kind_parse(const char *s);          /* -1 when unknown */

typedef enum { CM_CONCAT, CM_SUM, CM_HALO } cm_merge;
const char *cm_merge_name(int merge);

typedef struct {
    char name[CM_NAMELEN];
    char kind[8];                          /* cuda | cpu | model */
    cm_num peak_flops;                     /* FLOP/s */
    cm_num mem_bw;                         /* B/s */
    cm_num mem_bytes;                      /* B */
    cm_num launch_s;                       /* lambda: per-chunk launch cost, s */
    cm_num slowdown;                       /* induced factor >= 1 */
    cm_num h2d_bw, h2d_lat, d2h_bw, d2h_lat;   /* beta, alpha host<->device */
    cm_num eta_f[CM_NKINDS];               /* achieved / peak FLOP/s per class */
    cm_num eta_m[CM_NKINDS];               /* achieved / peak bandwidth */
    cm_num fixed_s[CM_NKINDS];             /* fitted fixed cost per class, s */
} cm_device;

typedef struct {
    char name[64];
    char source[256];                      /* file it came from, or "preset" */
    int induced;                           /* heterogeneity is induced */
    int ndev;
    cm_device dev[CM_MAXDEV];
    int peer[CM_MAXDEV][CM_MAXDEV];        /* p2p access */
    cm_num p2p_bw[CM_MAXDEV][CM_MAXDEV];
    cm_num p2p_lat[CM_MAXDEV][CM_MAXDEV];
    cm_num setup_s;                        /* T_setup = setup_s + setup_dev_s*|S| */
    cm_num setup_dev_s;
    cm_num host_bw;                        /* host memory bandwidth for merges */
} cm_machine;

/* A divisible task. dims: triad/dot/map n; gemm M N K; jacobi rows cols
 * iters; map also k (FLOP per element / 2) in dims[1]. */
typedef struct {
    int kind;                              /* cm_kind */
    long dims[3];
    int dtype_bytes;                       /* 4 (fp32) or 8 (fp64) */
} cm_task;

/* Per-unit quantities of a task (the split axis is the unit). */
typedef struct {
    double units;                          /* U */
    double f;                              /* FLOP per unit */
    double m;                              /* device memory bytes per unit */
    double d_in, d_out;                    /* host<->device bytes per unit */
    double rep;                            /* R: bytes replicated to each device */
    double merge_bytes;                    /* bytes per device merged (sum/halo) */
    double merge_rounds;                   /* merges (halo: iterations) */
    int merge;                             /* cm_merge */
} cm_shape;

void cm_task_shape(const cm_task *t, cm_shape *s);
/* "gemm M=512 N=256 K=256 fp32", for labels and hashes. */
void cm_task_text(const cm_task *t, char *out, size_t n);

enum { CM_SYNC = 0, CM_PIPELINED = 1 };
enum { CM_HOST = 0, CM_P2P = 1 };

typedef struct {
    int n;                                 /* devices used */
    char dev[CM_MAXDEV][CM_NAMELEN];
    int idx[CM_MAXDEV];                    /* filled by cm_validate */
    double share[CM_MAXDEV];
    long chunk;                            /* units per chunk */
    int block;                             /* threads per block */
    int mode;                              /* CM_SYNC | CM_PIPELINED */
    int path;                              /* CM_HOST | CM_P2P */
    int dynamic;                           /* devices pull chunks from a queue */
} cm_decision;

/* Canonical text "devices=a,b;shares=0.250000000,0.750000000;chunk=..;
 * block=..;mode=..;path=..[;sched=dynamic]" and its sha256. */
void cm_decision_text(const cm_decision *d, char *out, size_t n);
void cm_decision_hash(const cm_decision *d, char out[65]);
/* Parse canonical text back (GD_EINPUT with the reason when malformed). */
int cm_decision_parse(const char *text, cm_decision *d, gd_err *err);

/* Reject a malformed or infeasible decision with a reason (GD_EINPUT);
 * fills d->idx on success. */
int cm_validate(const cm_machine *m, const cm_task *t, cm_decision *d,
                gd_err *err);

/* Eq. (1) with every term. */
typedef struct {
    double u[CM_MAXDEV];                   /* units per device */
    double n_chunks[CM_MAXDEV];
    double t_in[CM_MAXDEV], t_comp[CM_MAXDEV], t_out[CM_MAXDEV];
    double t_launch[CM_MAXDEV], t_dev[CM_MAXDEV];
    double t_setup, t_max, t_merge, total;
    int critical;                          /* position in d of the slowest */
} cm_terms;

/* Predict a validated decision (d->idx filled). Returns total seconds. */
double cm_predict(const cm_machine *m, const cm_task *t, const cm_shape *s,
                  const cm_decision *d, cm_terms *out);

/* Largest-remainder rounding of shares*U into integer units. */
void cm_round_units(const double *share, int n, double units, double *u);

/* The seven policies. */
typedef enum {
    CM_POL_SINGLE, CM_POL_EVEN, CM_POL_PEAK, CM_POL_BW, CM_POL_PROFILED,
    CM_POL_DYNAMIC, CM_POL_OPTIMUM, CM_NPOL
} cm_policy;
const char *cm_policy_name(int p);
int cm_policy_parse(const char *s);        /* -1 when unknown */

/* The decision that gives all the work to device dev of m, in chunks of
 * chunk units (block 256). */
void cm_single_decision(const cm_machine *m, int dev, long chunk,
                        cm_decision *d);

/* Per-device affine profile T_i(u) = a_i + u*r_i (profiled proportional). */
typedef struct {
    int n;
    double a[CM_MAXDEV], r[CM_MAXDEV];
} cm_profile;

/* Profile every device of m for task t from two single-device
 * predictions. */
void cm_profile_from_model(const cm_machine *m, const cm_task *t,
                           cm_profile *p);

/* Equal-finish-time closed form over devices with profile p: fills shares
 * (0 for dropped devices) and returns T*. */
double cm_closed_form(const cm_profile *p, double units, double *share);

/* Search grid of the optimum. */
typedef struct {
    int grid;                              /* share step 1/grid */
    long chunks[6]; int nchunks;           /* 0 entries: whole slice */
    int blocks[6]; int nblocks;
    int modes, paths;                      /* 1 or 2 */
} cm_search;

void cm_search_default(const cm_task *t, cm_search *s);

/* Exhaustive grid: best decision over devices x share grid x chunk x block
 * x mode x path. Returns predicted time; *evaluated counts predictions. */
double cm_grid_best(const cm_machine *m, const cm_task *t, const cm_search *g,
                    cm_decision *best, long *evaluated);

/* Cost-model optimum: coarse grid plus the closed-form shares per device
 * subset, polished by share moves; never worse than its coarse grid. */
double cm_optimum(const cm_machine *m, const cm_task *t, const cm_search *g,
                  cm_decision *best, long *evaluated);

/* Decision of a policy (validated). Dynamic: its expected shares from the
 * queue simulation, dynamic = 1. */
int cm_policy_decide(int policy, const cm_machine *m, const cm_task *t,
                     const cm_profile *prof, cm_decision *d, gd_err *err);

/* Predicted time of a decision including dynamic self-scheduling (simulated
 * queue) — the prediction the split study records. */
double cm_predict_any(const cm_machine *m, const cm_task *t,
                      const cm_decision *d, cm_terms *out);

#endif
