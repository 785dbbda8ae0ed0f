/* verification: for a multi-fidelity campaign, how the predicted (modelled)
 * front held up when its configs were re-run on the expensive (measured)
 * backend: per config predicted and measured objective values and their
 * error, and how many predicted-front points stay non-dominated among the
 * measured ones. */
#ifndef GPUDSE_VERIFICATION_H
#define GPUDSE_VERIFICATION_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "campaign.h"
#include "store.h"

/* The "verification" object of one workload in analysis.json; NULL when
 * the campaign does not verify, or (when it does) when out of memory.
 * Deterministic: ordered by config. */
cJSON *verification_json(const camp_campaign *c, const char *workload,
                         const store_record *recs, size_t n);

/* The finite (predicted, measured) pairs of a calibration entry's "points"
 * array into two new arrays of *k values each (the caller frees both).
 * Returns 0, or -1 when out of memory (then nothing is allocated). */
int verification_points(const cJSON *points, double **pred, double **meas,
                        size_t *k);

/* Append to the top-level "calibration" array of analysis.json (the
 * report's predicted-against-measured pages) one entry per objective of a
 * workload's verification object ver. */
void verification_calibration(cJSON *calibration, const camp_campaign *c,
                              const char *workload, const cJSON *ver);

/* The multi-fidelity loop (<verify rounds=>): each workload of analysis
 * gets a "verification_loop" object from RUNDIR/verify_rounds.json — per
 * round the picks with the prediction they were picked on (modelled)
 * beside their measured value, the round's MAPE and the best measured so
 * far; the loop's stop reason and best measured config. Nothing when the
 * campaign has no loop or the loop has not started; GD_EINPUT naming the
 * file when it cannot be read. */
int verification_loop(cJSON *analysis, const char *rundir,
                      const camp_campaign *c, gd_err *err);

#endif
