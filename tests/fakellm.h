/* fakellm: a loopback HTTP server, forked by a test, that plays an LLM
 * provider (127.0.0.1, ephemeral port): it answers a script of replies in
 * order, then one reply for the rest, optionally only to requests holding a
 * header line or on one path, and counts the requests in a file. The
 * includer defines TMP (its scratch folder) and includes testutil.h and
 * cJSON first. */
#ifndef GPUDSE_FAKELLM_H
#define GPUDSE_FAKELLM_H

#ifndef TMP
#error "define TMP (the suite's scratch folder) before including fakellm.h"
#endif

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

typedef struct {
    int status;
    const char *headers;   /* extra header lines, each ending in \r\n */
    const char *body;
    int delay_ms;
} reply_t;

typedef struct {
    pid_t pid;
    int port;
    char count_file[256];
} server_t;

static inline void lower(char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            *s = (char)(*s - 'A' + 'a');
}

/* Read one request (headers and a Content-Length body) into buf. */
static inline void read_request(int fd, char *buf, size_t n)
{
    size_t got = 0;
    long want = -1;
    buf[0] = 0;
    for (int guard = 0; guard < 10000 && got + 1 < n; guard++) {
        ssize_t r = read(fd, buf + got, n - 1 - got);
        if (r <= 0)
            break;
        got += (size_t)r;
        buf[got] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        if (end && want < 0) {
            char low[4096];
            size_t hl = (size_t)(end - buf) < sizeof low - 1
                        ? (size_t)(end - buf) : sizeof low - 1;
            memcpy(low, buf, hl);
            low[hl] = 0;
            lower(low);
            char *cl = strstr(low, "content-length:");
            want = (long)(end - buf) + 4 + (cl ? atol(cl + 15) : 0);
        }
        if (want >= 0 && (long)got >= want)
            break;
    }
}

static inline void write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static inline void serve(int lfd, const reply_t *script, int nscript,
                  const reply_t *rest, const char *auth, const char *path,
                  const char *count)
{
    signal(SIGPIPE, SIG_IGN);
    alarm(30);   /* never outlives a stuck test */
    static char req[1 << 20];
    char want[256] = "";
    if (auth) {
        snprintf(want, sizeof want, "%s", auth);
        lower(want);
    }
    for (int i = 0; i < 100; i++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            _exit(1);
        read_request(fd, req, sizeof req);
        lower(req);
        const reply_t *r = i < nscript ? &script[i] : rest;
        reply_t deny = {401, "", "{\"error\":\"missing or wrong key\"}", 0};
        reply_t notfound = {404, "", "{\"error\":\"no such path\"}", 0};
        if (auth && !strstr(req, want))
            r = &deny;
        if (path && strncmp(req, path, strlen(path)) != 0)
            r = &notfound;
        if (r->delay_ms) {
            struct timespec ts = {r->delay_ms / 1000,
                                  (r->delay_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        /* counted before the client can see the answer, and atomically:
         * once the client has its answer the count is on disk, whole, and
         * server_stop's SIGKILL can never find it truncated or stale */
        char tmp[300];
        snprintf(tmp, sizeof tmp, "%s.tmp", count);
        FILE *f = fopen(tmp, "w");
        if (f) {
            fprintf(f, "%d\n", i + 1);
            if (fclose(f) == 0)
                rename(tmp, count);
        }
        char head[1024];
        int hn = snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nContent-Type: "
                          "application/json\r\nContent-Length: %zu\r\n"
                          "Connection: close\r\n%s\r\n", r->status,
                          strlen(r->body), r->headers ? r->headers : "");
        write_all(fd, head, (size_t)hn);
        write_all(fd, r->body, strlen(r->body));
        close(fd);
    }
    _exit(0);
}

/* Fork a server on 127.0.0.1 at an ephemeral port. auth: a lowercase
 * header line the request must hold, or NULL. */
static inline server_t server_start_at(const char *name, const reply_t *script,
                                int nscript, const reply_t *rest,
                                const char *auth, const char *path)
{
    server_t s;
    memset(&s, 0, sizeof s);
    snprintf(s.count_file, sizeof s.count_file, TMP "/%s.count", name);
    unlink(s.count_file);
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(lfd, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    ck_assert_int_eq(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(lfd, 16), 0);
    socklen_t al = sizeof a;
    ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
    s.port = ntohs(a.sin_port);
    s.pid = fork();
    ck_assert_int_ge(s.pid, 0);
    if (s.pid == 0)
        serve(lfd, script, nscript, rest, auth, path, s.count_file);
    close(lfd);
    return s;
}

static inline server_t server_start(const char *name, const reply_t *script,
                             int nscript, const reply_t *rest,
                             const char *auth)
{
    return server_start_at(name, script, nscript, rest, auth, NULL);
}

static inline int server_stop(server_t *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
    }
    FILE *f = fopen(s->count_file, "r");
    int n = 0;
    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = 0;
        fclose(f);
    }
    return n;
}

static inline char *openai_body(const char *text)
{
    cJSON *r = cJSON_CreateObject(), *ch = cJSON_AddArrayToObject(r, "choices");
    cJSON *c0 = cJSON_CreateObject(), *m = cJSON_AddObjectToObject(c0, "message");
    cJSON_AddStringToObject(m, "role", "assistant");
    cJSON_AddStringToObject(m, "content", text);
    cJSON_AddItemToArray(ch, c0);
    char *s = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    return s;
}

static inline char *anthropic_body(const char *text)
{
    cJSON *r = cJSON_CreateObject(), *c = cJSON_AddArrayToObject(r, "content");
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "type", "text");
    cJSON_AddStringToObject(t, "text", text);
    cJSON_AddItemToArray(c, t);
    cJSON_AddStringToObject(r, "stop_reason", "end_turn");
    char *s = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    return s;
}

#endif
