/*
 * Error reporting for libisochron. Every public function returns an int code
 * (isochron.h) and, on failure, leaves a sentence in a thread-local buffer:
 * thread-local rather than global so that multi-threaded applications each
 * see their own last error. Under SimGrid (built with -DSMPI_ISOCHRON) a
 * thread is not a rank: SMPI's default contexts run every simulated rank on
 * the one host thread, so a thread-local buffer was shared by all ranks and a
 * failing rank's sentence was overwritten by another rank's before it was
 * reported (hca3+prop with read jitter printed another rank's "clock flatten:
 * buffer of 0 bytes" instead of its refusal). There each rank keeps its
 * buffer in SMPI's per-process user data, allocated at its first error.
 */
#include <stdarg.h>
#include <stdio.h>
#include "isochron.h"
#include "core/util.h"

#define ERROR_LEN 4096
#ifdef SMPI_ISOCHRON
#include <stdlib.h>
#include <mpi.h> /* smpi_process_get_user_data: per simulated rank, valid before MPI_Init too */

static char *error_buffer(int create)
{
    static char fallback[ERROR_LEN]; /* only if a rank's buffer cannot be allocated */
    char *b = smpi_process_get_user_data();
    if (!b && create) {
        b = calloc(1, ERROR_LEN);
        if (!b) return fallback;
        smpi_process_set_user_data(b);
    }
    return b ? b : fallback;
}
#else
static _Thread_local char last_error[ERROR_LEN];
static char *error_buffer(int create) { (void)create; return last_error; }
#endif

const char *isochron_strerror(int code)
{
    switch (code) {
    case ISOCHRON_OK: return "OK";
    case ISOCHRON_EINVAL: return "EINVAL";
    case ISOCHRON_EPARSE: return "EPARSE";
    case ISOCHRON_ENAME: return "ENAME";
    case ISOCHRON_ENOMEM: return "ENOMEM";
    case ISOCHRON_EUNSUPPORTED: return "EUNSUPPORTED";
    case ISOCHRON_EMPI: return "EMPI";
    case ISOCHRON_ENOTSHARED: return "ENOTSHARED";
    case ISOCHRON_ETRUNC: return "ETRUNC";
    case ISOCHRON_EVALIDATE: return "EVALIDATE";
    case ISOCHRON_ETIMEOUT: return "ETIMEOUT";
    default: return "EUNKNOWN";
    }
}

const char *isochron_last_error(void) { return error_buffer(0); }

int isochron_set_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_buffer(1), ERROR_LEN, fmt, ap);
    va_end(ap);
    return code;
}
