/* Internal interface between the parts of libisochron-cc.so:
 *   cc_groups.c the shared state, the ggid table and views (Algorithm 1's SEQ[ggid])
 *   cc_track.c  message counting, request tracking, what a blocked call waits for
 *   cc.c        modes, generated-wrapper hooks, the 2pc barrier
 *   cc_ckpt.c, cc_ckpt_file.c, cc_2pc.c, cc_agree.c, cc_ckpt_settings.c
 *               the checkpoint protocol (Algorithms 2-3, agreement, safe state,
 *               action, restart, state log, watchdog; its rooms: cc_ckpt.h)
 *   cc_p2p.c    hand-written point-to-point, probe and completion wrappers
 *               (protocol progress while blocked)
 * Layers, each calling only those below it: cc_groups.c < cc_track.c <
 * the protocol (cc_ckpt.h lists its order) < cc.c, cc_p2p.c (tests/layering/check_cycles.py).
 * Not installed; nothing outside src/cc includes it. */
#ifndef ISOCHRON_CC_INTERNAL_H
#define ISOCHRON_CC_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <mpi.h>

/* Everything declared here is internal to the library: hidden, so the
 * wrappers reach it without the GOT/PLT indirection of exported symbols. */
#pragma GCC visibility push(hidden)

enum { ICC_NATIVE, ICC_CC, ICC_2PC };

typedef struct {
    uint64_t hash;      /* FNV-1a over the members: the ggid written to logs and files */
    int size;
    int *members;       /* world ranks, ascending: the group is the SET of its members (paper 003, 4.1:
                           MPI_SIMILAR communicators share one ggid) */
    int me;             /* this process is a member */
    long long seq;      /* SEQ[ggid] */
    long long target;   /* TARGET[ggid] of the checkpoint in progress */
    int dirty;          /* target raised and not yet sent to the members */
} icc_group_t;


/* A view: one order of a group's members (a communicator's ranks -> world ranks). Communicators whose
 * members are the same set in different orders share a group (ggid, SEQ) and have one view each. */
typedef struct { int size; int *world; int group; } icc_view_t;

int icc_lookup(MPI_Comm comm, int create);   /* a communicator's group; fills the one-entry cache (state) */
int icc_lookup_view(MPI_Comm comm);          /* its view (-1: MPI_COMM_NULL) */
int icc_group_of_members(const int *w, int n);
int icc_group_of_mpi_group(MPI_Group grp);   /* the group of an MPI_Group's world ranks */
void icc_forget(MPI_Comm comm);              /* at MPI_Comm_free/disconnect: the handle may be reused */
uint64_t icc_members_hash(const int *w, int n);   /* a group's ggid: the hash of its members in ascending order, whatever
                                                     order w has (42 for all with ISOCHRON_CC_TEST_COLLIDE=1) */

/* ---- protocol (cc_agree.c: icc_poll, icc_seq_bumped, icc_need_check; cc_ckpt_settings.c: the rest) */

/* ICC_RECV: blocked in a call only an application message can complete (a
 * blocking receive or probe): counts as stopped like ICC_BLOCKED, but returns
 * after every step so the caller keeps testing its operation (cc_agree.c) */
/* ICC_STOP, ICC_BARRIER (2pc mode, cc.c icc_2pc_enter): the entry of a collective before its
 * Ibarrier, and the Ibarrier's test loop (icc->barrier the request) */
enum { ICC_PASS, ICC_COLL, ICC_BLOCKED, ICC_RECV, ICC_STOP, ICC_BARRIER };
/* Protocol progress at a wrapper of `call`. PASS: progress and return;
 * COLL: the entry of a collective (Algorithm 3: stay while every target is
 * reached); BLOCKED: inside a blocking call whose operation is incomplete
 * (stay while a round this rank promised to stay for is open). May take the
 * checkpoint before returning. */
void icc_poll(int kind, const char *call, int g);   /* g: the collective's group (ICC_COLL), else -1 */
void icc_seq_bumped(int g);               /* after SEQ[g]++ while pending (Algorithm 2) */
void icc_settings(void);                  /* in MPI_Init's wrapper, after PMPI_Init, every mode: check every
                                             ISOCHRON_CC_* variable; a bad one stops the job on every rank */
void icc_init_protocol(void);             /* then, in cc mode */
void icc_finalize_protocol(void);         /* in MPI_Finalize's wrapper, before PMPI_Finalize */
void icc_group_created(int g);            /* restore SEQ of a group seen again after restart */

/* message counting (cc_p2p.c counts, the protocol reads) */
void icc_count_sent(MPI_Comm comm, int dest);
int icc_peer_view(MPI_Comm comm);               /* view whose world[] translates peer ranks; -1 for intercomms */
void icc_count_recvd_status(int v, const MPI_Status *st);   /* v: the receive's view */

