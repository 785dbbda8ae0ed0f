/* fuzz_fromlog: libFuzzer harness for `gpudse workload from-log` (fl_parse
 * on the input bytes). A log it accepts must give a descriptor that the
 * descriptor validator accepts back (wl_to_xml, then wl_load_file) with
 * the same kernels, and that the model predicts at the log's own config
 * and the baseline with finite, positive outputs (or a clear error). A log
 * it refuses must be refused as bad input (GD_EINPUT), never otherwise. */
#include <math.h>

#include "fuzz_common.h"
#include "fromlog.h"
#include "model.h"
#include "space.h"
#include "workload.h"

static void predict_or_abort(const wl_workload *w, const gpu_config *c)
{
    model_out o;
    gd_err err;
    if (model_eval(w, c, &o, &err) != 0)
        return;
    if (!(isfinite(o.ipc) && o.ipc > 0 && isfinite(o.cycles) && o.cycles > 0
          && isfinite(o.power_w) && o.occupancy > 0 && o.occupancy <= 1))
        abort();
}

/* The descriptor from-log wrote must load back through the validator. */
static void reload_or_abort(const wl_workload *w)
{
    char *xml = NULL;
    gd_err err;
    if (wl_to_xml(w, "fuzz_fromlog", &xml, &err) != GD_OK)
        abort();
    const char *p = fz_write("fromlog", "w.xml", (const uint8_t *)xml,
                             strlen(xml));
    free(xml);
    wl_workload *back = calloc(1, sizeof *back);
    if (wl_load_file(p, back, &err) != GD_OK
        || back->nkernels != w->nkernels)
        abort();
    free(back);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fz_env();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so reading past len is caught by ASan. */
    char *exact = malloc(size ? size : 1);
    memcpy(exact, data, size);
    wl_workload *w = calloc(1, sizeof *w);
    fl_kernel_info info[WL_MAXKERNELS];
    gd_err err;
    int rc = fl_parse("fuzz.log", exact, size, "fz", NULL, w, info, &err);
    if (rc == GD_OK) {
        if (w->nkernels < 1 || w->nkernels > WL_MAXKERNELS)
            abort();
        reload_or_abort(w);
        predict_or_abort(w, &info[0].log_config);
        gpu_config base = space_baseline();
        predict_or_abort(w, &base);
    } else if (rc != GD_EINPUT) {
        abort();
    }
    free(w);
    free(exact);
    return 0;
}
