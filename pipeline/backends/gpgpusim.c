/* gpgpusim: writes a job's gpgpusim.config and interconnect file from the
 * templates for one design point, following the rewrite rules of
 * docs/gpgpusim.md, and validates GPGPU-Sim cache configuration strings.
 * (Statistics, power and failure classification: gpgpusim_stats.c.) */
#include "gpgpusim.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- locating one key line ---------------------------------------------- */

/* Where a key's value token sits in a text. */
typedef struct {
    size_t tok_start, tok_end;   /* value token [start, end) */
    int line;                    /* 1-based */
} key_pos;

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Whether the line starting at p (ending at e) is `KEY<ws>...`, allowing
 * leading blanks. Sets *after to the first byte after the key. */
static int line_has_key(const char *p, const char *e, const char *key,
                        const char **after)
{
    while (p < e && is_blank(*p))
        p++;
    size_t kl = strlen(key);
    if ((size_t)(e - p) <= kl || memcmp(p, key, kl) != 0 || !is_blank(p[kl]))
        return 0;
    *after = p + kl;
    return 1;
}

/* Find the value token of key: exactly one matching line. Returns the
 * number of matching lines (pos filled from the first; lines of the first
 * two in l1/l2 for messages). */
static int find_key(const char *text, const char *key, key_pos *pos,
                    int *l2)
{
    int count = 0, line = 1;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        if (!e)
            e = p + strlen(p);
        const char *after;
        if (line_has_key(p, e, key, &after)) {
            if (count == 0) {
                const char *t = after;
                while (t < e && is_blank(*t))
                    t++;
                const char *te = t;
                while (te < e && !isspace((unsigned char)*te))
                    te++;
                pos->tok_start = (size_t)(t - text);
                pos->tok_end = (size_t)(te - text);
                pos->line = line;
            } else if (count == 1 && l2) {
                *l2 = line;
            }
            count++;
        }
        if (!*e)
            break;
        p = e + 1;
        line++;
    }
    return count;
}

/* Find exactly one line of key with a non-empty value, or fail naming the
 * template. */
static int find_one(const char *text, const char *name, const char *key,
                    key_pos *pos, gd_err *err)
{
    int second = 0;
    int n = find_key(text, key, pos, &second);
    if (n == 0)
        return gd_errf(err, GD_EINPUT, "%s: no line `%s VALUE` to rewrite",
                       name, key);
    if (n > 1)
        return gd_errf(err, GD_EINPUT,
                       "%s:%d: `%s` appears on more than one line (also "
                       "line %d); keep exactly one", name, second, key,
                       pos->line);
    if (pos->tok_start == pos->tok_end)
        return gd_errf(err, GD_EINPUT, "%s:%d: `%s` has no value", name,
                       pos->line, key);
    return GD_OK;
}

int gsim_config_value(const char *text, const char *key, char *val, size_t n)
{
    key_pos pos;
    if (find_key(text, key, &pos, NULL) != 1 || pos.tok_start == pos.tok_end)
        return -1;
    size_t len = pos.tok_end - pos.tok_start;
    if (len >= n)
        len = n ? n - 1 : 0;
    if (n) {
        memcpy(val, text + pos.tok_start, len);
        val[len] = '\0';
    }
    return 0;
}

/* Replace the value token of key (exactly one line) with value, in place in
 * the malloc'd *text. */
static int set_value(char **text, const char *name, const char *key,
                     const char *value, gd_err *err)
{
    key_pos pos;
    int rc = find_one(*text, name, key, &pos, err);
    if (rc)
        return rc;
    util_buf b;
    util_buf_init(&b);
    util_buf_add(&b, *text, pos.tok_start);
    util_buf_puts(&b, value);
    util_buf_puts(&b, *text + pos.tok_end);
    free(*text);
    *text = b.s;
    return GD_OK;
}

static int set_int(char **text, const char *name, const char *key, long v,
                   gd_err *err)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    return set_value(text, name, key, buf, err);
}

/* ---- cache strings ------------------------------------------------------- */

/* A cache string split into its comma groups and colon fields. */
#define CS_MAXGROUPS 6
#define CS_MAXFIELDS 6
#define CS_FIELDLEN 32
typedef struct {
    int ngroups;
    int nfields[CS_MAXGROUPS];
    char f[CS_MAXGROUPS][CS_MAXFIELDS][CS_FIELDLEN];
} cache_str;

