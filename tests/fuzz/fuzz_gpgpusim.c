/* fuzz_gpgpusim: libFuzzer harness for the GPGPU-Sim log readers — the
 * statistics parser, the GPUWattch power report parser, the metric mapping
 * and the failure classifier, all on the same bytes (the input is not
 * NUL-terminated for the parsers that take a length). */
#include "fuzz_common.h"
#include "gpgpusim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so reading past len is caught by ASan. */
    char *exact = malloc(size ? size : 1);
    memcpy(exact, data, size);
    gd_err err;
    gsim_stats s;
    int rc = gsim_parse_stats(exact, size, &s, &err);
    if (rc != GD_OK && rc != GD_EINPUT)
        abort();
    if (rc == GD_OK) {
        if (s.nkernels < 0 || (s.nkernels > 0 && !s.kernels))
            abort();
        met_set m;
        memset(&m, 0, sizeof m);
        gsim_stats_to_metrics(&s, 12.5, &m);
    }
    gsim_stats_free(&s);
    gsim_power p;
    rc = gsim_parse_power(exact, size, &p, &err);
    if (rc != GD_OK && rc != GD_EINPUT)
        abort();
    gsim_power_free(&p);
    free(exact);

    char *text = fz_str(data, size);
    size_t half = size / 2;
    char *out = fz_str(data, half), *errt = text + half;
    char reason[256];
    int st = gsim_classify(out, errt, 1, size ? data[0] : 0, 0, 0, 0,
                           reason, sizeof reason);
    if (st < 0 || st >= 64 || strlen(reason) >= sizeof reason)
        abort();
    st = gsim_classify(text, "", 0, 0, 1, 11, 0, reason, sizeof reason);
    if (st < 0 || st >= 64)
        abort();
    char val[64];
    gsim_config_value(text, "-gpgpu_n_clusters", val, sizeof val);
    double mhz;
    gsim_core_clock_mhz(text, &mhz);
    char why[128];
    gsim_cache_string_check(text, why, sizeof why);
    free(out);
    free(text);
    return 0;
}
