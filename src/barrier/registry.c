/*
 * The barrier registry and handles. A barrier is created collectively on a
 * communicator: it duplicates the communicator (its null messages never
 * match the application's), decides how to wait for messages (spinning in
 * MPI_Recv by default, or MPI_Test + sched_yield(), on request or when the
 * node runs more ranks than CPUs for "auto"; unlike the engine's
 * millisecond waits for a start time, a barrier's waits are microseconds,
 * and spinning measured faster and more precise even at 4 and 8 ranks on 2
 * cores with Open MPI), and runs the algorithm's
 * initialisation (RDS measures b_s and s, paper 004 sec. 3.3).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "barrier/barrier_impl.h"

extern const barrier_alg_t isochron_bar_linear, isochron_bar_tree, isochron_bar_butterfly, isochron_bar_sync0,
    isochron_bar_dissemination, isochron_bar_double_ring, isochron_bar_rds;

static int mpi_run(isochron_barrier_t *b)
{
    return MPI_Barrier(b->comm) == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "MPI_Barrier failed");
}
static const barrier_alg_t bar_mpi = {"mpi", "MPI_Barrier of the MPI library", NULL, mpi_run};

static const barrier_alg_t *algs[] = {&bar_mpi, &isochron_bar_linear, &isochron_bar_tree, &isochron_bar_butterfly,
    &isochron_bar_sync0, &isochron_bar_dissemination, &isochron_bar_double_ring, &isochron_bar_rds};
#define NA ((int)(sizeof algs / sizeof algs[0]))
static isochron_barrier_info_t infos[NA];

ISOCHRON_REGISTRY_ACCESSORS(isochron_barrier_count, isochron_barrier_info, isochron_barrier_info_t, NA, ISOCHRON_REGISTRY_VIEW(algs, infos))

static const char *alg_at(const void *reg, int i) { (void)reg; return algs[i]->name; }

const char *isochron_barrier_names(void)
{
    static char buf[256];
    if (!buf[0]) isochron_names_join(NULL, NA, alg_at, buf, sizeof buf);
    return buf;
}

static const barrier_alg_t *find(const char *name)
{
    int i = isochron_names_find(NULL, NA, alg_at, name);
    return i < 0 ? NULL : algs[i];
}

int isochron_barrier_check_name(const char *name)
{
    if (find(name)) return ISOCHRON_OK;
    return isochron_set_error(ISOCHRON_ENAME, "unknown barrier '%s'; valid: %s", name ? name : "(null)", isochron_barrier_names());
}

void isochron_barrier_opts_default(isochron_barrier_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->wait = ISOCHRON_BARRIER_WAIT_SPIN; /* measured best even at 4 and 8 ranks on 2 cores (README) */
    o->rds_b_s = 0;
    o->rds_s = -1;
    o->rds_samples = 1000;
}

int isochron_barrier_create(const char *name, MPI_Comm comm, const isochron_barrier_opts_t *opts, isochron_barrier_t **out)
{
    *out = NULL;
    isochron_barrier_opts_t def;
    if (!opts) { isochron_barrier_opts_default(&def); opts = &def; }
    const barrier_alg_t *alg = find(name);
    if (!alg) return isochron_barrier_check_name(name);
    if (opts->wait < ISOCHRON_BARRIER_WAIT_AUTO || opts->wait > ISOCHRON_BARRIER_WAIT_YIELD)
        return isochron_set_error(ISOCHRON_EINVAL, "barrier: wait mode %d is not auto, spin or yield", opts->wait);
    if (opts->rds_samples < 1 || opts->rds_samples > 10000000)
        return isochron_set_error(ISOCHRON_EINVAL, "barrier: rds_samples %d not in 1..10000000", opts->rds_samples);
    isochron_barrier_t *b = calloc(1, sizeof *b);
    if (!b) return isochron_set_error(ISOCHRON_ENOMEM, "barrier: out of memory");
    b->alg = alg;
    MPI_Comm_dup(comm, &b->comm);
    MPI_Comm_rank(b->comm, &b->rank);
    MPI_Comm_size(b->comm, &b->size);
    if (opts->wait == ISOCHRON_BARRIER_WAIT_AUTO) {
        b->yield = isochron_comm_oversubscribed(b->comm);
    } else {
        b->yield = opts->wait == ISOCHRON_BARRIER_WAIT_YIELD;
    }
    int rc = alg->init ? alg->init(b, opts) : ISOCHRON_OK;
    if (rc) { isochron_barrier_destroy(b); return rc; }
    *out = b;
    return ISOCHRON_OK;
}

int isochron_barrier_run(isochron_barrier_t *b)
{
    if (b->size == 1 && b->alg != &bar_mpi) return ISOCHRON_OK;
    return b->alg->run(b);
}
const char *isochron_barrier_name(const isochron_barrier_t *b) { return b->alg->name; }
int isochron_barrier_yields(const isochron_barrier_t *b) { return b->yield; }

void isochron_barrier_destroy(isochron_barrier_t *b)
{
    if (!b) return;
    MPI_Comm_free(&b->comm);
    free(b);
}

int isochron_barrier_rds_info(const isochron_barrier_t *b, isochron_rds_info_t *out)
{
    if (b->alg != &isochron_bar_rds) return isochron_set_error(ISOCHRON_EINVAL, "barrier '%s' is not rds: it has no RDS constants", b->alg->name);
    *out = b->rds;
    return ISOCHRON_OK;
}
