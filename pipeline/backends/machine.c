/* machine: machine descriptor files for the split cost model. Format:
 *   <machine name=".." induced="yes|no">
 *     <param name="setup_s" value=".." prov="spec|estimated|measured"/> ...
 *     <device name=".." kind="cuda|cpu|model"> <param .../> ... </device>
 *     <link from=".." to=".." peer="yes|no"> <param name="bw"/> <param name="lat"/> </link>
 *   </machine>
 * Every number is a <param> with its provenance. */
#include "machine.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "measure.h"
#include "parseopt.h"
#include "xmlsafe.h"

typedef struct {
    const char *path;
    gd_err *err;
} mctx;

static int line_of(xmlNodePtr n)
{
    long l = xmlGetLineNo(n);
    return l > 0 ? (int)l : 1;
}

static int is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static int bad(mctx *x, xmlNodePtr n, const char *what, const char *name)
{
    return gd_errf(x->err, GD_EINPUT, "%s:%d: %s%s%s%s", x->path, line_of(n),
                   what, name ? " \"" : "", name ? name : "", name ? "\"" : "");
}

/* The slot a device param name refers to (NULL when unknown). */
static cm_num *device_slot(cm_device *d, const char *name)
{
    static const char *const names[] = {"peak_flops", "mem_bw", "mem_bytes",
        "launch_s", "slowdown", "h2d_bw", "h2d_lat", "d2h_bw", "d2h_lat"};
    cm_num *slots[] = {&d->peak_flops, &d->mem_bw, &d->mem_bytes, &d->launch_s,
        &d->slowdown, &d->h2d_bw, &d->h2d_lat, &d->d2h_bw, &d->d2h_lat};
    for (int i = 0; i < 9; i++)
        if (!strcmp(name, names[i]))
            return slots[i];
    const char *dot = strchr(name, '.');
    if (!dot)
        return NULL;
    int k = cm_kind_parse(dot + 1);
    if (k < 0)
        return NULL;
    size_t len = (size_t)(dot - name);
    if (len == 5 && !strncmp(name, "eta_f", 5))
        return &d->eta_f[k];
    if (len == 5 && !strncmp(name, "eta_m", 5))
        return &d->eta_m[k];
    if (len == 7 && !strncmp(name, "fixed_s", 7))
        return &d->fixed_s[k];
    return NULL;
}

static int read_param(mctx *x, xmlNodePtr n, char *name, size_t namesz,
                      cm_num *v)
{
    char *nm = (char *)xmlGetProp(n, (const xmlChar *)"name");
    char *val = (char *)xmlGetProp(n, (const xmlChar *)"value");
    char *pv = (char *)xmlGetProp(n, (const xmlChar *)"prov");
    int rc = GD_OK;
    if (!nm || !val || !pv)
        rc = bad(x, n, "<param> needs name, value and prov (spec, estimated "
                 "or measured)", NULL);
    else if (util_parse_double(val, &v->v) != 0 || v->v < 0)
        rc = bad(x, n, "param value is not a non-negative number:", val);
    else if ((v->prov = cm_prov_parse(pv)) < 0)
        rc = bad(x, n, "provenance must be spec, estimated or measured, not", pv);
    else
        util_strlcpy(name, nm, namesz);
    xmlFree(nm);
    xmlFree(val);
    xmlFree(pv);
    return rc;
}

static void device_defaults(cm_device *d)
{
    memset(d, 0, sizeof *d);
    d->peak_flops.v = d->mem_bw.v = d->h2d_bw.v = d->d2h_bw.v = -1;
    d->mem_bytes.v = d->launch_s.v = d->h2d_lat.v = d->d2h_lat.v = -1;
    d->slowdown = (cm_num){1, CM_SPEC};
    for (int k = 0; k < CM_NKINDS; k++) {
        d->eta_f[k] = (cm_num){1, CM_ESTIMATED};
        d->eta_m[k] = (cm_num){1, CM_ESTIMATED};
        d->fixed_s[k] = (cm_num){0, CM_ESTIMATED};
    }
}

