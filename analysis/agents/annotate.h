/* annotate: the annotate stage of a run directory (annotations.json) and
 * its command, `gpudse annotate DIR`. */
#ifndef GPUDSE_ANNOTATE_H
#define GPUDSE_ANNOTATE_H

#include "util.h"

/* Read DIR/campaign.xml, DIR/results.jsonl and DIR/analysis.json; write
 * DIR/annotations.json (atomically). Provider failures are recorded in the
 * file and fall back to rules; only bad inputs or I/O fail. */
int agents_annotate(const char *rundir, gd_err *err);

#endif
