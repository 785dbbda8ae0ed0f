/* executor: a pool of worker slots running external jobs as child processes.
 * SIGCHLD arrives through a signalfd, so one poll() watches child exits,
 * output pipes and timers together: no busy waiting and no global state.
 * Each child leads its own process group and is a child subreaper, and
 * gpudse is one too (see "process trees"), so a timeout or a stop kills
 * everything the job started — a grandchild that called setsid() too — and
 * what a job leaves behind when it ends is killed; PR_SET_PDEATHSIG ends
 * the job if gpudse dies. */
#define _GNU_SOURCE  /* pipe2 */
#include "executor.h"
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CAP ((size_t)64 << 20)
#define CHUNK 65536

typedef struct {
    int fd;              /* read end of the pipe, -1 when closed */
    int file;            /* the log file, opened at the first byte; -1 */
    char path[PATH_MAX];
    size_t written;      /* bytes the job wrote */
    size_t on_disk;      /* bytes in the file now */
    int io_err;          /* errno of the first failure to save output; 0 */
} stream;

typedef struct {
    int used;
    pid_t pid;
    int reaped, status;
    stream out, err;
    size_t cap;
    double start, deadline, kill_at, grace;
    int timed_out, interrupted;
    void *tag;
} slot;

struct exec_pool {
    int n;
    slot *slots;
    int sigfd;
    int reg_fd;              /* registry of running groups, -1: none */
    pid_t *kept;             /* groups of an earlier run that could not be
                              * killed: they stay in the registry */
    int nkept;
    pid_t *dead;             /* leftovers we killed, to reap */
    int ndead, capdead;
    int was_subreaper;       /* gpudse's own setting before the pool */
    char *marker;            /* MARKER=registry path, in every job's
                              * environment; NULL: no registry */
    struct pollfd *pfd;      /* 1 + 2n: the signalfd, then each slot's pipes */
    stream **owner;          /* the stream of each pfd entry */
    int *owner_slot;         /* and its slot */
    sigset_t old_mask;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void pool_free_arrays(exec_pool *p)
{
    free(p->pfd);
    free(p->owner);
    free(p->owner_slot);
    free(p->kept);
    free(p->dead);
    free(p->marker);
    free(p->slots);
    free(p);
}

int exec_pool_new(int workers, exec_pool **out, gd_err *err)
{
    if (workers < 1)
        return gd_errf(err, GD_EINPUT, "need at least one worker");
    exec_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->slots = calloc((size_t)workers, sizeof *p->slots))) {
        free(p);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    p->n = workers;
    p->reg_fd = -1;
    size_t nfd = 1 + 2 * (size_t)workers;
    p->pfd = calloc(nfd, sizeof *p->pfd);
    p->owner = calloc(nfd, sizeof *p->owner);
    p->owner_slot = calloc(nfd, sizeof *p->owner_slot);
    if (!p->pfd || !p->owner || !p->owner_slot) {
        pool_free_arrays(p);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &p->old_mask);
    p->sigfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    if (p->sigfd < 0) {
        int e = errno;
        sigprocmask(SIG_SETMASK, &p->old_mask, NULL);
        pool_free_arrays(p);
        return gd_errf(err, GD_EENV, "signalfd: %s", strerror(e));
    }
    /* what a job leaves behind when it ends comes to us, not to init */
    prctl(PR_GET_CHILD_SUBREAPER, &p->was_subreaper);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    *out = p;
    return GD_OK;
}

int exec_pool_idle(const exec_pool *p)
{
    int k = 0;
    for (int i = 0; i < p->n; i++)
        k += !p->slots[i].used;
    return k;
}

int exec_pool_running(const exec_pool *p)
{
    return p->n - exec_pool_idle(p);
}

/* ---- log files that keep their tail ---- */

