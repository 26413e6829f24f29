/*
 * Partitioned point-to-point (MPI-4.0 sec. 4: MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready, MPI_Parrived): one message of ctx->bytes cut into
 * ctx->partitions partitions of count / partitions elements, on persistent
 * requests made once in set-up (as OSU 7.5's osu_partitioned_latency makes
 * them once per message size):
 *   part_pingpong  one run = one round trip, as osu_partitioned_latency times
 *                  it: rank 0 starts its send request, marks every partition
 *                  ready in order with MPI_Pready and waits, then starts and
 *                  waits for its receive request; rank 1 the mirror image.
 *                  OSU prints half the round trip; isochron's ping-pongs
 *                  report the round trip (family pingpong, beside pingpong
 *                  and pingpong_persistent).
 *   part_pready    the time from the sender's last MPI_Pready to the
 *                  completion of the receive: prepare (not timed, before
 *                  every repetition: ISOCHRON_OP_PREPARE_EVERY) starts both
 *                  requests and marks partitions 0..P-2 ready; the run is
 *                  MPI_Pready of the last partition + MPI_Wait at the sender
 *                  and MPI_Wait at the receiver, both starting at the
 *                  scheme's common start time, so the run time on the global
 *                  clock (--method global: latest end - earliest start) is
 *                  what the last partition costs once the others are handed
 *                  over (whether the library moved them already is its
 *                  choice; that is what this measures).
 * Data: the kind SEM_PINGPONG's buffers and pattern (kind.c); part_pingpong
 * is validated as the ping-pong (both receive buffers, every partition),
 * part_pready on rank 1 (rank 0 receives nothing); a wrong element is named
 * with its partition.
 * Libraries: built where mpi.h declares MPI_Psend_init (MPI_VERSION >= 4:
 * MPICH 4; Open MPI 5, which declares MPI_VERSION 3 but has them); elsewhere
 * (Open MPI 4.1) the operations stay in the list flagged ISOCHRON_OP_MISSING
 * and set-up refuses with a sentence naming the library and its version.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HAVE_PART 1
#else
#define HAVE_PART 0
#endif

#define N_PART ((MPI_Count)(c->count / (size_t)c->partitions))

typedef struct {
    isochron_ops_state_t base; /* first: the kind's state */
    MPI_Request q[2];          /* [0] receive, [1] send */
    int active;                /* part_pready: prepare started the requests, the run has not completed them */
} part_t;

#define PT(c) ((part_t *)(c)->state)

#if HAVE_PART
/* Open MPI 5's partitioned component (part persist) completes nothing until every process of
 * MPI_COMM_WORLD has made a partitioned request (seen with PyPI's Open MPI 5.0: at 3 ranks, ranks 0
 * and 1 hung in their first MPI_Wait while rank 2 made none; with one made there, they completed; run
 * on 2 of 3 ranks, they hung too). The ranks outside the pair therefore exchange one empty
 * partitioned message with themselves in set-up (untimed), and part_setup refuses a communicator
 * smaller than MPI_COMM_WORLD there; other libraries need neither. */
