/* execif: the executors by name, and the one place where the command line
 * is weighed against the campaign for where and how wide jobs run. */
#include "execif.h"

#include <string.h>
#include <unistd.h>

const exec_ops *exec_find(const char *name)
{
    const exec_ops *all[] = {exec_local_ops(), exec_slurm_ops()};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

void exec_choose(const camp_campaign *c, const char *cli_executor,
                 int cli_jobs, exec_choice *out)
{
    if (cli_executor)
        out->executor = cli_executor;
    else if (c->cluster.executor[0])
        out->executor = c->cluster.executor;
    else
        out->executor = "local";
    int jobs = cli_jobs != 0 ? cli_jobs : c->jobs;
    if (jobs > 0) {
        out->workers = jobs;
    } else {  /* 0 (or -j 0): one per online core */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        out->workers = n > 0 ? (int)n : 1;
    }
}
