/*
 * Clock tracking: keeping a synchronized global clock true for a whole run.
 *
 * Paper 000 synchronizes once and trusts the linear model afterwards; its
 * Fig. 4 shows the error growing with time, and a pair's fit points span only
 * a fraction of a second, so a drift below a few ppm cannot be told from
 * noise at sync time. Real nodes drift apart by 0.1-5 ppm, i.e. 1-50 µs after
 * 10 s. The tracker therefore keeps measuring, cheaply and outside every
 * measured region, and adds one linear layer on top of the synchronized
 * clock that it updates in place (everyone holding the clock sees it).
 *
 * Refresh: HCA3's tree (Alg. 1, isochron_hca3_tree) with one SKaMPI-Offset
 * measurement (Alg. 7) per pair instead of a model fit: the reference reads
 * its tracked clock (refreshed earlier in the same pass), the client its
 * synchronized clock without the tracking layer (the "inner" clock).
 * O(log p) rounds; pairs take turns on an oversubscribed node as in sync.
 *
 * Estimator, per client rank: a Kalman filter on the state
 *     e(tau) = x + v (tau - tau_k) + a (tau - tau_k)^2 / 2
 * where e is the reference time minus the inner clock at inner time tau, x
 * the offset, v the residual drift and a its rate of change (the skew
 * injection's ddrift; temperature on real machines). Process noise: white
 * frequency noise on x, a random walk of v and of a (small; a deterministic
 * drift and drift change need none). Why a Kalman filter rather than a fit
 * per refresh: every refresh folds the whole history in at O(1) cost, the
 * drift's uncertainty shrinks as the baseline T grows (as 1/T and faster),
 * intervals between refreshes may be irregular, and the filter's own
 * covariance gives the error bound the results record. A real drift is never
 * dropped (there is no significance test: the estimate is simply used), and
 * where there is no drift the estimate of v is noise of order sigma/T, so a
 * refresh interval chosen from the covariance keeps the added error below
 * `growth`, which offset-only refreshes at the same times could not beat by
 * more than that.
 * Measurement: each pair takes 3 SKaMPI measurements of 15 exchanges after a
 * warm-up (9 at the first refresh) and keeps the tightest interval (minimum-delay filtering, as the
 * sync's fit does). Its half-width w bounds the offset (hard bounds without
 * read jitter), but the midpoint is far better than w on symmetric paths, so
 * R = c2 w^2, c2 starting at 1/16 and then learned from the innovations
 * (exponentially weighted, within [0.001, 1]). A measurement whose w is over
 * twice the lower envelope of recent widths came from disturbed exchanges
 * (descheduled, migrated; its midpoint can be off by most of w) and is set
 * aside, unless four in a row were (then wide is the new usual), from the
 * second measurement on: the first refreshes, when the drift is still poorly
 * known, are where a wide one does most harm (one at n = 3 pushed a drift
 * estimate to -7 ppm and the true error to 2.9 µs in a CI run). An
 * innovation beyond
 * 5 sigma is a change the model did not expect (a drift step, a prior too
 * tight): the covariance is inflated to cover it instead of the measurement
 * being discarded.
 * The layer: after an update at tau, the tracked clock is
 *     G = I + x + (v + a D/2) (I - tau)
 * a line through the current offset whose slope is the mean drift over the
 * next planned interval D, so a drift change costs a D^2/8 at most.
 * Schedule: after every refresh each rank computes how long until its
 * predicted error has grown by `growth` (3 sigma of the covariance growth
 * plus the linearization error), within [min_interval, max_interval]; the
 * ranks agree on the earliest (one allreduce) and isochron_track_poll
 * refreshes once that time is reached, rank 0 deciding for all. Right after
 * a short sync the drift is poorly known, so refreshes come every few
 * milliseconds and space out geometrically as the baseline grows. After a
 * refresh whose measurement was set aside as disturbed, the next waits at
 * least 4 times as long as that one took (DUTY, 20 %: a starved network's
 * 0.3-0.5 s refreshes otherwise ran back to back).
 * Error bounds, two of them, both recorded:
 *  - statistical: 4 sigma of this rank's predicted offset plus its
 *    reference's (sent by the reference in the refresh), i.e. the chain of the
 *    tree. Four, not three: a stated bound must hold at every check and point
 *    of a run, and a run states it 20-50 times; at 3 sigma (0.27 % per check
 *    for a Gaussian error) one run in 10-20 would see its bound broken even if
 *    the filter were exact (a fresh-clone CI run: a true 1.66 µs beside a
 *    3-sigma 1.63 µs, across the namespace cluster under srun), at 4 sigma
 *    (0.006 %) about one in 500. It assumes that a ping-pong's midpoint is unbiased: both directions
 *    of a path take equal time. An asymmetric route (1 µs one way, 11 µs back)
 *    biases every midpoint alike, which no filter can see.
 *  - hard: from causality alone. A SKaMPI-Offset measurement's interval
 *    [z - w, z + w] contains the offset to the reference's tracked clock
 *    whatever the paths do, and that clock is within the reference's own
 *    hard bound h_r of rank 0's (sent with the variance): so the true offset
 *    to rank 0 lies within H = w + h_r of z. Two such intervals dt apart bound
 *    the drift, [(z_k - z_j - H_k - H_j)/dt, (z_k - z_j + H_k + H_j)/dt]
 *    (the narrowest over the last HIST accepted measurements), and the layer's
 *    error grows at most at the distance of its slope from that range, plus
 *    the filter's 3-sigma drift change (the one statistical ingredient, small
 *    between refreshes). Before two intervals exist a drift of HARD_DRIFT_MAX
 *    is assumed (what a crystal oscillator's tolerance allows). Read jitter of
 *    injected skew widens each interval by 6 jitter standard deviations.
 *  Which one a result states: the statistical one, unless its premises fail
 *  visibly (isochron_track_errors): the learned measurement noise reaches half
 *  the interval half-width (midpoints no better than the interval: delays
 *  are not symmetric), a fresh hard interval excludes what the statistical
 *  bound allowed, most recent measurements were set aside as disturbed, or
 *  the filter is inconsistent (the mean normalized innovation squared of the
 *  recent updates, 1 for a consistent filter, above NIS_MAX), or the ranks'
 *  kernel has more runnable tasks than CPUs (oversubscribed by the job, or a
 *  load average above the CPU count): scheduling delays then make the two
 *  directions of an exchange unequal, the premise itself; or the filter has
 *  not yet learned its measurement noise (fewer than NLEARN updates: the
 *  noise is still the prior, and a fresh-clone CI run saw a true 296 ns
 *  beside a prior-based 207 ns right after sync);
 *  then, until HIST clean refreshes in a row, every rank states the hard one.
 *  The hard one is stated too whenever it is the smaller.
 * Followers: a rank that copied its leader's model by ClockPropSync (Alg. 3)
 * reads the leader's time source through the same model, so the leader's
 * correction is exactly its own: it takes no part in the tree and copies the
 * leader's layer after every refresh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

#define NSIG 3.0     /* the filter's own tests and schedule: 3 sigma */
#define NSIG_STATED 4.0 /* the statistical bound a result states (see "Error bounds" above) */
#define HW_OUTLIER 2.0
#define HW_CREEP 0.003 /* growth of the lower envelope of half-widths per measurement */
#define C2_MIN 1e-3
#define C2_START 0.0625
#define NSUB 3
#define NWARM 10
#define R_FLOOR 2e-9
#define INNOV_GATE 5.0
#define HIST 8
#define HARD_DRIFT_MAX 200e-6
#define C2_UNTRUSTED 0.25
#define NIS_MAX 3.0
#define DUTY 0.2    /* largest share of the run's time spent on disturbed refreshes */
#define NLEARN 5    /* updates before the measurement noise is learned rather than the prior */

