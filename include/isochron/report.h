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

#ifdef __cplusplus
extern "C" {
#endif

typedef struct isochron_reporter isochron_reporter_t;

/** One context entry: key and its value as JSON text (e.g. "\"mpi_wtime\"", "4", "true"). */
typedef struct {
    const char *key;
    const char *json;
} isochron_kv_t;

/** The output formats of the drivers' --format, one table (src/report/report.c): bit i of a mask is the
 *  format isochron_report_format_name(i); "none" is the last (nothing on stdout). */
enum {
    ISOCHRON_FORMAT_TABLE = 1u << 0,
    ISOCHRON_FORMAT_JSONL = 1u << 1,
    ISOCHRON_FORMAT_CSV = 1u << 2,
    ISOCHRON_FORMAT_NONE = 1u << 3,
};
/** \brief Name of format bit \p i (0: "table", 1: "jsonl", 2: "csv", 3: "none"), NULL beyond. */
const char *isochron_report_format_name(int i);
/** \brief ISOCHRON_OK when \p name is one of the formats in \p mask; else ISOCHRON_ENAME and the last error
 *  "unknown --format 'NAME'; valid: table, jsonl, none" (the formats of \p mask, in table order). */
int isochron_report_format_check(const char *name, unsigned mask);
/** \brief "table", "jsonl" or "csv" writing to \p f (not closed by the reporter). */
int isochron_reporter_create(const char *format, FILE *f, isochron_reporter_t **out);
const char *isochron_reporter_names(void);
/** \brief Table only: pad operation names to \p width characters (default 22, the longest default name), so a
 *  run of longer names (e.g. neighbor_allgatherv_graph_persistent) stays in columns. Call before the first point. */
void isochron_reporter_name_width(isochron_reporter_t *r, int width);
/** \brief Context block: jsonl writes one {"type":"context"} record, csv '#' lines, table a header. */
int isochron_report_begin(isochron_reporter_t *r, const isochron_kv_t *kv, int n);
/** \brief One measured point (scheme and method named in every record). */
int isochron_report_point(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method);
/** The same point as a JSON Lines record of another type ("cost" for the barrier driver) with \p nextra
 *  extra fields after the type (e.g. {"barrier", "\"rds\""}); table and CSV ignore both. */
int isochron_report_point_as(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                             const isochron_kv_t *extra, int nextra);
/** A point written under another name: JSON Lines as isochron_report_point_as (type, extra fields, p->op);
 *  table and CSV as a point whose operation is \p label (e.g. "allpairs:0-1" for a "pair" record). */
int isochron_report_point_labeled(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                                  const isochron_kv_t *extra, int nextra, const char *label);
/** \brief The matrix of all-pairs median round trips at one size (isochron_ops_allpairs_run's \p pairs,
 *  p(p-1)/2 of them at \p nprocs ranks, \p mode "parallel" or "sequential"): JSON Lines a "matrix"
 *  record (diagonal 0), table the matrix, CSV nothing (its pairs are rows already). */
int isochron_report_matrix(isochron_reporter_t *r, const char *mode, size_t bytes, int nprocs, int reps, double wall_s,
                           const isochron_pair_t *pairs);
/** \brief The start-up phases' min, mean and max over ranks (isochron_startup_summarize) of \p tool:
 *  JSON Lines one "startup" record, table and CSV one row per phase. */
int isochron_report_startup(isochron_reporter_t *r, const char *tool, const isochron_startup_t *s);
/** \brief What keeping the clock true cost: JSON Lines one "track" record; table and CSV nothing. */
int isochron_report_track(isochron_reporter_t *r, int refreshes, double cost_s, double wall_s);
/** \brief Closing record with the run's wall time and number of points. */
int isochron_report_end(isochron_reporter_t *r, double wall_s, int npoints, int complete);
void isochron_reporter_destroy(isochron_reporter_t *r);

/* ------------------------------------------------------------------------ */
/* JSON writer: every JSON Lines record of isochron (library and drivers)    */
/* goes through it, so all numbers have one format: the shortest decimal      */
/* that reads back as the same double (%.15g, else %.16g, else %.17g);        */
/* NaN and infinities are null. Commas are placed by the writer.              */

#define ISOCHRON_JSON_MAX_DEPTH 16

typedef struct {
    FILE *f;
    int depth;                                /**< open objects/arrays */
    unsigned char count[ISOCHRON_JSON_MAX_DEPTH]; /**< values written at each depth (0 or 1 suffices) */
    int after_key;                            /**< a key was written, its value comes next */
    char *mem;                                /**< isochron_json_open_string: the text */
    size_t memlen;
} isochron_json_t;

/** \brief Write to \p f (not closed by the writer). */
void isochron_json_init(isochron_json_t *j, FILE *f);
/** \brief Write to a growing string, taken with isochron_json_close_string. ENOMEM. */
int isochron_json_open_string(isochron_json_t *j);
/** \brief The text written since isochron_json_open_string (caller frees). */
char *isochron_json_close_string(isochron_json_t *j);

void isochron_json_object_begin(isochron_json_t *j);
void isochron_json_object_end(isochron_json_t *j);
void isochron_json_array_begin(isochron_json_t *j);
void isochron_json_array_end(isochron_json_t *j);
/** \brief The key of the next value in the open object. */
void isochron_json_key(isochron_json_t *j, const char *key);
/** \brief A string, escaped (NULL: null). */
void isochron_json_string(isochron_json_t *j, const char *s);
/** \brief A number in the one format (NaN, inf: null). */
void isochron_json_number(isochron_json_t *j, double v);
void isochron_json_int(isochron_json_t *j, long long v);
void isochron_json_bool(isochron_json_t *j, int b);
void isochron_json_null(isochron_json_t *j);
/** \brief A value that is JSON text already (e.g. one made with isochron_json_open_string). */
void isochron_json_raw(isochron_json_t *j, const char *json);
/** \brief The members of an object given as JSON text ("{...}"), written into the open object. */
void isochron_json_members(isochron_json_t *j, const char *object_json);
/** \brief An array of n numbers. */
void isochron_json_numbers(isochron_json_t *j, const double *v, int n);

/* key + value in one call */
void isochron_json_kstring(isochron_json_t *j, const char *key, const char *s);
void isochron_json_knumber(isochron_json_t *j, const char *key, double v);
void isochron_json_kint(isochron_json_t *j, const char *key, long long v);
void isochron_json_kbool(isochron_json_t *j, const char *key, int b);

/** \brief Open a record: {"schema":ISOCHRON_SCHEMA_VERSION,"type":type */
void isochron_json_record_begin(isochron_json_t *j, const char *type);
/** \brief Close the record's object, end the line and flush. */
void isochron_json_record_end(isochron_json_t *j);

/** \brief The one number format into buf ("null" for NaN/inf). */
const char *isochron_json_format_number(double v, char *buf, size_t len);

/** \brief Human-readable time ("12.3 us") and size ("64 KiB") into buf. */
const char *isochron_fmt_time(double s, char *buf, size_t len);
const char *isochron_fmt_bytes(size_t b, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
