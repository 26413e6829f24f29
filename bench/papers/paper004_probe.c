/*
 * paper004_probe: the measurements of Seidel & Davis (paper 004, "Global
 * synchronization algorithms for the Intel iPSC/860") that isochron-barrier
 * does not make, for bench/papers/paper004.sh. Built by that script (mpicc
 * against build/libisochron, or smpicc against sim/build's objects); not
 * part of the library or of CI.
 *
 * The paper's two message protocols are written here at the application
 * level, on top of whatever MPI does underneath (sec. 2.1):
 *   long    the sender sends a null PROBE, the receiver answers a null
 *           REQUEST, then the sender sends the message (cost am + b_l);
 *   forced  the receiver has posted its buffer before the synchronization,
 *           the sender sends the message at once (cost am + b_s).
 * Modes (one line of JSON per result on rank 0's stdout):
 *   costs SIZES REPS        ranks 0-1: null round trip (b_s = RTT/2), time for
 *                           a null send to return (s), one-way long and forced
 *                           sends of each size (RTT/2), i.e. Table I/II's rows.
 *   shift BARS PROTOS SIZES TRIALS SPREAD SEED
 *                           ranks arrive after random delays in [0, SPREAD]
 *                           (SPREAD < 0: the last rank alone, -SPREAD late),
 *                           synchronize (BARS: isochron barrier names, "none",
 *                           or "clock" = all start at one instant without a
 *                           barrier), then shift SIZE bytes one hop right in
 *                           the ring with the protocol; cost = last shift end
 *                           - first barrier exit (Figs. 4-1..4-7).
 *   delayed BARS DELTAS REPS  the last rank enters DELTA after the others
 *                           (sec. 3.1-3.3, Figs. 3-2..3-8): cost (first entry
 *                           to last exit) and precision (last exit - first
 *                           exit) of each barrier; DELTAS in units of b_s.
 * Times: CLOCK_REALTIME, which every process of this host (and every node of
 * tools/cluster's namespaces) shares, and which SimGrid replaces with the
 * simulated time: a truth clock, no synchronization needed. Configurations
 * are interleaved trial by trial.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "isochron.h"
#include "isochron/barrier.h"

enum { T_PROBE = 41, T_REQ, T_DATA, T_NULL };
static int rank, size;
static time_t epoch; /* a whole second common to every rank: doubles near 0 keep nanoseconds */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)(ts.tv_sec - epoch) + 1e-9 * ts.tv_nsec;
}

/* wait until t: a simulated sleep under SimGrid, else spin yielding (before
 * the timed region; the machine may run more ranks than cores) */
static void wait_until(double t)
{
#ifdef SMPI_ISOCHRON
    double d = t - now();
    if (d > 0) { struct timespec ts = {(time_t)d, (long)((d - (time_t)d) * 1e9)}; nanosleep(&ts, NULL); }
#else
    while (now() < t) sched_yield();
#endif
}

static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmpd); return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : NAN; }
static double mean(const double *v, int n) { double s = 0; for (int i = 0; i < n; i++) s += v[i]; return n ? s / n : NAN; }

static int split(char *s, char **out, int max)
{
    int n = 0;
    for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ",")) out[n++] = t;
    return n;
}

static long parse_size(const char *s)
{
    char *e;
    long v = strtol(s, &e, 10);
    if (*e == 'K' || *e == 'k') v <<= 10;
    else if (*e == 'M' || *e == 'm') v <<= 20;
    return v;
}

/* ---- one-way sends between two ranks (the protocols) ---- */

