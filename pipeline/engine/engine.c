/* engine: takes a campaign to a finished run directory. It validates the
 * campaign before touching the disk, locks the run directory, copies the
 * campaign, writes the manifest, runs every proposed job whose key is not
 * yet in the journal, then runs analysis and report. */
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "analysis.h"
#include "annotate.h"
#include "backend.h"
#include "campaign.h"
#include "identity.h"
#include "manifest.h"
#include "report.h"
#include "rundir.h"
#include "batch.h"
#include "execif.h"
#include "preflight.h"
#include "strategy.h"
#include "mfloop.h"
#include "verify.h"

typedef struct {
    const eng_opts *o;
    camp_campaign c;
    const be_backend *be;
    char dir[PATH_MAX];
    int lock_fd;
    FILE *log;
    store *st;
    char started[32];
    cJSON *identity, *settings;  /* of this campaign file (identity.h) */
    cJSON *history;            /* the manifest's, with this session's change */
    cJSON *changes;            /* settings changed since the last session */
    int unchanged;             /* the same campaign file as last session's,
                                  by the same gpudse */
    long budgets[64];          /* the budgets the search went through */
    int nbudgets;
    /* counts of this session */
    uint64_t planned, ran, skipped, torn;
} run_t;

static void utc_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* run.log holds everything that varies from run to run (times, host, pid),
 * so results.jsonl and analysis.json stay reproducible. */
static void logf_(run_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void logf_(run_t *r, const char *fmt, ...)
{
    if (!r->log)
        return;
    char ts[32];
    utc_now(ts, sizeof ts);
    fprintf(r->log, "%s ", ts);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->log, fmt, ap);
    va_end(ap);
    fputc('\n', r->log);
    fflush(r->log);
}

