/*
 * test_tune_layer: run under LD_PRELOAD=libisochron-tune.so (tests/tune/tune_layer.sh). Every
 * redirectable call is made twice, through MPI_<f> (which the layer may redirect to its mock-up) and
 * through PMPI_<f> (the library's own), and the results must be equal byte for byte on every rank:
 * MPI_Allreduce (int sum, double max, long prod; double sum, which the layer must leave to the
 * library), MPI_Scan (int sum, double min; double sum left to the library), MPI_Reduce_scatter_block
 * (int sum, double max; double sum left to the library; blocks of count elements), MPI_Allgather and MPI_Bcast (bytes and a strided vector type, roots 0 and p-1), each
 * in place and not, at counts 0, 1, 7, 1000 and 40000. Then it states how many calls the layer
 * redirected (isochron_tune_redirected, found with dlsym: the program does not link the layer).
 *   test_tune_layer id                  print the profile lines of this run (library, nprocs, hosts)
 *   test_tune_layer check MODE          MODE = redirect: every function was redirected at least
 *                                       once and double sums never; none: nothing was redirected
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, bad;

static void same(const void *a, const void *b, size_t n, const char *what, int count, int ip)
{
    if (memcmp(a, b, n)) {
        bad++;
        printf("FAIL rank %d: %s count %d%s differs from the library's result\n", rank, what, count,
               ip ? " (in place)" : "");
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static void print_id(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], name[MPI_MAX_PROCESSOR_NAME] = "";
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = 0;
    for (char *t = lib; *t; t++)
        if (*t == '\t') *t = ' ';
    while (strlen(lib) && (lib[strlen(lib) - 1] == ' ' || lib[strlen(lib) - 1] == '\n')) lib[strlen(lib) - 1] = 0;
    MPI_Get_processor_name(name, &len);
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    qsort(all, (size_t)size, MPI_MAX_PROCESSOR_NAME, cmp_str);
    if (rank == 0) {
        printf("mpi_library %s\nnprocs %d\nhosts ", lib, size);
        for (int i = 0; i < size; i++)
            if (!i || strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME, all + (size_t)(i - 1) * MPI_MAX_PROCESSOR_NAME))
                printf("%s%s", i ? "," : "", all + (size_t)i * MPI_MAX_PROCESSOR_NAME);
        printf("\n");
    }
    free(all);
}

static void allreduce(int n, MPI_Datatype dt, MPI_Op op, const char *what)
{
    int ts;
    MPI_Type_size(dt, &ts);
    size_t b = (size_t)n * (size_t)ts + 1;
    unsigned char *s = malloc(b), *r1 = malloc(b), *r2 = malloc(b);
    for (int ip = 0; ip < 2; ip++) {
        for (int i = 0; i < n; i++) {
            if (dt == MPI_INT) ((int *)s)[i] = (rank + 1) * (i % 97) - 3 * rank;
            else if (dt == MPI_LONG) ((long *)s)[i] = (i + rank) % 3 == 0 ? -1 : 1;
            else ((double *)s)[i] = (rank % 2 ? 1e16 : 1.0) * (1 + i % 5) + 0.1 * rank; /* order-sensitive sums */
        }
        memcpy(r1, s, b);
        memcpy(r2, s, b);
        MPI_Allreduce(ip ? MPI_IN_PLACE : s, r1, n, dt, op, MPI_COMM_WORLD);
        PMPI_Allreduce(ip ? MPI_IN_PLACE : s, r2, n, dt, op, MPI_COMM_WORLD);
        same(r1, r2, (size_t)n * (size_t)ts, what, n, ip);
    }
    free(s); free(r1); free(r2);
}

