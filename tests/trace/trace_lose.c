/* trace_lose: a program whose trace cannot be written at MPI_Finalize. After MPI_Init (where the tracer
 * created ISOCHRON_TRACE_DIR and wrote a file in it), rank 0 replaces that directory (or its absence) by a
 * regular file,
 * then the ranks do one MPI_Allreduce and rank 0 prints "trace_lose: ran". Under the tracer the job must
 * say at MPI_Finalize that the trace was not written, naming the directory, and end with a non-zero exit
 * status (tests/trace/test_trace_settings.sh lost). Not a tracer test on its own: it only sets the scene. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *d = getenv("ISOCHRON_TRACE_DIR");
    if (rank == 0) {
        FILE *f = NULL;
        if (!d || (rmdir(d) != 0 && errno != ENOENT) || !(f = fopen(d, "w"))) {
            perror("trace_lose: cannot replace ISOCHRON_TRACE_DIR by a file");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fclose(f);
    }
    double x = rank, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("trace_lose: ran, sum %g\n", y);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
