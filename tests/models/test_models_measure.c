/*
 * test_models_measure: the all-pairs measurement in both modes and the
 * run-time model API on real MPI (3 ranks: one idle per round; 4 ranks).
 *  - isochron_ops_allpairs_run, parallel and sequential: rank 0 gets every
 *    pair once, in order, with reps round trips each and a finite positive
 *    median below 1 s; the sender overhead is finite and not above the round trip.
 *  - isochron_models_measure at 0 B and 64 KiB: every rank receives the same
 *    models; alpha > 0, beta > 0 (64 KiB takes longer than 0 B on any
 *    transport) and LogGP's G equals Hockney's beta.
 *  - point-to-two: every triplet measured with a finite positive median.
 *  - a bad mode, reps 0 and one size are refused on every rank, and a
 *    following call still works.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/models.h"
#include "check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int np = p * (p - 1) / 2;
    isochron_pair_t *pr = calloc((size_t)np, sizeof *pr);
    for (int mode = 0; mode < 2; mode++) {
        double wall = -1;
        int rc = isochron_ops_allpairs_run(MPI_COMM_WORLD, 1024, 15, mode, 0.95, pr, &wall);
        CHECK_RC(rc, ISOCHRON_OK, "rank %d: allpairs %s, 1 KiB x 15 (%.4f s)", rank, mode ? "sequential" : "parallel", wall);
        if (rank == 0 && rc == ISOCHRON_OK) {
            int order = 1, fin = 1, k = 0;
            for (int i = 0; i < p - 1; i++)
                for (int j = i + 1; j < p; j++, k++) {
                    if (pr[k].i != i || pr[k].j != j || pr[k].s.n != 15) order = 0;
                    if (!(pr[k].s.median > 0 && pr[k].s.median < 1) || !(pr[k].send_s >= 0 && pr[k].send_s <= pr[k].s.max) ||
                        !(pr[k].gap_s >= 0 && pr[k].gap_s < 1)) fin = 0;
                }
            CHECK(order, "%s: every pair once, in order, 15 round trips each", mode ? "sequential" : "parallel");
            CHECK(fin, "%s: medians in (0, 1 s), sender overhead within the round trip, gap in [0, 1 s) (0-1: g %.3g s)", mode ? "sequential" : "parallel", pr[0].gap_s);
        }
    }
    isochron_pair_model_t *m = calloc((size_t)np, sizeof *m);
    size_t sizes[2] = {0, 65536};
    CHECK_RC(isochron_models_measure(MPI_COMM_WORLD, sizes, 2, 20, ISOCHRON_P2P_PARALLEL, m), ISOCHRON_OK, "rank %d: models measured", rank);
    int pos = 1;
    for (int k = 0; k < np; k++)
        if (!(m[k].hockney.alpha > 0 && m[k].hockney.beta > 0 && m[k].loggp.G == m[k].hockney.beta && isfinite(m[k].hockney.alpha_se)))
            pos = 0;
    CHECK(pos, "rank %d: alpha > 0, beta > 0, finite SE, G = beta for all %d pairs (0-1: %.3g s + %.3g s/B)", rank, np, m[0].hockney.alpha,
          m[0].hockney.beta);
    double a0 = m[np - 1].hockney.alpha, b0 = m[np - 1].hockney.beta, ab[2] = {a0, b0};
    MPI_Bcast(ab, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(ab[0] == a0 && ab[1] == b0, "rank %d: the same models as rank 0", rank);
    const isochron_pair_model_t *q = isochron_models_pair(m, p, p - 1, 0);
    CHECK(q && q->i == 0 && q->j == p - 1, "rank %d: pair (%d,0) found", rank, p - 1);

    int nt = isochron_ops_p2t_count(p);
    isochron_triplet_t *tr = calloc((size_t)nt, sizeof *tr);
    double tw = -1;
    CHECK_RC(isochron_ops_p2t_run(MPI_COMM_WORLD, 512, 10, 0.95, tr, &tw), ISOCHRON_OK, "rank %d: point-to-two, %d triplets x 10 (%.4f s)", rank, nt, tw);
    if (rank == 0) {
        int good = 1;
        for (int t = 0; t < nt; t++)
            if (tr[t].s.n != 10 || !(tr[t].s.median > 0 && tr[t].s.median < 1) || tr[t].j >= tr[t].k || tr[t].i == tr[t].j || tr[t].i == tr[t].k) good = 0;
        CHECK(good, "p2t: every triplet has 10 exchanges with a median in (0, 1 s)");
    }
    CHECK_RC(isochron_ops_p2t_run(MPI_COMM_WORLD, 512, 0, 0.95, tr, NULL), ISOCHRON_EINVAL, "rank %d: p2t reps 0 refused", rank);
    free(tr);
    CHECK_RC(isochron_ops_allpairs_run(MPI_COMM_WORLD, 8, 5, 7, 0.95, pr, NULL), ISOCHRON_ENAME, "rank %d: mode 7 refused", rank);
    CHECK_RC(isochron_ops_allpairs_run(MPI_COMM_WORLD, 8, rank == 0 ? 0 : 5, 0, 0.95, pr, NULL) != ISOCHRON_OK, 1,
             "rank %d: reps 0 on rank 0 refused everywhere", rank);
    CHECK_RC(isochron_models_measure(MPI_COMM_WORLD, sizes, 1, 5, 0, m), ISOCHRON_EINVAL, "rank %d: one size refused", rank);
    CHECK_RC(isochron_ops_allpairs_run(MPI_COMM_WORLD, 8, 5, 1, 0.95, pr, NULL), ISOCHRON_OK, "rank %d: works again afterwards", rank);
    free(pr);
    free(m);
    int rc = check_report("test_models_measure");
    MPI_Finalize();
    return rc;
}
