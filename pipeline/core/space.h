/* space: the 8-knob GPGPU-Sim design space — knob names, allowed values and
 * baseline (docs/gpgpusim.md), a campaign's sub-space, canonical config text,
 * and enumeration by mixed-radix index. */
#ifndef GPUDSE_SPACE_H
#define GPUDSE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#define SPACE_NKNOBS 8
#define SPACE_MAXLEVELS 8

typedef enum {
    KNOB_N_CLUSTERS,
    KNOB_CORES_PER_CLUSTER,
    KNOB_N_MEM,
    KNOB_SHMEM_SIZE,
    KNOB_SCHEDULER,
    KNOB_NUM_SCHED_PER_CORE,
    KNOB_L1_SETS,
    KNOB_L2_SETS
} space_knob;

typedef enum { SCHED_GTO = 0, SCHED_LRR = 1, SCHED_TWO_LEVEL = 2 } space_sched;

/* One point of the design space. Numeric knobs hold their value; scheduler
 * holds a space_sched. */
typedef struct {
    int n_clusters, cores_per_cluster, n_mem, shmem_size;
    int scheduler, num_sched_per_core, l1_sets, l2_sets;
} gpu_config;

/* Static description of one knob. */
typedef struct {
    const char *name;
    int nlevels;
    int levels[SPACE_MAXLEVELS];   /* values (scheduler: space_sched) */
    int baseline;                  /* a value from levels */
} space_knob_def;

const space_knob_def *space_knob_get(int knob);
/* Knob index by name, or -1. */
int space_knob_find(const char *name);
/* The closest knob name for a did-you-mean, or NULL when nothing is close. */
const char *space_knob_suggest(const char *name);

int space_get(const gpu_config *c, int knob);
void space_set(gpu_config *c, int knob, int value);
gpu_config space_baseline(void);

/* Text of a knob value ("gto", "49152"); writes into buf. */
const char *space_value_str(int knob, int value, char *buf, size_t n);
/* Parse a knob value; 0 on success, -1 when not one of the knob's levels. */
int space_value_parse(int knob, const char *text, int *value);
/* Scheduler names. */
const char *space_sched_name(int sched);

/* Canonical text "n_clusters=15,cores_per_cluster=1,...": every knob, fixed
 * order; what job keys hash. */
void space_config_canon(const gpu_config *c, char *buf, size_t n);

/* A campaign's sub-space: for every knob the values it may take (knobs not
 * listed in the campaign hold their baseline alone). */
typedef struct {
    int nlevels[SPACE_NKNOBS];
    int levels[SPACE_NKNOBS][SPACE_MAXLEVELS];
} space_def;

void space_def_full(space_def *s);      /* all 15,552 points */
void space_def_baseline(space_def *s);  /* one point: the baseline */
uint64_t space_size(const space_def *s);
/* Config at mixed-radix index i (knob 0 most significant), i < space_size. */
gpu_config space_at(const space_def *s, uint64_t i);
/* Index of c in s, or -1 when c is not in s. */
int64_t space_index(const space_def *s, const gpu_config *c);

#endif
