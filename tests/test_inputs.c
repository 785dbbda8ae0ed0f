/* test_inputs: what a new user or an attacker hands `gpudse run` (issue 22,
 * items 6-10 and 12). An entity bomb is refused before anything is expanded;
 * FIFOs, devices, directories and oversized files as campaign, workload or
 * <file template> are refused with exit 2; -o into a foreign non-empty
 * directory is refused without --force; campaign names that are not plain
 * file names are refused at FILE:LINE; placeholders run no shell code from a
 * hostile path in any quoting context; messages say what happened (journal
 * counts, budgets out of range); data is found beside the binary; derived
 * files are byte-identical across two runs with jobs=4 whatever order the
 * jobs finished in; the option tables parse and refuse command lines. */
#include "testutil.h"
#include "parseopt.h"

#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* This process's scratch folder, tests/tmp/inputs-PID (absolute). */
static char T[PATH_MAX];
static char cwd[PATH_MAX];
static char outbuf[1 << 16];

/* Run a shell command, stdout and stderr into outbuf; its exit status (-1
 * when it did not exit). */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[8192], line[8400 + PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "{ %s\n} >'%s/cmd.out' 2>&1", cmd, T);
    int st = system(line);
    snprintf(line, sizeof line, "%s/cmd.out", T);
    outbuf[0] = 0;
    FILE *f = fopen(line, "r");
    if (f) {
        size_t n = fread(outbuf, 1, sizeof outbuf - 1, f);
        outbuf[n] = 0;
        fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The binary under test as an absolute path (tests cd into T). */
static const char *bin(void)
{
    static char b[2 * PATH_MAX];
    const char *t = tu_bin();
    if (t[0] == '/')
        return t;
    snprintf(b, sizeof b, "%s/%s", cwd, t);
    return b;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void setup(void)
{
    ck_assert(getcwd(cwd, sizeof cwd) != NULL);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", T, T);
    ck_assert(system(cmd) == 0);
}

/* A fine analytic campaign at path with the given name, workload element
 * and extra elements. */
static void write_campaign(const char *path, const char *name,
                           const char *workload, const char *budget)
{
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fprintf(f, "<campaign name=\"%s\" seed=\"1\">\n"
               "  <workloads>%s</workloads>\n"
               "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
               "  <search strategy=\"random\" budget=\"%s\"/>\n"
               "  <report formats=\"svg\"/>\n"
               "</campaign>\n", name, workload, budget);
    fclose(f);
}

/* A command-backend campaign at path; command is XML text. */
static void write_command_campaign(const char *path, const char *command,
                                   const char *extra, const char *values,
                                   const char *execution)
{
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fprintf(f, "<campaign name=\"cmd\" seed=\"1\">\n"
               "  <simulator backend=\"command\">\n"
               "    <command>%s</command>\n"
               "    <metric name=\"ipc\" regex=\"IPC=([0-9.]+)\"/>\n"
               "    <metric name=\"power_w\" regex=\"POW=([0-9.]+)\" "
               "required=\"false\"/>\n"
               "    %s\n"
               "  </simulator>\n"
               "  <workloads><workload name=\"app\"/></workloads>\n"
               "  <space>%s</space>\n"
               "  <objectives><maximize metric=\"ipc\"/>%s</objectives>\n"
               "  <search strategy=\"exhaustive\" budget=\"64\"/>\n"
               "  <execution %s/>\n"
               "  <report formats=\"svg\"/>\n"
               "</campaign>\n", command, extra, values,
            strstr(command, "POW=") ? "<minimize metric=\"power_w\"/>" : "",
            execution);
    fclose(f);
}

/* `gpudse validate FILE` and `gpudse run FILE -o T/out` exit 2 within the
 * timeout, say what (and FILE:LINE when line_of names one) and create no
 * run directory. */
static void refused(const char *file, const char *what, const char *line_of)
{
    /* -k: a run busy in libxml2 only sets its stop flag on SIGTERM */
    int rc = sh("timeout -k 5 60 %s validate '%s'", tu_bin(), file);
    ck_assert_msg(rc == 2, "validate %s: exit %d, want 2: %s", file, rc,
                  outbuf);
    ck_assert_msg(strstr(outbuf, what), "validate %s: no \"%s\" in: %s",
                  file, what, outbuf);
    ck_assert_msg(!line_of || names_file_line(outbuf, line_of),
                  "validate %s: no %s:LINE: in: %s", file, line_of, outbuf);
    sh("rm -rf '%s/out'", T);
    rc = sh("timeout -k 5 60 %s run '%s' -o '%s/out' -q", tu_bin(), file,
            T);
    ck_assert_msg(rc == 2, "run %s: exit %d, want 2: %s", file, rc, outbuf);
    ck_assert_msg(strstr(outbuf, what), "run %s: no \"%s\" in: %s", file,
                  what, outbuf);
    ck_assert_msg(!line_of || names_file_line(outbuf, line_of),
                  "run %s: no %s:LINE: in: %s", file, line_of, outbuf);
    char out[PATH_MAX + 8];
    snprintf(out, sizeof out, "%s/out", T);
    ck_assert_msg(!exists(out), "run %s created %s", file, out);
}

/* ---- item 6: entity expansion ------------------------------------------ */

/* A 100 KB campaign whose name is 30,000 references to a 10 KB entity
 * (300 MB expanded; no nesting, so libxml2's loop check never fires): `run`
 * read the root's name through xmlTextReader, which expands it — minutes,
 * hundreds of MB, and SIGTERM only set the run's stop flag. */
START_TEST(entity_bomb_refused_before_expansion)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/bomb.xml", T);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fprintf(f, "<?xml version=\"1.0\"?>\n<!DOCTYPE campaign [\n"
               "<!ENTITY a \"");
    for (int i = 0; i < 10000; i++)
        fputc('x', f);
    fprintf(f, "\">\n]>\n<campaign name=\"");
    for (int i = 0; i < 30000; i++)
        fputs("&a;", f);
    fprintf(f, "\" seed=\"1\">\n"
               "<workloads><workload name=\"vecadd\"/></workloads>\n"
               "<objectives><maximize metric=\"ipc\"/></objectives>\n"
               "<search strategy=\"random\" budget=\"2\"/>\n</campaign>\n");
    fclose(f);
    refused(path, "DOCTYPE is not allowed", "bomb.xml");
}
END_TEST

