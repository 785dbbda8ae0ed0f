/* campaign_agg: the <aggregate name= fn= metric= normalise= sense=/>
 * elements of <objectives> — campaign-level objectives over the configs
 * evaluated on every workload — checked for their meaning: the name, the
 * function, normalise="baseline" only where the baseline configuration is
 * in the space (every strategy then evaluates it on every workload), and
 * the sense (its metric's objective's when not given). Whether the backend
 * produces the metric is the backends' check (be_check_campaign). */
#include <ctype.h>
#include <string.h>

#include "campaign_impl.h"
#include "metrics.h"

static const char *const fn_names[] = {
    [CAMP_AGG_GEOMEAN] = "geomean", [CAMP_AGG_MEAN] = "mean",
    [CAMP_AGG_HMEAN] = "hmean", [CAMP_AGG_MIN] = "min", [CAMP_AGG_MAX] = "max"
};

const char *camp_agg_fn_name(int fn)
{
    return fn >= 0 && fn <= CAMP_AGG_MAX ? fn_names[fn] : "?";
}

/* A name fit for a CSV column and a JSON key: a letter, then letters,
 * digits and '_', at most 31. */
static int name_ok(const char *s)
{
    if (!isalpha((unsigned char)s[0]) || strlen(s) >= 32)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int check_name(ctx_t *x, xmlNodePtr n, const char *name)
{
    const camp_campaign *c = x->c;
    if (!name_ok(name))
        return fail(x, n, "aggregate name \"%s\": use a letter, then "
                    "letters, digits or '_' (at most 31)", name);
    if (met_is_known(name) || drv_find(c->derived, c->nderived, name) >= 0)
        return fail(x, n, "aggregate name \"%s\" is a metric's name: name "
                    "the aggregate otherwise (e.g. \"geomean_%s\")", name,
                    name);
    for (int i = 0; i < c->naggregates; i++)
        if (strcmp(c->agg[i].name, name) == 0)
            return fail(x, n, "aggregate \"%s\" is declared twice (line "
                        "%d)", name, c->agg_line[i]);
    if (c->naggregates == CAMP_MAXAGG)
        return fail(x, n, "too many aggregates (at most %d)", CAMP_MAXAGG);
    return GD_OK;
}

static int parse_fn(ctx_t *x, xmlNodePtr n, const char *fn, int *out)
{
    for (int i = 0; i <= CAMP_AGG_MAX; i++)
        if (strcmp(fn, fn_names[i]) == 0) {
            *out = i;
            return GD_OK;
        }
    return fail(x, n, "aggregate fn=\"%s\": use geomean, mean, hmean, min "
                "or max", fn);
}

/* normalise="baseline" divides by each workload's baseline value, so the
 * baseline configuration must be one the search can evaluate. */
static int parse_normalise(ctx_t *x, xmlNodePtr n, const char *v, int *out)
{
    *out = 0;
    if (!v || strcmp(v, "none") == 0)
        return GD_OK;
    if (strcmp(v, "baseline") != 0)
        return fail(x, n, "aggregate normalise=\"%s\": use baseline or "
                    "none", v);
    *out = 1;
    gpu_config base = space_baseline();
    if (space_index(&x->c->space, &base) >= 0)
        return GD_OK;
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const space_knob_def *d = space_knob_get(k);
        int in = 0;
        for (int l = 0; l < x->c->space.nlevels[k]; l++)
            in |= x->c->space.levels[k][l] == d->baseline;
        char buf[32];
        if (!in)
            return fail(x, n, "aggregate normalise=\"baseline\" needs the "
                        "baseline configuration in the space, but knob %s "
                        "does not take its baseline %s: add it to the "
                        "knob's values or drop normalise=", d->name,
                        space_value_str(k, d->baseline, buf, sizeof buf));
    }
    return fail(x, n, "aggregate normalise=\"baseline\" needs the baseline "
                "configuration in the space");
}

/* sense="maximize|minimize", else the sense of the objective on metric. */
static int parse_sense(ctx_t *x, xmlNodePtr n, const char *sense,
                       const char *metric, int *maximize)
{
    if (sense && strcmp(sense, "maximize") != 0
        && strcmp(sense, "minimize") != 0)
        return fail(x, n, "aggregate sense=\"%s\": use maximize or "
                    "minimize", sense);
    if (sense) {
        *maximize = strcmp(sense, "maximize") == 0;
        return GD_OK;
    }
    for (int i = 0; i < x->c->nobjectives; i++)
        if (strcmp(x->c->obj[i].metric, metric) == 0) {
            *maximize = x->c->obj[i].maximize;
            return GD_OK;
        }
    if (met_is_known(metric)
        || drv_find(x->c->derived, x->c->nderived, metric) >= 0)
        return fail(x, n, "aggregate over \"%s\", which is no objective: "
                    "say sense=\"maximize\" or sense=\"minimize\"", metric);
    const char *best = NULL;
    int bestd = 1 << 30;
    for (int i = 0; i < met_known_count(); i++) {
        int d = util_edit_distance(metric, met_known_name(i));
        if (d < bestd) {
            bestd = d;
            best = met_known_name(i);
        }
    }
    if (best && bestd <= (int)strlen(metric) / 3 + 1)
        return fail(x, n, "aggregate over unknown metric \"%s\" (did you "
                    "mean \"%s\"?)", metric, best);
    return fail(x, n, "aggregate over \"%s\", which is no objective nor "
                "a metric gpudse knows: say sense=\"maximize\" or "
                "sense=\"minimize\" for a metric your simulator reports",
                metric);
}

int campx_aggregate(ctx_t *x, xmlNodePtr n)
{
    char *name = attr(n, "name"), *fn = attr(n, "fn");
    char *metric = attr(n, "metric"), *norm = attr(n, "normalise");
    char *sense = attr(n, "sense");
    camp_aggregate a;
    memset(&a, 0, sizeof a);
    int rc = check_name(x, n, name ? name : "");
    if (!rc)
        rc = parse_fn(x, n, fn ? fn : "", &a.fn);
    if (!rc && (!metric || !metric[0] || strlen(metric) >= sizeof a.metric))
        rc = fail(x, n, "aggregate metric=\"%s\" is not a metric name",
                  metric ? metric : "");
    if (!rc)
        rc = parse_normalise(x, n, norm, &a.normalise);
    if (!rc)
        rc = parse_sense(x, n, sense, metric, &a.maximize);
    if (!rc) {
        util_strlcpy(a.name, name, sizeof a.name);
        util_strlcpy(a.metric, metric, sizeof a.metric);
        x->c->agg_line[x->c->naggregates] = line_of(n);
        x->c->agg[x->c->naggregates++] = a;
    }
    xmlFree(name);
    xmlFree(fn);
    xmlFree(metric);
    xmlFree(norm);
    xmlFree(sense);
    return rc;
}
