/* batch: the one dispatch loop, for in-process backends and for external
 * ones on any executor (execif.h: the local pool, Slurm). Job keys decide
 * what is already done; records reach the journal only when a job has
 * truly finished (a job stopped by Ctrl-C is not recorded, so it runs
 * again on resume). The executor says when jobs end; what happens next —
 * journal, retry after a backoff, resubmit after the cluster lost it — is
 * decided here, the same for every executor. */
#include "batch.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobrun.h"
#include "jobsrc.h"
#include "execif.h"

#define INPROC_BATCH 256

typedef struct {
    const batch_opts *o;
    batch_counts *n;
    jobsrc src;                /* proposals, keys, journaling */
    const exec_ops *ops;       /* NULL for an in-process backend */
    void *ex;
    exec_job *retry;           /* ended jobs waiting to run again */
    size_t nretry, capretry;
} batch_t;

uint64_t batch_planned(const camp_campaign *c)
{
    uint64_t size = space_size(&c->space);
    uint64_t per = (uint64_t)c->budget < size ? (uint64_t)c->budget : size;
    return per * (uint64_t)c->nworkloads;
}

#define logline(b, ...) jobsrc_log(&(b)->src, __VA_ARGS__)

static be_job make_be_job(const batch_t *b, const exec_job *j)
{
    return jobsrc_be_job(&b->src, j->wl, &j->cfg, j->key, j->dir);
}

static int record(batch_t *b, const exec_job *j, store_record *rec,
                  gd_err *err)
{
    return jobsrc_record(&b->src, j->wl, &j->cfg, j->key, j->order, rec,
                         err);
}

static int run_in_process(batch_t *b, const exec_job *j, gd_err *err)
{
    store_record rec;
    memset(&rec, 0, sizeof rec);
    be_job bj = make_be_job(b, j);
    int rc = b->o->be->run(&bj, &rec, err);
    return rc ? rc : record(b, j, &rec, err);
}

static int stopped(const batch_t *b)
{
    return b->o->stop && *b->o->stop;
}

/* ---- retries ---- */

static int push_retry(batch_t *b, const exec_job *j)
{
    if (b->nretry == b->capretry) {
        size_t cap = b->capretry ? b->capretry * 2 : 16;
        exec_job *r = realloc(b->retry, cap * sizeof *r);
        if (!r)
            return -1;
        b->retry = r;
        b->capretry = cap;
    }
    b->retry[b->nretry++] = *j;
    return 0;
}

/* A retry whose backoff has passed, if any. */
static int pop_ready_retry(batch_t *b, exec_job *j)
{
    double now = progress_now();
    for (size_t i = 0; i < b->nretry; i++)
        if (b->retry[i].ready_at <= now) {
            *j = b->retry[i];
            b->retry[i] = b->retry[--b->nretry];
            return 1;
        }
    return 0;
}

static double next_retry_wait(const batch_t *b)
{
    double t = INFINITY, now = progress_now();
    for (size_t i = 0; i < b->nretry; i++)
        if (b->retry[i].ready_at - now < t)
            t = b->retry[i].ready_at - now;
    return t < 0 ? 0 : t;
}

/* Jobs the executor may start now: a retry (its place kept by an executor
 * that keeps places) or new ones. */
static int room(const batch_t *b, int for_retry)
{
    int held = (int)b->nretry - (for_retry && b->ops->keeps_places);
    return b->ops->room(b->ex, held);
}

/* Queue an ended job to run again after delay seconds. */
static int run_again(batch_t *b, exec_job *j, double delay, gd_err *err)
{
    j->ready_at = progress_now() + delay;
    if (b->ops->again)
        b->ops->again(b->ex, j);
    b->n->retried++;
    return push_retry(b, j) ? gd_errf(err, GD_EENV, "out of memory")
                            : GD_OK;
}

/* exec_host.ended: an attempt ended; journal the job, or run it again when
 * the cluster lost it or its class is retried. */
static int ended(void *arg, const exec_job *job, exec_end *e, gd_err *err)
{
    batch_t *b = arg;
    exec_job j = *job;
    store_record *rec = &e->rec;
    util_strlcpy(rec->key, j.key, sizeof rec->key);
    if (!isnan(e->wall_s))
        jobsrc_timing(&b->src, j.key, j.wl, j.attempt + j.infra + 1,
                      rec->status, e->wall_s);
    const camp_campaign *c = b->o->c;
    if (e->infra && j.infra < EXEC_INFRA_RETRIES) {
        logline(b, "resubmit %s after %s: %s", j.key, e->infra_what,
                rec->reason);
        j.infra++;
        return run_again(b, &j, 0, err);
    }
    if (rec->status != ST_OK && (c->retry_mask & (1u << rec->status))
        && j.attempt < c->retries) {
        logline(b, "retry %s attempt %d after %s: %s", j.key, j.attempt + 2,
                store_status_name(rec->status), rec->reason);
        double delay = c->backoff_s * pow(2, j.attempt);
        j.attempt++;
        return run_again(b, &j, delay, err);
    }
    if (rec->status != ST_OK)
        logline(b, "job %s %s: %s", j.key, store_status_name(rec->status),
                rec->reason);
    b->src.inflight[j.wl]--;
    return record(b, &j, rec, err);
}

/* ---- starting jobs ---- */

/* The backend prepares the job and job.json and cmd.sh say what runs
 * (rerunnable by hand or with job-run); a config the backend rejects is
 * journaled at once (1 in *done). */
