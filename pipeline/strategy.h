/* strategy: proposes the configs to evaluate for one workload, within the
 * campaign's budget, reproducibly from the seed. */
#ifndef GPUDSE_STRATEGY_H
#define GPUDSE_STRATEGY_H

#include <stdint.h>
#include <stddef.h>
#include "util.h"
#include "space.h"
#include "store.h"

typedef struct strat strat;

/* Create the strategy `name` over space s with budget evaluations. */
int strat_new(const char *name, const space_def *s, long budget,
              uint64_t seed, strat **out, gd_err *err);
/* Next batch of at most max configs; returns the count, 0 when done. */
size_t strat_next(strat *st, gpu_config *out, size_t max);
/* Tell the strategy the outcome of a config it proposed (or that the journal
 * already held, on resume), so adaptive strategies can use it. */
void strat_observe(strat *st, const gpu_config *c, const store_record *r);
void strat_free(strat *st);
/* Whether name is a known strategy. */
int strat_known(const char *name);

#endif
