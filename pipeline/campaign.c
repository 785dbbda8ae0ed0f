/* campaign: parse a campaign XML file with libxml2 (no network, no external
 * entities, no DTDs), validate it against templates/campaign.rng, then check
 * its meaning. Every error is "FILE:LINE: message" with exit class 2. */
#include "campaign.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>

#include "backend.h"
#include "strategy.h"

/* The first schema or parser error, captured by the structured handler. */
typedef struct {
    int seen;
    int line;
    char msg[512];
} first_error;

static void capture_error(void *ctx, xmlErrorPtr e)
{
    first_error *fe = ctx;
    if (fe->seen || !e || e->level < XML_ERR_ERROR)
        return;
    fe->seen = 1;
    fe->line = e->line;
    util_strlcpy(fe->msg, e->message ? e->message : "invalid XML",
                 sizeof fe->msg);
    size_t n = strlen(fe->msg);
    while (n && (fe->msg[n - 1] == '\n' || fe->msg[n - 1] == ' '))
        fe->msg[--n] = '\0';
}

static const int XML_SAFE = XML_PARSE_NONET | XML_PARSE_NOCDATA;

static int read_doc(const char *path, xmlDocPtr *out, gd_err *err)
{
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: no such file", path);
    first_error fe = {0};
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx)
        return gd_errf(err, GD_EENV, "out of memory");
    xmlSetStructuredErrorFunc(&fe, capture_error);
    xmlDocPtr doc = xmlCtxtReadFile(ctx, path, NULL, XML_SAFE);
    xmlSetStructuredErrorFunc(NULL, NULL);
    xmlFreeParserCtxt(ctx);
    if (!doc || fe.seen) {
        xmlFreeDoc(doc);
        return gd_errf(err, GD_EINPUT, "%s:%d: not well-formed XML: %s", path,
                       fe.line > 0 ? fe.line : 1,
                       fe.seen ? fe.msg : "cannot parse");
    }
    if (doc->intSubset || doc->extSubset) {
        int line = doc->intSubset ? (int)xmlGetLineNo((xmlNodePtr)doc->intSubset) : 1;
        xmlFreeDoc(doc);
        return gd_errf(err, GD_EINPUT, "%s:%d: a DOCTYPE is not allowed in a "
                       "campaign (entities are never expanded)", path,
                       line > 0 ? line : 1);
    }
    *out = doc;
    return GD_OK;
}

/* Which elements may appear inside which. RELAX NG's own message for a
 * stray element inside an interleave points at the parent and talks about a
 * missing sibling; this pass names the stray element, its line and the
 * closest known name before the schema runs. */
static const struct {
    const char *parent;
    const char *children[10];
} known_children[] = {
    {"campaign", {"description", "simulator", "workloads", "space",
                  "objectives", "search", "execution", "report", NULL}},
    {"workloads", {"workload", NULL}},
    {"space", {"knob", NULL}},
    {"objectives", {"maximize", "minimize", NULL}},
};

static const char *const *children_of(const char *parent)
{
    for (size_t i = 0; i < sizeof known_children / sizeof known_children[0];
         i++)
        if (strcmp(known_children[i].parent, parent) == 0)
            return known_children[i].children;
    return NULL;
}

static int check_elements(const char *path, xmlNodePtr parent, gd_err *err)
{
    static const char *const none[] = {NULL};
    const char *const *ok = children_of((const char *)parent->name);
    if (!ok)
        ok = none;
    for (xmlNodePtr n = parent->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *name = (const char *)n->name, *best = NULL;
        int found = 0, bestd = 1 << 30;
        for (int i = 0; ok[i]; i++) {
            int d = util_edit_distance(name, ok[i]);
            found |= d == 0;
            if (d < bestd) {
                bestd = d;
                best = ok[i];
            }
        }
        if (!found) {
            char hint[128] = "";
            if (best && bestd <= (int)strlen(name) / 3 + 1)
                snprintf(hint, sizeof hint, "; did you mean <%s>?", best);
            return gd_errf(err, GD_EINPUT, "%s:%ld: unknown element <%s> "
                           "inside <%s>%s", path, xmlGetLineNo(n), name,
                           (const char *)parent->name, hint);
        }
        int rc = check_elements(path, n, err);
        if (rc)
            return rc;
    }
    return GD_OK;
}

