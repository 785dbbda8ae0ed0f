/* test_journal: the journal's own reading and writing (issue 28.2) —
 * numbers written in the fewest digits that read back, journals of the
 * older 17-digit form read the same, the fast reader of the journal's own
 * layout agrees with the JSON reader field for field, and reading one
 * workload at a time (store_index_workloads, store_load_lines) gives what
 * store_load_all gives, reruns, other kinds of job and torn tails
 * included; the sidecar key index results.index is what a reopen reads,
 * and one that does not hold is rebuilt, never trusted; the record cache
 * (reccache.h) lends what a load would give and reads a changed journal
 * again; batched appends are read back before they are written. */
#include "testutil.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>

#include "csv.h"
#include "numtext.h"
#include "reccache.h"
#include "store.h"
#include "store_idx.h"
#include "util.h"

static char dir[PATH_MAX];

static const char *path_of(const char *name)
{
    static char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "tests/tmp/journal-%ld", (long)getpid());
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    mkdir("tests/tmp", 0755);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A record with varied fields: i picks the workload and config. */
static void make_record(store_record *r, int i, const char *wl,
                        uint64_t *seed)
{
    memset(r, 0, sizeof *r);
    snprintf(r->key, sizeof r->key, "%02x%06x%056d", (unsigned)wl[0],
             (unsigned)i, 0);
    util_strlcpy(r->workload, wl, sizeof r->workload);
    strcpy(r->backend, "analytic");
    strcpy(r->fidelity, "modelled");
    r->cfg = space_baseline();
    space_set(&r->cfg, KNOB_N_CLUSTERS, 8 + i % 4);
    r->status = i % 5 == 4 ? ST_FAILED : ST_OK;
    if (r->status != ST_OK)
        snprintf(r->reason, sizeof r->reason, "fell over: \"quoted\" \\ %d",
                 i);
    double f = (double)(next(seed) >> 11) / 9007199254740992.0;
    met_put(&r->metrics, "ipc", 100 + 300 * f);
    met_put(&r->metrics, "area_mm2", 293.98000000000002);
    met_put(&r->metrics, "instructions", 3391488);
    met_put(&r->metrics, "dram_stall_cycles", 7.9046857887232506e-11 * f);
    met_put(&r->metrics, "missing", NAN);
    if (i % 3 == 0)
        strcpy(r->limit, "regs");
    if (i % 2 == 0)
        strcpy(r->bottleneck, "compute");
    if (i % 4 == 1)
        strcpy(r->modelled, "area_mm2 power_w");
    r->order = i + 1;
}

