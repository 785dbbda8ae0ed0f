/* split: run a <split-study> campaign (loaded by splitload.c): per
 * machine, calibrate from single-device ladders when measuring, then for
 * every task x size x policy decide, validate, predict
 * (PREDICTED(costmodel)) and measure (MEASURED(cpu|cuda)), every record
 * journaled as it is made; write machines/ (each machine as used and its
 * calibration), from which the analysis stage (analysis/split_analysis.c)
 * writes split-analysis.json. */
#include "split.h"
#include "be_split.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "machine.h"
#include "store.h"

static const char *bname(int b) { return be_split_at(b)->name; }
static const char *blabel(int b) { return be_split_at(b)->label; }


void split_say(int quiet, const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "split: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- running ---- */

typedef struct {
    const sp_campaign *c;
    const be_split *be;            /* c's backend */
    sp_run run;
    const char *dir;
    int quiet;
    volatile sig_atomic_t *stop;
    store *st;                     /* the run's journal, results.jsonl */
    size_t cap;
    char mach_sha[SP_MAXMACH][65];
    int devices_missing;           /* be has no device here: skipped */
    unsigned long measured, recalled;  /* this session: taken, read back */
    unsigned long resumed;         /* policy jobs wholly read back */
} runner;

static int stopped(const runner *r)
{
    return r->stop && *r->stop;
}

/* eng_run_split replaces this message with one that says how to resume. */
static int interrupted(gd_err *err)
{
    return gd_errf(err, GD_EENV, "interrupted");
}

/* The key says what determines a record: the policy is part of it, since
 * two policies may reach the same decision and each job keeps its own. */
static void job_key(const runner *r, int mi, const char *backend,
                    const char *task, const char *decision, const char *role,
                    const char *policy, char key[65])
{
    util_buf b;
    util_buf_init(&b);
    util_buf_printf(&b, "split\nbackend=%s %s\nmachine=%s\ntask=%s\n"
                    "decision=%s\nrole=%s\npolicy=%s\nseed=%lu\n"
                    "repeats=%d warmups=%d\n", backend, SP_TOOL_VERSION,
                    r->mach_sha[mi], task, decision, role,
                    policy ? policy : "", r->c->seed, r->c->repeats,
                    r->c->warmups);
    util_sha256_hex(b.s, b.len, key);
    util_buf_free(&b);
}

static void add_decision(cJSON *o, const cm_decision *d)
{
    char text[1024], hash[65];
    cm_decision_text(d, text, sizeof text);
    cm_decision_hash(d, hash);
    cJSON_AddStringToObject(o, "decision", text);
    cJSON_AddStringToObject(o, "decision_hash", hash);
}

static cJSON *base_record(const runner *r, int mi, int backend,
                          const char *role, const cm_task *t,
                          const cm_decision *d, const char *policy)
{
    char task[96], text[1024], key[65];
    cm_task_text(t, task, sizeof task);
    cm_decision_text(d, text, sizeof text);
    job_key(r, mi, bname(backend), task, text, role, policy, key);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddStringToObject(o, "kind", "split");
    cJSON_AddStringToObject(o, "label", blabel(backend));
    cJSON_AddStringToObject(o, "backend", bname(backend));
    cJSON_AddStringToObject(o, "role", role);
    cJSON_AddStringToObject(o, "machine", r->run.mach[mi].m.name);
    cJSON_AddStringToObject(o, "task", task);
    cJSON_AddStringToObject(o, "task_kind", cm_kind_name(t->kind));
    cJSON_AddNumberToObject(o, "units", (double)t->dims[0]);
    if (policy)
        cJSON_AddStringToObject(o, "policy", policy);
    add_decision(o, d);
    return o;
}

static const char *const meas_names[] = {"none", "ok", "skipped", "failed"};

static void add_measured(cJSON *o, int status, const ms_stat *st,
                         const char *reason, int repeats, int warmups)
{
    cJSON_AddStringToObject(o, "status", meas_names[status]);
    if (status == SP_MEAS_OK) {
        cJSON_AddNumberToObject(o, "time_s", st->median);
        cJSON_AddNumberToObject(o, "q1_s", st->q1);
        cJSON_AddNumberToObject(o, "q3_s", st->q3);
        cJSON_AddNumberToObject(o, "repeats", repeats);
        cJSON_AddNumberToObject(o, "warmups_discarded", warmups);
        /* repeats in which another task took a device's core */
        cJSON_AddNumberToObject(o, "contended_dropped", st->dropped);
        cJSON_AddNumberToObject(o, "contended_kept", st->contended);
        /* split devices that shared one GPU ran one after another */
        if (st->time_sliced)
            cJSON_AddBoolToObject(o, "gpu_time_sliced", 1);
    } else {
        cJSON_AddStringToObject(o, "reason", reason);
    }
}

static void add_terms(cJSON *o, const cm_machine *m, const sp_result *x)
{
    cJSON_AddStringToObject(o, "status", "ok");
    cJSON_AddNumberToObject(o, "time_s", x->pred);
    cJSON *t = cJSON_AddObjectToObject(o, "terms");
    cJSON_AddNumberToObject(t, "t_setup", x->terms.t_setup);
    cJSON_AddNumberToObject(t, "t_max", x->terms.t_max);
    cJSON_AddNumberToObject(t, "t_merge", x->terms.t_merge);
    cJSON_AddStringToObject(t, "critical", m->dev[x->d.idx[x->terms.critical]].name);
    cJSON *ds = cJSON_AddArrayToObject(t, "devices");
    for (int i = 0; i < x->d.n; i++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "device", x->d.dev[i]);
        cJSON_AddNumberToObject(d, "units", x->terms.u[i]);
        cJSON_AddNumberToObject(d, "chunks", x->terms.n_chunks[i]);
        cJSON_AddNumberToObject(d, "t_in", x->terms.t_in[i]);
        cJSON_AddNumberToObject(d, "t_comp", x->terms.t_comp[i]);
        cJSON_AddNumberToObject(d, "t_out", x->terms.t_out[i]);
        cJSON_AddNumberToObject(d, "t_launch", x->terms.t_launch[i]);
        cJSON_AddNumberToObject(d, "t_dev", x->terms.t_dev[i]);
        cJSON_AddItemToArray(ds, d);
    }
}

