/* measure: measure-cpu — real fp32 kernels of the five task classes run on
 * POSIX worker threads that stand in for devices. Each device copies its
 * chunk in from host arrays (memcpy: the host->device transfer), runs the
 * kernel, stretches the kernel time by its induced slowdown (busy wait),
 * and copies the result out. Jacobi devices keep their rows resident and
 * swap halo rows each sweep (p2p: straight from the neighbour; host:
 * through a host staging row). Timed with CLOCK_MONOTONIC. Also the
 * exact result a correct split must produce (both measured backends check
 * every run against it) and the probe of this machine's cores; measure-cuda
 * is measure_cuda.c. */
#define _GNU_SOURCE             /* CPU_SET, pthread_attr_setaffinity_np */
#include "measure.h"
#include "cuda/gd_cuda.h"      /* the data pattern; the kernels' interface */

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Stretch a kernel that started at k0 to slowdown x its own duration. */
static void stretch(double k0, double slowdown)
{
    if (slowdown <= 1.0)
        return;
    double el = now_s() - k0, until = k0 + slowdown * el;
    while (now_s() < until)
        ;
}

void ms_summarise(double *x, int n, ms_stat *out)
{
    gsl_sort(x, 1, (size_t)n);
    out->n = n;
    out->dropped = out->contended = 0;
    out->median = gsl_stats_median_from_sorted_data(x, 1, (size_t)n);
    out->q1 = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.25);
    out->q3 = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.75);
}

int ms_opts_repeats(const ms_opts *o, int *warm)
{
    *warm = o->warmups > 0 ? o->warmups : 0;
    return o->repeats > 0 ? o->repeats : 1;
}

/* ---- kernels (fp32) ---- */

static void k_triad(float *a, const float *b, const float *c, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = b[i] + 3.0f * c[i];
}

static double k_dot(const float *b, const float *c, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)b[i] * c[i];
    return s;
}

/* rows x K times K x N into rows x N. */
static void k_gemm(float *c, const float *a, const float *b, long rows,
                   long n, long k)
{
    for (long r = 0; r < rows; r++) {
        float *cr = c + r * n;
        memset(cr, 0, (size_t)n * sizeof *cr);
        for (long p = 0; p < k; p++) {
            float av = a[r * k + p];
            const float *bp = b + p * n;
            for (long j = 0; j < n; j++)
                cr[j] += av * bp[j];
        }
    }
}

/* Rows 1..rows of out from in (row 0 and rows+1 are halos). */
static void k_jacobi(float *out, const float *in, long rows, long cols)
{
    for (long r = 1; r <= rows; r++) {
        const float *up = in + (r - 1) * cols, *me = in + r * cols,
                    *dn = in + (r + 1) * cols;
        float *o = out + r * cols;
        o[0] = me[0];
        o[cols - 1] = me[cols - 1];
        for (long c = 1; c + 1 < cols; c++)
            o[c] = 0.2f * (me[c] + up[c] + dn[c] + me[c - 1] + me[c + 1]);
    }
}

static void k_map(float *out, const float *in, long n, long k)
{
    for (long i = 0; i < n; i++) {
        float x = in[i];
        for (long j = 0; j < k; j++)
            x = x * 0.999999f + 0.5f;
        out[i] = x;
    }
}

/* Independent multiply-adds across a cache-resident array: the core's
 * arithmetic peak as plain C reaches it (the probe's FLOP/s). */
static void k_peak(float *x, long n, long k)
{
    for (long j = 0; j < k; j++)
        for (long i = 0; i < n; i++)
            x[i] = x[i] * 0.999999f + 0.5f;
}

/* ---- a spinning barrier ----
 * Devices meet without sleeping, as GPU streams synchronise: a thread
 * that slept in the kernel could find its core taken when it wakes, a
 * delay nothing would notice; a spinning one is preempted instead, which
 * its involuntary-switch count shows (and the repeat is dropped). Where
 * threads outnumber cores the spin yields now and then. */
typedef struct {
    atomic_int count, sense;
    int n;
} spin_bar;

static void spin_init(spin_bar *b, int n)
{
    atomic_store(&b->count, 0);
    atomic_store(&b->sense, 0);
    b->n = n;
}

static void spin_wait(spin_bar *b, int *local)
{
    *local = !*local;
    if (atomic_fetch_add(&b->count, 1) == b->n - 1) {
        atomic_store(&b->count, 0);
        atomic_store(&b->sense, *local);
        return;
    }
    for (long i = 1; atomic_load(&b->sense) != *local; i++)
        if (i % 4096 == 0)
            sched_yield();
}

