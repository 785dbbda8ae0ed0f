/* compare_out: what gpudse compare writes — the checks in severity order,
 * NEW_DIR/compare.json (sorted keys, no times: same inputs, same bytes),
 * the JUnit XML file (libxml2 xmlTextWriter; one testcase per workload x
 * check) and the terminal summary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/xmlwriter.h>
#include "compare_impl.h"

static const char *const kind_names[] = {"status", "coverage", "front",
                                         "metric", "calibration"};
static const char *const result_names[] = {"pass", "fail", "skipped"};
static const char *const dir_names[] = {"any", "higher-is-better",
                                        "lower-is-better", "any"};

void cmp_rel_text(double base, double now, char *out, size_t n)
{
    if (!isfinite(base) || !isfinite(now))
        snprintf(out, n, "%s", isnan(base) && isnan(now) ? "+0.00%" : "n/a");
    else if (base == now)
        snprintf(out, n, "+0.00%%");
    else if (base == 0)
        snprintf(out, n, "n/a (base 0)");
    else
        snprintf(out, n, "%+.2f%%", 100 * (now - base) / fabs(base));
}

/* ---- severity order --------------------------------------------------- */

static int rank(const cmp_check *c)
{
    int r = c->result == RES_FAIL ? 0 : c->result == RES_PASS ? 10 : 20;
    if (c->result == RES_FAIL)
        r += c->kind == CK_STATUS ? 0 : c->kind == CK_COVERAGE ? 1 : 2;
    return r;
}

/* Order of two check indices: failures first (status, coverage, then the
 * rest by how far over the threshold), ties in natural order. */
static int by_severity(const void *a, const void *b, const cmp_check *ck)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int ri = rank(&ck[i]), rj = rank(&ck[j]);
    if (ri != rj)
        return ri < rj ? -1 : 1;
    if (ck[i].max_ratio != ck[j].max_ratio)
        return ck[i].max_ratio > ck[j].max_ratio ? -1 : 1;
    return i < j ? -1 : i > j;
}

