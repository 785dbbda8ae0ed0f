/* workload: read workload descriptors (XML, libxml2 without network, DTDs or
 * entity substitution) into wl_workload, and list the built-in ones. */
#include "workload.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define WL_MAXBUILTIN 256

/* One numeric attribute of <kernel>, <mix> or <params>. */
typedef struct {
    const char *elem;      /* "kernel", "mix" or "params" */
    const char *attr;
    size_t off;            /* offset in wl_kernel */
    int is_int;
    int required;
    double lo, hi;         /* allowed closed range */
    double def;            /* default when optional and absent */
    int omit_default;      /* written only when not def (calibration record) */
} wl_field;

#define KF(f) offsetof(wl_kernel, f)
static const wl_field wl_fields[] = {
    {"kernel", "grid_ctas", KF(grid_ctas), 1, 1, 1, 1 << 30, 0, 0},
    {"kernel", "threads_per_cta", KF(threads_per_cta), 1, 1, 1, 1536, 0, 0},
    {"kernel", "launches", KF(launches), 1, 0, 1, 1 << 20, 1, 0},
    {"kernel", "regs_per_thread", KF(regs_per_thread), 1, 1, 0, 255, 0, 0},
    {"kernel", "smem_per_cta", KF(smem_per_cta), 1, 1, 0, 1 << 20, 0, 0},
    {"mix", "thread_insns", KF(thread_insns), 0, 1, 1e-9, 1e12, 0, 0},
    {"mix", "warp_insns", KF(warp_insns), 0, 1, 1e-9, 1e12, 0, 0},
    {"mix", "sfu", KF(insn_sfu), 0, 0, 0, 1e12, 0, 0},
    {"mix", "ld_global", KF(insn_ld_global), 0, 0, 0, 1e12, 0, 0},
    {"mix", "st_global", KF(insn_st_global), 0, 0, 0, 1e12, 0, 0},
    {"mix", "shared", KF(insn_shared), 0, 0, 0, 1e12, 0, 0},
    {"mix", "const", KF(insn_const), 0, 0, 0, 1e12, 0, 0},
    {"mix", "atomic", KF(insn_atomic), 0, 0, 0, 1e12, 0, 0},
    {"mix", "sync", KF(insn_sync), 0, 0, 0, 1e12, 0, 0},
    {"params", "ld_tx", KF(ld_tx), 0, 0, 1, 32, 1, 0},
    {"params", "st_tx", KF(st_tx), 0, 0, 1, 32, 1, 0},
    {"params", "st_sectors", KF(st_sectors), 0, 0, 1, 4, 4, 0},
    {"params", "atom_tx", KF(atom_tx), 0, 0, 1, 32, 1, 0},
    {"params", "atom_hot", KF(atom_hot), 0, 0, 0, 1, 0.1, 0},
    {"params", "shared_conflict", KF(shared_conflict), 0, 0, 1, 32, 1, 0},
    {"params", "const_conflict", KF(const_conflict), 0, 0, 1, 32, 1, 0},
    {"params", "code_lines", KF(code_lines), 0, 0, 0, 1 << 16, 0, 0},
    {"params", "const_lines", KF(const_lines), 0, 0, 0, 1 << 16, 0, 0},
    {"params", "fetches", KF(fetches), 0, 0, 0, 1e12, 0, 0},
    {"params", "l1_reuse", KF(l1_reuse), 0, 0, 0, 1, 0, 0},
    {"params", "footprint_kb_per_cta", KF(footprint_kb_per_cta), 0, 0, 0, 1e9, 0, 0},
    {"params", "l2_reuse", KF(l2_reuse), 0, 0, 0, 1, 0, 0},
    {"params", "footprint_kb_total", KF(footprint_kb_total), 0, 0, 0, 1e12, 0, 0},
    {"params", "read_share", KF(read_share), 0, 0, 0, 1, 0, 0},
    {"params", "st_stride", KF(st_stride), 0, 0, 0, 1 << 20, 0, 0},
    {"params", "st_group", KF(st_group), 0, 0, 0, 1 << 30, 0, 0},
    {"params", "ilp", KF(ilp), 0, 0, 1, 64, 1, 0},
    {"params", "mem_waits", KF(mem_waits), 0, 0, 0, 1e12, 0, 0},
    {"params", "mem_eff", KF(mem_eff), 0, 0, 0.05, 1, 1, 0},
    {"params", "cal_rows", KF(cal_rows), 0, 0, 0, 1e9, 0, 1},
    {"params", "cal_log_sd", KF(cal_log_sd), 0, 0, 0, 10, 0, 1},
    {"params", "cal_sm_min", KF(cal_sm_min), 0, 0, 0, 1e6, 0, 1},
    {"params", "cal_sm_max", KF(cal_sm_max), 0, 0, 0, 1e6, 0, 1},
    {"params", "cal_mem_min", KF(cal_mem_min), 0, 0, 0, 1e6, 0, 1},
    {"params", "cal_mem_max", KF(cal_mem_max), 0, 0, 0, 1e6, 0, 1},
    {"params", "cal_l1_min", KF(cal_l1_min), 0, 0, 0, 1e6, 0, 1},
    {"params", "cal_l1_max", KF(cal_l1_max), 0, 0, 0, 1e6, 0, 1},
    {"params", "cal_l2_min", KF(cal_l2_min), 0, 0, 0, 1e6, 0, 1},
    {"params", "cal_l2_max", KF(cal_l2_max), 0, 0, 0, 1e6, 0, 1},
};
#undef KF
#define WL_NFIELDS (sizeof wl_fields / sizeof wl_fields[0])

