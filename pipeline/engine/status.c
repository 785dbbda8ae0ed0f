/* status: `gpudse status DIR` — where a run stands, from its files alone,
 * while it runs or after its coordinator died: per workload the jobs
 * queued, running, done and failed, the running jobs (workload, config,
 * elapsed time, last log line), the phase and an ETA. It reads the
 * manifest, the journal's summary (records and failures per workload as
 * of a byte offset, store.c) and the journal lines after it — or, without
 * a summary that matches, the journal once, a block at a time (each key's
 * latest line, by plain string scanning, no JSON parse per line) —
 * job folders whose key is not journaled (looked up in results.index,
 * or without a usable one in the keys of the journal's lines), the
 * results job-run wrote that were never
 * merged (jobs/KEY/result.json), the tail of run.log, and asks squeue
 * about Slurm tasks. It never writes into the directory. */
#define _GNU_SOURCE  /* strptime, timegm */
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "jobrun.h"
#include "parseopt.h"
#include "split.h"
#include "store.h"
#include "store_idx.h"
#include "util.h"

#define MAXWL 64
#define MAXSHOW 20          /* running jobs listed one per line */

typedef struct {
    char name[64];
    double planned;         /* -1 unknown */
    size_t done, failed, running, queued_slurm, unmerged;
} st_wl;

typedef struct {
    char key[65], workload[64], config[512], last[160], where[48];
    double elapsed;
} st_job;

/* One journal key: the first 16 hex digits (a 64-bit prefix: collisions
 * are out of reach at any journal size), and what its latest line says. */
typedef struct {
    uint64_t h;
    int wl;                 /* index in workloads, -1: another backend's */
    int failed;
} st_key;

typedef struct {
    const char *dir;
    char campaign[64], backend[32], phase[16];
    long pid;               /* the coordinator: >0 running, -1 unknown */
    st_wl wl[MAXWL];
    int nwl;
    st_key *keys;
    size_t cap, nkeys;
    size_t verify_done;     /* records of another backend (verification) */
    st_job *jobs;
    size_t njobs, capjobs;
    size_t interrupted;     /* job folders left by a session that died */
    double started;         /* epoch seconds of the session, 0 unknown */
    size_t journal_at_start;
    double eta_s;           /* -1 unknown */
    int slurm_tasks;        /* tasks found in job folders */
    char slurm_note[160];
    int split;              /* a split study: rows are its machines */
    int finished;           /* the manifest says the last session ended */
    off_t counted_at;       /* journal bytes the summary counted (their
                             * keys are not in keys: results.index has them) */
} st_view;

/* ---- the coordinator and run.log ---- */

/* pid of the gpudse holding DIR's lock, 0 when none does. */
static long lock_holder(const char *dir)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, dir, ".lock");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    long pid = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        char buf[32] = "";
        ssize_t n = read(fd, buf, sizeof buf - 1);
        buf[n > 0 ? n : 0] = '\0';
        pid = atol(buf) > 0 ? atol(buf) : -1;
    }
    close(fd);
    return pid;
}

static double parse_utc(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return end ? (double)timegm(&tm) : 0;
}

/* The last phase line and session start in run.log's last 64 KB (the
 * engine logs both; a session's failures log between them). */
static void read_log_tail(st_view *v)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, v->dir, "run.log");
    strcpy(v->phase, "jobs");
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    static const long TAIL = 65536;
    if (fseek(f, 0, SEEK_END) == 0 && ftell(f) > TAIL)
        fseek(f, -TAIL, SEEK_END);
    else
        rewind(f);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        const char *p;
        if ((p = strstr(line, " phase: ")) != NULL) {
            util_strlcpy(v->phase, p + 8, sizeof v->phase);
            v->phase[strcspn(v->phase, "\n")] = '\0';
        } else if (strstr(line, " finished: ok ")) {
            strcpy(v->phase, "finished");
        } else if ((p = strstr(line, " start campaign ")) != NULL) {
            v->started = parse_utc(line);
            const char *j = strstr(p, " journal ");
            v->journal_at_start = j ? (size_t)atol(j + 9) : 0;
            strcpy(v->phase, "jobs");
        }
    }
    fclose(f);
}

/* ---- the manifest ---- */

