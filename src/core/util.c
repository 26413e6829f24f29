/*
 * Shared private helpers (see util.h). Polite waiting follows what the
 * README ("Measured here", and the engine's notes on oversubscription)
 * reports: on a node with more ranks than cores a process spinning in MPI
 * progress steals the core from the process it waits for. Waiting here tests
 * the request (50 times at once, the answer is often immediate), then sleeps
 * between tests with a doubling back-off from 1 µs that stops growing once it
 * passes 1 ms (1.024 ms, the longest nap), so a waiting rank costs almost
 * nothing. (A 128 µs cap made clock tracking's refreshes 3x cheaper at 4
 * ranks on 2 cores, but the more frequent wake-ups disturbed the sync's
 * active pair: test_recover's 10 s extrapolation failed in CI.)
 * The public number parsers and the name registries' lookups are in parse.c
 * (no MPI there: the PMPI layers compile it in).
 */
#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "isochron.h"
#include "core/util.h"

void isochron_nap(double seconds)
{
    if (!(seconds > 0)) return;
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0) {}
}

/*
 * Under SimGrid (built with -DSMPI_ISOCHRON) waiting is different: all
 * simulated ranks share the simulator's host process, a busy loop burns host
 * time (every clock read or MPI_Test is a context switch into the simulator)
 * and only advances simulated time by what SMPI injects per call (10 ns per
 * clock read, 100 µs and growing per failed MPI_Test), and the simulated
 * cores never contend because computation is not simulated (sim/run.sh).
 * So there a polite wait is MPI_Wait (completion at the exact simulated
 * instant, one simcall), a wait for a time sleeps the simulated time left,
 * and no node is oversubscribed.
 */
void isochron_spin_until(double (*now)(void *), void *arg, double t)
{
#ifdef SMPI_ISOCHRON
    /* The clock may run slower than simulated time (injected drift), so
     * sleep what is left until a reading reaches t: a few rounds at most. */
    for (double left; (left = t - now(arg)) > 0;) isochron_nap(left > 1e-9 ? left : 1e-9);
#else
    while (now(arg) < t) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
#endif
}

/* SimGrid 3.32's non-blocking collectives cost host time superlinear in the
 * number of ranks (measured: a 128-rank hca3 sync took > 2 min against 11 s
 * at 64), so the polite collectives are the blocking ones there. */
#define SIM_BLOCKING 1

int isochron_wait_polite(MPI_Request *req, MPI_Status *st)
{
#ifdef SMPI_ISOCHRON
    if (MPI_Wait(req, st ? st : MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "MPI_Wait failed");
    return ISOCHRON_OK;
#endif
    int done = 0;
    double nap = 1e-6;
    for (int spins = 0;; spins++) {
        if (MPI_Test(req, &done, st ? st : MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return isochron_set_error(ISOCHRON_EMPI, "MPI_Test failed while waiting");
        if (done) return ISOCHRON_OK;
        if (spins < 50) continue; /* short spin first: the answer is often immediate */
        isochron_nap(nap);
        if (nap < 1e-3) nap *= 2;
    }
}

int isochron_wait_yield(MPI_Request *req)
{
#ifdef SMPI_ISOCHRON
    return isochron_wait_polite(req, NULL);
#endif
    int done = 0;
    for (;;) {
        if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return isochron_set_error(ISOCHRON_EMPI, "MPI_Test failed while waiting");
        if (done) return ISOCHRON_OK;
        sched_yield();
    }
}

int isochron_recv_polite(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm)
{
    MPI_Request r;
    if (MPI_Irecv(buf, count, dt, src, tag, comm, &r) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "MPI_Irecv failed");
    return isochron_wait_polite(&r, NULL);
}

int isochron_barrier_polite(MPI_Comm comm)
{
#ifdef SMPI_ISOCHRON
    if (SIM_BLOCKING) return MPI_Barrier(comm) == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "MPI_Barrier failed");
#endif
    MPI_Request r;
    if (MPI_Ibarrier(comm, &r) != MPI_SUCCESS) return isochron_set_error(ISOCHRON_EMPI, "MPI_Ibarrier failed");
    return isochron_wait_polite(&r, NULL);
}

int isochron_bcast_polite(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
#ifdef SMPI_ISOCHRON
    if (SIM_BLOCKING) return MPI_Bcast(buf, count, dt, root, comm) == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "MPI_Bcast failed");
#endif
    MPI_Request r;
    if (MPI_Ibcast(buf, count, dt, root, comm, &r) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "MPI_Ibcast failed");
    return isochron_wait_polite(&r, NULL);
}

int isochron_allreduce_polite(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
#ifdef SMPI_ISOCHRON
    if (SIM_BLOCKING) return MPI_Allreduce(sbuf, rbuf, count, dt, op, comm) == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "MPI_Allreduce failed");
#endif
    MPI_Request r;
    if (MPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, &r) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "MPI_Iallreduce failed");
    return isochron_wait_polite(&r, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void isochron_sort_doubles(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_double); }

