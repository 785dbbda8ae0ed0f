/* layout: reads a report layout file (<report> with <title-page/>,
 * <contents/>, <workloads> of <figure kind=".." metrics=".."/>,
 * <table kind=".."/> and <annotations/>, <aggregates/>, <exploration-log/>,
 * <strategy-study/>, <calibration/>, <annotations/>, <failures/> and
 * figures across workloads, <figure kind="line" knob=".."/>) into a
 * rep_layout, and
 * supplies the built-in default. */
#include "layout.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "figures.h"
#include "metrics.h"
#include "space.h"
#include "workfork.h"

static const char *const table_kinds = "front, quality";

void rep_layout_default(rep_layout *l)
{
    static const rep_item items[] = {
        { REP_ITEM_FIGURE, "pareto", "", 0, 0, 0 },
        { REP_ITEM_TABLE, "front", "", 0, 0, 0 },
        { REP_ITEM_TABLE, "quality", "", 0, 0, 0 },
        { REP_ITEM_FIGURE, "sensitivity", "", 0, 0, 0 },
        { REP_ITEM_FIGURE, "heatmap", "", 0, 0, 0 },
        { REP_ITEM_ANNOTATIONS, "annotations", "", 0, 0, 0 },
    };
    static const int secs[] = { REP_SEC_AGGREGATES, REP_SEC_WORKLOADS,
                                REP_SEC_EXPLORATION,
                                REP_SEC_STRATEGY,
                                REP_SEC_CALIBRATION, REP_SEC_ANNOTATIONS,
                                REP_SEC_FAILURES };
    memset(l, 0, sizeof *l);
    l->title_page = 1;
    l->contents = 1;
    l->nitems = (int)(sizeof items / sizeof items[0]);
    memcpy(l->item, items, sizeof items);
    l->nsections = (int)(sizeof secs / sizeof secs[0]);
    memcpy(l->section, secs, sizeof secs);
}

static int is_el(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE
           && strcmp((const char *)n->name, name) == 0;
}

static int known_table(const char *kind)
{
    return strcmp(kind, "front") == 0 || strcmp(kind, "quality") == 0;
}

/* A metric a layout may name: the catalogue's, or one the campaign
 * declares (a command backend's <metric>, a <derived>). */
static int metric_ok(const camp_campaign *camp, const char *name)
{
    return camp ? camp_metric_declared(camp, name) : met_is_known(name);
}

/* metrics="ipc area_mm2" (or "objectives"): every name must be known. */
static int check_metrics(const xmlNode *n, const char *list, rep_item *it,
                         const camp_campaign *camp, const char *path,
                         gd_err *err)
{
    char word[64];
    if (strlen(list) >= sizeof it->metrics)
        return gd_errf(err, GD_EINPUT, "%s:%ld: metrics list too long",
                       path, xmlGetLineNo(n));
    for (const char *p = list; *p;) {
        p += strspn(p, " \t\n");
        size_t len = strcspn(p, " \t\n");
        if (!len)
            break;
        util_strlcpy(word, p, len + 1 < sizeof word ? len + 1 : sizeof word);
        if (strcmp(word, "objectives") != 0 && !metric_ok(camp, word))
            return gd_errf(err, GD_EINPUT, "%s:%ld: unknown metric '%s' in "
                           "metrics=\"%s\"", path, xmlGetLineNo(n), word,
                           list);
        p += len;
    }
    util_strlcpy(it->metrics, strcmp(list, "objectives") == 0 ? "" : list,
                 sizeof it->metrics);
    return GD_OK;
}

/* log="x", "y", "xy" or "none": log axes on request. */
static int parse_log(const xmlNode *n, rep_item *it, const char *path,
                     gd_err *err)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)"log");
    int rc = GD_OK;
    const char *s = (const char *)v;
    if (!v || strcmp(s, "none") == 0)
        it->log = 0;
    else if (strcmp(s, "x") == 0)
        it->log = FIG_LOGX;
    else if (strcmp(s, "y") == 0)
        it->log = FIG_LOGY;
    else if (strcmp(s, "xy") == 0)
        it->log = FIG_LOGX | FIG_LOGY;
    else
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: log=\"%s\": use x, y, xy "
                     "or none", path, xmlGetLineNo(n), s);
    xmlFree(v);
    return rc;
}

