/*
 * Persistent collectives (MPI-4 sec. 6.13), shared by persist.c (the
 * collectives on the measured communicator) and neighbor.c (alltoallw and the
 * neighbourhood collectives on their topology communicator). Where the
 * library has them: MPI_X_init where MPI_VERSION >= 4 (MPICH 4) or in Open
 * MPI 5 (which declares MPI_VERSION 3 but has them); Open MPI 4.x has them as
 * MPIX_X_init in its pcollreq extension (mpi-ext.h, all 16 collectives, the 5
 * neighbourhood ones and Alltoallw in 4.1). ISOCHRON_HAVE_PCOLL is 0 elsewhere
 * and every persistent operation refuses in set-up (isochron_ops_pcoll_missing).
 * The two forms of each operation:
 *   X_persistent  request made in set-up; one run = MPI_Start + MPI_Wait
 *                 (isochron_ops_pstart, isochron_ops_prun); freed in teardown
 *                 (isochron_ops_pfree);
 *   X_init        one run = the init call + MPI_Request_free; validated on a
 *                 request made, started and waited the same way
 *                 (isochron_ops_pinit_cycle).
 * Internal to src/ops.
 */
#ifndef ISOCHRON_OPS_PCOLL_H
#define ISOCHRON_OPS_PCOLL_H

#include "ops/ops_impl.h"
#if MPI_VERSION < 4 && defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define ISOCHRON_PC(x) MPI_##x##_init
#define ISOCHRON_HAVE_PCOLL 1
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define ISOCHRON_PC(x) MPIX_##x##_init
#define ISOCHRON_HAVE_PCOLL 1
#else
#define ISOCHRON_HAVE_PCOLL 0
#endif

/* Makes the persistent request of an operation into *q (an MPI return code). */
typedef int (*isochron_ops_pinit_fn)(isochron_op_ctx_t *c, MPI_Request *q);

/* EUNSUPPORTED naming the operation and what the library lacks (persist.c). */
int isochron_ops_pcoll_missing(const char *name);
/* One init + (start + wait if START) + MPI_Request_free (persist.c). */
int isochron_ops_pinit_cycle(isochron_op_ctx_t *c, isochron_ops_pinit_fn fn, int start);
/* MPI_Start of c->req; its MPI_Wait; both (persist.c). They keep the state's pactive, which says whether
 * c->req is started and not yet waited. */
int isochron_ops_pstart(isochron_op_ctx_t *c);
int isochron_ops_pwait(isochron_op_ctx_t *c);
int isochron_ops_prun(isochron_op_ctx_t *c);
/* Completes c->req if it was started and not waited, then frees it (persist.c). Only then: MPICH 4.0.2's
 * MPI_Wait on a persistent collective request never started hangs (the standard says it returns at once). */
void isochron_ops_pfree(isochron_op_ctx_t *c);

#endif