size_t *cmp_severity_order(const cmp_ctx *x)
{
    size_t *v = malloc((x->nck ? x->nck : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < x->nck; i++)
        v[i] = i;
    /* insertion sort: a few hundred checks, no global state needed */
    for (size_t i = 1; i < x->nck; i++) {
        size_t cur = v[i], j = i;
        while (j > 0 && by_severity(&cur, &v[j - 1], x->ck) < 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = cur;
    }
    return v;
}

/* ---- one line per check ----------------------------------------------- */

static const char *wl_text(const cmp_check *c)
{
    return c->workload[0] ? c->workload : "(campaign)";
}

static void thr_text(const cmp_check *c, char *out, size_t n)
{
    snprintf(out, n, "%g%% and %g (%s)", c->thr.relative_pct,
             c->thr.absolute, c->thr_source ? c->thr_source : "default");
}

static void item_text(const cmp_check *c, const cmp_item *it, char *out,
                      size_t n)
{
    char rel[32];
    if (c->kind == CK_METRIC || c->kind == CK_FRONT || c->kind == CK_CALIB) {
        cmp_rel_text(it->base, it->now, rel, sizeof rel);
        snprintf(out, n, "%s: %.10g -> %.10g (%+.6g)%s%s%s%s", rel, it->base,
                 it->now, it->now - it->base, it->label[0] ? " " : "",
                 it->label, it->config[0] ? " at " : "", it->config);
    } else {
        snprintf(out, n, "%s at %s", it->label, it->config);
    }
}

static void check_line(const cmp_check *c, char *out, size_t n)
{
    char thr[96], w[512] = "";
    if (c->nworst)
        item_text(c, &c->worst[0], w, sizeof w);
    thr_text(c, thr, sizeof thr);
    switch (c->kind) {
    case CK_STATUS:
        snprintf(out, n, "%zu new failure(s) among %zu jobs; %ld fixed, %ld "
                 "still failing%s%s", c->over, c->compared, c->fixed,
                 c->still, c->nworst ? "; first: " : "", w);
        break;
    case CK_COVERAGE:
        snprintf(out, n, "%ld job(s) missing in NEW, %ld with changed "
                 "fidelity, %ld only in NEW%s%s", c->missing, c->fidelity,
                 c->added, c->nworst ? "; first: " : "", w);
        break;
    case CK_METRIC:
        snprintf(out, n, "%zu of %zu jobs moved beyond %s the worse way "
                 "(%s)%s%s", c->over, c->compared, thr, dir_names[c->dir],
                 c->nworst ? "; worst " : "", w);
        break;
    default:
        snprintf(out, n, "%s%s (threshold %s)", c->note[0] ? c->note : "",
                 c->nworst && !c->note[0] ? w : "", thr);
        if (c->result == RES_SKIP)
            snprintf(out, n, "%s", c->note);
        break;
    }
}

/* "3 of 200 jobs improved beyond 1% and 0.5 (campaign), higher-is-better;
 * largest +10.00%: ..." for a check with improvements. */
static void gain_line(const cmp_check *c, char *out, size_t n)
{
    char thr[96], g[512] = "";
    thr_text(c, thr, sizeof thr);
    if (c->has_gain)
        item_text(c, &c->gain, g, sizeof g);
    snprintf(out, n, "%zu of %zu %s improved beyond %s (%s, from the %s)%s%s",
             c->improved, c->compared, c->kind == CK_METRIC ? "jobs"
             : "values", thr, dir_names[c->dir],
             c->dir_source ? c->dir_source : "default",
             c->has_gain ? "; largest " : "", g);
}

/* ---- compare.json ------------------------------------------------------ */

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void add_str_if(cJSON *o, const char *k, const char *v)
{
    if (v && *v)
        cJSON_AddStringToObject(o, k, v);
}

static cJSON *item_json(const cmp_check *c, const cmp_item *it)
{
    cJSON *o = cJSON_CreateObject();
    add_str_if(o, "key_base", it->key_base);
    add_str_if(o, "key_new", it->key_new);
    add_str_if(o, "config", it->config);
    add_str_if(o, "label", it->label);
    if (c->kind == CK_METRIC || c->kind == CK_FRONT || c->kind == CK_CALIB) {
        add_num(o, "base", it->base);
        add_num(o, "new", it->now);
        add_num(o, "delta", it->now - it->base);
        add_num(o, "relative_pct", it->base != 0
                ? 100 * (it->now - it->base) / fabs(it->base) : NAN);
    }
    return o;
}

static void kind_counts(cJSON *o, const cmp_check *c)
{
    if (c->kind == CK_STATUS) {
        cJSON_AddNumberToObject(o, "new_failures", (double)c->over);
        cJSON_AddNumberToObject(o, "fixed_failures", (double)c->fixed);
        cJSON_AddNumberToObject(o, "still_failing", (double)c->still);
    } else if (c->kind == CK_COVERAGE) {
        cJSON_AddNumberToObject(o, "missing_in_new", (double)c->missing);
        cJSON_AddNumberToObject(o, "fidelity_changed", (double)c->fidelity);
        cJSON_AddNumberToObject(o, "only_in_new", (double)c->added);
    } else if (c->kind == CK_FRONT) {
        cJSON *f = cJSON_AddObjectToObject(o, "front_points");
        cJSON_AddNumberToObject(f, "base", (double)c->nb);
        cJSON_AddNumberToObject(f, "new", (double)c->nn);
        cJSON_AddNumberToObject(o, "points_gained", (double)c->gained);
        cJSON_AddNumberToObject(o, "points_lost", (double)c->lost);
    }
}

static cJSON *check_json(const cmp_check *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "workload", c->workload);
    cJSON_AddStringToObject(o, "check", c->name);
    cJSON_AddStringToObject(o, "kind", kind_names[c->kind]);
    cJSON_AddStringToObject(o, "result", result_names[c->result]);
    cJSON_AddNumberToObject(o, "compared", (double)c->compared);
    cJSON_AddNumberToObject(o, "over_threshold", (double)c->over);
    if (c->metric[0]) {
        cJSON_AddStringToObject(o, "metric", c->metric);
        cJSON *t = cJSON_AddObjectToObject(o, "threshold");
        cJSON_AddNumberToObject(t, "relative_pct", c->thr.relative_pct);
        cJSON_AddNumberToObject(t, "absolute", c->thr.absolute);
        cJSON_AddStringToObject(t, "source", c->thr_source ? c->thr_source
                                                           : "default");
    }
    kind_counts(o, c);
    if (c->kind == CK_METRIC || c->kind == CK_FRONT || c->kind == CK_CALIB) {
        cJSON_AddStringToObject(o, "direction", dir_names[c->dir]);
        cJSON_AddNumberToObject(o, "improved", (double)c->improved);
        if (c->has_gain)
            cJSON_AddItemToObject(o, "largest_improvement",
                                  item_json(c, &c->gain));
    }
    if (c->has_largest)
        cJSON_AddItemToObject(o, "largest_change", item_json(c, &c->largest));
    cJSON *w = cJSON_AddArrayToObject(o, "worst");
    for (int i = 0; i < c->nworst; i++)
        cJSON_AddItemToArray(w, item_json(c, &c->worst[i]));
    add_str_if(o, "note", c->note);
    return o;
}

static cJSON *side_json(const cmp_side *s)
{
    static const char *const keys[] = {"campaign", "campaign_sha256",
        "version", "backend", "backend_version", "model_version",
        "fidelity", "seed"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dir", s->dir);
    cJSON_AddNumberToObject(o, "records", (double)s->n);
    cJSON_AddBoolToObject(o, "analysis", s->analysis != NULL);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(s->manifest,
                                                          keys[i]);
        if (cJSON_IsString(v) || cJSON_IsNumber(v))
            cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(v, 0));
    }
    return o;
}

