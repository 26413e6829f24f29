/* cc_latency: the program bench/cc_latency.sh times checkpoints of (issue 14,
 * paper 003: the time from a request to the safe state and to the resume).
 * Two scenarios, each taking --requests checkpoints:
 *   loop  every rank in a tight MPI_Allreduce loop on MPI_COMM_WORLD; rank
 *         k % np requests checkpoint k after 200 iterations; the loop ends when
 *         the minimum over ranks of isochron_cc_checkpoints() (carried by the
 *         Allreduce itself, so every rank runs the same iterations) shows it done;
 *   recv  rank 0 sits in a blocking MPI_Recv from rank 1 while ranks 1..np-1
 *         run an Allreduce loop on their own communicator; rank 1 requests
 *         after --delay seconds, the loop ends when the checkpoint is done on
 *         ranks 1..np-1, then rank 1 sends to rank 0 (whose Recv must take part
 *         in the protocol while it is blocked) and all meet in a barrier.
 *         --call picks rank 0's blocking call: recv (MPI_Recv), probe
 *         (MPI_Probe, then MPI_Recv), mprobe (MPI_Mprobe, then MPI_Mrecv),
 *         sendrecv_replace (MPI_Sendrecv_replace with dest MPI_PROC_NULL: its
 *         receive half); each must join the protocol from inside the call.
 *         (MPI_Irecv + MPI_Wait is no such case: a posted receive keeps the
 *         state unsafe until its data came, by the layer's contract.)
 * The times themselves are read from the state log (ISOCHRON_CC_LOG) by
 * tests/cc/check_cc_log.py --latency; this program only produces the events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "isochron/cc.h"

#pragma weak isochron_cc_request
#pragma weak isochron_cc_checkpoints

int main(int argc, char **argv)
{
    static const char *calls[] = {"recv", "probe", "mprobe", "sendrecv_replace"};
    enum { NCALLS = sizeof calls / sizeof calls[0] };
    int nreq = 5, recv = 0, call = 0;
    double delay = 0.1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--requests") && i + 1 < argc) nreq = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--delay") && i + 1 < argc) delay = atof(argv[++i]);
        else if (!strcmp(argv[i], "--scenario") && i + 1 < argc) {
            const char *s = argv[++i];
            if (!strcmp(s, "recv")) recv = 1;
            else if (strcmp(s, "loop")) { fprintf(stderr, "cc_latency: --scenario %s is not a scenario; valid: loop, recv\n", s); return 2; }
        } else if (!strcmp(argv[i], "--call") && i + 1 < argc) {
            const char *c = argv[++i];
            for (call = 0; call < NCALLS && strcmp(c, calls[call]); call++) {}
            if (call == NCALLS) {
                fprintf(stderr, "cc_latency: --call %s is not a call; valid:", c);
                for (int j = 0; j < NCALLS; j++) fprintf(stderr, " %s", calls[j]);
                fprintf(stderr, "\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: cc_latency [--scenario loop|recv] [--call recv|probe|mprobe|sendrecv_replace] [--requests N] [--delay SEC]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (!isochron_cc_request || !isochron_cc_checkpoints) {
        if (me == 0) fprintf(stderr, "cc_latency: libisochron-cc has no checkpoint API (isochron_cc_request)\n");
        MPI_Finalize();
        return 2;
    }
    if (strcmp(isochron_cc_mode(), "cc") != 0) {
        if (me == 0) fprintf(stderr, "cc_latency: needs ISOCHRON_CC_MODE=cc (is %s)\n", isochron_cc_mode());
        MPI_Finalize();
        return 2;
    }
    MPI_Comm others;
    MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : 1, me, &others);
    long iters = 0;
    for (int k = 1; k <= nreq; k++) {
        if (!recv) {
            int mine, lo = 0;
            for (long it = 0; lo < k; it++, iters++) {
                if (it == 200 && me == k % np) isochron_cc_request();
                mine = isochron_cc_checkpoints();
                MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            }
        } else if (me == 0) {
            int x = -1;
            MPI_Message m;
            switch (call) {
            case 0: MPI_Recv(&x, 1, MPI_INT, 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE); break;
            case 1:
                MPI_Probe(1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(&x, 1, MPI_INT, 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                break;
            case 2:
                MPI_Mprobe(1, k, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
                MPI_Mrecv(&x, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
                break;
            default: MPI_Sendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, k, 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE); break;
            }
            if (x != k) printf("FAIL rank 0: received %d, expected %d\n", x, k);
        } else {
            double t0 = MPI_Wtime();
            int requested = 0, mine, lo = 0;
            while (lo < k) {
                if (!requested && me == 1 && MPI_Wtime() - t0 > delay) { isochron_cc_request(); requested = 1; }
                mine = isochron_cc_checkpoints();
                MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, others);
                iters++;
            }
            if (me == 1) MPI_Send(&k, 1, MPI_INT, 0, k, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (others != MPI_COMM_NULL) MPI_Comm_free(&others);
    int nck = isochron_cc_checkpoints();
    if (nck != nreq) printf("FAIL rank %d: %d checkpoints, expected %d\n", me, nck, nreq);
    if (me == 0) printf("cc_latency scenario %s%s%s np %d checkpoints %d: done\n", recv ? "recv" : "loop", recv ? " call " : "",
                        recv ? calls[call] : "", np, nck);
    MPI_Finalize();
    return 0;
}