static int read_manifest(st_view *v)
{
    char path[PATH_MAX], *text;
    util_path_join(path, sizeof path, v->dir, "manifest.json");
    if (util_read_file(path, &text, NULL, NULL) != GD_OK)
        return -1;
    cJSON *m = cJSON_Parse(text);
    free(text);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "campaign");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(m, "backend");
    const cJSON *bud = cJSON_GetObjectItemCaseSensitive(m, "budget");
    const cJSON *sz = cJSON_GetObjectItemCaseSensitive(m, "space_size");
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(m, "workloads"), *w;
    if (cJSON_IsString(c))
        util_strlcpy(v->campaign, c->valuestring, sizeof v->campaign);
    if (cJSON_IsString(b))
        util_strlcpy(v->backend, b->valuestring, sizeof v->backend);
    v->finished = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m,
                                                                  "finished"));
    double per = -1;
    if (cJSON_IsNumber(bud) && cJSON_IsNumber(sz))
        per = fmin(bud->valuedouble, sz->valuedouble);
    cJSON_ArrayForEach(w, ws) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(w, "name");
        if (cJSON_IsString(n) && v->nwl < MAXWL) {
            util_strlcpy(v->wl[v->nwl].name, n->valuestring,
                         sizeof v->wl[0].name);
            v->wl[v->nwl++].planned = per;
        }
    }
    int ok = m != NULL;
    cJSON_Delete(m);
    return ok ? 0 : -1;
}

static int wl_index(st_view *v, const char *name, size_t len)
{
    for (int i = 0; i < v->nwl; i++)
        if (strlen(v->wl[i].name) == len && !memcmp(v->wl[i].name, name, len))
            return i;
    if (v->nwl == MAXWL)
        return -1;
    memcpy(v->wl[v->nwl].name, name, len < 63 ? len : 63);
    v->wl[v->nwl].name[len < 63 ? len : 63] = '\0';
    v->wl[v->nwl].planned = -1;
    return v->nwl++;
}

/* ---- the journal ---- */

static uint64_t key_prefix(const char *k)
{
    uint64_t h = 0;
    for (int i = 0; i < 16; i++)
        h = h * 16 + (uint64_t)(k[i] <= '9' ? k[i] - '0' : k[i] - 'a' + 10);
    return h ? h : 1;  /* 0 marks an empty slot */
}

static st_key *key_slot(st_view *v, uint64_t h)
{
    size_t i = (size_t)(h * 0x9E3779B97F4A7C15ull) & (v->cap - 1);
    while (v->keys[i].h && v->keys[i].h != h)
        i = (i + 1) & (v->cap - 1);
    return &v->keys[i];
}

static int grow_keys(st_view *v)
{
    st_view old = *v;
    v->cap = v->cap ? v->cap * 2 : 4096;
    v->keys = calloc(v->cap, sizeof *v->keys);
    if (!v->keys)
        return -1;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i].h)
            *key_slot(v, old.keys[i].h) = old.keys[i];
    free(old.keys);
    return 0;
}

/* The value of "name":"..." in a journal line, as pointer and length. */
static const char *field(const char *line, const char *name, size_t *len)
{
    const char *p = strstr(line, name);
    if (!p)
        return NULL;
    p += strlen(name);
    const char *q = strchr(p, '"');
    if (!q)
        return NULL;
    *len = (size_t)(q - p);
    return p;
}

/* Count one record (a journal line or an unmerged result): the latest of
 * a key replaces what an earlier one counted. */
static int count_record(st_view *v, const char *key, int wl, int failed)
{
    if ((v->nkeys + 1) * 2 > v->cap && grow_keys(v) != 0)
        return -1;
    st_key *k = key_slot(v, key_prefix(key));
    if (k->h) {
        if (k->wl >= 0) {
            v->wl[k->wl].done--;
            v->wl[k->wl].failed -= (size_t)k->failed;
        } else {
            v->verify_done--;
        }
    } else {
        k->h = key_prefix(key);
        v->nkeys++;
    }
    k->wl = wl;
    k->failed = failed;
    if (wl >= 0) {
        v->wl[wl].done++;
        v->wl[wl].failed += (size_t)failed;
    } else {
        v->verify_done++;
    }
    return 0;
}

