/* derived: a campaign's derived metrics (<derived name= expr= unit=>) —
 * an expression over other metrics, compiled by GNU libmatheval — and its
 * constraints (<constraint metric= min= max=>): whether a record's metrics
 * are feasible and by how much they miss. A derived metric whose inputs are
 * absent, or whose value is not finite (a division by zero), is absent:
 * never 0, never NaN written as a value. */
#ifndef GPUDSE_DERIVED_H
#define GPUDSE_DERIVED_H

#include <stddef.h>
#include "metrics.h"

#define DRV_MAX 8
#define DRV_EXPRLEN 512
#define DRV_MAXIN 16

typedef struct {
    char name[MET_NAMELEN];
    char expr[DRV_EXPRLEN];
    char unit[32];
    int line;                       /* of its <derived> */
    int ninputs;
    char inputs[DRV_MAXIN][MET_NAMELEN];  /* metric names the expr reads */
    void *ev;                       /* libmatheval evaluator; NULL: none */
} drv_metric;

#define CONS_MAX 8

typedef struct {
    char metric[MET_NAMELEN];
    int has_min, has_max;
    double min, max;
    int line;                       /* of its <constraint> */
} cons_bound;

/* Compile d->expr. Returns 0, or -1 with why ("...does not parse",
 * "character '@' ..."); on success d->inputs lists the names it reads. */
int drv_compile(drv_metric *d, char *why, size_t n);
void drv_free(drv_metric *d);

/* Why a derived metric is absent from a record (DRV_OK: it is present). */
enum { DRV_OK, DRV_NO_INPUT, DRV_NOT_FINITE };

/* Evaluate the derived metrics d[0..n) in order (one may read an earlier
 * one) into m: each is set when computable, removed when not. Returns -1
 * when m is full (the metric is then absent), else 0. Not thread-safe per
 * evaluator (libmatheval keeps variable values in it). */
int drv_apply(const drv_metric *d, int n, met_set *m);
/* Why d is absent from m (after drv_apply): DRV_OK when present. */
int drv_why_absent(const drv_metric *d, const met_set *m);
/* d's index among d[0..n) by name, -1 when none. */
int drv_find(const drv_metric *d, int n, const char *name);

/* Is m within every bound of b[0..n)? 1 feasible, 0 not. *violation
 * (may be NULL) is the total violation: the sum over bounds of the distance
 * beyond the bound relative to max(|bound|, 1); a bound whose metric is
 * absent or not finite counts as violated by HUGE_VAL (feasibility unknown
 * is infeasible). 0 when feasible. */
int cons_feasible(const cons_bound *b, int n, const met_set *m,
                  double *violation);

#endif
