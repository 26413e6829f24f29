/*
 * The reporter and its output formats (private to the report module). A
 * reporter is a stream and one format, chosen once by isochron_reporter_create:
 * a table of the format's writers (one file each: table.c, jsonl.c, csv.c), so
 * no writer asks which format it is in. report.c makes the reporter and
 * hands each record to its format; fields.c holds what the formats derive
 * alike (human units, a point's rate, resolution, uncertainty, stop reason).
 */
#ifndef ISOCHRON_REPORT_FORMAT_H
#define ISOCHRON_REPORT_FORMAT_H

#include "isochron/report.h"

typedef struct isochron_report_format isochron_report_format_t;

struct isochron_reporter {
    const isochron_report_format_t *fmt;
    FILE *f;
    int namew;            /* table: width of the operation column */
};

/* One output format's writers; each writes to r->f and flushes. The helpers below are fields.c's. */
struct isochron_report_format {
    const char *name;
    int records;          /* 1: typed records (JSON Lines): a point keeps its record type and extra fields, and the records of
                             the clock check and the barrier experiments are written; 0: a label replaces a point's op */
    int tables;           /* 1: the clock check's and barrier experiments' tables for a reader (the table format) */
    void (*begin)(const isochron_reporter_t *r, const isochron_kv_t *kv, int n);
    void (*point)(const isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                  const isochron_kv_t *extra, int nextra);
    /* the closing record or line, with the \p n points a sweep skipped (0: none) */
    void (*end)(const isochron_reporter_t *r, double wall_s, int npoints, int complete, const isochron_sweep_skip_t *sk, int n);
    int (*matrix)(const isochron_reporter_t *r, const char *mode, size_t bytes, int nprocs, int reps, double wall_s,
                  const isochron_pair_t *pr);
    void (*startup)(const isochron_reporter_t *r, const char *tool, const isochron_startup_t *s);
    void (*track)(const isochron_reporter_t *r, int refreshes, double cost_s, double wall_s); /* NULL: nothing */
};

extern const isochron_report_format_t isochron_report_format_table; /* table.c */
extern const isochron_report_format_t isochron_report_format_jsonl; /* jsonl.c */
extern const isochron_report_format_t isochron_report_format_csv;   /* csv.c */

/* The stream of \p r when its format writes typed records (JSON Lines), else NULL: the writers of the check's
 * and barrier's records write nothing through another format. */
static inline FILE *isochron_report_records_of(const isochron_reporter_t *r) { return r && r->fmt->records ? r->f : NULL; }
/* Through a reporter whose format writes typed records: \p j on its stream, the record \p type opened
 * (isochron_json_record_begin), 1; else 0, nothing written (jsonl.c). */
int isochron_report_record_open(const isochron_reporter_t *r, isochron_json_t *j, const char *type);
/* The stream of \p r when its format writes the tables for a reader, else NULL. */
static inline FILE *isochron_report_tables_of(const isochron_reporter_t *r) { return r && r->fmt->tables ? r->f : NULL; }

/* Throughput points: the time statistics as rates (B/s). A rate is moved/time, a decreasing map, so
 * the median's interval [lo, hi] in time becomes [moved/hi, moved/lo]. */
typedef struct { double med, lo, hi, msgs; } isochron_report_rate_t;
/* 1 and the rates when \p p is a throughput point (unit "B/s", bytes moved), else 0 */
int isochron_report_rate(const isochron_point_t *p, isochron_report_rate_t *r);
/* why a point stopped: "ci", "max_reps", "budget", "max_attempts", "error" */
const char *isochron_report_stop_name(int stop);
/* The context entries as "key value" lines for a reader, each after \p prefix: strings unquoted, objects
 * as key=value pairs (table and CSV, whose prefix is "# ") */
void isochron_report_kv_lines(FILE *f, const char *prefix, const isochron_kv_t *kv, int n);
#endif