struct isochron_track {
    MPI_Comm comm;                   /* duplicate of the caller's */
    MPI_Comm lead;                   /* the ranks tracked by refreshes (all but followers); NULL on followers */
    MPI_Comm group;                  /* a leader (rank 0) and the ranks that follow it, or MPI_COMM_NULL */
    int follow;                      /* rank of comm whose correction this rank copies, -1: its own */
    double fvar[4];                  /* follower: the leader's P00 + chain, P01, P11 and update time */
    int rank, size, truth;
    isochron_track_opts_t o;
    isochron_clock_t *global;        /* the caller's clock (tracked in place) */
    isochron_clock_t *inner;         /* copy of it without the tracking layer */
    int layer;                       /* index of the tracking layer in global */
    isochron_sync_ctx_t ctx;
    isochron_sync_level_t lv;
    /* filter (clients only) */
    int n;                           /* updates so far */
    double tk;                       /* inner time of the last update */
    double s[3], P[3][3];
    double R;                        /* variance of the last measurement */
    double c2;                       /* measurement variance per squared interval half-width */
    double hw_typ;                   /* typical half-width of accepted measurements */
    int skipped, skipped_run;        /* measurements set aside as disturbed (in all, in a row) */
    double chain_var;                /* reference's offset variance at the last refresh */
    double plan;                     /* planned interval used for the layer's slope */
    /* schedule and cost (all ranks) */
    double next_due;                 /* global time, same on all ranks */
    int refreshes;
    double cost;                     /* seconds spent refreshing (rank 0's wall time) */
    double last_hw, last_innov;
    /* hard bound (clients): the last HIST accepted measurements, oldest first */
    int nh;
    double h_tau[HIST], h_z[HIST], h_H[HIST];
    double hard0, hard_rate, hard_tau; /* hard bound at hard_tau (inner time) and its growth per second */
    double ref_hard;                 /* reference's hard bound at the last refresh */
    int recent[HIST], nrecent;       /* 1 per recent measurement set aside, ring */
    double nis[HIST];                /* normalized innovations squared y^2/S of recent updates, ring */
    int nnis;
    int untrusted;                   /* refreshes left stating the hard bound (0: statistical trusted) */
    int disturbed;                   /* this refresh's measurement was set aside (client) */
    double jitter;                   /* injected read jitter (s) */
};

