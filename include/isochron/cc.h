/* isochron collective clocks (libisochron-cc.so): public API.
 * The library interposes MPI through PMPI (LD_PRELOAD or relink); the mode is
 * chosen at run time by ISOCHRON_CC_MODE=cc|2pc|native (default cc). See
 * src/cc/cc.c for the design (paper 003, Algorithms 1-3).
 *
 * Contract of the checkpoint path (application level):
 *  - A checkpoint is requested by SIGUSR1 to any rank, by isochron_cc_request()
 *    on any rank, or every ISOCHRON_CC_INTERVAL seconds. The request reaches
 *    every rank through the library's own messages.
 *  - The checkpoint is taken at a safe state, inside the wrapper of some MPI
 *    call and *before* that call executes: no process is inside a collective,
 *    every group's SEQ equals its TARGET on all members, no non-blocking
 *    collective is pending (the library completes pending ones itself; the
 *    application's later Wait/Test on them returns their saved status), no
 *    point-to-point message is in flight (per-pair sent and received counts
 *    agree) and no receive is posted and incomplete. A blocking call that
 *    sends is never the call a checkpoint is taken in. So the saved regions
 *    describe "about to execute this call".
 *  - Action: ISOCHRON_CC_BEFORE_SAVE callbacks, then every registered region
 *    and the CC state written per rank atomically (write, fsync, rename) under
 *    ISOCHRON_CC_DIR (default "."), then ISOCHRON_CC_COMMAND if set (the hook for
 *    a system-level checkpointer), then ISOCHRON_CC_AFTER_SAVE callbacks, then
 *    the call continues.
 *  - Restart: a process started with ISOCHRON_CC_RESTART=DIR gets each region
 *    filled from DIR's newest complete checkpoint when it registers it, and the
 *    SEQ state back at MPI_Init. Requests that were pending at the checkpoint
 *    do not exist after a restart: the application treats them as complete
 *    (MPI_REQUEST_NULL); their receive buffers hold the completed data if they
 *    lie in a registered region.
 *  - State log: ISOCHRON_CC_LOG=DIR writes DIR/cc-log.RANK.jsonl, one JSON
 *    object per protocol event (request, target, safe, saved, resume), so the
 *    paper's invariants can be checked from outside.
 */
#ifndef ISOCHRON_CC_H
#define ISOCHRON_CC_H

#include <stddef.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "cc", "2pc" or "native": the mode this process runs in. */
const char *isochron_cc_mode(void);

/* SEQ of the group (ggid) of comm: collectives (blocking and non-blocking
 * initiations, and communicator creations, which are collective over the
 * parent; MPI_Comm_create_group over its group) this process has entered on
 * any communicator with the same group of world ranks. -1 when not tracked (native/2pc mode, or MPI_COMM_NULL). */
long long isochron_cc_seq(MPI_Comm comm);

/* The ggid of comm's group (stable over the run, equal for communicators with
 * the same world ranks in the same order), or -1 when not tracked. */
long long isochron_cc_ggid(MPI_Comm comm);

/* Number of distinct groups (ggids) seen so far; -1 when not tracked. */
int isochron_cc_ngroups(void);

/* Register a memory region (name unique per rank, at most 63 characters)
 * written at every checkpoint. Returns 1 when the region was filled from the
 * restart checkpoint, 0 when registered without restore, -1 on error (a
 * message on stderr names the cause: duplicate name, size differing from the
 * checkpoint's, table full). */
int isochron_cc_register(const char *name, void *ptr, size_t bytes);

enum { ISOCHRON_CC_BEFORE_SAVE = 1, ISOCHRON_CC_AFTER_SAVE = 2 };
/* Call fn(phase, arg) at each checkpoint (phases above). 0 or -1. */
int isochron_cc_on_checkpoint(void (*fn)(int phase, void *arg), void *arg);

/* Request a checkpoint from this rank (what SIGUSR1 does). Async-signal-safe. */
void isochron_cc_request(void);

/* Number of checkpoints this rank has completed (counting those before a
 * restart). */
int isochron_cc_checkpoints(void);

/* The number of the checkpoint this process restarted from, 0 when it was not
 * restarted. */
int isochron_cc_restarted(void);

#ifdef __cplusplus
}
#endif
#endif