static int schema_check(const char *path, xmlDocPtr doc, gd_err *err)
{
    char dir[PATH_MAX], rng[PATH_MAX];
    int rc = util_datadir(dir, sizeof dir, err);
    if (rc)
        return rc;
    util_path_join(rng, sizeof rng, dir, "campaign.rng");
    xmlRelaxNGParserCtxtPtr pctx = xmlRelaxNGNewParserCtxt(rng);
    xmlRelaxNGPtr schema = pctx ? xmlRelaxNGParse(pctx) : NULL;
    xmlRelaxNGFreeParserCtxt(pctx);
    if (!schema)
        return gd_errf(err, GD_EENV, "%s: cannot load the campaign schema",
                       rng);
    xmlRelaxNGValidCtxtPtr vctx = xmlRelaxNGNewValidCtxt(schema);
    first_error fe = {0};
    xmlRelaxNGSetValidStructuredErrors(vctx, capture_error, &fe);
    int bad = xmlRelaxNGValidateDoc(vctx, doc);
    xmlRelaxNGFreeValidCtxt(vctx);
    xmlRelaxNGFree(schema);
    if (bad == 0)
        return GD_OK;
    return gd_errf(err, GD_EINPUT, "%s:%d: does not match the campaign "
                   "schema: %s", path, fe.line > 0 ? fe.line : 1,
                   fe.seen ? fe.msg : "invalid");
}

/* ---- meaning checks ---- */

typedef struct {
    const char *path;
    camp_campaign *c;
    gd_err *err;
    int names_only;        /* do not load workload descriptors */
} ctx_t;

static int line_of(xmlNodePtr n)
{
    long l = xmlGetLineNo(n);
    return l > 0 ? (int)l : 1;
}

/* Attribute as a malloc'd string (caller frees with xmlFree), or NULL. */
static char *attr(xmlNodePtr n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static int is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE
           && strcmp((const char *)n->name, name) == 0;
}

static int fail(ctx_t *x, xmlNodePtr n, const char *fmt, const char *a,
                const char *b)
{
    char msg[1024];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    return gd_errf(x->err, GD_EINPUT, "%s:%d: %s", x->path, line_of(n), msg);
}

static int parse_simulator(ctx_t *x, xmlNodePtr n)
{
    char *b = attr(n, "backend");
    int rc = GD_OK;
    if (!be_find(b))
        rc = fail(x, n, "unknown simulator backend \"%s\" (known: analytic)",
                  b, NULL);
    else
        util_strlcpy(x->c->backend, b, sizeof x->c->backend);
    xmlFree(b);
    return rc;
}

static int suggest_workload(const char *name, char *out, size_t n)
{
    char names[64][WL_NAMELEN];
    int cnt = wl_list_builtin(names, 64, NULL);
    int best = -1, bestd = 1 << 30;
    out[0] = '\0';
    for (int i = 0; i < cnt; i++) {
        int d = util_edit_distance(name, names[i]);
        if (d < bestd) {
            bestd = d;
            best = i;
        }
        if (strlen(out) + strlen(names[i]) + 3 < n) {
            if (i)
                strcat(out, ", ");
            strcat(out, names[i]);
        }
    }
    return (best >= 0 && bestd <= (int)strlen(name) / 3 + 1) ? best : -1;
}

