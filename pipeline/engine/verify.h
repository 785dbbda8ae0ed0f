/* verify: multi-fidelity campaigns — which configs of each workload's
 * predicted (analytic) Pareto front are re-run on the expensive backend,
 * and as what workload identity. */
#ifndef GPUDSE_VERIFY_H
#define GPUDSE_VERIFY_H

#include <stddef.h>
#include "campaign.h"
#include "store.h"

/* From the screening records (backend c->backend, status ok) of each
 * workload: its Pareto front over the objectives, best first on the first
 * objective, thinned to c->verify_top configs spread evenly along it (both
 * ends kept). With one objective the "front" is only the configs tied at the
 * model's best, so instead the top c->verify_top configs by the objective
 * are taken, level by level of equal predictions; a level larger than the
 * room left is spread evenly across (both ends kept, in space order).
 * fixed[i] is malloc'd (free each, then the arrays). */
int verify_pick(const camp_campaign *c, const store_record *recs, size_t n,
                gpu_config ***fixed, size_t **nfixed, gd_err *err);
void verify_free(const camp_campaign *c, gpu_config **fixed, size_t *nfixed);

/* The workloads as the verify backend sees them: same names, identities
 * from their commands. out has room for c->nworkloads. */
void verify_workloads(const camp_campaign *c, wl_workload *out);

#endif
