/* jobrun: `gpudse job-run JOBDIR` — one external job run where its
 * coordinator is not (a Slurm array task on a compute node), and the two
 * files it shares with the coordinator: job.json (what to run) and
 * result.json (the finished record, written atomically). */
#include "jobrun.h"
#include "jobsrc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

#include "executor.h"
#include "parseopt.h"

/* ---- job.json ---- */

/* The record every result of this job starts from: key, workload, backend,
 * fidelity and config, status ok. */
static void skeleton(const be_backend *be, const be_job *job,
                     store_record *r)
{
    memset(r, 0, sizeof *r);
    memcpy(r->key, job->key, sizeof r->key);
    util_strlcpy(r->workload, job->workload->name, sizeof r->workload);
    util_strlcpy(r->backend, be->name, sizeof r->backend);
    util_strlcpy(r->fidelity, be->fidelity, sizeof r->fidelity);
    r->cfg = job->cfg;
    r->status = ST_OK;
}

static cJSON *spec_json(const be_backend *be, const be_job *job,
                        const be_exec *x, const char *campaign_path)
{
    const camp_campaign *c = job->camp;
    store_record r;
    skeleton(be, job, &r);
    util_buf rec;
    util_buf_init(&rec);
    store_record_to_json_in(&c->space, &r, &rec);
    cJSON *o = cJSON_CreateObject();
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, job->seed);
    cJSON_AddStringToObject(o, "key", job->key);
    cJSON_AddStringToObject(o, "backend", be->name);
    cJSON_AddStringToObject(o, "campaign", campaign_path);
    cJSON_AddNumberToObject(o, "workload_index", job->wl_index);
    cJSON_AddStringToObject(o, "seed", seed);
    cJSON_AddItemToObject(o, "record", cJSON_Parse(rec.s ? rec.s : "{}"));
    util_buf_free(&rec);
    cJSON_AddStringToObject(o, "command", x->command.s ? x->command.s : "");
    cJSON *env = cJSON_AddArrayToObject(o, "env");
    for (int i = 0; i < x->nenv; i++)
        cJSON_AddItemToArray(env, cJSON_CreateString(x->env[i]));
    cJSON_AddNumberToObject(o, "timeout_s", camp_wl_timeout(c, job->wl_index));
    cJSON_AddNumberToObject(o, "grace_s", c->grace_s);
    cJSON_AddNumberToObject(o, "mem_cap_bytes",
                            camp_wl_memory_mb(c, job->wl_index) * 1048576.0);
    cJSON_AddNumberToObject(o, "out_cap_bytes", c->output_cap_mb * 1048576.0);
    return o;
}

static void put_quoted(util_buf *b, const char *s)
{
    util_buf_puts(b, "'");
    for (const char *p = s; *p; p++)
        util_buf_puts(b, *p == '\'' ? "'\\''" : (char[]){*p, '\0'});
    util_buf_puts(b, "'");
}

/* JOBDIR/cmd.sh: the exact command the executor runs (sh -c COMMAND in
 * the job directory, the inherited environment plus the job's changes),
 * runnable by hand. */
static int write_cmd_sh(const be_job *job, const be_exec *x, gd_err *err)
{
    char cfg[SPACE_CANON_MAX], abs[PATH_MAX];
    space_config_canon(&job->camp->space, &job->cfg, cfg, sizeof cfg);
    if (!realpath(job->job_dir, abs))
        util_strlcpy(abs, job->job_dir, sizeof abs);
    util_buf b;
    util_buf_init(&b);
    util_buf_printf(&b, "#!/bin/sh\n# gpudse job %s: workload %s\n# config "
                    "%s\n# The command gpudse ran for this job, in this "
                    "directory, with the\n# environment changes it made; "
                    "run it by hand to reproduce the job\n# (its outputs "
                    "land here), or: gpudse job-run THIS_DIRECTORY\ncd ",
                    job->key, job->workload->name, cfg);
    put_quoted(&b, abs);
    util_buf_puts(&b, " || exit 1\n");
    for (int i = 0; i < x->nenv; i++) {
        const char *eq = strchr(x->env[i], '=');
        if (!eq)
            continue;
        util_buf_printf(&b, "%.*s=", (int)(eq - x->env[i]), x->env[i]);
        put_quoted(&b, eq + 1);
        util_buf_printf(&b, "; export %.*s\n", (int)(eq - x->env[i]),
                        x->env[i]);
    }
    util_buf_puts(&b, "exec /bin/sh -c ");
    put_quoted(&b, x->command.s ? x->command.s : "");
    util_buf_puts(&b, "\n");
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job->job_dir, "cmd.sh");
    int rc = util_write_file_plain(path, b.s, b.len, err);
    util_buf_free(&b);
    if (!rc && chmod(path, 0755) != 0)
        rc = gd_errf(err, GD_EENV, "%s: %s", path, strerror(errno));
    return rc;
}