/* ---- the journal: every record is appended (store.c: one write of one
 * line) as soon as it exists; a rerun on the same directory reads each
 * finished measurement back by its key instead of taking it again ---- */

static const char *record_key(const cJSON *o)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "key"));
}

/* Append o unless its key is already in the journal (a rerun). */
static int journal(runner *r, const cJSON *o, gd_err *err)
{
    char *text = util_json_line_exact(o);
    if (!text)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = store_append_line(r->st, record_key(o), text, err);
    free(text);
    return rc;
}

static double num_field(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Parse a measured record read back from the journal. */
static int parse_measured(const runner *r, const char *key, const char *line,
                          int *status, ms_stat *st, char *reason, size_t rn,
                          gd_err *err)
{
    cJSON *o = cJSON_Parse(line);
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "status"));
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "reason"));
    *status = -1;
    for (int i = SP_MEAS_OK; s && i <= SP_MEAS_FAILED; i++)
        if (!strcmp(s, meas_names[i]))
            *status = i;
    memset(st, 0, sizeof *st);
    st->median = num_field(o, "time_s");
    st->q1 = num_field(o, "q1_s");
    st->q3 = num_field(o, "q3_s");
    st->n = r->c->repeats;
    st->checksum = NAN;
    util_strlcpy(reason, why ? why : "", rn);
    int ok = *status == SP_MEAS_OK ? isfinite(st->median) && isfinite(st->q1) &&
                                         isfinite(st->q3)
                                   : *status > 0;
    cJSON_Delete(o);
    if (!ok)
        return gd_errf(err, GD_EINPUT, "%s/results.jsonl: record %.12s is "
                       "not a measurement (status, time_s, q1_s, q3_s); the "
                       "journal is damaged", r->dir, key);
    return GD_OK;
}

