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
 * Validation: prepare() fills every send buffer with a pattern that depends
 * on rank, element index and repetition, and poisons every receive buffer;
 * the patterns of reductions are small integers chosen per reduction op so
 * that every result is exact in every datatype (prod: only +-1 and +-2, at
 * most 2^30 in magnitude; max/min: each element's extreme value is unique and
 * encodes the rank that holds it); validate() recomputes what must have
 * arrived and compares every element on every rank that receives data.
 *
 * Buffers of the built-in operations, for whoever wants to look at them
 * (tests corrupt one element to prove validate() can fail):
 *   rbuf is where data arrives (root only for gather and reduce; for bcast
 *   it is the broadcast buffer on every rank; for put and accumulate it is
 *   the window memory a neighbour writes into); sbuf is the data sent.
 *
 * Call sequence (the engine's):
 *   fill comm, bytes, dtype, op, root, in_place;  isochron_op_setup();
 *   per repetition k: ctx->rep = k; prepare (not timed, may be NULL);
 *       run (timed; or post + wait for ISOCHRON_OP_NONBLOCKING);
 *       validate (not timed, NULL only for barrier/ibarrier);
 *   isochron_op_teardown().
 * Every rank of comm makes every one of these calls (prepare and validate of
 * the one-sided operations contain barriers; set-up and teardown are
 * collective). Ranks not taking part in a point-to-point pattern return at
 * once from run.
 */
#ifndef ISOCHRON_OPS_H
#define ISOCHRON_OPS_H

#include <mpi.h>
#include <stddef.h>
#include "isochron/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Flags of an operation descriptor. */
enum {
    ISOCHRON_OP_ROOTED = 1u << 0,      /**< has a root (bcast, reduce, gather, scatter ...) */
    ISOCHRON_OP_REDUCTION = 1u << 1,   /**< uses the reduction op */
    ISOCHRON_OP_INPLACE = 1u << 2,     /**< MPI allows MPI_IN_PLACE for it */
    ISOCHRON_OP_NONBLOCKING = 1u << 3, /**< post()/wait() are set (Ixxx); run() = post + wait */
    ISOCHRON_OP_P2P = 1u << 4,         /**< point-to-point pattern */
    ISOCHRON_OP_RMA = 1u << 5,         /**< one-sided */
    ISOCHRON_OP_USER = 1u << 6,        /**< registered by the application */
    ISOCHRON_OP_MIN2 = 1u << 7,        /**< needs at least 2 processes */
    ISOCHRON_OP_NODATA = 1u << 8,      /**< moves no data (barrier): size, datatype and op are ignored */
    ISOCHRON_OP_PAIR = 1u << 9,        /**< only ranks 0 and 1 take part; the others return from run at once */
    ISOCHRON_OP_WINDOWED = 1u << 10,   /**< one run is a window of ctx->window messages per sender (bandwidth, message rate) */
    ISOCHRON_OP_INTEGER = 1u << 11,    /**< defined on integer and byte types only (MPI_Compare_and_swap) */
    ISOCHRON_OP_THREADED = 1u << 12,   /**< runs ctx->threads threads per rank calling MPI at once: set-up refuses
                                            (EUNSUPPORTED, naming the level provided) unless MPI_Query_thread gives
                                            MPI_THREAD_MULTIPLE */
    ISOCHRON_OP_PREPARE_EVERY = 1u << 13, /**< prepare is part of the protocol (it starts requests the run completes):
                                            the engine calls it before every repetition (ctx->no_fill set when the
                                            next one is not validated) and refuses loop timing (k runs back to back) */
    ISOCHRON_OP_BIGCOUNT = 1u << 14,   /**< calls the MPI-4 large-count functions (MPI_X_c, MPI_Count counts): the
                                            INT_MAX limit of counts does not apply, memory still does */
    ISOCHRON_OP_MISSING = 1u << 15,    /**< this build's MPI library lacks what the operation calls: its set-up only
                                            returns EUNSUPPORTED with a sentence naming the library, its version and
                                            the missing functions, touching nothing (it may be given a zeroed ctx) */
    ISOCHRON_OP_PARTITIONED = 1u << 16, /**< partitioned point-to-point (MPI_Psend_init): ctx->partitions partitions of
                                            count / partitions elements each */
    ISOCHRON_OP_ACTIVE_TARGET = 1u << 17 /**< one-sided with active-target synchronization (fence, PSCW): the target takes
                                            part in every epoch, so back-to-back epochs lock-step the ranks as collectives
                                            do, and --timing auto times one epoch, never a loop of them (engine.c) */
};

/** Partitions per message of the partitioned operations when ctx->partitions is 0. */
#define ISOCHRON_OP_PARTITIONS_DEFAULT 8
/** Most partitions accepted. */
#define ISOCHRON_OP_PARTITIONS_MAX 65536

/** Messages per window of the windowed (throughput) operations when ctx->window is 0 (osu_bw's default). */
#define ISOCHRON_OP_WINDOW_DEFAULT 64
/** Largest window accepted. */
#define ISOCHRON_OP_WINDOW_MAX 65536
/** Threads per rank of the ISOCHRON_OP_THREADED operations when ctx->threads is 0 (osu_latency_mt's default). */
#define ISOCHRON_OP_THREADS_DEFAULT 2
/** Most threads per rank accepted. */
#define ISOCHRON_OP_THREADS_MAX 64

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
    int *counts, *displs;   /**< v-variants and reduce_scatter: count and j*count for every rank (uniform) */
    MPI_Request req;        /**< for non-blocking operations */
    MPI_Win win;            /**< for RMA */
    void *state;            /**< operation-private */
    int window;             /**< caller-set, ISOCHRON_OP_WINDOWED operations: messages each sender posts per run
                                 (0: ISOCHRON_OP_WINDOW_DEFAULT; < 0 or > ISOCHRON_OP_WINDOW_MAX: EINVAL) */
    int threads;            /**< caller-set, ISOCHRON_OP_THREADED operations: threads per rank
                                 (0: ISOCHRON_OP_THREADS_DEFAULT; < 0 or > ISOCHRON_OP_THREADS_MAX: EINVAL) */
    int thread_level;       /**< caller-set, ISOCHRON_OP_THREADED operations: the thread level MPI provides where
                                 MPI_Query_thread cannot say (MPI started by sessions: the session's "thread_level",
                                 isochron_world_t.provided); 0: MPI_Query_thread's answer */
    int no_fill;            /**< set by the bench engine around a prepare that is called every repetition (one-sided
                                 operations): 1 when the next run is not validated, so prepare may leave the buffers'
                                 contents as they are (warm, as for the other operations) and do only its protocol;
                                 0 (a direct caller's default): write them */
    int partitions;         /**< caller-set, ISOCHRON_OP_PARTITIONED operations: partitions per message (0:
                                 ISOCHRON_OP_PARTITIONS_DEFAULT; < 0 or > ISOCHRON_OP_PARTITIONS_MAX: EINVAL); the
                                 element count must be a multiple of it (EINVAL naming the valid counts) */
    void *user;             /**< caller-set: the application's data for its operation (the object a user operation
                                 runs, e.g. the barrier of isochron_barrier_as_op); isochron_op_setup and the bench
                                 engine keep it, so the operation reaches its object through the point's own context,
                                 not through a global or thread-local (SimGrid runs every simulated rank on one thread) */
} isochron_op_ctx_t;

