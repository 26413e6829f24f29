/* libisochron-cc.so: checkpoint files, written at a safe state (the action of paper 003, 4.3, with
 * DMTCP's image files replaced by the regions the program registers; cc_ckpt.h), and the job's
 * identity each file records so that a restart (cc_restart.c) can tell whose it is.
 *
 * Design.
 *  Action. Pending non-blocking collectives are completed with
 *  PMPI_Request_get_status (the request stays valid for the application's own
 *  Wait/Test), the "safe" line is logged, ISOCHRON_CC_BEFORE_SAVE callbacks
 *  run, every registered region and the CC state go to
 *  DIR/ckpt.N/rank.R (write .tmp, fsync, rename), ISOCHRON_CC_COMMAND runs
 *  (/bin/sh -c, %r rank, %n number, %d ckpt dir, %% a percent sign), a barrier
 *  on icomm, rank 0 writes DIR/ckpt.N/complete the same way, a barrier, then
 *  ISOCHRON_CC_AFTER_SAVE callbacks and the call continues. The first
 *  checkpoint of a restarted run is refused (MPI_Abort, status 2) while a region
 *  the restart file saved has not been registered again: it would be lost.
 *  Checkpoint file (ckpt.N/rank.R, version 3), text lines and raw region bytes:
 *    isochron-cc-checkpoint 3          magic and version
 *    ckpt N / rank R / nranks P        what it belongs to
 *    mode M                            the layer's mode (cc or 2pc)
 *    program PATH                      the executable (/proc/self/exe) ...
 *    binary HHHHHHHHHHHHHHHH           ... and the FNV-1a (64 bit) of its bytes
 *    groups G, then G lines            group HASH SEQ SIZE MEMBER... (members ascending: the set)
 *    regions K, then K times           region NAME BYTES, BYTES raw bytes, a newline
 *    end
 *    fnv1a64 HHHHHHHHHHHHHHHH          FNV-1a (64 bit) of every byte before this line
 *  Marker (ckpt.N/complete, rank 0, after every rank's file): three lines,
 *    isochron-cc-complete 1 / ckpt N / nranks P
 *  Identity: the job is the program (its path and the hash of its binary), the
 *  world size, the mode and the regions (names and sizes); the hash is computed
 *  once per run, at its first checkpoint or restart (one read of the executable).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pmpi/pmpi.h"
#include "isochron/cc.h"
#include "cc/cc_internal.h"
#include "cc/cc_ckpt.h"

extern char **environ;

/* ---------------------------------------------------------------- checkpoint files */
static const char *ckpt_dir(void)
{
    const char *d = getenv("ISOCHRON_CC_DIR");
    return d && *d ? d : ".";
}

static void fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* FNV-1a, 64 bit: the checkpoint file's checksum and the binary's hash */
uint64_t icc_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* a file being written with the checksum of what went into it */
typedef struct { FILE *f; uint64_t h; } ck_file_t;

static void ck_write(ck_file_t *c, const void *p, size_t n)
{
    c->h = icc_fnv1a(c->h, p, n);
    fwrite(p, 1, n, c->f);
}

static void ck_printf(ck_file_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ck_printf(ck_file_t *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof buf) icc_die("%s%s", "internal error: a checkpoint line over 511 bytes", "");
    ck_write(c, buf, (size_t)n);
}

/* write path atomically: tmp file, fsync, rename */
static long long write_atomic(const char *path, void (*body)(ck_file_t *, void *), void *arg)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_file_t c = { fopen(tmp, "wb"), FNV_INIT };
    if (!c.f) icc_die("cannot write the checkpoint file %s: %s", tmp, strerror(errno));
    body(&c, arg);
    long long bytes = ftell(c.f);
    if (fflush(c.f) != 0 || ferror(c.f) || fsync(fileno(c.f)) != 0)
        icc_die("cannot write the checkpoint file %s: %s", tmp, strerror(errno));
    if (fclose(c.f) != 0) icc_die("cannot write the checkpoint file %s: %s", tmp, strerror(errno));
    if (rename(tmp, path) != 0) icc_die("cannot rename the checkpoint file to %s: %s", path, strerror(errno));
    return bytes;
}

const char *icc_mode_name(int mode) { return mode == ICC_CC ? "cc" : mode == ICC_2PC ? "2pc" : "native"; }

