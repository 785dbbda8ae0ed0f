/* layout: reads a report layout file (<report> with <title-page/>,
 * <contents/>, <workloads> of <figure kind=".." metrics=".."/>,
 * <table kind=".."/> and <annotations/>, then <exploration-log/>,
 * <strategy-study/>,
 * <calibration/>, <annotations/>, <failures/>) into a rep_layout, and
 * supplies the built-in default. */
#include "layout.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "figures.h"
#include "metrics.h"

static const char *const table_kinds = "front, quality";

void rep_layout_default(rep_layout *l)
{
    static const rep_item items[] = {
        { REP_ITEM_FIGURE, "pareto", "", 0 },
        { REP_ITEM_TABLE, "front", "", 0 },
        { REP_ITEM_TABLE, "quality", "", 0 },
        { REP_ITEM_FIGURE, "sensitivity", "", 0 },
        { REP_ITEM_FIGURE, "heatmap", "", 0 },
        { REP_ITEM_ANNOTATIONS, "annotations", "", 0 },
    };
    static const int secs[] = { REP_SEC_WORKLOADS, REP_SEC_EXPLORATION,
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

/* metrics="ipc area_mm2" (or "objectives"): every name must be known. */
static int check_metrics(const xmlNode *n, const char *list, rep_item *it,
                         const char *path, gd_err *err)
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
        if (strcmp(word, "objectives") != 0 && !met_is_known(word))
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
        rc = check_metrics(n, (const char *)m, it, path, err);
    if (!rc)
        rc = parse_log(n, it, path, err);
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
    else
        return gd_errf(err, GD_EINPUT, "%s:%ld: unknown element <%s> "
                       "(known: title-page, contents, workloads, "
                       "exploration-log, strategy-study, calibration, "
                       "annotations, failures)",
                       path, xmlGetLineNo(n), (const char *)n->name);
    return GD_OK;
}

static int parse_root(const xmlNode *root, rep_layout *l, const char *path,
                      gd_err *err)
{
    if (!root || !is_el(root, "report"))
        return gd_errf(err, GD_EINPUT, "%s:%ld: the root element must be "
                       "<report>", path, root ? xmlGetLineNo(root) : 1L);
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
    memset(l, 0, sizeof *l);
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
