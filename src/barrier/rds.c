/*
 * Recursive doubling synchronization, RDS (Seidel & Davis, paper 004,
 * sec. 3.3, Fig. 3-7/3-8).
 *
 * Phase 1 is the reverse of a recursive-doubling broadcast: rank i waits for
 * its children i + 2^k (k from d-1 down to the bit above its highest set
 * bit), then reports to its parent i - 2^msb(i); this brings every rank into
 * a known state. Phase 2 is the recursive-doubling broadcast from rank 0: a
 * rank receives from its parent, then sends to its children i + 2^k for k
 * above its highest set bit, in increasing k. Phase 3: each rank busy-waits
 * w_i after its own phase-2 sends so that all leave together.
 *
 * The timing model of the paper: a null message takes b_s from the start of
 * the send to the end of the receive, and the sender is busy s per send. In
 * that model rank i finishes phase 2 at
 *     F(i) = |i|_1 b_s + s * (zero bits of i below its highest set bit)
 *            + s * (children it sends to),
 * which for p = 2^d is |i|_1 b_s + (d - |i|_1) s, so the last rank, 2^d - 1,
 * finishes at d b_s and w_i = F(2^d - 1) - F(i) = (d - |i|_1)(b_s - s): the
 * paper's formula. When p is not a power of two (d = ceil(log2 p)) the
 * children beyond p do not exist, so a rank sends fewer messages; we keep the
 * same model and wait w_i = max_j F(j) - F(i), which reduces to the paper's
 * w_i when p = 2^d and makes every rank leave with the last-informed one.
 * If b_s < s (a send that returns after its message has arrived) the waits
 * would be negative and are clamped to 0.
 *
 * b_s and s are measured at creation between ranks 0 and 1 with balanced
 * traffic, as the paper did: rank 0 times MPI_Send of a null message (s)
 * and the whole send/reply round trip (2 b_s); medians over rds_samples
 * round trips after a warm-up, broadcast to every rank. The busy wait
 * spins on MPI_Wtime (no calibrated empty loop is needed today).
 */
#include <math.h>
#include <stdlib.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "core/util.h"
#include "barrier/barrier_impl.h"

#define TRY(x) do { int rc_ = (x); if (rc_) return rc_; } while (0)

#ifdef SMPI_ISOCHRON
static double wtime_now(void *arg) { (void)arg; return MPI_Wtime(); }
#endif

static int msb(int i) { return i ? 31 - __builtin_clz((unsigned)i) : -1; }

static int ceil_log2(int p)
{
    int d = 0;
    while ((1 << d) < p) d++;
    return d;
}

/* Model time at which rank i has finished its phase-2 sends. */
static double finish_time(int i, int p, int d, double bs, double s)
{
    int top = msb(i), ones = __builtin_popcount((unsigned)i);
    int zeros_below = top + 1 - ones;
    int children = 0;
    for (int k = top + 1; k < d; k++) if (i + (1 << k) < p) children++;
    return ones * bs + (zeros_below + children) * s;
}

static int calibrate(isochron_barrier_t *b, int n, double *bs, double *s)
{
    const int warm = n / 10 + 10;
    double *rtt = NULL, *snd = NULL;
    int rc = ISOCHRON_OK;
    if (b->rank == 0) {
        rtt = malloc(sizeof *rtt * (size_t)n);
        snd = malloc(sizeof *snd * (size_t)n);
        if (!rtt || !snd) rc = isochron_set_error(ISOCHRON_ENOMEM, "rds: out of memory for %d calibration samples", n);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, b->comm);
    if (rc) { free(rtt); free(snd); return rc; }
    for (int i = -warm; i < n && b->rank < 2; i++) {
        if (b->rank == 0) {
            double t0 = isochron_truth_now();
            TRY(isochron_bar_send(b, 1, TAG_CALIB));
            double t1 = isochron_truth_now();
            TRY(isochron_bar_recv(b, 1, TAG_CALIB));
            double t2 = isochron_truth_now();
            if (i >= 0) { snd[i] = t1 - t0; rtt[i] = t2 - t0; }
        } else {
            TRY(isochron_bar_recv(b, 0, TAG_CALIB));
            TRY(isochron_bar_send(b, 0, TAG_CALIB));
        }
    }
    double c[2] = {0, 0};
    if (b->rank == 0) { c[0] = isochron_median(rtt, n) / 2; c[1] = isochron_median(snd, n); }
    free(rtt);
    free(snd);
    TRY(isochron_bcast_polite(c, 2, MPI_DOUBLE, 0, b->comm));
    *bs = c[0];
    *s = c[1];
    return ISOCHRON_OK;
}

static int rds_init(isochron_barrier_t *b, const isochron_barrier_opts_t *o)
{
    isochron_rds_info_t *ri = &b->rds;
    int p = b->size;
    ri->d = ceil_log2(p);
    if (o->rds_b_s > 0 && o->rds_s >= 0) {
        ri->b_s = o->rds_b_s;
        ri->s = o->rds_s;
        ri->samples = 0;
    } else if (p > 1) {
        TRY(calibrate(b, o->rds_samples, &ri->b_s, &ri->s));
        ri->samples = o->rds_samples;
    }
    double last = 0;
    for (int j = 0; j < p; j++) last = fmax(last, finish_time(j, p, ri->d, ri->b_s, ri->s));
    ri->max_wait = 0;
    for (int j = 0; j < p; j++) ri->max_wait = fmax(ri->max_wait, last - finish_time(j, p, ri->d, ri->b_s, ri->s));
    ri->wait = fmax(0, last - finish_time(b->rank, p, ri->d, ri->b_s, ri->s));
    return ISOCHRON_OK;
}

static int rds_run(isochron_barrier_t *b)
{
    int i = b->rank, p = b->size, d = b->rds.d, top = msb(i);
    /* phase 1: reverse recursive doubling (gather to rank 0) */
    for (int k = d - 1; k > top; k--)
        if (i + (1 << k) < p) TRY(isochron_bar_recv(b, i + (1 << k), TAG_RDS));
    if (i) TRY(isochron_bar_send(b, i - (1 << top), TAG_RDS));
    /* phase 2: recursive doubling broadcast from rank 0 */
    if (i) TRY(isochron_bar_recv(b, i - (1 << top), TAG_RDS + 1));
    for (int k = top + 1; k < d; k++)
        if (i + (1 << k) < p) TRY(isochron_bar_send(b, i + (1 << k), TAG_RDS + 1));
    /* phase 3: busy wait until the last-informed rank is done */
    double until = MPI_Wtime() + b->rds.wait; /* MPI_Wtime: simulated time under SimGrid */
#ifdef SMPI_ISOCHRON
    isochron_spin_until(wtime_now, NULL, until); /* one simulated sleep, not a simcall per 100 ns */
#else
    while (MPI_Wtime() < until) isochron_spin_pause();
#endif
    return ISOCHRON_OK;
}

const barrier_alg_t isochron_bar_rds = {"rds", "recursive doubling synchronization: gather, broadcast, busy waits (d-|i|)(b_s-s) (measured b_s, s)", rds_init, rds_run};
