/* pareto: non-dominated filtering for any number of objectives. Points are
 * visited in lexicographic order, so a point can only be dominated by one
 * visited before it, and (by transitivity) then by a member of the front
 * built so far: each point is compared with the current front only. */
#include "pareto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* qsort has no context argument in C11: sort an array of row pointers. */
typedef struct {
    const double *row;
    size_t idx;
    size_t k;
} row_ref;

static int cmp_rows(const void *a, const void *b)
{
    const row_ref *x = a, *y = b;
    for (size_t j = 0; j < x->k; j++) {
        if (x->row[j] < y->row[j])
            return -1;
        if (x->row[j] > y->row[j])
            return 1;
    }
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* a dominates b: a <= b everywhere and a < b somewhere. */
static int dominates(const double *a, const double *b, size_t k)
{
    int strict = 0;
    for (size_t j = 0; j < k; j++) {
        if (a[j] > b[j])
            return 0;
        strict |= a[j] < b[j];
    }
    return strict;
}

static int row_has_nan(const double *r, size_t k)
{
    for (size_t j = 0; j < k; j++)
        if (isnan(r[j]))
            return 1;
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

size_t pareto_front_pairs(const double *pts, size_t n, size_t k,
                             size_t *idx)
{
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        const double *r = pts + i * k;
        int dominated = row_has_nan(r, k);
        for (size_t j = 0; j < n && !dominated; j++)
            dominated = j != i && !row_has_nan(pts + j * k, k)
                        && dominates(pts + j * k, r, k);
        if (!dominated)
            idx[nf++] = i;
    }
    return nf;
}

size_t pareto_front(const double *pts, size_t n, size_t k, size_t *idx)
{
    if (n == 0 || k == 0)
        return 0;
    row_ref *rows = malloc(n * sizeof *rows);
    if (!rows)
        return pareto_front_pairs(pts, n, k, idx);  /* out of memory */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!row_has_nan(pts + i * k, k))
            rows[m++] = (row_ref){pts + i * k, i, k};
    qsort(rows, m, sizeof *rows, cmp_rows);
    size_t nf = 0;
    for (size_t i = 0; i < m; i++) {
        int dominated = 0;
        for (size_t f = 0; f < nf && !dominated; f++)
            dominated = dominates(pts + idx[f] * k, rows[i].row, k);
        if (!dominated)
            idx[nf++] = rows[i].idx;
    }
    free(rows);
    qsort(idx, nf, sizeof *idx, cmp_size);
    return nf;
}
