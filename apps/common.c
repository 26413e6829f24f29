/*
 * Shared parts of isochron's drivers: one option table drives parsing and
 * --help; a context block (hosts, MPI library, ranks, command line) opens
 * every JSON Lines file so that a result states where and how it was made.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
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

/* This process's CPU binding as a cpulist ("0", "0-1,3"), "unbound" when it may run on every
 * online CPU, or "unknown" where the affinity cannot be read (issue 12: binding is one of the
 * causes of launch-to-launch spread, so a result says whether its ranks were bound). */
#define APP_BIND_LEN 64
static void app_binding(char *out)
{
    snprintf(out, APP_BIND_LEN, "unknown");
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online > 0 && CPU_COUNT(&set) >= online) { snprintf(out, APP_BIND_LEN, "unbound"); return; }
    size_t used = 0;
    out[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && used < APP_BIND_LEN - 12; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) e++;
        used += (size_t)(e > c ? snprintf(out + used, APP_BIND_LEN - used, "%s%d-%d", used ? "," : "", c, e)
                               : snprintf(out + used, APP_BIND_LEN - used, "%s%d", used ? "," : "", c));
        c = e;
    }
#endif
}

/* The run's facts (collective: host names and bindings from every rank), as the "run" object of the context
 * (rank 0; NULL elsewhere; free it). The object is the report module's (isochron_report_run_json). */
char *app_context_json(MPI_Comm comm, int argc, char **argv)
{
    int rank, size, len;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(name, &len);
    char *all = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
    char bind[APP_BIND_LEN];
    app_binding(bind);
    char *binds = rank == 0 ? calloc((size_t)size, APP_BIND_LEN) : NULL;
    MPI_Gather(bind, APP_BIND_LEN, MPI_CHAR, binds, APP_BIND_LEN, MPI_CHAR, 0, comm);
    const char **hosts = rank == 0 ? calloc((size_t)size, sizeof *hosts) : NULL;
    const char **bindv = rank == 0 ? calloc((size_t)size, sizeof *bindv) : NULL;
    if (rank != 0 || !hosts || !bindv) { free(all); free(binds); free(hosts); free(bindv); return NULL; }
    for (int i = 0; i < size; i++) {
        hosts[i] = all ? all + (size_t)i * MPI_MAX_PROCESSOR_NAME : "";
        bindv[i] = binds ? binds + (size_t)i * APP_BIND_LEN : "unbound";
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    MPI_Get_library_version(lib, &len);
    for (int i = 0; i < len; i++) if (lib[i] == '\n') { lib[i] = 0; break; }
    int ver, sub;
    MPI_Get_version(&ver, &sub);
    char mv[32];
    snprintf(mv, sizeof mv, "%d.%d", ver, sub);
    /* the Slurm job the run belongs to, when launched by srun/sbatch (rank 0's view) */
    static const char *const sv[][2] = {{"job_id", "SLURM_JOB_ID"}, {"step_id", "SLURM_STEP_ID"}, {"nodelist", "SLURM_JOB_NODELIST"},
                                        {"nnodes", "SLURM_JOB_NUM_NODES"}, {"ntasks", "SLURM_NTASKS"}, {"cluster", "SLURM_CLUSTER_NAME"}};
    const char *slurm[2 * sizeof sv / sizeof sv[0] + 1];
    int ns = 0;
    for (size_t i = 0; getenv("SLURM_JOB_ID") && i < sizeof sv / sizeof sv[0]; i++)
        if (getenv(sv[i][1])) { slurm[ns++] = sv[i][0]; slurm[ns++] = getenv(sv[i][1]); }
    slurm[ns] = NULL;
    char cmd[2048] = "";
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof cmd - 2; i++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, "%s%s", i ? " " : "", argv[i]);
    isochron_run_info_t info = {name, size, all ? hosts : NULL, lib, mv, ns ? slurm : NULL, binds ? bindv : NULL, cmd};
    char *json = isochron_report_run_json(&info);
    free(all);
    free(binds);
    free(hosts);
    free(bindv);
    return json;
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

int app_make_timer(const char *prog, const char *name, const isochron_skew_spec_t *skew, MPI_Comm comm,
                   isochron_timer_t **out, isochron_skew_t *my_skew)
{
    int rank, size, rc, all;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(my_skew, 0, sizeof *my_skew);
    *out = NULL;
    int key = rank, nkeys = size; /* by=host: the index of this rank's host, in order of first rank */
    if (skew->per_host) {
        MPI_Comm node, leaders;
        int nrank;
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &nrank);
        MPI_Comm_split(comm, nrank == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);
        if (nrank == 0) { MPI_Comm_rank(leaders, &key); MPI_Comm_size(leaders, &nkeys); MPI_Comm_free(&leaders); }
        MPI_Bcast(&key, 1, MPI_INT, 0, node);
        MPI_Comm_free(&node);
        MPI_Bcast(&nkeys, 1, MPI_INT, 0, comm);
    }
    for (int i = 0; i < skew->nexplicit; i++)
        if (skew->explicit_rank[i] >= nkeys) {
            if (rank == 0) fprintf(stderr, "%s: --skew: %s %d given but the job has %d %ss (0..%d)\n", prog, skew->per_host ? "host" : "rank",
                                   skew->explicit_rank[i], nkeys, skew->per_host ? "host" : "rank", nkeys - 1);
            return 2;
        }
    isochron_timer_t *t = NULL;
    rc = isochron_timer_create(name, &t);
    if (!rc && isochron_skew_spec_active(skew)) {
        isochron_timer_t *sk;
        isochron_skew_for_rank(skew, key, my_skew);
        if (skew->per_host) my_skew->seed ^= (uint64_t)rank * 0x9E3779B97F4A7C15ull; /* read jitter is per process */
        if ((rc = isochron_timer_skew(t, my_skew, &sk))) isochron_timer_destroy(t), t = NULL;
        else t = sk;
    }
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all) {
        if (rank == 0) fprintf(stderr, "%s: --timer/--skew: %s\n", prog, rc ? isochron_last_error() : "refused on another rank");
        isochron_timer_destroy(t);
        return 2;
    }
    *out = t;
    return 0;
}

