/* nsga2: fast non-dominated sorting (dominance counts and dominated lists,
 * O(k n^2)) and crowding distance, as in Deb et al., "A fast and elitist
 * multiobjective genetic algorithm: NSGA-II" (2002), with its constrained
 * domination for campaigns with constraints. */
#include "nsga2.h"

#include <math.h>
#include <stdlib.h>

static int has_nan(const double *r, size_t k)
{
    for (size_t j = 0; j < k; j++)
        if (isnan(r[j]))
            return 1;
    return 0;
}

/* 1 when a dominates b, -1 when b dominates a, 0 otherwise. */
static int dom(const double *a, const double *b, size_t k)
{
    int better = 0, worse = 0;
    for (size_t j = 0; j < k; j++) {
        better |= a[j] < b[j];
        worse |= a[j] > b[j];
    }
    return better && !worse ? 1 : worse && !better ? -1 : 0;
}

/* Constrained domination (Deb 2000, used by NSGA-II): a feasible point
 * (violation 0) beats an infeasible one, of two infeasible ones the smaller
 * total violation wins, and two feasible ones compare by dom(). viol NULL:
 * every point feasible. */
static int cdom(const double *pts, const double *viol, size_t i, size_t j,
                size_t k)
{
    double vi = viol ? viol[i] : 0, vj = viol ? viol[j] : 0;
    if (vi == 0 && vj == 0)
        return dom(pts + i * k, pts + j * k, k);
    return vi < vj ? 1 : vj < vi ? -1 : 0;
}

int nsga2_sort(const double *pts, size_t n, size_t k, int *rank)
{
    return nsga2_sort_constrained(pts, NULL, n, k, rank);
}

int nsga2_sort_constrained(const double *pts, const double *viol, size_t n,
                           size_t k, int *rank)
{
    if (n == 0)
        return 0;
    size_t *count = calloc(n, sizeof *count);    /* dominated by how many */
    size_t *nlist = calloc(n, sizeof *nlist);     /* how many it dominates */
    size_t *list = malloc(n * n * sizeof *list);  /* whom it dominates */
    size_t *cur = malloc(n * sizeof *cur), *next = malloc(n * sizeof *next);
    if (!count || !nlist || !list || !cur || !next) {
        free(count); free(nlist); free(list); free(cur); free(next);
        return -1;
    }
    size_t ncur = 0;
    for (size_t i = 0; i < n; i++) {
        rank[i] = (int)n;
        if (has_nan(pts + i * k, k))
            continue;
        for (size_t j = i + 1; j < n; j++) {
            if (has_nan(pts + j * k, k))
                continue;
            int d = cdom(pts, viol, i, j, k);
            if (d > 0) {
                list[i * n + nlist[i]++] = j;
                count[j]++;
            } else if (d < 0) {
                list[j * n + nlist[j]++] = i;
                count[i]++;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!has_nan(pts + i * k, k) && count[i] == 0)
            cur[ncur++] = i;
    int fronts = 0;
    while (ncur > 0) {
        size_t nnext = 0;
        for (size_t a = 0; a < ncur; a++) {
            size_t i = cur[a];
            rank[i] = fronts;
            for (size_t b = 0; b < nlist[i]; b++)
                if (--count[list[i * n + b]] == 0)
                    next[nnext++] = list[i * n + b];
        }
        fronts++;
        size_t *t = cur;
        cur = next;
        next = t;
        ncur = nnext;
    }
    int nan_rows = 0;
    for (size_t i = 0; i < n; i++)
        nan_rows |= rank[i] == (int)n;
    free(count); free(nlist); free(list); free(cur); free(next);
    return fronts + nan_rows;
}

/* Order of members by one objective (insertion sort: fronts are small),
 * ties by row index so the result never depends on the input order. */
static void sort_members(const double *pts, size_t k, size_t obj, size_t *o,
                         size_t m)
{
    for (size_t i = 1; i < m; i++) {
        size_t t = o[i], j = i;
        while (j > 0) {
            double x = pts[o[j - 1] * k + obj], y = pts[t * k + obj];
            if (x < y || (x == y && o[j - 1] < t))
                break;
            o[j] = o[j - 1];
            j--;
        }
        o[j] = t;
    }
}

int nsga2_crowding(const double *pts, size_t k, const size_t *members,
                   size_t m, double *dist)
{
    if (m == 0)
        return 0;
    size_t *o = malloc(m * sizeof *o), *pos = malloc(m * sizeof *pos);
    if (!o || !pos) {
        free(o);
        free(pos);
        return -1;
    }
    for (size_t i = 0; i < m; i++)
        dist[i] = 0;
    for (size_t obj = 0; obj < k; obj++) {
        for (size_t i = 0; i < m; i++)
            o[i] = members[i];
        sort_members(pts, k, obj, o, m);
        /* position of each sorted row back in members */
        for (size_t s = 0; s < m; s++)
            for (size_t i = 0; i < m; i++)
                if (members[i] == o[s]) {
                    pos[s] = i;
                    break;
                }
        double lo = pts[o[0] * k + obj], hi = pts[o[m - 1] * k + obj];
        dist[pos[0]] = INFINITY;
        dist[pos[m - 1]] = INFINITY;
        if (hi <= lo)
            continue;
        for (size_t s = 1; s + 1 < m; s++)
            dist[pos[s]] += (pts[o[s + 1] * k + obj] - pts[o[s - 1] * k + obj])
                            / (hi - lo);
    }
    free(o);
    free(pos);
    return 0;
}

int nsga2_prefer(int rank_a, double dist_a, int rank_b, double dist_b)
{
    if (rank_a != rank_b)
        return rank_a < rank_b ? -1 : 1;
    if (dist_a != dist_b)
        return dist_a > dist_b ? -1 : 1;
    return 0;
}
