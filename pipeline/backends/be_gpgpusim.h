/* be_gpgpusim: the GPGPU-Sim job backend — per job, the rewritten
 * gpgpusim.config and interconnect file in the job directory, the workload's
 * program run there with the simulator's libcudart first on
 * LD_LIBRARY_PATH, then its statistics and power report read into metrics
 * and its failures classified. */
#ifndef GPUDSE_BE_GPGPUSIM_H
#define GPUDSE_BE_GPGPUSIM_H

#include <stddef.h>

/* The backend itself, be_gpgpusim, is declared in backend_impl.h for
 * backend.c's table. */

/* Folders under root holding libcudart.so*, ':'-joined into out ("" when
 * none). */
void be_gpgpusim_libdirs(const char *root, char *out, size_t n);

#endif
