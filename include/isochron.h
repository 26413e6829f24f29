/**
 * \file isochron.h
 * \brief Umbrella header of libisochron: version, error codes, the error rule,
 *        and the number parsing every spec of the library uses.
 *
 * The rule for errors, kept by every module: a library function returns an int,
 * ISOCHRON_OK (0) on success or a negative ISOCHRON_E* code on failure, and on
 * failure it leaves a human-readable sentence retrievable with
 * isochron_last_error() (thread-local; under SimGrid, whose ranks share one
 * thread, kept per simulated rank: src/core/error.c). Library code never calls exit() or MPI_Abort();
 * the command-line drivers decide what to do with an error.
 *
 * Umbrella: a program that includes isochron.h gets the declarations of every
 * module of libisochron (timer, clock, sync, stats, ops, models, barrier,
 * bench, report). The other libraries have their own header, included on
 * its own: isochron/cc.h (libisochron-cc), isochron/trace.h
 * (libisochron-trace), isochron/shmem.h (libisochron_shmem, needs OpenSHMEM's
 * shmem.h). The library's own sources are compiled with ISOCHRON_BUILDING
 * defined, so each sees only the modules it includes itself (the layering:
 * core knows no higher module). Every header is usable from C++ (extern "C").
 */
#ifndef ISOCHRON_H
#define ISOCHRON_H

#ifdef __cplusplus
extern "C" {
#endif

#define ISOCHRON_VERSION_MAJOR 0
#define ISOCHRON_VERSION_MINOR 1
#define ISOCHRON_VERSION_PATCH 0
#define ISOCHRON_VERSION_STR_(x) #x
#define ISOCHRON_VERSION_STR(x) ISOCHRON_VERSION_STR_(x)
/* "0.1.0": made of the three numbers above, the version's one source (CMakeLists.txt reads them) */
#define ISOCHRON_VERSION_STRING                                                                            \
    ISOCHRON_VERSION_STR(ISOCHRON_VERSION_MAJOR) "." ISOCHRON_VERSION_STR(ISOCHRON_VERSION_MINOR) "." \
        ISOCHRON_VERSION_STR(ISOCHRON_VERSION_PATCH)

/** Schema version of every JSON Lines record isochron writes. */
#define ISOCHRON_SCHEMA_VERSION 1

enum isochron_error {
    ISOCHRON_OK = 0,
    ISOCHRON_EINVAL = -1,      /**< bad argument or out-of-range parameter */
    ISOCHRON_EPARSE = -2,      /**< malformed spec or value */
    ISOCHRON_ENAME = -3,       /**< unknown name in a registry */
    ISOCHRON_ENOMEM = -4,      /**< allocation failed */
    ISOCHRON_EUNSUPPORTED = -5,/**< not available on this machine (e.g. TSC not invariant) */
    ISOCHRON_EMPI = -6,        /**< an MPI call failed */
    ISOCHRON_ENOTSHARED = -7,  /**< processes do not share a time source where required */
    ISOCHRON_ETRUNC = -8,      /**< buffer too small or truncated input */
    ISOCHRON_EVALIDATE = -9,   /**< an operation delivered wrong data */
    ISOCHRON_ETIMEOUT = -10    /**< a measurement did not finish in time */
};

/** \brief Short name of an error code ("EINVAL", ...). */
const char *isochron_strerror(int code);

/** \brief Sentence describing the last error raised by this thread ("" if none). */
const char *isochron_last_error(void);

/* Numbers as the library's specs read them (sync, skew, sizes of the drivers):
 * the whole string must be the number; 0 on success, -1 otherwise (no error
 * message is set: the caller knows which option it was). */
/** \brief A finite double. */
int isochron_parse_double(const char *s, double *out);
/** \brief A decimal long. */
int isochron_parse_long(const char *s, long *out);
/** \brief A duration in seconds with an optional unit s, ms, us or ns ("20us"). */
int isochron_parse_duration(const char *s, double *out);

#ifdef __cplusplus
}
#endif

#ifndef ISOCHRON_BUILDING
#include "isochron/timer.h"
#include "isochron/clock.h"
#include "isochron/sync.h"
#include "isochron/stats.h"
#include "isochron/ops.h"
#include "isochron/models.h"
#include "isochron/barrier.h"
#include "isochron/bench.h"
#include "isochron/report.h"
#endif

#endif