static void say(run_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(run_t *r, const char *fmt, ...)
{
    if (r->o->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static int budget_exceeds_space(const run_t *r)
{
    return r->c.budget > 0
           && (uint64_t)r->c.budget > space_size(&r->c.space);
}

/* The run directory's manifest.json, or NULL when it has none (or none
 * that parses: an older tool's, or a session that died before writing). */
static cJSON *read_manifest(const char *dir)
{
    char path[PATH_MAX], *text;
    util_path_join(path, sizeof path, dir, "manifest.json");
    if (util_read_file(path, &text, NULL, NULL) != GD_OK)
        return NULL;
    cJSON *m = cJSON_Parse(text);
    free(text);
    return m;
}

/* This session's entry in the manifest's history: the campaign file's
 * hashes and what changed (settings, or only comments and formatting). */
static int add_history(run_t *r, cJSON *old, const char *oldsha,
                       gd_err *err)
{
    cJSON *h = cJSON_DetachItemFromObjectCaseSensitive(old, "history");
    r->history = cJSON_IsArray(h) ? h : cJSON_CreateArray();
    if (h && !cJSON_IsArray(h))
        cJSON_Delete(h);
    if (!strcmp(oldsha, r->c.sha256) && !cJSON_GetArraySize(r->changes)) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(old, "version");
        r->unchanged = cJSON_IsString(v)
                       && !strcmp(v->valuestring, GPUDSE_VERSION);
        return GD_OK;
    }
    if (!cJSON_GetArraySize(r->changes))
        cJSON_AddItemToArray(r->changes, cJSON_CreateString(
            "comments or formatting only"));
    cJSON *e = cJSON_CreateObject();
    char now[32];
    utc_now(now, sizeof now);
    cJSON_AddStringToObject(e, "time", now);
    cJSON_AddStringToObject(e, "campaign_sha256_before", oldsha);
    cJSON_AddStringToObject(e, "campaign_sha256", r->c.sha256);
    cJSON_AddItemReferenceToObject(e, "changes", r->changes);
    cJSON_AddItemToArray(r->history, e);
    return r->history ? GD_OK : gd_errf(err, GD_EENV, "out of memory");
}

/* The budgets the run's search went through (manifest "budgets"), and
 * this campaign's when it is larger: an extensible strategy extends its
 * search to it (strategy.h). */
static void take_budgets(run_t *r, const cJSON *old)
{
    const cJSON *b, *v;
    b = cJSON_GetObjectItemCaseSensitive(old, "budgets");
    r->nbudgets = 0;
    cJSON_ArrayForEach(v, b)
        if (cJSON_IsNumber(v) && r->nbudgets < 63)
            r->budgets[r->nbudgets++] = (long)v->valuedouble;
    if (r->nbudgets == 0 || r->budgets[r->nbudgets - 1] < r->c.budget)
        r->budgets[r->nbudgets++] = r->c.budget;
}

/* A run directory holding a campaign: resumable when this file has the
 * same identity (identity.h); changed settings are recorded. */
static int check_same_campaign(run_t *r, const char *cpath, gd_err *err)
{
    char sha[65];
    int rc = util_sha256_file(cpath, sha, err);
    if (rc)
        return rc;
    cJSON *old = read_manifest(r->dir);
    if (!cJSON_GetObjectItemCaseSensitive(old, "identity")) {
        cJSON_Delete(old);  /* a manifest without one: the bytes decide */
        if (strcmp(sha, r->c.sha256) != 0)
            return gd_errf(err, GD_EINPUT, "%s: holds a run of a different "
                           "campaign file (sha256 %.12s, this one %.12s); "
                           "choose another directory with -o DIR", r->dir,
                           sha, r->c.sha256);
        r->history = cJSON_CreateArray();
        take_budgets(r, NULL);
        return GD_OK;
    }
    rc = ident_compare(old, r->identity, r->settings, r->dir, &r->changes,
                       err);
    if (!rc)
        rc = add_history(r, old, sha, err);
    if (!rc)
        take_budgets(r, old);
    cJSON_Delete(old);
    return rc;
}

/* A directory holding files but no campaign.xml is not ours: refuse it
 * (unless --force). */
static int check_dir_is_ours(run_t *r, gd_err *err)
{
    char cpath[PATH_MAX];
    util_path_join(cpath, sizeof cpath, r->dir, "campaign.xml");
    if (util_path_exists(cpath))
        return check_same_campaign(r, cpath, err);
    r->history = cJSON_CreateArray();
    take_budgets(r, NULL);
    return rundir_check_new(r->dir, r->o->force,
                            "report.pdf, results.csv, figures/", err);
}

/* RUN/campaign.xml: the campaign file of the latest session (its earlier
 * versions differ only in settings: the manifest's history says how). */
static int copy_campaign(run_t *r, gd_err *err)
{
    return rundir_copy_campaign(r->dir, r->c.path, r->c.sha256, err);
}

/* The external simulator (the campaign's, or its <verify> backend's): its
 * fingerprint (in every job key) and the build and template identity it
 * was made from. */
/* One NAME=VALUE line of the simulator's identity into the object arg:
 * NAME's array gets VALUE. */
static int identity_line(char *name, char *value, void *arg, gd_err *err)
{
    (void)err;
    if (!value)
        return GD_OK;
    cJSON *a = cJSON_GetObjectItemCaseSensitive(arg, name);
    if (!a)
        a = cJSON_AddArrayToObject(arg, name);
    cJSON_AddItemToArray(a, cJSON_CreateString(value));
    return GD_OK;
}

static int add_simulator(cJSON *m, const camp_campaign *c, gd_err *err)
{
    if (c->verify_backend[0]) {
        cJSON_AddStringToObject(m, "verify_backend", c->verify_backend);
        cJSON_AddStringToObject(m, "verify_backend_version",
                                be_find(c->verify_backend)->version());
        cJSON_AddNumberToObject(m, "verify_top", c->verify_top);
    }
    if (!c->sim_identity[0] && strcmp(c->backend, "command") != 0
        && !c->verify_backend[0])
        return GD_OK;
    cJSON *s = cJSON_AddObjectToObject(m, "simulator");
    cJSON_AddStringToObject(s, "backend", c->verify_backend[0]
                            ? c->verify_backend : c->backend);
    cJSON_AddStringToObject(s, "fingerprint", c->sim_fingerprint);
    cJSON *id = cJSON_AddObjectToObject(s, "identity");
    return util_kv_each(c->sim_identity, "\n", identity_line, id, err);
}

static int write_manifest(run_t *r, const char *finished, uint64_t ok,
                          uint64_t failed, gd_err *err)
{
    const manifest_head h = {NULL, r->c.name, r->c.path, r->c.sha256,
                             r->c.seed, r->be->name, r->be->version()};
    cJSON *m = manifest_begin(&h);
    cJSON_AddStringToObject(m, "fidelity", r->be->fidelity);
    int rc = add_simulator(m, &r->c, err);
    cJSON_AddStringToObject(m, "strategy", r->c.strategy);
    cJSON_AddNumberToObject(m, "budget", (double)r->c.budget);
    cJSON *bs = cJSON_AddArrayToObject(m, "budgets");
    for (int i = 0; i < r->nbudgets; i++)
        cJSON_AddItemToArray(bs, cJSON_CreateNumber((double)r->budgets[i]));
    cJSON_AddNumberToObject(m, "space_size", (double)space_size(&r->c.space));
    cJSON_AddBoolToObject(m, "budget_exceeds_space", budget_exceeds_space(r));
    gpu_config base = space_baseline();
    cJSON_AddBoolToObject(m, "baseline_in_space",
                          space_index(&r->c.space, &base) >= 0);
    cJSON *ws = cJSON_AddArrayToObject(m, "workloads");
    for (int i = 0; i < r->c.nworkloads; i++) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddStringToObject(w, "name", r->c.workloads[i].name);
        cJSON_AddStringToObject(w, "sha256", r->c.workloads[i].sha256);
        cJSON_AddItemToArray(ws, w);
    }
    if (r->identity)
        cJSON_AddItemReferenceToObject(m, "identity", r->identity);
    if (r->settings)
        cJSON_AddItemReferenceToObject(m, "settings", r->settings);
    if (r->history)
        cJSON_AddItemReferenceToObject(m, "history", r->history);
    const manifest_jobs j = {r->started, finished, r->planned, ok, failed,
                             r->ran, r->skipped, r->torn};
    if (rc == GD_OK)
        return manifest_write(m, r->dir, &j, err);
    cJSON_Delete(m);
    return rc;
}

static int stopped(const run_t *r)
{
    return r->o->stop && *r->o->stop;
}

/* One pass of jobs through batch_run: the campaign's search, or (with
 * fixed lists) the verification of predicted fronts. */
static int run_phase(run_t *r, const be_backend *be,
                     const gpu_config *const *fixed, const size_t *nfixed,
                     const wl_workload *wls, uint64_t total, gd_err *err)
{
    char abs[PATH_MAX];
    if (!realpath(r->dir, abs))
        return gd_errf(err, GD_EENV, "%s: %s", r->dir, strerror(errno));
    progress pg;
    progress_init(&pg, r->o->quiet ? NULL : stderr, total);
    exec_choice ex;
    exec_choose(&r->c, r->o->executor, r->o->jobs, &ex);
    batch_opts bo = {&r->c, be, r->st, abs, ex.workers, r->o->stop,
                     r->o->on_result, r->o->cb_arg, r->log, &pg,
                     .executor = ex.executor, .fixed = fixed,
                     .nfixed = nfixed, .workloads = wls,
                     .rerun_mask = r->o->retry_mask,
                     .budgets = r->budgets, .nbudgets = r->nbudgets};
    batch_counts n;
    double t0 = mono_now();
    store_set_batched(r->st, be->in_process);
    int rc = batch_run(&bo, &n, err);
    gd_err ferr = { 0 };
    int frc = store_flush(r->st, &ferr);   /* what was gathered, written */
    store_set_batched(r->st, 0);
    if (frc && !rc) {
        rc = frc;
        if (err)
            *err = ferr;
    }
    progress_end(&pg);
    double dt = mono_now() - t0;
    r->planned += n.planned;
    r->ran += n.ran;
    r->skipped += n.skipped;
    uint64_t jfail = pg.failed > n.failed ? pg.failed - n.failed : 0;
    say(r, "  %s: %" PRIu64 " jobs run (%" PRIu64 " failed, %" PRIu64
        " retried, %" PRIu64 " journaled rerun), %" PRIu64 " already in the "
        "journal (%" PRIu64 " failed), in %.2f s with %d worker(s)\n",
        be->name, n.ran, n.failed, n.retried, n.rerun, n.skipped, jfail, dt,
        bo.workers);
    logf_(r, "jobs: ran %" PRIu64 " failed %" PRIu64 " retried %" PRIu64
          " rerun %" PRIu64 " skipped %" PRIu64 " interrupted %" PRIu64
          " in %.3f s, %d workers", n.ran, n.failed, n.retried, n.rerun,
          n.skipped, n.interrupted, dt, bo.workers);
    return rc;
}

/* Multi-fidelity: re-run the best configs of each predicted front on the
 * verify backend; both kinds of record share the journal, never a front. */
static int run_verify(run_t *r, gd_err *err)
{
    int rc = store_flush(r->st, err);
    char path[PATH_MAX];
    util_path_join(path, sizeof path, r->dir, "results.jsonl");
    store_record *recs = NULL;
    size_t n = 0;
    if (!rc)
        rc = store_load_all_in(path, &r->c.space, &recs, &n, err);
    gpu_config **fixed = NULL;
    size_t *nfixed = NULL;
    if (!rc)
        rc = verify_pick(&r->c, recs, n, &fixed, &nfixed, err);
    free(recs);
    wl_workload *wls = calloc((size_t)r->c.nworkloads, sizeof *wls);
    if (!rc && !wls)
        rc = gd_errf(err, GD_EENV, "out of memory");
    uint64_t total = 0;
    for (int w = 0; !rc && w < r->c.nworkloads; w++)
        total += nfixed[w];
    if (!rc) {
        verify_workloads(&r->c, wls);
        say(r, "gpudse: verifying %" PRIu64 " predicted-front configs on %s\n",
            total, r->c.verify_backend);
        rc = run_phase(r, be_find(r->c.verify_backend),
                       (const gpu_config *const *)fixed, nfixed, wls, total,
                       err);
    }
    free(wls);
    verify_free(&r->c, fixed, nfixed);
    return rc;
}

/* The journal's records (flushed first), for the verification loop. */
static int load_journal(run_t *r, store_record **recs, size_t *n, gd_err *err)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, r->dir, "results.jsonl");
    int rc = store_flush(r->st, err);
    return rc ? rc : store_load_all_in(path, &r->c.space, recs, n, err);
}

