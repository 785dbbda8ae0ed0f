/* exec_slurm: the Slurm executor — the dispatch loop's (batch.c) external
 * jobs run as array tasks of `gpudse job-run` whose results come back as
 * jobs/<key>/result.json on the shared run directory. Job state comes from
 * squeue and those files only (no sacct). Jobs the loop starts are queued
 * and submitted together, one array per workload, on the next wait. A
 * result is taken once squeue says its task COMPLETED: a task Slurm ended
 * otherwise (cancelled, timed out, preempted) is classified by its state
 * whatever result.json says, since its job may have ended because of that
 * signal and still printed metrics. */

#include "exec_slurm.h"
#include "execif.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "jobrun.h"

#define WINDOW 1000          /* jobs in flight; under Slurm's MaxArraySize */
#define POLL_MIN 0.2         /* result files: first look, and after news */
#define POLL_MAX 3.0         /* ... backing off while nothing happens */
#define SQUEUE_EVERY 2.0     /* seconds between squeue calls */
#define SQUEUE_CONFIRM 1.0   /* ... while results wait for their task's
                                end state */
#define RESULT_GRACE 10.0    /* a task Slurm says ended may still have a
                                result on its way (NFS attribute caches) */
#define SET_ASIDE "result.set-aside.json"  /* a result Slurm's state
                                overrode, kept to look at */
#define SLURM_JSON "slurm.json"

enum { PH_READY, PH_QUEUED };

typedef struct {
    exec_job x;                /* the job as the loop started it */
    int phase;                 /* PH_READY: to submit (a retry's backoff
                                  has passed: the loop holds it till then) */
    long jobid;                /* PH_QUEUED: the array's job id */
    int task;                  /* ... and the task index */
    double ended_at;           /* Slurm reported it ended (or lost it)
                                  without a result; 0 while alive */
    double queued_at;          /* submitted or adopted (now_s) */
    int cancelled;             /* this coordinator cancelled it (a stop):
                                  nothing of it is merged */
    char state[24];            /* last squeue state, "" when unknown */
    char sreason[64];          /* last squeue reason */
} sjob;

typedef struct {
    exec_host h;
    const batch_opts *o;
    const camp_cluster *k;
    sjob *jobs;                /* WINDOW slots, njobs used */
    size_t njobs;
    int news;                  /* something happened since the last nap */
    int nended;                /* jobs ended in this wait */
    double pollwait;           /* the nap between looks, backing off */
    double last_squeue;
    double squeue_ok_at;       /* the last squeue that answered */
    int unconfirmed;           /* results waiting for their task's end
                                  state (the last collect) */
    char bin[PATH_MAX];        /* the gpudse the tasks run */
    char sdir[PATH_MAX];       /* RUN/slurm: scripts, lists, task logs */
    char script[PATH_MAX];
} coord;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define logline(co, ...) jobsrc_log((co)->h.src, __VA_ARGS__)

static int stopped(const coord *co)
{
    return co->o->stop && *co->o->stop;
}

/* ---- Slurm states ---- */

int slurm_state_class(const char *state, int *infra, char *reason, size_t n)
{
    static const char *const alive[] = {"PENDING", "CONFIGURING", "RUNNING",
        "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
        "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD",
        "POWER_UP_NODE", "UPDATE_DB"};
    static const struct {
        const char *state;
        int status, infra;
        const char *why;
    } ended[] = {
        {"TIMEOUT", ST_TIMEOUT, 0, "Slurm's time limit (--time) ended it"},
        {"DEADLINE", ST_TIMEOUT, 0, "Slurm ended it at its deadline"},
        {"OUT_OF_MEMORY", ST_OOM, 0,
         "out of memory: Slurm's memory limit (--mem) ended it"},
        {"NODE_FAIL", ST_CRASHED, 1, "its node failed"},
        {"BOOT_FAIL", ST_CRASHED, 1, "its node failed to boot"},
        {"PREEMPTED", ST_FAILED, 1, "preempted by a higher-priority job"},
        {"CANCELLED", ST_FAILED, 0,
         "cancelled outside gpudse (scancel or an administrator)"},
        {"FAILED", ST_FAILED, 0, "job-run failed before writing a result"},
        {"COMPLETED", ST_FAILED, 0, "job-run ended without a result"},
        {"", ST_FAILED, 1, "Slurm no longer knows the job and it left no "
         "result"},
    };
    *infra = 0;
    for (size_t i = 0; i < sizeof alive / sizeof alive[0]; i++)
        if (!strcmp(state, alive[i]))
            return -1;
    for (size_t i = 0; i < sizeof ended / sizeof ended[0]; i++)
        if (!strcmp(state, ended[i].state)) {
            *infra = ended[i].infra;
            snprintf(reason, n, "%s", ended[i].why);
            return ended[i].status;
        }
    snprintf(reason, n, "Slurm state %s without a result", state);
    return ST_FAILED;
}

