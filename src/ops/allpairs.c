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
 * For comparison, the sequential mode measures one pair at a time while every
 * other process waits in a barrier (the paper's 3.5 s against 0.5 s). Each
 * pair's round trips are summarized (isochron/stats.h) on rank 0, together
 * with the time the timing rank spent inside MPI_Send (the sender overhead o
 * of LogP, which a round trip alone cannot separate from the latency).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

enum { TAG_AP_PING = 0x15A1, TAG_AP_PONG };

static const char *const mode_names[] = {"parallel", "sequential"};

const char *isochron_ops_p2p_mode_names(void) { return "parallel, sequential"; }

int isochron_ops_p2p_mode_find(const char *name, int *mode)
{
    for (int i = 0; i < 2; i++)
        if (name && !strcmp(name, mode_names[i])) {
            if (mode) *mode = i;
            return ISOCHRON_OK;
        }
    return isochron_set_error(ISOCHRON_ENAME, "unknown point-to-point mode '%s'; valid: %s", name ? name : "(null)",
                              isochron_ops_p2p_mode_names());
}

int isochron_ops_allpairs_rounds(int p) { return p < 2 ? 0 : p + (p & 1) - 1; }

/* Circle method with n = p rounded up to even seats; seat n-1 is a bye for odd p. */
int isochron_ops_allpairs_partner(int a, int t, int p)
{
    int n = p + (p & 1), b;
    if (p < 2 || a < 0 || a >= p || t < 0 || t >= n - 1) return -1;
    if (a == n - 1) b = t;
    else if (a == t) b = n - 1;
    else b = ((2 * t - a) % (n - 1) + (n - 1)) % (n - 1);
    return b < p ? b : -1;
}

/* One pair's exchange: the lower rank times reps round trips (after one
 * untimed warm-up) into times[] and the time inside MPI_Send into sends[];
 * then ap_bursts(reps) bursts of AP_BURST messages answered by one reply of
 * the same size into bursts[]: a burst takes (AP_BURST - 1) g + one round
 * trip, which gives LogGP's gap g at this size. */
enum { AP_BURST = 8 };
static int ap_bursts(int reps) { return reps < 10 ? reps : 10; }

static int exchange(MPI_Comm dup, int me, int q, char *sbuf, char *rbuf, int cnt, int reps, double *times, double *sends,
                    double *bursts)
{
    int rc = ISOCHRON_OK;
    for (int k = -1; k < reps; k++) {
        if (me < q) {
            double t0 = MPI_Wtime();
            if (MPI_Send(sbuf, cnt, MPI_BYTE, q, TAG_AP_PING, dup) != MPI_SUCCESS)
                return isochron_set_error(ISOCHRON_EMPI, "allpairs: round trip %d <-> %d failed", me, q);
            double t1 = MPI_Wtime();
            if (MPI_Recv(rbuf, cnt, MPI_BYTE, q, TAG_AP_PONG, dup, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return isochron_set_error(ISOCHRON_EMPI, "allpairs: round trip %d <-> %d failed", me, q);
            if (k >= 0) {
                times[k] = MPI_Wtime() - t0;
                sends[k] = t1 - t0;
            }
        } else if (MPI_Recv(rbuf, cnt, MPI_BYTE, q, TAG_AP_PING, dup, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                   MPI_Send(sbuf, cnt, MPI_BYTE, q, TAG_AP_PONG, dup) != MPI_SUCCESS)
            return isochron_set_error(ISOCHRON_EMPI, "allpairs: round trip %d <-> %d failed", q, me);
    }
    for (int k = 0; k < ap_bursts(reps) && rc == ISOCHRON_OK; k++) {
        double t0 = MPI_Wtime();
        for (int m = 0; m < AP_BURST && rc == ISOCHRON_OK; m++)
            if ((me < q ? MPI_Send(sbuf, cnt, MPI_BYTE, q, TAG_AP_PING, dup) : MPI_Recv(rbuf, cnt, MPI_BYTE, q, TAG_AP_PING, dup, MPI_STATUS_IGNORE)) !=
                MPI_SUCCESS)
                rc = isochron_set_error(ISOCHRON_EMPI, "allpairs: burst %d -> %d failed", me < q ? me : q, me < q ? q : me);
        if (rc == ISOCHRON_OK &&
            (me < q ? MPI_Recv(rbuf, cnt, MPI_BYTE, q, TAG_AP_PONG, dup, MPI_STATUS_IGNORE) : MPI_Send(sbuf, cnt, MPI_BYTE, q, TAG_AP_PONG, dup)) !=
                MPI_SUCCESS)
            rc = isochron_set_error(ISOCHRON_EMPI, "allpairs: burst reply %d <-> %d failed", me, q);
        if (me < q) bursts[k] = MPI_Wtime() - t0;
    }
    return rc;
}

int isochron_ops_allpairs_run(MPI_Comm comm, size_t bytes, int reps, int mode, double ci_level, isochron_pair_t *pairs,
                              double *wall)
{
    int rank, p;
    if (comm == MPI_COMM_NULL) return isochron_set_error(ISOCHRON_EINVAL, "allpairs: no communicator");
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &p) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "allpairs: cannot query the communicator");

    /* arguments: checked everywhere, agreed, so no rank goes on alone */
    int rc = ISOCHRON_OK;
    size_t avail = 0;
    if (reps < 1) rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs: reps must be at least 1 (got %d)", reps);
    else if (mode != ISOCHRON_P2P_PARALLEL && mode != ISOCHRON_P2P_SEQUENTIAL)
        rc = isochron_set_error(ISOCHRON_ENAME, "allpairs: mode %d is not one of %s", mode, isochron_ops_p2p_mode_names());
    else if (!(ci_level > 0 && ci_level < 1))
        rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs: confidence level %g is not in (0, 1)", ci_level);
    else if (bytes > (size_t)INT_MAX)
        rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs: %zu bytes is more than an MPI count can hold (%d)", bytes,
                                INT_MAX);
    else if (rank == 0 && !pairs) rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs: the result array is NULL on rank 0");
    int mem_rc = isochron_op_memory_available(comm, &avail);
    if (mem_rc) return mem_rc;
    if (rc == ISOCHRON_OK && bytes > avail / 2)
        rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs needs %zu bytes per process, more than the %zu available",
                                2 * bytes, avail);
    /* per rank: for each higher partner q, reps round trips then reps send times (row of 2*reps*p) */
    size_t row = 3 * (size_t)reps * (size_t)p;
    double *mine = NULL, *all = NULL;
    char *sbuf = NULL, *rbuf = NULL;
    if (rc == ISOCHRON_OK) {
        mine = calloc(row, sizeof *mine);
        sbuf = malloc(bytes ? bytes : 1);
        rbuf = malloc(bytes ? bytes : 1);
        if (rank == 0) all = malloc(row * (size_t)p * sizeof *all);
        if (!mine || !sbuf || !rbuf || (rank == 0 && !all))
            rc = isochron_set_error(ISOCHRON_ENOMEM, "allpairs: out of memory on rank %d", rank);
        else
            memset(sbuf, rank & 0xFF, bytes);
    }
    int agreed = rc;
    if (MPI_Allreduce(&rc, &agreed, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) agreed = ISOCHRON_EMPI;
    if (agreed != ISOCHRON_OK) {
        free(mine); free(all); free(sbuf); free(rbuf);
        if (rc == ISOCHRON_OK) rc = isochron_set_error(agreed, "allpairs: refused on another rank");
        return rc;
    }

    MPI_Comm dup;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) {
        free(mine); free(all); free(sbuf); free(rbuf);
        return isochron_set_error(ISOCHRON_EMPI, "allpairs: MPI_Comm_dup failed");
    }
    int cnt = (int)bytes;
    double w0 = MPI_Wtime();
    if (mode == ISOCHRON_P2P_PARALLEL) {
        for (int t = 0; t < isochron_ops_allpairs_rounds(p) && rc == ISOCHRON_OK; t++) {
            int q = isochron_ops_allpairs_partner(rank, t, p);
            if (q >= 0) {
                double *m = mine + 3 * (size_t)reps * (size_t)q;
                rc = exchange(dup, rank, q, sbuf, rbuf, cnt, reps, m, m + reps, m + 2 * (size_t)reps);
            }
            int brc = isochron_barrier_polite(dup);
            if (brc && rc == ISOCHRON_OK) rc = brc;
        }
    } else {
        for (int i = 0; i < p - 1 && rc == ISOCHRON_OK; i++)
            for (int j = i + 1; j < p && rc == ISOCHRON_OK; j++) {
                if (rank == i || rank == j) {
                    int q = rank == i ? j : i;
                    double *m = mine + 3 * (size_t)reps * (size_t)q;
                    rc = exchange(dup, rank, q, sbuf, rbuf, cnt, reps, m, m + reps, m + 2 * (size_t)reps);
                }
                int brc = isochron_barrier_polite(dup);
                if (brc && rc == ISOCHRON_OK) rc = brc;
            }
    }
    if (wall) *wall = MPI_Wtime() - w0;
    if (rc == ISOCHRON_OK && MPI_Gather(mine, (int)row, MPI_DOUBLE, all, (int)row, MPI_DOUBLE, 0, dup) != MPI_SUCCESS)
        rc = isochron_set_error(ISOCHRON_EMPI, "allpairs: MPI_Gather of the results failed");
    if (rc == ISOCHRON_OK && rank == 0) {
        int k = 0;
        for (int i = 0; i < p - 1 && rc == ISOCHRON_OK; i++)
            for (int j = i + 1; j < p && rc == ISOCHRON_OK; j++, k++) {
                double *m = all + row * (size_t)i + 3 * (size_t)reps * (size_t)j;
                pairs[k].i = i;
                pairs[k].j = j;
                rc = isochron_summarize(m, reps, ci_level, NULL, 0, &pairs[k].s);
                pairs[k].send_s = isochron_median(m + reps, reps);
                double burst = isochron_median(m + 2 * (size_t)reps, ap_bursts(reps));
                pairs[k].gap_s = fmax(0.0, (burst - pairs[k].s.median) / (AP_BURST - 1));
            }
    }
    MPI_Comm_free(&dup);
    free(mine); free(all); free(sbuf); free(rbuf);
    return rc;
}

