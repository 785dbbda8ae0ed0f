/* workload: workload descriptors (templates/workloads/NAME.xml or a file the
 * campaign names) — per kernel the static facts (grid, block, registers,
 * shared memory, instruction mix) and the model's free parameters. */
#ifndef GPUDSE_WORKLOAD_H
#define GPUDSE_WORKLOAD_H

#include "util.h"

#define WL_MAXKERNELS 16
#define WL_NAMELEN 64

/* One kernel launch group: launched `launches` times with the same shape.
 * Instruction counts are dynamic warp instructions executed by one warp over
 * its life (for a warp without divergence, the same as the instructions one
 * thread executes); thread_insns is what one thread executes on average
 * (gpu_sim_insn / threads), which is what IPC counts. */
typedef struct {
    char name[WL_NAMELEN];
    /* Static facts (from the launch and ptxas). */
    int grid_ctas;             /* CTAs per launch */
    int threads_per_cta;
    int launches;
    int regs_per_thread;
    int smem_per_cta;          /* bytes of static + dynamic shared memory */
    /* Instruction mix, per warp (see above). alu is derived: warp_insns
     * minus every other class. */
    double thread_insns, warp_insns;
    double insn_alu, insn_sfu, insn_ld_global, insn_st_global, insn_shared,
           insn_const, insn_atomic, insn_sync;
    /* Memory behaviour (static where a log tells it, else estimated). */
    double ld_tx;              /* L1 line requests per warp global load */
    double st_tx;              /* L2 transactions per warp global store */
    double st_sectors;         /* 32-B sectors written per store transaction */
    double atom_tx;            /* L2 transactions per warp atomic */
    double atom_hot;           /* share of atomic transactions at the hottest L2 slice */
    double shared_conflict;    /* cycles in the shared-memory pipe per warp access */
    double const_conflict;     /* constant-cache accesses per warp const insn */
    double code_lines;         /* 128-B instruction-cache lines one SM fetches per launch (cold il1; 0 = unknown) */
    double const_lines;        /* 64-B constant-cache lines one SM fetches per launch (cold L1C, parameters included; 0 = unknown) */
    double fetches;            /* instruction fetches (L1I accesses) per warp; 0 = unknown (warp_insns / 2) */
    /* Free parameters (calibrated later; defaults in the descriptor). */
    double l1_reuse;           /* fraction of global-load lines that could hit L1 given capacity */
    double footprint_kb_per_cta; /* L1 working set of one CTA (GTO) */
    double l2_reuse;           /* fraction of L1 read misses that could hit L2 given capacity */
    double footprint_kb_total; /* L2 working set of the whole kernel */
    double read_share;         /* share of footprint_kb_total only read (copied-in input); 0 = unknown */
    double st_stride;          /* bytes between one warp's store transactions; 0 = contiguous or unknown (uniform spread) */
    double st_group;           /* consecutive CTAs whose stores start in the same 256-B chunk of st_stride; 0 = unknown */
    double ilp;                /* independent instructions per warp (issue overlap) */
    double mem_waits;          /* dependent global-memory round trips per warp */
    double mem_eff;            /* achieved share of peak L2/DRAM bandwidth (address pattern) */
    /* Where gpudse calibrate fitted it (written only when cal_rows > 0):
     * the rows' count, the held-out RMS of log(modelled / measured IPC),
     * and the range of each size knob the rows covered. 0 = uncalibrated. */
    double cal_rows, cal_log_sd;
    double cal_sm_min, cal_sm_max, cal_mem_min, cal_mem_max;
    double cal_l1_min, cal_l1_max, cal_l2_min, cal_l2_max;
} wl_kernel;

typedef struct {
    char name[WL_NAMELEN];
    char description[256];
    char path[4096];           /* descriptor file it came from */
    char sha256[65];           /* of the descriptor's bytes: part of job keys */
    int nkernels;
    wl_kernel k[WL_MAXKERNELS];
} wl_workload;

/* Load templates/workloads/NAME.xml from the data directory; an unknown name
 * is GD_EINPUT with the list of built-ins. */
int wl_load_builtin(const char *name, wl_workload *out, gd_err *err);
/* Load a descriptor file; errors name FILE:LINE (GD_EINPUT). */
/* A descriptor file when `what` exists, contains '/' or ends in ".xml",
 * else the built-in workload of that name. */
int wl_load_named(const char *what, wl_workload *out, gd_err *err);
int wl_load_file(const char *path, wl_workload *out, gd_err *err);
/* Serialise w as a descriptor (the format wl_load_file reads back to the
 * same numbers, to 9 significant digits) into a malloc'd string *out;
 * comment (may be NULL) becomes the XML comment after the declaration
 * ("--" in it is rewritten). Returns GD_OK or GD_EENV. */
int wl_to_xml(const wl_workload *w, const char *comment, char **out,
              gd_err *err);
/* Whether a kernel built in memory (from a log, by calibration) is one a
 * descriptor may hold: every field finite and in the range wl_load_file
 * accepts, the instruction classes within warp_insns. GD_OK, or GD_EINPUT
 * with "kernel 'NAME': FIELD=V is out of range [LO, HI]" (no file or line:
 * the caller knows where the numbers came from). */
int wl_check_kernel(const wl_kernel *k, gd_err *err);
/* Names of the built-in workloads, sorted; returns count (<= max) or -1. */
int wl_list_builtin(char names[][WL_NAMELEN], int max, gd_err *err);

#endif
