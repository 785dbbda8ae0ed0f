/* splitdir: a split run read back from the files of its run directory
 * alone — campaign.xml (the study's shape), manifest.json (the campaign's
 * path), split-analysis.json (calibration, links, held-out score, per
 * machine), machines/NAME.xml and results.jsonl (every policy job's
 * prediction with its Eq. (1) terms, and its measurement). The report is
 * drawn from this, both at the end of a run and by `gpudse report DIR`,
 * so the same files always give the same report. The analysis stage reads
 * the same files but split-analysis.json, which it writes (and the split
 * run writes each machine's calibration here: sp_calibration_save). */
#include "split.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "campaign.h"
#include "machine.h"

int sp_is_run_dir(const char *dir)
{
    char path[PATH_MAX], root[64];
    if (util_path_join(path, sizeof path, dir, "campaign.xml") ||
        !util_path_exists(path))
        return 0;
    return camp_root_name(path, root, sizeof root, NULL, 0, NULL) == 0 &&
           !strcmp(root, "split-study");
}

static int read_json(const char *dir, const char *name, cJSON **out,
                     gd_err *err)
{
    char path[PATH_MAX], *text;
    util_path_join(path, sizeof path, dir, name);
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: missing; the split run has not "
                       "finished (run the same command again to resume it)",
                       path);
    int rc = util_read_file(path, &text, NULL, err);
    if (rc)
        return rc;
    *out = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(*out)) {
        cJSON_Delete(*out);
        *out = NULL;
        return gd_errf(err, GD_EINPUT, "%s: not a JSON object", path);
    }
    return GD_OK;
}

static const cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *str(const cJSON *o, const char *k)
{
    const char *s = cJSON_GetStringValue(item(o, k));
    return s ? s : "";
}

/* A number, or NaN for null or absent (how the writer stores NaN). */
static double num(const cJSON *o, const char *k)
{
    const cJSON *v = item(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int dev_of(const cm_machine *m, const char *name)
{
    for (int i = 0; i < m->ndev; i++)
        if (!strcmp(m->dev[i].name, name))
            return i;
    return -1;
}

/* ---- split-analysis.json, per machine ---- */

typedef struct {
    const char *dir;
    const char *file;              /* for messages */
    gd_err *err;
} lctx;

static int bad(const lctx *x, const char *what, const char *name)
{
    return gd_errf(x->err, GD_EINPUT, "%s/%s: %s%s", x->dir, x->file, what,
                   name ? name : "");
}

static int load_fits(const lctx *x, const cJSON *cal, sp_machine_out *mo)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, item(cal, "fits")) {
        if (mo->fit.nrows == CM_MAXDEV * CM_NKINDS)
            return bad(x, "too many calibration fits for ", mo->m.name);
        scal_row *row = &mo->fit.rows[mo->fit.nrows];
        row->dev = dev_of(&mo->m, str(f, "device"));
        row->kind = cm_kind_parse(str(f, "class"));
        if (row->dev < 0 || row->kind < 0)
            return bad(x, "a calibration fit names an unknown device or "
                       "class on ", mo->m.name);
        row->compute_bound = !strcmp(str(f, "roof"), "flops");
        row->eta = num(f, "eta");
        row->fixed_s = num(f, "fixed_s");
        row->r2 = num(f, "r2");
        row->npts = (int)num(f, "ladder_points");
        mo->fit.nrows++;
    }
    const cJSON *l;
    cJSON_ArrayForEach(l, item(cal, "links")) {
        if (mo->links.nlinks == CM_MAXDEV * (CM_MAXDEV - 1) / 2)
            return bad(x, "too many links for ", mo->m.name);
        scal_link *k = &mo->links.links[mo->links.nlinks];
        k->a = dev_of(&mo->m, str(l, "from"));
        k->b = dev_of(&mo->m, str(l, "to"));
        if (k->a < 0 || k->b < 0)
            return bad(x, "a link names an unknown device on ", mo->m.name);
        k->lat = num(l, "latency_s");
        k->bw = num(l, "bandwidth_Bps");
        k->r2 = num(l, "r2");
        mo->links.nlinks++;
    }
    cJSON_ArrayForEach(l, item(cal, "host_links")) {
        if (mo->host_links.nlinks == 2 * CM_MAXDEV)
            return bad(x, "too many host links for ", mo->m.name);
        scal_host_link *k = &mo->host_links.links[mo->host_links.nlinks];
        k->dev = dev_of(&mo->m, str(l, "device"));
        k->h2d = !strcmp(str(l, "direction"), "h2d");
        if (k->dev < 0)
            return bad(x, "a host link names an unknown device on ", mo->m.name);
        k->lat = num(l, "latency_s");
        k->bw = num(l, "bandwidth_Bps");
        k->r2 = num(l, "r2");
        mo->host_links.nlinks++;
    }
    return GD_OK;
}