static int load_workload(ctx_t *x, xmlNodePtr n, wl_workload *w)
{
    char *name = attr(n, "name"), *file = attr(n, "file");
    int rc;
    if (file) {
        char p[PATH_MAX];
        util_path_join(p, sizeof p, x->c->dir, file);
        rc = wl_load_file(p, w, x->err);
        if (!rc)
            util_strlcpy(w->name, name, sizeof w->name);
    } else {
        gd_err why = {0, ""};
        rc = wl_load_builtin(name, w, &why);
        char list[1024], names[64][WL_NAMELEN];
        int best = rc ? suggest_workload(name, list, sizeof list) : -1;
        int cnt = rc ? wl_list_builtin(names, 64, NULL) : 0;
        int exists = 0;
        for (int i = 0; i < cnt; i++)
            exists |= strcmp(names[i], name) == 0;
        if (rc && exists) {
            /* The built-in descriptor itself is broken: say where. */
            rc = gd_errf(x->err, why.code, "%s", why.msg);
        } else if (rc) {
            char hint[256] = "";
            if (best >= 0 && best < cnt)
                snprintf(hint, sizeof hint, "did you mean \"%s\"? ",
                         names[best]);
            char msg[1400];
            snprintf(msg, sizeof msg, "%sbuilt-in workloads: %s; or give a "
                     "descriptor with file=\"...\"", hint, list);
            rc = fail(x, n, "unknown workload \"%s\": %s", name, msg);
        }
    }
    xmlFree(name);
    xmlFree(file);
    return rc;
}

static int parse_workloads(ctx_t *x, xmlNodePtr list)
{
    int count = 0;
    for (xmlNodePtr n = list->children; n; n = n->next)
        count += is_elem(n, "workload");
    if (count > CAMP_MAXWL)
        return fail(x, list, "too many workloads (at most 64)", NULL, NULL);
    x->c->workloads = calloc((size_t)count, sizeof *x->c->workloads);
    if (!x->c->workloads)
        return gd_errf(x->err, GD_EENV, "out of memory");
    for (xmlNodePtr n = list->children; n; n = n->next) {
        if (!is_elem(n, "workload"))
            continue;
        char *name = attr(n, "name");
        int dup = 0;
        for (int i = 0; i < x->c->nworkloads; i++)
            dup |= strcmp(x->c->workloads[i].name, name) == 0;
        wl_workload *w = &x->c->workloads[x->c->nworkloads];
        int rc = GD_OK;
        if (dup)
            rc = fail(x, n, "workload \"%s\" is listed twice", name, NULL);
        else if (x->names_only)
            util_strlcpy(w->name, name, sizeof w->name);
        else
            rc = load_workload(x, n, w);
        xmlFree(name);
        if (rc)
            return rc;
        x->c->nworkloads++;
    }
    return GD_OK;
}

static int parse_knob_values(ctx_t *x, xmlNodePtr n, int knob,
                             const char *values)
{
    space_def *s = &x->c->space;
    char buf[1024];
    util_strlcpy(buf, values, sizeof buf);
    s->nlevels[knob] = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t\n,", &save); t;
         t = strtok_r(NULL, " \t\n,", &save)) {
        int v;
        const space_knob_def *d = space_knob_get(knob);
        if (space_value_parse(knob, t, &v) != 0) {
            char allowed[256] = "", tmp[32];
            for (int i = 0; i < d->nlevels; i++) {
                strcat(allowed, i ? " " : "");
                strcat(allowed, space_value_str(knob, d->levels[i], tmp,
                                                sizeof tmp));
            }
            char what[320];
            snprintf(what, sizeof what, "%s (allowed: %s)", d->name, allowed);
            return fail(x, n, "value \"%s\" is not allowed for knob %s", t,
                        what);
        }
        for (int i = 0; i < s->nlevels[knob]; i++)
            if (s->levels[knob][i] == v)
                return fail(x, n, "value \"%s\" is listed twice for knob %s",
                            t, d->name);
        s->levels[knob][s->nlevels[knob]++] = v;
    }
    if (s->nlevels[knob] == 0)
        return fail(x, n, "knob %s has no values", space_knob_get(knob)->name,
                    NULL);
    return GD_OK;
}

static int parse_space(ctx_t *x, xmlNodePtr list)
{
    int seen[SPACE_NKNOBS] = {0};
    for (xmlNodePtr n = list->children; n; n = n->next) {
        if (!is_elem(n, "knob"))
            continue;
        char *name = attr(n, "name"), *values = attr(n, "values");
        int k = space_knob_find(name), rc = GD_OK;
        if (k < 0) {
            const char *s = space_knob_suggest(name);
            char hint[128] = "";
            if (s)
                snprintf(hint, sizeof hint, "; did you mean \"%s\"?", s);
            rc = fail(x, n, "unknown knob \"%s\"%s", name, hint);
        } else if (seen[k]) {
            rc = fail(x, n, "knob %s is listed twice", name, NULL);
        } else {
            seen[k] = 1;
            rc = parse_knob_values(x, n, k, values);
        }
        xmlFree(name);
        xmlFree(values);
        if (rc)
            return rc;
    }
    return GD_OK;
}

