/*
 * OpenSHMEM throughput (issue 29 item 4): put and get bandwidth, bidirectional
 * bandwidth and message rate, blocking and _nbi, as OSU Micro-Benchmarks'
 * osu_oshm_put_bw / get_bw / put_nb_bw / get_nb_bw (7.5) and
 * osu_oshm_put_mr / put_mr_nb / get_mr_nb measure them, in the units of
 * isochron-bench's throughput operations (src/ops/tput.c, rmabw.c): one
 * operation is a window of W = --msg-window messages, the statistics are
 * times per window, and the point carries unit "B/s", msg_window,
 * moved_bytes (W x size x senders) and moved_msgs, which the reporters turn
 * into MB/s and msg/s (median window, its CI swapped).
 *   *_bw    PE 0 the only origin, PE 1 the target (OSU's bw: one pair);
 *   *_bibw  PEs 0 and 1 both origins, each to the other, at once;
 *   *_mr    p/2 pairs i -> i + p/2 at once (osu_oshm_put_mr's pairs; an odd
 *           last PE only joins); time = the slowest pair's window.
 * A window: W shmem_putmem (or _nbi) of `size` bytes, each into its own slot
 * of the target's buffer, then one shmem_quiet (remote completion, as OSU's
 * loop ends in one); for get W shmem_getmem (each returns with its data; no
 * quiet) or W shmem_getmem_nbi + one shmem_quiet. --loop outside (default)
 * times a loop of windows with one timer, as OSU times its loop; inside a
 * timer around each window. Every slot of every window is validated: the
 * receiving PE's slots are poisoned before each repetition and must hold the
 * writer's pattern of that repetition (a message put into the wrong slot, or
 * lost, fails with the call named: engine.c's shm_check).
 */
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "shmem/shmem_impl.h"

#define ME (c->me)
enum { K_BW, K_BIBW, K_MR };

typedef struct { int get, nbi, kind; } tk_t;

static tk_t kind_of(const isochron_shmem_op_t *op)
{
    tk_t k;
    k.get = op->name[0] == 'g';
    k.nbi = strstr(op->name, "_nbi_") != NULL;
    k.kind = strstr(op->name, "_bibw") ? K_BIBW : strstr(op->name, "_mr") ? K_MR : K_BW;
    return k;
}

/* this PE's partner (-1: none) and whether it issues the window (origin) */
static int peer_of(const isochron_shmem_ctx_t *c, tk_t k, int *origin)
{
    int p = c->npes, h = p / 2;
    *origin = 0;
    switch (k.kind) {
    case K_BW: if (ME == 0) { *origin = 1; return 1; } return ME == 1 ? 0 : -1;
    case K_BIBW: if (ME < 2) { *origin = 1; return 1 - ME; } return -1;
    default:
        if (ME < h) { *origin = 1; return ME + h; }
        return ME < 2 * h ? ME - h : -1;
    }
}

static double senders(const isochron_shmem_ctx_t *c, tk_t k) { return k.kind == K_BW ? 1 : k.kind == K_BIBW ? 2 : c->npes / 2; }

static int setup_tput(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    tk_t k = kind_of(op);
    c->moved_msgs = (double)c->window * senders(c, k);
    return shm_alloc(c, c->bytes * (size_t)c->window); /* the window's slots (heap_needed counts the same) */
}
static void teardown_tput(isochron_shmem_ctx_t *c) { shm_free(c); }

/* who writes into this PE's slots: put, the origin targeting it; get, its peer (when it is an origin) */
static int writer_of(const isochron_shmem_ctx_t *c, tk_t k, int peer, int origin)
{
    if (peer < 0) return -1;
    if (k.get) return origin ? peer : -1;
    return (k.kind == K_BIBW || !origin) ? peer : -1;
}

static void window(isochron_shmem_ctx_t *c, tk_t k, int peer)
{
    size_t n = c->bytes;
    int w = c->window;
    if (k.get) {
        if (k.nbi) { for (int j = 0; j < w; j++) shmem_getmem_nbi(c->dst + (size_t)j * n, c->src, n, peer); shmem_quiet(); }
        else for (int j = 0; j < w; j++) shmem_getmem(c->dst + (size_t)j * n, c->src, n, peer);
    } else {
        if (k.nbi) for (int j = 0; j < w; j++) shmem_putmem_nbi(c->dst + (size_t)j * n, c->src, n, peer);
        else for (int j = 0; j < w; j++) shmem_putmem(c->dst + (size_t)j * n, c->src, n, peer);
        shmem_quiet();
    }
}