static int cs_split(const char *s, cache_str *cs)
{
    memset(cs, 0, sizeof *cs);
    int g = 0, fi = 0;
    size_t k = 0;
    for (const char *p = s;; p++) {
        if (*p == ',' || *p == ':' || *p == '\0') {
            cs->f[g][fi][k] = '\0';
            k = 0;
            if (*p == ':') {
                if (++fi >= CS_MAXFIELDS)
                    return -1;
                continue;
            }
            cs->nfields[g] = fi + 1;
            fi = 0;
            g++;
            if (*p == '\0')
                break;
            if (g >= CS_MAXGROUPS)
                return -1;
            continue;
        }
        if (k + 1 >= CS_FIELDLEN)
            return -1;
        cs->f[g][fi][k++] = *p;
    }
    cs->ngroups = g;
    return 0;
}

static void cs_join(const cache_str *cs, char *out, size_t n)
{
    util_buf b;
    util_buf_init(&b);
    for (int g = 0; g < cs->ngroups; g++) {
        if (g)
            util_buf_puts(&b, ",");
        for (int i = 0; i < cs->nfields[g]; i++) {
            if (i)
                util_buf_puts(&b, ":");
            util_buf_puts(&b, cs->f[g][i]);
        }
    }
    util_strlcpy(out, b.s ? b.s : "", n);
    util_buf_free(&b);
}