/** An operation. set-up/teardown allocate, run executes once, validate checks the last run. */
typedef struct isochron_op {
    const char *name;        /**< "allreduce", "bcast_binomial", "pingpong", "iallreduce" */
    const char *family;      /**< operation it implements, for side-by-side comparison: "bcast" for bcast,
                                  ibcast, bcast_linear, bcast_binomial; "pingpong" for the three ping-pongs;
                                  "put", "get", "accumulate" for the one-sided pairs */
    const char *description;
    unsigned flags;
    int (*setup)(isochron_op_ctx_t *c);    /**< allocate buffers for c->bytes; return ISOCHRON_* */
    int (*prepare)(isochron_op_ctx_t *c);  /**< before each repetition: write the pattern for c->rep (not timed) */
    int (*run)(isochron_op_ctx_t *c);      /**< one complete execution (timed) */
    int (*post)(isochron_op_ctx_t *c);     /**< non-blocking: start (timed separately for overlap) */
    int (*wait)(isochron_op_ctx_t *c);     /**< non-blocking: complete */
    int (*validate)(isochron_op_ctx_t *c); /**< after run: ISOCHRON_OK or ISOCHRON_EVALIDATE with a message naming rank, index, expected, got */
    void (*teardown)(isochron_op_ctx_t *c);
    /** Largest number of bytes any one process of c->comm allocates for this
     *  point (c->size, c->count, c->dtype_size, c->in_place are set; SIZE_MAX
     *  on overflow). May be NULL for a user operation: 2 x bytes is assumed. */
    size_t (*memory)(const isochron_op_ctx_t *c);
    /** Throughput operations: bytes of payload one run moves, summed over all senders, and in *msgs the
     *  messages it carries (acknowledgements not counted); reporters turn the run time into bytes/s and
     *  messages/s with them. NULL for latency-type operations (results in seconds). Reads the ctx after set-up. */
    double (*moved)(const isochron_op_ctx_t *c, double *msgs);
    /** Optional: \p k calls back to back as one timed run (the bench engine's "loop" timing, time per call =
     *  total / k). The lock_all one-sided operations open one lock_all epoch around k accesses each completed by
     *  MPI_Win_flush (what OSU's -w lockall -s flush times, the epoch's opening and closing shared by the k);
     *  NULL: k x run. */
    int (*run_n)(isochron_op_ctx_t *c, int k);
} isochron_op_t;