int slurm_result_verdict(const char *state, int known)
{
    if (!state[0])
        return known ? SLURM_TAKE : SLURM_WAIT;
    if (!strcmp(state, "COMPLETED"))
        return SLURM_TAKE;
    int infra;
    char why[8];
    return slurm_state_class(state, &infra, why, sizeof why) < 0
           ? SLURM_WAIT : SLURM_SET_ASIDE;
}

/* ---- running Slurm's commands ---- */

/* Read both pipes to their end (a full one would block the child); when
 * *stop is raised (stop may be NULL), SIGTERM the child once. */
static void drain(pid_t pid, int ofd, int efd, util_buf *out, util_buf *errs,
                  volatile sig_atomic_t *stop)
{
    struct pollfd p[2] = {{ofd, POLLIN, 0}, {efd, POLLIN, 0}};
    util_buf *to[2] = {out, errs};
    int open_ = 2, killed = 0;
    char buf[4096];
    while (open_ > 0) {
        if (stop && *stop && !killed) {
            kill(pid, SIGTERM);  /* e.g. squeue waiting on a controller */
            killed = 1;
        }
        int r = poll(p, 2, 100);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            ssize_t k = read(p[i].fd, buf, sizeof buf);
            if (k > 0) {
                util_buf_add(to[i], buf, (size_t)k);
            } else if (k == 0 || errno != EINTR) {
                close(p[i].fd);
                p[i].fd = -1;
                open_--;
            }
        }
    }
}

/* Run argv (no shell), its stdout into out and stderr into errs (both
 * NUL-terminated); returns its exit status, or -1 when it could not run or
 * was stopped by *stop (stop may be NULL). */
static int run_tool(char *const *argv, util_buf *out, util_buf *errs,
                    volatile sig_atomic_t *stop)
{
    int po[2], pe[2];
    if (pipe(po) != 0)
        return -1;
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        close(po[1]);
        close(pe[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    if (pid < 0) {
        close(po[0]);
        close(pe[0]);
        return -1;
    }
    drain(pid, po[0], pe[0], out, errs, stop);
    util_buf_add(out, "", 1);
    util_buf_add(errs, "", 1);
    out->len--;
    errs->len--;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- whether Slurm is there ---- */

/* What a failed Slurm command's stderr says is wrong with this host's
 * Slurm, as the start of a message; NULL when it is about the job. */
static const char *slurm_setup_problem(const char *errs)
{
    if (strstr(errs, "configuration") || strstr(errs, "slurm.conf")
        || strstr(errs, "fetch_config"))
        return "Slurm is not configured on this host (no slurm.conf found:"
               " set SLURM_CONF to the cluster's, or run with --executor "
               "local)";
    if (strstr(errs, "Unable to contact") || strstr(errs, "Connection refused")
        || strstr(errs, "Communication connection failure"))
        return "the Slurm controller does not answer (is slurmctld running "
               "and reachable?)";
    if (strstr(errs, "No such file or directory") && strstr(errs, "squeue"))
        return "Slurm's client commands (squeue, sbatch) are not installed "
               "on this host";
    return NULL;
}

/* The last line of a tool's stderr (Slurm's fatal one), for a message. */
static void last_line(const char *s, char *out, size_t n)
{
    size_t len = s ? strlen(s) : 0;
    while (len && s[len - 1] == '\n')
        len--;
    size_t start = len;
    while (start && s[start - 1] != '\n')
        start--;
    snprintf(out, n, "%.*s", (int)(len - start), s ? s + start : "");
}

int slurm_preflight(const camp_campaign *c, const char *executor,
                    gd_err *err)
{
    exec_choice ch;
    exec_choose(c, executor, 0, &ch);
    if (strcmp(ch.executor, "slurm") != 0)
        return GD_OK;
    const char *conf = getenv("SLURM_CONF");
    if (conf && *conf && !util_path_exists(conf))
        return gd_errf(err, GD_EENV, "Slurm is not configured on this host: "
                       "SLURM_CONF names %s, which does not exist; set it to "
                       "the cluster's slurm.conf, or run with --executor "
                       "local", conf);
    char user[32];
    snprintf(user, sizeof user, "--user=%ld", (long)getuid());
    char *argv[] = {"squeue", "--noheader", "--format=%i", user, NULL};
    util_buf out, errs;
    util_buf_init(&out);
    util_buf_init(&errs);
    int st = run_tool(argv, &out, &errs, NULL);
    int rc = GD_OK;
    if (st != 0) {
        const char *why = slurm_setup_problem(errs.s ? errs.s : "");
        char said[256];
        last_line(errs.s, said, sizeof said);
        rc = gd_errf(err, GD_EENV, "%s; squeue said: %s", why ? why
                     : "Slurm does not answer on this host (squeue failed)",
                     said[0] ? said : "nothing");
    }
    util_buf_free(&out);
    util_buf_free(&errs);
    return rc;
}

/* ---- jobs that ended ---- */

/* Job i ended: it leaves the list, and the loop journals it or starts it
 * again (exec_slurm_again keeps this attempt's files first). */
static int conclude(coord *co, size_t i, exec_end *e, gd_err *err)
{
    exec_job j = co->jobs[i].x;
    co->jobs[i] = co->jobs[--co->njobs];
    co->news = 1;
    co->nended++;
    return co->h.ended(co->h.loop, &j, e, err);
}

/* ---- job directories ---- */

static void job_file(const sjob *j, const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", j->x.dir, name);
}

static int write_slurm_json(const sjob *j, gd_err *err)
{
    char text[256], path[PATH_MAX + 16];
    int len = snprintf(text, sizeof text, "{\"job\": %ld, \"task\": %d, "
                       "\"attempt\": %d, \"infra\": %d}\n", j->jobid, j->task,
                       j->x.attempt, j->x.infra);
    job_file(j, SLURM_JSON, path, sizeof path);
    return util_write_file_atomic(path, text, (size_t)len, err);
}

/* A job a coordinator that died had submitted: its ids from slurm.json. */
static int read_slurm_json(sjob *j)
{
    char path[PATH_MAX + 16], *text;
    job_file(j, SLURM_JSON, path, sizeof path);
    if (util_read_file(path, &text, NULL, NULL) != GD_OK)
        return -1;
    cJSON *o = cJSON_Parse(text);
    free(text);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "job");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "task");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "attempt");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "infra");
    int ok = cJSON_IsNumber(id) && cJSON_IsNumber(t) && cJSON_IsNumber(a)
             && cJSON_IsNumber(f);
    if (ok) {
        j->jobid = (long)id->valuedouble;
        j->task = t->valueint;
        j->x.attempt = a->valueint;
        j->x.infra = f->valueint;
    }
    cJSON_Delete(o);
    return ok ? 0 : -1;
}