int isochron_ops_allpairs(MPI_Comm comm, size_t bytes, int reps, double *rtt)
{
    int rank, p;
    if (comm == MPI_COMM_NULL) return isochron_set_error(ISOCHRON_EINVAL, "allpairs: no communicator");
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &p) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "allpairs: cannot query the communicator");
    isochron_pair_t *pairs = NULL;
    int rc = ISOCHRON_OK;
    if (rank == 0 && rtt) {
        pairs = calloc((size_t)p * (size_t)(p > 1 ? p - 1 : 1) / 2 + 1, sizeof *pairs);
        if (!pairs) rc = isochron_set_error(ISOCHRON_ENOMEM, "allpairs: out of memory");
    } else if (rank == 0) rc = isochron_set_error(ISOCHRON_EINVAL, "allpairs: rtt is NULL on rank 0");
    if (rc != ISOCHRON_OK) { /* the others must not wait: run with an invalid argument that every rank refuses */
        isochron_ops_allpairs_run(comm, bytes, 0, ISOCHRON_P2P_PARALLEL, 0.95, NULL, NULL);
        free(pairs);
        return isochron_set_error(rc, "allpairs: rtt is NULL on rank 0");
    }
    rc = isochron_ops_allpairs_run(comm, bytes, reps, ISOCHRON_P2P_PARALLEL, 0.95, pairs, NULL);
    if (rc == ISOCHRON_OK && rank == 0) {
        int k = 0;
        for (int i = 0; i < p; i++) rtt[(size_t)i * p + i] = 0.0;
        for (int i = 0; i < p - 1; i++)
            for (int j = i + 1; j < p; j++, k++)
                rtt[(size_t)i * p + j] = rtt[(size_t)j * p + i] = pairs[k].s.median;
    }
    free(pairs);
    return rc;
}

