/* Kernels for bench/papers/paper003.sh (paper 003, Xu & Cooperman, section 5), run unchanged under
 * libisochron-cc.so (LD_PRELOAD, ISOCHRON_CC_MODE=native|cc|2pc): built by the script, not part of
 * the library.
 *   paper003_kernel overlap OP BYTES REPS   Fig. 4: the overlap of a non-blocking collective with
 *        computation, the OSU 7 method: t_pure = mean of (start; wait); then (start; compute for
 *        t_pure; wait) gives t_total, and compute alone t_cpu; overlap % = max(0, 100 * (1 -
 *        (t_total - t_cpu) / t_pure)). OP: iallreduce ibcast ialltoall iallgather ibarrier.
 *   paper003_kernel app ITERS               Fig. 6's stand-in (VASP cannot run here): an
 *        iteration of a halo exchange (MPI_Sendrecv with both neighbours, 1 KiB), a non-blocking
 *        reduction left pending over 20 us of computation, an 8 B MPI_Allreduce and, every 10th
 *        iteration, an MPI_Bcast of 4 KiB: collectives and point-to-point interleaved at a high
 *        rate, like the paper's VASP (2489 collective and 2569 point-to-point calls per second).
 * Prints one line on rank 0: "overlap OP BYTES pure_us P total_us T cpu_us C overlap_pct O" or
 * "app ITERS iter_us U coll_per_s C p2p_per_s P". Times are the maximum over ranks of each rank's
 * mean (MPI_Wtime), after a barrier. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static volatile double sink;

static void compute_for(double sec)
{
    double t0 = MPI_Wtime(), x = 1.0;
    while (MPI_Wtime() - t0 < sec)
        for (int i = 0; i < 50; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static int start(const char *op, void *s, void *r, int n, int size, MPI_Request *q)
{
    if (!strcmp(op, "iallreduce")) return MPI_Iallreduce(s, r, n / 4 ? n / 4 : 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, q);
    if (!strcmp(op, "ibcast")) return MPI_Ibcast(s, n, MPI_BYTE, 0, MPI_COMM_WORLD, q);
    if (!strcmp(op, "ialltoall")) return MPI_Ialltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, q);
    if (!strcmp(op, "iallgather")) return MPI_Iallgather(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, q);
    if (!strcmp(op, "ibarrier")) return MPI_Ibarrier(MPI_COMM_WORLD, q);
    (void)size;
    return -1;
}

static double max_over_ranks(double v)
{
    double m = 0;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 5 && !strcmp(argv[1], "overlap")) {
        const char *op = argv[2];
        int n = atoi(argv[3]), reps = atoi(argv[4]);
        size_t bytes = (size_t)(n > 0 ? n : 1) * (size_t)size;
        char *s = calloc(bytes, 1), *r = calloc(bytes, 1);
        MPI_Request q;
        if (!s || !r || reps < 1 || start(op, s, r, n, size, &q) != MPI_SUCCESS) {
            if (rank == 0) fprintf(stderr, "paper003_kernel: bad operation '%s' or size %d or reps %d\n", op, n, reps);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (int w = 0; w < 3; w++) { start(op, s, r, n, size, &q); MPI_Wait(&q, MPI_STATUS_IGNORE); }   /* warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps; i++) { start(op, s, r, n, size, &q); MPI_Wait(&q, MPI_STATUS_IGNORE); }
        double pure = max_over_ranks((MPI_Wtime() - t0) / reps);
        MPI_Barrier(MPI_COMM_WORLD);
        double tot = 0, cpu = 0;
        for (int i = 0; i < reps; i++) {
            double a = MPI_Wtime();
            start(op, s, r, n, size, &q);
            double b = MPI_Wtime();
            compute_for(pure);
            double c = MPI_Wtime();
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            tot += MPI_Wtime() - a;
            cpu += c - b;
        }
        tot = max_over_ranks(tot / reps);
        cpu = max_over_ranks(cpu / reps);
        double ov = 100.0 * (1.0 - (tot - cpu) / pure);
        if (ov < 0) ov = 0;
        if (rank == 0) printf("overlap %s %d pure_us %.3f total_us %.3f cpu_us %.3f overlap_pct %.1f\n", op, n, 1e6 * pure,
                              1e6 * tot, 1e6 * cpu, ov);
        free(s);
        free(r);
    } else if (argc >= 3 && !strcmp(argv[1], "app")) {
        int iters = atoi(argv[2]);
        if (iters < 1) { if (rank == 0) fprintf(stderr, "paper003_kernel: app ITERS: '%s' is not >= 1\n", argv[2]); MPI_Abort(MPI_COMM_WORLD, 2); }
        char hl[1024], hr[1024], sl[1024], sr[1024], bc[4096];
        memset(sl, rank, sizeof sl); memset(sr, rank, sizeof sr); memset(bc, 0, sizeof bc);
        int left = (rank + size - 1) % size, right = (rank + 1) % size;
        double red = rank, acc = 0, part = 0, v = 0;
        long long coll = 0, p2p = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
            MPI_Sendrecv(sl, sizeof sl, MPI_BYTE, left, 1, hr, sizeof hr, MPI_BYTE, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(sr, sizeof sr, MPI_BYTE, right, 2, hl, sizeof hl, MPI_BYTE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            p2p += 2;
            MPI_Request q;
            MPI_Iallreduce(&red, &part, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
            compute_for(20e-6);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            v = hl[0] + hr[0] + part;
            MPI_Allreduce(&v, &acc, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            coll += 2;
            if (it % 10 == 0) { MPI_Bcast(bc, sizeof bc, MPI_BYTE, it % size, MPI_COMM_WORLD); coll++; }
        }
        double t = max_over_ranks(MPI_Wtime() - t0);
        if (rank == 0) printf("app %d iter_us %.3f coll_per_s %.0f p2p_per_s %.0f check %.0f\n", iters, 1e6 * t / iters,
                              coll / t, p2p / t, acc);
    } else {
        if (rank == 0) fprintf(stderr, "usage: paper003_kernel overlap OP BYTES REPS | app ITERS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
