/* fromlog: a workload descriptor from one real GPGPU-Sim log (plain text;
 * gunzip compressed logs first) — instruction counts by class, CTA shapes,
 * registers and shared memory from the ptxas lines, cache and DRAM
 * behaviour — and the `gpudse workload from-log` command. */
#ifndef GPUDSE_FROMLOG_H
#define GPUDSE_FROMLOG_H

#include "space.h"
#include "workload.h"

/* Per-warp counts the GPGPU-Sim 4.x statistics do not print; from-log sets
 * them from the user (--mix), else infers them: sfu from the cycles the
 * counted work leaves unexplained, sync from the barriers the log's PTX
 * reconvergence dump shows, atomic from the GLOBAL_ATOMIC traffic. */
typedef struct {
    double sfu, sync, atomic;
    int sfu_set;               /* --mix named sfu (even as 0): no inference */
    int sync_set;              /* --mix named sync (even as 0): no inference */
} fl_extra;

/* What the log said about one kernel launch group, beside the descriptor. */
typedef struct {
    double log_cycles;         /* gpu_sim_cycle summed over its launches */
    double log_thread_insns;   /* gpu_sim_insn summed over its launches */
    int log_cta_per_core;      /* "CTA/core = N" of its first launch, or 0 */
    char log_cta_limit[16];    /* its "limited by: X", or "" */
    int model_cta_per_core;    /* the descriptor's CTAs per core there */
    char model_cta_limit[16];  /* and the limit binding them */
    double model_cycles;       /* the descriptor's cycles at log_config */
    gpu_config log_config;     /* the knobs the log ran with (its options) */
    double local_accesses;     /* L1 LOCAL_ACC_R + LOCAL_ACC_W accesses */
    double tex_insns;          /* gpgpu_n_tex_insn (thread instructions) */
    int log_barriers;          /* distinct barriers in its PTX
                                  reconvergence dump (a lower bound) */
    int barrier_in_loop;       /* one of them precedes a loop's back edge
                                  and --mix gave no sync: noted */
} fl_kernel_info;

/* A sentence on what of a kernel's log the descriptor cannot represent
 * (local memory, texture), into out; returns 0 when there is none. */
int fl_kernel_note(const fl_kernel_info *info, char *out, size_t n);

/* Build a descriptor named `name` from the log text buf (len bytes) of
 * file path. Launches of the same kernel with the same grid and block are
 * one <kernel> with launches = count. ilp, then mem_waits, are anchored so
 * the model reproduces the kernel's measured cycles at the log's own
 * config (as far as their ranges allow). info (may be NULL) receives one
 * entry per kernel. Errors name PATH:LINE (GD_EINPUT). */
int fl_parse(const char *path, const char *buf, size_t len, const char *name,
             const fl_extra *extra, wl_workload *w, fl_kernel_info *info,
             gd_err *err);

/* Read the file at path and fl_parse it; a gzip file is refused with a
 * message saying to gunzip it. */
int fl_from_file(const char *path, const char *name, const fl_extra *extra,
                 wl_workload *w, fl_kernel_info *info, gd_err *err);

/* gpudse workload from-log LOG -o W.xml [--name NAME]
 *                [--mix sfu=N,sync=N,atomic=N] */
int cmd_workload(int argc, char **argv);

#endif