/* ---- point-to-two: i <-> {j, k}, in parallel rounds of disjoint triplets */

enum { TAG_P2T_OUT = 0x15A3, TAG_P2T_BACK };

typedef struct { int t, w; } ap_key_t;
static int ap_key_cmp(const void *a, const void *b)
{
    const ap_key_t *x = a, *y = b;
    return x->w != y->w ? (y->w > x->w ? 1 : -1) : (x->t > y->t) - (x->t < y->t);
}

int isochron_ops_p2t_count(int p) { return p < 3 ? 0 : p * (p - 1) * (p - 2) / 2; }

int isochron_ops_p2t_schedule(int p, int *trip, int *round)
{
    int n = isochron_ops_p2t_count(p);
    if (n == 0) return 0;
    int *tr = malloc((size_t)n * 3 * sizeof *tr), *rd = malloc((size_t)n * sizeof *rd);
    char *busy = malloc((size_t)p);
    if (!tr || !rd || !busy) {
        free(tr); free(rd); free(busy);
        return isochron_set_error(ISOCHRON_ENOMEM, "p2t: out of memory");
    }
    int t = 0;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            for (int k = j + 1; k < p; k++)
                if (j != i && k != i) { tr[3 * t] = i; tr[3 * t + 1] = j; tr[3 * t + 2] = k; rd[t++] = -1; }
    /* each round takes the unscheduled triplets in order of their processes' remaining
     * work (most first, then schedule order), skipping those that touch a busy process:
     * at p = 7..9 this needs 53, 84, 100 rounds against a lower bound of 53, 84, 84 */
    int left = n, r = 0, *rem = calloc((size_t)p, sizeof *rem);
    ap_key_t *ord = malloc((size_t)n * sizeof *ord);
    if (!rem || !ord) {
        free(tr); free(rd); free(busy); free(rem); free(ord);
        return isochron_set_error(ISOCHRON_ENOMEM, "p2t: out of memory");
    }
    for (t = 0; t < n; t++) rem[tr[3 * t]]++, rem[tr[3 * t + 1]]++, rem[tr[3 * t + 2]]++;
    for (; left > 0; r++) {
        int m = 0;
        for (t = 0; t < n; t++)
            if (rd[t] < 0) { ord[m].t = t; ord[m].w = rem[tr[3 * t]] + rem[tr[3 * t + 1]] + rem[tr[3 * t + 2]]; m++; }
        qsort(ord, (size_t)m, sizeof *ord, ap_key_cmp);
        memset(busy, 0, (size_t)p);
        for (int u = 0; u < m; u++) {
            t = ord[u].t;
            const int *x = tr + 3 * t;
            if (busy[x[0]] || busy[x[1]] || busy[x[2]]) continue;
            rd[t] = r;
            busy[x[0]] = busy[x[1]] = busy[x[2]] = 1;
            rem[x[0]]--, rem[x[1]]--, rem[x[2]]--;
            left--;
        }
    }
    free(rem); free(ord);
    if (trip) memcpy(trip, tr, (size_t)n * 3 * sizeof *tr);
    if (round) memcpy(round, rd, (size_t)n * sizeof *rd);
    free(tr); free(rd); free(busy);
    return r;
}

