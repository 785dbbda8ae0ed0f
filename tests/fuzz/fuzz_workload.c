/* fuzz_workload: libFuzzer harness for the workload descriptor parser
 * (wl_load_file on a temporary file); an accepted descriptor must have
 * 1..WL_MAXKERNELS kernels, must survive a wl_to_xml round trip, and the
 * model must predict it at the corners of the design space either with an
 * error (a CTA that does not fit) or with finite, positive outputs. */
#include <math.h>

#include "fuzz_common.h"
#include "model.h"
#include "space.h"
#include "workload.h"

/* The baseline and the two extreme corners of every knob together. */
static void model_corners(const wl_workload *w)
{
    space_def s;
    space_def_full(&s);
    uint64_t last = space_size(&s) - 1;
    gpu_config pts[3] = { space_baseline(), space_at(&s, 0),
                          space_at(&s, last) };
    for (int i = 0; i < 3; i++) {
        model_out o;
        gd_err err;
        if (model_eval(w, &pts[i], &o, &err) != 0)
            continue;
        if (!(isfinite(o.ipc) && o.ipc > 0 && isfinite(o.cycles)
              && o.cycles > 0 && isfinite(o.power_w) && o.power_w > 0
              && isfinite(o.energy_j) && o.occupancy > 0
              && o.occupancy <= 1 && isfinite(o.dram_bw_gbps)
              && isfinite(o.l2_bw_gbps)))
            abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fz_env();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("workload", "w.xml", data, size);
    wl_workload *w = calloc(1, sizeof *w);
    gd_err err;
    int rc = wl_load_file(path, w, &err);
    if (rc == GD_OK) {
        if (w->nkernels < 1 || w->nkernels > WL_MAXKERNELS)
            abort();
        model_corners(w);
        char *xml = NULL;
        if (wl_to_xml(w, "fuzz -- round trip", &xml, &err) == GD_OK) {
            const char *p2 = fz_write("workload", "w2.xml", (const uint8_t *)xml,
                                      strlen(xml));
            wl_workload *w2 = calloc(1, sizeof *w2);
            if (wl_load_file(p2, w2, &err) != GD_OK
                || w2->nkernels != w->nkernels)
                abort();
            free(w2);
        }
        free(xml);
    } else if (rc != GD_EINPUT && rc != GD_EENV) {
        abort();
    }
    free(w);
    return 0;
}
