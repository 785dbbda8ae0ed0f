/* strat_feasible: what the adaptive strategies know of a campaign's
 * constraints — the violation of an observed result and whether a config
 * not yet run is predicted infeasible from what the config alone
 * determines (strategy_impl.h). */
#include "strategy_impl.h"

#include <math.h>
#include <string.h>

#include "backend.h"

void strat_set_constraints(strat *st, const camp_campaign *c)
{
    st->camp = c && c->ncons ? c : NULL;
}

void strat_obs_constraints(const strat *st, const store_record *r,
                           strat_obs *o)
{
    o->viol = 0;
    for (int i = 0; i < CONS_MAX; i++)
        o->cv[i] = NAN;
    if (!st->camp)
        return;
    for (int i = 0; i < st->camp->ncons; i++)
        if (met_get(&r->metrics, st->camp->cons[i].metric, &o->cv[i]) != 0)
            o->cv[i] = NAN;
    camp_feasible(st->camp, &r->metrics, &o->viol);
}

/* The metrics known of the config at idx before it runs. */
static void config_metrics(const strat *st, uint64_t idx, met_set *m)
{
    gpu_config cfg = space_at(&st->space, idx);
    memset(m, 0, sizeof *m);
    be_config_metrics(&cfg, m);
    drv_apply(st->camp->derived, st->camp->nderived, m);
}

int strat_cons_from_config(const strat *st, int b)
{
    met_set m;
    double v;
    if (!st->camp || b >= st->camp->ncons)
        return 0;
    config_metrics(st, 0, &m);
    return met_get(&m, st->camp->cons[b].metric, &v) == 0;
}

int strat_predict_infeasible(const strat *st, uint64_t idx)
{
    if (!st->camp)
        return 0;
    met_set m;
    config_metrics(st, idx, &m);
    for (int i = 0; i < st->camp->ncons; i++) {
        const cons_bound *b = &st->camp->cons[i];
        double v;
        if (met_get(&m, b->metric, &v) != 0)
            continue;   /* not known before the run: the result decides */
        if (!cons_feasible(b, 1, &m, NULL))
            return 1;
    }
    return 0;
}

size_t strat_emit_random_feasible(strat *st, gpu_config *out, size_t want)
{
    if (!st->camp)
        return strat_emit_random(st, out, want);
    size_t k = 0;
    while (k < want) {
        int64_t pick = -1, first = -1;
        for (int t = 0; t < 64 && pick < 0; t++) {
            int64_t i = strat_random_unseen(st);
            if (i < 0)
                break;
            if (first < 0)
                first = i;
            if (!strat_predict_infeasible(st, (uint64_t)i))
                pick = i;
        }
        if (pick < 0)
            pick = first;   /* none found feasible: the first draw */
        if (pick < 0)
            break;
        strat_emit(st, (uint64_t)pick, out, &k);
    }
    return k;
}