/* ---- one measured run ---- */

typedef struct {
    const cm_machine *m;
    const cm_task *t;
    const cm_decision *d;
    cm_shape s;
    long units;
    float *ha, *hb, *hc;                  /* host arrays */
    long off[CM_MAXDEV], cnt[CM_MAXDEV];   /* static slices */
    atomic_long next;                      /* dynamic queue: next unit */
    double partial[CM_MAXDEV];
    int nact, act[CM_MAXDEV];              /* positions in d with work */
    spin_bar bar;
    float *stage;                          /* jacobi host staging rows */
    /* Device memory, allocated and touched before any timed run (as GPU
     * memory would be): chunk buffers, replicated data, jacobi rows. */
    float *p0[CM_MAXDEV], *p1[CM_MAXDEV], *p2[CM_MAXDEV];
    float *rep[CM_MAXDEV], *ja[CM_MAXDEV], *jb[CM_MAXDEV];
    int failed;
    double dot;                            /* merged dot product */
} run_t;

typedef struct {
    run_t *r;
    int pos;                               /* position in d */
    int rank;                              /* position among active devices */
    long preempted;                        /* involuntary switches while working */
    double created, started, ended;        /* CLOCK_MONOTONIC seconds */
} worker_t;

static double slowdown_of(const run_t *r, int pos)
{
    return r->m->dev[r->d->idx[pos]].slowdown.v;
}

/* One chunk [u0, u0+n) of a streaming class through private buffers. */
static void chunk_stream(run_t *r, int pos, long u0, long n, float *p0,
                         float *p1, float *p2, const float *rep, double *acc)
{
    const cm_task *t = r->t;
    double sd = slowdown_of(r, pos), k0;
    switch (t->kind) {
    case CM_TRIAD:
        memcpy(p1, r->hb + u0, (size_t)n * 4);
        memcpy(p2, r->hc + u0, (size_t)n * 4);
        k0 = now_s();
        k_triad(p0, p1, p2, n);
        stretch(k0, sd);
        memcpy(r->ha + u0, p0, (size_t)n * 4);
        break;
    case CM_DOT:
        memcpy(p1, r->hb + u0, (size_t)n * 4);
        memcpy(p2, r->hc + u0, (size_t)n * 4);
        k0 = now_s();
        *acc += k_dot(p1, p2, n);
        stretch(k0, sd);
        break;
    case CM_GEMM: {
        long N = t->dims[1], K = t->dims[2];
        memcpy(p1, r->ha + u0 * K, (size_t)(n * K) * 4);
        k0 = now_s();
        k_gemm(p0, p1, rep, n, N, K);
        stretch(k0, sd);
        memcpy(r->hc + u0 * N, p0, (size_t)(n * N) * 4);
        break;
    }
    default: /* map */
        memcpy(p1, r->hb + u0, (size_t)n * 4);
        k0 = now_s();
        k_map(p0, p1, n, t->dims[1]);
        stretch(k0, sd);
        memcpy(r->ha + u0, p0, (size_t)n * 4);
    }
}

static void stream_work(worker_t *w)
{
    run_t *r = w->r;
    const cm_task *t = r->t;
    int pos = w->pos;
    long chunk = r->d->chunk;
    float *p0 = r->p0[pos], *p1 = r->p1[pos], *p2 = r->p2[pos],
          *rep = r->rep[pos];
    if (t->kind == CM_GEMM)        /* replicate B onto the device */
        memcpy(rep, r->hb, (size_t)(t->dims[1] * t->dims[2]) * 4);
    if (r->d->dynamic) {
        for (;;) {
            long u0 = atomic_fetch_add(&r->next, chunk);
            if (u0 >= r->units)
                break;
            long n = r->units - u0 < chunk ? r->units - u0 : chunk;
            chunk_stream(r, pos, u0, n, p0, p1, p2, rep, &r->partial[pos]);
        }
    } else {
        long end = r->off[pos] + r->cnt[pos];
        for (long u0 = r->off[pos]; u0 < end; u0 += chunk) {
            long n = end - u0 < chunk ? end - u0 : chunk;
            chunk_stream(r, pos, u0, n, p0, p1, p2, rep, &r->partial[pos]);
        }
    }
}

