/* gpgpusim: the process-free half of the GPGPU-Sim backend — writes a job's
 * gpgpusim.config and interconnect file from the templates for one design
 * point (docs/gpgpusim.md rules), validates cache strings, parses the
 * simulator's statistics and GPUWattch power report, maps them to gpudse
 * metrics, and classifies a finished run into a store_status. */
#ifndef GPUDSE_GPGPUSIM_H
#define GPUDSE_GPGPUSIM_H

#include <stddef.h>
#include "util.h"
#include "space.h"
#include "metrics.h"

/* ---- configuration files ------------------------------------------------ */

/* Files of templates/gpgpusim/. */
#define GSIM_CONFIG_NAME "gpgpusim.config"

/* Rewrite the text of a gpgpusim.config template for design point c:
 *   -gpgpu_n_clusters N, -gpgpu_n_cores_per_cluster N, -gpgpu_n_mem N,
 *   -gpgpu_shmem_size N and -gpgpu_shmem_sizeDefault N (same value),
 *   -gpgpu_scheduler gto | lrr | two_level_active:6:0:1,
 *   -gpgpu_num_sched_per_core N,
 *   -gpgpu_cache:dl1: 2nd field = l1_sets, set-index function (5th field of
 *     the 2nd group) = H for 32 or 64 sets, L for 16 or 128 (or any other),
 *   -gpgpu_cache:dl2: 2nd field = l2_sets.
 * Each key is matched only at the start of a non-comment line and only when
 * followed by whitespace (so -gpgpu_n_mem never touches
 * -gpgpu_n_mem_per_ctrlr), and must match exactly one line. Only the value
 * token changes; spacing, comments and every other byte stay as they were,
 * so the baseline point reproduces the template byte for byte.
 * Afterwards every cache string (dl1, dl2, il1, tex, const, dl1Pref*) is
 * checked with gsim_cache_string_check.
 * name names the template in messages. On success *out is a malloc'd
 * NUL-terminated text the caller frees. Errors: GD_EINPUT with
 * "NAME:LINE: ..." (a key missing or repeated, a bad cache string: the
 * engine records a per-config rejection as class invalid-config). */
int gsim_rewrite_config_text(const char *text, const char *name,
                             const gpu_config *c, char **out, gd_err *err);

/* Rewrite the interconnect (BookSim) text: the one `k = N;` line gets
 * N = n_clusters + n_mem * subpart (one node per cluster plus one per L2
 * sub-partition; subpart is -gpgpu_n_sub_partition_per_mchannel, 2 on the
 * GTX480, so k = n_clusters + 2 * n_mem). Same contract as above. */
int gsim_rewrite_icnt_text(const char *text, const char *name,
                           const gpu_config *c, int subpart, char **out,
                           gd_err *err);

/* Check one cache configuration string against GPGPU-Sim's grammar
 *   <type>:<nsets>:<bsize>:<assoc>,<rep>:<wr>:<alloc>:<wr_alloc>:<set_index>,
 *   <mshr>:<N>:<merge>,<mq>[:<fifo>][,<data_port_width>]
 * ("none" is accepted: a disabled cache) and reject what makes the simulator
 * abort or assert: write-back (B) with allocate-on-fill (f); fetch-on-write
 * (F) or lazy-fetch-on-read (L) with allocate-on-fill; the H set-index hash
 * with other than 32 or 64 sets; a sector (S) cache whose line is not 128 B.
 * 0 when valid, else -1 with the reason in why. */
int gsim_cache_string_check(const char *s, char *why, size_t n);

/* The value token of a key in a gpgpusim.config text (exactly-one-line
 * rule, as above) copied into val. 0 when found once; -1 when missing or
 * repeated. */
int gsim_config_value(const char *text, const char *key, char *val, size_t n);

/* Core clock in MHz: first field of -gpgpu_clock_domains (700 on the
 * GTX480). Works on a config file or on a log's configuration dump
 * (`-gpgpu_clock_domains 700.0:700.0:700.0:924.0 # ...`). 0 or -1. */
int gsim_core_clock_mhz(const char *text, double *mhz);

/* Write the job's files into job_dir (which must exist): gpgpusim.config
 * and the interconnect file it names (-inter_config_file, a plain file name
 * read from template_dir), both rewritten for c, each written atomically;
 * and, when the config says -power_simulation_enabled 1, a copy of the
 * -gpuwattch_xml_file XML. *power_on (may be NULL) tells which. Nothing is
 * written when the config is rejected. GD_EINPUT for a rejected config or a
 * broken template, GD_EENV when files cannot be read or written. The user
 * knobs of sp (NULL: none) with an option= set their option
 * (gsim_set_user_options). */