/* ---- item 9 and 10: special files ------------------------------------- */

START_TEST(special_files_refused)
{
    char fifo[PATH_MAX + 16], dir[PATH_MAX + 16], big[PATH_MAX + 16];
    snprintf(fifo, sizeof fifo, "%s/fifo.xml", T);
    snprintf(dir, sizeof dir, "%s/dir.xml", T);
    snprintf(big, sizeof big, "%s/big.xml", T);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    /* 17 MiB (sparse): past the 16 MiB cap */
    ck_assert_int_eq(sh("truncate -s 17M '%s'", big), 0);
    /* as the campaign */
    refused(fifo, "is a FIFO", NULL);
    refused("/dev/zero", "is a device", NULL);
    refused("/dev/urandom", "is a device", NULL);
    refused(dir, "is a directory", NULL);
    refused(big, "MiB", "big.xml");
    /* as a workload descriptor */
    const char *specials[] = {fifo, "/dev/zero", "/dev/urandom", dir, big};
    const char *says[] = {"is a FIFO", "is a device", "is a device",
                          "is a directory", "MiB"};
    char camp[PATH_MAX + 16], wl[2 * PATH_MAX];
    snprintf(camp, sizeof camp, "%s/c.xml", T);
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        snprintf(wl, sizeof wl, "<workload name=\"w\" file=\"%s\"/>",
                 specials[i]);
        write_campaign(camp, "sp", wl, "2");
        refused(camp, says[i], NULL);
    }
    /* as a <file template> (relative to the campaign's folder) */
    const char *rel[] = {"fifo.xml", "/dev/zero", "/dev/urandom", "dir.xml",
                         "big.xml"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char extra[PATH_MAX];
        snprintf(extra, sizeof extra, "<file name=\"in.cfg\" "
                 "template=\"%s%s\"/>", rel[i][0] == '/' ? "../../../../../.."
                 "/../../../../.." : "", rel[i]);
        write_command_campaign(camp, "echo IPC=1", extra,
                               "<knob name=\"n_clusters\" values=\"8\"/>",
                               "jobs=\"1\"");
        refused(camp, says[i], "c.xml");
    }
}
END_TEST

