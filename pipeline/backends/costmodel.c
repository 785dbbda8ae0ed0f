/* costmodel: Eq. (1) of docs/costmodel.md and everything that decides with
 * it — task shapes, canonical decisions and their hash, the validator, the
 * seven split policies, the closed form and the optimum search. Pure
 * computation: no I/O, no clocks, no randomness. */
#include "costmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const prov_names[] = {"spec", "estimated", "measured"};
static const char *const kind_names[] = {"triad", "dot", "gemm", "jacobi",
                                         "map"};
static const char *const merge_names[] = {"concat", "sum", "halo"};
static const char *const policy_names[] = {
    "best-single", "even", "peak-flops", "mem-bw", "profiled", "dynamic",
    "optimum"};

static int find_name(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (s && strcmp(names[i], s) == 0)
            return i;
    return -1;
}

const char *cm_prov_name(int p) { return p >= 0 && p < 3 ? prov_names[p] : "?"; }
int cm_prov_parse(const char *s) { return find_name(prov_names, 3, s); }
const char *cm_kind_name(int k) { return k >= 0 && k < CM_NKINDS ? kind_names[k] : "?"; }
int cm_kind_parse(const char *s) { return find_name(kind_names, CM_NKINDS, s); }
const char *cm_merge_name(int m) { return m >= 0 && m < 3 ? merge_names[m] : "?"; }
const char *cm_policy_name(int p) { return p >= 0 && p < CM_NPOL ? policy_names[p] : "?"; }
int cm_policy_parse(const char *s) { return find_name(policy_names, CM_NPOL, s); }

/* ---- tasks ---- */

void cm_task_shape(const cm_task *t, cm_shape *s)
{
    double dt = t->dtype_bytes, a = (double)t->dims[0], b = (double)t->dims[1],
           c = (double)t->dims[2];
    memset(s, 0, sizeof *s);
    s->units = a;
    s->merge = CM_CONCAT;
    switch (t->kind) {
    case CM_TRIAD:      /* a = b + s*c: 2 FLOP, 3 elements per unit */
        s->f = 2; s->m = 3 * dt; s->d_in = 2 * dt; s->d_out = dt;
        break;
    case CM_DOT:        /* sum a*b: partial sums merged */
        s->f = 2; s->m = 2 * dt; s->d_in = 2 * dt;
        s->merge = CM_SUM; s->merge_bytes = 8; s->merge_rounds = 1;
        break;
    case CM_GEMM:       /* rows of A and C; B (K x N) replicated */
        s->f = 2 * b * c; s->m = (b + c) * dt; s->d_in = c * dt;
        s->d_out = b * dt; s->rep = b * c * dt;
        break;
    case CM_JACOBI:     /* rows of the grid, halo rows swapped each sweep */
        s->f = 5 * b * c; s->m = 2 * b * dt * c; s->d_in = b * dt;
        s->d_out = b * dt; s->rep = 2 * b * dt;
        s->merge = CM_HALO; s->merge_bytes = b * dt; s->merge_rounds = c;
        break;
    default:            /* map: k fused multiply-adds per element */
        s->f = 2 * b; s->m = 2 * dt; s->d_in = dt; s->d_out = dt;
        break;
    }
}

void cm_task_text(const cm_task *t, char *out, size_t n)
{
    const char *dt = t->dtype_bytes == 8 ? "fp64" : "fp32";
    switch (t->kind) {
    case CM_GEMM:
        snprintf(out, n, "gemm M=%ld N=%ld K=%ld %s", t->dims[0], t->dims[1],
                 t->dims[2], dt);
        break;
    case CM_JACOBI:
        snprintf(out, n, "jacobi rows=%ld cols=%ld iters=%ld %s", t->dims[0],
                 t->dims[1], t->dims[2], dt);
        break;
    case CM_MAP:
        snprintf(out, n, "map n=%ld k=%ld %s", t->dims[0], t->dims[1], dt);
        break;
    default:
        snprintf(out, n, "%s n=%ld %s", cm_kind_name(t->kind), t->dims[0], dt);
    }
}

/* ---- decisions ---- */

