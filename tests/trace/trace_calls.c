/* trace_calls: one call of each kind the tracer records, with known counts, peers and roots, for
 * tests/trace/check_calls.py to compare with the trace (what the tracer records from the call record of
 * src/pmpi/pmpi.h: bytes = count x type size, the communicator and its size, peer, root). At 3+ ranks:
 *   MPI_Scatter  root 1, 2 doubles to each rank       bytes 16 (the block received)
 *   MPI_Gather   root 2, 3 ints from each rank        bytes 12
 *   MPI_Comm_dup of world, MPI_Bcast 5 ints root 0 on it (bytes 20), MPI_Comm_free of it
 *   MPI_Comm_split in halves, MPI_Allreduce 1 double on the half (its size)
 *   MPI_Isend 4 floats to rank+1, MPI_Irecv from rank-1 (bytes 16), MPI_Waitall
 *   MPI_Win_create, MPI_Win_fence, MPI_Put 3 ints to rank+1 (12), MPI_Get 1 double from rank+2 (8),
 *   MPI_Win_fence, MPI_Win_free
 * and checks the data it moved (exit 1 and "trace_calls: FAIL" if wrong). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double sbuf[64], rbuf[2];
    for (int i = 0; i < 2 * size && i < 64; i++) sbuf[i] = i;
    /* the send side is significant at the root only: elsewhere 0 ints (the recorded bytes must not use it) */
    MPI_Scatter(sbuf, rank == 1 ? 2 : 0, rank == 1 ? MPI_DOUBLE : MPI_INT, rbuf, 2, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    bad |= rbuf[0] != 2 * rank || rbuf[1] != 2 * rank + 1;
    int g[3] = {rank, rank, rank}, gall[3 * 64];
    MPI_Gather(g, 3, MPI_INT, gall, 3, MPI_INT, 2, MPI_COMM_WORLD);
    bad |= rank == 2 && gall[3 * (size - 1)] != size - 1;

    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int b[5] = {0};
    if (rank == 0) b[4] = 42;
    MPI_Bcast(b, 5, MPI_INT, 0, dup);
    bad |= b[4] != 42;
    MPI_Comm_free(&dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    double one = 1, n = 0;
    MPI_Allreduce(&one, &n, 1, MPI_DOUBLE, MPI_SUM, half);
    bad |= n != (rank < size / 2 ? size / 2 : size - size / 2);
    MPI_Comm_free(&half);

    float fs[4] = {(float)rank, 0, 0, 0}, fr[4];
    MPI_Request rq[2];
    MPI_Irecv(fr, 4, MPI_FLOAT, (rank + size - 1) % size, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(fs, 4, MPI_FLOAT, (rank + 1) % size, 9, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    bad |= fr[0] != (float)((rank + size - 1) % size);

    int wbuf[4] = {0};
    double dget = -1, dwin[1] = {0};
    MPI_Win win, dw;
    MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_create(dwin, sizeof dwin, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &dw);
    dwin[0] = 100 + rank;
    int put[3] = {rank, rank, rank};
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, dw);
    MPI_Put(put, 3, MPI_INT, (rank + 1) % size, 0, 3, MPI_INT, win);
    MPI_Get(&dget, 1, MPI_DOUBLE, (rank + 2) % size, 0, 1, MPI_DOUBLE, dw);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, dw);
    bad |= wbuf[2] != (rank + size - 1) % size || dget != 100 + (rank + 2) % size;
    MPI_Win_free(&win);
    MPI_Win_free(&dw);

    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("trace_calls: data %s\n", any ? "FAIL" : "ok");
    MPI_Finalize();
    return any != 0;
}
