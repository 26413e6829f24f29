/*
 * The drivers' options: one table (app_option_t) drives parsing and --help (Caliper's parameter specs, as
 * docs/design.md asks), and the parsers of the values every driver shares (lists, sizes, the engine's
 * repetition options, --track, --node-size), each answering a bad value with one line naming it and the
 * valid choices.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "common.h"

void app_help(FILE *f, const char *prog, const char *synopsis, const app_option_t *opts, int nopts)
{
    fprintf(f, "usage: %s %s\n\noptions:\n", prog, synopsis);
    for (int i = 0; i < nopts; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", opts[i].name, opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
        fprintf(f, "  %-26s %s", left, opts[i].help);
        if (opts[i].def) fprintf(f, " (default: %s)", opts[i].def);
        fputc('\n', f);
    }
}

static const struct {
    const char *status, *meaning;
    int defect_only;
} app_exit_table[] = {
    {"0", "the run completed", 0},
    {"1", "a measurement failed (the points before it are kept)", 0},
    {"2", "a usage error: bad option or value; nothing measured", 0},
    {"3", "the watchdog (--watchdog) ended a point that hung", 0},
    {"4", "the OpenSHMEM library delivered wrong data (every other point measured)", 1},
    {"128+N", "ended by signal N (130: Ctrl-C, 143: SIGTERM); the JSON Lines file ends with an end record that says so", 0},
};

void app_help_exit(FILE *f, int with_defect)
{
    fputs("\nexit status:\n", f);
    for (size_t i = 0; i < sizeof app_exit_table / sizeof app_exit_table[0]; i++)
        if (with_defect || !app_exit_table[i].defect_only)
            fprintf(f, "  %-6s %s\n", app_exit_table[i].status, app_exit_table[i].meaning);
}

int app_preamble(const char *prog, int argc, char **argv, const app_option_t *opts, int nopts, const char **values, int rank, const char *about)
{
    int code = app_parse(argc, argv, opts, nopts, values, rank);
    if (code) return code;
    for (int i = 0; i < nopts; i++) {
        if (!values[i]) continue;
        if (!strcmp(opts[i].name, "help")) {
            if (rank == 0) {
                app_help(stdout, prog, "[options]   (run under mpirun)", opts, nopts);
                if (about) printf("\n%s", about);
                app_help_exit(stdout, 0);
            }
            return 1;
        }
    }
    for (int i = 0; i < nopts; i++)
        if (values[i] && !strcmp(opts[i].name, "version")) {
            if (rank == 0) printf("%s %s\n", prog, ISOCHRON_VERSION_STRING);
            return 1;
        }
    return 0;
}

const char *app_value(const app_option_t *opts, const char **values, int i) { return values[i] ? values[i] : opts[i].def; }

const char *app_argv_value(int argc, char **argv, const char *name)
{
    const char *val = NULL;
    size_t n = strlen(name);
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        if (strncmp(s, "--", 2) || strncmp(s + 2, name, n)) continue;
        if (s[2 + n] == '=') val = s + 3 + n;
        else if (!s[2 + n] && a + 1 < argc) val = argv[a + 1];
    }
    return val;
}

/* Options renamed: the old spelling answered with the new names (one meaning, one name). */
static const struct { const char *old, *msg; } renamed[] = {
    {"slack", "--slack was split by meaning: isochron-bench --slack-bcasts B (a multiplier of the Bcast latency), isochron-barrier --slack-time "
              "SECONDS (a time)"},
};