int app_parse_track(const char *prog, const char *v, int rank, int *on)
{
    *on = 1;
    if (!v || !strcmp(v, "on")) return 0;
    if (!strcmp(v, "off")) { *on = 0; return 0; }
    if (rank == 0) fprintf(stderr, "%s: --track '%s': valid: on, off\n", prog, v);
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

static double sync_limit = 600, sync_watchdog = -1;
void app_sync_watchdog(double secs) { sync_watchdog = secs; }
/* --bind auto|off. On a node that runs more ranks than it has CPUs, Open MPI
 * (and MPICH's hydra always) leaves ranks unbound, and the kernel moves them
 * between cores at will: a rank that migrates at a start time starts late.
 * auto binds each rank of such a node, when every rank there is unbound, to
 * one CPU, node-local rank r to the (r mod CPUs)-th CPU of its mask, so each
 * core has a fixed set of ranks. Measured on the default sweep at 4 ranks on
 * 2 cores with --retries 0, 12 interleaved rounds: points below 90 % valid
 * 6-32 (median 12.5) against 6-48 (median 21.5) unbound, per-point medians
 * 0.92-0.95x; with the default --retries 3 both leave 0-5, and the sweep's wall
 * time was not resolved by 6 rounds (bench/results/bind-*). Under MPICH, which
 * busy-polls, two ranks pinned to one CPU hand over only at the end of a time
 * slice: a 3-rank CLI test took 58 s bound against 8.8 s unbound. So it is not
 * the default (--bind off); auto is for an MPI that yields. A node that is
 * not oversubscribed, or whose launcher bound anything, is left alone. A
 * failed bind is reported, not fatal: the ranks run unbound as before.
 * Collective over comm; *bound = 1 when this call bound the ranks. */
int app_bind(const char *prog, const char *v, MPI_Comm comm, int rank, int *bound)
{
    *bound = 0;
    if (v && strcmp(v, "auto") && strcmp(v, "off")) {
        if (rank == 0) fprintf(stderr, "%s: --bind '%s': expected auto or off\n", prog, v);
        return 2;
    }
#if defined(__linux__) && !defined(SMPI_ISOCHRON)
    if (!v || !strcmp(v, "off")) return 0; /* off is the default */
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int lrank, nlocal;
    MPI_Comm_rank(node, &lrank);
    MPI_Comm_size(node, &nlocal);
    cpu_set_t set;
    CPU_ZERO(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int ok = sched_getaffinity(0, sizeof set, &set) == 0, cpus = ok ? CPU_COUNT(&set) : 0;
    int unbound = ok && online > 0 && cpus >= online, all_unbound = 0, done = 0, all_done = 0;
    MPI_Allreduce(&unbound, &all_unbound, 1, MPI_INT, MPI_MIN, node);
    int act = all_unbound && nlocal > cpus, any_act = 0;
    if (act) {
        int want = lrank % cpus, k = -1;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set) && ++k == want) {
                cpu_set_t one;
                CPU_ZERO(&one);
                CPU_SET(c, &one);
                done = sched_setaffinity(0, sizeof one, &one) == 0;
                break;
            }
    }
    MPI_Allreduce(&act, &any_act, 1, MPI_INT, MPI_MAX, comm);
    int mine = act ? done : 1;
    MPI_Allreduce(&mine, &all_done, 1, MPI_INT, MPI_MIN, comm);
    MPI_Comm_free(&node);
    if (any_act && !all_done && rank == 0)
        fprintf(stderr, "%s: note: --bind auto: binding a rank of an oversubscribed node to one CPU failed (%s); ranks run unbound\n", prog, strerror(errno));
    *bound = any_act && all_done;
#else
    (void)comm; (void)rank;
#endif
    return 0;
}

