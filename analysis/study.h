/* study: a strategy study for one workload — every strategy of the
 * campaign's <study> run with every seed at the campaign's budget against
 * an oracle that returns each config's result (the journal, or the
 * embedded model) — summarised as hypervolume versus evaluations (median
 * and interquartile range over seeds) and evaluations to reach 95% and 99%
 * of the reference hypervolume, for analysis.json. */
#ifndef GPUDSE_STUDY_H
#define GPUDSE_STUDY_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "campaign.h"
#include "store.h"

/* Fill r with the result of config c; 0, or -1 when unknown (the replay
 * of that seed stops there). */
typedef int (*study_oracle)(void *arg, const gpu_config *c, store_record *r);

/* ref: the reference front (nref rows of c->nobjectives minimised values)
 * or NULL; without it the basis is the front of everything the study saw.
 * Returns GD_OK with *out a new "study" object, or an error. */
int study_json(const camp_campaign *c, study_oracle f, void *arg,
               const double *ref, size_t nref, cJSON **out, gd_err *err);

/* The median number of evaluations to reach a target over n seeds, evals[s]
 * NaN for a seed that never reached it (counted as +infinity). NaN when
 * fewer than half the seeds reached it; with an even n of which exactly
 * half reached, the slower of the two middle seeds (the last to reach). */
double study_reach_median(const double *evals, int n);

#endif