/* Keep the ended attempt's files under attemptN.* (N from 1, as the
 * local executor names them; j already counts the coming resubmission):
 * job.json stays, so it is submitted again as it is. */
static void slurm_again(void *ex, const exec_job *x)
{
    (void)ex;
    static const char *const files[] = {"stdout.log", "stderr.log",
                                        JOBRUN_RESULT, "status.json",
                                        SET_ASIDE};
    int n = x->attempt + x->infra;
    for (int i = 0; i < 5; i++) {
        char from[PATH_MAX + 16], to[PATH_MAX + 32];
        snprintf(from, sizeof from, "%s/%s", x->dir, files[i]);
        snprintf(to, sizeof to, "%s/attempt%d.%s", x->dir, n, files[i]);
        rename(from, to);
    }
    char sj[PATH_MAX + 16];
    snprintf(sj, sizeof sj, "%s/%s", x->dir, SLURM_JSON);
    remove(sj);
}

/* ---- starting and adopting ---- */

/* A job submitted by a coordinator that died: take it over. A task that
 * had ended in an environment error (the run stopped on another one
 * first) is not taken over: it is said in run.log and submitted anew. */
static int adopt(coord *co, sjob *j)
{
    char spec[PATH_MAX + 16], msg[512];
    job_file(j, JOBRUN_SPEC, spec, sizeof spec);
    if (jobrun_take_env_error(j->x.dir, msg, sizeof msg)) {
        logline(co, "environment error in %s, before this run: %s; it runs "
                "again", j->x.key, msg);
        return 0;
    }
    if (!util_path_exists(spec) || read_slurm_json(j) != 0)
        return 0;
    j->phase = PH_QUEUED;
    j->queued_at = now_s();
    logline(co, "adopted %s: Slurm job %ld_%d", j->x.key, j->jobid, j->task);
    return 1;
}

static sjob *new_slot(coord *co, const exec_job *x)
{
    sjob *j = &co->jobs[co->njobs];
    memset(j, 0, sizeof *j);
    j->x = *x;
    return j;
}

/* A resubmission is ready as it is; a first attempt is adopted when a
 * coordinator that died had submitted it, else its directory is made
 * afresh (a rerun's old task files are cleared). */