static int scan_line(st_view *v, const char *line)
{
    size_t kl = 0, wl = 0, bl = 0, sl = 0;
    const char *k = field(line, "{\"key\":\"", &kl);
    if (!k || kl != 64 || (strstr(line, "\"kind\":")
                           && !strstr(line, "\"kind\":\"gpu\"")))
        return 0;
    const char *w = field(line, ",\"workload\":\"", &wl);
    const char *b = field(line, ",\"backend\":\"", &bl);
    const char *s = field(line, "},\"status\":\"", &sl);
    if (!w || !b || !s)
        return 0;
    int main_backend = !v->backend[0] || (strlen(v->backend) == bl
                                          && !memcmp(v->backend, b, bl));
    int i = main_backend ? wl_index(v, w, wl) : -1;
    return count_record(v, k, i, !(sl == 2 && !memcmp(s, "ok", 2)));
}

static int hex_key(const char *s)
{
    if (strlen(s) != 64)
        return 0;
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static int scan_split_line(st_view *v, const char *line);

/* Scan the journal's lines from byte from to its end, a block at a time
 * (memory stays small whatever the journal's size). */
static int scan_from(st_view *v, const char *path, off_t from, gd_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gd_errf(err, GD_EENV, "%s: cannot open: %s", path,
                       strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = GD_OK;
    if (from > 0 && fseeko(f, from, SEEK_SET) != 0)
        rc = gd_errf(err, GD_EENV, "%s: cannot seek: %s", path,
                     strerror(errno));
    while (!rc && (n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] != '\n')
            break;  /* a torn last line is no record */
        line[n - 1] = '\0';
        if ((v->split ? scan_split_line(v, line) : scan_line(v, line)) != 0)
            rc = gd_errf(err, GD_EENV, "out of memory");
    }
    free(line);
    fclose(f);
    return rc;
}

/* Whether the journal line that ends at byte at (exclusive) has key. */
static int line_before_has_key(const char *path, off_t at, const char *key)
{
    char buf[65536];
    off_t start = at > (off_t)sizeof buf ? at - (off_t)sizeof buf : 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = pread(fd, buf, (size_t)(at - start), start);
    close(fd);
    if (n != at - start || n < 74 || buf[n - 1] != '\n')
        return 0;
    ssize_t i = n - 1;
    while (i > 0 && buf[i - 1] != '\n')
        i--;
    if (i == 0 && start > 0)
        return 0;  /* a line longer than the window */
    return n - i > 73 && !memcmp(buf + i, "{\"key\":\"", 8)
           && !memcmp(buf + i + 8, key, 64);
}

/* Counts from the journal's summary (store.c): 0 and *from, the byte
 * where the lines it has not counted begin; -1 when there is none, or it
 * does not match the journal (then the whole journal is read). */
static int read_summary(st_view *v, const char *jpath, off_t *from)
{
    char path[PATH_MAX], *text;
    struct stat sb;
    util_path_join(path, sizeof path, v->dir, STORE_SUMMARY);
    if (stat(jpath, &sb) != 0
        || util_read_file(path, &text, NULL, NULL) != GD_OK)
        return -1;
    cJSON *m = cJSON_Parse(text);
    free(text);
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(m, "journal_bytes");
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(m, "last_key");
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(m, "groups"), *g;
    int ok = cJSON_IsNumber(bytes) && cJSON_IsString(key)
             && cJSON_IsArray(gs) && bytes->valuedouble >= 0
             && bytes->valuedouble <= (double)sb.st_size
             && (bytes->valuedouble == 0
                 || line_before_has_key(jpath, (off_t)bytes->valuedouble,
                                        key->valuestring));
    cJSON_ArrayForEach(g, gs) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "workload");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(g, "backend");
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(g, "records");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(g, "failed");
        ok &= cJSON_IsString(w) && cJSON_IsString(b) && cJSON_IsNumber(r)
              && cJSON_IsNumber(f);
    }
    const cJSON *use = ok ? gs : NULL;
    cJSON_ArrayForEach(g, use) {
        const char *w = cJSON_GetObjectItemCaseSensitive(g, "workload")
                            ->valuestring;
        const char *b = cJSON_GetObjectItemCaseSensitive(g, "backend")
                            ->valuestring;
        size_t r = (size_t)cJSON_GetObjectItemCaseSensitive(g, "records")
                       ->valuedouble;
        size_t f = (size_t)cJSON_GetObjectItemCaseSensitive(g, "failed")
                       ->valuedouble;
        int i = !v->backend[0] || !strcmp(v->backend, b)
                    ? wl_index(v, w, strlen(w)) : -1;
        if (i >= 0) {
            v->wl[i].done += r;
            v->wl[i].failed += f;
        } else {
            v->verify_done += r;
        }
    }
    if (ok)
        *from = (off_t)bytes->valuedouble;
    cJSON_Delete(m);
    return ok ? 0 : -1;
}

