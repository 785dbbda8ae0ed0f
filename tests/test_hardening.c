/* test_hardening: malformed inputs and injected faults. Every file of
 * tests/data/bad_inputs/ (campaigns, workload, machine descriptors, report
 * layouts) plus generated huge and deeply nested files must be rejected with exit 2
 * and a FILE:LINE message by `gpudse validate` and `gpudse run` without
 * creating anything, without reading external entities and without touching
 * the network. Faults: the journal's disk fills (tmpfs), the job directory
 * cannot be created, a simulator writes 1 GB, a simulator leaves children
 * behind, a simulator hangs past its timeout. Inputs a fuzzer crashed on
 * (tests/data/fuzz_crashes/) must parse without faulting. */
#include "testutil.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fromlog.h"
#include "gpgpusim.h"
#include "layout.h"
#include "machine.h"
#include "store.h"
#include "workload.h"

/* This process's scratch folder, tests/tmp/hardening-PID (suites may run
 * side by side); set in main before Check forks. */
static char hdir[64];
#define T hdir

/* T + suffix, in one of four rotating buffers. */
static const char *tp(const char *suffix)
{
    static char buf[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s%s", T, suffix);
    return buf[i];
}
#define BAD "tests/data/bad_inputs"

/* ---- helpers -------------------------------------------------------------- */

static char outbuf[1 << 16];

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run a shell command with stdout and stderr into T/cmd.out; the exit status
 * (or -1 when it did not exit); the output is left in outbuf. */
static int run_sh(const char *fmt, ...)
{
    char cmd[8192], line[8400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s >%s/cmd.out 2>&1", cmd, T);
    int st = system(line);
    outbuf[0] = 0;
    FILE *f = fopen(tp("/cmd.out"), "r");
    if (f) {
        size_t n = fread(outbuf, 1, sizeof outbuf - 1, f);
        outbuf[n] = 0;
        fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Sorted list of the .xml files of dir; returns count (<= max). */
static int list_xml(const char *dir, char names[][256], int max)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".xml") == 0)
            snprintf(names[n++], 256, "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
    return n;
}

/* A line of /etc/passwd must never appear in gpudse's words. */
static void no_local_file_leak(const char *what)
{
    ck_assert_msg(strstr(outbuf, "root:x:") == NULL
                  && strstr(outbuf, "SECRET-MARKER") == NULL,
                  "%s: the contents of a local file leaked: %s", what, outbuf);
}

/* `gpudse validate FILE` and `gpudse run FILE -o DIR` both exit 2, name
 * NAME:LINE, leak nothing and create no run directory. */
static void rejects(const char *file, const char *name)
{
    int rc = run_sh("timeout 60 %s validate %s", tu_bin(), file);
    ck_assert_msg(rc == 2, "validate %s: exit %d, want 2: %s", file, rc,
                  outbuf);
    ck_assert_msg(names_file_line(outbuf, name),
                  "validate %s: no %s:LINE: in \"%s\"", file, name, outbuf);
    no_local_file_leak(file);
    run_sh("rm -rf %s/out", T);
    rc = run_sh("timeout 60 %s run %s -o %s/out -q", tu_bin(), file, T);
    ck_assert_msg(rc == 2, "run %s: exit %d, want 2: %s", file, rc, outbuf);
    ck_assert_msg(names_file_line(outbuf, name),
                  "run %s: no %s:LINE: in \"%s\"", file, name, outbuf);
    no_local_file_leak(file);
    struct stat st;
    ck_assert_msg(stat(tp("/out"), &st) != 0,
                  "run %s created %s/out although the campaign is bad", file,
                  T);
}

static char cwd[PATH_MAX];

static void setup(void)
{
    ck_assert(getcwd(cwd, sizeof cwd) != NULL);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "umount %s/full 2>/dev/null; rm -rf %s && "
             "mkdir -p %s", T, T, T);
    ck_assert(system(cmd) == 0);
}

/* A campaign that is fine but for what extra names (a workload file, a
 * layout): the workload element and the report element. */
static void write_campaign(const char *path, const char *workload,
                           const char *report)
{
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fprintf(f, "<campaign name=\"h\" seed=\"1\">\n"
               "  <workloads>%s</workloads>\n"
               "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
               "  <search strategy=\"random\" budget=\"2\"/>\n"
               "  %s\n"
               "</campaign>\n",
            workload, report ? report : "<report formats=\"svg\"/>");
    fclose(f);
}

/* ---- the malformed-input corpus ----------------------------------------- */

START_TEST(bad_campaigns_exit_2_with_file_line)
{
    static char names[128][256];
    int n = list_xml(BAD "/campaign", names, 128);
    ck_assert_int_ge(n, 30);
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, BAD "/campaign/%s", names[i]);
        rejects(path, path);
    }
}
END_TEST

