/* Private interface between the rooms of the checkpoint protocol of libisochron-cc.so (paper 003,
 * Algorithms 2-3; the two-phase commit of [mana]). Each calls only the ones above it here:
 *   cc_ckpt.c          the protocol's state (icc_ckpt_state), control messages, the watchdog, the API's
 *                      flags and counts
 *   cc_ckpt_file.c     checkpoint files: the job's identity, written at a safe state
 *   cc_restart.c       restart: the checkpoint chosen, every file read and checked, the job compared;
 *                      isochron_cc_register
 *   cc_2pc.c           2pc mode: MANA's two-phase commit
 *   cc_agree.c         cc mode: requests, targets, agreement rounds; icc_poll (both modes)
 *   cc_ckpt_settings.c ISOCHRON_CC_* settings, the ticker thread, init and finalize
 * Not installed; only these files include it.
 *
 * State log (ISOCHRON_CC_LOG=DIR): DIR/cc-log.RANK.jsonl, one JSON object a
 * line, "t" in MPI_Wtime seconds, "ggid" the 16-hex-digit FNV-1a hash of the
 * member set (a string; equal on all ranks for the same group), "members"
 * its world ranks, ascending:
 *   {"ev":"request","rank":R,"from":ORIGIN,"ckpt":N,"t":T}
 *        this rank learned of checkpoint N, first requested by rank ORIGIN
 *        (also logged, with "joined":true, for a request made while one is
 *        already in progress: it is served by checkpoint N)
 *   {"ev":"target","rank":R,"ckpt":N,"ggid":"..","members":[..],"seq":S,"target":T,"t":T}
 *        TARGET of a group set (on learning) or raised (own SEQ, or a message)
 *   {"ev":"safe","rank":R,"ckpt":N,"groups":[{"ggid":"..","seq":S,"target":T,"members":[..]}],
 *    "pending_icoll":K,"sent":[per world rank],"recvd":[per world rank],
 *    "sent_total":A,"recvd_total":B,"in_collective":false,"call":"MPI_X",
 *    "rounds":M,"t":T}
 *        the safe state: groups this rank is a member of; pending_icoll: its
 *        non-blocking collectives not yet complete (the library completes
 *        them next); sent/recvd: application messages counted so far
 *        (intercommunicator and matched-probe traffic in the totals only);
 *        call: the wrapper the checkpoint is taken in, before that call runs
 *   {"ev":"saved","rank":R,"ckpt":N,"dir":"..","bytes":B,"t":T}
 *   {"ev":"resume","rank":R,"ckpt":N,"t":T}
 *   {"ev":"restart","rank":R,"ckpt":N,"dir":"..","t":T}   at MPI_Init of a restarted run
 */
#ifndef ISOCHRON_CC_CKPT_H
#define ISOCHRON_CC_CKPT_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

#pragma GCC visibility push(hidden)

enum { TAG_REQ = 1, TAG_TGT = 2, TAG_NEED = 3, TAG_PREP = 4, TAG_VOTE = 5, TAG_BUSY = 6, TAG_DECIDE = 7, TAG_FIN = 8,
       TAG_DONE = 9 };
enum { V_NOTREADY, V_MOVED, V_UNFROZEN, V_CTL, V_APP, V_PENDING, V_FINAL, V_LEARNED, V_OPEN, V_N };
/* outstanding control sends and messages of a later epoch */
typedef struct { MPI_Request r; long long *buf; } ctl_send_t;
typedef struct stash { int src, tag, n; long long *buf; struct stash *next; } stash_t;
#define ICC_MAX_REGIONS 64
#define ICC_MAX_CALLBACKS 16
typedef struct { char name[64]; size_t bytes; unsigned char *data; int claimed; } saved_region_t;   /* claimed: registered */

