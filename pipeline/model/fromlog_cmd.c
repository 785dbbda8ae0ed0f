/* fromlog_cmd: the `gpudse workload from-log` command — its options, the
 * descriptor's provenance comment, the notes per kernel — over fromlog.c's
 * parser (fl_from_file). */
#include "fromlog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parseopt.h"

/* One CLASS=N of --mix "sfu=64,sync=2,atomic=2" (per-warp counts) into
 * the fl_extra arg. */
static int mix_item(char *cls, char *value, void *arg, gd_err *err)
{
    fl_extra *x = arg;
    double v;
    if (!value || util_parse_double(value, &v) || v < 0)
        return gd_errf(err, GD_EINPUT, "--mix: '%s%s%s' is not CLASS=N with "
                       "N >= 0 (classes: sfu, sync, atomic)", cls,
                       value ? "=" : "", value ? value : "");
    x->sfu_set |= !strcmp(cls, "sfu");
    x->sync_set |= !strcmp(cls, "sync");
    double *slot = !strcmp(cls, "sfu") ? &x->sfu
                   : !strcmp(cls, "sync") ? &x->sync
                   : !strcmp(cls, "atomic") ? &x->atomic : NULL;
    if (!slot)
        return gd_errf(err, GD_EINPUT, "--mix: unknown class '%s' "
                       "(classes the log does not count: sfu, sync, "
                       "atomic)", cls);
    *slot = v;
    return GD_OK;
}

static int parse_mix(const char *txt, fl_extra *x, gd_err *err)
{
    return util_kv_each(txt, ",", mix_item, x, err);
}

/* Workload name from the log's file name: up to the first '.', with
 * characters outside [A-Za-z0-9_-] as '_'. */
