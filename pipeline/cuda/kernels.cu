/* kernels.cu: measure-cuda — the five task classes of the split study as
 * CUDA kernels, run split across devices exactly as a decision says
 * (units per device, chunked host<->device copies from pinned memory,
 * block size, host or peer halo path), timed with cudaEvents from before
 * the first copy to after the last device finishes. An induced slowdown
 * factor s repeats each kernel launch round(s) times. Built only where
 * nvcc exists (see gd_cuda.h); the C side reports "no CUDA device:
 * skipped" where no GPU answers. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gd_cuda.h"

enum { K_TRIAD, K_DOT, K_GEMM, K_JACOBI, K_MAP };

__global__ void triad_k(float *a, const float *b, const float *c, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i] + 3.0f * c[i];
}

__global__ void dot_k(const float *b, const float *c, long n, double *out)
{
    extern __shared__ double sh[];
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    double v = 0;
    for (; i < n; i += (long)gridDim.x * blockDim.x)
        v += (double)b[i] * c[i];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, sh[0]);
}

__global__ void gemm_k(float *c, const float *a, const float *b, long rows,
                       long n, long k)
{
    long idx = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (idx >= rows * n)
        return;
    long r = idx / n, j = idx % n;
    float s = 0;
    for (long p = 0; p < k; p++)
        s += a[r * k + p] * b[p * n + j];
    c[idx] = s;
}

/* rows 1..rows of out from in (rows 0 and rows+1 are halos) */
__global__ void jacobi_k(float *out, const float *in, long rows, long cols)
{
    long idx = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (idx >= rows * cols)
        return;
    long r = idx / cols + 1, c = idx % cols;
    const float *me = in + r * cols;
    if (c == 0 || c == cols - 1) {
        out[r * cols + c] = me[c];
        return;
    }
    out[r * cols + c] = 0.2f * (me[c] + me[c - cols] + me[c + cols] +
                                me[c - 1] + me[c + 1]);
}

__global__ void map_k(float *out, const float *in, long n, long k)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    for (long j = 0; j < k; j++)
        x = x * 0.999999f + 0.5f;
    out[i] = x;
}

#define CK(call)                                                            \
    do {                                                                    \
        cudaError_t e_ = (call);                                            \
        if (e_ != cudaSuccess) {                                            \
            snprintf(msg, (size_t)msgsz, "%s: %s", #call,                   \
                     cudaGetErrorString(e_));                               \
            goto fail;                                                      \
        }                                                                   \
    } while (0)

extern "C" int gdcu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return 0;
    return n;
}

typedef struct {
    int dev;
    long off, units;
    cudaStream_t st;
    cudaEvent_t done;
    float *d0, *d1, *d2, *rep;     /* device buffers */
    double *acc;
    int reps;
} part;

static unsigned grid_of(long n, int block)
{
    long g = (n + block - 1) / block;
    return (unsigned)(g < 1 ? 1 : g);
}

/* Streaming classes: chunked copies in, kernel(s), copies out. */
static int run_stream(const gdcu_job *j, part *p, float *ha, float *hb,
                      float *hc, char *msg, int msgsz)
{
    long chunk = j->chunk, N = j->dims[1], K = j->dims[2];
    for (long u0 = 0; u0 < p->units; u0 += chunk) {
        long n = p->units - u0 < chunk ? p->units - u0 : chunk, g = p->off + u0;
        {
            switch (j->kind) {
            case K_TRIAD:
                CK(cudaMemcpyAsync(p->d1, hb + g, n * 4, cudaMemcpyHostToDevice, p->st));
                CK(cudaMemcpyAsync(p->d2, hc + g, n * 4, cudaMemcpyHostToDevice, p->st));
                for (int s = 0; s < p->reps; s++)
                    triad_k<<<grid_of(n, j->block), j->block, 0, p->st>>>(p->d0, p->d1, p->d2, n);
                CK(cudaMemcpyAsync(ha + g, p->d0, n * 4, cudaMemcpyDeviceToHost, p->st));
                break;
            case K_DOT:
                CK(cudaMemcpyAsync(p->d1, hb + g, n * 4, cudaMemcpyHostToDevice, p->st));
                CK(cudaMemcpyAsync(p->d2, hc + g, n * 4, cudaMemcpyHostToDevice, p->st));
                for (int s = 0; s < p->reps; s++)
                    dot_k<<<grid_of(n, j->block) < 1024 ? grid_of(n, j->block) : 1024,
                            j->block, j->block * sizeof(double), p->st>>>(p->d1, p->d2, n, p->acc);
                break;
            case K_GEMM:
                CK(cudaMemcpyAsync(p->d1, ha + g * K, n * K * 4, cudaMemcpyHostToDevice, p->st));
                for (int s = 0; s < p->reps; s++)
                    gemm_k<<<grid_of(n * N, j->block), j->block, 0, p->st>>>(p->d0, p->d1, p->rep, n, N, K);
                CK(cudaMemcpyAsync(hc + g * N, p->d0, n * N * 4, cudaMemcpyDeviceToHost, p->st));
                break;
            default:
                CK(cudaMemcpyAsync(p->d1, hb + g, n * 4, cudaMemcpyHostToDevice, p->st));
                for (int s = 0; s < p->reps; s++)
                    map_k<<<grid_of(n, j->block), j->block, 0, p->st>>>(p->d0, p->d1, n, N);
                CK(cudaMemcpyAsync(ha + g, p->d0, n * 4, cudaMemcpyDeviceToHost, p->st));
            }
        }
        CK(cudaGetLastError());
    }
    return 0;
fail:
    return -1;
}