/** A set of operations: the built-ins plus any the application registers. */
typedef struct isochron_ops isochron_ops_t;

int isochron_ops_create(isochron_ops_t **out);            /**< with every built-in operation */
void isochron_ops_destroy(isochron_ops_t *ops);
/**
 * \brief Add an application's operation. The descriptor and its strings are
 * copied and ISOCHRON_OP_USER is set on the copy. ENAME if the name exists
 * (case-insensitive); EINVAL if the name is empty or has characters other
 * than letters, digits, '_', '-', '.', if run is NULL, or if the
 * ISOCHRON_OP_NONBLOCKING flag is set without post and wait.
 */
int isochron_ops_register(isochron_ops_t *ops, const isochron_op_t *op);
int isochron_ops_count(const isochron_ops_t *ops);
const isochron_op_t *isochron_ops_get(const isochron_ops_t *ops, int i);
/** \brief Find by name (case-insensitive); ENAME lists valid names. */
int isochron_ops_find(const isochron_ops_t *ops, const char *name, const isochron_op_t **out);

/**
 * \brief Prepare ctx for one point. Collective over ctx->comm.
 *
 * Caller sets comm, bytes, dtype (MPI_DATATYPE_NULL: MPI_INT for reductions,
 * MPI_BYTE otherwise), op (MPI_OP_NULL: MPI_SUM), root, in_place; every other
 * field is overwritten. A handle left all-zero (ctx cleared with memset)
 * counts as the _NULL handle, so a zeroed ctx gets the defaults.
 *
 * Checks, in this order, before allocating anything, identically on every
 * rank (EINVAL with a sentence naming the operation): datatype/op/in_place
 * accepted (isochron_op_accepts), bytes a multiple of the datatype size, root
 * in [0, size) for rooted operations, size >= 2 for ISOCHRON_OP_MIN2,
 * isochron_op_memory_needed() within isochron_op_memory_available() ("X needs
 * N bytes per process, more than the M available"; only asked when the need
 * exceeds 1 MiB, which any process has), every MPI count within INT_MAX.
 * EUNSUPPORTED for a combination the MPI library is known to crash on (today
 * one: reduce with in_place at a non-zero root under MPICH 4.0 to 4.1.2,
 * pmodels/mpich#6540), and for an ISOCHRON_OP_THREADED operation when
 * MPI_Query_thread gives less than MPI_THREAD_MULTIPLE (the message names the
 * level provided). Then calls op->setup on every rank and agrees: if it
 * failed anywhere, it is torn down everywhere and all ranks return the
 * failing rank's code.
 */