/* Move the last cap bytes of fd's file (size bytes) to its start. */
static int keep_tail(int fd, size_t size, size_t cap)
{
    if (size <= cap)
        return 0;
    char *buf = malloc(CHUNK);
    if (!buf)
        return -1;
    off_t src = (off_t)(size - cap), dst = 0;
    int rc = 0;
    while (dst < (off_t)cap && !rc) {
        size_t want = (size_t)((off_t)cap - dst) < CHUNK
                          ? (size_t)((off_t)cap - dst) : CHUNK;
        ssize_t got = pread(fd, buf, want, src);
        if (got <= 0 || pwrite(fd, buf, (size_t)got, dst) != got)
            rc = -1;
        src += got;
        dst += got;
    }
    free(buf);
    if (!rc && (ftruncate(fd, (off_t)cap) != 0
                || lseek(fd, (off_t)cap, SEEK_SET) < 0))
        rc = -1;
    return rc;
}

int exec_trim_file(const char *path, size_t cap, gd_err *err)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return gd_errf(err, GD_EENV, "%s: %s", path, strerror(errno));
    off_t size = lseek(fd, 0, SEEK_END);
    int rc = (size < 0 || keep_tail(fd, (size_t)size, cap) != 0);
    close(fd);
    return rc ? gd_errf(err, GD_EENV, "%s: cannot trim", path) : GD_OK;
}

/* The child created the log before it ran the command, so opening it here
 * allocates no inode: that work happens in the child, in parallel, as it
 * would under xargs (O_CREAT only matters if the file was removed since). */
