/* splitload: load a <split-study> campaign (libxml2, no network, no DTD;
 * RELAX NG schema templates/split-study.rng; then meaning checks, FILE:LINE
 * errors with exit class 2) into an sp_campaign (split.h). */
#include "split.h"
#include "be_split.h"
#include "xmlsafe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "campaign.h"
#include "machine.h"

/* The study's backends are be_split.h's; sp_campaign.backend indexes them. */
static const char *bname(int b) { return be_split_at(b)->name; }
static const char *blabel(int b) { return be_split_at(b)->label; }

const char *sp_backend_name(int b) { return be_split_at(b) ? bname(b) : "?"; }
const char *sp_label(int b) { return be_split_at(b) ? blabel(b) : "?"; }

/* ---- loading ---- */

typedef struct {
    const char *path;
    sp_campaign *c;
    int copy;                      /* a run directory's copy: machines not looked up */
    gd_err *err;
} lctx;

static int line_of(xmlNodePtr n)
{
    long l = xmlGetLineNo(n);
    return l > 0 ? (int)l : 1;
}

static int is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static char *attr(xmlNodePtr n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static long attr_long(xmlNodePtr n, const char *name, long dflt)
{
    char *v = attr(n, name);
    long x = dflt;
    if (v && util_parse_long(v, 0, 1L << 40, &x) != 0)
        x = dflt;
    xmlFree(v);
    return x;
}

/* Whitespace-separated doubles of an attribute into out (max n). */
static int attr_doubles(xmlNodePtr n, const char *name, double *out, int max)
{
    char *v = attr(n, name);
    int k = 0;
    if (v) {
        for (char *save = NULL, *t = strtok_r(v, " \t\n", &save); t && k < max;
             t = strtok_r(NULL, " \t\n", &save))
            if (util_parse_double(t, &out[k]) == 0)
                k++;
    }
    xmlFree(v);
    return k;
}

static int lfail(lctx *x, xmlNodePtr n, const char *msg, const char *arg)
{
    return gd_errf(x->err, GD_EINPUT, "%s:%d: %s%s", x->path, line_of(n), msg,
                   arg ? arg : "");
}

static int parse_backend(lctx *x, xmlNodePtr n)
{
    char *b = attr(n, "name");
    int i = be_split_index(b);     /* the schema lists the names */
    if (i >= 0)
        x->c->backend = i;
    xmlFree(b);
    x->c->repeats = (int)attr_long(n, "repeats", 5);
    x->c->warmups = (int)attr_long(n, "warmups", 1);
    if (x->c->repeats > 1000 || x->c->warmups > 100)
        return lfail(x, n, "repeats must be at most 1000 and warmups at most 100", NULL);
    return GD_OK;
}

static int parse_machine(lctx *x, xmlNodePtr n, sp_mach *m)
{
    memset(m, 0, sizeof *m);
    m->line = line_of(n);
    char *name = attr(n, "name"), *file = attr(n, "file"), *probe = attr(n, "probe");
    util_strlcpy(m->name, name ? name : "", sizeof m->name);
    m->probe = probe && !strcmp(probe, "yes");
    int rc = GD_OK;
    if (file) {
        char dir[PATH_MAX];
        util_dirname(dir, sizeof dir, x->path);
        if (file[0] == '/')
            util_strlcpy(m->file, file, sizeof m->file);
        else
            util_path_join(m->file, sizeof m->file, dir, file);
        if (!x->copy && !util_path_exists(m->file))
            rc = lfail(x, n, "machine file not found: ", m->file);
    }
    if (!rc && m->probe && file)
        rc = lfail(x, n, "a machine is either probed or read from a file, not both", NULL);
    if (!rc && m->probe && !be_split_at(x->c->backend)->probes)
        rc = lfail(x, n, "probe=\"yes\" describes this machine by measurement; "
                   "it needs <backend name=\"measure-cpu\"/>", NULL);
    m->nslowdown = attr_doubles(n, "slowdown", m->slowdown, CM_MAXDEV);
    for (int i = 0; !rc && i < m->nslowdown; i++)
        if (!(m->slowdown[i] >= 1 && m->slowdown[i] <= 100))
            rc = lfail(x, n, "slowdown factors must be between 1 and 100", NULL);
    if (!rc && m->nslowdown && !m->probe)
        rc = lfail(x, n, "slowdown applies to probed machines; a machine file "
                   "sets each device's slowdown param", NULL);
    if (!rc && !m->probe && !file && !x->copy) {
        cm_machine tmp;
        gd_err e2 = {0, ""};
        if (mach_load(m->name, &tmp, &e2) != GD_OK)
            rc = gd_errf(x->err, GD_EINPUT, "%s:%d: %s", x->path, m->line, e2.msg);
    }
    xmlFree(name);
    xmlFree(file);
    xmlFree(probe);
    return rc;
}

static int parse_task(lctx *x, xmlNodePtr n, sp_task *t)
{
    memset(t, 0, sizeof *t);
    t->line = line_of(n);
    char *kind = attr(n, "kind"), *dtype = attr(n, "dtype");
    t->kind = cm_kind_parse(kind);
    t->dtype_bytes = dtype && !strcmp(dtype, "fp64") ? 8 : 4;
    xmlFree(kind);
    xmlFree(dtype);
    double s[SP_MAXSIZE + 1];
    int ns = attr_doubles(n, "sizes", s, SP_MAXSIZE + 1);
    if (ns > SP_MAXSIZE)
        return lfail(x, n, "at most 16 sizes per task", NULL);
    for (int i = 0; i < ns; i++) {
        if (s[i] < 1 || s[i] > 1e9)
            return lfail(x, n, "sizes must be between 1 and 1e9 units", NULL);
        t->sizes[t->nsizes++] = (long)s[i];
    }
    static const char *const need1[] = {NULL, NULL, "n", "cols", "k"};
    static const char *const need2[] = {NULL, NULL, "k", "iters", NULL};
    if (need1[t->kind]) {
        t->p1 = attr_long(n, need1[t->kind], 0);
        if (t->p1 < 1)
            return gd_errf(x->err, GD_EINPUT, "%s:%d: a %s task needs %s=\"...\"",
                           x->path, t->line, cm_kind_name(t->kind), need1[t->kind]);
    }
    if (need2[t->kind]) {
        t->p2 = attr_long(n, need2[t->kind], 0);
        if (t->p2 < 1)
            return gd_errf(x->err, GD_EINPUT, "%s:%d: a %s task needs %s=\"...\"",
                           x->path, t->line, cm_kind_name(t->kind), need2[t->kind]);
    }
    if (t->kind == CM_JACOBI && t->p1 < 3)
        return lfail(x, n, "jacobi needs cols >= 3", NULL);
    if (be_split_at(x->c->backend)->measure && t->dtype_bytes != 4)
        return lfail(x, n, "measured backends run fp32 kernels only; use "
                     "dtype=\"fp32\"", NULL);
    return GD_OK;
}

static int parse_policies(lctx *x, xmlNodePtr n)
{
    xmlChar *txt = xmlNodeGetContent(n);
    char *save = NULL;
    x->c->npol = 0;
    for (char *t = strtok_r((char *)txt, " \t\n", &save); t;
         t = strtok_r(NULL, " \t\n", &save)) {
        int p = cm_policy_parse(t), dup = 0;
        for (int i = 0; i < x->c->npol; i++)
            dup |= x->c->pol[i] == p;
        if (dup) {
            xmlFree(txt);
            return lfail(x, n, "policy listed twice: ", cm_policy_name(p));
        }
        x->c->pol[x->c->npol++] = p;
    }
    xmlFree(txt);
    int even = 0;
    for (int i = 0; i < x->c->npol; i++)
        even |= x->c->pol[i] == CM_POL_EVEN;
    if (!even)
        return lfail(x, n, "policies must include \"even\" (speedups are "
                     "reported over the even split)", NULL);
    return GD_OK;
}

static int parse_children(lctx *x, xmlNodePtr root)
{
    int rc = GD_OK;
    for (xmlNodePtr n = root->children; n && !rc; n = n->next)
        if (is_elem(n, "backend"))
            rc = parse_backend(x, n);
    for (xmlNodePtr n = root->children; n && !rc; n = n->next) {
        if (is_elem(n, "machines")) {
            for (xmlNodePtr m = n->children; m && !rc; m = m->next) {
                if (!is_elem(m, "machine"))
                    continue;
                if (x->c->nmach == SP_MAXMACH)
                    return lfail(x, m, "at most 8 machines", NULL);
                rc = parse_machine(x, m, &x->c->mach[x->c->nmach]);
                for (int i = 0; !rc && i < x->c->nmach; i++)
                    if (!strcmp(x->c->mach[i].name, x->c->mach[x->c->nmach].name))
                        rc = lfail(x, m, "machine listed twice: ", x->c->mach[i].name);
                x->c->nmach++;
            }
        } else if (is_elem(n, "tasks")) {
            for (xmlNodePtr t = n->children; t && !rc; t = t->next) {
                if (!is_elem(t, "task"))
                    continue;
                if (x->c->ntask == SP_MAXTASK)
                    return lfail(x, t, "at most 16 tasks", NULL);
                rc = parse_task(x, t, &x->c->task[x->c->ntask++]);
            }
        } else if (is_elem(n, "policies")) {
            rc = parse_policies(x, n);
        } else if (is_elem(n, "calibration")) {
            x->c->nladder = attr_doubles(n, "ladder", x->c->ladder, 8);
            if (x->c->nladder < 2)
                rc = lfail(x, n, "the calibration ladder needs 2 to 8 fractions", NULL);
            for (int i = 0; !rc && i < x->c->nladder; i++)
                if (!(x->c->ladder[i] > 0 && x->c->ladder[i] <= 1))
                    rc = lfail(x, n, "ladder fractions must be in (0, 1]", NULL);
        }
    }
    return rc;
}

static void campaign_defaults(sp_campaign *c)
{
    c->seed = 1;
    c->repeats = 5;
    c->warmups = 1;
    c->npol = CM_NPOL;
    for (int i = 0; i < CM_NPOL; i++)
        c->pol[i] = i;
    double lad[4] = {0.125, 0.25, 0.5, 1.0};
    memcpy(c->ladder, lad, sizeof lad);
    c->nladder = 4;
}

static int load_campaign(const char *path, int copy, sp_campaign *c,
                         gd_err *err)
{
    memset(c, 0, sizeof *c);
    campaign_defaults(c);
    util_strlcpy(c->path, path, sizeof c->path);
    xmlDocPtr doc;
    int rc = xs_read(path, "split study", &doc, err);
    if (rc)
        return rc;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (!root || !is_elem(root, "split-study"))
        rc = gd_errf(err, GD_EINPUT, "%s:%d: the root element of a split study "
                     "is <split-study>", path, root ? line_of(root) : 1);
    if (!rc)
        rc = xs_validate(path, doc, "split-study.rng", "split-study", err);
    if (!rc) {
        char *name = attr(root, "name"), *seed = attr(root, "seed");
        util_strlcpy(c->name, name ? name : "", sizeof c->name);
        if (seed)
            c->seed = strtoul(seed, NULL, 10);
        xmlFree(name);
        xmlFree(seed);
        lctx x = {path, c, copy, err};
        if (!camp_name_ok(c->name))
            rc = gd_errf(err, GD_EINPUT, "%s:%d: split study name \"%s\" is "
                         "not a plain file name (it names the run directory "
                         "runs/NAME/): use letters, digits, '_', '-' and '.', "
                         "not first a '.' or '-'", path, line_of(root),
                         c->name);
        if (!rc)
            rc = parse_children(&x, root);
    }
    xmlFreeDoc(doc);
    if (!rc)
        rc = util_sha256_file(path, c->sha256, err);
    return rc;
}

int sp_load(const char *path, sp_campaign *c, gd_err *err)
{
    return load_campaign(path, 0, c, err);
}

int sp_load_copy(const char *path, sp_campaign *c, gd_err *err)
{
    return load_campaign(path, 1, c, err);
}

void sp_task_at(const sp_task *ts, int si, cm_task *t)
{
    memset(t, 0, sizeof *t);
    t->kind = ts->kind;
    t->dims[0] = ts->sizes[si];
    t->dims[1] = ts->p1;
    t->dims[2] = ts->p2;
    t->dtype_bytes = ts->dtype_bytes;
}
