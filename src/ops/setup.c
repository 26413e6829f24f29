/*
 * Set-up of one measurement point: the checks every operation gets for free,
 * before any of it runs. A benchmark that asks for an impossible point must
 * get a sentence saying why, on every rank at once, not a crash, a hang or
 * an attempt to allocate a terabyte: the arguments are checked locally (all
 * ranks see the same ones, so all refuse together), the memory need is
 * compared with what a process may use (physical memory of the node, or a
 * smaller cgroup limit, shared by the ranks on that node: MPI_Comm_split_type
 * SHARED, minimum over the nodes; needs up to ISOCHRON_OPS_MEMORY_FLOOR are
 * accepted without asking), and after the operation's own set-up the ranks
 * agree on the outcome (MINLOC of the codes), so a rank whose allocation
 * failed does not leave the others waiting in the first run. The agreement
 * waits politely (core/util.c): on an oversubscribed node a rank spinning in
 * set-up would steal the core of the rank it waits for.
 * Operation descriptors and their checks follow MPIBlib (paper 001, sec. 4):
 * an operation is data plus function pointers, so the application's own
 * operations get exactly the same treatment as the built-in ones.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

/* A handle whose bits are all zero (a context cleared with memset) is never
 * a valid handle, in Open MPI (pointers) or MPICH (tagged integers): it
 * means "not set", like the _NULL handles. */
static int zero_bits(const void *h, size_t n)
{
    const unsigned char *b = h;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

static MPI_Datatype default_dtype(const isochron_op_t *op, MPI_Datatype dt)
{
    if (dt != MPI_DATATYPE_NULL && !zero_bits(&dt, sizeof dt)) return dt;
    return (op->flags & ISOCHRON_OP_REDUCTION) ? MPI_INT : MPI_BYTE;
}

static MPI_Op default_op(MPI_Op rop)
{
    return (rop == MPI_OP_NULL || zero_bits(&rop, sizeof rop)) ? MPI_SUM : rop;
}

static int no_comm(MPI_Comm comm) { return comm == MPI_COMM_NULL || zero_bits(&comm, sizeof comm); }

int isochron_op_accepts(const isochron_op_t *op, MPI_Datatype dtype, MPI_Op rop, int in_place)
{
    if (!op) return isochron_set_error(ISOCHRON_EINVAL, "no operation given");
    const char *name = op->name ? op->name : "operation";
    if (in_place && !(op->flags & ISOCHRON_OP_INPLACE))
        return isochron_set_error(ISOCHRON_EINVAL, "%s does not allow in_place (MPI_IN_PLACE)", name);
    if (op->flags & ISOCHRON_OP_NODATA) return ISOCHRON_OK;
    MPI_Datatype dt = default_dtype(op, dtype);
    MPI_Op ro = default_op(rop);
    int tk = isochron_ops_tkind(dt);
    int user = (op->flags & ISOCHRON_OP_USER) != 0;
    if (tk == TK_OTHER && !user)
        return isochron_set_error(ISOCHRON_EINVAL, "%s: datatype not supported; valid: %s", name,
                                  isochron_op_dtype_names());
    if ((op->flags & ISOCHRON_OP_INTEGER) && (tk == TK_FLOAT || tk == TK_DOUBLE))
        return isochron_set_error(ISOCHRON_EINVAL, "%s: defined on integer, logical and byte types only "
                                  "(MPI-3.1 11.3.4), not %s: use --dtype int, long, char or byte",
                                  name, isochron_op_dtype_name(dt));
    if (op->flags & ISOCHRON_OP_REDUCTION) {
        if (tk == TK_BYTE || tk == TK_CHAR)
            return isochron_set_error(ISOCHRON_EINVAL,
                                      "%s: reduction %s is not defined on %s (not an arithmetic type); "
                                      "use int, long, float or double",
                                      name, isochron_op_reduce_name(ro), isochron_op_dtype_name(dt));
        if (!user && isochron_ops_rkind(ro) == RK_OTHER)
            return isochron_set_error(ISOCHRON_EINVAL, "%s: reduction op not supported; valid: %s", name,
                                      isochron_op_reduce_names());
    }
    return ISOCHRON_OK;
}

/* Fill size, dtype, dtype_size, count of a copy of ctx, as setup will. */
static int normalize(const isochron_op_t *op, isochron_op_ctx_t *c)
{
    if (c->size <= 0) {
        if (no_comm(c->comm) || MPI_Comm_size(c->comm, &c->size) != MPI_SUCCESS) c->size = 1;
    }
    c->dtype = default_dtype(op, c->dtype);
    c->op = default_op(c->op);
    if (MPI_Type_size(c->dtype, &c->dtype_size) != MPI_SUCCESS || c->dtype_size <= 0) return 0;
    c->count = c->bytes / (size_t)c->dtype_size;
    return 1;
}

size_t isochron_op_memory_needed(const isochron_op_t *op, const isochron_op_ctx_t *ctx)
{
    if (!op || !ctx) return 0;
    isochron_op_ctx_t c = *ctx;
    if (!normalize(op, &c)) return SIZE_MAX;
    if (op->memory) return op->memory(&c);
    if (op->flags & ISOCHRON_OP_NODATA) return 0;
    return c.bytes > SIZE_MAX / 2 ? SIZE_MAX : 2 * c.bytes; /* a send and a receive buffer */
}

/* A cgroup memory limit (v2, then v1), 0 if none. */
static unsigned long long cgroup_limit(void)
{
    static const char *files[] = { "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes" };
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f) continue;
        char line[64] = "";
        char *got = fgets(line, sizeof line, f);
        fclose(f);
        unsigned long long v;
        if (got && sscanf(line, "%llu", &v) == 1 && v > 0) return v;
    }
    return 0;
}