/* A finished measurement with this key from the journal (*found 0: none). */
static int recall(runner *r, const char *key, int *found, int *status,
                  ms_stat *st, char *reason, size_t rn, gd_err *err)
{
    *found = 0;
    if (!store_has(r->st, key))
        return GD_OK;
    char *line = NULL;
    int rc = store_get_line(r->st, key, &line, err);
    if (!rc)
        rc = parse_measured(r, key, line, status, st, reason, rn, err);
    free(line);
    if (rc)
        return rc;
    *found = 1;
    r->recalled++;
    return GD_OK;
}

static int measure_any(runner *r, const cm_machine *m, const cm_task *t,
                       const cm_decision *d, ms_stat *st, gd_err *err)
{
    ms_opts o = {r->c->repeats, r->c->warmups};
    memset(st, 0, sizeof *st);
    return r->be->measure(m, t, d, &o, st, err);
}

/* Measure decision d of task t on machine mi as `role`, or read the
 * finished measurement back. A policy job's failure is its record (the
 * study goes on); a calibration rung's failure is the run's error and is
 * not journaled, so a rerun tries it again. */
static int jmeasure(runner *r, int mi, const cm_machine *m, const char *role,
                    const char *policy, const cm_task *t, const cm_decision *d,
                    int *status, ms_stat *st, char *reason, size_t rn,
                    gd_err *err)
{
    cJSON *o = base_record(r, mi, r->c->backend, role, t, d, policy);
    int found = 0;
    int rc = recall(r, record_key(o), &found, status, st, reason, rn, err);
    if (!rc && !found && stopped(r))
        rc = interrupted(err);
    if (rc || found) {
        cJSON_Delete(o);
        if (!rc && !policy && *status != SP_MEAS_OK)
            rc = gd_errf(err, GD_EINPUT, "%s/results.jsonl: a calibration "
                         "rung is recorded as not measured; the journal is "
                         "damaged", r->dir);
        return rc;
    }
    gd_err e2 = {0, ""};
    int mrc = measure_any(r, m, t, d, st, &e2);
    r->measured++;
    if (mrc && !policy) {
        cJSON_Delete(o);
        return gd_errf(err, e2.code, "%s", e2.msg);
    }
    *status = !mrc ? SP_MEAS_OK : st->skipped ? SP_MEAS_SKIPPED : SP_MEAS_FAILED;
    util_strlcpy(reason, mrc ? e2.msg : "", rn);
    add_measured(o, *status, st, reason, r->c->repeats, r->c->warmups);
    rc = journal(r, o, err);
    cJSON_Delete(o);
    return rc;
}

/* Calibration timing callbacks: every rung measured once, journaled. */
typedef struct {
    runner *r;
    int mi;
    const char *role;
} meas_ctx;

static int journaled_measure(void *ctx, const cm_machine *m, const cm_task *t,
                             const cm_decision *d, ms_stat *st, gd_err *err)
{
    meas_ctx *mc = ctx;
    int status = SP_MEAS_NONE;
    char reason[256];
    return jmeasure(mc->r, mc->mi, m, mc->role, NULL, t, d, &status, st,
                    reason, sizeof reason, err);
}

/* A calibration copy rung (link or host link) named `task` between the
 * devices `dev`: read back, or timed by `take` and journaled. */