void cm_decision_text(const cm_decision *d, char *out, size_t n)
{
    util_buf b;
    util_buf_init(&b);
    util_buf_puts(&b, "devices=");
    for (int i = 0; i < d->n; i++)
        util_buf_printf(&b, "%s%s", i ? "," : "", d->dev[i]);
    util_buf_puts(&b, ";shares=");
    for (int i = 0; i < d->n; i++)
        util_buf_printf(&b, "%s%.9f", i ? "," : "", d->share[i]);
    util_buf_printf(&b, ";chunk=%ld;block=%d;mode=%s;path=%s", d->chunk,
                    d->block, d->mode == CM_PIPELINED ? "pipelined" : "sync",
                    d->path == CM_P2P ? "p2p" : "host");
    if (d->dynamic)
        util_buf_puts(&b, ";sched=dynamic");
    util_strlcpy(out, b.s ? b.s : "", n);
    util_buf_free(&b);
}

void cm_decision_hash(const cm_decision *d, char out[65])
{
    char text[1024];
    cm_decision_text(d, text, sizeof text);
    util_sha256_hex(text, strlen(text), out);
}

static int parse_list(char *val, char items[][64], int max)
{
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(val, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (n == max)
            return -1;
        util_strlcpy(items[n++], tok, 64);
    }
    return n;
}

static int parse_field(cm_decision *d, const char *key, char *val, int *ndev,
                       int *nsh, gd_err *err)
{
    char items[CM_MAXDEV + 1][64];
    if (!strcmp(key, "devices") || !strcmp(key, "shares")) {
        int n = parse_list(val, items, CM_MAXDEV);
        if (n < 0)
            return gd_errf(err, GD_EINPUT, "decision: more than %d %s",
                           CM_MAXDEV, key);
        for (int i = 0; i < n; i++) {
            if (key[0] == 'd')
                util_strlcpy(d->dev[i], items[i], CM_NAMELEN);
            else if (util_parse_double(items[i], &d->share[i]) != 0 &&
                     strcmp(items[i], "nan") != 0)
                return gd_errf(err, GD_EINPUT, "decision: share \"%s\" is "
                               "not a number", items[i]);
            else if (!strcmp(items[i], "nan"))
                d->share[i] = NAN;
        }
        *(key[0] == 'd' ? ndev : nsh) = n;
        return GD_OK;
    }
    long v;
    if (!strcmp(key, "chunk") || !strcmp(key, "block")) {
        if (util_parse_long(val, -(1L << 40), 1L << 40, &v) != 0)
            return gd_errf(err, GD_EINPUT, "decision: %s \"%s\" is not an "
                           "integer", key, val);
        if (key[0] == 'c')
            d->chunk = v;
        else
            d->block = (int)v;
        return GD_OK;
    }
    if (!strcmp(key, "mode") || !strcmp(key, "path") || !strcmp(key, "sched")) {
        int ok = 1;
        if (key[0] == 'm')
            ok = !strcmp(val, "sync") ? (d->mode = CM_SYNC, 1)
                 : !strcmp(val, "pipelined") ? (d->mode = CM_PIPELINED, 1) : 0;
        else if (key[0] == 'p')
            ok = !strcmp(val, "host") ? (d->path = CM_HOST, 1)
                 : !strcmp(val, "p2p") ? (d->path = CM_P2P, 1) : 0;
        else
            ok = !strcmp(val, "dynamic") ? (d->dynamic = 1, 1)
                 : !strcmp(val, "static") ? (d->dynamic = 0, 1) : 0;
        if (!ok)
            return gd_errf(err, GD_EINPUT, "decision: unknown %s \"%s\"", key,
                           val);
        return GD_OK;
    }
    return gd_errf(err, GD_EINPUT, "decision: unknown field \"%s\"", key);
}

typedef struct {
    cm_decision *d;
    int ndev, nsh;
} decision_parse;

/* One KEY=VALUE field of a decision's text into the decision_parse arg. */
static int decision_field(char *key, char *val, void *arg, gd_err *err)
{
    decision_parse *x = arg;
    if (!val)
        return gd_errf(err, GD_EINPUT, "decision: field \"%s\" has no "
                       "'='", key);
    return parse_field(x->d, key, val, &x->ndev, &x->nsh, err);
}

int cm_decision_parse(const char *text, cm_decision *d, gd_err *err)
{
    memset(d, 0, sizeof *d);
    d->block = -1;
    d->chunk = -1;
    d->mode = -1;
    d->path = -1;
    if (strlen(text) >= 2048)
        return gd_errf(err, GD_EINPUT, "decision: text too long");
    decision_parse x = {d, -1, -1};
    int rc = util_kv_each(text, ";", decision_field, &x, err);
    if (rc)
        return rc;
    if (x.ndev < 0 || x.nsh < 0 || d->chunk < 0 || d->block < 0 || d->mode < 0 ||
        d->path < 0)
        return gd_errf(err, GD_EINPUT, "decision: missing field (needs "
                       "devices, shares, chunk, block, mode, path)");
    if (x.ndev != x.nsh)
        return gd_errf(err, GD_EINPUT, "decision: %d devices but %d shares",
                       x.ndev, x.nsh);
    d->n = x.ndev;
    return GD_OK;
}

