/* space: the design space — the 8 built-in GPGPU-Sim knobs (names, GTX480
 * levels and baseline, docs/gpgpusim.md), the knobs a campaign declares
 * itself (user knobs: names and level texts, held in its space_def), a
 * campaign's sub-space, canonical config text, and enumeration by
 * mixed-radix index. */
#ifndef GPUDSE_SPACE_H
#define GPUDSE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#define SPACE_NKNOBS 8        /* the built-in knobs, indices 0..7 */
#define SPACE_MAXUSER 8       /* user knobs a campaign may declare */
#define SPACE_MAXKNOBS (SPACE_NKNOBS + SPACE_MAXUSER)
#define SPACE_MAXLEVELS 32    /* levels of one knob in a campaign */
#define SPACE_TEXTLEN 32      /* a user knob's name or one level's text */
#define SPACE_CANON_MAX 1024  /* canonical text of a config, with its NUL */

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
 * holds a space_sched; user knob i (knob SPACE_NKNOBS + i of the campaign's
 * space_def) holds the index of its level in that space_def's list, 0 (its
 * first level, its baseline) when the space has no such knob. */
typedef struct {
    int n_clusters, cores_per_cluster, n_mem, shmem_size;
    int scheduler, num_sched_per_core, l1_sets, l2_sets;
    int user[SPACE_MAXUSER];
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

/* Value of knob (built-in or user: 0..SPACE_MAXKNOBS-1) in c. */
int space_get(const gpu_config *c, int knob);
void space_set(gpu_config *c, int knob, int value);
/* The GTX480 baseline; every user knob at level 0. */
gpu_config space_baseline(void);

/* Text of a built-in knob's value ("gto", "49152"); writes into buf. */
const char *space_value_str(int knob, int value, char *buf, size_t n);
/* Parse a built-in knob's value; 0 on success, -1 when not one of the
 * knob's GTX480 levels. */
int space_value_parse(int knob, const char *text, int *value);
/* Scheduler names. */
const char *space_sched_name(int sched);

/* A knob the campaign declares (<knob name= values=|from= to= step=|log2=
 * option=>): its levels are texts, a config holds a level's index. */
typedef struct {
    char name[SPACE_TEXTLEN];
    int numeric;           /* every level a whole number */
    char option[64];       /* gpgpusim: the config option it sets, "" none */
    char text[SPACE_MAXLEVELS][SPACE_TEXTLEN];
} space_user_knob;

/* A campaign's sub-space: for every knob the values it may take (built-in
 * knobs not listed in the campaign hold their baseline alone; a built-in
 * numeric knob may take any whole number the backend can). Knobs
 * SPACE_NKNOBS.. are the campaign's user knobs, whose levels are 0..n-1
 * (indices into user[].text). Zeroed (nuser 0): the built-in knobs alone. */
typedef struct {
    int nlevels[SPACE_MAXKNOBS];
    int levels[SPACE_MAXKNOBS][SPACE_MAXLEVELS];
    int nuser;
    space_user_knob user[SPACE_MAXUSER];
    int line[SPACE_MAXKNOBS];  /* campaign line of the knob's <knob>, 0 none */
} space_def;

/* Knobs of s (SPACE_NKNOBS + its user knobs; SPACE_NKNOBS for NULL). */
int space_nknobs(const space_def *s);
/* Name of knob k of s (built-in or user); "?" when out of range. */
const char *space_knob_name(const space_def *s, int k);
/* Index of the knob called name in s (built-in or user), or -1. */
int space_knob_index(const space_def *s, const char *name);
/* Whether knob k of s takes whole numbers (the scheduler and categorical
 * user knobs do not). */
int space_knob_numeric(const space_def *s, int k);
/* Text of value v of knob k of s: a built-in knob's value, a user knob's
 * level text ("?" when v is not a level). */
const char *space_level_str(const space_def *s, int k, int v, char *buf,
                            size_t n);
/* Value of text for knob k of s: a built-in numeric knob takes any whole
 * number 0..2^30, the scheduler its names, a user knob one of its level
 * texts (its index). 0, or -1 when text is none of these. */
int space_level_parse(const space_def *s, int k, const char *text, int *v);

/* Canonical text "n_clusters=15,cores_per_cluster=1,...": every built-in
 * knob in fixed order, then ",name=level" for each user knob of s (none
 * when s is NULL or has none, so a built-in-only config's text, and its job
 * key, is the same as before user knobs existed); what job keys hash. */
void space_config_canon(const space_def *s, const gpu_config *c, char *buf,
                        size_t n);

void space_def_full(space_def *s);      /* all 15,552 points */
void space_def_baseline(space_def *s);  /* one point: the baseline */
uint64_t space_size(const space_def *s);
/* Config at mixed-radix index i (knob 0 most significant, user knobs
 * last), i < space_size. */
gpu_config space_at(const space_def *s, uint64_t i);
/* Index of c in s, or -1 when c is not in s. */
int64_t space_index(const space_def *s, const gpu_config *c);

#endif