/* The rep_item_kind of a <workloads> child, or minus an error code. */
static int item_kind(const xmlNode *n, const char *path, gd_err *err)
{
    if (is_el(n, "figure"))
        return REP_ITEM_FIGURE;
    if (is_el(n, "table"))
        return REP_ITEM_TABLE;
    if (is_el(n, "annotations"))
        return REP_ITEM_ANNOTATIONS;
    return -gd_errf(err, GD_EINPUT, "%s:%ld: unknown element <%s> in "
                    "<workloads> (known: figure, table, annotations)", path,
                    xmlGetLineNo(n), (const char *)n->name);
}

static int check_kind(const xmlNode *n, int kind, const char *name,
                      const char *path, gd_err *err)
{
    if (kind == REP_ITEM_FIGURE && !fig_kind_find(name))
        return gd_errf(err, GD_EINPUT, "%s:%ld: unknown figure kind '%s' "
                       "(known: %s)", path, xmlGetLineNo(n), name,
                       fig_kind_names());
    if (kind == REP_ITEM_TABLE && !known_table(name))
        return gd_errf(err, GD_EINPUT, "%s:%ld: unknown table kind '%s' "
                       "(known: %s)", path, xmlGetLineNo(n), name,
                       table_kinds);
    return GD_OK;
}

/* title="on|off" on a figure item. */
static int parse_title(const xmlNode *n, rep_item *it, const char *path,
                       gd_err *err)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)"title");
    const char *s = (const char *)v;
    int rc = GD_OK;
    if (v && it->kind != REP_ITEM_FIGURE)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: title= applies to figures",
                     path, xmlGetLineNo(n));
    else if (v && strcmp(s, "on") != 0 && strcmp(s, "off") != 0)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: title=\"%s\": use on or "
                     "off", path, xmlGetLineNo(n), s);
    it->no_title = v && strcmp(s, "off") == 0;
    xmlFree(v);
    return rc;
}

/* top="N" on <table kind="front">: a positive row count. */
static int parse_top(const xmlNode *n, rep_item *it, const char *path,
                     gd_err *err)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)"top");
    const char *s = (const char *)v;
    char *end = NULL;
    long top = v ? strtol(s, &end, 10) : 0;
    int rc = GD_OK;
    if (v && (it->kind != REP_ITEM_TABLE || strcmp(it->name, "front") != 0))
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: top= applies to <table "
                     "kind=\"front\">", path, xmlGetLineNo(n));
    else if (v && (end == s || *end || top < 1 || top > 100000))
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: top=\"%s\": use a row count "
                     "from 1 to 100000", path, xmlGetLineNo(n), s);
    it->top = rc ? 0 : (int)top;
    xmlFree(v);
    return rc;
}

/* density="auto|on|off|N" on <figure kind="pareto">: when its jobs are
 * a density raster (FIG_DENSITY, FIG_EXACT bits in it->log). */
static int parse_density(const xmlNode *n, rep_item *it, const char *path,
                         gd_err *err)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)"density");
    const char *s = (const char *)v;
    char *end = NULL;
    int rc = GD_OK;
    if (!v)
        return GD_OK;
    long above = strtol(s, &end, 10);
    if (it->kind != REP_ITEM_FIGURE || strcmp(it->name, "pareto") != 0)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: density= applies to <figure "
                     "kind=\"pareto\">", path, xmlGetLineNo(n));
    else if (strcmp(s, "off") == 0)
        it->log |= FIG_EXACT;
    else if (strcmp(s, "on") == 0)
        it->log |= FIG_DENSITY(0);
    else if (strcmp(s, "auto") != 0 && (end == s || *end || above < 0
                                        || above > FIG_DENSITY_MAX))
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: density=\"%s\": use auto "
                     "(a raster above %d jobs), on, off, or a job count "
                     "from 0 to %d", path, xmlGetLineNo(n), s,
                     FIG_DENSITY_AUTO, FIG_DENSITY_MAX);
    else if (strcmp(s, "auto") != 0)
        it->log |= FIG_DENSITY(above);
    xmlFree(v);
    return rc;
}