/* Copy one row to a neighbour: straight (p2p) or through a host staging
 * row (device -> host -> device). */
static void send_row(run_t *r, int rank, int side, float *dst,
                     const float *src, long cols)
{
    size_t row = (size_t)cols * 4;
    if (r->d->path == CM_P2P) {
        memcpy(dst, src, row);
        return;
    }
    float *st = r->stage + (size_t)(2 * rank + side) * (size_t)cols;
    memcpy(st, src, row);
    memcpy(dst, st, row);
}

/* The buffer device pos computes into during sweep it (a/b alternate). */
static float *next_of(run_t *r, int pos, long it)
{
    return it % 2 == 0 ? r->jb[pos] : r->ja[pos];
}

/* Jacobi: rows resident; each sweep computes the next rows, pushes the two
 * boundary rows into the neighbours' next buffers (halo exchange), and
 * meets the others at one barrier. */
static void jacobi_work(worker_t *w)
{
    run_t *r = w->r;
    long cols = r->t->dims[1], iters = r->t->dims[2];
    int pos = w->pos, rank = w->rank;
    long rows = r->cnt[pos], off = r->off[pos], chunk = r->d->chunk;
    int up = rank > 0 ? r->act[rank - 1] : -1;
    int down = rank + 1 < r->nact ? r->act[rank + 1] : -1;
    float *a = r->ja[pos];
    double sd = slowdown_of(r, pos);
    for (long u = 0; u < rows; u += chunk) {   /* host -> device, chunked */
        long n = rows - u < chunk ? rows - u : chunk;
        memcpy(a + (1 + u) * cols, r->ha + (off + u) * cols,
               (size_t)(n * cols) * 4);
    }
    int sense = 0;
    spin_wait(&r->bar, &sense);                /* every slice loaded */
    if (up >= 0)                               /* first halos: pull */
        send_row(r, rank, 0, a, r->ja[up] + r->cnt[up] * cols, cols);
    if (down >= 0)
        send_row(r, rank, 1, a + (rows + 1) * cols, r->ja[down] + cols, cols);
    for (long it = 0; it < iters; it++) {
        float *cur = it % 2 == 0 ? r->ja[pos] : r->jb[pos];
        float *nxt = next_of(r, pos, it);
        double k0 = now_s();
        for (long u = 0; u < rows; u += chunk) {
            long n = rows - u < chunk ? rows - u : chunk;
            k_jacobi(nxt + u * cols, cur + u * cols, n, cols);
        }
        stretch(k0, sd);
        if (it + 1 < iters) {                  /* push boundary rows */
            if (up >= 0)
                send_row(r, rank, 0, next_of(r, up, it) + (r->cnt[up] + 1) * cols,
                         nxt + cols, cols);
            if (down >= 0)
                send_row(r, rank, 1, next_of(r, down, it), nxt + rows * cols, cols);
        }
        spin_wait(&r->bar, &sense);
    }
    float *fin = iters % 2 == 0 ? r->ja[pos] : r->jb[pos];
    for (long u = 0; u < rows; u += chunk) {   /* device -> host */
        long n = rows - u < chunk ? rows - u : chunk;
        memcpy(r->hc + (off + u) * cols, fin + (1 + u) * cols,
               (size_t)(n * cols) * 4);
    }
}

/* Involuntary context switches of the calling thread so far: each one is
 * another runnable task taking this device's core, a contention Eq. (1)
 * does not describe. */