static int join_part_setup(isochron_op_ctx_t *c, const char *name)
{
#if defined(OMPI_MAJOR_VERSION)
    static char byte;
    MPI_Request q[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status sts[2];
    int ok = MPI_Precv_init(&byte, 1, 0, MPI_BYTE, c->rank, ISOCHRON_TAG_PING, c->comm, MPI_INFO_NULL, &q[0]) == MPI_SUCCESS &&
             MPI_Psend_init(&byte, 1, 0, MPI_BYTE, c->rank, ISOCHRON_TAG_PING, c->comm, MPI_INFO_NULL, &q[1]) == MPI_SUCCESS &&
             MPI_Startall(2, q) == MPI_SUCCESS && MPI_Pready(0, q[1]) == MPI_SUCCESS && MPI_Waitall(2, q, sts) == MPI_SUCCESS;
    for (int i = 0; i < 2; i++)
        if (q[i] != MPI_REQUEST_NULL) MPI_Request_free(&q[i]);
    if (!ok) return isochron_set_error(ISOCHRON_EMPI, "%s: rank %d's partitioned message to itself failed in set-up", name, c->rank);
#else
    (void)c;
    (void)name;
#endif
    return ISOCHRON_OK;
}

static int part_setup(isochron_op_ctx_t *c, const char *name)
{
#if defined(OMPI_MAJOR_VERSION)
    int inited = 0, wsize = 0;
    MPI_Initialized(&inited); /* false under the sessions model, where MPI_COMM_WORLD is not there */
    if (inited && MPI_Comm_size(MPI_COMM_WORLD, &wsize) == MPI_SUCCESS && wsize > c->size) {
        char lib[256];
        isochron_mpi_library_name(lib, sizeof lib);
        return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                                  "%s: this MPI library (%s) completes partitioned messages only once every process of "
                                  "MPI_COMM_WORLD has made a partitioned request, and this communicator has %d of its %d "
                                  "processes: run it on all of them (no --nprocs)", name, lib, c->size, wsize);
    }
#endif
    /* the kind's state is the first member of the larger one: set it up, then widen it */
    int rc = isochron_ops_kind_setup(c, (isochron_ops_kind_t){ SEM_PINGPONG, ALG_MPI }, name);
    if (rc) return rc;
    part_t *pt = calloc(1, sizeof *pt);
    if (!pt) return isochron_set_error(ISOCHRON_ENOMEM, "%s: out of memory for its state", name);
    memcpy(&pt->base, c->state, sizeof pt->base);
    free(c->state);
    c->state = pt;
    pt->q[0] = pt->q[1] = MPI_REQUEST_NULL;
    if (c->rank > 1) return join_part_setup(c, name);
    int peer = 1 - c->rank;
    int tin = c->rank == 0 ? ISOCHRON_TAG_PONG : ISOCHRON_TAG_PING, tout = c->rank == 0 ? ISOCHRON_TAG_PING : ISOCHRON_TAG_PONG;
    if (MPI_Precv_init(c->rbuf, c->partitions, N_PART, c->dtype, peer, tin, c->comm, MPI_INFO_NULL, &pt->q[0]) != MPI_SUCCESS ||
        MPI_Psend_init(c->sbuf, c->partitions, N_PART, c->dtype, peer, tout, c->comm, MPI_INFO_NULL, &pt->q[1]) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Precv_init/MPI_Psend_init of %d partitions x %lld elements failed on rank %d",
                                  name, c->partitions, (long long)N_PART, c->rank);
    return ISOCHRON_OK;
}

static int setup_part_pingpong(isochron_op_ctx_t *c) { return part_setup(c, "part_pingpong"); }
static int setup_part_pready(isochron_op_ctx_t *c) { return part_setup(c, "part_pready"); }

static int ready_range(isochron_op_ctx_t *c, MPI_Request q, int lo, int hi)
{
    for (int j = lo; j <= hi; j++) ISOCHRON_OPS_MPI(MPI_Pready(j, q), c, "MPI_Pready");
    return ISOCHRON_OK;
}

static int run_part_pingpong(isochron_op_ctx_t *c)
{
    if (c->rank > 1) return ISOCHRON_OK;
    part_t *pt = PT(c);
    int rc;
    if (c->rank == 0) {
        ISOCHRON_OPS_MPI(MPI_Start(&pt->q[1]), c, "MPI_Start (send)");
        if ((rc = ready_range(c, pt->q[1], 0, c->partitions - 1))) return rc;
        ISOCHRON_OPS_MPI(MPI_Wait(&pt->q[1], MPI_STATUS_IGNORE), c, "MPI_Wait (send)");
        ISOCHRON_OPS_MPI(MPI_Start(&pt->q[0]), c, "MPI_Start (receive)");
        ISOCHRON_OPS_MPI(MPI_Wait(&pt->q[0], MPI_STATUS_IGNORE), c, "MPI_Wait (receive)");
    } else {
        ISOCHRON_OPS_MPI(MPI_Start(&pt->q[0]), c, "MPI_Start (receive)");
        ISOCHRON_OPS_MPI(MPI_Wait(&pt->q[0], MPI_STATUS_IGNORE), c, "MPI_Wait (receive)");
        ISOCHRON_OPS_MPI(MPI_Start(&pt->q[1]), c, "MPI_Start (send)");
        if ((rc = ready_range(c, pt->q[1], 0, c->partitions - 1))) return rc;
        ISOCHRON_OPS_MPI(MPI_Wait(&pt->q[1], MPI_STATUS_IGNORE), c, "MPI_Wait (send)");
    }
    return ISOCHRON_OK;
}

