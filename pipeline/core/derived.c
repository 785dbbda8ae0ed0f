/* derived: compile and evaluate a campaign's derived metrics with GNU
 * libmatheval, and check a record's metrics against its constraints (see
 * derived.h). */
#include "derived.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <matheval.h>

#include "util.h"

/* libmatheval's scanner echoes a character it does not know to stdout:
 * such characters are refused here, before it sees them. */
static int bad_char(const char *s)
{
    for (const char *p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_. \t\n\r+-*/^()", *p))
            return (unsigned char)*p;
    return 0;
}

int drv_compile(drv_metric *d, char *why, size_t n)
{
    char text[DRV_EXPRLEN];
    int c = bad_char(d->expr);
    d->ev = NULL;
    d->ninputs = 0;
    if (c) {
        snprintf(why, n, c < 0x80 && c > 0x20 ? "character '%c' is not "
                 "allowed in an expression (metric names, numbers, + - * / "
                 "^, parentheses and functions such as sqrt, log, exp)"
                 : "character %#x is not allowed in an expression", c);
        return -1;
    }
    util_strlcpy(text, d->expr, sizeof text);
    d->ev = evaluator_create(text);
    if (!d->ev) {
        snprintf(why, n, "expression \"%s\" does not parse (metric names, "
                 "numbers, + - * / ^, parentheses and functions such as "
                 "sqrt, log, exp)", d->expr);
        return -1;
    }
    char **names;
    int count;
    evaluator_get_variables(d->ev, &names, &count);
    if (count == 0 || count > DRV_MAXIN) {
        snprintf(why, n, count ? "expression \"%s\" reads more than %d "
                 "metrics" : "expression \"%s\" reads no metric", d->expr,
                 DRV_MAXIN);
        drv_free(d);
        return -1;
    }
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) >= MET_NAMELEN) {
            snprintf(why, n, "name \"%s\" is too long for a metric",
                     names[i]);
            drv_free(d);
            return -1;
        }
    for (int i = 0; i < count; i++)
        util_strlcpy(d->inputs[i], names[i], MET_NAMELEN);
    d->ninputs = count;
    return 0;
}

void drv_free(drv_metric *d)
{
    if (d->ev)
        evaluator_destroy(d->ev);
    d->ev = NULL;
}

/* d's value over m; NAN when an input is absent or the value not finite. */
static double eval(const drv_metric *d, const met_set *m, int *why)
{
    char *names[DRV_MAXIN];
    double vals[DRV_MAXIN];
    *why = DRV_NO_INPUT;
    if (!d->ev)
        return NAN;
    for (int i = 0; i < d->ninputs; i++) {
        if (met_get(m, d->inputs[i], &vals[i]) != 0 || !isfinite(vals[i]))
            return NAN;
        names[i] = (char *)d->inputs[i];
    }
    double v = evaluator_evaluate(d->ev, d->ninputs, names, vals);
    *why = isfinite(v) ? DRV_OK : DRV_NOT_FINITE;
    return isfinite(v) ? v : NAN;
}

int drv_apply(const drv_metric *d, int n, met_set *m)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        int why;
        double v = eval(&d[i], m, &why);
        met_del(m, d[i].name);
        if (why == DRV_OK && met_put(m, d[i].name, v) != 0)
            rc = -1;
    }
    return rc;
}

int drv_why_absent(const drv_metric *d, const met_set *m)
{
    double v;
    if (met_get(m, d->name, &v) == 0)
        return DRV_OK;
    int why;
    eval(d, m, &why);
    return why == DRV_OK ? DRV_NO_INPUT : why;
}

int drv_find(const drv_metric *d, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(d[i].name, name) == 0)
            return i;
    return -1;
}

int cons_feasible(const cons_bound *b, int n, const met_set *m,
                  double *violation)
{
    double total = 0;
    for (int i = 0; i < n; i++) {
        double v;
        if (met_get(m, b[i].metric, &v) != 0 || !isfinite(v)) {
            total = HUGE_VAL;
            continue;
        }
        if (b[i].has_min && v < b[i].min)
            total += (b[i].min - v) / fmax(fabs(b[i].min), 1.0);
        if (b[i].has_max && v > b[i].max)
            total += (v - b[i].max) / fmax(fabs(b[i].max), 1.0);
    }
    if (violation)
        *violation = total;
    return total == 0;
}
