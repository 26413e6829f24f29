/*
 * What the context records of isochron-bench and isochron-shmem share
 * (src/report/run_records.c; private to the report module): both begin with
 * the same seven entries (tool, run, nprocs, nodes, oversubscribed, timer,
 * clock_sync) before their own, and make their string values JSON text alike.
 */
#ifndef ISOCHRON_REPORT_CONTEXT_H
#define ISOCHRON_REPORT_CONTEXT_H

#include "isochron/report.h"

/* \p s as JSON text, e.g. "\"mpi_wtime\"" (caller frees; NULL when out of memory) */
char *isochron_report_json_text(const char *s);

/* An object as JSON text whose members \p members writes from \p arg (caller frees; NULL when out of memory) */
char *isochron_report_object_text(void (*members)(isochron_json_t *j, const void *arg), const void *arg);

/* The context block through \p rep: tool, run (\p run_json), nprocs, nodes, oversubscribed, timer, clock_sync
 * (\p clock_sync_json), then \p n entries of \p keys with their values as JSON text \p owned, which this frees
 * (ENOMEM when one of them is NULL: out of memory making it; EINVAL without \p rep, \p run_json or
 * \p clock_sync_json, or \p n beyond 0..16). Else isochron_report_begin's code. */
int isochron_report_context_begin(isochron_reporter_t *rep, const char *tool, const char *run_json, int nprocs, int nodes,
                                  int oversubscribed, const char *timer, const char *clock_sync_json, const char *const *keys,
                                  char **owned, int n);

#endif