int app_parse_sync_limit(const char *prog, const char *v, int rank)
{
    double d;
    if (!v) return 0;
    if (isochron_parse_duration(v, &d) || d < 0 || d > 1e7) {
        if (rank == 0) fprintf(stderr, "%s: --sync-limit '%s': expected seconds in [0, 1e7] (0: no limit)\n", prog, v);
        return 2;
    }
    sync_limit = d;
    return 0;
}

/* The sync budget is the library's (isochron_sync_budget, src/sync/budget.c): the driver passes its
 * options, says what the library decided, and arms the watchdog for the sync phase. */
static isochron_sync_plan_t guard_plan; /* the last app_sync_guard's plan */

void app_sync_done(const char *prog, const isochron_sync_report_t *rep, int rank)
{
    char line[1024];
    if (rank == 0 && isochron_sync_review(&guard_plan, rep, 1, line, sizeof line)) fprintf(stderr, "%s: note: %s\n", prog, line);
    if (rank == 0 && isochron_sync_review(&guard_plan, rep, 2, line, sizeof line)) fprintf(stderr, "%s: warning: %s\n", prog, line);
}

int app_sync_guard(const char *prog, isochron_sync_spec_t *spec, char *spec_text, size_t textlen, int fit_given, MPI_Comm comm,
                   const char *out, int quiet)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    isochron_sync_budget_opts_t bo;
    isochron_sync_budget_opts_default(&bo);
    bo.fit_given = fit_given;
    bo.limit = sync_limit;
    int rc = isochron_sync_budget(spec, comm, &bo, &guard_plan);
    isochron_sync_spec_format(spec, spec_text, textlen);
    if (rc && rank == 0 && sync_limit > 0 && guard_plan.estimate > sync_limit)
        fprintf(stderr, "%s: --sync %s: estimated to take %.3g s at %d ranks (round trip %.2g us measured), beyond --sync-limit %.3g s; "
                        "use fewer fit points or ping-pongs, or raise --sync-limit (0: no limit)\n", prog, spec_text, guard_plan.estimate,
                guard_plan.nprocs, guard_plan.rtt * 1e6, sync_limit);
    else if (rc && rank == 0) fprintf(stderr, "%s: --sync: %s\n", prog, isochron_last_error());
    if (rc) return 2;
    char line[2048];
    if (rank == 0 && isochron_sync_plan_say(&guard_plan, spec, ISOCHRON_SYNC_SAY_SLOW, line, sizeof line)) fprintf(stderr, "%s: warning: %s\n", prog, line);
    if (rank == 0 && isochron_sync_plan_say(&guard_plan, spec, ISOCHRON_SYNC_SAY_SHRUNK, line, sizeof line)) fprintf(stderr, "%s: note: %s\n", prog, line);
    if (rank == 0 && !quiet && isochron_sync_plan_say(&guard_plan, spec, ISOCHRON_SYNC_SAY_PLAN, line, sizeof line))
        fprintf(stderr, "%s: synchronizing %d ranks with %s: %s ...\n", prog, guard_plan.nprocs, spec_text, line);
    char what[256];
    snprintf(what, sizeof what, "clock synchronization (%s, estimated %.2g s)", spec_text, guard_plan.estimate);
    app_watchdog_arm(prog, sync_watchdog >= 0 ? sync_watchdog : 3 * guard_plan.estimate + 60, rank, what, out);
    return 0;
}

