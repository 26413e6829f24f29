/*
 * libisochron-tune.so: redirects a collective to its mock-up where a profile isochron wrote says
 * the mock-up was measured faster (the guidelines of key traff-guidelines; the profile-driven
 * replacement of PGMPITuneLib, key pgmpitunelib; isochron/tune.h states the profile and the
 * functions). Design:
 *  - The wrappers are generated from src/pmpi/mpi.tbl by tools/gen-pmpi.py with --only (the five
 *    collectives and the init calls) and --redirect: tune_enter decides, per call, whether
 *    the profile's (communicator size, message size) ranges cover it and sets c->layer; the
 *    generated wrapper then calls tune_redirect_MPI_<f> instead of PMPI_<f>.
 *  - The decision must be the same on every rank of the communicator: it depends only on what MPI
 *    requires to match across ranks (communicator size, the type signature's bytes, the op and the
 *    datatype), and the profile is accepted or refused by all ranks together at MPI_Init.
 *  - A profile applies only where it was measured: the library (MPI_Get_library_version up to its
 *    first comma or line end), MPI_COMM_WORLD's size and the host set must equal the profile's; otherwise rank 0
 *    prints one line naming the difference and every call passes through.
 *  - Data is never changed: a redirect delivers the library's result. Reductions are redirected only
 *    where the result does not depend on the order of combination (exact ops and types), in-place
 *    and every datatype are handled by the compositions, and a call the compositions cannot express
 *    (counts that overflow an int, intercommunicators) passes through.
 * The profile file's reading is profile.c; this file holds the decisions and the compositions.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi/pmpi.h"
#include "pmpi/isochron_pmpi_ids.h" /* generated, in the build tree */
#include "isochron/tune.h"
#include "tune/tune_internal.h"

#define EXPORT __attribute__((visibility("default")))

volatile int tune_bypass = 0;
static int active = 0;
static tune_profile_t prof;
static long long redirected[TUNE_NFUNC];

static int func_of(int id)
{
    switch (id) {
    case ISOCHRON_PMPI_ID_MPI_Allreduce: return TUNE_ALLREDUCE;
    case ISOCHRON_PMPI_ID_MPI_Allgather: return TUNE_ALLGATHER;
    case ISOCHRON_PMPI_ID_MPI_Bcast: return TUNE_BCAST;
    case ISOCHRON_PMPI_ID_MPI_Scan: return TUNE_SCAN;
    case ISOCHRON_PMPI_ID_MPI_Reduce_scatter_block: return TUNE_REDUCE_SCATTER_BLOCK;
    default: return -1;
    }
}

/* Allreduce by Reduce + Bcast gives the library's bits only where the order of combination cannot
 * matter: min/max and the logical and bitwise ops on any type, sum and product on integers. */
static int exact(MPI_Datatype dt, MPI_Op op)
{
    if (op == MPI_MAX || op == MPI_MIN || op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR || op == MPI_BAND ||
        op == MPI_BOR || op == MPI_BXOR)
        return 1;
    if (op != MPI_SUM && op != MPI_PROD) return 0;
    const MPI_Datatype ints[] = { MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                                  MPI_UNSIGNED_LONG_LONG, MPI_UNSIGNED_SHORT, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
                                  MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
                                  MPI_UINT32_T, MPI_UINT64_T };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (dt == ints[i]) return 1;
    return 0;
}

void tune_enter(isochron_pmpi_call_t *c)
{
    if (!active || c->category != ISOCHRON_PMPI_COLL) return;
    int f = func_of(c->id);
    if (f < 0 || c->count < 0 || c->datatype == MPI_DATATYPE_NULL) return;
    int inter = 0, p = 0, ts = 0;
    if (PMPI_Comm_test_inter(c->comm, &inter) != MPI_SUCCESS || inter) return;
    PMPI_Comm_size(c->comm, &p);
    PMPI_Type_size(c->datatype, &ts);
    long long bytes = (long long)c->count * ts;
    if (!tune_profile_match(&prof, f, p, bytes)) return;
    c->layer = (void *)&prof; /* the generated wrapper calls tune_redirect_<f> */
}

/* The layer's settings are ISOCHRON_TUNE_PROFILE and ISOCHRON_TUNE_VERBOSE (0 or 1): any other
 * ISOCHRON_TUNE_* name (a typo) or another VERBOSE value refuses the profile, as a bad profile does. */
extern char **environ;
static int settings_ok(char *why, size_t n)
{
    static const char prefix[] = "ISOCHRON_TUNE_";
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, prefix, sizeof prefix - 1)) continue;
        size_t len = strcspn(*e, "=");
        if ((len == 21 && !strncmp(*e, "ISOCHRON_TUNE_PROFILE", len)) || (len == 21 && !strncmp(*e, "ISOCHRON_TUNE_VERBOSE", len)))
            continue;
        snprintf(why, n, "unknown setting %.*s (valid: ISOCHRON_TUNE_PROFILE, ISOCHRON_TUNE_VERBOSE)", (int)len, *e);
        return 0;
    }
    const char *v = getenv("ISOCHRON_TUNE_VERBOSE");
    if (v && strcmp(v, "0") && strcmp(v, "1")) {
        snprintf(why, n, "ISOCHRON_TUNE_VERBOSE='%.40s': expected 0 or 1", v);
        return 0;
    }
    return 1;
}

