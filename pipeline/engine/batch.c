/* batch: the dispatch loop shared by in-process and external backends. Job
 * keys decide what is already done; records reach the journal only when a
 * job has truly finished (a job stopped by Ctrl-C is not recorded, so it
 * runs again on resume). */
#include "batch.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "jobrun.h"
#include "jobsrc.h"
#include "slurm.h"

#define INPROC_BATCH 256

typedef struct {
    int wl;
    gpu_config cfg;
    char key[65];
    int attempt;               /* 0 for the first run */
    int rerun;                 /* a journaled job run again (--retry) */
    long order;                /* place in its workload's proposals */
    double ready_at;           /* retries wait until then */
    char dir[PATH_MAX];
} job_t;

typedef struct {
    const batch_opts *o;
    batch_counts *n;
    jobsrc src;                /* proposals, keys, journaling */
    exec_pool *pool;
    job_t *running;            /* o->workers slots */
    int *slot_used;
    job_t *retry;
    size_t nretry, capretry;
} batch_t;

uint64_t batch_planned(const camp_campaign *c)
{
    uint64_t size = space_size(&c->space);
    uint64_t per = (uint64_t)c->budget < size ? (uint64_t)c->budget : size;
    return per * (uint64_t)c->nworkloads;
}

#define logline(b, ...) jobsrc_log(&(b)->src, __VA_ARGS__)

static be_job make_be_job(const batch_t *b, const job_t *j)
{
    return jobsrc_be_job(&b->src, j->wl, &j->cfg, j->key, j->dir);
}

static int record(batch_t *b, const job_t *j, store_record *rec, gd_err *err)
{
    return jobsrc_record(&b->src, j->wl, &j->cfg, j->key, j->order, rec,
                         err);
}

static int run_in_process(batch_t *b, const job_t *j, gd_err *err)
{
    store_record rec;
    memset(&rec, 0, sizeof rec);
    be_job bj = make_be_job(b, j);
    int rc = b->o->be->run(&bj, &rec, err);
    return rc ? rc : record(b, j, &rec, err);
}

/* ---- job directories ---- */

/* An empty or missing job directory (the executor's child creates it, so
 * the coordinator allocates no inodes per job); on a retry the previous
 * attempt's logs are kept under another name instead. */
static int prepare_dir(const job_t *j, gd_err *err)
{
    if (j->attempt == 0 && !j->rerun)
        return jobsrc_clear_dir(j->dir, err);
    /* a rerun (--retry) keeps the journaled attempt's files as previous.* */
    static const char *const logs[] = {"stdout.log", "stderr.log",
                                       "status.json"};
    for (int i = 0; i < (j->attempt ? 2 : 3); i++) {
        char from[PATH_MAX + 16], to[PATH_MAX + 32];
        snprintf(from, sizeof from, "%s/%s", j->dir, logs[i]);
        if (j->attempt)
            snprintf(to, sizeof to, "%s/attempt%d.%s", j->dir, j->attempt,
                     logs[i]);
        else
            snprintf(to, sizeof to, "%s/previous.%s", j->dir, logs[i]);
        rename(from, to);
    }
    return GD_OK;
}

/* ---- external jobs ---- */

static int free_slot(const batch_t *b)
{
    for (int i = 0; i < b->o->workers; i++)
        if (!b->slot_used[i])
            return i;
    return -1;
}

