/* workfork: runs one part of a stage in a forked child and hands its
 * error back through a pipe (workfork.h). */
#include "workfork.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void run_here(wf_child *f, int (*fn)(void *arg, gd_err *err),
                     void *arg)
{
    f->pid = -1;
    f->fd = -1;
    memset(&f->err, 0, sizeof f->err);
    f->rc = fn(arg, &f->err);
}

/* The child's whole error struct, written once (it fits a pipe buffer). */
static void child(int fd, int (*fn)(void *arg, gd_err *err), void *arg)
{
    gd_err e;
    memset(&e, 0, sizeof e);
    int rc = fn(arg, &e);
    if (rc) {
        e.code = rc;
        ssize_t w = write(fd, &e, sizeof e);
        (void)w;   /* a lost message: the exit status still says failed */
    }
    _exit(rc ? 1 : 0);   /* no atexit handlers, no second stdio flush */
}

void wf_start(wf_child *f, int (*fn)(void *arg, gd_err *err),
                    void *arg)
{
    int p[2];
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || pipe(p) != 0) {
        run_here(f, fn, arg);
        return;
    }
    fflush(NULL);   /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        run_here(f, fn, arg);
        return;
    }
    if (pid == 0) {
        close(p[0]);
        child(p[1], fn, arg);
    }
    close(p[1]);
    f->pid = pid;
    f->fd = p[0];
    f->rc = GD_OK;
}

/* The error the child wrote, if any: whole or not at all. */
static int read_err(int fd, gd_err *e)
{
    size_t got = 0;
    char *p = (char *)e;
    while (got < sizeof *e) {
        ssize_t r = read(fd, p + got, sizeof *e - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got == sizeof *e;
}

int wf_wait(wf_child *f, gd_err *err)
{
    if (f->pid < 0) {
        if (f->rc && err)
            *err = f->err;
        return f->rc;
    }
    gd_err e;
    memset(&e, 0, sizeof e);
    int have = read_err(f->fd, &e);
    close(f->fd);
    int st = 0;
    pid_t w;
    while ((w = waitpid(f->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    f->pid = -1;
    if (w < 0)
        return gd_errf(err, GD_EENV, "cannot wait for a worker process: "
                       "%s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return GD_OK;
    if (have) {
        if (err)
            *err = e;
        return e.code ? e.code : GD_EENV;
    }
    if (WIFSIGNALED(st))
        return gd_errf(err, GD_EENV, "a worker process died of signal %d "
                       "(%s)",
                       WTERMSIG(st), strsignal(WTERMSIG(st)));
    return gd_errf(err, GD_EENV, "a worker process failed without a "
                   "message");
}