static int journaled_rung(meas_ctx *mc, const char *task, const char *dev,
                          int (*take)(const void *, ms_stat *, gd_err *),
                          const void *arg, ms_stat *st, gd_err *err)
{
    runner *r = mc->r;
    char key[65], reason[256];
    job_key(r, mc->mi, r->be->name, task, dev, mc->role,
            NULL, key);
    int found = 0, status = SP_MEAS_NONE;
    int rc = recall(r, key, &found, &status, st, reason, sizeof reason, err);
    if (!rc && found && status != SP_MEAS_OK)
        rc = gd_errf(err, GD_EINPUT, "%s/results.jsonl: a %s rung is "
                     "recorded as not measured; the journal is damaged",
                     r->dir, mc->role);
    if (rc || found)
        return rc;
    if (stopped(r))
        return interrupted(err);
    rc = take(arg, st, err);
    if (rc)
        return rc;
    r->measured++;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "key", key);
    cJSON_AddStringToObject(j, "kind", "split");
    cJSON_AddStringToObject(j, "label", r->be->label);
    cJSON_AddStringToObject(j, "backend", r->be->name);
    cJSON_AddStringToObject(j, "role", mc->role);
    cJSON_AddStringToObject(j, "machine", r->run.mach[mc->mi].m.name);
    cJSON_AddStringToObject(j, "task", task);
    cJSON_AddStringToObject(j, "decision", dev);
    add_measured(j, SP_MEAS_OK, st, "", r->c->repeats, r->c->warmups);
    rc = journal(r, j, err);
    cJSON_Delete(j);
    return rc;
}

typedef struct {
    const runner *r;
    const cm_machine *m;
    int a, b, h2d, rounds;
    size_t bytes;
} rung_arg;

static int take_link(const void *arg, ms_stat *st, gd_err *err)
{
    const rung_arg *x = arg;
    ms_opts o = {x->r->c->repeats, x->r->c->warmups};
    return x->r->be->link(x->m, x->a, x->b, x->bytes, x->rounds, &o, st, err);
}

static int take_copy(const void *arg, ms_stat *st, gd_err *err)
{
    const rung_arg *x = arg;
    ms_opts o = {x->r->c->repeats, x->r->c->warmups};
    return x->r->be->copy(x->m, x->a, x->bytes, x->h2d, x->rounds, &o, st, err);
}

static int journaled_link(void *ctx, const cm_machine *m, int a, int b,
                          size_t bytes, int rounds, ms_stat *st, gd_err *err)
{
    meas_ctx *mc = ctx;
    char task[96], dev[96];
    snprintf(task, sizeof task, "exchange bytes=%zu rounds=%d", bytes, rounds);
    snprintf(dev, sizeof dev, "devices=%s,%s", m->dev[a].name, m->dev[b].name);
    rung_arg x = {mc->r, m, a, b, 0, rounds, bytes};
    return journaled_rung(mc, task, dev, take_link, &x, st, err);
}

static int journaled_copy(void *ctx, const cm_machine *m, int dev, size_t bytes,
                          int h2d, int rounds, ms_stat *st, gd_err *err)
{
    meas_ctx *mc = ctx;
    char task[96], devs[96];
    snprintf(task, sizeof task, "copy %s bytes=%zu rounds=%d",
             h2d ? "h2d" : "d2h", bytes, rounds);
    snprintf(devs, sizeof devs, "devices=%s", m->dev[dev].name);
    rung_arg x = {mc->r, m, dev, -1, h2d, rounds, bytes};
    return journaled_rung(mc, task, devs, take_copy, &x, st, err);
}

/* ---- machines and calibration ---- */

/* A measured backend runs on devices of its own kind (measure-cpu: cpu,
 * measure-cuda: cuda): say so before anything is written. */
static int check_machine_kinds(const sp_campaign *c, int mi, const cm_machine *m,
                               gd_err *err)
{
    const be_split *be = be_split_at(c->backend);
    const char *need = be->device_kind;
    for (int i = 0; need && i < m->ndev; i++)
        if (strcmp(m->dev[i].kind, need) != 0)
            return gd_errf(err, GD_EINPUT, "%s:%d: %s needs a machine of %s "
                           "devices%s; %s has %s device %s", c->path,
                           c->mach[mi].line, be->name, need, be->hint,
                           m->name, m->dev[i].kind, m->dev[i].name);
    return GD_OK;
}