int isochron_ops_p2t_run(MPI_Comm comm, size_t bytes, int reps, double ci_level, isochron_triplet_t *out, double *wall)
{
    int rank, p;
    if (comm == MPI_COMM_NULL) return isochron_set_error(ISOCHRON_EINVAL, "p2t: no communicator");
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &p) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "p2t: cannot query the communicator");
    int rc = ISOCHRON_OK, n = isochron_ops_p2t_count(p);
    if (p < 3) rc = isochron_set_error(ISOCHRON_EINVAL, "p2t needs at least 3 processes (running on %d)", p);
    else if (reps < 1) rc = isochron_set_error(ISOCHRON_EINVAL, "p2t: reps must be at least 1 (got %d)", reps);
    else if (!(ci_level > 0 && ci_level < 1)) rc = isochron_set_error(ISOCHRON_EINVAL, "p2t: confidence level %g is not in (0, 1)", ci_level);
    else if (bytes > (size_t)INT_MAX / 2) rc = isochron_set_error(ISOCHRON_EINVAL, "p2t: %zu bytes is more than an MPI count can hold", bytes);
    else if (rank == 0 && !out) rc = isochron_set_error(ISOCHRON_EINVAL, "p2t: the result array is NULL on rank 0");
    int *tr = NULL, *rd = NULL, nr = 0;
    double *times = NULL, *sum = NULL;
    char *sbuf = NULL, *rbuf = NULL;
    if (rc == ISOCHRON_OK) {
        tr = malloc((size_t)n * 3 * sizeof *tr);
        rd = malloc((size_t)n * sizeof *rd);
        times = calloc((size_t)n * (size_t)reps, sizeof *times);
        if (rank == 0) sum = malloc((size_t)n * (size_t)reps * sizeof *sum);
        sbuf = malloc(bytes ? bytes : 1);
        rbuf = malloc(2 * (bytes ? bytes : 1));
        if (!tr || !rd || !times || !sbuf || !rbuf || (rank == 0 && !sum) || (nr = isochron_ops_p2t_schedule(p, tr, rd)) < 0)
            rc = isochron_set_error(ISOCHRON_ENOMEM, "p2t: out of memory on rank %d", rank);
        else
            memset(sbuf, rank & 0xFF, bytes);
    }
    int agreed = rc;
    if (MPI_Allreduce(&rc, &agreed, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) agreed = ISOCHRON_EMPI;
    MPI_Comm dup = MPI_COMM_NULL;
    if (agreed == ISOCHRON_OK && MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) agreed = rc = isochron_set_error(ISOCHRON_EMPI, "p2t: MPI_Comm_dup failed");
    if (agreed != ISOCHRON_OK) {
        free(tr); free(rd); free(times); free(sum); free(sbuf); free(rbuf);
        if (rc == ISOCHRON_OK) rc = isochron_set_error(agreed, "p2t: refused on another rank");
        return rc;
    }
    int cnt = (int)bytes;
    double w0 = MPI_Wtime();
    for (int r = 0; r < nr && rc == ISOCHRON_OK; r++) {
        for (int t = 0; t < n && rc == ISOCHRON_OK; t++) {
            const int *x = tr + 3 * t;
            if (rd[t] != r || (rank != x[0] && rank != x[1] && rank != x[2])) continue;
            for (int k = -1; k < reps && rc == ISOCHRON_OK; k++) {
                if (rank == x[0]) {
                    MPI_Request q[4];
                    MPI_Status st[4]; /* not MPI_STATUSES_IGNORE, (MPI_Status *)1 in MPICH: gcc 12 reads its array parameter as a 0-byte region */
                    double t0 = MPI_Wtime();
                    if (MPI_Irecv(rbuf, cnt, MPI_BYTE, x[1], TAG_P2T_BACK, dup, &q[0]) != MPI_SUCCESS ||
                        MPI_Irecv(rbuf + (bytes ? bytes : 1), cnt, MPI_BYTE, x[2], TAG_P2T_BACK, dup, &q[1]) != MPI_SUCCESS ||
                        MPI_Isend(sbuf, cnt, MPI_BYTE, x[1], TAG_P2T_OUT, dup, &q[2]) != MPI_SUCCESS ||
                        MPI_Isend(sbuf, cnt, MPI_BYTE, x[2], TAG_P2T_OUT, dup, &q[3]) != MPI_SUCCESS ||
                        MPI_Waitall(4, q, st) != MPI_SUCCESS)
                        rc = isochron_set_error(ISOCHRON_EMPI, "p2t: exchange %d <-> %d,%d failed", x[0], x[1], x[2]);
                    else if (k >= 0) times[(size_t)t * reps + k] = MPI_Wtime() - t0;
                } else if (MPI_Recv(rbuf, cnt, MPI_BYTE, x[0], TAG_P2T_OUT, dup, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                           MPI_Send(sbuf, cnt, MPI_BYTE, x[0], TAG_P2T_BACK, dup) != MPI_SUCCESS)
                    rc = isochron_set_error(ISOCHRON_EMPI, "p2t: exchange %d <-> %d,%d failed", x[0], x[1], x[2]);
            }
        }
        int brc = isochron_barrier_polite(dup);
        if (brc && rc == ISOCHRON_OK) rc = brc;
    }
    if (wall) *wall = MPI_Wtime() - w0;
    /* each time is written by its centre only, zeros elsewhere: a sum gathers them */
    if (rc == ISOCHRON_OK && MPI_Reduce(times, sum, n * reps, MPI_DOUBLE, MPI_SUM, 0, dup) != MPI_SUCCESS)
        rc = isochron_set_error(ISOCHRON_EMPI, "p2t: MPI_Reduce of the results failed");
    for (int t = 0; rc == ISOCHRON_OK && rank == 0 && t < n; t++) {
        out[t].i = tr[3 * t]; out[t].j = tr[3 * t + 1]; out[t].k = tr[3 * t + 2];
        rc = isochron_summarize(sum + (size_t)t * reps, reps, ci_level, NULL, 0, &out[t].s);
    }
    MPI_Comm_free(&dup);
    free(tr); free(rd); free(times); free(sum); free(sbuf); free(rbuf);
    return rc;
}
