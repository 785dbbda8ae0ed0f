/* be_split: the table of split-study backends (be_split.h): costmodel,
 * measure-cpu, measure-cuda, in that order (a split run's backend index). */
#include "be_split.h"

#include <string.h>

static const be_split backends[] = {
    {"costmodel", "PREDICTED(costmodel)", "modelled", NULL, "", 0, NULL, NULL,
     NULL, NULL, NULL},
    {"measure-cpu", "MEASURED(cpu)", "measured", "cpu", " (probe=\"yes\")", 1,
     NULL, NULL, ms_run_cpu, ms_link_cpu, NULL},
    {"measure-cuda", "MEASURED(cuda)", "measured", "cuda", "", 0,
     ms_cuda_devices, "no CUDA device: skipped", ms_run_cuda, NULL,
     ms_copy_cuda},
};

#define NBACKENDS ((int)(sizeof backends / sizeof backends[0]))

const be_split *be_split_at(int i)
{
    return i >= 0 && i < NBACKENDS ? &backends[i] : NULL;
}

int be_split_index(const char *name)
{
    for (int i = 0; name && i < NBACKENDS; i++)
        if (!strcmp(name, backends[i].name))
            return i;
    return -1;
}

const be_split *be_split_find(const char *name)
{
    return be_split_at(be_split_index(name));
}
