/* repfork: one part of the report written by a forked child process while
 * this process writes another, so that the two cores of a small machine
 * both work (results.csv and the figure files beside report.pdf). The two
 * parts write disjoint files and each file is exactly what one process
 * would write. On a one-core machine, or where fork fails, the part runs
 * here and now instead. */
#ifndef GPUDSE_REPFORK_H
#define GPUDSE_REPFORK_H

#include <sys/types.h>
#include "util.h"

typedef struct {
    pid_t pid;          /* the child; -1 when the part ran here */
    int fd;             /* read end of the child's error pipe */
    int rc;             /* the part's return code when it ran here */
    gd_err err;         /* and its error */
} rep_fork;

/* Start fn(arg, err) in a child (or run it now, see above); the part's
 * result comes from rep_fork_wait. */
void rep_fork_start(rep_fork *f, int (*fn)(void *arg, gd_err *err),
                    void *arg);
/* Wait for the part: its return code, its error (or the child's death)
 * in err. */
int rep_fork_wait(rep_fork *f, gd_err *err);

#endif
