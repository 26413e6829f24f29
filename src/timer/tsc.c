/*
 * The "tsc" timer: the x86 time-stamp counter read with rdtscp. Accepted only
 * when the CPU reports an invariant TSC (CPUID 0x80000007, EDX bit 8): only
 * then does it tick at a constant rate across frequency changes and sleep
 * states. Its frequency is calibrated at creation against
 * CLOCK_MONOTONIC_RAW over 20 ms (two readings bracketed by the counter,
 * keeping the tightest bracket), so each process has its own estimate:
 * processes using "tsc" do not share one time base exactly and a drift model
 * (or a sync algorithm) absorbs the difference.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "core/util.h"
#include "timer/timer_impl.h"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(SMPI_ISOCHRON)
#include <cpuid.h>
#include <x86intrin.h>
#define HAVE_X86_TSC 1
#endif

int isochron_tsc_available(char *why, int whylen)
{
#ifdef HAVE_X86_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) {
        snprintf(why, (size_t)whylen, "CPUID leaf 0x80000007 not available, cannot verify an invariant TSC");
        return 0;
    }
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    if (!(d & (1u << 8))) {
        snprintf(why, (size_t)whylen, "the TSC is not invariant on this CPU (CPUID 0x80000007 EDX bit 8 clear); use monotonic");
        return 0;
    }
    if (!__get_cpuid(0x80000001u, &a, &b, &c, &d) || !(d & (1u << 27))) {
        snprintf(why, (size_t)whylen, "rdtscp is not supported on this CPU");
        return 0;
    }
    return 1;
#else
    snprintf(why, (size_t)whylen, "no x86 time-stamp counter on this platform (or built for simulation)");
    return 0;
#endif
}

uint64_t isochron_tsc_read(void)
{
#ifdef HAVE_X86_TSC
    unsigned aux;
    return __rdtscp(&aux);
#else
    return 0;
#endif
}

/* One (tsc, raw) pair whose bracketing tsc interval is the smallest of a few tries. */
static void pair(uint64_t *tsc, double *raw)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        uint64_t a = isochron_tsc_read();
        double r = isochron_gettime(CLOCK_MONOTONIC_RAW);
        uint64_t b = isochron_tsc_read();
        if (b - a < best) { best = b - a; *tsc = a + (b - a) / 2; *raw = r; }
    }
}

int isochron_tsc_calibrate(double *hz)
{
    uint64_t t1 = 0, t2 = 0;
    double r1 = 0, r2 = 0;
    pair(&t1, &r1);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    pair(&t2, &r2);
    if (!(r2 > r1) || t2 <= t1) return -1;
    *hz = (double)(t2 - t1) / (r2 - r1);
    return (*hz > 1e6) ? 0 : -1;
}