int isochron_op_setup(const isochron_op_t *op, isochron_op_ctx_t *ctx);
/** \brief Release what setup allocated (collective for one-sided operations). */
void isochron_op_teardown(const isochron_op_t *op, isochron_op_ctx_t *ctx);

/**
 * \brief ISOCHRON_OK if op accepts this datatype, reduction op and in_place
 * choice, else EINVAL with a sentence saying why. MPI_DATATYPE_NULL and
 * MPI_OP_NULL mean the defaults. Built-in operations take the six datatypes
 * of isochron_op_dtype_find (reductions only int, long, float, double, with
 * sum, prod, max, min); user operations any datatype (byte and char refused
 * for reductions). Local, no communication.
 */
int isochron_op_accepts(const isochron_op_t *op, MPI_Datatype dtype, MPI_Op rop, int in_place);

/**
 * \brief Largest number of bytes one process needs for this point (the root's
 * share for rooted operations), SIZE_MAX if the computation overflows.
 * Reads comm (or size if > 0), bytes, dtype, in_place of ctx; local.
 */
size_t isochron_op_memory_needed(const isochron_op_t *op, const isochron_op_ctx_t *ctx);

/**
 * \brief Memory one process may use: physical memory of its node (or a smaller
 * cgroup memory limit, or the smaller MemAvailable of /proc/meminfo: what is
 * free now) divided by the number of ranks of comm on that node
 * (MPI_Comm_split_type SHARED), minimum over all nodes. Collective over comm.
 */
int isochron_op_memory_available(MPI_Comm comm, size_t *bytes);

/**
 * \brief Parallel all-pairs round trips (MPIBlib's parallel point-to-point
 * benchmark). Collective over comm. Pairs are scheduled in the rounds of a
 * round-robin tournament, so a process is in at most one pair at a time
 * (with an odd size one process sits each round out); rounds are separated
 * by a barrier. In each pair the lower rank times \p reps round trips of
 * \p bytes (MPI_BYTE) with MPI_Wtime after one untimed warm-up. On rank 0
 * \p rtt (size*size doubles) receives rtt[i*size+j] = rtt[j*size+i] = median
 * round trip of pair (i,j) in seconds, 0 on the diagonal; other ranks may
 * pass NULL. Uses a duplicate of comm. EINVAL for reps < 1, bytes > INT_MAX
 * or rtt == NULL on rank 0.
 */
int isochron_ops_allpairs(MPI_Comm comm, size_t bytes, int reps, double *rtt);

/** Modes of the all-pairs measurement (isochron_ops_allpairs_run). */
enum {
    ISOCHRON_P2P_PARALLEL = 0,  /**< the rounds of a round-robin tournament, disjoint pairs at the same time */
    ISOCHRON_P2P_SEQUENTIAL = 1 /**< one pair at a time, the other ranks held in a barrier */
};
/** \brief "parallel" / "sequential" -> ISOCHRON_P2P_*; ENAME naming both otherwise. */
int isochron_ops_p2p_mode_find(const char *name, int *mode);
const char *isochron_ops_p2p_mode_names(void); /**< "parallel, sequential" */

/** One pair (i < j) of an all-pairs measurement; times in seconds. */
typedef struct {
    int i, j;             /**< ranks; i timed the round trips */
    isochron_summary_t s; /**< over the reps round trips (median, CI of mean and median, ...) */
    double send_s;        /**< median time i spent in MPI_Send of the ping (sender overhead o of LogP) */
    double gap_s;         /**< LogGP's gap g at this size: (median burst of 8 messages answered by one reply - median
                               round trip) / 7, over up to 10 bursts after the round trips; 0 if the bursts were faster */
} isochron_pair_t;