START_TEST(bad_workloads_exit_2_with_file_line)
{
    static char names[128][256];
    int n = list_xml(BAD "/workload", names, 128);
    ck_assert_int_ge(n, 20);
    for (int i = 0; i < n; i++) {
        char path[512], abs[PATH_MAX + 600], wl[PATH_MAX + 700];
        snprintf(path, sizeof path, BAD "/workload/%s", names[i]);
        wl_workload *w = calloc(1, sizeof *w);
        gd_err err = {0, ""};
        int rc = wl_load_file(path, w, &err);
        free(w);
        ck_assert_msg(rc == GD_EINPUT, "%s: rc %d, want GD_EINPUT: %s", path,
                      rc, err.msg);
        ck_assert_msg(names_file_line(err.msg, path), "%s: no FILE:LINE in "
                      "\"%s\"", path, err.msg);
        snprintf(outbuf, sizeof outbuf, "%s", err.msg);
        no_local_file_leak(path);
        /* the same descriptor named by a campaign */
        snprintf(abs, sizeof abs, "%s/%s", cwd, path);
        snprintf(wl, sizeof wl, "<workload name=\"w\" file=\"%s\"/>", abs);
        write_campaign(tp("/wl.xml"), wl, NULL);
        rejects(tp("/wl.xml"), names[i]);
    }
}
END_TEST

START_TEST(bad_layouts_exit_2_with_file_line)
{
    static char names[64][256];
    int n = list_xml(BAD "/layout", names, 64);
    ck_assert_int_ge(n, 10);
    for (int i = 0; i < n; i++) {
        char path[512], abs[PATH_MAX + 600], rep[PATH_MAX + 700];
        snprintf(path, sizeof path, BAD "/layout/%s", names[i]);
        rep_layout l;
        gd_err err = {0, ""};
        int rc = rep_layout_load(path, &l, &err);
        ck_assert_msg(rc == GD_EINPUT, "%s: rc %d, want GD_EINPUT: %s", path,
                      rc, err.msg);
        ck_assert_msg(names_file_line(err.msg, path), "%s: no FILE:LINE in "
                      "\"%s\"", path, err.msg);
        snprintf(abs, sizeof abs, "%s/%s", cwd, path);
        snprintf(rep, sizeof rep, "<report formats=\"svg\" layout=\"%s\"/>",
                 abs);
        write_campaign(tp("/lay.xml"), "<workload name=\"vecadd\"/>", rep);
        rejects(tp("/lay.xml"), names[i]);
    }
}
END_TEST

START_TEST(bad_machines_exit_2_with_file_line)
{
    static char names[64][256];
    int n = list_xml(BAD "/machine", names, 64);
    ck_assert_int_ge(n, 10);
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, BAD "/machine/%s", names[i]);
        cm_machine *m = calloc(1, sizeof *m);
        gd_err err = {0, ""};
        int rc = mach_load_file(path, m, &err);
        free(m);
        ck_assert_msg(rc == GD_EINPUT, "%s: rc %d, want GD_EINPUT: %s", path,
                      rc, err.msg);
        ck_assert_msg(names_file_line(err.msg, path), "%s: no FILE:LINE in "
                      "\"%s\"", path, err.msg);
        rc = run_sh("timeout 60 %s machine show %s", tu_bin(), path);
        ck_assert_msg(rc == 2, "machine show %s: exit %d: %s", path, rc,
                      outbuf);
        ck_assert_msg(names_file_line(outbuf, path), "%s: no FILE:LINE in "
                      "\"%s\"", path, outbuf);
        no_local_file_leak(path);
    }
}
END_TEST

/* Every command answers -h / --help / help COMMAND with its own usage on
 * stdout and exit 0, before it reads any other argument (so the help works
 * whatever else is on the line); an unknown command asked about is a usage
 * error, exit 2. */