static int start_external(batch_t *b, const job_t *j, gd_err *err)
{
    int rc = prepare_dir(j, err);
    if (rc)
        return rc;
    be_job bj = make_be_job(b, j);
    be_exec x;
    be_exec_init(&x);
    gd_err why = {0, ""};
    rc = b->o->be->prepare(&bj, &x, &why);
    if (rc == GD_EINPUT) {  /* rejected before running */
        be_exec_free(&x);
        store_record rec;
        memset(&rec, 0, sizeof rec);
        rec.status = ST_INVALID_CONFIG;
        util_strlcpy(rec.reason, why.msg, sizeof rec.reason);
        return record(b, j, &rec, err);
    }
    if (rc) {
        be_exec_free(&x);
        return gd_errf(err, rc, "%s", why.msg);
    }
    /* job.json and cmd.sh: what ran, rerunnable by hand or with job-run */
    char camp[PATH_MAX];
    util_path_join(camp, sizeof camp, b->o->rundir, "campaign.xml");
    rc = jobrun_write_spec(b->o->be, &bj, &x, camp, err);
    if (rc) {
        be_exec_free(&x);
        return rc;
    }
    const camp_campaign *c = b->o->c;
    int s = free_slot(b);
    exec_spec spec = {j->dir, x.command.s ? x.command.s : "", x.env,
                      camp_wl_timeout(c, j->wl), c->grace_s,
                      (size_t)(camp_wl_memory_mb(c, j->wl) * 1048576.0),
                      (size_t)(c->output_cap_mb * 1048576.0),
                      (void *)(intptr_t)s};
    rc = exec_pool_start(b->pool, &spec, err);
    be_exec_free(&x);
    if (rc)
        return rc;
    b->running[s] = *j;
    b->slot_used[s] = 1;
    b->src.inflight[j->wl]++;
    return GD_OK;
}

static int push_retry(batch_t *b, const job_t *j)
{
    if (b->nretry == b->capretry) {
        size_t cap = b->capretry ? b->capretry * 2 : 16;
        job_t *r = realloc(b->retry, cap * sizeof *r);
        if (!r)
            return -1;
        b->retry = r;
        b->capretry = cap;
    }
    b->retry[b->nretry++] = *j;
    return 0;
}

/* A retry whose backoff has passed, if any. */
static int pop_ready_retry(batch_t *b, job_t *j)
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

static int complete_external(batch_t *b, const exec_result *r, gd_err *err)
{
    int s = (int)(intptr_t)r->tag;
    job_t j = b->running[s];
    b->slot_used[s] = 0;
    b->src.inflight[j.wl]--;
    /* output that could not be saved is no result of the job's */
    if (r->io_err)
        return jobsrc_output_error(j.dir, r, err);
    store_record rec;
    memset(&rec, 0, sizeof rec);
    be_job bj = make_be_job(b, &j);
    int rc = b->o->be->finish(&bj, r, &rec, err);
    if (rc)
        return rc;
    util_strlcpy(rec.key, j.key, sizeof rec.key);
    jobsrc_timing(&b->src, j.key, j.wl, j.attempt + 1, rec.status, r->wall_s);
    /* how the process ended: the journal says it for a job that succeeded,
     * so only the others get a file (one inode fewer per good job) */
    if (rec.status != ST_OK
        && (rc = jobsrc_write_status(j.dir, j.attempt + 1, r, &rec, err)))
        return rc;
    const camp_campaign *c = b->o->c;
    if (rec.status != ST_OK && (c->retry_mask & (1u << rec.status))
        && j.attempt < c->retries) {
        logline(b, "retry %s attempt %d after %s: %s", j.key, j.attempt + 2,
                store_status_name(rec.status), rec.reason);
        j.ready_at = progress_now() + c->backoff_s * pow(2, j.attempt);
        j.attempt++;
        b->n->retried++;
        b->src.inflight[j.wl]++;
        return push_retry(b, &j) ? gd_errf(err, GD_EENV, "out of memory")
                                 : GD_OK;
    }
    if (rec.status != ST_OK)
        logline(b, "job %s %s: %s", j.key, store_status_name(rec.status),
                rec.reason);
    return record(b, &j, &rec, err);
}

static int stopped(const batch_t *b)
{
    return b->o->stop && *b->o->stop;
}

/* Start jobs until the pool is full or nothing is ready; 1 when it found
 * nothing more to start. */
