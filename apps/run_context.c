/*
 * The run context of a driver's records: where the ranks ran and how (host names, MPI library, Slurm job,
 * each rank's CPU binding, the command line), gathered collectively into the context's "run" object
 * (written by the report module), and --bind, which may change that binding first (issue 12: binding is
 * one of the causes of launch-to-launch spread, so a result says whether its ranks were bound).
 */
#include <errno.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "common.h"

/* This process's CPU binding as a cpulist ("0", "0-1,3"), "unbound" when it may run on every
 * online CPU, or "unknown" where the affinity cannot be read (issue 12: binding is one of the
 * causes of launch-to-launch spread, so a result says whether its ranks were bound). */
#define APP_BIND_LEN 64
static void app_binding(char *out)
{
    snprintf(out, APP_BIND_LEN, "unknown");
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online > 0 && CPU_COUNT(&set) >= online) { snprintf(out, APP_BIND_LEN, "unbound"); return; }
    size_t used = 0;
    out[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && used < APP_BIND_LEN - 12; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) e++;
        used += (size_t)(e > c ? snprintf(out + used, APP_BIND_LEN - used, "%s%d-%d", used ? "," : "", c, e)
                               : snprintf(out + used, APP_BIND_LEN - used, "%s%d", used ? "," : "", c));
        c = e;
    }
#endif
}

/* The run's facts (collective: host names and bindings from every rank), as the "run" object of the context
 * (rank 0; NULL elsewhere; free it). The object is the report module's (isochron_report_run_json). */
char *app_context_json(MPI_Comm comm, int argc, char **argv)
{
    int rank, size, len;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(name, &len);
    char *all = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
    char bind[APP_BIND_LEN];
    app_binding(bind);
    char *binds = rank == 0 ? calloc((size_t)size, APP_BIND_LEN) : NULL;
    MPI_Gather(bind, APP_BIND_LEN, MPI_CHAR, binds, APP_BIND_LEN, MPI_CHAR, 0, comm);
    const char **hosts = rank == 0 ? calloc((size_t)size, sizeof *hosts) : NULL;
    const char **bindv = rank == 0 ? calloc((size_t)size, sizeof *bindv) : NULL;
    if (rank != 0 || !hosts || !bindv) { free(all); free(binds); free(hosts); free(bindv); return NULL; }
    for (int i = 0; i < size; i++) {
        hosts[i] = all ? all + (size_t)i * MPI_MAX_PROCESSOR_NAME : "";
        bindv[i] = binds ? binds + (size_t)i * APP_BIND_LEN : "unbound";
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    MPI_Get_library_version(lib, &len);
    for (int i = 0; i < len; i++) if (lib[i] == '\n') { lib[i] = 0; break; }
    int ver, sub;
    MPI_Get_version(&ver, &sub);
    char mv[32];
    snprintf(mv, sizeof mv, "%d.%d", ver, sub);
    /* the Slurm job the run belongs to, when launched by srun/sbatch (rank 0's view) */
    static const char *const sv[][2] = {{"job_id", "SLURM_JOB_ID"}, {"step_id", "SLURM_STEP_ID"}, {"nodelist", "SLURM_JOB_NODELIST"},
                                        {"nnodes", "SLURM_JOB_NUM_NODES"}, {"ntasks", "SLURM_NTASKS"}, {"cluster", "SLURM_CLUSTER_NAME"}};
    const char *slurm[2 * sizeof sv / sizeof sv[0] + 1];
    int ns = 0;
    for (size_t i = 0; getenv("SLURM_JOB_ID") && i < sizeof sv / sizeof sv[0]; i++)
        if (getenv(sv[i][1])) { slurm[ns++] = sv[i][0]; slurm[ns++] = getenv(sv[i][1]); }
    slurm[ns] = NULL;
    char cmd[2048] = "";
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof cmd - 2; i++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, "%s%s", i ? " " : "", argv[i]);
    isochron_run_info_t info = {name, size, all ? hosts : NULL, lib, mv, ns ? slurm : NULL, binds ? bindv : NULL, cmd};
    char *json = isochron_report_run_json(&info);
    free(all);
    free(binds);
    free(hosts);
    free(bindv);
    return json;
}

