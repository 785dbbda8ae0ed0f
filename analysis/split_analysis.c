/* split_analysis: split-analysis.json from a split run's files
 * (split_analysis.h); the same files always give the same bytes. */
#include "split_analysis.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <cjson/cJSON.h>

#include "be_split.h"
#include "split.h"

/* Held-out score: multi-device policy decisions with both numbers. */
static void score_machine(sp_run *r, int mi)
{
    size_t n = 0;
    double *p = malloc(sizeof *p * (r->nres + 1));
    double *q = malloc(sizeof *q * (r->nres + 1));
    int *g = malloc(sizeof *g * (r->nres + 1));
    for (size_t i = 0; p && q && g && i < r->nres; i++) {
        const sp_result *x = &r->res[i];
        if (x->mach != mi || !x->valid || x->meas_status != SP_MEAS_OK ||
            (x->d.n < 2 && !x->d.dynamic))
            continue;
        p[n] = x->pred;
        q[n] = x->meas.median;
        g[n] = x->task * SP_MAXSIZE + x->size;
        n++;
    }
    sp_machine_out *mo = &r->mach[mi];
    mo->has_score = 0;
    if (n >= 2) {
        scal_score_pairs(p, q, g, n, &mo->score);
        mo->has_score = 1;
    }
    free(p);
    free(q);
    free(g);
}

static const sp_result *find_even(const sp_run *r, const sp_result *x)
{
    for (size_t i = 0; i < r->nres; i++) {
        const sp_result *y = &r->res[i];
        if (y->mach == x->mach && y->task == x->task && y->size == x->size &&
            y->policy == CM_POL_EVEN)
            return y;
    }
    return NULL;
}

static void add_heldout(cJSON *cal, const sp_machine_out *mo)
{
    cJSON *h = cJSON_AddObjectToObject(cal, "heldout");
    if (!mo->has_score)
        return;
    cJSON_AddStringToObject(h, "compares", "PREDICTED(costmodel) vs "
                            "measured, multi-device policy decisions");
    cJSON_AddNumberToObject(h, "n", (double)mo->score.n);
    sp_json_num(h, "median_ape_pct", mo->score.median_ape);
    sp_json_num(h, "p90_ape_pct", mo->score.p90_ape);
    sp_json_num(h, "spearman_rho", mo->score.spearman);
    sp_json_num(h, "kendall_tau_b", mo->score.kendall_tau_b);
    sp_json_num(h, "regret", mo->score.regret);
    cJSON_AddBoolToObject(h, "warning_ape_above_30pct", mo->score.warn);
}

static void add_speedups(cJSON *o, const sp_run *r, int mi)
{
    cJSON *sp = cJSON_AddArrayToObject(o, "speedup_over_even");
    for (size_t i = 0; i < r->nres; i++) {
        const sp_result *x = &r->res[i];
        const sp_result *e = find_even(r, x);
        if (x->mach != mi || !e)
            continue;
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "task", x->task_text);
        cJSON_AddStringToObject(s, "policy", cm_policy_name(x->policy));
        sp_json_num(s, "predicted", x->valid && e->valid
                                            ? e->pred / x->pred : NAN);
        if (x->meas_status == SP_MEAS_OK && e->meas_status == SP_MEAS_OK) {
            cJSON_AddNumberToObject(s, "measured", e->meas.median / x->meas.median);
            cJSON_AddNumberToObject(s, "measured_lo", e->meas.median / x->meas.q3);
            cJSON_AddNumberToObject(s, "measured_hi", e->meas.median / x->meas.q1);
        }
        cJSON_AddItemToArray(sp, s);
    }
}

static cJSON *machine_analysis(const sp_run *r, int mi, const be_split *be)
{
    const sp_machine_out *mo = &r->mach[mi];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "machine", mo->m.name);
    cJSON_AddBoolToObject(o, "induced", mo->m.induced);
    cJSON *cal = sp_calibration_json(mo, be->label);
    add_heldout(cal, mo);
    cJSON_AddItemToObject(o, "calibration", cal);
    add_speedups(o, r, mi);
    return o;
}

static cJSON *split_analysis_json(sp_run *r)
{
    const be_split *be = be_split_at(r->c->backend);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "split");
    cJSON_AddStringToObject(o, "campaign", r->c->name);
    cJSON_AddStringToObject(o, "predicted_label",
                            be_split_at(SP_COSTMODEL)->label);
    cJSON_AddStringToObject(o, "measured_label", be->measure ? be->label
                                                             : "none");
    cJSON *ms = cJSON_AddArrayToObject(o, "machines");
    for (int i = 0; i < r->c->nmach; i++) {
        score_machine(r, i);
        cJSON_AddItemToArray(ms, machine_analysis(r, i, be));
    }
    return o;
}

int ana_split_run(const char *rundir, gd_err *err)
{
    sp_campaign *c = malloc(sizeof *c);
    sp_run *r = malloc(sizeof *r);
    int rc = c && r ? sp_run_load_jobs(rundir, c, r, err)
                    : gd_errf(err, GD_EENV, "out of memory");
    if (!rc) {
        char path[PATH_MAX];
        util_path_join(path, sizeof path, rundir, "split-analysis.json");
        cJSON *o = split_analysis_json(r);
        rc = o ? util_write_json_atomic(path, o, err)
               : gd_errf(err, GD_EENV, "out of memory");
        cJSON_Delete(o);
        sp_run_free(r);
    }
    free(r);
    free(c);
    return rc;
}
