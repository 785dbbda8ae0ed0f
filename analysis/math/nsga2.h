/* nsga2: the two rankings of NSGA-II (Deb et al. 2002) — fast
 * non-dominated sorting into fronts and crowding distance within a front —
 * for n points in k minimised objectives. */
#ifndef GPUDSE_NSGA2_H
#define GPUDSE_NSGA2_H

#include <stddef.h>

/* Front number of every point (0 = non-dominated, 1 = dominated only by
 * front 0, ...) into rank[n]. Rows with NaN get rank n (worst). Returns the
 * number of fronts, or -1 when out of memory. */
int nsga2_sort(const double *pts, size_t n, size_t k, int *rank);

/* The same under constrained domination (Deb's rule): viol[i] is point
 * i's total constraint violation, 0 when feasible; a feasible point beats
 * an infeasible one, between infeasible ones the smaller violation wins,
 * between feasible ones Pareto dominance decides. So the feasible fronts
 * come first, then the infeasible points by increasing violation. viol
 * NULL: nsga2_sort. */
int nsga2_sort_constrained(const double *pts, const double *viol, size_t n,
                           size_t k, int *rank);

/* Crowding distance of the m points listed in members (row indices of pts)
 * into dist[m]: per objective, the boundary points get INFINITY and inner
 * points add the normalised gap between their neighbours. Returns 0 or -1
 * when out of memory. */
int nsga2_crowding(const double *pts, size_t k, const size_t *members,
                   size_t m, double *dist);

/* Crowded comparison: -1 when a is preferred (lower rank, or same rank and
 * larger distance), 1 when b is, 0 when tied. */
int nsga2_prefer(int rank_a, double dist_a, int rank_b, double dist_b);

#endif
