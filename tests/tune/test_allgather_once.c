/*
 * test_allgather_once: one MPI_Allgather of N bytes per process (argv[1]), nothing else between
 * MPI_Init and MPI_Finalize, result checked (exit 1 if wrong). tests/tune/mpich_json_accept.sh runs
 * it under ucp_sends.so, which counts the point-to-point messages MPICH hands to UCX: their number
 * and bytes per rank are the algorithm's (recursive doubling at 4 processes sends 2 messages per
 * rank, the ring 3), the same on a quiet and a loaded machine.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n < 1) {
        if (rank == 0) fprintf(stderr, "usage: test_allgather_once BYTES (at least 1)\n");
        MPI_Finalize();
        return 2;
    }
    unsigned char *s = malloc((size_t)n), *r = malloc((size_t)n * (size_t)size);
    for (int i = 0; i < n; i++) s[i] = (unsigned char)(rank * 31 + i);
    MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
    int bad = 0;
    for (int p = 0; p < size; p++)
        for (int i = 0; i < n; i++)
            if (r[(size_t)p * (size_t)n + (size_t)i] != (unsigned char)(p * 31 + i)) bad = 1;
    if (bad) fprintf(stderr, "FAIL: rank %d: wrong allgather result\n", rank);
    free(s);
    free(r);
    MPI_Finalize();
    return bad;
}