static int parse_device(mctx *x, xmlNodePtr n, cm_device *d)
{
    device_defaults(d);
    char *nm = (char *)xmlGetProp(n, (const xmlChar *)"name");
    char *kind = (char *)xmlGetProp(n, (const xmlChar *)"kind");
    int rc = GD_OK;
    if (!nm || !*nm || strlen(nm) >= CM_NAMELEN || strchr(nm, ',') || strchr(nm, ';'))
        rc = bad(x, n, "<device> needs a name (under 32 characters, no ',' or ';')", NULL);
    else if (!kind || (strcmp(kind, "cuda") && strcmp(kind, "cpu") && strcmp(kind, "model")))
        rc = bad(x, n, "device kind must be cuda, cpu or model, not", kind ? kind : "");
    if (!rc) {
        util_strlcpy(d->name, nm, sizeof d->name);
        util_strlcpy(d->kind, kind, sizeof d->kind);
    }
    xmlFree(nm);
    xmlFree(kind);
    const cm_num *seen[16];
    int nseen = 0;
    for (xmlNodePtr c = n->children; c && !rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (!is_elem(c, "param"))
            return bad(x, c, "unknown element inside <device>:", (const char *)c->name);
        char pname[64];
        cm_num v;
        rc = read_param(x, c, pname, sizeof pname, &v);
        cm_num *slot = rc ? NULL : device_slot(d, pname);
        int dup = 0;
        for (int i = 0; slot && i < nseen; i++)
            dup |= seen[i] == slot;
        if (!rc && !slot)
            rc = bad(x, c, "unknown device param", pname);
        else if (!rc && dup)
            rc = bad(x, c, "device param given twice:", pname);
        else if (!rc) {
            *slot = v;
            if (nseen < 16)
                seen[nseen++] = slot;
        }
    }
    if (rc)
        return rc;
    const cm_num *need[] = {&d->peak_flops, &d->mem_bw, &d->mem_bytes, &d->launch_s,
                            &d->h2d_bw, &d->h2d_lat, &d->d2h_bw, &d->d2h_lat};
    static const char *const needn[] = {"peak_flops", "mem_bw", "mem_bytes",
        "launch_s", "h2d_bw", "h2d_lat", "d2h_bw", "d2h_lat"};
    for (int i = 0; i < 8; i++)
        if (need[i]->v < 0)
            return bad(x, n, "device lacks param", needn[i]);
    if (d->peak_flops.v <= 0 || d->mem_bw.v <= 0 || d->h2d_bw.v <= 0 || d->d2h_bw.v <= 0)
        return bad(x, n, "rates (peak_flops, mem_bw, h2d_bw, d2h_bw) must be > 0 on device", d->name);
    if (d->mem_bytes.v <= 0)
        return bad(x, n, "mem_bytes must be > 0 on device", d->name);
    if (d->slowdown.v < 1)
        return bad(x, n, "slowdown must be >= 1 on device", d->name);
    for (int k = 0; k < CM_NKINDS; k++)
        if (d->eta_f[k].v <= 0 || d->eta_m[k].v <= 0)
            return bad(x, n, "efficiencies must be > 0 on device", d->name);
    return GD_OK;
}

static int dev_index(const cm_machine *m, const char *name)
{
    for (int i = 0; i < m->ndev; i++)
        if (name && !strcmp(m->dev[i].name, name))
            return i;
    return -1;
}

static int parse_link(mctx *x, xmlNodePtr n, cm_machine *m)
{
    char *from = (char *)xmlGetProp(n, (const xmlChar *)"from");
    char *to = (char *)xmlGetProp(n, (const xmlChar *)"to");
    char *peer = (char *)xmlGetProp(n, (const xmlChar *)"peer");
    int a = dev_index(m, from), b = dev_index(m, to), rc = GD_OK;
    if (a < 0 || b < 0 || a == b)
        rc = bad(x, n, "<link> from/to must name two different devices "
                 "declared above it", NULL);
    else
        m->peer[a][b] = peer && !strcmp(peer, "yes");
    xmlFree(from);
    xmlFree(to);
    xmlFree(peer);
    int got = 0;
    for (xmlNodePtr c = n->children; c && !rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        char pname[64];
        cm_num v;
        if (!is_elem(c, "param"))
            return bad(x, c, "unknown element inside <link>:", (const char *)c->name);
        rc = read_param(x, c, pname, sizeof pname, &v);
        if (rc)
            break;
        if (!strcmp(pname, "bw") && v.v > 0)
            m->p2p_bw[a][b] = v, got |= 1;
        else if (!strcmp(pname, "lat"))
            m->p2p_lat[a][b] = v, got |= 2;
        else
            rc = bad(x, c, "link params are bw (> 0) and lat, not", pname);
    }
    if (!rc && got != 3)
        rc = bad(x, n, "<link> needs params bw and lat", NULL);
    return rc;
}