/* The protocol's state: one structure, one instance (icc_ckpt_state, cc_ckpt.c), reached through `ck`. */
typedef struct {
    volatile sig_atomic_t req_flag;      /* a request not yet acted on (signal handler, API, ticker) */
    MPI_Comm icomm;                      /* this library's PMPI_Comm_dup of MPI_COMM_WORLD */
    int epoch, nckpt, restarted_from, finalizing, final_done, in_poll, all_learned, freeze_ok, released;
    double t_learn, timeout_s;
    const char *volatile cur_call;
    volatile int in_wait;                /* inside a polled blocking call */
    long long ctl_sent, ctl_recvd;
    int rounds_this_epoch, stalls;
    /* agreement rounds */
    long long rin[V_N], rout[V_N], rlast[V_N];
    MPI_Request rreq;
    int rfrozen, rfirst;
    unsigned long long rversion;
    long long rounds_total;              /* agreement rounds completed since MPI_Init: the same count on every rank */
    long long need_until;                /* needed (see Needs) until round need_until has completed */
    long long *need_sent;                /* per world rank: 1 + rounds_total when the last need went to it */
    unsigned char *need_mark;            /* per world rank: scratch for icc_waitfor_peers */
    /* outstanding control sends and messages of a later epoch */
    ctl_send_t *csend;
    int ncsend, capcsend;
    stash_t *stash_head, **stash_tail;
    /* regions, callbacks, restart data, log */
    struct { char name[64]; void *ptr; size_t bytes; } regions[ICC_MAX_REGIONS];
    int nregions;
    struct { void (*fn)(int, void *); void *arg; } callbacks[ICC_MAX_CALLBACKS];
    int ncallbacks;
    saved_region_t *rs_regions;
    int rs_nregions;
    char *rs_buf;                        /* the restart file, whole: rs_regions' data point into it */
    char rs_path[4200];                  /* its path */
    int allow;                           /* ISOCHRON_CC_RESTART_ALLOW: ICC_ALLOW_* bits */
    int fallback;                        /* ISOCHRON_CC_RESTART_FALLBACK=1 */
    int unclaimed_checked;               /* the saved regions were checked against the registered ones */
    /* this job's identity, written into every checkpoint file (icc_job_identity) */
    char job_program[4096];              /* the executable's path (/proc/self/exe), "" until known */
    unsigned long long job_binary;       /* FNV-1a (64 bit) of its bytes */
    FILE *icc_log;
    char log_path[4200];
    /* the ticker thread */
    pthread_t ticker;
    volatile int ticker_stop, ticker_on;
    double interval_s, poll_ms;
    /* 2pc mode: this rank */
    int p_attempt;                       /* the attempt it is prepared for (0: none) */
    int p_voted, p_ok;                   /* it voted in p_attempt; its vote was "checkpoint me here" (it holds) */
    int p_busy;                          /* it told rank 0 that its barrier completed while it held */
    int p_decision;                      /* of p_attempt: -1 none yet, 0 abort, 1 commit */
    int p_logged;                        /* the epoch whose request it has logged */
    const char *p_where;                 /* the stop point it voted at */
    int fin_sent;                        /* it told rank 0 it is in MPI_Finalize */
    /* 2pc mode: rank 0, the coordinator */
    int c_origin, c_attempt, c_votes, c_ok, c_decided, c_attempts, c_aborts, c_fins;
    long long c_sent, c_recvd;
    double c_t0, c_retry_at;
} icc_ckpt_t;

extern icc_ckpt_t icc_ckpt_state;
static icc_ckpt_t *const ck = &icc_ckpt_state;

/* cc_ckpt.c */
void icc_die(const char *fmt, const char *a, const char *b) __attribute__((noreturn));   /* message, MPI_Abort(2) */
void *icc_xmalloc(size_t n);                          /* malloc or icc_die */
void icc_log_members(const int *m, int n);            /* a JSON array of ranks into the state log */
void icc_log_counts(const char *key, const long long *v);   /* ,"key":[one number per world rank] */
void icc_ctl_send(long long *buf, int n, int dest, int tag);  /* a control message (buf copied) */
void icc_reap_sends(int wait);                        /* free completed control sends (all, waiting, if wait) */
typedef void (*icc_ctl_handler_t)(int src, int tag, const long long *m, int n);
void icc_drain_ctl(icc_ctl_handler_t handle);         /* receive control messages; those of this epoch to handle */
void icc_watchdog(void);                              /* MPI_Abort(3) after ISOCHRON_CC_TIMEOUT */
double icc_now_s(void);                               /* CLOCK_MONOTONIC seconds */
/* cc_ckpt_file.c */
#define CKPT_VERSION 3
#define CKPT_MAGIC "isochron-cc-checkpoint"
#define MARKER_MAGIC "isochron-cc-complete"
#define FNV_INIT 1469598103934665603ull
enum { ICC_ALLOW_PROGRAM = 1, ICC_ALLOW_BINARY = 2, ICC_ALLOW_MODE = 4, ICC_ALLOW_REGIONS = 8 };
uint64_t icc_fnv1a(uint64_t h, const void *p, size_t n);   /* FNV-1a, 64 bit, continued from h */
const char *icc_mode_name(int mode);                  /* "cc", "2pc", "native" */
void icc_job_identity(void);                          /* ck->job_program, ck->job_binary (once) */
void icc_take_checkpoint(const char *call);           /* the action at a safe state: files, command, marker */
/* Saved regions of a restart that no isochron_cc_register claimed: "" or the message (once per run) */
void icc_unclaimed_regions(char *err, size_t len);
/* cc_restart.c */
void icc_load_restart(const char *dir, char *err, size_t len);   /* ISOCHRON_CC_RESTART (collective): err "" or why not */
/* cc_2pc.c */
void icc_poll_2pc(int kind, const char *call);        /* icc_poll of 2pc mode */

#pragma GCC visibility pop
#endif