/* --bind auto|off. On a node that runs more ranks than it has CPUs, Open MPI
 * (and MPICH's hydra always) leaves ranks unbound, and the kernel moves them
 * between cores at will: a rank that migrates at a start time starts late.
 * auto binds each rank of such a node, when every rank there is unbound, to
 * one CPU, node-local rank r to the (r mod CPUs)-th CPU of its mask, so each
 * core has a fixed set of ranks. Measured on the default sweep at 4 ranks on
 * 2 cores with --retries 0, 12 interleaved rounds: points below 90 % valid
 * 6-32 (median 12.5) against 6-48 (median 21.5) unbound, per-point medians
 * 0.92-0.95x; with the default --retries 3 both leave 0-5, and the sweep's wall
 * time was not resolved by 6 rounds (bench/results/bind-*). Under MPICH, which
 * busy-polls, two ranks pinned to one CPU hand over only at the end of a time
 * slice: a 3-rank CLI test took 58 s bound against 8.8 s unbound. So it is not
 * the default (--bind off); auto is for an MPI that yields. A node that is
 * not oversubscribed, or whose launcher bound anything, is left alone. A
 * failed bind is reported, not fatal: the ranks run unbound as before.
 * Collective over comm; *bound = 1 when this call bound the ranks. */
int app_bind(const char *prog, const char *v, MPI_Comm comm, int rank, int *bound)
{
    *bound = 0;
    if (v && strcmp(v, "auto") && strcmp(v, "off")) {
        if (rank == 0) fprintf(stderr, "%s: --bind '%s': expected auto or off\n", prog, v);
        return 2;
    }
#if defined(__linux__) && !defined(SMPI_ISOCHRON)
    if (!v || !strcmp(v, "off")) return 0; /* off is the default */
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int lrank, nlocal;
    MPI_Comm_rank(node, &lrank);
    MPI_Comm_size(node, &nlocal);
    cpu_set_t set;
    CPU_ZERO(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int ok = sched_getaffinity(0, sizeof set, &set) == 0, cpus = ok ? CPU_COUNT(&set) : 0;
    int unbound = ok && online > 0 && cpus >= online, all_unbound = 0, done = 0, all_done = 0;
    MPI_Allreduce(&unbound, &all_unbound, 1, MPI_INT, MPI_MIN, node);
    int act = all_unbound && nlocal > cpus, any_act = 0;
    if (act) {
        int want = lrank % cpus, k = -1;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set) && ++k == want) {
                cpu_set_t one;
                CPU_ZERO(&one);
                CPU_SET(c, &one);
                done = sched_setaffinity(0, sizeof one, &one) == 0;
                break;
            }
    }
    MPI_Allreduce(&act, &any_act, 1, MPI_INT, MPI_MAX, comm);
    int mine = act ? done : 1;
    MPI_Allreduce(&mine, &all_done, 1, MPI_INT, MPI_MIN, comm);
    MPI_Comm_free(&node);
    if (any_act && !all_done && rank == 0)
        fprintf(stderr, "%s: note: --bind auto: binding a rank of an oversubscribed node to one CPU failed (%s); ranks run unbound\n", prog, strerror(errno));
    *bound = any_act && all_done;
#else
    (void)comm; (void)rank;
#endif
    return 0;
}

isochron_report_run_head_t app_run_head(const char *tool, const char *run_json, const app_clock_t *c, int nprocs, int nodes,
                                        int oversubscribed)
{
    return (isochron_report_run_head_t){tool, run_json, c->json, isochron_timer_name(c->timer), nprocs, nodes, oversubscribed};
}