static void same_record(const store_record *a, const store_record *b)
{
    ck_assert_str_eq(a->key, b->key);
    ck_assert_str_eq(a->workload, b->workload);
    ck_assert_str_eq(a->reason, b->reason);
    ck_assert_str_eq(a->limit, b->limit);
    ck_assert_str_eq(a->bottleneck, b->bottleneck);
    ck_assert_str_eq(a->modelled, b->modelled);
    ck_assert_int_eq(a->status, b->status);
    ck_assert_int_eq(a->order, b->order);
    for (int k = 0; k < SPACE_NKNOBS; k++)
        ck_assert_int_eq(space_get(&a->cfg, k), space_get(&b->cfg, k));
    ck_assert_int_eq(a->metrics.n, b->metrics.n);
    for (int i = 0; i < a->metrics.n; i++) {
        ck_assert_str_eq(a->metrics.name[i], b->metrics.name[i]);
        double x = a->metrics.val[i], y = b->metrics.val[i];
        ck_assert_msg((isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0,
                      "%s: %a read back as %a", a->metrics.name[i], x, y);
    }
}

START_TEST(numbers_are_short_and_read_back)
{
    uint64_t seed = 12345;
    util_buf b;
    util_buf_init(&b);
    for (int i = 0; i < 2000; i++) {
        store_record r, back, slow;
        make_record(&r, i, "sgemm", &seed);
        b.len = 0;
        store_record_to_json(&r, &b);
        /* integers as integers, no 17-digit tails on short decimals */
        ck_assert_msg(strstr(b.s, "\"area_mm2\":293.98,") != NULL, "%s", b.s);
        ck_assert_msg(strstr(b.s, "\"instructions\":3391488,") != NULL, "%s",
                      b.s);
        gd_err err;
        ck_assert_int_eq(store_record_from_json(b.s, "j", 1, &back, &err),
                         GD_OK);
        same_record(&r, &back);
        /* the JSON reader (a space after '{' is not the fast layout)
         * reads the same line to the same record */
        char *spaced = malloc(b.len + 2);
        spaced[0] = '{';
        spaced[1] = ' ';
        memcpy(spaced + 2, b.s + 1, b.len);
        ck_assert_int_eq(store_record_from_json(spaced, "j", 1, &slow, &err),
                         GD_OK);
        same_record(&back, &slow);
        free(spaced);
    }
    util_buf_free(&b);
}
END_TEST

/* A line as journals were written before: every number with %.17g. */
static void old_line(const store_record *r, util_buf *out)
{
    util_buf tmp;
    util_buf_init(&tmp);
    store_record_to_json(r, &tmp);
    /* cut the metrics object out and write it again with 17 digits */
    char *m = strstr(tmp.s, ",\"metrics\":{");
    char *end = strchr(m, '}');
    util_buf_add(out, tmp.s, (size_t)(m - tmp.s));
    util_buf_puts(out, ",\"metrics\":{");
    for (int i = 0; i < r->metrics.n; i++) {
        if (isnan(r->metrics.val[i]))
            util_buf_printf(out, "%s\"%s\":null", i ? "," : "",
                            r->metrics.name[i]);
        else
            util_buf_printf(out, "%s\"%s\":%.17g", i ? "," : "",
                            r->metrics.name[i], r->metrics.val[i]);
    }
    util_buf_puts(out, end);
    util_buf_free(&tmp);
}

START_TEST(old_17_digit_journals_read_the_same)
{
    uint64_t seed = 777;
    util_buf j;
    util_buf_init(&j);
    store_record want[50];
    for (int i = 0; i < 50; i++) {
        make_record(&want[i], i, "dct8x8", &seed);
        old_line(&want[i], &j);
        util_buf_puts(&j, "\n");
    }
    ck_assert(strstr(j.s, "293.98000000000002") != NULL);
    tu_write(path_of("results.jsonl"), j.s);
    store_record *recs;
    size_t n;
    gd_err err;
    ck_assert_int_eq(store_load_all(path_of("results.jsonl"), &recs, &n, &err),
                     GD_OK);
    ck_assert_uint_eq(n, 50);
    for (int i = 0; i < 50; i++)
        same_record(&want[i], &recs[i]);
    free(recs);
    /* a session resuming on it appends short numbers after the old ones */
    store *st;
    ck_assert_int_eq(store_open(dir, &st, NULL, &err), GD_OK);
    ck_assert_uint_eq(store_count(st), 50);
    store_record more;
    make_record(&more, 50, "dct8x8", &seed);
    ck_assert_int_eq(store_append(st, &more, &err), GD_OK);
    ck_assert_int_eq(store_close(st, &err), GD_OK);
    ck_assert_int_eq(store_load_all(path_of("results.jsonl"), &recs, &n, &err),
                     GD_OK);
    ck_assert_uint_eq(n, 51);
    same_record(&more, &recs[50]);
    free(recs);
    util_buf_free(&j);
}
END_TEST

START_TEST(one_workload_at_a_time_reads_like_load_all)
{
    uint64_t seed = 99;
    const char *wls[3] = {"sgemm", "dct8x8", "vecadd"};
    util_buf j;
    util_buf_init(&j);
    for (int i = 0; i < 90; i++) {
        store_record r;
        make_record(&r, i / 3, wls[i % 3], &seed);
        store_record_to_json(&r, &j);
        util_buf_puts(&j, "\n");
        if (i == 40) {  /* another kind of job, and a rerun of record 4 */
            util_buf_printf(&j, "{\"key\":\"%064d\",\"kind\":\"split\","
                            "\"workload\":\"sgemm\"}\n", 7);
            make_record(&r, 1, wls[1], &seed);
            r.status = ST_OK;
            r.reason[0] = '\0';
            store_record_to_json(&r, &j);
            util_buf_puts(&j, "\n");
        }
    }
    util_buf_puts(&j, "{\"key\":\"torn");  /* a torn last line */
    tu_write(path_of("results.jsonl"), j.s);
    util_buf_free(&j);
    const char *p = path_of("results.jsonl");
    store_record *all;
    size_t nall;
    gd_err err;
    ck_assert_int_eq(store_load_all(p, &all, &nall, &err), GD_OK);
    ck_assert_uint_eq(nall, 90);
    store_wl_lines *idx;
    int nidx;
    ck_assert_int_eq(store_index_workloads(p, &idx, &nidx, &err), GD_OK);
    ck_assert_int_eq(nidx, 3);
    size_t seen = 0;
    for (int w = 0; w < nidx; w++) {
        ck_assert_str_eq(idx[w].name, wls[w]);
        store_record *recs;
        size_t n;
        ck_assert_int_eq(store_load_lines(p, idx[w].line, idx[w].n, &recs, &n,
                                          &err), GD_OK);
        ck_assert_uint_eq(n, 30);
        /* the same records in the same order as load_all's of this
         * workload, the rerun as the latest with 2 attempts */
        size_t k = 0;
        for (size_t i = 0; i < nall; i++) {
            if (strcmp(all[i].workload, wls[w]) != 0)
                continue;
            same_record(&all[i], &recs[k]);
            ck_assert_int_eq(all[i].attempts, recs[k].attempts);
            k++;
        }
        ck_assert_uint_eq(k, n);
        seen += n;
        free(recs);
    }
    ck_assert_uint_eq(seen, nall);
    int reruns = 0;
    for (size_t i = 0; i < nall; i++)
        reruns += all[i].attempts == 2;
    ck_assert_int_eq(reruns, 1);
    store_wl_lines_free(idx, nidx);
    free(all);
    /* a line that is not a record is named FILE:LINE */
    tu_write(p, "{\"key\":\"abc\",\"status\":\"ok\"}\n");
    ck_assert_int_ne(store_index_workloads(p, &idx, &nidx, &err), GD_OK);
    ck_assert_msg(names_file_line(err.msg, "results.jsonl"), "%s", err.msg);
}
END_TEST

/* results.csv's numbers, now written without printf, are still the
 * shortest of %.15g and %.17g that reads back. */
START_TEST(csv_numbers_as_printf)
{
    uint64_t seed = 4242;
    char mine[64], ref[64];
    for (int i = 0; i < 400000; i++) {
        double v;
        uint64_t bits = next(&seed);
        switch (i % 4) {
        case 0: memcpy(&v, &bits, sizeof v); break;
        case 1: v = (1 + (double)(bits >> 11) / 9007199254740992.0 * 9)
                    * pow(10, (int)(next(&seed) % 50) - 20); break;
        case 2: v = (double)(bits % 1000000) / pow(10, next(&seed) % 9);
                break;
        default: v = ldexp((double)(bits % 100000),
                           (int)(next(&seed) % 120) - 60);
        }
        rep_csv_number(v, mine, sizeof mine);
        if (isnan(v))
            snprintf(ref, sizeof ref, "NaN");
        else if (isinf(v))
            snprintf(ref, sizeof ref, "%s", v > 0 ? "Inf" : "-Inf");
        else if (snprintf(ref, sizeof ref, "%.15g", v) > 0
                 && strtod(ref, NULL) != v)
            snprintf(ref, sizeof ref, "%.17g", v);
        ck_assert_msg(strcmp(mine, ref) == 0, "%a: \"%s\", printf \"%s\"", v,
                      mine, ref);
    }
}
END_TEST

/* The journal's records reopened: their count and each key's outcome. */
static size_t reopen(int *torn, const store_record *r, int n)
{
    store *st;
    gd_err err;
    ck_assert_msg(store_open(dir, &st, torn, &err) == GD_OK, "%s", err.msg);
    size_t c = store_count(st);
    for (int i = 0; i < n; i++)
        if (store_has(st, r[i].key)) {
            ck_assert_int_eq(store_key_ok(st, r[i].key),
                             r[i].status == ST_OK);
            store_record back;   /* read at the offset the index gave */
            ck_assert_int_eq(store_get(st, r[i].key, &back, &err), GD_OK);
            ck_assert_str_eq(back.key, r[i].key);
        }
    ck_assert_int_eq(store_close(st, &err), GD_OK);
    return c;
}

/* results.index rewritten by hand: entries from `from`, with entry i's
 * offset replaced by entry j's when i >= 0. */
static void forge_index(const sidx_entry *e, size_t n, const sidx_head *h,
                        int i, int j)
{
    sidx_entry *v = malloc(n * sizeof *v);
    memcpy(v, e, n * sizeof *v);
    if (i >= 0)
        v[i].off = e[j].off;
    sidx_writer w;
    sidx_create(&w, dir, h, v, n);
    ck_assert_int_ge(w.fd, 0);
    sidx_close(&w);
    free(v);
}

/* Issue 28.2: a resume takes the finished keys from results.index, checks
 * it against the journal, and rebuilds one that is corrupt, stale or
 * missing; a torn last line is cut as without it. */
START_TEST(sidecar_index_used_checked_and_rebuilt)
{
    enum { N = 50 };
    store_record r[N + 1];
    uint64_t seed = 7;
    store *st;
    gd_err err;
    int torn = 0;
    ck_assert_int_eq(store_open(dir, &st, NULL, &err), GD_OK);
    for (int i = 0; i < N + 1; i++)
        make_record(&r[i], i, i % 2 ? "alpha" : "beta", &seed);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(store_append(st, &r[i], &err), GD_OK);
    ck_assert_int_eq(store_close(st, &err), GD_OK);
    struct stat sb;
    ck_assert_int_eq(stat(path_of(STORE_INDEX), &sb), 0);
    ck_assert_int_eq(sb.st_size, 80 + N * 48);
    sidx_head h;
    sidx_entry *e;
    size_t n;
    ck_assert_int_eq(sidx_read(dir, &h, &e, &n), 0);
    ck_assert_uint_eq(n, N);
    ck_assert_int_eq(stat(path_of("results.jsonl"), &sb), 0);
    ck_assert_uint_eq(h.covered, (uint64_t)sb.st_size);
    ck_assert_uint_eq(reopen(&torn, r, N), N);
    ck_assert_int_eq(torn, 0);
    /* the reopen reads the index, not the journal: an entry left out
     * (checksum and all redone) is a key it does not know */
    forge_index(e, N - 1, &h, -1, 0);
    ck_assert_uint_eq(reopen(&torn, r, N), N - 1);
    /* an entry pointing at another key's line: caught, index rebuilt */
    forge_index(e, N, &h, 0, 1);
    ck_assert_uint_eq(reopen(&torn, r, N), N);
    sidx_entry *e2;
    sidx_head h2;
    ck_assert_int_eq(sidx_read(dir, &h2, &e2, &n), 0);
    ck_assert_uint_eq(n, N);
    free(e2);
    /* a flipped byte: the checksum fails, rebuilt */
    FILE *f = fopen(path_of(STORE_INDEX), "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 80 + 48 * 3 + 40, SEEK_SET);
    fputc(0x7f, f);
    fclose(f);
    ck_assert_int_ne(sidx_read(dir, &h2, &e2, &n), 0);
    ck_assert_uint_eq(reopen(&torn, r, N), N);
    ck_assert_int_eq(sidx_read(dir, &h2, &e2, &n), 0);
    free(e2);
    /* missing: rebuilt */
    ck_assert_int_eq(unlink(path_of(STORE_INDEX)), 0);
    ck_assert_uint_eq(reopen(&torn, r, N), N);
    ck_assert_int_eq(stat(path_of(STORE_INDEX), &sb), 0);
    /* a whole line the index does not cover (a crash before its flush) and
     * a torn last line after it: the line is indexed, the tail cut */
    util_buf b;
    util_buf_init(&b);
    store_record_to_json(&r[N], &b);
    char *tail = malloc(b.len + 40);
    snprintf(tail, b.len + 40, "%s\n{\"key\":\"0123", b.s);
    f = fopen(path_of("results.jsonl"), "ab");
    fputs(tail, f);
    fclose(f);
    ck_assert_uint_eq(reopen(&torn, r, N + 1), N + 1);
    ck_assert_int_eq(torn, 1);
    ck_assert_int_eq(stat(path_of("results.jsonl"), &sb), 0);
    ck_assert_int_eq(sb.st_size, (off_t)h.covered + (off_t)b.len + 1);
    ck_assert_uint_eq(reopen(&torn, r, N + 1), N + 1);
    ck_assert_int_eq(torn, 0);
    /* stale: the journal cut shorter than the index covers */
    ck_assert_int_eq(truncate(path_of("results.jsonl"), (off_t)e[N - 1].off),
                     0);
    ck_assert_uint_eq(reopen(&torn, r, N), N - 1);
    free(tail);
    util_buf_free(&b);
    free(e);
}
END_TEST

/* store_load_keys: the latest record of each key asked for, from the
 * index or, when it lies or is gone, from the journal's keys; a key the
 * journal lacks is left out, a torn last line skipped and left alone. */
START_TEST(load_keys_reads_back_only_those)
{
    enum { N = 40 };
    store_record r[N];
    uint64_t seed = 11;
    store *st;
    gd_err err;
    ck_assert_int_eq(store_open(dir, &st, NULL, &err), GD_OK);
    for (int i = 0; i < N; i++) {
        make_record(&r[i], i, i % 3 ? "gamma" : "delta", &seed);
        ck_assert_int_eq(store_append(st, &r[i], &err), GD_OK);
    }
    ck_assert_int_eq(store_close(st, &err), GD_OK);
    ck_assert_int_eq(store_open(dir, &st, NULL, &err), GD_OK);
    r[3].status = ST_TIMEOUT;   /* a rerun: the latest line wins */
    strcpy(r[3].reason, "rerun");
    ck_assert_int_eq(store_append_attempt(st, &r[3], &err), GD_OK);
    ck_assert_int_eq(store_close(st, &err), GD_OK);
    FILE *f = fopen(path_of("results.jsonl"), "ab");
    fputs("{\"key\":\"77", f);   /* torn */
    fclose(f);
    char keys[4][65];
    strcpy(keys[0], r[10].key);
    strcpy(keys[1], r[3].key);
    memset(keys[2], 'e', 64);   /* not journaled */
    keys[2][64] = '\0';
    strcpy(keys[3], r[39].key);
    sidx_head h;
    sidx_entry *e;
    size_t n;
    ck_assert_int_eq(sidx_read(dir, &h, &e, &n), 0);
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            forge_index(e, n, &h, 10, 11);   /* lies about r[10] */
        if (k == 2)
            ck_assert_int_eq(unlink(path_of(STORE_INDEX)), 0);
        store_record *v;
        size_t m;
        ck_assert_int_eq(store_load_keys(dir, NULL, (const char (*)[65])keys, 4,
                                         &v, &m, &err), GD_OK);
        ck_assert_uint_eq(m, 3);
        for (size_t i = 0; i < m; i++) {
            int j = strcmp(v[i].key, r[3].key) == 0    ? 3
                    : strcmp(v[i].key, r[10].key) == 0 ? 10 : 39;
            same_record(&v[i], &r[j]);
        }
        free(v);
    }
    free(e);
    struct stat sb;   /* the reader cut nothing */
    ck_assert_int_eq(stat(path_of("results.jsonl"), &sb), 0);
    ck_assert_int_eq(sb.st_size, (off_t)h.covered + 10);
}
END_TEST

/* per records per workload of wls into the journal at p. */
static void write_journal(const char *p, const char *const *wls, int nwl,
                          int per, uint64_t *seed)
{
    util_buf j;
    util_buf_init(&j);
    for (int i = 0; i < per * nwl; i++) {
        store_record r;
        make_record(&r, i / nwl, wls[i % nwl], seed);
        store_record_to_json(&r, &j);
        util_buf_puts(&j, "\n");
    }
    tu_write(p, j.s);
    util_buf_free(&j);
}

/* rcache_load lends what store_load_lines + store_sort_canonical give,
 * the same array each time; a journal that changed is read again; with
 * no cache the caller owns what it gets. */
START_TEST(record_cache_lends_a_load_and_rereads_a_changed_journal)
{
    uint64_t seed = 7;
    const char *wls[2] = {"sgemm", "vecadd"};
    const char *p = path_of("results.jsonl");
    write_journal(p, wls, 2, 10, &seed);
    store_wl_lines *idx;
    int nidx;
    gd_err err;
    ck_assert_int_eq(store_index_workloads(p, &idx, &nidx, &err), GD_OK);
    ck_assert_int_eq(nidx, 2);
    rcache c;
    rcache_init(&c);
    store_record *a, *b, *direct;
    size_t na, nb, nd;
    int owned;
    /* unarmed (no rcache_plan): nothing is kept */
    ck_assert_int_eq(rcache_load(&c, p, NULL, &idx[1], &a, &na, &owned, &err),
                     GD_OK);
    ck_assert_int_eq(owned, 1);
    ck_assert_int_eq(c.n, 0);
    free(a);
    /* a journal too large to hold whole: not armed */
    ck_assert_int_eq(rcache_plan(&c, p, RCACHE_BYTES / sizeof(store_record)
                                            + 1), 0);
    ck_assert_int_eq(rcache_plan(&c, p, 20), 1);
    ck_assert_int_eq(rcache_load(&c, p, NULL, &idx[1], &a, &na, &owned, &err),
                     GD_OK);
    ck_assert_int_eq(owned, 0);
    ck_assert_int_eq(store_load_lines(p, idx[1].line, idx[1].n, &direct, &nd,
                                      &err), GD_OK);
    store_sort_canonical(direct, nd);
    ck_assert_uint_eq(na, nd);
    for (size_t i = 0; i < nd; i++)
        same_record(&a[i], &direct[i]);
    free(direct);
    ck_assert_int_eq(rcache_load(&c, p, NULL, &idx[1], &b, &nb, &owned, &err),
                     GD_OK);
    ck_assert_int_eq(owned, 0);
    ck_assert_ptr_eq(a, b);   /* lent again, not read again */
    /* the journal changes (another session appended): read again */
    store_wl_lines_free(idx, nidx);
    write_journal(p, wls, 2, 12, &seed);
    ck_assert_int_eq(store_index_workloads(p, &idx, &nidx, &err), GD_OK);
    ck_assert_int_eq(rcache_load(&c, p, NULL, &idx[1], &b, &nb, &owned, &err),
                     GD_OK);
    ck_assert_int_eq(owned, 1);   /* the cache let go of the old journal */
    ck_assert_int_eq(c.n, 0);
    ck_assert_int_eq(store_load_lines(p, idx[1].line, idx[1].n, &direct, &nd,
                                      &err), GD_OK);
    store_sort_canonical(direct, nd);
    ck_assert_uint_eq(nb, 12);
    ck_assert_uint_eq(nb, nd);
    for (size_t i = 0; i < nd; i++)   /* new random metrics: these ones */
        same_record(&b[i], &direct[i]);
    free(direct);
    free(b);
    /* no cache: the caller's own copy */
    ck_assert_int_eq(rcache_load(NULL, p, NULL, &idx[0], &a, &na, &owned,
                                 &err), GD_OK);
    ck_assert_int_eq(owned, 1);
    ck_assert_uint_eq(na, 12);
    free(a);
    /* a journal that is not there: the load's error, nothing kept */
    store_wl_lines w = idx[0];
    ck_assert_int_ne(rcache_load(&c, path_of("nothing.jsonl"), NULL, &w, &a,
                                 &na, &owned, &err), GD_OK);
    ck_assert_int_eq(c.n, 0);
    ck_assert(!rcache_fits(&c, RCACHE_BYTES / sizeof(store_record) + 1));
    rcache_free(&c);
    store_wl_lines_free(idx, nidx);
}
END_TEST

/* store_set_batched: appended lines are gathered, read back through the
 * store before they reach the file, and all there after a flush, in the
 * same bytes as unbatched appends write. */
START_TEST(batched_appends_read_back_and_land_whole)
{
    uint64_t seed = 11;
    gd_err err;
    store *s;
    ck_assert_int_eq(store_open(dir, &s, NULL, &err), GD_OK);
    store_set_batched(s, 1);
    store_record r[20];
    for (int i = 0; i < 20; i++) {
        make_record(&r[i], i, "sgemm", &seed);
        ck_assert_int_eq(store_append(s, &r[i], &err), GD_OK);
    }
    struct stat sb;
    ck_assert_int_eq(stat(path_of("results.jsonl"), &sb), 0);
    ck_assert_int_eq(sb.st_size, 0);   /* gathered, not written */
    store_record back;
    ck_assert_int_eq(store_get(s, r[13].key, &back, &err), GD_OK);
    same_record(&back, &r[13]);
    ck_assert_int_eq(store_flush(s, &err), GD_OK);
    ck_assert_int_eq(stat(path_of("results.jsonl"), &sb), 0);
    ck_assert_int_gt(sb.st_size, 0);
    store_set_batched(s, 0);
    store_record one;
    make_record(&one, 20, "sgemm", &seed);
    ck_assert_int_eq(store_append(s, &one, &err), GD_OK);
    ck_assert_int_eq(store_get(s, r[2].key, &back, &err), GD_OK);
    same_record(&back, &r[2]);
    ck_assert_int_eq(store_close(s, &err), GD_OK);
    /* the bytes of one line per record, in order */
    util_buf want;
    util_buf_init(&want);
    for (int i = 0; i < 20; i++) {
        store_record_to_json(&r[i], &want);
        util_buf_puts(&want, "\n");
    }
    store_record_to_json(&one, &want);
    util_buf_puts(&want, "\n");
    char *got = tu_slurp(path_of("results.jsonl"), NULL);
    ck_assert_str_eq(got, want.s);
    free(got);
    util_buf_free(&want);
    /* reopened: every key is there */
    ck_assert_int_eq(store_open(dir, &s, NULL, &err), GD_OK);
    ck_assert_uint_eq(store_count(s), 21);
    ck_assert_int_eq(store_close(s, &err), GD_OK);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("journal");
    TCase *t = tcase_create("journal");
    tcase_add_checked_fixture(t, setup, NULL);
    tcase_add_test(t, numbers_are_short_and_read_back);
    tcase_add_test(t, old_17_digit_journals_read_the_same);
    tcase_add_test(t, one_workload_at_a_time_reads_like_load_all);
    tcase_add_test(t, csv_numbers_as_printf);
    tcase_add_test(t, sidecar_index_used_checked_and_rebuilt);
    tcase_add_test(t, load_keys_reads_back_only_those);
    tcase_add_test(t, record_cache_lends_a_load_and_rereads_a_changed_journal);
    tcase_add_test(t, batched_appends_read_back_and_land_whole);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