int gsim_write_configs(const char *template_dir, const space_def *sp,
                       const gpu_config *c, const char *job_dir, int *power_on,
                       gd_err *err);

/* In the config text *text (malloc'd, replaced), each user knob of sp
 * that names a GPGPU-Sim option (<knob option="-gpgpu_...">) sets it to
 * c's level: the option's one line rewritten, or, when the template has
 * none, a line `OPTION LEVEL` appended (GPGPU-Sim reads options in any
 * order). GD_EINPUT (naming name) when the option is on several lines. */
int gsim_set_user_options(char **text, const char *name,
                          const space_def *sp, const gpu_config *c,
                          gd_err *err);

/* Check a template directory once, before a campaign runs: both files read,
 * every knob key present exactly once, the baseline point rewrites and
 * validates, the power XML exists when power is on. GD_EINPUT naming the
 * file when not. */
int gsim_check_templates(const char *template_dir, gd_err *err);

/* ---- statistics ---------------------------------------------------------- */

/* Absent values are NAN everywhere below. Counts are held as doubles (exact
 * up to 2^53). */

/* One kernel's dump. gpu_sim_cycle, gpu_sim_insn, gpu_ipc, gpu_occupancy and
 * L2_BW are printed per kernel; the d_* fields are differences of the
 * cumulative counters between this dump and the previous one (the first
 * kernel: the dump itself). */
typedef struct {
    char name[256];            /* kernel_name (several when concurrent) */
    long uid;                  /* first kernel_launch_uid, -1 when absent */
    double sim_cycle;          /* gpu_sim_cycle */
    double sim_insn;           /* gpu_sim_insn */
    double ipc;                /* gpu_ipc */
    double occupancy_pct;      /* gpu_occupancy, percent as printed */
    double l2_bw_gbps;         /* L2_BW */
    double d_dram_stall;       /* gpu_stall_dramfull difference */
    double d_l1d_accesses, d_l1d_misses;
    double d_l2_accesses, d_l2_misses;
    double d_dram_reads, d_dram_writes;
    double l1d_miss_rate;      /* d_l1d_misses / d_l1d_accesses */
    double l2_miss_rate;       /* d_l2_misses / d_l2_accesses */
} gsim_kernel;

/* Whole program: the last dump's cumulative values. */
typedef struct {
    int nkernels;
    gsim_kernel *kernels;      /* owned; gsim_stats_free */
    double tot_cycles;         /* last gpu_tot_sim_cycle */
    double tot_insn;           /* last gpu_tot_sim_insn */
    double tot_ipc;            /* last gpu_tot_ipc */
    double tot_occupancy_pct;  /* last gpu_tot_occupancy, percent */
    double tot_issued_cta;     /* last gpu_tot_issued_cta */
    double l1d_accesses, l1d_misses, l1d_miss_rate;   /* L1D_total_cache_* */
    double l2_accesses, l2_misses, l2_miss_rate;      /* L2_total_cache_*;
                                   miss_rate NAN when there were no accesses */
    double dram_stall;         /* gpu_stall_dramfull */
    double icnt2sh_stall;      /* gpu_stall_icnt2sh */
    double l2_bw_total_gbps;   /* L2_BW_total */
    double dram_reads, dram_writes;   /* total dram reads / writes */
    double n_load_insn, n_store_insn, n_shmem_insn, n_sstarr_insn,
           n_tex_insn, n_const_mem_insn, n_param_mem_insn;  /* gpgpu_n_*_insn */
    double n_stall_shd_mem;    /* gpgpu_n_stall_shd_mem */
    double avg_mem_latency;    /* averagemflatency, core cycles */
    double sim_seconds;        /* last gpgpu_simulation_time (T sec) */
    double sim_rate_insn;      /* last gpgpu_simulation_rate (inst/sec) */
    double sim_rate_cycle;     /* last gpgpu_simulation_rate (cycle/sec) */
    double core_clock_mhz;     /* from the log's configuration dump */
    int exit_detected;         /* "GPGPU-Sim: *** exit detected ***" seen */
} gsim_stats;

/* Parse GPGPU-Sim's stdout (the whole text, or a tail that holds at least
 * the last statistics dump; lines before the first kernel_name are ignored
 * but for the configuration dump, which gives core_clock_mhz — NAN when the
 * text lacks it: then take gsim_core_clock_mhz of the job's config). A dump starts at `kernel_name = `.
 * A known statistics line whose value is not a number (garbage) is
 * GD_EINPUT naming the line ("stdout:LINE: ..."). No dump at all is not an
 * error: nkernels == 0. out is always initialised; free with
 * gsim_stats_free. */
