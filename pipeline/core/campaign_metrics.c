/* campaign_metrics: the campaign parser's part for <derived> (a metric
 * computed from others by an expression) and <constraint> (bounds inside
 * <objectives>): names, expressions and bounds as a document; whether a
 * backend produces a metric is the backends' check (be_check_campaign). */
#include <math.h>
#include <stdlib.h>

#include "campaign_impl.h"

/* Is name a metric the campaign may read: a catalogue metric, one the
 * command backend declares, or a derived metric declared before nd? */
static int metric_declared(const camp_campaign *c, const char *name, int nd)
{
    if (met_is_known(name) || drv_find(c->derived, nd, name) >= 0)
        return 1;
    for (int i = 0; i < c->nmetrics; i++)
        if (!strcmp(c->metrics[i].name, name))
            return 1;
    return 0;
}

/* The closest declared name to name, for "did you mean". */
static const char *closest(const camp_campaign *c, const char *name, int nd)
{
    const char *best = NULL;
    int bestd = (int)strlen(name) / 3 + 2;
    for (int i = 0; i < met_known_count() + c->nmetrics + nd; i++) {
        int nk = met_known_count();
        const char *s = i < nk ? met_known_name(i)
                        : i < nk + c->nmetrics ? c->metrics[i - nk].name
                        : c->derived[i - nk - c->nmetrics].name;
        int d = util_edit_distance(name, s);
        if (d < bestd) {
            bestd = d;
            best = s;
        }
    }
    return best;
}

static int unknown_metric(ctx_t *x, xmlNodePtr n, const char *what,
                          const char *name, int nd)
{
    const char *s = closest(x->c, name, nd);
    char hint[96] = "";
    if (s)
        snprintf(hint, sizeof hint, "; did you mean \"%s\"?", s);
    return fail(x, n, "%s unknown metric \"%s\" (a metric of the "
                "backend, a <metric> of the command backend or a <derived> "
                "declared before it)%s", what, name, hint);
}

/* A name libmatheval reads as one variable (not a constant or function)
 * and that no other metric has. */
static int check_derived_name(ctx_t *x, xmlNodePtr n, const char *name)
{
    drv_metric probe;
    char why[256];
    int ok = *name && strlen(name) < MET_NAMELEN
             && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                       "VWXYZ0123456789_") == strlen(name)
             && !(name[0] >= '0' && name[0] <= '9');
    memset(&probe, 0, sizeof probe);
    util_strlcpy(probe.expr, name, sizeof probe.expr);
    if (ok)
        ok = drv_compile(&probe, why, sizeof why) == 0 && probe.ninputs == 1
             && !strcmp(probe.inputs[0], name);
    drv_free(&probe);
    if (!ok)
        return fail(x, n, "derived metric name \"%s\" must be letters, "
                    "digits and '_' (at most %d, not first a digit), and not "
                    "a constant or function of expressions (e, pi, sin, ...)",
                    name, MET_NAMELEN - 1);
    if (metric_declared(x->c, name, x->c->nderived))
        return fail(x, n, "derived metric \"%s\" has the name of another "
                    "metric", name);
    return GD_OK;
}

static int parse_derived(ctx_t *x, xmlNodePtr n)
{
    camp_campaign *c = x->c;
    char *name = attr(n, "name"), *expr = attr(n, "expr"), *unit = attr(n, "unit");
    drv_metric *d = &c->derived[c->nderived];
    char why[768];
    int rc = GD_OK;
    if (c->nderived == DRV_MAX)
        rc = fail(x, n, "too many derived metrics (at most %d)", DRV_MAX);
    if (!rc)
        rc = check_derived_name(x, n, name ? name : "");
    if (!rc && strlen(expr) >= sizeof d->expr)
        rc = fail(x, n, "expression of %s is too long", name);
    if (!rc && unit && strlen(unit) >= sizeof d->unit)
        rc = fail(x, n, "unit of %s is too long (at most %zu bytes)", name,
                  sizeof d->unit - 1);
    if (!rc) {
        memset(d, 0, sizeof *d);
        util_strlcpy(d->name, name, sizeof d->name);
        util_strlcpy(d->expr, expr, sizeof d->expr);
        util_strlcpy(d->unit, unit ? unit : "", sizeof d->unit);
        d->line = line_of(n);
        if (drv_compile(d, why, sizeof why) != 0)
            rc = fail(x, n, "derived metric %s: %s", name, why);
    }
    for (int i = 0; !rc && i < d->ninputs; i++)
        if (!metric_declared(c, d->inputs[i], c->nderived)) {
            char what[96];
            snprintf(what, sizeof what, "derived metric %s reads", name);
            rc = unknown_metric(x, n, what, d->inputs[i], c->nderived);
        }
    if (!rc)
        c->nderived++;
    else if (c->nderived < DRV_MAX)
        drv_free(d);
    xmlFree(name);
    xmlFree(expr);
    xmlFree(unit);
    return rc;
}