/* Bytes resident on device i for u units. */
static double resident_bytes(const cm_shape *s, double u)
{
    return u * (s->d_in + s->d_out) + s->rep;
}

int cm_validate(const cm_machine *m, const cm_task *t, cm_decision *d,
                gd_err *err)
{
    if (d->n < 1 || d->n > m->ndev)
        return gd_errf(err, GD_EINPUT, "decision: %d devices; needs 1 to %d",
                       d->n, m->ndev);
    double sum = 0;
    for (int i = 0; i < d->n; i++) {
        d->idx[i] = -1;
        for (int j = 0; j < m->ndev; j++)
            if (!strcmp(d->dev[i], m->dev[j].name))
                d->idx[i] = j;
        if (d->idx[i] < 0)
            return gd_errf(err, GD_EINPUT, "decision: unknown device \"%s\" "
                           "on machine %s", d->dev[i], m->name);
        for (int j = 0; j < i; j++)
            if (d->idx[j] == d->idx[i])
                return gd_errf(err, GD_EINPUT, "decision: device \"%s\" "
                               "listed twice", d->dev[i]);
        if (!isfinite(d->share[i]))
            return gd_errf(err, GD_EINPUT, "decision: share of %s is not a "
                           "finite number", d->dev[i]);
        if (d->share[i] < 0)
            return gd_errf(err, GD_EINPUT, "decision: share of %s is "
                           "negative (%g)", d->dev[i], d->share[i]);
        sum += d->share[i];
    }
    if (fabs(sum - 1.0) > 1e-6)
        return gd_errf(err, GD_EINPUT, "decision: shares sum to %.9g, not 1",
                       sum);
    cm_shape s;
    cm_task_shape(t, &s);
    if (d->chunk < 1 || (double)d->chunk > s.units)
        return gd_errf(err, GD_EINPUT, "decision: chunk %ld outside 1..%.0f "
                       "units", d->chunk, s.units);
    if (d->block < 32 || d->block > 1024 || d->block % 32 != 0)
        return gd_errf(err, GD_EINPUT, "decision: block %d is not a multiple "
                       "of 32 in 32..1024", d->block);
    if (d->mode != CM_SYNC && d->mode != CM_PIPELINED)
        return gd_errf(err, GD_EINPUT, "decision: unknown mode");
    if (d->path != CM_HOST && d->path != CM_P2P)
        return gd_errf(err, GD_EINPUT, "decision: unknown comm_path");
    if (d->path == CM_P2P)
        for (int i = 0; i < d->n; i++)
            for (int j = 0; j < d->n; j++)
                if (i != j && !m->peer[d->idx[i]][d->idx[j]])
                    return gd_errf(err, GD_EINPUT, "decision: comm_path p2p "
                                   "but %s has no peer access to %s",
                                   d->dev[i], d->dev[j]);
    double u[CM_MAXDEV];
    cm_round_units(d->share, d->n, s.units, u);
    for (int i = 0; i < d->n; i++) {
        double need = resident_bytes(&s, u[i]),
               have = m->dev[d->idx[i]].mem_bytes.v;
        if (u[i] > 0 && need > have)
            return gd_errf(err, GD_EINPUT, "decision: %s needs %.3g B but "
                           "has %.3g B (memory overflow)", d->dev[i], need,
                           have);
    }
    return GD_OK;
}

/* ---- Eq. (1) ---- */

void cm_round_units(const double *share, int n, double units, double *u)
{
    double frac[CM_MAXDEV], given = 0;
    for (int i = 0; i < n; i++) {
        double x = share[i] * units;
        u[i] = floor(x);
        frac[i] = x - u[i];
        given += u[i];
    }
    for (double left = units - given; left > 0.5; left -= 1) {
        int best = 0;
        for (int i = 1; i < n; i++)
            if (frac[i] > frac[best])
                best = i;
        u[best] += 1;
        frac[best] = -1;
    }
}

/* Block efficiency: GPU blocks below 128 threads leave the SMs idle; CPU
 * devices ignore the block. */
