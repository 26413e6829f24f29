/* libisochron-cc.so: restart (ISOCHRON_CC_RESTART=DIR) -- the checkpoint chosen, every file read and
 * checked before anything in it is used, and the job that wrote it compared with this one (paper
 * 003, 4.3: a restart resumes the job the checkpoint belongs to, from its saved regions and SEQs).
 *
 * Design.
 *  Choice. Candidates are DIR's ckpt.N, newest first; each step is agreed over MPI_COMM_WORLD (one
 *  MPI_MAX of a status), so every rank takes the same checkpoint. A ckpt.N without a complete
 *  marker was not finished (its run ended while writing it): it is passed over, and the restart says
 *  so in one line. A marker that is present but unreadable, a rank file that fails its checks, and
 *  a truncated region are damage: the restart stops naming the file and the field, unless
 *  ISOCHRON_CC_RESTART_FALLBACK=1, when the lowest rank that found it says so in one line and the
 *  checkpoint before it is tried. A checkpoint of another job is never passed over: it stops the
 *  restart (nothing older in the directory would be this job's either).
 *  Checks. The marker: its three lines exactly (cc_ckpt_file.c). Each rank's file is read whole
 *  (its length from fstat); magic, version and checksum first, then every field in order against
 *  what is left of the file and against this run (checkpoint number, rank, world size, member
 *  ranks, each group's hash recomputed from its members, region names unique and at most
 *  ICC_MAX_REGIONS), before any count is used to allocate; region data stays in the file's buffer.
 *  Identity. A sound file's job (mode, program path, binary hash) must be this run's; the world size
 *  is already checked. What differs is named in one line; ISOCHRON_CC_RESTART_ALLOW=LIST (program,
 *  binary, mode, regions) lets it go on. Regions are matched when the program registers them: a
 *  registered region the file lacks, or of another size, makes isochron_cc_register return -1 with
 *  one line; a saved region nobody registered stops the run at its first checkpoint or at
 *  MPI_Finalize (icc_unclaimed_regions). A bad directory stops the job at MPI_Init on every rank
 *  with exit status 2 (icc_settings).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "pmpi/pmpi.h"
#include "isochron/cc.h"
#include "cc/cc_internal.h"
#include "cc/cc_ckpt.h"

/* the job a checkpoint file says it belongs to (pointers into the file's buffer) */
typedef struct { const char *mode, *program; unsigned long long binary; } job_t;

/* a candidate's status on one rank; the agreed status is the largest */
enum { C_OK, C_ABSENT, C_DAMAGED, C_MISMATCH };

static int agree_max(int v)
{
    int r = v;
    PMPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return r;
}

/* DIR/ckpt.N/complete: C_OK (nranks into *p), C_ABSENT, or C_DAMAGED with the file and the field in err */
static int read_marker(const char *dir, int n, int *p, char *err, size_t len)
{
    char path[4200], buf[512];
    snprintf(path, sizeof path, "%s/ckpt.%d/complete", dir, n);
    FILE *f = fopen(path, "rb");
    if (!f && errno == ENOENT) return C_ABSENT;
#define MARKER_FAIL(field, ...) do { \
        int o_ = snprintf(err, len, "ISOCHRON_CC_RESTART=%s: complete marker %s: field '%s': ", dir, path, field); \
        if (o_ > 0 && (size_t)o_ < len) snprintf(err + o_, len - (size_t)o_, __VA_ARGS__); \
        return C_DAMAGED; \
    } while (0)
    if (!f) MARKER_FAIL("file", "cannot be read: %s", strerror(errno));
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    buf[got] = 0;
    if (more || memchr(buf, 0, got)) MARKER_FAIL("length", "not three short text lines (%s)", more ? "over 511 bytes" : "a NUL byte");
    char *save = NULL, *l1 = strtok_r(buf, "\n", &save), *l2 = strtok_r(NULL, "\n", &save), *l3 = strtok_r(NULL, "\n", &save),
         *l4 = strtok_r(NULL, "\n", &save), *e;
    size_t ml = strlen(MARKER_MAGIC);
    if (!l1 || strncmp(l1, MARKER_MAGIC " ", ml + 1) != 0)
        MARKER_FAIL("magic", "expected '%s 1', found '%.40s' (damaged or overwritten)", MARKER_MAGIC, l1 ? l1 : "");
    if (strcmp(l1 + ml + 1, "1") != 0) MARKER_FAIL("version", "'%.20s', this library reads version 1", l1 + ml + 1);
    errno = 0;
    long v = l2 && !strncmp(l2, "ckpt ", 5) ? strtol(l2 + 5, &e, 10) : -1;
    if (v != n || errno || *e) MARKER_FAIL("ckpt", "expected 'ckpt %d', found '%.40s'", n, l2 ? l2 : "");
    v = l3 && !strncmp(l3, "nranks ", 7) ? strtol(l3 + 7, &e, 10) : -1;
    if (v < 1 || v > INT_MAX || errno || *e) MARKER_FAIL("nranks", "expected 'nranks P' (P >= 1), found '%.40s'", l3 ? l3 : "");
    if (l4) MARKER_FAIL("end", "'%.40s' after the last line", l4);