/* JOBDIR/config.json: which job this is — key, workload, backend, seed
 * and every knob's value. */
static int write_config_json(const be_backend *be, const be_job *job,
                             gd_err *err)
{
    cJSON *o = cJSON_CreateObject();
    char seed[32], v[32];
    snprintf(seed, sizeof seed, "%" PRIu64, job->seed);
    cJSON_AddStringToObject(o, "key", job->key);
    cJSON_AddStringToObject(o, "workload", job->workload->name);
    cJSON_AddStringToObject(o, "backend", be->name);
    cJSON_AddStringToObject(o, "seed", seed);
    cJSON *c = cJSON_AddObjectToObject(o, "config");
    const space_def *sp = job->camp ? &job->camp->space : NULL;
    for (int k = 0; k < space_nknobs(sp); k++) {
        int val = space_get(&job->cfg, k);
        space_level_str(sp, k, val, v, sizeof v);
        if (!space_knob_numeric(sp, k))
            cJSON_AddStringToObject(c, space_knob_name(sp, k), v);
        else if (k < SPACE_NKNOBS)
            cJSON_AddNumberToObject(c, space_knob_name(sp, k), val);
        else
            cJSON_AddNumberToObject(c, space_knob_name(sp, k), atof(v));
    }
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job->job_dir, "config.json");
    int rc = text ? util_write_file_plain(path, text, strlen(text), err)
                  : gd_errf(err, GD_EENV, "%s: out of memory", path);
    cJSON_free(text);
    return rc;
}

int jobrun_write_spec(const be_backend *be, const be_job *job,
                      const be_exec *x, const char *campaign_path,
                      gd_err *err)
{
    cJSON *o = spec_json(be, job, x, campaign_path);
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job->job_dir, JOBRUN_SPEC);
    int rc = be_make_job_dir(job->job_dir, err);
    char *text = o ? cJSON_Print(o) : NULL;
    /* renamed into place (a reader sees all of it or none) without an
     * fsync: a job whose files a power cut lost is not journaled, so it is
     * prepared again on resume */
    if (!rc)
        rc = text ? util_write_file_replace(path, text, strlen(text), err)
                  : gd_errf(err, GD_EENV, "%s: out of memory", path);
    cJSON_free(text);
    cJSON_Delete(o);
    if (!rc)
        rc = write_config_json(be, job, err);
    return rc ? rc : write_cmd_sh(job, x, err);
}

/* What job-run needs from job.json; command and env are malloc'd. */
typedef struct {
    char campaign[PATH_MAX];
    char backend[32];
    int wl_index;
    uint64_t seed;
    store_record rec;          /* the skeleton */
    char *command;
    char **env;                /* NULL-terminated */
    double timeout_s, grace_s, mem_cap, out_cap;
} spec_t;

static void spec_free(spec_t *s)
{
    free(s->command);
    for (char **e = s->env; e && *e; e++)
        free(*e);
    free(s->env);
}

static const char *str_of(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int num_of(const cJSON *o, const char *name, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(v))
        return -1;
    *out = v->valuedouble;
    return 0;
}

static int spec_env(const cJSON *o, spec_t *s)
{
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(o, "env");
    if (!cJSON_IsArray(env))
        return -1;
    int n = cJSON_GetArraySize(env);
    s->env = calloc((size_t)n + 1, sizeof *s->env);
    if (!s->env)
        return -1;
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(env, i);
        if (!cJSON_IsString(e) || !(s->env[i] = strdup(e->valuestring)))
            return -1;
    }
    return 0;
}

