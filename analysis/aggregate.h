/* aggregate: the campaign's <aggregate> objectives across workloads — per
 * configuration, the geometric, arithmetic or harmonic mean, minimum or
 * maximum over the workloads of a metric (raw, or over each workload's
 * baseline value with normalise="baseline"), only for the configurations
 * that have the metric on every workload (the others are counted as
 * dropped, by reason) and within the campaign's <constraint>s on every
 * workload — their own Pareto front (the aggregates with the
 * campaign's config-only objectives, such as area_mm2), the best
 * configuration per aggregate with each workload's value under it, the
 * "aggregates" section of analysis.json and DIR/aggregates.csv.
 *
 * Streaming: the workloads are fed one at a time (agg_add_workload), so
 * memory holds one entry per configuration seen (its canonical text and a
 * few numbers per aggregate and objective), not the journal. The
 * per-workload values of the best configurations are read by agg_finish
 * in a second pass over the workloads, one at a time, through the
 * caller's loader: with aggregates the analysis reads the journal twice. */
#ifndef GPUDSE_AGGREGATE_H
#define GPUDSE_AGGREGATE_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "campaign.h"
#include "store.h"
#include "util.h"

typedef struct agg_state agg_state;

/* The loader of agg_finish's second pass: workload name's records
 * (malloc'd, the caller of the loader frees them). */
typedef int (*agg_load_fn)(void *arg, const char *name, store_record **recs,
                           size_t *n, gd_err *err);

/* NULL *out (and GD_OK) when the campaign declares no aggregate. */
int agg_begin(const camp_campaign *c, agg_state **out, gd_err *err);
/* Workload wl's records (any order; other workloads' and other backends'
 * records are skipped). Each workload once. */
int agg_add_workload(agg_state *s, const char *wl, const store_record *recs,
                     size_t n, gd_err *err);
/* After every workload: the values, front and best configurations; the
 * per-workload values of the best through load; *json is the "aggregates"
 * object of analysis.json. */
int agg_finish(agg_state *s, agg_load_fn load, void *arg, cJSON **json,
               gd_err *err);
/* DIR/aggregates.csv: one row per configuration seen (after agg_finish),
 * written atomically. */
int agg_write_csv(const agg_state *s, const char *path, gd_err *err);
void agg_free(agg_state *s);

/* The aggregate of n values v by fn (camp_agg_fn); NaN when n is 0 or a
 * geomean/hmean value is not positive. */
double agg_apply(int fn, const double *v, size_t n);

#endif