static void load_score(const cJSON *cal, sp_machine_out *mo)
{
    const cJSON *h = item(cal, "heldout");
    if (!cJSON_IsNumber(item(h, "n")))
        return;
    mo->has_score = 1;
    scal_score *s = &mo->score;
    s->n = (size_t)num(h, "n");
    s->median_ape = num(h, "median_ape_pct");
    s->p90_ape = num(h, "p90_ape_pct");
    s->spearman = num(h, "spearman_rho");
    s->kendall_tau_b = num(h, "kendall_tau_b");
    s->regret = num(h, "regret");
    s->warn = cJSON_IsTrue(item(h, "warning_ape_above_30pct"));
}

/* machines/NAME.xml: the machine as the run used it. */
static int load_machine_file(const lctx *x, const char *name,
                             sp_machine_out *mo)
{
    char sub[PATH_MAX], file[96], path[PATH_MAX];
    if (!*name || strchr(name, '/'))
        return bad(x, "a machine entry without a valid \"machine\" name", NULL);
    util_path_join(sub, sizeof sub, x->dir, "machines");
    snprintf(file, sizeof file, "%s.xml", name);
    util_path_join(path, sizeof path, sub, file);
    return mach_load_file(path, &mo->m, x->err);
}

/* A calibration object (sp_calibration_json's, with "heldout" in
 * split-analysis.json). */
static int load_calibration(const lctx *x, const cJSON *cal,
                            sp_machine_out *mo)
{
    mo->calibrated = cJSON_IsTrue(item(cal, "calibrated"));
    mo->par_eff = num(cal, "parallel_efficiency_measured");
    load_score(cal, mo);
    return load_fits(x, cal, mo);
}

static int load_machine_out(const lctx *x, const cJSON *a, sp_machine_out *mo)
{
    int rc = load_machine_file(x, str(a, "machine"), mo);
    return rc ? rc : load_calibration(x, item(a, "calibration"), mo);
}

static int load_analysis(const char *dir, const sp_campaign *c, sp_run *r,
                         gd_err *err)
{
    cJSON *an;
    int rc = read_json(dir, "split-analysis.json", &an, err);
    if (rc)
        return rc;
    lctx x = {dir, "split-analysis.json", err};
    const cJSON *ms = item(an, "machines");
    if (cJSON_GetArraySize(ms) != c->nmach)
        rc = bad(&x, "\"machines\" does not list the campaign's machines",
                 NULL);
    for (int i = 0; !rc && i < c->nmach; i++)
        rc = load_machine_out(&x, cJSON_GetArrayItem(ms, i), &r->mach[i]);
    cJSON_Delete(an);
    return rc;
}

/* ---- results.jsonl ---- */

typedef struct {
    cJSON **rec;                   /* the journal's policy records */
    size_t n;
} journal;

static void journal_free(journal *j)
{
    for (size_t i = 0; i < j->n; i++)
        cJSON_Delete(j->rec[i]);
    free(j->rec);
}

/* Every complete line with role "policy"; a torn last line is ignored
 * (a rerun cuts it off). */
