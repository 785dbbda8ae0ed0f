/* measure_cuda: measure-cuda — the split decision run by the CUDA kernels
 * of cuda/ (built only where nvcc exists) on the GPUs that answer, every
 * run's result checked against ms_reference_sum, warm-ups discarded,
 * repeats summarised by median and IQR: MEASURED(cuda). Without a GPU, or
 * built without nvcc, every call says "no CUDA device: skipped". */
#include "measure.h"
#include "cuda/gd_cuda.h"      /* the kernels' interface */

#include <stdlib.h>
#include <string.h>

#ifdef GPUDSE_HAVE_CUDA

int ms_cuda_devices(void)
{
    return gdcu_device_count();
}

/* The GPUs that answer (*have), or the "skipped" error where none does. */
static int cuda_gpus(ms_stat *out, int *have, gd_err *err)
{
    out->skipped = out->time_sliced = 0;
    *have = gdcu_device_count();
    if (*have <= 0)
        return gd_errf(err, GD_EENV, "no CUDA device: skipped (measure-cuda "
                       "found no GPU that answers)");
    return GD_OK;
}

static void cuda_job(const cm_machine *m, const cm_task *t,
                     const cm_decision *d, int have, gdcu_job *j)
{
    memset(j, 0, sizeof *j);
    j->kind = t->kind;
    for (int i = 0; i < 3; i++)
        j->dims[i] = t->dims[i];
    j->ndev = d->n;
    cm_shape s;
    cm_task_shape(t, &s);
    double u[CM_MAXDEV];
    cm_round_units(d->share, d->n, s.units, u);
    for (int i = 0; i < d->n; i++) {
        j->device[i] = d->idx[i] % have;
        j->units[i] = (long)u[i];
        j->slowdown[i] = m->dev[d->idx[i]].slowdown.v;
    }
    j->chunk = d->chunk;
    j->block = d->block;
    j->p2p = d->path == CM_P2P;
    j->pipelined = d->mode == CM_PIPELINED;
    j->dynamic = d->dynamic;
}

int ms_run_cuda(const cm_machine *m, const cm_task *t, const cm_decision *d,
                const ms_opts *o, ms_stat *out, gd_err *err)
{
    int have, gpus = cuda_gpus(out, &have, err);
    if (gpus)
        return gpus;
    if (t->dtype_bytes != 4)
        return gd_errf(err, GD_EINPUT, "measure-cuda runs fp32 kernels only");
    if (t->kind == CM_JACOBI && d->dynamic)
        return gd_errf(err, GD_EINPUT, "measure-cuda: jacobi keeps rows "
                       "resident; dynamic self-scheduling does not apply");
    int warm, reps = ms_opts_repeats(o, &warm);
    double *x = malloc(sizeof *x * (size_t)(warm + reps));
    double *sums = malloc(sizeof *sums * (size_t)(warm + reps));
    double want = 0;
    int rc = x && sums ? GD_OK : gd_errf(err, GD_EENV, "out of memory");
    if (!rc)
        rc = ms_reference_sum(t, &want, err);
    if (!rc) {
        gdcu_job j;
        char msg[256] = "";
        cuda_job(m, t, d, have, &j);
        int g = gdcu_run(&j, warm + reps, x, sums, &out->time_sliced, msg,
                         sizeof msg);
        out->skipped = g == 1;
        if (g)
            rc = gd_errf(err, GD_EENV, "measure-cuda: %s", msg);
    }
    for (int k = 0; !rc && k < warm + reps; k++)
        rc = ms_check_sum("measure-cuda", k + 1, sums[k], want, err);
    if (!rc) {
        ms_summarise(x + warm, reps, out);
        out->checksum = sums[warm + reps - 1];
    }
    free(sums);
    free(x);
    return rc;
}

int ms_copy_cuda(const cm_machine *m, int dev, size_t bytes, int h2d,
                 int rounds, const ms_opts *o, ms_stat *out, gd_err *err)
{
    int have, gpus = cuda_gpus(out, &have, err);
    if (gpus)
        return gpus;
    int warm, reps = ms_opts_repeats(o, &warm);
    double *x = malloc(sizeof *x * (size_t)(warm + reps));
    if (!x)
        return gd_errf(err, GD_EENV, "out of memory");
    char msg[256] = "";
    (void)m;
    int rc = GD_OK;
    if (gdcu_copy(dev % have, bytes, h2d, rounds, warm + reps, x, msg, sizeof msg))
        rc = gd_errf(err, GD_EENV, "measure-cuda: %s", msg);
    else
        ms_summarise(x + warm, reps, out);
    free(x);
    return rc;
}

#else
int ms_cuda_devices(void)
{
    return 0;
}

static int built_without_cuda(ms_stat *out, gd_err *err)
{
    out->skipped = out->time_sliced = 0;
    return gd_errf(err, GD_EENV, "no CUDA device: skipped (gpudse was built "
                   "without nvcc, so measure-cuda cannot run here)");
}

int ms_copy_cuda(const cm_machine *m, int dev, size_t bytes, int h2d,
                 int rounds, const ms_opts *o, ms_stat *out, gd_err *err)
{
    (void)m; (void)dev; (void)bytes; (void)h2d; (void)rounds; (void)o;
    return built_without_cuda(out, err);
}

int ms_run_cuda(const cm_machine *m, const cm_task *t, const cm_decision *d,
                const ms_opts *o, ms_stat *out, gd_err *err)
{
    (void)m; (void)t; (void)d; (void)o;
    return built_without_cuda(out, err);
}
#endif
