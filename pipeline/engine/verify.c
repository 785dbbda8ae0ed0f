/* verify: picks the configs a multi-fidelity campaign re-runs on its
 * expensive backend. The choice depends only on the screening records, so
 * a resumed run picks the same configs and finds them in the journal. */
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

typedef struct {
    const store_record *r;
    double first;              /* first objective, to minimise */
    int64_t index;             /* position in the space: a total order */
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* With one objective: every ok config of the workload, best first (ties in
 * space order), into v; returns how many. */
static size_t workload_ranked(const camp_campaign *c, const char *wl,
                              const store_record *recs, size_t n, cand *v)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const store_record *r = &recs[i];
        double f;
        if (strcmp(r->workload, wl) || strcmp(r->backend, c->backend)
            || r->status != ST_OK || !isfinite(f = ana_objective(r, &c->obj[0])))
            continue;
        v[m].r = r;
        v[m].first = f;
        v[m].index = space_index(&c->space, &r->cfg);
        m++;
    }
    qsort(v, m, sizeof *v, cmp_cand);
    return m;
}

/* The top `top` of ranked v (m of them) into out: whole levels of equal
 * predictions while they fit, then the next level thinned evenly. */
static size_t take_top(const cand *v, size_t m, size_t top, gpu_config *out)
{
    size_t got = 0;
    for (size_t lo = 0; lo < m && got < top;) {
        size_t hi = lo + 1;
        while (hi < m && v[hi].first == v[lo].first)
            hi++;
        size_t level = hi - lo, room = top - got;
        if (level <= room) {
            for (size_t i = lo; i < hi; i++)
                out[got++] = v[i].r->cfg;
        } else {
            for (size_t i = 0; i < room; i++)
                out[got++] = v[lo + (room == 1 ? 0
                                     : i * (level - 1) / (room - 1))].r->cfg;
        }
        lo = hi;
    }
    return got;
}

/* The front of one workload, sorted, into v (room for n); returns its
 * size, or (size_t)-1 when out of memory. */
static size_t workload_front(const camp_campaign *c, const char *wl,
                             const store_record *recs, size_t n, cand *v)
{
    ana_front f;
    gd_err e = {0, ""};
    if (ana_front_of(c, wl, recs, n, &f, &e))
        return (size_t)-1;
    size_t k = (size_t)c->nobjectives;
    for (size_t i = 0; i < f.nfront; i++) {
        v[i].r = f.ok[f.idx[i]];
        v[i].first = f.pts[f.idx[i] * k];
        v[i].index = space_index(&c->space, &f.ok[f.idx[i]]->cfg);
    }
    qsort(v, f.nfront, sizeof *v, cmp_cand);
    size_t nf = f.nfront;
    ana_front_free(&f);
    return nf;
}

int verify_pick(const camp_campaign *c, const store_record *recs, size_t n,
                gpu_config ***fixed, size_t **nfixed, gd_err *err)
{
    size_t nw = (size_t)c->nworkloads, top = (size_t)c->verify_top;
    *fixed = calloc(nw, sizeof **fixed);
    *nfixed = calloc(nw, sizeof **nfixed);
    cand *v = malloc((n ? n : 1) * sizeof *v);
    if (!*fixed || !*nfixed || !v) {
        free(v);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    for (size_t w = 0; w < nw; w++) {
        if (c->nobjectives == 1) {
            size_t m = workload_ranked(c, c->workloads[w].name, recs, n, v);
            (*fixed)[w] = malloc((top ? top : 1) * sizeof ***fixed);
            if (!(*fixed)[w]) {
                free(v);
                return gd_errf(err, GD_EENV, "out of memory");
            }
            (*nfixed)[w] = take_top(v, m, top, (*fixed)[w]);
            continue;
        }
        size_t nf = workload_front(c, c->workloads[w].name, recs, n, v);
        size_t take = nf < top ? nf : top;
        if (nf != (size_t)-1)
            (*fixed)[w] = malloc((take ? take : 1) * sizeof ***fixed);
        if (nf == (size_t)-1 || !(*fixed)[w]) {
            free(v);
            return gd_errf(err, GD_EENV, "out of memory");
        }
        for (size_t i = 0; i < take; i++) {
            /* evenly along the front, both ends included */
            size_t at = take == 1 ? 0 : i * (nf - 1) / (take - 1);
            (*fixed)[w][i] = v[at].r->cfg;
        }
        (*nfixed)[w] = take;
    }
    free(v);
    return GD_OK;
}

void verify_free(const camp_campaign *c, gpu_config **fixed, size_t *nfixed)
{
    for (int w = 0; fixed && w < c->nworkloads; w++)
        free(fixed[w]);
    free(fixed);
    free(nfixed);
}

void verify_workloads(const camp_campaign *c, wl_workload *out)
{
    for (int w = 0; w < c->nworkloads; w++) {
        out[w] = c->workloads[w];
        camp_run_identity(c->workloads[w].name, &c->wlrun[w], out[w].sha256);
    }
}