static void open_log(stream *s)
{
    if (s->file < 0)
        s->file = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

/* Append n bytes to the log; the errno of a failure (a full disk, a file
 * size limit), 0 when all of it is on disk. */
static int save(stream *s, const char *buf, size_t n)
{
    open_log(s);
    if (s->file < 0)
        return errno ? errno : EIO;
    while (n > 0) {
        ssize_t w = write(s->file, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        s->on_disk += (size_t)w;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Copy what the pipe has now into the log; returns 1 at end of file. Once
 * saving failed, the rest is read and dropped (the job must not block on a
 * full pipe) and io_err tells the caller the log is incomplete. */
static int pump(stream *s, size_t cap)
{
    char buf[CHUNK];
    for (;;) {
        ssize_t n = read(s->fd, buf, sizeof buf);
        if (n == 0)
            return 1;
        if (n < 0)
            return (errno == EAGAIN || errno == EINTR) ? 0 : 1;
        s->written += (size_t)n;
        if (s->io_err)
            continue;
        s->io_err = save(s, buf, (size_t)n);
        if (!s->io_err && s->on_disk > 2 * cap) {
            if (keep_tail(s->file, s->on_disk, cap) == 0)
                s->on_disk = cap;
            else
                s->io_err = errno ? errno : EIO;
        }
    }
}

static void close_stream(stream *s, size_t cap)
{
    if (s->fd >= 0) {
        pump(s, cap);
        close(s->fd);
        s->fd = -1;
    }
    if (s->file >= 0) {
        if (s->on_disk > cap && keep_tail(s->file, s->on_disk, cap) != 0
            && !s->io_err)
            s->io_err = errno ? errno : EIO;
        if (close(s->file) != 0 && !s->io_err)
            s->io_err = errno;
        s->file = -1;
    }
}

/* ---- orphaned groups ---- */

/* The variable in each job's environment that names the run's registry: a
 * gpudse killed with its jobs running leaves their process groups in the
 * registry, but a daemon that left its group is found by this alone. */
#define MARKER "GPUDSE_JOBS_OF"

/* Rewrite the registry in place (no new inode per job): one process group
 * id per line, the running jobs' and those kept from an earlier run. */
static void write_registry(const exec_pool *p)
{
    if (p->reg_fd < 0)
        return;
    size_t cap = ((size_t)p->n + (size_t)p->nkept + 1) * 24;
    char *text = malloc(cap);
    if (!text)
        return;  /* advisory, as below */
    size_t off = 0;
    for (int i = 0; i < p->n; i++)
        if (p->slots[i].used)
            off += (size_t)snprintf(text + off, cap - off, "%ld\n",
                                    (long)p->slots[i].pid);
    for (int i = 0; i < p->nkept; i++)
        off += (size_t)snprintf(text + off, cap - off, "%ld\n",
                                (long)p->kept[i]);
    if (pwrite(p->reg_fd, text, off, 0) != (ssize_t)off
        || ftruncate(p->reg_fd, (off_t)off) != 0) {
        /* advisory: a stale or short registry only weakens orphan cleanup */
    }
    free(text);
}

int exec_kill_orphans(const char *registry)
{
    int n;
    return ptree_kill_orphans(registry, NULL, &n);
}

int exec_pool_set_registry(exec_pool *p, const char *path, int *killed,
                           gd_err *err)
{
    if (p->reg_fd >= 0)
        close(p->reg_fd);
    free(p->kept);
    p->kept = NULL;
    struct stat st;
    int left = stat(path, &st) == 0 && st.st_size > 0;
    int k = ptree_kill_orphans(path, &p->kept, &p->nkept);
    p->reg_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (p->reg_fd < 0)
        return gd_errf(err, GD_EENV, "%s: cannot create: %s", path,
                       strerror(errno));
    char abs[PATH_MAX];
    free(p->marker);
    p->marker = NULL;
    if (realpath(path, abs)) {
        size_t n = sizeof MARKER + 1 + strlen(abs);
        if ((p->marker = malloc(n)))
            snprintf(p->marker, n, "%s=%s", MARKER, abs);
    }
    /* jobs were running when the last gpudse ended: what left their
     * groups is found by the marker */
    if (left && p->marker)
        k += ptree_kill_marked(p->marker);
    if (killed)
        *killed = k;
    write_registry(p);
    return GD_OK;
}

/* ---- starting a job ---- */

/* The child runs under vfork: it shares gpudse's memory until it execs, so
 * it only makes system calls and writes to its own stack (no setenv, no
 * malloc), and the coordinator copies no page tables per job. */

/* What a child that could not set its job up tells the parent, through a
 * close-on-exec pipe: nothing at all when the exec succeeded. */
typedef struct {
    int err;
    char what[48];
} setup_report;

static void setup_failed(int fd, const char *what, int e)
{
    setup_report r;
    memset(&r, 0, sizeof r);
    r.err = e;
    util_strlcpy(r.what, what, sizeof r.what);
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r) {
        /* the parent then reports the job by its exit code alone */
    }
    _exit(126);
}

/* What the child needs, all prepared by the parent before vfork. */
typedef struct {
    const exec_spec *s;
    char *const *envp;
    const char *logs[2];     /* stdout.log, stderr.log paths */
    int out_w, err_w, rep;   /* pipe write ends: output and set-up report */
    const sigset_t *mask;
    pid_t parent;
    int reg_fd;              /* the registry, -1: none */
} child_args;

/* In the child: add its own group to the registry before it runs anything,
 * so a gpudse killed before it rewrites the registry cannot lose the group
 * (no stdio under vfork: the digits by hand). */
static void child_register(int fd)
{
    if (fd < 0)
        return;
    char buf[24];
    int n = sizeof buf;
    buf[--n] = '\n';
    for (long v = (long)getpid(); v > 0 && n > 0; v /= 10)
        buf[--n] = (char)('0' + v % 10);
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0 || pwrite(fd, buf + n, sizeof buf - (size_t)n, end) < 0) {
        /* advisory, as the registry is */
    }
}

/* Create the job's directory and empty log files (the parent opens them at
 * the first byte), point 0, 1 and 2 at /dev/null and the pipes, enter the
 * directory. */
static void child_files(const child_args *a)
{
    const exec_spec *s = a->s;
    int rep = a->rep;
    int made = util_mkdir_p(s->job_dir, NULL, 0);
    if (made != 0)
        setup_failed(rep, "create the job directory",
                     made == -2 ? ENOTDIR : errno);
    for (int i = 0; i < 2; i++) {
        int fd = open(a->logs[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                      0644);
        if (fd < 0)
            setup_failed(rep, i ? "create stderr.log" : "create stdout.log",
                         errno);
        close(fd);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        dup2(devnull, 0);
    dup2(a->out_w, 1);
    dup2(a->err_w, 2);
    if (chdir(s->job_dir) != 0)
        setup_failed(rep, "enter the job directory", errno);
}

/* In the child: become a group leader and a child subreaper (kept across
 * exec: every orphan of the job becomes the job's own child, setsid() or
 * not, so the job's process tree holds all it started while it runs), die
 * with gpudse, take default signals, set up the job directory and exec the
 * command. Never returns. */
static void child_exec(const child_args *a)
{
    const exec_spec *s = a->s;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* gpudse may have died before prctl: then nothing would kill us, and
     * we would hold its descriptors (the run directory's lock) */
    if (getppid() != a->parent)
        _exit(125);
    setpgid(0, 0);
    child_register(a->reg_fd);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* dispositions are the child's own even under vfork; gpudse's handlers
     * must never run here, in its memory */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    sigprocmask(SIG_SETMASK, a->mask, NULL);
    child_files(a);
    if (s->mem_cap) {
        struct rlimit rl = {(rlim_t)s->mem_cap, (rlim_t)s->mem_cap};
        setrlimit(RLIMIT_AS, &rl);
    }
    char *const argv[] = {"sh", "-c", (char *)s->command, NULL};
    execve("/bin/sh", argv, a->envp);
    setup_failed(a->rep, "run /bin/sh", errno);
}

/* gpudse's environment with the job's NAME=value entries put over it, as a
 * NULL-terminated array whose pointers the caller frees (not the strings). */
static char **job_environment(char *const *extra, char *marker)
{
    extern char **environ;
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    while (extra && extra[k])
        k++;
    char **env = malloc((n + k + 2) * sizeof *env);
    if (!env)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) + 1 : 0;
        int replaced = marker && strncmp(environ[i], MARKER "=",
                                         sizeof MARKER) == 0;
        for (size_t j = 0; j < k && len && !replaced; j++)
            replaced = strncmp(extra[j], environ[i], len) == 0;
        if (!replaced)
            env[m++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        if (strchr(extra[j], '=') && strncmp(extra[j], MARKER "=",
                                             sizeof MARKER) != 0)
            env[m++] = extra[j];
    if (marker)
        env[m++] = marker;
    env[m] = NULL;
    return env;
}

int exec_job_dir_error(gd_err *err, const char *dir, const char *why)
{
    return gd_errf(err, GD_EENV, "cannot create job directory %s: %s; "
                   "check free space and permissions, then run again to "
                   "resume", dir, why);
}

static int setup_error(const setup_report *r, const char *job_dir,
                       gd_err *err)
{
    if (strcmp(r->what, "create the job directory") == 0)
        return exec_job_dir_error(err, job_dir, strerror(r->err));
    return gd_errf(err, GD_EENV, "job in %s could not start: cannot %.47s: "
                   "%s; fix that, then run again to resume", job_dir,
                   r->what, strerror(r->err));
}

static void init_stream(stream *s, int fd)
{
    s->fd = fd;
    s->file = -1;
    s->written = s->on_disk = 0;
    fcntl(fd, F_SETFL, O_NONBLOCK);
}

static void close_fds(const int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* vfork the child; fds: out, err, report pipes (read ends even). Returns
 * the pid, or -1 with errno. */
static pid_t spawn(const exec_pool *p, const exec_spec *s, char *const *envp,
                   const slot *sl, const int *fds)
{
    child_args a = {s, envp, {sl->out.path, sl->err.path}, fds[1], fds[3],
                    fds[5], &p->old_mask, getpid(), p->reg_fd};
    sigset_t all, mine;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &mine);  /* no handler may run in the child */
    pid_t pid = vfork();
    if (pid == 0)
        child_exec(&a);
    int e = errno;
    sigprocmask(SIG_SETMASK, &mine, NULL);
    errno = e;
    return pid;
}

int exec_pool_start(exec_pool *p, const exec_spec *s, gd_err *err)
{
    slot *sl = NULL;
    for (int i = 0; i < p->n && !sl; i++)
        if (!p->slots[i].used)
            sl = &p->slots[i];
    if (!sl)
        return gd_errf(err, GD_EENV, "executor: no free worker");
    memset(sl, 0, sizeof *sl);  /* still unused: nothing to undo on failure */
    if (util_path_join(sl->out.path, sizeof sl->out.path, s->job_dir,
                       "stdout.log")
        || util_path_join(sl->err.path, sizeof sl->err.path, s->job_dir,
                          "stderr.log"))
        return gd_errf(err, GD_EENV, "%s: job directory path too long",
                       s->job_dir);
    char **envp = job_environment(s->env, p->marker);
    if (!envp)
        return gd_errf(err, GD_EENV, "out of memory");
    int fds[6] = {-1, -1, -1, -1, -1, -1};
    for (int i = 0; i < 3; i++)
        if (pipe2(fds + 2 * i, O_CLOEXEC) != 0) {
            int e = errno;
            close_fds(fds, 6);
            free(envp);
            return gd_errf(err, GD_EENV, "pipe: %s", strerror(e));
        }
    pid_t pid = spawn(p, s, envp, sl, fds);
    int e = errno;
    free(envp);
    close_fds((int[]){fds[1], fds[3], fds[5]}, 3);
    /* vfork returned: the child has exec'd (the report pipe closed empty)
     * or failed (its report is there) */
    setup_report rep;
    int failed = pid > 0 && read(fds[4], &rep, sizeof rep) == sizeof rep;
    close(fds[4]);
    if (pid < 0 || failed) {
        close_fds((int[]){fds[0], fds[2]}, 2);
        if (pid < 0)
            return gd_errf(err, GD_EENV, "fork: %s", strerror(e));
        waitpid(pid, NULL, 0);
        rep.what[sizeof rep.what - 1] = '\0';
        return setup_error(&rep, s->job_dir, err);
    }
    setpgid(pid, pid);  /* fails harmlessly: the child did it before exec */
    init_stream(&sl->out, fds[0]);
    init_stream(&sl->err, fds[2]);
    sl->used = 1;
    sl->pid = pid;
    sl->cap = s->out_cap ? s->out_cap : DEFAULT_CAP;
    sl->start = now_s();
    sl->deadline = s->timeout_s > 0 ? sl->start + s->timeout_s : INFINITY;
    sl->kill_at = INFINITY;
    sl->grace = s->grace_s > 0 ? s->grace_s : 0;
    sl->tag = s->tag;
    write_registry(p);
    return GD_OK;
}

/* ---- process trees ---- */

/* A job's leader is a child subreaper while it runs: every process the job
 * started is in the tree under it, whatever its process group or session.
 * When the leader ends, what is left of that tree comes to gpudse (a
 * subreaper too) and is killed (proctree.h reads the trees). */

/* Send sig to the job: its process group and everything under its leader
 * (while it runs). A process that forks meanwhile has its child come to
 * the leader, or once the leader is gone to gpudse, and kill_leftovers
 * ends it when the job is collected. */
static void signal_job(const slot *sl, int sig)
{
    ptree_list l = {NULL, 0, 0};
    if (!sl->reaped)
        ptree_descendants(sl->pid, &l);
    kill(-sl->pid, sig);
    for (int i = 0; i < l.n; i++)
        kill(l.v[i], sig);
    free(l.v);
}

static int slot_pid(const exec_pool *p, pid_t pid)
{
    for (int i = 0; i < p->n; i++)
        if (p->slots[i].used && p->slots[i].pid == pid)
            return 1;
    return 0;
}

/* Kill what ended jobs left: gpudse's children that are no job's leader
 * and not in gpudse's own process group (a child gpudse made itself, as
 * popen would, is never touched), with their trees; they are reaped as
 * they die. */
static void kill_leftovers(exec_pool *p)
{
    ptree_list kids = {NULL, 0, 0};
    ptree_children(getpid(), &kids);
    pid_t own = getpgrp();
    for (int i = 0; i < kids.n; i++) {
        pid_t c = kids.v[i];
        if (slot_pid(p, c) || getpgid(c) == own || getpgid(c) < 0)
            continue;
        ptree_list l = {NULL, 0, 0};
        ptree_descendants(c, &l);
        kill(c, SIGKILL);
        for (int j = 0; j < l.n; j++)
            kill(l.v[j], SIGKILL);
        free(l.v);
        if (p->ndead == p->capdead) {
            int cap = p->capdead ? 2 * p->capdead : 16;
            pid_t *m = realloc(p->dead, (size_t)cap * sizeof *m);
            if (!m)
                continue;
            p->dead = m;
            p->capdead = cap;
        }
        p->dead[p->ndead++] = c;
    }
    free(kids.v);
}

static void reap_leftovers(exec_pool *p)
{
    for (int i = 0; i < p->ndead;)
        if (waitpid(p->dead[i], NULL, WNOHANG) != 0)
            p->dead[i] = p->dead[--p->ndead];
        else
            i++;
}

/* ---- waiting ---- */

static void reap(exec_pool *p)
{
    struct signalfd_siginfo si;
    while (read(p->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
        ;
    for (int i = 0; i < p->n; i++) {
        slot *sl = &p->slots[i];
        if (sl->used && !sl->reaped
            && waitpid(sl->pid, &sl->status, WNOHANG) == sl->pid)
            sl->reaped = 1;
    }
    reap_leftovers(p);
}

static void finish(exec_pool *p, slot *sl, exec_result *r)
{
    kill(-sl->pid, SIGKILL);  /* whatever the job left running */
    kill_leftovers(p);        /* and what left its group */
    close_stream(&sl->out, sl->cap);
    close_stream(&sl->err, sl->cap);
    memset(r, 0, sizeof *r);
    r->tag = sl->tag;
    r->exited = WIFEXITED(sl->status);
    r->exit_code = r->exited ? WEXITSTATUS(sl->status) : 0;
    r->signaled = WIFSIGNALED(sl->status);
    r->signo = r->signaled ? WTERMSIG(sl->status) : 0;
    r->timed_out = sl->timed_out;
    r->interrupted = sl->interrupted;
    r->wall_s = now_s() - sl->start;
    r->out_bytes = sl->out.written;
    r->err_bytes = sl->err.written;
    r->io_err = sl->out.io_err ? sl->out.io_err : sl->err.io_err;
    r->io_file = !r->io_err ? NULL
                 : sl->out.io_err ? "stdout.log" : "stderr.log";
    sl->used = 0;
}

static void fire_timers(exec_pool *p, double now)
{
    for (int i = 0; i < p->n; i++) {
        slot *sl = &p->slots[i];
        if (!sl->used || sl->reaped)
            continue;
        if (!sl->timed_out && now >= sl->deadline) {
            sl->timed_out = 1;
            signal_job(sl, SIGTERM);
            sl->kill_at = now + sl->grace;
        } else if (now >= sl->kill_at) {
            signal_job(sl, SIGKILL);
            sl->kill_at = INFINITY;
        }
    }
}

static double next_timer(const exec_pool *p)
{
    double t = INFINITY;
    for (int i = 0; i < p->n; i++) {
        const slot *sl = &p->slots[i];
        if (!sl->used || sl->reaped)
            continue;
        double d = sl->timed_out ? sl->kill_at : sl->deadline;
        if (d < t)
            t = d;
    }
    return t;
}

/* Poll the signalfd and every open pipe until deadline (absolute). */
static int poll_once(exec_pool *p, double deadline, gd_err *err)
{
    struct pollfd *fds = p->pfd;
    int n = 0;
    fds[n].fd = p->sigfd;
    fds[n].events = POLLIN;
    p->owner[n++] = NULL;
    for (int i = 0; i < p->n; i++) {
        slot *sl = &p->slots[i];
        stream *ss[2] = {&sl->out, &sl->err};
        for (int k = 0; k < 2 && sl->used; k++)
            if (ss[k]->fd >= 0) {
                fds[n].fd = ss[k]->fd;
                fds[n].events = POLLIN;
                p->owner_slot[n] = i;
                p->owner[n++] = ss[k];
            }
    }
    double wait = deadline - now_s();
    int ms = wait == INFINITY ? 1000 : wait <= 0 ? 0
             : wait > 1.0 ? 1000 : (int)ceil(wait * 1000);
    int k = poll(fds, (nfds_t)n, ms);
    if (k < 0 && errno != EINTR)
        return gd_errf(err, GD_EENV, "poll: %s", strerror(errno));
    for (int i = 1; k > 0 && i < n; i++)
        if (fds[i].revents) {
            stream *st = p->owner[i];
            if (pump(st, p->slots[p->owner_slot[i]].cap)) {
                close(st->fd);
                st->fd = -1;
            }
        }
    return GD_OK;
}

static int collect(exec_pool *p, exec_result *res, int max)
{
    int got = 0;
    for (int i = 0; i < p->n && got < max; i++)
        if (p->slots[i].used && p->slots[i].reaped)
            finish(p, &p->slots[i], &res[got++]);
    if (got)
        write_registry(p);
    return got;
}

int exec_pool_wait(exec_pool *p, exec_result *res, int max, double wait_s,
                   volatile sig_atomic_t *stop, gd_err *err)
{
    double until = wait_s < 0 ? INFINITY : now_s() + wait_s;
    for (;;) {
        reap(p);
        int got = collect(p, res, max);
        if (got)
            return got;
        if ((stop && *stop) || exec_pool_running(p) == 0)
            return 0;
        double now = now_s();
        if (now >= until)
            return 0;
        fire_timers(p, now);
        double t = next_timer(p);
        if (poll_once(p, t < until ? t : until, err) != GD_OK)
            return -1;
    }
}

int exec_pool_stop_all(exec_pool *p, double grace_s, exec_result *res)
{
    for (int i = 0; i < p->n; i++)
        if (p->slots[i].used && !p->slots[i].reaped) {
            p->slots[i].interrupted = 1;
            signal_job(&p->slots[i], SIGTERM);
        }
    double until = now_s() + grace_s;
    gd_err ignore;
    for (;;) {
        reap(p);
        int left = 0;
        for (int i = 0; i < p->n; i++)
            left += p->slots[i].used && !p->slots[i].reaped;
        if (!left || now_s() >= until)
            break;
        poll_once(p, until, &ignore);
    }
    for (int i = 0; i < p->n; i++)
        if (p->slots[i].used && !p->slots[i].reaped) {
            signal_job(&p->slots[i], SIGKILL);
            waitpid(p->slots[i].pid, &p->slots[i].status, 0);
            p->slots[i].reaped = 1;
        }
    int got = 0;
    for (int i = 0; i < p->n; i++)
        if (p->slots[i].used)
            finish(p, &p->slots[i], &res[got++]);
    write_registry(p);
    return got;
}

void exec_pool_free(exec_pool *p)
{
    if (!p)
        return;
    if (exec_pool_running(p)) {
        exec_result *tmp = calloc((size_t)p->n, sizeof *tmp);
        if (tmp)
            exec_pool_stop_all(p, 0, tmp);
        free(tmp);
    }
    close(p->sigfd);
    if (p->reg_fd >= 0)
        close(p->reg_fd);
    for (int i = 0; i < p->ndead; i++)  /* SIGKILLed: they go at once */
        waitpid(p->dead[i], NULL, 0);
    prctl(PR_SET_CHILD_SUBREAPER, p->was_subreaper);
    sigprocmask(SIG_SETMASK, &p->old_mask, NULL);
    pool_free_arrays(p);
}