/* Jacobi: rows resident, halo rows swapped each sweep (peer or host). */
static int run_jacobi(const gdcu_job *j, part *p, int np, float *ha, float *hc,
                      float *stage, char *msg, int msgsz)
{
    long cols = j->dims[1], iters = j->dims[2];
    size_t row = (size_t)cols * 4;
    for (int i = 0; i < np; i++) {
        CK(cudaSetDevice(p[i].dev));
        CK(cudaMemcpyAsync(p[i].d0 + cols, ha + p[i].off * cols, p[i].units * row,
                           cudaMemcpyHostToDevice, p[i].st));
    }
    for (long it = 0; it < iters; it++) {
        for (int i = 0; i < np; i++) {       /* halos from neighbours */
            CK(cudaSetDevice(p[i].dev));
            CK(cudaStreamSynchronize(p[i].st));
        }
        for (int i = 0; i < np; i++) {
            CK(cudaSetDevice(p[i].dev));
            for (int side = 0; side < 2; side++) {
                int nb = side == 0 ? i - 1 : i + 1;
                if (nb < 0 || nb >= np)
                    continue;
                const float *src = side == 0 ? p[nb].d0 + p[nb].units * cols : p[nb].d0 + cols;
                float *dst = side == 0 ? p[i].d0 : p[i].d0 + (p[i].units + 1) * cols;
                if (j->p2p) {
                    CK(cudaMemcpyPeerAsync(dst, p[i].dev, src, p[nb].dev, row, p[i].st));
                } else {
                    float *h = stage + (size_t)(2 * i + side) * cols;
                    CK(cudaMemcpy(h, src, row, cudaMemcpyDeviceToHost));
                    CK(cudaMemcpyAsync(dst, h, row, cudaMemcpyHostToDevice, p[i].st));
                }
            }
            for (int s = 0; s < p[i].reps; s++)
                jacobi_k<<<grid_of(p[i].units * cols, j->block), j->block, 0, p[i].st>>>(
                    p[i].d1, p[i].d0, p[i].units, cols);
            CK(cudaGetLastError());
        }
        for (int i = 0; i < np; i++) {       /* new rows become current */
            CK(cudaSetDevice(p[i].dev));
            CK(cudaStreamSynchronize(p[i].st));
            float *t = p[i].d0;
            p[i].d0 = p[i].d1;
            p[i].d1 = t;
        }
    }
    for (int i = 0; i < np; i++) {
        CK(cudaSetDevice(p[i].dev));
        CK(cudaMemcpyAsync(hc + p[i].off * cols, p[i].d0 + cols, p[i].units * row,
                           cudaMemcpyDeviceToHost, p[i].st));
    }
    return 0;
fail:
    return -1;
}

static void sizes_of(const gdcu_job *j, long units, size_t *s0, size_t *s1,
                     size_t *s2)
{
    long N = j->dims[1], K = j->dims[2], c = units < j->chunk ? units : j->chunk;
    switch (j->kind) {
    case K_GEMM: *s0 = c * N; *s1 = c * K; *s2 = 1; break;
    case K_JACOBI: *s0 = *s1 = (units + 2) * N; *s2 = 1; break;
    default: *s0 = *s1 = *s2 = c;
    }
}

