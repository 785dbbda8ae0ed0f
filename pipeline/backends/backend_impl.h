/* backend_impl: the backends that backend.c's table (be_find) lists and
 * that are defined in files of their own; private to the backends module
 * and those files, so that backend.c needs no header of theirs and each
 * backend file stands on backend.h (no include cycle). */
#ifndef GPUDSE_BACKEND_IMPL_H
#define GPUDSE_BACKEND_IMPL_H

#include "backend.h"

/* The GPGPU-Sim job backend (be_gpgpusim.c). */
extern const be_backend be_gpgpusim;

#endif