static long preemptions(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

/* A device thread that waited this long for its core before it ran
 * found the core taken (a quiet start takes tens of microseconds). */
#define START_LATE_S 200e-6

static void *device_thread(void *arg)
{
    worker_t *w = arg;
    w->started = now_s();
    long p0 = preemptions();
    if (w->r->t->kind == CM_JACOBI)
        jacobi_work(w);
    else
        stream_work(w);
    w->preempted = preemptions() - p0 + (w->started - w->created > START_LATE_S);
    w->ended = now_s();
    return NULL;
}

/* Allocate and touch every device buffer (outside the timed runs). */
static int alloc_devices(run_t *r, gd_err *err)
{
    const cm_task *t = r->t;
    long chunk = r->d->chunk, f0 = 1, f1 = 1, f2 = 1;
    if (t->kind == CM_GEMM) {
        f0 = t->dims[1];
        f1 = t->dims[2];
        f2 = 0;
    }
    for (int k = 0; k < r->nact; k++) {
        int pos = r->act[k];
        long c = r->d->dynamic || r->cnt[pos] > chunk ? chunk : r->cnt[pos];
        if (t->kind == CM_JACOBI) {
            size_t sz = (size_t)((r->cnt[pos] + 2) * t->dims[1]);
            r->ja[pos] = calloc(sz, 4);
            r->jb[pos] = calloc(sz, 4);
            if (!r->ja[pos] || !r->jb[pos])
                return gd_errf(err, GD_EENV, "measure-cpu: out of memory");
            memset(r->ja[pos], 0, sz * 4);
            memset(r->jb[pos], 0, sz * 4);
            continue;
        }
        size_t n0 = (size_t)(c * f0) + 16, n1 = (size_t)(c * f1) + 16,
               n2 = (size_t)(c * f2) + 16;
        r->p0[pos] = malloc(n0 * 4);
        r->p1[pos] = malloc(n1 * 4);
        r->p2[pos] = malloc(n2 * 4);
        if (!r->p0[pos] || !r->p1[pos] || !r->p2[pos])
            return gd_errf(err, GD_EENV, "measure-cpu: out of memory");
        memset(r->p0[pos], 0, n0 * 4);
        memset(r->p1[pos], 0, n1 * 4);
        memset(r->p2[pos], 0, n2 * 4);
        if (t->kind == CM_GEMM) {
            size_t nb = (size_t)(t->dims[1] * t->dims[2]);
            r->rep[pos] = calloc(nb, 4);
            if (!r->rep[pos])
                return gd_errf(err, GD_EENV, "measure-cpu: out of memory");
            memset(r->rep[pos], 0, nb * 4);
        }
    }
    return GD_OK;
}

static void free_devices(run_t *r)
{
    for (int i = 0; i < CM_MAXDEV; i++) {
        free(r->p0[i]);
        free(r->p1[i]);
        free(r->p2[i]);
        free(r->rep[i]);
        free(r->ja[i]);
        free(r->jb[i]);
    }
}

static int alloc_host(run_t *r, gd_err *err)
{
    const cm_task *t = r->t;
    long a = 0, b = 0, c = 0, n = t->dims[0];
    switch (t->kind) {
    case CM_TRIAD: a = b = c = n; break;
    case CM_DOT: b = c = n; break;
    case CM_GEMM: a = n * t->dims[2]; b = t->dims[2] * t->dims[1]; c = n * t->dims[1]; break;
    case CM_JACOBI: a = c = n * t->dims[1]; break;
    default: a = b = n;
    }
    r->ha = a ? malloc((size_t)a * 4) : NULL;
    r->hb = b ? malloc((size_t)b * 4) : NULL;
    r->hc = c ? malloc((size_t)c * 4) : NULL;
    r->stage = malloc((size_t)(2 * CM_MAXDEV * (t->kind == CM_JACOBI ? t->dims[1] : 1)) * 4);
    if ((a && !r->ha) || (b && !r->hb) || (c && !r->hc) || !r->stage)
        return gd_errf(err, GD_EENV, "measure-cpu: out of memory for %s",
                       cm_kind_name(t->kind));
    gd_pattern_fill(r->ha, (size_t)a, GD_PAT_A);
    gd_pattern_fill(r->hb, (size_t)b, GD_PAT_B);
    gd_pattern_fill(r->hc, (size_t)c, GD_PAT_C);
    return GD_OK;
}

static void free_host(run_t *r)
{
    free(r->ha);
    free(r->hb);
    free(r->hc);
    free(r->stage);
}

/* One timed run: threads start, work, join; partial sums merged.
 * *preempted: involuntary switches of the device threads during it. */
static int run_once(run_t *r, double *secs, long *preempted, gd_err *err)
{
    pthread_t th[CM_MAXDEV];
    worker_t w[CM_MAXDEV];
    int jac = r->t->kind == CM_JACOBI, started = 0;
    atomic_store(&r->next, 0);
    memset(r->partial, 0, sizeof r->partial);
    r->failed = 0;
    double t0 = now_s();
    spin_init(&r->bar, r->nact);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    for (int k = 0; k < r->nact; k++) {
        w[k] = (worker_t){r, r->act[k], k, 0, now_s(), 0, 0};
        /* device i runs on core i: the probe describes cores as devices */
        pthread_attr_t at;
        int pinned = cores >= r->m->ndev && pthread_attr_init(&at) == 0;
        if (pinned) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET((int)(r->d->idx[r->act[k]] % cores), &set);
            pthread_attr_setaffinity_np(&at, sizeof set, &set);
        }
        int rc = pthread_create(&th[k], pinned ? &at : NULL, device_thread, &w[k]);
        if (rc != 0 && pinned)    /* affinity refused: run unpinned */
            rc = pthread_create(&th[k], NULL, device_thread, &w[k]);
        if (pinned)
            pthread_attr_destroy(&at);
        if (rc != 0)
            break;
        started++;
    }
    *preempted = 0;
    double last = t0;
    for (int k = 0; k < started; k++) {
        pthread_join(th[k], NULL);
        *preempted += w[k].preempted;
        last = fmax(last, w[k].ended);
    }
    /* timed to the last device's end, not to this thread's wake-up after
     * the joins (which another task may delay), plus the merge */
    double m0 = now_s(), sum = 0;
    for (int i = 0; i < r->d->n; i++)
        sum += r->partial[i];
    *secs = last - t0 + (now_s() - m0);
    r->dot = sum;
    if (started < r->nact && jac)
        return gd_errf(err, GD_EENV, "measure-cpu: cannot start threads");
    if (started < r->nact || r->failed || !isfinite(sum))
        return gd_errf(err, GD_EENV, "measure-cpu: a device thread failed "
                       "(threads or memory)");
    return GD_OK;
}