static int prepare(batch_t *b, const exec_job *j, be_exec *x, int *done,
                   gd_err *err)
{
    *done = 0;
    be_job bj = make_be_job(b, j);
    gd_err why = {0, ""};
    int rc = b->o->be->prepare(&bj, x, &why);
    if (rc == GD_EINPUT) {  /* rejected before running */
        store_record rec;
        memset(&rec, 0, sizeof rec);
        rec.status = ST_INVALID_CONFIG;
        util_strlcpy(rec.reason, why.msg, sizeof rec.reason);
        *done = 1;
        return record(b, j, &rec, err);
    }
    if (rc)
        return gd_errf(err, rc, "%s", why.msg);
    char camp[PATH_MAX];
    util_path_join(camp, sizeof camp, b->o->rundir, "campaign.xml");
    return jobrun_write_spec(b->o->be, &bj, x, camp, err);
}

static int start_external(batch_t *b, const exec_job *j, gd_err *err)
{
    int how, rc = b->ops->setup(b->ex, j, &how, err);
    if (rc)
        return rc;
    if (how == EXEC_ADOPTED) {
        b->src.inflight[j->wl]++;
        return GD_OK;
    }
    be_exec x;
    be_exec_init(&x);
    int done = 0;
    if (how == EXEC_FRESH)
        rc = prepare(b, j, &x, &done, err);
    if (!rc && !done)
        rc = b->ops->launch(b->ex, j, how == EXEC_FRESH ? &x : NULL, err);
    be_exec_free(&x);
    if (!rc && !done)
        b->src.inflight[j->wl]++;
    return rc;
}

/* The next new job, or 0 when the strategies have none right now. A key
 * already journaled is skipped (1 in *skip) unless --retry reruns it. */
static int next_job(batch_t *b, size_t want, exec_job *j, int *skip,
                    gd_err *err)
{
    *skip = 0;
    int wl;
    gpu_config cfg;
    if (!jobsrc_next(&b->src, want, &wl, &cfg))
        return 0;
    memset(j, 0, sizeof *j);
    j->wl = wl;
    j->cfg = cfg;
    j->order = b->src.last_order;
    jobsrc_key(&b->src, wl, &cfg, j->key, j->dir, sizeof j->dir);
    if (store_has(b->o->st, j->key)) {
        int rc = jobsrc_journaled(&b->src, wl, &cfg, j->key, &j->rerun, err);
        if (rc)
            return -rc;
        *skip = !j->rerun;
    }
    return 1;
}

/* Start jobs until the executor is full or nothing is ready; 1 in *drained
 * when the strategies had nothing more to propose. */
static int fill(batch_t *b, int *drained, gd_err *err)
{
    int ext = b->ops != NULL;
    *drained = 0;
    while (!stopped(b)) {
        exec_job j;
        int rc;
        if (ext && room(b, 1) > 0 && pop_ready_retry(b, &j)) {
            b->src.inflight[j.wl]--;
        } else {
            int r = ext ? room(b, 0) : INPROC_BATCH;
            if (r <= 0)
                break;
            int skip, got = next_job(b, (size_t)r, &j, &skip, err);
            if (got < 0)
                return -got;
            if (!got) {
                *drained = 1;
                return GD_OK;
            }
            if (skip)
                continue;
        }
        rc = ext ? start_external(b, &j, err) : run_in_process(b, &j, err);
        if (rc)
            return rc;
    }
    return GD_OK;
}

/* ---- the loop ---- */

static int loop_in_process(batch_t *b, gd_err *err)
{
    int drained = 0, rc = GD_OK;
    while (!rc && !drained && !stopped(b))
        rc = fill(b, &drained, err);
    return rc;
}

static int loop(batch_t *b, gd_err *err)
{
    int rc = GD_OK;
    for (;;) {
        int drained;
        rc = fill(b, &drained, err);
        if (rc || stopped(b))
            break;
        if (drained && b->ops->busy(b->ex) == 0 && b->nretry == 0)
            break;
        /* a retry waits for its backoff and room to start: with none, only
         * a job that ends (or its timeout) wakes us — a wait of 0 for a
         * retry that cannot start would spin without ever firing the
         * running jobs' timeouts */
        double wait = b->nretry && room(b, 1) > 0 ? next_retry_wait(b) : -1;
        int k;
        rc = b->ops->wait(b->ex, wait, &k, err);
        if (rc)
            break;
    }
    if (b->ops->busy(b->ex) > 0)  /* stopping (Ctrl-C) or an error */
        b->n->interrupted += (uint64_t)b->ops->stop(b->ex, stopped(b));
    return rc;
}

static void batch_free(batch_t *b)
{
    if (b->ops && b->ex)
        b->ops->close(b->ex);
    jobsrc_free(&b->src);
    free(b->retry);
}

static int batch_init(batch_t *b, const batch_opts *o, batch_counts *n,
                      gd_err *err)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    b->n = n;
    if (!o->be->in_process) {
        b->ops = exec_find(o->executor ? o->executor : "local");
        if (!b->ops)
            return gd_errf(err, GD_EINPUT, "no executor \"%s\" (local or "
                           "slurm)", o->executor);
    }
    size_t cap = INPROC_BATCH > o->workers ? INPROC_BATCH : (size_t)o->workers;
    if (b->ops && b->ops->window > 0)
        cap = (size_t)b->ops->window;
    int rc = jobsrc_init(&b->src, o, n, cap, err);
    if (rc || !b->ops)
        return rc;
    exec_host h = {o, &b->src, ended, b};
    return b->ops->open(&h, &b->ex, err);
}

int batch_run(const batch_opts *o, batch_counts *n, gd_err *err)
{
    memset(n, 0, sizeof *n);
    batch_t b;
    int rc = batch_init(&b, o, n, err);
    if (!rc)
        rc = b.ops ? loop(&b, err) : loop_in_process(&b, err);
    batch_free(&b);
    return rc;
}