/* ---- item 7: the output directory and the campaign's name ------------- */

START_TEST(foreign_directory_needs_force)
{
    char camp[PATH_MAX + 16], pdf[PATH_MAX + 32];
    snprintf(camp, sizeof camp, "%s/c.xml", T);
    snprintf(pdf, sizeof pdf, "%s/mine/report.pdf", T);
    write_campaign(camp, "f", "<workload name=\"vecadd\"/>", "2");
    ck_assert_int_eq(sh("mkdir -p '%s/mine'", T), 0);
    tu_write(pdf, "my paper\n");
    int rc = sh("%s run '%s' -o '%s/mine' -q", tu_bin(), camp, T);
    ck_assert_msg(rc == 2, "exit %d, want 2: %s", rc, outbuf);
    ck_assert_msg(strstr(outbuf, "--force") && strstr(outbuf, "not empty"),
                  "the message does not say why or what to do: %s", outbuf);
    ck_assert_int_eq(sh("grep -qx 'my paper' '%s'", pdf), 0);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/mine/results.jsonl", T);
    ck_assert_msg(!exists(p), "a refused run wrote %s", p);
    rc = sh("%s run '%s' -o '%s/mine' -q --force", tu_bin(), camp, T);
    ck_assert_msg(rc == 0, "--force: exit %d: %s", rc, outbuf);
    /* a run directory of its own is resumed without --force */
    rc = sh("%s run '%s' -o '%s/mine' -q", tu_bin(), camp, T);
    ck_assert_msg(rc == 0, "resume: exit %d: %s", rc, outbuf);
    /* a split study, through run and through split run */
    ck_assert_int_eq(sh("mkdir -p '%s/mine2'", T), 0);
    snprintf(pdf, sizeof pdf, "%s/mine2/report.pdf", T);
    tu_write(pdf, "my paper\n");
    const char *how[] = {"run", "split run"};
    for (int i = 0; i < 2; i++) {
        rc = sh("%s %s campaigns/split-hetero4.xml -o '%s/mine2' -q",
                tu_bin(), how[i], T);
        ck_assert_msg(rc == 2 && strstr(outbuf, "--force"),
                      "split study (%s): exit %d: %s", how[i], rc, outbuf);
        ck_assert_int_eq(sh("grep -qx 'my paper' '%s'", pdf), 0);
    }
    /* an empty directory is fine */
    rc = sh("mkdir -p '%s/empty' && %s run '%s' -o '%s/empty' -q", T,
            tu_bin(), camp, T);
    ck_assert_msg(rc == 0, "empty directory: exit %d: %s", rc, outbuf);
}
END_TEST

START_TEST(campaign_name_is_a_plain_file_name)
{
    const char *bad[] = {".", "..", "-rf", ".hidden", "a/b", ""};
    char camp[PATH_MAX + 16];
    snprintf(camp, sizeof camp, "%s/n.xml", T);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_campaign(camp, bad[i], "<workload name=\"vecadd\"/>", "2");
        /* run from T: the default runs/NAME/ must not be T/runs/.. = T */
        int rc = sh("cd '%s' && %s validate n.xml", T, bin());
        ck_assert_msg(rc == 2, "name \"%s\": validate exit %d: %s", bad[i],
                      rc, outbuf);
        ck_assert_msg(names_file_line(outbuf, "n.xml"),
                      "name \"%s\": no FILE:LINE: %s", bad[i], outbuf);
        rc = sh("cd '%s' && %s run n.xml -q", T, bin());
        ck_assert_msg(rc == 2, "name \"%s\": run exit %d: %s", bad[i], rc,
                      outbuf);
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/results.jsonl", T);
        ck_assert_msg(!exists(p), "name \"%s\": the run went into %s", bad[i],
                      T);
    }
}
END_TEST