/* Sum of the task's result (the merged dot product for dot). */
static double checksum(const run_t *r)
{
    const cm_task *t = r->t;
    if (t->kind == CM_DOT)
        return r->dot;
    const float *o = t->kind == CM_GEMM || t->kind == CM_JACOBI ? r->hc : r->ha;
    long n = t->kind == CM_GEMM || t->kind == CM_JACOBI ? t->dims[0] * t->dims[1]
                                                        : t->dims[0];
    double s = 0;
    for (long i = 0; i < n; i++)
        s += o[i];
    return s;
}

/* Repeats until `reps` of them ran with no device thread preempted or
 * started late (at most MAX_EXTRA x reps more attempts, backing off for up
 * to MAX_WAIT_S in all): on a shared machine another task may take a
 * device's core mid-run, and such a repeat times the sharing, not the
 * split. When the cores are never quiet for long enough, the contended
 * repeats fill the rest (out->contended says how many). */
#define MAX_EXTRA 7
#define MAX_WAIT_S 1.0
static int timed_repeats(run_t *r, int reps, int warm, double *x, double *y,
                         ms_stat *out, gd_err *err)
{
    int clean = 0, busy = 0, dropped = 0;
    double waited = 0, pause = 1e-3;
    for (int i = 0; clean < reps && i < warm + (1 + MAX_EXTRA) * reps; i++) {
        double s = 0;
        long pre = 0;
        int rc = run_once(r, &s, &pre, err);
        if (rc)
            return rc;
        if (i < warm)
            continue;
        if (pre == 0) {
            x[clean++] = s;
            pause = 1e-3;
            continue;
        }
        dropped++;
        if (busy < reps)
            y[busy++] = s;
        if (waited >= MAX_WAIT_S)
            break;
        /* let the other task have its turn: back off up to 32 ms */
        usleep((useconds_t)(pause * 1e6));
        waited += pause;
        pause = fmin(2 * pause, 32e-3);
    }
    int kept_busy = 0;
    while (clean < reps && kept_busy < busy)
        x[clean++] = y[kept_busy++];
    ms_summarise(x, clean, out);
    out->dropped = dropped - kept_busy;
    out->contended = kept_busy;
    return GD_OK;
}

static void plan_slices(run_t *r)
{
    double u[CM_MAXDEV];
    cm_round_units(r->d->share, r->d->n, (double)r->units, u);
    long off = 0;
    r->nact = 0;
    for (int i = 0; i < r->d->n; i++) {
        r->off[i] = off;
        r->cnt[i] = (long)u[i];
        off += r->cnt[i];
        if (r->d->dynamic || r->cnt[i] > 0)
            r->act[r->nact++] = i;
    }
}

