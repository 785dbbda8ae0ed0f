/* hypervolume: exact dominated volume of a minimisation point set below a
 * reference point. 2 objectives: sort by the first and sum rectangles. 3:
 * sweep the third objective and add slabs of 2-D volume. k > 3: the same
 * slicing recursively (exponential in k, fine for fronts of hundreds). */
#include "hypervolume.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const double *row;
    size_t k;
} hv_row;

/* Sort rows by one coordinate, ties broken by the others in order. */
static int cmp_col(const hv_row *a, const hv_row *b, size_t col)
{
    if (a->row[col] < b->row[col])
        return -1;
    if (a->row[col] > b->row[col])
        return 1;
    for (size_t j = 0; j < a->k; j++) {
        if (a->row[j] < b->row[j])
            return -1;
        if (a->row[j] > b->row[j])
            return 1;
    }
    return 0;
}

static void sort_by_col(hv_row *v, size_t n, size_t col)
{
    /* Shell sort: no qsort context argument in C11, and n is modest. */
    for (size_t gap = n / 2; gap > 0; gap /= 2)
        for (size_t i = gap; i < n; i++) {
            hv_row t = v[i];
            size_t j = i;
            while (j >= gap && cmp_col(&v[j - gap], &t, col) > 0) {
                v[j] = v[j - gap];
                j -= gap;
            }
            v[j] = t;
        }
}

/* 2-D volume of rows (objectives 0 and 1) sorted ascending by objective 0. */
static double hv2_sorted(const hv_row *v, size_t n, const double *ref)
{
    double vol = 0, best1 = ref[1];
    for (size_t i = 0; i < n; i++) {
        double y = v[i].row[1];
        if (y >= best1)
            continue;
        /* from this x to the next x that improves y, height best1 - y */
        vol += (ref[0] - v[i].row[0]) * (best1 - y);
        best1 = y;
    }
    /* The sum above counts each new staircase step as a full-width strip. */
    return vol;
}

/* Volume in the first d objectives of rows; v sorted or not. */
static int hv_rec(hv_row *v, size_t n, size_t d, const double *ref,
                  double *out)
{
    if (n == 0) {
        *out = 0;
        return 0;
    }
    if (d == 1) {
        double lo = ref[0];
        for (size_t i = 0; i < n; i++)
            if (v[i].row[0] < lo)
                lo = v[i].row[0];
        *out = ref[0] - lo;
        return 0;
    }
    if (d == 2) {
        sort_by_col(v, n, 0);
        *out = hv2_sorted(v, n, ref);
        return 0;
    }
    /* Sweep the last objective upwards: between z_i and z_{i+1} the
     * dominated cross-section is that of the first i+1 rows. */
    sort_by_col(v, n, d - 1);
    hv_row *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    double vol = 0;
    for (size_t i = 0; i < n; i++) {
        double z0 = v[i].row[d - 1];
        double z1 = i + 1 < n ? v[i + 1].row[d - 1] : ref[d - 1];
        if (z1 <= z0)
            continue;
        memcpy(tmp, v, (i + 1) * sizeof *tmp);
        double area;
        if (hv_rec(tmp, i + 1, d - 1, ref, &area)) {
            free(tmp);
            return -1;
        }
        vol += area * (z1 - z0);
    }
    free(tmp);
    *out = vol;
    return 0;
}

static int counts(const double *r, size_t k, const double *ref)
{
    for (size_t j = 0; j < k; j++)
        if (!(r[j] < ref[j]))   /* NaN fails too */
            return 0;
    return 1;
}

int hv_compute(const double *pts, size_t n, size_t k, const double *ref,
               double *out)
{
    *out = 0;
    if (n == 0 || k == 0)
        return 0;
    hv_row *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (counts(pts + i * k, k, ref))
            v[m++] = (hv_row){pts + i * k, k};
    int rc = hv_rec(v, m, k, ref, out);
    free(v);
    return rc;
}

void hv_normalise(const double *pts, size_t n, size_t k, const double *min,
                  const double *max, double *out)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < k; j++) {
            double w = max[j] - min[j];
            out[i * k + j] = w > 0 ? (pts[i * k + j] - min[j]) / w : 0;
        }
}

static int row_ok(const double *r, size_t k)
{
    for (size_t j = 0; j < k; j++)
        if (!isfinite(r[j]))
            return 0;
    return 1;
}

void hv_bounds(const double *pts, size_t n, size_t k, double *min,
               double *max)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const double *r = pts + i * k;
        if (!row_ok(r, k))
            continue;
        for (size_t j = 0; j < k; j++) {
            if (!any || r[j] < min[j])
                min[j] = r[j];
            if (!any || r[j] > max[j])
                max[j] = r[j];
        }
        any = 1;
    }
    if (!any)
        for (size_t j = 0; j < k; j++) {
            min[j] = 0;
            max[j] = 1;
        }
}
