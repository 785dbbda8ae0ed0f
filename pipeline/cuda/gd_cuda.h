/* gd_cuda: the C interface of the CUDA kernels of measure-cuda (kernels.cu),
 * compiled only where nvcc exists; measure.c calls it when built with
 * -DGPUDSE_HAVE_CUDA. */
#ifndef GPUDSE_GD_CUDA_H
#define GPUDSE_GD_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

#define GDCU_MAXDEV 8

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
} gdcu_job;

/* Devices that answer (0 when the driver or runtime is missing). */
int gdcu_device_count(void);
/* Run once; *secs from cudaEvent timing (first device's stream, from
 * before the first copy to after the merge). 0 ok, -1 with msg. */
int gdcu_run(const gdcu_job *j, double *secs, char *msg, int msgsz);

#ifdef __cplusplus
}
#endif
#endif
