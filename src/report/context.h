/*
 * What the records of the report module share (private to it): the context
 * records of isochron-bench, isochron-barrier and isochron-shmem begin with
 * the entries of their run's head (isochron_report_run_head_t: tool, run,
 * nprocs, nodes, oversubscribed, timer, clock_sync) before their own and
 * make their string values JSON text alike (src/report/run_records.c); the
 * point records and the barrier records state the clock's error alike
 * (fields.c).
 */
#ifndef ISOCHRON_REPORT_CONTEXT_H
#define ISOCHRON_REPORT_CONTEXT_H

#include "isochron/report.h"

/* \p s as JSON text, e.g. "\"mpi_wtime\"" (caller frees; NULL when out of memory) */
char *isochron_report_json_text(const char *s);

/* An object as JSON text whose members \p members writes from \p arg (caller frees; NULL when out of memory) */
char *isochron_report_object_text(void (*members)(isochron_json_t *j, const void *arg), const void *arg);

/* The clock's error of a record (fields.c): "clock_bound_s", "clock_true_s" and, with a finite bound, which one is
 * stated ("clock_bound_kind": "hard" when \p is_hard, else "statistical"), the statistical bound when \p stat is not
 * NULL ("clock_bound_stat_s") and the hard one ("clock_bound_hard_s"). Every point (the barrier's "cost" too) and the
 * barrier experiments' "skew", "shift" and "payoff" records state it so. */
void isochron_report_clock_error(isochron_json_t *j, double bound, double truth, int is_hard, const double *stat, double hard);

/* \p n strings as the JSON text of an array (caller frees; NULL when out of memory) */
char *isochron_report_strings_text(const char *const *s, int n);

/* The context block through \p rep: the head's tool, run, nprocs, nodes, oversubscribed, then the first \p nplace
 * of the \p n entries (what else says how the ranks run, e.g. barriers_yield), the head's timer and clock_sync,
 * then the other entries: \p keys with their values as JSON text \p owned, which this frees (ENOMEM when one
 * of them is NULL: out of memory making it; EINVAL without \p rep, \p head, its run_json or clock_sync_json,
 * \p n beyond 0..16 or \p nplace beyond 0..n). Else isochron_report_begin's code. */
int isochron_report_context_begin(isochron_reporter_t *rep, const isochron_report_run_head_t *head, int nplace, const char *const *keys,
                                  char **owned, int n);

/* The engine's repetitions and stop rule in a context's "options" (isochron-bench and isochron-shmem alike, one
 * writer): "min_reps", "max_reps", "max_attempts" (only when \p max_attempts >= 0), "rel_ci", "ci_of" (median or
 * mean), "ci_level", "budget_s". In run_records.c. */
void isochron_report_stop_rule(isochron_json_t *j, int min_reps, int max_reps, int max_attempts, double rel_ci, int ci_mean, double ci_level,
                               double budget);

/* What a sync report states alike in the check's "sync" record and every context's "clock_sync" object: the spec
 * under \p spec_key, then "duration_s", "rounds", "pair_budget_s", "cut_pairs". In run_records.c. */
void isochron_report_sync_members(isochron_json_t *j, const char *spec_key, const char *spec, const isochron_sync_report_t *rep);

/* One member of a record as data: a record's plain members are a list that one loop writes
 * (isochron_report_members), in the list's order, instead of a call per key. */
typedef struct {
    const char *key;
    char kind;      /* 'n' number (isochron_json_number), 'i' integer, 's' string (NULL: null), 'b' boolean */
    double num;
    long long integer;
    const char *str;
} isochron_report_member_t;
#define ISOCHRON_JNUM(k, v) {(k), 'n', (v), 0, NULL}
#define ISOCHRON_JINT(k, v) {(k), 'i', 0, (long long)(v), NULL}
#define ISOCHRON_JSTR(k, v) {(k), 's', 0, 0, (v)}
#define ISOCHRON_JBOOL(k, v) {(k), 'b', 0, (v) != 0, NULL}
/* The \p n members of \p m into the open object of \p j (fields.c). */
void isochron_report_members(isochron_json_t *j, const isochron_report_member_t *m, int n);
#define ISOCHRON_NMEMBERS(m) ((int)(sizeof(m) / sizeof *(m)))
#endif