static double block_factor(const cm_device *dv, int block)
{
    if (!strcmp(dv->kind, "cpu"))
        return 1.0;
    return block >= 128 ? 1.0 : block / 128.0;
}

static double comp_time(const cm_device *dv, int kind, const cm_shape *s,
                        double u, int block)
{
    double g = block_factor(dv, block) / (dv->slowdown.v > 0 ? dv->slowdown.v : 1);
    double tf = u * s->f / (dv->eta_f[kind].v * dv->peak_flops.v * g);
    double tm = u * s->m / (dv->eta_m[kind].v * dv->mem_bw.v * g);
    return tf > tm ? tf : tm;
}

static double merge_time(const cm_machine *m, const cm_shape *s,
                         const cm_decision *d, const double *u)
{
    int act[CM_MAXDEV], k = 0;
    for (int i = 0; i < d->n; i++)
        if (u[i] > 0)
            act[k++] = d->idx[i];
    if (k < 2 || s->merge == CM_CONCAT)
        return 0;
    if (s->merge == CM_SUM) {
        if (d->path == CM_P2P) {      /* ring all-reduce, nccl-tests busbw */
            double bw = INFINITY, lat = 0;
            for (int i = 0; i < k; i++)
                for (int j = 0; j < k; j++)
                    if (i != j) {
                        bw = fmin(bw, m->p2p_bw[act[i]][act[j]].v);
                        lat = fmax(lat, m->p2p_lat[act[i]][act[j]].v);
                    }
            return lat + s->merge_bytes / bw * 2.0 * (k - 1) / k;
        }
        double worst = 0;
        for (int i = 0; i < k; i++) {
            const cm_device *dv = &m->dev[act[i]];
            worst = fmax(worst, dv->d2h_lat.v + s->merge_bytes / dv->d2h_bw.v);
        }
        return worst + k * s->merge_bytes / m->host_bw.v;
    }
    double round = 0;                 /* halo: neighbours swap a row */
    for (int i = 0; i + 1 < k; i++) {
        int a = act[i], b = act[i + 1];
        double t;
        if (d->path == CM_P2P) {
            t = fmax(m->p2p_lat[a][b].v + s->merge_bytes / m->p2p_bw[a][b].v,
                     m->p2p_lat[b][a].v + s->merge_bytes / m->p2p_bw[b][a].v);
        } else {    /* staged through the host; the pair still syncs */
            const cm_device *x = &m->dev[a], *y = &m->dev[b];
            double ab = m->p2p_lat[a][b].v + x->d2h_lat.v +
                        s->merge_bytes / x->d2h_bw.v + y->h2d_lat.v +
                        s->merge_bytes / y->h2d_bw.v;
            double ba = m->p2p_lat[b][a].v + y->d2h_lat.v +
                        s->merge_bytes / y->d2h_bw.v + x->h2d_lat.v +
                        s->merge_bytes / x->h2d_bw.v;
            t = fmax(ab, ba);
        }
        round = fmax(round, t);
    }
    return s->merge_rounds * round;
}

/* Device time of u units in nc chunks (the per-device part of Eq. (1)). */
static double device_time(const cm_device *dv, int kind, const cm_shape *s,
                          const cm_decision *d, double u, double nc,
                          double *tin, double *tcomp, double *tout,
                          double *tl)
{
    *tin = nc * dv->h2d_lat.v + (u * s->d_in + s->rep) / dv->h2d_bw.v;
    *tcomp = comp_time(dv, kind, s, u, d->block);
    *tout = nc * dv->d2h_lat.v + u * s->d_out / dv->d2h_bw.v;
    *tl = nc * dv->launch_s.v + dv->fixed_s[kind].v;
    double sum = *tin + *tcomp + *tout;
    if (d->mode == CM_SYNC)
        return sum + *tl;
    double mx = fmax(*tin, fmax(*tcomp, *tout));
    return mx + (sum - mx) / nc + *tl;
}

