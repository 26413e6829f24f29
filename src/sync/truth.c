/*
 * Ground truth for the accuracy check (check.c) and for the tracker (track.c):
 * whether the ranks share one kernel, and the true error of a global clock.
 * When all ranks share one kernel (the same boot_id, whatever their hostnames
 * or namespaces), CLOCK_MONOTONIC less each process's time-namespace offset
 * (isochron_truth_now) is one clock for all of them: every rank reads it
 * bracketing a jitter-free reading of its global clock, and rank 0 knows its
 * own global clock as a function of that reading, so true_offset_i =
 * G_i - G_0(m_i) with no network in the way (check.c's header has the whole
 * method). In a file of its own, below check.c and track.c, because both use
 * it and check.c uses the tracker: one file would make the two depend on each
 * other (tests/layering/check_cycles.py).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int isochron_truth_shared(MPI_Comm comm)
{
    if (ISOCHRON_TRUTH_GLOBAL) return 1;
    char id[40];
    /* 0 stands for "unknown" and never matches: min == max != 0 means all equal */
    uint64_t h = isochron_truth_kernel_id(id, sizeof id) == 0 ? fnv1a(id) | 1u : 0, lo = 0, hi = 0;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
    return lo != 0 && lo == hi;
}

/* (m, base, G) with m bracketing the base read as tightly as possible */
void isochron_truth_sample(isochron_clock_t *g, double *m, double *b, double *gv)
{
    isochron_timer_t *t = isochron_clock_timer(g);
    double best = INFINITY;
    for (int i = 0; i < 10; i++) {
        double a = isochron_truth_now(), base = isochron_timer_base_now(t), c = isochron_truth_now();
        if (c - a < best) {
            best = c - a;
            *m = 0.5 * (a + c);
            *b = base;
        }
    }
    *gv = isochron_clock_apply(g, isochron_timer_skew_apply(t, *b));
}

double isochron_truth_global(isochron_clock_t *g, double b)
{
    return isochron_clock_apply(g, isochron_timer_skew_apply(isochron_clock_timer(g), b));
}

int isochron_sync_true_error(MPI_Comm comm, isochron_clock_t *global, double *max_abs)
{
    int me, p, one, rc;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    *max_abs = NAN;
    if (!isochron_truth_shared(comm)) return ISOCHRON_OK;
    /* rank 0 brackets everyone's samples with two of its own, so its global
     * clock at any rank's monotonic reading is a linear interpolation */
    double ma = 0, b, ga = 0, mb = 0, gb = 0, mine[2], *all = NULL, worst = 0;
    if (me == 0) {
        isochron_truth_sample(global, &ma, &b, &ga);
        all = malloc(sizeof(double) * 2 * (size_t)p);
    }
    one = me != 0 || all;
    MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_MIN, comm);
    if (!one) { free(all); return isochron_set_error(ISOCHRON_ENOMEM, "true error: out of memory"); }
    if ((rc = isochron_barrier_polite(comm))) { free(all); return rc; }
    isochron_truth_sample(global, &mine[0], &b, &mine[1]);
    if ((rc = isochron_barrier_polite(comm))) { free(all); return rc; }
    if (me == 0) isochron_truth_sample(global, &mb, &b, &gb);
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, comm);
    if (me == 0) {
        double rate = mb > ma ? (gb - ga) / (mb - ma) : 1.0;
        for (int i = 1; i < p; i++) {
            double e = fabs(all[2 * i + 1] - (ga + rate * (all[2 * i] - ma)));
            if (e > worst) worst = e;
        }
    }
    free(all);
    MPI_Bcast(&worst, 1, MPI_DOUBLE, 0, comm);
    *max_abs = worst;
    return ISOCHRON_OK;
}