int ms_run_cpu(const cm_machine *m, const cm_task *t, const cm_decision *d,
               const ms_opts *o, ms_stat *out, gd_err *err)
{
    if (t->dtype_bytes != 4)
        return gd_errf(err, GD_EINPUT, "measure-cpu runs fp32 kernels only");
    if (t->kind == CM_JACOBI && d->dynamic)
        return gd_errf(err, GD_EINPUT, "measure-cpu: jacobi keeps rows "
                       "resident; dynamic self-scheduling does not apply");
    for (int i = 0; i < d->n; i++)
        if (strcmp(m->dev[d->idx[i]].kind, "cpu") != 0)
            return gd_errf(err, GD_EINPUT, "measure-cpu: device %s is not a "
                           "cpu device of this machine", d->dev[i]);
    run_t r;
    memset(&r, 0, sizeof r);
    r.m = m;
    r.t = t;
    r.d = d;
    cm_task_shape(t, &r.s);
    r.units = (long)r.s.units;
    plan_slices(&r);
    int rc = alloc_host(&r, err);
    if (!rc)
        rc = alloc_devices(&r, err);
    int warm, reps = ms_opts_repeats(o, &warm);
    double *x = rc ? NULL : malloc(sizeof *x * (size_t)reps);
    double *y = rc ? NULL : malloc(sizeof *y * (size_t)reps);
    if (!rc && (!x || !y))
        rc = gd_errf(err, GD_EENV, "out of memory");
    if (!rc)
        rc = timed_repeats(&r, reps, warm, x, y, out, err);
    double want = 0;
    if (!rc)
        rc = ms_reference_sum(t, &want, err);
    if (!rc) {
        out->checksum = checksum(&r);
        rc = ms_check_sum("measure-cpu", reps + warm, out->checksum, want, err);
    }
    free(y);
    free(x);
    free_host(&r);
    free_devices(&r);
    return rc;
}

/* ---- link ladder ---- */

typedef struct {
    spin_bar *bar;                /* the barrier the jacobi devices use */
    float *mine;
    const float *theirs;
    size_t bytes;
    int rounds;
} link_arg;

static void *link_worker(void *arg)
{
    link_arg *l = arg;
    int sense = 0;
    for (int i = 0; i < l->rounds; i++) {
        memcpy(l->mine, l->theirs, l->bytes);
        spin_wait(l->bar, &sense);
    }
    return NULL;
}

int ms_link_cpu(const cm_machine *m, int a, int b, size_t bytes, int rounds,
                const ms_opts *o, ms_stat *out, gd_err *err)
{
    if (a == b || a < 0 || b < 0 || a >= m->ndev || b >= m->ndev)
        return gd_errf(err, GD_EINPUT, "link ladder needs two devices");
    float *buf[2] = {malloc(bytes + 64), malloc(bytes + 64)};
    int reps = o->repeats > 0 ? o->repeats : 1, total = reps + o->warmups;
    double *x = malloc(sizeof *x * (size_t)reps);
    int rc = buf[0] && buf[1] && x ? GD_OK
                                   : gd_errf(err, GD_EENV, "out of memory");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    for (int k = 0; !rc && k < 2; k++)
        memset(buf[k], k + 1, bytes + 64);
    for (int r = 0; !rc && r < total; r++) {
        spin_bar bar;
        spin_init(&bar, 2);
        link_arg la[2] = {{&bar, buf[0], buf[1], bytes, rounds},
                          {&bar, buf[1], buf[0], bytes, rounds}};
        pthread_t th[2];
        int made = 0;
        double t0 = now_s();
        for (int k = 0; k < 2; k++) {
            pthread_attr_t at;
            int pinned = cores >= m->ndev && pthread_attr_init(&at) == 0;
            if (pinned) {
                cpu_set_t set;
                CPU_ZERO(&set);
                CPU_SET((int)((k ? b : a) % cores), &set);
                pthread_attr_setaffinity_np(&at, sizeof set, &set);
            }
            int c = pthread_create(&th[k], pinned ? &at : NULL, link_worker, &la[k]);
            if (c != 0 && pinned)
                c = pthread_create(&th[k], NULL, link_worker, &la[k]);
            if (pinned)
                pthread_attr_destroy(&at);
            if (c != 0)
                break;
            made++;
        }
        if (made == 0) {
            rc = gd_errf(err, GD_EENV, "cannot start link threads");
            break;
        }
        if (made == 1)                   /* no second thread: this one stands in */
            link_worker(&la[1]);
        for (int k = 0; k < made; k++)
            pthread_join(th[k], NULL);
        double t = (now_s() - t0) / rounds;
        if (r >= o->warmups)
            x[r - o->warmups] = t;
    }
    if (!rc)
        ms_summarise(x, reps, out);
    free(x);
    free(buf[0]);
    free(buf[1]);
    return rc;
}

