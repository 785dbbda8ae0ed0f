/* layout: reads a report layout file (<report><title-page/><workloads>
 * <figure kind=".."/><table kind=".."/></workloads></report>) into a
 * rep_layout, and supplies the built-in default. */
#include "layout.h"

#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "figures.h"

void rep_layout_default(rep_layout *l)
{
    memset(l, 0, sizeof *l);
    l->title_page = 1;
    l->item[0] = (rep_item){ REP_ITEM_FIGURE, "pareto" };
    l->item[1] = (rep_item){ REP_ITEM_TABLE, "front" };
    l->nitems = 2;
}

static int is_el(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE
           && strcmp((const char *)n->name, name) == 0;
}

static int add_item(rep_layout *l, const xmlNode *n, const char *path,
                    gd_err *err)
{
    int fig = is_el(n, "figure");
    if (!fig && !is_el(n, "table"))
        return gd_errf(err, GD_EINPUT, "%s:%ld: unknown element <%s> in "
                       "<workloads> (known: figure, table)", path,
                       xmlGetLineNo(n), (const char *)n->name);
    xmlChar *kind = xmlGetProp(n, (const xmlChar *)"kind");
    int rc = GD_OK;
    if (!kind)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: <%s> needs kind=\"...\"",
                     path, xmlGetLineNo(n), (const char *)n->name);
    else if (fig && !fig_kind_find((const char *)kind))
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: unknown figure kind '%s' "
                     "(known: %s)", path, xmlGetLineNo(n),
                     (const char *)kind, fig_kind_names());
    else if (!fig && strcmp((const char *)kind, "front") != 0)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: unknown table kind '%s' "
                     "(known: front)", path, xmlGetLineNo(n),
                     (const char *)kind);
    else if (l->nitems >= REP_LAYOUT_MAX)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: more than %d items", path,
                     xmlGetLineNo(n), REP_LAYOUT_MAX);
    if (!rc) {
        rep_item *it = &l->item[l->nitems++];
        it->kind = fig ? REP_ITEM_FIGURE : REP_ITEM_TABLE;
        util_strlcpy(it->name, (const char *)kind, sizeof it->name);
    }
    xmlFree(kind);
    return rc;
}

static int parse_root(const xmlNode *root, rep_layout *l, const char *path,
                      gd_err *err)
{
    if (!root || !is_el(root, "report"))
        return gd_errf(err, GD_EINPUT, "%s: the root element must be "
                       "<report>", path);
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (is_el(n, "title-page")) {
            l->title_page = 1;
            continue;
        }
        if (!is_el(n, "workloads"))
            return gd_errf(err, GD_EINPUT, "%s:%ld: unknown element <%s> "
                           "(known: title-page, workloads)", path,
                           xmlGetLineNo(n), (const char *)n->name);
        for (const xmlNode *c = n->children; c; c = c->next) {
            if (c->type != XML_ELEMENT_NODE)
                continue;
            int rc = add_item(l, c, path, err);
            if (rc)
                return rc;
        }
    }
    return GD_OK;
}

int rep_layout_load(const char *path, rep_layout *l, gd_err *err)
{
    memset(l, 0, sizeof *l);
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: layout file not found", path);
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR
                              | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        char msg[256];
        util_strlcpy(msg, e && e->message ? e->message : "parse error",
                     sizeof msg);
        msg[strcspn(msg, "\n")] = '\0';
        return gd_errf(err, GD_EINPUT, "%s:%d: not well-formed XML: %s",
                       path, e ? e->line : 0, msg);
    }
    int rc = parse_root(xmlDocGetRootElement(doc), l, path, err);
    xmlFreeDoc(doc);
    return rc;
}
