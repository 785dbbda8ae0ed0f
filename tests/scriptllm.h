/* scriptllm: a scripted stand-in for an LLM orchestrator, served on
 * loopback in the OpenAI-compatible chat format, for `make bench` (the
 * agent strategy driven by an LLM against the other strategies). It reads
 * the prompt the agent loop sends (docs/agents.md) like a careful human
 * would: the current config, the Bottleneck specialist's verdict on the
 * front's balanced point, the allowed values and the configs already
 * evaluated; and it proposes the requested number of one-knob moves from
 * the current config — more of the resource the verdict says binds, then
 * less of the ones that only cost area — skipping configs it sees were
 * evaluated, one CONFIG: line each. Deterministic: the same prompt gives
 * the same reply. */
#ifndef GPUDSE_SCRIPTLLM_H
#define GPUDSE_SCRIPTLLM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "space.h"

#define SL_MAXLV 16

typedef struct {
    char lv[SPACE_NKNOBS][SL_MAXLV][24];   /* allowed values as text */
    int nlv[SPACE_NKNOBS];
    int cur[SPACE_NKNOBS];                 /* current level */
    char *seen;                            /* evaluated configs, one a line */
    int want;
    const char *bound;                     /* the front's bottleneck */
} sl_prompt;

/* "name=v,name=v,..." of levels lv (the agent's canonical form). */
static void sl_canon(const sl_prompt *p, const int *lv, char *out, size_t n)
{
    size_t u = 0;
    out[0] = 0;
    for (int k = 0; k < SPACE_NKNOBS && u < n; k++)
        u += (size_t)snprintf(out + u, n - u, "%s%s=%s", k ? "," : "",
                              space_knob_get(k)->name, p->lv[k][lv[k]]);
}

static int sl_level_of(const sl_prompt *p, int k, const char *v, size_t len)
{
    for (int i = 0; i < p->nlv[k]; i++)
        if (strlen(p->lv[k][i]) == len && !strncmp(p->lv[k][i], v, len))
            return i;
    return -1;
}

