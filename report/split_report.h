/* split_report: report.pdf of a split-study run directory, rendered from
 * its files alone (campaign.xml, manifest.json, results.jsonl,
 * split-analysis.json, machines/; read back by splitdir.c's sp_run_load).
 * rep_render (report.h) calls it for a split run, as `gpudse run` and
 * `gpudse report DIR` do: the same files give the same bytes. */
#ifndef GPUDSE_SPLIT_REPORT_H
#define GPUDSE_SPLIT_REPORT_H

#include "split.h"

/* report.pdf of a split run read back. */
int split_report(const sp_run *r, const char *path, gd_err *err);
/* DIR/report.pdf from DIR's files. */
int split_report_dir(const char *dir, gd_err *err);

#endif