static int scan_journal(st_view *v, gd_err *err)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, v->dir, "results.jsonl");
    if (!util_path_exists(path))
        return GD_OK;
    off_t from = 0;
    if (read_summary(v, path, &from) != 0)
        from = 0;
    v->counted_at = from;
    return scan_from(v, path, from, err);
}

/* ---- a split study's journal ---- */

/* One line of a split study's journal (its records carry "kind":"split",
 * which scan_line skips): a policy job's prediction counts the job done on
 * its machine; its measurement, when it failed or was skipped, counts it
 * failed. Calibration rungs count neither. */
static int scan_split_line(st_view *v, const char *line)
{
    size_t rl = 0, bl = 0, ml = 0, sl = 0;
    const char *role = field(line, ",\"role\":\"", &rl);
    const char *b = field(line, ",\"backend\":\"", &bl);
    const char *m = field(line, ",\"machine\":\"", &ml);
    const char *s = field(line, ",\"status\":\"", &sl);
    if (!role || !b || !m || !s || rl != 6 || memcmp(role, "policy", 6))
        return 0;
    int i = wl_index(v, m, ml);
    if (i < 0)
        return 0;
    if (bl == 9 && !memcmp(b, "costmodel", 9))
        v->wl[i].done++;
    else if ((sl == 6 && !memcmp(s, "failed", 6))
             || (sl == 7 && !memcmp(s, "skipped", 7)))
        v->wl[i].failed++;
    return 0;
}

/* A split run's jobs per machine: planned from its campaign.xml (tasks x
 * sizes x policies on every machine), done and failed from the whole
 * journal (the journal's summary counts design points only). */
static int scan_split(st_view *v, gd_err *err)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, v->dir, "campaign.xml");
    sp_campaign *c = malloc(sizeof *c);
    int rc = c ? sp_load_copy(path, c, err)
               : gd_errf(err, GD_EENV, "out of memory");
    double per = 0;
    for (int t = 0; !rc && t < c->ntask; t++)
        per += (double)c->task[t].nsizes * c->npol;
    for (int i = 0; !rc && i < c->nmach; i++)
        if (!c->mach[i].file[0])   /* a file's machine names itself */
            wl_index(v, c->mach[i].name, strlen(c->mach[i].name));
    free(c);
    v->split = 1;
    util_path_join(path, sizeof path, v->dir, "results.jsonl");
    if (!rc && util_path_exists(path))
        rc = scan_from(v, path, 0, err);
    for (int i = 0; i < v->nwl; i++)
        v->wl[i].planned = per;
    if (v->finished && v->pid == 0)
        strcpy(v->phase, "finished");
    return rc;
}

/* ---- job folders not in the journal ---- */

static int journaled(st_view *v, const char *key)
{
    return v->cap && key_slot(v, key_prefix(key))->h != 0;
}

/* The last non-empty line of a log (its last 4 KB). */
static void last_line(const char *dir, const char *name, char *out, size_t n)
{
    char path[PATH_MAX + 16], buf[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fseek(f, 0, SEEK_END) == 0 && ftell(f) > (long)sizeof buf - 1)
        fseek(f, -(long)sizeof buf + 1, SEEK_END);
    else
        rewind(f);
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    while (got && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
        buf[--got] = '\0';
    char *l = strrchr(buf, '\n');
    if (got)
        util_strlcpy(out, l ? l + 1 : buf, n);
}

static int add_job(st_view *v, const st_job *j)
{
    if (util_grow(&v->jobs, &v->capjobs, v->njobs, sizeof *v->jobs, 16))
        return -1;
    v->jobs[v->njobs++] = *j;
    return 0;
}

/* The campaign's user knobs of a job's config object (the members that
 * are no built-in knob) appended to its text as ",name=value". */
static void user_knobs_text(const cJSON *cfg, char *out, size_t n)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, cfg) {
        size_t len = strlen(out);
        if (!m->string || space_knob_find(m->string) >= 0)
            continue;
        if (cJSON_IsString(m))
            snprintf(out + len, n - len, ",%s=%s", m->string, m->valuestring);
        else if (cJSON_IsNumber(m))
            snprintf(out + len, n - len, ",%s=%.17g", m->string,
                     m->valuedouble);
    }
}

