/* strategy: search strategies behind one interface. exhaustive walks the
 * space in index order; random draws distinct points with GSL's MT19937
 * seeded from the campaign seed. Neither proposes a config twice. */
#include "strategy.h"

#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

struct strat {
    space_def space;
    uint64_t *order;      /* indices to propose, in order */
    uint64_t n, next;
};

static const char *const names[] = {"exhaustive", "random"};

int strat_known(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (name && strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static void fill_exhaustive(strat *st)
{
    for (uint64_t i = 0; i < st->n; i++)
        st->order[i] = i;
}

/* A uniformly random sample of st->n distinct indices out of size, in
 * random order: a partial Fisher-Yates shuffle. */
static int fill_random(strat *st, uint64_t size, uint64_t seed)
{
    uint64_t *all = malloc(size * sizeof *all);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!all || !r) {
        free(all);
        gsl_rng_free(r);
        return -1;
    }
    gsl_rng_set(r, (unsigned long)seed);
    for (uint64_t i = 0; i < size; i++)
        all[i] = i;
    for (uint64_t i = 0; i < st->n; i++) {
        uint64_t j = i + (uint64_t)gsl_rng_uniform_int(r, size - i);
        uint64_t t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    memcpy(st->order, all, st->n * sizeof *all);
    free(all);
    gsl_rng_free(r);
    return 0;
}

int strat_new(const char *name, const space_def *s, long budget,
              uint64_t seed, strat **out, gd_err *err)
{
    if (!strat_known(name))
        return gd_errf(err, GD_EINPUT, "unknown search strategy \"%s\"",
                       name ? name : "");
    if (budget < 1)
        return gd_errf(err, GD_EINPUT, "budget must be at least 1");
    uint64_t size = space_size(s);
    if (size > (1u << 26))
        return gd_errf(err, GD_EINPUT, "design space of %llu points is too "
                       "large to enumerate", (unsigned long long)size);
    strat *st = calloc(1, sizeof *st);
    if (!st)
        return gd_errf(err, GD_EENV, "out of memory");
    st->space = *s;
    st->n = (uint64_t)budget < size ? (uint64_t)budget : size;
    st->order = malloc((st->n ? st->n : 1) * sizeof *st->order);
    int bad = !st->order;
    if (!bad && strcmp(name, "exhaustive") == 0)
        fill_exhaustive(st);
    else if (!bad)
        bad = fill_random(st, size, seed);
    if (bad) {
        strat_free(st);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    *out = st;
    return GD_OK;
}

size_t strat_next(strat *st, gpu_config *out, size_t max)
{
    size_t k = 0;
    while (k < max && st->next < st->n)
        out[k++] = space_at(&st->space, st->order[st->next++]);
    return k;
}

void strat_observe(strat *st, const gpu_config *c, const store_record *r)
{
    /* exhaustive and random do not adapt */
    (void)st;
    (void)c;
    (void)r;
}

void strat_free(strat *st)
{
    if (!st)
        return;
    free(st->order);
    free(st);
}
