/*
 * test_estimators: the offset estimators through the public API
 * (isochron_estimator_find, ->measure) at 2 ranks, over CLOCK_MONOTONIC with
 * a known injected offset between the ranks (rank 1 is 3 ms ahead, no drift,
 * no jitter), so the true offset (reference minus client) is -3 ms at every
 * instant. For Mean-RTT-Offset (Alg. 8, Jones & Koenig):
 *  - it is found by name and by the paper's label, and has no hard bounds;
 *  - the RTT is measured once per pair: state.rtt is set by the first call
 *    (0 < rtt) and kept by the next ones;
 *  - causality bounds every estimate on both sides: the reference stamped
 *    its time before the client received it, so estimate - truth <= RTT/2;
 *    and the exchange used happened within the call, so estimate - truth >=
 *    RTT/2 - (duration of the call on the client). Both are hard bounds that
 *    no scheduling noise can break, and a wrong sign or a wrong reference
 *    misses them by milliseconds;
 *  - the timestamp is a client clock reading taken during the call, and the
 *    uncertainty is positive.
 * SKaMPI-Offset is checked against its own hard bounds: the truth lies in
 * [offset - uncertainty, offset + uncertainty].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "isochron/clock.h"
#include "isochron/sync.h"
#include "check.h"

static int rank, size;
#define OFFSET1 3e-3

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_quiet = rank != 0;
    if (size != 2) {
        if (rank == 0) printf("test_estimators runs at 2 ranks (got %d)\n", size);
        MPI_Finalize();
        return 1;
    }
    const isochron_estimator_t *e = NULL, *e2 = NULL;
    CHECK_RC(isochron_estimator_find("mean-rtt", &e), ISOCHRON_OK, "find mean-rtt");
    CHECK_RC(isochron_estimator_find("Mean-RTT-Offset", &e2), ISOCHRON_OK, "find the paper's label Mean-RTT-Offset");
    CHECK(e && e == e2 && !e->hard_bounds, "one estimator under both names, without hard bounds");
    isochron_timer_t *base = NULL, *t = NULL;
    isochron_timer_create("monotonic", &base);
    isochron_skew_t sk = {rank == 1 ? OFFSET1 : 0, 0, 0, 0, 1};
    CHECK_RC(isochron_timer_skew(base, &sk, &t), ISOCHRON_OK, "rank %d: monotonic + %g ms", rank, sk.offset * 1e3);
    isochron_clock_t *clk = NULL;
    isochron_clock_create(t, &clk);
    const double truth = -OFFSET1; /* reference (rank 0) minus client (rank 1) */

    if (e) {
        isochron_estimator_state_t st = {0};
        double first_rtt = 0;
        int bounds_ok = 1, ts_ok = 1, unc_ok = 1, rtt_kept = 1;
        double worst_hi = -INFINITY, worst_lo = INFINITY;
        for (int call = 0; call < 20; call++) {
            isochron_offset_t o = {NAN, NAN, NAN};
            double before = isochron_clock_now(clk);
            int rc = e->measure(MPI_COMM_WORLD, clk, 0, 1, 20, &st, &o);
            double after = isochron_clock_now(clk);
            CHECK_RC(rc, ISOCHRON_OK, "rank %d: Mean-RTT-Offset call %d", rank, call);
            if (rc) break;
            if (call == 0) first_rtt = st.rtt;
            rtt_kept &= st.rtt == first_rtt;
            if (rank != 1) continue;
            double err = o.offset - truth;
            /* hard: est - truth <= RTT/2, and >= RTT/2 - (the call's duration) */
            double hi = st.rtt / 2 + 1e-9, lo = st.rtt / 2 - (after - before) - 1e-9;
            if (!(err <= hi && err >= lo)) {
                bounds_ok = 0;
                printf("  call %d: error %.3f us outside [%.3f, %.3f] us (rtt %.3f us)\n", call, err * 1e6, lo * 1e6, hi * 1e6, st.rtt * 1e6);
            }
            worst_hi = fmax(worst_hi, err);
            worst_lo = fmin(worst_lo, err);
            ts_ok &= o.timestamp >= before && o.timestamp <= after;
            unc_ok &= o.uncertainty > 0 && isfinite(o.uncertainty);
        }
        if (rank == 1) {
            printf("info Mean-RTT-Offset: rtt %.3f us, errors %.3f .. %.3f us over 20 calls\n", first_rtt * 1e6, worst_lo * 1e6, worst_hi * 1e6);
            CHECK(first_rtt > 0 && first_rtt < 1.0, "client: the RTT was measured (%.3f us)", first_rtt * 1e6);
            CHECK(rtt_kept, "client: the RTT is measured once per pair and kept by later calls");
            CHECK(bounds_ok, "client: every estimate obeys the causality bounds around the true -3 ms");
            CHECK(ts_ok, "client: every timestamp is a clock reading taken during its call");
            CHECK(unc_ok, "client: every uncertainty is positive and finite");
        }
    }

    const isochron_estimator_t *sk_e = NULL;
    CHECK_RC(isochron_estimator_find("SKaMPI-Offset", &sk_e), ISOCHRON_OK, "find SKaMPI-Offset");
    if (sk_e) {
        CHECK(sk_e->hard_bounds, "SKaMPI-Offset has hard bounds");
        isochron_estimator_state_t st = {0};
        int ok = 1;
        for (int call = 0; call < 20; call++) {
            isochron_offset_t o = {NAN, NAN, NAN};
            if (sk_e->measure(MPI_COMM_WORLD, clk, 0, 1, 20, &st, &o) != ISOCHRON_OK) { ok = 0; break; }
            if (rank == 1 && !(fabs(o.offset - truth) <= o.uncertainty + 1e-9)) {
                ok = 0;
                printf("  call %d: %.3f us +- %.3f us misses the truth\n", call, (o.offset - truth) * 1e6, o.uncertainty * 1e6);
            }
        }
        if (rank == 1) CHECK(ok, "client: the truth lies within every SKaMPI-Offset interval");
    }
    isochron_clock_destroy(clk);
    isochron_timer_destroy(t);
    int mine = check_failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check_report("test_estimators");
    MPI_Finalize();
    return total ? 1 : 0;
}