static int slurm_setup(void *ex, const exec_job *x, int *how, gd_err *err)
{
    coord *co = ex;
    if (x->attempt + x->infra > 0) {
        *how = EXEC_READY;
        return GD_OK;
    }
    if (!x->rerun && adopt(co, new_slot(co, x))) {
        co->njobs++;
        *how = EXEC_ADOPTED;
        return GD_OK;
    }
    *how = EXEC_FRESH;
    return jobsrc_fresh_dir(x->dir, err);
}

/* Queue the job for the next submission (its job.json is written). */
static int slurm_launch(void *ex, const exec_job *x, const be_exec *bx,
                        gd_err *err)
{
    (void)bx;
    coord *co = ex;
    if (co->njobs >= WINDOW)
        return gd_errf(err, GD_EENV, "internal error: the Slurm window is "
                       "full at %s", x->key);
    sjob *j = new_slot(co, x);
    j->phase = PH_READY;
    co->njobs++;
    return GD_OK;
}

static int slurm_room(const void *ex, int held)
{
    const coord *co = ex;
    return WINDOW - (int)co->njobs - held;
}

static int slurm_busy(const void *ex)
{
    return (int)((const coord *)ex)->njobs;
}

/* ---- submitting ---- */

static void add_arg(char **argv, int *argc, int max, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_arg(char **argv, int *argc, int max, const char *fmt, ...)
{
    if (*argc >= max)
        return;
    char buf[PATH_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if ((argv[*argc] = strdup(buf)) != NULL)
        (*argc)++;
}

#define MAXARGS 64

/* sbatch's argument vector for an array of ntasks of workload wl listed
 * in list: the array is named after the campaign and the workload, and
 * asks for the workload's resources. */
static int sbatch_argv(const coord *co, int wl, int ntasks, const char *list,
                       char **argv)
{
    const camp_campaign *c = co->o->c;
    int n = 0;
    add_arg(argv, &n, MAXARGS, "sbatch");
    add_arg(argv, &n, MAXARGS, "--parsable");
    if (co->k->array_limit > 0)
        add_arg(argv, &n, MAXARGS, "--array=0-%d%%%d", ntasks - 1,
                co->k->array_limit);
    else
        add_arg(argv, &n, MAXARGS, "--array=0-%d", ntasks - 1);
    add_arg(argv, &n, MAXARGS, "--job-name=gpudse-%s-%s", c->name,
            c->workloads[wl].name);
    add_arg(argv, &n, MAXARGS, "--output=%s/%%A_%%a.log", co->sdir);
    add_arg(argv, &n, MAXARGS, "--chdir=%s", co->sdir);
    double timeout = camp_wl_timeout(c, wl), mem = camp_wl_memory_mb(c, wl);
    if (timeout > 0) /* job-run's own timeout and grace come first */
        add_arg(argv, &n, MAXARGS, "--time=%ld",
                (long)ceil((timeout + c->grace_s + 60) / 60));
    if (mem > 0)
        add_arg(argv, &n, MAXARGS, "--mem=%ldM", (long)ceil(mem) + 64);
    if (camp_wl_cpus(c, wl) > 0)
        add_arg(argv, &n, MAXARGS, "--cpus-per-task=%d", camp_wl_cpus(c, wl));
    if (camp_wl_gres(c, wl)[0])
        add_arg(argv, &n, MAXARGS, "--gres=%s", camp_wl_gres(c, wl));
    if (co->k->partition[0])
        add_arg(argv, &n, MAXARGS, "--partition=%s", co->k->partition);
    if (co->k->account[0])
        add_arg(argv, &n, MAXARGS, "--account=%s", co->k->account);
    char extra[sizeof co->k->sbatch_options], *save = NULL;
    util_strlcpy(extra, co->k->sbatch_options, sizeof extra);
    for (char *t = strtok_r(extra, " \t\n", &save); t;
         t = strtok_r(NULL, " \t\n", &save))
        add_arg(argv, &n, MAXARGS - 3, "%s", t);
    add_arg(argv, &n, MAXARGS, "%s", co->script);
    add_arg(argv, &n, MAXARGS, "%s", list);
    argv[n] = NULL;
    return n;
}

static void free_argv(char **argv)
{
    for (int i = 0; argv[i]; i++)
        free(argv[i]);
}

/* One sbatch for the listed jobs; their array job id into *jobid. */
static int sbatch(coord *co, int wl, const char *list, int ntasks,
                  long *jobid, gd_err *err)
{
    char *argv[MAXARGS + 1];
    sbatch_argv(co, wl, ntasks, list, argv);
    util_buf out, errs;
    util_buf_init(&out);
    util_buf_init(&errs);
    int st = run_tool(argv, &out, &errs, NULL);  /* never cut short: a
        submission that went through must get its ids recorded */
    free_argv(argv);
    char *end = NULL;
    *jobid = out.s ? strtol(out.s, &end, 10) : 0;
    int rc = GD_OK;
    const char *setup = slurm_setup_problem(errs.s ? errs.s : "");
    if (setup && (st != 0 || *jobid <= 0))
        rc = gd_errf(err, GD_EENV, "sbatch failed: %s: %s", setup,
                     errs.s ? errs.s : "");
    else if (st != 0 || *jobid <= 0 || !end || (*end && *end != ';'
                                                && *end != '\n'))
        rc = gd_errf(err, GD_EENV, "sbatch failed (exit %d): %s%s; check "
                     "the <execution> partition, account and sbatch-options, "
                     "then run again to resume", st,
                     errs.s ? errs.s : "", out.s ? out.s : "");
    util_buf_free(&out);
    util_buf_free(&errs);
    return rc;
}

/* Submit the jobs of workload wl that are ready as one array job. */
static int submit_workload(coord *co, int wl, size_t *pick, gd_err *err)
{
    util_buf list;
    util_buf_init(&list);
    int n = 0;
    for (size_t i = 0; i < co->njobs; i++)
        if (co->jobs[i].x.wl == wl && co->jobs[i].phase == PH_READY) {
            pick[n++] = i;
            util_buf_printf(&list, "%s\n", co->jobs[i].x.dir);
        }
    int rc = GD_OK;
    if (n > 0) {
        const sjob *first = &co->jobs[pick[0]];
        char lpath[PATH_MAX + 96];
        snprintf(lpath, sizeof lpath, "%s/array-%.16s-%d.txt", co->sdir,
                 first->x.key, first->x.attempt + first->x.infra);
        long id = 0;
        rc = util_write_file_atomic(lpath, list.s, list.len, err);
        if (!rc)
            rc = sbatch(co, wl, lpath, n, &id, err);
        for (int t = 0; !rc && t < n; t++) {
            sjob *j = &co->jobs[pick[t]];
            j->phase = PH_QUEUED;
            j->jobid = id;
            j->task = t;
            j->ended_at = 0;
            j->queued_at = now_s();
            rc = write_slurm_json(j, err);
        }
        if (!rc)
            logline(co, "submitted Slurm array job %ld: %d task(s) of %s", id,
                    n, co->o->c->workloads[wl].name);
        co->news = 1;
    }
    util_buf_free(&list);
    return rc;
}

/* Submit every job that is ready: an array job per workload, as each
 * workload's jobs may ask for their own resources. */
static int submit(coord *co, gd_err *err)
{
    size_t *pick = malloc(co->njobs ? co->njobs * sizeof *pick : 1);
    if (!pick)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = GD_OK;
    for (int wl = 0; !rc && wl < co->o->c->nworkloads; wl++)
        rc = submit_workload(co, wl, pick, err);
    free(pick);
    return rc;
}

/* ---- collecting ---- */

static int has_result(const sjob *j)
{
    char path[PATH_MAX + 16];
    job_file(j, JOBRUN_RESULT, path, sizeof path);
    return util_path_exists(path);
}

/* The task's wall time (job-run's status.json, for timing.csv); NAN when
 * it is not there. */
static double task_wall(const sjob *j)
{
    char path[PATH_MAX + 16], *text;
    job_file(j, "status.json", path, sizeof path);
    if (util_read_file(path, &text, NULL, NULL) != GD_OK)
        return NAN;
    cJSON *o = cJSON_Parse(text);
    free(text);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "wall_s");
    double wall = cJSON_IsNumber(w) ? w->valuedouble : NAN;
    cJSON_Delete(o);
    return wall;
}

/* Merge result.json of job i. */
static int merge(coord *co, size_t i, gd_err *err)
{
    sjob *j = &co->jobs[i];
    exec_end e;
    memset(&e, 0, sizeof e);
    gd_err why = {0, ""};
    if (jobrun_read_result(j->x.dir, &co->o->c->space, &e.rec, &why) != GD_OK
        || strcmp(e.rec.key, j->x.key) != 0) {
        memset(&e.rec, 0, sizeof e.rec);
        e.rec.status = ST_FAILED;
        snprintf(e.rec.reason, sizeof e.rec.reason, "unreadable result: %s",
                 why.msg[0] ? why.msg : "key differs");
    }
    e.wall_s = task_wall(j);
    return conclude(co, i, &e, err);
}

static int conclude_by_state(coord *co, size_t i, int set_aside,
                             gd_err *err);

/* What to do with job j's result.json (slurm_result_verdict): Slurm's
 * state is known when an squeue that started after the task was queued
 * answered. */
static int verdict(const coord *co, const sjob *j)
{
    return slurm_result_verdict(j->state, co->squeue_ok_at > j->queued_at);
}

/* A result whose task Slurm ended otherwise than COMPLETED: kept as
 * result.set-aside.json, and the state classifies the task. */
static int set_aside(coord *co, size_t i, gd_err *err)
{
    sjob *j = &co->jobs[i];
    char from[PATH_MAX + 16], to[PATH_MAX + 32];
    job_file(j, JOBRUN_RESULT, from, sizeof from);
    job_file(j, SET_ASIDE, to, sizeof to);
    rename(from, to);
    logline(co, "%s: Slurm job %ld_%d ended %s, so its result.json is not "
            "taken (set aside as %s)", j->x.key, j->jobid, j->task,
            j->state, SET_ASIDE);
    return conclude_by_state(co, i, 1, err);
}

/* Merge the results whose tasks COMPLETED; count in co->unconfirmed those
 * waiting for Slurm to say how their task ended. */
static int collect(coord *co, gd_err *err)
{
    co->unconfirmed = 0;
    for (size_t i = 0; i < co->njobs;) {
        size_t before = co->njobs;
        sjob *j = &co->jobs[i];
        if (j->phase == PH_QUEUED && !j->cancelled && has_result(j)) {
            int v = verdict(co, j), rc = GD_OK;
            if (v == SLURM_WAIT)
                co->unconfirmed++;
            else
                rc = v == SLURM_TAKE ? merge(co, i, err)
                                     : set_aside(co, i, err);
            if (rc)
                return rc;
            if (co->njobs < before)
                continue;  /* slot i holds another job now */
        }
        i++;
    }
    return GD_OK;
}

static sjob *find_task(coord *co, long id, int task)
{
    for (size_t i = 0; i < co->njobs; i++)
        if (co->jobs[i].phase == PH_QUEUED && co->jobs[i].jobid == id
            && co->jobs[i].task == task)
            return &co->jobs[i];
    return NULL;
}

/* Parse squeue's "%F|%K|%T|%r" lines into the jobs' states. */
static void read_states(coord *co, char *text)
{
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        char *f[4] = {l, NULL, NULL, NULL};
        for (int k = 1; k < 4 && f[k - 1]; k++) {
            char *bar = strchr(f[k - 1], '|');
            if (bar) {
                *bar = '\0';
                f[k] = bar + 1;
            }
        }
        if (!f[3])
            continue;
        sjob *j = find_task(co, strtol(f[0], NULL, 10),
                            (int)strtol(f[1], NULL, 10));
        if (j) {
            util_strlcpy(j->state, f[2], sizeof j->state);
            util_strlcpy(j->sreason, f[3], sizeof j->sreason);
        }
    }
}

