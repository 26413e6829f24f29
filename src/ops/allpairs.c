/*
 * MPIBlib's parallel point-to-point benchmark (paper 001, sec. 4): round
 * trips i <-> j for every pair i < j, with pairs measured at the same time
 * as long as "each process [is] involved in no more than one
 * communication". That is exactly a round of a round-robin tournament, so
 * the pairs are scheduled by the circle method: with n = p (p even) or p + 1
 * (p odd, one "bye" seat), round t pairs seat n-1 with t and seat a with
 * (2t - a) mod (n-1); n-1 rounds cover all p(p-1)/2 pairs, about p times
 * faster than measuring them one after the other (the paper reports 0.5 s
 * against 3.5 s at 16 nodes). A round trip only involves the two processes'
 * own clocks, so MPI_Wtime is right here and no global clock is needed.
 * Rounds are separated by a polite barrier (core/util.c) so that a process
 * sitting a round out sleeps instead of spinning against the pairs on an
 * oversubscribed node. All traffic goes over a duplicate of the caller's
 * communicator.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

enum { TAG_AP_PING = 0x15A1, TAG_AP_PONG };

/* Partner of rank a in round t (n seats, n even), or -1 for a bye. */
static int partner(int a, int t, int n, int p)
{
    int b;
    if (a == n - 1) b = t;
    else if (a == t) b = n - 1;
    else b = ((2 * t - a) % (n - 1) + (n - 1)) % (n - 1);
    return b < p ? b : -1;
}

int isochron_ops_allpairs(MPI_Comm comm, size_t bytes, int reps, double *rtt)
{
    int rank, p;
    if (comm == MPI_COMM_NULL) return isochron_set_error(ISOCHRON_EINVAL, "allpairs: no communicator");
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &p) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "allpairs: cannot query the communicator");

    /* arguments: checked everywhere, agreed, so no rank goes on alone */
    int rc = ISOCHRON_OK;
    size_t avail = 0;
    if (reps < 1) rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs: reps must be at least 1 (got %d)", reps);
    else if (bytes > (size_t)INT_MAX)
        rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs: %zu bytes is more than an MPI count can hold (%d)", bytes,
                                INT_MAX);
    else if (rank == 0 && !rtt) rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs: rtt is NULL on rank 0");
    int mem_rc = isochron_op_memory_available(comm, &avail);
    if (mem_rc) return mem_rc;
    if (rc == ISOCHRON_OK && bytes > avail / 2)
        rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs needs %zu bytes per process, more than the %zu available",
                                2 * bytes, avail);
    double *times = NULL, *row = NULL;
    char *sbuf = NULL, *rbuf = NULL;
    if (rc == ISOCHRON_OK) {
        times = malloc((size_t)reps * sizeof *times);
        row = calloc((size_t)p, sizeof *row);
        sbuf = malloc(bytes ? bytes : 1);
        rbuf = malloc(bytes ? bytes : 1);
        if (!times || !row || !sbuf || !rbuf)
            rc = isochron_set_error(ISOCHRON_ENOMEM, "allpairs: out of memory on rank %d", rank);
        else
            memset(sbuf, rank & 0xFF, bytes);
    }
    int all = rc;
    if (MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) all = ISOCHRON_EMPI;
    if (all != ISOCHRON_OK) {
        free(times); free(row); free(sbuf); free(rbuf);
        if (rc == ISOCHRON_OK) rc = isochron_set_error(all, "allpairs: refused on another rank");
        return rc;
    }

    MPI_Comm dup;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) {
        free(times); free(row); free(sbuf); free(rbuf);
        return isochron_set_error(ISOCHRON_EMPI, "allpairs: MPI_Comm_dup failed");
    }
    int n = p + (p & 1), cnt = (int)bytes;
    for (int t = 0; t < n - 1 && rc == ISOCHRON_OK; t++) {
        int q = partner(rank, t, n, p);
        if (q >= 0 && rank < q) { /* the lower rank times */
            for (int k = -1; k < reps; k++) { /* k = -1: untimed warm-up */
                double t0 = MPI_Wtime();
                if (MPI_Send(sbuf, cnt, MPI_BYTE, q, TAG_AP_PING, dup) != MPI_SUCCESS ||
                    MPI_Recv(rbuf, cnt, MPI_BYTE, q, TAG_AP_PONG, dup, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                    rc = isochron_set_error(ISOCHRON_EMPI, "allpairs: round trip %d <-> %d failed", rank, q);
                    break;
                }
                if (k >= 0) times[k] = MPI_Wtime() - t0;
            }
            if (rc == ISOCHRON_OK) row[q] = isochron_median(times, reps);
        } else if (q >= 0) {
            for (int k = -1; k < reps; k++)
                if (MPI_Recv(rbuf, cnt, MPI_BYTE, q, TAG_AP_PING, dup, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                    MPI_Send(sbuf, cnt, MPI_BYTE, q, TAG_AP_PONG, dup) != MPI_SUCCESS) {
                    rc = isochron_set_error(ISOCHRON_EMPI, "allpairs: round trip %d <-> %d failed", q, rank);
                    break;
                }
        }
        int brc = isochron_barrier_polite(dup);
        if (brc && rc == ISOCHRON_OK) rc = brc;
    }
    if (rc == ISOCHRON_OK &&
        MPI_Gather(row, p, MPI_DOUBLE, rank == 0 ? rtt : NULL, p, MPI_DOUBLE, 0, dup) != MPI_SUCCESS)
        rc = isochron_set_error(ISOCHRON_EMPI, "allpairs: MPI_Gather of the results failed");
    if (rc == ISOCHRON_OK && rank == 0)
        for (int i = 0; i < p; i++) {
            rtt[(size_t)i * p + i] = 0.0;
            for (int j = i + 1; j < p; j++) rtt[(size_t)j * p + i] = rtt[(size_t)i * p + j];
        }
    MPI_Comm_free(&dup);
    free(times); free(row); free(sbuf); free(rbuf);
    return rc;
}