int app_parse(int argc, char **argv, const app_option_t *opts, int nopts, const char **values, int rank)
{
    for (int i = 0; i < nopts; i++) values[i] = NULL;
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        if (strncmp(s, "--", 2) != 0) {
            if (rank == 0) fprintf(stderr, "error: unexpected argument '%s' (options start with --; see --help)\n", s);
            return 2;
        }
        s += 2;
        const char *eq = strchr(s, '=');
        size_t len = eq ? (size_t)(eq - s) : strlen(s);
        int found = -1;
        for (int i = 0; i < nopts; i++)
            if (strlen(opts[i].name) == len && !strncmp(opts[i].name, s, len)) found = i;
        for (size_t r = 0; found < 0 && r < sizeof renamed / sizeof renamed[0]; r++)
            if (strlen(renamed[r].old) == len && !strncmp(renamed[r].old, s, len)) {
                if (rank == 0) fprintf(stderr, "error: unknown option '%s': %s\n", argv[a], renamed[r].msg);
                return 2;
            }
        if (found < 0) {
            if (rank == 0) {
                fprintf(stderr, "error: unknown option '%s'; valid options:", argv[a]);
                for (int i = 0; i < nopts; i++) fprintf(stderr, " --%s", opts[i].name);
                fprintf(stderr, " (see --help)\n");
            }
            return 2;
        }
        if (!opts[found].arg) {
            if (eq) { if (rank == 0) fprintf(stderr, "error: option --%s takes no value\n", opts[found].name); return 2; }
            values[found] = "1";
        } else if (eq) values[found] = eq + 1;
        else if (a + 1 < argc) values[found] = argv[++a];
        else { if (rank == 0) fprintf(stderr, "error: option --%s needs a value %s\n", opts[found].name, opts[found].arg); return 2; }
    }
    return 0;
}

int app_list_ok(const char *s, char *err, size_t errlen)
{
    size_t len = s ? strlen(s) : 0;
    if (!len) { snprintf(err, errlen, "empty list"); return -1; }
    if (s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,")) { snprintf(err, errlen, "empty element in '%s'", s); return -1; }
    return 0;
}

int app_parse_list(const char *s, double *out, int max, int *n)
{
    char err[8];
    *n = 0;
    if (app_list_ok(s, err, sizeof err)) return -1;
    char *copy = strdup(s), *save = NULL;
    if (!copy) return -1;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n >= max || isochron_parse_duration(t, &out[*n]) != 0) { free(copy); return -1; }
        (*n)++;
    }
    free(copy);
    return *n > 0 ? 0 : -1;
}

int app_parse_track(const char *prog, const char *v, int rank, int *on)
{
    *on = 1;
    if (!v || !strcmp(v, "on")) return 0;
    if (!strcmp(v, "off")) { *on = 0; return 0; }
    if (rank == 0) fprintf(stderr, "%s: --track '%s': valid: on, off\n", prog, v);
    return 2;
}

int app_parse_ci_of(const char *prog, const char *v, int rank, int *mean)
{
    *mean = v && !strcmp(v, "mean");
    if (!v || *mean || !strcmp(v, "median")) return 0;
    if (rank == 0) fprintf(stderr, "%s: --ci-of '%s': valid: median, mean\n", prog, v);
    return 2;
}

int app_parse_node_size(const char *prog, const char *v, int rank, int *out)
{
    long n = 0;
    *out = 0;
    if (v && (isochron_parse_long(v, &n) || n < 0 || n > 1000000)) {
        if (rank == 0) fprintf(stderr, "%s: --node-size '%s': expected an integer in [0, 1000000] (0: shared-memory nodes)\n", prog, v);
        return 2;
    }
    *out = (int)n;
    return 0;
}

int app_engine_options(const char *prog, const char *min_reps, const char *max_reps, const char *rel_ci, const char *budget, int rank,
                       isochron_bench_opts_t *bo)
{
    long lv;
    double dv;
    const char *bad = NULL, *want = NULL;
    if (min_reps && (isochron_parse_long(min_reps, &lv) || lv < 1 || lv > 10000000)) bad = "min-reps", want = min_reps;
    else if (min_reps) bo->min_reps = (int)lv;
    if (!bad && max_reps && (isochron_parse_long(max_reps, &lv) || lv < 1 || lv > 10000000)) bad = "max-reps", want = max_reps;
    else if (!bad && max_reps) bo->max_reps = (int)lv;
    if (bad) {
        if (rank == 0) fprintf(stderr, "%s: --%s '%s': expected an integer in [1, 10000000]\n", prog, bad, want);
        return 2;
    }
    if (rel_ci && isochron_parse_double(rel_ci, &dv)) {
        if (rank == 0) fprintf(stderr, "%s: --rel-ci '%s': expected a number\n", prog, rel_ci);
        return 2;
    } else if (rel_ci) bo->rel_ci = dv;
    if (budget && isochron_parse_duration(budget, &dv)) {
        if (rank == 0) fprintf(stderr, "%s: --budget '%s': expected seconds\n", prog, budget);
        return 2;
    } else if (budget) bo->budget = dv;
    return 0;
}

