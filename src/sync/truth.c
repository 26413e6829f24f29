/*
 * Ground truth for the accuracy check (check.c) and for the tracker (track.c):
 * whether the ranks share one kernel, and the true error of a global clock.
 * When all ranks share one kernel (the same boot_id, whatever their hostnames
 * or namespaces), CLOCK_MONOTONIC less each process's time-namespace offset
 * (isochron_truth_now) is one clock for all of them: every rank reads it
 * with a jitter-free reading of its global clock, and rank 0 knows its own
 * global clock as a function of that reading, so true_offset_i =
 * G_i - G_0(m_i) with no network in the way (check.c's header has the whole
 * method). Two things make it exact at every check (issue 35): every rank's
 * sample lies inside rank 0's bracket (a barrier before and after it:
 * isochron_truth_round), so rank 0's clock is interpolated, never
 * extrapolated; and where the base timer reads the truth clock itself
 * (monotonic, mpi_wtime read directly) the base reading at a truth instant is
 * that instant plus a constant, with no rate to estimate. Before, a rank took
 * its sample when its own global clock reached the check time, unordered
 * against rank 0's (measured: 59-134 us before rank 0's first one), and rank
 * 0's rate came from its two samples 1.4-3.7 us apart: one rate off by
 * 6e-3 made a true error of 29.9 ns read 382 ns. Where the base is another
 * clock (tsc, monotonic_raw, realtime) its rate is measured over the longest
 * span there is (from the check's first sample), and the interpolation is
 * off by at most a few of the truth reads' own brackets. In a file of its own, below check.c and track.c, because both use
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

/* (m, base, G). Where the base timer reads the truth clock (base = m + c:
 * isochron_timer_reads_truth) one truth reading gives the base reading at that
 * instant exactly. Otherwise m brackets the base read, as tightly as 10 tries
 * give: m is then off by up to half the tightest bracket (25-60 ns here). */
void isochron_truth_sample(isochron_clock_t *g, double *m, double *b, double *gv)
{
    isochron_timer_t *t = isochron_clock_timer(g);
    double c;
    if (isochron_timer_reads_truth(t, &c)) {
        *m = isochron_truth_now();
        *b = *m + c;
    } else {
        double best = INFINITY;
        for (int i = 0; i < 10; i++) {
            double a = isochron_truth_now(), base = isochron_timer_base_now(t), z = isochron_truth_now();
            if (z - a < best) {
                best = z - a;
                *m = 0.5 * (a + z);
                *b = base;
            }
        }
    }
    *gv = isochron_clock_apply(g, isochron_timer_skew_apply(t, *b));
}

double isochron_truth_global(isochron_clock_t *g, double b)
{
    return isochron_clock_apply(g, isochron_timer_skew_apply(isochron_clock_timer(g), b));
}

double isochron_truth_global_at(isochron_clock_t *g, double m, const double a[2], const double z[2], const double first[2])
{
    double c;
    if (isochron_timer_reads_truth(isochron_clock_timer(g), &c)) return isochron_truth_global(g, m + c);
    /* the base's rate against the truth over the longest span there is: from the first sample, else the bracket */
    const double *lo = first && first[0] < a[0] ? first : a;
    double rate = z[0] > lo[0] ? (z[1] - lo[1]) / (z[0] - lo[0]) : 1.0;
    return isochron_truth_global(g, a[1] + rate * (m - a[0]));
}

int isochron_truth_round(MPI_Comm comm, isochron_clock_t *g, const double first[2], const double *extra, int nextra,
                         double *err, double *extras)
{
    int me, p, rc;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int n = 2 + nextra;
    double a[2] = {0, 0}, z[2] = {0, 0}, gv, mine[2 + 8], *all = NULL;
    if (nextra < 0 || nextra > 8) return isochron_set_error(ISOCHRON_EINVAL, "truth: %d extra values (at most 8)", nextra);
    if (me == 0) all = malloc(sizeof(double) * (size_t)n * (size_t)p);
    int ok = me != 0 || all;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (!ok) { free(all); return isochron_set_error(ISOCHRON_ENOMEM, "truth: out of memory"); }
    /* rank 0's first sample, then a barrier: no rank leaves it before rank 0 entered, so every
     * sample below comes after rank 0's first; the second barrier puts them all before its second */
    if (me == 0) isochron_truth_sample(g, &a[0], &a[1], &gv);
    if ((rc = isochron_barrier_polite(comm))) { free(all); return rc; }
    double b;
    isochron_truth_sample(g, &mine[0], &b, &mine[1]);
    for (int k = 0; k < nextra; k++) mine[2 + k] = extra[k];
    if ((rc = isochron_barrier_polite(comm))) { free(all); return rc; }
    if (me == 0) isochron_truth_sample(g, &z[0], &z[1], &gv);
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, comm);
    if (me == 0) {
        for (int i = 0; i < p; i++) {
            double *s = all + (size_t)n * (size_t)i;
            err[i] = i == 0 ? 0.0 : s[1] - isochron_truth_global_at(g, s[0], a, z, first);
            for (int k = 0; k < nextra && extras; k++) extras[(size_t)nextra * (size_t)i + (size_t)k] = s[2 + k];
        }
    }
    free(all);
    return ISOCHRON_OK;
}

int isochron_sync_true_error(MPI_Comm comm, isochron_clock_t *global, double *max_abs)
{
    int me, p, rc;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    *max_abs = NAN;
    if (!isochron_truth_shared(comm)) return ISOCHRON_OK;
    double *err = me == 0 ? malloc(sizeof(double) * (size_t)p) : NULL, worst = 0;
    int ok = me != 0 || err;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (!ok) { free(err); return isochron_set_error(ISOCHRON_ENOMEM, "true error: out of memory"); }
    rc = isochron_truth_round(comm, global, NULL, NULL, 0, err, NULL);
    if (rc) { free(err); return rc; }
    for (int i = 1; me == 0 && i < p; i++)
        if (fabs(err[i]) > worst) worst = fabs(err[i]);
    free(err);
    MPI_Bcast(&worst, 1, MPI_DOUBLE, 0, comm);
    *max_abs = worst;
    return ISOCHRON_OK;
}