static cJSON *summary_json(const cmp_ctx *x)
{
    size_t count[3] = {0, 0, 0}, improved = 0, checks_improved = 0;
    long nf = 0, fixed = 0, still = 0;
    for (size_t i = 0; i < x->nck; i++) {
        count[x->ck[i].result]++;
        improved += x->ck[i].improved;
        checks_improved += x->ck[i].improved > 0;
        if (x->ck[i].kind == CK_STATUS) {
            nf += (long)x->ck[i].over;
            fixed += x->ck[i].fixed;
            still += x->ck[i].still;
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "checks", (double)x->nck);
    cJSON_AddNumberToObject(o, "failed", (double)count[RES_FAIL]);
    cJSON_AddNumberToObject(o, "passed", (double)count[RES_PASS]);
    cJSON_AddNumberToObject(o, "skipped", (double)count[RES_SKIP]);
    cJSON_AddNumberToObject(o, "matched_by_key", (double)x->by_key);
    cJSON_AddNumberToObject(o, "matched_by_config", (double)x->by_config);
    cJSON_AddNumberToObject(o, "only_in_base", (double)x->only_base);
    cJSON_AddNumberToObject(o, "only_in_new", (double)x->only_new);
    cJSON_AddNumberToObject(o, "new_failures", (double)nf);
    cJSON_AddNumberToObject(o, "fixed_failures", (double)fixed);
    cJSON_AddNumberToObject(o, "still_failing", (double)still);
    cJSON_AddNumberToObject(o, "improvements", (double)improved);
    cJSON_AddNumberToObject(o, "checks_improved", (double)checks_improved);
    return o;
}

static int by_key_name(const void *a, const void *b)
{
    const cJSON *p = *(cJSON *const *)a, *q = *(cJSON *const *)b;
    return strcmp(p->string, q->string);
}

/* Every object's members in key order, recursively (cJSON keeps insertion
 * order; the file promises sorted keys). */
static int sort_keys(cJSON *o)
{
    int n = 0, rc = 0;
    for (cJSON *c = o->child; c; c = c->next) {
        n++;
        if (!rc && (cJSON_IsObject(c) || cJSON_IsArray(c)))
            rc = sort_keys(c);
    }
    if (rc || !cJSON_IsObject(o) || n < 2)
        return rc;
    cJSON **v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    n = 0;
    for (cJSON *c = o->child; c; c = c->next)
        v[n++] = c;
    qsort(v, (size_t)n, sizeof *v, by_key_name);
    for (int i = 0; i < n; i++) {
        v[i]->next = i + 1 < n ? v[i + 1] : NULL;
        v[i]->prev = i > 0 ? v[i - 1] : v[n - 1];
    }
    o->child = v[0];
    free(v);
    return 0;
}

int cmp_write_json(const cmp_ctx *x, const size_t *order, gd_err *err)
{
    cJSON *root = cJSON_CreateObject();
    int failed = 0;
    for (size_t i = 0; i < x->nck; i++)
        failed |= x->ck[i].result == RES_FAIL;
    cJSON_AddItemToObject(root, "base", side_json(&x->base));
    cJSON_AddItemToObject(root, "new", side_json(&x->now));
    cJSON_AddBoolToObject(root, "regression", failed);
    cJSON_AddBoolToObject(root, "accepted", x->o->accept);
    cJSON_AddBoolToObject(root, "fail_on_improvement",
                          x->o->fail_on_improvement);
    cJSON_AddItemToObject(root, "summary", summary_json(x));
    cJSON *d = cJSON_AddObjectToObject(root, "default_threshold");
    cJSON_AddNumberToObject(d, "relative_pct", x->dflt.relative_pct);
    cJSON_AddNumberToObject(d, "absolute", x->dflt.absolute);
    cJSON *cks = cJSON_AddArrayToObject(root, "checks");
    for (size_t i = 0; i < x->nck; i++)
        cJSON_AddItemToArray(cks, check_json(&x->ck[order[i]]));
    char path[4096];
    util_path_join(path, sizeof path, x->now.dir, "compare.json");
    int rc = sort_keys(root) == 0
             ? util_write_json_atomic(path, root, err)
             : gd_errf(err, GD_EENV, "%s: out of memory", path);
    cJSON_Delete(root);
    return rc;
}

/* ---- JUnit XML ---------------------------------------------------------- */

static void failure_body(const cmp_check *c, util_buf *b)
{
    char line[1024];
    if (c->note[0])
        util_buf_printf(b, "%s\n", c->note);
    if (c->kind == CK_METRIC || c->kind == CK_FRONT || c->kind == CK_CALIB) {
        char thr[96];
        thr_text(c, thr, sizeof thr);
        util_buf_printf(b, "threshold: change larger than %s\n", thr);
    }
    for (int i = 0; i < c->nworst; i++) {
        item_text(c, &c->worst[i], line, sizeof line);
        const cmp_item *it = &c->worst[i];
        int two = it->key_base[0] && it->key_new[0]
                  && strcmp(it->key_base, it->key_new) != 0;
        util_buf_puts(b, line);
        if (it->key_base[0] || it->key_new[0])
            util_buf_printf(b, " (job %s%s%s)", it->key_base[0]
                            ? it->key_base : it->key_new, two ? " -> " : "",
                            two ? it->key_new : "");
        util_buf_puts(b, "\n");
    }
    if (c->over > (size_t)c->nworst)
        util_buf_printf(b, "... and %zu more\n", c->over - (size_t)c->nworst);
}

static int junit_case(xmlTextWriterPtr w, const cmp_check *c, int accept)
{
    char cls[128], line[2048];
    int rc = 0;
    snprintf(cls, sizeof cls, "gpudse.compare.%s", c->workload[0]
             ? c->workload : "campaign");
    rc |= xmlTextWriterStartElement(w, BAD_CAST "testcase") < 0;
    rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "classname",
                                      BAD_CAST cls) < 0;
    rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "name",
                                      BAD_CAST c->name) < 0;
    if (c->result == RES_PASS || (accept && c->result == RES_FAIL)) {
        /* a pass; what improved, or what was accepted, as its output */
        util_buf b;
        util_buf_init(&b);
        if (c->result == RES_FAIL) {
            check_line(c, line, sizeof line);
            util_buf_printf(&b, "accepted (gpudse compare --accept): %s\n",
                            line);
        }
        if (c->improved) {
            gain_line(c, line, sizeof line);
            util_buf_printf(&b, "improvement: %s\n", line);
        }
        if (b.s)
            rc |= xmlTextWriterWriteElement(w, BAD_CAST "system-out",
                                            BAD_CAST b.s) < 0;
        util_buf_free(&b);
    } else {
        check_line(c, line, sizeof line);
        int fail = c->result == RES_FAIL;
        rc |= xmlTextWriterStartElement(w, BAD_CAST (fail ? "failure"
                                                          : "skipped")) < 0;
        rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "message",
                                          BAD_CAST line) < 0;
        if (fail) {
            util_buf b;
            util_buf_init(&b);
            failure_body(c, &b);
            rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "type",
                                              BAD_CAST "regression") < 0;
            rc |= xmlTextWriterWriteString(w, BAD_CAST (b.s ? b.s : "")) < 0;
            util_buf_free(&b);
        }
        rc |= xmlTextWriterEndElement(w) < 0;
    }
    rc |= xmlTextWriterEndElement(w) < 0;
    return rc;
}