static int fill(batch_t *b, int *drained, gd_err *err)
{
    int ext = !b->o->be->in_process;
    *drained = 0;
    while (!stopped(b) && (!ext || exec_pool_idle(b->pool) > 0)) {
        job_t j;
        if (ext && pop_ready_retry(b, &j)) {
            b->src.inflight[j.wl]--;
        } else {
            int wl;
            gpu_config cfg;
            size_t want = ext ? (size_t)exec_pool_idle(b->pool)
                              : INPROC_BATCH;
            if (!jobsrc_next(&b->src, want, &wl, &cfg)) {
                *drained = 1;
                return GD_OK;
            }
            j.wl = wl;
            j.cfg = cfg;
            j.attempt = 0;
            j.rerun = 0;
            j.order = b->src.last_order;
            j.ready_at = 0;
            jobsrc_key(&b->src, wl, &cfg, j.key, j.dir, sizeof j.dir);
            if (store_has(b->o->st, j.key)) {
                int rc = jobsrc_journaled(&b->src, wl, &cfg, j.key, &j.rerun,
                                          err);
                if (rc)
                    return rc;
                if (!j.rerun)
                    continue;
            }
        }
        int rc = ext ? start_external(b, &j, err) : run_in_process(b, &j, err);
        if (rc)
            return rc;
    }
    return GD_OK;
}

static int loop(batch_t *b, gd_err *err)
{
    int ext = !b->o->be->in_process;
    exec_result *res = calloc((size_t)b->o->workers, sizeof *res);
    if (!res)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = GD_OK;
    for (;;) {
        int drained;
        rc = fill(b, &drained, err);
        if (rc || stopped(b))
            break;
        if (!ext) {
            if (drained)
                break;
            continue;
        }
        if (drained && exec_pool_running(b->pool) == 0 && b->nretry == 0)
            break;
        /* a retry waits for its backoff and a free worker: with every
         * worker busy, only a finished job (or its timeout) wakes us — a
         * wait of 0 for a retry that cannot start would spin without
         * ever firing the running jobs' timeouts */
        double wait = b->nretry && exec_pool_idle(b->pool) > 0
                      ? next_retry_wait(b) : -1;
        int k = exec_pool_wait(b->pool, res, b->o->workers, wait, b->o->stop,
                               err);
        if (k < 0) {
            rc = err->code ? err->code : GD_EENV;
            break;
        }
        for (int i = 0; i < k && !rc; i++)
            rc = complete_external(b, &res[i], err);
        if (rc)
            break;
    }
    if (ext && exec_pool_running(b->pool) > 0) {
        /* stopping (Ctrl-C or an error): running jobs get their grace
         * period and are not journaled, so they run again on resume */
        int k = exec_pool_stop_all(b->pool, b->o->c->grace_s, res);
        b->n->interrupted += (uint64_t)k;
        for (int i = 0; i < k; i++) {
            int s = (int)(intptr_t)res[i].tag;
            logline(b, "interrupted %s: it runs again on resume",
                    b->running[s].key);
            b->slot_used[s] = 0;
        }
    }
    free(res);
    return rc;
}

static void batch_free(batch_t *b)
{
    jobsrc_free(&b->src);
    free(b->running);
    free(b->slot_used);
    free(b->retry);
    exec_pool_free(b->pool);
}

static int batch_init(batch_t *b, const batch_opts *o, batch_counts *n,
                      gd_err *err)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    b->n = n;
    size_t cap = INPROC_BATCH > o->workers ? INPROC_BATCH : (size_t)o->workers;
    int rc = jobsrc_init(&b->src, o, n, cap, err);
    if (rc)
        return rc;
    b->running = calloc((size_t)o->workers, sizeof *b->running);
    b->slot_used = calloc((size_t)o->workers, sizeof *b->slot_used);
    if (!b->running || !b->slot_used)
        return gd_errf(err, GD_EENV, "out of memory");
    if (!o->be->in_process) {
        char reg[PATH_MAX];
        util_path_join(reg, sizeof reg, o->rundir, "jobs.running");
        int k = 0;
        rc = exec_pool_new(o->workers, &b->pool, err);
        if (!rc)
            rc = exec_pool_set_registry(b->pool, reg, &k, err);
        if (k)
            logline(b, "killed %d process group(s) or process(es) left "
                    "running by a gpudse that died", k);
        return rc;
    }
    return GD_OK;
}

int batch_run(const batch_opts *o, batch_counts *n, gd_err *err)
{
    if (!o->be->in_process && slurm_wanted(o))
        return slurm_run(o, n, err);
    memset(n, 0, sizeof *n);
    batch_t b;
    int rc = batch_init(&b, o, n, err);
    if (!rc)
        rc = loop(&b, err);
    batch_free(&b);
    return rc;
}
