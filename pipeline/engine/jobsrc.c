/* jobsrc: proposals, keys and journaling shared by the local and the Slurm
 * dispatch loops, so both resume, observe and count the same way. */
#define _XOPEN_SOURCE 700  /* nftw */
#include "jobsrc.h"

#include <errno.h>
#include <limits.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

int jobsrc_init(jobsrc *s, const batch_opts *o, batch_counts *n, size_t cap,
                gd_err *err)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->n = n;
    s->nwl = o->c->nworkloads;
    s->wls = o->workloads ? o->workloads : o->c->workloads;
    size_t nw = (size_t)s->nwl;
    s->st = calloc(nw, sizeof *s->st);
    s->props = calloc(nw, sizeof *s->props);
    s->nprops = calloc(nw, sizeof *s->nprops);
    s->pos = calloc(nw, sizeof *s->pos);
    s->fixed_pos = calloc(nw, sizeof *s->fixed_pos);
    s->exhausted = calloc(nw, sizeof *s->exhausted);
    s->inflight = calloc(nw, sizeof *s->inflight);
    s->step = calloc(nw, sizeof *s->step);
    s->proposed = calloc(nw, sizeof *s->proposed);
    if (!s->proposed || !s->st || !s->props || !s->nprops || !s->pos
        || !s->fixed_pos || !s->exhausted || !s->inflight || !s->step)
        return gd_errf(err, GD_EENV, "out of memory");
    for (int i = 0; i < s->nwl; i++) {
        s->props[i] = calloc(cap ? cap : 1, sizeof **s->props);
        if (!s->props[i])
            return gd_errf(err, GD_EENV, "out of memory");
        if (o->fixed)
            continue;
        long budget = o->c->budget;
        if (o->nbudgets > 1 && strat_extensible(o->c->strategy))
            budget = o->budgets[0];  /* extended later, step by step */
        else
            s->step[i] = o->nbudgets - 1;
        int rc = strat_new(o->c->strategy, &o->c->space, budget,
                           o->c->seed, &s->st[i], err);
        if (!rc)
            rc = strat_set_objectives(s->st[i], o->c->obj, o->c->nobjectives,
                                      err);
        if (rc)
            return rc;
        strat_set_constraints(s->st[i], o->c);
        /* adaptive strategies propose rounds that keep every worker busy */
        strat_set_batch(s->st[i], (size_t)(o->workers > 0 ? o->workers : 1));
        /* <search strategy="agent"><agents .../>: the LLM drives it */
        rc = strat_set_agents(s->st[i], &o->c->search_agents,
                              o->c->search_batch,
                              o->c->search_llm_specialists, o->rundir,
                              o->c->workloads[i].name, err);
        if (rc)
            return rc;
    }
    return GD_OK;
}

void jobsrc_free(jobsrc *s)
{
    for (int i = 0; i < s->nwl; i++) {
        if (s->st)
            strat_free(s->st[i]);
        if (s->props)
            free(s->props[i]);
    }
    free(s->st);
    free(s->props);
    free(s->nprops);
    free(s->pos);
    free(s->fixed_pos);
    free(s->exhausted);
    free(s->inflight);
    free(s->step);
    free(s->proposed);
    memset(s, 0, sizeof *s);
}

static size_t propose(jobsrc *s, int i, size_t want)
{
    if (!s->o->fixed) {
        size_t n = strat_next(s->st[i], s->props[i], want);
        /* a spent budget of a resumed search whose budget grew: on to the
         * next, once every proposal so far is observed */
        while (n == 0 && s->inflight[i] == 0 && s->step[i] + 1 < s->o->nbudgets
               && strat_done(s->st[i])
               && strat_extend(s->st[i], s->o->budgets[++s->step[i]]) == 0)
            n = strat_next(s->st[i], s->props[i], want);
        return n;
    }
    size_t n = 0;  /* a fixed list: hand it out once, in order */
    while (n < want && s->fixed_pos[i] < s->o->nfixed[i])
        s->props[i][n++] = s->o->fixed[i][s->fixed_pos[i]++];
    return n;
}