/* send m bytes to peer; long: PROBE, wait for REQUEST, then the data */
static void proto_send(int peer, const char *buf, long m, int lng)
{
    if (lng) {
        MPI_Send(NULL, 0, MPI_BYTE, peer, T_PROBE, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, peer, T_REQ, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Send(buf, (int)m, MPI_BYTE, peer, T_DATA, MPI_COMM_WORLD);
}

/* receive m bytes from peer; the data receive is posted first (forced: the
 * buffer exists before the sender starts) */
static void proto_recv(int peer, char *buf, long m, int lng)
{
    MPI_Request r;
    MPI_Irecv(buf, (int)m, MPI_BYTE, peer, T_DATA, MPI_COMM_WORLD, &r);
    if (lng) {
        MPI_Recv(NULL, 0, MPI_BYTE, peer, T_PROBE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, peer, T_REQ, MPI_COMM_WORLD);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static void mode_costs(char *sizes_s, int reps)
{
    char *ss[64];
    int ns = split(sizes_s, ss, 64);
    long maxm = 0;
    for (int i = 0; i < ns; i++) maxm = parse_size(ss[i]) > maxm ? parse_size(ss[i]) : maxm;
    char *buf = calloc(1, (size_t)maxm + 1), *rbuf = calloc(1, (size_t)maxm + 1);
    double *v = malloc(sizeof *v * (size_t)reps), *w = malloc(sizeof *w * (size_t)reps);
    int warm = reps / 10 + 5;
    /* null messages: b_s and s, balanced traffic (the paper's send/reply) */
    for (int i = -warm; i < reps; i++) {

        if (rank == 0) {
            double t0 = now();
            MPI_Send(NULL, 0, MPI_BYTE, 1, T_NULL, MPI_COMM_WORLD);
            double t1 = now();
            MPI_Recv(NULL, 0, MPI_BYTE, 1, T_NULL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t2 = now();
            if (i >= 0) { v[i] = (t2 - t0) / 2; w[i] = t1 - t0; }
        } else if (rank == 1) {
            MPI_Recv(NULL, 0, MPI_BYTE, 0, T_NULL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, T_NULL, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        double bs = median(v, reps), s = median(w, reps);
        printf("{\"type\":\"null\",\"reps\":%d,\"b_s\":%.9g,\"s\":%.9g}\n", reps, bs, s);
    }
    for (int lng = 0; lng < 2; lng++)
        for (int k = 0; k < ns; k++) {
            long m = parse_size(ss[k]);
            for (int i = -warm; i < reps; i++) {

                if (rank == 0) {
                    double t0 = now();
                    proto_send(1, buf, m, lng);
                    proto_recv(1, rbuf, m, lng);
                    if (i >= 0) v[i] = (now() - t0) / 2;
                } else if (rank == 1) {
                    proto_recv(0, rbuf, m, lng);
                    proto_send(0, buf, m, lng);
                }
            }
            if (rank == 0) {
                double md = median(v, reps); /* sorts v */
                printf("{\"type\":\"send\",\"protocol\":\"%s\",\"bytes\":%ld,\"reps\":%d,\"median\":%.9g,\"min\":%.9g}\n", lng ? "long" : "forced", m,
                       reps, md, v[0]);
            }
        }
    free(buf); free(rbuf); free(v); free(w);
}

/* ---- ring shift after a synchronization ---- */

static uint64_t rng;
static double rnd01(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (double)(rng >> 11) / 9007199254740992.0; }

/* one shift of m bytes to the right, receiving from the left */
static void shift(char *sbuf, long m, int lng, MPI_Request *data_recv)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Request r[4];
    int n = 0;
    r[n++] = *data_recv;
    if (lng) {
        MPI_Request pr, rq;
        MPI_Irecv(NULL, 0, MPI_BYTE, left, T_PROBE, MPI_COMM_WORLD, &pr);
        MPI_Irecv(NULL, 0, MPI_BYTE, right, T_REQ, MPI_COMM_WORLD, &rq);
        MPI_Send(NULL, 0, MPI_BYTE, right, T_PROBE, MPI_COMM_WORLD);
        int got_probe = 0, got_req = 0;
        while (!got_probe || !got_req) {
            MPI_Request two[2] = {got_probe ? MPI_REQUEST_NULL : pr, got_req ? MPI_REQUEST_NULL : rq};
            int idx;
            MPI_Waitany(2, two, &idx, MPI_STATUS_IGNORE);
            if (idx == 0) { got_probe = 1; MPI_Send(NULL, 0, MPI_BYTE, left, T_REQ, MPI_COMM_WORLD); }
            else { got_req = 1; MPI_Isend(sbuf, (int)m, MPI_BYTE, right, T_DATA, MPI_COMM_WORLD, &r[n++]); }
        }
    } else {
        MPI_Isend(sbuf, (int)m, MPI_BYTE, right, T_DATA, MPI_COMM_WORLD, &r[n++]);
    }
    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
}

static double common_start(double slack)
{
    double t0 = rank == 0 ? now() + slack : 0;
    MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t0;
}

/* A trial's start on this rank: the common start plus delay; *entry is the time it began (after
 * waiting for that instant); returns 1 when the rank was already late (the trial is then invalid). */
static int start_trial(double delay, double *entry)
{
    double target = common_start(2e-3) + delay;
    int late = now() > target;
    wait_until(target);
    *entry = now();
    return late;
}

/* A trial's timestamps gathered on rank 0: mine holds this rank's n stamps, then its late flag;
 * all holds (n + 1) * size doubles. Returns 1 on rank 0 when no rank was late, with the earliest
 * (first) and latest (last) of each stamp over the ranks; 0 otherwise (other ranks: always). */
static int gather_trial(double *mine, int n, double *all, double *first, double *last)
{
    MPI_Gather(mine, n + 1, MPI_DOUBLE, all, n + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank) return 0;
    for (int s = 0; s < n; s++) first[s] = INFINITY, last[s] = -INFINITY;
    for (int j = 0; j < size; j++) {
        const double *a = all + (size_t)(n + 1) * j;
        if (a[n] > 0) return 0;
        for (int s = 0; s < n; s++) first[s] = fmin(first[s], a[s]), last[s] = fmax(last[s], a[s]);
    }
    return 1;
}

static isochron_barrier_t *make_barrier(const char *name)
{
    if (!strcmp(name, "none") || !strcmp(name, "clock")) return NULL;
    isochron_barrier_opts_t o;
    isochron_barrier_opts_default(&o);
    o.wait = ISOCHRON_BARRIER_WAIT_AUTO;
    isochron_barrier_t *b = NULL;
    if (isochron_barrier_create(name, MPI_COMM_WORLD, &o, &b)) {
        if (rank == 0) fprintf(stderr, "paper004_probe: barrier %s: %s\n", name, isochron_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0 && !strcmp(name, "rds")) {
        isochron_rds_info_t ri;
        isochron_barrier_rds_info(b, &ri);
        printf("{\"type\":\"rds\",\"b_s\":%.9g,\"s\":%.9g,\"d\":%d,\"max_wait\":%.9g}\n", ri.b_s, ri.s, ri.d, ri.max_wait);
    }
    return b;
}

static void mode_shift(char *bars_s, char *protos_s, char *sizes_s, int trials, double spread, unsigned seed)
{
    char *bn[16], *pn[2], *ss[64];
    int nb = split(bars_s, bn, 16), np = split(protos_s, pn, 2), ns = split(sizes_s, ss, 64);
    isochron_barrier_t *bars[16];
    for (int b = 0; b < nb; b++) bars[b] = make_barrier(bn[b]);
    long maxm = 0;
    for (int i = 0; i < ns; i++) maxm = parse_size(ss[i]) > maxm ? parse_size(ss[i]) : maxm;
    char *sbuf = calloc(1, (size_t)maxm + 1), *rbuf = calloc(1, (size_t)maxm + 1);
    int nc = nb * np;
    double *cost = malloc(sizeof *cost * (size_t)nc * (size_t)trials);
    double *total = malloc(sizeof *total * (size_t)nc * (size_t)trials);
    int *valid = calloc((size_t)nc, sizeof *valid);
    double *all = malloc(sizeof *all * 4 * (size_t)size);
    rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)seed * 2654435761u ^ (uint64_t)rank * 0x100000001b3ull;
    int left = (rank - 1 + size) % size;
    for (int k = 0; k < ns; k++) {
        long m = parse_size(ss[k]);
        memset(valid, 0, sizeof *valid * (size_t)nc);
        for (int i = -2; i < trials; i++)
            for (int c = 0; c < nc; c++) {
                int b = c / np, lng = !strcmp(pn[c % np], "long");
                int clock_start = !strcmp(bn[b], "clock");
                /* spread < 0: only the last rank is late, by -spread (a single delayed node) */
                double delay = clock_start ? 0 : spread >= 0 ? spread * rnd01() : rank == size - 1 ? -spread : 0;
                MPI_Request dr;
                MPI_Irecv(rbuf, (int)m, MPI_BYTE, left, T_DATA, MPI_COMM_WORLD, &dr); /* the forced protocol's buffer, before the sync */
                double mine[4], first[3], last[3]; /* entry, barrier exit, shift end; late */
                mine[3] = start_trial(delay, &mine[0]);
                if (bars[b]) isochron_barrier_run(bars[b]);
                mine[1] = now();
                shift(sbuf, m, lng, &dr);
                mine[2] = now();
                if (!gather_trial(mine, 3, all, first, last) || i < 0) continue;
                cost[(size_t)c * trials + valid[c]] = last[2] - first[1];
                total[(size_t)c * trials + valid[c]] = last[2] - first[0];
                valid[c]++;
            }
        for (int c = 0; rank == 0 && c < nc; c++) {
            double *v = cost + (size_t)c * trials, *t = total + (size_t)c * trials;
            printf("{\"type\":\"shift\",\"barrier\":\"%s\",\"protocol\":\"%s\",\"bytes\":%ld,\"p\":%d,\"spread\":%.9g,\"trials\":%d,\"valid\":%d,\"cost\":[",
                   bn[c / np], pn[c % np], m, size, spread, trials, valid[c]);
            for (int i = 0; i < valid[c]; i++) printf("%s%.9g", i ? "," : "", v[i]);
            printf("],\"total\":[");
            for (int i = 0; i < valid[c]; i++) printf("%s%.9g", i ? "," : "", t[i]);
            printf("]}\n");
        }
        if (rank == 0) fflush(stdout);
    }
    for (int b = 0; b < nb; b++) isochron_barrier_destroy(bars[b]);
    free(sbuf); free(rbuf); free(cost); free(total); free(valid); free(all);
}

/* ---- one delayed node ---- */

static void mode_delayed(char *bars_s, char *deltas_s, int reps)
{
    char *bn[16], *ds[32];
    int nb = split(bars_s, bn, 16), nd = split(deltas_s, ds, 32);
    isochron_barrier_t *bars[16];
    for (int b = 0; b < nb; b++) bars[b] = make_barrier(bn[b]);
    /* b_s measured as the RDS barrier does (median null RTT / 2, ranks 0-1) */
    double bs = 0;
    {
        int n = 200;
        double *v = malloc(sizeof *v * (size_t)n);
        for (int i = -20; i < n; i++) {
            if (rank == 0) {
                double t0 = now();
                MPI_Send(NULL, 0, MPI_BYTE, 1, T_NULL, MPI_COMM_WORLD);
                MPI_Recv(NULL, 0, MPI_BYTE, 1, T_NULL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (i >= 0) v[i] = (now() - t0) / 2;
            } else if (rank == 1) {
                MPI_Recv(NULL, 0, MPI_BYTE, 0, T_NULL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, 0, T_NULL, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) bs = median(v, n);
        free(v);
        MPI_Bcast(&bs, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    double *cost = malloc(sizeof *cost * (size_t)reps), *prec = malloc(sizeof *prec * (size_t)reps);
    double *all = malloc(sizeof *all * 3 * (size_t)size);
    for (int k = 0; k < nd; k++) {
        double dl = atof(ds[k]) * bs;
        for (int b = 0; b < nb; b++) {
            int valid = 0;
            for (int i = -2; i < reps; i++) {
                double mine[3], first[2], last[2]; /* entry, barrier exit; late */
                mine[2] = start_trial(rank == size - 1 ? dl : 0, &mine[0]);
                isochron_barrier_run(bars[b]);
                mine[1] = now();
                if (!gather_trial(mine, 2, all, first, last) || i < 0) continue;
                cost[valid] = last[1] - first[0];
                prec[valid] = last[1] - first[1];
                valid++;
            }
            if (rank == 0)
                printf("{\"type\":\"delayed\",\"barrier\":\"%s\",\"p\":%d,\"b_s\":%.9g,\"delta_bs\":%s,\"delta\":%.9g,\"reps\":%d,\"valid\":%d,"
                       "\"cost_median\":%.9g,\"cost_mean\":%.9g,\"precision_median\":%.9g,\"precision_mean\":%.9g}\n",
                       bn[b], size, bs, ds[k], dl, reps, valid, valid ? median(cost, valid) : NAN, mean(cost, valid),
                       valid ? median(prec, valid) : NAN, mean(prec, valid));
        }
        if (rank == 0) fflush(stdout);
    }
    for (int b = 0; b < nb; b++) isochron_barrier_destroy(bars[b]);
    free(cost); free(prec); free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        long e = (long)ts.tv_sec - 1;
        MPI_Bcast(&e, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        epoch = (time_t)e;
    }
    int ok = size >= 2 && argc >= 2;
    if (ok && !strcmp(argv[1], "costs") && argc == 4) mode_costs(argv[2], atoi(argv[3]));
    else if (ok && !strcmp(argv[1], "shift") && argc == 8) mode_shift(argv[2], argv[3], argv[4], atoi(argv[5]), atof(argv[6]), (unsigned)atoi(argv[7]));
    else if (ok && !strcmp(argv[1], "delayed") && argc == 5) mode_delayed(argv[2], argv[3], atoi(argv[4]));
    else {
        if (rank == 0)
            fprintf(stderr, "usage (>= 2 ranks): paper004_probe costs SIZES REPS | shift BARRIERS PROTOCOLS SIZES TRIALS SPREAD_S SEED | "
                            "delayed BARRIERS DELTAS_IN_B_S REPS\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Finalize();
    return 0;
}
