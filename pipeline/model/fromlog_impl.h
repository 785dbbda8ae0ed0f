/* fromlog_impl: what fromlog.c (the log's counters into a descriptor) and
 * fromlog_anchor.c (the parameters fitted to the log's cycles) share; not
 * for other modules. */
#ifndef GPUDSE_FROMLOG_IMPL_H
#define GPUDSE_FROMLOG_IMPL_H

#include "fromlog.h"
#include "model.h"

/* -icnt_in_buffer_limit 64 (config_fermi_islip.icnt): an input buffer that
 * drains one flit per cycle holds a request at most this long unless the
 * output it heads for is saturated. */
#define ICNT_IN_BUFFER_FLITS 64.0

/* The model's outputs for kernel k alone at config c into o; 0, or -1. */
int fl_kernel_eval(const wl_kernel *k, const gpu_config *c, model_out *o);

/* Partition camping of kernel k from the log: util is the partition-level
 * parallelism per cycle, icnt2mem the request network's wait per cycle. */
void fl_infer_store_camping(wl_kernel *k, const gpu_config *c, double util,
                            double icnt2mem);

/* Fits k's free parameters so the model's cycles at c reach target;
 * sfu_given: --mix set the SFU count; net_saturated: the network waits
 * say a saturated slice. */
void fl_anchor(wl_kernel *k, const gpu_config *c, double target,
               int sfu_given, int net_saturated);

#endif
