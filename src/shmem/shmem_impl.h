/* Private interface of the OpenSHMEM measurements (one file per family). */
#ifndef ISOCHRON_SHMEM_IMPL_H
#define ISOCHRON_SHMEM_IMPL_H
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include "isochron/shmem.h"

#define SHM_NSIG 64

struct isochron_shmem_ctx {
    MPI_Comm comm;            /* duplicate of MPI_COMM_WORLD: control traffic only */
    int me, npes, target;     /* target: the partner of pair measurements (PE 1) */
    size_t bytes;
    int iters, loop, rep, oversubscribed;
    int iters_auto;           /* iters chosen by isochron (--iters 0): a measurement may use fewer (nbi overlap) */
    double budget;            /* seconds per point (0: none) */
    isochron_clock_t *clk;
    /* symmetric */
    char *src, *dst;          /* bufbytes each */
    size_t bufbytes;
    long *sig;                /* SHM_NSIG longs */
    long *psync[2];           /* two alternating pSync arrays */
    long *pwrk;               /* reduction work array */
    /* local */
    long *fetched;            /* atomics: values returned */
    double qempty;            /* time of an empty shmem_quiet */
    double tpost;             /* nbi: post time (Alg. 9) */
    double tfull;             /* nbi: full time, calibration of overlap */
    double tcomp;             /* busy computation inserted */
    double correction, overlap;
    long busy_n;              /* busy loop iterations for tcomp */
    const void *op;           /* the measurement (its descriptor) */
    isochron_shmem_defect_t defect; /* set with an EVALIDATE: what the library did */
    /* resolution (issue 26): tres = what a difference of two clock readings resolves (timer
     * granularity + read cost); res = per operation, what this repetition's timing resolves,
     * set by SHM_TIME_LOOP (tres / iters outside, tres inside) or by the run function, plus, where
     * a separately measured part is subtracted, that part's resolution */
    double tres, res;
    /* how this repetition was timed (issue 26's point fields, as isochron-bench fills them): tk calls
     * under one timer (1: each timed alone), timing "loop" (tk > 1) / "origin" / "global", loop_of how
     * the loop was timed ("origin", "global", "ack"); set by SHM_TIME_LOOP or the run function */
    int tk;
    char timing[12], loop_of[12];
    /* throughput (ISOCHRON_SHMEM_TPUT): messages per window and sender, messages one window carries (all senders) */
    int window;
    double moved_msgs;
    /* the collectives added for issue 28 (coll.c): one call of the measured collective, its kind and active set */
    void (*xcoll)(isochron_shmem_ctx_t *c, int i);
    int xkind, xvar, as_start, as_log, as_size; /* xvar: 0 back to back, 1 Alg. 1, 2 Alg. 2, 3 separated by busy waits */
};

/* the timing of a repetition: k calls under one timer (k > 1: "loop" of `of`), or each alone ("origin"/`of`) */
static inline void shm_timed(isochron_shmem_ctx_t *c, int k, const char *of)
{
    c->tk = k > 1 ? k : 1;
    snprintf(c->timing, sizeof c->timing, "%s", k > 1 ? "loop" : of);
    snprintf(c->loop_of, sizeof c->loop_of, "%s", k > 1 ? of : "");
}

static inline double shm_now(isochron_shmem_ctx_t *c) { return isochron_clock_now(c->clk); }

/* engine.c helpers */
int shm_alloc(isochron_shmem_ctx_t *c, size_t bufbytes);   /* src/dst/sig/psync/pwrk, collective */
void shm_free(isochron_shmem_ctx_t *c);
int shm_barrier(isochron_shmem_ctx_t *c);                  /* quiet + polite MPI barrier */
void shm_fill(void *buf, size_t n, int rep, int pe);
void shm_poison(void *buf, size_t n, int rep, int pe);
/* The data check of a buffer filled by shm_fill(.., rep, pe) at the source and
 * poisoned by shm_poison(.., rep, pe) at the destination before the call:
 * ISOCHRON_OK, or EVALIDATE with c->defect saying what `call` did (left the
 * destination unchanged, delivered stale or wrong data) and where. */
int shm_check(isochron_shmem_ctx_t *c, const char *call, const void *buf, size_t n, int rep, int pe);
/* A wrong long value: EVALIDATE with c->defect: "left the target unchanged"
 * when got == before (the value the target held before the calls), else
 * `otherwise` (e.g. "left the target at a wrong value", "returned a wrong
 * value"); detail = the printf-formatted place, then ": got G, expected W". */
int shm_defect_long(isochron_shmem_ctx_t *c, const char *call, long got, long before, long want, const char *otherwise,
                    const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Any other wrong result: EVALIDATE with c->defect = call, what, printf-formatted detail. */
int shm_defect(isochron_shmem_ctx_t *c, const char *call, const char *what, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
double shm_time_quiet_empty(isochron_shmem_ctx_t *c);
/* what shm_time_quiet_empty resolves (its loop of SHM_QEMPTY_N quiets is timed outside) */
#define SHM_QEMPTY_N 200
#define SHM_QEMPTY_RES(c) ((c)->tres / SHM_QEMPTY_N)
long shm_busy_calibrate(isochron_shmem_ctx_t *c, double seconds, double *actual);
void shm_busy(long n);
int shm_agree(isochron_shmem_ctx_t *c, int rc);

/* registries of the families */
extern const isochron_shmem_op_t isochron_shmem_rma_ops[];
extern const int isochron_shmem_rma_nops;
extern const isochron_shmem_op_t isochron_shmem_amo_ops[];
extern const int isochron_shmem_amo_nops;
extern const isochron_shmem_op_t isochron_shmem_coll_ops[];
extern const int isochron_shmem_coll_nops;
extern const isochron_shmem_op_t isochron_shmem_tput_ops[];
extern const int isochron_shmem_tput_nops;
extern const isochron_shmem_op_t isochron_shmem_extra_ops[];
extern const int isochron_shmem_extra_nops;

/* Time `body` iters times into `out` (seconds per iteration): one timer
 * around the loop (outside, Alg. 6) or one around each iteration (inside, Alg. 7). */
#define SHM_TIME_LOOP(c, out, body)                                               \
    do {                                                                          \
        double _s = 0;                                                            \
        if ((c)->loop == ISOCHRON_SHMEM_LOOP_OUTSIDE) {                           \
            double _t0 = shm_now(c);                                              \
            for (int i = 0; i < (c)->iters; i++) { body; }                        \
            _s = shm_now(c) - _t0;                                                \
        } else {                                                                  \
            for (int i = 0; i < (c)->iters; i++) {                                \
                double _t0 = shm_now(c);                                          \
                body;                                                             \
                _s += shm_now(c) - _t0;                                           \
            }                                                                     \
        }                                                                         \
        (out) = _s / (c)->iters;                                                  \
        (c)->res = (c)->loop == ISOCHRON_SHMEM_LOOP_OUTSIDE ? (c)->tres / (c)->iters : (c)->tres; \
        shm_timed((c), (c)->loop == ISOCHRON_SHMEM_LOOP_OUTSIDE ? (c)->iters : 1, "origin"); \
    } while (0)

#endif
