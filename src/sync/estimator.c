/*
 * Clock offset estimators (paper 000, sec. III-A, Appendix A), the building
 * blocks of every synchronization algorithm.
 *  - SKaMPI-Offset (Alg. 7): the client sends its time, the reference answers
 *    with its own; each exchange bounds the offset from both sides and the
 *    tightest bounds over all exchanges win, so only the luckiest
 *    (minimum-delay) exchanges matter. The half-width of the final interval is
 *    returned as the fit point's uncertainty.
 *  - Mean-RTT-Offset (Alg. 8, Jones & Koenig): the RTT is measured once per
 *    pair (mean of the exchanges), then each exchange gives
 *    offset = t_ref + RTT/2 - t_client, and the median exchange is returned.
 * Offsets are reference minus client; both sides read their own clock (the
 * reference may read a global clock already, as in HCA3). The exchanges go
 * through the pair's transport (isochron_xport_t: MPI, or OpenSHMEM's
 * put + wait_until), so every algorithm runs over either.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

/* The bounds of several exchanges may be intersected only as far as the
 * offset stands still. A relative drift d moves it by d*dt, so SKaMPI-Offset's
 * intersection over all n exchanges assumes they take microseconds, as they
 * do on an idle machine (50 exchanges here: 30-60 µs). Under load they
 * spread out: measured at 4 ranks on 2 cores with a 40 % background load,
 * the 50 exchanges of one fit point took up to 59 ms, a 55 ppm relative drift
 * moved the offset 3.2 µs meanwhile, the intersected bounds crossed (a
 * negative half-width at zero jitter), and that one point, a hard
 * constraint of the fit, bent its slope 3 ppm (30 µs after 10 s). So the
 * point is stamped at the midpoint of the fastest exchange, and the bounds of
 * every other exchange are widened by ISOCHRON_DRIFT_BOUND times its distance
 * from that instant before they are intersected: valid whatever the drift up
 * to the bound, and Alg. 7 unchanged when the exchanges are quick (50 µs
 * apart: 5 ns). Keeping only the exchanges within 200 µs of the fastest
 * instead left one exchange of 35 µs under load (a 17.5 µs offset error). */
#define ISOCHRON_DRIFT_BOUND 100e-6 /* two quartz clocks within their ±50 ppm */

int isochron_offset_skampi(MPI_Comm comm, isochron_clock_t *clk, int ref, int client, int n,
                           const isochron_xport_t *x, isochron_offset_t *out)
{
    int me, peer, rc;
    MPI_Comm_rank(comm, &me);
    if (!x) x = isochron_xport_mpi();
    if (me == ref) {
        double t_last;
        if ((rc = x->peer(x, comm, client, &peer))) return rc;
        for (int i = 0; i < n; i++) {
            double dummy;
            if ((rc = x->recv(x, comm, peer, TAG_PING, &dummy))) return rc;
            t_last = isochron_clock_now(clk);
            if ((rc = x->send(x, comm, peer, TAG_PONG, t_last, 0))) return rc;
        }
    } else if (me == client) {
        if ((rc = x->peer(x, comm, ref, &peer))) return rc;
        double stack[3 * 64], *s = n <= 64 ? stack : malloc(sizeof(double) * 3 * (size_t)n);
        if (!s) {
            /* still take part in every exchange, so the reference does not wait forever for a ping, then fail */
            for (int i = 0; i < n; i++) {
                double d;
                if ((rc = x->send(x, comm, peer, TAG_PING, isochron_clock_now(clk), 0)) || (rc = x->recv(x, comm, peer, TAG_PONG, &d))) return rc;
            }
            return isochron_set_error(ISOCHRON_ENOMEM, "SKaMPI-Offset: out of memory for %d exchanges", n);
        }
        double *t = s + n, *e = s + 2 * n; /* send time, reference's time, receive time */
        int k = 0;
        for (int i = 0; i < n; i++) {
            s[i] = isochron_clock_now(clk);
            if ((rc = x->send(x, comm, peer, TAG_PING, s[i], 0)) || (rc = x->recv(x, comm, peer, TAG_PONG, &t[i]))) {
                if (s != stack) free(s);
                return rc;
            }
            e[i] = isochron_clock_now(clk);
            if (e[i] - s[i] < e[k] - s[k]) k = i;
        }
        double tmin = -INFINITY, tmax = INFINITY, mid = 0.5 * (s[k] + e[k]);
        for (int i = 0; i < n; i++) {
            double widen = ISOCHRON_DRIFT_BOUND * fmax(fabs(s[i] - mid), fabs(e[i] - mid));
            if (t[i] - e[i] - widen > tmin) tmin = t[i] - e[i] - widen;
            if (t[i] - s[i] + widen < tmax) tmax = t[i] - s[i] + widen;
        }
        if (s != stack) free(s);
        out->offset = 0.5 * (tmin + tmax);
        out->timestamp = mid;
        out->uncertainty = 0.5 * (tmax - tmin);
    }
    return ISOCHRON_OK;
}

