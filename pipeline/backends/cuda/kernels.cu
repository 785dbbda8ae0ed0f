/* kernels.cu: measure-cuda — the five task classes of the split study as
 * CUDA kernels, run split across devices exactly as a decision says
 * (units per device or a dynamic chunk queue, chunked host<->device copies
 * from pinned memory, sync or pipelined chunks, block size, host or peer
 * halo path), timed with cudaEvents from before the first copy to after
 * the last device finishes, and the result summed for the caller to check.
 * An induced slowdown factor s repeats each kernel launch round(s) times.
 * Split devices that share one GPU are run one after another, each alone,
 * and the split's time is the slowest device's per phase ("time-sliced").
 * Built only where nvcc exists (see gd_cuda.h); the C side reports "no
 * CUDA device: skipped" where no GPU answers. */
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
            snprintf(R->msg, (size_t)R->msgsz, "%s: %s", #call,             \
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

/* One split device: its GPU, slice, streams and buffers. A pipelined
 * decision uses two slots (streams with their own chunk buffers), so one
 * chunk's copies overlap the other's kernel; a sync one uses slot 0. */
typedef struct {
    int dev;
    long off, units;
    int reps, nslot;
    cudaStream_t st[2];
    cudaEvent_t ev[2];             /* the last work issued on each slot */
    cudaEvent_t ta, tb;            /* time-sliced: brackets of a phase */
    float *d0[2], *d1[2], *d2[2];  /* chunk buffers; jacobi: rows, next rows */
    float *rep;                    /* gemm: replicated B */
    double *acc, *junk;            /* dot: partial sum; the repeats' scratch */
} part;

typedef struct {
    const gdcu_job *j;
    part p[GDCU_MAXDEV];
    int np;
    int sliced;                    /* devices share a GPU: each runs alone */
    float *ha, *hb, *hc, *stage;   /* pinned host arrays */
    size_t na, nb, nc;
    float sliced_ms;               /* time-sliced: sum of phase maxima */
    char *msg;
    int msgsz;
} run;

static unsigned grid_of(long n, int block)
{
    long g = (n + block - 1) / block;
    return (unsigned)(g < 1 ? 1 : g);
}

/* ---- time slicing ----
 * Where split devices share a GPU, running them together would time the
 * sharing, not the split. Each device's part of a phase then runs alone,
 * bracketed by its own events, and the phase costs the slowest part. */

static int slice_begin(run *R, part *q)
{
    if (!R->sliced)
        return 0;
    CK(cudaSetDevice(q->dev));
    CK(cudaEventRecord(q->ta, q->st[0]));
    if (q->nslot == 2)
        CK(cudaStreamWaitEvent(q->st[1], q->ta, 0));
    return 0;
fail:
    return -1;
}

static int slice_end(run *R, part *q, float *phase_ms)
{
    float ms = 0;
    if (!R->sliced)
        return 0;
    CK(cudaSetDevice(q->dev));
    if (q->nslot == 2) {
        CK(cudaEventRecord(q->ev[1], q->st[1]));
        CK(cudaStreamWaitEvent(q->st[0], q->ev[1], 0));
    }
    CK(cudaEventRecord(q->tb, q->st[0]));
    CK(cudaEventSynchronize(q->tb));
    CK(cudaEventElapsedTime(&ms, q->ta, q->tb));
    if (ms > *phase_ms)
        *phase_ms = ms;
    return 0;
fail:
    return -1;
}

/* ---- streaming classes: chunked copies in, kernel(s), copies out ---- */

/* Units [g, g+n) on slot s of device q. Repeats of a slowed device's
 * launch are idempotent (dot's extra launches sum into scratch). */
static int issue_chunk(run *R, part *q, int s, long g, long n)
{
    const gdcu_job *j = R->j;
    long N = j->dims[1], K = j->dims[2];
    cudaStream_t st = q->st[s];
    float *d0 = q->d0[s], *d1 = q->d1[s], *d2 = q->d2[s];
    unsigned grid = grid_of(n, j->block);
    switch (j->kind) {
    case K_TRIAD:
        CK(cudaMemcpyAsync(d1, R->hb + g, n * 4, cudaMemcpyHostToDevice, st));
        CK(cudaMemcpyAsync(d2, R->hc + g, n * 4, cudaMemcpyHostToDevice, st));
        for (int r = 0; r < q->reps; r++)
            triad_k<<<grid, j->block, 0, st>>>(d0, d1, d2, n);
        CK(cudaMemcpyAsync(R->ha + g, d0, n * 4, cudaMemcpyDeviceToHost, st));
        break;
    case K_DOT:
        CK(cudaMemcpyAsync(d1, R->hb + g, n * 4, cudaMemcpyHostToDevice, st));
        CK(cudaMemcpyAsync(d2, R->hc + g, n * 4, cudaMemcpyHostToDevice, st));
        for (int r = 0; r < q->reps; r++)
            dot_k<<<grid < 1024 ? grid : 1024, j->block, j->block * sizeof(double),
                    st>>>(d1, d2, n, r == 0 ? q->acc : q->junk);
        break;
    case K_GEMM:
        CK(cudaMemcpyAsync(d1, R->ha + g * K, n * K * 4, cudaMemcpyHostToDevice, st));
        for (int r = 0; r < q->reps; r++)
            gemm_k<<<grid_of(n * N, j->block), j->block, 0, st>>>(d0, d1, q->rep, n, N, K);
        CK(cudaMemcpyAsync(R->hc + g * N, d0, n * N * 4, cudaMemcpyDeviceToHost, st));
        break;
    default:
        CK(cudaMemcpyAsync(d1, R->hb + g, n * 4, cudaMemcpyHostToDevice, st));
        for (int r = 0; r < q->reps; r++)
            map_k<<<grid, j->block, 0, st>>>(d0, d1, n, N);
        CK(cudaMemcpyAsync(R->ha + g, d0, n * 4, cudaMemcpyDeviceToHost, st));
    }
    CK(cudaGetLastError());
    CK(cudaEventRecord(q->ev[s], st));
    return 0;
fail:
    return -1;
}

/* gemm: B goes to every device before its first chunk, on both slots. */
static int replicate(run *R, part *q)
{
    const gdcu_job *j = R->j;
    if (j->kind != K_GEMM)
        return 0;
    CK(cudaSetDevice(q->dev));
    CK(cudaMemcpyAsync(q->rep, R->hb, j->dims[2] * j->dims[1] * 4,
                       cudaMemcpyHostToDevice, q->st[0]));
    CK(cudaEventRecord(q->ev[0], q->st[0]));
    if (q->nslot == 2)
        CK(cudaStreamWaitEvent(q->st[1], q->ev[0], 0));
    return 0;
fail:
    return -1;
}

/* Static slices: each device's chunks in order, alternating slots. */
static int stream_static(run *R)
{
    float phase = 0;
    long chunk = R->j->chunk;
    for (int i = 0; i < R->np; i++) {
        part *q = &R->p[i];
        if (slice_begin(R, q) || replicate(R, q))
            return -1;
        long k = 0;
        for (long u0 = 0; u0 < q->units; u0 += chunk, k++) {
            long n = q->units - u0 < chunk ? q->units - u0 : chunk;
            if (issue_chunk(R, q, (int)(k % q->nslot), q->off + u0, n))
                return -1;
        }
        if (slice_end(R, q, &phase))
            return -1;
    }
    R->sliced_ms += phase;
    return 0;
}

/* Dynamic self-scheduling: whichever device slot is idle takes the next
 * chunk from the queue (the host polls each slot's last event). */
static int stream_dynamic(run *R)
{
    long next = 0, U = R->j->dims[0], chunk = R->j->chunk;
    int busy[GDCU_MAXDEV][2] = {{0}};
    for (int i = 0; i < R->np; i++)
        if (replicate(R, &R->p[i]))
            return -1;
    for (int any = 1; any;) {
        any = 0;
        for (int i = 0; i < R->np; i++)
            for (int s = 0; s < R->p[i].nslot; s++) {
                part *q = &R->p[i];
                if (busy[i][s]) {
                    cudaError_t e = cudaEventQuery(q->ev[s]);
                    if (e == cudaErrorNotReady) {
                        any = 1;
                        continue;
                    }
                    CK(e);
                    busy[i][s] = 0;
                }
                if (next >= U)
                    continue;
                long n = U - next < chunk ? U - next : chunk;
                CK(cudaSetDevice(q->dev));
                if (issue_chunk(R, q, s, next, n))
                    return -1;
                next += n;
                busy[i][s] = any = 1;
            }
    }
    return 0;
fail:
    return -1;
}

/* ---- Jacobi: rows resident, halo rows swapped each sweep ---- */

static int sync_all(run *R)
{
    for (int i = 0; i < R->np; i++) {
        CK(cudaSetDevice(R->p[i].dev));
        CK(cudaStreamSynchronize(R->p[i].st[0]));
    }
    return 0;
fail:
    return -1;
}

/* Rows in (host -> device) or out (device -> host), chunked. */
static int jacobi_rows(run *R, int out)
{
    long cols = R->j->dims[1], chunk = R->j->chunk;
    float phase = 0;
    for (int i = 0; i < R->np; i++) {
        part *q = &R->p[i];
        if (slice_begin(R, q))
            return -1;
        for (long u = 0; u < q->units; u += chunk) {
            long n = q->units - u < chunk ? q->units - u : chunk;
            float *dev = q->d0[0] + (1 + u) * cols;
            size_t bytes = (size_t)(n * cols) * 4;
            if (out)
                CK(cudaMemcpyAsync(R->hc + (q->off + u) * cols, dev, bytes,
                                   cudaMemcpyDeviceToHost, q->st[0]));
            else
                CK(cudaMemcpyAsync(dev, R->ha + (q->off + u) * cols, bytes,
                                   cudaMemcpyHostToDevice, q->st[0]));
        }
        if (slice_end(R, q, &phase))
            return -1;
    }
    R->sliced_ms += phase;
    return 0;
fail:
    return -1;
}

/* One sweep of device i: its two halo rows from the neighbours' current
 * rows (peer copy, or device -> host staging row -> device, both on its
 * own stream), then the kernel into its next rows. */
static int jacobi_sweep(run *R, int i)
{
    const gdcu_job *j = R->j;
    long cols = j->dims[1];
    size_t row = (size_t)cols * 4;
    part *q = &R->p[i];
    CK(cudaSetDevice(q->dev));
    for (int side = 0; side < 2; side++) {
        int nb = side == 0 ? i - 1 : i + 1;
        if (nb < 0 || nb >= R->np)
            continue;
        part *o = &R->p[nb];
        const float *src = side == 0 ? o->d0[0] + o->units * cols : o->d0[0] + cols;
        float *dst = side == 0 ? q->d0[0] : q->d0[0] + (q->units + 1) * cols;
        if (j->p2p) {
            CK(cudaMemcpyPeerAsync(dst, q->dev, src, o->dev, row, q->st[0]));
        } else {
            float *h = R->stage + (size_t)(2 * i + side) * cols;
            CK(cudaMemcpyAsync(h, src, row, cudaMemcpyDeviceToHost, q->st[0]));
            CK(cudaMemcpyAsync(dst, h, row, cudaMemcpyHostToDevice, q->st[0]));
        }
    }
    for (int r = 0; r < q->reps; r++)
        jacobi_k<<<grid_of(q->units * cols, j->block), j->block, 0, q->st[0]>>>(
            q->d1[0], q->d0[0], q->units, cols);
    CK(cudaGetLastError());
    return 0;
fail:
    return -1;
}

static int run_jacobi(run *R)
{
    if (jacobi_rows(R, 0) || sync_all(R))
        return -1;
    for (long it = 0; it < R->j->dims[2]; it++) {
        float phase = 0;
        for (int i = 0; i < R->np; i++)
            if (slice_begin(R, &R->p[i]) || jacobi_sweep(R, i) ||
                slice_end(R, &R->p[i], &phase))
                return -1;
        R->sliced_ms += phase;
        if (sync_all(R))
            return -1;
        for (int i = 0; i < R->np; i++) {    /* next rows become current */
            float *t = R->p[i].d0[0];
            R->p[i].d0[0] = R->p[i].d1[0];
            R->p[i].d1[0] = t;
        }
    }
    return jacobi_rows(R, 1);
}

/* ---- setup ---- */

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

static int setup_part(run *R, part *q)
{
    const gdcu_job *j = R->j;
    size_t s0, s1, s2;
    sizes_of(j, q->units, &s0, &s1, &s2);
    CK(cudaSetDevice(q->dev));
    CK(cudaEventCreate(&q->ta));
    CK(cudaEventCreate(&q->tb));
    for (int s = 0; s < q->nslot; s++) {
        CK(cudaStreamCreateWithFlags(&q->st[s], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&q->ev[s], cudaEventDisableTiming));
        CK(cudaMalloc((void **)&q->d0[s], s0 * 4));
        CK(cudaMalloc((void **)&q->d1[s], s1 * 4));
        CK(cudaMalloc((void **)&q->d2[s], s2 * 4));
        CK(cudaMemset(q->d0[s], 0, s0 * 4));    /* jacobi: zero outer halos */
        CK(cudaMemset(q->d1[s], 0, s1 * 4));
    }
    CK(cudaMalloc((void **)&q->acc, sizeof(double)));
    CK(cudaMalloc((void **)&q->junk, sizeof(double)));
    if (j->kind == K_GEMM)
        CK(cudaMalloc((void **)&q->rep, j->dims[2] * j->dims[1] * 4));
    CK(cudaDeviceSynchronize());
    return 0;
fail:
    return -1;
}

static void free_part(part *q)
{
    cudaSetDevice(q->dev);
    for (int s = 0; s < 2; s++) {
        cudaFree(q->d0[s]);
        cudaFree(q->d1[s]);
        cudaFree(q->d2[s]);
        if (q->st[s])
            cudaStreamDestroy(q->st[s]);
        if (q->ev[s])
            cudaEventDestroy(q->ev[s]);
    }
    cudaFree(q->rep);
    cudaFree(q->acc);
    cudaFree(q->junk);
    if (q->ta)
        cudaEventDestroy(q->ta);
    if (q->tb)
        cudaEventDestroy(q->tb);
}

/* The devices with work, in split order; time-sliced where two share a
 * GPU. Returns 1 (with msg) for a decision this host cannot run alone. */
static int plan_parts(run *R)
{
    const gdcu_job *j = R->j;
    for (long i = 0, off = 0; i < j->ndev; i++) {
        if (!j->dynamic && j->units[i] <= 0)
            continue;
        part *q = &R->p[R->np++];
        q->dev = j->device[i];
        q->off = j->dynamic ? 0 : off;
        q->units = j->dynamic ? j->dims[0] : j->units[i];
        long r = (long)floor(j->slowdown[i] + 0.5);
        q->reps = r < 1 ? 1 : (int)r;
        q->nslot = j->pipelined && j->kind != K_JACOBI ? 2 : 1;
        off += j->dynamic ? 0 : j->units[i];
        for (int k = 0; k < R->np - 1; k++)
            if (R->p[k].dev == q->dev)
                R->sliced = 1;
    }
    if (R->np == 0) {
        snprintf(R->msg, (size_t)R->msgsz, "no device has work");
        return -1;
    }
    if (R->sliced && j->dynamic) {
        snprintf(R->msg, (size_t)R->msgsz, "skipped: dynamic self-scheduling "
                 "needs one GPU per device (%d devices share fewer GPUs here)",
                 R->np);
        return 1;
    }
    return 0;
}

/* Outputs back to their initial pattern before each run, so each run's
 * sum checks that run's work alone. */
static int reset_outputs(run *R)
{
    const gdcu_job *j = R->j;
    if (j->kind == K_TRIAD || j->kind == K_MAP)
        gd_pattern_fill(R->ha, R->na, GD_PAT_A);
    if (j->kind == K_GEMM || j->kind == K_JACOBI)
        gd_pattern_fill(R->hc, R->nc, GD_PAT_C);
    for (int i = 0; i < R->np; i++) {
        CK(cudaSetDevice(R->p[i].dev));
        CK(cudaMemset(R->p[i].acc, 0, sizeof(double)));
        CK(cudaDeviceSynchronize());
    }
    return 0;
fail:
    return -1;
}

/* Sum of the result, as measure-cpu sums it (dot: the merged partials). */
static double result_sum(const run *R)
{
    const gdcu_job *j = R->j;
    double s = 0;
    if (j->kind == K_DOT) {
        for (int i = 0; i < R->np; i++)
            s += ((const double *)(const void *)R->stage)[i];
        return s;
    }
    const float *o = j->kind == K_GEMM || j->kind == K_JACOBI ? R->hc : R->ha;
    size_t n = j->kind == K_GEMM || j->kind == K_JACOBI ? R->nc : R->na;
    for (size_t i = 0; i < n; i++)
        s += o[i];
    return s;
}

/* One timed run: from before the first copy to after the merge
 * (time-sliced: the phases' slowest parts plus the merge). */
static int run_once(run *R, double *secs, double *sum)
{
    const gdcu_job *j = R->j;
    cudaEvent_t t0 = NULL, t1 = NULL;
    float ms = 0;
    part *p = R->p;
    int rc = -1;
    if (reset_outputs(R))
        return -1;
    R->sliced_ms = 0;
    CK(cudaSetDevice(p[0].dev));
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    if (!R->sliced) {
        CK(cudaEventRecord(t0, p[0].st[0]));
        for (int i = 0; i < R->np; i++)
            for (int s = 0; s < p[i].nslot; s++)
                if (i > 0 || s > 0) {
                    CK(cudaSetDevice(p[i].dev));
                    CK(cudaStreamWaitEvent(p[i].st[s], t0, 0));
                }
    }
    if (j->kind == K_JACOBI ? run_jacobi(R)
                            : j->dynamic ? stream_dynamic(R) : stream_static(R))
        goto fail;
    for (int i = 0; i < R->np; i++)        /* every slot has finished */
        for (int s = 0; s < p[i].nslot; s++) {
            CK(cudaSetDevice(p[i].dev));
            CK(cudaEventRecord(p[i].ev[s], p[i].st[s]));
            CK(cudaSetDevice(p[0].dev));
            CK(cudaStreamWaitEvent(p[0].st[0], p[i].ev[s], 0));
        }
    CK(cudaSetDevice(p[0].dev));
    if (R->sliced)
        CK(cudaEventRecord(t0, p[0].st[0]));
    if (j->kind == K_DOT)                  /* merge: partial sums to host */
        for (int i = 0; i < R->np; i++)
            CK(cudaMemcpyAsync((double *)(void *)R->stage + i, p[i].acc,
                               sizeof(double), cudaMemcpyDeviceToHost, p[0].st[0]));
    CK(cudaEventRecord(t1, p[0].st[0]));
    CK(cudaEventSynchronize(t1));
    CK(cudaEventElapsedTime(&ms, t0, t1));
    *secs = (ms + R->sliced_ms) * 1e-3;
    *sum = result_sum(R);
    rc = 0;
fail:
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    return rc;
}

extern "C" int gdcu_run(const gdcu_job *j, int runs, double *secs,
                        double *sums, int *sliced, char *msg, int msgsz)
{
    run RR, *R = &RR;
    int rc = -1;
    memset(R, 0, sizeof *R);
    R->j = j;
    R->msg = msg;
    R->msgsz = msgsz;
    long n = j->dims[0], N = j->dims[1], K = j->dims[2];
    R->na = j->kind == K_GEMM ? n * K : j->kind == K_JACOBI ? n * N : n;
    R->nb = j->kind == K_GEMM ? K * N : n;
    R->nc = j->kind == K_GEMM ? n * N : j->kind == K_JACOBI ? n * N : n;
    int planned = plan_parts(R);
    *sliced = R->sliced;
    if (planned)
        return planned;
    CK(cudaMallocHost((void **)&R->ha, R->na * 4));
    CK(cudaMallocHost((void **)&R->hb, R->nb * 4));
    CK(cudaMallocHost((void **)&R->hc, R->nc * 4));
    CK(cudaMallocHost((void **)&R->stage, 2 * GDCU_MAXDEV * (size_t)(N > 2 ? N : 2) * 4));
    gd_pattern_fill(R->ha, R->na, GD_PAT_A);
    gd_pattern_fill(R->hb, R->nb, GD_PAT_B);
    gd_pattern_fill(R->hc, R->nc, GD_PAT_C);
    for (int i = 0; i < R->np; i++)
        if (setup_part(R, &R->p[i]))
            goto fail;
    for (int k = 0; k < runs; k++)
        if (run_once(R, &secs[k], &sums[k]))
            goto fail;
    rc = 0;
fail:
    for (int i = 0; i < R->np; i++)
        free_part(&R->p[i]);
    cudaFreeHost(R->ha);
    cudaFreeHost(R->hb);
    cudaFreeHost(R->hc);
    cudaFreeHost(R->stage);
    return rc;
}

/* Host<->device copies of `bytes` from/to pinned memory on device dev:
 * secs[k] is run k's time per copy (cudaEvents around `rounds` copies in
 * one stream), the ladder that calibration fits the link's latency and
 * bandwidth from. */
extern "C" int gdcu_copy(int dev, size_t bytes, int h2d, int rounds, int runs,
                         double *secs, char *msg, int msgsz)
{
    run RR, *R = &RR;
    memset(R, 0, sizeof *R);
    R->msg = msg;
    R->msgsz = msgsz;
    void *h = NULL, *d = NULL;
    cudaStream_t st = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    int rc = -1;
    CK(cudaSetDevice(dev));
    CK(cudaMallocHost(&h, bytes));
    CK(cudaMalloc(&d, bytes));
    memset(h, 1, bytes);
    CK(cudaMemset(d, 0, bytes));
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    CK(cudaDeviceSynchronize());
    for (int k = 0; k < runs; k++) {
        float ms = 0;
        CK(cudaEventRecord(t0, st));
        for (int r = 0; r < rounds; r++)
            CK(h2d ? cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st)
                   : cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, st));
        CK(cudaEventRecord(t1, st));
        CK(cudaEventSynchronize(t1));
        CK(cudaEventElapsedTime(&ms, t0, t1));
        secs[k] = ms * 1e-3 / rounds;
    }
    rc = 0;
fail:
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    if (st)
        cudaStreamDestroy(st);
    cudaFree(d);
    cudaFreeHost(h);
    return rc;
}