/* Multi-fidelity as a loop (<verify rounds=>, mfloop.h): round after round
 * until every workload has stopped; each round journaled by mf_step. */
static int run_mf_loop(run_t *r, gd_err *err)
{
    store_record *recs = NULL;
    size_t n = 0, total = 1;
    mf_loop *m = NULL;
    int rc = load_journal(r, &recs, &n, err);
    if (!rc)
        rc = mf_open(&r->c, r->dir, recs, n, &m, err);
    wl_workload *wls = calloc((size_t)r->c.nworkloads, sizeof *wls);
    if (!rc && !wls)
        rc = gd_errf(err, GD_EENV, "out of memory");
    if (!rc)
        verify_workloads(&r->c, wls);
    while (!rc && total > 0 && !stopped(r)) {
        gpu_config **fixed = NULL;
        size_t *nfixed = NULL;
        int round = 0;
        rc = mf_step(m, recs, n, &fixed, &nfixed, &round, &total, err);
        if (!rc && total > 0) {
            say(r, "gpudse: verification round %d: %zu configs on %s\n",
                round, total, r->c.verify_backend);
            rc = run_phase(r, be_find(r->c.verify_backend),
                           (const gpu_config *const *)fixed, nfixed, wls,
                           total, err);
        }
        verify_free(&r->c, fixed, nfixed);
        free(recs);
        recs = NULL;
        if (!rc)
            rc = load_journal(r, &recs, &n, err);
    }
    free(recs);
    free(wls);
    mf_close(m);
    return rc;
}

