/* front: one workload's Pareto front over the campaign's objectives (see
 * front.h). */
#include "front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "pareto.h"

double ana_objective(const store_record *r, const camp_objective *o)
{
    double v;
    if (met_get(&r->metrics, o->metric, &v) != 0 || !isfinite(v))
        return NAN;
    return o->maximize ? -v : v;
}

void ana_front_free(ana_front *f)
{
    free(f->ok);
    free(f->pts);
    free(f->idx);
    memset(f, 0, sizeof *f);
}

int ana_front_of(const camp_campaign *c, const char *wl,
                 const store_record *recs, size_t n, ana_front *f,
                 gd_err *err)
{
    size_t k = (size_t)c->nobjectives, room = n ? n : 1;
    memset(f, 0, sizeof *f);
    f->ok = malloc(room * sizeof *f->ok);
    f->pts = malloc(room * k * sizeof *f->pts);
    f->idx = malloc(room * sizeof *f->idx);
    if (!f->ok || !f->pts || !f->idx) {
        ana_front_free(f);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const store_record *r = &recs[i];
        if (r->status != ST_OK || strcmp(r->workload, wl) != 0
            || strcmp(r->backend, c->backend) != 0)
            continue;
        int feasible = camp_feasible(c, &r->metrics, NULL);
        f->ninfeasible += !feasible;
        for (size_t j = 0; j < k; j++)
            f->pts[f->nok * k + j] = feasible ? ana_objective(r, &c->obj[j])
                                              : NAN;
        f->ok[f->nok++] = r;
    }
    f->nfront = pareto_front(f->pts, f->nok, k, f->idx);
    return GD_OK;
}
