/**
 * \file isochron/ops.h
 * \brief Operations to measure: a registry of MPI operations by name, each
 *        with set-up, one execution, and validation of the data it moved.
 *
 * Sources: MPIBlib (paper 001): operations as descriptors holding function
 * pointers, so an application can register its own; alternative
 * implementations of one collective (linear, binomial) measured side by side.
 *
 * Message size convention (bytes, the `size` of a point): the data each
 * process contributes or receives per peer, as in OSU/IMB:
 *   bcast, reduce, allreduce, scan, exscan: the buffer;
 *   gather(v), scatter(v), allgather(v), alltoall(v): one block (per peer);
 *   reduce_scatter, reduce_scatter_block: one block of the result per process;
 *   point-to-point: one message; RMA: one put/get/accumulate.
 * The element count is size / datatype size (size must be a multiple of it;
 * 0 is allowed and moves no data).
 *
 * Validation: set-up fills every send buffer with a pattern that depends on
 * rank, element index and repetition, chosen so reductions are exact in
 * every datatype (small integers); validate() recomputes what must have
 * arrived and compares every element.
 */
#ifndef ISOCHRON_OPS_H
#define ISOCHRON_OPS_H

#include <mpi.h>
#include <stddef.h>

/** Flags of an operation descriptor. */
enum {
    ISOCHRON_OP_ROOTED = 1u << 0,      /**< has a root (bcast, reduce, gather, scatter ...) */
    ISOCHRON_OP_REDUCTION = 1u << 1,   /**< uses the reduction op */
    ISOCHRON_OP_INPLACE = 1u << 2,     /**< MPI allows MPI_IN_PLACE for it */
    ISOCHRON_OP_NONBLOCKING = 1u << 3, /**< post()/wait() are set (Ixxx); run() = post + wait */
    ISOCHRON_OP_P2P = 1u << 4,         /**< point-to-point pattern */
    ISOCHRON_OP_RMA = 1u << 5,         /**< one-sided */
    ISOCHRON_OP_USER = 1u << 6,        /**< registered by the application */
    ISOCHRON_OP_MIN2 = 1u << 7         /**< needs at least 2 processes */
};

/** Per-point state handed to an operation. Filled by isochron_op_setup(). */
typedef struct isochron_op_ctx {
    MPI_Comm comm;          /**< communicator the operation runs on (never the library's own) */
    int rank, size;
    size_t bytes;           /**< message size of the point (see convention above) */
    size_t count;           /**< elements: bytes / type size */
    MPI_Datatype dtype;     /**< datatype (default MPI_BYTE for movement, MPI_INT... see isochron_op_dtype_find) */
    int dtype_size;
    MPI_Op op;              /**< reduction op (default MPI_SUM) */
    int root;               /**< root for rooted operations */
    int in_place;           /**< use MPI_IN_PLACE where allowed */
    int rep;                /**< repetition number, changes the pattern so stale data is caught */
    void *sbuf, *rbuf;      /**< buffers owned by the op's setup/teardown */
    size_t sbuf_bytes, rbuf_bytes;
    int *counts, *displs;   /**< for v-variants */
    MPI_Request req;        /**< for non-blocking operations */
    MPI_Win win;            /**< for RMA */
    void *state;            /**< operation-private */
} isochron_op_ctx_t;

/** An operation. set-up/teardown allocate, run executes once, validate checks the last run. */
typedef struct isochron_op {
    const char *name;        /**< "allreduce", "bcast_binomial", "pingpong", "iallreduce" */
    const char *family;      /**< operation it implements ("bcast" for bcast_linear), for side-by-side comparison */
    const char *description;
    unsigned flags;
    int (*setup)(isochron_op_ctx_t *c);    /**< allocate buffers for c->bytes; return ISOCHRON_* */
    int (*prepare)(isochron_op_ctx_t *c);  /**< before each repetition: write the pattern for c->rep (not timed) */
    int (*run)(isochron_op_ctx_t *c);      /**< one complete execution (timed) */
    int (*post)(isochron_op_ctx_t *c);     /**< non-blocking: start (timed separately for overlap) */
    int (*wait)(isochron_op_ctx_t *c);     /**< non-blocking: complete */
    int (*validate)(isochron_op_ctx_t *c); /**< after run: ISOCHRON_OK or ISOCHRON_EVALIDATE with a message naming rank, index, expected, got */
    void (*teardown)(isochron_op_ctx_t *c);
} isochron_op_t;

/** A set of operations: the built-ins plus any the application registers. */
typedef struct isochron_ops isochron_ops_t;

int isochron_ops_create(isochron_ops_t **out);            /**< with every built-in operation */
void isochron_ops_destroy(isochron_ops_t *ops);
int isochron_ops_register(isochron_ops_t *ops, const isochron_op_t *op); /**< copy of *op; ENAME if the name exists */
int isochron_ops_count(const isochron_ops_t *ops);
const isochron_op_t *isochron_ops_get(const isochron_ops_t *ops, int i);
/** \brief Find by name (case-insensitive); ENAME lists valid names. */
int isochron_ops_find(const isochron_ops_t *ops, const char *name, const isochron_op_t **out);

/**
 * \brief Prepare ctx for one point: checks that bytes is a multiple of the
 * datatype size, that the root is in range, that the operation can run on
 * ctx->size processes, and that the buffers it needs fit in memory (EINVAL
 * with a message before allocating anything absurd), then calls op->setup.
 * Caller sets comm, bytes, dtype, op, root, in_place first.
 */
int isochron_op_setup(const isochron_op_t *op, isochron_op_ctx_t *ctx);
void isochron_op_teardown(const isochron_op_t *op, isochron_op_ctx_t *ctx);

/** Datatypes and reduction ops by name ("byte", "char", "int", "long", "float", "double"; "sum", "max", "min", "prod"). */
int isochron_op_dtype_find(const char *name, MPI_Datatype *dt, int *size);
int isochron_op_reduce_find(const char *name, MPI_Op *op);
const char *isochron_op_dtype_names(void);
const char *isochron_op_reduce_names(void);

#endif
