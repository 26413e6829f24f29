/*
 * Checking settings given as environment variables (the PMPI layers'
 * ISOCHRON_CC_* and ISOCHRON_TRACE_*): one parser for all of them, built on
 * the number parsers and registry lookups the drivers use (parse.c), so a
 * variable is refused as a driver's option is: a one-line message naming
 * the variable, the value and what is valid. Every function returns 0, or -1
 * with that message in err (errlen bytes; a message that does not fit is cut
 * at errlen, never the value checked). Nothing here calls MPI or exits: the
 * layers agree across ranks and stop the job themselves (src/pmpi/layer.c).
 * An unset or empty variable takes its default (isochron_setting_get).
 */
#ifndef ISOCHRON_CORE_SETTINGS_H
#define ISOCHRON_CORE_SETTINGS_H
#include <stddef.h>

/* The variable's value, or dflt when it is unset or empty. */
const char *isochron_setting_get(const char *var, const char *dflt);

/* A finite number in [lo, hi] (unit: how the value is read, e.g. "seconds"; in the message). When zero_ok,
 * 0 is accepted too (0 meaning "off" below lo). */
int isochron_setting_number(const char *var, const char *v, double lo, double hi, int zero_ok, const char *unit, double *out,
                            char *err, size_t errlen);
/* A decimal integer in [lo, hi]. */
int isochron_setting_integer(const char *var, const char *v, long lo, long hi, long *out, char *err, size_t errlen);
/* One of names[0..n-1] (case-insensitive) into *out; what names the kind of value ("mode"). */
int isochron_setting_choice(const char *var, const char *v, const char *const *names, int n, const char *what, int *out,
                            char *err, size_t errlen);
/* A comma-separated list without empty elements (isochron_list_ok). */
int isochron_setting_list(const char *var, const char *v, char *err, size_t errlen);
/* A file name, not a path: 1 to max bytes, no '/', not "." or "..". */
int isochron_setting_file_name(const char *var, const char *v, size_t max, char *err, size_t errlen);
/* A directory: at most max bytes; with ISOCHRON_DIR_CREATE created (with its parents) if missing; it must
 * be a directory (not a file), readable, and with ISOCHRON_DIR_WRITE one this process can create a file
 * in (a file is created there and removed). */
enum { ISOCHRON_DIR_CREATE = 1, ISOCHRON_DIR_WRITE = 2 };
int isochron_setting_dir(const char *var, const char *v, size_t max, int flags, char *err, size_t errlen);
/* Text of at most max bytes. */
int isochron_setting_text(const char *var, const char *v, size_t max, char *err, size_t errlen);
/* Every variable of the environment whose name starts with prefix must be one of known[0..n-1]
 * (a misspelt setting is refused, not ignored). */
int isochron_settings_known(const char *prefix, const char *const *known, int n, char *err, size_t errlen);

#endif