/* ---- item 8: placeholders in every quoting context ---------------------- */

START_TEST(placeholders_run_no_shell_code)
{
    /* a campaign folder whose name is shell code, quotes and backslash */
    char evil[PATH_MAX], camp[2 * PATH_MAX];
    snprintf(evil, sizeof evil, "%s/x'q\"`touch PWN1`$(touch PWN2)\\", T);
    ck_assert_int_eq(mkdir(evil, 0700), 0);
    snprintf(camp, sizeof camp, "%s/c.xml", evil);
    const char *contexts[] = {
        "echo IPC=1.5 {campaign_dir}",
        "echo \"IPC=1.5 {campaign_dir}\"",
        "echo 'IPC=1.5 {campaign_dir}'",
        "echo \"$(echo \"IPC=1.5 {campaign_dir}\")\"",
        "echo \"$(echo 'IPC=1.5 {campaign_dir}')\"",
        "echo IPC=1.5\"{campaign_dir}\"'{campaign_dir}'{campaign_dir}",
        "echo IPC=1.5 # it's a comment {campaign_dir}\n"
        "echo '{campaign_dir}'",
        "echo IPC=$(( ({n_clusters} - 7) * 2 )).5 \"$(( {n_clusters} ))\" "
        "{campaign_dir}",
    };
    for (size_t i = 0; i < sizeof contexts / sizeof contexts[0]; i++) {
        char cmd[1024];
        /* XML text: escape & < > */
        size_t k = 0;
        for (const char *p = contexts[i]; *p && k < sizeof cmd - 8; p++)
            k += (size_t)snprintf(cmd + k, sizeof cmd - k, "%s",
                                  *p == '&' ? "&amp;" : *p == '<' ? "&lt;"
                                  : *p == '>' ? "&gt;"
                                  : (char[]){*p, 0});
        write_command_campaign(camp, cmd, "",
                               "<knob name=\"n_clusters\" values=\"8\"/>",
                               "jobs=\"1\" timeout=\"20\"");
        /* (the harness cannot quote the folder's name either: cd here) */
        ck_assert_int_eq(chdir(evil), 0);
        int rc = sh("rm -rf out && %s run c.xml -o out -q && cat "
                    "out/jobs/*/stdout.log", bin());
        ck_assert_int_eq(chdir(cwd), 0);
        static char out[sizeof outbuf];
        memcpy(out, outbuf, sizeof out);
        /* wherever the code would have run: T, the campaign's folder, the
         * job's folder */
        int pwned = sh("find '%s' -name 'PWN*' | grep -q .", T) == 0;
        ck_assert_msg(!pwned,
                      "context %zu (%s) ran code from the path", i,
                      contexts[i]);
        ck_assert_msg(rc == 0, "context %zu (%s): exit %d: %s", i,
                      contexts[i], rc, out);
        /* the value arrives whole */
        ck_assert_msg(strstr(out, "x'q\"`touch PWN1`$(touch PWN2)\\"),
                      "context %zu (%s): the path arrived altered: %s", i,
                      contexts[i], out);
    }
    /* where no quoting is safe: refused at validate with FILE:LINE */
    const char *unsafe[] = {"echo `echo {campaign_dir}`",
                            "echo $'{campaign_dir}'",
                            "cat &lt;&lt;EOF\n{campaign_dir}\nEOF",
                            "echo $(( {campaign_dir} ))",
                            "echo \\{campaign_dir}",
                            "echo \"\\{campaign_dir}\"",
                            "echo ${campaign_dir}",
                            "echo \"${campaign_dir}\""};
    for (size_t i = 0; i < sizeof unsafe / sizeof unsafe[0]; i++) {
        write_command_campaign(camp, unsafe[i], "",
                               "<knob name=\"n_clusters\" values=\"8\"/>",
                               "jobs=\"1\"");
        ck_assert_int_eq(chdir(evil), 0);
        int rc = sh("%s validate c.xml", bin());
        ck_assert_int_eq(chdir(cwd), 0);
        ck_assert_msg(rc == 2 && names_file_line(outbuf, "c.xml")
                      && strstr(outbuf, "{campaign_dir}"),
                      "%s: exit %d: %s", unsafe[i], rc, outbuf);
    }
}
END_TEST