/* The executable's path, a newline in it written as '?' (a file's lines stay lines) */
void icc_job_identity(void)
{
    if (ck->job_program[0]) return;
    char path[sizeof ck->job_program];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) n = snprintf(path, sizeof path, "(unknown: /proc/self/exe: %s)", strerror(errno));
    path[n] = 0;
    for (char *c = path; *c; c++)
        if (*c == '\n') *c = '?';
    uint64_t h = FNV_INIT;
    int fd = open("/proc/self/exe", O_RDONLY);
    if (fd >= 0) {
        static unsigned char buf[1 << 16];
        ssize_t got;
        while ((got = read(fd, buf, sizeof buf)) > 0) h = icc_fnv1a(h, buf, (size_t)got);
        close(fd);
    }
    ck->job_binary = h;
    memcpy(ck->job_program, path, (size_t)n + 1);
}

static void rank_file_body(ck_file_t *c, void *arg)
{
    (void)arg;
    int n = 0;
    for (int g = 0; g < icc->ngroups && icc->mode == ICC_CC; g++) n += icc->groups[g].me;
    ck_printf(c, "%s %d\nckpt %d\nrank %d\nnranks %d\nmode %s\nprogram ", CKPT_MAGIC, CKPT_VERSION, ck->epoch, icc->rank, icc->size,
              icc_mode_name(icc->mode));
    ck_write(c, ck->job_program, strlen(ck->job_program));
    ck_printf(c, "\nbinary %016llx\ngroups %d\n", ck->job_binary, n);
    for (int g = 0; g < icc->ngroups && icc->mode == ICC_CC; g++) {
        icc_group_t *G = &icc->groups[g];
        if (!G->me) continue;
        ck_printf(c, "group %016llx %lld %d", (unsigned long long)G->hash, G->seq, G->size);
        for (int i = 0; i < G->size; i++) ck_printf(c, " %d", G->members[i]);
        ck_write(c, "\n", 1);
    }
    ck_printf(c, "regions %d\n", ck->nregions);
    for (int i = 0; i < ck->nregions; i++) {
        ck_printf(c, "region %s %zu\n", ck->regions[i].name, ck->regions[i].bytes);
        ck_write(c, ck->regions[i].ptr, ck->regions[i].bytes);
        ck_write(c, "\n", 1);
    }
    ck_write(c, "end\n", 4);
    fprintf(c->f, "fnv1a64 %016llx\n", (unsigned long long)c->h);   /* not part of the sum */
}

static void marker_body(ck_file_t *c, void *arg)
{
    (void)arg;
    fprintf(c->f, "%s 1\nckpt %d\nnranks %d\n", MARKER_MAGIC, ck->epoch, icc->size);
}

/* ISOCHRON_CC_COMMAND with %r, %n, %d, %% expanded (checked at MPI_Init: no other escape), into a buffer of
 * its exact size: nothing cut */
static char *expand_command(const char *cmd, const char *dir)
{
    char *buf = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t o = 0;
        for (const char *p = cmd; *p; p++) {
            char tmp[32];
            const char *add = tmp;
            if (*p != '%' || !p[1]) tmp[0] = *p, tmp[1] = 0;
            else if (*++p == 'r') snprintf(tmp, sizeof tmp, "%d", icc->rank);
            else if (*p == 'n') snprintf(tmp, sizeof tmp, "%d", ck->epoch);
            else if (*p == 'd') add = dir;
            else tmp[0] = '%', tmp[1] = 0;
            size_t n = strlen(add);
            if (pass) memcpy(buf + o, add, n);
            o += n;
        }
        if (pass) buf[o] = 0;
        else buf = icc_xmalloc(o + 1);
    }
    return buf;
}

static void run_command(const char *cmd, const char *dir)
{
    char *buf = expand_command(cmd, dir);
    char *argv[] = { "/bin/sh", "-c", buf, NULL };
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ), status = 0;
    if (rc != 0) {
        fprintf(stderr, "isochron-cc: rank %d: ISOCHRON_CC_COMMAND could not start: %s\n", icc->rank, strerror(rc));
        free(buf);
        return;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "isochron-cc: rank %d: ISOCHRON_CC_COMMAND '%s' failed (status %d); checkpoint %d continues\n",
                icc->rank, buf, WIFEXITED(status) ? WEXITSTATUS(status) : -1, ck->epoch);
    free(buf);
}