#undef MARKER_FAIL
    *p = (int)v;
    return C_OK;
}

/* Reading a checkpoint file (format: cc_ckpt_file.c): a cursor over the file's bytes; every
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
static int read_rank_file(const char *dir, const char *path, int best, job_t *id, char *err, size_t len)
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
    uint64_t have = icc_fnv1a(FNV_INIT, ck->rs_buf, flen - TRAILER);
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
    /* the job it belongs to (compared with this run once the whole file is known to be sound) */
    char *l;
    if (!(l = rd_line(&r, "mode"))) return -1;
    if (strncmp(l, "mode ", 5) != 0 || (strcmp(l + 5, "cc") != 0 && strcmp(l + 5, "2pc") != 0))
        return rd_fail(&r, "mode", "expected 'mode cc' or 'mode 2pc', found '%.60s'", l);
    id->mode = l + 5;
    if (!(l = rd_line(&r, "program"))) return -1;
    if (strncmp(l, "program ", 8) != 0 || !l[8]) return rd_fail(&r, "program", "expected a line 'program PATH', found '%.60s'", l);
    id->program = l + 8;
    if (!(l = rd_line(&r, "binary"))) return -1;
    errno = 0;
    if (strncmp(l, "binary ", 7) != 0 || strlen(l + 7) != 16 || (id->binary = strtoull(l + 7, &e, 16), errno || *e))
        return rd_fail(&r, "binary", "expected a line 'binary' and 16 hexadecimal digits, found '%.60s'", l);
    /* a group line takes at least 14 bytes ("group H SEQ N M" with a 16-digit hash: more) */
    if (rd_field(&r, "groups", 0, LLONG_MAX, &ng)) return -1;
    if (ng > (r.end - r.p) / 14)
        return rd_fail(&r, "groups", "%lld groups cannot fit in the %lld bytes that follow", ng, (long long)(r.end - r.p));
    unsigned char *mark = malloc((size_t)icc->size);
    icc->rs_groups = calloc((size_t)(ng ? ng : 1), sizeof *icc->rs_groups);
    if (!mark || !icc->rs_groups) {
        free(mark);
        return rd_fail(&r, "groups", "out of memory for %lld groups", ng);
    }
    for (long long i = 0; i < ng; i++) {
        /* a group rejected after its members were read is not counted: its members go here (forget_candidate
         * frees the rs_ngroups counted ones) */
        if (rd_group(&r, (int)i, mark, &icc->rs_groups[i])) {
            free(icc->rs_groups[i].members);
            icc->rs_groups[i].members = NULL;
            free(mark);
            return -1;
        }
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
    if (!(l = rd_line(&r, "end"))) return -1;
    if (strcmp(l, "end") != 0) return rd_fail(&r, "end", "expected 'end', found '%.60s'", l);
    if (r.p != r.end) return rd_fail(&r, "end", "%lld bytes after it", (long long)(r.end - r.p));
    return 0;
}