static int machine_param(mctx *x, xmlNodePtr c, cm_machine *m, int *got)
{
    char pname[64];
    cm_num v;
    int rc = read_param(x, c, pname, sizeof pname, &v);
    if (rc)
        return rc;
    if (!strcmp(pname, "setup_s"))
        m->setup_s = v, *got |= 1;
    else if (!strcmp(pname, "setup_dev_s"))
        m->setup_dev_s = v, *got |= 2;
    else if (!strcmp(pname, "host_bw") && v.v > 0)
        m->host_bw = v, *got |= 4;
    else
        return bad(x, c, "machine params are setup_s, setup_dev_s, host_bw (> 0); not", pname);
    return GD_OK;
}

static int parse_machine(mctx *x, xmlNodePtr root, cm_machine *m)
{
    memset(m, 0, sizeof *m);
    if (!is_elem(root, "machine"))
        return bad(x, root, "root element must be <machine>, not", (const char *)root->name);
    char *nm = (char *)xmlGetProp(root, (const xmlChar *)"name");
    char *ind = (char *)xmlGetProp(root, (const xmlChar *)"induced");
    util_strlcpy(m->name, nm ? nm : "", sizeof m->name);
    m->induced = ind && !strcmp(ind, "yes");
    xmlFree(nm);
    xmlFree(ind);
    if (!m->name[0])
        return bad(x, root, "<machine> needs a name", NULL);
    int got = 0, rc = GD_OK;
    for (xmlNodePtr c = root->children; c && !rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (is_elem(c, "param"))
            rc = machine_param(x, c, m, &got);
        else if (is_elem(c, "device")) {
            if (m->ndev == CM_MAXDEV)
                return bad(x, c, "too many devices (at most 8)", NULL);
            rc = parse_device(x, c, &m->dev[m->ndev]);
            if (!rc && dev_index(m, m->dev[m->ndev].name) >= 0)
                rc = bad(x, c, "duplicate device", m->dev[m->ndev].name);
            m->ndev += !rc;
        } else if (is_elem(c, "link"))
            rc = parse_link(x, c, m);
        else if (!is_elem(c, "description"))
            rc = bad(x, c, "unknown element inside <machine>:", (const char *)c->name);
    }
    if (rc)
        return rc;
    if (m->ndev == 0)
        return bad(x, root, "machine has no <device>", NULL);
    if (got != 7)
        return bad(x, root, "machine needs params setup_s, setup_dev_s and host_bw", NULL);
    for (int a = 0; a < m->ndev; a++)
        for (int b = 0; b < m->ndev; b++)
            if (a != b && m->peer[a][b] && m->p2p_bw[a][b].v <= 0)
                return bad(x, root, "peer link without bandwidth from", m->dev[a].name);
    return GD_OK;
}

int mach_load_file(const char *path, cm_machine *m, gd_err *err)
{
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: no such machine file", path);
    /* the campaigns' reader: a regular file of at most 16 MiB, a DOCTYPE
     * refused before any entity is declared */
    xmlDocPtr doc;
    int rc = xs_read(path, "machine descriptor", &doc, err);
    if (rc)
        return rc;
    mctx x = {path, err};
    rc = parse_machine(&x, xmlDocGetRootElement(doc), m);
    xmlFreeDoc(doc);
    if (!rc)
        util_strlcpy(m->source, path, sizeof m->source);
    return rc;
}

int mach_load(const char *name, cm_machine *m, gd_err *err)
{
    size_t n = strlen(name);
    if (strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".xml")))
        return mach_load_file(name, m, err);
    char dir[PATH_MAX], sub[PATH_MAX], path[PATH_MAX];
    int rc = util_datadir(dir, sizeof dir, err);
    if (rc)
        return rc;
    util_path_join(sub, sizeof sub, dir, "machines");
    char file[128];
    snprintf(file, sizeof file, "%s.xml", name);
    util_path_join(path, sizeof path, sub, file);
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "unknown machine \"%s\" (no %s; presets: "
                       "hetero-4, uni-server-1gpu, uni-server-2gpu-induced, "
                       "or local-cpu from `gpudse machine probe`)", name, path);
    return mach_load_file(path, m, err);
}

/* ---- writing ---- */

static void put_param(util_buf *b, const char *indent, const char *name,
                      cm_num v)
{
    util_buf_printf(b, "%s<param name=\"%s\" value=\"%.6g\" prov=\"%s\"/>\n",
                    indent, name, v.v, cm_prov_name(v.prov));
}

