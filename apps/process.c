/*
 * The driver as a process: interruption (SIGINT/SIGTERM end the JSON Lines file with an "end" record written
 * from the handler, async-signal-safe), the watchdog (SIGALRM names what hung), the output files, and the
 * launcher's rank before MPI starts.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "common.h"

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
    _exit(APP_EXIT_SIGNAL + sig);
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
    _exit(APP_EXIT_WATCHDOG);
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

int app_outputs_open(app_outputs_t *o, const char *prog, const char *jsonl, const char *csv, int rank, MPI_Comm comm)
{
    memset(o, 0, sizeof *o);
    o->prog = prog, o->jsonl = jsonl, o->csv = csv;
    int code = 0;
    if (rank == 0) code = app_open_output(prog, "--jsonl", jsonl, &o->jf);
    if (rank == 0 && !code) code = app_open_output(prog, "--csv", csv, &o->cf);
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    if (code && o->jf) fclose(o->jf);
    if (code) o->jf = NULL;
    return code;
}

void app_outputs_reporters(app_outputs_t *o, const char *fmt, int rank)
{
    if (rank != 0) return;
    if (strcmp(fmt, "none")) isochron_reporter_create(fmt, stdout, &o->rep[0]);
    if (o->jf) isochron_reporter_create("jsonl", o->jf, &o->rep[1]);
    if (o->cf) isochron_reporter_create("csv", o->cf, &o->rep[2]);
}

int app_outputs_close(app_outputs_t *o)
{
    for (int i = 0; i < 3; i++) isochron_reporter_destroy(o->rep[i]), o->rep[i] = NULL;
    int lost = app_close_output(o->prog, "--jsonl", o->jsonl, o->jf);
    lost |= app_close_output(o->prog, "--csv", o->csv, o->cf);
    o->jf = o->cf = NULL;
    return lost;
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
