/* space: the 8 built-in knobs of the GPGPU-Sim GTX480 design space (values
 * and baseline from docs/gpgpusim.md), a campaign's user knobs (held in its
 * space_def), canonical config text, and mixed-radix enumeration of a
 * campaign's sub-space. */
#include "space.h"
#include "numtext.h"

#include <stdio.h>
#include <string.h>
#include "util.h"

static const space_knob_def knobs[SPACE_NKNOBS] = {
    {"n_clusters", 4, {8, 15, 30, 60}, 15},
    {"cores_per_cluster", 3, {1, 2, 4}, 1},
    {"n_mem", 4, {4, 6, 8, 12}, 6},
    {"shmem_size", 3, {16384, 32768, 49152}, 49152},
    {"scheduler", 3, {SCHED_GTO, SCHED_LRR, SCHED_TWO_LEVEL}, SCHED_GTO},
    {"num_sched_per_core", 3, {1, 2, 4}, 2},
    {"l1_sets", 4, {16, 32, 64, 128}, 32},
    {"l2_sets", 3, {32, 64, 128}, 64},
};

static const char *const sched_names[] = {"gto", "lrr", "two_level_active"};

const space_knob_def *space_knob_get(int knob)
{
    return (knob >= 0 && knob < SPACE_NKNOBS) ? &knobs[knob] : NULL;
}

int space_knob_find(const char *name)
{
    for (int k = 0; k < SPACE_NKNOBS; k++)
        if (strcmp(knobs[k].name, name) == 0)
            return k;
    return -1;
}

const char *space_knob_suggest(const char *name)
{
    const char *best = NULL;
    int bestd = 1 << 30;
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        int d = util_edit_distance(name, knobs[k].name);
        if (d < bestd) {
            bestd = d;
            best = knobs[k].name;
        }
    }
    /* Only suggest when the typo is small relative to the name. */
    int limit = (int)strlen(name) / 3 + 1;
    return bestd <= limit ? best : NULL;
}

int space_get(const gpu_config *c, int knob)
{
    if (knob >= SPACE_NKNOBS && knob < SPACE_MAXKNOBS)
        return c->user[knob - SPACE_NKNOBS];
    switch (knob) {
    case KNOB_N_CLUSTERS: return c->n_clusters;
    case KNOB_CORES_PER_CLUSTER: return c->cores_per_cluster;
    case KNOB_N_MEM: return c->n_mem;
    case KNOB_SHMEM_SIZE: return c->shmem_size;
    case KNOB_SCHEDULER: return c->scheduler;
    case KNOB_NUM_SCHED_PER_CORE: return c->num_sched_per_core;
    case KNOB_L1_SETS: return c->l1_sets;
    case KNOB_L2_SETS: return c->l2_sets;
    default: return -1;
    }
}

void space_set(gpu_config *c, int knob, int value)
{
    if (knob >= SPACE_NKNOBS && knob < SPACE_MAXKNOBS) {
        c->user[knob - SPACE_NKNOBS] = value;
        return;
    }
    switch (knob) {
    case KNOB_N_CLUSTERS: c->n_clusters = value; break;
    case KNOB_CORES_PER_CLUSTER: c->cores_per_cluster = value; break;
    case KNOB_N_MEM: c->n_mem = value; break;
    case KNOB_SHMEM_SIZE: c->shmem_size = value; break;
    case KNOB_SCHEDULER: c->scheduler = value; break;
    case KNOB_NUM_SCHED_PER_CORE: c->num_sched_per_core = value; break;
    case KNOB_L1_SETS: c->l1_sets = value; break;
    case KNOB_L2_SETS: c->l2_sets = value; break;
    default: break;
    }
}

gpu_config space_baseline(void)
{
    gpu_config c;
    memset(&c, 0, sizeof c);
    for (int k = 0; k < SPACE_NKNOBS; k++)
        space_set(&c, k, knobs[k].baseline);
    return c;
}

const char *space_sched_name(int sched)
{
    return (sched >= 0 && sched < 3) ? sched_names[sched] : "?";
}

const char *space_value_str(int knob, int value, char *buf, size_t n)
{
    char t[NUM_TEXT_MAX];
    if (knob == KNOB_SCHEDULER)
        util_strlcpy(buf, space_sched_name(value), n);
    else if (num_int(value, t) < n)   /* not printf: the CSV's hot path */
        memcpy(buf, t, strlen(t) + 1);
    else
        snprintf(buf, n, "%d", value);
    return buf;
}

int space_value_parse(int knob, const char *text, int *value)
{
    const space_knob_def *d = space_knob_get(knob);
    if (!d)
        return -1;
    int v;
    if (knob == KNOB_SCHEDULER) {
        v = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(text, sched_names[i]) == 0)
                v = i;
        if (v < 0)
            return -1;
    } else {
        long l;
        if (util_parse_long(text, 0, 1L << 30, &l) != 0)
            return -1;
        v = (int)l;
    }
    for (int i = 0; i < d->nlevels; i++)
        if (d->levels[i] == v) {
            *value = v;
            return 0;
        }
    return -1;
}