/* MemAvailable of /proc/meminfo (what the kernel can give without swapping), 0 if unknown. */
static unsigned long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[128];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024ull;
}

int isochron_op_memory_available(MPI_Comm comm, size_t *bytes)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    unsigned long long phys = (pages > 0 && psize > 0) ? (unsigned long long)pages * (unsigned long long)psize
                                                       : (unsigned long long)SIZE_MAX;
    unsigned long long lim = cgroup_limit();
    if (lim && lim < phys) phys = lim;
    /* what is free now, not only what is installed: a 4 GiB large-count message on a node whose memory other
     * jobs hold would otherwise be allocated and swap or meet the OOM killer */
    unsigned long long now = mem_available();
    if (now && now < phys) phys = now;
    MPI_Comm node;
    int rank, nnode = 1;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "MPI_Comm_split_type failed while computing available memory");
    MPI_Comm_size(node, &nnode);
    MPI_Comm_free(&node);
    unsigned long long mine = phys / (unsigned long long)(nnode > 0 ? nnode : 1), all = mine;
    if (isochron_allreduce_polite(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm) != ISOCHRON_OK)
        return isochron_set_error(ISOCHRON_EMPI, "MPI_Iallreduce failed while computing available memory");
    *bytes = all > (unsigned long long)SIZE_MAX ? SIZE_MAX : (size_t)all;
    return ISOCHRON_OK;
}

/* MPICH 4.0 to 4.1.2 (ch4) crash in MPI_Reduce with MPI_IN_PLACE at a
 * non-zero root on one node (pmodels/mpich#6540, fixed in 4.1.2 and
 * completed in 4.1.3 by #6916); MPI_Ireduce is not affected. Parsed from
 * MPI_Get_library_version, local. */
int isochron_ops_mpich_version(int *major, int *minor, int *patch)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    *major = *minor = *patch = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return 0;
    const char *p = strstr(v, "MPICH Version:");
    if (!p) return 0;
    p += strlen("MPICH Version:");
    return sscanf(p, " %d.%d.%d", major, minor, patch) >= 2;
}

/* Open MPI 4.1.4's osc rdma, chosen by default, failed MPI_Win_allocate with MPI_ERR_WIN on ranks of
 * different hosts joined by TCP (the namespace cluster): the tcp btl has no atomics, and the component
 * errs instead of declining. osc ucx and osc pt2pt made the same windows there. */