static int parse_objectives(ctx_t *x, xmlNodePtr list)
{
    const be_backend *b = be_find(x->c->backend);
    for (xmlNodePtr n = list->children; n; n = n->next) {
        int maxi = is_elem(n, "maximize");
        if (!maxi && !is_elem(n, "minimize"))
            continue;
        char *m = attr(n, "metric");
        int rc = GD_OK;
        if (!b->has_metric(m))
            rc = fail(x, n, "objective on unknown metric \"%s\" (the %s "
                      "backend does not produce it)", m, x->c->backend);
        for (int i = 0; !rc && i < x->c->nobjectives; i++)
            if (strcmp(x->c->obj[i].metric, m) == 0)
                rc = fail(x, n, "metric \"%s\" is an objective twice", m,
                          NULL);
        if (!rc && x->c->nobjectives == CAMP_MAXOBJ)
            rc = fail(x, n, "too many objectives (at most 8)", NULL, NULL);
        if (!rc) {
            camp_objective *o = &x->c->obj[x->c->nobjectives++];
            util_strlcpy(o->metric, m, sizeof o->metric);
            o->maximize = maxi;
        }
        xmlFree(m);
        if (rc)
            return rc;
    }
    return GD_OK;
}

static int parse_search(ctx_t *x, xmlNodePtr n)
{
    char *s = attr(n, "strategy"), *b = attr(n, "budget");
    long budget = 0;
    int rc = GD_OK;
    if (!strat_known(s))
        rc = fail(x, n, "unknown search strategy \"%s\" (known: exhaustive, "
                  "random)", s, NULL);
    else if (util_parse_long(b, LONG_MIN, LONG_MAX, &budget) || budget < 1)
        rc = fail(x, n, "budget must be at least 1 evaluation per workload "
                  "(got \"%s\")", b, NULL);
    if (!rc) {
        util_strlcpy(x->c->strategy, s, sizeof x->c->strategy);
        x->c->budget = budget;
    }
    xmlFree(s);
    xmlFree(b);
    return rc;
}

static int parse_execution(ctx_t *x, xmlNodePtr n)
{
    char *j = attr(n, "jobs"), *t = attr(n, "timeout"), *r = attr(n, "retries");
    long lv;
    double dv;
    int rc = GD_OK;
    if (j && (util_parse_long(j, 0, 4096, &lv) != 0))
        rc = fail(x, n, "jobs must be 0 (one per core) to 4096 (got \"%s\")",
                  j, NULL);
    else if (j)
        x->c->jobs = (int)lv;
    if (!rc && t && (util_parse_double(t, &dv) || dv <= 0 || dv > 1e7))
        rc = fail(x, n, "timeout must be a positive number of seconds (got "
                  "\"%s\")", t, NULL);
    else if (!rc && t)
        x->c->timeout_s = dv;
    if (!rc && r && util_parse_long(r, 0, 100, &lv) != 0)
        rc = fail(x, n, "retries must be 0 to 100 (got \"%s\")", r, NULL);
    else if (!rc && r)
        x->c->retries = (int)lv;
    xmlFree(j);
    xmlFree(t);
    xmlFree(r);
    return rc;
}

static int parse_report(ctx_t *x, xmlNodePtr n)
{
    char *f = attr(n, "formats"), *p = attr(n, "paper"), *l = attr(n, "layout");
    int rc = GD_OK;
    if (f) {
        x->c->formats = (strstr(f, "pdf") ? CAMP_FMT_PDF : 0)
                        | (strstr(f, "svg") ? CAMP_FMT_SVG : 0);
    }
    if (p)
        util_strlcpy(x->c->paper, p, sizeof x->c->paper);
    if (l) {
        util_path_join(x->c->layout, sizeof x->c->layout, x->c->dir, l);
        if (!util_path_exists(x->c->layout))
            rc = fail(x, n, "report layout \"%s\" not found", l, NULL);
    }
    xmlFree(f);
    xmlFree(p);
    xmlFree(l);
    return rc;
}