/** \brief Rounds of the parallel schedule at \p p processes: p - 1 (p even) or p (p odd). */
int isochron_ops_allpairs_rounds(int p);
/** \brief Partner of \p rank in round \p round (0-based) of the parallel schedule at \p p
 *  processes (circle method), or -1 if it sits the round out (odd p). Pure function. */
int isochron_ops_allpairs_partner(int rank, int round, int p);
/**
 * \brief All-pairs round trips of \p bytes with per-pair statistics. Collective over comm.
 * ISOCHRON_P2P_PARALLEL: the rounds of isochron_ops_allpairs_partner, a polite barrier
 * between rounds; ISOCHRON_P2P_SEQUENTIAL: pairs (0,1), (0,2), ..., (p-2,p-1) one at a time,
 * every other rank waiting in a polite barrier (MPIBlib's comparison, paper 001 sec. 4).
 * On rank 0 \p pairs (p(p-1)/2 entries, in the order (0,1), (0,2), ..., (p-2,p-1)) receives
 * the statistics at \p ci_level; other ranks may pass NULL. \p wall (may be NULL): seconds the
 * whole measurement took on this rank. EINVAL / ENAME as isochron_ops_allpairs, and for a bad mode.
 */
int isochron_ops_allpairs_run(MPI_Comm comm, size_t bytes, int reps, int mode, double ci_level, isochron_pair_t *pairs,
                              double *wall);

/** One point-to-two experiment: i sends \p bytes to j and to k at once and waits for both replies. */
typedef struct {
    int i, j, k;          /**< centre i; j < k, both != i */
    isochron_summary_t s; /**< over the reps exchanges, timed by i (s) */
} isochron_triplet_t;

/** \brief Point-to-two experiments at \p p processes: p (p-1) (p-2) / 2 (0 below 3). */
int isochron_ops_p2t_count(int p);
/** \brief The triplets in their order (i ascending, then j, then k) and the round of each in the
 *  parallel schedule (greedy: a triplet joins the first round where none of its three
 *  processes is busy). \p trip: 3 x count ints (may be NULL), \p round: count ints (may be
 *  NULL). Returns the number of rounds. Pure function. */
int isochron_ops_p2t_schedule(int p, int *trip, int *round);
/**
 * \brief Point-to-two round trips (the extra experiment of the heterogeneous Hockney model,
 * paper 001 sec. 5): every triplet of isochron_ops_p2t_schedule in parallel rounds of
 * non-overlapping triplets, a polite barrier between rounds; the centre times \p reps
 * exchanges (MPI_Isend to both, MPI_Irecv of both replies) after one untimed warm-up.
 * Collective; on rank 0 \p out (count entries, schedule order) gets the statistics at
 * \p ci_level. EINVAL below 3 processes and as isochron_ops_allpairs_run.
 */
int isochron_ops_p2t_run(MPI_Comm comm, size_t bytes, int reps, double ci_level, isochron_triplet_t *out, double *wall);

/** Datatypes and reduction ops by name ("byte", "char", "int", "long", "float", "double"; "sum", "max", "min", "prod"). */
int isochron_op_dtype_find(const char *name, MPI_Datatype *dt, int *size);
int isochron_op_reduce_find(const char *name, MPI_Op *op);
const char *isochron_op_dtype_names(void);   /**< "byte, char, int, long, float, double" */
const char *isochron_op_reduce_names(void);  /**< "sum, prod, max, min" */
/** \brief Name of a datatype / reduction op of the lists above ("?" if not one of them). */
const char *isochron_op_dtype_name(MPI_Datatype dt);
const char *isochron_op_reduce_name(MPI_Op op);

#ifdef __cplusplus
}
#endif
#endif