static int run_tput(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    tk_t k = kind_of(op);
    int origin, peer = peer_of(c, k, &origin), wr = writer_of(c, k, peer, origin);
    if (peer >= 0) shm_fill(c->src, c->bytes, c->rep, ME);
    if (wr >= 0)
        for (int j = 0; j < c->window; j++) shm_poison(c->dst + (size_t)j * c->bytes, c->bytes, c->rep, wr);
    int rc = shm_barrier(c);
    if (rc || !origin) return rc;
    *act = 1;
    SHM_TIME_LOOP(c, *t, window(c, k, peer));
    return ISOCHRON_OK;
}

static int validate_tput(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    tk_t k = kind_of(op);
    int origin, peer = peer_of(c, k, &origin), wr = writer_of(c, k, peer, origin);
    if (wr < 0) return ISOCHRON_OK;
    const char *call = k.get ? (k.nbi ? "shmem_getmem_nbi" : "shmem_getmem") : (k.nbi ? "shmem_putmem_nbi" : "shmem_putmem");
    for (int j = 0; j < c->window; j++) {
        int rc = shm_check(c, call, c->dst + (size_t)j * c->bytes, c->bytes, c->rep, wr);
        if (rc) return rc;
    }
    return ISOCHRON_OK;
}

#define F (ISOCHRON_SHMEM_SIZED | ISOCHRON_SHMEM_MIN2 | ISOCHRON_SHMEM_LOOPED | ISOCHRON_SHMEM_TPUT | ISOCHRON_SHMEM_EXTRA)
#define TP(n, d) {n, "tput", d, F, setup_tput, run_tput, validate_tput, teardown_tput}
const isochron_shmem_op_t isochron_shmem_tput_ops[] = {
    TP("put_bw", "bandwidth: PE 0 puts a window of --msg-window shmem_putmem to PE 1 (a slot each), one shmem_quiet (osu_oshm_put_bw); B/s, msg/s"),
    TP("put_nbi_bw", "bandwidth: PE 0 a window of shmem_putmem_nbi to PE 1, one shmem_quiet (osu_oshm_put_nb_bw); B/s, msg/s"),
    TP("get_bw", "bandwidth: PE 0 gets a window of shmem_getmem from PE 1 (osu_oshm_get_bw); B/s, msg/s"),
    TP("get_nbi_bw", "bandwidth: PE 0 a window of shmem_getmem_nbi from PE 1, one shmem_quiet (osu_oshm_get_nb_bw); B/s, msg/s"),
    TP("put_bibw", "bidirectional bandwidth: PEs 0 and 1 each put a window to the other at once, quiet; B/s, msg/s"),
    TP("put_nbi_bibw", "bidirectional bandwidth: PEs 0 and 1 each a window of putmem_nbi to the other, quiet; B/s, msg/s"),
    TP("get_bibw", "bidirectional bandwidth: PEs 0 and 1 each get a window from the other at once; B/s, msg/s"),
    TP("get_nbi_bibw", "bidirectional bandwidth: PEs 0 and 1 each a window of getmem_nbi from the other, quiet; B/s, msg/s"),
    TP("put_mr", "message rate: pairs i -> i+p/2 each put a window + quiet at once (osu_oshm_put_mr); msg/s, B/s"),
    TP("put_nbi_mr", "message rate: pairs i -> i+p/2 each a window of putmem_nbi + quiet (osu_oshm_put_mr_nb); msg/s, B/s"),
    TP("get_mr", "message rate: pairs i <- i+p/2 each get a window at once; msg/s, B/s"),
    TP("get_nbi_mr", "message rate: pairs i <- i+p/2 each a window of getmem_nbi + quiet (osu_oshm_get_mr_nb); msg/s, B/s"),
};
const int isochron_shmem_tput_nops = (int)(sizeof isochron_shmem_tput_ops / sizeof isochron_shmem_tput_ops[0]);
