/* Private layout of a timer handle, shared by timer.c, tsc.c and skew.c. */
#ifndef ISOCHRON_TIMER_IMPL_H
#define ISOCHRON_TIMER_IMPL_H
#include <stdint.h>
#include <time.h>
#include "isochron/timer.h"

struct isochron_timer {
    char name[80];
    double (*now)(isochron_timer_t *self);
    /* tsc */
    double tsc_hz;
    double tsc_inv;
    /* mpi_wtime read directly: MPI_Wtime - CLOCK_MONOTONIC (s) */
    double wtime_off;
    /* isochron_timer_resolution, measured once (res_done) */
    int res_done;
    double res_gran, res_cost;
    /* skew decorator */
    isochron_timer_t *base;
    int skewed;
    isochron_skew_t skew;
    double t0;
    uint64_t rng;
};

int isochron_tsc_available(char *why, int whylen);
uint64_t isochron_tsc_read(void);
int isochron_tsc_calibrate(double *hz);

#endif