/* Write the reason why a cache string is invalid; returns -1. */
static int cs_fail(char *why, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int cs_fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A field that must be a positive integer (power of two when pow2). */
static int cs_uint(const char *f, int pow2, long *v)
{
    if (util_parse_long(f, 1, 1L << 30, v) != 0)
        return -1;
    if (pow2 && (*v & (*v - 1)) != 0)
        return -1;
    return 0;
}

/* One character from set. */
static int cs_char(const char *f, const char *set)
{
    return strlen(f) == 1 && strchr(set, f[0]) != NULL;
}

static int cs_shape_ok(const cache_str *cs, char *why, size_t n)
{
    if (cs->ngroups < 4 || cs->ngroups > 5 || cs->nfields[0] != 4 ||
        cs->nfields[1] != 5 || cs->nfields[2] != 3 || cs->nfields[3] > 2 ||
        (cs->ngroups == 5 && cs->nfields[4] != 1)) {
        snprintf(why, n, "not of the form <type>:<nsets>:<bsize>:<assoc>,"
                 "<rep>:<wr>:<alloc>:<wr_alloc>:<set_index>,<mshr>:<N>:"
                 "<merge>,<mq>[:<fifo>]");
        return -1;
    }
    return 0;
}

static int cs_fields_ok(const cache_str *cs, char *why, size_t n)
{
    long v;
    static const char *const names[] = {"nsets", "bsize", "assoc"};
    if (!cs_char(cs->f[0][0], "NS"))
        return cs_fail(why, n, "cache type '%s' is not N or S",
                        cs->f[0][0]);
    for (int i = 1; i <= 3; i++)
        if (cs_uint(cs->f[0][i], i < 3, &v))
            return cs_fail(why, n, "%s '%s' is not a positive %s",
                            names[i - 1], cs->f[0][i],
                            i < 3 ? "power of two" : "integer");
    static const char *const sets[] = {"LF", "RBTEL", "mfs", "NWFL", "HPCLX"};
    static const char *const what[] = {"replacement", "write", "allocation",
                                       "write-allocate", "set-index"};
    for (int i = 0; i < 5; i++)
        if (!cs_char(cs->f[1][i], sets[i]))
            return cs_fail(why, n, "%s policy '%s' is not one of %s",
                            what[i], cs->f[1][i], sets[i]);
    if (!cs_char(cs->f[2][0], "FTAS"))
        return cs_fail(why, n, "MSHR type '%s' is not one of FTAS",
                        cs->f[2][0]);
    for (int i = 1; i < 3; i++)
        if (cs_uint(cs->f[2][i], 0, &v))
            return cs_fail(why, n, "MSHR field '%s' is not a positive "
                            "integer", cs->f[2][i]);
    for (int g = 3; g < cs->ngroups; g++)
        for (int i = 0; i < cs->nfields[g]; i++)
            if (util_parse_long(cs->f[g][i], 0, 1L << 30, &v))
                return cs_fail(why, n, "queue field '%s' is not an integer",
                                cs->f[g][i]);
    return 0;
}

/* The combinations GPGPU-Sim aborts or asserts on. */
static int cs_combination_ok(const cache_str *cs, char *why, size_t n)
{
    char wr = cs->f[1][1][0], alloc = cs->f[1][2][0];
    char wra = cs->f[1][3][0], idx = cs->f[1][4][0];
    long nsets = atol(cs->f[0][1]), bsize = atol(cs->f[0][2]);
    if (wr == 'B' && alloc == 'f')
        return cs_fail(why, n, "write-back (B) with allocate-on-fill (f) "
                        "aborts GPGPU-Sim");
    if ((wra == 'F' || wra == 'L') && alloc == 'f')
        return cs_fail(why, n, "%s (%c) with allocate-on-fill (f) aborts "
                        "GPGPU-Sim", wra == 'F' ? "fetch-on-write" :
                        "lazy-fetch-on-read", wra);
    if (idx == 'H' && nsets != 32 && nsets != 64)
        return cs_fail(why, n, "the H (Fermi hash) set-index function needs "
                        "32 or 64 sets, not %ld; use L", nsets);
    if (cs->f[0][0][0] == 'S' && bsize != 128)
        return cs_fail(why, n, "a sector cache (S) needs 128-byte lines, "
                        "not %ld", bsize);
    return 0;
}

int gsim_cache_string_check(const char *s, char *why, size_t n)
{
    char dummy[8];
    if (!why || n == 0) {
        why = dummy;
        n = sizeof dummy;
    }
    if (strcmp(s, "none") == 0)
        return 0;
    cache_str cs;
    if (cs_split(s, &cs) != 0) {
        snprintf(why, n, "too many fields or a field too long");
        return -1;
    }
    if (cs_shape_ok(&cs, why, n) || cs_fields_ok(&cs, why, n) ||
        cs_combination_ok(&cs, why, n))
        return -1;
    return 0;
}

/* Set the number of sets (and, when set_index is not 0, the set-index
 * function) of the cache string of key. */
static int set_cache_sets(char **text, const char *name, const char *key,
                          int nsets, char set_index, gd_err *err)
{
    key_pos pos;
    int rc = find_one(*text, name, key, &pos, err);
    if (rc)
        return rc;
    char old[256], why[200], neu[256];
    size_t len = pos.tok_end - pos.tok_start;
    if (len >= sizeof old)
        return gd_errf(err, GD_EINPUT, "%s:%d: `%s` value too long", name,
                       pos.line, key);
    memcpy(old, *text + pos.tok_start, len);
    old[len] = '\0';
    cache_str cs;
    if (cs_split(old, &cs) || cs_shape_ok(&cs, why, sizeof why))
        return gd_errf(err, GD_EINPUT, "%s:%d: `%s %s`: not a cache string "
                       "whose sets can be set", name, pos.line, key, old);
    snprintf(cs.f[0][1], CS_FIELDLEN, "%d", nsets);
    if (set_index)
        snprintf(cs.f[1][4], CS_FIELDLEN, "%c", set_index);
    cs_join(&cs, neu, sizeof neu);
    return set_value(text, name, key, neu, err);
}

/* Cache-string keys checked after rewriting. */
static const char *const cache_keys[] = {
    "-gpgpu_cache:dl1", "-gpgpu_cache:dl1PrefL1", "-gpgpu_cache:dl1PrefShared",
    "-gpgpu_cache:dl2", "-gpgpu_cache:il1", "-gpgpu_tex_cache:l1",
    "-gpgpu_const_cache:l1",
};

/* Validate every cache string present in the text. */
static int check_cache_strings(const char *text, const char *name,
                               gd_err *err)
{
    for (size_t i = 0; i < sizeof cache_keys / sizeof cache_keys[0]; i++) {
        key_pos pos;
        if (find_key(text, cache_keys[i], &pos, NULL) == 0)
            continue;
        char val[256], why[200];
        size_t len = pos.tok_end - pos.tok_start;
        if (len >= sizeof val)
            len = sizeof val - 1;
        memcpy(val, text + pos.tok_start, len);
        val[len] = '\0';
        if (gsim_cache_string_check(val, why, sizeof why) != 0)
            return gd_errf(err, GD_EINPUT, "%s:%d: invalid cache config "
                           "`%s %s`: %s", name, pos.line, cache_keys[i],
                           val, why);
    }
    return GD_OK;
}

/* ---- the whole config ---------------------------------------------------- */

static const char *scheduler_text(int sched)
{
    switch (sched) {
    case SCHED_LRR:
        return "lrr";
    case SCHED_TWO_LEVEL:
        return "two_level_active:6:0:1";
    default:
        return "gto";
    }
}

/* The L1 set-index function for a number of sets. */
static char l1_set_index(int sets)
{
    return (sets == 32 || sets == 64) ? 'H' : 'L';
}

static int rewrite_knobs(char **t, const char *name, const gpu_config *c,
                         gd_err *err)
{
    int rc;
    if ((rc = set_int(t, name, "-gpgpu_n_clusters", c->n_clusters, err)) ||
        (rc = set_int(t, name, "-gpgpu_n_cores_per_cluster",
                      c->cores_per_cluster, err)) ||
        (rc = set_int(t, name, "-gpgpu_n_mem", c->n_mem, err)) ||
        (rc = set_int(t, name, "-gpgpu_shmem_size", c->shmem_size, err)) ||
        (rc = set_int(t, name, "-gpgpu_shmem_sizeDefault", c->shmem_size,
                      err)) ||
        (rc = set_value(t, name, "-gpgpu_scheduler",
                        scheduler_text(c->scheduler), err)) ||
        (rc = set_int(t, name, "-gpgpu_num_sched_per_core",
                      c->num_sched_per_core, err)) ||
        (rc = set_cache_sets(t, name, "-gpgpu_cache:dl1", c->l1_sets,
                             l1_set_index(c->l1_sets), err)) ||
        (rc = set_cache_sets(t, name, "-gpgpu_cache:dl2", c->l2_sets, 0,
                             err)))
        return rc;
    return GD_OK;
}

int gsim_rewrite_config_text(const char *text, const char *name,
                             const gpu_config *c, char **out, gd_err *err)
{
    *out = NULL;
    char *t = strdup(text);
    if (!t)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = rewrite_knobs(&t, name, c, err);
    if (rc == GD_OK)
        rc = check_cache_strings(t, name, err);
    if (rc) {
        free(t);
        return rc;
    }
    *out = t;
    return GD_OK;
}

/* The line `k = N;` of a BookSim file: key "k", blanks, '='. */
static int icnt_k_line(const char *p, const char *e, const char **num)
{
    while (p < e && is_blank(*p))
        p++;
    if (p >= e || *p != 'k')
        return 0;
    p++;
    while (p < e && is_blank(*p))
        p++;
    if (p >= e || *p != '=')
        return 0;
    p++;
    while (p < e && is_blank(*p))
        p++;
    *num = p;
    return 1;
}

int gsim_rewrite_icnt_text(const char *text, const char *name,
                           const gpu_config *c, int subpart, char **out,
                           gd_err *err)
{
    *out = NULL;
    int count = 0, line = 1, at = 0;
    const char *num = NULL, *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        if (!e)
            e = p + strlen(p);
        const char *n;
        if (icnt_k_line(p, e, &n)) {
            if (count++ == 0) {
                num = n;
                at = line;
            } else {
                return gd_errf(err, GD_EINPUT, "%s:%d: a second `k = ...;` "
                               "line (first on line %d); keep exactly one",
                               name, line, at);
            }
        }
        if (!*e)
            break;
        p = e + 1;
        line++;
    }
    if (count == 0)
        return gd_errf(err, GD_EINPUT, "%s: no `k = N;` line to rewrite",
                       name);
    const char *ne = num;
    while (isdigit((unsigned char)*ne))
        ne++;
    if (ne == num)
        return gd_errf(err, GD_EINPUT, "%s:%d: `k =` is not followed by a "
                       "number", name, at);
    util_buf b;
    util_buf_init(&b);
    util_buf_add(&b, text, (size_t)(num - text));
    util_buf_printf(&b, "%d", c->n_clusters + subpart * c->n_mem);
    util_buf_puts(&b, ne);
    *out = b.s;
    return GD_OK;
}

