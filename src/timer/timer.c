/*
 * Timer registry. Each timer is a small descriptor (name, description,
 * constructor) in one table, in the manner of Open MPI's MCA components:
 * --list-timers prints the table, an unknown name is an error that lists it.
 * A timer reads seconds from an arbitrary origin. The mpi_wtime origin
 * differs per process in Open MPI (measured here: 50-300 µs apart on one
 * host), whereas CLOCK_MONOTONIC is one clock for the whole kernel, up to
 * the whole-second offset a time namespace adds to it (time_namespaces(7)):
 * that is why isochron_truth_now() reads CLOCK_MONOTONIC less that offset
 * for ground truth. The offset is the kernel's own (/proc/self/timens_offsets),
 * independent of anything isochron measures, and CLOCK_MONOTONIC_RAW or the
 * TSC would not serve better: the first is namespaced too, the second is not
 * invariant everywhere.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "isochron.h"
#include "core/util.h"
#include "timer/timer_impl.h"

static double now_wtime(isochron_timer_t *t) { (void)t; return MPI_Wtime(); }

/* MPI_Wtime read without the library call: Open MPI's and MPICH's MPI_Wtime
 * on Linux are CLOCK_MONOTONIC minus an origin (per process in Open MPI),
 * but the call costs 39-41 ns against 23-30 ns for clock_gettime here. So
 * at creation the two are compared: the offset MPI_Wtime - CLOCK_MONOTONIC,
 * taken from the tightest of 20 bracketed readings, must agree within 100 ns
 * twice, 20 ms apart (the same rate within 5 ppm, no steps), and MPI_Wtick
 * must be 1 µs or finer. Then the timer reads CLOCK_MONOTONIC + offset: the
 * same clock as MPI_Wtime, read directly. Otherwise (another MPI, SimGrid's
 * simulated time, ISOCHRON_WTIME_DIRECT=0) every read calls MPI_Wtime. */
static double now_wtime_direct(isochron_timer_t *t)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((double)ts.tv_sec + t->wtime_off) + 1e-9 * (double)ts.tv_nsec;
}

#ifndef SMPI_ISOCHRON
static int wtime_offset(double *off)
{
    double best = INFINITY;
    for (int i = 0; i < 20; i++) {
        struct timespec a, c;
        clock_gettime(CLOCK_MONOTONIC, &a);
        double w = MPI_Wtime();
        clock_gettime(CLOCK_MONOTONIC, &c);
        double ma = (double)a.tv_sec + 1e-9 * (double)a.tv_nsec, mc = (double)c.tv_sec + 1e-9 * (double)c.tv_nsec;
        if (mc - ma < best) { best = mc - ma; *off = w - 0.5 * (ma + mc); }
    }
    return best < 5e-6 ? 0 : -1;
}

static int wtime_is_monotonic(double *off)
{
    const char *env = getenv("ISOCHRON_WTIME_DIRECT");
    if ((env && !strcmp(env, "0")) || MPI_Wtick() > 1e-6) return 0;
    double o1, o2;
    if (wtime_offset(&o1)) return 0;
    isochron_sleep(0.02);
    if (wtime_offset(&o2) || fabs(o1 - o2) > 100e-9) return 0;
    *off = 0.5 * (o1 + o2);
    return 1;
}
#endif
static double now_mono(isochron_timer_t *t) { (void)t; return isochron_gettime(CLOCK_MONOTONIC); }
static double now_mono_raw(isochron_timer_t *t) { (void)t; return isochron_gettime(CLOCK_MONOTONIC_RAW); }
/* CLOCK_REALTIME counted from 2026-01-01T00:00:00Z rather than 1970: as a
 * double, 1.7e9 s has a resolution of 238 ns, 3e7 s one of 4 ns. The epoch
 * is a constant, so all processes of a host still read one clock. */
#define REALTIME_EPOCH 1767225600.0
static double now_real(isochron_timer_t *t)
{
    (void)t;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((double)ts.tv_sec - REALTIME_EPOCH) + 1e-9 * (double)ts.tv_nsec;
}
static double now_tsc(isochron_timer_t *t) { return (double)isochron_tsc_read() * t->tsc_inv; }

static const isochron_timer_info_t registry[] = {
    {"mpi_wtime", "MPI_Wtime() of the MPI library (origin may differ per process); read as CLOCK_MONOTONIC + offset when measured to be that clock"},
    {"monotonic", "clock_gettime(CLOCK_MONOTONIC): one clock for all processes of a host, NTP-slewed rate"},
    {"monotonic_raw", "clock_gettime(CLOCK_MONOTONIC_RAW): host-wide, raw oscillator rate"},
    {"realtime", "clock_gettime(CLOCK_REALTIME) in seconds since 2026-01-01 UTC: wall clock, may jump when set"},
    {"tsc", "rdtscp cycle counter / calibrated frequency; refused unless the TSC is invariant"},
};
#define NTIMERS ((int)(sizeof registry / sizeof registry[0]))

ISOCHRON_REGISTRY_ACCESSORS(isochron_timer_count, isochron_timer_info, isochron_timer_info_t, NTIMERS, ISOCHRON_REGISTRY_ENTRY(registry))

static const char *timer_at(const void *reg, int i) { (void)reg; return registry[i].name; }

const char *isochron_timer_names(void)
{
    static char names[256];
    if (!names[0]) isochron_names_join(NULL, NTIMERS, timer_at, names, sizeof names);
    return names;
}