static int check_budget(ctx_t *x, xmlNodePtr search)
{
    uint64_t size = space_size(&x->c->space);
    if (strcmp(x->c->strategy, "exhaustive") == 0
        && (uint64_t)x->c->budget < size) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%llu", (unsigned long long)size);
        snprintf(b, sizeof b, "%ld", x->c->budget);
        char msg[160];
        snprintf(msg, sizeof msg, "%s points but the budget is %s", a, b);
        return fail(x, search, "exhaustive search needs a budget of at least "
                    "the space size: the space has %s; raise the budget or "
                    "use strategy=\"random\"", msg, NULL);
    }
    return GD_OK;
}

static void defaults(camp_campaign *c)
{
    util_strlcpy(c->backend, "analytic", sizeof c->backend);
    space_def_baseline(&c->space);
    c->seed = 1;
    c->jobs = 0;
    c->timeout_s = 3600;
    c->retries = 1;
    c->formats = CAMP_FMT_PDF | CAMP_FMT_SVG;
    util_strlcpy(c->paper, "a4", sizeof c->paper);
}

/* Walk the validated tree: simulator first (objectives depend on it). */
static int check_meaning(ctx_t *x, xmlNodePtr root)
{
    char *name = attr(root, "name"), *seed = attr(root, "seed");
    util_strlcpy(x->c->name, name, sizeof x->c->name);
    if (seed)
        x->c->seed = strtoull(seed, NULL, 10);
    xmlFree(name);
    xmlFree(seed);
    const char *order[] = {"simulator", "workloads", "space", "objectives",
                           "search", "execution", "report"};
    xmlNodePtr search = NULL;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        for (xmlNodePtr n = root->children; n; n = n->next) {
            if (!is_elem(n, order[i]))
                continue;
            int rc = GD_OK;
            switch (i) {
            case 0: rc = parse_simulator(x, n); break;
            case 1: rc = parse_workloads(x, n); break;
            case 2: rc = parse_space(x, n); break;
            case 3: rc = parse_objectives(x, n); break;
            case 4: rc = parse_search(x, n); search = n; break;
            case 5: rc = parse_execution(x, n); break;
            case 6: rc = parse_report(x, n); break;
            }
            if (rc)
                return rc;
        }
    return search ? check_budget(x, search) : GD_OK;
}

static int load(const char *path, int names_only, camp_campaign *c,
                gd_err *err)
{
    memset(c, 0, sizeof *c);
    defaults(c);
    util_strlcpy(c->path, path, sizeof c->path);
    util_dirname(c->dir, sizeof c->dir, path);
    xmlDocPtr doc = NULL;
    int rc = util_sha256_file(path, c->sha256, err);
    if (rc)
        return rc == GD_EINPUT
                   ? gd_errf(err, GD_EINPUT, "%s: no such file", path) : rc;
    rc = read_doc(path, &doc, err);
    if (!rc && strcmp((const char *)xmlDocGetRootElement(doc)->name,
                      "campaign") != 0)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: the root element is <%s>; a "
                     "campaign file starts with <campaign name=\"...\">",
                     path, xmlGetLineNo(xmlDocGetRootElement(doc)),
                     (const char *)xmlDocGetRootElement(doc)->name);
    if (!rc)
        rc = check_elements(path, xmlDocGetRootElement(doc), err);
    if (!rc)
        rc = schema_check(path, doc, err);
    if (!rc) {
        ctx_t x = {path, c, err, names_only};
        rc = check_meaning(&x, xmlDocGetRootElement(doc));
    }
    xmlFreeDoc(doc);
    if (rc)
        camp_free(c);
    return rc;
}

int camp_load(const char *path, camp_campaign *c, gd_err *err)
{
    return load(path, 0, c, err);
}

int camp_load_meta(const char *path, camp_campaign *c, gd_err *err)
{
    return load(path, 1, c, err);
}

void camp_free(camp_campaign *c)
{
    free(c->workloads);
    c->workloads = NULL;
    c->nworkloads = 0;
}

int camp_backend_known(const char *backend)
{
    return be_find(backend) != NULL;
}
