/* front: one workload's Pareto front over the campaign's objectives, from
 * its successful records on the campaign's own backend (a multi-fidelity
 * campaign's verification records never mix in; a record outside the
 * campaign's constraints is counted, never on the front). The prologue that the
 * analysis stage and the engine's verification both stand on. */
#ifndef GPUDSE_FRONT_H
#define GPUDSE_FRONT_H

#include <stddef.h>

#include "campaign.h"
#include "store.h"
#include "util.h"

typedef struct {
    const store_record **ok; /* the workload's successful records, in order */
    size_t nok;
    double *pts;             /* nok rows of the objectives, all to minimise */
    size_t *idx;             /* the front's rows of ok, ascending */
    size_t nfront;
    size_t ninfeasible;      /* rows of ok outside a <constraint>: their
                              * pts are NaN, so never on the front */
} ana_front;

/* Objective o of r as a value to minimise; NaN when missing or not finite. */
double ana_objective(const store_record *r, const camp_objective *o);

/* The front of workload wl among recs[0..n), over its feasible records
 * (camp_feasible; every ok record when there is no constraint). GD_EENV when out of memory;
 * f is then empty. Free with ana_front_free. */
int ana_front_of(const camp_campaign *c, const char *wl,
                 const store_record *recs, size_t n, ana_front *f,
                 gd_err *err);

void ana_front_free(ana_front *f);

#endif