double cm_predict(const cm_machine *m, const cm_task *t, const cm_shape *s,
                  const cm_decision *d, cm_terms *o)
{
    cm_terms local;
    if (!o)
        o = &local;
    cm_round_units(d->share, d->n, s->units, o->u);
    int used = 0;
    o->t_max = 0;
    o->critical = 0;
    for (int i = 0; i < d->n; i++) {
        double u = o->u[i];
        if (u <= 0) {
            o->n_chunks[i] = o->t_in[i] = o->t_comp[i] = o->t_out[i] = 0;
            o->t_launch[i] = o->t_dev[i] = 0;
            continue;
        }
        used++;
        double nc = ceil(u / (double)d->chunk);
        o->n_chunks[i] = nc;
        o->t_dev[i] = device_time(&m->dev[d->idx[i]], t->kind, s, d, u, nc,
                                  &o->t_in[i], &o->t_comp[i], &o->t_out[i],
                                  &o->t_launch[i]);
        if (o->t_dev[i] > o->t_max) {
            o->t_max = o->t_dev[i];
            o->critical = i;
        }
    }
    o->t_setup = m->setup_s.v + m->setup_dev_s.v * used;
    o->t_merge = merge_time(m, s, d, o->u);
    o->total = o->t_setup + o->t_max + o->t_merge;
    return o->total;
}

/* Dynamic self-scheduling: devices pull chunks from a queue; each pull pays
 * one chunk's latency, transfer, compute and launch. */
static double predict_dynamic(const cm_machine *m, const cm_task *t,
                              const cm_shape *s, const cm_decision *d,
                              cm_terms *o, double *share_out)
{
    double free_at[CM_MAXDEV], got[CM_MAXDEV];
    cm_shape per = *s;            /* replicated bytes go once, not per chunk */
    per.rep = 0;
    memset(o, 0, sizeof *o);
    for (int i = 0; i < d->n; i++) {
        const cm_device *dv = &m->dev[d->idx[i]];
        free_at[i] = s->rep / dv->h2d_bw.v + dv->fixed_s[t->kind].v;
        got[i] = 0;
    }
    for (double left = s->units; left > 0;) {
        double u = left < (double)d->chunk ? left : (double)d->chunk;
        int w = 0;
        for (int i = 1; i < d->n; i++)
            if (free_at[i] < free_at[w])
                w = i;
        const cm_device *dv = &m->dev[d->idx[w]];
        double tin, tc, tout, tl;
        cm_decision one = *d;
        one.mode = CM_SYNC;
        free_at[w] += device_time(dv, t->kind, &per, &one, u, 1, &tin, &tc,
                                  &tout, &tl) - dv->fixed_s[t->kind].v;
        if (got[w] == 0)
            tin += s->rep / dv->h2d_bw.v;
        o->t_in[w] += tin; o->t_comp[w] += tc; o->t_out[w] += tout;
        o->t_launch[w] += tl - dv->fixed_s[t->kind].v;
        o->n_chunks[w] += 1;
        got[w] += u;
        left -= u;
    }
    int used = 0;
    for (int i = 0; i < d->n; i++) {
        o->u[i] = got[i];
        if (got[i] > 0) {
            used++;
            o->t_launch[i] += m->dev[d->idx[i]].fixed_s[t->kind].v;
            o->t_dev[i] = free_at[i];
            if (free_at[i] > o->t_max) {
                o->t_max = free_at[i];
                o->critical = i;
            }
        }
        if (share_out)
            share_out[i] = got[i] / s->units;
    }
    o->t_setup = m->setup_s.v + m->setup_dev_s.v * used;
    o->t_merge = merge_time(m, s, d, got);
    o->total = o->t_setup + o->t_max + o->t_merge;
    return o->total;
}

double cm_predict_any(const cm_machine *m, const cm_task *t,
                      const cm_decision *d, cm_terms *out)
{
    cm_shape s;
    cm_terms local;
    cm_task_shape(t, &s);
    if (d->dynamic)
        return predict_dynamic(m, t, &s, d, out ? out : &local, NULL);
    return cm_predict(m, t, &s, d, out);
}

/* ---- closed form and profiles ---- */

void cm_single_decision(const cm_machine *m, int dev, long chunk,
                        cm_decision *d)
{
    memset(d, 0, sizeof *d);
    d->n = 1;
    d->idx[0] = dev;
    util_strlcpy(d->dev[0], m->dev[dev].name, CM_NAMELEN);
    d->share[0] = 1;
    d->chunk = chunk;
    d->block = 256;
}