static int clock_node_size;
void app_clock_node_size(int n) { clock_node_size = n; }
static const isochron_xport_t *clock_xport; /* NULL: MPI */
void app_clock_transport(const isochron_xport_t *x) { clock_xport = x; }

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

int app_clock_options(const char *prog, const char *sync, const char *skew, const char *node_size, int rank)
{
    isochron_sync_spec_t sp;
    isochron_skew_spec_t sk;
    int n;
    if (isochron_sync_spec_parse(sync ? sync : APP_SYNC_TRACKED, &sp)) {
        if (rank == 0) fprintf(stderr, "%s: --sync: %s\n", prog, isochron_last_error());
        return 2;
    }
    if (app_parse_node_size(prog, node_size, rank, &n)) return 2;
    if (isochron_skew_spec_parse(skew ? skew : APP_DEFAULT_SKEW, &sk)) {
        if (rank == 0) fprintf(stderr, "%s: --skew: %s\n", prog, isochron_last_error());
        return 2;
    }
    app_clock_node_size(n);
    return 0;
}

void app_list_barriers(int rank)
{
    if (rank == 0)
        for (int i = 0; i < isochron_barrier_count(); i++) printf("%-14s %s\n", isochron_barrier_info(i)->name, isochron_barrier_info(i)->description);
}

