/* quality: front quality numbers for analysis.json. Objectives are
 * normalised so that 0 is the best and 1 the worst value on the basis
 * front (the reference front when there is one), the reference point is
 * 1.1 in every objective, and hypervolume is exact for 2 and 3 objectives
 * (analysis/math/hypervolume.c). ADRS and IGD use the same normalisation. */
#include "quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontmetrics.h"
#include "hypervolume.h"
#include "pareto.h"

int qual_front_rows(const double *rows, size_t n, size_t k, double **front,
                    size_t *nf, gd_err *err)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    *front = NULL;
    *nf = 0;
    if (!idx)
        return gd_errf(err, GD_EENV, "out of memory");
    size_t m = pareto_front(rows, n, k, idx);
    double *f = malloc((m ? m : 1) * k * sizeof *f);
    if (!f) {
        free(idx);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    for (size_t i = 0; i < m; i++)
        memcpy(f + i * k, rows + idx[i] * k, k * sizeof *f);
    free(idx);
    *front = f;
    *nf = m;
    return GD_OK;
}

static cJSON *number_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* Normalise minimised rows on the basis bounds: 0 best, 1 worst. */
static double *normalised(const double *rows, size_t n, size_t k,
                          const double *lo, const double *hi)
{
    double *out = malloc((n ? n : 1) * k * sizeof *out);
    if (out)
        hv_normalise(rows, n, k, lo, hi, out);
    return out;
}

static cJSON *normalisation_json(const camp_campaign *c, const double *lo,
                                 const double *hi, int has_ref)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *mn = cJSON_AddArrayToObject(o, "min");
    cJSON *mx = cJSON_AddArrayToObject(o, "max");
    for (int j = 0; j < c->nobjectives; j++) {
        /* back to metric units: a maximised metric was negated */
        double a = c->obj[j].maximize ? -hi[j] : lo[j];
        double b = c->obj[j].maximize ? -lo[j] : hi[j];
        cJSON_AddItemToArray(mn, number_or_null(a));
        cJSON_AddItemToArray(mx, number_or_null(b));
    }
    cJSON_AddStringToObject(o, "basis", has_ref ? "reference front"
                                                : "observed front");
    return o;
}

int qual_add_json(cJSON *w, const camp_campaign *c, const double *rows,
                  size_t n, const double *ref, size_t nref, gd_err *err)
{
    size_t k = (size_t)c->nobjectives, nf;
    double *front, lo[CAMP_MAXOBJ], hi[CAMP_MAXOBJ], rp[CAMP_MAXOBJ];
    int rc = qual_front_rows(rows, n, k, &front, &nf, err);
    if (rc)
        return rc;
    if (ref)
        hv_bounds(ref, nref, k, lo, hi);
    else
        hv_bounds(front, nf, k, lo, hi);
    for (size_t j = 0; j < k; j++)
        rp[j] = HV_REF_NORMALISED;
    double *nfr = normalised(front, nf, k, lo, hi);
    double *nrf = ref ? normalised(ref, nref, k, lo, hi) : NULL;
    double hv = 0, hv_ref = 0;
    if (!nfr || (ref && !nrf) || hv_compute(nfr, nf, k, rp, &hv) != 0
        || (ref && hv_compute(nrf, nref, k, rp, &hv_ref) != 0)) {
        free(front); free(nfr); free(nrf);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    cJSON *h = cJSON_AddObjectToObject(w, "hypervolume");
    cJSON_AddItemToObject(h, "value", number_or_null(nf ? hv : 0));
    cJSON *ra = cJSON_AddArrayToObject(h, "reference_point");
    for (size_t j = 0; j < k; j++)
        cJSON_AddItemToArray(ra, cJSON_CreateNumber(rp[j]));
    cJSON_AddItemToObject(h, "normalisation",
                          normalisation_json(c, lo, hi, ref != NULL));
    if (ref) {
        cJSON *r = cJSON_AddObjectToObject(w, "reference");
        cJSON_AddItemToObject(r, "hypervolume", number_or_null(hv_ref));
        cJSON_AddItemToObject(r, "hv_ratio",
                              number_or_null(hv_ref > 0 ? hv / hv_ref : NAN));
        cJSON_AddItemToObject(r, "adrs",
                              number_or_null(fm_adrs(nrf, nref, nfr, nf, k)));
        cJSON_AddItemToObject(r, "igd",
                              number_or_null(fm_igd(nrf, nref, nfr, nf, k)));
        cJSON_AddNumberToObject(r, "points", (double)nref);
    }
    free(front);
    free(nfr);
    free(nrf);
    return GD_OK;
}