static int add_item(rep_layout *l, const xmlNode *n, const char *path,
                    gd_err *err)
{
    int kind = item_kind(n, path, err);
    if (kind < 0)
        return -kind;
    if (l->nitems >= REP_LAYOUT_MAX)
        return gd_errf(err, GD_EINPUT, "%s:%ld: more than %d items", path,
                       xmlGetLineNo(n), REP_LAYOUT_MAX);
    rep_item *it = &l->item[l->nitems];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    xmlChar *k = xmlGetProp(n, (const xmlChar *)"kind");
    xmlChar *m = xmlGetProp(n, (const xmlChar *)"metrics");
    int rc = GD_OK;
    if (kind == REP_ITEM_ANNOTATIONS)
        util_strlcpy(it->name, "annotations", sizeof it->name);
    else if (!k)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: <%s> needs kind=\"...\"",
                     path, xmlGetLineNo(n), (const char *)n->name);
    else
        rc = check_kind(n, kind, (const char *)k, path, err);
    if (!rc && k)
        util_strlcpy(it->name, (const char *)k, sizeof it->name);
    if (!rc && m)
        rc = check_metrics(n, (const char *)m, it, l->camp, path, err);
    if (!rc)
        rc = parse_log(n, it, path, err);
    if (!rc)
        rc = parse_title(n, it, path, err);
    if (!rc)
        rc = parse_top(n, it, path, err);
    if (!rc)
        rc = parse_density(n, it, path, err);
    if (!rc)
        l->nitems++;
    xmlFree(k);
    xmlFree(m);
    return rc;
}

static int add_section(rep_layout *l, const xmlNode *n, int sec,
                       const char *path, gd_err *err)
{
    if (l->nsections >= REP_SECTIONS_MAX)
        return gd_errf(err, GD_EINPUT, "%s:%ld: more than %d sections", path,
                       xmlGetLineNo(n), REP_SECTIONS_MAX);
    l->section[l->nsections++] = sec;
    return GD_OK;
}

/* ---- top-level figures across workloads ------------------------------- */

static int cross_attrs_known(const xmlNode *n, int bars, const char *path,
                             gd_err *err)
{
    static const char *const line_ok[] = { "kind", "knob", "metric", "at",
                                           "log", "title", "xrange",
                                           "yrange", NULL };
    static const char *const bars_ok[] = { "kind", "metric", "configs",
                                           "log", "title", "yrange", NULL };
    const char *const *ok = bars ? bars_ok : line_ok;
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        size_t i = 0;
        while (ok[i] && strcmp((const char *)a->name, ok[i]) != 0)
            i++;
        if (!ok[i])
            return gd_errf(err, GD_EINPUT, "%s:%ld: unknown attribute "
                           "%s= on <figure kind=\"%s\"> (known: %s)", path,
                           xmlGetLineNo(n), (const char *)a->name,
                           bars ? "bars" : "line", bars
                           ? "kind, metric, configs, log, title, yrange"
                           : "kind, knob, metric, at, log, title, xrange, "
                             "yrange");
    }
    return GD_OK;
}

/* One "knob=value" of a bars config. */
static int conf_setting(const xmlNode *n, const char *set, gpu_config *c,
                        const space_def *sp, const char *path, gd_err *err)
{
    char name[64];
    const char *eq = strchr(set, '=');
    size_t len = eq ? (size_t)(eq - set) : 0;
    int v;
    if (!eq || !len || len >= sizeof name)
        return gd_errf(err, GD_EINPUT, "%s:%ld: configs: '%s' is not "
                       "knob=value", path, xmlGetLineNo(n), set);
    util_strlcpy(name, set, len + 1);
    int k = space_knob_index(sp, name);
    if (k < 0)
        return gd_errf(err, GD_EINPUT, "%s:%ld: configs: unknown knob "
                       "'%s'", path, xmlGetLineNo(n), name);
    if (space_level_parse(sp, k, eq + 1, &v) != 0)
        return gd_errf(err, GD_EINPUT, "%s:%ld: configs: '%s' is not a "
                       "level of %s", path, xmlGetLineNo(n), eq + 1, name);
    space_set(c, k, v);
    return GD_OK;
}

