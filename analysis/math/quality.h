/* quality: how good a workload's observed front is — its hypervolume on
 * normalised objectives and, when the exhaustive front is known, the
 * hypervolume ratio, ADRS and IGD against it — as analysis.json objects. */
#ifndef GPUDSE_QUALITY_H
#define GPUDSE_QUALITY_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "campaign.h"
#include "util.h"

/* rows: n rows of c->nobjectives MINIMISED values (maximised ones
 * negated). The front's ideal..nadir is the normalisation basis: the
 * reference front's when ref is given (nref rows, same layout), else the
 * observed front's. Adds "hypervolume" (value, reference_point,
 * normalisation {min, max in metric units, basis}) and, with a reference,
 * "reference" (hypervolume, hv_ratio, adrs, igd, points) to w. */
int qual_add_json(cJSON *w, const camp_campaign *c, const double *rows,
                  size_t n, const double *ref, size_t nref, gd_err *err);

/* The non-dominated rows of rows (copied, malloc'd; caller frees). */
int qual_front_rows(const double *rows, size_t n, size_t k, double **front,
                    size_t *nf, gd_err *err);

#endif