static int node_line(xmlNodePtr n)
{
    long l = n ? xmlGetLineNo(n) : 0;
    return l > 0 && l < INT_MAX ? (int)l : 1;
}

static int is_elem(xmlNodePtr n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE
           && strcmp((const char *)n->name, name) == 0;
}

/* Copy attribute `name` of n into out; 1 when present, 0 when absent. */
static int get_attr(xmlNodePtr n, const char *name, char *out, size_t outsz)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return 0;
    util_strlcpy(out, (const char *)v, outsz);
    xmlFree(v);
    return 1;
}

static int name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
              || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'
              || *s == '.'))
            return 0;
    return 1;
}

/* Reject attributes not in the element's table (catches typos). */
static int check_attrs(const char *path, xmlNodePtr n, const char *elem,
                       const char *const *extra, gd_err *err)
{
    for (xmlAttrPtr a = n->properties; a; a = a->next) {
        const char *an = (const char *)a->name;
        int ok = 0;
        for (size_t i = 0; i < WL_NFIELDS && !ok; i++)
            ok = strcmp(wl_fields[i].elem, elem) == 0
                 && strcmp(wl_fields[i].attr, an) == 0;
        for (size_t i = 0; extra && extra[i] && !ok; i++)
            ok = strcmp(extra[i], an) == 0;
        if (!ok)
            return gd_errf(err, GD_EINPUT,
                           "%s:%d: unknown attribute '%s' on <%s>", path,
                           node_line(n), an, elem);
    }
    return GD_OK;
}

/* Read the numeric attributes of one element into k. */
static int read_fields(const char *path, xmlNodePtr n, const char *elem,
                       wl_kernel *k, gd_err *err)
{
    for (size_t i = 0; i < WL_NFIELDS; i++) {
        const wl_field *f = &wl_fields[i];
        if (strcmp(f->elem, elem) != 0)
            continue;
        char txt[128];
        double v = f->def;
        if (n && get_attr(n, f->attr, txt, sizeof txt)) {
            if (util_parse_double(txt, &v) != 0)
                return gd_errf(err, GD_EINPUT,
                               "%s:%d: <%s %s=\"%s\">: not a number", path,
                               node_line(n), elem, f->attr, txt);
            if (f->is_int && v != floor(v))
                return gd_errf(err, GD_EINPUT,
                               "%s:%d: <%s %s=\"%s\">: must be an integer",
                               path, node_line(n), elem, f->attr, txt);
        } else if (f->required) {
            return gd_errf(err, GD_EINPUT,
                           "%s:%d: <%s> lacks the required attribute '%s'",
                           path, node_line(n), elem, f->attr);
        }
        if (v < f->lo || v > f->hi)
            return gd_errf(err, GD_EINPUT,
                           "%s:%d: <%s %s=\"%g\">: out of range [%g, %g]",
                           path, node_line(n), elem, f->attr, v, f->lo,
                           f->hi);
        char *p = (char *)k + f->off;
        if (f->is_int)
            *(int *)p = (int)v;
        else
            *(double *)p = v;
    }
    return GD_OK;
}

/* Values written at 9 significant digits may come back this far (relative)
 * past a bound they met exactly: classes that fill the warp (from-log's
 * inferred sfu), thread_insns equal to warp_insns. */
#define MIX_ROUNDING 1e-7

static double class_sum(const wl_kernel *k)
{
    return k->insn_sfu + k->insn_ld_global + k->insn_st_global
           + k->insn_shared + k->insn_const + k->insn_atomic + k->insn_sync;
}

/* 1 when the mix can be one warp's; else 0 with "kernel 'NAME': ..." in
 * why. */