int isochron_ops_win_allocate(const char *name, isochron_op_ctx_t *c, size_t wbytes, int disp_unit, void *base, MPI_Win *win)
{
    MPI_Errhandler old;
    MPI_Comm_get_errhandler(c->comm, &old);
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    int err = MPI_Win_allocate((MPI_Aint)wbytes, disp_unit, MPI_INFO_NULL, c->comm, base, win);
    MPI_Comm_set_errhandler(c->comm, old);
    MPI_Errhandler_free(&old);
    if (err == MPI_SUCCESS) return ISOCHRON_OK;
    *win = MPI_WIN_NULL;
    char es[MPI_MAX_ERROR_STRING] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, shm_size = 0;
    MPI_Error_string(err, es, &len);
    MPI_Get_library_version(lib, &len);
    MPI_Comm shm;
    if (MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &shm) == MPI_SUCCESS) {
        MPI_Comm_size(shm, &shm_size);
        MPI_Comm_free(&shm);
    }
    lib[strcspn(lib, ",\n")] = 0; /* "Open MPI v4.1.4" */
    if (strstr(lib, "Open MPI v4.") && shm_size < c->size)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Win_allocate failed (%s) on ranks that span nodes: %s's default one-sided "
                                  "component (osc rdma) cannot make windows over TCP; select another: mpirun --mca osc ucx "
                                  "(or --mca osc pt2pt)", name, es, lib);
    return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Win_allocate of %zu bytes failed (%s)", name, wbytes, es);
}

/* Open MPI 4's one-sided component osc rdma crashes (SIGSEGV) in a 64-bit MPI_Compare_and_swap between two
 * processes of one node: a library defect, not the caller's use (a 25-line program with MPI_Win_allocate, one
 * MPI_LONG, displacement 0 under a lock crashes alike; MPI_Win_create windows, 4-byte types, one process, and
 * osc ucx or pt2pt work). Found with gdb on Open MPI 4.1.4 (btl vader, 2 ranks): the faulting instruction is
 * `lock cmpxchg %rsi,(%rdx)` in btl vader's handler of an emulated atomic (mca_btl_vader_poll_handle_frag),
 * run at the TARGET with rdx = the window's address as the ORIGIN maps it: osc rdma puts the node's windows
 * of MPI_Win_allocate in one shared segment, each process maps it at its own address, and the origin sends
 * its own. With address randomization off (setarch -R, or under gdb) both processes map the segment at the
 * same address and the same program runs and swaps correctly. Also reported upstream on 4.0.4 and 4.1.1
 * (open-mpi/ompi#7967, #11349). The component is read from the window's name ("rdma window N"), so any way of
 * selecting it (default, --mca osc rdma, OMPI_MCA_osc=^ucx, a parameter file) is caught and a selected ucx or
 * pt2pt is not refused. Called after MPI_Win_allocate; the same on every rank. */
int isochron_ops_cas_defect(const char *name, const isochron_op_ctx_t *c)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", wn[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    if (c->dtype_size != 8 || c->size < 2 || c->win == MPI_WIN_NULL) return ISOCHRON_OK;
    if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS || !strstr(lib, "Open MPI v4.")) return ISOCHRON_OK;
    if (MPI_Win_get_name(c->win, wn, &len) != MPI_SUCCESS || strncmp(wn, "rdma", 4)) return ISOCHRON_OK;
    lib[strcspn(lib, ",\n")] = 0; /* "Open MPI v4.1.4" */
    return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                              "%s: library defect: %s's one-sided component osc rdma (selected for this window) crashes "
                              "(SIGSEGV) in MPI_Compare_and_swap on 8-byte integers between processes of one node (its "
                              "shared-memory transport runs the swap at the origin's address of the window); use a 4-byte "
                              "type (--dtype int) or another component (mpirun --mca osc ucx or --mca osc pt2pt)",
                              name, lib);
}

static int mpich_reduce_inplace_broken(void)
{
    int major, minor, patch;
    if (!isochron_ops_mpich_version(&major, &minor, &patch)) return 0;
    return major == 4 && (minor == 0 || (minor == 1 && patch < 3));
}

/* The fields setup fills, back to "nothing allocated" (so teardown after any failure is harmless). */
static void reset_outputs(isochron_op_ctx_t *ctx)
{
    ctx->sbuf = ctx->rbuf = NULL;
    ctx->sbuf_bytes = ctx->rbuf_bytes = 0;
    ctx->counts = ctx->displs = NULL;
    ctx->req = MPI_REQUEST_NULL;
    ctx->win = MPI_WIN_NULL;
    ctx->state = NULL;
}