/* One entry of configs: "best", or knob=value settings separated by
 * commas (other knobs at the baseline). */
static int conf_entry(const xmlNode *n, const char *text, rep_cross_fig *f,
                      const space_def *sp, const char *path, gd_err *err)
{
    char set[96];
    int i = f->nconf;
    if (i >= REP_BARS_MAX)
        return gd_errf(err, GD_EINPUT, "%s:%ld: configs: more than %d "
                       "entries", path, xmlGetLineNo(n), REP_BARS_MAX);
    if (strlen(text) >= sizeof f->label[i])
        return gd_errf(err, GD_EINPUT, "%s:%ld: configs: '%s' is too long",
                       path, xmlGetLineNo(n), text);
    util_strlcpy(f->label[i], text, sizeof f->label[i]);
    f->best[i] = strcmp(text, "best") == 0;
    f->conf[i] = space_baseline();
    for (const char *p = text; !f->best[i] && *p;) {
        size_t len = strcspn(p, ",");
        if (len >= sizeof set)
            len = sizeof set - 1;
        util_strlcpy(set, p, len + 1);
        int rc = conf_setting(n, set, &f->conf[i], sp, path, err);
        if (rc)
            return rc;
        p += len + (p[len] == ',');
    }
    f->nconf++;
    return GD_OK;
}

/* configs="best; n_clusters=60,n_mem=8" (default "best"). */
static int cross_configs(const xmlNode *n, const char *list,
                         rep_cross_fig *f, const space_def *sp,
                         const char *path, gd_err *err)
{
    char entry[256];
    if (!list)
        list = "best";
    for (const char *p = list; *p;) {
        p += strspn(p, " \t\n;");
        size_t len = strcspn(p, ";");
        while (len && strchr(" \t\n", p[len - 1]))
            len--;
        if (!len)
            break;
        if (len >= sizeof entry)
            len = sizeof entry - 1;
        util_strlcpy(entry, p, len + 1);
        int rc = conf_entry(n, entry, f, sp, path, err);
        if (rc)
            return rc;
        p += len;
    }
    if (!f->nconf)
        return gd_errf(err, GD_EINPUT, "%s:%ld: configs=\"%s\" names no "
                       "configuration", path, xmlGetLineNo(n), list);
    return GD_OK;
}

/* knob="n_clusters": a numeric knob of the design space (built-in, or
 * declared by the campaign: sp, NULL for none). */
static int cross_knob(const xmlNode *n, const char *knob, rep_cross_fig *f,
                      const space_def *sp, const char *path, gd_err *err)
{
    if (!knob)
        return gd_errf(err, GD_EINPUT, "%s:%ld: <figure kind=\"line\"> "
                       "needs knob=\"...\" (the knob on the x axis)", path,
                       xmlGetLineNo(n));
    f->knob = space_knob_index(sp, knob);
    if (f->knob < 0) {
        const char *s = space_knob_suggest(knob);
        return gd_errf(err, GD_EINPUT, "%s:%ld: unknown knob '%s'%s%s%s",
                       path, xmlGetLineNo(n), knob,
                       s ? " (did you mean '" : "", s ? s : "",
                       s ? "'?)" : "");
    }
    if (!space_knob_numeric(sp, f->knob))
        return gd_errf(err, GD_EINPUT, "%s:%ld: knob '%s' is categorical; "
                       "a line figure needs a numeric knob", path,
                       xmlGetLineNo(n), knob);
    return GD_OK;
}

static int cross_metric(const xmlNode *n, const char *metric,
                        rep_cross_fig *f, const camp_campaign *camp,
                        const char *path, gd_err *err)
{
    if (!metric || strcmp(metric, "objectives") == 0)
        return GD_OK;   /* "": the first objective */
    if (strlen(metric) >= sizeof f->metric || !metric_ok(camp, metric))
        return gd_errf(err, GD_EINPUT, "%s:%ld: unknown metric '%s' in "
                       "metric=\"%s\"", path, xmlGetLineNo(n), metric,
                       metric);
    util_strlcpy(f->metric, metric, sizeof f->metric);
    return GD_OK;
}

