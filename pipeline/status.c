/* status: reads manifest.json, results.jsonl and the lock of a run directory
 * and prints where the run stands. It never writes into the directory. */
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "store.h"
#include "util.h"

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

static double planned_jobs(const char *dir, char *campaign, size_t n)
{
    char path[PATH_MAX], *text;
    util_path_join(path, sizeof path, dir, "manifest.json");
    campaign[0] = '\0';
    if (util_read_file(path, &text, NULL, NULL) != GD_OK)
        return -1;
    cJSON *m = cJSON_Parse(text);
    free(text);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "campaign");
    if (cJSON_IsString(c))
        util_strlcpy(campaign, c->valuestring, n);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(m, "jobs");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "planned");
    double v = cJSON_IsNumber(p) ? p->valuedouble : -1;
    cJSON_Delete(m);
    return v;
}

typedef struct {
    char name[64];
    size_t done, failed;
} wl_count;

static void print_counts(const store_record *r, size_t n, double planned)
{
    size_t by[ST__COUNT] = {0}, failed = 0;
    wl_count wl[64];
    int nwl = 0;
    for (size_t i = 0; i < n; i++) {
        by[r[i].status]++;
        failed += r[i].status != ST_OK;
        int k = 0;
        while (k < nwl && strcmp(wl[k].name, r[i].workload))
            k++;
        if (k == nwl && nwl < 64) {
            util_strlcpy(wl[nwl].name, r[i].workload, sizeof wl[0].name);
            wl[nwl].done = wl[nwl].failed = 0;
            nwl++;
        }
        if (k < nwl) {
            wl[k].done++;
            wl[k].failed += r[i].status != ST_OK;
        }
    }
    if (planned > 0)
        printf("  jobs: %zu of %.0f finished (%.1f%%), %zu ok, %zu failed\n",
               n, planned, 100.0 * (double)n / planned, n - failed, failed);
    else
        printf("  jobs: %zu finished, %zu ok, %zu failed\n", n, n - failed,
               failed);
    if (failed) {
        printf("  failures by class:");
        for (int s = 1; s < ST__COUNT; s++)
            if (by[s])
                printf(" %s %zu", store_status_name(s), by[s]);
        printf("\n");
    }
    for (int k = 0; k < nwl; k++)
        printf("  %-16s %zu finished, %zu failed\n", wl[k].name, wl[k].done,
               wl[k].failed);
}

int cmd_status(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-') {
        fprintf(stderr, "usage: gpudse status DIR\n");
        return GD_EINPUT;
    }
    const char *dir = argv[0];
    char path[PATH_MAX], campaign[64];
    util_path_join(path, sizeof path, dir, "campaign.xml");
    if (!util_path_exists(path)) {
        fprintf(stderr, "gpudse: %s: not a gpudse run directory (no "
                "campaign.xml)\n", dir);
        return GD_EINPUT;
    }
    double planned = planned_jobs(dir, campaign, sizeof campaign);
    long pid = lock_holder(dir);
    printf("%s: campaign %s, %s\n", dir, campaign[0] ? campaign : "?",
           pid > 0 ? "running" : pid < 0 ? "running (pid unknown)"
                   : "not running");
    if (pid > 0)
        printf("  gpudse pid %ld holds the run directory\n", pid);
    util_path_join(path, sizeof path, dir, "results.jsonl");
    store_record *r = NULL;
    size_t n = 0;
    gd_err err = {0, ""};
    if (util_path_exists(path) && store_load_all(path, &r, &n, &err)) {
        fprintf(stderr, "gpudse: %s\n", err.msg);
        return err.code;
    }
    print_counts(r, n, planned);
    free(r);
    return GD_OK;
}
