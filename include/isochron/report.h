/**
 * \file isochron/report.h
 * \brief Reporters: results as a console table, JSON Lines or CSV, behind one
 *        interface and chosen independently of measurement (as Google
 *        Benchmark does). Each point is written and flushed as soon as it is
 *        measured, so an interrupted run keeps a valid file of what it did.
 */
#ifndef ISOCHRON_REPORT_H
#define ISOCHRON_REPORT_H

#include <stdio.h>
#include "isochron/bench.h"

typedef struct isochron_reporter isochron_reporter_t;

/** One context entry: key and its value as JSON text (e.g. "\"mpi_wtime\"", "4", "true"). */
typedef struct {
    const char *key;
    const char *json;
} isochron_kv_t;

/** \brief "table", "jsonl" or "csv" writing to \p f (not closed by the reporter). */
int isochron_reporter_create(const char *format, FILE *f, isochron_reporter_t **out);
const char *isochron_reporter_names(void);
/** \brief Context block: jsonl writes one {"type":"context"} record, csv '#' lines, table a header. */
int isochron_report_begin(isochron_reporter_t *r, const isochron_kv_t *kv, int n);
/** \brief One measured point (scheme and method named in every record). */
int isochron_report_point(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method);
/** The same point as a JSON Lines record of another type ("cost" for the barrier driver) with extra
 *  fields inserted verbatim after the type (e.g. "\"barrier\":\"rds\""); table and CSV ignore both. */
int isochron_report_point_as(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                             const char *extra);
/** \brief Closing record with the run's wall time and number of points. */
int isochron_report_end(isochron_reporter_t *r, double wall_s, int npoints, int complete);
void isochron_reporter_destroy(isochron_reporter_t *r);

/** \brief Human-readable time ("12.3 us") and size ("64 KiB") into buf. */
const char *isochron_fmt_time(double s, char *buf, size_t len);
const char *isochron_fmt_bytes(size_t b, char *buf, size_t len);

#endif