/* What job.json says the job is, and its Slurm task (slurm.json). */
static int describe_job(const char *jd, st_job *j, long *jobid, int *task)
{
    char path[PATH_MAX + 16], *text;
    snprintf(path, sizeof path, "%s/%s", jd, JOBRUN_SPEC);
    struct stat sb;
    if (stat(path, &sb) != 0 || util_read_file(path, &text, NULL, NULL))
        return -1;
    j->elapsed = difftime(time(NULL), sb.st_mtime);
    cJSON *o = cJSON_Parse(text);
    free(text);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "record");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "workload");
    char *rt = r ? cJSON_PrintUnformatted(r) : NULL;
    store_record rec;
    gd_err ignore;
    if (rt && store_record_from_json(rt, path, 1, &rec, &ignore) == GD_OK) {
        space_config_canon(NULL, &rec.cfg, j->config, sizeof j->config);
        user_knobs_text(cJSON_GetObjectItemCaseSensitive(r, "config"),
                        j->config, sizeof j->config);
    }
    if (cJSON_IsString(w))
        util_strlcpy(j->workload, w->valuestring, sizeof j->workload);
    cJSON_free(rt);
    cJSON_Delete(o);
    *jobid = 0;
    snprintf(path, sizeof path, "%s/slurm.json", jd);
    if (util_read_file(path, &text, NULL, NULL) == GD_OK) {
        cJSON *s = cJSON_Parse(text);
        free(text);
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(s, "job");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "task");
        if (cJSON_IsNumber(id) && cJSON_IsNumber(t)) {
            *jobid = (long)id->valuedouble;
            *task = t->valueint;
        }
        cJSON_Delete(s);
    }
    return 0;
}

/* A job folder whose key is not journaled: a result job-run wrote and
 * nobody merged, a Slurm task, a job running locally, or the leftover of
 * a session that died. */
static int visit_job(st_view *v, const char *jd, const char *key)
{
    char res[PATH_MAX + 16];
    snprintf(res, sizeof res, "%s/%s", jd, JOBRUN_RESULT);
    if (util_path_exists(res)) {
        store_record r;
        gd_err ignore;
        if (jobrun_read_result(jd, NULL, &r, &ignore) != GD_OK)
            return 0;
        int i = wl_index(v, r.workload, strlen(r.workload));
        if (i >= 0)
            v->wl[i].unmerged++;
        return count_record(v, key, i, r.status != ST_OK);
    }
    st_job j;
    memset(&j, 0, sizeof j);
    util_strlcpy(j.key, key, sizeof j.key);
    long jobid;
    int task = 0;
    if (describe_job(jd, &j, &jobid, &task) != 0) {
        if (v->pid == 0)
            v->interrupted++;
        return 0;
    }
    if (jobid > 0) {
        snprintf(j.where, sizeof j.where, "slurm %ld_%d", jobid, task);
        v->slurm_tasks++;
    } else if (v->pid == 0) {
        v->interrupted++;  /* its coordinator is gone, and the job with it */
        return 0;
    } else {
        strcpy(j.where, "local");
    }
    last_line(jd, "stdout.log", j.last, sizeof j.last);
    if (!j.last[0])
        last_line(jd, "stderr.log", j.last, sizeof j.last);
    return add_job(v, &j);
}

/* Job folder keys (as bytes, sorted) and whether the journal has them. */
typedef struct {
    uint8_t (*key)[32];
    char *found;
    size_t n, cap;
} cand_set;