/* The job of a sound file against this run: 0, or -1 with what differs in err (one line) */
static int compare_job(const char *dir, int n, const job_t *id, char *err, size_t len)
{
    icc_job_identity();
    char diff[9000], need[64];
    size_t o = 0, k = 0;
    diff[0] = need[0] = 0;
    const char *mine = icc_mode_name(icc->mode);
    if (strcmp(id->mode, mine) != 0 && !(ck->allow & ICC_ALLOW_MODE)) {
        o += (size_t)snprintf(diff + o, sizeof diff - o, "mode %s (this run: %s)", id->mode, mine);
        k += (size_t)snprintf(need + k, sizeof need - k, "mode");
    }
    int other = strcmp(id->program, ck->job_program) != 0;
    if (other && !(ck->allow & ICC_ALLOW_PROGRAM)) {
        o += (size_t)snprintf(diff + o, sizeof diff - o, "%sprogram %s (this run: %s)", o ? ", " : "", id->program, ck->job_program);
        k += (size_t)snprintf(need + k, sizeof need - k, "%sprogram", k ? "," : "");
    } else if (!other && id->binary != ck->job_binary && !(ck->allow & (ICC_ALLOW_PROGRAM | ICC_ALLOW_BINARY))) {
        o += (size_t)snprintf(diff + o, sizeof diff - o, "%sbinary %016llx of %s (this run: %016llx: the program was rebuilt)",
                              o ? ", " : "", id->binary, id->program, ck->job_binary);
        k += (size_t)snprintf(need + k, sizeof need - k, "%sbinary", k ? "," : "");
    }
    if (!o) return 0;
    snprintf(err, len, "ISOCHRON_CC_RESTART=%s: checkpoint %d belongs to another job: %s (ISOCHRON_CC_RESTART_ALLOW=%s restarts "
             "from it anyway)", dir, n, diff, need);
    return -1;
}

/* what a rejected candidate left behind, before the next is read */
static void forget_candidate(void)
{
    free(ck->rs_buf);
    free(ck->rs_regions);
    for (int i = 0; i < icc->rs_ngroups; i++) free(icc->rs_groups[i].members);
    free(icc->rs_groups);
    ck->rs_buf = NULL;
    ck->rs_regions = NULL;
    icc->rs_groups = NULL;
    ck->rs_nregions = icc->rs_ngroups = 0;
}

/* candidate n on this rank: C_OK, or the status with the message in err */
static int try_candidate(const char *dir, int n, char *err, size_t len)
{
    int p = 0, code = read_marker(dir, n, &p, err, len);
    if (code != C_OK) return code;
    if (p != icc->size)
        return snprintf(err, len, "ISOCHRON_CC_RESTART=%s: checkpoint %d was written by %d ranks, this run has %d", dir, n, p,
                        icc->size), C_MISMATCH;
    job_t id = { "", "", 0 };
    snprintf(ck->rs_path, sizeof ck->rs_path, "%s/ckpt.%d/rank.%d", dir, n, icc->rank);
    if (read_rank_file(dir, ck->rs_path, n, &id, err, len)) return C_DAMAGED;
    return compare_job(dir, n, &id, err, len) ? C_MISMATCH : C_OK;
}

static int by_number_down(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

/* DIR's ckpt.N numbers, newest first, into *out (malloc'd); -1 with the message in err */
static int list_candidates(const char *dir, int **out, char *err, size_t len)
{
    int n = 0, cap = 0, *c = NULL;
    DIR *d = opendir(dir);
    if (!d) return snprintf(err, len, "ISOCHRON_CC_RESTART=%s: %s", dir, strerror(errno)), -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        int k = 0;
        char tail;
        if (sscanf(e->d_name, "ckpt.%d%c", &k, &tail) != 1 || k <= 0) continue;
        if (n == cap) {
            int *g = realloc(c, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *c);
            if (!g) { free(c); closedir(d); return snprintf(err, len, "ISOCHRON_CC_RESTART=%s: out of memory", dir), -1; }
            c = g;
        }
        c[n++] = k;
    }
    closedir(d);
    qsort(c, (size_t)n, sizeof *c, by_number_down);
    *out = c;
    return n;
}

