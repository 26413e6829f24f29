/*
 * Internal interface of libisochron-trace.so (src/trace/): the PMPI wrappers
 * are generated for the layer prefix "itr" by tools/gen-pmpi.py from
 * src/pmpi/mpi.tbl, the table the collective-clocks layer uses too (see
 * src/pmpi/pmpi.h); their hooks itr_enter/itr_leave and the flag itr_bypass
 * live in trace.c, which owns the state; write_json.c and write_otf2.c are
 * the reporters, run on rank 0 at MPI_Finalize.
 */
#ifndef ISOCHRON_TRACE_INTERNAL_H
#define ISOCHRON_TRACE_INTERNAL_H
#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include <time.h>
#include "isochron/sync.h"
#include "isochron/timer.h"
#include "isochron/trace.h"
#include "core/util.h"
#include "pmpi/pmpi.h"
#include "pmpi/isochron_pmpi_ids.h" /* generated in the build tree from mpi.tbl */

/* Everything below is internal to the library (hidden): the generated wrappers then call the hooks and
 * read the flags directly, not through the PLT and the GOT (a few ns per traced call). */
#pragma GCC visibility push(hidden)

/* One recorded call, as kept during the run (local timer readings). */
typedef struct {
    double t0, t1;     /* trace timer (this rank's local clock) at entry and exit */
    int64_t bytes;     /* count x type size, -1 unknown */
    int16_t call;      /* ISOCHRON_PMPI_ID_* (line of src/pmpi/mpi.tbl) */
    int16_t comm;      /* index in the rank's communicator table, -1 none */
    int32_t rank;      /* the root of a call in a rooted category (coll, icoll, commcreate: local_leader),
                          else the peer (dest, source, target rank) as passed; -1 none */
} itr_event_t;         /* 32 bytes, two a cache line: the buffer's writes are most of a traced call's cost */
_Static_assert(sizeof(itr_event_t) == 32 && ISOCHRON_PMPI_NIDS < 32768, "itr_event_t: 32 bytes, ids in int16");

/* One event as written: global and local times (s). */
typedef struct {
    double g0, g1, l0, l1;
    int64_t bytes;
    int32_t call, comm_size;
    int32_t comm_id;   /* 0 = MPI_COMM_WORLD, k > 0: the k-th other communicator this rank saw, -1 none */
    int32_t instance;  /* n-th call of this function on this rank (0-based) */
    int32_t peer, root; /* -1: none (see itr_event_t.rank) */
} itr_out_t;

/* the traced functions by id: name and category ("coll", "p2p", ... of mpi.tbl); name NULL: not wrapped */
typedef struct { const char *name, *kind; int category; } itr_call_info_t;
extern itr_call_info_t itr_calls[ISOCHRON_PMPI_NIDS];

extern int itr_on;                       /* 1 while recording application calls */
extern unsigned char itr_mask[ISOCHRON_PMPI_NIDS];
extern isochron_timer_t *itr_timer;
extern int itr_fast_mono;                /* 1: the trace timer is the unskewed "monotonic": read it inline */
static inline double itr_now(void)
{
    if (itr_fast_mono) return isochron_gettime(CLOCK_MONOTONIC); /* isochron_timer_now's value on "monotonic", one call less */
    return isochron_timer_now(itr_timer);
}
int64_t itr_bytes(int count, MPI_Datatype t);
int itr_comm_index(MPI_Comm c);

/* The recording buffer (trace.c): a call beyond cap is written to itr_sink and counted as dropped. */
typedef struct { itr_event_t *ev; long n, cap, dropped; } itr_buf_t;
extern itr_buf_t itr_buf;
extern itr_event_t itr_sink;

/* The hooks of the generated wrappers (layer "itr": tools/gen-pmpi.py --hooks trace/trace_internal.h;
 * src/pmpi/pmpi.h). Inline, so each wrapper keeps only what it needs of the call record (the id and
 * category are constants there): a call not recorded costs a flag and a mask test; a recorded one
 * reserves its slot and reads the timer last on entry, reads it first on exit, then hands the rest
 * (bytes, communicator, peer, root) to itr_end_event, and a blocking collective on MPI_COMM_WORLD
 * polls the tracker (itr_coll_world). */
extern volatile int itr_bypass;          /* 1: the wrappers pass straight to PMPI (the tracer's own traffic) */
void itr_enter_slow(int id, int category, MPI_Comm comm);
int itr_leave_slow(int id, int rc);
void itr_end_event(itr_event_t *e, int id, MPI_Comm comm, int count, MPI_Datatype type, int rank);
void itr_end_commfree(itr_event_t *e, int id);
void itr_coll_world(void);               /* a blocking collective on MPI_COMM_WORLD ended: poll the tracker? */