START_TEST(every_command_has_help)
{
    static const char *const cmds[] = {
        "run", "validate", "analyze", "report", "annotate", "status",
        "machine", "calibrate-machine", "split", "workload", "calibrate",
        "sim", "job-run", "compare"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "usage: gpudse %s ", cmds[i]);
        const char *forms[] = {"%s %s -h", "%s %s no-such-file --help",
                               "%s help %s"};
        for (int f = 0; f < 3; f++) {
            char fmt[64];
            snprintf(fmt, sizeof fmt, "timeout 60 %s", forms[f]);
            int rc = run_sh(fmt, tu_bin(), cmds[i]);
            ck_assert_msg(rc == 0, "form %d of %s: exit %d: %s", f, cmds[i],
                          rc, outbuf);
            ck_assert_msg(!strncmp(outbuf, want, strlen(want)),
                          "form %d of %s: \"%.80s\"", f, cmds[i], outbuf);
        }
    }
    ck_assert_int_eq(run_sh("timeout 60 %s help no-such-command", tu_bin()),
                     2);
    ck_assert_msg(strstr(outbuf, "'no-such-command' is not a gpudse command"),
                  "%s", outbuf);
}
END_TEST

/* A usage error is one line saying what is wrong, then that command's usage
 * (and its options), exit 2: not the global help. Every command, an unknown
 * option; then a missing value, a bad value, and --name=value. */
START_TEST(usage_error_is_one_line_and_the_commands_usage)
{
    static const char *const cmds[] = {
        "run", "validate", "analyze", "report", "annotate", "status",
        "machine", "calibrate-machine", "split", "workload", "calibrate",
        "sim", "job-run", "compare"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int rc = run_sh("timeout 60 %s %s --no-such-option", tu_bin(),
                        cmds[i]);
        ck_assert_msg(rc == 2, "%s: exit %d: %s", cmds[i], rc, outbuf);
        char want[256];
        snprintf(want, sizeof want, "gpudse %s: unknown option "
                 "--no-such-option\nusage: gpudse %s ", cmds[i], cmds[i]);
        ck_assert_msg(!strncmp(outbuf, want, strlen(want)), "%s: \"%s\"",
                      cmds[i], outbuf);
        ck_assert_msg(!strstr(outbuf, "commands:"), "%s: the global help: "
                      "\"%s\"", cmds[i], outbuf);
    }
    ck_assert_int_eq(run_sh("%s run x.xml -j", tu_bin()), 2);
    ck_assert_msg(!strncmp(outbuf, "gpudse run: -j needs a value (N)\n"
                           "usage: gpudse run ", 40), "%s", outbuf);
    ck_assert_int_eq(run_sh("%s run x.xml -j 5000", tu_bin()), 2);
    ck_assert_msg(strstr(outbuf, "gpudse run: -j: jobs must be 0 (one per "
                         "online core) to 4096, not \"5000\"\n"), "%s",
                  outbuf);
    ck_assert_int_eq(run_sh("%s run x.xml --executor=pbs", tu_bin()), 2);
    ck_assert_msg(strstr(outbuf, "--executor is local or slurm, not \"pbs\""),
                  "%s", outbuf);
    ck_assert_int_eq(run_sh("%s run x.xml --force=1", tu_bin()), 2);
    ck_assert_msg(strstr(outbuf, "--force takes no value"), "%s", outbuf);
    ck_assert_int_eq(run_sh("%s status %s --watch=0", tu_bin(), T), 2);
    ck_assert_msg(strstr(outbuf, "--watch needs seconds between updates"),
                  "%s", outbuf);
    ck_assert_int_eq(run_sh("%s nosuchcmd", tu_bin()), 2);
    ck_assert_msg(!strstr(outbuf, "commands:"), "%s", outbuf);
}
END_TEST

/* Generated, not committed: a 50 MB campaign (one huge text node), a
 * 100,000-deep nesting, a 16 MB attribute, and a 32 MB workload file. Each
 * is rejected quickly with exit 2. */