/* request tracking (cc_p2p.c) */
enum { ICC_REQ_ICOLL = 1, ICC_REQ_RECV = 2 };
/* g: ICC_REQ_ICOLL: the group of the request's communicator; ICC_REQ_RECV: its view, peer a rank of it (or MPI_ANY_SOURCE) */
void icc_req_track(MPI_Request r, int kind, int g, int peer);
void icc_req_done(MPI_Request h, const MPI_Status *st);   /* h (its value before the completion call) completed */
void icc_req_forget(MPI_Request h);                       /* h freed or cancelled without a status */
void icc_msg_remember(MPI_Message m, int v, int src);     /* a matched probe's view and source, for its Mrecv */
int icc_msg_take(MPI_Message m, int *src);                /* ... and forgotten: the view (or -1) */
int icc_req_pending_icoll(void);
void icc_req_complete_icolls(void);       /* at the safe state: complete without freeing */
int icc_req_count_arrived(void);          /* count tracked receives that completed; returns those still open */

/* What the blocking call in progress waits for, set by its wrapper (cc_p2p.c)
 * before it polls: the peers that must act for it to complete. icc_poll
 * resolves it (icc_waitfor_peers) only when it tells those peers they are
 * needed (cc_agree.c, "Needs"). comm/r1/r2: ranks of comm (MPI_ANY_SOURCE:
 * every member; MPI_PROC_NULL: none); else reqs/nreqs: request handles (the
 * values before the call); neither (comm == MPI_COMM_NULL, nreqs == 0): any rank. */
typedef struct { MPI_Comm comm; int r1, r2; const MPI_Request *reqs; int nreqs; } icc_waitfor_t;
void icc_waitfor_peers(unsigned char *mark);   /* mark[world rank] = 1 for each peer */
void icc_need_check(void);                /* a completion test found its operation incomplete (cc_agree.c) */

/* ---- the layer's shared state: one instance (icc_state, cc_groups.c), reached through the pointer `icc`.
 * Every mutable variable more than one file of src/cc reads or writes lives here (each file's own
 * state is a structure of that file: cc_ckpt.h's protocol state, cc_p2p.c's tables, cc.c's handle cache). */
typedef struct { int n; int *members; long long seq; } icc_saved_group_t;   /* a restart file's group */
typedef struct icc_state {
    /* modes (cc.c) */
    int mode;                       /* ICC_NATIVE, ICC_CC, ICC_2PC (ISOCHRON_CC_MODE, read at load) */
    volatile int bypass;            /* native mode after MPI_Init: every wrapper is a tail call */
    int collide;                    /* ISOCHRON_CC_TEST_COLLIDE=1 */
    int saw_init;                   /* this layer's MPI_Init returned (icc_unload) */
    /* the ggid table (cc_groups.c) */
    icc_group_t *groups;
    int ngroups, capgroups;
    icc_view_t *views;
    int nviews, capviews;
    MPI_Comm last_comm;             /* the communicator icc_lookup found last (cc_hooks.h) */
    int last_group, last_view;      /* its group and view (-1: MPI_COMM_NULL) */
    /* protocol flags (the protocol writes, the wrappers read) */
    int inited;                     /* after MPI_Init, cc or 2pc mode */
    int rank, size;
    volatile sig_atomic_t attn;     /* fast-path flag: nonzero sends wrappers to icc_poll */
    int pending;                    /* a checkpoint is in progress on this rank */
    int output_lost;                /* a state log could not be written: MPI_Finalize's wrapper exits non-zero */
    unsigned long long version;     /* bumped at every local state change */
    /* message counting and blocked calls (cc_p2p.c writes, the protocol reads) */
    long long app_sent, app_recvd;
    long long *sent_to, *recvd_from;   /* per world rank */
    int open_recvs;                 /* receives inside blocking wrappers, in progress */
    int nofreeze;                   /* inside a blocking call that sends: never a stop point */
    icc_waitfor_t waitfor;          /* what the blocking call in progress waits for (above) */
    int reqlive;                    /* requests tracked (cc_track.c): none lets completion calls go straight to PMPI */
    MPI_Request *barrier;           /* 2pc: the Ibarrier whose test loop polls (ICC_BARRIER), else NULL */
    /* restart: the groups of this rank's checkpoint file (cc_ckpt_file.c reads them, cc_groups.c restores SEQ) */
    icc_saved_group_t *rs_groups;
    int rs_ngroups;
} icc_state_t;
extern icc_state_t icc_state;
static icc_state_t *const icc = &icc_state;
#pragma GCC visibility pop
#endif