static int skampi_measure(MPI_Comm comm, isochron_clock_t *clk, int ref, int client, int n,
                          isochron_estimator_state_t *st, isochron_offset_t *out)
{
    return isochron_offset_skampi(comm, clk, ref, client, n, st->xport, out);
}

static int meanrtt_measure(MPI_Comm comm, isochron_clock_t *clk, int ref, int client, int n,
                           isochron_estimator_state_t *st, isochron_offset_t *out)
{
    int me, peer, rc;
    MPI_Comm_rank(comm, &me);
    const isochron_xport_t *x = st->xport ? st->xport : isochron_xport_mpi();
    if ((rc = x->peer(x, comm, me == ref ? client : ref, &peer))) return rc;
    double dummy = 0, t;
    if (st->rtt == 0) { /* measure_rtt: mean over n round trips, once per pair */
        double sum = 0;
        for (int i = 0; i < n; i++) {
            if (me == ref) {
                if ((rc = x->recv(x, comm, peer, TAG_PING, &dummy)) || (rc = x->send(x, comm, peer, TAG_PONG, dummy, 0))) return rc;
            } else {
                double t0 = isochron_clock_now(clk);
                if ((rc = x->send(x, comm, peer, TAG_PING, dummy, 0)) || (rc = x->recv(x, comm, peer, TAG_PONG, &dummy))) return rc;
                sum += isochron_clock_now(clk) - t0;
            }
        }
        st->rtt = me == ref ? 1.0 : sum / n; /* the reference only needs to know it is measured */
    }
    if (me == ref) {
        for (int i = 0; i < n; i++) {
            if ((rc = x->recv(x, comm, peer, TAG_PING, &dummy))) return rc;
            t = isochron_clock_now(clk);
            if ((rc = x->send(x, comm, peer, TAG_PONG, t, 1))) return rc;
        }
        return ISOCHRON_OK;
    }
    double *var = malloc(sizeof(double) * (size_t)n * 3);
    if (!var) {
        /* still take part in every exchange, so the reference does not wait forever for a ping, then fail */
        for (int i = 0; i < n; i++) {
            double d;
            if ((rc = x->send(x, comm, peer, TAG_PING, dummy, 1)) || (rc = x->recv(x, comm, peer, TAG_PONG, &d))) return rc;
        }
        return isochron_set_error(ISOCHRON_ENOMEM, "Mean-RTT-Offset: out of memory for %d exchanges", n);
    }
    double *loc = var + n, *tmp = var + 2 * n;
    for (int i = 0; i < n; i++) {
        double ref_time;
        if ((rc = x->send(x, comm, peer, TAG_PING, dummy, 1)) || (rc = x->recv(x, comm, peer, TAG_PONG, &ref_time))) { free(var); return rc; }
        loc[i] = isochron_clock_now(clk);
        var[i] = ref_time + 0.5 * st->rtt - loc[i];
    }
    memcpy(tmp, var, sizeof(double) * (size_t)n);
    double med = isochron_median(tmp, n);
    int mi = 0;
    for (int i = 0; i < n; i++) if (fabs(var[i] - med) < fabs(var[mi] - med)) mi = i;
    for (int i = 0; i < n; i++) tmp[i] = fabs(var[i] - med);
    out->offset = var[mi];
    out->timestamp = loc[mi];
    out->uncertainty = fmax(1.4826 * isochron_median(tmp, n), 1e-9);
    free(var);
    return ISOCHRON_OK;
}

static const isochron_estimator_t estimators[] = {
    {"skampi", "skampi-offset|skampi_offset", "SKaMPI-Offset (Alg. 7): tightest bounds over min-RTT exchanges", 1, skampi_measure},
    {"mean-rtt", "mean-rtt-offset|meanrtt|mean_rtt|jk", "Mean-RTT-Offset (Alg. 8, Jones-Koenig): mean RTT, median offset", 0, meanrtt_measure},
};
#define NEST ((int)(sizeof estimators / sizeof estimators[0]))

ISOCHRON_REGISTRY_ACCESSORS(isochron_estimator_count, isochron_estimator_get, isochron_estimator_t, NEST, ISOCHRON_REGISTRY_ENTRY(estimators))

int isochron_estimator_find(const char *name, const isochron_estimator_t **out)
{
    *out = NULL;
    for (int i = 0; i < NEST; i++) {
        if (isochron_streq_ci(name, estimators[i].name)) { *out = &estimators[i]; return ISOCHRON_OK; }
        char al[128];
        strncpy(al, estimators[i].aliases, sizeof al - 1);
        al[sizeof al - 1] = 0;
        char *save = NULL;
        for (char *a = strtok_r(al, "|", &save); a; a = strtok_r(NULL, "|", &save))
            if (isochron_streq_ci(name, a)) { *out = &estimators[i]; return ISOCHRON_OK; }
    }
    return isochron_set_error(ISOCHRON_ENAME, "unknown offset estimator '%s'; valid: skampi (SKaMPI-Offset), mean-rtt (Mean-RTT-Offset)", name);
}