void isochron_track_opts_default(isochron_track_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->growth = 100e-9;
    o->min_interval = 0.01;
    o->max_interval = 5.0;
    o->npingpongs = 15;
    o->drift_prior_ppm = 10.0;
    /* 0.02 ppm/s: a crystal's drift moves 0.1-1 ppm per degree and a node's
     * temperature a degree per minute at most, so 0.02 is already generous;
     * a faster change (test_track injects 0.1) is caught by the innovation
     * gate. At 0.2 the filter read curvature into the correlated noise of
     * the first seconds. Replaying 12 recorded runs across the namespace
     * cluster against the kernel's truth (quiet and loaded, drift 0.5-5 ppm),
     * this prior with HW_CREEP and the whole-excess variance of update()
     * lowered the largest error between refreshes after 2 s in all 12:
     * median 0.26 µs (0.13-0.79) against 0.42 µs (0.14-1.27) before */
    o->ddrift_prior_ppm_s = 0.02;
    o->noise_ppm = 0.001;
    o->follow = -1;
}

int isochron_track_opts_check(const isochron_track_opts_t *o)
{
    if (!(o->growth > 0 && o->growth < 1) || !(o->min_interval > 0) || !(o->max_interval >= o->min_interval) ||
        o->max_interval > 3600 || o->npingpongs < 1 || o->npingpongs > 100000 || !(o->drift_prior_ppm > 0) ||
        !(o->drift_prior_ppm <= 1e5) || !(o->ddrift_prior_ppm_s >= 0) || !(o->noise_ppm >= 0))
        return isochron_set_error(ISOCHRON_EINVAL, "track: options out of range (0 < growth < 1 s, 0 < min_interval <= max_interval <= 3600 s, "
                                                   "1 <= pingpongs <= 100000, 0 < drift prior <= 1e5 ppm, ddrift prior and noise >= 0)");
    return ISOCHRON_OK;
}

/* ---- the filter ------------------------------------------------------- */

/* Predict state and covariance d seconds ahead (into s2, P2). */
static void predict(const isochron_track_t *t, double d, double s2[3], double P2[3][3])
{
    double F[3][3] = {{1, d, 0.5 * d * d}, {0, 1, d}, {0, 0, 1}}, FP[3][3];
    for (int i = 0; i < 3; i++) s2[i] = F[i][0] * t->s[0] + F[i][1] * t->s[1] + F[i][2] * t->s[2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) FP[i][j] = F[i][0] * t->P[0][j] + F[i][1] * t->P[1][j] + F[i][2] * t->P[2][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) P2[i][j] = FP[i][0] * F[j][0] + FP[i][1] * F[j][1] + FP[i][2] * F[j][2];
    double ad = fabs(d), qx = 1e-18, qv = t->o.noise_ppm * 1e-6 * t->o.noise_ppm * 1e-6, qa = qv * 1e-2;
    double d2 = ad * ad, d3 = d2 * ad, d4 = d3 * ad, d5 = d4 * ad;
    P2[0][0] += qx * ad + qv * d3 / 3 + qa * d5 / 20;
    P2[0][1] += qv * d2 / 2 + qa * d4 / 8;
    P2[1][0] += qv * d2 / 2 + qa * d4 / 8;
    P2[1][1] += qv * ad + qa * d3 / 3;
    P2[0][2] += qa * d3 / 6;
    P2[2][0] += qa * d3 / 6;
    P2[1][2] += qa * d2 / 2;
    P2[2][1] += qa * d2 / 2;
    P2[2][2] += qa * ad;
}

/* How much the error grows d seconds after the last update: NSIG sigma of
 * the covariance growth plus the linear layer's distance from the quadratic. */
static double growth_at(const isochron_track_t *t, double d)
{
    double s2[3], P2[3][3];
    predict(t, d, s2, P2);
    double g = P2[0][0] - t->P[0][0];
    return NSIG * sqrt(g > 0 ? g : 0) + fabs(t->s[2]) * d * d / 8;
}

/* Longest interval in [min, max] whose growth stays within o.growth. */
static double plan_interval(const isochron_track_t *t)
{
    double lo = t->o.min_interval, hi = t->o.max_interval;
    if (growth_at(t, hi) <= t->o.growth) return hi;
    if (growth_at(t, lo) >= t->o.growth) return lo;
    for (int i = 0; i < 40; i++) {
        double mid = sqrt(lo * hi);
        if (growth_at(t, mid) <= t->o.growth) lo = mid; else hi = mid;
    }
    return lo;
}

static void set_layer(isochron_track_t *t)
{
    double v = t->s[1] + 0.5 * t->s[2] * t->plan;
    isochron_lm_t m = {v, t->s[0] - v * t->tk, ISOCHRON_LM_LINEAR};
    isochron_clock_set_layer(t->global, t->layer, m);
}