static inline __attribute__((always_inline)) void itr_enter(isochron_pmpi_call_t *c)
{
    if (!(itr_on & itr_mask[c->id])) { /* not recorded (MPI_Init, MPI_Init_thread, MPI_Finalize never are) */
        c->layer = NULL;
        if (c->id == ISOCHRON_PMPI_ID_MPI_Finalize || c->category == ISOCHRON_PMPI_COMMFREE)
            itr_enter_slow(c->id, c->category, c->comm);
        return;
    }
    itr_event_t *e = &itr_sink;
    if (itr_buf.n < itr_buf.cap) e = &itr_buf.ev[itr_buf.n++];
    else itr_buf.dropped++;
    if (c->category == ISOCHRON_PMPI_COMMFREE) e->comm = itr_comm_index(c->comm); /* while the handle is valid */
    c->layer = e;
    e->t0 = itr_now();
}

static inline __attribute__((always_inline)) int itr_leave(isochron_pmpi_call_t *c, int rc)
{
    itr_event_t *e = (itr_event_t *)c->layer;
    if (!e) return c->category == ISOCHRON_PMPI_INIT ? itr_leave_slow(c->id, rc) : rc;
    e->t1 = itr_now();
    /* bytes: the block this rank sends (count x datatype as the call record pairs them); in a scatter
     * the send side counts at the root only, so there the block received */
    int scatter = c->id == ISOCHRON_PMPI_ID_MPI_Scatter || c->id == ISOCHRON_PMPI_ID_MPI_Iscatter;
    if (c->category == ISOCHRON_PMPI_COMMFREE) {
        itr_end_commfree(e, c->id);
        return rc;
    }
    itr_end_event(e, c->id, c->comm, scatter ? c->recvcount : c->count, scatter ? c->recvtype : c->datatype,
                  c->root != -1 ? c->root : c->peer);
    if (c->category == ISOCHRON_PMPI_COLL && c->comm == MPI_COMM_WORLD) itr_coll_world();
    return rc;
}

/* What the writers get (rank 0). */
typedef struct {
    int nranks;
    const int64_t *counts;     /* events per rank */
    const itr_out_t *ev;       /* all events, rank-major */
    double gmin, gmax;         /* global time span (s) */
    int nmeta;
    const char *const *meta_keys; /* metadata, key/value strings */
    const char *const *meta_vals;
    const itr_call_info_t *calls; /* name, kind and category by call id (ISOCHRON_PMPI_NIDS): given, not
                                   * read from trace.c's itr_calls, so the writers need nothing of trace.c */
} itr_trace_t;

int itr_write_json(const char *path, const itr_trace_t *t);
/* 0, or -1 (itr_write_json: errno says why; itr_write_otf2: why, whylen bytes, says it) */
int itr_write_otf2(const char *dir, const char *name, const itr_trace_t *t, char *why, size_t whylen);
void itr_comm_label(const itr_out_t *e, char *buf, size_t len);
/* The settings (trace_settings.c): checked at MPI_Init, applied by trace.c's setup(). */
#define ITR_DIR_MAX 2048  /* bytes of ISOCHRON_TRACE_DIR: with a name, room for the OTF2 archive's paths in 4096 */
#define ITR_NAME_MAX 200  /* bytes of ISOCHRON_TRACE_NAME: NAME.json, NAME/NAME.otf2 stay under NAME_MAX (255) */
typedef struct {
    int track, list;
    long max_events;
    double min_interval, sync_limit;
    const char *sync;                /* "none" or a spec (parsed into spec) */
    isochron_sync_spec_t spec;
    isochron_skew_spec_t skew;
    char dir[ITR_DIR_MAX + 1], name[ITR_NAME_MAX + 1], timer_name[64], skew_text[256];
    int json, otf2, poll_every;
} itr_settings_t;

int itr_traceable(const itr_call_info_t *calls, int i);   /* wrapped, and not MPI_Init/_thread/Finalize */
/* Every ISOCHRON_TRACE_* setting into *o and mask (the calls traced, by id); -1 with the message in err */
int itr_check_settings(itr_settings_t *o, int rank, const itr_call_info_t *calls, unsigned char *mask, char *err, size_t len);
/* The sync spec's estimated duration against ISOCHRON_TRACE_SYNC_LIMIT (collective); err "" or why (rank 0) */
void itr_check_sync_limit(const itr_settings_t *o, int rank, int size, char *err, size_t len);
#pragma GCC visibility pop
#endif
