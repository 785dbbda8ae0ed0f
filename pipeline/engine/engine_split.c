/* engine_split: the engine's path for a <split-study> campaign (split.h).
 * The engine owns the run directory as for any run: the -o DIR / runs/NAME
 * rule, the lock (store_lock), the campaign copy, manifest.json (one
 * format, manifest.h: written when the session starts, finished: null,
 * and when it ends), the journal
 * results.jsonl (store.c; a torn last line is dropped) and resume: a
 * directory holding this campaign's run is reopened and split_session
 * reads each finished record back by its key. Then the analysis stage
 * writes split-analysis.json (ana_split_run) and the report stage renders
 * report.pdf (rep_render), both from the directory's files, as `gpudse
 * analyze DIR` and `gpudse report DIR` do. */
#include "engine.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "be_split.h"
#include "campaign.h"
#include "manifest.h"
#include "report.h"
#include "rundir.h"
#include "split.h"
#include "split_analysis.h"
#include "store.h"

typedef struct {
    const eng_opts *o;
    const sp_campaign *c;
    char dir[PATH_MAX];
    char started[32];
    store *st;
    int lock_fd;
    int torn;                      /* a torn last line was dropped */
    sp_outcome out;
} srun;

int eng_is_split(const char *campaign_path)
{
    char root[64];
    gd_err ignore = {0, ""};
    /* an unreadable file is camp_load's to report */
    return camp_root_name(campaign_path, root, sizeof root, NULL, 0,
                          &ignore) == GD_OK && !strcmp(root, "split-study");
}

static void utc_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static long planned_jobs(const sp_campaign *c)
{
    long n = 0;
    for (int i = 0; i < c->ntask; i++)
        n += c->task[i].nsizes;
    return n * c->npol * c->nmach;
}

static void add_machines(cJSON *m, const srun *r, int finished)
{
    cJSON *ml = cJSON_AddArrayToObject(m, "machines");
    for (int i = 0; finished && i < r->c->nmach; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "name", r->out.mach[i].name);
        cJSON_AddStringToObject(x, "sha256", r->out.mach[i].sha256);
        cJSON_AddStringToObject(x, "source", r->out.mach[i].source);
        cJSON_AddItemToArray(ml, x);
    }
}

/* Measured timings depend on what else ran: the load when it started. */
static void add_loadavg(cJSON *m)
{
    char load[64] = "";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(load, sizeof load, f))
            load[0] = '\0';
        fclose(f);
        load[strcspn(load, "\n")] = '\0';
    }
    cJSON_AddStringToObject(m, "loadavg", load);
}

/* Written when the run starts (fin NULL: finished null) and when it ends,
 * in the engine's one format (manifest.h), with the split study's own
 * fields: the machines as used, the load, the measurements. */
static int write_manifest(const srun *r, const char *fin, gd_err *err)
{
    const manifest_head h = {"split", r->c->name, r->c->path, r->c->sha256,
                             r->c->seed, be_split_at(r->c->backend)->name,
                             SP_TOOL_VERSION};
    cJSON *m = manifest_begin(&h);
    add_machines(m, r, fin != NULL);
    add_loadavg(m);
    cJSON *ms = cJSON_AddObjectToObject(m, "measurements_this_session");
    cJSON_AddNumberToObject(ms, "taken", (double)r->out.measured);
    cJSON_AddNumberToObject(ms, "read_back_from_journal",
                            (double)r->out.recalled);
    size_t done = fin ? r->out.njobs : 0;
    const manifest_jobs j = {r->started, fin, (uint64_t)planned_jobs(r->c),
                             done - r->out.failed, r->out.failed,
                             done - r->out.resumed, r->out.resumed,
                             (uint64_t)r->torn};
    return manifest_write(m, r->dir, &j, err);
}