/* Injected read jitter (skew's jitter=, per read): a midpoint reads two clocks
 * per side, so it moves with variance 2 j^2; an interval's edges by up to
 * isochron_jitter_hard (sync_impl.h). */
static double jitter_var(const isochron_track_t *t) { return 2 * t->jitter * t->jitter; }
static double jitter_hard(const isochron_track_t *t) { return isochron_jitter_hard(t->jitter); }

/* One measurement z (reference minus inner clock at inner time tau), half-width hw. */
static void update(isochron_track_t *t, double tau, double z, double hw)
{
    double w = fmax(hw, R_FLOOR);
    t->last_hw = hw;
    /* a measurement whose tightest interval is much wider than the narrow
     * ones of late comes from disturbed exchanges (descheduled, migrated):
     * its midpoint can be off by most of the width. Set it aside, unless wide
     * has become usual. hw_typ follows the lower envelope of the widths: the
     * path's own delay, which a disturbance does not change. It drops to a
     * narrower one at once and creeps up by HW_CREEP per measurement, so that
     * a wide stretch of seconds (a busy core, measured across the namespace
     * cluster: half-widths 9.5-12.5 µs against 7.6 µs, midpoints 100-400 ns
     * off where the narrow ones were 12 ns off, MAD 65 ns) keeps its excess
     * and its weight stays low; at 3 % the early refreshes, 10 ms apart,
     * took a wide stretch for the usual within 0.2 s. */
    t->hw_typ = t->n == 0 && t->skipped == 0 ? w : fmin(w, t->hw_typ * (1 + HW_CREEP));
    int aside = t->n >= 1 && w > HW_OUTLIER * t->hw_typ && t->skipped_run < 4;
    t->recent[t->nrecent++ % HIST] = aside;
    if (aside) {
        t->skipped++;
        t->skipped_run++;
        t->last_innov = NAN;
        return;
    }
    t->skipped_run = 0;
    /* a half-width above the lower envelope is delay one exchange direction may
     * have taken alone: it can move the midpoint by as much, which the learned
     * noise (of usual measurements) does not cover. Its standard deviation is
     * taken as the whole excess, not that of a uniform spread on +-excess:
     * the delay patterns behind it last seconds, so successive wide
     * measurements are off alike and do not average out. */
    double ex = w - t->hw_typ;
    t->R = t->c2 * w * w + ex * ex + jitter_var(t) + R_FLOOR * R_FLOOR; /* read jitter: see var_floor */
    if (t->n == 0) {
        double sv = t->o.drift_prior_ppm * 1e-6, sa = t->o.ddrift_prior_ppm_s * 1e-6;
        memset(t->P, 0, sizeof t->P);
        t->s[0] = z; t->s[1] = 0; t->s[2] = 0;
        t->P[0][0] = t->R;
        t->P[1][1] = sv * sv;
        t->P[2][2] = sa * sa;
        t->tk = tau;
        t->n = 1;
        t->last_innov = 0;
        return;
    }
    double s2[3], P2[3][3];
    predict(t, tau - t->tk, s2, P2);
    double y = z - s2[0], S = P2[0][0] + t->R;
    t->last_innov = y;
    t->nis[t->nnis++ % HIST] = fmin(y * y / S, 100.0);
    if (y * y > INNOV_GATE * INNOV_GATE * S) { /* unexpected change: widen what the model knows */
        double f = y * y / (INNOV_GATE * INNOV_GATE * S);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) P2[i][j] *= f;
        S = P2[0][0] + t->R;
    }
    double K[3] = {P2[0][0] / S, P2[1][0] / S, P2[2][0] / S};
    for (int i = 0; i < 3; i++) t->s[i] = s2[i] + K[i] * y;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t->P[i][j] = P2[i][j] - K[i] * P2[0][j];
    for (int i = 0; i < 3; i++) /* keep it symmetric */
        for (int j = 0; j < i; j++) t->P[i][j] = t->P[j][i] = 0.5 * (t->P[i][j] + t->P[j][i]);
    /* measurement noise from the innovations: y^2 estimates P2[0][0] + c2 w^2 */
    if (t->n >= 3) {
        double c2 = (y * y - P2[0][0] - ex * ex - jitter_var(t)) / (w * w);
        t->c2 = 0.9 * t->c2 + 0.1 * fmin(fmax(c2, C2_MIN), 1.0);
    }
    t->tk = tau;
    t->n++;
}

/* 1 if this kernel runs more runnable tasks than it has CPUs (1-minute load
 * average): then a ping-pong's two directions wait for the scheduler by
 * different amounts, and midpoints are biased however many are averaged
 * (measured across the namespace cluster at load 8 on 2 cores: 3-sigma bounds
 * missed true errors by 2-10 %). */
static int kernel_loaded(void)
{
#if defined(__linux__) && !defined(SMPI_ISOCHRON)
    FILE *f = fopen("/proc/loadavg", "r");
    double l1 = 0;
    int ok = f && fscanf(f, "%lf", &l1) == 1;
    if (f) fclose(f);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return ok && n > 0 && l1 > (double)n;
#else
    return 0;
#endif
}

