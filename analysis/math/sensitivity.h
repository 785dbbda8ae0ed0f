/* sensitivity: which knobs move an objective — main effects of every knob
 * and the strongest two-knob interactions, from least-squares fits
 * (gsl_multifit_linear) on one-hot knob levels, with R² and k-fold
 * cross-validated error. */
#ifndef GPUDSE_SENSITIVITY_H
#define GPUDSE_SENSITIVITY_H

#include <stddef.h>
#include "space.h"
#include "util.h"

#define SENS_TOP 3

typedef struct {
    int knob;                            /* space_knob */
    int nlevels;
    int value[SPACE_MAXLEVELS];          /* the knob's levels in the space */
    double mean[SPACE_MAXLEVELS];        /* partial dependence of the fit;
                                            NaN for a level no row has */
    double effect;                       /* max - min of the known means */
} sens_main;

typedef struct {
    int a, b;                            /* space_knob, a < b */
    double strength;   /* R² gained by adding the pair's one-hot products */
} sens_pair;

typedef struct {
    int fitted;        /* 0 when there are too few points for the model */
    size_t n;          /* rows used */
    double r2;         /* of the main-effects model on all rows */
    double cv_rmse;    /* k-fold cross-validated RMSE of the same model;
                          NaN when the folds leave too few rows to fit */
    int nmain;
    sens_main main[SPACE_MAXKNOBS];      /* knobs with 2+ levels, knob order */
    int npairs;
    sens_pair pair[SENS_TOP];            /* strongest first */
} sens_result;

/* Fit y (n values, NaN rows skipped) against the configs over the knobs
 * that have 2+ levels in space s (rows whose config is not in s are
 * skipped). The result does not depend on the order of the rows. folds >=
 * 2. Returns GD_OK (fitted = 0 when n is too small) or GD_EENV when out of
 * memory. */
int sens_fit(const gpu_config *cfg, const double *y, size_t n,
             const space_def *s, int folds, sens_result *out, gd_err *err);

#endif