static int load_journal(const char *dir, journal *j, gd_err *err)
{
    char path[PATH_MAX], *text;
    size_t len;
    util_path_join(path, sizeof path, dir, "results.jsonl");
    int rc = util_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    size_t cap = 0;
    int lineno = 0;
    for (char *p = text, *nl; !rc && (nl = memchr(p, '\n', len - (size_t)(p - text)));
         p = nl + 1) {
        *nl = '\0';
        lineno++;
        cJSON *o = cJSON_Parse(p);
        if (!cJSON_IsObject(o)) {
            cJSON_Delete(o);
            rc = gd_errf(err, GD_EINPUT, "%s:%d: not a JSON object", path,
                         lineno);
            break;
        }
        if (strcmp(str(o, "role"), "policy") != 0) {
            cJSON_Delete(o);
            continue;
        }
        if (j->n == cap) {
            cap = cap ? 2 * cap : 256;
            cJSON **g = realloc(j->rec, cap * sizeof *g);
            if (!g) {
                cJSON_Delete(o);
                rc = gd_errf(err, GD_EENV, "out of memory");
                break;
            }
            j->rec = g;
        }
        j->rec[j->n++] = o;
    }
    free(text);
    return rc;
}

static const cJSON *find_rec(const journal *j, int predicted,
                             const char *mach, const char *task,
                             const char *policy)
{
    for (size_t i = 0; i < j->n; i++) {
        const cJSON *o = j->rec[i];
        int pred = !strcmp(str(o, "backend"), "costmodel");
        if (pred == predicted &&
            !strcmp(str(o, "machine"), mach) && !strcmp(str(o, "task"), task) &&
            !strcmp(str(o, "policy"), policy))
            return o;
    }
    return NULL;
}

/* Eq. (1)'s terms of a predicted record, per device of its decision. */
static void load_terms(const cJSON *o, sp_result *x)
{
    const cJSON *t = item(o, "terms");
    cm_terms *tm = &x->terms;
    tm->t_setup = num(t, "t_setup");
    tm->t_max = num(t, "t_max");
    tm->t_merge = num(t, "t_merge");
    tm->total = x->pred;
    const char *crit = str(t, "critical");
    for (int i = 0; i < x->d.n; i++)
        if (!strcmp(x->d.dev[i], crit))
            tm->critical = i;
    int i = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, item(t, "devices")) {
        if (i == CM_MAXDEV)
            break;
        tm->u[i] = num(d, "units");
        tm->n_chunks[i] = num(d, "chunks");
        tm->t_in[i] = num(d, "t_in");
        tm->t_comp[i] = num(d, "t_comp");
        tm->t_out[i] = num(d, "t_out");
        tm->t_launch[i] = num(d, "t_launch");
        tm->t_dev[i] = num(d, "t_dev");
        i++;
    }
}

static void load_measured(const cJSON *o, sp_result *x)
{
    static const char *const names[] = {"none", "ok", "skipped", "failed"};
    const char *s = str(o, "status");
    for (int i = 1; i < 4; i++)
        if (!strcmp(s, names[i]))
            x->meas_status = i;
    x->meas.median = num(o, "time_s");
    x->meas.q1 = num(o, "q1_s");
    x->meas.q3 = num(o, "q3_s");
    x->meas.n = (int)num(o, "repeats");
    util_strlcpy(x->meas_reason, str(o, "reason"), sizeof x->meas_reason);
}

/* One policy job, in the run's order, from its records. */
static int load_job(const char *dir, const sp_run *r, const journal *j,
                    sp_result *x, gd_err *err)
{
    const char *mach = r->mach[x->mach].m.name, *pol = cm_policy_name(x->policy);
    sp_task_at(&r->c->task[x->task], x->size, &x->t);
    cm_task_text(&x->t, x->task_text, sizeof x->task_text);
    const cJSON *p = find_rec(j, 1, mach, x->task_text, pol);
    if (!p)
        return gd_errf(err, GD_EINPUT, "%s/results.jsonl: no prediction of "
                       "policy %s for %s on %s; the split run has not "
                       "finished (run the same command again to resume it)",
                       dir, pol, x->task_text, mach);
    x->valid = !strcmp(str(p, "status"), "ok");
    gd_err e2 = {0, ""};
    if (cm_decision_parse(str(p, "decision"), &x->d, &e2) != GD_OK && x->valid)
        return gd_errf(err, GD_EINPUT, "%s/results.jsonl: policy %s for %s "
                       "on %s: %s", dir, pol, x->task_text, mach, e2.msg);
    if (!x->valid) {
        util_strlcpy(x->reason, str(p, "reason"), sizeof x->reason);
        return GD_OK;
    }
    x->pred = num(p, "time_s");
    load_terms(p, x);
    const cJSON *m = find_rec(j, 0, mach, x->task_text, pol);
    if (m)
        load_measured(m, x);
    return GD_OK;
}