void icc_load_restart(const char *dir, char *err, size_t len)
{
    int *cand = NULL;
    err[0] = 0;
    int ncand = list_candidates(dir, &cand, err, len);
    if (agree_max(ncand < 0)) return;   /* err on the ranks that could not list it */
    int absent = 0, damaged = 0, chosen = 0, newest = ncand ? cand[0] : 0;
    for (int k = 0; k < ncand && !chosen; k++) {
        int mine = try_candidate(dir, cand[k], err, len), all = agree_max(mine);
        if (all == C_OK) { chosen = cand[k]; break; }
        forget_candidate();
        if (mine == C_OK || mine == C_ABSENT) err[0] = 0;
        if (all == C_ABSENT) { absent++; continue; }
        if (all == C_MISMATCH || !ck->fallback) {
            if (err[0] && all == C_DAMAGED && k + 1 < ncand)
                snprintf(err + strlen(err), len - strlen(err), " (ISOCHRON_CC_RESTART_FALLBACK=1 tries the checkpoint before it)");
            free(cand);
            return;
        }
        /* asked to fall back: the lowest rank that found the damage says so, in one line */
        int who = mine == C_DAMAGED ? icc->rank : icc->size, first = who;
        PMPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (first == icc->rank) {
            if (icc->rank) fprintf(stderr, "isochron-cc: rank %d: %s; ISOCHRON_CC_RESTART_FALLBACK=1: trying the checkpoint before it\n",
                                   icc->rank, err);
            else fprintf(stderr, "isochron-cc: %s; ISOCHRON_CC_RESTART_FALLBACK=1: trying the checkpoint before it\n", err);
            fflush(stderr);
        }
        err[0] = 0;
        damaged++;
    }
    free(cand);
    if (!chosen) {
        snprintf(err, len, "ISOCHRON_CC_RESTART=%s: no complete checkpoint in this directory (%d without a complete marker, %d "
                 "damaged; a restart directory is the ISOCHRON_CC_DIR of an earlier run, holding ckpt.N/complete and "
                 "ckpt.N/rank.R files)", dir, absent, damaged);
        return;
    }
    if (chosen != newest && icc->rank == 0 && absent) {
        fprintf(stderr, "isochron-cc: ISOCHRON_CC_RESTART=%s: restarting from checkpoint %d, not the newest (%d): %d newer "
                "without a complete marker (their run ended while writing them)%s\n", dir, chosen, newest, absent,
                damaged ? ", the others damaged (above)" : "");
        fflush(stderr);
    }
    ck->restarted_from = ck->nckpt = chosen;
    ck->epoch = chosen + 1;
    for (int g = 0; g < icc->ngroups; g++) icc_group_created(g);
}

/* ---------------------------------------------------------------- API: regions */
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
    saved_region_t *saved = NULL;
    for (int i = 0; i < ck->rs_nregions; i++)
        if (strcmp(ck->rs_regions[i].name, name) == 0) saved = &ck->rs_regions[i];
    if (saved && saved->bytes != bytes) {
        fprintf(stderr, "isochron-cc: rank %d: isochron_cc_register: region '%s' has %zu bytes, the checkpoint file %s "
                "(checkpoint %d) saved %zu for it\n", icc->rank, name, bytes, ck->rs_path, ck->restarted_from, saved->bytes);
        return -1;
    }
    if (!saved && ck->restarted_from) {
        /* a restart resumes the whole job: a region it cannot fill would start from scratch unnoticed */
        int ok = ck->allow & ICC_ALLOW_REGIONS;
        fprintf(stderr, "isochron-cc: rank %d: isochron_cc_register: region '%s' is not in the checkpoint file %s (checkpoint %d, "
                "%d regions)%s\n", icc->rank, name, ck->rs_path, ck->restarted_from, ck->rs_nregions,
                ok ? "; it starts fresh (ISOCHRON_CC_RESTART_ALLOW=regions)"
                   : " (a checkpoint of another program? ISOCHRON_CC_RESTART_ALLOW=regions starts it fresh)");
        if (!ok) return -1;
    }
    snprintf(ck->regions[ck->nregions].name, sizeof ck->regions[ck->nregions].name, "%s", name);
    ck->regions[ck->nregions].ptr = ptr;
    ck->regions[ck->nregions].bytes = bytes;
    ck->nregions++;
    if (!saved) return 0;
    memcpy(ptr, saved->data, bytes);
    saved->claimed = 1;
    return 1;
}
