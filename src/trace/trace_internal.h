/*
 * Internal interface of libisochron-trace.so (src/trace/): the generated PMPI
 * wrappers (wrappers.c, from src/trace/mpi_calls.tbl) call the inline hooks
 * below; trace.c owns the state; write_json.c and write_otf2.c are the
 * reporters, run on rank 0 at MPI_Finalize.
 */
#ifndef ISOCHRON_TRACE_INTERNAL_H
#define ISOCHRON_TRACE_INTERNAL_H
#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include <time.h>
#include "isochron/timer.h"
#include "isochron/trace.h"
#include "trace/trace_calls.h"

/* One recorded call, as kept during the run (local timer readings). */
typedef struct {
    double t0, t1;     /* trace timer (this rank's local clock) at entry and exit */
    int64_t bytes;     /* count x type size, -1 unknown */
    int32_t call;      /* ITR_* */
    int32_t comm;      /* index in the rank's communicator table, -1 none */
} itr_event_t;

/* One event as written: global and local times (s). */
typedef struct {
    double g0, g1, l0, l1;
    int64_t bytes;
    int32_t call, comm_size;
    int32_t comm_id;   /* 0 = MPI_COMM_WORLD, k > 0: the k-th other communicator this rank saw, -1 none */
    int32_t instance;  /* n-th call of this function on this rank (0-based) */
} itr_out_t;

typedef struct { const char *name, *kind; } itr_call_info_t;
extern const itr_call_info_t itr_calls[ITR_NCALLS];

extern int itr_on;                       /* 1 while recording application calls */
extern unsigned char itr_mask[ITR_NCALLS];
extern isochron_timer_t *itr_timer;

static inline int itr_want(int id) { return itr_on & itr_mask[id]; }
extern int itr_fast_mono;                /* 1: the trace timer is the unskewed "monotonic": read it inline */
static inline double itr_now(void)
{
    if (itr_fast_mono) {                 /* the same value as isochron_timer_now on "monotonic", one call less */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    return isochron_timer_now(itr_timer);
}
int64_t itr_bytes(int count, MPI_Datatype t);
void itr_record(int id, double t0, double t1, MPI_Comm comm, int64_t bytes, int coll);

/* What the writers get (rank 0). */
typedef struct {
    int nranks;
    const int64_t *counts;     /* events per rank */
    const itr_out_t *ev;       /* all events, rank-major */
    double gmin, gmax;         /* global time span (s) */
    int nmeta;
    const char *const *meta_keys; /* metadata, key/value strings */
    const char *const *meta_vals;
} itr_trace_t;

int itr_write_json(const char *path, const itr_trace_t *t);
int itr_write_otf2(const char *dir, const char *name, const itr_trace_t *t);
void itr_comm_label(const itr_out_t *e, char *buf, size_t len);
#endif