static int mix_consistent(const wl_kernel *k, char *why, size_t n)
{
    double other = class_sum(k);
    if (other > k->warp_insns * (1 + MIX_ROUNDING)) {
        snprintf(why, n, "kernel '%s': the instruction classes add up to %g, "
                 "more than warp_insns=%g", k->name, other, k->warp_insns);
        return 0;
    }
    if (k->thread_insns > k->warp_insns * (1 + MIX_ROUNDING)) {
        snprintf(why, n, "kernel '%s': thread_insns=%g exceeds warp_insns=%g "
                 "(a thread cannot execute more than its warp)", k->name,
                 k->thread_insns, k->warp_insns);
        return 0;
    }
    return 1;
}

/* Derived fields and cross-field checks of one kernel. */
static int finish_kernel(const char *path, int line, wl_kernel *k,
                         gd_err *err)
{
    char why[512];
    if (!mix_consistent(k, why, sizeof why))
        return gd_errf(err, GD_EINPUT, "%s:%d: %s", path, line, why);
    k->insn_alu = fmax(0, k->warp_insns - class_sum(k));
    return GD_OK;
}

int wl_check_kernel(const wl_kernel *k, gd_err *err)
{
    for (size_t i = 0; i < WL_NFIELDS; i++) {
        const wl_field *f = &wl_fields[i];
        const char *p = (const char *)k + f->off;
        double v = f->is_int ? *(const int *)p : *(const double *)p;
        if (!isfinite(v) || v < f->lo || v > f->hi)
            return gd_errf(err, GD_EINPUT, "kernel '%s': %s=%g is out of "
                           "range [%g, %g]", k->name, f->attr, v, f->lo,
                           f->hi);
    }
    char why[512];
    if (!mix_consistent(k, why, sizeof why))
        return gd_errf(err, GD_EINPUT, "%s", why);
    return GD_OK;
}

static int parse_kernel(const char *path, xmlNodePtr n, wl_kernel *k,
                        gd_err *err)
{
    static const char *const kextra[] = {"name", NULL};
    memset(k, 0, sizeof *k);
    int rc = check_attrs(path, n, "kernel", kextra, err);
    if (rc)
        return rc;
    if (!get_attr(n, "name", k->name, sizeof k->name) || !name_ok(k->name))
        return gd_errf(err, GD_EINPUT,
                       "%s:%d: <kernel> needs a name of letters, digits, "
                       "'_', '-' or '.'", path, node_line(n));
    if ((rc = read_fields(path, n, "kernel", k, err)))
        return rc;
    xmlNodePtr mix = NULL, params = NULL;
    for (xmlNodePtr c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        xmlNodePtr *slot = is_elem(c, "mix") ? &mix
                           : is_elem(c, "params") ? &params : NULL;
        if (!slot)
            return gd_errf(err, GD_EINPUT,
                           "%s:%d: unexpected <%s> in <kernel> (expected "
                           "<mix> and <params>)", path, node_line(c),
                           (const char *)c->name);
        if (*slot)
            return gd_errf(err, GD_EINPUT, "%s:%d: second <%s> in <kernel>",
                           path, node_line(c), (const char *)c->name);
        *slot = c;
    }
    if (!mix)
        return gd_errf(err, GD_EINPUT, "%s:%d: <kernel name=\"%s\"> has no "
                       "<mix>", path, node_line(n), k->name);
    if ((rc = check_attrs(path, mix, "mix", NULL, err))
        || (rc = read_fields(path, mix, "mix", k, err)))
        return rc;
    if (params && (rc = check_attrs(path, params, "params", NULL, err)))
        return rc;
    if ((rc = read_fields(path, params, "params", k, err)))
        return rc;
    if (!params || !xmlHasProp(params, (const xmlChar *)"mem_waits"))
        k->mem_waits = k->insn_ld_global > 0 ? 1 : 0;
    return finish_kernel(path, node_line(n), k, err);
}