/* ---- files --------------------------------------------------------------- */

/* A file name given in the config must be a plain name inside the template
 * directory (GPGPU-Sim reads it from its working directory). */
static int plain_name(const char *cfgname, const char *key, const char *v,
                      gd_err *err)
{
    if (!*v || strchr(v, '/') || strcmp(v, ".") == 0 || strcmp(v, "..") == 0)
        return gd_errf(err, GD_EINPUT, "%s: `%s %s` must name a file in the "
                       "template directory (no '/')", cfgname, key, v);
    return GD_OK;
}

/* What the job directory will hold besides gpgpusim.config. */
typedef struct {
    char *config;        /* rewritten config text */
    char *icnt;          /* rewritten interconnect text */
    char icnt_name[256];
    int power_on;
    char xml_name[256];
} job_files;

static void job_files_free(job_files *f)
{
    free(f->config);
    free(f->icnt);
}

static int sub_partitions(const char *text)
{
    char v[32];
    long n;
    if (gsim_config_value(text, "-gpgpu_n_sub_partition_per_mchannel", v,
                          sizeof v) != 0 ||
        util_parse_long(v, 1, 64, &n) != 0)
        return 1;   /* GPGPU-Sim's default */
    return (int)n;
}

/* Read the interconnect template named by the config and rewrite it. */
static int prepare_icnt(const char *dir, const char *cfgpath,
                        const char *tmpl, const gpu_config *c, job_files *f,
                        gd_err *err)
{
    if (gsim_config_value(tmpl, "-inter_config_file", f->icnt_name,
                          sizeof f->icnt_name) != 0)
        return gd_errf(err, GD_EINPUT, "%s: needs exactly one "
                       "`-inter_config_file NAME` line", cfgpath);
    int rc = plain_name(cfgpath, "-inter_config_file", f->icnt_name, err);
    if (rc)
        return rc;
    char path[4096], *text = NULL;
    if (util_path_join(path, sizeof path, dir, f->icnt_name))
        return gd_errf(err, GD_EENV, "%s: path too long", dir);
    if ((rc = util_read_file(path, &text, NULL, err)))
        return rc;
    rc = gsim_rewrite_icnt_text(text, path, c, sub_partitions(tmpl),
                                &f->icnt, err);
    free(text);
    return rc;
}

