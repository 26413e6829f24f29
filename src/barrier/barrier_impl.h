/* Private layout of a barrier handle, shared by the registry, the algorithms
 * and RDS. Messages are null (zero-byte) messages on the handle's own
 * duplicate of the caller's communicator; each algorithm has its tags. */
#ifndef ISOCHRON_BARRIER_IMPL_H
#define ISOCHRON_BARRIER_IMPL_H
#include "isochron/barrier.h"

enum { TAG_LINEAR = 100, TAG_TREE = 200, TAG_BUTTERFLY = 300, TAG_SYNC0 = 400,
       TAG_DISSEM = 500, TAG_RING = 600, TAG_RDS = 700, TAG_CALIB = 800 };

struct isochron_barrier {
    const struct barrier_alg *alg;
    MPI_Comm comm;       /* duplicate: the barrier's own traffic */
    int rank, size;
    int yield;           /* wait by MPI_Test + sched_yield */
    isochron_rds_info_t rds;
    char op_name[48];    /* "barrier:<name>", the name of isochron_barrier_as_op's operation */
};

typedef struct barrier_alg {
    const char *name, *description;
    int (*init)(isochron_barrier_t *b, const isochron_barrier_opts_t *o); /* may be NULL */
    int (*run)(isochron_barrier_t *b);
} barrier_alg_t;

/* Null-message primitives honouring the wait mode. */
int isochron_bar_send(isochron_barrier_t *b, int dst, int tag);
int isochron_bar_recv(isochron_barrier_t *b, int src, int tag);
int isochron_bar_sendrecv(isochron_barrier_t *b, int dst, int src, int tag); /* send to dst while receiving from src */
/* The trial's own communicator (experiment.c agrees on counts over it). */
MPI_Comm isochron_bar_trial_comm(const isochron_barrier_trial_t *t);
/* Largest power of two <= n (n >= 1). */
int isochron_bar_pow2_floor(int n);

#endif
