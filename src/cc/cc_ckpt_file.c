/* libisochron-cc.so: checkpoint files -- writing them at a safe state and reading them at a restart
 * (the action and restart of paper 003, 4.3, with DMTCP's image files replaced by the regions the
 * program registers; cc_ckpt.h).
 *
 * Design.
 *  Action. Pending non-blocking collectives are completed with
 *  PMPI_Request_get_status (the request stays valid for the application's own
 *  Wait/Test), the "safe" line is logged, ISOCHRON_CC_BEFORE_SAVE callbacks
 *  run, every registered region and the CC state go to
 *  DIR/ckpt.N/rank.R (write .tmp, fsync, rename), ISOCHRON_CC_COMMAND runs
 *  (/bin/sh -c, %r rank, %n number, %d ckpt dir, %% a percent sign), a barrier
 *  on icomm, rank 0 writes DIR/ckpt.N/complete the same way, a barrier, then
 *  ISOCHRON_CC_AFTER_SAVE callbacks and the call continues.
 *  Restart (ISOCHRON_CC_RESTART=DIR): DIR's newest ckpt.N with a complete
 *  marker written for the same world size; each rank reads its rank.R file at
 *  MPI_Init; regions are filled when registered; SEQ of a group is restored
 *  when its member list is seen again; checkpoint numbers continue from N.
 *  Checkpoint file (ckpt.N/rank.R, version 2), text lines and raw region bytes:
 *    isochron-cc-checkpoint 2          magic and version
 *    ckpt N / rank R / nranks P        what it belongs to
 *    groups G, then G lines            group HASH SEQ SIZE MEMBER... (members ascending: the set)
 *    regions K, then K times           region NAME BYTES, BYTES raw bytes, a newline
 *    end
 *    fnv1a64 HHHHHHHHHHHHHHHH          FNV-1a (64 bit) of every byte before this line
 *  A restart trusts nothing in it before it is checked: the file is read
 *  whole (its length from fstat), the magic, the version and the checksum
 *  are checked first, then every field in order against what is left of the
 *  file and against this run (checkpoint number, rank, world size, member
 *  ranks, each group's hash recomputed from its members, region names unique
 *  and at most ICC_MAX_REGIONS), before any count is used to allocate; region
 *  data stays in the file's buffer. A region's size is checked against the
 *  program's when it registers it. A bad file stops the job at MPI_Init on
 *  every rank, with the file and the field named (icc_settings).
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

/* FNV-1a, 64 bit: the checkpoint file's checksum and the groups' hash (cc.c) */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}
#define FNV_INIT 1469598103934665603ull

/* a file being written with the checksum of what went into it */
typedef struct { FILE *f; uint64_t h; } ck_file_t;

static void ck_write(ck_file_t *c, const void *p, size_t n)
{
    c->h = fnv1a(c->h, p, n);
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

#define CKPT_VERSION 2
#define CKPT_MAGIC "isochron-cc-checkpoint"

static void rank_file_body(ck_file_t *c, void *arg)
{
    (void)arg;
    int n = 0;
    for (int g = 0; g < icc->ngroups && icc->mode == ICC_CC; g++) n += icc->groups[g].me;
    ck_printf(c, "%s %d\nckpt %d\nrank %d\nnranks %d\ngroups %d\n", CKPT_MAGIC, CKPT_VERSION, ck->epoch, icc->rank, icc->size, n);
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
    fprintf(c->f, "isochron-cc-complete 1\nckpt %d\nnranks %d\n", ck->epoch, icc->size);
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

/* ---------------------------------------------------------------- restart */
/* a restart directory that cannot be used: the message (every rank stops, icc_settings) */
#define RESTART_FAIL(why) do { \
        snprintf(err, len, "ISOCHRON_CC_RESTART=%s: %s (a restart directory is the ISOCHRON_CC_DIR of an earlier run, " \
                 "holding ckpt.N/complete and ckpt.N/rank.R files)", dir, why); \
        return; \
    } while (0)

static int read_complete(const char *path, int n)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int v = 0, c = -1, p = -1;
    int ok = fscanf(f, "isochron-cc-complete %d\nckpt %d\nnranks %d", &v, &c, &p) == 3 && v == 1 && c == n;
    fclose(f);
    return ok ? p : 0;
}

