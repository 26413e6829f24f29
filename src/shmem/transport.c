/*
 * The OpenSHMEM transport of the clock synchronization (isochron/sync.h,
 * isochron_xport_t): the timestamp ping-pongs of SKaMPI-Offset and
 * Mean-RTT-Offset (paper 000, Alg. 7-8) as one-sided puts and a wait on the
 * symmetric heap, so that OpenSHMEM PEs get the same global clock, from the
 * same algorithms, as MPI ranks (issue 13: no second synchronization suite).
 *
 * Each PE owns, for every other PE, a value slot and a sequence number. To
 * send v to PE q: put v into q's slot for me, shmem_fence (orders the two
 * puts to q), put my count of values sent to q into q's sequence word, and
 * shmem_quiet so it is on its way now. To receive from q: wait until q's
 * sequence word reaches the count expected, then read the slot. A ping-pong
 * never has two values in flight from one PE to another, so one slot per
 * direction is enough. The wait polls shmem_long_test (the non-blocking form
 * of shmem_long_wait_until) with a deadline, so a peer that never answers
 * gives an error instead of a hang.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "shmem/shmem_impl.h"

typedef struct {
    double *slot;          /* symmetric: npes values, slot[q] written by q */
    long *seq;             /* symmetric: npes sequence numbers */
    long *sent, *got;      /* local: counts per peer */
    int *rank2pe, nranks;  /* MPI_COMM_WORLD rank -> PE */
    MPI_Group world;
    double timeout;
    int me;
} xstate_t;

static int x_peer(const isochron_xport_t *x, MPI_Comm comm, int rank, int *addr)
{
    xstate_t *s = x->state;
    MPI_Group g;
    int w;
    MPI_Comm_group(comm, &g);
    MPI_Group_translate_ranks(g, 1, &rank, s->world, &w);
    MPI_Group_free(&g);
    if (w == MPI_UNDEFINED || w < 0 || w >= s->nranks)
        return isochron_set_error(ISOCHRON_EINVAL, "shmem transport: rank %d of the sync's communicator is not in MPI_COMM_WORLD", rank);
    *addr = s->rank2pe[w];
    return ISOCHRON_OK;
}

static int x_send(const isochron_xport_t *x, MPI_Comm comm, int pe, int tag, double v, int synchronous)
{
    (void)comm; (void)tag; (void)synchronous; /* every send is completed by shmem_quiet: synchronous already */
    xstate_t *s = x->state;
    shmem_double_p(&s->slot[s->me], v, pe);
    shmem_fence();
    shmem_long_p(&s->seq[s->me], ++s->sent[pe], pe);
    shmem_quiet();
    return ISOCHRON_OK;
}

static int x_recv(const isochron_xport_t *x, MPI_Comm comm, int pe, int tag, double *v)
{
    (void)comm; (void)tag;
    xstate_t *s = x->state;
    long want = ++s->got[pe];
    volatile long *w = &s->seq[pe];
    if (!shmem_long_test((long *)w, SHMEM_CMP_GE, want)) {
        double t0 = isochron_truth_now();
        unsigned k = 0;
        while (!shmem_long_test((long *)w, SHMEM_CMP_GE, want)) {
            /* shmem_long_test may only read memory: Open MPI 4.1.4's oshmem over UCX does, and where UCX
             * emulates puts in software (TCP, across hosts: the namespace cluster) the sender's shmem_quiet
             * completes only when this PE progresses the library, so both sides waited forever (the sync hung
             * until the watchdog). shmem_long_wait_until progresses but cannot time out; shmem_quiet does not
             * progress with nothing outstanding. An MPI_Iprobe does, here (Open MPI drives both libraries from
             * one progress engine), and is harmless elsewhere: the transport needs one MPI rank per PE. */
            if ((++k & 63u) == 0) { int flag; MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); }
            if ((k & 1023u) == 0 && isochron_truth_now() - t0 > s->timeout)
                return isochron_set_error(ISOCHRON_ETIMEOUT, "shmem transport: PE %d waited %.0f s for a timestamp from PE %d (value %ld never arrived)",
                                          s->me, s->timeout, pe, want);
        }
    }
    *v = ((volatile double *)s->slot)[pe];
    return ISOCHRON_OK;
}

int isochron_shmem_xport_create(double timeout, isochron_xport_t **out)
{
    *out = NULL;
    int n = shmem_n_pes(), me = shmem_my_pe(), nranks, rc = ISOCHRON_OK;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    isochron_xport_t *x = calloc(1, sizeof *x);
    xstate_t *s = calloc(1, sizeof *s);
    if (x && s) {
        s->rank2pe = malloc(sizeof(int) * (size_t)nranks);
        s->sent = calloc((size_t)n, sizeof(long));
        s->got = calloc((size_t)n, sizeof(long));
    }
    if (!x || !s || !s->rank2pe || !s->sent || !s->got) rc = isochron_set_error(ISOCHRON_ENOMEM, "shmem transport: out of memory");
    if (nranks != n) rc = isochron_set_error(ISOCHRON_EUNSUPPORTED, "shmem transport: %d MPI ranks but %d PEs; run one MPI rank per PE (hybrid program)", nranks, n);
    int all = rc;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        if (s) { free(s->rank2pe); free(s->sent); free(s->got); }
        free(s); free(x);
        return rc ? rc : isochron_set_error(all, "shmem transport: set-up failed on another PE");
    }
    MPI_Allgather(&me, 1, MPI_INT, s->rank2pe, 1, MPI_INT, MPI_COMM_WORLD);
    s->nranks = nranks;
    s->me = me;
    s->timeout = timeout > 0 ? timeout : 60;
    MPI_Comm_group(MPI_COMM_WORLD, &s->world);
    s->slot = shmem_calloc((size_t)n, sizeof(double));   /* collective */
    s->seq = shmem_calloc((size_t)n, sizeof(long));
    rc = (s->slot && s->seq) ? ISOCHRON_OK : isochron_set_error(ISOCHRON_ENOMEM, "shmem transport: symmetric heap exhausted");
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    x->name = "shmem";
    x->peer = x_peer;
    x->send = x_send;
    x->recv = x_recv;
    x->state = s;
    if (all) { isochron_shmem_xport_destroy(x); return rc ? rc : isochron_set_error(all, "shmem transport: set-up failed on another PE"); }
    shmem_barrier_all();
    *out = x;
    return ISOCHRON_OK;
}

void isochron_shmem_xport_destroy(isochron_xport_t *x)
{
    if (!x) return;
    xstate_t *s = x->state;
    shmem_barrier_all();
    if (s->slot) shmem_free(s->slot);
    if (s->seq) shmem_free(s->seq);
    MPI_Group_free(&s->world);
    free(s->rank2pe); free(s->sent); free(s->got); free(s);
    free(x);
}
