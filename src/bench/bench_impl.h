/* Private layout of the engine, shared by engine.c, the schemes and the methods. */
#ifndef ISOCHRON_BENCH_IMPL_H
#define ISOCHRON_BENCH_IMPL_H
#include "isochron/bench.h"

enum { BTAG_CONFIRM = 7301, BTAG_ACK };
enum { RT_HIST = 32 }; /* roundtime: repetitions its adapting looks back on */

struct isochron_bench {
    MPI_Comm comm;        /* the measured communicator (caller's) */
    MPI_Comm ctl;         /* duplicate: the engine's own protocol traffic */
    int rank, size;
    isochron_clock_t *clk;
    isochron_bench_opts_t o;
    int oversubscribed;
    double bcast_lat;     /* roundtime: Bcast latency estimate (s), measured once */
    const isochron_op_t *rt_op; /* roundtime: the operation of the previous point, and the slack it ended with */
    double rt_slack, rt_frac; /* ... and its final tolerance / median run time (0: not widened) */
    char *cache;          /* cache clearing buffer */
    isochron_barrier_t *bar; /* the barrier scheme's barrier (created with the engine) */
    isochron_track_t *track; /* clock tracking (own_track: created by the engine at the first point) */
    int own_track;
    int points_done, retries_made; /* points measured and retried tries so far (the run's retry budget) */
    /* resolved once from the options (isochron_bench_create): the engine never looks at names per point */
    const struct scheme_s *scheme;
    const struct method_s *method;
    int tk, tkk;          /* timing kind and loop:K's K */
    int plain;            /* the method compares one run time per rank as it is (global, max): auto may use the origin's */
    int setup_failed;     /* the last measure failed in an agreed set-up (isochron_bench_setup_failed) */
};

/* Per-point state of a scheme/method. */
struct method_s;
typedef struct {
    const isochron_op_t *op;
    isochron_op_ctx_t *ctx;
    const struct method_s *method; /* the point's timing method */
    double t0;            /* point start (global clock, rank 0's value on all) */
    double data_s;        /* this rank's time in validation (validate, and the prepare a validated repetition needs):
                           * not charged to the budget, so a point of large buffers still gets its repetitions */
    /* window */
    double window, next_start;
    /* roundtime */
    int out_of_time;
    double start_at;      /* this repetition's agreed start time */
    double slack;         /* roundtime: B in force (--slack, doubled when starts arrive late) */
    double tolerance;     /* roundtime: how late a rank may start (Bcast latency, widened from measured lateness) */
    double tol_max;       /* roundtime: the widest tolerance any repetition of the point was judged by */
    double carry;         /* roundtime: tolerance / run time the previous point of the operation ended with */
    int adapted;          /* roundtime: widenings of slack or tolerance */
    double recv_at;       /* roundtime: when this rank got the start time */
    /* roundtime: the last RT_HIST repetitions as all ranks agreed on them (see scheme_roundtime.c) */
    double hist_late[RT_HIST], hist_dur[RT_HIST];
    char hist_recv[RT_HIST], hist_slow[RT_HIST];
    int hist_n;
    double rep_start;     /* this rank's actual start of the repetition (set by the engine before after()) */
    /* methods */
    int root;             /* root of the method (ctx->root for rooted ops, else 0) */
    double correction;    /* root: confirmation time; ack: mean ack time */
    double *ack;          /* ack: per-rank one-way acknowledgement time (on root) */
    double ack_margin;    /* ack: a task starts this long after the root announces it (s) */
    double t_comm, t_comp;/* overlap: communication alone, computation inserted */
    int loop_k;           /* calls per repetition (1 unless the timing is a loop) */
    int validating;       /* set by the engine before run: this repetition's data is checked */
} point_state_t;

/* Timing choices (opts.timing): parsed by isochron_timing_parse (registry.c); k: loop:K's K, else 0. */
enum { ISOCHRON_TIMING_AUTO, ISOCHRON_TIMING_ORIGIN, ISOCHRON_TIMING_GLOBAL, ISOCHRON_TIMING_LOOP };
enum { ISOCHRON_LOOP_MAX = 1000000 };
int isochron_timing_parse(const char *s, int *kind, int *k);

/* Wait until global time t (polite on oversubscribed nodes, see engine.c). */
void isochron_bench_wait_until(isochron_bench_t *b, double t);
/* The engine's own protocol collectives on b->ctl, yielding while waiting when oversubscribed. */
int isochron_bench_bcast(isochron_bench_t *b, void *buf, int n, MPI_Datatype dt, int root);
int isochron_bench_allreduce(isochron_bench_t *b, const void *in, void *out, int n, MPI_Datatype dt, MPI_Op op);

/* Schemes: before() runs before a repetition and may flag this rank late;
 * after() runs after it and, for per-repetition schemes, agrees on validity
 * and on stopping. per_rep: after() already reduced flags across ranks. */
typedef struct scheme_s {
    const char *name, *description;
    int per_rep;
    int (*point_begin)(isochron_bench_t *b, point_state_t *ps);
    int (*before)(isochron_bench_t *b, point_state_t *ps, int rep, int *late);
    int (*after)(isochron_bench_t *b, point_state_t *ps, int rep, double t_end, int *invalid, int *stop);
    /* optional: what the scheme adds to a finished point (on every rank) */
    void (*finish)(isochron_bench_t *b, const point_state_t *ps, isochron_point_t *res);
    int uses_barrier;     /* 1: the engine creates opts.barrier's barrier with itself (b->bar) */
} scheme_t;
const scheme_t *isochron_scheme_find_impl(const char *name);

/* One repetition seen from all ranks (after the batch reduction). */
typedef struct {
    double first_start, last_start, last_end;
    double local;         /* the root's own run time (root, ack), -inf if none */
    double max_local;     /* the largest end - start of any rank */
} isochron_rep_times_t;

/* Methods: run one repetition (including the operation) and return this
 * rank's start/end on the global clock and, for root/ack, the run time
 * computed on the method's root (others: NaN); combine turns the reduced
 * timestamps of a repetition into its run time; summarize (optional) adds
 * the method's own results to a finished point. A new method is one
 * descriptor: the engine never looks at names. */
typedef struct method_s {
    const char *name, *description;
    int (*prepare)(isochron_bench_t *b, point_state_t *ps);
    int (*run)(isochron_bench_t *b, point_state_t *ps, double *start, double *end, double *local);
    void (*finish)(isochron_bench_t *b, point_state_t *ps);
    double (*combine)(const isochron_rep_times_t *t);
    void (*summarize)(const point_state_t *ps, isochron_point_t *res);
    int global_clock;     /* 1: the run time compares readings of different ranks (the clock bound enters it) */
} method_t;
const method_t *isochron_method_find_impl(const char *name);

#endif