/* Reading a checkpoint file (format: the design comment): a cursor over the file's bytes; every
 * failure names the file and the field. */
typedef struct { char *p, *end; const char *dir, *path; char *err; size_t len; } rd_t;

static int rd_fail(rd_t *r, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rd_fail(rd_t *r, const char *field, const char *fmt, ...)
{
    int o = snprintf(r->err, r->len, "ISOCHRON_CC_RESTART=%s: checkpoint file %s: field '%s': ", r->dir, r->path, field);
    if (o > 0 && (size_t)o < r->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + o, r->len - (size_t)o, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* the next text line, NUL-terminated in place; NULL when the file ends first */
static char *rd_line(rd_t *r, const char *field)
{
    char *nl = r->p < r->end ? memchr(r->p, '\n', (size_t)(r->end - r->p)) : NULL;
    if (!nl) {
        rd_fail(r, field, "missing: the file ends before it");
        return NULL;
    }
    *nl = 0;
    char *l = r->p;
    r->p = nl + 1;
    return l;
}

/* a whole decimal number in [lo, hi] */
static int rd_num(const char *s, long long lo, long long hi, long long *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (errno || e == s || *e || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* a line "KEY N" with N in [lo, hi] */
static int rd_field(rd_t *r, const char *key, long long lo, long long hi, long long *out)
{
    char *l = rd_line(r, key);
    if (!l) return -1;
    size_t k = strlen(key);
    if (strncmp(l, key, k) != 0 || l[k] != ' ') return rd_fail(r, key, "expected a line '%s N', found '%.60s'", key, l);
    if (rd_num(l + k + 1, lo, hi, out)) {
        if (lo == hi) return rd_fail(r, key, "'%.40s', expected %lld", l + k + 1, lo);
        return rd_fail(r, key, "'%.40s' is not a number in [%lld, %lld]", l + k + 1, lo, hi);
    }
    return 0;
}

/* one "group HASH SEQ SIZE MEMBER..." line into *g (members allocated once SIZE is checked) */
static int rd_group(rd_t *r, int i, unsigned char *mark, icc_saved_group_t *g)
{
    char field[32], *l, *e;
    snprintf(field, sizeof field, "group %d", i + 1);
    if (!(l = rd_line(r, field))) return -1;
    if (strncmp(l, "group ", 6) != 0) return rd_fail(r, field, "expected a line 'group HASH SEQ SIZE MEMBER...', found '%.60s'", l);
    errno = 0;
    unsigned long long h = strtoull(l + 6, &e, 16);
    if (errno || e != l + 6 + 16 || *e != ' ') return rd_fail(r, field, "the hash is not 16 hexadecimal digits");
    char *q = strchr(e + 1, ' ');
    if (!q) return rd_fail(r, field, "no size after the sequence number");
    *q = 0;
    long long seq, n;
    if (rd_num(e + 1, 0, LLONG_MAX, &seq)) return rd_fail(r, field, "sequence number '%.40s' is not a number >= 0", e + 1);
    char *m = strchr(q + 1, ' ');
    if (m) *m = 0;
    size_t left = m ? strlen(m + 1) + 1 : 0;
    if (rd_num(q + 1, 1, icc->size, &n)) return rd_fail(r, field, "size '%.40s' is not a number in [1, %d]", q + 1, icc->size);
    if ((size_t)n > (left + 1) / 2) return rd_fail(r, field, "size %lld, but the line has room for %zu members", n, (left + 1) / 2);
    g->members = malloc((size_t)n * sizeof(int));
    if (!g->members) return rd_fail(r, field, "out of memory for %lld members", n);
    memset(mark, 0, (size_t)icc->size);
    char *t = m + 1;
    for (long long k = 0; k < n; k++) {
        char *sp = strchr(t, ' ');
        if (sp) *sp = 0;
        long long w;
        if (rd_num(t, 0, icc->size - 1, &w)) return rd_fail(r, field, "member %lld '%.40s' is not a rank in [0, %d]", k + 1, t, icc->size - 1);
        if (mark[w]++) return rd_fail(r, field, "rank %lld is a member twice", w);
        g->members[k] = (int)w;
        if (k + 1 < n && !sp) return rd_fail(r, field, "%lld members, the size says %lld", k + 1, n);
        if (k + 1 == n && sp) return rd_fail(r, field, "more members than the size %lld", n);
        t = sp ? sp + 1 : t;
    }
    if (icc_members_hash(g->members, (int)n) != h)
        return rd_fail(r, field, "hash %016llx is not the hash of its members (%016llx)", h,
                       (unsigned long long)icc_members_hash(g->members, (int)n));
    g->n = (int)n;
    g->seq = seq;
    return 0;
}

/* This rank's file of checkpoint `best`, checked whole before anything is kept (rs_groups, rs_regions,
 * whose data points into rs_buf). 0, or -1 with the message in err. */
static int read_rank_file(const char *dir, const char *path, int best, char *err, size_t len)
{
    rd_t r = { NULL, NULL, dir, path, err, len };
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f) return snprintf(err, len, "ISOCHRON_CC_RESTART=%s: the complete checkpoint %d lacks this rank's file %s: %s", dir, best,
                            path, strerror(errno)), -1;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return snprintf(err, len, "ISOCHRON_CC_RESTART=%s: checkpoint file %s: not a regular file", dir, path), -1;
    }
    enum { TRAILER = 25 };   /* "fnv1a64 " 16 hex digits "\n" */
    size_t flen = (size_t)st.st_size;
    if (st.st_size < (off_t)(sizeof CKPT_MAGIC + TRAILER)) {
        fclose(f);
        return rd_fail(&r, "length", "%lld bytes, too short for a checkpoint file", (long long)st.st_size);
    }
    ck->rs_buf = malloc(flen + 1);
    if (!ck->rs_buf) {
        fclose(f);
        return rd_fail(&r, "length", "out of memory for its %zu bytes", flen);
    }
    size_t got = fread(ck->rs_buf, 1, flen, f);
    fclose(f);
    if (got != flen) return rd_fail(&r, "length", "read %zu of its %zu bytes", got, flen);
    ck->rs_buf[flen] = 0;
    /* magic and version first: they say what the file is */
    size_t ml = strlen(CKPT_MAGIC);
    if (memcmp(ck->rs_buf, CKPT_MAGIC " ", ml + 1) != 0) {
        char head[32];
        size_t k = 0;
        for (; k < 24 && ck->rs_buf[k] != '\n'; k++) head[k] = ck->rs_buf[k] >= 32 && ck->rs_buf[k] < 127 ? ck->rs_buf[k] : '?';
        head[k] = 0;
        return rd_fail(&r, "magic", "not an isochron-cc checkpoint file (it begins with '%s', not '%s')", head, CKPT_MAGIC);
    }
    long long ver;
    char vbuf[16];
    size_t k = 0;
    for (; k < sizeof vbuf - 1 && ml + 1 + k < flen && ck->rs_buf[ml + 1 + k] != '\n'; k++) vbuf[k] = ck->rs_buf[ml + 1 + k];
    vbuf[k] = 0;
    if (rd_num(vbuf, 0, 1000000, &ver) || ver != CKPT_VERSION)
        return rd_fail(&r, "version", "'%s', this library reads version %d (a file of another isochron version cannot be "
                       "restarted from)", vbuf, CKPT_VERSION);
    /* then the checksum over everything before its line */
    char *tr = ck->rs_buf + flen - TRAILER, *e;
    if (memcmp(tr, "fnv1a64 ", 8) != 0 || tr[TRAILER - 1] != '\n')
        return rd_fail(&r, "checksum", "no 'fnv1a64' line at the end (the file was cut or changed)");
    tr[TRAILER - 1] = 0;
    errno = 0;
    unsigned long long want = strtoull(tr + 8, &e, 16);
    if (errno || e != tr + TRAILER - 1) return rd_fail(&r, "checksum", "'%s' is not 16 hexadecimal digits", tr + 8);
    uint64_t have = fnv1a(FNV_INIT, ck->rs_buf, flen - TRAILER);
    if (have != want)
        return rd_fail(&r, "checksum", "the file says %016llx, its contents give %016llx (changed or damaged after it was written)",
                       want, (unsigned long long)have);
    /* every field, in order, against what is left of the file and against this run */
    r.p = ck->rs_buf;
    r.end = tr;
    long long v, ng, nr;
    if (!rd_line(&r, "magic") || rd_field(&r, "ckpt", best, best, &v) || rd_field(&r, "rank", icc->rank, icc->rank, &v) ||
        rd_field(&r, "nranks", icc->size, icc->size, &v))
        return -1;
    /* a group line takes at least 14 bytes ("group H SEQ N M" with a 16-digit hash: more) */
    if (rd_field(&r, "groups", 0, LLONG_MAX, &ng)) return -1;
    if (ng > (r.end - r.p) / 14)
        return rd_fail(&r, "groups", "%lld groups cannot fit in the %lld bytes that follow", ng, (long long)(r.end - r.p));
    unsigned char *mark = malloc((size_t)icc->size);
    icc->rs_groups = calloc((size_t)(ng ? ng : 1), sizeof *icc->rs_groups);
    if (!mark || !icc->rs_groups) return rd_fail(&r, "groups", "out of memory for %lld groups", ng);
    for (long long i = 0; i < ng; i++) {
        if (rd_group(&r, (int)i, mark, &icc->rs_groups[i])) return -1;
        icc->rs_ngroups++;
    }
    free(mark);
    if (rd_field(&r, "regions", 0, ICC_MAX_REGIONS, &nr)) return -1;
    ck->rs_regions = calloc((size_t)(nr ? nr : 1), sizeof *ck->rs_regions);
    if (!ck->rs_regions) return rd_fail(&r, "regions", "out of memory for %lld regions", nr);
    for (long long i = 0; i < nr; i++) {
        char field[32], *l, *sp;
        snprintf(field, sizeof field, "region %lld", i + 1);
        if (!(l = rd_line(&r, field))) return -1;
        if (strncmp(l, "region ", 7) != 0 || !(sp = strrchr(l + 7, ' ')))
            return rd_fail(&r, field, "expected a line 'region NAME BYTES', found '%.60s'", l);
        *sp = 0;
        size_t nl = strlen(l + 7);
        if (nl < 1 || nl > 63 || strchr(l + 7, ' ')) return rd_fail(&r, field, "name '%.70s' is not 1 to 63 characters without blanks", l + 7);
        saved_region_t *s = &ck->rs_regions[i];
        memcpy(s->name, l + 7, nl + 1);
        for (long long j = 0; j < i; j++)
            if (!strcmp(ck->rs_regions[j].name, s->name)) return rd_fail(&r, field, "region '%s' appears twice", s->name);
        errno = 0;
        unsigned long long b = strtoull(sp + 1, &e, 10);
        if (errno || e == sp + 1 || *e || sp[1] == '-')
            return rd_fail(&r, field, "size '%.40s' of region '%s' is not a number of bytes", sp + 1, s->name);
        if (b >= (unsigned long long)(r.end - r.p))
            return rd_fail(&r, field, "region '%s' of %llu bytes cannot fit in the %lld bytes that follow", s->name, b,
                           (long long)(r.end - r.p));
        s->bytes = (size_t)b;
        s->data = (unsigned char *)r.p;
        r.p += b;
        if (*r.p != '\n') return rd_fail(&r, field, "no newline after the %llu bytes of region '%s'", b, s->name);
        r.p++;
        ck->rs_nregions++;
    }
    char *l = rd_line(&r, "end");
    if (!l) return -1;
    if (strcmp(l, "end") != 0) return rd_fail(&r, "end", "expected 'end', found '%.60s'", l);
    if (r.p != r.end) return rd_fail(&r, "end", "%lld bytes after it", (long long)(r.end - r.p));
    return 0;
}

void icc_load_restart(const char *dir, char *err, size_t len)
{
    DIR *d = opendir(dir);
    if (!d) RESTART_FAIL(strerror(errno));
    int best = 0, best_p = 0, incomplete = 0;
    struct dirent *e;
    char path[4200];
    while ((e = readdir(d))) {
        int n = 0;
        char tail;
        if (sscanf(e->d_name, "ckpt.%d%c", &n, &tail) != 1 || n <= 0) continue;
        snprintf(path, sizeof path, "%s/%s/complete", dir, e->d_name);
        int p = read_complete(path, n);
        if (!p) { incomplete++; continue; }
        if (n > best) { best = n; best_p = p; }
    }
    closedir(d);
    if (!best) {
        char why[128];
        snprintf(why, sizeof why, "no complete checkpoint in this directory (%d incomplete)", incomplete);
        RESTART_FAIL(why);
    }
    if (best_p != icc->size) {
        char why[160];
        snprintf(why, sizeof why, "checkpoint %d was written by %d ranks, this run has %d", best, best_p, icc->size);
        RESTART_FAIL(why);
    }
    snprintf(ck->rs_path, sizeof ck->rs_path, "%s/ckpt.%d/rank.%d", dir, best, icc->rank);
    if (read_rank_file(dir, ck->rs_path, best, err, len)) return;
    ck->restarted_from = ck->nckpt = best;
    ck->epoch = best + 1;
    for (int g = 0; g < icc->ngroups; g++) icc_group_created(g);
}

/* ---------------------------------------------------------------- API */
int isochron_cc_register(const char *name, void *ptr, size_t bytes)
{
    if (!name || !*name || strlen(name) > 63 || strchr(name, ' ') || strchr(name, '\n')) {
        fprintf(stderr, "isochron-cc: isochron_cc_register: bad region name '%s' (1 to 63 characters, no blanks)\n",
                name ? name : "(null)");
        return -1;
    }
    if (!ptr && bytes) {
        fprintf(stderr, "isochron-cc: isochron_cc_register: region '%s' has no memory\n", name);
        return -1;
    }
    for (int i = 0; i < ck->nregions; i++)
        if (strcmp(ck->regions[i].name, name) == 0) {
            fprintf(stderr, "isochron-cc: isochron_cc_register: region '%s' is already registered\n", name);
            return -1;
        }
    if (ck->nregions == ICC_MAX_REGIONS) {
        fprintf(stderr, "isochron-cc: isochron_cc_register: region table full (%d regions)\n", ICC_MAX_REGIONS);
        return -1;
    }
    for (int i = 0; i < ck->rs_nregions; i++)
        if (strcmp(ck->rs_regions[i].name, name) == 0 && ck->rs_regions[i].bytes != bytes) {
            fprintf(stderr, "isochron-cc: rank %d: isochron_cc_register: region '%s' has %zu bytes, the checkpoint file %s "
                    "(checkpoint %d) saved %zu for it\n", icc->rank, name, bytes, ck->rs_path, ck->restarted_from, ck->rs_regions[i].bytes);
            return -1;
        }
    snprintf(ck->regions[ck->nregions].name, sizeof ck->regions[ck->nregions].name, "%s", name);
    ck->regions[ck->nregions].ptr = ptr;
    ck->regions[ck->nregions].bytes = bytes;
    ck->nregions++;
    for (int i = 0; i < ck->rs_nregions; i++)
        if (strcmp(ck->rs_regions[i].name, name) == 0) {
            memcpy(ptr, ck->rs_regions[i].data, bytes);
            return 1;
        }
    return 0;
}
