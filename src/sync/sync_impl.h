/* Private interface between the sync algorithms (one file each) and their shared parts. */
#ifndef ISOCHRON_SYNC_IMPL_H
#define ISOCHRON_SYNC_IMPL_H
#include <sched.h>
#include "isochron/sync.h"

/* Tags of the library's internal traffic (always on a duplicated communicator). */
enum { TAG_PING = 7101, TAG_PONG, TAG_GO, TAG_TOKEN, TAG_MODELS, TAG_MODELS_N, TAG_CHECK, TAG_TRACK, TAG_REFIT, TAG_BUDGET };

struct isochron_sync_ctx {
    const isochron_sync_level_t *lv;
    int serialize; /* 1: pairs of a round take turns (some node is oversubscribed) */
    int rounds;    /* pairwise rounds on the critical path, added by algorithms */
    int pinned;    /* this rank pinned itself for the current pair (serialize only) */
    const isochron_xport_t *xport; /* timestamp exchanges (NULL: MPI) */
    cpu_set_t saved_affinity;
    double pair_budget; /* seconds a pair may measure (0: no limit), see isochron_sync_spec_t.budget */
    int cut;            /* pairs this rank, as a client, stopped early for the budget */
};

/* Pairwise rounds on the critical path of one level of algorithm alg at p processes. */
int isochron_sync_rounds_of(const char *alg, int p);

/* Pair protocol: the reference waits for its turn (token from the previous
 * pair's reference when serialized), then releases its client with a "go";
 * the client waits politely for it. When serialized (oversubscribed node),
 * the two also pin themselves to different CPUs until isochron_pair_end,
 * which both sides call; the reference then passes the turn on.
 * prev_ref/next_ref < 0: none. */
int isochron_pair_begin(isochron_sync_ctx_t *ctx, MPI_Comm comm, int is_ref, int partner, int prev_ref);
int isochron_pair_end(isochron_sync_ctx_t *ctx, MPI_Comm comm, int is_ref, int next_ref);



/* LEARN_CLOCK_MODEL (paper 000, Alg. 2) between ref and client, both calling.
 * The client gets *lm (its clock -> ref's clock) and *fit. */
int isochron_learn_model(isochron_sync_ctx_t *ctx, MPI_Comm comm, int ref, int client, isochron_clock_t *clk,
                         isochron_lm_t *lm, isochron_fit_info_t *fit);

/* COMPUTE_AND_SET_INTERCEPT (Alg. 2): client re-measures its offset and sets lm->intercept. */
int isochron_recompute_intercept(isochron_sync_ctx_t *ctx, MPI_Comm comm, int ref, int client, isochron_clock_t *clk,
                                 isochron_lm_t *lm);

/* Measure the offset between ref and client with SKaMPI-Offset on the given clocks (both call). */
int isochron_offset_skampi(MPI_Comm comm, isochron_clock_t *clk, int ref, int client, int nexchanges,
                           const isochron_xport_t *xport, isochron_offset_t *out);

/* Does every rank of comm read the same time source through clk's timer? Collective. */
int isochron_shared_timesource(MPI_Comm comm, isochron_clock_t *clk, int *shared, char *why, int whylen);

/* Algorithms */
int isochron_alg_none(isochron_sync_ctx_t *, MPI_Comm, isochron_clock_t *, isochron_clock_t **, isochron_fit_info_t *);
int isochron_alg_skampi(isochron_sync_ctx_t *, MPI_Comm, isochron_clock_t *, isochron_clock_t **, isochron_fit_info_t *);
int isochron_alg_jk(isochron_sync_ctx_t *, MPI_Comm, isochron_clock_t *, isochron_clock_t **, isochron_fit_info_t *);
int isochron_alg_hca(isochron_sync_ctx_t *, MPI_Comm, isochron_clock_t *, isochron_clock_t **, isochron_fit_info_t *);
int isochron_alg_hca2(isochron_sync_ctx_t *, MPI_Comm, isochron_clock_t *, isochron_clock_t **, isochron_fit_info_t *);
int isochron_alg_hca3(isochron_sync_ctx_t *, MPI_Comm, isochron_clock_t *, isochron_clock_t **, isochron_fit_info_t *);
int isochron_alg_prop(isochron_sync_ctx_t *, MPI_Comm, isochron_clock_t *, isochron_clock_t **, isochron_fit_info_t *);

/* HCA3's tree walk (Alg. 1): fn is called for every pair this rank is in,
 * round by round from the top (a reference may be called several times, a
 * client once), then for Step 2. Adds the rounds to ctx->rounds. */
typedef int (*isochron_tree_pair_fn)(isochron_sync_ctx_t *ctx, MPI_Comm comm, int is_ref, int ref, int client,
                                     int prev_ref, int next_ref, void *arg);
int isochron_hca3_tree(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_tree_pair_fn fn, void *arg);

/* 1 on every rank of comm if all its ranks share one kernel (the same
 * boot_id: isochron_truth_kernel_id), so isochron_truth_now() is one clock for
 * all of them; always 1 under SimGrid. Hostnames and MPI's shared-memory
 * nodes are not used: namespaces give one kernel many of both. Collective. */
int isochron_truth_shared(MPI_Comm comm);

/* Ground truth where all ranks share a kernel: the truth clock m with the base
 * reading b at that instant (exact where the base reads the truth clock, else m
 * read around b) and the jitter-free global clock there, gv (b through the
 * injected skew without its noise, then through every model layer). */
void isochron_truth_sample(isochron_clock_t *g, double *m, double *b, double *gv);
double isochron_truth_global(isochron_clock_t *g, double base_reading);
/* Rank 0's global clock g at truth instant m, from its samples a and z, (m, b) each, taken before and after
 * m, and optionally an earlier one, first (NULL: none): exact where the base reads the truth clock (rate 1),
 * else the base's rate against the truth over the longest span (first .. z). */
double isochron_truth_global_at(isochron_clock_t *g, double m, const double a[2], const double z[2], const double first[2]);
/* One round of the truth, collective over comm: rank 0 samples, a barrier, every rank samples (and passes
 * nextra <= 8 values of its own taken then), a barrier, rank 0 samples again, so every rank's sample lies
 * inside rank 0's bracket. On rank 0: err[i] = G_i - G_0(m_i), the true offset of rank i's global clock
 * (err[0] = 0), and extras[nextra * i + k] rank i's extra[k] (extras may be NULL). first: rank 0's earlier
 * sample (m, b), the baseline of its base's rate where that is measured (isochron_truth_global_at). */
int isochron_truth_round(MPI_Comm comm, isochron_clock_t *g, const double first[2], const double *extra, int nextra,
                         double *err, double *extras);

/* How far injected read jitter (skew's jitter=, standard deviation j per read)
 * can narrow an exchange's interval: 3 sigma of the two reads at either end,
 * 6 sqrt(2) j. The tracker widens its intervals by it, and so does
 * isochron-clock's check of the measured offset (check.c). */
static inline double isochron_jitter_hard(double jitter) { return 6 * 1.4142135623730951 * jitter; }

/* Make a rank's clock agree with every other rank's return code: allreduce MIN of rc. */
int isochron_agree(MPI_Comm comm, int rc);

#endif