int isochron_timer_create(const char *name, isochron_timer_t **out)
{
    *out = NULL;
    if (!name) return isochron_set_error(ISOCHRON_EINVAL, "timer name is NULL");
    isochron_timer_t *t = calloc(1, sizeof *t);
    if (!t) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory creating timer");
    snprintf(t->name, sizeof t->name, "%s", name);
    if (!strcmp(name, "mpi_wtime")) {
        int init = 0;
        MPI_Initialized(&init);
        if (!init) { free(t); return isochron_set_error(ISOCHRON_EUNSUPPORTED, "timer mpi_wtime needs MPI to be initialized"); }
        t->now = now_wtime;
#ifndef SMPI_ISOCHRON
        if (wtime_is_monotonic(&t->wtime_off)) t->now = now_wtime_direct;
#endif
    } else if (!strcmp(name, "monotonic")) t->now = now_mono;
    else if (!strcmp(name, "monotonic_raw")) t->now = now_mono_raw;
    else if (!strcmp(name, "realtime")) t->now = now_real;
    else if (!strcmp(name, "tsc")) {
        char why[200];
        if (!isochron_tsc_available(why, sizeof why)) {
            free(t);
            return isochron_set_error(ISOCHRON_EUNSUPPORTED, "timer tsc refused: %s", why);
        }
        if (isochron_tsc_calibrate(&t->tsc_hz) != 0) {
            free(t);
            return isochron_set_error(ISOCHRON_EUNSUPPORTED, "timer tsc refused: calibration against CLOCK_MONOTONIC_RAW failed");
        }
        t->tsc_inv = 1.0 / t->tsc_hz;
        t->now = now_tsc;
    } else {
        free(t);
        return isochron_set_error(ISOCHRON_ENAME, "unknown timer '%s'; valid timers: %s", name, isochron_timer_names());
    }
    *out = t;
    return ISOCHRON_OK;
}

double isochron_timer_now(isochron_timer_t *t) { return t->now(t); }
const char *isochron_timer_name(const isochron_timer_t *t) { return t->name; }
const char *isochron_timer_base_name(const isochron_timer_t *t) { return t->skewed ? t->base->name : t->name; }
int isochron_timer_is_skewed(const isochron_timer_t *t) { return t->skewed; }
double isochron_timer_tsc_hz(const isochron_timer_t *t) { return t->skewed ? t->base->tsc_hz : t->tsc_hz; }

/* The tick of the clock a timer reads (see isochron_timer_resolution). */
static double granularity_of(isochron_timer_t *t)
{
    if (t->skewed) return granularity_of(t->base);
    struct timespec r;
    if (t->now == now_tsc) return t->tsc_inv;
    if (t->now == now_wtime) return MPI_Wtick();
    clockid_t id = t->now == now_mono_raw ? CLOCK_MONOTONIC_RAW : t->now == now_real ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    if (clock_getres(id, &r) != 0) return 1e-9;
    return (double)r.tv_sec + 1e-9 * (double)r.tv_nsec;
}

void isochron_timer_resolution(isochron_timer_t *t, double *granularity, double *read_cost)
{
    if (!t->res_done) {
        enum { B = 7, R = 256 };
        double per[B];
        volatile double sink = 0;
        for (int b = 0; b < B; b++) {
            double a = t->now(t);
            for (int i = 0; i < R; i++) sink += t->now(t);
            per[b] = (t->now(t) - a) / (R + 1);
        }
        (void)sink;
        isochron_sort_doubles(per, B);
        t->res_cost = per[B / 2] > 0 ? per[B / 2] : 0;
        t->res_gran = granularity_of(t);
        t->res_done = 1;
    }
    if (granularity) *granularity = t->res_gran;
    if (read_cost) *read_cost = t->res_cost;
}

void isochron_timer_destroy(isochron_timer_t *t)
{
    if (!t) return;
    if (t->skewed) isochron_timer_destroy(t->base);
    free(t);
}

void isochron_spin_pause(void)
{
#ifdef SMPI_ISOCHRON
    isochron_sleep(100e-9);
#elif defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* The monotonic offset of this process's time namespace, read once: a
 * process cannot change its own time namespace after start (setns(2) takes
 * effect for children only), so the value is constant for the process. */
static double timens_offset = NAN;

static double read_timens_offset(void)
{
#if defined(__linux__) && !defined(SMPI_ISOCHRON)
    FILE *f = fopen("/proc/self/timens_offsets", "r");
    double off = 0;
    if (f) {
        char name[32];
        long long sec, nsec;
        while (fscanf(f, "%31s %lld %lld", name, &sec, &nsec) == 3)
            if (!strcmp(name, "monotonic")) off = (double)sec + 1e-9 * (double)nsec;
        fclose(f);
    }
    return off;
#else
    return 0;
#endif
}

double isochron_truth_timens_offset(void)
{
    double o = timens_offset;
    if (isnan(o)) timens_offset = o = read_timens_offset(); /* idempotent: a race writes the same value */
    return o;
}

double isochron_truth_now(void) { return isochron_gettime(CLOCK_MONOTONIC) - isochron_truth_timens_offset(); }

int isochron_timer_reads_truth(const isochron_timer_t *t, double *offset)
{
    if (t->skewed) return isochron_timer_reads_truth(t->base, offset);
    if (t->now == now_mono) { *offset = isochron_truth_timens_offset(); return 1; }
    if (t->now == now_wtime_direct) { *offset = isochron_truth_timens_offset() + t->wtime_off; return 1; }
    return 0;
}

int isochron_truth_kernel_id(char *buf, size_t len) { return isochron_kernel_id(buf, len); }

void isochron_sleep(double seconds) { isochron_nap(seconds); }
