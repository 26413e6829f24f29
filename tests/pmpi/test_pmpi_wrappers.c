/* Test of the PMPI wrapper generator (tools/gen-pmpi.py over src/pmpi/mpi.tbl):
 * the wrappers generated for the layer "tpmpi" are compiled into this program,
 * so (1) every table entry must resolve, through the dynamic symbol table, to a
 * wrapper inside this executable (coverage), and (2) real MPI calls must pass
 * through the hooks with the right call record (name, category, comm, root,
 * peer, count, datatype, request). Hooks below count per call id. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "pmpi.h"
#include "isochron_pmpi_ids.h"

extern const isochron_pmpi_entry_t tpmpi_wrapped[];
extern const int tpmpi_nwrapped, tpmpi_ntable;

volatile int tpmpi_bypass = 0;
static int n_enter[ISOCHRON_PMPI_NIDS], n_leave[ISOCHRON_PMPI_NIDS];
static isochron_pmpi_call_t last;
static int nest;

void tpmpi_enter(isochron_pmpi_call_t *c)
{
    n_enter[c->id]++;
    if (nest++ == 0) last = *c;
}

int tpmpi_leave(isochron_pmpi_call_t *c, int rc)
{
    n_leave[c->id]++;
    nest--;
    return rc;
}

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); } } while (0)

static void expect(int id, const char *name, int cat, MPI_Comm comm, int root, int peer)
{
    CHECK(n_enter[id] >= 1 && n_leave[id] == n_enter[id], "%s: enter %d leave %d", name, n_enter[id], n_leave[id]);
    CHECK(last.id == id && strcmp(last.name, name) == 0, "last call %s, expected %s", last.name, name);
    CHECK(last.category == cat, "%s: category %d, expected %d", name, last.category, cat);
    int res = MPI_UNEQUAL;
    if (comm != MPI_COMM_NULL && last.comm != MPI_COMM_NULL) PMPI_Comm_compare(comm, last.comm, &res);
    CHECK(comm == MPI_COMM_NULL || res == MPI_IDENT, "%s: communicator not recorded", name);
    CHECK(last.root == root, "%s: root %d, expected %d", name, last.root, root);
    CHECK(last.peer == peer, "%s: peer %d, expected %d", name, last.peer, peer);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect(ISOCHRON_PMPI_ID_MPI_Init, "MPI_Init", ISOCHRON_PMPI_INIT, MPI_COMM_NULL, -1, -1);

    /* (1) coverage: every table line wrapped, every wrapper is ours */
    CHECK(tpmpi_ntable == ISOCHRON_PMPI_NIDS, "table has %d lines, ids header %d", tpmpi_ntable, ISOCHRON_PMPI_NIDS);
    CHECK(tpmpi_nwrapped == tpmpi_ntable, "%d of %d table entries wrapped", tpmpi_nwrapped, tpmpi_ntable);
    Dl_info self, info;
    dladdr((void *)&main, &self);
    int covered = 0, icoll = 0;
    for (int i = 0; tpmpi_wrapped[i].name; i++) {
        void *sym = dlsym(RTLD_DEFAULT, tpmpi_wrapped[i].name);
        CHECK(sym != NULL, "%s: no symbol", tpmpi_wrapped[i].name);
        if (!sym) continue;
        dladdr(sym, &info);
        CHECK(info.dli_fname && strcmp(info.dli_fname, self.dli_fname) == 0,
              "%s resolves to %s, not to the wrapper", tpmpi_wrapped[i].name, info.dli_fname);
        covered++;
        icoll += tpmpi_wrapped[i].category == ISOCHRON_PMPI_ICOLL;
    }
    CHECK(icoll == 22, "%d non-blocking collectives wrapped, MPI-3.1 has 22 (17 + 5 neighborhood)", icoll);
    CHECK(ISOCHRON_PMPI_ID_MPI_Ibarrier >= 0 && ISOCHRON_PMPI_ID_MPI_Ireduce >= 0, "Ibarrier/Ireduce missing");

    /* (2) the hooks see real calls */
    MPI_Barrier(MPI_COMM_WORLD);
    expect(ISOCHRON_PMPI_ID_MPI_Barrier, "MPI_Barrier", ISOCHRON_PMPI_COLL, MPI_COMM_WORLD, -1, -1);
    int x = rank + 1, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(ISOCHRON_PMPI_ID_MPI_Allreduce, "MPI_Allreduce", ISOCHRON_PMPI_COLL, MPI_COMM_WORLD, -1, -1);
    CHECK(sum == size * (size + 1) / 2, "allreduce result %d", sum);
    CHECK(last.count == 1 && last.datatype == MPI_INT, "allreduce count/datatype not recorded");
    int root = size - 1;
    MPI_Bcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD);
    expect(ISOCHRON_PMPI_ID_MPI_Bcast, "MPI_Bcast", ISOCHRON_PMPI_COLL, MPI_COMM_WORLD, root, -1);
    CHECK(x == size, "bcast result %d", x);

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    expect(ISOCHRON_PMPI_ID_MPI_Comm_dup, "MPI_Comm_dup", ISOCHRON_PMPI_COMMCREATE, MPI_COMM_WORLD, -1, -1);
    CHECK(last.newcomm == &dup, "Comm_dup: newcomm pointer not recorded");
    MPI_Request req;
    MPI_Ibarrier(dup, &req);
    expect(ISOCHRON_PMPI_ID_MPI_Ibarrier, "MPI_Ibarrier", ISOCHRON_PMPI_ICOLL, dup, -1, -1);
    CHECK(last.request == &req && last.nrequests == 1, "Ibarrier: request not recorded");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    expect(ISOCHRON_PMPI_ID_MPI_Wait, "MPI_Wait", ISOCHRON_PMPI_WAIT, MPI_COMM_NULL, -1, -1);
    MPI_Ireduce(&x, &sum, 1, MPI_INT, MPI_MAX, 0, dup, &req);
    expect(ISOCHRON_PMPI_ID_MPI_Ireduce, "MPI_Ireduce", ISOCHRON_PMPI_ICOLL, dup, 0, -1);
    MPI_Request reqs[1] = { req };
    MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE);
    expect(ISOCHRON_PMPI_ID_MPI_Waitall, "MPI_Waitall", ISOCHRON_PMPI_WAIT, MPI_COMM_NULL, -1, -1);
    CHECK(last.nrequests == 1 && last.requests == reqs, "Waitall: request array not recorded");
    MPI_Comm freed = dup;
    MPI_Comm_free(&dup);
    expect(ISOCHRON_PMPI_ID_MPI_Comm_free, "MPI_Comm_free", ISOCHRON_PMPI_COMMFREE, MPI_COMM_NULL, -1, -1);
    CHECK(last.comm == freed && dup == MPI_COMM_NULL, "Comm_free: the freed communicator not recorded");

    int peer = (rank + 1) % size, from = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, peer, 7, &got, 1, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(ISOCHRON_PMPI_ID_MPI_Sendrecv, "MPI_Sendrecv", ISOCHRON_PMPI_P2P, MPI_COMM_WORLD, -1, peer);
    CHECK(last.peer2 == from && last.tag == 7, "Sendrecv: source/tag not recorded");
    CHECK(got == from, "sendrecv got %d", got);

    /* the fields the tracer added: recvcount/recvtype, count paired with its datatype (Scatterv: the
     * receive side, as its sendcounts are an array), RMA: window, target rank, origin count/datatype */
    double sv[64], rv[2];
    int counts[64], displs[64];
    for (int i = 0; i < size && i < 64; i++) counts[i] = 2, displs[i] = 2 * i, sv[2 * i] = i, sv[2 * i + 1] = i;
    MPI_Datatype two; /* 2 doubles: the same type signature as the send side, another count and type */
    PMPI_Type_contiguous(2, MPI_DOUBLE, &two);
    PMPI_Type_commit(&two);
    MPI_Scatter(sv, 2, MPI_DOUBLE, rv, 1, two, 0, MPI_COMM_WORLD);
    expect(ISOCHRON_PMPI_ID_MPI_Scatter, "MPI_Scatter", ISOCHRON_PMPI_COLL, MPI_COMM_WORLD, 0, -1);
    CHECK(last.count == 2 && last.datatype == MPI_DOUBLE && last.recvcount == 1 && last.recvtype == two,
          "Scatter: count %d, recvcount %d or the types not recorded", last.count, last.recvcount);
    MPI_Scatterv(sv, counts, displs, MPI_DOUBLE, rv, 1, two, 0, MPI_COMM_WORLD);
    CHECK(last.count == 1 && last.datatype == two && last.recvtype == two, "Scatterv: count not paired with recvtype");
    PMPI_Type_free(&two);
    CHECK(rv[0] == rank && rv[1] == rank, "scatterv result %g %g", rv[0], rv[1]);
    int wmem[2] = {0, 0}, one[2] = {rank, rank};
    MPI_Win win;
    MPI_Win_create(wmem, sizeof wmem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    expect(ISOCHRON_PMPI_ID_MPI_Win_create, "MPI_Win_create", ISOCHRON_PMPI_RMA, MPI_COMM_WORLD, -1, -1);
    MPI_Win_fence(0, win);
    expect(ISOCHRON_PMPI_ID_MPI_Win_fence, "MPI_Win_fence", ISOCHRON_PMPI_RMA, MPI_COMM_NULL, -1, -1);
    CHECK(last.win == win, "Win_fence: window not recorded");
    MPI_Put(one, 2, MPI_INT, peer, 0, 2, MPI_INT, win);
    expect(ISOCHRON_PMPI_ID_MPI_Put, "MPI_Put", ISOCHRON_PMPI_RMA, MPI_COMM_NULL, -1, peer);
    CHECK(last.win == win && last.count == 2 && last.datatype == MPI_INT, "Put: window, origin count/datatype not recorded");
    MPI_Win_fence(0, win);
    CHECK(wmem[1] == from, "put result %d", wmem[1]);
    MPI_Win_free(&win);
    expect(ISOCHRON_PMPI_ID_MPI_Win_free, "MPI_Win_free", ISOCHRON_PMPI_RMA, MPI_COMM_NULL, -1, -1);
    CHECK(last.win == MPI_WIN_NULL, "Win_free: the window is a pointer parameter, recorded as MPI_WIN_NULL");

    /* bypass: no hook runs */
    int before = n_enter[ISOCHRON_PMPI_ID_MPI_Barrier];
    tpmpi_bypass = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    tpmpi_bypass = 0;
    CHECK(n_enter[ISOCHRON_PMPI_ID_MPI_Barrier] == before, "bypass still ran the hooks");

    printf("pmpi_wrappers rank %d: %d of %d table entries wrapped (%d non-blocking collectives), %s\n",
           rank, covered, tpmpi_ntable, icoll, failures ? "FAIL" : "PASS");
    MPI_Finalize();
    return failures != 0;
}