/* part_pready: requests a prepare started and no run completed: the last partition readied, both waited
 * (untimed; a prepare after a prepare, and teardown, need them complete) */
static int complete_pending(isochron_op_ctx_t *c)
{
    part_t *pt = PT(c);
    if (!pt || c->rank > 1 || !pt->active) return ISOCHRON_OK;
    pt->active = 0;
    if (c->rank == 0) ISOCHRON_OPS_MPI(MPI_Pready(c->partitions - 1, pt->q[1]), c, "MPI_Pready (last partition)");
    ISOCHRON_OPS_MPI(MPI_Wait(&pt->q[c->rank == 0 ? 1 : 0], MPI_STATUS_IGNORE), c, "MPI_Wait");
    return ISOCHRON_OK;
}

/* part_pready: rank 0 sends, rank 1 receives; both requests started here, all partitions but the last ready */
static int prepare_part_pready(isochron_op_ctx_t *c)
{
    int rc;
    if (c->rank < 2 && (rc = complete_pending(c))) return rc;
    if (!c->no_fill && (rc = isochron_ops_kind_prepare(c))) return rc;
    if (c->rank > 1) return ISOCHRON_OK;
    part_t *pt = PT(c);
    if (c->rank == 1) {
        ISOCHRON_OPS_MPI(MPI_Start(&pt->q[0]), c, "MPI_Start (receive)");
    } else {
        ISOCHRON_OPS_MPI(MPI_Start(&pt->q[1]), c, "MPI_Start (send)");
        if ((rc = ready_range(c, pt->q[1], 0, c->partitions - 2))) return rc;
    }
    pt->active = 1;
    return ISOCHRON_OK;
}

static int run_part_pready(isochron_op_ctx_t *c)
{
    if (c->rank > 1) return ISOCHRON_OK;
    part_t *pt = PT(c);
    if (!pt->active)
        return isochron_set_error(ISOCHRON_EINVAL, "part_pready: run without its prepare on rank %d (it times the last "
                                  "partition of requests its prepare starts, so it cannot run back to back: use "
                                  "--timing global)", c->rank);
    pt->active = 0;
    if (c->rank == 1) {
        ISOCHRON_OPS_MPI(MPI_Wait(&pt->q[0], MPI_STATUS_IGNORE), c, "MPI_Wait (receive)");
    } else {
        ISOCHRON_OPS_MPI(MPI_Pready(c->partitions - 1, pt->q[1]), c, "MPI_Pready (last partition)");
        ISOCHRON_OPS_MPI(MPI_Wait(&pt->q[1], MPI_STATUS_IGNORE), c, "MPI_Wait (send)");
    }
    return ISOCHRON_OK;
}

static void teardown_part(isochron_op_ctx_t *c)
{
    part_t *pt = c->state;
    if (pt && c->rank < 2) {
        complete_pending(c); /* prepared for a repetition that never ran (both ranks tear down) */
        for (int i = 0; i < 2; i++)
            if (pt->q[i] != MPI_REQUEST_NULL) MPI_Request_free(&pt->q[i]);
    }
    isochron_ops_kind_teardown(c);
}