/* ---- the hard bound --------------------------------------------------- */

/* After an accepted measurement (tau, z, H = w + reference's hard bound) and
 * the layer set through the filter's estimate: the hard bound at tau and its
 * growth rate (see the file comment). Also checks the statistical bound
 * against the new hard interval: pred_stat is the statistical bound predicted
 * for tau before the update, pred the filter's prediction. */
static void hard_update(isochron_track_t *t, double tau, double z, double H, double pred, double pred_stat)
{
    if (t->nh == HIST) {
        memmove(t->h_tau, t->h_tau + 1, sizeof(double) * (HIST - 1));
        memmove(t->h_z, t->h_z + 1, sizeof(double) * (HIST - 1));
        memmove(t->h_H, t->h_H + 1, sizeof(double) * (HIST - 1));
        t->nh--;
    }
    t->h_tau[t->nh] = tau; t->h_z[t->nh] = z; t->h_H[t->nh] = H;
    t->nh++;
    double v = t->s[1] + 0.5 * t->s[2] * t->plan; /* the layer's slope (set_layer) */
    double rate = HARD_DRIFT_MAX + fabs(v), best = INFINITY;
    for (int j = 0; j + 1 < t->nh; j++) {
        double dt = tau - t->h_tau[j];
        if (!(dt > 0)) continue;
        double lo = (z - t->h_z[j] - H - t->h_H[j]) / dt, hi = (z - t->h_z[j] + H + t->h_H[j]) / dt;
        if (hi - lo < best) { best = hi - lo; rate = fmax(fabs(hi - v), fabs(lo - v)); }
    }
    double a = fabs(t->s[2]) + NSIG * sqrt(fmax(t->P[2][2], 0)); /* drift change: the filter's 3 sigma */
    t->hard_rate = rate + a * (isfinite(best) ? 0.5 * (tau - t->h_tau[0]) : 0);
    t->hard0 = fabs(t->s[0] - z) + H;
    t->hard_tau = tau;
    /* the statistical premises: a hard fact excluding what the statistical bound allowed, midpoints no better than
     * their intervals, most recent measurements disturbed */
    int aside = 0, nr = t->nrecent < HIST ? t->nrecent : HIST, nn = t->nnis < HIST ? t->nnis : HIST;
    for (int i = 0; i < nr; i++) aside += t->recent[i];
    double nis = 0;
    for (int i = 0; i < nn; i++) nis += t->nis[i] / nn;
    /* the filter's own consistency: innovations that outgrow their predicted spread (the mean of y^2/S is 1 for a
     * consistent filter; above NIS_MAX over the recent updates the statistical variance is too small) */
    int broken = (isfinite(pred) && fabs(pred - z) > H + pred_stat) || (t->n > 3 && t->c2 >= C2_UNTRUSTED) || (nr >= 4 && 2 * aside > nr) ||
                 (nn >= 4 && nis > NIS_MAX) || t->ctx.serialize || kernel_loaded() || t->n < NLEARN;
    if (broken) t->untrusted = HIST;
    else if (t->untrusted > 0) t->untrusted--;
}

static double own_hard(const isochron_track_t *t, double at_inner)
{
    if (t->rank == 0) return 0;
    if (t->follow >= 0) /* the leader's (same inner clock), and this rank's read jitter as the leader's intervals count it */
        return t->hard0 + t->hard_rate * fabs(at_inner - t->hard_tau) + jitter_hard(t);
    if (t->nh == 0) return INFINITY;
    return t->hard0 + t->hard_rate * fabs(at_inner - t->hard_tau);
}

/* ---- the refresh pass ------------------------------------------------- */

/* The filter averages its measurements as if their midpoint errors were
 * independent. On a loaded machine or a TCP network they are not: a delay
 * pattern that lasts seconds biases successive midpoints alike, and the
 * averaged variance then claims more than the data show (measured across the
 * namespace cluster under load: a true error of 0.343 µs beside a 3-sigma
 * bound of 0.284 µs, with 1 µs of noise per measurement). So the statistical
 * variance never goes below that of one typical measurement, R = c2 w^2 at
 * the usual half-width w: what a single refresh shows, whatever the
 * correlation. On shared memory R is tens of ns and the floor rarely binds. */
static double var_floor(const isochron_track_t *t)
{
    /* injected read jitter moves a midpoint by about the jitter of its reads
     * (two per side), while the tightest interval, the one kept, is the one
     * whose reads the jitter happened to narrow, down to a half-width near 0:
     * c2 w^2 then says nothing (ClockPropSync followers with 1 µs of jitter:
     * a true 0.61 µs beside a statistical bound of 0.043 µs without this) */
    return t->c2 * t->hw_typ * t->hw_typ + R_FLOOR * R_FLOOR + jitter_var(t);
}