int sp_check_machines(const sp_campaign *c, gd_err *err)
{
    int rc = GD_OK;
    for (int mi = 0; !rc && mi < c->nmach; mi++) {
        const sp_mach *sm = &c->mach[mi];
        cm_machine m;
        if (sm->probe)
            continue;
        rc = mach_load(sm->file[0] ? sm->file : sm->name, &m, err);
        if (!rc)
            rc = check_machine_kinds(c, mi, &m, err);
    }
    return rc;
}

/* A probed machine is probed once per run directory: the first run writes
 * machines/NAME.probe.xml and every run (the first included) predicts from
 * that file's numbers, so a rerun's keys and decisions are the first's. */
static int probe_machine(runner *r, int mi, cm_machine *m, gd_err *err)
{
    const sp_mach *sm = &r->c->mach[mi];
    char sub[PATH_MAX], file[96], path[PATH_MAX];
    util_path_join(sub, sizeof sub, r->dir, "machines");
    snprintf(file, sizeof file, "%s.probe.xml", sm->name);
    util_path_join(path, sizeof path, sub, file);
    if (util_path_exists(path)) {
        split_say(r->quiet, "%s: reusing this run's probe (machines/%s.probe.xml)",
            sm->name, sm->name);
        return mach_load_file(path, m, err);
    }
    split_say(r->quiet, "probing this machine as %s (%d devices)", sm->name,
        sm->nslowdown);
    cm_machine p;
    int rc = mach_probe(sm->nslowdown, sm->nslowdown ? sm->slowdown : NULL, &p, err);
    if (!rc) {
        util_strlcpy(p.name, sm->name, sizeof p.name);
        rc = util_mkdirs(sub, err);
    }
    if (!rc)
        rc = mach_save(&p, path, err);
    if (!rc)
        rc = mach_load_file(path, m, err);
    return rc;
}

static int load_machine(runner *r, int mi, gd_err *err)
{
    const sp_mach *sm = &r->c->mach[mi];
    cm_machine *m = &r->run.mach[mi].m;
    int rc = sm->probe ? probe_machine(r, mi, m, err)
                       : mach_load(sm->file[0] ? sm->file : sm->name, m, err);
    if (!rc)
        rc = check_machine_kinds(r->c, mi, m, err);
    if (rc)
        return rc;
    util_buf b;
    util_buf_init(&b);
    mach_to_xml(m, &b);
    util_sha256_hex(b.s, b.len, r->mach_sha[mi]);
    util_buf_free(&b);
    return GD_OK;
}

static int calibrate(runner *r, int mi, gd_err *err)
{
    cm_task tasks[SP_MAXTASK * SP_MAXSIZE];
    int nt = 0;
    for (int i = 0; i < r->c->ntask; i++)
        for (int s = 0; s < r->c->task[i].nsizes; s++)
            sp_task_at(&r->c->task[i], s, &tasks[nt++]);
    meas_ctx lc = {r, mi, "ladder"}, pc = {r, mi, "parallel-efficiency"},
             kc = {r, mi, "link"}, hc = {r, mi, "host-link"};
    sp_machine_out *mo = &r->run.mach[mi];
    split_say(r->quiet, "calibrating %s from single-device ladders (%d rungs each)",
        mo->m.name, r->c->nladder);
    int rc = GD_OK;
    if (r->be->link) {          /* cores: parallel efficiency and links */
        rc = scal_parallel_efficiency(&mo->m, journaled_measure, &pc,
                                      &mo->par_eff, err);
        if (!rc)
            rc = scal_fit_links(&mo->m, journaled_link, &kc, &mo->links, err);
    }
    if (r->be->copy)            /* before the ladders use them */
        rc = scal_fit_host_links(&mo->m, journaled_copy, &hc, &mo->host_links, err);
    if (!rc)
        rc = scal_fit_machine(&mo->m, tasks, nt, r->c->ladder, r->c->nladder,
                              journaled_measure, &lc, &mo->fit, err);
    mo->calibrated = rc == GD_OK;
    return rc;
}