/* at="baseline|best" and title="on|off". */
static int cross_words(const xmlNode *n, const char *at, const char *title,
                       rep_cross_fig *f, const char *path, gd_err *err)
{
    if (at && strcmp(at, "baseline") != 0 && strcmp(at, "best") != 0)
        return gd_errf(err, GD_EINPUT, "%s:%ld: at=\"%s\": use baseline "
                       "or best", path, xmlGetLineNo(n), at);
    if (title && strcmp(title, "on") != 0 && strcmp(title, "off") != 0)
        return gd_errf(err, GD_EINPUT, "%s:%ld: title=\"%s\": use on or "
                       "off", path, xmlGetLineNo(n), title);
    f->at_best = at && strcmp(at, "best") == 0;
    f->no_title = title && strcmp(title, "off") == 0;
    return GD_OK;
}

/* xrange="lo hi" / yrange="lo hi": finite, lo < hi, positive on a log
 * axis. */
static int cross_range(const xmlNode *n, const char *attr, int logax,
                       int *has, double *r, const char *path, gd_err *err)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);
    const char *s = (const char *)v;
    char *e1 = NULL, *e2 = NULL;
    int rc = GD_OK;
    if (v) {
        r[0] = strtod(s, &e1);
        r[1] = strtod(e1, &e2);
        if (e1 == s || e2 == e1 || e2[strspn(e2, " \t")] || !isfinite(r[0])
            || !isfinite(r[1]) || !(r[0] < r[1]) || (logax && r[0] <= 0))
            rc = gd_errf(err, GD_EINPUT, "%s:%ld: %s=\"%s\": use two "
                         "finite numbers \"lo hi\" with lo < hi%s", path,
                         xmlGetLineNo(n), attr, s,
                         logax ? " and lo > 0 (log axis)" : "");
        *has = !rc;
    }
    xmlFree(v);
    return rc;
}

static int cross_fill(const xmlNode *n, rep_cross_fig *f,
                      const camp_campaign *camp, const char *path,
                      gd_err *err)
{
    xmlChar *k = xmlGetProp(n, (const xmlChar *)"kind");
    xmlChar *kn = xmlGetProp(n, (const xmlChar *)"knob");
    xmlChar *m = xmlGetProp(n, (const xmlChar *)"metric");
    xmlChar *at = xmlGetProp(n, (const xmlChar *)"at");
    xmlChar *t = xmlGetProp(n, (const xmlChar *)"title");
    xmlChar *cf = xmlGetProp(n, (const xmlChar *)"configs");
    const char *ks = k ? (const char *)k : "";
    int bars = strcmp(ks, "bars") == 0, rc = GD_OK;
    if (!bars && strcmp(ks, "line") != 0)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: a <figure> outside "
                     "<workloads> is a figure across workloads: kind="
                     "\"%s\" is not one (known: line, bars)", path,
                     xmlGetLineNo(n), ks);
    if (!rc)
        rc = cross_attrs_known(n, bars, path, err);
    if (!rc && !bars)
        rc = cross_knob(n, (const char *)kn, f, camp ? &camp->space : NULL,
                        path, err);
    if (!rc && bars)
        rc = cross_configs(n, (const char *)cf, f,
                           camp ? &camp->space : NULL, path, err);
    if (!rc)
        rc = cross_metric(n, (const char *)m, f, camp, path, err);
    if (!rc)
        rc = cross_words(n, (const char *)at, (const char *)t, f, path, err);
    if (!rc) {
        rep_item it;
        rc = parse_log(n, &it, path, err);
        f->log = it.log;
        if (!rc && bars && (it.log & FIG_LOGX))
            rc = gd_errf(err, GD_EINPUT, "%s:%ld: bars have a log y axis "
                         "only: use log=\"y\"", path, xmlGetLineNo(n));
    }
    if (!rc)
        rc = cross_range(n, "xrange", (f->log & FIG_LOGX) != 0,
                         &f->has_xrange, f->xrange, path, err);
    if (!rc)
        rc = cross_range(n, "yrange", (f->log & FIG_LOGY) != 0,
                         &f->has_yrange, f->yrange, path, err);
    util_strlcpy(f->kind, bars ? "bars" : "line", sizeof f->kind);
    xmlFree(k);
    xmlFree(kn);
    xmlFree(m);
    xmlFree(at);
    xmlFree(t);
    xmlFree(cf);
    return rc;
}