void icc_take_checkpoint(const char *call)
{
    int twopc = icc->mode == ICC_2PC;
    int pend = icc_req_pending_icoll();
    icc_req_complete_icolls();
    double t_safe = PMPI_Wtime();
    if (ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"safe\",\"rank\":%d,\"ckpt\":%d,\"groups\":[", icc->rank, ck->epoch);
        int first = 1;
        for (int g = 0; g < icc->ngroups && !twopc; g++) {
            icc_group_t *G = &icc->groups[g];
            if (!G->me) continue;
            fprintf(ck->icc_log, "%s{\"ggid\":\"%016llx\",\"seq\":%lld,\"target\":%lld,\"members\":", first ? "" : ",",
                    (unsigned long long)G->hash, G->seq, G->target);
            icc_log_members(G->members, G->size);
            fputc('}', ck->icc_log);
            first = 0;
        }
        fprintf(ck->icc_log, "],\"pending_icoll\":%d", pend);
        icc_log_counts("sent", icc->sent_to);
        icc_log_counts("recvd", icc->recvd_from);
        fprintf(ck->icc_log, ",\"sent_total\":%lld,\"recvd_total\":%lld,\"in_collective\":false,\"call\":\"%s\",\"rounds\":%d,"
                "\"stalls\":%d,", icc->app_sent, icc->app_recvd, call, ck->rounds_this_epoch, ck->stalls);
        if (twopc) fprintf(ck->icc_log, "\"mode\":\"2pc\",\"attempt\":%d,", ck->c_attempts);
        fprintf(ck->icc_log, "\"t\":%.6f}\n", t_safe);
        fflush(ck->icc_log);
    }
    char why[1024];
    icc_unclaimed_regions(why, sizeof why);
    if (why[0]) icc_die("%s%s", why, "; stopped before a checkpoint that would lose them");
    icc_job_identity();
    for (int i = 0; i < ck->ncallbacks; i++) ck->callbacks[i].fn(ISOCHRON_CC_BEFORE_SAVE, ck->callbacks[i].arg);
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/ckpt.%d", ckpt_dir(), ck->epoch);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) icc_die("cannot create the checkpoint directory %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/rank.%d", dir, icc->rank);
    long long bytes = write_atomic(path, rank_file_body, NULL);
    fsync_dir(dir);
    const char *cmd = getenv("ISOCHRON_CC_COMMAND");
    if (cmd && *cmd) run_command(cmd, dir);
    PMPI_Barrier(ck->icomm);
    if (icc->rank == 0) {
        snprintf(path, sizeof path, "%s/complete", dir);
        write_atomic(path, marker_body, NULL);
        fsync_dir(dir);
    }
    PMPI_Barrier(ck->icomm);
    ck->nckpt = ck->epoch;          /* complete on every rank: counted from the AFTER_SAVE callbacks on */
    for (int i = 0; i < ck->ncallbacks; i++) ck->callbacks[i].fn(ISOCHRON_CC_AFTER_SAVE, ck->callbacks[i].arg);
    if (ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"saved\",\"rank\":%d,\"ckpt\":%d,\"dir\":\"%s\",\"bytes\":%lld,\"t\":%.6f}\n", icc->rank,
                ck->epoch, dir, bytes, PMPI_Wtime());
        fflush(ck->icc_log);
    }
    /* resume: the next checkpoint starts from scratch */
    icc->pending = 0;
    ck->p_attempt = ck->c_attempt = 0;
    ck->p_decision = -1;
    ck->all_learned = ck->freeze_ok = 0;
    ck->need_until = 0;
    ck->rfirst = 1;
    for (int g = 0; g < icc->ngroups; g++) icc->groups[g].target = icc->groups[g].dirty = 0;
    if (ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"resume\",\"rank\":%d,\"ckpt\":%d,\"t\":%.6f}\n", icc->rank, ck->epoch, PMPI_Wtime());
        fflush(ck->icc_log);
    }
    ck->epoch++;
    icc->attn = 1;           /* look again: a request for the next one may be waiting */
}

/* A restart's saved regions that the program has not registered (isochron_cc_register claims them),
 * checked once: at the first checkpoint after the restart, or at MPI_Finalize. */
void icc_unclaimed_regions(char *err, size_t len)
{
    err[0] = 0;
    if (ck->unclaimed_checked || !ck->restarted_from) return;
    ck->unclaimed_checked = 1;
    char list[2048];
    size_t o = 0;
    list[0] = 0;
    for (int i = 0; i < ck->rs_nregions; i++)
        if (!ck->rs_regions[i].claimed && o < sizeof list)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s' (%zu bytes)", o ? ", " : "", ck->rs_regions[i].name,
                                  ck->rs_regions[i].bytes);
    if (!o) return;
    if (ck->allow & ICC_ALLOW_REGIONS) {
        fprintf(stderr, "isochron-cc: rank %d: the checkpoint file %s (checkpoint %d) holds regions this program did not "
                "register: %s; dropped (ISOCHRON_CC_RESTART_ALLOW=regions)\n", icc->rank, ck->rs_path, ck->restarted_from, list);
        fflush(stderr);
        return;
    }
    snprintf(err, len, "the checkpoint file %s (checkpoint %d) holds regions this program did not register: %s (a checkpoint "
             "of another program? ISOCHRON_CC_RESTART_ALLOW=regions drops them)", ck->rs_path, ck->restarted_from, list);
}