static int parse_root(const char *path, xmlNodePtr root, wl_workload *w,
                      gd_err *err)
{
    static const char *const rextra[] = {"name", "description", NULL};
    if (!is_elem(root, "workload"))
        return gd_errf(err, GD_EINPUT,
                       "%s:%d: root element must be <workload>, not <%s>",
                       path, node_line(root),
                       root ? (const char *)root->name : "(none)");
    int rc = check_attrs(path, root, "workload", rextra, err);
    if (rc)
        return rc;
    if (!get_attr(root, "name", w->name, sizeof w->name) || !name_ok(w->name))
        return gd_errf(err, GD_EINPUT,
                       "%s:%d: <workload> needs a name of letters, digits, "
                       "'_', '-' or '.'", path, node_line(root));
    get_attr(root, "description", w->description, sizeof w->description);
    for (xmlNodePtr c = root->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (!is_elem(c, "kernel"))
            return gd_errf(err, GD_EINPUT,
                           "%s:%d: unexpected <%s> in <workload> (expected "
                           "<kernel>)", path, node_line(c),
                           (const char *)c->name);
        if (w->nkernels == WL_MAXKERNELS)
            return gd_errf(err, GD_EINPUT, "%s:%d: more than %d kernels",
                           path, node_line(c), WL_MAXKERNELS);
        if ((rc = parse_kernel(path, c, &w->k[w->nkernels], err)))
            return rc;
        w->nkernels++;
    }
    if (w->nkernels == 0)
        return gd_errf(err, GD_EINPUT, "%s:%d: <workload name=\"%s\"> has no "
                       "<kernel>", path, node_line(root), w->name);
    return GD_OK;
}

/* Parse buf (the bytes of path); no network, no DTD, no entity expansion. */
static int parse_buf(const char *path, const char *buf, size_t len,
                     wl_workload *w, gd_err *err)
{
    if (len > INT_MAX)
        return gd_errf(err, GD_EINPUT, "%s:1: file too large", path);
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return gd_errf(err, GD_EENV, "%s: cannot allocate an XML parser",
                       path);
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, buf, (int)len, path, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR
                                      | XML_PARSE_NOWARNING);
    int rc;
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        char msg[512] = "not well-formed XML";
        if (e && e->message) {
            util_strlcpy(msg, e->message, sizeof msg);
            size_t n = strlen(msg);
            while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
                msg[--n] = '\0';
        }
        rc = gd_errf(err, GD_EINPUT, "%s:%d: %s", path,
                     e && e->line > 0 ? e->line : 1, msg);
    } else if (doc->intSubset || doc->extSubset) {
        rc = gd_errf(err, GD_EINPUT,
                     "%s:%d: a DOCTYPE is not allowed in a workload "
                     "descriptor", path,
                     node_line((xmlNodePtr)(doc->intSubset ? doc->intSubset
                                                           : doc->extSubset)));
    } else {
        rc = parse_root(path, xmlDocGetRootElement(doc), w, err);
    }
    if (doc)
        xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    return rc;
}

int wl_load_file(const char *path, wl_workload *out, gd_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = util_read_input(path, UTIL_INPUT_MAX, &buf, &len, err);
    if (rc) {
        /* A missing or unreadable descriptor is bad input from the user. */
        if (err && err->code != GD_EINPUT)
            err->code = GD_EINPUT;
        return GD_EINPUT;
    }
    memset(out, 0, sizeof *out);
    util_strlcpy(out->path, path, sizeof out->path);
    util_sha256_hex(buf, len, out->sha256);
    rc = parse_buf(path, buf, len, out, err);
    free(buf);
    return rc;
}

/* Attribute text of s with XML's special characters escaped. */
static void put_escaped(FILE *fp, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default: fputc(*s, fp);
        }
    }
}

/* Comment text: no "--" (not allowed in XML comments), no trailing '-'. */
static void put_comment(FILE *fp, const char *s)
{
    fputs("<!-- ", fp);
    for (; *s; s++)
        fputc(*s == '-' && (s[1] == '-' || s[1] == '\0') ? '~' : *s, fp);
    fputs(" -->\n", fp);
}

static void put_fields(FILE *fp, const wl_kernel *k, const char *elem)
{
    int col = 0;
    for (size_t i = 0; i < WL_NFIELDS; i++) {
        const wl_field *f = &wl_fields[i];
        if (strcmp(f->elem, elem) != 0)
            continue;
        const char *p = (const char *)k + f->off;
        if (f->omit_default && !f->is_int && *(const double *)p == f->def)
            continue;
        if (col++ && col % 6 == 1)
            fputs("\n     ", fp);
        if (f->is_int)
            fprintf(fp, " %s=\"%d\"", f->attr, *(const int *)p);
        else
            fprintf(fp, " %s=\"%.9g\"", f->attr, *(const double *)p);
    }
}