static int load_jobs(const char *dir, sp_run *r, gd_err *err)
{
    journal j = {NULL, 0};
    int rc = load_journal(dir, &j, err);
    const sp_campaign *c = r->c;
    size_t total = 0;
    for (int ti = 0; ti < c->ntask; ti++)
        total += (size_t)c->task[ti].nsizes;
    total *= (size_t)(c->npol * c->nmach);
    r->res = rc ? NULL : calloc(total + 1, sizeof *r->res);
    if (!rc && !r->res)
        rc = gd_errf(err, GD_EENV, "out of memory");
    for (int mi = 0; !rc && mi < c->nmach; mi++)
        for (int ti = 0; !rc && ti < c->ntask; ti++)
            for (int si = 0; !rc && si < c->task[ti].nsizes; si++)
                for (int pi = 0; !rc && pi < c->npol; pi++) {
                    sp_result *x = &r->res[r->nres++];
                    x->mach = mi;
                    x->task = ti;
                    x->size = si;
                    x->policy = c->pol[pi];
                    rc = load_job(dir, r, &j, x, err);
                }
    journal_free(&j);
    return rc;
}

/* The campaign's own path, as the run recorded it (the report names it). */
static int campaign_path(const char *dir, sp_campaign *c, gd_err *err)
{
    cJSON *m;
    int rc = read_json(dir, "manifest.json", &m, err);
    if (rc)
        return rc;
    const char *p = str(m, "campaign_file");
    if (*p)
        util_strlcpy(c->path, p, sizeof c->path);
    cJSON_Delete(m);
    return GD_OK;
}

/* ---- machines/: each machine as used and its calibration ---- */

void sp_json_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void add_fits(cJSON *cal, const sp_machine_out *mo)
{
    cJSON *rows = cJSON_AddArrayToObject(cal, "fits");
    for (int i = 0; mo->calibrated && i < mo->fit.nrows; i++) {
        const scal_row *f = &mo->fit.rows[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "device", mo->m.dev[f->dev].name);
        cJSON_AddStringToObject(x, "class", cm_kind_name(f->kind));
        cJSON_AddStringToObject(x, "roof", f->compute_bound ? "flops" : "bytes");
        sp_json_num(x, "eta", f->eta);
        sp_json_num(x, "fixed_s", f->fixed_s);
        sp_json_num(x, "r2", f->r2);
        cJSON_AddNumberToObject(x, "ladder_points", f->npts);
        cJSON_AddItemToArray(rows, x);
    }
}

static void add_links(cJSON *cal, const sp_machine_out *mo)
{
    cJSON *lk = cJSON_AddArrayToObject(cal, "links");
    for (int i = 0; mo->calibrated && i < mo->links.nlinks; i++) {
        const scal_link *l = &mo->links.links[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "from", mo->m.dev[l->a].name);
        cJSON_AddStringToObject(x, "to", mo->m.dev[l->b].name);
        sp_json_num(x, "latency_s", l->lat);
        sp_json_num(x, "bandwidth_Bps", l->bw);
        sp_json_num(x, "r2", l->r2);
        cJSON_AddItemToArray(lk, x);
    }
    cJSON *hl = cJSON_AddArrayToObject(cal, "host_links");
    for (int i = 0; mo->calibrated && i < mo->host_links.nlinks; i++) {
        const scal_host_link *l = &mo->host_links.links[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "device", mo->m.dev[l->dev].name);
        cJSON_AddStringToObject(x, "direction", l->h2d ? "h2d" : "d2h");
        sp_json_num(x, "latency_s", l->lat);
        sp_json_num(x, "bandwidth_Bps", l->bw);
        sp_json_num(x, "r2", l->r2);
        cJSON_AddItemToArray(hl, x);
    }
}