static int spec_parse(const cJSON *o, const char *path, const space_def *sp,
                      spec_t *s,
                      gd_err *err)
{
    const char *camp = str_of(o, "campaign"), *be = str_of(o, "backend");
    const char *seed = str_of(o, "seed"), *cmd = str_of(o, "command");
    double wl;
    if (!camp || !be || !seed || !cmd || num_of(o, "workload_index", &wl)
        || num_of(o, "timeout_s", &s->timeout_s)
        || num_of(o, "grace_s", &s->grace_s)
        || num_of(o, "mem_cap_bytes", &s->mem_cap)
        || num_of(o, "out_cap_bytes", &s->out_cap) || spec_env(o, s))
        return gd_errf(err, GD_EINPUT, "%s:1: a field is missing or has the "
                       "wrong type (written by another gpudse version?)",
                       path);
    util_strlcpy(s->campaign, camp, sizeof s->campaign);
    util_strlcpy(s->backend, be, sizeof s->backend);
    s->wl_index = (int)wl;
    s->seed = strtoull(seed, NULL, 10);
    if (!(s->command = strdup(cmd)))
        return gd_errf(err, GD_EENV, "out of memory");
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(o, "record");
    char *text = rec ? cJSON_PrintUnformatted(rec) : NULL;
    int rc = text ? store_record_from_json_in(sp, text, path, 1, &s->rec,
                                              err)
                  : gd_errf(err, GD_EINPUT, "%s:1: no record", path);
    cJSON_free(text);
    return rc;
}

static int spec_read(const char *job_dir, const space_def *sp, spec_t *s,
                     gd_err *err)
{
    memset(s, 0, sizeof *s);
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job_dir, JOBRUN_SPEC);
    char *text;
    int rc = util_read_file(path, &text, NULL, err);
    if (rc)
        return rc;
    cJSON *o = cJSON_Parse(text);
    free(text);
    if (!o)
        return gd_errf(err, GD_EINPUT, "%s:1: not valid JSON", path);
    rc = spec_parse(o, path, sp, s, err);
    cJSON_Delete(o);
    return rc;
}

/* ---- result.json ---- */

int jobrun_read_result(const char *job_dir, const space_def *sp,
                       store_record *r, gd_err *err)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job_dir, JOBRUN_RESULT);
    char *text;
    size_t len;
    int rc = util_read_file(path, &text, &len, err);
    if (rc)
        return GD_EINPUT;
    while (len && (text[len - 1] == '\n'))
        text[--len] = '\0';
    memset(r, 0, sizeof *r);
    rc = store_record_from_json_in(sp, text, path, 1, r, err);
    free(text);
    return rc;
}

static int write_result(const char *job_dir, const space_def *sp,
                        const store_record *r, gd_err *err)
{
    util_buf b;
    util_buf_init(&b);
    store_record_to_json_in(sp, r, &b);
    util_buf_add(&b, "\n", 1);
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job_dir, JOBRUN_RESULT);
    int rc = util_write_file_atomic(path, b.s, b.len, err);
    util_buf_free(&b);
    return rc;
}

/* status.json as the local path writes it: how the process ended. */
/* ---- running ---- */

/* Set by SIGTERM/SIGINT (Slurm's time limit, scancel): the one piece of
 * mutable static state, as a signal handler needs. */
static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void catch_stop(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* SIGTERM and SIGINT held back from here on (a job that ended is
 * classified and saved with them pending, never cut off half-way); 1 when
 * one came already: its handler ran, or it is pending. */
static int hold_stop(void)
{
    sigset_t s, pend;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGINT);
    sigprocmask(SIG_BLOCK, &s, NULL);
    sigemptyset(&pend);
    sigpending(&pend);
    return stop_flag || sigismember(&pend, SIGTERM)
           || sigismember(&pend, SIGINT);
}

/* Run the command to its end; 1 in *stopped when a signal to job-run cut
 * it short (then there is no result to write). From the job's end on,
 * SIGTERM and SIGINT are held (hold_stop): job_run asks again just before
 * it writes the result. */
static int execute(const char *job_dir, const spec_t *s, exec_result *res,
                   int *stopped, gd_err *err)
{
    exec_pool *pool;
    int rc = exec_pool_new(1, &pool, err);
    if (rc)
        return rc;
    exec_spec es = {job_dir, s->command, s->env, s->timeout_s, s->grace_s,
                    (size_t)s->mem_cap, (size_t)s->out_cap, NULL};
    rc = exec_pool_start(pool, &es, err);
    int k = 0;
    while (!rc && k == 0 && !stop_flag) {
        k = exec_pool_wait(pool, res, 1, -1, &stop_flag, err);
        if (k < 0)
            rc = err->code ? err->code : GD_EENV;
    }
    /* Slurm signals the whole task, the job too: once we were told to
     * stop, how the job ended says nothing about the job itself. The job
     * may die of that SIGTERM (or the SIGKILL after it) a moment before
     * our own handler runs: a job killed by a signal we did not send is
     * Slurm's doing too, and its state (CANCELLED, TIMEOUT, ...) classifies
     * it. */
    int sig = res->signaled ? res->signo
              : res->exited && res->exit_code > 128 ? res->exit_code - 128
                                                    : 0;  /* a shell's report */
    int outside = k == 1 && !res->timed_out
                  && (sig == SIGTERM || sig == SIGKILL);
    *stopped = !rc && (hold_stop() || k == 0 || outside);
    if (*stopped && k == 0)
        exec_pool_stop_all(pool, s->grace_s, res);
    exec_pool_free(pool);
    return rc;
}

