/* Private layout of the engine, shared by engine.c, the schemes and the methods. */
#ifndef ISOCHRON_BENCH_IMPL_H
#define ISOCHRON_BENCH_IMPL_H
#include "isochron/bench.h"

enum { BTAG_CONFIRM = 7301, BTAG_ACK };

struct isochron_bench {
    MPI_Comm comm;        /* the measured communicator (caller's) */
    MPI_Comm ctl;         /* duplicate: the engine's own protocol traffic */
    int rank, size;
    isochron_clock_t *clk;
    isochron_bench_opts_t o;
    int oversubscribed;
    double bcast_lat;     /* roundtime: Bcast latency estimate (s), measured once */
    char *cache;          /* cache clearing buffer */
    isochron_barrier_t *bar; /* the barrier scheme's barrier (created with the engine) */
    isochron_track_t *track; /* clock tracking (own_track: created by the engine at the first point) */
    int own_track;
};

/* Per-point state of a scheme/method. */
typedef struct {
    const isochron_op_t *op;
    isochron_op_ctx_t *ctx;
    double t0;            /* point start (global clock, rank 0's value on all) */
    /* window */
    double window, next_start;
    /* roundtime */
    int out_of_time;
    double start_at;      /* this repetition's agreed start time */
    double rep_start;     /* this rank's actual start of the repetition (set by the engine before after()) */
    /* methods */
    int root;             /* root of the method (ctx->root for rooted ops, else 0) */
    double correction;    /* root: confirmation time; ack: mean ack time */
    double *ack;          /* ack: per-rank one-way acknowledgement time (on root) */
    double t_comm, t_comp;/* overlap: communication alone, computation inserted */
} point_state_t;

/* Wait until global time t (polite on oversubscribed nodes, see engine.c). */
void isochron_bench_wait_until(isochron_bench_t *b, double t);
/* The engine's own protocol collectives on b->ctl, yielding while waiting when oversubscribed. */
int isochron_bench_bcast(isochron_bench_t *b, void *buf, int n, MPI_Datatype dt, int root);
int isochron_bench_allreduce(isochron_bench_t *b, const void *in, void *out, int n, MPI_Datatype dt, MPI_Op op);

/* Schemes: before() runs before a repetition and may flag this rank late;
 * after() runs after it and, for per-repetition schemes, agrees on validity
 * and on stopping. per_rep: after() already reduced flags across ranks. */
typedef struct {
    const char *name, *description;
    int per_rep;
    int (*point_begin)(isochron_bench_t *b, point_state_t *ps);
    int (*before)(isochron_bench_t *b, point_state_t *ps, int rep, int *late);
    int (*after)(isochron_bench_t *b, point_state_t *ps, int rep, double t_end, int *invalid, int *stop);
} scheme_t;
const scheme_t *isochron_scheme_find_impl(const char *name);

/* Methods: run one repetition (including the operation) and return this
 * rank's start/end on the global clock and, for root/ack, the run time
 * computed on the method's root (others: NaN). */
typedef struct {
    const char *name, *description;
    int (*prepare)(isochron_bench_t *b, point_state_t *ps);
    int (*run)(isochron_bench_t *b, point_state_t *ps, double *start, double *end, double *local);
    void (*finish)(isochron_bench_t *b, point_state_t *ps);
} method_t;
const method_t *isochron_method_find_impl(const char *name);

#endif
