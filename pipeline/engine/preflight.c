/* preflight: the checks run makes before its first job, shared with
 * validate, and the first job described for running it by hand. */
#include "preflight.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "compare.h"
#include "exec_slurm.h"
#include "layout.h"
#include "mfloop.h"
#include "strategy.h"
#include "verify.h"

int preflight_load(const char *path, camp_campaign *c, gd_err *err)
{
    int rc = camp_load(path, c, err);
    if (rc)
        return rc;
    rc = be_check_campaign(c, err);
    if (!rc)
        rc = be_fingerprint(c, err);
    if (!rc)
        rc = strat_check_campaign(c, err);
    if (!rc)
        rc = rep_layout_check_campaign(c, err);
    if (!rc)
        rc = cmp_check_campaign(c, err);
    if (!rc)
        rc = mf_check_campaign(c, err);
    if (rc)
        camp_free(c);
    return rc;
}

int preflight_check(const camp_campaign *c, const char *executor,
                    gd_err *err)
{
    const be_backend *be = be_find(c->backend);
    const be_backend *vb = c->verify_backend[0] ? be_find(c->verify_backend)
                                                : NULL;
    int rc = GD_OK;
    if (be && be->check)
        rc = be->check(c, err);
    if (!rc && vb && vb->check)
        rc = vb->check(c, err);
    if (!rc && be && (!be->in_process || vb))   /* external jobs */
        rc = slurm_preflight(c, executor, err);
    return rc;
}

/* s in single quotes for sh ('\'' for each quote inside). */
static void sh_quote(util_buf *b, const char *s)
{
    util_buf_puts(b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            util_buf_puts(b, "'\\''");
        else
            util_buf_add(b, p, 1);
    }
    util_buf_puts(b, "'");
}

/* The strategy's first proposal for the campaign, or the baseline. */
static gpu_config first_config(const camp_campaign *c)
{
    gpu_config cfg = space_baseline();
    strat *st = NULL;
    gd_err ignore;
    if (strat_new(c->strategy, &c->space, c->budget, c->seed, &st, &ignore)
            == GD_OK
        && strat_set_objectives(st, c->obj, c->nobjectives, &ignore) == GD_OK) {
        gpu_config got;
        if (strat_next(st, &got, 1) == 1)
            cfg = got;
    }
    strat_free(st);
    return cfg;
}

static void describe(const be_job *job, const be_exec *x, const char *what,
                     util_buf *out)
{
    char canon[SPACE_CANON_MAX];
    space_config_canon(job->camp ? &job->camp->space : NULL, &job->cfg,
                       canon, sizeof canon);
    util_buf_printf(out, "first job (%s): workload %s, config %s\n", what,
                    job->workload->name, canon);
    util_buf_printf(out, "  working directory: %s/ (gpudse writes the job's "
                    "files there first)\n", job->job_dir);
    util_buf_puts(out, "  environment:\n");
    for (int i = 0; i < x->nenv; i++)
        util_buf_printf(out, "    %s\n", x->env[i]);
    util_buf_printf(out, "  command: %s\n", x->command.s ? x->command.s : "");
    util_buf_puts(out, "  by hand: cd ");
    sh_quote(out, job->job_dir);
    util_buf_puts(out, " && env");
    for (int i = 0; i < x->nenv; i++) {
        util_buf_puts(out, " ");
        sh_quote(out, x->env[i]);
    }
    util_buf_puts(out, " sh -c ");
    sh_quote(out, x->command.s ? x->command.s : "");
    util_buf_puts(out, "\n");
}

int preflight_first_job(const camp_campaign *c, const char *rundir,
                        util_buf *out, gd_err *err)
{
    const be_backend *be = be_find(c->backend);
    int verify = be && be->in_process && c->verify_backend[0];
    if (verify)
        be = be_find(c->verify_backend);
    if (!be || be->in_process || !be->plan || c->nworkloads < 1)
        return GD_OK;
    wl_workload *wls = calloc((size_t)c->nworkloads, sizeof *wls);
    if (!wls)
        return gd_errf(err, GD_EENV, "out of memory");
    if (verify)
        verify_workloads(c, wls);
    else
        memcpy(wls, c->workloads, (size_t)c->nworkloads * sizeof *wls);
    be_job job;
    memset(&job, 0, sizeof job);
    job.camp = c;
    job.wl_index = 0;
    job.workload = &wls[0];
    job.cfg = verify ? space_baseline() : first_config(c);
    job.seed = c->seed;
    be_job_key(be, c->sim_fingerprint, &c->space, job.workload, &job.cfg, c->seed,
               job.key);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/jobs/%s", rundir, job.key);
    job.job_dir = dir;
    be_exec x;
    be_exec_init(&x);
    int rc = be->plan(&job, &x, err);
    if (!rc)
        describe(&job, &x, verify ? "a verification job, shown at the "
                 "baseline: the verified configs are chosen after screening"
                 : "the search's first proposal", out);
    be_exec_free(&x);
    free(wls);
    return rc;
}