/* A task Slurm ended (or forgot) without a result: its record; or, when
 * job-run could not save the job's output or status (a full disk), an
 * environment error that stops the run with nothing journaled: the job
 * runs again on resume (its submission record is removed, so it is
 * submitted anew rather than adopted), as the local executor does. */
static int conclude_by_state(coord *co, size_t i, int set_aside,
                             gd_err *err)
{
    sjob *j = &co->jobs[i];
    char msg[sizeof err->msg - 64];
    if (jobrun_take_env_error(j->x.dir, msg, sizeof msg)) {
        char sj[PATH_MAX + 16];
        job_file(j, SLURM_JSON, sj, sizeof sj);
        remove(sj);
        logline(co, "environment error in %s: %s", j->x.key, msg);
        return gd_errf(err, GD_EENV, "Slurm job %ld_%d: %s", j->jobid,
                       j->task, msg);
    }
    exec_end e;
    memset(&e, 0, sizeof e);
    store_record *rec = &e.rec;
    char why[160];
    rec->status = slurm_state_class(j->state, &e.infra, why, sizeof why);
    e.wall_s = NAN;
    snprintf(e.infra_what, sizeof e.infra_what, "Slurm %s", j->state);
    snprintf(rec->reason, sizeof rec->reason, "Slurm job %ld_%d %s%s%s: %s; "
             "%ssee slurm/%ld_%d.log", j->jobid, j->task,
             j->state[0] ? j->state : "unknown",
             j->sreason[0] && strcmp(j->sreason, "None") ? " " : "",
             j->sreason[0] && strcmp(j->sreason, "None") ? j->sreason : "",
             why, set_aside ? "the result it wrote as it ended is not taken ("
             SET_ASIDE "); " : "", j->jobid, j->task);
    return conclude(co, i, &e, err);
}

