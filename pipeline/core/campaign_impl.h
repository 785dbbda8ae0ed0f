/* campaign_impl: private to campaign.c, campaign_wl.c, campaign_metrics.c
 * campaign_agg.c and campaign_knobs.c, the parts of the campaign parser —
 * the context of one file's meaning checks, the small libxml2 helpers they
 * use, and the entry points of the others. No other module includes it. */
#ifndef GPUDSE_CAMPAIGN_IMPL_H
#define GPUDSE_CAMPAIGN_IMPL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libxml/tree.h>
#include "campaign.h"
#include "metrics.h"

typedef struct {
    const char *path;
    camp_campaign *c;
    gd_err *err;
    int names_only;        /* do not load workload descriptors */
} ctx_t;

static inline int line_of(xmlNodePtr n)
{
    long l = xmlGetLineNo(n);
    return l > 0 ? (int)l : 1;
}

/* Attribute as a malloc'd string (caller frees with xmlFree), or NULL. */
static inline char *attr(xmlNodePtr n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static inline int is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE
           && strcmp((const char *)n->name, name) == 0;
}

/* GD_EINPUT with "FILE:LINE: " (n's line) and the message. */
static inline int fail(ctx_t *x, xmlNodePtr n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline int fail(ctx_t *x, xmlNodePtr n, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gd_errf(x->err, GD_EINPUT, "%s:%d: %s", x->path, line_of(n), msg);
}

/* Text content of an element, trimmed, into dst; -1 when too long. */
static inline int elem_text(xmlNodePtr n, char *dst, size_t size)
{
    xmlChar *t = xmlNodeGetContent(n);
    const char *p = t ? (const char *)t : "";
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    size_t len = strlen(p);
    while (len && strchr(" \n\t\r", p[len - 1]))
        len--;
    int rc = len < size ? 0 : -1;
    if (!rc) {
        memcpy(dst, p, len);
        dst[len] = '\0';
    }
    xmlFree(t);
    return rc;
}

/* A non-negative decimal attribute within [lo, hi] into *out. */
static inline int decimal_attr(ctx_t *x, xmlNodePtr n, const char *name,
                               double lo, double hi, double *out)
{
    char *v = attr(n, name);
    double d;
    int rc = GD_OK;
    if (v && (util_parse_double(v, &d) || d < lo || d > hi)) {
        char range[96];
        snprintf(range, sizeof range, "%g to %g", lo, hi);
        char what[160];
        snprintf(what, sizeof what, "%s must be %s", name, range);
        rc = fail(x, n, "%s (got \"%s\")", what, v);
    } else if (v) {
        *out = d;
    }
    xmlFree(v);
    return rc;
}

/* <workloads>: each workload's descriptor (or, on an external backend, its
 * command and environment) and resources. */
int campx_workloads(ctx_t *x, xmlNodePtr list);

/* timeout, memory-mb, cpus and gres of a <workload> (or cpus and gres of
 * <execution>, whose NULL timeout and memory_mb are parsed elsewhere). */
int campx_resources(ctx_t *x, xmlNodePtr n, double *timeout,
                    double *memory_mb, int *cpus, char *gres, size_t gressz);

/* One <aggregate> of <objectives> (campaign_agg.c), parsed after the
 * space and the <maximize>/<minimize> objectives. */
int campx_aggregate(ctx_t *x, xmlNodePtr n);
/* <derived> elements of the campaign (after <simulator>: they may read
 * its declared metrics), and the <constraint>s of <objectives>. */
int campx_derived(ctx_t *x, xmlNodePtr root);
int campx_constraints(ctx_t *x, xmlNodePtr objectives);

/* <space>: built-in and user knobs into x->c->space (campaign_knobs.c). */
int campx_space(ctx_t *x, xmlNodePtr list);

#endif