int app_clock_setup(const char *prog, const char *sync, const char *timer, const char *skew, int track, MPI_Comm comm, int quiet,
                    app_clock_t *c)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(c, 0, sizeof *c);
    isochron_skew_spec_t sk;
    if (isochron_sync_spec_parse(sync ? sync : track ? APP_SYNC_TRACKED : APP_SYNC_UNTRACKED, &c->spec)) {
        if (rank == 0) fprintf(stderr, "%s: --sync: %s\n", prog, isochron_last_error());
        return 2;
    }
    c->spec.node_size = clock_node_size;
    c->spec.xport = clock_xport;
    if (isochron_skew_spec_parse(skew ? skew : APP_DEFAULT_SKEW, &sk)) {
        if (rank == 0) fprintf(stderr, "%s: --skew: %s\n", prog, isochron_last_error());
        return 2;
    }
    isochron_skew_t my_skew;
    if (app_make_timer(prog, timer ? timer : APP_DEFAULT_TIMER, &sk, comm, &c->timer, &my_skew)) return 2;
    isochron_clock_create(c->timer, &c->base);
    if (app_sync_guard(prog, &c->spec, c->spec_text, sizeof c->spec_text, sync == NULL, comm, NULL, quiet)) { app_clock_free(c); return 2; }
    int src = isochron_sync_run(&c->spec, comm, c->base, &c->global, &c->rep);
    app_watchdog_disarm();
    if (!src) app_sync_done(prog, &c->rep, rank);
    if (src) {
        if (rank == 0) fprintf(stderr, "%s: synchronization failed: %s\n", prog, isochron_last_error());
        app_clock_free(c);
        return 2;
    }
    isochron_track_opts_t to;
    isochron_track_opts_default(&to);
    to.follow = c->rep.follows; /* ranks that copied a model by prop copy its correction too */
    to.xport = clock_xport;
    if (track && isochron_track_create(comm, c->global, &to, &c->track)) {
        if (rank == 0) fprintf(stderr, "%s: clock tracking failed: %s\n", prog, isochron_last_error());
        app_clock_free(c);
        return 2;
    }
    double waits[1] = {0};
    isochron_accuracy_t *acc = rank == 0 ? calloc((size_t)size, sizeof *acc) : NULL;
    int has_truth = 0;
    if (isochron_sync_check_xport(comm, c->global, NULL, clock_xport, waits, 1, 50, acc, &has_truth)) {
        if (rank == 0) fprintf(stderr, "%s: clock check failed: %s\n", prog, isochron_last_error());
        free(acc);
        app_clock_free(c);
        return 2;
    }
    double meas = 0, truth = 0;
    for (int i = 0; rank == 0 && i < size; i++) {
        if (fabs(acc[i].measured_offset) > meas) meas = fabs(acc[i].measured_offset);
        if (fabs(acc[i].true_offset) > truth) truth = fabs(acc[i].true_offset);
    }
    free(acc);
    char *t = rank == 0 ? isochron_report_clock_sync_json(c->spec_text, &c->rep, c->spec.node_size, meas, has_truth ? truth : NAN, track)
                        : NULL;
    if (t) snprintf(c->json, sizeof c->json, "%s", t);
    free(t);
    return 0;
}

void app_clock_free(app_clock_t *c)
{
    isochron_track_destroy(c->track);
    c->track = NULL;
    isochron_clock_destroy(c->global);
    isochron_clock_destroy(c->base);
    isochron_timer_destroy(c->timer);
    c->global = c->base = NULL;
    c->timer = NULL;
}

isochron_report_run_head_t app_run_head(const char *tool, const char *run_json, const app_clock_t *c, int nprocs, int nodes,
                                        int oversubscribed)
{
    return (isochron_report_run_head_t){tool, run_json, c->json, isochron_timer_name(c->timer), nprocs, nodes, oversubscribed};
}

/* ---- interruption: an end record (isochron_report_end_interrupted) written with write(2) from the handler */
static int intr_fd = -1, intr_count, intr_rank = -1;
static char intr_unit[16] = "points";
static struct timespec intr_t0;
/* The file then ends with a whole record and a newline: a record cut by the signal (stdio flushed
 * part of it) is removed, since it was never counted, and nothing else is added, so every line is a
 * JSON record (issue 30: a blank line before the end record broke JSON Lines readers). Reading the
 * end needs a readable descriptor (app_open_output opens "w+"); without one, the record is appended. */