/* ---- item 10: messages ------------------------------------------------ */

START_TEST(budget_out_of_range_says_so)
{
    char camp[PATH_MAX + 16];
    snprintf(camp, sizeof camp, "%s/b.xml", T);
    const char *big[] = {"9223372036854775808", "18446744073709551616",
                         "99999999999999999999999"};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        write_campaign(camp, "b", "<workload name=\"vecadd\"/>", big[i]);
        int rc = sh("%s validate '%s'", tu_bin(), camp);
        ck_assert_msg(rc == 2 && strstr(outbuf, "out of range")
                      && strstr(outbuf, "too large")
                      && !strstr(outbuf, "at least 1")
                      && names_file_line(outbuf, "b.xml"),
                      "budget %s: exit %d: %s", big[i], rc, outbuf);
    }
    write_campaign(camp, "b", "<workload name=\"vecadd\"/>", "0");
    ck_assert_int_eq(sh("%s validate '%s'", tu_bin(), camp), 2);
    ck_assert_msg(strstr(outbuf, "at least 1"), "%s", outbuf);
}
END_TEST

/* Interrupted while the journal already holds jobs of an earlier session:
 * the message counts the journal, not this session's jobs. */
START_TEST(interrupted_counts_the_journal)
{
    char camp[PATH_MAX + 16];
    snprintf(camp, sizeof camp, "%s/c.xml", T);
    /* n_clusters 60 waits while T/slow exists */
    write_command_campaign(camp,
                           "case {n_clusters} in 60) while test -e "
                           "{campaign_dir}/slow; do sleep 0.05; done;; esac; "
                           "echo IPC=1.5",
                           "", "<knob name=\"n_clusters\" "
                           "values=\"8 15 30 60\"/>",
                           "jobs=\"1\" timeout=\"60\"");
    for (int session = 0; session < 2; session++) {
        char cmd[4 * PATH_MAX];
        /* SIGTERM once this session has started (run.log says so) and
         * the journal holds the 3 quick jobs */
        snprintf(cmd, sizeof cmd, "touch '%s/slow' && { %s run '%s' -o "
                 "'%s/run' -q & p=$!; i=0; while [ $i -lt 1200 ] && "
                 "[ \"$(grep -c 'start campaign' '%s/run/run.log' "
                 "2>/dev/null)\" != %d ]; do sleep 0.05; i=$((i+1)); done; "
                 "while [ $i -lt 1200 ] && "
                 "[ \"$(cat '%s/run/results.jsonl' 2>/dev/null | wc -l)\" "
                 "-lt 3 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.3; "
                 "kill -TERM $p; rm -f '%s/slow'; wait $p; }",
                 T, tu_bin(), camp, T, T, session + 1, T, T);
        int rc = sh("%s", cmd);
        ck_assert_msg(rc == 3, "session %d: exit %d, want 3: %s", session,
                      rc, outbuf);
        ck_assert_msg(strstr(outbuf, "interrupted: 3 finished jobs"),
                      "session %d: the message does not count the 3 jobs of "
                      "the journal: %s", session, outbuf);
    }
}
END_TEST

/* A build in a subfolder (build-san/gpudse) finds templates/ one level up
 * without GPUDSE_DATA. */
