/* mfloop_page: the report's "Verification loop" page (multi-fidelity
 * campaigns with <verify rounds=>): per round, predicted (modelled) against
 * measured, and the best measured config. */
#ifndef GPUDSE_MFLOOP_PAGE_H
#define GPUDSE_MFLOOP_PAGE_H

#include "doc.h"
#include "rundata.h"

/* Nothing when no workload of the run has a verification loop. */
void rep_mfloop_page(rep_doc *d, const rep_run *run);

#endif
