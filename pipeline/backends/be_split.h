/* be_split: the split-study backends behind one seam, the split study's
 * half of the backend seam (backend.h serves design-space jobs: one config
 * of a GPU; a split job is one decision of a task on a machine of
 * devices). costmodel predicts every decision (costmodel.c: Eq. (1));
 * measure-cpu times it on this machine's cores (measure.c), measure-cuda on
 * its GPUs (measure_cuda.c). The split study (split.h) asks this table what
 * its backend can do; it names no backend itself. */
#ifndef GPUDSE_BE_SPLIT_H
#define GPUDSE_BE_SPLIT_H

#include <stddef.h>
#include "costmodel.h"
#include "measure.h"
#include "util.h"

typedef struct be_split {
    const char *name;          /* as in <backend name="..."> */
    const char *label;         /* "PREDICTED(costmodel)", "MEASURED(cpu)", ... */
    const char *fidelity;      /* "modelled" or "measured" */
    /* The kind every device of a measured machine must be ("cpu",
     * "cuda"); NULL: any. hint ends the message when one is not. */
    const char *device_kind, *hint;
    /* Whether a machine may be described by probing this host's cores. */
    int probes;
    /* Devices that answer here; 0: none, and every measurement is
     * recorded as skipped with `absent` as its reason. NULL: always. */
    int (*devices)(void);
    const char *absent;
    /* Time decision d of task t on m (NULL: a backend that only predicts,
     * whose records are the cost model's). */
    int (*measure)(const cm_machine *m, const cm_task *t,
                   const cm_decision *d, const ms_opts *o, ms_stat *out,
                   gd_err *err);
    /* Calibration rungs, where the backend has them: an exchange between
     * devices a and b (and the parallel efficiency of the cores), or a
     * host<->device copy on device dev. NULL: none. */
    int (*link)(const cm_machine *m, int a, int b, size_t bytes, int rounds,
                const ms_opts *o, ms_stat *out, gd_err *err);
    int (*copy)(const cm_machine *m, int dev, size_t bytes, int h2d,
                int rounds, const ms_opts *o, ms_stat *out, gd_err *err);
} be_split;

/* The split backend named name (NULL: none), and its index in the table
 * (-1: none); the index is what split.h's sp_campaign.backend holds. */
const be_split *be_split_find(const char *name);
int be_split_index(const char *name);
/* The backend of index i (0: costmodel); NULL out of range. */
const be_split *be_split_at(int i);

#endif