int campx_derived(ctx_t *x, xmlNodePtr root)
{
    int rc = GD_OK;
    for (xmlNodePtr n = root->children; n && !rc; n = n->next)
        if (is_elem(n, "derived"))
            rc = parse_derived(x, n);
    /* every record carries these beside what the backend reports */
    if (!rc && x->c->nderived + x->c->nmetrics + 1 > MET_MAX)
        rc = fail(x, root, "%d derived metrics and %d command metrics are "
                  "more than a record holds (%d)", x->c->nderived,
                  x->c->nmetrics, MET_MAX - 1);
    return rc;
}

/* min= or max= of a <constraint>: a finite number. */
static int bound_attr(ctx_t *x, xmlNodePtr n, const char *name, int *has,
                      double *v)
{
    char *s = attr(n, name);
    int rc = GD_OK;
    *has = s != NULL;
    if (s && (util_parse_double(s, v) != 0 || !isfinite(*v)))
        rc = fail(x, n, "constraint %s= must be a number (got \"%s\")", name,
                  s);
    xmlFree(s);
    return rc;
}

static int parse_constraint(ctx_t *x, xmlNodePtr n)
{
    camp_campaign *c = x->c;
    char *m = attr(n, "metric");
    cons_bound *b = &c->cons[c->ncons];
    int rc = GD_OK;
    if (c->ncons == CONS_MAX)
        rc = fail(x, n, "too many constraints (at most %d)", CONS_MAX);
    else if (!metric_declared(c, m, c->nderived))
        rc = unknown_metric(x, n, "constraint on", m, c->nderived);
    for (int i = 0; !rc && i < c->ncons; i++)
        if (!strcmp(c->cons[i].metric, m))
            rc = fail(x, n, "metric \"%s\" is constrained twice: give min= "
                      "and max= on one <constraint>", m);
    if (!rc) {
        memset(b, 0, sizeof *b);
        util_strlcpy(b->metric, m, sizeof b->metric);
        b->line = line_of(n);
        rc = bound_attr(x, n, "min", &b->has_min, &b->min);
    }
    if (!rc)
        rc = bound_attr(x, n, "max", &b->has_max, &b->max);
    if (!rc && !b->has_min && !b->has_max)
        rc = fail(x, n, "constraint on %s needs min=, max= or both", m);
    if (!rc && b->has_min && b->has_max && b->min > b->max)
        rc = fail(x, n, "constraint on %s: min %g is above max %g: no "
                  "config can meet it", m, b->min, b->max);
    c->ncons += !rc;
    xmlFree(m);
    return rc;
}

int campx_constraints(ctx_t *x, xmlNodePtr objectives)
{
    int rc = GD_OK;
    for (xmlNodePtr n = objectives->children; n && !rc; n = n->next)
        if (is_elem(n, "constraint"))
            rc = parse_constraint(x, n);
    return rc;
}

int camp_metric_declared(const camp_campaign *c, const char *name)
{
    return metric_declared(c, name, c->nderived);
}

const char *camp_metric_unit(const camp_campaign *c, const char *name)
{
    int i = drv_find(c->derived, c->nderived, name);
    return i >= 0 ? c->derived[i].unit : met_unit(name);
}

int camp_feasible(const camp_campaign *c, const met_set *m,
                  double *violation)
{
    return cons_feasible(c->cons, c->ncons, m, violation);
}