START_TEST(data_found_beside_a_build_folder)
{
    int rc = sh("mkdir -p '%s/tree/build-x' && cp %s '%s/tree/build-x/gpudse' "
                "&& ln -s '%s/templates' '%s/tree/templates' && env -u "
                "GPUDSE_DATA '%s/tree/build-x/gpudse' validate "
                "campaigns/quickstart.xml", T, tu_bin(), T, cwd, T, T);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, outbuf);
}
END_TEST

/* ---- item 12: derived files in one order ------------------------------ */

START_TEST(derived_files_identical_with_four_workers)
{
    char camp[PATH_MAX + 16];
    snprintf(camp, sizeof camp, "%s/c.xml", T);
    /* each job sleeps 0 to 0.3 s at random: completion order varies */
    write_command_campaign(camp,
                           "sleep 0.$(( $(od -An -N1 -tu1 /dev/urandom) % 4 ));"
                           " echo IPC={n_mem}.{n_clusters} POW={n_clusters}",
                           "", "<knob name=\"n_clusters\" "
                           "values=\"8 15 30 60\"/><knob name=\"n_mem\" "
                           "values=\"4 6 8 12\"/>",
                           "jobs=\"4\" timeout=\"30\"");
    for (int r = 1; r <= 2; r++) {
        int rc = sh("%s run '%s' -o '%s/r%d' -q", tu_bin(), camp, T, r);
        ck_assert_msg(rc == 0, "run %d: exit %d: %s", r, rc, outbuf);
    }
    const char *files[] = {"results.csv", "analysis.json", "annotations.json",
                           "figures/pareto_app.svg"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        int rc = sh("cmp '%s/r1/%s' '%s/r2/%s'", T, files[i], T, files[i]);
        ck_assert_msg(rc == 0, "%s differs between two runs: %s", files[i],
                      outbuf);
    }
    ck_assert_int_eq(sh("wc -l < '%s/r1/results.csv'", T), 0);
    ck_assert_msg(atoi(outbuf) == 17, "results.csv: %s lines", outbuf);
}
END_TEST

/* pipeline/core/parseopt: options anywhere among the positional
 * arguments, which come back in order; `--name=value`; `--` ends the
 * options; `-` is positional; an optional number is taken only when the
 * next argument is one; a callback's message is the usage error's line. */
static int even_only(void *value, const char *arg, gd_err *err)
{
    long v;
    if (util_parse_long(arg, 0, 100, &v) != 0 || v % 2)
        return gd_errf(err, GD_EINPUT, "--even wants an even number, not "
                       "\"%s\"", arg);
    *(long *)value = v;
    return GD_OK;
}

/* util_grow: room for one more element, doubling from first; a size that
 * would overflow is refused and leaves the array as it was. */
START_TEST(grow_doubles_and_refuses_overflow)
{
    int *v = NULL;
    size_t cap = 0, n = 0;
    for (int i = 0; i < 100; i++) {
        ck_assert_int_eq(util_grow(&v, &cap, n, sizeof *v, 4), 0);
        v[n++] = i;
    }
    ck_assert_uint_eq(cap, 128);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(v[i], i);
    ck_assert_int_eq(util_grow(&v, &cap, n, sizeof *v, 4), 0);
    ck_assert_uint_eq(cap, 128);                 /* room left: unchanged */
    int *same = v;
    size_t huge = SIZE_MAX / 2 + 1;
    ck_assert_int_eq(util_grow(&v, &huge, huge, sizeof *v, 4), -1);
    ck_assert_ptr_eq(v, same);
    ck_assert_uint_eq(huge, SIZE_MAX / 2 + 1);
    free(v);
}
END_TEST