static int junit_counts(xmlTextWriterPtr w, const cmp_ctx *x)
{
    size_t count[3] = {0, 0, 0};
    int rc = 0;
    for (size_t i = 0; i < x->nck; i++)
        count[x->ck[i].result]++;
    if (x->o->accept) {   /* accepted failures are written as passes */
        count[RES_PASS] += count[RES_FAIL];
        count[RES_FAIL] = 0;
    }
    rc |= xmlTextWriterWriteFormatAttribute(w, BAD_CAST "tests", "%zu",
                                            x->nck) < 0;
    rc |= xmlTextWriterWriteFormatAttribute(w, BAD_CAST "failures", "%zu",
                                            count[RES_FAIL]) < 0;
    rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "errors", BAD_CAST "0") < 0;
    rc |= xmlTextWriterWriteFormatAttribute(w, BAD_CAST "skipped", "%zu",
                                            count[RES_SKIP]) < 0;
    return rc;
}

static int junit_doc(xmlTextWriterPtr w, const cmp_ctx *x)
{
    int rc = xmlTextWriterSetIndent(w, 1) < 0;
    rc |= xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0;
    rc |= xmlTextWriterStartElement(w, BAD_CAST "testsuites") < 0;
    rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "name",
                                      BAD_CAST "gpudse compare") < 0;
    rc |= junit_counts(w, x);
    rc |= xmlTextWriterStartElement(w, BAD_CAST "testsuite") < 0;
    rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "name",
                                      BAD_CAST "gpudse.compare") < 0;
    rc |= junit_counts(w, x);
    for (size_t i = 0; !rc && i < x->nck; i++)
        rc |= junit_case(w, &x->ck[i], x->o->accept);
    rc |= xmlTextWriterEndElement(w) < 0;
    rc |= xmlTextWriterEndElement(w) < 0;
    rc |= xmlTextWriterEndDocument(w) < 0;
    return rc;
}