static void scan(int n, MPI_Datatype dt, MPI_Op op, const char *what)
{
    int ts;
    MPI_Type_size(dt, &ts);
    size_t b = (size_t)n * (size_t)ts + 1;
    unsigned char *s = malloc(b), *r1 = malloc(b), *r2 = malloc(b);
    for (int ip = 0; ip < 2; ip++) {
        for (int i = 0; i < n; i++) {
            if (dt == MPI_INT) ((int *)s)[i] = (rank + 2) * (i % 89) - 5 * rank;
            else ((double *)s)[i] = (rank % 2 ? 1e16 : 1.0) * (1 + i % 7) + 0.1 * rank;
        }
        memcpy(r1, s, b);
        memcpy(r2, s, b);
        MPI_Scan(ip ? MPI_IN_PLACE : s, r1, n, dt, op, MPI_COMM_WORLD);
        PMPI_Scan(ip ? MPI_IN_PLACE : s, r2, n, dt, op, MPI_COMM_WORLD);
        same(r1, r2, (size_t)n * (size_t)ts, what, n, ip);
    }
    free(s); free(r1); free(r2);
}

static void reduce_scatter_block(int n, MPI_Datatype dt, MPI_Op op, const char *what)
{
    int ts;
    MPI_Type_size(dt, &ts);
    size_t all = (size_t)n * (size_t)size, b = all * (size_t)ts + 1;
    unsigned char *s = malloc(b), *r1 = malloc(b), *r2 = malloc(b);
    for (int ip = 0; ip < 2; ip++) {
        for (size_t i = 0; i < all; i++) {
            if (dt == MPI_INT) ((int *)s)[i] = (rank + 3) * (int)(i % 83) - 7 * rank;
            else ((double *)s)[i] = (rank % 2 ? 1e16 : 1.0) * (double)(1 + i % 11) + 0.1 * rank;
        }
        memcpy(r1, s, b); /* in place: the p blocks are in recvbuf; else recvbuf's tail must stay as it was */
        memcpy(r2, s, b);
        MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : s, r1, n, dt, op, MPI_COMM_WORLD);
        PMPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : s, r2, n, dt, op, MPI_COMM_WORLD);
        same(r1, r2, (size_t)n * (size_t)ts, what, n, ip);
    }
    free(s); free(r1); free(r2);
}

static void allgather(int n, MPI_Datatype dt, int ts)
{
    size_t blk = (size_t)n * (size_t)ts, all = blk * (size_t)size;
    unsigned char *s = malloc(blk + 1), *r1 = malloc(all + 1), *r2 = malloc(all + 1);
    for (int ip = 0; ip < 2; ip++) {
        for (size_t i = 0; i < blk; i++) s[i] = (unsigned char)(rank * 31 + i * 7);
        memset(r1, 0xee, all + 1);
        memset(r2, 0xee, all + 1);
        if (ip) {
            memcpy(r1 + (size_t)rank * blk, s, blk);
            memcpy(r2 + (size_t)rank * blk, s, blk);
        }
        MPI_Allgather(ip ? MPI_IN_PLACE : s, n, dt, r1, n, dt, MPI_COMM_WORLD);
        PMPI_Allgather(ip ? MPI_IN_PLACE : s, n, dt, r2, n, dt, MPI_COMM_WORLD);
        same(r1, r2, all, "MPI_Allgather", n, ip);
    }
    free(s); free(r1); free(r2);
}