/* Best effort: on a full disk even this small file may not be written;
 * the task then ends without either file and Slurm's state classifies it
 * (a failure that `--retry failed` reruns). */
static void leave_env_error(const char *job_dir, const char *msg)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job_dir, JOBRUN_ENV_ERROR);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs(msg, f);
    fclose(f);
}

static int job_run(const char *job_dir, gd_err *err)
{
    spec_t s;
    int rc = spec_read(job_dir, NULL, &s, err);
    camp_campaign c;
    memset(&c, 0, sizeof c);
    if (!rc)
        rc = camp_load_meta(s.campaign, &c, err);
    if (!rc && c.space.nuser) {
        /* again, its config's user knobs read with the campaign's space */
        spec_free(&s);
        rc = spec_read(job_dir, &c.space, &s, err);
    }
    const be_backend *be = rc ? NULL : be_find(s.backend);
    if (!rc && (!be || be->in_process || s.wl_index < 0
                || s.wl_index >= c.nworkloads))
        rc = gd_errf(err, GD_EINPUT, "%s/%s: backend %s or workload %d is "
                     "not an external job of %s", job_dir, JOBRUN_SPEC,
                     s.backend, s.wl_index, s.campaign);
    exec_result res;
    memset(&res, 0, sizeof res);
    int stopped = 0;
    char stale[PATH_MAX];
    util_path_join(stale, sizeof stale, job_dir, JOBRUN_RESULT);
    if (!rc && remove(stale) != 0 && errno != ENOENT)
        rc = gd_errf(err, GD_EENV, "%s: %s (an earlier run's result must "
                     "go before this one runs)", stale, strerror(errno));
    if (!rc)
        rc = execute(job_dir, &s, &res, &stopped, err);
    if (!rc && stopped)
        rc = gd_errf(err, GD_EENV, "%s: stopped by a signal before the job "
                     "finished; no result written", job_dir);
    int saving = !rc;   /* from here an environment error is a save's */
    if (!rc && res.io_err)
        rc = jobsrc_output_error(job_dir, &res, err);
    if (!rc) {
        be_job bj = {&c, s.wl_index, &c.workloads[s.wl_index], s.rec.cfg,
                     s.seed, "", job_dir};
        memcpy(bj.key, s.rec.key, sizeof bj.key);
        store_record r = s.rec;
        rc = be->finish(&bj, &res, &r, err);
        if (!rc)
            rc = jobsrc_write_status(job_dir, 0, &res, &r, err);
        /* a stop that came while the job ended or was read: the job may
         * have ended because of it (Slurm signals the job first) */
        if (!rc && hold_stop()) {
            saving = 0;  /* a stop, not an environment error */
            rc = gd_errf(err, GD_EENV, "%s: stopped by a signal as the job "
                         "ended; no result written", job_dir);
        } else if (!rc)
            rc = write_result(job_dir, &c.space, &r, err);
    }
    if (saving && rc == GD_EENV)
        leave_env_error(job_dir, err->msg);
    camp_free(&c);
    spec_free(&s);
    return rc;
}

int jobrun_take_env_error(const char *job_dir, char *msg, size_t n)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job_dir, JOBRUN_ENV_ERROR);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t got = fread(msg, 1, n - 1, f);
    msg[got] = '\0';
    fclose(f);
    remove(path);
    if (!got)
        snprintf(msg, n, "job-run met an environment error");
    return 1;
}

int cmd_job_run(int argc, char **argv)
{
    const po_command cmd = {
        "job-run", "usage: gpudse job-run JOBDIR\n",
        "Run one prepared external job again from its JOBDIR/job.json (what a\n"
        "Slurm task runs; every external job, local or on Slurm, has one) and\n"
        "write JOBDIR/result.json. JOBDIR/cmd.sh runs the same command by hand.\n",
        NULL, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n != 1)
        return po_usage_error(&cmd, "job-run takes one job directory "
                              "(holding %s)", JOBRUN_SPEC);
    catch_stop();
    gd_err err = {0, ""};
    rc = job_run(argv[0], &err);
    if (rc)
        fprintf(stderr, "gpudse: job-run: %s\n", err.msg);
    return rc;
}