static int any_queued(const coord *co)
{
    for (size_t i = 0; i < co->njobs; i++)
        if (co->jobs[i].phase == PH_QUEUED)
            return 1;
    return 0;
}

/* Ask squeue for every task's state (stop: cut it short when raised, may
 * be NULL); 0 when it answered, else -1 with the states as they were. */
static int query_states(coord *co, volatile sig_atomic_t *stop)
{
    double started = co->last_squeue = now_s();
    char user[32];
    snprintf(user, sizeof user, "--user=%ld", (long)getuid());
    char *argv[] = {"squeue", "--noheader", "--array", "--states=all",
                    "--format=%F|%K|%T|%r", user, NULL};
    util_buf out, errs;
    util_buf_init(&out);
    util_buf_init(&errs);
    int st = run_tool(argv, &out, &errs, stop);
    if (st != 0) {  /* the controller may be busy: ask again later */
        logline(co, "squeue failed (exit %d): %s", st,
                errs.s ? errs.s : "");
    } else {
        for (size_t i = 0; i < co->njobs; i++)
            co->jobs[i].state[0] = co->jobs[i].sreason[0] = '\0';
        read_states(co, out.s ? out.s : (char *)"");
        co->squeue_ok_at = started;
    }
    util_buf_free(&out);
    util_buf_free(&errs);
    return st != 0 ? -1 : 0;
}

