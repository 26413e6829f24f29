/*
 * test_sweep_select: a sweep's operations from a list of names (isochron_sweep_select), as isochron-bench --ops
 * reads them: names in order, "collectives" = every blocking collective and nothing else, the pairwise
 * experiments as flags, a malformed list (EPARSE), an unknown name (ENAME, the valid ones listed), more than
 * the room (EINVAL); and the thread level a list needs before MPI starts (isochron_sweep_thread_level).
 * Serial: none of it needs MPI started.
 */
#include <string.h>
#include <mpi.h>
#include "isochron.h"
#include "isochron/bench.h"
#include "check.h"

int main(void)
{
    isochron_ops_t *ops = NULL;
    const isochron_op_t *list[512];
    isochron_sweep_opts_t so;
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "the registry");
    CHECK_RC(isochron_sweep_select(ops, "allreduce,bcast", list, 512, &so), ISOCHRON_OK, "two names");
    CHECK(so.nops == 2 && so.ops == list && !strcmp(list[0]->name, "allreduce") && !strcmp(list[1]->name, "bcast"), "in the order given");
    CHECK(!so.allpairs && !so.p2t, "no pairwise experiment asked");
    CHECK_RC(isochron_sweep_select(ops, "collectives", list, 512, &so), ISOCHRON_OK, "collectives");
    int bcast = 0, other = 0;
    for (int i = 0; i < so.nops; i++) {
        bcast += !strcmp(list[i]->name, "bcast");
        other += (list[i]->flags & (ISOCHRON_OP_NONBLOCKING | ISOCHRON_OP_P2P | ISOCHRON_OP_RMA)) || strcmp(list[i]->family, list[i]->name);
    }
    CHECK(so.nops >= 10 && bcast == 1 && other == 0, "%d blocking collectives (bcast once), no variant among them", so.nops);
    CHECK_RC(isochron_sweep_select(ops, "allpairs,p2t,bcast", list, 512, &so), ISOCHRON_OK, "pairwise experiments");
    CHECK(so.allpairs && so.p2t && so.nops == 1, "allpairs and p2t are flags, not operations");
    CHECK_RC(isochron_sweep_select(ops, "", list, 512, &so), ISOCHRON_EPARSE, "empty list");
    CHECK(!strcmp(isochron_last_error(), "empty list"), "says: %s", isochron_last_error());
    CHECK_RC(isochron_sweep_select(ops, "allreduce,,bcast", list, 512, &so), ISOCHRON_EPARSE, "empty element");
    CHECK(strstr(isochron_last_error(), "empty element in 'allreduce,,bcast'") != NULL, "says: %s", isochron_last_error());
    CHECK_RC(isochron_sweep_select(ops, "bcast,nosuchop", list, 512, &so), ISOCHRON_ENAME, "unknown name");
    CHECK(strstr(isochron_last_error(), "unknown operation 'nosuchop'") && strstr(isochron_last_error(), "allreduce"), "names it and the valid ones");
    CHECK_RC(isochron_sweep_select(ops, "bcast,allreduce", list, 1, &so), ISOCHRON_EINVAL, "more than the room");
    CHECK(strstr(isochron_last_error(), "more than 1 operations") != NULL, "says: %s", isochron_last_error());
    CHECK(isochron_sweep_thread_level("bcast,latency_mt") == MPI_THREAD_MULTIPLE, "a threaded operation needs MPI_THREAD_MULTIPLE");
    CHECK(isochron_sweep_thread_level("collectives,allpairs") == MPI_THREAD_SINGLE, "the others MPI_THREAD_SINGLE");
    CHECK(isochron_sweep_thread_level("nosuchop,latency_mt") == MPI_THREAD_SINGLE && isochron_sweep_thread_level(NULL) == MPI_THREAD_SINGLE,
          "a list that does not parse, or none: MPI_THREAD_SINGLE");
    isochron_ops_destroy(ops);
    printf("test_sweep_select: %d of %d checks failed\n", check_failures, check_count);
    return check_failures != 0;
}