START_TEST(option_table_parses_and_refuses)
{
    const char *o = NULL;
    int q = 0;
    long n = 0, even = 0;
    double w = 0;
    const po_option opts[] = {
        PO_STRING("-o", "DIR", &o, "out"),
        PO_FLAG("-q", &q, "quiet"),
        PO_LONG("--count", "N", &n, 1, 9, NULL, "count"),
        PO_OPTDOUBLE("--watch", "[S]", &w, 2, 0.5, 60, NULL, "watch"),
        PO_CALLBACK("--even", "N", &even, even_only, "even"),
        PO_END_OPTS,
    };
    const po_command cmd = {"t", "usage: gpudse t A B\n", NULL, opts, NULL};
    char a1[] = "first", a2[] = "-o", a3[] = "d", a4[] = "--count=3",
         a5[] = "--watch", a6[] = "second", a7[] = "-", a8[] = "--",
         a9[] = "-q";
    char *argv[] = {a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL};
    int rc, k = po_parse(&cmd, 9, argv, &rc);
    ck_assert_int_eq(k, 4);
    ck_assert_str_eq(argv[0], "first");
    ck_assert_str_eq(argv[1], "second");   /* not --watch's value */
    ck_assert_str_eq(argv[2], "-");
    ck_assert_str_eq(argv[3], "-q");       /* after --: positional */
    ck_assert_str_eq(o, "d");
    ck_assert_int_eq(n, 3);
    ck_assert_double_eq(w, 2);
    ck_assert_int_eq(q, 0);
    char b1[] = "--watch", b2[] = "7", b3[] = "--even", b4[] = "4";
    char *bv[] = {b1, b2, b3, b4, NULL};
    ck_assert_int_eq(po_parse(&cmd, 4, bv, &rc), 0);
    ck_assert_double_eq(w, 7);
    ck_assert_int_eq(even, 4);
    /* refusals: exit code 2 each (the message goes to stderr) */
    char c1[] = "--count", c2[] = "10", c3[] = "--even", c4[] = "3",
         c5[] = "-o", c6[] = "-q=1", c7[] = "--watch=0.1";
    char *bad[][3] = {{c1, c2, NULL}, {c3, c4, NULL}, {c5, NULL, NULL},
                      {c6, NULL, NULL}, {c7, NULL, NULL}};
    int nbad[] = {2, 2, 1, 1, 1};
    for (int i = 0; i < 5; i++) {
        rc = -1;
        ck_assert_int_eq(po_parse(&cmd, nbad[i], bad[i], &rc), -1);
        ck_assert_int_eq(rc, GD_EINPUT);
    }
    /* -h anywhere, even after a bad option: the help, exit 0 */
    char h1[] = "--count", h2[] = "x", h3[] = "-h";
    char *hv[] = {h1, h2, h3, NULL};
    rc = -1;
    ck_assert_int_eq(po_parse(&cmd, 3, hv, &rc), -1);
    ck_assert_int_eq(rc, GD_OK);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("inputs");
    TCase *t = tcase_create("inputs");
    tcase_add_checked_fixture(t, setup, NULL);
    tcase_set_timeout(t, 240);
    tcase_add_test(t, entity_bomb_refused_before_expansion);
    tcase_add_test(t, option_table_parses_and_refuses);
    tcase_add_test(t, special_files_refused);
    tcase_add_test(t, foreign_directory_needs_force);
    tcase_add_test(t, campaign_name_is_a_plain_file_name);
    tcase_add_test(t, placeholders_run_no_shell_code);
    tcase_add_test(t, budget_out_of_range_says_so);
    tcase_add_test(t, interrupted_counts_the_journal);
    tcase_add_test(t, data_found_beside_a_build_folder);
    tcase_add_test(t, derived_files_identical_with_four_workers);
    tcase_add_test(t, grow_doubles_and_refuses_overflow);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    char here[PATH_MAX];
    if (!getcwd(here, sizeof here))
        return EXIT_FAILURE;
    snprintf(T, sizeof T, "%s/tests/tmp/inputs-%ld", here, (long)getpid());
    int rc = tu_run_suite(suite());
    if (rc == EXIT_SUCCESS) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", T);
        if (system(cmd) != 0)
            fprintf(stderr, "inputs: cannot clean %s\n", T);
    }
    return rc;
}