/* Power model: on when -power_simulation_enabled is 1; then the XML name. */
static int prepare_power(const char *dir, const char *cfgpath,
                         const char *tmpl, job_files *f, gd_err *err)
{
    char v[32];
    f->power_on = gsim_config_value(tmpl, "-power_simulation_enabled", v,
                                    sizeof v) == 0 && strcmp(v, "1") == 0;
    if (!f->power_on)
        return GD_OK;
    if (gsim_config_value(tmpl, "-gpuwattch_xml_file", f->xml_name,
                          sizeof f->xml_name) != 0)
        return gd_errf(err, GD_EINPUT, "%s: power is on but there is no "
                       "single `-gpuwattch_xml_file NAME` line", cfgpath);
    int rc = plain_name(cfgpath, "-gpuwattch_xml_file", f->xml_name, err);
    if (rc)
        return rc;
    char path[4096];
    if (util_path_join(path, sizeof path, dir, f->xml_name))
        return gd_errf(err, GD_EENV, "%s: path too long", dir);
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: power is on but %s does not "
                       "exist", cfgpath, path);
    return GD_OK;
}

int gsim_set_user_options(char **text, const char *name,
                          const space_def *sp, const gpu_config *c,
                          gd_err *err)
{
    for (int u = 0; sp && u < sp->nuser; u++) {
        const char *opt = sp->user[u].option;
        char val[SPACE_TEXTLEN];
        key_pos pos;
        if (!opt[0])
            continue;
        space_level_str(sp, SPACE_NKNOBS + u, c->user[u], val, sizeof val);
        if (find_key(*text, opt, &pos, NULL) == 0) {
            /* not in the template: a line of its own at the end */
            util_buf b;
            util_buf_init(&b);
            util_buf_puts(&b, *text);
            if (b.len && b.s[b.len - 1] != '\n')
                util_buf_puts(&b, "\n");
            util_buf_printf(&b, "# %s, set by gpudse\n%s %s\n",
                            sp->user[u].name, opt, val);
            free(*text);
            *text = b.s;
            continue;
        }
        int rc = set_value(text, name, opt, val, err);
        if (rc)
            return rc;
    }
    return GD_OK;
}