static void put_device(util_buf *b, const cm_device *d)
{
    const char *in = "    ";
    util_buf_printf(b, "  <device name=\"%s\" kind=\"%s\">\n", d->name, d->kind);
    put_param(b, in, "peak_flops", d->peak_flops);
    put_param(b, in, "mem_bw", d->mem_bw);
    put_param(b, in, "mem_bytes", d->mem_bytes);
    put_param(b, in, "launch_s", d->launch_s);
    put_param(b, in, "slowdown", d->slowdown);
    put_param(b, in, "h2d_bw", d->h2d_bw);
    put_param(b, in, "h2d_lat", d->h2d_lat);
    put_param(b, in, "d2h_bw", d->d2h_bw);
    put_param(b, in, "d2h_lat", d->d2h_lat);
    for (int k = 0; k < CM_NKINDS; k++) {
        char nm[32];
        snprintf(nm, sizeof nm, "eta_f.%s", cm_kind_name(k));
        put_param(b, in, nm, d->eta_f[k]);
        snprintf(nm, sizeof nm, "eta_m.%s", cm_kind_name(k));
        put_param(b, in, nm, d->eta_m[k]);
        snprintf(nm, sizeof nm, "fixed_s.%s", cm_kind_name(k));
        put_param(b, in, nm, d->fixed_s[k]);
    }
    util_buf_puts(b, "  </device>\n");
}

void mach_to_xml(const cm_machine *m, util_buf *b)
{
    util_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<machine name=\"%s\" induced=\"%s\">\n", m->name,
                    m->induced ? "yes" : "no");
    put_param(b, "  ", "setup_s", m->setup_s);
    put_param(b, "  ", "setup_dev_s", m->setup_dev_s);
    put_param(b, "  ", "host_bw", m->host_bw);
    for (int i = 0; i < m->ndev; i++)
        put_device(b, &m->dev[i]);
    for (int a = 0; a < m->ndev; a++)
        for (int c = 0; c < m->ndev; c++) {
            if (a == c || (m->p2p_bw[a][c].v <= 0 && !m->peer[a][c]))
                continue;
            util_buf_printf(b, "  <link from=\"%s\" to=\"%s\" peer=\"%s\">\n",
                            m->dev[a].name, m->dev[c].name,
                            m->peer[a][c] ? "yes" : "no");
            put_param(b, "    ", "bw", m->p2p_bw[a][c]);
            put_param(b, "    ", "lat", m->p2p_lat[a][c]);
            util_buf_puts(b, "  </link>\n");
        }
    util_buf_puts(b, "</machine>\n");
}

int mach_save(const cm_machine *m, const char *path, gd_err *err)
{
    util_buf b;
    util_buf_init(&b);
    mach_to_xml(m, &b);
    int rc = util_write_file_atomic(path, b.s, b.len, err);
    util_buf_free(&b);
    return rc;
}

/* ---- probe ---- */

int mach_probe(int ndev, const double *slowdown, cm_machine *m, gd_err *err)
{
    ms_probe pr;
    int rc = ms_probe_cpu(&pr, err);
    if (rc)
        return rc;
    if (ndev <= 0)
        ndev = pr.cores;
    if (ndev > CM_MAXDEV)
        ndev = CM_MAXDEV;
    memset(m, 0, sizeof *m);
    util_strlcpy(m->name, "local-cpu", sizeof m->name);
    util_strlcpy(m->source, "probe", sizeof m->source);
    m->setup_s = (cm_num){pr.setup_s, CM_MEASURED};
    m->setup_dev_s = (cm_num){pr.setup_dev_s, CM_MEASURED};
    m->host_bw = (cm_num){pr.copy_bw, CM_MEASURED};
    for (int i = 0; i < ndev; i++) {
        cm_device *d = &m->dev[i];
        device_defaults(d);
        snprintf(d->name, sizeof d->name, "cpu%d", i);
        util_strlcpy(d->kind, "cpu", sizeof d->kind);
        d->peak_flops = (cm_num){pr.flops, CM_MEASURED};
        d->mem_bw = (cm_num){pr.stream_bw, CM_MEASURED};
        d->mem_bytes = (cm_num){pr.mem_bytes / ndev, CM_MEASURED};
        d->launch_s = (cm_num){pr.launch_s, CM_MEASURED};
        double sd = slowdown && slowdown[i] >= 1 ? slowdown[i] : 1;
        d->slowdown = (cm_num){sd, CM_SPEC};   /* induced: set, not measured */
        d->h2d_bw = d->d2h_bw = (cm_num){pr.copy_bw, CM_MEASURED};
        d->h2d_lat = d->d2h_lat = (cm_num){pr.copy_lat, CM_MEASURED};
        if (sd > 1)
            m->induced = 1;
    }
    m->ndev = ndev;
    for (int a = 0; a < ndev; a++)
        for (int b = 0; b < ndev; b++)
            if (a != b) {
                m->peer[a][b] = 1;
                m->p2p_bw[a][b] = (cm_num){pr.copy_bw, CM_MEASURED};
                m->p2p_lat[a][b] = (cm_num){pr.sync_lat, CM_MEASURED};
            }
    return GD_OK;
}