static double own_var(const isochron_track_t *t, double at_inner)
{
    if (t->follow >= 0) { /* the leader's variance, grown by its drift uncertainty, and this rank's own read jitter
                             * (a follower of rank 0 has a variance of 0 otherwise: under MPICH a true 1.16 µs with
                             * 1 µs of jitter beside bounds of 0) */
        double d = at_inner - t->fvar[3];
        return fmax(t->fvar[0] + 2 * d * t->fvar[1] + d * d * t->fvar[2], 0) + jitter_var(t);
    }
    if (t->rank == 0 || t->n == 0) return 0;
    double s2[3], P2[3][3];
    predict(t, at_inner - t->tk, s2, P2);
    return fmax(P2[0][0], var_floor(t)) + t->chain_var;
}

static int refresh_pair(isochron_sync_ctx_t *ctx, MPI_Comm comm, int is_ref, int ref, int client, int prev, int next, void *arg)
{
    isochron_track_t *t = arg;
    isochron_offset_t o = {0, 0, 0}, warm;
    int rc = isochron_pair_begin(ctx, comm, is_ref, is_ref ? client : ref, prev);
    if (rc) return rc;
    isochron_clock_t *clk = is_ref ? t->global : t->inner;
    /* exchanges to wake the pair up, then NSUB measurements of which the
     * tightest interval is kept (minimum-delay filtering, as the sync's fit) */
    rc = isochron_offset_skampi(comm, clk, ref, client, NWARM, t->o.xport, &warm);
    o.uncertainty = INFINITY;
    /* the first refresh has nothing to compare a disturbed measurement with:
     * it takes three times as many and keeps the tightest */
    int nsub = t->refreshes == 0 ? 3 * NSUB : NSUB;
    for (int k = 0; k < nsub && !rc; k++) {
        isochron_offset_t ok;
        rc = isochron_offset_skampi(comm, clk, ref, client, t->o.npingpongs, t->o.xport, &ok);
        if (!rc && !is_ref && ok.uncertainty < o.uncertainty) o = ok;
    }
    double msg[2] = {0, 0}; /* the reference's variance and hard bound now */
    if (!rc && is_ref) {
        double now = isochron_clock_now(t->inner);
        msg[0] = own_var(t, now);
        msg[1] = own_hard(t, now);
        if (MPI_Send(msg, 2, MPI_DOUBLE, client, TAG_TRACK, comm) != MPI_SUCCESS)
            rc = isochron_set_error(ISOCHRON_EMPI, "track: sending to rank %d failed", client);
    } else if (!rc) {
        rc = isochron_recv_polite(msg, 2, MPI_DOUBLE, ref, TAG_TRACK, comm);
    }
    if (!rc && t->truth && getenv("ISOCHRON_TRACK_DEBUG")) { /* the kernel's truth beside each measurement, for replays */
        double tm, tb, tv;
        isochron_truth_sample(clk, &tm, &tb, &tv);
        fprintf(stderr, "track-truth r%d truth=%.9f clock=%.12f\n", t->rank, tm, tv);
    }
    int rc2 = isochron_pair_end(ctx, comm, is_ref, next);
    if (rc || (rc = rc2)) return rc;
    if (!is_ref) {
        /* what the layer and the statistical bound said for this instant, before the update */
        double pred = NAN, pstat = NAN;
        if (t->n > 0) {
            double s2[3], P2[3][3], v = t->s[1] + 0.5 * t->s[2] * t->plan;
            predict(t, o.timestamp - t->tk, s2, P2);
            pred = t->s[0] + v * (o.timestamp - t->tk);
            pstat = NSIG_STATED * sqrt(fmax(P2[0][0], var_floor(t)) + t->chain_var);
        }
        t->chain_var = msg[0];
        t->ref_hard = msg[1];
        int n0 = t->n;
        update(t, o.timestamp, o.offset, o.uncertainty);
        t->plan = plan_interval(t);
        if (t->n > n0) hard_update(t, o.timestamp, o.offset, o.uncertainty + msg[1] + jitter_hard(t), pred, pstat);
        else t->disturbed = 1;
        if (getenv("ISOCHRON_TRACK_DEBUG"))
            fprintf(stderr, "track r%d n=%d tau=%.6f z=%.1fns hw=%.1fns innov=%.1fns R=%.1fns v=%.4fppm sv=%.4f a=%.5f plan=%.4f hard=%.1fns+%.3fppm c2=%.3f untrusted=%d\n", t->rank, t->n, o.timestamp,
                    o.offset * 1e9, o.uncertainty * 1e9, t->last_innov * 1e9, sqrt(t->R) * 1e9, t->s[1] * 1e6, sqrt(t->P[1][1]) * 1e6, t->s[2] * 1e6, t->plan,
                    t->hard0 * 1e9, t->hard_rate * 1e6, t->c2, t->untrusted);
        set_layer(t);
    }
    return ISOCHRON_OK;
}

