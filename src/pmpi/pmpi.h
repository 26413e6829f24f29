/* isochron PMPI layer interface: the call record and the hooks a layer
 * implements around every wrapped MPI function.
 *
 * Design. One table (src/pmpi/mpi.tbl: category | return type | name |
 * parameters, MPI-3.1 signatures) lists the interposed functions; the
 * generator tools/gen-pmpi.py turns it into C wrappers for one named layer
 * (prefix P). Each wrapper
 *   1. returns PMPI_<f>(...) at once when the layer's flag `P_bypass` is
 *      nonzero (native mode, or the layer itself talking MPI);
 *   2. fills an isochron_pmpi_call_t on the stack (fields below, set by
 *      designated initializers; a field that the function has no parameter
 *      for keeps its "absent" value);
 *   3. calls `void P_enter(isochron_pmpi_call_t *)`, then the PMPI_ call,
 *      then `int P_leave(isochron_pmpi_call_t *, int rc)` whose result is
 *      what the application gets.
 * A layer that writes some wrappers by hand passes their names to the
 * generator (--skip), which then emits nothing for them. The generated file
 * also carries `const isochron_pmpi_entry_t P_wrapped[]` (every name it
 * wraps) and `P_nwrapped`, so a test can check coverage.
 * Layers must call PMPI_ (never MPI_) for their own traffic, or set P_bypass.
 * This is the interposition scheme of the collective-clocks paper
 * (papers/003, section 4: wrappers around every collective, MPI_I* included).
 */
#ifndef ISOCHRON_PMPI_H
#define ISOCHRON_PMPI_H

#include <mpi.h>

/* Categories of mpi.tbl, in this order. */
enum isochron_pmpi_category {
    ISOCHRON_PMPI_COLL = 0,     /* blocking collective */
    ISOCHRON_PMPI_ICOLL,        /* non-blocking collective initiation */
    ISOCHRON_PMPI_PERSIST,      /* persistent requests, Start/Startall */
    ISOCHRON_PMPI_COMMCREATE,   /* communicator creation */
    ISOCHRON_PMPI_GROUP,        /* group creation/free */
    ISOCHRON_PMPI_COMMFREE,     /* communicator free/disconnect */
    ISOCHRON_PMPI_WAIT,         /* Wait/Test families, Request_free */
    ISOCHRON_PMPI_P2P,          /* blocking point-to-point */
    ISOCHRON_PMPI_IP2P,         /* non-blocking point-to-point initiation */
    ISOCHRON_PMPI_PROBE,        /* probes, matched receives */
    ISOCHRON_PMPI_INIT,         /* Init, Init_thread, Finalize */
    ISOCHRON_PMPI_RMA,          /* one-sided: window create/free, fence, lock, Put/Get/Accumulate */
    ISOCHRON_PMPI_NCATEGORIES
};

typedef struct isochron_pmpi_call {
    int id;                   /* ISOCHRON_PMPI_ID_<name>: line order in mpi.tbl */
    const char *name;         /* "MPI_Allreduce" */
    int category;             /* enum isochron_pmpi_category */
    MPI_Comm comm;            /* comm / comm_old / local_comm / intercomm; MPI_COMM_NULL if none
                                 (for Comm_free: the communicator being freed, read before the call) */
    int root;                 /* root or local_leader; -1 if none */
    int peer;                 /* dest (or source for receives); -1 if none */
    int peer2;                /* source of Sendrecv(_replace); -1 if none */
    int tag;                  /* tag / sendtag; -1 if none */
    int count;                /* count / sendcount / recvcount (first found); -1 if none */
    MPI_Datatype datatype;    /* datatype / sendtype (first found); MPI_DATATYPE_NULL if none */
    MPI_Request *request;     /* the request out/in parameter (I-calls, Wait, Test, Start); NULL if none */
    int nrequests;            /* count of array_of_requests (Waitall...); 1 with request; 0 if none */
    MPI_Request *requests;    /* array_of_requests, or request; NULL if none */
    MPI_Comm *newcomm;        /* output communicator of creation calls; NULL if none */
    MPI_Status *status;       /* status (single) if the function has one; may be MPI_STATUS_IGNORE */
    void *layer;              /* free for the layer between enter and leave */
    int recvcount;            /* recvcount (scalar) beside sendcount; -1 if none */
    MPI_Datatype recvtype;    /* recvtype; MPI_DATATYPE_NULL if none */
    MPI_Win win;              /* the window of RMA calls (MPI_Win, not MPI_Win *); MPI_WIN_NULL if none */
} isochron_pmpi_call_t;

typedef struct isochron_pmpi_entry {
    int id;
    const char *name;
    int category;
} isochron_pmpi_entry_t;

/* Stopping a job from a layer (src/pmpi/layer.c, compiled into each layer; PMPI only). Collective over
 * MPI_COMM_WORLD, called by every rank with its own verdict: msg NULL or "" when this rank found nothing
 * wrong. If any rank has a message, the lowest such rank prints "PREFIX: [rank R: ]MSG" on stderr (and
 * so does every other rank whose message differs from that one),
 * every rank finalizes MPI and the process exits with status code: a clean stop, as the drivers stop on
 * a bad option (a message, MPI_Finalize, exit 2), so the ranks agree even when one of them alone found
 * the error. Returns when no rank has one. */
__attribute__((visibility("hidden"))) void isochron_pmpi_agree_or_stop(const char *prefix, const char *msg, int code);

/* Exit statuses of the layers: a setting refused at MPI_Init; output lost at MPI_Finalize. */
enum { ISOCHRON_PMPI_EXIT_SETTING = 2, ISOCHRON_PMPI_EXIT_LOST = 4 };

#endif