/* Decimal text of a non-negative int, for the hot path of job keys. */
static size_t put_uint(char *dst, unsigned v)
{
    char tmp[12];
    size_t k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < k; i++)
        dst[i] = tmp[k - 1 - i];
    return k;
}

static size_t put_text(char *dst, const char *s)
{
    size_t len = strlen(s);
    memcpy(dst, s, len);
    return len;
}

void space_config_canon(const space_def *s, const gpu_config *c, char *buf,
                        size_t n)
{
    /* built by hand, not with snprintf: every job key hashes this text */
    char tmp[SPACE_CANON_MAX + 64];
    size_t off = 0;
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        if (k)
            tmp[off++] = ',';
        off += put_text(tmp + off, knobs[k].name);
        tmp[off++] = '=';
        int v = space_get(c, k);
        if (k == KNOB_SCHEDULER) {
            off += put_text(tmp + off, space_sched_name(v));
        } else {
            if (v < 0)
                tmp[off++] = '-';
            off += put_uint(tmp + off, v < 0 ? 0u - (unsigned)v : (unsigned)v);
        }
    }
    /* user knobs: at most SPACE_MAXUSER * (2 + 2 * SPACE_TEXTLEN) bytes */
    for (int u = 0; s && u < s->nuser; u++) {
        char lv[SPACE_TEXTLEN + 4];
        tmp[off++] = ',';
        off += put_text(tmp + off, s->user[u].name);
        tmp[off++] = '=';
        off += put_text(tmp + off, space_level_str(s, SPACE_NKNOBS + u,
                                                   c->user[u], lv, sizeof lv));
    }
    tmp[off] = '\0';
    util_strlcpy(buf, tmp, n);
}

int space_nknobs(const space_def *s)
{
    return SPACE_NKNOBS + (s ? s->nuser : 0);
}

const char *space_knob_name(const space_def *s, int k)
{
    if (k >= 0 && k < SPACE_NKNOBS)
        return knobs[k].name;
    if (s && k >= SPACE_NKNOBS && k < space_nknobs(s))
        return s->user[k - SPACE_NKNOBS].name;
    return "?";
}

int space_knob_index(const space_def *s, const char *name)
{
    int k = space_knob_find(name);
    for (int u = 0; k < 0 && s && u < s->nuser; u++)
        if (!strcmp(s->user[u].name, name))
            k = SPACE_NKNOBS + u;
    return k;
}

int space_knob_numeric(const space_def *s, int k)
{
    if (k >= SPACE_NKNOBS)
        return s && k < space_nknobs(s) && s->user[k - SPACE_NKNOBS].numeric;
    return k >= 0 && k != KNOB_SCHEDULER;
}

const char *space_level_str(const space_def *s, int k, int v, char *buf,
                            size_t n)
{
    if (k < SPACE_NKNOBS)
        return space_value_str(k, v, buf, n);
    const char *t = "?";
    if (s && k < space_nknobs(s) && v >= 0 && v < s->nlevels[k])
        t = s->user[k - SPACE_NKNOBS].text[v];
    util_strlcpy(buf, t, n);
    return buf;
}

int space_level_parse(const space_def *s, int k, const char *text, int *v)
{
    if (k >= SPACE_NKNOBS) {
        if (!s || k >= space_nknobs(s))
            return -1;
        for (int i = 0; i < s->nlevels[k]; i++)
            if (!strcmp(s->user[k - SPACE_NKNOBS].text[i], text)) {
                *v = i;
                return 0;
            }
        return -1;
    }
    if (k == KNOB_SCHEDULER)
        return space_value_parse(k, text, v);
    long l;
    if (k < 0 || util_parse_long(text, 0, 1L << 30, &l) != 0)
        return -1;
    *v = (int)l;
    return 0;
}

void space_def_full(space_def *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        s->nlevels[k] = knobs[k].nlevels;
        memcpy(s->levels[k], knobs[k].levels, sizeof knobs[k].levels);
    }
}

void space_def_baseline(space_def *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        s->nlevels[k] = 1;
        s->levels[k][0] = knobs[k].baseline;
    }
}

uint64_t space_size(const space_def *s)
{
    uint64_t n = 1;
    for (int k = 0; k < space_nknobs(s); k++)
        n *= (uint64_t)s->nlevels[k];
    return n;
}

gpu_config space_at(const space_def *s, uint64_t i)
{
    gpu_config c;
    memset(&c, 0, sizeof c);
    for (int k = space_nknobs(s) - 1; k >= 0; k--) {
        uint64_t r = (uint64_t)s->nlevels[k];
        space_set(&c, k, s->levels[k][i % r]);
        i /= r;
    }
    return c;
}

int64_t space_index(const space_def *s, const gpu_config *c)
{
    int64_t idx = 0;
    for (int k = 0; k < space_nknobs(s); k++) {
        int v = space_get(c, k), pos = -1;
        for (int j = 0; j < s->nlevels[k]; j++)
            if (s->levels[k][j] == v)
                pos = j;
        if (pos < 0)
            return -1;
        idx = idx * s->nlevels[k] + pos;
    }
    return idx;
}