static int poll_squeue(coord *co, gd_err *err)
{
    if (query_states(co, co->o->stop) != 0)
        return GD_OK;
    double now = now_s();
    int rc = GD_OK;
    for (size_t i = 0; !rc && i < co->njobs;) {
        sjob *j = &co->jobs[i];
        int infra;
        char why[8];
        size_t before = co->njobs;
        if (j->phase != PH_QUEUED
            || slurm_state_class(j->state, &infra, why, sizeof why) < 0) {
            j->ended_at = 0;
        } else if (j->ended_at == 0) {
            j->ended_at = now;
        } else if (now - j->ended_at >= RESULT_GRACE && !has_result(j)) {
            rc = conclude_by_state(co, i, 0, err);
            if (co->njobs < before)
                continue;  /* slot i holds another job now */
        }
        i++;
    }
    return rc;
}

/* ---- stopping ---- */

/* SIGINT: cancel every queued or running task; they run again on resume,
 * whatever they write after (a job may end because of the cancel and
 * still print metrics). Results whose tasks COMPLETED are kept: squeue is
 * asked once more when results wait for that. On an error the tasks keep
 * running: a resumed run adopts them. */
static int slurm_stop(void *ex, int stopping)
{
    coord *co = ex;
    if (!stopping)
        return 0;
    gd_err ignore;
    collect(co, &ignore);  /* what finished meanwhile is kept */
    if (co->unconfirmed && query_states(co, NULL) == 0)
        collect(co, &ignore);
    char *argv[MAXARGS + 1];
    int n = 0;
    add_arg(argv, &n, MAXARGS, "scancel");
    int ncancel = 0;
    for (size_t i = 0; i < co->njobs; i++) {
        sjob *j = &co->jobs[i];
        if (j->phase != PH_QUEUED)
            continue;
        ncancel++;
        j->cancelled = 1;
        char sj[PATH_MAX + 16];
        job_file(j, SLURM_JSON, sj, sizeof sj);
        remove(sj);
        int seen = 0;
        for (int a = 1; a < n; a++)
            seen |= strtol(argv[a], NULL, 10) == j->jobid;
        if (!seen)
            add_arg(argv, &n, MAXARGS, "%ld", j->jobid);
        logline(co, "interrupted %s: cancelled Slurm job %ld_%d, it runs "
                "again on resume", j->x.key, j->jobid, j->task);
    }
    argv[n] = NULL;
    if (n > 1) {
        util_buf out, errs;
        util_buf_init(&out);
        util_buf_init(&errs);
        int st = run_tool(argv, &out, &errs, NULL);
        if (st != 0)
            logline(co, "scancel failed (exit %d): %s", st,
                    errs.s ? errs.s : "");
        util_buf_free(&out);
        util_buf_free(&errs);
    }
    free_argv(argv);
    return ncancel;
}

/* ---- the loop ---- */

static void nap(const coord *co, double s)
{
    for (double t = 0; t < s && !stopped(co); t += 0.05) {
        struct timespec ts = {0, 50000000L};
        nanosleep(&ts, NULL);
    }
}

/* Submit what is ready, merge the results that came back and ask squeue
 * now and then, napping between looks (longer while nothing happens), until
 * a job ended, wait_s passed or the stop flag was raised. */
