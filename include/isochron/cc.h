/* isochron collective clocks (libisochron-cc.so): public queries.
 * The library interposes MPI through PMPI (LD_PRELOAD or relink); the mode is
 * chosen at run time by ISOCHRON_CC_MODE=cc|2pc|native (default cc). See
 * src/cc/cc.c for the design and what is implemented so far (paper 003). */
#ifndef ISOCHRON_CC_H
#define ISOCHRON_CC_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "cc", "2pc" or "native": the mode this process runs in. */
const char *isochron_cc_mode(void);

/* SEQ of the group (ggid) of comm: collectives (blocking and non-blocking
 * initiations) this process has entered on any communicator with the same
 * group of world ranks. -1 when not tracked (native/2pc mode, or MPI_COMM_NULL). */
long long isochron_cc_seq(MPI_Comm comm);

/* The ggid of comm's group (stable over the run, equal for communicators with
 * the same world ranks in the same order), or -1 when not tracked. */
long long isochron_cc_ggid(MPI_Comm comm);

/* Number of distinct groups (ggids) seen so far; -1 when not tracked. */
int isochron_cc_ngroups(void);

#ifdef __cplusplus
}
#endif
#endif