START_TEST(huge_and_deep_files_exit_2)
{
    const struct {
        const char *file, *gen, *name;
    } cases[] = {
        {"/huge_text.xml",
         "{ printf '<campaign name=\"h\" seed=\"1\">\\n<description>'; "
         "head -c 50000000 /dev/zero | tr '\\0' a; printf '</description>\\n"
         "<workloads><workload name=\"vecadd\"/></workloads>\\n"
         "<objectives><maximize metric=\"ipc\"/></objectives>\\n"
         "<search strategy=\"random\" budget=\"2\"/>\\n</campaign>\\n'; }",
         "huge_text.xml"},
        {"/deep.xml",
         "{ printf '<campaign name=\"h\" seed=\"1\">\\n'; i=0; "
         "yes '<description>' | head -n 100000; }",
         "deep.xml"},
        {"/huge_attr.xml",
         "{ printf '<campaign name=\"'; head -c 16000000 /dev/zero | tr '\\0' a; "
         "printf '\" seed=\"1\">\\n<workloads><workload name=\"vecadd\"/>"
         "</workloads>\\n<objectives><maximize metric=\"ipc\"/></objectives>\\n"
         "<search strategy=\"random\" budget=\"2\"/>\\n</campaign>\\n'; }",
         "huge_attr.xml"},
        {"/huge_wl.xml",
         "{ printf '<workload name=\"w\">\\n'; yes '<kernel name=\"k\" "
         "grid_ctas=\"1\" threads_per_cta=\"32\" regs_per_thread=\"8\" "
         "smem_per_cta=\"0\"><mix thread_insns=\"1\" warp_insns=\"1\"/>"
         "</kernel>' | head -c 32000000; printf '\\n</workload>\\n'; }",
         "huge_wl.xml"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char file[600];
        snprintf(file, sizeof file, "%s", tp(cases[i].file));
        ck_assert_int_eq(run_sh("%s >%s", cases[i].gen, file), 0);
        const char *target = file;
        char camp[PATH_MAX + 700];
        if (strstr(file, "huge_wl")) {
            char wl[PATH_MAX + 700];
            snprintf(wl, sizeof wl, "<workload name=\"w\" file=\"%s/%s\"/>",
                     cwd, file);
            write_campaign(tp("/huge_wl_camp.xml"), wl, NULL);
            snprintf(camp, sizeof camp, "%s", tp("/huge_wl_camp.xml"));
            target = camp;
        }
        double t0 = mono_s();
        rejects(target, cases[i].name);
        double dt = mono_s() - t0;
        printf("hardening: %s rejected twice in %.2f s\n", cases[i].name, dt);
        ck_assert_msg(dt < 60, "%s took %.1f s", cases[i].name, dt);
        unlink(file);
    }
}
END_TEST

/* External entities and DTDs that point at a local file and at a TCP port
 * this test listens on: nothing connects, nothing of the file shows. */
START_TEST(no_external_entities_no_network)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(s, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(s, 8), 0);
    socklen_t al = sizeof a;
    ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &al), 0);
    int port = ntohs(a.sin_port);
    fcntl(s, F_SETFL, O_NONBLOCK);
    tu_write(tp("/secret.txt"), "SECRET-MARKER-42\n");

    char secret[PATH_MAX + 64], text[8192];
    snprintf(secret, sizeof secret, "file://%s/%s/secret.txt", cwd, T);
    const char *body =
        "<workloads><workload name=\"vecadd\"/></workloads>\n"
        "<objectives><maximize metric=\"ipc\"/></objectives>\n"
        "<search strategy=\"random\" budget=\"2\"/>\n";
    /* campaign: entity to the port, DTD at the port, entity to the file */
    snprintf(text, sizeof text, "<?xml version=\"1.0\"?>\n<!DOCTYPE campaign "
             "[ <!ENTITY e SYSTEM \"http://127.0.0.1:%d/e\"> ]>\n<campaign "
             "name=\"x\" seed=\"1\"><description>&e;</description>\n%s"
             "</campaign>\n", port, body);
    tu_write(tp("/net_entity.xml"), text);
    snprintf(text, sizeof text, "<?xml version=\"1.0\"?>\n<!DOCTYPE campaign "
             "SYSTEM \"http://127.0.0.1:%d/c.dtd\">\n<campaign name=\"x\" "
             "seed=\"1\">\n%s</campaign>\n", port, body);
    tu_write(tp("/net_dtd.xml"), text);
    snprintf(text, sizeof text, "<?xml version=\"1.0\"?>\n<!DOCTYPE campaign "
             "[ <!ENTITY e SYSTEM \"%s\"> ]>\n<campaign name=\"x\" seed=\"1\">"
             "<description>&e;</description>\n%s</campaign>\n", secret, body);
    tu_write(tp("/file_entity.xml"), text);
    rejects(tp("/net_entity.xml"), "net_entity.xml");
    rejects(tp("/net_dtd.xml"), "net_dtd.xml");
    rejects(tp("/file_entity.xml"), "file_entity.xml");

    /* workload descriptor and layout, read directly */
    snprintf(text, sizeof text, "<?xml version=\"1.0\"?>\n<!DOCTYPE workload "
             "SYSTEM \"http://127.0.0.1:%d/w.dtd\">\n<workload name=\"w\">"
             "<kernel name=\"k\" grid_ctas=\"1\" threads_per_cta=\"32\" "
             "regs_per_thread=\"8\" smem_per_cta=\"0\"><mix thread_insns=\"1\" "
             "warp_insns=\"1\"/></kernel></workload>\n", port);
    tu_write(tp("/net_wl.xml"), text);
    wl_workload *w = calloc(1, sizeof *w);
    gd_err err;
    ck_assert_int_eq(wl_load_file(tp("/net_wl.xml"), w, &err), GD_EINPUT);
    free(w);
    snprintf(text, sizeof text, "<?xml version=\"1.0\"?>\n<!DOCTYPE report "
             "[ <!ENTITY e SYSTEM \"http://127.0.0.1:%d/l\"> "
             "<!ENTITY f SYSTEM \"%s\"> ]>\n<report><title-page/>&e;&f;"
             "</report>\n", port, secret);
    tu_write(tp("/net_layout.xml"), text);
    rep_layout l;
    ck_assert_int_eq(rep_layout_load(tp("/net_layout.xml"), &l, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "SECRET") == NULL, "%s", err.msg);

    int c = accept(s, NULL, NULL);
    ck_assert_msg(c < 0 && (errno == EAGAIN || errno == EWOULDBLOCK),
                  "an XML parser connected to 127.0.0.1:%d", port);
    close(s);
}
END_TEST