static void sl_parse(char *user, sl_prompt *p)
{
    memset(p, 0, sizeof *p);
    p->bound = "";
    size_t cap = strlen(user) + 1, used = 0;
    p->seen = calloc(cap, 1);
    int in_front_note = 0;
    for (char *save = NULL, *l = strtok_r(user, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(l, ':');
        int k = colon ? -1 : -2;
        for (int i = 0; k == -1 && i < SPACE_NKNOBS; i++)
            if ((size_t)(colon - l) == strlen(space_knob_get(i)->name)
                && !strncmp(l, space_knob_get(i)->name, (size_t)(colon - l)))
                k = i;
        if (k >= 0) {   /* "knob: v v v" */
            for (char *s2 = NULL, *v = strtok_r(colon + 1, " ", &s2);
                 v && p->nlv[k] < SL_MAXLV; v = strtok_r(NULL, " ", &s2))
                snprintf(p->lv[k][p->nlv[k]++], 24, "%s", v);
        } else if (!strncmp(l, "front: ", 7) || !strncmp(l, "other: ", 7)) {
            char *e = strstr(l, " ->");
            size_t len = e ? (size_t)(e - l - 7) : strlen(l + 7);
            memcpy(p->seen + used, l + 7, len);
            used += len;
            p->seen[used++] = '\n';
        } else if (!strncmp(l, "[front]", 7)) {
            in_front_note = 1;
        } else if (!strncmp(l, "[last]", 6)) {
            in_front_note = 0;
        } else if (in_front_note && strstr(l, "bottleneck (")) {
            p->bound = strstr(l, "compute-bound") ? "compute"
                       : strstr(l, "bandwidth-bound") ? "bandwidth"
                       : strstr(l, "latency-bound") ? "latency" : "";
        } else if (!strncmp(l, "Current configuration", 21) && colon) {
            for (char *s2 = NULL, *it = strtok_r(strchr(l, ')') ? strchr(l,
                 ')') + 2 : colon + 1, ",", &s2); it;
                 it = strtok_r(NULL, ",", &s2)) {
                while (*it == ' ')
                    it++;
                char *eq = strchr(it, '=');
                int kk = eq ? -1 : -2;
                for (int i = 0; kk == -1 && i < SPACE_NKNOBS; i++)
                    if ((size_t)(eq - it) == strlen(space_knob_get(i)->name)
                        && !strncmp(it, space_knob_get(i)->name,
                                    (size_t)(eq - it)))
                        kk = i;
                if (kk >= 0) {
                    int lv = sl_level_of(p, kk, eq + 1, strlen(eq + 1));
                    p->cur[kk] = lv < 0 ? 0 : lv;
                }
            }
        } else if (!strncmp(l, "Propose ", 8)) {
            p->want = atoi(l + 8);
        }
    }
}

/* The moves an expert tries first, by what binds: (knob, direction). */
static int sl_moves(const char *bound, int *knob, int *dir)
{
    static const int compute[][2] = {
        {KNOB_N_CLUSTERS, 1}, {KNOB_CORES_PER_CLUSTER, 1},
        {KNOB_NUM_SCHED_PER_CORE, 1}, {KNOB_N_MEM, -1}, {KNOB_L2_SETS, -1},
        {KNOB_L1_SETS, -1}, {KNOB_SHMEM_SIZE, -1}, {KNOB_N_CLUSTERS, -1},
        {KNOB_CORES_PER_CLUSTER, -1}};
    static const int bandwidth[][2] = {
        {KNOB_N_MEM, 1}, {KNOB_L2_SETS, 1}, {KNOB_L1_SETS, 1},
        {KNOB_N_CLUSTERS, -1}, {KNOB_CORES_PER_CLUSTER, -1},
        {KNOB_NUM_SCHED_PER_CORE, -1}, {KNOB_SHMEM_SIZE, -1},
        {KNOB_N_MEM, -1}};
    static const int latency[][2] = {
        {KNOB_N_CLUSTERS, 1}, {KNOB_L2_SETS, 1}, {KNOB_L1_SETS, 1},
        {KNOB_SCHEDULER, 1}, {KNOB_CORES_PER_CLUSTER, 1}, {KNOB_N_MEM, 1},
        {KNOB_SHMEM_SIZE, -1}, {KNOB_N_MEM, -1}, {KNOB_N_CLUSTERS, -1}};
    const int (*m)[2] = !strcmp(bound, "compute") ? compute
                        : !strcmp(bound, "bandwidth") ? bandwidth : latency;
    int n = m == compute ? 9 : m == bandwidth ? 8 : 9;
    for (int i = 0; i < n; i++) {
        knob[i] = m[i][0];
        dir[i] = m[i][1];
    }
    return n;
}

/* The reply to one user message (malloc'd). */
static char *sl_reply(const char *user_msg)
{
    char *user = strdup(user_msg);
    sl_prompt p;
    sl_parse(user, &p);
    int knob[16], dir[16], nm = sl_moves(p.bound, knob, dir), got = 0;
    size_t cap = 4096, used = 0;
    char *out = malloc(cap);
    used += (size_t)snprintf(out, cap, "The front's balanced point is %s-"
                             "bound; I push the binding resource first.\n",
                             p.bound[0] ? p.bound : "un");
    char *taken = calloc(strlen(user_msg) + 4096, 1);
    size_t tu = 0;
    for (int step = 1; step <= 2 && got < p.want; step++)
        for (int i = 0; i < nm && got < p.want; i++) {
            int lv[SPACE_NKNOBS];
            memcpy(lv, p.cur, sizeof lv);
            lv[knob[i]] += dir[i] * step;
            if (lv[knob[i]] < 0 || lv[knob[i]] >= p.nlv[knob[i]])
                continue;
            char canon[512], line[520];
            sl_canon(&p, lv, canon, sizeof canon);
            snprintf(line, sizeof line, "%s\n", canon);
            if ((p.seen && strstr(p.seen, line)) || strstr(taken, line))
                continue;
            memcpy(taken + tu, line, strlen(line) + 1);
            tu += strlen(line);
            if (used + 600 > cap)
                out = realloc(out, cap *= 2);
            used += (size_t)snprintf(out + used, cap - used, "CONFIG: %s\n",
                                     canon);
            got++;
        }
    free(taken);
    free(p.seen);
    free(user);
    return out;
}

/* Serve until killed: every request's last message answered. */
static void sl_serve(int lfd)
{
    signal(SIGPIPE, SIG_IGN);
    size_t cap = 1 << 20;
    char *req = malloc(cap);
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            _exit(1);
        size_t got = 0;
        long want = -1;
        while (got + 1 < cap) {
            ssize_t r = read(fd, req + got, cap - 1 - got);
            if (r <= 0)
                break;
            got += (size_t)r;
            req[got] = 0;
            char *end = strstr(req, "\r\n\r\n");
            if (end && want < 0) {
                char *cl = strstr(req, "Content-Length:");
                want = (long)(end - req) + 4 + (cl ? atol(cl + 15) : 0);
            }
            if (want >= 0 && (long)got >= want)
                break;
        }
        char *body = strstr(req, "\r\n\r\n");
        cJSON *j = body ? cJSON_Parse(body + 4) : NULL;
        cJSON *msgs = cJSON_GetObjectItem(j, "messages");
        cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
        cJSON *content = cJSON_GetObjectItem(last, "content");
        char *text = sl_reply(cJSON_IsString(content) ? content->valuestring
                                                      : "");
        cJSON_Delete(j);
        cJSON *r = cJSON_CreateObject(), *ch = cJSON_AddArrayToObject(r,
                                                                "choices");
        cJSON *c0 = cJSON_CreateObject();
        cJSON *m = cJSON_AddObjectToObject(c0, "message");
        cJSON_AddStringToObject(m, "content", text);
        cJSON_AddItemToArray(ch, c0);
        char *s = cJSON_PrintUnformatted(r);
        cJSON_Delete(r);
        char head[256];
        int hn = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-"
                          "Type: application/json\r\nContent-Length: %zu\r\n"
                          "Connection: close\r\n\r\n", strlen(s));
        if (write(fd, head, (size_t)hn) < 0 || write(fd, s, strlen(s)) < 0)
            (void)0;
        close(fd);
        free(s);
        free(text);
    }
}

/* Fork the server on 127.0.0.1; *port its port; returns its pid (-1). */
static pid_t sl_start(int *port)
{
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0
        || listen(lfd, 64) != 0
        || getsockname(lfd, (struct sockaddr *)&a, &al) != 0)
        return -1;
    *port = ntohs(a.sin_port);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never outlives the bench */
        sl_serve(lfd);
    }
    close(lfd);
    return pid;
}

static void sl_stop(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

#endif
