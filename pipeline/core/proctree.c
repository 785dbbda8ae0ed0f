/* proctree: process trees and orphaned process groups, read from /proc
 * (stat, task/N/children, environ). Linux only, as the pool is. */
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* A job's leader is a child subreaper while it runs: every process the job
 * started is in the tree under it, whatever its process group or session.
 * When the leader ends, what is left of that tree comes to gpudse (a
 * subreaper too) and is killed. */

static void list_add(ptree_list *l, pid_t pid)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == pid)
            return;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        pid_t *m = realloc(l->v, (size_t)cap * sizeof *m);
        if (!m)
            return;  /* best effort: the group kill still reaches most */
        l->v = m;
        l->cap = cap;
    }
    l->v[l->n++] = pid;
}

/* Add pid's children (of every thread) to l. */
void ptree_children(pid_t pid, ptree_list *l)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[128], buf[4096];
        snprintf(path, sizeof path, "%s/%s/children", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        for (char *t = buf; *t;) {
            char *end;
            long c = strtol(t, &end, 10);
            if (end == t)
                break;
            list_add(l, (pid_t)c);
            t = end;
        }
    }
    closedir(d);
}

/* Every process under root, root excluded. */
void ptree_descendants(pid_t root, ptree_list *l)
{
    ptree_children(root, l);
    for (int i = 0; i < l->n; i++)
        ptree_children(l->v[i], l);
}

/* ---- orphaned groups ---- */

/* One process's state, parent and process group from /proc/PID/stat; -1
 * when there is no such process. */
static int proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    long pp, gr;
    if (!rp || sscanf(rp + 1, " %c %ld %ld", state, &pp, &gr) != 3)
        return -1;
    *ppid = (pid_t)pp;
    *pgrp = (pid_t)gr;
    return 0;
}

/* Whether any process other than a zombie is in group pgid. */
static int group_has_members(pid_t pgid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char state;
        pid_t ppid, grp;
        if (proc_stat((pid_t)atol(e->d_name), &state, &ppid, &grp) == 0
            && grp == pgid && state != 'Z')
            found = 1;
    }
    closedir(d);
    return found;
}

/* Whether the group's leader is gone: no such process, a zombie (its
 * parent, the gpudse that died, cannot reap it; init may not have yet), or
 * a process that no longer leads that group (a reused id). */
static int leader_gone(pid_t pgid)
{
    char state;
    pid_t ppid, grp;
    if (kill(pgid, 0) != 0 && errno == ESRCH)
        return 1;
    if (proc_stat(pgid, &state, &ppid, &grp) != 0)
        return 1;
    return state == 'Z' || state == 'X' || grp != pgid;
}

/* What to do with one registry entry: 0 nothing left of it, 1 killed, -1
 * not killed and still there (kept). */
static int kill_orphan(pid_t pgid)
{
    if (pgid <= 1)
        return 0;
    if (!leader_gone(pgid)) {
        /* a live leader: a reused id we must not touch, or a job of a
         * gpudse that is still dying; keep the entry while its group has
         * members */
        return group_has_members(pgid) ? -1 : 0;
    }
    if (!group_has_members(pgid))
        return 0;
    if (kill(-pgid, SIGKILL) != 0)
        return errno == ESRCH ? 0 : -1;
    return 1;
}

/* kill_orphan, giving a leader that still runs up to a second to die: a
 * gpudse killed a moment ago takes its jobs' leaders with it
 * (PR_SET_PDEATHSIG), but not at once. */
static int kill_orphan_wait(pid_t pgid)
{
    int k = kill_orphan(pgid);
    for (int i = 0; k < 0 && i < 20; i++) {
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
        k = kill_orphan(pgid);
    }
    return k;
}

int ptree_kill_orphans(const char *registry, pid_t **kept, int *nkept)
{
    char *text;
    *nkept = 0;
    if (util_read_file(registry, &text, NULL, NULL) != GD_OK)
        return 0;
    int killed = 0, cap = 0;
    char *save = NULL;
    for (char *t = strtok_r(text, "\n", &save); t;
         t = strtok_r(NULL, "\n", &save)) {
        pid_t pgid = (pid_t)atol(t);
        int k = kill_orphan_wait(pgid);
        killed += k == 1;
        if (k < 0 && kept) {
            if (*nkept == cap) {
                cap = cap ? 2 * cap : 8;
                pid_t *m = realloc(*kept, (size_t)cap * sizeof *m);
                if (!m)
                    break;
                *kept = m;
            }
            (*kept)[(*nkept)++] = pgid;
        }
    }
    free(text);
    return killed;
}

/* Whether process pid's environment holds the entry env ("NAME=value"). */
static int environ_has(pid_t pid, const char *env)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap + 1);
    ssize_t n = 1;
    while (buf && len < cap && (n = read(fd, buf + len, cap - len)) > 0)
        len += (size_t)n;
    close(fd);
    int found = 0;
    size_t el = strlen(env) + 1;  /* with its NUL */
    for (size_t at = 0; buf && !found && at + el <= len;) {
        found = memcmp(buf + at, env, el) == 0;
        const char *nul = memchr(buf + at, '\0', len - at);
        at = nul ? (size_t)(nul - buf) + 1 : len;
    }
    free(buf);
    return found;
}

/* Kill every process (but this one) whose environment holds marker; how
 * many. Twice: one that forked during the first pass is found by the
 * second. */
int ptree_kill_marked(const char *marker)
{
    int killed = 0;
    for (int pass = 0; pass < 2; pass++) {
        DIR *d = opendir("/proc");
        if (!d)
            return killed;
        struct dirent *e;
        while ((e = readdir(d))) {
            pid_t pid = (pid_t)atol(e->d_name);
            if (pid > 1 && pid != getpid() && environ_has(pid, marker)
                && kill(pid, SIGKILL) == 0)
                killed++;
        }
        closedir(d);
    }
    return killed;
}