/* The message after "--name 'value': " when a numeric row gives none: from its kind and range. */
static void number_expect(const app_number_t *n, char *buf, size_t len)
{
    int bounded = isfinite(n->lo) || isfinite(n->hi);
    if (n->expect) snprintf(buf, len, "%s", n->expect);
    else if (n->kind == APP_INT) snprintf(buf, len, "expected an integer in [%.0f, %.0f]", n->lo, n->hi);
    else if (n->kind == APP_SECONDS && !bounded) snprintf(buf, len, "expected seconds");
    else if (bounded) snprintf(buf, len, "expected a number in %c%g, %g]", n->lo_open ? '(' : '[', n->lo, n->hi);
    else snprintf(buf, len, "expected a number");
    if (n->note) snprintf(buf + strlen(buf), len - strlen(buf), " (%s)", n->note);
}

/* One row: 0 with *out set, or -1 (malformed or outside the range). */
static int number_parse(const app_number_t *n, const char *s)
{
    long lv = 0;
    double dv = 0;
    size_t zv = 0;
    int bad = n->kind == APP_INT ? isochron_parse_long(s, &lv) : n->kind == APP_SIZE ? app_parse_size(s, &zv)
              : n->kind == APP_SECONDS ? isochron_parse_duration(s, &dv) : isochron_parse_double(s, &dv);
    if (bad) return -1;
    double x = n->kind == APP_INT ? (double)lv : n->kind == APP_SIZE ? (double)zv : dv;
    if ((n->lo_open ? !(x > n->lo) : !(x >= n->lo)) || !(x <= n->hi)) return -1;
    if (n->kind == APP_INT) *(int *)n->out = (int)lv;
    else if (n->kind == APP_SIZE) *(size_t *)n->out = zv;
    else *(double *)n->out = dv;
    return 0;
}

int app_parse_numbers(const char *prog, const app_option_t *opts, const char **values, const app_number_t *nums, int n, int rank)
{
    for (int i = 0; i < n; i++) {
        const char *s = app_value(opts, values, nums[i].opt);
        if (!s || !number_parse(&nums[i], s)) continue;
        char expect[256];
        number_expect(&nums[i], expect, sizeof expect);
        if (rank == 0) fprintf(stderr, "%s: --%s '%s': %s\n", prog, opts[nums[i].opt].name, s, expect);
        return 2;
    }
    return 0;
}

void app_list_barriers(int rank)
{
    if (rank == 0)
        for (int i = 0; i < isochron_barrier_count(); i++) printf("%-14s %s\n", isochron_barrier_info(i)->name, isochron_barrier_info(i)->description);
}

void app_list_named(int n, const isochron_named_t *(*get)(int), int rank)
{
    for (int i = 0; rank == 0 && i < n; i++) printf("%-10s %s\n", get(i)->name, get(i)->description);
}

/* One line of --list-ops: name, family, description, in columns wn and wf wide; '#' before an operation the MPI library lacks. */
static void list_op(const isochron_op_t *op, int wn, int wf)
{
    printf("%s%-*s %-*s %s\n", (op->flags & ISOCHRON_OP_MISSING) ? "# " : "", wn, op->name, wf, op->family ? op->family : "",
           op->description ? op->description : "");
}