cJSON *sp_calibration_json(const sp_machine_out *mo, const char *label)
{
    cJSON *cal = cJSON_CreateObject();
    cJSON_AddBoolToObject(cal, "calibrated", mo->calibrated);
    cJSON_AddStringToObject(cal, "label", mo->calibrated
                            ? label : "none (machine file numbers)");
    add_fits(cal, mo);
    sp_json_num(cal, "parallel_efficiency_measured", mo->par_eff);
    add_links(cal, mo);
    return cal;
}

static void calibration_path(const char *dir, const char *name, char *path,
                             size_t n)
{
    char sub[PATH_MAX], file[128];
    util_path_join(sub, sizeof sub, dir, "machines");
    snprintf(file, sizeof file, "%s.calibration.json", name);
    util_path_join(path, n, sub, file);
}

int sp_calibration_save(const char *dir, const sp_machine_out *mo,
                        const char *label, gd_err *err)
{
    char path[PATH_MAX];
    calibration_path(dir, mo->m.name, path, sizeof path);
    cJSON *cal = sp_calibration_json(mo, label);
    int rc = cal ? util_write_json_atomic(path, cal, err)
                 : gd_errf(err, GD_EENV, "out of memory");
    cJSON_Delete(cal);
    return rc;
}

/* The machine named in the manifest's "machines" entry a, and its
 * calibration when it has one (none: calibrated 0, par_eff NaN). */
static int load_machine_used(const lctx *x, const cJSON *a,
                             sp_machine_out *mo)
{
    int rc = load_machine_file(x, str(a, "name"), mo);
    mo->par_eff = NAN;
    char path[PATH_MAX];
    calibration_path(x->dir, mo->m.name, path, sizeof path);
    if (rc || !util_path_exists(path))
        return rc;
    char *text;
    rc = util_read_file(path, &text, NULL, x->err);
    if (rc)
        return rc;
    cJSON *cal = cJSON_Parse(text);
    free(text);
    lctx y = {x->dir, "machines/", x->err};
    rc = cJSON_IsObject(cal) ? load_calibration(&y, cal, mo)
                             : gd_errf(x->err, GD_EINPUT, "%s: not a JSON "
                                       "object", path);
    cJSON_Delete(cal);
    return rc;
}

static int load_machines_used(const char *dir, const sp_campaign *c,
                              sp_run *r, gd_err *err)
{
    cJSON *m;
    int rc = read_json(dir, "manifest.json", &m, err);
    if (rc)
        return rc;
    lctx x = {dir, "manifest.json", err};
    const cJSON *ms = item(m, "machines");
    if (cJSON_GetArraySize(ms) != c->nmach)
        rc = gd_errf(err, GD_EINPUT, "%s/manifest.json: \"machines\" does "
                     "not list the campaign's machines; the split run has "
                     "not finished (run the same command again to resume "
                     "it)", dir);
    for (int i = 0; !rc && i < c->nmach; i++)
        rc = load_machine_used(&x, cJSON_GetArrayItem(ms, i), &r->mach[i]);
    cJSON_Delete(m);
    return rc;
}

/* The run: its machines from split-analysis.json (analysed: for the
 * report), else as used (manifest.json, machines/: for the analysis). */
static int load_run(const char *dir, int analysed, sp_campaign *c,
                    sp_run *r, gd_err *err)
{
    memset(r, 0, sizeof *r);
    char path[PATH_MAX];
    util_path_join(path, sizeof path, dir, "campaign.xml");
    int rc = sp_load_copy(path, c, err);
    r->c = c;
    if (!rc)
        rc = campaign_path(dir, c, err);
    if (!rc)
        rc = analysed ? load_analysis(dir, c, r, err)
                      : load_machines_used(dir, c, r, err);
    if (!rc)
        rc = load_jobs(dir, r, err);
    if (rc)
        sp_run_free(r);
    return rc;
}

int sp_run_load_jobs(const char *dir, sp_campaign *c, sp_run *r,
                     gd_err *err)
{
    return load_run(dir, 0, c, r, err);
}

int sp_run_load(const char *dir, sp_campaign *c, sp_run *r, gd_err *err)
{
    return load_run(dir, 1, c, r, err);
}

void sp_run_free(sp_run *r)
{
    free(r->res);
    r->res = NULL;
    r->nres = 0;
}
