/*
 * The global clock of the C tests that measure on one: mpi_wtime,
 * synchronized over MPI_COMM_WORLD by a sync spec (isochron/sync.h; e.g.
 * "hca3/20/skampi/10,span=0.02", HCA3 with SKaMPI offsets), the
 * synchronization checked once ("clocks synchronized"). check_clock_free
 * releases the clock, its base clock and the timer, in that order.
 */
#ifndef ISOCHRON_TEST_CHECK_CLOCK_H
#define ISOCHRON_TEST_CHECK_CLOCK_H

#include <mpi.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "check.h"

typedef struct {
    isochron_timer_t *t;
    isochron_clock_t *base, *g; /* g: the global clock */
} check_clock_t;

static inline void check_clock_sync(check_clock_t *k, const char *spec_text)
{
    isochron_sync_spec_t spec;
    k->g = NULL;
    isochron_timer_create("mpi_wtime", &k->t);
    isochron_clock_create(k->t, &k->base);
    isochron_sync_spec_parse(spec_text, &spec);
    CHECK_RC(isochron_sync_run(&spec, MPI_COMM_WORLD, k->base, &k->g, NULL), ISOCHRON_OK, "clocks synchronized");
}

static inline void check_clock_free(check_clock_t *k)
{
    isochron_clock_destroy(k->g);
    isochron_clock_destroy(k->base);
    isochron_timer_destroy(k->t);
}

#endif
