/*
 * Private helpers shared by the modules: error setting, registries read by
 * name (find, list the valid names), and polite MPI
 * waiting (test + sleep instead of spinning, so that a process waiting its
 * turn does not starve the ones working on an oversubscribed node). Number
 * parsing is public (isochron.h); it and the registry lookups are in
 * parse.c, which calls no MPI. The lowest module: it includes nothing of
 * libisochron but isochron.h.
 */
#ifndef ISOCHRON_CORE_UTIL_H
#define ISOCHRON_CORE_UTIL_H
#include <mpi.h>
#include <stddef.h>
#include <time.h>

int isochron_set_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Case-insensitive equality. */
int isochron_streq_ci(const char *a, const char *b);

/* Registries of named entries (schemes, methods, barriers, operations, datatypes, ...), read through
 * their names: at(reg, i) is the name of entry i, 0 <= i < n. */
typedef const char *(*isochron_name_at_fn)(const void *reg, int i);
/* at() of a plain array of strings. */
const char *isochron_name_at_string(const void *reg, int i);
/* The index of the entry called NAME (case-insensitive); -1 if there is none or NAME is NULL. */
int isochron_names_find(const void *reg, int n, isochron_name_at_fn at, const char *name);
/* The names joined by ", " into buf (len bytes, cut to fit, terminated when len > 0); returns the length
 * of the whole list, so a caller can size its buffer with a first call (buf NULL, len 0). */
size_t isochron_names_join(const void *reg, int n, isochron_name_at_fn at, char *buf, size_t len);
/* The public count and get accessors of a registry of N entries, from one template (every registry with
 * count/get uses it: timers, estimators, sync algorithms, barriers, schemes, methods, timings): get returns
 * ENTRY, the public descriptor T of entry i (an expression in i), or NULL out of range. ENTRY is one of:
 *   ISOCHRON_REGISTRY_ENTRY(TABLE): TABLE is an array of public descriptors T;
 *   ISOCHRON_REGISTRY_VIEW(TABLE, SLOTS): TABLE is an array of pointers to private descriptors whose first
 *     members are name and description, seen through the public T {name, description} kept in SLOTS, an
 *     array of N T. */
#define ISOCHRON_REGISTRY_ACCESSORS(COUNT_FN, GET_FN, T, N, ENTRY)                         \
    int COUNT_FN(void) { return (N); }                                                    \
    const T *GET_FN(int i) { return i >= 0 && i < (N) ? (ENTRY) : NULL; }
#define ISOCHRON_REGISTRY_ENTRY(TABLE) (&(TABLE)[i])
#define ISOCHRON_REGISTRY_VIEW(TABLE, SLOTS) \
    ((SLOTS)[i].name = (TABLE)[i]->name, (SLOTS)[i].description = (TABLE)[i]->description, &(SLOTS)[i])

/* Is s a well-formed comma-separated list: not empty, no empty element ("a,,b", ",a", "a,", ",")?
 * 0, or -1 with the reason in err. The generic part of the drivers' list check (apps/options.c
 * app_list_ok) and of the PMPI layers' list settings (settings.h). In parse.c. */
int isochron_list_ok(const char *s, char *err, size_t errlen);

/* A clock_gettime(2) reading in seconds (CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, ...). The timers read it
 * (src/timer: timer.c, and tsc.c, which calibrates against it: below both, so neither depends on the
 * other) and so does the tracer's inline fast path (trace_internal.h); inline, as a timer read is. */
static inline double isochron_gettime(clockid_t which)
{
    struct timespec ts;
    clock_gettime(which, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sleep for \p seconds (nanosleep, resumed when interrupted); yields the core.
 * The timer module's public isochron_sleep is this. */
void isochron_nap(double seconds);

/* Wait until now(arg) >= t: natively a busy wait (microsecond wake-up for
 * the callers that need it); under SimGrid a sleep of the simulated time left. */
void isochron_spin_until(double (*now)(void *), void *arg, double t);

/* 1 if isochron_truth_now() reads one clock for all ranks of a job, not
 * only for the ranks of one host: under SimGrid it is the simulated time. */
#ifdef SMPI_ISOCHRON
#define ISOCHRON_TRUTH_GLOBAL 1
#else
#define ISOCHRON_TRUTH_GLOBAL 0
#endif

/* Complete a request, sleeping between tests (polite; under SimGrid MPI_Wait). */
int isochron_wait_polite(MPI_Request *req, MPI_Status *st);
int isochron_recv_polite(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm);
int isochron_barrier_polite(MPI_Comm comm);
int isochron_bcast_polite(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int isochron_allreduce_polite(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);

/* The MPI library and its version in a few words ("MPICH 4.0.2", "Open MPI v4.1.4"), for sentences refusing what
 * it lacks; callable before MPI_Init. */
void isochron_mpi_library_name(char *out, size_t n);

/* 1 if this node runs more ranks than the CPUs they may use. Collective over node. */
int isochron_node_oversubscribed(MPI_Comm node);
/* The kernel's identity (/proc/sys/kernel/random/boot_id) in buf (>= 37 bytes): 0, or -1 when unknown. */
int isochron_kernel_id(char *buf, size_t len);
/* 1 on every rank of comm if the ranks sharing a kernel (boot_id) anywhere
 * outnumber the CPUs they may use. Collective over comm. */
int isochron_comm_oversubscribed(MPI_Comm comm);

/* Complete a request testing and yielding the CPU between tests: for waits
 * that must end within microseconds on an oversubscribed node (a sleep would
 * be too slow to wake, a plain spin would starve the rank being waited for). */
int isochron_wait_yield(MPI_Request *req);

/* Sort doubles ascending in place. */
void isochron_sort_doubles(double *v, int n);
double isochron_median(double *v, int n); /* sorts v */

#endif
