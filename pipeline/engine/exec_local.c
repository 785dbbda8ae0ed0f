/* exec_local: the local executor — the dispatch loop's external jobs run
 * as processes of this host, in the pool of executor.h (one worker slot a
 * job, -j of them). A job's directory is emptied before its first attempt
 * (the pool's child creates it, so the coordinator allocates no inodes per
 * job); a retry keeps the attempt before it as attemptN.*, a rerun
 * (--retry) the journaled one as previous.*. The backend classifies how
 * the process ended here, and status.json says it for a job not ok. */
#include "execif.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h"

typedef struct {
    exec_host h;
    exec_pool *pool;
    int workers;
    exec_job *running;         /* per worker slot */
    int *slot_used;
    exec_result *res;          /* room for a result per slot */
} local_ex;

#define logline(l, ...) jobsrc_log((l)->h.src, __VA_ARGS__)

static void local_close(void *ex)
{
    local_ex *l = ex;
    if (!l)
        return;
    exec_pool_free(l->pool);
    free(l->running);
    free(l->slot_used);
    free(l->res);
    free(l);
}

/* The pool, with RUN/jobs.running as its registry: what a gpudse that died
 * left running is killed first. */
static int local_open(const exec_host *h, void **ex, gd_err *err)
{
    *ex = NULL;
    local_ex *l = calloc(1, sizeof *l);
    int w = h->o->workers;
    if (!l || !(l->running = calloc((size_t)w, sizeof *l->running))
        || !(l->slot_used = calloc((size_t)w, sizeof *l->slot_used))
        || !(l->res = calloc((size_t)w, sizeof *l->res))) {
        local_close(l);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    l->h = *h;
    l->workers = w;
    char reg[PATH_MAX];
    util_path_join(reg, sizeof reg, h->o->rundir, "jobs.running");
    int k = 0;
    int rc = exec_pool_new(w, &l->pool, err);
    if (!rc)
        rc = exec_pool_set_registry(l->pool, reg, &k, err);
    if (k)
        logline(l, "killed %d process group(s) or process(es) left "
                "running by a gpudse that died", k);
    if (rc) {
        local_close(l);
        return rc;
    }
    *ex = l;
    return GD_OK;
}

static int local_room(const void *ex, int held)
{
    (void)held;  /* a job waiting for its retry holds no worker */
    return exec_pool_idle(((const local_ex *)ex)->pool);
}

static int local_busy(const void *ex)
{
    return exec_pool_running(((const local_ex *)ex)->pool);
}

/* An empty or missing job directory; on a retry the previous attempt's
 * logs are kept under another name instead. */
static int local_setup(void *ex, const exec_job *j, int *how, gd_err *err)
{
    (void)ex;
    *how = EXEC_FRESH;
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

static int free_slot(const local_ex *l)
{
    for (int i = 0; i < l->workers; i++)
        if (!l->slot_used[i])
            return i;
    return -1;
}

static int local_launch(void *ex, const exec_job *j, const be_exec *x,
                        gd_err *err)
{
    local_ex *l = ex;
    const camp_campaign *c = l->h.o->c;
    int s = free_slot(l);
    if (s < 0 || !x)
        return gd_errf(err, GD_EENV, "internal error: no free worker for "
                       "%s", j->key);
    exec_spec spec = {j->dir, x->command.s ? x->command.s : "", x->env,
                      camp_wl_timeout(c, j->wl), c->grace_s,
                      (size_t)(camp_wl_memory_mb(c, j->wl) * 1048576.0),
                      (size_t)(c->output_cap_mb * 1048576.0),
                      (void *)(intptr_t)s};
    int rc = exec_pool_start(l->pool, &spec, err);
    if (rc)
        return rc;
    l->running[s] = *j;
    l->slot_used[s] = 1;
    return GD_OK;
}

/* A process that ended: the backend's record of it, or an environment
 * error when its output could not be saved (no result of the job's). */
static int complete(local_ex *l, const exec_result *r, gd_err *err)
{
    int s = (int)(intptr_t)r->tag;
    exec_job j = l->running[s];
    l->slot_used[s] = 0;
    if (r->io_err)
        return jobsrc_output_error(j.dir, r, err);
    exec_end e;
    memset(&e, 0, sizeof e);
    be_job bj = jobsrc_be_job(l->h.src, j.wl, &j.cfg, j.key, j.dir);
    int rc = l->h.o->be->finish(&bj, r, &e.rec, err);
    if (rc)
        return rc;
    util_strlcpy(e.rec.key, j.key, sizeof e.rec.key);
    e.wall_s = r->wall_s;
    /* how the process ended: the journal says it for a job that succeeded,
     * so only the others get a file (one inode fewer per good job) */
    if (e.rec.status != ST_OK
        && (rc = jobsrc_write_status(j.dir, j.attempt + 1, r, &e.rec, err)))
        return rc;
    return l->h.ended(l->h.loop, &j, &e, err);
}

static int local_wait(void *ex, double wait_s, int *nended, gd_err *err)
{
    local_ex *l = ex;
    *nended = 0;
    int k = exec_pool_wait(l->pool, l->res, l->workers, wait_s, l->h.o->stop,
                           err);
    if (k < 0)
        return err->code ? err->code : GD_EENV;
    int rc = GD_OK;
    for (int i = 0; i < k && !rc; i++)
        rc = complete(l, &l->res[i], err);
    *nended = k;
    return rc;
}

/* Stopping (Ctrl-C or an error): running jobs get their grace period and
 * are not journaled, so they run again on resume. */
static int local_stop(void *ex, int stopping)
{
    (void)stopping;
    local_ex *l = ex;
    int k = exec_pool_stop_all(l->pool, l->h.o->c->grace_s, l->res);
    for (int i = 0; i < k; i++) {
        int s = (int)(intptr_t)l->res[i].tag;
        logline(l, "interrupted %s: it runs again on resume",
                l->running[s].key);
        l->slot_used[s] = 0;
    }
    return k;
}

const exec_ops *exec_local_ops(void)
{
    static const exec_ops ops = {
        .name = "local", .open = local_open, .close = local_close,
        .room = local_room, .keeps_places = 0, .window = 0,
        .busy = local_busy, .setup = local_setup, .launch = local_launch,
        .wait = local_wait, .again = NULL, .stop = local_stop,
    };
    return &ops;
}