static int add_cross(rep_layout *l, const xmlNode *n, const char *path,
                     gd_err *err)
{
    if (l->ncross >= REP_CROSS_MAX)
        return gd_errf(err, GD_EINPUT, "%s:%ld: more than %d figures "
                       "across workloads", path, xmlGetLineNo(n),
                       REP_CROSS_MAX);
    rep_cross_fig *f = &l->cross[l->ncross];
    memset(f, 0, sizeof *f);
    int rc = cross_fill(n, f, l->camp, path, err);
    if (!rc)
        rc = add_section(l, n, REP_SEC_FIGURE, path, err);
    if (!rc)
        l->section_fig[l->nsections - 1] = l->ncross++;
    return rc;
}

static int parse_workloads(rep_layout *l, const xmlNode *n, const char *path,
                           gd_err *err)
{
    int rc = add_section(l, n, REP_SEC_WORKLOADS, path, err);
    for (const xmlNode *c = n->children; !rc && c; c = c->next)
        if (c->type == XML_ELEMENT_NODE)
            rc = add_item(l, c, path, err);
    return rc;
}

static int parse_child(rep_layout *l, const xmlNode *n, const char *path,
                       gd_err *err)
{
    if (is_el(n, "title-page"))
        l->title_page = 1;
    else if (is_el(n, "contents"))
        l->contents = 1;
    else if (is_el(n, "workloads"))
        return parse_workloads(l, n, path, err);
    else if (is_el(n, "exploration-log"))
        return add_section(l, n, REP_SEC_EXPLORATION, path, err);
    else if (is_el(n, "strategy-study"))
        return add_section(l, n, REP_SEC_STRATEGY, path, err);
    else if (is_el(n, "calibration"))
        return add_section(l, n, REP_SEC_CALIBRATION, path, err);
    else if (is_el(n, "annotations"))
        return add_section(l, n, REP_SEC_ANNOTATIONS, path, err);
    else if (is_el(n, "failures"))
        return add_section(l, n, REP_SEC_FAILURES, path, err);
    else if (is_el(n, "aggregates"))
        return add_section(l, n, REP_SEC_AGGREGATES, path, err);
    else if (is_el(n, "figure"))
        return add_cross(l, n, path, err);
    else
        return gd_errf(err, GD_EINPUT, "%s:%ld: unknown element <%s> "
                       "(known: title-page, contents, aggregates, "
                       "workloads, exploration-log, strategy-study, "
                       "calibration, annotations, failures, figure)",
                       path, xmlGetLineNo(n), (const char *)n->name);
    return GD_OK;
}

/* chart_font_check in a child process: pango starts threads, and the
 * report forks its writers after the layout is read (a lock a thread held
 * at the fork would stay held in a writer). The family fontconfig would
 * use instead comes back as the error's text. */
static int font_check_part(void *arg, gd_err *err)
{
    char got[128];
    if (chart_font_check(arg, got, sizeof got) != 0)
        return gd_errf(err, GD_EINPUT, "%s", got);
    return GD_OK;
}

/* font="FAMILY": one fontconfig has itself (a substitute would make the
 * figures differ from host to host). */
static int root_font(const xmlNode *n, const char *fam, rep_layout *l,
                     const char *path, gd_err *err)
{
    if (!*fam || strlen(fam) >= sizeof l->font.family)
        return gd_errf(err, GD_EINPUT, "%s:%ld: font=\"%s\": name a font "
                       "family (under %zu characters), e.g. \"DejaVu "
                       "Serif\"", path, xmlGetLineNo(n), fam,
                       sizeof l->font.family);
    wf_child ch;
    gd_err fe = { 0 };
    wf_start(&ch, font_check_part, (void *)fam);
    int rc = wf_wait(&ch, &fe);
    if (rc && fe.code != GD_EINPUT) {   /* the check itself failed */
        if (err)
            *err = fe;
        return rc;
    }
    if (rc)
        return gd_errf(err, GD_EINPUT, "%s:%ld: font=\"%s\" is not "
                       "installed: fontconfig would use \"%.127s\" instead, "
                       "and the figures would differ from host to host; "
                       "install it or name one `fc-list : family` lists",
                       path, xmlGetLineNo(n), fam, fe.msg);
    util_strlcpy(l->font.family, fam, sizeof l->font.family);
    return GD_OK;
}