int isochron_track_refresh(isochron_track_t *t)
{
    double w0 = isochron_truth_now();
    t->ctx.rounds = 0;
    t->disturbed = 0;
    int rc = ISOCHRON_OK;
    if (t->lead != MPI_COMM_NULL) rc = isochron_hca3_tree(&t->ctx, t->lead, refresh_pair, t);
    if (t->group != MPI_COMM_NULL) { /* followers take their leader's correction: they read its clock */
        isochron_lm_t m = isochron_clock_layer(t->global, t->layer);
        double now = isochron_clock_now(t->inner);
        double msg[9] = {m.slope, m.intercept, own_var(t, now), t->n ? t->P[0][1] : 0, t->n ? t->P[1][1] : 0, now,
                         own_hard(t, now), t->follow >= 0 ? 0 : t->rank == 0 ? 0 : t->hard_rate, t->untrusted};
        int brc = isochron_bcast_polite(msg, 9, MPI_DOUBLE, 0, t->group);
        if (!rc) rc = brc;
        if (!rc && t->follow >= 0) {
            isochron_lm_t f = {msg[0], msg[1], ISOCHRON_LM_LINEAR};
            isochron_clock_set_layer(t->global, t->layer, f);
            memcpy(t->fvar, msg + 2, sizeof t->fvar);
            t->s[1] = msg[0];
            /* the leader's hard bound, growing as the leader's does */
            t->hard0 = msg[6];
            t->hard_rate = msg[7];
            t->hard_tau = msg[5];
            t->untrusted = (int)msg[8];
        }
    }
    /* one reduction agrees on success (error codes are negative) and on the
     * next refresh: the earliest any rank needs */
    double now = isochron_clock_now(t->global);
    double in[4] = {rc, now + (t->rank == 0 || t->n == 0 || t->follow >= 0 ? t->o.max_interval : t->plan),
                    t->disturbed ? -(isochron_truth_now() - w0) : 0, -now}, all[4];
    if (isochron_allreduce_polite(in, all, 4, MPI_DOUBLE, MPI_MIN, t->comm)) return ISOCHRON_EMPI;
    if (all[0] < 0) return rc ? rc : isochron_set_error((int)all[0], "track: the refresh failed on another rank");
    /* a refresh whose measurement was set aside somewhere (disturbed exchanges) is followed by a wait of at least
     * (1 - DUTY) / DUTY times its length: on a starved network one refresh takes 0.3-0.5 s and is set aside, and
     * refreshes planned 10-70 ms apart took 40 s of a 60 s run (measured across the namespace cluster at load 11);
     * the bounds grow with the longer wait, as between any two refreshes. Slow refreshes that are accepted keep
     * their plan: under load they are what keeps a fast-changing drift tracked (test_track's case B) */
    t->next_due = fmax(all[1], -all[3] + fmin(-all[2] * (1 - DUTY) / DUTY, t->o.max_interval)); /* the same on every rank */
    t->refreshes++;
    t->cost += isochron_truth_now() - w0;
    return ISOCHRON_OK;
}

/* ---- public ----------------------------------------------------------- */

int isochron_track_create(MPI_Comm comm, isochron_clock_t *global, const isochron_track_opts_t *opts, isochron_track_t **out)
{
    *out = NULL;
    isochron_track_opts_t def;
    if (!opts) { isochron_track_opts_default(&def); opts = &def; }
    int rc = isochron_track_opts_check(opts);
    if (rc) return rc;
    isochron_track_t *t = calloc(1, sizeof *t);
    if (!t) return isochron_set_error(ISOCHRON_ENOMEM, "track: out of memory");
    t->o = *opts;
    t->global = global;
    if (MPI_Comm_dup(comm, &t->comm) != MPI_SUCCESS) { free(t); return isochron_set_error(ISOCHRON_EMPI, "track: MPI_Comm_dup failed"); }
    MPI_Comm_rank(t->comm, &t->rank);
    MPI_Comm_size(t->comm, &t->size);
    t->ctx.serialize = isochron_comm_oversubscribed(t->comm);
    t->truth = isochron_truth_shared(t->comm);
    t->ctx.lv = &t->lv;
    t->c2 = C2_START;
    const isochron_skew_t *sk = isochron_timer_get_skew(isochron_clock_timer(global));
    t->jitter = sk ? sk->jitter : 0;
    t->hard0 = t->rank == 0 ? 0 : INFINITY;
    t->lv.npingpongs = opts->npingpongs;
    /* followers (ranks that copied a leader's model by ClockPropSync) must
     * follow a leader; rank 0 leads */
    t->follow = opts->follow >= 0 && opts->follow < t->size && opts->follow != t->rank && t->rank != 0 ? opts->follow : -1;
    int *fl = malloc(sizeof(int) * (size_t)t->size), bad = opts->follow >= t->size || (t->rank == 0 && opts->follow >= 0);
    if (!fl) bad = 1;
    else {
        MPI_Allgather(&t->follow, 1, MPI_INT, fl, 1, MPI_INT, t->comm);
        if (t->follow >= 0 && fl[t->follow] >= 0) bad = 1;
    }
    int anyfollow = 0;
    for (int i = 0; fl && i < t->size; i++) anyfollow |= fl[i] >= 0;
    free(fl);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, t->comm);
    if (bad) {
        MPI_Comm_free(&t->comm);
        free(t);
        return isochron_set_error(ISOCHRON_EINVAL, "track: a rank follows a rank that is not a leader (or one outside the communicator)");
    }
    MPI_Comm_split(t->comm, t->follow < 0 ? 0 : MPI_UNDEFINED, t->rank, &t->lead);
    t->group = MPI_COMM_NULL;
    if (anyfollow) MPI_Comm_split(t->comm, t->follow < 0 ? t->rank : t->follow, t->follow < 0 ? 0 : t->rank + 1, &t->group);
    rc = isochron_clock_copy(global, &t->inner);
    if (!rc) rc = isochron_clock_push_layer(global, isochron_lm_identity(), &t->layer);
    rc = isochron_agree(t->comm, rc);
    if (!rc) rc = isochron_track_refresh(t);
    if (rc) { isochron_track_destroy(t); return rc; }
    *out = t;
    return ISOCHRON_OK;
}