/* ---- probe ---- */

static double median_of(double *x, int n)
{
    ms_stat s;
    ms_summarise(x, n, &s);
    return s.median;
}

static double probe_kernel_rate(int kind, long n, long k)
{
    float *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4),
          *c = malloc((size_t)n * 4);
    double x[5], rate = 0;
    if (a && b && c) {
        for (long i = 0; i < n; i++)
            b[i] = c[i] = (float)(i % 7);
        for (int r = 0; r < 6; r++) {
            double t0 = now_s();
            if (kind == CM_MAP)
                k_peak(a, n, k);
            else
                k_triad(a, b, c, n);
            if (r > 0)
                x[r - 1] = now_s() - t0;
        }
        double t = median_of(x, 5);
        rate = kind == CM_MAP ? 2.0 * k * n / t : 12.0 * n / t;
    }
    free(a);
    free(b);
    free(c);
    return rate;
}

/* memcpy ladder, fitted t = lat + bytes/bw. */
static void probe_copy(double *bw, double *lat)
{
    enum { NS = 6 };
    double bytes[NS], t[NS];
    size_t max = (size_t)16 << 20;
    char *src = malloc(max), *dst = malloc(max);
    *bw = 1e9;
    *lat = 1e-6;
    if (!src || !dst) {
        free(src);
        free(dst);
        return;
    }
    memset(src, 1, max);
    memset(dst, 2, max);
    for (int i = 0; i < NS; i++) {
        size_t n = (size_t)1 << (14 + 2 * i);       /* 16 KiB .. 16 MiB */
        if (n > max)
            n = max;
        double x[5];
        for (int r = 0; r < 6; r++) {
            double t0 = now_s();
            memcpy(dst, src, n);
            if (r > 0)
                x[r - 1] = now_s() - t0;
        }
        bytes[i] = (double)n;
        t[i] = median_of(x, 5);
    }
    double c0, c1, v00, v01, v11, ss;
    gsl_fit_linear(bytes, 1, t, 1, NS, &c0, &c1, &v00, &v01, &v11, &ss);
    if (c1 > 0)
        *bw = 1.0 / c1;
    *lat = c0 > 0 ? c0 : 0;
    free(src);
    free(dst);
}

static void *noop_thread(void *arg)
{
    return arg;
}

typedef struct {
    pthread_barrier_t *bar;
    int rounds;
} ping_t;

static void *ping_thread(void *arg)
{
    ping_t *p = arg;
    for (int i = 0; i < p->rounds; i++)
        pthread_barrier_wait(p->bar);
    return NULL;
}

static void probe_threads(ms_probe *p)
{
    enum { K = 4 };
    double n[K], t[K];
    for (int k = 1; k <= K; k++) {
        double x[15];
        for (int r = 0; r < 15; r++) {
            pthread_t th[K];
            double t0 = now_s();
            int made = 0;
            for (int i = 0; i < k; i++)
                made += pthread_create(&th[made], NULL, noop_thread, NULL) == 0;
            for (int i = 0; i < made; i++)
                pthread_join(th[i], NULL);
            x[r] = now_s() - t0;
        }
        n[k - 1] = k;
        t[k - 1] = x[0];       /* fastest start: scheduler noise only adds */
        for (int r = 1; r < 15; r++)
            t[k - 1] = fmin(t[k - 1], x[r]);
    }
    double c0, c1, v00, v01, v11, ss;
    gsl_fit_linear(n, 1, t, 1, K, &c0, &c1, &v00, &v01, &v11, &ss);
    p->setup_s = c0 > 0 ? c0 : 0;
    p->setup_dev_s = c1 > 0 ? c1 : t[0];
    pthread_barrier_t bar;
    p->sync_lat = 5e-6;
    if (pthread_barrier_init(&bar, NULL, 2) == 0) {
        ping_t pg = {&bar, 2000};
        pthread_t th;
        double t0 = now_s();
        if (pthread_create(&th, NULL, ping_thread, &pg) == 0) {
            ping_thread(&pg);
            pthread_join(th, NULL);
            p->sync_lat = (now_s() - t0) / pg.rounds;
        }
        pthread_barrier_destroy(&bar);
    }
}