int wl_to_xml(const wl_workload *w, const char *comment, char **out,
              gd_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return gd_errf(err, GD_EENV, "cannot allocate a descriptor buffer");
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
    if (comment && *comment)
        put_comment(fp, comment);
    fprintf(fp, "<workload name=\"");
    put_escaped(fp, w->name);
    fputs("\" description=\"", fp);
    put_escaped(fp, w->description);
    fputs("\">\n", fp);
    for (int i = 0; i < w->nkernels; i++) {
        const wl_kernel *k = &w->k[i];
        fputs("  <kernel name=\"", fp);
        put_escaped(fp, k->name);
        fputc('"', fp);
        put_fields(fp, k, "kernel");
        fputs(">\n    <mix", fp);
        put_fields(fp, k, "mix");
        fputs("/>\n    <params", fp);
        put_fields(fp, k, "params");
        fputs("/>\n  </kernel>\n", fp);
    }
    fputs("</workload>\n", fp);
    if (fclose(fp) != 0 || !buf) {
        free(buf);
        return gd_errf(err, GD_EENV, "cannot write a descriptor buffer");
    }
    *out = buf;
    return GD_OK;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static int workloads_dir(char *out, size_t outsz, gd_err *err)
{
    char data[PATH_MAX];
    int rc = util_datadir(data, sizeof data, err);
    if (rc)
        return rc;
    return util_path_join(out, outsz, data, "workloads") == GD_OK
               ? GD_OK
               : gd_errf(err, GD_EENV, "%s/workloads: path too long", data);
}

int wl_list_builtin(char names[][WL_NAMELEN], int max, gd_err *err)
{
    char dir[PATH_MAX];
    if (workloads_dir(dir, sizeof dir, err))
        return -1;
    DIR *d = opendir(dir);
    if (!d) {
        gd_errf(err, GD_EENV, "%s: cannot list the built-in workloads", dir);
        return -1;
    }
    static const size_t cap = WL_MAXBUILTIN;
    char (*all)[WL_NAMELEN] = calloc(cap, WL_NAMELEN);
    if (!all) {
        closedir(d);
        gd_errf(err, GD_EENV, "out of memory listing %s", dir);
        return -1;
    }
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < cap;) {
        size_t l = strlen(e->d_name);
        if (l <= 4 || l - 4 >= WL_NAMELEN || e->d_name[0] == '.'
            || strcmp(e->d_name + l - 4, ".xml") != 0)
            continue;
        memcpy(all[n], e->d_name, l - 4);
        all[n][l - 4] = '\0';
        n++;
    }
    closedir(d);
    qsort(all, n, WL_NAMELEN, cmp_names);
    int cnt = (int)(n < (size_t)(max > 0 ? max : 0) ? n : (size_t)max);
    for (int i = 0; i < cnt; i++)
        memcpy(names[i], all[i], WL_NAMELEN);
    free(all);
    return cnt;
}

/* The GD_EINPUT error for an unknown built-in: list them, suggest one. */
static int unknown_builtin(const char *name, gd_err *err)
{
    char names[64][WL_NAMELEN];
    gd_err e2;
    int n = wl_list_builtin(names, 64, &e2);
    char list[1024] = "";
    const char *best = NULL;
    int bestd = 3;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
        int dist = util_edit_distance(name, names[i]);
        if (dist < bestd) {
            bestd = dist;
            best = names[i];
        }
    }
    if (best)
        return gd_errf(err, GD_EINPUT, "unknown workload '%s' (did you mean "
                       "'%s'?); built-in workloads: %s", name, best, list);
    return gd_errf(err, GD_EINPUT, "unknown workload '%s'; built-in "
                   "workloads: %s", name, n > 0 ? list : "(none found)");
}

int wl_load_builtin(const char *name, wl_workload *out, gd_err *err)
{
    if (!name || !name_ok(name) || strlen(name) >= WL_NAMELEN)
        return unknown_builtin(name ? name : "", err);
    char dir[PATH_MAX], file[WL_NAMELEN + 8], path[PATH_MAX];
    int rc = workloads_dir(dir, sizeof dir, err);
    if (rc)
        return rc;
    snprintf(file, sizeof file, "%s.xml", name);
    if (util_path_join(path, sizeof path, dir, file) != GD_OK)
        return gd_errf(err, GD_EENV, "%s/%s: path too long", dir, file);
    if (!util_path_exists(path))
        return unknown_builtin(name, err);
    if ((rc = wl_load_file(path, out, err)))
        return rc;
    if (strcmp(out->name, name) != 0)
        return gd_errf(err, GD_EINPUT, "%s:1: built-in descriptor names "
                       "workload '%s', expected '%s' (its file name)", path,
                       out->name, name);
    return GD_OK;
}

int wl_load_named(const char *what, wl_workload *out, gd_err *err)
{
    size_t l = strlen(what);
    if (util_path_exists(what) || strchr(what, '/')
        || (l > 4 && strcmp(what + l - 4, ".xml") == 0))
        return wl_load_file(what, out, err);
    return wl_load_builtin(what, out, err);
}