static int grow(runner *r)
{
    if (r->run.nres < r->cap)
        return 0;
    size_t cap = r->cap ? 2 * r->cap : 64;
    sp_result *p = realloc(r->run.res, cap * sizeof *p);
    if (!p)
        return -1;
    r->run.res = p;
    r->cap = cap;
    return 0;
}

/* The measured half of a policy job: skipped without a GPU, else measured
 * (or read back). */
static int measure_job(runner *r, int mi, sp_result *x, gd_err *err)
{
    const char *pol = cm_policy_name(x->policy);
    if (!r->devices_missing)
        return jmeasure(r, mi, &r->run.mach[mi].m, "policy", pol, &x->t, &x->d,
                        &x->meas_status, &x->meas, x->meas_reason,
                        sizeof x->meas_reason, err);
    x->meas_status = SP_MEAS_SKIPPED;
    util_strlcpy(x->meas_reason, r->be->absent, sizeof x->meas_reason);
    cJSON *o = base_record(r, mi, r->c->backend, "policy", &x->t, &x->d, pol);
    add_measured(o, x->meas_status, &x->meas, x->meas_reason, r->c->repeats,
                 r->c->warmups);
    int rc = journal(r, o, err);
    cJSON_Delete(o);
    return rc;
}

static int run_job(runner *r, int mi, int ti, int si, int pi, gd_err *err)
{
    if (grow(r))
        return gd_errf(err, GD_EENV, "out of memory");
    sp_result *x = &r->run.res[r->run.nres++];
    memset(x, 0, sizeof *x);
    x->mach = mi; x->task = ti; x->size = si; x->policy = r->c->pol[pi];
    const cm_machine *m = &r->run.mach[mi].m;
    sp_task_at(&r->c->task[ti], si, &x->t);
    cm_task_text(&x->t, x->task_text, sizeof x->task_text);
    cm_profile prof;
    cm_profile_from_model(m, &x->t, &prof);
    gd_err e2 = {0, ""};
    x->valid = cm_policy_decide(x->policy, m, &x->t, &prof, &x->d, &e2) == GD_OK;
    /* predictions are recomputed on a rerun (pure and cheap); the record
     * is appended only when the journal lacks it */
    cJSON *o = base_record(r, mi, SP_COSTMODEL, "policy", &x->t, &x->d,
                           cm_policy_name(x->policy));
    if (x->valid) {
        x->pred = cm_predict_any(m, &x->t, &x->d, &x->terms);
        add_terms(o, m, x);
    } else {
        util_strlcpy(x->reason, e2.msg, sizeof x->reason);
        cJSON_AddStringToObject(o, "status", "invalid");
        cJSON_AddStringToObject(o, "reason", x->reason);
    }
    char key[65];
    util_strlcpy(key, record_key(o), sizeof key);
    unsigned long taken = r->measured;
    int rc = journal(r, o, err);
    cJSON_Delete(o);
    if (!rc && x->valid && r->be->measure)
        rc = measure_job(r, mi, x, err);
    if (!rc && !store_is_new(r->st, key) && r->measured == taken)
        r->resumed++;
    return rc;
}

static int run_machine(runner *r, int mi, gd_err *err)
{
    r->run.mach[mi].par_eff = NAN;
    int rc = load_machine(r, mi, err);
    if (rc)
        return rc;
    if (r->be->devices && r->be->devices() <= 0) {
        r->devices_missing = 1;
        fprintf(stderr, "split: %s (%s jobs on %s are recorded as skipped; "
                "predictions still run)\n", r->be->absent, r->be->name,
                r->run.mach[mi].m.name);
    }
    if (r->be->measure && !r->devices_missing) {
        rc = calibrate(r, mi, err);
        if (rc)
            return rc;
    }
    for (int ti = 0; ti < r->c->ntask; ti++)
        for (int si = 0; si < r->c->task[ti].nsizes; si++) {
            split_say(r->quiet, "%s: %ld units", cm_kind_name(r->c->task[ti].kind),
                r->c->task[ti].sizes[si]);
            for (int pi = 0; pi < r->c->npol; pi++) {
                rc = stopped(r) ? interrupted(err) : run_job(r, mi, ti, si, pi, err);
                if (rc)
                    return rc;
            }
        }
    return GD_OK;
}