int mach_parse_factors(const char *s, double *f, int *n)
{
    char buf[256];
    util_strlcpy(buf, s, sizeof buf);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (*n == CM_MAXDEV || util_parse_double(t, &f[*n]) != 0 || f[*n] < 1)
            return -1;
        (*n)++;
    }
    return *n > 0 ? 0 : -1;
}

int mach_factors_opt(void *value, const char *arg, gd_err *err)
{
    mach_factors *m = value;
    if (mach_parse_factors(arg, m->f, &m->n) == 0)
        return GD_OK;
    m->n = 0;
    return gd_errf(err, GD_EINPUT, "--slowdown takes 1 to %d factors "
                   "separated by commas, each a number >= 1, not \"%s\"",
                   CM_MAXDEV, arg);
}

/* machine probe: ndev devices (0: one per online core), slowed down by
 * sd's factors; the descriptor into out, else on stdout. */
static int probe_cmd(long ndev, const mach_factors *sd, const char *out)
{
    if (ndev == 0 && sd->n > 0)
        ndev = sd->n;
    cm_machine m;
    gd_err err = {0, ""};
    int rc = mach_probe((int)ndev, sd->n ? sd->f : NULL, &m, &err);
    if (!rc && out)
        rc = mach_save(&m, out, &err);
    if (rc) {
        fprintf(stderr, "gpudse: %s\n", err.msg);
        return rc;
    }
    if (!out) {
        util_buf b;
        util_buf_init(&b);
        mach_to_xml(&m, &b);
        fputs(b.s, stdout);
        util_buf_free(&b);
    } else {
        printf("%s: %d devices (MEASURED(cpu) rates)\n", out, m.ndev);
    }
    return GD_OK;
}

int cmd_machine(int argc, char **argv)
{
    const char *out = NULL;
    long ndev = 0;
    mach_factors sd = {{0}, 0};
    const po_option opts[] = {
        PO_STRING("-o", "FILE", &out,
                  "write the descriptor to FILE (default: stdout)"),
        PO_LONG("--devices", "N", &ndev, 1, CM_MAXDEV, NULL,
                "number of devices to describe"),
        PO_CALLBACK("--slowdown", "a,b,...", &sd, mach_factors_opt,
                    "per-device slowdown factors, each >= 1"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "machine",
        "usage: gpudse machine probe [-o FILE] [--devices N] [--slowdown a,b,...]\n"
        "       gpudse machine show NAME|FILE\n",
        "Describe this machine's cores as split devices (probe), or print a\n"
        "machine descriptor (show).\n",
        opts, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    argc = n;
    if (argc == 1 && !strcmp(argv[0], "probe"))
        return probe_cmd(ndev, &sd, out);
    if (argc == 2 && !strcmp(argv[0], "show") && (out || ndev || sd.n))
        return po_usage_error(&cmd, "machine show takes no options");
    if (argc == 2 && !strcmp(argv[0], "show")) {
        cm_machine m;
        gd_err err = {0, ""};
        if (mach_load(argv[1], &m, &err)) {
            fprintf(stderr, "gpudse: %s\n", err.msg);
            return err.code;
        }
        util_buf b;
        util_buf_init(&b);
        mach_to_xml(&m, &b);
        fputs(b.s, stdout);
        util_buf_free(&b);
        return GD_OK;
    }
    if (argc >= 1 && !strcmp(argv[0], "probe"))
        return po_usage_error(&cmd, "machine probe takes no argument \"%s\"",
                              argv[1]);
    if (argc >= 1 && !strcmp(argv[0], "show"))
        return po_usage_error(&cmd, "machine show takes one machine (NAME "
                              "or FILE)");
    return argc ? po_usage_error(&cmd, "unknown subcommand \"%s\" (probe "
                                 "or show)", argv[0])
                : po_usage_error(&cmd, "machine needs a subcommand: probe "
                                 "or show");
}