int ms_probe_cpu(ms_probe *p, gd_err *err)
{
    memset(p, 0, sizeof *p);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    p->cores = cores > 0 ? (int)cores : 1;
    p->mem_bytes = pages > 0 && psz > 0 ? (double)pages * (double)psz : 1e9;
    p->flops = probe_kernel_rate(CM_MAP, 1 << 12, 2048);
    p->stream_bw = probe_kernel_rate(CM_TRIAD, 1 << 21, 0);
    probe_copy(&p->copy_bw, &p->copy_lat);
    probe_threads(p);
    /* per-chunk dispatch: a one-element kernel call */
    volatile float sink = 0;
    float a[2] = {0}, b[2] = {1, 1};
    double t0 = now_s();
    for (int i = 0; i < 10000; i++) {
        b[0] = (float)i;
        k_map(a, b, 1, 1);
        sink += a[0];
    }
    p->launch_s = (now_s() - t0) / 10000;
    (void)sink;
    if (p->flops <= 0 || p->stream_bw <= 0)
        return gd_errf(err, GD_EENV, "machine probe: out of memory");
    return GD_OK;
}

/* ---- the exact result a correct split must produce ---- */

/* The initial data (gd_pattern) as doubles: its values are exact. */
static double pat_a(long i) { return gd_pattern(GD_PAT_A, (size_t)i); }
static double pat_b(long i) { return gd_pattern(GD_PAT_B, (size_t)i); }
static double pat_c(long i) { return gd_pattern(GD_PAT_C, (size_t)i); }

/* Jacobi has no shortcut: the sweeps, serially, with k_jacobi. */
static int jacobi_reference(const cm_task *t, double *sum, gd_err *err)
{
    long rows = t->dims[0], cols = t->dims[1];
    size_t cells = (size_t)(rows + 2) * (size_t)cols;
    float *a = calloc(cells, 4), *b = calloc(cells, 4);
    if (!a || !b) {
        free(a);
        free(b);
        return gd_errf(err, GD_EENV, "out of memory for the jacobi reference");
    }
    for (long i = 0; i < rows * cols; i++)
        a[cols + i] = (float)pat_a(i);
    for (long it = 0; it < t->dims[2]; it++) {
        k_jacobi(b, a, rows, cols);
        float *x = a;
        a = b;
        b = x;
    }
    double s = 0;
    for (long i = 0; i < rows * cols; i++)
        s += a[cols + i];
    *sum = s;
    free(a);
    free(b);
    return GD_OK;
}

/* Sum of task t's result from the initial pattern alone, whatever the
 * split: triad and dot directly; gemm as sum_p (col sum of A)(row sum of
 * B); map from the 13 distinct inputs (float arithmetic, as k_map). The
 * pattern's values are small multiples of 1/32, so every class but map is
 * exact in fp32 too. */
int ms_reference_sum(const cm_task *t, double *sum, gd_err *err)
{
    long n = t->dims[0], N = t->dims[1], K = t->dims[2];
    double s = 0;
    switch (t->kind) {
    case CM_TRIAD:
        for (long i = 0; i < n; i++)
            s += pat_b(i) + 3.0 * pat_c(i);
        break;
    case CM_DOT:
        for (long i = 0; i < n; i++)
            s += pat_b(i) * pat_c(i);
        break;
    case CM_GEMM:
        for (long p = 0; p < K; p++) {
            double ca = 0, rb = 0;
            for (long r = 0; r < n; r++)
                ca += pat_a(r * K + p);
            for (long j = 0; j < N; j++)
                rb += pat_b(p * N + j);
            s += ca * rb;
        }
        break;
    case CM_JACOBI:
        return jacobi_reference(t, sum, err);
    default: /* map */
        for (long v = 0; v < 13 && v < n; v++) {
            float x = (float)pat_b(v), out;
            k_map(&out, &x, 1, N);
            s += (double)out * (double)((n - 1 - v) / 13 + 1);
        }
    }
    *sum = s;
    return GD_OK;
}

/* A run's sum against the exact one: fp32 rounding (a GPU's fused
 * multiply-adds in map) stays far inside 1e-5; a chunk computed twice,
 * missed or misplaced does not. */
static int sum_matches(double got, double want)
{
    return fabs(got - want) <= 1e-5 * fabs(want) + 1e-9;
}

int ms_check_sum(const char *backend, int run, double got, double want,
                 gd_err *err)
{
    if (sum_matches(got, want))
        return GD_OK;
    return gd_errf(err, GD_EENV, "%s: run %d's result sums to %.17g, the "
                   "task's exact result to %.17g: the split computed "
                   "something else (not timed as a result)", backend, run,
                   got, want);
}