/* ---- writing ---- */

/* Machines as used for the predictions (calibrated ones included), and
 * the calibration of each calibrated one (the analysis stage reads both
 * back to write split-analysis.json). */
static int write_machines(const runner *r, gd_err *err)
{
    char sub[PATH_MAX];
    util_path_join(sub, sizeof sub, r->dir, "machines");
    int rc = util_mkdirs(sub, err);
    for (int i = 0; !rc && i < r->c->nmach; i++) {
        const sp_machine_out *mo = &r->run.mach[i];
        char file[96], path[PATH_MAX];
        snprintf(file, sizeof file, "%s.xml", mo->m.name);
        util_path_join(path, sizeof path, sub, file);
        rc = mach_save(&mo->m, path, err);
        if (!rc && mo->calibrated)
            rc = sp_calibration_save(r->dir, mo, r->be->label, err);
    }
    return rc;
}

/* The manifest's facts of this session: machines as used, counts. */
static void fill_outcome(const runner *r, sp_outcome *out)
{
    out->njobs = r->run.nres;
    out->measured = r->measured;
    out->recalled = r->recalled;
    out->resumed = r->resumed;
    for (size_t i = 0; i < r->run.nres; i++)
        out->failed += r->run.res[i].meas_status == SP_MEAS_FAILED ||
                       r->run.res[i].meas_status == SP_MEAS_SKIPPED;
    for (int i = 0; i < r->c->nmach; i++) {
        const cm_machine *m = &r->run.mach[i].m;
        util_strlcpy(out->mach[i].name, m->name, sizeof out->mach[i].name);
        util_strlcpy(out->mach[i].sha256, r->mach_sha[i],
                     sizeof out->mach[i].sha256);
        util_strlcpy(out->mach[i].source, r->c->mach[i].probe
                     ? "probe (measured)" : m->source,
                     sizeof out->mach[i].source);
    }
}

int split_session(const sp_campaign *c, const char *dir, store *st,
                  int quiet, volatile sig_atomic_t *stop, sp_outcome *out,
                  gd_err *err)
{
    runner *r = calloc(1, sizeof *r);
    if (!r)
        return gd_errf(err, GD_EENV, "out of memory");
    r->c = c;
    r->be = be_split_at(c->backend);
    r->run.c = c;
    r->dir = dir;
    r->st = st;
    r->quiet = quiet;
    r->stop = stop;
    int rc = GD_OK;
    for (int i = 0; !rc && i < c->nmach; i++)
        rc = run_machine(r, i, err);
    if (!rc)
        rc = store_flush(r->st, err);
    if (!rc)
        rc = write_machines(r, err);
    memset(out, 0, sizeof *out);
    fill_outcome(r, out);
    free(r->run.res);
    free(r);
    return rc;
}

int cmd_split(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[0], "validate") != 0) {
        fprintf(stderr, "usage: gpudse split run CAMPAIGN [-o DIR] [-q] "
                "[--force]\n"
                "       gpudse split validate CAMPAIGN\n");
        return GD_EINPUT;
    }
    gd_err err = {0, ""};
    sp_campaign *c = malloc(sizeof *c);
    int rc = c ? sp_load(argv[1], c, &err) : gd_errf(&err, GD_EENV, "out of memory");
    if (!rc)
        printf("%s: ok: split study %s, backend %s, %d machine(s), %d "
               "task(s), %d policies\n", argv[1], c->name,
               bname(c->backend), c->nmach, c->ntask, c->npol);
    free(c);
    if (rc)
        fprintf(stderr, "gpudse: %s\n", err.msg);
    return rc;
}