/* ---- inputs the fuzzers crashed on (tests/data/fuzz_crashes/TARGET/) ---- */

/* The bytes of path copied to the very end of a page followed by an
 * inaccessible page, so that reading one byte past them faults even
 * without AddressSanitizer. *map and *maplen are for munmap. */
static char *guarded_copy(const char *path, size_t *len, void **map,
                          size_t *maplen)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    static char data[1 << 20];
    *len = fread(data, 1, sizeof data, f);
    fclose(f);
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (*len + pg - 1) / pg * pg + pg;
    *maplen = body + pg;
    char *m = mmap(NULL, *maplen, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(m != MAP_FAILED);
    ck_assert_int_eq(mprotect(m + body, pg, PROT_NONE), 0);
    *map = m;
    char *p = m + body - *len;
    memcpy(p, data, *len);
    return p;
}

/* Feed every file of tests/data/fuzz_crashes/<target> to check, its bytes
 * guarded (see guarded_copy). */
typedef void (*crash_check)(const char *path, const char *text, size_t len);

static void each_crash_input(const char *target, crash_check check)
{
    char dir[256];
    snprintf(dir, sizeof dir, "tests/data/fuzz_crashes/%s", target);
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len, maplen;
        void *map;
        char *text = guarded_copy(path, &len, &map, &maplen);
        check(path, text, len);
        munmap(map, maplen);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 1);
}

static void gpgpusim_parsers_survive(const char *path, const char *text,
                                     size_t len)
{
    gsim_stats s;
    gd_err err;
    int rc = gsim_parse_stats(text, len, &s, &err);
    ck_assert_msg(rc == GD_OK || rc == GD_EINPUT, "%s: rc %d", path, rc);
    gsim_stats_free(&s);
    gsim_power p;
    rc = gsim_parse_power(text, len, &p, &err);
    ck_assert_msg(rc == GD_OK || rc == GD_EINPUT, "%s: rc %d", path, rc);
    gsim_power_free(&p);
}

START_TEST(fuzz_crash_inputs_stay_fixed)
{
    each_crash_input("gpgpusim", gpgpusim_parsers_survive);
}
END_TEST

