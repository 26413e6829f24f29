/*
 * Error reporting for libisochron. Every public function returns an int code
 * (isochron.h) and, on failure, leaves a sentence in a thread-local buffer:
 * thread-local rather than global so that SimGrid's thread-based ranks and
 * multi-threaded applications each see their own last error.
 */
#include <stdarg.h>
#include <stdio.h>
#include "isochron.h"
#include "core/util.h"

static _Thread_local char last_error[4096];

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

const char *isochron_last_error(void) { return last_error; }

int isochron_set_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}