static int slurm_wait(void *ex, double wait_s, int *nended, gd_err *err)
{
    coord *co = ex;
    double until = wait_s < 0 ? INFINITY : now_s() + wait_s;
    int rc = GD_OK;
    co->nended = 0;
    for (;;) {
        co->news = 0;
        if (!stopped(co))
            rc = submit(co, err);
        if (!rc)
            rc = collect(co, err);
        if (!rc && !stopped(co) && any_queued(co)
            && now_s() - co->last_squeue >= (co->unconfirmed ? SQUEUE_CONFIRM
                                                             : SQUEUE_EVERY)) {
            rc = poll_squeue(co, err);
            if (!rc && co->unconfirmed)  /* what it confirmed, now */
                rc = collect(co, err);
        }
        double left = until - now_s();
        if (rc || stopped(co) || co->nended > 0 || left <= 0
            || (co->njobs == 0 && wait_s < 0))
            break;
        co->pollwait = co->news ? POLL_MIN : fmin(co->pollwait * 1.5,
                                                  POLL_MAX);
        if (co->unconfirmed)
            co->pollwait = fmin(co->pollwait, SQUEUE_CONFIRM);
        nap(co, fmin(co->pollwait, left));
    }
    *nended = co->nended;
    return rc;
}

/* ---- set-up ---- */

static void put_quoted(util_buf *b, const char *s)
{
    util_buf_puts(b, "'");
    for (const char *p = s; *p; p++)
        util_buf_puts(b, *p == '\'' ? "'\\''" : (char[]){*p, '\0'});
    util_buf_puts(b, "'");
}

/* RUN/slurm/job-run.sh: an array task runs the job directory on line
 * SLURM_ARRAY_TASK_ID + 1 of the list file given as $1, with the same data
 * folder (schemas) as this coordinator. */
static int write_script(coord *co, gd_err *err)
{
    char data[PATH_MAX], abs[PATH_MAX];
    int rc = util_datadir(data, sizeof data, err);
    if (rc)
        return rc;
    if (!realpath(data, abs))
        return gd_errf(err, GD_EENV, "%s: %s", data, strerror(errno));
    util_buf b;
    util_buf_init(&b);
    util_buf_puts(&b, "#!/bin/sh\n# gpudse: one Slurm array task runs one "
                  "job directory of the list file $1\n"
                  "dir=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$1\")\n"
                  "[ -n \"$dir\" ] || { echo \"gpudse: no job directory for "
                  "task $SLURM_ARRAY_TASK_ID in $1\" >&2; exit 3; }\n"
                  "GPUDSE_DATA=");
    put_quoted(&b, abs);
    util_buf_puts(&b, "\nexport GPUDSE_DATA\nexec ");
    put_quoted(&b, co->bin);
    util_buf_puts(&b, " job-run \"$dir\"\n");
    util_path_join(co->script, sizeof co->script, co->sdir, "job-run.sh");
    rc = util_write_file_atomic(co->script, b.s, b.len, err);
    util_buf_free(&b);
    if (!rc && chmod(co->script, 0755) != 0)
        rc = gd_errf(err, GD_EENV, "%s: %s", co->script, strerror(errno));
    return rc;
}

/* The gpudse the tasks run: $GPUDSE_BIN, else this program. */
static int find_bin(coord *co, gd_err *err)
{
    const char *env = getenv("GPUDSE_BIN");
    if (env && *env ? !realpath(env, co->bin)
                    : !realpath("/proc/self/exe", co->bin))
        return gd_errf(err, GD_EENV, "cannot find the gpudse program for "
                       "the Slurm tasks (%s): %s", env && *env ? env
                       : "/proc/self/exe", strerror(errno));
    return GD_OK;
}

static void slurm_close(void *ex)
{
    coord *co = ex;
    if (co)
        free(co->jobs);
    free(co);
}

/* RUN/slurm with the tasks' script, and room for WINDOW jobs. */
static int slurm_open(const exec_host *h, void **ex, gd_err *err)
{
    *ex = NULL;
    coord *co = calloc(1, sizeof *co);
    if (!co || !(co->jobs = calloc(WINDOW, sizeof *co->jobs))) {
        slurm_close(co);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    co->h = *h;
    co->o = h->o;
    co->k = &h->o->c->cluster;
    co->pollwait = POLL_MIN;
    co->last_squeue = -1e9;
    util_path_join(co->sdir, sizeof co->sdir, h->o->rundir, "slurm");
    int rc = find_bin(co, err);
    if (!rc)
        rc = util_mkdirs(co->sdir, err);
    if (!rc)
        rc = write_script(co, err);
    if (rc) {
        slurm_close(co);
        return rc;
    }
    logline(co, "executor slurm: tasks run %s job-run", co->bin);
    *ex = co;
    return GD_OK;
}

const exec_ops *exec_slurm_ops(void)
{
    static const exec_ops ops = {
        .name = "slurm", .open = slurm_open, .close = slurm_close,
        .room = slurm_room, .keeps_places = 1, .window = WINDOW,
        .busy = slurm_busy, .setup = slurm_setup, .launch = slurm_launch,
        .wait = slurm_wait, .again = slurm_again, .stop = slurm_stop,
    };
    return &ops;
}