/* Everything the job needs, in memory; nothing written yet. */
static int prepare(const char *dir, const space_def *sp, const gpu_config *c,
                   job_files *f, gd_err *err)
{
    memset(f, 0, sizeof *f);
    char cfgpath[4096], *tmpl = NULL;
    if (util_path_join(cfgpath, sizeof cfgpath, dir, GSIM_CONFIG_NAME))
        return gd_errf(err, GD_EENV, "%s: path too long", dir);
    int rc = util_read_file(cfgpath, &tmpl, NULL, err);
    if (rc)
        return rc;
    rc = gsim_rewrite_config_text(tmpl, cfgpath, c, &f->config, err);
    if (!rc)
        rc = gsim_set_user_options(&f->config, cfgpath, sp, c, err);
    if (!rc)
        rc = prepare_icnt(dir, cfgpath, tmpl, c, f, err);
    if (!rc)
        rc = prepare_power(dir, cfgpath, tmpl, f, err);
    free(tmpl);
    if (rc)
        job_files_free(f);
    return rc;
}

static int write_text(const char *dir, const char *name, const char *text,
                      gd_err *err)
{
    char path[4096];
    if (util_path_join(path, sizeof path, dir, name))
        return gd_errf(err, GD_EENV, "%s: path too long", dir);
    return util_write_file_atomic(path, text, strlen(text), err);
}

static int copy_file(const char *src_dir, const char *dst_dir,
                     const char *name, gd_err *err)
{
    char src[4096], dst[4096], *data = NULL;
    size_t len = 0;
    if (util_path_join(src, sizeof src, src_dir, name) ||
        util_path_join(dst, sizeof dst, dst_dir, name))
        return gd_errf(err, GD_EENV, "%s: path too long", name);
    int rc = util_read_file(src, &data, &len, err);
    if (rc)
        return rc;
    rc = util_write_file_atomic(dst, data, len, err);
    free(data);
    return rc;
}

int gsim_write_configs(const char *template_dir, const space_def *sp,
                       const gpu_config *c, const char *job_dir, int *power_on,
                       gd_err *err)
{
    job_files f;
    int rc = prepare(template_dir, sp, c, &f, err);
    if (rc)
        return rc;
    rc = write_text(job_dir, f.icnt_name, f.icnt, err);
    if (!rc && f.power_on)
        rc = copy_file(template_dir, job_dir, f.xml_name, err);
    if (!rc)   /* the config last: its presence means the job dir is whole */
        rc = write_text(job_dir, GSIM_CONFIG_NAME, f.config, err);
    if (!rc && power_on)
        *power_on = f.power_on;
    job_files_free(&f);
    return rc;
}

int gsim_check_templates(const char *template_dir, gd_err *err)
{
    job_files f;
    gpu_config base = space_baseline();
    int rc = prepare(template_dir, NULL, &base, &f, err);
    if (rc) {
        if (err)
            err->code = GD_EINPUT;   /* a template that cannot work is input */
        return GD_EINPUT;
    }
    job_files_free(&f);
    return GD_OK;
}

int gsim_core_clock_mhz(const char *text, double *mhz)
{
    /* The log's dump holds the line once per dump of options; the first
     * occurrence is taken, so no exactly-one rule here. */
    const char *key = "-gpgpu_clock_domains";
    for (const char *p = text; (p = strstr(p, key)) != NULL; p++) {
        if (p != text && p[-1] != '\n')
            continue;
        const char *v = p + strlen(key);
        if (!is_blank(*v))
            continue;
        char *end;
        double d = strtod(v, &end);
        if (end == v || *end != ':' || !(d > 0))
            return -1;
        *mhz = d;
        return 0;
    }
    return -1;
}
