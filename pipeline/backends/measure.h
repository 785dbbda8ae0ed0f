/* measure: the measured backends of the split study. measure-cpu runs real
 * kernels of the five task classes on worker threads standing in for
 * devices (an induced slowdown factor stretches each device's kernel time),
 * timed with a monotonic clock, warm-ups discarded, repeats summarised by
 * median and IQR: MEASURED(cpu). measure-cuda runs the same kernels in CUDA
 * (pipeline/backends/cuda/, built only where nvcc exists): MEASURED(cuda). */
#ifndef GPUDSE_MEASURE_H
#define GPUDSE_MEASURE_H

#include "costmodel.h"
#include "util.h"

typedef struct {
    double median, q1, q3;                 /* seconds */
    int n;                                 /* repeats kept */
    int dropped;                           /* repeats dropped: a core was taken */
    int contended;                         /* kept repeats that were contended */
    double checksum;                       /* sum of the result (checks splits) */
    int skipped;                           /* not measurable here (the error says why) */
    int time_sliced;                       /* cuda: split devices shared a GPU */
} ms_stat;

typedef struct {
    int repeats;                           /* kept repeats (>= 1) */
    int warmups;                           /* discarded first runs */
} ms_opts;

/* Run decision d (validated against m) for task t on CPU worker threads;
 * device slowdowns come from m. */
int ms_run_cpu(const cm_machine *m, const cm_task *t, const cm_decision *d,
               const ms_opts *o, ms_stat *out, gd_err *err);

/* One halo-style exchange between CPU devices a and b (each copies bytes
 * from the other, then both meet at a barrier), per round: the link
 * ladder that calibration fits p2p latency and bandwidth from. */
int ms_link_cpu(const cm_machine *m, int a, int b, size_t bytes, int rounds,
                const ms_opts *o, ms_stat *out, gd_err *err);

/* The same on CUDA devices (every run's result checked against
 * ms_reference_sum); GD_EENV with "no CUDA device: skipped ..." where
 * gpudse was built without nvcc or no GPU answers, and with out->skipped
 * set where split devices share a GPU and the decision needs them apart
 * (dynamic self-scheduling). Devices that share a GPU otherwise run one
 * after another, out->time_sliced set. */
int ms_run_cuda(const cm_machine *m, const cm_task *t, const cm_decision *d,
                const ms_opts *o, ms_stat *out, gd_err *err);
/* Host<->device copies of `bytes` (h2d 1: host to device) on the GPU of
 * device dev of m, `rounds` back to back per run: out is the time per
 * copy (the host-link ladder of calibration). */
int ms_copy_cuda(const cm_machine *m, int dev, size_t bytes, int h2d,
                 int rounds, const ms_opts *o, ms_stat *out, gd_err *err);
/* Number of CUDA devices that answer (0 without CUDA). */
int ms_cuda_devices(void);

/* The sum of task t's exact result from the measured backends' initial
 * data, whatever the split (what a correct run's checksum must be). */
int ms_reference_sum(const cm_task *t, double *sum, gd_err *err);
/* GD_OK when run `run`'s sum `got` matches `want` to fp32 rounding, else
 * an error naming the backend and both sums. */
int ms_check_sum(const char *backend, int run, double got, double want,
                 gd_err *err);

/* Measured characteristics of one core of this machine. */
typedef struct {
    int cores;
    double flops;        /* map kernel FLOP/s, one thread */
    double stream_bw;    /* triad B/s, one thread */
    double copy_bw;      /* memcpy B/s (host<->device stand-in) */
    double copy_lat;     /* memcpy fixed cost, s */
    double launch_s;     /* per-chunk dispatch cost, s */
    double sync_lat;     /* thread-to-thread handoff (barrier), s */
    double setup_s, setup_dev_s;   /* thread pool start: base + per thread */
    double mem_bytes;    /* physical memory */
} ms_probe;

int ms_probe_cpu(ms_probe *p, gd_err *err);

/* Kept repeats (at least 1) of o, and its discarded warm-ups (>= 0). */
int ms_opts_repeats(const ms_opts *o, int *warm);
/* Median and quartiles of n samples (sorted in place). */
void ms_summarise(double *x, int n, ms_stat *out);

#endif