extern "C" int gdcu_run(const gdcu_job *j, double *secs, char *msg, int msgsz)
{
    part p[GDCU_MAXDEV];
    int np = 0, rc = -1;
    float *ha = NULL, *hb = NULL, *hc = NULL, *stage = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    long n = j->dims[0], N = j->dims[1], K = j->dims[2];
    size_t na = j->kind == K_GEMM ? n * K : j->kind == K_JACOBI ? n * N : n;
    size_t nb = j->kind == K_GEMM ? K * N : n;
    size_t nc = j->kind == K_GEMM ? n * N : j->kind == K_JACOBI ? n * N : n;
    float ms = 0;
    memset(p, 0, sizeof p);
    CK(cudaMallocHost((void **)&ha, na * 4));
    CK(cudaMallocHost((void **)&hb, nb * 4));
    CK(cudaMallocHost((void **)&hc, nc * 4));
    CK(cudaMallocHost((void **)&stage, 2 * GDCU_MAXDEV * (size_t)(N > 2 ? N : 2) * 4));
    for (size_t i = 0; i < na; i++) ha[i] = (float)(i % 17) * 0.125f;
    for (size_t i = 0; i < nb; i++) hb[i] = (float)(i % 13) * 0.25f;
    for (size_t i = 0; i < nc; i++) hc[i] = (float)(i % 11) * 0.5f;
    for (long i = 0, off = 0; i < j->ndev; i++) {
        if (j->units[i] <= 0)
            continue;
        part *q = &p[np++];
        q->dev = j->device[i];
        q->off = off;
        q->units = j->units[i];
        q->reps = (int)floor(j->slowdown[i] + 0.5) < 1 ? 1 : (int)floor(j->slowdown[i] + 0.5);
        off += j->units[i];
        size_t s0, s1, s2;
        sizes_of(j, q->units, &s0, &s1, &s2);
        CK(cudaSetDevice(q->dev));
        CK(cudaStreamCreate(&q->st));
        CK(cudaEventCreate(&q->done));
        CK(cudaMalloc((void **)&q->d0, s0 * 4));
        CK(cudaMalloc((void **)&q->d1, s1 * 4));
        CK(cudaMalloc((void **)&q->d2, s2 * 4));
        CK(cudaMemset(q->d0, 0, s0 * 4));
        CK(cudaMemset(q->d1, 0, s1 * 4));
        CK(cudaMalloc((void **)&q->acc, sizeof(double)));
        CK(cudaMemset(q->acc, 0, sizeof(double)));
        if (j->kind == K_GEMM)
            CK(cudaMalloc((void **)&q->rep, K * N * 4));
        CK(cudaDeviceSynchronize());
    }
    if (np == 0) {
        snprintf(msg, (size_t)msgsz, "no device has work");
        goto fail;
    }
    CK(cudaSetDevice(p[0].dev));
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    CK(cudaEventRecord(t0, p[0].st));
    for (int i = 0; i < np; i++) {
        CK(cudaSetDevice(p[i].dev));
        if (i > 0)
            CK(cudaStreamWaitEvent(p[i].st, t0, 0));
        if (j->kind == K_GEMM)
            CK(cudaMemcpyAsync(p[i].rep, hb, K * N * 4, cudaMemcpyHostToDevice, p[i].st));
        if (j->kind != K_JACOBI && run_stream(j, &p[i], ha, hb, hc, msg, msgsz))
            goto fail;
    }
    if (j->kind == K_JACOBI && run_jacobi(j, p, np, ha, hc, stage, msg, msgsz))
        goto fail;
    for (int i = 0; i < np; i++) {
        CK(cudaSetDevice(p[i].dev));
        CK(cudaEventRecord(p[i].done, p[i].st));
    }
    CK(cudaSetDevice(p[0].dev));
    for (int i = 1; i < np; i++)
        CK(cudaStreamWaitEvent(p[0].st, p[i].done, 0));
    if (j->kind == K_DOT)                  /* merge: partial sums to host */
        for (int i = 0; i < np; i++)
            CK(cudaMemcpyAsync((double *)(void *)stage + i, p[i].acc,
                               sizeof(double), cudaMemcpyDeviceToHost, p[0].st));
    CK(cudaEventRecord(t1, p[0].st));
    CK(cudaEventSynchronize(t1));
    CK(cudaEventElapsedTime(&ms, t0, t1));
    *secs = ms * 1e-3;
    rc = 0;
fail:
    for (int i = 0; i < np; i++) {
        cudaSetDevice(p[i].dev);
        cudaFree(p[i].d0);
        cudaFree(p[i].d1);
        cudaFree(p[i].d2);
        cudaFree(p[i].rep);
        cudaFree(p[i].acc);
        if (p[i].st)
            cudaStreamDestroy(p[i].st);
        if (p[i].done)
            cudaEventDestroy(p[i].done);
    }
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    cudaFreeHost(ha);
    cudaFreeHost(hb);
    cudaFreeHost(hc);
    cudaFreeHost(stage);
    return rc;
}