static int run_jobs(run_t *r, gd_err *err)
{
    r->planned = 0;
    int rc = run_phase(r, r->be, NULL, NULL, NULL, batch_planned(&r->c), err);
    if (!rc && r->c.verify_backend[0] && !stopped(r))
        rc = r->c.verify_rounds > 0 ? run_mf_loop(r, err)
                                    : run_verify(r, err);
    return rc;
}

/* A stage's wall time and the peak memory so far (this process, and the
 * largest child it forked and waited for) in run.log, for make bench. */
static void log_stage(run_t *r, const char *stage, double t0)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    logf_(r, "%s: %.3f s, peak %ld MB (largest child %ld MB)", stage,
          mono_now() - t0, self.ru_maxrss / 1024, kids.ru_maxrss / 1024);
}

/* Whether the last session in run.log got to its end (analysis and report
 * written: a "finished:" line after its "start campaign" line). */
static int last_session_finished(const char *logp)
{
    FILE *f = fopen(logp, "r");
    if (!f)
        return 0;
    static const long TAIL = 65536;
    if (fseek(f, 0, SEEK_END) != 0 || ftell(f) <= TAIL)
        rewind(f);
    else
        fseek(f, -TAIL, SEEK_END);
    char line[1024];
    int finished = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, " start campaign "))
            finished = 0;
        else if (strstr(line, " finished: ok "))
            finished = 1;
    fclose(f);
    return finished;
}