void cm_profile_from_model(const cm_machine *m, const cm_task *t,
                           cm_profile *p)
{
    cm_shape s, s2;
    cm_task_shape(t, &s);
    s2 = s;
    s2.units = s.units / 2 > 1 ? floor(s.units / 2) : 1;
    p->n = m->ndev;
    for (int i = 0; i < m->ndev; i++) {
        cm_decision d;
        cm_single_decision(m, i, (long)s.units, &d);
        double t1 = cm_predict(m, t, &s, &d, NULL) - m->setup_s.v -
                    m->setup_dev_s.v;
        d.chunk = (long)s2.units;
        double t2 = cm_predict(m, t, &s2, &d, NULL) - m->setup_s.v -
                    m->setup_dev_s.v;
        double du = s.units - s2.units;
        p->r[i] = du > 0 ? (t1 - t2) / du : t1 / s.units;
        p->a[i] = t1 - p->r[i] * s.units;
        if (p->a[i] < 0)
            p->a[i] = 0;
    }
}

double cm_closed_form(const cm_profile *p, double units, double *share)
{
    int keep[CM_MAXDEV];
    for (int i = 0; i < p->n; i++)
        keep[i] = p->r[i] > 0;
    double T = INFINITY;
    for (int changed = 1; changed;) {
        double num = 1, den = 0;
        for (int i = 0; i < p->n; i++)
            if (keep[i]) {
                num += p->a[i] / (units * p->r[i]);
                den += 1 / (units * p->r[i]);
            }
        if (den <= 0)
            break;
        T = num / den;
        changed = 0;
        for (int i = 0; i < p->n; i++)   /* drop devices whose fixed cost exceeds T* */
            if (keep[i] && p->a[i] >= T) {
                keep[i] = 0;
                changed = 1;
            }
    }
    for (int i = 0; i < p->n; i++)
        share[i] = keep[i] ? (T - p->a[i]) / (units * p->r[i]) : 0;
    return T;
}

/* ---- search ---- */

void cm_search_default(const cm_task *t, cm_search *g)
{
    cm_shape s;
    cm_task_shape(t, &s);
    memset(g, 0, sizeof *g);
    g->grid = 20;
    long u = (long)s.units;
    long c[4] = {u, (u + 3) / 4, (u + 15) / 16, (u + 63) / 64};
    for (int i = 0; i < 4; i++) {
        if (c[i] < 1)
            c[i] = 1;
        int dup = 0;
        for (int j = 0; j < g->nchunks; j++)
            dup |= g->chunks[j] == c[i];
        if (!dup)
            g->chunks[g->nchunks++] = c[i];
    }
    g->blocks[0] = 64; g->blocks[1] = 128; g->blocks[2] = 256;
    g->nblocks = 3;
    g->modes = 2;
    g->paths = 2;
}

typedef struct {
    const cm_machine *m;
    const cm_task *t;
    cm_shape s;
    const cm_search *g;
    cm_decision best;
    double best_t;
    long evaluated;
    int cpu_only;
} search_t;

static int memory_fits(const search_t *x, const cm_decision *d)
{
    double u[CM_MAXDEV];
    cm_round_units(d->share, d->n, x->s.units, u);
    for (int i = 0; i < d->n; i++)
        if (u[i] > 0 && resident_bytes(&x->s, u[i]) > x->m->dev[d->idx[i]].mem_bytes.v)
            return 0;
    return 1;
}

static int peers_ok(const cm_machine *m, const cm_decision *d)
{
    for (int i = 0; i < d->n; i++)
        for (int j = 0; j < d->n; j++)
            if (i != j && !m->peer[d->idx[i]][d->idx[j]])
                return 0;
    return 1;
}

/* Try every chunk x block x mode x path for the shares in d. */
static void try_configs(search_t *x, cm_decision *d)
{
    if (!memory_fits(x, d))
        return;
    int modes = x->cpu_only ? 1 : x->g->modes;
    int paths = d->n > 1 && peers_ok(x->m, d) ? x->g->paths : 1;
    for (int c = 0; c < x->g->nchunks; c++)
        for (int b = 0; b < x->g->nblocks; b++)
            for (int mo = 0; mo < modes; mo++)
                for (int p = 0; p < paths; p++) {
                    d->chunk = x->g->chunks[c];
                    d->block = x->g->blocks[b];
                    d->mode = mo;
                    d->path = p;
                    double tt = cm_predict(x->m, x->t, &x->s, d, NULL);
                    x->evaluated++;
                    if (tt < x->best_t) {
                        x->best_t = tt;
                        x->best = *d;
                    }
                }
}

/* Compositions of `left` grid steps into the remaining devices of d. */
static void compose(search_t *x, cm_decision *d, int pos, int left, int grid)
{
    if (pos == d->n - 1) {
        d->share[pos] = (double)left / grid;
        try_configs(x, d);
        return;
    }
    for (int k = 1; k <= left - (d->n - 1 - pos); k++) {
        d->share[pos] = (double)k / grid;
        compose(x, d, pos + 1, left - k, grid);
    }
}