static void bcast(int n, MPI_Datatype dt, MPI_Aint extent, int root, const char *what)
{
    size_t b = (size_t)n * (size_t)extent + 16;
    unsigned char *x1 = malloc(b), *x2 = malloc(b);
    for (size_t i = 0; i < b; i++) x1[i] = x2[i] = rank == root ? (unsigned char)(i * 13 + 5) : (unsigned char)(0xa0 + rank);
    MPI_Bcast(x1, n, dt, root, MPI_COMM_WORLD);
    PMPI_Bcast(x2, n, dt, root, MPI_COMM_WORLD);
    same(x1, x2, b, what, n, 0); /* the gaps of a strided type must stay as they were, too */
    free(x1); free(x2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "id")) {
        print_id();
        MPI_Finalize();
        return 0;
    }
    MPI_Datatype vec; /* 2 ints out of every 3: extent 8 ints... a type with gaps */
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Aint lb, vext;
    MPI_Type_get_extent(vec, &lb, &vext);
    const int counts[] = { 0, 1, 7, 1000, 40000 };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int n = counts[k];
        allreduce(n, MPI_INT, MPI_SUM, "MPI_Allreduce int sum");
        allreduce(n, MPI_LONG, MPI_PROD, "MPI_Allreduce long prod");
        allreduce(n, MPI_DOUBLE, MPI_MAX, "MPI_Allreduce double max");
        allreduce(n, MPI_DOUBLE, MPI_SUM, "MPI_Allreduce double sum");
        scan(n, MPI_INT, MPI_SUM, "MPI_Scan int sum");
        scan(n, MPI_DOUBLE, MPI_MIN, "MPI_Scan double min");
        scan(n, MPI_DOUBLE, MPI_SUM, "MPI_Scan double sum");
        reduce_scatter_block(n, MPI_INT, MPI_SUM, "MPI_Reduce_scatter_block int sum");
        reduce_scatter_block(n, MPI_DOUBLE, MPI_MAX, "MPI_Reduce_scatter_block double max");
        reduce_scatter_block(n, MPI_DOUBLE, MPI_SUM, "MPI_Reduce_scatter_block double sum");
        allgather(n, MPI_BYTE, 1);
        allgather(n, MPI_INT, 4);
        for (int root = 0; root < 2; root++) {
            bcast(n, MPI_BYTE, 1, root ? size - 1 : 0, "MPI_Bcast bytes");
            bcast(n, vec, vext, root ? size - 1 : 0, "MPI_Bcast strided");
        }
    }
    MPI_Type_free(&vec);
    long long (*redirected)(const char *) = (long long (*)(const char *))dlsym(RTLD_DEFAULT, "isochron_tune_redirected");
    long long ar = redirected ? redirected("MPI_Allreduce") : -1, ag = redirected ? redirected("MPI_Allgather") : -1,
              bc = redirected ? redirected("MPI_Bcast") : -1, sc = redirected ? redirected("MPI_Scan") : -1,
              rs = redirected ? redirected("MPI_Reduce_scatter_block") : -1;
    /* (read before the tally's own allreduce) */
    int total_bad = 0;
    PMPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!redirected) {
        if (rank == 0) printf("FAIL: isochron_tune_redirected not found (run under LD_PRELOAD=libisochron-tune.so)\n");
        total_bad++;
    } else if (argc > 2 && !strcmp(argv[1], "check")) {
        if (rank == 0)
            printf("rank 0 redirected: MPI_Allreduce %lld, MPI_Allgather %lld, MPI_Bcast %lld, MPI_Scan %lld,"
                   " MPI_Reduce_scatter_block %lld\n", ar, ag, bc, sc, rs);
        int want = !strcmp(argv[2], "redirect");
        /* allreduce: 3 exact kinds x 2 (in place or not) x 5 counts at most, the double sums stay; scan: 2 exact
         * kinds, not in place, x 5 counts; reduce_scatter_block: 2 exact kinds x 2 x 5 counts, the double sums stay */
        int ok = want ? (ar > 0 && ar <= 30 && ag > 0 && bc > 0 && sc > 0 && sc <= 10 && rs > 0 && rs <= 20)
                      : (ar == 0 && ag == 0 && bc == 0 && sc == 0 && rs == 0);
        if (!ok) {
            printf("FAIL rank %d: redirected counts do not match mode %s\n", rank, argv[2]);
            total_bad++;
        }
    }
    if (rank == 0) printf("%s: %d results differ from the library's\n", total_bad ? "FAIL" : "PASS", total_bad);
    MPI_Finalize();
    return total_bad != 0;
}
