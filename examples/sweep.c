/*
 * A sweep through the library's run layer, as isochron-bench runs one (docs/quickstart.md, isochron/bench.h):
 * the sync spec budgeted by the library (isochron_sync_budget: a round-trip probe, then the spec fitted to
 * the budget), the operations chosen by the driver's names (isochron_sweep_select), every point checked
 * before anything runs, then the sweep: point order, passes, resync and skipped points are the library's,
 * the program only prints each final point. Run: mpirun -np 2 ./sweep
 */
#include <stdio.h>
#include <mpi.h>
#include "isochron.h"
#include "isochron/bench.h"
#include "isochron/sync.h"
#include "isochron/ops.h"
static void show(void *arg, const isochron_sweep_step_t *st)
{
    (void)arg;
    if (st->final) printf("%-10s %7zu B  median %8.3f us  [%.3f, %.3f]\n", st->point->op, st->point->bytes,
                          st->point->s.median * 1e6, st->point->s.med_lo * 1e6, st->point->s.med_hi * 1e6);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np; MPI_Comm_size(MPI_COMM_WORLD, &np);
    isochron_timer_t *t; isochron_clock_t *local, *global; isochron_sync_spec_t spec; isochron_sync_plan_t plan;
    isochron_timer_create("monotonic", &t); isochron_clock_create(t, &local);
    isochron_sync_spec_parse("hca3", &spec);
    isochron_sync_budget(&spec, MPI_COMM_WORLD, NULL, &plan);           /* the library's sync budget */
    isochron_sync_run(&spec, MPI_COMM_WORLD, local, &global, NULL);
    isochron_ops_t *ops; isochron_ops_create(&ops);
    const isochron_op_t *list[8]; size_t sizes[] = {8, 65536};
    isochron_sweep_opts_t so; isochron_sweep_opts_default(&so);
    so.sizes = sizes; so.nsizes = 2; so.passes = 2; so.resync = 0.5;
    isochron_sweep_select(ops, "allreduce,bcast", list, 8, &so);
    isochron_bench_opts_t bo; isochron_bench_opts_default(&bo);
    isochron_sweep_clock_t clk = {.spec = &spec, .base = local, .global = global};
    isochron_sweep_t *s; isochron_sweep_result_t res; isochron_sweep_cb_t cb = {.point = show};
    if (isochron_sweep_check(&so, &bo, MPI_COMM_WORLD, np, MPI_THREAD_SINGLE) || isochron_sweep_create(MPI_COMM_WORLD, np, &so, &bo, &clk, &s)
        || isochron_sweep_run(s, &cb, &res)) { fprintf(stderr, "sweep: %s\n", isochron_last_error()); MPI_Abort(MPI_COMM_WORLD, 1); }
    int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (!r) printf("%d points, %d skipped, %.2f s (sync %.2f s planned at %.1f us round trip)\n", res.done, res.nskipped, res.wall, plan.estimate, plan.rtt * 1e6);
    isochron_sweep_destroy(s); isochron_ops_destroy(ops); MPI_Finalize();
    return 0;
}