double isochron_median(double *v, int n)
{
    if (n <= 0) return NAN;
    isochron_sort_doubles(v, n);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A node is oversubscribed when it runs more ranks than the union of the CPUs
 * its ranks may run on (their affinity masks). Collective over node. */
int isochron_node_oversubscribed(MPI_Comm node)
{
#ifdef SMPI_ISOCHRON
    (void)node;
    return 0; /* simulated cores do not contend (see isochron_spin_until) */
#endif
    int n;
    MPI_Comm_size(node, &n);
    enum { W = CPU_SETSIZE / (8 * sizeof(unsigned long)) };
    unsigned long mine[W], all[W];
    memset(mine, 0, sizeof mine);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) mine[c / (8 * sizeof(unsigned long))] |= 1ul << (c % (8 * sizeof(unsigned long)));
    }
    MPI_Allreduce(mine, all, W, MPI_UNSIGNED_LONG, MPI_BOR, node);
    int cpus = 0;
    for (int i = 0; i < W; i++) cpus += __builtin_popcountl(all[i]);
    return cpus > 0 && n > cpus;
}


int isochron_kernel_id(char *buf, size_t len)
{
    if (!buf || len < 37) return -1;
    buf[0] = 0;
#if defined(__linux__) && !defined(SMPI_ISOCHRON)
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return -1;
    int ok = fscanf(f, "%36s", buf) == 1 && strlen(buf) == 36;
    fclose(f);
    if (!ok) { buf[0] = 0; return -1; }
    return 0;
#else
    snprintf(buf, len, "%s", "simulated");
    return 0;
#endif
}

/* Oversubscription is a property of a kernel's CPUs, not of MPI's
 * shared-memory node: the "nodes" of containers or of tools/cluster (one
 * network and time namespace each) share one kernel's CPUs, and a rank polling
 * in one of them starves the others and the kernel's network path (measured:
 * 2 x 2 ranks on 2 cores, a sync of 16.7 s instead of 0.05 s until its pairs
 * took turns). So the ranks are grouped by boot_id. */
int isochron_comm_oversubscribed(MPI_Comm comm)
{
    MPI_Comm node;
    char id[40];
    unsigned color = 0;
    int me;
    MPI_Comm_rank(comm, &me);
    if (isochron_kernel_id(id, sizeof id) == 0)
        for (const char *c = id; *c; c++) color = color * 31u + (unsigned char)*c;
    MPI_Comm_split(comm, (int)(color & 0x7fffffffu), me, &node);
    int over = isochron_node_oversubscribed(node), any = 0;
    MPI_Comm_free(&node);
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

/* The first line of MPI_Get_library_version ("MPICH Version: 4.0.2", "Open MPI v4.1.4, package: ..."),
 * cut at the first comma; callable before MPI_Init (MPI-3.1 sec. 8.1.1). */
void isochron_mpi_library_name(char *out, size_t n)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS || !v[0]) snprintf(v, sizeof v, "an unknown MPI library");
    v[strcspn(v, "\n,\t")] = '\0';
    /* MPICH: "MPICH Version:      4.0.2" -> "MPICH 4.0.2" */
    char *p = strstr(v, "Version:");
    if (p) {
        char *q = p + strlen("Version:");
        while (*q == ' ') q++;
        memmove(p, q, strlen(q) + 1);
    }
    snprintf(out, n, "%s", v);
}