static int cmp_key(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

static void mark_found(cand_set *c, const uint8_t key[32])
{
    uint8_t (*k)[32] = bsearch(key, c->key, c->n, sizeof *c->key, cmp_key);
    if (k)
        c->found[k - c->key] = 1;
}

/* The keys of the journal's first v->counted_at bytes (the summary counted
 * them) from results.index, when it covers them and its last line is in
 * the journal; 0, or -1 when it cannot be used. */
static int mark_from_index(st_view *v, const char *jpath, cand_set *c)
{
    sidx_head h;
    sidx_entry *e;
    size_t n;
    char last[65];
    if (sidx_read(v->dir, &h, &e, &n) != 0)
        return -1;
    sidx_key_hex(h.last_key, last);
    int ok = h.covered >= (uint64_t)v->counted_at
             && line_before_has_key(jpath, (off_t)h.covered, last);
    for (size_t i = 0; ok && i < n; i++)
        mark_found(c, e[i].key);
    free(e);
    return ok ? 0 : -1;
}

/* Without a usable index: the keys of those lines, read from the journal
 * (a block at a time, no JSON parse). */
static void mark_from_journal(const st_view *v, const char *jpath,
                              cand_set *c)
{
    FILE *f = fopen(jpath, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    off_t at = 0;
    uint8_t key[32];
    while (f && at < v->counted_at && (n = getline(&line, &cap, f)) > 0) {
        at += n;
        if (n > 72 && !memcmp(line, "{\"key\":\"", 8)
            && sidx_key_bin(line + 8, key) == 0)
            mark_found(c, key);
    }
    free(line);
    if (f)
        fclose(f);
}

/* The folders whose key is journaled before counted_at (not in keys)
 * marked found. -1: out of memory. */
static int mark_counted(st_view *v, cand_set *c)
{
    if (!c->n || v->counted_at == 0)
        return 0;
    c->found = calloc(c->n, 1);
    if (!c->found)
        return -1;
    qsort(c->key, c->n, sizeof *c->key, cmp_key);
    char jpath[PATH_MAX];
    util_path_join(jpath, sizeof jpath, v->dir, "results.jsonl");
    if (mark_from_index(v, jpath, c) != 0)
        mark_from_journal(v, jpath, c);
    return 0;
}

static int scan_jobs(st_view *v, gd_err *err)
{
    char jobs[PATH_MAX];
    util_path_join(jobs, sizeof jobs, v->dir, "jobs");
    DIR *d = opendir(jobs);
    if (!d)
        return GD_OK;
    struct dirent *e;
    cand_set c = { 0 };
    int rc = 0;
    while (!rc && (e = readdir(d)) != NULL) {
        if (!hex_key(e->d_name) || journaled(v, e->d_name))
            continue;
        rc = util_grow(&c.key, &c.cap, c.n, sizeof *c.key, 64);
        if (!rc)
            sidx_key_bin(e->d_name, c.key[c.n++]);
    }
    closedir(d);
    if (!rc)
        rc = mark_counted(v, &c);
    for (size_t i = 0; !rc && i < c.n; i++) {
        if (c.found && c.found[i])
            continue;
        char key[65], jd[PATH_MAX + 80];
        sidx_key_hex(c.key[i], key);
        snprintf(jd, sizeof jd, "%s/%s", jobs, key);
        rc = visit_job(v, jd, key);
    }
    free(c.key);
    free(c.found);
    return rc ? gd_errf(err, GD_EENV, "out of memory") : GD_OK;
}

/* ---- Slurm ---- */

/* squeue's state of each Slurm task found in a job folder: RUNNING ones
 * run, PENDING ones are queued, the others are shown as Slurm says. */
static void ask_squeue(st_view *v)
{
    if (!v->slurm_tasks)
        return;
    FILE *p = popen("squeue --noheader --array --states=all "
                    "--format='%F_%K|%T' 2>/dev/null", "r");
    char text[65536] = "";
    size_t got = p ? fread(text, 1, sizeof text - 1, p) : 0;
    text[got] = '\0';
    int st = p ? pclose(p) : -1;
    if (st != 0) {
        snprintf(v->slurm_note, sizeof v->slurm_note, "squeue did not "
                 "answer: the states of %d Slurm task(s) are unknown",
                 v->slurm_tasks);
        return;
    }
    for (size_t i = 0; i < v->njobs; i++) {
        st_job *j = &v->jobs[i];
        if (strncmp(j->where, "slurm ", 6))
            continue;
        char pat[64];
        snprintf(pat, sizeof pat, "%s|", j->where + 6);
        const char *at = strstr(text, pat);
        char state[24] = "GONE";
        if (at && (at == text || at[-1] == '\n')) {
            util_strlcpy(state, at + strlen(pat), sizeof state);
            state[strcspn(state, "\n")] = '\0';
        }
        snprintf(j->where + strlen(j->where),
                 sizeof j->where - strlen(j->where), " %s", state);
    }
}

/* Jobs still to come per workload, and the ETA from this session's rate. */
static void finish_view(st_view *v)
{
    size_t done = 0, left = 0;
    for (size_t i = 0; i < v->njobs; i++) {
        int w = wl_index(v, v->jobs[i].workload, strlen(v->jobs[i].workload));
        if (w < 0)
            continue;
        if (strstr(v->jobs[i].where, "PENDING"))
            v->wl[w].queued_slurm++;
        else
            v->wl[w].running++;
    }
    for (int i = 0; i < v->nwl; i++) {
        done += v->wl[i].done;
        if (v->wl[i].planned >= 0 && v->wl[i].planned > (double)v->wl[i].done)
            left += (size_t)v->wl[i].planned - v->wl[i].done;
    }
    v->eta_s = -1;
    double dt = difftime(time(NULL), (time_t)v->started);
    size_t session = done + v->verify_done > v->journal_at_start
                     ? done + v->verify_done - v->journal_at_start : 0;
    if (v->pid != 0 && v->started > 0 && session > 0 && dt > 0)
        v->eta_s = left == 0 ? 0 : (double)left * dt / (double)session;
}

/* ---- output ---- */

static size_t queued_of(const st_wl *w)
{
    if (w->planned < 0)
        return 0;
    double q = w->planned - (double)w->done - (double)w->running;
    return q > 0 ? (size_t)q : 0;
}

static void hms(double s, char *out, size_t n)
{
    long t = (long)(s + 0.5);
    snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

static void print_text(const st_view *v)
{
    printf("%s: campaign %s, %s, phase %s\n", v->dir,
           v->campaign[0] ? v->campaign : "?",
           v->pid > 0 ? "running" : v->pid < 0 ? "running (pid unknown)"
                      : "not running", v->phase);
    if (v->pid > 0)
        printf("  gpudse pid %ld holds the run directory\n", v->pid);
    printf("  %-16s %8s %8s %8s %8s\n", v->split ? "machine" : "workload",
           "queued", "running",
           "done", "failed");
    size_t tq = 0, tr = 0, td = 0, tf = 0, tu = 0;
    for (int i = 0; i < v->nwl; i++) {
        const st_wl *w = &v->wl[i];
        printf("  %-16s %8zu %8zu %8zu %8zu\n", w->name, queued_of(w),
               w->running, w->done - w->failed, w->failed);
        tq += queued_of(w);
        tr += w->running;
        td += w->done - w->failed;
        tf += w->failed;
        tu += w->unmerged;
    }
    printf("  %-16s %8zu %8zu %8zu %8zu\n", "total", tq, tr, td, tf);
    if (v->verify_done)
        printf("  verification: %zu job(s) journaled\n", v->verify_done);
    if (tu)
        printf("  %zu result(s) written by job-run are not yet in the journal "
               "(counted above; the next gpudse run merges them)\n", tu);
    if (v->interrupted)
        printf("  %zu job(s) were cut off when their gpudse stopped; they run "
               "again on resume\n", v->interrupted);
    if (v->slurm_note[0])
        printf("  %s\n", v->slurm_note);
    char t[32];
    if (v->eta_s >= 0) {
        hms(v->eta_s, t, sizeof t);
        printf("  ETA %s (at this session's rate)\n", t);
    }
    if (v->njobs)
        printf("  running or submitted:\n");
    for (size_t i = 0; i < v->njobs && i < MAXSHOW; i++) {
        const st_job *j = &v->jobs[i];
        hms(j->elapsed, t, sizeof t);
        printf("    %.12s %-12s %s %s  %s\n      %s\n", j->key, j->workload,
               t, j->where, j->config, j->last[0] ? j->last : "(no output)");
    }
    if (v->njobs > MAXSHOW)
        printf("    ... and %zu more\n", v->njobs - MAXSHOW);
}

static void print_json(const st_view *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dir", v->dir);
    cJSON_AddStringToObject(o, "campaign", v->campaign);
    cJSON_AddBoolToObject(o, "running", v->pid != 0);
    if (v->pid > 0)
        cJSON_AddNumberToObject(o, "pid", (double)v->pid);
    cJSON_AddStringToObject(o, "phase", v->phase);
    cJSON *ws = cJSON_AddArrayToObject(o, "workloads");
    size_t tot[4] = {0, 0, 0, 0};
    for (int i = 0; i < v->nwl; i++) {
        const st_wl *w = &v->wl[i];
        cJSON *e = cJSON_CreateObject();
        size_t c[4] = {queued_of(w), w->running, w->done - w->failed,
                       w->failed};
        cJSON_AddStringToObject(e, "name", w->name);
        static const char *const names[4] = {"queued", "running", "done",
                                             "failed"};
        for (int k = 0; k < 4; k++) {
            cJSON_AddNumberToObject(e, names[k], (double)c[k]);
            tot[k] += c[k];
        }
        cJSON_AddNumberToObject(e, "unmerged", (double)w->unmerged);
        cJSON_AddItemToArray(ws, e);
    }
    cJSON *t = cJSON_AddObjectToObject(o, "total");
    cJSON_AddNumberToObject(t, "queued", (double)tot[0]);
    cJSON_AddNumberToObject(t, "running", (double)tot[1]);
    cJSON_AddNumberToObject(t, "done", (double)tot[2]);
    cJSON_AddNumberToObject(t, "failed", (double)tot[3]);
    cJSON_AddNumberToObject(o, "verification_done", (double)v->verify_done);
    cJSON_AddNumberToObject(o, "interrupted", (double)v->interrupted);
    if (v->eta_s >= 0)
        cJSON_AddNumberToObject(o, "eta_s", v->eta_s);
    else
        cJSON_AddNullToObject(o, "eta_s");
    if (v->slurm_note[0])
        cJSON_AddStringToObject(o, "note", v->slurm_note);
    cJSON *js = cJSON_AddArrayToObject(o, "jobs");
    for (size_t i = 0; i < v->njobs; i++) {
        const st_job *j = &v->jobs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "key", j->key);
        cJSON_AddStringToObject(e, "workload", j->workload);
        cJSON_AddStringToObject(e, "config", j->config);
        cJSON_AddStringToObject(e, "where", j->where);
        cJSON_AddNumberToObject(e, "elapsed_s", j->elapsed);
        cJSON_AddStringToObject(e, "last_line", j->last);
        cJSON_AddItemToArray(js, e);
    }
    char *s = cJSON_Print(o);
    if (s)
        printf("%s\n", s);
    cJSON_free(s);
    cJSON_Delete(o);
}

/* ---- the command ---- */

static void view_free(st_view *v)
{
    free(v->keys);
    free(v->jobs);
}

static int build_view(const char *dir, st_view *v, gd_err *err)
{
    memset(v, 0, sizeof *v);
    v->dir = dir;
    read_manifest(v);
    v->pid = lock_holder(dir);
    read_log_tail(v);
    int rc = sp_is_run_dir(dir) ? scan_split(v, err) : scan_journal(v, err);
    if (!rc)
        rc = scan_jobs(v, err);
    if (!rc) {
        ask_squeue(v);
        finish_view(v);
    }
    return rc;
}

int cmd_status(int argc, char **argv)
{
    int json = 0;
    double watch = 0;
    const po_option opts[] = {
        PO_FLAG("--json", &json, "the same as one JSON object"),
        PO_OPTDOUBLE("--watch", "[SECONDS]", &watch, 2, 0.001, 3600,
                     "seconds between updates, from 0.001 to 3600",
                     "redraw every SECONDS (default 2) until the run\n"
                     "stops"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "status", "usage: gpudse status DIR [--json] [--watch [SECONDS]]\n",
        "Show a run's progress from its files, while it runs or after its\n"
        "gpudse died: queued, running, done and failed jobs per workload (per\n"
        "machine for a split study) with totals, the running jobs (workload,\n"
        "config, elapsed, last log line), the phase and an ETA; results\n"
        "job-run wrote but nobody merged are counted, and squeue is asked\n"
        "about Slurm tasks.\n",
        opts, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n != 1)
        return po_usage_error(&cmd, n ? "status takes one run directory"
                                      : "status needs a run directory");
    const char *dir = argv[0];
    char path[PATH_MAX];
    util_path_join(path, sizeof path, dir, "campaign.xml");
    if (!util_path_exists(path)) {
        fprintf(stderr, "gpudse: %s: not a gpudse run directory (no "
                "campaign.xml)\n", dir);
        return GD_EINPUT;
    }
    for (;;) {
        st_view v;
        gd_err err = {0, ""};
        int rc = build_view(dir, &v, &err);
        if (rc) {
            view_free(&v);
            fprintf(stderr, "gpudse: %s\n", err.msg);
            return rc;
        }
        if (watch > 0 && !json)
            printf("\033[H\033[2J");  /* a fresh screen per update */
        if (json)
            print_json(&v);
        else
            print_text(&v);
        fflush(stdout);
        int running = v.pid != 0;
        view_free(&v);
        if (watch <= 0 || !running)
            return GD_OK;  /* --watch ends with the run */
        usleep((useconds_t)(watch * 1e6));
    }
}
