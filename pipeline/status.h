/* status: `gpudse status DIR` — a run's progress from its files alone, while
 * it runs or after: planned and finished jobs, failures by class, per
 * workload, and whether a gpudse holds the run directory now. */
#ifndef GPUDSE_STATUS_H
#define GPUDSE_STATUS_H

int cmd_status(int argc, char **argv);

#endif
