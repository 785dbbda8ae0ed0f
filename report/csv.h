/* csv: writes DIR/results.csv, one row per job record, for pandas and R. */
#ifndef GPUDSE_CSV_H
#define GPUDSE_CSV_H

#include <stddef.h>
#include "rundata.h"

/* Rows are written one workload at a time (rep_run_each). */
int rep_csv_write(rep_run *run, gd_err *err);

/* A number as results.csv writes it (exact round trip; NaN, Inf, -Inf). */
void rep_csv_number(double v, char *out, size_t n);

#endif
