/* gd_cuda: the C interface of the CUDA kernels of measure-cuda (kernels.cu),
 * compiled only where nvcc exists; measure.c calls it when built with
 * -DGPUDSE_HAVE_CUDA. */
#ifndef GPUDSE_GD_CUDA_H
#define GPUDSE_GD_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

#define GDCU_MAXDEV 8

#include <stddef.h>

/* The data both measured backends split: arrays a, b, c (GD_PAT_A..C) hold
 * i mod 17 / 13 / 11 times 1/8, 1/4, 1/2. Multiples of 1/32 this small
 * sum exactly in fp32 for every class but map, so measure.c checks each
 * run's result against the exact sum of the task on this data. One
 * definition for the CPU arrays, the pinned CUDA ones and the check. */
enum { GD_PAT_A, GD_PAT_B, GD_PAT_C };

static inline float gd_pattern(int array, size_t i)
{
    return array == GD_PAT_A ? (float)(i % 17) * 0.125f
           : array == GD_PAT_B ? (float)(i % 13) * 0.25f
                               : (float)(i % 11) * 0.5f;
}

static inline void gd_pattern_fill(float *x, size_t n, int array)
{
    for (size_t i = 0; i < n; i++)
        x[i] = gd_pattern(array, i);
}

/* One split run: kind as cm_kind (0 triad, 1 dot, 2 gemm, 3 jacobi, 4 map),
 * dims as cm_task, units per device in split order. */
typedef struct {
    int kind;
    long dims[3];
    int ndev;
    int device[GDCU_MAXDEV];    /* CUDA ordinal per split device */
    long units[GDCU_MAXDEV];
    double slowdown[GDCU_MAXDEV];
    long chunk;
    int block;
    int p2p;
    int pipelined;              /* two streams per device: copies overlap kernels */
    int dynamic;                /* devices take chunks from a queue */
} gdcu_job;

/* Devices that answer (0 when the driver or runtime is missing). */
int gdcu_device_count(void);
/* Set the job up once and run it `runs` times: secs[k] from cudaEvent
 * timing (from before the first copy to after the merge; time-sliced where
 * split devices share a GPU, *sliced then 1), sums[k] the sum of run k's
 * result (dot: the merged partial sums). 0 ok; -1 error, 1 a decision this
 * host cannot time faithfully, with msg. */
int gdcu_run(const gdcu_job *j, int runs, double *secs, double *sums,
             int *sliced, char *msg, int msgsz);

/* Host<->device copies (h2d 1: host to device) of `bytes` from pinned
 * memory on device dev: secs[k] the time per copy of run k, each of
 * `rounds` back-to-back copies. 0 ok, -1 with msg. */
int gdcu_copy(int dev, size_t bytes, int h2d, int rounds, int runs,
              double *secs, char *msg, int msgsz);

#ifdef __cplusplus
}
#endif
#endif