int tune_leave(isochron_pmpi_call_t *c, int rc)
{
    if (c->category != ISOCHRON_PMPI_INIT || rc != MPI_SUCCESS) return rc;
    if (c->id == ISOCHRON_PMPI_ID_MPI_Finalize) return rc; /* reported before, in the Finalize hook */
    tune_bypass = 1;
    char why[512] = "";
    const char *path = getenv("ISOCHRON_TUNE_PROFILE");
    int loaded = settings_ok(why, sizeof why) && tune_profile_load(path, &prof, why, sizeof why) == 0;
    char why_run[512] = "";
    int matches = tune_profile_check(&prof, why_run, sizeof why_run) == 0; /* collective: every rank, always */
    if (loaded && !matches) snprintf(why, sizeof why, "%s", why_run);
    int ok = loaded && matches;
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!all) {
        /* the lowest rank that refused says why (a rank may lack the file on its node) */
        int mine = ok ? INT_MAX : rank, first = INT_MAX;
        PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (rank == first)
            fprintf(stderr, "isochron-tune: %s; passing every call through to the library\n", why);
    }
    active = all;
    tune_bypass = 0;
    return rc;
}

/* ------------------------------------------------------------ the compositions */

int tune_redirect_MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm)
{
    if (!exact(datatype, op)) return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    int rc;
    if (sendbuf == MPI_IN_PLACE)
        rc = PMPI_Reduce(r == 0 ? MPI_IN_PLACE : recvbuf, r == 0 ? recvbuf : NULL, count, datatype, op, 0, comm);
    else
        rc = PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, 0, comm);
    if (rc == MPI_SUCCESS) rc = PMPI_Bcast(recvbuf, count, datatype, 0, comm);
    if (rc == MPI_SUCCESS) redirected[TUNE_ALLREDUCE]++;
    return rc;
}

int tune_redirect_MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int r = 0, p = 0;
    PMPI_Comm_rank(comm, &r);
    PMPI_Comm_size(comm, &p);
    if (recvcount > 0 && p > INT_MAX / recvcount)
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(recvtype, &lb, &extent);
    int rc;
    if (sendbuf == MPI_IN_PLACE) /* this rank's block is already in place in recvbuf */
        rc = PMPI_Gather(r == 0 ? MPI_IN_PLACE : (char *)recvbuf + (MPI_Aint)r * recvcount * extent, recvcount, recvtype,
                         recvbuf, recvcount, recvtype, 0, comm);
    else
        rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm);
    if (rc == MPI_SUCCESS) rc = PMPI_Bcast(recvbuf, p * recvcount, recvtype, 0, comm);
    if (rc == MPI_SUCCESS) redirected[TUNE_ALLGATHER]++;
    return rc;
}

int tune_redirect_MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int r = 0, p = 0;
    PMPI_Comm_rank(comm, &r);
    PMPI_Comm_size(comm, &p);
    if (p > TUNE_MAX_PROCS) return PMPI_Bcast(buffer, count, datatype, root, comm); /* p: the same on every rank */
    int counts[TUNE_MAX_PROCS], displs[TUNE_MAX_PROCS];
    int q = count / p, extra = count % p, off = 0;
    for (int j = 0; j < p; j++) {
        counts[j] = q + (j < extra);
        displs[j] = off;
        off += counts[j];
    }
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(datatype, &lb, &extent);
    int rc = PMPI_Scatterv(buffer, counts, displs, datatype,
                           r == root ? MPI_IN_PLACE : (char *)buffer + (MPI_Aint)displs[r] * extent, counts[r],
                           datatype, root, comm);
    if (rc == MPI_SUCCESS) rc = PMPI_Allgatherv(MPI_IN_PLACE, 0, datatype, buffer, counts, displs, datatype, comm);
    if (rc == MPI_SUCCESS) redirected[TUNE_BCAST]++;
    return rc;
}

/* Scan as Exscan + the own contribution: exact ops only (then the order of combination, and so the
 * commutativity Reduce_local's operand order assumes, cannot change a bit; every exact type is a
 * predefined contiguous one, so the copies are memcpy); in place passes through (Exscan would
 * overwrite the contribution it still needs). The Exscan runs in place on a copy of the contribution
 * in recvbuf, not on sendbuf: Open MPI's shared-memory transport lets the receiver read the sender's
 * buffer directly (CMA single copy), and a program that rewrites its send buffer right after the call
 * then paid ~3x for that rewrite (bench/results/tune_prefix-cause-*: the redirect made a scan-heavy
 * program slower although the call itself was faster). recvbuf is the buffer the library's own scan
 * sends from too. Rank 0's recvbuf is undefined after Exscan, so it takes its contribution again. */