/* A directory is resumed only when it holds this campaign's run. */
static int check_dir(const srun *r, gd_err *err)
{
    char path[PATH_MAX], sha[65];
    util_path_join(path, sizeof path, r->dir, "campaign.xml");
    if (util_path_exists(path)) {
        int rc = util_sha256_file(path, sha, err);
        if (!rc && strcmp(sha, r->c->sha256) != 0)
            rc = gd_errf(err, GD_EINPUT, "%s holds a run of another campaign "
                         "file (sha256 %.12s, this one %.12s); choose another "
                         "directory with -o", r->dir, sha, r->c->sha256);
        return rc;
    }
    return rundir_check_new(r->dir, r->o->force, "report.pdf, figures/",
                            err);
}

/* Create or reopen the run directory: lock, campaign copy, manifest, and
 * the journal (a torn last line from a killed run is cut off). */
static int open_dir(srun *r, gd_err *err)
{
    int rc = check_dir(r, err);
    if (!rc)
        rc = util_mkdirs(r->dir, err);
    if (!rc)
        rc = store_lock(r->dir, &r->lock_fd, err);
    if (!rc)
        rc = check_dir(r, err);  /* again, under the lock */
    if (!rc)
        rc = rundir_copy_campaign(r->dir, r->c->path, r->c->sha256, err);
    if (!rc)
        rc = write_manifest(r, NULL, err);
    if (!rc)
        rc = store_open(r->dir, &r->st, &r->torn, err);
    if (!rc && r->torn)
        split_say(r->o->quiet, "%s/results.jsonl: dropped a torn last line left by an "
            "interrupted run; that job runs again", r->dir);
    if (!rc && store_count(r->st) > 0)
        split_say(r->o->quiet, "resuming %s: %zu finished records in its journal are kept, "
            "not run again", r->dir, store_count(r->st));
    return rc;
}

static void close_dir(srun *r)
{
    gd_err ignore;
    store_close(r->st, &ignore);
    r->st = NULL;
    store_unlock(r->lock_fd);
    r->lock_fd = -1;
}

/* The session in the open directory, the manifest, and the report. */
static int run_open(srun *r, gd_err *err)
{
    int rc = split_session(r->c, r->dir, r->st, r->o->quiet, r->o->stop,
                           &r->out, err);
    char fin[32];
    utc_now(fin, sizeof fin);
    if (!rc)
        rc = write_manifest(r, fin, err);
    if (rc && r->o->stop && *r->o->stop) {
        gd_err ignore;
        store_flush(r->st, &ignore);
        return gd_errf(err, GD_EENV, "interrupted: %lu measurements taken "
                       "this session; every finished job is kept in "
                       "%s/results.jsonl; run the same command again to "
                       "resume", r->out.measured, r->dir);
    }
    if (!rc && !r->o->quiet)
        fprintf(stderr, "split: %zu policy jobs on %d machine(s), %lu "
                "measurements taken, %lu read back from the journal; run "
                "directory %s\n", r->out.njobs, r->c->nmach, r->out.measured,
                r->out.recalled, r->dir);
    /* from the files alone, as `gpudse analyze DIR` and `gpudse report
     * DIR` do */
    if (!rc)
        rc = ana_split_run(r->dir, err);
    if (!rc)
        rc = rep_render(r->dir, NULL, err);
    return rc;
}

int eng_run_split(const eng_opts *o, char *rundir, size_t rundirsz,
                  gd_err *err)
{
    sp_campaign *c = malloc(sizeof *c);
    srun *r = calloc(1, sizeof *r);
    if (!c || !r) {
        free(c);
        free(r);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    r->o = o;
    r->c = c;
    r->lock_fd = -1;
    utc_now(r->started, sizeof r->started);
    int rc = sp_load(o->campaign_path, c, err);
    if (!rc) {
        if (o->outdir)
            util_strlcpy(r->dir, o->outdir, sizeof r->dir);
        else
            snprintf(r->dir, sizeof r->dir, "runs/%s", c->name);
        if (rundir)
            util_strlcpy(rundir, r->dir, rundirsz);
        rc = sp_check_machines(c, err);
    }
    if (!rc)
        rc = open_dir(r, err);
    if (!rc)
        rc = run_open(r, err);
    close_dir(r);
    free(r);
    free(c);
    return rc;
}