static int open_run(run_t *r, gd_err *err)
{
    int rc = check_dir_is_ours(r, err);
    if (!rc)
        rc = util_mkdirs(r->dir, err);
    if (!rc)
        rc = store_lock(r->dir, &r->lock_fd, err);
    if (rc)
        return rc;
    char logp[PATH_MAX];
    util_path_join(logp, sizeof logp, r->dir, "run.log");
    r->unchanged = r->unchanged && last_session_finished(logp);
    r->log = fopen(logp, "a");
    utc_now(r->started, sizeof r->started);
    rc = copy_campaign(r, err);
    r->planned = batch_planned(&r->c);
    if (!rc)
        rc = write_manifest(r, NULL, 0, 0, err);
    int torn = 0;
    if (!rc)
        rc = store_open(r->dir, &r->st, &torn, err);
    if (!rc)
        store_set_space(r->st, &r->c.space);
    r->torn = (uint64_t)torn;
    if (!rc && torn) {
        say(r, "gpudse: %s/results.jsonl: dropped a torn last line left by "
            "an interrupted run; that job runs again\n", r->dir);
        logf_(r, "dropped a torn last line of results.jsonl");
    }
    return rc;
}

static void close_run(run_t *r)
{
    gd_err ignore;
    store_close(r->st, &ignore);
    r->st = NULL;
    if (r->log)
        fclose(r->log);
    store_unlock(r->lock_fd);
    camp_free(&r->c);
    cJSON_Delete(r->identity);
    cJSON_Delete(r->settings);
    cJSON_Delete(r->history);
    cJSON_Delete(r->changes);
}

static int finish_run(run_t *r, gd_err *err)
{
    uint64_t ok = 0, failed = 0;
    char fin[32];
    int rc = store_flush(r->st, err);
    if (!rc)
        store_outcomes(r->st, &ok, &failed);
    utc_now(fin, sizeof fin);
    if (!rc)
        rc = write_manifest(r, fin, ok, failed, err);
    char ana[PATH_MAX];
    util_path_join(ana, sizeof ana, r->dir, "analysis.json");
    if (!rc && r->unchanged && r->ran == 0 && util_path_exists(ana)) {
        /* the analysis and report on disk are of this very journal */
        say(r, "gpudse: nothing new to run and nothing changed: the "
            "analysis and report in %s are kept (gpudse report %s renders "
            "them again)\n", r->dir, r->dir);
        logf_(r, "nothing new: analysis and report kept");
    } else {
        /* the records the analysis parses are lent to the report */
        rcache cache;
        rcache_init(&cache);
        logf_(r, "phase: analysis");
        double t0 = mono_now();
        if (!rc)
            rc = ana_run_cached(r->dir, &cache, err);
        if (!rc)
            rc = agents_annotate(r->dir, err);
        if (!rc)
            log_stage(r, "analysis", t0);
        logf_(r, "phase: report");
        t0 = mono_now();
        if (!rc)
            rc = rep_render_cached(r->dir,
                                   r->c.layout[0] ? r->c.layout : NULL,
                                   &cache, err);
        if (!rc)
            log_stage(r, "report (results.csv, figures and PDF)", t0);
        rcache_free(&cache);
    }
    if (!rc && failed) {
        say(r, "gpudse: %" PRIu64 " of %" PRIu64 " jobs failed; see the "
            "failures in %s/report.pdf and results.jsonl\n", failed,
            ok + failed, r->dir);
        rc = GD_EJOBS;
    }
    /* the rc gpudse run exits with */
    logf_(r, "finished: ok %" PRIu64 " failed %" PRIu64 " rc %d", ok, failed,
          rc);
    return rc;
}

/* Say a budget larger than the space (it cannot be spent: every config of
 * the space is evaluated once per workload), never clip it silently. */
static void budget_note(run_t *r)
{
    if (!budget_exceeds_space(r))
        return;
    unsigned long long n = (unsigned long long)space_size(&r->c.space);
    say(r, "gpudse: the budget (%ld) is larger than the space (%llu "
        "configs): each workload evaluates its %llu configs once, and the "
        "search ends there\n", r->c.budget, n, n);
    logf_(r, "budget %ld larger than the space: %llu configs per workload",
          r->c.budget, n);
}

