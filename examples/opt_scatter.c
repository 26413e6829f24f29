/*
 * opt_scatter: the Opt_Scatter example of MPIBlib (paper 001, sec. 4) on
 * isochron's library API. At start-up the application measures every Scatter
 * implementation it knows (MPI_Scatter, linear and binomial trees written on
 * point-to-point) at a few message sizes, then scatters with the fastest one
 * for each message size, choosing by the nearest measured size below.
 *   mpirun -np 4 opt_scatter
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "isochron/bench.h"

#define NIMPL 3
#define NSIZE 4
static const char *impl_names[NIMPL] = {"scatter", "scatter_linear", "scatter_binomial"};
static const size_t sizes[NSIZE] = {64, 1024, 16384, 131072};
static const isochron_op_t *impls[NIMPL];
static double T[NIMPL][NSIZE]; /* median seconds */

/* The implementation that was fastest at the largest measured size <= bytes. */
static const isochron_op_t *opt_scatter_impl(size_t bytes)
{
    int j = 0;
    for (int i = 0; i < NSIZE; i++) if (sizes[i] <= bytes) j = i;
    int best = 0;
    for (int k = 1; k < NIMPL; k++) if (T[k][j] < T[best][j]) best = k;
    return impls[best];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    isochron_timer_t *t;
    isochron_clock_t *base, *g;
    isochron_sync_spec_t spec;
    isochron_ops_t *ops;
    isochron_bench_t *b;
    isochron_bench_opts_t o;
    if (isochron_timer_create("mpi_wtime", &t) || isochron_clock_create(t, &base) || isochron_sync_spec_parse("hca3", &spec) ||
        isochron_sync_run(&spec, MPI_COMM_WORLD, base, &g, NULL) || isochron_ops_create(&ops)) {
        fprintf(stderr, "opt_scatter: %s\n", isochron_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    isochron_bench_opts_default(&o);
    o.budget = 0.2; /* start-up benchmarking must be quick */
    isochron_bench_create(MPI_COMM_WORLD, g, &o, &b);
    for (int k = 0; k < NIMPL; k++) {
        if (isochron_ops_find(ops, impl_names[k], &impls[k])) { fprintf(stderr, "%s\n", isochron_last_error()); MPI_Abort(MPI_COMM_WORLD, 1); }
        for (int i = 0; i < NSIZE; i++) {
            isochron_op_ctx_t c;
            memset(&c, 0, sizeof c);
            c.bytes = sizes[i];
            c.dtype = MPI_DATATYPE_NULL;
            c.op = MPI_SUM;
            isochron_point_t p;
            if ((rc = isochron_bench_measure(b, impls[k], &c, &p))) { fprintf(stderr, "%s\n", isochron_last_error()); MPI_Abort(MPI_COMM_WORLD, 1); }
            T[k][i] = p.valid ? p.s.median : INFINITY;
            isochron_point_free(&p);
        }
    }
    if (rank == 0) {
        printf("%-10s", "bytes");
        for (int k = 0; k < NIMPL; k++) printf(" %18s", impl_names[k]);
        printf("   chosen\n");
        for (int i = 0; i < NSIZE; i++) {
            int best = 0;
            printf("%-10zu", sizes[i]);
            for (int k = 0; k < NIMPL; k++) { printf(" %15.2f us", T[k][i] * 1e6); if (T[k][i] < T[best][i]) best = k; }
            printf("   %s\n", impl_names[best]);
        }
    }
    /* the application now scatters through the chosen implementation */
    const size_t app_bytes[2] = {4096, 100000};
    for (int a = 0; a < 2 && !rc; a++) {
        const isochron_op_t *impl = opt_scatter_impl(app_bytes[a]);
        isochron_op_ctx_t c;
        memset(&c, 0, sizeof c);
        c.comm = MPI_COMM_WORLD;
        c.bytes = app_bytes[a];
        c.dtype = MPI_DATATYPE_NULL;
        c.op = MPI_SUM;
        if ((rc = isochron_op_setup(impl, &c))) break;
        for (int rep = 0; rep < 3 && !rc; rep++) {
            c.rep = rep;
            if (impl->prepare) impl->prepare(&c);
            rc = impl->run(&c);
            if (!rc && impl->validate) rc = impl->validate(&c);
        }
        isochron_op_teardown(impl, &c);
        if (rank == 0) printf("Opt_Scatter of %zu B x3 used %s: %s\n", app_bytes[a], impl->name, rc ? isochron_last_error() : "data validated");
    }
    isochron_bench_destroy(b);
    isochron_ops_destroy(ops);
    isochron_clock_destroy(g);
    isochron_clock_destroy(base);
    isochron_timer_destroy(t);
    MPI_Finalize();
    return rc ? 1 : 0;
}