int isochron_op_setup(const isochron_op_t *op, isochron_op_ctx_t *ctx)
{
    if (!op || !ctx) return isochron_set_error(ISOCHRON_EINVAL, "isochron_op_setup: no operation or context");
    const char *name = op->name ? op->name : "operation";
    if (no_comm(ctx->comm))
        return isochron_set_error(ISOCHRON_EINVAL, "%s: no communicator (MPI_COMM_NULL or unset)", name);
    if (MPI_Comm_rank(ctx->comm, &ctx->rank) != MPI_SUCCESS || MPI_Comm_size(ctx->comm, &ctx->size) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "%s: cannot query the communicator", name);

    /* outputs first, so teardown after any failure is harmless */
    ctx->rep = 0;
    reset_outputs(ctx);
    ctx->count = 0;

    int rc = isochron_op_accepts(op, ctx->dtype, ctx->op, ctx->in_place);
    if (rc) return rc;
    ctx->dtype = default_dtype(op, ctx->dtype);
    ctx->op = default_op(ctx->op);
    if (MPI_Type_size(ctx->dtype, &ctx->dtype_size) != MPI_SUCCESS || ctx->dtype_size <= 0)
        return isochron_set_error(ISOCHRON_EINVAL, "%s: datatype has no size", name);
    if (ctx->bytes % (size_t)ctx->dtype_size)
        return isochron_set_error(ISOCHRON_EINVAL,
                                  "%s: message size %zu bytes is not a multiple of the size of %s (%d bytes)",
                                  name, ctx->bytes, isochron_op_dtype_name(ctx->dtype), ctx->dtype_size);
    if ((op->flags & ISOCHRON_OP_ROOTED) && (ctx->root < 0 || ctx->root >= ctx->size))
        return isochron_set_error(ISOCHRON_EINVAL, "%s: root %d out of range: the communicator has ranks 0..%d",
                                  name, ctx->root, ctx->size - 1);
    if (!(op->flags & ISOCHRON_OP_ROOTED) && (ctx->root < 0 || ctx->root >= ctx->size)) ctx->root = 0;
    if (ctx->in_place && ctx->root != 0 && !(op->flags & ISOCHRON_OP_USER) && op->name &&
        (strcmp(op->name, "reduce") == 0 || strcmp(op->name, "reduce_c") == 0) && mpich_reduce_inplace_broken())
        return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                                  "%s: this MPICH crashes in MPI_Reduce with MPI_IN_PLACE at a non-zero root "
                                  "(pmodels/mpich#6540, fixed in 4.1.3); use root 0, in_place off, or ireduce", name);
    if ((op->flags & ISOCHRON_OP_MIN2) && ctx->size < 2)
        return isochron_set_error(ISOCHRON_EINVAL, "%s needs at least 2 processes; the communicator has %d",
                                  name, ctx->size);
    /* this build's library lacks the calls: the operation's set-up says which, on every rank alike */
    if (op->flags & ISOCHRON_OP_MISSING)
        return op->setup ? op->setup(ctx) : isochron_set_error(ISOCHRON_EUNSUPPORTED, "%s: not available with this MPI library", name);
    ctx->count = ctx->bytes / (size_t)ctx->dtype_size;
    if (op->flags & ISOCHRON_OP_WINDOWED) {
        if (ctx->window < 0 || ctx->window > ISOCHRON_OP_WINDOW_MAX)
            return isochron_set_error(ISOCHRON_EINVAL, "%s: window of %d messages: expected 1..%d (0: the default %d)",
                                      name, ctx->window, ISOCHRON_OP_WINDOW_MAX, ISOCHRON_OP_WINDOW_DEFAULT);
        if (ctx->window == 0) ctx->window = ISOCHRON_OP_WINDOW_DEFAULT;
    }
    if (op->flags & ISOCHRON_OP_PARTITIONED) {
        if (ctx->partitions < 0 || ctx->partitions > ISOCHRON_OP_PARTITIONS_MAX)
            return isochron_set_error(ISOCHRON_EINVAL, "%s: %d partitions: expected 1..%d (0: the default %d)", name,
                                      ctx->partitions, ISOCHRON_OP_PARTITIONS_MAX, ISOCHRON_OP_PARTITIONS_DEFAULT);
        if (ctx->partitions == 0) ctx->partitions = ISOCHRON_OP_PARTITIONS_DEFAULT;
        if (ctx->count % (size_t)ctx->partitions)
            return isochron_set_error(ISOCHRON_EINVAL,
                                      "%s: %zu elements of %s do not split into %d equal partitions: use a size that is a "
                                      "multiple of %zu bytes (partitions x element size), or another partition count",
                                      name, ctx->count, isochron_op_dtype_name(ctx->dtype), ctx->partitions,
                                      (size_t)ctx->partitions * (size_t)ctx->dtype_size);
    }
    if (op->flags & ISOCHRON_OP_THREADED) {
        if (ctx->threads < 0 || ctx->threads > ISOCHRON_OP_THREADS_MAX)
            return isochron_set_error(ISOCHRON_EINVAL, "%s: %d threads per rank: expected 1..%d (0: the default %d)",
                                      name, ctx->threads, ISOCHRON_OP_THREADS_MAX, ISOCHRON_OP_THREADS_DEFAULT);
        if (ctx->threads == 0) ctx->threads = ISOCHRON_OP_THREADS_DEFAULT;
        int provided = ctx->thread_level;
        if (provided <= 0 && MPI_Query_thread(&provided) != MPI_SUCCESS)
            return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Query_thread failed", name);
        if (provided != MPI_THREAD_MULTIPLE)
            return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                                      "%s needs MPI_THREAD_MULTIPLE (its threads call MPI at once), but MPI provides %s: "
                                      "initialise with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) (isochron-bench does "
                                      "when --ops names a threaded operation) on a library that supports it",
                                      name, isochron_ops_thread_level_name(provided));
    }

    /* The need is the same on every rank, so skipping the query below a
     * floor no node falls under is a decision all ranks make alike; it saves
     * a communicator split per point (tens of ms under oversubscribed MPICH). */
    size_t need = isochron_op_memory_needed(op, ctx), avail = SIZE_MAX;
    if (need > ISOCHRON_OPS_MEMORY_FLOOR && (rc = isochron_op_memory_available(ctx->comm, &avail))) return rc;
    if (need > avail) {
        char why[160];
        snprintf(why, sizeof why, "%zu-byte messages on %d process%s; available = node memory free now / ranks on the node",
                 ctx->bytes, ctx->size, ctx->size == 1 ? "" : "es");
        if (need == SIZE_MAX)
            return isochron_set_error(ISOCHRON_EINVAL,
                                      "%s needs more than %zu bytes per process, more than the %zu available (%s)",
                                      name, (size_t)SIZE_MAX, avail, why);
        return isochron_set_error(ISOCHRON_EINVAL, "%s needs %zu bytes per process, more than the %zu available (%s)",
                                  name, need, avail, why);
    }
    if (ctx->count > (size_t)INT_MAX && !(op->flags & ISOCHRON_OP_BIGCOUNT))
        return isochron_set_error(ISOCHRON_EINVAL, "%s: %zu elements of %s are more than an MPI count can hold (%d); "
                                  "the MPI-4 large-count operations (*_c in --list-ops) take more",
                                  name, ctx->count, isochron_op_dtype_name(ctx->dtype), INT_MAX);

    rc = op->setup ? op->setup(ctx) : ISOCHRON_OK;

    /* agree: the lowest code wins, with the rank that raised it */
    struct { int rc, rank; } mine = { rc, ctx->rank }, worst = mine;
    if (isochron_allreduce_polite(&mine, &worst, 1, MPI_2INT, MPI_MINLOC, ctx->comm) != ISOCHRON_OK)
        worst.rc = isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Iallreduce failed in set-up", name);
    if (worst.rc != ISOCHRON_OK) {
        if (rc == ISOCHRON_OK)
            isochron_set_error(worst.rc, "%s: set-up failed on rank %d (%s); that rank's message says why", name,
                               worst.rank, isochron_strerror(worst.rc));
        char keep[1024];
        snprintf(keep, sizeof keep, "%s", isochron_last_error());
        isochron_op_teardown(op, ctx);
        isochron_set_error(worst.rc, "%s", keep);
        return worst.rc;
    }
    return ISOCHRON_OK;
}

void isochron_op_teardown(const isochron_op_t *op, isochron_op_ctx_t *ctx)
{
    if (!op || !ctx) return;
    if (op->teardown) op->teardown(ctx);
    reset_outputs(ctx);
}