/* Logs on which fuzz_fromlog found from-log writing a descriptor that no
 * command could load: a negative store count from two runs in one file
 * and 330 registers (refused now as bad input, with the log's path and
 * line), and instruction classes that fill the warp exactly but were
 * written a rounding step above it (accepted now, and loadable). */
static void fromlog_refuses_or_loads(const char *path, const char *text,
                                     size_t len)
{
    wl_workload *w = calloc(1, sizeof *w);
    gd_err err = {0, ""};
    int rc = fl_parse(path, text, len, "fz", NULL, w, NULL, &err);
    if (rc == GD_OK) {
        char *xml = NULL;
        ck_assert_int_eq(wl_to_xml(w, NULL, &xml, &err), GD_OK);
        tu_write(tp("/fromlog.xml"), xml);
        free(xml);
        ck_assert_msg(wl_load_file(tp("/fromlog.xml"), w, &err) == GD_OK,
                      "%s: its descriptor does not load: %s", path, err.msg);
    } else {
        ck_assert_msg(rc == GD_EINPUT, "%s: rc %d", path, rc);
        ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0
                      && err.msg[strlen(path)] == ':', "%s", err.msg);
    }
    free(w);
}

START_TEST(fromlog_crash_inputs_stay_fixed)
{
    each_crash_input("fromlog", fromlog_refuses_or_loads);
}
END_TEST

/* ---- fault injection ------------------------------------------------------ */

/* The journal's disk fills: a 64 KiB tmpfs. gpudse stops with exit 3 and a
 * clear message; every complete line of the journal parses; after the disk
 * grows, the run resumes and finishes without redoing or losing a record. */