void isochron_track_destroy(isochron_track_t *t)
{
    if (!t) return;
    /* the clock keeps the last estimate; folded into the layer below, so
     * that trackers made one after another on one clock do not stack up */
    if (t->layer == isochron_clock_depth(t->global) - 1) isochron_clock_fold_top(t->global);
    isochron_clock_destroy(t->inner);
    if (t->lead != MPI_COMM_NULL) MPI_Comm_free(&t->lead);
    if (t->group != MPI_COMM_NULL) MPI_Comm_free(&t->group);
    MPI_Comm_free(&t->comm);
    free(t);
}

int isochron_track_poll(isochron_track_t *t, int *refreshed)
{
    int due = t->rank == 0 && isochron_track_due(t), all = 0;
    if (refreshed) *refreshed = 0;
    int rc = isochron_allreduce_polite(&due, &all, 1, MPI_INT, MPI_MAX, t->comm);
    if (rc || !all) return rc;
    if (refreshed) *refreshed = 1;
    return isochron_track_refresh(t);
}

double isochron_track_next_due(const isochron_track_t *t) { return t->next_due; }

int isochron_track_due(const isochron_track_t *t) { return isochron_clock_now(t->global) >= t->next_due; }

double isochron_track_bound(const isochron_track_t *t)
{
    return NSIG_STATED * sqrt(own_var(t, isochron_clock_now(t->inner)));
}

double isochron_track_bound_hard(const isochron_track_t *t) { return own_hard(t, isochron_clock_now(t->inner)); }

int isochron_track_untrusted(const isochron_track_t *t) { return t->untrusted > 0; }

/* the statistical bound unless its premises failed somewhere, or the hard one is tighter */
int isochron_bound_hard_stated(double bound_stat, double bound_hard, int premises_failed)
{
    return !isnan(bound_hard) && (premises_failed || bound_hard <= bound_stat);
}

int isochron_track_errors(isochron_track_t *t, isochron_track_errors_t *e)
{
    double now = isochron_clock_now(t->inner);
    double in[3] = {NSIG_STATED * sqrt(own_var(t, now)), own_hard(t, now), t->untrusted > 0}, mx[3];
    int rc = isochron_allreduce_polite(in, mx, 3, MPI_DOUBLE, MPI_MAX, t->comm);
    if (rc) return rc;
    e->bound_stat = mx[0];
    e->bound_hard = mx[1];
    e->hard = isochron_bound_hard_stated(mx[0], mx[1], mx[2] > 0);
    e->bound = e->hard ? mx[1] : mx[0];
    e->true_err = NAN;
    if (!t->truth) return ISOCHRON_OK;
    return isochron_sync_true_error(t->comm, t->global, &e->true_err);
}

int isochron_track_error(isochron_track_t *t, double *bound, double *true_err)
{
    isochron_track_errors_t e;
    int rc = isochron_track_errors(t, &e);
    if (bound) *bound = rc ? NAN : e.bound;
    if (true_err) *true_err = rc ? NAN : e.true_err;
    return rc;
}

void isochron_track_info(const isochron_track_t *t, isochron_track_info_t *info)
{
    memset(info, 0, sizeof *info);
    info->refreshes = t->refreshes;
    info->cost = t->cost;
    info->next_due = t->next_due;
    info->interval = t->plan;
    info->drift = t->s[1];
    info->drift_se = t->n ? sqrt(fmax(t->P[1][1], 0)) : NAN;
    info->ddrift = t->s[2];
    info->offset_se = t->n ? sqrt(fmax(t->P[0][0], 0)) : 0;
    info->noise = sqrt(t->R);
    info->bound = isochron_track_bound(t);
    info->updates = t->n;
    info->set_aside = t->skipped;
    info->bound_hard = isochron_track_bound_hard(t);
    info->untrusted = t->untrusted > 0;
}