/* An error found by the kind's check names the partition of the first wrong element. */
static int name_partition(isochron_op_ctx_t *c, int rc)
{
    if (rc != ISOCHRON_EVALIDATE) return rc;
    char keep[1024];
    snprintf(keep, sizeof keep, "%s", isochron_last_error());
    return isochron_set_error(rc, "%s (partitions of %lld elements)", keep, (long long)N_PART);
}

static int validate_part_pingpong(isochron_op_ctx_t *c) { return name_partition(c, isochron_ops_kind_validate(c)); }

static int validate_part_pready(isochron_op_ctx_t *c)
{
    if (c->rank != 1) return ISOCHRON_OK;
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    isochron_ops_vstate_t v;
    memset(&v, 0, sizeof v);
    isochron_ops_vblock(&v, c->rbuf, 0, c->count, st->tk, 0, 0, c->rep);
    if (!v.bad) return ISOCHRON_OK;
    size_t per = (size_t)N_PART;
    return isochron_set_error(ISOCHRON_EVALIDATE,
                              "part_pready: rank 1, element %zu (partition %zu of %d): expected %lld from rank 0, got %s; "
                              "%zu of %zu elements wrong (repetition %d)",
                              v.first, per ? v.first / per : 0, c->partitions, v.expected, v.got, v.bad, v.total, c->rep);
}
#else
static int missing(const char *name)
{
    char lib[256];
    isochron_mpi_library_name(lib, sizeof lib);
    return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                              "%s: this MPI library (%s) has no partitioned point-to-point (MPI_Psend_init, MPI_Pready: "
                              "MPI-4.0; in MPICH 4 and Open MPI 5); isochron was built against its mpi.h, which lacks them",
                              name, lib);
}
static int setup_part_pingpong(isochron_op_ctx_t *c) { (void)c; return missing("part_pingpong"); }
static int setup_part_pready(isochron_op_ctx_t *c) { (void)c; return missing("part_pready"); }
/* a run is required of every descriptor (isochron_ops_register); set-up refuses before any */
static int run_missing(isochron_op_ctx_t *c) { (void)c; return isochron_set_error(ISOCHRON_EUNSUPPORTED, "partitioned operations not built"); }
#define run_part_pingpong run_missing
#define run_part_pready run_missing
#define prepare_part_pready isochron_ops_kind_prepare
#define validate_part_pingpong isochron_ops_kind_validate
#define validate_part_pready isochron_ops_kind_validate
#define teardown_part isochron_ops_kind_teardown
#endif

static size_t memory_part(const isochron_op_ctx_t *c)
{
    return isochron_ops_kind_memory(c, (isochron_ops_kind_t){ SEM_PINGPONG, ALG_MPI });
}

#define F_PART (ISOCHRON_OP_P2P | ISOCHRON_OP_MIN2 | ISOCHRON_OP_PAIR | ISOCHRON_OP_PARTITIONED | (HAVE_PART ? 0 : ISOCHRON_OP_MISSING))

static const isochron_op_t part_ops[] = {
    { "part_pingpong", "pingpong",
      "rank 0 <-> 1 round trip on partitioned requests made once (MPI_Psend_init/MPI_Precv_init, --partitions): "
      "MPI_Start, MPI_Pready of every partition, MPI_Wait each way (osu_partitioned_latency)",
      F_PART, setup_part_pingpong, isochron_ops_kind_prepare, run_part_pingpong, NULL, NULL,
      validate_part_pingpong, teardown_part, memory_part, NULL, NULL },
    { "part_pready", "part_pready",
      "rank 0 -> 1 partitioned message: from the last MPI_Pready to the receiver's completion (MPI_Start and the "
      "other partitions' MPI_Pready untimed, before each repetition)",
      F_PART | ISOCHRON_OP_PREPARE_EVERY, setup_part_pready, prepare_part_pready,
      run_part_pready, NULL, NULL, validate_part_pready, teardown_part, memory_part, NULL, NULL },
};

const isochron_op_t *isochron_ops_builtin_part(int *n)
{
    *n = (int)(sizeof part_ops / sizeof part_ops[0]);
    return part_ops;
}