static void name_from_path(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    util_strlcpy(out, b ? b + 1 : path, n);
    char *dot = strchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
    for (char *c = out; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
            *c = '_';
    if (!*out)
        util_strlcpy(out, "workload", n);
}

int fl_kernel_note(const fl_kernel_info *info, char *out, size_t n)
{
    int len = 0;
    out[0] = '\0';
    if (info->local_accesses > 0)
        len += snprintf(out + len, n - (size_t)len, "%.0f local-memory L1 "
                        "accesses (spills or local arrays) are counted as "
                        "global loads and stores; L1's write-back of local "
                        "stores is not modelled.", info->local_accesses);
    if (info->tex_insns > 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, "%s%.0f texture "
                        "instructions are counted as ALU work: the model has "
                        "no texture path.", len ? " " : "", info->tex_insns);
    if (info->log_cta_per_core > 0 && info->model_cta_per_core > 0
        && info->log_cta_per_core != info->model_cta_per_core
        && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, "%sthe log ran %d CTAs "
                        "per core (limited by: %s), the descriptor's "
                        "registers and shared memory give %d (%s) at the "
                        "log's config, so its occupancy and every prediction "
                        "differ from the run's: check regs_per_thread and "
                        "smem_per_cta (the ptxas line has no dynamic shared "
                        "memory).", len ? " " : "", info->log_cta_per_core,
                        info->log_cta_limit[0] ? info->log_cta_limit : "?",
                        info->model_cta_per_core, info->model_cta_limit);
    if (info->barrier_in_loop && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, "%ssync %d is the "
                        "barriers the PTX dump shows, and one of them comes "
                        "before a loop's back edge, so it may run once per "
                        "trip: give the executed count with --mix sync=N.",
                        len ? " " : "", info->log_barriers);
    return len > 0;
}

static void provenance(const char *log, const wl_workload *w,
                       const fl_kernel_info *info, const fl_extra *x,
                       util_buf *c)
{
    util_buf_printf(c, "from-log: derived by gpudse workload from-log from "
                    "the GPGPU-Sim log %s. Per kernel: grid and block from "
                    "'pushing kernel', regs and smem from the ptxas line; "
                    "thread_insns = gpu_sim_insn / threads; warp_insns = "
                    "gpgpu_n_tot_w_icount / warps; ld_global, st_global, "
                    "shared, const = gpgpu_n_{load,store,shmem,const_mem+"
                    "param_mem}_insn / (32 x SIMD efficiency x warps); "
                    "code_lines, const_lines = INST_ACC_R, CONST_ACC_R "
                    "packets per SM and launch; fetches = L1I (INST_ACC_R) "
                    "accesses / warps; "
                    "ld_tx, st_tx, const_conflict = L1 GLOBAL_ACC_R, "
                    "GLOBAL_ACC_W, CONST_ACC_R accesses per warp "
                    "instruction; st_sectors = L2 / L1 GLOBAL_ACC_W; "
                    "shared_conflict = 1 + bk_conf stalls per shared "
                    "access; l1_reuse = L1 read hit rate; l2_reuse = L2 read "
                    "hit rate / baseline L2 fit; footprint_kb_total = L2 "
                    "GLOBAL_ACC_W line misses x 128 B (written) + thread "
                    "loads x written bytes per store, at most the L2 read "
                    "traffic (read), lowered to L2 / sqrt(read hit rate) "
                    "when that fits better; read_share = the read part's "
                    "share when -gpgpu_perf_sim_memcpy 1, the read part is "
                    "not so lowered and fits L2, else 0; "
                    "footprint_kb_per_cta = L1 / CTA per core, or the "
                    "L1 read line misses per CTA per warp load x 128 B when "
                    "those misses do not exceed the lines read (no line "
                    "refetched). "
                    "atomic = GLOBAL_ATOMIC packets' share of the loads, "
                    "atom_tx = those packets per warp atomic, atom_hot = "
                    "busiest L2 bank's share of accesses. sfu %g (and atomic "
                    "%g when given) per warp from --mix (the statistics do "
                    "not count them); sync per warp from --mix%s, else the "
                    "distinct barriers among the PTX dump's reconvergence "
                    "points (a lower bound: a barrier after no branch is not "
                    "printed, one in a loop runs once per trip). "
                    "st_stride, st_group "
                    "(partition camping) only when avg_icnt2mem_latency > 64 "
                    "and st_tx >= 2: the power-of-two stride and CTA group "
                    "that put the stores on partiton_level_parallism_util "
                    "slices at the log's config. ilp (then, when the request "
                    "network is saturated, mem_eff; then mem_waits; "
                    "then, without --mix sfu, an SFU share of the ALU "
                    "instructions) anchored so the model meets the measured "
                    "cycles at the log's config; gpudse calibrate fits the "
                    "free parameters.", log,
                    x->sfu, x->atomic, x->sync_set ? " (given)" : "");
    for (int i = 0; i < w->nkernels; i++) {
        util_buf_printf(c, " Kernel %s: measured %.0f cycles (model %.0f "
                        "after the anchor), %.0f thread instructions, "
                        "CTA/core %d, sync %g (%d barrier(s) shown).",
                        w->k[i].name, info[i].log_cycles,
                        info[i].model_cycles, info[i].log_thread_insns,
                        info[i].log_cta_per_core, w->k[i].insn_sync,
                        info[i].log_barriers);
        char note[1024];
        if (fl_kernel_note(&info[i], note, sizeof note))
            util_buf_printf(c, " %s", note);
    }
}

static int mix_opt(void *value, const char *arg, gd_err *err)
{
    return parse_mix(arg, value, err);
}

/* workload from-log: LOG's descriptor into out, named name (NULL: from
 * LOG's file name), with x's counts the log does not have. */
static int from_log(const char *log, const char *out, const char *name,
                    const fl_extra *x, gd_err *err)
{
    int rc;
    char nm[WL_NAMELEN];
    if (name)
        util_strlcpy(nm, name, sizeof nm);
    else
        name_from_path(log, nm, sizeof nm);
    wl_workload *w = malloc(sizeof *w);
    fl_kernel_info *info = calloc(WL_MAXKERNELS, sizeof *info);
    rc = w && info ? fl_from_file(log, nm, x, w, info, err)
                   : gd_errf(err, GD_EENV, "out of memory");
    if (rc == GD_OK) {
        util_buf c;
        util_buf_init(&c);
        provenance(log, w, info, x, &c);
        char *xml = NULL;
        rc = wl_to_xml(w, c.s, &xml, err);
        util_buf_free(&c);
        if (rc == GD_OK)
            rc = util_write_file_atomic(out, xml, strlen(xml), err);
        free(xml);
        if (rc == GD_OK)
            printf("wrote %s: workload %s, %d kernel(s)\n", out, w->name,
                   w->nkernels);
        for (int i = 0; rc == GD_OK && i < w->nkernels; i++) {
            char note[1024];
            if (fl_kernel_note(&info[i], note, sizeof note))
                fprintf(stderr, "gpudse: note: kernel %s: %s\n",
                        w->k[i].name, note);
        }
    }
    free(w);
    free(info);
    return rc;
}

int cmd_workload(int argc, char **argv)
{
    const char *out = NULL, *name = NULL;
    fl_extra x = {0};
    const po_option opts[] = {
        PO_STRING("-o", "W.xml", &out, "the descriptor to write"),
        PO_STRING("--name", "NAME", &name,
                  "workload name (default: LOG's file name up to\n"
                  "its first dot)"),
        PO_CALLBACK("--mix", "sfu=N,...", &x, mix_opt,
                    "per-warp SFU, barrier and atomic counts from the\n"
                    "kernel's source; without sync=, the barriers the\n"
                    "log's PTX dump shows (a lower bound)"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "workload",
        "usage: gpudse workload from-log LOG -o W.xml [--name NAME]\n"
        "                      [--mix sfu=N,sync=N,atomic=N]\n",
        "Build a workload descriptor from one GPGPU-Sim log (docs/model.md,\n"
        "\"From a log\").\n",
        opts, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n < 1 || strcmp(argv[0], "from-log"))
        return po_usage_error(&cmd, "workload needs the subcommand from-log");
    if (n != 2)
        return po_usage_error(&cmd, "workload from-log takes one log file");
    if (!out)
        return po_usage_error(&cmd, "workload from-log needs -o W.xml");
    gd_err err = {0, ""};
    rc = from_log(argv[1], out, name, &x, &err);
    if (rc)
        fprintf(stderr, "gpudse: %s\n", err.msg);
    return rc;
}