/* <report font="..." font-size="PT">: the figure files' text. */
static int parse_root_attrs(const xmlNode *n, rep_layout *l,
                            const char *path, gd_err *err)
{
    xmlChar *f = xmlGetProp(n, (const xmlChar *)"font");
    xmlChar *z = xmlGetProp(n, (const xmlChar *)"font-size");
    int rc = f ? root_font(n, (const char *)f, l, path, err) : GD_OK;
    if (!rc && z) {
        char *end = NULL;
        double pt = strtod((const char *)z, &end);
        if (end == (char *)z || *end || !(pt >= 5 && pt <= 16))
            rc = gd_errf(err, GD_EINPUT, "%s:%ld: font-size=\"%s\": use "
                         "points from 5 to 16 (the tick and legend text; "
                         "default %g)", path, xmlGetLineNo(n),
                         (const char *)z, CHART_FONT_PT);
        else
            l->font.size = pt;
    }
    for (const xmlAttr *a = n->properties; !rc && a; a = a->next)
        if (strcmp((const char *)a->name, "font") != 0
            && strcmp((const char *)a->name, "font-size") != 0)
            rc = gd_errf(err, GD_EINPUT, "%s:%ld: unknown attribute %s= on "
                         "<report> (known: font, font-size)", path,
                         xmlGetLineNo(n), (const char *)a->name);
    xmlFree(f);
    xmlFree(z);
    return rc;
}

static int parse_root(const xmlNode *root, rep_layout *l, const char *path,
                      gd_err *err)
{
    if (!root || !is_el(root, "report"))
        return gd_errf(err, GD_EINPUT, "%s:%ld: the root element must be "
                       "<report>", path, root ? xmlGetLineNo(root) : 1L);
    int rc = parse_root_attrs(root, l, path, err);
    if (rc)
        return rc;
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        int rc = parse_child(l, n, path, err);
        if (rc)
            return rc;
    }
    return GD_OK;
}

int rep_layout_load(const char *path, rep_layout *l, gd_err *err)
{
    return rep_layout_load_camp(path, NULL, l, err);
}

int rep_layout_load_camp(const char *path, const camp_campaign *c,
                         rep_layout *l, gd_err *err)
{
    memset(l, 0, sizeof *l);
    l->camp = c;
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: layout file not found", path);
    char *text;
    size_t len;
    int rc = util_read_input(path, UTIL_INPUT_MAX, &text, &len, err);
    if (rc)
        return rc;
    xmlDoc *doc = len > INT_MAX ? NULL
                  : xmlReadMemory(text, (int)len, path, NULL, XML_PARSE_NONET
                                  | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    free(text);
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        char msg[256];
        util_strlcpy(msg, e && e->message ? e->message : "parse error",
                     sizeof msg);
        msg[strcspn(msg, "\n")] = '\0';
        return gd_errf(err, GD_EINPUT, "%s:%d: not well-formed XML: %s",
                       path, e && e->line > 0 ? e->line : 1, msg);
    }
    if (doc->intSubset || doc->extSubset) {
        /* as in campaigns: entities are never expanded */
        long line = doc->intSubset ? xmlGetLineNo((xmlNode *)doc->intSubset)
                                   : 1;
        xmlFreeDoc(doc);
        return gd_errf(err, GD_EINPUT, "%s:%ld: a DOCTYPE is not allowed in "
                       "a report layout", path, line > 0 ? line : 1);
    }
    rc = parse_root(xmlDocGetRootElement(doc), l, path, err);
    xmlFreeDoc(doc);
    return rc;
}

int rep_layout_check_campaign(const camp_campaign *c, gd_err *err)
{
    rep_layout lay;
    return c->layout[0] ? rep_layout_load_camp(c->layout, c, &lay, err)
                        : GD_OK;
}
