/* xmlsafe: safe parsing and schema validation shared by the campaign and
 * split-study readers; libxml2 reports errors through a structured handler
 * that keeps the first one with its line. */
#include "xmlsafe.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>

typedef struct {
    int seen;
    int line;
    char msg[512];
} first_error;

static void capture_error(void *ctx, xmlErrorPtr e)
{
    first_error *fe = ctx;
    if (!e || e->level < XML_ERR_ERROR)
        return;
    /* RELAX NG's first complaint inside an interleave often has no line
     * ("Extra element execution in interleave"); the next one names the
     * element's line: keep the first message and the first line */
    if (fe->seen) {
        if (fe->line <= 0 && e->line > 0)
            fe->line = e->line;
        return;
    }
    fe->seen = 1;
    fe->line = e->line;
    util_strlcpy(fe->msg, e->message ? e->message : "invalid XML",
                 sizeof fe->msg);
    size_t n = strlen(fe->msg);
    while (n && (fe->msg[n - 1] == '\n' || fe->msg[n - 1] == ' '))
        fe->msg[--n] = '\0';
}

/* No XML_PARSE_NOENT (entities stay unexpanded), no DTDLOAD, no network. */
static const int XML_SAFE = XML_PARSE_NONET | XML_PARSE_NOCDATA;

/* Line of a DOCTYPE the parser met (0: none), set by on_doctype. */
typedef struct {
    int line;
} doctype_seen;

/* SAX start of a DOCTYPE: stop the parser there, before the internal
 * subset (entity declarations) is read, so nothing is ever expanded. */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *ext,
                       const xmlChar *sys)
{
    (void)name;
    (void)ext;
    (void)sys;
    xmlParserCtxtPtr p = ctx;
    doctype_seen *d = p->_private;
    d->line = p->input ? p->input->line : 1;
    xmlStopParser(p);
}

static int refuse_doctype(const char *path, long line, const char *what,
                          gd_err *err)
{
    return gd_errf(err, GD_EINPUT, "%s:%ld: a DOCTYPE is not allowed in a "
                   "%s (entities are never expanded)", path,
                   line > 0 ? line : 1, what);
}

int xs_read_buf(const char *path, const char *buf, size_t len,
                const char *what, xmlDocPtr *out, gd_err *err)
{
    if (len > INT_MAX)
        return gd_errf(err, GD_EINPUT, "%s:1: file too large", path);
    first_error fe = {0};
    doctype_seen dt = {0};
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx)
        return gd_errf(err, GD_EENV, "out of memory");
    ctx->_private = &dt;
    ctx->sax->internalSubset = on_doctype;
    xmlSetStructuredErrorFunc(&fe, capture_error);
    xmlDocPtr doc = xmlCtxtReadMemory(ctx, buf, (int)len, path, NULL,
                                      XML_SAFE);
    xmlSetStructuredErrorFunc(NULL, NULL);
    xmlFreeParserCtxt(ctx);
    if (dt.line) {
        xmlFreeDoc(doc);
        return refuse_doctype(path, dt.line, what, err);
    }
    if (!doc || fe.seen) {
        xmlFreeDoc(doc);
        return gd_errf(err, GD_EINPUT, "%s:%d: not well-formed XML: %s", path,
                       fe.line > 0 ? fe.line : 1,
                       fe.seen ? fe.msg : "cannot parse");
    }
    if (doc->intSubset || doc->extSubset) {
        long line = doc->intSubset ? xmlGetLineNo((xmlNodePtr)doc->intSubset)
                                   : 1;
        xmlFreeDoc(doc);
        return refuse_doctype(path, line, what, err);
    }
    *out = doc;
    return GD_OK;
}

int xs_read(const char *path, const char *what, xmlDocPtr *out, gd_err *err)
{
    char *buf;
    size_t len;
    int rc = util_read_input(path, UTIL_INPUT_MAX, &buf, &len, err);
    if (rc)
        return rc;
    rc = xs_read_buf(path, buf, len, what, out, err);
    free(buf);
    return rc;
}

int xs_validate(const char *path, xmlDocPtr doc, const char *schema,
                const char *what, gd_err *err)
{
    char dir[PATH_MAX], rng[PATH_MAX];
    int rc = util_datadir(dir, sizeof dir, err);
    if (rc)
        return rc;
    util_path_join(rng, sizeof rng, dir, schema);
    xmlRelaxNGParserCtxtPtr pctx = xmlRelaxNGNewParserCtxt(rng);
    xmlRelaxNGPtr s = pctx ? xmlRelaxNGParse(pctx) : NULL;
    xmlRelaxNGFreeParserCtxt(pctx);
    if (!s)
        return gd_errf(err, GD_EENV, "%s: cannot load the %s schema", rng,
                       what);
    xmlRelaxNGValidCtxtPtr vctx = xmlRelaxNGNewValidCtxt(s);
    first_error fe = {0};
    xmlRelaxNGSetValidStructuredErrors(vctx, capture_error, &fe);
    int bad = xmlRelaxNGValidateDoc(vctx, doc);
    xmlRelaxNGFreeValidCtxt(vctx);
    xmlRelaxNGFree(s);
    if (bad == 0)
        return GD_OK;
    char elem[64];
    if (fe.seen && sscanf(fe.msg, "Extra element %63s in interleave", elem) == 1)
        /* libxml2's wording for a bad attribute value inside <campaign> */
        return gd_errf(err, GD_EINPUT, "%s:%d: <%s> does not match the %s "
                       "schema: it is repeated, or an attribute has a value "
                       "of the wrong type (a number where a number is due, "
                       "one of the listed words)", path,
                       fe.line > 0 ? fe.line : 1, elem, what);
    return gd_errf(err, GD_EINPUT, "%s:%d: does not match the %s schema: %s",
                   path, fe.line > 0 ? fe.line : 1, what,
                   fe.seen ? fe.msg : "invalid");
}