void app_list_ops(const isochron_ops_t *ops, int rank)
{
    int wn = 24, wf = 14, n = isochron_ops_count(ops); /* columns as wide as the longest name and family */
    for (int i = 0; i < n; i++) {
        const isochron_op_t *op = isochron_ops_get(ops, i);
        if ((int)strlen(op->name) > wn) wn = (int)strlen(op->name);
        if (op->family && (int)strlen(op->family) > wf) wf = (int)strlen(op->family);
    }
    if (rank != 0) return;
    for (int i = 0; i < n; i++)
        if (!(isochron_ops_get(ops, i)->flags & ISOCHRON_OP_MISSING)) list_op(isochron_ops_get(ops, i), wn, wf);
    printf("%-*s %-*s %s\n", wn, "allpairs", wf, "p2p", "round trips of every pair (--p2p-mode), --max-reps each; records per pair and a matrix");
    printf("%-*s %-*s %s\n", wn, "p2t", wf, "p2p", "point-to-two i <-> j,k for every triplet, parallel rounds of disjoint triplets, --max-reps each");
    /* operations this build's MPI library lacks: listed apart, each line opening with '#' (not a name) */
    for (int i = 0, head = 0; i < n; i++) {
        if (!(isochron_ops_get(ops, i)->flags & ISOCHRON_OP_MISSING)) continue;
        if (!head++) printf("# (not available with this MPI library: set-up refuses them, saying what it lacks)\n");
        list_op(isochron_ops_get(ops, i), wn, wf);
    }
}

/* ---- sizes: 8,1K,64K | A..B | A..B*F */
int app_parse_size(const char *s, size_t *out)
{
    /* decimal digits with at most one '.' (1.5K is 1536 B), then K/M/G and B:
     * no sign, hexadecimal or exponent */
    size_t nd = 0, dots = 0;
    while (isdigit((unsigned char)s[nd]) || s[nd] == '.') dots += s[nd++] == '.';
    if (!nd || dots > 1 || !isdigit((unsigned char)s[0])) return -1;
    char num[64];
    if (nd >= sizeof num) return -1;
    memcpy(num, s, nd);
    num[nd] = 0;
    double v = strtod(num, NULL);
    const char *end = s + nd;
    double m = 1;
    if (*end == 'K' || *end == 'k') { m = 1024; end++; }
    else if (*end == 'M' || *end == 'm') { m = 1048576; end++; }
    else if (*end == 'G' || *end == 'g') { m = 1073741824.0; end++; }
    if (*end == 'B' || *end == 'b') end++;
    if (*end || !isfinite(v)) return -1;
    v *= m;
    if (v > 1e15 || v != floor(v)) return -1;
    *out = (size_t)v;
    return 0;
}

int app_parse_sizes(const char *spec, size_t *out, int max, int *n, char *err, size_t errlen)
{
    *n = 0;
    if (app_list_ok(spec, err, errlen)) return -1;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *dots = strstr(t, "..");
        if (!dots) {
            if (*n >= max || app_parse_size(t, &out[*n])) { snprintf(err, errlen, "bad size '%s' (decimal bytes with an optional K/M/G suffix, e.g. 8, 1K, 1.5M; no hexadecimal or exponent)", t); free(copy); return -1; }
            (*n)++;
            continue;
        }
        *dots = 0;
        char *hi = dots + 2, *star = strchr(hi, '*');
        double f = 2;
        if (star) { *star = 0; if (isochron_parse_double(star + 1, &f) || f <= 1 || f > 1024) { snprintf(err, errlen, "bad step factor '%s' (a number > 1)", star + 1); free(copy); return -1; } }
        size_t a, b;
        if (app_parse_size(t, &a) || app_parse_size(hi, &b) || b < a) { snprintf(err, errlen, "bad size range '%s..%s'", t, hi); free(copy); return -1; }
        double v = (double)a;
        if (a == 0) { if (*n < max) out[(*n)++] = 0; v = 1; }
        for (; v <= (double)b * (1 + 1e-12); v *= f) {
            if (*n >= max) { snprintf(err, errlen, "more than %d sizes", max); free(copy); return -1; }
            out[(*n)++] = (size_t)floor(v + 0.5);
        }
    }
    free(copy);
    if (*n == 0) { snprintf(err, errlen, "no sizes in '%s'", spec); return -1; }
    return 0;
}