int tune_redirect_MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm)
{
    if (sendbuf == MPI_IN_PLACE || !exact(datatype, op)) return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    int r = 0, ts = 0;
    PMPI_Comm_rank(comm, &r);
    PMPI_Type_size(datatype, &ts);
    size_t bytes = (size_t)(count > 0 ? count : 0) * (size_t)ts;
    if (bytes) memcpy(recvbuf, sendbuf, bytes);
    int rc = PMPI_Exscan(MPI_IN_PLACE, recvbuf, count, datatype, op, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (r == 0) {
        if (bytes) memcpy(recvbuf, sendbuf, bytes);
    } else {
        rc = PMPI_Reduce_local(sendbuf, recvbuf, count, datatype, op);
    }
    if (rc == MPI_SUCCESS) redirected[TUNE_SCAN]++;
    return rc;
}

/* Reduce_scatter_block as MPI_Reduce of the p blocks to rank 0 + MPI_Scatter: exact ops only, as for
 * Allreduce (then the combination order of the library's Reduce cannot change a bit; every exact type
 * is predefined and contiguous, so rank 0's temporary is count x type size bytes). Rank 0 keeps one
 * temporary across calls, grown as needed: allocating p blocks per call would add page faults to
 * every call the profile redirects because they are large. In place: the p blocks are in recvbuf and
 * the result goes to its first block, which Scatter's MPI_IN_PLACE leaves where Reduce put it. */
static void *rsb_tmp;
static size_t rsb_tmp_size;

int tune_redirect_MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                           MPI_Op op, MPI_Comm comm)
{
    int r = 0, p = 0, ts = 0;
    PMPI_Comm_rank(comm, &r);
    PMPI_Comm_size(comm, &p);
    PMPI_Type_size(datatype, &ts);
    /* p, recvcount, the op and the type are the same on every rank: so is the decision */
    if (!exact(datatype, op) || (recvcount > 0 && p > INT_MAX / recvcount))
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    int n = p * recvcount, rc;
    if (sendbuf == MPI_IN_PLACE) {
        rc = PMPI_Reduce(r == 0 ? MPI_IN_PLACE : recvbuf, recvbuf, n, datatype, op, 0, comm);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Scatter(recvbuf, recvcount, datatype, r == 0 ? MPI_IN_PLACE : recvbuf, recvcount, datatype, 0, comm);
    } else {
        size_t need = (size_t)n * (size_t)ts;
        int ok = 1;
        if (r == 0 && need > rsb_tmp_size) {
            void *t = realloc(rsb_tmp, need);
            if (t) rsb_tmp = t, rsb_tmp_size = need;
            else ok = 0;
        }
        /* no temporary at rank 0: every rank passes through (one 4-byte Bcast per call, small beside
         * the block sizes a profile redirects) */
        PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
        if (!ok) return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
        rc = PMPI_Reduce(sendbuf, r == 0 ? rsb_tmp : NULL, n, datatype, op, 0, comm);
        if (rc == MPI_SUCCESS) rc = PMPI_Scatter(rsb_tmp, recvcount, datatype, recvbuf, recvcount, datatype, 0, comm);
    }
    if (rc == MPI_SUCCESS) redirected[TUNE_REDUCE_SCATTER_BLOCK]++;
    return rc;
}

/* ------------------------------------------------------------ the API (isochron/tune.h) */

EXPORT int isochron_tune_active(void) { return active; }

EXPORT long long isochron_tune_redirected(const char *function)
{
    if (!function) {
        long long all = 0;
        for (int f = 0; f < TUNE_NFUNC; f++) all += redirected[f];
        return all;
    }
    int f = tune_func_find(function);
    return f < 0 ? -1 : redirected[f];
}

/* MPI_Finalize's report: generated wrappers call enter before PMPI_Finalize, so the counts are
 * printed there, while MPI still runs (tune_enter returns at once for the init category). */
EXPORT int MPI_Finalize(void)
{
    const char *verbose = getenv("ISOCHRON_TUNE_VERBOSE");
    if (!tune_bypass && verbose && !strcmp(verbose, "1")) {
        int rank = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "isochron-tune: rank 0 redirected %lld calls (MPI_Allreduce %lld, MPI_Allgather %lld,"
                            " MPI_Bcast %lld, MPI_Scan %lld, MPI_Reduce_scatter_block %lld); profile %s\n",
                    isochron_tune_redirected(NULL), redirected[TUNE_ALLREDUCE], redirected[TUNE_ALLGATHER],
                    redirected[TUNE_BCAST], redirected[TUNE_SCAN], redirected[TUNE_REDUCE_SCATTER_BLOCK], active ? "active" : "not active");
    }
    return PMPI_Finalize();
}