int cmp_write_junit(const cmp_ctx *x, const char *path, gd_err *err)
{
    xmlBufferPtr buf = xmlBufferCreate();
    xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
    int bad = !w || junit_doc(w, x);
    if (w)
        xmlFreeTextWriter(w);   /* flushes into buf */
    int rc = bad ? gd_errf(err, GD_EENV, "%s: cannot write the JUnit XML",
                           path)
                 : util_write_file_atomic(path, xmlBufferContent(buf),
                                          (size_t)xmlBufferLength(buf), err);
    if (buf)
        xmlBufferFree(buf);
    return rc;
}

/* ---- terminal summary -------------------------------------------------- */

static void side_line(const char *what, const cmp_side *s, util_buf *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s->manifest, "version");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(s->manifest,
                                                      "backend_version");
    util_buf_printf(out, "  %-4s %s: %zu jobs%s%s%s%s\n", what, s->dir, s->n,
                    cJSON_IsString(v) ? ", gpudse " : "",
                    cJSON_IsString(v) ? v->valuestring : "",
                    cJSON_IsString(b) ? ", " : "",
                    cJSON_IsString(b) ? b->valuestring : "");
}

void cmp_summary(const cmp_ctx *x, const size_t *order, util_buf *out)
{
    size_t count[3] = {0, 0, 0};
    char line[2048];
    for (size_t i = 0; i < x->nck; i++)
        count[x->ck[i].result]++;
    util_buf_printf(out, "gpudse compare: %s -> %s\n", x->base.dir,
                    x->now.dir);
    side_line("BASE", &x->base, out);
    side_line("NEW", &x->now, out);
    util_buf_printf(out, "  jobs: %zu matched by key, %zu by workload + "
                    "config, %zu only in BASE, %zu only in NEW\n",
                    x->by_key, x->by_config, x->only_base, x->only_new);
    size_t improved = 0;
    for (size_t i = 0; i < x->nck; i++)
        improved += x->ck[i].improved > 0;
    if (count[RES_FAIL] && x->o->accept)
        util_buf_printf(out, "ACCEPTED: %zu of %zu checks would have failed; "
                        "NEW is accepted as it is (--accept)\n",
                        count[RES_FAIL], x->nck);
    else if (count[RES_FAIL])
        util_buf_printf(out, "REGRESSION: %zu of %zu checks failed (worst "
                        "first)\n", count[RES_FAIL], x->nck);
    else
        util_buf_printf(out, "OK: no regression (%zu checks passed, %zu "
                        "skipped)\n", count[RES_PASS], count[RES_SKIP]);
    if (improved)
        util_buf_printf(out, "IMPROVED: %zu check(s) improved beyond their "
                        "thresholds%s\n", improved,
                        x->o->fail_on_improvement
                        ? " (failures: --fail-on-improvement)" : "");
    for (size_t k = 0; k < x->nck; k++) {
        const cmp_check *c = &x->ck[order[k]];
        if (c->result != RES_PASS) {
            check_line(c, line, sizeof line);
            util_buf_printf(out, "  %s  %s / %s: %s\n", c->result == RES_FAIL
                            ? "FAIL" : "skip", wl_text(c), c->name, line);
        }
        if (c->improved) {
            gain_line(c, line, sizeof line);
            util_buf_printf(out, "  IMPROVED  %s / %s: %s\n", wl_text(c),
                            c->name, line);
        }
    }
    if (count[RES_FAIL])
        util_buf_printf(out, "  %zu checks passed, %zu skipped\n",
                        count[RES_PASS], count[RES_SKIP]);
    util_buf_printf(out, "compare.json: %s/compare.json\n", x->now.dir);
    if (x->o->junit_path)
        util_buf_printf(out, "junit: %s\n", x->o->junit_path);
}