int jobsrc_next(jobsrc *s, size_t want, int *wl, gpu_config *cfg)
{
    for (int tries = 0; tries < s->nwl; tries++) {
        int i = s->cur;
        if (!s->exhausted[i]) {
            if (s->pos[i] == s->nprops[i]) {
                s->nprops[i] = propose(s, i, want);
                s->pos[i] = 0;
                if (s->nprops[i] == 0 && s->inflight[i] == 0)
                    s->exhausted[i] = 1;
            }
            if (s->pos[i] < s->nprops[i]) {
                *wl = i;
                *cfg = s->props[i][s->pos[i]++];
                s->n->planned++;
                s->last_order = ++s->proposed[i];
                return 1;
            }
        }
        s->cur = (s->cur + 1) % s->nwl;
    }
    return 0;
}

void jobsrc_key(const jobsrc *s, int wl, const gpu_config *cfg, char key[65],
                char *dir, size_t dirsz)
{
    const camp_campaign *c = s->o->c;
    be_job_key(s->o->be, c->sim_fingerprint, &c->space, &s->wls[wl], cfg,
               c->seed, key);
    if (dir)
        snprintf(dir, dirsz, "%s/jobs/%s", s->o->rundir, key);
}

be_job jobsrc_be_job(const jobsrc *s, int wl, const gpu_config *cfg,
                     const char *key, const char *dir)
{
    be_job bj;
    memset(&bj, 0, sizeof bj);
    bj.camp = s->o->c;
    bj.wl_index = wl;
    bj.workload = &s->wls[wl];
    bj.cfg = *cfg;
    bj.seed = s->o->c->seed;
    util_strlcpy(bj.key, key, sizeof bj.key);
    bj.job_dir = dir;
    return bj;
}

int jobsrc_record(jobsrc *s, int wl, const gpu_config *cfg, const char *key,
                  long order, store_record *rec, gd_err *err)
{
    const batch_opts *o = s->o;
    util_strlcpy(rec->key, key, sizeof rec->key);
    util_strlcpy(rec->workload, o->c->workloads[wl].name,
                 sizeof rec->workload);
    util_strlcpy(rec->backend, o->be->name, sizeof rec->backend);
    util_strlcpy(rec->fidelity, o->be->fidelity, sizeof rec->fidelity);
    rec->cfg = *cfg;
    rec->order = order;
    /* derived metrics are journaled with the record: every reader (the
     * strategy below, analysis, CSV, compare) sees the same values */
    if (drv_apply(o->c->derived, o->c->nderived, &rec->metrics) != 0)
        jobsrc_log(s, "%s: no room in the record for every derived metric",
                   key);
    int rc = store_has(o->st, key) ? store_append_attempt(o->st, rec, err)
                                   : store_append(o->st, rec, err);
    /* a job is reported finished (the caller's hook, the progress line)
     * only once its line is in the journal (store_set_batched) */
    if (!rc && (o->on_result || (o->pg && progress_due(o->pg))))
        rc = store_write_pending(o->st, err);
    if (rc)
        return rc;
    s->n->ran++;
    s->n->failed += rec->status != ST_OK;
    if (s->st[wl])
        strat_observe(s->st[wl], cfg, rec);
    if (o->on_result)
        o->on_result(rec, o->cb_arg);
    if (o->pg)
        progress_job(o->pg, rec->status != ST_OK);
    return GD_OK;
}