static void subset_decision(const cm_machine *m, unsigned mask,
                            cm_decision *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < m->ndev; i++)
        if (mask & (1u << i)) {
            d->idx[d->n] = i;
            util_strlcpy(d->dev[d->n], m->dev[i].name, CM_NAMELEN);
            d->n++;
        }
}

static int all_cpu(const cm_machine *m)
{
    for (int i = 0; i < m->ndev; i++)
        if (strcmp(m->dev[i].kind, "cpu") != 0)
            return 0;
    return 1;
}

static void search_init(search_t *x, const cm_machine *m, const cm_task *t,
                        const cm_search *g)
{
    memset(x, 0, sizeof *x);
    x->m = m;
    x->t = t;
    x->g = g;
    cm_task_shape(t, &x->s);
    x->best_t = INFINITY;
    x->cpu_only = all_cpu(m);   /* CPU threads have no copy engines to overlap */
}

static void grid_search(search_t *x, int grid)
{
    for (unsigned mask = 1; mask < (1u << x->m->ndev); mask++) {
        cm_decision d;
        subset_decision(x->m, mask, &d);
        if (d.n <= grid)
            compose(x, &d, 0, grid, grid);
    }
}

double cm_grid_best(const cm_machine *m, const cm_task *t, const cm_search *g,
                    cm_decision *best, long *evaluated)
{
    search_t x;
    search_init(&x, m, t, g);
    grid_search(&x, g->grid);
    if (best)
        *best = x.best;
    if (evaluated)
        *evaluated = x.evaluated;
    return x.best_t;
}

/* Affine lines of the devices of d for its chunk/block/mode, fitted from two
 * single-device predictions at the sizes an even split would give. */
static void subset_profile(search_t *x, const cm_decision *d, cm_profile *p)
{
    p->n = d->n;
    double u1 = fmax(1, floor(x->s.units / d->n / 2)), u2 = fmax(u1 + 1, floor(x->s.units / d->n * 1.5));
    for (int i = 0; i < d->n; i++) {
        double tin, tc, tout, tl;
        const cm_device *dv = &x->m->dev[d->idx[i]];
        double t1 = device_time(dv, x->t->kind, &x->s, d, u1,
                                ceil(u1 / d->chunk), &tin, &tc, &tout, &tl);
        double t2 = device_time(dv, x->t->kind, &x->s, d, u2,
                                ceil(u2 / d->chunk), &tin, &tc, &tout, &tl);
        p->r[i] = (t2 - t1) / (u2 - u1);
        p->a[i] = fmax(0, t1 - p->r[i] * u1);
    }
}

/* Move share between pairs of devices while it helps. */
static void polish(search_t *x, cm_decision *d, double step)
{
    double cur = cm_predict(x->m, x->t, &x->s, d, NULL);
    x->evaluated++;
    for (; step > 1e-5; step /= 2) {
        for (int improved = 1; improved;) {
            improved = 0;
            for (int i = 0; i < d->n; i++)
                for (int j = 0; j < d->n; j++) {
                    if (i == j || d->share[j] < step)
                        continue;
                    d->share[i] += step;
                    d->share[j] -= step;
                    double tt = memory_fits(x, d)
                                    ? cm_predict(x->m, x->t, &x->s, d, NULL)
                                    : INFINITY;
                    x->evaluated++;
                    if (tt < cur - 1e-15) {
                        cur = tt;
                        improved = 1;
                    } else {
                        d->share[i] -= step;
                        d->share[j] += step;
                    }
                }
        }
    }
    if (cur < x->best_t) {
        x->best_t = cur;
        x->best = *d;
    }
}

static void closed_form_candidates(search_t *x)
{
    int modes = x->cpu_only ? 1 : x->g->modes;
    for (unsigned mask = 1; mask < (1u << x->m->ndev); mask++) {
        cm_decision d;
        subset_decision(x->m, mask, &d);
        int paths = d.n > 1 && peers_ok(x->m, &d) ? x->g->paths : 1;
        for (int c = 0; c < x->g->nchunks; c++)
            for (int b = 0; b < x->g->nblocks; b++)
                for (int mo = 0; mo < modes; mo++)
                    for (int p = 0; p < paths; p++) {
                        d.chunk = x->g->chunks[c];
                        d.block = x->g->blocks[b];
                        d.mode = mo;
                        d.path = p;
                        cm_profile pr;
                        subset_profile(x, &d, &pr);
                        cm_closed_form(&pr, x->s.units, d.share);
                        if (!memory_fits(x, &d))
                            continue;
                        polish(x, &d, 1.0 / (4 * x->g->grid));
                    }
    }
}