/* Every strategy evaluates the baseline when the space holds it; say so
 * when it does not (nothing is normalised to it then). */
static void baseline_note(run_t *r)
{
    gpu_config base = space_baseline();
    if (space_index(&r->c.space, &base) >= 0)
        return;
    char canon[SPACE_CANON_MAX];
    space_config_canon(&r->c.space, &base, canon, sizeof canon);
    say(r, "gpudse: the baseline config (%s) is not in this campaign's "
        "space, so no job evaluates it and nothing is normalised to it; add "
        "its values to <space> to have it run\n", canon);
    logf_(r, "baseline not in the space: %s", canon);
}

int eng_run(const eng_opts *o, char *rundir, size_t rundirsz, gd_err *err)
{
    if (o->split_only || eng_is_split(o->campaign_path))   /* engine_split.c */
        return eng_run_split(o, rundir, rundirsz, err);
    run_t r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.lock_fd = -1;
    int rc = preflight_load(o->campaign_path, &r.c, err);
    if (rc)
        return rc;
    r.be = be_find(r.c.backend);
    /* exactly what validate checks; a missing Slurm is said before any
     * run directory is made */
    rc = preflight_check(&r.c, o->executor, err);
    if (rc) {
        camp_free(&r.c);
        return rc;
    }
    const be_backend *vb = r.c.verify_backend[0] ? be_find(r.c.verify_backend)
                                                  : NULL;
    r.identity = ident_identity(&r.c, r.be->version(),
                                vb ? vb->version() : "");
    r.settings = ident_settings(&r.c);
    if (!r.identity || !r.settings) {
        close_run(&r);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    if (o->outdir)
        util_strlcpy(r.dir, o->outdir, sizeof r.dir);
    else
        snprintf(r.dir, sizeof r.dir, "runs/%s", r.c.name);
    if (rundir)
        util_strlcpy(rundir, r.dir, rundirsz);
    rc = open_run(&r, err);
    if (!rc) {
        /* gpudse status reads this line: the session's start and how many
         * records the journal held then give its rate and ETA */
        logf_(&r, "start campaign %s sha256 %s pid %ld journal %zu", r.c.name,
              r.c.sha256, (long)getpid(), store_count(r.st));
        logf_(&r, "phase: jobs");
        const cJSON *ch;
        cJSON_ArrayForEach(ch, r.changes) {
            logf_(&r, "campaign changed: %s", ch->valuestring);
            say(&r, "gpudse: resuming with a changed campaign file: %s\n",
                ch->valuestring);
        }
        if (o->retry_mask) {
            char classes[256] = "";
            for (int s = ST_OK + 1; s < ST__COUNT; s++)
                if (o->retry_mask & (1u << s))
                    snprintf(classes + strlen(classes),
                             sizeof classes - strlen(classes), "%s%s",
                             classes[0] ? "," : "", store_status_name(s));
            logf_(&r, "retry: journaled jobs of class %s run again", classes);
        }
        say(&r, "gpudse: campaign %s, %d workload(s), %s over %llu points, "
            "budget %ld, backend %s -> %s\n", r.c.name, r.c.nworkloads,
            r.c.strategy, (unsigned long long)space_size(&r.c.space),
            r.c.budget, r.be->name, r.dir);
        baseline_note(&r);
        budget_note(&r);
    }
    if (!rc)
        rc = run_jobs(&r, err);
    if (!rc && stopped(&r)) {
        /* what the journal holds, not what this session added */
        gd_err ignore;
        uint64_t ok = 0, failed = 0;
        if (store_flush(r.st, &ignore) == GD_OK)
            store_outcomes(r.st, &ok, &failed);
        logf_(&r, "interrupted after %" PRIu64 " jobs", r.ran);
        rc = gd_errf(err, GD_EENV, "interrupted: %" PRIu64 " finished jobs "
                     "(%" PRIu64 " of them run by this session) are kept in "
                     "%s/results.jsonl; run the same command again to "
                     "resume", ok + failed, r.ran, r.dir);
    } else if (!rc) {
        rc = finish_run(&r, err);
    }
    close_run(&r);
    return rc;
}