START_TEST(journal_disk_full)
{
    if (geteuid() != 0) {
        printf("hardening: SKIPPED journal_disk_full: needs root to mount "
               "a tmpfs\n");
        return;
    }
    run_sh("mkdir -p %s/full", T);
    if (run_sh("mount -t tmpfs -o size=64k tmpfs %s/full", T) != 0) {
        printf("hardening: SKIPPED journal_disk_full: cannot mount a tmpfs: "
               "%s\n", outbuf);
        return;
    }
    tu_write(tp("/many.xml"),
             "<campaign name=\"many\" seed=\"1\">\n"
             "  <workloads><workload name=\"vecadd\"/>"
             "<workload name=\"sgemm\"/></workloads>\n"
             "  <space>\n"
             "    <knob name=\"n_clusters\" values=\"8 15 30 60\"/>\n"
             "    <knob name=\"cores_per_cluster\" values=\"1 2 4\"/>\n"
             "    <knob name=\"n_mem\" values=\"4 6 8 12\"/>\n"
             "    <knob name=\"l1_sets\" values=\"16 32 64 128\"/>\n"
             "  </space>\n"
             "  <objectives><maximize metric=\"ipc\"/>"
             "<minimize metric=\"area_mm2\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"192\"/>\n"
             "  <execution jobs=\"1\"/>\n"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n");
    int rc = run_sh("%s run %s/many.xml -o %s/full/run -q", tu_bin(), T, T);
    char first[sizeof outbuf];
    snprintf(first, sizeof first, "%s", outbuf);
    store_record *recs = NULL;
    size_t n1 = 0, n2 = 0;
    gd_err err;
    int lrc = store_load_all(tp("/full/run/results.jsonl"), &recs, &n1, &err);
    free(recs);
    /* grow the disk and resume */
    int grown = run_sh("mount -o remount,size=8m %s/full", T) == 0;
    int rc2 = grown ? run_sh("%s run %s/many.xml -o %s/full/run -q", tu_bin(),
                             T, T) : -1;
    char second[sizeof outbuf];
    snprintf(second, sizeof second, "%s", outbuf);
    int lrc2 = store_load_all(tp("/full/run/results.jsonl"), &recs, &n2, &err);
    int distinct = 1;
    for (size_t i = 0; lrc2 == GD_OK && i < n2; i++)
        for (size_t j = i + 1; j < n2; j++)
            if (strcmp(recs[i].key, recs[j].key) == 0)
                distinct = 0;
    free(recs);
    run_sh("umount %s/full", T);
    ck_assert_msg(rc == 3, "disk full: exit %d, want 3: %s", rc, first);
    ck_assert_msg(strstr(first, "No space left on device")
                  && strstr(first, "results.jsonl"),
                  "unclear disk-full message: %s", first);
    ck_assert_msg(lrc == GD_OK, "journal after disk full: %s", err.msg);
    ck_assert_msg(n1 > 0 && n1 < 384, "%zu records before the disk filled",
                  n1);
    printf("hardening: disk full after %zu of 384 records\n", n1);
    ck_assert_msg(grown, "cannot grow the tmpfs");
    ck_assert_msg(rc2 == 0, "resume: exit %d: %s", rc2, second);
    ck_assert_msg(lrc2 == GD_OK && n2 == 384 && distinct,
                  "after resume: %zu records (distinct %d)", n2, distinct);
}
END_TEST

/* An external backend campaign in T/NAME.xml running `command`. */
static void write_command_campaign(const char *name, const char *command,
                                   const char *execution, const char *values)
{
    char path[512], text[4096];
    snprintf(path, sizeof path, "%s/%s.xml", T, name);
    snprintf(text, sizeof text,
             "<campaign name=\"%s\" seed=\"1\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>%s</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC=([0-9.]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"app\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"%s\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"4\"/>\n"
             "  <execution %s/>\n"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n", name, command, values, execution);
    tu_write(path, text);
}

START_TEST(job_directory_cannot_be_created)
{
    write_command_campaign("jd", "echo IPC=1.5", "jobs=\"1\" timeout=\"10\"",
                           "8 60");
    run_sh("rm -rf %s/jd-run && mkdir -p %s/jd-run && : > %s/jd-run/jobs",
           T, T, T);
    /* --force: a directory holding a stray file is not a run of ours */
    int rc = run_sh("%s run %s/jd.xml -o %s/jd-run -q --force", tu_bin(), T,
                    T);
    ck_assert_msg(rc == 3, "exit %d, want 3: %s", rc, outbuf);
    const char *m = strstr(outbuf, "cannot create job directory");
    ck_assert_msg(m && strstr(m, "jd-run/jobs/")
                  && strstr(m + 1, "cannot create job directory") == NULL
                  && strstr(outbuf, "ot a directory")
                  && strstr(outbuf, "to resume"),
                  "unclear message: %s", outbuf);
    store_record *recs = NULL;
    size_t n = 0;
    gd_err err;
    ck_assert_int_eq(store_load_all(tp("/jd-run/results.jsonl"), &recs, &n,
                                    &err), GD_OK);
    free(recs);
    ck_assert_msg(n == 0, "%zu records although no job could run", n);
    /* fixed: it resumes */
    run_sh("rm -f %s/jd-run/jobs", T);
    rc = run_sh("%s run %s/jd.xml -o %s/jd-run -q", tu_bin(), T, T);
    ck_assert_msg(rc == 0, "resume: exit %d: %s", rc, outbuf);
}
END_TEST

/* 1 GB of output (NUL bytes, then the metric) with output-cap-mb 1: the
 * kept stdout.log is at most 1 MiB and the metric after the flood is read. */
START_TEST(gigabyte_of_output_is_capped)
{
    write_command_campaign("big", "head -c 1000000000 /dev/zero; "
                           "echo; echo IPC=1.5",
                           "jobs=\"1\" timeout=\"60\" output-cap-mb=\"1\"",
                           "8");
    double t0 = mono_s();
    int rc = run_sh("%s run %s/big.xml -o %s/big-run -q", tu_bin(), T, T);
    double dt = mono_s() - t0;
    printf("hardening: 1 GB of simulator output handled in %.2f s\n", dt);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, outbuf);
    ck_assert_int_eq(run_sh("find %s/big-run/jobs -name stdout.log "
                            "-size +1024k | wc -l", T), 0);
    ck_assert_msg(atoi(outbuf) == 0, "stdout.log over the 1 MiB cap");
    ck_assert_int_eq(run_sh("cat %s/big-run/jobs/*/stdout.log | wc -c", T), 0);
    long kept = atol(outbuf);
    ck_assert_msg(kept > 0 && kept <= 1048576, "kept %ld bytes", kept);
    store_record *recs = NULL;
    size_t n = 0;
    gd_err err;
    ck_assert_int_eq(store_load_all(tp("/big-run/results.jsonl"), &recs, &n,
                                    &err), GD_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(recs[0].status == ST_OK, "status %s: %s",
                  store_status_name(recs[0].status), recs[0].reason);
    free(recs);
}
END_TEST

static int alive(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* The simulator forks a child (and a grandchild) that outlive it: both are
 * killed with its process group when it exits. */
START_TEST(children_are_killed_with_the_group)
{
    write_command_campaign("fork", "sleep 300 &amp; echo $! &gt; child.pid; "
                           "(sleep 301 &amp; echo $! &gt; grandchild.pid); "
                           "echo IPC=2",
                           "jobs=\"1\" timeout=\"30\"", "8");
    double t0 = mono_s();
    int rc = run_sh("%s run %s/fork.xml -o %s/fork-run -q", tu_bin(), T, T);
    double dt = mono_s() - t0;
    ck_assert_msg(rc == 0, "exit %d: %s", rc, outbuf);
    ck_assert_msg(dt < 25, "the run waited %.1f s for the children", dt);
    const char *files[] = {"child.pid", "grandchild.pid"};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(run_sh("cat %s/fork-run/jobs/*/%s", T, files[i]), 0);
        long pid = atol(outbuf);
        ck_assert_msg(pid > 1, "no pid in %s", files[i]);
        for (int k = 0; k < 50 && alive(pid); k++)
            usleep(20000);
        if (alive(pid))
            kill((pid_t)pid, SIGKILL);
        ck_assert_msg(!alive(pid), "%s %ld still runs", files[i], pid);
    }
}
END_TEST

/* A hung simulator is stopped at its timeout. The executor measures it on
 * CLOCK_MONOTONIC (executor.c now_s), so wall-clock jumps cannot stretch or
 * shorten it; this checks that the timeout fires and is classified. */
START_TEST(timeout_fires)
{
    write_command_campaign("hang", "sleep 60; echo IPC=1",
                           "jobs=\"1\" timeout=\"1\" grace=\"0.5\" "
                           "retries=\"0\"", "8");
    double t0 = mono_s();
    int rc = run_sh("%s run %s/hang.xml -o %s/hang-run -q", tu_bin(), T, T);
    double dt = mono_s() - t0;
    ck_assert_msg(rc == 1, "exit %d, want 1 (a job failed): %s", rc, outbuf);
    ck_assert_msg(dt < 20, "a 1 s timeout took %.1f s", dt);
    store_record *recs = NULL;
    size_t n = 0;
    gd_err err;
    ck_assert_int_eq(store_load_all(tp("/hang-run/results.jsonl"), &recs, &n,
                                    &err), GD_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(recs[0].status == ST_TIMEOUT, "status %s",
                  store_status_name(recs[0].status));
    free(recs);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("hardening");
    TCase *t = tcase_create("hardening");
    tcase_add_checked_fixture(t, setup, NULL);
    tcase_set_timeout(t, 300);
    tcase_add_test(t, bad_campaigns_exit_2_with_file_line);
    tcase_add_test(t, bad_workloads_exit_2_with_file_line);
    tcase_add_test(t, bad_layouts_exit_2_with_file_line);
    tcase_add_test(t, bad_machines_exit_2_with_file_line);
    tcase_add_test(t, huge_and_deep_files_exit_2);
    tcase_add_test(t, every_command_has_help);
    tcase_add_test(t, usage_error_is_one_line_and_the_commands_usage);
    tcase_add_test(t, no_external_entities_no_network);
    tcase_add_test(t, fuzz_crash_inputs_stay_fixed);
    tcase_add_test(t, fromlog_crash_inputs_stay_fixed);
    tcase_add_test(t, journal_disk_full);
    tcase_add_test(t, job_directory_cannot_be_created);
    tcase_add_test(t, gigabyte_of_output_is_capped);
    tcase_add_test(t, children_are_killed_with_the_group);
    tcase_add_test(t, timeout_fires);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    snprintf(hdir, sizeof hdir, "tests/tmp/hardening-%ld", (long)getpid());
    int rc = tu_run_suite(suite());
    char cmd[256];
    snprintf(cmd, sizeof cmd, "umount %s/full 2>/dev/null; %s", T,
             rc == EXIT_SUCCESS ? "rm -rf " : "true ");
    if (rc == EXIT_SUCCESS)
        strncat(cmd, T, sizeof cmd - strlen(cmd) - 1);
    if (system(cmd) != 0)
        fprintf(stderr, "hardening: cannot clean %s\n", T);
    return rc;
}