int jobsrc_journaled(jobsrc *s, int wl, const gpu_config *cfg,
                     const char *key, int *rerun, gd_err *err)
{
    *rerun = 0;
    store_record rec;
    if (store_key_ok(s->o->st, key)
        && !(s->st[wl] && strat_reads_results(s->st[wl]))) {
        /* an ok record is never rerun, and the strategy only notes the
         * config: the journal line need not be read back */
        rec.status = ST_OK;
        if (s->st[wl])
            strat_observe(s->st[wl], cfg, &rec);
        s->n->skipped++;
        if (s->o->pg)
            progress_skip(s->o->pg, 0);
        return GD_OK;
    }
    int rc = store_get(s->o->st, key, &rec, err);
    if (rc)
        return rc;
    if ((s->o->rerun_mask & (1u << rec.status)) && rec.status != ST_OK
        && !store_is_new(s->o->st, key)) {
        *rerun = 1;
        s->n->rerun++;
        jobsrc_log(s, "rerun %s (journaled %s: %s)", key,
                   store_status_name(rec.status), rec.reason);
        return GD_OK;
    }
    if (s->st[wl])
        strat_observe(s->st[wl], cfg, &rec);
    s->n->skipped++;
    if (s->o->pg)
        progress_skip(s->o->pg, rec.status != ST_OK);
    return GD_OK;
}

static int rm_entry(const char *path, const struct stat *sb, int type,
                    struct FTW *ftw)
{
    (void)sb;
    (void)type;
    if (ftw->level == 0)
        return 0;  /* keep the directory itself */
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int jobsrc_clear_dir(const char *dir, gd_err *err)
{
    if (util_is_dir(dir) && nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return gd_errf(err, GD_EENV, "%s: cannot clear a job directory left "
                       "by an earlier run: %s", dir, strerror(errno));
    return GD_OK;
}

int jobsrc_fresh_dir(const char *dir, gd_err *err)
{
    int rc = jobsrc_clear_dir(dir, err);
    return rc ? rc : be_make_job_dir(dir, err);
}

void jobsrc_log(const jobsrc *s, const char *fmt, ...)
{
    if (!s->o->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->o->log, fmt, ap);
    va_end(ap);
    fputc('\n', s->o->log);
    fflush(s->o->log);
}

void jobsrc_timing(const jobsrc *s, const char *key, int wl, int attempt,
                   int status, double wall_s)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, s->o->rundir, "timing.csv");
    int fresh = !util_path_exists(path);
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    if (fresh)
        fputs("key,workload,attempt,status,wall_s\n", f);
    fprintf(f, "%s,%s,%d,%s,%.3f\n", key, s->wls[wl].name, attempt,
            store_status_name(status), wall_s);
    fclose(f);
}

int jobsrc_output_error(const char *job_dir, const exec_result *x,
                        gd_err *err)
{
    return gd_errf(err, GD_EENV, "%s/%s: cannot save the job's output: %s; "
                   "the job is not recorded: free space (or raise the file "
                   "size limit), then run again to resume", job_dir,
                   x->io_file ? x->io_file : "stdout.log",
                   strerror(x->io_err));
}

int jobsrc_write_status(const char *job_dir, int attempt,
                        const exec_result *x, const store_record *r,
                        gd_err *err)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", r->key);
    if (attempt > 0)
        cJSON_AddNumberToObject(o, "attempt", attempt);
    cJSON_AddStringToObject(o, "status", store_status_name(r->status));
    cJSON_AddStringToObject(o, "reason", r->reason);
    cJSON_AddNumberToObject(o, "exit_code", x->exit_code);
    cJSON_AddNumberToObject(o, "signal", x->signo);
    cJSON_AddBoolToObject(o, "timed_out", x->timed_out);
    cJSON_AddNumberToObject(o, "wall_s", x->wall_s);
    cJSON_AddNumberToObject(o, "stdout_bytes", (double)x->out_bytes);
    cJSON_AddNumberToObject(o, "stderr_bytes", (double)x->err_bytes);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job_dir, "status.json");
    int rc = text ? util_write_file_atomic(path, text, strlen(text), err)
                  : gd_errf(err, GD_EENV, "%s: out of memory", path);
    cJSON_free(text);
    if (rc)
        return gd_errf(err, GD_EENV, "%s; the job is not recorded: free "
                       "space, then run again to resume", err->msg);
    return GD_OK;
}
