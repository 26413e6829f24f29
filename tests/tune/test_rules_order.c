/*
 * test_rules_order: which allreduce algorithm ran, seen in the result. Sums of doubles depend on
 * the order in which the algorithm combines the ranks' contributions (values of 1e16 and of 1 are
 * chosen so that most orders round differently), so the bits of an MPI_SUM allreduce fingerprint
 * the algorithm: tests/tune/rules_accept.sh compares the fingerprint under a rules file isochron
 * wrote with the one of the algorithm forced by coll_tuned_<coll>_algorithm. Prints on rank 0
 * "small HASH large HASH" for 100 and 4000 doubles (800 B and 32000 B).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t run(int n, int rank)
{
    double *s = malloc((size_t)n * sizeof *s), *r = malloc((size_t)n * sizeof *r);
    for (int i = 0; i < n; i++) {
        int k = (rank + i) % 4;
        s[i] = k == 0 ? 1.0 + (i % 7) : k == 1 ? 1e16 : k == 2 ? 3.0 + (i % 5) : -1e16 + 2.0 * (i % 3);
    }
    MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    uint64_t h = fnv(r, (size_t)n * sizeof *r);
    free(s);
    free(r);
    return h;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t a = run(100, rank), b = run(4000, rank);
    if (rank == 0) printf("small %016llx large %016llx\n", (unsigned long long)a, (unsigned long long)b);
    MPI_Finalize();
    return 0;
}
