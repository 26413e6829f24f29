/*
 * test_op_calls: which allreduce algorithm ran, seen through the reduction operator. MPI calls a
 * user-defined operator with pieces of the buffer, and how it cuts the buffer is the algorithm's:
 * recursive doubling combines whole buffers log2(p) times, reduce-scatter + allgather
 * (Rabenseifner) halves and quarters, MPICH's shared-memory release/gather works in cells. So the
 * lengths the operator sees on rank 0, in call order, fingerprint the algorithm without timing
 * (the same on a quiet and a loaded machine). The operator is a commutative integer sum, and the
 * result is checked against the exact sum (exit 1 if wrong). tests/tune/mpich_json_accept.sh
 * compares the fingerprints under the JSON selection files isochron tune writes with those of
 * the algorithms forced by CVAR. Prints on rank 0 "small LENS large LENS" for 100 and 8000 ints
 * (400 B and 32000 B), LENS per rank the comma-separated lengths (or "-"), ranks joined by '|'.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char calls[4096];

static void sum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) b[i] += a[i];
    size_t n = strlen(calls);
    if (n + 16 < sizeof calls) snprintf(calls + n, sizeof calls - n, "%s%d", n ? "," : "", *len);
}

/* every rank's call lengths, joined on rank 0 */
static void gather_calls(int rank, int size, char *out, size_t cap)
{
    char mine[64];
    snprintf(mine, sizeof mine, "%.63s", calls[0] ? calls : "-");
    char *all = rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
    MPI_Gather(mine, (int)sizeof mine, MPI_CHAR, all, (int)sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        out[0] = '\0';
        for (int i = 0; i < size; i++) {
            size_t n = strlen(out);
            snprintf(out + n, cap - n, "%s%s", i ? "|" : "", all + (size_t)i * sizeof mine);
        }
        free(all);
    }
}

static int run(int n, int rank, int size, MPI_Op op, char *out, size_t cap)
{
    int *s = malloc((size_t)n * sizeof *s), *r = malloc((size_t)n * sizeof *r), bad = 0;
    for (int i = 0; i < n; i++) s[i] = rank * 1000 + i;
    calls[0] = '\0';
    MPI_Allreduce(s, r, n, MPI_INT, op, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        if (r[i] != 1000 * size * (size - 1) / 2 + size * i) bad = 1;
    gather_calls(rank, size, out, cap);
    free(s);
    free(r);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op op;
    MPI_Op_create(sum_op, 1, &op);
    char a[4096], b[4096];
    int bad = run(100, rank, size, op, a, sizeof a) | run(8000, rank, size, op, b, sizeof b);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        if (anybad) printf("FAIL: a user-operator allreduce gave a wrong sum\n");
        printf("small %s large %s\n", a, b);
    }
    MPI_Op_free(&op);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