double cm_optimum(const cm_machine *m, const cm_task *t, const cm_search *g,
                  cm_decision *best, long *evaluated)
{
    search_t x;
    search_init(&x, m, t, g);
    grid_search(&x, g->grid);
    closed_form_candidates(&x);
    if (best)
        *best = x.best;
    if (evaluated)
        *evaluated = x.evaluated;
    return x.best_t;
}

/* ---- policies ---- */

static void all_devices(const cm_machine *m, const cm_shape *s,
                        cm_decision *d)
{
    memset(d, 0, sizeof *d);
    d->n = m->ndev;
    for (int i = 0; i < m->ndev; i++) {
        d->idx[i] = i;
        util_strlcpy(d->dev[i], m->dev[i].name, CM_NAMELEN);
    }
    d->chunk = (long)s->units;
    d->block = 256;
}

/* Shares proportional to w (zero weights get nothing). */
static void proportional(cm_decision *d, const double *w)
{
    double sum = 0;
    for (int i = 0; i < d->n; i++)
        sum += w[i];
    for (int i = 0; i < d->n; i++)
        d->share[i] = w[i] / sum;
}

/* Keep only devices with a positive share (canonical decisions list the
 * devices they use). */
static void drop_unused(cm_decision *d)
{
    int k = 0;
    for (int i = 0; i < d->n; i++)
        if (d->share[i] > 0) {
            d->idx[k] = d->idx[i];
            d->share[k] = d->share[i];
            memmove(d->dev[k], d->dev[i], CM_NAMELEN);
            k++;
        }
    d->n = k;
}

int cm_policy_decide(int policy, const cm_machine *m, const cm_task *t,
                     const cm_profile *prof, cm_decision *d, gd_err *err)
{
    cm_shape s;
    cm_task_shape(t, &s);
    double w[CM_MAXDEV];
    all_devices(m, &s, d);
    switch (policy) {
    case CM_POL_SINGLE: {
        int best = 0;
        for (int i = 1; i < m->ndev; i++)
            if (prof->a[i] + s.units * prof->r[i] <
                prof->a[best] + s.units * prof->r[best])
                best = i;
        cm_single_decision(m, best, (long)s.units, d);
        break;
    }
    case CM_POL_EVEN:
        for (int i = 0; i < m->ndev; i++)
            w[i] = 1;
        proportional(d, w);
        break;
    case CM_POL_PEAK:
    case CM_POL_BW:
        for (int i = 0; i < m->ndev; i++)
            w[i] = policy == CM_POL_PEAK ? m->dev[i].peak_flops.v
                                         : m->dev[i].mem_bw.v;
        proportional(d, w);
        break;
    case CM_POL_PROFILED:
        cm_closed_form(prof, s.units, d->share);
        drop_unused(d);
        break;
    case CM_POL_DYNAMIC: {
        long c = (long)ceil(s.units / (8.0 * m->ndev));
        d->chunk = c < 1 ? 1 : c;
        d->dynamic = 1;
        cm_terms o;
        predict_dynamic(m, t, &s, d, &o, d->share);
        /* Jacobi keeps rows resident for its halo sweeps: the queue's
         * expected shares become a static split. */
        if (t->kind == CM_JACOBI) {
            d->dynamic = 0;
            drop_unused(d);
        }
        break;
    }
    case CM_POL_OPTIMUM: {
        cm_search g;
        cm_search_default(t, &g);
        if (!isfinite(cm_optimum(m, t, &g, d, NULL)))
            return gd_errf(err, GD_EINPUT, "no feasible decision for this "
                           "task on machine %s (memory)", m->name);
        break;
    }
    default:
        return gd_errf(err, GD_EINPUT, "unknown policy %d", policy);
    }
    /* Round shares to the canonical text's precision, exactly summing to 1. */
    double sum = 0;
    for (int i = 0; i < d->n; i++) {
        d->share[i] = round(d->share[i] * 1e9) / 1e9;
        sum += d->share[i];
    }
    if (d->n > 0)
        d->share[d->n - 1] = round((d->share[d->n - 1] + 1 - sum) * 1e9) / 1e9;
    return cm_validate(m, t, d, err);
}