int gsim_parse_stats(const char *log_text, size_t len, gsim_stats *out,
                     gd_err *err);
void gsim_stats_free(gsim_stats *s);

/* GPUWattch report (gpgpusim_power_report__*.log). */
typedef struct {
    int nkernels;
    double *kernel_avg_w;      /* kernel_avg_power per kernel; owned */
    double tot_avg_w;          /* last gpu_tot_avg_power (whole program) */
    double tot_max_w;          /* last gpu_tot_max_power */
} gsim_power;

int gsim_parse_power(const char *text, size_t len, gsim_power *out,
                     gd_err *err);
void gsim_power_free(gsim_power *p);

/* Whole-program metrics (names of metrics.h), each only when its source is
 * present:
 *   ipc               = last gpu_tot_ipc (thread instructions per core cycle)
 *   cycles            = last gpu_tot_sim_cycle (core cycles)
 *   instructions      = last gpu_tot_sim_insn
 *   occupancy         = last gpu_tot_occupancy / 100 (achieved warps over
 *                       maximum, 0..1, time-weighted over all kernels; for a
 *                       one-kernel program equal to gpu_occupancy, the
 *                       reference results.csv column)
 *   l1d_miss_rate     = last L1D_total_cache_miss_rate
 *   l2_miss_rate      = last L2_total_cache_miss_rate (absent: no accesses)
 *   dram_stall_cycles = last gpu_stall_dramfull
 *   l2_bw_gbps        = last L2_BW_total (GB/s)
 *   time_s            = cycles / (core clock MHz * 1e6)
 *   power_w           = power_w argument (gpu_tot_avg_power), when finite
 *   energy_j          = power_w * time_s
 * dram_bw_gbps is not produced: GPGPU-Sim's `total dram reads/writes` are
 * request counts of no fixed size. 0, or GD_EENV when m is full. */
int gsim_stats_to_metrics(const gsim_stats *s, double power_w, met_set *m);

/* ---- failure classification --------------------------------------------- */

/* How a process ended, as the executor saw it: store_status ST_TIMEOUT
 * (timed_out), ST_CRASHED (killed by a signal, or a shell's exit status
 * 129..159 for a child killed by signal status-128), ST_FAILED (non-zero
 * exit) or ST_OK; reason like "exit code 1", "signal 11 (SIGSEGV)".
 * Reusable by any external backend. */
int gsim_classify_exit(int exited, int exit_code, int signaled, int signo,
                       int timed_out, char *reason, size_t n);

/* Name of a signal: "SIGSEGV", or "SIG?" when unknown. */
const char *gsim_signal_name(int signo);

/* GPGPU-Sim's own fatal message in a run's output, with what it means for
 * the set-up ("Cannot open config file", "GPGPU-Sim PTX: ERROR", "GPGPU-Sim
 * ** ERROR", "GPGPU-Sim CUDA API:", cuobjdump not run for want of
 * CUDA_INSTALL_PATH or CUOBJDUMP_SIM_FILE, a PTX file that cannot be
 * opened, an unimplemented CUDA call): 1 and "HINT: LINE" in cause, else 0.
 * Either text may be NULL. */
int gsim_fatal_cause(const char *stdout_text, const char *stderr_text,
                     char *cause, size_t n);

/* The last max (at most 4) meaningful lines of text — not blank, not the
 * configuration dump, not progress or timing lines — joined with " | "
 * into out; returns how many. */
int gsim_last_lines(const char *text, int max, char *out, size_t n);

/* Classify a finished GPGPU-Sim job into a store_status, most specific
 * first: deadlock banner ("GPGPU-Sim uArch: ERROR ** deadlock detected",
 * reason "deadlock detected at cycle N ..."); timeout; out of memory
 * (std::bad_alloc, "Cannot allocate memory", "out of memory"); an
 * `Assertion ... failed` line (reason: that line); a signal or "Segmentation
 * fault"/"Aborted" (crashed); a non-zero exit (failed, with the last stderr
 * line); FAIL/FAILED as a word in the program's own output (failed); then
 * the statistics: unparseable numbers (bad-output), none or incomplete
 * (no-stats; failed when a GPGPU-Sim fatal message explains it). A failed,
 * crashed or no-stats reason ends with the cause: GPGPU-Sim's fatal
 * message (gsim_fatal_cause), else the last meaningful lines of stderr,
 * else of stdout. stdout_text should hold the end of stdout including the last
 * statistics dump; either text may be NULL. reason gets one line. */
int gsim_classify(const char *stdout_text, const char *stderr_text,
                  int exited, int exit_code, int signaled, int signo,
                  int timed_out, char *reason, size_t n);

#endif