static void intr_cut_partial(int fd)
{
    off_t end = lseek(fd, 0, SEEK_END), keep = end;
    char buf[512];
    while (keep > 0) {
        off_t from = keep > (off_t)sizeof buf ? keep - (off_t)sizeof buf : 0;
        ssize_t n = pread(fd, buf, (size_t)(keep - from), from);
        if (n != keep - from) return; /* not readable: leave the file as it is */
        ssize_t k = n;
        while (k > 0 && buf[k - 1] != '\n') k--;
        if (k > 0) { keep = from + k; break; }
        keep = from;
    }
    if (keep < end && ftruncate(fd, keep) == 0) lseek(fd, keep, SEEK_SET);
}
static void on_interrupt(int sig)
{
    if (intr_fd >= 0) {
        intr_cut_partial(intr_fd);
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long long ms = (long long)(t.tv_sec - intr_t0.tv_sec) * 1000 + (t.tv_nsec - intr_t0.tv_nsec) / 1000000;
        if (ms < 0) ms = 0;
        char buf[256];
        size_t u = isochron_report_end_interrupted(buf, sizeof buf, intr_unit, (unsigned long)(intr_count > 0 ? intr_count : 0),
                                                   (unsigned long long)ms, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal");
        ssize_t w = write(intr_fd, buf, u);
        (void)w;
    } else if (intr_rank > 0) {
        /* Open MPI's mpirun signals the ranks one after another and SIGKILLs the rest as soon
         * as one is gone: the other ranks wait, so rank 0 has the time to write its record */
        struct timespec d = {2, 0};
        nanosleep(&d, NULL);
    }
    _exit(128 + sig);
}
void app_interrupt_install(FILE *jsonl, int rank, const char *unit)
{
#ifdef SMPI_ISOCHRON
    /* Under SimGrid every simulated rank is a thread of one host process, sharing these statics: the
     * last rank to install would decide, and a rank above 0 would take rank 0's file from the handler.
     * The process's handler is rank 0's. */
    if (rank != 0) return;
#endif
    if (intr_rank < 0) clock_gettime(CLOCK_MONOTONIC, &intr_t0); /* installed again: same start */
    intr_rank = rank;
    intr_fd = rank == 0 && jsonl ? fileno(jsonl) : -1;
    snprintf(intr_unit, sizeof intr_unit, "%s", unit);
    /* the first signal received is the one named: the other is blocked while the handler runs (with
     * signal(), a SIGTERM right after a Ctrl-C, as launchers send, ran the handler again inside the
     * first and wrote "SIGTERM") */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
void app_interrupt_count(int n) { intr_count = n; }

/* ---- watchdog: SIGALRM, async-signal-safe write, then exit (the launcher ends the job) */
static char wd_msg[512];
static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, wd_msg, strlen(wd_msg));
    (void)w;
    _exit(3);
}
void app_watchdog_arm(const char *prog, double secs, int rank, const char *what, const char *out)
{
    if (secs <= 0) return;
#ifdef SMPI_ISOCHRON
    /* Under SimGrid every simulated rank lives in one host process: a
     * real-time alarm would measure the simulator, not the simulated run. */
    (void)prog; (void)rank; (void)what; (void)out;
    return;
#endif
    snprintf(wd_msg, sizeof wd_msg, "%s: watchdog: %s did not finish within %g s on rank %d; aborting%s%s\n", prog, what,
             secs, rank, out ? ". Completed results are in " : "", out ? out : "");
    signal(SIGALRM, on_alarm);
    alarm((unsigned)ceil(secs));
}
void app_watchdog_disarm(void) { alarm(0); }

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


/* ---- output files */
int app_open_output(const char *prog, const char *opt, const char *path, FILE **f)
{
    *f = NULL;
    if (!path) return 0;
    errno = 0;
    if (!path[0]) { fprintf(stderr, "%s: %s '': cannot write: an empty file name\n", prog, opt); return 2; }
    if (!(*f = fopen(path, "w+"))) { /* readable too: the interrupt handler checks how the file ends */
        fprintf(stderr, "%s: %s '%s': cannot write: %s\n", prog, opt, path, strerror(errno));
        return 2;
    }
    return 0;
}

int app_close_output(const char *prog, const char *opt, const char *path, FILE *f)
{
    if (!f) return 0;
    int bad = ferror(f), err = 0;
    errno = 0;
    if (fflush(f)) { bad = 1; err = errno; }
    errno = 0;
    if (fclose(f)) { bad = 1; if (!err) err = errno; }
    if (!bad) return 0;
    fprintf(stderr, "%s: %s '%s': writing failed, records are missing from it: %s\n", prog, opt, path, err ? strerror(err) : "an earlier write to it failed");
    return 1;
}

int app_launch_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *s = getenv(vars[i]);
        long r;
        if (s && *s && isochron_parse_long(s, &r) == 0 && r >= 0 && r <= 100000000) return (int)r;
    }
    return -1;
}
