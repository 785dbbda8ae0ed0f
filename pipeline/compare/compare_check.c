/* compare_check: the campaign's <regression> thresholds checked against
 * the metrics a threshold may name (cmp_threshold_metric_known, and the
 * campaign's own: camp_metric_declared), by
 * preflight_load before anything runs and by gpudse compare on the run's
 * copy of the campaign. */
#include "compare.h"

int cmp_check_campaign(const camp_campaign *c, gd_err *err)
{
    for (int i = 0; i < c->nthresholds; i++) {
        const camp_threshold *t = &c->thresholds[i];
        const char *m = t->metric, *near = cmp_threshold_metric_suggest(m);
        /* and a metric the campaign declares: <derived>, a <metric> */
        if (cmp_threshold_metric_known(m) || camp_metric_declared(c, m))
            continue;
        int line = c->threshold_line[i];
        if (near)
            return camp_errf(c, line, err, "unknown threshold metric "
                             "\"%s\"; did you mean \"%s\"?", m, near);
        return camp_errf(c, line, err, "unknown threshold metric \"%s\"",
                         m);
    }
    return GD_OK;
}
