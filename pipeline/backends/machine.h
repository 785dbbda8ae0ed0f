/* machine: machine descriptors for the split cost model — reading and
 * writing templates/machines/NAME.xml (every number with its provenance:
 * spec, estimated or measured), finding presets by name, and
 * `gpudse machine probe`, which describes this machine's cores as devices
 * from measurement. */
#ifndef GPUDSE_MACHINE_H
#define GPUDSE_MACHINE_H

#include "costmodel.h"
#include "util.h"

/* Load a machine file; errors name FILE:LINE (GD_EINPUT). */
int mach_load_file(const char *path, cm_machine *m, gd_err *err);
/* Load a preset by name from <datadir>/machines/NAME.xml, or a path when
 * the name contains '/' or ends in .xml. */
int mach_load(const char *name_or_path, cm_machine *m, gd_err *err);
/* Serialise to XML text (deterministic). */
void mach_to_xml(const cm_machine *m, util_buf *out);
int mach_save(const cm_machine *m, const char *path, gd_err *err);

/* "1,2.5" into 1..CM_MAXDEV slowdown factors, each >= 1; -1 when the text
 * is empty or any factor is not a number >= 1. */
int mach_parse_factors(const char *s, double *f, int *n);

/* The --slowdown option's value (parseopt's callback: value points at a
 * mach_factors): GD_OK, or GD_EINPUT saying what factors are wanted. */
typedef struct {
    double f[CM_MAXDEV];
    int n;
} mach_factors;
int mach_factors_opt(void *value, const char *arg, gd_err *err);

/* Probe this machine: ndev worker threads as devices (0: one per online
 * core), slowdown[i] induced on device i (NULL: none). Every number it
 * measures is labelled measured. */
int mach_probe(int ndev, const double *slowdown, cm_machine *m, gd_err *err);

/* gpudse machine probe [-o FILE] [--devices N] [--slowdown a,b,..]
 * gpudse machine show NAME|FILE */
int cmd_machine(int argc, char **argv);

#endif
